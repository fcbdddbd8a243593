//! Bayesian, noise-robust metric elicitation (issue #28; the design of
//! `notes/people.md`, "A design that the prototype checked").
//!
//! The papers' procedures are coordinate searches: each answer halves an
//! interval and is trusted for good, so one early mistake discards the
//! optimum silently. This engine keeps a posterior over the metric's
//! parameters instead, asks the question that is expected to tell most
//! about them, and stops when the posterior is narrow enough:
//!
//! * **One engine for every family linear in its parameters.** A
//!   [`Family`] gives a feature map f with φ(x) = ⟨θ/s(θ), f(x)⟩ + const,
//!   the parameters' cone and normalization s, the family's own error
//!   measure, and candidate questions from its own query space (boundary,
//!   faces, spheres, group embeddings). The families of [`families`]:
//!   binary LPM (003), DLPM (002 faces), LPM/LPME (spheres), cost/reward
//!   (004), QPME and cubic metrics (000), FPME (001, with the |r^u − r^v|
//!   features), fair QPME (000 §4.3). LFPM is refused (see [`families`]).
//! * **Answer models** ([`AnswerModel`]): independent mistakes with a
//!   known probability p (p = 0: exact answers), with an unknown p under a
//!   Beta prior estimated jointly (marginalized exactly: a particle's
//!   likelihood is B(α + k, β + m − k)/B(α, β) for k disagreements among
//!   m answers), and Bradley–Terry P(first) = σ((φ(x) − φ(y))/τ). A "can't
//!   tell" answer has its own likelihood, exp(−½(s/w)²) with
//!   s = φ(x) − φ(y) and w = `tie_width`·‖f(x) − f(y)‖₂ (a near-tie; the
//!   limit of rare ties, so strict answers keep their likelihood). Answers
//!   to pairs within the ε_Ω band (|s| ≤ `band`) carry no information.
//! * **Posterior** ([`posterior`](self)): weighted particles on the cone,
//!   resampled when the effective sample size falls below 3/10 of them, then
//!   rejuvenated by Metropolis moves that leave the posterior invariant,
//!   as many as it takes for the particles to move (adapted to the
//!   degeneracy). Deterministic for a seed.
//! * **Questions**: among the family's candidates, each aimed at the
//!   posterior's median along one of its widest directions, the visible
//!   pair (no shown number closer than `min_visible`) with the largest
//!   expected information times the distance between the two halves it
//!   splits the posterior into. Expected information is
//!   H(p + (1 − 2p)π) − H(p) under mistakes (π the posterior probability
//!   of "first") and H(E σ) − E H(σ) under Bradley–Terry.
//! * **Stop** when the credible radius (the `level` quantile of the
//!   particles' error to the estimate, in the family's error measure) is at
//!   most ε, at the budget, or when no visible question splits the
//!   posterior. The estimate is the posterior mean, normalized; the
//!   result carries the credible radius, each parameter's credible
//!   half-width and the parameters still wider than ε ("undetermined": the
//!   metric is then not presented), the estimated mistake rate, and
//!   optionally the agreement of `checks` extra random questions with the
//!   estimate (asked after the elicitation and kept out of it).
//!
//! An elicitation with d free parameters needs at least about
//! d·log₂(1/ε) answers when every answer is right, and
//! d·log₂(1/ε)/(1 − H(p)) when each is wrong with probability p
//! ([`information_bound`]). That count treats the parameters as ranging
//! over a unit cube; where they fill a whole sphere (LPME's a of any
//! sign), [`sphere_bound`] gives what any procedure needs on average with
//! exact answers, more than the count at small d (1.36× at q = 2,
//! ε = 0.05); where they fill a simplex (DLPM's and cost/reward's
//! weights), [`simplex_bound`] does, less than the count.
//!
//! # Examples
//! A binary linear metric (003) on the App. A population from a person
//! who errs one time in ten (the engine does not know p: Beta(2, 18)):
//! ```
//! use metric_elicitation::search::Tolerance;
//! use metric_elicitation::elicit::bayes::{elicit, BayesSettings, families::BinaryLpm};
//! use metric_elicitation::metric::binary::Lpm;
//! use metric_elicitation::oracle::{Mistakes, Simulated};
//! use metric_elicitation::population::LogisticUniform;
//!
//! let family = BinaryLpm::new(LogisticUniform::new(5.0).unwrap());
//! let truth = Lpm::new(0.8, 0.6, 0.0).unwrap();
//! let mut person = Mistakes::new(Simulated::new(truth.clone()), 0.1, 7).unwrap();
//! let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap()).seed(1).build().unwrap();
//! let est = elicit(&family, &mut person, &settings).unwrap();
//! let m = est.metric.expect("determined within eps");
//! assert!((m.m11 - 0.8).abs() <= 0.05 && (m.m00 - 0.6).abs() <= 0.05);
//! assert!(est.radius <= 0.05 && est.undetermined.is_empty());
//! ```

pub mod families;
pub mod family;
mod posterior;
pub mod select;

#[doc(hidden)]
pub mod check;

pub use family::View;
pub use family::{Cone, Family, Prior, SignConstraint};

use super::algorithm::Elicitation;
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::oracle::{Oracle, Preference, QueryPoint};
use crate::scalar::Scalar;
use crate::search::Tolerance;
use nalgebra::DVector;
use posterior::{History, Likelihood, MoveStats, Particles};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

/// Consistency checks during a long elicitation: an honest early end for
/// answers that follow no metric.
///
/// The engine's questions split the posterior, so a coin-flipping person's
/// answers look, one by one, like an honest person's mistakes; under the
/// person model ([`AnswerModel::person`]) such answers keep the credible
/// radius wide until the budget. From question `after` on, every `every`-th
/// question (while the answers so far leave it [`undecided`]) is instead a
/// pair that at least 95 % of the posterior orders the same way, the most
/// clearly apart of 64 random visible pairs: an honest person, sharp or
/// fuzzy, answers it as the posterior does but for their mistakes, a
/// coin-flipper one time in two. Its answer also enters the posterior.
/// Once `least` strict answers to them are in, the elicitation stops as
/// [`Stop::Contradicted`] (nothing presented as the metric) when these
/// answers contradict the posterior by the rule of the check questions
/// after an elicitation ([`checks_contradict`]: the 95 % Wilson interval
/// of the disagreement rate above 0.2), and asks no more of them once it
/// is decided either way or after `most`.
///
/// Not from the papers (they assume a truthful oracle): issue #28's
/// "honest early end for random answers", measured in
/// docs/measurements/bayes-noise.md ("An early end for answers that
/// follow no metric").
///
/// [`undecided`]: crate::diagnostics::checks_undecided
/// [`checks_contradict`]: crate::diagnostics::checks_contradict
///
/// # Examples
/// A person answering at random, with the person model: stopped as
/// contradictory long before the budget of 400.
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, AnswerModel, BayesSettings, Stop, Watch, families::BinaryLpm};
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::{Mistakes, Simulated};
/// use metric_elicitation::population::LogisticUniform;
///
/// let family = BinaryLpm::new(LogisticUniform::new(5.0).unwrap());
/// let truth = Lpm::new(0.8, 0.6, 0.0).unwrap();
/// let mut coin = Mistakes::new(Simulated::new(truth), 0.5, 1).unwrap();
/// let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap())
///     .answers(AnswerModel::person())
///     .watch(Watch::person())
///     .build()
///     .unwrap();
/// let est = elicit(&family, &mut coin, &settings).unwrap();
/// assert_eq!(est.stop, Stop::Contradicted);
/// assert!(est.metric.is_none() && est.questions < 100);
/// let w = est.watched.unwrap();
/// assert!(w.disagreed * 10 > w.judged * 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watch {
    /// The questions asked before the first check.
    pub after: usize,
    /// A check every this many questions (≥ 1).
    pub every: usize,
    /// The strict answers to checks before they are judged (≥ 1).
    pub least: usize,
    /// The most checks (≥ `least`).
    pub most: usize,
}

impl Watch {
    /// The person model's checks: from question 10 on, one in 3, judged
    /// from 5 strict answers on, at most 15 (the rule of the check
    /// questions after an elicitation: a coin-flipper is called
    /// contradictory in 83 % of sessions, a person disagreeing one time in
    /// ten in 1.2 %, one in five in 10.5 %, computed). Measured in
    /// docs/measurements/bayes-noise.md ("An early end for answers that
    /// follow no metric", and "Wider chords" for the move from question
    /// 30 to 10: binary sessions of exact people now end near question
    /// 20, before checks from 30 would begin).
    pub fn person() -> Self {
        Watch {
            after: 10,
            every: 3,
            least: 5,
            most: 15,
        }
    }
}

/// The consistency checks a run asked ([`Watch`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Watched {
    /// Checks asked.
    pub asked: usize,
    /// Strict answers to them.
    pub judged: usize,
    /// Strict answers against the order the posterior gave.
    pub disagreed: usize,
    /// The question count at the last check.
    #[serde(skip)]
    last: usize,
}

impl Watched {
    /// Whether at least `least` strict answers are judged and they
    /// contradict the posterior
    /// ([`checks_contradict`](crate::diagnostics::checks_contradict)).
    pub fn contradicted(&self, least: usize) -> bool {
        self.judged >= least && crate::diagnostics::checks_contradict(self.disagreed, self.judged)
    }
}

/// How the person answers, as the engine models it.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerModel<T> {
    /// Each answer is wrong independently with a known probability
    /// 0 ≤ p < ½; p = 0 is a person who never errs (a contradicting
    /// parameter is then impossible).
    Mistakes {
        /// The mistake probability.
        p: T,
    },
    /// Each answer is wrong independently with an unknown probability p
    /// with prior Beta(α, β), estimated jointly with the metric. Use an
    /// informative prior (`notes/people.md`: Beta(2, 18), mean 0.1, cost
    /// little; a flat prior cost five times the questions).
    UnknownMistakes {
        /// α > 0.
        alpha: T,
        /// β > 0 (with α/(α + β) < ½).
        beta: T,
    },
    /// Bradley–Terry: the first point is preferred with probability
    /// σ((φ(x) − φ(y))/τ), φ in the family's normalization.
    BradleyTerry {
        /// The temperature τ > 0.
        tau: T,
    },
    /// A person who errs both ways: the first point is preferred with
    /// probability p + (1 − 2p)·σ((φ(x) − φ(y))/τ), a Bradley–Terry
    /// judgement of temperature τ (τ = 0: the sign of the difference)
    /// overlaid with mistakes of probability p. Neither is known: p takes
    /// the values `rates` with weights proportional to the Beta(α, β)
    /// density there, τ the values `temperatures` with equal weights, and
    /// the likelihood of a metric is the mixture over the grid (each
    /// particle carries its grid cell, redrawn given its parameters at every
    /// rejuvenation). Mistakes far from a tie are explained by
    /// p, disagreements on near-ties by τ, so neither kind of person is
    /// trusted beyond what the answers show. See
    /// [`AnswerModel::person`] for the default grid.
    Person {
        /// α > 0 of the prior on the mistake rate.
        alpha: T,
        /// β > 0 of the prior on the mistake rate.
        beta: T,
        /// The mistake rates p of the grid, each in (0, ½).
        rates: Vec<T>,
        /// The temperatures τ ≥ 0 of the grid (0: exact judgement).
        temperatures: Vec<T>,
    },
}

impl<T: Scalar> AnswerModel<T> {
    /// The person model a spec selects with `assumed_mistake_rate =
    /// "person"`, and a person's default since 2026-12-01
    /// (docs/measurements/bayes-noise.md has its measurements): p on {0.02, 0.1, 0.2, 0.35} weighted by Beta(2, 18)
    /// (mean 0.1, `notes/people.md`), τ on {0, 0.002, 0.006, 0.02} in the
    /// family's normalization (τ = 0.006 tells values 0.01 apart 84 % of
    /// the time; 0.02, 62 %).
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::elicit::bayes::AnswerModel;
    /// match AnswerModel::<f64>::person() {
    ///     AnswerModel::Person { rates, temperatures, .. } => {
    ///         assert_eq!((rates.len(), temperatures.len()), (4, 4));
    ///         assert_eq!(temperatures[0], 0.0);
    ///     }
    ///     _ => unreachable!(),
    /// }
    /// ```
    pub fn person() -> Self {
        AnswerModel::Person {
            alpha: T::int(2),
            beta: T::int(18),
            rates: vec![
                T::ratio(1, 50),
                T::ratio(1, 10),
                T::ratio(1, 5),
                T::ratio(7, 20),
            ],
            temperatures: vec![
                T::int(0),
                T::ratio(1, 500),
                T::ratio(3, 500),
                T::ratio(1, 50),
            ],
        }
    }
}

/// Settings of the engine, validated once by [`BayesSettingsBuilder::build`]
/// (every field named in its error). Read them with the getters.
#[derive(Debug, Clone, PartialEq)]
pub struct BayesSettings<T> {
    eps: Tolerance<T>,
    level: T,
    particles: usize,
    budget: usize,
    answers: AnswerModel<T>,
    tie_width: T,
    band: T,
    min_visible: T,
    checks: usize,
    watch: Option<Watch>,
    seed: u64,
    moves: usize,
    max_sweeps: usize,
    resample_below: T,
}

/// Builds [`BayesSettings`]; every setter keeps the default otherwise:
///
/// | field | default |
/// |---|---|
/// | `level` | 95/100 |
/// | `particles` | 1000 |
/// | `budget` | 400 questions |
/// | `answers` | unknown mistakes, Beta(2, 18) |
/// | `tie_width` | 1/20 |
/// | `band` (ε_Ω) | 0 |
/// | `min_visible` | 1/100 |
/// | `checks` | 0 |
/// | `watch` | none (no consistency checks during the elicitation) |
/// | `seed` | 0 |
/// | `moves` | 2: each rejuvenation moves the particles until their mean squared displacement is twice their total variance |
/// | `max_sweeps` | 40 sweeps of slice moves over all particles per rejuvenation |
/// | `resample_below` | 3/10 (of the particles, as effective sample size) |
#[derive(Debug, Clone, PartialEq)]
pub struct BayesSettingsBuilder<T> {
    settings: BayesSettings<T>,
}

impl<T: Scalar> BayesSettings<T> {
    /// The defaults with tolerance `eps` (see [`BayesSettingsBuilder`]).
    ///
    /// # Errors
    /// As [`BayesSettingsBuilder::build`].
    pub fn new(eps: Tolerance<T>) -> Result<Self> {
        Self::builder(eps).build()
    }

    /// A builder starting from the defaults.
    pub fn builder(eps: Tolerance<T>) -> BayesSettingsBuilder<T> {
        BayesSettingsBuilder {
            settings: BayesSettings {
                eps,
                level: T::ratio(95, 100),
                particles: 1000,
                budget: 400,
                answers: AnswerModel::UnknownMistakes {
                    alpha: T::int(2),
                    beta: T::int(18),
                },
                tie_width: T::ratio(1, 20),
                band: T::int(0),
                min_visible: T::ratio(1, 100),
                checks: 0,
                watch: None,
                seed: 0,
                moves: 2,
                max_sweeps: 40,
                resample_below: T::ratio(3, 10),
            },
        }
    }

    /// ε: the credible radius to reach, in the family's error measure.
    pub fn eps(&self) -> &T {
        self.eps.get()
    }
    /// The credible level (default 0.95).
    pub fn level(&self) -> &T {
        &self.level
    }
    /// The number of particles.
    pub fn particles(&self) -> usize {
        self.particles
    }
    /// The most questions asked (check questions not included).
    pub fn budget(&self) -> usize {
        self.budget
    }
    /// The answer model.
    pub fn answers(&self) -> &AnswerModel<T> {
        &self.answers
    }
    /// The relative width of the "can't tell" likelihood.
    pub fn tie_width(&self) -> &T {
        &self.tie_width
    }
    /// ε_Ω: answers to pairs closer than this in value carry no
    /// information.
    pub fn band(&self) -> &T {
        &self.band
    }
    /// The minimum visible difference of a shown number.
    pub fn min_visible(&self) -> &T {
        &self.min_visible
    }
    /// Extra random questions asked after the elicitation.
    pub fn checks(&self) -> usize {
        self.checks
    }
    /// The consistency checks asked during a long elicitation, if any.
    pub fn watch(&self) -> Option<&Watch> {
        self.watch.as_ref()
    }
    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl<T: Scalar> BayesSettingsBuilder<T> {
    /// The credible level, in (0, 1).
    pub fn level(mut self, level: T) -> Self {
        self.settings.level = level;
        self
    }
    /// The number of particles (at least 64).
    pub fn particles(mut self, particles: usize) -> Self {
        self.settings.particles = particles;
        self
    }
    /// The most questions (at least 1).
    pub fn budget(mut self, budget: usize) -> Self {
        self.settings.budget = budget;
        self
    }
    /// The answer model.
    pub fn answers(mut self, answers: AnswerModel<T>) -> Self {
        self.settings.answers = answers;
        self
    }
    /// The relative width of the "can't tell" likelihood (≥ 0; 0: such
    /// answers carry no information).
    pub fn tie_width(mut self, width: T) -> Self {
        self.settings.tie_width = width;
        self
    }
    /// ε_Ω (≥ 0).
    pub fn band(mut self, band: T) -> Self {
        self.settings.band = band;
        self
    }
    /// The minimum visible difference (≥ 0).
    pub fn min_visible(mut self, min_visible: T) -> Self {
        self.settings.min_visible = min_visible;
        self
    }
    /// Check questions asked after the elicitation.
    pub fn checks(mut self, checks: usize) -> Self {
        self.settings.checks = checks;
        self
    }
    /// Consistency checks during a long elicitation (see [`Watch`]).
    pub fn watch(mut self, watch: Watch) -> Self {
        self.settings.watch = Some(watch);
        self
    }
    /// The seed of every random choice of the engine.
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.seed = seed;
        self
    }
    /// The MCMC effort of a rejuvenation: slice moves continue until the
    /// particles' mean squared displacement is `moves` times their total
    /// variance (≥ 1).
    pub fn moves(mut self, moves: usize) -> Self {
        self.settings.moves = moves;
        self
    }
    /// The most Metropolis sweeps per rejuvenation (≥ 1).
    pub fn max_sweeps(mut self, sweeps: usize) -> Self {
        self.settings.max_sweeps = sweeps;
        self
    }
    /// Resample when the effective sample size falls below this fraction
    /// of the particles, in (0, 1].
    pub fn resample_below(mut self, fraction: T) -> Self {
        self.settings.resample_below = fraction;
        self
    }

    /// The validated settings.
    ///
    /// # Errors
    /// ε is already validated ([`Tolerance`]);
    /// [`Error::InvalidArgument`] naming the field for everything else out
    /// of range.
    pub fn build(self) -> Result<BayesSettings<T>> {
        let s = self.settings;
        let (zero, one) = (T::int(0), T::int(1));
        let half = T::ratio(1, 2);
        if !s.level.finite() || s.level <= zero || s.level >= one {
            return Err(Error::invalid(
                "level",
                format!("must lie in (0, 1), got {}", s.level),
            ));
        }
        if s.particles < 64 || s.particles > 1 << 24 {
            return Err(Error::invalid(
                "particles",
                format!("must be between 64 and 2^24, got {}", s.particles),
            ));
        }
        if s.budget == 0 {
            return Err(Error::invalid("budget", "must allow at least one question"));
        }
        if let Some(w) = &s.watch {
            if w.every == 0 || w.least == 0 || w.most < w.least {
                return Err(Error::invalid(
                    "watch",
                    format!(
                        "needs every >= 1 and 1 <= least <= most, got every = {}, least = {}, most = {}",
                        w.every, w.least, w.most
                    ),
                ));
            }
        }
        match &s.answers {
            AnswerModel::Mistakes { p } => {
                if !p.finite() || *p < zero || *p >= half {
                    return Err(Error::invalid(
                        "answers.p",
                        format!("a mistake probability must lie in [0, 1/2), got {p}"),
                    ));
                }
            }
            AnswerModel::UnknownMistakes { alpha, beta } => {
                for (name, v) in [("answers.alpha", alpha), ("answers.beta", beta)] {
                    if !v.finite() || *v <= zero {
                        return Err(Error::invalid(
                            name,
                            format!("a Beta prior needs a finite value > 0, got {v}"),
                        ));
                    }
                }
                if alpha.clone() >= beta.clone() {
                    return Err(Error::invalid(
                        "answers.alpha",
                        format!(
                            "the prior mean mistake rate alpha/(alpha + beta) must be below 1/2, got alpha = {alpha}, beta = {beta}"
                        ),
                    ));
                }
            }
            AnswerModel::BradleyTerry { tau } => {
                if !tau.finite() || *tau <= zero {
                    return Err(Error::invalid(
                        "answers.tau",
                        format!("the temperature must be finite and > 0, got {tau}"),
                    ));
                }
            }
            AnswerModel::Person {
                alpha,
                beta,
                rates,
                temperatures,
            } => {
                for (name, v) in [("answers.alpha", alpha), ("answers.beta", beta)] {
                    if !v.finite() || *v <= zero {
                        return Err(Error::invalid(
                            name,
                            format!("a Beta prior needs a finite value > 0, got {v}"),
                        ));
                    }
                }
                if rates.is_empty() || rates.len() > 16 {
                    return Err(Error::invalid(
                        "answers.rates",
                        format!("needs 1 to 16 mistake rates, got {}", rates.len()),
                    ));
                }
                // p = 0 is refused: its Beta(α, β) density is 0, ∞ or
                // undefined (α > 1, < 1, = 1), a cell that is never drawn
                // or a prior weight that is not a number.
                if let Some(p) = rates
                    .iter()
                    .find(|p| !p.finite() || **p <= zero || **p >= half)
                {
                    return Err(Error::invalid(
                        "answers.rates",
                        format!("a mistake probability must lie in (0, 1/2), got {p}"),
                    ));
                }
                if temperatures.is_empty() || temperatures.len() > 16 {
                    return Err(Error::invalid(
                        "answers.temperatures",
                        format!("needs 1 to 16 temperatures, got {}", temperatures.len()),
                    ));
                }
                if let Some(t) = temperatures.iter().find(|t| !t.finite() || **t < zero) {
                    return Err(Error::invalid(
                        "answers.temperatures",
                        format!("a temperature must be finite and >= 0, got {t}"),
                    ));
                }
            }
        }
        for (name, v) in [
            ("tie_width", &s.tie_width),
            ("band", &s.band),
            ("min_visible", &s.min_visible),
        ] {
            if !v.finite() || *v < zero {
                return Err(Error::invalid(
                    name,
                    format!("must be finite and >= 0, got {v}"),
                ));
            }
        }
        if s.moves == 0 {
            return Err(Error::invalid("moves", "must be at least 1"));
        }
        if s.max_sweeps == 0 {
            return Err(Error::invalid("max_sweeps", "must be at least 1"));
        }
        if !s.resample_below.finite() || s.resample_below <= zero || s.resample_below > one {
            return Err(Error::invalid(
                "resample_below",
                format!("must lie in (0, 1], got {}", s.resample_below),
            ));
        }
        Ok(s)
    }
}

/// d·log₂(1/ε)/(1 − H(p)): about how many answers d free parameters need
/// to ε when each answer is wrong with probability p (`notes/people.md`,
/// "The bound"). Infinite at p = ½, where an answer carries no bit.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `d` for d = 0, `eps` for ε outside
/// (0, 1] and `p` for p outside [0, ½] (a NaN included).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::bayes::information_bound;
/// let exact = information_bound(5, &0.05, &0.0).unwrap();
/// assert!((exact - 5.0 * (20f64).log2()).abs() < 1e-12);
/// let noisy = information_bound(5, &0.05, &0.1).unwrap();
/// assert!((noisy / exact - 1.8832).abs() < 1e-4);
/// assert!(information_bound(5, &0.05, &0.5).unwrap().is_infinite());
/// // Bad input is an error naming the argument, never a NaN.
/// assert!(information_bound(0, &0.05, &0.1).is_err());
/// assert!(information_bound(5, &1.5, &0.1).is_err());
/// assert!(information_bound(5, &0.05, &f64::NAN).is_err());
/// ```
pub fn information_bound<T: Scalar>(d: usize, eps: &T, p: &T) -> Result<T> {
    let (zero, one) = (T::int(0), T::int(1));
    if d == 0 {
        return Err(Error::invalid("d", "must be at least 1"));
    }
    half_open("eps", eps, &one)?;
    let half = one.clone() / T::int(2);
    if !p.finite() || *p < zero || *p > half {
        return Err(Error::invalid(
            "p",
            format!("must lie in [0, 1/2], got {p}"),
        ));
    }
    let capacity = one.clone() - select::entropy(p);
    if *p == half || capacity <= zero {
        return Ok(one / zero);
    }
    let bits = T::int(d as i64) * (one / eps.clone()).ln() / T::ln_2();
    Ok(bits / capacity)
}

/// `x` in (0, `hi`], or an error naming `name`.
fn half_open<T: Scalar>(name: &str, x: &T, hi: &T) -> Result<()> {
    if !x.finite() || *x <= T::int(0) || *x > *hi {
        return Err(Error::invalid(
            name,
            format!("must lie in (0, {hi}], got {x}"),
        ));
    }
    Ok(())
}

/// The fewest questions, on average, that **any** procedure asking a
/// person who never errs needs before it may stop with a credible ball of
/// chord radius ε at `level`, when the metric is a unit vector in q
/// coordinates of any sign with a uniform prior (the LPME family on a
/// sphere, [`families::SphereLpme::new`]): log₂(level·|S^{q−1}|/|C_ε|),
/// with |S^{q−1}| the sphere's area and |C_ε| the area of a cap of chord
/// radius ε.
///
/// [`information_bound`] counts d·log₂(1/ε) bits as if the d = q − 1 free
/// parameters ranged over a unit cube; this counts the sphere itself. Each
/// run's exact answers end in a region of the sphere (the leaf of a
/// binary decision tree); stopping requires `level` of the region's
/// posterior (uniform on it) inside one cap, so a leaf has prior mass at
/// most |C_ε|/(level·|S^{q−1}|), and the expected depth of a binary tree
/// is at least the entropy of its leaves, at least log₂ of one over the
/// largest leaf's mass. For q = 2 (a circle) this is
/// log₂(level·π/θ) with θ = 2·asin(ε/2): 5.90 questions at ε = 0.05, 1.36×
/// d·log₂(1/ε) = 4.32, so no procedure meets 1.3× that count there.
///
/// The cap's area is A_{q−1}·∫₀^θ sin^{q−2}t dt, the integral by an
/// adaptive Gauss–Legendre rule at the working precision after taking out
/// θ^{q−1}/(q − 1) (no cancellation for small θ), the areas by A₁ = 2,
/// A₂ = 2π, A_{n+2} = 2π·Aₙ/n, all in logarithms.
///
/// # Errors
/// [`Error::InvalidArgument`] for q < 2 or q > 100 000, ε outside (0, 2]
/// or `level` outside (0, 1].
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::bayes::{information_bound, sphere_bound};
/// // The circle: log₂(0.95·π/θ), θ = 2·asin(0.025).
/// let theta = 2.0 * (0.025f64).asin();
/// let circle = sphere_bound(2, &0.05, &0.95).unwrap();
/// assert!((circle - (0.95 * std::f64::consts::PI / theta).log2()).abs() < 1e-12);
/// assert!(circle / information_bound(1, &0.05, &0.0).unwrap() > 1.36);
/// // The 2-sphere: a cap of chord radius ε has area π·ε².
/// let s2 = sphere_bound(3, &0.02, &1.0).unwrap();
/// assert!((s2 - (4.0 / (0.02f64 * 0.02)).log2()).abs() < 1e-9);
/// // Many coordinates stay finite; bad input is an error, never a panic.
/// let wide = sphere_bound(2000, &0.05, &0.95).unwrap();
/// assert!(wide.is_finite() && wide > information_bound(1999, &0.05, &0.0).unwrap() * 0.5);
/// assert!(sphere_bound(1, &0.05, &0.95).is_err());
/// assert!(sphere_bound(3, &f64::NAN, &0.95).is_err());
/// ```
pub fn sphere_bound<T: Scalar>(q: usize, eps: &T, level: &T) -> Result<T> {
    let (zero, one, two) = (T::int(0), T::int(1), T::int(2));
    if q < 2 {
        return Err(Error::invalid(
            "q",
            format!("the sphere needs at least 2 coordinates, got {q}"),
        ));
    }
    half_open("eps", eps, &two)?;
    half_open("level", level, &one)?;
    if q > 100_000 {
        return Err(Error::invalid(
            "q",
            format!("at most 100000 coordinates, got {q}"),
        ));
    }
    // ln Aₙ, the area of the unit sphere in ℝⁿ (logarithms throughout, so
    // that no large q under- or overflows).
    let ln_area = |n: usize| -> T {
        let ln_two_pi = (two.clone() * T::pi()).ln();
        let (mut a, mut m) = if n % 2 == 1 {
            (two.clone().ln(), 1)
        } else {
            (ln_two_pi.clone(), 2)
        };
        while m < n {
            a = a + ln_two_pi.clone() - T::int(m as i64).ln();
            m += 2;
        }
        a
    };
    // ∫₀^θ sin^k t dt = θ^{k+1}/(k + 1)·J, J = (k + 1)·∫₀¹ s^k·sinc(θs)^k ds
    // in (0, 1], integrated adaptively (its tolerance is absolute, and J is
    // of order one).
    let theta = two.clone() * (eps.clone() / two.clone()).asin();
    let k = q - 2;
    let power = k as i32;
    let k1 = T::int(k as i64 + 1);
    let rule = crate::quadrature::GaussLegendre::<T>::for_precision()?;
    let j = rule.integrate_adaptive(
        &mut |s: &T| {
            let x = theta.clone() * s.clone();
            let sinc = if x == zero {
                one.clone()
            } else {
                x.clone().sin() / x
            };
            (s.clone() * sinc).powi(power)
        },
        &zero,
        &one,
    ) * k1.clone();
    let ln_cap = ln_area(q - 1) + k1.clone() * theta.ln() - k1.ln() + j.ln();
    Ok((level.clone().ln() + ln_area(q) - ln_cap) / T::ln_2())
}

/// The fewest questions, on average, that **any** procedure asking a
/// person who never errs needs before it may stop with `level` of the
/// posterior within ε in max |Δw| of one estimate, when the metric is
/// `parts` non-negative weights summing to one with a uniform prior (the
/// DLPM and cost/reward families, [`families::Dlpm`],
/// [`families::CostReward`]: an Exp(1) prior on each weight, ℓ₁-normalized,
/// is uniform on the simplex): log₂(level·|Δ|/|B_ε|).
///
/// The argument is [`sphere_bound`]'s with the simplex for the sphere: in
/// the first d = parts − 1 weights the simplex has volume 1/d!, and the
/// differences within ε of an estimate, {x : |xᵢ| ≤ ε, |Σxᵢ| ≤ ε}, have
/// volume (2ε)^d·P(|U₁ + … + U_d| ≤ 1), Uᵢ uniform on [−1, 1] (the
/// Irwin–Hall distribution; ¾ for d = 2, a hexagon of area 3ε²). A ball
/// cut by the simplex's faces is smaller still, so the bound holds at the
/// faces too. With d·log₂(1/ε) counting a unit cube per weight, this is
/// below that count: the simplex is smaller than the cube.
///
/// # Errors
/// [`Error::InvalidArgument`] for `parts` < 2 or > 21 (the Irwin–Hall sum
/// alternates and would lose every digit of an f64 beyond), ε outside
/// (0, 1] or `level` outside (0, 1].
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::bayes::simplex_bound;
/// // Three weights: log₂(level·(1/2)/(3ε²)).
/// let three = simplex_bound(3, &0.05, &0.95).unwrap();
/// assert!((three - (0.95f64 * 0.5 / (3.0 * 0.05 * 0.05)).log2()).abs() < 1e-12);
/// assert!(simplex_bound(1, &0.05, &0.95).is_err());
/// ```
pub fn simplex_bound<T: Scalar>(parts: usize, eps: &T, level: &T) -> Result<T> {
    let (zero, one, two) = (T::int(0), T::int(1), T::int(2));
    if !(2..=21).contains(&parts) {
        return Err(Error::invalid(
            "parts",
            format!("must lie in 2..=21, got {parts}"),
        ));
    }
    half_open("eps", eps, &one)?;
    half_open("level", level, &one)?;
    let d = parts - 1;
    // d!·F(x) for the Irwin–Hall distribution of d uniforms on [0, 1]:
    // Σ_{k ≤ x} (−1)^k·C(d, k)·(x − k)^d, x a multiple of ½.
    let scaled_cdf = |x: &T| -> T {
        let mut sum = zero.clone();
        let mut binomial = one.clone();
        for k in 0..=d {
            let kt = T::int(k as i64);
            if kt > *x {
                break;
            }
            let term = binomial.clone() * (x.clone() - kt).powi(d as i32);
            sum = if k % 2 == 0 { sum + term } else { sum - term };
            binomial = binomial * T::int((d - k) as i64) / T::int(k as i64 + 1);
        }
        sum
    };
    let dt = T::int(d as i64);
    // d!·P(|ΣUᵢ| ≤ 1) = d!·P((d − 1)/2 ≤ ΣVᵢ ≤ (d + 1)/2), Vᵢ on [0, 1].
    let mass = scaled_cdf(&((dt.clone() + one.clone()) / two.clone()))
        - scaled_cdf(&((dt.clone() - one.clone()) / two.clone()));
    // |Δ|/|B_ε| = (1/d!)/((2ε)^d·mass/d!) = 1/((2ε)^d·mass).
    let ln_ball = dt * (two * eps.clone()).ln() + mass.ln();
    Ok((level.clone().ln() - ln_ball) / T::ln_2())
}

/// A question: which of two points does the person prefer?
#[derive(Debug, Clone)]
pub struct Question<T, P> {
    /// The first point.
    pub first: P,
    /// The second point.
    pub second: P,
    /// The posterior probability that a person who never errs prefers the
    /// first.
    pub split: T,
    /// The expected information of the answer, in bits.
    pub information: T,
    /// A consistency check ([`Watch`]): the answer at least 95 % of the
    /// posterior gives; `None` for an ordinary question.
    pub expected: Option<Preference>,
    delta: Vec<T>,
}

impl<T, P> Question<T, P> {
    /// The feature difference f(first) − f(second).
    pub fn delta(&self) -> &[T] {
        &self.delta
    }
}

/// Why an elicitation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// The credible radius reached ε.
    Converged,
    /// The question budget was spent first.
    Budget,
    /// No visible question splits the posterior any more.
    NoQuestion,
    /// The consistency checks ([`Watch`]) contradicted the posterior: the
    /// answers follow no metric of the family.
    Contradicted,
}

/// The posterior's summary at a point of the elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary<T> {
    /// The estimate θ̂/s(θ̂): the posterior mean of the normalized vectors,
    /// normalized again.
    pub estimate: DVector<T>,
    /// The estimate's family parameters ([`Family::report`]).
    pub report: Vec<T>,
    /// The credible radius at the settings' level, in the family's error
    /// measure.
    pub radius: T,
    /// Each reported parameter's credible half-width (the level quantile
    /// of |parameter − estimate|).
    pub widths: Vec<T>,
    /// The posterior-mean mistake probability (unknown p), or the assumed
    /// p (known p); `None` under Bradley–Terry.
    pub mistake_rate: Option<T>,
    /// The effective sample size of the particles.
    pub ess: T,
}

/// One parameter of the estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter<T> {
    /// Its name ([`Family::report_names`]).
    pub name: String,
    /// Its estimate.
    pub value: T,
    /// Its credible half-width.
    pub half_width: T,
}

/// The agreement of the check questions with the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Checks {
    /// Check questions asked.
    pub asked: usize,
    /// Strict answers that agree with the estimate's preference.
    pub agreed: usize,
    /// "Can't tell" answers.
    pub indifferent: usize,
}

/// Sampler diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    /// Resampling steps.
    pub resamples: usize,
    /// Metropolis sweeps over all particles.
    pub sweeps: usize,
    /// Proposals made.
    pub proposals: usize,
    /// Proposals accepted.
    pub accepted: usize,
}

/// The result of [`elicit`].
#[derive(Debug, Clone, PartialEq)]
pub struct BayesEstimate<T: Scalar, M> {
    /// The family's metric, **only when it is determined**: the credible
    /// radius is at most ε and the family accepts the estimate. An
    /// estimate the answers cannot support is never presented as the
    /// metric.
    pub metric: Option<M>,
    /// The estimate θ̂/s(θ̂) (always given, for inspection).
    pub theta: DVector<T>,
    /// The family's parameters of the estimate with their credible
    /// half-widths.
    pub parameters: Vec<Parameter<T>>,
    /// The credible radius in the family's error measure.
    pub radius: T,
    /// The credible level.
    pub level: T,
    /// Parameters whose credible half-width is wider than ε
    /// ("undetermined"); empty when the radius is at most ε.
    pub undetermined: Vec<String>,
    /// The estimated mistake rate of the person (see
    /// [`Summary::mistake_rate`]; under Bradley–Terry and the person
    /// model the posterior-mean probability of a wrong answer to the
    /// questions asked, near-ties included).
    pub mistake_rate: Option<T>,
    /// The fraction of strict answers that disagree with the estimate.
    pub disagreement: T,
    /// Questions asked (check questions not included).
    pub questions: usize,
    /// "Can't tell" answers among them.
    pub ties: usize,
    /// The check questions' agreement, when asked.
    pub checks: Option<Checks>,
    /// The consistency checks asked during the elicitation ([`Watch`]);
    /// `None` without them.
    pub watched: Option<Watched>,
    /// Why it stopped.
    pub stop: Stop,
    /// Why the estimate is less certain than ε promises, where it is.
    pub warnings: Vec<Warning>,
    /// Sampler diagnostics.
    pub diagnostics: Diagnostics,
}

impl<T: Scalar, M> BayesEstimate<T, M> {
    /// Whether the credible radius reached ε.
    pub fn determined(&self) -> bool {
        self.undetermined.is_empty() && self.stop == Stop::Converged
    }

    /// Whether the consistency checks ended the elicitation
    /// ([`Stop::Contradicted`]): the answers went against the posterior
    /// often enough that no metric is presented.
    pub fn contradicted(&self) -> bool {
        self.stop == Stop::Contradicted
    }
}

/// The engine, one question at a time: [`Engine::next_question`], then
/// [`Engine::observe`] with the person's answer. [`elicit`] drives it with
/// an oracle.
pub struct Engine<'f, T: Scalar, F: Family<T>> {
    family: &'f F,
    state: Saved<T>,
}

impl<T: Scalar, F: Family<T>> Clone for Engine<'_, T, F> {
    fn clone(&self) -> Self {
        Engine {
            family: self.family,
            state: self.state.clone(),
        }
    }
}

impl<'f, T: Scalar, F: Family<T>> Engine<'f, T, F> {
    /// An engine with the prior's particles.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `family` when its shapes disagree
    /// (cone length, D = 0) or its cone admits (almost) nothing.
    pub fn new(family: &'f F, settings: BayesSettings<T>) -> Result<Self> {
        let d = family.dim();
        if d == 0 || family.cone().signs.len() != d {
            return Err(Error::invalid(
                "family",
                format!(
                    "{}: D = {d} parameters with {} sign constraints",
                    family.name(),
                    family.cone().signs.len()
                ),
            ));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut particles = Particles::from_prior(family, settings.particles, &mut rng)
            .ok_or_else(|| {
                Error::invalid(
                    "family",
                    format!(
                        "{}: the prior's draws keep falling outside the parameter cone",
                        family.name()
                    ),
                )
            })?;
        let lik = Likelihood::new(&settings);
        lik.draw_cells(&mut particles.state, &mut rng);
        Ok(Engine {
            family,
            state: Saved {
                lik,
                scale: T::int(2),
                settings,
                rng,
                particles,
                history: History::new(d),
                ties: 0,
                watched: Watched::default(),
                diagnostics: Diagnostics::default(),
            },
        })
    }

    /// Questions answered so far.
    pub fn questions(&self) -> usize {
        self.state.history.len()
    }

    /// The settings.
    pub fn settings(&self) -> &BayesSettings<T> {
        &self.state.settings
    }

    /// Sampler diagnostics so far.
    pub fn diagnostics(&self) -> Diagnostics {
        self.state.diagnostics
    }

    /// The mistake probability used to rank questions: the known p, the
    /// posterior mean of an unknown p, 0 under Bradley–Terry (whose
    /// information is computed from τ).
    fn mistake(&self, weights: &[T]) -> T {
        match &self.state.settings.answers {
            AnswerModel::Mistakes { p } => p.clone(),
            AnswerModel::UnknownMistakes { .. } | AnswerModel::Person { .. } => {
                let mut p = T::int(0);
                for (w, s) in weights.iter().zip(&self.state.particles.state) {
                    if let Some(x) = self.state.lik.mistake_mean(s) {
                        p += &(x * w.clone());
                    }
                }
                p
            }
            AnswerModel::BradleyTerry { .. } => T::int(0),
        }
    }

    fn estimate_of(&self, weights: &[T]) -> (DVector<T>, DVector<T>, nalgebra::DMatrix<T>) {
        let (mean, cov) = self.state.particles.moments(weights);
        let s = self.family.scale(mean.as_slice());
        let estimate = if s > T::int(0) && s.finite() {
            &mean / s
        } else {
            // No mean direction (a posterior spread all around): the
            // heaviest particle.
            let best = (0..self.state.particles.n)
                .max_by(|a, b| {
                    weights[*a]
                        .partial_cmp(&weights[*b])
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .unwrap_or(0);
            DVector::from_column_slice(self.state.particles.norm_of(best))
        };
        (estimate, mean, cov)
    }

    /// The posterior's summary now: estimate, credible radius, widths,
    /// mistake rate.
    pub fn summary(&self) -> Summary<T> {
        let weights = self.state.particles.weights();
        let (estimate, _, _) = self.estimate_of(&weights);
        let names = self.family.report_names().len();
        let mut report = vec![T::int(0); names];
        self.family.report(estimate.as_slice(), &mut report);
        let mut errors = Vec::with_capacity(self.state.particles.n);
        let mut gaps: Vec<Vec<T>> = vec![Vec::with_capacity(self.state.particles.n); names];
        let mut rep = vec![T::int(0); names];
        for i in 0..self.state.particles.n {
            self.family
                .report(self.state.particles.norm_of(i), &mut rep);
            errors.push(self.family.error(&report, &rep));
            for (g, (x, y)) in gaps.iter_mut().zip(rep.iter().zip(&report)) {
                g.push((x.clone() - y.clone()).abs());
            }
        }
        let level = &self.state.settings.level;
        let radius = quantile(&errors, &weights, level);
        let widths = gaps.iter().map(|g| quantile(g, &weights, level)).collect();
        let mistake_rate = match &self.state.settings.answers {
            AnswerModel::BradleyTerry { .. } => None,
            _ => Some(self.mistake(&weights)),
        };
        Summary {
            estimate,
            report,
            radius,
            widths,
            mistake_rate,
            ess: Particles::<T>::ess(&weights),
        }
    }

    /// The estimate and its credible radius only (what the stopping rule
    /// needs; [`Engine::summary`] adds the per-parameter widths).
    pub fn radius(&self) -> T {
        let weights = self.state.particles.weights();
        let (estimate, _, _) = self.estimate_of(&weights);
        let names = self.family.report_names().len();
        let mut report = vec![T::int(0); names];
        self.family.report(estimate.as_slice(), &mut report);
        let mut rep = vec![T::int(0); names];
        let errors: Vec<T> = (0..self.state.particles.n)
            .map(|i| {
                self.family
                    .report(self.state.particles.norm_of(i), &mut rep);
                self.family.error(&report, &rep)
            })
            .collect();
        quantile(&errors, &weights, &self.state.settings.level)
    }

    /// The next question: the best visible candidate of the family's query
    /// space, or a random visible pair when no candidate splits the
    /// posterior; `None` when no visible pair carries information.
    pub fn next_question(&mut self) -> Option<Question<T, F::Point>> {
        let weights = self.state.particles.weights();
        if self.check_due() {
            if let Some(q) = self.check_question(&weights) {
                return Some(q);
            }
        }
        let (estimate, mean, cov) = self.estimate_of(&weights);
        let eig = cov.clone().symmetric_eigen();
        let mut order: Vec<usize> = (0..eig.eigenvalues.len()).collect();
        order.sort_by(|a, b| {
            eig.eigenvalues[*b]
                .partial_cmp(&eig.eigenvalues[*a])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let axes = order
            .iter()
            .map(|k| eig.eigenvectors.column(*k).into_owned())
            .collect();
        let variances = order.iter().map(|k| eig.eigenvalues[*k].clone()).collect();
        let view = View {
            family: self.family,
            d: self.state.particles.d,
            n: self.state.particles.n,
            norm: &self.state.particles.norm,
            weights: &weights,
            mean,
            cov,
            axes,
            variances,
            estimate,
        };
        let mistake = self.mistake(&weights);
        let predictive: Option<Vec<_>> = match &self.state.settings.answers {
            AnswerModel::Person { .. } => self
                .state
                .particles
                .state
                .iter()
                .map(|s| self.state.lik.predictive(s))
                .collect(),
            _ => None,
        };
        let predictive = predictive.as_deref();
        let candidates = self.family.candidates(&view, &mut self.state.rng);
        let model = &self.state.settings.answers;
        let min_visible = &self.state.settings.min_visible;
        let mut best = select::choose(&view, candidates, model, &mistake, predictive, min_visible);
        let weak = best.as_ref().is_none_or(|b| {
            b.information < T::ratio(1, 20) * (T::int(1) - select::entropy(&mistake))
        });
        if weak {
            let random: Vec<_> = (0..64)
                .filter_map(|_| self.family.random_pair(&mut self.state.rng))
                .collect();
            if let Some(r) = select::choose(&view, random, model, &mistake, predictive, min_visible)
            {
                if best.as_ref().is_none_or(|b| r.score > b.score) {
                    best = Some(r);
                }
            }
        }
        best.map(|b| Question {
            first: b.first,
            second: b.second,
            split: b.split,
            information: b.information,
            expected: None,
            delta: b.delta,
        })
    }

    /// Whether consistency checks ([`Watch`]) have begun and are not yet
    /// decided: a converged run asks them ([`Engine::next_check`]) before
    /// it presents the metric.
    pub fn watch_open(&self) -> bool {
        let Some(watch) = &self.state.settings.watch else {
            return false;
        };
        self.state.watched.asked > 0 && self.checks_wanted(watch)
    }

    /// Whether `watch` has room for another check and its checks so far
    /// do not decide: fewer than `least` judged, or their disagreement
    /// rate still undecided ([`crate::diagnostics::checks_undecided`]).
    fn checks_wanted(&self, watch: &Watch) -> bool {
        let w = &self.state.watched;
        w.asked < watch.most
            && (w.judged < watch.least
                || crate::diagnostics::checks_undecided(w.disagreed, w.judged))
    }

    /// The next consistency check while [`Engine::watch_open`], whatever
    /// the count since the last; `None` when none is open or no pair is
    /// sure enough.
    pub fn next_check(&mut self) -> Option<Question<T, F::Point>> {
        if !self.watch_open() {
            return None;
        }
        let weights = self.state.particles.weights();
        self.check_question(&weights)
    }

    /// Whether the next question is a consistency check ([`Watch`]).
    fn check_due(&self) -> bool {
        let Some(watch) = &self.state.settings.watch else {
            return false;
        };
        let w = &self.state.watched;
        let n = self.questions();
        n >= watch.after && (w.asked == 0 || n >= w.last + watch.every) && self.checks_wanted(watch)
    }

    /// A consistency check: of 64 random visible pairs, those that at
    /// least 95 % of the posterior orders the same way, the one whose
    /// values differ most on the posterior mean of normalized particles
    /// (the easiest for a fuzzy person); `None` when no pair is that sure.
    fn check_question(&mut self, weights: &[T]) -> Option<Question<T, F::Point>> {
        let d = self.state.particles.d;
        let mean = self.state.particles.mean(weights);
        let sure = T::ratio(95, 100);
        let mut best: Option<(T, Question<T, F::Point>)> = None;
        let (mut a, mut b) = (vec![T::int(0); d], vec![T::int(0); d]);
        for _ in 0..64 {
            let Some((x, y)) = self.family.random_pair(&mut self.state.rng) else {
                continue;
            };
            if !select::visible(self.family, &x, &y, &self.state.settings.min_visible) {
                continue;
            }
            self.family.features(&x, &mut a);
            self.family.features(&y, &mut b);
            let delta: Vec<T> = a
                .iter()
                .zip(&b)
                .map(|(p, q)| p.clone() - q.clone())
                .collect();
            if delta.iter().any(|v| !v.finite()) {
                continue;
            }
            let mut first = T::int(0);
            for (i, w) in weights.iter().enumerate() {
                if family::dot(self.state.particles.norm_of(i), &delta) > T::int(0) {
                    first += w;
                }
            }
            let gap = family::dot(mean.as_slice(), &delta);
            let (expected, agree) = if gap > T::int(0) {
                (Preference::First, first.clone())
            } else {
                (Preference::Second, T::int(1) - first.clone())
            };
            if agree < sure || best.as_ref().is_some_and(|(g, _)| gap.clone().abs() <= *g) {
                continue;
            }
            let question = Question {
                first: x,
                second: y,
                split: first,
                information: T::int(0),
                expected: Some(expected),
                delta,
            };
            best = Some((gap.abs(), question));
        }
        best.map(|(_, q)| q)
    }

    /// The consistency checks so far ([`Watch`]).
    pub fn watched(&self) -> Watched {
        self.state.watched
    }

    /// Records the answer to `question` and updates the posterior.
    pub fn observe(&mut self, question: &Question<T, F::Point>, answer: Preference) {
        if let Some(expected) = question.expected {
            let w = &mut self.state.watched;
            w.asked += 1;
            w.last = self.state.history.len();
            if answer != Preference::Indifferent {
                w.judged += 1;
                if answer != expected {
                    w.disagreed += 1;
                }
            }
        }
        self.record(question.delta.clone(), answer);
    }

    /// Records the answer to any pair of points of the family's query
    /// space (e.g. a replayed transcript).
    pub fn observe_pair(&mut self, first: &F::Point, second: &F::Point, answer: Preference) {
        let d = self.state.particles.d;
        let (mut a, mut b) = (vec![T::int(0); d], vec![T::int(0); d]);
        self.family.features(first, &mut a);
        self.family.features(second, &mut b);
        for (x, y) in a.iter_mut().zip(&b) {
            *x -= y;
        }
        if a.iter().all(|x| x.finite()) {
            self.record(a, answer);
        }
    }

    fn record(&mut self, delta: Vec<T>, answer: Preference) {
        let width = dot_norm(&delta) * self.state.settings.tie_width.clone();
        if answer == Preference::Indifferent {
            self.state.ties += 1;
        }
        self.state.history.deltas.extend(delta);
        self.state.history.answers.push(answer);
        self.state.history.widths.push(width);
        self.state.lik.reserve(self.state.history.len());
        self.state
            .particles
            .reweight(&self.state.lik, &self.state.history);
        let weights = self.state.particles.weights();
        let ess = Particles::<T>::ess(&weights);
        let n = T::int(self.state.particles.n as i64);
        if ess < self.state.settings.resample_below.clone() * n {
            self.state.particles.resample(&weights, &mut self.state.rng);
            let stats: MoveStats = self.state.particles.rejuvenate(
                self.family,
                &self.state.lik,
                &self.state.history,
                self.state.settings.moves,
                self.state.settings.max_sweeps,
                &mut self.state.scale,
                &mut self.state.rng,
            );
            self.state.diagnostics.resamples += 1;
            self.state.diagnostics.sweeps += stats.sweeps;
            self.state.diagnostics.proposals += stats.proposals;
            self.state.diagnostics.accepted += stats.accepted;
        }
    }

    /// The likelihood state of a parameter vector θ (any scale) against
    /// every answer so far: (impossible answers, disagreements, informative
    /// strict answers, log-likelihood). For tests and diagnostics.
    #[doc(hidden)]
    pub fn likelihood_of(&self, theta: &[T]) -> (u32, u32, u32, T) {
        let s = self.family.scale(theta);
        let n: Vec<T> = theta.iter().map(|x| x.clone() / s.clone()).collect();
        let mut st = posterior::State::empty();
        for j in 0..self.state.history.len() {
            let v = family::dot(&n, self.state.history.delta(j));
            self.state.lik.add(
                &mut st,
                &v,
                self.state.history.answers[j],
                &self.state.history.widths[j],
            );
        }
        let value = self.state.lik.value(&st);
        (st.hard, st.k, st.m, value)
    }

    /// The particles' likelihood states (as [`Engine::likelihood_of`]) and
    /// weights. For tests and diagnostics.
    #[doc(hidden)]
    pub fn particle_states(&self) -> Vec<(u32, u32, u32, T, T)> {
        let w = self.state.particles.weights();
        (0..self.state.particles.n)
            .map(|i| {
                let st = &self.state.particles.state[i];
                (
                    st.hard,
                    st.k,
                    st.m,
                    self.state.particles.value[i].clone(),
                    w[i].clone(),
                )
            })
            .collect()
    }

    /// Whether every particle with weight agrees with every answer the
    /// model treats as certain (p = 0): the posterior has not lost the
    /// consistent set.
    pub fn least_violations(&self) -> u32 {
        self.state.particles.least_hard()
    }

    /// The sign of φ(first) − φ(second) under the estimate.
    fn estimate_prefers(&self, estimate: &DVector<T>, delta: &[T]) -> Preference {
        Preference::of(&family::dot(estimate.as_slice(), delta), &T::int(0))
    }

    /// The estimate with everything [`BayesEstimate`] reports.
    pub fn finish(&self, stop: Stop, checks: Option<Checks>) -> BayesEstimate<T, F::Metric> {
        let summary = self.summary();
        let eps = self.state.settings.eps.get();
        let names = self.family.report_names();
        let parameters: Vec<Parameter<T>> = names
            .iter()
            .zip(summary.report.iter().zip(&summary.widths))
            .map(|(n, (v, w))| Parameter {
                name: n.clone(),
                value: v.clone(),
                half_width: w.clone(),
            })
            .collect();
        let contradicted = stop == Stop::Contradicted;
        let converged = summary.radius <= *eps && !contradicted;
        let undetermined: Vec<String> = if converged {
            Vec::new()
        } else if contradicted {
            names.clone()
        } else {
            let wide: Vec<String> = parameters
                .iter()
                .filter(|p| p.half_width > *eps)
                .map(|p| p.name.clone())
                .collect();
            if wide.is_empty() {
                // Each parameter alone is within ε, their combination not.
                names.clone()
            } else {
                wide
            }
        };
        let mut warnings = Vec::new();
        let n = self.state.history.len();
        let w = self.state.watched;
        if contradicted {
            let (lo, hi) = crate::diagnostics::wilson(w.disagreed, w.judged).unwrap_or((0.0, 1.0));
            warnings.push(Warning::new(
                Cause::Contradictory,
                format!(
                    "{}: after {n} questions, {} of {} consistency checks (pairs that 95 % of the posterior orders alike) were answered the other way (95 % interval of the rate {lo:.2} to {hi:.2}; about 1 in 10 in the published user study): the answers follow no metric of this family",
                    self.family.name(),
                    w.disagreed,
                    w.judged,
                ),
            ));
        } else if !converged {
            warnings.push(Warning::new(
                Cause::Unidentifiable,
                format!(
                    "{}: after {n} questions ({}) the {:.0} % credible radius is {:.4}, wider than eps = {:.4}; undetermined: {}",
                    self.family.name(),
                    match stop {
                        Stop::Budget => "the budget",
                        Stop::NoQuestion => "no visible question splits the posterior",
                        Stop::Converged | Stop::Contradicted => "stopped",
                    },
                    self.state.settings.level.to_f64_lossy() * 100.0,
                    summary.radius.to_f64_lossy(),
                    eps.to_f64_lossy(),
                    undetermined.join(", ")
                ),
            ));
        }
        if stop == Stop::NoQuestion {
            warnings.push(Warning::new(
                Cause::Resolution,
                format!(
                    "no pair of the query space that differs visibly (by {:.4} in a shown number) splits the posterior any more",
                    self.state.settings.min_visible.to_f64_lossy()
                ),
            ));
        }
        // Disagreement with the estimate, and the BT mistake rate.
        let (mut strict, mut against) = (0usize, 0usize);
        let mut bt = T::int(0);
        // Under the person model: the posterior mean of the fraction of
        // strict answers against a particle (a posterior predictive check:
        // the estimate itself sits between particles and disagrees with
        // near-ties that every plausible metric answers either way).
        let mut observed: Option<T> = None;
        for j in 0..n {
            let answer = self.state.history.answers[j];
            if answer == Preference::Indifferent {
                continue;
            }
            strict += 1;
            let said = self.estimate_prefers(&summary.estimate, self.state.history.delta(j));
            if said != Preference::Indifferent && said != answer {
                against += 1;
            }
        }
        let weights = self.state.particles.weights();
        let mistake_rate = match &self.state.settings.answers {
            AnswerModel::BradleyTerry { tau } if strict > 0 => {
                for (i, w) in weights.iter().enumerate() {
                    if *w == T::int(0) {
                        continue;
                    }
                    let mut sum = T::int(0);
                    for j in 0..n {
                        if self.state.history.answers[j] == Preference::Indifferent {
                            continue;
                        }
                        let s = family::dot(
                            self.state.particles.norm_of(i),
                            self.state.history.delta(j),
                        );
                        sum += &crate::oracle::people::logistic(&(-s.abs() / tau.clone()));
                    }
                    bt += &(sum * w.clone());
                }
                Some(bt / T::int(strict as i64))
            }
            AnswerModel::Person { .. } if strict > 0 => {
                // What the person model expects of the questions asked:
                // P(against the metric) = Σ_t a_t + b_t·P_t(first | −|s|)
                // per particle, averaged over the strict answers.
                for (i, w) in weights.iter().enumerate() {
                    if *w == T::int(0) {
                        continue;
                    }
                    let state = &self.state.particles.state[i];
                    let Some(pred) = self.state.lik.predictive(state) else {
                        continue;
                    };
                    let seen = T::int(i64::from(state.k)) / T::int(strict as i64);
                    observed = Some(observed.unwrap_or_else(|| T::int(0)) + seen * w.clone());
                    let mut sum = T::int(0);
                    for j in 0..n {
                        if self.state.history.answers[j] == Preference::Indifferent {
                            continue;
                        }
                        let s = family::dot(
                            self.state.particles.norm_of(i),
                            self.state.history.delta(j),
                        );
                        sum += &pred.first(&(-s.abs()));
                    }
                    bt += &(sum * w.clone());
                }
                Some(bt / T::int(strict as i64))
            }
            AnswerModel::BradleyTerry { .. } => None,
            _ => summary.mistake_rate.clone(),
        };
        let disagreement = if strict > 0 {
            T::int(against as i64) / T::int(strict as i64)
        } else {
            T::int(0)
        };
        match (&self.state.settings.answers, &mistake_rate) {
            // Under Bradley–Terry the rate is what the model expects of
            // the questions asked (the engine asks near-ties, which such a
            // person answers nearly at random): contradiction is
            // disagreeing with the estimate well beyond it (two binomial
            // standard deviations) and in more than a quarter of answers.
            (AnswerModel::BradleyTerry { .. } | AnswerModel::Person { .. }, Some(expected)) => {
                let disagreement = observed.clone().unwrap_or_else(|| disagreement.clone());
                let spread = (expected.clone() * (T::int(1) - expected.clone())
                    / T::int(strict.max(1) as i64))
                .sqrt();
                if disagreement > expected.clone() + T::int(2) * spread
                    && disagreement > T::ratio(1, 4)
                {
                    warnings.push(Warning::new(
                        Cause::Contradictory,
                        format!(
                            "the answers disagree with the estimate in {:.2} of the strict answers, where the answer model expects about {:.2}",
                            disagreement.to_f64_lossy(),
                            expected.to_f64_lossy()
                        ),
                    ));
                }
            }
            (_, Some(p)) if *p > T::ratio(1, 4) => {
                warnings.push(Warning::new(
                    Cause::Contradictory,
                    format!(
                        "the answers imply a mistake rate of {:.2}: many contradict every metric near the estimate",
                        p.to_f64_lossy()
                    ),
                ));
            }
            _ => {}
        }
        if let Some(c) = &checks {
            let strict = c.asked - c.indifferent;
            if strict > 0 && c.agreed * 10 < strict * 7 {
                warnings.push(Warning::new(
                    Cause::Contradictory,
                    format!(
                        "the check questions agree with the estimate in {} of {strict} strict answers",
                        c.agreed
                    ),
                ));
            }
        }
        if self.state.ties == n && n > 0 {
            // Not one preference: the near-tie model alone placed the
            // estimate (each tie says the pair's values are close, which
            // a person who cannot choose at all does not mean).
            warnings.push(Warning::new(
                Cause::Unidentifiable,
                format!(
                    "all {n} answers were \"can't tell\": none preferred one classifier, so the answers do not say which metric is meant"
                ),
            ));
        } else if self.state.ties * 4 > n && n > 0 {
            warnings.push(Warning::new(
                Cause::Plateau,
                format!("{} of {n} answers were \"can't tell\"", self.state.ties),
            ));
        }
        let metric = if converged {
            match self.family.metric(summary.estimate.as_slice()) {
                Ok(m) => Some(m),
                Err(e) => {
                    warnings.push(Warning::new(
                        Cause::OutsideFamily,
                        format!("the estimate is not a metric of the family: {e}"),
                    ));
                    None
                }
            }
        } else {
            None
        };
        BayesEstimate {
            metric,
            theta: summary.estimate,
            parameters,
            radius: summary.radius,
            level: self.state.settings.level.clone(),
            undetermined,
            mistake_rate,
            disagreement,
            questions: n,
            ties: self.state.ties,
            checks,
            watched: self.state.settings.watch.map(|_| w),
            stop,
            warnings,
            diagnostics: self.state.diagnostics,
        }
    }
}

/// The engine as a typed algorithm ([`Elicitation`]): a family with its
/// validated settings, run against any oracle over the family's points.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::Elicitation;
/// use metric_elicitation::elicit::bayes::{AnswerModel, Bayes, BayesSettings, families::BinaryLpm};
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::LogisticUniform;
/// use metric_elicitation::search::Tolerance;
/// let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap())
///     .answers(AnswerModel::Mistakes { p: 0.0 })
///     .build()
///     .unwrap();
/// let bayes = Bayes::new(BinaryLpm::new(LogisticUniform::new(5.0).unwrap()), settings);
/// let truth = Lpm::new(0.8, 0.6, 0.0).unwrap();
/// let est = bayes.elicit(&mut Simulated::new(truth)).unwrap();
/// let m = est.metric.unwrap();
/// assert!((m.m11 - 0.8).abs() <= 0.05 && (m.m00 - 0.6).abs() <= 0.05);
/// // The bound d·log₂(1/ε) for d = 1, ε = 0.05, rounded up.
/// assert_eq!(bayes.expected_queries(), Some(5));
/// ```
pub struct Bayes<T: Scalar, F: Family<T>> {
    family: F,
    settings: BayesSettings<T>,
    /// Where the last run stopped for an answer (an interview's step).
    memo: Mutex<Option<Memo<T, F::Point>>>,
}

impl<T: Scalar, F: Family<T> + Clone> Clone for Bayes<T, F> {
    /// The family and settings (a clone starts with no memo).
    fn clone(&self) -> Self {
        Bayes::new(self.family.clone(), self.settings.clone())
    }
}

impl<T: Scalar, F: Family<T> + std::fmt::Debug> std::fmt::Debug for Bayes<T, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bayes")
            .field("family", &self.family)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl<T: Scalar, F: Family<T>> Bayes<T, F> {
    /// The engine for `family` with `settings`.
    pub fn new(family: F, settings: BayesSettings<T>) -> Self {
        Bayes {
            family,
            settings,
            memo: Mutex::new(None),
        }
    }

    /// The family.
    pub fn family(&self) -> &F {
        &self.family
    }

    /// The settings.
    pub fn settings(&self) -> &BayesSettings<T> {
        &self.settings
    }
}

impl<T, F> Elicitation<T> for Bayes<T, F>
where
    T: Scalar,
    F: Family<T>,
    F::Point: QueryPoint + PartialEq + 'static,
{
    type Point = F::Point;
    type Estimate = BayesEstimate<T, F::Metric>;

    /// As [`elicit`]. A run that stops for an answer the oracle does not
    /// have yet (an interview's step) leaves a memo, and the next run whose
    /// oracle answers the same questions the same way goes on from there:
    /// each step of an interview costs one question, not a re-run of the
    /// whole posterior (same questions and result, tested).
    fn elicit(&self, oracle: &mut dyn Oracle<F::Point>) -> Result<Self::Estimate> {
        let memo = self.memo.lock().ok().and_then(|mut m| m.take());
        let (result, memo) = drive(&self.family, oracle, &self.settings, memo, |a, b| a == b);
        if let Ok(mut m) = self.memo.lock() {
            *m = memo;
        }
        result
    }

    /// The information bound d·log₂(1/ε)/(1 − H(p)) rounded up, with p the
    /// known mistake rate or the prior's mean α/(α + β): a lower bound on
    /// the questions (the engine asks 1.2 to 2 times it, measured), at most
    /// the budget (never more are asked); `None` under Bradley–Terry (no
    /// fixed mistake rate). Under the person model twice that bound at its
    /// prior's mean rate: near-tie answers weigh less, and through the
    /// example specs a consistent person was asked 1.6–3.2 times the bound
    /// with the check questions (docs/measurements/web-counts.md,
    /// 2026-12-01).
    fn expected_queries(&self) -> Option<usize> {
        let (p, factor) = match &self.settings.answers {
            AnswerModel::Mistakes { p } => (p.clone(), 1),
            AnswerModel::UnknownMistakes { alpha, beta } => {
                (alpha.clone() / (alpha.clone() + beta.clone()), 1)
            }
            AnswerModel::Person { .. } => (Likelihood::new(&self.settings).prior_rate()?, 2),
            AnswerModel::BradleyTerry { .. } => return None,
        };
        let bound = information_bound(self.family.free(), self.settings.eps.get(), &p).ok()?
            * T::int(factor);
        let rounded = bound.ceil().to_f64_lossy();
        (rounded.is_finite() && rounded >= 0.0)
            .then_some((rounded as usize).min(self.settings.budget))
    }
}

/// A draw from the family's prior, normalized (θ/s(θ)): a random metric
/// of the family. A credible set is calibrated for truths drawn from the
/// prior, so the calibration tests and the measurement harness draw their
/// metrics here. `None` when the cone rejects the draws.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::bayes::{draw_prior, families::Dlpm};
/// use metric_elicitation::population::PairBlocks;
/// let family = Dlpm::new(PairBlocks::new(3, 5.0).unwrap());
/// let a = draw_prior::<f64, _>(&family, 7).unwrap();
/// assert!((a.sum() - 1.0).abs() < 1e-12 && a.iter().all(|x| *x >= 0.0));
/// ```
pub fn draw_prior<T: Scalar, F: Family<T>>(family: &F, seed: u64) -> Option<DVector<T>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let particles = Particles::from_prior(family, 1, &mut rng)?;
    Some(DVector::from_column_slice(particles.norm_of(0)))
}

fn dot_norm<T: Scalar>(x: &[T]) -> T {
    family::dot(x, x).sqrt()
}

/// The weighted `level` quantile of `values`.
fn quantile<T: Scalar>(values: &[T], weights: &[T], level: &T) -> T {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|a, b| {
        values[*a]
            .partial_cmp(&values[*b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut cumulative = T::int(0);
    let mut last = T::int(0);
    for i in order {
        if weights[i] == T::int(0) {
            continue;
        }
        cumulative += &weights[i];
        last = values[i].clone();
        if cumulative >= *level {
            return last;
        }
    }
    last
}

/// Elicits a metric of `family` from `oracle` (see the module docs): asks
/// the most informative visible question until the credible radius is at
/// most ε (or the budget, or no question is left), then the check
/// questions.
///
/// # Errors
/// As [`Engine::new`]; [`Error::Interrupted`] when the oracle stops (its
/// progress names the questions answered and the credible radius).
pub fn elicit<T, F, O>(
    family: &F,
    oracle: &mut O,
    settings: &BayesSettings<T>,
) -> Result<BayesEstimate<T, F::Metric>>
where
    T: Scalar,
    F: Family<T>,
    O: Oracle<F::Point> + ?Sized,
{
    drive(family, oracle, settings, None, |_, _| true).0
}

/// A question the engine asked and the answer it got, with the credible
/// radius before it (what an interruption there reports).
struct Asked<T, P> {
    first: P,
    second: P,
    answer: Preference,
    radius: T,
}

/// The engine's owned state, without the family it borrows (what a memo
/// keeps between the steps of an interview).
#[derive(Clone)]
struct Saved<T: Scalar> {
    settings: BayesSettings<T>,
    rng: ChaCha8Rng,
    lik: Likelihood<T>,
    particles: Particles<T>,
    history: History<T>,
    scale: T,
    ties: usize,
    watched: Watched,
    diagnostics: Diagnostics,
}

/// Where a run stopped for its next answer: the engine then and every
/// question it had asked, so that a run over the same answers and one more
/// (an interview's next step) re-asks the recorded questions and goes on
/// from there instead of recomputing every posterior update.
struct Memo<T: Scalar, P> {
    saved: Saved<T>,
    asked: Vec<Asked<T, P>>,
}

impl<'f, T: Scalar, F: Family<T>> Engine<'f, T, F> {
    fn save(&self) -> Saved<T> {
        self.state.clone()
    }

    fn restore(family: &'f F, state: Saved<T>) -> Self {
        Engine { family, state }
    }
}

/// A run's result and the memo it leaves.
type Driven<T, F> = (
    Result<BayesEstimate<T, <F as Family<T>>::Metric>>,
    Option<Memo<T, <F as Family<T>>::Point>>,
);

/// [`elicit`], starting from `memo` where the oracle answers its questions
/// as recorded there (`same` compares points): the memo's engine goes on
/// from its last answer, with the same questions, answers and result as a
/// run from the prior (the engine is deterministic for its seed). Where an
/// answer differs, the run starts from the prior, the answers already read
/// standing for those questions. Returns the memo of where this run
/// stopped for an answer it could not get, if it did.
fn drive<T, F, O>(
    family: &F,
    oracle: &mut O,
    settings: &BayesSettings<T>,
    memo: Option<Memo<T, F::Point>>,
    same: impl Fn(&F::Point, &F::Point) -> bool,
) -> Driven<T, F>
where
    T: Scalar,
    F: Family<T>,
    O: Oracle<F::Point> + ?Sized,
{
    let procedure = format!("Bayesian elicitation of {} (issue #28)", family.name());
    let interrupted = |queries: usize, radius: &T, source: Error| Error::Interrupted {
        procedure: procedure.clone(),
        queries,
        progress: format!("credible radius {:.4}", radius.to_f64_lossy()),
        source: Box::new(source),
    };
    let mut engine = match Engine::new(family, settings.clone()) {
        Ok(e) => e,
        Err(e) => return (Err(e), None),
    };
    let mut asked: Vec<Asked<T, F::Point>> = Vec::new();
    // Answers read for the memo's questions when one of them differs.
    let mut read: Vec<Preference> = Vec::new();
    if let Some(memo) = memo {
        let mut stopped = None;
        for (i, a) in memo.asked.iter().enumerate() {
            match oracle.compare(&a.first, &a.second) {
                Ok(answer) => {
                    read.push(answer.preference);
                    if answer.preference != a.answer {
                        break;
                    }
                }
                Err(e) => {
                    stopped = Some((i, a.radius.clone(), e));
                    break;
                }
            }
        }
        if let Some((i, radius, e)) = stopped {
            // Where a run from the prior stops too, at this question.
            return (Err(interrupted(i, &radius, e)), Some(memo));
        }
        if read.len() == memo.asked.len()
            && read.iter().zip(&memo.asked).all(|(r, a)| *r == a.answer)
        {
            engine = Engine::restore(family, memo.saved);
            asked = memo.asked;
            read.clear();
        } else {
            asked = memo.asked;
            asked.truncate(read.len());
        }
    }
    // The questions of `asked` beyond the engine's answers have their
    // answers in `read`; the engine must ask them again, in order.
    let replayed = std::mem::take(&mut asked);
    let resumed = if read.is_empty() { replayed.len() } else { 0 };
    let mut pending = replayed.into_iter();
    // The generator before a draw that found no question.
    let mut unasked = None;
    if resumed > 0 {
        asked.extend(pending.by_ref());
    }
    let stop = loop {
        if settings
            .watch
            .is_some_and(|w| engine.state.watched.contradicted(w.least))
        {
            break Stop::Contradicted;
        }
        let radius = engine.radius();
        let converged = radius <= *settings.eps.get();
        if converged && !engine.watch_open() {
            break Stop::Converged;
        }
        if engine.questions() >= settings.budget {
            break if converged {
                Stop::Converged
            } else {
                Stop::Budget
            };
        }
        // Choosing a question draws from the engine's generator; a memo
        // holds it as it was before, so that the next run draws the same.
        let rng = engine.state.rng.clone();
        // Converged with checks begun and undecided: the checks finish
        // before the metric is presented.
        let next = if converged {
            engine.next_check()
        } else {
            engine.next_question()
        };
        let Some(question) = next else {
            unasked = Some(rng);
            break if converged {
                Stop::Converged
            } else {
                Stop::NoQuestion
            };
        };
        let answer = match pending.next() {
            Some(before) => {
                if !same(&before.first, &question.first) || !same(&before.second, &question.second)
                {
                    let e = Error::invalid(
                        "engine",
                        "a run over the same answers asked another question (the engine is not deterministic here)",
                    );
                    return (Err(e), None);
                }
                read[asked.len()]
            }
            None => match oracle.compare(&question.first, &question.second) {
                Ok(a) => a.preference,
                Err(e) => {
                    let err = interrupted(engine.questions(), &radius, e);
                    engine.state.rng = rng;
                    let memo = Memo {
                        saved: engine.save(),
                        asked,
                    };
                    return (Err(err), Some(memo));
                }
            },
        };
        asked.push(Asked {
            first: question.first.clone(),
            second: question.second.clone(),
            answer,
            radius,
        });
        engine.observe(&question, answer);
    };
    let mut saved = engine.save();
    if let Some(rng) = unasked {
        // The last run found no question after drawing: the next one
        // draws again from the same state (the check questions below
        // draw from the state after, as a run from the prior does).
        saved.rng = rng;
    }
    let memo = Memo { saved, asked };
    (
        finish_run(family, oracle, settings, engine, stop, &interrupted),
        Some(memo),
    )
}

/// The check questions after the loop, then the estimate.
fn finish_run<T, F, O>(
    family: &F,
    oracle: &mut O,
    settings: &BayesSettings<T>,
    mut engine: Engine<'_, T, F>,
    stop: Stop,
    interrupted: &dyn Fn(usize, &T, Error) -> Error,
) -> Result<BayesEstimate<T, F::Metric>>
where
    T: Scalar,
    F: Family<T>,
    O: Oracle<F::Point> + ?Sized,
{
    let checks = if settings.checks > 0 {
        let summary = engine.summary();
        let mut checks = Checks {
            asked: 0,
            agreed: 0,
            indifferent: 0,
        };
        let mut tries = 0;
        while checks.asked < settings.checks && tries < 100 * settings.checks {
            tries += 1;
            let Some((x, y)) = family.random_pair(&mut engine.state.rng) else {
                continue;
            };
            if !select::visible(family, &x, &y, &settings.min_visible) {
                continue;
            }
            let answer = oracle
                .compare(&x, &y)
                .map_err(|e| interrupted(engine.questions(), &summary.radius, e))?;
            checks.asked += 1;
            let d = family.dim();
            let (mut a, mut b) = (vec![T::int(0); d], vec![T::int(0); d]);
            family.features(&x, &mut a);
            family.features(&y, &mut b);
            for (p, q) in a.iter_mut().zip(&b) {
                *p -= q;
            }
            match answer.preference {
                Preference::Indifferent => checks.indifferent += 1,
                said => {
                    if engine.estimate_prefers(&summary.estimate, &a) == said {
                        checks.agreed += 1;
                    }
                }
            }
        }
        Some(checks)
    } else {
        None
    };
    Ok(engine.finish(stop, checks))
}
