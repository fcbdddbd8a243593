//! The adapter of a procedure: what the spec driver (`run`, `ask`,
//! `replay`, `rank`) needs to know about an elicitation algorithm beyond
//! the algorithm itself ([`crate::elicit::Elicitation`]).
//!
//! An adapter is
//! * its **fields**: the spec's own top-level fields
//!   ([`crate::driver::spec::Spec::settings`], unknown fields rejected),
//!   read with their defaults in one place ([`Adapter::new`]) into the
//!   algorithm's typed, validated settings, together with the shared
//!   search settings ([`Search`]) and the population (built by
//!   [`crate::driver::build`]);
//! * the **truth** of a simulated oracle, read from the spec's
//!   `oracle.metric` and checked against the family's assumptions: any
//!   [`Metric`] over the algorithm's points ([`Adapter::truth`]);
//! * the **report** on an estimate ([`Report`]: the elicited metric, what
//!   the answers left undecided, warnings, the error against a known
//!   truth) and the **view** of a query point for a person ([`View`]).
//!
//! A procedure's family ([`Family`]) also says how `elicit rank` reads its
//! result ([`Family::RANK`]).
//!
//! Sessions, transcripts, budgets, adversaries and precision dispatch are
//! written once, generically, in [`crate::driver::session`]; a procedure is
//! an algorithm module under `src/elicit/`, an adapter under
//! `src/driver/adapters/` and one line in [`crate::driver::registry`].

use crate::diagnostics::Warning;
use crate::driver::present::{Names, Panel, Shape, Summary};
use crate::driver::spec::PopulationSpec;
use crate::elicit::{Elicitation, Search};
use crate::error::Result;
use crate::oracle::Metric;
use crate::scalar::Scalar;
use crate::search::Strategy;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// How a query point is shown to a person: a title line and rows, printed
/// side by side for the two classifiers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct View {
    /// What the rows show (e.g. "% of all cases; rows: actual class").
    pub title: String,
    /// One line per row.
    pub rows: Vec<String>,
}

/// What an adapter reports about an estimate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The elicited metric, readable (`f64`), in the shape of the spec's
    /// `oracle.metric` (a list of numbers or a table).
    pub elicited: Value,
    /// The same, lossless: every number as the text
    /// [`crate::scalar::Backend::encode`] writes.
    pub elicited_exact: Value,
    /// The elicited metric in words, with named terms
    /// (e.g. `0.41·TP + 0.91·TN`).
    pub words: String,
    /// The set of metrics consistent with the answers (per face, angle or
    /// part), or `Value::Null` when not tracked.
    pub consistent: Value,
    /// Why that set is wider than ε, where it is.
    pub warnings: Vec<Warning>,
    /// The hidden metric, normalized as the estimate is, when known.
    pub truth: Option<Value>,
    /// The procedure's error measure against the truth (named in
    /// [`Adapter::ERROR`]), when known.
    pub error: Option<f64>,
    /// Procedure-specific details (per-face m̂, queries per part, …).
    pub details: Map<String, Value>,
}

/// A point of an adapter's algorithm.
pub type Point<T, A> = <<A as Adapter<T>>::Algorithm as Elicitation<T>>::Point;

/// An estimate of an adapter's algorithm.
pub type Estimate<T, A> = <<A as Adapter<T>>::Algorithm as Elicitation<T>>::Estimate;

/// A procedure's adapter at precision `T`: its algorithm with what the
/// driver needs to build it from a spec and to present it. See the module
/// docs.
pub trait Adapter<T: Scalar>: Sized + Send + Sync + 'static {
    /// The spec's own top-level fields. Deserialize with
    /// `#[serde(deny_unknown_fields)]`, every field optional (its default
    /// is set in [`Adapter::new`]).
    type Fields: DeserializeOwned;
    /// The typed algorithm.
    type Algorithm: Elicitation<T>;
    /// The hidden metric of a simulated oracle.
    type Truth: Metric<Point<T, Self>, Value = T> + Send;

    /// The error measure of [`Report::error`], e.g. `"max |a - a^|"`.
    const ERROR: &'static str;

    /// Whether the procedure searches for a single optimum in its query
    /// space, so that [`Adapter::distance`] is defined and the push-away
    /// adversary can run (false by default: push-away is then refused up
    /// front).
    const SINGLE_OPTIMUM: bool = false;

    /// The strategy when the spec names none: golden section, the fewest
    /// queries at the papers' accuracy among the strategies that are exact
    /// for every unimodal search. Procedures whose searches are exactly
    /// symmetric (`lpme`, `lpm`) override it with bisection; those only
    /// nearly symmetric (QPME, fair QPME, cubic: a shift
    /// [`Strategy::Bisection`] bounds) keep golden section by default and
    /// accept bisection when named.
    fn default_strategy() -> Strategy {
        Strategy::Golden
    }

    /// Builds the algorithm from the spec's fields (defaults set here), the
    /// shared search settings and the population, validating all three.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming the field, or the
    /// population's error; a population of the wrong kind is
    /// [`PopulationSpec::unsupported`].
    fn new(fields: Self::Fields, search: Search<T>, population: &PopulationSpec) -> Result<Self>;

    /// The typed algorithm.
    fn algorithm(&self) -> &Self::Algorithm;

    /// The hidden metric from the spec's `oracle.metric`, checked against
    /// the family's assumptions.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming `oracle.metric…`, or
    /// [`crate::Error::Assumption`] naming the violated condition.
    fn truth(&self, metric: &Value) -> Result<Self::Truth>;

    /// The distance of a point from the truth's optimum in the query space,
    /// for the push-away adversary; `None` when the procedure has no single
    /// optimum (e.g. one per face), and push-away is then refused.
    fn distance(&self, _truth: &Self::Truth, _point: &Point<T, Self>) -> Option<T> {
        None
    }

    /// The report on an estimate, with the error against `truth` when known.
    fn report(&self, estimate: &Estimate<T, Self>, truth: Option<&Self::Truth>) -> Report;

    /// The length of a simulated oracle's `metric` list for a population
    /// of `classes` classes, where the procedure knows it from k alone
    /// (checked before the population is built, so that a wrong list costs
    /// no time); `None` by default.
    fn metric_length(_classes: usize) -> Option<usize> {
        None
    }

    /// What the population says against any metric elicited on it (a
    /// labelled sample whose probabilities do not describe its labels),
    /// reported after the procedure's own warnings; none by default.
    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        Vec::new()
    }

    /// How a query point is shown to a person.
    fn view(&self, point: &Point<T, Self>) -> View;

    /// How many classes and groups the questions show (for naming them
    /// from the spec's `[task]`); none by default.
    fn shape(&self) -> Shape {
        Shape::default()
    }

    /// A query point in the task's words ([`Panel`]: counts out of 100 or
    /// 1000 cases, class and group names); `None` (the default) falls back
    /// to [`Adapter::view`].
    fn panel(&self, _point: &Point<T, Self>, _names: &Names) -> Option<Panel> {
        None
    }

    /// The elicited metric as a metric over the procedure's points, for
    /// check questions (its answer on a pair is compared with the
    /// person's); `None` by default, and when the estimate is not a metric
    /// of the family.
    fn elicited_metric(&self, _estimate: &Estimate<T, Self>) -> Option<Self::Truth> {
        None
    }

    /// The elicited metric for a person: a sentence in the task's words,
    /// what the answers left undetermined, a picture; `None` by default.
    fn summary(&self, _estimate: &Estimate<T, Self>, _names: &Names) -> Option<Summary> {
        None
    }

    /// Whether the elicitation ended because its own consistency checks
    /// went against the answers (the Bayesian engine's
    /// [`crate::elicit::bayes::Stop::Contradicted`]): it presents no
    /// metric, and the session asks no check questions after it. `false`
    /// by default (the papers' searches have no such end).
    fn contradicted(&self, _estimate: &Estimate<T, Self>) -> bool {
        false
    }
}

/// A procedure at every precision: `At<T>` is its adapter at `T`. This is
/// what the registry holds, so that precision dispatch is written once.
pub trait Family {
    /// The spec name (`procedure = "…"`).
    const NAME: &'static str;
    /// One line on what it elicits and from which paper.
    const SUMMARY: &'static str;
    /// How `elicit rank` reads this procedure's result as a metric to rank
    /// classifiers by (the family's metric type at `f64`), or why the
    /// result cannot rank ([`crate::driver::rank`]). Every family says
    /// one or the other.
    const RANK: crate::driver::rank::Rankability;
    /// The adapter at precision `T`.
    type At<T: Scalar>: Adapter<T>;
    /// The engine behind it (`engine = …` in the spec): the papers'
    /// searches by default.
    const ENGINE: crate::driver::spec::Engine = crate::driver::spec::Engine::Search;
    /// Whether a spec that names no engine gets this one when its oracle
    /// prefers [`Family::ENGINE`] ([`crate::driver::spec::Spec::default_engine`]);
    /// false for an engine given only when named.
    const BY_DEFAULT: bool = true;
}

/// A scalar as a JSON number (readable; `f64`).
pub fn lossy<T: Scalar>(x: &T) -> Value {
    Value::from(x.to_f64_lossy())
}

/// A scalar as lossless text ([`crate::scalar::Backend::encode`]).
pub fn exact<T: Scalar>(x: &T) -> Value {
    Value::from(x.encode())
}

/// Scalars as `f64`s for showing them (rounded; never fed back to an
/// algorithm).
pub fn f64s<'a, T: Scalar + 'a>(xs: impl IntoIterator<Item = &'a T>) -> Vec<f64> {
    xs.into_iter().map(T::to_f64_lossy).collect()
}
/// A list of scalars as JSON numbers.
pub fn lossy_list<'a, T: Scalar + 'a>(xs: impl IntoIterator<Item = &'a T>) -> Value {
    Value::Array(xs.into_iter().map(lossy).collect())
}

/// A list of scalars as lossless text.
pub fn exact_list<'a, T: Scalar + 'a>(xs: impl IntoIterator<Item = &'a T>) -> Value {
    Value::Array(xs.into_iter().map(exact).collect())
}

/// A named-field table of scalars, as (readable, lossless) JSON objects.
pub fn table<'a, T: Scalar + 'a>(
    fields: impl IntoIterator<Item = (&'a str, &'a T)>,
) -> (Value, Value) {
    let (mut readable, mut lossless) = (Map::new(), Map::new());
    for (name, v) in fields {
        readable.insert(name.to_string(), lossy(v));
        lossless.insert(name.to_string(), exact(v));
    }
    (Value::Object(readable), Value::Object(lossless))
}

/// A linear form in words: `0.41·TP + 0.91·TN` (four significant digits,
/// terms with a zero weight left out).
pub fn linear_words<'a, T: Scalar + 'a>(
    terms: impl IntoIterator<Item = (String, &'a T)>,
) -> String {
    let mut out = String::new();
    for (name, w) in terms {
        let w = w.to_f64_lossy();
        if w == 0.0 {
            continue;
        }
        let sign = if w < 0.0 { "−" } else { "+" };
        if out.is_empty() {
            if w < 0.0 {
                out.push('−');
            }
        } else {
            out.push_str(&format!(" {sign} "));
        }
        out.push_str(&format!("{}·{name}", significant(w.abs())));
    }
    if out.is_empty() {
        "0".into()
    } else {
        out
    }
}

/// A positive number to four significant digits, without trailing zeros.
pub fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{x:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}
