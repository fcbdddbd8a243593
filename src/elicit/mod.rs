//! Elicitation procedures, one module per family of the papers.
//!
//! * [`binary`] — 003: Alg. 1 and 2 (boundary search), LPM elicitation
//!   (§5.1, App. C), LFPM elicitation (§5.2: Prop. 4, Alg. 3, Cor. 1), and
//!   the constants of Thm. 2;
//! * [`multiclass`] — 002: DLPM (Alg. 1) and LPM (Alg. 2) elicitation;
//! * [`lpme`] — the general sphere LPME subroutine (001/000 App. A);
//! * [`fpme`] — 001: fair metric elicitation (Alg. 1 with Alg. 4);
//! * [`qpme`] — 000: quadratic metrics (Alg. 1, App. E), on
//!   [`gradient_fit`] (the joint fit of a gradient field to LPME outputs);
//! * [`fair_qpme`] — 000: fair quadratic metrics (Alg. 4) and the
//!   trade-off alone (Alg. 5);
//! * [`cubic`] — 000 §8: cubic metrics, by a fit of their gradient field;
//! * [`quadratic_procedures`] — the 000 procedures behind [`procedure`];
//! * [`ratios`] — the ratio searches DLPM and cost/reward share (a weight
//!   at a time against a reference, with consistent boxes and warnings);
//! * [`cost_reward`] — 004: Alg. 1, cost and reward infused DLPM;
//! * [`procedure`] — the one interface every procedure implements.
//!
//! Every procedure returns, besides its estimate, what its answers left
//! undecided (the set of metrics consistent with them, built from the
//! searches' [`crate::search::Consistent`] intervals) and a list of
//! [`Warning`]s naming why that set is wider than ε, when it is.

pub mod binary;
pub mod cost_reward;
pub mod cubic;
pub mod fair_qpme;
pub mod fpme;
pub mod gradient_fit;
pub mod lpme;
pub mod multiclass;
pub mod procedure;
pub mod qpme;
pub mod quadratic_procedures;
pub mod ratios;
pub mod registry;

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
    /// ε is not smaller than the search intervals, so the searches barely
    /// narrow them.
    CoarseEpsilon,
    /// The population makes every classifier nearly a mixture of trivial
    /// ones (its boundary is flat at the scale of ε), so its classifiers
    /// barely tell metrics apart.
    DegeneratePopulation,
    /// The estimate lies outside the family's assumptions (e.g. negative
    /// weights of a fair metric from noisy answers); reported, not clipped.
    OutsideFamily,
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
