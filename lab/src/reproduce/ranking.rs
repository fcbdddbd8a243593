//! The ranking experiments of 001 §6.2 (Fig. 5) and 000 App. H.2
//! (Table 3): datasets with groups, classifier pools, the query sphere of
//! each data set, random true metrics, the baselines of 001 Table 2 and
//! 000 Table 3, and the evaluation (NDCG, Kendall τ-b; means and medians).
//!
//! The elicited metrics come from an [`Elicitor`]: FPME
//! ([`fpme_elicitor`]), fair QPME ([`fair_qpme_elicitor`]) and FPME asked
//! about a fair quadratic truth ([`fpme_on_quadratic_elicitor`]), each with
//! a simulated oracle on the data set's query sphere. The "exact parts"
//! rows ([`exact_elicitor`]) show what an elicitation without error would
//! give.

use super::Row;
use crate::data::shipped;
use crate::pool;
use metric_elicitation::elicit::fair_qpme::fair_qpme;
use metric_elicitation::elicit::fpme::{fpme, FpmeSettings};
use metric_elicitation::elicit::lpme::{lpme, LpmeSettings};
use metric_elicitation::elicit::qpme::{qpme, QpmeSettings};
use metric_elicitation::error::{Error, Result};
use metric_elicitation::fit::{fit_eta, Columns, Prepared, Regularization, Split, Table};
use metric_elicitation::geometry::feasible::{FeasibleSet, Normalization};
use metric_elicitation::geometry::groups::{GroupRates, Groups, Rates};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::fair::FairMetric;
use metric_elicitation::metric::quadratic::FairQuadraticMetric;
use metric_elicitation::metric::quadratic::QuadraticMetric;
use metric_elicitation::search::Tolerance;

use metric_elicitation::driver::rank::{compare, Metric, On, PoolStatistics, Statistic};
use metric_elicitation::oracle::{Memo, Simulated};
use metric_elicitation::search::Strategy;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which adult attribute forms the groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdultGroups {
    /// 001: White (0), Black (1), Asian-Pac-Islander (2).
    Race,
    /// 000: Female (0), Male (1).
    Sex,
}

/// Bucket codes: the number of `edges` strictly below each value.
fn buckets(values: &[f64], edges: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|v| edges.iter().filter(|e| **e < *v).count() as f64)
        .collect()
}

/// The q-quantile of `values` (linear interpolation, as numpy's default).
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut s: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let pos = q * (s.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}

/// The 43156-row, 74-feature adult set of 001/000 (`shared/notes/real-data.md`
/// §6): rows without missing workclass, occupation or native country;
/// race White, Black or Asian-Pac-Islander; native countries with at least
/// 100 of the remaining rows. Features: age and fnlwgt bucketed at their
/// quartiles, capital gain, capital loss, hours per week and education
/// number at the reference's edges (one ordinal column each), and one-hot
/// codes of the 8 categorical attributes (race and sex included).
///
/// # Errors
/// Only if the shipped file is damaged.
pub fn adult_rebuild(groups: AdultGroups) -> Result<Prepared> {
    let table = shipped("adult_numeric")?;
    let col = |n: &str| table.column(n, "adult").map(<[f64]>::to_vec);
    let (workclass, occupation, country, race) = (
        col("workclass")?,
        col("occupation")?,
        col("native_country")?,
        col("race")?,
    );
    let known = |v: f64| v >= 0.0;
    let keep: Vec<bool> = (0..table.rows())
        .map(|r| {
            known(workclass[r])
                && known(occupation[r])
                && known(country[r])
                && [1.0, 2.0, 4.0].contains(&race[r])
        })
        .collect();
    let mut counts = std::collections::HashMap::<i64, usize>::new();
    for r in (0..table.rows()).filter(|&r| keep[r]) {
        *counts.entry(country[r] as i64).or_default() += 1;
    }
    let keep: Vec<bool> = (0..table.rows())
        .map(|r| keep[r] && counts.get(&(country[r] as i64)).is_some_and(|c| *c >= 100))
        .collect();
    let t = table.filter(&keep)?;
    let n = t.rows();
    let mut columns: Vec<(String, Vec<f64>)> = Vec::new();
    for name in ["age", "fnlwgt"] {
        let v = t.column(name, "adult")?;
        let edges = [quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75)];
        columns.push((name.into(), buckets(v, &edges)));
    }
    for (name, edges) in [
        ("capital_gain", [1.0, 4000.0, 10000.0]),
        ("capital_loss", [1.0, 1800.0, 1950.0]),
        ("hours_per_week", [39.0, 41.0, 50.0]),
        ("education_num", [8.0, 9.0, 11.0]),
    ] {
        columns.push((name.into(), buckets(t.column(name, "adult")?, &edges)));
    }
    for name in [
        "workclass",
        "education",
        "marital_status",
        "occupation",
        "relationship",
        "race",
        "sex",
        "native_country",
    ] {
        let v = t.column(name, "adult")?;
        let mut levels: Vec<i64> = v.iter().map(|x| *x as i64).collect();
        levels.sort_unstable();
        levels.dedup();
        for level in levels {
            columns.push((
                format!("{name}={level}"),
                v.iter()
                    .map(|x| f64::from(u8::from(*x as i64 == level)))
                    .collect(),
            ));
        }
    }
    // A table of n rows, built column by column.
    let mut text = String::from("row\n");
    for r in 0..n {
        text.push_str(&format!("{r}\n"));
    }
    let mut built = Table::from_reader(text.as_bytes(), "adult rebuild")?;
    for (name, v) in columns {
        built.set_column(&name, v)?;
    }
    built.set_column("label", t.column("label", "adult")?.to_vec())?;
    let race = t.column("race", "adult")?;
    let group: Vec<f64> = match groups {
        AdultGroups::Race => race
            .iter()
            .map(|v| match *v as i64 {
                4 => 0.0,
                2 => 1.0,
                _ => 2.0,
            })
            .collect(),
        AdultGroups::Sex => t.column("sex", "adult")?.to_vec(),
    };
    built.set_column("group", group)?;
    built.drop_column("row");
    built.prepare(&Columns {
        label: "label".into(),
        group: Some("group".into()),
        ..Columns::default()
    })
}

/// Wine quality binned {≤ 5, 6, ≥ 7} (k = 3), groups = colour (0 red,
/// 1 white), the 11 physico-chemical features.
///
/// # Errors
/// Only if the shipped file is damaged.
pub fn wine_colour() -> Result<Prepared> {
    shipped("wine_quality_multiclass")?.prepare(&Columns {
        label: "label".into(),
        group: Some("group".into()),
        bins: Some(vec![3.0, 4.0]),
        ..Columns::default()
    })
}

/// Communities and crime: the label is ViolentCrimesPerPop binned at its
/// terciles (k = 3), the groups are the terciles of racepctblack (m = 3);
/// features: every predictive attribute without a missing value (the
/// identifiers state, county, community, community name and fold left out).
///
/// # Errors
/// Only if the shipped file is damaged.
pub fn crime_race() -> Result<Prepared> {
    let mut t = shipped("communities_crime_raw")?;
    let target = t.column("ViolentCrimesPerPop", "crime")?.to_vec();
    let black = t.column("racepctblack", "crime")?.to_vec();
    let cuts = |v: &[f64]| vec![quantile(v, 1.0 / 3.0), quantile(v, 2.0 / 3.0)];
    t.set_column("crime_class", buckets(&target, &cuts(&target)))?;
    t.set_column("black_tercile", buckets(&black, &cuts(&black)))?;
    let mut exclude: Vec<String> = [
        "state",
        "county",
        "community",
        "communityname",
        "fold",
        "ViolentCrimesPerPop",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for name in t.names().to_vec() {
        if exclude.contains(&name) || name == "crime_class" || name == "black_tercile" {
            continue;
        }
        if t.column(&name, "crime")
            .map_or(true, |v| v.iter().any(|x| x.is_nan()))
        {
            exclude.push(name);
        }
    }
    t.prepare(&Columns {
        label: "crime_class".into(),
        group: Some("black_tercile".into()),
        exclude,
        ..Columns::default()
    })
}

/// The substitute for 001/000's default dataset: the shipped 6000-row
/// sample, groups by MARRIAGE (0 = married, 1 = single; the other codes
/// dropped), since the sample has no SEX column.
///
/// # Errors
/// Only if the shipped file is damaged.
pub fn default_marriage() -> Result<Prepared> {
    let t = shipped("default_credit_sample")?;
    let marriage = t.column("MARRIAGE", "default")?.to_vec();
    let keep: Vec<bool> = marriage.iter().map(|m| *m == 1.0 || *m == 2.0).collect();
    let mut t = t.filter(&keep)?;
    let group = t
        .column("MARRIAGE", "default")?
        .iter()
        .map(|m| m - 1.0)
        .collect();
    t.set_column("married_or_single", group)?;
    t.prepare(&Columns {
        label: "label".into(),
        group: Some("married_or_single".into()),
        exclude: vec!["MARRIAGE".into()],
        ..Columns::default()
    })
}

/// A dataset ready for the ranking experiments: 60 % train, 40 % test, the
/// pool's statistics on the test part.
#[derive(Debug, Clone)]
pub struct RankingData {
    /// Name for the rows.
    pub name: String,
    /// The pool's statistics on the test part (with τ from its labels and
    /// groups).
    pub pool: PoolStatistics,
    /// Train / test rows.
    pub rows: (usize, usize),
    /// Accuracy of the pool's members on the test part (min, max).
    pub accuracy: (f64, f64),
    /// The query sphere of the elicitations, found in the test part's
    /// feasible group rates ([`find_query_sphere`]), or why none was found.
    pub sphere: std::result::Result<QuerySphere, String>,
}

impl RankingData {
    /// The same data with the default query sphere about o
    /// ([`metric_elicitation::geometry::groups::default_radius`]) in place of the one
    /// found in the data: the reading in which the queries do not come
    /// from the data set (its certificate is not checked).
    pub fn with_default_sphere(&self) -> RankingData {
        let radius = metric_elicitation::geometry::groups::default_radius::<f64>(self.pool.classes);
        RankingData {
            sphere: Ok(QuerySphere {
                radius,
                guarantee: radius,
                certified: false,
                from_data: false,
            }),
            ..self.clone()
        }
    }
}

/// The common query sphere S_ρ about o = (1/k)·1 in the off-diagonal group
/// rates of a data set (001 App. B.1, [`FeasibleSet::find_sphere`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuerySphere {
    /// ρ.
    pub radius: f64,
    /// The guarantee ρ ≥ min extent/√q.
    pub guarantee: f64,
    /// Whether every sampled point of S_ρ was realized by a randomized
    /// plug-in classifier in every group.
    pub certified: bool,
    /// Whether it was found in the data (false: the default sphere of
    /// [`RankingData::with_default_sphere`], not checked against the data).
    pub from_data: bool,
}

/// Finds the query sphere of a split data set: η̂ fitted on `train`
/// (softmax regression, α = 1, at most 200 L-BFGS iterations), the
/// feasible rates of its plug-in classifiers on `test` with the test
/// labels, per group, and the largest sphere about o in all of them,
/// certified on 64 random points and the 2q axis points.
///
/// # Errors
/// As [`fit_eta`], [`FeasibleSet::new`] and [`FeasibleSet::find_sphere`].
pub fn find_query_sphere(train: &Prepared, test: &Prepared, seed: u64) -> Result<QuerySphere> {
    let eta = fit_eta(train, Regularization::Weight(1.0), 200)?;
    let p = eta.probabilities(test.features.view());
    let k = test.classes;
    let scores: Vec<f64> = p.rows().into_iter().flatten().copied().collect();
    let mut mass = vec![0.0; test.len() * k];
    for (r, &y) in test.labels.iter().enumerate() {
        mass[r * k + y] = 1.0;
    }
    let set = FeasibleSet::<f64>::new(k, &scores, &mass, &test.groups, Normalization::Rates)?;
    let found = set.find_sphere(64, seed)?;
    Ok(QuerySphere {
        radius: found.radius,
        guarantee: found.guarantee,
        certified: found.certificate.holds,
        from_data: true,
    })
}

/// Splits `data` 60/40 (seeded), builds a pool of `size` classifiers
/// ([`pool::build`]) and computes their statistics on the test part.
///
/// # Errors
/// As [`pool::build`] and [`PoolStatistics::from_predictions`].
pub fn ranking_data(name: &str, data: &Prepared, size: usize, seed: u64) -> Result<RankingData> {
    let split = Split::random(data.len(), 0.6, seed)?;
    let (train, test) = (data.subset(&split.fit), data.subset(&split.held_out));
    let members = pool::build(&train, &test, size, seed)?;
    let accuracy = members
        .iter()
        .map(|c| {
            c.predictions
                .iter()
                .zip(&test.labels)
                .filter(|(a, b)| a == b)
                .count() as f64
                / test.len() as f64
        })
        .fold((f64::INFINITY, 0f64), |(lo, hi), a| (lo.min(a), hi.max(a)));
    let named: Vec<(String, Vec<usize>)> = members
        .into_iter()
        .map(|c| (c.name, c.predictions))
        .collect();
    let stats = PoolStatistics::from_predictions(&named, &test.labels, Some(&test.groups))?;
    if stats.classes != data.classes || stats.groups != data.group_count {
        return Err(Error::invalid(
            "pool",
            format!("{name}: a class or group is missing from the test part"),
        ));
    }
    Ok(RankingData {
        name: name.into(),
        pool: stats,
        rows: (train.len(), test.len()),
        accuracy,
        sphere: find_query_sphere(&train, &test, seed).map_err(|e| e.to_string()),
    })
}

fn unit(v: Vec<f64>) -> Vec<f64> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

/// A random 001 Def. 1 fair metric (the distribution 001 leaves open; the
/// one of `shared/notes/001-fair.md` §9): a = unit(U\[0,1\]^q); b^{uv} =
/// U\[0,1\]^q scaled by a U\[0,1\] mass per pair, then Σ‖b^{uv}‖₂ = 1;
/// λ ~ U[0.1, 0.9].
///
/// # Errors
/// [`Error::InvalidArgument`] for m < 2 or k < 2 (no fair metric has that
/// shape).
pub fn random_fair(k: usize, m: usize, rng: &mut ChaCha8Rng) -> Result<Metric> {
    let q = k * k - k;
    let a = unit((0..q).map(|_| rng.random::<f64>()).collect());
    let mut b: Vec<Vec<f64>> = (0..m * (m - 1) / 2)
        .map(|_| {
            let mass: f64 = rng.random();
            unit((0..q).map(|_| rng.random::<f64>()).collect())
                .into_iter()
                .map(|x| x * mass)
                .collect()
        })
        .collect();
    let total: f64 = b
        .iter()
        .map(|v| v.iter().map(|x| x * x).sum::<f64>().sqrt())
        .sum();
    for v in &mut b {
        for x in v.iter_mut() {
            *x /= total;
        }
    }
    let lambda = rng.random_range(0.1..0.9);
    Ok(Metric::new(FairMetric::as_given(
        DVector::from_vec(a),
        b.into_iter().map(DVector::from_vec).collect(),
        lambda,
    )?))
}

/// A random 000 Def. 4 fair quadratic metric (the distribution 000 leaves
/// open): a = unit(U\[0,1\]^k); B^{uv} = GGᵀ with G ~ U\[0,1\]^{k×k} (PSD),
/// scaled so that ½Σ‖B^{uv}‖_F = 1; λ ~ U[0.1, 0.9].
///
/// # Errors
/// [`Error::InvalidArgument`] for m < 2 or k < 2.
pub fn random_fair_quadratic(k: usize, m: usize, rng: &mut ChaCha8Rng) -> Result<Metric> {
    let a = unit((0..k).map(|_| rng.random::<f64>()).collect());
    let mut b: Vec<Vec<Vec<f64>>> = (0..m * (m - 1) / 2)
        .map(|_| {
            let g: Vec<Vec<f64>> = (0..k)
                .map(|_| (0..k).map(|_| rng.random()).collect())
                .collect();
            (0..k)
                .map(|i| {
                    (0..k)
                        .map(|j| (0..k).map(|l| g[i][l] * g[j][l]).sum())
                        .collect()
                })
                .collect()
        })
        .collect();
    let frobenius: f64 = b
        .iter()
        .map(|m| m.iter().flatten().map(|x| x * x).sum::<f64>().sqrt())
        .sum();
    for m in &mut b {
        for x in m.iter_mut().flatten() {
            *x *= 2.0 / frobenius;
        }
    }
    let lambda = rng.random_range(0.1..0.9);
    fair_quadratic_as_given(a, b, lambda)
}

/// A fair quadratic metric in diagonal rates (000 Def. 4's) from its
/// parts as plain lists, as given (not rescaled).
///
/// # Errors
/// As [`FairQuadraticMetric::as_given`].
pub fn fair_quadratic_as_given(a: Vec<f64>, b: Vec<Vec<Vec<f64>>>, lambda: f64) -> Result<Metric> {
    let k = a.len();
    let b = b
        .iter()
        .map(|m| DMatrix::from_fn(k, k, |i, j| m[i][j]))
        .collect();
    Ok(Metric::new(FairQuadraticMetric::as_given(
        DVector::from_vec(a),
        b,
        lambda,
        Rates::Diagonal,
    )?))
}

/// Random weights in the same order as `truth`'s ("w-acc." of 001 Table 2):
/// sorted U\[0,1\] draws assigned by the rank of each true weight, then
/// scaled to the truth's ℓ2 norm.
fn weighted_like(truth: &[f64], rng: &mut ChaCha8Rng) -> Vec<f64> {
    let mut draws: Vec<f64> = truth.iter().map(|_| rng.random()).collect();
    draws.sort_by(f64::total_cmp);
    let mut order: Vec<usize> = (0..truth.len()).collect();
    order.sort_by(|&x, &y| truth[x].total_cmp(&truth[y]));
    let mut out = vec![0.0; truth.len()];
    for (rank, &i) in order.iter().enumerate() {
        out[i] = draws[rank];
    }
    let norm_t = truth.iter().map(|x| x * x).sum::<f64>().sqrt();
    let norm = out
        .iter()
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt()
        .max(f64::MIN_POSITIVE);
    out.into_iter().map(|x| x * norm_t / norm).collect()
}

/// Where a part of a baseline comes from (001 Table 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    /// Equal weights ("acc.").
    Accuracy,
    /// Random weights in the truth's order ("w-acc.").
    Weighted,
    /// The elicited part (FPME).
    Elicited,
    /// The true part.
    True,
    /// A fixed value (λ only).
    Fixed(f64),
}

/// The baselines of 001 Table 2 and FPME itself: (name, a, B, λ sources).
pub const FAIR_METHODS: [(&str, Source, Source, Source); 9] = [
    (
        "phi-varphi-lambda_a",
        Source::Accuracy,
        Source::Accuracy,
        Source::Fixed(0.5),
    ),
    (
        "phi-varphi-lambda_w",
        Source::Weighted,
        Source::Weighted,
        Source::Weighted,
    ),
    (
        "phi-varphi_a",
        Source::Accuracy,
        Source::Accuracy,
        Source::Elicited,
    ),
    (
        "phi-varphi_w",
        Source::Weighted,
        Source::Weighted,
        Source::Elicited,
    ),
    (
        "phi_a",
        Source::Accuracy,
        Source::Elicited,
        Source::Elicited,
    ),
    (
        "phi_w",
        Source::Weighted,
        Source::Elicited,
        Source::Elicited,
    ),
    ("o_p", Source::True, Source::Accuracy, Source::Fixed(0.0)),
    ("o_f", Source::Accuracy, Source::True, Source::Fixed(1.0)),
    ("FPME", Source::Elicited, Source::Elicited, Source::Elicited),
];

/// Produces the elicited metric for a truth on a data set (FPME for 001;
/// fair QPME or FPME for 000), or `None` when no elicitation is available.
pub type Elicitor<'a> =
    &'a dyn Fn(&Metric, &RankingData, &mut ChaCha8Rng) -> Result<Option<Metric>>;

/// A 001 baseline built from the truth and, where it needs one, the
/// elicited metric (`None`: the baseline is not available).
///
/// "w-acc." for λ: a draw uniform on the half of [0, 1] that holds the
/// true λ (the paper leaves it undefined).
///
/// # Errors
/// As [`FairMetric::as_given`].
pub fn fair_baseline(
    sources: (Source, Source, Source),
    truth: &Metric,
    elicited: Option<&Metric>,
    rng: &mut ChaCha8Rng,
) -> Result<Option<Metric>> {
    let Some(truth) = truth.get::<FairMetric<f64>>() else {
        return Ok(None);
    };
    let (a, lambda) = (truth.a().as_slice(), *truth.lambda());
    let b: Vec<&[f64]> = truth.b().iter().map(|v| v.as_slice()).collect();
    let elicited = elicited.and_then(|e| e.get::<FairMetric<f64>>());
    let pairs = b.len().max(1) as f64;
    let flat = |len: usize, scale: f64| vec![scale / (len as f64).sqrt(); len];
    let a2 = match sources.0 {
        Source::Accuracy => flat(a.len(), 1.0),
        Source::Weighted => weighted_like(a, rng),
        Source::Elicited => match elicited {
            Some(e) => e.a().as_slice().to_vec(),
            None => return Ok(None),
        },
        Source::True | Source::Fixed(_) => a.to_vec(),
    };
    let b2: Vec<Vec<f64>> = match sources.1 {
        Source::Accuracy => b.iter().map(|v| flat(v.len(), 1.0 / pairs)).collect(),
        Source::Weighted => b.iter().map(|v| weighted_like(v, rng)).collect(),
        Source::Elicited => match elicited {
            Some(e) => e.b().iter().map(|v| v.as_slice().to_vec()).collect(),
            None => return Ok(None),
        },
        Source::True | Source::Fixed(_) => b.iter().map(|v| v.to_vec()).collect(),
    };
    let l2 = match sources.2 {
        Source::Fixed(v) => v,
        Source::Weighted => {
            if lambda < 0.5 {
                rng.random_range(0.0..0.5)
            } else {
                rng.random_range(0.5..1.0)
            }
        }
        Source::Elicited => match elicited {
            Some(e) => *e.lambda(),
            None => return Ok(None),
        },
        Source::Accuracy => 0.5,
        Source::True => lambda,
    };
    Ok(Some(Metric::new(FairMetric::as_given(
        DVector::from_vec(a2),
        b2.into_iter().map(DVector::from_vec).collect(),
        l2,
    )?)))
}

/// Mean and median of NDCG (exponential, linear) and τ-b over trials.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scores {
    /// NDCG with exponential gain, per trial.
    pub ndcg: Vec<f64>,
    /// NDCG with linear gain on 1/cost, per trial (where defined).
    pub ndcg_linear: Vec<f64>,
    /// Kendall τ-b, per trial (where defined).
    pub tau: Vec<f64>,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The median (mean of the two middle values for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

impl Scores {
    /// [mean NDCG, mean τ, median NDCG, median τ, mean NDCG (linear),
    /// median NDCG (linear)].
    pub fn summary(&self) -> Vec<f64> {
        vec![
            mean(&self.ndcg),
            mean(&self.tau),
            median(&self.ndcg),
            median(&self.tau),
            mean(&self.ndcg_linear),
            median(&self.ndcg_linear),
        ]
    }
}

/// One method of a ranking experiment: its name and how it builds its
/// metric from (truth, elicited, rng); `None` = not available.
pub type Method<'a> = (
    &'a str,
    Box<dyn Fn(&Metric, Option<&Metric>, &mut ChaCha8Rng) -> Result<Option<Metric>> + 'a>,
);

/// Runs `methods` against `truths` on `data`: per method the scores over
/// the trials, and how many trials it was unavailable.
///
/// # Errors
/// As [`compare`], the methods and the elicitor.
pub fn evaluate(
    data: &RankingData,
    truths: &[Metric],
    methods: &[Method<'_>],
    elicitor: Elicitor<'_>,
    seed: u64,
) -> Result<Vec<(Scores, usize)>> {
    let mut out = vec![(Scores::default(), 0usize); methods.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for truth in truths {
        let elicited = elicitor(truth, data, &mut rng)?;
        for (slot, (_, build)) in out.iter_mut().zip(methods) {
            match build(truth, elicited.as_ref(), &mut rng)? {
                Some(candidate) => {
                    let c = compare(&candidate, truth, &data.pool)?;
                    slot.0.ndcg.push(c.ndcg.exponential);
                    if let Some(l) = c.ndcg.linear {
                        slot.0.ndcg_linear.push(l);
                    }
                    if let Some(t) = c.kendall_tau_b {
                        slot.0.tau.push(t);
                    }
                }
                None => slot.1 += 1,
            }
        }
    }
    Ok(out)
}

/// No elicitation: for methods that need no elicited part.
pub fn no_elicitor(_: &Metric, _: &RankingData, _: &mut ChaCha8Rng) -> Result<Option<Metric>> {
    Ok(None)
}

/// An elicitor without error: returns the truth (the "exact parts" rows).
pub fn exact_elicitor(
    truth: &Metric,
    _: &RankingData,
    _: &mut ChaCha8Rng,
) -> Result<Option<Metric>> {
    Ok(Some(truth.clone()))
}

/// ε of the ranking experiments' FPME runs (001 §6.1's; §6.2 states none).
pub const FPME_EPS: f64 = 1e-3;

/// The data set's query sphere as [`Groups`] in `rates`, with τ from the
/// test part. In diagonal rates the sphere found in the off-diagonal rates
/// is used as it is, which is exact for k = 2 (the diagonal rates are one
/// minus the off-diagonal ones); other k are refused.
fn data_groups(data: &RankingData, rates: Rates) -> Result<Groups<f64>> {
    let radius = query_radius(data)?;
    let k = data.pool.classes;
    if rates == Rates::Diagonal && k != 2 {
        return Err(Error::invalid(
            "population",
            format!(
                "{}: diagonal-rate spheres are found for k = 2 only",
                data.name
            ),
        ));
    }
    Groups::with_rates(k, data.pool.tau.clone(), Some(radius), rates)
}

/// ρ of the data set's query sphere, or an error saying why there is none.
fn query_radius(data: &RankingData) -> Result<f64> {
    data.sphere.as_ref().map(|s| s.radius).map_err(|why| {
        Error::invalid(
            "population",
            format!("{}: no query sphere: {why}", data.name),
        )
    })
}

/// A procedure's refusal of a truth ([`Error::IllConditioned`]: the
/// answers cannot determine the metric) as no elicited metric, so the
/// trial counts as one without a result; any other error stays an error.
fn refused_as_none<E>(result: Result<E>) -> Result<Option<E>> {
    match result {
        Ok(e) => Ok(Some(e)),
        Err(Error::IllConditioned { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// FPME (001 Alg. 1 in the crate's default setting,
/// [`FpmeSettings::efficient`]: golden section, one reverse cycle,
/// least-squares δ, closed-form λ, searching to ε = [`FPME_EPS`]) with a simulated
/// oracle of a 001 Def. 1 truth, on the data set's query sphere with its
/// τ; `None` for another kind of truth. (The paper's setting, with the
/// two-coordinate δ, refuses some of these truths: its denominator
/// vanishes, a typed error.)
///
/// # Errors
/// As [`Groups::new`], [`FairMetric::new`] and [`fpme`].
pub fn fpme_elicitor(
    truth: &Metric,
    data: &RankingData,
    _: &mut ChaCha8Rng,
) -> Result<Option<Metric>> {
    let Some(t) = truth.get::<FairMetric<f64>>() else {
        return Ok(None);
    };
    let groups = data_groups(data, Rates::General)?;
    let psi = FairMetric::new(t.a().clone(), t.b().to_vec(), *t.lambda())?;
    let mut oracle = Simulated::new(psi.bind(&groups)?);
    fpme_metric(&groups, &mut oracle, FPME_EPS)
}

/// FPME in the default setting at `eps`, its estimate as a ranking
/// [`FairMetric`] (as given); `None` when it refused the truth.
fn fpme_metric<O: metric_elicitation::oracle::Oracle<GroupRates<f64>>>(
    groups: &Groups<f64>,
    oracle: &mut O,
    eps: f64,
) -> Result<Option<Metric>> {
    // The efficient setting's searches and rules, run to `eps` itself (not
    // its default ε/4).
    let tolerance = Tolerance::new(eps)?;
    let settings = FpmeSettings {
        eps: tolerance.clone(),
        ..FpmeSettings::efficient(tolerance)
    };
    let Some(est) = refused_as_none(fpme(groups, oracle, &settings))? else {
        return Ok(None);
    };
    Ok(Some(Metric::new(FairMetric::as_given(
        est.a, est.b, est.lambda,
    )?)))
}

/// A 000 Def. 4 truth (k = 2) as a [`FairQuadraticMetric`] in `rates`: for
/// k = 2 the cost is the same function of the classifier in diagonal and
/// in off-diagonal rates.
fn fair_quadratic(truth: &Metric, rates: Rates) -> Result<Option<FairQuadraticMetric<f64>>> {
    let Some(t) = truth.get::<FairQuadraticMetric<f64>>() else {
        return Ok(None);
    };
    FairQuadraticMetric::new(t.a().clone(), t.b().to_vec(), *t.lambda(), rates).map(Some)
}

/// Fair QPME (000 Alg. 4, the paper setting of `super::quadratic::fair_paper`) with a
/// simulated oracle of a 000 Def. 4 truth in diagonal rates, on the data
/// set's query sphere (k = 2) with its τ; `None` for another kind of truth.
///
/// # Errors
/// As [`FairQuadraticMetric::new`] and [`fair_qpme`]; k ≠ 2.
pub fn fair_qpme_elicitor(
    truth: &Metric,
    data: &RankingData,
    _: &mut ChaCha8Rng,
) -> Result<Option<Metric>> {
    let Some(t) = fair_quadratic(truth, Rates::Diagonal)? else {
        return Ok(None);
    };
    let groups = data_groups(data, Rates::Diagonal)?;
    let mut oracle = Simulated::new(Memo::new(t.bind(&groups)?));
    let Some(est) = refused_as_none(fair_qpme(
        &groups,
        &mut oracle,
        &super::quadratic::fair_paper(),
    ))?
    else {
        return Ok(None);
    };
    Ok(Some(Metric::new(FairQuadraticMetric::as_given(
        est.a,
        est.b,
        est.lambda,
        Rates::Diagonal,
    )?)))
}

/// How a row of 000 Table 4 elicits: a linear metric (LPME) or a quadratic
/// one (QPME), in diagonal or in general (off-diagonal) rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table4Method {
    /// QPME (true) or LPME (false).
    pub quadratic: bool,
    /// The rates the metric is elicited in: [`Statistic::RatesDiagonal`]
    /// or [`Statistic::RatesOffDiagonal`].
    pub rates: Statistic,
}

/// 000 Table 4's elicitation: a truth quadratic in the general rates
/// (000 Def. 3 via App. E, k = 2) asked about on the data set's query
/// sphere, in `method.rates` (for k = 2 the diagonal rates are one minus
/// the off-diagonal ones, so the oracle answers about the same
/// classifiers), by LPME (the paper setting: adaptive halving, 3 cycles,
/// ε = 10⁻²) or QPME (000 Table 1's paper setting, ϱ = 5·10⁻³); the
/// elicited metric in those rates. `None` for another kind of truth or a
/// refused one.
///
/// # Errors
/// k ≠ 2, no query sphere, and the procedures' errors other than a
/// refusal.
pub fn table4_elicitor(
    method: Table4Method,
) -> impl Fn(&Metric, &RankingData, &mut ChaCha8Rng) -> Result<Option<Metric>> {
    move |truth: &Metric, data: &RankingData, _: &mut ChaCha8Rng| {
        let Some(truth) = truth
            .get::<On<QuadraticMetric<f64>>>()
            .filter(|t| t.statistic() == Statistic::RatesOffDiagonal)
        else {
            return Ok(None);
        };
        let q = truth.metric().dim();
        if data.pool.classes != 2 || q != 2 {
            return Err(Error::invalid(
                "population",
                format!("{}: 000 Table 4 is run at k = 2", data.name),
            ));
        }
        let sphere = Sphere::new(DVector::from_element(q, 0.5), query_radius(data)?)?;
        let t = QuadraticMetric::new(truth.metric().a().clone(), truth.metric().b().clone())?;
        let diagonal = method.rates == Statistic::RatesDiagonal;
        let mut oracle = Simulated::new(move |r: &DVector<f64>| {
            if diagonal {
                t.value(&r.map(|x| 1.0 - x))
            } else {
                t.value(r)
            }
        });
        let (a_hat, b_hat) = if method.quadratic {
            match refused_as_none(qpme(
                &sphere,
                &mut oracle,
                &QpmeSettings::paper(Tolerance::new(1e-2)?, 5e-3),
            ))? {
                Some(e) => (e.a, e.b),
                None => return Ok(None),
            }
        } else {
            let e = lpme(
                &sphere,
                &mut oracle,
                &LpmeSettings::paper(Tolerance::new(1e-2)?, Strategy::Adaptive, 3),
            )?;
            (e.a, DMatrix::zeros(q, q))
        };
        Ok(Some(Metric::new(On::new(
            QuadraticMetric::as_given(a_hat, b_hat)?,
            method.rates,
        )?)))
    }
}

/// FPME (001's linear fair metric, the default setting at ε = 10⁻², the
/// 000 experiment's) asked about a 000 Def. 4 truth (k = 2), in the
/// off-diagonal rates where FPME works: what 000 Table 3's "elicited via
/// FPME" row ranks by. `None` for another kind of truth.
///
/// # Errors
/// As [`FairQuadraticMetric::new`] and [`fpme`]; k ≠ 2.
pub fn fpme_on_quadratic_elicitor(
    truth: &Metric,
    data: &RankingData,
    _: &mut ChaCha8Rng,
) -> Result<Option<Metric>> {
    if data.pool.classes != 2 {
        return Err(Error::invalid(
            "population",
            format!("{}: FPME on a Def. 4 truth needs k = 2", data.name),
        ));
    }
    let Some(t) = fair_quadratic(truth, Rates::General)? else {
        return Ok(None);
    };
    let groups = data_groups(data, Rates::General)?;
    let mut oracle = Simulated::new(Memo::new(t.bind(&groups)?));
    fpme_metric(&groups, &mut oracle, 1e-2)
}

/// A row of a ranking table.
pub fn ranking_row(
    table: &str,
    data: &RankingData,
    method: &str,
    scores: &Scores,
    pending: usize,
    paper: Vec<f64>,
) -> Row {
    let mut row = Row::new(table, format!("{}, {method}", data.name), "f64".into(), "-");
    row.trials = Some(scores.ndcg.len());
    if !scores.ndcg.is_empty() {
        row.elicited = scores.summary();
    }
    row.paper = paper;
    // Error against the paper's (NDCG, tau) when it prints them: our
    // medians, NDCG with exponential gain (the paper's stated measure; the
    // linear-gain NDCG of the authors' code is in the row as well). Not
    // a number where nothing is compared.
    row.error = f64::NAN;
    if let (Some(p), false) = (row.paper.first(), row.elicited.is_empty()) {
        let ours = [row.elicited[2], row.elicited[3]];
        row.error = (ours[0] - p)
            .abs()
            .max((ours[1] - row.paper.get(1).copied().unwrap_or(ours[1])).abs());
    }
    let tau: Vec<String> = data
        .pool
        .tau
        .iter()
        .map(|t| {
            format!(
                "[{}]",
                t.iter()
                    .map(|x| format!("{x:.3}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    let sphere = match &data.sphere {
        Ok(s) if !s.from_data => format!(
            "default query sphere rho = {:.4} about o (not from the data, not certified)",
            s.radius
        ),
        Ok(s) => format!(
            "query sphere rho = {:.4} (guarantee {:.4}, certificate {})",
            s.radius,
            s.guarantee,
            if s.certified { "holds" } else { "fails" }
        ),
        Err(why) => format!("no query sphere ({why})"),
    };
    let missing = if pending == 0 {
        String::new()
    } else {
        format!(
            "no result in {pending} of {} trials (this method needs an elicited metric, and the elicitation refused those truths with a typed error, ill-conditioned, or none was given); ",
            pending + scores.ndcg.len()
        )
    };
    row.note = format!(
        "{missing}ours = [mean NDCG(exp), mean tau, median NDCG(exp), median tau, mean NDCG(lin), median NDCG(lin)] over {} metrics; pool of {} (test accuracy {:.3}..{:.3}), train/test {}/{}, tau (rows g) {}, {sphere}",
        scores.ndcg.len(),
        data.pool.classifiers.len(),
        data.accuracy.0,
        data.accuracy.1,
        data.rows.0,
        data.rows.1,
        tau.join(" ")
    );
    row
}

/// How much the fairness term of a 000 Def. 4 truth moves the ranking of a
/// pool beside its linear term: over the pool's classifiers, the standard
/// deviation of λ·F against that of (1 − λ)·L, where the cost is
/// (1 − λ)L + λF (L the linear part, F the violation part). `None` for
/// another family or a pool where L does not vary.
///
/// # Errors
/// Propagates metric evaluation failures.
pub fn fairness_share(truth: &Metric, pool: &PoolStatistics) -> Result<Option<f64>> {
    let Some(truth) = truth.get::<FairQuadraticMetric<f64>>() else {
        return Ok(None);
    };
    let lambda = *truth.lambda();
    let part = |l: f64| -> Result<Metric> {
        Ok(Metric::new(FairQuadraticMetric::as_given(
            truth.a().clone(),
            truth.b().to_vec(),
            l,
            truth.rates(),
        )?))
    };
    let spread = |m: &Metric| -> Result<f64> {
        let v = pool
            .classifiers
            .iter()
            .map(|c| m.value(c, pool))
            .collect::<Result<Vec<f64>>>()?;
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        Ok((v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt())
    };
    let (linear, violation) = (spread(&part(0.0)?)?, spread(&part(1.0)?)?);
    Ok((linear > 0.0).then(|| lambda * violation / ((1.0 - lambda) * linear)))
}

/// The fairness-share diagnostic row of 000 Table 3 for one data set: per
/// truth its [`fairness_share`] and the Kendall τ-b of the ranking by its
/// linear part alone (`linear_tau`, in the truths' order). `elicited`
/// holds the share's median and 90th percentile, the τ-b between share and
/// linear-only τ over the truths, and the median linear-only τ of the truths
/// with a share below and above the median share, then the median share
/// of the truths whose linear-only τ is at most `paper_tau` (the paper's
/// median for that row, when given) and their count.
///
/// # Errors
/// Propagates metric evaluation failures.
pub fn fairness_share_row(
    table: &str,
    data: &RankingData,
    truths: &[Metric],
    linear_tau: &[f64],
    paper_tau: Option<f64>,
) -> Result<Row> {
    let mut row = Row::new(
        table,
        format!("{}, fairness share of the truths (diagnostic)", data.name),
        "f64".into(),
        "-",
    );
    row.error = f64::NAN;
    if linear_tau.len() != truths.len() {
        // A truth whose linear ranking has no τ-b (all tied) would shift
        // the pairing: report nothing rather than a misaligned figure.
        row.note = format!(
            "not computed: {} linear-only tau values for {} truths",
            linear_tau.len(),
            truths.len()
        );
        return Ok(row);
    }
    let shares = truths
        .iter()
        .map(|t| fairness_share(t, &data.pool))
        .collect::<Result<Vec<_>>>()?;
    let pairs: Vec<(f64, f64)> = shares
        .iter()
        .zip(linear_tau)
        .filter_map(|(s, t)| s.map(|s| (s, *t)))
        .collect();
    let s: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let t: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let mid = median(&s);
    let below: Vec<f64> = pairs.iter().filter(|p| p.0 <= mid).map(|p| p.1).collect();
    let above: Vec<f64> = pairs.iter().filter(|p| p.0 > mid).map(|p| p.1).collect();
    let association = metric_elicitation::driver::rank::kendall_tau_b(&s, &t).unwrap_or(f64::NAN);
    let low: Vec<f64> = paper_tau.map_or_else(Vec::new, |p| {
        pairs.iter().filter(|x| x.1 <= p).map(|x| x.0).collect()
    });
    row.trials = Some(pairs.len());
    row.elicited = vec![
        mid,
        quantile(&s, 0.9),
        association,
        median(&below),
        median(&above),
        median(&low),
        low.len() as f64,
    ];
    let paper = match paper_tau {
        Some(p) if !low.is_empty() => format!(
            "; the {} truths whose linear-only tau is at most the paper's median {p:.3} have a median share of {:.3}",
            low.len(),
            median(&low)
        ),
        Some(p) => format!("; no truth's linear-only tau is as low as the paper's median {p:.3}"),
        None => String::new(),
    };
    row.note = format!(
        "per truth, share = sd over the pool of lambda*F / sd of (1 - lambda)*L (cost = (1 - lambda)L + lambda F): median {mid:.3}, 90th percentile {:.3}; Kendall tau-b between the share and the tau of 'Linear with no fairness' over the {} truths: {association:.3}; that row's median tau is {:.3} for the truths with a share at most the median and {:.3} above it",
        quantile(&s, 0.9),
        pairs.len(),
        median(&below),
        median(&above)
    ) + &paper;
    Ok(row)
}
