//! The record of `optimize`: the optimal cutoffs, certified by
//! [`crate::optimize::certified::optimize_certified`].

use super::{digits_note, Record};
use crate::num::certify::UNDETERMINED;
use crate::optimize::certified::{OptimizeReport, OptimizeRequest};
use crate::optimize::OptPolicy;

/// The record printed by `optimize`.
pub fn optimize_record(req: &OptimizeRequest, r: &OptimizeReport) -> Record {
    let mut rec = Record::default();
    rec.policy_keys(
        req.policy.name(),
        req.dist.describe(),
        req.hosts,
        req.metric.name(),
        &r.numbers(),
    );
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
