//! Finite-N exact values: the stationary distribution of the N-server JSQ(d) chain, to the
//! digits asked, with a proven bound on what the truncation of an infinite buffer leaves
//! out.
//!
//! **State.** The sorted occupancy vector x_1 ≤ … ≤ x_N (servers are exchangeable, so
//! the sorted vector, equivalently the counts Q_i = #{j : x_j ≥ i}, is a Markov chain).
//!
//! **Transitions.** Arrivals at rate λN join a server whose length is the minimum over
//! the d sampled: with A_v = #{j : x_j ≥ v}, P(min ≥ v) = C(A_v, d)/C(N, d) without
//! replacement and (A_v/N)^d with ([`crate::lb::model::tail_probability`]), so the task
//! joins a server of length v with probability P(min ≥ v) − P(min ≥ v + 1) (a task that
//! finds the chosen server full, v = b, is discarded). Departures: each of the c_v
//! servers at length v ≥ 1 completes at rate μ_v (1 for queues, v for pools).
//!
//! **Closed forms.** With d = 1 (and so with N = 1) the routing splits the Poisson stream
//! evenly and independently of the state: the servers are N independent M/M/1/b queues
//! (π_k ∝ λ^k) or M/M/B/B pools (π_k ∝ λ^k/k!, Poisson without a capacity). These are
//! summed in MPFR at two precisions ([`closed_form`]), and the output names the method.
//!
//! **Truncation of an infinite buffer and its bound.** The chain is solved on a finite set
//! A by [`crate::num::levels`] (the level is the total number of tasks T, which a transition
//! moves by one): exits from A are redirected to the empty state, and the values are
//! enclosed with the regenerative bound of that module, which needs a Lyapunov function
//! with negative drift outside A:
//! * **queues**: A is a weighted simplex {Σ_j w_j t_j ≤ K} in the coordinates t_0 = x_1
//!   and t_j = x_{j+1} − x_j (the gaps), the weights the decay rates of the stationary
//!   mass along each coordinate ([`Simplex`]): λ^N per unit of x_1 (once all servers are
//!   busy the total is a birth–death chain of ratio λ), the gaps' measured on a pilot
//!   truncation. A is then close to a sublevel set of −log π, with far fewer states than
//!   the box {x_1 ≤ L, x_N − x_1 ≤ S} (still available, [`ExactOptions::truncation`]) at
//!   the same mass outside: at N = 5, d = 2, λ = 0.9 the lowest gap decays like 0.3 per
//!   unit and the highest like 0.08. The Lyapunov function is the
//!   quadratic V = Σ x_i² − β T² (0 ≤ β < 1/N, positive definite). Its drift is exact and
//!   piecewise linear: an arrival joins the shortest of d sampled servers, whose length has
//!   mean Σ_i w_i x_i over the sorted vector (w_i = P(the sample's shortest is the i-th
//!   smallest): C(N−i+1, d) − C(N−i, d) over C(N, d) without replacement, ((N−i+1)/N)^d −
//!   ((N−i)/N)^d with), so with B busy servers
//!   QV = Σ_i x_i (2λN w_i − 2 − 2β(λN − B)) + (λN + B)(1 − β).
//!   On the sorted cone with I idle servers this is linear along the generators
//!   (0, …, 0, 1, …, 1); [`queue_lyapunov`] checks, for each I, that every generator's
//!   coefficient is negative and that the drift is at most −1 (V_1 = κ_1 V) and at most −T
//!   (V_G = κ_G V) at the nearest points outside A, which proves the drift conditions
//!   everywhere outside A (for the simplex, at the vertices of {Σ w_j t_j ≥ K} on each
//!   cone: [`simplex_lyapunov`]). (Foster–Lyapunov with quadratic functions for join-the-shortest
//!   routing: e.g. Bramson, *Stability of queueing networks*, 2008, ch. 2.)
//!
//!   **How close the simplex is to the mass** (measured 2026-12-03 on a dump of the last
//!   truncation of N = 5, d = 2, λ = 0.9: 604 469 states, level 47.2 nats): the sublevel
//!   sets of −log π̂ itself, the fewest states that leave a given mass outside, hold
//!   219 419 states at 1e-12 outside and 376 761 at 1e-14; the simplex of the weights used
//!   holds 3–4 % more at the same mass (227 253 and 389 533), and no other simple shape
//!   tried does better than it by more than 1.3 % (least-squares linear or quadratic fits of
//!   −log π̂ in (x_1, gaps), a linear fit plus a quadratic in (x_1, spread), the simplex
//!   capped by the total or by x_N; caps per sorted coordinate plus a total hold 1.5–2.5
//!   times as many). So the simplex is kept. The level solved is 9 nats beyond the 38 nats
//!   where the mass outside meets the target, and that is not slack in the bound: the chain
//!   redirected to the empty state at exits is itself that far off, by ε̂ times the cost of
//!   returning from the face (re-entry costs 447 and 4 549 on that truncation). Solved on
//!   about the same weights (0.527, 1.19, 1.69, 2.1, 2.3 nats per unit) at 38.2, 42.7 and
//!   47.2 nats (222 993, 370 875 and 588 441 states), mean_tasks differs from the 47.2-nat
//!   value by 4.7e−9 and 8.6e−11 (the bounds 7.7e−9 and 1.3e−10), against a target of
//!   1.56e−12 at 12 digits: a valid bound of those π̂ cannot be below those differences
//!   less the last bound (2.2e−12). The bound is within 1.2–1.8 times the least valid one
//!   (the test `the_truncation_bound_is_within_twice_the_error_it_bounds` checks 2 on four
//!   cases), so a tighter re-entry term could save at most about 0.6 nats; see
//!   [`crate::num::levels`] for the argument.
//! * **pools**: each task leaves at rate 1 whatever the routing, so T is an M/M/∞ queue;
//!   A = {T ≤ K}, with V_1 = T/(K + 1 − λN) and V_G = aT² (a from the same drift).
//!
//! The truncation is grown until the bound on the truncation error and the solve's error
//! bound leave the digits asked certain: the simplex's level by the log of its own bound's
//! ratio to the target (the bound decays about e^{−1} per nat of level, times a power
//! K^p of the level; p is read from the first truncation's own tail until two levels are
//! solved ([`first_exponent`]), and fitted between them after), a pools' box from the stationary mass on its face. A finite
//! buffer needs no truncation (every state is kept; the bound is then only the solve's).
//! A truncation whose enclosure is, by its bound alone, a unit of the last digit asked wide
//! cannot print the digits asked ([`cannot_print`]), so its stationary solve is not refined
//! past the first residual even when the solve's error bound is above its share: the next
//! truncation starts from its π̂ either way (measured 2026-12-04 at N = 5, d = 5, λ = 0.95:
//! the 334 077-state truncation at 51 nats, bound 27 times its target, saves the 12 GMRES
//! iterations of that refinement, of the 128 its solves take; 2026-12-05, the same with
//! replacement: the 555 921-state truncation at 50.3 nats, bound 5.4 times its target,
//! which the earlier rule of 20 times refined).
//!
//! **A bound handed on.** A truncation of the growth (up to a quarter of the state limit)
//! hands its re-entry bound on to the next, larger one ([`levels::bounds_handed`]; the
//! module docs of `num::levels`, "A bound handed on"). The larger one is explored under the
//! smaller one's Lyapunov functions, which hold outside the smaller one; when the handed
//! bound ends the growth as its own would (its bound of mean_tasks within the target, or
//! mean_tasks and q_1 certified, and its solve error within its share) no bound solve is
//! made on the larger truncation, which is otherwise reweighed with its own functions and
//! solved as before. The handed bound is within 10 % of its own
//! (`a_bound_handed_on_from_a_smaller_truncation_holds_and_is_near_its_own`); its V_1 is
//! the smaller truncation's, whose κ_1 falls with the level, so q_2, q_3, … may print a
//! digit fewer (3 of 288 runs compared on 2026-12-07; mean_tasks and q_1 never). Measured
//! 2026-12-07 side by side (`benches/peer/exact_cases.sh`, wall s): N = 5, d = 2, λ = 0.95
//! 65.0 → 34.8 (the 4 bound solves on 2 591 657 states took 28 s), λ = 0.9 10.7 → 6.2, with
//! replacement 30.6 → 16.8; d = 5, λ = 0.95 10.2 → 6.6, with replacement 13.1 → 7.2.
//!
//! **Where the time goes** (2026-12-04, main at 4aea640, `TASKASSIGN_TRACE_EXACT=1`, user
//! seconds on 2 shared cores at load 2–8): N = 5, d = 2, λ = 0.9, 7.7 s: the pilot (10 556
//! states), level 29.9 nats (78 671 states, 0.7 s) and level 47.2 (604 469 states: explore
//! 0.5 s, stationary 3.2 s for 43 GMRES iterations, the bound's 4 solves 4.4 s for 64
//! iterations in 10 refinement cycles), 398 MB peak; N = 5, d = 5, λ = 0.95, 8.2 s: levels
//! 29.9, 51.1 (334 077 states) and 56.1 (563 480 states; 64 iterations, 52 of them the
//! bound's), 325 MB. About 0.07 s a GMRES iteration at 600 000 states, in the ILU(0)
//! triangular solves (28 % of the profile), the sparse products (21 %) and Gram–Schmidt
//! (13 %). The larger cases spend their time in whole extra truncations: N = 5, d = 2,
//! λ = 0.95 (81 s user, 1.72 GB) solved 2 359 266 states at 49.4 nats, whose bound met its
//! target but whose enclosure straddled a rounding boundary of the 12th digit, then
//! 2 634 259 states at 52.3; N = 4, d = 4, λ = 0.95 solved levels 48.8, 52.0 and 54.7
//! (the exponent p = 2 assumed then undershot twice, then a straddle). The exponents fitted
//! between the first two levels are 4.4 (N = 5, d = 2, λ = 0.9), 4.7 (the same with
//! replacement), 2.9 (λ = 0.95), 7.1–10 (N = 5, d = 5, λ = 0.95, with and without
//! replacement) and 7.7 (N = 4, d = 4, λ = 0.95); p = N + 1 assumed instead (tried
//! 2026-12-04) saved a truncation at N = 5, d = 5 with replacement (19.1 → 11.7 s user) and
//! N = 4, d = 4 (6.1 → 5.1 s) but overshot N = 5, d = 2, λ = 0.9 (732 653 states instead
//! of 604 469, 9.4 → 11.2 s, 398 → 479 MB) and moved N = 5, d = 5 without replacement's
//! intermediate level up without removing it (9.9 → 13.2 s): one exponent does not fit
//! the family, the polynomial factor depends on d and λ. What does follow it, case by case,
//! is the first truncation's own tail (2026-12-05, [`first_exponent`]): the exponent is now
//! read from there. The first step then meets its target in each of the cases above
//! (N = 4, d = 4, λ = 0.95 still solves a second level: its first enclosure straddles a
//! rounding boundary of the 12th digit).
//!
//! Three ways to cut the GMRES iterations were measured on 2026-12-05 (N = 5, d = 2,
//! λ = 0.9, 324 iterations and 6.9 s over its three truncations) and not kept:
//! * *Groups per level in the coarse correction* (as the redundancy chains have): by the
//!   shortest queue's share of the level (8 groups), by idle servers (6) or by the spread
//!   x_N − x_1 (8): 290, 321 and 284 iterations, 8.2–8.9 s (each block-tridiagonal
//!   correction costs more than the iterations it saves).
//! * *ILUT* (fill kept above τ times the row's norm, at most 20–30 per part): τ = 0.01,
//!   288 iterations and 7.7 s; τ = 0.003, 249 iterations and 8.7 s (11.9 million entries in
//!   the factors against 5.2: the fill of a level's rows by its neighbours below doubles the
//!   traffic of the triangular solves, which are bound by it).
//! * *Fewer cycles for the exit solves* (p̂ and the exits' W, 3 GMRES restarts to reach
//!   their slack): one cycle at tolerance 10^−2 or 10^−4 leaves the re-entry programme
//!   infeasible (an unbounded enclosure at every truncation); one cycle at 10^−6 or two at
//!   10^−3 give the same iterations within 3 % and the same time.
//!
//! Two ways to cheapen the bound's solves were measured on 2026-12-05 and not kept:
//! * *In lockstep*: the 3 solves that follow (−B)⁻¹1 run side by side, each pass over −B
//!   and the ILU(0) factors serving all of them (K values per state), each lane's arithmetic
//!   that of its own solve (results equal to the bit). The preconditioner cycle ran 1.2–1.4
//!   times faster for 2–4 lanes than lane by lane (606 651 states), the product 1.0–1.2
//!   times: the passes are bound by the latency of their gathers more than by the stream
//!   of the factors. At N = 5, d = 2, λ = 0.9 the bound's phase went from 3.45 to 3.23 s
//!   (7.07 → 6.58 s in all) for 97 MB more (the lanes' Krylov bases).
//! * *From the last truncation's solutions* (as the redundancy chains do where the last
//!   truncation holds 80 % of the states): N = 5, d = 2, λ = 0.95, whose second truncation
//!   holds the first's 2 359 266 states of 2 634 259, went from 76.6 to 73.0 s and from
//!   1.74 to 1.94 GB; the exit solves, whose right-hand sides sit on the new face, start at
//!   slack 1 from any guess, and the costs' solves gain a cycle at most.
//!
//! **Outputs.** Mean tasks per server, the occupancy q_i = E\[A_i\]/N, the blocking
//! probability E\[P(all d sampled full)\] (by PASTA the fraction of arrivals discarded),
//! each as an enclosure [lo, hi] printed with the digits on which its ends agree, the
//! number of states, the truncation and its bound.

use super::model::{tail_table, JsqSystem, LbError, ModelKind, Sampling};
use crate::num::certify::{certify_pair, last_digit_unit};
use crate::num::levels::{self, Bounded, Enclosed, LevelChain, LevelError};
use rug::Float;
use std::collections::HashMap;

/// Default limit on the number of states.
pub const DEFAULT_MAX_STATES: usize = 4_000_000;
/// Most servers of the exact chain (a state is a fixed array).
pub const MAX_EXACT_SERVERS: u64 = 16;
/// Largest level a state may hold (states are stored as `u16`).
pub const MAX_LEVEL: u32 = u16::MAX as u32 - 1;
/// Most digits a chain value is certified to: the values are f64 (a double-double
/// stationary vector summed into f64 means), so 15 is the most their rounding allows; the
/// solve's error bound decides how many of those are certain.
pub const CHAIN_MAX_DIGITS: u32 = 14;
/// Most truncations tried while growing A.
pub const MAX_GROWTHS: usize = 24;
/// The truncation bound is aimed at this fraction of the last digit's half-unit, leaving
/// the rest to the solve's error.
const TRUNCATION_SHARE: f64 = 0.1;

/// Factor on the truncation target for the one further truncation tried when the bound
/// met its target but the enclosure straddles a rounding boundary of the last digit.
const STRADDLE_TIGHTEN: f64 = 0.1;
/// The truncation bound wanted of a `mean_tasks` near `mean` at `want` digits: a share
/// ([`TRUNCATION_SHARE`]) of half a unit in its last digit, the unit scaled by `mean`
/// itself (so up to ten times the decimal unit at a leading 9). Both truncations (box and
/// simplex) aim at it. Aimed at the decimal unit of the leading digit instead
/// ([`last_digit_unit`]; tried 2026-12-05), N = 5, d = 2, λ = 0.95 (mean 5.37) solved one
/// truncation of 2 777 753 states instead of two (2 359 266 that straddled a rounding
/// boundary, then 2 634 259; 79 → 64 s), but every other JSQ reference case grew by 7–18 %
/// in states (N = 5, d = 2, λ = 0.9: 604 469 → 682 265, 6.9 → 9.2 s): over the family the
/// straddles it removes cost less than the margin.
fn truncation_target(mean: f64, want: u32) -> f64 {
    TRUNCATION_SHARE * (0.5 * mean.abs() * 10f64.powi(1 - want as i32))
}
/// The solve's error bound allowed, as a share of the truncation target, before the
/// stationary solve is refined to [`levels::TARGET_RESIDUAL`] ([`solve_chain`]).
const SOLVE_SHARE: f64 = 0.01;
/// Spread of the first truncation tried.
const START_SPREAD: u32 = 4;
/// Occupancy levels below this are not listed (below the f64 solve's resolution).
pub const OCCUPANCY_FLOOR: f64 = 1e-15;
/// Values of β·N tried for the quadratic Lyapunov function of queues (β = 0: V = Σx²
/// grows like the costs to return to the empty state, T²/N along the diagonal, which the
/// re-entry bound compares it with).
const BETA_TRIES: [f64; 1] = [0.0];

/// A truncation of an infinite buffer: shortest queue ≤ `min_level`, longest − shortest
/// ≤ `spread` (queues); total tasks ≤ `min_level` (pools, `spread` unused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// L: the largest shortest-queue length kept (queues); K, the largest total (pools).
    pub min_level: u32,
    /// S: the largest spread kept (queues).
    pub spread: u32,
}

/// The truncation of queues with an infinite buffer that `exact` grows: a weighted simplex
/// in the coordinates t_0 = x_1 (the shortest queue) and t_j = x_{j+1} − x_j (the gaps of
/// the sorted vector), A = {Σ_j w_j t_j ≤ level}. The weights are the decay rates (in
/// units of 1/[`SIMPLEX_UNIT`] nat) of the stationary mass along each coordinate, measured
/// on a pilot truncation, so that A is close to a sublevel set of −log π: the stationary
/// mass outside A is about e^{−level/UNIT} whatever the direction, with far fewer states
/// than a box {x_1 ≤ L, x_N − x_1 ≤ S} of the same mass outside (under JSQ(d) the gaps
/// near the top of the sorted vector decay several times faster than the one at the
/// bottom).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Simplex {
    /// w_0, …, w_{N−1} (the first N used), each ≥ 1.
    pub weights: [u16; MAXN],
    /// The level K of Σ w_j t_j ≤ K.
    pub level: u32,
}

/// Units of a nat in a [`Simplex`]'s weights and level.
pub const SIMPLEX_UNIT: f64 = 16.0;

impl Simplex {
    /// Σ w_j t_j of a sorted vector of `n` servers.
    fn phi(&self, x: &[u16], n: usize) -> u64 {
        let mut s = u64::from(self.weights[0]) * u64::from(x[0]);
        for j in 1..n {
            s += u64::from(self.weights[j]) * u64::from(x[j] - x[j - 1]);
        }
        s
    }

    /// The most one transition (one queue ±1, order kept) changes Σ w_j t_j.
    fn step(&self, n: usize) -> u64 {
        let w = &self.weights[..n];
        let mut m = u64::from(w[n - 1]);
        for j in 0..n - 1 {
            m = m.max(u64::from(w[j].abs_diff(w[j + 1])));
        }
        m
    }

    /// The number of sorted vectors in the simplex (counted, not bounded).
    pub fn states(&self, n: usize) -> f64 {
        fn count(w: &[u16], rem: u64) -> f64 {
            match w.split_last() {
                None => 1.0,
                Some((&last, [])) => (rem / u64::from(last)) as f64 + 1.0,
                Some((&last, rest)) => {
                    let mut s = 0.0;
                    let mut r = rem as i64;
                    while r >= 0 {
                        s += count(rest, r as u64);
                        r -= i64::from(last);
                    }
                    s
                }
            }
        }
        count(&self.weights[..n], u64::from(self.level))
    }
}

/// The region an infinite buffer is truncated to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// A box: queues {x_1 ≤ L, x_N − x_1 ≤ S}, pools {T ≤ K}.
    Box(Truncation),
    /// A weighted simplex in the shortest queue and the gaps (queues).
    Simplex(Simplex),
}

/// Options of [`exact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactOptions {
    /// The truncation of an infinite buffer; `None` chooses it from the digits.
    pub truncation: Option<Truncation>,
    /// Significant digits wanted (a chain certifies at most [`CHAIN_MAX_DIGITS`]).
    pub digits: u32,
    /// Most states.
    pub max_states: usize,
}

impl Default for ExactOptions {
    fn default() -> Self {
        ExactOptions {
            truncation: None,
            digits: 12,
            max_states: DEFAULT_MAX_STATES,
        }
    }
}

/// How the values were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactMethod {
    /// d = 1 (or N = 1): independent single-server queues or pools, summed in MPFR.
    ClosedForm,
    /// The sorted-occupancy chain on a finite set (all states with a buffer).
    Chain,
}

/// A value with its enclosure and the digits on which the enclosure's ends agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// The computed value (the truncated chain's, or the closed form's).
    pub value: f64,
    /// Lower end of the enclosure of the exact value.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The certified decimal.
    pub text: String,
    /// Its significant digits.
    pub digits: u32,
}

impl Value {
    fn enclosed(e: &Enclosed, wanted: u32) -> Self {
        let c = certify_pair(
            &Float::with_val(64, e.lo),
            &Float::with_val(64, e.hi),
            wanted,
        );
        Value {
            value: e.value,
            lo: e.lo,
            hi: e.hi,
            text: c.text,
            digits: c.digits,
        }
    }

    fn exact(lo: &Float, hi: &Float, wanted: u32) -> Self {
        let c = certify_pair(lo, hi, wanted);
        Value {
            value: hi.to_f64(),
            lo: lo.to_f64(),
            hi: hi.to_f64(),
            text: c.text,
            digits: c.digits,
        }
    }
}

/// The exact stationary values of a finite system.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactResult {
    /// Mean tasks per server.
    pub mean_tasks: Value,
    /// q_1, q_2, … while at least one digit is certified.
    pub occupancy: Vec<Value>,
    /// Probability that an arrival is discarded (0 without a buffer).
    pub blocking: Value,
    /// The fewest digits of mean_tasks, blocking and q_1.
    pub digits: u32,
    /// How the values were computed.
    pub method: ExactMethod,
    /// Number of states (0 for a closed form).
    pub states: usize,
    /// The truncation used (`None` for a finite buffer or a closed form).
    pub truncation: Option<Region>,
    /// Proven bound on the truncation error of mean_tasks (absolute; 0 without truncation;
    /// +∞ without a Lyapunov certificate).
    pub truncation_bound: f64,
    /// Bound on the stationary solve's error of mean_tasks (absolute, from residuals).
    pub solve_error: f64,
    /// Relative residual of the stationary solve.
    pub residual: f64,
    /// Two-level cycles of the stationary solve.
    pub cycles: usize,
    /// Truncations solved before the one printed.
    pub growths: usize,
    /// Why the truncation stopped growing short of the digits asked (`None` when they are
    /// certified, or without a truncation).
    pub stopped: Option<Stopped>,
}

/// Why the truncation of an infinite buffer stopped growing before its bound left the
/// digits asked certain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stopped {
    /// The next truncation would exceed the state limit.
    StateLimit {
        /// The next truncation.
        next: Region,
        /// Its number of states at most ([`state_bound`]).
        states: f64,
        /// The limit (`--max-states`).
        limit: usize,
    },
    /// [`MAX_GROWTHS`] truncations were solved.
    Growths,
}

/// Most significant digits an f64 value is printed with.
pub const F64_DIGITS: u32 = 15;

/// Largest number of servers with a fixed-array state.
const MAXN: usize = MAX_EXACT_SERVERS as usize;

/// A sorted occupancy vector (the first N entries used).
type Occ = [u16; MAXN];

/// The sorted-occupancy chain with its truncation and Lyapunov certificate.
struct OccupancyChain {
    kind: ModelKind,
    n: usize,
    lambda_n: f64,
    buffer: Option<u32>,
    trunc: Option<Region>,
    /// p(k) = P(min of the d sampled ≥ i | A_i = k).
    tail: Vec<f64>,
    /// The quadratic V = Σx² − βT² scaled: (β, κ_1, κ_G) (queues, infinite buffer).
    queue_v: Option<(f64, f64, f64)>,
    /// Whether Σx³ has drift ≤ 0 outside the truncation (the re-entry shape of the cost
    /// of mean_tasks; Σx² otherwise).
    cubic: bool,
    /// (1/(K + 1 − λN), a) for pools with an infinite buffer.
    pool_v: Option<(f64, f64)>,
}

impl OccupancyChain {
    fn total(&self, x: &Occ) -> u32 {
        x[..self.n].iter().map(|&v| u32::from(v)).sum()
    }
}

impl LevelChain for OccupancyChain {
    type State = Occ;

    fn start(&self) -> Occ {
        [0; MAXN]
    }

    fn level(&self, s: &Occ) -> u32 {
        self.total(s)
    }

    fn inside(&self, x: &Occ) -> bool {
        match (self.trunc, self.kind) {
            (None, _) => true,
            (Some(Region::Simplex(p)), _) => p.phi(x, self.n) <= u64::from(p.level),
            (Some(Region::Box(t)), ModelKind::Queues) => {
                let (lo, hi) = (u32::from(x[0]), u32::from(x[self.n - 1]));
                lo <= t.min_level && hi - lo <= t.spread
            }
            (Some(Region::Box(t)), ModelKind::Pools) => self.total(x) <= t.min_level,
        }
    }

    fn transitions(&self, x: &Occ, out: &mut Vec<(Occ, f64)>) {
        let n = self.n;
        let mut start = 0;
        while start < n {
            let v = x[start];
            let mut end = start + 1;
            while end < n && x[end] == v {
                end += 1;
            }
            // A_v = n − start servers have ≥ v; A_{v+1} = n − end.
            let p = self.tail[n - start] - self.tail[n - end];
            let full = self.buffer.is_some_and(|b| u32::from(v) >= b);
            if p > 0.0 && !full && u32::from(v) < MAX_LEVEL {
                let mut y = *x;
                y[end - 1] = v + 1;
                out.push((y, self.lambda_n * p));
            }
            if v >= 1 {
                let rate = (end - start) as f64 * self.kind.service_rate(usize::from(v));
                let mut y = *x;
                y[start] = v - 1;
                out.push((y, rate));
            }
            start = end;
        }
    }

    fn growth(&self, s: &Occ) -> f64 {
        f64::from(self.total(s))
    }

    fn lyapunov(&self, x: &Occ) -> Option<[f64; 4]> {
        if self.trunc.is_none() {
            return Some([0.0; 4]);
        }
        let t = f64::from(self.total(x));
        if let Some((beta, k1, kg)) = self.queue_v {
            let sq: f64 = x[..self.n]
                .iter()
                .map(|&v| f64::from(v) * f64::from(v))
                .sum();
            let v = (sq - beta * t * t).max(0.0);
            let wg = if self.cubic {
                x[..self.n].iter().map(|&v| f64::from(v).powi(3)).sum()
            } else {
                sq
            };
            return Some([k1 * v, kg * v, sq, wg]);
        }
        self.pool_v.map(|(a1, ag)| [a1 * t, ag * t * t, t, t * t])
    }

    fn exit_face(&self, x: &Occ) -> usize {
        match (self.trunc, self.kind) {
            (Some(Region::Box(t)), ModelKind::Queues) if u32::from(x[0]) <= t.min_level => 1,
            _ => 0,
        }
    }

    fn seeds(&self) -> Vec<Occ> {
        // The simplex is not closed under the moves inside it (e.g. the diagonal (m, …, m)
        // near the face is entered only from outside): every sorted vector in it.
        let Some(Region::Simplex(p)) = self.trunc else {
            return Vec::new();
        };
        fn rec(j: usize, n: usize, p: &Simplex, x: &mut Occ, out: &mut Vec<Occ>) {
            if j == n {
                out.push(*x);
                return;
            }
            let lo = if j == 0 { 0 } else { x[j - 1] };
            let mut v = lo;
            loop {
                x[j] = v;
                if p.phi(x, j + 1) > u64::from(p.level) || u32::from(v) >= MAX_LEVEL {
                    break;
                }
                rec(j + 1, n, p, x, out);
                v += 1;
            }
            x[j] = 0;
        }
        let mut out = Vec::new();
        rec(0, self.n, &p, &mut [0; MAXN], &mut out);
        out
    }

    fn size_hint(&self) -> Option<usize> {
        match self.trunc {
            // The simplex's sorted vectors, counted exactly (every one is explored: the
            // ones not reached from z are seeds).
            Some(Region::Simplex(p)) => Some(p.states(self.n) as usize),
            _ => None,
        }
    }

    fn on_boundary(&self, x: &Occ) -> bool {
        match (self.trunc, self.kind) {
            (None, _) => false,
            (Some(Region::Simplex(p)), _) => {
                // Entered from y with Σw t(y) > K, one step away.
                p.phi(x, self.n) + p.step(self.n) > u64::from(p.level)
            }
            (Some(Region::Box(t)), ModelKind::Queues) => {
                let (lo, hi) = (u32::from(x[0]), u32::from(x[self.n - 1]));
                lo == t.min_level || hi - lo == t.spread
            }
            (Some(Region::Box(t)), ModelKind::Pools) => self.total(x) == t.min_level,
        }
    }
}

/// w_i = P(the shortest of the d sampled servers is the i-th smallest), i = 1..=N.
fn rank_weights(n: usize, d: u64, sampling: Sampling) -> Vec<f64> {
    let tail = tail_table(n as u64, d, sampling);
    // P(rank ≥ i) = P(all sampled among the N − i + 1 largest) = tail[N − i + 1].
    (1..=n).map(|i| tail[n - i + 1] - tail[n - i]).collect()
}

/// The quadratic Lyapunov certificate of queues outside the box {x_1 ≤ L, spread ≤ S}
/// (module docs): the smallest κ_1, κ_G such that κ_1 V has drift ≤ −1 and κ_G V drift
/// ≤ −T at every state outside the box, for V = Σx² − βT²; `None` when no β of
/// [`BETA_TRIES`] gives negative coefficients (λ too close to 1 for this V).
pub fn queue_lyapunov(
    n: usize,
    d: u64,
    sampling: Sampling,
    lambda: f64,
    t: Truncation,
) -> Option<(f64, f64, f64)> {
    let w = rank_weights(n, d, sampling);
    let ln = lambda * n as f64;
    let (l, s) = (f64::from(t.min_level), f64::from(t.spread));
    let mut best: Option<(f64, f64, f64, f64)> = None;
    for bn in BETA_TRIES {
        let beta = bn / n as f64;
        // Constraints κ·a + b ≤ 0 (a must be negative), for g = 1 (γ = 0, γ0 = 1) and
        // g = T (γ = 1, γ0 = 0).
        let mut kappa = [0.0f64; 2];
        let mut ok = true;
        for (gi, (gamma, gamma0)) in [(0.0, 1.0), (1.0, 0.0)].into_iter().enumerate() {
            let mut need = 0.0f64;
            let mut add = |a: f64, b: f64| {
                if a < 0.0 {
                    need = need.max(b / -a);
                    true
                } else {
                    b <= 0.0 && a == 0.0
                }
            };
            for idle in 0..n {
                let busy = (n - idle) as f64;
                let c: Vec<f64> = w
                    .iter()
                    .map(|&wi| 2.0 * ln * wi - 2.0 - 2.0 * beta * (ln - busy))
                    .collect();
                let cst = (ln + busy) * (1.0 - beta);
                // G_j = κ·cc[j] + γ·(N − j + 1) for j ≥ idle + 1 (1-based).
                let first = idle; // 0-based index of the first busy server
                let cc: Vec<(f64, f64)> = (first..n)
                    .map(|j| (c[j..].iter().sum::<f64>(), gamma * (n - j) as f64))
                    .collect();
                for &(a, b) in &cc {
                    // Every generator's coefficient negative (a small margin: strict).
                    ok &= add(a, b + 1e-12);
                }
                if idle >= 1 {
                    // max over {x_N ≥ S + 1}: G_{I+1} + S·G_j for each j, plus constants.
                    let (a0, b0) = cc[0];
                    for &(a, b) in &cc {
                        ok &= add(a0 + s * a + cst, b0 + s * b + gamma0);
                    }
                } else {
                    let (a1, b1) = cc[0];
                    // m ≥ L + 1, no spread.
                    ok &= add((l + 1.0) * a1 + cst, (l + 1.0) * b1 + gamma0);
                    // m ≥ 1, spread ≥ S + 1.
                    for &(a, b) in &cc[1..] {
                        ok &= add(a1 + (s + 1.0) * a + cst, b1 + (s + 1.0) * b + gamma0);
                    }
                }
            }
            kappa[gi] = need * (1.0 + 1e-9) + 1e-300;
        }
        if !ok {
            continue;
        }
        // Score: κ_G·V at the level exit (all at L + 1) and at a spread exit.
        let top = n as f64 * (l + 1.0) * (l + 1.0) * (1.0 - beta * n as f64);
        let spread = (s + 1.0) * (s + 1.0) * (1.0 - beta);
        let score = kappa[1] * (top + spread);
        if best.is_none_or(|b| score < b.3) {
            best = Some((beta, kappa[0], kappa[1], score));
        }
    }
    best.map(|(b, k1, kg, _)| (b, k1, kg))
}

/// The quadratic Lyapunov certificate of queues outside the simplex {Σ_j w_j t_j ≤ K}
/// (t_0 = x_1, t_j the gaps; [`Simplex`]): the smallest κ_1, κ_G such that κ_1 V has drift
/// ≤ −1 and κ_G V drift ≤ −T outside it, for V = Σx². With I idle servers a state is
/// Σ_{j≥I} t_j e_j over the generators e_j = (0, …, 0, 1, …, 1) (first 1 at index j;
/// t_I ≥ 1), and QV = Σ_j t_j G_j + (λN + B) is linear in t (module docs); when every G_j
/// is negative the largest drift over {t_I ≥ 1, t ≥ 0, Σ w_j t_j ≥ K} (a superset of the
/// states outside) is at the vertices t_I = K/w_I and t_I = 1, t_j = (K − w_I)/w_j (or at
/// t_I = 1 when w_I ≥ K). `None` when a coefficient is not negative.
pub fn simplex_lyapunov(
    n: usize,
    d: u64,
    sampling: Sampling,
    lambda: f64,
    weights: &[f64],
    level: f64,
) -> Option<(f64, f64, f64)> {
    let w = rank_weights(n, d, sampling);
    let ln = lambda * n as f64;
    let mut kappa = [0.0f64; 2];
    for (gi, (gamma, gamma0)) in [(0.0, 1.0), (1.0, 0.0)].into_iter().enumerate() {
        let mut need = 0.0f64;
        let mut ok = true;
        let mut add = |a: f64, b: f64| {
            if a < 0.0 {
                need = need.max(b / -a);
            } else {
                ok = false;
            }
        };
        for idle in 0..n {
            let busy = (n - idle) as f64;
            let c: Vec<f64> = w.iter().map(|&wi| 2.0 * ln * wi - 2.0).collect();
            let cst = ln + busy;
            // Per generator j ≥ idle: (G_j, its T coefficient N − j).
            let g: Vec<(f64, f64)> = (idle..n)
                .map(|j| (c[j..].iter().sum::<f64>(), (n - j) as f64))
                .collect();
            for &(a, t) in &g {
                add(a, gamma * t + 1e-12);
            }
            let wi = weights[idle];
            let mut vertex = |t: &[(usize, f64)]| {
                let a: f64 = t.iter().map(|&(j, tj)| tj * g[j - idle].0).sum::<f64>() + cst;
                let b: f64 =
                    gamma * t.iter().map(|&(j, tj)| tj * g[j - idle].1).sum::<f64>() + gamma0;
                add(a, b);
            };
            if wi >= level {
                vertex(&[(idle, 1.0)]);
            } else {
                vertex(&[(idle, level / wi)]);
                for (j, &wj) in weights.iter().enumerate().take(n).skip(idle + 1) {
                    vertex(&[(idle, 1.0), (j, (level - wi) / wj)]);
                }
            }
        }
        if !ok {
            return None;
        }
        kappa[gi] = need * (1.0 + 1e-9) + 1e-300;
    }
    Some((0.0, kappa[0], kappa[1]))
}

/// Whether W = Σx³ has drift QW ≤ 0 at every state of queues outside the box: with I idle
/// servers and B = N − I busy, QW = Σ_i (3λN w_i − 3·[i busy]) x_i² + Σ_i (3λN w_i +
/// 3·[i busy]) x_i + λN − B; Chebyshev's sum inequality (decreasing coefficients, increasing
/// x_i²) bounds the quadratic part by D_I X / B (X = Σx², D_I the coefficients' sum over the
/// busy ranks) and Cauchy–Schwarz the linear part by e √(BX), so QW ≤ 0 once √X exceeds the
/// larger root of that parabola; outside the box X ≥ (S + 1)².
pub fn cubic_drift_ok(n: usize, d: u64, sampling: Sampling, lambda: f64, t: Truncation) -> bool {
    let x0 = (f64::from(t.spread) + 1.0).min(f64::from(t.min_level) + 1.0);
    cubic_drift_beyond(n, d, sampling, lambda, x0)
}

/// [`cubic_drift_ok`] for any region outside which √(Σx²) ≥ `x0`.
fn cubic_drift_beyond(n: usize, d: u64, sampling: Sampling, lambda: f64, x0: f64) -> bool {
    let w = rank_weights(n, d, sampling);
    let ln = lambda * n as f64;
    (0..n).all(|idle| {
        let busy = (n - idle) as f64;
        let dsum: f64 = w[idle..].iter().map(|&wi| 3.0 * ln * wi - 3.0).sum();
        if dsum >= 0.0 {
            return false;
        }
        let a = -dsum / busy;
        let e = w[idle..]
            .iter()
            .map(|&wi| 3.0 * ln * wi + 3.0)
            .fold(0.0f64, f64::max)
            * busy.sqrt();
        let c = (ln - busy).max(0.0);
        let root = (e + (e * e + 4.0 * a * c).sqrt()) / (2.0 * a);
        root <= x0
    })
}

fn level_err(e: LevelError, max: usize) -> LbError {
    match e {
        LevelError::TooManyStates { limit } => LbError::Numerical(format!(
            "the exact chain needs more than {limit} states (limit {max}): ask fewer --digits, raise --max-states, or use jsq simulate"
        )),
        other => LbError::Numerical(format!(
            "exact chain: {other}; ask fewer --digits or use jsq simulate"
        )),
    }
}

/// The first truncation tried for an infinite buffer.
pub fn initial_truncation(system: &JsqSystem) -> Truncation {
    let lambda = system.model().lambda();
    let n = system.servers() as f64;
    match system.model().kind() {
        ModelKind::Queues => Truncation {
            // The shortest queue's tail decays like λ^N per level: a mass of about 10⁻⁶
            // on the face; the bound's growth steps take it from there.
            min_level: ((14.0 / (-(lambda.ln()) * n)).ceil() as u32).clamp(6, 400),
            spread: START_SPREAD,
        },
        ModelKind::Pools => Truncation {
            min_level: (lambda * n + 6.0 * (lambda * n).sqrt() + 10.0).ceil() as u32,
            spread: 0,
        },
    }
}

/// C(n + k, k) in f64 (an upper bound on state counts; +∞ when it overflows).
fn multisets(n: u64, k: u64) -> f64 {
    (1..=k).fold(1.0, |acc, j| acc * (n + j) as f64 / j as f64)
}

/// The number of states of the sorted-occupancy chain at most: C(N + b, b) sorted vectors
/// on [0, b] for a buffer b; (L + 1) C(N − 1 + S, S) for a truncation of queues (the
/// shortest queue m ≤ L, the other N − 1 lengths in [m, m + S]).
///
/// ```
/// use taskassign::lb::state_bound;
/// use taskassign::lb::Truncation;
/// assert_eq!(state_bound(1, Some(2), None), 3.0);
/// let t = Truncation { min_level: 5, spread: 4 };
/// assert_eq!(state_bound(40, None, Some(t)), 6.0 * 123_410.0);
/// ```
pub fn state_bound(n: u64, buffer: Option<u32>, trunc: Option<Truncation>) -> f64 {
    match (buffer, trunc) {
        (Some(b), _) => multisets(n, u64::from(b)),
        (None, Some(t)) => {
            (f64::from(t.min_level) + 1.0) * multisets(n.saturating_sub(1), u64::from(t.spread))
        }
        (None, None) => f64::INFINITY,
    }
}

/// Bad input when the chain to solve would exceed the state limit (refused before any
/// state is explored, so that a large N fails at once).
fn check_size(system: &JsqSystem, trunc: Option<Truncation>, max: usize) -> Result<(), LbError> {
    let bound = match (system.model().kind(), system.model().buffer(), trunc) {
        (ModelKind::Pools, None, Some(t)) => multisets(system.servers(), u64::from(t.min_level)),
        (_, b, t) => state_bound(system.servers(), b, t),
    };
    if bound > max as f64 {
        return Err(LbError::Numerical(format!(
            "the exact chain would have up to {bound:.3e} states (limit {max}): use fewer servers, ask fewer --digits, raise --max-states, or use jsq simulate"
        )));
    }
    Ok(())
}

/// The values of one truncation (or of the whole chain with a buffer).
struct Solved {
    result: ExactResult,
    /// The truncation bound of mean_tasks split by face: exits through x_1 = L (or T = K)
    /// and through the spread S.
    face_bound: [f64; 2],
    /// π̂ by state, the warm start of the next truncation.
    pi: HashMap<Occ, f64>,
    /// This truncation's re-entry bound for the next, larger one ([`HandOn`]).
    hand: Option<HandOn>,
}

/// A truncation's re-entry bound with the Lyapunov certificate it was computed under,
/// handed on to the next, larger truncation of the growth: its enclosure then needs no
/// solve of its own ([`levels::bounds_handed`]) when the handed bound certifies the digits
/// asked.
struct HandOn {
    bound: levels::Handed<Occ>,
    queue_v: Option<(f64, f64, f64)>,
    cubic: bool,
}

/// What a truncation of the growth starts from: the last one's π̂ by state (the stationary
/// solve's guess) and the re-entry bound it handed on.
#[derive(Default)]
struct Prior<'a> {
    warm: Option<HashMap<Occ, f64>>,
    handed: Option<&'a HandOn>,
}

/// Further decades of relative residual the stationary solve first aims at when a handed
/// bound is tried ([`solve_chain`]).
const HANDED_DECADES: i32 = 2;

/// One step of the truncation growth of [`exact`] (boxes) and [`exact_simplex`]: the chain
/// solved on `region`, with the truncation bound its mean must reach
/// ([`truncation_target`]); under `TASKASSIGN_TRACE_EXACT`, a line on stderr naming the
/// region by `label` (and, for a box, its bound by face).
fn solve_traced(
    system: &JsqSystem,
    region: Region,
    want: u32,
    max_states: usize,
    prior: Prior<'_>,
    label: std::fmt::Arguments<'_>,
    stage: Stage,
) -> Result<(Solved, f64), LbError> {
    let faces = matches!(region, Region::Box(_));
    let s = solve_chain(system, Some(region), want, max_states, prior, stage)?;
    let r = &s.result;
    let target = truncation_target(r.mean_tasks.value, want);
    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
        let faces = if faces {
            format!(" faces {:?}", s.face_bound)
        } else {
            String::new()
        };
        eprintln!(
            "exact: {label} states {} digits {} bound {:.2e} target {:.2e} solve {:.2e}{faces} cycles {}",
            r.states, r.digits, r.truncation_bound, target, r.solve_error, r.cycles
        );
    }
    Ok((s, target))
}

/// Whether a truncation may be the last one of a growth: an [`Stage::Intermediate`] one
/// (another, larger truncation follows unless its own digits or bound end the growth) skips
/// the refinement of its stationary solve when its truncation bound alone already keeps it
/// from printing the digits asked ([`cannot_print`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Another truncation follows if this one falls short.
    Intermediate,
    /// The result is returned whatever it certifies.
    Final,
}

/// Whether a truncation bound `bound` of a `mean_tasks` near `mean` keeps `want` digits
/// from being certified: the enclosure [mean − bound, mean + bound] (the solve's error only
/// widens it) is then at least a unit of the last digit asked wide, at the largest unit
/// any of its points has (the decade of mean + bound), so it holds a rounding boundary of
/// that digit and its ends cannot round alike (near a power of ten, where the unit above
/// is ten times the one below, an interval that wide still reaches a boundary on one
/// side). Such a truncation is not the last one of the growth. The earlier rule, a bound
/// 20 times its target (0.05–0.5 units by the leading digit), waited for 1–10 units.
fn cannot_print(bound: f64, mean: f64, want: u32) -> bool {
    let top = mean.abs() + bound;
    if !(top > 0.0 && top.is_finite()) {
        return false;
    }
    let unit = last_digit_unit(top, want);
    // Strictly wider (an interval exactly a unit wide can have a boundary at each end and
    // both ends rounding alike), with a relative 1e-9 against the f64 reading of the unit.
    2.0 * bound > unit * (1.0 + 1e-9)
}

fn solve_chain(
    system: &JsqSystem,
    trunc: Option<Region>,
    digits: u32,
    max_states: usize,
    prior: Prior<'_>,
    stage: Stage,
) -> Result<Solved, LbError> {
    let Prior { warm, handed } = prior;
    let n = system.servers() as usize;
    let model = system.model();
    let lambda = model.lambda();
    let kind = model.kind();
    let (d, sampling) = (system.d().d, system.sampling());
    let (queue_v, pool_v) = match (trunc, kind) {
        (Some(Region::Box(t)), ModelKind::Queues) => {
            (queue_lyapunov(n, d, sampling, lambda, t), None)
        }
        (Some(Region::Simplex(p)), _) => {
            let w: Vec<f64> = p.weights[..n].iter().map(|&v| f64::from(v)).collect();
            (
                simplex_lyapunov(n, d, sampling, lambda, &w, f64::from(p.level)),
                None,
            )
        }
        (Some(Region::Box(t)), ModelKind::Pools) => {
            let ln = lambda * n as f64;
            let k1 = f64::from(t.min_level) + 1.0;
            let denom = 2.0 * k1 - 2.0 * ln - 1.0 - ln / k1;
            if k1 > ln && denom > 0.0 {
                (None, Some((1.0 / (k1 - ln), 1.0 / denom)))
            } else {
                (None, None)
            }
        }
        (None, _) => (None, None),
    };
    let cubic = match (trunc, kind) {
        (Some(Region::Box(t)), ModelKind::Queues) => cubic_drift_ok(n, d, sampling, lambda, t),
        (Some(Region::Simplex(p)), _) => {
            // Outside the simplex Σ w_j t_j ≤ max w · x_N, so √(Σx²) ≥ x_N > K / max w.
            let wmax = p.weights[..n].iter().copied().max().unwrap_or(1).max(1);
            cubic_drift_beyond(n, d, sampling, lambda, f64::from(p.level) / f64::from(wmax))
        }
        _ => false,
    };
    let chain = OccupancyChain {
        cubic,
        kind,
        n,
        lambda_n: lambda * n as f64,
        buffer: model.buffer(),
        trunc,
        tail: tail_table(system.servers(), system.d().d, system.sampling()),
        queue_v,
        pool_v,
    };
    // A smaller truncation's bound is handed on under its own certificate (it holds outside
    // that truncation, so outside this one when this one contains it): the chain is
    // explored with those Lyapunov functions, and reweighed with its own if the handed
    // bound does not serve.
    let handed = handed.filter(|h| h.queue_v.is_some() && queue_v.is_some());
    let inherited = handed.map(|h| OccupancyChain {
        queue_v: h.queue_v,
        cubic: h.cubic,
        tail: chain.tail.clone(),
        ..chain
    });
    let t0 = std::time::Instant::now();
    let mut c = levels::explore(inherited.as_ref().unwrap_or(&chain), max_states)
        .map_err(|e| level_err(e, max_states))?;
    // ILU(0) around the level correction: about 4x fewer GMRES iterations than one
    // Gauss–Seidel sweep on these chains (N = 4, d = 2, λ = 0.9: 73 against 310 for the
    // stationary solve); the enclosure is computed from the residuals either way.
    c.smoother = levels::Smoother::Ilu;
    let t1 = std::time::Instant::now();
    // The previous truncation's π̂ by state is dropped once mapped (its memory is not held
    // through this truncation's solves).
    let guess: Option<Vec<f64>> = warm.map(|w| {
        c.states
            .iter()
            .map(|x| w.get(x).copied().unwrap_or(0.0))
            .collect()
    });
    // With a truncation (an infinite buffer: no blocking probability to certify) the
    // stationary solve first stops at a relative residual 10^−(digits+4), which a warm
    // start usually reaches in one refinement cycle instead of two; the bound's solves then
    // bound the solve's error, and only if it exceeds SOLVE_SHARE of the truncation target
    // of mean_tasks or q_1 is the solve refined to the full target and the bound recomputed.
    let first_target = if trunc.is_some() {
        // A handed bound's terms in the residual are coarser than a solve's own (about ten
        // times at N = 5, d = 2, λ = 0.95): two decades more at once cost fewer GMRES
        // iterations than a second refinement's setup.
        let more = if handed.is_some() { HANDED_DECADES } else { 0 };
        10f64.powi(-(digits as i32 + 4 + more))
    } else {
        levels::TARGET_RESIDUAL
    };
    let mut st = levels::stationary_from(&c, guess.as_deref(), first_target)
        .map_err(|e| level_err(e, max_states))?;
    let mut t2 = std::time::Instant::now();
    let nf = n as f64;
    let (mut mean, mut q1) = (0.0, 0.0);
    for (x, &p) in c.states.iter().zip(&st.pi) {
        mean += p * chain.growth(x) / nf;
        q1 += p * x[..n].iter().filter(|&&v| v >= 1).count() as f64 / nf;
    }
    let allowed = SOLVE_SHARE * truncation_target(mean.min(q1), digits);
    let trace = std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some();
    let tasks_of = |c: &levels::Explored<Occ>| -> Vec<f64> {
        c.states.iter().map(|x| chain.growth(x) / nf).collect()
    };
    // The handed bound serves when it certifies the digits asked: its truncation bound of
    // mean_tasks within the target, its solve error within SOLVE_SHARE of it (the stationary
    // solve refined to the full target if that is what it needs; its terms in the solve's
    // residual are coarser than a solve's own).
    let mut b = None;
    if let (Some(h), Some(ich)) = (handed, inherited.as_ref()) {
        let mut attempt = levels::bounds_handed(ich, &c, &st, &h.bound);
        // Whether it ends the growth as a solve's own bound would: its truncation bound of
        // mean_tasks within the target, or mean_tasks and q_1 certified to the digits asked
        // (the test of [`exact_simplex`]); and the solve's error within its share.
        let fits = |b: &levels::Bounds, st: &levels::Stationary| {
            let nf_tasks = Bounded::ByGrowth(1.0 / nf);
            let m = b.enclose(st, &tasks_of(&c), nf_tasks);
            let busy: Vec<f64> = c
                .states
                .iter()
                .map(|x| x[..n].iter().filter(|&&v| v >= 1).count() as f64 / nf)
                .collect();
            let q = b.enclose(st, &busy, Bounded::ByOne(1.0));
            let certified = Value::enclosed(&m, digits).digits >= digits
                && Value::enclosed(&q, digits).digits >= digits;
            let err = b.solve_error[0].max(b.solve_error[1] / nf);
            (
                m.truncation <= truncation_target(m.value, digits) || certified,
                err <= allowed,
            )
        };
        if let Some(bh) = &attempt {
            let (bound_ok, err_ok) = fits(bh, &st);
            if trace {
                eprintln!(
                    "  handed bound {:.2e} (target {:.2e}) solve error {:.2e}/{:.2e} reentry {:?}",
                    bh.enclose_value(mean, Bounded::ByGrowth(1.0 / nf))
                        .truncation,
                    truncation_target(mean, digits),
                    bh.solve_error[0],
                    bh.solve_error[1],
                    bh.reentry
                );
            }
            if bound_ok && !err_ok && st.residual > levels::TARGET_RESIDUAL {
                // The solve's error bound is linear in the residual: aimed at half of what
                // the share allows (a few GMRES iterations where the full target would
                // take a third of the solve again).
                let err = bh.solve_error[0].max(bh.solve_error[1] / nf);
                let aim = (st.residual * 0.5 * allowed / err).max(levels::TARGET_RESIDUAL);
                st = levels::stationary_from(&c, Some(&st.pi), aim)
                    .map_err(|e| level_err(e, max_states))?;
                t2 = std::time::Instant::now();
                attempt = levels::bounds_handed(ich, &c, &st, &h.bound);
                if trace {
                    if let Some(bh) = &attempt {
                        eprintln!(
                            "  handed bound after refining: {:.2e} solve error {:.2e}/{:.2e}",
                            bh.enclose_value(mean, Bounded::ByGrowth(1.0 / nf))
                                .truncation,
                            bh.solve_error[0],
                            bh.solve_error[1]
                        );
                    }
                }
            }
            b = attempt.filter(|bh| fits(bh, &st) == (true, true));
        }
        if b.is_none() {
            c.reweigh(&chain);
        }
    }
    // The bound's solves are kept for a refinement of the stationary solve (they do not
    // depend on π̂: [`levels::bounds_reusing`]), dropped after it.
    let mut cache = levels::BoundSolveCache::default();
    let hands = stage == Stage::Intermediate && levels::may_hand_on(c.len(), max_states);
    let mut hand = None;
    let mut own = |st: &levels::Stationary, cache: &mut levels::BoundSolveCache| {
        if hands {
            let (b, h) = levels::bounds_handing(&chain, &c, st, cache);
            hand = h;
            b
        } else {
            levels::bounds_reusing(&chain, &c, st, cache)
        }
    };
    let mut b = match b {
        Some(b) => b,
        None => own(&st, &mut cache),
    };
    if st.residual > levels::TARGET_RESIDUAL && b.solves > 0 {
        let err = b.solve_error[0].max(b.solve_error[1] / nf);
        // An intermediate truncation whose bound alone keeps the digits asked out of reach
        // is not refined: the refinement cannot make it the last one, and the next
        // truncation starts from this π̂ either way (N = 5, d = 5, λ = 0.95: 12 of the 128
        // GMRES iterations at level 51 nats, whose bound was 27 times its target).
        let bound = b
            .enclose_value(mean, Bounded::ByGrowth(1.0 / nf))
            .truncation;
        let hopeless = stage == Stage::Intermediate && cannot_print(bound, mean, digits);
        if hopeless && !(err <= allowed) && trace {
            eprintln!(
                "  solve error {err:.2e} above {allowed:.2e}, not refined: bound {bound:.2e} cannot print {digits} digits"
            );
        }
        if !(err <= allowed) && !hopeless {
            if trace {
                eprintln!(
                    "  solve error {err:.2e} above {allowed:.2e} at residual {:.2e}: refining",
                    st.residual
                );
            }
            st = levels::stationary_from(&c, Some(&st.pi), levels::TARGET_RESIDUAL)
                .map_err(|e| level_err(e, max_states))?;
            t2 = std::time::Instant::now();
            b = own(&st, &mut cache);
        }
    }
    drop(cache);
    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
        eprintln!(
            "  explore {:.3}s stationary {:.3}s bounds {:.3}s ({} solves); outside {:?} eps {:?} reentry {:?} pmax {:.3}",
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            t2.elapsed().as_secs_f64(),
            b.solves,
            b.outside,
            b.exit_rate,
            b.reentry,
            b.max_exit_probability
        );
    }
    let tasks = tasks_of(&c);
    let mean = b.enclose(&st, &tasks, Bounded::ByGrowth(1.0 / nf));
    let top = c
        .states
        .iter()
        .map(|x| usize::from(x[n - 1]))
        .max()
        .unwrap_or(0);
    // π̂(A_i)/N for every level in one pass over the states.
    let mut occ_sum = vec![0.0f64; top];
    let mut occ_lo = vec![0.0f64; top];
    for (x, &p) in c.states.iter().zip(&st.pi) {
        for &v in &x[..n] {
            for i in 0..usize::from(v) {
                let (s, e) = crate::num::dd::two_sum(occ_sum[i], p);
                occ_sum[i] = s;
                occ_lo[i] += e;
            }
        }
    }
    let mut occupancy = Vec::new();
    for (s, e) in occ_sum.iter().zip(&occ_lo) {
        let q = (s + e) / nf;
        let v = Value::enclosed(&b.enclose_value(q, Bounded::ByOne(1.0)), digits);
        if v.digits == 0 || v.value < OCCUPANCY_FLOOR {
            break;
        }
        occupancy.push(v);
    }
    let blocking = match model.buffer() {
        Some(bf) => {
            let f: Vec<f64> = c
                .states
                .iter()
                .map(|x| chain.tail[x[..n].iter().filter(|&&v| u32::from(v) >= bf).count()])
                .collect();
            Value::enclosed(&b.enclose(&st, &f, Bounded::ByOne(1.0)), digits)
        }
        None => Value {
            value: 0.0,
            lo: 0.0,
            hi: 0.0,
            text: "0e0".into(),
            digits,
        },
    };
    let face_bound = b.by_face(Bounded::ByGrowth(1.0 / nf));
    let pi_map: HashMap<Occ, f64> = if trunc.is_some() {
        c.states
            .iter()
            .copied()
            .zip(st.pi.iter().copied())
            .collect()
    } else {
        HashMap::new()
    };
    let mean_v = Value::enclosed(&mean, digits);
    let mut digits_min = mean_v.digits;
    if model.buffer().is_some() {
        digits_min = digits_min.min(blocking.digits);
    }
    if let Some(q1) = occupancy.first() {
        digits_min = digits_min.min(q1.digits);
    } else {
        digits_min = 0;
    }
    let solve_error = b.solve_error[1] / nf;
    Ok(Solved {
        result: ExactResult {
            mean_tasks: mean_v,
            occupancy,
            blocking,
            digits: digits_min,
            method: ExactMethod::Chain,
            states: c.len(),
            truncation: trunc,
            truncation_bound: if trunc.is_some() {
                mean.truncation
            } else {
                0.0
            },
            solve_error,
            residual: st.residual,
            cycles: st.cycles,
            growths: 0,
            stopped: None,
        },
        face_bound,
        pi: pi_map,
        hand: hand.map(|bound| HandOn {
            bound,
            queue_v: chain.queue_v,
            cubic: chain.cubic,
        }),
    })
}

/// The closed form of d = 1: N independent M/M/1/b queues or M/M/B/B pools (M/M/∞ without
/// a capacity), summed in MPFR at the two precisions of `digits`.
pub fn closed_form(system: &JsqSystem, digits: u32) -> Result<ExactResult, LbError> {
    let model = system.model();
    let (b0, b1) = crate::num::certify_bits(digits + 2);
    let eval = |bits: u32| -> Result<(Float, Vec<Float>, Float), LbError> {
        let lambda = crate::num::parse_decimal(model.lambda_text(), bits)
            .map_err(|e| LbError::BadInput(e.to_string()))?;
        // Unnormalised π_k, k = 0..=K: λ^k (queues) or λ^k/k! (pools); without a capacity
        // the queue's tail is summed in closed form and the pool's Poisson series until its
        // terms are below 2^−bits of the sum.
        let mut w: Vec<Float> = vec![Float::with_val(bits, 1)];
        let cap = model.buffer();
        let tiny = |s: &Float, t: &Float| -> bool {
            match (s.get_exp(), t.get_exp()) {
                (Some(a), Some(b)) => i64::from(b) < i64::from(a) - i64::from(bits) - 8,
                _ => t.is_zero(),
            }
        };
        match (model.kind(), cap) {
            (ModelKind::Queues, None) => {
                // π_k = (1 − λ)λ^k: mean λ/(1 − λ), q_i = λ^i.
                let one = Float::with_val(bits, 1);
                let mean = Float::with_val(bits, &lambda / Float::with_val(bits, &one - &lambda));
                let mut occ = Vec::new();
                let mut q = Float::with_val(bits, &lambda);
                while q > OCCUPANCY_FLOOR && occ.len() < 100_000 {
                    occ.push(q.clone());
                    q *= &lambda;
                }
                return Ok((mean, occ, Float::with_val(bits, 0)));
            }
            _ => {
                let mut k = 1u32;
                loop {
                    if let Some(b) = cap {
                        if k > b {
                            break;
                        }
                    }
                    let prev = w[w.len() - 1].clone();
                    let next = match model.kind() {
                        ModelKind::Queues => Float::with_val(bits, &prev * &lambda),
                        ModelKind::Pools => Float::with_val(bits, &prev * &lambda) / k,
                    };
                    let mut s = Float::with_val(bits, 0);
                    for x in &w {
                        s += x;
                    }
                    let stop = cap.is_none() && tiny(&s, &next) && k as f64 > 2.0 * model.lambda();
                    w.push(next);
                    if stop || k >= MAX_LEVEL {
                        break;
                    }
                    k += 1;
                }
            }
        }
        let mut z = Float::with_val(bits, 0);
        for x in &w {
            z += x;
        }
        let mut mean = Float::with_val(bits, 0);
        for (k, x) in w.iter().enumerate() {
            mean += Float::with_val(bits, x * k as u32);
        }
        mean /= &z;
        // q_i = P(X ≥ i).
        let mut occ = Vec::new();
        let mut tail = Float::with_val(bits, 0);
        let mut tails: Vec<Float> = Vec::with_capacity(w.len());
        for x in w.iter().rev() {
            tail += x;
            tails.push(Float::with_val(bits, &tail / &z));
        }
        tails.reverse();
        for t in tails.into_iter().skip(1) {
            occ.push(t);
        }
        let blocking = match cap {
            Some(_) => Float::with_val(bits, &w[w.len() - 1] / &z),
            None => Float::with_val(bits, 0),
        };
        Ok((mean, occ, blocking))
    };
    let lo = eval(b0)?;
    let hi = eval(b1)?;
    let mean = Value::exact(&lo.0, &hi.0, digits);
    let mut occupancy = Vec::new();
    for (a, b) in lo.1.iter().zip(&hi.1) {
        let v = Value::exact(a, b, digits);
        if v.digits == 0 || v.value < OCCUPANCY_FLOOR {
            break;
        }
        occupancy.push(v);
    }
    let blocking = Value::exact(&lo.2, &hi.2, digits);
    let d = occupancy
        .first()
        .map_or(mean.digits, |q| q.digits.min(mean.digits))
        .min(if model.buffer().is_some() {
            blocking.digits
        } else {
            u32::MAX
        });
    Ok(ExactResult {
        mean_tasks: mean,
        occupancy,
        blocking,
        digits: d,
        method: ExactMethod::ClosedForm,
        // The states of one server's chain that were summed (none for the geometric form).
        states: model.buffer().map_or(0, |b| b as usize + 1),
        truncation: None,
        truncation_bound: 0.0,
        solve_error: 0.0,
        residual: 0.0,
        cycles: 0,
        growths: 0,
        stopped: None,
    })
}

/// Per-unit decay of a face's bound assumed before two truncations measured it: the
/// shortest queue's tail decays like λ^N per level; the spread's and a pool's total like
/// this.
const DEFAULT_FACE_DECAY: f64 = 0.5;

/// The next truncation: each face whose bound exceeds its half of `target` is grown by the
/// steps its decay (measured between earlier truncations, or assumed) says bring it below;
/// at least one step, at most doubling.
fn grown(
    t: Truncation,
    history: &[(Truncation, [f64; 2])],
    target: f64,
    decay0: [f64; 2],
    kind: ModelKind,
) -> Truncation {
    let size = |t: &Truncation, k: usize| if k == 0 { t.min_level } else { t.spread };
    let Some(&(_, now)) = history.last() else {
        return t;
    };
    let mut next = t;
    for k in 0..2 {
        if kind == ModelKind::Pools && k == 1 {
            continue;
        }
        let goal = 0.5 * target;
        if !(now[k] > goal) {
            continue;
        }
        // Decay per unit from the last two truncations that differ in this face.
        let mut decay = decay0[k];
        for w in history.windows(2).rev() {
            let (a, b) = (&w[0], &w[1]);
            let (sa, sb) = (size(&a.0, k), size(&b.0, k));
            if sb > sa && a.1[k].is_finite() && b.1[k].is_finite() && a.1[k] > 0.0 && b.1[k] > 0.0 {
                decay = (b.1[k] / a.1[k])
                    .powf(1.0 / f64::from(sb - sa))
                    .clamp(1e-3, 0.995);
                break;
            }
        }
        let cur = size(&t, k).max(1);
        let steps = if now[k].is_finite() {
            ((now[k] / goal).ln() / -decay.ln()).ceil() as u32 + 1
        } else {
            cur
        };
        let steps = steps.clamp(1, cur);
        if k == 0 {
            next.min_level += steps;
        } else {
            next.spread += steps;
        }
    }
    next
}

/// The exact stationary values of `system` (module docs), to `opts.digits` digits (at
/// most [`CHAIN_MAX_DIGITS`] for a chain).
pub fn exact(system: &JsqSystem, opts: &ExactOptions) -> Result<ExactResult, LbError> {
    let r = exact_unchecked(system, opts)?;
    // A stationary solve that did not get through (at rates far outside f64's comfortable
    // range its norms underflow, e.g. λ = 1e-300, and the solve returns nothing) is a
    // numerical failure, not a result with no digit.
    if !(r.residual <= SOLVE_FAILED_RESIDUAL) {
        return Err(LbError::Numerical(format!(
            "the exact chain's stationary solve did not get through (relative residual {:.1e}): its rates (lambda = {:e}) are too far from 1 for the f64 solve; use jsq simulate or a lambda nearer 1",
            r.residual,
            system.model().lambda()
        )));
    }
    Ok(r)
}

/// The relative residual above which the stationary solve is said to have failed (a solve
/// that gets through reaches 1e-15 or less; see [`crate::num::levels::TARGET_RESIDUAL`]).
const SOLVE_FAILED_RESIDUAL: f64 = 1e-6;

/// [`exact`] without its check that the stationary solve got through.
fn exact_unchecked(system: &JsqSystem, opts: &ExactOptions) -> Result<ExactResult, LbError> {
    let digits = opts.digits.max(1);
    if system.d().d == 1 {
        return closed_form(system, digits);
    }
    if system.servers() > MAX_EXACT_SERVERS {
        return Err(LbError::BadInput(format!(
            "the exact chain holds at most {MAX_EXACT_SERVERS} servers (got {}): use jsq simulate",
            system.servers()
        )));
    }
    let want = digits.min(CHAIN_MAX_DIGITS);
    if let Some(b) = system.model().buffer() {
        if b > MAX_LEVEL {
            return Err(LbError::BadInput(format!(
                "exact values support buffers up to {MAX_LEVEL}"
            )));
        }
        check_size(system, None, opts.max_states)?;
        return Ok(solve_chain(
            system,
            None,
            want,
            opts.max_states,
            Prior::default(),
            Stage::Final,
        )?
        .result);
    }
    if let Some(t) = opts.truncation {
        check_size(system, Some(t), opts.max_states)?;
        return Ok(solve_chain(
            system,
            Some(Region::Box(t)),
            want,
            opts.max_states,
            Prior::default(),
            Stage::Final,
        )?
        .result);
    }
    let kind = system.model().kind();
    if kind == ModelKind::Queues {
        return exact_simplex(system, opts, want);
    }
    let mut t = initial_truncation(system);
    check_size(system, Some(t), opts.max_states)?;
    let n = system.servers() as i32;
    let decay0 = [
        match kind {
            ModelKind::Queues => system.model().lambda().powi(n).clamp(1e-3, 0.995),
            ModelKind::Pools => DEFAULT_FACE_DECAY,
        },
        DEFAULT_FACE_DECAY,
    ];
    let mut history: Vec<(Truncation, [f64; 2])> = Vec::new();
    let mut warm: Option<HashMap<Occ, f64>> = None;
    let mut growths = 0;
    loop {
        let stage = if growths >= MAX_GROWTHS {
            Stage::Final
        } else {
            Stage::Intermediate
        };
        let (s, target) = solve_traced(
            system,
            Region::Box(t),
            want,
            opts.max_states,
            Prior {
                warm: warm.take(),
                handed: None,
            },
            format_args!("{t:?}"),
            stage,
        )?;
        let r = &s.result;
        crate::progress::report(
            "exact chain: truncation",
            growths as u64,
            Some(MAX_GROWTHS as u64),
            &format!(
                "{} states, bound {:.1e} (target {:.1e})",
                r.states, r.truncation_bound, target
            ),
        );
        history.push((t, s.face_bound));
        let done = r.digits >= want || r.truncation_bound <= target;
        if done || growths >= MAX_GROWTHS {
            let mut out = s.result;
            out.growths = growths;
            out.stopped = (!done).then_some(Stopped::Growths);
            return Ok(out);
        }
        let next = grown(t, &history, target, decay0, kind);
        if next == t || check_size(system, Some(next), opts.max_states).is_err() {
            // The next truncation would not fit: return what this one certifies, saying
            // which limit stopped it.
            let mut out = s.result;
            out.growths = growths;
            out.stopped = Some(if next == t {
                Stopped::Growths
            } else {
                Stopped::StateLimit {
                    next: Region::Box(next),
                    states: match kind {
                        ModelKind::Queues => state_bound(system.servers(), None, Some(next)),
                        ModelKind::Pools => multisets(system.servers(), u64::from(next.min_level)),
                    },
                    limit: opts.max_states,
                }
            });
            return Ok(out);
        }
        warm = Some(s.pi);
        t = next;
        growths += 1;
    }
}

/// Level (in nats) of the pilot simplex whose marginals give the weights.
const PILOT_LEVEL: f64 = 12.0;
/// Bounds on a weight (nats per unit of a coordinate).
const WEIGHT_RANGE: (f64, f64) = (0.03, 6.0);

/// The weights (nats) of the pilot simplex: the shortest queue's λ^N per level (once
/// every server is busy the total is a birth–death chain of ratio λ, and x_1 ≥ L needs a
/// total ≥ NL), one nat per unit of each gap.
fn pilot_weights(n: usize, lambda: f64) -> Vec<f64> {
    let mut w = vec![1.0; n];
    w[0] = (-(n as f64) * lambda.ln()).clamp(WEIGHT_RANGE.0, WEIGHT_RANGE.1);
    w
}

/// The simplex of weights `w` (nats) and level `k` (nats), in integer units.
fn simplex_of(w: &[f64], k: f64) -> Simplex {
    let mut weights = [0u16; MAXN];
    for (o, &v) in weights.iter_mut().zip(w) {
        *o = (v * SIMPLEX_UNIT).round().clamp(1.0, f64::from(u16::MAX)) as u16;
    }
    Simplex {
        weights,
        level: (k * SIMPLEX_UNIT).round().clamp(1.0, 1e9) as u32,
    }
}

/// The gaps' decay rates (nats per unit) measured on a solved truncation: for each gap
/// t_j, j ≥ 1, the slope of log P(t_j = k) between k = 1 and half-way to the face (where
/// the truncation has not yet bent the tail); the shortest queue's weight is kept.
fn fitted_weights(n: usize, pi: &HashMap<Occ, f64>, pilot: &[f64], level: f64) -> Vec<f64> {
    let mut w = pilot.to_vec();
    for j in 1..n {
        let reach = (0.5 * level / pilot[j]).floor().max(2.0) as usize;
        let mut m = vec![0.0f64; reach + 1];
        for (x, &p) in pi {
            let g = usize::from(x[j] - x[j - 1]);
            if g <= reach {
                m[g] += p;
            }
        }
        let k1 = (2..=reach).rev().find(|&k| m[k] > 0.0);
        if let Some(k1) = k1 {
            if m[1] > 0.0 {
                let rate = (m[1] / m[k1]).ln() / (k1 - 1) as f64;
                if rate.is_finite() {
                    w[j] = rate.clamp(WEIGHT_RANGE.0, WEIGHT_RANGE.1);
                }
            }
        }
    }
    w
}

/// The exponent p_M of the stationary mass beyond the sublevels of a truncation at level
/// `k` nats: the least-squares slope of ln M(K') + K' against ln K' over K' from k/2 to
/// 0.9k (M(K') the mass of π̂ with Σ w_j t_j > K'; the face's own distortion lies above
/// 0.9k). `None` when some M(K') vanishes.
fn tail_exponent(pi: &HashMap<Occ, f64>, region: &Simplex, n: usize, k: f64) -> Option<f64> {
    let mut pts = Vec::with_capacity(9);
    for i in 0..=8 {
        let kk = k * (0.5 + 0.05 * f64::from(i));
        let lim = (kk * SIMPLEX_UNIT) as u64;
        let m: f64 = pi
            .iter()
            .filter(|(x, _)| region.phi(&x[..], n) > lim)
            .map(|(_, &v)| v)
            .sum();
        if !(m > 0.0) {
            return None;
        }
        pts.push((kk.ln(), m.ln() + kk));
    }
    let p = levels::least_squares_slope(&pts);
    p.is_finite().then_some(p)
}

/// The bound's exponent p assumed for the first step of the level (before two levels are
/// solved to fit it), from the first truncation's tail exponent p_M ([`tail_exponent`]):
/// 3.4·p_M − 6.7, at least 2.
///
/// Measured 2026-12-05 (`TASKASSIGN_TRACE_EXACT=1`, the JSQ reference cases at 12 digits):
/// the exponent fitted between the first two levels was 1.8–2.0 times p_M on six of them
/// (p_M 2.4 → 4.4 at N = 5, d = 2, λ = 0.9; 2.6 → 4.7 with replacement; 4.05 → 7.1 at
/// N = 5, d = 5, λ = 0.95 with replacement; 5.0 → 10 without; 3.9 → 7.7 at N = 4, d = 4,
/// λ = 0.95; 4.8 → 9.2 at N = 5, d = 5, λ = 0.9) and 0.93 times on one (3.15 → 2.9 at
/// N = 5, d = 2, λ = 0.95). The first step adds a nat of margin, so what it needs is less
/// than the fitted exponent where that is small: p = 2 lands the cases with p_M ≤ 2.6 in
/// one step, and undershot every case with p_M ≥ 3.9 by a whole truncation (N = 5, d = 5,
/// λ = 0.95 lands with 9.5 or more and not with 9; N = 4, d = 4, λ = 0.95 with 6.6 and not
/// 5.8). The line through those needs was chosen over 1.9·p_M, 2p_M − 2, 2p_M − 1,
/// 2.2p_M − 2 and 3.5p_M − 8, each run side by side on the eight JSQ rows that take more
/// than a second: 1.9·p_M overshot the p_M ≤ 2.6 cases by 7–15 % in states and N = 5,
/// d = 2, λ = 0.95 by 11 % (67 s against 45–48 s), the others undershot N = 5, d = 5,
/// λ = 0.95 or N = 4, d = 4, λ = 0.95. Against p = 2, side by side (seconds, quiet
/// machine): N = 4, d = 4, λ = 0.95 5.5 → 3.3; N = 5, d = 5, λ = 0.9 1.7 → 1.2; λ = 0.95
/// 6.5 → 6.2, with replacement 12.3 → 8.0; N = 5, d = 2, λ = 0.95 74.6 → 42.6 (one
/// truncation of 2 591 657 states instead of two); the p_M ≤ 2.6 cases the same states
/// within 1.3 %. Only the time depends on it: every level solved is still enclosed by its
/// own bound.
fn first_exponent(pm: f64) -> f64 {
    (3.4 * pm - 6.7).clamp(2.0, 20.0)
}

/// Queues with an infinite buffer: a pilot simplex gives the weights ([`fitted_weights`]),
/// then the simplex's level grows by what its own bound says (the bound decays about
/// e^{−1} per nat of level; the rate is measured between levels once two are solved) until
/// the truncation bound leaves the digits asked certain or the next level would exceed
/// the state limit.
fn exact_simplex(
    system: &JsqSystem,
    opts: &ExactOptions,
    want: u32,
) -> Result<ExactResult, LbError> {
    let n = system.servers() as usize;
    let lambda = system.model().lambda();
    let max = opts.max_states;
    let pilot_w = pilot_weights(n, lambda);
    let pilot = simplex_of(&pilot_w, PILOT_LEVEL);
    let pilot_states = pilot.states(n);
    if pilot_states > max as f64 {
        return Err(LbError::Numerical(format!(
            "the exact chain needs more than {max} states even for a first truncation ({pilot_states:.3e} states): use fewer servers, raise --max-states, or use jsq simulate"
        )));
    }
    let clock = std::time::Instant::now();
    let first = solve_chain(
        system,
        Some(Region::Simplex(pilot)),
        want,
        max,
        Prior::default(),
        Stage::Intermediate,
    )?;
    // Seconds per state of a solve, from the pilot (for the estimate shown before each
    // larger solve; the solve's cost grows a little faster than its states).
    let per_state = clock.elapsed().as_secs_f64() / first.result.states.max(1) as f64;
    let weights = fitted_weights(n, &first.pi, &pilot_w, PILOT_LEVEL);
    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
        eprintln!(
            "exact: pilot {} states, bound {:.2e}; weights {weights:?}",
            first.result.states, first.result.truncation_bound
        );
    }
    // The pilot's level is too low for the bound's polynomial factors to fit: the growth
    // model starts from the first level solved.
    let mut history: Vec<(f64, f64)> = Vec::new();
    let mut weights = weights;
    let mut warm = Some(first.pi);
    // The last truncation's re-entry bound that was handed on ([`HandOn`]).
    let mut handed = first.hand;
    let mut best = first.result;
    // A first level from the digits: the mass outside about e^{−K}, relative 10^{−want}.
    let mut k = (f64::from(want) + 1.0) * std::f64::consts::LN_10;
    let mut growths = 0usize;
    let mut last = false;
    let mut tighten = 1.0;
    loop {
        let mut region = simplex_of(&weights, k);
        let mut states = region.states(n);
        if states > max as f64 {
            // The largest level that fits, if it is a step beyond the last one solved.
            let done_k = history.last().map_or(0.0, |h| h.0);
            let (mut lo, mut hi) = (done_k, k);
            for _ in 0..30 {
                let mid = 0.5 * (lo + hi);
                if simplex_of(&weights, mid).states(n) <= max as f64 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if lo < done_k + 1.0 {
                best.growths = growths;
                best.stopped = Some(Stopped::StateLimit {
                    next: Region::Simplex(region),
                    states,
                    limit: max,
                });
                return Ok(best);
            }
            k = lo;
            region = simplex_of(&weights, k);
            states = region.states(n);
            last = true;
        }
        crate::progress::report(
            "exact chain: truncation",
            growths as u64,
            Some(MAX_GROWTHS as u64),
            &format!(
                "solving {states:.0} states (level {k:.1} nats), about {:.1} s",
                1.5 * per_state * states
            ),
        );
        let stage = if last || growths >= MAX_GROWTHS {
            Stage::Final
        } else {
            Stage::Intermediate
        };
        let (s, target) = solve_traced(
            system,
            Region::Simplex(region),
            want,
            max,
            Prior {
                warm: warm.take(),
                handed: handed.as_ref(),
            },
            format_args!("level {k:.2}"),
            stage,
        )?;
        let r = &s.result;
        if r.digits < want && r.truncation_bound <= target && tighten == 1.0 && !last {
            // The bound met its target, yet the enclosure's ends round apart at the last
            // digit asked: a rounding boundary lies inside it (value ± (bound + solve
            // error) spans up to a tenth of a unit of that digit, so this happens in
            // about a tenth of the cases). One more
            // truncation aimed [`STRADDLE_TIGHTEN`] lower usually moves both ends to one
            // side of it; a value closer to the boundary than that keeps the digit it has.
            tighten = STRADDLE_TIGHTEN;
        }
        let target = target * tighten;
        let done = r.digits >= want || r.truncation_bound <= target;
        let bound = r.truncation_bound;
        best = s.result;
        if done || last || growths >= MAX_GROWTHS {
            best.growths = growths;
            best.stopped = match (done, last) {
                (true, _) => None,
                (false, true) => {
                    let next = simplex_of(&weights, k + 1.0);
                    Some(Stopped::StateLimit {
                        next: Region::Simplex(next),
                        states: next.states(n),
                        limit: max,
                    })
                }
                (false, false) => Some(Stopped::Growths),
            };
            return Ok(best);
        }
        // The bound as e^{−K}·K^p (the mass beyond the level decays like e^{−K} when the
        // weights are the decay rates; p collects the polynomial factors: the number of
        // states near the face, the Lyapunov function and the re-entry costs there), p
        // fitted between the last two levels solved; the next level solves
        // e^{−(K'−K)}(K'/K)^p = target/bound, plus a nat of margin.
        let mut p = 2.0;
        if history.is_empty() {
            // The first truncation's own tail: its mass beyond a sublevel K' falls like
            // e^{−K'}·K'^{p_M}, and the bound's exponent measured between two solved levels
            // was 1.8–2 times p_M on the reference cases ([`first_exponent`]).
            let pm = tail_exponent(&s.pi, &simplex_of(&weights, k), n, k);
            if let Some(pm) = pm {
                p = first_exponent(pm);
            }
            if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
                eprintln!("exact: tail exponent p_M {pm:?} at level {k:.2}");
            }
        }
        if let Some(&(k0, b0)) = history.last() {
            if b0.is_finite() && b0 > 0.0 && bound.is_finite() && bound > 0.0 && k > k0 {
                p = (((bound / b0).ln() + (k - k0)) / (k / k0).ln()).clamp(0.0, 20.0);
            }
        }
        history.push((k, bound));
        let next = if bound.is_finite() && bound > 0.0 {
            let gap = (bound / target).ln().max(0.0);
            let mut k1 = k + gap;
            for _ in 0..50 {
                k1 = k + gap + p * (k1 / k).ln();
            }
            k1 + 1.0
        } else {
            1.5 * k
        };
        // The weights again, from this level's marginals (further from the origin than the
        // pilot's, closer to the asymptotic decay rates; never below half the pilot's).
        let refit = fitted_weights(n, &s.pi, &weights, k);
        for (w, r) in weights.iter_mut().zip(refit) {
            *w = r.max(0.5 * *w);
        }
        k = next.clamp(k + 1.0, 2.0 * k);
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            eprintln!("exact: p {p:.2}, next level {k:.2}; weights {weights:?}");
        }
        if s.hand.is_some() {
            handed = s.hand;
        }
        warm = Some(s.pi);
        growths += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::model::{DSpec, Model};

    fn chain(n: usize, d: u64, sampling: Sampling, lambda: f64, p: Simplex) -> OccupancyChain {
        let w: Vec<f64> = p.weights[..n].iter().map(|&v| f64::from(v)).collect();
        OccupancyChain {
            cubic: false,
            kind: ModelKind::Queues,
            n,
            lambda_n: lambda * n as f64,
            buffer: None,
            trunc: Some(Region::Simplex(p)),
            tail: tail_table(n as u64, d, sampling),
            queue_v: simplex_lyapunov(n, d, sampling, lambda, &w, f64::from(p.level)),
            pool_v: None,
        }
    }

    /// Every sorted vector with Σ w_j t_j ≤ K + `extra`, by brute force.
    fn sorted_vectors(n: usize, p: &Simplex, extra: u64) -> Vec<Occ> {
        let mut out = Vec::new();
        let mut x = [0u16; MAXN];
        fn rec(j: usize, n: usize, p: &Simplex, lim: u64, x: &mut Occ, out: &mut Vec<Occ>) {
            if j == n {
                out.push(*x);
                return;
            }
            for v in 0..200u16 {
                let lo = if j == 0 { 0 } else { x[j - 1] };
                x[j] = lo + v;
                if p.phi(x, j + 1) > lim {
                    break;
                }
                rec(j + 1, n, p, lim, x, out);
            }
        }
        rec(0, n, p, u64::from(p.level) + extra, &mut x, &mut out);
        out
    }

    #[test]
    fn the_tail_exponent_is_the_dimension_of_the_face() {
        // π ∝ e^{−Σ w_j t_j} with every weight half a nat: Σ w_j t_j = x_N/2 nats, and the
        // sorted vectors of n servers with x_N = m number C(m + n − 1, n − 1) ~ m^{n−1}, so
        // the mass beyond K' nats falls like K'^{n−1}e^{−K'} (p_M = n − 1, source: that
        // count; lower-order terms of the count and of the sum over m pull the fit over
        // 20–36 nats down by up to a fifth: tolerance 0.25 below, 0.05 above).
        for n in [1usize, 2, 3] {
            let mut w = [0u16; MAXN];
            w[..n].fill(8);
            let k = 40.0;
            let region = Simplex {
                weights: w,
                level: (k * SIMPLEX_UNIT) as u32,
            };
            let pi: HashMap<Occ, f64> = sorted_vectors(n, &region, 0)
                .into_iter()
                .map(|x| {
                    let nats = region.phi(&x[..], n) as f64 / SIMPLEX_UNIT;
                    (x, (-nats).exp())
                })
                .collect();
            let pm = tail_exponent(&pi, &region, n, k).expect("a tail");
            let want = (n - 1) as f64;
            assert!(
                pm > want - 0.25 && pm < want + 0.05,
                "n = {n}: p_M {pm}, expected {want}"
            );
        }
        // An empty tail has no exponent.
        let region = simplex_of(&[1.0], 40.0);
        let pi: HashMap<Occ, f64> = [([0u16; MAXN], 1.0)].into_iter().collect();
        assert_eq!(tail_exponent(&pi, &region, 1, 40.0), None);
    }

    #[test]
    fn a_bound_that_cannot_print_leaves_no_enclosure_with_the_digits_asked() {
        // Expected: no digits. Source: rounding to the nearest (certify_pair rounds both ends
        // at the last digit asked): two ends a unit of that digit or more apart round apart,
        // and the truncation bound widens the enclosure by itself on both sides of the
        // value. Tolerance: exact (digit counts). The means cover both ends of the leading
        // digit and the power of ten (9.999 999 999 999 5, whose enclosure can reach 10).
        // The bound is the least the rule refuses; a bound 0.9 times it is not refused.
        for &mean in &[
            1.0,
            1.000_01,
            3.122_968_895_66,
            4.585_611_170_32,
            9.999,
            9.999_999_999_999_5,
            0.012_5,
        ] {
            for want in [6u32, 10, 12, 14] {
                // The least bound refused, found by bisection on the rule itself.
                let (mut a, mut b) = (0.0f64, mean);
                for _ in 0..200 {
                    let m = 0.5 * (a + b);
                    if cannot_print(m, mean, want) {
                        b = m;
                    } else {
                        a = m;
                    }
                }
                let bound = b;
                assert!(cannot_print(bound, mean, want) && !cannot_print(0.9 * bound, mean, want));
                // The enclosure is at least 2·bound wide; the most favourable place for it
                // is centred on a point of the last digit's grid (the mean rounded there).
                // In 256-bit MPFR: at 12 digits of a number near 10 the margin of the rule
                // (1e-9 of a unit of 1e-11) is below f64's resolution.
                let text = format!("{:.*e}", want as usize - 1, mean);
                let grid = Float::with_val(256, Float::parse(&text).unwrap());
                for shift in [-0.5, -0.25, 0.0, 0.25, 0.5] {
                    let lo = Float::with_val(256, &grid + (shift - 1.0) * bound);
                    let hi = Float::with_val(256, &lo + 2.0 * bound);
                    let c = certify_pair(&lo, &hi, want);
                    assert!(
                        c.digits < want,
                        "mean {mean} want {want}: [{lo}, {hi}] prints {} ({} digits)",
                        c.text,
                        c.digits
                    );
                }
            }
        }
    }

    #[test]
    fn simplex_state_count_is_the_explored_chain() {
        // Two ways: the counting recursion and the breadth-first exploration of the chain
        // (irreducible on A), and a brute-force enumeration.
        let p = simplex_of(&[0.5, 1.3, 2.1], 9.0);
        let c = chain(3, 2, Sampling::Without, 0.8, p);
        let e = levels::explore(&c, 1_000_000).unwrap();
        assert_eq!(p.states(3), e.len() as f64);
        assert_eq!(sorted_vectors(3, &p, 0).len(), e.len());
    }

    #[test]
    fn simplex_lyapunov_drift_holds_outside_by_the_transitions() {
        // The certificate (vertex argument) against the drift computed from the chain's own
        // transitions at every state in a band outside the simplex: κ_1·QV ≤ −1 and
        // κ_G·QV ≤ −T with V = Σx².
        for (n, d, s, lambda) in [
            (3usize, 2u64, Sampling::Without, 0.9),
            (4, 2, Sampling::With, 0.8),
            (4, 4, Sampling::Without, 0.95),
        ] {
            let p = simplex_of(&[-(n as f64) * f64::ln(lambda), 1.2, 2.0, 0.7][..n], 14.0);
            let c = chain(n, d, s, lambda, p);
            let (_, k1, kg) = c.queue_v.expect("a certificate");
            let v = |x: &Occ| -> f64 { x[..n].iter().map(|&a| f64::from(a).powi(2)).sum() };
            let mut out = Vec::new();
            let mut checked = 0;
            for x in sorted_vectors(n, &p, 3 * SIMPLEX_UNIT as u64) {
                if c.inside(&x) {
                    continue;
                }
                out.clear();
                c.transitions(&x, &mut out);
                let qv: f64 = out.iter().map(|(y, r)| r * (v(y) - v(&x))).sum();
                let t = f64::from(c.total(&x));
                assert!(k1 * qv <= -1.0 + 1e-9, "{x:?}: {}", k1 * qv);
                assert!(kg * qv <= -t + 1e-9, "{x:?}: {} vs {t}", kg * qv);
                checked += 1;
            }
            assert!(checked > 100, "{checked}");
        }
    }

    #[test]
    fn ilu_and_gauss_seidel_smoothers_agree_within_their_solve_errors() {
        // One truncated chain solved with each smoother: the Gauss–Seidel solve is the
        // independent reference. Both reach the double-double target residual, and their
        // mean totals differ by at most the two a-posteriori solve errors plus the f64
        // rounding of π̂ (1e-13 relative); their enclosures overlap.
        let p = simplex_of(&[-3.0 * f64::ln(0.9), 1.1, 1.6], 30.0);
        let ch = chain(3, 2, Sampling::Without, 0.9, p);
        let mut got = Vec::new();
        for sm in [levels::Smoother::GaussSeidel, levels::Smoother::Ilu] {
            let mut c = levels::explore(&ch, 1_000_000).unwrap();
            c.smoother = sm;
            let st = levels::stationary(&c).unwrap();
            assert!(st.residual < 1e-18, "{sm:?}: residual {}", st.residual);
            let b = levels::bounds(&ch, &c, &st);
            let g: Vec<f64> = c.states.iter().map(|x| f64::from(ch.total(x))).collect();
            let m: f64 = g.iter().zip(&st.pi).map(|(a, q)| a * q).sum();
            let e = b.enclose(&st, &g, Bounded::ByGrowth(1.0));
            got.push((m, b.solve_error[1], e, c.len()));
        }
        let (m0, e0, ref x0, n0) = got[0];
        let (m1, e1, ref x1, n1) = got[1];
        assert_eq!(n0, n1);
        assert!(n0 > 1000, "{n0} states");
        assert!(
            (m0 - m1).abs() <= e0 + e1 + 1e-13 * m0.abs(),
            "{m0} {m1} ({e0:e}, {e1:e})"
        );
        assert!(x0.lo <= x1.hi && x1.lo <= x0.hi, "{x0:?} {x1:?}");
    }

    #[test]
    fn shared_bound_solves_agree_with_separate_ones() {
        // The bound with its right-hand sides shared (4 solves: V_1, V_G, W_1 and W_G are
        // multiples of Σx² here) against every right-hand side solved on its own (7, the
        // path before the sharing): both are proven upper bounds of the same quantities,
        // differing only by the bound solves' residual corrections (about 1 % of a truncation
        // bound below 1e-9), so the enclosures of the mean total agree to 1e-11.
        let p = simplex_of(&[-3.0 * f64::ln(0.8), 1.1, 1.6], 40.0);
        let ch = chain(3, 2, Sampling::Without, 0.8, p);
        let c = levels::explore(&ch, 1_000_000).unwrap();
        let st = levels::stationary(&c).unwrap();
        let g: Vec<f64> = c.states.iter().map(|x| f64::from(ch.total(x))).collect();
        let mut got = Vec::new();
        for way in [levels::BoundSolves::Shared, levels::BoundSolves::Separate] {
            let opts = levels::BoundOptions {
                solves: way,
                ..levels::BoundOptions::default()
            };
            let b = levels::bounds_opts(&ch, &c, &st, opts);
            got.push((b.solves, b.enclose(&st, &g, Bounded::ByGrowth(1.0))));
        }
        let ((n0, e0), (n1, e1)) = (got[0], got[1]);
        assert_eq!((n0, n1), (4, 7));
        assert!(e0.truncation.is_finite() && e1.truncation.is_finite());
        assert!(e1.truncation < 1e-8 && e1.truncation > 0.0, "{e1:?}");
        assert!((e0.hi - e1.hi).abs() <= 1e-11, "{e0:?} {e1:?}");
        assert!((e0.lo - e1.lo).abs() <= 1e-11, "{e0:?} {e1:?}");
        assert!(
            (e0.truncation - e1.truncation).abs() <= 1e-11,
            "{e0:?} {e1:?}"
        );
    }

    #[test]
    fn loose_bound_solves_with_the_split_correction_agree_with_tight_plain_ones() {
        // The bound's solves as they are now (GMRES cycles to 1e-2, the residual split
        // between b and 1, shared right-hand sides) against the path before them, solved
        // far tighter (cycles to 1e-8, the plain correction x̂ + max r⁺·(−B)⁻¹1, every
        // right-hand side on its own): both are proven upper bounds of the same
        // quantities, so the enclosures of the mean total agree to 1e-11 and the loose
        // truncation bound is within 5 % of the tight one (the design's widening is about
        // BOUND_SLACK = 1 %).
        for (n, lambda, level) in [(3usize, 0.8, 40.0), (4, 0.8, 44.0)] {
            let mut w = vec![-(n as f64) * f64::ln(lambda), 1.1, 1.6, 2.0];
            w.truncate(n);
            let p = simplex_of(&w, level);
            let ch = chain(n, 2, Sampling::Without, lambda, p);
            let mut c = levels::explore(&ch, 1_000_000).unwrap();
            c.smoother = levels::Smoother::Ilu;
            let st = levels::stationary(&c).unwrap();
            let g: Vec<f64> = c.states.iter().map(|x| f64::from(ch.total(x))).collect();
            let tight = levels::BoundOptions {
                solves: levels::BoundSolves::Separate,
                tolerance: 1e-8,
                split: false,
                slack: levels::BOUND_SLACK,
            };
            let loose = levels::BoundOptions::default();
            assert_eq!(loose.tolerance, levels::BOUND_TOLERANCE);
            let e: Vec<_> = [tight, loose]
                .into_iter()
                .map(|o| levels::bounds_opts(&ch, &c, &st, o))
                .map(|b| b.enclose(&st, &g, Bounded::ByGrowth(1.0)))
                .collect();
            let (t, l) = (e[0], e[1]);
            assert!(c.len() > 1000, "{} states", c.len());
            assert!(t.truncation.is_finite() && t.truncation > 0.0, "{t:?}");
            assert!(t.truncation < 1e-6, "{t:?}");
            assert!((t.hi - l.hi).abs() <= 1e-11, "N={n}: {t:?} {l:?}");
            assert!((t.lo - l.lo).abs() <= 1e-11, "N={n}: {t:?} {l:?}");
            assert!(
                l.truncation <= 1.05 * t.truncation && l.truncation >= 0.5 * t.truncation,
                "N={n}: {t:?} {l:?}"
            );
        }
    }

    #[test]
    fn bound_solves_reused_after_a_refinement_agree_with_fresh_ones() {
        // `solve_chain` refines the stationary solve after the bound when its error is too
        // large, and then reuses the bound's solves (`levels::bounds_reusing`: upper bounds
        // of (−B)⁻¹b that do not depend on π̂). Against the bound recomputed from scratch on
        // the refined π̂ (the path before): both are proven upper bounds of the same
        // quantities, differing only by the preconditioner weights of their solves (π̂ at
        // two residuals), so the enclosures of the mean total agree to 1e-11 absolute and
        // the truncation bounds within 5 % (the bound solves' design widening is about
        // BOUND_SLACK = 1 %, as in the test of the loose solves above); and both contain
        // the mean total of the same chain on a simplex 16 nats larger (its enclosure
        // half-width below 1e-3 of their truncation bound).
        for (n, lambda, level) in [(3usize, 0.9, 34.0), (4, 0.8, 40.0)] {
            let mut w = vec![-(n as f64) * f64::ln(lambda), 1.1, 1.6, 2.0];
            w.truncate(n);
            let solved = |level: f64| {
                let ch = chain(n, 2, Sampling::Without, lambda, simplex_of(&w, level));
                let mut c = levels::explore(&ch, 2_000_000).unwrap();
                c.smoother = levels::Smoother::Ilu;
                (ch, c)
            };
            let (ch, c) = solved(level);
            let g: Vec<f64> = c.states.iter().map(|x| f64::from(ch.total(x))).collect();
            let loose = levels::stationary_from(&c, None, 1e-12).unwrap();
            assert!(
                loose.residual > levels::TARGET_RESIDUAL,
                "{}",
                loose.residual
            );
            let mut cache = levels::BoundSolveCache::default();
            let first = levels::bounds_reusing(&ch, &c, &loose, &mut cache);
            assert_eq!(first.solves, 4);
            let st = levels::stationary_from(&c, Some(&loose.pi), levels::TARGET_RESIDUAL).unwrap();
            let reused = levels::bounds_reusing(&ch, &c, &st, &mut cache);
            assert_eq!(reused.solves, 0);
            let fresh = levels::bounds(&ch, &c, &st);
            assert_eq!(fresh.solves, 4);
            let r = reused.enclose(&st, &g, Bounded::ByGrowth(1.0));
            let f = fresh.enclose(&st, &g, Bounded::ByGrowth(1.0));
            let case = format!("N={n} λ={lambda} level {level}");
            assert!(c.len() > 1000, "{case}: {} states", c.len());
            assert!(
                f.truncation.is_finite() && f.truncation > 0.0,
                "{case}: {f:?}"
            );
            assert!(f.truncation < 1e-6, "{case}: {f:?}");
            assert!((r.hi - f.hi).abs() <= 1e-11, "{case}: {r:?} {f:?}");
            assert!((r.lo - f.lo).abs() <= 1e-11, "{case}: {r:?} {f:?}");
            assert!(
                r.truncation <= 1.05 * f.truncation && r.truncation >= f.truncation / 1.05,
                "{case}: {r:?} {f:?}"
            );
            let (bch, bc) = solved(level + 16.0);
            let bst = levels::stationary(&bc).unwrap();
            let bg: Vec<f64> = bc.states.iter().map(|x| f64::from(bch.total(x))).collect();
            let big = levels::bounds(&bch, &bc, &bst).enclose(&bst, &bg, Bounded::ByGrowth(1.0));
            assert!(
                big.hi - big.lo < 1e-3 * f.truncation,
                "{case}: {big:?} against {f:?}"
            );
            for e in [r, f] {
                assert!(
                    e.lo <= big.lo && big.hi <= e.hi,
                    "{case}: {e:?} misses {big:?}"
                );
            }
        }
    }

    #[test]
    fn a_bound_handed_on_from_a_smaller_truncation_holds_and_is_near_its_own() {
        // A truncation A bounded from a smaller A′'s re-entry bound (`levels::bounds_handed`,
        // no solve on A) against the same A bounded by its own solves, and against the mean
        // total of a simplex 16 nats larger than A (its enclosure half-width below 1e-3 of
        // A's truncation bound): the handed enclosure must contain the larger one, and its
        // truncation bound must be at least what the larger one shows A's error to be
        // (|π̂ − π̂'| minus the larger one's half-width and A's solve error) and within
        // 1.5 times A's own bound (measured 2026-12-07: 1.0-1.1). The handed bound must be
        // refused where it does not apply: A's chain with its own Lyapunov functions (not
        // A′'s), and a bound handed from A to the smaller A′.
        for (n, lambda, small, level) in [(3usize, 0.9, 20.0, 34.0), (4, 0.8, 24.0, 40.0)] {
            let mut w = vec![-(n as f64) * f64::ln(lambda), 1.1, 1.6, 2.0];
            w.truncate(n);
            let case = format!("N={n} λ={lambda} levels {small} and {level}");
            let ch_small = chain(n, 2, Sampling::Without, lambda, simplex_of(&w, small));
            let mut c_small = levels::explore(&ch_small, 2_000_000).unwrap();
            c_small.smoother = levels::Smoother::Ilu;
            let st_small = levels::stationary(&c_small).unwrap();
            let mut cache = levels::BoundSolveCache::default();
            let (b_small, h) = levels::bounds_handing(&ch_small, &c_small, &st_small, &mut cache);
            let h = h.unwrap_or_else(|| panic!("{case}: nothing handed on: {b_small:?}"));
            assert_eq!(h.len(), c_small.len(), "{case}");
            // A under A′'s certificate, then reweighed with its own.
            let own_chain = chain(n, 2, Sampling::Without, lambda, simplex_of(&w, level));
            let inherited = OccupancyChain {
                queue_v: ch_small.queue_v,
                cubic: ch_small.cubic,
                tail: own_chain.tail.clone(),
                ..own_chain
            };
            let mut c = levels::explore(&inherited, 2_000_000).unwrap();
            c.smoother = levels::Smoother::Ilu;
            let st = levels::stationary(&c).unwrap();
            let g: Vec<f64> = c
                .states
                .iter()
                .map(|x| f64::from(own_chain.total(x)))
                .collect();
            let bh = levels::bounds_handed(&inherited, &c, &st, &h)
                .unwrap_or_else(|| panic!("{case}: the handed bound was refused"));
            assert_eq!(bh.solves, 0, "{case}");
            assert!(
                levels::bounds_handed(&own_chain, &c, &st, &h).is_none(),
                "{case}: accepted under other Lyapunov functions"
            );
            let eh = bh.enclose(&st, &g, Bounded::ByGrowth(1.0));
            c.reweigh(&own_chain);
            let own = levels::bounds(&own_chain, &c, &st);
            // Reweighing gives what exploring under the own certificate gives.
            let mut fresh = levels::explore(&own_chain, 2_000_000).unwrap();
            fresh.smoother = levels::Smoother::Ilu;
            assert_eq!(fresh.len(), c.len(), "{case}");
            let fresh_b = levels::bounds(&own_chain, &fresh, &levels::stationary(&fresh).unwrap());
            assert!(
                (fresh_b.outside[1][0] - own.outside[1][0]).abs() <= 1e-9 * own.outside[1][0],
                "{case}: {fresh_b:?} against {own:?}"
            );
            let eo = own.enclose(&st, &g, Bounded::ByGrowth(1.0));
            assert!(
                eh.truncation.is_finite() && eh.truncation <= 1.5 * eo.truncation,
                "{case}: handed {eh:?} own {eo:?}"
            );
            // The larger truncation.
            let big_chain = chain(
                n,
                2,
                Sampling::Without,
                lambda,
                simplex_of(&w, level + 16.0),
            );
            let mut bc = levels::explore(&big_chain, 4_000_000).unwrap();
            bc.smoother = levels::Smoother::Ilu;
            let bst = levels::stationary(&bc).unwrap();
            let bg: Vec<f64> = bc
                .states
                .iter()
                .map(|x| f64::from(big_chain.total(x)))
                .collect();
            let big =
                levels::bounds(&big_chain, &bc, &bst).enclose(&bst, &bg, Bounded::ByGrowth(1.0));
            assert!(
                big.hi - big.lo < 1e-3 * eo.truncation,
                "{case}: {big:?} against {eo:?}"
            );
            assert!(
                eh.lo <= big.lo && big.hi <= eh.hi,
                "{case}: {eh:?} misses {big:?}"
            );
            let shown = (eh.value - 0.5 * (big.lo + big.hi)).abs()
                - 0.5 * (big.hi - big.lo)
                - bh.solve_error[1];
            assert!(
                eh.truncation >= shown,
                "{case}: {eh:?}, error at least {shown:e}"
            );
            eprintln!(
                "{case}: handed {:.3e} own {:.3e} error at least {shown:.3e}",
                eh.truncation, eo.truncation
            );
            // A bound handed from A down to A′ ⊂ A is refused (A is not inside A′).
            let mut cache = levels::BoundSolveCache::default();
            let (_, h_big) = levels::bounds_handing(&own_chain, &c, &st, &mut cache);
            let h_big = h_big.unwrap();
            let down = OccupancyChain {
                queue_v: own_chain.queue_v,
                cubic: own_chain.cubic,
                tail: ch_small.tail.clone(),
                ..ch_small
            };
            let mut c_down = levels::explore(&down, 2_000_000).unwrap();
            c_down.smoother = levels::Smoother::Ilu;
            assert!(
                levels::bounds_handed(&down, &c_down, &st_small, &h_big).is_none(),
                "{case}: a bound handed down was accepted"
            );
        }
    }

    #[test]
    fn simplex_and_box_agree_within_their_enclosures() {
        // The same chain on two truncations of different shapes: the enclosures overlap.
        let m = Model::new(ModelKind::Queues, "0.8", None).unwrap();
        let sys = JsqSystem::new(m, 3, &DSpec::Fixed(2), Sampling::Without).unwrap();
        let a = exact(
            &sys,
            &ExactOptions {
                digits: 10,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(matches!(a.truncation, Some(Region::Simplex(_))));
        let b = exact(
            &sys,
            &ExactOptions {
                digits: 10,
                truncation: Some(Truncation {
                    min_level: 80,
                    spread: 30,
                }),
                ..Default::default()
            },
        )
        .unwrap();
        let (x, y) = (&a.mean_tasks, &b.mean_tasks);
        assert!(x.lo <= y.hi && y.lo <= x.hi, "{x:?} {y:?}");
        assert!(x.digits >= 10, "{x:?}");
    }

    #[test]
    fn the_truncation_bound_is_within_twice_the_error_it_bounds() {
        // The truncation bound of mean_tasks on a simplex, against the same chain on a
        // simplex 16-20 nats larger (its own bound below 1e-14 of the difference): with
        // e' the larger one's enclosure half-width and s the smaller one's solve error,
        // every valid bound of the smaller truncation's error is at least
        // L = |π̂ − π̂'| − e' − s (π lies in the larger enclosure). So bound ≥ L checks
        // that the bound holds, and bound ≤ 2L that no valid bound could be more than
        // twice smaller, i.e. move the truncation by more than ln 2 nats: the redirected
        // chain's own error, ε̂ times the cost of a cycle's remainder after an exit, is
        // what sets the level (module docs), not slack in the re-entry term. Measured
        // (2026-12-03): bound/L 1.2-1.3 at N = 3, 1.5 at N = 4, 1.6 with d = 3 at
        // λ = 0.95 (and 1.6-1.8 at N = 5, d = 2, λ = 0.9, levels 33-42.7 against 47.2
        // nats, too slow for a test).
        let sys = |n: u64, d: u64, s: Sampling, l: &str| {
            let m = Model::new(ModelKind::Queues, l, None).unwrap();
            JsqSystem::new(m, n, &DSpec::Fixed(d), s).unwrap()
        };
        for (n, d, s, lambda, gaps, k, big) in [
            (
                3u64,
                2u64,
                Sampling::Without,
                "0.9",
                &[1.1, 1.6][..],
                28.0,
                48.0,
            ),
            (3, 2, Sampling::Without, "0.9", &[1.1, 1.6][..], 34.0, 52.0),
            (
                4,
                2,
                Sampling::Without,
                "0.9",
                &[1.2, 1.7, 2.1][..],
                28.0,
                44.0,
            ),
            (3, 3, Sampling::With, "0.95", &[1.1, 1.6][..], 30.0, 48.0),
        ] {
            let system = sys(n, d, s, lambda);
            let lam: f64 = lambda.parse().unwrap();
            let mut w = vec![-(n as f64) * lam.ln()];
            w.extend_from_slice(gaps);
            let solve = |level: f64| {
                let r = Region::Simplex(simplex_of(&w, level));
                solve_chain(
                    &system,
                    Some(r),
                    14,
                    4_000_000,
                    Prior::default(),
                    Stage::Final,
                )
                .unwrap()
                .result
            };
            let (a, b) = (solve(k), solve(big));
            let bound = a.truncation_bound;
            let m = &b.mean_tasks;
            let e_big = (m.hi - m.value).max(m.value - m.lo);
            let diff = (a.mean_tasks.value - m.value).abs();
            let least = diff - e_big - a.solve_error;
            let case = format!("N={n} d={d} {s:?} λ={lambda} level {k} vs {big}");
            assert!(e_big < 1e-3 * diff, "{case}: {e_big:e} vs {diff:e}");
            assert!(
                least > 0.0 && bound.is_finite(),
                "{case}: {least:e} {bound:e}"
            );
            assert!(
                bound >= least,
                "{case}: bound {bound:e} below the error {least:e}"
            );
            assert!(
                bound <= 2.0 * least,
                "{case}: bound {bound:e} above twice the error {least:e}"
            );
            eprintln!("{case}: bound/error {:.3}", bound / least);
        }
    }
}
