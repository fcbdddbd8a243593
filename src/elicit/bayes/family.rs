//! What the engine needs to know of a metric family: a feature map that
//! makes the metric linear in its parameters, the parameters' cone and
//! normalization, the family's own error measure, and its query space.

use super::select::View;
use crate::error::Result;
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand_chacha::ChaCha8Rng;

/// The prior over the parameter cone, and with it the radial decomposition
/// θ = r·u the sampler works in (the likelihood depends on the direction u
/// only, so r is drawn afresh from its law at every move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    /// The standard Gaussian on ℝ^D restricted to the cone: directions
    /// u = θ/‖θ‖₂ uniform on the unit sphere ∩ cone, r = ‖θ‖₂ ~ χ_D.
    Gaussian,
    /// Independent Exp(1) coordinates on the non-negative orthant ∩ cone:
    /// directions u = θ/‖θ‖₁ uniform on the simplex (Dirichlet(1)),
    /// r = ‖θ‖₁ ~ Gamma(D, 1).
    Exponential,
}

/// The sign a coordinate of θ is constrained to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignConstraint {
    /// Any sign.
    Free,
    /// θᵢ ≥ 0.
    NonNegative,
    /// θᵢ ≤ 0.
    NonPositive,
}

/// The parameter cone's sign part: one constraint per coordinate, and
/// whether the negated orthant is allowed as well (a binary metric that is
/// either increasing or decreasing in both rates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cone {
    /// One constraint per coordinate of θ.
    pub signs: Vec<SignConstraint>,
    /// Whether −θ is admissible wherever θ is (the union of the orthant and
    /// its negative).
    pub or_negated: bool,
}

impl Cone {
    /// No sign constraint in `d` coordinates.
    pub fn free(d: usize) -> Self {
        Cone {
            signs: vec![SignConstraint::Free; d],
            or_negated: false,
        }
    }

    /// Every coordinate non-negative.
    pub fn nonnegative(d: usize) -> Self {
        Cone {
            signs: vec![SignConstraint::NonNegative; d],
            or_negated: false,
        }
    }

    fn holds<T: Scalar>(signs: &[SignConstraint], theta: &[T], flip: bool) -> bool {
        let zero = T::int(0);
        signs.iter().zip(theta).all(|(s, x)| {
            let (pos, neg) = (*x >= zero, *x <= zero);
            match (s, flip) {
                (SignConstraint::Free, _) => true,
                (SignConstraint::NonNegative, false) | (SignConstraint::NonPositive, true) => pos,
                (SignConstraint::NonPositive, false) | (SignConstraint::NonNegative, true) => neg,
            }
        })
    }

    /// Whether `theta` satisfies the sign constraints (or their negation,
    /// when allowed).
    pub fn contains<T: Scalar>(&self, theta: &[T]) -> bool {
        Self::holds(&self.signs, theta, false)
            || (self.or_negated && Self::holds(&self.signs, theta, true))
    }
}

/// x > 0, false for NaN: the one test of a positive scale or norm.
pub(crate) fn positive<T: Scalar>(x: &T) -> bool {
    *x > T::int(0)
}

/// A metric family linear in its parameters, as the engine sees it.
///
/// A parameter vector θ ∈ ℝ^D lies in a cone ([`Family::cone`] and
/// [`Family::admissible`]); the metric it stands for has the value
/// φ(x) = ⟨θ/s(θ), f(x)⟩ + const at a query point x, with f the feature
/// map ([`Family::features`]) and s(θ) > 0 the family's normalization
/// ([`Family::scale`], homogeneous of degree one), so θ and cθ (c > 0) are
/// the same metric and θ/s(θ) is the metric in the family's own units
/// (what a Bradley–Terry temperature is measured against). The constant
/// is the same for both points of a comparison.
///
/// The family also says how a normalized θ reads as the family's
/// parameters ([`Family::report`], e.g. (a, B, λ) flattened) and how far
/// apart two such readings are in the error measure its own procedures
/// report ([`Family::error`]); where the questions come from
/// ([`Family::candidates`], from the family's query space); and how a
/// normalized θ becomes the family's metric type ([`Family::metric`]).
pub trait Family<T: Scalar>: Sync {
    /// What the oracle compares.
    type Point: Clone + Send + Sync;
    /// The family's metric type in [`crate::metric`].
    type Metric;

    /// The family's name in messages ("binary LPM", "LPME q = 6", …).
    fn name(&self) -> String;

    /// D, the length of θ.
    fn dim(&self) -> usize;

    /// d, the free parameters after the normalization (the `d` of the
    /// information bound d·log₂(1/ε)); D − 1 unless the family says
    /// otherwise.
    fn free(&self) -> usize {
        self.dim().saturating_sub(1)
    }

    /// The prior (and radial decomposition).
    fn prior(&self) -> Prior;

    /// The sign constraints of θ.
    fn cone(&self) -> Cone;

    /// Constraints beyond the signs (e.g. positive semi-definite blocks),
    /// checked for every proposal; the set must be a cone (closed under
    /// positive scaling). The default admits everything.
    fn admissible(&self, _theta: &[T]) -> bool {
        true
    }

    /// s(θ) > 0 on the cone, homogeneous of degree one: θ/s(θ) is the
    /// metric in the family's normalization.
    fn scale(&self, theta: &[T]) -> T;

    /// f(x) into `out` (length D).
    fn features(&self, x: &Self::Point, out: &mut [T]);

    /// The numbers a person is shown for a point (rates or confusions, in
    /// the units of [`super::BayesSettings::min_visible`]); two points
    /// closer than the minimum visible difference in every one of them are
    /// never asked about.
    fn shown(&self, x: &Self::Point) -> Vec<T>;

    /// Names of the reported parameters, in the order of
    /// [`Family::report`].
    fn report_names(&self) -> Vec<String>;

    /// The family's parameters of a normalized θ (θ/s(θ)) into `out`
    /// (length `report_names().len()`).
    fn report(&self, normalized: &[T], out: &mut [T]);

    /// The distance of two reports in the family's error measure.
    fn error(&self, x: &[T], y: &[T]) -> T;

    /// Candidate questions for the current posterior, from the family's
    /// query space (the engine scores them by expected information and
    /// keeps the best visible one). The [`View`] offers the posterior's
    /// summary and the helpers [`View::bisect`] and [`View::pencil`].
    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(Self::Point, Self::Point)>
    where
        Self: Sized;

    /// A random pair of plausible points of the query space (check
    /// questions, and the fallback when no candidate splits the posterior).
    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(Self::Point, Self::Point)>;

    /// The family's metric of a normalized θ.
    ///
    /// # Errors
    /// The metric type's own checks (e.g. an estimate outside the family).
    fn metric(&self, normalized: &[T]) -> Result<Self::Metric>;

    /// The normalized θ of a metric of the family (the inverse of
    /// [`Family::metric`]): for simulations and tests.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a metric of another shape.
    fn parameters(&self, metric: &Self::Metric) -> Result<DVector<T>>;
}
