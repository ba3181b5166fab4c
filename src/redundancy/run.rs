//! A redundancy simulation as the command line and the claims ask for it: the request in
//! the model's vocabulary (system, policy, copy model, service law, run length), the one
//! runner both call ([`simulate`]), and what it reports (the replications, the drift of
//! the number in system, the wall time and the engine that ran).

use super::classes::System;
use super::policy::{Copies, Policy};
use super::sim::{drift, RedundancySim, RedundancyTally};
use super::RedundancyError;
use crate::dist::{DistFactory, DistSpec};
use crate::sim::stats::Estimate;
use crate::sim::{Length, Progress, Replicated, RunOptions, DEFAULT_JOBS};

/// A simulation as asked.
#[derive(Debug, Clone)]
pub struct SimRequest<'a> {
    /// The system.
    pub sys: &'a System,
    /// The policy.
    pub policy: Policy,
    /// The copy model.
    pub copies: Copies,
    /// The service law of the requirements.
    pub dist: &'a DistSpec,
    /// Jobs (measured and warm-up), replications, seed, point, threads ([`DEFAULT_RUN`]
    /// unless the caller says otherwise).
    pub run: RunOptions,
}

/// The defaults of a redundancy simulation, on the command line and in the claims:
/// [`crate::sim::DEFAULT_JOBS`] measured jobs after a tenth as many discarded,
/// [`crate::sim::DEFAULT_REPLICATIONS`] replications, seed [`crate::sim::DEFAULT_SEED`],
/// point 0, from empty.
pub const DEFAULT_RUN: RunOptions = RunOptions::new(Length::jobs(DEFAULT_JOBS));

/// A simulation's results.
#[derive(Debug, Clone)]
pub struct SimReport {
    /// The replications and their estimates.
    pub run: Replicated<RedundancyTally>,
    /// Wall time of the replications.
    pub seconds: f64,
    /// Jobs simulated (warm-up included) per second of wall time.
    pub jobs_per_second: f64,
    /// Events per second of wall time.
    pub events_per_second: f64,
    /// The drift of the number in system per arrival over the measurement windows.
    pub drift: Estimate,
    /// How the replications were run ([`RedundancySim::method`]).
    pub method: &'static str,
}

/// Runs the simulation of `req`: the one runner of the redundancy simulator (the
/// `redundancy simulate` command and the claims call it).
pub fn simulate(
    req: &SimRequest,
    progress: Option<Progress>,
) -> Result<SimReport, RedundancyError> {
    req.run.validate()?;
    let (jobs, warmup) = req.run.jobs("redundancy")?;
    req.run.require_empty_start("redundancy")?;
    let d = req
        .dist
        .build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
    let sim = RedundancySim::new(req.sys, req.policy, req.copies, d.as_ref(), jobs, warmup)?;
    let rep = req.run.replicator()?;
    let t0 = std::time::Instant::now();
    let run = rep.run(&sim, progress)?;
    // A floor on the measured time (1 ns, the clock's resolution), so a run too short to
    // time gives a large finite rate instead of a division by zero.
    const CLOCK_RESOLUTION_SECONDS: f64 = 1e-9;
    let seconds = t0.elapsed().as_secs_f64().max(CLOCK_RESOLUTION_SECONDS);
    let jobs = run.tallies.iter().map(|t| t.arrivals as f64).sum::<f64>();
    let drift = drift(&run.tallies, None);
    Ok(SimReport {
        events_per_second: run.events as f64 / seconds,
        jobs_per_second: jobs / seconds,
        seconds,
        run,
        drift,
        method: sim.method(),
    })
}
