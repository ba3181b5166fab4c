//! The enclosure of a truncated level chain (the parent module's docs give the argument):
//! upper bounds of (−B)⁻¹b from approximate solves, the re-entry LP, the bound a smaller
//! truncation hands on, and the enclosures of stationary means they give.

use super::*;
/// Candidate splits δ of a bound solve's residual r⁺ ≤ δ·b + m·1 ([`corrected`]).
pub(super) const DELTAS: [f64; 9] = [0.0, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3];

/// A rigorous upper bound on y = (−B)⁻¹b (b ≥ 0) from an approximate solution x̂ and its
/// residual r = b − (−B)x̂, given an upper bound `ones` of (−B)⁻¹1 (`None` when b is 1 on
/// every unknown, the solve of that bound itself).
///
/// For any δ ∈ [0, 1) and m = max_x (r⁺(x) − δ b(x))⁺, r ≤ δ b + m·1, so the error
/// e = y − x̂ = (−B)⁻¹r ≤ δ y + m (−B)⁻¹1 because (−B)⁻¹ ≥ 0 (−B is a nonsingular
/// M-matrix; Varga, *Matrix Iterative Analysis*, 2000, Thm 3.18), hence
/// y ≤ (x̂ + m·ones)/(1 − δ). Each δ gives an upper bound; their least, state by state,
/// is one too. δ = 0 is the plain correction x̂ + max(r⁺)·ones; a δ > 0 charges the part
/// of the residual proportional to b to y itself (a relative widening by 1/(1 − δ))
/// instead of to the far larger (−B)⁻¹1 where b is small. So a bound solve needs only a
/// loose residual ([`BOUND_TOLERANCE`]): its error widens the bound by about its relative
/// residual, it never makes it less than y (`split` = false: δ = 0 only). With b = 1
/// (`ones` = `None`), m = 0 at δ = max r⁺ and the bound is x̂/(1 − max r⁺).
pub(super) fn corrected(
    x: &[f64],
    r: &[f64],
    b: &[f64],
    ones: Option<&[f64]>,
    split: bool,
) -> Vec<f64> {
    let n = x.len();
    // A NaN residual is treated as +∞ (no bound).
    let rp = |i: usize| {
        if r[i].is_nan() {
            f64::INFINITY
        } else {
            r[i].max(0.0)
        }
    };
    let Some(u1) = ones else {
        let delta = (1..n).fold(0.0f64, |m, i| m.max(rp(i)));
        return if delta < 1.0 {
            x.iter().map(|v| v / (1.0 - delta)).collect()
        } else {
            vec![f64::INFINITY; n]
        };
    };
    // The fixed candidates and the δ that leaves m the residual where b vanishes; without
    // `split`, δ = 0 alone: the plain x̂ + max(r⁺)·ones (the tests' reference).
    let mut deltas: Vec<f64> = if split { DELTAS.to_vec() } else { vec![0.0] };
    let full = (1..n)
        .filter(|&i| b[i] > 0.0)
        .fold(0.0f64, |m, i| m.max(rp(i) / b[i]));
    if split && full < 1.0 {
        deltas.push(full);
    }
    // Every candidate's m in one pass over the states, then every candidate's bound in one
    // more (the same values as a pass per candidate, in a tenth of the memory traffic).
    let mut ms = vec![0.0f64; deltas.len()];
    for (i, &bi) in b.iter().enumerate().take(n).skip(1) {
        let ri = rp(i);
        for (m, delta) in ms.iter_mut().zip(&deltas) {
            *m = m.max(ri - delta * bi);
        }
    }
    let mut best = vec![f64::INFINITY; n];
    best[0] = 0.0;
    for i in 1..n {
        let (xi, ui) = (x[i], u1[i]);
        let mut low = f64::INFINITY;
        for (&m, delta) in ms.iter().zip(&deltas) {
            let shrink = 1.0 - delta;
            // m = 0: no term (an infinite `ones` bound must not make 0·∞ = NaN).
            let v = if m > 0.0 {
                (xi + m * ui) / shrink
            } else {
                xi / shrink
            };
            // A NaN (from a non-finite residual) is no bound: it stays +∞.
            if v < low {
                low = v;
            }
        }
        best[i] = low;
    }
    best
}

/// An upper bound of (−B)⁻¹b for b ≥ 0 ([`corrected`]): GMRES to `tolerance`,
/// refined while the correction widens the bound by more than the slack asked
/// ([`BoundOptions::slack`]) on the boundary (at most [`MAX_BOUND_CYCLES`] cycles; the
/// bound is valid after any of them). From `start` (a guess of (−B)⁻¹b, e.g. a smaller
/// truncation's solution; any guess gives a valid bound) when given: its correction is
/// judged first, and GMRES solves for the rest. Returns the upper bound and the computed
/// solution x̂ it corrects.
pub(super) fn solve_upper<S>(
    solver: &Solver<'_, S>,
    b: &[f64],
    w: &[f64],
    coarse: &Coarse,
    ones: Option<&[f64]>,
    (tolerance, split, most_slack): (f64, bool, f64),
    start: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>) {
    let n = solver.n();
    let mut xh = vec![0.0; n];
    let xl = vec![0.0; n];
    let mut r = b.to_vec();
    r[0] = 0.0;
    let mut upper = vec![f64::INFINITY; n];
    // The largest widening of the correction on the boundary (relative to the bound there,
    // or SLACK_FLOOR of the largest bound there).
    let slack_of = |upper: &[f64], xh: &[f64]| -> f64 {
        let bd = &solver.c.boundary;
        let top = bd.iter().map(|&i| upper[i as usize]).fold(0.0f64, f64::max);
        let floor = SLACK_FLOOR * top;
        bd.iter()
            .map(|&i| i as usize)
            .filter(|&i| i != 0)
            .map(|i| (upper[i] - xh[i]) / upper[i].max(floor))
            .fold(
                0.0f64,
                |m, v| if v.is_nan() { f64::INFINITY } else { m.max(v) },
            )
    };
    // The residual of x̂ in double-double, the upper bound it gives and its slack, traced
    // under `label`.
    let measure = |xh: &[f64], label: std::fmt::Arguments<'_>| {
        let r = solver.residual_right_dd(xh, &xl, b);
        let upper = corrected(xh, &r, b, ones, split);
        let slack = slack_of(&upper, xh);
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            eprintln!("    bound solve {label}: slack {slack:.2e}");
        }
        (r, upper, slack)
    };
    if let Some(g) = start.filter(|g| g.len() == n && g.iter().all(|v| v.is_finite())) {
        for x in 1..n {
            xh[x] = g[x].max(0.0);
        }
        let slack;
        (r, upper, slack) = measure(&xh, format_args!("start"));
        if slack <= most_slack {
            return (upper, xh);
        }
    }
    for cycle in 0..MAX_BOUND_CYCLES {
        let d = gmres(
            n,
            &r,
            &|v, out| solver.apply_right(v, out),
            &|v| solver.cycle_right(v, w, coarse),
            tolerance,
            INNER_ITERATIONS,
            solver.c.restart,
        );
        for x in 1..n {
            xh[x] = (xh[x] + d[x]).max(0.0);
        }
        let slack;
        (r, upper, slack) = measure(&xh, format_args!("cycle {cycle}"));
        if slack <= most_slack {
            break;
        }
    }
    (upper, xh)
}

/// The enclosure's ingredients for one chain (module docs).
#[derive(Debug, Clone)]
pub struct Bounds {
    /// For g = 1 and g = G: the part of the bound on b_g/a_1 that does not scale with
    /// π̂(f): F(V_g) + ε̂α_g + β_g F(W_g), per face of the exits.
    pub outside: [[f64; FACES]; 2],
    /// ε̂: the exit rate under π̂, per face.
    pub exit_rate: [f64; FACES],
    /// max_A p̂: the largest probability of an exit before z (0 without exits).
    pub max_exit_probability: f64,
    /// (α_g, β_g) of the re-entry costs u_g ≤ V_g + α_g + β_g W_g on the boundary.
    pub reentry: [(f64, f64); 2],
    /// Σ|r|·U_1 and Σ|r|·U_G over y's residual, relative to Σy.
    pub solve_error: [f64; 2],
    /// Whether a Lyapunov certificate backs the bound.
    pub certified: bool,
    /// Linear solves (−B)x = b made for the bound.
    pub solves: usize,
}

/// The least ε̂α + Fβ over α, β ≥ 0 with α·a_w + β·b_w ≥ c_w at every boundary state w
/// (a_w = 1 − p̂(w), which may be ≤ 0 where an exit is almost certain): for each β the
/// least α is explicit, and the objective is scanned over β on a logarithmic grid and
/// refined by golden section around the best point. (+∞, +∞) when nothing is feasible.
fn reentry_lp(eps: f64, f: f64, a: &[f64], b: &[f64], c: &[f64]) -> (f64, f64) {
    let alpha = |beta: f64| -> f64 {
        let mut al = 0.0f64;
        for ((&a, &b), &c) in a.iter().zip(b).zip(c) {
            if a > 0.0 {
                al = al.max((c - beta * b) / a);
            }
        }
        // The constraints with a ≤ 0 must hold at that α.
        for ((&a, &b), &c) in a.iter().zip(b).zip(c) {
            if a <= 0.0 && al * a + beta * b < c {
                return f64::INFINITY;
            }
        }
        al
    };
    let obj = |beta: f64| {
        let al = alpha(beta);
        if al.is_finite() {
            eps * al + f * beta
        } else {
            f64::INFINITY
        }
    };
    let scale = b
        .iter()
        .zip(c)
        .filter(|(&b, _)| b > 0.0)
        .map(|(&b, &c)| c / b)
        .fold(0.0f64, f64::max)
        .max(1e-300);
    let mut best = (obj(0.0), 0.0);
    for k in 0..=REENTRY_GRID {
        let beta = scale * 10f64.powf(-12.0 + 14.0 * k as f64 / REENTRY_GRID as f64);
        let o = obj(beta);
        if o < best.0 {
            best = (o, beta);
        }
    }
    if !best.0.is_finite() {
        return (f64::INFINITY, f64::INFINITY);
    }
    // Golden section on [β/1.2, β·1.2] (the objective is convex where finite).
    let (mut lo, mut up) = (best.1 / 1.2, best.1 * 1.2);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..REENTRY_ITERATIONS {
        let m1 = up - g * (up - lo);
        let m2 = lo + g * (up - lo);
        if obj(m1) <= obj(m2) {
            up = m2;
        } else {
            lo = m1;
        }
    }
    for beta in [lo, up] {
        let o = obj(beta);
        if o < best.0 {
            best = (o, beta);
        }
    }
    (alpha(best.1), best.1)
}

/// Relative spread of the ratios a/b below which [`proportional`] calls a proportional to b.
const PROPORTIONAL_SPREAD: f64 = 1e-9;

/// The least c (rounded up) with a ≤ c·b at every unknown, when a is proportional to b up
/// to rounding: the same support and every ratio a(x)/b(x) within [`PROPORTIONAL_SPREAD`]
/// of the others (a, b ≥ 0). Then (−B)⁻¹a ≤ c·(−B)⁻¹b, since (−B)⁻¹ ≥ 0 (Varga 2000, Thm
/// 3.18), so c times an upper bound of (−B)⁻¹b is one of (−B)⁻¹a, without a solve of its
/// own. `None` when a is not proportional to b.
fn proportional(a: &[f64], b: &[f64]) -> Option<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (&x, &y) in a.iter().zip(b).skip(1) {
        if !(x >= 0.0 && y >= 0.0) {
            return None;
        }
        if y > 0.0 {
            let r = x / y;
            lo = lo.min(r);
            hi = hi.max(r);
        } else if x != 0.0 {
            return None;
        }
    }
    if lo == f64::INFINITY {
        // Both vanish on every unknown.
        return Some(0.0);
    }
    // hi·(1 + 4ε) is at least every exact ratio (each r is x/y rounded to nearest).
    (hi.is_finite() && hi <= lo * (1.0 + PROPORTIONAL_SPREAD))
        .then_some(hi * (1.0 + 4.0 * f64::EPSILON))
}

/// Which right-hand sides of the bound get a solve of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundSolves {
    /// A right-hand side proportional to one already solved ([`proportional`]: e.g. V_g
    /// and W_g multiples of one function, as the quadratic certificates are) reuses its
    /// upper bound, and b + e_{V_g} is bounded by the upper bounds of b and e_{V_g}
    /// ((−B)⁻¹ is linear and nonnegative): 4 solves instead of 7 when V_1, V_G, W_1 and W_G
    /// are multiples of one function.
    Shared,
    /// Every right-hand side solved on its own (7 solves; the reference the shared path is
    /// tested against).
    Separate,
}

/// How the bound's solves are made ([`bounds_opts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundOptions {
    /// Which right-hand sides get a solve of their own.
    pub solves: BoundSolves,
    /// The GMRES tolerance of each refinement cycle ([`BOUND_TOLERANCE`]).
    pub tolerance: f64,
    /// Whether the residual correction splits the residual between b and 1 ([`corrected`]);
    /// `false`: the plain x̂ + max(r⁺)·(−B)⁻¹1, the reference of the tests.
    pub split: bool,
    /// The solves of the costs (1, G, and their sums with the exits' expected V) are
    /// refined while the residual correction widens their upper bound by more than this
    /// fraction at some state where the chain enters A ([`BOUND_SLACK`]): any value gives
    /// a valid upper bound, a larger one a wider bound from fewer GMRES cycles. The exit
    /// probability p̂ and the exits' ŵ keep at most [`BOUND_SLACK`]: the re-entry bound
    /// reads them as 1 − p̂ and W − ŵ, differences near 0 at the face of A that a wider
    /// upper bound turns negative (the N-model at λ = (0.1, 1.7) under MRF-ROS, 230 648
    /// states: with 0.3 for every solve, 1 124 of 1 184 entry states had p̂ ≥ 1 and the
    /// enclosure was unbounded).
    pub slack: f64,
}

impl Default for BoundOptions {
    fn default() -> Self {
        BoundOptions {
            solves: BoundSolves::Shared,
            tolerance: BOUND_TOLERANCE,
            split: true,
            slack: BOUND_SLACK,
        }
    }
}

/// The level (or block) correction of the right solves for the weights w.
pub(super) fn coarse_right<S>(solver: &Solver<'_, S>, w: &[f64]) -> Coarse {
    let c = solver.c;
    if c.group_count > 1 {
        solver.coarse_blocks(w, false)
    } else {
        let (sub, diag, sup, wsum) = solver.coarse(w);
        let p = solver.prolongation(w, &wsum);
        let agg = if c.smoother == Smoother::Ilu {
            solver.agg_right()
        } else {
            Vec::new()
        };
        Coarse {
            sub,
            diag,
            sup,
            p,
            agg,
            block: None,
        }
    }
}

/// Computes the enclosure's ingredients after the stationary solve (module docs), sharing
/// the bound's solves where the right-hand sides allow ([`BoundSolves::Shared`]).
pub fn bounds<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
) -> Bounds {
    bounds_opts(chain, c, st, BoundOptions::default())
}

/// [`bounds`] with every choice of its solves given.
pub fn bounds_opts<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    opts: BoundOptions,
) -> Bounds {
    bounds_with(chain, c, st, opts, None, None, None)
}

/// The upper bounds of (−B)⁻¹b that one call of [`bounds_reusing`] solved, kept for the
/// next call on the same explored chain (in the order the solves are made).
#[derive(Debug, Clone, Default)]
pub struct BoundSolveCache {
    vectors: Vec<Vec<f64>>,
}

/// [`bounds`], reusing the bound's solves that an earlier call on the same chain `c` (the
/// same states, rates and Lyapunov values) left in `cache`, and leaving there the ones it
/// makes. The solves' right-hand sides (1, the growth, the exits' rates and expected
/// Lyapunov values) and their upper bounds of (−B)⁻¹b do not depend on π̂ (π̂ only weights
/// the level correction of their preconditioner, any positive weights serve), so after a
/// refinement of the stationary solve only the sums under π̂, the solve's error and the
/// re-entry LP's objective are recomputed: the bound's 4 solves (1.8-2.9 times the
/// stationary solve's cost) are not made twice.
pub fn bounds_reusing<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    cache: &mut BoundSolveCache,
) -> Bounds {
    bounds_with(
        chain,
        c,
        st,
        BoundOptions::default(),
        Some(cache),
        None,
        None,
    )
}

/// The computed solutions x̂ of the bound's solves, in the order they are made, by state
/// index of the chain they were solved on; given to [`bounds_started`] as guesses (mapped
/// to its states by the caller) and replaced there by its own.
#[derive(Debug, Clone, Default)]
pub struct BoundStarts {
    /// One vector per solve made (the order of [`bounds_with`]: 1, G, the exit rates, the
    /// exits' W, then the costs' sums, each when not shared).
    pub vectors: Vec<Vec<f64>>,
}

/// [`bounds_opts`], each solve started from the guess `starts` holds for it (a vector of
/// another length, or none, starts from 0), `starts` left holding this chain's solutions.
/// A guess changes how many GMRES cycles a solve takes, never the validity of its upper
/// bound ([`corrected`] bounds (−B)⁻¹b from any x̂ and its residual).
pub fn bounds_started<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    opts: BoundOptions,
    starts: &mut BoundStarts,
) -> Bounds {
    bounds_with(chain, c, st, opts, None, Some(starts), None)
}

/// The part of the bound on b_g/a_1 that does not scale with π̂(f), per face (module docs):
/// F(V_g) + ε̂α_g + β_g F(W_g), a zero α or β adding nothing (not 0·∞).
fn outside_of(
    f_v: [f64; FACES],
    eps: [f64; FACES],
    (alpha, beta): (f64, f64),
    f_w: [f64; FACES],
) -> [f64; FACES] {
    std::array::from_fn(|face| {
        f_v[face]
            + if alpha > 0.0 { eps[face] * alpha } else { 0.0 }
            + if beta > 0.0 { beta * f_w[face] } else { 0.0 }
    })
}

/// A truncation A′'s re-entry bound, handed on to a larger truncation A ⊇ A′ so that A's
/// enclosure needs no solves on A (module docs, "A bound handed on"): the re-entry LP's
/// constraints at A′'s entry states, and per state of A′ the upper bounds its solves gave of
/// p̂′, â′_k + v̂′_k and ŵ′_k (k = 0: g = 1; k = 1: g = G).
#[derive(Debug, Clone)]
pub struct Handed<S> {
    /// The index of each state of A′.
    index: FxHashMap<S, u32>,
    /// Per k: the constraints (a_w, b_w, c_w) of (R) at A′'s entry states.
    lp: [[Vec<f64>; 3]; 2],
    /// Upper bounds of p̂′ by state of A′.
    pe: Vec<f64>,
    /// Per k: upper bounds of (−B′)⁻¹(g_k + e_{V_k}) by state of A′.
    ag: [Vec<f64>; 2],
    /// Per k: upper bounds of ŵ′_k = (−B′)⁻¹e_{W_k} by state of A′.
    vw: [Vec<f64>; 2],
    /// The Lyapunov values (V_1, V_G, W_1, W_G) at A′'s entry states, which (R) was imposed
    /// with: A's chain must give the same ones ([`bounds_handed`] checks it).
    lyap: Vec<(S, Option<[f64; 4]>)>,
}

impl<S> Handed<S> {
    /// States of A′.
    pub fn len(&self) -> usize {
        self.pe.len()
    }

    /// True when A′ holds no state (never: z is in it).
    pub fn is_empty(&self) -> bool {
        self.pe.is_empty()
    }
}

/// Whether a truncation of `states` states under a limit of `max_states` hands its bound
/// on ([`bounds_handing`], [`bounds_started_handing`]): one holding more than a quarter of
/// the limit is rarely followed by a larger one, and the index of its states would cost
/// memory.
pub fn may_hand_on(states: usize, max_states: usize) -> bool {
    states <= max_states / 4
}

/// [`bounds`], also handing on what a larger truncation needs of this one's bound
/// ([`Handed`]; `None` when the bound is not finite), reusing and filling `cache` as
/// [`bounds_reusing`] does.
pub fn bounds_handing<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    cache: &mut BoundSolveCache,
) -> (Bounds, Option<Handed<S>>) {
    let mut h = None;
    let b = bounds_with(
        chain,
        c,
        st,
        BoundOptions::default(),
        Some(cache),
        None,
        Some(&mut h),
    );
    (b, h)
}

/// The enclosure's ingredients of the truncation A from the re-entry bound of a smaller
/// truncation A′ ⊆ A (module docs, "A bound handed on"), with no solve on A: `chain` must
/// carry A′'s Lyapunov functions (they hold outside A′, hence outside A). `None` when A′
/// is not inside A, when `chain`'s Lyapunov values differ from A′'s at A′'s entry states,
/// when A has no certificate, or when the re-entry LP has no finite optimum.
pub fn bounds_handed<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    h: &Handed<S>,
) -> Option<Bounds> {
    let n = c.len();
    if !c.certified || n == 0 || c.states[0] != chain.start() {
        return None;
    }
    if h.index.keys().any(|s| !chain.inside(s)) {
        return None;
    }
    if h.lyap.iter().any(|(s, v)| chain.lyapunov(s) != *v) {
        return None;
    }
    let ysum = st.y_total();
    let at: Vec<Option<u32>> = c.states.iter().map(|s| h.index.get(s).copied()).collect();
    // p̂_A ≤ p̂′ on A′ (an exit from A before z first exits A′), ≤ 1 elsewhere.
    let pe = |x: usize| at[x].map_or(1.0, |j| h.pe[j as usize].min(1.0));
    let mut out = Bounds {
        outside: [[0.0; FACES]; 2],
        exit_rate: [0.0; FACES],
        max_exit_probability: 0.0,
        reentry: [(0.0, 0.0); 2],
        solve_error: [0.0; 2],
        certified: true,
        solves: 0,
    };
    // Σ|r|·p̂/Σy over A ∖ {z}.
    let e_pe = (1..n).map(|x| st.abs_residual[x] * pe(x)).sum::<f64>() / ysum;
    out.max_exit_probability = (1..n).map(pe).fold(0.0f64, f64::max);
    // Exit rates and F(V_k), F(W_k) per face under π̂, and the largest mean of V_k and W_k
    // over one state's exit targets (E_x[V(X_σ); σ < τ_z] ≤ p̂(x) times it).
    let mut f_g = [[0.0; FACES]; 2];
    let mut f_raw = [[0.0; FACES]; 2];
    let mut top = [0.0f64; 4];
    for row in &c.exits {
        let pi = st.pi[row.state as usize];
        let face = usize::from(row.face);
        out.exit_rate[face] += pi * row.rate;
        for k in 0..2 {
            f_g[k][face] += pi * row.v[k];
            f_raw[k][face] += pi * row.v[2 + k];
        }
        for (t, v) in top.iter_mut().zip(row.v) {
            *t = t.max(v / row.rate);
        }
    }
    out.exit_rate[0] += e_pe;
    let eps_total: f64 = out.exit_rate.iter().sum();
    let mut ab = [(0.0f64, 0.0f64); 2];
    for k in 0..2 {
        f_raw[k][0] += top[2 + k] * e_pe;
        let f_raw_total: f64 = f_raw[k].iter().sum();
        let [aw, bw, cw] = &h.lp[k];
        let (alpha, beta) = reentry_lp(eps_total, f_raw_total, aw, bw, cw);
        if !(alpha.is_finite() && beta.is_finite()) {
            return None;
        }
        ab[k] = (alpha, beta);
    }
    // Σ|r|·u_k/Σy with u_k ≤ â′ + v̂′ + αp̂′ + βŵ′ on A′ and ≤ V_k + α + βW_k outside it
    // ((−B)⁻¹g_k ≤ u_k), both k in one pass (one Lyapunov evaluation per state).
    let mut e_u = [0.0f64; 2];
    for (x, (&r, &here)) in st.abs_residual.iter().zip(&at).enumerate().skip(1) {
        if r == 0.0 {
            continue;
        }
        let u: [f64; 2] = match here {
            Some(j) => {
                let j = j as usize;
                std::array::from_fn(|k| {
                    let (alpha, beta) = ab[k];
                    h.ag[k][j] + alpha * h.pe[j] + if beta > 0.0 { beta * h.vw[k][j] } else { 0.0 }
                })
            }
            None => match chain.lyapunov(&c.states[x]) {
                Some(v) => std::array::from_fn(|k| {
                    let (alpha, beta) = ab[k];
                    v[k] + alpha + if beta > 0.0 { beta * v[2 + k] } else { 0.0 }
                }),
                None => return None,
            },
        };
        for k in 0..2 {
            e_u[k] += r * u[k];
        }
    }
    for k in 0..2 {
        let (alpha, beta) = ab[k];
        let e = e_u[k] / ysum;
        if !e.is_finite() {
            return None;
        }
        out.solve_error[k] = e;
        f_g[k][0] += e + top[k] * e_pe;
        out.reentry[k] = (alpha, beta);
        out.outside[k] = outside_of(f_g[k], out.exit_rate, (alpha, beta), f_raw[k]);
    }
    Some(out)
}

/// [`bounds_started`], also handing on what a larger truncation needs of this one's bound
/// ([`Handed`]; `None` when the bound is not finite).
pub fn bounds_started_handing<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    opts: BoundOptions,
    starts: &mut BoundStarts,
) -> (Bounds, Option<Handed<S>>) {
    let mut h = None;
    let b = bounds_with(chain, c, st, opts, None, Some(starts), Some(&mut h));
    (b, h)
}

fn bounds_with<S: Clone + Eq + Hash, C: LevelChain<State = S>>(
    chain: &C,
    c: &Explored<S>,
    st: &Stationary,
    opts: BoundOptions,
    cache: Option<&mut BoundSolveCache>,
    starts: Option<&mut BoundStarts>,
    hand: Option<&mut Option<Handed<S>>>,
) -> Bounds {
    let solves = opts.solves;
    // The guesses of the solves, by the order they are made, and the solutions they leave.
    let given: Vec<Vec<f64>> = starts
        .as_ref()
        .map(|s| s.vectors.clone())
        .unwrap_or_default();
    let solved = std::cell::RefCell::new(Vec::<Vec<f64>>::new());
    let start = |i: usize| given.get(i).map(|v| v.as_slice());
    // The costs' solves (1, G and their sums with the exits' V) at the slack asked; the
    // exit probability and the exits' W at BOUND_SLACK ([`BoundOptions::slack`]).
    let how = (opts.tolerance, opts.split, opts.slack);
    let exits_how = (opts.tolerance, opts.split, opts.slack.min(BOUND_SLACK));
    let n = c.len();
    let solver = Solver::new(c);
    // The solves are made in a fixed order (their right-hand sides and the choice of which
    // are shared depend only on the chain): the i-th one is the cache's i-th vector.
    let cache = std::cell::RefCell::new(cache);
    let cached = |i: usize| -> Option<Vec<f64>> {
        cache
            .borrow()
            .as_ref()
            .and_then(|k| k.vectors.get(i).cloned())
            .filter(|v| v.len() == n)
    };
    let keep = |i: usize, v: &[f64]| {
        if let Some(k) = cache.borrow_mut().as_mut() {
            if k.vectors.len() == i {
                k.vectors.push(v.to_vec());
            }
        }
    };
    let w: Vec<f64> = st.pi.clone();
    // Built on the first solve (not at all when every solve is in the cache).
    let coarse_cell = std::cell::OnceCell::new();
    let coarse = || coarse_cell.get_or_init(|| coarse_right(&solver, &w));
    let ones: Vec<f64> = (0..n).map(|x| if x == 0 { 0.0 } else { 1.0 }).collect();
    let g: Vec<f64> = (0..n)
        .map(|x| {
            if x == 0 {
                0.0
            } else {
                chain.growth(&c.states[x])
            }
        })
        .collect();
    // Solves made (not taken from the cache).
    let made = std::cell::Cell::new(0usize);
    // (−B)⁻¹1 ≤ x̂_1/(1 − max r⁺).
    let u1v = cached(0).unwrap_or_else(|| {
        made.set(1);
        let (u, x) = solve_upper(&solver, &ones, &w, coarse(), None, how, start(0));
        keep(0, &u);
        solved.borrow_mut().push(x);
        u
    });
    let count = std::cell::Cell::new(1usize);
    let upper = |b: &[f64], how: (f64, bool, f64)| -> Vec<f64> {
        let i = count.get();
        count.set(i + 1);
        cached(i).unwrap_or_else(|| {
            made.set(made.get() + 1);
            let (u, x) = solve_upper(&solver, b, &w, coarse(), Some(&u1v), how, start(i));
            keep(i, &u);
            let mut solved = solved.borrow_mut();
            if solved.len() == i {
                solved.push(x);
            }
            u
        })
    };
    let ugv = upper(&g, how);
    let ysum = st.y_total();
    let err = |u: &[f64]| -> f64 {
        st.abs_residual
            .iter()
            .zip(u)
            .skip(1)
            .map(|(r, u)| r * u)
            .sum::<f64>()
            / ysum
    };
    let solve_error = [err(&u1v), err(&ugv)];
    let mut out = Bounds {
        outside: [[0.0; FACES]; 2],
        exit_rate: [0.0; FACES],
        max_exit_probability: 0.0,
        reentry: [(0.0, 0.0); 2],
        solve_error,
        certified: c.certified,
        solves: 0,
    };
    if c.exits.is_empty() {
        out.solves = made.get();
        if let Some(st) = starts {
            st.vectors = solved.into_inner();
        }
        return out;
    }
    // Exit rates per face under π̂, and their solve error (≤ Σ|r|·p̂).
    let mut e_dense = vec![0.0; n];
    let mut ewraw = [vec![0.0; n], vec![0.0; n]];
    let mut ev = [vec![0.0; n], vec![0.0; n]];
    for row in &c.exits {
        let x = row.state as usize;
        e_dense[x] += row.rate;
        for k in 0..2 {
            ewraw[k][x] += row.v[2 + k];
            ev[k][x] += row.v[k];
        }
    }
    let pe = upper(&e_dense, exits_how);
    let pmax = pe.iter().skip(1).fold(0.0f64, |m, &v| m.max(v));
    out.max_exit_probability = pmax;
    let e_pe = err(&pe);
    for row in &c.exits {
        out.exit_rate[usize::from(row.face)] += st.pi[row.state as usize] * row.rate;
    }
    // The solve error of ε̂, charged to face 0 (it only widens).
    out.exit_rate[0] += e_pe;
    if !c.certified {
        out.outside = [[f64::INFINITY; FACES]; 2];
        out.reentry = [(f64::INFINITY, f64::INFINITY); 2];
        out.solves = made.get();
        if let Some(st) = starts {
            st.vectors = solved.into_inner();
        }
        return out;
    }
    let eps_total: f64 = out.exit_rate.iter().sum();
    // F(V_g) and F(W_g), per face.
    let mut f_raw = [[0.0; FACES]; 2];
    let mut f_g = [[0.0; FACES]; 2];
    for row in &c.exits {
        let pi = st.pi[row.state as usize];
        let face = usize::from(row.face);
        for k in 0..2 {
            f_raw[k][face] += pi * row.v[2 + k];
            f_g[k][face] += pi * row.v[k];
        }
    }
    let share = solves == BoundSolves::Shared;
    let scaled = |u: &[f64], c: f64| -> Vec<f64> { u.iter().map(|v| c * v).collect() };
    // Upper bounds of (−B)⁻¹W_k-exits, k = 0, 1, as they are computed.
    let mut vvws: Vec<Vec<f64>> = Vec::with_capacity(2);
    // What a larger truncation needs of this one's bound ([`Handed`]), per k: the upper
    // bound of (−B)⁻¹(base + e_{V_k}) and the re-entry LP's constraints.
    let mut kept_ag: Vec<Vec<f64>> = Vec::new();
    let mut kept_lp: Vec<[Vec<f64>; 3]> = Vec::new();
    for k in 0..2 {
        // (−B)⁻¹ of the exits' expected W_k, for the re-entry LP, and F(W_k)'s solve error.
        let reuse = if share && k == 1 {
            proportional(&ewraw[1], &ewraw[0]).map(|cf| scaled(&vvws[0], cf))
        } else {
            None
        };
        let vvw = reuse.unwrap_or_else(|| upper(&ewraw[k], exits_how));
        vvws.push(vvw);
        let vvw = &vvws[k];
        f_raw[k][0] += err(vvw);
        let f_raw_total: f64 = f_raw[k].iter().sum();
        let base = if k == 0 { &ones } else { &g };
        // (−B)⁻¹(base + e_{V_k}) ≤ U(base) + c·U(W_j-exits) when e_{V_k} ≤ c·(W_j-exits).
        let reuse = if share {
            (0..=k).find_map(|j| {
                proportional(&ev[k], &ewraw[j]).map(|cf| {
                    let ub = if k == 0 { &u1v } else { &ugv };
                    (0..n)
                        .map(|x| if x == 0 { 0.0 } else { ub[x] + cf * vvws[j][x] })
                        .collect::<Vec<f64>>()
                })
            })
        } else {
            None
        };
        let a_g = reuse.unwrap_or_else(|| {
            let rhs: Vec<f64> = (0..n)
                .map(|x| if x == 0 { 0.0 } else { base[x] + ev[k][x] })
                .collect();
            upper(&rhs, how)
        });
        f_g[k][0] += err(&a_g);
        let mut aw = Vec::with_capacity(c.boundary.len());
        let mut bw = Vec::with_capacity(c.boundary.len());
        let mut cw = Vec::with_capacity(c.boundary.len());
        for &wi in &c.boundary {
            let wi = wi as usize;
            if wi == 0 {
                continue;
            }
            let v = chain.lyapunov(&c.states[wi]).unwrap_or([0.0; 4]);
            aw.push(1.0 - pe[wi]);
            bw.push(v[2 + k] - vvw[wi]);
            cw.push(a_g[wi] - v[k]);
        }
        let (alpha, beta) = reentry_lp(eps_total, f_raw_total, &aw, &bw, &cw);
        if hand.is_some() {
            kept_ag.push(a_g.clone());
            kept_lp.push([aw.clone(), bw.clone(), cw.clone()]);
        }
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            let bad = aw.iter().filter(|&&a| a <= 0.0).count();
            let mut idx: Vec<usize> = (0..aw.len()).collect();
            idx.sort_by(|&i, &j| aw[i].total_cmp(&aw[j]));
            eprintln!(
                "    reentry k {k}: {} boundary states, {bad} with p >= 1",
                aw.len()
            );
            for &i in idx.iter().take(4) {
                eprintln!("      a {:.3e} b {:.3e} c {:.3e}", aw[i], bw[i], cw[i]);
            }
        }
        if !alpha.is_finite() {
            out.outside[k] = [f64::INFINITY; FACES];
            out.reentry[k] = (alpha, beta);
            continue;
        }
        out.reentry[k] = (alpha, beta);
        out.outside[k] = outside_of(f_g[k], out.exit_rate, (alpha, beta), f_raw[k]);
    }
    out.solves = made.get();
    if let Some(st) = starts {
        st.vectors = solved.into_inner();
    }
    if let Some(h) = hand {
        let finite = out.outside.iter().flatten().all(|v| v.is_finite());
        *h = match (finite, <[Vec<f64>; 2]>::try_from(kept_ag)) {
            (true, Ok(ag)) => {
                let lyap = c
                    .boundary
                    .iter()
                    .map(|&i| i as usize)
                    .filter(|&i| i != 0)
                    .map(|i| (c.states[i].clone(), chain.lyapunov(&c.states[i])))
                    .collect();
                let vw = [vvws.swap_remove(0), vvws.swap_remove(0)];
                let lp = <[[Vec<f64>; 3]; 2]>::try_from(kept_lp).ok();
                lp.map(|lp| Handed {
                    index: c
                        .states
                        .iter()
                        .enumerate()
                        .map(|(i, s)| (s.clone(), i as u32))
                        .collect(),
                    lp,
                    pe,
                    ag,
                    vw,
                    lyap,
                })
            }
            _ => None,
        };
    }
    out
}

/// How an output functional f is bounded, for its enclosure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bounded {
    /// 0 ≤ f ≤ c (c ≥ 0).
    ByOne(f64),
    /// 0 ≤ f ≤ c·G.
    ByGrowth(f64),
}

/// A stationary mean with its enclosure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Enclosed {
    /// π̂(f), the value of the computed chain.
    pub value: f64,
    /// Lower end of the enclosure of the infinite chain's π(f).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The part of hi − value due to the truncation (F + ε̂M): the truncation bound.
    pub truncation: f64,
}

impl Bounds {
    /// The enclosure of π(f) for f given per state (module docs).
    pub fn enclose(&self, st: &Stationary, f: &[f64], kind: Bounded) -> Enclosed {
        let mut a = Acc::default();
        for (p, v) in st.pi.iter().zip(f) {
            a.add_prod(*p, *v);
        }
        self.enclose_value(a.value(), kind)
    }

    /// The enclosure of π(f) from the computed π̂(f) (the bound depends on f only through
    /// how it is bounded).
    pub fn enclose_value(&self, value: f64, kind: Bounded) -> Enclosed {
        let (c, which) = match kind {
            Bounded::ByOne(c) => (c, 0),
            Bounded::ByGrowth(c) => (c, 1),
        };
        // Solve error of π̂(f) = y·f / y·1: |δ(y·f)| ≤ c·Σ|r|U_which, |δ(y·1)| ≤ Σ|r|U_1
        // (both relative to y·1).
        let ef = c * self.solve_error[which];
        let e1 = self.solve_error[0];
        let lo_v = ((value - ef) / (1.0 + e1)).max(0.0);
        let hi_v = if e1 < 1.0 {
            (value + ef) / (1.0 - e1)
        } else {
            f64::INFINITY
        };
        let trunc_hi = c * self.outside[which].iter().sum::<f64>();
        let denom = 1.0 + self.outside[0].iter().sum::<f64>();
        let lo = lo_v / denom;
        let hi = hi_v + trunc_hi;
        let truncation = if trunc_hi.is_finite() && denom.is_finite() {
            trunc_hi.max(lo_v - lo)
        } else {
            f64::INFINITY
        };
        Enclosed {
            value,
            lo,
            hi,
            truncation,
        }
    }

    /// The truncation bound of a functional bounded as `kind`, split by face.
    pub fn by_face(&self, kind: Bounded) -> [f64; FACES] {
        let (c, which) = match kind {
            Bounded::ByOne(c) => (c, 0),
            Bounded::ByGrowth(c) => (c, 1),
        };
        let mut out = [0.0; FACES];
        for (o, v) in out.iter_mut().zip(&self.outside[which]) {
            *o = c * v;
        }
        out
    }
}
