//! Linear metrics of rates over a sphere: 002 Alg. 2 (LPM, all weights
//! ≤ 0) and the general LPME of 001 App. A (any signs).

use crate::elicit::bayes::family::positive;
use crate::elicit::bayes::family::View;
use crate::elicit::bayes::family::{Cone, Family, Prior, SignConstraint};
use crate::elicit::bayes::posterior::Normals;
use crate::error::{Error, Result};
use crate::geometry::sphere::Sphere;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;

/// A unit linear metric ⟨a, z⟩ of q rates (‖a‖₂ = 1), asked about points of
/// a sphere S(o, ρ) inside the query space (002 §3.2, 001 App. A): θ = a,
/// f(z) = z, D = q, d = q − 1, error ‖a − â‖₂.
///
/// Any direction of difference is a pair of the sphere: a question with
/// difference Δf ∝ u is o + ρ(c·u ± s·â⊥) against o + ρ(−c·u ± s·â⊥) with
/// â⊥ the estimate's part orthogonal to u (c² + s² = 1), two classifiers
/// near the estimate's best point of the sphere whose values differ along
/// u. The directions u are the posterior's widest ones turned to cut it in
/// half ([`View::pencil`] with J = I).
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, AnswerModel, families::SphereLpme};
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::oracle::Simulated;
/// use nalgebra::{dvector, DVector};
/// let sphere = Sphere::new(DVector::from_element(3, 0.5), 0.2).unwrap();
/// let family = SphereLpme::new(sphere);
/// let truth = dvector![0.6, -0.48, 0.64];
/// let t = truth.clone();
/// let mut person = Simulated::new(move |z: &DVector<f64>| t.dot(z));
/// let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap())
///     .answers(AnswerModel::Mistakes { p: 0.0 })
///     .build()
///     .unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// assert!((est.metric.unwrap() - truth).norm() <= 0.05);
/// ```
#[derive(Debug, Clone)]
pub struct SphereLpme<T: Scalar> {
    sphere: Sphere<T>,
    signs: Vec<SignConstraint>,
}

impl<T: Scalar> SphereLpme<T> {
    /// Any signs (001 App. A's LPME).
    pub fn new(sphere: Sphere<T>) -> Self {
        let q = sphere.dim();
        SphereLpme {
            sphere,
            signs: vec![SignConstraint::Free; q],
        }
    }

    /// Every weight ≤ 0: 002 Alg. 2's monotonically decreasing LPM of the
    /// off-diagonal confusions.
    pub fn lpm(sphere: Sphere<T>) -> Self {
        let q = sphere.dim();
        SphereLpme {
            sphere,
            signs: vec![SignConstraint::NonPositive; q],
        }
    }

    /// Known signs per coordinate.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `signs` for the wrong length.
    pub fn with_signs(sphere: Sphere<T>, signs: Vec<SignConstraint>) -> Result<Self> {
        if signs.len() != sphere.dim() {
            return Err(Error::invalid(
                "signs",
                format!("{} signs for q = {}", signs.len(), sphere.dim()),
            ));
        }
        Ok(SphereLpme { sphere, signs })
    }

    /// The query sphere.
    pub fn sphere(&self) -> &Sphere<T> {
        &self.sphere
    }

    /// The two points o + ρ(±c·û + s·â⊥).
    fn realize(
        &self,
        u: &DVector<T>,
        estimate: &DVector<T>,
        c: &T,
    ) -> Option<(DVector<T>, DVector<T>)> {
        let un = u.norm();
        if !positive(&un) {
            return None;
        }
        let u = u / un;
        let mut perp = estimate - &u * estimate.dot(&u);
        let pn = perp.norm();
        let s = (T::int(1) - c.clone() * c.clone()).max(T::int(0)).sqrt();
        if pn > T::epsilon().sqrt() {
            perp /= pn;
        } else {
            perp.fill(T::int(0));
        }
        let along = &u * c.clone();
        let side = perp * s;
        let a = self.sphere.point(&(&side + &along)).ok()?;
        let b = self.sphere.point(&(side - along)).ok()?;
        Some((a, b))
    }
}

impl<T: Scalar> Family<T> for SphereLpme<T> {
    type Point = DVector<T>;
    type Metric = DVector<T>;

    fn name(&self) -> String {
        format!("LPME q = {}", self.sphere.dim())
    }

    fn dim(&self) -> usize {
        self.sphere.dim()
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        Cone {
            signs: self.signs.clone(),
            or_negated: false,
        }
    }

    fn scale(&self, theta: &[T]) -> T {
        theta
            .iter()
            .fold(T::int(0), |s, x| s + x.clone() * x.clone())
            .sqrt()
    }

    fn features(&self, x: &DVector<T>, out: &mut [T]) {
        out.clone_from_slice(x.as_slice());
    }

    fn shown(&self, x: &DVector<T>) -> Vec<T> {
        x.as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        (1..=self.sphere.dim()).map(|i| format!("a_{i}")).collect()
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        out.clone_from_slice(normalized);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        x.iter()
            .zip(y)
            .fold(T::int(0), |s, (a, b)| {
                let d = a.clone() - b.clone();
                s + d.clone() * d
            })
            .sqrt()
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        _rng: &mut ChaCha8Rng,
    ) -> Vec<(DVector<T>, DVector<T>)> {
        let q = self.sphere.dim();
        let jac = DMatrix::identity(q, q);
        let root_half = T::ratio(1, 2).sqrt();
        let mut out = Vec::new();
        for u in view.pencil(&jac, 3.min(q)) {
            for c in [T::int(1), root_half.clone()] {
                out.extend(self.realize(&u, view.estimate(), &c));
            }
        }
        out
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(DVector<T>, DVector<T>)> {
        let q = self.sphere.dim();
        let mut normals = Normals::<T>::new();
        let mut draw = |rng: &mut ChaCha8Rng| {
            let v = DVector::from_fn(q, |_, _| normals.draw(rng));
            let n = v.norm();
            (n > T::int(0)).then(|| v / n)
        };
        let (a, b) = (draw(rng)?, draw(rng)?);
        Some((self.sphere.point(&a).ok()?, self.sphere.point(&b).ok()?))
    }

    fn metric(&self, normalized: &[T]) -> Result<DVector<T>> {
        Ok(DVector::from_column_slice(normalized))
    }

    fn parameters(&self, metric: &DVector<T>) -> Result<DVector<T>> {
        let n = metric.norm();
        if metric.len() != self.sphere.dim() || !positive(&n) || !n.finite() {
            return Err(Error::invalid(
                "metric",
                format!("needs a non-zero direction of {} rates", self.sphere.dim()),
            ));
        }
        Ok(metric / n)
    }
}
