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

use super::adapter::{Adapter, Family, Point, View};
use super::session::{assemble, prepare, Prepared};
use super::spec::{OracleSpec, Spec};
use crate::elicit::Elicitation;
use crate::error::{Error, Result};
use crate::oracle::{Answer, Counted, Oracle, Preference, QueryPoint, Record};
use crate::scalar::Scalar;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A question put to the person: the two classifiers as they are shown and
/// as the algorithm asked them.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// 1-based number of the question.
    pub number: usize,
    /// About how many questions the whole elicitation takes (at least
    /// `number`).
    pub expected: Option<usize>,
    /// Classifier A (the algorithm's first point), shown.
    pub first: View,
    /// Classifier B (the algorithm's second point), shown.
    pub second: View,
    /// A's coordinates, lossless ([`QueryPoint::coords`]).
    pub first_point: Vec<String>,
    /// B's coordinates, lossless.
    pub second_point: Vec<String>,
}

/// What comes next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A question to answer.
    Question(Question),
    /// The elicitation is over: its result, the JSON object of `elicit run`.
    Done(Value),
}

/// A procedure built at its precision, type-erased: it runs against a
/// list of answers and stops at the first question beyond them.
trait Conduct: Send {
    fn step(&self, spec: &Spec, answers: &[Record]) -> Result<Step>;
}

impl<T: Scalar, P: Adapter<T>> Conduct for Prepared<T, P>
where
    Point<T, P>: QueryPoint,
{
    fn step(&self, spec: &Spec, answers: &[Record]) -> Result<Step> {
        let mut oracle = Answers {
            procedure: &self.procedure,
            _t: std::marker::PhantomData,
            answers,
            next: 0,
            expected: self.expected,
            pending: None,
        };
        let mut counted = Counted::new(&mut oracle);
        if let Some(budget) = spec.budget {
            counted = counted.with_budget(budget)?;
        }
        let outcome = self.procedure.algorithm().elicit(&mut counted);
        match outcome {
            Ok(estimate) => {
                if counted.queries() < answers.len() {
                    return Err(Error::MalformedTranscript {
                        line: counted.queries() + 2,
                        reason: format!(
                            "the procedure finished after {} answers but {} are recorded",
                            counted.queries(),
                            answers.len()
                        ),
                    });
                }
                let report = self.report(&estimate);
                Ok(Step::Done(assemble::<T, P, _>(
                    spec,
                    self.strategy,
                    &counted,
                    report,
                )))
            }
            Err(e) if matches!(e.root_cause(), Error::OracleStopped { .. }) => {
                drop(counted);
                oracle.pending.take().map(Step::Question).ok_or(e)
            }
            Err(e) => Err(e),
        }
    }
}

/// The oracle of a step: answers from the recorded list (checking that the
/// algorithm asks the recorded pair), then stops at the next question,
/// keeping it.
struct Answers<'a, T: Scalar, P: Adapter<T>> {
    procedure: &'a P,
    _t: std::marker::PhantomData<T>,
    answers: &'a [Record],
    next: usize,
    expected: Option<usize>,
    pending: Option<Question>,
}

impl<T: Scalar, P: Adapter<T>> Oracle<Point<T, P>> for Answers<'_, T, P>
where
    Point<T, P>: QueryPoint,
{
    fn compare(&mut self, x: &Point<T, P>, y: &Point<T, P>) -> Result<Answer> {
        let (first, second) = (x.coords(), y.coords());
        if let Some(record) = self.answers.get(self.next) {
            if record.first != first || record.second != second {
                return Err(Error::TranscriptMismatch {
                    index: self.next,
                    recorded: format!("({:?}, {:?})", record.first, record.second),
                    asked: format!("({first:?}, {second:?})"),
                });
            }
            self.next += 1;
            return Ok(Answer::plain(record.answer));
        }
        let number = self.next + 1;
        self.pending = Some(Question {
            number,
            expected: self.expected.map(|m| m.max(number)),
            first: self.procedure.view(x),
            second: self.procedure.view(y),
            first_point: first,
            second_point: second,
        });
        Err(Error::OracleStopped {
            reason: "waiting for the person's answer".into(),
        })
    }
}

/// Builds the type-erased procedure of a family at the spec's precision.
///
/// # Errors
/// As [`prepare`].
pub(crate) fn conduct_family<F: Family>(spec: &Spec) -> Result<Box<dyn ConductBox>> {
    match crate::scalar::precision_bits(&spec.precision, "precision")? {
        None => Ok(Box::new(Erased(Box::new(prepare::<f64, F::At<f64>>(
            spec, false,
        )?)))),
        Some(bits) => conduct_mpfr::<F>(spec, bits),
    }
}

#[cfg(feature = "mpfr")]
fn conduct_mpfr<F: Family>(spec: &Spec, bits: u32) -> Result<Box<dyn ConductBox>> {
    use crate::scalar::Mpfr;
    fn at<T: Scalar, P: Adapter<T> + 'static>(spec: &Spec) -> Result<Box<dyn ConductBox>>
    where
        Point<T, P>: QueryPoint,
    {
        Ok(Box::new(Erased(Box::new(prepare::<T, P>(spec, false)?))))
    }
    match bits {
        64 => at::<Mpfr<64>, F::At<Mpfr<64>>>(spec),
        128 => at::<Mpfr<128>, F::At<Mpfr<128>>>(spec),
        256 => at::<Mpfr<256>, F::At<Mpfr<256>>>(spec),
        512 => at::<Mpfr<512>, F::At<Mpfr<512>>>(spec),
        _ => at::<Mpfr<1024>, F::At<Mpfr<1024>>>(spec),
    }
}

#[cfg(not(feature = "mpfr"))]
#[allow(clippy::extra_unused_type_parameters)] // the same signature as with the feature
fn conduct_mpfr<F: Family>(_: &Spec, bits: u32) -> Result<Box<dyn ConductBox>> {
    Err(Error::invalid(
        "precision",
        format!("mpfr:{bits} needs a build with the MPFR feature: cargo run --release --features mpfr -- ..."),
    ))
}

/// A built procedure behind a box (the registry's handle on [`Conduct`]).
pub trait ConductBox: Send {
    /// Runs against `answers`; see [`Interview`].
    ///
    /// # Errors
    /// The procedure's errors; [`Error::TranscriptMismatch`] when the
    /// answers do not fit the questions.
    fn step(&self, spec: &Spec, answers: &[Record]) -> Result<Step>;
}

struct Erased(Box<dyn Conduct>);

impl ConductBox for Erased {
    fn step(&self, spec: &Spec, answers: &[Record]) -> Result<Step> {
        self.0.step(spec, answers)
    }
}

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
