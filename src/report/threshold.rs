//! `threshold`: the TAGS stability threshold ρ*(F, h), certified.

use super::{certify_all, digits_note, min_digits, Record};
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified};
use crate::num::certify_bits;
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
    let (b1, b2) = certify_bits(digits);
    let run = |bits: u32| -> Result<Threshold, PolicyError> {
        let d = dist.build(bits)?;
        tags_threshold(d.as_ref(), hosts)
    };
    let t1 = run(b1)?;
    let t2 = run(b2)?;
    let load = certify_pair(&t1.load, &t2.load, digits);
    let lambda = certify_pair(&t1.lambda, &t2.lambda, digits);
    let cutoffs = if t1.cutoffs.len() == t2.cutoffs.len() {
        certify_all(&t1.cutoffs, &t2.cutoffs, digits)
    } else {
        vec![]
    };
    // The maximiser is only determined to about half the working precision (the function
    // is flat there); the two-precision comparison shows how much.
    let argmax = match (&t1.argmax, &t2.argmax) {
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
