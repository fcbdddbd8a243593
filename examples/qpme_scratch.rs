use metric_elicitation::elicit::lpme::{AngleOrder, LpmeSettings, Orthant};
use metric_elicitation::elicit::qpme::*;
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::quadratic::GradientField;
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::reproduce::quadratic::*;
use metric_elicitation::search::Strategy;
use nalgebra::DVector;
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let eps_eff: f64 = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(1e-2);
    let strategy = match args.get(2).map(|s| s.as_str()) {
        Some("adaptive") => Strategy::Adaptive,
        Some("paper") => Strategy::Paper,
        _ => Strategy::Golden,
    };
    for q in 2..=5 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(q as u64);
        let sphere = Sphere::new(DVector::from_element(q, 1.0 / q as f64), 0.2).unwrap();
        let mut stats = [[0f64; 5]; 3];
        let trials = 200;
        let mut fails = [0usize; 3];
        for _ in 0..trials {
            let metric = random_quadratic::<f64>(&mut rng, q, Shape::Nsd).unwrap();
            let settings = [
                QpmeSettings::paper(1e-2, 5e-3),
                QpmeSettings {
                    estimator: Estimator::Fit,
                    ..QpmeSettings::paper(1e-2, 5e-3)
                },
                QpmeSettings {
                    lpme: LpmeSettings {
                        eps: eps_eff,
                        strategy,
                        cycles: 1,
                        orthant: Orthant::Detect,
                        order: AngleOrder::Reverse,
                        stop_early: false,
                    },
                    small_radius: 5e-3,
                    estimator: Estimator::Fit,
                },
            ];
            for (n, s) in settings.iter().enumerate() {
                let m = metric.clone();
                let mut oracle = Counted::new(Simulated::new(move |r: &DVector<f64>| m.value(r)));
                match qpme(&sphere, &mut oracle, s) {
                    Ok(e) => {
                        let (ea, eb) = metric.errors(&e.a, &e.b);
                        stats[n][0] += ea;
                        stats[n][1] += eb;
                        stats[n][2] = stats[n][2].max(ea);
                        stats[n][3] = stats[n][3].max(eb);
                        stats[n][4] += oracle.posed() as f64;
                    }
                    Err(_) => fails[n] += 1,
                }
            }
        }
        for (n, name) in ["paper/Q10", "paper/fit", "efficient"].iter().enumerate() {
            let ok = (trials - fails[n]) as f64;
            println!("q={q} {name:10}: mean a {:.2e} B {:.2e} max a {:.2e} B {:.2e} queries {:.1} fails {}", stats[n][0]/ok, stats[n][1]/ok, stats[n][2], stats[n][3], stats[n][4]/ok, fails[n]);
        }
    }
}
