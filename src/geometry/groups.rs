//! Group-conditional rates, the common query sphere and the embeddings of
//! the fair procedures (001 §2–4, App. C; 000 §4.3, App. D).
//!
//! * **Rates.** A classifier's group-conditional rates r^g are the
//!   off-diagonal entries of R^g_ij = P(h = j | Y = i, G = g), row-major
//!   without the diagonal ([`rate_index`]), q = k² − k of them
//!   ([`rate_count`]); a query point of m groups is [`GroupRates`].
//! * **Groups.** [`Groups`] holds t^g_i = P(G = g | Y = i) (m rows of k
//!   values, each column summing to 1), the vectors τ^g ∈ [0, 1]^q
//!   (entry (i, j) is t^g_i), and the common sphere S_ρ about the centre
//!   o = (1/k)·1 (the uniform random classifier, [`centre`]). The overall
//!   rates are r = Σ_g τ^g ⊙ r^g ([`Groups::overall`]).
//! * **Trivial classifiers.** e_c predicts class c everywhere: 1 at the
//!   entries (i, c), i ≠ c, and 0 elsewhere ([`trivial`]); for
//!   s ∈ [0, 1]^q, |s − e_c| = w_c ⊙ s + e_c with w_c = 1 − 2e_c
//!   ([`sign_vector`]).
//! * **Partitions.** [`Partitions`]: the set M of group subsets σ the
//!   violation weights are read through, and the 0/1 matrix Ξ
//!   (Ξ_{σ,(u,v)} = 1 iff exactly one of u, v is in σ), chosen so that Ξ is
//!   invertible for every m (`notes/001-fair.md` P19).
//! * **Embeddings.** A procedure searches over points s of one sphere and
//!   asks an oracle over m groups' rates; [`Embedding`] maps s to the m
//!   groups' rates, and [`Restricted`] is the oracle over s that embeds
//!   both points and asks the inner oracle. Counting, budgets, transcripts,
//!   adversaries and replay all live in the inner oracle and work
//!   unchanged.
//!
//! Groups and classes are 0-based in code; messages quote them 1-based, as
//! the papers do.
//!
//! # Examples
//! ```
//! use metric_elicitation::geometry::groups::{Embedding, GroupRates, Groups, Restricted};
//! use metric_elicitation::oracle::{Counted, Oracle, Simulated};
//! use nalgebra::DVector;
//! // m = 2 groups, k = 2 classes: t¹ = (0.3, 0.6), t² = (0.7, 0.4).
//! let groups = Groups::new(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None).unwrap();
//! assert_eq!(groups.dim(), 2);
//! assert_eq!(*groups.radius(), 0.2);
//! // An oracle over two groups' rates that dislikes overall errors.
//! let g = groups.clone();
//! let mut inner = Counted::new(Simulated::new(move |r: &GroupRates<f64>| -g.overall(r).sum()));
//! // The same oracle over points s of S_ρ, every group at s.
//! let mut class_oracle = Restricted::new(&groups, Embedding::Uniform, &mut inner).unwrap();
//! let (x, y) = (DVector::from_vec(vec![0.4, 0.4]), DVector::from_vec(vec![0.6, 0.6]));
//! assert!(class_oracle.compare(&x, &y).unwrap().prefers_first());
//! assert_eq!(inner.queries(), 1);
//! ```

use super::sphere::Sphere;
use crate::error::{Error, Result};
use crate::oracle::{Answer, Oracle, QueryPoint};
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector, DVectorView};

/// q = k² − k: the number of off-diagonal rates of k classes.
pub fn rate_count(k: usize) -> usize {
    k * k - k
}

/// The 0-based index of the off-diagonal entry (i, j), i ≠ j (0-based
/// classes), in the row-major order (1,2), (1,3), …, (1,k), (2,1), …:
/// i·(k − 1) + j − \[j > i\]. `None` when i = j or a class is out of range.
pub fn rate_index(k: usize, i: usize, j: usize) -> Option<usize> {
    (i != j && i < k && j < k).then(|| crate::population::offdiag_index(k, i, j))
}

/// The entry (i, j) (0-based classes) at index `index` of the row-major
/// off-diagonal order; the inverse of [`rate_index`]. `None` when
/// `index ≥ q`.
pub fn rate_entry(k: usize, index: usize) -> Option<(usize, usize)> {
    if k < 2 || index >= rate_count(k) {
        return None;
    }
    Some(crate::population::offdiag_pair(k, index))
}

/// o = (1/k)·1_q: the rates of the uniform random classifier, the centre of
/// every group's feasible set (001 §4, P7).
pub fn centre<T: Scalar>(k: usize) -> DVector<T> {
    DVector::from_element(rate_count(k), T::ratio(1, k as i64))
}

/// e_c: the rates of the classifier that predicts class `c` (0-based)
/// everywhere: 1 at the entries (i, c), i ≠ c, 0 elsewhere (001 §4.2).
///
/// # Errors
/// [`Error::InvalidArgument`] when c ≥ k.
pub fn trivial<T: Scalar>(k: usize, c: usize) -> Result<DVector<T>> {
    if c >= k {
        return Err(Error::invalid(
            "class",
            format!("class {} is not one of the {k} classes", c + 1),
        ));
    }
    let mut e = DVector::from_element(rate_count(k), T::int(0));
    for i in (0..k).filter(|i| *i != c) {
        if let Some(idx) = rate_index(k, i, c) {
            e[idx] = T::int(1);
        }
    }
    Ok(e)
}

/// w_c = 1 − 2e_c: the signs with |s − e_c| = w_c ⊙ s + e_c for every
/// s ∈ [0, 1]^q (001 App. C.2).
///
/// # Errors
/// As [`trivial`].
pub fn sign_vector<T: Scalar>(k: usize, c: usize) -> Result<DVector<T>> {
    Ok(trivial::<T>(k, c)?.map(|e| T::int(1) - e * T::int(2)))
}

/// The default radius ρ of the common sphere: the largest that keeps S_ρ
/// inside [0, 1]^q, capped at the paper's 0.2 (001 §6.1), i.e.
/// min(1/k, 1/5). The sphere then touches 0 at k = 5 (001-fair.md P8).
///
/// S_ρ ⊂ [0, 1]^q is what the procedures need (the signs of |s − e_c|);
/// that every point of S_ρ is also a *feasible* rate vector of every group
/// (row sums Σ_{j≠i} R_ij ≤ 1 need ρ ≤ 1/(k√(k − 1)), and a population
/// restricts it further) is the paper's Assumption 1 / Remark 2, which a
/// simulation takes as given.
pub fn default_radius<T: Scalar>(k: usize) -> T {
    T::ratio(1, (k as i64).max(5))
}

/// Which rates of each group a query point holds (000 §2 and App. E).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Rates {
    /// The q = k² − k off-diagonal rates R_ij, i ≠ j (001; 000 App. E):
    /// τ^g has entry (i, j) equal to t^g_i.
    #[default]
    General,
    /// The q = k diagonal rates R_ii = P(h = i | Y = i) (000 §2, Def. 4):
    /// τ^g = t^g.
    Diagonal,
}

impl Rates {
    /// q for k classes.
    pub fn count(self, k: usize) -> usize {
        match self {
            Rates::General => rate_count(k),
            Rates::Diagonal => k,
        }
    }
}

/// A query point of the fair procedures: the rates r¹, …, r^m of m groups,
/// each a vector of q off-diagonal rates, stored contiguously (group g at
/// entries g·q .. (g + 1)·q).
#[derive(Debug, Clone)]
pub struct GroupRates<T: Scalar> {
    q: usize,
    data: DVector<T>,
}

/// Equal shapes and equal rates (compared as slices: this runs once per
/// query in [`crate::oracle::Counted`]).
impl<T: Scalar> PartialEq for GroupRates<T> {
    fn eq(&self, other: &Self) -> bool {
        self.q == other.q && self.data.as_slice() == other.data.as_slice()
    }
}

impl<T: Scalar> crate::oracle::Recall for GroupRates<T> {
    fn difference(&self, other: &Self, hint: usize) -> Option<usize> {
        if self.q != other.q {
            return Some(0);
        }
        crate::oracle::Recall::difference(&self.data, &other.data, hint)
    }

    fn copy_from(&mut self, other: &Self) {
        self.q = other.q;
        crate::oracle::Recall::copy_from(&mut self.data, &other.data);
    }
}

impl<T: Scalar> GroupRates<T> {
    /// The point with group g's rates `rates[g]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no groups or rate vectors of unequal
    /// or zero length.
    pub fn new(rates: &[DVector<T>]) -> Result<Self> {
        let q = rates.first().map_or(0, DVector::len);
        if q == 0 || rates.iter().any(|r| r.len() != q) {
            return Err(Error::invalid(
                "rates",
                "needs at least one group and rate vectors of one positive length",
            ));
        }
        let data = DVector::from_iterator(
            q * rates.len(),
            rates.iter().flat_map(|r| r.iter().cloned()),
        );
        Ok(GroupRates { q, data })
    }

    /// Every one of `m` groups at the rates `s` (the embedding (s, …, s)).
    pub fn uniform(s: &DVector<T>, m: usize) -> Self {
        let q = s.len();
        let mut data = DVector::from_element(q * m, T::int(0));
        for g in 0..m {
            data.rows_mut(g * q, q).copy_from(s);
        }
        GroupRates { q, data }
    }

    /// The number of groups m.
    pub fn groups(&self) -> usize {
        self.data.len() / self.q
    }

    /// The number of rates per group q.
    pub fn dim(&self) -> usize {
        self.q
    }

    /// Group g's rates r^g (0-based g < m).
    ///
    /// # Panics
    /// When g ≥ m (a programming error, not input).
    pub fn group(&self, g: usize) -> DVectorView<'_, T> {
        self.data.rows(g * self.q, self.q)
    }

    /// All rates, group after group (length m·q).
    pub fn as_vector(&self) -> &DVector<T> {
        &self.data
    }
}

impl<T: Scalar> QueryPoint for GroupRates<T> {
    fn coords(&self) -> Vec<String> {
        self.data.coords()
    }

    fn values(&self) -> Vec<f64> {
        self.data.values()
    }
}

/// The groups of a fair metric: t^g_i = P(G = g | Y = i), the vectors τ^g,
/// and the common query sphere S_ρ about o (001 §2, §4; 000 §4.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Groups<T: Scalar> {
    k: usize,
    rates: Rates,
    t: Vec<Vec<T>>,
    tau: Vec<DVector<T>>,
    sphere: Sphere<T>,
}

impl<T: Scalar> Groups<T> {
    /// Groups of k classes with `t[g][i]` = P(G = g | Y = i) and the sphere
    /// S_ρ of radius `radius` about o ([`default_radius`] when `None`).
    ///
    /// Each column (a class i) must sum to 1 within 10⁻⁹
    /// ([`crate::prec::input`]); the columns are then rescaled to sum to 1
    /// at the working precision, so that Σ_g τ^g = 1 holds exactly as the
    /// procedures assume.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `population.tau` (fewer than 2
    /// groups, fewer than 2 classes, a row of the wrong length, an entry
    /// outside [0, 1] or not finite, a column not summing to 1) or
    /// `population.radius` (not in (0, 1/k]).
    pub fn new(k: usize, t: Vec<Vec<T>>, radius: Option<T>) -> Result<Self> {
        Self::with_rates(k, t, radius, Rates::General)
    }

    /// As [`Groups::new`], in the given rates: for [`Rates::Diagonal`]
    /// q = k, τ^g = t^g and o = (1/k)·1_k (000 §4.3).
    ///
    /// # Errors
    /// As [`Groups::new`].
    pub fn with_rates(k: usize, t: Vec<Vec<T>>, radius: Option<T>, rates: Rates) -> Result<Self> {
        let field = "population.tau";
        if k < 2 {
            return Err(Error::invalid(
                "population.classes",
                format!("needs k >= 2 classes, got {k}"),
            ));
        }
        if t.len() < 2 {
            return Err(Error::invalid(
                field,
                format!("needs m >= 2 groups (rows), got {}", t.len()),
            ));
        }
        let (zero, one) = (T::int(0), T::int(1));
        for (g, row) in t.iter().enumerate() {
            if row.len() != k {
                return Err(Error::invalid(
                    format!("{field}[{g}]"),
                    format!("expected k = {k} values, got {}", row.len()),
                ));
            }
            for (i, v) in row.iter().enumerate() {
                if !v.finite() || *v < zero || *v > one {
                    return Err(Error::invalid(
                        format!("{field}[{g}][{i}]"),
                        format!(
                            "P(G = {} | Y = {}) must lie in [0, 1], got {v}",
                            g + 1,
                            i + 1
                        ),
                    ));
                }
            }
        }
        let mut t = t;
        for i in 0..k {
            let sum = t.iter().fold(zero.clone(), |s, row| s + row[i].clone());
            if (sum.clone() - one.clone()).abs() > crate::prec::input::<T>() {
                return Err(Error::invalid(
                    field,
                    format!(
                        "column {} (class {}) must sum to 1 over the groups within 1e-9, got {sum}",
                        i,
                        i + 1
                    ),
                ));
            }
            for row in &mut t {
                row[i] /= &sum;
            }
        }
        let radius = radius.unwrap_or_else(|| default_radius::<T>(k));
        let limit = T::ratio(1, k as i64);
        if !radius.finite() || radius <= zero || radius > limit {
            return Err(Error::invalid(
                "population.radius",
                format!(
                    "rho must lie in (0, 1/k] = (0, {}] so that S_rho stays in [0, 1]^q, got {radius}",
                    limit.to_f64_lossy()
                ),
            ));
        }
        let q = rates.count(k);
        let tau = t
            .iter()
            .map(|row| match rates {
                Rates::Diagonal => DVector::from_vec(row.clone()),
                Rates::General => {
                    let mut v = DVector::from_element(q, zero.clone());
                    for idx in 0..q {
                        if let Some((i, _)) = rate_entry(k, idx) {
                            v[idx] = row[i].clone();
                        }
                    }
                    v
                }
            })
            .collect();
        let o = DVector::from_element(q, T::ratio(1, k as i64));
        let sphere = Sphere::new(o, radius)?;
        Ok(Groups {
            k,
            rates,
            t,
            tau,
            sphere,
        })
    }

    /// Random groups for simulations (001 §6.1 does not state its τ): for
    /// each class i, (t¹_i, …, t^m_i) = U[0, 1]^m normalized to sum to 1;
    /// drawn in `f64`, converted exactly, normalized at the working
    /// precision.
    ///
    /// # Errors
    /// As [`Groups::new`] (m < 2, k < 2, a radius outside (0, 1/k]).
    pub fn sample<R: rand::Rng + ?Sized>(
        m: usize,
        k: usize,
        radius: Option<T>,
        rng: &mut R,
    ) -> Result<Self> {
        let raw: Vec<Vec<T>> = (0..m)
            .map(|_| {
                (0..k)
                    .map(|_| T::from_f64_exact(rng.random_range(1e-12..1.0)))
                    .collect()
            })
            .collect();
        let t = (0..m)
            .map(|g| {
                (0..k)
                    .map(|i| {
                        let total = raw.iter().fold(T::int(0), |s, row| s + row[i].clone());
                        raw[g][i].clone() / total
                    })
                    .collect()
            })
            .collect();
        Self::new(k, t, radius)
    }

    /// The number of classes k.
    pub fn classes(&self) -> usize {
        self.k
    }

    /// The number of groups m.
    pub fn groups(&self) -> usize {
        self.t.len()
    }

    /// q = k² − k.
    pub fn dim(&self) -> usize {
        self.rates.count(self.k)
    }

    /// Which rates a group's vector holds.
    pub fn rates(&self) -> Rates {
        self.rates
    }

    /// t^g: P(G = g | Y = i) for each class i (0-based g).
    pub fn t(&self, g: usize) -> &[T] {
        &self.t[g]
    }

    /// τ^g ∈ [0, 1]^q: entry (i, j) is t^g_i.
    pub fn tau(&self, g: usize) -> &DVector<T> {
        &self.tau[g]
    }

    /// τ^σ = Σ_{g∈σ} τ^g.
    pub fn tau_sum(&self, sigma: &[usize]) -> DVector<T> {
        let mut s = DVector::from_element(self.dim(), T::int(0));
        for &g in sigma {
            s += &self.tau[g];
        }
        s
    }

    /// The common sphere S_ρ about o (or the centre of
    /// [`Groups::with_centre`]).
    pub fn sphere(&self) -> &Sphere<T> {
        &self.sphere
    }

    /// The centre o = (1/k)·1 (or the centre of [`Groups::with_centre`]).
    pub fn centre(&self) -> &DVector<T> {
        self.sphere.center()
    }

    /// The same groups with the common sphere (same radius) moved to
    /// `centre`, a point every group realizes (issue #30: a sphere found in
    /// data toward its most accurate classifiers,
    /// [`crate::geometry::feasible::FeasibleSet::find_sphere_toward_accurate`]).
    /// For the Bayesian engine, whose questions are pairs about any common
    /// centre; 001's search assumes o (trivial classifiers at the corners,
    /// S⁺ ≥ o) and is given the groups about o.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `population` for a centre of the
    /// wrong length (not general rates) or a sphere leaving [0, 1]^q.
    pub fn with_centre(mut self, centre: DVector<T>) -> Result<Self> {
        let q = self.dim();
        let inside = centre.iter().all(|c| {
            c.clone() - self.radius().clone() >= T::int(0)
                && c.clone() + self.radius().clone() <= T::int(1)
        });
        if self.rates != Rates::General || centre.len() != q || !inside {
            return Err(Error::invalid(
                "population",
                format!(
                    "a common query centre of {} general rates inside [0, 1] at radius {}",
                    q,
                    self.radius().to_f64_lossy()
                ),
            ));
        }
        self.sphere = Sphere::new(centre, self.radius().clone())?;
        Ok(self)
    }

    /// The radius ρ.
    pub fn radius(&self) -> &T {
        self.sphere.radius()
    }

    /// S⁺ of 001 Alg. 4 (not specified in the paper): the largest sphere
    /// inside S_ρ whose points are all ≥ o entrywise, centre o + ϱ·1,
    /// radius ϱ = ρ/(1 + √q) (001-fair.md P21).
    ///
    /// # Errors
    /// Only on internal failure.
    pub fn plus_sphere(&self) -> Result<Sphere<T>> {
        let q = self.dim();
        let small = self.radius().clone() / (T::int(1) + T::int(q as i64).sqrt());
        let centre = self.centre().add_scalar(small.clone());
        Sphere::new(centre, small)
    }

    /// The overall rates r = Σ_g τ^g ⊙ r^g (001 eq. 4).
    ///
    /// # Panics
    /// When `rates` has another number of groups or rates (a programming
    /// error: every point a procedure builds has the groups' shape).
    pub fn overall(&self, rates: &GroupRates<T>) -> DVector<T> {
        let q = self.dim();
        let mut r = DVector::from_element(q, T::int(0));
        for (g, tau) in self.tau.iter().enumerate() {
            let rg = rates.group(g);
            for i in 0..q {
                r[i] += &(tau[i].clone() * rg[i].clone());
            }
        }
        r
    }

    /// Checks that `rates` has this population's m groups of q rates.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the mismatch.
    pub fn check(&self, rates: &GroupRates<T>) -> Result<()> {
        if rates.groups() != self.groups() || rates.dim() != self.dim() {
            return Err(Error::invalid(
                "rates",
                format!(
                    "{} groups of {} rates for a population of {} groups and q = {}",
                    rates.groups(),
                    rates.dim(),
                    self.groups(),
                    self.dim()
                ),
            ));
        }
        Ok(())
    }
}

/// m with C(m, 2) = `pairs`, if there is one (m ≥ 2): the number of
/// groups whose [`pairs`] are that many.
pub fn groups_of_pairs(pairs: usize) -> Option<usize> {
    (2..)
        .take_while(|m| m * (m - 1) / 2 <= pairs)
        .find(|m| m * (m - 1) / 2 == pairs)
}

/// The pairs (u, v), u < v, of m groups (0-based), in the papers' order
/// (1,2), (1,3), …, (1,m), (2,3), …: C(m, 2) of them.
pub fn pairs(m: usize) -> Vec<(usize, usize)> {
    (0..m)
        .flat_map(|u| (u + 1..m).map(move |v| (u, v)))
        .collect()
}

/// The index of the pair (u, v), u ≠ v, in [`pairs`]; `None` when u = v or
/// a group is out of range.
pub fn pair_index(m: usize, u: usize, v: usize) -> Option<usize> {
    let (u, v) = (u.min(v), u.max(v));
    (u != v && v < m).then(|| u * (2 * m - u - 1) / 2 + (v - u - 1))
}

/// Whether σ cuts the pair (u, v): exactly one of u, v is in σ.
pub fn cuts(sigma: &[usize], (u, v): (usize, usize)) -> bool {
    sigma.contains(&u) != sigma.contains(&v)
}

/// The set M of group subsets σ through which 001 Alg. 1 Part 2 reads the
/// violation weights, and the 0/1 matrix Ξ (|M| × C(m, 2),
/// Ξ_{σ,(u,v)} = 1 iff σ cuts (u, v)), with its inverse at the working
/// precision (001 eqs. 32–34; 000 §4.3).
///
/// [`Partitions::new`] chooses M so that Ξ is invertible for every m ≥ 2
/// (001-fair.md P19): {{1}} for m = 2; all 2-subsets for m = 3 and m ≥ 5
/// (Ξ is then the adjacency matrix of the triangular graph T(m), with
/// eigenvalues 2(m − 2), m − 4 and −2: singular only at m = 4); for m = 4
/// the singletons and {1, 2}, {1, 3}.
#[derive(Debug, Clone, PartialEq)]
pub struct Partitions<T: Scalar> {
    m: usize,
    sets: Vec<Vec<usize>>,
    xi: DMatrix<T>,
    inverse: DMatrix<T>,
}

impl<T: Scalar> Partitions<T> {
    /// The partitions of 001-fair.md P19 for m ≥ 2 groups.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for m < 2.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::geometry::groups::Partitions;
    /// let p = Partitions::<f64>::new(4).unwrap();
    /// assert_eq!(p.sets(), &[vec![0], vec![1], vec![2], vec![3], vec![0, 1], vec![0, 2]]);
    /// // Ξ⁻¹Ξ = I
    /// let id = p.inverse() * p.xi();
    /// assert!((id - nalgebra::DMatrix::identity(6, 6)).amax() < 1e-14);
    /// ```
    pub fn new(m: usize) -> Result<Self> {
        let sets: Vec<Vec<usize>> = match m {
            0 | 1 => {
                return Err(Error::invalid(
                    "groups",
                    format!("partitions need m >= 2 groups, got {m}"),
                ))
            }
            2 => vec![vec![0]],
            4 => vec![vec![0], vec![1], vec![2], vec![3], vec![0, 1], vec![0, 2]],
            _ => pairs(m).into_iter().map(|(u, v)| vec![u, v]).collect(),
        };
        Self::with_sets(m, sets)
    }

    /// Partitions with an explicit M (e.g. the reference implementation's
    /// {1},{2},{3},{4},{1,4},{2,4} at m = 4).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when M does not have C(m, 2) proper,
    /// non-empty subsets of the m groups, or Ξ is singular.
    pub fn with_sets(m: usize, sets: Vec<Vec<usize>>) -> Result<Self> {
        let all = pairs(m);
        if m < 2 || sets.len() != all.len() {
            return Err(Error::invalid(
                "partitions",
                format!(
                    "need C(m, 2) = {} subsets for m = {m} groups, got {}",
                    all.len(),
                    sets.len()
                ),
            ));
        }
        for (i, s) in sets.iter().enumerate() {
            let mut sorted = s.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.is_empty() || sorted.len() >= m || sorted.iter().any(|g| *g >= m) {
                return Err(Error::invalid(
                    "partitions",
                    format!(
                        "subset {i} = {s:?} is not a proper non-empty subset of the {m} groups"
                    ),
                ));
            }
        }
        let xi = DMatrix::from_fn(sets.len(), all.len(), |r, c| {
            if cuts(&sets[r], all[c]) {
                T::int(1)
            } else {
                T::int(0)
            }
        });
        let inverse = xi.clone().lu().try_inverse().ok_or_else(|| {
            Error::invalid(
                "partitions",
                format!("the cut matrix Xi of {sets:?} is singular for m = {m}"),
            )
        })?;
        // Ξ has small integer entries; a numerically singular Ξ would show
        // as a large residual of Ξ⁻¹Ξ − I.
        let residual = (&inverse * &xi - DMatrix::identity(all.len(), all.len())).amax();
        if residual > crate::prec::ill_conditioned::<T>() {
            return Err(Error::invalid(
                "partitions",
                format!(
                    "the cut matrix Xi of {sets:?} is numerically singular (residual {residual})"
                ),
            ));
        }
        Ok(Partitions {
            m,
            sets,
            xi,
            inverse,
        })
    }

    /// The number of groups m.
    pub fn groups(&self) -> usize {
        self.m
    }

    /// M: the subsets σ, each a sorted list of 0-based groups.
    pub fn sets(&self) -> &[Vec<usize>] {
        &self.sets
    }

    /// Ξ (|M| × C(m, 2)); columns in the order of [`pairs`].
    pub fn xi(&self) -> &DMatrix<T> {
        &self.xi
    }

    /// Ξ⁻¹.
    pub fn inverse(&self) -> &DMatrix<T> {
        &self.inverse
    }

    /// ‖Ξ⁻¹‖_∞ (the largest absolute row sum): how much an error in one
    /// γ^σ can move one b̃^{uv} (001 App. D).
    pub fn inverse_inf_norm(&self) -> T {
        self.inverse
            .row_iter()
            .map(|r| r.iter().fold(T::int(0), |s, v| s + v.clone().abs()))
            .fold(T::int(0), |a, b| a.max(b))
    }

    /// Solves Ξ·B̃ = Γ row-wise (001 eq. 34): `gamma[σ]` is γ^σ (one per set
    /// of M, each of q entries); returns b̃^{uv} in the order of [`pairs`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `gamma` does not have |M| vectors of
    /// one length.
    pub fn solve(&self, gamma: &[DVector<T>]) -> Result<Vec<DVector<T>>> {
        let q = gamma.first().map_or(0, DVector::len);
        if gamma.len() != self.sets.len() || gamma.iter().any(|g| g.len() != q) {
            return Err(Error::invalid(
                "gamma",
                format!(
                    "expected {} vectors of one length, got {}",
                    self.sets.len(),
                    gamma.len()
                ),
            ));
        }
        Ok((0..self.inverse.nrows())
            .map(|p| {
                let mut b = DVector::from_element(q, T::int(0));
                for (s, g) in gamma.iter().enumerate() {
                    let w = &self.inverse[(p, s)];
                    if *w != T::int(0) {
                        b += g * w.clone();
                    }
                }
                b
            })
            .collect())
    }
}

/// How a point s of a sphere becomes the rates of m groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Embedding {
    /// (s, s, …, s): every group at s (001 Alg. 1 Part 1; Ψ reduces to
    /// (1 − λ)⟨a, s⟩).
    Uniform,
    /// ν(s, σ, c): the groups in σ at e_c, the others at s (001 Alg. 1
    /// Part 2).
    Violation {
        /// σ, 0-based groups.
        sigma: Vec<usize>,
        /// The class c (0-based) of the trivial classifier e_c.
        class: usize,
    },
    /// (o, …, s⁺, …, o): group `group` at s (a point of S⁺, s ≥ o), every
    /// other group at o (001 Alg. 1 Part 3 / Alg. 4 with `group` = 0).
    TradeOff {
        /// The group (0-based) that moves.
        group: usize,
    },
    /// The groups in σ at s, the others at o (000 §4.3, the quadratic fair
    /// procedure).
    Quadratic {
        /// σ, 0-based groups.
        sigma: Vec<usize>,
    },
}

/// The oracle over points s of a sphere that an [`Embedding`] and an inner
/// oracle over m groups' rates define: `compare(x, y)` asks the inner
/// oracle about (embed(x), embed(y)). It holds no oracle logic of its own,
/// so the inner oracle's counting, budget, transcript, noise and adversary
/// apply to every query.
#[derive(Debug)]
pub struct Restricted<T: Scalar, O> {
    inner: O,
    m: usize,
    /// Which groups take s (the others take `fixed`).
    moves: Vec<bool>,
    fixed: DVector<T>,
    /// The two points of the last comparison, reused so that a comparison
    /// allocates nothing (the fixed groups are written once).
    scratch: [GroupRates<T>; 2],
}

impl<T: Scalar, O> Restricted<T, O> {
    /// The restricted oracle of `embedding` over the groups' sphere(s),
    /// asking `inner`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a group or class out of range, or a
    /// σ that is empty or contains every group (no proper subset).
    pub fn new(groups: &Groups<T>, embedding: Embedding, inner: O) -> Result<Self> {
        let (m, k) = (groups.groups(), groups.classes());
        let check_sigma = |sigma: &[usize]| -> Result<()> {
            if sigma.is_empty() || sigma.iter().any(|g| *g >= m) {
                return Err(Error::invalid(
                    "sigma",
                    format!("{sigma:?} is not a non-empty subset of the {m} groups"),
                ));
            }
            if (0..m).all(|g| sigma.contains(&g)) {
                return Err(Error::invalid(
                    "sigma",
                    format!("{sigma:?} contains every group"),
                ));
            }
            Ok(())
        };
        let (moves, fixed) = match &embedding {
            Embedding::Uniform => (vec![true; m], groups.centre().clone()),
            Embedding::Violation { sigma, class } => {
                check_sigma(sigma)?;
                (
                    (0..m).map(|g| !sigma.contains(&g)).collect(),
                    match groups.rates() {
                        Rates::General => trivial(k, *class)?,
                        // In diagonal rates e_c is the unit vector α_c.
                        Rates::Diagonal => {
                            let mut e = trivial::<T>(k, *class)
                                .map(|_| DVector::from_element(k, T::int(0)))?;
                            e[*class] = T::int(1);
                            e
                        }
                    },
                )
            }
            Embedding::TradeOff { group } => {
                if *group >= m {
                    return Err(Error::invalid(
                        "group",
                        format!("group {} is not one of the {m} groups", group + 1),
                    ));
                }
                (
                    (0..m).map(|g| g == *group).collect(),
                    groups.centre().clone(),
                )
            }
            Embedding::Quadratic { sigma } => {
                check_sigma(sigma)?;
                (
                    (0..m).map(|g| sigma.contains(&g)).collect(),
                    groups.centre().clone(),
                )
            }
        };
        let blank = GroupRates {
            q: fixed.len(),
            data: DVector::from_element(fixed.len() * m, T::int(0)),
        };
        let mut restricted = Restricted {
            inner,
            m,
            moves,
            fixed,
            scratch: [blank.clone(), blank],
        };
        for point in 0..2 {
            let q = restricted.fixed.len();
            for g in (0..m).filter(|g| !restricted.moves[*g]) {
                restricted.scratch[point]
                    .data
                    .rows_mut(g * q, q)
                    .copy_from(&restricted.fixed);
            }
        }
        Ok(restricted)
    }

    fn check_point(&self, s: &DVector<T>) -> Result<()> {
        let q = self.fixed.len();
        if s.len() != q {
            return Err(Error::invalid(
                "point",
                format!("{} rates where q = {q}", s.len()),
            ));
        }
        Ok(())
    }

    /// Writes s into the moving groups of scratch point `which`.
    fn fill(&mut self, which: usize, s: &DVector<T>) {
        let q = self.fixed.len();
        let data = self.scratch[which].data.as_mut_slice();
        for (chunk, moves) in data.chunks_exact_mut(q).zip(&self.moves) {
            if *moves {
                chunk.clone_from_slice(s.as_slice());
            }
        }
    }

    /// The m groups' rates of the point s.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when s does not have q entries.
    pub fn embed(&self, s: &DVector<T>) -> Result<GroupRates<T>> {
        self.check_point(s)?;
        let q = self.fixed.len();
        let mut data = DVector::from_element(q * self.m, T::int(0));
        for (g, moves) in self.moves.iter().enumerate() {
            data.rows_mut(g * q, q)
                .copy_from(if *moves { s } else { &self.fixed });
        }
        Ok(GroupRates { q, data })
    }

    /// The inner oracle.
    pub fn inner(&self) -> &O {
        &self.inner
    }

    /// The inner oracle, mutably.
    pub fn inner_mut(&mut self) -> &mut O {
        &mut self.inner
    }

    /// Gives the inner oracle back.
    pub fn into_inner(self) -> O {
        self.inner
    }
}

impl<T: Scalar, O: Oracle<GroupRates<T>>> Oracle<DVector<T>> for Restricted<T, O> {
    fn compare(&mut self, x: &DVector<T>, y: &DVector<T>) -> Result<Answer> {
        self.check_point(x)?;
        self.check_point(y)?;
        self.fill(0, x);
        self.fill(1, y);
        let [ex, ey] = &self.scratch;
        self.inner.compare(ex, ey)
    }
}
