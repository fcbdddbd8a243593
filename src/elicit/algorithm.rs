//! The one interface of a typed elicitation algorithm: what it asks about
//! ([`Elicitation::Point`]), what it returns ([`Elicitation::Estimate`]),
//! and how it runs against an oracle ([`Elicitation::elicit`]).
//!
//! An algorithm is built once from typed, validated settings (a
//! [`Search`] with its [`Tolerance`], a population or query space, the
//! family's own settings) and knows no I/O: reading a spec, presenting a
//! question to a person and reporting on an estimate belong to the spec
//! driver's adapters (`driver::adapter`, the `driver` feature). The
//! hidden metric of a simulated oracle is any [`crate::oracle::Metric`]
//! over the algorithm's points.
//!
//! # Examples
//! The general LPME (001 App. A, Alg. 2) as an [`Elicitation`]:
//! ```
//! use metric_elicitation::elicit::{Elicitation, Search};
//! use metric_elicitation::elicit::lpme::{Lpme, LpmeSettings};
//! use metric_elicitation::geometry::sphere::Sphere;
//! use metric_elicitation::oracle::{Counted, Simulated};
//! use metric_elicitation::search::Strategy;
//! use nalgebra::DVector;
//!
//! let sphere = Sphere::new(DVector::from_vec(vec![0.5; 3]), 0.2).unwrap();
//! let search = Search::new(1e-3, Strategy::Bisection).unwrap();
//! let lpme = Lpme::new(sphere, LpmeSettings::efficient(search));
//! let truth = DVector::from_vec(vec![0.6, -0.48, 0.64]);
//! let hidden = truth.clone();
//! let mut oracle = Counted::new(Simulated::new(move |z: &DVector<f64>| hidden.dot(z)));
//! let estimate = lpme.elicit(&mut oracle).unwrap();
//! assert!((&estimate.a - &truth).amax() < 2e-3);
//! assert_eq!(Some(oracle.queries()), lpme.expected_queries());
//! ```

use crate::error::Result;
use crate::oracle::{Oracle, QueryPoint};
use crate::scalar::Scalar;
use crate::search::{Strategy, Tolerance};

/// The search settings every procedure shares: the tolerance ε (validated
/// once, [`Tolerance`]) and the strategy of the one search primitive.
#[derive(Debug, Clone, PartialEq)]
pub struct Search<T> {
    /// The search tolerance ε (its unit is the procedure's search
    /// parameter: radians for angles, the weight m ∈ [0, 1] for faces).
    pub eps: Tolerance<T>,
    /// The search strategy.
    pub strategy: Strategy,
}

impl<T: Scalar> Search<T> {
    /// ε (checked: finite and > 0) with `strategy`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidEpsilon`].
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::elicit::Search;
    /// use metric_elicitation::search::Strategy;
    /// assert!(Search::new(0.01, Strategy::Golden).is_ok());
    /// assert!(Search::new(0.0, Strategy::Golden).is_err());
    /// ```
    pub fn new(eps: T, strategy: Strategy) -> Result<Self> {
        Ok(Search {
            eps: Tolerance::new(eps)?,
            strategy,
        })
    }
}

/// A typed elicitation algorithm at precision `T`. See the module docs.
pub trait Elicitation<T: Scalar> {
    /// What the oracle compares.
    type Point: QueryPoint + PartialEq + Clone + Send + Sync + 'static;
    /// The estimate.
    type Estimate;

    /// Whether every search runs along a curve on which a metric of the
    /// family is symmetric about its optimum (a linear metric along a
    /// circle of a sphere: LPME and LPM), or nearly so (a smooth metric
    /// along a circle of a small sphere: QPME, fair QPME and the cubic
    /// procedure, within the shift [`Strategy::Bisection`] bounds), so that
    /// bisection applies; other algorithms refuse it (false by default).
    const SYMMETRIC_SEARCHES: bool = false;

    /// Runs the algorithm against `oracle`.
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] when the oracle stops (carrying the
    /// progress), or the algorithm's own errors.
    fn elicit(&self, oracle: &mut dyn Oracle<Self::Point>) -> Result<Self::Estimate>;

    /// About how many queries a run takes (for "question 7 of about 28");
    /// exact where the algorithm's count does not depend on the answers.
    fn expected_queries(&self) -> Option<usize> {
        None
    }
}
