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
//! `mean_tasks`, `blocking`, the diffusion-scaled occupancy, `distance` (when the plan
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

use super::model::{tail_table, LbError, ModelKind, System};
use crate::sim::observe::{Key, Sample};
use crate::sim::rng::{exp1, index, unit_f64};
use crate::sim::stats::{ratio_estimate, Estimate};
use crate::sim::{Replicated, Replicator, Simulator, Streams, Tally};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The stream of the occupancy simulator's events (gaps and choices).
pub const STREAM_EVENTS: u64 = 0;
/// The stream of the per-server simulator's server draws.
pub const STREAM_SAMPLES: u64 = 1;
/// Levels allocated at the start for an infinite capacity (they grow when needed).
const INITIAL_LEVELS: usize = 64;
/// Levels compared per step of the branch-free level scans: the level an arrival joins is
/// the number of levels with P(min ≥ i) > w, a predicate true on a prefix of the levels,
/// so it is counted CHUNK levels at a time without a data-dependent branch (the exit
/// level is unpredictable, and a mispredicted branch per level scanned costs more than
/// the comparisons). The level arrays keep CHUNK zero levels above the top.
const CHUNK: usize = 8;
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
    /// Time average of Σ_i |Q_i/N − r_i| for the plan's reference occupancy r.
    pub const DISTANCE: &str = "distance";
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
        }
    }

    /// The number of levels every replication reports: the capacity, capped at
    /// [`MAX_REPORTED_LEVELS`].
    pub fn reported_levels(system: &System) -> usize {
        system.model().buffer().map_or(MAX_REPORTED_LEVELS, |b| {
            (b as usize).min(MAX_REPORTED_LEVELS)
        })
    }

    fn check(&self, system: &System) -> Result<(), LbError> {
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
    /// N.
    pub servers: u64,
    /// Levels reported as `occupancy[i]` (the same for every replication of a run).
    pub reported_levels: usize,
    /// Replications merged in (1 for one replication).
    pub replications: u64,
    /// Measured time.
    pub measured_time: f64,
    /// ∫ Q_i dt over the measured time, index i − 1 for level i (every level reached).
    pub level_time: Vec<f64>,
    /// ∫ (N − Q_1)² dt at index 0 (the idle servers, centred so that the square does not
    /// cancel at large N), ∫ Q_i² dt at index i − 1 ≥ 1.
    pub level_sq_time: Vec<f64>,
    /// ∫ Σ_i |Q_i − N r_i| dt for the plan's reference r (`None` without one).
    pub distance_time: Option<f64>,
    /// Σ over replications of each one's standard deviation of (N − Q_1)/√N over its
    /// measured time.
    pub scaled_idle_sd_sum: f64,
    /// Arrivals in the measured time.
    pub arrivals: u64,
    /// Discarded arrivals in the measured time.
    pub blocked: u64,
    /// Events (arrivals and departures), warm-up included.
    pub events: u64,
    /// Servers sampled (d per arrival), warm-up included.
    pub samples_drawn: u64,
    /// Q_1, Q_2, … at each sample time (summed over merged replications).
    pub trajectory: Vec<Vec<f64>>,
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
        self.scaled_idle_sd_sum += other.scaled_idle_sd_sum;
        self.arrivals += other.arrivals;
        self.blocked += other.blocked;
        self.events += other.events;
        self.samples_drawn += other.samples_drawn;
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
    }

    fn events(&self) -> u64 {
        self.events
    }
}

/// The occupancy simulator (module docs).
#[derive(Debug, Clone)]
pub struct OccupancySim {
    system: System,
    plan: Plan,
    tail: Vec<f64>,
    lambda_n: f64,
    cap: usize,
    d: u64,
    levels: usize,
}

impl OccupancySim {
    /// A simulator of `system` over `plan` (builds the O(N) table of P(min ≥ i)).
    pub fn new(system: &System, plan: &Plan) -> Result<Self, LbError> {
        plan.check(system)?;
        let n = system.servers();
        Ok(OccupancySim {
            system: system.clone(),
            plan: plan.clone(),
            tail: tail_table(n, system.d().d, system.sampling()),
            lambda_n: system.model().lambda() * n as f64,
            cap: system.model().buffer().map_or(usize::MAX, |b| b as usize),
            d: system.d().d,
            levels: Plan::reported_levels(system),
        })
    }

    /// The system simulated.
    pub fn system(&self) -> &System {
        &self.system
    }
}

/// The occupancy state and its lazy time integrals.
struct OccState {
    /// Q_0 = N, Q_1, …; always at least CHUNK + 1 zero entries past the top level.
    q: Vec<u32>,
    top: usize,
    tasks: u64,
    acc: Vec<f64>,
    acc2: Vec<f64>,
    last: Vec<f64>,
    /// The centre of each level's square: N at level 1 (∫(Q_1 − N)² dt, the idle
    /// servers), 0 elsewhere.
    centre: Vec<f64>,
    /// N r_i for the plan's reference r (0 beyond it, and everywhere without one).
    target: Vec<f64>,
    /// ∫ |Q_i − N r_i| dt (kept only with a reference: `DIST`).
    acc_dist: Vec<f64>,
}

impl OccState {
    #[cold]
    fn grow(&mut self, t: f64) {
        let len = self.q.len() * 2;
        self.q.resize(len, 0);
        self.acc.resize(len, 0.0);
        self.acc2.resize(len, 0.0);
        self.last.resize(len, t);
        self.centre.resize(len, 0.0);
        self.target.resize(len, 0.0);
        self.acc_dist.resize(len, 0.0);
    }

    /// Advances level i's integrals to t (the level is about to change).
    #[inline(always)]
    fn touch<const DIST: bool>(&mut self, i: usize, t: f64) {
        let dt = t - self.last[i];
        let v = f64::from(self.q[i]);
        let c = v - self.centre[i];
        self.acc[i] += v * dt;
        self.acc2[i] += c * c * dt;
        if DIST {
            self.acc_dist[i] += (v - self.target[i]).abs() * dt;
        }
        self.last[i] = t;
    }
}

/// Counters of the event loop.
#[derive(Default)]
struct Counts {
    events: u64,
    all_arrivals: u64,
    arrivals: u64,
    blocked: u64,
}

impl OccupancySim {
    /// The event loop from t to `until`, recording samples; POOLS selects the departure
    /// rule, MEASURE whether integrals and counts are kept.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn phase<const POOLS: bool, const MEASURE: bool, const DIST: bool>(
        &self,
        st: &mut OccState,
        rng: &mut Xoshiro256PlusPlus,
        t: &mut f64,
        until: f64,
        samples: &mut Vec<Vec<f64>>,
        next_sample: &mut usize,
        c: &mut Counts,
    ) {
        let lam = self.lambda_n;
        let inv_lam = 1.0 / lam;
        let tail = &self.tail[..];
        let times = &self.plan.sample_times[..];
        let mut sample_at = times.get(*next_sample).copied().unwrap_or(f64::INFINITY);
        loop {
            let dep = if POOLS {
                st.tasks as f64
            } else {
                f64::from(st.q[1])
            };
            let rate = lam + dep;
            let tn = *t + exp1(rng) / rate;
            // The state is constant on [t, tn): record the samples that fall there.
            while sample_at < tn.min(until) {
                samples.push(st.q[1..=st.top].iter().map(|&x| f64::from(x)).collect());
                *next_sample += 1;
                sample_at = times.get(*next_sample).copied().unwrap_or(f64::INFINITY);
            }
            if tn >= until {
                *t = until;
                return;
            }
            *t = tn;
            c.events += 1;
            let u = unit_f64(rng) * rate;
            // dep > 0 guards the (2^-53) rounding of u up to λN with no departure possible.
            if u < lam || dep == 0.0 {
                let w = u * inv_lam;
                c.all_arrivals += 1;
                // v = #{i ≥ 1 : P(min ≥ i) > w}; levels above the top have Q_i = 0 and
                // P(min ≥ i) = 0, so the count stops there.
                let mut v = 0;
                loop {
                    let mut k = 0;
                    for i in v + 1..=v + CHUNK {
                        k += usize::from(tail[st.q[i] as usize] > w);
                    }
                    v += k;
                    if k < CHUNK {
                        break;
                    }
                }
                if MEASURE {
                    c.arrivals += 1;
                }
                if v >= self.cap {
                    if MEASURE {
                        c.blocked += 1;
                    }
                    continue;
                }
                let level = v + 1;
                if level + CHUNK + 1 >= st.q.len() {
                    st.grow(*t);
                }
                if MEASURE {
                    st.touch::<DIST>(level, *t);
                }
                st.q[level] += 1;
                st.tasks += 1;
                if level > st.top {
                    st.top = level;
                }
            } else {
                let w = u - lam;
                let i = if POOLS {
                    // The first level whose cumulative weight Σ_{j ≤ i} j (Q_j − Q_{j+1})
                    // exceeds w: 1 + #{i : cum_i ≤ w} (cum is non-decreasing), capped at
                    // the top against rounding (w < Σ_i Q_i mathematically).
                    // In integers: cum_i ≤ w ⟺ cum_i ≤ ⌊w⌋, and ⌊w⌋ < tasks ≤ 2^53.
                    let r = w as u64;
                    let mut i = 0;
                    let mut cum = 0u64;
                    loop {
                        let mut k = 0;
                        for j in i + 1..=i + CHUNK {
                            cum += (j as u64) * u64::from(st.q[j] - st.q[j + 1]);
                            k += usize::from(cum <= r);
                        }
                        i += k;
                        if k < CHUNK || i >= st.top {
                            break;
                        }
                    }
                    (i + 1).min(st.top)
                } else {
                    // The busy server at index ⌊w⌋ (longest first) has length
                    // max{i : Q_i > w} = 1 + #{i ≥ 2 : Q_i > w}.
                    let mut i = 1;
                    loop {
                        let mut k = 0;
                        for j in i + 1..=i + CHUNK {
                            k += usize::from(f64::from(st.q[j]) > w);
                        }
                        i += k;
                        if k < CHUNK {
                            break;
                        }
                    }
                    i
                };
                if MEASURE {
                    st.touch::<DIST>(i, *t);
                }
                st.q[i] -= 1;
                st.tasks -= 1;
                if st.q[st.top] == 0 {
                    st.top -= 1;
                }
            }
        }
    }

    fn run_one<const POOLS: bool, const DIST: bool>(&self, streams: &Streams) -> Obs {
        let mut rng = streams.rng(STREAM_EVENTS);
        let n = self.system.servers() as u32;
        let start = &self.plan.start;
        // Every level of the reference has its slot from the start (so that a level
        // added by `grow` has the reference's 0 there).
        let len = match self.system.model().buffer() {
            Some(b) => b as usize + 2 + CHUNK,
            None => INITIAL_LEVELS.max(start.len() + 2 + CHUNK),
        }
        .max(self.plan.reference.len() + 2 + CHUNK);
        let mut q = vec![0u32; len];
        q[0] = n;
        for (i, &x) in start.iter().enumerate() {
            q[i + 1] = x;
        }
        let top = q.iter().rposition(|&x| x > 0).unwrap_or(0);
        let tasks = q[1..].iter().map(|&x| u64::from(x)).sum();
        let nf = f64::from(n);
        let mut centre = vec![0.0; len];
        centre[1] = nf;
        let mut target = vec![0.0; len];
        for (i, r) in self.plan.reference.iter().enumerate() {
            target[i + 1] = nf * r;
        }
        let mut st = OccState {
            q,
            top,
            tasks,
            acc: vec![0.0; len],
            acc2: vec![0.0; len],
            last: vec![0.0; len],
            centre,
            target,
            acc_dist: vec![0.0; len],
        };
        let mut t = 0.0;
        let mut samples = Vec::with_capacity(self.plan.sample_times.len());
        let mut next_sample = 0;
        let mut c = Counts::default();
        let t_warm = self.plan.warmup;
        let t_end = t_warm + self.plan.horizon;
        self.phase::<POOLS, false, false>(
            &mut st,
            &mut rng,
            &mut t,
            t_warm,
            &mut samples,
            &mut next_sample,
            &mut c,
        );
        st.last.iter_mut().for_each(|x| *x = t_warm);
        self.phase::<POOLS, true, DIST>(
            &mut st,
            &mut rng,
            &mut t,
            t_end,
            &mut samples,
            &mut next_sample,
            &mut c,
        );
        // Samples at exactly t_end or beyond the run are taken from the final state.
        while next_sample < self.plan.sample_times.len() {
            samples.push(st.q[1..=st.top].iter().map(|&x| f64::from(x)).collect());
            next_sample += 1;
        }
        for i in 1..st.q.len() {
            st.touch::<DIST>(i, t_end);
        }
        let used = st.q.iter().rposition(|&x| x > 0).unwrap_or(0).max(1);
        let levels = st.acc.iter().rposition(|&x| x > 0.0).unwrap_or(0).max(used);
        // Every level of the reference has a slot, touched at t_end at the latest.
        let distance_time = DIST.then(|| st.acc_dist[1..].iter().sum::<f64>());
        Obs {
            servers: u64::from(n),
            reported_levels: self.levels,
            replications: 1,
            measured_time: self.plan.horizon,
            level_time: st.acc[1..=levels].to_vec(),
            level_sq_time: st.acc2[1..=levels].to_vec(),
            distance_time,
            scaled_idle_sd_sum: 0.0,
            arrivals: c.arrivals,
            blocked: c.blocked,
            events: c.events,
            samples_drawn: c.all_arrivals.saturating_mul(self.d),
            trajectory: samples,
        }
        .finish()
    }
}

impl Simulator for OccupancySim {
    type Tally = Obs;

    fn replicate(&self, streams: &Streams) -> Obs {
        let dist = !self.plan.reference.is_empty();
        match (self.system.model().kind(), dist) {
            (ModelKind::Queues, false) => self.run_one::<false, false>(streams),
            (ModelKind::Queues, true) => self.run_one::<false, true>(streams),
            (ModelKind::Pools, false) => self.run_one::<true, false>(streams),
            (ModelKind::Pools, true) => self.run_one::<true, true>(streams),
        }
    }
}

/// The plain per-server simulator (module docs).
#[derive(Debug, Clone)]
pub struct PerServerSim {
    system: System,
    plan: Plan,
}

impl PerServerSim {
    /// A simulator of `system` over `plan`; at most [`PER_SERVER_MAX`] servers.
    pub fn new(system: &System, plan: &Plan) -> Result<Self, LbError> {
        plan.check(system)?;
        if system.servers() > PER_SERVER_MAX {
            return Err(LbError::BadInput(format!(
                "the per-server simulator takes at most {PER_SERVER_MAX} servers"
            )));
        }
        Ok(PerServerSim {
            system: system.clone(),
            plan: plan.clone(),
        })
    }
}

impl Simulator for PerServerSim {
    type Tally = Obs;

    fn replicate(&self, streams: &Streams) -> Obs {
        let mut ev = streams.rng(STREAM_EVENTS);
        let mut sm = streams.rng(STREAM_SAMPLES);
        let n = self.system.servers() as usize;
        let d = self.system.d().d as usize;
        let pools = self.system.model().kind() == ModelKind::Pools;
        let cap = self.system.model().buffer().map_or(u32::MAX, |b| b);
        let lam = self.system.model().lambda() * n as f64;
        // Servers from the start occupancy: server j has #{i : Q_i > j} tasks.
        let mut x = vec![0u32; n];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = self.plan.start.iter().filter(|&&q| q as usize > j).count() as u32;
        }
        let mut perm: Vec<usize> = (0..n).collect();
        // Q_i for i = 0..: counts of servers with at least i tasks.
        let mut q: Vec<u64> = vec![0; 2];
        let recount = |x: &[u32], q: &mut Vec<u64>| {
            let top = x.iter().copied().max().unwrap_or(0) as usize;
            q.clear();
            q.resize(top + 2, 0);
            for &v in x {
                for qi in q.iter_mut().take(v as usize + 1) {
                    *qi += 1;
                }
            }
        };
        recount(&x, &mut q);
        let mut busy = x.iter().filter(|&&v| v > 0).count() as u64;
        let mut tasks: u64 = x.iter().map(|&v| u64::from(v)).sum();
        let mut acc: Vec<f64> = Vec::new();
        let mut acc2: Vec<f64> = Vec::new();
        let nf = n as f64;
        let reference = &self.plan.reference;
        let mut dist = 0.0f64;
        let (t_warm, t_end) = (self.plan.warmup, self.plan.warmup + self.plan.horizon);
        let times = &self.plan.sample_times;
        let mut next_sample = 0;
        let mut trajectory = Vec::new();
        let mut t = 0.0f64;
        let mut c = Counts::default();
        let mut drawn = 0u64;
        loop {
            let dep = if pools { tasks as f64 } else { busy as f64 };
            let rate = lam + dep;
            let tn = t + exp1(&mut ev) / rate;
            let tstop = tn.min(t_end);
            while next_sample < times.len() && times[next_sample] < tstop {
                trajectory.push(q[1..].iter().map(|&v| v as f64).collect::<Vec<f64>>());
                next_sample += 1;
            }
            // Time integrals over [max(t, warm), min(tn, end)), every level (no laziness).
            let (a, b) = (t.max(t_warm), tstop);
            if b > a {
                if acc.len() < q.len() - 1 {
                    acc.resize(q.len() - 1, 0.0);
                    acc2.resize(q.len() - 1, 0.0);
                }
                for i in 1..q.len() {
                    let v = q[i] as f64;
                    // Level 1 squared about N: the idle servers (as OccupancySim).
                    let c = if i == 1 { nf - v } else { v };
                    acc[i - 1] += v * (b - a);
                    acc2[i - 1] += c * c * (b - a);
                }
                if !reference.is_empty() {
                    let levels = (q.len() - 1).max(reference.len());
                    let gap: f64 = (1..=levels)
                        .map(|i| {
                            let v = q.get(i).copied().unwrap_or(0) as f64;
                            let r = reference.get(i - 1).copied().unwrap_or(0.0);
                            (v - nf * r).abs()
                        })
                        .sum();
                    dist += gap * (b - a);
                }
            }
            if tn >= t_end {
                break;
            }
            t = tn;
            c.events += 1;
            let measuring = t >= t_warm;
            if unit_f64(&mut ev) * rate < lam || dep == 0.0 {
                // Sample d servers; keep the first minimum in sample order.
                let mut best = usize::MAX;
                for k in 0..d {
                    let s = match self.system.sampling() {
                        super::model::Sampling::Without => {
                            let r = k + index(&mut sm, n - k);
                            perm.swap(k, r);
                            perm[k]
                        }
                        super::model::Sampling::With => index(&mut sm, n),
                    };
                    if best == usize::MAX || x[s] < x[best] {
                        best = s;
                    }
                }
                drawn += d as u64;
                if measuring {
                    c.arrivals += 1;
                }
                if x[best] >= cap {
                    if measuring {
                        c.blocked += 1;
                    }
                } else {
                    x[best] += 1;
                    let v = x[best] as usize;
                    if v >= q.len() {
                        q.resize(v + 1, 0);
                    }
                    q[v] += 1;
                    if v == 1 {
                        busy += 1;
                    }
                    tasks += 1;
                }
            } else {
                // A busy server uniformly (queues) or a pool by its task count (pools).
                let target = if pools {
                    index(&mut ev, tasks as usize)
                } else {
                    index(&mut ev, busy as usize)
                };
                let mut cum = 0usize;
                let mut chosen = 0;
                for (j, &v) in x.iter().enumerate() {
                    cum += if pools {
                        v as usize
                    } else {
                        usize::from(v > 0)
                    };
                    if cum > target {
                        chosen = j;
                        break;
                    }
                }
                let v = x[chosen] as usize;
                q[v] -= 1;
                x[chosen] -= 1;
                if v == 1 {
                    busy -= 1;
                }
                tasks -= 1;
                while q.len() > 2 && q[q.len() - 1] == 0 && q[q.len() - 2] == 0 {
                    q.pop();
                }
            }
        }
        while next_sample < times.len() {
            trajectory.push(q[1..].iter().map(|&v| v as f64).collect::<Vec<f64>>());
            next_sample += 1;
        }
        while acc.last() == Some(&0.0) && acc.len() > 1 {
            acc.pop();
            acc2.pop();
        }
        Obs {
            servers: n as u64,
            reported_levels: Plan::reported_levels(&self.system),
            replications: 1,
            measured_time: self.plan.horizon,
            level_time: acc,
            level_sq_time: acc2,
            distance_time: (!reference.is_empty()).then_some(dist),
            scaled_idle_sd_sum: 0.0,
            arrivals: c.arrivals,
            blocked: c.blocked,
            events: c.events,
            samples_drawn: drawn,
            trajectory,
        }
        .finish()
    }
}

/// Estimates over replications, each with its 95 % half-width.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
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
    /// Time-average tasks per server above the reported levels (0 unless a queue grew
    /// beyond [`MAX_REPORTED_LEVELS`]).
    pub levels_beyond: Estimate,
    /// Mean of Q_i(τ)/N over replications at each sample time.
    pub trajectory: Vec<Vec<Estimate>>,
    /// Events over all replications (warm-up included).
    pub events: u64,
    /// Servers sampled per arrival (d).
    pub samples_per_arrival: f64,
    /// Replications.
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
pub fn summarize(system: &System, rep: &Replicated<Obs>) -> Result<Summary, LbError> {
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
    Ok(Summary {
        occupancy,
        mean_tasks: named(rep, names::MEAN_TASKS)?,
        blocking: named(rep, names::BLOCKING)?,
        scaled_occupancy: scaled,
        scaled_occupancy_sq: scaled_sq,
        scaled_idle_sd: named(rep, names::SCALED_IDLE_SD)?,
        distance: est.scalar(names::DISTANCE).copied(),
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
    system: &System,
    sim: &S,
    run: &Replicator,
    progress: Option<crate::sim::Progress>,
) -> Result<(Replicated<Obs>, Summary), LbError> {
    let rep = run.run(sim, progress)?;
    let s = summarize(system, &rep)?;
    Ok((rep, s))
}

/// λ per server of the Halfin–Whitt regime λ(N) = N − β√N: 1 − β/√N.
///
/// ```
/// use taskassign::lb::sim::halfin_whitt_lambda;
/// assert!((halfin_whitt_lambda(10_000, 0.5) - 0.995).abs() < 1e-15);
/// ```
pub fn halfin_whitt_lambda(n: u64, beta: f64) -> f64 {
    1.0 - beta / (n as f64).sqrt()
}
