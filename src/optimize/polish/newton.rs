//! The damped Newton iteration of the polish, in y = ln s: each iteration takes a
//! tridiagonal Hessian (`hessian`), freezes the cutoffs J cannot see (`freeze`), tries the
//! plain Newton step and longer ones along a slow direction (`newton_step`), else
//! Levenberg–Marquardt steps damped until J decreases (`damped_step`), and accepts the step
//! or stops (`State::accept`); how it stopped is a [`Termination`].

use super::{
    delta_j, exp_all, feasible, norm_inf, tridiag::solve_tridiag, value_grad, value_grad_scaled,
    Hessian, Polished, Termination, BOUNDARY_HALVINGS, EXTRAPOLATE_MAX, HESSIAN_SCALE_FLOOR,
    LM_MU_FACTOR, LM_MU_MAX, LM_MU_MIN, LM_MU_START, NOISE_BITS, POLISH_GRADIENT_PHASE,
    POLISH_SLACK_BITS, SECANT_MAX_STEP, SLOW_RATIO, STALL_ITER, STALL_RATIO,
};
use crate::optimize::chain::Chain;
use crate::policy::PolicyError;
use rug::Float;

/// The thresholds of one polish, at its precision.
struct Limits {
    bits: u32,
    /// A step below 2^−(bits − POLISH_SLACK_BITS) has converged.
    tol: Float,
    /// Below 2^−(bits · POLISH_GRADIENT_PHASE) a damped step is judged on the merit.
    grad_phase: Float,
    /// The forward-difference step 2^−(bits/2) of the Hessian.
    delta: Float,
    /// The gradient's rounding relative to J, 2^−(bits − NOISE_BITS).
    floor: Float,
    /// A step shorter than 2^−(bits/2) may be a stall.
    stall_step: Float,
}

impl Limits {
    fn new(bits: u32) -> Self {
        let pow2 = |e: u32| Float::with_val(bits, 1u32) >> e;
        Limits {
            bits,
            tol: pow2(bits.saturating_sub(POLISH_SLACK_BITS)),
            grad_phase: pow2((f64::from(bits) * POLISH_GRADIENT_PHASE) as u32),
            delta: pow2(bits / 2),
            floor: pow2(bits.saturating_sub(NOISE_BITS)),
            stall_step: pow2(bits / 2),
        }
    }

    /// |J| · floor: how far J may rise (its rounding).
    fn j_cap(&self, j: &Float) -> Float {
        Float::with_val(self.bits, j.abs_ref()) * &self.floor
    }
}

/// A point the iteration may move to: y, s = e^y, J, its gradient, host terms, the step's
/// size and the merit there.
struct Trial {
    y: Vec<Float>,
    s: Vec<Float>,
    j: Float,
    g: Vec<Float>,
    terms: Vec<Float>,
    size: Float,
    merit: Float,
}

/// The iterate.
struct State<'c, 'a> {
    chain: &'c Chain<'a>,
    hosts: usize,
    lim: Limits,
    y: Vec<Float>,
    s: Vec<Float>,
    j: Float,
    g: Vec<Float>,
    /// The host terms at s (J's change is summed term by term, see `delta_j`).
    terms: Vec<Float>,
    /// max_m |∂J/∂ln s_m| / scale_m (see `value_grad_scaled`).
    merit: Float,
    /// The Levenberg–Marquardt damping.
    mu: f64,
    /// Stalls in a row.
    stalls: usize,
    /// (y_1, ∂J/∂y_1) before the last step taken (for the one-cutoff secant).
    prev: Option<(Float, Float)>,
}

impl State<'_, '_> {
    /// The result at the current point.
    fn done(&self, iterations: usize, termination: Termination) -> Polished {
        Polished {
            cutoffs: self.s.clone(),
            value: self.j.clone(),
            iterations,
            termination,
            hessian: None,
            resolution: Vec::new(),
        }
    }

    /// The step from y, shortened by halves while it leaves the support or makes a host
    /// unstable: optima can sit within 1e-50 of a host's stability boundary (a huge
    /// last-host term pushes the cutoff against it), and halving reaches them
    /// geometrically. `None` if no shortened step is admissible.
    fn try_step(&self, step: &[Float]) -> Result<Option<Trial>, PolicyError> {
        let bits = self.lim.bits;
        let mut step: Vec<Float> = step.to_vec();
        for _ in 0..=BOUNDARY_HALVINGS {
            let yn: Vec<Float> = self
                .y
                .iter()
                .zip(&step)
                .map(|(a, b)| Float::with_val(bits, a + b))
                .collect();
            let sn = exp_all(&yn);
            if feasible(self.chain, &sn) {
                let (jn, gn, terms, merit) = value_grad_scaled(self.chain, &sn, self.hosts, true)?;
                if jn.is_finite() {
                    let size = norm_inf(&step);
                    return Ok(Some(Trial {
                        y: yn,
                        s: sn,
                        j: jn,
                        g: gn,
                        terms,
                        size,
                        merit,
                    }));
                }
            }
            for x in step.iter_mut() {
                *x /= 2u32;
            }
        }
        Ok(None)
    }

    /// Moves to `t`; `Some` if the polish stops there.
    fn accept(&mut self, t: Trial) -> Option<Termination> {
        // Stagnation at the gradient's rounding: tiny steps that no longer lower the merit
        // (the gradient's noise is above the floor assumed, e.g. many hosts with terms of
        // very different sizes). The resolution then uses the gradient reached.
        let stall_merit = Float::with_val(self.lim.bits, &self.merit * STALL_RATIO);
        if t.size < self.lim.stall_step && t.merit >= stall_merit {
            self.stalls += 1;
        } else {
            self.stalls = 0;
        }
        self.prev = Some((self.y[0].clone(), self.g[0].clone()));
        self.y = t.y;
        self.s = t.s;
        self.j = t.j;
        self.g = t.g;
        self.terms = t.terms;
        self.merit = t.merit;
        if t.size <= self.lim.tol {
            return Some(Termination::StepBelowTolerance);
        }
        (self.stalls >= STALL_ITER).then_some(Termination::Stalled)
    }
}

/// The tridiagonal Hessian of J in y at the iterate: the secant of the last step (one
/// cutoff, a short step), the `hint` at the first iteration, else forward differences of
/// the gradient with the columns coloured mod 3 (a colour with no cutoff, n < 3, costs
/// nothing).
fn hessian(st: &State, hint: Option<&Hessian>, it: usize) -> Result<Hessian, PolicyError> {
    let (bits, n) = (st.lim.bits, st.y.len());
    let delta = &st.lim.delta;
    let mut d = vec![Float::with_val(bits, 0); n];
    let mut e = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
    let mut e2 = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
    // With one cutoff, the secant of the last step replaces the difference when that step
    // was short but above the difference step (it is then as accurate, and free): Newton
    // becomes the secant method, of order 1.6, with one gradient per iteration.
    let secant = match &st.prev {
        Some((yp, gp)) if n == 1 => {
            let dy = Float::with_val(bits, &st.y[0] - yp);
            let size = Float::with_val(bits, dy.abs_ref());
            let h = Float::with_val(bits, &st.g[0] - gp) / &dy;
            (size >= *delta && size <= SECANT_MAX_STEP && h > 0 && h.is_finite()).then_some(h)
        }
        _ => None,
    };
    let hinted = match (hint, secant) {
        (_, Some(h)) => {
            d[0] = h;
            true
        }
        (Some(h), None) if it == 1 && h.d.len() == n && h.e.len() == e.len() => {
            for (x, v) in d.iter_mut().zip(&h.d) {
                *x = Float::with_val(bits, v);
            }
            for (x, v) in e2.iter_mut().zip(&h.e) {
                *x = Float::with_val(bits, v);
            }
            e.clone_from(&e2);
            true
        }
        _ => false,
    };
    for colour in 0..if hinted { 0 } else { 3.min(n) } {
        let yp: Vec<Float> =
            st.y.iter()
                .enumerate()
                .map(|(i, v)| {
                    if i % 3 == colour {
                        Float::with_val(bits, v + delta)
                    } else {
                        v.clone()
                    }
                })
                .collect();
        let sp = exp_all(&yp);
        if !feasible(st.chain, &sp) {
            continue;
        }
        let (_, gp) = value_grad(st.chain, &sp, st.hosts, true)?;
        for i in 0..n {
            let col = Float::with_val(bits, &gp[i] - &st.g[i]) / delta;
            if i % 3 == colour {
                d[i] = col;
            } else if i + 1 < n && (i + 1) % 3 == colour {
                e[i] = col;
            } else if i >= 1 && (i - 1) % 3 == colour {
                e2[i - 1] = col;
            }
        }
    }
    for i in 0..e.len() {
        e[i] = Float::with_val(bits, &e[i] + &e2[i]) / 2u32;
    }
    Ok(Hessian { d, e })
}

/// The Newton system H Δy = −g with the cutoffs whose gradient is already below J's
/// rounding frozen: J cannot see them, and their (possibly huge) Newton steps would only
/// force damping on the others. Returns (diagonal, off-diagonal, right-hand side).
fn freeze(st: &State, h: &Hessian) -> (Vec<Float>, Vec<Float>, Vec<Float>) {
    let bits = st.lim.bits;
    let (mut d, mut e) = (h.d.clone(), h.e.clone());
    let mut rhs: Vec<Float> = st.g.iter().map(|x| -Float::with_val(bits, x)).collect();
    let jfloor = Float::with_val(bits, st.j.abs_ref()) * &st.lim.floor;
    for i in 0..st.g.len() {
        if Float::with_val(bits, st.g[i].abs_ref()) <= jfloor {
            d[i] = Float::with_val(bits, 1);
            rhs[i] = Float::with_val(bits, 0);
            if i > 0 {
                e[i - 1] = Float::with_val(bits, 0);
            }
            if i < e.len() {
                e[i] = Float::with_val(bits, 0);
            }
        }
    }
    (d, e, rhs)
}

/// The plain Newton step, accepted if it lowers the merit (near the optimum this converges
/// quadratically even where J cannot resolve it) and J does not rise beyond its rounding
/// (merit alone could lead uphill to a saddle or another stationary point). Slow progress
/// (the merit falls by less than SLOW_RATIO) means a direction in which J flattens
/// exponentially, where each Newton step has the same length: longer steps along it are
/// tried while J does not rise and the merit keeps falling.
fn newton_step(
    st: &State,
    d: &[Float],
    e: &[Float],
    rhs: &[Float],
) -> Result<Option<Trial>, PolicyError> {
    let Some(step) = solve_tridiag(d, e, rhs) else {
        return Ok(None);
    };
    let Some(t) = st.try_step(&step)? else {
        return Ok(None);
    };
    let j_cap = st.lim.j_cap(&st.j);
    let gnorm = &st.merit;
    if !(delta_j(&t.terms, &st.terms) <= j_cap && (t.merit < *gnorm || t.size <= st.lim.tol)) {
        return Ok(None);
    }
    let slow = Float::with_val(st.lim.bits, gnorm * SLOW_RATIO);
    let mut best = t;
    if best.merit > slow && best.size > st.lim.tol {
        let mut longer = step;
        for _ in 0..EXTRAPOLATE_MAX {
            for x in longer.iter_mut() {
                *x *= 2u32;
            }
            let Some(t2) = st.try_step(&longer)? else {
                break;
            };
            if delta_j(&t2.terms, &best.terms) <= j_cap && t2.merit < best.merit {
                best = t2;
            } else {
                break;
            }
        }
    }
    Ok(Some(best))
}

/// How a damped step ended.
enum Damped {
    /// A step that lowers J (or, below the gradient phase, the merit without raising J).
    Taken(Trial),
    /// Steps at the rounding level no longer improve anything.
    AtRounding,
    /// The damping grew beyond [`LM_MU_MAX`].
    Exhausted,
}

/// Levenberg–Marquardt steps, damped until J decreases. The damping is scaled per row by
/// max(|H_ii|, Σ_j |H_ij| off the diagonal): for μ ≥ 2 the damped matrix is diagonally
/// dominant, hence positive definite.
fn damped_step(
    st: &mut State,
    d: &[Float],
    e: &[Float],
    rhs: &[Float],
) -> Result<Damped, PolicyError> {
    let (bits, n) = (st.lim.bits, d.len());
    loop {
        let dd: Vec<Float> = (0..n)
            .map(|i| {
                let mut off = Float::with_val(bits, 0);
                if i > 0 {
                    off += Float::with_val(bits, e[i - 1].abs_ref());
                }
                if i + 1 < n {
                    off += Float::with_val(bits, e[i].abs_ref());
                }
                let scale = Float::with_val(bits, d[i].abs_ref())
                    .max(&off)
                    .max(&Float::with_val(bits, HESSIAN_SCALE_FLOOR));
                Float::with_val(bits, &d[i] + Float::with_val(bits, &scale * st.mu))
            })
            .collect();
        if let Some(step) = solve_tridiag(&dd, e, rhs) {
            let size = norm_inf(&step);
            if let Some(t) = st.try_step(&step)? {
                let dj = delta_j(&t.terms, &st.terms);
                let j_cap = st.lim.j_cap(&st.j);
                if dj < 0 || (size < st.lim.grad_phase && dj <= j_cap && t.merit < st.merit) {
                    st.mu = (st.mu / LM_MU_FACTOR).max(LM_MU_MIN);
                    return Ok(Damped::Taken(t));
                }
            }
            if size <= st.lim.tol {
                return Ok(Damped::AtRounding);
            }
        }
        st.mu *= LM_MU_FACTOR;
        if st.mu > LM_MU_MAX {
            return Ok(Damped::Exhausted);
        }
    }
}

/// The iteration from `start` for at most `max_iter` iterations; `last` receives the last
/// Hessian and `last_g` the last gradient.
pub(super) fn newton_inner(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
    hint: Option<&Hessian>,
    last: &mut Option<Hessian>,
    last_g: &mut Vec<Float>,
) -> Result<Polished, PolicyError> {
    let bits = chain.dist.prec();
    let s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let (j, g, terms, merit) = value_grad_scaled(chain, &s, hosts, true)?;
    let y: Vec<Float> = s
        .iter()
        .map(|x| Float::with_val(bits, x.ln_ref()))
        .collect();
    let mut st = State {
        chain,
        hosts,
        lim: Limits::new(bits),
        y,
        s,
        j,
        g,
        terms,
        merit,
        mu: LM_MU_START,
        stalls: 0,
        prev: None,
    };
    if st.s.is_empty() {
        return Ok(st.done(0, Termination::NothingToDo));
    }
    if !st.j.is_finite() {
        return Err(PolicyError::Solver {
            what: "cutoff polish".into(),
            detail: "its starting cutoffs leave a host unstable at this precision".into(),
            hint: crate::policy::HINT_MORE_DIGITS,
        });
    }
    last_g.clone_from(&st.g);
    for it in 1..=max_iter {
        if st.merit <= st.lim.floor {
            // ∂J/∂ln s_m is below J's own rounding for every m: the value is as precise as
            // this precision allows, and cutoffs that move J by less are not determined
            // further (the two-precision certification shows how many digits they have).
            return Ok(st.done(it - 1, Termination::GradientAtRounding));
        }
        let h = hessian(&st, hint, it)?;
        let (d, e, rhs) = freeze(&st, &h);
        *last = Some(h);
        let trial = match newton_step(&st, &d, &e, &rhs)? {
            Some(t) => t,
            None => match damped_step(&mut st, &d, &e, &rhs)? {
                Damped::Taken(t) => t,
                Damped::AtRounding => return Ok(st.done(it, Termination::DampedStepAtRounding)),
                Damped::Exhausted => return Ok(st.done(it, Termination::DampingExhausted)),
            },
        };
        let stop = st.accept(trial);
        last_g.clone_from(&st.g);
        if let Some(why) = stop {
            return Ok(st.done(it, why));
        }
    }
    Ok(st.done(max_iter, Termination::MaxIterations))
}
