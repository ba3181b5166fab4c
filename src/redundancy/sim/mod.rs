//! The event simulator of redundancy with cancel-on-complete: general service laws, i.i.d.
//! or identical copies, every policy Π1-Π2 of [`super::policy`], non-preemptive or
//! preemptive-resume, on the event calendar of [`crate::sim::event`] and run by the
//! replication runner of [`crate::sim`] ([`crate::sim::Simulator`]).
//!
//! **Events.** An arrival (its class drawn with probability λ_c/Λ, its gap Exp(Λ)) and, per
//! busy server, the completion of the copy it serves. An arrival starts a copy at every idle
//! server of its set (and, with preemption, at every server of its set serving a strictly
//! lower-ranked class: that copy's completion is cancelled and its remaining work kept). A
//! completion ends the job: the completions of its other copies are cancelled
//! ([`crate::sim::event::Calendar::cancel`]), and every server it held picks again, in server order, by Π1
//! (the top rank with jobs present among its classes) and Π2 (FCFS: the lowest arrival
//! number among those classes' oldest jobs; ROS: a uniform job of the rank, jobs in service
//! elsewhere included, drawn from the routing stream).
//!
//! **Work.** A job carries one remaining requirement per server of its set: i.i.d. copies
//! draw one per server at arrival, identical copies one X for all; a copy at server s takes
//! (remaining work)/μ_s. Preemption stores what is left, (end − now)·μ_s.
//!
//! **Common random numbers.** Gaps and classes come from [`STREAM_ARRIVALS`], the
//! requirements of a job from [`STREAM_SIZES`] at its arrival (|S_c| draws for i.i.d.
//! copies, one for identical ones), ROS choices from [`STREAM_ROUTING`]: with the same
//! (seed, point, replication), every policy meets the same jobs, so a paired difference of
//! two policies ([`crate::sim::Replicated::difference`]) has a far smaller half-width than
//! independent runs.
//!
//! **Measurement** (as [`crate::sim::event::mgc`]): jobs are numbered in arrival order; the
//! first `warmup` are discarded and the next `jobs` measured; the run continues until every
//! measured job has left. `response` and `response[c]` are per-job means over the measured
//! jobs, `response_squared` and `response_squared[c]` the same of T²; `number` and
//! `number[c]` are time averages of the jobs in system over the window from the first
//! measured arrival to the first arrival after the measured ones. The clock
//! restarts at 0 every [`REBASE_EVENTS`] events ([`crate::sim::event::Calendar::rebase`]).
//! The response time of every job, warm-up included, goes to the replication's series by
//! arrival number ([`crate::sim::warmup`]).
//!
//! **Runs that do not end.** Under a class-priority or ROS policy a class can starve: its
//! measured jobs never leave while arrivals pile up. A replication stops when
//! [`MAX_IN_SYSTEM`] jobs are in system, or when the arrivals after the measured ones reach
//! as many as the whole run with measured jobs still present; its tally then says how
//! many measured jobs never left ([`RedundancyTally::unfinished`]) and why
//! ([`RedundancyTally::stopped`]), and the runner reports the system unstable under the
//! policy. Memory and time stay bounded by the run's length.
//!
//! **Two ways to run.** The event loop above runs every policy. Where every server's
//! classes share one rank (FCFS; LRF or MRF on sets of one size), each server serves the
//! jobs of its classes in arrival order and never leaves one for another, so a job's
//! departure follows from the jobs before it: D_m = min over s in S_m of max(A_m, F_s) +
//! X_ms/μ_s, with F_s the time server s is through with the earlier jobs. There
//! [`Engine::Auto`] (the default) runs that recursion instead, with the same draws in the
//! same order and the same measurement: the same departures as the event loop, sums over
//! jobs equal to rounding (tested), at 2.5–3 times its speed. Every output names the
//! method that ran.
//!
//! Exponential laws are drawn by the ziggurat ([`exp1`]) instead of the law's own sampler
//! (a faster draw of the same law); other laws use their samplers.

use super::classes::ClassSystem;
use super::policy::{Copies, Order, Policy};
use super::RedundancyError;
use crate::dist::{JobSize, Sampler};
use crate::sim::observe::{names, Key, Sample};
use crate::sim::rng::{exp1, index, Alias, STREAM_ARRIVALS, STREAM_ROUTING, STREAM_SIZES};
use crate::sim::stats::{ratio_estimate_weighted, Estimate};
use crate::sim::warmup::Series;
use crate::sim::{Simulator, Streams, TailEvidence, Tally};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

mod fcfs;
mod pending;
pub use pending::{CalendarQueue, Event, Pending, ServerClocks};

/// Events between two restarts of the clock.
pub const REBASE_EVENTS: u64 = 1 << 16;
/// Jobs in system at which a replication is stopped as unstable (the memory bound: each
/// job holds one requirement per server, at most 32 × 8 bytes, and its record).
pub const MAX_IN_SYSTEM: usize = 1 << 20;
/// Why a replication stopped before every measured job had left: the arrivals after the
/// measured ones reached as many as the whole run.
pub const STOPPED_STARVING: &str =
    "the arrivals after the measured jobs reached as many as the whole run while measured jobs were still in system";
/// Why a replication stopped: [`MAX_IN_SYSTEM`] jobs in system.
pub const STOPPED_OVERFLOW: &str = "more than 1048576 jobs were in system at once";
/// A server without a job.
const IDLE: u32 = u32::MAX;
/// The front of an empty FIFO: later than every arrival number, and no slot.
const EMPTY_FRONT: (u64, u32) = (u64::MAX, IDLE);

/// How requirements are drawn.
enum Service {
    /// Exp with this mean, by the ziggurat.
    Exp(f64),
    /// A constant.
    Det(f64),
    /// The law's sampler.
    General(Box<dyn Sampler>),
}

impl Service {
    #[inline]
    fn draw(&self, r: &mut Xoshiro256PlusPlus) -> f64 {
        match self {
            Service::Exp(m) => exp1(r) * m,
            Service::Det(x) => *x,
            Service::General(s) => s.sample(r),
        }
    }
}

/// A job in the system.
#[derive(Debug, Clone, Copy)]
struct Job {
    /// Arrival number, from 0.
    id: u64,
    /// Arrival time (current clock).
    arrival: f64,
    /// The servers serving it.
    serving: u32,
    /// Its class.
    class: u32,
    /// Its place in its class's bag (ROS).
    pos: u32,
}

/// How a run is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The FCFS recursion where it applies ([`RedundancySim::fcfs_recursion_applies`]),
    /// the event loop on [`ServerClocks`] elsewhere (the default).
    #[default]
    Auto,
    /// The event loop on [`ServerClocks`] (a scan of the busy servers).
    Clocks,
    /// The event loop on [`CalendarQueue`] (the calendar of `sim::event`, the reference).
    Calendar,
}

/// The `method` of a run by the event loop.
pub const METHOD_EVENTS: &str =
    "event simulation (sim::Simulator on per-server clocks; the sim::event calendar gives the same events)";
/// The `method` of a run by the FCFS recursion.
pub const METHOD_FCFS_RECURSION: &str = "FCFS recursion in arrival order (each server serves the jobs of its classes oldest first, so job m leaves at D_m = min over s in S_m of max(A_m, F_s) + X_ms/mu_s, and server s is next free at D_m if it started job m before D_m; the event loop gives the same departures)";

/// The redundancy system as a simulator.
pub struct RedundancySim {
    k: usize,
    nc: usize,
    sets: Vec<u32>,
    mu: Vec<f64>,
    inv_mu: Vec<f64>,
    /// The class of an arrival, with probabilities λ_c/Σλ.
    class_of: Alias,
    mean_gap: f64,
    rank: Vec<i64>,
    /// Per server, the classes containing it, best rank first.
    order: Vec<Vec<u32>>,
    /// Per server, the ends of its rank groups in `order` (one class per group unless
    /// ranks tie).
    level_ends: Vec<Vec<u32>>,
    /// True when some server has two classes of one rank.
    ties: bool,
    policy: Policy,
    copies: Copies,
    service: Service,
    mean_size: f64,
    jobs: u64,
    warmup: u64,
    engine: Engine,
}

impl std::fmt::Debug for RedundancySim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedundancySim")
            .field("servers", &self.k)
            .field("classes", &self.nc)
            .field("policy", &self.policy)
            .field("copies", &self.copies)
            .field("jobs", &self.jobs)
            .field("warmup", &self.warmup)
            .field("engine", &self.engine)
            .finish()
    }
}

/// The sums of one replication.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RedundancyTally {
    /// Measured jobs per class.
    pub n: Vec<u64>,
    /// Σ T per class.
    pub sum_t: Vec<f64>,
    /// Σ T² per class (the second moment: a distribution check beyond the mean).
    pub sum_t2: Vec<f64>,
    /// ∫ N_c dt over the window, per class.
    pub area: Vec<f64>,
    /// The window's length.
    pub window: f64,
    /// Σ X² of the measured jobs' first requirements (heavy-tail evidence).
    pub sum_x2: f64,
    /// max X².
    pub max_x2: f64,
    /// Events (arrivals and completions), warm-up included.
    pub events: u64,
    /// Jobs of each class in system when the window opens (measurement) or at half the
    /// horizon (trace).
    pub start_counts: Vec<u64>,
    /// The same when the window closes (measurement) or at the horizon (trace).
    pub end_counts: Vec<u64>,
    /// Arrivals between the two snapshots.
    pub between: u64,
    /// Arrivals in all (the jobs simulated).
    pub arrivals: u64,
    /// The response time of every job of the run (warm-up included) in batches by
    /// arrival number ([`crate::sim::warmup`]); `None` for a trace.
    pub series: Option<Series>,
    /// Measured jobs that had not left when the replication stopped (0 when it ran to
    /// its end).
    pub unfinished: u64,
    /// Why the replication stopped early ([`STOPPED_STARVING`], [`STOPPED_OVERFLOW`]).
    pub stopped: Option<&'static str>,
}

impl RedundancyTally {
    /// A measured job of class `c` left after `t`.
    #[inline]
    fn departed(&mut self, c: usize, t: f64) {
        self.n[c] += 1;
        self.sum_t[c] += t;
        self.sum_t2[c] += t * t;
    }

    /// A measured job arrived with first requirement `x0` (the heavy-tail evidence).
    #[inline]
    fn arrived(&mut self, x0: f64) {
        crate::sim::add_square(&mut self.sum_x2, &mut self.max_x2, x0);
    }

    /// (end − start)/between for class `c`, or for all classes (`None`): the drift of the
    /// number in system per arrival.
    pub fn growth(&self, c: Option<usize>) -> f64 {
        let d = |i: usize| self.end_counts[i] as f64 - self.start_counts[i] as f64;
        let total = match c {
            Some(i) if i < self.end_counts.len() => d(i),
            Some(_) => f64::NAN,
            None => (0..self.end_counts.len()).map(d).sum(),
        };
        total / self.between.max(1) as f64
    }
}

impl Tally for RedundancyTally {
    fn samples(&self, out: &mut Vec<(Key, Sample)>) {
        // Each measure over all the jobs (the sums over the classes), then per class.
        let n: u64 = self.n.iter().sum();
        let mut push = |name: &'static str, sums: &[f64], sample: &dyn Fn(f64, u64) -> Sample| {
            out.push((Key::scalar(name), sample(sums.iter().sum(), n)));
            for (c, (&s, &nc)) in sums.iter().zip(&self.n).enumerate() {
                out.push((Key::at(name, c), sample(s, nc)));
            }
        };
        push(names::RESPONSE, &self.sum_t, &Sample::per_job);
        push(names::RESPONSE_SQUARED, &self.sum_t2, &Sample::per_job);
        push(names::NUMBER, &self.area, &|a, n| {
            Sample::per_time(a, self.window, n)
        });
    }

    fn tail_evidence(&self) -> Option<TailEvidence> {
        let n: u64 = self.n.iter().sum();
        Some(TailEvidence::from_sums(
            self.sum_t.iter().sum::<f64>(),
            n.max(1),
            self.max_x2,
            self.sum_x2,
        ))
    }

    fn events(&self) -> u64 {
        self.events
    }

    fn series(&self) -> Option<&Series> {
        self.series.as_ref()
    }

    fn measured(&self) -> Option<u64> {
        Some(self.n.iter().sum())
    }
}

/// The per-class containers of the jobs in system: FIFOs of slots (FCFS) or bags with
/// each job's position (ROS).
struct Queues {
    /// (arrival number, slot), oldest first: the number is kept beside the slot so that
    /// a pick compares the fronts without reading the jobs.
    fifo: Vec<VecDeque<(u64, u32)>>,
    /// Each FIFO's front, or [`EMPTY_FRONT`]: a compact copy that a pick scans without
    /// touching the deques.
    front: Vec<(u64, u32)>,
    bag: Vec<Vec<u32>>,
    count: Vec<u32>,
}

impl RedundancySim {
    /// The simulator of `sys` under `policy` with `copies` and requirements from `dist`,
    /// `warmup` discarded and `jobs` measured jobs per replication. Stability is the
    /// caller's to check: an unstable system only drifts.
    pub fn new(
        sys: &ClassSystem,
        policy: Policy,
        copies: Copies,
        dist: &dyn JobSize,
        jobs: u64,
        warmup: u64,
    ) -> Result<Self, RedundancyError> {
        if jobs == 0 {
            return Err(RedundancyError::BadPolicy("jobs must be at least 1".into()));
        }
        if jobs.checked_add(warmup).is_none() {
            return Err(RedundancyError::BadPolicy("jobs + warmup overflows".into()));
        }
        let k = sys.servers();
        let nc = sys.classes().len();
        let lambda = sys.lambda_f64();
        let total: f64 = lambda.iter().sum();
        let class_of = Alias::new(&lambda).ok_or_else(|| {
            RedundancyError::BadSystem("arrival rates must be non-negative and not all 0".into())
        })?;
        let rank = policy.ranks(sys);
        let mut order = Vec::with_capacity(k);
        let mut level_ends = Vec::with_capacity(k);
        let mut ties = false;
        for s in 0..k {
            let mut cls: Vec<usize> = (0..nc)
                .filter(|&c| sys.classes()[c].set.contains(s))
                .collect();
            cls.sort_by_key(|&c| (rank[c], c));
            let mut ends = Vec::new();
            for i in 1..=cls.len() {
                if i == cls.len() || rank[cls[i]] != rank[cls[i - 1]] {
                    ends.push(i as u32);
                } else {
                    ties = true;
                }
            }
            order.push(cls.into_iter().map(|c| c as u32).collect());
            level_ends.push(ends);
        }
        crate::dist::check_simulable_scale(dist)?;
        let mean_size = dist.mean()?.to_f64();
        let service = if dist.is_exponential() {
            Service::Exp(mean_size)
        } else if dist.is_deterministic() {
            Service::Det(mean_size)
        } else {
            Service::General(dist.sampler()?)
        };
        let mu = sys.mu_f64().to_vec();
        Ok(RedundancySim {
            k,
            nc,
            sets: sys.classes().iter().map(|c| c.set.mask()).collect(),
            inv_mu: mu.iter().map(|m| 1.0 / m).collect(),
            mu,
            class_of,
            mean_gap: 1.0 / total,
            rank,
            order,
            level_ends,
            ties,
            policy,
            copies,
            service,
            mean_size,
            jobs,
            warmup,
            engine: Engine::Auto,
        })
    }

    /// The same simulator run another way (the departures do not change; sums over jobs
    /// may differ in their last bits between the recursion and the event loop).
    pub fn with_engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// True when every server serves the jobs of its classes in arrival order: Π2 is FCFS
    /// and Π1 puts all the classes at each server in one rank (no class priority, or one
    /// that ties everywhere, as LRF or MRF on sets of one size). Then no server ever
    /// leaves a job for another (preemption needs a strictly lower rank), a job's service
    /// depends only on the jobs before it, and [`Engine::Auto`] runs the FCFS recursion.
    pub fn fcfs_recursion_applies(&self) -> bool {
        self.fcfs() && self.level_ends.iter().all(|e| e.len() <= 1)
    }

    /// Whether Π2 takes the oldest job (FCFS) rather than a random one (ROS): the two
    /// ways [`RedundancySim::pick`] and the event loop keep a class's queue.
    #[inline]
    fn fcfs(&self) -> bool {
        match self.policy.order {
            Order::Fcfs => true,
            Order::Ros => false,
        }
    }

    /// The `method` a run of this simulator reports.
    pub fn method(&self) -> &'static str {
        if self.engine == Engine::Auto && self.fcfs_recursion_applies() {
            METHOD_FCFS_RECURSION
        } else {
            METHOD_EVENTS
        }
    }

    /// Runs one replication (or a trace) the way [`Self::with_engine`] asked, the first
    /// `warmup` jobs discarded.
    fn dispatch(&self, streams: &Streams, trace: Option<u64>, warmup: u64) -> RedundancyTally {
        match self.engine {
            Engine::Auto if self.fcfs_recursion_applies() => {
                self.fcfs_recursion(streams, trace, warmup)
            }
            Engine::Auto | Engine::Clocks => self.run::<ServerClocks>(streams, trace, warmup),
            Engine::Calendar => self.run::<CalendarQueue>(streams, trace, warmup),
        }
    }

    /// The mean requirement E[X] of the law.
    pub fn mean_size(&self) -> f64 {
        self.mean_size
    }

    /// One long run of `horizon` arrivals from empty, without measurement: the tally's
    /// counts at half the horizon and at its end (the input of the stability drift test).
    pub fn trace(&self, streams: &Streams, horizon: u64) -> RedundancyTally {
        self.dispatch(streams, Some(horizon.max(2)), self.warmup)
    }

    /// The requirements of a job of set `set`, drawn at its arrival: one per server of the
    /// set in server order (i.i.d. copies) or one for all (identical copies). Both engines
    /// draw through here, so they meet the same jobs (common random numbers). `each(s, x)`
    /// takes server s's requirement; the first server's is returned. A set is never empty.
    #[inline(always)]
    fn draw_requirements(
        &self,
        rx: &mut Xoshiro256PlusPlus,
        set: u32,
        mut each: impl FnMut(usize, f64),
    ) -> f64 {
        let shared = match self.copies {
            Copies::Iid => None,
            Copies::Identical => Some(self.service.draw(rx)),
        };
        let s0 = set.trailing_zeros() as usize;
        let x0 = shared.unwrap_or_else(|| self.service.draw(rx));
        each(s0, x0);
        let mut m = set & (set - 1);
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            each(s, shared.unwrap_or_else(|| self.service.draw(rx)));
        }
        x0
    }

    /// Server `s` (free) takes a job by Π1-Π2: the slot, or [`IDLE`].
    #[inline]
    fn pick(&self, s: usize, rr: &mut Xoshiro256PlusPlus, q: &Queues) -> u32 {
        let order = &self.order[s];
        let fcfs = self.fcfs();
        if !self.ties {
            // One class per rank: the first class present.
            for &c in order {
                let n = q.count[c as usize];
                if n == 0 {
                    continue;
                }
                return if fcfs {
                    q.front[c as usize].1
                } else if n == 1 {
                    q.bag[c as usize][0]
                } else {
                    q.bag[c as usize][index(rr, n as usize)]
                };
            }
            return IDLE;
        }
        let mut from = 0usize;
        for &to in &self.level_ends[s] {
            let level = &order[from..to as usize];
            from = to as usize;
            if fcfs {
                // The oldest front of the level's classes.
                let mut best = IDLE;
                let mut best_id = u64::MAX;
                for &c in level {
                    let (id, j) = q.front[c as usize];
                    if id < best_id {
                        best_id = id;
                        best = j;
                    }
                }
                if best != IDLE {
                    return best;
                }
                continue;
            }
            let total: u64 = level.iter().map(|&c| u64::from(q.count[c as usize])).sum();
            if total == 0 {
                continue;
            }
            let mut u = if total == 1 {
                0
            } else {
                index(rr, total as usize) as u64
            };
            for &c in level {
                let n = u64::from(q.count[c as usize]);
                if u < n {
                    return q.bag[c as usize][u as usize];
                }
                u -= n;
            }
            return IDLE;
        }
        IDLE
    }

    /// The event loop on pending-event structure `Q`, the first `warmup` jobs discarded.
    /// With `trace = Some(horizon)` it stops at arrival `horizon`, measuring nothing but
    /// the class counts at `horizon/2` and at `horizon`.
    #[inline(never)]
    fn run<Q: Pending>(
        &self,
        streams: &Streams,
        trace: Option<u64>,
        warmup: u64,
    ) -> RedundancyTally {
        let mut ra = streams.rng(STREAM_ARRIVALS);
        let mut rx = streams.rng(STREAM_SIZES);
        let mut rr = streams.rng(STREAM_ROUTING);
        let (k, nc) = (self.k, self.nc);
        let measure = trace.is_none();
        let first = warmup;
        let end = warmup.saturating_add(self.jobs);
        // A run whose measured jobs have not all left when the arrivals reach this is
        // stopped (module docs).
        let give_up = end.saturating_mul(2);
        let mut series = measure.then(|| Series::for_jobs(end, first));
        let fcfs = self.fcfs();

        let mut st = RedundancyTally {
            n: vec![0; nc],
            sum_t: vec![0.0; nc],
            sum_t2: vec![0.0; nc],
            area: vec![0.0; nc],
            ..Default::default()
        };
        let mut ev = Q::for_servers(k);
        let mut jobs: Vec<Job> = Vec::with_capacity(1024);
        let mut work: Vec<f64> = Vec::with_capacity(1024 * k);
        let mut free: Vec<u32> = Vec::new();
        let mut q = Queues {
            fifo: vec![VecDeque::new(); if fcfs { nc } else { 0 }],
            front: vec![EMPTY_FRONT; if fcfs { nc } else { 0 }],
            bag: vec![Vec::new(); if fcfs { 0 } else { nc }],
            count: vec![0; nc],
        };
        let mut srv_job: Vec<u32> = vec![IDLE; k];
        let mut srv_end: Vec<f64> = vec![0.0; k];
        // Time averages, lazily: area_c += count_c·(now − last_c) at each change.
        let mut last: Vec<f64> = vec![0.0; nc];
        let mut window_open = false;
        let mut window_done = false;
        let mut window_start = 0.0;
        let mut departed_measured = 0u64;
        let mut arrivals = 0u64;

        ev.arrival_at(exp1(&mut ra) * self.mean_gap);
        loop {
            if measure && departed_measured == self.jobs && window_done {
                break;
            }
            let Some((now, event)) = ev.pop() else {
                break;
            };
            st.events += 1;
            match event {
                Event::Arrival => {
                    if let Some(horizon) = trace {
                        if arrivals == horizon / 2 {
                            st.start_counts = q.count.iter().map(|&n| u64::from(n)).collect();
                        }
                        if arrivals >= horizon {
                            st.end_counts = q.count.iter().map(|&n| u64::from(n)).collect();
                            st.between = horizon - horizon / 2;
                            break;
                        }
                    }
                    let id = arrivals;
                    arrivals += 1;
                    if measure && (arrivals > give_up || jobs.len() - free.len() >= MAX_IN_SYSTEM) {
                        st.stopped = Some(if arrivals > give_up {
                            STOPPED_STARVING
                        } else {
                            STOPPED_OVERFLOW
                        });
                        st.unfinished = self.jobs - departed_measured;
                        if !window_done {
                            st.window = now - window_start;
                        }
                        break;
                    }
                    if measure {
                        if id == first {
                            window_open = true;
                            window_start = now;
                            last.iter_mut().for_each(|l| *l = now);
                            st.start_counts = q.count.iter().map(|&n| u64::from(n)).collect();
                        } else if id == end {
                            st.end_counts = q.count.iter().map(|&n| u64::from(n)).collect();
                            st.between = self.jobs;
                            for ((a, &n), &l) in st.area.iter_mut().zip(&q.count).zip(&last) {
                                *a += f64::from(n) * (now - l);
                            }
                            st.window = now - window_start;
                            window_open = false;
                            window_done = true;
                        }
                    }
                    let c = if nc == 1 {
                        0
                    } else {
                        self.class_of.sample(&mut ra)
                    };
                    ev.arrival_at(now + exp1(&mut ra) * self.mean_gap);
                    let slot = match free.pop() {
                        Some(j) => j,
                        None => {
                            jobs.push(Job {
                                id: 0,
                                arrival: 0.0,
                                serving: 0,
                                class: 0,
                                pos: 0,
                            });
                            work.resize(work.len() + k, 0.0);
                            (jobs.len() - 1) as u32
                        }
                    };
                    let set = self.sets[c];
                    let base = slot as usize * k;
                    // The requirements, drawn at arrival (common random numbers).
                    let x0 = self.draw_requirements(&mut rx, set, |s, x| work[base + s] = x);
                    if measure && id >= first && id < end {
                        st.arrived(x0);
                    }
                    if window_open {
                        st.area[c] += f64::from(q.count[c]) * (now - last[c]);
                        last[c] = now;
                    }
                    q.count[c] += 1;
                    let pos = if fcfs {
                        if q.fifo[c].is_empty() {
                            q.front[c] = (id, slot);
                        }
                        q.fifo[c].push_back((id, slot));
                        0
                    } else {
                        q.bag[c].push(slot);
                        (q.bag[c].len() - 1) as u32
                    };
                    jobs[slot as usize] = Job {
                        id,
                        arrival: now,
                        serving: 0,
                        class: c as u32,
                        pos,
                    };
                    // Idle servers of the set start it; with preemption, so do servers
                    // serving a strictly lower rank (their copies keep what is left).
                    let mut m = set;
                    while m != 0 {
                        let s = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let cur = srv_job[s];
                        if cur != IDLE {
                            if !self.policy.preemptive
                                || self.rank[c] >= self.rank[jobs[cur as usize].class as usize]
                            {
                                continue;
                            }
                            ev.cancel(s);
                            work[cur as usize * k + s] = ((srv_end[s] - now) * self.mu[s]).max(0.0);
                            jobs[cur as usize].serving &= !(1u32 << s);
                        }
                        srv_job[s] = slot;
                        jobs[slot as usize].serving |= 1 << s;
                        let t = now + work[base + s] * self.inv_mu[s];
                        srv_end[s] = t;
                        ev.done_at(s, t);
                    }
                }
                Event::Done(s) => {
                    let s = s as usize;
                    let j = srv_job[s];
                    let job = jobs[j as usize];
                    let c = job.class as usize;
                    if measure && job.id < end {
                        if let Some(s) = series.as_mut() {
                            s.add_job(job.id, now - job.arrival);
                        }
                        if job.id >= first {
                            st.departed(c, now - job.arrival);
                            departed_measured += 1;
                        }
                    }
                    // Cancel the other copies.
                    let held = job.serving;
                    let mut m = held & !(1u32 << s);
                    while m != 0 {
                        let t = m.trailing_zeros() as usize;
                        m &= m - 1;
                        ev.cancel(t);
                        srv_job[t] = IDLE;
                    }
                    srv_job[s] = IDLE;
                    if window_open {
                        st.area[c] += f64::from(q.count[c]) * (now - last[c]);
                        last[c] = now;
                    }
                    q.count[c] -= 1;
                    if fcfs {
                        let f = &mut q.fifo[c];
                        if f.front().map(|x| x.1) == Some(j) {
                            f.pop_front();
                            q.front[c] = f.front().copied().unwrap_or(EMPTY_FRONT);
                        } else if let Some(p) = f.iter().position(|x| x.1 == j) {
                            f.remove(p);
                        }
                    } else {
                        let b = &mut q.bag[c];
                        let p = job.pos as usize;
                        b.swap_remove(p);
                        if p < b.len() {
                            jobs[b[p] as usize].pos = p as u32;
                        }
                    }
                    free.push(j);
                    // The freed servers pick, in server order.
                    let mut m = held;
                    while m != 0 {
                        let t = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let nj = self.pick(t, &mut rr, &q);
                        if nj == IDLE {
                            continue;
                        }
                        srv_job[t] = nj;
                        jobs[nj as usize].serving |= 1 << t;
                        let e = now + work[nj as usize * k + t] * self.inv_mu[t];
                        srv_end[t] = e;
                        ev.done_at(t, e);
                    }
                }
            }
            if st.events % REBASE_EVENTS == 0 {
                ev.rebase(now);
                for f in &q.fifo {
                    for &(_, j) in f {
                        jobs[j as usize].arrival -= now;
                    }
                }
                for b in &q.bag {
                    for &j in b {
                        jobs[j as usize].arrival -= now;
                    }
                }
                for e in srv_end.iter_mut() {
                    *e -= now;
                }
                for l in last.iter_mut() {
                    *l -= now;
                }
                window_start -= now;
            }
        }
        st.arrivals = arrivals;
        st.series = series;
        st
    }
}

impl Simulator for RedundancySim {
    type Tally = RedundancyTally;
    fn replicate(&self, streams: &Streams) -> RedundancyTally {
        self.dispatch(streams, None, self.warmup)
    }

    /// The same arrivals, the first `warmup` (rounded up to a whole job) discarded.
    fn replicate_from(&self, streams: &Streams, warmup: f64) -> Option<RedundancyTally> {
        let w = warmup.ceil();
        (w.is_finite() && w >= 0.0 && w < u64::MAX as f64)
            .then(|| self.dispatch(streams, None, w as u64))
    }
}

/// The drift per arrival over replications, total (`None`) or of class `c`: the ratio of
/// Σ (end − start) to Σ arrivals between, with its 95 % half-width.
pub fn drift(tallies: &[RedundancyTally], c: Option<usize>) -> Estimate {
    let samples: Vec<Sample> = tallies
        .iter()
        .map(|t| Sample::per_job(t.growth(c) * t.between as f64, t.between))
        .collect();
    ratio_estimate_weighted(&samples)
}
