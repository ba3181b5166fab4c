//! Enclosures of the laws whose partial moments are incomplete gamma integrals
//! ([`crate::num::gamma::gamma_interval_enclosure`]):
//!
//! - Weibull(k, λ): F̄(x) = e^(−y), y = (x/λ)^k; M_j(a, b) = λ^j ∫_{y_a}^{y_b} t^(s−1) e^(−t) dt
//!   with s = 1 + j/k (`dist/weibull.rs`); for j = 0 the closed form
//!   e^(−y_a)(−expm1(−(y_b − y_a))) with y_b − y_a = y_a expm1(k ln(b/a)) (no cancellation on a
//!   short interval); sup x F̄(x) = λ k^(−1/k) e^(−1/k) = λ e^(−(1 + ln k)/k) at x = λ k^(−1/k).
//! - Erlang(k, r): F̄(x) = e^(−y) Σ_{m<k} y^m/m!, y = rx; M_j(a, b) = r^(−j)/(k−1)! ·
//!   ∫_{ra}^{rb} t^(k+j−1) e^(−t) dt (`dist/erlang.rs`). Its hazard rate increases, so
//!   x F̄(x) has one maximum, where (x F̄)' ∝ Σ_{m<k} y^m/m! − y^k/(k−1)! changes sign: it is
//!   bracketed by bisection on that sign.

use super::{
    clip, from_zero_unimodal, gamma_error, inside_half_line, ln_ratio, pt, require_positive, sign,
    unimodal_sup, Enclosure,
};
use crate::dist::DistError;
use crate::num::gamma::gamma_interval_enclosure;
use crate::num::interval::Interval;
use rug::Float;

/// Weibull(k, λ).
#[derive(Debug, Clone)]
pub struct WeibullEnclosure {
    shape: Interval,
    scale: Interval,
}

impl WeibullEnclosure {
    /// From enclosures of k > 0 and λ > 0.
    pub fn new(shape: Interval, scale: Interval) -> Result<Self, DistError> {
        require_positive("weibull", "shape", &shape)?;
        require_positive("weibull", "scale", &scale)?;
        Ok(WeibullEnclosure { shape, scale })
    }

    /// (x/λ)^k for an exact x ≥ 0 (+∞ at x = +∞).
    fn y(&self, x: &Interval) -> Interval {
        if x.lo().is_infinite() {
            return x.clone();
        }
        if x.hi().is_zero() {
            return Interval::zero_at(self.prec());
        }
        self.shape.mul(&x.div(&self.scale).ln()).exp()
    }
}

impl Enclosure for WeibullEnclosure {
    family_items!("weibull", shape);
    /// The Weibull law has the density (k/λ)(x/λ)^(k−1) e^(−(x/λ)^k) on (0, ∞) and no
    /// atom, for every shape k > 0 (unbounded at 0 where k < 1).
    fn continuous(&self) -> bool {
        true
    }
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if *x <= 0 {
            return Ok(Interval::int(bits, 1));
        }
        Ok(self.y(&pt(bits, x)).neg().exp())
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let Some((ai, bi)) = clip(a, b, &self.lower(), &self.upper()) else {
            return Ok(Interval::zero_at(bits));
        };
        let (ya, yb) = (self.y(&ai), self.y(&bi));
        if j == 0 {
            let ea = ya.neg().exp();
            if bi.lo().is_infinite() {
                return Ok(ea);
            }
            let d = if ai.is_positive() {
                ya.mul(&self.shape.mul(&ln_ratio(&ai, &bi)).exp_m1())
            } else {
                yb.clone()
            };
            return Ok(ea.mul(&d.neg().exp_m1().neg()));
        }
        let s = Interval::int(bits, i64::from(j))
            .div(&self.shape)
            .add(&Interval::int(bits, 1));
        if ya.hi().is_zero() && bi.lo().is_infinite() && s.is_positive() {
            // The whole support: M_j = λ^j Γ(1 + j/k), a complete gamma. Interval::gamma
            // encloses Γ over s from MPFR's correctly rounded Γ at s's ends, rounded
            // outward (Γ is monotone on each side of its minimum, and an s across the
            // minimum gets a lower end below Γ's minimum), and the product of enclosures
            // is rounded outward, so the result contains the exact moment. It is the
            // incomplete gamma's value at (0, ∞) without its series and asymptotic pieces.
            return Ok(s.gamma().mul(&self.scale.powi(j)));
        }
        let g = gamma_interval_enclosure(&s, &ya, &yb).map_err(gamma_error(
            "weibull",
            j,
            ai.lo(),
            bi.lo(),
        ))?;
        Ok(g.mul(&self.scale.powi(j)))
    }
    /// f(x) = (k/λ) e^((k−1) t − e^(k t)), t = ln(x/λ), by interval arithmetic over an
    /// interval inside (0, ∞) (a natural extension: it holds f at every x there, wider
    /// than f's range by the dependence on t); 0 below 0; `None` over an interval that
    /// reaches +∞, or that meets 0 where k ≤ 1 (the density is unbounded there for k < 1).
    ///
    /// Over an interval from 0 to a finite x₁ with k > 1 (f(0) = 0, one mode
    /// m = λ ((k − 1)/k)^(1/k)): [0, f(min(x₁, m))] ([`from_zero_unimodal`]).
    fn density(&self, x: &Interval) -> Option<Interval> {
        let at = |x: &Interval| {
            inside_half_line(x, || {
                let t = x.div(&self.scale).ln();
                let y = self.shape.mul(&t).exp();
                let km1 = self.shape.sub(&Interval::int(self.prec(), 1));
                Some(self.shape.div(&self.scale).mul(&km1.mul(&t).sub(&y).exp()))
            })
        };
        if *x.lo() <= 0 && *x.hi() >= 0 && *self.shape.lo() > 1 {
            let k = &self.shape;
            let ratio = k.sub(&Interval::int(self.prec(), 1)).div(k);
            let mode = self.scale.mul(&ratio.ln().div(k).exp());
            return from_zero_unimodal(x, &mode, at);
        }
        at(x)
    }
    /// f'(x) = f(x) ((k − 1) − k (x/λ)^k)/x inside (0, ∞), 0 below 0; `None` where
    /// [`Enclosure::density`] is.
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        inside_half_line(x, || {
            let km1 = self.shape.sub(&Interval::int(self.prec(), 1));
            let f = self.density(x)?;
            Some(f.mul(&km1.sub(&self.shape.mul(&self.y(x)))).div(x))
        })
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        let e = Interval::int(bits, 1)
            .add(&self.shape.ln())
            .div(&self.shape)
            .neg()
            .exp();
        Ok(self.scale.mul(&e))
    }
}

/// Erlang(k, r).
#[derive(Debug, Clone)]
pub struct ErlangEnclosure {
    k: u32,
    rate: Interval,
    /// (k − 1)!.
    fact: Interval,
}

impl ErlangEnclosure {
    /// From the phase count k ≥ 1 and an enclosure of r > 0.
    pub fn new(k: u32, rate: Interval) -> Result<Self, DistError> {
        require_positive("erlang", "rate", &rate)?;
        let bits = rate.prec();
        let mut fact = Interval::int(bits, 1);
        for m in 2..k {
            fact = fact.mul_u(m);
        }
        Ok(ErlangEnclosure { k, rate, fact })
    }

    /// e^(−y) Σ_{m<k} y^m/m! and Σ_{m<k} y^m/m! − y^k/(k−1)! (the sign of (x F̄)').
    fn tail_and_slope(&self, y: &Interval) -> (Interval, Interval) {
        let bits = y.prec();
        let mut term = Interval::int(bits, 1);
        let mut sum = term.clone();
        for m in 1..self.k {
            term = term.mul(y).div_u(m);
            sum = sum.add(&term);
        }
        // term = y^(k−1)/(k−1)!: y^k/(k−1)! = term · y.
        let slope = sum.sub(&term.mul(y));
        (y.neg().exp().mul(&sum), slope)
    }
}

impl Enclosure for ErlangEnclosure {
    family_items!("erlang", rate);
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if *x <= 0 {
            return Ok(Interval::int(bits, 1));
        }
        if x.is_infinite() {
            return Ok(Interval::zero_at(bits));
        }
        Ok(self.tail_and_slope(&self.rate.mul(&pt(bits, x))).0)
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let Some((ai, bi)) = clip(a, b, &self.lower(), &self.upper()) else {
            return Ok(Interval::zero_at(bits));
        };
        let s = Interval::int(bits, i64::from(self.k) + i64::from(j));
        let ry = |x: &Interval| {
            if x.lo().is_infinite() {
                x.clone()
            } else {
                self.rate.mul(x)
            }
        };
        let g = gamma_interval_enclosure(&s, &ry(&ai), &ry(&bi)).map_err(gamma_error(
            "erlang",
            j,
            ai.lo(),
            bi.lo(),
        ))?;
        Ok(g.mul(&self.rate.powi(-j)).div(&self.fact))
    }
    /// f(x) = r (rx)^(k−1) e^(−rx)/(k − 1)! = r e^((k−1) ln(rx) − rx)/(k − 1)!, by interval
    /// arithmetic over an interval inside (0, ∞); 0 below 0; `None` over an interval that
    /// reaches +∞, or that meets 0 where k = 1 (the density jumps there).
    ///
    /// Over an interval from 0 to a finite x₁ with k ≥ 2 (f(0) = 0, one mode
    /// m = (k − 1)/r): [0, f(min(x₁, m))] ([`from_zero_unimodal`]).
    fn density(&self, x: &Interval) -> Option<Interval> {
        let km1 = Interval::int(self.prec(), i64::from(self.k) - 1);
        let at = |x: &Interval| {
            inside_half_line(x, || {
                let rx = self.rate.mul(x);
                Some(
                    self.rate
                        .mul(&km1.mul(&rx.ln()).sub(&rx).exp())
                        .div(&self.fact),
                )
            })
        };
        if *x.lo() <= 0 && *x.hi() >= 0 && self.k >= 2 {
            return from_zero_unimodal(x, &km1.div(&self.rate), at);
        }
        at(x)
    }
    /// f'(x) = f(x) ((k − 1)/x − r) inside (0, ∞), 0 below 0; `None` where
    /// [`Enclosure::density`] is.
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        inside_half_line(x, || {
            let km1 = Interval::int(self.prec(), i64::from(self.k) - 1);
            Some(self.density(x)?.mul(&km1.div(x).sub(&self.rate)))
        })
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        // In y = rx: g = (y/r) F̄, rising where Σ_{m<k} y^m/m! > y^k/(k−1)!.
        let rising = |y: &Float| Ok(sign(&self.tail_and_slope(&pt(bits, y)).1));
        let g = |y: &Float| {
            pt(bits, y)
                .div(&self.rate)
                .mul(&self.tail_and_slope(&pt(bits, y)).0)
        };
        let bound = |y1: &Float, y2: &Float| {
            let lower = g(y1).lo().clone().max(g(y2).lo());
            let upper = pt(bits, y2)
                .div(&self.rate)
                .mul(&self.tail_and_slope(&pt(bits, y1)).0);
            Ok(Interval::new(lower, upper.hi().clone()))
        };
        unimodal_sup(
            bits,
            Float::with_val(bits, 0.5),
            Float::with_val(bits, self.k + 1),
            rising,
            bound,
        )
    }
}
