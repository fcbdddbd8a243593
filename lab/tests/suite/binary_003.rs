//! 003 (binary metric elicitation): Tables 1–2 beside the paper, Thm. 2,
//! Lemma 2, finite samples, geometry invariants and bad input.
//! Run with `--nocapture` to see the tables.

use metric_elicitation::elicit::binary::Alg3Settings;
use metric_elicitation::search::{golden_max_queries, halvings, Strategy};
use metric_elicitation_lab::reproduce::binary::{
    finite_sample, query_counts, table1, table2, theorem2, Theorem2Sweep,
};
use metric_elicitation_testkit::noise_multiple;

#[test]
fn table1_recovers_every_slope_within_half_epsilon() {
    let rows = table1::<f64>(Strategy::Paper).unwrap();
    println!("003 Table 1 (eps = 0.02 rad):  truth | ours | paper | queries");
    for r in &rows {
        println!(
            "  {:?} | ({:.4}, {:.4}) | {:?} | {}",
            r.truth, r.elicited[0], r.elicited[1], r.paper, r.queries
        );
        assert!(r.error <= 0.01, "{}: error {}", r.row, r.error);
        // 4·⌈log2((π/2)/0.02)⌉ = 4·7.
        assert_eq!(r.queries, 28);
        // The paper prints two decimals.
        for (ours, paper) in r.elicited.iter().zip(&r.paper) {
            assert!(
                (ours - paper).abs() <= 0.01,
                "{}: {ours} vs paper {paper}",
                r.row
            );
        }
    }
}

#[test]
fn table2_sigma_is_within_the_papers_plus_one_hundredth() {
    let rows = table2::<f64>(Strategy::Paper, Alg3Settings::default()).unwrap();
    println!("003 Table 2 (synthetic, eps = 0.05):  ours (p11,p00,q11,q00,q0) alpha sigma | paper");
    for r in &rows {
        let (pa, ps) = r.paper_alpha_sigma.unwrap();
        let (alpha, sigma) = (r.alpha.unwrap(), r.sigma.unwrap());
        println!(
            "  row {:<22} ({:.2},{:.2},{:.2},{:.2},{:.2}) {alpha:.3} {sigma:.4} | {:?} {pa} {ps}",
            r.row,
            r.elicited[0],
            r.elicited[1],
            r.elicited[2],
            r.elicited[3],
            r.elicited[4],
            r.paper
        );
        assert!(
            sigma <= ps + 0.01,
            "row {}: sigma {sigma} > paper {ps} + 0.01",
            r.row
        );
        assert!(alpha > 0.0, "the estimate must be a positive multiple");
        assert_eq!(r.queries, if r.row.contains("Cor. 1") { 20 } else { 40 });
    }
    assert_eq!(rows.len(), 8, "six rows plus two Cor. 1 rows");
}

#[test]
fn theorem2_holds_where_its_assumptions_do() {
    let rows = theorem2::<f64>(&Theorem2Sweep::default()).unwrap();
    assert_eq!(rows.len(), 3 * 4 * 4 * 3);
    let mut worst = std::collections::BTreeMap::new();
    for r in &rows {
        let strategy: Strategy = r.search.parse().unwrap();
        let eps: f64 = r
            .row
            .split(',')
            .next()
            .unwrap()
            .trim_start_matches("eps=")
            .parse()
            .unwrap();
        let exact = r.row.contains("eps_omega=0,");
        let ratio = r.worst_ratio.unwrap();
        let entry = worst.entry((r.search.clone(), exact)).or_insert(0f64);
        *entry = entry.max(ratio);
        if exact {
            // With an exact oracle the bound √2·ε can only fail where θ* is
            // within 2ε of a plateau of the App. A boundary (Assumption 1
            // fails there and ties make ShrinkInterval drop θ*).
            if r.violations.unwrap() > 0 {
                let far: f64 = r
                    .note
                    .split("at most ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(
                    far <= 2.0 * eps,
                    "{} {}: violation {far} rad from a plateau",
                    r.row,
                    r.search
                );
            }
        } else {
            // In-band errors accumulate over halvings (loss up to c·ε_Ω,
            // c = noise_multiple), which scales the noise term by √c.
            let cap = noise_multiple(strategy).sqrt();
            assert!(
                ratio <= cap,
                "{} {}: ratio {ratio} > sqrt(c) = {cap}",
                r.row,
                r.search
            );
        }
    }
    println!("003 Thm. 2: largest error/bound ratio over 1000 trials per setting");
    for ((search, exact), ratio) in worst {
        println!(
            "  {search:<9} {:<12} {ratio:.3}",
            if exact { "eps_Omega=0" } else { "eps_Omega>0" }
        );
    }
}

#[test]
fn query_counts_against_lemma2() {
    for r in query_counts::<f64>(50, 3).unwrap() {
        let bound = r.bound.unwrap();
        let eps: f64 = r.row.trim_start_matches("eps=").parse().unwrap();
        let n = halvings(&std::f64::consts::FRAC_PI_2, &eps).unwrap();
        println!("  {} {:<9} {}", r.row, r.search, r.note);
        assert!(
            r.queries as f64 >= bound,
            "fewer queries than the lower bound"
        );
        match r.search.as_str() {
            "paper" => assert_eq!(r.queries, 4 * n),
            "adaptive" => assert!(r.queries <= 3 * n),
            // Golden section: ⌈log_φ(L/ε)⌉ + 1 without ties; after a tie it
            // finishes by halving, at most 3 queries per halving.
            _ if r.tied_trials == Some(0) => assert!(
                r.queries <= golden_max_queries(&std::f64::consts::FRAC_PI_2, &eps).unwrap()
            ),
            _ => assert!(r.queries <= 1 + 3 * n),
        }
        assert!(
            r.error <= eps / 2.0 + 1e-12 || eps < 0.01,
            "{} {}",
            r.row,
            r.error
        );
    }
}

#[test]
fn finite_samples_stay_within_what_the_staircase_allows() {
    let small = finite_sample::<f64>(100_000, 7, Strategy::Paper).unwrap();
    let large = finite_sample::<f64>(1_000_000, 7, Strategy::Paper).unwrap();
    for r in small.iter().chain(&large) {
        println!(
            "  {} error {:.4} allowance {:.3} | {}",
            r.row,
            r.error,
            r.bound.unwrap(),
            r.note
        );
        assert!(r.error <= r.bound.unwrap());
        assert_eq!(r.queries, 28);
    }
    let mean = |rows: &[metric_elicitation_lab::reproduce::Row]| {
        rows.iter().map(|r| r.error).sum::<f64>() / rows.len() as f64
    };
    assert!(
        mean(&large) < mean(&small),
        "more data should help on average"
    );
}

#[cfg(feature = "mpfr")]
mod mpfr {

    use metric_elicitation::elicit::binary::Alg3Settings;

    use metric_elicitation::search::Strategy;
    use metric_elicitation_lab::reproduce::binary::{table1, table2, theorem2, Theorem2Sweep};

    use metric_elicitation::scalar::{Backend, Mpfr};
    use metric_elicitation_lab::reproduce::binary::lpm_at_tolerance;
    type M = Mpfr<256>;

    #[test]
    fn table1_agrees_between_backends() {
        let a = table1::<f64>(Strategy::Paper).unwrap();
        let b = table1::<M>(Strategy::Paper).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.queries, y.queries);
            for (u, v) in x.elicited.iter().zip(&y.elicited) {
                assert!((u - v).abs() <= 1e-12, "{}: {u} vs {v}", x.row);
            }
        }
    }

    #[test]
    fn table2_agrees_between_backends() {
        let settings = Alg3Settings {
            confusions_per_side: 200,
            steps: 100,
        };
        let a = table2::<f64>(Strategy::Paper, settings).unwrap();
        let b = table2::<M>(Strategy::Paper, settings).unwrap();
        for (x, y) in a.iter().zip(&b) {
            for (u, v) in x.elicited.iter().zip(&y.elicited) {
                assert!((u - v).abs() <= 1e-10, "{}: {u} vs {v}", x.row);
            }
        }
    }

    #[test]
    fn lpm_to_1e30_at_256_bits() {
        let eps = M::decode("1e-30").unwrap();
        for k in [1, 4, 7] {
            let (error, queries, expected) =
                lpm_at_tolerance::<M>(k, &eps, Strategy::Paper).unwrap();
            assert!(error <= eps, "theta* = {k}pi/18: error {error}");
            assert_eq!(queries, expected);
            assert_eq!(queries, 4 * 101); // ⌈log2((π/2)/1e-30)⌉ = 101
        }
    }

    #[test]
    fn theorem2_at_256_bits_reduced_sweep() {
        let sweep = Theorem2Sweep {
            trials: 20,
            ..Theorem2Sweep::default()
        };
        let a = theorem2::<f64>(&sweep).unwrap();
        let b = theorem2::<M>(&sweep).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x.worst_error.unwrap() - y.worst_error.unwrap()).abs() < 1e-9,
                "{} {}",
                x.row,
                x.search
            );
        }
    }
}
