//! Enclosures of the power laws: the bounded Pareto BP(k, p, α) (density
//! α k^α x^(−α−1)/(1 − (k/p)^α) on [k, p]) and the Pareto (p = ∞, norm 1), with the formulas
//! of `dist/bounded_pareto.rs` and `dist/point.rs`:
//!
//! - norm = 1 − (k/p)^α = −expm1(−α ln(p/k));
//! - F̄(x) = (k/x)^α (1 − (x/p)^α)/norm, 1 − (x/p)^α = −expm1(−α ln(p/x));
//! - M_j(a, b) = (α/norm) a^j (k/a)^α φ(t, ln(b/a)), t = j − α, φ(t, L) = expm1(tL)/t (L at
//!   t = 0, the logarithmic case α = j; −1/t for b = ∞, which needs t < 0). φ increases with
//!   t, so an α given as an interval is enclosed through φ at the ends of t (no 0/0 near
//!   α = j).
//! - sup x F̄(x) = k for α ≥ 1; for α < 1 the maximiser is x* = p (1 − α)^(1/α) when above
//!   k, where (x*/p)^α = 1 − α gives the value α k (p/k)^(1−α) (1 − α)^((1−α)/α)/norm.

use super::{
    clip, infinite_moment, ln_ratio, nonnegative, pt, require_positive, undecided, Enclosure,
};
use crate::dist::DistError;
use crate::num::interval::Interval;
use rug::float::Special;
use rug::Float;

/// BP(k, p, α) or, with `p` = `None`, Pareto(k, α).
#[derive(Debug, Clone)]
pub struct PowerLawEnclosure {
    family: &'static str,
    k: Interval,
    /// p, or `None` for the Pareto.
    p: Option<Interval>,
    alpha: Interval,
    /// 1 − (k/p)^α (1 for the Pareto).
    norm: Interval,
    /// α / norm.
    scale: Interval,
    /// ln(b/a) of recent moments, keyed by (a, b) (see [`Recent`]).
    ln_ratios: Recent<(Float, u32, Float, u32), Option<Interval>>,
    /// (k/a)^α of recent moments, keyed by a (and the precision of b, which sets that of
    /// the clipped a).
    k_over_pows: Recent<(Float, u32, u32), Interval>,
    /// α where it is an exact integer of at most [`INT_ALPHA_MAX`] (`k_over_pow`'s fast
    /// path).
    int_alpha: Option<i32>,
}

/// The largest integer α whose powers (k/x)^α are taken by repeated multiplication.
const INT_ALPHA_MAX: i32 = 64;

/// The j-independent factors of M_j(a, b) — ln(b/a) and (k/a)^α, with a and b clipped to
/// the support — for the last few ends asked, so that the moments of one interval for
/// several j (a host term asks for three) and of intervals that share a low end (the
/// corners of an optimiser's boxes) take their logarithms and exponentials once. An entry
/// is the value the same code computes for the same exact ends at the same precision (the
/// key holds the ends and their precisions), so remembering it changes no enclosure; a
/// clone starts empty. A lock held by another thread is not waited for: the factor is
/// then computed afresh.
#[derive(Debug)]
struct Recent<K, V>(std::sync::Mutex<Vec<(K, V)>>);

/// Entries kept per factor (the corners of a box term times a few hosts).
const RECENT_LEN: usize = 8;

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Recent(std::sync::Mutex::new(Vec::new()))
    }
}

impl<K, V> Clone for Recent<K, V> {
    fn clone(&self) -> Self {
        Recent::default()
    }
}

impl<K: PartialEq, V: Clone> Recent<K, V> {
    fn get_or(&self, key: K, compute: impl FnOnce() -> V) -> V {
        if let Ok(v) = self.0.try_lock() {
            if let Some((_, x)) = v.iter().find(|(k, _)| *k == key) {
                return x.clone();
            }
        }
        let x = compute();
        if let Ok(mut v) = self.0.try_lock() {
            if v.len() >= RECENT_LEN {
                v.remove(0);
            }
            v.push((key, x.clone()));
        }
        x
    }
}

impl PowerLawEnclosure {
    /// BP(k, p, α) (`p` = `Some`) or Pareto(k, α), from enclosures of the parameters
    /// (0 < k < p, α > 0).
    pub fn new(k: Interval, p: Option<Interval>, alpha: Interval) -> Result<Self, DistError> {
        let family = if p.is_some() { "bp" } else { "pareto" };
        require_positive(family, "k", &k)?;
        require_positive(family, "alpha", &alpha)?;
        let norm = match &p {
            Some(p) => {
                if !k.lt_all(p) {
                    return Err(DistError::BadParameter {
                        family,
                        why: "p must be > k; their enclosures overlap".into(),
                    });
                }
                alpha.mul(&ln_ratio(&k, p)).neg().exp_m1().neg()
            }
            None => Interval::int(k.prec(), 1),
        };
        let scale = alpha.div(&norm);
        let int_alpha = (alpha.is_point() && alpha.lo().is_integer())
            .then(|| alpha.lo().to_i32_saturating())
            .flatten()
            .filter(|n| (1..=INT_ALPHA_MAX).contains(n));
        Ok(PowerLawEnclosure {
            family,
            k,
            p,
            alpha,
            norm,
            scale,
            ln_ratios: Recent::default(),
            k_over_pows: Recent::default(),
            int_alpha,
        })
    }

    fn top(&self) -> Interval {
        match &self.p {
            Some(p) => p.clone(),
            None => Interval::infinite_at(self.k.prec()),
        }
    }

    /// (k/x)^α = e^(−α ln(x/k)) for x ≥ k. An integer α is a power of k/x instead, each
    /// end of the quotient's enclosure raised by MPFR's correctly rounded power in the
    /// outward direction ([`Interval::powi`]; the power is monotone on k/x > 0): an
    /// enclosure as rigorous as the exponential's, at a fraction of its cost. TAGS's
    /// proven optimum at BP(1, 10^1000, 1) asks the density at every piece of its wasted
    /// part's bound; exp∘ln took half of its time (2 hosts, 50 digits, 2026-12-06).
    fn k_over_pow(&self, x: &Interval) -> Interval {
        if let Some(n) = self.int_alpha {
            return self.k.div(x).powi(n);
        }
        self.alpha.mul(&ln_ratio(&self.k, x)).neg().exp()
    }
}

/// φ(t, L) = expm1(tL)/t (L for t = 0) at an exact t.
fn phi_at(t: &Interval, l: &Interval) -> Interval {
    if t.lo().is_zero() && t.hi().is_zero() {
        return l.clone();
    }
    t.mul(l).exp_m1().div(t)
}

impl Enclosure for PowerLawEnclosure {
    fn family(&self) -> &'static str {
        self.family
    }
    fn prec(&self) -> u32 {
        self.k.prec()
    }
    fn lower(&self) -> Interval {
        self.k.clone()
    }
    fn upper(&self) -> Interval {
        self.top()
    }
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        if x < self.k.lo() {
            return Ok(Interval::int(bits, 1));
        }
        if let Some(p) = &self.p {
            if x >= p.hi() {
                return Ok(Interval::zero_at(bits));
            }
        }
        let mut xi = pt(bits, x).max(&self.k);
        let mut t = self.k_over_pow(&xi);
        if let Some(p) = &self.p {
            xi = xi.min(p);
            t = self.k_over_pow(&xi);
            // 1 − (x/p)^α = −expm1(−α ln(p/x)).
            let one_minus = self.alpha.mul(&ln_ratio(&xi, p)).neg().exp_m1().neg();
            t = t.mul(&one_minus).div(&self.norm);
        }
        let zero = Float::with_val(bits, 0);
        let t = t.clamp_below(&zero);
        Ok(t.min(&Interval::int(bits, 1)))
    }
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError> {
        let bits = self.prec();
        let top = self.top();
        let Some((ai, bi)) = clip(a, b, &self.k, &top) else {
            return Ok(Interval::zero_at(bits));
        };
        let t = Interval::int(bits, i64::from(j)).sub(&self.alpha);
        let l = self
            .ln_ratios
            .get_or((a.clone(), a.prec(), b.clone(), b.prec()), || {
                (!bi.hi().is_infinite()).then(|| ln_ratio(&ai, &bi))
            });
        let k_over = self
            .k_over_pows
            .get_or((a.clone(), a.prec(), b.prec()), || self.k_over_pow(&ai));
        let phi = if let Some(l) = l {
            t.increasing(|t| phi_at(t, &l))
        } else {
            // ∫_a^∞ x^(t−1) dx / a^t = −1/t, finite only for t < 0.
            if t.is_negative() {
                t.recip().neg()
            } else if *t.lo() >= 0 {
                return Err(infinite_moment(self.family, j, ai.lo(), bi.lo()));
            } else {
                return Err(undecided(format!("E[X^{j}] of the {}", self.family)));
            }
        };
        let m = self.scale.mul(&ai.powi(j)).mul(&k_over).mul(&phi);
        Ok(nonnegative(m, &ai, &bi))
    }
    /// f(x) = (α/norm) (k/x)^α / x on [k, p], falling in x: over [x₀, x₁] inside the
    /// support it lies between f(x₁) and f(x₀); past an end it may be 0.
    fn density(&self, x: &Interval) -> Option<Interval> {
        let bits = self.prec();
        let top = self.top();
        if x.hi() < self.k.lo() || x.lo() > top.hi() {
            return Some(Interval::zero_at(bits));
        }
        let at = |y: &Float| {
            let yi = pt(bits, y);
            self.scale.mul(&self.k_over_pow(&yi)).div(&yi)
        };
        let left = if x.lo() > self.k.lo() {
            x.lo()
        } else {
            self.k.lo()
        };
        let hi = at(left).hi().clone();
        let inside = x.lo() >= self.k.hi() && x.hi() <= top.lo() && x.hi().is_finite();
        let lo = if inside {
            at(x.hi()).lo().clone().max(&Float::with_val(bits, 0))
        } else {
            Float::with_val(bits, 0)
        };
        (hi.is_finite() && *left > 0).then(|| Interval::new(lo, hi))
    }
    /// f'(x) = −(α + 1) f(x)/x strictly inside (k, p), 0 outside [k, p]; `None` over an
    /// interval that meets k or p (the density jumps there).
    fn density_slope(&self, x: &Interval) -> Option<Interval> {
        let bits = self.prec();
        let top = self.top();
        if x.hi() < self.k.lo() || x.lo() > top.hi() {
            return Some(Interval::zero_at(bits));
        }
        if x.lo() <= self.k.hi() || x.hi() >= top.lo() || !x.hi().is_finite() {
            return None;
        }
        let f = self.density(x)?;
        let slope = self.alpha.add(&Interval::int(bits, 1)).mul(&f).div(x).neg();
        (slope.lo().is_finite() && slope.hi().is_finite()).then_some(slope)
    }
    fn inverse_square_density(&self) -> bool {
        self.p.is_some() && self.alpha.is_point() && *self.alpha.lo() == 1
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let bits = self.prec();
        let one = Float::with_val(bits, 1);
        if *self.alpha.lo() >= 1 {
            // x F̄(x) falls from x = k, where F̄ = 1.
            return Ok(self.k.clone());
        }
        if *self.alpha.hi() >= 1 {
            return Err(undecided(format!(
                "sup x F̄(x) of the {} (alpha straddles 1)",
                self.family
            )));
        }
        let Some(p) = &self.p else {
            // Pareto with α < 1: x F̄(x) = k^α x^(1−α) is unbounded.
            return Err(infinite_moment(
                self.family,
                1,
                self.k.lo(),
                &Float::with_val(bits, Special::Infinity),
            ));
        };
        let one_m = Interval::point(one).sub(&self.alpha);
        let ln_pk = ln_ratio(&self.k, p);
        // ln(x*/k) = ln(p/k) + ln(1 − α)/α.
        let ln_xk = ln_pk.add(&one_m.ln().div(&self.alpha));
        if *ln_xk.hi() <= 0 {
            return Ok(self.k.clone());
        }
        // α k (p/k)^(1−α) (1 − α)^((1−α)/α) / norm.
        let v = self
            .alpha
            .mul(&self.k)
            .mul(&one_m.mul(&ln_pk).exp())
            .mul(&one_m.div(&self.alpha).mul(&one_m.ln()).exp())
            .div(&self.norm);
        if *ln_xk.lo() > 0 {
            Ok(v)
        } else {
            // The maximiser may lie at k or above it: the supremum is between g(k) = k and
            // the unconstrained maximum v.
            Ok(Interval::new(self.k.lo().clone(), v.hi().clone()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;

    /// The integer fast path of `k_over_pow`: for α = 1, 2, 3 (k = 1, p = 10^1000, at 128
    /// bits) and x = 1.5, 10^10, 10^500, the enclosure contains x^−α computed by MPFR's pow
    /// at 2000 bits (an independent route), is at most 2^−120 wide relative, and meets the
    /// exp∘ln enclosure of the general path (both must contain the value).
    #[test]
    fn integer_powers_enclose_the_value_like_the_exponential() {
        let bits = 128;
        let hp = 2000;
        let k = Interval::int(bits, 1);
        let p = Interval::from_decimal("1e1000", bits).unwrap();
        for n in [1i32, 2, 3] {
            let alpha = Interval::int(bits, i64::from(n));
            let e = PowerLawEnclosure::new(k.clone(), Some(p.clone()), alpha.clone()).unwrap();
            assert_eq!(e.int_alpha, Some(n));
            for x in ["1.5", "1e10", "1e500"] {
                let xi = Interval::from_decimal(x, bits).unwrap();
                let fast = e.k_over_pow(&xi);
                let general = alpha.mul(&ln_ratio(&k, &xi)).neg().exp();
                let exact = {
                    let xh = crate::num::parse_decimal(x, hp).unwrap();
                    Float::with_val(hp, xh.pow(-n))
                };
                assert!(fast.contains(&exact), "alpha {n} x {x}: {fast:?}");
                assert!(general.contains(&exact), "alpha {n} x {x}: {general:?}");
                assert!(fast.rel_width() < 2f64.powi(-120), "alpha {n} x {x}");
                assert!(fast.lo() <= general.hi() && general.lo() <= fast.hi());
            }
        }
        // A fractional α keeps the general path.
        let e = PowerLawEnclosure::new(k, Some(p), Interval::from_decimal("1.5", bits).unwrap())
            .unwrap();
        assert_eq!(e.int_alpha, None);
    }
}
