//! Truncated level chains: stationary means of an infinite CTMC computed on a finite set A,
//! with an enclosure that contains the infinite chain's value.
//!
//! **Setting.** An irreducible positive-recurrent CTMC on a countable set, given by a
//! [`LevelChain`]: every state has a level (total tasks, total jobs) that a transition moves
//! by at most one, the one state of level 0 is the regeneration state z, and a finite
//! truncation A ∋ z. Transitions that leave A ("exits") are redirected to z: the computed
//! chain is the original one with every excursion out of A cut short (Infanger & Glynn, *A
//! new truncation algorithm for Markov chain equilibrium distributions with computable error
//! bounds*, arXiv 2208.14406, 2022). Its stationary distribution π̂ is, by the regenerative
//! ratio formula, π̂(f) = a_f / a_1 with a_f = E_z[∫_0^{τ_z ∧ σ} f(X_t) dt] (τ_z the return
//! to z, σ the first exit), while the true chain has π(f) = (a_f + b_f)/(a_1 + b_1), b_f
//! the contribution of the cycles' remainders after an exit (Asmussen, *Applied Probability
//! and Queues*, 2003, Thm VI.1.2).
//!
//! **The enclosure (proven for exact arithmetic).** Let V_1, V_G ≥ 0 satisfy the drift
//! conditions QV_1 ≤ −1 and QV_G ≤ −G on the complement of A (G the chain's growth
//! functional, e.g. the level), and W_1, W_G ≥ 0 satisfy QW_g ≤ 0 there (the shapes the
//! re-entry costs are compared with; [`LevelChain::lyapunov`]). Let σ be the first
//! re-entry into A of an excursion from y ∉ A. By Dynkin's formula (the comparison theorem,
//! Meyn & Tweedie, *Markov Chains and Stochastic Stability*, 2009, Thm 14.2.2, in
//! continuous time) the excursion accumulates at most V_g(y) − E_y V_g(X_σ) of g, and
//! E_y W_g(X_σ) ≤ W_g(y) (W_g ≥ 0 is superharmonic outside A; optional stopping with
//! Fatou). Inside A, with B the generator restricted to A ∖ {z} (exits and z absorbing;
//! −B a nonsingular M-matrix), â_g = (−B)⁻¹g (the cost accumulated before z or an exit),
//! v̂_g = (−B)⁻¹e_{V_g} and ŵ_g = (−B)⁻¹e_{W_g} (e_V(x) = Σ_{y ∉ A} q(x, y)V(y)), and
//! p̂ = (−B)⁻¹e (e the exit rate: p̂ is the probability of an exit before z).
//!
//! *The re-entry term.* Let u_g(w) = E_w[∫_0^{τ_z} g] be the cost of returning to z from
//! w. If α, β ≥ 0 satisfy, at every state w where the chain can enter A,
//!
//! α(1 − p̂(w)) + β(W_g(w) − ŵ_g(w)) ≥ â_g(w) + v̂_g(w) − V_g(w),   (R)
//!
//! then u_g(w) ≤ V_g(w) + α + βW_g(w) at those states, and the remainder of a cycle after
//! an exit to y costs at most V_g(y) + α + βW_g(y). Proof, by induction on the number m
//! of re-entries allowed (u_g^m: the cost up to z or the (m+1)-th exit, which increases
//! to u_g as m → ∞ by monotone convergence): u_g^0 ≤ â_g ≤ V_g + α + βW_g by (R), since
//! v̂_g, p̂ and ŵ_g are ≥ 0; if u_g^m ≤ V_g + α + βW_g at the entry states, an exit to y
//! followed by up to m re-entries costs at most V_g(y) − E V_g(X_σ) + E u_g^m(X_σ) ≤
//! V_g(y) + α + βW_g(y) (the two facts above), so u_g^{m+1} ≤ â_g + v̂_g + αp̂ + βŵ_g
//! ≤ V_g + α + βW_g by (R). With β = 0 the least α is the largest
//! (â_g + v̂_g − V_g)/(1 − p̂) over the entry states (the fixed point of the earlier form
//! of this bound). The solves give upper bounds of p̂, ŵ_g and â_g + v̂_g, not their exact
//! values; with those in (R) it only gets harder to meet, so the (α, β) found from them
//! are feasible for the exact ones. The least ε̂α + βF(W_g) over (R) is found by [`reentry_lp`]; any feasible
//! (α, β) is a valid bound, so the LP's own accuracy only affects the width.
//! Renewal–reward over the computed chain's cycles then gives, for 0 ≤ f ≤ g,
//!
//! π̂(f) / (1 + F(V_1) + ε̂α_1 + β_1F(W_1)) ≤ π(f) ≤ π̂(f) + F(V_g) + ε̂α_g + β_gF(W_g),
//!
//! with ε̂ = Σ_x π̂(x) e(x) the exit rate and F(V) = Σ_x π̂(x) e_V(x), both under π̂. Every
//! ingredient is computed on A; the bound shrinks with the stationary flux out of A, which
//! decays geometrically as A grows. Without a Lyapunov certificate ([`LevelChain::lyapunov`]
//! returns `None`) only π̂ is computed and no enclosure is claimed.
//!
//! *How tight it is.* The upper bound is the error of the redirected chain itself within a
//! small factor: π(f) − π̂(f) = (b_f − π̂(f)b_1)/(a_1 + b_1) exactly, so the error is ε̂
//! times the mean cost, beyond its share, of a cycle's remainder after an exit (the return
//! from the face of A to z), not the mass outside A. Against a truncation 16–20 nats larger
//! (the test `the_truncation_bound_is_within_twice_the_error_it_bounds` of `lb::exact`,
//! 2026-12-03), the JSQ(d) bound of the mean total is 1.2–1.8 times the least any valid
//! bound of that π̂ could be (N = 3–5, λ = 0.9–0.95; 1.8 at N = 5, d = 2, λ = 0.9, level 33
//! nats). At N = 5, d = 2, λ = 0.9 the redirected chain at the level where the mass outside
//! A is 1e−12 (38.2 nats) is really 4.7e−9 off per server. What remains in the bound (the
//! −π̂(f)b_1 it drops, the Lyapunov overestimate of the return cost) is worth at most ln
//! 1.8 ≈ 0.6 nats of level; a truncation with a smaller error needs another redirection of
//! the exits, not a tighter re-entry term.
//!
//! **A bound handed on.** A larger truncation A ⊇ A′ needs no solve of its own for the
//! re-entry term ([`bounds_handed`]). Under A′'s Lyapunov functions (they satisfy the drift
//! conditions outside A′, so outside A too), the induction above gives u_g ≤ â′_g + v̂′_g +
//! αp̂′ + βŵ′_g at every state of A′ and u_g ≤ V_g + α + βW_g at every state outside it,
//! for any (α, β) feasible in A′'s (R). The remainder of a cycle after an exit from A to
//! y ∉ A costs u_g(y), so the renewal–reward bound holds with A's own π̂, ε̂, F(V_g) and
//! F(W_g) and A′'s constraints (the LP is solved again with A's objective). The solve's
//! error needs upper bounds of (−B_A)⁻¹b on A: (−B_A)⁻¹g ≤ u_g (the cost before z or an
//! exit is at most the cost before z), p̂_A ≤ p̂′ on A′ (an exit from A first exits A′)
//! and ≤ 1 elsewhere, and (−B_A)⁻¹e_V ≤ p̂_A times the largest mean of V over one state's
//! exit targets. These are coarser than a solve's own (about ten times at N = 5, d = 2,
//! λ = 0.95), so the stationary solve is taken further; the truncation bound is the same
//! within a few per cent when the Lyapunov functions scale alike (JSQ(d): within 10 %;
//! the redundancy chains' certificate does not depend on the truncation).
//!
//! **The solve.** One sub-generator −B serves everything: the stationary vector of the
//! redirected chain is y(−B) = ν (ν the rates out of z, y(z) = 1, π̂ = y / Σy), and the
//! bound's ingredients are solves (−B)x = b. Both are solved by a two-level method over the
//! levels (Stewart, *Introduction to the Numerical Solution of Markov Chains*, 1994, §6.3,
//! iterative aggregation–disaggregation): a Gauss–Seidel sweep, and a correction constant
//! in shape on each level whose level amplitudes solve the tridiagonal level chain exactly.
//! The level direction (near-critical at high load) is what makes plain Gauss–Seidel slow;
//! the coarse solve removes it. A chain with further slow directions splits each level
//! into groups ([`Explored::set_groups`]: the redundancy chains by the classes' shares);
//! the amplitudes per (level, group) then solve a block-tridiagonal system exactly. The stationary vector is refined with residuals summed in
//! double-double (Knuth's TwoSum and an FMA product), so that it is not limited by the f64
//! condition of −B. Its error is bounded a posteriori: −B is an M-matrix, so for a residual
//! r = ν − ŷ(−B), |(y − ŷ)·f| ≤ Σ_x |r(x)| ((−B)⁻¹f)(x), and any x̂ with residual
//! r = b − (−B)x̂ gives (−B)⁻¹b ≤ (x̂ + max(r⁺ − δb)⁺·(−B)⁻¹1)/(1 − δ) for every
//! δ ∈ [0, 1), with (−B)⁻¹1 ≤ x̂_1 / (1 − max r_1⁺) (Varga, *Matrix Iterative Analysis*,
//! 2000, Thm 3.18: (−B)⁻¹ ≥ 0); so the bound's solves need only a loose residual.
//!
//! What is proven and what is not: the enclosure holds for the exact π̂ and the exact solves;
//! the solve's error is bounded from residuals computed in double-double, and the bound's own
//! arithmetic is f64 (relative rounding about 10⁻¹⁵ on quantities that only widen the
//! enclosure). Directed rounding of those residuals is what an interval version would add.

mod bounds;
mod krylov;
mod par;

pub use bounds::*;

use crate::progress;
use krylov::{gmres, Ilu};
use rustc_hash::FxHashMap;
use std::hash::Hash;
use thiserror::Error;

/// Most refinement steps of the stationary solve.
pub const MAX_CYCLES: usize = 30;
/// Gauss–Seidel sweeps per preconditioning cycle.
const SWEEPS_PER_CYCLE: usize = 1;
/// Krylov vectors kept by GMRES before a restart (the default of [`Explored::restart`]).
pub const GMRES_RESTART: usize = 24;
/// Inner GMRES iterations per refinement step of the stationary solve.
const INNER_ITERATIONS: usize = 300;
/// Relative residual each inner solve aims at (the refinement repeats it), at the most: a
/// cycle that only has to take the residual from rel to the target aims at
/// [`INNER_MARGIN`]·target/rel instead ([`stationary_from`]).
const INNER_TOLERANCE: f64 = 1e-11;
/// The loosest inner tolerance a cycle aims at, and the margin below the reduction it needs
/// (the inner solve measures the 2-norm, the stop the 1-norm of the double-double residual).
const INNER_LOOSEST: f64 = 1e-2;
const INNER_MARGIN: f64 = 0.1;
/// The stationary solve stops when the residual, relative to the rates out of z, is below
/// this (double-double residuals reach it; the enclosure uses the residual it got).
pub const TARGET_RESIDUAL: f64 = 1e-22;
/// The stationary solve also stops when a cycle no longer shrinks the residual by this
/// factor over [`STALL_CYCLES`] cycles.
const STALL_FACTOR: f64 = 0.5;
/// Cycles over which a stall is judged.
const STALL_CYCLES: usize = 2;
/// The bound's GMRES solves (−B)x = b stop each cycle at this relative residual (2-norm).
/// They only widen the enclosure, and their residual is accounted for rigorously
/// ([`corrected`]): a loose solve gives a valid but wider upper bound, never a smaller one.
/// At N = 5, d = 2, λ = 0.9 (604 469 states) a cycle reaches 1e−2 in about 10 GMRES
/// iterations against 20 for 1e−4, and the truncation bound of mean_tasks is 1.70e−12
/// against 1.69e−12 with cycles to 1e−5.
pub const BOUND_TOLERANCE: f64 = 1e-2;
/// A bound solve is refined (another GMRES cycle on its residual) while the residual
/// correction widens its upper bound by more than this fraction at some state where the
/// chain enters A (where the re-entry bound reads it), relative to that state's bound or
/// [`SLACK_FLOOR`] of the largest bound there, whichever is larger.
pub const BOUND_SLACK: f64 = 0.01;
/// The floor of [`BOUND_SLACK`]'s relative measure, as a fraction of the largest bound on
/// the boundary (the exit probabilities' solve has boundary states whose own value is
/// negligible; their widening is judged against the ones that matter).
const SLACK_FLOOR: f64 = 1e-2;
/// Points of the logarithmic scan of the re-entry LP.
const REENTRY_GRID: usize = 140;
/// Golden-section steps of the re-entry LP.
const REENTRY_ITERATIONS: usize = 80;
/// Most refinement steps of one bound solve.
const MAX_BOUND_CYCLES: usize = 3;

/// Errors of a level-chain solve.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum LevelError {
    /// More states than allowed (found while exploring A).
    #[error("the truncated chain has more than {limit} states")]
    TooManyStates {
        /// The limit.
        limit: usize,
    },
    /// A state other than z at level 0, a transition skipping a level, or a bad rate.
    #[error("not a level chain: {0}")]
    NotLevelChain(String),
    /// The stationary solve did not reach a usable residual.
    #[error("the stationary solve stalled at residual {residual:e} after {cycles} cycles")]
    NoConvergence {
        /// Relative residual reached.
        residual: f64,
        /// Cycles done.
        cycles: usize,
    },
}

impl crate::error::Classify for LevelError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            LevelError::TooManyStates { .. } => ErrorKind::Input,
            LevelError::NoConvergence { .. } => ErrorKind::Numerical,
            LevelError::NotLevelChain(_) => ErrorKind::Internal,
        }
    }
}

/// A CTMC with a level structure and a finite truncation (module docs).
pub trait LevelChain {
    /// A state.
    type State: Clone + Eq + Hash;
    /// The regeneration state z: the only state of level 0.
    fn start(&self) -> Self::State;
    /// The level; a transition changes it by at most one.
    fn level(&self, s: &Self::State) -> u32;
    /// Whether `s` is in the truncation A.
    fn inside(&self, s: &Self::State) -> bool;
    /// All transitions out of `s` (targets inside or outside A), rates > 0.
    fn transitions(&self, s: &Self::State, out: &mut Vec<(Self::State, f64)>);
    /// The growth functional G ≥ 0 whose Lyapunov function is V_G.
    fn growth(&self, s: &Self::State) -> f64;
    /// (V_1, V_G, W_1, W_G) at `s`: nonnegative, with QV_1 ≤ −1, QV_G ≤ −G, QW_1 ≤ 0 and
    /// QW_G ≤ 0 at every state outside A (W_g: the shapes that the costs of returning to z
    /// are compared with, growing like them); `None` when no certificate is known (then no
    /// enclosure is claimed).
    fn lyapunov(&self, s: &Self::State) -> Option<[f64; 4]>;
    /// Whether the chain can enter A at `s` from outside (a superset is allowed).
    fn on_boundary(&self, s: &Self::State) -> bool;
    /// States of A that the chain may reach only through states outside A (pockets of a
    /// truncation that is not closed under the moves inside it): they are explored after
    /// the states reachable from z, so that every state where an excursion can re-enter A
    /// is in the re-entry bound. A superset of A's pockets is allowed (states outside A are
    /// skipped). None by default.
    fn seeds(&self) -> Vec<Self::State> {
        Vec::new()
    }
    /// The number of states of A when it is known before exploring (an upper bound is
    /// allowed): [`explore`] then reserves its per-state arrays and its index at once
    /// instead of doubling them as it goes (a doubled array holds up to twice the states'
    /// memory, and its copy is briefly held twice). None by default.
    fn size_hint(&self) -> Option<usize> {
        None
    }
    /// Which face of A an exit to `s` (outside A) crosses, below [`FACES`]: the bound is
    /// reported per face, so that a caller grows the face that matters.
    fn exit_face(&self, _s: &Self::State) -> usize {
        0
    }
}

/// Faces of a truncation whose bound contributions are kept apart.
pub const FACES: usize = 2;

/// The exits of one state: rate and Σ rate·V(y) over the exit targets y, per face.
#[derive(Debug, Clone, Copy)]
struct ExitRow {
    state: u32,
    face: u8,
    rate: f64,
    /// Σ rate·V_1(y), Σ rate·V_G(y), Σ rate·W_1(y), Σ rate·W_G(y).
    v: [f64; 4],
}

/// The truncation A enumerated, with its sub-generator.
#[derive(Debug, Clone)]
pub struct Explored<S> {
    /// The states, z first, in breadth-first order.
    pub states: Vec<S>,
    /// The level of each state.
    pub level: Vec<u32>,
    /// Outgoing transitions inside A (compressed rows), z excluded as a target.
    out_off: Vec<usize>,
    out_to: Vec<u32>,
    out_rate: Vec<f64>,
    /// Incoming transitions inside A (compressed columns), z excluded as a source.
    in_off: Vec<usize>,
    in_from: Vec<u32>,
    in_rate: Vec<f64>,
    /// Total rate out of each state (inside, to z, and exits).
    pub total: Vec<f64>,
    /// Rate of the exits out of A, per state.
    pub exit: Vec<f64>,
    /// The exits with their Lyapunov sums, by state and face.
    exits: Vec<ExitRow>,
    /// The states where the chain can enter A.
    boundary: Vec<u32>,
    /// Whether a Lyapunov certificate is known.
    pub certified: bool,
    /// Highest level.
    pub top: u32,
    /// The smoother of the two-level solves ([`Smoother::GaussSeidel`] unless the caller
    /// asks for another after [`explore`]).
    pub smoother: Smoother,
    /// Krylov vectors GMRES keeps before a restart ([`GMRES_RESTART`] unless the caller
    /// sets another after [`explore`]): restart × states × 8 bytes of memory; a longer
    /// basis costs more orthogonalisation per iteration and fewer iterations where
    /// restarted GMRES stagnates.
    pub restart: usize,
    /// The group of each state within its level for the coarse correction
    /// ([`Explored::set_groups`]); empty: one aggregate per level.
    groups: Vec<u8>,
    /// Groups per level (1: the level correction alone).
    group_count: usize,
}

/// The smoother of the two-level solves: what is applied around the level correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Smoother {
    /// One Gauss–Seidel sweep in state order.
    #[default]
    GaussSeidel,
    /// An incomplete LU factorisation of −B without fill (ILU(0), Saad 2003, §10.3), a step
    /// before and after the level correction. It exists and has positive pivots for an
    /// M-matrix (Meijerink & van der Vorst, Math. Comp. 31, 1977); it only changes how fast
    /// the residual falls, never the residuals the enclosure is computed from.
    Ilu,
}

impl<S> Explored<S> {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Recomputes the exits' Lyapunov sums and whether a certificate is known with
    /// `chain`'s Lyapunov functions: the chain explored (the same truncation, states and
    /// rates) under another certificate, e.g. a smaller truncation's for
    /// [`bounds_handed`], then its own for [`bounds`].
    pub fn reweigh<C: LevelChain<State = S>>(&mut self, chain: &C) {
        let mut certified = self
            .boundary
            .iter()
            .all(|&i| chain.lyapunov(&self.states[i as usize]).is_some());
        let mut buf = Vec::new();
        for row in &mut self.exits {
            buf.clear();
            chain.transitions(&self.states[row.state as usize], &mut buf);
            let mut v = [0.0f64; 4];
            for (t, r) in buf.drain(..) {
                if r == 0.0
                    || chain.inside(&t)
                    || chain.exit_face(&t).min(FACES - 1) != usize::from(row.face)
                {
                    continue;
                }
                match chain.lyapunov(&t) {
                    Some(l) => {
                        for (a, b) in v.iter_mut().zip(l) {
                            *a += r * b;
                        }
                    }
                    None => certified = false,
                }
            }
            row.v = v;
        }
        self.certified = certified;
    }

    /// True when A is empty (never: z is in A).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Number of transitions stored (each once per direction).
    pub fn transitions(&self) -> usize {
        self.out_to.len()
    }

    /// Splits each level's aggregate of the coarse correction into `count` groups, state x
    /// in `groups[x]` (in exploration order; z's entry is ignored): the correction is then
    /// constant in shape on each (level, group) and its amplitudes solve a block-tridiagonal
    /// system of `count` × `count` blocks exactly (Stewart 1994, §6.3: aggregation over any
    /// partition; the levels keep it block-tridiagonal). A chain whose slow directions are
    /// not the level alone (several starved classes) gives the solver one aggregate per
    /// direction. `count` = 1 (or an empty `groups`) is the level correction alone, the
    /// default. Only the speed of the solves changes, never their residuals.
    pub fn set_groups(&mut self, count: usize, groups: Vec<u8>) -> Result<(), LevelError> {
        if count <= 1 || groups.is_empty() {
            self.group_count = 1;
            self.groups = Vec::new();
            return Ok(());
        }
        if groups.len() != self.len() || count > MAX_GROUPS {
            return Err(LevelError::NotLevelChain(format!(
                "{} groups for {} states, {count} per level (at most {MAX_GROUPS})",
                groups.len(),
                self.len()
            )));
        }
        if let Some(g) = groups.iter().skip(1).find(|&&g| usize::from(g) >= count) {
            return Err(LevelError::NotLevelChain(format!(
                "group {g} of {count} per level"
            )));
        }
        self.group_count = count;
        self.groups = groups;
        Ok(())
    }

    /// Groups per level of the coarse correction ([`Explored::set_groups`]).
    pub fn group_count(&self) -> usize {
        self.group_count
    }
}

/// Most groups per level of the coarse correction ([`Explored::set_groups`]).
pub const MAX_GROUPS: usize = 32;

/// What the computed chain does with a transition out of A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitRule {
    /// The chain restarts from z: the regenerative enclosure applies (module docs).
    Redirect,
    /// The transition does not happen (arrivals blocked): usually closer to the infinite
    /// chain, but with no proven bound; the caller compares truncations instead.
    Block,
}

/// Enumerates A from z (breadth-first), at most `max_states` states, exits redirected.
pub fn explore<C: LevelChain>(c: &C, max_states: usize) -> Result<Explored<C::State>, LevelError> {
    explore_with(c, max_states, ExitRule::Redirect)
}

/// [`explore`] with the exit rule given.
pub fn explore_with<C: LevelChain>(
    c: &C,
    max_states: usize,
    rule: ExitRule,
) -> Result<Explored<C::State>, LevelError> {
    let z = c.start();
    if c.level(&z) != 0 {
        return Err(LevelError::NotLevelChain("z is not at level 0".into()));
    }
    // FxHash: states are looked up once per transition, and SipHash's DoS resistance buys
    // nothing on keys we generate (the numbering is the exploration order, not the map's).
    let hint = c.size_hint().map_or(0, |h| h.min(max_states));
    let mut index: FxHashMap<C::State, u32> = FxHashMap::default();
    index.reserve(hint);
    index.insert(z.clone(), 0);
    let mut states = Vec::with_capacity(hint.max(1));
    states.push(z);
    let mut level = Vec::with_capacity(hint.max(1));
    level.push(0u32);
    let mut out_off = Vec::with_capacity(hint + 1);
    out_off.push(0usize);
    let mut out_to: Vec<u32> = Vec::new();
    let mut out_rate: Vec<f64> = Vec::new();
    let mut total = Vec::with_capacity(hint);
    let mut exit = Vec::with_capacity(hint);
    let mut exits: Vec<ExitRow> = Vec::new();
    let mut boundary: Vec<u32> = Vec::new();
    let mut certified = true;
    let mut buf = Vec::new();
    let mut row: Vec<(u32, f64)> = Vec::new();
    let mut i = 0usize;
    let mut top = 0u32;
    let mut seeded = false;
    loop {
        if i == states.len() {
            if seeded {
                break;
            }
            seeded = true;
            for t in c.seeds() {
                if !c.inside(&t) || index.contains_key(&t) {
                    continue;
                }
                if states.len() >= max_states {
                    return Err(LevelError::TooManyStates { limit: max_states });
                }
                index.insert(t.clone(), states.len() as u32);
                level.push(c.level(&t));
                states.push(t);
            }
            if i == states.len() {
                break;
            }
        }
        if i % 65_536 == 0 && i > 0 {
            progress::report(
                "exact chain: states",
                i as u64,
                None,
                &format!("{} found", states.len()),
            );
        }
        let s = states[i].clone();
        let ls = level[i];
        top = top.max(ls);
        if c.on_boundary(&s) {
            boundary.push(i as u32);
            if c.lyapunov(&s).is_none() {
                certified = false;
            }
        }
        buf.clear();
        c.transitions(&s, &mut buf);
        row.clear();
        let mut tot = 0.0;
        let mut ex = 0.0;
        let mut rows_here = [(0.0f64, [0.0f64; 4]); FACES];
        for (t, r) in buf.drain(..) {
            if !(r.is_finite() && r >= 0.0) {
                return Err(LevelError::NotLevelChain(format!("rate {r}")));
            }
            if r == 0.0 || t == s {
                continue;
            }
            let lt = c.level(&t);
            if lt.abs_diff(ls) > 1 {
                return Err(LevelError::NotLevelChain(format!(
                    "a transition from level {ls} to {lt}"
                )));
            }
            if !c.inside(&t) {
                if rule == ExitRule::Block {
                    continue;
                }
                tot += r;
                ex += r;
                let face = c.exit_face(&t).min(FACES - 1);
                let row = &mut rows_here[face];
                row.0 += r;
                match c.lyapunov(&t) {
                    Some(v) => {
                        for (a, b) in row.1.iter_mut().zip(v) {
                            *a += r * b;
                        }
                    }
                    None => certified = false,
                }
                continue;
            }
            tot += r;
            let j = match index.get(&t) {
                Some(&j) => j,
                None => {
                    if states.len() >= max_states {
                        return Err(LevelError::TooManyStates { limit: max_states });
                    }
                    let j = states.len() as u32;
                    index.insert(t.clone(), j);
                    states.push(t);
                    level.push(lt);
                    j
                }
            };
            if j != 0 {
                row.push((j, r));
            }
        }
        if lt_zero_other(i, ls) {
            return Err(LevelError::NotLevelChain(
                "a state other than z at level 0".into(),
            ));
        }
        crate::num::markov::push_merged_row(&mut row, &mut out_to, &mut out_rate);
        out_off.push(out_to.len());
        total.push(tot);
        exit.push(ex);
        for (face, (rate, v)) in rows_here.iter().enumerate() {
            if *rate > 0.0 {
                exits.push(ExitRow {
                    state: i as u32,
                    face: face as u8,
                    rate: *rate,
                    v: *v,
                });
            }
        }
        i += 1;
    }
    drop(index);
    // The arrays grown by doubling keep up to twice their length through every solve
    // (about a sixth of the peak memory at 600 000 states): trimmed once, here.
    states.shrink_to_fit();
    level.shrink_to_fit();
    out_off.shrink_to_fit();
    out_to.shrink_to_fit();
    out_rate.shrink_to_fit();
    total.shrink_to_fit();
    exit.shrink_to_fit();
    exits.shrink_to_fit();
    boundary.shrink_to_fit();
    let n = states.len();
    // States are numbered in u32 (`index`), and the ILU factors' offsets are u32 too: a
    // chain with more transitions than u32 holds (some 100 GB of memory) is refused as too
    // large rather than numbered wrongly.
    if n > u32::MAX as usize || out_to.len() >= u32::MAX as usize {
        return Err(LevelError::TooManyStates { limit: n - 1 });
    }
    // Incoming transitions (columns), sources other than z.
    let mut in_off = vec![0usize; n + 1];
    for x in 1..n {
        for k in out_off[x]..out_off[x + 1] {
            in_off[out_to[k] as usize + 1] += 1;
        }
    }
    for j in 0..n {
        in_off[j + 1] += in_off[j];
    }
    let mut fill = in_off.clone();
    let mut in_from = vec![0u32; in_off[n]];
    let mut in_rate = vec![0.0; in_off[n]];
    for x in 1..n {
        for k in out_off[x]..out_off[x + 1] {
            let j = out_to[k] as usize;
            in_from[fill[j]] = x as u32;
            in_rate[fill[j]] = out_rate[k];
            fill[j] += 1;
        }
    }
    Ok(Explored {
        states,
        level,
        out_off,
        out_to,
        out_rate,
        in_off,
        in_from,
        in_rate,
        total,
        exit,
        exits,
        boundary,
        certified,
        top,
        smoother: Smoother::default(),
        restart: GMRES_RESTART,
        groups: Vec::new(),
        group_count: 1,
    })
}

/// The least-squares slope of y against x over `pts` (NaN for fewer than two distinct x):
/// how the truncation schedules of the level chains read a tail's decay off its masses
/// ([`crate::lb::exact`], [`crate::redundancy::ctmc`]).
pub fn least_squares_slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

/// True for a state other than z (index 0) at level 0.
fn lt_zero_other(i: usize, level: u32) -> bool {
    i != 0 && level == 0
}

// ----------------------------------------------------------------- double-double kernels

/// Error-free product: p + e = a·b exactly (FMA).
#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// A double-double accumulator.
#[derive(Clone, Copy, Default)]
struct Acc {
    hi: f64,
    lo: f64,
}

impl Acc {
    #[inline]
    fn add(&mut self, x: f64) {
        let (s, e) = crate::num::dd::two_sum(self.hi, x);
        self.hi = s;
        self.lo += e;
    }

    /// Adds a·b.
    #[inline]
    fn add_prod(&mut self, a: f64, b: f64) {
        let (p, e) = two_prod(a, b);
        self.add(p);
        self.lo += e;
    }

    #[inline]
    fn value(&self) -> f64 {
        self.hi + self.lo
    }
}

// ------------------------------------------------------------------------ the two-level solver

/// The off-diagonal entries of the sub-generator, grouped by state (compressed rows or
/// columns): the offsets, the other state of each entry and its rate.
type OffDiagonal<'a> = (&'a [usize], &'a [u32], &'a [f64]);

/// The level chain seen by the solver: the unknowns are the states other than z.
struct Solver<'a, S> {
    c: &'a Explored<S>,
    /// Levels 1..=top as 0-based coarse indices (level − 1).
    levels: usize,
    /// ILU(0) of −B by columns (left solves) and by rows (right solves), built on first use
    /// when the smoother is [`Smoother::Ilu`].
    ilu_left: std::cell::OnceCell<Ilu>,
    ilu_right: std::cell::OnceCell<Ilu>,
}

impl<'a, S> Solver<'a, S> {
    fn new(c: &'a Explored<S>) -> Self {
        Solver {
            c,
            levels: c.top as usize,
            ilu_left: std::cell::OnceCell::new(),
            ilu_right: std::cell::OnceCell::new(),
        }
    }

    /// The ILU(0) of the left system (rows of δ(−B) = r: the incoming columns).
    fn left_ilu(&self) -> &Ilu {
        self.ilu_left
            .get_or_init(|| Ilu::new(self.n(), self.incoming(), &self.c.total))
    }

    /// The ILU(0) of the right system ((−B)δ = r: the outgoing rows).
    fn right_ilu(&self) -> &Ilu {
        self.ilu_right
            .get_or_init(|| Ilu::new(self.n(), self.outgoing(), &self.c.total))
    }

    fn n(&self) -> usize {
        self.c.len()
    }

    /// One Gauss–Seidel sweep on δ(−B) = r (columns), in index order.
    fn sweep_left(&self, d: &mut [f64], r: &[f64]) {
        let c = self.c;
        for j in 1..self.n() {
            let mut s = r[j];
            for k in c.in_off[j]..c.in_off[j + 1] {
                s += d[c.in_from[k] as usize] * c.in_rate[k];
            }
            d[j] = s / c.total[j];
        }
    }

    /// One Gauss–Seidel sweep on (−B)δ = r (rows), in index order.
    fn sweep_right(&self, d: &mut [f64], r: &[f64]) {
        let c = self.c;
        for x in 1..self.n() {
            let mut s = r[x];
            for k in c.out_off[x]..c.out_off[x + 1] {
                s += c.out_rate[k] * d[c.out_to[k] as usize];
            }
            d[x] = s / c.total[x];
        }
    }

    /// The tridiagonal level operator C = P(−B)S for weights w (P(I, x) = w(x)/W_I):
    /// (sub, diag, sup) with C_{I,I−1} = sub[I], C_{I,I+1} = sup[I].
    fn coarse(&self, w: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let c = self.c;
        let m = self.levels;
        let mut wsum = vec![0.0; m];
        let mut count = vec![0usize; m];
        for (&lx, &wx) in c.level.iter().zip(w).skip(1) {
            let l = lx as usize - 1;
            wsum[l] += wx.max(0.0);
            count[l] += 1;
        }
        let mut sub = vec![0.0; m];
        let mut diag = vec![0.0; m];
        let mut sup = vec![0.0; m];
        for (x, &wx) in w.iter().enumerate().take(self.n()).skip(1) {
            let l = c.level[x] as usize - 1;
            let p = if wsum[l] > 0.0 {
                wx.max(0.0) / wsum[l]
            } else {
                1.0 / count[l] as f64
            };
            if p == 0.0 {
                continue;
            }
            diag[l] += p * c.total[x];
            for k in c.out_off[x]..c.out_off[x + 1] {
                let t = c.out_to[k] as usize;
                let lt = c.level[t] as usize - 1;
                let v = p * c.out_rate[k];
                if lt == l {
                    diag[l] -= v;
                } else if lt + 1 == l {
                    sub[l] -= v;
                } else {
                    sup[l] -= v;
                }
            }
        }
        (sub, diag, sup, wsum)
    }

    /// Weights for the coarse operator: w, or 1 on levels where w vanishes.
    fn prolongation(&self, w: &[f64], wsum: &[f64]) -> Vec<f64> {
        let c = self.c;
        let mut count = vec![0usize; self.levels];
        for x in 1..self.n() {
            count[c.level[x] as usize - 1] += 1;
        }
        (0..self.n())
            .map(|x| {
                if x == 0 {
                    return 0.0;
                }
                let l = c.level[x] as usize - 1;
                if wsum[l] > 0.0 {
                    w[x].max(0.0) / wsum[l]
                } else {
                    1.0 / count[l] as f64
                }
            })
            .collect()
    }

    /// The transposed coarse operator and prolongation of [`Self::cycle_left`] for the
    /// shape w (fixed during one inner solve: computed once, not at every cycle).
    fn coarse_left(&self, w: &[f64]) -> Coarse {
        if self.c.group_count > 1 {
            return self.coarse_blocks(w, true);
        }
        let (sub, diag, sup, wsum) = self.coarse(w);
        let p = self.prolongation(w, &wsum);
        // Transposed: (C^T)_{I,I−1} = C_{I−1,I} = sup[I−1], (C^T)_{I,I+1} = sub[I+1].
        let m = self.levels;
        let tsub: Vec<f64> = (0..m)
            .map(|i| if i > 0 { sup[i - 1] } else { 0.0 })
            .collect();
        let tsup: Vec<f64> = (0..m)
            .map(|i| if i + 1 < m { sub[i + 1] } else { 0.0 })
            .collect();
        let agg = if self.c.smoother == Smoother::Ilu {
            self.agg_left(&p)
        } else {
            Vec::new()
        };
        Coarse {
            sub: tsub,
            diag,
            sup: tsup,
            p,
            agg,
            block: None,
        }
    }

    /// The aggregate (level, group) of state x ≥ 1, level-major.
    #[inline]
    fn aggregate(&self, x: usize) -> usize {
        aggregate(&self.c.level, &self.c.groups, self.c.group_count, x)
    }

    /// The coarse operator over the aggregates (level, group) for the weights w, C = P(−B)S
    /// (P(a, x) = p(x) = w(x)/W_a, or 1/|a| where w vanishes on a; S(x, a) = 1 for x ∈ a),
    /// transposed for the left system; factorised ([`Block`]). Empty aggregates get an
    /// identity row (their amplitude is 0).
    fn coarse_blocks(&self, w: &[f64], transpose: bool) -> Coarse {
        let c = self.c;
        let (k, m, n) = (c.group_count, self.levels, self.n());
        let kk = k * k;
        let mut wsum = vec![0.0; m * k];
        let mut count = vec![0usize; m * k];
        for (x, &wx) in w.iter().enumerate().take(n).skip(1) {
            let a = self.aggregate(x);
            wsum[a] += wx.max(0.0);
            count[a] += 1;
        }
        let p: Vec<f64> = (0..n)
            .map(|x| {
                if x == 0 {
                    return 0.0;
                }
                let a = self.aggregate(x);
                if wsum[a] > 0.0 {
                    w[x].max(0.0) / wsum[a]
                } else {
                    1.0 / count[a] as f64
                }
            })
            .collect();
        let mut low = vec![0.0; m * kk];
        let mut diag = vec![0.0; m * kk];
        let mut up = vec![0.0; m * kk];
        for (x, &px) in p.iter().enumerate().skip(1) {
            if px == 0.0 {
                continue;
            }
            let l = c.level[x] as usize - 1;
            let g = usize::from(c.groups[x]);
            diag[l * kk + g * k + g] += px * c.total[x];
            for j in c.out_off[x]..c.out_off[x + 1] {
                let t = c.out_to[j] as usize;
                let lt = c.level[t] as usize - 1;
                let gt = usize::from(c.groups[t]);
                let v = px * c.out_rate[j];
                let into = if lt == l {
                    &mut diag
                } else if lt + 1 == l {
                    &mut low
                } else {
                    &mut up
                };
                into[l * kk + g * k + gt] -= v;
            }
        }
        for (a, &cnt) in count.iter().enumerate() {
            if cnt == 0 {
                let (l, g) = (a / k, a % k);
                diag[l * kk + g * k + g] = 1.0;
            }
        }
        let block = if transpose {
            // (Cᵀ)_{l,l} = D_lᵀ, (Cᵀ)_{l,l−1} = U_{l−1}ᵀ, (Cᵀ)_{l,l+1} = L_{l+1}ᵀ.
            let tr = |src: &[f64], from: Option<usize>| -> Vec<f64> {
                let mut out = vec![0.0; kk];
                if let Some(f) = from {
                    for a in 0..k {
                        for b in 0..k {
                            out[a * k + b] = src[f * kk + b * k + a];
                        }
                    }
                }
                out
            };
            let mut tl = Vec::with_capacity(m * kk);
            let mut td = Vec::with_capacity(m * kk);
            let mut tu = Vec::with_capacity(m * kk);
            for l in 0..m {
                tl.extend(tr(&up, l.checked_sub(1)));
                td.extend(tr(&diag, Some(l)));
                tu.extend(tr(&low, (l + 1 < m).then_some(l + 1)));
            }
            Block::new(k, m, tl, td, &tu)
        } else {
            Block::new(k, m, low, diag, &up)
        };
        Coarse {
            sub: Vec::new(),
            diag: Vec::new(),
            sup: Vec::new(),
            p,
            agg: Vec::new(),
            block: Some(block),
        }
    }

    /// One cycle for δ(−B) = r with the block coarse operator: (ILU step or nothing), the
    /// aggregates' correction ξ∘p of the residual (aggregate sums), then an ILU step or a
    /// Gauss–Seidel sweep.
    fn cycle_left_block(&self, r: &[f64], coarse: &Coarse, block: &Block) -> Vec<f64> {
        let n = self.n();
        let ilu = (self.c.smoother == Smoother::Ilu).then(|| self.left_ilu());
        let mut d = vec![0.0; n];
        let mut res = r.to_vec();
        if let Some(ilu) = ilu {
            d.copy_from_slice(r);
            ilu.solve_in_place(&mut d);
            self.apply_left(&d, &mut res);
            par::update(&mut res, |x, v| if x == 0 { v } else { r[x] - v });
        }
        let mut rhs = vec![0.0; block.m * block.k];
        for x in 1..n {
            rhs[self.aggregate(x)] += res[x];
        }
        let xi = block.solve(&rhs);
        let mut e = vec![0.0; n];
        let (level, groups, k, p) = (&self.c.level, &self.c.groups, self.c.group_count, &coarse.p);
        par::update2(&mut e, &mut d, |x, e, d| {
            if x > 0 {
                *e = xi[aggregate(level, groups, k, x)] * p[x];
                *d += *e;
            }
        });
        match ilu {
            Some(ilu) => {
                let mut t = vec![0.0; n];
                self.apply_left(&e, &mut t);
                par::update(&mut res, |x, v| if x == 0 { v } else { v - t[x] });
                ilu.solve_in_place(&mut res);
                par::update(&mut d, |x, v| if x == 0 { v } else { v + res[x] });
            }
            None => {
                for _ in 0..SWEEPS_PER_CYCLE {
                    self.sweep_left(&mut d, r);
                }
            }
        }
        d
    }

    /// One cycle for (−B)δ = r with the block coarse operator: an ILU step or a Gauss–Seidel
    /// sweep, the aggregates' correction (constant on each aggregate, restricted with the
    /// weights), then an ILU step or a sweep.
    fn cycle_right_block(&self, r: &[f64], coarse: &Coarse, block: &Block) -> Vec<f64> {
        let n = self.n();
        let ilu = (self.c.smoother == Smoother::Ilu).then(|| self.right_ilu());
        let mut d = vec![0.0; n];
        match ilu {
            Some(ilu) => {
                d.copy_from_slice(r);
                ilu.solve_in_place(&mut d);
            }
            None => self.sweep_right(&mut d, r),
        }
        let mut res = self.residual_right_f64(&d, r);
        let mut rhs = vec![0.0; block.m * block.k];
        for x in 1..n {
            rhs[self.aggregate(x)] += coarse.p[x] * res[x];
        }
        let eta = block.solve(&rhs);
        let mut e = vec![0.0; n];
        let (level, groups, k) = (&self.c.level, &self.c.groups, self.c.group_count);
        par::update2(&mut e, &mut d, |x, e, d| {
            if x > 0 {
                *e = eta[aggregate(level, groups, k, x)];
                *d += *e;
            }
        });
        match ilu {
            Some(ilu) => {
                let mut t = vec![0.0; n];
                self.apply_right(&e, &mut t);
                par::update(&mut res, |x, v| if x == 0 { v } else { v - t[x] });
                ilu.solve_in_place(&mut res);
                par::update(&mut d, |x, v| if x == 0 { v } else { v + res[x] });
            }
            None => {
                for _ in 0..SWEEPS_PER_CYCLE {
                    self.sweep_right(&mut d, r);
                }
            }
        }
        d
    }

    /// [`Coarse::agg`] of the left system: for each state j, Σ rate(i → j)·p(i) over the
    /// sources i (z excluded) at j's level, one below and one above.
    fn agg_left(&self, p: &[f64]) -> Vec<[f64; 3]> {
        let c = self.c;
        let mut out = vec![[0.0; 3]; self.n()];
        for (j, a) in out.iter_mut().enumerate().skip(1) {
            let lj = c.level[j];
            for k in c.in_off[j]..c.in_off[j + 1] {
                let i = c.in_from[k] as usize;
                a[side(c.level[i], lj)] += c.in_rate[k] * p[i];
            }
        }
        out
    }

    /// [`Coarse::agg`] of the right system: for each state x, Σ rate(x → t) over the
    /// targets t (z excluded) at x's level, one below and one above.
    fn agg_right(&self) -> Vec<[f64; 3]> {
        let c = self.c;
        let mut out = vec![[0.0; 3]; self.n()];
        for (x, a) in out.iter_mut().enumerate().skip(1) {
            let lx = c.level[x];
            for k in c.out_off[x]..c.out_off[x + 1] {
                a[side(c.level[c.out_to[k] as usize], lx)] += c.out_rate[k];
            }
        }
        out
    }

    /// One cycle for δ(−B) = r: the coarse correction with shape w (`coarse`, from
    /// [`Self::coarse_left`]), then sweeps.
    fn cycle_left(&self, r: &[f64], coarse: &Coarse) -> Vec<f64> {
        if let Some(block) = &coarse.block {
            return self.cycle_left_block(r, coarse, block);
        }
        if self.c.smoother == Smoother::Ilu {
            return self.cycle_left_ilu(r, coarse);
        }
        let c = self.c;
        let p = &coarse.p;
        // ξ C = rS: C^T ξ = (level sums of r).
        let mut rhs = vec![0.0; self.levels];
        for x in 1..self.n() {
            rhs[c.level[x] as usize - 1] += r[x];
        }
        let xi = thomas(&coarse.sub, &coarse.diag, &coarse.sup, &rhs);
        let mut d: Vec<f64> = (0..self.n())
            .map(|x| {
                if x == 0 {
                    0.0
                } else {
                    xi[c.level[x] as usize - 1] * p[x]
                }
            })
            .collect();
        // Smooth on the residual of the corrected δ.
        for _ in 0..SWEEPS_PER_CYCLE {
            self.sweep_left(&mut d, r);
        }
        d
    }

    /// One cycle for (−B)δ = r: sweeps, then the coarse correction (constant on levels,
    /// restricted with the weights w), then a sweep.
    fn cycle_right(&self, r: &[f64], w: &[f64], coarse: &Coarse) -> Vec<f64> {
        if let Some(block) = &coarse.block {
            return self.cycle_right_block(r, coarse, block);
        }
        if self.c.smoother == Smoother::Ilu {
            return self.cycle_right_ilu(r, coarse);
        }
        let c = self.c;
        let mut d = vec![0.0; self.n()];
        self.sweep_right(&mut d, r);
        let res = self.residual_right_f64(&d, r);
        let mut rhs = vec![0.0; self.levels];
        for x in 1..self.n() {
            rhs[c.level[x] as usize - 1] += coarse.p[x] * res[x];
        }
        let eta = thomas(&coarse.sub, &coarse.diag, &coarse.sup, &rhs);
        for x in 1..self.n() {
            d[x] += eta[c.level[x] as usize - 1];
        }
        let _ = w;
        for _ in 0..SWEEPS_PER_CYCLE {
            self.sweep_right(&mut d, r);
        }
        d
    }

    /// [`Self::cycle_left`] with the ILU(0) smoother: an ILU step, the level correction of
    /// its residual (level sums), an ILU step.
    fn cycle_left_ilu(&self, r: &[f64], coarse: &Coarse) -> Vec<f64> {
        let c = self.c;
        let n = self.n();
        let ilu = self.left_ilu();
        let mut d = vec![0.0; n];
        // A pre-smoothing step measured ~15% faster overall than the level correction
        // alone first (N = 4, d = 2, λ = 0.9: 449 against 660 GMRES iterations).
        d[..].copy_from_slice(r);
        ilu.solve_in_place(&mut d);
        let mut res = vec![0.0; n];
        self.apply_left(&d, &mut res);
        par::update(&mut res, |x, v| if x == 0 { v } else { r[x] - v });
        let mut rhs = vec![0.0; self.levels];
        for x in 1..n {
            rhs[c.level[x] as usize - 1] += res[x];
        }
        let xi = thomas(&coarse.sub, &coarse.diag, &coarse.sup, &rhs);
        // d += ξ∘p and the residual r − d(−B) updated by (ξ∘p)(−B), which the aggregated
        // rates give without a sparse product; then an ILU step on that residual.
        let (level, total, agg, p) = (&c.level, &c.total, &coarse.agg, &coarse.p);
        par::update2(&mut res, &mut d, |x, res, d| {
            if x == 0 {
                return;
            }
            let (here, below, above) = around(&xi, level[x] as usize - 1);
            let [same, down, up] = agg[x];
            let e = here * p[x];
            *d += e;
            *res -= total[x] * e - same * here - down * below - up * above;
        });
        ilu.solve_in_place(&mut res);
        par::update(&mut d, |x, v| if x == 0 { v } else { v + res[x] });
        d
    }

    /// [`Self::cycle_right`] with the ILU(0) smoother: an ILU step, the level correction of
    /// its residual (restricted with the weights), an ILU step.
    fn cycle_right_ilu(&self, r: &[f64], coarse: &Coarse) -> Vec<f64> {
        let c = self.c;
        let n = self.n();
        let ilu = self.right_ilu();
        let mut d = vec![0.0; n];
        d[..].copy_from_slice(r);
        ilu.solve_in_place(&mut d);
        let mut res = self.residual_right_f64(&d, r);
        let mut rhs = vec![0.0; self.levels];
        for x in 1..n {
            rhs[c.level[x] as usize - 1] += coarse.p[x] * res[x];
        }
        let eta = thomas(&coarse.sub, &coarse.diag, &coarse.sup, &rhs);
        // d += η (constant on each level) and the residual r − (−B)d updated by (−B)η from
        // the aggregated rates; then an ILU step on that residual.
        let (level, total, agg) = (&c.level, &c.total, &coarse.agg);
        par::update2(&mut res, &mut d, |x, res, d| {
            if x == 0 {
                return;
            }
            let (here, below, above) = around(&eta, level[x] as usize - 1);
            let [same, down, up] = agg[x];
            *d += here;
            *res -= (total[x] - same) * here - down * below - up * above;
        });
        ilu.solve_in_place(&mut res);
        par::update(&mut d, |x, v| if x == 0 { v } else { v + res[x] });
        d
    }

    /// out = δ(−B) (row vector, as a column).
    fn apply_left(&self, d: &[f64], out: &mut [f64]) {
        self.apply(self.incoming(), d, out);
    }

    /// out = (−B)d.
    fn apply_right(&self, d: &[f64], out: &mut [f64]) {
        self.apply(self.outgoing(), d, out);
    }

    /// The off-diagonal entries of −B by row: the outgoing transitions of each state.
    fn outgoing(&self) -> OffDiagonal<'a> {
        let c = self.c;
        (&c.out_off[..], &c.out_to[..], &c.out_rate[..])
    }

    /// The off-diagonal entries of −B by column: the incoming transitions of each state.
    fn incoming(&self) -> OffDiagonal<'a> {
        let c = self.c;
        (&c.in_off[..], &c.in_from[..], &c.in_rate[..])
    }

    /// out = (−B)d for the entries of −B grouped by row ([`Self::outgoing`]), or δ(−B) for
    /// them grouped by column ([`Self::incoming`]): the diagonal (the total rates) minus
    /// the transitions.
    ///
    /// The rates as 2-byte codes into a table of their distinct values (14 for JSQ(d), 107
    /// for the W-model under MRF-ROS; 6 bytes read a transition instead of 12) were
    /// measured on 2026-12-05 and not kept: the same results to the bit and no gain, side
    /// by side twice (JSQ N = 5, d = 2, λ = 0.9: 7.3/7.8 s before, 7.5/8.0 s after; the
    /// W-model (0.5, 0.5, 0.6) under MRF-FCFS 11.3/11.8 against 11.9/11.2 s). These loops
    /// wait on the gathers of d more than on the stream of the rates.
    #[inline]
    fn apply(&self, (off, idx, rate): OffDiagonal<'_>, d: &[f64], out: &mut [f64]) {
        let total = &self.c.total;
        par::update(&mut out[..self.n()], |x, _| {
            if x == 0 {
                return 0.0;
            }
            let mut s = total[x] * d[x];
            for k in off[x]..off[x + 1] {
                s -= rate[k] * d[idx[k] as usize];
            }
            s
        });
    }

    /// r − (−B)d in f64.
    fn residual_right_f64(&self, d: &[f64], r: &[f64]) -> Vec<f64> {
        let (off, to, rate) = self.outgoing();
        let total = &self.c.total;
        let mut out = vec![0.0; self.n()];
        par::update(&mut out, |x, _| {
            if x == 0 {
                return 0.0;
            }
            let mut s = r[x] - total[x] * d[x];
            for k in off[x]..off[x + 1] {
                s += rate[k] * d[to[k] as usize];
            }
            s
        });
        out
    }

    /// b − (−B)x in double-double (x as hi + lo), rounded to f64.
    fn residual_right_dd(&self, xh: &[f64], xl: &[f64], b: &[f64]) -> Vec<f64> {
        self.residual_dd(self.outgoing(), xh, xl, b)
    }

    /// ν − y(−B) in double-double (y as hi + lo, y(z) = 1), rounded to f64.
    fn residual_left_dd(&self, yh: &[f64], yl: &[f64], nu: &[f64]) -> Vec<f64> {
        self.residual_dd(self.incoming(), yh, yl, nu)
    }

    /// r − (−B)v in double-double (v as hi + lo), rounded to f64, where −B is given by its
    /// diagonal (the total rates) and its off-diagonal entries `(off, idx, rate)` grouped by
    /// state: the outgoing rows for B acting on the right, the incoming columns for a row
    /// vector on the left.
    fn residual_dd(
        &self,
        (off, idx, rate): OffDiagonal<'_>,
        vh: &[f64],
        vl: &[f64],
        r: &[f64],
    ) -> Vec<f64> {
        let total = &self.c.total;
        let mut out = vec![0.0; self.n()];
        par::update(&mut out, |x, _| {
            if x == 0 {
                return 0.0;
            }
            let mut a = Acc::default();
            a.add(r[x]);
            a.add_prod(-total[x], vh[x]);
            a.add_prod(-total[x], vl[x]);
            for k in off[x]..off[x + 1] {
                let t = idx[k] as usize;
                a.add_prod(rate[k], vh[t]);
                a.add_prod(rate[k], vl[t]);
            }
            a.value()
        });
        out
    }
}

/// The aggregate (level, group) of state x ≥ 1, level-major, for `k` groups per level
/// ([`Explored::set_groups`]).
#[inline]
fn aggregate(level: &[u32], groups: &[u8], k: usize, x: usize) -> usize {
    (level[x] as usize - 1) * k + usize::from(groups[x])
}

/// The values of a coarse vector v (one per level) at level `l`: (its own, the one below,
/// the one above; 0 beyond the ends).
#[inline]
fn around(v: &[f64], l: usize) -> (f64, f64, f64) {
    let below = if l > 0 { v[l - 1] } else { 0.0 };
    let above = if l + 1 < v.len() { v[l + 1] } else { 0.0 };
    (v[l], below, above)
}

/// A coarse operator with its restriction weights (fixed for the bound's solves).
struct Coarse {
    sub: Vec<f64>,
    diag: Vec<f64>,
    sup: Vec<f64>,
    p: Vec<f64>,
    /// Per state, the rates of its entries of −B grouped by the level of the other state
    /// (same, one below, one above), weighted by the prolongation p of that state for the
    /// left system ([`Solver::agg_left`]), unweighted for the right one
    /// ([`Solver::agg_right`]): −B applied to a correction that is constant in shape on
    /// each level then costs one pass over the states instead of a sparse product (the
    /// ILU cycles; empty for Gauss–Seidel).
    agg: Vec<[f64; 3]>,
    /// With groups ([`Explored::set_groups`]): the factorised block operator over the
    /// aggregates (level, group), used instead of (sub, diag, sup) and `agg`.
    block: Option<Block>,
}

/// The coarse operator over the aggregates (level, group) of [`Explored::set_groups`]:
/// block-tridiagonal (a transition moves the level by at most one) with `k` × `k` blocks,
/// factorised once by block Gaussian elimination without pivoting between levels (the
/// operator is a nonsingular M-matrix, whose Schur complements stay nonsingular M-matrices;
/// each pivot block is inverted with partial pivoting).
struct Block {
    /// Groups per level.
    k: usize,
    /// Levels.
    m: usize,
    /// Per level, the inverse of its pivot block (k × k, row-major).
    inv: Vec<f64>,
    /// Per level, its block towards the level below.
    low: Vec<f64>,
    /// Per level, the pivot's inverse times its block towards the level above.
    x: Vec<f64>,
}

impl Block {
    /// Factorises the block-tridiagonal matrix (low, diag, up), each `m` blocks of k × k.
    fn new(k: usize, m: usize, low: Vec<f64>, mut diag: Vec<f64>, up: &[f64]) -> Self {
        let kk = k * k;
        let mut inv = vec![0.0; m * kk];
        let mut x = vec![0.0; m * kk];
        let mut tmp = vec![0.0; kk];
        for l in 0..m {
            let d = &mut diag[l * kk..(l + 1) * kk];
            if l > 0 {
                // Schur complement: D_l − L_l X_{l−1}.
                let (lo, xp) = (&low[l * kk..(l + 1) * kk], &x[(l - 1) * kk..l * kk]);
                for a in 0..k {
                    for b in 0..k {
                        let mut t = 0.0;
                        for c in 0..k {
                            t += lo[a * k + c] * xp[c * k + b];
                        }
                        d[a * k + b] -= t;
                    }
                }
            }
            tmp.copy_from_slice(d);
            invert(k, &mut tmp, &mut inv[l * kk..(l + 1) * kk]);
            let iv = &inv[l * kk..(l + 1) * kk];
            let u = &up[l * kk..(l + 1) * kk];
            let xl = &mut x[l * kk..(l + 1) * kk];
            for a in 0..k {
                for b in 0..k {
                    let mut t = 0.0;
                    for c in 0..k {
                        t += iv[a * k + c] * u[c * k + b];
                    }
                    xl[a * k + b] = t;
                }
            }
        }
        Block { k, m, inv, low, x }
    }

    /// Solves the factorised system for `rhs` (m·k entries, level-major).
    fn solve(&self, rhs: &[f64]) -> Vec<f64> {
        let (k, kk) = (self.k, self.k * self.k);
        let mut y = vec![0.0; self.m * k];
        let mut t = vec![0.0; k];
        for l in 0..self.m {
            t.copy_from_slice(&rhs[l * k..(l + 1) * k]);
            if l > 0 {
                let lo = &self.low[l * kk..(l + 1) * kk];
                for a in 0..k {
                    let mut s = 0.0;
                    for c in 0..k {
                        s += lo[a * k + c] * y[(l - 1) * k + c];
                    }
                    t[a] -= s;
                }
            }
            let iv = &self.inv[l * kk..(l + 1) * kk];
            for a in 0..k {
                let mut s = 0.0;
                for c in 0..k {
                    s += iv[a * k + c] * t[c];
                }
                y[l * k + a] = s;
            }
        }
        for l in (0..self.m.saturating_sub(1)).rev() {
            let xl = &self.x[l * kk..(l + 1) * kk];
            for a in 0..k {
                let mut s = 0.0;
                for c in 0..k {
                    s += xl[a * k + c] * y[(l + 1) * k + c];
                }
                y[l * k + a] -= s;
            }
        }
        y
    }
}

/// out = a⁻¹ for the k × k matrix `a` (row-major; overwritten), by Gauss–Jordan elimination
/// with partial pivoting; a pivot that vanishes is replaced by the smallest normal number
/// (the coarse correction only needs to be a good approximation; empty aggregates carry an
/// identity row already).
fn invert(k: usize, a: &mut [f64], out: &mut [f64]) {
    out.fill(0.0);
    for i in 0..k {
        out[i * k + i] = 1.0;
    }
    for col in 0..k {
        let piv = (col..k)
            .max_by(|&i, &j| a[i * k + col].abs().total_cmp(&a[j * k + col].abs()))
            .unwrap_or(col);
        if piv != col {
            for j in 0..k {
                a.swap(piv * k + j, col * k + j);
                out.swap(piv * k + j, col * k + j);
            }
        }
        let mut d = a[col * k + col];
        if d.abs() < f64::MIN_POSITIVE || !d.is_finite() {
            d = f64::MIN_POSITIVE;
        }
        for j in 0..k {
            a[col * k + j] /= d;
            out[col * k + j] /= d;
        }
        for i in 0..k {
            if i == col {
                continue;
            }
            let f = a[i * k + col];
            if f == 0.0 {
                continue;
            }
            for j in 0..k {
                a[i * k + j] -= f * a[col * k + j];
                out[i * k + j] -= f * out[col * k + j];
            }
        }
    }
}

/// Which entry of [`Coarse::agg`] a transition between levels `other` and `own` adds to:
/// 0 the same level, 1 the one below, 2 the one above.
#[inline]
fn side(other: u32, own: u32) -> usize {
    match other.cmp(&own) {
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Less => 1,
        std::cmp::Ordering::Greater => 2,
    }
}

/// Solves the tridiagonal system (sub, diag, sup)·x = rhs (Thomas; no pivoting: the
/// level operators are nonsingular M-matrices, whose LU has positive pivots).
fn thomas(sub: &[f64], diag: &[f64], sup: &[f64], rhs: &[f64]) -> Vec<f64> {
    let m = diag.len();
    let mut c = vec![0.0; m];
    let mut d = vec![0.0; m];
    for i in 0..m {
        let denom = diag[i] - if i > 0 { sub[i] * c[i - 1] } else { 0.0 };
        let denom = if denom.abs() > 0.0 {
            denom
        } else {
            f64::MIN_POSITIVE
        };
        c[i] = if i + 1 < m { sup[i] / denom } else { 0.0 };
        d[i] = (rhs[i] - if i > 0 { sub[i] * d[i - 1] } else { 0.0 }) / denom;
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        x[i] = d[i] - if i + 1 < m { c[i] * x[i + 1] } else { 0.0 };
    }
    x
}

/// The stationary vector of the redirected chain, with its residual.
#[derive(Debug, Clone)]
pub struct Stationary {
    /// π̂, normalised.
    pub pi: Vec<f64>,
    /// y = π̂/π̂(z) (leading and trailing parts).
    y_hi: Vec<f64>,
    y_lo: Vec<f64>,
    /// |ν − y(−B)| per state (double-double residual, rounded).
    abs_residual: Vec<f64>,
    /// Σ|residual| / Σν: the relative residual reached.
    pub residual: f64,
    /// Two-level cycles used.
    pub cycles: usize,
}

impl Stationary {
    /// Σy = Σ(y_hi + y_lo): what the solve's error bounds are relative to.
    fn y_total(&self) -> f64 {
        self.y_hi.iter().zip(&self.y_lo).map(|(a, b)| a + b).sum()
    }
}

/// Solves the stationary distribution of the redirected chain (module docs), refining
/// with double-double residuals until [`TARGET_RESIDUAL`] or a stall.
pub fn stationary<S>(c: &Explored<S>) -> Result<Stationary, LevelError> {
    stationary_from(c, None, TARGET_RESIDUAL)
}

/// [`stationary`] from a starting guess of π̂ (any positive scale; e.g. a smaller
/// truncation's solution, zero on the new states), refined until the relative residual is
/// below `target` (or [`TARGET_RESIDUAL`], or a stall): a caller that needs few digits
/// stops early; the residual reached is reported either way.
pub fn stationary_from<S>(
    c: &Explored<S>,
    guess: Option<&[f64]>,
    target: f64,
) -> Result<Stationary, LevelError> {
    let n = c.len();
    let solver = Solver::new(c);
    // ν: the rates out of z.
    let mut nu = vec![0.0; n];
    for k in c.out_off[0]..c.out_off[1] {
        nu[c.out_to[k] as usize] += c.out_rate[k];
    }
    let nu_sum: f64 = nu.iter().sum();
    let mut yh = vec![0.0; n];
    let mut yl = vec![0.0; n];
    yh[0] = 1.0;
    if n == 1 {
        return Ok(Stationary {
            pi: vec![1.0],
            y_hi: yh,
            y_lo: yl,
            abs_residual: vec![0.0],
            residual: 0.0,
            cycles: 0,
        });
    }
    let mut r = nu.clone();
    if let Some(g) = guess {
        if g.len() == n && g[0] > 0.0 && g.iter().all(|v| v.is_finite() && *v >= 0.0) {
            for x in 1..n {
                yh[x] = g[x] / g[0];
            }
            r = solver.residual_left_dd(&yh, &yl, &nu);
        }
    }
    let mut best = f64::INFINITY;
    let mut history: Vec<f64> = Vec::new();
    let mut cycles = 0;
    loop {
        let rel = r.iter().map(|v| v.abs()).sum::<f64>() / nu_sum;
        history.push(rel);
        best = best.min(rel);
        progress::report(
            "exact chain: stationary solve",
            cycles as u64,
            Some(MAX_CYCLES as u64),
            &format!("residual {rel:.1e}"),
        );
        let stalled = history.len() > STALL_CYCLES
            && rel > STALL_FACTOR * history[history.len() - 1 - STALL_CYCLES];
        if rel <= target.max(TARGET_RESIDUAL) || stalled || cycles >= MAX_CYCLES {
            if !(rel.is_finite()) || (cycles >= MAX_CYCLES && rel > 1e-8) {
                return Err(LevelError::NoConvergence {
                    residual: rel,
                    cycles,
                });
            }
            break;
        }
        let coarse = solver.coarse_left(&yh);
        // Aim only at the reduction this cycle needs (with a margin): a warm start a few
        // decades above the target, or the last cycle of a refinement, needs far less than
        // INNER_TOLERANCE, and GMRES's iterations grow with the decades asked (the W-model
        // under MRF-FCFS: 214 iterations for the 1e-11 where 4e-5 was needed). Whether the
        // target is reached is judged by the double-double residual above, never by this.
        let tol = (INNER_MARGIN * target.max(TARGET_RESIDUAL) / rel)
            .clamp(INNER_TOLERANCE, INNER_LOOSEST);
        let d = gmres(
            n,
            &r,
            &|v, out| solver.apply_left(v, out),
            &|v| solver.cycle_left(v, &coarse),
            tol,
            INNER_ITERATIONS,
            c.restart,
        );
        for x in 1..n {
            let (s, e) = crate::num::dd::two_sum(yh[x], d[x]);
            let (s2, e2) = crate::num::dd::two_sum(s, yl[x] + e);
            yh[x] = s2;
            yl[x] = e2;
        }
        cycles += 1;
        r = solver.residual_left_dd(&yh, &yl, &nu);
    }
    let abs_residual: Vec<f64> = r.iter().map(|v| v.abs()).collect();
    let mut total = Acc::default();
    for x in 0..n {
        total.add(yh[x]);
        total.add(yl[x]);
    }
    let t = total.value();
    let pi: Vec<f64> = (0..n).map(|x| (yh[x] + yl[x]).max(0.0) / t).collect();
    let residual = abs_residual.iter().sum::<f64>() / nu_sum;
    Ok(Stationary {
        pi,
        y_hi: yh,
        y_lo: yl,
        abs_residual,
        residual,
        cycles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two queues fed at rates 0.3 and 0.4, each served at rate 1, truncated to
    /// a + b ≤ `top` (a level chain in the total; no certificate needed here), with a size
    /// hint for [`explore`] that may be absent, exact, too small or too large.
    struct Two {
        top: u32,
        hint: Option<usize>,
    }

    impl LevelChain for Two {
        type State = (u32, u32);
        fn start(&self) -> (u32, u32) {
            (0, 0)
        }
        fn level(&self, s: &(u32, u32)) -> u32 {
            s.0 + s.1
        }
        fn inside(&self, s: &(u32, u32)) -> bool {
            s.0 + s.1 <= self.top
        }
        fn transitions(&self, s: &(u32, u32), out: &mut Vec<((u32, u32), f64)>) {
            out.push(((s.0 + 1, s.1), 0.3));
            out.push(((s.0, s.1 + 1), 0.4));
            if s.0 > 0 {
                out.push(((s.0 - 1, s.1), 1.0));
            }
            if s.1 > 0 {
                out.push(((s.0, s.1 - 1), 1.0));
            }
        }
        fn growth(&self, s: &(u32, u32)) -> f64 {
            f64::from(s.0 + s.1)
        }
        fn lyapunov(&self, _: &(u32, u32)) -> Option<[f64; 4]> {
            None
        }
        fn on_boundary(&self, s: &(u32, u32)) -> bool {
            s.0 + s.1 == self.top
        }
        fn size_hint(&self) -> Option<usize> {
            self.hint
        }
    }

    #[test]
    fn aggregated_rates_apply_minus_b_to_level_shapes() {
        // The ILU cycles update their residual by −B applied to the level correction from
        // the aggregated rates (Coarse::agg); the reference is −B's own sparse products
        // (apply_right, apply_left) on the same vectors: η constant on each level (right)
        // and ξ∘p (left), with ξ varying by level so that a swapped neighbour is caught.
        let c = explore(
            &Two {
                top: 12,
                hint: None,
            },
            10_000,
        )
        .unwrap();
        let s = Solver::new(&c);
        let n = c.len();
        assert_eq!(n, 91);
        let xi: Vec<f64> = (0..s.levels)
            .map(|l| 1.0 + (l as f64 * 0.7).sin())
            .collect();
        let p: Vec<f64> = (0..n)
            .map(|x| {
                if x == 0 {
                    0.0
                } else {
                    0.5 + (x as f64 * 1.3).cos().abs()
                }
            })
            .collect();
        let lvl = |x: usize| c.level[x] as usize - 1;
        let mut want = vec![0.0; n];
        let eta: Vec<f64> = (0..n)
            .map(|x| if x == 0 { 0.0 } else { xi[lvl(x)] })
            .collect();
        s.apply_right(&eta, &mut want);
        let agg = s.agg_right();
        for x in 1..n {
            let (h, b, a) = around(&xi, lvl(x));
            let [same, down, up] = agg[x];
            let got = (c.total[x] - same) * h - down * b - up * a;
            assert!(
                (got - want[x]).abs() <= 1e-12,
                "right {x}: {got} vs {}",
                want[x]
            );
        }
        let v: Vec<f64> = (0..n)
            .map(|x| if x == 0 { 0.0 } else { xi[lvl(x)] * p[x] })
            .collect();
        s.apply_left(&v, &mut want);
        let agg = s.agg_left(&p);
        for x in 1..n {
            let (h, b, a) = around(&xi, lvl(x));
            let [same, down, up] = agg[x];
            let got = c.total[x] * h * p[x] - same * h - down * b - up * a;
            assert!(
                (got - want[x]).abs() <= 1e-12,
                "left {x}: {got} vs {}",
                want[x]
            );
        }
    }

    /// The right-preconditioned operator of the bound's solves on `c` (ILU smoother).
    /// (−B)⁻¹b by a dense LU (nalgebra) of −B built from the chain's stored rates (state
    /// 0 left out, its entry of the result 0): the independent reference of the bound
    /// solves' tests.
    fn dense_solve<S>(c: &Explored<S>) -> impl Fn(&[f64]) -> Vec<f64> {
        let n = c.len();
        let mut a = nalgebra::DMatrix::<f64>::zeros(n - 1, n - 1);
        for i in 1..n {
            a[(i - 1, i - 1)] += c.total[i];
            for k in c.out_off[i]..c.out_off[i + 1] {
                let j = c.out_to[k] as usize;
                a[(i - 1, j - 1)] -= c.out_rate[k];
            }
        }
        let lu = a.lu();
        move |b: &[f64]| -> Vec<f64> {
            let v = nalgebra::DVector::from_iterator(n - 1, b[1..].iter().copied());
            let y = lu
                .solve(&v)
                .expect("-B of an irreducible truncation is nonsingular");
            std::iter::once(0.0).chain(y.iter().copied()).collect()
        }
    }

    /// The triangle a + b ≤ `top` of [`Two`] explored, with the ILU(0) smoother.
    fn ilu_triangle(top: u32, max_states: usize) -> Explored<(u32, u32)> {
        let mut c = explore(&Two { top, hint: None }, max_states).unwrap();
        c.smoother = Smoother::Ilu;
        c
    }

    fn right_coarse(s: &Solver<'_, (u32, u32)>, w: &[f64]) -> Coarse {
        coarse_right(s, w)
    }

    #[test]
    fn the_least_squares_slope_of_a_line_is_its_slope() {
        // Source: the construction. y = 3x − 1 exactly; then y = 3x + r with residuals
        // r = (0.5, −0.5, −0.5, 0.5) at x = 0..3, whose own slope Σ(x − 1.5)r / Σ(x − 1.5)²
        // is 0, so the fit is 3; tolerance: rounding.
        let line: Vec<(f64, f64)> = (0..9)
            .map(|i| (f64::from(i), 3.0 * f64::from(i) - 1.0))
            .collect();
        assert!((least_squares_slope(&line) - 3.0).abs() < 1e-12);
        let wobble = [(0.0, 0.5), (1.0, 2.5), (2.0, 5.5), (3.0, 9.5)];
        assert!((least_squares_slope(&wobble) - 3.0).abs() < 1e-12);
        assert!(least_squares_slope(&[(1.0, 2.0)]).is_nan());
    }

    #[test]
    fn gmres_reaches_its_residual_with_and_without_restarts() {
        // The triangle a + b ≤ 70 holds 71·72/2 = 2556 states (counted by hand). GMRES on
        // (−B)x = b, preconditioned by the ILU cycle, must leave a true residual
        // ‖b − (−B)x‖₂ ≤ 10·tol·‖b‖₂, computed here from −B's stored rates (not from the
        // Arnoldi recurrence GMRES stops on; the factor 10 allows the recurrence's drift from
        // the true residual), with a long restart and with restarts every 3 vectors.
        let c = ilu_triangle(70, 100_000);
        let n = c.len();
        assert_eq!(n, 2556);
        let s = Solver::new(&c);
        let w = vec![1.0; n];
        let coarse = right_coarse(&s, &w);
        let b: Vec<f64> = (0..n)
            .map(|x| {
                if x == 0 {
                    0.0
                } else {
                    1.0 + (x as f64 * 0.37).sin()
                }
            })
            .collect();
        for (tol, restart) in [(1e-10, 24), (1e-8, 3)] {
            let x = gmres(
                n,
                &b,
                &|v, out| s.apply_right(v, out),
                &|v| s.cycle_right(v, &w, &coarse),
                tol,
                2_000,
                restart,
            );
            let mut res = 0.0;
            let mut bn = 0.0;
            for i in 1..n {
                let mut ax = c.total[i] * x[i];
                for k in c.out_off[i]..c.out_off[i + 1] {
                    ax -= c.out_rate[k] * x[c.out_to[k] as usize];
                }
                res += (b[i] - ax).powi(2);
                bn += b[i] * b[i];
            }
            let rel = (res / bn).sqrt();
            assert!(rel <= 10.0 * tol, "restart {restart}: residual {rel:e}");
        }
    }

    #[test]
    fn a_started_bound_solve_is_an_upper_bound_from_any_guess() {
        // Reference: (−B)⁻¹b by a dense LU (nalgebra) of −B built from the stored rates, on
        // the triangle a + b ≤ 12 (91 states), b the level (the growth). From no guess and
        // from guesses 0.5, 0.999, 1 and 2 times the exact solution, with the certified
        // path's slack 0.3, the upper bound must be ≥ the exact solution at every state
        // (tolerance 1e-12 relative, the dense solve's rounding). The guess 0.999 times
        // the exact solution has a correction within that slack: its solve must return the
        // guess itself as x̂ (no GMRES cycle) and a bound within 1.5 times the solution.
        let c = ilu_triangle(12, 10_000);
        let n = c.len();
        let s = Solver::new(&c);
        let w = vec![1.0; n];
        let coarse = right_coarse(&s, &w);
        let exact = dense_solve(&c);
        let ones: Vec<f64> = (0..n).map(|x| if x == 0 { 0.0 } else { 1.0 }).collect();
        let how = (BOUND_TOLERANCE, true, 0.3);
        let (u1, _) = solve_upper(&s, &ones, &w, &coarse, None, how, None);
        let growth: Vec<f64> = (0..n).map(|x| f64::from(c.level[x])).collect();
        let y = exact(&growth);
        for scale in [None, Some(0.5), Some(0.999), Some(1.0), Some(2.0)] {
            let guess: Option<Vec<f64>> = scale.map(|k| y.iter().map(|v| k * v).collect());
            let (u, x) = solve_upper(&s, &growth, &w, &coarse, Some(&u1), how, guess.as_deref());
            for i in 1..n {
                assert!(
                    u[i] >= y[i] * (1.0 - 1e-12),
                    "guess {scale:?}, state {i}: {} < {}",
                    u[i],
                    y[i]
                );
            }
            if scale == Some(0.999) {
                assert_eq!(Some(&x), guess.as_ref(), "a guess within the slack is kept");
                for i in 1..n {
                    assert!(u[i] <= 1.5 * y[i], "state {i}: {} > 1.5 × {}", u[i], y[i]);
                }
            }
        }
    }

    #[test]
    fn the_residual_correction_bounds_the_solution_and_is_its_least_candidate() {
        // Reference: (−B)⁻¹b by a dense LU (nalgebra) of −B built from the stored rates, on
        // the triangle a + b ≤ 12 (91 states), for b = 1 and for b the indicator of the top
        // level (the shape of the exit rates) and for b the level (the growth). From loose
        // GMRES solutions (1e-2), the corrected vectors must be ≥ the exact solution at every
        // state (the bound's proof; tolerance 1e-12 relative, the dense solve's rounding),
        // and each must be the least of its candidates (x̂ + m_δ·ones)/(1 − δ) over the δ of DELTAS and the δ that
        // clears the residual where b > 0, with m_δ = max(r⁺ − δb)⁺ (the formula of the docs
        // of `corrected`, evaluated here one candidate at a time; tolerance: exact).
        let c = ilu_triangle(12, 10_000);
        let n = c.len();
        let s = Solver::new(&c);
        let w = vec![1.0; n];
        let coarse = right_coarse(&s, &w);
        let exact = dense_solve(&c);
        let solve = |b: &[f64]| -> (Vec<f64>, Vec<f64>) {
            let x = gmres(
                n,
                b,
                &|v, out| s.apply_right(v, out),
                &|v| s.cycle_right(v, &w, &coarse),
                1e-2,
                300,
                24,
            );
            let x: Vec<f64> = x.iter().map(|v| v.max(0.0)).collect();
            let r = s.residual_right_dd(&x, &vec![0.0; n], b);
            (x, r)
        };
        let ones: Vec<f64> = (0..n).map(|x| if x == 0 { 0.0 } else { 1.0 }).collect();
        let top: Vec<f64> = (0..n)
            .map(|x| if x > 0 && c.level[x] == 12 { 1.0 } else { 0.0 })
            .collect();
        let (x1, r1) = solve(&ones);
        let u1 = corrected(&x1, &r1, &ones, None, true);
        let growth: Vec<f64> = (0..n).map(|x| f64::from(c.level[x])).collect();
        for b in [&top, &growth] {
            let (xb, rb) = solve(b);
            let ub = corrected(&xb, &rb, b, Some(&u1), true);
            for (u, b) in [(&u1, &ones), (&ub, b)] {
                let y = exact(b);
                for i in 1..n {
                    assert!(
                        u[i] >= y[i] * (1.0 - 1e-12),
                        "state {i}: {} < {}",
                        u[i],
                        y[i]
                    );
                }
            }
            let rp = |i: usize| rb[i].max(0.0);
            let mut deltas = DELTAS.to_vec();
            let full = (1..n)
                .filter(|&i| b[i] > 0.0)
                .fold(0.0f64, |m, i| m.max(rp(i) / b[i]));
            if full < 1.0 {
                deltas.push(full);
            }
            for i in 1..n {
                let least = deltas
                    .iter()
                    .map(|&d| {
                        let m = (1..n).fold(0.0f64, |m, j| m.max(rp(j) - d * b[j]));
                        if m > 0.0 {
                            (xb[i] + m * u1[i]) / (1.0 - d)
                        } else {
                            xb[i] / (1.0 - d)
                        }
                    })
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(ub[i], least, "state {i}");
            }
        }
    }

    #[test]
    fn a_size_hint_changes_nothing_but_the_memory() {
        // The triangle a + b ≤ 40 holds 41·42/2 = 861 states (counted by hand). Explored
        // and solved without a hint and with an exact, a too small and a too large one: the
        // same states in the same order, the same transitions, and stationary vectors within
        // 1e-11 of each other (the same arithmetic on the same arrays).
        let plain = explore(
            &Two {
                top: 40,
                hint: None,
            },
            100_000,
        )
        .unwrap();
        assert_eq!(plain.len(), 861);
        let want = stationary(&plain).unwrap();
        // An independent check that the solve is the one of two M/M/1 queues: the product
        // form (1 − ρ_1)(1 − ρ_2) = 0.7·0.6 = 0.42 at (0, 0), which the truncation at 40
        // (mass beyond about 0.4^40) does not move by 1e-11.
        assert!((want.pi[0] - 0.42).abs() < 1e-11, "{}", want.pi[0]);
        for hint in [Some(861), Some(10), Some(1_000_000)] {
            let c = explore(&Two { top: 40, hint }, 100_000).unwrap();
            assert_eq!(c.states, plain.states, "{hint:?}");
            assert_eq!(c.transitions(), plain.transitions(), "{hint:?}");
            let st = stationary(&c).unwrap();
            for (a, b) in st.pi.iter().zip(&want.pi) {
                assert!((a - b).abs() <= 1e-11, "{hint:?}: {a} vs {b}");
            }
        }
    }
    #[test]
    fn the_block_solve_solves_a_block_tridiagonal_system() {
        // Independent check: the solution x of the factorised block-tridiagonal system is
        // multiplied back by the blocks themselves (the matrix written out), and A x must
        // reproduce the right-hand side to 1e-12 relative. The matrix: 5 levels of 3 × 3
        // blocks, a diagonally dominant M-matrix (entries from sin/cos, so that no
        // symmetry hides a transposed block), one block with a zero row made an identity
        // row as the empty aggregates are.
        let (k, m) = (3usize, 5usize);
        let kk = k * k;
        let f = |i: usize| 0.1 + (i as f64 * 0.37).sin().abs();
        let mut low = vec![0.0; m * kk];
        let mut up = vec![0.0; m * kk];
        let mut diag = vec![0.0; m * kk];
        for l in 0..m {
            for a in 0..k {
                let mut row = 0.0;
                for b in 0..k {
                    let i = l * kk + a * k + b;
                    if l > 0 {
                        low[i] = -f(i);
                        row += f(i);
                    }
                    if l + 1 < m {
                        up[i] = -f(i + 1000);
                        row += f(i + 1000);
                    }
                    if a != b {
                        diag[i] = -f(i + 2000);
                        row += f(i + 2000);
                    }
                }
                diag[l * kk + a * k + a] = row + 0.5 + (a as f64).cos().abs();
            }
        }
        // An empty aggregate: level 2, group 1 has an identity row and column.
        for b in 0..k {
            for (arr, l) in [(&mut low, 2), (&mut up, 2), (&mut diag, 2)] {
                arr[l * kk + k + b] = 0.0;
            }
            if b != 1 {
                diag[2 * kk + b * k + 1] = 0.0;
            }
            up[kk + b * k + 1] = 0.0;
            low[3 * kk + b * k + 1] = 0.0;
        }
        diag[2 * kk + k + 1] = 1.0;
        let rhs: Vec<f64> = (0..m * k).map(|i| (i as f64 * 1.1).cos()).collect();
        let block = Block::new(k, m, low.clone(), diag.clone(), &up);
        let x = block.solve(&rhs);
        for l in 0..m {
            for a in 0..k {
                let mut s = 0.0;
                for b in 0..k {
                    s += diag[l * kk + a * k + b] * x[l * k + b];
                    if l > 0 {
                        s += low[l * kk + a * k + b] * x[(l - 1) * k + b];
                    }
                    if l + 1 < m {
                        s += up[l * kk + a * k + b] * x[(l + 1) * k + b];
                    }
                }
                let want = rhs[l * k + a];
                assert!(
                    (s - want).abs() <= 1e-12 * (1.0 + want.abs()),
                    "{l} {a}: {s} vs {want}"
                );
            }
        }
    }

    #[test]
    fn groups_change_the_speed_of_the_solves_not_their_solutions() {
        // The two M/M/1 queues of `Two`, truncated at a + b ≤ 40, each level split by the
        // share a/(level + 1) into 4 groups. Independent reference: the product form
        // (1 − 0.3)(1 − 0.4)·0.3^a·0.4^b, renormalised over the triangle (0.42 at (0, 0) up to
        // the 0.4^41 cut). The stationary vector, with both smoothers, grouped and not, must
        // match it to 1e-11 at every state; and a right solve (−B)x = 1 preconditioned by the
        // grouped cycle must leave a residual below 1e-9 of ‖1‖₂, checked by −B's own product.
        let mut c = explore(
            &Two {
                top: 40,
                hint: None,
            },
            100_000,
        )
        .unwrap();
        let n = c.len();
        let norm: f64 = c
            .states
            .iter()
            .map(|&(a, b)| 0.3f64.powi(a as i32) * 0.4f64.powi(b as i32))
            .sum();
        let want: Vec<f64> = c
            .states
            .iter()
            .map(|&(a, b)| 0.3f64.powi(a as i32) * 0.4f64.powi(b as i32) / norm)
            .collect();
        let groups: Vec<u8> = c
            .states
            .iter()
            .map(|&(a, b)| ((a as usize * 4) / (a + b + 1) as usize).min(3) as u8)
            .collect();
        assert!(c.set_groups(2, groups.clone()).is_err());
        for grouped in [false, true] {
            if grouped {
                c.set_groups(4, groups.clone()).unwrap();
                assert_eq!(c.group_count(), 4);
            } else {
                c.set_groups(1, Vec::new()).unwrap();
                assert_eq!(c.group_count(), 1);
            }
            for sm in [Smoother::GaussSeidel, Smoother::Ilu] {
                c.smoother = sm;
                let st = stationary(&c).unwrap();
                for (x, (a, b)) in st.pi.iter().zip(&want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-11,
                        "{grouped} {sm:?} state {:?}: {a} vs {b}",
                        c.states[x]
                    );
                }
                let solver = Solver::new(&c);
                // The right system's correction for π̂'s shape, grouped or not (c.smoother is sm).
                let coarse = bounds::coarse_right(&solver, &st.pi);
                assert_eq!(coarse.block.is_some(), grouped);
                let ones: Vec<f64> = (0..n).map(|x| if x == 0 { 0.0 } else { 1.0 }).collect();
                let x = gmres(
                    n,
                    &ones,
                    &|v, out| solver.apply_right(v, out),
                    &|v| solver.cycle_right(v, &st.pi, &coarse),
                    1e-10,
                    INNER_ITERATIONS,
                    GMRES_RESTART,
                );
                let mut ax = vec![0.0; n];
                solver.apply_right(&x, &mut ax);
                let res: f64 = (1..n)
                    .map(|i| (ones[i] - ax[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(
                    res <= 1e-9 * ((n - 1) as f64).sqrt(),
                    "{grouped} {sm:?}: residual {res:e}"
                );
            }
        }
    }
}
