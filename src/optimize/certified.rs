//! The certified answers of size-based dispatch: `eval` (one policy at given cutoffs),
//! `optimize` (the optimal cutoffs) and `threshold` (the TAGS stability threshold ρ*(F, h)),
//! each computed at the two precisions of [`Certify`] and printed with the digits on
//! which both agree. The `taskassign eval|optimize|threshold` commands and
//! [`crate::prelude::Farm`] call these; [`crate::report`] renders what they return.
//!
//! `eval` lives here rather than in [`crate::policy`] because an evaluation first refuses
//! a load no cutoffs can stabilise ([`super::threshold::check_stable`]: for TAGS the
//! greedy construction of this room).

use super::threshold::{check_stable, tags_threshold, Threshold};
use super::{optimal_cutoffs_certified, OptPolicy, Optimum};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, AtBoth, Certified, Certify, UNDETERMINED};
use crate::num::parse_decimal;
use crate::policy::{evaluate, Evaluation, LoadSpec, Metric, PolicyError, PolicyKind};
use rug::Float;

/// The smallest count of certified digits among `xs` (`wanted` when there are none): the
/// `digits` a result reports.
pub fn min_digits<'a, I: IntoIterator<Item = &'a Certified>>(xs: I, wanted: u32) -> u32 {
    xs.into_iter().map(|c| c.digits).min().unwrap_or(wanted)
}

/// The certified numbers every dispatch answer has (the keys ARCHITECTURE.md fixes for
/// `eval` and `optimize`): one view of [`EvalReport`] and [`OptimizeReport`], so that
/// their range guard, their fewest digits and their records are written once.
#[derive(Debug, Clone, Copy)]
pub struct DispatchNumbers<'a> {
    /// The arrival rate λ of the Poisson stream, jobs per unit of the job-size unit's time.
    pub lambda: &'a Certified,
    /// The total offered load ρ = λ E[X] (dimensionless, 0 < ρ < h for a stable farm).
    pub load: &'a Certified,
    /// The h − 1 cutoffs.
    pub cutoffs: &'a [Certified],
    /// Per-host loads.
    pub host_loads: &'a [Certified],
    /// The metric's value.
    pub value: &'a Certified,
    /// Queueing part.
    pub queueing: &'a Certified,
    /// Wasted-service part.
    pub wasted: &'a Certified,
    /// Whether every host's load ρ_i is below 1 (otherwise the mean is infinite).
    pub stable: bool,
    /// The fewest significant digits on which the two precisions agree, over the numbers.
    pub digits: u32,
}

impl<'a> DispatchNumbers<'a> {
    /// The numbers that are never zero or infinite in a sound answer (λ, ρ, the value and
    /// its queueing part): the first argument of [`crate::num::certify::AtBoth::guard_range`].
    pub fn nonzero(&self) -> [&'a Certified; 4] {
        [self.lambda, self.load, self.value, self.queueing]
    }

    /// Each number's certified digits under its record key, in the record's order:
    /// (key, digits, whether the key is a list: one entry a cutoff or host).
    pub fn field_digits(&self) -> Vec<(String, Vec<u32>, bool)> {
        let one = |k: &str, c: &Certified| (k.to_string(), vec![c.digits], false);
        let list = |k: &str, cs: &[Certified]| {
            (k.to_string(), cs.iter().map(|c| c.digits).collect(), true)
        };
        vec![
            one("lambda", self.lambda),
            one("load", self.load),
            list("cutoffs", self.cutoffs),
            list("host_loads", self.host_loads),
            one("value", self.value),
            one("queueing", self.queueing),
            one("wasted", self.wasted),
        ]
    }

    /// Every number: λ, ρ, the value, its queueing and wasted parts, the cutoffs and the
    /// host loads (the ones whose fewest digits the answer reports).
    pub fn all(&self) -> impl Iterator<Item = &'a Certified> {
        [
            self.lambda,
            self.load,
            self.value,
            self.queueing,
            self.wasted,
        ]
        .into_iter()
        .chain(self.cutoffs.iter())
        .chain(self.host_loads.iter())
    }
}

/// `numbers()` for a report with the fields of [`DispatchNumbers`] (both reports have them
/// under the same names).
macro_rules! dispatch_numbers {
    ($report:ty) => {
        impl $report {
            /// The numbers every dispatch answer has.
            pub fn numbers(&self) -> DispatchNumbers<'_> {
                DispatchNumbers {
                    lambda: &self.lambda,
                    load: &self.load,
                    cutoffs: &self.cutoffs,
                    host_loads: &self.host_loads,
                    value: &self.value,
                    queueing: &self.queueing,
                    wasted: &self.wasted,
                    stable: self.stable,
                    digits: self.digits,
                }
            }
        }
    };
}

/// What `eval` computes: one policy at given cutoffs, answered by [`eval_certified`].
pub struct EvalRequest<'a> {
    /// The routing policy whose formula is evaluated.
    pub policy: PolicyKind,
    /// The job-size distribution, built at each working precision.
    pub dist: &'a dyn DistFactory,
    /// h, the number of identical FCFS hosts (at least 1).
    pub hosts: usize,
    /// The offered load: ρ, ρ/h or λ, as decimal text.
    pub load: LoadSpec,
    /// The h − 1 interior cutoffs s_1 < … < s_{h−1} as decimal strings, in the job-size
    /// unit (none for Random).
    pub cutoffs: Vec<String>,
    /// What is averaged: waiting, response or slowdown.
    pub metric: Metric,
    /// Significant decimal digits wanted of every number (each printed digit certified).
    pub digits: u32,
}

/// A certified evaluation: every number with the digits two precisions agree on (time in
/// the job-size unit, λ per that unit).
#[derive(Debug, Clone)]
pub struct EvalReport {
    /// Arrival rate λ.
    pub lambda: Certified,
    /// Total load ρ.
    pub load: Certified,
    /// The cutoffs as used.
    pub cutoffs: Vec<Certified>,
    /// Per-host loads.
    pub host_loads: Vec<Certified>,
    /// Per-host mean waiting in queue.
    pub host_waiting: Vec<Certified>,
    /// The metric's value.
    pub value: Certified,
    /// Queueing part.
    pub queueing: Certified,
    /// Wasted-service part.
    pub wasted: Certified,
    /// All hosts stable.
    pub stable: bool,
    /// Fewest certified digits among the numbers.
    pub digits: u32,
}

dispatch_numbers!(EvalReport);

/// One evaluation at one precision.
struct Run {
    lambda: Float,
    rho: Float,
    cutoffs: Vec<Float>,
    eval: Evaluation,
}

fn run_once(req: &EvalRequest, bits: u32) -> Result<Run, PolicyError> {
    let d = req.dist.build(bits)?;
    let (lambda, rho) = req.load.resolve(d.as_ref(), req.hosts)?;
    let cutoffs = req
        .cutoffs
        .iter()
        .map(|c| parse_decimal(c, bits).map_err(|e| PolicyError::BadCutoffs(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if req.policy.chain_kind().is_none() && !cutoffs.is_empty() {
        return Err(PolicyError::BadCutoffs(format!(
            "{} routing takes no cutoffs",
            req.policy.name()
        )));
    }
    check_stable(req.policy, d.as_ref(), &lambda, &rho, req.hosts)?;
    let eval = evaluate(
        req.policy,
        d.as_ref(),
        &lambda,
        req.hosts,
        &cutoffs,
        req.metric,
    )?;
    Ok(Run {
        lambda,
        rho,
        cutoffs,
        eval,
    })
}

/// Evaluates at two precisions and certifies every number.
pub fn eval_certified(req: &EvalRequest) -> Result<EvalReport, PolicyError> {
    let c = Certify::digits(req.digits);
    let both = c.run(|bits| run_once(req, bits))?;
    let w = c.wanted();
    let rep = EvalReport {
        lambda: both.certify(w, |r| &r.lambda),
        load: both.certify(w, |r| &r.rho),
        cutoffs: both.certify_all(w, |r| &r.cutoffs),
        host_loads: both.certify_all(w, |r| &r.eval.host_loads),
        host_waiting: both.certify_all(w, |r| &r.eval.host_waiting),
        value: both.certify(w, |r| &r.eval.value),
        queueing: both.certify(w, |r| &r.eval.queueing),
        wasted: both.certify(w, |r| &r.eval.wasted),
        stable: both.hi.eval.stable,
        digits: 0,
    };
    let n = rep.numbers();
    both.guard_range(
        "eval",
        n.nonzero(),
        rep.host_loads
            .iter()
            .chain(&rep.host_waiting)
            .chain(&rep.cutoffs),
    )?;
    let digits = min_digits(n.all().chain(rep.host_waiting.iter()), w);
    Ok(EvalReport { digits, ..rep })
}

/// What `optimize` computes: the globally optimal cutoffs of one objective, answered by
/// [`optimize_certified`].
pub struct OptimizeRequest<'a> {
    /// The objective: which policy's cutoffs, chosen by which rule.
    pub policy: OptPolicy,
    /// The job-size distribution, built at each working precision.
    pub dist: &'a dyn DistFactory,
    /// h, the number of identical FCFS hosts (at least 1).
    pub hosts: usize,
    /// The offered load: ρ, ρ/h or λ, as decimal text.
    pub load: LoadSpec,
    /// The metric minimised and reported.
    pub metric: Metric,
    /// Significant decimal digits wanted of every number (each printed digit certified).
    pub digits: u32,
}

/// A certified optimum: the cutoffs and the metric there, each with the digits two
/// precisions agree on (time in the job-size unit).
#[derive(Debug, Clone)]
pub struct OptimizeReport {
    /// λ.
    pub lambda: Certified,
    /// ρ.
    pub load: Certified,
    /// The h − 1 cutoffs (idle hosts: the top of the support).
    pub cutoffs: Vec<Certified>,
    /// Per-host loads.
    pub host_loads: Vec<Certified>,
    /// The metric at the cutoffs.
    pub value: Certified,
    /// Queueing part.
    pub queueing: Certified,
    /// Wasted part.
    pub wasted: Certified,
    /// TAGS-minmax: the largest mean queue length.
    pub max_queue: Option<Certified>,
    /// How many of the h hosts the optimum leaves without jobs (their cutoffs at the top
    /// of the support); 0 when every host serves an interval of sizes.
    pub idle_hosts: usize,
    /// The idle count is not certified: the two precisions, each searching, use
    /// `idle_counts` (working, certifying) idle hosts.
    pub idle_undetermined: Option<(usize, usize)>,
    /// Whether every host's load ρ_i is below 1 at the optimum.
    pub stable: bool,
    /// The fewest significant digits on which the two precisions agree, over the numbers.
    pub digits: u32,
    /// [`crate::optimize::Optimum::atoms_closed`].
    pub atoms_closed: Option<bool>,
    /// Cutoffs (1-based) printed rounded toward their host's stable side instead of to
    /// nearest ([`stable_side`]).
    pub rounded_to_stable: Vec<usize>,
    /// Hosts (1-based) at load 1 or above at the printed cutoffs even so: the optimum's
    /// slack lies below what the printed digits resolve.
    pub unstable_as_printed: Vec<usize>,
}

dispatch_numbers!(OptimizeReport);

/// The cutoffs' digits on which both precisions agree, at most as many as the optimum
/// determines: a cutoff known to relative precision r (the larger of the two runs'
/// [`crate::optimize::Optimum::resolution`]) keeps at most ⌊−log10 r⌋ digits, so a cutoff
/// that barely moves J is never certified by the two runs merely sharing a start.
pub(super) fn certify_cutoffs(a: &Optimum, b: &Optimum, wanted: u32) -> Vec<Certified> {
    a.cutoffs
        .iter()
        .zip(&b.cutoffs)
        .enumerate()
        .map(|(i, (x, y))| {
            let r = match (a.resolution.get(i), b.resolution.get(i)) {
                (Some(p), Some(q)) => p.max(*q),
                _ => 0.0,
            };
            let cap = if r > 0.0 {
                let d = -r.log10();
                if d.is_finite() && d >= 1.0 {
                    (d.floor() as u32).min(wanted)
                } else {
                    0
                }
            } else {
                wanted
            };
            if cap == 0 {
                undetermined()
            } else {
                certify_pair(x, y, cap)
            }
        })
        .collect()
}

/// A number of which no digit is certified.
fn undetermined() -> Certified {
    Certified {
        text: UNDETERMINED.to_string(),
        digits: 0,
    }
}

/// Runs the optimisation at two precisions and certifies.
pub fn optimize_certified(req: &OptimizeRequest) -> Result<OptimizeReport, PolicyError> {
    Ok(optimize_certified_both(req)?.0)
}

/// [`optimize_certified`] and the two precisions' optima it certified (the proven optimum
/// starts from them).
pub fn optimize_certified_both(
    req: &OptimizeRequest,
) -> Result<(OptimizeReport, AtBoth<Optimum>), PolicyError> {
    let c = Certify::digits(req.digits);
    let both =
        optimal_cutoffs_certified(req.dist, &req.load, req.hosts, req.policy, req.metric, &c)?;
    let mut rep = certified_report(&c, &both)?;
    stable_side(req, &both, &mut rep)?;
    Ok((rep, both))
}

/// Passes of [`stable_side`] at most (a cutoff moved for one host hands load to the next).
const STABLE_SIDE_PASSES: usize = 4;

/// Printed cutoffs that leave a host at load 1 are rounded toward its stable side. An
/// optimum at a stability edge puts a host's cutoff within the printed digits' resolution
/// of the cutoff where its load is 1, and rounded to nearest the printed decimal can land
/// on or past it: SITA's slowdown at BP(1, 10^1000, 1.2), 6 hosts, total load 3, printed
/// s_1 = 7.59375000000 = 1.5^5, host 1's edge, and `eval` at the printed cutoffs found host
/// 1 unstable (2026-12-06). The loads at the printed cutoffs are evaluated at the
/// certifying precision; for each host at load 1 or above, its upper cutoff where printed
/// above the optimum's is printed rounded down instead, its lower cutoff where printed
/// below rounded up (the optimum's cutoff then lies between the printed decimal and the
/// next one on the other side, at the same digits). Hosts still at load 1 after
/// [`STABLE_SIDE_PASSES`] are named ([`OptimizeReport::unstable_as_printed`]).
fn stable_side(
    req: &OptimizeRequest,
    both: &AtBoth<Optimum>,
    rep: &mut OptimizeReport,
) -> Result<(), PolicyError> {
    let b = &both.hi;
    let used = b.cutoffs.len() + 1 - b.idle_hosts;
    if used < 2 || rep.cutoffs.iter().any(|c| c.digits == 0) {
        return Ok(());
    }
    let bits = b.lambda.prec();
    let d = req.dist.build(bits)?;
    let parse = |t: &str| parse_decimal(t, bits).ok();
    // The hosts at load 1 or above at the printed cutoffs; `None` where a text does not
    // parse or the evaluation refuses the cutoffs (the pass is a presentation: it never
    // fails the run, and the texts to nearest then stay).
    let unstable_at = |texts: &[Certified]| -> Option<Vec<usize>> {
        let cuts = texts
            .iter()
            .take(used - 1)
            .map(|c| parse(&c.text))
            .collect::<Option<Vec<Float>>>()?;
        let e = evaluate(
            req.policy.routing(),
            d.as_ref(),
            &b.lambda,
            used,
            &cuts,
            req.metric,
        );
        let loads = e.ok()?.host_loads;
        Some((1..=used).filter(|&i| loads[i - 1] >= 1).collect())
    };
    let mut texts = rep.cutoffs.clone();
    let mut moved = Vec::new();
    for _ in 0..STABLE_SIDE_PASSES {
        let Some(unstable) = unstable_at(&texts) else {
            return Ok(());
        };
        if unstable.is_empty() {
            break;
        }
        let mut any = false;
        for &host in &unstable {
            // Its upper cutoff (index host − 1) rounded down, its lower one (host − 2) up,
            // where the printed decimal lies on the unstable side of the optimum's cutoff.
            let sides = [
                (host < used).then(|| (host - 1, rug::float::Round::Down)),
                (host >= 2).then(|| (host - 2, rug::float::Round::Up)),
            ];
            for (k, r) in sides.into_iter().flatten() {
                let Some(p) = parse(&texts[k].text) else {
                    continue;
                };
                let exact = (&both.lo.cutoffs[k], &b.cutoffs[k]);
                let wrong_side = match r {
                    rug::float::Round::Down => p > *exact.0 || p > *exact.1,
                    _ => p < *exact.0 || p < *exact.1,
                };
                if !wrong_side {
                    continue;
                }
                let n = texts[k].digits;
                let (ta, tb) = (
                    crate::num::certify::to_sci_round(exact.0, n, r),
                    crate::num::certify::to_sci_round(exact.1, n, r),
                );
                // The two runs' directed texts differ only where a cutoff sits on a decimal
                // of n digits: the one further to the stable side.
                let (pa, pb) = (parse(&ta), parse(&tb));
                let text = match (pa, pb, r) {
                    (Some(x), Some(y), rug::float::Round::Down) if y > x => ta,
                    (Some(x), Some(y), rug::float::Round::Up) if y < x => ta,
                    _ => tb,
                };
                if text != texts[k].text {
                    texts[k].text = text;
                    any = true;
                    if !moved.contains(&(k + 1)) {
                        moved.push(k + 1);
                    }
                }
            }
        }
        if !any {
            break;
        }
    }
    let unstable = unstable_at(&texts).unwrap_or_default();
    moved.sort_unstable();
    if unstable.is_empty() {
        rep.cutoffs = texts;
        rep.rounded_to_stable = moved;
    } else {
        // The texts to nearest stay (no printed decimal at these digits is stable on
        // both sides); the hosts are named.
        rep.unstable_as_printed = unstable;
    }
    Ok(())
}

/// The certified report of the two precisions' optima.
fn certified_report(c: &Certify, both: &AtBoth<Optimum>) -> Result<OptimizeReport, PolicyError> {
    let w = c.wanted();
    let (a, b) = (&both.lo, &both.hi);
    // Runs that disagree on which hosts are idle do not determine any cutoff, unless the
    // disagreement was found by the idle certification: then the certifying run searched
    // on its own, and each cutoff is certified where the two optima agree (a cutoff at
    // the top in one and finite in the other is undetermined).
    let same_shape =
        a.cutoffs.len() == b.cutoffs.len() && (a.idle_hosts == b.idle_hosts || a.idle_undetermined);
    let cutoffs = if same_shape {
        certify_cutoffs(a, b, w)
    } else {
        vec![undetermined(); b.cutoffs.len()]
    };
    let rep = OptimizeReport {
        lambda: both.certify(w, |o| &o.lambda),
        load: both.certify(w, |o| &o.load),
        cutoffs,
        host_loads: both.certify_all(w, |o| &o.eval.host_loads),
        value: both.certify(w, |o| &o.eval.value),
        queueing: both.certify(w, |o| &o.eval.queueing),
        wasted: both.certify(w, |o| &o.eval.wasted),
        max_queue: match (&a.max_queue, &b.max_queue) {
            (Some(x), Some(y)) => Some(certify_pair(x, y, w)),
            _ => None,
        },
        idle_hosts: b.idle_hosts,
        idle_undetermined: a.idle_undetermined.then_some((a.idle_hosts, b.idle_hosts)),
        stable: b.eval.stable,
        digits: 0,
        atoms_closed: b.atoms.as_ref().map(|a| a.closed),
        rounded_to_stable: Vec::new(),
        unstable_as_printed: Vec::new(),
    };
    // Hosts whose idleness is not certified: their cutoffs (the top) and loads (0) are not
    // certified either.
    let mut rep = rep;
    if rep.idle_undetermined.is_some() {
        let idle = a.idle_hosts.max(b.idle_hosts);
        let h = rep.host_loads.len();
        for c in rep.cutoffs.iter_mut().skip(h.saturating_sub(1 + idle)) {
            *c = undetermined();
        }
        for l in rep.host_loads.iter_mut().skip(h.saturating_sub(idle)) {
            *l = undetermined();
        }
    }
    let n = rep.numbers();
    both.guard_range(
        "optimize",
        n.nonzero().into_iter().chain(rep.max_queue.as_ref()),
        rep.host_loads.iter(),
    )?;
    let digits = min_digits(n.all().chain(rep.max_queue.iter()), w);
    Ok(OptimizeReport { digits, ..rep })
}

/// A certified threshold.
#[derive(Debug, Clone)]
pub struct ThresholdReport {
    /// The threshold load ρ* = λ* E[X]: below it some TAGS cutoffs keep every host stable,
    /// above it none do.
    pub load: Certified,
    /// The arrival rate λ* at the threshold (jobs per unit time of the size unit).
    pub lambda: Certified,
    /// Greedy cutoffs at ρ*.
    pub cutoffs: Vec<Certified>,
    /// For h = ∞, the maximiser of x F̄(x).
    pub argmax: Option<Certified>,
    /// Fewest certified digits among load, lambda and cutoffs.
    pub digits: u32,
}

/// ρ*(F, h) at two precisions, certified. `hosts = None` is h → ∞.
pub fn threshold_certified(
    dist: &dyn DistFactory,
    hosts: Option<usize>,
    digits: u32,
) -> Result<ThresholdReport, PolicyError> {
    let c = Certify::digits(digits);
    let both = c.run(|bits| -> Result<Threshold, PolicyError> {
        let d = dist.build(bits)?;
        tags_threshold(d.as_ref(), hosts)
    })?;
    let load = both.certify(digits, |t| &t.load);
    let lambda = both.certify(digits, |t| &t.lambda);
    let cutoffs = if both.lo.cutoffs.len() == both.hi.cutoffs.len() {
        both.certify_all(digits, |t| &t.cutoffs)
    } else {
        vec![]
    };
    // The maximiser is only determined to about half the working precision (the function
    // is flat there); the two-precision comparison shows how much.
    let argmax = match (&both.lo.argmax, &both.hi.argmax) {
        (Some(a), Some(b)) => Some(certify_pair(a, b, digits)),
        _ => None,
    };
    both.guard_range(
        "threshold",
        [&load, &lambda],
        cutoffs.iter().chain(argmax.as_ref()),
    )?;
    let d = min_digits([&load, &lambda].into_iter().chain(cutoffs.iter()), digits);
    Ok(ThresholdReport {
        load,
        lambda,
        cutoffs,
        argmax,
        digits: d,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Evaluation;
    use rug::Float;

    fn optimum(cut: &str, bits: u32, resolution: Vec<f64>) -> Optimum {
        let x = crate::num::parse_decimal(cut, bits).unwrap();
        let z = Float::with_val(bits, 0);
        Optimum {
            cutoffs: vec![x],
            idle_hosts: 0,
            idle_undetermined: false,
            eval: Evaluation {
                host_loads: vec![],
                stable: true,
                value: z.clone(),
                queueing: z.clone(),
                wasted: z,
                host_waiting: vec![],
            },
            max_queue: None,
            iterations: 1,
            resolution,
            hessian: None,
            lambda: Float::with_val(bits, 1),
            load: Float::with_val(bits, 0.5),
            atoms: None,
        }
    }

    #[test]
    fn cutoff_digits_are_capped_by_the_resolution() {
        // Two runs that agree on 40 digits of a cutoff (as a polish that never moved it
        // would): the digits printed follow the resolution, not the agreement. Expected
        // values by hand: r = 3e-12 allows ⌊−log10 r⌋ = 11 digits; r = +∞ none.
        let c = "1.234567890123456789012345678901234567890";
        let (a, b) = (optimum(c, 200, vec![3e-12]), optimum(c, 260, vec![1e-14]));
        let got = certify_cutoffs(&a, &b, 30);
        assert_eq!(got[0].digits, 11);
        assert_eq!(got[0].text, "1.2345678901e0");
        let (a, b) = (
            optimum(c, 200, vec![f64::INFINITY]),
            optimum(c, 260, vec![1e-40]),
        );
        assert_eq!(certify_cutoffs(&a, &b, 30)[0].text, "undetermined");
        // No resolution known (bracketed roots): the agreement alone decides.
        let (a, b) = (optimum(c, 200, vec![]), optimum(c, 260, vec![]));
        assert_eq!(certify_cutoffs(&a, &b, 30)[0].digits, 30);
    }
}
