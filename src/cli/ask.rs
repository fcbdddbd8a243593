//! The person at the terminal as the oracle (`elicit ask`).

use metric_elicitation::oracle::{Answer, Oracle};
use metric_elicitation::population::BinaryConfusion;
use metric_elicitation::scalar::Scalar;
use metric_elicitation::Error;
use std::io::{BufRead, Write};

/// Shows two classifiers' confusion matrices side by side on stderr and
/// reads "A" or "B" from stdin.
pub struct Person<T> {
    zeta: T,
    asked: usize,
}

impl<T: Scalar> Person<T> {
    pub fn new(zeta: T) -> Self {
        Person { zeta, asked: 0 }
    }

    /// Rows of a binary confusion matrix as percentages of the population:
    /// [[TP, FN], [FP, TN]].
    fn matrix(&self, c: &BinaryConfusion<T>) -> [[f64; 2]; 2] {
        let one = T::int(1);
        let pct = |v: T| 100.0 * v.to_f64_lossy();
        [
            [pct(c.tp.clone()), pct(self.zeta.clone() - c.tp.clone())],
            [
                pct(one - self.zeta.clone() - c.tn.clone()),
                pct(c.tn.clone()),
            ],
        ]
    }
}

impl<T: Scalar> Oracle<BinaryConfusion<T>> for Person<T> {
    fn compare(&mut self, x: &BinaryConfusion<T>, y: &BinaryConfusion<T>) -> Result<Answer, Error> {
        self.asked += 1;
        let (a, b) = (self.matrix(x), self.matrix(y));
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "\nQuestion {}: which classifier do you prefer? (% of all cases)",
            self.asked
        );
        let _ = writeln!(
            err,
            "                 classifier A                 classifier B"
        );
        let _ = writeln!(
            err,
            "              predicted 1  predicted 0     predicted 1  predicted 0"
        );
        for (label, i) in [("actual 1", 0), ("actual 0", 1)] {
            let _ = writeln!(
                err,
                "  {label}     {:>8.2}     {:>8.2}        {:>8.2}     {:>8.2}",
                a[i][0], a[i][1], b[i][0], b[i][1]
            );
        }
        let _ = writeln!(
            err,
            "  accuracy    {:>8.2}%                    {:>8.2}%",
            a[0][0] + a[1][1],
            b[0][0] + b[1][1]
        );
        loop {
            let _ = write!(
                err,
                "Prefer A or B? (q to stop; answers so far are kept) > "
            );
            let _ = err.flush();
            let mut line = String::new();
            let read = std::io::stdin().lock().read_line(&mut line);
            match read {
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
                "a" | "1" => return Ok(Answer::plain(true)),
                // "B" and "no preference" both mean A is not strictly preferred.
                "b" | "2" | "=" => return Ok(Answer::plain(false)),
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
