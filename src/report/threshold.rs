//! The record of `threshold`: the TAGS stability threshold ρ*(F, h), certified by
//! [`crate::optimize::certified::threshold_certified`], or proven by
//! [`crate::optimize::rigorous::threshold_rigorous`].

use super::{digits_note, proven_digits_note, Record, BOUND_EXTRA_DIGITS, PROVEN_NOTE};
use crate::dist::DistFactory;
use crate::num::interval::Interval;
use crate::optimize::certified::ThresholdReport;
use crate::optimize::rigorous::RigorousThreshold;

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
