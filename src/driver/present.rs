//! What a person is shown, in the task's own words: the two classifiers of
//! a question as [`Panel`]s (counts out of 100 or 1000 cases, class and
//! group names from the spec's `[task]`, class-conditional rates, the k × k
//! mistakes as a matrix), the rule that decides whether two classifiers can
//! be told apart at the shown precision ([`visible`]), and the elicited
//! metric as a sentence ([`Summary`]).
//!
//! Presentation only: nothing here changes a question the papers'
//! procedures ask. The person-facing interview
//! ([`crate::driver::interview::Options::person`]) uses [`visible`] to
//! answer "can't tell" for a pair whose shown numbers cannot differ by the
//! minimum visible difference (recorded in the transcript as such, so that
//! `elicit replay` re-runs it), and never shows it.

use super::spec::TaskSpec;
use crate::error::{Error, Result};
use serde::Serialize;

/// The default minimum visible difference: one case in the shown count
/// (out of 100 by default).
pub const MIN_DIFFERENCE: f64 = 1.0;

/// How many classes and groups a procedure's questions show, for naming
/// them ([`Names::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// Number of classes, when the points are classifiers' statistics.
    pub classes: Option<usize>,
    /// Number of groups (fair procedures).
    pub groups: Option<usize>,
    /// Binary procedures name the positive class first (class 1, then 0).
    pub binary: bool,
}

/// The names a person reads: the task, the classes, the groups, what a
/// case is, and how many cases counts are out of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Names {
    /// The one-line description of the task, if the spec gives one.
    pub task: Option<String>,
    /// Class names in class order (binary: positive, negative).
    pub classes: Vec<String>,
    /// Group names, group 1..m.
    pub groups: Vec<String>,
    /// What a case is (plural), e.g. "patients".
    pub cases: String,
    /// Counts are out of this many cases.
    pub per: u32,
}

impl Names {
    /// The names of `task` for a procedure of this `shape`, with defaults
    /// ("class 1", … ; binary "class 1" and "class 0"; "group 1", …;
    /// "cases"; 100).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `task.labels` or `task.groups`
    /// when their number does not match the procedure's classes or groups.
    pub fn new(task: Option<&TaskSpec>, shape: Shape) -> Result<Names> {
        let empty = TaskSpec::default();
        let task = task.unwrap_or(&empty);
        let classes = match (shape.classes, &task.labels) {
            (Some(k), Some(labels)) if labels.len() != k => {
                return Err(Error::invalid(
                    "task.labels",
                    format!(
                        "this procedure's questions have {k} classes, the spec names {}",
                        labels.len()
                    ),
                ))
            }
            (_, Some(labels)) => labels.clone(),
            (Some(2), None) if shape.binary => vec!["class 1".into(), "class 0".into()],
            (Some(k), None) => (1..=k).map(|i| format!("class {i}")).collect(),
            (None, None) => Vec::new(),
        };
        let groups = match (shape.groups, &task.groups) {
            (Some(m), Some(names)) if names.len() != m => {
                return Err(Error::invalid(
                    "task.groups",
                    format!(
                        "this procedure's questions have {m} groups, the spec names {}",
                        names.len()
                    ),
                ))
            }
            (Some(_), Some(names)) => names.clone(),
            (None, Some(_)) => {
                return Err(Error::invalid(
                    "task.groups",
                    "this procedure has no groups (only fpme, fair-qpme and qpme-tradeoff do)",
                ))
            }
            (Some(m), None) => (1..=m).map(|g| format!("group {g}")).collect(),
            (None, None) => Vec::new(),
        };
        Ok(Names {
            task: task.description.clone(),
            classes,
            groups,
            cases: task.cases.clone().unwrap_or_else(|| "cases".into()),
            per: task.per.unwrap_or(100),
        })
    }

    /// Class `i` (0-based in class order), or "class i+1" past the names.
    pub fn class(&self, i: usize) -> String {
        self.classes
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("class {}", i + 1))
    }

    /// Group `g` (0-based).
    pub fn group(&self, g: usize) -> String {
        self.groups
            .get(g)
            .cloned()
            .unwrap_or_else(|| format!("group {}", g + 1))
    }

    /// A probability as a count out of [`Names::per`] cases.
    pub fn count(&self, p: f64) -> f64 {
        p * f64::from(self.per)
    }
}

/// Whether a larger number is better for the person (as far as the task
/// says: correct predictions and rewards are, mistakes and costs are not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Better {
    /// More is better.
    Higher,
    /// Less is better.
    Lower,
    /// The task does not say.
    Neutral,
}

/// One number shown for a classifier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// What it counts, in the task's words.
    pub label: String,
    /// The value in the shown unit (a count out of `per` cases, or an
    /// attribute's unit).
    pub value: f64,
    /// Decimals shown.
    pub decimals: u8,
    /// Out of how many (for a bar), when it is a count.
    pub of: Option<f64>,
    /// Whether more is better.
    pub better: Better,
}

impl Row {
    /// A count (0 decimals) out of `of`.
    pub fn count(label: impl Into<String>, value: f64, of: f64, better: Better) -> Row {
        Row {
            label: label.into(),
            value,
            decimals: 0,
            of: Some(of),
            better,
        }
    }

    /// The value as shown.
    pub fn shown(&self) -> String {
        format_value(self.value, self.decimals)
    }
}

/// A k × k table of counts (actual class by row, predicted by column),
/// drawn as a heat map on the page; the diagonal may be left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Matrix {
    /// What the cells count.
    pub title: String,
    /// Row names (actual classes).
    pub rows: Vec<String>,
    /// Column names (predicted classes).
    pub columns: Vec<String>,
    /// Cell values in the shown unit, `None` where nothing is shown.
    pub cells: Vec<Vec<Option<f64>>>,
    /// Decimals shown.
    pub decimals: u8,
}

/// A titled group of rows (one class, one group, the whole population),
/// with an optional matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Its title.
    pub title: String,
    /// Its rows.
    pub rows: Vec<Row>,
    /// A matrix drawn below the rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Matrix>,
}

/// How one classifier is shown to a person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    /// What is the same for every classifier (class sizes, the unit), shown
    /// once above the two.
    pub context: Vec<String>,
    /// What this classifier is, in one line (e.g. "a threshold classifier
    /// of the fitted model"), when the procedure knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what: Option<String>,
    /// The numbers.
    pub sections: Vec<Section>,
}

impl Panel {
    /// Every number shown, rows then matrix cells, in order.
    pub fn numbers(&self) -> Vec<(f64, u8)> {
        let mut out = Vec::new();
        for s in &self.sections {
            out.extend(s.rows.iter().map(|r| (r.value, r.decimals)));
            if let Some(m) = &s.matrix {
                for row in &m.cells {
                    out.extend(row.iter().flatten().map(|v| (*v, m.decimals)));
                }
            }
        }
        out
    }
}

/// A value at `decimals` decimals, "-0" written "0".
pub fn format_value(value: f64, decimals: u8) -> String {
    let text = format!("{value:.*}", usize::from(decimals));
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        text.trim_start_matches('-').to_string()
    } else {
        text
    }
}

/// Whether a person can tell two classifiers apart: some shown number
/// differs at the shown precision *and* by at least `min_difference` steps
/// of its last shown digit (1: one case in 100 for a count). Panels of
/// different layouts count as different.
pub fn visible(a: &Panel, b: &Panel, min_difference: f64) -> bool {
    let (x, y) = (a.numbers(), b.numbers());
    if x.len() != y.len() {
        return true;
    }
    x.iter().zip(&y).any(|((u, du), (v, dv))| {
        let step = 10f64.powi(-i32::from(*du));
        format_value(*u, *du) != format_value(*v, *dv) && (u - v).abs() >= min_difference * step
    })
}

/// Whether two panels show the same numbers at the shown precision (what
/// a person would call "identical").
pub fn identical(a: &Panel, b: &Panel) -> bool {
    let (x, y) = (a.numbers(), b.numbers());
    x.len() == y.len()
        && x.iter()
            .zip(&y)
            .all(|((u, du), (v, dv))| format_value(*u, *du) == format_value(*v, *dv))
}

/// The two panels' rows side by side for a text screen: `(section, label,
/// left, right)`, leaving out rows that show 0 for both.
pub fn side_by_side(left: &Panel, right: &Panel) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for (sl, sr) in left.sections.iter().zip(&right.sections) {
        for (rl, rr) in sl.rows.iter().zip(&sr.rows) {
            let (a, b) = (rl.shown(), rr.shown());
            if a == "0" && b == "0" {
                continue;
            }
            out.push((sl.title.clone(), rl.label.clone(), a, b));
        }
        if let (Some(ml), Some(mr)) = (&sl.matrix, &sr.matrix) {
            for (i, (row_l, row_r)) in ml.cells.iter().zip(&mr.cells).enumerate() {
                for (j, (cl, cr)) in row_l.iter().zip(row_r).enumerate() {
                    if let (Some(cl), Some(cr)) = (cl, cr) {
                        let (a, b) = (
                            format_value(*cl, ml.decimals),
                            format_value(*cr, mr.decimals),
                        );
                        if a == "0" && b == "0" {
                            continue;
                        }
                        out.push((
                            ml.title.clone(),
                            format!(
                                "{} labelled {}",
                                ml.rows.get(i).cloned().unwrap_or_default(),
                                ml.columns.get(j).cloned().unwrap_or_default()
                            ),
                            a,
                            b,
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The elicited metric for a person: a sentence, what the answers left
/// undetermined, and a picture where the family has one.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Summary {
    /// The metric in one or two sentences, in the task's words.
    pub sentence: String,
    /// What the answers did not determine, one item per line.
    pub undetermined: Vec<String>,
    /// A picture's data (binary: the achievable region and the elicited
    /// iso-lines), drawn by the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<serde_json::Value>,
}

/// A ratio in words: "about 4 times", "about 1.5 times", "about as much as".
pub fn times(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "far more than".into();
    }
    if (ratio - 1.0).abs() < 0.05 {
        return "about as much as".into();
    }
    let r = if ratio >= 10.0 {
        format!("{ratio:.0}")
    } else if ratio >= 1.95 {
        format!("{:.1}", ratio).trim_end_matches(".0").to_string()
    } else {
        format!("{ratio:.2}")
    };
    format!("about {r} times")
}

/// A share in percent, to whole percents.
pub fn percent(x: f64) -> String {
    format!("{:.0} %", 100.0 * x)
}

pub use crate::diagnostics::wilson;
