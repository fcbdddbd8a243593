//! Running a procedure from a spec: `run` (a simulated or recorded oracle),
//! `ask` (a person), `replay` (a transcript), written once for every
//! procedure and every precision.
//!
//! * the procedure's adapter comes from the registry
//!   ([`crate::driver::registry`]) by the spec's `procedure`, its fields
//!   from the spec ([`Spec::settings`]), and the precision from
//!   `precision` ([`run_family`] dispatches to `f64` or `Mpfr<BITS>`);
//! * the oracle is built from the spec's `[oracle]` (exact or ε_Ω-noisy
//!   with an adversary, a recorded transcript) or is the [`Person`] of
//!   `ask`, behind [`Counted`] with the spec's budget and a transcript;
//! * the result is one JSON object ([`Finished`]).
//!
//! # Transcripts
//! A transcript is JSON lines: a header holding the spec, a SHA-256 of its
//! canonical JSON, the folder it was read from, and the SHA-256 of every
//! data file it reads (paths relative to the spec); then one line per query
//! with both points (lossless), the answer and the noise-band flag, flushed
//! as it is answered. [`crate::driver::replay`] refuses a transcript whose header was
//! edited, whose data files changed, that does not match the queries asked,
//! or that has answers left over; a resumed `ask` refuses a transcript
//! recorded for another spec or other data, and drops a half-written last
//! line with a warning.

use super::adapter::{Adapter, Family, Point, Report, View};
use super::present::{self, Names, Panel, Summary};
use super::registry::{ANSWER_MODEL, FORMER_ANSWER_MODEL};
use super::spec::{AdversaryName, Engine, Num, OracleSpec, Spec};
use crate::diagnostics::{Cause, Warning};
use crate::elicit::{Elicitation, Search};
use crate::error::{Error, Result};
use crate::oracle::{
    Adversary, AlwaysWrong, Answer, Counted, Metric, Noisy, Oracle, Preference, QueryPoint, Record,
    Replay, ReplayThen, Scripted, SeededRandom, Transcript,
};
use crate::scalar::Scalar;
use crate::search::Tolerance;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version written in transcript headers.
pub const TRANSCRIPT_VERSION: u64 = 2;

/// Who answers for the person in [`Mode::Ask`]: a program (the Python
/// package's callable oracle, a test script, a widget).
pub trait Person {
    /// Answers `comparison`, or `None` when the person stops.
    ///
    /// # Errors
    /// The answerer's own failure (an I/O error of a terminal).
    fn ask(&mut self, comparison: Comparison) -> Result<Option<Preference>>;

    /// Shows a one-line notice (resuming, a dropped half-written line).
    fn notice(&mut self, message: &str);
}

/// Where the answers come from.
pub enum Mode<'a> {
    /// The spec's oracle (simulated, or a transcript named in the spec);
    /// optionally recording to a transcript file.
    Run {
        /// Record every query and answer here.
        transcript: Option<PathBuf>,
    },
    /// A person, resuming from and recording to a transcript file.
    Ask {
        /// The transcript to resume from / record to.
        transcript: Option<PathBuf>,
        /// Who answers.
        person: &'a mut dyn Person,
    },
    /// Answers from these records (see [`crate::driver::replay`]).
    Replay {
        /// The recorded answers.
        records: Vec<Record>,
    },
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    /// The procedure finished: its result as JSON.
    Done(Value),
    /// The person stopped; every answer given is in the transcript.
    Stopped {
        /// Answers recorded so far (this session and earlier ones).
        answered: usize,
        /// The transcript holding them, if one was kept.
        transcript: Option<PathBuf>,
    },
}

/// Runs a procedure family at the spec's precision: the one place where a
/// precision name becomes a type.
///
/// # Errors
/// As [`crate::driver::run`].
pub fn run_family<F: Family>(spec: &Spec, mode: Mode<'_>) -> Result<Finished> {
    match crate::scalar::precision_bits(&spec.precision, "precision")? {
        None => run_at::<f64, F::At<f64>>(spec, mode),
        Some(bits) => run_mpfr::<F>(spec, mode, bits),
    }
}

#[cfg(feature = "mpfr")]
fn run_mpfr<F: Family>(spec: &Spec, mode: Mode<'_>, bits: u32) -> Result<Finished> {
    use crate::scalar::Mpfr;
    match bits {
        64 => run_at::<Mpfr<64>, F::At<Mpfr<64>>>(spec, mode),
        128 => run_at::<Mpfr<128>, F::At<Mpfr<128>>>(spec, mode),
        256 => run_at::<Mpfr<256>, F::At<Mpfr<256>>>(spec, mode),
        512 => run_at::<Mpfr<512>, F::At<Mpfr<512>>>(spec, mode),
        _ => run_at::<Mpfr<1024>, F::At<Mpfr<1024>>>(spec, mode),
    }
}

#[cfg(not(feature = "mpfr"))]
#[allow(clippy::extra_unused_type_parameters)] // the same signature as with the feature
fn run_mpfr<F: Family>(_: &Spec, _: Mode<'_>, bits: u32) -> Result<Finished> {
    Err(Error::invalid(
        "precision",
        format!("mpfr:{bits} needs a build with the MPFR feature: cargo run --release --features mpfr -- ..."),
    ))
}

/// A comparison put to a [`Person`]: the two points' coordinates as the
/// nearest doubles, at hand, and the [`Question`] as a person sees it (both
/// views, the lossless coordinates) built only when
/// [`Comparison::question`] is called, so that a program reading only the
/// coordinates pays for none of it. It owns what it needs (the adapter is
/// shared), so it may be kept after the answer.
#[derive(Clone)]
pub struct Comparison {
    /// 1-based number of the comparison.
    pub number: usize,
    /// About how many comparisons the elicitation takes.
    pub expected: Option<usize>,
    /// Classifier A's coordinates (the algorithm's first point), the
    /// nearest doubles ([`QueryPoint::values`]; exact in an `f64` run).
    pub first: Vec<f64>,
    /// Classifier B's coordinates.
    pub second: Vec<f64>,
    full: std::sync::Arc<dyn Fn() -> Question + Send + Sync>,
}

impl Comparison {
    /// The question as a person sees it: both classifiers' views and their
    /// lossless coordinates (built on each call).
    pub fn question(&self) -> Question {
        (self.full)()
    }
}

impl std::fmt::Debug for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comparison")
            .field("number", &self.number)
            .field("expected", &self.expected)
            .field("first", &self.first)
            .field("second", &self.second)
            .finish_non_exhaustive()
    }
}

/// The person as an oracle over a procedure's points.
struct PersonOracle<'a, 'p, T: Scalar, P: Adapter<T>> {
    procedure: &'a std::sync::Arc<P>,
    person: &'a mut (dyn Person + 'p),
    number: usize,
    expected: Option<usize>,
    _t: std::marker::PhantomData<T>,
}

impl<T: Scalar, P: Adapter<T>> Oracle<Point<T, P>> for PersonOracle<'_, '_, T, P> {
    fn compare(&mut self, x: &Point<T, P>, y: &Point<T, P>) -> Result<Answer> {
        self.number += 1;
        let (number, expected) = (self.number, self.expected);
        let (procedure, a, b) = (std::sync::Arc::clone(self.procedure), x.clone(), y.clone());
        let comparison = Comparison {
            number,
            expected,
            first: x.values(),
            second: y.values(),
            full: std::sync::Arc::new(move || Question {
                number,
                expected,
                first: procedure.view(&a),
                second: procedure.view(&b),
                first_point: a.coords(),
                second_point: b.coords(),
                first_panel: None,
                second_panel: None,
                swapped: false,
                check: false,
                asked: number,
            }),
        };
        match self.person.ask(comparison)? {
            Some(preference) => Ok(Answer::plain(preference)),
            None => Err(Error::OracleStopped {
                reason: "the person stopped".into(),
            }),
        }
    }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The spec as stored in a header: data paths relative to the spec's
/// folder.
fn header_spec(spec: &Spec) -> Value {
    let mut stored = spec.clone();
    let base = spec.base_dir();
    stored.relativize_paths(&base);
    serde_json::to_value(&stored).unwrap_or(Value::Null)
}

/// The defaults a recorded spec did not pin when it was written: an
/// engine not recorded was the papers' search (before the engine was
/// pinned in every header), and the Bayesian engine's answer model not
/// recorded was flips at an unknown rate (before 2026-12-01), each the
/// only default then.
fn old_defaults(recorded: &mut Value) {
    if let Value::Object(fields) = recorded {
        let bayes = fields
            .entry("engine")
            .or_insert_with(|| json!(Engine::Search.name()))
            .as_str()
            == Some(Engine::Bayes.name());
        if bayes {
            fields
                .entry(ANSWER_MODEL)
                .or_insert_with(|| json!(FORMER_ANSWER_MODEL));
        }
    }
}

/// A spec recorded before `query_center` existed (2026-11-29): a sphere
/// found in data was then the uniform classifier's (001 App. B.1), so a
/// `dataset` or `arrays` population without the field reads as `uniform`
/// where the procedure uses it (lpm, lpme, the Bayesian fpme) and, when
/// resuming (`current`: the spec resumed with), as the current spec's
/// where it does not (the field changes nothing there).
fn old_centre(recorded: &mut Value, current: Option<&Value>) {
    let uses = {
        let procedure = recorded.get("procedure").and_then(Value::as_str);
        let engine = recorded.get("engine").and_then(Value::as_str);
        matches!(procedure, Some("lpm" | "lpme"))
            || (procedure == Some("fpme") && engine == Some(Engine::Bayes.name()))
    };
    let Some(Value::Object(population)) = recorded.get_mut("population") else {
        return;
    };
    let from_data = matches!(
        population.get("kind").and_then(Value::as_str),
        Some("dataset" | "arrays")
    );
    if !from_data || population.contains_key("query_center") {
        return;
    }
    let value = match current.and_then(|c| c["population"].get("query_center")) {
        Some(now) if !uses => now.clone(),
        _ => json!("uniform"),
    };
    population.insert("query_center".into(), value);
}

/// The transcript header of `spec`.
///
/// # Errors
/// [`Error::Io`] when a data file cannot be read for its hash.
pub fn header(spec: &Spec) -> Result<Value> {
    let stored = header_spec(spec);
    let mut files = Vec::new();
    let base = spec.base_dir();
    // The spec's folder as an absolute path, so that a transcript replays
    // from any working directory.
    let recorded_dir = std::fs::canonicalize(&base).unwrap_or_else(|_| base.clone());
    for path in spec.population.files() {
        let bytes = std::fs::read(path).map_err(io_error(path))?;
        let relative = path.strip_prefix(&base).unwrap_or(path);
        files.push(json!({
            "path": relative.display().to_string(),
            "sha256": sha256_hex(&bytes),
        }));
    }
    Ok(json!({
        "header": {
            "elicit_transcript": TRANSCRIPT_VERSION,
            "spec": stored,
            "spec_sha256": sha256_hex(stored.to_string().as_bytes()),
            "spec_dir": recorded_dir.display().to_string(),
            "files": files,
        }
    }))
}

/// A transcript file read back.
#[derive(Debug)]
pub struct TranscriptFile {
    /// The spec of its header (paths resolved), if it has one.
    pub spec: Option<Spec>,
    /// The header as written.
    pub header: Option<Value>,
    /// The recorded answers.
    pub records: Vec<Record>,
    /// Whether a half-written last line was dropped.
    pub dropped_partial_line: bool,
}

/// Reads a transcript file and checks its header: the spec's hash, and the
/// hash of every data file (resolved against the recorded spec folder, or
/// the transcript's folder when that no longer exists). With `lenient`, a
/// half-written last line (no final newline) is dropped instead of refused.
///
/// # Errors
/// [`Error::Io`], [`Error::MalformedTranscript`] naming the line and what
/// differs.
pub fn read_transcript(path: &Path, lenient: bool) -> Result<TranscriptFile> {
    let mut text = std::fs::read_to_string(path).map_err(io_error(path))?;
    let mut dropped_partial_line = false;
    if lenient && !text.is_empty() && !text.ends_with('\n') {
        if let Some(last) = text.lines().last() {
            if serde_json::from_str::<Value>(last).is_err() {
                let keep = text.len() - last.len();
                text.truncate(keep);
                dropped_partial_line = true;
            }
        }
    }
    let (header, records) = Transcript::read(&text).map_err(|e| match e {
        Error::MalformedTranscript { line, reason } => Error::MalformedTranscript {
            line,
            reason: format!("{}: {reason}", path.display()),
        },
        other => other,
    })?;
    let bad = |reason: String| Error::MalformedTranscript {
        line: 1,
        reason: format!("{}: {reason}", path.display()),
    };
    let spec = match &header {
        None => None,
        Some(h) => {
            match h.get("elicit_transcript").and_then(Value::as_u64) {
                Some(TRANSCRIPT_VERSION) => {}
                other => {
                    return Err(bad(format!(
                    "transcript format version {} (this elicit reads version {TRANSCRIPT_VERSION})",
                    other.map_or_else(
                        || h.get("elicit_transcript")
                            .map_or("missing".into(), Value::to_string),
                        |v| v.to_string()
                    )
                )))
                }
            }
            let stored = h.get("spec").cloned().unwrap_or(Value::Null);
            let mut patched = stored.clone();
            old_centre(&mut patched, None);
            old_defaults(&mut patched);
            let mut spec: Spec = serde_json::from_value(patched)
                .map_err(|e| bad(format!("the header's spec does not parse: {e}")))?;
            let recorded = h.get("spec_sha256").and_then(Value::as_str);
            if recorded != Some(sha256_hex(stored.to_string().as_bytes()).as_str()) {
                return Err(bad(
                    "the header's spec was edited after recording (its hash does not match); record a new transcript".into(),
                ));
            }
            let files: Vec<&Value> = h
                .get("files")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            let rel = |file: &Value| {
                file.get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            // The recorded spec folder (absolute since version 2's
            // 2026-11-27 builds; a relative one is read from here), else
            // the transcript's folder: the first that holds every data file.
            let transcript_dir = path
                .parent()
                .map(|p| {
                    if p.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        p.to_path_buf()
                    }
                })
                .unwrap_or_default();
            let candidates: Vec<PathBuf> = h
                .get("spec_dir")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .into_iter()
                .chain(std::iter::once(transcript_dir))
                .filter(|d| d.is_dir())
                .collect();
            let spec_dir = candidates
                .iter()
                .find(|d| files.iter().all(|f| d.join(rel(f)).is_file()))
                .or(candidates.first())
                .cloned()
                .unwrap_or_default();
            spec.resolve_paths(&spec_dir);
            for file in files {
                let rel = rel(file);
                let want = file.get("sha256").and_then(Value::as_str).unwrap_or("");
                let full = spec_dir.join(rel);
                let bytes = std::fs::read(&full).map_err(|e| {
                    bad(format!("data file {} cannot be read: {e}", full.display()))
                })?;
                if sha256_hex(&bytes) != want {
                    return Err(bad(format!(
                        "data file {} changed since the transcript was recorded",
                        full.display()
                    )));
                }
            }
            Some(spec)
        }
    };
    Ok(TranscriptFile {
        spec,
        header,
        records,
        dropped_partial_line,
    })
}

/// A fresh transcript file holding `spec`'s header line.
pub(crate) fn new_transcript(spec: &Spec, path: &Path) -> Result<Transcript> {
    let header = header(spec)?;
    let mut f = std::fs::File::create(path).map_err(io_error(path))?;
    writeln!(f, "{header}").map_err(io_error(path))?;
    f.flush().map_err(io_error(path))?;
    Ok(Transcript::writing_to(Box::new(f)))
}

/// The first difference between two JSON values, as `field: a vs b`.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                first_difference(
                    &p,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                )
            })
        }
        _ if a == b => None,
        _ => Some(format!("{path}: {a} in the transcript, {b} in the spec")),
    }
}

/// The adversary a simulated oracle's spec names, over points `Q`.
fn adversary<'a, T: Scalar, P: Adapter<T>>(
    spec: &Spec,
    procedure: &'a P,
    truth: &'a P::Truth,
) -> Result<Box<dyn Adversary<Point<T, P>> + 'a>> {
    let OracleSpec::Simulated {
        adversary,
        seed,
        script,
        ..
    } = &spec.oracle
    else {
        return Ok(Box::new(AlwaysWrong));
    };
    Ok(match AdversaryName::parse(adversary.as_deref())? {
        AdversaryName::AlwaysWrong => Box::new(AlwaysWrong),
        AdversaryName::PushAway => Box::new(PushAwayAdversary { procedure, truth }),
        AdversaryName::Scripted => {
            Box::new(Scripted::new(hex_bytes(script.as_deref().unwrap_or(""))?))
        }
        AdversaryName::Random => Box::new(SeededRandom::new(seed.unwrap_or(0))),
    })
}

/// The push-away adversary over a procedure's distance to the optimum.
struct PushAwayAdversary<'a, T: Scalar, P: Adapter<T>> {
    procedure: &'a P,
    truth: &'a P::Truth,
}

impl<T: Scalar, P: Adapter<T>> Adversary<Point<T, P>> for PushAwayAdversary<'_, T, P> {
    fn answer(
        &mut self,
        x: &Point<T, P>,
        y: &Point<T, P>,
        truth: Preference,
    ) -> Result<Preference> {
        let distance = |p: &Point<T, P>| {
            self.procedure.distance(self.truth, p).ok_or_else(|| {
                Error::invalid(
                    "oracle.adversary",
                    "push-away needs a single optimum, and this procedure searches several (use always-wrong, random or scripted)",
                )
            })
        };
        let (dx, dy) = (distance(x)?, distance(y)?);
        Ok(if dx == dy {
            truth
        } else {
            Preference::from(dx > dy)
        })
    }
}

/// Decodes a hex script (whitespace ignored).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.script`.
pub fn hex_bytes(script: &str) -> Result<Vec<u8>> {
    let clean: String = script.chars().filter(|c| !c.is_whitespace()).collect();
    if !clean.len().is_multiple_of(2) {
        return Err(Error::invalid("oracle.script", "hex string of odd length"));
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&clean[i..i + 2], 16).map_err(|_| {
                Error::invalid("oracle.script", format!("not hex: {:?}", &clean[i..i + 2]))
            })
        })
        .collect()
}

/// A procedure built from a spec at precision `T`: its adapter, the hidden
/// metric when the oracle is simulated, and what its result reports beside
/// the estimate. Built once ([`prepare`]), run by [`run_at`] or, one
/// answer at a time, by [`crate::driver::interview`].
pub(crate) struct Prepared<T: Scalar, P: Adapter<T>> {
    /// The adapter (with its algorithm), shared with the comparisons put
    /// to a [`Person`].
    pub(crate) procedure: std::sync::Arc<P>,
    /// The simulated oracle's metric.
    pub(crate) truth: Option<P::Truth>,
    /// The strategy the searches run.
    pub(crate) strategy: crate::search::Strategy,
    /// About how many queries a run takes.
    pub(crate) expected: Option<usize>,
}

impl<T: Scalar, P: Adapter<T>> Prepared<T, P> {
    /// The adapter's report, with the population's warnings.
    pub(crate) fn report(&self, estimate: &super::adapter::Estimate<T, P>) -> Report {
        let mut report = self.procedure.report(estimate, self.truth.as_ref());
        report.warnings.extend(self.procedure.population_warnings());
        report
    }
}

/// Builds procedure `P` at precision `T` from `spec`: ε (checked here, the
/// one place, at the working precision), the strategy, the fields, the
/// population, and the truth of a simulated oracle. `run` says whether the
/// simulated oracle will answer (push-away needs a single optimum then).
///
/// # Errors
/// The spec's errors, naming the field.
pub(crate) fn prepare<T: Scalar, P: Adapter<T>>(spec: &Spec, run: bool) -> Result<Prepared<T, P>> {
    // The one place ε is checked: at the working precision, once.
    let eps: T = spec.epsilon()?.to_scalar("epsilon")?;
    let eps = Tolerance::new(eps.clone()).map_err(|_| {
        Error::invalid("epsilon", format!("must be a finite number > 0, got {eps}"))
    })?;
    if *eps >= T::int(1) {
        return Err(Error::invalid(
            "epsilon",
            format!(
                "= {} is not smaller than the search intervals (m in [0, 1] on a face, an angle in [0, pi/2]): every search would stop after at most one halving and return the interval's midpoint, not a metric; use epsilon < 1 (the examples use 0.01 to 0.05)",
                eps.to_f64_lossy()
            ),
        ));
    }
    let strategy = spec.strategy_or(P::default_strategy())?;
    if strategy.needs_symmetry() && !P::Algorithm::SYMMETRIC_SEARCHES {
        return Err(Error::invalid(
            "search",
            format!(
                "bisection assumes a metric symmetric about its optimum along each search (a linear metric on a sphere: lpme, lpm; nearly so on the small spheres of qpme, fair-qpme and cubic); {} searches along boundaries, faces or a non-linear restriction, where it can miss the optimum: use golden",
                spec.procedure
            ),
        ));
    }
    let fields: P::Fields = spec.settings()?;
    // A simulated metric of the wrong length is refused before the
    // population is built (which can take minutes for a large k).
    if let (OracleSpec::Simulated { metric, .. }, Some(k)) =
        (&spec.oracle, spec.population.stated_classes())
    {
        if let (Some(list), Some(expected)) = (metric.as_array(), P::metric_length(k)) {
            if list.len() != expected {
                return Err(Error::invalid(
                    "oracle.metric",
                    format!(
                        "expected {expected} numbers for {k} classes, got {}",
                        list.len()
                    ),
                ));
            }
        }
    }
    let procedure =
        std::sync::Arc::new(P::new(fields, Search { eps, strategy }, &spec.population)?);
    let truth = match &spec.oracle {
        OracleSpec::Simulated { metric, .. } => Some(procedure.truth(metric)?),
        _ => None,
    };
    if let (
        OracleSpec::Simulated {
            adversary: Some(a), ..
        },
        true,
    ) = (&spec.oracle, run)
    {
        if AdversaryName::parse(Some(a))? == AdversaryName::PushAway && !P::SINGLE_OPTIMUM {
            return Err(Error::invalid(
                "oracle.adversary",
                format!("push-away needs a single optimum, and {} searches several (use always-wrong, random or scripted)", spec.procedure),
            ));
        }
    }
    let expected = procedure.algorithm().expected_queries();
    Ok(Prepared {
        procedure,
        truth,
        strategy,
        expected,
    })
}

/// Runs procedure `P` at precision `T`.
fn run_at<T: Scalar, P: Adapter<T>>(spec: &Spec, mode: Mode<'_>) -> Result<Finished>
where
    Point<T, P>: QueryPoint,
{
    let prepared = prepare::<T, P>(spec, matches!(mode, Mode::Run { .. }))?;
    let Prepared {
        procedure,
        truth,
        strategy,
        expected,
        ..
    } = &prepared;
    let (strategy, expected) = (*strategy, *expected);

    let mut transcript_path = None;
    let mut recorded = 0;
    let (oracle, transcript): (Box<dyn Oracle<Point<T, P>> + '_>, Option<Transcript>) = match mode {
        Mode::Replay { records } => (Box::new(Replay::new(records)), None),
        Mode::Run { transcript } => {
            let t = transcript
                .as_deref()
                .map(|path| new_transcript(spec, path))
                .transpose()?;
            transcript_path = transcript;
            let oracle: Box<dyn Oracle<Point<T, P>> + '_> = match (&spec.oracle, truth) {
                (
                    OracleSpec::Simulated {
                        eps_omega,
                        mistake_rate,
                        temperature,
                        seed,
                        ..
                    },
                    Some(truth),
                ) => {
                    let eps_omega: T = eps_omega
                        .clone()
                        .unwrap_or(Num::Float(0.0))
                        .to_scalar("oracle.eps_omega")?;
                    let noisy = Noisy::new(
                        move |p: &Point<T, P>| truth.value(p),
                        eps_omega,
                        adversary(spec, procedure.as_ref(), truth)?,
                    )?;
                    let answering: Box<dyn Oracle<Point<T, P>> + '_> = match temperature {
                        // A Bradley–Terry person outside the band.
                        Some(tau) => Box::new(crate::oracle::Tempered::new(
                            noisy,
                            move |p: &Point<T, P>| truth.value(p),
                            tau.to_scalar::<T>("oracle.temperature")?,
                            // The seed's bits xor "tempered".
                            seed.unwrap_or(0) ^ 0x7465_6d70_6572_6564,
                        )?),
                        None => Box::new(noisy),
                    };
                    match mistake_rate {
                        // A person who errs: strict answers flipped with
                        // probability p, after the band.
                        Some(p) => Box::new(crate::oracle::Mistakes::new(
                            answering,
                            p.to_scalar::<T>("oracle.mistake_rate")?,
                            // Not the adversary's stream: the seed's
                            // bits xor "mistakes".
                            seed.unwrap_or(0) ^ 0x6d69_7374_616b_6573,
                        )?),
                        None => answering,
                    }
                }
                (OracleSpec::Replay { transcript }, _) => {
                    let file = read_transcript(transcript, false)?;
                    Box::new(Replay::new(file.records))
                }
                _ => {
                    return Err(Error::invalid(
                        "oracle.kind",
                        "a person answers through `elicit ask`, not `elicit run`",
                    ))
                }
            };
            (oracle, t)
        }
        Mode::Ask { transcript, person } => {
            let (records, t) = match &transcript {
                Some(path) if path.exists() => resume(spec, path, person)?,
                Some(path) => (Vec::new(), Some(new_transcript(spec, path)?)),
                None => (Vec::new(), None),
            };
            recorded = records.len();
            transcript_path = transcript;
            let person = PersonOracle {
                procedure,
                person,
                number: recorded,
                expected,
                _t: std::marker::PhantomData,
            };
            let oracle: Box<dyn Oracle<Point<T, P>> + '_> = if records.is_empty() {
                Box::new(person)
            } else {
                Box::new(ReplayThen::new(records, person))
            };
            (oracle, t)
        }
    };
    let mut counted = Counted::new(oracle);
    if let Some(budget) = spec.budget {
        counted = counted.with_budget(budget)?;
    }
    if let Some(t) = transcript {
        counted = counted.with_transcript(t);
    }
    let estimate = match procedure.algorithm().elicit(&mut counted) {
        Ok(estimate) => estimate,
        Err(e) if matches!(e.root_cause(), Error::OracleStopped { .. }) => {
            return Ok(Finished::Stopped {
                answered: counted.queries().max(recorded),
                transcript: transcript_path,
            })
        }
        Err(e) => return Err(e),
    };
    let report = prepared.report(&estimate);
    Ok(Finished::Done(assemble::<T, P, _>(
        spec, strategy, &counted, report,
    )))
}

/// The answers of an existing transcript of `spec`, with the notices a
/// person should see (a dropped half-written last line, the resumption);
/// the file is left holding exactly those answers.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `transcript` for a file recorded for
/// another spec or without a header; as [`read_transcript`].
pub(crate) fn resume_records(spec: &Spec, path: &Path) -> Result<(Vec<Record>, Vec<String>)> {
    let file = read_transcript(path, true)?;
    let header = header(spec)?;
    let recorded = file.header.as_ref().map(|h| {
        let mut recorded = h.get("spec").cloned().unwrap_or(Value::Null);
        old_defaults(&mut recorded);
        recorded
    });
    let current = header["header"]["spec"].clone();
    let recorded = recorded.map(|mut r| {
        old_centre(&mut r, Some(&current));
        r
    });
    if let Some(diff) = recorded
        .as_ref()
        .and_then(|r| first_difference("", r, &current))
    {
        // A session begun before a person's default answer model changed:
        // the spec can name the one it was begun with.
        let hint = if diff.starts_with(ANSWER_MODEL) {
            format!(" or add {ANSWER_MODEL} = \"{FORMER_ANSWER_MODEL}\" to the spec to go on with the answer model it was begun with")
        } else {
            String::new()
        };
        return Err(Error::invalid(
            "transcript",
            format!(
                "{} was recorded for a different spec ({diff}); use another file{hint}",
                path.display()
            ),
        ));
    }
    if recorded.is_none() {
        return Err(Error::invalid(
            "transcript",
            format!("{} has no header; use another file", path.display()),
        ));
    }
    let mut notices = Vec::new();
    if file.dropped_partial_line {
        notices.push(format!(
            "warning: dropped a half-written last line of {} (the session was killed while writing it)",
            path.display()
        ));
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        std::fs::write(path, &text[..keep]).map_err(io_error(path))?;
    }
    notices.push(format!(
        "resuming: {} answers already recorded in {}",
        file.records.len(),
        path.display()
    ));
    Ok((file.records, notices))
}

/// Resumes an `ask` session from an existing transcript.
fn resume(
    spec: &Spec,
    path: &Path,
    person: &mut dyn Person,
) -> Result<(Vec<Record>, Option<Transcript>)> {
    let (records, notices) = resume_records(spec, path)?;
    for notice in notices {
        person.notice(&notice);
    }
    let n = records.len();
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error(path))?;
    Ok((records, Some(Transcript::appending_to(Box::new(f), n))))
}

/// What the answers leave undetermined at ε: the warnings whose cause
/// undetermines the metric ([`crate::diagnostics::Cause::undetermines`]),
/// each as `"cause: message"`; contradictions count unless the spec's
/// simulated oracle declares an ε_Ω band. Empty when the estimate is the
/// metric.
pub fn undetermined(spec: &Spec, warnings: &[Warning]) -> Vec<String> {
    let declared_noise = match &spec.oracle {
        OracleSpec::Simulated {
            eps_omega: Some(e), ..
        } => e
            .to_scalar::<f64>("oracle.eps_omega")
            .is_ok_and(|e| e > 0.0),
        _ => false,
    };
    warnings
        .iter()
        .filter(|w| w.cause.undetermines(declared_noise))
        .map(|w| format!("{}: {}", w.cause.code(), w.message))
        .collect()
}

/// A plateau's message for a person's answers: the ties are "can't tell"
/// answers (the person's, or given for a pair too close to show apart),
/// not a finite sample's equal values, which the searches' messages name
/// as the usual cause.
fn persons_ties(message: &str) -> String {
    const SAMPLE: [&str; 2] = [
        "(a plateau, e.g. of a finite sample or where thresholds leave the range of eta)",
        "(a plateau, e.g. of a finite sample)",
    ];
    let mine = "(\"can't tell\": the person's answers, or pairs too close to show apart)";
    SAMPLE
        .iter()
        .fold(message.to_string(), |m, s| m.replace(s, mine))
}

/// The result object.
pub(crate) fn assemble<T: Scalar, P: Adapter<T>, O>(
    spec: &Spec,
    strategy: crate::search::Strategy,
    counted: &Counted<O>,
    report: Report,
) -> Value {
    let mut out = Map::new();
    out.insert("procedure".into(), json!(spec.procedure));
    out.insert("precision".into(), json!(T::backend_name()));
    if spec.engine.as_deref() != Some(Engine::Bayes.name()) {
        // The Bayesian engine names itself (`engine`) and searches nothing.
        out.insert("search".into(), json!(strategy.name()));
    }
    out.insert("queries".into(), json!(counted.queries()));
    out.insert("known_answers".into(), json!(counted.known()));
    out.insert("in_band_queries".into(), json!(counted.in_band_queries()));
    out.insert("elicited".into(), report.elicited);
    out.insert("elicited_exact".into(), report.elicited_exact);
    let mut warnings = report.warnings;
    if counted.queries() > 0 && counted.in_band_queries() == counted.queries() {
        // Every answer came from the adversary (a band as wide as the
        // metric's range, e.g. eps_omega = 10): the answers say nothing
        // of the metric (issue #29, item 4).
        warnings.push(Warning::new(
            Cause::Unidentifiable,
            format!(
                "every one of the {} answers fell within the oracle's noise band (eps_omega), where the adversary decides: they say nothing of the metric",
                counted.queries()
            ),
        ));
    }
    if matches!(spec.oracle, OracleSpec::Person {}) {
        for w in &mut warnings {
            if w.cause == Cause::Plateau {
                w.message = persons_ties(&w.message);
            }
        }
    }
    let undetermined = undetermined(spec, &warnings);
    let words = if undetermined.is_empty() {
        report.words
    } else {
        // Each cause once, in the order first met.
        let mut causes: Vec<&str> = Vec::new();
        for u in &undetermined {
            let cause = u.split(':').next().unwrap_or_default();
            if !causes.contains(&cause) {
                causes.push(cause);
            }
        }
        format!(
            "undetermined ({}): {} is only one of the metrics the answers allow",
            causes.join(", "),
            report.words
        )
    };
    out.insert("in_words".into(), json!(words));
    if !report.consistent.is_null() {
        out.insert("consistent".into(), report.consistent);
    }
    out.insert("undetermined".into(), json!(undetermined));
    out.insert(
        "warnings".into(),
        serde_json::to_value(&warnings).unwrap_or(Value::Null),
    );
    if let Some(t) = report.truth {
        out.insert("truth".into(), t);
    }
    if let Some(e) = report.error {
        out.insert("error".into(), json!(e));
        out.insert("error_measure".into(), json!(P::ERROR));
    }
    for (k, v) in report.details {
        out.insert(k, v);
    }
    Value::Object(out)
}

// ---- one answer at a time (driver::interview) ---------------------------------

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
    /// A in the task's words, when the procedure has a panel.
    pub first_panel: Option<Panel>,
    /// B in the task's words.
    pub second_panel: Option<Panel>,
    /// Whether B is shown on the left (the side order drawn for this
    /// question; recorded with the answer).
    pub swapped: bool,
    /// A check question (asked after the elicitation, not part of it).
    pub check: bool,
    /// The person's count: questions shown so far, this one included
    /// (pairs answered for the person and check questions apart).
    pub asked: usize,
}

/// What comes next.
// A step is made once per answer, not in a loop: the question is not boxed.
#[allow(clippy::large_enum_variant)]
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
    fn conduct(&self, spec: &Spec, answers: &[Record], options: &StepOptions) -> Result<Conducted>;
}

/// How a step runs (see [`Options`](crate::driver::interview::Options)).
#[derive(Debug, Clone, Default)]
pub struct StepOptions {
    /// Answer "can't tell" for pairs a person cannot tell apart.
    pub min_difference: Option<f64>,
    /// Check pairs to plan at the end.
    pub checks: usize,
    /// Build panels (and names) at all.
    pub person: bool,
}

/// A check pair planned at the end of an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckPair {
    /// The first classifier, lossless.
    pub first: Vec<String>,
    /// The second.
    pub second: Vec<String>,
    /// Shown.
    pub first_view: View,
    /// Shown.
    pub second_view: View,
    /// In the task's words.
    pub first_panel: Option<Panel>,
    /// In the task's words.
    pub second_panel: Option<Panel>,
    /// The elicited metric's answer, when it is a metric of the family.
    pub elicited: Option<Preference>,
}

/// What a step gives.
#[derive(Debug, Clone)]
pub struct Conducted {
    /// The next question, or the result of `elicit run` (without a
    /// person's additions).
    pub step: Step,
    /// Answers given for the person beyond `answers` (pairs that cannot be
    /// told apart), in order.
    pub autos: Vec<Record>,
    /// At the end: the metric for a person.
    pub summary: Option<Summary>,
    /// At the end: the check pairs.
    pub plan: Vec<CheckPair>,
    /// At the end: of the person's strict answers (not "can't tell", not
    /// given for them), how many the elicited metric agrees with, and how
    /// many it could judge.
    pub explained: Option<(usize, usize)>,
}

impl<T: Scalar, P: Adapter<T>> Conduct for Prepared<T, P>
where
    Point<T, P>: QueryPoint,
{
    fn conduct(&self, spec: &Spec, answers: &[Record], options: &StepOptions) -> Result<Conducted> {
        let names = if options.person {
            Some(Names::new(spec.task.as_ref(), self.procedure.shape())?)
        } else {
            None
        };
        let mut oracle = Answers {
            procedure: self.procedure.as_ref(),
            _t: std::marker::PhantomData,
            answers,
            next: 0,
            expected: self.expected,
            pending: None,
            names: names.as_ref(),
            min_difference: options.min_difference,
            autos: Vec::new(),
            asked: Vec::new(),
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
                let result = assemble::<T, P, _>(spec, self.strategy, &counted, report);
                drop(counted);
                let (summary, plan, explained) = match &names {
                    Some(names) => {
                        let metric = self.procedure.elicited_metric(&estimate);
                        let summary = self.procedure.summary(&estimate, names);
                        // An elicitation its own consistency checks
                        // contradicted is over: no check questions after.
                        let plan = if self.procedure.contradicted(&estimate) {
                            Vec::new()
                        } else {
                            plan_checks(
                                self,
                                spec,
                                names,
                                &oracle.asked,
                                metric.as_ref(),
                                options.checks,
                            )
                        };
                        let explained = metric
                            .as_ref()
                            .map(|m| explained(m, &oracle.asked, answers));
                        (summary, plan, explained)
                    }
                    None => (None, Vec::new(), None),
                };
                Ok(Conducted {
                    step: Step::Done(result),
                    autos: oracle.autos,
                    summary,
                    plan,
                    explained,
                })
            }
            Err(e) if matches!(e.root_cause(), Error::OracleStopped { .. }) => {
                drop(counted);
                let question = oracle.pending.take().ok_or(e)?;
                Ok(Conducted {
                    step: Step::Question(question),
                    autos: oracle.autos,
                    summary: None,
                    plan: Vec::new(),
                    explained: None,
                })
            }
            Err(e) => Err(e),
        }
    }
}

/// A number from text, for seeds.
fn fnv(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    // Finish with a mix so that consecutive seeds differ in every bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The seed of a spec's side orders and check pairs: its procedure, ε, its
/// own settings and its task (not its folder), so that a copied spec draws
/// the same.
fn spec_seed(spec: &Spec) -> u64 {
    let text = serde_json::json!([
        spec.procedure,
        spec.epsilon,
        spec.settings,
        spec.population.kind(),
        spec.task
    ])
    .to_string();
    fnv(text.as_bytes(), 0)
}

/// Whether question `key` shows the algorithm's second point on the left.
pub(crate) fn swapped(spec: &Spec, key: u64) -> bool {
    fnv(&key.to_le_bytes(), spec_seed(spec)) & 1 == 1
}

/// The elicited metric's answer on a pair (a tie within rounding is
/// "indifferent").
fn prefers<T: Scalar, M: crate::oracle::Metric<Q, Value = T>, Q>(
    m: &M,
    x: &Q,
    y: &Q,
) -> Preference {
    let (fx, fy) = (m.value(x), m.value(y));
    let scale = fx.clone().abs().max(fy.clone().abs()).max(T::int(1));
    if (fx.clone() - fy.clone()).abs() <= scale * crate::prec::ill_conditioned::<T>() {
        Preference::Indifferent
    } else {
        Preference::of(&fx, &fy)
    }
}

/// How many of the person's strict answers the elicited metric agrees with.
fn explained<Q, M: crate::oracle::Metric<Q>>(
    metric: &M,
    asked: &[(Q, Q)],
    answers: &[Record],
) -> (usize, usize) {
    let (mut agree, mut judged) = (0, 0);
    for ((x, y), record) in asked.iter().zip(answers) {
        if record.answer == Preference::Indifferent {
            continue;
        }
        let p = prefers(metric, x, y);
        if p == Preference::Indifferent {
            continue;
        }
        judged += 1;
        if p == record.answer {
            agree += 1;
        }
    }
    (agree, judged)
}

/// The two points of a question.
type Pair<T, P> = (Point<T, P>, Point<T, P>);

/// The most draws of a check plan, the same for every plan length (a
/// limit that grew with the count would let a longer plan, as an
/// interview asks for, hold pairs a replay's shorter one misses):
/// 200 per check at 3 × 5 checks.
const PLAN_ATTEMPTS: usize = 3000;

/// Up to `count` check pairs: random pairs of classifiers shown in
/// different questions, that a person can tell apart and was not asked;
/// drawn from the spec's seed within [`PLAN_ATTEMPTS`] draws whatever
/// `count` is, so that a resumed interview and a replay plan the same
/// pairs (the first n of a longer plan are exactly a shorter plan).
fn plan_checks<T: Scalar, P: Adapter<T>>(
    prepared: &Prepared<T, P>,
    spec: &Spec,
    names: &Names,
    asked: &[Pair<T, P>],
    metric: Option<&P::Truth>,
    count: usize,
) -> Vec<CheckPair>
where
    Point<T, P>: QueryPoint,
{
    use rand::{Rng, SeedableRng};
    let mut plan = Vec::new();
    if asked.len() < 2 {
        return plan;
    }
    let procedure = prepared.procedure.as_ref();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec_seed(spec) ^ 0x5eed_c4ec);
    let pick = |rng: &mut rand_chacha::ChaCha8Rng| {
        let (x, y) = &asked[rng.random_range(0..asked.len())];
        if rng.random_bool(0.5) {
            x
        } else {
            y
        }
    };
    let mut seen: Vec<(Vec<String>, Vec<String>)> = asked
        .iter()
        .map(|(x, y)| (x.coords(), y.coords()))
        .collect();
    let mut attempts = 0;
    while plan.len() < count && attempts < PLAN_ATTEMPTS {
        attempts += 1;
        let (x, y) = (pick(&mut rng), pick(&mut rng));
        let (cx, cy) = (x.coords(), y.coords());
        if cx == cy
            || seen
                .iter()
                .any(|(a, b)| (a == &cx && b == &cy) || (a == &cy && b == &cx))
        {
            continue;
        }
        let (px, py) = (procedure.panel(x, names), procedure.panel(y, names));
        if let (Some(a), Some(b)) = (&px, &py) {
            if !present::visible(a, b, present::MIN_DIFFERENCE) {
                continue;
            }
        }
        seen.push((cx.clone(), cy.clone()));
        plan.push(CheckPair {
            first: cx,
            second: cy,
            first_view: procedure.view(x),
            second_view: procedure.view(y),
            first_panel: px,
            second_panel: py,
            elicited: metric.map(|m| prefers(m, x, y)),
        });
    }
    plan
}

/// The oracle of a step: answers from the recorded list (checking that the
/// algorithm asks the recorded pair), answers "can't tell" for a pair a
/// person cannot tell apart (with a minimum visible difference), then
/// stops at the next question, keeping it.
struct Answers<'a, T: Scalar, P: Adapter<T>> {
    procedure: &'a P,
    _t: std::marker::PhantomData<T>,
    answers: &'a [Record],
    next: usize,
    expected: Option<usize>,
    pending: Option<Question>,
    names: Option<&'a Names>,
    min_difference: Option<f64>,
    autos: Vec<Record>,
    asked: Vec<Pair<T, P>>,
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
            if self.names.is_some() {
                self.asked.push((x.clone(), y.clone()));
            }
            return Ok(Answer::plain(record.answer));
        }
        let (first_panel, second_panel) = match self.names {
            Some(names) => (
                self.procedure.panel(x, names),
                self.procedure.panel(y, names),
            ),
            None => (None, None),
        };
        if let (Some(min), Some(a), Some(b)) = (self.min_difference, &first_panel, &second_panel) {
            if !present::visible(a, b, min) {
                self.autos.push(Record {
                    index: self.next,
                    first,
                    second,
                    answer: Preference::Indifferent,
                    in_noise_band: None,
                });
                self.next += 1;
                self.asked.push((x.clone(), y.clone()));
                return Ok(Answer::plain(Preference::Indifferent));
            }
        }
        let number = self.next + 1;
        self.pending = Some(Question {
            number,
            expected: self.expected.map(|m| m.max(number)),
            first: self.procedure.view(x),
            second: self.procedure.view(y),
            first_point: first,
            second_point: second,
            first_panel,
            second_panel,
            swapped: false,
            check: false,
            asked: 0,
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

/// A built procedure behind a box (the registry's handle on its typed
/// procedure).
pub trait ConductBox: Send {
    /// Runs against `answers`; see [`Interview`](crate::driver::interview::Interview).
    ///
    /// # Errors
    /// The procedure's errors; [`Error::TranscriptMismatch`] when the
    /// answers do not fit the questions.
    fn step(&self, spec: &Spec, answers: &[Record]) -> Result<Step> {
        Ok(self.conduct(spec, answers, &StepOptions::default())?.step)
    }

    /// Runs against `answers` with a person's options: see [`Conducted`].
    ///
    /// # Errors
    /// As [`ConductBox::step`]; [`Error::InvalidArgument`] naming
    /// `task.labels` or `task.groups` when the names do not fit.
    fn conduct(&self, spec: &Spec, answers: &[Record], options: &StepOptions) -> Result<Conducted>;
}

struct Erased(Box<dyn Conduct>);

impl ConductBox for Erased {
    fn conduct(&self, spec: &Spec, answers: &[Record], options: &StepOptions) -> Result<Conducted> {
        self.0.conduct(spec, answers, options)
    }
}
