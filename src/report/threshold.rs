//! The record of `threshold`: the TAGS stability threshold ρ*(F, h), certified by
//! [`crate::optimize::certified::threshold_certified`].

use super::{digits_note, Record};
use crate::dist::DistFactory;
use crate::optimize::certified::ThresholdReport;

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
