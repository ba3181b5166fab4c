//! `redundancy exact|simulate|stability`: argument parsing for [`crate::redundancy`]; the
//! records are built by [`crate::report::redundancy`].

use super::run_args::JobRunArgs;
use super::{bad, comma_list, fail, render, Format, Outcome};
use crate::dist::aging::classify;
use crate::dist::DistSpec;
use crate::num::{check_digits, DEFAULT_DIGITS};
use crate::redundancy::classes::{ClassSystem, PRESETS};
use crate::redundancy::exact::{exact_limited, exact_methods_apply, exact_rigorous};
use crate::redundancy::policy::{Copies, Policy};
use crate::redundancy::run::{simulate, RedundancySimRequest, DEFAULT_RUN};
use crate::redundancy::stability::{
    certified_region, stability, EstimateOptions, DEFAULT_DRIFT_REPLICATIONS, DEFAULT_HORIZON,
};
use crate::redundancy::MAX_CHAIN_STATES;
use crate::report::redundancy::{
    exact_record, exact_rigorous_record, simulate_record, stability_record, StabilityFindings,
};
use crate::sim::warmup::Knobs;
use crate::sim::DEFAULT_SEED;
use clap::{Args, Subcommand};

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
        match self.command {
            RedundancyCommand::Simulate(_) => Some("redundancy simulate"),
            RedundancyCommand::Exact(_) => Some("redundancy exact"),
            RedundancyCommand::Stability(_) => None,
        }
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
    /// prints at most 13).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Most states of a chain's truncation (its memory: 2e6 states take about 1 GB); a
    /// truncation the digits need beyond it fails, or the proof stops with the digits it has.
    #[arg(long, value_name = "N", default_value_t = MAX_CHAIN_STATES as i64, allow_hyphen_values = true)]
    max_states: i64,
    /// Proven enclosures of the FCFS product form (interval arithmetic with outward
    /// rounding): every number K with K_lo and K_hi, and proven_digits. Other policies are
    /// truncated chains solved in f64 and are refused (their mean_number_lo/_hi, printed
    /// without it, enclose them by a proven truncation bound).
    #[arg(long)]
    rigorous: bool,
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
    #[command(flatten)]
    run: JobRunArgs,
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
    #[arg(long, value_name = "N", default_value_t = DEFAULT_HORIZON.to_string(), allow_hyphen_values = true)]
    horizon: String,
    /// Replications per scale of the drift test (>= 2).
    #[arg(long, value_name = "R", default_value_t = DEFAULT_DRIFT_REPLICATIONS as i64, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Worker threads.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// The system the options describe.
fn system_of(a: &SystemArgs) -> Result<ClassSystem, (i32, String)> {
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
            Some(ClassSystem::unit_rates(k as usize))
        }
        (None, Some(r)) => Some(comma_list(r)),
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
                ClassSystem::from_toml(&text, name).map_err(bad)?
            } else if !ClassSystem::is_preset(name) {
                return Err(bad(format!(
                    "--system {name}: no preset of that name (presets: {PRESETS}) and no system file of that name"
                )));
            } else {
                match a.lambdas.as_deref() {
                    Some(l) => ClassSystem::preset(name, &comma_list(l)).map_err(bad)?,
                    // The preset's own message: how many rates it needs.
                    None => {
                        return Err(ClassSystem::preset(name, &[])
                            .err()
                            .map_or_else(|| bad(format!("--system {name} needs --lambdas")), bad))
                    }
                }
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
                .map(|c| ClassSystem::parse_class(c, k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad)?;
            ClassSystem::new(rates, classes).map_err(bad)
        }
    }
}

fn policy_of(a: &SystemArgs) -> Result<Policy, (i32, String)> {
    Policy::parse(&a.policy, a.preemptive).map_err(bad)
}

fn count(what: &str, s: &str) -> Result<u64, (i32, String)> {
    crate::num::parse_count(s, what, 0, u64::MAX).map_err(bad)
}

fn run_exact(a: ExactArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let max_states = crate::num::check_max_states(a.max_states).map_err(bad)?;
    if a.rigorous {
        let m = exact_rigorous(&sys, policy, digits).map_err(fail)?;
        return Ok(render(
            &exact_rigorous_record(&sys, policy, &m, digits),
            a.format,
        ));
    }
    let r = exact_limited(&sys, policy, digits, max_states).map_err(fail)?;
    Ok(render(&exact_record(&sys, &r, digits), a.format))
}

fn run_simulate(a: SimulateArgs) -> Outcome {
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let copies = Copies::parse(&a.copies).map_err(bad)?;
    let req = RedundancySimRequest {
        sys: &sys,
        policy,
        copies,
        dist: &dist,
        run: a.run.options(DEFAULT_RUN, 0)?,
    };
    let region = certified_region(&sys, REGION_DIGITS).map_err(fail)?;
    let exact_methods = exact_methods_apply(&dist, copies).map_err(fail)?;
    let r = simulate(&req, None).map_err(fail)?;
    let jobs = match r.length {
        crate::sim::Length::Jobs { measured, .. } => measured,
        crate::sim::Length::Time { .. } => 0,
    };
    super::heavy_tail_notes(&r.tail, &r.run.heavy_tail);
    let class = classify(&dist);
    let rec = simulate_record(&req, &r, Some(&region.region), exact_methods, &class);
    // A run the record calls unstable is not stationary by definition and its answer is
    // `stable: false`: its failed diagnostics are in the record's notes, not on stderr
    // nor an error.
    if rec.get("stable") != Some(&serde_json::Value::Bool(false)) {
        super::diagnostics_gate(&r.diagnostics, &Knobs::CLI_JOBS, jobs as f64)?;
    }
    Ok(render(&rec, a.format))
}

fn run_stability(a: StabilityArgs) -> Outcome {
    let sys = system_of(&a.system)?;
    let policy = policy_of(&a.system)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let copies = Copies::parse(&a.copies).map_err(bad)?;
    let horizon = count("horizon", &a.horizon)?;
    let replications = usize::try_from(a.replications)
        .map_err(|_| bad(crate::sim::bad_replications(a.replications)))?;
    let opts = EstimateOptions {
        horizon,
        replications,
        seed: a.seed,
        threads: a.threads,
        ..EstimateOptions::default()
    };
    let found = stability(
        &sys,
        policy,
        copies,
        &dist,
        a.simulate,
        &opts,
        REGION_DIGITS,
    )
    .map_err(fail)?;
    let findings = StabilityFindings {
        sys: &sys,
        policy,
        copies,
        dist: &dist,
        found: &found,
        class: &classify(&dist),
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
