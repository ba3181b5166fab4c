//! Finite-N exact values: the stationary distribution of the N-server JSQ(d) chain.
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
//! **Truncation of an infinite buffer.** Truncating every server at K converges slowly
//! (for example N = 5, λ = 0.9, K = 30 is still off by 10⁻⁵), because the
//! probability that one server is long is not small. JSQ keeps the queues close together,
//! so the chain is truncated instead in the shortest queue's length (x_1 ≤ L) and in the
//! spread (x_N − x_1 ≤ S): transitions that would leave that set are suppressed (the
//! arrival or departure does not happen). With `None` the truncation is chosen by growing
//! (L, S) ([`Truncation::grown`]: each bound while the stationary mass on its boundary is
//! not small) until the results move by less than the tolerance, and the last change is
//! reported — the check that the truncation does not matter at the printed digits. Each
//! solve starts from the previous truncation's distribution (zero on the new states),
//! which saves up to nine tenths of the Gauss–Seidel sweeps.
//! A finite buffer needs no truncation (L = S = b covers every state).
//!
//! **Outputs.** Mean tasks per server, the occupancy q_i = E\[A_i\]/N, the blocking
//! probability E\[P(all d sampled full)\] (by PASTA the fraction of arrivals discarded),
//! the number of states and the truncation.

use super::model::{tail_table, LbError, ModelKind, System};
use crate::num::markov::{explore, stationary_from, Ctmc, MarkovError, SolveOptions};
use std::collections::HashMap;

/// Default tolerance on the change of any output when the truncation is grown.
pub const DEFAULT_TRUNCATION_TOLERANCE: f64 = 1e-10;
/// Default limit on the number of states.
pub const DEFAULT_MAX_STATES: usize = 2_000_000;
/// Most growths of the truncation.
pub const MAX_GROWTHS: usize = 40;
/// Spread added at each growth of the truncation.
pub const SPREAD_STEP: u32 = 2;
/// A truncation boundary is grown while its stationary mass exceeds the tolerance divided
/// by this.
pub const BOUNDARY_FACTOR: f64 = 10.0;
/// Largest level a state may hold (states are stored as `u16`).
pub const MAX_LEVEL: u32 = u16::MAX as u32 - 1;

/// A truncation of an infinite buffer: shortest queue ≤ `min_level`, longest − shortest
/// ≤ `spread`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// L: the largest shortest-queue length kept.
    pub min_level: u32,
    /// S: the largest spread kept.
    pub spread: u32,
}

impl Truncation {
    /// The next truncation tried after a solve whose boundaries carried `mass` (shortest
    /// queue at L, spread at S): L grows by half (the shortest queue's tail is geometric)
    /// and S by [`SPREAD_STEP`] (the states grow like S^(N−1)), each only while its
    /// boundary carries more than `tol` / [`BOUNDARY_FACTOR`]; both when neither does.
    pub fn grown(self, mass: (f64, f64), tol: f64) -> Self {
        let small = tol / BOUNDARY_FACTOR;
        let (grow_l, grow_s) = match (mass.0 > small, mass.1 > small) {
            (false, false) => (true, true),
            other => other,
        };
        Truncation {
            min_level: if grow_l {
                self.min_level.saturating_add(self.min_level.div_ceil(2))
            } else {
                self.min_level
            },
            spread: if grow_s {
                self.spread.saturating_add(SPREAD_STEP)
            } else {
                self.spread
            },
        }
    }
}

/// Options of [`exact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactOptions {
    /// The truncation of an infinite buffer; `None` chooses it by growing it.
    pub truncation: Option<Truncation>,
    /// Largest change of any output accepted when the truncation is grown.
    pub tolerance: f64,
    /// Most states.
    pub max_states: usize,
    /// The stationary solve.
    pub solve: SolveOptions,
}

impl Default for ExactOptions {
    fn default() -> Self {
        ExactOptions {
            truncation: None,
            tolerance: DEFAULT_TRUNCATION_TOLERANCE,
            max_states: DEFAULT_MAX_STATES,
            solve: SolveOptions::default(),
        }
    }
}

/// The exact stationary values of a finite system.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactResult {
    /// Mean tasks per server.
    pub mean_tasks: f64,
    /// q_1, q_2, … (to the highest level reached).
    pub occupancy: Vec<f64>,
    /// Probability that an arrival is discarded (0 without a buffer).
    pub blocking: f64,
    /// Number of states.
    pub states: usize,
    /// The truncation used (`None` for a finite buffer).
    pub truncation: Option<Truncation>,
    /// The largest change of an output against the previous (smaller) truncation, when
    /// the truncation was chosen by growing it.
    pub truncation_change: Option<f64>,
    /// Residual of the stationary solve.
    pub residual: f64,
    /// Gauss–Seidel sweeps of the stationary solve (0 for a dense solve).
    pub sweeps: usize,
    /// Stationary mass on the truncation's two boundaries: states whose shortest queue is
    /// L, and states whose spread is S (0 without a truncation).
    pub boundary_mass: (f64, f64),
}

/// Most significant digits an f64 value is printed with.
pub const F64_DIGITS: u32 = 15;
/// Exact-chain levels below this occupancy are not printed (below every error estimate
/// the chain's f64 solve reaches).
pub const EXACT_OCCUPANCY_FLOOR: f64 = 1e-15;
/// An exact level is printed while it exceeds its error estimate by this factor (one
/// certain digit).
pub const EXACT_DIGIT_MARGIN: f64 = 10.0;
/// Relative accuracy of a converged stationary solve taken into every exact value's
/// error estimate (the Gauss–Seidel stopping rule of `num::markov` is far tighter; this
/// covers the f64 sums over up to 10⁶ states).
pub const EXACT_SOLVE_RELATIVE: f64 = 1e-12;

/// Significant digits of `x` that an absolute error `err` leaves certain (at least 1, at
/// most [`F64_DIGITS`]).
///
/// ```
/// use taskassign::lb::exact::digits_within;
/// assert_eq!(digits_within(0.123456789, 1e-6), 5);
/// assert_eq!(digits_within(0.5, 0.0), 15);
/// ```
pub fn digits_within(x: f64, err: f64) -> u32 {
    if x == 0.0 || err <= 0.0 {
        return F64_DIGITS;
    }
    let d = (x.abs() / err).log10().floor();
    if d.is_finite() {
        (d as i64).clamp(1, i64::from(F64_DIGITS)) as u32
    } else {
        1
    }
}

/// The error model of an exact value: the truncation's last change plus the solve's
/// relative accuracy [`EXACT_SOLVE_RELATIVE`].
impl ExactResult {
    /// The error estimate of a value x of this solve: the truncation's last change plus
    /// [`EXACT_SOLVE_RELATIVE`] · |x|.
    pub fn error_of(&self, x: f64) -> f64 {
        self.truncation_change.unwrap_or(0.0) + EXACT_SOLVE_RELATIVE * x.abs()
    }

    /// The significant digits of a value x of this solve that its error leaves certain
    /// ([`digits_within`]; a value so small that its relative part underflows is held to
    /// the error of the smallest normal f64).
    pub fn digits_of(&self, x: f64) -> u32 {
        digits_within(x, self.error_of(x.abs().max(f64::MIN_POSITIVE)))
    }

    /// q_1, q_2, … while at least one digit is certain: each level at least
    /// [`EXACT_OCCUPANCY_FLOOR`] and [`EXACT_DIGIT_MARGIN`] times its error.
    pub fn certain_levels(&self) -> &[f64] {
        let n = self
            .occupancy
            .iter()
            .take_while(|&&q| {
                q >= EXACT_OCCUPANCY_FLOOR
                    && q > EXACT_DIGIT_MARGIN * self.error_of(q.max(f64::MIN_POSITIVE))
            })
            .count();
        &self.occupancy[..n]
    }
}

/// The sorted-occupancy chain.
struct OccupancyChain {
    kind: ModelKind,
    n: usize,
    lambda_n: f64,
    /// The capacity, or the truncation's bounds.
    buffer: Option<u32>,
    trunc: Option<Truncation>,
    /// p(k) = P(min of the d sampled ≥ i | A_i = k).
    tail: Vec<f64>,
}

impl OccupancyChain {
    fn allowed(&self, x: &[u16]) -> bool {
        match self.trunc {
            None => true,
            Some(t) => {
                let (lo, hi) = (u32::from(x[0]), u32::from(x[self.n - 1]));
                lo <= t.min_level && hi - lo <= t.spread && hi <= MAX_LEVEL
            }
        }
    }
}

impl Ctmc for OccupancyChain {
    type State = Vec<u16>;

    fn transitions(&self, x: &Vec<u16>, out: &mut Vec<(Vec<u16>, f64)>) {
        let n = self.n;
        // Blocks of equal values: [start, end).
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
            if p > 0.0 && !full {
                let mut y = x.clone();
                y[end - 1] = v.saturating_add(1);
                if self.allowed(&y) {
                    out.push((y, self.lambda_n * p));
                }
            }
            if v >= 1 {
                let rate = (end - start) as f64 * self.kind.service_rate(usize::from(v));
                let mut y = x.clone();
                y[start] = v - 1;
                if self.allowed(&y) {
                    out.push((y, rate));
                }
            }
            start = end;
        }
    }
}

fn markov(e: MarkovError) -> LbError {
    match e {
        MarkovError::TooManyStates(k) => LbError::BadInput(format!(
            "the exact chain has more than {k} states: use fewer servers or the simulator"
        )),
        other => LbError::Numerical(format!("exact chain: {other}")),
    }
}

/// The stationary distribution of the last solve, by state (the warm start of the next,
/// larger truncation).
type Warm = HashMap<Vec<u16>, f64>;

fn solve_once(
    system: &System,
    trunc: Option<Truncation>,
    opts: &ExactOptions,
    warm: Option<&mut Warm>,
) -> Result<ExactResult, LbError> {
    let n = system.servers() as usize;
    let model = system.model();
    let chain = OccupancyChain {
        kind: model.kind(),
        n,
        lambda_n: model.lambda() * n as f64,
        buffer: model.buffer(),
        trunc,
        tail: tail_table(system.servers(), system.d().d, system.sampling()),
    };
    let c = explore(&chain, vec![0u16; n], opts.max_states).map_err(markov)?;
    let guess: Option<Vec<f64>> = warm.as_ref().map(|w| {
        c.states
            .iter()
            .map(|x| w.get(x).copied().unwrap_or(0.0))
            .collect()
    });
    let st = stationary_from(&c, &opts.solve, guess.as_deref()).map_err(markov)?;
    if let Some(w) = warm {
        w.clear();
        w.extend(c.states.iter().cloned().zip(st.pi.iter().copied()));
    }
    let top = c
        .states
        .iter()
        .map(|x| usize::from(x[n - 1]))
        .max()
        .unwrap_or(0);
    let mut occ = vec![0.0; top];
    let mut tasks = 0.0;
    let mut blocking = 0.0;
    let mut boundary = (0.0, 0.0);
    for (x, &p) in c.states.iter().zip(&st.pi) {
        if let Some(t) = trunc {
            let (lo, hi) = (u32::from(x[0]), u32::from(x[n - 1]));
            if lo == t.min_level {
                boundary.0 += p;
            }
            if hi - lo == t.spread {
                boundary.1 += p;
            }
        }
        for &v in x {
            tasks += p * f64::from(v);
            for q in occ.iter_mut().take(usize::from(v)) {
                *q += p;
            }
        }
        if let Some(b) = model.buffer() {
            let full = x.iter().filter(|&&v| u32::from(v) >= b).count();
            blocking += p * chain.tail[full];
        }
    }
    let nf = n as f64;
    for q in &mut occ {
        *q /= nf;
    }
    Ok(ExactResult {
        mean_tasks: tasks / nf,
        occupancy: occ,
        blocking,
        states: c.len(),
        truncation: trunc,
        truncation_change: None,
        residual: st.residual,
        sweeps: st.sweeps,
        boundary_mass: boundary,
    })
}

/// The largest change between two results (mean tasks, blocking, every level).
fn change(a: &ExactResult, b: &ExactResult) -> f64 {
    let levels = a.occupancy.len().max(b.occupancy.len());
    let at = |r: &ExactResult, i: usize| r.occupancy.get(i).copied().unwrap_or(0.0);
    let mut m = (a.mean_tasks - b.mean_tasks)
        .abs()
        .max((a.blocking - b.blocking).abs());
    for i in 0..levels {
        m = m.max((at(a, i) - at(b, i)).abs());
    }
    m
}

/// The first truncation tried for an infinite buffer.
pub fn initial_truncation(system: &System) -> Truncation {
    let l = system.model().lambda().ceil() as u32;
    Truncation {
        min_level: l + 4,
        spread: 4,
    }
}

/// C(n + k, k) in f64 (an upper bound on state counts; +∞ when it overflows).
fn multisets(n: u64, k: u64) -> f64 {
    (1..=k).fold(1.0, |acc, j| acc * (n + j) as f64 / j as f64)
}

/// The number of states of the sorted-occupancy chain at most: C(N + b, b) sorted vectors
/// on [0, b] for a buffer b; (L + 1) C(N − 1 + S, S) for a truncation (the shortest queue
/// m ≤ L, the other N − 1 lengths in [m, m + S]).
///
/// ```
/// use taskassign::lb::exact::{state_bound, Truncation};
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

/// Bad input when even the first chain to solve would exceed the state limit (refused
/// before any state is explored, so that a large N fails at once).
fn check_size(system: &System, trunc: Option<Truncation>, max: usize) -> Result<(), LbError> {
    let bound = state_bound(system.servers(), system.model().buffer(), trunc);
    if bound > max as f64 {
        return Err(LbError::BadInput(format!(
            "the exact chain would have up to {bound:.3e} states (more than {max}): use fewer servers or the simulator"
        )));
    }
    Ok(())
}

/// The exact stationary values of `system` (module docs).
pub fn exact(system: &System, opts: &ExactOptions) -> Result<ExactResult, LbError> {
    if let Some(b) = system.model().buffer() {
        if b > MAX_LEVEL {
            return Err(LbError::BadInput(format!(
                "exact values support buffers up to {MAX_LEVEL}"
            )));
        }
        check_size(system, None, opts.max_states)?;
        return solve_once(system, None, opts, None);
    }
    if let Some(t) = opts.truncation {
        check_size(system, Some(t), opts.max_states)?;
        return solve_once(system, Some(t), opts, None);
    }
    let mut t = initial_truncation(system);
    check_size(system, Some(t), opts.max_states)?;
    let mut warm = Warm::new();
    let mut prev = solve_once(system, Some(t), opts, Some(&mut warm))?;
    for _ in 0..MAX_GROWTHS {
        t = t.grown(prev.boundary_mass, opts.tolerance);
        let mut next = solve_once(system, Some(t), opts, Some(&mut warm))?;
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            eprintln!(
                "exact: {t:?} states {} sweeps {} change {:e} boundary {:?}",
                next.states,
                next.sweeps,
                change(&prev, &next),
                next.boundary_mass
            );
        }
        let c = change(&prev, &next);
        next.truncation_change = Some(c);
        if c <= opts.tolerance {
            return Ok(next);
        }
        prev = next;
    }
    Err(LbError::Numerical(format!(
        "exact chain: growing the truncation {MAX_GROWTHS} times still moved the results by {:e}",
        prev.truncation_change.unwrap_or(f64::NAN)
    )))
}
