//! Proven evaluation of SITA, TAGS and Random: the same formulas as [`super::evaluate`] —
//! the one host term of [`super::host_term`], here on [`Interval`]s — fed with the
//! enclosures of a law ([`crate::dist::Enclosure`]), so that every number is an interval
//! that contains the exact value of the model's formula for the decimal inputs.
//!
//! What is proven is the formula: for TAGS at hosts ≥ 2 that is the papers' Poisson
//! approximation of the queueing (ARCHITECTURE.md, "The model"), enclosed, not the exact
//! TAGS system. Stability is decided by the enclosures: a host is stable when its load's
//! upper end is below 1, unstable when its lower end is at least 1; a load whose enclosure
//! contains 1 is an error that asks for more digits, never a guess.
//!
//! (`num::real::Real` is named by its path here: in scope, its by-value `add`/`mul`/`div`
//! would be chosen over the interval's own by-reference methods.)

use super::host_term::{host, weight_order, HostInputs, KillPoint, Parts};
use super::{budget, LoadSpec, Metric, PolicyError, PolicyKind, HINT_MORE_DIGITS};
use crate::dist::enclose::below_support;
use crate::dist::{DistError, Enclosure};
use crate::num::interval::Interval;
use crate::num::message_number;
use rug::float::Special;
use rug::Float;

/// A proven evaluation: each number an enclosure of the exact value.
pub type EnclosedEvaluation = super::Evaluation<Interval>;

/// The inputs of a host term on (a, b] from a law's enclosures.
struct EnclosureInputs<'a> {
    enc: &'a dyn Enclosure,
    metric: Metric,
    a: &'a Interval,
    b: &'a Interval,
    /// Whether b is the top of the support (nothing is killed there).
    b_is_top: bool,
    top: Interval,
}

impl<'a> EnclosureInputs<'a> {
    /// The inputs of host i (1-based) of `s.len() − 1` hosts over the chain of cutoffs
    /// `s` = (s_0, …, s_h): the interval (s_{i−1}, s_i], the last one reaching the top.
    fn host(enc: &'a dyn Enclosure, metric: Metric, s: &'a [Interval], i: usize) -> Self {
        EnclosureInputs {
            enc,
            metric,
            a: &s[i - 1],
            b: &s[i],
            b_is_top: i + 1 == s.len(),
            top: inf(enc.prec()),
        }
    }

    /// The inputs of one host over the cutoff intervals (a, b] (b the top of the support
    /// when `b_is_top`).
    fn between(
        enc: &'a dyn Enclosure,
        metric: Metric,
        a: &'a Interval,
        b: &'a Interval,
        b_is_top: bool,
    ) -> Self {
        EnclosureInputs {
            enc,
            metric,
            a,
            b,
            b_is_top,
            top: inf(enc.prec()),
        }
    }

    fn moment(&self, j: i32, a: &Interval, b: &Interval) -> Result<Interval, PolicyError> {
        self.enc
            .partial_moment(j, a, b)
            .map_err(|e| infinite_metric(self.metric, e))
    }
}

/// An infinite moment met while computing `metric` is an infinite metric.
fn infinite_metric(metric: Metric, e: DistError) -> PolicyError {
    PolicyError::Dist(e).for_metric(metric)
}

impl HostInputs for EnclosureInputs<'_> {
    type R = Interval;
    type Error = PolicyError;
    fn m1(&self) -> Result<Interval, PolicyError> {
        self.moment(1, self.a, self.b)
    }
    fn m2(&self) -> Result<Interval, PolicyError> {
        self.moment(2, self.a, self.b)
    }
    fn interval_weight(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, self.b)
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Interval>>, PolicyError> {
        if self.b_is_top {
            return Ok(None);
        }
        Ok(Some(KillPoint {
            b: self.b,
            tail: self.enc.tail(self.b)?,
        }))
    }
    fn weight_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, &self.top)
    }
    fn mass_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(0, self.a, &self.top)
    }
    fn weight_above_b(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.b, &self.top)
    }
}

/// The stability the enclosures prove: `Ok(true)` every load below 1, `Ok(false)` some load
/// at least 1, an error where a load's enclosure contains 1 and none is proven unstable.
pub fn proven_stable(loads: &[Interval]) -> Result<bool, PolicyError> {
    if loads.iter().any(crate::num::real::Real::at_least_one) {
        return Ok(false);
    }
    match loads.iter().position(|r| *r.hi() >= 1) {
        None => Ok(true),
        Some(i) => Err(PolicyError::Solver {
            what: format!("stability of host {}", i + 1),
            detail: format!(
                "its load's enclosure [{}, {}] contains 1",
                message_number(loads[i].lo()),
                message_number(loads[i].hi())
            ),
            hint: HINT_MORE_DIGITS,
        }),
    }
}

/// +∞ as an exact interval.
fn inf(bits: u32) -> Interval {
    Interval::infinite_at(bits)
}

/// The cutoff chain s_0 < s_1 < … < s_h: a point below the support, the interior cutoffs,
/// +∞ (the moments clip both ends to the support).
fn chain(bits: u32, interior: &[Interval]) -> Vec<Interval> {
    let mut s = Vec::with_capacity(interior.len() + 2);
    s.push(Interval::point(below_support(bits)));
    s.extend(interior.iter().cloned());
    s.push(Interval::point(Float::with_val(bits, Special::Infinity)));
    s
}

/// The host terms of the chain `kind` (each host's share of the objective, +∞ for a host
/// proven unstable) at arrival rate `lambda`, for every cutoff vector whose i-th interior
/// cutoff lies in `cutoffs[i]`: by the inclusion property each term's interval contains
/// the term at every such vector (boxes that overlap included: a moment over an empty
/// interval (a, b], a ≥ b, is 0). A load whose enclosure contains 1 makes its waiting
/// [w, +∞] (see the [`Interval`] scalar), so a lower end stays valid. These are the
/// optimiser's box bounds.
pub fn enclosed_terms(
    kind: crate::policy::host_term::ChainKind,
    enc: &dyn Enclosure,
    lambda: &Interval,
    cutoffs: &[Interval],
    metric: Metric,
) -> Result<Vec<Interval>, PolicyError> {
    let bits = enc.prec();
    let s = chain(bits, cutoffs);
    let hosts = cutoffs.len() + 1;
    (1..=hosts)
        .map(|i| {
            let v = EnclosureInputs::host(enc, metric, &s, i);
            Ok(host(kind, lambda, &v, Parts::Term)?.term())
        })
        .collect()
}

/// One host of the chain `kind` over the cutoff intervals (a, b] (`b_is_top`: b is the top
/// of the support, where nothing is killed), its parts enclosed over every a, b of the
/// intervals like [`enclosed_terms`]'s (an unstable host's queueing is +∞). The
/// optimiser's TAGS box bound (`optimize::proven`) calls it at the corners of a box.
pub(crate) fn enclosed_host(
    kind: crate::policy::host_term::ChainKind,
    enc: &dyn Enclosure,
    lambda: &Interval,
    (a, b, b_is_top): (&Interval, &Interval, bool),
    metric: Metric,
) -> Result<super::host_term::Host<Interval>, PolicyError> {
    let v = EnclosureInputs::between(enc, metric, a, b, b_is_top);
    host(kind, lambda, &v, Parts::Term)
}

/// Evaluates `policy` on the enclosures `enc` at arrival rate `lambda` with the h − 1
/// interior cutoffs (none for Random), which the caller has checked (count, order,
/// inside the support: [`super::full_cutoffs`] on a built law).
pub fn evaluate_enclosed(
    policy: PolicyKind,
    enc: &dyn Enclosure,
    lambda: &Interval,
    hosts: usize,
    cutoffs: &[Interval],
    metric: Metric,
) -> Result<EnclosedEvaluation, PolicyError> {
    budget::check_eval_hosts(hosts, enc.prec())?;
    let bits = enc.prec();
    let Some(kind) = policy.chain_kind() else {
        return random(enc, lambda, hosts, metric);
    };
    if cutoffs.len() + 1 != hosts {
        return Err(PolicyError::BadCutoffs(format!(
            "{hosts} hosts need {} cutoffs, got {}",
            hosts.saturating_sub(1),
            cutoffs.len()
        )));
    }
    let s = chain(bits, cutoffs);
    let mut host_loads = Vec::with_capacity(hosts);
    let mut host_waiting = Vec::with_capacity(hosts);
    let mut queueing = Interval::zero_at(bits);
    let mut wasted = Interval::zero_at(bits);
    for i in 1..=hosts {
        let v = EnclosureInputs::host(enc, metric, &s, i);
        let h = host(kind, lambda, &v, Parts::All)?;
        if !crate::num::real::Real::is_zero(&h.queueing) {
            queueing = queueing.add(&h.queueing);
        }
        if let Some(w) = &h.wasted {
            wasted = wasted.add(w);
        }
        host_loads.push(h.load);
        host_waiting.push(h.waiting);
    }
    let stable = proven_stable(&host_loads)?;
    if !stable {
        queueing = inf(bits);
    }
    let waiting = queueing.add(&wasted);
    let value = match metric {
        Metric::Response => waiting.add(&mean(enc, metric)?),
        Metric::Waiting | Metric::Slowdown => waiting,
    };
    Ok(EnclosedEvaluation {
        host_loads,
        stable,
        value,
        queueing,
        wasted,
        host_waiting,
    })
}

fn mean(enc: &dyn Enclosure, metric: Metric) -> Result<Interval, PolicyError> {
    enc.mean().map_err(|e| infinite_metric(metric, e))
}

/// Random routing: each host an M/G/1 queue at rate λ/h (`policy/random.rs`).
fn random(
    enc: &dyn Enclosure,
    lambda: &Interval,
    hosts: usize,
    metric: Metric,
) -> Result<EnclosedEvaluation, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let h = u32::try_from(hosts).map_err(|_| PolicyError::BadHosts(hosts))?;
    let lh = lambda.div_u(h);
    let m = mean(enc, metric)?;
    let rho = lh.mul(&m);
    let m2 = enc.moment(2).map_err(|e| infinite_metric(metric, e))?;
    let w = super::pk_waiting(&lh, &m2, &rho);
    let stable = proven_stable(std::slice::from_ref(&rho))?;
    let queueing = match metric {
        Metric::Slowdown => {
            let inv = enc.moment(-1).map_err(|e| infinite_metric(metric, e))?;
            w.mul(&inv)
        }
        Metric::Waiting | Metric::Response => w.clone(),
    };
    let value = match metric {
        Metric::Response => queueing.add(&m),
        Metric::Waiting | Metric::Slowdown => queueing.clone(),
    };
    Ok(EnclosedEvaluation {
        host_loads: vec![rho; hosts],
        stable,
        value,
        queueing,
        wasted: Interval::zero_at(enc.prec()),
        host_waiting: vec![w; hosts],
    })
}

impl LoadSpec {
    /// The load as enclosures (λ, ρ) of the decimal written, at the enclosure's precision:
    /// ρ = λ E[X] with E[X] enclosed. The range checks (0 < ρ < h) are
    /// [`LoadSpec::resolve`]'s, on a built law.
    pub fn resolve_enclosed(
        &self,
        enc: &dyn Enclosure,
        hosts: usize,
    ) -> Result<(Interval, Interval), PolicyError> {
        self.resolve_enclosed_at(None, enc, hosts)
    }

    /// [`LoadSpec::resolve_enclosed`] with the number (ρ, ρ per host or λ, as the kind
    /// says) given as an enclosure `value` instead of the decimal (a load computed with
    /// proofs, e.g. a fraction of an enclosed threshold); the decimal when `None`.
    pub fn resolve_enclosed_at(
        &self,
        value: Option<&Interval>,
        enc: &dyn Enclosure,
        hosts: usize,
    ) -> Result<(Interval, Interval), PolicyError> {
        let bits = enc.prec();
        let mean = enc.mean()?;
        let num = |s: &str| match value {
            Some(v) => Ok(v.at_prec(bits)),
            None => {
                Interval::from_decimal(s, bits).map_err(|e| PolicyError::BadLoad(e.to_string()))
            }
        };
        let h = Interval::int(bits, i64::try_from(hosts).unwrap_or(i64::MAX));
        Ok(match self {
            LoadSpec::Total(s) => {
                let rho = num(s)?;
                (rho.div(&mean), rho)
            }
            LoadSpec::PerHost(s) => {
                let rho = num(s)?.mul(&h);
                (rho.div(&mean), rho)
            }
            LoadSpec::Lambda(s) => {
                let lambda = num(s)?;
                let rho = lambda.mul(&mean);
                (lambda, rho)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{DistFactory, DistSpec};
    use crate::policy::evaluate;

    /// The one host-term definition on intervals contains the MPFR evaluation of the same
    /// policy at 3× the precision (its error ~2^−600 relative), for SITA, TAGS and Random and
    /// each metric, and is no wider than 2^−(bits − 40) relative.
    #[test]
    fn enclosed_evaluation_contains_the_certified_one() {
        let bits = 200;
        let hp = 600;
        for (spec, cutoffs) in [
            ("bp:k=1,p=1e10,alpha=1", vec!["30", "2000"]),
            ("weibull:shape=0.5,scale=1", vec!["0.3", "4"]),
            ("lognormal:mu=0,sigma=1", vec!["0.7", "2.5"]),
        ] {
            let s = DistSpec::parse(spec).unwrap();
            let enc = s.enclose(bits).unwrap();
            let d = s.build(hp).unwrap();
            let load = LoadSpec::PerHost("0.4".into());
            let (lam_e, _) = load.resolve_enclosed(enc.as_ref(), 3).unwrap();
            let (lam, _) = load.resolve(d.as_ref(), 3).unwrap();
            assert!(lam_e.contains(&lam));
            let ce: Vec<Interval> = cutoffs
                .iter()
                .map(|c| Interval::from_decimal(c, bits).unwrap())
                .collect();
            let cf: Vec<Float> = cutoffs
                .iter()
                .map(|c| crate::num::parse_decimal(c, hp).unwrap())
                .collect();
            for policy in [PolicyKind::Sita, PolicyKind::Tags, PolicyKind::Random] {
                for metric in [Metric::Waiting, Metric::Response, Metric::Slowdown] {
                    let (c_e, c_f) = if policy == PolicyKind::Random {
                        (&[][..], &[][..])
                    } else {
                        (&ce[..], &cf[..])
                    };
                    let what = format!("{spec} {policy:?} {metric:?}");
                    let e = evaluate_enclosed(policy, enc.as_ref(), &lam_e, 3, c_e, metric);
                    let f = evaluate(policy, d.as_ref(), &lam, 3, c_f, metric);
                    let (e, f) = match (e, f) {
                        (Ok(e), Ok(f)) => (e, f),
                        (Err(_), Err(_)) => continue,
                        (e, f) => panic!("{what}: {e:?} vs {f:?}"),
                    };
                    assert_eq!(e.stable, f.stable, "{what}");
                    let tol = f64::from(bits - 40).exp2().recip();
                    for (x, y) in [
                        (&e.value, &f.value),
                        (&e.queueing, &f.queueing),
                        (&e.wasted, &f.wasted),
                    ]
                    .into_iter()
                    .chain(e.host_loads.iter().zip(&f.host_loads))
                    .chain(e.host_waiting.iter().zip(&f.host_waiting))
                    {
                        assert!(x.contains(y), "{what}: {x:?} vs {y}");
                        assert!(
                            x.rel_width() <= tol || y.is_zero(),
                            "{what}: width {}",
                            x.rel_width()
                        );
                    }
                }
            }
        }
    }

    /// A load whose enclosure contains 1 is neither stable nor unstable: an error.
    #[test]
    fn an_undecided_load_is_an_error() {
        let b = 64;
        let near = Interval::new(Float::with_val(b, 0.9), Float::with_val(b, 1.1));
        assert!(proven_stable(&[near]).is_err());
        let over = Interval::new(Float::with_val(b, 1), Float::with_val(b, 1.1));
        assert!(!proven_stable(&[over]).unwrap());
    }
}
