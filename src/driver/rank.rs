//! Ranking a practitioner's classifiers by an elicited metric (001 §6.2,
//! 000 App. H.2), and comparing two rankings (NDCG, Kendall τ-b).
//!
//! * [`Metric`]: an elicited (or true) metric, read from the JSON result of
//!   `elicit run` / `elicit ask` ([`Metric::from_result`]): its `procedure`
//!   names the family and `elicited` holds the parameters. The families
//!   ([`Family`]) say which statistic of a classifier the metric reads and
//!   whether it is a utility or a cost; a new family is a variant of
//!   [`Metric`] and a line in [`Metric::from_result`].
//! * [`PoolStatistics`]: every classifier's confusion overall and per
//!   group, from a predictions CSV ([`PoolStatistics::read`]: one column
//!   per classifier with its predicted class on each row, a label column,
//!   an optional group column) or from memory.
//! * [`rank`]: the classifiers best first, with the metric's values;
//!   [`compare`]: NDCG and Kendall τ-b of a ranking against a true metric's.
//! * [`rank_files`]: the one call behind `elicit rank`.
//!
//! # NDCG and τ
//! Let u_c be the true metric's *utility* of classifier c (a cost's
//! negative) and π̂ the candidate ranking. DCG(π̂) = Σ_r gain(π̂(r))/log₂(r + 1),
//! NDCG = DCG(π̂)/DCG(π*), π* sorted by u.
//! * [`Ndcg::exponential`] (the papers' "exponential gain", 001 §6.2,
//!   000 App. H.2): gain = 2^rel − 1 with rel = (u_c − u_min)/(u_max − u_min)
//!   ∈ [0, 1] (for a cost Ψ: (Ψ_max − Ψ_c)/(Ψ_max − Ψ_min)); the papers do
//!   not say how rel is derived, this is our choice.
//! * [`Ndcg::linear`] (what the 000 authors' code computes): gain = 1/Ψ_c
//!   for a cost (all Ψ_c > 0), gain = u_c for a utility (all u_c ≥ 0);
//!   absent when those signs do not hold.
//! * Ties in the candidate ranking (classifiers with equal candidate
//!   values) share their positions: each gets the mean discount of the
//!   block, which is the expected DCG over a uniformly random order of the
//!   tie.
//! * Kendall τ-b between the candidate and true utilities:
//!   (n_c − n_d)/√((n₀ − n₁)(n₀ − n₂)), n₀ = N(N − 1)/2, n₁ and n₂ the pairs
//!   tied in each; ties are exact equality of the `f64` values.

use crate::error::{Error, Result};
use crate::fit::Table;
use crate::geometry::feasible::offdiag_index;
use nalgebra::DMatrix;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Which statistic of a classifier a metric reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// Joint confusions P(Y = i, h = j) (003, 002).
    Joint,
    /// Rates P(h = j | Y = i) (001, 000).
    Rates,
}

/// A metric family: what it reads and whether larger is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Family {
    /// 003 LPM m11·TP + m00·TN (utility, joint).
    BinaryLinear,
    /// 003 LFPM (utility, joint).
    BinaryFractional,
    /// 002 DLPM ⟨a, d⟩, dᵢ = P(Y = i, h = i) (utility, joint).
    Diagonal,
    /// 002 LPM / the sphere LPME: ⟨a, c⟩ on the off-diagonal statistic
    /// (utility).
    OffDiagonal,
    /// 001 Def. 1 fair metric (cost, group rates).
    Fair,
    /// 000 Def. 3 quadratic metric (utility, rates).
    Quadratic,
    /// 000 Def. 4 fair quadratic metric (cost, group diagonal rates).
    FairQuadratic,
    /// 004 cost/reward metric ⟨aᵈ, d⟩ + Σⱼ wⱼ sⱼ (utility, joint diagonal
    /// plus each classifier's attribute values).
    CostReward,
}

/// Which rate vector a quadratic metric reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateVector {
    /// rᵢ = P(h = i | Y = i), q = k (000's main text).
    Diagonal,
    /// R_(i,j) = P(h = j | Y = i), i ≠ j, q = k² − k (000 App. E, 001).
    OffDiagonal,
}

/// A metric to rank by (see the module docs).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Metric {
    /// 003 §2.2: φ = m11·TP + m00·TN.
    BinaryLinear {
        /// Weight of TP = P(Y = 1, h = 1).
        m11: f64,
        /// Weight of TN = P(Y = 0, h = 0).
        m00: f64,
    },
    /// 003 §2.2: φ = (p11 TP + p00 TN)/(q11 TP + q00 TN + q0).
    BinaryFractional {
        /// (p11, p00, q11, q00, q0).
        coefficients: [f64; 5],
    },
    /// 002 Def. 5: ψ(d) = ⟨a, d⟩, dᵢ = P(Y = i, h = i).
    Diagonal {
        /// a (k weights).
        a: Vec<f64>,
    },
    /// 002 §2.2 (LPM) and the LPME of 001/000 App. A: ⟨a, s⟩ with s the
    /// off-diagonal statistic (row-major without the diagonal).
    OffDiagonal {
        /// a (k² − k weights).
        a: Vec<f64>,
        /// Joint confusions (002 LPM) or rates (LPME).
        statistic: Statistic,
    },
    /// 001 Def. 1: Ψ = (1 − λ)⟨a, r⟩ + λ Σ_{u<v} ⟨b^{uv}, |r^u − r^v|⟩ with
    /// group rates r^g (off-diagonal) and r = Σ_g τ^g ⊙ r^g, τ from the data.
    Fair {
        /// a (q weights).
        a: Vec<f64>,
        /// b^{uv} for u < v in lexicographic order (C(m, 2) vectors of q).
        b: Vec<Vec<f64>>,
        /// λ ∈ [0, 1].
        lambda: f64,
    },
    /// 000 Def. 3: φ(r) = ⟨a, r⟩ + ½ rᵀBr (a utility).
    Quadratic {
        /// a (q weights).
        a: Vec<f64>,
        /// B (q × q, rows).
        b: Vec<Vec<f64>>,
        /// The rates r.
        rates: RateVector,
    },
    /// 000 Def. 4: cost = (1 − λ)⟨a, 1 − r⟩ + (λ/2) Σ_{u<v} (r^u − r^v)ᵀ
    /// B^{uv} (r^u − r^v) with diagonal group rates r^g and r = Σ_g τ^g ⊙ r^g.
    FairQuadratic {
        /// a (k weights).
        a: Vec<f64>,
        /// B^{uv} (k × k each) for u < v in lexicographic order.
        b: Vec<Vec<Vec<f64>>>,
        /// λ ∈ [0, 1].
        lambda: f64,
    },
    /// 004 §2: ψ = ⟨aᵈ, d⟩ + Σⱼ wⱼ sⱼ, dᵢ = P(Y = i, h = i) and sⱼ the
    /// classifier's value of attribute j (a cost attribute's values are
    /// ≤ 0), given per classifier ([`Metric::with_attributes`]).
    CostReward {
        /// aᵈ (k weights, the result's `accuracy`).
        accuracy: Vec<f64>,
        /// (attribute name, wⱼ), in the result's order.
        weights: Vec<(String, f64)>,
        /// (classifier name, its attribute values in `weights`' order).
        values: Vec<(String, Vec<f64>)>,
    },
}

fn matrix(value: &Value, field: &str) -> Result<Vec<Vec<f64>>> {
    value
        .as_array()
        .ok_or_else(|| Error::invalid(field, "expected a list of rows"))?
        .iter()
        .enumerate()
        .map(|(i, row)| numbers(row, &format!("{field}[{i}]")))
        .collect()
}

fn numbers(value: &Value, field: &str) -> Result<Vec<f64>> {
    let items = value
        .as_array()
        .ok_or_else(|| Error::invalid(field, format!("expected a list of numbers, got {value}")))?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| crate::driver::spec::num::<f64>(v, &format!("{field}[{i}]")))
        .collect()
}

/// Named numbers from an object, or a list in that order.
fn named(value: &Value, names: &[&str], field: &str) -> Result<Vec<f64>> {
    match value {
        Value::Object(map) => names
            .iter()
            .map(|n| {
                let v = map
                    .get(*n)
                    .ok_or_else(|| Error::invalid(field, format!("missing {n:?}")))?;
                crate::driver::spec::num::<f64>(v, &format!("{field}.{n}"))
            })
            .collect(),
        _ => {
            let v = numbers(value, field)?;
            if v.len() != names.len() {
                return Err(Error::invalid(
                    field,
                    format!(
                        "expected {} numbers ({}), got {}",
                        names.len(),
                        names.join(", "),
                        v.len()
                    ),
                ));
            }
            Ok(v)
        }
    }
}

impl Metric {
    /// Reads a metric from a result (`{"procedure": …, "elicited": …}`), a
    /// run result's `truth`, or a spec-like `{"procedure": …, "metric": …}`,
    /// in that order of preference. An optional `"statistic": "joint" |
    /// "rates"` overrides the off-diagonal families' default (joint
    /// confusions for `lpm` and `lpme`: the coordinates of `run`'s sphere on
    /// a population; 001's rates need `"rates"`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field: no procedure, an
    /// unknown one, or parameters of the wrong shape.
    pub fn from_result(result: &Value) -> Result<Metric> {
        let procedure = result
            .get("procedure")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid("procedure", "the metric file names no procedure"))?;
        let (params, field) = ["elicited", "truth", "metric"]
            .iter()
            .find_map(|k| result.get(*k).map(|v| (v, *k)))
            .ok_or_else(|| {
                Error::invalid(
                    "elicited",
                    "the metric file has no elicited, truth or metric field",
                )
            })?;
        let statistic = match result.get("statistic").and_then(Value::as_str) {
            Some("joint") => Some(Statistic::Joint),
            Some("rates") => Some(Statistic::Rates),
            Some(other) => {
                return Err(Error::invalid(
                    "statistic",
                    format!("{other:?} is not joint or rates"),
                ))
            }
            None => None,
        };
        match procedure {
            "binary-lpm" => {
                let v = named(params, &["m11", "m00"], field)?;
                Ok(Metric::BinaryLinear { m11: v[0], m00: v[1] })
            }
            "binary-lfpm" | "binary-lfpm-known-p11" => {
                let v = named(params, &["p11", "p00", "q11", "q00", "q0"], field)?;
                Ok(Metric::BinaryFractional {
                    coefficients: [v[0], v[1], v[2], v[3], v[4]],
                })
            }
            "dlpm" => Ok(Metric::Diagonal {
                a: numbers(params, field)?,
            }),
            "lpm" => Ok(Metric::OffDiagonal {
                a: numbers(params, field)?,
                statistic: statistic.unwrap_or(Statistic::Joint),
            }),
            "lpme" => Ok(Metric::OffDiagonal {
                a: numbers(params, field)?,
                statistic: statistic.unwrap_or(Statistic::Joint),
            }),
            "fpme" | "qpme" | "fair-qpme" => {
                let get = |keys: &[&str]| {
                    keys.iter()
                        .find_map(|k| params.get(*k))
                        .ok_or_else(|| Error::invalid(field, format!("missing {:?}", keys[0])))
                };
                let a = numbers(get(&["a"])?, &format!("{field}.a"))?;
                let b = get(&["b", "B"])?;
                let b_field = format!("{field}.B");
                let lambda = || crate::driver::spec::num::<f64>(get(&["lambda"])?, &format!("{field}.lambda"));
                match procedure {
                    "fpme" => Ok(Metric::Fair {
                        a,
                        b: matrix(b, &b_field)?,
                        lambda: lambda()?,
                    }),
                    "qpme" => Ok(Metric::Quadratic {
                        a,
                        b: matrix(b, &b_field)?,
                        rates: match result.get("rates").and_then(Value::as_str) {
                            Some("off-diagonal") => RateVector::OffDiagonal,
                            _ => RateVector::Diagonal,
                        },
                    }),
                    _ => Ok(Metric::FairQuadratic {
                        a,
                        b: b.as_array()
                            .ok_or_else(|| Error::invalid(b_field.clone(), "expected a list of matrices"))?
                            .iter()
                            .enumerate()
                            .map(|(i, m)| matrix(m, &format!("{b_field}[{i}]")))
                            .collect::<Result<_>>()?,
                        lambda: lambda()?,
                    }),
                }
            }
            "cost-reward" => {
                let map = params
                    .as_object()
                    .ok_or_else(|| Error::invalid(field, "expected {\"accuracy\": [...], ATTRIBUTE: weight, ...}"))?;
                let accuracy = numbers(
                    map.get("accuracy")
                        .ok_or_else(|| Error::invalid(field, "missing \"accuracy\""))?,
                    &format!("{field}.accuracy"),
                )?;
                let weights = map
                    .iter()
                    .filter(|(k, _)| k.as_str() != "accuracy")
                    .map(|(k, v)| Ok((k.clone(), crate::driver::spec::num::<f64>(v, &format!("{field}.{k}"))?)))
                    .collect::<Result<_>>()?;
                Ok(Metric::CostReward {
                    accuracy,
                    weights,
                    values: Vec::new(),
                })
            }
            other => Err(Error::invalid(
                "procedure",
                format!("cannot rank by a {other} metric (known: binary-lpm, binary-lfpm, binary-lfpm-known-p11, dlpm, lpm, lpme, cost-reward, fpme, qpme, fair-qpme)"),
            )),
        }
    }

    /// The family.
    pub fn family(&self) -> Family {
        match self {
            Metric::BinaryLinear { .. } => Family::BinaryLinear,
            Metric::BinaryFractional { .. } => Family::BinaryFractional,
            Metric::Diagonal { .. } => Family::Diagonal,
            Metric::OffDiagonal { .. } => Family::OffDiagonal,
            Metric::Fair { .. } => Family::Fair,
            Metric::Quadratic { .. } => Family::Quadratic,
            Metric::FairQuadratic { .. } => Family::FairQuadratic,
            Metric::CostReward { .. } => Family::CostReward,
        }
    }

    /// A cost/reward metric with every classifier's attribute values, read
    /// from a CSV with a `classifier` column and one column per attribute
    /// the metric weighs; other metrics are returned unchanged.
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file; [`Error::InvalidArgument`]
    /// naming the file for a missing column or a classifier listed twice.
    pub fn with_attributes(self, path: &Path) -> Result<Metric> {
        let Metric::CostReward {
            accuracy, weights, ..
        } = self
        else {
            return Ok(self);
        };
        let mut reader = csv::Reader::from_path(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let bad = |line: u64, m: String| {
            Error::invalid("--attributes", format!("{}:{line}: {m}", path.display()))
        };
        let headers = reader.headers().map_err(|e| bad(1, e.to_string()))?.clone();
        let column = |name: &str| {
            headers
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| bad(1, format!("no column {name:?}")))
        };
        let name_at = column("classifier")?;
        let at: Vec<usize> = weights
            .iter()
            .map(|(n, _)| column(n))
            .collect::<Result<_>>()?;
        let mut values: Vec<(String, Vec<f64>)> = Vec::new();
        for (r, record) in reader.records().enumerate() {
            let line = r as u64 + 2;
            let record = record.map_err(|e| bad(line, e.to_string()))?;
            let name = record.get(name_at).unwrap_or("").to_string();
            if values.iter().any(|(n, _)| *n == name) {
                return Err(bad(line, format!("classifier {name:?} listed twice")));
            }
            let row = at
                .iter()
                .map(|&i| {
                    let cell = record.get(i).unwrap_or("").trim();
                    cell.parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| {
                            bad(
                                line,
                                format!("{:?} = {cell:?} is not a number", &headers[i]),
                            )
                        })
                })
                .collect::<Result<_>>()?;
            values.push((name, row));
        }
        Ok(Metric::CostReward {
            accuracy,
            weights,
            values,
        })
    }

    /// Whether the metric is a cost (smaller is better).
    pub fn is_cost(&self) -> bool {
        matches!(self, Metric::Fair { .. } | Metric::FairQuadratic { .. })
    }

    /// The metric's value on a classifier, as its paper writes it (a cost
    /// for costs).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the metric's dimensions do not fit
    /// the pool (k, m), or a fractional metric's denominator vanishes.
    pub fn value(&self, c: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64> {
        let k = pool.classes;
        let q = k * k - k;
        let need = |len: usize, want: usize, what: &str| {
            if len == want {
                Ok(())
            } else {
                Err(Error::invalid(
                    "metric",
                    format!("{what} has {len} weights; the predictions have k = {k} classes (expected {want})"),
                ))
            }
        };
        match self {
            Metric::BinaryLinear { m11, m00 } => {
                need(2, k, "a binary metric")?;
                Ok(m11 * c.confusion[(1, 1)] + m00 * c.confusion[(0, 0)])
            }
            Metric::BinaryFractional {
                coefficients: [p11, p00, q11, q00, q0],
            } => {
                need(2, k, "a binary metric")?;
                let (tp, tn) = (c.confusion[(1, 1)], c.confusion[(0, 0)]);
                let den = q11 * tp + q00 * tn + q0;
                if den == 0.0 || !den.is_finite() {
                    return Err(Error::invalid(
                        "metric",
                        format!("the LFPM's denominator vanishes on {}", c.name),
                    ));
                }
                Ok((p11 * tp + p00 * tn) / den)
            }
            Metric::Diagonal { a } => {
                need(a.len(), k, "a DLPM")?;
                Ok((0..k).map(|i| a[i] * c.confusion[(i, i)]).sum())
            }
            Metric::CostReward {
                accuracy,
                weights,
                values,
            } => {
                need(accuracy.len(), k, "a cost/reward metric's accuracy")?;
                let d: f64 = (0..k).map(|i| accuracy[i] * c.confusion[(i, i)]).sum();
                if weights.is_empty() {
                    return Ok(d);
                }
                let s = values
                    .iter()
                    .find(|(n, _)| *n == c.name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| {
                        Error::invalid(
                            "--attributes",
                            format!(
                                "the metric weighs {}: give each classifier's values (no row for {})",
                                weights.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                                c.name
                            ),
                        )
                    })?;
                Ok(d + weights.iter().zip(s).map(|((_, w), v)| w * v).sum::<f64>())
            }
            Metric::OffDiagonal { a, statistic } => {
                need(a.len(), q, "an off-diagonal metric")?;
                let s = off_diagonal(&statistic_of(&c.confusion, *statistic));
                Ok(dot(a, &s))
            }
            Metric::Fair { a, b, lambda } => {
                need(a.len(), q, "a fair metric's a")?;
                let m = pool.groups;
                if b.len() != m * (m - 1) / 2 || b.iter().any(|v| v.len() != q) {
                    return Err(Error::invalid(
                        "metric",
                        format!(
                            "a fair metric for m = {m} groups needs {} vectors b of {q} weights",
                            m * (m - 1) / 2
                        ),
                    ));
                }
                let r: Vec<Vec<f64>> = c
                    .group_confusions
                    .iter()
                    .map(|cg| off_diagonal(&statistic_of(cg, Statistic::Rates)))
                    .collect();
                let overall: Vec<f64> = (0..q)
                    .map(|idx| {
                        let i = idx / (k - 1);
                        (0..m).map(|g| pool.tau[g][i] * r[g][idx]).sum()
                    })
                    .collect();
                let mut violation = 0.0;
                let mut pair = 0;
                for u in 0..m {
                    for v in (u + 1)..m {
                        violation += (0..q)
                            .map(|i| b[pair][i] * (r[u][i] - r[v][i]).abs())
                            .sum::<f64>();
                        pair += 1;
                    }
                }
                Ok((1.0 - lambda) * dot(a, &overall) + lambda * violation)
            }
            Metric::Quadratic { a, b, rates } => {
                let r = match rates {
                    RateVector::Diagonal => diagonal_rates(&c.confusion),
                    RateVector::OffDiagonal => {
                        off_diagonal(&statistic_of(&c.confusion, Statistic::Rates))
                    }
                };
                need(a.len(), r.len(), "a quadratic metric's a")?;
                check_square(b, r.len())?;
                Ok(dot(a, &r) + 0.5 * quadratic_form(b, &r, &r))
            }
            Metric::FairQuadratic { a, b, lambda } => {
                need(a.len(), k, "a fair quadratic metric's a (diagonal rates)")?;
                let m = pool.groups;
                if b.len() != m * (m - 1) / 2 {
                    return Err(Error::invalid(
                        "metric",
                        format!(
                            "a fair quadratic metric for m = {m} groups needs {} matrices B",
                            m * (m - 1) / 2
                        ),
                    ));
                }
                let r: Vec<Vec<f64>> = c.group_confusions.iter().map(diagonal_rates).collect();
                let overall: Vec<f64> = (0..k)
                    .map(|i| (0..m).map(|g| pool.tau[g][i] * r[g][i]).sum())
                    .collect();
                let errors: Vec<f64> = overall.iter().map(|v| 1.0 - v).collect();
                let mut violation = 0.0;
                let mut pair = 0;
                for u in 0..m {
                    for v in (u + 1)..m {
                        check_square(&b[pair], k)?;
                        let d: Vec<f64> = (0..k).map(|i| r[u][i] - r[v][i]).collect();
                        violation += quadratic_form(&b[pair], &d, &d);
                        pair += 1;
                    }
                }
                Ok((1.0 - lambda) * dot(a, &errors) + 0.5 * lambda * violation)
            }
        }
    }

    /// The utility (larger is better): the value, negated for a cost.
    ///
    /// # Errors
    /// As [`Metric::value`].
    pub fn utility(&self, c: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64> {
        let v = self.value(c, pool)?;
        Ok(if self.is_cost() { -v } else { v })
    }
}

fn check_square(b: &[Vec<f64>], q: usize) -> Result<()> {
    if b.len() != q || b.iter().any(|row| row.len() != q) {
        return Err(Error::invalid(
            "metric",
            format!("B must be {q} x {q} for the pool's rates"),
        ));
    }
    Ok(())
}

/// xᵀBy.
fn quadratic_form(b: &[Vec<f64>], x: &[f64], y: &[f64]) -> f64 {
    b.iter().zip(x).map(|(row, xi)| xi * dot(row, y)).sum()
}

/// rᵢ = P(h = i | Y = i) of a joint confusion (0 for a class without
/// mass).
pub fn diagonal_rates(joint: &DMatrix<f64>) -> Vec<f64> {
    (0..joint.nrows())
        .map(|i| {
            let total: f64 = joint.row(i).sum();
            if total > 0.0 {
                joint[(i, i)] / total
            } else {
                0.0
            }
        })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The joint confusion, or its rows divided by their sums (rows without
/// mass stay 0).
pub fn statistic_of(joint: &DMatrix<f64>, statistic: Statistic) -> DMatrix<f64> {
    match statistic {
        Statistic::Joint => joint.clone(),
        Statistic::Rates => {
            let mut r = joint.clone();
            for i in 0..r.nrows() {
                let total: f64 = r.row(i).sum();
                if total > 0.0 {
                    for j in 0..r.ncols() {
                        r[(i, j)] /= total;
                    }
                }
            }
            r
        }
    }
}

/// The off-diagonal entries of a k × k matrix, row-major without the
/// diagonal.
pub fn off_diagonal(matrix: &DMatrix<f64>) -> Vec<f64> {
    let k = matrix.nrows();
    let mut v = vec![0.0; k * k - k];
    for i in 0..k {
        for j in 0..k {
            if i != j {
                v[offdiag_index(k, i, j)] = matrix[(i, j)];
            }
        }
    }
    v
}

/// One classifier's statistics on the evaluation rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassifierStatistics {
    /// Its name (the column header).
    pub name: String,
    /// Joint confusion over every row, C_ij = P(Y = i, h = j).
    pub confusion: DMatrix<f64>,
    /// Joint confusion within each group, P(Y = i, h = j | G = g).
    pub group_confusions: Vec<DMatrix<f64>>,
}

/// Every classifier's statistics, with the classes, groups and τ of the
/// evaluation rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolStatistics {
    /// k.
    pub classes: usize,
    /// m (1 without groups).
    pub groups: usize,
    /// τ: m rows of k values, t^g_i = P(G = g | Y = i).
    pub tau: Vec<Vec<f64>>,
    /// The classifiers, in input order.
    pub classifiers: Vec<ClassifierStatistics>,
}

impl PoolStatistics {
    /// From predictions in memory: `(name, predicted class per row)`,
    /// labels in 0..k−1 and optional group codes 0..m−1 (k and m are the
    /// largest codes + 1, at least 2 classes).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for mismatched lengths, no classifier, or
    /// a class or group never seen in the labels.
    pub fn from_predictions(
        classifiers: &[(String, Vec<usize>)],
        labels: &[usize],
        groups: Option<&[usize]>,
    ) -> Result<PoolStatistics> {
        if classifiers.is_empty() || labels.is_empty() {
            return Err(Error::invalid("predictions", "no classifier or no row"));
        }
        let k = labels.iter().max().map_or(0, |m| m + 1).max(2);
        let groups: Vec<usize> = groups.map_or_else(|| vec![0; labels.len()], <[usize]>::to_vec);
        if groups.len() != labels.len() {
            return Err(Error::invalid("group", "one group code per row needed"));
        }
        let m = groups.iter().max().map_or(1, |g| g + 1);
        let mut class_totals = vec![0usize; k];
        let mut counts = vec![vec![0usize; k]; m];
        let mut group_rows = vec![0usize; m];
        for (&y, &g) in labels.iter().zip(&groups) {
            class_totals[y] += 1;
            counts[g][y] += 1;
            group_rows[g] += 1;
        }
        if let Some(g) = group_rows.iter().position(|&r| r == 0) {
            return Err(Error::invalid(
                "group",
                format!("group code {g} never occurs"),
            ));
        }
        let tau = (0..m)
            .map(|g| {
                (0..k)
                    .map(|i| {
                        if class_totals[i] == 0 {
                            0.0
                        } else {
                            counts[g][i] as f64 / class_totals[i] as f64
                        }
                    })
                    .collect()
            })
            .collect();
        let stats = classifiers
            .iter()
            .map(|(name, h)| {
                if h.len() != labels.len() {
                    return Err(Error::invalid(
                        "predictions",
                        format!("{name}: {} predictions for {} rows", h.len(), labels.len()),
                    ));
                }
                if let Some(r) = h.iter().position(|&j| j >= k) {
                    return Err(Error::invalid(
                        "predictions",
                        format!("{name} row {r}: class {} is not below k = {k}", h[r]),
                    ));
                }
                let mut all = DMatrix::zeros(k, k);
                let mut per = vec![DMatrix::zeros(k, k); m];
                for ((&j, &y), &g) in h.iter().zip(labels).zip(&groups) {
                    all[(y, j)] += 1.0;
                    per[g][(y, j)] += 1.0;
                }
                all /= labels.len() as f64;
                for (c, rows) in per.iter_mut().zip(&group_rows) {
                    *c /= *rows as f64;
                }
                Ok(ClassifierStatistics {
                    name: name.clone(),
                    confusion: all,
                    group_confusions: per,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PoolStatistics {
            classes: k,
            groups: m,
            tau,
            classifiers: stats,
        })
    }

    /// Reads a predictions CSV: every column other than `label` and `group`
    /// is a classifier whose cells are predicted class codes 0..k−1.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::InvalidArgument`]
    /// for a missing column or a cell that is not a class code.
    pub fn read(path: &Path, label: &str, group: Option<&str>) -> Result<PoolStatistics> {
        let table = Table::read(path)?;
        let code = |values: &[f64], name: &str| -> Result<Vec<usize>> {
            values
                .iter()
                .enumerate()
                .map(|(r, v)| {
                    if *v >= 0.0 && v.fract() == 0.0 && *v < 1e6 {
                        Ok(*v as usize)
                    } else {
                        Err(Error::invalid(
                            "predictions",
                            format!(
                                "{} row {}: {name} = {v} is not a class code",
                                path.display(),
                                r + 2
                            ),
                        ))
                    }
                })
                .collect()
        };
        let labels = code(table.column(label, "label")?, label)?;
        let groups = match group {
            Some(g) => Some(code(table.column(g, "group")?, g)?),
            None => None,
        };
        let classifiers = table
            .names()
            .iter()
            .filter(|n| n.as_str() != label && Some(n.as_str()) != group)
            .map(|n| Ok((n.clone(), code(table.column(n, "predictions")?, n)?)))
            .collect::<Result<Vec<_>>>()?;
        Self::from_predictions(&classifiers, &labels, groups.as_deref())
    }
}

/// One ranked classifier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// Its name.
    pub classifier: String,
    /// The metric's value (a cost for cost metrics).
    pub value: f64,
}

/// Ranks the pool by `metric`, best first (ties keep the input order).
///
/// # Errors
/// As [`Metric::value`].
pub fn rank(metric: &Metric, pool: &PoolStatistics) -> Result<Vec<Ranked>> {
    let mut scored: Vec<(f64, Ranked)> = pool
        .classifiers
        .iter()
        .map(|c| {
            Ok((
                metric.utility(c, pool)?,
                Ranked {
                    classifier: c.name.clone(),
                    value: metric.value(c, pool)?,
                },
            ))
        })
        .collect::<Result<_>>()?;
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored.into_iter().map(|(_, r)| r).collect())
}

/// NDCG of a candidate ranking against the truth (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ndcg {
    /// Exponential gain 2^rel − 1, rel = the truth's utility scaled to
    /// [0, 1] (the papers' statement).
    pub exponential: f64,
    /// Linear gain 1/cost (or the utility), as the 000 authors' code;
    /// `None` when the signs do not allow it.
    pub linear: Option<f64>,
}

/// A candidate ranking compared with the truth's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    /// NDCG.
    pub ndcg: Ndcg,
    /// Kendall τ-b; `None` when one side is constant.
    pub kendall_tau_b: Option<f64>,
}

/// DCG of `gains` taken in the order of decreasing `scores`, ties sharing
/// the mean discount of their block.
pub fn dcg(scores: &[f64], gains: &[f64]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let discount = |r: usize| 1.0 / ((r + 2) as f64).log2();
    let mut total = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let mean = (start..end).map(discount).sum::<f64>() / (end - start) as f64;
        total += order[start..end].iter().map(|&c| gains[c]).sum::<f64>() * mean;
        start = end;
    }
    total
}

/// NDCG of the ranking by `candidate` utilities, with `gains` of the truth
/// (the ideal ranking sorts by the gains themselves).
pub fn ndcg(candidate: &[f64], gains: &[f64]) -> f64 {
    let ideal = dcg(gains, gains);
    if ideal == 0.0 {
        return 1.0;
    }
    dcg(candidate, gains) / ideal
}

/// Kendall τ-b of two score vectors (ties by exact equality); `None` when
/// either is constant or shorter than 2.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in (i + 1)..n {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            if dx == 0.0 {
                tied_x += 1;
            }
            if dy == 0.0 {
                tied_y += 1;
            }
            if dx != 0.0 && dy != 0.0 {
                if (dx > 0.0) == (dy > 0.0) {
                    concordant += 1;
                } else {
                    discordant += 1;
                }
            }
        }
    }
    let n0 = (n * n.saturating_sub(1) / 2) as i64;
    let denominator = (((n0 - tied_x) * (n0 - tied_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// The exponential and linear gains of the truth's values (see the module
/// docs): `values` are the truth's values as written, `cost` says how.
pub fn gains(values: &[f64], cost: bool) -> (Vec<f64>, Option<Vec<f64>>) {
    let utility: Vec<f64> = values.iter().map(|v| if cost { -v } else { *v }).collect();
    let (lo, hi) = utility
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    let exponential = utility
        .iter()
        .map(|u| {
            let rel = if hi > lo { (u - lo) / (hi - lo) } else { 1.0 };
            rel.exp2() - 1.0
        })
        .collect();
    let linear = if cost {
        values
            .iter()
            .all(|v| *v > 0.0)
            .then(|| values.iter().map(|v| 1.0 / v).collect())
    } else {
        values.iter().all(|v| *v >= 0.0).then(|| values.to_vec())
    };
    (exponential, linear)
}

/// Compares the ranking by `candidate` with the ranking by `truth` on the
/// same pool.
///
/// # Errors
/// As [`Metric::value`].
pub fn compare(candidate: &Metric, truth: &Metric, pool: &PoolStatistics) -> Result<Comparison> {
    let cand: Vec<f64> = pool
        .classifiers
        .iter()
        .map(|c| candidate.utility(c, pool))
        .collect::<Result<_>>()?;
    let true_values: Vec<f64> = pool
        .classifiers
        .iter()
        .map(|c| truth.value(c, pool))
        .collect::<Result<_>>()?;
    Ok(compare_scores(&cand, &true_values, truth.is_cost()))
}

/// [`compare`] on precomputed numbers: candidate utilities, and the
/// truth's values as written (`cost` says whether they are costs).
pub fn compare_scores(candidate: &[f64], truth: &[f64], cost: bool) -> Comparison {
    let (exponential, linear) = gains(truth, cost);
    let true_utility: Vec<f64> = truth.iter().map(|v| if cost { -v } else { *v }).collect();
    Comparison {
        ndcg: Ndcg {
            exponential: ndcg(candidate, &exponential),
            linear: linear.map(|g| ndcg(candidate, &g)),
        },
        kendall_tau_b: kendall_tau_b(candidate, &true_utility),
    }
}

/// What `elicit rank` prints: the ranking, and the comparison with a true
/// metric when one is given.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The metric ranked by.
    pub metric: Metric,
    /// Best first.
    pub ranking: Vec<Ranked>,
    /// Against the truth, when given.
    pub comparison: Option<Comparison>,
    /// The pool's statistics (for the text output's rates).
    pub pool: PoolStatistics,
}

impl Ranking {
    /// `{"ranking": [{"classifier": NAME, "value": …}, …], "order": …}`,
    /// plus `ndcg_exponential`, `ndcg_linear` and `kendall_tau_b` when a
    /// truth was given.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "ranking": self.ranking,
            "order": if self.metric.is_cost() { "ascending cost" } else { "descending utility" },
            "family": self.metric.family(),
        });
        if let Some(c) = &self.comparison {
            out["ndcg_exponential"] = json!(c.ndcg.exponential);
            out["ndcg_linear"] = json!(c.ndcg.linear);
            out["kendall_tau_b"] = json!(c.kendall_tau_b);
        }
        out
    }

    /// The ranked classifiers with their values and rates, one per line.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let k = self.pool.classes;
        let _ =
            writeln!(
            s,
            "{} classifiers, best first ({}); rates P(h = j | Y = i) off the diagonal, row-major",
            self.ranking.len(),
            if self.metric.is_cost() { "smallest cost" } else { "largest utility" }
        );
        let width = self
            .ranking
            .iter()
            .map(|r| r.classifier.len())
            .max()
            .unwrap_or(10)
            .max(10);
        for (i, r) in self.ranking.iter().enumerate() {
            let rates = self
                .pool
                .classifiers
                .iter()
                .find(|c| c.name == r.classifier)
                .map(|c| off_diagonal(&statistic_of(&c.confusion, Statistic::Rates)))
                .unwrap_or_default();
            let rates: Vec<String> = rates.iter().map(|v| format!("{v:.4}")).collect();
            let _ = writeln!(
                s,
                "{:>3}. {:<width$}  {:>10.6}  [{}]",
                i + 1,
                r.classifier,
                r.value,
                rates.join(", ")
            );
        }
        if k == 2 {
            let _ = writeln!(s, "(k = 2: [P(h=1|Y=0), P(h=0|Y=1)] = [FPR, FNR])");
        }
        if let Some(c) = &self.comparison {
            let _ = writeln!(
                s,
                "NDCG (exponential gain) {:.4}; NDCG (linear gain, 1/cost) {}; Kendall tau-b {}",
                c.ndcg.exponential,
                c.ndcg.linear.map_or("n/a".into(), |v| format!("{v:.4}")),
                c.kendall_tau_b.map_or("n/a".into(), |v| format!("{v:.4}"))
            );
        }
        s
    }
}

/// The JSON of a metric file; `option` (`--metric`, `--truth`) names it in
/// errors, with the parser's line and column.
fn read_json(path: &Path, option: &str) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    serde_json::from_str(&text)
        .map_err(|e| Error::invalid(option, format!("{}: not JSON ({e})", path.display())))
}

/// `elicit rank --metric FILE --predictions FILE [--label COL] [--group COL]
/// [--truth FILE] [--attributes FILE]`: reads the metric (and the truth),
/// the predictions (and, for a cost/reward metric, each classifier's
/// attribute values), and ranks.
///
/// # Errors
/// As [`Metric::from_result`], [`PoolStatistics::read`] and [`rank`].
pub fn rank_files(
    metric: &Path,
    predictions: &Path,
    label: &str,
    group: Option<&str>,
    truth: Option<&Path>,
    attributes: Option<&Path>,
) -> Result<Ranking> {
    let with = |m: Metric| match attributes {
        Some(a) => m.with_attributes(a),
        None => Ok(m),
    };
    let metric = with(Metric::from_result(&read_json(metric, "--metric")?)?)?;
    let pool = PoolStatistics::read(predictions, label, group)?;
    let ranking = rank(&metric, &pool)?;
    let comparison = match truth {
        Some(t) => Some(compare(
            &metric,
            &with(Metric::from_result(&read_json(t, "--truth")?)?)?,
            &pool,
        )?),
        None => None,
    };
    Ok(Ranking {
        metric,
        ranking,
        comparison,
        pool,
    })
}
