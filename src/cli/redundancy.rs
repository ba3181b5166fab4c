//! `redundancy exact|simulate|stability`: argument parsing for [`crate::redundancy`]; the
//! records are built by [`crate::report::redundancy`].

use super::{bad, fail, render, Format, Outcome};
use crate::dist::DistSpec;
use crate::num::certify::Certify;
use crate::num::{check_digits, DEFAULT_DIGITS};
use crate::redundancy::classes::System;
use crate::redundancy::exact::exact;
use crate::redundancy::policy::{Copies, Policy};
use crate::redundancy::sim::{simulate, SimRequest};
use crate::redundancy::stability::{
    estimate_scale_limit, fcfs_region, EstimateOptions, DEFAULT_DRIFT_REPLICATIONS, DEFAULT_HORIZON,
};
use crate::report::redundancy::{
    exact_record, simulate_record, stability_record, StabilityFindings,
};
use crate::sim::{DEFAULT_REPLICATIONS, DEFAULT_WARMUP_FRACTION, MIN_REPLICATIONS};
use clap::{Args, Subcommand};

/// Default measured jobs per replication of `redundancy simulate`.
const DEFAULT_JOBS: &str = "1000000";
/// Default service law.
const DEFAULT_DIST: &str = "exp:rate=1";
/// Precision (digits) of the stability region printed by `simulate` and `stability`.
const REGION_DIGITS: u32 = 20;

/// `redundancy`: redundancy scheduling with cancel-on-complete.
#[derive(Args, Debug)]
pub(super) struct RedundancyArgs {
    #[command(subcommand)]
    command: RedundancyCommand,
}

impl RedundancyArgs {
    /// The name progress lines give the subcommand, if it reports progress.
    pub(super) fn progress_name(&self) -> Option<&'static str> {
        matches!(self.command, RedundancyCommand::Simulate(_)).then_some("redundancy simulate")
    }
}

#[derive(Subcommand, Debug)]
enum RedundancyCommand {
    /// Exact mean numbers and response times with exponential i.i.d. copies: FCFS by its
    /// product form (certified digits), the other policies by truncated Markov chains.
    Exact(ExactArgs),
    /// Simulate any service law, i.i.d. or identical copies, any policy: per-class and
    /// overall mean numbers and response times with 95% half-widths.
    Simulate(SimulateArgs),
    /// The stability limit along the arrival-rate vector: exact for FCFS with exponential
    /// i.i.d. copies, otherwise estimated by simulation (a drift test that can say
    /// inconclusive).
    Stability(StabilityArgs),
}

/// The system and the policy, shared by the three commands.
#[derive(Args, Debug)]
struct SystemArgs {
    /// Servers of rate 1 (or give --rates).
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    servers: Option<String>,
    /// Server rates, comma-separated (e.g. 1,2).
    #[arg(long, value_name = "MU1,MU2,...", allow_hyphen_values = true)]
    rates: Option<String>,
    /// A job class: its servers joined by '+' and its arrival rate (repeat: --class 1:0.3
    /// --class 2:0.3 --class 1+2:0.6).
    #[arg(long = "class", value_name = "SET:RATE", allow_hyphen_values = true)]
    classes: Vec<String>,
    /// A preset (n-model, w-model, nested-4, redundancy-d:k=K,d=D, full:k=K) with
    /// --lambdas, or a TOML system file.
    #[arg(long, value_name = "PRESET|FILE.toml")]
    system: Option<String>,
    /// The arrival rates of a preset's classes, comma-separated.
    #[arg(long, value_name = "L1,L2,...", allow_hyphen_values = true)]
    lambdas: Option<String>,
    /// fcfs, ros, lrf-fcfs, mrf-fcfs, lrf-ros or mrf-ros.
    #[arg(long, value_name = "POLICY")]
    policy: String,
    /// Preemptive-resume class priority (default: non-preemptive).
    #[arg(long)]
    preemptive: bool,
}

#[derive(Args, Debug)]
struct ExactArgs {
    #[command(flatten)]
    system: SystemArgs,
    /// Significant decimal digits wanted (each printed digit is certified; a Markov chain
    /// prints at most 10).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
struct SimulateArgs {
    #[command(flatten)]
    system: SystemArgs,
    /// Service law of a copy's requirement (a copy at server s takes requirement/mu_s).
    #[arg(long, value_name = "SPEC", default_value = DEFAULT_DIST)]
    dist: String,
    /// iid (each copy its own requirement) or identical (one per job).
    #[arg(long, value_name = "iid|identical", default_value = "iid")]
    copies: String,
    /// Measured jobs per replication (e.g. 1000000 or 1e6).
    #[arg(long, value_name = "N", default_value = DEFAULT_JOBS, allow_hyphen_values = true)]
    jobs: String,
    /// Jobs discarded at the start of each replication (default: jobs/10).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Independent replications (>= 2), run in parallel.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPLICATIONS as i64, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed: replication r uses streams seeded from (seed, 0, r).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
struct StabilityArgs {
    #[command(flatten)]
    system: SystemArgs,
    /// Service law of a copy's requirement.
    #[arg(long, value_name = "SPEC", default_value = DEFAULT_DIST)]
    dist: String,
    /// iid or identical copies.
    #[arg(long, value_name = "iid|identical", default_value = "iid")]
    copies: String,
    /// Estimate by simulation even where the exact region applies (a cross-check).
    #[arg(long)]
    simulate: bool,
    /// Arrivals per replication of the drift test.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    horizon: Option<String>,
    /// Replications per scale of the drift test (>= 2).
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    replications: Option<i64>,
    /// Base seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// A comma-separated list of decimals.
fn list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

/// The system the options describe.
fn system_of(a: &SystemArgs) -> Result<System, (i32, String)> {
    let rates = match (&a.servers, &a.rates) {
        (Some(_), Some(_)) => return Err(bad("give --servers or --rates, not both")),
        (Some(k), None) => {
            let k = crate::num::parse_count(
                k,
                "servers",
                1,
                crate::redundancy::classes::MAX_SERVERS as u64,
            )
            .map_err(bad)?;
            Some(System::unit_rates(k as usize))
        }
        (None, Some(r)) => Some(list(r)),
        (None, None) => None,
    };
    match &a.system {
        Some(name) => {
            if !a.classes.is_empty() {
                return Err(bad("give either --system or --class, not both"));
            }
            let path = std::path::Path::new(name);
            let sys = if name.ends_with(".toml") || path.is_file() {
                if a.lambdas.is_some() {
                    return Err(bad("--lambdas goes with a preset, not with a system file"));
                }
                let text = std::fs::read_to_string(path)
                    .map_err(|e| bad(format!("cannot read {name}: {e}")))?;
                System::from_toml(&text, name).map_err(bad)?
            } else {
                let l = a
                    .lambdas
                    .as_deref()
                    .ok_or_else(|| bad(format!("--system {name} needs --lambdas")))?;
                System::preset(name, &list(l)).map_err(bad)?
            };
            match rates {
                Some(r) => sys.with_rates(r).map_err(bad),
                None => Ok(sys),
            }
        }
        None => {
            if a.lambdas.is_some() {
                return Err(bad("--lambdas goes with --system PRESET"));
            }
            let rates = rates.ok_or_else(|| {
                bad("give the servers (--servers K or --rates MU1,MU2,...) and --class SET:RATE, or --system")
            })?;
            if a.classes.is_empty() {
                return Err(bad("give at least one --class SET:RATE"));
            }
            let k = rates.len();
            let classes = a
                .classes
                .iter()
                .map(|c| System::parse_class(c, k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad)?;
            System::new(rates, classes).map_err(bad)
        }
    }
}

fn policy_of(a: &SystemArgs) -> Result<Policy, (i32, String)> {
    Policy::parse(&a.policy, a.preemptive).map_err(bad)
}

fn count(what: &str, s: &str, min: u64) -> Result<u64, (i32, String)> {
    crate::num::parse_count(s, what, min, u64::MAX / 4).map_err(bad)
}

fn run_exact(a: ExactArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let r = exact(&sys, policy, digits).map_err(fail)?;
    let mut rec = exact_record(&sys, &r);
    if r.digits < digits {
        rec.text(
            "note",
            format!(
                "only {} of the {digits} requested significant digits are certified ({})",
                r.digits,
                if r.method.starts_with("product") {
                    "two precisions agree on them"
                } else {
                    "two truncations agree on them; a chain is solved in f64"
                }
            ),
        );
    }
    Ok(render(&rec, a.format))
}

fn run_simulate(a: SimulateArgs) -> Outcome {
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let copies = Copies::parse(&a.copies).map_err(bad)?;
    let jobs = count("jobs", &a.jobs, 1)?;
    let warmup = match &a.warmup {
        Some(w) => count("warmup", w, 0)?,
        None => jobs / DEFAULT_WARMUP_FRACTION,
    };
    let replications = usize::try_from(a.replications)
        .ok()
        .filter(|r| *r >= MIN_REPLICATIONS)
        .ok_or_else(|| {
            bad(format!(
                "replications must be at least {MIN_REPLICATIONS} (a confidence interval needs two), got {}",
                a.replications
            ))
        })?;
    if a.threads == Some(0) {
        return Err(bad("threads must be at least 1"));
    }
    let req = SimRequest {
        sys: &sys,
        policy,
        copies,
        dist: &dist,
        jobs,
        warmup,
        replications,
        seed: a.seed,
        point: 0,
        threads: a.threads,
    };
    let region = fcfs_region(&sys, crate::num::working_bits(REGION_DIGITS)).map_err(fail)?;
    let r = simulate(&req, None).map_err(fail)?;
    Ok(render(&simulate_record(&req, &r, Some(&region)), a.format))
}

fn run_stability(a: StabilityArgs) -> Outcome {
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let copies = Copies::parse(&a.copies).map_err(bad)?;
    let horizon = match &a.horizon {
        Some(h) => count("horizon", h, 100)?,
        None => DEFAULT_HORIZON,
    };
    let replications = match a.replications {
        Some(r) => usize::try_from(r)
            .ok()
            .filter(|r| *r >= MIN_REPLICATIONS)
            .ok_or_else(|| {
                bad(format!(
                    "replications must be at least {MIN_REPLICATIONS}, got {r}"
                ))
            })?,
        None => DEFAULT_DRIFT_REPLICATIONS,
    };
    if a.threads == Some(0) {
        return Err(bad("threads must be at least 1"));
    }
    let exp_iid = dist.family() == "exp" && copies == Copies::Iid;
    let exact_applies = exp_iid && policy.has_product_form() && !a.simulate;
    // The exact region (certified) where exponential i.i.d. copies make it meaningful.
    let region = if exp_iid {
        let c = Certify::digits(REGION_DIGITS);
        let both = c.run(|bits| fcfs_region(&sys, bits)).map_err(fail)?;
        let limit = both.certify(REGION_DIGITS, |r| &r.scale_limit);
        Some((limit, both.hi))
    } else {
        None
    };
    let estimate = if exact_applies {
        None
    } else {
        let opts = EstimateOptions {
            horizon,
            replications,
            seed: a.seed,
            threads: a.threads,
            ..EstimateOptions::default()
        };
        Some(estimate_scale_limit(&sys, policy, copies, &dist, &opts).map_err(fail)?)
    };
    let findings = StabilityFindings {
        sys: &sys,
        policy,
        copies,
        dist: &dist,
        region: region.as_ref().map(|(l, r)| (l.clone(), r)),
        exact_applies,
        estimate: estimate.as_ref(),
    };
    Ok(render(&stability_record(&findings), a.format))
}

/// Runs `redundancy …`.
pub(super) fn run_redundancy(a: RedundancyArgs) -> Outcome {
    match a.command {
        RedundancyCommand::Exact(x) => run_exact(x),
        RedundancyCommand::Simulate(x) => run_simulate(x),
        RedundancyCommand::Stability(x) => run_stability(x),
    }
}
