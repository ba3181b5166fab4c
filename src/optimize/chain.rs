//! The objectives as chains: J(s) = Σ_i T_i(s_{i−1}, s_i), each host's term depending on
//! two consecutive cutoffs only. The term is [`crate::policy::host_term`]'s (SITA, TAGS and
//! the TAGS queue length of the minmax objective); here it is evaluated on a distribution's
//! points at full precision, with its partial derivatives.
//!
//! The partial derivatives are [`host_grad`]'s, the chain rule through the pieces of that
//! same definition (checked here against forward-mode differentiation of it).

use crate::dist::{DistError, JobSize, Point};
use crate::policy::host_term::{host, host_grad, HostInputs, HostSlopes, KillPoint, Parts};
pub use crate::policy::host_term::{weight_order, ChainKind, TermGrad};
use crate::policy::{Metric, PolicyError};
use rug::Float;
use std::cell::RefCell;

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
        let inputs = ChainInputs::new(self, pa, pb);
        if grad {
            return host_grad(self.kind, &self.lambda, &inputs);
        }
        let h = host(self.kind, &self.lambda, &inputs, Parts::Term)?;
        let zero = || Float::with_val(self.bits(), 0);
        Ok(TermGrad {
            value: h.term(),
            da: zero(),
            db: zero(),
        })
    }
}

/// The inputs of a host term from the chain's points: the interval's moments in one batch
/// (their shared logarithms and powers once), and G(x) as the tail F̄(x) for the mean.
struct ChainInputs<'c, 'a> {
    chain: &'c Chain<'a>,
    pa: &'c Point,
    pb: &'c Point,
    /// The weight on the interval (SITA only), M_1, M_2, once computed; an entry is taken
    /// when read.
    batch: RefCell<Option<[Option<Float>; 3]>>,
}

impl<'c, 'a> ChainInputs<'c, 'a> {
    fn new(chain: &'c Chain<'a>, pa: &'c Point, pb: &'c Point) -> Self {
        ChainInputs {
            chain,
            pa,
            pb,
            batch: RefCell::new(None),
        }
    }

    fn a_free(&self) -> bool {
        self.pa.x > self.chain.lo
    }

    fn b_free(&self) -> bool {
        self.pb.x < self.chain.top
    }

    /// Entry `i` of the batch (0: the weight on the interval, 1: M_1, 2: M_2), computed at
    /// the first read.
    fn take(&self, i: usize) -> Result<Float, PolicyError> {
        let mut batch = self.batch.borrow_mut();
        if batch.is_none() {
            let ch = self.chain;
            *batch = Some(if ch.kind.weight_on_interval() {
                let [w, m1, m2] =
                    ch.moments(&[ch.kind.weight_order(ch.metric), 1, 2], self.pa, self.pb)?;
                [Some(w), Some(m1), Some(m2)]
            } else {
                let [m1, m2] = ch.moments(&[1, 2], self.pa, self.pb)?;
                [None, Some(m1), Some(m2)]
            });
        }
        batch
            .as_mut()
            .and_then(|b| b[i].take())
            .ok_or_else(|| PolicyError::BadCutoffs("chain term: a moment read twice".into()))
    }
}

impl HostInputs for ChainInputs<'_, '_> {
    type R = Float;
    type Error = PolicyError;
    fn m1(&self) -> Result<Float, PolicyError> {
        self.take(1)
    }
    fn m2(&self) -> Result<Float, PolicyError> {
        self.take(2)
    }
    fn interval_weight(&self) -> Result<Float, PolicyError> {
        self.take(0)
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Float>>, PolicyError> {
        Ok(self.b_free().then(|| KillPoint {
            b: &self.pb.x,
            tail: self.pb.tail(self.chain.dist),
        }))
    }
    fn weight_above_a(&self) -> Result<Float, PolicyError> {
        self.chain.g(self.pa)
    }
    fn mass_above_a(&self) -> Result<Float, PolicyError> {
        let [m0] = self.chain.moments(&[0], self.pa, &self.chain.top_point)?;
        Ok(m0)
    }
    fn weight_above_b(&self) -> Result<Float, PolicyError> {
        self.chain.g(self.pb)
    }
}

impl HostSlopes for ChainInputs<'_, '_> {
    fn weight_order(&self) -> i32 {
        weight_order(self.chain.metric)
    }
    fn end(&self, at_b: bool) -> Result<Option<(&Float, Float)>, PolicyError> {
        let (free, p) = if at_b {
            (self.b_free(), self.pb)
        } else {
            (self.a_free(), self.pa)
        };
        if !free {
            return Ok(None);
        }
        Ok(Some((&p.x, self.chain.density(p)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{DistFactory, DistSpec};
    use crate::num::real::Dual2;
    use crate::policy::LoadSpec;

    /// [`ChainInputs`] with their derivatives in a (index 0) and in b (index 1), for
    /// forward-mode differentiation of the host term.
    struct DualInputs<'c, 'a> {
        inner: ChainInputs<'c, 'a>,
        /// b as the variable x₁.
        b: Dual2,
    }

    impl DualInputs<'_, '_> {
        /// sign · f(x) x^j at a or b, `None` at a fixed end.
        fn end(&self, at_b: bool, j: i32, sign: i32) -> Option<Float> {
            let (x, f) = self.inner.end(at_b).ok()??;
            let xj = match j {
                0 => Float::with_val(x.prec(), 1),
                -1 => Float::with_val(x.prec(), 1u32) / x,
                _ => Float::with_val(x.prec(), rug::ops::Pow::pow(x, j)),
            };
            Some(Float::with_val(x.prec(), &f * &xj) * sign)
        }
        fn interval(&self, v: Float, j: i32) -> Dual2 {
            Dual2::new(v, [self.end(false, j, -1), self.end(true, j, 1)])
        }
    }

    impl HostInputs for DualInputs<'_, '_> {
        type R = Dual2;
        type Error = PolicyError;
        fn m1(&self) -> Result<Dual2, PolicyError> {
            Ok(self.interval(self.inner.m1()?, 1))
        }
        fn m2(&self) -> Result<Dual2, PolicyError> {
            Ok(self.interval(self.inner.m2()?, 2))
        }
        fn interval_weight(&self) -> Result<Dual2, PolicyError> {
            let j = self.inner.weight_order();
            Ok(self.interval(self.inner.interval_weight()?, j))
        }
        fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Dual2>>, PolicyError> {
            let Some(k) = self.inner.killed_at_b()? else {
                return Ok(None);
            };
            let dt = self.end(true, 0, -1);
            Ok(Some(KillPoint {
                b: &self.b,
                tail: Dual2::new(k.tail, [None, dt]),
            }))
        }
        fn weight_above_a(&self) -> Result<Dual2, PolicyError> {
            let j = self.inner.weight_order();
            let v = self.inner.weight_above_a()?;
            Ok(Dual2::new(v, [self.end(false, j, -1), None]))
        }
        fn mass_above_a(&self) -> Result<Dual2, PolicyError> {
            let v = self.inner.mass_above_a()?;
            Ok(Dual2::new(v, [self.end(false, 0, -1), None]))
        }
        fn weight_above_b(&self) -> Result<Dual2, PolicyError> {
            let j = self.inner.weight_order();
            let v = self.inner.weight_above_b()?;
            Ok(Dual2::new(v, [None, self.end(true, j, -1)]))
        }
    }

    /// The analytic partial derivatives of [`host_grad`] against forward-mode
    /// differentiation ([`Dual2`]) of the one term definition, for every kind and metric,
    /// on inner hosts and on the first and last (one fixed end). Source of the expected
    /// values: the Dual2 evaluation at the same 200 bits; tolerance 2^-170 relative to the
    /// larger of |∂T| and T/x (the two differ only by rounding, which cancellation in the
    /// forward-mode ∂n₁/∂b = b f(b) + (F̄(b) − b f(b)) can raise by a few bits).
    #[test]
    fn analytic_gradient_matches_forward_mode() {
        let bits = 200;
        let mut checked = 0;
        for spec in [
            "bp:k=1,p=1e10,alpha=1.5",
            "exp:rate=1",
            "lognormal:mu=0,sigma=1",
        ] {
            let d = DistSpec::parse(spec).and_then(|s| s.build(bits)).unwrap();
            let (lambda, _) = LoadSpec::Total("0.4".into())
                .resolve(d.as_ref(), 3)
                .unwrap();
            let top = d.upper();
            let (a, b) = (Float::with_val(bits, 1.5), Float::with_val(bits, 7.25));
            for kind in [ChainKind::Sita, ChainKind::Tags, ChainKind::TagsQueueLength] {
                for metric in [Metric::Waiting, Metric::Slowdown] {
                    let ch = Chain::new(d.as_ref(), lambda.clone(), kind, metric);
                    for (x, y) in [(&a, &b), (&d.lower(), &a), (&b, &top)] {
                        let (pa, pb) = (ch.left_point(x), ch.point(y));
                        // E[1/X] near 0 is infinite for the exponential: no term there.
                        let g = match ch.term_grad(&pa, &pb, true) {
                            Err(PolicyError::InfiniteMetric { .. }) => continue,
                            r => r.unwrap(),
                        };
                        checked += 1;
                        let dual = DualInputs {
                            inner: ChainInputs::new(&ch, &pa, &pb),
                            b: Dual2::variable(pb.x.clone(), 1),
                        };
                        let lam = Dual2::constant(lambda.clone());
                        let t = host(kind, &lam, &dual, Parts::Term).unwrap().term();
                        assert_eq!(t.value, g.value, "{spec} {kind:?} value");
                        for (i, (got, pos)) in [(&g.da, x), (&g.db, y)].into_iter().enumerate() {
                            let want = t.derivative(i);
                            let scale = if pos.is_finite() && !pos.is_zero() {
                                Float::with_val(bits, &g.value / pos).abs()
                            } else {
                                Float::with_val(bits, 0)
                            };
                            let scale = scale.max(&Float::with_val(bits, want.abs_ref()));
                            let err = Float::with_val(bits, got - &want).abs();
                            assert!(
                                err <= scale >> 170,
                                "{spec} {kind:?} {metric:?} ∂{i}: {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
        assert!(checked >= 48, "{checked} terms checked");
    }
}
