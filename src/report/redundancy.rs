//! The records of `taskassign redundancy exact|simulate|stability` (the keys the
//! commands have always printed, in their order), built from what
//! [`crate::redundancy`] computed.
//!
//! Every record says the model as it ran: the policy and its preemption rule, the copy
//! model, the service law and its ageing class (NBU/NWU, [`crate::dist::aging`]), the
//! servers' rates, the classes and whether the system is nested ([ARV22]'s assumption).
//! Exact numbers are certified decimals; simulated ones are f64 estimates with 95 %
//! half-widths under `<key>_half_width` ([`super::simulate`]).

use super::simulate::{sci, HALF_WIDTH_DIGITS, MEAN_DIGITS};
use super::{proven_digits_note, Record, BOUND_EXTRA_DIGITS, PROVEN_NOTE};
use crate::dist::aging::Aging;
use crate::dist::{DistError, DistFactory, DistSpec};
use crate::num::certify::Certified;
use crate::num::interval::fewest_proven;
use crate::num::Interval;
use crate::redundancy::classes::{ClassSystem, Nestedness};
use crate::redundancy::ctmc::CHAIN_MAX_DIGITS;
use crate::redundancy::exact::{bound_text, ExactReport};
use crate::redundancy::policy::{Copies, Policy};
use crate::redundancy::product_form::EnclosedMeans;
use crate::redundancy::run::{RedundancySimRequest, SimReport};
use crate::redundancy::stability::{
    simulated_stability, DriftVerdict, FcfsRegion, SimulatedStability, Stability, DRIFT_PER_ARRIVAL,
};
use crate::sim::observe::names;
use crate::sim::stats::Estimate;
use crate::sim::warmup::Knobs;
use serde_json::{Map, Value};

/// The ageing class of a service law ([`crate::dist::aging::classify`]) and how it was
/// found, or why it could not be.
pub type AgingClass = Result<(Aging, &'static str), DistError>;

fn class_text(class: &AgingClass) -> String {
    match class {
        Ok((a, how)) => format!("{} ({how})", a.label()),
        Err(e) => format!("unknown ({e})"),
    }
}

/// The reading every record repeats.
pub const READING: &str = "a free server picks among the jobs whose set contains it (those in service elsewhere included) by class priority Pi1, then Pi2; cancel-on-complete";

fn nested_text(sys: &ClassSystem) -> (bool, String) {
    match sys.nestedness() {
        Nestedness::Nested => (true, "nested: any two sets are disjoint or nested".into()),
        Nestedness::NotNested { a, b } => (
            false,
            format!(
                "not nested: {} and {} overlap without one containing the other ([ARV22]'s theorems assume nested systems)",
                sys.describe(&[a]),
                sys.describe(&[b])
            ),
        ),
    }
}

fn head(rec: &mut Record, sys: &ClassSystem, policy: Policy, copies: Copies, service: &str) {
    rec.text("policy", policy.name())
        .text("preemption", policy.preemption())
        .text("copies", copies.name())
        .text("service", service);
    rec.texts("servers", sys.rate_texts());
}

fn class_object(sys: &ClassSystem, c: usize) -> Map<String, Value> {
    let mut m = Map::new();
    let cl = &sys.classes()[c];
    m.insert("set".into(), Value::String(cl.set.to_string()));
    m.insert("rate".into(), Value::String(cl.rate_text().to_string()));
    m
}

fn nested_fields(rec: &mut Record, sys: &ClassSystem) {
    let (nested, note) = nested_text(sys);
    rec.flag("nested", nested).text("nested_note", note);
}

/// The record of `redundancy exact` for `wanted` digits asked.
pub fn exact_record(sys: &ClassSystem, r: &ExactReport, wanted: u32) -> Record {
    let mut rec = Record::default();
    head(
        &mut rec,
        sys,
        r.policy,
        Copies::Iid,
        "exp (mean 1 per unit of server rate)",
    );
    rec.text("service_class", "exponential (NBU and NWU)");
    // The enclosures' ends show a few digits beyond those asked (their width).
    let n = wanted.min(CHAIN_MAX_DIGITS) + BOUND_EXTRA_DIGITS;
    let ends = |v: &Interval, n: u32| (Value::String(v.lo_text(n)), Value::String(v.hi_text(n)));
    let classes: Vec<Value> = (0..sys.classes().len())
        .map(|c| {
            let mut m = class_object(sys, c);
            m.insert(
                "mean_number".into(),
                Value::String(r.number[c].text.clone()),
            );
            if let Some(e) = &r.enclosures {
                let (lo, hi) = ends(&e.number[c], n);
                m.insert("mean_number_lo".into(), lo);
                m.insert("mean_number_hi".into(), hi);
            }
            m.insert(
                "mean_response".into(),
                Value::String(r.response[c].text.clone()),
            );
            if let Some(e) = &r.enclosures {
                let (lo, hi) = ends(&e.response[c], n);
                m.insert("mean_response_lo".into(), lo);
                m.insert("mean_response_hi".into(), hi);
            }
            Value::Object(m)
        })
        .collect();
    rec.raw("classes", Value::Array(classes))
        .num("mean_number", &r.total_number)
        .num("mean_response", &r.total_response);
    if let Some(e) = &r.enclosures {
        rec.bounds("mean_number", &e.total_number, n)
            .bounds("mean_response", &e.total_response, n);
    }
    rec.flag("stable", true);
    nested_fields(&mut rec, sys);
    rec.text("method", r.method.clone())
        .text("truncation", r.truncation.clone());
    match r.truncation_bound {
        Some(b) => rec.num(
            "truncation_bound",
            &Certified {
                text: bound_text(b),
                digits: 2,
            },
        ),
        None => rec.null("truncation_bound"),
    };
    rec.int("digits", u64::from(r.digits))
        .text("reading", READING);
    if r.digits < wanted {
        rec.text(
            "note",
            format!(
                "only {} of the {wanted} requested significant digits are certified ({}){}",
                r.digits,
                r.solved_by.certified_by(),
                r.stopped
                    .as_ref()
                    .map_or(String::new(), |why| format!(": {why}"))
            ),
        );
    }
    rec
}

/// The record of `redundancy exact --rigorous` (the FCFS product form enclosed by
/// [`crate::redundancy::exact_rigorous`]): the keys of [`exact_record`], each number printed
/// with the digits its enclosure proves and its `_lo`/`_hi` ends (rounded outward) beside
/// it, and `proven_digits` (the least over the printed numbers).
pub fn exact_rigorous_record(
    sys: &ClassSystem,
    policy: Policy,
    m: &EnclosedMeans,
    wanted: u32,
) -> Record {
    let mut rec = Record::default();
    head(
        &mut rec,
        sys,
        policy,
        Copies::Iid,
        "exp (mean 1 per unit of server rate)",
    );
    rec.text("service_class", "exponential (NBU and NWU)");
    let n = wanted + BOUND_EXTRA_DIGITS;
    let put = |o: &mut Map<String, Value>, key: &str, v: &Interval| {
        o.insert(key.into(), Value::String(v.proven(wanted).text));
        o.insert(format!("{key}_lo"), Value::String(v.lo_text(n)));
        o.insert(format!("{key}_hi"), Value::String(v.hi_text(n)));
    };
    let classes: Vec<Value> = (0..sys.classes().len())
        .map(|c| {
            let mut o = class_object(sys, c);
            put(&mut o, "mean_number", &m.number[c]);
            put(&mut o, "mean_response", &m.response[c]);
            Value::Object(o)
        })
        .collect();
    let proven = fewest_proven(
        m.number
            .iter()
            .chain(&m.response)
            .chain([&m.total_number, &m.total_response]),
        wanted,
    );
    rec.raw("classes", Value::Array(classes))
        .num("mean_number", &m.total_number.proven(wanted))
        .bounds("mean_number", &m.total_number, n)
        .num("mean_response", &m.total_response.proven(wanted))
        .bounds("mean_response", &m.total_response, n)
        .flag("stable", true);
    nested_fields(&mut rec, sys);
    rec.text(
        "method",
        "product form (Gardner et al. 2016; Bonald & Comte 2017), its normalising sum summed in closed form over the phases of the busy union, on intervals with outward rounding (MPFR)",
    )
    .text(
        "truncation",
        "none: each phase's stays are a geometric series, summed exactly",
    )
    .null("truncation_bound")
    .int("digits", u64::from(proven))
    .text("reading", READING)
    .int("proven_digits", u64::from(proven));
    let mut notes = vec![PROVEN_NOTE.to_string()];
    if let Some(n) = proven_digits_note(proven, wanted) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}

fn est_pair(m: &mut Map<String, Value>, key: &str, e: &Estimate) {
    m.insert(key.into(), Value::String(sci(e.mean, MEAN_DIGITS)));
    m.insert(
        format!("{key}_half_width"),
        Value::String(sci(e.half_width, HALF_WIDTH_DIGITS)),
    );
}

/// Whether a simulated system is stable, and why, in words ([`simulated_stability`]).
pub fn stability_basis(basis: SimulatedStability, drift: &Estimate) -> (Option<bool>, String) {
    let why = match basis {
        SimulatedStability::OutsideRegion(union) => format!(
            "unstable under every policy: the classes inside {union} exceed its capacity (exact, exponential i.i.d. copies)"
        ),
        SimulatedStability::InsideFcfsRegion => {
            "inside the exact FCFS region (exponential i.i.d. copies)".into()
        }
        SimulatedStability::Drift(v) => {
            let words = format!(
                "drift of the number in system {} ± {} per arrival over the measurement windows (threshold {DRIFT_PER_ARRIVAL})",
                sci(drift.mean, 3),
                sci(drift.half_width, 2)
            );
            match v {
                DriftVerdict::Stable => format!("no drift: {words}"),
                DriftVerdict::Unstable => format!("drifting: {words}"),
                DriftVerdict::Inconclusive => format!("inconclusive: {words}"),
            }
        }
    };
    (basis.stable(), why)
}

/// The record of `redundancy simulate`: the request, what it gave, the exact FCFS region
/// of the system and whether the exact methods apply to its law and copies (the region
/// then decides stability where it can), and the law's ageing class.
pub fn simulate_record(
    req: &RedundancySimRequest,
    r: &SimReport,
    region: Option<&FcfsRegion>,
    exact_methods: bool,
    class: &AgingClass,
) -> Record {
    let sys = req.sys;
    let mut rec = Record::default();
    head(&mut rec, sys, req.policy, req.copies, &req.dist.describe());
    rec.text("service_class", class_text(class));
    let est = &r.run.estimates;
    let resp = est.vector(names::RESPONSE);
    let num = est.vector(names::NUMBER);
    let classes: Vec<Value> = (0..sys.classes().len())
        .map(|c| {
            let mut m = class_object(sys, c);
            if let Some(e) = num.get(c) {
                est_pair(&mut m, "mean_number", e);
            }
            if let Some(e) = resp.get(c) {
                est_pair(&mut m, "mean_response", e);
            }
            Value::Object(m)
        })
        .collect();
    rec.raw("classes", Value::Array(classes));
    for (key, name) in [
        ("mean_number", names::NUMBER),
        ("mean_response", names::RESPONSE),
    ] {
        if let Some(e) = est.scalar(name) {
            rec.text(key, sci(e.mean, MEAN_DIGITS)).text(
                &format!("{key}_half_width"),
                sci(e.half_width, HALF_WIDTH_DIGITS),
            );
        }
    }
    let basis = simulated_stability(region, req.policy, exact_methods, &r.drift);
    let (mut stable, mut why) = stability_basis(basis, &r.drift);
    if let Some(s) = &r.starved {
        // A run stopped with measured jobs in system: unstable whatever the drift said
        // (an exact basis that already says unstable keeps its words).
        if stable != Some(false) {
            stable = Some(false);
            why = s.clone();
        }
    }
    match stable {
        Some(b) => rec.flag("stable", b),
        None => rec.raw("stable", Value::Null),
    };
    rec.text("stable_basis", why);
    nested_fields(&mut rec, sys);
    let (jobs, warmup) = match r.length {
        crate::sim::Length::Jobs { measured, warmup } => (measured, warmup),
        crate::sim::Length::Time { .. } => (0, 0),
    };
    rec.text("method", r.method);
    super::simulate::run_length_fields(&mut rec, jobs, warmup, &r.tail, &req.run)
        .text("events_per_second", sci(r.events_per_second, 3))
        .text("jobs_per_second", sci(r.jobs_per_second, 3))
        .text("seconds", sci(r.seconds, 3))
        .flag("heavy_tail_warning", r.run.heavy_tail.warned());
    let mut notes = r.run.heavy_tail.describe();
    if let Some(s) = &r.starved {
        notes.push(format!(
            "{s}: the means are of the measured jobs that left, not of a stationary system"
        ));
    }
    notes.extend(super::diagnostics_fields(
        &mut rec,
        &r.diagnostics,
        &Knobs::CLI_JOBS,
        jobs as f64,
    ));
    notes.push(format!(
        "half-widths: 95% Student-t over {} independent replications (warm-up of {warmup} jobs discarded in each, or more where warmup_rule extended it)",
        req.run.replications
    ));
    notes.push("common random numbers: gaps, classes and requirements are drawn at arrival from their own streams, so every policy meets the same jobs at one seed".into());
    rec.texts("notes", &notes).text("reading", READING);
    rec
}

/// What `redundancy stability` found.
#[derive(Debug, Clone)]
pub struct StabilityFindings<'a> {
    /// The system.
    pub sys: &'a ClassSystem,
    /// The policy.
    pub policy: Policy,
    /// The copy model.
    pub copies: Copies,
    /// The law.
    pub dist: &'a DistSpec,
    /// What [`crate::redundancy::stability::stability`] found.
    pub found: &'a Stability,
    /// The law's ageing class.
    pub class: &'a AgingClass,
}

/// The record of `redundancy stability`.
pub fn stability_record(f: &StabilityFindings) -> Record {
    let sys = f.sys;
    let mut rec = Record::default();
    head(&mut rec, sys, f.policy, f.copies, &f.dist.describe());
    rec.text("service_class", class_text(f.class));
    let classes: Vec<Value> = (0..sys.classes().len())
        .map(|c| Value::Object(class_object(sys, c)))
        .collect();
    rec.raw("classes", Value::Array(classes));
    nested_fields(&mut rec, sys);
    let sets = |idx: &[usize]| -> Vec<String> {
        idx.iter()
            .map(|&c| sys.classes()[c].set.to_string())
            .collect()
    };
    let region = f.found.region.as_ref().map(|r| (&r.scale_limit, &r.region));
    match (f.found.exact_applies, region, f.found.estimate.as_ref()) {
        (true, Some((limit, region)), _) => {
            rec.text(
                "method",
                "exact: min over class sets A of mu(union of A)/lambda(A) (Gardner et al. 2016)",
            )
            .num("scale_limit", limit)
            .texts("binding_classes", &sets(&region.binding_classes))
            .text("binding_servers", region.binding_union.to_string())
            .flag("stable", region.stable());
        }
        (_, region, Some(e)) => {
            let lo = e
                .stable_up_to
                .map(|x| sci(x, 4))
                .unwrap_or_else(|| "n/a".into());
            let hi = e
                .unstable_from
                .map(|x| sci(x, 4))
                .unwrap_or_else(|| "n/a".into());
            let mid = match (e.stable_up_to, e.unstable_from) {
                (Some(a), Some(b)) => sci(0.5 * (a + b), 4),
                _ => "n/a".into(),
            };
            rec.text("method", format!(
                "simulated: drift of the number in system per arrival at each scale, stable below {DRIFT_PER_ARRIVAL} (95% interval), unstable above; bisection"
            ))
            .text("scale_limit", mid)
            .text("scale_limit_lower", lo)
            .text("scale_limit_upper", hi)
            .texts("binding_classes", &sets(&e.binding_classes))
            .flag("inconclusive", e.stopped_inconclusive);
            match e.stable_up_to {
                Some(s) if s >= 1.0 => rec.flag("stable", true),
                _ => match e.unstable_from {
                    Some(s) if s <= 1.0 => rec.flag("stable", false),
                    _ => rec.raw("stable", Value::Null),
                },
            };
            if let Some((limit, r)) = region {
                rec.num("fcfs_exponential_scale_limit", limit).text(
                    "fcfs_exponential_binding_servers",
                    r.binding_union.to_string(),
                );
            }
            let pts: Vec<Value> = e
                .points
                .iter()
                .map(|p| {
                    let mut m = Map::new();
                    m.insert("scale".into(), Value::String(sci(p.scale, 6)));
                    m.insert("drift".into(), Value::String(sci(p.drift.mean, 3)));
                    m.insert(
                        "drift_half_width".into(),
                        Value::String(sci(p.drift.half_width, 2)),
                    );
                    m.insert("horizon".into(), Value::from(p.horizon));
                    m.insert("verdict".into(), Value::String(p.verdict.name().into()));
                    Value::Object(m)
                })
                .collect();
            rec.raw("points", Value::Array(pts));
        }
        _ => {
            rec.text("method", "none");
        }
    }
    rec.text("reading", READING);
    rec
}
