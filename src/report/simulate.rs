//! The `simulate` record, and the rendering helpers every simulator's report shares.
//!
//! A simulated number is an f64 estimate with a 95 % half-width, not a certified decimal:
//! it is printed in scientific notation with [`MEAN_DIGITS`] significant digits, its
//! half-width with [`HALF_WIDTH_DIGITS`] (under the key `<name>_half_width`), and an input
//! the simulator used as f64 (λ, a cutoff) as the shortest decimal that reads back to that
//! f64 ([`exact`]). The estimates are read by name ([`crate::sim::observe::names`]), so the
//! same helpers render any simulator's observables (`waiting`, `host_waiting[]`, later
//! `occupancy[]`, `response[class]`).
//!
//! [`simulate_record`] builds the record of the dispatch simulators (`taskassign simulate`):
//! the request as run, the estimates, the reference value of [`crate::policy::reference`]
//! and each estimate's distance z to it in half-widths, the heavy-tail diagnosis and the
//! notes.

use super::Record;
use crate::policy::reference::Reference;
use crate::sim::dispatch::setup::{DispatchSimRequest, Prepared};
use crate::sim::dispatch::SimResult;
use crate::sim::observe::{names, Estimates};
use crate::sim::rng::GENERATOR;
use crate::sim::stats::Estimate;
use crate::sim::warmup::Knobs;
use crate::sim::SimError;

/// Significant digits of simulated means (and of z) in the output.
pub const MEAN_DIGITS: usize = 6;
/// Significant digits of half-widths.
pub const HALF_WIDTH_DIGITS: usize = 3;

/// A simulated number in scientific notation with `digits` significant digits; "0",
/// "inf", and "n/a" for an undefined value (a host no measured job visited).
pub fn sci(x: f64, digits: usize) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.is_nan() {
        "n/a".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{:.*e}", digits.saturating_sub(1), x)
    }
}

/// An input value as the f64 the simulator used: the shortest scientific string that
/// reads back to it.
pub fn exact(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:e}")
    }
}

/// Adds an estimate as `key` and `key_half_width`.
pub fn estimate(rec: &mut Record, key: &str, e: &Estimate) {
    rec.text(key, sci(e.mean, MEAN_DIGITS));
    rec.text(
        &format!("{key}_half_width"),
        sci(e.half_width, HALF_WIDTH_DIGITS),
    );
}

/// Adds a vector of estimates as `key[]` and `key_half_width[]`.
pub fn estimate_vector(rec: &mut Record, key: &str, es: &[Estimate]) {
    // A host seen in one replication has no finite half-width: `null`, with a note (the
    // property tests generate the case).
    let fin = |x: f64, d| x.is_finite().then(|| sci(x, d));
    let means: Vec<Option<String>> = es.iter().map(|e| fin(e.mean, MEAN_DIGITS)).collect();
    let hws: Vec<Option<String>> = es
        .iter()
        .map(|e| fin(e.half_width, HALF_WIDTH_DIGITS))
        .collect();
    let nulls = means.iter().chain(&hws).any(Option::is_none);
    rec.opt_texts(key, &means)
        .opt_texts(&format!("{key}_half_width"), &hws);
    if nulls {
        rec.text(
            &format!("{key}_note"),
            "null: no finite value (a host seen in fewer than two replications has no half-width)",
        );
    }
}

/// The scalar estimate `name`, or an internal error naming it; an overflow error when its
/// mean or, over two replications or more, its half-width is not finite (the f64 sums of
/// the replications left f64's range: printed, it would be `inf` or a wrong 0).
pub fn scalar(estimates: &Estimates, name: &str) -> Result<Estimate, SimError> {
    let e = estimates
        .scalar(name)
        .copied()
        .ok_or_else(|| SimError::Internal(format!("the simulation has no estimate of {name}")))?;
    let lost = e.mean.is_infinite() || (e.replications >= 2 && !e.half_width.is_finite());
    if e.count > 0 && lost {
        return Err(SimError::Overflow(format!(
            "the simulated {name} left f64's range (mean {}, half-width {}): the job sizes span too wide a range for the f64 simulator (e.g. sizes near 0 make slowdowns beyond 1.8e308); rescale the law or drop the metric",
            sci(e.mean, MEAN_DIGITS),
            sci(e.half_width, HALF_WIDTH_DIGITS)
        )));
    }
    Ok(e)
}

/// z = (estimate − value)/half-width, as printed: n/a when the value is infinite.
fn z_text(e: &Estimate, value: f64) -> Option<String> {
    // A zero half-width (equal replications) or an infinite analytic value has no finite
    // z-score: `null`, with `z_note` (the property tests generate both cases).
    let z = if value.is_finite() {
        e.z(value)
    } else {
        f64::NAN
    };
    z.is_finite().then(|| sci(z, MEAN_DIGITS))
}

/// Why `analytic_waiting` is `null`.
pub const ANALYTIC_INFINITE_NOTE: &str =
    "null: the formula's mean waiting is infinite (a host's job sizes have an infinite second moment, or a host is saturated)";

/// Why a z-score is `null`.
pub const Z_NOTE: &str = "null: no finite z-score (a half-width of 0, when the replications agree or too few saw the host, or an infinite analytic value)";

/// The record of `taskassign simulate` (the keys of its contract, in order) for the request
/// `req`, resolved as `prep`, simulated as `res` and compared with `reference` (the
/// formula's values, when one exists).
pub fn simulate_record(
    req: &DispatchSimRequest,
    prep: &Prepared,
    res: &SimResult,
    reference: Option<&Reference>,
) -> Result<Record, SimError> {
    let cfg = &prep.config;
    let (jobs, warmup) = cfg.run.jobs("dispatch").unwrap_or_default();
    let est = &res.estimates;
    let mut rec = Record::default();
    rec.text("policy", req.policy.name())
        .text("dist", req.dist.describe())
        .int("hosts", req.hosts as u64)
        .text("load", exact(prep.load.to_f64()))
        .text("lambda", exact(cfg.lambda))
        .texts(
            "cutoffs",
            &cfg.cutoffs.iter().map(|c| exact(*c)).collect::<Vec<_>>(),
        )
        .text(
            "arrivals",
            match req.interarrival {
                Some(d) => format!("renewal:{}", d.describe()),
                None => "poisson".into(),
            },
        );
    run_length_fields(&mut rec, jobs, warmup, &prep.tail, &req.run);
    let waiting = scalar(est, names::WAITING)?;
    estimate(&mut rec, names::WAITING, &waiting);
    estimate(&mut rec, names::RESPONSE, &scalar(est, names::RESPONSE)?);
    estimate(&mut rec, names::SLOWDOWN, &scalar(est, names::SLOWDOWN)?);
    if req.policy.kills_jobs() {
        estimate(&mut rec, names::QUEUEING, &scalar(est, names::QUEUEING)?);
        estimate(&mut rec, names::WASTED, &scalar(est, names::WASTED)?);
    }
    if let Some(l) = &prep.host_loads {
        rec.texts(
            "host_loads",
            &l.iter().map(|x| sci(*x, MEAN_DIGITS)).collect::<Vec<_>>(),
        );
    }
    let host_waiting = est.vector(names::HOST_WAITING);
    estimate_vector(&mut rec, names::HOST_WAITING, &host_waiting);
    // The reference's notes come first: they and the request's arrival note never meet
    // (renewal arrivals have no reference).
    let mut notes: Vec<String> = reference.map(|r| r.notes.clone()).unwrap_or_default();
    notes.extend(prep.notes.iter().cloned());
    if let Some(an) = reference {
        if an.waiting.is_finite() {
            rec.text("analytic_waiting", sci(an.waiting, MEAN_DIGITS));
        } else {
            // The formula's mean waiting is infinite (E[X²] = ∞ on a host, the Pollaczek–
            // Khinchine numerator): no number, `null` with a note (a JSON number string is
            // always finite).
            rec.null("analytic_waiting");
            rec.text("analytic_waiting_note", ANALYTIC_INFINITE_NOTE);
        }
        let mut z_null = false;
        match z_text(&waiting, an.waiting) {
            Some(z) => rec.text("z", z),
            None => {
                z_null = true;
                rec.null("z")
            }
        };
        rec.text("analytic_source", an.source);
        if let Some(hw) = &an.host_waiting {
            rec.texts(
                "analytic_host_waiting",
                &hw.iter().map(|x| sci(*x, MEAN_DIGITS)).collect::<Vec<_>>(),
            );
            let zs: Vec<Option<String>> = hw
                .iter()
                .zip(&host_waiting)
                .map(|(x, e)| z_text(e, *x))
                .collect();
            z_null |= zs.iter().any(Option::is_none);
            rec.opt_texts("host_z", &zs);
        }
        if z_null {
            rec.text("z_note", Z_NOTE);
        }
    }
    rec.flag("heavy_tail_warning", res.heavy_tail.warned());
    notes.extend(res.heavy_tail.describe());
    notes.extend(super::diagnostics_fields(
        &mut rec,
        &res.diagnostics,
        &Knobs::CLI_JOBS,
        jobs as f64,
    ));
    if host_waiting.iter().any(|e| e.mean.is_nan()) {
        notes.push("n/a: no measured job visited that host".into());
    }
    notes.push(format!(
        "half-widths: 95% Student-t over {} independent replications (warm-up of {warmup} jobs discarded in each, or more where warmup_rule extended it)",
        req.run.replications
    ));
    rec.texts("notes", &notes);
    Ok(rec)
}

/// The length of a job-counting simulation: `jobs` and `warmup` per replication, the
/// length rule and its reason, then `replications`, `seed` and `generator`.
pub(super) fn run_length_fields<'r>(
    rec: &'r mut Record,
    jobs: u64,
    warmup: u64,
    tail: &crate::sim::dispatch::TailLength,
    run: &crate::sim::RunOptions,
) -> &'r mut Record {
    rec.int("jobs", jobs)
        .int("warmup", warmup)
        .text("length_rule", tail.rule.name())
        .text("length_reason", tail.reason())
        .int("replications", run.replications as u64)
        .int("seed", run.seed)
        .text("generator", GENERATOR)
}

#[cfg(test)]
mod tests {
    use super::{exact, sci};

    #[test]
    fn numbers_read_as_the_contract_writes_them() {
        // The number format of ARCHITECTURE.md ("Output"): mantissa `e` exponent, "n/a"
        // for an undefined value; Rust's `{:e}` of 0.1 and 1/3 is the shortest text that
        // reads back to the same f64.
        assert_eq!(sci(1234.5678, 3), "1.23e3");
        assert_eq!(sci(f64::NAN, 3), "n/a");
        assert_eq!(sci(0.0, 3), "0");
        assert_eq!(exact(0.1), "1e-1");
        assert_eq!(exact(1.0 / 3.0), "3.333333333333333e-1");
    }
}
