//! The dispatch policies' kernels, and the one map from a policy name to its kernel type.
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
//!   service s_i wasted at every host that killed it (ARCHITECTURE.md, "The model").
//! * Least-Work-Left: dispatching to the host with the least unfinished work is the M/G/h
//!   FCFS central queue; its state is the Kiefer–Wolfowitz workload vector (Kiefer &
//!   Wolfowitz 1955): the job waits for the smallest workload, which then grows by X.
//!   The vector is kept as finishing times in a binary min-heap (O(log h) per job).
//! * JSQ: the queue length of host j at time t is the number of its jobs whose departure
//!   is after t. Hosts are FCFS, so each host's departure times increase in the order jobs
//!   were sent to it: a FIFO of departure times per host, emptied of the departures ≤ t at
//!   each arrival, is an exact event simulation without a global event list. Ties between
//!   shortest queues are broken uniformly at random (routing stream).
//!
//! A new dispatch policy over FCFS hosts is a new [`Kernel`] here and one arm in
//! [`with_kernel`].

use super::engine::{Dispatch, Kernel, RepStats};
use super::{SimConfig, SimPolicy};
use crate::sim::rng::index;
use crate::sim::{Progress, Replicated, Replicator, SimError, Simulator, Streams};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Initial capacity of each JSQ host's FIFO of departure times (it grows if needed).
const JSQ_FIFO_CAPACITY: usize = 64;

// Every kernel's `job` is `#[inline(always)]`: it has one call site per kernel (the
// driver's loop, monomorphised in another module), and the inliner left the larger ones
// (JSQ) out of line, which cost 8 % more instructions per job (cachegrind).

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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
struct Jsq {
    free: Vec<f64>,
    departures: Vec<VecDeque<f64>>,
}

/// A clone keeps each FIFO's capacity (a derived clone would start them empty and let them
/// grow again in every replication).
impl Clone for Jsq {
    fn clone(&self) -> Self {
        Jsq {
            free: self.free.clone(),
            departures: self
                .departures
                .iter()
                .map(|d| {
                    let mut c = VecDeque::with_capacity(d.capacity().max(JSQ_FIFO_CAPACITY));
                    c.extend(d.iter().copied());
                    c
                })
                .collect(),
        }
    }
}

impl Kernel for Jsq {
    #[inline(always)]
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
            Dispatch::new(cfg, kernel).replicate(&self.0)
        }
    }
    let streams = Streams {
        seed: cfg.run.seed,
        point: cfg.run.point,
        replication: rep,
    };
    with_kernel(cfg, One(streams))
}

/// Replication `rep` of `cfg` (validated) on the calling thread, with the waiting time of
/// every job (warm-up included) in arrival order: for job-by-job comparisons with other
/// engines under common random numbers.
pub fn trace(cfg: &SimConfig, rep: u64) -> (RepStats, Vec<f64>) {
    struct Traced(Streams);
    impl WithKernel for Traced {
        type Output = (RepStats, Vec<f64>);
        fn call<K: Kernel>(self, cfg: &SimConfig, kernel: K) -> Self::Output {
            let n = usize::try_from(cfg.warmup().saturating_add(cfg.jobs())).unwrap_or(0);
            let mut waits = Vec::with_capacity(n);
            let st = Dispatch::new(cfg, kernel).replicate_probed(&self.0, &mut waits);
            (st, waits)
        }
    }
    let streams = Streams {
        seed: cfg.run.seed,
        point: cfg.run.point,
        replication: rep,
    };
    with_kernel(cfg, Traced(streams))
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
