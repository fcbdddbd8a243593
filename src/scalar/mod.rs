//! Scalar backends.
//!
//! Every algorithm in this crate is generic over [`Scalar`], which is simba's
//! [`RealField`] (so nalgebra's decompositions work) plus a small
//! [`Backend`] trait giving what `RealField` lacks: the working precision, a
//! lossless text encoding for transcripts, and a name for reports.
//!
//! Two backends ship:
//! * `f64` — the default, pure Rust;
//! * `Mpfr<P>` (the `mpfr` feature) — MPFR through `rug`, with `P` bits of
//!   mantissa fixed by the type, behind the `mpfr` cargo feature.
//!
//! Constants inside algorithms come from integers and ratios
//! ([`Scalar::int`], [`Scalar::ratio`]) or from the backend's own constants
//! (`T::pi()`), never from an `f64` literal, so a 256-bit run carries 256
//! bits end to end.

mod f64_backend;
#[cfg(feature = "mpfr-scalar")]
mod mpfr;

#[cfg(feature = "mpfr-scalar")]
pub use mpfr::Mpfr;

use crate::error::Error;
use num_traits::FromPrimitive;
use simba::scalar::RealField;
use std::fmt::{Debug, Display};
use std::ops::{AddAssign, DivAssign, MulAssign, SubAssign};

/// What a concrete number type must tell beyond [`RealField`]: its precision,
/// its name in reports, and a lossless round trip through text.
///
/// Implemented by `f64` and by `Mpfr<P>` (the `mpfr` feature). Generic code
/// uses [`Scalar`], never this trait directly.
pub trait Backend: Sized {
    /// Bits of mantissa (53 for `f64`, `P` for `Mpfr<P>`).
    fn precision_bits() -> u32;

    /// Name used in reports and transcripts: `"f64"` or `"mpfr:BITS"`.
    fn backend_name() -> String {
        format!("mpfr:{}", Self::precision_bits())
    }

    /// Decimal text from which [`Backend::decode`] restores exactly the same
    /// value (same bits).
    fn encode(&self) -> String;

    /// Parses text written by [`Backend::encode`] (or any decimal number),
    /// rounding to the working precision.
    ///
    /// # Errors
    /// [`Error::Parse`] when the text is not a number.
    fn decode(text: &str) -> Result<Self, Error>;

    /// Nearest `f64`, for reports and plots only; never used inside an
    /// algorithm.
    fn to_f64_lossy(&self) -> f64;

    /// `self := x + y`, written into `self`'s storage (one rounding, no
    /// copy, no allocation).
    fn set_sum(&mut self, x: &Self, y: &Self);

    /// `self := x − y`, written into `self`'s storage.
    fn set_difference(&mut self, x: &Self, y: &Self);

    /// 1/φ = (√5 − 1)/2, correctly rounded. Backends whose square root is
    /// expensive cache it.
    fn inverse_golden_ratio() -> Self;

    /// `self := −self`, in place (exact; no allocation).
    fn neg_assign(&mut self);

    /// `self := self·2^k`, in place (exact barring over/underflow; an
    /// exponent shift, no mantissa multiplication).
    fn mul_pow2_assign(&mut self, k: i32);

    /// `self := x·y`, written into `self`'s storage.
    fn set_product(&mut self, x: &Self, y: &Self);

    /// Neither NaN nor infinite, read in place (simba's `is_finite` takes
    /// the number by value, a copy at MPFR precision).
    fn is_finite_in_place(&self) -> bool;

    /// True when `self` and `other` are the same number in the same
    /// representation (the same bits). This implies `self == other`, so a
    /// memo may answer a point asked again from what it kept; the converse
    /// can fail (−0 and +0 are equal, not identical), which costs a memo a
    /// miss only. The default is `==`; MPFR compares exponent, sign and
    /// limbs in place, a few times cheaper than `mpfr_equal_p`.
    #[inline]
    fn identical(&self, other: &Self) -> bool
    where
        Self: PartialEq,
    {
        self == other
    }

    /// ⟨a, r⟩ + ½rᵀBr for a symmetric q×q matrix `b` stored by columns,
    /// when the backend has a kernel of its own for it; `None` (the
    /// default) leaves it to the generic code of
    /// [`crate::metric::quadratic::QuadraticMetric`], which reads the upper
    /// triangle only: the fewest multiplications, which is what counts at
    /// MPFR precision.
    ///
    /// `f64` has one (see its implementation): a simulated quadratic
    /// oracle evaluates this for every new point a search asks about.
    fn quadratic_form(_a: &[Self], _b: &[Self], _r: &[Self]) -> Option<Self> {
        None
    }

    /// Σ aᵢbᵢ over two non-empty slices of one length, summed left to right
    /// from the first product exactly as [`dot`] sums (the same value),
    /// when the backend has a cheaper way to form it; `None` (the default,
    /// and for slices of other shapes) leaves it to [`dot`]'s generic loop.
    ///
    /// MPFR has one: its products go through a per-thread scratch number
    /// instead of one allocated per call.
    fn dot_product(_a: &[Self], _b: &[Self]) -> Option<Self> {
        None
    }
}

/// The scalar every algorithm is generic over: a real field (simba's
/// [`RealField`], which is `Clone` but not `Copy`) with a [`Backend`].
///
/// There is one blanket implementation, so `f64` and every `Mpfr<P>` are
/// scalars with no further code.
///
/// Besides the owned arithmetic of `RealField`, a scalar has in-place
/// arithmetic by reference (`x += &y`), which hot loops use together with
/// `clone_from` so that an MPFR run does not allocate per operation. Every
/// scalar is `Send + Sync`, so data-parallel code (rayon) is generic too.
///
/// # Examples
/// ```
/// use metric_elicitation::scalar::{Backend, Scalar};
/// let tenth = f64::ratio(1, 10);
/// assert_eq!(tenth, 0.1);
/// assert_eq!(f64::precision_bits(), 53);
/// assert_eq!(f64::decode(&tenth.encode()).unwrap(), tenth);
/// ```
pub trait Scalar:
    RealField
    + Backend
    + FromPrimitive
    + Display
    + Debug
    + for<'a> AddAssign<&'a Self>
    + for<'a> SubAssign<&'a Self>
    + for<'a> MulAssign<&'a Self>
    + for<'a> DivAssign<&'a Self>
    + Send
    + Sync
    + 'static
{
    /// The integer `n`, exactly (for `f64`: exactly when |n| ≤ 2⁵³).
    fn int(n: i64) -> Self {
        // `from_i64` is total for both backends: f64 rounds, MPFR is exact
        // at any precision ≥ 64 bits.
        match Self::from_i64(n) {
            Some(v) => v,
            None => unreachable_backend(),
        }
    }

    /// `n / d`, correctly rounded once (`ratio(1, 10)` is the nearest value
    /// to one tenth at the working precision, not `0.1_f64` widened).
    fn ratio(n: i64, d: i64) -> Self {
        Self::int(n) / Self::int(d)
    }

    /// Machine epsilon of the backend: 2^(1 − precision_bits).
    fn epsilon() -> Self {
        Self::default_epsilon()
    }

    /// Converts an `f64` exactly (every `f64` is representable in both
    /// backends). For test inputs and user-facing boundaries only.
    fn from_f64_exact(x: f64) -> Self {
        match Self::from_f64(x) {
            Some(v) => v,
            None => unreachable_backend(),
        }
    }

    /// `true` when the value is neither NaN nor infinite.
    fn finite(&self) -> bool {
        self.is_finite_in_place()
    }
}

impl<T> Scalar for T where
    T: RealField
        + Backend
        + FromPrimitive
        + Display
        + Debug
        + for<'a> AddAssign<&'a T>
        + for<'a> SubAssign<&'a T>
        + for<'a> MulAssign<&'a T>
        + for<'a> DivAssign<&'a T>
        + Send
        + Sync
        + 'static
{
}

/// True above 64 bits of precision, where `T`'s arithmetic runs in
/// software and a multiplication costs far more than a comparison or a
/// copy: there, deriving and keeping values pays (LPME's sines from
/// neighbours, the slice's kept coordinates, additions of zero skipped);
/// in `f64` the arithmetic is cheaper than the bookkeeping.
///
/// # Examples
/// ```
/// assert!(!metric_elicitation::scalar::costly_arithmetic::<f64>());
/// ```
pub fn costly_arithmetic<T: Scalar>() -> bool {
    T::precision_bits() > 64
}

/// ⟨a, b⟩ for two equally long vectors, with in-place arithmetic (the
/// generic loop allocates two numbers in all, where a naive dot product
/// allocates per entry at MPFR precision; MPFR's kernel,
/// [`Backend::dot_product`], allocates only the result). For equal lengths
/// only; extra entries are ignored.
///
/// # Examples
/// ```
/// use metric_elicitation::scalar::dot;
/// use nalgebra::DVector;
/// let a = DVector::from_vec(vec![1.0, 2.0, 3.0]);
/// assert_eq!(dot(&a, &a), 14.0);
/// ```
pub fn dot<T: Scalar>(a: &nalgebra::DVector<T>, b: &nalgebra::DVector<T>) -> T {
    if let Some(v) = T::dot_product(a.as_slice(), b.as_slice()) {
        return v;
    }
    let (mut sum, mut term) = (T::int(0), T::int(0));
    let mut pairs = a.as_slice().iter().zip(b.as_slice());
    // The first product is the first partial sum (0 + t = t: one addition
    // fewer, the same value).
    if let Some((x, y)) = pairs.next() {
        sum.set_product(x, y);
    }
    for (x, y) in pairs {
        term.set_product(x, y);
        sum += &term;
    }
    sum
}

#[cold]
fn unreachable_backend() -> ! {
    // Both shipped backends implement `from_i64`/`from_f64` totally; a third
    // backend that does not is a programming error in that backend.
    panic!("scalar backend does not implement from_i64/from_f64")
}

/// The MPFR precisions built in (`mpfr:BITS`).
pub const MPFR_BITS: [u32; 5] = [64, 128, 256, 512, 1024];

/// Parses a precision name: `f64` gives `None`, `mpfr:BITS` gives the bits
/// (one of [`MPFR_BITS`]). Whether the MPFR feature is built is checked
/// where the precision is used.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `field` for anything else (`f32`
/// included: the procedures need more than f32's 24 bits).
///
/// # Examples
/// ```
/// use metric_elicitation::scalar::precision_bits;
/// assert_eq!(precision_bits("f64", "precision").unwrap(), None);
/// assert_eq!(precision_bits("mpfr:256", "precision").unwrap(), Some(256));
/// assert!(precision_bits("f32", "precision").is_err());
/// ```
pub fn precision_bits(text: &str, field: &str) -> Result<Option<u32>, Error> {
    if text == "f64" {
        return Ok(None);
    }
    // What this build accepts: without the `mpfr` feature, f64 only.
    let expected = if cfg!(feature = "mpfr") {
        "f64 or mpfr:BITS (BITS = 64, 128, 256, 512 or 1024)"
    } else {
        "f64 (mpfr:BITS needs a build with --features mpfr)"
    };
    if text == "f32" {
        return Err(Error::invalid(
            field,
            format!("f32 is not supported (24 bits cannot reach the papers' eps): use {expected}"),
        ));
    }
    let bits = text
        .strip_prefix("mpfr:")
        .and_then(|b| b.parse::<u32>().ok())
        .ok_or_else(|| Error::invalid(field, format!("{text:?} is not {expected}")))?;
    if !MPFR_BITS.contains(&bits) {
        return Err(Error::invalid(
            field,
            format!("mpfr:{bits} is not built in (use 64, 128, 256, 512 or 1024)"),
        ));
    }
    Ok(Some(bits))
}
