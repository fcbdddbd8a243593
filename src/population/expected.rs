//! Populations of n probability rows ηᵢ(x) evaluated in expectation (no
//! labels): dᵢ(h) = (1/n)·Σₓ ηᵢ(x)·1[h(x) = i]. The synthetic population of
//! 004 §5 ([`ExpectedMulticlass::synthetic_004`]) is one.
//!
//! # Faces at the speed of memory
//! An RBO query on the face (k1, k2) with weights (w1, w2) predicts k1 on
//! the rows with u = η_{k1}/(η_{k1} + η_{k2}) ≥ δ = w2/(w1 + w2) (002
//! Prop. 2; a row with η_{k1} = η_{k2} = 0 has u = 1: w1·0 ≥ w2·0). Instead
//! of sorting the n keys (O(n log n) per face), a face is prepared by **one
//! streaming pass** (in parallel over blocks of [`BLOCK`] rows) that puts
//! every row in one of B = 2¹² bins of u (bin j holds j/B ≤ u < (j + 1)/B,
//! bin B holds u = 1; the product u·B is exact), accumulates per-bin sums
//! of the two class masses (here η_{k1} and η_{k2}), and orders each
//! block's rows by bin (a counting sort of 2-byte local indices).
//! Cumulative sums from the top (η_{k1} of the rows at or above a bin) and
//! from the bottom (η_{k2} below it) are kept separately, so no sum is a
//! difference of two large numbers. Then a query whose δ is a multiple of
//! 1/B (every query of the halving strategies down to an interval of
//! 2⁻¹⁰, i.e. ε ≥ 2⁻¹⁰ such as the papers' 10⁻³) is O(1). A δ strictly
//! inside a bin needs that bin's rows only: the first such query gathers
//! them from every block's counting sort (O(blocks + rows of the bin)) and
//! sorts them; every later query in that bin is a binary search. One
//! elicitation is therefore O(n) per face after generation (the binning
//! pass), whatever the strategy.
//!
//! [`super::FiniteMulticlass`] (labelled rows, mass 1[y = i], or η̂ in
//! expectation, scores in `T`) prepares and queries its faces with the
//! same code: one implementation, generic over where a row's key and its
//! two class masses come from.
//!
//! # Precision
//! Rows are stored as `f64` for every precision (the data, generated or
//! read once); keys, thresholds and sums are computed in `T` (each `f64`
//! converts exactly). Sums are taken per fixed block of rows and combined
//! in block order, so the results do not depend on the number of threads.
//! Sums of 0/1 masses (labels) are counts, exact below 2⁵³ rows in every
//! backend; sums of real masses differ from any other order of summation
//! (a sort's, say) by rounding only, at most (n − 1)·u·Σ m for n rows and
//! unit roundoff u.
//!
//! # Identical classifiers, identical confusions
//! Two queries that predict k1 on the same set of rows get bit-identical
//! confusions (so [`crate::oracle::Counted`] answers their comparison
//! "indifferent" without asking): a set is represented by one bin boundary
//! or one position inside one bin, and the cumulative sums across an empty
//! bin add an exact zero.

use super::binned::{ratio_key, BinnedFaces, FaceRows};
pub use super::binned::{FaceStats, BINS, BIN_BITS, BLOCK};
use super::MulticlassPopulation;
use crate::error::{Error, Result};
use crate::par::*;
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::time::{Duration, Instant};

/// Features of the 004 §5 population: x ∈ ℝ¹⁰.
pub const FEATURES: usize = 10;

/// The face (k1, k2) of an [`ExpectedMulticlass`]: columns k1 and k2,
/// masses η_{k1} and η_{k2}.
struct ExpectedRows<'a> {
    first: &'a [f64],
    second: &'a [f64],
}

impl<T: Scalar> FaceRows<T> for ExpectedRows<'_> {
    fn len(&self) -> usize {
        self.first.len()
    }

    fn key(&self, r: usize) -> T {
        ratio_key(
            &T::from_f64_exact(self.first[r]),
            &T::from_f64_exact(self.second[r]),
        )
    }

    fn add_first(&self, r: usize, sum: &mut T) {
        *sum += &T::from_f64_exact(self.first[r]);
    }

    fn add_second(&self, r: usize, sum: &mut T) {
        *sum += &T::from_f64_exact(self.second[r]);
    }
}

/// A k-class population of n probability rows, evaluated in expectation.
/// See the module docs for how faces are prepared and queried.
///
/// # Examples
/// ```
/// use metric_elicitation::population::{ExpectedMulticlass, MulticlassPopulation};
/// let pop = ExpectedMulticlass::<f64>::synthetic_004(3, 10_000, 7).unwrap();
/// let zeta = pop.priors();
/// assert!((zeta.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// // m = 1 on the face (1, 2): the trivial classifier "always class 1".
/// let d = pop.rbo_diagonal(0, 1, &1.0, &0.0).unwrap();
/// assert!((d[0] - zeta[0]).abs() < 1e-13 && d[1] == 0.0 && d[2] == 0.0);
/// ```
#[derive(Debug)]
pub struct ExpectedMulticlass<T> {
    k: usize,
    n: usize,
    columns: Vec<Vec<f64>>,
    priors: Vec<T>,
    n_t: T,
    faces: BinnedFaces<T>,
    generation: Duration,
    weights: Vec<f64>,
}

impl<T: Scalar> ExpectedMulticlass<T> {
    /// A population from k columns of n probabilities each (column i holds
    /// ηᵢ(x) of every row x; rows need not sum to exactly 1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than two classes, no rows,
    /// columns of different lengths, or a value that is negative or not
    /// finite.
    pub fn from_columns(columns: Vec<Vec<f64>>) -> Result<Self> {
        let k = columns.len();
        if k < 2 {
            return Err(Error::invalid("classes", "needs at least two classes"));
        }
        let n = columns[0].len();
        if n == 0 {
            return Err(Error::invalid("rows", "needs at least one row"));
        }
        for (i, c) in columns.iter().enumerate() {
            if c.len() != n {
                return Err(Error::invalid(
                    "columns",
                    format!("column {i} has {} rows, column 0 has {n}", c.len()),
                ));
            }
            if let Some(r) = c.iter().position(|v| !v.is_finite() || *v < 0.0) {
                return Err(Error::invalid(
                    "columns",
                    format!("row {r}, class {}: {} is not a probability", i + 1, c[r]),
                ));
            }
        }
        Ok(Self::assemble(columns, Duration::ZERO, Vec::new()))
    }

    fn assemble(columns: Vec<Vec<f64>>, generation: Duration, weights: Vec<f64>) -> Self {
        let k = columns.len();
        let n = columns[0].len();
        let n_t = T::from_u64(n as u64).unwrap_or_else(T::one);
        let priors = columns
            .iter()
            .map(|c| block_sum::<T>(c) / n_t.clone())
            .collect();
        ExpectedMulticlass {
            k,
            n,
            columns,
            priors,
            n_t,
            faces: BinnedFaces::new(k),
            generation,
            weights,
        }
    }

    /// The synthetic population of 004 §5: x ~ N(0, I₁₀),
    /// W ~ U[−1.5, 1.5]^{k×10}, η(x) = softmax(Wx), n rows.
    ///
    /// W is drawn first from the ChaCha8 stream 0 of `seed`; the rows come
    /// in blocks of [`BLOCK`], block b from stream b + 1 (normals by the
    /// Ziggurat sampler of `rand_distr`), generated in parallel and
    /// identical for any number of threads. η depends on x only through
    /// z = Wx ~ N(0, WWᵀ), so for k ≤ 10 each row draws z = L·g directly
    /// (L the Cholesky factor of WWᵀ, g ~ N(0, I_k)): exactly the law of
    /// the paper's rows with k normals per row instead of 10, and x never
    /// exists; for k > 10 (WWᵀ singular) x itself is drawn and discarded.
    /// η is stored as `f64` (k·n·8 bytes).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than two classes, no rows, or a
    /// size whose storage overflows.
    pub fn synthetic_004(classes: usize, rows: usize, seed: u64) -> Result<Self> {
        if classes < 2 {
            return Err(Error::invalid(
                "population.classes",
                format!("needs at least two classes, got {classes}"),
            ));
        }
        if rows == 0 {
            return Err(Error::invalid("population.rows", "needs at least one row"));
        }
        // η is stored as f64: k·n·8 bytes, checked before it is allocated.
        crate::memory::check(
            "population.rows",
            &format!("{rows} rows of {classes} classes (eta stored as 8 bytes per class and row)"),
            (classes as u64)
                .checked_mul(rows as u64)
                .and_then(|c| c.checked_mul(8))
                .filter(|b| usize::try_from(*b).is_ok()),
            classes as u64 * 8,
        )?;
        let start = Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let w: Vec<f64> = (0..classes * FEATURES)
            .map(|_| rng.random_range(-1.5..=1.5))
            .collect();
        let mut columns: Vec<Vec<f64>> = (0..classes).map(|_| vec![0.0; rows]).collect();
        let blocks = rows.div_ceil(BLOCK);
        let mut parts: Vec<Vec<&mut [f64]>> =
            (0..blocks).map(|_| Vec::with_capacity(classes)).collect();
        for column in &mut columns {
            for (b, slice) in column.chunks_mut(BLOCK).enumerate() {
                parts[b].push(slice);
            }
        }
        // z = Wx ~ N(0, WWᵀ): for k ≤ 10 draw z = L·g, g ~ N(0, I_k), with L
        // the Cholesky factor of WWᵀ: the same law with k normals per row
        // instead of 10 (η depends on x only through z).
        let factor = (classes <= FEATURES)
            .then(|| {
                let sigma = nalgebra::DMatrix::from_fn(classes, classes, |i, j| {
                    (0..FEATURES)
                        .map(|f| w[i * FEATURES + f] * w[j * FEATURES + f])
                        .sum::<f64>()
                });
                nalgebra::Cholesky::new(sigma).map(|c| {
                    let l = c.l();
                    (0..classes)
                        .flat_map(|i| (0..=i).map(move |j| (i, j)))
                        .map(|(i, j)| l[(i, j)])
                        .collect::<Vec<f64>>()
                })
            })
            .flatten();
        parts.into_par_iter().enumerate().for_each(|(b, mut cols)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(b as u64 + 1);
            let mut x = [0f64; FEATURES];
            let mut g = vec![0f64; classes];
            let mut z = vec![0f64; classes];
            for r in 0..cols[0].len() {
                match &factor {
                    Some(l) => {
                        for v in &mut g {
                            *v = rng.sample(StandardNormal);
                        }
                        let mut at = 0;
                        for (i, zi) in z.iter_mut().enumerate() {
                            *zi = l[at..at + i + 1].iter().zip(&g).map(|(a, b)| a * b).sum();
                            at += i + 1;
                        }
                    }
                    None => {
                        for v in &mut x {
                            *v = rng.sample(StandardNormal);
                        }
                        for (i, zi) in z.iter_mut().enumerate() {
                            let row = &w[i * FEATURES..(i + 1) * FEATURES];
                            *zi = row.iter().zip(&x).map(|(a, b)| a * b).sum();
                        }
                    }
                }
                let (mut best, mut top) = (0, z[0]);
                for (i, zi) in z.iter().enumerate().skip(1) {
                    if *zi > top {
                        (best, top) = (i, *zi);
                    }
                }
                let mut total = 0.0;
                for (i, zi) in z.iter_mut().enumerate() {
                    *zi = if i == best { 1.0 } else { (*zi - top).exp() };
                    total += *zi;
                }
                for (col, zi) in cols.iter_mut().zip(&z) {
                    col[r] = zi / total;
                }
            }
        });
        let generation = start.elapsed();
        Ok(Self::assemble(columns, generation, w))
    }

    /// Number of rows n.
    pub fn rows(&self) -> usize {
        self.n
    }

    /// Column i: ηᵢ of every row.
    pub fn column(&self, i: usize) -> &[f64] {
        &self.columns[i]
    }

    /// The weight matrix W (k×10, row-major) of a synthetic population;
    /// empty for [`ExpectedMulticlass::from_columns`].
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Wall time of the generation (zero for
    /// [`ExpectedMulticlass::from_columns`]).
    pub fn generation_time(&self) -> Duration {
        self.generation
    }

    /// Bytes held by the rows and by the prepared faces' bin indices.
    pub fn memory_bytes(&self) -> usize {
        self.k * self.n * 8 + self.faces.index_bytes()
    }

    /// Counters and timings of face preparation, extraction and queries.
    pub fn stats(&self) -> FaceStats {
        self.faces.stats()
    }

    /// Prepares the face (k1, k2) now (the first query does it otherwise).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for classes out of range or equal.
    pub fn prepare(&self, k1: usize, k2: usize) -> Result<()> {
        self.faces.prepare(k1, k2, &self.face_rows(k1, k2))
    }

    /// The rows of the face (k1, k2); classes out of range give an empty
    /// view (the faces check the classes before using it).
    fn face_rows(&self, k1: usize, k2: usize) -> ExpectedRows<'_> {
        let column = |i: usize| self.columns.get(i).map_or(&[][..], |c| &c[..]);
        ExpectedRows {
            first: column(k1),
            second: column(k2),
        }
    }
}

/// Σ of a column in `T`, per block in parallel, blocks combined in order.
fn block_sum<T: Scalar>(column: &[f64]) -> T {
    let parts: Vec<T> = column
        .par_chunks(BLOCK)
        .map(|s| {
            let mut total = T::int(0);
            for v in s {
                total += &T::from_f64_exact(*v);
            }
            total
        })
        .collect();
    parts.into_iter().fold(T::int(0), |s, p| s + p)
}

impl<T: Scalar> MulticlassPopulation<T> for ExpectedMulticlass<T> {
    fn classes(&self) -> usize {
        self.k
    }

    fn priors(&self) -> Vec<T> {
        self.priors.clone()
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        self.faces
            .rbo_diagonal(k1, k2, w1, w2, &self.face_rows(k1, k2), &self.n_t)
    }
}
