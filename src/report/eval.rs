//! `eval`: one policy with given cutoffs, certified.

use super::{digits_note, min_digits, PolicyKeys, Record};
use crate::dist::DistFactory;
use crate::num::certify::{Certified, Certify};
use crate::num::parse_decimal;
use crate::optimize::threshold::check_stable;
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
    both.guard_range(
        "eval",
        [&rep.lambda, &rep.load, &rep.value, &rep.queueing],
        rep.host_loads
            .iter()
            .chain(&rep.host_waiting)
            .chain(&rep.cutoffs),
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
    .chain(rep.host_waiting.iter());
    let digits = min_digits(all, w);
    Ok(EvalReport { digits, ..rep })
}

/// The record printed by `eval` (the keys of the command-line contract, then notes).
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
    if let (Some(note), true) = (req.policy.approximation(), req.hosts > 1) {
        notes.push(note.to_string());
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
