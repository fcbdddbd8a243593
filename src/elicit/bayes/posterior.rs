//! The posterior: weighted particles on the parameter cone, the answer
//! models' likelihoods, resampling, and Metropolis moves that leave the
//! posterior invariant.
//!
//! Particles are kept as directions u (θ = r·u, u of unit ℓ2 or ℓ1 norm
//! by the [`Prior`]) together with their normalized metric vectors
//! n = u/s(u). The likelihood of an answer depends on s = ⟨n, Δf⟩ only.
//! A move draws r from its prior law (the likelihood does not depend on
//! it, so this is an exact Gibbs step), proposes θ′ = r·u + σ·r̄·Lz with
//! L the Cholesky factor of the particles' covariance (a fixed, symmetric
//! proposal within a sweep), and accepts by Metropolis–Hastings. Answers
//! are scanned newest first and a proposal is rejected as soon as its
//! partial likelihood cannot reach the acceptance threshold (every term is
//! ≤ 0), which decides exactly as a full evaluation would.

use super::family::positive;
use super::family::{dot, Cone, Family, Prior};
use super::{AnswerModel, BayesSettings};
use crate::oracle::people::uniform;
use crate::oracle::Preference;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;

/// Standard normal numbers. The random draws of the sampler are made in
/// `f64` (the ziggurat of `rand_distr`) and converted exactly to the
/// working precision, as [`crate::metric::fair::FairMetric::sample`] does:
/// a draw is an input, not a computed value, and every computation on it
/// runs in `T` (at 128 bits the draws carry 53 random bits, which is
/// irrelevant to a Monte Carlo sampler).
pub(crate) struct Normals<T> {
    _marker: std::marker::PhantomData<T>,
}

impl<T: Scalar> Normals<T> {
    pub(crate) fn new() -> Self {
        Normals {
            _marker: std::marker::PhantomData,
        }
    }

    pub(crate) fn draw(&mut self, rng: &mut ChaCha8Rng) -> T {
        use rand::Rng;
        let z: f64 = rng.sample(rand_distr::StandardNormal);
        T::from_f64_exact(z)
    }
}

/// −ln(u) for u uniform on (0, 1]: an Exp(1) number.
pub(crate) fn exponential<T: Scalar>(rng: &mut ChaCha8Rng) -> T {
    use rand::Rng;
    let x: f64 = rng.sample(rand_distr::Exp1);
    T::from_f64_exact(x)
}

/// The likelihood state of one particle: counts of the strict answers it
/// disagrees with (`k`) among those it finds informative (`m`), the
/// disagreements that are impossible under the model (`hard`, p = 0), and
/// the sum of the continuous terms (Bradley–Terry, "can't tell", and the
/// person model's strict answers at a temperature τ > 0), and under
/// [`AnswerModel::Person`] the particle's cell of the grid: the person's
/// (τ, p) is a latent variable of each particle, drawn with it (data
/// augmentation), so an answer costs one term, not one per cell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct State<T> {
    pub hard: u32,
    pub k: u32,
    pub m: u32,
    pub soft: T,
    pub cell: usize,
}

impl<T: Scalar> State<T> {
    pub(crate) fn empty() -> Self {
        State {
            hard: 0,
            k: 0,
            m: 0,
            soft: T::int(0),
            cell: 0,
        }
    }

    /// An empty state in the same cell (what a move re-accumulates).
    pub(crate) fn empty_in(cell: usize) -> Self {
        State {
            cell,
            ..State::empty()
        }
    }
}

/// The grid of [`AnswerModel::Person`]: its temperatures, its mistake
/// rates with their logarithms, and each cell's log prior weight (cell
/// `t·R + r` for temperature t and rate r, the weights summing to 1).
#[derive(Debug, Clone)]
struct Grid<T> {
    temperatures: Vec<T>,
    /// (p, ln p, ln(1 − p), 1 − 2p).
    rates: Vec<(T, T, T, T)>,
    log_weights: Vec<T>,
}

impl<T: Scalar> Grid<T> {
    fn new(alpha: &T, beta: &T, rates: &[T], temperatures: &[T]) -> Self {
        let one = T::int(1);
        // Beta(α, β) density up to its constant at each rate, in logs.
        let log_density: Vec<T> = rates
            .iter()
            .map(|p| {
                (alpha.clone() - one.clone()) * p.clone().ln()
                    + (beta.clone() - one.clone()) * (one.clone() - p.clone()).ln()
            })
            .collect();
        let top = log_density
            .iter()
            .fold(None::<T>, |m, x| match m {
                Some(m) if m >= *x => Some(m),
                _ => Some(x.clone()),
            })
            .unwrap_or_else(|| T::int(0));
        let total = log_density
            .iter()
            .fold(T::int(0), |acc, x| acc + (x.clone() - top.clone()).exp());
        let log_t = T::int(temperatures.len() as i64).ln();
        let log_rate: Vec<T> = log_density
            .iter()
            .map(|x| x.clone() - top.clone() - total.clone().ln() - log_t.clone())
            .collect();
        let log_weights = temperatures
            .iter()
            .flat_map(|_| log_rate.iter().cloned())
            .collect();
        Grid {
            temperatures: temperatures.to_vec(),
            rates: rates
                .iter()
                .map(|p| {
                    (
                        p.clone(),
                        p.clone().ln(),
                        (one.clone() - p.clone()).ln(),
                        one.clone() - p.clone() * T::int(2),
                    )
                })
                .collect(),
            log_weights,
        }
    }

    fn len(&self) -> usize {
        self.log_weights.len()
    }

    /// (τ, (p, ln p, ln(1 − p), 1 − 2p)) of a cell.
    fn cell(&self, c: usize) -> (&T, &(T, T, T, T)) {
        let r = self.rates.len();
        (&self.temperatures[c / r], &self.rates[c % r])
    }

    /// The log-likelihood of one strict answer in cell `c`, `x` the value
    /// difference signed by the answer (positive: the answer agrees).
    fn term(&self, c: usize, x: &T) -> T {
        let zero = T::int(0);
        let (tau, (p, lp, lq, q)) = self.cell(c);
        if *tau == zero {
            if *x > zero {
                lq.clone()
            } else {
                lp.clone()
            }
        } else {
            let z = x.clone() / tau.clone();
            if *p == zero {
                log_logistic(&z)
            } else {
                (p.clone() + q.clone() * crate::oracle::people::logistic(&z)).ln()
            }
        }
    }
}

/// An index drawn with probability proportional to `weights` (all ≥ 0,
/// not all 0; the last positive one if rounding leaves the mark past the
/// total).
fn categorical<T: Scalar>(weights: &[T], rng: &mut ChaCha8Rng) -> usize {
    let total = weights.iter().fold(T::int(0), |a, w| a + w.clone());
    let mark = uniform::<T, _>(rng) * total;
    let mut cumulative = T::int(0);
    for (i, w) in weights.iter().enumerate() {
        cumulative += w;
        if mark < cumulative {
            return i;
        }
    }
    (0..weights.len())
        .rev()
        .find(|i| weights[*i] > T::int(0))
        .unwrap_or(0)
}

/// The probability that the answer to a question with signed value
/// difference `x` (positive: the first point is better) is "first",
/// under a person's temperature τ: σ(x/τ), or the sign for τ = 0.
fn judged<T: Scalar>(x: &T, tau: &T) -> T {
    let zero = T::int(0);
    if *tau > zero {
        crate::oracle::people::logistic(&(x.clone() / tau.clone()))
    } else if *x > zero {
        T::int(1)
    } else if *x < zero {
        zero
    } else {
        T::ratio(1, 2)
    }
}

/// A particle's law of a strict answer under [`AnswerModel::Person`]
/// (its cell's τ and p): P(first) = p + (1 − 2p)·P_τ(first).
#[derive(Debug, Clone)]
pub(crate) struct Predictive<T> {
    pub rate: T,
    pub temperature: T,
}

impl<T: Scalar> Predictive<T> {
    /// P(first) for a value difference `x`.
    pub(crate) fn first(&self, x: &T) -> T {
        let p = &self.rate;
        p.clone() + (T::int(1) - p.clone() * T::int(2)) * judged(x, &self.temperature)
    }
}

/// The answer model's log-likelihood.
#[derive(Debug, Clone)]
pub(crate) struct Likelihood<T> {
    model: AnswerModel<T>,
    band: T,
    /// ln p, ln(1 − p) of a known p > 0.
    logs: Option<(T, T)>,
    /// Beta(α, β) tables: Σ_{i<j} ln(α + i), ln(β + i), ln(α + β + i).
    alpha: Vec<T>,
    beta: Vec<T>,
    both: Vec<T>,
    /// The grid of the person model.
    grid: Option<Grid<T>>,
}

impl<T: Scalar> Likelihood<T> {
    pub(crate) fn new(settings: &BayesSettings<T>) -> Self {
        let logs = match &settings.answers {
            AnswerModel::Mistakes { p } if *p > T::int(0) => {
                Some((p.clone().ln(), (T::int(1) - p.clone()).ln()))
            }
            _ => None,
        };
        let grid = match &settings.answers {
            AnswerModel::Person {
                alpha,
                beta,
                rates,
                temperatures,
            } => Some(Grid::new(alpha, beta, rates, temperatures)),
            _ => None,
        };
        Likelihood {
            model: settings.answers.clone(),
            band: settings.band.clone(),
            logs,
            grid,
            alpha: vec![T::int(0)],
            beta: vec![T::int(0)],
            both: vec![T::int(0)],
        }
    }

    /// Makes the Beta tables hold `n` answers.
    pub(crate) fn reserve(&mut self, n: usize) {
        if let AnswerModel::UnknownMistakes { alpha, beta } = &self.model {
            while self.alpha.len() <= n {
                let i = T::int(self.alpha.len() as i64 - 1);
                let grow = |table: &mut Vec<T>, base: T| {
                    let last = table[table.len() - 1].clone();
                    table.push(last + (base + i.clone()).ln());
                };
                grow(&mut self.alpha, alpha.clone());
                grow(&mut self.beta, beta.clone());
                grow(&mut self.both, alpha.clone() + beta.clone());
            }
        }
    }

    /// The log-likelihood of a state's counts and sums (the hard count is
    /// compared separately, lexicographically first).
    pub(crate) fn value(&self, s: &State<T>) -> T {
        match &self.model {
            AnswerModel::Mistakes { .. } => match &self.logs {
                Some((lp, lq)) => {
                    s.soft.clone()
                        + lp.clone() * T::int(i64::from(s.k))
                        + lq.clone() * T::int(i64::from(s.m - s.k))
                }
                None => s.soft.clone(),
            },
            AnswerModel::UnknownMistakes { .. } => {
                let (k, m) = (s.k as usize, s.m as usize);
                s.soft.clone() + self.alpha[k].clone() + self.beta[m - k].clone()
                    - self.both[m].clone()
            }
            AnswerModel::BradleyTerry { .. } => s.soft.clone(),
            AnswerModel::Person { .. } => match &self.grid {
                // τ = 0: the cell's flips, counted; τ > 0: in `soft`.
                Some(g) if *g.cell(s.cell).0 == T::int(0) => {
                    let (_, (_, lp, lq, _)) = g.cell(s.cell);
                    s.soft.clone()
                        + lp.clone() * T::int(i64::from(s.k))
                        + lq.clone() * T::int(i64::from(s.m - s.k))
                }
                _ => s.soft.clone(),
            },
        }
    }

    /// A particle's law of a strict answer under the person model (`None`
    /// under the other models).
    pub(crate) fn predictive(&self, s: &State<T>) -> Option<Predictive<T>> {
        let g = self.grid.as_ref()?;
        let (tau, (p, _, _, _)) = g.cell(s.cell);
        Some(Predictive {
            rate: p.clone(),
            temperature: tau.clone(),
        })
    }

    /// The prior mean mistake rate of the person model's grid.
    pub(crate) fn prior_rate(&self) -> Option<T> {
        let g = self.grid.as_ref()?;
        Some((0..g.len()).fold(T::int(0), |acc, c| {
            acc + g.log_weights[c].clone().exp() * g.cell(c).1 .0.clone()
        }))
    }

    /// Draws every particle's cell from the grid's prior (the person
    /// model only).
    pub(crate) fn draw_cells(&self, states: &mut [State<T>], rng: &mut ChaCha8Rng) {
        let Some(g) = &self.grid else { return };
        let weights: Vec<T> = g.log_weights.iter().map(|w| w.clone().exp()).collect();
        for st in states {
            st.cell = categorical(&weights, rng);
        }
    }

    /// A Gibbs step for a particle's cell given its parameters: the cell
    /// drawn in proportion to its prior weight times the likelihood of the
    /// strict answers, whose signed value differences are `xs` (already
    /// divided by the scale; the band and exact ties left out). Returns
    /// the new cell.
    pub(crate) fn gibbs_cell(&self, xs: &[T], rng: &mut ChaCha8Rng) -> Option<usize> {
        let g = self.grid.as_ref()?;
        let logs: Vec<T> = (0..g.len())
            .map(|c| {
                xs.iter()
                    .fold(g.log_weights[c].clone(), |acc, x| acc + g.term(c, x))
            })
            .collect();
        let top = logs
            .iter()
            .skip(1)
            .fold(logs[0].clone(), |m, x| if *x > m { x.clone() } else { m });
        let weights: Vec<T> = logs
            .iter()
            .map(|x| (x.clone() - top.clone()).exp())
            .collect();
        Some(categorical(&weights, rng))
    }

    /// Adds one answer with s = ⟨n, Δf⟩ (tie width `width`) to a state.
    pub(crate) fn add(&self, state: &mut State<T>, s: &T, answer: Preference, width: &T) {
        let zero = T::int(0);
        match answer {
            Preference::Indifferent => {
                if *width > zero {
                    let z = s.clone() / width.clone();
                    state.soft -= &(z.clone() * z / T::int(2));
                }
            }
            Preference::First | Preference::Second => {
                if s.clone().abs() <= self.band || *s == zero {
                    return;
                }
                let first = answer == Preference::First;
                match &self.model {
                    AnswerModel::BradleyTerry { tau } => {
                        let x = if first { s.clone() } else { -s.clone() } / tau.clone();
                        state.soft += &log_logistic(&x);
                    }
                    AnswerModel::Person { .. } => {
                        let Some(g) = &self.grid else { return };
                        state.m += 1;
                        let x = if first { s.clone() } else { -s.clone() };
                        if x <= zero {
                            state.k += 1;
                        }
                        if *g.cell(state.cell).0 != zero {
                            state.soft += &g.term(state.cell, &x);
                        }
                    }
                    AnswerModel::Mistakes { .. } | AnswerModel::UnknownMistakes { .. } => {
                        state.m += 1;
                        if (*s > zero) != first {
                            state.k += 1;
                            if self.logs.is_none()
                                && matches!(self.model, AnswerModel::Mistakes { .. })
                            {
                                state.hard += 1;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether a contradicting answer is impossible (known p = 0).
    pub(crate) fn exact(&self) -> bool {
        self.logs.is_none() && matches!(self.model, AnswerModel::Mistakes { .. })
    }

    /// Whether a strict answer's likelihood depends on the sign of
    /// ⟨θ, Δf⟩ alone (independent mistakes, no ε_Ω band), so that the
    /// normalization need not be applied to it.
    pub(crate) fn by_sign(&self) -> bool {
        matches!(
            self.model,
            AnswerModel::Mistakes { .. } | AnswerModel::UnknownMistakes { .. }
        ) && self.band == T::int(0)
    }

    /// The posterior-mean mistake probability of a particle's state under
    /// the unknown-p model: (α + k)/(α + β + m).
    pub(crate) fn mistake_mean(&self, s: &State<T>) -> Option<T> {
        match &self.model {
            AnswerModel::UnknownMistakes { alpha, beta } => Some(
                (alpha.clone() + T::int(i64::from(s.k)))
                    / (alpha.clone() + beta.clone() + T::int(i64::from(s.m))),
            ),
            AnswerModel::Person { .. } => self.predictive(s).map(|p| p.rate),
            _ => None,
        }
    }
}

/// ln σ(x) = −ln(1 + e^{−x}), without overflow.
pub(crate) fn log_logistic<T: Scalar>(x: &T) -> T {
    if *x >= T::int(0) {
        -(-x.clone()).exp().ln_1p()
    } else {
        x.clone() - x.clone().exp().ln_1p()
    }
}

/// The answers so far: feature differences Δf (D per answer, stored
/// contiguously), the answers and the "can't tell" widths.
#[derive(Debug, Clone)]
pub(crate) struct History<T> {
    pub d: usize,
    pub deltas: Vec<T>,
    pub answers: Vec<Preference>,
    pub widths: Vec<T>,
}

impl<T: Scalar> History<T> {
    pub(crate) fn new(d: usize) -> Self {
        History {
            d,
            deltas: Vec::new(),
            answers: Vec::new(),
            widths: Vec::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.answers.len()
    }

    pub(crate) fn delta(&self, j: usize) -> &[T] {
        &self.deltas[j * self.d..(j + 1) * self.d]
    }
}

/// The particle system.
#[derive(Debug, Clone)]
pub(crate) struct Particles<T> {
    pub d: usize,
    pub n: usize,
    /// Directions u, D per particle.
    pub unit: Vec<T>,
    /// n = u/s(u), D per particle.
    pub norm: Vec<T>,
    /// s(u), one per particle (so that n = u/s(u)).
    pub scales: Vec<T>,
    /// y_j·⟨u, Δf_j⟩ for every answer j (y_j = −1 for "second", else 1),
    /// one vector per particle.
    pub proj: Vec<Vec<T>>,
    pub state: Vec<State<T>>,
    pub value: Vec<T>,
    /// Log importance weights (relative).
    pub logw: Vec<T>,
}

/// ‖θ‖ of the prior's radial decomposition.
fn radial_norm<T: Scalar>(prior: Prior, theta: &[T]) -> T {
    match prior {
        Prior::Gaussian => dot(theta, theta).sqrt(),
        Prior::Exponential => theta.iter().fold(T::int(0), |s, x| s + x.clone().abs()),
    }
}

/// ln of the prior density (up to a constant), on the cone.
fn log_prior<T: Scalar>(prior: Prior, theta: &[T]) -> T {
    match prior {
        Prior::Gaussian => -dot(theta, theta) / T::int(2),
        Prior::Exponential => -theta.iter().fold(T::int(0), |s, x| s + x.clone().abs()),
    }
}

/// A draw of r from the prior's radial law in `d` dimensions: χ_d (the
/// square root of a Gamma(d/2, 2) draw) or Gamma(d, 1).
fn radius<T: Scalar>(prior: Prior, d: usize, rng: &mut ChaCha8Rng) -> T {
    use rand::Rng;
    let (shape, scale) = match prior {
        Prior::Gaussian => (d as f64 / 2.0, 2.0),
        Prior::Exponential => (d as f64, 1.0),
    };
    let draw: f64 = match rand_distr::Gamma::new(shape, scale) {
        Ok(g) => rng.sample(g),
        Err(_) => 1.0,
    };
    let x = T::from_f64_exact(draw);
    match prior {
        Prior::Gaussian => x.sqrt(),
        Prior::Exponential => x,
    }
}

/// Statistics of one rejuvenation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct MoveStats {
    pub sweeps: usize,
    pub proposals: usize,
    pub accepted: usize,
}

impl<T: Scalar> Particles<T> {
    /// `count` draws from the prior restricted to the family's cone.
    ///
    /// Returns `None` when the cone rejects 1000 draws in a row for some
    /// particle (an empty or negligible cone).
    pub(crate) fn from_prior<F: Family<T>>(
        family: &F,
        count: usize,
        rng: &mut ChaCha8Rng,
    ) -> Option<Self> {
        let d = family.dim();
        let prior = family.prior();
        let cone = family.cone();
        let mut normals = Normals::new();
        let mut unit = Vec::with_capacity(d * count);
        let mut norm = Vec::with_capacity(d * count);
        let mut scales = Vec::with_capacity(count);
        let mut theta = vec![T::int(0); d];
        for _ in 0..count {
            let mut ok = false;
            for _ in 0..1000 {
                draw_in_cone(prior, &cone, &mut theta, rng, &mut normals);
                if family.admissible(&theta) {
                    ok = true;
                    break;
                }
            }
            if !ok {
                return None;
            }
            let r = radial_norm(prior, &theta);
            let s = family.scale(&theta);
            if !positive(&r) || !positive(&s) || !s.finite() {
                return None;
            }
            unit.extend(theta.iter().map(|x| x.clone() / r.clone()));
            norm.extend(theta.iter().map(|x| x.clone() / s.clone()));
            scales.push(s / r);
        }
        Some(Particles {
            d,
            n: count,
            unit,
            norm,
            scales,
            proj: vec![Vec::new(); count],
            state: vec![State::empty(); count],
            value: vec![T::int(0); count],
            logw: vec![T::int(0); count],
        })
    }

    pub(crate) fn norm_of(&self, i: usize) -> &[T] {
        &self.norm[i * self.d..(i + 1) * self.d]
    }

    /// The least hard count: particles with more carry no weight.
    pub(crate) fn least_hard(&self) -> u32 {
        self.state.iter().map(|s| s.hard).min().unwrap_or(0)
    }

    /// Normalized weights (zero for particles above the least hard count).
    pub(crate) fn weights(&self) -> Vec<T> {
        let least = self.least_hard();
        let live = |i: usize| self.state[i].hard == least;
        let mut top: Option<T> = None;
        for i in (0..self.n).filter(|i| live(*i)) {
            let v = &self.logw[i];
            if top.as_ref().is_none_or(|t| v > t) {
                top = Some(v.clone());
            }
        }
        let top = top.unwrap_or_else(|| T::int(0));
        let mut w: Vec<T> = (0..self.n)
            .map(|i| {
                if live(i) {
                    (self.logw[i].clone() - top.clone()).exp()
                } else {
                    T::int(0)
                }
            })
            .collect();
        let total = w.iter().fold(T::int(0), |s, x| s + x.clone());
        if total > T::int(0) && total.finite() {
            for x in &mut w {
                *x /= &total;
            }
        } else {
            let uniform = T::int(1) / T::int(self.n as i64);
            w.iter_mut().for_each(|x| *x = uniform.clone());
        }
        w
    }

    /// The effective sample size (Σw)²/Σw² of normalized weights.
    pub(crate) fn ess(weights: &[T]) -> T {
        let sq = weights
            .iter()
            .fold(T::int(0), |s, w| s + w.clone() * w.clone());
        if sq > T::int(0) {
            T::int(1) / sq
        } else {
            T::int(0)
        }
    }

    /// Reweights every particle by the newest answer of `history`, and
    /// keeps its projection ⟨u, Δf⟩.
    pub(crate) fn reweight(&mut self, lik: &Likelihood<T>, history: &History<T>) {
        let j = history.len() - 1;
        let (delta, answer, width) = (history.delta(j), history.answers[j], &history.widths[j]);
        let d = self.d;
        for i in 0..self.n {
            let p = dot(&self.unit[i * d..(i + 1) * d], delta);
            let s = p.clone() / self.scales[i].clone();
            // Kept signed by the answer (+ for "first" and ties, − for
            // "second"): see `rejuvenate`.
            self.proj[i].push(if answer == Preference::Second { -p } else { p });
            lik.add(&mut self.state[i], &s, answer, width);
            let v = lik.value(&self.state[i]);
            let step = v.clone() - self.value[i].clone();
            self.logw[i] += &step;
            self.value[i] = v;
        }
    }

    /// Systematic resampling by `weights`; the weights become equal.
    pub(crate) fn resample(&mut self, weights: &[T], rng: &mut ChaCha8Rng) {
        let n = self.n;
        let step = T::int(1) / T::int(n as i64);
        let mut mark = uniform::<T, _>(rng) * step.clone();
        let mut cumulative = T::int(0);
        let mut picks = Vec::with_capacity(n);
        for (i, w) in weights.iter().enumerate() {
            cumulative += w;
            while picks.len() < n && mark < cumulative {
                picks.push(i);
                mark += &step;
            }
        }
        while picks.len() < n {
            // Rounding left the last marks past the total: the last live
            // particle takes them.
            let last = (0..n)
                .rev()
                .find(|j| weights[*j] > T::int(0))
                .unwrap_or(n - 1);
            picks.push(last);
        }
        let d = self.d;
        let mut unit = Vec::with_capacity(d * n);
        let mut norm = Vec::with_capacity(d * n);
        let mut scales = Vec::with_capacity(n);
        let mut proj = Vec::with_capacity(n);
        let mut state = Vec::with_capacity(n);
        let mut value = Vec::with_capacity(n);
        for &p in &picks {
            unit.extend_from_slice(&self.unit[p * d..(p + 1) * d]);
            norm.extend_from_slice(&self.norm[p * d..(p + 1) * d]);
            scales.push(self.scales[p].clone());
            proj.push(self.proj[p].clone());
            state.push(self.state[p].clone());
            value.push(self.value[p].clone());
        }
        self.unit = unit;
        self.norm = norm;
        self.scales = scales;
        self.proj = proj;
        self.state = state;
        self.value = value;
        self.logw = vec![T::int(0); n];
    }

    /// The principal directions of the particles' directions u (equal
    /// weights, after a resampling): the eigenvectors of their covariance,
    /// each scaled by the square root of its eigenvalue plus a small ridge
    /// (so that duplicates can separate), and the covariance's trace.
    fn principal(&self) -> (Vec<Vec<T>>, T) {
        let (d, n) = (self.d, self.n);
        let nt = T::int(n as i64);
        let mut mean = vec![T::int(0); d];
        for i in 0..n {
            for (m, u) in mean.iter_mut().zip(&self.unit[i * d..(i + 1) * d]) {
                *m += u;
            }
        }
        mean.iter_mut().for_each(|m| *m /= &nt);
        let mut cov = DMatrix::from_element(d, d, T::int(0));
        let mut centred = vec![T::int(0); d];
        for i in 0..n {
            for ((c, u), m) in centred
                .iter_mut()
                .zip(&self.unit[i * d..(i + 1) * d])
                .zip(&mean)
            {
                c.set_difference(u, m);
            }
            for a in 0..d {
                for b in 0..=a {
                    let x = centred[a].clone() * centred[b].clone();
                    cov[(a, b)] += &x;
                }
            }
        }
        let mut trace = T::int(0);
        for a in 0..d {
            for b in 0..=a {
                let v = cov[(a, b)].clone() / nt.clone();
                cov[(a, b)] = v.clone();
                cov[(b, a)] = v;
            }
            trace += &cov[(a, a)];
        }
        let ridge =
            (trace.clone() / T::int(d as i64) * T::ratio(1, 1000)).max(T::ratio(1, 1_000_000));
        let eig = cov.symmetric_eigen();
        let directions = (0..d)
            .map(|k| {
                let scale = (eig.eigenvalues[k].clone().max(T::int(0)) + ridge.clone()).sqrt();
                eig.eigenvectors
                    .column(k)
                    .iter()
                    .map(|x| x.clone() * scale.clone())
                    .collect()
            })
            .collect();
        (directions, trace)
    }

    /// Under the person model, a Gibbs step for every particle's cell (the
    /// person's τ and p) given its parameters, its state rebuilt in the new
    /// cell; nothing under the other models.
    pub(crate) fn gibbs_cells(
        &mut self,
        lik: &Likelihood<T>,
        history: &History<T>,
        rng: &mut ChaCha8Rng,
    ) {
        if lik.grid.is_none() {
            return;
        }
        let zero = T::int(0);
        for i in 0..self.n {
            let scale = self.scales[i].clone();
            // The answer's signed value difference x (positive: agrees)
            // and the unsigned s = ⟨n, Δf⟩ that `add` takes.
            let values: Vec<(T, T)> = (0..history.len())
                .map(|j| {
                    let x = self.proj[i][j].clone() / scale.clone();
                    let s = if history.answers[j] == Preference::Second {
                        -x.clone()
                    } else {
                        x.clone()
                    };
                    (x, s)
                })
                .collect();
            let xs: Vec<T> = values
                .iter()
                .zip(&history.answers)
                .filter(|((x, _), a)| {
                    **a != Preference::Indifferent && x.clone().abs() > lik.band && *x != zero
                })
                .map(|((x, _), _)| x.clone())
                .collect();
            let Some(cell) = lik.gibbs_cell(&xs, rng) else {
                return;
            };
            if cell == self.state[i].cell {
                continue;
            }
            let mut st = State::empty_in(cell);
            for (j, (_, s)) in values.iter().enumerate() {
                lik.add(&mut st, s, history.answers[j], &history.widths[j]);
            }
            self.value[i] = lik.value(&st);
            self.state[i] = st;
        }
    }

    /// Slice-sampling moves (Neal 2003, stepping out and shrinkage) of
    /// every particle along the particles' principal directions (a random
    /// one per move: random-scan Gibbs in the posterior's own axes, the
    /// directions fixed for the whole rejuvenation, so every move leaves
    /// the posterior invariant). Each move draws the radius afresh (an
    /// exact Gibbs step); with each particle's projections ⟨u, Δf_j⟩ kept
    /// and the directions' projected once per rejuvenation, a point of the
    /// line costs O(answers), not O(answers·D). Sweeps over all particles
    /// repeat until the particles' mean squared displacement reaches
    /// `moves` times the total variance of their directions (they have
    /// travelled about the posterior's width; more dimensions need more
    /// sweeps), at most `max_sweeps`. `width` is the initial slice width in
    /// units of the direction, adapted to the intervals the shrinkage ends
    /// with and kept for the next call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rejuvenate<F: Family<T>>(
        &mut self,
        family: &F,
        lik: &Likelihood<T>,
        history: &History<T>,
        moves: usize,
        max_sweeps: usize,
        width: &mut T,
        rng: &mut ChaCha8Rng,
    ) -> MoveStats {
        use rand::Rng;
        self.gibbs_cells(lik, history, rng);
        let (d, n) = (self.d, self.n);
        let prior = family.prior();
        let cone: Cone = family.cone();
        let (directions, total_variance) = self.principal();
        let rbar = match prior {
            Prior::Gaussian => T::int(d as i64).sqrt(),
            Prior::Exponential => T::int(d as i64),
        };
        let directions: Vec<Vec<T>> = directions
            .into_iter()
            .map(|v| v.into_iter().map(|x| x * rbar.clone()).collect())
            .collect();
        let answers = history.len();
        // The stored sign of answer j: projections of a strict answer are
        // kept multiplied by y = ±1 (+1 for "first"), so that agreement is
        // a positive value; a tie's are kept as they are.
        let sign = |j: usize| history.answers[j] != Preference::Second;
        // cross[k][j] = y_j·⟨v_k, Δf_j⟩.
        let cross: Vec<Vec<T>> = directions
            .iter()
            .map(|v| {
                (0..answers)
                    .map(|j| {
                        let c = dot(v, history.delta(j));
                        if sign(j) {
                            c
                        } else {
                            -c
                        }
                    })
                    .collect()
            })
            .collect();
        let by_sign = lik.by_sign();
        let exact = lik.exact();
        // Strict answers newest first (they cut the current posterior, so a
        // point outside the slice is found out soonest), and the ties.
        let strict: Vec<usize> = (0..answers)
            .rev()
            .filter(|j| history.answers[*j] != Preference::Indifferent)
            .collect();
        let ties: Vec<usize> = (0..answers)
            .filter(|j| history.answers[*j] == Preference::Indifferent)
            .collect();
        let mut stats = MoveStats::default();
        let mut theta = vec![T::int(0); d];
        let mut point = vec![T::int(0); d];
        let zero = T::int(0);
        let one = T::int(1);
        let goal = total_variance * T::int(moves as i64) * T::int(n as i64);
        let mut travelled = T::int(0);
        // Sum of the final slice widths |R − L|, to adapt the initial width.
        let mut spans = T::int(0);
        let mut lines = 0usize;
        while stats.sweeps < max_sweeps {
            for i in 0..n {
                let k = rng.random_range(0..directions.len());
                let (v, c) = (&directions[k], &cross[k]);
                let r = radius::<T>(prior, d, rng);
                let inverse_r = one.clone() / r.clone();
                for (t, u) in theta.iter_mut().zip(&self.unit[i * d..(i + 1) * d]) {
                    t.set_product(u, &r);
                }
                let hard = self.state[i].hard;
                let cell = self.state[i].cell;
                let level = log_prior(prior, &theta)
                    + self.value[i].clone()
                    + (T::int(1) - uniform::<T, _>(rng)).ln();
                let p = &self.proj[i];
                // Whether g(t) > level, with the state, value and scale
                // where it is. On the line θ + t·v = r·(u + (t/r)·v), the
                // stored projection of answer j is p_j + (t/r)·c_j up to the
                // positive factor r.
                let mut inside = |t: &T, point: &mut Vec<T>| -> Option<(State<T>, T, T)> {
                    for ((q, x), w) in point.iter_mut().zip(&theta).zip(v) {
                        *q = x.clone() + w.clone() * t.clone();
                    }
                    stats.proposals += 1;
                    if !cone.contains(point) || !family.admissible(point) {
                        return None;
                    }
                    let sc = family.scale(point);
                    if !positive(&sc) || !sc.finite() {
                        return None;
                    }
                    let bound = level.clone() - log_prior(prior, point);
                    let tr = t.clone() * inverse_r.clone();
                    // ⟨n, Δf_j⟩ = r·(p_j + (t/r)·c_j)/s(θ + t·v), signed.
                    let to_value = r.clone() / sc.clone();
                    let mut st = State::empty_in(cell);
                    if by_sign {
                        // Strict answers by sign alone, counted without
                        // branches in blocks of 16; the bound is checked
                        // after each block (the value only falls as answers
                        // are added) and at the end.
                        for block in strict.chunks(16) {
                            for &j in block {
                                let s = p[j].clone() + c[j].clone() * tr.clone();
                                st.m += u32::from(s != zero);
                                st.k += u32::from(s < zero);
                            }
                            if exact {
                                st.hard = st.k;
                                if st.hard > hard {
                                    return None;
                                }
                            }
                            if st.hard == hard && lik.value(&st) <= bound {
                                return None;
                            }
                        }
                        for &j in &ties {
                            let s = (p[j].clone() + c[j].clone() * tr.clone()) * to_value.clone();
                            lik.add(&mut st, &s, Preference::Indifferent, &history.widths[j]);
                        }
                    } else {
                        for j in (0..answers).rev() {
                            let mut s =
                                (p[j].clone() + c[j].clone() * tr.clone()) * to_value.clone();
                            if !sign(j) {
                                s = -s;
                            }
                            lik.add(&mut st, &s, history.answers[j], &history.widths[j]);
                            if st.hard > hard || (st.hard == hard && lik.value(&st) <= bound) {
                                return None;
                            }
                        }
                    }
                    let value = lik.value(&st);
                    if st.hard > hard || (st.hard == hard && value <= bound) {
                        return None;
                    }
                    Some((st, value, sc))
                };
                // Stepping out from a randomly placed interval of the
                // current width, at most 8 steps on each side.
                let u: T = uniform(rng);
                let mut lo = -(width.clone() * u);
                let mut hi = lo.clone() + width.clone();
                for _ in 0..8 {
                    if inside(&lo, &mut point).is_none() {
                        break;
                    }
                    lo -= &*width;
                }
                for _ in 0..8 {
                    if inside(&hi, &mut point).is_none() {
                        break;
                    }
                    hi += &*width;
                }
                // Shrinkage towards the current point (t = 0, inside).
                let mut found = None;
                for _ in 0..40 {
                    let t = lo.clone() + (hi.clone() - lo.clone()) * uniform::<T, _>(rng);
                    if let Some(hit) = inside(&t, &mut point) {
                        found = Some((t, hit));
                        break;
                    }
                    if t < zero {
                        lo = t;
                    } else {
                        hi = t;
                    }
                }
                spans += &(hi.clone() - lo.clone());
                lines += 1;
                let Some((t, (st, value, sc))) = found else {
                    continue;
                };
                // `point` holds the accepted θ + t·v.
                let rn = radial_norm(prior, &point);
                let inverse_rn = one.clone() / rn.clone();
                let mut jump = T::int(0);
                for (u, q) in self.unit[i * d..(i + 1) * d].iter_mut().zip(&point) {
                    let new = q.clone() * inverse_rn.clone();
                    let step = new.clone() - u.clone();
                    jump += &(step.clone() * step);
                    *u = new;
                }
                travelled += &jump;
                let inverse_sc = one.clone() / sc.clone();
                for (q, x) in self.norm[i * d..(i + 1) * d].iter_mut().zip(&point) {
                    *q = x.clone() * inverse_sc.clone();
                }
                self.scales[i] = sc * inverse_rn.clone();
                // The new u = r·(u + (t/r)·v)/‖θ + t·v‖.
                let tr = t * inverse_r;
                let factor = r * inverse_rn;
                for (q, cj) in self.proj[i].iter_mut().zip(c) {
                    let moved = q.clone() + cj.clone() * tr.clone();
                    *q = moved * factor.clone();
                }
                self.state[i] = st;
                self.value[i] = value;
                stats.accepted += 1;
            }
            stats.sweeps += 1;
            if travelled >= goal {
                break;
            }
        }
        // The next initial width: about the mean final interval, so that
        // stepping out takes a step or two.
        let mean = spans / T::int(lines.max(1) as i64);
        if mean > zero && mean.finite() {
            *width = mean.max(T::ratio(1, 1000)).min(T::int(100));
        }
        stats
    }

    /// The weighted mean of the normalized vectors.
    pub(crate) fn mean(&self, weights: &[T]) -> DVector<T> {
        let mut mean = DVector::from_element(self.d, T::int(0));
        for (i, w) in weights.iter().enumerate() {
            if *w == T::int(0) {
                continue;
            }
            for (m, x) in mean.iter_mut().zip(self.norm_of(i)) {
                *m += &(x.clone() * w.clone());
            }
        }
        mean
    }

    /// The weighted mean and covariance of the normalized vectors.
    pub(crate) fn moments(&self, weights: &[T]) -> (DVector<T>, DMatrix<T>) {
        let d = self.d;
        let mean = self.mean(weights);
        let mut cov = DMatrix::from_element(d, d, T::int(0));
        let mut c = vec![T::int(0); d];
        for (i, w) in weights.iter().enumerate() {
            if *w == T::int(0) {
                continue;
            }
            for ((ci, x), m) in c.iter_mut().zip(self.norm_of(i)).zip(mean.iter()) {
                ci.set_difference(x, m);
            }
            for a in 0..d {
                let wa = c[a].clone() * w.clone();
                for b in 0..=a {
                    cov[(a, b)] += &(wa.clone() * c[b].clone());
                }
            }
        }
        for a in 0..d {
            for b in 0..a {
                cov[(b, a)] = cov[(a, b)].clone();
            }
        }
        (mean, cov)
    }
}

/// A draw from the prior's law on the cone's sign pattern (rejection for
/// the family's further constraints happens in the caller).
fn draw_in_cone<T: Scalar>(
    prior: Prior,
    cone: &Cone,
    theta: &mut [T],
    rng: &mut ChaCha8Rng,
    normals: &mut Normals<T>,
) {
    use super::family::SignConstraint;
    let flip = cone.or_negated && uniform::<T, _>(rng) < T::ratio(1, 2);
    for (t, s) in theta.iter_mut().zip(&cone.signs) {
        let x = match prior {
            Prior::Gaussian => normals.draw(rng),
            Prior::Exponential => exponential(rng),
        };
        let magnitude = x.clone().abs();
        let v = match s {
            // Exp(1) magnitudes with a random sign: the Laplace law, whose
            // ℓ1 norm is Gamma(D, 1) as well.
            SignConstraint::Free if prior == Prior::Exponential => {
                if uniform::<T, _>(rng) < T::ratio(1, 2) {
                    -x
                } else {
                    x
                }
            }
            SignConstraint::Free => x,
            SignConstraint::NonNegative => magnitude,
            SignConstraint::NonPositive => -magnitude,
        };
        *t = if flip { -v } else { v };
    }
}
