//! Populations of n probability rows ηᵢ(x) evaluated in expectation (no
//! labels): dᵢ(h) = (1/n)·Σₓ ηᵢ(x)·1[h(x) = i]. The synthetic population of
//! 004 §5 ([`ExpectedMulticlass::synthetic_004`]) is one.
//!
//! # Faces at the speed of memory
//! An RBO query on the face (k1, k2) with weights (w1, w2) predicts k1 on
//! the rows with u = η_{k1}/(η_{k1} + η_{k2}) ≥ δ = w2/(w1 + w2) (002
//! Prop. 2; a row with η_{k1} = η_{k2} = 0 has u = 1: w1·0 ≥ w2·0). Instead
//! of sorting the n keys (O(n log n) per face, the approach of
//! [`super::FiniteMulticlass`]), a face is prepared by **one streaming pass**
//! (in parallel over blocks of [`BLOCK`] rows) that puts every row in one
//! of B = 2¹² bins of u (bin j holds j/B ≤ u < (j + 1)/B, bin B holds
//! u = 1; the product u·B is exact), accumulates per-bin sums of η_{k1}
//! and η_{k2}, and orders each block's rows by bin (a counting sort of
//! 2-byte local indices). Cumulative sums from the top (η_{k1} of the rows
//! at or above a bin) and from the bottom (η_{k2} below it) are kept
//! separately, so no sum is a difference of two large numbers. Then a
//! query whose δ is a multiple of 1/B (every query of the halving
//! strategies down to an interval of 2⁻¹⁰, i.e. ε ≥ 2⁻¹⁰ such as the
//! papers' 10⁻³) is O(1). A δ strictly inside a bin needs that bin's rows
//! only: the first such query gathers them from every block's counting
//! sort (O(blocks + rows of the bin)) and sorts them; every later query in
//! that bin is a binary search. One elicitation is therefore O(n) per face
//! after generation (the binning pass), whatever the strategy.
//!
//! # Precision
//! Rows are stored as `f64` for every precision (the data, generated or
//! read once); keys, thresholds and sums are computed in `T` (each `f64`
//! converts exactly). Sums are taken per fixed block of rows and combined
//! in block order, so the results do not depend on the number of threads.
//!
//! # Identical classifiers, identical confusions
//! Two queries that predict k1 on the same set of rows get bit-identical
//! confusions (so [`crate::oracle::Counted`] answers their comparison
//! "indifferent" without asking): a set is represented by one bin boundary
//! or one position inside one bin, and the cumulative sums across an empty
//! bin add an exact zero.

use super::multiclass::check_face;
use super::MulticlassPopulation;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// log₂ of the number of key bins per face.
pub const BIN_BITS: u32 = 12;
/// The number of key bins per face, B = 2¹² (plus one bin for u = 1).
pub const BINS: usize = 1 << BIN_BITS;
/// Rows per block: the unit of parallel work, of random streams and of
/// partial sums (fixed, so results do not depend on the thread count).
pub const BLOCK: usize = 1 << 16;
/// Features of the 004 §5 population: x ∈ ℝ¹⁰.
pub const FEATURES: usize = 10;

/// Timings and counters of a population's face work (see
/// [`ExpectedMulticlass::stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FaceStats {
    /// Faces prepared (one binning pass each).
    pub faces: u64,
    /// Wall time of the binning passes.
    pub preparation: Duration,
    /// Bins whose rows were extracted and sorted (δ strictly inside a bin).
    pub extractions: u64,
    /// Rows extracted in total.
    pub extracted_rows: u64,
    /// Wall time of the extractions.
    pub extraction: Duration,
    /// RBO queries answered.
    pub queries: u64,
    /// Wall time of the queries, excluding preparation and extraction.
    pub query: Duration,
}

#[derive(Debug, Default)]
struct Counters {
    faces: AtomicU64,
    preparation: AtomicU64,
    extractions: AtomicU64,
    extracted_rows: AtomicU64,
    extraction: AtomicU64,
    queries: AtomicU64,
    query: AtomicU64,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The rows of one bin, sorted by key, with cumulative sums.
#[derive(Debug)]
struct SortedBin<T> {
    keys: Vec<T>,
    /// `above[p]` = Σ η_{k1} over sorted positions ≥ p (len m + 1).
    above: Vec<T>,
    /// `below[p]` = Σ η_{k2} over sorted positions < p (len m + 1).
    below: Vec<T>,
}

/// One prepared face (k1, k2).
#[derive(Debug)]
struct Face<T> {
    /// Within each block of [`BLOCK`] rows, the rows' local indices
    /// ordered by bin (a counting sort per block).
    order: Vec<u16>,
    /// `starts[b·(B + 2) + j]`: where bin j's rows begin in block b's part
    /// of `order` (B + 2 entries per block, the last = the block's length).
    starts: Vec<u32>,
    /// `upper[j]` = Σ η_{k1} over bins ≥ j (len B + 2).
    upper: Vec<T>,
    /// `lower[j]` = Σ η_{k2} over bins < j (len B + 2).
    lower: Vec<T>,
    /// Rows per bin (len B + 1).
    count: Vec<usize>,
    sorted: Mutex<HashMap<usize, Arc<SortedBin<T>>>>,
}

/// The key u = a/(a + b) of a row, in `T` (u = 1 when a = b = 0).
fn key<T: Scalar>(a: f64, b: f64) -> T {
    let a = T::from_f64_exact(a);
    let total = a.clone() + T::from_f64_exact(b);
    if total > T::int(0) {
        a / total
    } else {
        T::int(1)
    }
}

/// ⌊u·B⌋ for u ∈ [0, 1] (`scale` = B; u·B is exact: B is a power of
/// two), and whether
/// u·B is an integer. The integer part is read through `to_f64_lossy`
/// (exact below 2⁵³ once corrected for rounding up), which avoids a libm
/// `floor` call per row.
fn bin<T: Scalar>(u: &T, scale: &T) -> (usize, bool) {
    let x = u.clone() * scale.clone();
    let approx = x.to_f64_lossy();
    if approx.is_nan() || approx <= 0.0 {
        return (0, x == T::int(0));
    }
    let mut j = (approx as usize).min(BINS);
    let mut at = T::from_usize(j).unwrap_or_else(T::zero);
    if at > x {
        // `to_f64_lossy` rounded a value just below an integer up to it.
        j -= 1;
        at = T::from_usize(j).unwrap_or_else(T::zero);
    }
    (j, at == x)
}

/// B as a scalar (the factor of [`bin`]).
fn scale<T: Scalar>() -> T {
    T::from_usize(BINS).unwrap_or_else(T::one)
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
    faces: Vec<OnceLock<Face<T>>>,
    counters: Counters,
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
        if u16::try_from(BINS).is_err() {
            return Err(Error::invalid("bins", "bin index does not fit 16 bits"));
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
            faces: (0..k * k).map(|_| OnceLock::new()).collect(),
            counters: Counters::default(),
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
        if classes
            .checked_mul(rows)
            .and_then(|c| c.checked_mul(8))
            .is_none()
        {
            return Err(Error::invalid(
                "population.rows",
                format!("{rows} rows of {classes} classes overflow the address space"),
            ));
        }
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
        let faces: usize = self
            .faces
            .iter()
            .filter_map(|f| f.get())
            .map(|f| f.order.len() * 2 + f.starts.len() * 4)
            .sum();
        self.k * self.n * 8 + faces
    }

    /// Counters and timings of face preparation, extraction and queries.
    pub fn stats(&self) -> FaceStats {
        let c = &self.counters;
        let d = |a: &AtomicU64| Duration::from_nanos(a.load(Ordering::Relaxed));
        FaceStats {
            faces: c.faces.load(Ordering::Relaxed),
            preparation: d(&c.preparation),
            extractions: c.extractions.load(Ordering::Relaxed),
            extracted_rows: c.extracted_rows.load(Ordering::Relaxed),
            extraction: d(&c.extraction),
            queries: c.queries.load(Ordering::Relaxed),
            query: d(&c.query),
        }
    }

    /// Prepares the face (k1, k2) now (the first query does it otherwise).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for classes out of range or equal.
    pub fn prepare(&self, k1: usize, k2: usize) -> Result<()> {
        check_face(self.k, k1, k2, &T::int(1), &T::int(1))?;
        let _ = self.face(k1, k2);
        Ok(())
    }

    fn face(&self, k1: usize, k2: usize) -> &Face<T> {
        self.faces[k1 * self.k + k2].get_or_init(|| {
            let start = Instant::now();
            let face = self.build_face(k1, k2);
            self.counters.faces.fetch_add(1, Ordering::Relaxed);
            self.counters
                .preparation
                .fetch_add(nanos(start.elapsed()), Ordering::Relaxed);
            face
        })
    }

    /// One pass, in parallel over blocks: each row's bin, per-bin sums, and
    /// a counting sort of each block's rows by bin; block results combined
    /// in block order.
    fn build_face(&self, k1: usize, k2: usize) -> Face<T> {
        let (a, b) = (&self.columns[k1], &self.columns[k2]);
        let mut order = vec![0u16; self.n];
        type Partial<T> = (Vec<u32>, Vec<T>, Vec<T>);
        let partials: Vec<Partial<T>> = order
            .par_chunks_mut(BLOCK)
            .enumerate()
            .map(|(blk, out)| {
                let base = blk * BLOCK;
                let scale = scale::<T>();
                let mut starts = vec![0u32; BINS + 2];
                let mut s1 = vec![T::int(0); BINS + 1];
                let mut s2 = vec![T::int(0); BINS + 1];
                let mut bins = vec![0u16; out.len()];
                for (r, slot) in bins.iter_mut().enumerate() {
                    let (x, y) = (a[base + r], b[base + r]);
                    let (j, _) = bin(&key::<T>(x, y), &scale);
                    *slot = j as u16;
                    starts[j + 1] += 1;
                    s1[j] += &T::from_f64_exact(x);
                    s2[j] += &T::from_f64_exact(y);
                }
                for j in 0..=BINS {
                    starts[j + 1] += starts[j];
                }
                let mut cursor = starts.clone();
                for (r, j) in bins.iter().enumerate() {
                    let c = &mut cursor[usize::from(*j)];
                    out[*c as usize] = r as u16;
                    *c += 1;
                }
                (starts, s1, s2)
            })
            .collect();
        let mut count = vec![0usize; BINS + 1];
        let mut s1 = vec![T::int(0); BINS + 1];
        let mut s2 = vec![T::int(0); BINS + 1];
        let mut starts = Vec::with_capacity(partials.len() * (BINS + 2));
        for (st, x, y) in &partials {
            for j in 0..=BINS {
                count[j] += (st[j + 1] - st[j]) as usize;
                s1[j] += &x[j];
                s2[j] += &y[j];
            }
            starts.extend_from_slice(st);
        }
        let mut upper = vec![T::int(0); BINS + 2];
        for j in (0..=BINS).rev() {
            upper[j] = upper[j + 1].clone() + s1[j].clone();
        }
        let mut lower = vec![T::int(0); BINS + 2];
        for j in 0..=BINS {
            lower[j + 1] = lower[j].clone() + s2[j].clone();
        }
        Face {
            order,
            starts,
            upper,
            lower,
            count,
            sorted: Mutex::new(HashMap::new()),
        }
    }

    /// The rows of bin j of a face, sorted by key (ties by row index):
    /// O(blocks + rows of the bin).
    fn sorted_bin(&self, face: &Face<T>, k1: usize, k2: usize, j: usize) -> Arc<SortedBin<T>> {
        let start = Instant::now();
        let mut rows = Vec::with_capacity(face.count[j]);
        for (blk, st) in face.starts.chunks(BINS + 2).enumerate() {
            let base = blk * BLOCK;
            let local = &face.order[base + st[j] as usize..base + st[j + 1] as usize];
            rows.extend(local.iter().map(|r| base + usize::from(*r)));
        }
        let (a, b) = (&self.columns[k1], &self.columns[k2]);
        let mut keyed: Vec<(T, usize)> = rows.into_iter().map(|r| (key(a[r], b[r]), r)).collect();
        keyed.sort_by(|x, y| {
            x.0.partial_cmp(&y.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(x.1.cmp(&y.1))
        });
        let m = keyed.len();
        let mut above = vec![T::int(0); m + 1];
        for p in (0..m).rev() {
            above[p] = above[p + 1].clone() + T::from_f64_exact(a[keyed[p].1]);
        }
        let mut below = vec![T::int(0); m + 1];
        for p in 0..m {
            below[p + 1] = below[p].clone() + T::from_f64_exact(b[keyed[p].1]);
        }
        let sorted = Arc::new(SortedBin {
            keys: keyed.into_iter().map(|(u, _)| u).collect(),
            above,
            below,
        });
        self.counters.extractions.fetch_add(1, Ordering::Relaxed);
        self.counters
            .extracted_rows
            .fetch_add(m as u64, Ordering::Relaxed);
        self.counters
            .extraction
            .fetch_add(nanos(start.elapsed()), Ordering::Relaxed);
        if let Ok(mut map) = face.sorted.lock() {
            map.insert(j, sorted.clone());
        }
        sorted
    }

    /// (Σ η_{k1} over rows predicted k1, Σ η_{k2} over rows predicted k2)
    /// for the threshold δ ∈ [0, 1], and the time spent preparing the face
    /// or extracting a bin during this call.
    fn sums(&self, k1: usize, k2: usize, delta: &T) -> ((T, T), Duration) {
        let start = Instant::now();
        let prepared = self.faces[k1 * self.k + k2].get().is_some();
        let face = self.face(k1, k2);
        let mut setup = if prepared {
            Duration::ZERO
        } else {
            start.elapsed()
        };
        let boundary = |j: usize| (face.upper[j].clone(), face.lower[j].clone());
        if *delta <= T::int(0) {
            return (boundary(0), setup);
        }
        let (j, exact) = bin(delta, &scale::<T>());
        if exact || j >= BINS {
            return (boundary(j), setup);
        }
        if face.count[j] == 0 {
            // Inside an empty bin: the rows of bins > j are predicted k1.
            return (boundary(j + 1), setup);
        }
        let extraction = Instant::now();
        let cached = face.sorted.lock().ok().and_then(|m| m.get(&j).cloned());
        let sorted = match cached {
            Some(s) => s,
            None => {
                let s = self.sorted_bin(face, k1, k2, j);
                setup += extraction.elapsed();
                s
            }
        };
        let p = sorted.keys.partition_point(|u| u < delta);
        let out = if p == 0 {
            boundary(j)
        } else if p == sorted.keys.len() {
            boundary(j + 1)
        } else {
            (
                face.upper[j + 1].clone() + sorted.above[p].clone(),
                face.lower[j].clone() + sorted.below[p].clone(),
            )
        };
        (out, setup)
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
        check_face(self.k, k1, k2, w1, w2)?;
        let start = Instant::now();
        let delta = w2.clone() / (w1.clone() + w2.clone());
        let ((s1, s2), setup) = self.sums(k1, k2, &delta);
        let mut d = DVector::from_element(self.k, T::int(0));
        d[k1] = s1 / self.n_t.clone();
        d[k2] = s2 / self.n_t.clone();
        self.counters.queries.fetch_add(1, Ordering::Relaxed);
        self.counters.query.fetch_add(
            nanos(start.elapsed().saturating_sub(setup)),
            Ordering::Relaxed,
        );
        Ok(d)
    }
}
