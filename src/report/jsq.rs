//! The records of `taskassign jsq fixed-point | fluid | exact | simulate` (the keys the
//! commands have always printed, in their order, then more keys and the notes), built
//! from what [`crate::lb`] computed.
//!
//! How each kind of number is printed:
//! * **fixed points** are certified in MPFR ([`crate::lb::fixed_point::certified`]): only
//!   the digits on which two precisions agree;
//! * **fluid trajectories** are integrated twice, at the tolerance and at a tolerance
//!   [`crate::lb::fluid::FLUID_TOLERANCE_RATIO`] times smaller; a value is printed with the digits on which
//!   the two integrations agree, and `error_estimate` is their largest difference;
//! * **exact finite-N values** are enclosures from [`crate::lb::exact`] (a proven bound on
//!   the truncation plus a bound on the solve's error), printed with the digits on which
//!   their ends agree, or closed forms in MPFR;
//! * **simulated values** are means with 95 % half-widths ([`crate::report::simulate`]).
//!
//! The models' conventions are those of [`crate::lb::model`]: λ per server, `--buffer`
//! the b of a queue or the B of a pool, d a number or a formula in N rounded up and capped
//! at N (the notes say when it was rounded or capped).

use super::simulate::{estimate, estimate_vector, exact as exact_f64, sci, HALF_WIDTH_DIGITS};
use super::{digits_note, proven_digits_note, Record, BOUND_EXTRA_DIGITS, PROVEN_NOTE};
use crate::lb::enclosed::EnclosedFixedPoint;
use crate::lb::exact::{
    ExactMethod, ExactResult, Region, Stopped, CHAIN_MAX_DIGITS, F64_DIGITS, OCCUPANCY_FLOOR,
    SIMPLEX_UNIT,
};
use crate::lb::fixed_point::{CertifiedFixedPoint, Method};
use crate::lb::fluid::{fluid_difference, Limit, Trajectory};
use crate::lb::model::{DSpec, DUsed, JsqSystem, Model, ModelKind};
use crate::lb::sim::SimRun;
use crate::num::certify::{certify_pair, Certified};
use crate::num::interval::{fewest_proven, Interval};
use crate::sim::rng::GENERATOR;
use crate::sim::stats::Estimate;
use crate::sim::warmup::Knobs;
use crate::sim::{Length, RunOptions, Start};
use rug::ops::Pow;
use rug::Float;

/// Precision at which f64 values are compared digit by digit (exact for any f64).
const F64_BITS: u32 = 64;

fn buffer_text(model: &Model) -> String {
    model
        .buffer()
        .map_or_else(|| "inf".to_string(), |b| b.to_string())
}

fn limit_text(limit: Limit) -> String {
    match limit {
        Limit::Jsq => "JSQ fluid limit (d(N) -> inf)".into(),
        Limit::PowerOfD(d) => format!("power-of-d mean field, d = {d}"),
    }
}

/// What the notes say about how a d specification was read as an N → ∞ limit.
fn limit_notes(spec: &DSpec, limit: Limit) -> Vec<String> {
    match (spec, limit) {
        (DSpec::Formula(f, t), Limit::Jsq) if !f.is_constant() => vec![format!(
            "d = {t} grows without bound: its N -> infinity limit is JSQ's fluid limit, whatever the growth rate (arXiv 1612.00722 Thm 3.1, 1612.00723)"
        )],
        (DSpec::Formula(f, t), Limit::PowerOfD(d)) if f.is_constant() && f.eval(1.0) != f64::from(d) => {
            vec![format!("d = {t} = {} is rounded up to {d}", f.eval(1.0))]
        }
        _ => vec![],
    }
}

/// The note of a d resolved at N (rounded up, capped at N).
pub fn d_notes(spec: &DSpec, n: u64, used: DUsed) -> Vec<String> {
    match spec {
        DSpec::Formula(f, t) => {
            let v = f.eval(n as f64);
            if used.capped {
                vec![format!(
                    "d = {t} = {} at N = {n} exceeds N: capped at d = N = {n} (JSQ)",
                    sci(v, 6)
                )]
            } else if v != used.d as f64 {
                vec![format!(
                    "d = {t} = {} at N = {n}, rounded up to d = {}",
                    sci(v, 6),
                    used.d
                )]
            } else {
                vec![]
            }
        }
        DSpec::Infinite => vec![format!("d = inf at N = {n} is d = N (JSQ)")],
        DSpec::Fixed(d) if used.capped => vec![format!(
            "d = {d} exceeds N = {n}: capped at d = N = {n} (JSQ)"
        )],
        DSpec::Fixed(_) => vec![],
    }
}

/// The record of `jsq fixed-point` (keys `model, lambda, d, buffer, occupancy[],
/// mean_tasks, mean_sojourn, blocking, digits`, then `limit`, `method`, `notes`) for the
/// fixed point `fp` of `limit`, read from `spec`.
pub fn fixed_point_record(
    model: &Model,
    spec: &DSpec,
    limit: Limit,
    fp: &CertifiedFixedPoint,
) -> Record {
    let digits = fp.digits;
    let shown = fp.shown_digits();
    let mut rec = Record::default();
    rec.text("model", model.kind().name())
        .text("lambda", model.lambda_text())
        .text("d", spec.text())
        .text("buffer", buffer_text(model))
        .nums("occupancy", &fp.occupancy)
        .num("mean_tasks", &fp.mean_tasks)
        .num("mean_sojourn", &fp.mean_sojourn)
        .num("blocking", &fp.blocking)
        .int("digits", u64::from(shown))
        .text("limit", limit_text(limit))
        .text(
            "method",
            match fp.method {
                Method::ClosedForm => "closed form".to_string(),
                Method::Root { iterations } => {
                    format!("bracketed root of the top level ({iterations} iterations)")
                }
            },
        );
    let mut notes = limit_notes(spec, limit);
    notes.push(format!(
        "occupancy lists q_1, q_2, ... while q_i >= 1e-{digits}"
    ));
    if model.buffer().is_some() {
        notes.push(match limit {
            Limit::PowerOfD(d) => format!(
                "blocking is the probability that all d = {d} sampled servers are full, q_b^d (not the fraction q_b of full servers)"
            ),
            Limit::Jsq => "blocking is the share of arrivals that find every server full".into(),
        });
    }
    notes.push("mean_sojourn by Little's law: mean_tasks / (lambda (1 - blocking))".into());
    if let Some(n) = digits_note(shown, digits) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}

/// The record of `jsq fixed-point --rigorous`: the keys of [`fixed_point_record`] printed
/// from the enclosures of [`crate::lb::fixed_point_enclosed`] (each number with the digits
/// its enclosure proves), each with `K_lo` and `K_hi` (the enclosure's ends rounded
/// outward) beside it, and `proven_digits` (the least over the printed numbers). The
/// occupancy lists q_i while the upper end of its enclosure is at least 10^−digits.
pub fn fixed_point_rigorous_record(
    model: &Model,
    spec: &DSpec,
    limit: Limit,
    fp: &EnclosedFixedPoint,
    digits: u32,
) -> Record {
    let bits = fp.mean_tasks.prec();
    let floor = Float::with_val(bits, 10).pow(-i32::try_from(digits).unwrap_or(i32::MAX));
    let listed: Vec<Interval> = fp
        .occupancy
        .iter()
        .enumerate()
        .take_while(|(i, q)| *i == 0 || *q.hi() >= floor)
        .map(|(_, q)| q.clone())
        .collect();
    let blocking = fp
        .blocking
        .clone()
        .unwrap_or_else(|| Interval::zero_at(bits));
    let occupancy: Vec<Certified> = listed.iter().map(|q| q.proven(digits)).collect();
    let (mean_tasks, mean_sojourn, blocked) = (
        fp.mean_tasks.proven(digits),
        fp.mean_sojourn.proven(digits),
        blocking.proven(digits),
    );
    let proven = fewest_proven(
        listed
            .iter()
            .chain([&fp.mean_tasks, &fp.mean_sojourn, &blocking]),
        digits,
    );
    let n = digits + BOUND_EXTRA_DIGITS;
    let mut rec = Record::default();
    rec.text("model", model.kind().name())
        .text("lambda", model.lambda_text())
        .text("d", spec.text())
        .text("buffer", buffer_text(model))
        .nums("occupancy", &occupancy)
        .num("mean_tasks", &mean_tasks)
        .num("mean_sojourn", &mean_sojourn)
        .num("blocking", &blocked)
        .int("digits", u64::from(proven))
        .bounds_all("occupancy", &listed, n)
        .bounds("mean_tasks", &fp.mean_tasks, n)
        .bounds("mean_sojourn", &fp.mean_sojourn, n)
        .bounds("blocking", &blocking, n)
        .int("proven_digits", u64::from(proven))
        .text("limit", limit_text(limit))
        .text(
            "method",
            match (limit, model.buffer()) {
                (Limit::PowerOfD(_), None) if model.kind() == ModelKind::Pools => {
                    "from a finite capacity's isolated root (the levels are nondecreasing in the capacity, the fixed point without a buffer is their limit with lambda tasks per pool, so each level lies within lambda times the blocking above the capacity's)"
                }
                (Limit::PowerOfD(_), None) => {
                    "closed form on intervals (the level recursion s_i = lambda s_(i-1)^d rounded outward, the tail beyond the last level bounded geometrically)"
                }
                (Limit::PowerOfD(_), Some(_)) => {
                    "root isolated on intervals (a sign change of the top level's equation proven at both ends of a bracket, the levels enclosed by monotonicity)"
                }
                (Limit::Jsq, _) => "closed form on intervals",
            },
        );
    let mut notes = vec![PROVEN_NOTE.to_string()];
    notes.extend(limit_notes(spec, limit));
    notes.push(format!(
        "occupancy lists q_1, q_2, ... while the upper end of q_i's enclosure is >= 1e-{digits}"
    ));
    if model.buffer().is_some() {
        if let Limit::PowerOfD(d) = limit {
            notes.push(format!(
                "blocking is the probability that all d = {d} sampled servers are full, q_b^d (not the fraction q_b of full servers)"
            ));
        }
    }
    notes.push("mean_sojourn by Little's law: mean_tasks / (lambda (1 - blocking))".into());
    if let Some(n) = proven_digits_note(proven, digits) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}

/// A value integrated at two tolerances, with the digits on which they agree.
fn agreeing(coarse: f64, fine: f64, wanted: u32) -> Certified {
    certify_pair(
        &Float::with_val(F64_BITS, coarse),
        &Float::with_val(F64_BITS, fine),
        wanted.min(F64_DIGITS),
    )
}

/// The record of `jsq fluid` (keys `times[], occupancy[][], tolerance`, then
/// `error_estimate`, `limit`, `levels`, `switches`, `digits`, `notes`) for the
/// trajectories of `limit` (read from `spec`) at `times`, integrated at two tolerances
/// ([`crate::lb::fluid::fluid_pair`]), each value with at most `digits` significant
/// digits (f64's [`F64_DIGITS`] when `None`), those on which the two integrations agree;
/// `digits` is the fewest shown, with a note when digits were asked and fewer agree.
pub fn fluid_record(
    model: &Model,
    spec: &DSpec,
    limit: Limit,
    times: &[f64],
    (a, b): (&Trajectory, &Trajectory),
    digits: Option<u32>,
) -> Record {
    let wanted = digits.unwrap_or(F64_DIGITS).min(F64_DIGITS);
    let mut fewest = wanted;
    let rows: Vec<Vec<String>> = a
        .occupancy
        .iter()
        .zip(&b.occupancy)
        .map(|(x, y)| {
            (0..x.len().max(y.len()))
                .map(|i| {
                    let c = agreeing(
                        x.get(i).copied().unwrap_or(0.0),
                        y.get(i).copied().unwrap_or(0.0),
                        wanted,
                    );
                    fewest = fewest.min(c.digits);
                    c.text
                })
                .collect()
        })
        .collect();
    let mut rec = Record::default();
    rec.texts(
        "times",
        &times.iter().map(|t| exact_f64(*t)).collect::<Vec<_>>(),
    )
    .text_rows("occupancy", &rows)
    .text("tolerance", sci(a.tolerance.abs.max(a.tolerance.rel), 3))
    .text("error_estimate", sci(fluid_difference(a, b), 3))
    .text("model", model.kind().name())
    .text("lambda", model.lambda_text())
    .text("d", spec.text())
    .text("buffer", buffer_text(model))
    .text("limit", limit_text(limit))
    .int("levels", a.levels as u64);
    if limit == Limit::Jsq {
        rec.int("switches", b.switches.len().saturating_sub(1) as u64);
    }
    rec.int("digits", u64::from(fewest));
    let mut notes = limit_notes(spec, limit);
    if fewest < wanted && digits.is_some() {
        notes.push(format!(
            "only {fewest} of the {wanted} requested significant digits agree between the two integrations (every value shows those it has)"
        ));
    }
    notes.push(format!(
        "occupancy[k] lists q_1, q_2, ... at times[k] while q_i >= {}",
        sci(a.truncation, 1)
    ));
    notes.push(format!(
        "integrated (Dormand-Prince 5(4)) at tolerance {} and {} (absolute and relative); values show the digits on which both agree, error_estimate is their largest difference",
        sci(a.tolerance.abs, 1),
        sci(b.tolerance.abs, 1)
    ));
    if limit == Limit::Jsq {
        notes.push("JSQ's discontinuous right-hand side is integrated by modes: full levels are held at exactly 1 while the sliding condition holds (no chattering)".into());
    }
    rec.texts("notes", &notes);
    rec
}

/// A truncation of an infinite buffer, in words.
fn truncation_text(kind: ModelKind, n: u64, r: Region) -> String {
    match (r, kind) {
        (Region::Box(t), ModelKind::Queues) => format!(
            "shortest queue <= {}, longest - shortest <= {}",
            t.min_level, t.spread
        ),
        (Region::Box(t), ModelKind::Pools) => format!("total tasks <= {}", t.min_level),
        (Region::Simplex(p), _) => {
            let w: Vec<String> = p.weights[..n as usize]
                .iter()
                .map(|v| v.to_string())
                .collect();
            format!(
                "sum_j w_j t_j <= {} (t_0 the shortest queue, t_j the j-th gap of the sorted queues; w = [{}], the measured decay rates in units of 1/{} nat)",
                p.level,
                w.join(", "),
                SIMPLEX_UNIT
            )
        }
    }
}

/// The method of an exact result, in words.
fn exact_method_text(system: &JsqSystem, r: &ExactResult) -> String {
    let model = system.model();
    match (r.method, model.kind(), model.buffer()) {
        (ExactMethod::ClosedForm, ModelKind::Queues, None) => {
            "closed form: d = 1 splits the Poisson stream, N independent M/M/1 queues (pi_k = (1 - lambda) lambda^k), in MPFR at two precisions".into()
        }
        (ExactMethod::ClosedForm, ModelKind::Queues, Some(_)) => {
            "closed form: d = 1 splits the Poisson stream, N independent M/M/1/b queues (pi_k proportional to lambda^k), summed in MPFR at two precisions".into()
        }
        (ExactMethod::ClosedForm, ModelKind::Pools, None) => {
            "closed form: d = 1 splits the Poisson stream, N independent M/M/inf pools (Poisson(lambda) tasks), summed in MPFR at two precisions".into()
        }
        (ExactMethod::ClosedForm, ModelKind::Pools, Some(_)) => {
            "closed form: d = 1 splits the Poisson stream, N independent M/M/B/B pools (Erlang loss), summed in MPFR at two precisions".into()
        }
        (ExactMethod::Chain, _, _) => format!(
            "sorted-occupancy Markov chain ({} states), two-level solve over the total-task levels (an ILU(0) smoother and an exact level-chain correction, {} refinement cycle{}), double-double residuals",
            r.states,
            r.cycles,
            if r.cycles == 1 { "" } else { "s" }
        ),
    }
}

/// The record of `jsq exact` (keys `mean_tasks, occupancy[], blocking, states,
/// truncation`, then the system, `digits`, `method`, `truncation_bound`, `solve_error`,
/// `residual`, `notes`) for the solve `r` of `system` asked for `digits`.
pub fn exact_record(system: &JsqSystem, spec: &DSpec, digits: u32, r: &ExactResult) -> Record {
    let model = system.model();
    let occ: Vec<String> = r.occupancy.iter().map(|v| v.text.clone()).collect();
    let mut rec = Record::default();
    rec.text("mean_tasks", r.mean_tasks.text.clone())
        .texts("occupancy", &occ)
        .text("blocking", r.blocking.text.clone())
        .int("states", r.states as u64)
        .text(
            "truncation",
            match (r.truncation, model.kind()) {
                (None, _) if r.method == ExactMethod::ClosedForm => {
                    "none (closed form)".to_string()
                }
                (None, _) => "none (finite buffer: every state)".to_string(),
                (Some(t), kind) => truncation_text(kind, system.servers(), t),
            },
        )
        .text("model", model.kind().name())
        .int("servers", system.servers())
        .text("lambda", model.lambda_text())
        .text("d", spec.text())
        .int("d_used", system.d().d)
        .text("sampling", system.sampling().name())
        .text("buffer", buffer_text(model))
        .int("digits", u64::from(r.digits))
        .text("method", exact_method_text(system, r))
        .text("truncation_bound", sci(r.truncation_bound, 3))
        .text("solve_error", sci(r.solve_error, 3))
        .text("residual", sci(r.residual, 3));
    let mut notes = d_notes(spec, system.servers(), system.d());
    if r.truncation.is_some() {
        notes.push(match model.kind() {
            ModelKind::Queues => "the infinite buffer is truncated to a simplex in the shortest queue and the gaps of the sorted queues, weighted by their measured decay rates; exits from the truncation restart from the empty state, and truncation_bound is a proven bound on what that changes in mean_tasks (a quadratic Lyapunov function with negative drift outside the truncation and the regenerative bound, module lb::exact)".to_string(),
            ModelKind::Pools => "the infinite capacity is truncated in the total number of tasks; exits restart from the empty state, and truncation_bound is a proven bound on what that changes in mean_tasks (the total is M/M/inf: a linear and a quadratic Lyapunov function, module lb::exact)".to_string(),
        });
    }
    if r.method == ExactMethod::Chain {
        notes.push("every value is an enclosure [value - error, value + error] of the exact one, printed with the digits on which its ends agree: error = the truncation bound plus the solve's error bound (solve_error, from the residual of the M-matrix system)".into());
        notes.push(format!(
            "digits counts mean_tasks, q_1 and blocking; occupancy lists q_i while one digit is certified and q_i >= {}",
            sci(OCCUPANCY_FLOOR, 1)
        ));
    } else {
        notes.push(format!(
            "occupancy lists q_i while q_i >= {}",
            sci(OCCUPANCY_FLOOR, 1)
        ));
    }
    if model.buffer().is_some() {
        notes.push(
            "blocking: the probability that all d sampled servers are full (PASTA: the fraction of arrivals discarded)"
                .into(),
        );
    }
    match r.method {
        ExactMethod::Chain if r.digits < digits => {
            let mut n = format!(
                "only {} of the {digits} requested significant digits are certified (the enclosure's ends agree on {})",
                r.digits, r.digits
            );
            if digits > CHAIN_MAX_DIGITS {
                n.push_str(&format!("; a chain is solved in f64 with double-double residuals: at most {CHAIN_MAX_DIGITS} digits"));
            }
            match r.stopped {
                Some(Stopped::StateLimit { next, states, limit }) => n.push_str(&format!(
                    "; the truncation stopped at the state limit: the next one ({}) would have up to {} states (--max-states {limit}): raise --max-states, ask fewer --digits, or use jsq simulate",
                    truncation_text(model.kind(), system.servers(), next),
                    sci(states, 2)
                )),
                Some(Stopped::Growths) => n.push_str(&format!(
                    "; the truncation stopped after {} growths: ask fewer --digits or use jsq simulate",
                    r.growths
                )),
                None => {}
            }
            notes.push(n);
        }
        _ => {
            if let Some(n) = digits_note(r.digits, digits) {
                notes.push(n);
            }
        }
    }
    rec.texts("notes", &notes);
    rec
}

/// Estimate of a simulated level that is never reached.
const ZERO: Estimate = Estimate {
    mean: 0.0,
    half_width: 0.0,
    replications: 0,
    count: 0,
};

/// The record of `jsq simulate` (the contract's keys, then the run's description and the
/// notes) for the run `r` of `system` (d as given in `spec`; `halfin_whitt` the β of the
/// Halfin–Whitt regime, when λ was given by it) with options `opts`.
pub fn simulate_record(
    system: &JsqSystem,
    spec: &DSpec,
    halfin_whitt: Option<f64>,
    opts: &RunOptions,
    r: &SimRun,
) -> Record {
    let s = &r.summary;
    let seconds = r.seconds;
    // The length the replications ran (the length rule may have lengthened the options').
    let (time, warmup) = match r.length {
        Length::Time { measured, warmup } => (measured, warmup),
        Length::Jobs { .. } => (0.0, 0.0),
    };
    let mut rec = Record::default();
    let sys = system;
    estimate(&mut rec, "mean_tasks", &s.mean_tasks);
    estimate_vector(&mut rec, "occupancy", &s.occupancy);
    estimate(&mut rec, "blocking", &s.blocking);
    rec.int("d_used", sys.d().d)
        .int("samples_per_arrival", sys.d().d)
        .int("events", s.events)
        .text(
            "events_per_second",
            sci(
                s.events as f64 / seconds.max(f64::MIN_POSITIVE),
                HALF_WIDTH_DIGITS,
            ),
        );
    if halfin_whitt.is_some() {
        let idle = s.scaled_occupancy.first().copied().unwrap_or(ZERO);
        let q2 = s.scaled_occupancy.get(1).copied().unwrap_or(ZERO);
        estimate(&mut rec, "scaled_idle", &idle);
        estimate(&mut rec, "scaled_q2", &q2);
        estimate_vector(&mut rec, "scaled_occupancy", &s.scaled_occupancy);
        estimate(&mut rec, "scaled_idle_sd", &s.scaled_idle_sd);
    }
    if let Some(d) = &s.distance {
        estimate(&mut rec, "distance", d);
    }
    if let Some(d) = &s.distance_own {
        estimate(&mut rec, "distance_own_fixed_point", d);
    }
    let model = sys.model();
    rec.text("model", model.kind().name())
        .int("servers", sys.servers())
        .text("lambda", model.lambda_text())
        .text("d", spec.text())
        .text("sampling", sys.sampling().name())
        .text("buffer", buffer_text(model))
        .text("time", exact_f64(time))
        .text("warmup", exact_f64(warmup))
        .text("length_rule", r.length_choice.rule.name());
    match r.length_choice.relaxation {
        Some(x) => rec.text("relaxation_time", sci(x.tau, 3)),
        None => rec.null("relaxation_time"),
    };
    rec.text("length_reason", r.length_choice.reason(time))
        .text("start", r.start.name())
        .int("replications", opts.replications as u64)
        .int("seed", opts.seed)
        .text("generator", GENERATOR);
    if let Some(b) = halfin_whitt {
        rec.text("halfin_whitt", exact_f64(b));
    }
    let mut notes = d_notes(spec, system.servers(), system.d());
    notes.extend(r.notes.iter().cloned());
    if let Some(b) = halfin_whitt {
        notes.push(format!(
            "Halfin-Whitt regime: lambda(N) = N - beta sqrt(N), lambda = 1 - {}/sqrt(N) per server; scaled_occupancy = ((N - Q_1)/sqrt N, Q_2/sqrt N, ...)",
            exact_f64(b)
        ));
        if model.kind() == ModelKind::Queues {
            notes.push("for queues E[(N - Q_1)/sqrt N] = beta under every policy (busy servers carry the load): the spread scaled_idle_sd and scaled_q2 are what separate policies".into());
        }
    }
    if s.distance.is_some() {
        notes.push(
            "distance: time average of sum_i |Q_i/N - q*_i|, q* JSQ's fluid fixed point".into(),
        );
    }
    if s.distance_own.is_some() {
        notes.push(format!(
            "distance_own_fixed_point: the same distance to the mean-field fixed point of the d used ({}): how far the run is from its own mean field",
            limit_text(crate::lb::sim::own_limit(system))
        ));
    }
    if s.levels_beyond.mean > 0.0 {
        notes.push(format!(
            "tasks above level {} are not in occupancy[] ({} per server; mean_tasks includes them)",
            s.occupancy.len(),
            sci(s.levels_beyond.mean, 3)
        ));
    }
    notes.extend(super::diagnostics_fields(
        &mut rec,
        &r.diagnostics,
        &Knobs::CLI_TIME,
        time,
    ));
    notes.push(format!(
        "half-widths: 95% Student-t over {} independent replications, each measured over time {} after a warm-up of {} (length_reason says why) from {}",
        opts.replications,
        exact_f64(time),
        exact_f64(warmup),
        match &r.start {
            Start::Empty => "empty".to_string(),
            Start::FixedPoint => "N x the mean-field fixed point of the d used (rounded)".to_string(),
            Start::Occupancy(_) => format!("the given occupancy {} (N q_i rounded)", r.start.name()),
        }
    ));
    notes.push("events (arrivals and departures, warm-up included) per second of wall time over all threads".into());
    rec.texts("notes", &notes);
    rec
}
