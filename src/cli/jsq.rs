//! `jsq fixed-point | fluid | exact | simulate`: argument parsing for the load-balancing
//! room ([`crate::lb`]), which computes; the records are built by [`crate::report::jsq`].
//!
//! Conventions (README, "`jsq`"): λ is per server (λ(N)/N) and may exceed 1 for pools;
//! `--buffer` is the buffer b of a queue or the capacity B of a pool (default ∞); d is a
//! number, `inf`, or a formula in N (`log(N)`, `sqrt(N)*log(N)`, `N^0.75`), rounded up and
//! capped at N. Bad input exits 2 with one line, a numerical failure 3.

use super::run_args::TimeRunArgs;
use super::{bad, fail, named, render, Format, Outcome};
use crate::lb::diffusion::halfin_whitt_lambda;
use crate::lb::exact::{exact, ExactOptions, DEFAULT_MAX_STATES, F64_DIGITS};
use crate::lb::fixed_point::certified;
use crate::lb::fixed_point_proven;
use crate::lb::fluid::{fluid_pair, Limit};
use crate::lb::model::{DSpec, JsqSystem, LbError, Model, ModelKind, Sampling};
use crate::lb::sim::{run, Measure, DEFAULT_RUN};
use crate::num::{check_digits, DEFAULT_DIGITS};
use crate::report::jsq::{
    exact_record, fixed_point_record, fixed_point_rigorous_record, fluid_record, simulate_record,
};
use crate::sim::warmup::Knobs;
use crate::sim::Length;
use clap::{Args, Subcommand};

/// `taskassign jsq …`.
#[derive(Args, Debug)]
pub(super) struct JsqArgs {
    #[command(subcommand)]
    command: JsqCommand,
}

impl JsqArgs {
    /// The name progress lines give the subcommand, if it reports progress.
    pub(super) fn progress_name(&self) -> Option<&'static str> {
        match self.command {
            JsqCommand::Simulate(_) => Some("jsq simulate"),
            JsqCommand::Exact(_) => Some("jsq exact"),
            _ => None,
        }
    }
}

#[derive(Subcommand, Debug)]
enum JsqCommand {
    /// Certified fixed point of the N -> infinity limit: fixed d (power-of-d mean field)
    /// or d = inf / a growing formula (JSQ's fluid limit); occupancy, mean tasks, mean
    /// sojourn, blocking.
    FixedPoint(FixedPointArgs),
    /// Fluid (mean-field) trajectory from a start occupancy at given times, with its
    /// tolerance and an error estimate.
    Fluid(FluidArgs),
    /// Exact stationary values of the finite-N Markov chain (small N).
    Exact(ExactArgs),
    /// Simulate N servers on the occupancy counts (any N, any d): time averages with 95%
    /// half-widths over independent replications.
    Simulate(SimArgs),
}

#[derive(Args, Debug)]
struct ModelOpts {
    /// queues (FCFS single servers) or pools (no queueing).
    #[arg(long, value_parser = named::<ModelKind>())]
    model: ModelKind,
    /// Arrival rate per server, lambda(N)/N (queues without a buffer need lambda < 1).
    #[arg(long, value_name = "L", allow_hyphen_values = true)]
    lambda: String,
    /// Buffer b of a queue (the task in service included) or capacity B of a pool: an
    /// integer >= 1 or inf (default inf). An arrival to a full server is discarded.
    #[arg(
        long,
        value_name = "B|inf",
        allow_hyphen_values = true,
        default_value = "inf"
    )]
    buffer: String,
}

#[derive(Args, Debug)]
struct FixedPointArgs {
    #[command(flatten)]
    m: ModelOpts,
    /// d: a number (power-of-d), inf or a formula growing with N (JSQ's fluid limit).
    #[arg(
        long,
        value_name = "D|inf",
        default_value = "inf",
        allow_hyphen_values = true
    )]
    d: String,
    /// Significant decimal digits wanted (each printed digit is certified, or proven with
    /// --rigorous).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Proven enclosures instead of certified digits: every number K with K_lo and K_hi
    /// (interval arithmetic with outward rounding) and proven_digits. The power-of-d fixed
    /// point of queues (closed form), of any model with a finite --buffer (root
    /// isolation) and of pools without one (from a finite capacity, its blocking
    /// bounding the rest), and JSQ's (d = inf) by its closed forms, with or without a
    /// buffer.
    #[arg(long)]
    rigorous: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
struct FluidArgs {
    #[command(flatten)]
    m: ModelOpts,
    /// d: a number (power-of-d ODEs), inf or a formula growing with N (JSQ's fluid limit).
    #[arg(
        long,
        value_name = "D|inf",
        default_value = "inf",
        allow_hyphen_values = true
    )]
    d: String,
    /// Start occupancy q_1, q_2, ... (non-increasing, in [0, 1]; default empty).
    #[arg(
        long,
        value_name = "Q1,Q2,...",
        default_value = "",
        allow_hyphen_values = true
    )]
    init: String,
    /// Output times, non-decreasing, from 0.
    #[arg(long, value_name = "T1,T2,...", allow_hyphen_values = true)]
    times: String,
    /// Significant decimal digits wanted, 1 to 15 (the trajectory is integrated in f64;
    /// each value shows at most these, and only those on which two integrations agree)
    /// [default: every digit on which they agree].
    #[arg(long, value_name = "DIGITS", allow_hyphen_values = true)]
    digits: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
struct ExactArgs {
    #[command(flatten)]
    m: ModelOpts,
    /// Number of servers N (small: the chain's states grow fast with N).
    #[arg(long, allow_hyphen_values = true)]
    servers: i64,
    /// d: a number, inf (JSQ) or a formula in N; a number or a formula is rounded up and
    /// capped at N (the notes say so).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    d: String,
    /// Sampling of the d servers.
    #[arg(long, value_parser = named::<Sampling>(), default_value = "without")]
    sampling: Sampling,
    /// Significant decimal digits wanted (each printed digit is certified: the truncation
    /// grows until its proven bound and the solve's error leave them certain; a chain
    /// certifies at most 14).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Most states of the chain (the truncation stops growing there).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STATES as i64, allow_hyphen_values = true)]
    max_states: i64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
#[group(id = "rate", required = true, multiple = false)]
struct RateArgs {
    /// Arrival rate per server, lambda(N)/N.
    #[arg(long, value_name = "L", allow_hyphen_values = true)]
    lambda: Option<String>,
    /// Halfin-Whitt regime lambda(N) = N - beta sqrt(N): lambda = 1 - beta/sqrt(N).
    #[arg(long, value_name = "BETA", allow_hyphen_values = true)]
    halfin_whitt: Option<String>,
}

#[derive(Args, Debug)]
struct SimArgs {
    /// queues (FCFS single servers) or pools (no queueing).
    #[arg(long, value_parser = named::<ModelKind>())]
    model: ModelKind,
    /// Number of servers N.
    #[arg(long, allow_hyphen_values = true)]
    servers: i64,
    #[command(flatten)]
    rate: RateArgs,
    /// d: a number, inf (JSQ) or a formula in N; a number or a formula is rounded up and
    /// capped at N (the notes say so).
    #[arg(long, value_name = "D|FORMULA", allow_hyphen_values = true)]
    d: String,
    /// Sampling of the d servers.
    #[arg(long, value_parser = named::<Sampling>(), default_value = "without")]
    sampling: Sampling,
    /// Buffer b (queues) or capacity B (pools): an integer >= 1 or inf.
    #[arg(
        long,
        value_name = "B|inf",
        allow_hyphen_values = true,
        default_value = "inf"
    )]
    buffer: String,
    #[command(flatten)]
    run: TimeRunArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

fn lb(e: LbError) -> (i32, String) {
    fail(e)
}

fn buffer_of(s: &str) -> Result<Option<u32>, (i32, String)> {
    match s.trim() {
        "inf" | "infinity" => Ok(None),
        t => {
            let b: i64 = t.parse().map_err(|_| {
                bad(format!(
                    "the buffer must be an integer >= 1 or inf, got '{t}'"
                ))
            })?;
            if b < 1 {
                return Err(lb(LbError::BadBuffer(b)));
            }
            u32::try_from(b)
                .map(Some)
                .map_err(|_| lb(LbError::BadBuffer(b)))
        }
    }
}

fn model_of(m: &ModelOpts) -> Result<Model, (i32, String)> {
    Model::new(m.model, &m.lambda, buffer_of(&m.buffer)?).map_err(lb)
}

/// A comma-separated list of finite numbers.
fn numbers(what: &str, s: &str) -> Result<Vec<f64>, (i32, String)> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(format!("{what}: '{x}' is not a number")))
        })
        .collect()
}

/// A positive finite time.
fn time(what: &str, s: &str, positive: bool) -> Result<f64, (i32, String)> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| bad(format!("{what} must be a number, got '{s}'")))?;
    if !v.is_finite() || v < 0.0 || (positive && v == 0.0) {
        return Err(bad(format!(
            "{what} must be finite and {}, got {s}",
            if positive { "> 0" } else { ">= 0" }
        )));
    }
    Ok(v)
}

fn servers_of(n: i64) -> Result<u64, (i32, String)> {
    u64::try_from(n)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| lb(LbError::BadServers(n)))
}

pub(super) fn run_jsq(a: JsqArgs) -> Outcome {
    match a.command {
        JsqCommand::FixedPoint(a) => {
            let digits = check_digits(a.digits).map_err(bad)?;
            let model = model_of(&a.m)?;
            let spec = DSpec::parse(&a.d).map_err(lb)?;
            let limit = Limit::from_spec(&spec).map_err(lb)?;
            if a.rigorous {
                let fp = match fixed_point_proven(&model, limit, digits) {
                    Ok(fp) => fp,
                    Err(LbError::BadInput(why)) => {
                        // A model without a (unique) fixed point says so as it does
                        // uncertified (queues with d = inf at lambda = 1).
                        certified(&model, limit, digits).map_err(lb)?;
                        return Err(lb(LbError::BadInput(format!(
                            "--rigorous: {why}; without --rigorous the fixed point is certified (two precisions agree)"
                        ))));
                    }
                    Err(e) => return Err(lb(e)),
                };
                return Ok(render(
                    &fixed_point_rigorous_record(&model, &spec, limit, &fp, digits),
                    a.format,
                ));
            }
            let fp = certified(&model, limit, digits).map_err(lb)?;
            Ok(render(
                &fixed_point_record(&model, &spec, limit, &fp),
                a.format,
            ))
        }
        JsqCommand::Fluid(a) => {
            let model = model_of(&a.m)?;
            let spec = DSpec::parse(&a.d).map_err(lb)?;
            let init = numbers("--init", &a.init)?;
            let times = numbers("--times", &a.times)?;
            if times.is_empty() {
                return Err(bad("--times needs at least one time"));
            }
            let digits = match a.digits {
                None => None,
                Some(d) => Some(
                    u32::try_from(d)
                        .ok()
                        .filter(|d| (1..=F64_DIGITS).contains(d))
                        .ok_or_else(|| {
                            bad(format!(
                                "--digits must be between 1 and {F64_DIGITS} (jsq fluid integrates in f64), got {d}"
                            ))
                        })?,
                ),
            };
            let limit = Limit::from_spec(&spec).map_err(lb)?;
            let (coarse, fine) = fluid_pair(&model, limit, &init, &times).map_err(lb)?;
            Ok(render(
                &fluid_record(&model, &spec, limit, &times, (&coarse, &fine), digits),
                a.format,
            ))
        }
        JsqCommand::Exact(a) => {
            let model = model_of(&a.m)?;
            let n = servers_of(a.servers)?;
            let spec = DSpec::parse(&a.d).map_err(lb)?;
            let system = JsqSystem::new(model, n, &spec, a.sampling).map_err(lb)?;
            let digits = check_digits(a.digits).map_err(bad)?;
            let max_states = crate::num::check_max_states(a.max_states).map_err(bad)?;
            let opts = ExactOptions {
                digits,
                max_states,
                ..ExactOptions::default()
            };
            let r = exact(&system, &opts).map_err(lb)?;
            Ok(render(&exact_record(&system, &spec, digits, &r), a.format))
        }
        JsqCommand::Simulate(a) => run_simulate(a),
    }
}

fn run_simulate(a: SimArgs) -> Outcome {
    let n = servers_of(a.servers)?;
    let buffer = buffer_of(&a.buffer)?;
    let kind = a.model;
    let (model, beta) = match (&a.rate.lambda, &a.rate.halfin_whitt) {
        (Some(l), _) => (Model::new(kind, l, buffer).map_err(lb)?, None),
        (None, Some(b)) => {
            let beta = time("--halfin-whitt", b, true)?;
            let lambda = halfin_whitt_lambda(n, beta);
            if !(lambda > 0.0) {
                return Err(bad(format!(
                    "--halfin-whitt {b}: beta must be below sqrt(N) = {} (lambda = 1 - beta/sqrt(N) > 0)",
                    (n as f64).sqrt()
                )));
            }
            (
                Model::from_f64(kind, lambda, buffer).map_err(lb)?,
                Some(beta),
            )
        }
        (None, None) => return Err(bad("give --lambda or --halfin-whitt")),
    };
    let spec = DSpec::parse(&a.d).map_err(lb)?;
    let system = JsqSystem::new(model, n, &spec, a.sampling).map_err(lb)?;
    let opts = a.run.options(DEFAULT_RUN)?;
    // Progress: the simulator reports its events against the expected count
    // (crate::progress), shown by the command line's progress lines (a bar on a terminal,
    // a line every 30 s otherwise), as `simulate` and `redundancy simulate`.
    let r = run(&system, &opts, Measure::Stationary, None).map_err(lb)?;
    let horizon = match r.length {
        Length::Time { measured, .. } => measured,
        Length::Jobs { .. } => 0.0,
    };
    super::diagnostics_gate(&r.diagnostics, &Knobs::CLI_TIME, horizon)?;
    Ok(render(
        &simulate_record(&system, &spec, beta, &opts, &r),
        a.format,
    ))
}
