//! A k-class population made of k − 1 copies of the 003 App. A binary
//! problem, one per class pair (1, i): every face (1, i) of its diagonal
//! confusion set is the same binary face for every k.

use super::binned::check_face;
use super::{BinaryPopulation, LogisticUniform, MulticlassPopulation, Side};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use nalgebra::DVector;

/// X is one of k − 1 equally likely blocks j = 2..k (1-based classes) and a
/// position u ~ U[−1, 1]; in block j only classes 1 and j occur, with
/// P(Y = 1 | j, u) = 1/(1 + e^{a·u}) as in 003 App. A.
///
/// On the face (1, i) the RBO classifier predicts class 1 in every other
/// block (class i is absent there) and thresholds η in block i, so
/// ψ(ν(m; 1, i)) = const + (a₁ + aᵢ)/(k − 1) · (the 003 binary face at m).
/// The face's shape is therefore the same for every k; only its scale
/// changes. That makes it the population on which a growth with k of
/// 002 Thm. 1's constant would be the procedure's, not the population's
/// (on [`super::LogisticMulticlass`] the other classes dilute each face
/// more as k grows). Confusions are in closed form at the working precision.
///
/// # Examples
/// ```
/// use metric_elicitation::population::{MulticlassPopulation, PairBlocks};
/// let pop = PairBlocks::new(4, 5.0).unwrap();
/// let d = pop.rbo_diagonal(0, 2, &1.0, &1.0).unwrap();
/// // Class 1 is predicted in blocks 2 and 4 (mass 1/2 each of 1/3), and
/// // the threshold 1/2 splits block 3 symmetrically.
/// assert!((d[0] - d[2] - 1.0 / 3.0).abs() < 1e-15);
/// assert_eq!((d[1], d[3]), (0.0, 0.0));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PairBlocks<T> {
    k: usize,
    block: LogisticUniform<T>,
}

impl<T: Scalar> PairBlocks<T> {
    /// k classes, each block the 003 App. A population with parameter a.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for k < 2 or an invalid a (see
    /// [`LogisticUniform::new`]).
    pub fn new(k: usize, a: T) -> Result<Self> {
        if k < 2 {
            return Err(Error::invalid("k", "needs at least two classes"));
        }
        Ok(PairBlocks {
            k,
            block: LogisticUniform::new(a)?,
        })
    }

    /// The share of one class of one block in the whole population:
    /// ζ = 1/2 of a block of mass 1/(k − 1).
    fn half_block(&self) -> T {
        T::ratio(1, 2 * (self.k as i64 - 1))
    }
}

impl<T: Scalar> MulticlassPopulation<T> for PairBlocks<T> {
    fn classes(&self) -> usize {
        self.k
    }

    fn priors(&self) -> Vec<T> {
        let mut p = vec![self.half_block(); self.k];
        p[0] = T::ratio(1, 2);
        p
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        check_face(self.k, k1, k2, w1, w2)?;
        let mut d = DVector::from_element(self.k, T::int(0));
        let scale = T::ratio(1, self.k as i64 - 1);
        let zero = T::int(0);
        for j in 1..self.k {
            let present = |c: usize| c == 0 || c == j;
            match (present(k1), present(k2)) {
                (true, true) => {
                    // Predict class 1 (index 0) iff w₀η ≥ w_j(1 − η): the
                    // upper-boundary threshold classifier of the block.
                    let (m11, m00) = if k1 == 0 { (w1, w2) } else { (w2, w1) };
                    let c = self.block.threshold_confusion(m11, m00, Side::Upper);
                    d[0] += c.tp * scale.clone();
                    d[j] += c.tn * scale.clone();
                }
                // k2 is absent: w1·η_{k1} ≥ 0 = w2·η_{k2} everywhere.
                (true, false) => d[k1] += self.half_block(),
                // k1 is absent: it wins only the ties 0 ≥ w2·η_{k2}.
                (false, true) if *w2 > zero => d[k2] += self.half_block(),
                _ => {}
            }
        }
        Ok(d)
    }
}
