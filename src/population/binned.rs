//! Binned faces: the one implementation of RBO queries on a face (k1, k2)
//! of n rows, shared by [`super::ExpectedMulticlass`] (η in expectation)
//! and [`super::FiniteMulticlass`] (labels, or η̂ in expectation). The
//! technique and its guarantees are described in [`super::expected`].
//!
//! A population tells where a row's key u ∈ [0, 1] and its two class
//! masses come from ([`FaceRows`]): u = s_{k1}/(s_{k1} + s_{k2}) of the
//! row's scores (u = 1 when both are 0: w1·0 ≥ w2·0), and the masses
//! m_{k1}, m_{k2} that the confusions count (1[y = class] for a labelled
//! row, η_class for an expected one). An RBO query with weights (w1, w2)
//! predicts k1 on exactly the rows with u ≥ δ = w2/(w1 + w2) (002
//! Prop. 2) and returns (1/n)·(Σ m_{k1} over those rows, Σ m_{k2} over the
//! others), the sums taken over fixed blocks of rows in a fixed order
//! (independent of the thread count).

use crate::error::{Error, Result};
use crate::par::*;
use crate::scalar::Scalar;
use nalgebra::DVector;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Checks a face (k1, k2) of k classes and its RBO weights: distinct
/// classes below k, finite weights ≥ 0, not both 0.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `face` or `weights`.
pub(super) fn check_face<T: Scalar>(k: usize, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<()> {
    if k1 >= k || k2 >= k || k1 == k2 {
        return Err(Error::invalid(
            "face",
            format!("classes ({k1}, {k2}) must be distinct and below k = {k}"),
        ));
    }
    let zero = T::int(0);
    if !w1.finite() || !w2.finite() || *w1 < zero || *w2 < zero || (*w1 == zero && *w2 == zero) {
        return Err(Error::invalid(
            "weights",
            format!("RBO weights must be finite, >= 0 and not both 0, got ({w1}, {w2})"),
        ));
    }
    Ok(())
}

/// log₂ of the number of key bins per face.
pub const BIN_BITS: u32 = 12;
/// The number of key bins per face, B = 2¹² (plus one bin for u = 1).
pub const BINS: usize = 1 << BIN_BITS;
/// Rows per block: the unit of parallel work, of random streams and of
/// partial sums (fixed, so results do not depend on the thread count).
pub const BLOCK: usize = 1 << 16;

// Local row indices and bin indices are stored in 16 bits.
const _: () = assert!(BINS <= u16::MAX as usize && BLOCK <= u16::MAX as usize + 1);

/// Timings and counters of a population's face work (see
/// [`super::ExpectedMulticlass::stats`] and
/// [`super::FiniteMulticlass::stats`]).
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

/// Where the rows of one face (k1, k2) come from: each row's key and its
/// masses of the two classes. Implemented by a population's view of a
/// face.
pub(crate) trait FaceRows<T: Scalar>: Sync {
    /// Number of rows n.
    fn len(&self) -> usize;

    /// The key u ∈ [0, 1] of row r: u = s_{k1}/(s_{k1} + s_{k2}) of its
    /// scores, 1 when both are 0 (see [`ratio_key`]).
    fn key(&self, r: usize) -> T;

    /// Adds row r's mass of class k1 to `sum`.
    fn add_first(&self, r: usize, sum: &mut T);

    /// Adds row r's mass of class k2 to `sum`.
    fn add_second(&self, r: usize, sum: &mut T);
}

/// The key u = a/(a + b) of a row with scores a, b ≥ 0, in `T` (u = 1 when
/// a = b = 0).
pub(crate) fn ratio_key<T: Scalar>(a: &T, b: &T) -> T {
    let mut total = a.clone();
    total += b;
    if total > T::int(0) {
        let mut u = a.clone();
        u /= &total;
        u
    } else {
        T::int(1)
    }
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
    /// `above[p]` = Σ m_{k1} over sorted positions ≥ p (len m + 1).
    above: Vec<T>,
    /// `below[p]` = Σ m_{k2} over sorted positions < p (len m + 1).
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
    /// `upper[j]` = Σ m_{k1} over bins ≥ j (len B + 2).
    upper: Vec<T>,
    /// `lower[j]` = Σ m_{k2} over bins < j (len B + 2).
    lower: Vec<T>,
    /// Rows per bin (len B + 1).
    count: Vec<usize>,
    /// Bin j's rows sorted, once a query fell strictly inside bin j
    /// (len B + 1).
    sorted: Vec<OnceLock<SortedBin<T>>>,
}

/// ⌊u·B⌋ for u ∈ [0, 1] (`scale` = B; u·B is exact: B is a power of
/// two), and whether u·B is an integer. The integer part is read through
/// `to_f64_lossy` (exact below 2⁵³ once corrected for rounding up), which
/// avoids a libm `floor` call per row.
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

/// The faces (k1, ·) of one row of [`BinnedFaces`], each prepared on first
/// use.
type FaceRow<T> = Box<[OnceLock<Face<T>>]>;

/// The binned faces of a k-class population of n rows: each face (k1, k2)
/// prepared on first use by one binning pass (see the module docs), with
/// counters and timings.
#[derive(Debug)]
pub(crate) struct BinnedFaces<T> {
    k: usize,
    /// Row k1 holds the faces (k1, ·), allocated when one of them is first
    /// used: k² faces up front would be 152·k² bytes (1.5 TB at k = 10⁵)
    /// where a procedure uses a few rows (DLPM: the reference's).
    faces: Vec<OnceLock<FaceRow<T>>>,
    counters: Counters,
}

impl<T: Scalar> BinnedFaces<T> {
    /// No face prepared yet, for k classes.
    pub(crate) fn new(k: usize) -> Self {
        BinnedFaces {
            k,
            faces: (0..k).map(|_| OnceLock::new()).collect(),
            counters: Counters::default(),
        }
    }

    /// Bytes held by the prepared faces' bin indices.
    pub(crate) fn index_bytes(&self) -> usize {
        self.faces
            .iter()
            .filter_map(OnceLock::get)
            .flat_map(|row| row.iter())
            .filter_map(|f| f.get())
            .map(|f| f.order.len() * 2 + f.starts.len() * 4)
            .sum()
    }

    /// The cell of face (k1, k2), its row allocated on first use.
    fn slot(&self, k1: usize, k2: usize) -> &OnceLock<Face<T>> {
        &self.faces[k1].get_or_init(|| (0..self.k).map(|_| OnceLock::new()).collect())[k2]
    }

    /// Counters and timings of face preparation, extraction and queries.
    pub(crate) fn stats(&self) -> FaceStats {
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

    /// Prepares the face (k1, k2) of `rows` now (the first query does it
    /// otherwise).
    ///
    /// # Errors
    /// [`crate::error::Error::InvalidArgument`] for classes out of range or
    /// equal.
    pub(crate) fn prepare(&self, k1: usize, k2: usize, rows: &impl FaceRows<T>) -> Result<()> {
        check_face(self.k, k1, k2, &T::int(1), &T::int(1))?;
        let _ = self.face(k1, k2, rows);
        Ok(())
    }

    /// The diagonal confusion of the RBO classifier on the face (k1, k2)
    /// with weights (w1, w2): (1/n)·Σ m_{k1} over the rows with u ≥ δ at
    /// k1, (1/n)·Σ m_{k2} over the others at k2, zero elsewhere; `n` is the
    /// divisor (the number of rows, in `T`).
    ///
    /// # Errors
    /// As [`super::MulticlassPopulation::rbo_diagonal`].
    pub(crate) fn rbo_diagonal(
        &self,
        k1: usize,
        k2: usize,
        w1: &T,
        w2: &T,
        rows: &impl FaceRows<T>,
        n: &T,
    ) -> Result<DVector<T>> {
        check_face(self.k, k1, k2, w1, w2)?;
        let start = Instant::now();
        let delta = w2.clone() / (w1.clone() + w2.clone());
        let ((s1, s2), setup) = self.sums(k1, k2, rows, &delta);
        let mut d = DVector::from_element(self.k, T::int(0));
        d[k1] = s1 / n.clone();
        d[k2] = s2 / n.clone();
        self.counters.queries.fetch_add(1, Ordering::Relaxed);
        self.counters.query.fetch_add(
            nanos(start.elapsed().saturating_sub(setup)),
            Ordering::Relaxed,
        );
        Ok(d)
    }

    fn face(&self, k1: usize, k2: usize, rows: &impl FaceRows<T>) -> &Face<T> {
        self.slot(k1, k2).get_or_init(|| {
            let start = Instant::now();
            let face = build_face(rows);
            self.counters.faces.fetch_add(1, Ordering::Relaxed);
            self.counters
                .preparation
                .fetch_add(nanos(start.elapsed()), Ordering::Relaxed);
            face
        })
    }

    /// The rows of bin j of a face, sorted by key (ties by row index):
    /// O(blocks + rows of the bin).
    fn sorted_bin(&self, face: &Face<T>, rows: &impl FaceRows<T>, j: usize) -> SortedBin<T> {
        let start = Instant::now();
        let mut members = Vec::with_capacity(face.count[j]);
        for (blk, st) in face.starts.chunks(BINS + 2).enumerate() {
            let base = blk * BLOCK;
            let local = &face.order[base + st[j] as usize..base + st[j + 1] as usize];
            members.extend(local.iter().map(|r| base + usize::from(*r)));
        }
        let mut keyed: Vec<(T, usize)> = members.into_iter().map(|r| (rows.key(r), r)).collect();
        keyed.sort_by(|x, y| {
            x.0.partial_cmp(&y.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(x.1.cmp(&y.1))
        });
        let m = keyed.len();
        let mut above = vec![T::int(0); m + 1];
        for p in (0..m).rev() {
            let (head, tail) = above.split_at_mut(p + 1);
            head[p].clone_from(&tail[0]);
            rows.add_first(keyed[p].1, &mut head[p]);
        }
        let mut below = vec![T::int(0); m + 1];
        for p in 0..m {
            let (head, tail) = below.split_at_mut(p + 1);
            tail[0].clone_from(&head[p]);
            rows.add_second(keyed[p].1, &mut tail[0]);
        }
        let sorted = SortedBin {
            keys: keyed.into_iter().map(|(u, _)| u).collect(),
            above,
            below,
        };
        self.counters.extractions.fetch_add(1, Ordering::Relaxed);
        self.counters
            .extracted_rows
            .fetch_add(m as u64, Ordering::Relaxed);
        self.counters
            .extraction
            .fetch_add(nanos(start.elapsed()), Ordering::Relaxed);
        sorted
    }

    /// (Σ m_{k1} over rows predicted k1, Σ m_{k2} over rows predicted k2)
    /// for the threshold δ ∈ [0, 1], and the time spent preparing the face
    /// or extracting a bin during this call.
    fn sums(&self, k1: usize, k2: usize, rows: &impl FaceRows<T>, delta: &T) -> ((T, T), Duration) {
        let start = Instant::now();
        let prepared = self.slot(k1, k2).get().is_some();
        let face = self.face(k1, k2, rows);
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
        let sorted = match face.sorted[j].get() {
            Some(s) => s,
            None => {
                let extraction = Instant::now();
                let s = face.sorted[j].get_or_init(|| self.sorted_bin(face, rows, j));
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

/// One pass, in parallel over blocks: each row's bin, per-bin sums, and a
/// counting sort of each block's rows by bin; block results combined in
/// block order.
fn build_face<T: Scalar>(rows: &impl FaceRows<T>) -> Face<T> {
    let mut order = vec![0u16; rows.len()];
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
                let (j, _) = bin(&rows.key(base + r), &scale);
                *slot = j as u16;
                starts[j + 1] += 1;
                rows.add_first(base + r, &mut s1[j]);
                rows.add_second(base + r, &mut s2[j]);
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
        sorted: (0..=BINS).map(|_| OnceLock::new()).collect(),
    }
}
