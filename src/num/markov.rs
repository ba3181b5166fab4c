//! Continuous-time Markov chains on an enumerated state space, and their stationary
//! distributions.
//!
//! A chain is given by a [`Ctmc`]: a state type and the transitions out of a state as
//! (target, rate) pairs. [`explore`] enumerates the states reachable from a start by
//! breadth-first search and stores the generator sparsely (compressed rows).
//! [`stationary`] solves π Q = 0, Σ π = 1:
//! * **dense** (small chains, at most [`DENSE_LIMIT`] states): the transposed generator
//!   with its last equation replaced by Σ π = 1, solved by LU with partial pivoting
//!   (nalgebra); the result is clipped at 0 and renormalised (round-off only);
//! * **Gauss–Seidel** (larger chains): π_j ← Σ_{i≠j} π_i q_ij / q_j in BFS order, with the
//!   new values used at once (Stewart, *Introduction to the Numerical Solution of Markov
//!   Chains*, 1994, §3.2), renormalised every sweep, stopped when the residual
//!   ‖π Q‖₁ / max_j q_j falls below the tolerance.
//!
//! The residual is what is controlled: a small residual bounds the error of π only up to
//! the chain's condition number, which is not estimated here; callers that need an error
//! compare two solves (the JSQ exact values compare dense with iterative on mid-size
//! chains, and truncations against their doubles).

use nalgebra::{DMatrix, DVector};
use std::collections::HashMap;
use std::hash::Hash;
use thiserror::Error;

/// Largest chain solved densely by [`Solver::Auto`].
pub const DENSE_LIMIT: usize = 600;
/// Default residual tolerance of the iterative solve.
pub const DEFAULT_RESIDUAL: f64 = 1e-13;
/// Default limit on Gauss–Seidel sweeps.
pub const DEFAULT_MAX_SWEEPS: usize = 200_000;
/// Sweeps between residual evaluations.
const RESIDUAL_EVERY: usize = 10;

/// Errors of the Markov-chain layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum MarkovError {
    /// More states than allowed.
    #[error("more than {0} states")]
    TooManyStates(usize),
    /// The iterative solve did not reach its residual.
    #[error("Gauss-Seidel: residual {residual:e} after {sweeps} sweeps (wanted {wanted:e})")]
    NoConvergence {
        /// Last residual.
        residual: f64,
        /// Sweeps done.
        sweeps: usize,
        /// Tolerance.
        wanted: f64,
    },
    /// A singular dense system (a reducible chain).
    #[error("the generator is singular: is the chain irreducible?")]
    Singular,
    /// A negative or non-finite rate.
    #[error("bad transition rate {0}")]
    BadRate(f64),
}

impl crate::error::Classify for MarkovError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            MarkovError::TooManyStates(_) => ErrorKind::Input,
            MarkovError::NoConvergence { .. } | MarkovError::Singular => ErrorKind::Numerical,
            MarkovError::BadRate(_) => ErrorKind::Internal,
        }
    }
}

/// A continuous-time Markov chain given by its transitions.
pub trait Ctmc {
    /// A state.
    type State: Clone + Eq + Hash;
    /// Appends the transitions out of `s` as (target, rate) to `out` (rates > 0; a
    /// transition to `s` itself is ignored; repeated targets are added up).
    fn transitions(&self, s: &Self::State, out: &mut Vec<(Self::State, f64)>);
}

/// An enumerated chain with its generator in compressed rows.
#[derive(Debug, Clone)]
pub struct MarkovChain<S> {
    /// The states, in BFS order from the start.
    pub states: Vec<S>,
    /// Index of each state.
    pub index: HashMap<S, usize>,
    offsets: Vec<usize>,
    targets: Vec<u32>,
    rates: Vec<f64>,
}

impl<S> MarkovChain<S> {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// True when there is no state.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The transitions (target index, rate) out of state i.
    pub fn row(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        self.targets[a..b]
            .iter()
            .zip(&self.rates[a..b])
            .map(|(&j, &r)| (j as usize, r))
    }

    /// The total rate out of state i.
    pub fn out_rate(&self, i: usize) -> f64 {
        self.rates[self.offsets[i]..self.offsets[i + 1]]
            .iter()
            .sum()
    }
}

/// Enumerates the states reachable from `start` (breadth-first), at most `max_states`.
pub fn explore<C: Ctmc>(
    c: &C,
    start: C::State,
    max_states: usize,
) -> Result<MarkovChain<C::State>, MarkovError> {
    let mut states = vec![start.clone()];
    let mut index = HashMap::new();
    index.insert(start, 0usize);
    let mut offsets = vec![0usize];
    let mut targets = Vec::new();
    let mut rates = Vec::new();
    let mut out = Vec::new();
    let mut row: Vec<(u32, f64)> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        out.clear();
        c.transitions(&states[i], &mut out);
        row.clear();
        for (t, r) in out.drain(..) {
            if !(r.is_finite() && r >= 0.0) {
                return Err(MarkovError::BadRate(r));
            }
            if r == 0.0 {
                continue;
            }
            let j = match index.get(&t) {
                Some(&j) => j,
                None => {
                    if states.len() >= max_states {
                        return Err(MarkovError::TooManyStates(max_states));
                    }
                    let j = states.len();
                    index.insert(t.clone(), j);
                    states.push(t);
                    j
                }
            };
            if j != i {
                row.push((j as u32, r));
            }
        }
        push_merged_row(&mut row, &mut targets, &mut rates);
        offsets.push(targets.len());
        i += 1;
    }
    Ok(MarkovChain {
        states,
        index,
        offsets,
        targets,
        rates,
    })
}

/// Which solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// Dense up to [`DENSE_LIMIT`] states, Gauss–Seidel above.
    #[default]
    Auto,
    /// Dense LU.
    Dense,
    /// Gauss–Seidel with the residual stopping rule.
    GaussSeidel,
    /// The two-level GMRES of [`crate::num::levels`] (a level chain; reported, never asked
    /// of [`stationary`], which treats it as `Auto`).
    Levels,
}

/// Options of [`stationary`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveOptions {
    /// Which solver.
    pub solver: Solver,
    /// Residual ‖πQ‖₁ / max_j q_j at which Gauss–Seidel stops.
    pub residual: f64,
    /// Most sweeps.
    pub max_sweeps: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            solver: Solver::Auto,
            residual: DEFAULT_RESIDUAL,
            max_sweeps: DEFAULT_MAX_SWEEPS,
        }
    }
}

/// A stationary distribution with its residual.
#[derive(Debug, Clone, PartialEq)]
pub struct Stationary {
    /// π, in the chain's state order.
    pub pi: Vec<f64>,
    /// ‖π Q‖₁ / max_j q_j.
    pub residual: f64,
    /// The solver used (never `Auto`).
    pub solver: Solver,
    /// Gauss–Seidel sweeps (0 for dense).
    pub sweeps: usize,
}

/// ‖π Q‖₁ / max_j q_j.
pub fn residual<S>(chain: &MarkovChain<S>, pi: &[f64]) -> f64 {
    let n = chain.len();
    let mut flow = vec![0.0; n];
    let mut max_out: f64 = 0.0;
    for (i, &p) in pi.iter().enumerate() {
        let mut out = 0.0;
        for (j, r) in chain.row(i) {
            flow[j] += p * r;
            out += r;
        }
        flow[i] -= p * out;
        max_out = max_out.max(out);
    }
    let s: f64 = flow.iter().map(|x| x.abs()).sum();
    if max_out > 0.0 {
        s / max_out
    } else {
        s
    }
}

/// The stationary distribution of an irreducible chain.
pub fn stationary<S>(
    chain: &MarkovChain<S>,
    opts: &SolveOptions,
) -> Result<Stationary, MarkovError> {
    stationary_from(chain, opts, None)
}

/// [`stationary`] with a starting guess for the iterative solve (e.g. the solution on a
/// smaller truncation of the same chain, zero on the new states); the dense solve ignores
/// it. The guess changes the sweeps needed, not the stopping rule.
pub fn stationary_from<S>(
    chain: &MarkovChain<S>,
    opts: &SolveOptions,
    guess: Option<&[f64]>,
) -> Result<Stationary, MarkovError> {
    let n = chain.len();
    if n == 1 {
        return Ok(Stationary {
            pi: vec![1.0],
            residual: 0.0,
            solver: Solver::Dense,
            sweeps: 0,
        });
    }
    let dense = match opts.solver {
        Solver::Dense => true,
        Solver::GaussSeidel => false,
        Solver::Auto | Solver::Levels => n <= DENSE_LIMIT,
    };
    if dense {
        dense_solve(chain)
    } else {
        gauss_seidel(chain, opts, guess)
    }
}

fn dense_solve<S>(chain: &MarkovChain<S>) -> Result<Stationary, MarkovError> {
    let n = chain.len();
    // A = Qᵀ: A[j][i] = q_ij, A[i][i] = −q_i; the last row becomes Σ π = 1.
    let mut a = DMatrix::<f64>::zeros(n, n);
    for i in 0..n {
        let mut out = 0.0;
        for (j, r) in chain.row(i) {
            a[(j, i)] += r;
            out += r;
        }
        a[(i, i)] -= out;
    }
    for i in 0..n {
        a[(n - 1, i)] = 1.0;
    }
    let mut b = DVector::<f64>::zeros(n);
    b[n - 1] = 1.0;
    let x = a.lu().solve(&b).ok_or(MarkovError::Singular)?;
    let mut pi: Vec<f64> = x.iter().map(|v| v.max(0.0)).collect();
    let s: f64 = pi.iter().sum();
    if !(s > 0.0 && s.is_finite()) {
        return Err(MarkovError::Singular);
    }
    for p in &mut pi {
        *p /= s;
    }
    let residual = residual(chain, &pi);
    Ok(Stationary {
        pi,
        residual,
        solver: Solver::Dense,
        sweeps: 0,
    })
}

fn gauss_seidel<S>(
    chain: &MarkovChain<S>,
    opts: &SolveOptions,
    guess: Option<&[f64]>,
) -> Result<Stationary, MarkovError> {
    let n = chain.len();
    // Incoming transitions in compressed columns.
    let mut counts = vec![0usize; n + 1];
    for i in 0..n {
        for (j, _) in chain.row(i) {
            counts[j + 1] += 1;
        }
    }
    for j in 0..n {
        counts[j + 1] += counts[j];
    }
    let mut fill = counts.clone();
    let mut from = vec![0u32; counts[n]];
    let mut rate = vec![0.0; counts[n]];
    for i in 0..n {
        for (j, r) in chain.row(i) {
            from[fill[j]] = i as u32;
            rate[fill[j]] = r;
            fill[j] += 1;
        }
    }
    let out: Vec<f64> = (0..n).map(|i| chain.out_rate(i)).collect();
    if out.iter().any(|&o| o <= 0.0) {
        return Err(MarkovError::Singular);
    }
    let mut pi = match guess {
        Some(g)
            if g.len() == n
                && g.iter().all(|x| x.is_finite() && *x >= 0.0)
                && g.iter().sum::<f64>() > 0.0 =>
        {
            let s: f64 = g.iter().sum();
            g.iter().map(|x| x / s).collect()
        }
        _ => vec![1.0 / n as f64; n],
    };
    let mut res = f64::INFINITY;
    for sweep in 1..=opts.max_sweeps {
        for j in 0..n {
            let mut s = 0.0;
            for k in counts[j]..counts[j + 1] {
                s += pi[from[k] as usize] * rate[k];
            }
            pi[j] = s / out[j];
        }
        let total: f64 = pi.iter().sum();
        for p in &mut pi {
            *p /= total;
        }
        if sweep % RESIDUAL_EVERY == 0 {
            res = residual(chain, &pi);
            if res <= opts.residual {
                return Ok(Stationary {
                    pi,
                    residual: res,
                    solver: Solver::GaussSeidel,
                    sweeps: sweep,
                });
            }
        }
    }
    Err(MarkovError::NoConvergence {
        residual: res,
        sweeps: opts.max_sweeps,
        wanted: opts.residual,
    })
}

/// Appends a row of (target, rate) transitions to the compressed arrays `targets` and
/// `rates`, sorted by target, with the rates of a repeated target summed (in the row's
/// order after the sort): the one layout of [`Ctmc`] and of the level chains.
pub(crate) fn push_merged_row(
    row: &mut [(u32, f64)],
    targets: &mut Vec<u32>,
    rates: &mut Vec<f64>,
) {
    row.sort_unstable_by_key(|e| e.0);
    let mut k = 0;
    while k < row.len() {
        let (j, mut r) = row[k];
        k += 1;
        while k < row.len() && row[k].0 == j {
            r += row[k].1;
            k += 1;
        }
        targets.push(j);
        rates.push(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The M/M/1/K queue: π_k ∝ ρ^k (closed form).
    struct Mm1k {
        lambda: f64,
        k: u32,
    }
    impl Ctmc for Mm1k {
        type State = u32;
        fn transitions(&self, s: &u32, out: &mut Vec<(u32, f64)>) {
            if *s < self.k {
                out.push((s + 1, self.lambda));
            }
            if *s > 0 {
                out.push((s - 1, 1.0));
            }
        }
    }

    fn check(pi: &[f64], chain: &MarkovChain<u32>, rho: f64, tol: f64) {
        let k = chain.len();
        let norm: f64 = (0..k).map(|i| rho.powi(i as i32)).sum();
        for (i, s) in chain.states.iter().enumerate() {
            let exact = rho.powi(*s as i32) / norm;
            assert!(
                (pi[i] - exact).abs() <= tol,
                "state {s}: {} vs {exact}",
                pi[i]
            );
        }
    }

    #[test]
    fn dense_and_gauss_seidel_match_the_closed_form() {
        let c = Mm1k { lambda: 0.7, k: 40 };
        let chain = explore(&c, 0, 1000).unwrap();
        assert_eq!(chain.len(), 41);
        // The two solvers, the other options at their defaults.
        let by = |solver| {
            let opts = SolveOptions {
                solver,
                ..Default::default()
            };
            stationary(&chain, &opts).unwrap()
        };
        let d = by(Solver::Dense);
        check(&d.pi, &chain, 0.7, 1e-14);
        let g = by(Solver::GaussSeidel);
        assert!(g.residual <= DEFAULT_RESIDUAL && g.sweeps > 0);
        check(&g.pi, &chain, 0.7, 1e-11);
    }

    #[test]
    fn too_many_states_is_an_error() {
        let c = Mm1k { lambda: 0.7, k: 40 };
        assert_eq!(
            explore(&c, 0, 10).unwrap_err(),
            MarkovError::TooManyStates(10)
        );
    }

    #[test]
    fn repeated_targets_are_added() {
        struct Two;
        impl Ctmc for Two {
            type State = bool;
            fn transitions(&self, s: &bool, out: &mut Vec<(bool, f64)>) {
                // 0 → 1 at 1 + 2, 1 → 0 at 1; π = (1/4, 3/4).
                if !*s {
                    out.push((true, 1.0));
                    out.push((true, 2.0));
                    out.push((false, 5.0));
                } else {
                    out.push((false, 1.0));
                }
            }
        }
        let chain = explore(&Two, false, 10).unwrap();
        assert_eq!(chain.out_rate(0), 3.0);
        let s = stationary(&chain, &SolveOptions::default()).unwrap();
        assert!((s.pi[0] - 0.25).abs() < 1e-15 && (s.pi[1] - 0.75).abs() < 1e-15);
    }
}
