//! The binned faces of the finite multiclass populations (issue 12):
//! `FiniteMulticlass` (labelled rows, or η̂ in expectation) and
//! `ExpectedMulticlass` answer every RBO query as a brute-force O(n)
//! evaluation does. For a threshold δ = w2/(w1 + w2) the rows predicted k1
//! are { r : u_r ≥ δ } with u_r = s_{k1}/(s_{k1} + s_{k2}) (u_r = 1 when
//! both scores are 0), and the confusion is the sum of the class masses
//! over that set (the others for k2) divided by n.
//!
//! Labelled masses are 0/1, so their sums are counts and must be equal to
//! the bit. Real masses are summed in another order than the brute
//! force's row order: two orders of summing m ≥ 0 terms with sum S differ
//! by at most (m − 1)·ε·S (ε = 2u, the backend's epsilon), and the
//! division by n adds at most ε·S/n, so each entry is checked against
//! |d − d_brute| ≤ 2·ε·S (S the brute-force sum before dividing by n).
//!
//! Rows mix uniform scores, keys on bin boundaries (j/2¹²), small integers
//! (ties and both-zero pairs), copies of earlier rows, rows zero but for
//! one class, all-zero rows (labelled only) and scores finer than `f64`.
//! Thresholds: 0, 1, ½, bin boundaries, mid-bin values, random values,
//! every kind of row's own key (u_r = δ exactly: the row is predicted k1)
//! and values just above such keys. Two queries predicting k1 on the same
//! set of rows must give bit-identical confusions.

use metric_elicitation::population::{ExpectedMulticlass, FiniteMulticlass, MulticlassPopulation};
use metric_elicitation::scalar::Scalar;
use nalgebra::DVector;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// B, the number of bins of a face (kept in sync with
/// `population::expected::BINS`).
const BINS: i64 = metric_elicitation::population::expected::BINS as i64;

/// Random row-major n×k scores ≥ 0 in `T` (see the module docs for the
/// kinds of rows); `all_zero` allows rows whose scores are all 0, `fine`
/// allows scores that `f64` cannot hold.
fn random_scores<T: Scalar>(
    rng: &mut ChaCha8Rng,
    n: usize,
    k: usize,
    all_zero: bool,
    fine: bool,
) -> Vec<T> {
    let mut s: Vec<T> = Vec::with_capacity(n * k);
    for r in 0..n {
        let kind = rng.random_range(0..7);
        let row: Vec<T> = match kind {
            1 => {
                let keep = rng.random_range(0..k);
                (0..k)
                    .map(|i| {
                        if i == keep {
                            T::from_f64_exact(rng.random_range(0.001..1.0))
                        } else {
                            T::int(0)
                        }
                    })
                    .collect()
            }
            2 => {
                // u = j/B on one pair of classes: a bin boundary.
                let mut v: Vec<i64> = (0..k).map(|_| rng.random_range(0..=BINS)).collect();
                let p = rng.random_range(0..k);
                let q = (p + rng.random_range(1..k)) % k;
                let j = rng.random_range(0..=BINS);
                (v[p], v[q]) = (j, BINS - j);
                v.into_iter().map(T::int).collect()
            }
            3 if r > 0 => {
                let from = rng.random_range(0..r);
                s[from * k..(from + 1) * k].to_vec()
            }
            4 => (0..k).map(|_| T::int(rng.random_range(0..4))).collect(),
            5 if all_zero => vec![T::int(0); k],
            6 if fine => (0..k)
                .map(|_| {
                    let mut x = T::from_f64_exact(rng.random_range(0.0..1.0));
                    let mut tiny = T::from_f64_exact(rng.random_range(0.0..1.0));
                    tiny.mul_pow2_assign(-80);
                    x += &tiny;
                    x
                })
                .collect(),
            _ => (0..k)
                .map(|_| T::from_f64_exact(rng.random_range(0.0..1.0)))
                .collect(),
        };
        if !all_zero && row.iter().all(|v| *v == T::int(0)) {
            s.extend((0..k).map(|_| T::int(1)));
        } else {
            s.extend(row);
        }
    }
    s
}

/// Each row divided by its sum, as `FiniteMulticlass::expected` does.
fn normalized<T: Scalar>(scores: &[T], k: usize) -> Vec<T> {
    let mut mass = scores.to_vec();
    for row in mass.chunks_mut(k) {
        let total = row.iter().fold(T::int(0), |s, v| s + v.clone());
        for v in row.iter_mut() {
            *v = v.clone() / total.clone();
        }
    }
    mass
}

/// One-hot labels as row-major n×k masses.
fn one_hot<T: Scalar>(labels: &[usize], k: usize) -> Vec<T> {
    let mut mass = vec![T::int(0); labels.len() * k];
    for (r, &y) in labels.iter().enumerate() {
        mass[r * k + y] = T::int(1);
    }
    mass
}

/// The key u of a row by its definition.
fn key<T: Scalar>(a: &T, b: &T) -> T {
    let total = a.clone() + b.clone();
    if total > T::int(0) {
        a.clone() / total
    } else {
        T::int(1)
    }
}

/// Weights (w1, w2) for the face (k1, k2): the thresholds of the module
/// docs, each given as weights (δ = w2/(w1 + w2) is computed by the
/// population and by the brute force alike).
fn probes<T: Scalar>(
    rng: &mut ChaCha8Rng,
    scores: &[T],
    k: usize,
    k1: usize,
    k2: usize,
) -> Vec<(T, T)> {
    let n = scores.len() / k;
    let mut out = vec![
        (T::int(1), T::int(0)),
        (T::int(0), T::int(1)),
        (T::int(1), T::int(1)),
        (T::int(3), T::int(1)),
    ];
    for _ in 0..6 {
        // A bin boundary and a point inside a bin (half-way, and near its
        // lower edge).
        let j = rng.random_range(0..=BINS);
        out.push((T::int(BINS - j), T::int(j)));
        let j = rng.random_range(0..BINS);
        out.push((T::ratio(2 * (BINS - j) - 1, 2), T::ratio(2 * j + 1, 2)));
        let mut above = T::int(j);
        above += &T::ratio(1, 1 << 20);
        out.push((T::int(BINS) - above.clone(), above));
        out.push((
            T::from_f64_exact(rng.random_range(0.0..1.0)),
            T::from_f64_exact(rng.random_range(0.0..1.0)),
        ));
    }
    for _ in 0..10 {
        // A row's own key (w = (s_{k2}, s_{k1}) gives δ = u_r exactly),
        // and just above it.
        let r = rng.random_range(0..n);
        let (a, b) = (scores[r * k + k1].clone(), scores[r * k + k2].clone());
        if a == T::int(0) && b == T::int(0) {
            continue;
        }
        let mut up = a.clone();
        up += &(a.clone() * T::epsilon() * T::int(4));
        out.push((b.clone(), a));
        out.push((b, up));
    }
    out
}

/// Checks every face of `pop` against the brute force on the given
/// scores and masses (row-major n×k), and that equal sets of rows
/// predicted k1 give bit-identical confusions.
fn assert_faces_match<T: Scalar>(
    pop: &impl MulticlassPopulation<T>,
    scores: &[T],
    mass: &[T],
    k: usize,
    exact: bool,
    rng: &mut ChaCha8Rng,
) {
    let n = scores.len() / k;
    let n_t = T::from_usize(n).unwrap();
    let tolerance = T::epsilon() * T::int(2);
    let mut seen: HashMap<(usize, usize, Vec<bool>), DVector<T>> = HashMap::new();
    for k1 in 0..k {
        for k2 in (0..k).filter(|&c| c != k1) {
            let keys: Vec<T> = (0..n)
                .map(|r| key(&scores[r * k + k1], &scores[r * k + k2]))
                .collect();
            for (w1, w2) in probes(rng, scores, k, k1, k2) {
                let delta = w2.clone() / (w1.clone() + w2.clone());
                let set: Vec<bool> = keys.iter().map(|u| *u >= delta).collect();
                let (mut s1, mut s2) = (T::int(0), T::int(0));
                for (r, &first) in set.iter().enumerate() {
                    if first {
                        s1 += &mass[r * k + k1];
                    } else {
                        s2 += &mass[r * k + k2];
                    }
                }
                let d = pop.rbo_diagonal(k1, k2, &w1, &w2).unwrap();
                for (i, v) in d.iter().enumerate() {
                    if i != k1 && i != k2 {
                        assert_eq!(*v, T::int(0));
                    }
                }
                for (got, sum) in [(&d[k1], s1), (&d[k2], s2)] {
                    let want = sum.clone() / n_t.clone();
                    if exact {
                        assert_eq!(*got, want, "face ({k1}, {k2}), δ = {delta}");
                    } else {
                        let error = (got.clone() - want.clone()).abs();
                        assert!(
                            error <= tolerance.clone() * sum,
                            "face ({k1}, {k2}), δ = {delta}: {got} vs {want}"
                        );
                    }
                }
                match seen.get(&(k1, k2, set.clone())) {
                    Some(earlier) => assert_eq!(*earlier, d, "same set, other confusion"),
                    None => {
                        seen.insert((k1, k2, set), d);
                    }
                }
            }
        }
    }
}

/// The labelled and the expected `FiniteMulticlass` of n random rows
/// against the brute force (scores finer than `f64` when `fine`); returns
/// the expected population and its scores.
fn finite_faces_match<T: Scalar>(
    rng: &mut ChaCha8Rng,
    n: usize,
    k: usize,
    fine: bool,
) -> (FiniteMulticlass<T>, Vec<T>) {
    let scores = random_scores::<T>(rng, n, k, true, fine);
    let labels: Vec<usize> = (0..n).map(|_| rng.random_range(0..k)).collect();
    let labelled = FiniteMulticlass::new(k, scores.clone(), labels.clone()).unwrap();
    assert_faces_match(&labelled, &scores, &one_hot(&labels, k), k, true, rng);
    let stats = labelled.stats();
    assert_eq!(stats.faces as usize, k * (k - 1));
    assert!(stats.queries > 0);

    let scores = random_scores::<T>(rng, n, k, false, fine);
    let expected = FiniteMulticlass::expected(k, scores.clone()).unwrap();
    assert_faces_match(&expected, &scores, &normalized(&scores, k), k, false, rng);
    (expected, scores)
}

/// [`finite_faces_match`], and the `ExpectedMulticlass` of random rows (as
/// `f64` columns, masses η as given) against the brute force.
fn binned_faces_match_brute_force<T: Scalar>(seed: u64, n: usize, k: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    finite_faces_match::<T>(&mut rng, n, k, true);
    let eta = random_scores::<f64>(&mut rng, n, k, true, false);
    let columns = (0..k)
        .map(|i| eta.iter().skip(i).step_by(k).copied().collect())
        .collect();
    let pop = ExpectedMulticlass::<T>::from_columns(columns).unwrap();
    let eta: Vec<T> = eta.into_iter().map(T::from_f64_exact).collect();
    assert_faces_match(&pop, &eta, &eta, k, false, &mut rng);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random rows and thresholds, f64.
    #[test]
    fn binned_faces_match_brute_force_f64(seed in any::<u64>(), n in 1usize..400, k in 2usize..5) {
        binned_faces_match_brute_force::<f64>(seed, n, k);
    }
}

/// Several blocks of rows (2¹⁶ each): the per-block counting sorts and
/// partial sums combine correctly, and the confusions do not depend on the
/// number of threads.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn binned_faces_across_blocks_and_threads() {
    let (n, k) = (140_000, 3);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (expected, positive) = finite_faces_match::<f64>(&mut rng, n, k, false);
    assert!(expected.stats().extractions > 0);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let single = one_thread.install(|| {
        let pop = FiniteMulticlass::expected(k, positive.clone()).unwrap();
        for k1 in 0..k {
            for k2 in (0..k).filter(|&c| c != k1) {
                pop.prepare(k1, k2);
            }
        }
        pop
    });
    for (w1, w2) in probes(&mut rng, &positive, k, 0, 2) {
        for (k1, k2) in [(0, 2), (2, 1)] {
            assert_eq!(
                single.rbo_diagonal(k1, k2, &w1, &w2).unwrap(),
                expected.rbo_diagonal(k1, k2, &w1, &w2).unwrap()
            );
        }
    }
}

/// A face whose rows all tie, or all have both scores 0.
#[test]
fn binned_faces_of_ties() {
    for row in [[0.0, 0.0, 1.0], [0.25, 0.75, 0.0], [0.3, 0.3, 0.4]] {
        let scores: Vec<f64> = row.iter().copied().cycle().take(3 * 50).collect();
        let labels: Vec<usize> = (0..50).map(|r| r % 3).collect();
        let pop = FiniteMulticlass::new(3, scores.clone(), labels.clone()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        assert_faces_match(&pop, &scores, &one_hot(&labels, 3), 3, true, &mut rng);
    }
}

#[cfg(feature = "mpfr")]
mod mpfr {
    use super::*;
    use metric_elicitation::scalar::Mpfr;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Random rows and thresholds at 256 bits (scores finer than f64
        /// included).
        #[test]
        fn binned_faces_match_brute_force_mpfr256(seed in any::<u64>(), n in 1usize..200, k in 2usize..4) {
            binned_faces_match_brute_force::<Mpfr<256>>(seed, n, k);
        }
    }
}
