//! A sphere S_λ inside a query space, and the angle parametrization of its
//! surface (002 §3.2, 001 App. A).
//!
//! A unit vector a ∈ R^q is written with q − 1 angles:
//! aᵢ = Π_{j<i} sin θⱼ · cos θᵢ (i < q), a_q = Π_{j<q} sin θⱼ; the optimum of
//! the unit linear metric a over the sphere is o + λ·a (002 Lemma 1).

use crate::error::{Error, Result};
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use nalgebra::DVector;

/// A sphere of radius λ centred at o, assumed to lie inside the feasible
/// query space (002 Assumption 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Sphere<T: Scalar> {
    center: DVector<T>,
    radius: T,
}

impl<T: Scalar> Sphere<T> {
    /// The sphere with `center` and `radius`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for dimension below 2, a non-finite
    /// coordinate, or a radius that is not finite and positive.
    pub fn new(center: DVector<T>, radius: T) -> Result<Self> {
        if center.len() < 2 {
            return Err(Error::invalid("sphere", "needs dimension q >= 2"));
        }
        if let Some(v) = center.iter().find(|v| !v.finite()) {
            return Err(Error::invalid(
                "sphere",
                format!("center coordinate {v} is not finite"),
            ));
        }
        if !radius.finite() || radius <= T::int(0) {
            return Err(Error::invalid(
                "sphere",
                format!("radius must be finite and > 0, got {radius}"),
            ));
        }
        Ok(Sphere { center, radius })
    }

    /// Dimension q.
    pub fn dim(&self) -> usize {
        self.center.len()
    }

    /// Centre o.
    pub fn center(&self) -> &DVector<T> {
        &self.center
    }

    /// Radius λ.
    pub fn radius(&self) -> &T {
        &self.radius
    }

    /// o + λ·a: the optimum over the sphere of the unit linear metric a
    /// (002 Lemma 1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `a` does not have the sphere's
    /// dimension.
    pub fn point(&self, a: &DVector<T>) -> Result<DVector<T>> {
        if a.len() != self.dim() {
            return Err(Error::invalid(
                "direction",
                format!(
                    "length {} for a sphere of dimension {}",
                    a.len(),
                    self.dim()
                ),
            ));
        }
        // c + r·a, formed in one copy of a (the same roundings as
        // `&c + a * r`, without its temporaries).
        let mut z = a.clone();
        for (z, c) in z.iter_mut().zip(self.center.iter()) {
            *z *= &self.radius;
            *z += c;
        }
        Ok(z)
    }
}

/// μ(θ): the unit vector with angles θ (length q − 1).
pub fn unit_from_angles<T: Scalar>(theta: &[T]) -> DVector<T> {
    let q = theta.len() + 1;
    let mut a = DVector::from_element(q, T::int(0));
    let mut sines = T::int(1);
    for (i, t) in theta.iter().enumerate() {
        let (s, c) = t.clone().sin_cos();
        a[i] = sines.clone() * c;
        sines *= &s;
    }
    a[q - 1] = sines;
    a
}

/// (sin θ, cos θ) of every angle of `theta`.
pub fn sines_cosines<T: Scalar>(theta: &[T]) -> Vec<(T, T)> {
    theta.iter().map(|t| t.clone().sin_cos()).collect()
}

/// The unit vector of angles given by their (sin, cos): μ(θ) without
/// trigonometry.
pub fn unit_from_sines_cosines<T: Scalar>(trig: &[(T, T)]) -> DVector<T> {
    let mut a = Vec::new();
    unit_into(trig, &mut a);
    DVector::from_vec(a)
}

/// [`unit_from_sines_cosines`] written into `a`, reusing its numbers.
fn unit_into<T: Scalar>(trig: &[(T, T)], a: &mut Vec<T>) {
    let q = trig.len() + 1;
    a.truncate(q);
    while a.len() < q {
        a.push(T::int(0));
    }
    let mut sines = T::int(1);
    for ((s, c), x) in trig.iter().zip(a.iter_mut()) {
        x.set_product(&sines, c);
        sines *= s;
    }
    a[q - 1] = sines;
}

/// (sin θⱼ, cos θⱼ) of the angles of a unit vector (those of
/// [`angles_from_unit`]) without trigonometry: with rⱼ = ‖a_{j..}‖,
/// cos θⱼ = aⱼ/rⱼ and sin θⱼ = r_{j+1}/rⱼ (j < q − 2; sin θⱼ ≥ 0 there), and
/// for the last angle cos = a_{q−2}/r, sin = a_{q−1}/r with
/// r = ‖(a_{q−2}, a_{q−1})‖ = r_{q−2}. Where rⱼ = 0 the angle is 0 (as
/// `atan2(0, 0)`). Square roots and divisions only, where an MPFR sine
/// costs some forty multiplications and an arctangent four times that.
pub fn trig_from_unit<T: Scalar>(a: &DVector<T>) -> Vec<(T, T)> {
    let q = a.len();
    // r[j] = ‖a_{j..}‖ from the back.
    let mut r = vec![T::int(0); q];
    let mut sum = T::int(0);
    for j in (0..q).rev() {
        sum += &(a[j].clone() * a[j].clone());
        r[j] = sum.clone().sqrt();
    }
    (0..q - 1)
        .map(|j| {
            if r[j].is_zero() {
                return (T::int(0), T::int(1));
            }
            let sin = if j + 2 == q {
                a[q - 1].clone() / r[j].clone()
            } else {
                r[j + 1].clone() / r[j].clone()
            };
            (sin, a[j].clone() / r[j].clone())
        })
        .collect()
}

/// sin and cos of the quarter widths w_n = L·2^−(n+2) of a halving search
/// over an interval of length L: the steps between its probes
/// (c = a + w, d = c + w, e = d + w), so that a probe's sine and cosine
/// follow from a neighbour's by the addition formulas instead of a fresh
/// evaluation (what makes LPME at MPFR precision affordable: a 256-bit
/// sine costs about forty multiplications).
#[derive(Debug, Clone)]
pub struct Steps<T> {
    /// The steps w_n, widest first.
    steps: Vec<Width<T>>,
    /// A few units of rounding of angles up to 2π: how far a step between
    /// probes may be from w_n (each [`Width`]'s window), and below which a
    /// difference of angles is [`Step::Tiny`].
    tolerance: T,
}

/// One step w of [`Steps`]: the bounds w ∓ tolerance a difference of
/// angles must lie within to be read as w (precomputed, so that reading a
/// difference costs comparisons only), and sin w, cos w.
#[derive(Debug, Clone)]
struct Width<T> {
    lo: T,
    hi: T,
    sin: T,
    cos: T,
}

impl<T: Scalar> Steps<T> {
    /// The steps of `halvings` halvings of an interval of length `length`.
    pub fn new(length: &T, halvings: usize) -> Self {
        let mut w = length.clone();
        w.mul_pow2_assign(-2);
        let mut steps = Vec::with_capacity(halvings + 2);
        // Two more than the halvings: the adaptive strategy also steps by
        // twice the quarter width. One sine and cosine, of the quarter
        // width; the halves follow by the half-angle formulas,
        // cos(w/2) = √((1 + cos w)/2) and sin(w/2) = sin w / (2 cos(w/2))
        // (true for w ≤ π, well conditioned there, a unit of rounding per
        // halving; a sine costs some forty multiplications at MPFR
        // precision), and the half width by the double-angle formulas.
        let (mut s, mut c) = w.clone().sin_cos();
        let (two, one, pi) = (T::int(2), T::int(1), T::pi());
        for _ in 0..halvings + 2 {
            steps.push((w.clone(), s.clone(), c.clone()));
            let halves = w <= pi;
            w.mul_pow2_assign(-1);
            if halves {
                c = ((one.clone() + c) / two.clone()).sqrt();
                s /= c.clone() * two.clone();
            } else {
                (s, c) = w.clone().sin_cos();
            }
        }
        let mut wide = length.clone();
        wide.mul_pow2_assign(-1);
        let (s, c) = {
            let (s, c) = (&steps[0].1, &steps[0].2);
            (
                two.clone() * s.clone() * c.clone(),
                (c.clone() - s.clone()) * (c.clone() + s.clone()),
            )
        };
        steps.insert(0, (wide, s, c));
        let tolerance = crate::prec::ulps::<T>(256);
        let steps = steps
            .into_iter()
            .map(|(w, sin, cos)| Width {
                lo: w.clone() - tolerance.clone(),
                hi: w + tolerance.clone(),
                sin,
                cos,
            })
            .collect();
        Steps { steps, tolerance }
    }

    /// What a δ ≥ 0 between two probes is: [`Step::Width`] with sin w and
    /// cos w of the step w it is within the tolerance of, or
    /// [`Step::Tiny`] for a δ within the tolerance of 0 (a search's estimate
    /// beside the probe it was carried from); `None` when it is neither.
    /// Step `*last` is tried first (a search steps by the same width
    /// through a halving), and `*last` becomes the step found. Comparisons
    /// only: nothing is computed or allocated.
    fn near<'s>(&'s self, delta: &T, last: &mut usize) -> Option<Step<'s, T>> {
        if *delta <= self.tolerance {
            return Some(Step::Tiny);
        }
        let within = |w: &Width<T>| *delta >= w.lo && *delta <= w.hi;
        let width = match self.steps.get(*last).filter(|w| within(w)) {
            Some(w) => w,
            None => {
                // Widths halve, so their windows are disjoint while the
                // steps exceed twice the tolerance (for any ε but one within
                // a thousand units of rounding): the one that can hold δ is
                // the widest whose lower bound is not above δ.
                let i = self.steps.partition_point(|w| w.lo > *delta);
                let w = self.steps.get(i).filter(|w| *delta <= w.hi)?;
                *last = i;
                w
            }
        };
        Some(Step::Width(&width.sin, &width.cos))
    }
}

/// A difference of angles between two probes, as [`Steps::near`] reads it.
enum Step<'s, T> {
    /// Within the tolerance of a step w, whose (sin w, cos w) these are.
    /// The probe's sine and cosine are then those of its neighbour's angle
    /// plus w: they are off from its own by |δ − w|, the rounding of the
    /// search's sum of the neighbour and w (half a unit in the last place
    /// of the angle), as much as the addition formulas' own rounding; the
    /// first-order correction (δ − w)·cos w would cost two more
    /// multiplications for nothing above that.
    Width(&'s T, &'s T),
    /// Within the tolerance of 0: sin δ = δ and cos δ = 1 to the working
    /// precision.
    Tiny,
}

/// A probe of an [`AngleSlice`]: the angle, its sine and cosine times the
/// slice's scale P = λ·Π_{l<j} sin θ_l (λ the radius; the point's offsets
/// from the base are P·cos θⱼ at j and P·sin θⱼ times the tail after j),
/// and the sphere point.
///
/// Kept scaled because the addition formulas are linear in (sin, cos): a
/// neighbour's scaled pair gives the new probe's scaled pair with the same
/// four multiplications, and the two products by P a point would otherwise
/// cost are saved (at 256 bits, two of the 24 multiplications of a new
/// point and its simulated metric value).
#[derive(Debug, Clone)]
struct Probe<T> {
    angle: T,
    /// P·sin θⱼ.
    sin: T,
    /// P·cos θⱼ.
    cos: T,
    point: DVector<T>,
}

/// How many probes an [`AngleSlice`] keeps: the five points of a halving
/// and a few of the previous one.
const PROBES: usize = 8;

/// How many directly computed sines and cosines an [`AngleSlice`] keeps.
const DIRECT: usize = 8;

/// The points μ(θ) as one angle θⱼ varies and the others stay fixed: with
/// the first j coordinates, P = Π_{l<j} sin θ_l and the unit vector t of the
/// angles after j precomputed, a point costs one sin/cos and q
/// multiply-adds: aⱼ = P·cos θⱼ, a_{>j} = P·sin θⱼ·t.
///
/// [`AngleSlice::pair`] keeps the last few probes, so a point the search
/// asks about twice (ShrinkInterval compares each quarter point with both
/// neighbours) is computed once; with [`Steps`], a new probe's sine and
/// cosine come from a kept neighbour by the addition formulas.
#[derive(Debug, Clone)]
pub struct AngleSlice<'a, T: Scalar> {
    base: DVector<T>,
    j: usize,
    scale: T,
    tail: Vec<T>,
    probes: Vec<Probe<T>>,
    /// Probes of an earlier slice, whose storage [`AngleSlice::turn`] keeps
    /// for the next ones.
    free: Vec<Probe<T>>,
    /// Sines and cosines computed directly, (angle, sin, cos), kept across
    /// [`AngleSlice::turn`]: every search over the same range starts at the
    /// same quarter point, the one probe with no kept neighbour.
    direct: Vec<(T, T, T)>,
    next: usize,
    /// The probe [`AngleSlice::pair`] last returned first: a search's
    /// comparisons run along its points (ShrinkInterval asks (c, a),
    /// (d, c), (e, d), (b, e)), so the next pair's second point is usually
    /// this one, and [`AngleSlice::probe`] looks at it before scanning.
    last_first: usize,
    /// The step [`Steps::near`] last found (tried first next time).
    last_step: usize,
    steps: Option<&'a Steps<T>>,
    work: Work<T>,
    spare: Spare<T>,
    prefix: Prefix<T>,
}

/// What the base's first coordinates were computed from at the last
/// [`AngleSlice::turn`]: the sphere, the angles' (sin, cos), and the
/// running products Π_{l<i} sin θ_l (one more than the angles). Kept above
/// f64's precision only (in f64 it stays empty, with the product 1).
#[derive(Debug, Clone)]
struct Prefix<T> {
    center: DVector<T>,
    radius: T,
    trig: Vec<(T, T)>,
    sines: Vec<T>,
}

/// Scratch numbers of [`AngleSlice`]'s probes, allocated once.
#[derive(Debug, Clone)]
struct Work<T> {
    sin: T,
    cos: T,
    delta: T,
    scratch: T,
    term: T,
}

impl<T: Scalar> Work<T> {
    fn new() -> Self {
        let z = || T::int(0);
        Work {
            sin: z(),
            cos: z(),
            delta: z(),
            scratch: z(),
            term: z(),
        }
    }
}

/// One spare probe, to swap a slot out while it is rewritten.
#[derive(Debug, Clone)]
struct Spare<T>(Option<Probe<T>>);

impl<T: Scalar> Spare<T> {
    fn take_probe(&mut self) -> Probe<T> {
        self.0.take().unwrap_or_else(|| Probe {
            angle: T::int(0),
            sin: T::int(0),
            cos: T::int(0),
            point: DVector::zeros(0),
        })
    }

    fn keep_probe(&mut self, probe: Probe<T>) {
        self.0 = Some(probe);
    }
}

impl<'a, T: Scalar> AngleSlice<'a, T> {
    /// The slice through `theta` along angle `j` of `sphere`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `theta` does not have q − 1 angles or
    /// j is out of range.
    pub fn new(sphere: &Sphere<T>, theta: &[T], j: usize) -> Result<Self> {
        Self::with_trig(sphere, &sines_cosines(theta), j, None)
    }

    /// The slice along angle `j` through the angles whose (sin, cos) are
    /// `trig` (no trigonometry), computing new probes from kept ones with
    /// `steps` when given.
    ///
    /// # Errors
    /// As [`AngleSlice::new`].
    pub fn with_trig(
        sphere: &Sphere<T>,
        trig: &[(T, T)],
        j: usize,
        steps: Option<&'a Steps<T>>,
    ) -> Result<Self> {
        // `turn` checks the angles and j.
        let mut slice = AngleSlice {
            base: sphere.center.clone(),
            j,
            scale: T::int(0),
            tail: Vec::with_capacity(sphere.dim()),
            probes: Vec::with_capacity(PROBES),
            free: Vec::new(),
            direct: Vec::new(),
            next: 0,
            last_first: 0,
            last_step: 0,
            steps,
            work: Work::new(),
            spare: Spare(None),
            prefix: Prefix {
                center: DVector::zeros(0),
                radius: T::int(0),
                trig: Vec::new(),
                sines: Vec::new(),
            },
        };
        slice.turn(sphere, trig, j)?;
        Ok(slice)
    }

    /// Turns the slice to angle `j` through the angles whose (sin, cos) are
    /// `trig` (on the same or another sphere), as [`AngleSlice::with_trig`]
    /// would make it, but reusing its numbers: the probes of the previous
    /// angle are dropped and their storage kept, so that a whole LPME run
    /// allocates its probes once.
    ///
    /// # Errors
    /// As [`AngleSlice::new`]; the slice is unchanged then.
    pub fn turn(&mut self, sphere: &Sphere<T>, trig: &[(T, T)], j: usize) -> Result<()> {
        let q = sphere.dim();
        if trig.len() + 1 != q || j + 1 >= q {
            return Err(Error::invalid(
                "angles",
                format!("{} angles and index {j} for dimension {q}", trig.len()),
            ));
        }
        // The first j coordinates of μ(θ), Π_{l<i} sin θ_l · cos θᵢ, and
        // P = Π_{l<j} sin θ_l, in one pass (as `unit_from_sines_cosines`
        // forms them, without the coordinates after j). Above f64's
        // precision (where three multiplications cost more than this
        // bookkeeping) the coordinates whose angles and sphere are the same
        // bits as at the last turn are kept: turning to the next angle
        // after a search changed only the angle searched, so a forward
        // sweep computes one coordinate per turn instead of j (the same
        // operations, the same values).
        let prefix = &mut self.prefix;
        let remember = crate::scalar::costly_arithmetic::<T>();
        let same_sphere = remember
            && prefix.radius.identical(&sphere.radius)
            && self.base.len() == q
            && prefix.center.len() == q
            && prefix
                .center
                .iter()
                .zip(sphere.center.iter())
                .all(|(a, b)| a.identical(b));
        let kept = if same_sphere {
            prefix
                .trig
                .iter()
                .zip(&trig[..j.min(prefix.trig.len())])
                .take_while(|((s0, c0), (s, c))| s0.identical(s) && c0.identical(c))
                .count()
        } else {
            if remember {
                prefix.center.clone_from(&sphere.center);
                prefix.radius.clone_from(&sphere.radius);
            }
            0
        };
        if self.base.len() == q {
            self.base.as_mut_slice()[kept..].clone_from_slice(&sphere.center.as_slice()[kept..]);
        } else {
            self.base = sphere.center.clone();
        }
        prefix.trig.truncate(kept);
        prefix.sines.truncate(kept + 1);
        if prefix.sines.is_empty() {
            prefix.sines.push(T::int(1));
        }
        let w = &mut self.work;
        w.scratch.clone_from(&prefix.sines[kept]);
        for (i, (s, c)) in trig[..j].iter().enumerate().skip(kept) {
            w.term.set_product(&w.scratch, c);
            w.term *= &sphere.radius;
            self.base[i] += &w.term;
            w.scratch *= s;
            if remember {
                prefix.trig.push((s.clone(), c.clone()));
                prefix.sines.push(w.scratch.clone());
            }
        }
        self.scale.set_product(&w.scratch, &sphere.radius);
        unit_into(&trig[j + 1..], &mut self.tail);
        self.j = j;
        self.free.append(&mut self.probes);
        self.next = 0;
        self.last_first = 0;
        Ok(())
    }

    /// The sphere point with angle j set to `angle` (computed afresh).
    pub fn point(&self, angle: &T) -> DVector<T> {
        let (s, c) = angle.clone().sin_cos();
        let (mut ps, mut pc) = (T::int(0), T::int(0));
        ps.set_product(&self.scale, &s);
        pc.set_product(&self.scale, &c);
        let mut z = self.base.clone();
        Self::write_into(&self.base, self.j, &self.tail, (&ps, &pc), &mut z);
        z
    }

    /// z := base + (P·cos θⱼ at j, P·sin θⱼ·tail after j), in place, given
    /// (P·sin θⱼ, P·cos θⱼ), for a `z` whose
    /// coordinates before j are the base's already (a copy of the base, or
    /// a point of the same slice).
    fn write_into(base: &DVector<T>, j: usize, tail: &[T], (ps, pc): (&T, &T), z: &mut DVector<T>) {
        let (z, base) = (z.as_mut_slice(), base.as_slice());
        // Each offset is formed in its coordinate, then the base added in
        // place: x + b is x itself when b is zero and x is not (a sphere
        // centred at the origin, or on an axis, costs no additions there
        // above f64's precision; in f64 the addition costs less than the
        // test), and b + x otherwise (the same rounding, signed zeros
        // included).
        let test = crate::scalar::costly_arithmetic::<T>();
        let add_base = |x: &mut T, b: &T| {
            if !test || !b.is_zero() || x.is_zero() {
                *x += b;
            }
        };
        z[j].clone_from(pc);
        add_base(&mut z[j], &base[j]);
        for ((x, b), t) in z[j + 1..].iter_mut().zip(&base[j + 1..]).zip(tail) {
            x.set_product(ps, t);
            add_base(x, b);
        }
    }

    /// The index of the kept probe at `angle`, computing it if needed and
    /// never evicting probe `keep` (an evicted probe's storage is reused, so
    /// that a probe costs no allocation once the slice holds [`PROBES`]);
    /// `keep` is also the neighbour a new probe's sine and cosine are
    /// derived from first.
    fn probe(&mut self, angle: &T, keep: Option<usize>) -> usize {
        if self
            .probes
            .get(self.last_first)
            .is_some_and(|p| p.angle.identical(angle))
        {
            return self.last_first;
        }
        if let Some(i) = self.probes.iter().position(|p| p.angle.identical(angle)) {
            return i;
        }
        self.sines_cosines(angle, keep);
        let i = if self.probes.len() < PROBES {
            let probe = match self.free.pop() {
                Some(mut p) if p.point.len() == self.base.len() => {
                    // Coordinates before j are the base's in every probe.
                    p.point.as_mut_slice()[..self.j]
                        .clone_from_slice(&self.base.as_slice()[..self.j]);
                    p
                }
                _ => Probe {
                    angle: angle.clone(),
                    sin: T::int(0),
                    cos: T::int(0),
                    point: self.base.clone(),
                },
            };
            self.probes.push(probe);
            self.probes.len() - 1
        } else {
            if Some(self.next) == keep {
                self.next = (self.next + 1) % PROBES;
            }
            let i = self.next;
            self.next = (self.next + 1) % PROBES;
            i
        };
        let mut probe = std::mem::replace(&mut self.probes[i], self.spare.take_probe());
        probe.angle.clone_from(angle);
        std::mem::swap(&mut probe.sin, &mut self.work.sin);
        std::mem::swap(&mut probe.cos, &mut self.work.cos);
        Self::write_into(
            &self.base,
            self.j,
            &self.tail,
            (&probe.sin, &probe.cos),
            &mut probe.point,
        );
        self.spare
            .keep_probe(std::mem::replace(&mut self.probes[i], probe));
        i
    }

    /// P·sin and P·cos of `angle` (P = λ·Π_{l<j} sin θ_l, the slice's
    /// scale) into
    /// `self.work.sin`, `self.work.cos`: from a kept probe one step away
    /// (addition formulas) when [`Steps`] are given, else from sin and cos
    /// computed directly.
    fn sines_cosines(&mut self, angle: &T, first: Option<usize>) {
        // (Tested here as well, so that without steps, in f64, no call is
        // made.)
        if self.steps.is_some() && self.derive_from_neighbour(angle, first) {
            return;
        }
        let w = &mut self.work;
        if let Some((_, s, c)) = Self::kept_direct(self.steps, &self.direct, angle) {
            w.sin.set_product(&self.scale, s);
            w.cos.set_product(&self.scale, c);
            return;
        }
        let (s, c) = angle.clone().sin_cos();
        w.sin.set_product(&self.scale, &s);
        w.cos.set_product(&self.scale, &c);
        if self.steps.is_some() {
            if self.direct.len() == DIRECT {
                self.direct.remove(0);
            }
            self.direct.push((angle.clone(), s, c));
        }
    }

    /// With [`Steps`]: P·sin and P·cos of `angle` into `self.work.sin`,
    /// `self.work.cos` from the first kept probe (probe `first`, then the
    /// newest) a step or less away, by the addition formulas (linear in
    /// the pair, so they hold for the scaled pair); false when there are no
    /// steps or no probe is that near.
    fn derive_from_neighbour(&mut self, angle: &T, first: Option<usize>) -> bool {
        let Some(steps) = self.steps else {
            return false;
        };
        let w = &mut self.work;
        let others = (0..self.probes.len()).rev().filter(|&i| Some(i) != first);
        for p in first.into_iter().chain(others).map(|i| &self.probes[i]) {
            w.delta.set_difference(angle, &p.angle);
            let negative = w.delta.is_sign_negative();
            if negative {
                w.delta.neg_assign();
            }
            match steps.near(&w.delta, &mut self.last_step) {
                // sin(θ₀ ± w) = sin θ₀ cos w ± cos θ₀ sin w,
                // cos(θ₀ ± w) = cos θ₀ cos w ∓ sin θ₀ sin w.
                Some(Step::Width(sw, cw)) => {
                    w.sin.set_product(&p.sin, cw);
                    w.term.set_product(&p.cos, sw);
                    w.cos.set_product(&p.cos, cw);
                    w.scratch.set_product(&p.sin, sw);
                    if negative {
                        w.sin -= &w.term;
                        w.cos += &w.scratch;
                    } else {
                        w.sin += &w.term;
                        w.cos -= &w.scratch;
                    }
                    return true;
                }
                // sin(θ₀ + δ) = sin θ₀ + δ cos θ₀, cos(θ₀ + δ) =
                // cos θ₀ − δ sin θ₀ (δ signed; exact to δ²/2).
                Some(Step::Tiny) => {
                    if negative {
                        w.delta.neg_assign();
                    }
                    w.term.set_product(&w.delta, &p.cos);
                    w.sin.set_sum(&p.sin, &w.term);
                    w.term.set_product(&w.delta, &p.sin);
                    w.cos.set_difference(&p.cos, &w.term);
                    return true;
                }
                None => {}
            }
        }
        false
    }

    /// (sin, cos) of `angle`: with [`Steps`], from a kept probe at or one
    /// step from it (a search's estimate is within rounding of its last
    /// probe), its scaled pair times 1/P (P = λ·Π_{l<j} sin θ_l; two
    /// roundings more), or from the kept direct evaluations; else, or when
    /// P is 0, by direct evaluation.
    pub fn trig(&mut self, angle: &T) -> (T, T) {
        if self.steps.is_some() && !self.scale.is_zero() && self.derive_from_neighbour(angle, None)
        {
            // One division, two multiplications (a division costs about
            // three multiplications at MPFR precision).
            let inverse = T::int(1) / self.scale.clone();
            let w = &self.work;
            let (mut s, mut c) = (T::int(0), T::int(0));
            s.set_product(&w.sin, &inverse);
            c.set_product(&w.cos, &inverse);
            return (s, c);
        }
        if let Some((_, s, c)) = Self::kept_direct(self.steps, &self.direct, angle) {
            return (s.clone(), c.clone());
        }
        angle.clone().sin_cos()
    }

    /// With [`Steps`], the kept direct evaluation (angle, sin, cos) at
    /// `angle`, if any (on the slice's parts, so that its scratch numbers
    /// can be borrowed beside it).
    fn kept_direct<'d>(
        steps: Option<&Steps<T>>,
        direct: &'d [(T, T, T)],
        angle: &T,
    ) -> Option<&'d (T, T, T)> {
        steps.and_then(|_| direct.iter().find(|(a, ..)| a.identical(angle)))
    }

    /// The points at angles `x` and `y`, computed once and kept for the
    /// next comparisons.
    pub fn pair(&mut self, x: &T, y: &T) -> (&DVector<T>, &DVector<T>) {
        // y first: it is nearly always kept (the previous pair's x), and a
        // new x is one step from it (ShrinkInterval asks (c, a), (d, c),
        // (e, d), (b, e), each a quarter width apart), so its sine and
        // cosine follow from y's at the first try.
        let k = self.probe(y, None);
        let i = self.probe(x, Some(k));
        self.last_first = i;
        (&self.probes[i].point, &self.probes[k].point)
    }
}

/// The angles of a unit vector (inverse of [`unit_from_angles`]), in the
/// standard ranges θ₁..θ_{q−2} ∈ [0, π], θ_{q−1} ∈ [0, 2π).
pub fn angles_from_unit<T: Scalar>(a: &DVector<T>) -> Vec<T> {
    let q = a.len();
    let mut theta = Vec::with_capacity(q - 1);
    for i in 0..q - 1 {
        if i < q - 2 {
            let rest = a.rows(i + 1, q - i - 1).norm();
            theta.push(rest.atan2(a[i].clone()));
        } else {
            let mut t = a[q - 1].clone().atan2(a[q - 2].clone());
            if t < T::int(0) {
                t += T::two_pi();
            }
            theta.push(t);
        }
    }
    theta
}

/// Sign of a coordinate of the metric (its orthant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Sign {
    /// ≥ 0.
    Positive,
    /// ≤ 0.
    Negative,
}

impl Sign {
    /// The sign of `v`: [`Sign::Positive`] for v ≥ 0 (zero included).
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::geometry::sphere::Sign;
    /// assert_eq!(Sign::of(&0.0), Sign::Positive);
    /// assert_eq!(Sign::of(&-1e-300), Sign::Negative);
    /// ```
    pub fn of<T: Scalar>(v: &T) -> Self {
        if *v >= T::int(0) {
            Sign::Positive
        } else {
            Sign::Negative
        }
    }
}

/// The angle ranges that keep μ(θ) in the orthant `signs` (001 App. A):
/// θⱼ ∈ [0, π/2] for + and [π/2, π] for − (j ≤ q − 2); the last angle from
/// the last two signs: (+,+) [0, π/2], (−,+) [π/2, π], (−,−) [π, 3π/2],
/// (+,−) [3π/2, 2π].
pub fn orthant_ranges<T: Scalar>(signs: &[Sign]) -> Vec<(T, T)> {
    let q = signs.len();
    let half = T::frac_pi_2();
    let quadrant = |k: i64| (half.clone() * T::int(k), half.clone() * T::int(k + 1));
    let mut ranges: Vec<(T, T)> = signs[..q - 2]
        .iter()
        .map(|s| quadrant(if *s == Sign::Positive { 0 } else { 1 }))
        .collect();
    ranges.push(quadrant(match (signs[q - 2], signs[q - 1]) {
        (Sign::Positive, Sign::Positive) => 0,
        (Sign::Negative, Sign::Positive) => 1,
        (Sign::Negative, Sign::Negative) => 2,
        (Sign::Positive, Sign::Negative) => 3,
    }));
    ranges
}

/// A sphere inside the off-diagonal confusions of a k-class population
/// (002 §3.2, Table 3): centred at the confusion of the uniform random
/// classifier, o_ij = ζᵢ/k (row-major off-diagonal), with radius
/// λ = min ζᵢ/(4k), which keeps every point a valid confusion (002 App. D's
/// radius is not in the text; with an exact oracle the result does not
/// depend on it).
///
/// # Errors
/// [`Error::InvalidArgument`] when a class has prior 0 (no sphere fits).
pub fn off_diagonal_sphere<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(
    pop: &P,
) -> Result<Sphere<T>> {
    let k = pop.classes();
    let priors = pop.priors();
    let kt = T::int(k as i64);
    let mut center = Vec::with_capacity(k * k - k);
    for (i, zeta) in priors.iter().enumerate() {
        for j in 0..k {
            if i != j {
                center.push(zeta.clone() / kt.clone());
            }
        }
    }
    let least = priors.iter().cloned().fold(T::int(1), |m, z| m.min(z));
    if least <= T::int(0) {
        return Err(Error::invalid(
            "population",
            "a class with prior 0 leaves no sphere inside the confusions",
        ));
    }
    Sphere::new(DVector::from_vec(center), least / (T::int(4) * kt))
}
