//! Specifications of an elicitation (`elicit run | ask`): TOML or JSON,
//! parsed into typed values with errors that name the field.
//!
//! A spec has a few fields every procedure shares — `procedure`,
//! `epsilon`, `search`, `precision`, `budget`, a `[population]` (where the
//! queries come from) and an `[oracle]` (who answers) — and the
//! procedure's own settings as further top-level fields. Those are kept in
//! [`Spec::settings`] and deserialized by the procedure
//! ([`crate::driver::adapter::Adapter::Fields`]), which rejects
//! unknown fields, so a field that does not apply to the procedure is an
//! error naming it.
//!
//! Numbers are [`Num`]s: a float, or a string such as `"0.1"` rounded once
//! at the working precision (an exact decimal for MPFR runs).

use crate::error::{Error, Result};
use crate::scalar::Scalar;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A number in a spec: a TOML/JSON number, or a decimal string rounded once
/// at the working precision. Anything else (a boolean, a table, a list) is
/// refused with "expected a number, or a decimal string such as \"0.1\"".
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// A number written as a number (an `f64`, converted exactly).
    Float(f64),
    /// A number written as text, rounded once at the working precision.
    Text(String),
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, or a decimal string such as \"0.1\"")
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> std::result::Result<Num, E> {
                Ok(Num::Float(x))
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> std::result::Result<Num, E> {
                Ok(Num::Float(x as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, x: u64) -> std::result::Result<Num, E> {
                Ok(Num::Float(x as f64))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Num, E> {
                Ok(Num::Text(s.to_string()))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl From<f64> for Num {
    fn from(x: f64) -> Self {
        Num::Float(x)
    }
}

impl Num {
    /// The value at precision `T`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `field` when the value is not a
    /// finite number.
    pub fn to_scalar<T: Scalar>(&self, field: &str) -> Result<T> {
        match self {
            Num::Float(x) if x.is_finite() => Ok(T::from_f64_exact(*x)),
            Num::Float(x) => Err(Error::invalid(
                field,
                format!("must be a finite number, got {x}"),
            )),
            Num::Text(s) => {
                let v = T::decode(s)
                    .map_err(|_| Error::invalid(field, format!("not a number: {s:?}")))?;
                if v.finite() {
                    Ok(v)
                } else {
                    Err(Error::invalid(
                        field,
                        format!("must be a finite number, got {s}"),
                    ))
                }
            }
        }
    }
}

/// The first non-finite float of a TOML value, as its field path
/// (`oracle.metric[0]`), if any.
fn non_finite(value: &toml::Value, path: String) -> Option<String> {
    match value {
        toml::Value::Float(x) if !x.is_finite() => Some(path),
        toml::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| non_finite(v, format!("{path}[{i}]"))),
        toml::Value::Table(t) => t.iter().find_map(|(k, v)| {
            non_finite(
                v,
                if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                },
            )
        }),
        _ => None,
    }
}

/// Reads a [`Num`] out of a JSON value (a number or a decimal string).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `field`.
pub fn num<T: Scalar>(value: &Value, field: &str) -> Result<T> {
    let n: Num = serde_json::from_value(value.clone())
        .map_err(|_| Error::invalid(field, format!("expected a number, got {}", short(value))))?;
    n.to_scalar(field)
}

/// Reads a list of numbers out of a JSON value.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `field` (and the entry, `field[i]`).
pub fn num_list<T: Scalar>(value: &Value, field: &str) -> Result<Vec<T>> {
    let items = value.as_array().ok_or_else(|| {
        Error::invalid(
            field,
            format!("expected a list of numbers, got {}", short(value)),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| num(v, &format!("{field}[{i}]")))
        .collect()
}

/// Reads a list of `len` numbers.
///
/// # Errors
/// As [`num_list`], and when the length differs.
pub fn num_list_of<T: Scalar>(value: &Value, field: &str, len: usize) -> Result<Vec<T>> {
    let v = num_list(value, field)?;
    if v.len() != len {
        return Err(Error::invalid(
            field,
            format!("expected {len} numbers, got {}", v.len()),
        ));
    }
    Ok(v)
}

/// Reads a matrix (a list of `rows` lists of `cols` numbers).
///
/// # Errors
/// As [`num_list`], naming `field[i][j]`.
pub fn num_matrix<T: Scalar>(
    value: &Value,
    field: &str,
    rows: usize,
    cols: usize,
) -> Result<Vec<Vec<T>>> {
    let items = value.as_array().ok_or_else(|| {
        Error::invalid(
            field,
            format!("expected a list of {rows} rows, got {}", short(value)),
        )
    })?;
    if items.len() != rows {
        return Err(Error::invalid(
            field,
            format!("expected {rows} rows, got {}", items.len()),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, row)| num_list_of(row, &format!("{field}[{i}]"), cols))
        .collect()
}

/// A JSON value cut to a short one-line excerpt for messages.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// How class scores depend on x in the 002 §6.1 population.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scores {
    /// ηᵢ ∝ 1/(1 + e^{pᵢx}), as printed in 002 §6.1.
    #[default]
    Logistic,
    /// ηᵢ ∝ e^{pᵢx}.
    Softmax,
}

pub use crate::population::Confusions;

/// One attribute of a cost/reward metric (004): a cost in [lower, upper]
/// with upper ≤ 0 or a reward with lower ≥ 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    /// The attribute's name, used in `oracle.metric` and in `ask`.
    pub name: String,
    /// `cost` or `reward`.
    pub kind: String,
    /// Lower end of its range.
    pub lower: Num,
    /// Upper end of its range.
    pub upper: Num,
    /// The unit its values are in (e.g. "ms", "USD"), shown to a person
    /// beside each value; presentation only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// What the task is about, in its own words: shown on every screen a
/// person answers (`elicit ask`, `elicit ask --web`) and used in the
/// sentence that states the elicited metric. Presentation only: no field
/// changes a question or a result's numbers.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// One line describing the decision, e.g. "Flag patients for a
    /// biopsy".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The classes' names in class order: for the binary procedures the
    /// positive class (1) first, then the negative (0), e.g.
    /// `["cancer", "no cancer"]`; for k classes, class 1..k.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,
    /// The groups' names (fair procedures), group 1..m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<String>>,
    /// What one case is, plural (default "cases"), e.g. "patients".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<String>,
    /// Counts are shown out of this many cases: 100 (default) or 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<u32>,
}

impl TaskSpec {
    /// Checks the names (non-empty, distinct, one line) and `per`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `task.…`.
    pub fn validate(&self) -> Result<()> {
        if let Some(per) = self.per {
            if per != 100 && per != 1000 {
                return Err(Error::invalid(
                    "task.per",
                    format!("counts are shown out of 100 or 1000 cases, got {per}"),
                ));
            }
        }
        let line = |field: &str, text: &str| -> Result<()> {
            if text.trim().is_empty() || text.contains('\n') || text.chars().count() > 200 {
                return Err(Error::invalid(
                    field,
                    format!("must be one non-empty line of at most 200 characters, got {text:?}"),
                ));
            }
            Ok(())
        };
        if let Some(d) = &self.description {
            line("task.description", d)?;
        }
        if let Some(c) = &self.cases {
            line("task.cases", c)?;
        }
        for (field, names) in [("task.labels", &self.labels), ("task.groups", &self.groups)] {
            if let Some(names) = names {
                for (i, n) in names.iter().enumerate() {
                    line(&format!("{field}[{i}]"), n)?;
                    if names[..i].contains(n) {
                        return Err(Error::invalid(
                            format!("{field}[{i}]"),
                            format!("{n:?} is named twice"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Where the query points come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum PopulationSpec {
    /// 003 App. A: X ~ U[−1, 1], η(x) = 1/(1 + e^{ax}).
    #[serde(rename = "synthetic-003")]
    Synthetic003 {
        /// The slope a (default 5).
        #[serde(default = "default_a")]
        a: Num,
    },
    /// 002 §6.1: X ~ U[−1, 1], ηᵢ ∝ 1/(1 + e^{pᵢx}) (or softmax scores).
    #[serde(rename = "synthetic-002")]
    Synthetic002 {
        /// One slope per class.
        p: Vec<Num>,
        /// `logistic` (the paper's) or `softmax`.
        #[serde(default)]
        scores: Scores,
    },
    /// 004 §5: x ~ N(0, I₁₀), W ~ U[−1.5, 1.5]^{k×10}, η = softmax(Wx),
    /// `rows` rows generated in-process from `seed`; expected confusions.
    #[serde(rename = "synthetic-004")]
    Synthetic004 {
        /// Number of classes k.
        classes: usize,
        /// Number of rows n.
        rows: usize,
        /// Seed of x and W.
        #[serde(default)]
        seed: u64,
    },
    /// A CSV file with a header row: binary (`score_column`, a probability
    /// of class 1) or multiclass (`probabilities`, one column per class).
    #[serde(rename = "csv")]
    Csv {
        /// The file (relative paths are relative to the spec).
        path: PathBuf,
        /// Binary: the column holding P(Y = 1 | x) (default `score`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_column: Option<String>,
        /// Multiclass: the columns holding P(Y = i | x), one per class, in
        /// class order.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probabilities: Option<Vec<String>>,
        /// The label column (0/1, or 0..k−1).
        #[serde(default = "default_label")]
        label_column: String,
        /// An optional group column (0..m−1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group_column: Option<String>,
    },
    /// A sample held in the spec itself (what the Python package writes
    /// for `predict_proba` output): row r's class probabilities
    /// `probabilities[r]` (k ≥ 2 values in [0, 1] summing to 1; binary
    /// procedures read the second, P(Y = 1 | x)), its label `labels[r]` ∈
    /// 0..k−1 and optionally its group. The same population as a `csv`
    /// holding these columns.
    #[serde(rename = "arrays")]
    Arrays {
        /// n rows of k class probabilities.
        probabilities: Vec<Vec<f64>>,
        /// n labels in 0..k−1 (required for `labelled` confusions).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        labels: Option<Vec<usize>>,
        /// `labelled` (default: counts of the labels) or `expected`
        /// (expectations under the probabilities, no labels).
        #[serde(default, skip_serializing_if = "is_labelled")]
        confusions: Confusions,
        /// n group codes (0..m−1), when the rows have groups.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        groups: Option<Vec<usize>>,
        /// Where a query sphere found in the rows is centred (`accurate`,
        /// the default, or `uniform`, the papers' o).
        #[serde(default)]
        query_center: QueryCenter,
    },
    /// An explicit sphere S_ρ: the query space of LPME and the
    /// sphere-based procedures, with no population behind it.
    #[serde(rename = "sphere")]
    Sphere {
        /// Its centre (q ≥ 2 coordinates).
        center: Vec<Num>,
        /// Its radius ρ > 0.
        radius: Num,
    },
    /// Groups of a fair metric (001, 000): `tau` has m rows of k values
    /// (row g is t^g, t^g_i = P(G = g | Y = i); each column sums to 1); the
    /// query sphere S_ρ of radius `radius` about o = (1/k)·1.
    #[serde(rename = "groups")]
    Groups {
        /// Number of classes k.
        classes: usize,
        /// m rows of k values.
        tau: Vec<Vec<Num>>,
        /// ρ (default: the largest that keeps S_ρ in [0, 1]^q, at most 0.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        radius: Option<Num>,
    },
    /// A labelled dataset: η̂ fitted on a split, queries built on the rest.
    #[serde(rename = "dataset")]
    Dataset {
        /// The CSV file (relative paths are relative to the spec).
        path: PathBuf,
        /// The label column.
        label: String,
        /// An optional group column.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        /// Feature columns (default: every other column).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        features: Option<Vec<String>>,
        /// Fraction of rows used to fit η̂ (default 0.5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        split: Option<Num>,
        /// Seed of the split.
        #[serde(default)]
        seed: u64,
        /// Regularization of the fitted logistic/softmax model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        regularization: Option<Num>,
        /// `labelled` (default) or `expected` confusions.
        #[serde(default)]
        confusions: Confusions,
        /// How `regularization` is meant: `weight` (default; linfa's α, the
        /// weight of ½‖W‖² against the summed log-loss), `inverse`
        /// (scikit-learn's C = 1/α) or `mean-loss` (λ‖W‖² against the mean
        /// log-loss, α = 2nλ).
        #[serde(default)]
        regularization_form: RegularizationForm,
        /// Columns left out of the default feature set (e.g. other group
        /// codings).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        exclude: Vec<String>,
        /// Cut points binning a real-valued label: class = number of cut
        /// points ≤ value (wine quality with [6, 7]: ≤ 5, 6, ≥ 7).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bins: Option<Vec<f64>>,
        /// Binary labels: the value that becomes class 1 (the positive
        /// class; default: the label's own 0/1 codes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        positive: Option<f64>,
        /// Cut points binning a real-valued group column.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group_bins: Option<Vec<f64>>,
        /// Where the query sphere found in the data is centred (`accurate`,
        /// the default, or `uniform`, the papers' o), for lpm, lpme and the
        /// Bayesian fpme and fair-qpme in general rates (the fair
        /// procedures' searches keep o).
        #[serde(default)]
        query_center: QueryCenter,
    },
}

/// Where the query sphere found in a sample's feasible rates is centred
/// (lpme and lpm on a `dataset` or `arrays`, and fpme with the Bayesian
/// engine on rows with groups; issue #30).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueryCenter {
    /// Toward the data's most accurate plug-in classifier, as far as the
    /// sphere keeps half its radius about o
    /// ([`crate::geometry::feasible::FeasibleSet::find_sphere_toward_accurate`]):
    /// the classifiers a person is asked about are nearer what the data
    /// can do well.
    #[default]
    Accurate,
    /// At the uniform random classifier's rates o, as 001 App. B.1 (the
    /// papers' setting; the reproductions name it).
    Uniform,
}

/// Read by hand so that a wrong value names the field: inside the tagged
/// `[population]` table the TOML reader can only point at the table.
impl<'de> Deserialize<'de> for QueryCenter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = String::deserialize(d)?;
        match value.as_str() {
            "accurate" => Ok(QueryCenter::Accurate),
            "uniform" => Ok(QueryCenter::Uniform),
            other => Err(serde::de::Error::custom(format!(
                "population.query_center: `accurate` or `uniform`, got `{other}`"
            ))),
        }
    }
}

/// How a dataset's `regularization` is meant (see
/// [`crate::fit::Regularization`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RegularizationForm {
    /// linfa's α: Σ log-loss + (α/2)‖W‖².
    #[default]
    Weight,
    /// scikit-learn's C: α = 1/C.
    Inverse,
    /// (1/n)Σ log-loss + λ‖W‖²: α = 2nλ.
    MeanLoss,
}

fn is_labelled(c: &Confusions) -> bool {
    *c == Confusions::Labelled
}

fn default_a() -> Num {
    Num::Float(5.0)
}
fn default_label() -> String {
    "label".into()
}

impl PopulationSpec {
    /// The `kind` as written in a spec.
    pub fn kind(&self) -> &'static str {
        match self {
            PopulationSpec::Synthetic003 { .. } => "synthetic-003",
            PopulationSpec::Synthetic002 { .. } => "synthetic-002",
            PopulationSpec::Synthetic004 { .. } => "synthetic-004",
            PopulationSpec::Csv { .. } => "csv",
            PopulationSpec::Arrays { .. } => "arrays",
            PopulationSpec::Sphere { .. } => "sphere",
            PopulationSpec::Groups { .. } => "groups",
            PopulationSpec::Dataset { .. } => "dataset",
        }
    }

    /// The number of classes, where the spec says it without building the
    /// population (synthetic-002: the slopes; synthetic-004 and groups:
    /// `classes`); `None` for the others.
    pub fn stated_classes(&self) -> Option<usize> {
        match self {
            PopulationSpec::Synthetic002 { p, .. } => Some(p.len()),
            PopulationSpec::Synthetic004 { classes, .. }
            | PopulationSpec::Groups { classes, .. } => Some(*classes),
            _ => None,
        }
    }

    /// The data files the population reads (for transcript headers).
    pub fn files(&self) -> Vec<&Path> {
        match self {
            PopulationSpec::Csv { path, .. } | PopulationSpec::Dataset { path, .. } => {
                vec![path.as_path()]
            }
            _ => Vec::new(),
        }
    }

    /// The error for a procedure that cannot use this population.
    pub fn unsupported(&self, procedure: &str, expected: &str) -> Error {
        Error::invalid(
            "population.kind",
            format!(
                "{procedure} does not take a {} population (expected {expected})",
                self.kind()
            ),
        )
    }
}

/// Who answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum OracleSpec {
    /// A simulated oracle for a known metric, optionally ε_Ω-noisy.
    #[serde(rename = "simulated")]
    Simulated {
        /// The hidden metric, in the procedure's format (a list of numbers,
        /// or a table).
        metric: Value,
        /// ε_Ω ≥ 0 (default 0: exact).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eps_omega: Option<Num>,
        /// always-wrong | random (default) | push-away | scripted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        adversary: Option<String>,
        /// Seed of the random adversary and of the mistakes (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<u64>,
        /// A person who errs: each strict answer flipped with this
        /// probability (independently, seeded by `seed`), after the noise
        /// band ([`crate::oracle::Mistakes`]; default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mistake_rate: Option<Num>,
        /// A person who answers by Bradley–Terry: P(prefers A) =
        /// σ((φ(A) − φ(B))/τ) with this τ > 0 in the metric's units
        /// (seeded by `seed`), outside the noise band; mistakes, if any,
        /// flip its answers ([`crate::oracle::Tempered`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        temperature: Option<Num>,
        /// scripted: the in-band answers as a hex string (one bit each).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        script: Option<String>,
    },
    /// Answers from a transcript written by `--transcript`.
    #[serde(rename = "replay")]
    Replay {
        /// The transcript file (relative to the spec).
        transcript: PathBuf,
    },
    /// The person at the terminal (`elicit ask`).
    #[serde(rename = "person")]
    Person {},
}

/// Which engine elicits: the papers' procedures or the Bayesian one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The papers' coordinate searches (`engine = "search"`; the default
    /// for an oracle that answers exactly).
    Search,
    /// The noise-robust Bayesian engine (`engine = "bayes"`,
    /// [`crate::elicit::bayes`]; the default for a person, where the
    /// procedure has it).
    Bayes,
}

impl Engine {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Search => "search",
            Engine::Bayes => "bayes",
        }
    }
}

/// The adversaries a simulated oracle accepts, by spec name.
pub const ADVERSARIES: [&str; 4] = ["always-wrong", "random", "push-away", "scripted"];

/// Who answers inside a simulated oracle's noise band (the spec's
/// `oracle.adversary`, read once by [`AdversaryName::parse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdversaryName {
    /// Always the wrong answer ([`crate::oracle::AlwaysWrong`]).
    AlwaysWrong,
    /// A seeded coin ([`crate::oracle::SeededRandom`]; the default).
    Random,
    /// Away from the truth's optimum ([`crate::oracle::PushAway`]).
    PushAway,
    /// The bits of `oracle.script` ([`crate::oracle::Scripted`]).
    Scripted,
}

impl AdversaryName {
    /// The adversary a spec names (`None`: the default, random).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `oracle.adversary` for an unknown
    /// name.
    pub fn parse(name: Option<&str>) -> Result<Self> {
        Ok(match name.unwrap_or("random") {
            "always-wrong" => AdversaryName::AlwaysWrong,
            "random" => AdversaryName::Random,
            "push-away" => AdversaryName::PushAway,
            "scripted" => AdversaryName::Scripted,
            other => {
                return Err(Error::invalid(
                    "oracle.adversary",
                    format!(
                        "unknown adversary {other:?} (expected one of {})",
                        ADVERSARIES.join(", ")
                    ),
                ))
            }
        })
    }

    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            AdversaryName::AlwaysWrong => ADVERSARIES[0],
            AdversaryName::Random => ADVERSARIES[1],
            AdversaryName::PushAway => ADVERSARIES[2],
            AdversaryName::Scripted => ADVERSARIES[3],
        }
    }
}

/// A whole spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// The procedure's name (see [`crate::driver::registry`]).
    pub procedure: String,
    /// The search tolerance ε (its unit is the procedure's search
    /// parameter: radians for angles, the weight m ∈ [0, 1] for faces).
    /// Required; optional here only so that a misspelled name is reported
    /// as such ([`Spec::validate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<Num>,
    /// paper | adaptive | golden | bisection (default: the procedure's,
    /// [`crate::driver::adapter::Adapter::default_strategy`]: bisection
    /// for lpme and lpm, golden section for the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// `f64` (default) or `mpfr:BITS`.
    #[serde(default = "default_precision")]
    pub precision: String,
    /// Stop with an error after this many queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<usize>,
    /// `search` (the papers' procedures) or `bayes` (the noise-robust
    /// engine, [`crate::elicit::bayes`], for the procedures that have it);
    /// unnamed: [`Spec::default_engine`], pinned here by
    /// [`crate::driver::registry::resolve`] before anything is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Where the queries come from.
    pub population: PopulationSpec,
    /// Who answers.
    pub oracle: OracleSpec,
    /// The task in its own words (class, group names; presentation only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskSpec>,
    /// The procedure's own settings (every other top-level field).
    #[serde(flatten)]
    pub settings: Map<String, Value>,
    /// The folder relative paths were resolved against (the spec's own
    /// folder; not part of the spec's text).
    #[serde(skip)]
    pub base: PathBuf,
}

/// Whether an oracle's optional rate `n` (the spec's `field`) is given and
/// above 0.
fn positive(n: &Option<Num>, field: &str) -> bool {
    n.as_ref()
        .and_then(|p| p.to_scalar::<f64>(field).ok())
        .is_some_and(|p| p > 0.0)
}

fn default_precision() -> String {
    "f64".into()
}

/// The fields every procedure takes with `engine = "bayes"` and none takes
/// with the papers' search (`docs/spec.md`, engine `bayes`).
pub const BAYES_FIELDS: [&str; 4] = [
    "assumed_mistake_rate",
    "engine_seed",
    "max_questions",
    "particles",
];

impl Spec {
    /// Reads a TOML (`.toml`) or JSON (anything else) spec; relative paths
    /// in it are made relative to the spec's folder.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Spec`] naming
    /// the line and field when it does not parse.
    pub fn load(path: &Path) -> Result<Spec> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let mut spec = Self::parse(&text, path.extension().is_some_and(|e| e == "toml")).map_err(
            |reason| Error::Spec {
                path: path.display().to_string(),
                reason,
            },
        )?;
        spec.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        spec.validate()?;
        Ok(spec)
    }

    /// Parses spec text, TOML or JSON; the error is one line.
    ///
    /// # Errors
    /// The parser's message, reduced to one line with its position.
    pub fn parse(text: &str, toml: bool) -> std::result::Result<Spec, String> {
        if toml {
            // TOML writes nan and inf, which a JSON value (a metric, a
            // table) cannot hold: named here rather than read as null.
            if let Ok(table) = toml::from_str::<toml::Table>(text) {
                if let Some(field) = non_finite(&toml::Value::Table(table), String::new()) {
                    return Err(format!(
                        "{field} is not a finite number (nan and inf are not accepted anywhere in a spec)"
                    ));
                }
            }
            toml::from_str::<Spec>(text).map_err(|e| one_line(&e.to_string()))
        } else {
            serde_json::from_str::<Spec>(text).map_err(|e| one_line(&e.to_string()))
        }
    }

    /// The folder relative paths are resolved against.
    pub fn base_dir(&self) -> PathBuf {
        if self.base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            self.base.clone()
        }
    }

    /// Writes data paths under `base` relative to it (the inverse of
    /// [`Spec::resolve_paths`], for storing a spec beside its data).
    pub fn relativize_paths(&mut self, base: &Path) {
        let strip = |path: &mut PathBuf| {
            if let Ok(rel) = path.strip_prefix(base) {
                *path = rel.to_path_buf();
            }
        };
        match &mut self.population {
            PopulationSpec::Csv { path, .. } | PopulationSpec::Dataset { path, .. } => strip(path),
            _ => {}
        }
        if let OracleSpec::Replay { transcript } = &mut self.oracle {
            strip(transcript);
        }
    }

    /// Makes relative paths relative to `base` (and remembers `base`).
    pub fn resolve_paths(&mut self, base: &Path) {
        self.base = base.to_path_buf();
        match &mut self.population {
            PopulationSpec::Csv { path, .. } | PopulationSpec::Dataset { path, .. }
                if path.is_relative() =>
            {
                *path = base.join(&*path);
            }
            _ => {}
        }
        if let OracleSpec::Replay { transcript } = &mut self.oracle {
            if transcript.is_relative() {
                *transcript = base.join(&*transcript);
            }
        }
    }

    /// The engine the spec names, if it names one.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `engine` for another name.
    pub fn engine(&self) -> Result<Option<Engine>> {
        match self.engine.as_deref() {
            None => Ok(None),
            Some("search") => Ok(Some(Engine::Search)),
            Some("bayes") => Ok(Some(Engine::Bayes)),
            Some(other) => Err(Error::invalid(
                "engine",
                format!("{other:?} is not search or bayes"),
            )),
        }
    }

    /// The engine that serves this spec's oracle when the spec names none:
    /// [`Engine::Bayes`] for one who may err (a person, or a simulated
    /// oracle with a `mistake_rate` or `temperature` above 0), where the papers' searches
    /// are silently wrong after one mistake (measured:
    /// docs/measurements/bayes-noise.md); [`Engine::Search`] for one who
    /// answers exactly, where the searches ask fewer questions, and for a
    /// spec that names a search strategy (`search`). The registry falls
    /// back to the search for a procedure without the
    /// Bayesian engine ([`crate::driver::registry::find_for`]).
    pub fn default_engine(&self) -> Engine {
        if self.search.is_some() {
            // A search strategy named: the papers' search is meant.
            return Engine::Search;
        }
        let errs = match &self.oracle {
            OracleSpec::Person {} => true,
            OracleSpec::Simulated {
                mistake_rate,
                temperature,
                ..
            } => {
                positive(mistake_rate, "oracle.mistake_rate")
                    || positive(temperature, "oracle.temperature")
            }
            _ => false,
        };
        if errs {
            Engine::Bayes
        } else {
            Engine::Search
        }
    }

    /// How the Bayesian engine assumes this spec's oracle answers when the
    /// spec names no `assumed_mistake_rate`: `"person"`
    /// ([`crate::elicit::bayes::AnswerModel::person`]: flips at an unknown
    /// rate and confusion near ties at an unknown temperature) for a person
    /// and for a simulated oracle with a `temperature` above 0, who err on
    /// near-ties, where the flips model alone is silently wrong in about
    /// half of binary elicitations (measured, issue 28:
    /// docs/measurements/bayes-noise.md, "The person model"); `"unknown"`
    /// (flips at an unknown rate, fewer questions) for every other oracle.
    /// Pinned in the spec by [`crate::driver::registry::resolve`] before
    /// anything is recorded.
    pub fn default_answer_model(&self) -> &'static str {
        let near_ties = match &self.oracle {
            OracleSpec::Person {} => true,
            OracleSpec::Simulated { temperature, .. } => {
                positive(temperature, "oracle.temperature")
            }
            _ => false,
        };
        if near_ties {
            "person"
        } else {
            "unknown"
        }
    }

    /// Checks the shared fields (the procedure checks its own when built).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field.
    pub fn validate(&self) -> Result<()> {
        // Present and a number; its sign is checked once, at the working
        // precision, when the procedure is built.
        self.epsilon()?.to_scalar::<f64>("epsilon")?;
        if let Some(s) = &self.search {
            s.parse::<crate::search::Strategy>()?;
        }
        if let Some(0) = self.budget {
            return Err(Error::ZeroBudget);
        }
        self.engine()?;
        if let Some(task) = &self.task {
            task.validate()?;
        }
        if let OracleSpec::Simulated {
            eps_omega,
            adversary,
            script,
            seed,
            mistake_rate,
            temperature,
            ..
        } = &self.oracle
        {
            // Fields of one adversary given with another do not apply.
            let chosen = AdversaryName::parse(adversary.as_deref());
            let name = adversary.as_deref().unwrap_or("random");
            if script.is_some() && chosen.as_ref().is_ok_and(|a| *a != AdversaryName::Scripted) {
                return Err(Error::invalid(
                    "oracle.script",
                    format!("applies only to adversary = \"scripted\", not {name:?}"),
                ));
            }
            if let Some(p) = mistake_rate {
                let p: f64 = p.to_scalar("oracle.mistake_rate")?;
                if !(0.0..=0.5).contains(&p) {
                    return Err(Error::invalid(
                        "oracle.mistake_rate",
                        format!("must be in [0, 0.5] (a probability of erring), got {p}"),
                    ));
                }
            }
            if let Some(t) = temperature {
                let t: f64 = t.to_scalar("oracle.temperature")?;
                if !(t.is_finite() && t > 0.0) {
                    return Err(Error::invalid(
                        "oracle.temperature",
                        format!("must be finite and > 0 (in the metric's units), got {t}"),
                    ));
                }
            }
            if seed.is_some()
                && mistake_rate.is_none()
                && temperature.is_none()
                && chosen.as_ref().is_ok_and(|a| *a != AdversaryName::Random)
            {
                return Err(Error::invalid(
                    "oracle.seed",
                    format!("applies only to adversary = \"random\", not {name:?}"),
                ));
            }
            if let Some(e) = eps_omega {
                let e: f64 = e.to_scalar("oracle.eps_omega")?;
                if e < 0.0 {
                    return Err(Error::invalid(
                        "oracle.eps_omega",
                        format!("must be >= 0, got {e}"),
                    ));
                }
            }
            if chosen? == AdversaryName::Scripted && script.as_deref().is_none_or(str::is_empty) {
                return Err(Error::invalid(
                    "oracle.script",
                    "the scripted adversary needs a script (hex digits, one bit per in-band answer)",
                ));
            }
        }
        Ok(())
    }

    /// The procedure's settings, deserialized from the remaining top-level
    /// fields with unknown fields rejected.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field that does not apply to
    /// the procedure or does not parse.
    pub fn settings<S: DeserializeOwned>(&self) -> Result<S> {
        serde_path_to_error::deserialize(Value::Object(self.settings.clone())).map_err(|e| {
            // The path names the field whose value is wrong; an unknown or
            // missing field is named in serde's message instead.
            let path = e.path().to_string();
            let text = e.into_inner().to_string();
            let field = if path.is_empty() || path == "." {
                text.split('`')
                    .nth(1)
                    .map_or_else(|| "settings".to_string(), str::to_string)
            } else {
                path
            };
            let engine = if self.engine.as_deref() == Some(Engine::Bayes.name())
                && text.starts_with("unknown field")
            {
                // Pinned by default for a person: the search's fields
                // need the search named.
                ", engine bayes; name engine = \"search\" for the papers' search and its fields"
            } else if text.starts_with("unknown field") && BAYES_FIELDS.contains(&field.as_str()) {
                // The Bayesian engine's own field given to the search.
                ", engine search: a field of the Bayesian engine; name engine = \"bayes\" to use it"
            } else {
                ""
            };
            Error::invalid(
                field,
                format!("{} (procedure {}{engine})", one_line(&text), self.procedure),
            )
        })
    }

    /// The tolerance ε as written.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the spec has none, naming a
    /// misspelled field if there is one.
    pub fn epsilon(&self) -> Result<&Num> {
        self.epsilon.as_ref().ok_or_else(|| {
            let near = self
                .settings
                .keys()
                .find(|k| edit_distance(k, "epsilon") <= 2);
            Error::invalid(
                "epsilon",
                match near {
                    Some(k) => format!("missing (unknown field {k:?}: did you mean \"epsilon\"?)"),
                    None => "missing: every procedure needs a search tolerance epsilon > 0".into(),
                },
            )
        })
    }

    /// The search strategy, or `default` when the spec names none.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown strategy.
    pub fn strategy_or(&self, default: crate::search::Strategy) -> Result<crate::search::Strategy> {
        self.search.as_deref().map_or(Ok(default), str::parse)
    }
}

/// The Levenshtein distance of two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(current + 1);
            previous = current;
        }
    }
    row[b.len()]
}

/// Parser messages span several lines (position, excerpt, caret, reason);
/// keep the position and the reason on one line.
pub fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('|') && !l.chars().all(|c| c == '^'))
        .collect();
    let position = lines
        .first()
        .map_or("", |l| l.trim_start_matches("TOML parse error at "));
    let reason = lines.last().copied().unwrap_or("");
    if lines.len() > 1 {
        format!("{position}: {reason}")
    } else {
        reason.to_string()
    }
}
