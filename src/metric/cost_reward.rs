//! Cost and reward infused diagonal linear metrics (004 §2):
//! ψ(d, r, c) = ⟨aᵈ, d⟩ + ⟨aʳ, r⟩ + ⟨aᶜ, c⟩.
//!
//! A classifier's statistics ([`Statistics`]) are its diagonal confusions
//! d (dᵢ = P(Y = i, h = i)) and the values of named attributes, each a
//! cost c ∈ [−B, 0] or a reward r ∈ [0, A] ([`Attribute`]). Attributes are
//! kept in the order they are declared (a spec's `attributes` list); the
//! paper's concatenation order a = (aᵈ, aʳ, aᶜ) is one such order.
//!
//! The weights are non-negative, a₁ᵈ > 0 (every weight is elicited as a
//! ratio to it) and ‖a‖₁ = 1 (004 §2, Table 1): [`CostRewardMetric::new`]
//! rejects anything else with [`Error::Assumption`] naming the condition.

use crate::error::{Error, Result};
use crate::oracle::{Metric, QueryPoint};
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::DVector;
use serde::{Deserialize, Serialize};

/// Whether an attribute is a cost (in [−B, 0], larger is better: a cost of
/// 0 is free) or a reward (in [0, A]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A cost, stored as a non-positive number.
    Cost,
    /// A reward, stored as a non-negative number.
    Reward,
}

impl Kind {
    /// `"cost"` or `"reward"`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cost => "cost",
            Kind::Reward => "reward",
        }
    }
}

impl std::str::FromStr for Kind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "cost" => Ok(Kind::Cost),
            "reward" => Ok(Kind::Reward),
            other => Err(Error::invalid(
                "kind",
                format!("unknown attribute kind {other:?} (expected cost or reward)"),
            )),
        }
    }
}

/// A named attribute of a classifier with its range: a cost in
/// [lower, upper] with upper ≤ 0 (the paper: [−B, 0]) or a reward with
/// lower ≥ 0 (the paper: [0, A]).
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute<T> {
    /// The attribute's name (a key of the metric table).
    pub name: String,
    /// Cost or reward.
    pub kind: Kind,
    /// The least value.
    pub lower: T,
    /// The largest value.
    pub upper: T,
}

impl<T: Scalar> Attribute<T> {
    /// An attribute with its range.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the attribute for an empty name,
    /// the reserved name `accuracy`, a non-finite or empty range
    /// (lower ≥ upper), a cost with upper > 0 or a reward with lower < 0.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::cost_reward::{Attribute, Kind};
    /// let cost = Attribute::new("cost", Kind::Cost, -0.3, 0.0).unwrap();
    /// assert_eq!(cost.span(), 0.3);
    /// assert!(Attribute::new("speed", Kind::Reward, -1.0, 5.0).is_err());
    /// ```
    pub fn new(name: impl Into<String>, kind: Kind, lower: T, upper: T) -> Result<Self> {
        let name = name.into();
        let field = format!("attributes.{name}");
        if name.trim().is_empty() || name == "accuracy" {
            return Err(Error::invalid(
                "attributes.name",
                format!(
                    "{name:?} is not a usable attribute name (empty or the reserved \"accuracy\")"
                ),
            ));
        }
        if !lower.finite() || !upper.finite() || lower >= upper {
            return Err(Error::invalid(
                field,
                format!("the range [{lower}, {upper}] must be finite with lower < upper"),
            ));
        }
        let zero = T::int(0);
        match kind {
            Kind::Cost if upper > zero => Err(Error::invalid(
                field,
                format!("a cost lies in [-B, 0]: its upper end must be <= 0, got {upper}"),
            )),
            Kind::Reward if lower < zero => Err(Error::invalid(
                field,
                format!("a reward lies in [0, A]: its lower end must be >= 0, got {lower}"),
            )),
            _ => Ok(Attribute {
                name,
                kind,
                lower,
                upper,
            }),
        }
    }

    /// A cost on [−b, 0].
    ///
    /// # Errors
    /// As [`Attribute::new`] (b must be > 0).
    pub fn cost(name: impl Into<String>, b: T) -> Result<Self> {
        Self::new(name, Kind::Cost, -b, T::int(0))
    }

    /// A reward on [0, a].
    ///
    /// # Errors
    /// As [`Attribute::new`] (a must be > 0).
    pub fn reward(name: impl Into<String>, a: T) -> Result<Self> {
        Self::new(name, Kind::Reward, T::int(0), a)
    }

    /// upper − lower.
    pub fn span(&self) -> T {
        self.upper.clone() - self.lower.clone()
    }

    /// Whether `value` lies in the range.
    pub fn contains(&self, value: &T) -> bool {
        self.lower <= *value && *value <= self.upper
    }
}

/// Which query space a [`Statistics`] point was built in: a face (r, i) of
/// the diagonal confusions, or the frontier of an attribute against the
/// accuracy of class r (0-based indices). Comparisons never mix spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// The RBO classifiers of the face (r, i) (002 Prop. 2, 004 §4.2.1).
    Face {
        /// The reference class r.
        reference: usize,
        /// The other class i.
        class: usize,
    },
    /// The quarter-ellipse frontier of attribute j against class r's
    /// accuracy (004 §4.2.2).
    Frontier {
        /// The reference class r.
        reference: usize,
        /// The attribute j (index into the attribute list).
        attribute: usize,
    },
}

/// The statistics of one classifier: its diagonal confusions and its
/// attribute values, with the query space it was built in.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistics<T> {
    /// dᵢ = P(Y = i, h = i).
    pub d: DVector<T>,
    /// One value per attribute, in declaration order.
    pub attributes: DVector<T>,
    /// Where the point comes from.
    pub space: Space,
}

impl<T: Scalar> QueryPoint for Statistics<T> {
    fn coords(&self) -> Vec<String> {
        self.d
            .iter()
            .chain(self.attributes.iter())
            .map(crate::scalar::Backend::encode)
            .collect()
    }

    fn values(&self) -> Vec<f64> {
        self.d
            .iter()
            .chain(self.attributes.iter())
            .map(crate::scalar::Backend::to_f64_lossy)
            .collect()
    }
}

/// A cost and reward infused DLPM: ψ = ⟨aᵈ, d⟩ + Σⱼ wⱼ·sⱼ over the
/// attributes (004 §2).
///
/// # Examples
/// ```
/// use metric_elicitation::metric::cost_reward::{CostRewardMetric, Space, Statistics};
/// use metric_elicitation::oracle::Metric;
/// use nalgebra::DVector;
/// let psi = CostRewardMetric::new(
///     DVector::from_vec(vec![0.10, 0.05]),
///     DVector::from_vec(vec![0.05, 0.80]),
/// ).unwrap();
/// let s = Statistics {
///     d: DVector::from_vec(vec![0.5, 0.0]),
///     attributes: DVector::from_vec(vec![0.0, -0.1]),
///     space: Space::Frontier { reference: 0, attribute: 1 },
/// };
/// assert!((psi.value(&s) - (0.05 - 0.08)).abs() < 1e-15);
/// assert!(CostRewardMetric::new(DVector::from_vec(vec![0.0, 0.5]), DVector::from_vec(vec![0.5])).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CostRewardMetric<T> {
    /// aᵈ: one weight per class.
    pub accuracy: DVector<T>,
    /// One weight per attribute, in declaration order.
    pub attributes: DVector<T>,
}

/// The assumption every condition of [`CostRewardMetric::new`] belongs to.
pub const ASSUMPTION: &str = "004 §2 (a >= 0, a_1^d > 0, ||a||_1 = 1)";

impl<T: Scalar> CostRewardMetric<T> {
    /// A metric with weights aᵈ (k ≥ 2) and one weight per attribute.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than two classes;
    /// [`Error::Assumption`] naming the condition for a weight that is not
    /// finite, a negative weight, a₁ᵈ = 0, or ‖a‖₁ ≠ 1 (beyond the rounding
    /// of the entries: |‖a‖₁ − 1| ≤ 8·dim·ε_mach).
    pub fn new(accuracy: DVector<T>, attributes: DVector<T>) -> Result<Self> {
        if accuracy.len() < 2 {
            return Err(Error::invalid(
                "accuracy",
                format!("needs at least two class weights, got {}", accuracy.len()),
            ));
        }
        let zero = T::int(0);
        let violation = |detail: String| Error::Assumption {
            assumption: ASSUMPTION.into(),
            detail,
        };
        for (name, v) in Self::named(&accuracy, &attributes) {
            if !v.finite() {
                return Err(violation(format!("{name} = {v} is not finite")));
            }
            if *v < zero {
                return Err(violation(format!("{name} = {v} is negative (a >= 0)")));
            }
        }
        if accuracy[0] <= zero {
            return Err(violation(
                "a_1^d = 0: every weight is elicited as a ratio to the class-1 accuracy weight (a_1^d > 0)".into(),
            ));
        }
        let dim = accuracy.len() + attributes.len();
        let sum = accuracy.sum() + attributes.sum();
        let tol = prec::ulps::<T>(8 * dim as i64);
        if (sum.clone() - T::int(1)).abs() > tol {
            return Err(violation(format!(
                "||a||_1 = {} (must be 1)",
                sum.to_f64_lossy()
            )));
        }
        Ok(CostRewardMetric {
            accuracy,
            attributes,
        })
    }

    /// The same preferences from any non-negative weights with a₁ᵈ > 0,
    /// divided by their sum.
    ///
    /// # Errors
    /// As [`CostRewardMetric::new`], except for the sum.
    pub fn normalized(accuracy: DVector<T>, attributes: DVector<T>) -> Result<Self> {
        let sum = accuracy.sum() + attributes.sum();
        if !sum.finite() || sum <= T::int(0) {
            return Self::new(accuracy, attributes);
        }
        Self::new(accuracy / sum.clone(), attributes / sum)
    }

    fn named<'a>(
        accuracy: &'a DVector<T>,
        attributes: &'a DVector<T>,
    ) -> impl Iterator<Item = (String, &'a T)> {
        accuracy
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("a_{}^d", i + 1), v))
            .chain(
                attributes
                    .iter()
                    .enumerate()
                    .map(|(j, v)| (format!("attribute weight {}", j + 1), v)),
            )
    }

    /// Number of classes k.
    pub fn classes(&self) -> usize {
        self.accuracy.len()
    }

    /// All weights, (aᵈ, attribute weights), in declaration order.
    pub fn weights(&self) -> DVector<T> {
        let k = self.accuracy.len();
        DVector::from_fn(k + self.attributes.len(), |i, _| {
            if i < k {
                self.accuracy[i].clone()
            } else {
                self.attributes[i - k].clone()
            }
        })
    }

    /// ψ = ⟨aᵈ, d⟩ + ⟨w, s⟩ with each inner product summed left to right
    /// from its first term (the order `rank` evaluates in,
    /// [`crate::driver::rank`]); with no attributes, ⟨aᵈ, d⟩ alone.
    /// [`CostRewardMetric::psi`] uses nalgebra's dot products, which sum
    /// eight or more entries in interleaved partial sums; the two can
    /// differ in the last bits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `d` does not have one entry per
    /// class or `s` one per attribute.
    pub fn psi_left_to_right(&self, d: &DVector<T>, s: &DVector<T>) -> Result<T> {
        if d.len() != self.accuracy.len() || s.len() != self.attributes.len() {
            return Err(Error::invalid(
                "statistics",
                format!(
                    "a metric of {} classes and {} attributes evaluated on {} classes and {} attributes",
                    self.accuracy.len(),
                    self.attributes.len(),
                    d.len(),
                    s.len()
                ),
            ));
        }
        let accuracy = crate::scalar::dot(&self.accuracy, d);
        if self.attributes.is_empty() {
            return Ok(accuracy);
        }
        Ok(accuracy + crate::scalar::dot(&self.attributes, s))
    }

    /// ψ at a classifier's statistics.
    pub fn psi(&self, s: &Statistics<T>) -> T {
        self.accuracy.dot(&s.d) + self.attributes.dot(&s.attributes)
    }
}

impl<T: Scalar> Metric<Statistics<T>> for CostRewardMetric<T> {
    type Value = T;
    fn value(&self, s: &Statistics<T>) -> T {
        self.psi(s)
    }
}
