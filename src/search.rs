//! The one unimodal-search primitive: find the maximizer of a unimodal
//! function on an interval from pairwise comparisons only.
//!
//! Every procedure of the papers reduces to this search (003 Alg. 1–2,
//! 002 Alg. 1–2 "ShrinkInterval", 001 Fig. 6, 000 App. A). Four strategies:
//!
//! | strategy | queries per search | source |
//! |---|---|---|
//! | [`Strategy::Paper`] | exactly 4·⌈log₂(L/ε)⌉ | 003 Alg. 1 lines 6–12, 001 Fig. 6 |
//! | [`Strategy::Adaptive`] | 2 to 3 per halving, ⌈log₂(L/ε)⌉ halvings | 000 App. A, footnote 1 |
//! | [`Strategy::Golden`] | at most ⌈log_φ(L/ε)⌉ + 1 without ties | golden-section search |
//! | [`Strategy::Bisection`] | exactly ⌈log₂(L/ε)⌉, for functions symmetric about the maximizer | not in the papers |
//!
//! The comparison is Ω(x, y) = "x strictly preferred to y". With an exact
//! oracle and a strictly unimodal function the maximizer stays in the
//! returned interval, for every strategy. The halving strategies also
//! handle a plateau at either end of the interval (a quasiconcave function
//! that is flat below its peak, as φ along a boundary where thresholds
//! leave the range of η): ties on the left are resolved by the papers'
//! default order (003 Alg. 1 line 7), ties on the right agree with the
//! rules already. Golden section, with a single comparison per step, cannot
//! tell on which side of a plateau the peak lies: at the first tie
//! ("indifferent") it finishes with the adaptive halving. A binary oracle
//! that reports a tie as a strict answer hides plateaus from it, so golden
//! then assumes strict unimodality.
//!
//! # Noise
//! With ε_Ω-noisy answers (003 Def. 7) no guarantee in terms of ε_Ω alone is
//! possible for an arbitrary unimodal function (a plateau a hair below the
//! peak can hide it). For concave functions the returned interval contains a
//! point where f ≥ max f − c·ε_Ω; see `tests/suite/search_properties.rs` for the
//! constant c checked per strategy.

use crate::error::{Error, Result};
use crate::oracle::Preference;
use crate::scalar::Scalar;

/// How the interval is shrunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// ShrinkInterval exactly as in the papers: four queries per halving,
    /// Ω(c,a), Ω(d,c), Ω(e,d), Ω(b,e) at the quarter points, with the
    /// papers' default order for out-of-order answers (003 Alg. 1 line 7).
    Paper,
    /// The same halving, asking the same queries in the same order but
    /// never one whose answer cannot change the outcome: A1 never can (see
    /// [`Strategy::Paper`]'s line 7), A4 only when A3 is "no"; two or three
    /// queries per halving.
    Adaptive,
    /// Golden-section search: one new comparison per step, each step
    /// shrinking the interval by 1/φ ≈ 0.618; at the first tie it finishes
    /// with [`Strategy::Adaptive`]'s halving.
    Golden,
    /// Bisection for functions **symmetric about their maximizer**: one
    /// comparison per halving, Ω(e, c) at the quarter points c, e of
    /// [a, b], keeps the half on the preferred point's side of the
    /// midpoint d. ⌈log₂(L/ε)⌉ queries, the lower bound of 003 Lemma 2,
    /// against about 1.44 times that for [`Strategy::Golden`]. Not in the
    /// papers. A linear metric along one angle of LPME's sphere
    /// parametrization, the others fixed, is C + R·cos(θ − θ*), symmetric
    /// about θ* within ±π, so the searches of LPME and LPM on a linear
    /// oracle qualify (FPME's Part 3 search over λ does not, so FPME
    /// refuses it); a unimodal function that is not symmetric
    /// does not (the half kept can miss its maximizer), so procedures
    /// whose searches run along boundaries or faces refuse it.
    /// [`Outcome::consistent`] is then the set of maximizers of the
    /// symmetric functions that agree with the answers.
    ///
    /// A smooth metric on a *small* sphere (QPME's, 000 Alg. 1) is nearly
    /// symmetric: along a slice of radius s through a point with gradient
    /// g and Hessian B it is C + sR·cos(θ − θ₀) + ½s²S·cos 2(θ − θ₁), with R
    /// the slice plane's part of g and S ≤ ‖B‖₂. The comparison at d ± w
    /// then decides on which side of d the point θ_w lies where
    /// sin(θ − θ₀) + 2κ·cos w·sin 2(θ − θ₁) = 0 (κ = sS/2R), while the
    /// maximizer solves the same equation with cos w = 1; so each answer is
    /// that of a symmetric function whose maximizer is within
    /// κw²/(1 − 5κ) of the true one (κ < 1/5). The final estimate is
    /// within ε/2 of the maximizer plus that shift at the first quarter
    /// width w₀ = L/4 (at most 5·10⁻⁴ rad for ϱ‖B‖₂/R ≤ 10⁻², L = π/2), and
    /// only when the maximizer lies that close to a midpoint. Measured
    /// with exact oracles on QPME's small spheres (ϱ = 5·10⁻³, 300 random
    /// concave metrics per q = 2, 3, 5, 8, one reverse cycle at ε = 10⁻⁶):
    /// the direction error equals golden section's (the one-cycle floor of
    /// a non-linear metric, up to 9·10⁻⁴), and at q = 2, where there is no
    /// such floor, 3.9·10⁻⁷ against golden's 4.6·10⁻⁷.
    Bisection,
}

impl Strategy {
    /// The strategies for any unimodal function, for sweeps
    /// ([`Strategy::Bisection`] needs a symmetric one and is not among
    /// them).
    pub const ALL: [Strategy; 3] = [Strategy::Paper, Strategy::Adaptive, Strategy::Golden];

    /// Whether the strategy assumes a function symmetric about its
    /// maximizer ([`Strategy::Bisection`]).
    pub fn needs_symmetry(self) -> bool {
        self == Strategy::Bisection
    }

    /// The strategy's name as used in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Paper => "paper",
            Strategy::Adaptive => "adaptive",
            Strategy::Golden => "golden",
            Strategy::Bisection => "bisection",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "paper" => Ok(Strategy::Paper),
            "adaptive" => Ok(Strategy::Adaptive),
            "golden" => Ok(Strategy::Golden),
            "bisection" => Ok(Strategy::Bisection),
            other => Err(Error::invalid(
                "search",
                format!(
                    "unknown strategy {other:?} (expected paper, adaptive, golden or bisection)"
                ),
            )),
        }
    }
}

/// Why a search stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// The interval is no wider than ε.
    Converged,
    /// The backend cannot represent distinct interior points any more: the
    /// interval is as narrow as the working precision allows but still wider
    /// than ε. The returned interval is correct; ε was not reached.
    Resolution,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<T> {
    /// Final interval, lower end.
    pub lo: T,
    /// Final interval, upper end.
    pub hi: T,
    /// The estimate of the maximizer: the midpoint of the final interval.
    pub estimate: T,
    /// Comparisons asked.
    pub queries: usize,
    /// Interval halvings (Paper/Adaptive) or golden steps performed.
    pub steps: usize,
    /// Why the search stopped.
    pub stop: Stop,
    /// Where the maximizers of every unimodal function that agrees with all
    /// the answers lie ([`Consistent`]): the honest uncertainty, which is
    /// wider than [`Outcome::lo`]..[`Outcome::hi`] when ties ("indifferent")
    /// left the search's default order to decide.
    pub consistent: Consistent<T>,
    /// Answers that preferred neither point (ties between distinct probes).
    pub ties: usize,
}

/// The set of maximizer locations consistent with a search's answers.
///
/// Each strict answer between probes u < v says where no maximizer of a
/// unimodal (quasiconcave: non-decreasing, then non-increasing) function can
/// be: "u preferred" puts every maximizer below v, "v preferred" above u. A
/// tie says nothing (a plateau can lie on either side of the peak). The
/// intersection of these half-lines with the search interval is the set of
/// every maximizer of every unimodal function that gives the same answers;
/// with an exact oracle it always contains the true maximizers, plateaus
/// included.
#[derive(Debug, Clone, PartialEq)]
pub enum Consistent<T> {
    /// Every maximizer lies in [lo, hi].
    Interval {
        /// Lower end.
        lo: T,
        /// Upper end.
        hi: T,
    },
    /// No unimodal function gives these answers (a noisy oracle answered
    /// against itself); the strict answers imply a maximizer above `above`
    /// and below `below` < `above`.
    Contradictory {
        /// The largest lower limit implied.
        above: T,
        /// The smallest upper limit implied.
        below: T,
    },
}

impl<T: Scalar> Consistent<T> {
    /// The interval's width, or `None` when the answers contradict each
    /// other.
    pub fn width(&self) -> Option<T> {
        match self {
            Consistent::Interval { lo, hi } => Some(hi.clone() - lo.clone()),
            Consistent::Contradictory { .. } => None,
        }
    }

    /// Whether `x` lies in the consistent interval.
    pub fn contains(&self, x: &T) -> bool {
        match self {
            Consistent::Interval { lo, hi } => lo <= x && x <= hi,
            Consistent::Contradictory { .. } => false,
        }
    }

    /// The bounds (lo, hi) implied, crossed (lo > hi) when contradictory.
    pub fn bounds(&self) -> (T, T) {
        match self {
            Consistent::Interval { lo, hi } => (lo.clone(), hi.clone()),
            Consistent::Contradictory { above, below } => (above.clone(), below.clone()),
        }
    }
}

/// Validates a tolerance ε: finite and strictly positive.
///
/// # Errors
/// [`Error::InvalidEpsilon`].
pub fn check_epsilon<T: Scalar>(eps: &T) -> Result<()> {
    if eps.finite() && *eps > T::int(0) {
        Ok(())
    } else {
        Err(Error::InvalidEpsilon {
            value: eps.to_string(),
        })
    }
}

/// A search tolerance ε: finite and strictly positive, validated once when
/// built ([`Tolerance::new`]) and carried by every typed setting down to
/// the searches, so no layer checks it again.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// let eps = Tolerance::new(0.01).unwrap();
/// assert_eq!(*eps, 0.01);
/// assert_eq!(*eps.scaled(1, 4), 0.0025);
/// assert!(Tolerance::new(f64::NAN).is_err());
/// assert!(Tolerance::new(-1.0).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tolerance<T>(T);

impl<T: Scalar> Tolerance<T> {
    /// ε, checked by [`check_epsilon`].
    ///
    /// # Errors
    /// [`Error::InvalidEpsilon`].
    pub fn new(eps: T) -> Result<Self> {
        check_epsilon(&eps)?;
        Ok(Tolerance(eps))
    }

    /// ε·n/d for positive integers n and d (a finer or coarser tolerance
    /// derived from a valid one, e.g. the ε/4 of the efficient settings).
    ///
    /// # Panics
    /// When n or d is not positive (a programming error: the ratios are
    /// constants of the algorithms).
    pub fn scaled(&self, n: i64, d: i64) -> Self {
        assert!(n > 0 && d > 0, "a tolerance is scaled by a positive ratio");
        Tolerance(self.0.clone() * T::ratio(n, d))
    }

    /// The value.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The value, by move.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Tolerance<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Validates an interval: both ends finite and lo < hi.
///
/// # Errors
/// [`Error::InvalidInterval`].
pub fn check_interval<T: Scalar>(lo: &T, hi: &T) -> Result<()> {
    if lo.finite() && hi.finite() && lo < hi {
        Ok(())
    } else {
        Err(Error::InvalidInterval {
            lo: lo.to_string(),
            hi: hi.to_string(),
        })
    }
}

/// Finds the maximizer of a unimodal function on `[lo, hi]` to width `eps`,
/// asking only `prefers(x, y)` = "which of x, y is preferred?".
///
/// `prefers` returns a [`Preference`], or a `bool` read strictly (`true`:
/// x preferred, `false`: y preferred; a binary oracle that never reports
/// ties). Every strategy decides by the papers' binary reading
/// ([`Preference::prefers_first`]: a tie answers "no"); ties only widen
/// [`Outcome::consistent`].
///
/// To minimize, pass the comparison with its arguments swapped (003 Alg. 2:
/// "check C ≺ C′ whenever Algorithm 1 checks C ≻ C′").
///
/// # Errors
/// * [`Error::InvalidEpsilon`], [`Error::InvalidInterval`] for bad input;
/// * [`Error::Interrupted`] when `prefers` fails (budget, exhausted script,
///   non-finite metric…): it carries the queries asked and the interval
///   reached, and the failure as its source.
///
/// # Examples
/// ```
/// use metric_elicitation::search::{maximize, Stop, Strategy};
/// let f = |x: &f64| -(x - 0.3).powi(2);
/// let out = maximize(0.0, 1.0, 0.01, Strategy::Paper, |x, y| Ok(f(x) > f(y))).unwrap();
/// assert!(out.lo <= 0.3 && 0.3 <= out.hi);
/// assert!(out.consistent.contains(&0.3));
/// assert_eq!(out.queries, 4 * 7); // 4·⌈log2(1/0.01)⌉
/// assert_eq!(out.stop, Stop::Converged);
/// ```
pub fn maximize<T, F, R>(lo: T, hi: T, eps: T, strategy: Strategy, prefers: F) -> Result<Outcome<T>>
where
    T: Scalar,
    F: FnMut(&T, &T) -> Result<R>,
    R: Into<Preference>,
{
    check_epsilon(&eps)?;
    check_interval(&lo, &hi)?;
    let mut prefers = prefers;
    let mut state = State {
        a: lo.clone(),
        b: hi.clone(),
        steps: 0,
        asked: Asked {
            queries: 0,
            above: lo,
            below: hi,
            ties: 0,
        },
    };
    let mut ask = |x: &T, y: &T| prefers(x, y).map(Into::into);
    let stop = match strategy {
        Strategy::Paper | Strategy::Adaptive => {
            halving(&mut state, &eps, strategy == Strategy::Adaptive, &mut ask)
        }
        Strategy::Golden => golden(&mut state, &eps, &mut ask),
        Strategy::Bisection => bisection(&mut state, &eps, &mut ask),
    };
    let stop = stop.map_err(|source| Error::Interrupted {
        procedure: format!("{} search", strategy.name()),
        queries: state.asked.queries,
        progress: format!(
            "interval [{}, {}] after {} steps",
            state.a, state.b, state.steps
        ),
        source: Box::new(source),
    })?;
    let two = T::int(2);
    let estimate = (state.a.clone() + state.b.clone()) / two;
    let Asked {
        queries,
        above,
        below,
        ties,
    } = state.asked;
    let consistent = if above <= below {
        Consistent::Interval {
            lo: above,
            hi: below,
        }
    } else if stop == Stop::Resolution && above.clone() - below.clone() <= rounding_band(&above) {
        // Near a smooth optimum the values of two probes δ apart differ by
        // O(δ²), so at the working precision they compare reliably only
        // down to δ ≈ √ε_mach: answers that cross within that band are
        // rounding, not a contradiction, and bound the optimum to it.
        Consistent::Interval {
            lo: below,
            hi: above,
        }
    } else {
        Consistent::Contradictory { above, below }
    };
    Ok(Outcome {
        lo: state.a,
        hi: state.b,
        estimate,
        queries,
        steps: state.steps,
        stop,
        consistent,
        ties,
    })
}

struct State<T> {
    a: T,
    b: T,
    steps: usize,
    asked: Asked<T>,
}

/// What the answers so far say.
struct Asked<T> {
    queries: usize,
    /// Every maximizer lies at or above this (from strict answers).
    above: T,
    /// Every maximizer lies at or below this.
    below: T,
    /// Answers that preferred neither point.
    ties: usize,
}

impl<T: Scalar> Asked<T> {
    /// Asks Ω(upper, lower) about two probes the caller has ordered,
    /// `lower` < `upper` (the searches check the order before asking, see
    /// [`rounding_scale`]), counts it, and narrows the consistent set:
    /// "upper preferred" puts every maximizer at or above `lower`, "lower
    /// preferred" at or below `upper`, a tie bounds nothing. One comparison
    /// of the bounds per answer, as the order of the probes is known.
    fn answer<F>(&mut self, f: &mut F, upper: &T, lower: &T) -> Result<Preference>
    where
        F: FnMut(&T, &T) -> Result<Preference>,
    {
        let answer = self.pose(f, upper, lower)?;
        match answer {
            Preference::First => self.at_least(lower),
            Preference::Second => self.at_most(upper),
            Preference::Indifferent => {}
        }
        Ok(answer)
    }

    /// Asks Ω(x, y) and counts the query (and a tie); the caller narrows
    /// the consistent set as its strategy reads the answer.
    fn pose<F>(&mut self, f: &mut F, x: &T, y: &T) -> Result<Preference>
    where
        F: FnMut(&T, &T) -> Result<Preference>,
    {
        let answer = f(x, y)?;
        self.queries += 1;
        if answer == Preference::Indifferent {
            self.ties += 1;
        }
        Ok(answer)
    }

    /// Every maximizer consistent with the answers is at or above `x`.
    fn at_least(&mut self, x: &T) {
        if *x > self.above {
            self.above.clone_from(x);
        }
    }

    /// Every maximizer consistent with the answers is at or below `x`.
    fn at_most(&mut self, x: &T) {
        if *x < self.below {
            self.below.clone_from(x);
        }
    }

    /// [`Asked::answer`] in the papers' binary reading: is `upper` strictly
    /// preferred?
    fn ask<F>(&mut self, f: &mut F, upper: &T, lower: &T) -> Result<bool>
    where
        F: FnMut(&T, &T) -> Result<Preference>,
    {
        Ok(self.answer(f, upper, lower)? == Preference::First)
    }
}

/// ShrinkInterval (003 Alg. 1 lines 4–12). Answers, each "the later point
/// is strictly preferred": A1 = Ω(c,a), A2 = Ω(d,c), A3 = Ω(e,d), A4 = Ω(b,e).
///
/// Line 7 (the default order): for consecutive points x < y < z with
/// x ⪰ y ≺ z (a dip, e.g. a tie on a plateau followed by a rise), assume
/// x ≺ y ≺ z. Applied right to left this turns every "no" that precedes a
/// "yes" into "yes", so the answers become yes^L no^(4−L) with L the index
/// of the last "yes". Lines 8–12 then give: L ≤ 1 → b := d; L = 2 →
/// (a, b) := (c, e); L ≥ 3 → a := d. A1 never changes the outcome, which is
/// why the adaptive variant asks only A2, A3 and (when A3 is "no") A4: at
/// most three queries, in the paper's order (000 App. A, footnote 1).
///
/// The quarter points are c = a + w, d = a + 2w, e = a + 3w with
/// w = (b − a)/4, computed in place; from the second halving on, d is the
/// point of the previous halving at the new interval's middle, carried
/// exactly.
fn halving<T, F>(s: &mut State<T>, eps: &T, adaptive: bool, f: &mut F) -> Result<Stop>
where
    T: Scalar,
    F: FnMut(&T, &T) -> Result<Preference>,
{
    let mut p = Quarters::new(&s.a, &s.b);
    // After the first halving the new midpoint is a point of the last one
    // (c, d or e), carried exactly rather than recomputed as a + 2w, which
    // can differ from it in the last bit: a point asked again is then the
    // same point, which the sphere slices and a memoized metric recognize.
    let mut carried = false;
    loop {
        if let Some(stop) = p.place(s, eps, carried) {
            return Ok(stop);
        }
        let Quarters { c, d, e, .. } = &mut p;
        let q = &mut s.asked;
        // The index of the last "yes" among A2..A4, or ≤ 1.
        let last_yes = if adaptive {
            let a2 = q.ask(f, d, c)?;
            if q.ask(f, e, d)? || q.ask(f, &s.b, e)? {
                3
            } else if a2 {
                2
            } else {
                1
            }
        } else {
            // The paper poses all four queries before deciding (line 6).
            let a1 = q.ask(f, c, &s.a)?;
            let a2 = q.ask(f, d, c)?;
            let a3 = q.ask(f, e, d)?;
            let a4 = q.ask(f, &s.b, e)?;
            [a1, a2, a3, a4]
                .iter()
                .rposition(|yes| *yes)
                .map_or(0, |i| i + 1)
        };
        // The new interval and its midpoint (left in d).
        match Shrink::from_last_yes(last_yes) {
            Shrink::Left => {
                std::mem::swap(&mut s.b, d);
                std::mem::swap(d, c);
            }
            Shrink::Middle => {
                std::mem::swap(&mut s.a, c);
                std::mem::swap(&mut s.b, e);
            }
            Shrink::Right => {
                std::mem::swap(&mut s.a, d);
                std::mem::swap(d, e);
            }
        }
        carried = true;
        s.steps += 1;
    }
}

/// The quarter points of a halving step, kept between steps so that no
/// step allocates.
struct Quarters<T> {
    w: T,
    c: T,
    d: T,
    e: T,
    /// Widths at or below this are near the rounding of the ends
    /// ([`rounding_scale`]).
    fine: T,
}

impl<T: Scalar> Quarters<T> {
    fn new(lo: &T, hi: &T) -> Self {
        Quarters {
            w: T::zero(),
            c: T::zero(),
            d: T::zero(),
            e: T::zero(),
            fine: rounding_scale(lo, hi),
        }
    }

    /// Places c = a + w, d = a + 2w (unless `carried`: d is already the
    /// midpoint), e = d + w with w = (b − a)/4; `Some` when the search
    /// ends: converged (b − a ≤ ε) or at the working precision's
    /// resolution (rounding no longer orders a < c < d < e < b).
    fn place(&mut self, s: &State<T>, eps: &T, carried: bool) -> Option<Stop> {
        self.w.set_difference(&s.b, &s.a);
        if self.w <= *eps {
            return Some(Stop::Converged);
        }
        let near_resolution = self.w <= self.fine;
        self.w.mul_pow2_assign(-2);
        self.c.set_sum(&s.a, &self.w);
        if !carried {
            self.d.set_sum(&self.c, &self.w);
        }
        self.e.set_sum(&self.d, &self.w);
        // The order is checked only near the resolution (comparisons cost
        // at high precision).
        (near_resolution && !(s.a < self.c && self.c < self.d && self.d < self.e && self.e < s.b))
            .then_some(Stop::Resolution)
    }
}

/// [`Strategy::Bisection`]: per halving, c = a + w, d = a + 2w, e = a + 3w
/// with w = (b − a)/4 and one answer Ω(e, c). For f symmetric about its
/// maximizer x*, f(e) > f(c) exactly when x* > d (e is nearer), so "e
/// preferred" keeps [d, b] and puts x* at or above d; "c preferred" keeps
/// [a, d] and puts x* at or below d; a tie puts x* at d, and the search
/// keeps [c, e], centred on it (values that differ by about 2w·|x* − d|
/// can round to a tie, so x* is certain only to lie within [c, e]).
fn bisection<T, F>(s: &mut State<T>, eps: &T, f: &mut F) -> Result<Stop>
where
    T: Scalar,
    F: FnMut(&T, &T) -> Result<Preference>,
{
    let mut p = Quarters::new(&s.a, &s.b);
    loop {
        if let Some(stop) = p.place(s, eps, false) {
            return Ok(stop);
        }
        let Quarters { c, d, e, .. } = &mut p;
        let q = &mut s.asked;
        match q.pose(f, e, c)? {
            Preference::First => {
                q.at_least(d);
                std::mem::swap(&mut s.a, d);
            }
            Preference::Second => {
                q.at_most(d);
                std::mem::swap(&mut s.b, d);
            }
            Preference::Indifferent => {
                q.at_least(c);
                q.at_most(e);
                std::mem::swap(&mut s.a, c);
                std::mem::swap(&mut s.b, e);
            }
        }
        s.steps += 1;
    }
}

/// How one ShrinkInterval halving ends (003 Alg. 1 lines 8–12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shrink {
    /// b := d.
    Left,
    /// (a, b) := (c, e).
    Middle,
    /// a := d.
    Right,
}

impl Shrink {
    /// The outcome for L, the index (1-based) of the last "yes" among
    /// A1..A4 after line 7's default order (0 when every answer is "no").
    fn from_last_yes(last_yes: usize) -> Self {
        match last_yes {
            0 | 1 => Shrink::Left,
            2 => Shrink::Middle,
            _ => Shrink::Right,
        }
    }
}

/// The smallest and largest estimate that ShrinkInterval (the `paper` and
/// `adaptive` strategies, which decide identically) can return on [0, 1]
/// for the metric value `value(x)` against *every* oracle that answers
/// correctly outside the band |f(x) − f(y)| < ε_Ω: a breadth-first walk
/// over the reachable intervals, taking both answers to every in-band
/// comparison and deciding each halving by the same rule as [`maximize`].
/// The quarter points are computed as the search computes them, so the
/// walk visits exactly the search's probes.
///
/// # Errors
/// Propagates failures of `value`.
///
/// # Examples
/// ```
/// use metric_elicitation::search::halving_reach;
/// let f = |x: &f64| -(x - 0.3f64).powi(2);
/// let (lo, hi) = halving_reach(&0.01, &1e-3, |x| Ok(f(x))).unwrap();
/// assert!(lo < 0.3 && 0.3 < hi);
/// ```
pub fn halving_reach<T: Scalar>(
    eps: &T,
    eps_omega: &T,
    mut value: impl FnMut(&T) -> Result<T>,
) -> Result<(T, T)> {
    // Each interval with the midpoint its halving carried (none at first).
    let mut frontier: Vec<(T, T, Option<T>)> = vec![(T::int(0), T::int(1), None)];
    let (mut lowest, mut highest): (Option<T>, Option<T>) = (None, None);
    // Which answers to "is y strictly preferred to x?" an oracle may give.
    let mut answers = |x: &T, y: &T| -> Result<(bool, bool)> {
        let (fx, fy) = (value(x)?, value(y)?);
        let truthful = fy > fx;
        let free = (fx - fy).abs() < *eps_omega;
        Ok((truthful || free, !truthful || free))
    };
    while !frontier.is_empty() {
        let mut next: Vec<(T, T, Option<T>)> = Vec::new();
        for (a, b, mid) in frontier {
            let mut w = b.clone() - a.clone();
            if w <= *eps {
                let m = (a + b) / T::int(2);
                lowest = Some(lowest.map_or(m.clone(), |l| l.min(m.clone())));
                highest = Some(highest.map_or(m.clone(), |h| h.max(m)));
                continue;
            }
            w.mul_pow2_assign(-2);
            let c = a.clone() + w.clone();
            let d = mid.unwrap_or_else(|| c.clone() + w.clone());
            let e = d.clone() + w;
            // A2 = Ω(d, c), A3 = Ω(e, d), A4 = Ω(b, e); A1 never matters.
            let (yes2, no2) = answers(&c, &d)?;
            let (yes3, no3) = answers(&d, &e)?;
            let (yes4, no4) = answers(&e, &b)?;
            let mut last_yes = Vec::with_capacity(3);
            if yes4 {
                last_yes.push(4);
            }
            if yes3 && no4 {
                last_yes.push(3);
            }
            if yes2 && no3 && no4 {
                last_yes.push(2);
            }
            if no2 && no3 && no4 {
                last_yes.push(1);
            }
            for l in last_yes {
                next.push(match Shrink::from_last_yes(l) {
                    Shrink::Left => (a.clone(), d.clone(), Some(c.clone())),
                    Shrink::Middle => (c.clone(), e.clone(), Some(d.clone())),
                    Shrink::Right => (d.clone(), b.clone(), Some(e.clone())),
                });
            }
        }
        next.sort_by(|x, y| {
            (x.0.clone(), x.1.clone(), x.2.clone())
                .partial_cmp(&(y.0.clone(), y.1.clone(), y.2.clone()))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        next.dedup();
        frontier = next;
    }
    Ok((
        lowest.unwrap_or_else(|| T::int(0)),
        highest.unwrap_or_else(|| T::int(1)),
    ))
}

/// Golden-section search: interior points x1 < x2 at the golden ratios; one
/// comparison Ω(x2, x1) per step keeps [x1, b] (x2 strictly preferred) or
/// [a, x2] (x1 strictly preferred); the surviving interior point is reused
/// and the one new point is placed from the width b − a that the
/// convergence test computes anyway. A tie (neither preferred: a plateau)
/// hands the rest of the search to the adaptive halving.
fn golden<T, F>(s: &mut State<T>, eps: &T, f: &mut F) -> Result<Stop>
where
    T: Scalar,
    F: FnMut(&T, &T) -> Result<Preference>,
{
    let r = inverse_golden_ratio::<T>();
    let one_minus_r = T::int(1) - r.clone();
    let (mut w, mut x1, mut x2) = (T::zero(), T::zero(), T::zero());
    // Which interior point the next iteration must (re)place.
    enum Place {
        Both,
        Lower,
        Upper,
    }
    let mut place = Place::Both;
    let fine = rounding_scale(&s.a, &s.b);
    loop {
        w.set_difference(&s.b, &s.a);
        if w <= *eps {
            return Ok(Stop::Converged);
        }
        let near_resolution = w <= fine;
        match place {
            Place::Both => {
                x2.clone_from(&w);
                x2 *= &r;
                x2 += &s.a;
                w *= &one_minus_r;
                x1.set_sum(&s.a, &w);
            }
            Place::Lower => {
                w *= &one_minus_r;
                x1.set_sum(&s.a, &w);
            }
            Place::Upper => {
                w *= &r;
                x2.set_sum(&s.a, &w);
            }
        }
        if near_resolution && !(s.a < x1 && x1 < x2 && x2 < s.b) {
            return Ok(Stop::Resolution);
        }
        let answer = s.asked.answer(f, &x2, &x1)?;
        if answer == Preference::Indifferent {
            // A tie: x1 and x2 lie on one level of a plateau, which may be
            // the top or a flank on either side of the peak; one comparison
            // cannot tell which. Finish on [a, b] with the adaptive halving,
            // whose default order resolves plateaus at either end.
            return halving(s, eps, true, f);
        }
        if answer == Preference::First {
            // Keep [x1, b]; the old x2 becomes the new x1.
            std::mem::swap(&mut s.a, &mut x1);
            std::mem::swap(&mut x1, &mut x2);
            place = Place::Upper;
        } else {
            // Keep [a, x2]; the old x1 becomes the new x2.
            std::mem::swap(&mut s.b, &mut x2);
            std::mem::swap(&mut x2, &mut x1);
            place = Place::Lower;
        }
        s.steps += 1;
    }
}

/// The band within which answers near an optimum are decided by rounding:
/// 2¹⁰·√ε_mach·(1 + |x|) in the parameter (values of probes δ apart differ
/// by O(δ²), so they stop being comparable at δ ≈ √ε_mach).
fn rounding_band<T: Scalar>(x: &T) -> T {
    crate::prec::ill_conditioned::<T>() * T::int(1024) * (T::int(1) + x.clone().abs())
}

/// Widths above 64·ε_mach·(|lo| + |hi|) are far above the rounding of any
/// point of [lo, hi] (the ends only move inward), so the interior points are
/// certainly ordered; below it the search checks the order and stops with
/// [`Stop::Resolution`] when rounding breaks it.
fn rounding_scale<T: Scalar>(lo: &T, hi: &T) -> T {
    crate::prec::ulps::<T>(64) * (lo.clone().abs() + hi.clone().abs())
}

/// 1/φ = (√5 − 1)/2 at the working precision ([`crate::scalar::Backend::inverse_golden_ratio`]).
pub fn inverse_golden_ratio<T: Scalar>() -> T {
    T::inverse_golden_ratio()
}

/// Halvings the papers' loop `while |b − a| > ε` performs on an interval of
/// length `length`: ⌈log₂(L/ε)⌉, counted exactly at the working precision.
///
/// # Errors
/// [`Error::InvalidEpsilon`] for ε ≤ 0; [`Error::invalid`] for a length that
/// is not finite and positive.
pub fn halvings<T: Scalar>(length: &T, eps: &T) -> Result<usize> {
    check_epsilon(eps)?;
    check_interval(&T::int(0), length)?;
    let two = T::int(2);
    let mut width = length.clone();
    let mut n = 0;
    while width > *eps {
        width /= two.clone();
        n += 1;
    }
    Ok(n)
}

/// Queries of one [`Strategy::Paper`] search: 4·⌈log₂(L/ε)⌉.
///
/// # Errors
/// As [`halvings`].
pub fn paper_queries<T: Scalar>(length: &T, eps: &T) -> Result<usize> {
    Ok(4 * halvings(length, eps)?)
}

/// Queries of one search of `strategy` on an interval of length `length`:
/// exact for [`Strategy::Paper`] and [`Strategy::Bisection`] (4 and 1 per
/// halving), an upper bound for the others (three per halving for
/// [`Strategy::Adaptive`], [`golden_max_queries`]).
///
/// # Errors
/// As [`halvings`].
pub fn max_queries<T: Scalar>(strategy: Strategy, length: &T, eps: &T) -> Result<usize> {
    match strategy {
        Strategy::Paper => paper_queries(length, eps),
        Strategy::Adaptive => Ok(3 * halvings(length, eps)?),
        Strategy::Golden => golden_max_queries(length, eps),
        Strategy::Bisection => halvings(length, eps),
    }
}

/// About how many queries one search of `strategy` over an interval of
/// length `length` takes: exact for [`Strategy::Paper`] (4 per halving)
/// and [`Strategy::Bisection`] (1), 2.75 per halving in steady state for
/// [`Strategy::Adaptive`] (000 notes N2), the bound [`golden_max_queries`]
/// for [`Strategy::Golden`]; `None` for a bad length or ε.
///
/// # Examples
/// ```
/// use metric_elicitation::search::{expected_queries, Strategy};
/// assert_eq!(expected_queries(Strategy::Paper, &1.0, &0.01), Some(28));
/// assert_eq!(expected_queries(Strategy::Bisection, &1.0, &0.01), Some(7));
/// assert_eq!(expected_queries(Strategy::Adaptive, &1.0, &0.01), Some(20));
/// ```
pub fn expected_queries<T: Scalar>(strategy: Strategy, length: &T, eps: &T) -> Option<usize> {
    let n = halvings(length, eps).ok()?;
    Some(match strategy {
        Strategy::Paper => 4 * n,
        Strategy::Adaptive => (11 * n).div_ceil(4),
        Strategy::Golden => golden_max_queries(length, eps).ok()?,
        Strategy::Bisection => n,
    })
}

/// Upper bound on the queries of one [`Strategy::Golden`] search:
/// ⌈log_φ(L/ε)⌉ + 1 (the +1 absorbs rounding of the interior points).
///
/// # Errors
/// As [`halvings`].
pub fn golden_max_queries<T: Scalar>(length: &T, eps: &T) -> Result<usize> {
    check_epsilon(eps)?;
    check_interval(&T::int(0), length)?;
    let r = inverse_golden_ratio::<T>();
    let mut width = length.clone();
    let mut n = 0;
    while width > *eps {
        width *= r.clone();
        n += 1;
    }
    Ok(n + 1)
}

/// The information-theoretic lower bound log₂(L/ε) on comparisons needed to
/// locate a point to width ε (003 Lemma 2), as a real number.
///
/// # Errors
/// As [`halvings`].
pub fn lower_bound<T: Scalar>(length: &T, eps: &T) -> Result<T> {
    check_epsilon(eps)?;
    check_interval(&T::int(0), length)?;
    Ok((length.clone() / eps.clone()).log2())
}
