//! The occupancy simulator of JSQ(d) (the module docs of [`super`] describe the method):
//! one uniform per event decides between arrival and departure and, rescaled, which level
//! changes; time integrals are kept lazily per level.

use super::{Counts, Obs, Plan, STREAM_EVENTS};
use crate::lb::model::{tail_table, JsqSystem, LbError, ModelKind};
use crate::sim::rng::{exp1, unit_f64};
use crate::sim::warmup::TimeSeries;
use crate::sim::{Simulator, Streams};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Levels allocated at the start for an infinite capacity (they grow when needed).
const INITIAL_LEVELS: usize = 64;
/// Levels compared per step of the branch-free level scans: the level an arrival joins is
/// the number of levels with P(min ≥ i) > w, a predicate true on a prefix of the levels,
/// so it is counted CHUNK levels at a time without a data-dependent branch (the exit
/// level is unpredictable, and a mispredicted branch per level scanned costs more than
/// the comparisons). The level arrays keep CHUNK zero levels above the top.
const CHUNK: usize = 8;
/// Events between two progress reports of a replication (a mask: every 2^22 events, a
/// fraction of a second).
const PROGRESS_EVERY: u64 = (1 << 22) - 1;

/// The occupancy simulator (module docs).
#[derive(Debug, Clone)]
pub struct OccupancySim {
    system: JsqSystem,
    plan: Plan,
    tail: Vec<f64>,
    lambda_n: f64,
    cap: usize,
    d: u64,
    levels: usize,
    /// Events simulated by every replication so far (for the progress reports) and the
    /// run's expected total.
    done: Arc<AtomicU64>,
    expected: u64,
}

impl OccupancySim {
    /// A simulator of `system` over `plan` (builds the O(N) table of P(min ≥ i)).
    pub fn new(system: &JsqSystem, plan: &Plan) -> Result<Self, LbError> {
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
            done: Arc::new(AtomicU64::new(0)),
            expected: 0,
        })
    }

    /// Reports progress as `events` of `expected` over all replications
    /// ([`crate::progress`]; the runner gives its estimate of the run's events).
    pub fn with_expected_events(mut self, expected: u64) -> Self {
        self.expected = expected;
        self
    }

    /// The system simulated.
    pub fn system(&self) -> &JsqSystem {
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
    /// N o_i for the plan's second reference o (0 beyond it, and everywhere without one).
    own_target: Vec<f64>,
    /// ∫ |Q_i − N o_i| dt (kept with either reference: `DIST`).
    acc_own: Vec<f64>,
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
        self.own_target.resize(len, 0.0);
        self.acc_own.resize(len, 0.0);
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
            self.acc_own[i] += (v - self.own_target[i]).abs() * dt;
        }
        self.last[i] = t;
    }
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
        series: &mut TimeSeries,
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
                series.add(*t, until, st.tasks as f64);
                *t = until;
                return;
            }
            series.add(*t, tn, st.tasks as f64);
            *t = tn;
            c.events += 1;
            if MEASURE {
                c.measured += 1;
            }
            if c.events & PROGRESS_EVERY == 0 {
                self.progress();
            }
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

    /// Adds [`PROGRESS_EVERY`] + 1 events to the run's count and reports it.
    #[cold]
    fn progress(&self) {
        let step = PROGRESS_EVERY + 1;
        let done = self.done.fetch_add(step, Ordering::Relaxed) + step;
        let total = (self.expected > 0).then_some(self.expected.max(done));
        crate::progress::report("events", done, total, "");
    }

    fn run_one<const POOLS: bool, const DIST: bool>(&self, streams: &Streams, warmup: f64) -> Obs {
        let mut rng = streams.rng(STREAM_EVENTS);
        let n = self.system.servers() as u32;
        let start = &self.plan.start;
        // Every level of the reference has its slot from the start (so that a level
        // added by `grow` has the reference's 0 there).
        let len = match self.system.model().buffer() {
            Some(b) => b as usize + 2 + CHUNK,
            None => INITIAL_LEVELS.max(start.len() + 2 + CHUNK),
        }
        .max(self.plan.reference.len() + 2 + CHUNK)
        .max(self.plan.own_reference.len() + 2 + CHUNK);
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
        let mut own_target = vec![0.0; len];
        for (i, r) in self.plan.own_reference.iter().enumerate() {
            own_target[i + 1] = nf * r;
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
            own_target,
            acc_own: vec![0.0; len],
        };
        let mut t = 0.0;
        let mut samples = Vec::with_capacity(self.plan.sample_times.len());
        let mut next_sample = 0;
        let mut c = Counts::default();
        let t_warm = warmup;
        let t_end = t_warm + self.plan.horizon;
        let mut series = TimeSeries::new(t_end, t_warm);
        self.phase::<POOLS, false, false>(
            &mut st,
            &mut rng,
            &mut t,
            t_warm,
            &mut samples,
            &mut next_sample,
            &mut c,
            &mut series,
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
            &mut series,
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
        let distance_time =
            (DIST && !self.plan.reference.is_empty()).then(|| st.acc_dist[1..].iter().sum::<f64>());
        let own_distance_time = (DIST && !self.plan.own_reference.is_empty())
            .then(|| st.acc_own[1..].iter().sum::<f64>());
        Obs {
            servers: u64::from(n),
            reported_levels: self.levels,
            replications: 1,
            measured_time: self.plan.horizon,
            level_time: st.acc[1..=levels].to_vec(),
            level_sq_time: st.acc2[1..=levels].to_vec(),
            distance_time,
            own_distance_time,
            scaled_idle_sd_sum: 0.0,
            arrivals: c.arrivals,
            blocked: c.blocked,
            events: c.events,
            measured_events: c.measured,
            samples_drawn: c.all_arrivals.saturating_mul(self.d),
            trajectory: samples,
            series: Some(series.finish(t_end, nf)),
        }
        .finish()
    }

    fn run_from(&self, streams: &Streams, warmup: f64) -> Obs {
        let dist = !(self.plan.reference.is_empty() && self.plan.own_reference.is_empty());
        match (self.system.model().kind(), dist) {
            (ModelKind::Queues, false) => self.run_one::<false, false>(streams, warmup),
            (ModelKind::Queues, true) => self.run_one::<false, true>(streams, warmup),
            (ModelKind::Pools, false) => self.run_one::<true, false>(streams, warmup),
            (ModelKind::Pools, true) => self.run_one::<true, true>(streams, warmup),
        }
    }
}

impl Simulator for OccupancySim {
    type Tally = Obs;

    fn replicate(&self, streams: &Streams) -> Obs {
        self.run_from(streams, self.plan.warmup)
    }

    /// The same start and streams, `warmup` of simulated time discarded. The events after
    /// the configured warm-up differ from the first run's (a phase ends by drawing a new
    /// gap), so the extension is an independent continuation from the state at the
    /// configured warm-up.
    fn replicate_from(&self, streams: &Streams, warmup: f64) -> Option<Obs> {
        (warmup.is_finite() && warmup >= 0.0).then(|| self.run_from(streams, warmup))
    }
}
