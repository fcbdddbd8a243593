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
//!
//! # A person answering
//! [`Interview::start_with`] and [`Options::person`] add what a person
//! needs beyond the papers' procedures (`elicit ask` and its page use
//! them; the procedures themselves ask the same questions):
//! * every question carries both classifiers in the task's words
//!   ([`crate::driver::present::Panel`]) and a side order (which classifier
//!   is shown on the left, as A), drawn per question from the spec and
//!   recorded with the answer, as is the answer's response time;
//! * a pair whose shown numbers cannot differ by the minimum visible
//!   difference ([`crate::driver::present::visible`]) is not shown: the
//!   interview answers "can't tell" for the person and records it with
//!   `"auto": "invisible"`, so `elicit replay` re-runs the same answers;
//! * after the elicitation, a few check questions: random pairs of the
//!   classifiers shown, not asked before, recorded as `{"check": n, …}`
//!   lines (which `elicit replay` reads beside the answers); the result
//!   reports the person's agreement with the elicited metric on them;
//! * the result adds the metric in a sentence (`sentence`), what the
//!   answers left undetermined, a picture's data, `checks` and `person`
//!   (questions shown, answered for the person, "can't tell", response
//!   times). [`replay_person`] computes the same result from the file.

use super::present;
use super::session::swapped;
pub use super::session::{CheckPair, ConductBox, Conducted, Question, Step, StepOptions};
use super::spec::{OracleSpec, Spec};
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::oracle::{Preference, Record};
use serde_json::{json, Value};
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
    extras: Vec<Extra>,
    checks: Vec<CheckLine>,
    transcript: Option<PathBuf>,
    notices: Vec<String>,
    options: Options,
    /// The last end of the elicitation (result, summary, plan), kept while
    /// the answers do not change.
    end: Option<(usize, Conducted)>,
}

/// What a person's interview adds to the papers' procedure (see the
/// module docs). The default adds nothing: every pair is asked, no check
/// questions, the result is `elicit run`'s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    /// Answer "can't tell" for a pair whose shown numbers cannot differ by
    /// this many steps of the last shown digit (one case in 100), instead
    /// of asking; `None` asks every pair.
    pub min_difference: Option<f64>,
    /// Check questions after the elicitation: at least this many, and up
    /// to [`MORE_CHECKS`] times as many while their answers are
    /// undecided ([`undecided`]).
    pub checks: usize,
    /// Panels, side orders, the sentence and the person's additions to the
    /// result.
    pub person: bool,
}

impl Options {
    /// The person-facing defaults: a minimum visible difference of one
    /// case in the shown count ([`present::MIN_DIFFERENCE`]) and
    /// [`DEFAULT_CHECKS`] check questions.
    pub fn person() -> Options {
        Options {
            min_difference: Some(present::MIN_DIFFERENCE),
            checks: DEFAULT_CHECKS,
            person: true,
        }
    }

    fn step(&self, checks: usize) -> StepOptions {
        StepOptions {
            min_difference: self.min_difference,
            checks,
            person: self.person,
        }
    }
}

/// Check questions a person is asked by default after the elicitation
/// (at least; see [`MORE_CHECKS`]).
pub const DEFAULT_CHECKS: usize = 5;

/// The most check questions, as a multiple of [`Options::checks`]: after
/// the minimum, checks continue while their answers are [`undecided`].
/// Computed exactly for the rule below (every check answer judged, each
/// disagreeing independently): a person answering at random, who
/// disagrees with the elicited metric one time in two, is called
/// contradictory in 83 % of sessions after 7.7 checks on average (with
/// exactly 5 checks: 50 %); a person disagreeing one time in ten in 1.2 %
/// after 6.9 (5 checks: 0.9 %); one time in five in 10.5 % after 8.8
/// (5 checks: 5.8 %).
pub const MORE_CHECKS: usize = 3;

/// Whether the check answers judged so far (`disagree` of `judged`)
/// decide nothing yet: the 95 % Wilson interval of the disagreement rate
/// neither lies above [`CHECKS_CONTRADICT`] (contradictory) nor below 1/2
/// (the person follows the elicited metric better than a coin). No judged
/// answer decides nothing either, but more checks would not help: false.
pub fn undecided(disagree: usize, judged: usize) -> bool {
    crate::diagnostics::checks_undecided(disagree, judged)
}

/// What a transcript line of a person's answer holds beyond the
/// [`Record`]: the side order shown, the response time, and whether the
/// interview answered for the person.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Extra {
    /// B was shown on the left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swapped: Option<bool>,
    /// Milliseconds from showing the question to the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// Why the interview answered without asking (`"invisible"`: the two
    /// classifiers cannot be told apart at the shown precision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<String>,
}

#[derive(serde::Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    record: &'a Record,
    #[serde(flatten)]
    extra: &'a Extra,
}

/// A check question's line in a transcript.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckLine {
    /// 1-based number among the checks.
    pub check: usize,
    /// The first classifier (lossless).
    pub first: Vec<String>,
    /// The second.
    pub second: Vec<String>,
    /// The person's answer.
    pub answer: Preference,
    /// B was shown on the left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swapped: Option<bool>,
    /// Milliseconds from showing the question to the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
}

/// How an answer was given (for the transcript).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    /// Milliseconds from showing the question to the answer, if measured.
    pub ms: Option<u64>,
}

/// The extras and check lines of a transcript file (answers are read by
/// [`crate::driver::session::read_transcript`]).
///
/// # Errors
/// [`Error::Io`]; [`Error::MalformedTranscript`] for a check line that
/// does not parse or is out of order.
pub fn read_person_lines(path: &Path) -> Result<(Vec<Extra>, Vec<CheckLine>)> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let (mut extras, mut checks) = (Vec::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if map.contains_key("header") {
            continue;
        }
        if map.contains_key("check") {
            let c: CheckLine = serde_json::from_value(Value::Object(map)).map_err(|e| {
                Error::MalformedTranscript {
                    line: n + 1,
                    reason: e.to_string(),
                }
            })?;
            if c.check != checks.len() + 1 {
                return Err(Error::MalformedTranscript {
                    line: n + 1,
                    reason: format!("check {} where {} was expected", c.check, checks.len() + 1),
                });
            }
            checks.push(c);
        } else {
            extras.push(serde_json::from_value(Value::Object(map)).unwrap_or_default());
        }
    }
    Ok((extras, checks))
}

/// The result of a person's elicitation recorded in `path`, as the
/// interview that recorded it gave it: `elicit run`'s result with the
/// sentence, the check questions' agreement and the person's counts.
///
/// # Errors
/// As [`crate::driver::replay`].
pub fn replay_person(spec: &Spec, path: &Path, records: Vec<Record>) -> Result<Value> {
    let (extras, checks) = read_person_lines(path)?;
    let entry = super::registry::find_for(spec)?;
    let procedure = (entry.conduct)(spec)?;
    let options = Options {
        min_difference: None,
        checks: checks.len(),
        person: true,
    };
    let conducted = procedure.conduct(spec, &records, &options.step(checks.len()))?;
    let Step::Done(_) = conducted.step else {
        return Err(Error::MalformedTranscript {
            line: records.len() + 2,
            reason: format!(
                "{}: the transcript stops before the procedure does",
                path.display()
            ),
        });
    };
    finish(spec, &conducted, &records, &extras, &checks)
}

/// The lowest mistake rate (the check questions' 95 % interval's lower
/// end) that says the elicited metric is not the person's: twice the one
/// answer in ten of the published user study. A person erring one answer
/// in ten against the right metric is flagged at 3 or more disagreements
/// of 5 check questions, with probability 0.009 (0.012 with the checks
/// that follow while undecided, [`MORE_CHECKS`]). The engine's
/// consistency checks judge by the same rule
/// ([`crate::diagnostics::checks_contradict`]).
pub const CHECKS_CONTRADICT: f64 = crate::diagnostics::CHECKS_CONTRADICT;

/// The check questions contradict the elicited metric: a `contradictory`
/// warning, the result undetermined (as the procedure's own warnings make
/// it, [`super::session::undetermined`]), and the person told in words.
fn contradicted_by_checks(
    map: &mut serde_json::Map<String, Value>,
    disagree: usize,
    judged: usize,
    lo: f64,
    hi: f64,
) {
    let message = format!(
        "the check questions disagree with the elicited metric in {disagree} of {judged} answers (95 % interval of the rate {lo:.2} to {hi:.2}; about 1 in 10 in the published user study): the answers may not follow one metric of this family"
    );
    let warning = Warning::new(Cause::Contradictory, message.clone());
    if let Some(Value::Array(w)) = map.get_mut("warnings") {
        w.push(serde_json::to_value(&warning).unwrap_or(Value::Null));
    }
    let first = match map.get_mut("undetermined") {
        Some(Value::Array(u)) => {
            u.push(json!(format!("{}: {message}", Cause::Contradictory.code())));
            u.len() == 1
        }
        _ => false,
    };
    if first {
        if let Some(Value::String(words)) = map.get_mut("in_words") {
            *words = format!(
                "undetermined ({}): {words} is only one of the metrics the answers allow",
                Cause::Contradictory.code()
            );
        }
    }
    if let Some(Value::Array(u)) = map.get_mut("undetermined_in_words") {
        u.push(json!(format!(
            "Your answers to the check questions disagree with this metric in {disagree} of {judged}: your answers may not follow one metric of this kind, or your preference changed along the way."
        )));
    }
}

/// The check answers' disagreements with the elicited metric and how many
/// were judged (strict answers to checks whose pair the metric orders).
fn judge(checks: &[CheckLine], plan: &[CheckPair]) -> (usize, usize) {
    let (mut disagree, mut judged) = (0, 0);
    for (c, planned) in checks.iter().zip(plan) {
        if let (a, Some(e)) = (c.answer, planned.elicited) {
            if a != Preference::Indifferent && e != Preference::Indifferent {
                judged += 1;
                disagree += usize::from(a != e);
            }
        }
    }
    (disagree, judged)
}

/// `elicit run`'s result with a person's additions.
fn finish(
    spec: &Spec,
    conducted: &Conducted,
    answers: &[Record],
    extras: &[Extra],
    checks: &[CheckLine],
) -> Result<Value> {
    let Step::Done(result) = &conducted.step else {
        return Err(Error::invalid("number", "the elicitation is not over"));
    };
    let mut result = result.clone();
    let Some(map) = result.as_object_mut() else {
        return Ok(result);
    };
    if let Some(summary) = &conducted.summary {
        map.insert("sentence".into(), json!(summary.sentence));
        map.insert("undetermined_in_words".into(), json!(summary.undetermined));
        if let Some(p) = &summary.picture {
            map.insert("picture".into(), p.clone());
        }
    }
    if let Some(task) = spec.task.as_ref().and_then(|t| t.description.clone()) {
        map.insert("task".into(), json!(task));
    }
    // Check questions against the elicited metric: every recorded check
    // is a planned pair.
    if checks.len() > conducted.plan.len() {
        return Err(Error::MalformedTranscript {
            line: answers.len() + 1 + conducted.plan.len() + 1,
            reason: format!(
                "{} check answers where this spec and these answers plan {} check pairs",
                checks.len(),
                conducted.plan.len()
            ),
        });
    }
    let (mut agree, mut disagree, mut ties, mut unjudged) = (0usize, 0usize, 0usize, 0usize);
    for (c, planned) in checks.iter().zip(&conducted.plan) {
        if planned.first != c.first || planned.second != c.second {
            return Err(Error::MalformedTranscript {
                line: answers.len() + 1 + c.check,
                reason: format!(
                    "check {} is not the pair this spec and these answers give",
                    c.check
                ),
            });
        }
        match (c.answer, planned.elicited) {
            (Preference::Indifferent, _) => ties += 1,
            (_, None | Some(Preference::Indifferent)) => unjudged += 1,
            (a, Some(e)) if a == e => agree += 1,
            _ => disagree += 1,
        }
    }
    let judged = agree + disagree;
    let interval = present::wilson(disagree, judged);
    let explained = conducted
        .explained
        .map(|(a, n)| json!({"agree": a, "judged": n}));
    map.insert(
        "checks".into(),
        json!({
            "asked": checks.len(),
            "agree": agree,
            "disagree": disagree,
            "cant_tell": ties,
            "not_judged": unjudged,
            "agreement": (judged > 0).then(|| agree as f64 / judged as f64),
            "mistake_rate": (judged > 0).then(|| disagree as f64 / judged as f64),
            "mistake_rate_95": interval.map(|(lo, hi)| json!([lo, hi])),
            "elicitation_answers_explained": explained,
            "note": "a disagreement is a mistake of the person's or an error of the elicited metric: the two are not separated",
        }),
    );
    if let Some((lo, hi)) = interval.filter(|(lo, _)| *lo > CHECKS_CONTRADICT) {
        contradicted_by_checks(map, disagree, judged, lo, hi);
    }
    let shown: Vec<&Extra> = extras.iter().filter(|e| e.auto.is_none()).collect();
    let mut ms: Vec<u64> = shown
        .iter()
        .filter_map(|e| e.ms)
        .chain(checks.iter().filter_map(|c| c.ms))
        .collect();
    ms.sort_unstable();
    let asked = answers
        .iter()
        .enumerate()
        .filter(|(i, _)| extras.get(*i).is_none_or(|e| e.auto.is_none()))
        .count();
    map.insert(
        "person".into(),
        json!({
            "questions": asked,
            "answered_for_the_person": answers.len() - asked,
            "cant_tell": answers.iter().enumerate().filter(|(i, r)| r.answer == Preference::Indifferent && extras.get(*i).is_none_or(|e| e.auto.is_none())).count(),
            "check_questions": checks.len(),
            "median_ms": ms.get(ms.len() / 2),
        }),
    );
    Ok(result)
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
        Self::start_with(spec, transcript, Options::default())
    }

    /// As [`Interview::start`], with a person's [`Options`].
    ///
    /// # Errors
    /// As [`Interview::start`]; names that do not fit the procedure
    /// (`task.labels`, `task.groups`).
    pub fn start_with(
        spec: Spec,
        transcript: Option<&Path>,
        options: Options,
    ) -> Result<Interview> {
        if !matches!(spec.oracle, OracleSpec::Person {}) {
            return Err(Error::invalid(
                "oracle.kind",
                "an interview asks a person: the spec's oracle must be kind = \"person\"",
            ));
        }
        let mut spec = spec;
        let entry = super::registry::resolve(&mut spec)?;
        let procedure = (entry.conduct)(&spec)?;
        let mut interview = Interview {
            spec,
            procedure,
            answers: Vec::new(),
            extras: Vec::new(),
            checks: Vec::new(),
            transcript: transcript.map(Path::to_path_buf),
            notices: Vec::new(),
            options,
            end: None,
        };
        if let Some(path) = transcript {
            interview.open(path)?;
        } else {
            interview.conduct()?;
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
            let (mut extras, checks) = read_person_lines(path)?;
            extras.resize(self.answers.len(), Extra::default());
            self.extras = extras;
            self.checks = checks;
            // Every answer must still fit the questions.
            self.conduct()?;
        } else {
            super::session::new_transcript(&self.spec, path)?;
            self.conduct()?;
        }
        Ok(())
    }

    /// One step against the answers so far, keeping the end once reached.
    fn conduct(&mut self) -> Result<Conducted> {
        if let Some((n, end)) = &self.end {
            if *n == self.answers.len() {
                return Ok(end.clone());
            }
        }
        let options = self.options.step(self.most_checks());
        let conducted = self
            .procedure
            .conduct(&self.spec, &self.answers, &options)?;
        if matches!(conducted.step, Step::Done(_)) && conducted.autos.is_empty() {
            self.end = Some((self.answers.len(), conducted.clone()));
        }
        Ok(conducted)
    }

    /// The spec.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// What a person should be told about the transcript when it was
    /// opened (a dropped half-written line, the number of answers resumed).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The answers so far, in order (those given for the person among
    /// them: see [`Interview::extras`]).
    pub fn answers(&self) -> &[Record] {
        &self.answers
    }

    /// What each answer's transcript line holds beyond the record.
    pub fn extras(&self) -> &[Extra] {
        &self.extras
    }

    /// The most check questions this interview asks ([`MORE_CHECKS`]
    /// times the minimum, or as many as were recorded).
    fn most_checks(&self) -> usize {
        (MORE_CHECKS * self.options.checks).max(self.checks.len())
    }

    /// The check questions answered.
    pub fn checks(&self) -> &[CheckLine] {
        &self.checks
    }

    /// Questions the person was shown and answered (pairs answered for the
    /// person apart, check questions included).
    pub fn asked(&self) -> usize {
        self.extras.iter().filter(|e| e.auto.is_none()).count() + self.checks.len()
    }

    /// The next question, or the result when every question is answered.
    /// Pairs a person cannot tell apart (with [`Options::min_difference`])
    /// are answered for them here and recorded.
    ///
    /// # Errors
    /// The procedure's errors (an exhausted budget among them); [`Error::Io`]
    /// when an answer given for the person cannot be recorded.
    #[allow(clippy::should_implement_trait)] // a fallible step, not an iterator
    pub fn next(&mut self) -> Result<Step> {
        let conducted = self.conduct()?;
        for record in &conducted.autos {
            let extra = Extra {
                auto: Some("invisible".into()),
                ..Extra::default()
            };
            if let Some(path) = &self.transcript {
                append_line(path, record, &extra)?;
            }
            self.answers.push(record.clone());
            self.extras.push(extra);
        }
        let asked = self.asked();
        let autos = self.extras.iter().filter(|e| e.auto.is_some()).count();
        match conducted.step {
            Step::Question(mut q) => {
                q.asked = asked + 1;
                q.expected = q
                    .expected
                    .map(|m| m.saturating_sub(autos).max(asked + 1) + self.options.checks);
                q.swapped = self.options.person && swapped(&self.spec, q.number as u64);
                Ok(Step::Question(q))
            }
            Step::Done(_) => {
                let end = self.conduct()?;
                let done = self.checks.len();
                let (disagree, judged) = judge(&self.checks, &end.plan);
                if done < self.options.checks
                    || (done < self.most_checks() && undecided(disagree, judged))
                {
                    if let Some(pair) = end.plan.get(done) {
                        let number = self.answers.len() + done + 1;
                        let planned = end.plan.len().min(self.options.checks.max(done + 1));
                        return Ok(Step::Question(Question {
                            number,
                            expected: Some(asked + 1 + (planned - done - 1)),
                            first: pair.first_view.clone(),
                            second: pair.second_view.clone(),
                            first_point: pair.first.clone(),
                            second_point: pair.second.clone(),
                            first_panel: pair.first_panel.clone(),
                            second_panel: pair.second_panel.clone(),
                            swapped: swapped(&self.spec, 1_000_000_007 + number as u64),
                            check: true,
                            asked: asked + 1,
                        }));
                    }
                }
                if !self.options.person {
                    return Ok(end.step);
                }
                finish(&self.spec, &end, &self.answers, &self.extras, &self.checks).map(Step::Done)
            }
        }
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
        self.answer_with(number, preference, Given::default())
    }

    /// As [`Interview::answer`], recording how the answer was given.
    ///
    /// # Errors
    /// As [`Interview::answer`].
    pub fn answer_with(
        &mut self,
        number: usize,
        preference: Preference,
        given: Given,
    ) -> Result<()> {
        let n = self.answers.len();
        let earlier = if number >= 1 && number <= n {
            if self
                .extras
                .get(number - 1)
                .is_some_and(|e| e.auto.is_some())
            {
                return Err(Error::invalid(
                    "number",
                    format!("question {number} was not asked (its two classifiers cannot be told apart)"),
                ));
            }
            Some(self.answers[number - 1].answer)
        } else if number > n && number <= n + self.checks.len() {
            Some(self.checks[number - n - 1].answer)
        } else {
            None
        };
        if let Some(earlier) = earlier {
            if earlier == preference {
                return Ok(());
            }
            return Err(Error::invalid(
                "number",
                format!("question {number} was answered {earlier:?} already (undo to change it)"),
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
        let swapped = self.options.person.then_some(question.swapped);
        if question.check {
            let line = CheckLine {
                check: self.checks.len() + 1,
                first: question.first_point,
                second: question.second_point,
                answer: preference,
                swapped,
                ms: given.ms,
            };
            if let Some(path) = &self.transcript {
                append_json(path, &line)?;
            }
            self.checks.push(line);
            return Ok(());
        }
        let record = Record {
            index: number - 1,
            first: question.first_point,
            second: question.second_point,
            answer: preference,
            in_noise_band: None,
        };
        let extra = Extra {
            swapped,
            ms: given.ms,
            auto: None,
        };
        if let Some(path) = &self.transcript {
            append_line(path, &record, &extra)?;
        }
        self.answers.push(record);
        self.extras.push(extra);
        Ok(())
    }

    /// Takes the last answer the person gave back (a check answer, or an
    /// elicitation answer with the pairs answered for them after it);
    /// `false` when there was none.
    ///
    /// # Errors
    /// [`Error::Io`] when the transcript cannot be shortened (the answer is
    /// then kept).
    pub fn undo(&mut self) -> Result<bool> {
        if !self.checks.is_empty() {
            if let Some(path) = &self.transcript {
                drop_last_line(path)?;
            }
            self.checks.pop();
            return Ok(true);
        }
        let Some(last) = self.extras.iter().rposition(|e| e.auto.is_none()) else {
            return Ok(false);
        };
        while self.answers.len() > last {
            if let Some(path) = &self.transcript {
                drop_last_line(path)?;
            }
            self.answers.pop();
            self.extras.pop();
        }
        Ok(true)
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Appends one record (with what a person's line adds) as a JSON line and
/// flushes it to the disk.
fn append_line(path: &Path, record: &Record, extra: &Extra) -> Result<()> {
    append_json(path, &Line { record, extra })
}

/// Appends one JSON line and flushes it to the disk.
fn append_json<S: serde::Serialize>(path: &Path, value: &S) -> Result<()> {
    let line = serde_json::to_string(value).map_err(|e| Error::Io {
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
