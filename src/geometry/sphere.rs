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
        Ok(&self.center + a * self.radius.clone())
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
    let q = trig.len() + 1;
    let mut a = DVector::from_element(q, T::int(0));
    let mut sines = T::int(1);
    for (i, (s, c)) in trig.iter().enumerate() {
        a[i] = sines.clone() * c.clone();
        sines *= s;
    }
    a[q - 1] = sines;
    a
}

/// sin and cos of the quarter widths w_n = L·2^−(n+2) of a halving search
/// over an interval of length L: the steps between its probes
/// (c = a + w, d = c + w, e = d + w), so that a probe's sine and cosine
/// follow from a neighbour's by the addition formulas instead of a fresh
/// evaluation (what makes LPME at MPFR precision affordable: a 256-bit
/// sine costs about forty multiplications).
#[derive(Debug, Clone)]
pub struct Steps<T> {
    /// (w_n, sin w_n, cos w_n), widest first.
    steps: Vec<(T, T, T)>,
    /// How far a step between probes may be from w_n: a few units of
    /// rounding of angles up to 2π.
    tolerance: T,
    /// −tolerance.
    neg_tolerance: T,
    /// 1, the cosine of a step within rounding of zero.
    one: T,
}

impl<T: Scalar> Steps<T> {
    /// The steps of `halvings` halvings of an interval of length `length`.
    pub fn new(length: &T, halvings: usize) -> Self {
        let mut w = length.clone();
        w.mul_pow2_assign(-2);
        let mut steps = Vec::with_capacity(halvings + 2);
        // Two more than the halvings: the adaptive strategy also steps by
        // twice the quarter width.
        for _ in 0..halvings + 2 {
            let (s, c) = w.clone().sin_cos();
            steps.push((w.clone(), s, c));
            w.mul_pow2_assign(-1);
        }
        let mut wide = length.clone();
        wide.mul_pow2_assign(-1);
        let (s, c) = wide.clone().sin_cos();
        steps.insert(0, (wide, s, c));
        let tolerance = crate::prec::ulps::<T>(256);
        Steps {
            steps,
            neg_tolerance: -tolerance.clone(),
            tolerance,
            one: T::int(1),
        }
    }

    /// sin δ and cos δ for a δ ≥ 0 within a few units of rounding of one
    /// of the steps w, into `sin` and `cos`: sin δ = sin w + (δ − w) cos w,
    /// cos δ = cos w − (δ − w) sin w, exact to the neglected (δ − w)²/2 (far
    /// below the working precision, since |δ − w| is a rounding error);
    /// and, for a δ within rounding of 0 (a search's estimate beside the
    /// probe it was carried from), sin δ = δ, cos δ = 1.
    /// Returns false (and leaves them undefined) when δ is no step.
    /// `scratch` is reused; nothing is allocated.
    fn near(&self, delta: &T, scratch: &mut T, sin: &mut T, cos: &mut T) -> bool {
        if *delta <= self.tolerance {
            sin.clone_from(delta);
            cos.clone_from(&self.one);
            return true;
        }
        // Widths halve; the one within tolerance of δ is the widest not
        // above δ + tolerance.
        scratch.set_sum(delta, &self.tolerance);
        let i = self.steps.partition_point(|(w, ..)| *w > *scratch);
        let Some((w, s, c)) = self.steps.get(i) else {
            return false;
        };
        scratch.set_difference(delta, w);
        if *scratch > self.tolerance || *scratch < self.neg_tolerance {
            return false;
        }
        // sin := s + e·c, cos := c − e·s (e = δ − w in `scratch`).
        sin.set_product(scratch, c);
        *sin += s;
        cos.set_product(scratch, s);
        cos.neg_assign();
        *cos += c;
        true
    }
}

/// A probe of an [`AngleSlice`]: the angle, its sine and cosine, and the
/// sphere point.
#[derive(Debug, Clone)]
struct Probe<T> {
    angle: T,
    sin: T,
    cos: T,
    point: DVector<T>,
}

/// How many probes an [`AngleSlice`] keeps: the five points of a halving
/// and a few of the previous one.
const PROBES: usize = 8;

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
    tail: DVector<T>,
    probes: Vec<Probe<T>>,
    next: usize,
    /// The probe [`AngleSlice::pair`] last returned first: a search's
    /// comparisons run along its points (ShrinkInterval asks (c, a),
    /// (d, c), (e, d), (b, e)), so the next pair's second point is usually
    /// this one, and [`AngleSlice::probe`] looks at it before scanning.
    last_first: usize,
    steps: Option<&'a Steps<T>>,
    work: Work<T>,
    spare: Spare<T>,
}

/// Scratch numbers of [`AngleSlice`]'s probes, allocated once.
#[derive(Debug, Clone)]
struct Work<T> {
    sin: T,
    cos: T,
    delta: T,
    scratch: T,
    step_sin: T,
    step_cos: T,
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
            step_sin: z(),
            step_cos: z(),
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
        let q = sphere.dim();
        if trig.len() + 1 != q || j + 1 >= q {
            return Err(Error::invalid(
                "angles",
                format!("{} angles and index {j} for dimension {q}", trig.len()),
            ));
        }
        // The first j coordinates of μ(θ), Π_{l<i} sin θ_l · cos θᵢ, and
        // P = Π_{l<j} sin θ_l, in one pass (as `unit_from_sines_cosines`
        // forms them, without the coordinates after j).
        let mut base = sphere.center.clone();
        let (mut p, mut term) = (T::int(1), T::int(0));
        for (i, (s, c)) in trig[..j].iter().enumerate() {
            term.set_product(&p, c);
            term *= &sphere.radius;
            base[i] += &term;
            p *= s;
        }
        Ok(AngleSlice {
            base,
            j,
            scale: p * sphere.radius.clone(),
            tail: unit_from_sines_cosines(&trig[j + 1..]),
            probes: Vec::with_capacity(PROBES),
            next: 0,
            last_first: 0,
            steps,
            work: Work::new(),
            spare: Spare(None),
        })
    }

    /// The sphere point with angle j set to `angle` (computed afresh).
    pub fn point(&self, angle: &T) -> DVector<T> {
        let (s, c) = angle.clone().sin_cos();
        let mut z = self.base.clone();
        self.write_point(&s, &c, &mut z, (&mut T::int(0), &mut T::int(0)));
        z
    }

    /// z := base + scale·(cos at j, sin·tail after j), in place, with two
    /// scratch numbers, for a `z` whose coordinates before j are the base's
    /// already (a copy of the base, or a point of the same slice).
    fn write_point(&self, s: &T, c: &T, z: &mut DVector<T>, scratch: (&mut T, &mut T)) {
        Self::write_into(
            &self.base,
            self.j,
            &self.scale,
            &self.tail,
            (s, c),
            z,
            scratch,
        );
    }

    /// [`AngleSlice::write_point`] on the slice's parts (so that the
    /// slice's own scratch numbers can be borrowed beside them).
    fn write_into(
        base: &DVector<T>,
        j: usize,
        scale: &T,
        tail: &DVector<T>,
        (s, c): (&T, &T),
        z: &mut DVector<T>,
        (ss, term): (&mut T, &mut T),
    ) {
        let (z, base) = (z.as_mut_slice(), base.as_slice());
        z[j..]
            .iter_mut()
            .zip(&base[j..])
            .for_each(|(x, b)| x.clone_from(b));
        term.set_product(scale, c);
        z[j] += &*term;
        ss.set_product(scale, s);
        for (x, t) in z[j + 1..].iter_mut().zip(tail.as_slice()) {
            term.set_product(ss, t);
            *x += &*term;
        }
    }

    /// The index of the kept probe at `angle`, computing it if needed and
    /// never evicting probe `keep` (an evicted probe's storage is reused, so
    /// that a probe costs no allocation once the slice holds [`PROBES`]).
    fn probe(&mut self, angle: &T, keep: Option<usize>) -> usize {
        if self
            .probes
            .get(self.last_first)
            .is_some_and(|p| p.angle == *angle)
        {
            return self.last_first;
        }
        if let Some(i) = self.probes.iter().position(|p| p.angle == *angle) {
            return i;
        }
        self.sines_cosines(angle);
        let i = if self.probes.len() < PROBES {
            self.probes.push(Probe {
                angle: angle.clone(),
                sin: T::int(0),
                cos: T::int(0),
                point: self.base.clone(),
            });
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
        let w = &mut self.work;
        let (ss, term) = (&mut w.scratch, &mut w.term);
        Self::write_into(
            &self.base,
            self.j,
            &self.scale,
            &self.tail,
            (&probe.sin, &probe.cos),
            &mut probe.point,
            (ss, term),
        );
        self.spare
            .keep_probe(std::mem::replace(&mut self.probes[i], probe));
        i
    }

    /// sin and cos of `angle` into `self.work.sin`, `self.work.cos`: from a
    /// kept probe one step away (addition formulas) when [`Steps`] are
    /// given, else directly.
    fn sines_cosines(&mut self, angle: &T) {
        let w = &mut self.work;
        if let Some(steps) = self.steps {
            for p in self.probes.iter().rev() {
                w.delta.set_difference(angle, &p.angle);
                let negative = w.delta.is_sign_negative();
                if negative {
                    w.delta.neg_assign();
                }
                if steps.near(&w.delta, &mut w.scratch, &mut w.step_sin, &mut w.step_cos) {
                    if negative {
                        w.step_sin.neg_assign();
                    }
                    // sin(θ₀ + δ) = sin θ₀ cos δ + cos θ₀ sin δ,
                    // cos(θ₀ + δ) = cos θ₀ cos δ − sin θ₀ sin δ.
                    w.sin.set_product(&p.sin, &w.step_cos);
                    w.term.set_product(&p.cos, &w.step_sin);
                    w.sin += &w.term;
                    w.cos.set_product(&p.cos, &w.step_cos);
                    w.term.set_product(&p.sin, &w.step_sin);
                    w.cos -= &w.term;
                    return;
                }
            }
        }
        let (s, c) = angle.clone().sin_cos();
        w.sin = s;
        w.cos = c;
    }

    /// (sin, cos) of `angle`: from a kept probe at or one step from it
    /// when the slice has [`Steps`] (a search's estimate is within rounding
    /// of its last probe), else by direct evaluation.
    pub fn trig(&mut self, angle: &T) -> (T, T) {
        self.sines_cosines(angle);
        (self.work.sin.clone(), self.work.cos.clone())
    }

    /// The points at angles `x` and `y`, computed once and kept for the
    /// next comparisons.
    pub fn pair(&mut self, x: &T, y: &T) -> (&DVector<T>, &DVector<T>) {
        let i = self.probe(x, None);
        let k = self.probe(y, Some(i));
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
