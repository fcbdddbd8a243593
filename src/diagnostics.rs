//! Diagnostics an estimate carries: [`Warning`]s, each with a stable
//! [`Cause`], saying what the answers could not decide and why. The ground
//! floor of the crate: the geometry, the searches and every procedure
//! report through them.

use serde::Serialize;

/// Why an elicited metric is less certain than the tolerance ε promises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Cause {
    /// The oracle's optimum on a face or boundary is a vertex (a trivial
    /// classifier): every parameter on one side gives the same classifier,
    /// so the metric's ratio there is only bounded, not identified.
    VertexOptimum,
    /// Distinct queries had equal value (ties, e.g. the plateaus of a finite
    /// sample), so the answers could not locate the optimum within ε.
    Plateau,
    /// The reference weight of a ratio is too small to be resolved at this ε
    /// (the consistent set reaches a zero reference weight).
    SmallReference,
    /// The answers contradict every metric of the family (a noisy oracle
    /// answered against itself).
    Contradictory,
    /// The working precision was reached before ε.
    Resolution,
    /// A parameter the answers cannot determine at all (e.g. a direction
    /// along which every metric of the family answers alike).
    Unidentifiable,
    /// A computation whose result is dominated by rounding or estimation
    /// error (a tiny divisor).
    IllConditioned,
    /// The population makes every classifier nearly a mixture of trivial
    /// ones (its boundary is flat at the scale of ε), so its classifiers
    /// barely tell metrics apart.
    DegeneratePopulation,
    /// The estimate lies outside the family's assumptions (e.g. negative
    /// weights of a fair metric from noisy answers); reported, not clipped.
    OutsideFamily,
    /// A labelled sample's class probabilities do not describe its labels
    /// ([`crate::population::calibration`]), so the classifiers asked about
    /// (built from the probabilities) need not be the best for any metric
    /// on the labels' confusions.
    Miscalibrated,
}

impl Cause {
    /// The stable code, as results and `docs/spec.md` write it (e.g.
    /// `"plateau"`).
    pub fn code(self) -> &'static str {
        match self {
            Cause::VertexOptimum => "vertex-optimum",
            Cause::Plateau => "plateau",
            Cause::SmallReference => "small-reference",
            Cause::Contradictory => "contradictory",
            Cause::Resolution => "resolution",
            Cause::Unidentifiable => "unidentifiable",
            Cause::IllConditioned => "ill-conditioned",
            Cause::DegeneratePopulation => "degenerate-population",
            Cause::OutsideFamily => "outside-family",
            Cause::Miscalibrated => "miscalibrated",
        }
    }

    /// Whether a warning of this cause means that the answers (or the
    /// data) leave the metric undetermined at the requested ε, so that the
    /// estimate is one of the metrics they allow and not *the* metric.
    ///
    /// The set of metrics consistent with the answers is wider than ε
    /// (`plateau`, `vertex-optimum`, `small-reference`, `unidentifiable`,
    /// `degenerate-population`), the sample's classifiers
    /// need not be optimal for any metric (`miscalibrated`), or the estimate is
    /// determined only to more than ε (`ill-conditioned`). Answers that
    /// contradict every metric of the family (`contradictory`,
    /// `outside-family`) leave it undetermined unless the oracle declares
    /// its noise (`declared_noise`: a simulated ε_Ω band, whose adversary
    /// is expected to contradict itself and whose estimate keeps the noise
    /// bound); from an exact oracle on a finite sample, or from a person,
    /// they mean no metric of the family explains the answers. Reaching
    /// the working precision (`resolution`) determines the metric as far
    /// as the precision can.
    pub fn undetermines(self, declared_noise: bool) -> bool {
        match self {
            Cause::VertexOptimum
            | Cause::Plateau
            | Cause::SmallReference
            | Cause::Unidentifiable
            | Cause::IllConditioned
            | Cause::DegeneratePopulation
            | Cause::Miscalibrated => true,
            Cause::Contradictory | Cause::OutsideFamily => !declared_noise,
            Cause::Resolution => false,
        }
    }
}

/// A note attached to an estimate: what the answers could not decide, and
/// why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The cause, as a stable code.
    pub cause: Cause,
    /// One line naming the place (face, angle, parameter) and the values.
    pub message: String,
}

impl Warning {
    /// A warning with `cause` and `message`.
    pub fn new(cause: Cause, message: impl Into<String>) -> Self {
        Warning {
            cause,
            message: message.into(),
        }
    }
}

/// The Wilson score interval (95 %) of a proportion `k` of `n`; `None`
/// when `n` is 0.
///
/// # Examples
/// ```
/// use metric_elicitation::diagnostics::wilson;
/// let (lo, hi) = wilson(0, 5).unwrap();
/// assert!(lo == 0.0 && (hi - 0.4345).abs() < 1e-4);
/// assert_eq!(wilson(3, 0), None);
/// ```
pub fn wilson(k: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.959_964f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    Some(((c - h).max(0.0), (c + h).min(1.0)))
}

/// The lowest rate of disagreement with the elicited metric that check
/// answers call contradictory: their 95 % Wilson interval lies above it
/// (twice the one answer in ten of the published user study). 3 or more
/// of 5 check answers disagreeing are contradictory; a person erring one
/// time in ten is so called with probability 0.009.
pub const CHECKS_CONTRADICT: f64 = 0.2;

/// Whether check answers (`disagree` of `judged` strict answers against
/// the elicited metric) contradict it: the 95 % Wilson interval of the
/// disagreement rate lies above [`CHECKS_CONTRADICT`].
///
/// # Examples
/// ```
/// use metric_elicitation::diagnostics::checks_contradict;
/// assert!(checks_contradict(3, 5) && !checks_contradict(2, 5));
/// ```
pub fn checks_contradict(disagree: usize, judged: usize) -> bool {
    wilson(disagree, judged).is_some_and(|(lo, _)| lo > CHECKS_CONTRADICT)
}

/// Whether check answers judged so far decide nothing yet: the 95 %
/// Wilson interval of the disagreement rate neither lies above
/// [`CHECKS_CONTRADICT`] (contradictory) nor below 1/2 (the person
/// follows the elicited metric better than a coin). No judged answer
/// decides nothing either, but more checks would not help: false.
///
/// # Examples
/// ```
/// use metric_elicitation::diagnostics::checks_undecided;
/// assert!(!checks_undecided(0, 5) && checks_undecided(1, 5) && !checks_undecided(0, 0));
/// ```
pub fn checks_undecided(disagree: usize, judged: usize) -> bool {
    wilson(disagree, judged).is_some_and(|(lo, hi)| lo <= CHECKS_CONTRADICT && hi >= 0.5)
}
