//! `simulate`: argument parsing for the dispatch simulators of [`crate::sim::dispatch`];
//! the record is built by [`crate::report::simulate`].

use super::run_args::JobRunArgs;
use super::{bad, comma_list, named, render, FarmArgs, Format, Outcome};
use crate::dist::{DistFactory, DistSpec};
use crate::error::Classify;
use crate::policy::reference::reference_waiting;
use crate::report::simulate::simulate_record;
use crate::sim::dispatch::setup::{run, DispatchSimRequest, DEFAULT_RUN};
use crate::sim::dispatch::SimPolicy;
use crate::sim::warmup::Knobs;
use crate::sim::SimError;
use clap::Args;

/// Options of `simulate`.
#[derive(Args, Debug)]
pub(super) struct SimulateArgs {
    /// Routing policy: sita/tags (with cutoffs), random, rr (round-robin), lwl
    /// (least-work-left = M/G/h central queue), jsq (join-the-shortest-queue).
    #[arg(long, value_parser = named::<SimPolicy>())]
    policy: SimPolicy,
    #[command(flatten)]
    farm: FarmArgs,
    /// The h-1 interior cutoffs s1 < ... < s_{h-1} (sita, tags).
    #[arg(
        long,
        value_name = "S1,S2,...",
        allow_hyphen_values = true,
        default_value = ""
    )]
    cutoffs: String,
    #[command(flatten)]
    run: JobRunArgs,
    /// Point coordinate of the streams (default 0); `sweep` sets it to the point's key,
    /// so a sweep point's numbers depend on nothing but the point.
    #[arg(long, value_name = "K", default_value_t = 0)]
    point: u64,
    /// Renewal arrivals: inter-arrival distribution (rescaled to mean 1/lambda); default Poisson.
    #[arg(long, value_name = "SPEC")]
    interarrival: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Bytes per host and replication a simulation is planned to hold (kernel state and
/// statistics; an upper estimate for the memory bound of `simulate`).
pub(crate) const SIM_BYTES_PER_HOST: u64 = 512;

/// A simulator's error with the exit status of its kind (bad input 2, else 3).
fn failed(e: SimError) -> (i32, String) {
    (e.kind().exit_code(), e.to_string())
}

pub(super) fn run_simulate(a: SimulateArgs) -> Outcome {
    let (hosts, dist, load) = a.farm.resolve()?;
    let opts = a.run.options(DEFAULT_RUN, a.point)?;
    let replications = opts.replications;
    // Per host and replication: the kernel's state and the host's statistics (a generous
    // estimate); 10^12 hosts would abort in the allocator (exit 134) without this check.
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
    let interarrival = match &a.interarrival {
        Some(s) => Some(DistSpec::parse(s).map_err(bad)?),
        None => None,
    };
    let cutoffs = comma_list(&a.cutoffs);
    let req = DispatchSimRequest {
        policy: a.policy,
        dist: &dist,
        hosts,
        load,
        cutoffs,
        interarrival: interarrival.as_ref().map(|d| d as &dyn DistFactory),
        run: opts,
    };
    let (prep, res) = run(&req, None).map_err(failed)?;
    let (jobs, _) = prep.config.run.jobs("dispatch").map_err(failed)?;
    super::diagnostics_gate(&res.diagnostics, &Knobs::CLI_JOBS, jobs as f64)?;
    super::heavy_tail_notes(&prep.tail, &res.heavy_tail);
    // The formulas assume Poisson arrivals: renewal arrivals have no reference.
    let reference = match req.interarrival {
        None => reference_waiting(
            a.policy.routing(),
            &dist,
            &prep.lambda,
            hosts,
            &prep.cutoffs,
        )
        .map_err(|e| failed(e.into()))?,
        Some(_) => None,
    };
    let rec = simulate_record(&req, &prep, &res, reference.as_ref()).map_err(failed)?;
    Ok(render(&rec, a.format))
}
