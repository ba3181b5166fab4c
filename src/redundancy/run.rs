//! A redundancy simulation as the command line and the claims ask for it: the request in
//! the model's vocabulary (system, policy, copy model, service law, run length), the one
//! runner both call ([`simulate`]), and what it reports (the replications, the drift of
//! the number in system, the diagnostics of initialisation bias and length, the wall time
//! and the engine that ran).

use super::classes::ClassSystem;
use super::policy::{Copies, Policy};
use super::sim::{drift, RedundancySim, RedundancyTally};
use super::RedundancyError;
use crate::dist::{DistFactory, DistSpec};
use crate::sim::dispatch::setup::{tail_length, unseen_second_moment_share, TailLength};
use crate::sim::observe::names;
use crate::sim::stats::Estimate;
use crate::sim::warmup::Diagnostics;
use crate::sim::{Length, LengthRule, Progress, Replicated, RunOptions, DEFAULT_JOBS};

/// A simulation as asked.
#[derive(Debug, Clone)]
pub struct RedundancySimRequest<'a> {
    /// The system.
    pub sys: &'a ClassSystem,
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
/// [`crate::sim::DEFAULT_JOBS`] measured jobs after a tenth as many discarded (MSER-5's
/// truncation point reported and the run's stationarity tested: [`crate::sim::warmup`]),
/// lengthened where the law's fourth moment asks for it (`LengthRule::HeavyTail`, as the
/// dispatch runner's), [`crate::sim::DEFAULT_REPLICATIONS`] replications, seed [`crate::sim::DEFAULT_SEED`],
/// point 0, from empty.
pub const DEFAULT_RUN: RunOptions =
    RunOptions::new(Length::jobs(DEFAULT_JOBS)).with_length_rule(LengthRule::HeavyTail {
        warmup_follows: true,
    });

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
    /// The warm-up rule's work, the stationarity test of the response time, the fewest
    /// jobs a replication measured.
    pub diagnostics: Diagnostics,
    /// Why the run was stopped before its measured jobs had all left (a starving class
    /// or an overload: the system is unstable under the policy), in words.
    pub starved: Option<String>,
    /// The length the replications ran (measured jobs and warm-up), after the
    /// fourth-moment length rule.
    pub length: Length,
    /// What the fourth-moment length rule did.
    pub tail: TailLength,
}

/// Runs the simulation of `req`: the one runner of the redundancy simulator (the
/// `redundancy simulate` command and the claims call it).
pub fn simulate(
    req: &RedundancySimRequest,
    progress: Option<Progress>,
) -> Result<SimReport, RedundancyError> {
    req.run.validate()?;
    let (jobs, warmup) = req.run.jobs("redundancy")?;
    req.run.require_empty_start("redundancy")?;
    // An arrival and a completion per job, and the run's drain.
    req.run.check_budget(
        2.0 * (jobs as f64 + warmup as f64),
        "--jobs, --replications",
    )?;
    let d = req
        .dist
        .build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
    // The fourth-moment rule on the law of a copy's requirement (as the second-moment
    // one: the law a server works through), which may lengthen the replications.
    let (opts, tail) = tail_length(d.as_ref(), &req.run, 2.0, "redundancy")?;
    let (jobs, warmup) = opts.jobs("redundancy")?;
    let sim = RedundancySim::new(req.sys, req.policy, req.copies, d.as_ref(), jobs, warmup)?;
    let rep = opts.replicator()?;
    let t0 = std::time::Instant::now();
    let mut run = rep.run(&sim, progress)?;
    // A replication stopped because its measured jobs did not all leave: the system is
    // unstable (or a class starves) under the policy. The record says so (`stable`
    // false) instead of an interval of the jobs that happened to leave.
    let starved = run
        .tallies
        .iter()
        .enumerate()
        .find_map(|(r, t)| t.stopped.map(|why| (r, t.unfinished, why)))
        .map(|(r, unfinished, why)| {
            format!(
                "the system does not empty under {}: in replication {r}, {unfinished} of the {jobs} measured jobs had not left when the run was stopped ({why}); a class starves or the load exceeds what the policy serves",
                req.policy.name()
            )
        });
    // The a-priori heavy-tail rule of the law's second moment (as the dispatch runner's).
    if let Ok(share) = unseen_second_moment_share(d.as_ref(), jobs) {
        run.heavy_tail = run.heavy_tail.clone().with_unseen_share(share);
    }
    run.heavy_tail = run
        .heavy_tail
        .clone()
        .with_unseen_fourth_share(tail.share_run, tail.needed);
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
        drift,
        method: sim.method(),
        diagnostics: Diagnostics::of(&run, names::RESPONSE),
        starved,
        length: opts.length,
        tail,
        run,
    })
}
