//! The native module of the `metric_elicitation` Python package
//! (`metric_elicitation._native`): the spec driver of the core library,
//! bound with PyO3. The Python layer (`py/python/metric_elicitation`) wraps
//! it in typed objects; this module passes specs and results as JSON text,
//! arrays as numpy arrays, and releases the GIL while Rust runs.
//!
//! f64 only: `precision = "mpfr:…"` is refused by this build (MPFR stays in
//! the Rust library and the `elicit` command).

#![deny(missing_docs)]

use metric_elicitation::driver::interview::{Interview, Options};
use metric_elicitation::driver::rank::{self, Metric, PoolStatistics, Statistic};
use metric_elicitation::driver::session::{Comparison, Finished, Mode, Person, Question, Step};
use metric_elicitation::driver::spec::Spec;
use metric_elicitation::error::Error;
use metric_elicitation::metric::binary::Lpm;
use metric_elicitation::metric::Linear;
use metric_elicitation::oracle::Preference;
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Converts a library error into the package's exception: `SpecError`
/// (a `ValueError`) for a spec, setting or argument, `TranscriptError` for
/// a transcript, `OSError`-derived `FileError` for a file, `ElicitError`
/// otherwise; the field named by the library is the exception's `field`.
fn to_py(py: Python<'_>, error: &Error) -> PyErr {
    let (class, field) = match error {
        Error::Spec { .. } => ("SpecError", None),
        Error::InvalidArgument { name, .. } => ("SpecError", Some(name.clone())),
        Error::InvalidEpsilon { .. } => ("SpecError", Some("epsilon".to_string())),
        Error::InvalidNoise { .. } => ("SpecError", Some("oracle.eps_omega".to_string())),
        Error::ZeroBudget => ("SpecError", Some("budget".to_string())),
        Error::InvalidInterval { .. } | Error::Parse { .. } => ("SpecError", None),
        Error::MalformedTranscript { .. }
        | Error::TranscriptMismatch { .. }
        | Error::TranscriptExhausted { .. } => ("TranscriptError", None),
        Error::Io { path, .. } => ("FileError", Some(path.clone())),
        _ => ("ElicitError", None),
    };
    let message = error.to_string();
    match py
        .import("metric_elicitation.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(), field)))
    {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// Parses a spec's text (TOML when `toml`, JSON otherwise) named `origin`
/// in messages, resolving relative paths against `base`.
fn parse_spec(text: &str, toml: bool, origin: &str, base: &str) -> Result<Spec, Error> {
    let mut spec = Spec::parse(text, toml).map_err(|reason| Error::Spec {
        path: origin.to_string(),
        reason,
    })?;
    spec.resolve_paths(Path::new(base));
    spec.validate()?;
    Ok(spec)
}

/// Parses a spec and reports it back as JSON (with paths resolved): the
/// check `Spec(...)` runs in Python before anything else.
#[pyfunction]
fn check_spec(
    py: Python<'_>,
    text: &str,
    toml: bool,
    origin: &str,
    base: &str,
) -> PyResult<String> {
    let spec = parse_spec(text, toml, origin, base).map_err(|e| to_py(py, &e))?;
    serde_json::to_string(&spec).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Every registered procedure: (name, engine, one-line summary).
#[pyfunction]
fn procedures() -> Vec<(String, String, String)> {
    metric_elicitation::driver::registry::PROCEDURES
        .iter()
        .map(|e| {
            (
                e.name.to_string(),
                format!("{:?}", e.engine).to_lowercase(),
                e.summary.to_string(),
            )
        })
        .collect()
}

/// One comparison: classifier A (``a``) against classifier B (``b``).
///
/// ``a`` and ``b`` are the two classifiers' coordinates as the procedure
/// asks them (rates or confusions, numpy arrays; ``a_exact``/``b_exact``
/// the lossless decimals), ``view`` how each is shown (title and rows, and
/// the task's panels when the spec names its classes), ``number`` the
/// question's number, ``expected`` about how many questions the
/// elicitation takes, ``asked`` the person's count, ``check`` whether it is
/// a check question asked after the elicitation, ``progress`` "question n
/// of about m". Answer ``"a"``, ``"b"`` or ``"tie"``.
///
/// Built by the driver for a callable oracle with only the coordinates at
/// hand: the view and the lossless decimals are made the first time they
/// are read.
#[pyclass(module = "metric_elicitation", name = "Question", frozen)]
struct NativeQuestion {
    number: usize,
    expected: Option<usize>,
    asked: usize,
    check: bool,
    swapped: bool,
    first: Vec<f64>,
    second: Vec<f64>,
    /// The comparison the full question is built from on request (None
    /// when it was built up front: a session's question).
    comparison: Option<Comparison>,
    full: OnceLock<Question>,
    view: OnceLock<Py<PyAny>>,
}

impl NativeQuestion {
    /// A session's question (everything at hand).
    fn built(question: Question) -> Self {
        NativeQuestion {
            number: question.number,
            expected: question.expected,
            asked: question.asked,
            check: question.check,
            swapped: question.swapped,
            first: coordinates(&question.first_point),
            second: coordinates(&question.second_point),
            comparison: None,
            full: OnceLock::from(question),
            view: OnceLock::new(),
        }
    }

    /// A callable oracle's question: the coordinates now, the rest on
    /// request.
    fn lazy(mut comparison: Comparison) -> Self {
        NativeQuestion {
            number: comparison.number,
            expected: comparison.expected,
            asked: comparison.number,
            check: false,
            swapped: false,
            first: std::mem::take(&mut comparison.first),
            second: std::mem::take(&mut comparison.second),
            comparison: Some(comparison),
            full: OnceLock::new(),
            view: OnceLock::new(),
        }
    }

    fn full(&self) -> &Question {
        self.full.get_or_init(|| {
            self.comparison
                .as_ref()
                .map(Comparison::question)
                .expect("a question is built up front or from its comparison")
        })
    }
}

#[pymethods]
impl NativeQuestion {
    /// The question's number (1-based).
    #[getter]
    fn number(&self) -> usize {
        self.number
    }

    /// About how many questions the elicitation takes.
    #[getter]
    fn expected(&self) -> Option<usize> {
        self.expected
    }

    /// Questions shown to the person so far, this one included.
    #[getter]
    fn asked(&self) -> usize {
        self.asked
    }

    /// Whether it is a check question, asked after the elicitation.
    #[getter]
    fn check(&self) -> bool {
        self.check
    }

    /// Whether B is shown on the left.
    #[getter]
    fn swapped(&self) -> bool {
        self.swapped
    }

    /// Classifier A's coordinates (rates or confusions) as the procedure
    /// asks them (a new array on each read).
    #[getter]
    fn a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.first)
    }

    /// Classifier B's coordinates.
    #[getter]
    fn b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.second)
    }

    /// A's coordinates as lossless decimals.
    #[getter]
    fn a_exact(&self) -> Vec<String> {
        self.full().first_point.clone()
    }

    /// B's coordinates as lossless decimals.
    #[getter]
    fn b_exact(&self) -> Vec<String> {
        self.full().second_point.clone()
    }

    /// How each classifier is shown: ``{"a": {"title", "rows"}, "b": …,
    /// "a_panel", "b_panel"}`` (panels in the task's words, when named).
    #[getter]
    fn view(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(v) = self.view.get() {
            return Ok(v.clone_ref(py));
        }
        let q = self.full();
        let text = json!({
            "a": {"title": q.first.title, "rows": q.first.rows},
            "b": {"title": q.second.title, "rows": q.second.rows},
            "a_panel": q.first_panel,
            "b_panel": q.second_panel,
        })
        .to_string();
        let parsed = py.import("json")?.call_method1("loads", (text,))?.unbind();
        Ok(self.view.get_or_init(|| parsed).clone_ref(py))
    }

    /// ``question n of about m`` (the person's count).
    #[getter]
    fn progress(&self) -> String {
        match self.expected {
            Some(e) if e > 0 => format!("question {} of about {}", self.asked, e.max(self.asked)),
            _ => format!("question {}", self.asked),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<Question {}{}: a={:?} b={:?}>",
            self.number,
            if self.check { " (check)" } else { "" },
            self.first,
            self.second
        )
    }
}

/// The lossless coordinates as f64 (the nearest double of each decimal).
fn coordinates(exact: &[String]) -> Vec<f64> {
    exact
        .iter()
        .map(|s| s.parse::<f64>().unwrap_or(f64::NAN))
        .collect()
}

/// Reads an answer: "a", "b" or "tie" (also "first"/"second", "=").
fn preference(answer: &str) -> Option<Preference> {
    match answer {
        "a" => return Some(Preference::First),
        "b" => return Some(Preference::Second),
        "tie" => return Some(Preference::Indifferent),
        _ => {}
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "a" | "first" => Some(Preference::First),
        "b" | "second" => Some(Preference::Second),
        "tie" | "=" | "can't tell" | "cant tell" | "equal" => Some(Preference::Indifferent),
        _ => None,
    }
}

/// A Python callable answering as the person: called with the question's
/// dict; an exception (or an answer that is not "a", "b" or "tie") stops
/// the run, keeping every answer recorded, and is raised once the run is
/// over.
struct Callable {
    callable: Py<PyAny>,
    error: Option<PyErr>,
    notices: Vec<String>,
}

impl Person for Callable {
    fn ask(
        &mut self,
        comparison: Comparison,
    ) -> metric_elicitation::error::Result<Option<Preference>> {
        Python::attach(|py| {
            let answer = Bound::new(py, NativeQuestion::lazy(comparison))
                .and_then(|q| self.callable.bind(py).call1((q,)))
                .and_then(|v| {
                    let p = v
                        .cast::<pyo3::types::PyString>()
                        .ok()
                        .and_then(|t| t.to_cow().ok().and_then(|text| preference(&text)));
                    p.ok_or_else(|| {
                        pyo3::exceptions::PyValueError::new_err(format!(
                            "the oracle returned {}; expected \"a\", \"b\" or \"tie\"",
                            v.repr().map(|r| r.to_string()).unwrap_or_default()
                        ))
                    })
                });
            match answer {
                Ok(p) => Ok(Some(p)),
                Err(e) => {
                    self.error = Some(e);
                    Ok(None)
                }
            }
        })
    }

    fn notice(&mut self, message: &str) {
        self.notices.push(message.to_string());
    }
}

/// Runs a spec (JSON text, paths resolved) with its own oracle, or with
/// `oracle` (a callable) when the spec's oracle is a person; records to
/// `transcript` (resuming from it if it exists). Returns the result JSON
/// and the notices. The GIL is released while the procedure runs.
#[pyfunction]
#[pyo3(signature = (spec_json, base, oracle=None, transcript=None))]
fn run(
    py: Python<'_>,
    spec_json: &str,
    base: &str,
    oracle: Option<Py<PyAny>>,
    transcript: Option<PathBuf>,
) -> PyResult<(String, Vec<String>)> {
    let spec = parse_spec(spec_json, false, "<spec>", base).map_err(|e| to_py(py, &e))?;
    let person = matches!(
        spec.oracle,
        metric_elicitation::driver::spec::OracleSpec::Person {}
    );
    match (person, oracle) {
        (false, Some(_)) => Err(to_py(
            py,
            &Error::invalid(
                "oracle",
                "a callable oracle answers for a person: the spec's oracle must be kind = \"person\"",
            ),
        )),
        (true, None) => Err(to_py(
            py,
            &Error::invalid(
                "oracle",
                "the spec's oracle is a person: pass oracle=<callable>, or use Session to answer one question at a time",
            ),
        )),
        (false, None) => {
            let finished = py
                .detach(|| metric_elicitation::driver::run(&spec, Mode::Run { transcript }))
                .map_err(|e| to_py(py, &e))?;
            done(py, finished, Vec::new())
        }
        (true, Some(callable)) => {
            let mut person = Callable {
                callable,
                error: None,
                notices: Vec::new(),
            };
            let finished = py.detach(|| {
                metric_elicitation::driver::run(
                    &spec,
                    Mode::Ask {
                        transcript,
                        person: &mut person,
                    },
                )
            });
            if let Some(e) = person.error.take() {
                return Err(e);
            }
            let finished = finished.map_err(|e| to_py(py, &e))?;
            done(py, finished, person.notices)
        }
    }
}

fn done(
    py: Python<'_>,
    finished: Finished,
    notices: Vec<String>,
) -> PyResult<(String, Vec<String>)> {
    match finished {
        Finished::Done(value) => Ok((value.to_string(), notices)),
        Finished::Stopped {
            answered,
            transcript,
        } => Err(to_py(
            py,
            &Error::OracleStopped {
                reason: format!(
                    "stopped after {answered} answers{}",
                    transcript
                        .map(|t| format!(" (kept in {})", t.display()))
                        .unwrap_or_default()
                ),
            },
        )),
    }
}

/// Runs every spec (JSON texts, relative paths against `base`) in
/// parallel on every core with the GIL released; each spec's result JSON
/// (or its error message: a spec that does not parse, too) in order,
/// identical to running them one by one. The sweeps' trials
/// (`metric_elicitation.sweep`).
#[pyfunction]
fn run_specs(py: Python<'_>, specs: Vec<String>, base: &str) -> Vec<(bool, String)> {
    py.detach(|| {
        specs
            .par_iter()
            .map(|text| {
                let spec = match parse_spec(text, false, "<spec>", base) {
                    Ok(spec) => spec,
                    Err(e) => return (false, e.to_string()),
                };
                match metric_elicitation::driver::run(&spec, Mode::Run { transcript: None }) {
                    Ok(Finished::Done(v)) => (true, v.to_string()),
                    Ok(Finished::Stopped { answered, .. }) => {
                        (false, format!("stopped after {answered} answers"))
                    }
                    Err(e) => (false, e.to_string()),
                }
            })
            .collect()
    })
}

/// Runs the same spec once per seed (`oracle.seed` set to each), in
/// parallel on every core with the GIL released; each trial's result JSON
/// (or its error message) in seed order, identical to running them one by
/// one.
#[pyfunction]
fn run_seeds(
    py: Python<'_>,
    spec_json: &str,
    base: &str,
    seeds: Vec<u64>,
) -> PyResult<Vec<(bool, String)>> {
    let template: Value = serde_json::from_str(spec_json).map_err(|e| {
        to_py(
            py,
            &Error::Spec {
                path: "<spec>".into(),
                reason: e.to_string(),
            },
        )
    })?;
    let specs: Vec<Spec> = seeds
        .iter()
        .map(|&seed| {
            let mut v = template.clone();
            if let Some(oracle) = v.get_mut("oracle").and_then(Value::as_object_mut) {
                oracle.insert("seed".into(), json!(seed));
            }
            parse_spec(&v.to_string(), false, "<spec>", base)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| to_py(py, &e))?;
    Ok(py.detach(|| {
        specs
            .par_iter()
            .map(|spec| {
                match metric_elicitation::driver::run(spec, Mode::Run { transcript: None }) {
                    Ok(Finished::Done(v)) => (true, v.to_string()),
                    Ok(Finished::Stopped { answered, .. }) => {
                        (false, format!("stopped after {answered} answers"))
                    }
                    Err(e) => (false, e.to_string()),
                }
            })
            .collect()
    }))
}

/// One elicitation answered a question at a time (pull style), for a
/// notebook widget or any interface: the core's `Interview`.
#[pyclass(module = "metric_elicitation._native")]
struct NativeSession {
    interview: Mutex<Interview>,
}

fn locked<'a>(m: &'a Mutex<Interview>) -> std::sync::MutexGuard<'a, Interview> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[pymethods]
impl NativeSession {
    /// Starts (or, with an existing `transcript`, resumes) the elicitation
    /// of a spec (JSON text, paths resolved) whose oracle is a person.
    /// `person` adds what a person's interview adds (pairs that look the
    /// same answered "can't tell", check questions, the sentence).
    #[new]
    #[pyo3(signature = (spec_json, base, transcript=None, person=true))]
    fn new(
        py: Python<'_>,
        spec_json: &str,
        base: &str,
        transcript: Option<PathBuf>,
        person: bool,
    ) -> PyResult<Self> {
        let spec = parse_spec(spec_json, false, "<spec>", base).map_err(|e| to_py(py, &e))?;
        let options = if person {
            Options::person()
        } else {
            Options::default()
        };
        let interview = py
            .detach(|| Interview::start_with(spec, transcript.as_deref(), options))
            .map_err(|e| to_py(py, &e))?;
        Ok(NativeSession {
            interview: Mutex::new(interview),
        })
    }

    /// The next question, or `None` when the elicitation is over.
    fn next_question<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, NativeQuestion>>> {
        let step = py
            .detach(|| locked(&self.interview).next())
            .map_err(|e| to_py(py, &e))?;
        match step {
            Step::Question(question) => Ok(Some(Bound::new(py, NativeQuestion::built(question))?)),
            Step::Done(_) => Ok(None),
        }
    }

    /// Answers question `number` ("a", "b" or "tie"); recorded in the
    /// transcript before this returns.
    fn answer(&self, py: Python<'_>, number: usize, answer: &str) -> PyResult<()> {
        let p = preference(answer).ok_or_else(|| {
            to_py(
                py,
                &Error::invalid(
                    "answer",
                    format!("{answer:?}: expected \"a\", \"b\" or \"tie\""),
                ),
            )
        })?;
        py.detach(|| locked(&self.interview).answer(number, p))
            .map_err(|e| to_py(py, &e))
    }

    /// Takes the last answer back; `False` when there was none.
    fn undo(&self, py: Python<'_>) -> PyResult<bool> {
        py.detach(|| locked(&self.interview).undo())
            .map_err(|e| to_py(py, &e))
    }

    /// The result JSON once every question is answered, else `None`.
    fn result(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let step = py
            .detach(|| locked(&self.interview).next())
            .map_err(|e| to_py(py, &e))?;
        Ok(match step {
            Step::Done(v) => Some(v.to_string()),
            Step::Question(_) => None,
        })
    }

    /// Questions the person was shown and answered.
    fn asked(&self) -> usize {
        locked(&self.interview).asked()
    }

    /// What the person should be told about the transcript on opening.
    fn notices(&self) -> Vec<String> {
        locked(&self.interview).notices().to_vec()
    }
}

/// An elicited metric (read from a result, a run's truth, or
/// `{"procedure": …, "metric": …}`) for scoring and deciding.
#[pyclass(module = "metric_elicitation._native")]
struct NativeMetric {
    metric: Metric,
}

/// Labels as class codes, checked (non-negative), named `what`.
fn codes(py: Python<'_>, a: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<usize>> {
    a.as_array()
        .iter()
        .enumerate()
        .map(|(r, &v)| {
            usize::try_from(v).map_err(|_| {
                to_py(
                    py,
                    &Error::invalid(what, format!("row {r}: {v} is not a class code (0, 1, …)")),
                )
            })
        })
        .collect()
}

#[pymethods]
impl NativeMetric {
    /// Reads the metric of a result JSON (see `Metric::from_result`).
    #[new]
    fn new(py: Python<'_>, result_json: &str) -> PyResult<Self> {
        let value: Value = serde_json::from_str(result_json)
            .map_err(|e| to_py(py, &Error::invalid("result", e.to_string())))?;
        let metric = Metric::from_result(&value).map_err(|e| to_py(py, &e))?;
        Ok(NativeMetric { metric })
    }

    /// Its family ("diagonal", "binary-linear", …).
    fn family(&self) -> &'static str {
        self.metric.family()
    }

    /// Whether it is a cost (smaller is better).
    fn is_cost(&self) -> bool {
        self.metric.is_cost()
    }

    /// The number of classes its weights are for.
    fn classes(&self) -> Option<usize> {
        self.metric.classes()
    }

    /// The number of groups it weighs (fair metrics).
    fn groups(&self) -> Option<usize> {
        self.metric.groups()
    }

    /// The statistic it reads, as a phrase.
    fn statistic(&self, k: usize) -> String {
        self.metric.statistic().describe(k)
    }

    /// Its value (a cost for costs) on each classifier of `predictions`
    /// (name, predicted class per row) against `labels` and optional
    /// `groups`, in input order.
    #[pyo3(signature = (predictions, labels, groups=None))]
    fn values(
        &self,
        py: Python<'_>,
        predictions: Vec<(String, PyReadonlyArray1<'_, i64>)>,
        labels: PyReadonlyArray1<'_, i64>,
        groups: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<Vec<f64>> {
        let labels = codes(py, &labels, "y_true")?;
        let groups = groups.map(|g| codes(py, &g, "groups")).transpose()?;
        let predictions = predictions
            .iter()
            .map(|(n, p)| Ok((n.clone(), codes(py, p, "y_pred")?)))
            .collect::<PyResult<Vec<_>>>()?;
        let metric = self.metric.clone();
        py.detach(move || {
            let k = metric
                .classes()
                .unwrap_or_else(|| labels.iter().max().map_or(2, |m| m + 1));
            let pool = PoolStatistics::with_classes(k, &predictions, &labels, groups.as_deref())?;
            rank::check(&metric, &pool)?;
            pool.classifiers
                .iter()
                .map(|c| metric.value(c, &pool))
                .collect::<metric_elicitation::error::Result<Vec<f64>>>()
        })
        .map_err(|e| to_py(py, &e))
    }

    /// The gain matrix G (k×k) of a linear metric and whether it weighs
    /// rates: the metric's utility is Σᵢⱼ G_ij·C_ij over the joint
    /// confusion C (over the rates C_ij/πᵢ when the second value is true),
    /// so the Bayes-optimal classifier predicts argmaxⱼ Σᵢ G_ij ηᵢ(x)
    /// (ηᵢ(x)/πᵢ). `None` for a metric that is not linear in the confusion.
    fn gain_matrix<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray2<f64>>, bool)> {
        let sign = if self.metric.is_cost() { -1.0 } else { 1.0 };
        let (g, rates) = if let Some(lpm) = self.metric.get::<Lpm<f64>>() {
            (
                DMatrix::from_row_slice(2, 2, &[lpm.m00, 0.0, 0.0, lpm.m11]),
                false,
            )
        } else if let Some(on) = self.metric.get::<rank::On<Linear<f64>>>() {
            let k = on.metric().0.len();
            let statistic = on.statistic();
            let classes = statistic.classes(k)?;
            let w = &on.metric().0;
            let mut g = DMatrix::zeros(classes, classes);
            if statistic.diagonal() {
                for i in 0..classes {
                    g[(i, i)] = w[i];
                }
            } else {
                let mut n = 0;
                for i in 0..classes {
                    for j in 0..classes {
                        if i != j {
                            g[(i, j)] = w[n];
                            n += 1;
                        }
                    }
                }
            }
            (g, statistic.rates())
        } else {
            return None;
        };
        let rows: Vec<Vec<f64>> = (0..g.nrows())
            .map(|i| (0..g.ncols()).map(|j| sign * g[(i, j)]).collect())
            .collect();
        Some((PyArray2::from_vec2(py, &rows).ok()?, rates))
    }

    /// The value on a joint confusion matrix (k×k, C_ij = P(Y = i, h = j)),
    /// and optionally one per group with τ, for the fair metrics.
    #[pyo3(signature = (confusion, group_confusions=None, tau=None))]
    fn value_of_confusion(
        &self,
        py: Python<'_>,
        confusion: PyReadonlyArray2<'_, f64>,
        group_confusions: Option<Vec<PyReadonlyArray2<'_, f64>>>,
        tau: Option<Vec<Vec<f64>>>,
    ) -> PyResult<f64> {
        let matrix = |a: &PyReadonlyArray2<'_, f64>, what: &str| -> PyResult<DMatrix<f64>> {
            let v = a.as_array();
            let (r, c) = v.dim();
            if r != c || r < 2 {
                return Err(to_py(
                    py,
                    &Error::invalid(
                        what,
                        format!("a confusion matrix is k×k with k ≥ 2, got {r}×{c}"),
                    ),
                ));
            }
            if let Some(x) = v.iter().find(|x| !x.is_finite() || **x < 0.0) {
                return Err(to_py(
                    py,
                    &Error::invalid(what, format!("{x} is not a probability")),
                ));
            }
            Ok(DMatrix::from_fn(r, c, |i, j| v[[i, j]]))
        };
        let joint = matrix(&confusion, "confusion")?;
        let groups = group_confusions
            .unwrap_or_default()
            .iter()
            .map(|g| matrix(g, "group_confusions"))
            .collect::<PyResult<Vec<_>>>()?;
        let k = joint.nrows();
        let m = groups.len().max(1);
        let pool = PoolStatistics {
            classes: k,
            groups: m,
            tau: tau.unwrap_or_else(|| vec![vec![1.0; k]]),
            classifiers: vec![rank::ClassifierStatistics {
                name: "confusion".into(),
                confusion: joint,
                group_confusions: groups,
                attributes: Vec::new(),
            }],
        };
        rank::check(&self.metric, &pool)
            .and_then(|()| self.metric.value(&pool.classifiers[0], &pool))
            .map_err(|e| to_py(py, &e))
    }
}

/// The statistic names a metric can read (for messages and stubs).
#[pyfunction]
fn statistics() -> Vec<String> {
    [
        Statistic::JointDiagonal,
        Statistic::JointOffDiagonal,
        Statistic::RatesDiagonal,
        Statistic::RatesOffDiagonal,
    ]
    .iter()
    .map(|s| s.describe(3))
    .collect()
}

/// d·log₂(1/ε)/(1 − H(p)): about how many answers d free parameters need
/// to ε when each answer is wrong with probability p
/// (`elicit::bayes::information_bound`); `SpecError` naming `d`, `eps` or
/// `p` outside d ≥ 1, 0 < ε ≤ 1, 0 ≤ p ≤ ½.
#[pyfunction]
#[pyo3(signature = (d, eps, p=0.0))]
fn information_bound(py: Python<'_>, d: usize, eps: f64, p: f64) -> PyResult<f64> {
    metric_elicitation::elicit::bayes::information_bound(d, &eps, &p).map_err(|e| to_py(py, &e))
}

/// The fewest questions, on average, any procedure needs with exact
/// answers to stop at a credible ball of chord radius ε at `level` when
/// the metric is a unit vector of any sign in q coordinates with a uniform
/// prior (`elicit::bayes::sphere_bound`); `SpecError` naming the field
/// for bad input.
#[pyfunction]
#[pyo3(signature = (q, eps, level=0.95))]
fn sphere_bound(py: Python<'_>, q: usize, eps: f64, level: f64) -> PyResult<f64> {
    metric_elicitation::elicit::bayes::sphere_bound(q, &eps, &level).map_err(|e| to_py(py, &e))
}

/// The fewest questions, on average, any procedure needs with exact
/// answers to stop at a credible ε in max |Δw| when the metric is `parts`
/// non-negative weights summing to one with a uniform prior (DLPM,
/// cost/reward; `elicit::bayes::simplex_bound`); `SpecError` naming the
/// field for bad input.
#[pyfunction]
#[pyo3(signature = (parts, eps, level=0.95))]
fn simplex_bound(py: Python<'_>, parts: usize, eps: f64, level: f64) -> PyResult<f64> {
    metric_elicitation::elicit::bayes::simplex_bound(parts, &eps, &level).map_err(|e| to_py(py, &e))
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Long searches (the sphere search on a large dataset) report progress
    // through the `log` facade: forwarded to Python's `logging`, logger
    // "metric_elicitation.sphere", level INFO. Only this library's records
    // at INFO and above and other crates' warnings cross (microlp's
    // per-solve debug records would take the GIL on every worker), and
    // Python's levels are read at each record, not cached, so a
    // `logging.basicConfig` after the first record still applies.
    if let Ok(logger) = pyo3_log::Logger::new(m.py(), pyo3_log::Caching::Loggers) {
        let _ = logger
            .filter(log::LevelFilter::Warn)
            .filter_target("metric_elicitation".into(), log::LevelFilter::Info)
            .install();
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(check_spec, m)?)?;
    m.add_function(wrap_pyfunction!(procedures, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(run_specs, m)?)?;
    m.add_function(wrap_pyfunction!(statistics, m)?)?;
    m.add_function(wrap_pyfunction!(information_bound, m)?)?;
    m.add_function(wrap_pyfunction!(sphere_bound, m)?)?;
    m.add_function(wrap_pyfunction!(simplex_bound, m)?)?;
    m.add_class::<NativeSession>()?;
    m.add_class::<NativeQuestion>()?;
    m.add_class::<NativeMetric>()?;
    Ok(())
}
