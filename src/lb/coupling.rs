//! JSQ, JSQ(d), a CJSQ(n) scheme and MJSQ(n) on one uniformised clock, with the pathwise
//! inequalities of the papers' coupling checked at every event (arXiv 1612.00723 §4 for
//! queues, 1612.00722 §3 for pools).
//!
//! **The coupling** (our reconstruction; what is assumed is said here). Each system's
//! servers are kept in ascending order of length, positions 0 … N − 1 (ties in any
//! order: only the multiset matters). All systems share one event sequence:
//! * an **arrival** (probability λN / total rate) draws the d sampled *positions* once,
//!   uniformly without (or with) replacement; only their minimum p* matters, and
//!   P(p* ≥ p) = C(N − p, d)/C(N, d) (resp. ((N − p)/N)^d), so p* is drawn by inversion
//!   with a binary search. JSQ joins position 0; JSQ(d) joins p* (the sampled server with
//!   the fewest tasks, since positions are ordered); **CJSQ(n)** — a member of the papers'
//!   class of schemes that always join one of the n + 1 lowest ordered servers — joins p*
//!   when p* ≤ n and position 0 otherwise; **MJSQ(n)** joins position n, the (n + 1)-th
//!   lowest server (the largest member of the class, see below). Each marginal is the
//!   scheme it names, because a uniform sample of positions is a uniform sample of servers.
//! * a **departure** (queues): an ordered position k, uniform, and in every system the
//!   server at position k completes a task if it has one (rate 1 per position: the
//!   uniformisation at λN + N). **Pools** ([`PoolDepartures::TaskRank`], the default): a
//!   task rank r uniform below T_max, the largest task count over the systems, and in
//!   each system with more than r tasks the task of rank r completes, tasks being ranked
//!   pool by pool from the longest pool down (each task completes at rate 1, so each
//!   marginal is right). The alternative [`PoolDepartures::PositionTask`] (a position k
//!   and a task index ℓ ≤ ℓ_max; the pool at k completes if it holds ≥ ℓ tasks) is the
//!   queues' coupling carried over; it is kept to show why it is not used (below).
//!
//! **The checks.** With S_m = Σ_{i ≥ m} Q_i the tasks at height ≥ m and L the discarded
//! tasks:
//! 1. **Ordering**: S_m(A) + L(A) ≤ S_m(B) + L(B) for every m, for the pairs
//!    (A, B) = (JSQ, JSQ(d)), (JSQ, CJSQ(n)), (JSQ, MJSQ(n)) and (CJSQ(n), MJSQ(n)) — the
//!    papers' JSQ ≤ CJSQ(n) ≤ MJSQ(n). **Proof for queues** (ours). With
//!    F(c) = S_{c+1} + L = Σ_j (x_j − c)^+ + L and g = F_B − F_A ≥ 0, note
//!    g(c) − g(c + 1) = Q_{c+1}(B) − Q_{c+1}(A), and at or above a capacity K, g(c) =
//!    L(B) − L(A) = g(K). *An arrival* joining position p_A in A (value a) and p_B in B
//!    (value b) with **p_A ≤ p_B** adds 1 to F_A(c) for c ≤ a (for every c if A discards)
//!    and to F_B(c) for c ≤ b. Only b < c ≤ a needs room: there, A has ≥ N − p_A servers
//!    at ≥ a > c, B at most N − p_B − 1 above b, so g(c) − g(c + 1) ≤ −1 on [b, a) and
//!    g ≥ 1 on (b, a] (and, if A discards, at K and above). *A departure* at position k
//!    (value a in A, b in B, queues) removes 1 from F_A(c) for c < a and F_B(c) for
//!    c < b; only a ≤ c < b needs room: there A has at most N − k − 1 servers above a,
//!    B at least N − k at ≥ b, so g(c) − g(c + 1) ≥ 1 and g ≥ 1 on [a, b). Hence every
//!    pair whose arrival positions are ordered (JSQ at 0 ≤ CJSQ's p ≤ n = MJSQ's) keeps
//!    the ordering at every event; JSQ(d) and MJSQ(n) are not ordered (p* may exceed n).
//!    **Pools** with the task-rank coupling: for JSQ against Π (no capacity) the ordering
//!    of all S_m is the weak majorisation of the lengths sorted downwards,
//!    P_JSQ(k) ≤ P_Π(k) for the partial sums of the k longest; the task of rank r then lies
//!    in a pool of Π no later than in JSQ, and between the two the partial sums satisfy
//!    P_JSQ(k) ≤ r < P_Π(k), so a coupled departure keeps the ordering (ties in a block of
//!    equal lengths need the concavity of P_Π); for the other pairs and with a capacity the
//!    tests check it, no proof is offered. The position/task coupling does **not** keep it:
//!    from JSQ = (1, 1), Π = (0, 2) (S_1 = 2 = 2, S_2 = 0 ≤ 1), the event (k = top
//!    position, ℓ = 2) removes a task from Π only, and S_1(Π) = 1 < 2 (the tests show it
//!    failing on most events).
//! 2. **Distance**: Σ_i |Q_i^{Π1} − Q_i^{Π2}| ≤ 2 Δ_{12}(t) for every pair, Δ_{12} the
//!    number of arrivals at which the two systems' decisions differed (joined servers of
//!    different lengths, or one discarded the task and the other did not). Proof sketch
//!    (queues, and pools under the position/task coupling): for sorted vectors the sum is
//!    Σ_j |x_j^{Π1} − x_j^{Π2}|; an arrival with equal decisions changes both alike, an
//!    unequal one moves the sum by at most 2; a coupled departure never increases it (if
//!    only one system, or the one with the longer server at position k, loses a task at
//!    level v, then Q_v of that system exceeds the other's, so the difference at level v
//!    shrinks by one and at most one other level grows by one). Under the task-rank
//!    coupling of pools we have no proof; the tests observe it holding.
//!
//! **MJSQ(n) is our reconstruction.** The papers bound every CJSQ(n) scheme above by a
//! scheme they call MJSQ(n); we could not consult its definition. We take the scheme that
//! always joins the (n + 1)-th lowest server: it is the largest member of the class in the
//! ordering above (the proof needs nothing more than p ≤ n), and after the n lowest
//! servers drain it is JSQ on N − n servers (departures at the n lowest positions find
//! them empty), whose fluid and diffusion limits equal JSQ's when n(N)/N → 0, resp.
//! n(N)/√N → 0 — the role the papers' MJSQ(n) plays. If the papers' MJSQ(n) differs
//! (e.g. a blocking variant), the inequalities checked here are still theorems for ours.
//! The Δ of JSQ(d) against CJSQ(n) is not turned into the papers' limit theorems — but the
//! simulation reports how often JSQ(d)'s choice falls outside the n + 1 lowest servers,
//! against its exact probability C(N − n − 1, d)/C(N, d).

use super::model::{tail_probability, tail_table, JsqSystem, LbError, ModelKind};
use crate::sim::rng::{index, stream_rng, unit_f64};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The systems coupled: JSQ, JSQ(d), CJSQ(n), MJSQ(n).
pub const SYSTEMS: usize = 4;
/// Names of the coupled systems, in order.
pub const NAMES: [&str; SYSTEMS] = ["JSQ", "JSQ(d)", "CJSQ(n)", "MJSQ(n)"];
/// The pairs (A, B) checked for S_m(A) + L(A) ≤ S_m(B) + L(B) (module docs): JSQ below
/// every other scheme, and CJSQ(n) below MJSQ(n).
pub const ORDERED: [(usize, usize); 4] = [(0, 1), (0, 2), (0, 3), (2, 3)];
/// Largest N for the coupled run (it checks O(N + levels) inequalities per event).
pub const MAX_COUPLED_SERVERS: u64 = 100_000;

/// How pool departures are coupled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoolDepartures {
    /// A position k and a task index ℓ ≤ ℓ_max: the pool at position k completes if it
    /// holds at least ℓ tasks (the queues' coupling carried over; it does not preserve
    /// the ordering, see the module docs).
    PositionTask,
    /// A task rank r < T_max (T_max the largest task count over the systems): in each
    /// system with more than r tasks, the task of rank r completes, tasks being ranked
    /// pool by pool from the longest pool down. Each task completes at rate 1, so each
    /// marginal is right.
    #[default]
    TaskRank,
}

/// A deliberate fault, to show that the checks can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Each system draws its own departure position (no coupling of departures).
    IndependentDepartures,
    /// MJSQ(n) joins the lowest server instead of the (n + 1)-th (a wrong rule: it is then
    /// JSQ, below CJSQ(n)).
    MjsqJoinsLowest,
}

/// What a coupled run found.
#[derive(Debug, Clone, PartialEq)]
pub struct CouplingReport {
    /// Events simulated.
    pub events: u64,
    /// Arrivals.
    pub arrivals: u64,
    /// Δ for each pair (i, j), i < j: arrivals at which the decisions differed.
    pub differences: [[u64; SYSTEMS]; SYSTEMS],
    /// Events at which an ordering S_m(A) + L ≤ S_m(B) + L of [`ORDERED`] failed.
    pub ordering_violations: u64,
    /// The same, per pair of [`ORDERED`].
    pub ordering_violations_by_pair: [u64; ORDERED.len()],
    /// Events at which a distance bound failed.
    pub distance_violations: u64,
    /// The first violation, in words.
    pub first_violation: Option<String>,
    /// Largest Σ_i |Q_i^{Π1} − Q_i^{Π2}| / (2Δ) seen (over pairs and events with Δ > 0).
    pub max_distance_ratio: f64,
    /// Arrivals at which JSQ(d)'s sampled minimum was not among the n + 1 lowest.
    pub outside_cjsq: u64,
    /// The exact probability of that event, C(N − n − 1, d)/C(N, d) (or its
    /// with-replacement analogue).
    pub outside_probability: f64,
    /// Discarded tasks per system.
    pub lost: [u64; SYSTEMS],
}

struct Sys {
    /// Sorted ascending lengths.
    x: Vec<u32>,
    /// Q_0 = N, Q_1, … with a zero past the top.
    q: Vec<u64>,
    lost: u64,
}

impl Sys {
    fn new(n: usize) -> Self {
        Sys {
            x: vec![0; n],
            q: vec![n as u64, 0],
            lost: 0,
        }
    }

    /// Joins the server at position p (or discards at the capacity). Returns the length
    /// joined, `None` when discarded.
    fn arrive(&mut self, p: usize, cap: u32) -> Option<u32> {
        let v = self.x[p];
        if v >= cap {
            self.lost += 1;
            return None;
        }
        // The last server with length v keeps the order.
        let last = self.x.partition_point(|&y| y <= v) - 1;
        self.x[last] = v + 1;
        let lv = v as usize + 1;
        if lv + 1 >= self.q.len() {
            self.q.resize(lv + 2, 0);
        }
        self.q[lv] += 1;
        Some(v)
    }

    /// The server at position k loses a task if it has at least `min_len` (≥ 1).
    fn depart(&mut self, k: usize, min_len: u32) {
        let v = self.x[k];
        if v < min_len.max(1) {
            return;
        }
        let first = self.x.partition_point(|&y| y < v);
        self.x[first] = v - 1;
        self.q[v as usize] -= 1;
    }

    fn tasks(&self) -> u64 {
        self.x.iter().map(|&v| u64::from(v)).sum()
    }

    /// The task of rank r (pools ranked from the longest down, tasks pool by pool)
    /// completes, if there are more than r tasks.
    fn depart_rank(&mut self, r: u64) {
        let mut cum = 0u64;
        for k in (0..self.x.len()).rev() {
            cum += u64::from(self.x[k]);
            if cum > r {
                self.depart(k, 1);
                return;
            }
        }
    }

    fn top(&self) -> u32 {
        self.x.last().copied().unwrap_or(0)
    }
}

/// Runs JSQ, JSQ(d), CJSQ(`cjsq_n`) and MJSQ(`cjsq_n`) coupled for `events` events from
/// empty systems and checks the inequalities of the module docs at every event (pool
/// departures coupled by task rank, [`PoolDepartures::TaskRank`]).
pub fn run_coupled(
    system: &JsqSystem,
    cjsq_n: usize,
    events: u64,
    seed: u64,
    fault: Option<Fault>,
) -> Result<CouplingReport, LbError> {
    run_coupled_with(
        system,
        cjsq_n,
        events,
        seed,
        fault,
        PoolDepartures::default(),
    )
}

/// [`run_coupled`] with a choice of the pools' departure coupling.
pub fn run_coupled_with(
    system: &JsqSystem,
    cjsq_n: usize,
    events: u64,
    seed: u64,
    fault: Option<Fault>,
    pool_departures: PoolDepartures,
) -> Result<CouplingReport, LbError> {
    let n64 = system.servers();
    if n64 > MAX_COUPLED_SERVERS {
        return Err(LbError::BadInput(format!(
            "the coupled run takes at most {MAX_COUPLED_SERVERS} servers"
        )));
    }
    let n = n64 as usize;
    if cjsq_n >= n {
        return Err(LbError::BadInput(format!(
            "CJSQ(n) needs n < N = {n}, got {cjsq_n}"
        )));
    }
    let d = system.d().d;
    let pools = system.model().kind() == ModelKind::Pools;
    let cap = system.model().buffer().unwrap_or(u32::MAX);
    let lam = system.model().lambda() * n as f64;
    // P(all d sampled positions ≥ p) = tail[N − p].
    let tail = tail_table(n64, d, system.sampling());
    let outside_probability = tail_probability((n - cjsq_n - 1) as u64, n64, d, system.sampling());
    let mut rng: Xoshiro256PlusPlus = stream_rng(seed, 0, 0, 0);
    let mut sys: Vec<Sys> = (0..SYSTEMS).map(|_| Sys::new(n)).collect();
    let mut rep = CouplingReport {
        events: 0,
        arrivals: 0,
        differences: [[0; SYSTEMS]; SYSTEMS],
        ordering_violations: 0,
        ordering_violations_by_pair: [0; ORDERED.len()],
        distance_violations: 0,
        first_violation: None,
        max_distance_ratio: 0.0,
        outside_cjsq: 0,
        outside_probability,
        lost: [0; SYSTEMS],
    };
    let mut tails = vec![Vec::new(); SYSTEMS];
    for ev in 0..events {
        let lmax = sys.iter().map(Sys::top).max().unwrap_or(0).max(1);
        let tmax = sys.iter().map(Sys::tasks).max().unwrap_or(0).max(1);
        let by_rank = pools && pool_departures == PoolDepartures::TaskRank;
        let dep_rate = if by_rank {
            tmax as f64
        } else if pools {
            n as f64 * f64::from(lmax)
        } else {
            n as f64
        };
        let total = lam + dep_rate;
        if unit_f64(&mut rng) * total < lam {
            rep.arrivals += 1;
            // p* = max{p : P(min ≥ p) > u}, P(min ≥ p) = tail[N − p], decreasing in p.
            let u = unit_f64(&mut rng);
            let (mut lo, mut hi) = (0usize, n - 1);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if tail[n - mid] > u {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            let p_star = lo;
            if p_star > cjsq_n {
                rep.outside_cjsq += 1;
            }
            let mjsq = match fault {
                Some(Fault::MjsqJoinsLowest) => 0,
                _ => cjsq_n,
            };
            let positions = [0, p_star, if p_star <= cjsq_n { p_star } else { 0 }, mjsq];
            let mut joined = [None; SYSTEMS];
            for (s, (sy, &p)) in sys.iter_mut().zip(&positions).enumerate() {
                joined[s] = sy.arrive(p, cap);
            }
            for a in 0..SYSTEMS {
                for b in a + 1..SYSTEMS {
                    if joined[a] != joined[b] {
                        rep.differences[a][b] += 1;
                    }
                }
            }
        } else if by_rank {
            let common = index(&mut rng, tmax as usize) as u64;
            for sy in sys.iter_mut() {
                let r = match fault {
                    Some(Fault::IndependentDepartures) => index(&mut rng, tmax as usize) as u64,
                    _ => common,
                };
                sy.depart_rank(r);
            }
        } else {
            let common_k = index(&mut rng, n);
            let common_l = if pools {
                index(&mut rng, lmax as usize) as u32 + 1
            } else {
                1
            };
            for sy in sys.iter_mut() {
                let (k, l) = match fault {
                    Some(Fault::IndependentDepartures) => (
                        index(&mut rng, n),
                        if pools {
                            index(&mut rng, lmax as usize) as u32 + 1
                        } else {
                            1
                        },
                    ),
                    _ => (common_k, common_l),
                };
                sy.depart(k, l);
            }
        }
        rep.events += 1;
        // Tail sums S_m for m = 1 … top + 1.
        let levels = sys.iter().map(|s| s.q.len()).max().unwrap_or(2);
        for (t, sy) in tails.iter_mut().zip(&sys) {
            t.clear();
            t.resize(levels + 1, 0u64);
            for m in (1..levels).rev() {
                t[m] = t[m + 1] + sy.q.get(m).copied().unwrap_or(0);
            }
        }
        let mut violated = false;
        for (pair, &(lo, hi)) in ORDERED.iter().enumerate() {
            for (m, (&ta, &tb)) in tails[lo].iter().zip(&tails[hi]).enumerate().skip(1) {
                let a = ta + sys[lo].lost;
                let b = tb + sys[hi].lost;
                if a > b {
                    violated = true;
                    rep.ordering_violations_by_pair[pair] += 1;
                    if rep.first_violation.is_none() {
                        rep.first_violation = Some(format!(
                            "event {ev}: S_{m}({}) + L = {a} > S_{m}({}) + L = {b}",
                            NAMES[lo], NAMES[hi]
                        ));
                    }
                    break;
                }
            }
        }
        if violated {
            rep.ordering_violations += 1;
        }
        for a in 0..SYSTEMS {
            for b in a + 1..SYSTEMS {
                let dist: u64 = (1..levels)
                    .map(|i| {
                        let qa = sys[a].q.get(i).copied().unwrap_or(0);
                        let qb = sys[b].q.get(i).copied().unwrap_or(0);
                        qa.abs_diff(qb)
                    })
                    .sum();
                let delta = rep.differences[a][b];
                if dist > 2 * delta {
                    rep.distance_violations += 1;
                    if rep.first_violation.is_none() {
                        rep.first_violation = Some(format!(
                            "event {ev}: sum |Q({}) - Q({})| = {dist} > 2 Delta = {}",
                            NAMES[a],
                            NAMES[b],
                            2 * delta
                        ));
                    }
                }
                if delta > 0 {
                    rep.max_distance_ratio =
                        rep.max_distance_ratio.max(dist as f64 / (2 * delta) as f64);
                }
            }
        }
    }
    for (l, s) in rep.lost.iter_mut().zip(&sys) {
        *l = s.lost;
    }
    Ok(rep)
}
