//! The simulators: one replication of h FCFS hosts fed by one arrival stream.
//!
//! Each policy is a `Kernel` that takes the jobs in arrival order and returns each job's
//! waiting time; the driver ([`replicate`]) draws sizes and arrival times in blocks of
//! [`BLOCK`] into reusable buffers (no allocation and no dynamic dispatch in the kernels'
//! loop; the only virtual call is the size sampler's, once per job in the fill loop).
//! After every block the clock restarts at 0 (all stored times are shifted), so a waiting
//! time, a difference of two times, keeps full f64 precision in runs of any length.
//!
//! The methods are exact (no time discretisation):
//! * SITA, Random, Round-Robin: a Lindley recursion per host. Host j keeps the time
//!   `free[j]` at which it finishes its current work; a job arriving at t waits
//!   W = max(free\[j\], t) − t and `free[j]` becomes t + W + X (Lindley 1952:
//!   W_{n+1} = max(W_n + X_n − A_{n+1}, 0) with A the inter-arrival time at that host).
//! * TAGS: the same recursion along the chain of hosts. Host i runs a job for min(X, s_i);
//!   a job with X > s_i is killed when that budget is spent and joins host i+1 at the
//!   kill time. Host i is FCFS, so kill times increase with arrival order and host i+1's
//!   arrivals are met in arrival order: one pass over the jobs, each pushed down the
//!   chain, is exact. A job's waiting is its queueing at every host it visits plus the
//!   service s_i wasted at every host that killed it (DESIGN.md).
//! * Least-Work-Left: dispatching to the host with the least unfinished work is the M/G/h
//!   FCFS central queue; its state is the Kiefer–Wolfowitz workload vector (Kiefer &
//!   Wolfowitz 1955): the job waits for the smallest workload, which then grows by X.
//!   The vector is kept as finishing times in a binary min-heap (O(log h) per job).
//! * JSQ: the queue length of host j at time t is the number of its jobs whose departure
//!   is after t. Hosts are FCFS, so each host's departure times increase in the order jobs
//!   were sent to it: a FIFO of departure times per host, emptied of the departures ≤ t at
//!   each arrival, is an exact event simulation without a global event list. Ties between
//!   shortest queues are broken uniformly at random (routing stream).

use super::observe::{names, Key, Sample};
use super::rng::{exp1, index, STREAM_ARRIVALS, STREAM_ROUTING, STREAM_SIZES};
use super::{
    Arrivals, Progress, Replicated, Replicator, SimConfig, SimError, SimPolicy, Simulator, Streams,
    TailEvidence, Tally,
};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Jobs drawn per block (sizes and arrival times are generated a block at a time).
pub const BLOCK: usize = 4096;

/// Initial capacity of each JSQ host's FIFO of departure times (it grows if needed).
const JSQ_FIFO_CAPACITY: usize = 64;

/// Sums over the measured jobs of one replication.
#[derive(Debug, Clone, PartialEq)]
pub struct RepStats {
    /// Measured jobs.
    pub n: u64,
    /// Σ W (waiting, including TAGS's wasted service).
    pub sum_w: f64,
    /// Σ X.
    pub sum_x: f64,
    /// Σ W/X.
    pub sum_slowdown: f64,
    /// Σ of the service wasted on hosts that killed the job (TAGS; 0 otherwise).
    pub sum_wasted: f64,
    /// Σ X².
    pub sum_x2: f64,
    /// max X².
    pub max_x2: f64,
    /// Visits per host (jobs served there; for TAGS also jobs killed there).
    pub host_n: Vec<u64>,
    /// Σ of the queueing delay of the visits, per host.
    pub host_w: Vec<f64>,
    /// Jobs simulated, warm-up included.
    pub simulated: u64,
}

impl Tally for RepStats {
    fn samples(&self, out: &mut Vec<(Key, Sample)>) {
        let per_job = |s: f64| Sample::per_job(s, self.n);
        out.push((Key::scalar(names::WAITING), per_job(self.sum_w)));
        out.push((
            Key::scalar(names::RESPONSE),
            per_job(self.sum_w + self.sum_x),
        ));
        out.push((Key::scalar(names::SLOWDOWN), per_job(self.sum_slowdown)));
        out.push((
            Key::scalar(names::QUEUEING),
            per_job(self.sum_w - self.sum_wasted),
        ));
        out.push((Key::scalar(names::WASTED), per_job(self.sum_wasted)));
        for (j, (&w, &n)) in self.host_w.iter().zip(&self.host_n).enumerate() {
            out.push((Key::at(names::HOST_WAITING, j), Sample::per_job(w, n)));
        }
    }

    fn tail_evidence(&self) -> Option<TailEvidence> {
        Some(TailEvidence {
            mean: self.sum_w / self.n as f64,
            dominant_job_share: if self.sum_x2 > 0.0 {
                self.max_x2 / self.sum_x2
            } else {
                0.0
            },
        })
    }

    fn events(&self) -> u64 {
        self.simulated
    }
}

impl RepStats {
    fn new(hosts: usize) -> Self {
        RepStats {
            n: 0,
            sum_w: 0.0,
            sum_x: 0.0,
            sum_slowdown: 0.0,
            sum_wasted: 0.0,
            sum_x2: 0.0,
            max_x2: 0.0,
            host_n: vec![0; hosts],
            host_w: vec![0.0; hosts],
            simulated: 0,
        }
    }

    #[inline]
    fn visit(&mut self, host: usize, w: f64) {
        self.host_n[host] += 1;
        self.host_w[host] += w;
    }

    #[inline]
    fn job(&mut self, w: f64, x: f64) {
        self.n += 1;
        self.sum_w += w;
        self.sum_x += x;
        self.sum_slowdown += if x > 0.0 {
            w / x
        } else if w == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        let x2 = x * x;
        self.sum_x2 += x2;
        if x2 > self.max_x2 {
            self.max_x2 = x2;
        }
    }
}

/// A dispatching policy over FCFS hosts, fed jobs in arrival order: the extension point of
/// the dispatch simulators (a new policy is a new kernel). A kernel value is the state at
/// time 0; every replication runs a clone of it.
pub trait Kernel: Clone + Send + Sync {
    /// The job arriving at `t` with size `x`: records its visits in `st` and returns its
    /// waiting time.
    fn job(&mut self, t: f64, x: f64, rng: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64;
    /// Moves the time origin to `shift`: every stored time decreases by `shift`.
    fn rebase(&mut self, shift: f64);
}

/// Moves every finishing time back by `shift`.
fn rebase_all(free: &mut [f64], shift: f64) {
    for f in free {
        *f -= shift;
    }
}

/// SITA: host i takes the sizes in (s_{i−1}, s_i].
#[derive(Clone)]
struct Sita {
    cut: Vec<f64>,
    free: Vec<f64>,
}

impl Kernel for Sita {
    #[inline]
    fn job(&mut self, t: f64, x: f64, _: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let i = self.cut.partition_point(|&c| c < x);
        lindley(&mut self.free, i, t, x, st)
    }
    fn rebase(&mut self, shift: f64) {
        rebase_all(&mut self.free, shift);
    }
}

/// Lindley step at host i: returns the wait and books the visit. The service starts at
/// max(free, t) and the host is next free at that plus x; the wait max(free, t) − t is
/// computed off that chain (a shorter loop-carried dependency, and no t + (free − t)
/// rounding).
#[inline]
fn lindley(free: &mut [f64], i: usize, t: f64, x: f64, st: &mut RepStats) -> f64 {
    let start = free[i].max(t);
    free[i] = start + x;
    let w = start - t;
    st.visit(i, w);
    w
}

/// Random routing.
#[derive(Clone)]
struct Random {
    free: Vec<f64>,
}

impl Kernel for Random {
    #[inline]
    fn job(&mut self, t: f64, x: f64, rng: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let i = index(rng, self.free.len());
        lindley(&mut self.free, i, t, x, st)
    }
    fn rebase(&mut self, shift: f64) {
        rebase_all(&mut self.free, shift);
    }
}

/// Round-Robin: job n goes to host n mod h.
#[derive(Clone)]
struct RoundRobin {
    free: Vec<f64>,
    next: usize,
}

impl Kernel for RoundRobin {
    #[inline]
    fn job(&mut self, t: f64, x: f64, _: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let i = self.next;
        self.next += 1;
        if self.next == self.free.len() {
            self.next = 0;
        }
        lindley(&mut self.free, i, t, x, st)
    }
    fn rebase(&mut self, shift: f64) {
        rebase_all(&mut self.free, shift);
    }
}

/// TAGS: the chain of hosts with kill budgets s_1 < … < s_{h−1}.
#[derive(Clone)]
struct Tags {
    cut: Vec<f64>,
    free: Vec<f64>,
}

impl Kernel for Tags {
    #[inline]
    fn job(&mut self, t: f64, x: f64, _: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let last = self.free.len() - 1;
        let mut arrive = t;
        let mut w = 0.0;
        let mut wasted = 0.0;
        for i in 0..last {
            let start = self.free[i].max(arrive);
            let q = start - arrive;
            st.visit(i, q);
            w += q;
            let s = self.cut[i];
            if x <= s {
                self.free[i] = start + x;
                st.sum_wasted += wasted;
                return w + wasted;
            }
            // Killed after s: it joins host i+1 at the kill time.
            let kill = start + s;
            self.free[i] = kill;
            arrive = kill;
            wasted += s;
        }
        let start = self.free[last].max(arrive);
        let q = start - arrive;
        st.visit(last, q);
        self.free[last] = start + x;
        st.sum_wasted += wasted;
        w + q + wasted
    }
    fn rebase(&mut self, shift: f64) {
        rebase_all(&mut self.free, shift);
    }
}

/// Least-Work-Left: the Kiefer–Wolfowitz workload vector as a min-heap of (finish time,
/// host).
#[derive(Clone)]
struct Lwl {
    heap: Vec<(f64, usize)>,
}

impl Kernel for Lwl {
    #[inline]
    fn job(&mut self, t: f64, x: f64, _: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let (f, host) = self.heap[0];
        let start = f.max(t);
        let w = start - t;
        self.heap[0].0 = start + x;
        sift_down(&mut self.heap);
        st.visit(host, w);
        w
    }
    fn rebase(&mut self, shift: f64) {
        // A common shift keeps the heap order.
        for e in &mut self.heap {
            e.0 -= shift;
        }
    }
}

/// Restores the min-heap order after the root grew.
#[inline]
fn sift_down(h: &mut [(f64, usize)]) {
    let n = h.len();
    let mut i = 0;
    loop {
        let l = 2 * i + 1;
        if l >= n {
            return;
        }
        // The smaller child, chosen without a branch (the comparison is a coin flip that a
        // branch predictor cannot learn).
        let r = (l + 1).min(n - 1);
        let c = l + usize::from(h[r].0 < h[l].0);
        if h[c].0 < h[i].0 {
            h.swap(c, i);
            i = c;
        } else {
            return;
        }
    }
}

/// Join-the-Shortest-Queue with FIFOs of departure times.
#[derive(Clone)]
struct Jsq {
    free: Vec<f64>,
    departures: Vec<VecDeque<f64>>,
}

impl Kernel for Jsq {
    #[inline]
    fn job(&mut self, t: f64, x: f64, rng: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
        let mut best = usize::MAX;
        let mut ties = 0usize;
        for d in self.departures.iter_mut() {
            while d.front().is_some_and(|&dep| dep <= t) {
                d.pop_front();
            }
            let len = d.len();
            if len < best {
                best = len;
                ties = 1;
            } else if len == best {
                ties += 1;
            }
        }
        let pick = if ties > 1 { index(rng, ties) } else { 0 };
        let mut seen = 0usize;
        let mut host = 0usize;
        for (j, d) in self.departures.iter().enumerate() {
            if d.len() == best {
                if seen == pick {
                    host = j;
                    break;
                }
                seen += 1;
            }
        }
        let w = lindley(&mut self.free, host, t, x, st);
        self.departures[host].push_back(self.free[host]);
        w
    }
    fn rebase(&mut self, shift: f64) {
        rebase_all(&mut self.free, shift);
        for d in &mut self.departures {
            for x in d.iter_mut() {
                *x -= shift;
            }
        }
    }
}

/// A dispatch simulator: the jobs of `cfg` fed to kernel `K` (one monomorphised driver per
/// kernel: no dynamic dispatch per job).
pub struct Dispatch<'a, K> {
    cfg: &'a SimConfig,
    kernel: K,
}

impl<'a, K: Kernel> Dispatch<'a, K> {
    /// The jobs of `cfg` (validated) through `kernel` (its state at time 0).
    pub fn new(cfg: &'a SimConfig, kernel: K) -> Self {
        Dispatch { cfg, kernel }
    }
}

impl<K: Kernel> Simulator for Dispatch<'_, K> {
    type Tally = RepStats;
    fn replicate(&self, streams: &Streams) -> RepStats {
        drive(self.cfg, streams, self.kernel.clone())
    }
}

/// Something to do with the kernel of `cfg.policy`, generic in the kernel: the one place
/// where a policy name becomes a kernel type ([`with_kernel`]).
pub trait WithKernel {
    /// The result.
    type Output;
    /// Does it with `kernel` (the policy's state at time 0).
    fn call<K: Kernel>(self, cfg: &SimConfig, kernel: K) -> Self::Output;
}

/// Calls `w` with the kernel of `cfg.policy`.
pub fn with_kernel<W: WithKernel>(cfg: &SimConfig, w: W) -> W::Output {
    let h = cfg.hosts;
    match cfg.policy {
        SimPolicy::Sita => w.call(
            cfg,
            Sita {
                cut: cfg.cutoffs.clone(),
                free: vec![0.0; h],
            },
        ),
        SimPolicy::Tags => w.call(
            cfg,
            Tags {
                cut: cfg.cutoffs.clone(),
                free: vec![0.0; h],
            },
        ),
        SimPolicy::Random => w.call(cfg, Random { free: vec![0.0; h] }),
        SimPolicy::RoundRobin => w.call(
            cfg,
            RoundRobin {
                free: vec![0.0; h],
                next: 0,
            },
        ),
        SimPolicy::Lwl => w.call(
            cfg,
            Lwl {
                heap: (0..h).map(|j| (0.0, j)).collect(),
            },
        ),
        SimPolicy::Jsq => w.call(
            cfg,
            Jsq {
                free: vec![0.0; h],
                departures: (0..h)
                    .map(|_| VecDeque::with_capacity(JSQ_FIFO_CAPACITY))
                    .collect(),
            },
        ),
    }
}

/// Runs replication `rep` of `cfg` (which has been validated) on the calling thread.
pub fn replicate(cfg: &SimConfig, rep: u64) -> RepStats {
    struct One(Streams);
    impl WithKernel for One {
        type Output = RepStats;
        fn call<K: Kernel>(self, cfg: &SimConfig, kernel: K) -> RepStats {
            drive(cfg, &self.0, kernel)
        }
    }
    let streams = Streams {
        seed: cfg.seed,
        point: cfg.point,
        replication: rep,
    };
    with_kernel(cfg, One(streams))
}

/// Runs every replication of `cfg` (validated) with `rep`.
pub fn run(
    cfg: &SimConfig,
    rep: &Replicator,
    progress: Option<Progress>,
) -> Result<Replicated<RepStats>, SimError> {
    struct All<'r, 'p>(&'r Replicator, Option<Progress<'p>>);
    impl WithKernel for All<'_, '_> {
        type Output = Result<Replicated<RepStats>, SimError>;
        fn call<K: Kernel>(self, cfg: &SimConfig, kernel: K) -> Self::Output {
            self.0.run(&Dispatch::new(cfg, kernel), self.1)
        }
    }
    with_kernel(cfg, All(rep, progress))
}

/// The replication driver: warm-up jobs, then measured jobs, drawn in blocks.
fn drive<K: Kernel>(cfg: &SimConfig, streams: &Streams, mut kernel: K) -> RepStats {
    let mut ra = streams.rng(STREAM_ARRIVALS);
    let mut rx = streams.rng(STREAM_SIZES);
    let mut rr = streams.rng(STREAM_ROUTING);
    let mean_gap = 1.0 / cfg.lambda;
    let mut xs = vec![0.0f64; BLOCK];
    let mut ts = vec![0.0f64; BLOCK];
    let mut t = 0.0f64;
    let mut st = RepStats::new(cfg.hosts);
    for (phase_jobs, measured) in [(cfg.warmup, false), (cfg.jobs, true)] {
        if measured {
            st = RepStats::new(cfg.hosts);
        }
        let mut left = phase_jobs;
        while left > 0 {
            let b = usize::try_from(left).map_or(BLOCK, |l| l.min(BLOCK));
            // Sizes and gaps are drawn in the same loop: the sampler is a virtual call
            // whose latency (a `pow` for Bounded Pareto) the CPU hides behind the
            // independent gap generation only when both sit in one loop body (measured:
            // 1.7× faster than two separate loops).
            match &cfg.arrivals {
                Arrivals::Poisson => {
                    cfg.sizes.fill(&mut rx, &mut xs[..b]);
                    for tt in ts[..b].iter_mut() {
                        // Exp(λ) gap: an Exp(1) ziggurat variate times 1/λ.
                        t += exp1(&mut ra) * mean_gap;
                        *tt = t;
                    }
                }
                Arrivals::Renewal { gaps, scale } => {
                    for (tt, x) in ts[..b].iter_mut().zip(xs[..b].iter_mut()) {
                        *x = cfg.sizes.sample(&mut rx);
                        t += gaps.sample(&mut ra) * scale;
                        *tt = t;
                    }
                }
            }
            for (&tt, &x) in ts[..b].iter().zip(&xs[..b]) {
                let w = kernel.job(tt, x, &mut rr, &mut st);
                st.job(w, x);
            }
            // Restart the clock at every block, so that times stay small and the waits
            // (differences of times) keep full f64 precision however long the run.
            kernel.rebase(t);
            t = 0.0;
            left -= b as u64;
        }
    }
    st.simulated = cfg.warmup + cfg.jobs;
    st
}
