//! The metric families of the papers as [`super::Family`]s: each gives
//! the features that make its metric linear in its parameters, the
//! parameters' cone and normalization, the error measure its own
//! procedures report, and candidate questions from the query space its
//! paper's procedure uses.
//!
//! | family | paper | D | d | error measure |
//! |---|---|---|---|---|
//! | [`BinaryLpm`] | 003 §5.1, App. C | 2 | 1 | max(\|m11 − m̂11\|, \|m00 − m̂00\|), ‖m‖₂ = 1 |
//! | [`Dlpm`] | 002 Alg. 1 | k | k − 1 | max\|a − â\|, ‖a‖₁ = 1 |
//! | [`SphereLpme`] | 002 Alg. 2, 001 App. A | q | q − 1 | ‖a − â‖₂, ‖a‖₂ = 1 |
//! | [`CostReward`] | 004 Alg. 1 | k + A | k + A − 1 | max\|a − â\|, ‖a‖₁ = 1 |
//! | [`Qpme`] | 000 Alg. 1 | q + q(q+1)/2 | D − 1 | max(‖a − â‖₂, ‖B − B̂‖_F), ‖a‖² + ‖B‖²_F = 1 |
//! | [`Cubic`] | 000 §8 | q + q(q+1)/2 + q(q+1)(q+2)/6 | D − 1 | max of ‖a − â‖₂, ‖B − B̂‖_F, ‖C − Ĉ‖ |
//! | [`Fpme`] | 001 Alg. 1 | q(1 + C(m,2)) | D − 1 | max(‖a − â‖₂, ‖vec(B − B̂)‖₂, \|λ − λ̂\|) |
//! | [`FairQpme`] | 000 §4.3 | q + C(m,2)·q(q+1)/2 | D − 1 | max(‖a − â‖₂, Σ‖B^{uv} − B̂^{uv}‖_F, \|λ − λ̂\|) |
//!
//! **LFPM (003 §5.2) is refused.** A linear-fractional metric
//! (p11·TP + p00·TN)/(q11·TP + q00·TN + q0) is not linear in its
//! parameters: its preference between two confusions is the sign of
//! N(x)D(y) − N(y)D(x), bilinear in (p, q), so no feature map makes it a
//! half-space of one parameter vector, and its coefficients are
//! identified only up to what the two boundary hyperplanes fix (003
//! Table 2 judges it by φ̂/φ, not by coefficients). It could be written
//! with features x ⊗ y of the *pair* over the 6 products, but the
//! posterior would then live on a quadric, not a cone; the engine does
//! not do that.

mod binary;
mod faces;
mod fair;
mod quadratic;
mod sphere;

pub use binary::BinaryLpm;
pub use faces::{CostReward, Dlpm};
pub use fair::{FairQpme, Fpme};
pub use quadratic::{Cubic, Qpme};
pub use sphere::SphereLpme;
