//! What the MPFR backend resolves that f64 cannot, and that the working
//! precision really is carried end to end (constants, transcendental
//! functions, nalgebra decompositions).
#![cfg(feature = "mpfr")]

use metric_elicitation::oracle::{Counted, Oracle, Simulated};
use metric_elicitation::scalar::{Backend, Mpfr, Scalar};
use metric_elicitation::search::{halvings, maximize, Stop, Strategy};
use nalgebra::{DMatrix, DVector};
use simba::scalar::{ComplexField, RealField};

type M = Mpfr<256>;

fn close(a: M, b: M, tol_bits: i32) -> bool {
    let tol = M::int(2).powi(-tol_bits);
    (a - b).abs() <= tol
}

#[test]
fn search_to_1e40_converges_in_mpfr_and_f64_reports_its_resolution() {
    // Maximizer 1/3 (not dyadic), ε = 1e-40 on [0, 1].
    let peak = M::ratio(1, 3);
    let eps = M::decode("1e-40").unwrap();
    let mut oracle = Counted::new(Simulated::new(|x: &M| -(x.clone() - peak.clone()).abs()));
    let out = maximize(
        M::int(0),
        M::int(1),
        eps.clone(),
        Strategy::Paper,
        |x, y| Ok(oracle.compare(x, y)?.preference),
    )
    .unwrap();
    assert_eq!(out.stop, Stop::Converged);
    assert_eq!(halvings(&M::int(1), &eps).unwrap(), 133); // 2^-133 ≤ 1e-40 < 2^-132
    assert_eq!(out.queries, 4 * 133);
    assert_eq!(oracle.queries(), 4 * 133);
    assert!(out.lo <= peak && peak <= out.hi);
    assert!(out.hi.clone() - out.lo.clone() <= eps);

    let mut oracle = Counted::new(Simulated::new(|x: &f64| -(x - 1.0 / 3.0).abs()));
    let out = maximize(0.0, 1.0, 1e-40, Strategy::Paper, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })
    .unwrap();
    assert_eq!(out.stop, Stop::Resolution);
    assert!(out.queries < 4 * 133);
    assert!(out.hi - out.lo > 1e-40 && out.hi - out.lo < 1e-15);
    assert!(out.lo <= 1.0 / 3.0 && 1.0 / 3.0 <= out.hi);

    // Golden section reaches 1e-40 as well, in far fewer queries.
    let out = maximize(
        M::int(0),
        M::int(1),
        eps,
        Strategy::Golden,
        |x: &M, y: &M| Ok((x.clone() - peak.clone()).abs() < (y.clone() - peak.clone()).abs()),
    )
    .unwrap();
    assert_eq!(out.stop, Stop::Converged);
    assert!(out.queries <= 193, "{}", out.queries); // ⌈log_φ 1e40⌉ + 1 = 193
}

#[test]
fn constants_and_functions_are_correct_to_the_working_precision() {
    let pi = M::decode(
        "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803",
    )
    .unwrap();
    assert!(close(M::pi(), pi.clone(), 250));
    let half = M::ratio(1, 2);
    assert!(close((pi.clone() / M::int(6)).sin(), half.clone(), 250));
    assert!(close((pi.clone() / M::int(3)).cos(), half, 250));
    assert!(close(M::int(1).atan2(M::int(1)), pi / M::int(4), 250));
    assert!(close(M::int(3).ln().exp(), M::int(3), 248));
    assert!(close(M::int(2).sqrt().powi(2), M::int(2), 250));
    // ln(1 + x) for tiny x keeps full relative precision: x − x²/2 + x³/3
    // (the next term, x⁴/4, is 2⁻³⁰⁰ relative to x).
    let x = M::decode("1e-30").unwrap();
    let expected = x.clone() - x.clone().powi(2) / M::int(2) + x.clone().powi(3) / M::int(3);
    assert!((x.clone().ln_1p() - expected.clone()).abs() <= expected * M::int(2).powi(-250));
    // f64 cannot even see the second term.
    assert_eq!((1e-30f64).ln_1p(), 1e-30);
    assert_eq!(M::precision_bits(), 256);
    assert_eq!(M::backend_name(), "mpfr:256");
    assert!(close(M::epsilon(), M::int(2).powi(-255), 300));
}

#[test]
fn encode_decode_is_lossless() {
    let mut x = M::ratio(1, 7);
    for _ in 0..50 {
        x = x.clone() * M::ratio(13, 11) + M::pi().sin();
        assert_eq!(M::decode(&x.encode()).unwrap(), x);
    }
    for v in [0.1f64, 1.0 / 3.0, -2.5e-300, 6.02e23] {
        assert_eq!(f64::decode(&v.encode()).unwrap().to_bits(), v.to_bits());
    }
}

/// Hilbert matrices are the classic ill-conditioned test: cond(H₁₂) ≈ 1.7e16,
/// so f64 loses every digit while 256 bits keep about 60.
#[test]
fn nalgebra_lu_cholesky_and_eigen_run_at_256_bits() {
    let n = 12;
    let h = DMatrix::<M>::from_fn(n, n, |i, j| M::ratio(1, (i + j + 1) as i64));
    let ones = DVector::<M>::from_element(n, M::int(1));
    let b = &h * &ones;
    let x = h.clone().lu().solve(&b).expect("LU solve");
    let err = (x - &ones).amax();
    assert!(err < M::decode("1e-50").unwrap(), "LU error {err}");
    let x = h.clone().cholesky().expect("SPD").solve(&b);
    assert!((x - &ones).amax() < M::decode("1e-50").unwrap());

    let hf = DMatrix::<f64>::from_fn(n, n, |i, j| 1.0 / (i + j + 1) as f64);
    let xf = hf
        .clone()
        .lu()
        .solve(&(&hf * DVector::from_element(n, 1.0)))
        .unwrap();
    assert!(
        (xf - DVector::from_element(n, 1.0)).amax() > 1e-6,
        "f64 should lose digits here"
    );

    // Eigenvalues of [[2, 1], [1, 2]] are exactly 1 and 3.
    let s = DMatrix::<M>::from_row_slice(2, 2, &[M::int(2), M::int(1), M::int(1), M::int(2)]);
    let mut ev: Vec<M> = s.symmetric_eigen().eigenvalues.iter().cloned().collect();
    ev.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert!(close(ev[0].clone(), M::int(1), 240) && close(ev[1].clone(), M::int(3), 240));
}

/// Values with every MPFR kind: regular numbers that differ only in the
/// last limb, in the sign, in the exponent, and zeros, infinities, NaN.
fn kinds() -> Vec<M> {
    let third = M::ratio(1, 3);
    let next = third.clone() + M::epsilon() / M::int(8);
    assert!(next != third, "the last-limb neighbour must differ");
    vec![
        third.clone(),
        next,
        -third.clone(),
        third.clone() * M::int(2),
        M::int(0),
        -M::int(0),
        M::int(1) / M::int(0),
        -M::int(1) / M::int(0),
        M::int(0) / M::int(0),
        M::pi(),
    ]
}

#[test]
fn identical_is_same_bits_and_implies_equal() {
    let kinds = kinds();
    for (i, a) in kinds.iter().enumerate() {
        for (k, b) in kinds.iter().enumerate() {
            let copy = b.clone();
            // Same kind (same bits) exactly when the indices agree.
            assert_eq!(a.identical(b), i == k, "{a:?} vs {b:?}");
            assert!(copy.identical(b), "a copy is identical: {b:?}");
            if a.identical(b) && !a.as_float().is_nan() {
                assert!(a == b);
            }
        }
    }
    // Equal, not identical: the zeros.
    assert!(M::int(0) == -M::int(0) && !M::int(0).identical(&-M::int(0)));
}

#[test]
fn clone_from_copies_every_kind_exactly() {
    let kinds = kinds();
    for target in &kinds {
        for source in &kinds {
            let mut x = target.clone();
            x.clone_from(source);
            assert!(x.identical(source), "{target:?} <- {source:?} gave {x:?}");
            assert_eq!(x.encode(), source.encode());
            // The copy owns its limbs: changing it leaves the source.
            x += &M::int(1);
            assert!(!source.as_float().is_finite() || !x.identical(source));
        }
    }
}

#[test]
fn ordering_agrees_with_rug_on_every_kind() {
    // The one-call comparisons against rug's own (two calls for
    // `partial_cmp`): every pair of kinds, signed zeros and NaN included.
    let kinds = kinds();
    for a in &kinds {
        for b in &kinds {
            let (x, y) = (a.as_float(), b.as_float());
            assert_eq!(a.partial_cmp(b), x.partial_cmp(y), "{a:?} vs {b:?}");
            assert_eq!(a < b, x < y);
            assert_eq!(a <= b, x <= y);
            assert_eq!(a > b, x > y);
            assert_eq!(a >= b, x >= y);
        }
    }
}

#[test]
fn dot_kernel_sums_as_the_generic_loop() {
    // MPFR's dot product (a per-thread scratch product) gives the same bits
    // as the generic loop: the first product, then each further product
    // added left to right.
    let a = DVector::from_fn(12, |i, _| M::ratio(i as i64 - 5, 7));
    let b = DVector::from_fn(12, |i, _| M::ratio(3, i as i64 + 2) - M::ratio(1, 9));
    let mut expected = a[0].clone() * b[0].clone();
    for i in 1..12 {
        expected += &(a[i].clone() * b[i].clone());
    }
    let got = metric_elicitation::scalar::dot(&a, &b);
    assert!(got.identical(&expected), "{got:?} against {expected:?}");
    // Another precision on the same thread between two uses of the scratch.
    let a2 = DVector::from_fn(3, |i, _| Mpfr::<64>::ratio(i as i64 + 1, 3));
    let d2 = metric_elicitation::scalar::dot(&a2, &a2);
    assert!((d2 - Mpfr::<64>::ratio(14, 9)).abs() < Mpfr::<64>::ratio(1, 1 << 40));
    assert!(metric_elicitation::scalar::dot(&a, &b).identical(&expected));
    // Empty and mismatched lengths go to the generic loop (which reads the
    // common length).
    let short = DVector::from_fn(3, |i, _| b[i].clone());
    let mut first3 = a[0].clone() * b[0].clone();
    for i in 1..3 {
        first3 += &(a[i].clone() * b[i].clone());
    }
    assert!(metric_elicitation::scalar::dot(&a, &short).identical(&first3));
    let empty = DVector::<M>::zeros(0);
    assert!(metric_elicitation::scalar::dot(&empty, &empty) == M::int(0));
}

#[test]
fn a_turned_slice_keeps_only_what_is_unchanged() {
    // At MPFR precision a turn keeps the base coordinates whose angles and
    // sphere are the same bits as before: the points must be those of a
    // slice made afresh, after a forward step (one angle changed), after a
    // change of an earlier angle, and on another sphere.
    use metric_elicitation::geometry::sphere::{sines_cosines, AngleSlice, Sphere, Steps};
    let q = 6;
    let sphere = Sphere::new(
        DVector::from_fn(q, |i, _| M::ratio(i as i64 + 1, 10)),
        M::ratio(1, 20),
    )
    .unwrap();
    let other = Sphere::new(DVector::from_element(q, M::ratio(1, 3)), M::ratio(1, 7)).unwrap();
    let steps = Steps::new(&M::frac_pi_2(), 7);
    let mut theta: Vec<M> = (0..q - 1).map(|i| M::ratio(2 * i as i64 + 3, 9)).collect();
    let angle = M::ratio(5, 7);
    let mut slice =
        AngleSlice::with_trig(&sphere, &sines_cosines(&theta), 2, Some(&steps)).unwrap();
    let check = |slice: &mut AngleSlice<M>, sphere: &Sphere<M>, theta: &[M], j: usize| {
        slice.turn(sphere, &sines_cosines(theta), j).unwrap();
        let fresh = AngleSlice::with_trig(sphere, &sines_cosines(theta), j, Some(&steps)).unwrap();
        let (a, b) = (slice.point(&angle), fresh.point(&angle));
        assert!(
            a.iter().zip(b.iter()).all(|(x, y)| x.identical(y)),
            "turned to {j}: {a:?} against {b:?}"
        );
    };
    // A forward step: angle 2 searched, the slice turned to angle 3.
    theta[2] = M::ratio(4, 5);
    check(&mut slice, &sphere, &theta, 3);
    // An earlier angle changed (a new cycle), turned to angle 4.
    theta[0] = M::ratio(1, 5);
    check(&mut slice, &sphere, &theta, 4);
    // Back to angle 1, then other spheres with the same angles: another
    // radius about the same centre, then another centre.
    check(&mut slice, &sphere, &theta, 1);
    let wider = Sphere::new(sphere.center().clone(), M::ratio(1, 9)).unwrap();
    check(&mut slice, &sphere, &theta, 3);
    check(&mut slice, &wider, &theta, 3);
    check(&mut slice, &other, &theta, 3);
}

#[test]
fn derived_probes_agree_with_direct_sines() {
    // The probes a halving search asks about, derived from neighbours by
    // the addition formulas on the scaled pair (P·sin, P·cos), against the
    // same points computed with a fresh sine and cosine; and the estimate's
    // (sin, cos) from `trig` against sin_cos. The chains are ten halvings
    // long; each step rounds a few units of 2^-256.
    use metric_elicitation::geometry::sphere::{sines_cosines, AngleSlice, Sphere, Steps};
    let q = 5;
    let sphere = Sphere::new(
        DVector::from_fn(q, |i, _| M::ratio(i as i64 - 2, 10)),
        M::ratio(1, 3),
    )
    .unwrap();
    let theta: Vec<M> = (0..q - 1).map(|i| M::ratio(i as i64 + 2, 7)).collect();
    let halvings = 10;
    let steps = Steps::new(&M::frac_pi_2(), halvings);
    let tolerance = M::ratio(1, 1) / M::int(2).powi(240);
    for j in [0, 2, 3] {
        let mut slice =
            AngleSlice::with_trig(&sphere, &sines_cosines(&theta), j, Some(&steps)).unwrap();
        let (mut a, mut b) = (M::int(0), M::frac_pi_2());
        for _ in 0..halvings {
            let mut w = b.clone() - a.clone();
            w.mul_pow2_assign(-2);
            let c = a.clone() + w.clone();
            let d = c.clone() + w.clone();
            let e = d.clone() + w.clone();
            for (x, y) in [(&c, &a), (&d, &c), (&e, &d), (&b, &e)] {
                let (px, py) = slice.pair(x, y);
                let (px, py) = (px.clone(), py.clone());
                for (p, t) in [(px, x), (py, y)] {
                    let fresh = slice.point(t);
                    let err = (p - fresh).amax();
                    assert!(err < tolerance, "j {j}, angle {t}: {err}");
                }
            }
            // Keep the interval around 0.61 (a search converging there).
            let target = M::ratio(61, 100);
            (a, b) = if target < c {
                (a, d)
            } else if target > e {
                (d, b)
            } else {
                (c, e)
            };
        }
        let estimate = (a + b) / M::int(2);
        let (s, c) = slice.trig(&estimate);
        let (s0, c0) = estimate.clone().sin_cos();
        assert!(
            (s - s0).abs() < tolerance && (c - c0).abs() < tolerance,
            "j {j}"
        );
    }
}
