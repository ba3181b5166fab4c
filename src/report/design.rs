//! `design`: the records of the fewest hosts meeting a QoS target, per policy.

use super::Record;
use crate::optimize::design::{Design, Target};

/// The record of one policy's design (`dist` and `load` as the user gave them).
pub fn design_record(dist: &str, load: &str, target: &Target, d: &Design) -> Record {
    let mut r = Record::default();
    r.text("policy", d.policy)
        .text("dist", dist)
        .text("load", load);
    match target {
        Target::Waiting(w) => r.text("target_waiting", w.clone()),
        Target::Slowdown(s) => r.text("target_slowdown", s.clone()),
    };
    match d.hosts {
        Some(h) => r.int("hosts", h as u64),
        None => r.text("hosts", "none"),
    };
    r.nums("cutoffs", &d.cutoffs)
        .nums("host_loads", &d.host_loads);
    if let Some(v) = &d.value {
        r.num("value", v);
    }
    let tried: Vec<String> = d
        .attempts
        .iter()
        .map(|a| match &a.value {
            Ok(v) => format!("h={}: {}", a.hosts, v.text),
            Err(e) => format!("h={}: infeasible ({e})", a.hosts),
        })
        .collect();
    r.texts("tried", &tried);
    r
}

/// Every policy's design: one JSON object `{"designs": [...]}` with a newline, or the
/// text records separated by blank lines.
pub fn render_designs(
    dist: &str,
    load: &str,
    target: &Target,
    designs: &[Design],
    json: bool,
) -> String {
    let records = designs.iter().map(|d| design_record(dist, load, target, d));
    if json {
        let parts: Vec<String> = records.map(|r| r.to_json()).collect();
        return format!("{{\"designs\":[{}]}}\n", parts.join(","));
    }
    let mut out = String::new();
    for (i, r) in records.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&r.to_text());
    }
    out
}
