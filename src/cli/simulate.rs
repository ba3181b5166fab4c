//! `simulate`: argument parsing for the dispatch simulators of [`crate::sim::dispatch`];
//! the record is built by [`crate::report::simulate`].

use super::{bad, hosts_of, load_of, named, render, Format, LoadArgs, Outcome};
use crate::dist::{DistFactory, DistSpec};
use crate::error::Classify;
use crate::report::simulate::simulate_record;
use crate::sim::dispatch::setup::{prepare, SimRequest};
use crate::sim::dispatch::SimPolicy;
use crate::sim::{SimError, DEFAULT_REPLICATIONS, DEFAULT_WARMUP_FRACTION, MIN_REPLICATIONS};
use clap::Args;

/// Default measured jobs per replication.
const DEFAULT_JOBS: &str = "1000000";
/// Largest job count accepted in floating-point notation (`1e6`): below 2^64 ≈ 1.845e19,
/// so every integer-valued f64 under it converts to u64 exactly.
const MAX_FLOAT_COUNT: f64 = 1.8e19;

/// Options of `simulate`.
#[derive(Args, Debug)]
pub(super) struct SimulateArgs {
    /// Routing policy: sita/tags (with cutoffs), random, rr (round-robin), lwl
    /// (least-work-left = M/G/h central queue), jsq (join-the-shortest-queue).
    #[arg(long, value_parser = named::<SimPolicy>())]
    policy: SimPolicy,
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Number of hosts h >= 1 (e.g. 4, 1000000 or 1e6).
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    hosts: String,
    #[command(flatten)]
    load: LoadArgs,
    /// The h-1 interior cutoffs s1 < ... < s_{h-1} (sita, tags).
    #[arg(
        long,
        value_name = "S1,S2,...",
        allow_hyphen_values = true,
        default_value = ""
    )]
    cutoffs: String,
    /// Measured jobs per replication (an integer, e.g. 1000000 or 1e6).
    #[arg(long, value_name = "N", default_value = DEFAULT_JOBS, allow_hyphen_values = true)]
    jobs: String,
    /// Independent replications (>= 2), run in parallel.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPLICATIONS as i64, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed: replication r of this run uses streams seeded from (seed, point, r).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Point coordinate of the streams (default 0); `sweep` sets it to the point's key,
    /// so a sweep point's numbers depend on nothing but the point.
    #[arg(long, value_name = "K", default_value_t = 0)]
    point: u64,
    /// Jobs discarded at the start of each replication (default: jobs/10).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Renewal arrivals: inter-arrival distribution (rescaled to mean 1/lambda); default Poisson.
    #[arg(long, value_name = "SPEC")]
    interarrival: Option<String>,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// A job count: a non-negative integer, also written like 1e6.
fn count(what: &str, s: &str, min: u64) -> Result<u64, (i32, String)> {
    let t = s.trim();
    let v = if let Ok(v) = t.parse::<u64>() {
        Some(v)
    } else {
        t.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x < MAX_FLOAT_COUNT)
            .map(|x| x as u64)
    };
    match v {
        Some(v) if v >= min => Ok(v),
        _ => Err(bad(format!(
            "{what} must be an integer >= {min} (e.g. 1000000 or 1e6), got '{s}'"
        ))),
    }
}

/// Bytes per host and replication a simulation is planned to hold (kernel state and
/// statistics; an upper estimate for the memory bound of `simulate`).
pub const SIM_BYTES_PER_HOST: u64 = 512;

/// A simulator's error with the exit status of its kind (bad input 2, else 3).
fn failed(e: SimError) -> (i32, String) {
    (e.kind().exit_code(), e.to_string())
}

pub(super) fn run_simulate(a: SimulateArgs) -> Outcome {
    let hosts = hosts_of(&a.hosts)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let load = load_of(a.load)?;
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
    // Per host and replication: the kernel's state and the host's statistics (a generous
    // estimate); 10^12 hosts would abort in the allocator (issue 14, item 3).
    crate::policy::budget::check_hosts(
        "a simulation",
        hosts,
        "per-host state and statistics in every replication",
        |h| {
            (h as u64)
                .saturating_mul(SIM_BYTES_PER_HOST)
                .saturating_mul(replications as u64)
        },
    )
    .map_err(bad)?;
    if a.threads == Some(0) {
        return Err(bad("threads must be at least 1"));
    }
    let interarrival = match &a.interarrival {
        Some(s) => Some(DistSpec::parse(s).map_err(bad)?),
        None => None,
    };
    let cutoffs: Vec<String> = a
        .cutoffs
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let req = SimRequest {
        policy: a.policy,
        dist: &dist,
        hosts,
        load,
        cutoffs,
        interarrival: interarrival.as_ref().map(|d| d as &dyn DistFactory),
        jobs,
        warmup,
        replications,
        seed: a.seed,
        point: a.point,
    };
    let prep = prepare(&req).map_err(failed)?;
    let res = prep.run(a.threads, None).map_err(failed)?;
    let rec = simulate_record(&req, &prep, &res).map_err(failed)?;
    Ok(render(&rec, a.format))
}
