//! The person at the terminal as the oracle (`elicit ask`).

use metric_elicitation::oracle::{Answer, Oracle, Preference};
use metric_elicitation::population::BinaryConfusion;
use metric_elicitation::scalar::Scalar;
use metric_elicitation::Error;
use nalgebra::DVector;
use std::io::{BufRead, Write};

/// How a query point is shown to a person: one line per row, side by side
/// for the two candidates.
pub trait Present {
    /// The column header and the rows.
    fn present(&self) -> (String, Vec<String>);
}

/// A binary confusion shown as a 2×2 matrix in % of all cases.
pub struct BinaryView<'a, T> {
    pub confusion: &'a BinaryConfusion<T>,
    pub zeta: &'a T,
}

impl<T: Scalar> Present for BinaryView<'_, T> {
    fn present(&self) -> (String, Vec<String>) {
        let pct = |v: T| 100.0 * v.to_f64_lossy();
        let c = self.confusion;
        let (tp, tn) = (pct(c.tp.clone()), pct(c.tn.clone()));
        let fnn = pct(self.zeta.clone() - c.tp.clone());
        let fp = pct(T::int(1) - self.zeta.clone() - c.tn.clone());
        (
            "predicted 1  predicted 0".into(),
            vec![
                format!("actual 1 {tp:>8.2} {fnn:>11.2}"),
                format!("actual 0 {fp:>8.2} {tn:>11.2}"),
                format!("accuracy {:>8.2}%", tp + tn),
            ],
        )
    }
}

/// A multiclass query: the diagonal confusion (DLPM: correct predictions of
/// each class) or the off-diagonal one (LPM/LPME: row-major mistakes
/// P(Y = i, h = j), i ≠ j), in % of all cases.
pub struct VectorView<'a, T: Scalar> {
    pub point: &'a DVector<T>,
    pub k: usize,
}

impl<T: Scalar> Present for VectorView<'_, T> {
    fn present(&self) -> (String, Vec<String>) {
        let pct = |v: &T| 100.0 * v.to_f64_lossy();
        let k = self.k;
        if self.point.len() == k {
            let rows = (0..k)
                .map(|i| format!("class {} correct {:>7.2}", i + 1, pct(&self.point[i])))
                .collect();
            ("correct predictions".into(), rows)
        } else {
            let mut it = self.point.iter();
            let rows = (0..k)
                .map(|i| {
                    let cells: Vec<String> = (0..k)
                        .map(|j| {
                            if i == j {
                                "     -".to_string()
                            } else {
                                format!("{:>6.2}", it.next().map_or(0.0, pct))
                            }
                        })
                        .collect();
                    format!("actual {} {}", i + 1, cells.join(" "))
                })
                .collect();
            (format!("mistakes: predicted 1..{k}"), rows)
        }
    }
}

/// Shows the two candidates side by side on stderr and reads "A" or "B"
/// from stdin; `view` turns a query point into a [`Present`].
pub struct Person<F> {
    view: F,
    asked: usize,
}

impl<F> Person<F> {
    pub fn new(view: F) -> Self {
        Person { view, asked: 0 }
    }
}

/// The person oracle for binary confusions.
pub fn binary_person<T: Scalar>(
    zeta: T,
) -> Person<impl Fn(&BinaryConfusion<T>) -> (String, Vec<String>)> {
    Person::new(move |c: &BinaryConfusion<T>| {
        BinaryView {
            confusion: c,
            zeta: &zeta,
        }
        .present()
    })
}

/// The person oracle for k-class diagonal or off-diagonal confusions.
pub fn vector_person<T: Scalar>(k: usize) -> Person<impl Fn(&DVector<T>) -> (String, Vec<String>)> {
    Person::new(move |p: &DVector<T>| VectorView { point: p, k }.present())
}

impl<Q, F: Fn(&Q) -> (String, Vec<String>)> Oracle<Q> for Person<F> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer, Error> {
        self.asked += 1;
        let ((header, a), (_, b)) = ((self.view)(x), (self.view)(y));
        let width = a
            .iter()
            .chain(std::iter::once(&header))
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
            + 4;
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "\nQuestion {}: which classifier do you prefer? (% of all cases)",
            self.asked
        );
        let _ = writeln!(err, "  {:<width$}classifier B", "classifier A");
        let _ = writeln!(err, "  {header:<width$}{header}");
        for (left, right) in a.iter().zip(&b) {
            let _ = writeln!(err, "  {left:<width$}{right}");
        }
        loop {
            let _ = write!(
                err,
                "Prefer A or B? (q to stop; answers so far are kept) > "
            );
            let _ = err.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) => {
                    return Err(Error::OracleStopped {
                        reason: "end of input".into(),
                    })
                }
                Err(e) => {
                    return Err(Error::OracleStopped {
                        reason: e.to_string(),
                    })
                }
                Ok(_) => {}
            }
            match line.trim().to_ascii_lowercase().as_str() {
                "a" | "1" => return Ok(Answer::plain(Preference::First)),
                // "B" and "no preference" both mean A is not strictly preferred.
                "b" | "2" => return Ok(Answer::plain(Preference::Second)),
                "=" => return Ok(Answer::plain(Preference::Indifferent)),
                "q" | "quit" => {
                    return Err(Error::OracleStopped {
                        reason: "quit".into(),
                    })
                }
                other => {
                    let _ = writeln!(err, "  {other:?} is not A, B or q");
                }
            }
        }
    }
}
