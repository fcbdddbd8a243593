//! The ε_Ω feedback-noise model (003 Def. 7) and its adversaries.

use super::{finite_values, Answer, Metric, Oracle, Preference};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Chooses the answer for a pair inside the noise band
/// |φ(x) − φ(y)| < ε_Ω, where the noise model allows any answer.
pub trait Adversary<Q: ?Sized> {
    /// The answer to "which of `x`, `y` is preferred?", given the truthful
    /// answer `truth`.
    ///
    /// # Errors
    /// An adversary may fail to answer (a script that ran out).
    fn answer(&mut self, x: &Q, y: &Q, truth: Preference) -> Result<Preference>;
}

impl<Q: ?Sized, A: Adversary<Q> + ?Sized> Adversary<Q> for Box<A> {
    fn answer(&mut self, x: &Q, y: &Q, truth: Preference) -> Result<Preference> {
        (**self).answer(x, y, truth)
    }
}

/// Always gives the wrong answer inside the band: the opposite strict
/// preference, and a strict preference for the first point where the truth
/// is a tie (the papers' binary reading of a tie is "no", so "yes" is the
/// wrong one).
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysWrong;

impl<Q: ?Sized> Adversary<Q> for AlwaysWrong {
    fn answer(&mut self, _: &Q, _: &Q, truth: Preference) -> Result<Preference> {
        Ok(match truth {
            Preference::First => Preference::Second,
            Preference::Second | Preference::Indifferent => Preference::First,
        })
    }
}

/// Answers inside the band by a fair coin from a seeded ChaCha8 generator, so
/// a run is reproducible from its seed.
#[derive(Debug, Clone)]
pub struct SeededRandom {
    rng: ChaCha8Rng,
}

impl SeededRandom {
    /// A coin seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SeededRandom {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl<Q: ?Sized> Adversary<Q> for SeededRandom {
    fn answer(&mut self, _: &Q, _: &Q, _: Preference) -> Result<Preference> {
        Ok(Preference::from(self.rng.random_bool(0.5)))
    }
}

/// Answers inside the band from a byte script, one bit per answer (least
/// significant bit first). Built for fuzzing: the script is any byte
/// sequence, e.g. from `arbitrary`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Scripted {
    bytes: Vec<u8>,
    used: usize,
}

impl Scripted {
    /// A script of `8·bytes.len()` answers.
    pub fn new(bytes: Vec<u8>) -> Self {
        Scripted { bytes, used: 0 }
    }

    /// In-band answers given so far.
    pub fn used(&self) -> usize {
        self.used
    }
}

impl<Q: ?Sized> Adversary<Q> for Scripted {
    fn answer(&mut self, _: &Q, _: &Q, _: Preference) -> Result<Preference> {
        let byte = self
            .bytes
            .get(self.used / 8)
            .ok_or(Error::ScriptExhausted { used: self.used })?;
        let bit = (byte >> (self.used % 8)) & 1 == 1;
        self.used += 1;
        Ok(Preference::from(bit))
    }
}

/// Inside the band, prefers whichever point lies farther from the true
/// optimum, so that a search is pushed away from it. `distance(q)` is the
/// distance of `q` from the optimum in the query space (for a search over an
/// interval: |q − q*|); equal distances get the truthful answer.
#[derive(Debug, Clone)]
pub struct PushAway<D> {
    distance: D,
}

impl<D> PushAway<D> {
    /// An adversary that knows the optimum through `distance`.
    pub fn new(distance: D) -> Self {
        PushAway { distance }
    }
}

impl<Q: ?Sized, T: Scalar, D: Fn(&Q) -> T> Adversary<Q> for PushAway<D> {
    fn answer(&mut self, x: &Q, y: &Q, truth: Preference) -> Result<Preference> {
        let (dx, dy) = ((self.distance)(x), (self.distance)(y));
        Ok(if dx == dy {
            truth
        } else {
            Preference::from(dx > dy)
        })
    }
}

/// An oracle with feedback noise ε_Ω (003 Def. 7): correct whenever
/// |φ(x) − φ(y)| ≥ ε_Ω; inside the band the adversary answers.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{AlwaysWrong, Noisy, Oracle};
/// let mut oracle = Noisy::new(|x: &f64| *x, 0.1, AlwaysWrong).unwrap();
/// let near = oracle.compare(&0.55, &0.5).unwrap();
/// assert!(!near.prefers_first() && near.in_noise_band == Some(true));
/// let far = oracle.compare(&0.9, &0.5).unwrap();
/// assert!(far.prefers_first() && far.in_noise_band == Some(false));
/// ```
#[derive(Debug, Clone)]
pub struct Noisy<M, A, T> {
    metric: M,
    eps_omega: T,
    adversary: A,
}

impl<M, A, T: Scalar> Noisy<M, A, T> {
    /// A noisy oracle for `metric` with band width `eps_omega ≥ 0`.
    ///
    /// # Errors
    /// [`Error::InvalidNoise`] when `eps_omega` is negative, NaN or infinite.
    pub fn new(metric: M, eps_omega: T, adversary: A) -> Result<Self> {
        if !eps_omega.finite() || eps_omega < T::int(0) {
            return Err(Error::InvalidNoise {
                value: eps_omega.to_string(),
            });
        }
        Ok(Noisy {
            metric,
            eps_omega,
            adversary,
        })
    }

    /// The band width ε_Ω.
    pub fn eps_omega(&self) -> &T {
        &self.eps_omega
    }

    /// The adversary (to inspect, e.g., how much of a script was used).
    pub fn adversary(&self) -> &A {
        &self.adversary
    }
}

impl<Q: ?Sized, T: Scalar, M: Metric<Q, Value = T>, A: Adversary<Q>> Oracle<Q> for Noisy<M, A, T> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let (truth, in_band) = finite_values(&self.metric, x, y, |fx, fy| {
            (
                Preference::of(fx, fy),
                (fx.clone() - fy.clone()).abs() < self.eps_omega,
            )
        })?;
        let preference = if in_band {
            self.adversary.answer(x, y, truth)?
        } else {
            truth
        };
        Ok(Answer {
            preference,
            in_noise_band: Some(in_band),
        })
    }
}
