//! The record of `eval`: one policy with given cutoffs, certified by
//! [`crate::optimize::certified::eval_certified`].

use super::{digits_note, Record};
use crate::optimize::certified::{EvalReport, EvalRequest};

/// The record printed by `eval` (the keys of the command-line contract, then notes).
pub fn eval_record(req: &EvalRequest, r: &EvalReport) -> Record {
    let mut rec = Record::default();
    rec.policy_keys(
        req.policy.name(),
        req.dist.describe(),
        req.hosts,
        req.metric.name(),
        &r.numbers(),
    )
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
