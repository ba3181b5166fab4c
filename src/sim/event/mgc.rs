//! The M/G/c queue on the event calendar, with first-come-first-served or random order of
//! service: the model that proves the event engine against closed forms and against the
//! dispatch kernels, and the template of event-driven models (redundancy next).
//!
//! Poisson arrivals at rate λ, i.i.d. sizes X, c identical unit-speed servers, one queue.
//! A server that becomes free takes the oldest waiting job (FCFS) or a uniformly random
//! one (ROS, random order of service; the routing stream draws it); a job arriving to an
//! idle server starts at once. Events: an arrival (draw its size and the next gap) and a
//! departure from server s (take the next job, if any). The numbers:
//! * jobs are numbered in arrival order; the first `warmup` are discarded, the next `jobs`
//!   are measured, and the run continues until every measured job has started service
//!   (under ROS a job can be passed over for a while), so the measured set is exactly the
//!   arrivals warmup … warmup + jobs − 1;
//! * `waiting`, `waiting_squared`, `response` (= W + X, service is not preempted) and
//!   `slowdown` are per-job means over the measured jobs; `number` is the time average of
//!   the number in system over the window from the first measured arrival to the first
//!   arrival after the measured ones (which holds exactly `jobs` arrivals);
//! * the clock restarts at 0 every [`REBASE_EVENTS`] events ([`Calendar::rebase`]), so the
//!   waits keep full f64 precision however long the run.
//!
//! Common random numbers: the gaps come from [`STREAM_ARRIVALS`] as exp1 · (1/λ) and the
//! sizes from [`STREAM_SIZES`], one per arrival in arrival order — the draws of the
//! dispatch driver. With the same (seed, point, replication), FCFS on c servers meets the
//! same jobs as the Least-Work-Left kernel on c hosts (the M/G/c FCFS queue, Kiefer &
//! Wolfowitz 1955) and, for c = 1, as the Lindley kernels: the waits agree job by job up to
//! rounding ([`Mgc::trace`]).
//!
//! Closed forms it is tested against (`tests/sim_event.rs`): M/M/1, E\[W\] = ρ/(μ − λ) for
//! FCFS and ROS alike (the mean waiting does not depend on the order of service among
//! disciplines that ignore sizes); E\[W²\] of M/M/1-FCFS, 2ρ/(μ − λ)², and of ROS, that over
//! (1 − ρ/2) (Kingman 1962); Erlang C for M/M/c; L = ρ/(1 − ρ) for M/M/1.

use super::calendar::Calendar;
use crate::dist::Sampler;
use crate::sim::observe::{names, Key, Sample};
use crate::sim::rng::{exp1, index, STREAM_ARRIVALS, STREAM_ROUTING, STREAM_SIZES};
use crate::sim::{SimError, Simulator, Streams, TailEvidence, Tally};
use std::collections::VecDeque;

/// Events between two restarts of the clock.
pub const REBASE_EVENTS: u64 = 4096;

/// The order in which a free server takes waiting jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discipline {
    /// First come, first served: the oldest waiting job.
    Fcfs,
    /// Random order of service: a uniformly random waiting job.
    Ros,
}

impl Discipline {
    /// `fcfs` or `ros`.
    pub fn name(self) -> &'static str {
        match self {
            Discipline::Fcfs => "fcfs",
            Discipline::Ros => "ros",
        }
    }
}

/// The M/G/c queue.
pub struct Mgc {
    servers: usize,
    lambda: f64,
    sizes: Box<dyn Sampler>,
    discipline: Discipline,
    jobs: u64,
    warmup: u64,
}

impl std::fmt::Debug for Mgc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mgc")
            .field("servers", &self.servers)
            .field("lambda", &self.lambda)
            .field("discipline", &self.discipline)
            .field("jobs", &self.jobs)
            .field("warmup", &self.warmup)
            .finish()
    }
}

/// The events of the M/G/c queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// The next job arrives.
    Arrival,
    /// Server s completes its job.
    Departure(usize),
}

/// A job in the system.
#[derive(Debug, Clone, Copy)]
struct Job {
    /// Arrival number, from 0.
    id: u64,
    /// Arrival time (on the current clock).
    arrival: f64,
    /// Size.
    size: f64,
}

/// The sums of one replication of [`Mgc`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MgcTally {
    /// Measured jobs.
    pub n: u64,
    /// Σ W over the measured jobs, W a job's waiting time in queue (time unit of the sizes).
    pub sum_w: f64,
    /// Σ W² over the measured jobs (the second moment of the waiting time).
    pub sum_w2: f64,
    /// Σ X over the measured jobs, X a job's size (its service time).
    pub sum_x: f64,
    /// Σ W/X.
    pub sum_slowdown: f64,
    /// Σ X² over the measured jobs (the heavy-tail evidence, [`crate::sim::TailEvidence`]).
    pub sum_x2: f64,
    /// The largest X² of a measured job (its share of `sum_x2` is the evidence).
    pub max_x2: f64,
    /// ∫ N(t) dt over the observation window.
    pub area: f64,
    /// Length of the observation window.
    pub window: f64,
    /// Events processed (arrivals and departures), warm-up included.
    pub events: u64,
}

impl MgcTally {
    fn job(&mut self, w: f64, x: f64) {
        self.n += 1;
        self.sum_w += w;
        self.sum_w2 += w * w;
        self.sum_x += x;
        self.sum_slowdown += crate::sim::slowdown(w, x);
        crate::sim::add_square(&mut self.sum_x2, &mut self.max_x2, x);
    }
}

impl Tally for MgcTally {
    fn samples(&self, out: &mut Vec<(Key, Sample)>) {
        let per_job = |s: f64| Sample::per_job(s, self.n);
        out.push((Key::scalar(names::WAITING), per_job(self.sum_w)));
        out.push((Key::scalar(names::WAITING_SQUARED), per_job(self.sum_w2)));
        out.push((
            Key::scalar(names::RESPONSE),
            per_job(self.sum_w + self.sum_x),
        ));
        out.push((Key::scalar(names::SLOWDOWN), per_job(self.sum_slowdown)));
        out.push((
            Key::scalar(names::NUMBER),
            Sample::per_time(self.area, self.window, self.n),
        ));
    }

    fn tail_evidence(&self) -> Option<TailEvidence> {
        Some(TailEvidence::from_sums(
            self.sum_w,
            self.n,
            self.max_x2,
            self.sum_x2,
        ))
    }

    fn events(&self) -> u64 {
        self.events
    }
}

impl Mgc {
    /// `servers` servers fed at rate `lambda` with sizes from `sizes`, `warmup` discarded
    /// and `jobs` measured jobs per replication. Stability (λ E\[X\] < c) is the caller's to
    /// check: an unstable queue only drifts.
    pub fn new(
        servers: usize,
        lambda: f64,
        sizes: Box<dyn Sampler>,
        discipline: Discipline,
        jobs: u64,
        warmup: u64,
    ) -> Result<Self, SimError> {
        let bad = |s: String| Err(SimError::BadConfig(s));
        if servers < 1 {
            return bad(format!("servers must be at least 1, got {servers}"));
        }
        if !(lambda.is_finite() && lambda > 0.0) {
            return bad(format!(
                "the arrival rate must be finite and positive, got {lambda}"
            ));
        }
        if jobs == 0 {
            return bad("jobs must be at least 1".into());
        }
        if jobs.checked_add(warmup).is_none() {
            return bad("jobs + warmup overflows".into());
        }
        Ok(Mgc {
            servers,
            lambda,
            sizes,
            discipline,
            jobs,
            warmup,
        })
    }

    /// Replication `streams` with the waiting time of every job up to the last measured
    /// one (warm-up included), indexed by arrival number: for job-by-job comparisons under
    /// common random numbers.
    pub fn trace(&self, streams: &Streams) -> (MgcTally, Vec<f64>) {
        let n = usize::try_from(self.warmup + self.jobs).unwrap_or(0);
        let mut waits = vec![f64::NAN; n];
        let t = self.run(streams, |id, w| {
            if let Some(slot) = usize::try_from(id).ok().and_then(|i| waits.get_mut(i)) {
                *slot = w;
            }
        });
        (t, waits)
    }

    /// The event loop; `seen(id, w)` is told every job's waiting when it starts service.
    fn run<F: FnMut(u64, f64)>(&self, streams: &Streams, mut seen: F) -> MgcTally {
        let mut ra = streams.rng(STREAM_ARRIVALS);
        let mut rx = streams.rng(STREAM_SIZES);
        let mut rr = streams.rng(STREAM_ROUTING);
        let mean_gap = 1.0 / self.lambda;
        let first = self.warmup;
        let end = self.warmup + self.jobs;
        let c = self.servers;

        let mut cal: Calendar<Event> = Calendar::with_capacity(c + 1);
        // Idle servers as a stack: server 0 is taken first.
        let mut idle: Vec<usize> = (0..c).rev().collect();
        let mut queue: VecDeque<Job> = VecDeque::new();
        let mut st = MgcTally::default();
        let mut arrivals = 0u64;
        let mut started = 0u64; // measured jobs that have started service
        let mut in_system = 0u64;
        // The observation window of the time average: open from the arrival of job
        // `first`, closed at the arrival of job `end`.
        let mut window_open = false;
        let mut window_done = false;
        let mut last = 0.0f64;

        cal.schedule_at(exp1(&mut ra) * mean_gap, Event::Arrival);
        let mut start = |job: Job, now: f64, st: &mut MgcTally, started: &mut u64| {
            let w = now - job.arrival;
            seen(job.id, w);
            if (first..end).contains(&job.id) {
                st.job(w, job.size);
                *started += 1;
            }
        };
        while !(started == self.jobs && window_done) {
            let Some((now, ev)) = cal.pop() else {
                break;
            };
            st.events += 1;
            if window_open {
                st.area += in_system as f64 * (now - last);
                st.window += now - last;
            }
            last = now;
            match ev {
                Event::Arrival => {
                    let job = Job {
                        id: arrivals,
                        arrival: now,
                        size: self.sizes.sample(&mut rx),
                    };
                    arrivals += 1;
                    if job.id == first {
                        window_open = true;
                    } else if job.id == end {
                        window_open = false;
                        window_done = true;
                    }
                    in_system += 1;
                    cal.schedule_at(now + exp1(&mut ra) * mean_gap, Event::Arrival);
                    match idle.pop() {
                        Some(s) => {
                            start(job, now, &mut st, &mut started);
                            cal.schedule_at(now + job.size, Event::Departure(s));
                        }
                        None => queue.push_back(job),
                    }
                }
                Event::Departure(s) => {
                    in_system -= 1;
                    let next = match self.discipline {
                        Discipline::Fcfs => queue.pop_front(),
                        Discipline::Ros if queue.is_empty() => None,
                        Discipline::Ros => queue.swap_remove_back(index(&mut rr, queue.len())),
                    };
                    match next {
                        Some(job) => {
                            start(job, now, &mut st, &mut started);
                            cal.schedule_at(now + job.size, Event::Departure(s));
                        }
                        None => idle.push(s),
                    }
                }
            }
            if st.events % REBASE_EVENTS == 0 {
                // Restart the clock: every stored time moves back by `now`.
                cal.rebase(now);
                for j in queue.iter_mut() {
                    j.arrival -= now;
                }
                last -= now;
            }
        }
        st
    }
}

impl Simulator for Mgc {
    type Tally = MgcTally;
    fn replicate(&self, streams: &Streams) -> MgcTally {
        self.run(streams, |_, _| {})
    }
}
