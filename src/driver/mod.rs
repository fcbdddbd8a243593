//! The spec driver (the `driver` feature): everything between a spec file
//! and the typed algorithms of [`crate::elicit`].
//!
//! * [`spec`] — elicitation specs (TOML/JSON) as typed values;
//! * [`build`] — the one builder from a spec's population to populations
//!   and query spaces;
//! * [`adapter`] — what the driver needs of a procedure beyond its
//!   algorithm: its spec fields, its truth, its report and its view;
//! * [`adapters`] — one adapter per procedure family;
//! * [`view`] — how a query point is shown to a person;
//! * [`present`] — the same in the task's words (class and group names,
//!   counts out of 100 cases), whether two classifiers can be told apart,
//!   and the elicited metric as a sentence;
//! * [`registry`] — every procedure by spec name (one line each);
//! * [`session`] — `run`, `ask` and `replay` of any registered procedure at
//!   any precision, with transcripts;
//! * [`interview`] — the same, one answer at a time (pull style), for a
//!   page, a notebook or any interface;
//! * [`rank`] — ranking classifiers by an elicited metric, NDCG and
//!   Kendall τ (reading CSV files with the `data` feature).
//!
//! [`run`] and [`replay`] are the front door: a spec (or a transcript) in,
//! a result out.
//!
//! Data flows one way: spec → [`build`] → algorithm → [`session`] (oracle,
//! transcript) → estimate → [`adapter::Report`] or a ranking. Nothing in
//! [`crate::elicit`] or below imports this module.

pub mod adapter;
pub mod adapters;
pub mod build;
pub mod interview;
pub mod panels;
pub mod present;
pub mod rank;
pub mod registry;
pub mod session;
pub mod spec;
pub mod view;

use crate::error::{Error, Result};
use serde_json::Value;
use session::{read_transcript, Finished, Mode};
use spec::Spec;
use std::path::Path;

/// Runs `spec` in `mode`: finds the procedure (with the engine the spec
/// names, else the one [`spec::Spec::default_engine`] prefers, pinned in
/// what is recorded: [`registry::resolve`]), dispatches the precision.
///
/// # Errors
/// [`Error::InvalidArgument`] for an unknown procedure or precision, and
/// whatever the procedure, its settings or the oracle report.
pub fn run(spec: &Spec, mode: Mode<'_>) -> Result<Finished> {
    let mut pinned = spec.clone();
    let entry = registry::resolve(&mut pinned)?;
    (entry.run)(&pinned, mode)
}

/// Re-runs the elicitation recorded in a transcript file and returns the
/// identical result.
///
/// # Errors
/// [`Error::MalformedTranscript`] for a header that was edited or does not
/// parse, a data file whose content changed, or answers left over;
/// [`Error::TranscriptMismatch`] naming the first query that differs.
pub fn replay(path: &Path) -> Result<Value> {
    let file = read_transcript(path, false)?;
    let spec = file.spec.ok_or_else(|| Error::MalformedTranscript {
        line: 1,
        reason: format!("{} has no header line with the spec", path.display()),
    })?;
    if matches!(spec.oracle, spec::OracleSpec::Person {}) {
        // A person's transcript: the result as the interview gave it (with
        // the sentence and the check questions).
        return interview::replay_person(&spec, path, file.records);
    }
    let total = file.records.len();
    match run(
        &spec,
        Mode::Replay {
            records: file.records,
        },
    )? {
        Finished::Done(value) => {
            let used = value.get("queries").and_then(Value::as_u64).unwrap_or(0) as usize;
            if used < total {
                return Err(Error::MalformedTranscript {
                    line: used + 2,
                    reason: format!(
                        "{}: the procedure finished after {used} answers but the transcript has {total} (answers left over from another run?)",
                        path.display()
                    ),
                });
            }
            Ok(value)
        }
        Finished::Stopped { .. } => Err(Error::MalformedTranscript {
            line: total + 1,
            reason: format!(
                "{}: the transcript stops before the procedure does",
                path.display()
            ),
        }),
    }
}
