//! The objectives as chains: J(s) = Σ_i T_i(s_{i−1}, s_i), each host's term depending on
//! two consecutive cutoffs only, with closed-form partial derivatives.
//!
//! SITA (waiting): T(a, b) = w(a,b) · λ m₂ / (2 (1 − λ m₁)), m_j = M_j(a, b), and w = M_0
//! (waiting, response) or M_{−1} (slowdown).
//!
//! TAGS (waiting): T(a, b) = G(a) · Q(a, b) + [b < top] b G(b), with G(x) = P(X > x)
//! (or E[1/X; X > x] for slowdown), Q = λ n₂ / (2 (1 − λ n₁)), n₁ = M_1(a,b) + b F̄(b),
//! n₂ = M_2(a,b) + b² F̄(b). Derivatives: ∂M_j/∂b = b^j f(b), ∂M_j/∂a = −a^j f(a),
//! ∂n₁/∂b = F̄(b), ∂n₂/∂b = 2b F̄(b), ∂G/∂a = −a^{j_w} f(a).
//!
//! TAGS-minmax uses L(a, b) = λ P(X > a) Q(a, b), the mean number waiting in host i's queue
//! (Little's law), and minimises max_i L_i.

use crate::dist::{DistError, JobSize, Point};
use crate::policy::{Metric, PolicyError};
use rug::Float;

/// Which chain objective.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainKind {
    /// SITA mean waiting / response / slowdown.
    Sita,
    /// TAGS mean waiting (queueing + wasted) / response / slowdown.
    Tags,
    /// TAGS mean queue length per host (for the minmax objective).
    TagsQueueLength,
}

/// The moment order of the weight: 0 (waiting, response) or −1 (slowdown).
pub fn weight_order(metric: Metric) -> i32 {
    match metric {
        Metric::Slowdown => -1,
        _ => 0,
    }
}

/// λ n₂ / (2 (1 − λ n₁)), +∞ when λ n₁ ≥ 1.
pub fn pk(bits: u32, lambda: &Float, n1: &Float, n2: &Float) -> Float {
    let rho = Float::with_val(bits, lambda * n1);
    if rho >= 1 {
        return Float::with_val(bits, rug::float::Special::Infinity);
    }
    Float::with_val(bits, lambda * n2) / ((Float::with_val(bits, 1u32) - rho) * 2u32)
}

/// A host term and its partial derivatives in a and b.
#[derive(Debug, Clone)]
pub struct TermGrad {
    /// T(a, b) (+∞ if the host is unstable).
    pub value: Float,
    /// ∂T/∂a (0 for the first host, whose a is fixed).
    pub da: Float,
    /// ∂T/∂b (0 for the last host, whose b is fixed).
    pub db: Float,
}

/// Evaluates chain terms directly from a distribution (used by the polish at full
/// precision). Terms take [`Point`]s: the values a distribution shares at a cutoff (its
/// logarithm, powers, tail and density) are computed once per cutoff, although two host
/// terms read each one.
pub struct Chain<'a> {
    /// The distribution.
    pub dist: &'a dyn JobSize,
    /// Arrival rate.
    pub lambda: Float,
    /// The objective.
    pub kind: ChainKind,
    /// The metric (waiting, response or slowdown).
    pub metric: Metric,
    /// s_0 (the host-1 interval is opened just below it, to include an atom there).
    pub lo: Float,
    /// s_h.
    pub top: Float,
    /// The point just below s_0 ([`JobSize::lower_open`]) that opens host 1's interval.
    lo_point: Point,
    /// The point s_h.
    top_point: Point,
}

impl<'a> Chain<'a> {
    /// A chain for `dist` at rate `lambda`.
    pub fn new(dist: &'a dyn JobSize, lambda: Float, kind: ChainKind, metric: Metric) -> Self {
        let top = dist.upper();
        Chain {
            lo: dist.lower(),
            lo_point: dist.point(&dist.lower_open()),
            top_point: dist.point(&top),
            top,
            dist,
            lambda,
            kind,
            metric,
        }
    }

    fn bits(&self) -> u32 {
        self.dist.prec()
    }

    /// The cutoff x as a point of the distribution, as the right end of a host's interval
    /// (s_h and above: s_h).
    pub fn point(&self, x: &Float) -> Point {
        if *x >= self.top {
            self.top_point.clone()
        } else {
            self.dist.point(x)
        }
    }

    /// The cutoff x as the left end of a host's interval: s_0 and below give the point
    /// just below s_0 that opens host 1's interval (to take an atom at s_0).
    pub fn left_point(&self, x: &Float) -> Point {
        if *x <= self.lo {
            self.lo_point.clone()
        } else {
            self.point(x)
        }
    }

    /// M_j(a, b) for N orders at once (shared work, see [`JobSize::moments_between`]).
    fn moments<const N: usize>(
        &self,
        js: &[i32; N],
        a: &Point,
        b: &Point,
    ) -> Result<[Float; N], PolicyError> {
        let v = self
            .dist
            .moments_between(js, a, b)
            .map_err(|e| PolicyError::from(e).for_metric(self.metric))?;
        <[Float; N]>::try_from(v).map_err(|_| {
            PolicyError::BadCutoffs(format!(
                "{}: moments_between returned the wrong number of orders",
                self.dist.family()
            ))
        })
    }

    /// G(x) = E[X^{j_w}; X > x].
    fn g(&self, x: &Point) -> Result<Float, PolicyError> {
        // For the mean (j_w = 0) G is the tail F̄(x), which the TAGS term needs anyway; at
        // s_0 the partial moment from just below it keeps an atom there.
        if weight_order(self.metric) == 0 && x.x > self.lo {
            return Ok(x.tail(self.dist));
        }
        let [g] = self.moments(&[weight_order(self.metric)], x, &self.top_point)?;
        Ok(g)
    }

    fn density(&self, x: &Point) -> Result<Float, PolicyError> {
        if x.x.is_infinite() {
            return Ok(Float::with_val(self.bits(), 0));
        }
        x.density(self.dist).ok_or_else(|| {
            PolicyError::Dist(DistError::BadParameter {
                family: self.dist.family(),
                why: "a discrete distribution has no density: the cutoffs are optimised on its atoms only".into(),
            })
        })
    }

    /// x^j as a float (x finite).
    fn powj(&self, x: &Float, j: i32) -> Float {
        let b = self.bits();
        match j {
            0 => Float::with_val(b, 1),
            1 => Float::with_val(b, x),
            2 => Float::with_val(b, x * x),
            -1 => Float::with_val(b, 1u32) / x,
            _ => Float::with_val(b, x * x) * x,
        }
    }

    /// The term T(a, b).
    pub fn term(&self, a: &Float, b: &Float) -> Result<Float, PolicyError> {
        Ok(self
            .term_grad(&self.left_point(a), &self.point(b), false)?
            .value)
    }

    /// T(a, b) and, if `grad`, its partial derivatives (∂/∂a is 0 at a = s_0 and ∂/∂b is 0
    /// at b = top, where they are fixed), for a made by [`Chain::left_point`] and b by
    /// [`Chain::point`].
    pub fn term_grad(&self, pa: &Point, pb: &Point, grad: bool) -> Result<TermGrad, PolicyError> {
        let bits = self.bits();
        let (a, b) = (&pa.x, &pb.x);
        let lam = &self.lambda;
        let zero = || Float::with_val(bits, 0);
        let inf = || Float::with_val(bits, rug::float::Special::Infinity);
        let a_free = *a > self.lo;
        let b_free = *b < self.top;
        let jw = weight_order(self.metric);
        match self.kind {
            ChainKind::Sita => {
                let [w, m1, m2] = self.moments(&[jw, 1, 2], pa, pb)?;
                let rho = Float::with_val(bits, lam * &m1);
                if rho >= 1 {
                    return Ok(TermGrad {
                        value: inf(),
                        da: zero(),
                        db: zero(),
                    });
                }
                let one_m = Float::with_val(bits, 1u32) - &rho;
                let r = Float::with_val(bits, lam * &m2) / Float::with_val(bits, &one_m * 2u32);
                let value = Float::with_val(bits, &w * &r);
                if !grad {
                    return Ok(TermGrad {
                        value,
                        da: zero(),
                        db: zero(),
                    });
                }
                // dT/dx = w_x R + w (λ m2_x / (2(1−ρ)) + R λ m1_x / (1−ρ)), with
                // m_j_x = ± x^j f(x).
                let d = |px: &Point, sign: i32| -> Result<Float, PolicyError> {
                    let x = &px.x;
                    let f = self.density(px)?;
                    let wx = Float::with_val(bits, &f * &self.powj(x, jw)) * sign;
                    let m1x = Float::with_val(bits, &f * x) * sign;
                    let m2x = Float::with_val(bits, &f * &self.powj(x, 2)) * sign;
                    let rx = Float::with_val(bits, lam * &m2x)
                        / Float::with_val(bits, &one_m * 2u32)
                        + Float::with_val(bits, &r * lam) * &m1x / &one_m;
                    Ok(Float::with_val(bits, &wx * &r) + Float::with_val(bits, &w * &rx))
                };
                let da = if a_free { d(pa, -1)? } else { zero() };
                let db = if b_free { d(pb, 1)? } else { zero() };
                Ok(TermGrad { value, da, db })
            }
            ChainKind::Tags | ChainKind::TagsQueueLength => {
                let tail_b = if b_free { pb.tail(self.dist) } else { zero() };
                let btail = Float::with_val(bits, b * &tail_b);
                let btail = if b_free { btail } else { zero() };
                let [m1, m2] = self.moments(&[1, 2], pa, pb)?;
                let n1 = m1 + &btail;
                let rho = Float::with_val(bits, lam * &n1);
                if rho >= 1 {
                    return Ok(TermGrad {
                        value: inf(),
                        da: zero(),
                        db: zero(),
                    });
                }
                let b2tail = if b_free {
                    Float::with_val(bits, b * &btail)
                } else {
                    zero()
                };
                let n2 = m2 + &b2tail;
                let one_m = Float::with_val(bits, 1u32) - &rho;
                let q = Float::with_val(bits, lam * &n2) / Float::with_val(bits, &one_m * 2u32);
                // Weight of the queueing term: G(a) for the mean, λ P(X > a) for the
                // queue length.
                let (ga, ga_order) = match self.kind {
                    ChainKind::TagsQueueLength => {
                        let [m0] = self.moments(&[0], pa, &self.top_point)?;
                        (Float::with_val(bits, lam * &m0), 0)
                    }
                    _ => (self.g(pa)?, jw),
                };
                let waste_on = self.kind == ChainKind::Tags && b_free;
                let gb = if waste_on { self.g(pb)? } else { zero() };
                let mut value = Float::with_val(bits, &ga * &q);
                if waste_on {
                    value += Float::with_val(bits, b * &gb);
                }
                if !grad {
                    return Ok(TermGrad {
                        value,
                        da: zero(),
                        db: zero(),
                    });
                }
                let qx = |n1x: &Float, n2x: &Float| -> Float {
                    Float::with_val(bits, lam * n2x) / Float::with_val(bits, &one_m * 2u32)
                        + Float::with_val(bits, &q * lam) * n1x / &one_m
                };
                let da = if a_free {
                    let f = self.density(pa)?;
                    let n1a = -Float::with_val(bits, &f * a);
                    let n2a = -Float::with_val(bits, &f * &self.powj(a, 2));
                    let mut gaa = -Float::with_val(bits, &f * &self.powj(a, ga_order));
                    if self.kind == ChainKind::TagsQueueLength {
                        gaa *= lam;
                    }
                    Float::with_val(bits, &gaa * &q) + Float::with_val(bits, &ga * &qx(&n1a, &n2a))
                } else {
                    zero()
                };
                let db = if b_free {
                    let n1b = tail_b.clone();
                    let n2b = Float::with_val(bits, &btail * 2u32);
                    let mut v = Float::with_val(bits, &ga * &qx(&n1b, &n2b));
                    if waste_on {
                        let f = self.density(pb)?;
                        let gbb = -Float::with_val(bits, &f * &self.powj(b, jw));
                        v += &gb;
                        v += Float::with_val(bits, b * &gbb);
                    }
                    v
                } else {
                    zero()
                };
                Ok(TermGrad { value, da, db })
            }
        }
    }
}
