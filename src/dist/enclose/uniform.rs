//! Enclosures of the uniform law on [a, b] and of the point mass at x.
//!
//! Uniform: F̄(x) = (b − x)/(b − a) on [a, b]; M_j(u, v) = (v^(j+1) − u^(j+1))/((j+1)(b − a))
//! written as (v − u) times a sum of positive terms (v − u, (v − u)(v + u)/2,
//! (v − u)(v² + uv + u²)/3), and ln(v/u)/(b − a) for j = −1 (infinite at u = 0);
//! sup x F̄(x) = b²/(4(b − a)) at x = b/2 when b/2 ≥ a, else a (at x = a).
//!
//! Point mass: F̄(y) = 1 for y < x and 0 after; M_j(u, v) = x^j if u < x ≤ v; sup y F̄(y) = x
//! (approached as y → x from below). Where x's enclosure does not decide u < x ≤ v, the
//! moment is enclosed by [0, x^j].

use super::{clip, infinite_moment, ln_ratio, nonnegative, pt, require_positive, Enclosure};
use crate::dist::DistError;
use crate::num::interval::Interval;
use rug::Float;

/// The uniform law on [a, b].
#[derive(Debug, Clone)]
pub struct UniformEnclosure {
    a: Interval,
    b: Interval,
    width: Interval,
}

impl UniformEnclosure {
    /// From enclosures of 0 ≤ a < b.
    pub fn new(a: Interval, b: Interval) -> Result<Self, DistError> {
        let width = b.sub(&a);
        require_positive("uniform", "b - a", &width)?;
        Ok(UniformEnclosure { a, b, width })
    }
}

impl Enclosure for UniformEnclosure {
    family_items!("uniform", a, Interval: a, b);
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if x < self.a.lo() {
            return Ok(Interval::int(bits, 1));
        }
        if x >= self.b.hi() {
            return Ok(Interval::zero_at(bits));
        }
        let xi = pt(bits, x).max(&self.a).min(&self.b);
        let t = self.b.sub(&xi).div(&self.width);
        let t = t.clamp_below(&Float::with_val(bits, 0));
        Ok(t.min(&Interval::int(bits, 1)))
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let Some((u, v)) = clip(a, b, &self.a, &self.b) else {
            return Ok(Interval::zero_at(bits));
        };
        let d = v.sub(&u);
        let m = match j {
            -1 => {
                if !u.is_positive() {
                    return Err(infinite_moment("uniform", j, u.lo(), v.lo()));
                }
                ln_ratio(&u, &v)
            }
            0 => d,
            1 => d.mul(&v.add(&u)).mul_2exp(-1),
            _ => d.mul(&v.square().add(&u.mul(&v)).add(&u.square())).div_u(3),
        };
        Ok(nonnegative(m.div(&self.width), &u, &v))
    }
    /// f = 1/(b − a) on [a, b] (and 0 past its ends).
    fn density(&self, x: &Interval) -> Option<Interval> {
        let bits = self.prec();
        if x.hi() < self.a.lo() || x.lo() > self.b.hi() {
            return Some(Interval::zero_at(bits));
        }
        let f = self.width.recip();
        if x.lo() >= self.a.hi() && x.hi() <= self.b.lo() {
            Some(f)
        } else {
            Some(Interval::new(Float::with_val(bits, 0), f.hi().clone()))
        }
    }
    /// 0 strictly inside (a, b) and outside [a, b]; `None` over an interval that meets a
    /// or b (the density jumps there).
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        let inside = x.lo() > self.a.hi() && x.hi() < self.b.lo();
        let outside = x.hi() < self.a.lo() || x.lo() > self.b.hi();
        (inside || outside).then(|| Interval::zero_at(self.prec()))
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let half = self.b.mul_2exp(-1);
        let at_half = self.b.square().div(&self.width.mul_u(4));
        if half.lo() >= self.a.hi() {
            Ok(at_half)
        } else if half.hi() <= self.a.lo() {
            Ok(self.a.clone())
        } else {
            // Between g(a) = a and the unconstrained maximum b²/(4(b − a)) ≥ a.
            Ok(Interval::new(self.a.lo().clone(), at_half.hi().clone()))
        }
    }
}

/// The point mass at x > 0.
#[derive(Debug, Clone)]
pub struct DeterministicEnclosure {
    x: Interval,
}

impl DeterministicEnclosure {
    /// From an enclosure of x > 0.
    pub fn new(x: Interval) -> Result<Self, DistError> {
        require_positive("det", "x", &x)?;
        Ok(DeterministicEnclosure { x })
    }
}

impl Enclosure for DeterministicEnclosure {
    family_items!("det", x, Interval: x, x);
    fn tail_at(&self, y: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        Ok(if y < self.x.lo() {
            Interval::int(bits, 1)
        } else if y >= self.x.hi() {
            Interval::zero_at(bits)
        } else {
            Interval::new(Float::with_val(bits, 0), Float::with_val(bits, 1))
        })
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let xj = self.x.powi(j);
        // u < x ≤ v for every x in the enclosure, for none, or undecided.
        let all = a < self.x.lo() && b >= self.x.hi();
        let none = a >= self.x.hi() || b < self.x.lo();
        Ok(if all {
            xj
        } else if none {
            Interval::zero_at(bits)
        } else {
            Interval::new(Float::with_val(bits, 0), xj.hi().clone())
        })
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        Ok(self.x.clone())
    }
}
