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
use crate::sim::{Progress, Replicated, Replicator};

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
    /// Measured jobs per replication.
    pub jobs: u64,
    /// Discarded jobs per replication.
    pub warmup: u64,
    /// Replications.
    pub replications: usize,
    /// Base seed.
    pub seed: u64,
    /// Sweep point (the stream coordinate).
    pub point: u64,
    /// Worker threads (`None`: rayon's pool).
    pub threads: Option<usize>,
}

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

/// Runs the simulation of `req`.
pub fn simulate(
    req: &SimRequest,
    progress: Option<Progress>,
) -> Result<SimReport, RedundancyError> {
    let d = req
        .dist
        .build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
    let sim = RedundancySim::new(
        req.sys,
        req.policy,
        req.copies,
        d.as_ref(),
        req.jobs,
        req.warmup,
    )?;
    let mut rep = Replicator::new(req.seed, req.point, req.replications)?;
    if let Some(t) = req.threads {
        rep = rep.threads(t);
    }
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
