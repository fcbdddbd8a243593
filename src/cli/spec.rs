//! `elicit run|ask` specifications (TOML or JSON), parsed into typed values
//! with errors that name the field.

use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A number in a spec: a TOML/JSON float, or a string such as "0.1" that is
/// rounded once, at the working precision (exact decimals for MPFR runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Num {
    Float(f64),
    Text(String),
}

impl Num {
    pub fn to_scalar<T: Scalar>(&self, field: &str) -> Result<T, Error> {
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

/// The whole spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// binary-lpm | binary-lfpm | binary-lfpm-known-p11
    pub procedure: String,
    pub epsilon: Num,
    #[serde(default = "default_search")]
    pub search: String,
    #[serde(default = "default_precision")]
    pub precision: String,
    /// binary-lpm: increasing | decreasing | unknown (default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monotonicity: Option<String>,
    /// binary-lfpm-known-p11: the known share p11/(p11 + p00).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p11: Option<Num>,
    /// lpm, lpme: cycles over the angles (default 2 for lpm, 4 for lpme).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<usize>,
    /// binary-lfpm: Alg. 3 confusions per boundary (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg3_confusions: Option<usize>,
    /// binary-lfpm: Alg. 3 grid steps, Δ = 1/steps (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg3_steps: Option<u32>,
    /// Stop with an error after this many queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<usize>,
    pub population: PopulationSpec,
    pub oracle: OracleSpec,
}

fn default_search() -> String {
    "paper".into()
}
fn default_precision() -> String {
    "f64".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum PopulationSpec {
    /// 003 App. A: X ~ U[−1, 1], η(x) = 1/(1 + e^{ax}).
    #[serde(rename = "synthetic-003")]
    Synthetic003 {
        #[serde(default = "default_a")]
        a: Num,
    },
    /// 002 §6.1: X ~ U[−1, 1], ηᵢ ∝ 1/(1 + e^{pᵢx}).
    #[serde(rename = "synthetic-002")]
    Synthetic002 { p: Vec<Num> },
    /// Scores and 0/1 labels from a CSV file with a header row.
    #[serde(rename = "csv")]
    Csv {
        path: PathBuf,
        #[serde(default = "default_score")]
        score_column: String,
        #[serde(default = "default_label")]
        label_column: String,
    },
}

fn default_a() -> Num {
    Num::Float(5.0)
}
fn default_score() -> String {
    "score".into()
}
fn default_label() -> String {
    "label".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum OracleSpec {
    /// A simulated oracle for a known metric, optionally ε_Ω-noisy.
    #[serde(rename = "simulated")]
    Simulated {
        /// binary-lpm: [m11, m00]; binary-lfpm*: [p11, p00, q11, q00, q0].
        metric: Vec<Num>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eps_omega: Option<Num>,
        /// always-wrong | random | push-away | scripted
        #[serde(default, skip_serializing_if = "Option::is_none")]
        adversary: Option<String>,
        #[serde(default)]
        seed: u64,
        /// scripted: the in-band answers as a hex string (one bit each).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        script: Option<String>,
    },
    /// Answers from a transcript written by `--transcript`.
    #[serde(rename = "replay")]
    Replay { transcript: PathBuf },
    /// The person at the terminal (`elicit ask`).
    #[serde(rename = "person")]
    Person {},
}

/// The procedures `run` and `ask` know.
pub const PROCEDURES: [&str; 6] = [
    "binary-lpm",
    "binary-lfpm",
    "binary-lfpm-known-p11",
    "dlpm",
    "lpm",
    "lpme",
];

/// Procedures over k classes (002).
pub fn is_multiclass(procedure: &str) -> bool {
    matches!(procedure, "dlpm" | "lpm" | "lpme")
}

impl Spec {
    /// Reads a TOML (`.toml`) or JSON (anything else) spec.
    pub fn load(path: &Path) -> Result<Spec, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let parsed = if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str::<Spec>(&text).map_err(|e| one_line(&e.to_string()))
        } else {
            serde_json::from_str::<Spec>(&text).map_err(|e| one_line(&e.to_string()))
        };
        let mut spec = parsed.map_err(|reason| Error::Spec {
            path: path.display().to_string(),
            reason,
        })?;
        spec.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        spec.validate()?;
        Ok(spec)
    }

    /// Relative paths in a spec are relative to the spec's folder.
    fn resolve_paths(&mut self, base: &Path) {
        if let PopulationSpec::Csv { path, .. } = &mut self.population {
            if path.is_relative() {
                *path = base.join(&*path);
            }
        }
        if let OracleSpec::Replay { transcript } = &mut self.oracle {
            if transcript.is_relative() {
                *transcript = base.join(&*transcript);
            }
        }
    }

    /// Checks what can be checked before choosing a precision.
    pub fn validate(&self) -> Result<(), Error> {
        if !PROCEDURES.contains(&self.procedure.as_str()) {
            return Err(Error::invalid(
                "procedure",
                format!(
                    "unknown procedure {:?} (expected one of {})",
                    self.procedure,
                    PROCEDURES.join(", ")
                ),
            ));
        }
        self.strategy()?;
        self.epsilon.to_scalar::<f64>("epsilon")?;
        if let Some(m) = &self.monotonicity {
            if !["increasing", "decreasing", "unknown"].contains(&m.as_str()) {
                return Err(Error::invalid(
                    "monotonicity",
                    format!("{m:?} is not increasing, decreasing or unknown"),
                ));
            }
        }
        if self.procedure == "binary-lfpm-known-p11" && self.p11.is_none() {
            return Err(Error::invalid(
                "p11",
                "binary-lfpm-known-p11 needs the known share p11",
            ));
        }
        let k = match &self.population {
            PopulationSpec::Synthetic002 { p } => Some(p.len()),
            _ => None,
        };
        if is_multiclass(&self.procedure) != k.is_some() {
            return Err(Error::invalid(
                "population.kind",
                format!(
                    "{} needs a {} population",
                    self.procedure,
                    if k.is_some() {
                        "binary (synthetic-003 or csv)"
                    } else {
                        "multiclass (synthetic-002)"
                    }
                ),
            ));
        }
        if let OracleSpec::Simulated {
            metric, adversary, ..
        } = &self.oracle
        {
            let expected = match (self.procedure.as_str(), k) {
                ("binary-lpm", _) => 2,
                ("dlpm", Some(k)) => k,
                ("lpm" | "lpme", Some(k)) => k * k - k,
                _ => 5,
            };
            if metric.len() != expected {
                return Err(Error::invalid(
                    "oracle.metric",
                    format!(
                        "{} takes {expected} numbers, got {}",
                        self.procedure,
                        metric.len()
                    ),
                ));
            }
            for (i, v) in metric.iter().enumerate() {
                v.to_scalar::<f64>(&format!("oracle.metric[{i}]"))?;
            }
            if let Some(a) = adversary {
                if !metric_elicitation::reproduce::binary::ADVERSARIES.contains(&a.as_str()) {
                    return Err(Error::invalid(
                        "oracle.adversary",
                        format!("unknown adversary {a:?}"),
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn strategy(&self) -> Result<Strategy, Error> {
        self.search.parse()
    }
}

/// toml's messages span several lines (position, excerpt, caret, reason);
/// keep the position and the reason on one line.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
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
