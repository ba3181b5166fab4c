//! The record of `eval`: one policy with given cutoffs, certified by
//! [`crate::optimize::certified::eval_certified`], or proven by
//! [`crate::optimize::rigorous::eval_rigorous`].

use super::{
    digits_note_naming, limited_by, proven_digits_note, FieldDigits, Record, BOUND_EXTRA_DIGITS,
    PROVEN_NOTE,
};
use crate::num::interval::Interval;
use crate::optimize::certified::{DispatchNumbers, EvalReport, EvalRequest};
use crate::optimize::rigorous::RigorousEval;

/// The keys both records start with: the request's policy, law, hosts and metric, then
/// the numbers.
fn request_keys<'a>(
    rec: &'a mut Record,
    req: &EvalRequest,
    numbers: &DispatchNumbers,
) -> &'a mut Record {
    rec.policy_keys(
        req.policy.name(),
        req.dist.describe(),
        req.hosts,
        req.metric.name(),
        numbers,
    )
}

/// The record printed by `eval` (the keys of the command-line contract, then notes).
pub fn eval_record(req: &EvalRequest, r: &EvalReport) -> Record {
    let mut rec = Record::default();
    request_keys(&mut rec, req, &r.numbers()).nums("host_waiting", &r.host_waiting);
    let mut notes = Vec::new();
    if let (Some(note), true) = (req.policy.approximation(), req.hosts > 1) {
        notes.push(note.to_string());
    }
    if !r.stable {
        notes.push("some host has load >= 1: the mean is infinite".to_string());
    }
    let mut fields: Vec<FieldDigits> = r.numbers().field_digits();
    fields.push((
        "host_waiting".into(),
        r.host_waiting.iter().map(|c| c.digits).collect(),
        true,
    ));
    rec.digit_fields(&fields, req.digits);
    if let Some(n) = digits_note_naming(r.digits, req.digits, &limited_by(&fields, req.digits)) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}

/// The record printed by `eval --rigorous`: the keys of `eval`, each number K with the
/// digits its enclosure proves, `K_lo` and `K_hi` (the enclosure's ends, rounded outward)
/// beside it, and `proven_digits`.
pub fn eval_rigorous_record(req: &EvalRequest, r: &RigorousEval) -> Record {
    let w = req.digits;
    let p = |x: &Interval| x.proven(w);
    let ps = |xs: &[Interval]| xs.iter().map(p).collect::<Vec<_>>();
    let (lambda, load, value, queueing, wasted) = (
        p(&r.lambda),
        p(&r.load),
        p(&r.value),
        p(&r.queueing),
        p(&r.wasted),
    );
    let (cutoffs, host_loads, host_waiting) =
        (ps(&r.cutoffs), ps(&r.host_loads), ps(&r.host_waiting));
    let numbers = DispatchNumbers {
        lambda: &lambda,
        load: &load,
        cutoffs: &cutoffs,
        host_loads: &host_loads,
        value: &value,
        queueing: &queueing,
        wasted: &wasted,
        stable: r.stable,
        digits: r.proven_digits,
    };
    let mut rec = Record::default();
    request_keys(&mut rec, req, &numbers).nums("host_waiting", &host_waiting);
    let n = w + BOUND_EXTRA_DIGITS;
    rec.bounds("lambda", &r.lambda, n)
        .bounds("load", &r.load, n)
        .bounds_all("cutoffs", &r.cutoffs, n)
        .bounds_all("host_loads", &r.host_loads, n)
        .bounds("value", &r.value, n)
        .bounds("queueing", &r.queueing, n)
        .bounds("wasted", &r.wasted, n)
        .bounds_all("host_waiting", &r.host_waiting, n)
        .int("proven_digits", u64::from(r.proven_digits));
    let mut notes = vec![PROVEN_NOTE.to_string()];
    if let (Some(note), true) = (req.policy.approximation(), req.hosts > 1) {
        notes.push(format!("{note}: the enclosures are of that approximation"));
    }
    if !r.stable {
        notes.push("some host has load >= 1 (proven): the mean is infinite".to_string());
    }
    if let Some(n) = proven_digits_note(r.proven_digits, w) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}
