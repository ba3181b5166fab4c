//! Exact values of the policies without a product form (ROS, LRF-/MRF-FCFS, LRF-/MRF-ROS,
//! preemptive or not) with exponential i.i.d. copies: stationary distributions of
//! truncated Markov chains (`num::markov`).
//!
//! **The compact chain** ([`ClassChain`]). With exponential copies the remaining work does
//! not matter (memorylessness, also for preemptive-resume), but which servers share a job
//! does: a job served by the servers M leaves at rate μ(M). The state is
//! * the number of jobs of each class (in service or waiting),
//! * for each server, the job it serves (idle, or a group id), and each group's class:
//!   the servers of one group serve copies of one job.
//!
//! Jobs of one class in one service state are exchangeable under ROS (a uniform pick
//! among them), so counts suffice. Under Π2 = FCFS with a class priority the servers
//! serving a class all serve its oldest job: a server picks class c only when c is the top
//! rank present at it and then takes the oldest class-c job, which stays the oldest until
//! it leaves — and a server is idle only when no job of its classes is present, so an
//! arrival never starts beside an older job of its class. This needs one class per rank at
//! every server (true in nested systems); where ranks tie (redundancy-d under LRF) the
//! order of the jobs would be needed and the chain refuses. FCFS without a class priority
//! has the product form ([`super::product_form`]) and is not a chain here.
//!
//! Transitions: an arrival of class c (λ_c) joins its count; the idle servers of S_c start
//! it as one group; with preemption, a busy server of S_c whose class ranks strictly below
//! c leaves its group (the interrupted job keeps its place and its other copies) and
//! joins. A group of class c on servers M completes at μ(M): the class count falls, its
//! servers become free and pick in server order — FCFS: join the group of the chosen
//! class or start its oldest waiting job; ROS: each job of the top rank with probability
//! 1/(jobs of that rank), a waiting job of class c with probability waiting_c/(jobs).
//!
//! **Symmetry.** When a permutation of the servers keeps their rates and maps every class's
//! set onto the set of a class of the same arrival rate (the W-model's servers with its two
//! singleton classes at equal rates), the chain is invariant under it and is solved on the
//! orbits of the group such permutations form, one representative per orbit and the rates
//! into an orbit summed ([`Symmetry`]); the exchanged classes get the orbit's mean. The
//! W-model's chain halves.
//!
//! **Truncation.** Arrivals that would leave a finite set A are blocked. A is a weighted
//! simplex {Σ_c w_c n_c ≤ K} of the class counts: w_c is the decay rate (nats per job) of
//! class c's stationary mass, measured on two small pilot boxes (every class and the total
//! capped at k and about 1.5k: the ratio of the masses on each cap), at least the total's
//! rate (a class count is at most the total). The stationary mass is then about e^{−K}
//! along every direction, and A holds far fewer states than a box of the same mass
//! outside: under a class priority the favoured classes decay several times faster than
//! the others (the W-model at λ = (0.5, 0.5, 0.6) under LRF-FCFS: about 0.73 nats per job
//! for the singleton classes, 0.23 for the redundant one), and the box's corners, where
//! every class is long at once, carry almost nothing. Under ROS (no class priority) the
//! classes grow together instead and the mass lies along the diagonal, which the axes'
//! rates overstate (the W-model at λ = (0.5, 0.5, 0.6): 0.61 and 1.46 nats per job along the
//! axes, 0.223 along the total). So once the first simplex is solved, the shape is chosen
//! from it: the box of the class counts capped by a total, {r_c n_c ≤ K, r_tot Σ_c n_c ≤ K},
//! with the rates of the solved chain's marginal masses (the mass beyond each face about
//! e^{−K}), replaces the simplex when it holds fewer class-count vectors at the budget the
//! target needs than the simplex at the budget the simplex's layer decay predicts. On the
//! W-model at λ = (0.5, 0.5, 0.6) this picks the box under ROS (0.66 M + 0.98 M states for
//! 12 digits instead of 1.35 M + 1.51 M) and keeps the simplex under LRF and MRF, where the
//! box would hold 1.3–1.5 times the simplex's vectors (measured 2026-12-03). K grows until
//! the mass on A's
//! boundary is below 10^−(digits + 2) (the next K is predicted from the decay of the
//! solved chain's mass across the layers of Σ_c w_c n_c below its boundary, so that one
//! step usually suffices), then the values are compared with those at
//! K + [`COMPARE_NATS`] (about two decades less mass outside, some 1.5 times the states
//! for three classes instead of 3.4 for a box grown by half), growing until they agree
//! ([`solve`]): the printed digits are those on which the two truncations agree (and at
//! most [`CHAIN_MAX_DIGITS`], the f64 solve's accuracy). Each solve starts from the last
//! one's stationary vector. Little's law uses the accepted rate λ_c(1 − P(class c blocked)).
//!
//! **A proven truncation bound where a certificate is found** ([`solve_certified`], what
//! `redundancy exact` and the claims' `red_exact` run whenever
//! [`lyapunov::lyapunov_search`] finds a certificate; the comparison of two truncations
//! above is kept for the chains without one, and the output says which). The simplex of
//! the pilot's weights is solved with its exits redirected to the empty state and the
//! regenerative enclosure of [`crate::num::levels`] (V_1 = V_G/N₁, V_G = (2/m)V,
//! W = V from the certificate, [`certificate_level`]); each class mean is a functional
//! bounded by the level (a class count is at most the total), the total is the level
//! itself (its own enclosure, intersected with the sum of the classes'), and the responses
//! are the means over the f64 arrival rates the chain is built from (Little's law: the
//! infinite chain blocks nothing), divided in interval arithmetic with outward rounding.
//! The budget grows until every printed quantity's enclosure proves the digits asked: a
//! digit is printed only if every point of the enclosure rounds to it
//! ([`crate::num::Interval::proven`]). Measured (2026-12-04, 12 digits): the N-model at
//! (0.1, 1.7) under MRF-FCFS ends at 143 k states, bound 1.1e-12, where the estimate had
//! printed 4.11929901536 for class {1}, whose enclosure [4.119299015365, 4.119299015366]
//! proves 4.11929901537; the W-model at (0.5, 0.5, 0.6) ends at 461 k (LRF-FCFS) and 606 k
//! (MRF-FCFS) orbit states, and there too the estimate's 12th digit of the singleton
//! classes was one unit low (both of its truncations block arrivals, which biases them the
//! same way). Per class the bound is the total's (a count is bounded by the level): a
//! tighter one would need a Lyapunov function per class.
//!
//! **How the certificate was found** (history). The regenerative enclosure of
//! [`crate::num::levels`] needs Lyapunov functions with negative drift outside A. For any
//! work-conserving policy a linear V = Σ_c w_c n_c has the drift
//! Σ_c w_c λ_c − Σ_{s busy} μ_s w_{class served at s}, but no w makes it negative on every
//! face of the states outside A: in the W-model at λ = (0.5, 0.5, 0.6) (μ = 1, 1) the face
//! where only class {1} is present needs w_1(μ_1 − λ_1) > w_2 λ_2 + w_3 λ_3, the face of
//! class {2} alone w_2(μ_2 − λ_2) > w_1 λ_1 + w_3 λ_3, and their sum 0 > 1.2 w_3 fails
//! for any w_3 > 0 (which the face of class {1+2} alone needs). A diagonal quadratic
//! Σ_c w_c n_c² fails likewise on the face where the redundant class is long and starved
//! by a priority. Stability of these policies is proved through fluid limits (Dai, *On
//! positive Harris recurrence of multiclass queueing networks*, Ann. Appl. Probab. 1995),
//! which give no computable constant.
//!
//! *A full quadratic fails too; a configuration-dependent linear term works* (Foster–
//! Lyapunov: Meyn & Tweedie, *Markov Chains and Stochastic Stability*, 2009, ch. 14).
//! Under a non-preemptive priority a server can serve a lower-ranked class while a higher
//! one waits, which no function of the counts sees: in the W-model at λ = (0.5, 0.5, 0.6)
//! under LRF, V = nᵀPn (P ≥ 0 entrywise) has in the cell where class {2} alone is present
//! and served (server 1 idle) the n_2 coefficient (λ − D)ᵀP e_2·2 = 2(0.5P_12 − 0.5P_22 +
//! 0.6P_23), and in the cell where server 1 serves {1} and server 2 a {1+2} job while {2}
//! waits 2(−0.5P_12 + 0.5P_22 − 0.4P_23) (D the service rates the configuration gives
//! each class); both must be negative and their sum is 0.4P_23 ≥ 0. The candidate
//! V(n, σ) = nᵀPn + Σ_c g_c(σ) n_c (P, g ≥ 0; σ the busy-server configuration) charges a
//! class for the configuration it waits behind: in the second cell g_2(σ) n_2 falls to 0 at
//! rate 1, when the {1+2} job completes and server 2 turns to class {2}. Under a class
//! priority the configuration a transition leads to depends on which classes are present
//! (FCFS within a rank) or, under ROS within a rank, on 1/n_c ∈ [0, 1/T] for the counts
//! n_c ≥ T, so QV is affine in the large counts on each cell (σ, min(n, T)), and (P, g)
//! with every large count's coefficient ≤ −1 on every cell is an LP.
//! `scripts/redundancy_lyapunov.py` re-implements the chain, solves that LP (SciPy's
//! HiGHS), rounds the certificate to rationals and checks it in exact arithmetic on every
//! cell of every configuration the chain reaches (ROS's pick probabilities enclosed in
//! rational intervals), or prints a Farkas combination of cells when the LP is infeasible.
//! Certified (2026-12-03, ROS rechecked 2026-12-04 after the script's completed-class
//! interval was fixed; the level is the large classes' total beyond which QV ≤ −1 on
//! every cell): the W-model at (0.5, 0.5, 0.6) and (0.6, 0.6, 0.6) under LRF-FCFS,
//! MRF-FCFS, LRF-ROS and MRF-ROS (levels 8.4–11.1 and 17.5–34.5 jobs), the N-model at
//! (0.1, 1.7) under LRF-FCFS and MRF-FCFS (11.4, 12.3) and, only with the ROS threshold
//! raised, LRF-ROS (T = 12, 56.3) and MRF-ROS (T = 16, 58.6; infeasible at T = 8 and 12;
//! before the fix both passed at T = 8), the 3-server nested system of
//! `benches/peer/redundancy_side_by_side.sh` under LRF-FCFS (21.7; also at 1.05 times
//! those rates, 40.0) and under MRF-FCFS up to 0.95 times them (40.1). Not found: that
//! system under MRF-FCFS at its rates (0.95 of MRF's simulated stability limit, scale
//! 1.047–1.055 by `redundancy stability`) and under LRF-ROS and MRF-ROS (T = 3, whose
//! intervals are wide; both were certified at 0.5 times the rates, LRF-ROS at 0.8, before the
//! fix, not rechecked since). The LP
//! is infeasible, as it must be, at FCFS-within-rank rates past the stability region
//! (W-model (0.5, 0.5, 1.1), N-model (0.5, 1.55)), and with g = 0 on the W-model (the
//! script's `--selftest`, which also checks that every single-entry mutant of an accepted
//! certificate is rejected). The crate's own search ([`lyapunov`]) and
//! [`certified_chain_means`] since did what remained (the certificate found for the system
//! at hand and checked exactly, the exits redirected, V_1, V_G, W from it); where the
//! search finds none, the agreement of two truncations is still an estimate of the
//! truncation error, and the output says so.
//!
//! **The labelled chain** ([`LabelledChain`]): the jobs with their identities (in arrival
//! order, each with its class and the servers serving it), the policy applied literally.
//! Exponentially larger, it is the reference the compact chain is tested against at small
//! N (both block arrivals alike, so their truncated values agree exactly), and its FCFS
//! version is Gardner et al.'s ordered chain.

use super::classes::ClassSystem;
use super::policy::{Order, Policy};
use super::RedundancyError;
use crate::num::certify::certify_pair;
use crate::num::levels::{self, ExitRule, LevelChain, LevelError};
use crate::num::markov::{self, Ctmc, SolveOptions, Solver};
use crate::num::Interval;
use rug::Float;

mod certified;
pub mod lyapunov;
pub use certified::{
    certificate_level, certified_chain_means, solve_certified, solve_certified_limited,
    CertifiedMeans, CertifiedResult, ProvenValue,
};
mod symmetry;
pub use symmetry::{exchanged_text, Symmetry};

/// Most classes of the compact chain (the state is a fixed array).
pub const CHAIN_MAX_CLASSES: usize = 8;
/// Most servers of the compact chain.
pub const CHAIN_MAX_SERVERS: usize = 8;
/// Largest truncation N (a class count is a u16; the level chain lets arrivals through to
/// N + 1 to see its exits).
pub const CHAIN_MAX_TRUNCATION: usize = 4000;
/// Most states of one chain (2·10^6 states and their transitions take about 1 GB).
pub const MAX_CHAIN_STATES: usize = 2_000_000;
/// Most digits a chain value is printed with: the level solver's stationary vector is
/// refined with double-double residuals (relative residual about 1e-25), and the means are
/// f64 sums, good to about 1e-15; 13 leaves two digits for the comparison of truncations.
pub const CHAIN_MAX_DIGITS: u32 = 13;
/// The cap of the first pilot box (lowered for many classes; [`solve`]).
pub const START_TRUNCATION: usize = 12;
/// Residual of the Gauss–Seidel solves (below markov's default: the values must be good
/// to [`CHAIN_MAX_DIGITS`]).
pub const CHAIN_RESIDUAL: f64 = 1e-14;
/// A group slot without a job.
const FREE: u8 = 0xFF;

/// A packed state of [`ClassChain`]: class counts, each server's group (0 idle, else
/// 1 + the group's slot) and each slot's class, in canonical form (slots numbered by the
/// first server serving them). Ordered (lexicographically) so that an orbit of states
/// under a [`Symmetry`] has a least element, its representative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackedState {
    counts: [u16; CHAIN_MAX_CLASSES],
    server: [u8; CHAIN_MAX_SERVERS],
    gclass: [u8; CHAIN_MAX_SERVERS],
}

/// The unpacked state the transitions work on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Work {
    counts: [u16; CHAIN_MAX_CLASSES],
    server: [u8; CHAIN_MAX_SERVERS],
    gclass: [u8; CHAIN_MAX_SERVERS],
}

impl Work {
    fn empty() -> Self {
        Work {
            counts: [0; CHAIN_MAX_CLASSES],
            server: [0; CHAIN_MAX_SERVERS],
            gclass: [FREE; CHAIN_MAX_SERVERS],
        }
    }

    fn unpack(p: &PackedState) -> Self {
        Work {
            counts: p.counts,
            server: p.server,
            gclass: p.gclass,
        }
    }

    /// Canonical packing: groups renumbered in order of their first server.
    fn pack(&self) -> PackedState {
        let mut map = [0u8; CHAIN_MAX_SERVERS + 1];
        let mut next = 1u8;
        let mut server = [0u8; CHAIN_MAX_SERVERS];
        let mut gclass = [FREE; CHAIN_MAX_SERVERS];
        for (s, &g) in self.server.iter().enumerate() {
            if g == 0 {
                continue;
            }
            if map[g as usize] == 0 {
                map[g as usize] = next;
                gclass[(next - 1) as usize] = self.gclass[(g - 1) as usize];
                next += 1;
            }
            server[s] = map[g as usize];
        }
        PackedState {
            counts: self.counts,
            server,
            gclass,
        }
    }

    fn total(&self) -> usize {
        self.counts.iter().map(|&c| usize::from(c)).sum()
    }

    /// Groups of class c.
    fn groups_of(&self, c: u8) -> usize {
        self.gclass.iter().filter(|&&g| g == c).count()
    }

    /// A free slot (1-based id). There are as many slots as servers and every live group
    /// has a server, so a free server always finds one.
    fn free_slot(&self) -> Option<u8> {
        (0..CHAIN_MAX_SERVERS)
            .find(|&i| self.gclass[i] == FREE)
            .map(|i| (i + 1) as u8)
    }

    /// Frees the slots no server uses any more.
    fn drop_empty_groups(&mut self) {
        for i in 0..CHAIN_MAX_SERVERS {
            if self.gclass[i] != FREE && !self.server.contains(&((i + 1) as u8)) {
                self.gclass[i] = FREE;
            }
        }
    }
}

/// The compact chain of one system, policy and truncation.
#[derive(Debug, Clone)]
pub struct ClassChain {
    k: usize,
    nc: usize,
    sets: Vec<u32>,
    mu: Vec<f64>,
    lambda: Vec<f64>,
    rank: Vec<i64>,
    /// Per server, the classes whose set contains it.
    compat: Vec<Vec<usize>>,
    policy: Policy,
    cap: usize,
}

impl ClassChain {
    /// The chain of `sys` under `policy`, arrivals blocked at `cap` jobs.
    pub fn new(sys: &ClassSystem, policy: Policy, cap: usize) -> Result<Self, RedundancyError> {
        let k = sys.servers();
        let nc = sys.classes().len();
        if nc > CHAIN_MAX_CLASSES || k > CHAIN_MAX_SERVERS {
            return Err(RedundancyError::Unsupported(format!(
                "the exact chain holds at most {CHAIN_MAX_CLASSES} classes on {CHAIN_MAX_SERVERS} servers (this system: {nc} on {k}); use simulate"
            )));
        }
        if !(1..=CHAIN_MAX_TRUNCATION).contains(&cap) {
            return Err(RedundancyError::Unsupported(format!(
                "truncation must be in 1..={CHAIN_MAX_TRUNCATION}, got {cap}"
            )));
        }
        let fcfs = match policy.order {
            Order::Fcfs => true,
            Order::Ros => false,
        };
        if fcfs {
            if policy.has_product_form() {
                return Err(RedundancyError::Unsupported(
                    "FCFS has the product form; the class chain needs a class priority or ROS"
                        .into(),
                ));
            }
            if let Some((s, a, b)) = policy.tie(sys) {
                return Err(RedundancyError::Unsupported(format!(
                    "{}: classes {} and {} rank alike at server {} (a non-nested system); the exact chain needs one class per rank at every server — use simulate",
                    policy.name(),
                    sys.describe(&[a]),
                    sys.describe(&[b]),
                    s + 1
                )));
            }
        }
        let rank = policy.ranks(sys);
        let compat = (0..k)
            .map(|s| {
                let mut v: Vec<usize> = (0..nc)
                    .filter(|&c| sys.classes()[c].set.contains(s))
                    .collect();
                v.sort_by_key(|&c| rank[c]);
                v
            })
            .collect();
        Ok(ClassChain {
            k,
            nc,
            sets: sys.classes().iter().map(|c| c.set.mask()).collect(),
            mu: sys.mu_f64().to_vec(),
            lambda: sys.lambda_f64(),
            rank,
            compat,
            policy,
            cap,
        })
    }

    /// The empty state.
    pub fn start(&self) -> PackedState {
        Work::empty().pack()
    }

    /// The class counts of a state.
    pub fn counts(&self, s: &PackedState) -> Vec<u32> {
        s.counts[..self.nc].iter().map(|&c| u32::from(c)).collect()
    }

    /// The classes server `s` picks among in `w`: those present of its top rank (empty when
    /// none it can serve is present).
    fn top_level(&self, s: usize, w: &Work) -> Vec<usize> {
        let mut present = self.compat[s].iter().copied().filter(|&c| w.counts[c] > 0);
        let Some(first) = present.next() else {
            return Vec::new();
        };
        let top = self.rank[first];
        std::iter::once(first)
            .chain(present.filter(|&c| self.rank[c] == top))
            .collect()
    }

    /// Server `s` (free in `w`) picks; appends the outcomes with their probabilities.
    fn pick(&self, s: usize, w: &Work, p: f64, out: &mut Vec<(Work, f64)>) {
        let level = self.top_level(s, w);
        if level.is_empty() {
            out.push((*w, p));
            return;
        }
        match self.policy.order {
            Order::Fcfs => {
                // One class per rank (checked at construction): its oldest job.
                let c = level[0] as u8;
                let mut n = *w;
                match (0..CHAIN_MAX_SERVERS).find(|&i| n.gclass[i] == c) {
                    Some(i) => n.server[s] = (i + 1) as u8,
                    None => {
                        if let Some(g) = n.free_slot() {
                            n.gclass[(g - 1) as usize] = c;
                            n.server[s] = g;
                        }
                    }
                }
                out.push((n, p));
            }
            Order::Ros => {
                let jobs: usize = level.iter().map(|&c| usize::from(w.counts[c])).sum();
                let jf = jobs as f64;
                for &c in &level {
                    let cu = c as u8;
                    // Jobs in service elsewhere: one outcome per group.
                    for i in 0..CHAIN_MAX_SERVERS {
                        if w.gclass[i] == cu {
                            let mut n = *w;
                            n.server[s] = (i + 1) as u8;
                            out.push((n, p / jf));
                        }
                    }
                    let waiting = usize::from(w.counts[c]) - w.groups_of(cu);
                    if waiting > 0 {
                        let mut n = *w;
                        if let Some(g) = n.free_slot() {
                            n.gclass[(g - 1) as usize] = cu;
                            n.server[s] = g;
                        }
                        out.push((n, p * waiting as f64 / jf));
                    }
                }
            }
        }
    }

    /// The completions of `w`, one per group: the group's class, its servers (freed, to
    /// pick next) and the state after the completion, before they pick.
    fn completions(&self, w: &Work) -> Vec<(usize, Vec<usize>, Work)> {
        (0..CHAIN_MAX_SERVERS)
            .filter(|&i| w.gclass[i] != FREE)
            .map(|i| {
                let c = w.gclass[i];
                let g = (i + 1) as u8;
                let servers: Vec<usize> = (0..self.k).filter(|&s| w.server[s] == g).collect();
                let mut n = *w;
                n.counts[usize::from(c)] -= 1;
                n.gclass[i] = FREE;
                for &s in &servers {
                    n.server[s] = 0;
                }
                (usize::from(c), servers, n)
            })
            .collect()
    }

    /// The free servers `free` pick in order, from `w`.
    fn picks(&self, free: &[usize], w: Work) -> Vec<(Work, f64)> {
        let mut cur = vec![(w, 1.0)];
        for &s in free {
            let mut next = Vec::with_capacity(cur.len() * 2);
            for (x, p) in &cur {
                self.pick(s, x, *p, &mut next);
            }
            cur = next;
        }
        cur
    }
}

impl Ctmc for ClassChain {
    type State = PackedState;
    fn transitions(&self, st: &PackedState, out: &mut Vec<(PackedState, f64)>) {
        let w = Work::unpack(st);
        // Arrivals.
        if w.total() < self.cap {
            for c in 0..self.nc {
                let mut n = w;
                n.counts[c] += 1;
                let joiners: Vec<usize> = (0..self.k)
                    .filter(|&s| (self.sets[c] >> s) & 1 == 1)
                    .filter(|&s| {
                        let g = n.server[s];
                        g == 0
                            || (self.policy.preemptive
                                && self.rank[c]
                                    < self.rank[usize::from(n.gclass[(g - 1) as usize])])
                    })
                    .collect();
                if !joiners.is_empty() {
                    for &s in &joiners {
                        n.server[s] = 0;
                    }
                    n.drop_empty_groups();
                    if let Some(g) = n.free_slot() {
                        n.gclass[(g - 1) as usize] = c as u8;
                        for &s in &joiners {
                            n.server[s] = g;
                        }
                    }
                }
                out.push((n.pack(), self.lambda[c]));
            }
        }
        for (_, servers, n) in self.completions(&w) {
            let rate: f64 = servers.iter().map(|&s| self.mu[s]).sum();
            for (x, p) in self.picks(&servers, n) {
                out.push((x.pack(), rate * p));
            }
        }
    }
}

/// A job of the labelled chain: its class and the servers serving it.
pub type LabelledJob = (u8, u32);

/// The labelled reference chain: jobs in arrival order with their classes and serving
/// servers; the policy applied literally (module documentation). Any policy, including
/// FCFS without class priority and ties.
#[derive(Debug, Clone)]
pub struct LabelledChain {
    k: usize,
    nc: usize,
    sets: Vec<u32>,
    mu: Vec<f64>,
    lambda: Vec<f64>,
    rank: Vec<i64>,
    policy: Policy,
    cap: usize,
}

impl LabelledChain {
    /// The chain of `sys` under `policy` with arrivals blocked at `cap` jobs.
    pub fn new(sys: &ClassSystem, policy: Policy, cap: usize) -> Self {
        LabelledChain {
            k: sys.servers(),
            nc: sys.classes().len(),
            sets: sys.classes().iter().map(|c| c.set.mask()).collect(),
            mu: sys.mu_f64().to_vec(),
            lambda: sys.lambda_f64(),
            rank: policy.ranks(sys),
            policy,
            cap,
        }
    }

    /// Server `s` (free) picks among the jobs of `jobs`; appends the outcomes.
    fn pick(&self, s: usize, jobs: &[LabelledJob], p: f64, out: &mut Vec<(Vec<LabelledJob>, f64)>) {
        let cand: Vec<usize> = (0..jobs.len())
            .filter(|&j| (self.sets[usize::from(jobs[j].0)] >> s) & 1 == 1)
            .collect();
        let Some(top) = cand
            .iter()
            .map(|&j| self.rank[usize::from(jobs[j].0)])
            .min()
        else {
            out.push((jobs.to_vec(), p));
            return;
        };
        let level: Vec<usize> = cand
            .into_iter()
            .filter(|&j| self.rank[usize::from(jobs[j].0)] == top)
            .collect();
        match self.policy.order {
            Order::Fcfs => {
                let mut n = jobs.to_vec();
                n[level[0]].1 |= 1 << s;
                out.push((n, p));
            }
            Order::Ros => {
                let q = p / level.len() as f64;
                for &j in &level {
                    let mut n = jobs.to_vec();
                    n[j].1 |= 1 << s;
                    out.push((n, q));
                }
            }
        }
    }
}

impl Ctmc for LabelledChain {
    type State = Vec<LabelledJob>;
    fn transitions(&self, st: &Vec<LabelledJob>, out: &mut Vec<(Vec<LabelledJob>, f64)>) {
        let busy = st.iter().fold(0u32, |a, j| a | j.1);
        if st.len() < self.cap {
            for c in 0..self.nc {
                let mut n = st.clone();
                let mut mask = 0u32;
                for s in 0..self.k {
                    if (self.sets[c] >> s) & 1 == 0 {
                        continue;
                    }
                    if (busy >> s) & 1 == 0 {
                        mask |= 1 << s;
                    } else if self.policy.preemptive {
                        if let Some(j) = n.iter().position(|j| (j.1 >> s) & 1 == 1) {
                            if self.rank[c] < self.rank[usize::from(n[j].0)] {
                                n[j].1 &= !(1 << s);
                                mask |= 1 << s;
                            }
                        }
                    }
                }
                n.push((c as u8, mask));
                out.push((n, self.lambda[c]));
            }
        }
        for j in 0..st.len() {
            let m = st[j].1;
            if m == 0 {
                continue;
            }
            let rate: f64 = (0..self.k)
                .filter(|&s| (m >> s) & 1 == 1)
                .map(|s| self.mu[s])
                .sum();
            let mut n = st.clone();
            n.remove(j);
            let mut cur = vec![(n, 1.0)];
            for s in (0..self.k).filter(|&s| (m >> s) & 1 == 1) {
                let mut next = Vec::new();
                for (x, p) in &cur {
                    self.pick(s, x, *p, &mut next);
                }
                cur = next;
            }
            for (x, p) in cur {
                out.push((x, rate * p));
            }
        }
    }
}

/// Mean values from a truncated chain, in f64.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainValues {
    /// E[N_c], the mean number of class-c jobs in the truncated chain, per class.
    pub number: Vec<f64>,
    /// E[T_c] = E[N_c]/(λ_c(1 − P(full))).
    pub response: Vec<f64>,
    /// E[N] = Σ_c E[N_c].
    pub total_number: f64,
    /// E[T] = E[N]/(λ(1 − P(full))), λ = Σ_c λ_c: Little's law over the admitted jobs.
    pub total_response: f64,
    /// P(N jobs): the blocking probability of the truncation.
    pub p_full: f64,
    /// States of the chain.
    pub states: usize,
    /// The solve's residual ‖πQ‖₁/max q.
    pub residual: f64,
    /// The solver used.
    pub solver: Solver,
}

/// The options of a solve.
pub fn solve_options() -> SolveOptions {
    SolveOptions {
        residual: CHAIN_RESIDUAL,
        ..SolveOptions::default()
    }
}

fn values<S>(
    lambda: &[f64],
    chain: &markov::MarkovChain<S>,
    counts: impl Fn(&S) -> Vec<u32>,
    cap: usize,
    opts: &SolveOptions,
) -> Result<ChainValues, RedundancyError> {
    let st = markov::stationary(chain, opts)?;
    let nc = lambda.len();
    let mut number = vec![0.0; nc];
    let mut p_full = 0.0;
    for (s, &p) in chain.states.iter().zip(&st.pi) {
        let x = counts(s);
        let mut tot = 0usize;
        for c in 0..nc {
            number[c] += p * f64::from(x[c]);
            tot += x[c] as usize;
        }
        if tot == cap {
            p_full += p;
        }
    }
    let accept = 1.0 - p_full;
    let response: Vec<f64> = number
        .iter()
        .zip(lambda)
        .map(|(n, l)| n / (l * accept))
        .collect();
    let total_number: f64 = number.iter().sum();
    let total_response = total_number / (lambda.iter().sum::<f64>() * accept);
    Ok(ChainValues {
        number,
        response,
        total_number,
        total_response,
        p_full,
        states: chain.len(),
        residual: st.residual,
        solver: st.solver,
    })
}

/// The compact chain's values at truncation `cap`.
pub fn class_chain_values(
    sys: &ClassSystem,
    policy: Policy,
    cap: usize,
    opts: &SolveOptions,
) -> Result<ChainValues, RedundancyError> {
    let c = ClassChain::new(sys, policy, cap)?;
    let chain = markov::explore(&c, c.start(), MAX_CHAIN_STATES)?;
    values(&sys.lambda_f64(), &chain, |s| c.counts(s), cap, opts)
}

/// The compact chain as a level chain (level: total jobs), truncated at `caps[c]` jobs of
/// each class c, `total` jobs in all and, optionally, a weighted simplex
/// Σ_c w_c n_c ≤ K, for [`crate::num::levels`]: an arrival that would leave the truncation
/// is an exit, blocked. A truncation per class keeps the states where the stationary mass
/// is: under a class priority the favoured classes stay short while the others grow. A cap
/// on the total (the level) as well cuts the box's corners, where every class is long at
/// once: under ROS the classes' tails are alike and the box holds about nc! times the
/// simplex. The weighted simplex follows the mass more closely still (module docs).
struct LevelClassChain<'a> {
    inner: ClassChain,
    caps: Vec<usize>,
    total: usize,
    simplex: Option<(Vec<f64>, f64)>,
    /// Every state with at most this many jobs is inside as well, whatever the simplex
    /// (the certificate's level N₁ − 1, [`certified_truncation`]; 0 otherwise).
    floor: u32,
    /// When given, the chain is lumped onto its orbits: every state is its orbit's
    /// representative.
    symmetry: Option<&'a Symmetry>,
    /// A Foster–Lyapunov certificate and (2/m, N₁) ([`certified_chain_means`]); `None`: no
    /// enclosure is claimed.
    certificate: Option<(&'a lyapunov::LyapunovCertificate, f64, f64)>,
}

impl LevelClassChain<'_> {
    /// Whether `s` is within the weighted simplex (true without one) or has at most
    /// `floor` jobs. The one function both the exploration and the blocking probabilities
    /// use, so that they agree.
    fn in_simplex(&self, s: &PackedState) -> bool {
        match &self.simplex {
            None => true,
            Some(_) if self.level(s) <= self.floor => true,
            Some((w, k)) => {
                let phi: f64 = s.counts[..self.inner.nc]
                    .iter()
                    .zip(w)
                    .map(|(&x, &w)| f64::from(x) * w)
                    .sum();
                phi <= *k
            }
        }
    }
}

impl LevelChain for LevelClassChain<'_> {
    type State = PackedState;

    fn start(&self) -> PackedState {
        let z = self.inner.start();
        self.symmetry.map_or(z, |g| g.canonical(&z))
    }

    fn level(&self, s: &PackedState) -> u32 {
        s.counts[..self.inner.nc]
            .iter()
            .map(|&c| u32::from(c))
            .sum()
    }

    fn inside(&self, s: &PackedState) -> bool {
        self.level(s) as usize <= self.total
            && s.counts
                .iter()
                .zip(&self.caps)
                .all(|(&x, &k)| usize::from(x) <= k)
            && self.in_simplex(s)
    }

    fn transitions(&self, s: &PackedState, out: &mut Vec<(PackedState, f64)>) {
        let from = out.len();
        self.inner.transitions(s, out);
        if let Some(g) = self.symmetry {
            // Rates into one orbit are summed by the explorer (targets merged).
            for (t, _) in &mut out[from..] {
                *t = g.canonical(t);
            }
        }
    }

    fn growth(&self, s: &PackedState) -> f64 {
        f64::from(self.level(s))
    }

    fn lyapunov(&self, s: &PackedState) -> Option<[f64; 4]> {
        // V_G = (2/m)V, V_1 = V_G/N₁, W_1 = W_G = V ([`certified_chain_means`]); without a
        // certificate none is claimed (module docs: no linear or quadratic function of the
        // counts alone has a negative drift on every face).
        let (cert, kg, n1) = self.certificate?;
        let v = cert.value(s)?.to_f64();
        Some([kg * v / n1, kg * v, v, v])
    }

    fn on_boundary(&self, s: &PackedState) -> bool {
        let nc = self.inner.nc;
        self.level(s) as usize == self.total
            || s.counts
                .iter()
                .zip(&self.caps)
                .any(|(&x, &k)| usize::from(x) == k)
            || (0..nc).any(|c| {
                let mut t = *s;
                t.counts[c] = t.counts[c].saturating_add(1);
                !self.in_simplex(&t)
            })
    }
}

/// The stationary probabilities of a solved truncation, by state (a warm start for a
/// larger one).
pub type StationaryMap = rustc_hash::FxHashMap<PackedState, f64>;

/// The [`StationaryMap`] of a truncation's states and their probabilities.
pub(crate) fn stationary_map(states: &[PackedState], pi: &[f64]) -> StationaryMap {
    states.iter().copied().zip(pi.iter().copied()).collect()
}

/// "lrf-fcfs on classes {1}, {2}, {1+2}": what a failure names.
fn subject(sys: &ClassSystem, policy: Policy) -> String {
    let all: Vec<usize> = (0..sys.classes().len()).collect();
    format!("{} on classes {}", policy.name(), sys.describe(&all))
}

/// The compact chain's values with at most `limits[c]` jobs of class c and `limits[nc]` in
/// all (arrivals blocked beyond), solved by the level solver of [`crate::num::levels`]
/// (two-level GMRES, double-double refinement), with an optional weighted simplex (weights, budget) as well and
/// an optional warm start; `faces` has one more entry, the mass of the states where some
/// arrival is blocked by the simplex. Also returns the stationary probabilities by state.
/// With a symmetry (whose group leaves `limits` and the simplex invariant) the chain is
/// lumped onto its orbits, the states are their representatives and the map holds the
/// orbits' masses. With `how.groups` the level solver's coarse correction is split by the
/// classes' shares ([`coarse_groups`]).
fn truncated_values(
    sys: &ClassSystem,
    policy: Policy,
    limits: &[usize],
    simplex: Option<(Vec<f64>, f64)>,
    digits: u32,
    warm: Option<&StationaryMap>,
    how: Reduction<'_>,
) -> Result<(ChainValues, Vec<f64>, StationaryMap), RedundancyError> {
    let symmetry = how.symmetry;
    let nc0 = sys.classes().len();
    if limits.len() != nc0 + 1 {
        return Err(RedundancyError::Internal(format!(
            "{} limits for {nc0} classes",
            limits.len()
        )));
    }
    let caps = &limits[..nc0];
    let total: usize = caps.iter().sum::<usize>().min(limits[nc0]);
    if total + 1 > CHAIN_MAX_TRUNCATION {
        return Err(RedundancyError::Numerical(format!(
            "{}: the exact chain would hold more than {CHAIN_MAX_TRUNCATION} jobs (the limit of the chain's state): ask fewer --digits or use redundancy simulate",
            subject(sys, policy)
        )));
    }
    let inner = ClassChain::new(sys, policy, total + 1)?;
    let chain = LevelClassChain {
        inner,
        caps: caps.to_vec(),
        total,
        simplex,
        floor: 0,
        symmetry,
        certificate: None,
    };
    let t0 = std::time::Instant::now();
    let mut c = levels::explore_with(&chain, how.max_states, ExitRule::Block).map_err(|e| {
        match e {
            LevelError::TooManyStates { limit } => {
                if let Some(hit) = how.hit_limit {
                    hit.set(true);
                }
                RedundancyError::Numerical(format!(
                    "{}: the exact chain needs more than {limit} states (the limit --max-states) for the truncation the digits asked need: {STATE_LIMIT_HINT}",
                    subject(sys, policy)
                ))
            }
            other => RedundancyError::Numerical(format!("{}: {other}", subject(sys, policy))),
        }
    })?;
    // The ILU(0) smoother around the level correction (as JSQ's chains use it): on the
    // W-model at λ = (0.5, 0.5, 0.6) under LRF-FCFS, Gauss–Seidel took 245–300 GMRES
    // iterations per solve of 0.4–0.75 M states.
    c.smoother = levels::Smoother::Ilu;
    c.restart = restart_length(c.len());
    if how.groups {
        let (count, groups) = coarse_groups(&c.states, sys.classes().len());
        c.set_groups(count, groups)
            .map_err(|e| RedundancyError::Internal(format!("{}: {e}", subject(sys, policy))))?;
    }
    let t1 = std::time::Instant::now();
    // A residual far below the digits compared (the means are relative to it).
    let target = 10f64.powi(-(digits as i32) - SOLVE_MARGIN_DIGITS);
    let guess: Option<Vec<f64>> = warm.map(|w| {
        c.states
            .iter()
            .map(|s| w.get(s).copied().unwrap_or(0.0))
            .collect()
    });
    let st = levels::stationary_from(&c, guess.as_deref(), target).map_err(|e| {
        RedundancyError::Numerical(format!(
            "{}: {e} ({} states); ask fewer --digits or use redundancy simulate",
            subject(sys, policy),
            c.len()
        ))
    })?;
    let lambda = sys.lambda_f64();
    let nc = lambda.len();
    let mut number = vec![0.0; nc];
    let mut faces = vec![0.0; nc + 2];
    // P(an arrival of class c is blocked): its target state is outside the truncation.
    let mut blocked = vec![0.0; nc];
    for (s, &p) in c.states.iter().zip(&st.pi) {
        let full = chain.level(s) as usize == total;
        if full {
            faces[nc] += p;
        }
        let mut band = false;
        for c in 0..nc {
            let x = usize::from(s.counts[c]);
            number[c] += p * x as f64;
            if x == caps[c] {
                faces[c] += p;
            }
            let mut t = *s;
            t.counts[c] = t.counts[c].saturating_add(1);
            let by_simplex = !chain.in_simplex(&t);
            band |= by_simplex;
            if full || x >= caps[c] || by_simplex {
                blocked[c] += p;
            }
        }
        if band {
            faces[nc + 1] += p;
        }
    }
    if let Some(g) = symmetry {
        // The lumped chain's per-class sums over representatives, averaged over each class's
        // orbit: the full chain's (type docs of [`Symmetry`]).
        g.average(&mut number);
        g.average(&mut faces[..nc]);
        g.average(&mut blocked);
    }
    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
        eprintln!(
            "redundancy chain: caps {caps:?} simplex {:?} states {} faces {faces:?} explore {:.3}s solve {:.3}s cycles {}",
            chain.simplex,
            c.len(),
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64(),
            st.cycles
        );
    }
    // Little's law with the accepted rates λ_c(1 − P(blocked_c)) (PASTA).
    let accepted: Vec<f64> = lambda
        .iter()
        .zip(&blocked)
        .map(|(l, f)| l * (1.0 - f))
        .collect();
    let response: Vec<f64> = number.iter().zip(&accepted).map(|(n, a)| n / a).collect();
    let total_number: f64 = number.iter().sum();
    let total_response = total_number / accepted.iter().sum::<f64>();
    let map = stationary_map(&c.states, &st.pi);
    Ok((
        ChainValues {
            number,
            response,
            total_number,
            total_response,
            p_full: faces.iter().copied().fold(0.0, f64::max),
            states: c.len(),
            residual: st.residual,
            solver: Solver::Levels,
        },
        faces,
        map,
    ))
}

/// How a truncation's chain is reduced and solved ([`truncated_values`]).
#[derive(Debug, Clone, Copy)]
struct Reduction<'a> {
    /// Lumped onto the orbits of this symmetry.
    symmetry: Option<&'a Symmetry>,
    /// The coarse correction split by the classes' shares ([`coarse_groups`]).
    groups: bool,
    /// The most states explored (`--max-states`).
    max_states: usize,
    /// Set when exploring met `max_states` (so that a caller can cut its truncation to
    /// fit rather than fail).
    hit_limit: Option<&'a std::cell::Cell<bool>>,
}

impl Default for Reduction<'_> {
    fn default() -> Self {
        Reduction {
            symmetry: None,
            groups: false,
            max_states: MAX_CHAIN_STATES,
            hit_limit: None,
        }
    }
}

/// What a user can do when a chain's truncation would exceed its state limit: the words
/// every such failure of `redundancy exact` ends with.
pub const STATE_LIMIT_HINT: &str =
    "ask fewer --digits, raise --max-states (2e6 states take about 1 GB), or use redundancy simulate";

/// A class is slow when its decay rate (nats per job) is within this factor of the slowest.
const SLOW_FACTOR: f64 = 1.5;

/// Whether the coarse correction is split by the classes' shares: when at least two classes
/// are slow (decay rates `w`, [`SLOW_FACTOR`]). One slow class (LRF's redundant class) is
/// the level direction itself, which the level correction follows: on the W-model at
/// (0.5, 0.5, 0.6) under LRF-FCFS the groups left the GMRES iterations as they were (244
/// against 245) and cost a sparse product more per cycle (9.35 against 7.65 s user).
fn split_by_shares(w: &[f64]) -> bool {
    let least = w.iter().copied().fold(f64::INFINITY, f64::min);
    w.iter().filter(|&&r| r <= SLOW_FACTOR * least).count() >= 2
}

/// The groups of the level solver's coarse correction ([`levels::Explored::set_groups`]): the
/// share n_c/(level + 1) of each of the first nc − 1 classes (at most five; the last class's
/// share is the rest), in b equal bins, b the largest with b^(nc − 1) ≤
/// [`levels::MAX_GROUPS`] (32 bins for two classes, 5 × 5 for three, 3 for four, 2 for five
/// or more); one class: the level alone. Under a class priority that
/// starves several classes (MRF: the W-model's two singleton classes, the N-model's both)
/// the mix of the classes within a level relaxes as slowly as the level itself, and a
/// correction constant on each level cannot follow it: the N-model at λ = (0.1, 1.7) under
/// MRF-FCFS needed 300 GMRES iterations a cycle without converging. Binned by share, its
/// last solves took 59-66 iterations (2026-12-03, benches/peer/exact_cases_after.md).
fn coarse_groups(states: &[PackedState], nc: usize) -> (usize, Vec<u8>) {
    let dims = nc.saturating_sub(1).min(5);
    if dims == 0 {
        return (1, Vec::new());
    }
    let mut b = 1usize;
    while (b + 1).pow(dims as u32) <= levels::MAX_GROUPS {
        b += 1;
    }
    if b < 2 {
        return (1, Vec::new());
    }
    let groups = states
        .iter()
        .map(|s| {
            let l: usize = s.counts[..nc].iter().map(|&x| usize::from(x)).sum();
            let g = s.counts[..dims].iter().fold(0usize, |g, &x| {
                g * b + (usize::from(x) * b / (l + 1)).min(b - 1)
            });
            // g < b^dims ≤ MAX_GROUPS ≤ 256.
            g as u8
        })
        .collect();
    (b.pow(dims as u32), groups)
}

/// The labelled chain's values at truncation `cap` (small caps only: the states grow
/// like C^N).
pub fn labelled_chain_values(
    sys: &ClassSystem,
    policy: Policy,
    cap: usize,
    opts: &SolveOptions,
) -> Result<ChainValues, RedundancyError> {
    let c = LabelledChain::new(sys, policy, cap);
    let chain = markov::explore(&c, Vec::new(), MAX_CHAIN_STATES)?;
    let nc = sys.classes().len();
    values(
        &sys.lambda_f64(),
        &chain,
        |s: &Vec<LabelledJob>| {
            let mut x = vec![0u32; nc];
            for j in s {
                x[usize::from(j.0)] += 1;
            }
            x
        },
        cap,
        opts,
    )
}

/// A chain value with the digits two truncations certify.
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedValue {
    /// The value at the larger truncation.
    pub value: f64,
    /// The decimal with the certified digits only.
    pub text: String,
    /// Significant digits certified.
    pub digits: u32,
}

/// The values of a policy by the compact chain, with the truncation that certifies them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainResult {
    /// E[N_c], the mean number of class-c jobs in the system, per class.
    pub number: Vec<CertifiedValue>,
    /// E[T_c] = E[N_c]/λ_c, the mean response time of class c, per class.
    pub response: Vec<CertifiedValue>,
    /// E[N] = Σ_c E[N_c], the mean number of jobs in the system.
    pub total_number: CertifiedValue,
    /// E[T] = E[N]/λ, λ = Σ_c λ_c: the mean response time over all jobs.
    pub total_response: CertifiedValue,
    /// The truncation whose values are printed.
    pub truncation: usize,
    /// The truncation they were compared with.
    pub compared_with: usize,
    /// The caps per class of the values printed, then the cap on the total.
    pub caps: Vec<usize>,
    /// The caps they were compared with (the same layout).
    pub compared_caps: Vec<usize>,
    /// The values at the smaller truncation.
    pub coarse: ChainValues,
    /// The values at the larger one.
    pub fine: ChainValues,
    /// The fewest digits of any value.
    pub digits: u32,
    /// The weighted simplex of the values printed, when one truncates them.
    pub simplex: Option<SimplexTruncation>,
    /// When the chain was reduced by a [`Symmetry`]: the class orbits it exchanges (empty
    /// when only equal servers are exchanged).
    pub exchanged: Option<Vec<Vec<usize>>>,
    /// Why the growth stopped before the digits asked (the state limit), when it did.
    pub stopped: Option<String>,
}

/// A weighted-simplex truncation {Σ_c w_c n_c ≤ K} and the budget it was compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct SimplexTruncation {
    /// w_c: the decay rate of class c's stationary mass, in nats per job.
    pub weights: Vec<f64>,
    /// K of the values printed.
    pub budget: f64,
    /// K of the smaller truncation they were compared with.
    pub compared_budget: f64,
}

fn certify_f64(lo: f64, hi: f64, wanted: u32) -> CertifiedValue {
    let c = certify_pair(&Float::with_val(64, lo), &Float::with_val(64, hi), wanted);
    CertifiedValue {
        value: hi,
        text: c.text,
        digits: c.digits,
    }
}

/// Mass the truncation's boundary may carry, relative to the last digit wanted
/// (10^−(digits + this)), before the truncation is compared with a larger one.
pub const BLOCKING_MARGIN_DIGITS: i32 = 2;
/// The comparison truncation's budget exceeds the printed one's by this many nats: about
/// two decades less stationary mass outside.
pub const COMPARE_NATS: f64 = 2.0 * std::f64::consts::LN_10;
/// GMRES's restart length on a chain of `n` states: as many Krylov vectors as
/// [`KRYLOV_BYTES`] hold, between [`levels::GMRES_RESTART`] and [`RESTART_MAX`]. Where the
/// two slowest directions are two classes (MRF's starved classes, the N-model at
/// λ = (0.1, 1.7) under MRF-FCFS) the level correction misses one of them and GMRES(24)
/// stagnates (300 iterations a cycle, the residual stuck near 1e-3: 18.4 s user); 48
/// vectors take it to 12.9 s, and cost about 5 % on the W-model's LRF/MRF-FCFS chains
/// (measured, 2026-12-03), whose solves converge either way.
fn restart_length(n: usize) -> usize {
    (KRYLOV_BYTES / (8 * n.max(1))).clamp(levels::GMRES_RESTART, RESTART_MAX)
}
/// The most Krylov vectors a redundancy chain's GMRES keeps ([`restart_length`]).
const RESTART_MAX: usize = 48;
/// The memory the Krylov basis may take beyond [`levels::GMRES_RESTART`] vectors.
const KRYLOV_BYTES: usize = 192 << 20;
/// The stationary solve's relative residual is aimed this many digits below the digits
/// compared.
const SOLVE_MARGIN_DIGITS: i32 = 6;
/// Decay rates (nats per job) are kept within these: a rate below the least is a chain
/// too close to instability for the exact chain, one above the most is a class whose mass
/// at the pilot's cap is below f64's range.
const RATE_MIN: f64 = 1e-3;
const RATE_MAX: f64 = 4.0;
/// Most budget steps before the boundary mass falls below the target.
const MAX_BUDGET_STEPS: usize = 12;
/// The pilot boxes hold about this many class-count vectors at most.
const PILOT_VECTORS: f64 = 1.5e4;
/// Layers (bins of the simplex's potential Σ_c w_c n_c) over which the decay of a solved
/// chain's mass below its boundary is fitted, and the top layers left out (the blocking
/// at the boundary distorts them).
const LAYER_FIT: usize = 8;
const LAYER_SKIP: usize = 1;
/// Budget added beyond the one the fitted layer decay predicts, in nats.
const LAYER_MARGIN_NATS: f64 = 1.0;
/// The range the decay per nat of budget fitted over one solved chain's layers is held to
/// when it aims the next truncation: at most 1 (the weights are the decay rates), at least
/// 0.2 (a slower fitted decay would aim a truncation five or more times the nats needed).
const DECAY_RANGE: (f64, f64) = (0.2, 1.0);
/// The least decay per nat of budget measured between two solved budgets that aims the next
/// one (at most 1, as above). This measurement is not held to [`DECAY_RANGE`]'s 0.2: it is
/// the boundary mass of the same shape at two budgets, and the decay it measures only
/// steepens further out, so the budget it aims is enough or slightly more. Held to 0.2,
/// a slower true decay made each step fall short and the budget creep: the W-model at
/// (0.6, 0.6, 0.6) under ROS, 4 digits (boundary mass wanted below 1e−6, decay 0.15),
/// solved budgets of 69.3, 80.0, 82.5 and 83.1 nats (447 152 to 772 372 states, 5–6 s
/// each) where 69.3 and 83.0 do.
const MEASURED_DECAY_FLOOR: f64 = 0.05;

/// The decay, per nat of potential φ = Σ_c w_c n_c, of the stationary mass of a solved
/// simplex truncation of `budget`: the least-squares slope of ln(mass) over [`LAYER_FIT`]
/// bins of φ of width max(1, max w) below the boundary (the top [`LAYER_SKIP`] full bins
/// left out). `None` when a bin is empty or the simplex is too small.
fn layer_decay(pi: &StationaryMap, w: &[f64], budget: f64, nc: usize) -> Option<f64> {
    let h = w.iter().copied().fold(1.0f64, f64::max);
    // Bins j·h ≤ φ < (j + 1)·h; the top bin that lies wholly inside the simplex.
    let full = (budget / h).floor() as usize;
    let top = full.checked_sub(1 + LAYER_SKIP)?;
    let first = (top + 1).checked_sub(LAYER_FIT)?;
    if first == 0 {
        return None;
    }
    let mut mass = vec![0.0f64; full + 1];
    for (s, &p) in pi {
        let phi: f64 = s.counts[..nc]
            .iter()
            .zip(w)
            .map(|(&x, &w)| f64::from(x) * w)
            .sum();
        let j = (phi / h).floor() as usize;
        if j <= full {
            mass[j] += p;
        }
    }
    let pts: Vec<(f64, f64)> = (first..=top)
        .map(|j| (j as f64 * h, mass[j]))
        .filter(|&(_, m)| m > 0.0)
        .map(|(x, m)| (x, m.ln()))
        .collect();
    if pts.len() < LAYER_FIT {
        return None;
    }
    let slope = levels::least_squares_slope(&pts);
    (slope < 0.0 && slope.is_finite()).then_some(-slope)
}

/// What is known of the boundary mass's decay per nat of budget when the next truncation
/// is aimed ([`aim_budget`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Decay {
    /// Between the last two budgets solved (the same shape).
    Measured(f64),
    /// Fitted over the layers of one solved simplex ([`layer_decay`]).
    Fitted(f64),
    /// Nothing measured (the first truncation of a shape): the weights' own 1 per nat.
    None,
}

/// The budget of the next truncation, from a truncation of `budget` whose boundary carries
/// the mass `band` above `target`: the budget at which the mass, falling at the decay
/// known, meets the target, plus a margin (0.5 nats, [`LAYER_MARGIN_NATS`] after a layer
/// fit). A fitted decay is held to [`DECAY_RANGE`], a measured one to
/// [`MEASURED_DECAY_FLOOR`] and 1.
fn aim_budget(budget: f64, band: f64, target: f64, decay: Decay) -> f64 {
    let (per_nat, margin) = match decay {
        Decay::Measured(r) => (r.clamp(MEASURED_DECAY_FLOOR, DECAY_RANGE.1), 0.5),
        Decay::Fitted(r) => (r.clamp(DECAY_RANGE.0, DECAY_RANGE.1), LAYER_MARGIN_NATS),
        Decay::None => (1.0, 0.5),
    };
    budget + (band / target).ln() / per_nat + margin
}

/// The pace of the truncations solved so far, for the time estimate each truncation's
/// progress note gives before it is solved.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Pace {
    /// The last truncation solved: its states and seconds.
    last: Option<(f64, f64)>,
}

impl Pace {
    /// Records a truncation of `states` states solved in the time since `start`.
    pub(super) fn record(&mut self, states: usize, start: std::time::Instant) {
        self.last = Some((states as f64, start.elapsed().as_secs_f64()));
    }

    /// ", about T s" for a truncation of about `states` states (empty before the first is
    /// solved): the last one's seconds per state, times the square root of the ratio of the
    /// sizes, since GMRES needs more iterations on a larger chain. Measured 2026-12-05 (one
    /// run each): the W-model at (0.5, 0.5, 0.6) under MRF-ROS, 112 330 → 744 874 states,
    /// 16.7 → 34.2 µs a state (the rule says 43); the N-model at (0.1, 1.84) under ROS,
    /// 138 430 → 294 727 → 409 869 states, 24.8 → 47.6 → 54.8 µs (the rule: 36 and 56).
    pub(super) fn note(&self, states: f64) -> String {
        match self.last {
            Some((n, secs)) if n > 0.0 && states.is_finite() && states > 0.0 => {
                let t = secs / n * states * (states / n).max(1.0).sqrt();
                format!(", about {t:.0} s")
            }
            _ => String::new(),
        }
    }
}

/// The truncations of one growth ([`solve_shaped`]): each solved with its progress line
/// (a step count, the states estimated and the time at the pace so far) and its time
/// recorded for the next one's estimate.
struct Steps<'a> {
    sys: &'a ClassSystem,
    policy: Policy,
    want: u32,
    how: Reduction<'a>,
    step: u64,
    pace: Pace,
}

impl Steps<'_> {
    /// [`truncated_values`] for `shape` at `budget`, warm-started at `warm`; `what` says
    /// which truncation it is, `est` its estimated states.
    fn solve(
        &mut self,
        shape: &Shape,
        budget: f64,
        warm: &StationaryMap,
        what: &str,
        est: f64,
    ) -> Result<(ChainValues, Vec<f64>, StationaryMap), RedundancyError> {
        self.step += 1;
        crate::progress::report(
            "exact chain: truncation",
            self.step,
            None,
            &format!(
                "{what}, about {est:.0} states{} (estimated)",
                self.pace.note(est)
            ),
        );
        let started = std::time::Instant::now();
        let r = truncated_values(
            self.sys,
            self.policy,
            &shape.limits(budget),
            shape.simplex(budget),
            self.want,
            Some(warm),
            self.how,
        )?;
        self.pace.record(r.0.states, started);
        Ok(r)
    }
}

/// The share of the state limit a budget cut to fit it aims at ([`fit_budget`]): the
/// estimate of a truncation's states is within 0.6–1.6 times the states explored.
const FIT_SHARE: f64 = 0.9;
/// The share of the state limit the comparison truncation of a pair cut to fit it aims at:
/// its states are counted as class-count vectors times the last chain's states per
/// vector, which grows with the budget (the W-model at (0.6, 0.6, 0.6) under ROS, 12
/// digits: 2.13 per vector on the simplex solved first, 2.5 in the box of the pair, whose
/// comparison aimed at 1.5 million states held 1.78 million, 2026-12-07). A comparison
/// whose exploration still meets the limit has its pair cut again (at a cost of the
/// exploration and a smaller truncation's solve), so the share need not cover the growth
/// in full: 0.8 prints 7 digits on that row where 0.7 printed 6 (54 s user and 1 223 MB
/// peak against 48 s and 1 105 MB), with no pair cut again on it, on the N-model at limits
/// 1 000 to 40 000 or on the W-model at (0.5, 0.5, 0.6) at 20 000 to 300 000. Over 300
/// random small systems (2–3 servers, loads 0.4–0.9, every policy, 6–12 digits, limits
/// 2 000–100 000; both shares with the fall-back) 13 printed different digits: 0.8 more
/// in 12 (six of them exit 3 at 0.7), fewer in one (4 against 5, its comparison cut again).
const PAIR_FIT_SHARE: f64 = 0.8;
/// Budgets cut to fit the state limit, at most (a cut whose exploration still meets the
/// limit is cut again with the estimate scaled by what it missed).
const MAX_FITS: usize = 2;
/// After an exploration met the limit, the estimate is scaled by what it must at least
/// have missed (the limit over the estimate) times this margin before fitting.
const FIT_SCALE_MARGIN: f64 = 1.25;
/// A budget cut to fit the state limit is solved only if it lies this many nats beyond the
/// last solved one (the bound decays 0.2–1 nats per nat of budget: a tenth to half a
/// digit at the least).
const MIN_FIT_NATS: f64 = 1.0;
/// The largest budget in [`lo`, `hi`] whose estimated states `states(b)` (increasing in
/// b) are at most `cap`, by bisection to 0.01 nats; `lo` when even it is above.
fn fit_budget(states: impl Fn(f64) -> f64, lo: f64, hi: f64, cap: f64) -> f64 {
    if states(hi) <= cap {
        return hi;
    }
    let (mut a, mut b) = (lo, hi);
    if states(a) > cap {
        return lo;
    }
    while b - a > 0.01 {
        let m = 0.5 * (a + b);
        if states(m) <= cap {
            a = m;
        } else {
            b = m;
        }
    }
    a
}

/// C(n + k, k): the class-count vectors of k classes with at most n jobs in all.
fn vectors(n: usize, k: usize) -> f64 {
    (1..=k).map(|i| (n + i) as f64 / i as f64).product()
}

/// The decay rate per job between two masses `k` jobs apart (NaN when it does not decay).
fn decay(a: f64, b: f64, k: f64) -> f64 {
    if a > 0.0 && b > 0.0 && a > b {
        (a / b).ln() / k
    } else if a == 0.0 || b == 0.0 {
        // Below f64's range at one of the caps: the fastest decay allowed.
        RATE_MAX
    } else {
        f64::NAN
    }
}

/// The per-class caps and the total a simplex implies (its largest counts).
fn simplex_limits(w: &[f64], budget: f64) -> Vec<usize> {
    let mut l: Vec<usize> = w
        .iter()
        .map(|&w| (budget / w).floor().max(0.0) as usize + 1)
        .collect();
    let top = l.iter().copied().max().unwrap_or(0);
    l.push(top);
    l
}

/// About how many states a simplex of `budget` holds, from one of `from` that held
/// `states` (the class-count vectors scale like Π_c (1 + K/w_c)).
fn estimate(states: usize, w: &[f64], from: f64, to: f64) -> f64 {
    let f: f64 = w
        .iter()
        .map(|&w| (1.0 + to / w) / (1.0 + from / w))
        .product();
    states as f64 * f
}

/// The class-count vectors in the box {n_c ≤ ⌊K/r_c⌋, Σ_c n_c ≤ ⌊K/r_tot⌋} (`rates`: the
/// classes', then the total's), counted exactly (a convolution over the classes).
fn box_vectors(rates: &[f64], k: f64) -> f64 {
    let nc = rates.len() - 1;
    let cap = |r: f64| (k / r).floor().clamp(0.0, 1e6) as usize;
    let t = cap(rates[nc]);
    let mut a = vec![0.0f64; t + 1];
    a[0] = 1.0;
    for &r in &rates[..nc] {
        let m = cap(r);
        // new[j] = Σ_{n ≤ min(m, j)} a[j − n], by a running sum.
        let mut b = vec![0.0f64; t + 1];
        let mut run = 0.0;
        for j in 0..=t {
            run += a[j];
            if j > m {
                run -= a[j - m - 1];
            }
            b[j] = run;
        }
        a = b;
    }
    a.iter().sum()
}

/// The class-count vectors in the simplex {Σ_c w_c n_c ≤ K}, counted on the weights
/// rounded to K/[`SIMPLEX_GRID`] (a recurrence over the classes).
fn simplex_vectors(w: &[f64], k: f64) -> f64 {
    let l = SIMPLEX_GRID;
    let h = k / l as f64;
    let mut a = vec![0.0f64; l + 1];
    a[0] = 1.0;
    for &wc in w {
        let q = ((wc / h).round() as usize).max(1);
        // new[j] = Σ_{n ≥ 0} a[j − n q] = a[j] + new[j − q].
        for j in q..=l {
            a[j] += a[j - q];
        }
    }
    a.iter().sum()
}

/// A solved chain's states per class-count vector of the full chain ([`count_vectors`]).
fn per_vector_of(pi: &StationaryMap, nc: usize, sym: Option<&Symmetry>) -> f64 {
    pi.len() as f64 / count_vectors(pi, nc, sym) as f64
}

/// The largest budget in [`lo`, `hi`] whose pair (it and its comparison COMPARE_NATS
/// larger) fits PAIR_FIT_SHARE of `max_states`, the comparison's states being its
/// class-count vectors times `per_vector` ([`fit_budget`]).
fn fit_pair(shape: &Shape, per_vector: f64, lo: f64, hi: f64, max_states: usize) -> f64 {
    fit_budget(
        |b| per_vector * shape.vectors(b + COMPARE_NATS),
        lo,
        hi,
        PAIR_FIT_SHARE * max_states as f64,
    )
}

/// The distinct class-count vectors of a solved chain's states, counted as in the full
/// chain: a chain lumped by a [`Symmetry`] holds one representative per orbit, which stands
/// for every distinct image of its counts under the group (two where the W-model's
/// singleton classes have different counts). So states / vectors is the chain's states per
/// vector of [`simplex_vectors`] and [`box_vectors`], which count the full chain's.
fn count_vectors(pi: &StationaryMap, nc: usize, sym: Option<&Symmetry>) -> usize {
    let v: rustc_hash::FxHashSet<[u16; CHAIN_MAX_CLASSES]> = pi
        .keys()
        .map(|s| {
            let mut x = [0u16; CHAIN_MAX_CLASSES];
            x[..nc].copy_from_slice(&s.counts[..nc]);
            x
        })
        .collect();
    let n = match sym {
        None => v.len(),
        Some(g) => v
            .iter()
            .map(|x| {
                let mut images = vec![*x];
                for (_, pi) in g.elements() {
                    let mut y = [0u16; CHAIN_MAX_CLASSES];
                    for (&c, &d) in x[..nc].iter().zip(pi) {
                        y[d] = c;
                    }
                    if !images.contains(&y) {
                        images.push(y);
                    }
                }
                images.len()
            })
            .sum(),
    };
    n.max(1)
}

/// The grid of potentials [`simplex_vectors`] counts on.
const SIMPLEX_GRID: usize = 4096;

/// The shape of the truncation the budget K grows: the weighted simplex
/// {Σ_c w_c n_c ≤ K}, or (where it holds fewer vectors) the box of the counts capped by a total,
/// {r_c n_c ≤ K for every c, r_tot Σ_c n_c ≤ K}, whose rates are the decays of the
/// marginal masses P(n_c = x) and P(Σ n = x) of a solved chain ([`marginal_rates`]).
#[derive(Debug, Clone)]
enum Shape {
    Simplex(Vec<f64>),
    /// The classes' rates, then the total's.
    Box(Vec<f64>),
}

impl Shape {
    /// The per-class caps and the total of budget `k`.
    fn limits(&self, k: f64) -> Vec<usize> {
        match self {
            Shape::Simplex(w) => simplex_limits(w, k),
            Shape::Box(r) => r
                .iter()
                .map(|&r| (k / r).floor().max(0.0) as usize + 1)
                .collect(),
        }
    }

    fn simplex(&self, k: f64) -> Option<(Vec<f64>, f64)> {
        match self {
            Shape::Simplex(w) => Some((w.clone(), k)),
            Shape::Box(_) => None,
        }
    }

    /// The class-count vectors of budget `k`, counted exactly.
    fn vectors(&self, k: f64) -> f64 {
        match self {
            Shape::Simplex(w) => simplex_vectors(w, k),
            Shape::Box(r) => box_vectors(r, k),
        }
    }

    /// About how many states budget `to` holds, from `states` at `from`.
    fn estimate(&self, states: usize, from: f64, to: f64) -> f64 {
        match self {
            Shape::Simplex(w) => estimate(states, w, from, to),
            Shape::Box(r) => estimate(states, &r[..r.len() - 1], from, to),
        }
    }
}

/// The decay rates (nats per job) of the marginal masses P(n_c = x) of each class and of
/// P(Σ_c n_c = x) in a solved chain: the slowest local decay ln(P(x)/P(x + 1)) over
/// x in [m/4, m/2], m the largest x the chain reaches (below, the empty system's
/// neighbourhood; above, the blocking distorts the mass). Exchanged classes get the
/// slowest rate of their orbit (the lumped chain's representatives order them). `None`
/// when the chain is too small to show a decay.
fn marginal_rates(pi: &StationaryMap, nc: usize, sym: Option<&Symmetry>) -> Option<Vec<f64>> {
    let mut hist: Vec<Vec<f64>> = vec![Vec::new(); nc + 1];
    for (s, &p) in pi {
        let mut tot = 0usize;
        for (c, h) in hist.iter_mut().enumerate().take(nc) {
            let x = usize::from(s.counts[c]);
            tot += x;
            if h.len() <= x {
                h.resize(x + 1, 0.0);
            }
            h[x] += p;
        }
        let h = &mut hist[nc];
        if h.len() <= tot {
            h.resize(tot + 1, 0.0);
        }
        h[tot] += p;
    }
    let mut rates = Vec::with_capacity(nc + 1);
    for h in &hist {
        let m = h.len() - 1;
        let (lo, hi) = (m / 4, m / 2);
        if lo < 2 || hi < lo + 2 {
            return None;
        }
        let r = (lo..hi)
            .map(|x| {
                if h[x] > 0.0 && h[x + 1] > 0.0 {
                    (h[x] / h[x + 1]).ln()
                } else {
                    f64::NAN
                }
            })
            .fold(f64::INFINITY, f64::min);
        if !r.is_finite() {
            return None;
        }
        rates.push(r.clamp(RATE_MIN, RATE_MAX));
    }
    let r_tot = rates[nc];
    // A class's count is at most the total, so its mass decays at least as fast.
    for r in &mut rates[..nc] {
        *r = r.max(r_tot);
    }
    if let Some(g) = sym {
        g.minimum(&mut rates[..nc]);
    }
    Some(rates)
}

/// What the two pilot boxes of a chain solve measure ([`pilot`]).
struct Pilot {
    /// The caps of the two boxes.
    k0: usize,
    k1: usize,
    /// The values and boundary masses (per class, the total, the simplex band) of each.
    v0: ChainValues,
    f0: Vec<f64>,
    v1: ChainValues,
    f1: Vec<f64>,
    /// The larger box's stationary probabilities (a warm start).
    pi1: StationaryMap,
    /// Each class's decay rate (nats per job), at least the total's, equal on the orbits
    /// of `sym`: the weights of the simplex.
    weights: Vec<f64>,
    /// The total's decay rate.
    r_tot: f64,
}

/// The pilot boxes of a chain solve (module docs, *Truncation*): every class and the total
/// capped at k0 and about 1.5·k0 (k0 = `start` or [`START_TRUNCATION`], lowered for many
/// classes), blocked, solved with the level correction alone; the ratio of the masses on
/// each cap gives each class's decay rate.
fn pilot(
    sys: &ClassSystem,
    policy: Policy,
    want: u32,
    start: Option<usize>,
    sym: Option<&Symmetry>,
    max_states: usize,
) -> Result<Pilot, RedundancyError> {
    let nc = sys.classes().len();
    // The pilot boxes: caps k0 and about 1.5·k0, small enough for many classes.
    let mut k0 = start.unwrap_or(START_TRUNCATION).max(2);
    if start.is_none() {
        while k0 > 4 && vectors(k0 + k0.div_ceil(2), nc) > PILOT_VECTORS {
            k0 -= 1;
        }
    }
    let k1 = k0 + k0.div_ceil(2);
    crate::progress::report(
        "exact chain: pilot truncations",
        0,
        None,
        &format!("boxes of {k0} and {k1} jobs per class"),
    );
    // The pilot boxes are small (at most PILOT_VECTORS class-count vectors): the level
    // correction alone.
    let how = Reduction {
        symmetry: sym,
        groups: false,
        max_states,
        hit_limit: None,
    };
    let (v0, f0, _) = truncated_values(sys, policy, &vec![k0; nc + 1], None, want, None, how)?;
    let (v1, f1, pi1) = truncated_values(sys, policy, &vec![k1; nc + 1], None, want, None, how)?;
    let span = (k1 - k0) as f64;
    let r_tot = decay(f0[nc], f1[nc], span);
    let r_tot = if r_tot.is_nan() {
        RATE_MIN
    } else {
        r_tot.clamp(RATE_MIN, RATE_MAX)
    };
    // A class's count is at most the total, so its mass decays at least as fast.
    let mut weights: Vec<f64> = (0..nc)
        .map(|c| {
            let r = decay(f0[c], f1[c], span);
            if r.is_nan() {
                r_tot
            } else {
                r.clamp(r_tot, RATE_MAX)
            }
        })
        .collect();
    if let Some(g) = sym {
        // Exchanged classes' faces are equal already; equal weights exactly, so that every
        // simplex is invariant under the group.
        g.average(&mut weights);
    }
    Ok(Pilot {
        k0,
        k1,
        v0,
        f0,
        v1,
        f1,
        pi1,
        weights,
        r_tot,
    })
}

/// Solves `policy` on `sys` by the compact chain (module docs, *Truncation*): two pilot
/// boxes give each class's decay rate; a weighted simplex of those rates is grown until
/// the mass at its boundary is below 10^−(digits + [`BLOCKING_MARGIN_DIGITS`]), then its
/// values are compared with those of a simplex [`COMPARE_NATS`] larger, growing until the
/// two agree to `digits` digits (at most [`CHAIN_MAX_DIGITS`]) or the chain would exceed
/// [`MAX_CHAIN_STATES`]; the larger truncation's values are printed with the digits on
/// which the two agree. This is an estimate of the truncation error, not a bound: what
/// `redundancy exact` runs when [`lyapunov::lyapunov_search`] finds no certificate
/// ([`solve_certified`] otherwise). `start` overrides the pilot's cap.
pub fn solve(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    start: Option<usize>,
) -> Result<ChainResult, RedundancyError> {
    solve_with(sys, policy, digits, start, true)
}

/// [`solve`], reducing the chain by the system's [`Symmetry`] or not (`use_symmetry`): the
/// full chain is the reference the reduced one is tested against.
pub fn solve_with(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    start: Option<usize>,
    use_symmetry: bool,
) -> Result<ChainResult, RedundancyError> {
    solve_shaped(
        sys,
        policy,
        digits,
        start,
        use_symmetry,
        true,
        MAX_CHAIN_STATES,
    )
}

/// [`solve`] with at most `max_states` states in any truncation (`--max-states`) instead
/// of [`MAX_CHAIN_STATES`].
pub fn solve_limited(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    max_states: usize,
) -> Result<ChainResult, RedundancyError> {
    solve_shaped(sys, policy, digits, None, true, true, max_states)
}

/// [`solve_with`], choosing the truncation's shape from the solved chain when
/// `choose_shape` (the weighted simplex throughout otherwise): once the first simplex is
/// solved, the box of the class counts capped by a total ([`Shape`]), with the rates of that
/// chain's marginal masses, replaces the simplex when it holds fewer class-count vectors at
/// the budget the target needs (ln(1/target) + 1 nats) than the simplex at the budget its
/// layer decay predicts; and when the pilot already predicts a simplex beyond
/// [`MAX_CHAIN_STATES`], the box of the pilot's marginal rates is tried instead. Under ROS
/// the classes grow together: in the W-model at λ = (0.5, 0.5, 0.6) the total decays at
/// ln(1/0.8) = 0.223 nats per job while each class alone (the pilot's axes) decays at 0.61
/// and 1.46, so a simplex of the axes' rates needs a budget of about 121 nats (1.35 M
/// states) where the box of the marginals' rates (0.455, 0.455, 0.67; total 0.223) needs
/// about 33. Under a class priority the simplex needs fewer: W-model LRF-FCFS, for 1e-12 of
/// mass outside on a solved chain of 497 k states, 194 k states in the simplex against at
/// least 292 k in the box (measured, 2026-12-03).
fn solve_shaped(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    start: Option<usize>,
    use_symmetry: bool,
    choose_shape: bool,
    max_states: usize,
) -> Result<ChainResult, RedundancyError> {
    // The shape is chosen once, after the first simplex is solved.
    let mut choose = choose_shape;
    let symmetry = if use_symmetry {
        Symmetry::of(sys, policy)
    } else {
        None
    };
    let sym = symmetry.as_ref();
    let exchanged = symmetry.as_ref().map(Symmetry::exchanged);
    let want = digits.clamp(1, CHAIN_MAX_DIGITS);
    let nc = sys.classes().len();
    let target = 10f64.powi(-(want as i32) - BLOCKING_MARGIN_DIGITS);
    let fail = |what: String| {
        RedundancyError::Numerical(format!(
            "{}: {what}: {STATE_LIMIT_HINT}",
            subject(sys, policy)
        ))
    };
    let Pilot {
        k0,
        k1,
        v0,
        f0,
        v1,
        f1,
        pi1,
        weights,
        r_tot,
    } = pilot(sys, policy, want, start, sym, max_states)?;
    let pair = |coarse: ChainValues,
                fine: ChainValues,
                caps: Vec<usize>,
                compared: Vec<usize>,
                simplex: Option<SimplexTruncation>| {
        let cert = |a: f64, b: f64| certify_f64(a, b, want);
        let number: Vec<CertifiedValue> = coarse
            .number
            .iter()
            .zip(&fine.number)
            .map(|(a, b)| cert(*a, *b))
            .collect();
        let response: Vec<CertifiedValue> = coarse
            .response
            .iter()
            .zip(&fine.response)
            .map(|(a, b)| cert(*a, *b))
            .collect();
        let total_number = cert(coarse.total_number, fine.total_number);
        let total_response = cert(coarse.total_response, fine.total_response);
        let fewest = number
            .iter()
            .chain(&response)
            .chain([&total_number, &total_response])
            .map(|v| v.digits)
            .min()
            .unwrap_or(0);
        ChainResult {
            number,
            response,
            total_number,
            total_response,
            truncation: caps.iter().copied().max().unwrap_or(0),
            compared_with: compared.iter().copied().max().unwrap_or(0),
            caps,
            compared_caps: compared,
            coarse,
            fine,
            digits: fewest,
            simplex,
            exchanged: exchanged.clone(),
            stopped: None,
        }
    };
    // Light load: the pilot boxes may already settle the digits.
    if f0.iter().all(|&f| f <= target) {
        let r = pair(v0, v1.clone(), vec![k1; nc + 1], vec![k0; nc + 1], None);
        if r.digits >= want {
            return Ok(r);
        }
    }
    // The pilot's decay rates say which classes are slow; the groups are chosen once.
    // Set when exploring a truncation met the state limit.
    let hit = std::cell::Cell::new(false);
    let how = Reduction {
        symmetry: sym,
        groups: split_by_shares(&weights),
        max_states,
        hit_limit: Some(&hit),
    };
    let mut steps = Steps {
        sys,
        policy,
        want,
        how,
        step: 0,
        pace: Pace::default(),
    };
    let f1max = f1.iter().copied().fold(0.0, f64::max);
    let mut budget = r_tot * k1 as f64 + (f1max / target).ln().max(0.0) + 1.0;
    let mut shape = Shape::Simplex(weights);
    let (mut states, mut from) = (v1.states, r_tot * k1 as f64);
    let mut warm = pi1;
    // Grow the budget until the boundary carries less than the target.
    let mut tries = 0usize;
    // The boundary mass's decay per nat of budget: 1 if the simplex followed π exactly;
    // measured once two budgets are solved.
    let mut last: Option<(f64, f64)> = None;
    // The pilot's states per class-count vector: its box holds the vectors with at most k1
    // jobs in all.
    let pilot_per_vector = v1.states as f64 / vectors(k1, nc);
    let mut solved = false;
    // The last truncation solved and the mass on its boundary.
    let mut last_solved: Option<(ChainValues, f64)> = None;
    // Why the growth stopped short of the target (the state limit), once it did.
    let mut limited: Option<String> = None;
    let (mut coarse, mut band) = loop {
        let mut est = match &shape {
            Shape::Simplex(w) if !solved => pilot_per_vector * simplex_vectors(w, budget),
            _ => shape.estimate(states, from, budget),
        };
        let mut box_text = String::new();
        if est > max_states as f64 && choose {
            // The simplex the pilot's axes predict is too large: the box of the pilot's
            // marginal rates may not be (its states: its class-count vectors times the
            // pilot's states per vector).
            choose = false;
            if let Some(rates) = marginal_rates(&warm, nc, sym) {
                let k_box = (1.0 / target).ln() + 1.0;
                let per_vector = per_vector_of(&warm, nc, sym);
                let in_box = box_vectors(&rates, k_box) * per_vector;
                if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                    eprintln!(
                        "redundancy chain: pilot's marginal decay rates {rates:?} (classes, total): box of budget {k_box:.1} about {in_box:.2e} states, simplex of budget {budget:.1} about {est:.2e}"
                    );
                }
                if in_box < est {
                    box_text =
                        format!("; the weighted simplex, budget {budget:.1} nats, about {est:.1e}");
                    (shape, budget, est) = (Shape::Box(rates), k_box, in_box);
                } else {
                    box_text = format!(
                        "; the box of the class counts capped by a total, budget {k_box:.1} nats, about {in_box:.1e}"
                    );
                }
            }
        }
        let shape_name = match shape {
            Shape::Simplex(_) => "weighted simplex",
            Shape::Box(_) => "class counts capped by a total",
        };
        if limited.is_none() {
            // The values are certified by comparing this truncation with one
            // COMPARE_NATS larger. When that pair is beyond the state limit, the largest
            // pair that fits is solved instead and its digits printed with the reason (the
            // W-model at (0.6, 0.6, 0.6) under MRF-FCFS, 12 digits, 2026-12-07: a
            // 1.7 M-state truncation solved in 50 s before its comparison was found not to
            // fit). The states of a budget: its class-count vectors, counted exactly, times
            // the last solved chain's states per vector (before the first truncation, the
            // pilot's: nested-3 at 0.9 of capacity, whose first truncation is beyond the
            // limit under every policy, exited 3 before solving anything; the comparison's
            // fall-back below corrects the pilot's lower density).
            let per_vector = per_vector_of(&warm, nc, sym);
            let by_vectors = |b: f64| per_vector * shape.vectors(b);
            let fine = by_vectors(budget + COMPARE_NATS).max(est);
            if fine > max_states as f64 {
                let lo = match shape {
                    Shape::Simplex(_) => from,
                    Shape::Box(_) => 0.0,
                };
                let fitted = fit_pair(&shape, per_vector, lo, budget, max_states);
                if fitted >= lo + MIN_FIT_NATS {
                    limited = Some(format!(
                        "the truncation the digits need ({shape_name}, budget {budget:.1} nats) and its comparison would hold about {fine:.1e} states{box_text}, more than the limit {max_states}"
                    ));
                    budget = fitted;
                    est = by_vectors(budget);
                    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                        eprintln!(
                            "redundancy chain: budget cut to {budget:.2} so that its comparison fits the limit ({per_vector:.2} states per vector)"
                        );
                    }
                }
            }
        }
        if est > max_states as f64 {
            let why = format!(
                "the truncation {want} digits need ({shape_name}, budget {budget:.1} nats) would hold about {est:.1e} states{box_text}, more than the limit {max_states}"
            );
            // A truncation was solved and no budget between it and the limit was left: the
            // pair is cut from below it instead (the loop after this one fits it to the
            // limit). Nested-3 at half load under LRF-ROS exited 3 here at 13 digits asked
            // and printed 6 at 10, 2026-12-07.
            match last_solved.take() {
                Some((v, b)) if limited.is_none() => {
                    limited = Some(why);
                    budget = from;
                    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                        eprintln!(
                            "redundancy chain: the next budget does not fit: the pair is cut from budget {budget:.2}"
                        );
                    }
                    break (v, b);
                }
                _ => return Err(fail(why)),
            }
        }
        let (v, f, pi) = steps.solve(
            &shape,
            budget,
            &warm,
            &format!("budget {budget:.1} nats"),
            est,
        )?;
        let band = f.iter().copied().fold(0.0, f64::max);
        (states, from, warm) = (v.states, budget, pi);
        solved = true;
        last_solved = Some((v.clone(), band));
        if band <= target || limited.is_some() {
            break (v, band);
        }
        tries += 1;
        if tries > MAX_BUDGET_STEPS {
            return Err(fail(format!(
                "the mass on the truncation's boundary stayed at {band:.1e} (wanted below {target:.0e}) after {MAX_BUDGET_STEPS} steps"
            )));
        }
        // The boundary mass's decay per nat of budget: between the last two budgets solved
        // or, after the first, the decay of the solved chain's mass across the layers of
        // the simplex below its boundary (a conservative estimate: the decay steepens as
        // the budget grows), so that the next budget is the one the digits need rather
        // than a step towards it.
        let measured = match last {
            Some((b0, m0)) if m0 > band && budget > b0 => {
                Decay::Measured((m0 / band).ln() / (budget - b0))
            }
            _ => match &shape {
                Shape::Simplex(w) => {
                    layer_decay(&warm, w, budget, nc).map_or(Decay::None, Decay::Fitted)
                }
                Shape::Box(_) => Decay::None,
            },
        };
        last = Some((budget, band));
        let next = aim_budget(budget, band, target, measured);
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            eprintln!(
                "redundancy chain: boundary mass {band:.2e} at budget {budget:.1} (target {target:.1e}), decay {measured:?}: next budget {next:.1}"
            );
        }
        budget = next;
        if choose {
            choose = false;
            if let (Shape::Simplex(w), Some(rates)) = (&shape, marginal_rates(&warm, nc, sym)) {
                // The box's marginals fall by e^{−K} at its caps: it starts at the budget
                // the target needs (a new shape: the simplex's solve is a warm start
                // only). Adopted when it holds fewer class-count vectors than the simplex
                // of the budget just predicted.
                let k_box = (1.0 / target).ln() + 1.0;
                let (in_simplex, in_box) = (simplex_vectors(w, budget), box_vectors(&rates, k_box));
                if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                    eprintln!(
                        "redundancy chain: marginal decay rates {rates:?} (classes, total); class-count vectors: simplex {in_simplex:.0} (budget {budget:.1}), box {in_box:.0} (budget {k_box:.1})"
                    );
                }
                if in_box < in_simplex {
                    shape = Shape::Box(rates);
                    budget = k_box;
                    last = None;
                }
            }
        }
    };
    let mut best: Option<ChainResult> = None;
    // The pair's budgets are cut again at most MAX_FITS times: when the comparison's
    // states, at the solved truncation's states per vector scaled by `scale`, pass the
    // limit, or its exploration met it (the states per vector grow with the budget: the
    // first cut may rest on the pilot's, or on a smaller chain's).
    let (mut refits, mut scale, mut missed) = (0usize, 1.0f64, false);
    loop {
        let next = budget + COMPARE_NATS;
        if limited.is_some() {
            let per_vector = per_vector_of(&warm, nc, sym);
            let by_vectors = |b: f64| scale * per_vector * shape.vectors(b);
            if missed || by_vectors(next) > max_states as f64 {
                let lo = match shape {
                    Shape::Simplex(_) => r_tot * k1 as f64,
                    Shape::Box(_) => 0.0,
                };
                let fitted = fit_pair(&shape, scale * per_vector, lo, budget, max_states);
                if refits >= MAX_FITS || fitted < lo + MIN_FIT_NATS || fitted >= budget {
                    if missed {
                        let why = limited.take().unwrap_or_default();
                        return Err(fail(format!(
                            "{why}; the comparison truncation of the largest pair cut to fit (budgets {budget:.1} and {next:.1} nats) met the limit"
                        )));
                    }
                } else {
                    refits += 1;
                    missed = false;
                    budget = fitted;
                    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                        eprintln!(
                            "redundancy chain: pair cut again to budget {budget:.2} ({per_vector:.2} states per vector, scale {scale:.2})"
                        );
                    }
                    let (v, f, pi) = steps.solve(
                        &shape,
                        budget,
                        &warm,
                        &format!("budget {budget:.1} nats, cut to fit the limit"),
                        by_vectors(budget),
                    )?;
                    band = f.iter().copied().fold(0.0, f64::max);
                    coarse = v;
                    warm = pi;
                    continue;
                }
            }
        }
        let est = shape.estimate(coarse.states, budget, next);
        if est > max_states as f64 && limited.is_none() {
            if let Some(b) = best.take() {
                if b.digits >= 1 {
                    return Ok(b);
                }
            }
            // The truncation the digits need fit, its comparison does not: the pair is cut
            // to the largest that fits, as where the first estimate passed the limit (the
            // W-model's nested-3 relative at half load under LRF-ROS exited 3 here at 6
            // digits asked and printed 6 estimated digits at 10, 2026-12-07).
            limited = Some(format!(
                "the comparison truncation (budget {next:.1} nats) would hold about {est:.1e} states, more than the limit {max_states} (budget {budget:.1} nats, {} states, mass on its boundary {band:.1e})",
                coarse.states
            ));
            if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                eprintln!(
                    "redundancy chain: comparison budget {next:.2} estimated at {est:.0} states: cutting the pair"
                );
            }
            continue;
        }
        hit.set(false);
        let (fine, f, pi) = match steps.solve(
            &shape,
            next,
            &warm,
            &format!("comparing budgets {budget:.1} and {next:.1} nats"),
            est,
        ) {
            Ok(x) => x,
            Err(e) if hit.get() => {
                // The comparison's exploration met the limit its estimate let past:
                // the last pair that agreed on a digit stands; otherwise the pair is cut
                // (again) with the states per vector scaled by what it must at least have
                // missed. No FIT_SCALE_MARGIN on top, as the certified path has: the pair
                // aims at PAIR_FIT_SHARE of the limit, and its smaller budgets hold fewer
                // states per vector than the comparison that missed (2026-12-07: with the
                // margin, {1+2} 0.267, {1} 0.2, {2} 0.537 under ROS at 20 000 states cut
                // to a pair of 12 772 states, without it 15 818; 4 digits either way).
                if limited.is_none() {
                    if let Some(b) = best.take() {
                        if b.digits >= 1 {
                            return Ok(b);
                        }
                        best = Some(b);
                    }
                }
                let per_vector = per_vector_of(&warm, nc, sym);
                let guess = scale * per_vector * shape.vectors(next);
                scale *= (max_states as f64 / guess).max(1.0);
                missed = true;
                if limited.is_none() {
                    limited = Some(format!(
                        "the comparison truncation (budget {next:.1} nats) needs more than {max_states} states"
                    ));
                }
                if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                    eprintln!("redundancy chain: comparison budget {next:.2} failed ({e}): cutting the pair");
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        let result = pair(
            coarse,
            fine.clone(),
            shape.limits(next),
            shape.limits(budget),
            match &shape {
                Shape::Simplex(w) => Some(SimplexTruncation {
                    weights: w.clone(),
                    budget: next,
                    compared_budget: budget,
                }),
                Shape::Box(_) => None,
            },
        );
        if result.digits >= want {
            return Ok(result);
        }
        if let Some(why) = limited {
            let why = format!(
                "{why}; the largest pair that fits (budgets {budget:.1} and {next:.1} nats) was solved"
            );
            if result.digits >= 1 {
                return Ok(ChainResult {
                    stopped: Some(format!("{why}: {STATE_LIMIT_HINT}")),
                    ..result
                });
            }
            return Err(fail(format!(
                "{why}, and its truncations agree on no digit"
            )));
        }
        best = Some(result);
        budget = next;
        coarse = fine;
        band = f.iter().copied().fold(0.0, f64::max);
        warm = pi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(k: usize, classes: &[(&str, &str)]) -> ClassSystem {
        ClassSystem::unit_for_tests(k, classes)
    }

    #[test]
    fn the_pace_scales_the_last_truncations_time_by_the_root_of_the_size_ratio() {
        // Source: the rule of Pace::note, by hand. 100 states in 1 s: 10 ms a state; 400
        // states: 4 s at that pace, times √4 = 8 s; a smaller truncation is not made
        // cheaper per state than the last (100 states at 10 ms: 1 s; 25 states: 0.25 s,
        // printed "0"); nothing before the first truncation is solved.
        assert_eq!(Pace::default().note(400.0), "");
        let p = Pace {
            last: Some((100.0, 1.0)),
        };
        assert_eq!(p.note(400.0), ", about 8 s");
        assert_eq!(p.note(100.0), ", about 1 s");
        assert_eq!(p.note(25.0), ", about 0 s");
        assert_eq!(p.note(f64::INFINITY), "");
    }

    #[test]
    fn the_fitted_budget_is_the_largest_whose_estimate_fits() {
        // Source: the arithmetic of b³, increasing: b³ ≤ 1000 up to b = 10, so the fit
        // lies within the bisection's 0.01 nats below 10; a cap the whole range meets
        // gives its top, one that even the bottom exceeds gives the bottom.
        let cube = |b: f64| b * b * b;
        let b = fit_budget(cube, 2.0, 30.0, 1000.0);
        assert!(cube(b) <= 1000.0 && b > 10.0 - 0.01, "{b}");
        assert_eq!(fit_budget(cube, 2.0, 5.0, 1000.0), 5.0);
        assert_eq!(fit_budget(cube, 11.0, 30.0, 1000.0), 11.0);
    }

    #[test]
    fn a_measured_decay_aims_the_budget_the_target_needs() {
        // Source: the arithmetic of an exact exponential. A boundary mass m(b) =
        // 7.54e-6·e^(−0.15·(b − 69.3)), measured at 53.3 and 69.3 nats, must reach the
        // target 1e-6 at the budget aimed from 69.3 in one step (m(aim) ≤ 1e-6, the
        // decay measured exactly: relative rounding 1e-12 on the log), and the aim must be
        // within the 0.5-nat margin of the exact budget ln(7.54)/0.15 ≈ 13.47 nats on.
        // Held to 0.2 per nat (the fitted decay's floor) it would fall short: that aim's
        // mass is above the target.
        let m = |b: f64| 7.54e-6 * (-0.15 * (b - 69.3)).exp();
        let measured = (m(53.3) / m(69.3)).ln() / (69.3 - 53.3);
        assert!((measured - 0.15).abs() < 1e-12);
        let aim = aim_budget(69.3, m(69.3), 1e-6, Decay::Measured(measured));
        let exact = 69.3 + (7.54f64).ln() / 0.15;
        assert!(m(aim) <= 1e-6, "aim {aim}: mass {:e}", m(aim));
        assert!((aim - exact - 0.5).abs() < 1e-9, "aim {aim}, exact {exact}");
        let short = aim_budget(69.3, m(69.3), 1e-6, Decay::Fitted(measured));
        assert!(m(short) > 1e-6, "a fitted 0.15 is held to 0.2: aim {short}");
        // A decay measured faster than the weights allow is held to 1 per nat, and with
        // nothing measured the weights' 1 per nat aims: ln(100) + 0.5 nats on.
        let one = 10.0 + (100.0f64).ln() + 0.5;
        assert!((aim_budget(10.0, 1e-4, 1e-6, Decay::Measured(3.0)) - one).abs() < 1e-12);
        assert!((aim_budget(10.0, 1e-4, 1e-6, Decay::None) - one).abs() < 1e-12);
    }

    #[test]
    fn lumped_vectors_count_as_the_full_chains() {
        // Source: counting by hand. The W-model's singleton classes 1 and 2 are exchanged
        // under ROS: a representative with counts (2, 1, 0) stands for (2, 1, 0) and
        // (1, 2, 0), one with (1, 1, 3) for itself only; unlumped, each is one vector.
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let g = Symmetry::of(&w, Policy::parse("ros", false).unwrap()).unwrap();
        let mut pi = StationaryMap::default();
        for (i, counts) in [[2u16, 1, 0], [1, 1, 3]].iter().enumerate() {
            let mut a = Work::empty();
            a.counts[..3].copy_from_slice(counts);
            pi.insert(a.pack(), i as f64);
        }
        assert_eq!(count_vectors(&pi, 3, Some(&g)), 3);
        assert_eq!(count_vectors(&pi, 3, None), 2);
    }

    #[test]
    fn packing_is_canonical() {
        let mut a = Work::empty();
        a.counts[0] = 2;
        a.server[0] = 3;
        a.server[1] = 3;
        a.gclass[2] = 0;
        let mut b = Work::empty();
        b.counts[0] = 2;
        b.server[0] = 1;
        b.server[1] = 1;
        b.gclass[0] = 0;
        assert_eq!(a.pack(), b.pack());
        assert_eq!(Work::unpack(&b.pack()), b);
    }

    #[test]
    fn lumped_chain_has_the_full_chains_means_at_one_truncation() {
        // Lumpability (Kemeny & Snell, Thm 6.3.2): on one invariant truncation the chain
        // reduced to orbits and the full chain have the same class means; both solved to a
        // relative residual far below 1e-12, so they agree to 1e-11 (relative; the masses
        // on the faces to 1e-11 relative plus 1e-15). The reduced chain has about half the
        // states (fewer than 70% of them: the swap's fixed states are a minority).
        let w = sys(2, &[("1", "0.45"), ("2", "0.45"), ("1+2", "0.7")]);
        let nested = sys(
            3,
            &[
                ("1", "0.4"),
                ("2", "0.4"),
                ("1+2", "0.6"),
                ("3", "0.5"),
                ("1+2+3", "0.8"),
            ],
        );
        for (s, cap, simplex) in [
            (&w, 14usize, None),
            (&w, 40, Some((vec![0.7, 0.7, 0.3], 14.0))),
            (&nested, 6, None),
        ] {
            let g = Symmetry::of(s, Policy::parse("ros", false).unwrap()).unwrap();
            let nc = s.classes().len();
            for name in ["ros", "lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"] {
                for pre in [false, true] {
                    if pre && name == "ros" {
                        continue;
                    }
                    let p = Policy::parse(name, pre).unwrap();
                    let limits = vec![cap; nc + 1];
                    let (full, ff, _) = truncated_values(
                        s,
                        p,
                        &limits,
                        simplex.clone(),
                        12,
                        None,
                        Reduction::default(),
                    )
                    .unwrap();
                    let (red, fr, _) = truncated_values(
                        s,
                        p,
                        &limits,
                        simplex.clone(),
                        12,
                        None,
                        Reduction {
                            symmetry: Some(&g),
                            groups: true,
                            ..Reduction::default()
                        },
                    )
                    .unwrap();
                    assert!(
                        10 * red.states < 7 * full.states,
                        "{name}: {} vs {} states",
                        red.states,
                        full.states
                    );
                    for c in 0..nc {
                        let (a, b) = (red.number[c], full.number[c]);
                        assert!(
                            (a - b).abs() <= 1e-11 * b,
                            "{name} {pre} class {c}: {a} {b}"
                        );
                        let (a, b) = (red.response[c], full.response[c]);
                        assert!(
                            (a - b).abs() <= 1e-11 * b,
                            "{name} {pre} class {c}: {a} {b}"
                        );
                    }
                    for (a, b) in fr.iter().zip(&ff) {
                        assert!((a - b).abs() <= 1e-11 * b + 1e-15, "faces {fr:?} {ff:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_warm_solve_to_the_digits_target_has_the_fully_refined_solves_means() {
        // The stationary solve aims each GMRES cycle only at the reduction it needs
        // (num::levels, stationary_from); the stop is judged by the double-double residual.
        // Independent reference: the same truncation refined to levels::TARGET_RESIDUAL
        // (1e-22) from a cold start. A warm start from a smaller truncation (zero on the new
        // states), solved to the 12-digit target 1e-18, must reach that residual and give
        // the class means to 1e-11 relative (a relative residual ρ moves a mean by about
        // ρ times the chain's condition, far below that at these sizes).
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        for name in ["mrf-fcfs", "ros"] {
            let p = Policy::parse(name, false).unwrap();
            let level = |budget: f64| {
                let wts = vec![0.6, 0.6, 0.6];
                let inner = ClassChain::new(&w, p, 200).unwrap();
                LevelClassChain {
                    inner,
                    caps: simplex_limits(&wts, budget)[..3].to_vec(),
                    total: 199,
                    simplex: Some((wts, budget)),
                    floor: 0,
                    symmetry: None,
                    certificate: None,
                }
            };
            let solve = |budget: f64, guess: Option<&StationaryMap>, target: f64| {
                let chain = level(budget);
                let mut c =
                    levels::explore_with(&chain, MAX_CHAIN_STATES, ExitRule::Block).unwrap();
                c.smoother = levels::Smoother::Ilu;
                let g: Option<Vec<f64>> = guess.map(|m| {
                    c.states
                        .iter()
                        .map(|s| m.get(s).copied().unwrap_or(0.0))
                        .collect()
                });
                let st = levels::stationary_from(&c, g.as_deref(), target).unwrap();
                let mut means = vec![0.0; 3];
                for (s, &q) in c.states.iter().zip(&st.pi) {
                    for (m, &x) in means.iter_mut().zip(&s.counts[..3]) {
                        *m += q * f64::from(x);
                    }
                }
                let map: StationaryMap = c.states.iter().copied().zip(st.pi).collect();
                (means, st.residual, map)
            };
            let (_, _, small) = solve(10.0, None, 1e-18);
            let (warm, res, _) = solve(16.0, Some(&small), 1e-18);
            let (cold, res_cold, _) = solve(16.0, None, levels::TARGET_RESIDUAL);
            assert!(res <= 1e-18, "{name}: residual {res:e}");
            assert!(res_cold <= 1e-20, "{name}: reference residual {res_cold:e}");
            for (a, b) in warm.iter().zip(&cold) {
                assert!((a - b).abs() <= 1e-11 * b, "{name}: {warm:?} {cold:?}");
            }
        }
    }

    #[test]
    fn the_share_groups_give_the_level_corrections_means() {
        // The groups of the coarse correction only precondition: the same truncated chain
        // solved with one aggregate per level (the reference: a different preconditioner
        // of the same linear system) and with the share groups (25 per level for three
        // classes, 32 for two, the rule's closed form), each from a cold start to
        // levels::TARGET_RESIDUAL, must give the class means to 1e-11 relative. The chains
        // are those MRF starves two classes of: the W-model at (0.5, 0.5, 0.6) and the
        // N-model at (0.1, 1.7) under MRF-FCFS, and the W-model under MRF-ROS.
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        for (s, name, wts, budget, groups) in [
            (&w, "mrf-fcfs", vec![0.4, 0.4, 1.6], 14.0, 25usize),
            (&w, "mrf-ros", vec![0.4, 0.4, 1.6], 14.0, 25),
            (&n, "mrf-fcfs", vec![0.35, 0.35], 18.0, 32),
        ] {
            let p = Policy::parse(name, false).unwrap();
            let nc = s.classes().len();
            let inner = ClassChain::new(s, p, 400).unwrap();
            let chain = LevelClassChain {
                inner,
                caps: simplex_limits(&wts, budget)[..nc].to_vec(),
                total: 399,
                simplex: Some((wts, budget)),
                floor: 0,
                symmetry: None,
                certificate: None,
            };
            let mut c = levels::explore_with(&chain, MAX_CHAIN_STATES, ExitRule::Block).unwrap();
            c.smoother = levels::Smoother::Ilu;
            let mut means = Vec::new();
            for grouped in [false, true] {
                if grouped {
                    let (k, g) = coarse_groups(&c.states, nc);
                    assert_eq!(k, groups);
                    c.set_groups(k, g).unwrap();
                }
                let st = levels::stationary_from(&c, None, levels::TARGET_RESIDUAL).unwrap();
                assert!(st.residual <= 1e-20, "{name} {grouped}: {:e}", st.residual);
                let mut m = vec![0.0; nc];
                for (x, &q) in c.states.iter().zip(&st.pi) {
                    for (mc, &v) in m.iter_mut().zip(&x.counts[..nc]) {
                        *mc += q * f64::from(v);
                    }
                }
                means.push(m);
            }
            assert!(c.len() > 2000, "{name}: {} states", c.len());
            for (a, b) in means[1].iter().zip(&means[0]) {
                assert!((a - b).abs() <= 1e-11 * b, "{name}: {means:?}");
            }
        }
        assert_eq!(coarse_groups(&[], 1).0, 1);
        assert_eq!(coarse_groups(&[], 4).0, 27);
        // The rule that turns them on, on the pilot weights measured on the W-model at
        // (0.5, 0.5, 0.6) (benches/peer/exact_cases_after.md, "Why MRF and ROS cost more"):
        // LRF-FCFS one slow class, MRF-FCFS and ROS two; one class never.
        assert!(!split_by_shares(&[0.754, 0.754, 0.289]));
        assert!(split_by_shares(&[0.381, 0.381, 1.642]));
        assert!(split_by_shares(&[0.606, 0.606, 1.460]));
        assert!(!split_by_shares(&[0.5]));
    }

    #[test]
    fn the_chosen_shape_gives_the_simplex_means() {
        // Independent reference: the same chain truncated by the weighted simplex of the
        // pilot's rates throughout (the shape every policy used before the box); both are
        // compared truncations certified to 12 digits, so the class means must agree to
        // 1e-11 relative wherever the rule chose the box. Under ROS the rule must choose
        // the box (no simplex, its total cap beyond the pilot's 18 jobs: the marginals decay
        // slower than the axes), with the W-model's symmetry on and off. Where the rule
        // keeps the simplex, the chosen solve is the simplex solve itself and is not solved
        // twice.
        let w = sys(2, &[("1", "0.4"), ("2", "0.4"), ("1+2", "0.5")]);
        let mut boxes = 0;
        for (name, symmetric) in [
            ("ros", true),
            ("ros", false),
            ("lrf-fcfs", true),
            ("mrf-fcfs", true),
            ("mrf-ros", true),
        ] {
            let p = Policy::parse(name, false).unwrap();
            let chosen = solve_shaped(&w, p, 12, None, symmetric, true, MAX_CHAIN_STATES).unwrap();
            assert!(chosen.digits >= 12, "{name}: {} digits", chosen.digits);
            if name == "ros" {
                assert!(chosen.simplex.is_none(), "{:?}", chosen.simplex);
                assert!(chosen.caps[3] > 18, "{:?}", chosen.caps);
            }
            if chosen.simplex.is_some() {
                continue;
            }
            boxes += 1;
            let simplex =
                solve_shaped(&w, p, 12, None, symmetric, false, MAX_CHAIN_STATES).unwrap();
            assert!(simplex.simplex.is_some());
            assert!(simplex.digits >= 12);
            for (a, b) in chosen.number.iter().zip(&simplex.number) {
                assert!(
                    (a.value - b.value).abs() <= 1e-11 * b.value,
                    "{name} {symmetric}: {} {}",
                    a.value,
                    b.value
                );
            }
        }
        assert!(boxes >= 2);
    }

    #[test]
    fn the_shape_counts_are_exact_on_small_cases() {
        // Closed forms: the box {n_c ≤ 2 for 3 classes} with the total at most 3 holds the
        // vectors of 3 classes with at most 3 jobs in all (C(6, 3) = 20) less the 3 with a
        // class at 3: 17; without the total cap (total 6) 27 = 3^3. The simplex
        // {n_1 + 2 n_2 ≤ 4}: n_2 = 0, 1, 2 leave 5, 3, 1 choices of n_1: 9.
        assert_eq!(
            box_vectors(&[1.0 / 2.5, 1.0 / 2.5, 1.0 / 2.5, 1.0 / 3.5], 1.0),
            17.0
        );
        assert_eq!(box_vectors(&[0.5, 0.5, 0.5, 1.0 / 6.5], 1.0), 27.0);
        assert_eq!(simplex_vectors(&[1.0, 2.0], 4.0), 9.0);
    }

    #[test]
    fn one_class_on_one_server_is_mm1_under_every_chain_policy() {
        // M/M/1/N at ρ = 0.5: E[N] = ρ/(1−ρ) − (N+1)ρ^{N+1}/(1−ρ^{N+1}).
        let s = sys(1, &[("1", "0.5")]);
        let n = 20usize;
        let rho: f64 = 0.5;
        let exact = rho / (1.0 - rho)
            - (n as f64 + 1.0) * rho.powi(n as i32 + 1) / (1.0 - rho.powi(n as i32 + 1));
        for p in ["ros", "lrf-fcfs", "mrf-ros"] {
            let v = class_chain_values(&s, Policy::parse(p, false).unwrap(), n, &solve_options())
                .unwrap();
            assert!(
                (v.total_number - exact).abs() < 1e-13,
                "{p}: {}",
                v.total_number
            );
        }
    }
    #[test]
    fn the_certified_bound_holds_against_a_much_larger_truncation() {
        // A test of the truncation bound itself: the infinite chain's class mean lies within
        // the small truncation's enclosure, so a much larger truncation's value (itself
        // within its own, far smaller, bound of the infinite chain's) must lie within the
        // small one's bound plus the large one's, plus the solves' relative 1e-12 (both
        // refined to levels::TARGET_RESIDUAL). Cases of the brief: the W-model at
        // (0.5, 0.5, 0.6) under LRF-FCFS and the N-model at (0.1, 1.7) under MRF-FCFS and
        // MRF-ROS (ROS within a rank: a certificate at T = 16, N₁ = 176), uniform weights,
        // the small truncation the least the certificate allows (the states with at most
        // N₁ − 1 jobs) and the large one a simplex of budget 2.2 (N₁ − 1). Then the union
        // of a small simplex and that level set, with the N-model's very unequal weights
        // under LRF-ROS ([2.479, 0.132], those of its pilot): against a simplex of the same
        // weights and budget 2.2 (N₁ − 1), or twice the small budget plus 40 where that is
        // more (the summed check's certificates of 2026-12-05 have N₁ = 26 and 28 under
        // LRF-ROS and MRF-ROS, where the per-term ones had 176; a uniform simplex of 100
        // then had a bound of 2.5e-2, a thousand times the small one's, no test of it). The small bound must be nonzero and finite (a bound that is always
        // 0 or infinite would pass vacuously).
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        for (s, name, wts, budget) in [
            (&w, "lrf-fcfs", vec![1.0; 3], 0.0),
            (&n, "mrf-fcfs", vec![1.0; 2], 0.0),
            (&n, "mrf-ros", vec![1.0; 2], 0.0),
            (&n, "lrf-ros", vec![2.479, 0.132], 30.0),
        ] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(s, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            let nc = s.classes().len();
            let small = certified_chain_means(s, p, &cert, &wts, budget, MAX_CHAIN_STATES).unwrap();
            let big = certified_chain_means(
                s,
                p,
                &cert,
                &wts,
                (2.2 * (small.n1 - 1.0)).max(2.0 * budget + 40.0),
                MAX_CHAIN_STATES,
            )
            .unwrap();
            assert!(
                big.states > 2 * small.states,
                "{name}: {} {}",
                big.states,
                small.states
            );
            for k in 0..nc {
                let (a, b) = (small.number[k], big.number[k]);
                eprintln!(
                    "{name} class {k}: N1 {} K {} states {} value {} bound {:e}; K {} states {} value {} bound {:e}",
                    small.n1, small.budget, small.states, a.value, a.truncation, big.budget,
                    big.states, b.value, b.truncation
                );
                assert!(a.truncation > 0.0 && a.truncation.is_finite(), "{name} {k}");
                let diff = (a.value - b.value).abs();
                assert!(
                    diff <= a.truncation + b.truncation + 1e-12 * b.value,
                    "{name} class {k}: |{} - {}| > {:e}",
                    a.value,
                    b.value,
                    a.truncation
                );
                assert!(a.lo <= b.value + 1e-12 * b.value && b.value <= a.hi + 1e-12 * b.value);
            }
        }
    }
    #[test]
    fn the_certified_solve_prints_only_proven_digits_within_a_much_larger_truncation() {
        // The truncation bound through `redundancy exact`'s certified path
        // (solve_certified), 6 digits: (1) every printed decimal is what both ends of its enclosure round to (to_sci at
        // its digits), so every point between them does; (2) a much larger certified
        // truncation (the small budget plus 20 nats: its bound some e^-5 or more times
        // smaller) has class means, total and responses (E[N_c]/λ_c) within the small
        // enclosures widened by the large one's own bound and 1e-12 relative (the
        // solves' accuracy, both refined to levels::TARGET_RESIDUAL). Cases: the N-model
        // at (0.1, 1.7) under MRF-FCFS (the brief's case whose estimate overstated its
        // digits), the W-model at (0.5, 0.5, 0.6) under LRF-FCFS (lumped) and the N-model
        // under plain ROS (a certificate of the summed check, lyapunov.rs). The
        // enclosures must be tight enough to be worth a test: the small truncation's
        // error (against the large one) is at least a tenth of its bound on some class
        // (so dividing the bound by 10 is caught by (2); measured ratios are printed).
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        for (s, name) in [(&n, "mrf-fcfs"), (&w, "lrf-fcfs"), (&n, "ros")] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(s, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            assert_eq!(cert.summed(), name == "ros", "{name}");
            let r = solve_certified(s, p, 6, &cert).unwrap();
            assert!(r.digits >= 6, "{name}: {} digits", r.digits);
            let all: Vec<&ProvenValue> = r
                .number
                .iter()
                .chain(&r.response)
                .chain([&r.total_number, &r.total_response])
                .collect();
            for v in &all {
                let lo = crate::num::to_sci(v.enclosure.lo(), v.digits);
                let hi = crate::num::to_sci(v.enclosure.hi(), v.digits);
                assert!(
                    lo == v.text && hi == v.text,
                    "{name}: {} [{lo}, {hi}]",
                    v.text
                );
                assert!(v.half_width() <= r.truncation_bound, "{name}");
            }
            let big =
                certified_chain_means(s, p, &cert, &r.weights, r.budget + 20.0, MAX_CHAIN_STATES)
                    .unwrap();
            let lambda = s.lambda_f64();
            let inside = |v: &ProvenValue, x: f64, slack: f64| {
                let (lo, hi) = (v.enclosure.lo().to_f64(), v.enclosure.hi().to_f64());
                let slack = slack + 1e-12 * x.abs();
                lo - slack <= x && x <= hi + slack
            };
            let mut worst = 0.0f64;
            for (k, &lam) in lambda.iter().enumerate() {
                let b = big.number[k];
                assert!(b.truncation < 0.1 * r.truncation_bound, "{name} {k}");
                assert!(
                    inside(&r.number[k], b.value, b.truncation),
                    "{name} class {k}: {} not in {:?}",
                    b.value,
                    r.number[k].enclosure
                );
                assert!(
                    inside(&r.response[k], b.value / lam, b.truncation / lam),
                    "{name} class {k} response"
                );
                let err = (r.number[k].mid() - b.value).abs();
                eprintln!(
                    "{name} class {k}: K {:.1} states {} half-width {:e}; K {:.1} states {} value {} error of the small one {:e} ({:.2} of its half-width)",
                    r.budget, r.states, r.number[k].half_width(), big.budget, big.states,
                    b.value, err, err / r.number[k].half_width()
                );
                worst = worst.max(err / r.number[k].half_width());
            }
            assert!(inside(
                &r.total_number,
                big.total.value,
                big.total.truncation
            ));
            assert!(
                worst >= 0.1,
                "{name}: the bound is {worst:e} of the error only"
            );
        }
    }

    #[test]
    fn six_and_twelve_digit_certified_runs_agree_on_their_shared_digits() {
        // Runs at different digits (different truncations, each with its own
        // proven enclosure) must be consistent: every 6-digit enclosure meets the 12-digit
        // one (both contain the infinite chain's value), and the 12-digit decimal rounded
        // to 6 digits is the 6-digit decimal unless a 6-digit rounding boundary lies
        // within the 12-digit enclosure (it does not here: checked by rounding both of its
        // ends). The N-model at (0.1, 1.7) under LRF-FCFS and the one at (0.4, 0.9) under
        // MRF-FCFS (tests/redundancy_exact.rs's N-model).
        let a = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        let b = sys(2, &[("1", "0.4"), ("1+2", "0.9")]);
        for (s, name) in [(&a, "lrf-fcfs"), (&b, "mrf-fcfs")] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(s, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            let six = solve_certified(s, p, 6, &cert).unwrap();
            let twelve = solve_certified(s, p, 12, &cert).unwrap();
            assert!(six.digits >= 6 && twelve.digits >= 12, "{name}");
            let pairs = six
                .number
                .iter()
                .zip(&twelve.number)
                .chain(six.response.iter().zip(&twelve.response))
                .chain([
                    (&six.total_number, &twelve.total_number),
                    (&six.total_response, &twelve.total_response),
                ]);
            for (x, y) in pairs {
                let (e6, e12) = (&x.enclosure, &y.enclosure);
                assert!(
                    e6.lo() <= e12.hi() && e12.lo() <= e6.hi(),
                    "{name}: {e6:?} {e12:?}"
                );
                let (lo, hi) = (
                    crate::num::to_sci(e12.lo(), 6),
                    crate::num::to_sci(e12.hi(), 6),
                );
                if lo == hi {
                    assert_eq!(lo, x.text, "{name}: {} vs {}", y.text, x.text);
                }
            }
        }
    }

    #[test]
    fn one_class_on_one_server_is_mm1_through_the_certified_solve() {
        // Closed form (M/M/1, λ = 0.5, μ = 1, exact in binary): E[N] = ρ/(1 − ρ) = 1 and
        // E[T] = 1/(μ − λ) = 2 under every policy. The certified solve at 12 digits must
        // print "1.00000000000e0" and "2.00000000000e0" and its enclosures contain 1 and 2
        // themselves (the enclosure is the tolerance).
        let s = sys(1, &[("1", "0.5")]);
        for name in ["lrf-fcfs", "mrf-fcfs"] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(&s, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            let r = solve_certified(&s, p, 12, &cert).unwrap();
            assert!(r.digits >= 12, "{name}: {}", r.digits);
            for (v, exact) in [(&r.number[0], 1.0), (&r.response[0], 2.0)] {
                assert_eq!(v.text, crate::num::to_sci(&Float::with_val(64, exact), 12));
                assert!(
                    v.enclosure.contains(&Float::with_val(64, exact)),
                    "{name}: {:?}",
                    v.enclosure
                );
            }
            assert_eq!(r.total_number.text, "1.00000000000e0");
        }
    }

    #[test]
    fn an_invariant_certificate_lumps_the_certified_chain() {
        // The W-model at (0.5, 0.5, 0.6) (classes {1}, {2} exchanged with the servers) under
        // LRF-FCFS and MRF-FCFS: the averaged certificate is invariant, V(T s) = V(s)
        // exactly for every element T and every state with counts ≤ 5 (mutants caught: g
        // averaged without moving the configuration, which the exact check then rejects;
        // the unaveraged certificate called invariant, which V(T s) = V(s) rejects), and
        // the chain lumped onto
        // orbits (equal weights) gives enclosures that overlap those of the full chain on
        // a simplex whose weights differ by 1e-9 relative (the same states inside up to the
        // boundary: no count vector within the budget changes side at this slack), with
        // fewer states and equal means for the exchanged classes.
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let g = Symmetry::of(&w, Policy::parse("lrf-fcfs", false).unwrap()).unwrap();
        for name in ["lrf-fcfs", "mrf-fcfs"] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(&w, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            assert!(cert.invariant(), "{name}");
            let chain = ClassChain::new(&w, p, 6).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut todo = vec![chain.start()];
            let mut out = Vec::new();
            let mut checked = 0;
            while let Some(s) = todo.pop() {
                if !seen.insert(s) {
                    continue;
                }
                if let Some(v) = cert.value(&s) {
                    for (sigma, pi) in g.elements() {
                        let t = g.image(&s, sigma, pi);
                        assert_eq!(cert.value(&t), Some(v.clone()), "{name} {s:?}");
                        checked += 1;
                    }
                }
                out.clear();
                chain.transitions(&s, &mut out);
                for (t, _) in &out {
                    if t.counts[..3].iter().all(|&x| x <= 5) {
                        todo.push(*t);
                    }
                }
            }
            assert!(checked > 100, "{name}: {checked}");
            let lumped =
                certified_chain_means(&w, p, &cert, &[1.0, 1.0, 1.0], 30.0, MAX_CHAIN_STATES)
                    .unwrap();
            let full = certified_chain_means(
                &w,
                p,
                &cert,
                &[1.0, 1.0 + 1e-9, 1.0],
                30.0,
                MAX_CHAIN_STATES,
            )
            .unwrap();
            assert!(lumped.lumped && !full.lumped, "{name}");
            assert!(
                lumped.states < full.states,
                "{name}: {} {}",
                lumped.states,
                full.states
            );
            assert_eq!(lumped.number[0].value, lumped.number[1].value, "{name}");
            for k in 0..3 {
                let (a, b) = (lumped.number[k], full.number[k]);
                eprintln!(
                    "{name} class {k}: lumped {} states {} ± {:e}; full {} states {} ± {:e}",
                    lumped.states, a.value, a.truncation, full.states, b.value, b.truncation
                );
                assert!(a.truncation > 0.0 && a.truncation.is_finite(), "{name} {k}");
                assert!(
                    a.lo <= b.hi && b.lo <= a.hi,
                    "{name} class {k}: {a:?} {b:?}"
                );
            }
        }
    }
    #[test]
    fn the_level_solvers_drift_conditions_hold_by_the_transitions() {
        // num::levels needs QV_1 ≤ −1, QV_G ≤ −G and QW ≤ 0 at every state outside A (its
        // module docs); certified_chain_means makes A hold every state with fewer than N₁
        // jobs, so they must hold at every state with N₁ ≤ |n| ≤ N₁ + 5, computed here from
        // ClassChain::transitions and LevelClassChain::lyapunov alone (f64; tolerance 1e-9
        // relative to the terms' size). Catches N₁ or the factor 2/m off by a factor 2.
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        for (s, name) in [(&w, "lrf-fcfs"), (&w, "mrf-fcfs"), (&n, "mrf-fcfs")] {
            let p = Policy::parse(name, false).unwrap();
            let cert = match lyapunov::lyapunov_search(s, p) {
                lyapunov::LyapunovVerdict::Found(c) => c,
                v => panic!("{name}: {v:?}"),
            };
            let n1 = certificate_level(&cert);
            let top = n1 as usize + 5;
            let nc = s.classes().len();
            let chain = LevelClassChain {
                inner: ClassChain::new(s, p, CHAIN_MAX_TRUNCATION).unwrap(),
                caps: vec![top; nc],
                total: top,
                simplex: None,
                floor: 0,
                symmetry: None,
                certificate: Some((&cert, 2.0 / cert.margin().to_f64(), n1 as f64)),
            };
            let boxed = ClassChain::new(s, p, top).unwrap();
            let z = boxed.start();
            let mut seen = rustc_hash::FxHashSet::default();
            seen.insert(z);
            let mut todo = vec![z];
            let (mut out, mut checked) = (Vec::new(), 0);
            while let Some(st) = todo.pop() {
                out.clear();
                boxed.transitions(&st, &mut out);
                for (t, _) in &out {
                    if seen.insert(*t) {
                        todo.push(*t);
                    }
                }
                let level = f64::from(chain.level(&st));
                if level < n1 as f64 {
                    continue;
                }
                out.clear();
                chain.transitions(&st, &mut out);
                let v0 = chain.lyapunov(&st).unwrap();
                let mut q = [0.0f64; 4];
                let mut size = [0.0f64; 4];
                for (t, r) in &out {
                    let v1 = chain.lyapunov(t).unwrap();
                    for i in 0..4 {
                        q[i] += r * (v1[i] - v0[i]);
                        size[i] += r * (v1[i].abs() + v0[i].abs());
                    }
                }
                let tol = |i: usize| 1e-9 * size[i];
                assert!(
                    q[0] <= -1.0 + tol(0),
                    "{name} QV_1 {} at level {level}",
                    q[0]
                );
                assert!(
                    q[1] <= -level + tol(1),
                    "{name} QV_G {} at level {level}",
                    q[1]
                );
                assert!(
                    q[2] <= tol(2) && q[3] <= tol(3),
                    "{name} QW {} at level {level}",
                    q[2]
                );
                checked += 1;
            }
            assert!(checked > 20, "{name}: {checked} states");
        }
    }
}
