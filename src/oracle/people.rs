//! Simulated people: answer models that err the way people do
//! (issue #28, `notes/people.md` "Answer models to simulate").
//!
//! * [`Mistakes`] — wraps any oracle and flips each strict answer with
//!   probability p, independently (a person who misclicks or misreads one
//!   question in ten: p = 0.1). It composes with the ε_Ω model:
//!   `Mistakes::new(Noisy::new(metric, eps_omega, adversary)?, p, seed)`
//!   is a person whose answers inside the band are the adversary's and who
//!   also errs anywhere with probability p.
//! * [`BradleyTerry`] — the logistic (Bradley–Terry) person: prefers the
//!   first point with probability σ((φ(x) − φ(y))/τ), so mistakes
//!   concentrate on near-ties; τ is the temperature in the metric's units.
//! * [`CantTell`] — wraps any oracle and answers "can't tell"
//!   ([`Preference::Indifferent`]) when |φ(x) − φ(y)| is below a width,
//!   as a person shown two nearly equal classifiers may.
//!
//! Every random choice comes from a ChaCha8 generator seeded by the caller,
//! so a simulated person is reproducible from its seed. Probabilities are
//! scalars of the working precision: the coin compares a uniform number
//! built from 53 random bits (exactly representable in every backend) with
//! p, with no `f64` arithmetic.

use super::{finite_values, Answer, Metric, Oracle, Preference};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A uniform number in [0, 1) from 53 random bits: k·2⁻⁵³ for a uniform
/// integer k < 2⁵³, exact at every precision (no `f64` arithmetic).
pub fn uniform<T: Scalar, R: Rng + ?Sized>(rng: &mut R) -> T {
    let k = rng.next_u64() >> 11;
    // k < 2^53 fits i64 exactly; 2^-53 is a power of two (exact).
    let mut x = T::int(k as i64);
    x.mul_pow2_assign(-53);
    x
}

/// σ(x) = 1/(1 + e^{−x}), evaluated without overflow for either sign.
pub fn logistic<T: Scalar>(x: &T) -> T {
    let one = T::int(1);
    if *x >= T::int(0) {
        one.clone() / (one + (-x.clone()).exp())
    } else {
        let e = x.clone().exp();
        e.clone() / (one + e)
    }
}

fn probability<T: Scalar>(name: &str, p: &T) -> Result<()> {
    if !p.finite() || *p < T::int(0) || *p > T::int(1) {
        return Err(Error::invalid(
            name,
            format!("a probability must lie in [0, 1], got {p}"),
        ));
    }
    Ok(())
}

/// Flips each strict answer of the wrapped oracle with probability p,
/// independently, from a seeded ChaCha8 generator (a person who errs at
/// random, whatever the pair).
///
/// **Indifferent answers are passed through unchanged**: a mistake is
/// choosing the wrong one of two options, and "can't tell" has no wrong
/// side to choose; a coin is still drawn for it, so the sequence of coins
/// (and hence every later answer) does not depend on where the ties fell.
/// The `in_noise_band` flag of the inner answer is kept.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{AlwaysWrong, Mistakes, Noisy, Oracle, Simulated};
/// // p = 0: the inner oracle's answers, unchanged
/// let mut exact = Mistakes::new(Simulated::new(|x: &f64| *x), 0.0, 7).unwrap();
/// assert!(exact.compare(&0.9, &0.1).unwrap().prefers_first());
/// // p = 1: every strict answer flipped
/// let mut contrary = Mistakes::new(Simulated::new(|x: &f64| *x), 1.0, 7).unwrap();
/// assert!(!contrary.compare(&0.9, &0.1).unwrap().prefers_first());
/// // composed with the ε_Ω model: an adversary inside the band, mistakes anywhere
/// let noisy = Noisy::new(|x: &f64| *x, 0.05, AlwaysWrong).unwrap();
/// let mut person = Mistakes::new(noisy, 0.1, 42).unwrap();
/// let wrong = (0..1000)
///     .filter(|_| !person.compare(&0.9, &0.1).unwrap().prefers_first())
///     .count();
/// assert!((60..=140).contains(&wrong), "{wrong}");
/// // a probability outside [0, 1] is a typed error naming the field
/// assert!(Mistakes::new(Simulated::new(|x: &f64| *x), 1.5, 7).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Mistakes<O, T> {
    inner: O,
    p: T,
    rng: ChaCha8Rng,
    flips: usize,
}

impl<O, T: Scalar> Mistakes<O, T> {
    /// `inner`'s answers, each strict one flipped with probability `p`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `p` unless 0 ≤ p ≤ 1.
    pub fn new(inner: O, p: T, seed: u64) -> Result<Self> {
        probability("p", &p)?;
        Ok(Mistakes {
            inner,
            p,
            rng: ChaCha8Rng::seed_from_u64(seed),
            flips: 0,
        })
    }

    /// The mistake probability p.
    pub fn p(&self) -> &T {
        &self.p
    }

    /// Answers flipped so far.
    pub fn flips(&self) -> usize {
        self.flips
    }

    /// The wrapped oracle.
    pub fn inner(&self) -> &O {
        &self.inner
    }
}

impl<Q: ?Sized, O: Oracle<Q>, T: Scalar> Oracle<Q> for Mistakes<O, T> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let mut answer = self.inner.compare(x, y)?;
        let coin: T = uniform(&mut self.rng);
        if coin < self.p && answer.preference != Preference::Indifferent {
            answer.preference = answer.preference.swapped();
            self.flips += 1;
        }
        Ok(answer)
    }
}

/// The Bradley–Terry (logistic) person: prefers x with probability
/// σ((φ(x) − φ(y))/τ), from a seeded ChaCha8 generator. A pair whose
/// values differ by much more than τ is answered correctly almost always; a
/// near-tie is a coin toss. Never indifferent (wrap it in [`CantTell`] for
/// that). `in_noise_band` is `None`: the model has no band.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{BradleyTerry, Oracle};
/// let mut person = BradleyTerry::new(|x: &f64| *x, 0.05, 3).unwrap();
/// let far = (0..200).filter(|_| person.compare(&0.9, &0.1).unwrap().prefers_first()).count();
/// assert_eq!(far, 200); // σ(16) ≈ 1 − 10⁻⁷
/// let near = (0..1000).filter(|_| person.compare(&0.51, &0.50).unwrap().prefers_first()).count();
/// assert!((480..=620).contains(&near), "{near}"); // σ(0.2) = 0.55
/// assert!(BradleyTerry::new(|x: &f64| *x, 0.0, 3).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct BradleyTerry<M, T> {
    metric: M,
    tau: T,
    rng: ChaCha8Rng,
}

impl<M, T: Scalar> BradleyTerry<M, T> {
    /// A person answering by `metric` at temperature `tau` > 0.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `tau` unless it is finite and > 0.
    pub fn new(metric: M, tau: T, seed: u64) -> Result<Self> {
        if !tau.finite() || tau <= T::int(0) {
            return Err(Error::invalid(
                "tau",
                format!("the temperature must be finite and > 0, got {tau}"),
            ));
        }
        Ok(BradleyTerry {
            metric,
            tau,
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    /// The temperature τ.
    pub fn tau(&self) -> &T {
        &self.tau
    }

    /// The hidden metric.
    pub fn metric(&self) -> &M {
        &self.metric
    }
}

impl<Q: ?Sized, T: Scalar, M: Metric<Q, Value = T>> Oracle<Q> for BradleyTerry<M, T> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let tau = self.tau.clone();
        let first = finite_values(&self.metric, x, y, |fx, fy| {
            logistic(&((fx.clone() - fy.clone()) / tau))
        })?;
        let coin: T = uniform(&mut self.rng);
        Ok(Answer {
            preference: Preference::from(coin < first),
            in_noise_band: None,
        })
    }
}

/// A Bradley–Terry person outside the wrapped oracle's noise band: where
/// the wrapped oracle says its answer came from inside the band
/// (`in_noise_band == Some(true)`, the ε_Ω adversary's), that answer;
/// elsewhere P(prefers x) = σ((φ(x) − φ(y))/τ) by `metric`, seeded. With
/// ε_Ω = 0 it is [`BradleyTerry`]; the spec's `temperature` beside
/// `eps_omega` builds it.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{AlwaysWrong, Noisy, Oracle, Tempered};
/// let band = Noisy::new(|x: &f64| *x, 0.05, AlwaysWrong).unwrap();
/// let mut person = Tempered::new(band, |x: &f64| *x, 0.01, 3).unwrap();
/// // Inside the band the adversary answers, always wrongly.
/// assert!(!person.compare(&0.52, &0.50).unwrap().prefers_first());
/// // Outside it, σ(30) ≈ 1: the better one.
/// assert!(person.compare(&0.80, &0.50).unwrap().prefers_first());
/// assert!(Tempered::new(Noisy::new(|x: &f64| *x, 0.0, AlwaysWrong).unwrap(), |x: &f64| *x, -1.0, 3).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Tempered<O, M, T> {
    inner: O,
    person: BradleyTerry<M, T>,
}

impl<O, M, T: Scalar> Tempered<O, M, T> {
    /// `inner`'s in-band answers, a Bradley–Terry person at temperature
    /// `tau` > 0 by `metric` elsewhere.
    ///
    /// # Errors
    /// As [`BradleyTerry::new`].
    pub fn new(inner: O, metric: M, tau: T, seed: u64) -> Result<Self> {
        Ok(Tempered {
            inner,
            person: BradleyTerry::new(metric, tau, seed)?,
        })
    }
}

impl<Q: ?Sized, O: Oracle<Q>, T: Scalar, M: Metric<Q, Value = T>> Oracle<Q> for Tempered<O, M, T> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let answer = self.inner.compare(x, y)?;
        if answer.in_noise_band == Some(true) {
            return Ok(answer);
        }
        let tempered = self.person.compare(x, y)?;
        Ok(Answer {
            preference: tempered.preference,
            in_noise_band: answer.in_noise_band,
        })
    }
}

/// Answers "can't tell" ([`Preference::Indifferent`]) whenever
/// |φ(x) − φ(y)| < `width`, and otherwise asks the wrapped oracle. A
/// person shown two classifiers of nearly equal value; `width = 0` never
/// says it.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{CantTell, Oracle, Preference, Simulated};
/// let mut person = CantTell::new(Simulated::new(|x: &f64| *x), |x: &f64| *x, 0.02).unwrap();
/// assert_eq!(person.compare(&0.51, &0.50).unwrap().preference, Preference::Indifferent);
/// assert_eq!(person.compare(&0.60, &0.50).unwrap().preference, Preference::First);
/// ```
#[derive(Debug, Clone)]
pub struct CantTell<O, M, T> {
    inner: O,
    metric: M,
    width: T,
}

impl<O, M, T: Scalar> CantTell<O, M, T> {
    /// `inner`'s answers, except "can't tell" below `width` by `metric`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `width` unless it is finite and
    /// ≥ 0.
    pub fn new(inner: O, metric: M, width: T) -> Result<Self> {
        if !width.finite() || width < T::int(0) {
            return Err(Error::invalid(
                "width",
                format!("must be finite and >= 0, got {width}"),
            ));
        }
        Ok(CantTell {
            inner,
            metric,
            width,
        })
    }
}

impl<Q: ?Sized, O: Oracle<Q>, T: Scalar, M: Metric<Q, Value = T>> Oracle<Q> for CantTell<O, M, T> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let width = self.width.clone();
        let close = finite_values(&self.metric, x, y, |fx, fy| {
            (fx.clone() - fy.clone()).abs() < width
        })?;
        if close {
            return Ok(Answer {
                preference: Preference::Indifferent,
                in_noise_band: None,
            });
        }
        self.inner.compare(x, y)
    }
}
