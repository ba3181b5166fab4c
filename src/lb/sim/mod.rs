//! Simulators of the N-server JSQ(d) system: the occupancy simulator (the fast one) and a
//! plain per-server simulator (the cross-check).
//!
//! **Occupancy simulator** ([`OccupancySim`]). The state is the occupancy Q_0 = N ≥ Q_1 ≥
//! Q_2 ≥ … (servers with at least i tasks), which is a Markov chain because servers are
//! exchangeable. Events come at rate λN + D, D the departure rate (Q_1 for queues, the
//! number of tasks Σ_i Q_i for pools: a pool with i tasks completes at rate i). One
//! uniform u ∈ [0, λN + D) decides the event and, rescaled, its detail:
//! * **arrival** (u < λN): w = u/λN is uniform on [0, 1); the task joins a server of
//!   length v = max{i : P(min ≥ i) > w}, where P(min of the d sampled ≥ i) = p(Q_i) with
//!   p(k) = C(k, d)/C(N, d) without replacement and (k/N)^d with — a table of p built once
//!   per system in O(N) ([`crate::lb::model::tail_table`]), so an arrival costs one lookup
//!   per level scanned from the bottom, whatever d: O(1 + v), with v within a level or
//!   two of the shortest queue for any d ≥ 2. A task sent to a full server (v = b) is
//!   discarded.
//! * **departure**: w = u − λN is uniform on [0, D). Queues: the busy servers ordered by
//!   decreasing length, the one at index ⌊w⌋ has length max{i : Q_i > w}. Pools: each
//!   pool with i tasks weighs i, the cumulative weights Σ_{j ≤ i} j (Q_j − Q_{j+1}) are
//!   scanned from level 1. Either way Q_i of the chosen length i drops by one.
//!
//! Each event changes one Q_i, so time integrals are kept lazily: ∫Q_i dt and ∫Q_i² dt
//! are advanced only for the level that changes, O(1) per event. There is no allocation
//! in the event loop (the level arrays grow, rarely, when a new top level is reached).
//! Exponential gaps use the ziggurat ([`crate::sim::rng::exp1`]): two 64-bit draws per
//! event in all.
//!
//! **Per-server simulator** ([`PerServerSim`]): each server keeps its own count; an
//! arrival draws d servers (a partial Fisher–Yates shuffle without replacement, d
//! independent draws with), takes the first minimum among them (the sample's order is
//! uniformly random, so ties are broken uniformly), a departure picks a busy server (a
//! pool by its weight) by a linear scan. O(d + N) per event: for small N only, as an
//! independent implementation to test the occupancy one against.
//!
//! **Replications.** Both simulators implement [`crate::sim::Simulator`]: one
//! replication is a function of (system, plan) and the replication's
//! [`crate::sim::Streams`] (stream [`STREAM_EVENTS`] for the occupancy simulator's gaps and
//! choices, [`STREAM_SAMPLES`] for the per-server simulator's draws), and its sums ([`Obs`])
//! are a [`crate::sim::Tally`] of named observables ([`names`]): `occupancy[i]` (q_{i+1}),
//! `mean_tasks`, `blocking`, the diffusion-scaled occupancy, `distance` and `distance_own_fixed_point` (when the plan
//! gives a reference occupancy). [`crate::sim::Replicator`] runs the replications in
//! parallel and combines them in replication order into Student-t estimates with 95 %
//! half-widths, so the numbers do not depend on the thread count; [`summarize`] reads them
//! by name. Every replication runs for the same measured time, so a time average is the
//! plain mean of the replications' averages.
//!
//! **Reported levels.** Every replication reports the same keys (the runner's rule), so the
//! number of levels reported is fixed by the plan: the capacity, or
//! [`MAX_REPORTED_LEVELS`] for an infinite one. Tasks above the reported levels are not
//! lost: `mean_tasks` integrates the task count itself, and `levels_beyond` the tasks
//! above the last reported level (0 unless a queue grew longer than that).

mod occupancy;
mod per_server;
pub use occupancy::OccupancySim;
pub use per_server::PerServerSim;

use super::fixed_point::{fixed_point, jsq_reference};
use super::fluid::Limit;
use super::model::{JsqSystem, LbError};
use crate::sim::observe::{Key, Sample};
use crate::sim::stats::{ratio_estimate, Estimate};
use crate::sim::warmup::{relaxation, Diagnostics, Relaxation, Series, WarmupRule};
use crate::sim::{
    Length, LengthRule, Progress, Replicated, Replicator, RunOptions, Simulator, Start, Tally,
    DEFAULT_REPLICATIONS, DEFAULT_SEED, DEFAULT_WARMUP_FRACTION,
};

/// The stream of the occupancy simulator's events (gaps and choices).
pub const STREAM_EVENTS: u64 = 0;
/// The stream of the per-server simulator's server draws.
pub const STREAM_SAMPLES: u64 = 1;
/// Most servers the per-server simulator accepts (it scans all servers per departure).
pub const PER_SERVER_MAX: u64 = 100_000;
/// Levels reported for an infinite capacity (every replication reports the same keys):
/// far above any occupied level of a stable system at the loads the tool is used at; the
/// tasks above it are reported as `levels_beyond`.
pub const MAX_REPORTED_LEVELS: usize = 256;

/// The names of the observables of both simulators (the keys of their tallies).
pub mod names {
    /// q_{i+1}, the time-average fraction of servers with at least i + 1 tasks
    /// (`occupancy[i]`).
    pub use crate::sim::observe::names::OCCUPANCY;
    /// Time-average tasks per server.
    pub const MEAN_TASKS: &str = "mean_tasks";
    /// Fraction of arrivals discarded.
    pub const BLOCKING: &str = "blocking";
    /// Time averages of (N − Q_1)/√N, then Q_i/√N for i ≥ 2 (`scaled_occupancy[i]`).
    pub const SCALED_OCCUPANCY: &str = "scaled_occupancy";
    /// Time averages of their squares.
    pub const SCALED_OCCUPANCY_SQ: &str = "scaled_occupancy_sq";
    /// The standard deviation of (N − Q_1)/√N over the measured time, per replication.
    pub const SCALED_IDLE_SD: &str = "scaled_idle_sd";
    /// Time average of Σ_i |Q_i/N − r_i| for the plan's reference occupancy r (JSQ's
    /// fluid fixed point, in a run of [`super::run`]).
    pub const DISTANCE: &str = "distance";
    /// Time average of Σ_i |Q_i/N − o_i| for the plan's second reference o (the mean-field
    /// fixed point of the d used, in a run of [`super::run`]).
    pub const DISTANCE_OWN: &str = "distance_own_fixed_point";
    /// Time-average tasks per server above the last reported level.
    pub const LEVELS_BEYOND: &str = "levels_beyond";
}

/// What one replication simulates.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Simulated time discarded at the start.
    pub warmup: f64,
    /// Measured time after the warm-up.
    pub horizon: f64,
    /// Times (from 0, non-decreasing) at which the occupancy is recorded.
    pub sample_times: Vec<f64>,
    /// The start: Q_1, Q_2, … (non-increasing, at most N; missing levels 0). Empty is the
    /// empty system.
    pub start: Vec<u32>,
    /// A reference occupancy r_1, r_2, … (missing levels 0): when not empty, the time
    /// average of the ℓ1 distance Σ_i |Q_i/N − r_i| is measured (`distance`).
    pub reference: Vec<f64>,
    /// A second reference o_1, o_2, … (missing levels 0): when not empty, the time average
    /// of Σ_i |Q_i/N − o_i| is measured too (`distance_own_fixed_point`).
    pub own_reference: Vec<f64>,
}

impl Plan {
    /// Warm-up and measured time from an empty start, no samples.
    pub fn new(warmup: f64, horizon: f64) -> Self {
        Plan {
            warmup,
            horizon,
            sample_times: Vec::new(),
            start: Vec::new(),
            reference: Vec::new(),
            own_reference: Vec::new(),
        }
    }

    /// The number of levels every replication reports: the capacity, capped at
    /// [`MAX_REPORTED_LEVELS`].
    pub fn reported_levels(system: &JsqSystem) -> usize {
        system.model().buffer().map_or(MAX_REPORTED_LEVELS, |b| {
            (b as usize).min(MAX_REPORTED_LEVELS)
        })
    }

    fn check(&self, system: &JsqSystem) -> Result<(), LbError> {
        if !(self.warmup.is_finite() && self.warmup >= 0.0) {
            return Err(LbError::BadInput(format!(
                "the warm-up must be finite and >= 0, got {}",
                self.warmup
            )));
        }
        if !(self.horizon.is_finite() && self.horizon > 0.0) {
            return Err(LbError::BadInput(format!(
                "the measured time must be finite and > 0, got {}",
                self.horizon
            )));
        }
        if self
            .sample_times
            .iter()
            .any(|t| !(t.is_finite() && *t >= 0.0))
            || self.sample_times.windows(2).any(|w| w[1] < w[0])
        {
            return Err(LbError::BadInput(
                "sample times must be finite, >= 0 and non-decreasing".into(),
            ));
        }
        let n = system.servers();
        if self.start.iter().any(|&q| u64::from(q) > n)
            || self.start.windows(2).any(|w| w[1] > w[0])
        {
            return Err(LbError::BadInput(
                "a start occupancy must be non-increasing and at most N".into(),
            ));
        }
        if let Some(b) = system.model().buffer() {
            let top = self.start.iter().rposition(|&q| q > 0).map_or(0, |i| i + 1);
            if top > b as usize {
                return Err(LbError::BadInput(format!(
                    "the start has tasks above the capacity {b}"
                )));
            }
        }
        if self
            .reference
            .iter()
            .chain(&self.own_reference)
            .any(|r| !(r.is_finite() && (0.0..=1.0).contains(r)))
        {
            return Err(LbError::BadInput(
                "a reference occupancy must lie in [0, 1]".into(),
            ));
        }
        Ok(())
    }
}

/// The sums of one replication (mergeable: [`Obs::merge`] adds them), a
/// [`crate::sim::Tally`] of the observables of [`names`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Obs {
    /// N, the number of servers simulated.
    pub servers: u64,
    /// Levels reported as `occupancy[i]` (the same for every replication of a run).
    pub reported_levels: usize,
    /// Replications merged in (1 for one replication).
    pub replications: u64,
    /// The length of the measured window (warm-up excluded), in units of the mean service
    /// time (service rate 1), summed over the merged replications.
    pub measured_time: f64,
    /// ∫ Q_i dt over the measured time, index i − 1 for level i (every level reached).
    pub level_time: Vec<f64>,
    /// ∫ (N − Q_1)² dt at index 0 (the idle servers, centred so that the square does not
    /// cancel at large N), ∫ Q_i² dt at index i − 1 ≥ 1.
    pub level_sq_time: Vec<f64>,
    /// ∫ Σ_i |Q_i − N r_i| dt for the plan's reference r (`None` without one).
    pub distance_time: Option<f64>,
    /// ∫ Σ_i |Q_i − N o_i| dt for the plan's second reference o (`None` without one).
    pub own_distance_time: Option<f64>,
    /// Σ over replications of each one's standard deviation of (N − Q_1)/√N over its
    /// measured time.
    pub scaled_idle_sd_sum: f64,
    /// Arrivals in the measured time.
    pub arrivals: u64,
    /// Discarded arrivals in the measured time.
    pub blocked: u64,
    /// Events (arrivals and departures), warm-up included.
    pub events: u64,
    /// Events in the measured time.
    pub measured_events: u64,
    /// Servers sampled (d per arrival), warm-up included.
    pub samples_drawn: u64,
    /// Q_1, Q_2, … at each sample time (summed over merged replications).
    pub trajectory: Vec<Vec<f64>>,
    /// The tasks per server over the whole run (warm-up included) in batches of time
    /// ([`crate::sim::warmup`]); `None` for a simulator that keeps none (and after a merge).
    pub series: Option<Series>,
}

fn add_into(a: &mut Vec<f64>, b: &[f64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0.0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl Obs {
    /// Adds another replication's sums.
    pub fn merge(&mut self, other: &Obs) {
        self.servers = self.servers.max(other.servers);
        self.reported_levels = self.reported_levels.max(other.reported_levels);
        self.replications += other.replications;
        self.measured_time += other.measured_time;
        add_into(&mut self.level_time, &other.level_time);
        add_into(&mut self.level_sq_time, &other.level_sq_time);
        self.distance_time = match (self.distance_time, other.distance_time) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.own_distance_time = match (self.own_distance_time, other.own_distance_time) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.scaled_idle_sd_sum += other.scaled_idle_sd_sum;
        self.arrivals += other.arrivals;
        self.blocked += other.blocked;
        self.events += other.events;
        self.measured_events += other.measured_events;
        self.samples_drawn += other.samples_drawn;
        self.series = None;
        if self.trajectory.len() < other.trajectory.len() {
            self.trajectory.resize(other.trajectory.len(), Vec::new());
        }
        for (a, b) in self.trajectory.iter_mut().zip(&other.trajectory) {
            add_into(a, b);
        }
    }
}

impl Obs {
    /// The standard deviation of (N − Q_1)/√N over the measured time, from the integrals.
    fn scaled_idle_sd(&self) -> f64 {
        let n = self.servers as f64;
        let t = self.measured_time;
        let idle = at(&self.level_time, 0);
        let m1 = (n * t - idle) / t;
        let m2 = at(&self.level_sq_time, 0) / t;
        ((m2 - m1 * m1).max(0.0) / n).sqrt()
    }

    fn finish(mut self) -> Obs {
        self.scaled_idle_sd_sum = self.scaled_idle_sd();
        self
    }
}

fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(0.0)
}

impl Tally for Obs {
    /// Per replication: `occupancy[i]` and `scaled_occupancy[i]`, `scaled_occupancy_sq[i]`
    /// for the reported levels, `mean_tasks`, `levels_beyond`, `blocking`,
    /// `scaled_idle_sd` and, with a reference, `distance` (module docs).
    fn samples(&self, out: &mut Vec<(Key, Sample)>) {
        let n = self.servers as f64;
        let sq = n.sqrt();
        let t = self.measured_time;
        let ev = self.events;
        let levels = self.reported_levels;
        for i in 0..levels {
            out.push((
                Key::at(names::OCCUPANCY, i),
                Sample::per_time(at(&self.level_time, i) / n, t, ev),
            ));
        }
        for i in 0..levels.max(1) {
            let (scaled, scaled_sq) = if i == 0 {
                (
                    (n * t - at(&self.level_time, 0)) / sq,
                    at(&self.level_sq_time, 0) / n,
                )
            } else {
                (at(&self.level_time, i) / sq, at(&self.level_sq_time, i) / n)
            };
            out.push((
                Key::at(names::SCALED_OCCUPANCY, i),
                Sample::per_time(scaled, t, ev),
            ));
            out.push((
                Key::at(names::SCALED_OCCUPANCY_SQ, i),
                Sample::per_time(scaled_sq, t, ev),
            ));
        }
        let tasks: f64 = self.level_time.iter().sum();
        let beyond: f64 = self.level_time.iter().skip(levels).sum();
        out.push((
            Key::scalar(names::MEAN_TASKS),
            Sample::per_time(tasks / n, t, ev),
        ));
        out.push((
            Key::scalar(names::LEVELS_BEYOND),
            Sample::per_time(beyond / n, t, ev),
        ));
        out.push((
            Key::scalar(names::BLOCKING),
            Sample::per_job(self.blocked as f64, self.arrivals),
        ));
        out.push((
            Key::scalar(names::SCALED_IDLE_SD),
            Sample::per_job(self.scaled_idle_sd_sum, self.replications),
        ));
        if let Some(d) = self.distance_time {
            out.push((Key::scalar(names::DISTANCE), Sample::per_time(d / n, t, ev)));
        }
        if let Some(d) = self.own_distance_time {
            out.push((
                Key::scalar(names::DISTANCE_OWN),
                Sample::per_time(d / n, t, ev),
            ));
        }
    }

    fn events(&self) -> u64 {
        self.events
    }

    fn series(&self) -> Option<&Series> {
        self.series.as_ref()
    }

    fn measured(&self) -> Option<u64> {
        Some(self.measured_events)
    }
}

/// Counters of the event loop.
#[derive(Default)]
struct Counts {
    events: u64,
    measured: u64,
    all_arrivals: u64,
    arrivals: u64,
    blocked: u64,
}

/// Estimates over replications, each with its 95 % half-width.
#[derive(Debug, Clone, PartialEq)]
pub struct JsqSummary {
    /// q_i, i = 1, 2, … (time averages of Q_i/N), up to the last level any replication
    /// occupied.
    pub occupancy: Vec<Estimate>,
    /// Time-average tasks per server.
    pub mean_tasks: Estimate,
    /// Fraction of arrivals discarded.
    pub blocking: Estimate,
    /// Time averages of the scaled occupancy: (N − Q_1)/√N, then Q_i/√N for i ≥ 2 (as
    /// many levels as `occupancy`, at least one).
    pub scaled_occupancy: Vec<Estimate>,
    /// Time averages of the squares of the scaled occupancy (for its spread).
    pub scaled_occupancy_sq: Vec<Estimate>,
    /// The standard deviation of (N − Q_1)/√N over the measured time (the mean of the
    /// replications' standard deviations).
    pub scaled_idle_sd: Estimate,
    /// Time average of the ℓ1 distance Σ_i |Q_i/N − r_i| to the plan's reference (`None`
    /// without one).
    pub distance: Option<Estimate>,
    /// Time average of the ℓ1 distance to the plan's second reference (`None` without
    /// one).
    pub distance_own: Option<Estimate>,
    /// Time-average tasks per server above the reported levels (0 unless a queue grew
    /// beyond [`MAX_REPORTED_LEVELS`]).
    pub levels_beyond: Estimate,
    /// Mean of Q_i(τ)/N over replications at each sample time.
    pub trajectory: Vec<Vec<Estimate>>,
    /// Events over all replications (warm-up included).
    pub events: u64,
    /// Servers sampled per arrival (d).
    pub samples_per_arrival: f64,
    /// The independent replications averaged (the half-widths are Student-t over them).
    pub replications: usize,
}

fn per_rep(values: impl Iterator<Item = f64>) -> Estimate {
    let v: Vec<(f64, u64)> = values.map(|x| (x, 1)).collect();
    ratio_estimate(&v)
}

fn named(rep: &Replicated<Obs>, name: &str) -> Result<Estimate, LbError> {
    rep.estimates
        .scalar(name)
        .copied()
        .ok_or_else(|| LbError::Internal(format!("the simulation has no estimate of {name}")))
}

/// Combines the replications of a run (in their order) into estimates, read by name from
/// the runner's [`crate::sim::observe::Estimates`]; the sampled trajectories are averaged
/// from the tallies.
pub fn summarize(system: &JsqSystem, rep: &Replicated<Obs>) -> Result<JsqSummary, LbError> {
    let est = &rep.estimates;
    let reps = &rep.tallies;
    let nf = system.servers() as f64;
    let mut occupancy = est.vector(names::OCCUPANCY);
    // Trailing levels that no replication occupied.
    let reached = reps.iter().map(|o| o.level_time.len()).max().unwrap_or(0);
    occupancy.truncate(reached.max(1));
    let levels = occupancy.len();
    let mut scaled = est.vector(names::SCALED_OCCUPANCY);
    let mut scaled_sq = est.vector(names::SCALED_OCCUPANCY_SQ);
    scaled.truncate(levels.max(1));
    scaled_sq.truncate(levels.max(1));
    let samples = reps.iter().map(|o| o.trajectory.len()).max().unwrap_or(0);
    let trajectory = (0..samples)
        .map(|k| {
            let lv = reps
                .iter()
                .filter_map(|o| o.trajectory.get(k).map(Vec::len))
                .max()
                .unwrap_or(0);
            (0..lv)
                .map(|i| {
                    per_rep(reps.iter().map(|o| {
                        o.trajectory
                            .get(k)
                            .map_or(0.0, |s| s.get(i).copied().unwrap_or(0.0) / nf)
                    }))
                })
                .collect()
        })
        .collect();
    Ok(JsqSummary {
        occupancy,
        mean_tasks: named(rep, names::MEAN_TASKS)?,
        blocking: named(rep, names::BLOCKING)?,
        scaled_occupancy: scaled,
        scaled_occupancy_sq: scaled_sq,
        scaled_idle_sd: named(rep, names::SCALED_IDLE_SD)?,
        distance: est.scalar(names::DISTANCE).copied(),
        distance_own: est.scalar(names::DISTANCE_OWN).copied(),
        levels_beyond: named(rep, names::LEVELS_BEYOND)?,
        trajectory,
        events: rep.events,
        samples_per_arrival: system.d().d as f64,
        replications: reps.len(),
    })
}

/// Runs `replications` replications of `sim` (streams of `seed` at sweep point `point`,
/// on `threads` threads or rayon's current pool) and summarises them; `progress` is called
/// as replications finish.
pub fn simulate<S: Simulator<Tally = Obs>>(
    system: &JsqSystem,
    sim: &S,
    run: &Replicator,
    progress: Option<crate::sim::Progress>,
) -> Result<(Replicated<Obs>, JsqSummary), LbError> {
    let rep = run.run(sim, progress)?;
    let s = summarize(system, &rep)?;
    Ok((rep, s))
}

/// Measured time per replication of a JSQ simulation unless the caller says otherwise
/// (in mean service times): the first run of the default length rule, which lengthens it
/// to [`RELAXATION_MULTIPLE`] relaxation times where that is longer.
pub const DEFAULT_TIME: f64 = 100.0;

/// Relaxation times (integrated autocorrelation times of the tasks per server,
/// [`crate::sim::warmup::relaxation`]) a replication measures under
/// [`LengthRule::Relaxation`], the default. The Student-t interval over 10 replications
/// needs replication means near normal, and the mean of a queue-length process over a
/// window loses the skewness of its excursions slowly: on the 3-server JSQ(2) chain at
/// λ = 0.8 (τ ≈ 15–20) the replication means had skewness 2.6, 1.3 and 0.75 at time 100,
/// 1000 and 3000 (about 6, 60 and 180 τ), and the intervals covered 89.0, 90.5 and 95.5 %
/// of 200 seeds (tests/coverage.rs; 50 τ, tried first, covered 88.5 %). The warm-up, a
/// tenth of the run, is then at least 20 τ.
pub const RELAXATION_MULTIPLE: f64 = 200.0;

/// Servers of the system on which [`RELAXATION_MULTIPLE`] was measured (the 3-server chain).
const MULTIPLE_SERVERS: f64 = 3.0;

/// Relaxation times a replication of an N-server system measures under the default rule:
/// [`RELAXATION_MULTIPLE`] × √(3/N). The replication mean of the tasks per server averages
/// N servers whose correlation falls as N grows (propagation of chaos), so its skewness
/// falls with N at a fixed T/τ; the √ is the conservative side of the 1/N that independent
/// servers would allow. At N = 1000 (λ = 0.9, d = 2) the default time 100 covered q₁ in
/// 96 % of 200 seeds (README's coverage table), and this rule asks 11 τ there.
pub fn relaxation_multiple(servers: u64) -> f64 {
    RELAXATION_MULTIPLE * (MULTIPLE_SERVERS / servers.max(1) as f64).sqrt()
}

/// Most runs the length rule makes (the first included): each is at least twice as long
/// as the one before.
pub const LENGTH_ROUNDS: usize = 6;

/// The defaults of a JSQ simulation, on the command line (`jsq simulate`) and in the
/// claims (`jsq_sim`, `jsq_excess`): [`DEFAULT_TIME`] measured after a warm-up of a tenth
/// of it (MSER-5's truncation point reported and the run's stationarity tested:
/// [`crate::sim::warmup`]), [`crate::sim::DEFAULT_REPLICATIONS`] replications, seed
/// [`crate::sim::DEFAULT_SEED`], point 0, each replication started at N times the
/// mean-field fixed point of the d used ([`fixed_point_start`]), the measured time
/// lengthened to [`RELAXATION_MULTIPLE`] relaxation times of the run where those are
/// longer ([`LengthRule::Relaxation`], the warm-up following at a tenth).
pub const DEFAULT_RUN: RunOptions = RunOptions {
    length: Length::Time {
        measured: DEFAULT_TIME,
        warmup: DEFAULT_TIME / DEFAULT_WARMUP_FRACTION as f64,
    },
    warmup_rule: WarmupRule::Given,
    length_rule: LengthRule::Relaxation {
        warmup_follows: true,
    },
    replications: DEFAULT_REPLICATIONS,
    seed: DEFAULT_SEED,
    point: 0,
    threads: None,
    start: Start::FixedPoint,
    limit: true,
};

/// Precision of the mean-field fixed point a run starts from (it is rounded to whole
/// servers).
const START_BITS: u32 = 64;

/// Q_1, Q_2, … = round(N q_i) for the mean-field fixed point of the d used at N (JSQ's
/// fluid fixed point when d = N), non-increasing and at most N: the start of a run that
/// should spend little of its warm-up reaching stationarity.
pub fn fixed_point_start(system: &JsqSystem) -> Result<Vec<u32>, LbError> {
    let n = system.servers();
    let fp = fixed_point(system.model(), own_limit(system), START_BITS)?;
    let mut out: Vec<u32> = Vec::new();
    let mut prev = n as f64;
    for q in &fp.occupancy {
        let x = (q.to_f64() * n as f64).round().min(prev);
        if x < 1.0 {
            break;
        }
        out.push(x as u32);
        prev = x;
    }
    Ok(out)
}

/// The mean-field limit of the d used at N: power-of-d with that fixed d, JSQ's fluid
/// limit when d = N (the task always finds a shortest queue).
pub fn own_limit(system: &JsqSystem) -> Limit {
    let (n, d) = (system.servers(), system.d().d);
    if d >= n {
        return Limit::Jsq;
    }
    u32::try_from(d).map_or(Limit::Jsq, Limit::PowerOfD)
}

/// The mean-field fixed point of the d used ([`own_limit`]) in f64: q_1, q_2, … — the
/// reference of `distance_own_fixed_point`, how far a run is from its own mean field.
pub fn own_reference(system: &JsqSystem) -> Result<Vec<f64>, LbError> {
    let fp = fixed_point(system.model(), own_limit(system), START_BITS)?;
    Ok(fp.occupancy.iter().map(rug::Float::to_f64).collect())
}

/// What a JSQ simulation measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Time averages after the warm-up, the distance to JSQ's fluid fixed point where
    /// that fixed point is unique, and the distance to the mean-field fixed point of the d
    /// used.
    Stationary,
    /// Also the occupancy at the end of the run (a transient run: E[q_i(t)] at t = warm-up
    /// + measured time, in [`JsqSummary::trajectory`]).
    AtEnd,
}

/// A JSQ simulation as run.
#[derive(Debug, Clone)]
pub struct SimRun {
    /// The replications and their estimates.
    pub replicated: Replicated<Obs>,
    /// The estimates, read by name.
    pub summary: JsqSummary,
    /// Wall time of the replications, in seconds.
    pub seconds: f64,
    /// Where the replications started (empty when the fixed point asked for could not be
    /// computed).
    pub start: Start,
    /// What the run could not do as asked, in words.
    pub notes: Vec<String>,
    /// The warm-up rule's work, the stationarity test of the tasks per server, the fewest
    /// events a replication measured.
    pub diagnostics: Diagnostics,
    /// The length the replications ran (measured time and warm-up), after the length rule.
    pub length: Length,
    /// How that length was chosen.
    pub length_choice: LengthChoice,
}

/// What the length rule ([`RunOptions::length_rule`]) did.
#[derive(Debug, Clone, PartialEq)]
pub struct LengthChoice {
    /// The length rule that applied: the configured length, or the relaxation-time rule.
    pub rule: LengthRule,
    /// The relaxation time of the tasks per server estimated on the run reported.
    pub relaxation: Option<Relaxation>,
    /// Relaxation times wanted per replication ([`relaxation_multiple`] of the servers).
    pub multiple: f64,
    /// The measured times run, in order (the last is the run reported; the ones before
    /// were too short for the relaxation time they showed and were discarded).
    pub tried: Vec<f64>,
    /// Why the rule stopped short of the length it wanted (the event budget, the rounds),
    /// when it did.
    pub short_of: Option<String>,
}

impl LengthChoice {
    /// The measured length [`Self::multiple`] relaxation times call for, when the
    /// run reported is shorter (whatever the rule).
    pub fn wanted(&self, measured: f64) -> Option<f64> {
        let r = self.relaxation?;
        let want = self.multiple * r.tau;
        let want = if r.resolved {
            want
        } else {
            want.max(2.0 * measured)
        };
        (want > measured).then(|| crate::num::round_up_two_digits(want))
    }

    /// The choice in words, for the record: which length ran and why.
    pub fn reason(&self, measured: f64) -> String {
        let tau = match self.relaxation {
            Some(r) if r.resolved => format!(
                "the relaxation time of the tasks per server estimated on the run (the integrated autocorrelation time, Sokal's windowed estimator) is {}",
                crate::sim::warmup::nice_up(r.tau)
            ),
            Some(r) => format!(
                "the relaxation time of the tasks per server is at least {} (the run is too short to resolve it)",
                crate::sim::warmup::nice_up(r.tau)
            ),
            None => "the relaxation time could not be estimated".to_string(),
        };
        let shown = crate::sim::warmup::nice_up;
        match self.rule {
            LengthRule::Given | LengthRule::HeavyTail { .. } => match self.wanted(measured) {
                Some(w) => format!(
                    "time as given; {tau}, so time {} holds fewer than {} of them and the replication means may be too skewed for the t-interval (time {} or more)",
                    shown(measured),
                    shown(self.multiple),
                    shown(w)
                ),
                None => format!("time as given; {tau}"),
            },
            LengthRule::Relaxation { .. } => {
                let runs = if self.tried.len() > 1 {
                    format!(
                        "time {} was run first and found too short, then {}",
                        shown(self.tried[0]),
                        self.tried[1..]
                            .iter()
                            .map(|t| shown(*t))
                            .collect::<Vec<_>>()
                            .join(", then ")
                    )
                } else {
                    format!("time {} (the default) was long enough", shown(measured))
                };
                let short = self
                    .short_of
                    .as_ref()
                    .map(|s| format!("; {s}"))
                    .unwrap_or_default();
                format!(
                    "at least {} relaxation times per replication ({RELAXATION_MULTIPLE} x sqrt(3/N); so that the replication means are near normal for the t-interval; the warm-up follows at a tenth); {tau}; {runs}{short}",
                    shown(self.multiple)
                )
            }
        }
    }
}

/// The expected events of one replication of `opts` on `system`: arrivals at λN and as
/// many departures (at most), over the warm-up and the measured time.
pub fn expected_events(system: &JsqSystem, opts: &RunOptions) -> f64 {
    let (measured, warmup) = match opts.length {
        Length::Time { measured, warmup } => (measured, warmup),
        Length::Jobs { .. } => (0.0, 0.0),
    };
    2.0 * system.model().lambda() * system.servers() as f64 * (measured + warmup)
}

/// Q_1, Q_2, … = round(N q_i) of a start occupancy given as fractions (validated by
/// [`Start`]'s parser: in [0, 1], non-increasing), checked against the buffer.
pub fn occupancy_start(system: &JsqSystem, q: &[f64]) -> Result<Vec<u32>, LbError> {
    let n = system.servers() as f64;
    if let Some(b) = system.model().buffer() {
        if let Some(i) = q
            .iter()
            .rposition(|&x| x > 0.0)
            .filter(|&i| i >= b as usize)
        {
            return Err(LbError::BadInput(format!(
                "the start occupancy has q_{} > 0 but the buffer is {b}: no server holds more than {b} tasks",
                i + 1
            )));
        }
    }
    let mut out: Vec<u32> = Vec::with_capacity(q.len());
    for &x in q {
        if !(x.is_finite() && (0.0..=1.0).contains(&x)) {
            return Err(LbError::BadInput(format!(
                "a start occupancy must lie in [0, 1], got {x}"
            )));
        }
        let v = (x * n).round();
        if let Some(&prev) = out.last() {
            if v > f64::from(prev) {
                return Err(LbError::BadInput(
                    "a start occupancy must be non-increasing".into(),
                ));
            }
        }
        out.push(v as u32);
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    Ok(out)
}

/// Runs the occupancy simulator of `system` with `opts` (a length in time): the one runner
/// of JSQ(d(N)) that `jsq simulate` and the claims call. A stationary run measures the
/// distance to JSQ's fluid fixed point where it is unique (a note says when it is not)
/// and the distance to the mean-field fixed point of the d used.
pub fn run(
    system: &JsqSystem,
    opts: &RunOptions,
    measure: Measure,
    progress: Option<Progress>,
) -> Result<SimRun, LbError> {
    opts.validate()?;
    let (measured, warmup) = opts.time("JSQ")?;
    let expected = expected_events(system, opts);
    opts.check_budget(expected, "--time, --warmup, --servers, --replications")?;
    let mut notes = Vec::new();
    let mut plan = Plan::new(warmup, measured);
    let mut start = opts.start.clone();
    match &opts.start {
        Start::Empty => {}
        Start::FixedPoint => match fixed_point_start(system) {
            Ok(q) => plan.start = q,
            Err(e) => {
                notes.push(format!(
                    "started empty: the mean-field fixed point could not be computed ({e})"
                ));
                start = Start::Empty;
            }
        },
        Start::Occupancy(q) => plan.start = occupancy_start(system, q)?,
    }
    match measure {
        Measure::Stationary => {
            match jsq_reference(system.model()) {
                Ok(r) => plan.reference = r,
                Err(e) => notes.push(format!("no distance: {e}")),
            }
            match own_reference(system) {
                Ok(r) => plan.own_reference = r,
                Err(e) => notes.push(format!("no distance_own_fixed_point: {e}")),
            }
        }
        Measure::AtEnd => plan.sample_times = vec![warmup + measured],
    }
    let runner = opts.replicator()?;
    let t0 = std::time::Instant::now();
    let once = |plan: &Plan, o: &RunOptions| -> Result<(Replicated<Obs>, JsqSummary), LbError> {
        let total = expected_events(system, o) * o.replications as f64;
        let sim =
            OccupancySim::new(system, plan)?.with_expected_events(if total < u64::MAX as f64 {
                total as u64
            } else {
                u64::MAX
            });
        simulate(system, &sim, &runner, progress)
    };
    let series_relaxation = |rep: &Replicated<Obs>| -> Option<Relaxation> {
        let s: Option<Vec<&Series>> = rep.tallies.iter().map(|t| t.series.as_ref()).collect();
        relaxation(&s?)
    };
    let mut o = opts.clone();
    let (mut replicated, mut summary) = once(&plan, &o)?;
    let mut choice = LengthChoice {
        rule: opts.length_rule,
        relaxation: series_relaxation(&replicated),
        multiple: relaxation_multiple(system.servers()),
        tried: vec![measured],
        short_of: None,
    };
    let mut discarded_events = 0u64;
    if let (LengthRule::Relaxation { warmup_follows }, Measure::Stationary) =
        (opts.length_rule, measure)
    {
        while let Some(want) = choice.wanted(plan.horizon) {
            if choice.tried.len() >= LENGTH_ROUNDS {
                choice.short_of = Some(format!(
                    "stopped after {LENGTH_ROUNDS} runs short of time {} (give --time)",
                    crate::sim::warmup::nice_up(want)
                ));
                break;
            }
            let next = want.max(2.0 * plan.horizon);
            let next_warmup = if warmup_follows {
                next / DEFAULT_WARMUP_FRACTION as f64
            } else {
                plan.warmup
            };
            let candidate = RunOptions {
                length: Length::Time {
                    measured: next,
                    warmup: next_warmup,
                },
                ..o.clone()
            };
            if candidate
                .check_budget(expected_events(system, &candidate), "")
                .is_err()
            {
                choice.short_of = Some(format!(
                    "time {} would exceed the event budget: the run reported is shorter (give --time and --no-limit)",
                    crate::sim::warmup::nice_up(next)
                ));
                break;
            }
            discarded_events = discarded_events.saturating_add(replicated.events);
            o = candidate;
            plan.horizon = next;
            plan.warmup = next_warmup;
            (replicated, summary) = once(&plan, &o)?;
            choice.tried.push(next);
            choice.relaxation = series_relaxation(&replicated);
        }
    }
    replicated.events = replicated.events.saturating_add(discarded_events);
    summary.events = summary.events.saturating_add(discarded_events);
    let diagnostics = Diagnostics::of(&replicated, names::MEAN_TASKS);
    Ok(SimRun {
        replicated,
        summary,
        seconds: t0.elapsed().as_secs_f64(),
        start,
        notes,
        diagnostics,
        length: Length::Time {
            measured: plan.horizon,
            warmup: plan.warmup,
        },
        length_choice: choice,
    })
}
