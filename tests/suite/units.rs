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
