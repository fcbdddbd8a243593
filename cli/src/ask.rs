//! The person at the terminal (`elicit ask`): the two classifiers of a
//! question side by side on stderr, in the task's words, and the answer
//! read from stdin; the result (with the metric in a sentence) on stdout.
//! Built on the driver's [`Interview`], as the page of `--web` is: the
//! same questions, pairs that cannot be told apart answered for the
//! person, left and right drawn per question, check questions at the end.

use metric_elicitation::driver::interview::{Given, Interview, Options, Question, Step};
use metric_elicitation::driver::present;
use metric_elicitation::driver::spec::Spec;
use metric_elicitation::oracle::Preference;
use metric_elicitation::Error;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One answer typed at the prompt.
enum Typed {
    Left,
    Right,
    Tie,
    Undo,
    Quit,
}

fn read_answer(err: &mut impl Write) -> Result<Typed, Error> {
    loop {
        let _ = write!(
            err,
            "Prefer A or B? (= if you cannot tell, u to undo the last answer, q to stop; answers so far are kept) > "
        );
        let _ = err.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) => return Ok(Typed::Quit),
            Err(e) => {
                return Err(Error::Io {
                    path: "<stdin>".into(),
                    message: e.to_string(),
                })
            }
            Ok(_) => {}
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "a" | "1" => return Ok(Typed::Left),
            "b" | "2" => return Ok(Typed::Right),
            "=" | "c" | "?" | "t" => return Ok(Typed::Tie),
            "u" | "undo" => return Ok(Typed::Undo),
            "q" | "quit" => return Ok(Typed::Quit),
            other => {
                let _ = writeln!(err, "  {other:?} is not A, B, =, u or q");
            }
        }
    }
}

/// Shows a question: the task, what is the same for both, then each
/// number of the two classifiers side by side (rows 0 for both left out).
fn show(err: &mut impl Write, q: &Question) {
    let of = q
        .expected
        .map_or(String::new(), |n| format!(" of about {}", n.max(q.asked)));
    let kind = if q.check {
        "Check question"
    } else {
        "Question"
    };
    let _ = writeln!(
        err,
        "\n{kind} {}{of}: which classifier do you prefer?",
        q.asked
    );
    let (left, right) = if q.swapped {
        ((&q.second_panel, &q.second), (&q.first_panel, &q.first))
    } else {
        ((&q.first_panel, &q.first), (&q.second_panel, &q.second))
    };
    match (left.0, right.0) {
        (Some(a), Some(b)) => {
            for line in &a.context {
                let _ = writeln!(err, "  {line}");
            }
            for (side, p) in [("A", a), ("B", b)] {
                if let Some(what) = &p.what {
                    let _ = writeln!(err, "  classifier {side} {what}");
                }
            }
            let rows = present::side_by_side(a, b);
            let width = rows
                .iter()
                .map(|r| r.1.chars().count())
                .max()
                .unwrap_or(0)
                .max(20)
                + 4;
            let _ = writeln!(
                err,
                "  {:<width$} {:>12} {:>12}",
                "", "classifier A", "classifier B"
            );
            let mut section = String::new();
            for (s, label, x, y) in rows {
                if s != section {
                    let _ = writeln!(err, "  {s}");
                    section = s;
                }
                let _ = writeln!(err, "    {label:<w$} {x:>12} {y:>12}", w = width - 2);
            }
        }
        _ => {
            let (a, b) = (left.1, right.1);
            let width = a
                .rows
                .iter()
                .chain(std::iter::once(&a.title))
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0)
                + 4;
            let _ = writeln!(err, "  {:<width$}classifier B", "classifier A");
            let _ = writeln!(err, "  {:<width$}{}", a.title, b.title);
            for (l, r) in a.rows.iter().zip(&b.rows) {
                let _ = writeln!(err, "  {l:<width$}{r}");
            }
        }
    }
}

/// The end of a session, in words, on stderr.
pub fn tell_result(err: &mut impl Write, result: &Value) {
    let open = result
        .get("undetermined")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if let Some(s) = result.get("sentence").and_then(Value::as_str) {
        let contradicted = result.get("stop").and_then(Value::as_str) == Some("contradicted");
        if open == 0 {
            let _ = writeln!(err, "\nYour metric: {s}");
        } else if contradicted {
            let _ = writeln!(
                err,
                "\nYour answers do not settle one metric: too many of the consistency questions went against them. One metric the rest allow: {s}"
            );
        } else {
            let _ = writeln!(
                err,
                "\nYour answers do not settle your metric to the precision asked. One metric they allow: {s}"
            );
        }
    }
    for u in result
        .get("undetermined_in_words")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let _ = writeln!(err, "  {u}");
    }
    if let Some(c) = result.get("checks") {
        let asked = c["asked"].as_u64().unwrap_or(0);
        if asked > 0 {
            let _ = writeln!(
                err,
                "Check questions: the elicited metric agrees with {} of your {} answers ({} \"can't tell\").",
                c["agree"],
                c["agree"].as_u64().unwrap_or(0) + c["disagree"].as_u64().unwrap_or(0),
                c["cant_tell"]
            );
        }
    }
    let _ = writeln!(err, "In formula form: {}", result["in_words"]);
}

/// How a session at the terminal ended.
pub enum Ended {
    /// The result.
    Done(Value),
    /// The person stopped.
    Stopped {
        /// Lines recorded (answers and check answers).
        answered: usize,
        /// The transcript.
        transcript: Option<PathBuf>,
    },
}

/// Runs `elicit ask` at the terminal.
///
/// # Errors
/// The interview's errors; I/O errors of the terminal.
pub fn run(spec: Spec, transcript: Option<&Path>, checks: usize) -> Result<Ended, Error> {
    let options = Options {
        checks,
        ..Options::person()
    };
    let mut interview = Interview::start_with(spec, transcript, options)?;
    let mut err = std::io::stderr().lock();
    for notice in interview.notices() {
        let _ = writeln!(err, "{notice}");
    }
    if let Some(task) = interview
        .spec()
        .task
        .as_ref()
        .and_then(|t| t.description.clone())
    {
        let _ = writeln!(err, "Task: {task}");
    }
    loop {
        let q = match interview.next()? {
            Step::Done(result) => {
                tell_result(&mut err, &result);
                return Ok(Ended::Done(result));
            }
            Step::Question(q) => q,
        };
        show(&mut err, &q);
        let shown = Instant::now();
        let choice = read_answer(&mut err)?;
        let ms = Some(shown.elapsed().as_millis().min(u128::from(u64::MAX)) as u64);
        let preference = match (choice, q.swapped) {
            (Typed::Left, false) | (Typed::Right, true) => Preference::First,
            (Typed::Right, false) | (Typed::Left, true) => Preference::Second,
            (Typed::Tie, _) => Preference::Indifferent,
            (Typed::Undo, _) => {
                if !interview.undo()? {
                    let _ = writeln!(err, "  nothing to undo");
                }
                continue;
            }
            (Typed::Quit, _) => {
                return Ok(Ended::Stopped {
                    answered: interview.answers().len() + interview.checks().len(),
                    transcript: transcript.map(Path::to_path_buf),
                })
            }
        };
        interview.answer_with(q.number, preference, Given { ms })?;
    }
}
