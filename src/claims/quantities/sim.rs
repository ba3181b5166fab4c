//! Simulated quantities: `lwl_sim(…)` (Least-Work-Left, the M/G/h central queue) and
//! `tags_host_error(host=i, cutoffs=Q, …)` (the error of the TAGS formula's Poisson
//! approximation at host i). Each value is a mean over independent replications with its
//! 95 % half-width and the heavy-tail diagnosis ([`crate::claims::value::SimUnc`]).
//!
//! Options: `jobs=`, `replications=`, `seed=`, `warmup=` ([`super::run::run_options`]),
//! over the defaults of `taskassign simulate` ([`DEFAULT_RUN`]). Every grid point uses the
//! streams (seed, 0, replication): common random numbers across the grid; another `seed=`
//! gives an independent run.

use super::dispatch::{opt_pair, opt_policy};
use super::run::{job_counts, run_options, JOBS_ARGS};
use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::expr::{Arg, Expr};
use crate::claims::registry::{Quantity, SIMULATED};
use crate::claims::scope::Call;
use crate::claims::scope::Scope;
use crate::claims::signature::{FieldSpec, NamedArg, Positional, Signature, VALUE_ONLY};
use crate::claims::systems::dispatch::{load_flag, DispatchSpec, DispatchSystem};
use crate::claims::value::{Pair, Value};
use crate::dist::DistFactory;
use crate::num::certify::to_sci;
use crate::optimize::equalize::balanced_cutoffs;
use crate::optimize::OptPolicy;
use crate::policy::reference::reference_waiting;
use crate::policy::{LoadSpec, Metric};
use crate::sim::dispatch::setup::{run, DispatchSimRequest, ANALYTIC_BITS, DEFAULT_RUN};
use crate::sim::dispatch::SimPolicy;
use crate::sim::observe::{names, Key};
use crate::sim::stats::{Estimate, HeavyTail};
use crate::sim::warmup::Knobs;
use crate::sim::{LengthRule, RunOptions, SimError};
use crate::vocab::{concat, Vocabulary};

/// Significant digits of the cutoffs handed to the simulator: enough to round-trip an f64
/// (the simulator runs in f64; the formula it is compared with uses the same decimal).
const SIM_CUTOFF_DIGITS: u32 = 17;

/// `tags_host_error`'s named arguments: the options of every simulated quantity, then its
/// own.
const TAGS_HOST_ERROR_ARGS: &[NamedArg] = &[
    JOBS_ARGS[0],
    JOBS_ARGS[1],
    JOBS_ARGS[2],
    JOBS_ARGS[3],
    NamedArg {
        name: "host",
        words: &[],
    },
    NamedArg {
        name: "cutoffs",
        words: TAGS_CUTOFF_WORDS,
    },
];

/// The options of a simulated quantity: `jobs=`, `replications=`, `seed=`, `warmup=`.
const SIM_ARGS: &[NamedArg] = &JOBS_ARGS;

/// Words `tags_host_error`'s `cutoffs=` takes: `balanced` or an `opt` policy.
const TAGS_CUTOFF_WORDS: &[&str] =
    &concat::<{ 1 + OptPolicy::NAMES.len() }>(&["balanced"], OptPolicy::NAMES);

/// The options of a simulated quantity over [`DEFAULT_RUN`].
fn sim_options(call: &Call) -> Result<RunOptions, QuantityError> {
    run_options(call, DEFAULT_RUN)
}

/// The options in words, for a value's source.
fn describe(o: &RunOptions) -> Result<String, QuantityError> {
    let (jobs, warmup) = job_counts(o, "dispatch")?;
    Ok(format!(
        "{} replications x {jobs} jobs ({warmup} warm-up), seed {}",
        o.replications, o.seed
    ))
}

/// `lwl_sim(jobs=, replications=, seed=, warmup=)`: Least-Work-Left simulated.
pub struct LwlSim;

static LWL_SIM: Signature = Signature {
    name: "lwl_sim",
    model: Some("dispatch"),
    positional: Positional::None,
    named: SIM_ARGS,
    fields: VALUE_ONLY,
    default_field: "value",
    summary: "Least-Work-Left simulated (mean ± 95 % half-width)",
};

impl Quantity for LwlSim {
    declared!(LWL_SIM, unproven: SIMULATED);

    /// The metric's mean with its 95 % half-width and the heavy-tail diagnosis
    /// (as `sim::dispatch::setup::simulated_mean` gives them, with the length that ran).
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        if !call.pos.is_empty() {
            return Err(QuantityError::Usage("lwl_sim() takes only named options (jobs=, replications=, seed=, warmup=) and overrides".into()));
        }
        let opts = sim_options(call)?;
        let (jobs, warmup) = job_counts(&opts, "dispatch")?;
        let source = describe(&opts)?;
        let scope = &call.scope;
        let s = DispatchSpec::resolve(scope, true)?;
        let hosts = s.need_hosts("lwl_sim")?;
        let load = s.need_load("lwl_sim")?;
        let key = CacheKey::new(
            "lwl_sim",
            format!(
                "{}|{hosts}|{load:?}|{}|{}",
                s.dist,
                s.metric.name(),
                opts.key()
            ),
        );
        let bits = scope.bits;
        let r = scope.cache.get_or(key, || {
            let spec = s.spec()?;
            let req = DispatchSimRequest {
                policy: SimPolicy::Lwl,
                dist: &spec,
                hosts,
                load: load.clone(),
                cutoffs: vec![],
                interarrival: None,
                run: opts.clone(),
            };
            let q = match s.metric {
                Metric::Waiting => Key::scalar(names::WAITING),
                Metric::Response => Key::scalar(names::RESPONSE),
                Metric::Slowdown => Key::scalar(names::SLOWDOWN),
            };
            // The default length is left to the command's own rule (given jobs run as
            // given).
            let length = match opts.length_rule {
                LengthRule::HeavyTail { .. } => String::new(),
                _ => format!(" --jobs {jobs} --warmup {warmup}"),
            };
            let what = format!(
                "simulate --policy lwl --dist {} --hosts {hosts} {}{length} --replications {} --seed {}",
                s.dist,
                load_flag(&load),
                opts.replications,
                opts.seed,
            );
            let (prep, res) =
                run(&req, None).map_err(|e| QuantityError::compute(what.clone(), e))?;
            let est = res
                .estimates
                .get(q)
                .copied()
                .ok_or_else(|| QuantityError::Internal(format!("{what}: no estimate")))?;
            // The jobs that ran (the fourth-moment rule may have lengthened the run).
            let ran = prep.config.run.jobs("dispatch").map_or(jobs, |(j, _)| j);
            let mut warnings = res.heavy_tail.describe();
            warnings.extend(res.diagnostics.failures(&Knobs::CLAIM_JOBS, ran as f64));
            let source = if prep.tail.lengthened() {
                format!("{source}; {}", prep.tail.reason())
            } else {
                source.clone()
            };
            if !est.mean.is_finite() {
                return Err(QuantityError::Undefined(format!(
                    "{what}: no finite estimate"
                )));
            }
            Ok(Pair::simulated(
                bits,
                est.mean,
                est.half_width,
                warnings,
                format!("LWL {} simulated ({source})", s.metric.name()),
            ))
        })?;
        Ok(Value::scalar("lwl_sim", r.as_ref().clone()))
    }
}

/// `tags_host_error(host=i, cutoffs=Q, …)`: (formula − simulated)/simulated of the TAGS
/// queueing delay per visit at host i ([`tags_poisson_error`]).
pub struct TagsHostError;

static TAGS_HOST_ERROR: Signature = Signature {
    name: "tags_host_error",
    model: Some("dispatch"),
    positional: Positional::None,
    named: TAGS_HOST_ERROR_ARGS,
    fields: &[
        FieldSpec::scalar("value"),
        FieldSpec::scalar("simulated"),
        FieldSpec::scalar("formula"),
        FieldSpec::scalar("load"),
    ],
    default_field: "value",
    summary: "(formula - simulated)/simulated TAGS queueing delay at host i, simulated",
};

/// The TAGS cutoffs named by `cutoffs=` as decimal strings: `balanced` (equal host
/// loads, [`balanced_cutoffs`]), an `opt` policy, or a string `'c1,c2'`.
fn tags_cutoff_texts(
    scope: &Scope,
    s: &DispatchSystem,
    hosts: usize,
    load: &LoadSpec,
    cut: Option<&Arg>,
) -> Result<Vec<String>, QuantityError> {
    match cut {
        None => Err(QuantityError::Usage("tags_host_error needs cutoffs=balanced, an opt policy (cutoffs=tags) or a string 'c1,c2'".into())),
        Some(Arg::Pos(Expr::Var(w))) if w == "balanced" => {
            let key = CacheKey::new("balanced", format!("{}|{hosts}|{load:?}", s.dist));
            let r = scope.cache.get_or(key, || {
                let spec = s.spec()?;
                let d = spec.build(ANALYTIC_BITS)?;
                let (lambda, _) = load.resolve(d.as_ref(), hosts)?;
                let (c, _) = balanced_cutoffs(d.as_ref(), &lambda, hosts).map_err(|e| {
                    QuantityError::compute(format!("balanced TAGS cutoffs for {}", s.dist), e)
                })?;
                Ok(c.iter()
                    .map(|x| to_sci(x, SIM_CUTOFF_DIGITS))
                    .collect::<Vec<String>>())
            })?;
            Ok(r.as_ref().clone())
        }
        Some(Arg::Pos(Expr::Var(w))) => {
            let r = opt_pair(scope, opt_policy(w)?)?;
            Ok(r.hi
                .cutoffs_free()
                .iter()
                .map(|x| to_sci(x, SIM_CUTOFF_DIGITS))
                .collect())
        }
        Some(Arg::Str(list)) => list
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| scope.substitute(x))
            .collect(),
        Some(other) => Err(QuantityError::Usage(format!(
            "cutoffs={other}: give balanced, an opt policy name or a string 'c1,c2'"
        ))),
    }
}

/// One host of a TAGS approximation-error row: the simulated mean queueing delay per
/// visit against the formula's, and their relative error.
#[derive(Debug, Clone, PartialEq)]
pub struct TagsHostErrorRow {
    /// Host index, 1-based.
    pub host: usize,
    /// ρ_i (exact).
    pub load: f64,
    /// Simulated mean queueing delay per visit.
    pub simulated: Estimate,
    /// The formula's Q_i (exact at host 1, Poisson approximation beyond).
    pub formula: f64,
    /// (formula − simulated) / simulated.
    pub rel_error: f64,
    /// 95 % half-width of `rel_error`: formula · hw / simulated² (delta method; the
    /// formula's value is exact arithmetic, so all the uncertainty is the simulation's).
    pub rel_error_half_width: f64,
}

/// The error of the Poisson approximation at TAGS hosts ≥ 2: simulates the TAGS request
/// `req` (Poisson arrivals; the chain of kills is simulated exactly) and compares each
/// host's queueing delay per visit (`host_waiting[i]`) with the TAGS formula's
/// ([`crate::policy::reference`]: exact at host 1, the papers' Poisson approximation at
/// hosts ≥ 2, whose arrivals are the kill times at host i − 1).
pub fn tags_poisson_error(
    req: &DispatchSimRequest,
) -> Result<(Vec<TagsHostErrorRow>, HeavyTail), SimError> {
    if req.policy != SimPolicy::Tags || req.interarrival.is_some() {
        return Err(SimError::BadConfig(
            "the Poisson-approximation error is defined for TAGS with Poisson arrivals".into(),
        ));
    }
    let (p, r) = run(req, None)?;
    let formula = reference_waiting(
        req.policy.routing(),
        req.dist,
        &p.lambda,
        req.hosts,
        &p.cutoffs,
    )?
    .and_then(|a| a.host_waiting)
    .ok_or_else(|| SimError::BadConfig("no analytic per-host waiting".into()))?;
    let loads = p.host_loads.clone().unwrap_or_default();
    let rows = r
        .estimates
        .vector(names::HOST_WAITING)
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let f = formula.get(i).copied().unwrap_or(f64::NAN);
            let rel_error = (f - e.mean) / e.mean;
            TagsHostErrorRow {
                host: i + 1,
                load: loads.get(i).copied().unwrap_or(f64::NAN),
                simulated: *e,
                formula: f,
                rel_error,
                rel_error_half_width: (f * e.half_width / (e.mean * e.mean)).abs(),
            }
        })
        .collect();
    Ok((rows, r.heavy_tail))
}

/// The simulated rows of every host, the heavy-tail warnings, the simulation in words.
type TagsErrRows = (Vec<TagsHostErrorRow>, Vec<String>, String);

impl Quantity for TagsHostError {
    declared!(TAGS_HOST_ERROR, unproven: SIMULATED);

    /// The relative error (formula − simulated)/simulated of the TAGS formula's queueing
    /// delay per visit at host `host` ([`tags_poisson_error`]; exact at host 1, the Poisson
    /// approximation at hosts ≥ 2), with its 95 % half-width. Fields: `value` (the relative
    /// error), `simulated`, `formula`, `load` (ρ_i).
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        if !call.pos.is_empty() {
            return Err(QuantityError::Usage(
                "tags_host_error(host=i, cutoffs=..., ...) takes only named arguments".into(),
            ));
        }
        let opts = sim_options(call)?;
        let (jobs, _) = job_counts(&opts, "dispatch")?;
        let described = describe(&opts)?;
        let host = call.named_number("host")?.ok_or_else(|| {
            QuantityError::Usage(
                "tags_host_error needs host=i (1-based; -1 is the last host)".into(),
            )
        })?;
        let scope = &call.scope;
        let s = DispatchSpec::resolve(scope, true)?;
        let hosts = s.need_hosts("tags_host_error")?;
        let load = s
            .load
            .clone()
            .ok_or_else(|| QuantityError::Usage("tags_host_error needs a load".into()))?;
        let cutoffs = tags_cutoff_texts(scope, &s, hosts, &load, call.named("cutoffs"))?;
        let k = if host < 0 {
            hosts as i64 + host
        } else {
            host - 1
        };
        if host == 0 || k < 0 || k >= hosts as i64 {
            return Err(QuantityError::Usage(format!(
                "host={host} does not exist ({hosts} hosts; 1-based, -1 is the last)"
            )));
        }
        let key = CacheKey::new(
            "tags_host_error",
            format!(
                "{}|{hosts}|{load:?}|{}|{}",
                s.dist,
                cutoffs.join(","),
                opts.key()
            ),
        );
        let bits = scope.bits;
        let r = scope.cache.get_or(key, || -> Result<TagsErrRows, QuantityError> {
            let spec = s.spec()?;
            let req = DispatchSimRequest {
                policy: SimPolicy::Tags,
                dist: &spec,
                hosts,
                load: load.clone(),
                cutoffs: cutoffs.clone(),
                interarrival: None,
                run: opts.clone(),
            };
            let (rows, tail) = tags_poisson_error(&req).map_err(|e| {
                QuantityError::compute(
                    format!(
                        "simulate --policy tags --dist {} --hosts {hosts} {} --cutoffs {} --jobs {} --replications {} --seed {}",
                        s.dist,
                        load_flag(&load),
                        cutoffs.join(","),
                        jobs,
                        opts.replications,
                        opts.seed
                    ),
                    e,
                )
            })?;
            Ok((
                rows,
                tail.describe(),
                format!("TAGS simulated, cutoffs {} ({described})", cutoffs.join(",")),
            ))
        })?;
        let (rows, warnings, source) = r.as_ref();
        let row = rows
            .get(k as usize)
            .ok_or_else(|| QuantityError::Internal(format!("host {} not simulated", k + 1)))?;
        let sim = |mean: f64, hw: f64| -> Result<Pair, String> {
            if !mean.is_finite() {
                return Err(format!(
                    "host {}: no finite estimate (no job visited it?)",
                    row.host
                ));
            }
            Ok(Pair::simulated(
                bits,
                mean,
                hw,
                warnings.clone(),
                format!("host {}: {source}", row.host),
            ))
        };
        let v = Value::new("tags_host_error", "value");
        let v = match sim(row.rel_error, row.rel_error_half_width) {
            Ok(p) => v.with("value", p),
            Err(e) => v.missing("value", e),
        };
        let v = match sim(row.simulated.mean, row.simulated.half_width) {
            Ok(p) => v.with("simulated", p),
            Err(e) => v.missing("simulated", e),
        };
        Ok(v.with("formula", Pair::from_f64(bits, row.formula))
            .with("load", Pair::from_f64(bits, row.load)))
    }
}
