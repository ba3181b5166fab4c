//! SITA's mean-value form ([`Problem::mean_value_lb`]): a box's lower bound from the
//! objective's value at the box's centre and its slopes in the quantiles enclosed over the
//! box, with a host that may be unstable on the box held at its natural bound. The module
//! docs of [`super`] say what each bound of the branch and bound is and why it holds; TAGS's
//! forms are in [`super::tags`].

use super::Problem;
use crate::num::interval::Interval;
use crate::policy::host_term::weight_order;
use crate::policy::rigorous::enclosed_host;
use crate::policy::PolicyError;
use rug::Float;

impl Problem<'_> {
    /// The mean-value form's lower bound (SITA; module docs), `None` where it is not finite,
    /// with the gradient for the monotonicity test and, where a host was held, the slopes
    /// the split ranks by.
    ///
    /// **A host that may be unstable on the box** (1 − λ M_1 not proven positive over it)
    /// has no slope: it is held at its natural bound over the box (its term's enclosure over
    /// the intervals, whose lower end is its value at the inner corner; +∞ where it is
    /// unstable on the whole box, and then the box has no bound here) and the form covers
    /// the others' sum, smooth on the box (each of them stable on all of it): the objective
    /// is at least that sum's form plus the held bound. The box's intervals are ordered
    /// (the caller's condition), so every vector of it is ordered and each host's term is a
    /// function of its own two cutoffs. The gradient returned for the monotonicity test is
    /// 0 at a held host's cutoffs (its slope there is not the objective's); the split
    /// ranks by the others' slopes. Before 2026-12-06 the whole form gave up on such a
    /// box: SITA's slowdown at BP(1, 10^1000, 1.2), 6 hosts, total load 3, whose hosts 1
    /// and 2 sit at their stability edges, was bounded at first order only near its
    /// minimum (2 proven digits in 200 000 boxes).
    #[allow(clippy::type_complexity)]
    pub(super) fn mean_value_lb(
        &self,
        cut: &[Interval],
        centre: &[Float],
        centre_terms: &[Interval],
        box_terms: &[Interval],
    ) -> Result<Option<(Float, Vec<Interval>, Option<Vec<f64>>)>, PolicyError> {
        let bits = self.bits;
        let n = cut.len();
        let jw = weight_order(self.obj.metric);
        let lam = &self.lambda;
        let lower = Interval::point(crate::dist::enclose::below_support(bits));
        let top = Interval::infinite_at(bits);
        let mut grad = vec![Interval::zero_at(bits); n];
        let mut exact = vec![true; n];
        let moment = |j: i32, a: &Interval, b: &Interval| {
            self.enc
                .partial_moment(j, a, b)
                .map_err(|e| PolicyError::Dist(e).for_metric(self.obj.metric))
        };
        // A host's factors on (a, b] — D = 1 − λ M_1, its wait W = λ M_2/(2D) and weight
        // w = M_{j_w} — and its slope ∂T/∂u_x = ± (x^{j_w} W + w λ (x²/(2D) + W x/D)) at
        // x = b (+) or a (−).
        let factors = |a: &Interval, b: &Interval| -> Result<[Interval; 3], PolicyError> {
            let d = lam
                .mul(&moment(1, a, b)?)
                .neg()
                .add(&Interval::int(bits, 1));
            let wait = lam.mul(&moment(2, a, b)?).mul_2exp(-1).div(&d);
            Ok([d, wait, moment(jw, a, b)?])
        };
        let slope = |[d, wait, w]: &[Interval; 3], x: &Interval| {
            let dw = x.square().mul_2exp(-1).add(&wait.mul(x)).div(d).mul(lam);
            x.powi(jw).mul(wait).add(&w.mul(&dw))
        };
        // The hosts held: 1 − λ M_1 not proven positive over the box.
        let mut held = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let a = if i == 0 { &lower } else { &cut[i - 1] };
            let b = if i == n { &top } else { &cut[i] };
            let n1 = moment(1, a, b)?;
            held.push(*lam.mul(&n1).neg().add(&Interval::int(bits, 1)).lo() <= 0);
        }
        // Each host's value at the centre, or its held bound over the box.
        let mut bases = Vec::with_capacity(n + 1);
        // The pinned sides' slopes, for the split's ranking only.
        let mut ranking = vec![Interval::zero_at(bits); n];
        for i in 0..=n {
            if held[i] {
                let lb = box_terms.get(i).map(|t| t.lo().clone());
                let Some(lb) = lb.filter(|x| x.is_finite()) else {
                    return Ok(None);
                };
                if i > 0 {
                    exact[i - 1] = false;
                }
                if i < n {
                    exact[i] = false;
                }
                let inf = Float::with_val(bits, rug::float::Special::Infinity);
                bases.push(Interval::new(lb.max(&Float::new(bits)), inf));
                continue;
            }
            // A cutoff shared with a held host is pinned at the end where this host's term
            // is least (a term falls in its a and grows in its b): T(a, b) ≥ T(a_hi, b) and
            // ≥ T(a, b_lo), exactly, where a slope over the whole interval would lose the
            // first order of its width (the form then fell below the natural bound).
            let a_pin = i > 0 && held[i - 1];
            let b_pin = i < n && held[i + 1];
            let a = if i == 0 {
                lower.clone()
            } else if a_pin {
                cut[i - 1].hi_point()
            } else {
                cut[i - 1].clone()
            };
            let b = if i == n {
                top.clone()
            } else if b_pin {
                cut[i].lo_point()
            } else {
                cut[i].clone()
            };
            if a_pin || b_pin {
                let point = |k: usize, pinned: &Interval, pin: bool| {
                    if pin {
                        pinned.clone()
                    } else {
                        Interval::point(centre[k].clone())
                    }
                };
                let a_c = if i == 0 {
                    lower.clone()
                } else {
                    point(i - 1, &a, a_pin)
                };
                let b_c = if i == n {
                    top.clone()
                } else {
                    point(i, &b, b_pin)
                };
                let host = enclosed_host(
                    self.obj.kind,
                    self.enc,
                    lam,
                    (&a_c, &b_c, i == n),
                    self.obj.metric,
                )?;
                bases.push(host.term());
            } else {
                bases.push(centre_terms[i].clone());
            }
            let f = factors(&a, &b)?;
            if i > 0 && !a_pin {
                grad[i - 1] = grad[i - 1].sub(&slope(&f, &a));
            }
            if i < n && !b_pin {
                grad[i] = grad[i].add(&slope(&f, &b));
            }
            // The split still ranks a pinned cutoff by this host's slope there over the
            // whole box (the pin costs the bound nothing, but splitting that cutoff is what
            // can make the held neighbour stable on a part of the box). Over the pinned
            // intervals the slope can vanish: b pinned at the support's bottom gives the
            // host no mass (SITA's response at BP(1, 10^10, 1.5), 4 hosts: s_1 in [1, 2.4]
            // was never split, 0 proven digits in 200 000 boxes where 895 closed it).
            if a_pin || b_pin {
                let a = if i == 0 { &lower } else { &cut[i - 1] };
                let b = if i == n { &top } else { &cut[i] };
                let f = factors(a, b)?;
                if a_pin {
                    ranking[i - 1] = ranking[i - 1].sub(&slope(&f, a));
                }
                if b_pin {
                    ranking[i] = ranking[i].add(&slope(&f, b));
                }
            }
        }
        let mut v = self.fold(bases);
        for (i, g) in grad.iter().enumerate() {
            let c = Interval::point(centre[i].clone());
            let below = moment(0, &cut[i].lo_point(), &c)?;
            let above = moment(0, &c, &cut[i].hi_point())?;
            let du = Interval::new(Float::with_val(bits, -below.hi()), above.hi().clone());
            v = v.add(&g.mul(&du));
        }
        let lo = v.lo().clone();
        if !lo.is_finite() {
            return Ok(None);
        }
        if exact.iter().all(|&e| e) {
            return Ok(Some((lo, grad, None)));
        }
        // The split ranks by the others' slopes (a held host's own looseness was tried as
        // well: near the bottom edge its term at the centre, about w/σ, is no measure of
        // what a split gains, and that row fell from 4 proven digits to 1 in 50 000 boxes).
        let ranking: Vec<Interval> = grad.iter().zip(&ranking).map(|(g, r)| g.add(r)).collect();
        let mut rank = self.smear(cut, &ranking)?;
        // A cutoff that no slope ranks (both its hosts held) would never be split: the box
        // is then split at its widest interval, as where the form gives no slope at all.
        if rank
            .iter()
            .zip(cut)
            .any(|(r, c)| !c.is_point() && *r == f64::NEG_INFINITY)
        {
            rank = Vec::new();
        }
        let zero = Interval::zero_at(bits);
        let test = grad
            .iter()
            .zip(&exact)
            .map(|(g, &e)| if e { g.clone() } else { zero.clone() })
            .collect();
        Ok(Some((lo, test, Some(rank))))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{bp_one_edge, problem_of, BpOneEdge};
    use super::*;
    use crate::num::message_number;
    use crate::optimize::OptPolicy;
    use crate::policy::rigorous::enclosed_terms;
    use crate::policy::Metric;

    /// A SITA box at host 1's stability edge: BP(1, 10^10, 1), 4 hosts, total load 3.5,
    /// host 1 unstable from c_1 = e^{1/(λC)} (C = 1/(1 − 10^−10): its load is λ C ln s_1),
    /// s_1's interval [0.95 c_1, 1.01 c_1] across it and s_2, s_3 within 0.1 % of the points
    /// that split the rest of the support evenly in ln s. The mean-value form holds host 1
    /// at its natural bound and covers the others: it applies (before 2026-12-06 it gave
    /// up on such a box), its bound lies below the objective enclosed at every stable point
    /// of a 9 × 9 × 9 grid of the box (the points' enclosures are the oracle, as above), and
    /// it is above the natural bound (which it exists to beat).
    #[test]
    fn a_held_host_keeps_the_sita_mean_value_form_at_a_stability_edge() {
        let bits = 128;
        let BpOneEdge {
            enc,
            law,
            lambda,
            inv,
        } = bp_one_edge(bits);
        let f = |v: f64| Float::with_val(bits, v);
        let c1 = Float::with_val(bits, inv.exp_ref());
        let span = Float::with_val(bits, Float::with_val(bits, f(1e10) / &c1).ln() / 3u32);
        let s2 = Float::with_val(bits, &c1 * Float::with_val(bits, span.exp_ref()));
        let s3 = Float::with_val(bits, &s2 * Float::with_val(bits, span.exp_ref()));
        let around = |x: &Float, lo: f64, hi: f64| {
            Interval::new(Float::with_val(bits, x * lo), Float::with_val(bits, x * hi))
        };
        let cut = vec![
            around(&c1, 0.95, 1.01),
            around(&s2, 0.999, 1.001),
            around(&s3, 0.999, 1.001),
        ];
        for metric in [Metric::Waiting, Metric::Slowdown, Metric::Response] {
            let pb = problem_of(
                (OptPolicy::Sita, metric),
                enc.as_ref(),
                law.as_ref(),
                &lambda,
            );
            let centre: Vec<Float> = cut.iter().map(|c| pb.split_point(c.lo(), c.hi())).collect();
            let centre_terms = pb.terms_at(&centre).unwrap();
            let box_terms = enclosed_terms(pb.obj.kind, pb.enc, &pb.lambda, &cut, metric).unwrap();
            let (form, test, _) = pb
                .mean_value_lb(&cut, &centre, &centre_terms, &box_terms)
                .unwrap()
                .expect("the form applies with host 1 held");
            assert!(
                test[0].lo().is_zero() && test[0].hi().is_zero(),
                "{metric:?}: s_1's slope is a held host's: no sign for the monotonicity test"
            );
            let natural = pb.value(&cut).unwrap().lo().clone();
            assert!(
                form > natural,
                "{metric:?}: the form {} is not above the natural bound {}",
                message_number(&form),
                message_number(&natural)
            );
            let (bb, _) = pb.bound(cut.clone()).unwrap();
            let mut stable = 0;
            for i in 0..=8u32 {
                for j in 0..=8u32 {
                    for k in 0..=8u32 {
                        let at = |c: &Interval, t: u32| {
                            let w = Float::with_val(bits, c.hi() - c.lo());
                            Interval::point(Float::with_val(bits, c.lo() + w * t / 8u32))
                        };
                        let pt = vec![at(&cut[0], i), at(&cut[1], j), at(&cut[2], k)];
                        let v = pb.value(&pt).unwrap();
                        if !v.hi().is_finite() {
                            continue;
                        }
                        stable += 1;
                        for lb in [&form, &bb.lb] {
                            assert!(
                                *lb <= *v.hi(),
                                "{metric:?}: bound {} above {} at {i},{j},{k}",
                                message_number(lb),
                                message_number(v.hi())
                            );
                        }
                    }
                }
            }
            // Host 1 is stable below c_1: 7 of the 9 values of s_1 (0.95 c_1 + 0.06 c_1 t/8
            // < c_1 for t < 6.67) at every s_2, s_3.
            assert_eq!(stable, 7 * 81, "{metric:?}");
        }
    }
}
