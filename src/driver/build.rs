//! The one builder from a spec's `[population]` section to populations
//! and query spaces at precision `T` (shared by every adapter, so each
//! kind is read in one place): binary and k-class populations, groups, the
//! query sphere of the sphere procedures, and datasets.

use crate::driver::spec::{Num, PopulationSpec, QueryCenter, RegularizationForm, Scores};
use crate::error::{Error, Result};
use crate::geometry::groups::{Groups, Rates};
use crate::geometry::sphere::{off_diagonal_sphere, Sphere};
use crate::population::Confusions;
#[cfg(feature = "data")]
use crate::population::{csv_file, DatasetPopulation};
use crate::population::{
    BinaryPopulation, ExpectedMulticlass, LogisticMulticlass, LogisticUniform, MulticlassPopulation,
};
use crate::scalar::Scalar;
use nalgebra::DVector;

/// `group_column` given to a procedure that does not use groups: a field
/// that does not apply, refused rather than ignored.
fn no_groups(procedure: &str) -> Error {
    no_groups_in("population.group_column", procedure)
}

/// An `arrays` population with labelled confusions and no labels.
fn no_labels() -> Error {
    Error::invalid(
        "population.labels",
        "labelled confusions (the default) need one label per row; or set confusions = \"expected\"",
    )
}

/// As [`no_groups`], naming `field`.
fn no_groups_in(field: &str, procedure: &str) -> Error {
    Error::invalid(
        field,
        format!("{procedure} does not use groups; the fair procedures (fpme, fair-qpme, qpme-tradeoff) take kind = \"groups\", a dataset with a group column, or arrays with groups"),
    )
}

/// A binary population (003) from `spec`: `synthetic-003`, a binary `csv`
/// or a two-class `dataset` (threshold classifiers of the fitted η̂ on the
/// held-out rows).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field; a population of another
/// kind is refused naming `procedure`.
pub fn binary<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<Box<dyn BinaryPopulation<T> + Send + Sync>> {
    match spec {
        PopulationSpec::Synthetic003 { a } => Ok(Box::new(
            LogisticUniform::new(a.to_scalar::<T>("population.a")?).map_err(|e| match e {
                Error::InvalidArgument { name, reason } if name == "a" => {
                    Error::invalid("population.a", reason)
                }
                other => other,
            })?,
        )),
        PopulationSpec::Csv {
            group_column: Some(_),
            ..
        } => Err(no_groups(procedure)),
        #[cfg(feature = "data")]
        PopulationSpec::Csv {
            path,
            score_column,
            probabilities: None,
            label_column,
            group_column: None,
        } => Ok(Box::new(csv_file::binary::<T>(
            path,
            score_column.as_deref().unwrap_or("score"),
            label_column,
        )?)),
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a binary procedure: give score_column (P(Y = 1 | x)), not probabilities"),
        )),
        PopulationSpec::Arrays {
            groups: Some(_), ..
        } => Err(no_groups_in("population.groups", procedure)),
        PopulationSpec::Arrays {
            probabilities,
            labels,
            confusions,
            query_center: _,
            groups: None,
        } => match (confusions, labels) {
            (Confusions::Expected, _) => Ok(Box::new(
                crate::population::arrays::binary_expected::<T>(probabilities)?,
            )),
            (Confusions::Labelled, Some(labels)) => Ok(Box::new(
                crate::population::arrays::binary::<T>(probabilities, labels)?,
            )),
            (Confusions::Labelled, None) => Err(no_labels()),
        },
        #[cfg(feature = "data")]
        PopulationSpec::Dataset { .. } => Ok(Box::new(dataset::<T>(spec)?.binary()?.clone())),
        other => Err(other.unsupported(procedure, "synthetic-003, csv, arrays or dataset")),
    }
}

/// A k-class population from `spec`: `synthetic-002` (logistic or softmax
/// scores), `synthetic-004` (the expected confusions of the 004 §5
/// population), a multiclass `csv` (labelled confusions) or a `dataset` (η̂
/// fitted on part of a CSV, RBO classifiers on the held-out rows).
///
/// # Errors
/// As [`binary`].
pub fn multiclass<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<Box<dyn MulticlassPopulation<T> + Send + Sync>> {
    match spec {
        PopulationSpec::Synthetic002 { p, scores } => {
            let p: Vec<T> = p
                .iter()
                .enumerate()
                .map(|(i, v)| v.to_scalar(&format!("population.p[{i}]")))
                .collect::<Result<_>>()?;
            Ok(Box::new(match scores {
                Scores::Logistic => LogisticMulticlass::new(p)?,
                Scores::Softmax => LogisticMulticlass::softmax(p)?,
            }))
        }
        PopulationSpec::Synthetic004 {
            classes,
            rows,
            seed,
        } => Ok(Box::new(ExpectedMulticlass::<T>::synthetic_004(
            *classes, *rows, *seed,
        )?)),
        PopulationSpec::Csv {
            group_column: Some(_),
            ..
        } => Err(no_groups(procedure)),
        #[cfg(feature = "data")]
        PopulationSpec::Csv {
            path,
            score_column: None,
            probabilities: Some(columns),
            label_column,
            group_column: None,
        } => {
            let csv = csv_file::multiclass::<T>(path, columns, label_column, None)?;
            Ok(Box::new(crate::population::Checked {
                population: csv.population,
                warnings: csv.warnings,
            }))
        }
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a multiclass procedure: give probabilities (one column per class), not score_column"),
        )),
        PopulationSpec::Arrays {
            groups: Some(_), ..
        } => Err(no_groups_in("population.groups", procedure)),
        PopulationSpec::Arrays {
            probabilities,
            labels,
            confusions,
            query_center: _,
            groups: None,
        } => match (confusions, labels) {
            (Confusions::Expected, _) => Ok(Box::new(
                crate::population::arrays::multiclass_expected::<T>(probabilities)?,
            )),
            // Labelled rows as a dataset's held-out rows: the same
            // population, with the calibration check.
            #[cfg(feature = "data")]
            (Confusions::Labelled, Some(labels)) => {
                let k = crate::population::arrays::check(probabilities, Some(labels))?;
                Ok(Box::new(DatasetPopulation::<T>::from_rows(
                    k,
                    probabilities.iter().flatten().copied().collect(),
                    Some(labels),
                    None,
                    Confusions::Labelled,
                )?))
            }
            #[cfg(not(feature = "data"))]
            (Confusions::Labelled, Some(labels)) => Ok(Box::new(
                crate::population::arrays::multiclass::<T>(probabilities, labels)?,
            )),
            (Confusions::Labelled, None) => Err(no_labels()),
        },
        #[cfg(feature = "data")]
        PopulationSpec::Dataset { .. } => Ok(Box::new(dataset::<T>(spec)?)),
        other => Err(other.unsupported(
            procedure,
            "synthetic-002, synthetic-004, a multiclass csv, arrays or dataset",
        )),
    }
}

/// The groups of a fair procedure (001) from `spec`: `groups` (τ, and the
/// common query sphere S_ρ) in general rates; or, from data (a `dataset`
/// with a `group` column, or `arrays` with `groups`), τ read off the rows
/// and S_ρ found in every group's feasible rates and certified
/// ([`data_groups`]).
///
/// # Errors
/// [`PopulationSpec::unsupported`] for another kind; otherwise as
/// [`Groups::new`], naming the field.
pub fn groups<T: Scalar>(spec: &PopulationSpec, procedure: &str) -> Result<Groups<T>> {
    groups_with(spec, procedure, Rates::General)
}

/// As [`groups`], in the given rates (the fair quadratic procedures).
///
/// # Errors
/// As [`groups`].
pub fn groups_with<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
    rates: Rates,
) -> Result<Groups<T>> {
    groups_at(spec, procedure, rates, false)
}

/// As [`groups`], honouring a data population's `query_center`: from data
/// the common sphere is centred toward the groups' most accurate
/// classifiers ([`data_groups`]) unless the spec says `uniform`. For the
/// Bayesian engine, whose questions are pairs about any common centre;
/// 001's search keeps o ([`groups`]), as its procedure assumes.
///
/// # Errors
/// As [`groups`].
pub fn groups_centred<T: Scalar>(spec: &PopulationSpec, procedure: &str) -> Result<Groups<T>> {
    groups_at(spec, procedure, Rates::General, true)
}

/// As [`groups_centred`], in the given rates (the Bayesian fair QPME; in
/// diagonal rates a sphere found in data keeps o, [`data_groups`]).
///
/// # Errors
/// As [`groups`].
pub fn groups_centred_with<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
    rates: Rates,
) -> Result<Groups<T>> {
    groups_at(spec, procedure, rates, true)
}

fn groups_at<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
    rates: Rates,
    centred: bool,
) -> Result<Groups<T>> {
    let centre = |c: &QueryCenter| if centred { *c } else { QueryCenter::Uniform };
    let (classes, tau, radius) = match spec {
        PopulationSpec::Groups {
            classes,
            tau,
            radius,
        } => (classes, tau, radius),
        #[cfg(feature = "data")]
        PopulationSpec::Dataset { group: None, .. } => {
            return Err(Error::invalid(
                "population.group",
                format!(
                "{procedure} needs the rows' groups: name the group column, group = \"<column>\""
            ),
            ))
        }
        #[cfg(feature = "data")]
        PopulationSpec::Dataset {
            seed, query_center, ..
        } => {
            return data_groups(
                &dataset::<T>(spec)?,
                *seed,
                rates,
                centre(query_center),
                "population.group",
            )
        }
        #[cfg(feature = "data")]
        PopulationSpec::Arrays { groups: None, .. } => {
            return Err(Error::invalid(
                "population.groups",
                format!("{procedure} needs the rows' groups: give one group code (0..m-1) per row"),
            ))
        }
        #[cfg(feature = "data")]
        PopulationSpec::Arrays {
            probabilities,
            labels,
            confusions,
            query_center,
            groups: Some(codes),
        } => {
            let labelled = labels
                .as_deref()
                .filter(|_| *confusions == Confusions::Labelled);
            let k = crate::population::arrays::check(probabilities, labelled)?;
            if *confusions == Confusions::Labelled && labels.is_none() {
                return Err(no_labels());
            }
            let m = codes.iter().max().map_or(0, |g| g + 1);
            let scores: Vec<f64> = probabilities.iter().flatten().copied().collect();
            let pop = DatasetPopulation::<T>::from_rows(
                k,
                scores,
                labels.as_deref(),
                Some((codes.clone(), m)),
                *confusions,
            )?;
            return data_groups(&pop, 0, rates, centre(query_center), "population.groups");
        }
        other => {
            return Err(other.unsupported(
                procedure,
                "groups, a dataset with a group column or arrays with groups",
            ))
        }
    };
    let t = tau
        .iter()
        .enumerate()
        .map(|(g, row)| {
            row.iter()
                .enumerate()
                .map(|(i, v)| v.to_scalar::<T>(&format!("population.tau[{g}][{i}]")))
                .collect::<Result<Vec<T>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    let radius = radius
        .as_ref()
        .map(|r: &Num| r.to_scalar::<T>("population.radius"))
        .transpose()?;
    Groups::with_rates(*classes, t, radius, rates)
}

/// The groups of rows with group codes (001 §6.2 on one's own data):
/// τ = P(G = g | Y = i) from the rows ([`DatasetPopulation::tau`]), and the
/// common sphere S_ρ about o = (1/k)·1 found in every group's feasible
/// off-diagonal rates (001 App. B.1, Alg. 3; `notes/001-fair.md` P25–P27)
/// and certified, so that every query point is the rates of a randomized
/// plug-in classifier in every group. For [`Rates::Diagonal`] the radius
/// is ρ·√(k − 1): a diagonal displacement d is realised by spreading −dᵢ
/// evenly over row i's k − 1 off-diagonal rates, a displacement of norm
/// ‖d‖/√(k − 1). The radius is capped at 1/k (S_ρ inside [0, 1]^q);
/// `field` names the groups in errors.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `field` for fewer than 2 groups; as
/// [`DatasetPopulation::find_sphere`]; a sphere that fails its
/// certificate.
#[cfg(feature = "data")]
pub fn data_groups<T: Scalar>(
    pop: &DatasetPopulation<T>,
    seed: u64,
    rates: Rates,
    centre: QueryCenter,
    field: &str,
) -> Result<Groups<T>> {
    let k = pop.classes();
    if pop.groups() < 2 {
        return Err(Error::invalid(
            field,
            format!(
                "a fair metric compares groups: the rows have {} group",
                pop.groups()
            ),
        ));
    }
    let set = pop.feasible(crate::geometry::feasible::Normalization::Rates, true)?;
    // A moved centre is a point of general rates (diagonal rates keep o).
    let found = match (centre, rates) {
        (QueryCenter::Accurate, Rates::General) => set.find_sphere_toward_accurate(32, seed)?,
        _ => set.find_sphere(32, seed)?,
    };
    if !found.certificate.holds {
        return Err(Error::invalid(
            field,
            format!(
                "the common sphere found in the groups' feasible rates failed its certificate ({:?})",
                found.certificate
            ),
        ));
    }
    let rho = found.radius.clone();
    let rho = match rates {
        Rates::General => rho,
        Rates::Diagonal => rho * T::int(k as i64 - 1).sqrt(),
    };
    let radius = rho.min(T::ratio(1, k as i64));
    let groups = Groups::with_rates(k, pop.tau(), Some(radius), rates)?;
    if found.centre.t > T::int(0) {
        groups.with_centre(found.sphere.center().clone())
    } else {
        Ok(groups)
    }
}

/// The query sphere of a `sphere` population (QPME and the cubic
/// procedure: no population behind it).
///
/// # Errors
/// [`PopulationSpec::unsupported`] for another kind; a bad centre or
/// radius, naming the field.
pub fn sphere_population<T: Scalar>(spec: &PopulationSpec, procedure: &str) -> Result<Sphere<T>> {
    let PopulationSpec::Sphere { center, radius } = spec else {
        return Err(spec.unsupported(procedure, "sphere"));
    };
    let c: Vec<T> = center
        .iter()
        .enumerate()
        .map(|(i, v)| v.to_scalar(&format!("population.center[{i}]")))
        .collect::<Result<_>>()?;
    Sphere::new(DVector::from_vec(c), radius.to_scalar("population.radius")?)
}

/// The query sphere of the sphere procedures (`lpme`, `lpm`) and, when its
/// coordinates are a k-class population's off-diagonal confusions, k: an
/// explicit `sphere` population; the sphere found and certified in a
/// `dataset`'s feasible off-diagonal confusions (001 App. B.1,
/// [`crate::geometry::feasible`]); or the sphere inside another k-class
/// population's off-diagonal confusions ([`off_diagonal_sphere`]).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field; a dataset whose sphere
/// fails its certificate.
pub fn sphere<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<(Sphere<T>, Option<usize>)> {
    sphere_with_priors(spec, procedure).map(|p| (p.sphere, p.classes))
}

/// The query sphere found in `pop`'s feasible set (001 App. B.1) and
/// certified, with k and the priors; `whose` names the set in the error.
#[cfg(feature = "data")]
fn certified_sphere<T: Scalar>(
    pop: &DatasetPopulation<T>,
    seed: u64,
    centre: QueryCenter,
    whose: &str,
) -> Result<SphereParts<T>> {
    let set = pop.feasible(crate::geometry::feasible::Normalization::Joint, false)?;
    let found = match centre {
        QueryCenter::Uniform => set.find_sphere(32, seed)?,
        QueryCenter::Accurate => set.find_sphere_toward_accurate(32, seed)?,
    };
    if !found.certificate.holds {
        return Err(Error::invalid(
            "population",
            format!(
                "the sphere found in {whose} feasible set failed its certificate ({:?})",
                found.certificate
            ),
        ));
    }
    Ok(SphereParts {
        toward_accurate: Some(found.centre.t.to_f64_lossy()),
        sphere: found.sphere,
        classes: Some(pop.classes()),
        priors: Some(pop.priors()),
    })
}

/// A query sphere with what a person's screens need.
#[derive(Debug, Clone)]
pub struct SphereParts<T: Scalar> {
    /// The sphere.
    pub sphere: Sphere<T>,
    /// k, when its coordinates are a k-class population's off-diagonal
    /// confusions.
    pub classes: Option<usize>,
    /// The class priors, then.
    pub priors: Option<Vec<T>>,
    /// For a sphere found in data: the fraction t of the way from the
    /// uniform classifier's rates to the data's most accurate classifier's
    /// at which it is centred (`query_center`; 0 for `uniform`).
    pub toward_accurate: Option<f64>,
}

/// As [`sphere`], with the class priors when the coordinates are a k-class
/// population's off-diagonal confusions (for showing them to a person).
///
/// # Errors
/// As [`sphere`].
pub fn sphere_with_priors<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<SphereParts<T>> {
    match spec {
        PopulationSpec::Sphere { center, radius } => {
            let center: Vec<T> = center
                .iter()
                .enumerate()
                .map(|(i, v)| v.to_scalar(&format!("population.center[{i}]")))
                .collect::<Result<_>>()?;
            let radius = radius.to_scalar("population.radius")?;
            let sphere = Sphere::new(DVector::from_vec(center), radius)
                .map_err(|e| Error::invalid("population", e.to_string()))?;
            Ok(SphereParts {
                sphere,
                classes: None,
                priors: None,
                toward_accurate: None,
            })
        }
        #[cfg(feature = "data")]
        PopulationSpec::Dataset {
            seed, query_center, ..
        } => {
            // The sphere is found in the feasible set of the held-out
            // rows' plug-in classifiers (001 App. B.1) and certified.
            certified_sphere(&dataset::<T>(spec)?, *seed, *query_center, "the dataset's")
        }
        #[cfg(feature = "data")]
        PopulationSpec::Arrays {
            probabilities,
            labels,
            confusions,
            groups: None,
            query_center,
        } => {
            // As for a dataset: the sphere found in the feasible set of the
            // rows' plug-in classifiers and certified.
            // The rows' checks and messages are the other builders'.
            let labelled = labels
                .as_deref()
                .filter(|_| *confusions == Confusions::Labelled);
            let k = crate::population::arrays::check(probabilities, labelled)?;
            let scores: Vec<f64> = probabilities.iter().flatten().copied().collect();
            let pop =
                DatasetPopulation::<T>::from_rows(k, scores, labels.as_deref(), None, *confusions)?;
            certified_sphere(&pop, 0, *query_center, "the rows'")
        }
        other => {
            let pop = multiclass::<T>(other, procedure)?;
            Ok(SphereParts {
                sphere: off_diagonal_sphere(pop.as_ref())?,
                classes: Some(pop.classes()),
                priors: Some(pop.priors()),
                toward_accurate: None,
            })
        }
    }
}

/// The population a `kind = "dataset"` spec describes: reads the CSV,
/// prepares, splits, fits η̂ and builds the held-out population at
/// precision `T`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a spec of another kind or naming the
/// field at fault; [`Error::Io`] when the file cannot be read.
#[cfg(feature = "data")]
pub fn dataset<T: Scalar>(spec: &PopulationSpec) -> Result<DatasetPopulation<T>> {
    let (settings, path, confusions) = dataset_settings(spec)?;
    let table = crate::fit::Table::read(&path)?;
    let fitted = crate::fit::fit_dataset(&table, &settings)?;
    DatasetPopulation::new(&fitted, confusions)
}

#[cfg(feature = "data")]
/// The data-preparation settings, the file and the confusions of a
/// `kind = "dataset"` spec.
///
/// # Errors
/// [`Error::InvalidArgument`] for another kind or a bad number.
pub fn dataset_settings(
    spec: &PopulationSpec,
) -> Result<(
    crate::fit::DatasetSettings,
    std::path::PathBuf,
    crate::population::Confusions,
)> {
    let PopulationSpec::Dataset {
        path,
        label,
        group,
        features,
        split,
        seed,
        regularization,
        confusions,
        regularization_form,
        exclude,
        bins,
        positive,
        group_bins,
        query_center: _,
    } = spec
    else {
        return Err(spec.unsupported("the dataset builder", "dataset"));
    };
    let mut settings = crate::fit::DatasetSettings::new(crate::fit::Columns {
        label: label.clone(),
        group: group.clone(),
        features: features.clone(),
        exclude: exclude.clone(),
        bins: bins.clone(),
        positive: *positive,
        group_bins: group_bins.clone(),
    });
    if let Some(s) = split {
        settings.split = s.to_scalar::<f64>("population.split")?;
    }
    settings.seed = *seed;
    let lambda = match regularization {
        Some(r) => r.to_scalar::<f64>("population.regularization")?,
        None => 1.0,
    };
    settings.regularization = match regularization_form {
        RegularizationForm::Weight => crate::fit::Regularization::Weight(lambda),
        RegularizationForm::Inverse => crate::fit::Regularization::Inverse(lambda),
        RegularizationForm::MeanLoss => crate::fit::Regularization::MeanLoss(lambda),
    };
    Ok((settings, path.clone(), *confusions))
}

#[cfg(all(test, feature = "data"))]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// n rows of k = 3 probabilities, labels drawn from them and two
    /// groups (group 1 leans to class 1), from a seeded generator.
    fn rows(n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>, Vec<usize>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (mut p, mut y, mut g) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..n {
            let group = usize::from(rng.random::<f64>() < 0.4);
            let mut row: Vec<f64> = (0..3).map(|_| rng.random::<f64>() + 0.05).collect();
            row[0] += 0.5 * group as f64;
            let total: f64 = row.iter().sum();
            row.iter_mut().for_each(|v| *v /= total);
            let u: f64 = rng.random();
            let label = if u < row[0] {
                0
            } else if u < row[0] + row[1] {
                1
            } else {
                2
            };
            p.push(row);
            y.push(label);
            g.push(group);
        }
        (p, y, g)
    }

    fn spec(p: &[Vec<f64>], y: &[usize], g: Option<&[usize]>) -> PopulationSpec {
        PopulationSpec::Arrays {
            probabilities: p.to_vec(),
            labels: Some(y.to_vec()),
            confusions: Confusions::Labelled,
            groups: g.map(<[usize]>::to_vec),
            query_center: QueryCenter::default(),
        }
    }

    #[test]
    fn groups_of_rows_read_tau_off_the_labels_and_find_a_certified_sphere() {
        let (p, y, g) = rows(600, 3);
        let groups = groups::<f64>(&spec(&p, &y, Some(&g)), "fpme").unwrap();
        // τ by counting: t^g_i = #(G = g, Y = i) / #(Y = i).
        for c in 0..3 {
            let of_class = y.iter().filter(|&&l| l == c).count() as f64;
            for grp in 0..2 {
                let both = y
                    .iter()
                    .zip(&g)
                    .filter(|(l, h)| **l == c && **h == grp)
                    .count();
                approx::assert_relative_eq!(
                    groups.t(grp)[c],
                    both as f64 / of_class,
                    epsilon = 1e-12
                );
            }
        }
        // The radius is the sphere found in both groups' feasible rates.
        let pop = DatasetPopulation::<f64>::from_rows(
            3,
            p.iter().flatten().copied().collect(),
            Some(&y),
            Some((g.clone(), 2)),
            Confusions::Labelled,
        )
        .unwrap();
        let found = pop
            .find_sphere(crate::geometry::feasible::Normalization::Rates, true, 32, 0)
            .unwrap();
        assert!(found.certificate.holds);
        assert!(found.radius > 0.0);
        assert_eq!(*groups.radius(), found.radius.min(1.0 / 3.0));
        // In diagonal rates, every point of the larger sphere ρ·√(k − 1) is
        // realised in every group: its diagonal displacement d spread as
        // −dᵢ/(k − 1) over row i's off-diagonal rates.
        let diagonal =
            groups_with::<f64>(&spec(&p, &y, Some(&g)), "fair-qpme", Rates::Diagonal).unwrap();
        let rho = *diagonal.radius();
        approx::assert_relative_eq!(rho, (found.radius * 2f64.sqrt()).min(1.0 / 3.0));
        let set = pop
            .feasible(crate::geometry::feasible::Normalization::Rates, true)
            .unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for _ in 0..20 {
            let d: Vec<f64> = (0..3).map(|_| rng.random::<f64>() - 0.5).collect();
            let norm = d.iter().map(|v| v * v).sum::<f64>().sqrt();
            let d: Vec<f64> = d.iter().map(|v| v / norm * rho).collect();
            let off = DVector::from_iterator(
                6,
                (0..6).map(|idx| {
                    let (i, _) = crate::population::offdiag_pair(3, idx);
                    1.0 / 3.0 - d[i] / 2.0
                }),
            );
            for grp in 0..2 {
                let r = found.realise(grp, &off).unwrap();
                let rates = set.mixture_rates(grp, &r.mixture).unwrap()
                    + DVector::from_element(6, r.uniform / 3.0);
                assert!(r.uniform >= -1e-12);
                approx::assert_relative_eq!(rates, off, epsilon = 1e-9);
            }
        }
    }

    #[test]
    fn fair_procedures_on_rows_name_the_missing_or_single_group() {
        let (p, y, g) = rows(200, 4);
        let Err(Error::InvalidArgument { name, .. }) = groups::<f64>(&spec(&p, &y, None), "fpme")
        else {
            panic!("rows without groups accepted")
        };
        assert_eq!(name, "population.groups");
        let one = vec![0; g.len()];
        let Err(Error::InvalidArgument { name, reason }) =
            groups::<f64>(&spec(&p, &y, Some(&one)), "fpme")
        else {
            panic!("one group accepted")
        };
        assert_eq!(name, "population.groups", "{reason}");
        // A procedure without groups still refuses them.
        let Err(Error::InvalidArgument { name, .. }) =
            multiclass::<f64>(&spec(&p, &y, Some(&g)), "dlpm")
        else {
            panic!("groups accepted by dlpm")
        };
        assert_eq!(name, "population.groups");
    }
}
