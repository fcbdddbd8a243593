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

    /// φ = Σᵢ rᵢ(aᵢ + ½(Br)ᵢ) from the whole matrix: rows in blocks of 16
    /// (then 4, then 1), each block's sums (Br)ᵢ kept in registers over one
    /// pass through the columns. That is q² products where the generic
    /// triangle makes q(q + 1)/2, but the triangle's columns are short
    /// loops of varying length, each with its own setup and reduction. At
    /// q = 20 a value takes 62–63 ns against 73–79 ns (2026-11-26,
    /// alternating runs). Every (Br)ᵢ is summed over the columns in
    /// order and Rust never fuses a multiply and an add, so the value is
    /// the same on every CPU whatever vector width the compiler uses.
    fn quadratic_form(a: &[f64], b: &[f64], r: &[f64]) -> Option<f64> {
        let q = r.len();
        (a.len() == q && b.len() == q * q).then(|| quadratic_form(a, b, r))
    }
}

/// The kernel of [`Backend::quadratic_form`] for `f64`, for a.len() = q
/// and b.len() = q² (q = r.len()). Kept out of line: inlined into its
/// callers it loses the registers that hold its sums.
#[inline(never)]
fn quadratic_form(a: &[f64], b: &[f64], r: &[f64]) -> f64 {
    let q = r.len();
    let mut total = [0.0; 4];
    let mut add = |from: usize, sums: &[f64]| {
        for (k, y) in sums.iter().enumerate() {
            let i = from + k;
            total[i % 4] += (a[i] + 0.5 * y) * r[i];
        }
    };
    let mut from = 0;
    while q - from >= 16 {
        add(from, &row_sums::<16>(b, r, from));
        from += 16;
    }
    while q - from >= 4 {
        add(from, &row_sums::<4>(b, r, from));
        from += 4;
    }
    while q > from {
        add(from, &row_sums::<1>(b, r, from));
        from += 1;
    }
    (total[0] + total[1]) + (total[2] + total[3])
}

/// (Br)ᵢ for the `N` rows from `from` (B by columns, q = `r.len()`, and
/// from + N ≤ q), each summed over the columns in order. A fixed `N` lets
/// the compiler keep the N sums in registers.
#[inline(always)]
fn row_sums<const N: usize>(b: &[f64], r: &[f64], from: usize) -> [f64; N] {
    let mut sums = [0.0; N];
    for (column, rj) in b.chunks_exact(r.len()).zip(r) {
        if let Some(c) = column[from..].first_chunk::<N>() {
            for k in 0..N {
                sums[k] += c[k] * rj;
            }
        }
    }
    sums
}
