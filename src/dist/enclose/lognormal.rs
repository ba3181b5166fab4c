//! Enclosure of the lognormal law (ln X ~ N(μ, σ²)), with the formulas of
//! `dist/lognormal.rs`: F̄(x) = Q((ln x − μ)/σ); M_j(a, b) = e^(jμ + j²σ²/2)
//! (Φ(z_b) − Φ(z_a)), z_x = (ln x − μ − jσ²)/σ, the difference of Φ through
//! [`crate::num::normal::normal_mass_enclosure`] (tails compared where Φ ≈ 1).
//!
//! sup x F̄(x): with x = e^(μ+σz), d/dz ln(x F̄) = σ − φ(z)/Q(z), and the inverse Mills ratio
//! φ/Q increases, so there is one maximum, where σQ(z) − φ(z) changes sign; it is bracketed
//! by bisection on that sign and the value bounded on the bracket [z₁, z₂] by
//! e^(μ+σz₂) Q(z₁) (x rises and F̄ falls).

use super::{
    clip, from_zero_unimodal, inside_half_line, pt, require_positive, sign, unimodal_sup, Enclosure,
};
use crate::dist::DistError;
use crate::num::interval::Interval;
use crate::num::normal::{normal_mass_enclosure, normal_pdf_enclosure, normal_q_enclosure};
use rug::Float;

/// LogNormal(μ, σ).
#[derive(Debug, Clone)]
pub struct LogNormalEnclosure {
    mu: Interval,
    sigma: Interval,
}

impl LogNormalEnclosure {
    /// From enclosures of μ and σ > 0.
    pub fn new(mu: Interval, sigma: Interval) -> Result<Self, DistError> {
        require_positive("lognormal", "sigma", &sigma)?;
        Ok(LogNormalEnclosure { mu, sigma })
    }

    /// (ln x − μ − shift)/σ (±∞ at x = 0, ∞).
    fn z(&self, x: &Interval, shift: &Interval) -> Interval {
        let bits = self.prec();
        if x.hi().is_zero() {
            return Interval::point(Float::with_val(bits, rug::float::Special::NegInfinity));
        }
        if x.lo().is_infinite() {
            return x.clone();
        }
        x.ln().sub(&self.mu).sub(shift).div(&self.sigma)
    }

    /// x F̄(x) at x = e^(μ + σz), for an exact z.
    fn g(&self, z: &Float) -> Interval {
        let zi = pt(self.prec(), z);
        self.sigma
            .mul(&zi)
            .add(&self.mu)
            .exp()
            .mul(&normal_q_enclosure(&zi))
    }
}

impl Enclosure for LogNormalEnclosure {
    family_items!("lognormal", mu);
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if *x <= 0 {
            return Ok(Interval::int(bits, 1));
        }
        let z = self.z(&pt(bits, x), &Interval::zero_at(bits));
        Ok(normal_q_enclosure(&z))
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let Some((ai, bi)) = clip(a, b, &self.lower(), &self.upper()) else {
            return Ok(Interval::zero_at(bits));
        };
        let ji = Interval::int(bits, i64::from(j));
        let s2 = self.sigma.square();
        let shift = ji.mul(&s2);
        let mass = normal_mass_enclosure(&self.z(&ai, &shift), &self.z(&bi, &shift));
        // e^(jμ + j²σ²/2)
        let e = ji
            .mul(&self.mu)
            .add(&ji.square().mul(&s2).mul_2exp(-1))
            .exp();
        Ok(mass.mul(&e))
    }
    /// f(x) = φ(z)/(σ x), z = (ln x − μ)/σ, by interval arithmetic over an interval inside
    /// (0, ∞) (φ enclosed over z's interval, its peak at 0 included); 0 below 0; `None`
    /// over an interval that reaches +∞.
    ///
    /// Over an interval from 0 to a finite x₁ (f → 0 at 0, one mode m = e^(μ − σ²)):
    /// [0, f(min(x₁, m))] ([`from_zero_unimodal`]).
    fn density(&self, x: &Interval) -> Option<Interval> {
        let at = |x: &Interval| {
            inside_half_line(x, || {
                let z = self.z(x, &Interval::zero_at(self.prec()));
                Some(normal_pdf_enclosure(&z).div(&self.sigma.mul(x)))
            })
        };
        if *x.lo() <= 0 && *x.hi() >= 0 {
            let mode = self.mu.sub(&self.sigma.square()).exp();
            return from_zero_unimodal(x, &mode, at);
        }
        at(x)
    }
    /// f'(x) = −f(x) (1 + z/σ)/x inside (0, ∞), 0 below 0; `None` where
    /// [`Enclosure::density`] is.
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        inside_half_line(x, || {
            let bits = self.prec();
            let z = self.z(x, &Interval::zero_at(bits));
            let one_plus = Interval::int(bits, 1).add(&z.div(&self.sigma));
            Some(self.density(x)?.mul(&one_plus).div(x).neg())
        })
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        let rising = |z: &Float| {
            let zi = pt(bits, z);
            Ok(sign(
                &self
                    .sigma
                    .mul(&normal_q_enclosure(&zi))
                    .sub(&normal_pdf_enclosure(&zi)),
            ))
        };
        let bound = |z1: &Float, z2: &Float| {
            let lower = self.g(z1).lo().clone().max(self.g(z2).lo());
            let upper = self
                .sigma
                .mul(&pt(bits, z2))
                .add(&self.mu)
                .exp()
                .mul(&normal_q_enclosure(&pt(bits, z1)));
            Ok(Interval::new(lower, upper.hi().clone()))
        };
        // φ/Q(z) > z, so the sign is negative from z = σ on.
        let hi = Float::with_val(bits, self.sigma.hi()).max(&Float::with_val(bits, 0)) + 1u32;
        unimodal_sup(bits, Float::with_val(bits, -1), hi, rising, bound)
    }
}
