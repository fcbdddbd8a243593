//! Precision-generic numerical integration: adaptive composite
//! Gauss–Legendre, with nodes and weights computed at the working precision
//! (Newton's method on the Legendre recurrence), so an MPFR run is not
//! limited by an f64 integral.

use crate::error::{Error, Result};
use crate::prec;
use crate::scalar::Scalar;

/// An n-point Gauss–Legendre rule on [−1, 1] at the working precision.
#[derive(Debug, Clone)]
pub struct GaussLegendre<T> {
    nodes: Vec<T>,
    weights: Vec<T>,
}

impl<T: Scalar> GaussLegendre<T> {
    /// The n-point rule. Nodes are the roots of Pₙ, found by Newton's method
    /// from Tricomi's initial guesses cos(π(i − ¼)/(n + ½)), iterated until
    /// the step is below the backend's epsilon; weights 2/((1 − x²)·Pₙ′(x)²).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n < 2; [`Error::IllConditioned`] if
    /// Newton's method does not converge.
    pub fn new(n: usize) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid(
                "n",
                "a Gauss-Legendre rule needs at least 2 nodes",
            ));
        }
        let nt = T::from_u64(n as u64).unwrap_or_else(T::one);
        let (one, two) = (T::int(1), T::int(2));
        let tol = prec::ulps::<T>(4);
        let mut nodes = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for i in 1..=n {
            let num = T::from_u64(4 * i as u64 - 1).unwrap_or_else(T::one);
            let mut x = (T::pi() * num / (T::int(4) * nt.clone() + two.clone())).cos();
            let mut converged = false;
            for _ in 0..200 {
                let (p, dp) = legendre(n, &x);
                let step = p / dp;
                x -= &step;
                if step.abs() <= tol.clone() * (one.clone() + x.clone().abs()) {
                    converged = true;
                    break;
                }
            }
            if !converged {
                return Err(Error::IllConditioned {
                    what: "Gauss-Legendre nodes".into(),
                    detail: format!("Newton's method did not converge for node {i} of {n}"),
                });
            }
            let (_, dp) = legendre(n, &x);
            let w = two.clone() / ((one.clone() - x.clone() * x.clone()) * dp.clone() * dp);
            nodes.push(x);
            weights.push(w);
        }
        Ok(GaussLegendre { nodes, weights })
    }

    /// A rule sized for the backend: about one node per 4 bits of precision
    /// (20 for f64, 64 for 256 bits), enough for integrands analytic in a
    /// neighbourhood of the (sub)interval.
    ///
    /// # Errors
    /// As [`GaussLegendre::new`].
    pub fn for_precision() -> Result<Self> {
        Self::new((T::precision_bits() as usize / 4).max(20))
    }

    /// ∫_a^b f by this rule.
    pub fn integrate(&self, f: &mut impl FnMut(&T) -> T, a: &T, b: &T) -> T {
        let two = T::int(2);
        let half = (b.clone() - a.clone()) / two.clone();
        let mid = (a.clone() + b.clone()) / two;
        let mut sum = T::int(0);
        for (x, w) in self.nodes.iter().zip(&self.weights) {
            sum += w.clone() * f(&(mid.clone() + half.clone() * x.clone()));
        }
        sum * half
    }

    /// ∫_a^b f, adaptively: a panel is split in two until the rule on the
    /// panel and the sum over its halves agree to `ulps(64)·(|I| + 1)`
    /// (at most 24 levels).
    pub fn integrate_adaptive(&self, f: &mut impl FnMut(&T) -> T, a: &T, b: &T) -> T {
        let whole = self.integrate(f, a, b);
        self.refine(f, a, b, whole, 0)
    }

    fn refine(&self, f: &mut impl FnMut(&T) -> T, a: &T, b: &T, whole: T, depth: usize) -> T {
        let mid = (a.clone() + b.clone()) / T::int(2);
        let left = self.integrate(f, a, &mid);
        let right = self.integrate(f, &mid, b);
        let halves = left.clone() + right.clone();
        let tol = prec::ulps::<T>(64) * (halves.clone().abs() + T::int(1));
        if (halves.clone() - whole).abs() <= tol || depth >= 24 {
            halves
        } else {
            self.refine(f, a, &mid, left, depth + 1) + self.refine(f, &mid, b, right, depth + 1)
        }
    }
}

/// (Pₙ(x), Pₙ′(x)) by the three-term recurrence.
fn legendre<T: Scalar>(n: usize, x: &T) -> (T, T) {
    let one = T::int(1);
    let (mut p0, mut p1) = (one.clone(), x.clone());
    for j in 2..=n {
        let jt = T::from_u64(j as u64).unwrap_or_else(T::one);
        let p2 = ((T::int(2) * jt.clone() - one.clone()) * x.clone() * p1.clone()
            - (jt.clone() - one.clone()) * p0.clone())
            / jt;
        p0 = p1;
        p1 = p2;
    }
    let nt = T::from_u64(n as u64).unwrap_or_else(T::one);
    let dp = nt * (x.clone() * p1.clone() - p0) / (x.clone() * x.clone() - one);
    (p1, dp)
}
