//! `threshold`: the TAGS stability threshold ρ*(F, h), certified.

use super::{digits_note, min_digits, Record};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified, Certify};
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
