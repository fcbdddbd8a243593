//! The crate's one error type.

use thiserror::Error as ThisError;

/// Everything that can go wrong in this crate, as a value.
///
/// Bad input (ε ≤ 0, NaN weights, reversed intervals, a truncated transcript)
/// becomes one of these variants with a message naming what is wrong; no
/// public function panics on user input.
#[derive(Debug, Clone, PartialEq, ThisError)]
#[non_exhaustive]
pub enum Error {
    /// The search tolerance ε was not a finite number greater than zero.
    #[error("epsilon must be a finite number > 0, got {value}")]
    InvalidEpsilon {
        /// The value given, as text.
        value: String,
    },
    /// The oracle noise level ε_Ω was negative or not finite.
    #[error("eps_omega must be a finite number >= 0, got {value}")]
    InvalidNoise {
        /// The value given, as text.
        value: String,
    },
    /// A search interval that is empty, reversed, or has a non-finite end.
    #[error("search interval [{lo}, {hi}] must satisfy lo < hi with both ends finite")]
    InvalidInterval {
        /// Lower end, as text.
        lo: String,
        /// Upper end, as text.
        hi: String,
    },
    /// A metric evaluated to NaN or ±∞ at a query point.
    #[error("the metric is not finite at a query point (value {value})")]
    NonFiniteMetric {
        /// The value obtained, as text.
        value: String,
    },
    /// The oracle (a person) stopped answering.
    #[error("the oracle stopped answering: {reason}")]
    OracleStopped {
        /// Why (quit, end of input).
        reason: String,
    },
    /// A query budget of zero was requested.
    #[error("a query budget must allow at least one query, got 0")]
    ZeroBudget,
    /// The query budget ran out.
    #[error("query budget of {budget} exhausted")]
    BudgetExhausted {
        /// The budget that was set.
        budget: usize,
    },
    /// A scripted adversary has no answers left.
    #[error("scripted adversary ran out of answers after {used} in-band answers")]
    ScriptExhausted {
        /// In-band answers already given from the script.
        used: usize,
    },
    /// A replayed transcript has fewer answers than the procedure asks for.
    #[error("transcript ended after {answered} answers but the procedure asked another query")]
    TranscriptExhausted {
        /// Answers the transcript supplied.
        answered: usize,
    },
    /// A replayed transcript recorded a different query than the one asked.
    #[error("transcript does not match at query {index}: recorded {recorded}, asked {asked}")]
    TranscriptMismatch {
        /// Zero-based index of the first mismatching query.
        index: usize,
        /// The recorded pair.
        recorded: String,
        /// The pair the procedure asked.
        asked: String,
    },
    /// A transcript line could not be read.
    #[error("malformed transcript line {line}: {reason}")]
    MalformedTranscript {
        /// One-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Text that should be a number is not.
    #[error("cannot parse {text:?} as {what}")]
    Parse {
        /// The type expected.
        what: String,
        /// The offending text.
        text: String,
    },
    /// A procedure was stopped by its oracle (budget, exhausted script or
    /// transcript, a person quitting); `progress` says how far it got.
    #[error("{procedure} stopped after {queries} queries ({progress}): {source}")]
    Interrupted {
        /// The procedure that was running.
        procedure: String,
        /// Queries answered before the stop.
        queries: usize,
        /// The state reached, e.g. the current search interval.
        progress: String,
        /// Why it stopped.
        source: Box<Error>,
    },
    /// A specification file that does not parse.
    #[error("spec {path}: {reason}")]
    Spec {
        /// The file.
        path: String,
        /// What is wrong, with its line and column where known.
        reason: String,
    },
    /// An argument outside the domain the procedure accepts.
    #[error("invalid {name}: {reason}")]
    InvalidArgument {
        /// The argument's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A computation whose answer would be dominated by rounding: a divisor,
    /// pivot or coordinate in a ratio is (numerically) zero.
    #[error("ill-conditioned {what}: {detail}")]
    IllConditioned {
        /// The quantity that could not be computed reliably.
        what: String,
        /// Why, with the offending values.
        detail: String,
    },
    /// A metric outside the assumptions of the family a procedure elicits.
    #[error("metric violates {assumption}: {detail}")]
    Assumption {
        /// The assumption, named as in the paper (e.g. "003 Assumption 2").
        assumption: String,
        /// The violated condition with the values involved.
        detail: String,
    },
    /// Reading or writing a file failed.
    #[error("I/O error on {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// The innermost cause: for [`Error::Interrupted`], the error that
    /// stopped the procedure; otherwise `self`.
    pub fn root_cause(&self) -> &Error {
        match self {
            Error::Interrupted { source, .. } => source.root_cause(),
            other => other,
        }
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
