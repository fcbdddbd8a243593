//! Multiclass metric elicitation: *Multiclass Performance Metric
//! Elicitation* (Hiranandani, Boodaghians, Mehta, Koyejo, NeurIPS 2019;
//! `002` in `shared/seeds`).
//!
//! * [`elicit_dlpm`] — Alg. 1: diagonal linear metrics ψ(d) = ⟨a, d⟩ over
//!   the faces (1, i) of the space of diagonal confusions;
//! * [`elicit_lpm`] — Alg. 2: monotonically decreasing linear metrics of
//!   the off-diagonal confusions over a sphere S_λ (via [`super::lpme`]).

use super::lpme::{lpme, AngleOrder, LpmeEstimate, LpmeSettings, Orthant};
use super::ratios::{elicit_ratios, PairSpace, RatioEstimate};
pub use super::ratios::{FaceSearch, Reference};
use crate::error::Result;
use crate::geometry::sphere::{Sign, Sphere};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use crate::search::Strategy;
use nalgebra::DVector;

/// Settings of [`elicit_dlpm`].
#[derive(Debug, Clone, PartialEq)]
pub struct DlpmSettings<T> {
    /// Search tolerance ε on each face's m ∈ [0, 1].
    pub eps: T,
    /// The search strategy.
    pub strategy: Strategy,
    /// The reference class.
    pub reference: Reference,
}

impl<T: Scalar> DlpmSettings<T> {
    /// 002 Alg. 1 as printed: reference class 1, the given ε and strategy.
    pub fn paper(eps: T, strategy: Strategy) -> Self {
        DlpmSettings {
            eps,
            strategy,
            reference: Reference::Class(0),
        }
    }
}

/// An elicited diagonal linear metric (see [`RatioEstimate`]; its
/// searches are the faces (r, i) and `class` is the class i).
pub type DlpmEstimate<T> = RatioEstimate<T>;

/// ν(m; k1, k2): the RBO diagonal confusion of the DLPM with a_{k1} = m,
/// a_{k2} = 1 − m (002 §3.1).
///
/// # Errors
/// As [`MulticlassPopulation::rbo_diagonal`].
pub fn nu<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(
    population: &P,
    m: &T,
    k1: usize,
    k2: usize,
) -> Result<DVector<T>> {
    population.rbo_diagonal(k1, k2, m, &(T::int(1) - m.clone()))
}

/// The faces (r, i) of a population's diagonal confusions as the pair
/// spaces of [`elicit_ratios`].
struct Faces<'a, P: ?Sized>(&'a P);

impl<T: Scalar, P: MulticlassPopulation<T> + ?Sized> PairSpace<T> for Faces<'_, P> {
    type Point = DVector<T>;

    fn weights(&self) -> usize {
        self.0.classes()
    }

    fn can_lead(&self, _: usize) -> bool {
        true
    }

    fn point(&self, r: usize, i: usize, m: &T) -> Result<DVector<T>> {
        nu(self.0, m, r, i)
    }

    fn empty_sides(&self, r: usize, i: usize, d: &DVector<T>) -> (bool, bool) {
        (d[r] == T::int(0), d[i] == T::int(0))
    }

    fn label(&self, r: usize, i: usize) -> String {
        format!("face ({}, {})", r + 1, i + 1)
    }

    fn weight_name(&self, i: usize) -> String {
        format!("a_{}", i + 1)
    }
}

/// 002 Algorithm 1 (DLPM elicitation): for each class i ≠ r, search
/// m ∈ [0, 1] on the face (r, i) with ν(m; r, i); then â_r = 1,
/// âᵢ = (1 − m̂)/m̂ and â ← â/‖â‖₁. Class indices are 0-based (class 1 of
/// the paper is 0). With [`Reference::Auto`] the reference moves to the
/// largest weight seen, as described there.
///
/// With [`Strategy::Paper`] it asks exactly 4(k − 1)·⌈log₂(1/ε)⌉ queries
/// (fewer when two quarter points give the same confusion: those
/// comparisons are answered without asking by [`crate::oracle::Counted`]).
///
/// Besides â it returns the box of weights consistent with every answer
/// and warnings naming why a face's consistent interval is wider than ε
/// (a vertex optimum, a plateau, a reference weight too small, answers that
/// contradict each other).
///
/// # Errors
/// [`crate::Error::InvalidEpsilon`]; [`crate::Error::InvalidArgument`] for a reference
/// class out of range; [`crate::Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
/// use metric_elicitation::population::LogisticMulticlass;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use nalgebra::DVector;
/// let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
/// let truth = DVector::from_vec(vec![0.21, 0.59, 0.20]);
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
/// let est = elicit_dlpm(&pop, &mut oracle, &DlpmSettings::paper(0.01, Strategy::Paper)).unwrap();
/// assert!((est.a - truth).amax() <= 0.01);
/// assert_eq!(est.queries, 56);
/// assert!(est.warnings.is_empty());
/// ```
pub fn elicit_dlpm<T, P, O>(
    population: &P,
    oracle: &mut O,
    settings: &DlpmSettings<T>,
) -> Result<DlpmEstimate<T>>
where
    T: Scalar,
    P: MulticlassPopulation<T> + ?Sized,
    O: Oracle<DVector<T>> + ?Sized,
{
    elicit_ratios(
        &Faces(population),
        oracle,
        &settings.eps,
        settings.strategy,
        settings.reference,
        "DLPM elicitation (002 Alg. 1)",
    )
}

/// 002 Algorithm 2 (LPM elicitation): a monotonically decreasing linear
/// metric of the off-diagonal confusions (all aᵢ ≤ 0), elicited over the
/// lower boundary of the sphere S_λ with T = cycles·(q − 1) single-angle
/// searches (the paper: 2 cycles; angles θ₁..θ_{q−2} ∈ [π/2, π],
/// θ_{q−1} ∈ [π, 3π/2]).
///
/// # Errors
/// As [`lpme`].
pub fn elicit_lpm<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    eps: &T,
    strategy: Strategy,
    cycles: usize,
) -> Result<LpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    let settings = LpmeSettings {
        eps: eps.clone(),
        strategy,
        cycles,
        orthant: Orthant::Known(vec![Sign::Negative; sphere.dim()]),
        order: AngleOrder::Paper,
        stop_early: false,
    };
    lpme(sphere, oracle, &settings)
}

/// How a k-class query is shown to a person.
pub mod views {
    use crate::elicit::procedure::View;
    use crate::scalar::Scalar;
    use nalgebra::DVector;

    /// A diagonal confusion: each class's correct predictions, in % of all
    /// cases.
    pub fn diagonal<T: Scalar>(d: &DVector<T>) -> View {
        View {
            title: "correct predictions, % of all cases".into(),
            rows: d
                .iter()
                .enumerate()
                .map(|(i, v)| format!("class {} {:>8.2}", i + 1, 100.0 * v.to_f64_lossy()))
                .collect(),
        }
    }

    /// Off-diagonal entries (row-major, q = k² − k) as a k×k matrix of
    /// mistakes (actual class by row, predicted by column), scaled by
    /// `scale` (100 for % of all cases).
    pub fn off_diagonal<T: Scalar>(z: &DVector<T>, k: usize, what: &str) -> View {
        let mut it = z.iter();
        let rows = (0..k)
            .map(|i| {
                let cells: Vec<String> = (0..k)
                    .map(|j| {
                        if i == j {
                            "     -".to_string()
                        } else {
                            format!(
                                "{:>6.2}",
                                it.next().map_or(0.0, |v| 100.0 * v.to_f64_lossy())
                            )
                        }
                    })
                    .collect();
                format!("actual {} {}", i + 1, cells.join(" "))
            })
            .collect();
        View {
            title: format!("{what}: predicted 1..{k}"),
            rows,
        }
    }

    /// A point of an abstract query space: its coordinates.
    pub fn coordinates<T: Scalar>(z: &DVector<T>) -> View {
        View {
            title: "coordinates".into(),
            rows: z
                .iter()
                .enumerate()
                .map(|(i, v)| format!("x{} {:>10.6}", i + 1, v.to_f64_lossy()))
                .collect(),
        }
    }

    /// The off-diagonal k of q = k² − k, if q is of that form.
    pub fn classes_of(q: usize) -> Option<usize> {
        (2..=q).find(|k| k * k - k == q)
    }
}

/// DLPM (002 Alg. 1) and LPM (002 Alg. 2) behind the one interface
/// ([`super::procedure::Procedure`]): `dlpm` and `lpm`.
pub mod procedures {
    use super::*;
    use crate::elicit::lpme::procedures::{SphereSettings, SphereSpace};
    use crate::elicit::lpme::{sphere_space_items, LpmeEstimate};
    use crate::elicit::procedure::{
        exact_list, linear_words, lossy_list, Family, Procedure, Report, Search, View,
    };
    use crate::error::Error;
    use crate::population::build;
    use crate::spec::{num_list_of, PopulationSpec};
    use serde::Deserialize;
    use serde_json::{json, Map, Value};

    /// Settings of `dlpm`.
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DlpmSpecSettings {
        /// The reference class: a 1-based class number (002 Alg. 1 uses 1)
        /// or `"auto"` (default: the largest weight found along the way).
        #[serde(default)]
        pub reference: Option<Value>,
    }

    /// `dlpm`: 002 Alg. 1 over the faces (r, i) of the diagonal confusions.
    pub struct Dlpm<T: Scalar> {
        population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
        settings: DlpmSettings<T>,
    }

    impl<T: Scalar> Procedure<T> for Dlpm<T> {
        type Settings = DlpmSpecSettings;
        type Point = DVector<T>;
        type Truth = DVector<T>;
        type Estimate = DlpmEstimate<T>;
        const ERROR: &'static str = "max |a - a^| (both l1-normalized)";

        fn new(
            s: DlpmSpecSettings,
            search: Search<T>,
            population: &PopulationSpec,
        ) -> Result<Self> {
            let population = build::multiclass(population, "dlpm")?;
            let k = population.classes();
            let reference = match &s.reference {
                None => Reference::Auto,
                Some(Value::String(a)) if a == "auto" => Reference::Auto,
                Some(v) => match v.as_u64() {
                    Some(r) if r >= 1 && (r as usize) <= k => Reference::Class(r as usize - 1),
                    _ => {
                        return Err(Error::invalid(
                            "reference",
                            format!("expected a class 1..{k} or \"auto\", got {v}"),
                        ))
                    }
                },
            };
            Ok(Dlpm {
                population,
                settings: DlpmSettings {
                    eps: search.eps,
                    strategy: search.strategy,
                    reference,
                },
            })
        }

        fn truth(&self, metric: &Value) -> Result<DVector<T>> {
            let k = self.population.classes();
            let v = DVector::from_vec(num_list_of::<T>(metric, "oracle.metric", k)?);
            if let Some(i) = v.iter().position(|x| *x < T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 Def. 5 (DLPM weights >= 0)".into(),
                    detail: format!("oracle.metric[{i}] = {} is negative", v[i]),
                });
            }
            let norm = v.iter().fold(T::int(0), |s, x| s + x.clone());
            if norm <= T::int(0) {
                return Err(Error::invalid("oracle.metric", "all weights are zero"));
            }
            Ok(v / norm)
        }

        fn value(&self, truth: &DVector<T>, point: &DVector<T>) -> T {
            truth.dot(point)
        }

        fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<DlpmEstimate<T>> {
            elicit_dlpm(self.population.as_ref(), oracle, &self.settings)
        }

        fn report(&self, est: &DlpmEstimate<T>, truth: Option<&DVector<T>>) -> Report {
            let faces: Vec<Value> = est
                .faces
                .iter()
                .map(|f| {
                    let (lo, hi) = f.consistent.bounds();
                    json!({
                        "face": format!("({}, {})", f.reference + 1, f.class + 1),
                        "m": f.m.to_f64_lossy(),
                        "consistent_m": [lo.to_f64_lossy(), hi.to_f64_lossy()],
                        "ties": f.ties,
                    })
                })
                .collect();
            let bounds: Vec<Value> = est
                .bounds
                .iter()
                .map(|(lo, hi)| json!([lo.to_f64_lossy(), hi.to_f64_lossy()]))
                .collect();
            let mut details = Map::new();
            details.insert(
                "unidentified_faces".into(),
                json!(est
                    .unidentified_faces
                    .iter()
                    .map(|i| {
                        let r = est
                            .faces
                            .iter()
                            .find(|f| f.class == *i)
                            .map_or(0, |f| f.reference);
                        format!("({}, {})", r + 1, i + 1)
                    })
                    .collect::<Vec<_>>()),
            );
            details.insert("reference".into(), json!(est.reference + 1));
            let mut report = Report {
                elicited: lossy_list(est.a.iter()),
                elicited_exact: exact_list(est.a.iter()),
                words: linear_words(
                    est.a
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (format!("correct(class {})", i + 1), w)),
                ),
                consistent: json!({ "weights": bounds, "faces": faces }),
                warnings: est.warnings.clone(),
                details,
                ..Report::default()
            };
            if let Some(t) = truth {
                report.truth = Some(lossy_list(t.iter()));
                report.error = Some((t - &est.a).amax().to_f64_lossy());
            }
            report
        }

        fn present(&self, point: &DVector<T>) -> View {
            views::diagonal(point)
        }

        fn expected_queries(&self) -> Option<usize> {
            let search = Search {
                eps: self.settings.eps.clone(),
                strategy: self.settings.strategy,
            };
            crate::elicit::binary::procedures::expected(&T::int(1), &search)
                .map(|n| n * (self.population.classes() - 1))
        }
    }

    /// `lpm`: 002 Alg. 2, a monotonically decreasing linear metric of the
    /// off-diagonal confusions over a sphere S_λ (the orthant is known).
    pub struct Lpm<T: Scalar>(SphereSpace<T>);

    impl<T: Scalar> Procedure<T> for Lpm<T> {
        sphere_space_items!();

        fn new(s: SphereSettings, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
            let mut space = SphereSpace::new(s, search, population, "lpm")?;
            space.orthant = Orthant::Known(vec![Sign::Negative; space.sphere.dim()]);
            Ok(Lpm(space))
        }

        fn truth(&self, metric: &Value) -> Result<DVector<T>> {
            let v = self.0.unit_truth(metric)?;
            if let Some(i) = v.iter().position(|x| *x > T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 §2.2 (LPM monotonically decreasing: weights <= 0)".into(),
                    detail: format!(
                        "oracle.metric[{i}] is positive; use procedure lpme for any signs"
                    ),
                });
            }
            Ok(v)
        }
    }

    /// `dlpm`.
    pub struct DlpmFamily;
    impl Family for DlpmFamily {
        const NAME: &'static str = "dlpm";
        const SUMMARY: &'static str = "a diagonal linear metric of k-class confusions (002 Alg. 1)";
        type At<T: Scalar> = Dlpm<T>;
    }

    /// `lpm`.
    pub struct LpmFamily;
    impl Family for LpmFamily {
        const NAME: &'static str = "lpm";
        const SUMMARY: &'static str =
            "a monotonically decreasing linear metric of off-diagonal confusions over a sphere (002 Alg. 2)";
        type At<T: Scalar> = Lpm<T>;
    }
}
