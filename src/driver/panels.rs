//! The [`Panel`]s of each family (see [`crate::driver::present`]): a
//! classifier's statistics in the task's words, from `f64` values.

use super::present::{Better, Matrix, Names, Panel, Row, Section};

fn share(names: &Names, p: f64) -> String {
    format!("{:.0}", names.count(p))
}

/// The class sizes, once above the two classifiers.
pub fn class_sizes(names: &Names, priors: &[f64]) -> Vec<String> {
    if priors.is_empty() {
        return Vec::new();
    }
    let parts: Vec<String> = priors
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{} {}", share(names, *p), names.class(i)))
        .collect();
    vec![format!(
        "Of {} {} in all: {}.",
        names.per,
        names.cases,
        parts.join(", ")
    )]
}

/// The task's description is shown once, above the questions (not in
/// each panel's context).
fn task_line(_names: &Names) -> Vec<String> {
    Vec::new()
}

/// A binary classifier: TP and TN (joint probabilities) with ζ = P(Y = 1):
/// class-conditional counts per true class, and the four counts out of
/// all cases.
pub fn binary(names: &Names, tp: f64, tn: f64, zeta: f64) -> Panel {
    let (pos, neg) = (names.class(0), names.class(1));
    let per = f64::from(names.per);
    let (fnn, fp) = (zeta - tp, 1.0 - zeta - tn);
    let cond = |x: f64, of: f64| if of > 0.0 { per * x / of } else { 0.0 };
    let mut context = task_line(names);
    context.extend(class_sizes(names, &[zeta, 1.0 - zeta]));
    Panel {
        context,
        what: None,
        sections: vec![
            Section {
                title: format!("Of {} {} whose true class is {pos}", names.per, names.cases),
                rows: vec![
                    Row::count(
                        format!("labelled {pos} (found)"),
                        cond(tp, zeta),
                        per,
                        Better::Higher,
                    ),
                    Row::count(
                        format!("labelled {neg} (missed)"),
                        cond(fnn, zeta),
                        per,
                        Better::Lower,
                    ),
                ],
                matrix: None,
            },
            Section {
                title: format!("Of {} {} whose true class is {neg}", names.per, names.cases),
                rows: vec![
                    Row::count(
                        format!("labelled {neg} (correct)"),
                        cond(tn, 1.0 - zeta),
                        per,
                        Better::Higher,
                    ),
                    Row::count(
                        format!("labelled {pos} (false alarm)"),
                        cond(fp, 1.0 - zeta),
                        per,
                        Better::Lower,
                    ),
                ],
                matrix: None,
            },
            Section {
                title: format!("Of {} {} in all", names.per, names.cases),
                rows: vec![
                    Row::count(format!("{pos}, found"), per * tp, per, Better::Higher),
                    Row::count(format!("{pos}, missed"), per * fnn, per, Better::Lower),
                    Row::count(format!("{neg}, false alarm"), per * fp, per, Better::Lower),
                    Row::count(format!("{neg}, correct"), per * tn, per, Better::Higher),
                ],
                matrix: None,
            },
        ],
    }
}

/// A k-class classifier's correct predictions d_i = P(Y = i, h = i), with
/// the class priors when known: per class, how many of `per` cases of that
/// class it labels correctly, and the correct ones out of all cases.
pub fn diagonal(names: &Names, d: &[f64], priors: Option<&[f64]>) -> Panel {
    let per = f64::from(names.per);
    let mut context = task_line(names);
    let mut sections = Vec::new();
    if let Some(priors) = priors {
        context.extend(class_sizes(names, priors));
        sections.push(Section {
            title: format!(
                "Of {} {} of each true class, labelled correctly",
                names.per, names.cases
            ),
            rows: d
                .iter()
                .zip(priors)
                .enumerate()
                .map(|(i, (d, p))| {
                    let v = if *p > 0.0 { per * d / p } else { 0.0 };
                    Row::count(names.class(i), v, per, Better::Higher)
                })
                .collect(),
            matrix: None,
        });
    }
    sections.push(Section {
        title: format!(
            "Of {} {} in all, labelled correctly",
            names.per, names.cases
        ),
        rows: d
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let of = priors.map_or(per, |p| per * p[i]);
                Row::count(names.class(i), per * d, of, Better::Higher)
            })
            .collect(),
        matrix: None,
    });
    Panel {
        context,
        what: None,
        sections,
    }
}

/// The off-diagonal entries of a k × k table, row-major without the
/// diagonal, as a matrix of `value(x)` (and the diagonal from `diag`).
fn square(
    names: &Names,
    title: String,
    k: usize,
    z: &[f64],
    value: impl Fn(usize, f64) -> f64,
    diag: Option<&[f64]>,
) -> Matrix {
    let mut it = z.iter();
    let cells = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| {
                    if i == j {
                        diag.map(|d| d[i])
                    } else {
                        it.next().map(|v| value(i, *v))
                    }
                })
                .collect()
        })
        .collect();
    Matrix {
        title,
        rows: (0..k).map(|i| names.class(i)).collect(),
        columns: (0..k).map(|j| names.class(j)).collect(),
        cells,
        decimals: 0,
    }
}

/// A k-class classifier's mistakes z_(i,j) = P(Y = i, h = j) (row-major,
/// q = k² − k), with the priors when known: correct per class (of `per`
/// cases of that class) and the k × k mistakes out of all cases, drawn as
/// a heat map.
pub fn mistakes(names: &Names, k: usize, z: &[f64], priors: Option<&[f64]>) -> Panel {
    let per = f64::from(names.per);
    let mut context = task_line(names);
    let mut sections = Vec::new();
    let mut wrong = vec![0.0; k];
    for (idx, v) in z.iter().enumerate() {
        wrong[idx / (k - 1)] += v;
    }
    if let Some(priors) = priors {
        context.extend(class_sizes(names, priors));
        sections.push(Section {
            title: format!(
                "Of {} {} of each true class, labelled correctly",
                names.per, names.cases
            ),
            rows: (0..k)
                .map(|i| {
                    let v = if priors[i] > 0.0 {
                        per * (priors[i] - wrong[i]) / priors[i]
                    } else {
                        0.0
                    };
                    Row::count(names.class(i), v, per, Better::Higher)
                })
                .collect(),
            matrix: None,
        });
    }
    sections.push(Section {
        title: format!(
            "Mistakes, of {} {} in all (row: true class; column: label given)",
            names.per, names.cases
        ),
        rows: Vec::new(),
        matrix: Some(square(
            names,
            format!("mistakes of {} {}", names.per, names.cases),
            k,
            z,
            |_, v| per * v,
            None,
        )),
    });
    Panel {
        context,
        what: None,
        sections,
    }
}

/// Rates P(h = j | Y = i): `diagonal` rates (one per class, correct) or
/// general off-diagonal ones (row-major), as counts of `per` cases of each
/// class; per group when `groups` is given.
pub fn rates(names: &Names, k: usize, diagonal_rates: bool, groups: &[Vec<f64>]) -> Panel {
    let per = f64::from(names.per);
    let mut context = task_line(names);
    context.push(format!(
        "Counts are out of {} {} of each true class{}.",
        names.per,
        names.cases,
        if groups.len() > 1 {
            " in each group"
        } else {
            ""
        }
    ));
    let sections = groups
        .iter()
        .enumerate()
        .map(|(g, r)| {
            let title = if groups.len() > 1 {
                names.group(g)
            } else {
                "Of each true class".into()
            };
            if diagonal_rates {
                Section {
                    title: format!("{title}: labelled correctly"),
                    rows: r
                        .iter()
                        .enumerate()
                        .map(|(i, v)| Row::count(names.class(i), per * v, per, Better::Higher))
                        .collect(),
                    matrix: None,
                }
            } else {
                let mut wrong = vec![0.0; k];
                for (idx, v) in r.iter().enumerate() {
                    wrong[idx / (k - 1)] += v;
                }
                Section {
                    title: format!("{title}: labelled correctly"),
                    rows: (0..k)
                        .map(|i| {
                            Row::count(names.class(i), per * (1.0 - wrong[i]), per, Better::Higher)
                        })
                        .collect(),
                    matrix: (k > 2).then(|| {
                        square(
                            names,
                            format!("{title}: mistakes of {} of each true class", names.per),
                            k,
                            r,
                            |_, v| per * v,
                            None,
                        )
                    }),
                }
            }
        })
        .collect();
    Panel {
        context,
        what: None,
        sections,
    }
}
