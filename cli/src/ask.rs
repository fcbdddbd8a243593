//! The person at the terminal (`elicit ask`): shows the two classifiers of
//! a question side by side on stderr and reads the answer from stdin.

use metric_elicitation::driver::session::{Person, Question};
use metric_elicitation::oracle::Preference;
use metric_elicitation::Error;
use std::io::{BufRead, Write};

/// A person answering at the terminal.
#[derive(Debug, Default)]
pub struct Terminal;

impl Person for Terminal {
    fn ask(&mut self, q: &Question) -> Result<Option<Preference>, Error> {
        let mut err = std::io::stderr().lock();
        let (a, b) = (&q.first, &q.second);
        let width = a
            .rows
            .iter()
            .chain(std::iter::once(&a.title))
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
            + 4;
        let of = q
            .expected
            .map_or(String::new(), |n| format!(" of about {}", n.max(q.number)));
        let _ = writeln!(
            err,
            "\nQuestion {}{of}: which classifier do you prefer?",
            q.number
        );
        let _ = writeln!(err, "  {:<width$}classifier B", "classifier A");
        let _ = writeln!(err, "  {:<width$}{}", a.title, b.title);
        for (left, right) in a.rows.iter().zip(&b.rows) {
            let _ = writeln!(err, "  {left:<width$}{right}");
        }
        loop {
            let _ = write!(
                err,
                "Prefer A or B? (= if you cannot tell, q to stop; answers so far are kept) > "
            );
            let _ = err.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) => return Ok(None),
                Err(e) => {
                    return Err(Error::Io {
                        path: "<stdin>".into(),
                        message: e.to_string(),
                    })
                }
                Ok(_) => {}
            }
            match line.trim().to_ascii_lowercase().as_str() {
                "a" | "1" => return Ok(Some(Preference::First)),
                "b" | "2" => return Ok(Some(Preference::Second)),
                "=" | "c" | "?" => return Ok(Some(Preference::Indifferent)),
                "q" | "quit" => return Ok(None),
                other => {
                    let _ = writeln!(err, "  {other:?} is not A, B, = or q");
                }
            }
        }
    }

    fn notice(&mut self, message: &str) {
        eprintln!("{message}");
    }
}
