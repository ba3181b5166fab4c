//! Points of the size axis that carry the values every quantity at them shares.
//!
//! The optimiser and the policy formulas evaluate, at each cutoff x, the tail F̄(x), the
//! density f(x) and partial moments on the intervals that end at x. For a power law every
//! one of these is a product of (k/x)^α, powers of x and ln(x/k); computed per call, each
//! costs its own logarithm and exponential. A [`Point`] made once by [`JobSize::point`]
//! keeps those per-point values, and caches the tail and the density when first asked, so
//! that a host term between two prepared points needs at most one more transcendental call
//! (an expm1 on a short interval) instead of a dozen.

use super::{check_order, DistError, JobSize};
use crate::num::message_number;
use rug::Float;
use std::cell::OnceCell;

/// A point x with the values its family shares between the quantities at x (see the
/// module documentation). Families without shared values use [`Point::plain`]; every
/// `*_at` method of [`JobSize`] then falls back to the plain method at `x`.
#[derive(Debug, Clone)]
pub struct Point {
    /// The point.
    pub x: Float,
    /// Family-specific values at x (empty for [`Point::plain`]).
    pub(crate) aux: Vec<Float>,
    tail: OnceCell<Float>,
    density: OnceCell<Option<Float>>,
}

impl Point {
    /// A point with no shared values.
    pub fn plain(x: &Float) -> Self {
        Self::with_aux(x, Vec::new())
    }

    pub(crate) fn with_aux(x: &Float, aux: Vec<Float>) -> Self {
        Point {
            x: x.clone(),
            aux,
            tail: OnceCell::new(),
            density: OnceCell::new(),
        }
    }

    /// F̄(x) for `dist` (the distribution that made the point), computed once.
    pub fn tail(&self, dist: &dyn JobSize) -> Float {
        self.tail.get_or_init(|| dist.tail_at(self)).clone()
    }

    /// f(x) for `dist` (the distribution that made the point), computed once; `None` for a
    /// discrete distribution.
    pub fn density(&self, dist: &dyn JobSize) -> Option<Float> {
        self.density.get_or_init(|| dist.density_at(self)).clone()
    }
}

/// Extra bits of the logarithms ln(x/k) kept by [`PowerLaw`] points, so that ln(b/a) and
/// ln(p/x) can be taken as differences of them.
pub(crate) const LOG_GUARD_BITS: u32 = 32;

/// A difference of two guarded logarithms is used where it is at least 2^−this of the
/// larger one (it then keeps LOG_GUARD_BITS − this bits beyond the working precision);
/// nearer ends take [`ln_ratio`] of the ends themselves. ln(x/k) ≤ 2^18 for any x
/// MPFR handles in practice (x ≤ 10^100000 k), so this switch happens below ln(b/a) = 2^−6,
/// where [`ln_ratio`] takes ln_1p of the exact difference.
const LOG_DIFF_BITS: u32 = 24;

/// Below this |t ln(b/a)|, (b/a)^t − 1 is taken by expm1; above it from the points'
/// powers, where the subtraction of 1 amplifies their few ulps by at most 1/(1 − e^−½).
const POWER_DIRECT_FROM: f64 = 0.5;

/// Up to this (x/p)^α, the tail takes 1 − (x/p)^α by a subtraction (it then loses at most
/// one bit); nearer p, by expm1 of the logarithm.
const TAIL_DIRECT_UP_TO: f64 = 0.5;

/// ln(x/y) for positive x, y to `bits` of relative precision: where ½ < x/y < 2, x − y is
/// exact (Sterbenz) at the larger of the operands' precisions and ln_1p of the relative
/// difference keeps every digit however close x and y are; elsewhere |ln(x/y)| > ln 2 and
/// the rounding of x/y is harmless.
pub(crate) fn ln_ratio(bits: u32, x: &Float, y: &Float) -> Float {
    let w = bits.max(x.prec()).max(y.prec());
    let q = Float::with_val(w, x / y);
    if q > 0.5 && q < 2 {
        let rel = Float::with_val(w, x - y) / y;
        Float::with_val(bits, rel.ln_1p_ref())
    } else {
        Float::with_val(bits, q.ln_ref())
    }
}

/// Per-point evaluation of the power-law density α k^α x^(−α−1) / norm on [k, p] (p = +∞
/// for the Pareto, with norm = 1). A point carries ln(x/k) (at LOG_GUARD_BITS extra bits)
/// and (k/x)^α, x clamped into [k, p]; then
/// - F̄(x) = (k/x)^α (1 − (x/p)^α) / norm, with (x/p)^α = (k/p)^α / (k/x)^α where it is at
///   most ½ and 1 − (x/p)^α = −expm1(α (ln(x/k) − ln(p/k))) nearer p;
/// - f(x) = α/k · (k/x)^α · (k/x) / norm;
/// - M_j(a, b) = α/norm · a^j (k/a)^α · r_j with r_j = ((b/a)^t − 1)/t, t = j − α, where
///   (b/a)^t = (b/a)^j (k/b)^α / (k/a)^α needs no new transcendental (r_j = ln(b/a) for
///   t = 0, expm1(t ln(b/a))/t where |t ln(b/a)| < ½, −1/t for b = ∞).
#[derive(Debug, Clone)]
pub(crate) struct PowerLaw {
    k: Float,
    /// p, or +∞.
    p: Float,
    alpha: Float,
    norm: Float,
    /// α / norm.
    scale: Float,
    /// ln(p/k) at the guarded precision (+∞ for the Pareto).
    ln_pk: Float,
    /// (k/p)^α (0 for the Pareto): the top point's power, made once.
    kpa: Float,
}

impl PowerLaw {
    /// The power law on [k, p] (`p` = +∞ for the Pareto) at the precision of `k`.
    pub(crate) fn new(k: &Float, p: &Float, alpha: &Float, norm: &Float) -> Self {
        let g = k.prec() + LOG_GUARD_BITS;
        let ln_pk = if p.is_infinite() {
            Float::with_val(g, rug::float::Special::Infinity)
        } else {
            ln_ratio(g, p, k)
        };
        Self::with_ln_pk(k, p, alpha, norm, ln_pk)
    }

    /// [`PowerLaw::new`] given ln(p/k) to at least LOG_GUARD_BITS bits beyond k's precision.
    pub(crate) fn with_ln_pk(
        k: &Float,
        p: &Float,
        alpha: &Float,
        norm: &Float,
        ln_pk: Float,
    ) -> Self {
        let bits = k.prec();
        let ln_pk = Float::with_val(bits + LOG_GUARD_BITS, ln_pk);
        let kpa = if ln_pk.is_infinite() {
            Float::with_val(bits, 0)
        } else {
            let e = Float::with_val(bits + LOG_GUARD_BITS, &ln_pk * alpha);
            Float::with_val(bits, (-e).exp_ref())
        };
        PowerLaw {
            kpa,
            k: k.clone(),
            p: Float::with_val(bits, p),
            alpha: Float::with_val(bits, alpha),
            norm: Float::with_val(bits, norm),
            scale: Float::with_val(bits, alpha / norm),
            ln_pk,
        }
    }

    fn bits(&self) -> u32 {
        self.k.prec()
    }

    /// aux = [ln(x_c/k) (guarded), (k/x_c)^α] with x_c = x clamped into [k, p].
    pub(crate) fn point(&self, x: &Float) -> Point {
        let bits = self.bits();
        let g = bits + LOG_GUARD_BITS;
        let (lkx, kxa) = if *x <= self.k {
            (Float::with_val(g, 0), Float::with_val(bits, 1))
        } else if *x >= self.p {
            (Float::with_val(g, &self.ln_pk), self.kpa.clone())
        } else {
            let lkx = ln_ratio(g, x, &self.k);
            let e = Float::with_val(g, &lkx * &self.alpha);
            let kxa = Float::with_val(bits, (-e).exp_ref());
            (lkx, kxa)
        };
        Point::with_aux(x, vec![lkx, kxa])
    }

    /// x clamped into [k, p].
    fn clamped(&self, x: &Float) -> Float {
        let bits = self.bits();
        if *x <= self.k {
            self.k.clone()
        } else if *x >= self.p {
            self.p.clone()
        } else {
            Float::with_val(bits, x)
        }
    }

    /// Whether `pt` carries this family's values (points made elsewhere take the plain
    /// methods of the distribution).
    fn owns(&self, pt: &Point) -> bool {
        pt.aux.len() == 2
    }

    /// [`JobSize::tail_at`] for the power-law family `dist` that holds this.
    pub(crate) fn tail_at(&self, dist: &dyn JobSize, pt: &Point) -> Float {
        if self.owns(pt) {
            self.tail(pt)
        } else {
            dist.tail(&pt.x)
        }
    }

    /// [`JobSize::density_at`] for the power-law family `dist` that holds this.
    pub(crate) fn density_at(&self, dist: &dyn JobSize, pt: &Point) -> Option<Float> {
        if self.owns(pt) {
            Some(self.density(pt))
        } else {
            dist.density(&pt.x)
        }
    }

    /// [`JobSize::moments_between`] for the power-law family `dist` that holds this, with
    /// the errors of its `partial_moments` (order checks first, then an infinite moment).
    pub(crate) fn moments_between(
        &self,
        dist: &dyn JobSize,
        js: &[i32],
        a: &Point,
        b: &Point,
    ) -> Result<Vec<Float>, DistError> {
        for &j in js {
            check_order(j)?;
        }
        if !self.owns(a) || !self.owns(b) {
            return dist.partial_moments(js, &a.x, &b.x);
        }
        self.moments(js, a, b)
            .map_err(|j| DistError::InfiniteMoment {
                family: dist.family(),
                j,
                a: message_number(&self.clamped(&a.x)),
                b: message_number(&self.clamped(&b.x)),
            })
    }

    fn tail(&self, pt: &Point) -> Float {
        let bits = self.bits();
        if pt.x <= self.k {
            return Float::with_val(bits, 1);
        }
        if pt.x >= self.p {
            return Float::with_val(bits, 0);
        }
        let [lkx, kxa] = [&pt.aux[0], &pt.aux[1]];
        if self.p.is_infinite() {
            return kxa.clone();
        }
        // (x/p)^α = (k/p)^α / (k/x)^α needs no transcendental call; where it is at most ½,
        // 1 − (x/p)^α loses no digit to the subtraction (its few ulps count at most once).
        let r = Float::with_val(bits, &self.kpa / kxa);
        if r <= TAIL_DIRECT_UP_TO {
            let one_minus = Float::with_val(bits, 1u32) - r;
            return Float::with_val(bits, kxa * &one_minus) / &self.norm;
        }
        // Nearer p: 1 − (x/p)^α = −expm1(α ln(x/p)), ln(x/p) = ln(x/k) − ln(p/k), or taken
        // directly where those nearly cancel.
        let g = bits + LOG_GUARD_BITS;
        let diff = Float::with_val(g, lkx - &self.ln_pk);
        let near = Float::with_val(g, &self.ln_pk >> LOG_DIFF_BITS);
        let lxp = if Float::with_val(g, diff.abs_ref()) >= near {
            diff
        } else {
            ln_ratio(g, &pt.x, &self.p)
        };
        let e = Float::with_val(g, &lxp * &self.alpha);
        let one_minus = -Float::with_val(bits, e.exp_m1_ref());
        Float::with_val(bits, kxa * &one_minus) / &self.norm
    }

    fn density(&self, pt: &Point) -> Float {
        let bits = self.bits();
        if pt.x < self.k || pt.x > self.p {
            return Float::with_val(bits, 0);
        }
        let kx = Float::with_val(bits, &self.k / &pt.x);
        Float::with_val(bits, &pt.aux[1] * &kx) * &self.scale / &self.k
    }

    /// M_j(a, b) for the orders `js` (already checked), or `Err(j)` for the first order
    /// that is infinite (b = ∞ with j ≥ α).
    fn moments(&self, js: &[i32], a: &Point, b: &Point) -> Result<Vec<Float>, i32> {
        let bits = self.bits();
        let ac = self.clamped(&a.x);
        let bc = self.clamped(&b.x);
        if ac >= bc {
            return Ok(js.iter().map(|_| Float::with_val(bits, 0)).collect());
        }
        if bc.is_infinite() {
            if let Some(&j) = js.iter().find(|&&j| self.alpha <= j) {
                return Err(j);
            }
        }
        let (lka, ka) = (&a.aux[0], &a.aux[1]);
        let (lkb, kb) = (&b.aux[0], &b.aux[1]);
        let base = |j: i32| -> Float {
            let aj = match j {
                0 => Float::with_val(bits, 1),
                1 => ac.clone(),
                2 => Float::with_val(bits, &ac * &ac),
                _ => Float::with_val(bits, 1u32) / &ac,
            };
            aj * ka * &self.scale
        };
        if bc.is_infinite() {
            return Ok(js
                .iter()
                .map(|&j| {
                    let t = Float::with_val(bits, j) - &self.alpha;
                    base(j) * (-(Float::with_val(bits, 1u32) / t))
                })
                .collect());
        }
        // ln(b/a) as the difference of the points' logarithms, or directly.
        let g = bits + LOG_GUARD_BITS;
        let diff = Float::with_val(g, lkb - lka);
        let l = if diff >= Float::with_val(g, lkb >> LOG_DIFF_BITS) {
            Float::with_val(bits, &diff)
        } else {
            ln_ratio(bits, &bc, &ac)
        };
        // (b/a)^(−α) = (k/b)^α / (k/a)^α, and b/a for the integer part of the power.
        let neg_alpha = Float::with_val(bits, kb / ka);
        let ratio = Float::with_val(bits, &bc / &ac);
        Ok(js
            .iter()
            .map(|&j| {
                let t = Float::with_val(bits, j) - &self.alpha;
                let tl = Float::with_val(bits, &t * &l);
                let r = if t.is_zero() {
                    l.clone()
                } else if tl.clone().abs() >= POWER_DIRECT_FROM {
                    let e = match j {
                        0 => neg_alpha.clone(),
                        1 => Float::with_val(bits, &neg_alpha * &ratio),
                        2 => Float::with_val(bits, &neg_alpha * &ratio) * &ratio,
                        _ => Float::with_val(bits, &neg_alpha / &ratio),
                    };
                    (e - 1u32) / &t
                } else {
                    Float::with_val(bits, tl.exp_m1_ref()) / &t
                };
                base(j) * r
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_ratio_keeps_every_digit_near_one_and_far_from_it() {
        // Source: ln(x/y) at 1000 bits from the same binary x, y (x/y formed exactly there);
        // tolerance 4 ulps of the 128-bit result.
        let b = 128;
        let y = Float::with_val(b, 3);
        for d in [-1e-30, -1e-3, 1e-35, 0.4, 3.0, 1e6] {
            let x = Float::with_val(b, &y * Float::with_val(b, 1.0 + d));
            let x = if x == y {
                Float::with_val(b, &y + (Float::with_val(b, 1) >> 120u32))
            } else {
                x
            };
            let got = ln_ratio(b, &x, &y);
            let want = Float::with_val(1000, Float::with_val(1000, &x / &y).ln_ref());
            let err = Float::with_val(1000, &got - &want).abs();
            let ulp = Float::with_val(1000, want.abs_ref()) >> (b - 2);
            assert!(err <= ulp, "d = {d}: {got} vs {want}");
        }
    }
}
