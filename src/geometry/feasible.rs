//! The feasible rates of a finite sample and the query sphere S_ρ inside
//! them (001 App. B.1, Alg. 3 with OP1; 000 App. B.1; see
//! `shared/notes/001-fair.md` §8, P25–P27).
//!
//! **The feasible set (P25).** On a sample of a group g with class scores
//! η̂(xₙ) ∈ Δ_k and class masses wₙ (the one-hot labels for *labelled*
//! rates, η̂(xₙ) itself for *expected* rates), a randomized classifier
//! h (hₙ ∈ Δ_k) has off-diagonal rates R_(i,j)(h) = Σₙ wₙᵢ hₙⱼ / Dᵢ with
//! Dᵢ = Σₙ wₙᵢ ([`Normalization::Rates`], R = P(h = j | Y = i)) or
//! Dᵢ = n_g ([`Normalization::Joint`], C = P(Y = i, h = j)). The classifiers
//! that can be built are functions of η̂: their rates form the convex hull of
//! the rates of the deterministic plug-in classifiers
//! h_ℓ(x) = argmaxⱼ Σ_{i≠j} ℓ_(i,j) η̂ᵢ(x)/Dᵢ, and h_ℓ maximizes ⟨ℓ, R(h)⟩
//! over them when the rates are expected (for labelled rates it is the
//! maximizer under η̂, so the set found is an inner approximation whose every
//! point is still realized).
//!
//! **Extents (P26, OP1).** The largest c with o ± c·eⱼ feasible is a linear
//! program over mixtures of plug-in classifiers. It is solved by column
//! generation: the restricted dual min μ − ⟨ℓ, o⟩ s.t. μ ≥ ⟨ℓ, R_v⟩ for the
//! known vertices v, ⟨ℓ, ±eⱼ⟩ = 1 (solved by `microlp`) gives prices ℓ; the
//! plug-in classifier h_ℓ is the next vertex; the loop stops when h_ℓ does
//! not beat μ. The restricted primal's basis is then re-solved at the working
//! precision `T` (nalgebra LU), which gives the extent and the mixture that
//! realizes o ± c·eⱼ exactly at `T`.
//!
//! **The sphere (P27).** c^±ⱼ = min_g c^±_{g,j}; the 2q points o ± c^±ⱼeⱼ are
//! feasible for every group and their hull contains the ball of radius
//! ρ = 1/√(Σⱼ 1/cⱼ²), cⱼ = min(c⁺ⱼ, c⁻ⱼ), which is at least minⱼ cⱼ/√q ≥ s̃/√q
//! (s̃: the largest ball about o in the intersection of the groups' sets).
//! A point o + x of S_ρ is realized for each group by mixing the classifier
//! of o + sign(xⱼ)cⱼeⱼ with weight |xⱼ|/cⱼ and the uniform random classifier
//! with the rest ([`FoundSphere::realise`]); [`FoundSphere::certify`] checks
//! the realized rates of sampled points at precision `T`.
//!
//! **Another centre (issue #30).** The papers centre S_ρ at the uniform
//! classifier, which misclassifies about (k − 1)/k of every class: not a
//! classifier a person would consider. The same construction works about
//! any point c every group realizes ([`QueryCentre`]): the extents about c,
//! and the rest of a point's weight on c's own classifier instead of the
//! uniform one. [`FeasibleSet::find_sphere_toward_accurate`] moves the
//! centre toward the data's most accurate plug-in classifier (for several
//! groups, toward the mean of their most accurate classifiers' rates, as
//! far as every group realizes: an extent along that direction) while the
//! sphere keeps at least half its radius about o.

use crate::error::{Error, Result};
use crate::geometry::sphere::Sphere;
#[allow(unused_imports)]
use crate::par::*;
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Column generation stops when the dual bound is within this of the
/// restricted extent (a rate; far below any sample's resolution).
pub const GAP: f64 = 1e-7;

/// At most this many columns per extent.
pub const MAX_COLUMNS: usize = 200;

/// Progress of the sphere search's linear programs, reported through the
/// `log` facade (target `metric_elicitation::sphere`, level info) at most
/// every [`Progress::EVERY`] and only once a search has run that long, so
/// a quick search says nothing. Shared by the workers of a parallel search
/// (`rayon` feature).
///
/// # Examples
/// ```
/// use metric_elicitation::geometry::feasible::Progress;
/// let progress = Progress::new(3, Progress::EVERY);
/// for _ in 0..3 {
///     progress.tick(); // a record only after 5 s of searching
/// }
/// ```
pub struct Progress {
    total: usize,
    every: std::time::Duration,
    done: std::sync::atomic::AtomicUsize,
    start: std::time::Instant,
    last: std::sync::Mutex<std::time::Instant>,
}

impl Progress {
    /// Seconds between two progress records.
    pub const EVERY: std::time::Duration = std::time::Duration::from_secs(5);

    /// `total` programs, a record at most every `every`.
    pub fn new(total: usize, every: std::time::Duration) -> Self {
        let now = std::time::Instant::now();
        Progress {
            total,
            every,
            done: std::sync::atomic::AtomicUsize::new(0),
            start: now,
            last: std::sync::Mutex::new(now),
        }
    }

    /// One more program solved.
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        // Another worker reporting: this one does not wait for it.
        let Ok(mut last) = self.last.try_lock() else {
            return;
        };
        if last.elapsed() < self.every {
            return;
        }
        *last = std::time::Instant::now();
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = elapsed / done as f64 * (self.total - done) as f64;
        log::info!(
            target: "metric_elicitation::sphere",
            "finding the query sphere in the feasible rates: {done} of {} linear programs solved in {elapsed:.0} s, about {left:.0} s left",
            self.total
        );
    }
}

/// Which statistic the query space holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// Rates R_(i,j) = P(h = j | Y = i) (001, 000; o = (1/k)·1).
    #[default]
    Rates,
    /// Joint confusions C_(i,j) = P(Y = i, h = j) (002; o_(i,j) = ζᵢ/k).
    Joint,
}

/// One group's rows: class scores (decisions) and class masses (rates),
/// row-major n × k, in `f64` and at precision `T`.
#[derive(Debug, Clone)]
struct GroupRows<T> {
    scores: Vec<f64>,
    mass: Vec<f64>,
    /// Dᵢ in f64 (decisions) and at T (rates).
    divisor: Vec<f64>,
    mass_t: Vec<T>,
    divisor_t: Vec<T>,
}

/// The feasible off-diagonal statistics of the plug-in classifiers of a
/// finite sample, one set per group (see the module docs).
#[derive(Debug, Clone)]
pub struct FeasibleSet<T> {
    k: usize,
    normalization: Normalization,
    groups: Vec<GroupRows<T>>,
}

pub use crate::population::{offdiag_index, offdiag_pair};

impl<T: Scalar> FeasibleSet<T> {
    /// The set of a sample: `scores` (n × k, row-major, η̂), `mass`
    /// (n × k: one-hot labels or η̂), `groups` (n codes 0..m−1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for k < 2, mismatched lengths, a negative
    /// or non-finite entry, a group without rows, a class without mass in a
    /// group ([`Normalization::Rates`] divides by it), or joint confusions
    /// with several groups (their centres differ).
    pub fn new(
        k: usize,
        scores: &[f64],
        mass: &[f64],
        groups: &[usize],
        normalization: Normalization,
    ) -> Result<Self> {
        let n = groups.len();
        if k < 2 || n == 0 || scores.len() != n * k || mass.len() != n * k {
            return Err(Error::invalid(
                "population",
                format!(
                    "feasible set: {} scores and {} masses for {n} rows and k = {k}",
                    scores.len(),
                    mass.len()
                ),
            ));
        }
        if scores
            .iter()
            .chain(mass)
            .any(|v| !v.is_finite() || *v < 0.0)
        {
            return Err(Error::invalid(
                "population",
                "feasible set: scores and masses must be finite and >= 0",
            ));
        }
        let m = groups.iter().max().map_or(0, |g| g + 1);
        if m > 1 && normalization == Normalization::Joint {
            return Err(Error::invalid(
                "normalization",
                "joint confusions of several groups have different centres; use rates",
            ));
        }
        let mut out = Vec::with_capacity(m);
        for g in 0..m {
            let rows: Vec<usize> = (0..n).filter(|&r| groups[r] == g).collect();
            if rows.is_empty() {
                return Err(Error::invalid(
                    "population.group",
                    format!("group {} has no rows", g + 1),
                ));
            }
            let pick = |v: &[f64]| -> Vec<f64> {
                rows.iter()
                    .flat_map(|&r| v[r * k..(r + 1) * k].iter().copied())
                    .collect()
            };
            let (s, w) = (pick(scores), pick(mass));
            let mass_t: Vec<T> = w.iter().map(|v| T::from_f64_exact(*v)).collect();
            let divisor_t: Vec<T> = match normalization {
                Normalization::Rates => (0..k)
                    .map(|i| {
                        mass_t
                            .iter()
                            .skip(i)
                            .step_by(k)
                            .fold(T::int(0), |a, b| a + b.clone())
                    })
                    .collect(),
                Normalization::Joint => vec![T::int(rows.len() as i64); k],
            };
            if let Some(i) = divisor_t.iter().position(|d| *d <= T::int(0)) {
                return Err(Error::invalid(
                    "population",
                    format!("class {} has no rows in group {}", i + 1, g + 1),
                ));
            }
            out.push(GroupRows {
                divisor: divisor_t.iter().map(|v| v.to_f64_lossy()).collect(),
                scores: s,
                mass: w,
                mass_t,
                divisor_t,
            });
        }
        Ok(FeasibleSet {
            k,
            normalization,
            groups: out,
        })
    }

    /// Number of classes k.
    pub fn classes(&self) -> usize {
        self.k
    }

    /// Dimension q = k² − k.
    pub fn dim(&self) -> usize {
        self.k * self.k - self.k
    }

    /// Number of groups m.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Rows of group g.
    pub fn rows(&self, g: usize) -> usize {
        self.groups[g].scores.len() / self.k
    }

    /// The normalization.
    pub fn normalization(&self) -> Normalization {
        self.normalization
    }

    /// The centre o of group g: the rates of the uniform random classifier
    /// (1/k, or ζᵢ/k for joint confusions).
    pub fn center(&self, g: usize) -> DVector<T> {
        let k = self.k;
        let rows = &self.groups[g];
        let kt = T::int(k as i64);
        DVector::from_iterator(
            self.dim(),
            (0..self.dim()).map(|idx| {
                let (i, _) = offdiag_pair(k, idx);
                match self.normalization {
                    Normalization::Rates => T::int(1) / kt.clone(),
                    Normalization::Joint => {
                        let total = rows
                            .mass_t
                            .iter()
                            .skip(i)
                            .step_by(k)
                            .fold(T::int(0), |a, b| a + b.clone());
                        total / rows.divisor_t[i].clone() / kt.clone()
                    }
                }
            }),
        )
    }

    /// The plug-in classifier h_ℓ on group g's rows (ties to the lower
    /// class).
    pub fn plug_in(&self, g: usize, ell: &[f64]) -> Vec<usize> {
        let k = self.k;
        let rows = &self.groups[g];
        rows.scores
            .chunks(k)
            .map(|s| {
                let mut best = (0, f64::NEG_INFINITY);
                for j in 0..k {
                    let v: f64 = (0..k)
                        .filter(|&i| i != j)
                        .map(|i| ell[offdiag_index(k, i, j)] * s[i] / rows.divisor[i])
                        .sum();
                    if v > best.1 {
                        best = (j, v);
                    }
                }
                best.0
            })
            .collect()
    }

    /// The rates (in f64) of the deterministic classifier `predictions` on
    /// group g.
    fn rates_f64(&self, g: usize, predictions: &[usize]) -> Vec<f64> {
        let k = self.k;
        let rows = &self.groups[g];
        let mut r = vec![0.0; self.dim()];
        for (n, &j) in predictions.iter().enumerate() {
            for i in 0..k {
                if i != j {
                    r[offdiag_index(k, i, j)] += rows.mass[n * k + i];
                }
            }
        }
        for (idx, v) in r.iter_mut().enumerate() {
            *v /= rows.divisor[offdiag_pair(k, idx).0];
        }
        r
    }

    /// The rates at precision `T` of the deterministic classifier
    /// `predictions` (one class per row of group g).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the wrong number of predictions or a
    /// class out of range.
    pub fn rates(&self, g: usize, predictions: &[usize]) -> Result<DVector<T>> {
        let k = self.k;
        let rows = &self.groups[g];
        if predictions.len() != self.rows(g) || predictions.iter().any(|&j| j >= k) {
            return Err(Error::invalid(
                "predictions",
                format!(
                    "{} predictions for {} rows of group {g}",
                    predictions.len(),
                    self.rows(g)
                ),
            ));
        }
        let mut r = DVector::from_element(self.dim(), T::int(0));
        for (n, &j) in predictions.iter().enumerate() {
            for i in 0..k {
                if i != j {
                    r[offdiag_index(k, i, j)] += &rows.mass_t[n * k + i];
                }
            }
        }
        for idx in 0..self.dim() {
            let d = rows.divisor_t[offdiag_pair(k, idx).0].clone();
            r[idx] = r[idx].clone() / d;
        }
        Ok(r)
    }

    /// The support function σ_g(ℓ) = max over plug-in classifiers of
    /// ⟨ℓ, R⟩ (exact for expected rates), with its maximizer.
    pub fn support(&self, g: usize, ell: &[f64]) -> (f64, Vec<usize>) {
        let h = self.plug_in(g, ell);
        let r = self.rates_f64(g, &h);
        (dot(ell, &r), h)
    }

    /// The extent c^±_{g,j}: the largest c with o + c·d feasible for group
    /// g, d = ±eⱼ (OP1, by column generation; see the module docs).
    ///
    /// # Errors
    /// [`Error::IllConditioned`] when the LP solver fails.
    pub fn extent(&self, g: usize, axis: usize, positive: bool) -> Result<Extent<T>> {
        self.extent_about(g, axis, positive, &self.center(g), &[])
    }

    /// The extent about another centre: the largest c with
    /// centre + c·d feasible for group g, d = ±eⱼ. `known` are
    /// deterministic classifiers whose mixture (with the k trivial ones)
    /// realizes the centre (the centre's realisation), so that the first
    /// restricted program is feasible.
    fn extent_about(
        &self,
        g: usize,
        axis: usize,
        positive: bool,
        centre: &DVector<T>,
        known: &[Vec<usize>],
    ) -> Result<Extent<T>> {
        let sign = if positive { 1.0 } else { -1.0 };
        let along = self.extent_along(g, &[(axis, sign)], centre, known)?;
        Ok(Extent {
            group: g,
            axis,
            positive,
            c: along.c,
            upper_bound: along.upper_bound,
            converged: along.converged,
            mixture: along.mixture,
            columns: along.columns,
            prices: along.prices,
        })
    }

    /// The largest c with centre + c·d feasible for group g along a
    /// direction d (its non-zero entries, f64; OP1 with ⟨ℓ, d⟩ = 1), by
    /// column generation as [`FeasibleSet::extent`]; c is read off the
    /// realized rates at precision T (⟨R − centre, d⟩/‖d‖²).
    fn extent_along(
        &self,
        g: usize,
        direction: &[(usize, f64)],
        centre: &DVector<T>,
        known: &[Vec<usize>],
    ) -> Result<Along<T>> {
        let k = self.k;
        let q = self.dim();
        let o: Vec<f64> = centre.iter().map(|v| v.to_f64_lossy()).collect();
        // Start: the k trivial classifiers (their mean is the uniform
        // classifier's rates), the centre's own classifiers and the plug-in
        // classifier of the direction itself.
        let rows = self.rows(g);
        let mut columns: Vec<Vec<usize>> = (0..k).map(|j| vec![j; rows]).collect();
        columns.extend(known.iter().cloned());
        let mut d = vec![0.0; q];
        for (i, v) in direction {
            d[*i] = *v;
        }
        columns.push(self.plug_in(g, &d));
        let mut vertex_rates: Vec<Vec<f64>> =
            columns.iter().map(|h| self.rates_f64(g, h)).collect();
        let mut upper = f64::INFINITY;
        let mut converged = false;
        let mut prices = Vec::new();
        // Stop when h_ℓ does not beat μ, or when the dual bound is within
        // GAP of the restricted value (expected rates of a large sample have
        // very many vertices and Kelley's cutting planes close the last
        // digits slowly), or after MAX_COLUMNS columns.
        while columns.len() < MAX_COLUMNS {
            let (ell, mu, value) = restricted_dual(&vertex_rates, &o, direction)?;
            let (sigma, h) = self.support(g, &ell);
            prices.clone_from(&ell);
            upper = upper.min(sigma - dot(&ell, &o));
            if sigma <= mu + 1e-12 * (1.0 + mu.abs()) || upper - value <= GAP {
                converged = true;
                break;
            }
            vertex_rates.push(self.rates_f64(g, &h));
            columns.push(h);
        }
        let (lambda, _) = restricted_primal(&vertex_rates, &o, direction)?;
        let support: Vec<usize> = (0..lambda.len()).filter(|&v| lambda[v] > 1e-12).collect();
        let mixture: Vec<(T, Vec<usize>)> =
            self.refine(g, direction, centre, &support, &columns, &lambda)?;
        let target_rates = self.mixture_rates(g, &mixture)?;
        // For an axis (one entry ±1) this is (R_j − centre_j)·sign exactly.
        let (along, norm) = direction
            .iter()
            .fold((T::int(0), T::int(0)), |(a, n), (i, v)| {
                let v = T::from_f64_exact(*v);
                (
                    a + (target_rates[*i].clone() - centre[*i].clone()) * v.clone(),
                    n + v.clone() * v,
                )
            });
        Ok(Along {
            c: along / norm,
            upper_bound: upper,
            converged,
            mixture,
            columns: columns.len(),
            prices,
        })
    }

    /// Re-solves the primal on the support columns at precision T:
    /// Σ λ_v R_v − c·d = o, Σ λ_v = 1 (o the centre).
    fn refine(
        &self,
        g: usize,
        d: &[(usize, f64)],
        o: &DVector<T>,
        support: &[usize],
        columns: &[Vec<usize>],
        lambda: &[f64],
    ) -> Result<Vec<(T, Vec<usize>)>> {
        let q = self.dim();
        let s = support.len();
        let rates: Vec<DVector<T>> = support
            .iter()
            .map(|&v| self.rates(g, &columns[v]))
            .collect::<Result<_>>()?;
        let mut a = DMatrix::from_element(q + 1, s + 1, T::int(0));
        let mut b = DVector::from_element(q + 1, T::int(0));
        for (c, r) in rates.iter().enumerate() {
            for i in 0..q {
                a[(i, c)] = r[i].clone();
            }
            a[(q, c)] = T::int(1);
        }
        for (i, v) in d {
            a[(*i, s)] = -T::from_f64_exact(*v);
        }
        for i in 0..q {
            b[i] = o[i].clone();
        }
        b[q] = T::int(1);
        // Least squares through the normal equations (square when the
        // basis is full); fall back to the f64 weights if singular.
        let ata = a.transpose() * &a;
        let atb = a.transpose() * &b;
        let refined = ata.lu().solve(&atb);
        let fallback = || {
            support
                .iter()
                .map(|&v| (T::from_f64_exact(lambda[v]), columns[v].clone()))
                .collect()
        };
        let Some(x) = refined else {
            return Ok(fallback());
        };
        let residual = (&a * &x - &b).amax();
        if x.iter().take(s).any(|v| *v < T::int(0)) || residual > prec::certificate::<T>() {
            return Ok(fallback());
        }
        Ok((0..s)
            .map(|c| (x[c].clone(), columns[support[c]].clone()))
            .collect())
    }

    /// The error when no sphere fits: the axis (i, j) whose extent is 0,
    /// the group and direction that leave no room, the two classes' masses
    /// (held-out rows, for labelled rates) and what to do.
    fn no_room<'a>(
        &self,
        axis: usize,
        centre: &QueryCentre<T>,
        extent: impl Fn(usize, bool) -> &'a Extent<T>,
    ) -> Error
    where
        T: 'a,
    {
        let (i, j) = offdiag_pair(self.k, axis);
        let culprit = (0..self.groups())
            .flat_map(|g| [(g, true), (g, false)])
            .find(|(g, positive)| extent(*g, *positive).c <= T::int(0));
        let (g, positive) = culprit.unwrap_or((0, true));
        let rows = &self.groups[g];
        let mass = |c: usize| -> f64 { rows.mass.iter().skip(c).step_by(self.k).sum() };
        // A coordinate of class c is its class-conditional rate times
        // mass(c)/D_c (1 for rates, ζ_c for joint confusions): prices in
        // rate units, so that a twin class is found whatever its size.
        let unit = |c: usize| -> f64 { mass(c) / rows.divisor[c] };
        // The classes whose rates the certificate ties to this one: the
        // other axes the dual prices weigh at least half as much.
        let prices = &extent(g, positive).prices;
        let mut tied: Vec<usize> = (0..prices.len())
            .filter(|&a| a != axis)
            .filter(|&a| {
                let c = offdiag_pair(self.k, a).0;
                prices[a].abs() * unit(c) >= 0.5 * unit(i)
            })
            .map(|a| offdiag_pair(self.k, a).0)
            .filter(|&c| c != i)
            .collect();
        tied.sort_unstable();
        tied.dedup();
        // Classes are numbered from 1 in the order of their label codes
        // (0..k−1, after `bins`).
        let name = |c: usize| format!("class {} (label code {c})", c + 1);
        let mut classes = vec![i];
        classes.extend(tied.iter().copied());
        let weights: Vec<String> = classes
            .iter()
            .map(|&c| format!("{} {:.0}", name(c), mass(c)))
            .collect();
        let smallest = classes
            .iter()
            .copied()
            .min_by(|a, b| mass(*a).total_cmp(&mass(*b)))
            .unwrap_or(i);
        let list = |cs: &[usize]| {
            cs.iter()
                .map(|c| format!("class {}", c + 1))
                .collect::<Vec<_>>()
        };
        let tied_words = if tied.is_empty() {
            String::new()
        } else {
            format!(
                " without moving the rates of {} with it (to the scores their rows look alike)",
                list(&tied).join(", ")
            )
        };
        let advice = match tied.as_slice() {
            [] => format!(
                "merge {} with a similar class or drop its rows",
                name(smallest)
            ),
            [t] if t.abs_diff(i) == 1 => format!(
                "merge {} into one class (adjacent label codes: `bins` can join them) or drop class {}'s rows",
                list(&classes).join(" and "),
                smallest + 1
            ),
            _ => format!(
                "give {} one label code in the file (`bins` joins only adjacent codes) or drop class {}'s rows",
                list(&classes).join(" and "),
                smallest + 1
            ),
        };
        Error::invalid(
            "population",
            format!(
                "no query sphere fits: the classifiers built from the scores cannot {} P(h = class {} | Y = class {}) about {}{}{} (rows by class: {}); {}, and run again",
                if positive { "raise" } else { "lower" },
                j + 1,
                i + 1,
                if centre.t == T::int(0) {
                    "the uniform classifier"
                } else {
                    "the query centre"
                },
                if self.groups() > 1 {
                    format!(" in group {}", g + 1)
                } else {
                    String::new()
                },
                tied_words,
                weights.join(", "),
                advice
            ),
        )
    }

    /// The rates of a mixture of deterministic classifiers of group g.
    ///
    /// # Errors
    /// As [`FeasibleSet::rates`].
    pub fn mixture_rates(&self, g: usize, mixture: &[(T, Vec<usize>)]) -> Result<DVector<T>> {
        let mut r = DVector::from_element(self.dim(), T::int(0));
        for (w, h) in mixture {
            r += self.rates(g, h)? * w.clone();
        }
        Ok(r)
    }

    /// The uniform random classifier as a query centre: o, realized in
    /// every group by the uniform classifier alone (t = 0).
    pub fn uniform_centre(&self) -> QueryCentre<T> {
        QueryCentre {
            point: self.center(0),
            realisations: (0..self.groups())
                .map(|_| Realisation {
                    mixture: Vec::new(),
                    uniform: T::int(1),
                })
                .collect(),
            t: T::int(0),
        }
    }

    /// The data's most accurate plug-in classifier on group g: h_ℓ with
    /// every off-diagonal statistic priced alike (ℓ = −1): for joint
    /// confusions the argmax of η̂, the plug-in Bayes classifier of
    /// accuracy; for rates the argmax of η̂ⱼ/Dⱼ, which minimizes the sum of
    /// the class-conditional error rates (balanced accuracy).
    pub fn accurate_classifier(&self, g: usize) -> Vec<usize> {
        self.plug_in(g, &vec![-1.0; self.dim()])
    }

    /// The line toward accuracy: d = ḡ − o, ḡ the mean over the groups of
    /// each group's most accurate plug-in classifier's rates
    /// ([`FeasibleSet::accurate_classifier`]; for one group its rates),
    /// rounded to f64 (the programs' precision; exactly representable at
    /// T), and for each group the farthest point o + c_g·d it realizes with
    /// the mixture doing so (an extent along d, OP1).
    ///
    /// # Errors
    /// As [`FeasibleSet::extent`].
    pub fn accurate_line(&self) -> Result<AccurateLine<T>> {
        let m = self.groups();
        let o = self.center(0);
        let mut target = DVector::from_element(self.dim(), T::int(0));
        for g in 0..m {
            target += self.rates(g, &self.accurate_classifier(g))?;
        }
        let target = target / T::int(m as i64);
        let d64: Vec<(usize, f64)> = (&target - &o)
            .iter()
            .map(|v| v.to_f64_lossy())
            .enumerate()
            .filter(|(_, v)| *v != 0.0)
            .collect();
        let mut direction = DVector::from_element(self.dim(), T::int(0));
        for (i, v) in &d64 {
            direction[*i] = T::from_f64_exact(*v);
        }
        let reach = if d64.is_empty() {
            Vec::new()
        } else {
            (0..m)
                .map(|g| {
                    // The group's own most accurate classifier is a column
                    // from the start (for labelled rates the programs'
                    // plug-in classifiers need not find it): one group
                    // reaches its rates, c ≥ 1.
                    let own = [self.accurate_classifier(g)];
                    let along = self.extent_along(g, &d64, &o, &own)?;
                    Ok((along.c, along.mixture))
                })
                .collect::<Result<_>>()?
        };
        Ok(AccurateLine {
            origin: o,
            direction,
            reach,
        })
    }

    /// The point o + t·d a fraction t of the way along the line toward
    /// accuracy ([`FeasibleSet::accurate_line`]; t = 1 is the most
    /// accurate classifier's rates for one group, the mean of the groups'
    /// for several), realized in each group g by its farthest point
    /// o + c_g·d (weight t/c_g) and the uniform classifier.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `query_center` for t outside
    /// [0, 1] or beyond what some group realizes (t > c_g).
    pub fn centre_toward_accurate(&self, line: &AccurateLine<T>, t: T) -> Result<QueryCentre<T>> {
        if !(t >= T::int(0) && t <= T::int(1)) {
            return Err(Error::invalid("query_center", "t must be in [0, 1]"));
        }
        if t == T::int(0) || line.reach.is_empty() {
            return Ok(self.uniform_centre());
        }
        let mut realisations = Vec::with_capacity(self.groups());
        for (g, (c, mixture)) in line.reach.iter().enumerate() {
            if t > *c {
                return Err(Error::invalid(
                    "query_center",
                    format!(
                        "group {} realizes the line toward accuracy only to t = {:.3}",
                        g + 1,
                        c.to_f64_lossy()
                    ),
                ));
            }
            let w = t.clone() / c.clone();
            realisations.push(Realisation {
                mixture: mixture
                    .iter()
                    .map(|(v, h)| (w.clone() * v.clone(), h.clone()))
                    .collect(),
                uniform: T::int(1) - w,
            });
        }
        Ok(QueryCentre {
            point: &line.origin + &line.direction * t.clone(),
            realisations,
            t,
        })
    }

    /// The query sphere toward the data's most accurate classifier: about
    /// the centre o + t·d of [`FeasibleSet::centre_toward_accurate`] with
    /// the largest t in {9/10, 8/10, …, 1/10} that every group realizes,
    /// whose sphere fits, holds its certificate and keeps at least half the
    /// radius ρ₀ of the sphere about o (the classifiers asked about are
    /// then nearer what the data can do well, at most halving how far
    /// apart two questions' options can be); the sphere about o when none
    /// does. Issue #30: a person shown the uniform classifier's neighbours
    /// judges classifiers that misclassify most cases.
    ///
    /// # Errors
    /// As [`FeasibleSet::find_sphere`] for the sphere about o.
    pub fn find_sphere_toward_accurate(&self, samples: usize, seed: u64) -> Result<FoundSphere<T>> {
        let start = std::time::Instant::now();
        let uniform = self.find_sphere(samples, seed)?;
        let first = start.elapsed();
        // A line whose programs fail leaves the sphere about o.
        let Ok(line) = self.accurate_line() else {
            return Ok(uniform);
        };
        let half = uniform.radius.clone() / T::int(2);
        for tenths in (1..10).rev() {
            if first >= Progress::EVERY {
                log::info!(
                    target: "metric_elicitation::sphere",
                    "centring the sphere toward the most accurate classifier: trying {tenths}/10 of the way (each try about as long as the first, {:.0} s; query_center = \"uniform\" skips this)",
                    first.as_secs_f64()
                );
            }
            // A centre some group cannot realize, that leaves no room or
            // whose programs fail is passed over: a smaller t is nearer o.
            let Ok(centre) = self.centre_toward_accurate(&line, T::ratio(tenths, 10)) else {
                continue;
            };
            let Ok(found) = self.find_sphere_about(&centre, samples, seed) else {
                continue;
            };
            if found.certificate.holds && found.radius >= half {
                return Ok(found);
            }
        }
        Ok(uniform)
    }

    /// Finds S_ρ about o (P27): both extents of every axis in every group,
    /// their minima, the cross-polytope radius ρ, and a certificate on
    /// `samples` random points of S_ρ plus its 2q axis points (see
    /// [`FoundSphere::certify`]).
    ///
    /// # Errors
    /// As [`FeasibleSet::extent`]; [`Error::InvalidArgument`] when an extent
    /// is 0 (o is on the boundary of a group's set, so no ball fits).
    pub fn find_sphere(&self, samples: usize, seed: u64) -> Result<FoundSphere<T>> {
        self.find_sphere_about(&self.uniform_centre(), samples, seed)
    }

    /// As [`FeasibleSet::find_sphere`], about another `centre` (a point
    /// every group realizes, with its realisations): the extents about it,
    /// and points of the sphere realized by mixing the extents' classifiers
    /// with the centre's.
    ///
    /// # Errors
    /// As [`FeasibleSet::find_sphere`]; [`Error::InvalidArgument`] for a
    /// centre of the wrong dimension or without one realisation per group.
    pub fn find_sphere_about(
        &self,
        centre: &QueryCentre<T>,
        samples: usize,
        seed: u64,
    ) -> Result<FoundSphere<T>> {
        let q = self.dim();
        let m = self.groups();
        if centre.point.len() != q || centre.realisations.len() != m {
            return Err(Error::invalid(
                "query_center",
                format!(
                    "a centre of {} coordinates and {} realisations for q = {q} and {m} groups",
                    centre.point.len(),
                    centre.realisations.len()
                ),
            ));
        }
        let known: Vec<Vec<Vec<usize>>> = centre
            .realisations
            .iter()
            .map(|r| r.mixture.iter().map(|(_, h)| h.clone()).collect())
            .collect();
        // 2·q·m linear programs, independent of each other: in parallel
        // with the `rayon` feature (collected in order: the same bits).
        let total = 2 * q * m;
        let progress = Progress::new(total, Progress::EVERY);
        let extents: Vec<Extent<T>> = (0..total)
            .into_par_iter()
            .map(|n| {
                let (g, axis, positive) = (n / (2 * q), (n / 2) % q, n % 2 == 0);
                let extent = self.extent_about(g, axis, positive, &centre.point, &known[g]);
                progress.tick();
                extent
            })
            .collect::<Result<_>>()?;
        let find = |g: usize, axis: usize, positive: bool| {
            &extents[(g * q + axis) * 2 + usize::from(!positive)]
        };
        let mut c_plus = Vec::with_capacity(q);
        let mut c_minus = Vec::with_capacity(q);
        for axis in 0..q {
            for (positive, out) in [(true, &mut c_plus), (false, &mut c_minus)] {
                let least = (0..m)
                    .map(|g| find(g, axis, positive).c.clone())
                    .fold(None::<T>, |a, c| Some(a.map_or(c.clone(), |a| a.min(c))));
                out.push(least.unwrap_or_else(|| T::int(0)));
            }
        }
        let c: Vec<T> = c_plus
            .iter()
            .zip(&c_minus)
            .map(|(p, n)| p.clone().min(n.clone()))
            .collect();
        if let Some(axis) = c.iter().position(|v| *v <= T::int(0)) {
            return Err(self.no_room(axis, centre, |g, positive| find(g, axis, positive)));
        }
        if progress.start.elapsed() >= progress.every {
            log::info!(
                target: "metric_elicitation::sphere",
                "solved all {total} linear programs in {:.0} s; certifying the sphere on {samples} points",
                progress.start.elapsed().as_secs_f64()
            );
        }
        let inverse_squares = c
            .iter()
            .fold(T::int(0), |s, v| s + T::int(1) / (v.clone() * v.clone()));
        let radius = T::int(1) / inverse_squares.sqrt();
        let least = c.iter().cloned().fold(c[0].clone(), |a, b| a.min(b));
        let guarantee = least.clone() / T::int(q as i64).sqrt();
        let sphere = Sphere::new(centre.point.clone(), radius.clone())?;
        let s_tilde_upper = (self.normalization == Normalization::Rates)
            .then(|| self.inradius_upper(q * 64, seed, &centre.point))
            .flatten();
        let mut found = FoundSphere {
            sphere,
            c_plus,
            c_minus,
            extents,
            radius,
            guarantee,
            min_extent: least,
            s_tilde_upper,
            certificate: Certificate::default(),
            centre: centre.clone(),
        };
        found.certificate = found.certify(self, samples, seed)?;
        Ok(found)
    }

    /// An upper bound on s̃ (the largest ball about the centre in every
    /// group's set): the least σ_g(u) − ⟨u, centre⟩ over the axes and
    /// `directions` random unit directions u (exact support functions for
    /// expected rates).
    fn inradius_upper(&self, directions: usize, seed: u64, centre: &DVector<T>) -> Option<f64> {
        let q = self.dim();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let mut best = f64::INFINITY;
        let mut dirs: Vec<Vec<f64>> = (0..2 * q)
            .map(|a| {
                let mut u = vec![0.0; q];
                u[a / 2] = if a % 2 == 0 { 1.0 } else { -1.0 };
                u
            })
            .collect();
        for _ in 0..directions {
            dirs.push(random_unit(q, &mut rng));
        }
        let o: Vec<f64> = centre.iter().map(|v| v.to_f64_lossy()).collect();
        for g in 0..self.groups() {
            for u in &dirs {
                let (sigma, _) = self.support(g, u);
                best = best.min(sigma - dot(u, &o));
            }
        }
        best.is_finite().then_some(best)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn random_unit(q: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    loop {
        // Gaussian coordinates by Box–Muller give a uniform direction.
        let u: Vec<f64> = (0..q)
            .map(|_| {
                let (a, b): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random());
                (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
            })
            .collect();
        let norm = dot(&u, &u).sqrt();
        if norm > 1e-9 {
            return u.into_iter().map(|v| v / norm).collect();
        }
    }
}

fn lp_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::IllConditioned {
        what: "sphere finder".into(),
        detail: format!("{what}: {e}"),
    }
}

/// The restricted dual of OP1: min μ − ⟨ℓ, o⟩ s.t. μ − ⟨ℓ, R_v⟩ ≥ 0,
/// ⟨ℓ, d⟩ = 1 (d = sign·e_axis for an extent; `d` lists its non-zero
/// entries). Returns (ℓ, μ, value).
fn restricted_dual(
    vertices: &[Vec<f64>],
    o: &[f64],
    d: &[(usize, f64)],
) -> Result<(Vec<f64>, f64, f64)> {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    let q = o.len();
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let ell: Vec<_> = o
        .iter()
        .map(|oi| p.add_var(-oi, (f64::NEG_INFINITY, f64::INFINITY)))
        .collect();
    let mu = p.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
    for r in vertices {
        let mut expr: Vec<(microlp::Variable, f64)> =
            ell.iter().zip(r).map(|(v, c)| (*v, -c)).collect();
        expr.push((mu, 1.0));
        p.add_constraint(&expr[..], ComparisonOp::Ge, 0.0);
    }
    let direction: Vec<(microlp::Variable, f64)> = d.iter().map(|(i, v)| (ell[*i], *v)).collect();
    p.add_constraint(&direction[..], ComparisonOp::Eq, 1.0);
    let solution = p
        .solve()
        .map_err(|e| lp_error("dual", e))?
        .into_solution()
        .map_err(|_| lp_error("dual", "interrupted"))?;
    let l: Vec<f64> = (0..q).map(|i| solution.var_value(ell[i])).collect();
    Ok((l, solution.var_value(mu), solution.objective()))
}

/// The restricted primal of OP1: max c s.t. Σ λ_v R_v − c·d = o,
/// Σ λ_v = 1, λ ≥ 0 (`d` as for [`restricted_dual`]). Returns (λ, c).
fn restricted_primal(
    vertices: &[Vec<f64>],
    o: &[f64],
    d: &[(usize, f64)],
) -> Result<(Vec<f64>, f64)> {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    let q = o.len();
    let mut p = Problem::new(OptimizationDirection::Maximize);
    let lambda: Vec<_> = vertices
        .iter()
        .map(|_| p.add_var(0.0, (0.0, f64::INFINITY)))
        .collect();
    let c = p.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
    for i in 0..q {
        let mut expr: Vec<(microlp::Variable, f64)> = lambda
            .iter()
            .zip(vertices)
            .map(|(v, r)| (*v, r[i]))
            .collect();
        if let Some((_, v)) = d.iter().find(|(j, _)| *j == i) {
            expr.push((c, -v));
        }
        p.add_constraint(&expr[..], ComparisonOp::Eq, o[i]);
    }
    let ones: Vec<(microlp::Variable, f64)> = lambda.iter().map(|v| (*v, 1.0)).collect();
    p.add_constraint(&ones[..], ComparisonOp::Eq, 1.0);
    let solution = p
        .solve()
        .map_err(|e| lp_error("primal", e))?
        .into_solution()
        .map_err(|_| lp_error("primal", "interrupted"))?;
    Ok((
        lambda.iter().map(|v| solution.var_value(*v)).collect(),
        solution.var_value(c),
    ))
}

/// One extent c^±_{g,j} and the mixture of plug-in classifiers realizing
/// o ± c·eⱼ for group g.
#[derive(Debug, Clone)]
pub struct Extent<T> {
    /// The group g.
    pub group: usize,
    /// The axis j (off-diagonal index).
    pub axis: usize,
    /// + or −.
    pub positive: bool,
    /// The extent c at precision T (from the re-solved basis).
    pub c: T,
    /// The dual bound σ_g(ℓ) − ⟨ℓ, o⟩ at the last prices (f64). For
    /// expected rates the true extent is ≤ it. For labelled rates the
    /// plug-in classifier only approximates the maximizer of ⟨ℓ, R⟩, so this
    /// is no bound (it can fall below c).
    pub upper_bound: f64,
    /// Whether column generation closed the gap (to [`GAP`]) within
    /// [`MAX_COLUMNS`] columns; otherwise c is still realized (a lower
    /// bound) and, for expected rates, `upper_bound` bounds what was missed.
    pub converged: bool,
    /// (weight, predictions on group g's rows) of the classifiers mixed.
    pub mixture: Vec<(T, Vec<usize>)>,
    /// Columns generated.
    pub columns: usize,
    /// The prices ℓ of the last restricted dual solved (f64, one per axis,
    /// 1 on this axis with its sign; at [`MAX_COLUMNS`] those before the
    /// last column was added; empty when none was solved): where the
    /// extent is 0 they certify it, and the other axes they weigh are the
    /// rates that cannot stay put while this one moves.
    pub prices: Vec<f64>,
}

/// An extent along any direction (see [`Extent`]'s fields).
struct Along<T> {
    c: T,
    upper_bound: f64,
    converged: bool,
    mixture: Vec<(T, Vec<usize>)>,
    columns: usize,
    prices: Vec<f64>,
}

/// The realized rates of sampled points of S_ρ against the points.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Certificate {
    /// Points checked (per group).
    pub points: usize,
    /// Groups checked.
    pub groups: usize,
    /// The largest ‖rates(realized mixture) − point‖∞ over points and groups.
    pub max_deviation: f64,
    /// The tolerance it is held to ([`prec::certificate`]).
    pub tolerance: f64,
    /// The least weight in a realization, the uniform random classifier's
    /// or a mixed classifier's (≥ 0: the weights are a probability vector;
    /// about a centre other than o the centre's own classifiers carry part
    /// of the leftover weight).
    pub min_uniform_weight: f64,
    /// Whether every point was realized within the tolerance.
    pub holds: bool,
}

/// A found query sphere with its extents and certificate.
#[derive(Debug, Clone)]
pub struct FoundSphere<T: Scalar> {
    /// S_ρ about o.
    pub sphere: Sphere<T>,
    /// c⁺ⱼ = min_g c⁺_{g,j}.
    pub c_plus: Vec<T>,
    /// c⁻ⱼ = min_g c⁻_{g,j}.
    pub c_minus: Vec<T>,
    /// Every extent, ordered by (group, axis, +/−).
    pub extents: Vec<Extent<T>>,
    /// ρ = 1/√(Σⱼ 1/min(c⁺ⱼ, c⁻ⱼ)²).
    pub radius: T,
    /// minⱼ min(c⁺ⱼ, c⁻ⱼ)/√q: the guarantee ρ ≥ it ≥ s̃/√q (P27).
    pub guarantee: T,
    /// minⱼ min(c⁺ⱼ, c⁻ⱼ) (≥ s̃).
    pub min_extent: T,
    /// An upper bound on s̃ from sampled support functions (rates only).
    pub s_tilde_upper: Option<f64>,
    /// The check of sampled points.
    pub certificate: Certificate,
    /// The sphere's centre and the classifiers realizing it.
    pub centre: QueryCentre<T>,
}

/// The line from the uniform classifier's rates toward the data's most
/// accurate classifiers' ([`FeasibleSet::accurate_line`]).
#[derive(Debug, Clone)]
pub struct AccurateLine<T> {
    /// o, the uniform classifier's rates.
    pub origin: DVector<T>,
    /// d: the (mean) most accurate classifier's rates less o.
    pub direction: DVector<T>,
    /// Per group, the farthest c with o + c·d realized, and the mixture of
    /// deterministic classifiers realizing it (empty when d = 0).
    pub reach: Vec<(T, Mixture<T>)>,
}

/// A randomized classifier of one group: (weight, predictions on the
/// group's rows) of the deterministic classifiers mixed.
pub type Mixture<T> = Vec<(T, Vec<usize>)>;

/// The centre of a query sphere in the feasible rates: one point every
/// group realizes, with the randomized classifier that does so in each
/// group ([`FeasibleSet::uniform_centre`],
/// [`FeasibleSet::centre_toward_accurate`]).
#[derive(Debug, Clone)]
pub struct QueryCentre<T> {
    /// The centre's rates.
    pub point: DVector<T>,
    /// Per group, the randomized classifier whose rates are `point`.
    pub realisations: Vec<Realisation<T>>,
    /// The fraction of the way from the uniform classifier's rates to the
    /// most accurate classifier's (0 for the uniform classifier).
    pub t: T,
}

/// A randomized classifier realizing a point for one group: deterministic
/// classifiers (predictions on the group's rows) with weights, and the
/// weight of the uniform random classifier.
#[derive(Debug, Clone)]
pub struct Realisation<T> {
    /// (weight, predictions).
    pub mixture: Vec<(T, Vec<usize>)>,
    /// Weight of the uniform random classifier.
    pub uniform: T,
}

impl<T: Scalar> FoundSphere<T> {
    fn extent(&self, g: usize, axis: usize, positive: bool) -> &Extent<T> {
        let q = self.c_plus.len();
        &self.extents[(g * q + axis) * 2 + usize::from(!positive)]
    }

    /// The randomized classifier of group g whose rates are `point`
    /// (a point of the ball: ‖point − c‖ ≤ ρ about the centre c), by
    /// P27's mixture (the rest of the weight on the centre's classifier).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a point of the wrong dimension or
    /// outside the ball.
    pub fn realise(&self, g: usize, point: &DVector<T>) -> Result<Realisation<T>> {
        let q = self.c_plus.len();
        let o = self.sphere.center();
        if point.len() != q {
            return Err(Error::invalid(
                "point",
                format!("length {} for dimension {q}", point.len()),
            ));
        }
        let x = point - o;
        // x = point − o loses about an ulp of ‖o‖∞ to cancellation, which is
        // large against a small ρ.
        let slack = prec::ulps::<T>(64);
        if x.norm() > self.radius.clone() * (T::int(1) + slack.clone()) + o.amax() * slack {
            return Err(Error::invalid(
                "point",
                "outside the sphere's ball: not realized",
            ));
        }
        let mut mixture = Vec::new();
        for axis in 0..q {
            let xj = x[axis].clone();
            if xj == T::int(0) {
                continue;
            }
            let positive = xj > T::int(0);
            let cj = self.c_plus[axis].clone().min(self.c_minus[axis].clone());
            let w = xj.abs() / cj.clone();
            // o + sign·cⱼeⱼ for group g: group g's extent point (at
            // c_{g,j} ≥ cⱼ) with weight cⱼ/c_{g,j}, the centre's classifier otherwise.
            let e = self.extent(g, axis, positive);
            let share = cj / e.c.clone();
            for (v, h) in &e.mixture {
                mixture.push((w.clone() * share.clone() * v.clone(), h.clone()));
            }
        }
        let in_mixture = mixture.iter().fold(T::int(0), |s, (w, _)| s + w.clone());
        // The rest is the centre's classifier (for o, the uniform one).
        let rest = T::int(1) - in_mixture;
        let own = &self.centre.realisations[g];
        for (w, h) in &own.mixture {
            mixture.push((rest.clone() * w.clone(), h.clone()));
        }
        Ok(Realisation {
            uniform: rest * own.uniform.clone(),
            mixture,
        })
    }

    /// Realizes the 2q axis points o ± ρeⱼ and `samples` random points of
    /// S_ρ for every group, and compares their rates (at precision T) with
    /// the points.
    ///
    /// # Errors
    /// As [`FoundSphere::realise`] and [`FeasibleSet::rates`].
    pub fn certify(&self, set: &FeasibleSet<T>, samples: usize, seed: u64) -> Result<Certificate> {
        let q = set.dim();
        let o = self.sphere.center().clone();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut points: Vec<DVector<T>> = (0..2 * q)
            .map(|a| {
                let mut p = o.clone();
                let r = self.radius.clone();
                p[a / 2] += &(if a % 2 == 0 { r } else { -r });
                p
            })
            .collect();
        for _ in 0..samples {
            let u = random_unit(q, &mut rng);
            let u = DVector::from_iterator(q, u.into_iter().map(T::from_f64_exact));
            let norm = u.norm();
            points.push(&o + u * (self.radius.clone() / norm));
        }
        let mut worst = T::int(0);
        let mut min_uniform = f64::INFINITY;
        for g in 0..set.groups() {
            let og = set.center(g);
            for p in &points {
                let real = self.realise(g, p)?;
                min_uniform = real
                    .mixture
                    .iter()
                    .map(|(w, _)| w.to_f64_lossy())
                    .fold(min_uniform.min(real.uniform.to_f64_lossy()), f64::min);
                let rates =
                    set.mixture_rates(g, &real.mixture)? + og.clone() * real.uniform.clone();
                worst = worst.max((rates - p).amax());
            }
        }
        let tolerance = prec::certificate::<T>();
        Ok(Certificate {
            points: points.len(),
            groups: set.groups(),
            max_deviation: worst.to_f64_lossy(),
            tolerance: tolerance.to_f64_lossy(),
            min_uniform_weight: min_uniform,
            holds: worst <= tolerance && min_uniform >= -tolerance.to_f64_lossy(),
        })
    }
}

impl<T: Scalar> crate::population::DatasetPopulation<T> {
    /// The feasible set of the plug-in classifiers of η̂, per group (every
    /// row in one group when `by_group` is false).
    ///
    /// # Errors
    /// As [`FeasibleSet::new`].
    pub fn feasible(&self, normalization: Normalization, by_group: bool) -> Result<FeasibleSet<T>> {
        let groups = if by_group {
            self.groups.clone()
        } else {
            vec![0; self.len()]
        };
        FeasibleSet::new(self.k, &self.scores, &self.mass, &groups, normalization)
    }

    /// Finds the query sphere in the feasible set (001 App. B.1; see
    /// [`crate::geometry::feasible`]) and certifies it on `samples` random
    /// points besides the 2q axis points.
    ///
    /// # Errors
    /// As [`FeasibleSet::find_sphere`].
    pub fn find_sphere(
        &self,
        normalization: Normalization,
        by_group: bool,
        samples: usize,
        seed: u64,
    ) -> Result<FoundSphere<T>> {
        self.feasible(normalization, by_group)?
            .find_sphere(samples, seed)
    }
}
