//! An elicitation driven one answer at a time (pull style): for a page in
//! a browser, a notebook widget or any interface that asks, waits and
//! answers, without threads.
//!
//! [`Interview::start`] builds the procedure once (its population, query
//! space and settings, as `elicit run` would); [`Interview::next`] returns
//! the next question (both classifiers' views and lossless points, "question
//! n of about m") or the result; [`Interview::answer`] records an answer to
//! question n (a repeated answer to the same question is accepted once:
//! a double click or a resent request changes nothing); [`Interview::undo`]
//! takes the last answer back.
//!
//! Each step runs the algorithm from its start against the answers so far
//! (a [`Replay`](crate::oracle::Replay) of them, checked point by point) and
//! stops at the first question beyond them: the procedures are
//! deterministic, so this is the same run as one that waited for every
//! answer, and a step costs one run of the algorithm, not of the
//! population's construction.
//!
//! With a transcript file, every answer is appended (and flushed) as it is
//! given, in the format of `elicit run --transcript` and `elicit ask`, so
//! `elicit replay` re-runs it bit for bit; an undo truncates the file's last
//! line; a process killed at any moment resumes from the file without
//! losing or repeating an answer.

use super::session::ConductBox;
pub use super::session::{Question, Step};
use super::spec::{OracleSpec, Spec};
use crate::error::{Error, Result};
use crate::oracle::{Preference, Record};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An elicitation conducted one answer at a time. See the module docs.
///
/// # Examples
/// A person (here a script) answering the binary LPM of 003 §5.1 by its
/// true metric m = (0.8, 0.6):
/// ```
/// use metric_elicitation::driver::interview::{Interview, Step};
/// use metric_elicitation::driver::spec::Spec;
/// use metric_elicitation::oracle::Preference;
/// let spec = Spec::parse(r#"
/// procedure = "binary-lpm"
/// epsilon = 0.02
/// [population]
/// kind = "synthetic-003"
/// [oracle]
/// kind = "person"
/// "#, true).unwrap();
/// let mut interview = Interview::start(spec, None).unwrap();
/// let tp_tn = |rows: &[String]| -> (f64, f64) {
///     let cell = |row: &str, i: usize| row.split_whitespace().rev().nth(i).unwrap().parse::<f64>().unwrap();
///     (cell(&rows[0], 1), cell(&rows[1], 0))
/// };
/// let result = loop {
///     match interview.next().unwrap() {
///         Step::Question(q) => {
///             let (a, b) = (tp_tn(&q.first.rows), tp_tn(&q.second.rows));
///             let (va, vb) = (0.8 * a.0 + 0.6 * a.1, 0.8 * b.0 + 0.6 * b.1);
///             let answer = if va > vb { Preference::First } else { Preference::Second };
///             interview.answer(q.number, answer).unwrap();
///         }
///         Step::Done(result) => break result,
///     }
/// };
/// let m11 = result["elicited"]["m11"].as_f64().unwrap();
/// assert!((m11 - 0.8).abs() < 0.02, "{m11}");
/// ```
pub struct Interview {
    spec: Spec,
    procedure: Box<dyn ConductBox>,
    answers: Vec<Record>,
    transcript: Option<PathBuf>,
    notices: Vec<String>,
}

impl std::fmt::Debug for Interview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interview")
            .field("procedure", &self.spec.procedure)
            .field("answers", &self.answers.len())
            .field("transcript", &self.transcript)
            .finish()
    }
}

impl Interview {
    /// Builds the procedure of `spec` (whose oracle must be a person) and,
    /// with `transcript`, resumes from that file if it exists or starts it.
    ///
    /// # Errors
    /// The spec's errors naming the field; [`Error::InvalidArgument`]
    /// naming `oracle.kind` for a spec whose oracle is not a person, or
    /// naming `transcript` for a transcript recorded for another spec;
    /// [`Error::MalformedTranscript`], [`Error::Io`].
    pub fn start(spec: Spec, transcript: Option<&Path>) -> Result<Interview> {
        if !matches!(spec.oracle, OracleSpec::Person {}) {
            return Err(Error::invalid(
                "oracle.kind",
                "an interview asks a person: the spec's oracle must be kind = \"person\"",
            ));
        }
        let entry = super::registry::find(&spec.procedure)?;
        let procedure = (entry.conduct)(&spec)?;
        let mut interview = Interview {
            spec,
            procedure,
            answers: Vec::new(),
            transcript: transcript.map(Path::to_path_buf),
            notices: Vec::new(),
        };
        if let Some(path) = transcript {
            interview.open(path)?;
        }
        Ok(interview)
    }

    /// Reads an existing transcript's answers (checked against the spec),
    /// or writes a new file's header.
    fn open(&mut self, path: &Path) -> Result<()> {
        if path.exists() {
            let (records, notices) = super::session::resume_records(&self.spec, path)?;
            self.notices = notices;
            self.answers = records;
            // Every answer must still fit the questions.
            self.procedure.step(&self.spec, &self.answers)?;
        } else {
            super::session::new_transcript(&self.spec, path)?;
        }
        Ok(())
    }

    /// The spec.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// What a person should be told about the transcript when it was
    /// opened (a dropped half-written line, the number of answers resumed).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The answers given so far, in order.
    pub fn answers(&self) -> &[Record] {
        &self.answers
    }

    /// The next question, or the result when every question is answered.
    ///
    /// # Errors
    /// The procedure's errors (an exhausted budget among them).
    pub fn next(&self) -> Result<Step> {
        self.procedure.step(&self.spec, &self.answers)
    }

    /// Answers question `number`. The answer to a question already
    /// answered the same way is accepted and changes nothing (a double
    /// click, a resent request).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `number` for a question that is
    /// neither the next one nor an earlier one answered the same way, or
    /// when the elicitation is over; [`Error::Io`] when the transcript
    /// cannot be written (the answer is then not recorded).
    pub fn answer(&mut self, number: usize, preference: Preference) -> Result<()> {
        if number >= 1 && number <= self.answers.len() {
            let earlier = &self.answers[number - 1];
            if earlier.answer == preference {
                return Ok(());
            }
            return Err(Error::invalid(
                "number",
                format!(
                    "question {number} was answered {:?} already (undo to change it)",
                    earlier.answer
                ),
            ));
        }
        let Step::Question(question) = self.next()? else {
            return Err(Error::invalid(
                "number",
                "the elicitation is over: every question is answered",
            ));
        };
        if question.number != number {
            return Err(Error::invalid(
                "number",
                format!(
                    "question {number} is not the next one (question {} is)",
                    question.number
                ),
            ));
        }
        let record = Record {
            index: number - 1,
            first: question.first_point,
            second: question.second_point,
            answer: preference,
            in_noise_band: None,
        };
        if let Some(path) = &self.transcript {
            append_line(path, &record)?;
        }
        self.answers.push(record);
        Ok(())
    }

    /// Takes the last answer back; `false` when there was none.
    ///
    /// # Errors
    /// [`Error::Io`] when the transcript cannot be shortened (the answer is
    /// then kept).
    pub fn undo(&mut self) -> Result<bool> {
        if self.answers.is_empty() {
            return Ok(false);
        }
        if let Some(path) = &self.transcript {
            drop_last_line(path)?;
        }
        self.answers.pop();
        Ok(true)
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Appends one record as a JSON line and flushes it to the disk.
fn append_line(path: &Path, record: &Record) -> Result<()> {
    let line = serde_json::to_string(record).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io(path))?;
    writeln!(f, "{line}").map_err(io(path))?;
    f.sync_data().map_err(io(path))
}

/// Cuts the file's last line (the last answer).
fn drop_last_line(path: &Path) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let keep = body.rfind('\n').map_or(0, |i| i + 1);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io(path))?;
    f.set_len(keep as u64).map_err(io(path))?;
    f.sync_data().map_err(io(path))
}
