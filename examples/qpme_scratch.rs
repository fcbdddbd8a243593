use metric_elicitation::elicit::cubic::*;
use metric_elicitation::elicit::fair_qpme::*;
use metric_elicitation::elicit::lpme::LpmeSettings;
use metric_elicitation::elicit::qpme::*;
use metric_elicitation::geometry::groups::Rates;
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::reproduce::quadratic::*;
use metric_elicitation::search::Strategy;
use nalgebra::DVector;
use rand::SeedableRng;

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for rates in [Rates::Diagonal, Rates::General] {
        for k in 2..=3 {
            for m in 2..=6 {
                let mut w = [0f64; 3];
                for _ in 0..10 {
                    let groups = random_groups::<f64>(&mut rng, k, m, rates, None).unwrap();
                    let q = groups.dim();
                    let metric = random_fair::<f64>(&mut rng, q, m, rates).unwrap();
                    let settings = FairSettings {
                        lpme: LpmeSettings::paper(1e-2, Strategy::Adaptive, 3),
                        small_radius: 5e-3,
                        estimator: Estimator::Fit,
                    };
                    match fair_qpme_with(
                        &groups,
                        &mut FairExactProbe::new(&metric, &groups),
                        &settings,
                    ) {
                        Ok(e) => {
                            let (a, b, l) = metric.errors(&e.a, &e.b, &e.lambda);
                            w[0] = w[0].max(a);
                            w[1] = w[1].max(b);
                            w[2] = w[2].max(l);
                        }
                        Err(e) => println!("err {e}"),
                    }
                }
                println!(
                    "{rates:?} k={k} m={m}: {:.1e} {:.1e} {:.1e}",
                    w[0], w[1], w[2]
                );
            }
        }
    }
    for q in 2..=4 {
        let mut w = [0f64; 6];
        for _ in 0..10 {
            let metric = random_cubic::<f64>(&mut rng, q).unwrap();
            let sphere = Sphere::new(DVector::from_element(q, 0.5), 0.2).unwrap();
            for (n, d) in [CubicDesign::Minimal, CubicDesign::Nested]
                .into_iter()
                .enumerate()
            {
                match cubic_with(&sphere, &mut ExactProbe::new(&metric), &5e-3, d) {
                    Ok(e) => {
                        let (a, b, c) = metric.errors(&e.a, &e.b, &e.c);
                        w[3 * n] = w[3 * n].max(a);
                        w[3 * n + 1] = w[3 * n + 1].max(b);
                        w[3 * n + 2] = w[3 * n + 2].max(c);
                    }
                    Err(e) => println!("cubic err {e}"),
                }
            }
            match two_level(&metric, &sphere, &5e-3) {
                Ok((a, b, c)) => {
                    let (ea, eb, ec) = metric.errors(&a, &b, &c);
                    println!("two-level q={q}: {ea:.2e} {eb:.2e} {ec:.2e}");
                }
                Err(e) => println!("two-level err {e}"),
            }
        }
        println!(
            "cubic q={q}: minimal {:.1e} {:.1e} {:.1e} nested {:.1e} {:.1e} {:.1e}",
            w[0], w[1], w[2], w[3], w[4], w[5]
        );
    }
}
