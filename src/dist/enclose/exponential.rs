//! Enclosures of the exponential Exp(μ) and the two-phase hyperexponential
//! p·Exp(μ₁) + (1 − p)·Exp(μ₂), with the formulas of `dist/exponential.rs`:
//!
//! - F̄(x) = e^(−μx);
//! - for j = 0, 1, 2, with y = μ(b − a), the positive-term form
//!   M_j(a, b) = e^(−μa) Σ_{i≤j} C(j, i) a^(j−i) (i!/μ^i) P(i+1, y), P the regularised lower
//!   incomplete gamma of an integer order (no cancellation on short intervals);
//! - M_{−1}(a, b) = μ (E1(μa) − E1(μb)) = μ ∫_{μa}^{μb} y^(−1) e^(−y) dy
//!   ([`crate::num::gamma::gamma_interval_enclosure`]), infinite for a = 0;
//! - sup x F̄(x) = 1/(eμ) (at x = 1/μ). For the hyperexponential x F̄(x) may have two local
//!   maxima; every critical point lies in [1/max μ, 1/min μ] (outside it both terms of the
//!   derivative have one sign), which is partitioned into boxes on which the derivative's
//!   enclosure has a sign (the maximum is at one end) or that are too short to split.

use super::{clip, gamma_error, infinite_moment, pt, require_positive, Enclosure};
use crate::dist::DistError;
use crate::num::gamma::gamma_interval_enclosure;
use crate::num::interval::Interval;
use crate::num::NumError;
use rug::Float;

/// P(n, y) for y below this is summed as the series e^(−y) Σ_{m≥n} y^m/m! (it converges in
/// at most bits/16 terms); above it, e^(−y)(expm1(y) − Σ_{1≤m<n} y^m/m!) with the bits the
/// subtraction loses added (about (n−1)·log2(1/y)).
const SERIES_BELOW_LOG2: i32 = -16;
/// Guard bits of P(n, y)'s subtraction beyond the bits it loses.
const P_GUARD_BITS: u32 = 16;

/// Exp(μ).
#[derive(Debug, Clone)]
pub struct ExponentialEnclosure {
    rate: Interval,
}

impl ExponentialEnclosure {
    /// Exp(μ) from an enclosure of μ > 0.
    pub fn new(rate: Interval) -> Result<Self, DistError> {
        require_positive("exp", "rate", &rate)?;
        Ok(ExponentialEnclosure { rate })
    }
}

/// P(n, y) = 1 − e^(−y) Σ_{m<n} y^m/m! for n ∈ {1, 2, 3} and an exact y ≥ 0 (+∞ gives 1).
fn lower_regularised_at(n: u32, y: &Interval) -> Interval {
    let bits = y.prec();
    if y.lo().is_infinite() {
        return Interval::int(bits, 1);
    }
    if y.hi().is_zero() {
        return Interval::zero_at(bits);
    }
    if n == 1 {
        return y.neg().exp_m1().neg();
    }
    let e = y.neg().exp();
    if *y.lo() >= 1 {
        // P(n, y) ≥ P(n, 1): the subtraction loses at most log2(1/P(3, 1)) < 4 bits.
        let mut term = Interval::int(bits, 1);
        let mut partial = term.clone();
        for m in 1..n {
            term = term.mul(y).div_u(m);
            partial = partial.add(&term);
        }
        return Interval::int(bits, 1).sub(&partial.mul(&e));
    }
    let ey = y.lo().get_exp().unwrap_or(0);
    if ey > SERIES_BELOW_LOG2 {
        // e^(−y)(expm1(y) − Σ_{1≤m<n} y^m/m!) at the bits it cancels more.
        let lost = (n as i32 - 1) * (1 - ey).max(0);
        let w = bits + lost as u32 + P_GUARD_BITS;
        let yw = y.at_prec(w);
        let mut t = yw.exp_m1();
        let mut term = Interval::int(w, 1);
        for m in 1..n {
            term = term.mul(&yw).div_u(m);
            t = t.sub(&term);
        }
        return t.mul(&yw.neg().exp()).at_prec(bits);
    }
    // e^(−y) (y^n/n!)(1 + y/(n+1) + …): positive terms with ratio r ≤ y/(n+1) < 1, the tail
    // after a term t at most t·r/(1 − r).
    let mut term = Interval::int(bits, 1);
    for m in 1..=n {
        term = term.mul(y).div_u(m);
    }
    let mut sum = term.clone();
    let eps = Float::with_val(bits, 1u32) >> bits;
    let mut m = n;
    loop {
        m += 1;
        term = term.mul(y).div_u(m);
        sum = sum.add(&term);
        let r = y.div_u(m + 1);
        let tail = term.mul(&r).div(&Interval::int(bits, 1).sub(&r));
        if *tail.hi() <= Float::with_val(bits, sum.lo() * &eps) || m > bits {
            let sum = Interval::new(sum.lo().clone(), sum.add(&tail).hi().clone());
            return sum.mul(&e);
        }
    }
}

impl ExponentialEnclosure {
    /// M_j(a, b) for exact 0 ≤ a < b ≤ ∞.
    fn moment_clipped(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.rate.prec();
        let ai = pt(bits, a);
        if j == -1 {
            if a.is_zero() {
                return Err(infinite_moment("exp", j, a, b));
            }
            let bi = pt(bits, b);
            let g = gamma_interval_enclosure(
                &Interval::zero_at(bits),
                &self.rate.mul(&ai),
                &self.rate.mul(&bi),
            )
            .map_err(gamma_error("exp", j, a, b))?;
            return Ok(self.rate.mul(&g));
        }
        let y = if b.is_infinite() {
            Interval::infinite_at(bits)
        } else {
            self.rate.mul(&pt(bits, b).sub(&ai))
        };
        let p = |n: u32| y.increasing(|y| lower_regularised_at(n, y));
        let inv = self.rate.recip();
        let ea = self.rate.mul(&ai).neg().exp();
        let sum = match j {
            0 => p(1),
            1 => ai.mul(&p(1)).add(&inv.mul(&p(2))),
            _ => ai
                .square()
                .mul(&p(1))
                .add(&ai.mul(&inv).mul_u(2).mul(&p(2)))
                .add(&inv.square().mul_u(2).mul(&p(3))),
        };
        Ok(ea.mul(&sum))
    }
}

impl Enclosure for ExponentialEnclosure {
    family_items!("exp", rate);
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if *x <= 0 {
            return Ok(Interval::int(bits, 1));
        }
        Ok(self.rate.mul(&pt(bits, x)).neg().exp())
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let Some((ai, bi)) = clip(a, b, &self.lower(), &self.upper()) else {
            return Ok(Interval::zero_at(bits));
        };
        // The support's ends are exact (0, +∞): the clipped ends are points.
        self.moment_clipped(j, ai.lo(), bi.lo())
    }
    /// f(x) = μ e^(−μx) for x ≥ 0 (falling; 0 below 0): over [x₀, x₁] ⊂ [0, ∞) between
    /// f(x₁) and f(x₀), with μ's enclosure entering both.
    fn density(&self, x: &Interval) -> Option<Interval> {
        let bits = self.prec();
        if *x.hi() < 0 {
            return Some(Interval::zero_at(bits));
        }
        let zero = Float::with_val(bits, 0);
        let left = x.lo().clone().max(&zero);
        let at = |y: &Float| self.rate.mul(&self.rate.mul(&pt(bits, y)).neg().exp());
        let hi = at(&left).hi().clone();
        let lo = if *x.lo() >= 0 && x.hi().is_finite() {
            at(x.hi()).lo().clone().max(&zero)
        } else {
            zero
        };
        Some(Interval::new(lo, hi))
    }
    /// f'(x) = −μ f(x) inside (0, ∞), 0 below 0; `None` over an interval that meets 0,
    /// where f jumps from 0 to μ.
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        let bits = self.prec();
        if *x.hi() < 0 {
            return Some(Interval::zero_at(bits));
        }
        if *x.lo() <= 0 {
            return None;
        }
        Some(self.rate.mul(&self.density(x)?).neg())
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        Ok(self.rate.recip().mul(&Interval::int(bits, -1).exp()))
    }
}

/// p·Exp(μ₁) + (1 − p)·Exp(μ₂).
#[derive(Debug, Clone)]
pub struct HyperExpEnclosure {
    p: Interval,
    q: Interval,
    one: ExponentialEnclosure,
    two: ExponentialEnclosure,
}

impl HyperExpEnclosure {
    /// From enclosures of p ∈ (0, 1), of 1 − p (given apart, so that a form that computes
    /// it without cancellation keeps its digits) and of the two rates.
    pub fn new(
        p: Interval,
        q: Interval,
        rate1: Interval,
        rate2: Interval,
    ) -> Result<Self, DistError> {
        require_positive("hyperexp", "p", &p)?;
        require_positive("hyperexp", "1 - p", &q)?;
        let one = ExponentialEnclosure::new(rate1)?;
        let two = ExponentialEnclosure::new(rate2)?;
        Ok(HyperExpEnclosure { p, q, one, two })
    }

    /// x F̄(x) at an exact x.
    fn g_at(&self, x: &Float) -> Result<Interval, DistError> {
        Ok(pt(self.prec(), x).mul(&self.tail_at(x)?))
    }

    /// (x F̄(x))' = Σ p_i e^(−μ_i x)(1 − μ_i x) over the box x.
    fn slope(&self, x: &Interval) -> Interval {
        let one = Interval::int(self.prec(), 1);
        let term = |w: &Interval, r: &Interval| {
            let rx = r.mul(x);
            w.mul(&rx.neg().exp()).mul(&one.sub(&rx))
        };
        term(&self.p, &self.one.rate).add(&term(&self.q, &self.two.rate))
    }
}

/// Most boxes [`HyperExpEnclosure::sup_x_tail`] examines.
const SUP_MAX_BOXES: usize = 200_000;

impl Enclosure for HyperExpEnclosure {
    family_items!("hyperexp", p);
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        Ok(self
            .p
            .mul(&self.one.tail_at(x)?)
            .add(&self.q.mul(&self.two.tail_at(x)?)))
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let m1 = self.one.moment_at(j, a, b).map_err(rename)?;
        let m2 = self.two.moment_at(j, a, b).map_err(rename)?;
        Ok(self.p.mul(&m1).add(&self.q.mul(&m2)))
    }
    /// p f₁ + (1 − p) f₂ over the interval (each falling).
    fn density(&self, x: &Interval) -> Option<Interval> {
        let f1 = self.one.density(x)?;
        let f2 = self.two.density(x)?;
        Some(self.p.mul(&f1).add(&self.q.mul(&f2)))
    }
    /// p f₁' + (1 − p) f₂'.
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        let d1 = self.one.density_slope(x)?;
        let d2 = self.two.density_slope(x)?;
        Some(self.p.mul(&d1).add(&self.q.mul(&d2)))
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        let (r1, r2) = (&self.one.rate, &self.two.rate);
        // Every critical point lies in [1/max μ, 1/min μ].
        let lo = Interval::point(r1.hi().clone().max(r2.hi())).recip();
        let hi = Interval::point(r1.lo().clone().min(r2.lo())).recip();
        let (lo, hi) = (lo.lo().clone(), hi.hi().clone());
        let mut best = self.g_at(&lo)?.lo().clone().max(self.g_at(&hi)?.lo());
        let mut upper = Float::with_val(bits, 0);
        let mut boxes = vec![(lo, hi)];
        let mut seen = 0usize;
        let min_rel = Float::with_val(bits, 1u32) >> bits.saturating_sub(8);
        while let Some((a, b)) = boxes.pop() {
            seen += 1;
            if seen > SUP_MAX_BOXES {
                return Err(DistError::Num(NumError::NoConvergence {
                    what: "sup x F̄(x) of the hyperexponential: boxes".into(),
                    iterations: SUP_MAX_BOXES,
                    lo: crate::num::message_number(&best),
                    hi: crate::num::message_number(&upper),
                }));
            }
            // On the box x F̄(x) ≤ b F̄(a): a box whose bound is below a value already
            // reached holds no larger one.
            let bound = pt(bits, &b).mul(&self.tail_at(&a)?);
            if *bound.hi() < best {
                continue;
            }
            let s = self.slope(&Interval::new(a.clone(), b.clone()));
            if s.is_positive() || s.is_negative() {
                let end = if s.is_positive() { &b } else { &a };
                let g = self.g_at(end)?;
                best = best.max(g.lo());
                upper = upper.max(g.hi());
                continue;
            }
            let width = Float::with_val(bits, &b - &a);
            if width <= Float::with_val(bits, &a * &min_rel) {
                best = best.max(self.g_at(&a)?.lo()).max(self.g_at(&b)?.lo());
                upper = upper.max(bound.hi());
                continue;
            }
            let mid = Float::with_val(bits, Float::with_val(bits + 1, &a + &b) / 2u32);
            boxes.push((mid.clone(), b));
            boxes.push((a, mid));
        }
        let upper = upper.max(&best);
        Ok(Interval::new(best, upper))
    }
}

/// A component's error named by the hyperexponential.
fn rename(e: DistError) -> DistError {
    match e {
        DistError::InfiniteMoment { j, a, b, .. } => DistError::InfiniteMoment {
            family: "hyperexp",
            j,
            a,
            b,
        },
        other => other,
    }
}
