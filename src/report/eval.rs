//! `eval`: one policy with given cutoffs, certified.

use super::{certify_all, digits_note, min_digits, PolicyKeys, Record};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified};
use crate::num::{certify_bits, parse_decimal, show};
use crate::optimize::threshold::{greedy, tags_threshold};
use crate::policy::{evaluate, Evaluation, LoadSpec, Metric, PolicyError, PolicyKind};
use rug::Float;

/// What `eval` computes.
pub struct EvalRequest<'a> {
    /// The policy.
    pub policy: PolicyKind,
    /// The job sizes.
    pub dist: &'a dyn DistFactory,
    /// Number of hosts.
    pub hosts: usize,
    /// The load.
    pub load: LoadSpec,
    /// The h − 1 interior cutoffs as decimal strings (none for Random).
    pub cutoffs: Vec<String>,
    /// The metric.
    pub metric: Metric,
    /// Significant digits wanted.
    pub digits: u32,
}

/// A certified evaluation.
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

fn run_once(
    req: &EvalRequest,
    bits: u32,
) -> Result<(Float, Float, Vec<Float>, Evaluation), PolicyError> {
    let d = req.dist.build(bits)?;
    let (lambda, rho) = req.load.resolve(d.as_ref(), req.hosts)?;
    let cutoffs = req
        .cutoffs
        .iter()
        .map(|c| parse_decimal(c, bits).map_err(|e| PolicyError::BadCutoffs(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if req.policy == PolicyKind::Random && !cutoffs.is_empty() {
        return Err(PolicyError::BadCutoffs(
            "random routing takes no cutoffs".into(),
        ));
    }
    if req.policy == PolicyKind::Tags
        && req.hosts > 1
        && !greedy(d.as_ref(), &lambda, req.hosts)?.stable()
    {
        let t = tags_threshold(d.as_ref(), Some(req.hosts))?;
        return Err(PolicyError::BadLoad(format!(
            "total load ρ = {} is at or above the TAGS stability threshold ρ*(F, {}) = {}: no cutoffs are stable",
            show(&rho),
            req.hosts,
            show(&t.load)
        )));
    }
    let e = evaluate(
        req.policy,
        d.as_ref(),
        &lambda,
        req.hosts,
        &cutoffs,
        req.metric,
    )?;
    Ok((lambda, rho, cutoffs, e))
}

/// Evaluates at two precisions and certifies every number.
pub fn eval_certified(req: &EvalRequest) -> Result<EvalReport, PolicyError> {
    let (b1, b2) = certify_bits(req.digits);
    let (l1, r1, c1, e1) = run_once(req, b1)?;
    let (l2, r2, c2, e2) = run_once(req, b2)?;
    let w = req.digits;
    let rep = EvalReport {
        lambda: certify_pair(&l1, &l2, w),
        load: certify_pair(&r1, &r2, w),
        cutoffs: certify_all(&c1, &c2, w),
        host_loads: certify_all(&e1.host_loads, &e2.host_loads, w),
        host_waiting: certify_all(&e1.host_waiting, &e2.host_waiting, w),
        value: certify_pair(&e1.value, &e2.value, w),
        queueing: certify_pair(&e1.queueing, &e2.queueing, w),
        wasted: certify_pair(&e1.wasted, &e2.wasted, w),
        stable: e2.stable,
        digits: 0,
    };
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
    .chain(rep.host_waiting.iter());
    let digits = min_digits(all, w);
    Ok(EvalReport { digits, ..rep })
}

/// The record printed by `eval` (keys of DESIGN.md, then notes).
pub fn eval_record(req: &EvalRequest, r: &EvalReport) -> Record {
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
    })
    .nums("host_waiting", &r.host_waiting);
    let mut notes = Vec::new();
    if req.policy == PolicyKind::Tags && req.hosts > 1 {
        notes.push(
            "TAGS hosts >= 2 use the Poisson approximation of the papers (exact at host 1)"
                .to_string(),
        );
    }
    if !r.stable {
        notes.push("some host has load >= 1: the mean is infinite".to_string());
    }
    if let Some(n) = digits_note(r.digits, req.digits) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}
