//! Transcripts: every query, its answer and whether it was in the noise band,
//! as JSON lines, lossless for every backend, and replayable.

use super::{Answer, Oracle, Preference};
use crate::error::{Error, Result};
use crate::scalar::{Backend, Scalar};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::Write;

/// A query point that can be written to a transcript: its coordinates as
/// lossless decimal text ([`Backend::encode`]).
pub trait QueryPoint {
    /// The coordinates, each as text that decodes to exactly the same value.
    fn coords(&self) -> Vec<String>;

    /// The same coordinates as the nearest doubles (exact for `f64`), for a
    /// program answering questions; never used inside an algorithm.
    fn values(&self) -> Vec<f64>;
}

impl QueryPoint for f64 {
    fn coords(&self) -> Vec<String> {
        vec![self.encode()]
    }

    fn values(&self) -> Vec<f64> {
        vec![*self]
    }
}

#[cfg(feature = "mpfr-scalar")]
impl<const P: u32> QueryPoint for crate::scalar::Mpfr<P> {
    fn coords(&self) -> Vec<String> {
        vec![self.encode()]
    }

    fn values(&self) -> Vec<f64> {
        vec![self.to_f64_lossy()]
    }
}

impl<T: Scalar> QueryPoint for [T] {
    fn coords(&self) -> Vec<String> {
        self.iter().map(Backend::encode).collect()
    }

    fn values(&self) -> Vec<f64> {
        self.iter().map(Backend::to_f64_lossy).collect()
    }
}

impl<T: Scalar> QueryPoint for Vec<T> {
    fn coords(&self) -> Vec<String> {
        self.as_slice().coords()
    }

    fn values(&self) -> Vec<f64> {
        self.as_slice().values()
    }
}

impl<T, R, C, S> QueryPoint for nalgebra::Matrix<T, R, C, S>
where
    T: Scalar,
    R: nalgebra::Dim,
    C: nalgebra::Dim,
    S: nalgebra::RawStorage<T, R, C>,
{
    fn coords(&self) -> Vec<String> {
        self.iter().map(Backend::encode).collect()
    }

    fn values(&self) -> Vec<f64> {
        self.iter().map(Backend::to_f64_lossy).collect()
    }
}

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Zero-based query index.
    pub index: usize,
    /// Coordinates of the first point (lossless decimal text).
    pub first: Vec<String>,
    /// Coordinates of the second point.
    pub second: Vec<String>,
    /// The answer.
    pub answer: Preference,
    /// Whether the pair was inside the noise band, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_noise_band: Option<bool>,
}

impl Record {
    fn pair(&self) -> String {
        format!("({:?}, {:?})", self.first, self.second)
    }
}

/// The record of a run: kept in memory, and optionally written line by line
/// (JSON lines, flushed after each answer) to a writer, so that a run killed
/// at any moment loses no answer already given.
#[derive(Default)]
pub struct Transcript {
    records: Vec<Record>,
    sink: Option<Box<dyn Write + Send>>,
    /// Records with a smaller index are already in the sink (a resumed
    /// session) and are not written again.
    already_written: usize,
}

impl fmt::Debug for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transcript")
            .field("records", &self.records)
            .field("sink", &self.sink.as_ref().map(|_| "<writer>"))
            .finish()
    }
}

impl Transcript {
    /// An empty in-memory transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty transcript that also writes each record to `sink` as one
    /// JSON line, flushed at once.
    pub fn writing_to(sink: Box<dyn Write + Send>) -> Self {
        Self::appending_to(sink, 0)
    }

    /// Like [`Transcript::writing_to`] for a sink that already holds the
    /// first `already_written` records (a resumed session): those are kept
    /// in memory when replayed but not written twice.
    pub fn appending_to(sink: Box<dyn Write + Send>, already_written: usize) -> Self {
        Transcript {
            records: Vec::new(),
            sink: Some(sink),
            already_written,
        }
    }

    /// Appends a record (and writes it through, if writing).
    ///
    /// # Errors
    /// [`Error::Io`] when the sink cannot be written; the record is kept in
    /// memory regardless.
    pub fn push(&mut self, record: Record) -> Result<()> {
        let line = serde_json::to_string(&record).map_err(|e| Error::Io {
            path: "<transcript>".into(),
            message: e.to_string(),
        })?;
        let fresh = record.index >= self.already_written;
        self.records.push(record);
        if let (Some(sink), true) = (self.sink.as_mut(), fresh) {
            writeln!(sink, "{line}")
                .and_then(|()| sink.flush())
                .map_err(|e| Error::Io {
                    path: "<transcript>".into(),
                    message: e.to_string(),
                })?;
        }
        Ok(())
    }

    /// The records so far.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// All records as JSON lines.
    pub fn to_jsonl(&self) -> String {
        self.records
            .iter()
            .filter_map(|r| serde_json::to_string(r).ok())
            .map(|l| l + "\n")
            .collect()
    }

    /// Parses JSON lines written by [`Transcript::to_jsonl`] or a sink.
    /// Blank lines are skipped; indices must run 0, 1, 2, … .
    ///
    /// # Errors
    /// [`Error::MalformedTranscript`] naming the first bad line (1-based).
    pub fn from_jsonl(text: &str) -> Result<Vec<Record>> {
        Ok(Self::read(text)?.1)
    }

    /// Parses a transcript file: an optional first line holding a JSON
    /// object with a `header` key (returned as is), then records as in
    /// [`Transcript::from_jsonl`]. Lines that start with `{"check":` (a
    /// person's check questions, see `driver::interview`) are skipped;
    /// fields a record does not have (a person's side order and response
    /// time) are ignored.
    ///
    /// # Errors
    /// [`Error::MalformedTranscript`] naming the first bad line (1-based).
    pub fn read(text: &str) -> Result<(Option<serde_json::Value>, Vec<Record>)> {
        let mut records = Vec::new();
        let mut header = None;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if records.is_empty() && header.is_none() {
                if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(line) {
                    if let Some(h) = map.get("header") {
                        header = Some(h.clone());
                        continue;
                    }
                }
            }
            // A person's check question (asked after the elicitation, not
            // one of its queries) is read by the interview, not here.
            if line.starts_with("{\"check\":") {
                continue;
            }
            let record: Record =
                serde_json::from_str(line).map_err(|e| Error::MalformedTranscript {
                    line: n + 1,
                    reason: e.to_string(),
                })?;
            if record.index != records.len() {
                return Err(Error::MalformedTranscript {
                    line: n + 1,
                    reason: format!(
                        "query index {} where {} was expected",
                        record.index,
                        records.len()
                    ),
                });
            }
            records.push(record);
        }
        Ok((header, records))
    }
}

/// An oracle that answers from a recorded transcript, checking that every
/// query is exactly the recorded one (coordinates compared as lossless text),
/// so that a replayed run reproduces the original bit for bit.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{Counted, Oracle, Replay, Simulated, Transcript};
/// let mut live = Counted::new(Simulated::new(|x: &f64| *x)).with_transcript(Transcript::new());
/// live.compare(&0.25, &0.5).unwrap();
/// let records = live.take_transcript().unwrap().records().to_vec();
/// let mut replay = Replay::new(records);
/// assert!(!replay.compare(&0.25, &0.5).unwrap().prefers_first());
/// assert!(replay.compare(&0.25, &0.5).is_err()); // nothing more recorded
/// ```
#[derive(Debug, Clone)]
pub struct Replay {
    records: Vec<Record>,
    position: usize,
}

impl Replay {
    /// Replays `records` from the first.
    pub fn new(records: Vec<Record>) -> Self {
        Replay {
            records,
            position: 0,
        }
    }

    /// Answers replayed so far.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Recorded answers not yet replayed.
    pub fn remaining(&self) -> usize {
        self.records.len() - self.position
    }
}

/// Answers from a recorded transcript first, then from another oracle: a
/// resumed session re-asks nothing already answered.
#[derive(Debug)]
pub struct ReplayThen<O> {
    replay: Replay,
    then: O,
}

impl<O> ReplayThen<O> {
    /// Replays `records`, then hands over to `then`.
    pub fn new(records: Vec<Record>, then: O) -> Self {
        ReplayThen {
            replay: Replay::new(records),
            then,
        }
    }
}

impl<Q: QueryPoint + ?Sized, O: Oracle<Q>> Oracle<Q> for ReplayThen<O> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        if self.replay.remaining() > 0 {
            self.replay.compare(x, y)
        } else {
            self.then.compare(x, y)
        }
    }
}

impl<Q: QueryPoint + ?Sized> Oracle<Q> for Replay {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let record = self
            .records
            .get(self.position)
            .ok_or(Error::TranscriptExhausted {
                answered: self.position,
            })?;
        let (first, second) = (x.coords(), y.coords());
        if record.first != first || record.second != second {
            return Err(Error::TranscriptMismatch {
                index: self.position,
                recorded: record.pair(),
                asked: format!("({first:?}, {second:?})"),
            });
        }
        self.position += 1;
        Ok(Answer {
            preference: record.answer,
            in_noise_band: record.in_noise_band,
        })
    }
}
