//! `optimize`: optimal cutoffs, certified.

use super::{digits_note, min_digits, PolicyKeys, Record};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified, Certify, UNDETERMINED};
use crate::optimize::{optimal_cutoffs_certified, OptPolicy, Optimum};
use crate::policy::{LoadSpec, Metric, PolicyError};

/// What `optimize` computes.
pub struct OptimizeRequest<'a> {
    /// The objective.
    pub policy: OptPolicy,
    /// Job sizes.
    pub dist: &'a dyn DistFactory,
    /// Hosts.
    pub hosts: usize,
    /// Load.
    pub load: LoadSpec,
    /// Metric minimised (and reported).
    pub metric: Metric,
    /// Digits wanted.
    pub digits: u32,
}

/// A certified optimum.
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
    /// Idle hosts.
    pub idle_hosts: usize,
    /// The idle count is not certified: the two precisions, each searching, use
    /// `idle_counts` (working, certifying) idle hosts.
    pub idle_undetermined: Option<(usize, usize)>,
    /// Stable.
    pub stable: bool,
    /// Fewest certified digits.
    pub digits: u32,
}

/// The cutoffs' digits on which both precisions agree, at most as many as the optimum
/// determines: a cutoff known to relative precision r (the larger of the two runs'
/// [`crate::optimize::Optimum::resolution`]) keeps at most ⌊−log10 r⌋ digits, so a cutoff
/// that barely moves J is never certified by the two runs merely sharing a start.
fn certify_cutoffs(a: &Optimum, b: &Optimum, wanted: u32) -> Vec<Certified> {
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
    let c = Certify::digits(req.digits);
    let both =
        optimal_cutoffs_certified(req.dist, &req.load, req.hosts, req.policy, req.metric, &c)?;
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
    both.guard_range(
        "optimize",
        [&rep.lambda, &rep.load, &rep.value, &rep.queueing]
            .into_iter()
            .chain(rep.max_queue.as_ref()),
        rep.host_loads.iter(),
    )?;
    let all = [
        &rep.lambda,
        &rep.load,
        &rep.value,
        &rep.queueing,
        &rep.wasted,
    ]
    .into_iter()
    .chain(rep.cutoffs.iter())
    .chain(rep.host_loads.iter())
    .chain(rep.max_queue.iter());
    let digits = min_digits(all, w);
    Ok(OptimizeReport { digits, ..rep })
}

/// The record printed by `optimize`.
pub fn optimize_record(req: &OptimizeRequest, r: &OptimizeReport) -> Record {
    let mut rec = Record::default();
    rec.policy_keys(PolicyKeys {
        policy: req.policy.name(),
        dist: req.dist.describe(),
        hosts: req.hosts,
        lambda: &r.lambda,
        load: &r.load,
        metric: req.metric.name(),
        cutoffs: &r.cutoffs,
        host_loads: &r.host_loads,
        value: &r.value,
        queueing: &r.queueing,
        wasted: &r.wasted,
        stable: r.stable,
        digits: r.digits,
    });
    match r.idle_undetermined {
        None => rec.int("idle_hosts", r.idle_hosts as u64),
        Some(_) => rec.text("idle_hosts", UNDETERMINED),
    };
    if let Some(m) = &r.max_queue {
        rec.num("max_queue_length", m);
    }
    let mut notes = Vec::new();
    match req.policy {
        OptPolicy::SitaE => notes.push("SITA-E: cutoffs equalise the host loads".to_string()),
        OptPolicy::TagsMinmax => notes.push(
            "TAGS-minmax: cutoffs minimise the largest mean queue length lambda_i*Q_i (jobs waiting at host i); value is the metric at those cutoffs"
                .to_string(),
        ),
        OptPolicy::Sita | OptPolicy::Tags => notes.push("global optimum: grid search by dynamic programming, then Newton (or bracketed roots of each gradient component) on the analytic gradient".to_string()),
    }
    if let (Some(note), true) = (req.policy.routing().approximation(), req.hosts > 1) {
        notes.push(note.to_string());
    }
    let undetermined: Vec<String> = r
        .cutoffs
        .iter()
        .enumerate()
        .filter(|(_, c)| c.digits == 0)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !undetermined.is_empty() {
        notes.push(format!(
            "cutoff(s) {} undetermined at this precision: moving them changes the {} by less than its last certified digit (ask for more --digits to place them)",
            undetermined.join(", "),
            req.metric.name()
        ));
    }
    if let Some((lo, hi)) = r.idle_undetermined {
        notes.push(format!(
            "how many hosts are idle is undetermined ({lo} idle at the working precision, {hi} at the certifying one): one more busy host, its cutoff above the last busy one, lowers the computed {} (by less than the printed digits resolve: ask for more --digits); the idle hosts' cutoffs and loads are not certified",
            req.metric.name()
        ));
    } else if r.idle_hosts > 0 {
        notes.push(format!(
            "{} trailing host(s) idle: fewer hosts do better here",
            r.idle_hosts
        ));
    }
    if let Some(n) = digits_note(r.digits, req.digits) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
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
