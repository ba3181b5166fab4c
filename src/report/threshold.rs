//! `threshold`: the TAGS stability threshold ρ*(F, h), certified.

use super::{digits_note, min_digits, proven_digits_note, Record, BOUND_EXTRA_DIGITS, PROVEN_NOTE};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified, Certify};
use crate::num::interval::Interval;
use crate::optimize::rigorous::RigorousThreshold;
use crate::optimize::threshold::{tags_threshold, Threshold};
use crate::policy::PolicyError;

/// A certified threshold.
#[derive(Debug, Clone)]
pub struct ThresholdReport {
    /// ρ*.
    pub load: Certified,
    /// λ*.
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

/// The record printed by `threshold`.
pub fn threshold_record(
    dist: &dyn DistFactory,
    hosts: Option<usize>,
    wanted: u32,
    r: &ThresholdReport,
) -> Record {
    let mut rec = Record::default();
    rec.text("dist", dist.describe())
        .hosts("hosts", hosts)
        .num("threshold_load", &r.load)
        .nums("cutoffs", &r.cutoffs)
        .int("digits", u64::from(r.digits))
        .num("threshold_lambda", &r.lambda);
    if let Some(a) = &r.argmax {
        rec.num("argmax_x_tail", a);
    }
    let mut notes = Vec::new();
    if hosts.is_none() {
        notes.push("h -> inf: E[X] / sup_x x P(X > x)".to_string());
    }
    if let Some(n) = digits_note(r.digits, wanted) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}

/// The record printed by `threshold --rigorous`: the keys of `threshold`, each number with
/// the digits its enclosure proves and `K_lo`/`K_hi` beside it, and `proven_digits`.
pub fn threshold_rigorous_record(
    dist: &dyn DistFactory,
    hosts: Option<usize>,
    wanted: u32,
    r: &RigorousThreshold,
) -> Record {
    let p = |x: &Interval| x.proven(wanted);
    let cutoffs: Vec<_> = r.cutoffs.iter().map(p).collect();
    let n = wanted + BOUND_EXTRA_DIGITS;
    let mut rec = Record::default();
    rec.text("dist", dist.describe())
        .hosts("hosts", hosts)
        .num("threshold_load", &p(&r.load))
        .bounds("threshold_load", &r.load, n)
        .nums("cutoffs", &cutoffs)
        .bounds_all("cutoffs", &r.cutoffs, n)
        .int("digits", u64::from(r.proven_digits))
        .num("threshold_lambda", &p(&r.lambda))
        .bounds("threshold_lambda", &r.lambda, n)
        .int("proven_digits", u64::from(r.proven_digits));
    let mut notes = vec![PROVEN_NOTE.to_string()];
    if hosts.is_none() {
        notes.push("h -> inf: E[X] / sup_x x P(X > x)".to_string());
    } else if !r.cutoffs.is_empty() {
        notes.push("rho* isolated by arrival rates at which the greedy construction on enclosures proves stability and instability".to_string());
    }
    if !r.cutoffs_enclosed {
        notes.push("the greedy cutoffs at rho* are not enclosed at these digits: rho* is within its enclosure's width of rho*(F, inf), where the greedy construction degenerates (more --digits may enclose them)".to_string());
    }
    if let Some(n) = proven_digits_note(r.proven_digits, wanted) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}
