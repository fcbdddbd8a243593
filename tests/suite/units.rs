mod fit {
    use metric_elicitation::fit::*;

    fn table(text: &str) -> Table {
        Table::from_reader(text.as_bytes(), "test").unwrap()
    }

    #[test]
    fn prepare_bins_labels_and_drops_missing_rows() {
        let t = table("a,b,q,g\n1,2,5,0\n2,,6,1\n3,4,7,1\n4,5,6,0\n");
        let cols = Columns {
            label: "q".into(),
            group: Some("g".into()),
            bins: Some(vec![6.0, 7.0]),
            ..Columns::default()
        };
        let p = t.prepare(&cols).unwrap();
        assert_eq!(p.dropped, 1);
        assert_eq!(p.labels, vec![0, 2, 1]);
        assert_eq!((p.classes, p.group_count), (3, 2));
        assert_eq!(p.feature_names, vec!["a", "b"]);
        // Without bins, quality 5..7 are codes with 0..4 missing.
        let cols = Columns {
            label: "q".into(),
            ..Columns::default()
        };
        let err = t.prepare(&cols).unwrap_err().to_string();
        assert!(err.contains("never occurs"), "{err}");
    }

    #[test]
    fn text_cells_are_errors_only_where_used() {
        let t = table("a,s,y\n1,x,0\n2,y,1\n");
        let cols = Columns {
            label: "y".into(),
            exclude: vec!["s".into()],
            ..Columns::default()
        };
        assert_eq!(t.prepare(&cols).unwrap().feature_names, vec!["a"]);
        let cols = Columns {
            label: "y".into(),
            ..Columns::default()
        };
        let err = t.prepare(&cols).unwrap_err().to_string();
        assert!(err.contains("\"x\""), "{err}");
    }

    #[test]
    fn regularization_forms() {
        assert_eq!(Regularization::Weight(10.0).alpha(50).unwrap(), 10.0);
        assert_eq!(Regularization::Inverse(10.0).alpha(50).unwrap(), 0.1);
        assert_eq!(Regularization::MeanLoss(0.1).alpha(50).unwrap(), 10.0);
        assert!(Regularization::Inverse(0.0).alpha(5).is_err());
    }

    #[test]
    fn split_is_seeded_and_disjoint() {
        let a = Split::random(100, 0.6, 3).unwrap();
        assert_eq!(a, Split::random(100, 0.6, 3).unwrap());
        assert_ne!(a, Split::random(100, 0.6, 4).unwrap());
        assert_eq!(a.fit.len(), 60);
        let mut all: Vec<usize> = a.fit.iter().chain(&a.held_out).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
    }
}

mod groups {
    use metric_elicitation::geometry::groups::*;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn rate_indices_round_trip() {
        for k in 2..7 {
            for idx in 0..rate_count(k) {
                let (i, j) = rate_entry(k, idx).unwrap();
                assert_eq!(rate_index(k, i, j), Some(idx));
            }
        }
        // 001-fair.md P6: e_1 at k + j(k − 1), e_k at (k − 1) + j(k − 1), 1-based
        let k = 4;
        let e1 = trivial::<f64>(k, 0).unwrap();
        let ek = trivial::<f64>(k, k - 1).unwrap();
        for j in 0..k - 1 {
            assert_eq!(e1[k + j * (k - 1) - 1], 1.0);
            assert_eq!(ek[(k - 1) + j * (k - 1) - 1], 1.0);
        }
        assert_eq!(e1.sum(), (k - 1) as f64);
    }

    #[test]
    fn pair_indices() {
        for m in 2..9 {
            for (n, (u, v)) in pairs(m).into_iter().enumerate() {
                assert_eq!(pair_index(m, u, v), Some(n));
                assert_eq!(pair_index(m, v, u), Some(n));
            }
        }
    }

    /// Ξ of [`Partitions::new`] is invertible for m = 2..8, with the
    /// condition numbers of 001-fair.md P19: cond₂ Ξ = 1, 2, 5.83, 6, 4, 5,
    /// 6 and ‖Ξ⁻¹‖₂ = 1 (m = 2, 3, 5), ½ (m ≥ 6).
    #[test]
    fn xi_is_invertible_with_the_expected_conditioning() {
        let expected = [
            (2, 1.0),
            (3, 2.0),
            (4, 3.0 + 8f64.sqrt()),
            (5, 6.0),
            (6, 4.0),
            (7, 5.0),
            (8, 6.0),
        ];
        for (m, cond) in expected {
            let p = Partitions::<f64>::new(m).unwrap();
            assert_eq!(p.sets().len(), m * (m - 1) / 2);
            let sv = p.xi().clone().svd(false, false).singular_values;
            let (hi, lo) = (sv.max(), sv.min());
            println!(
                "m = {m}: |M| = {}, cond2(Xi) = {:.4}, ||Xi^-1||_2 = {:.4}, ||Xi^-1||_inf = {}",
                p.sets().len(),
                hi / lo,
                1.0 / lo,
                p.inverse_inf_norm()
            );
            assert!(lo > 0.1, "m = {m}: smallest singular value {lo}");
            assert!((hi / lo - cond).abs() < 1e-9, "m = {m}: cond {}", hi / lo);
            let n = p.sets().len();
            assert!((p.inverse() * p.xi() - DMatrix::identity(n, n)).amax() < 1e-13);
            if m == 3 || m == 5 {
                assert!((1.0 / lo - 1.0).abs() < 1e-9);
            } else if m >= 6 {
                assert!((1.0 / lo - 0.5).abs() < 1e-9);
            }
        }
        // All 2-subsets are singular at m = 4 ({1,2} and {3,4} cut the same
        // pairs).
        let all: Vec<Vec<usize>> = pairs(4).into_iter().map(|(u, v)| vec![u, v]).collect();
        assert!(Partitions::<f64>::with_sets(4, all).is_err());
        // The reference's choice at m = 4 is invertible too.
        let reference = vec![vec![0], vec![1], vec![2], vec![3], vec![0, 3], vec![1, 3]];
        assert!(Partitions::<f64>::with_sets(4, reference).is_ok());
    }

    #[test]
    fn solve_inverts_the_cut_sums() {
        for m in 2..9 {
            let p = Partitions::<f64>::new(m).unwrap();
            let b: Vec<DVector<f64>> = (0..m * (m - 1) / 2)
                .map(|i| DVector::from_fn(3, |j, _| (i * 3 + j) as f64 + 0.5))
                .collect();
            let gamma: Vec<DVector<f64>> = p
                .sets()
                .iter()
                .map(|s| {
                    pairs(m)
                        .iter()
                        .zip(&b)
                        .filter(|(pair, _)| cuts(s, **pair))
                        .fold(DVector::zeros(3), |acc, (_, v)| acc + v)
                })
                .collect();
            for (x, y) in p.solve(&gamma).unwrap().iter().zip(&b) {
                assert!((x - y).amax() < 1e-12);
            }
        }
    }

    #[test]
    fn groups_validate_and_embed() {
        let t = vec![vec![0.3, 0.6, 0.5], vec![0.7, 0.4, 0.5]];
        let g = Groups::new(3, t.clone(), None).unwrap();
        assert_eq!(g.dim(), 6);
        assert_eq!(*g.radius(), 0.2);
        assert_eq!(g.tau(0)[0], 0.3); // entry (1, 2)
        assert_eq!(g.tau(0)[2], 0.6); // entry (2, 1)
        assert!((g.tau(0) + g.tau(1)).iter().all(|v| *v == 1.0));
        // bad input: named errors
        let bad = vec![vec![0.3, 0.6, 0.5], vec![0.6, 0.4, 0.5]];
        assert!(Groups::new(3, bad, None)
            .unwrap_err()
            .to_string()
            .contains("class 1"));
        let bad = vec![vec![1.2, 0.6, 0.5], vec![-0.2, 0.4, 0.5]];
        assert!(Groups::new(3, bad, None)
            .unwrap_err()
            .to_string()
            .contains("tau[0][0]"));
        assert!(Groups::new(3, t.clone(), Some(0.34)).is_err());
        assert!(Groups::new(3, vec![vec![1.0, 1.0, 1.0]], None).is_err());
        assert_eq!(
            *Groups::new(6, vec![vec![0.5; 6], vec![0.5; 6]], None)
                .unwrap()
                .radius(),
            1.0 / 6.0
        );
        // embeddings
        let s = DVector::from_element(6, 0.25);
        let inner = |_: &GroupRates<f64>| 0.0;
        let r = Restricted::new(
            &g,
            Embedding::Violation {
                sigma: vec![1],
                class: 2,
            },
            inner,
        )
        .unwrap();
        let p = r.embed(&s).unwrap();
        assert_eq!(p.group(0).clone_owned(), s);
        assert_eq!(p.group(1).clone_owned(), trivial::<f64>(3, 2).unwrap());
        let r = Restricted::new(&g, Embedding::TradeOff { group: 1 }, inner).unwrap();
        let p = r.embed(&s).unwrap();
        assert_eq!(p.group(0).clone_owned(), centre::<f64>(3));
        assert_eq!(p.group(1).clone_owned(), s);
        let r = Restricted::new(&g, Embedding::Quadratic { sigma: vec![0] }, inner).unwrap();
        assert_eq!(
            r.embed(&s).unwrap().group(1).clone_owned(),
            centre::<f64>(3)
        );
        assert!(Restricted::new(&g, Embedding::Quadratic { sigma: vec![0, 1] }, inner).is_err());
        assert!(Restricted::new(&g, Embedding::TradeOff { group: 2 }, inner).is_err());
        assert!(r.embed(&DVector::from_element(5, 0.2)).is_err());
        // S⁺ lies in S_ρ and above o
        let plus = g.plus_sphere().unwrap();
        let rho = 0.2 / (1.0 + 6f64.sqrt());
        assert!((plus.radius() - rho).abs() < 1e-15);
        for i in 0..6 {
            let mut u = DVector::from_element(6, 0.0);
            u[i] = -1.0;
            let z = plus.point(&u).unwrap();
            assert!(z.iter().all(|v| *v >= 1.0 / 3.0 - 1e-15));
            assert!((z - g.centre()).norm() <= 0.2 + 1e-15);
        }
    }
}

mod spec {
    use metric_elicitation::driver::spec::*;
    use serde::Deserialize;
    use serde_json::Value;

    #[test]
    fn settings_keep_unknown_fields_for_the_procedure() {
        let spec = Spec::parse(
            "procedure = \"dlpm\"\nepsilon = 0.01\nreference = 2\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0]\n[oracle]\nkind = \"person\"\n",
            true,
        )
        .unwrap();
        assert_eq!(spec.settings.get("reference"), Some(&Value::from(2)));
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Other {
            cycles: Option<usize>,
        }
        let err = spec.settings::<Other>().unwrap_err();
        assert!(err.to_string().contains("reference"), "{err}");
    }
}

mod quadrature {
    use metric_elicitation::quadrature::*;

    #[test]
    fn integrates_exp_and_a_logistic_to_full_precision() {
        let rule = GaussLegendre::<f64>::for_precision().unwrap();
        let i = rule.integrate_adaptive(&mut |x: &f64| x.exp(), &-1.0, &1.0);
        assert!((i - (1f64.exp() - (-1f64).exp())).abs() < 1e-14);
        // ∫_{-1}^{1} 1/(1 + e^{10x}) dx = 1 (odd symmetry around 1/2).
        let i = rule.integrate_adaptive(&mut |x: &f64| 1.0 / (1.0 + (10.0 * x).exp()), &-1.0, &1.0);
        assert!((i - 1.0).abs() < 1e-14, "{i}");
    }
}

mod registry {
    use metric_elicitation::driver::registry::*;
    use metric_elicitation::driver::spec::{Engine, Spec};

    fn spec(procedure: &str, extra: &str, oracle: &str) -> Spec {
        Spec::parse(
            &format!(
                "procedure = \"{procedure}\"\nepsilon = 0.05\n{extra}[population]\nkind = \"synthetic-003\"\n[oracle]\n{oracle}\n"
            ),
            true,
        )
        .unwrap()
    }

    const PERSON: &str = "kind = \"person\"";
    const EXACT: &str = "kind = \"simulated\"\nmetric = [0.8, 0.6]";
    const ERRING: &str = "kind = \"simulated\"\nmetric = [0.8, 0.6]\nmistake_rate = 0.1";

    /// Who may err gets the Bayesian engine where the procedure has it;
    /// exact answers, a named search strategy or a procedure without the
    /// engine get the papers' search; a named engine is kept.
    #[test]
    fn the_default_engine_serves_the_oracle() {
        let engine = |s: &Spec| find_for(s).unwrap().engine;
        assert_eq!(engine(&spec("binary-lpm", "", PERSON)), Engine::Bayes);
        assert_eq!(engine(&spec("binary-lpm", "", ERRING)), Engine::Bayes);
        assert_eq!(engine(&spec("binary-lpm", "", EXACT)), Engine::Search);
        // A Bradley–Terry person errs near ties.
        assert_eq!(
            engine(&spec(
                "binary-lpm",
                "",
                &format!("{EXACT}\ntemperature = 0.01")
            )),
            Engine::Bayes
        );
        assert_eq!(
            engine(&spec(
                "binary-lpm",
                "",
                &format!("{EXACT}\nmistake_rate = 0")
            )),
            Engine::Search
        );
        assert_eq!(
            engine(&spec("binary-lpm", "search = \"golden\"\n", PERSON)),
            Engine::Search
        );
        assert_eq!(
            engine(&spec("binary-lpm", "engine = \"search\"\n", PERSON)),
            Engine::Search
        );
        assert_eq!(
            engine(&spec("binary-lpm", "engine = \"bayes\"\n", EXACT)),
            Engine::Bayes
        );
        assert_eq!(engine(&spec("lpm", "", PERSON)), Engine::Search);
        // fpme's too (for a person; exact answers get the search).
        let fair = |extra: &str| {
            Spec::parse(
                &format!("procedure = \"fpme\"\nepsilon = 0.05\n{extra}[population]\nkind = \"groups\"\nclasses = 2\ntau = [[0.5, 0.4], [0.5, 0.6]]\n[oracle]\n{PERSON}\n"),
                true,
            )
            .unwrap()
        };
        assert_eq!(engine(&fair("")), Engine::Bayes);
        assert_eq!(engine(&fair("engine = \"search\"\n")), Engine::Search);
        assert_eq!(engine(&fair("engine = \"bayes\"\n")), Engine::Bayes);
        assert!(find_for(&spec("lpm", "engine = \"bayes\"\n", PERSON)).is_err());
        // qpme's by default for a person: the search's small spheres show
        // pairs a person cannot tell apart.
        assert_eq!(engine(&spec("qpme", "", PERSON)), Engine::Bayes);
        assert_eq!(engine(&spec("qpme", "", EXACT)), Engine::Search);
    }

    /// `resolve` writes the engine it found into the spec (what a
    /// transcript's header records) and keeps a named one.
    #[test]
    fn resolve_pins_the_engine() {
        let mut s = spec("binary-lpm", "", PERSON);
        assert_eq!(resolve(&mut s).unwrap().engine, Engine::Bayes);
        assert_eq!(s.engine.as_deref(), Some("bayes"));
        let mut s = spec("dlpm", "", EXACT);
        resolve(&mut s).unwrap();
        assert_eq!(s.engine.as_deref(), Some("search"));
    }
}

mod calibration {
    use metric_elicitation::diagnostics::Cause;
    use metric_elicitation::population::calibration::check;
    use rand::{Rng, SeedableRng};

    /// Rows whose labels are drawn from their own probabilities pass;
    /// the same rows with labels drawn independently fail.
    #[test]
    fn labels_drawn_from_the_probabilities_pass_and_independent_labels_fail() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let k = 3;
        let mut scores = Vec::new();
        let (mut drawn, mut independent) = (Vec::new(), Vec::new());
        for _ in 0..600 {
            let mut row: Vec<f64> = (0..k).map(|_| rng.random::<f64>().powi(3)).collect();
            let total: f64 = row.iter().sum();
            row.iter_mut().for_each(|v| *v /= total);
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let y = row
                .iter()
                .position(|p| {
                    acc += p;
                    u < acc
                })
                .unwrap_or(k - 1);
            drawn.push(y);
            independent.push(rng.random_range(0..k));
            scores.extend(row);
        }
        assert!(check(k, &scores, &drawn).is_none());
        let w = check(k, &scores, &independent).expect("independent labels flagged");
        assert_eq!(w.cause, Cause::Miscalibrated);
    }
}

mod feasible {
    use metric_elicitation::geometry::feasible::{FeasibleSet, Normalization, Progress};
    use std::sync::Mutex;

    /// The log records of this test binary.
    static RECORDS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    struct Capture;
    impl log::Log for Capture {
        fn enabled(&self, _: &log::Metadata) -> bool {
            true
        }
        fn log(&self, record: &log::Record) {
            if let Ok(mut r) = RECORDS.lock() {
                r.push(format!("{}: {}", record.target(), record.args()));
            }
        }
        fn flush(&self) {}
    }
    static CAPTURE: Capture = Capture;

    #[test]
    fn progress_says_how_many_programs_are_solved() {
        if log::set_logger(&CAPTURE).is_ok() {
            log::set_max_level(log::LevelFilter::Info);
        }
        let progress = Progress::new(3, std::time::Duration::ZERO);
        for _ in 0..3 {
            progress.tick();
        }
        let records = RECORDS.lock().unwrap();
        assert!(
            records
                .iter()
                .any(|r| r.starts_with("metric_elicitation::sphere: ")
                    && r.contains("3 of 3 linear programs solved")),
            "{records:?}"
        );
        // A quick search says nothing: no record before `every` has passed.
        drop(records);
        let quiet = Progress::new(2, std::time::Duration::from_secs(3600));
        quiet.tick();
        assert!(!RECORDS
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.contains("of 2 linear programs")));
    }

    /// Class 3's rows are class 1's twins (the same scores): every
    /// classifier built from the scores labels them alike, so no rate of
    /// class 3 moves without class 1's and no sphere fits. The error says
    /// which classes and what to do.
    #[test]
    fn twin_classes_leave_no_room_and_the_error_says_what_to_do() {
        let k = 3;
        // Class 3 has `twins` rows for each class-1 row (the same scores):
        // found whatever the sizes, in rates and in joint confusions.
        for (twins, normalization) in [
            (1, Normalization::Rates),
            (2, Normalization::Rates),
            (1, Normalization::Joint),
            (2, Normalization::Joint),
        ] {
            let mut scores = Vec::new();
            let mut mass = Vec::new();
            for r in 0..12 {
                let t = f64::from(r) / 11.0;
                let s = [0.6 - 0.4 * t, 0.1 + 0.2 * t, 0.3 + 0.2 * t];
                let other = [0.1 + 0.1 * t, 0.8 - 0.2 * t, 0.1 + 0.1 * t];
                let mut rows = vec![(0, s), (1, other)];
                rows.extend(std::iter::repeat_n((2, s), twins));
                for (label, row) in rows {
                    scores.extend_from_slice(&row);
                    let mut m = [0.0; 3];
                    m[label] = 1.0;
                    mass.extend_from_slice(&m);
                }
            }
            let groups = vec![0; scores.len() / k];
            let set = FeasibleSet::<f64>::new(k, &scores, &mass, &groups, normalization).unwrap();
            let err = set
                .find_sphere(8, 1)
                .map(|f| *f.sphere.radius())
                .unwrap_err()
                .to_string();
            let case = format!("{twins} twins, {normalization:?}: {err}");
            assert!(err.contains("no query sphere fits"), "{case}");
            // Classes 1 and 3 named together, by number and label code.
            assert!(
                err.contains("class 1 (label code 0) 12")
                    && err.contains(&format!("class 3 (label code 2) {}", 12 * twins)),
                "{case}"
            );
            assert!(
                err.contains("give class 1 and class 3 one label code in the file")
                    || err.contains("give class 3 and class 1 one label code in the file"),
                "{case}"
            );
        }
    }
}

mod query_centre {
    use metric_elicitation::geometry::feasible::{FeasibleSet, Normalization};
    use rand::{Rng, SeedableRng};

    /// Three classes whose scores mostly point at the label: a sample
    /// with a good classifier (issue #30's "plausible classifiers"), in
    /// `m` groups (rows dealt in turn).
    fn sample(n: usize, m: usize, normalization: Normalization) -> FeasibleSet<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let (mut scores, mut mass) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let label = rng.random_range(0..3usize);
            let mut s: Vec<f64> = (0..3).map(|_| rng.random::<f64>()).collect();
            s[label] += 1.2 * rng.random::<f64>();
            let total: f64 = s.iter().sum();
            scores.extend(s.iter().map(|v| v / total));
            mass.extend((0..3).map(|c| f64::from(u8::from(c == label))));
        }
        let groups: Vec<usize> = (0..n).map(|r| r % m).collect();
        FeasibleSet::new(3, &scores, &mass, &groups, normalization).unwrap()
    }

    /// The sphere toward the most accurate classifier: its centre is a
    /// fraction t > 0 of the way there, its classifiers err less than the
    /// uniform classifier's neighbours, its radius keeps at least half the
    /// uniform sphere's, and every sampled point of it (and its axis
    /// points) is realized in every group by a mixture of the data's
    /// classifiers with the centre's (the certificate). With two groups
    /// the centre is one point both realize.
    #[test]
    fn the_sphere_moves_toward_the_accurate_classifier_and_is_realized() {
        for (m, normalization) in [
            (1, Normalization::Joint),
            (1, Normalization::Rates),
            (2, Normalization::Rates),
        ] {
            let set = sample(600, m, normalization);
            let uniform = set.find_sphere(16, 2).unwrap();
            let toward = set.find_sphere_toward_accurate(16, 2).unwrap();
            let case = format!("{m} groups, {normalization:?}: t = {}", toward.centre.t);
            assert!(toward.centre.t > 0.0, "{case}");
            assert!(toward.radius >= uniform.radius / 2.0, "{case}");
            assert!(toward.certificate.holds, "{case}: {:?}", toward.certificate);
            assert_eq!(toward.certificate.groups, m, "{case}");
            assert!(toward.certificate.min_uniform_weight >= 0.0, "{case}");
            // Off-diagonal mass: the mistakes of the centre's classifier.
            let mistakes = |c: &nalgebra::DVector<f64>| c.iter().sum::<f64>();
            assert!(
                mistakes(toward.sphere.center()) < mistakes(uniform.sphere.center()),
                "{case}"
            );
            // Each group's realisation of the centre has the centre's rates.
            for (g, r) in toward.centre.realisations.iter().enumerate() {
                let rates = set.mixture_rates(g, &r.mixture).unwrap() + set.center(g) * r.uniform;
                assert!((rates - toward.sphere.center()).amax() < 1e-9, "{case}");
            }
            // The uniform centre is the papers' sphere, unchanged.
            assert_eq!(uniform.centre.t, 0.0);
            assert_eq!(uniform.sphere.center(), &set.center(0));
        }
    }

    /// A point beyond what a group realizes along the line is refused,
    /// naming the field.
    #[test]
    fn a_centre_no_group_realizes_is_refused() {
        let set = sample(300, 2, Normalization::Rates);
        let line = set.accurate_line().unwrap();
        let reach = line
            .reach
            .iter()
            .map(|(c, _)| *c)
            .fold(f64::INFINITY, f64::min);
        assert!(reach > 0.0);
        if reach < 1.0 {
            let err = set
                .centre_toward_accurate(&line, 1.0)
                .unwrap_err()
                .to_string();
            assert!(err.contains("query_center"), "{err}");
        }
        let err = set
            .centre_toward_accurate(&line, 1.5)
            .unwrap_err()
            .to_string();
        assert!(err.contains("query_center"), "{err}");
    }
}

mod faces_on_use {
    use metric_elicitation::population::{ExpectedMulticlass, MulticlassPopulation};

    /// A face of k = 10⁵ classes is computed without the k² face table
    /// up front (152·k² bytes, 1.5 TB, aborted the process): the faces are
    /// made on use.
    #[test]
    fn a_large_k_makes_its_faces_on_use() {
        let k = 100_000;
        let share = 1.0 / k as f64;
        let pop = ExpectedMulticlass::<f64>::from_columns(vec![vec![share; 2]; k]).unwrap();
        let r = pop.rbo_diagonal(7, k - 1, &0.5, &0.5).unwrap();
        assert_eq!(r.len(), k);
        assert!(r.iter().all(|v| v.is_finite()));
    }
}

/// The check questions' sequential rule: after the minimum they continue
/// while their answers decide nothing (the disagreement rate's 95 % Wilson
/// interval neither above 0.2 nor below 1/2).
#[test]
fn check_answers_are_undecided_while_their_interval_straddles() {
    use metric_elicitation::driver::interview::undecided;
    // 0 of 5: better than a coin (upper end 0.43); 0 of 3 cannot tell yet.
    assert!(!undecided(0, 5));
    assert!(undecided(0, 3));
    // 1 of 5 and 2 of 8: neither; 1 of 8: below 1/2 (upper end 0.47).
    assert!(undecided(1, 5));
    assert!(undecided(2, 8));
    assert!(!undecided(1, 8));
    // 3 of 5: contradictory (lower end 0.23).
    assert!(!undecided(3, 5));
    // Nothing judged: more checks would not decide it either.
    assert!(!undecided(0, 0));
}
