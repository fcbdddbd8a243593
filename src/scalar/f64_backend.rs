//! The `f64` backend.

use super::Backend;
use crate::error::Error;

impl Backend for f64 {
    fn precision_bits() -> u32 {
        f64::MANTISSA_DIGITS
    }

    fn backend_name() -> String {
        "f64".to_string()
    }

    fn encode(&self) -> String {
        // Rust prints the shortest decimal that parses back to the same bits.
        format!("{self:e}")
    }

    fn decode(text: &str) -> Result<Self, Error> {
        text.trim().parse::<f64>().map_err(|_| Error::Parse {
            what: "f64".into(),
            text: text.to_string(),
        })
    }

    fn to_f64_lossy(&self) -> f64 {
        *self
    }

    fn set_product(&mut self, x: &Self, y: &Self) {
        *self = x * y;
    }

    fn set_sum(&mut self, x: &Self, y: &Self) {
        *self = x + y;
    }

    fn set_difference(&mut self, x: &Self, y: &Self) {
        *self = x - y;
    }

    fn inverse_golden_ratio() -> Self {
        (5f64.sqrt() - 1.0) / 2.0
    }

    fn neg_assign(&mut self) {
        *self = -*self;
    }

    fn mul_pow2_assign(&mut self, k: i32) {
        *self *= 2f64.powi(k);
    }

    fn is_finite_in_place(&self) -> bool {
        f64::is_finite(*self)
    }
}
