//! The MPFR backend: [`Mpfr<P>`], a `rug::Float` whose precision `P` (bits of
//! mantissa) is part of the type.
//!
//! `Mpfr<P>` implements simba's `RealField`, so nalgebra's LU, Cholesky and
//! symmetric eigendecomposition run at `P` bits. Every operation rounds to
//! nearest at `P` bits; constants (π, e, ln 2) and transcendental functions
//! are MPFR's, correct to the working precision.

use super::Backend;
use crate::error::Error;
use approx::{AbsDiffEq, RelativeEq, UlpsEq};
use num_traits::{FromPrimitive, Num, One, Signed, Zero};
use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;
use simba::scalar::{ComplexField, Field, RealField, SubsetOf};
use simba::simd::SimdValue;
use std::cmp::Ordering;
use std::fmt;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// A real number with `P` bits of mantissa, backed by MPFR.
///
/// # Examples
/// ```
/// # #[cfg(feature = "mpfr")] {
/// use metric_elicitation::scalar::{Backend, Mpfr, Scalar};
/// use simba::scalar::RealField;
/// type M = Mpfr<256>;
/// let tenth = M::ratio(1, 10);
/// assert_eq!(M::decode(&tenth.encode()).unwrap(), tenth);
/// assert!(M::pi().to_f64_lossy() == std::f64::consts::PI);
/// # }
/// ```
#[derive(PartialEq)]
pub struct Mpfr<const P: u32>(Float);

/// Ordered as rug's `Float`, each comparison one MPFR call (a derived
/// `PartialOrd` would route `<` through `partial_cmp`: an unordered test,
/// then a comparison).
impl<const P: u32> PartialOrd for Mpfr<P> {
    /// One comparison (rug's `partial_cmp` makes two calls: an unordered
    /// test, then the comparison): NaN read from the exponent in place,
    /// zeros equal whatever their signs, and otherwise MPFR's comparison
    /// (`total_cmp` differs from it only on signed zeros and NaN).
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        if self.0.is_nan() || other.0.is_nan() {
            return None;
        }
        if self.0.is_zero() && other.0.is_zero() {
            return Some(std::cmp::Ordering::Equal);
        }
        Some(self.0.total_cmp(&other.0))
    }

    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self.0 < other.0
    }

    #[inline]
    fn le(&self, other: &Self) -> bool {
        self.0 <= other.0
    }

    #[inline]
    fn gt(&self, other: &Self) -> bool {
        self.0 > other.0
    }

    #[inline]
    fn ge(&self, other: &Self) -> bool {
        self.0 >= other.0
    }
}

impl<const P: u32> Clone for Mpfr<P> {
    fn clone(&self) -> Self {
        Mpfr(self.0.clone())
    }

    /// Reuses `self`'s limbs (a derived `Clone` would allocate anew). Both
    /// numbers carry `P` bits, so sign, exponent and limbs are copied in
    /// place (rug's own `clone_from` first resets the precision, then
    /// calls `mpfr_set`: two calls, each costing more than the copy at 256
    /// bits).
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        if !at_precision::<P>(&self.0) || !at_precision::<P>(&source.0) {
            self.0.clone_from(&source.0);
            return;
        }
        let regular = source.0.is_normal();
        // SAFETY: both point at initialized `mpfr_t`s of live `Float`s
        // (distinct: `self` is borrowed mutably) of precision P, whose `d`
        // each hold ⌈P/limb⌉ limbs (MPFR's representation).
        // What `mpfr_set` does between equal precisions is done here in
        // place: sign and exponent (which also encodes zero, infinity and
        // NaN), and for a regular number its limbs, already normalized in
        // the source. A call to `mpfr_set` costs several times this copy at
        // 256 bits, and a memo makes one per entry of every new point.
        unsafe {
            let (x, y) = (&mut *self.0.as_raw_mut(), &*source.0.as_raw());
            x.sign = y.sign;
            x.exp = y.exp;
            if regular {
                let limbs = limb_count::<P, _>(y.d);
                std::ptr::copy_nonoverlapping(y.d.as_ptr().cast_const(), x.d.as_ptr(), limbs);
            }
        }
    }
}

impl<const P: u32> Mpfr<P> {
    /// Wraps any value rug can convert to a `Float`, rounding to `P` bits.
    pub fn new<V>(value: V) -> Self
    where
        Float: rug::Assign<V>,
    {
        Mpfr(Float::with_val(P, value))
    }

    /// The underlying `rug::Float` (precision `P`).
    pub fn as_float(&self) -> &Float {
        &self.0
    }

    /// Consumes the wrapper and returns the `rug::Float`.
    pub fn into_float(self) -> Float {
        self.0
    }

    fn map(self, f: impl FnOnce(Float) -> Float) -> Self {
        Mpfr(f(self.0))
    }

    fn constant(c: Constant) -> Self {
        Mpfr(Float::with_val(P, c))
    }
}

impl<const P: u32> Backend for Mpfr<P> {
    fn precision_bits() -> u32 {
        P
    }

    fn encode(&self) -> String {
        // `None` digits: MPFR chooses enough digits to read back exactly.
        self.0.to_string_radix(10, None)
    }

    fn decode(text: &str) -> Result<Self, Error> {
        match Float::parse(text.trim()) {
            Ok(parsed) => Ok(Mpfr(Float::with_val(P, parsed))),
            Err(_) => Err(Error::Parse {
                what: format!("mpfr:{P}"),
                text: text.to_string(),
            }),
        }
    }

    fn to_f64_lossy(&self) -> f64 {
        self.0.to_f64()
    }

    fn set_sum(&mut self, x: &Self, y: &Self) {
        rug::Assign::assign(&mut self.0, &x.0 + &y.0);
    }

    fn set_difference(&mut self, x: &Self, y: &Self) {
        rug::Assign::assign(&mut self.0, &x.0 - &y.0);
    }

    fn inverse_golden_ratio() -> Self {
        use std::cell::RefCell;
        use std::collections::HashMap;
        thread_local! {
            // Keyed by precision: a 256-bit square root costs more than a
            // whole golden-section step, so compute it once per thread.
            static CACHE: RefCell<HashMap<u32, Float>> = RefCell::new(HashMap::new());
        }
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let r = cache.entry(P).or_insert_with(|| {
                let root5 = Float::with_val(P, 5).sqrt();
                Float::with_val(P, root5 - 1u32) / 2u32
            });
            Mpfr(r.clone())
        })
    }

    fn neg_assign(&mut self) {
        rug::ops::NegAssign::neg_assign(&mut self.0);
    }

    fn mul_pow2_assign(&mut self, k: i32) {
        self.0 <<= k;
    }

    fn set_product(&mut self, x: &Self, y: &Self) {
        rug::Assign::assign(&mut self.0, &x.0 * &y.0);
    }

    fn is_finite_in_place(&self) -> bool {
        self.0.is_finite()
    }

    fn dot_product(a: &[Self], b: &[Self]) -> Option<Self> {
        use std::cell::RefCell;
        thread_local! {
            // One scratch product per thread (shared by every P: a
            // thread_local in a generic function is one static), brought
            // to P bits when another precision used it last.
            static TERM: RefCell<Float> = RefCell::new(Float::new(rug::float::prec_min()));
        }
        let ((x0, xs), (y0, ys)) = (a.split_first()?, b.split_first()?);
        if xs.len() != ys.len() {
            return None;
        }
        // Unavailable only while the thread's locals are destroyed, and
        // busy only if a product re-entered this one: then the generic
        // loop.
        TERM.try_with(|term| {
            let mut term = term.try_borrow_mut().ok()?;
            if term.prec() != P {
                term.set_prec(P);
            }
            let mut sum = Float::with_val(P, &x0.0 * &y0.0);
            for (x, y) in xs.iter().zip(ys) {
                rug::Assign::assign(&mut *term, &x.0 * &y.0);
                sum += &*term;
            }
            Some(Mpfr(sum))
        })
        .ok()
        .flatten()
    }

    #[inline]
    fn identical(&self, other: &Self) -> bool {
        // SAFETY: `as_raw` points at the initialized `mpfr_t` of a live
        // `Float`, borrowed for this call.
        let (x, y) = unsafe { (&*self.0.as_raw(), &*other.0.as_raw()) };
        if !at_precision::<P>(&self.0) || !at_precision::<P>(&other.0) {
            return self.0 == other.0;
        }
        if x.exp != y.exp || x.sign != y.sign {
            return false;
        }
        if !self.0.is_normal() {
            // Zero, infinity or NaN of the same sign: the exponent field
            // says which, and there are no limbs to read.
            return true;
        }
        // A regular number's `d` holds ⌈P/limb⌉ limbs (MPFR's
        // representation) at precision P (checked above): a constant, so
        // the comparison unrolls.
        let limbs = limb_count::<P, _>(x.d);
        // SAFETY: as above.
        let (lx, ly) = unsafe {
            (
                std::slice::from_raw_parts(x.d.as_ptr().cast_const(), limbs),
                std::slice::from_raw_parts(y.d.as_ptr().cast_const(), limbs),
            )
        };
        // Branch-free over the (few) limbs.
        lx.iter().zip(ly).fold(0, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

/// Whether `x` carries P bits, the precondition of reading its limbs as
/// ⌈P/limb⌉ words (in `clone_from` and `identical`), read from the
/// precision field in place.
#[inline]
fn at_precision<const P: u32>(x: &Float) -> bool {
    // SAFETY: `as_raw` points at the initialized `mpfr_t` of a live `Float`,
    // borrowed for this call.
    precision_is::<P, _>(unsafe { (*x.as_raw()).prec })
}

/// Whether a precision field (a C long, whose width the argument's type
/// gives) is P.
#[inline]
fn precision_is<const P: u32, L: TryFrom<u32> + PartialEq>(prec: L) -> bool {
    L::try_from(P).is_ok_and(|p| p == prec)
}

/// ⌈P/limb⌉: how many limbs (GMP's `mp_limb_t`, whose width the limb
/// pointer's type gives) a regular MPFR number of precision `P` holds; a
/// constant.
#[inline]
const fn limb_count<const P: u32, L>(_: std::ptr::NonNull<L>) -> usize {
    (P as usize).div_ceil(8 * std::mem::size_of::<L>())
}

impl<const P: u32> fmt::Debug for Mpfr<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mpfr<{P}>({})", self.encode())
    }
}

impl<const P: u32> fmt::Display for Mpfr<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match f.precision() {
            Some(digits) => write!(f, "{}", self.0.to_string_radix(10, Some(digits.max(1)))),
            None => write!(f, "{}", self.encode()),
        }
    }
}

// ---- arithmetic -----------------------------------------------------------

macro_rules! binop {
    ($Tr:ident, $m:ident, $TrA:ident, $ma:ident) => {
        impl<const P: u32> $Tr for Mpfr<P> {
            type Output = Self;
            #[inline]
            fn $m(self, rhs: Self) -> Self {
                Mpfr($Tr::$m(self.0, rhs.0))
            }
        }
        impl<'a, const P: u32> $Tr<&'a Mpfr<P>> for Mpfr<P> {
            type Output = Self;
            #[inline]
            fn $m(self, rhs: &'a Self) -> Self {
                Mpfr($Tr::$m(self.0, &rhs.0))
            }
        }
        impl<const P: u32> $TrA for Mpfr<P> {
            #[inline]
            fn $ma(&mut self, rhs: Self) {
                $TrA::$ma(&mut self.0, rhs.0)
            }
        }
        impl<'a, const P: u32> $TrA<&'a Mpfr<P>> for Mpfr<P> {
            #[inline]
            fn $ma(&mut self, rhs: &'a Self) {
                $TrA::$ma(&mut self.0, &rhs.0)
            }
        }
    };
}
binop!(Add, add, AddAssign, add_assign);
binop!(Sub, sub, SubAssign, sub_assign);
binop!(Mul, mul, MulAssign, mul_assign);
binop!(Div, div, DivAssign, div_assign);
binop!(Rem, rem, RemAssign, rem_assign);

impl<const P: u32> Neg for Mpfr<P> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Mpfr(-self.0)
    }
}

// ---- num-traits -------------------------------------------------------------

impl<const P: u32> Zero for Mpfr<P> {
    fn zero() -> Self {
        Mpfr(Float::new(P))
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
}

impl<const P: u32> One for Mpfr<P> {
    fn one() -> Self {
        Mpfr(Float::with_val(P, 1))
    }
}

impl<const P: u32> Num for Mpfr<P> {
    type FromStrRadixErr = Error;
    fn from_str_radix(text: &str, radix: u32) -> Result<Self, Error> {
        let parse_error = || Error::Parse {
            what: format!("mpfr:{P} (radix {radix})"),
            text: text.to_string(),
        };
        let radix = i32::try_from(radix).map_err(|_| parse_error())?;
        if !(2..=36).contains(&radix) {
            return Err(parse_error());
        }
        Float::parse_radix(text.trim(), radix)
            .map(|parsed| Mpfr(Float::with_val(P, parsed)))
            .map_err(|_| parse_error())
    }
}

impl<const P: u32> Signed for Mpfr<P> {
    fn abs(&self) -> Self {
        Mpfr(self.0.clone().abs())
    }
    fn abs_sub(&self, other: &Self) -> Self {
        if self.0 <= other.0 {
            Self::zero()
        } else {
            Mpfr(Float::with_val(P, &self.0 - &other.0))
        }
    }
    fn signum(&self) -> Self {
        Mpfr(self.0.clone().signum())
    }
    fn is_positive(&self) -> bool {
        self.0.is_sign_positive() && !self.0.is_zero()
    }
    fn is_negative(&self) -> bool {
        self.0.is_sign_negative() && !self.0.is_zero()
    }
}

impl<const P: u32> FromPrimitive for Mpfr<P> {
    fn from_i64(n: i64) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, n)))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, n)))
    }
    fn from_i128(n: i128) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, n)))
    }
    fn from_u128(n: u128) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, n)))
    }
    fn from_f32(x: f32) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, x)))
    }
    fn from_f64(x: f64) -> Option<Self> {
        Some(Mpfr(Float::with_val(P, x)))
    }
}

// ---- approx -----------------------------------------------------------------

impl<const P: u32> AbsDiffEq for Mpfr<P> {
    type Epsilon = Self;
    fn default_epsilon() -> Self {
        // 2^(1 − P): the distance from 1 to the next representable number.
        Mpfr(Float::with_val(P, Float::i_exp(1, 1 - P as i32)))
    }
    fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
        Float::with_val(P, &self.0 - &other.0).abs() <= epsilon.0
    }
}

impl<const P: u32> RelativeEq for Mpfr<P> {
    fn default_max_relative() -> Self {
        Self::default_epsilon()
    }
    fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
        if self.0 == other.0 {
            return true;
        }
        if !self.0.is_finite() || !other.0.is_finite() {
            return false;
        }
        let diff = Float::with_val(P, &self.0 - &other.0).abs();
        if diff <= epsilon.0 {
            return true;
        }
        let a = self.0.clone().abs();
        let b = other.0.clone().abs();
        let largest = if a > b { a } else { b };
        diff <= largest * max_relative.0
    }
}

impl<const P: u32> UlpsEq for Mpfr<P> {
    fn default_max_ulps() -> u32 {
        4
    }
    fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
        if self.abs_diff_eq(other, epsilon.clone()) {
            return true;
        }
        if self.0.is_sign_positive() != other.0.is_sign_positive() {
            return false;
        }
        // Within `max_ulps` units in the last place of the larger magnitude.
        let a = self.0.clone().abs();
        let b = other.0.clone().abs();
        let largest = if a > b { a } else { b };
        let ulp = match largest.get_exp() {
            Some(exp) => Float::with_val(P, Float::i_exp(1, exp - P as i32)),
            None => return false,
        };
        Float::with_val(P, &self.0 - &other.0).abs() <= ulp * max_ulps
    }
}

// ---- simba ------------------------------------------------------------------

impl<const P: u32> SimdValue for Mpfr<P> {
    const LANES: usize = 1;
    type Element = Self;
    type SimdBool = bool;

    fn splat(val: Self) -> Self {
        val
    }
    fn extract(&self, _: usize) -> Self {
        self.clone()
    }
    unsafe fn extract_unchecked(&self, _: usize) -> Self {
        self.clone()
    }
    fn replace(&mut self, _: usize, val: Self) {
        *self = val;
    }
    unsafe fn replace_unchecked(&mut self, _: usize, val: Self) {
        *self = val;
    }
    fn select(self, cond: bool, other: Self) -> Self {
        if cond {
            self
        } else {
            other
        }
    }
}

impl<const P: u32> Field for Mpfr<P> {}

impl<const P: u32> SubsetOf<Mpfr<P>> for Mpfr<P> {
    fn to_superset(&self) -> Self {
        self.clone()
    }
    fn from_superset_unchecked(element: &Self) -> Self {
        element.clone()
    }
    fn is_in_subset(_: &Self) -> bool {
        true
    }
}

impl<const P: u32> SubsetOf<Mpfr<P>> for f64 {
    fn to_superset(&self) -> Mpfr<P> {
        Mpfr(Float::with_val(P, *self))
    }
    fn from_superset_unchecked(element: &Mpfr<P>) -> f64 {
        element.0.to_f64()
    }
    fn is_in_subset(_: &Mpfr<P>) -> bool {
        true
    }
}

impl<const P: u32> SubsetOf<Mpfr<P>> for f32 {
    fn to_superset(&self) -> Mpfr<P> {
        Mpfr(Float::with_val(P, *self))
    }
    fn from_superset_unchecked(element: &Mpfr<P>) -> f32 {
        element.0.to_f32()
    }
    fn is_in_subset(_: &Mpfr<P>) -> bool {
        true
    }
}

impl<const P: u32> ComplexField for Mpfr<P> {
    type RealField = Self;

    fn from_real(re: Self) -> Self {
        re
    }
    fn real(self) -> Self {
        self
    }
    fn imaginary(self) -> Self {
        Self::zero()
    }
    fn modulus(self) -> Self {
        self.map(Float::abs)
    }
    fn modulus_squared(self) -> Self {
        self.map(Float::square)
    }
    fn argument(self) -> Self {
        if self.0.is_sign_negative() && !self.0.is_zero() {
            Self::pi()
        } else {
            Self::zero()
        }
    }
    fn norm1(self) -> Self {
        self.map(Float::abs)
    }
    fn scale(self, factor: Self) -> Self {
        self * factor
    }
    fn unscale(self, factor: Self) -> Self {
        self / factor
    }
    fn floor(self) -> Self {
        self.map(Float::floor)
    }
    fn ceil(self) -> Self {
        self.map(Float::ceil)
    }
    fn round(self) -> Self {
        self.map(Float::round)
    }
    fn trunc(self) -> Self {
        self.map(Float::trunc)
    }
    fn fract(self) -> Self {
        self.map(Float::fract)
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        Mpfr(self.0.mul_add(&a.0, &b.0))
    }
    fn abs(self) -> Self {
        self.map(Float::abs)
    }
    fn hypot(self, other: Self) -> Self {
        Mpfr(self.0.hypot(&other.0))
    }
    fn recip(self) -> Self {
        self.map(Float::recip)
    }
    fn conjugate(self) -> Self {
        self
    }
    fn sin(self) -> Self {
        self.map(Float::sin)
    }
    fn cos(self) -> Self {
        self.map(Float::cos)
    }
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.0.sin_cos(Float::new(P));
        (Mpfr(s), Mpfr(c))
    }
    fn tan(self) -> Self {
        self.map(Float::tan)
    }
    fn asin(self) -> Self {
        self.map(Float::asin)
    }
    fn acos(self) -> Self {
        self.map(Float::acos)
    }
    fn atan(self) -> Self {
        self.map(Float::atan)
    }
    fn sinh(self) -> Self {
        self.map(Float::sinh)
    }
    fn cosh(self) -> Self {
        self.map(Float::cosh)
    }
    fn tanh(self) -> Self {
        self.map(Float::tanh)
    }
    fn asinh(self) -> Self {
        self.map(Float::asinh)
    }
    fn acosh(self) -> Self {
        self.map(Float::acosh)
    }
    fn atanh(self) -> Self {
        self.map(Float::atanh)
    }
    fn log(self, base: Self) -> Self {
        self.ln() / base.ln()
    }
    fn log2(self) -> Self {
        self.map(Float::log2)
    }
    fn log10(self) -> Self {
        self.map(Float::log10)
    }
    fn ln(self) -> Self {
        self.map(Float::ln)
    }
    fn ln_1p(self) -> Self {
        self.map(Float::ln_1p)
    }
    fn sqrt(self) -> Self {
        self.map(Float::sqrt)
    }
    fn exp(self) -> Self {
        self.map(Float::exp)
    }
    fn exp2(self) -> Self {
        self.map(Float::exp2)
    }
    fn exp_m1(self) -> Self {
        self.map(Float::exp_m1)
    }
    fn powi(self, n: i32) -> Self {
        Mpfr(self.0.pow(n))
    }
    fn powf(self, n: Self) -> Self {
        Mpfr(self.0.pow(&n.0))
    }
    fn powc(self, n: Self) -> Self {
        self.powf(n)
    }
    fn cbrt(self) -> Self {
        self.map(Float::cbrt)
    }
    fn is_finite(&self) -> bool {
        self.0.is_finite()
    }
    fn try_sqrt(self) -> Option<Self> {
        if self.0.is_sign_negative() && !self.0.is_zero() {
            None
        } else {
            Some(self.sqrt())
        }
    }
}

impl<const P: u32> RealField for Mpfr<P> {
    fn is_sign_positive(&self) -> bool {
        self.0.is_sign_positive()
    }
    fn is_sign_negative(&self) -> bool {
        self.0.is_sign_negative()
    }
    fn copysign(self, sign: Self) -> Self {
        Mpfr(self.0.copysign(&sign.0))
    }
    fn max(self, other: Self) -> Self {
        Mpfr(self.0.max(&other.0))
    }
    fn min(self, other: Self) -> Self {
        Mpfr(self.0.min(&other.0))
    }
    fn clamp(self, min: Self, max: Self) -> Self {
        match (self.partial_cmp(&min), self.partial_cmp(&max)) {
            (Some(Ordering::Less), _) => min,
            (_, Some(Ordering::Greater)) => max,
            _ => self,
        }
    }
    fn atan2(self, other: Self) -> Self {
        Mpfr(self.0.atan2(&other.0))
    }
    fn min_value() -> Option<Self> {
        None
    }
    fn max_value() -> Option<Self> {
        None
    }
    fn pi() -> Self {
        Self::constant(Constant::Pi)
    }
    fn two_pi() -> Self {
        Self::pi() * Self::new(2)
    }
    fn frac_pi_2() -> Self {
        Self::pi() / Self::new(2)
    }
    fn frac_pi_3() -> Self {
        Self::pi() / Self::new(3)
    }
    fn frac_pi_4() -> Self {
        Self::pi() / Self::new(4)
    }
    fn frac_pi_6() -> Self {
        Self::pi() / Self::new(6)
    }
    fn frac_pi_8() -> Self {
        Self::pi() / Self::new(8)
    }
    fn frac_1_pi() -> Self {
        Self::pi().recip()
    }
    fn frac_2_pi() -> Self {
        Self::new(2) / Self::pi()
    }
    fn frac_2_sqrt_pi() -> Self {
        Self::new(2) / Self::pi().sqrt()
    }
    fn e() -> Self {
        Self::one().exp()
    }
    fn log2_e() -> Self {
        Self::ln_2().recip()
    }
    fn log10_e() -> Self {
        Self::ln_10().recip()
    }
    fn ln_2() -> Self {
        Self::constant(Constant::Log2)
    }
    fn ln_10() -> Self {
        Self::new(10).ln()
    }
}
