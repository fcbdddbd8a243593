use metric_elicitation::elicit::lpme::LpmeSettings;
use metric_elicitation::elicit::qpme::*;
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::quadratic::*;
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let q = 20;
    let a = DVector::from_fn(q, |_, _| rng.random::<f64>());
    let m = DMatrix::from_fn(q, q, |_, _| rng.random::<f64>() - 0.5);
    let b = &m * m.transpose() + DMatrix::identity(q, q);
    let metric = QuadraticMetric::new(a, b).unwrap();
    let sphere = Sphere::new(DVector::from_element(q, 0.0), 1.0).unwrap();
    let settings = QpmeSettings {
        lpme: LpmeSettings::paper(Tolerance::new(1e-2).unwrap(), Strategy::Paper, 4),
        small_radius: 5e-3,
        estimator: Estimator::Fit,
        window: None,
    };
    let mt = metric.clone();
    let mut oracle = Counted::new(Simulated::new(move |r: &DVector<f64>| mt.value(r)));
    let e = qpme(&sphere, &mut oracle, &settings).unwrap();
    println!("{}", e.queries);
}
