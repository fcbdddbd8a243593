//! 002 (multiclass) and the general sphere LPME (001/000 App. A): Tables
//! 2–3 beside the paper, Thms. 1–2, query counts, populations, geometry,
//! bad input. Run with `--nocapture` to see the tables.

use metric_elicitation::search::{halvings, Strategy};
use metric_elicitation_lab::reproduce::multiclass::{
    query_counts, table2, table3, theorem1, theorem2, Sweep,
};
use std::collections::BTreeMap;

#[test]
fn table2_dlpm() {
    println!("002 Table 2 (DLPM, eps = 0.01): truth | ours | paper | queries | note");
    for r in table2::<f64>(Strategy::Paper).unwrap() {
        println!(
            "  {} {:?} | {:?} | {:?} | {} | {}",
            r.row, r.truth, r.elicited, r.paper, r.queries, r.note
        );
        let k = r.truth.len();
        assert_eq!(r.queries, 4 * (k - 1) * 7, "56 for k = 3, 84 for k = 4");
        if r.note.starts_with("eps") {
            assert!(r.error <= 0.01, "{}: error {}", r.row, r.error);
        } else if r.row.contains("softmax") {
            panic!("{}: every face is identifiable with softmax scores", r.row);
        } else {
            // A face whose optimum is a vertex: reported, not hidden.
            assert!(r.note.contains("optimum at a vertex"), "{}", r.note);
        }
    }
}

#[test]
fn table3_lpm() {
    println!("002 Table 3 (LPM, eps = 0.01): error | queries");
    for r in table3::<f64>(Strategy::Paper).unwrap() {
        println!("  {} error {:.4} queries {}", r.row, r.error, r.queries);
        assert!(r.error <= 0.02, "{}: error {}", r.row, r.error);
        let q = r.truth.len();
        assert_eq!(
            r.queries,
            4 * 2 * (q - 1) * 8,
            "320 for k = 3, 704 for k = 4"
        );
    }
}

fn constants(rows: &[metric_elicitation_lab::reproduce::Row]) -> BTreeMap<(usize, String), f64> {
    let mut out = BTreeMap::new();
    for r in rows {
        let k: usize = r.row[2..3].parse().unwrap();
        let e = out.entry((k, r.search.clone())).or_insert(0f64);
        *e = e.max(r.worst_ratio.unwrap());
    }
    out
}

#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn theorem1_dlpm_constants() {
    let rows = theorem1::<f64>(&Sweep::noise_levels()).unwrap();
    // (family, eps_Omega, k) -> (largest constant, largest constant / kappa)
    let mut by: BTreeMap<(String, String, usize), (f64, f64)> = BTreeMap::new();
    for r in &rows {
        // No trial exceeds its own instance bound (for paper and adaptive the
        // exact worst case over every eps_Omega-noisy oracle).
        assert_eq!(r.violations, Some(0), "{}: {}", r.row, r.note);
        assert!(r.instance_ratio.unwrap() <= 1.0, "{}", r.row);
        let parts: Vec<&str> = r.row.split(", ").collect();
        let k: usize = parts[1][2..].parse().unwrap();
        let e = by
            .entry((parts[0].to_string(), parts[2].to_string(), k))
            .or_insert((0.0, 0.0));
        e.0 = e.0.max(r.worst_ratio.unwrap());
        e.1 = e.1.max(r.conditioned_ratio.unwrap());
    }
    println!("002 Thm. 1: max ||a*-a^||inf / (eps + sqrt(eps_Omega)) (and divided by kappa):");
    for ((family, eo, k), (raw, cond)) in &by {
        println!("  {family} {eo} k={k}: {raw:.2} ({cond:.2})");
    }
    // With the noise scaled to a face's metric range and each trial divided
    // by its conditioning, the constant does not grow with k.
    for eo in ["eps_omega=0.000001", "eps_omega=0.0001", "eps_omega=0.001"] {
        let cond: Vec<f64> = (3..=5)
            .map(|k| by[&("pair-blocks-relative".to_string(), eo.to_string(), k)].1)
            .collect();
        let (lo, hi) = cond
            .iter()
            .fold((f64::INFINITY, 0f64), |(l, h), v| (l.min(*v), h.max(*v)));
        assert!(hi <= 1.5 * lo && hi <= 6.0, "{eo}: {cond:?}");
    }
    // At a fixed absolute eps_Omega it does grow (the finding the report
    // explains): k = 5 against k = 2 on the k-invariant population.
    let raw = |k: usize| by[&("pair-blocks".to_string(), "eps_omega=0.0001".to_string(), k)].0;
    assert!(raw(5) > 2.0 * raw(2), "{} vs {}", raw(5), raw(2));
}

#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn theorem2_lpm_and_lpme_constants_do_not_grow_with_k() {
    for general in [false, true] {
        let rows = theorem2::<f64>(&Sweep::default(), general).unwrap();
        let c = constants(&rows);
        println!(
            "002 Thm. 2 ({}): max ||a*-a^||2 / (sqrt(q)(eps + sqrt(eps_Omega/lambda))): {c:?}",
            if general { "LPME" } else { "LPM" }
        );
        for strategy in ["paper", "adaptive", "golden"] {
            let at = |k: usize| c[&(k, strategy.to_string())];
            assert!(
                at(5) <= 1.5 * at(3),
                "{strategy}: k=5 {} vs k=3 {}",
                at(5),
                at(3)
            );
            for k in 2..=5 {
                assert!(at(k) <= 3.5, "{strategy} k={k}: {}", at(k));
            }
        }
    }
}

#[test]
fn query_counts_beside_the_lower_bound() {
    let rows = query_counts::<f64>(20, 5).unwrap();
    for r in &rows {
        println!("  {} {:<9} {}", r.row, r.search, r.note);
        assert!(r.queries as f64 >= r.bound.unwrap());
        if r.row.starts_with("LPME") && r.search == "paper" {
            let q: usize = r
                .row
                .split("q=")
                .nth(1)
                .unwrap()
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .split(')')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(
                r.queries,
                q + 4 * (q - 1) * 4 * halvings(&std::f64::consts::FRAC_PI_2, &0.01).unwrap()
            );
        }
    }
    // Golden section with the paper's 4 cycles reaches the paper's accuracy
    // (error of order eps) with about 2.8x fewer queries.
    for k in ["k=3", "k=4"] {
        let find = |search: &str, cycles: &str| {
            rows.iter()
                .find(|r| r.row.contains(k) && r.row.contains(cycles) && r.search == search)
                .unwrap()
        };
        let (paper, golden) = (find("paper", "4 cycles"), find("golden", "4 cycles"));
        assert!(
            golden.error <= 0.01 && paper.error <= 0.01,
            "{} {}",
            golden.error,
            paper.error
        );
        assert!((golden.queries as f64) < 0.4 * paper.queries as f64);
    }
}

#[cfg(feature = "mpfr")]
mod mpfr {
    use metric_elicitation::search::Tolerance;

    use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};

    use metric_elicitation::oracle::{Counted, Simulated};
    use metric_elicitation::population::LogisticMulticlass;
    use metric_elicitation::search::{halvings, Strategy};
    use metric_elicitation_lab::reproduce::multiclass::{table2, table3};

    use nalgebra::DVector;

    use metric_elicitation::scalar::{Backend, Mpfr, Scalar};
    type M = Mpfr<256>;

    #[test]
    fn tables_agree_between_backends() {
        for (a, b) in [
            (
                table2::<f64>(Strategy::Paper).unwrap(),
                table2::<M>(Strategy::Paper).unwrap(),
            ),
            (
                table3::<f64>(Strategy::Paper).unwrap(),
                table3::<M>(Strategy::Paper).unwrap(),
            ),
        ] {
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.queries, y.queries);
                for (u, v) in x.elicited.iter().zip(&y.elicited) {
                    assert!((u - v).abs() <= 1e-10, "{}: {u} vs {v}", x.row);
                }
            }
        }
    }

    #[test]
    fn dlpm_to_1e25_at_256_bits() {
        let pop = LogisticMulticlass::<M>::new(vec![M::int(1), M::int(3), M::int(5)]).unwrap();
        let truth = DVector::from_vec(vec![
            M::ratio(21, 100),
            M::ratio(59, 100),
            M::ratio(20, 100),
        ]);
        let t = truth.clone();
        let mut oracle = Counted::new(Simulated::new(move |d: &DVector<M>| t.dot(d)));
        let eps = M::decode("1e-25").unwrap();
        let est = elicit_dlpm(
            &pop,
            &mut oracle,
            &DlpmSettings::paper(Tolerance::new(eps.clone()).unwrap(), Strategy::Paper),
        )
        .unwrap();
        let n = halvings(&M::int(1), &eps).unwrap();
        assert_eq!(n, 84);
        assert_eq!(est.queries, 4 * 2 * n);
        let error = (truth - est.a).amax();
        println!(
            "DLPM at eps = 1e-25, 256 bits: error {}",
            error.to_f64_lossy()
        );
        // The ratio (1 - m)/m amplifies the error in m by (a1 + ai)^2/a1^2 <= 15.
        assert!(error <= M::decode("1e-23").unwrap(), "{error}");
    }
}
