//! Mean-field (fixed d) and fluid (d(N) → ∞) limits of JSQ(d(N)), integrated with error
//! control ([`crate::num::ode`]).
//!
//! State: q = (q_1, q_2, …), q_i the fraction of servers with at least i tasks, q_0 ≡ 1,
//! and μ_i the completion rate of a server with exactly i tasks (1 for a busy queue, i for
//! a pool; [`ModelKind::service_rate`]).
//!
//! **Fixed d** (the power-of-d equations; Mitzenmacher 1996, Vvedenskaya et al. 1996 for
//! queues, and the pools analogue of arXiv 1612.00722 §2):
//!
//! dq_i/dt = λ (q_{i−1}^d − q_i^d) − μ_i (q_i − q_{i+1}),
//!
//! with q_{K+1} = 0 at the capacity K = b (arrivals that find all d sampled servers full,
//! probability q_b^d, are discarded). Sampling with and without replacement have the same
//! limit (C(Q_i, d)/C(N, d) and (Q_i/N)^d both tend to q_i^d): they differ only at finite N.
//!
//! **d(N) → ∞** (JSQ's fluid limit, which JSQ(d(N)) shares whatever the growth of d(N):
//! arXiv 1612.00722 Theorem 3.1 for pools, 1612.00723 for queues). With
//! m(q) = min{i : q_{i+1} < 1} the lowest level that is not full,
//!
//! dq_i/dt = λ p_{i−1}(q) − μ_i (q_i − q_{i+1}),
//! p_{m−1} = min{μ_m (1 − q_{m+1}) / λ, 1},  p_m = 1 − p_{m−1},  p_i = 0 otherwise
//!
//! (p_i the fraction of arrivals joining servers with i tasks; for m = 0, p_0 = 1; at the
//! capacity, m = b, the share p_b is discarded). The right-hand side is discontinuous at
//! q_{m} = 1. It is integrated here as a piecewise-smooth system in **modes**: in mode m,
//! q_1 = … = q_m = 1 are held exactly (the sliding motion: departures from level m are
//! refilled at once, rate μ_m(1 − q_{m+1}), which needs λ ≥ that rate), the free level
//! q_{m+1} moves at λ − μ_m(1 − q_{m+1}) − μ_{m+1}(q_{m+1} − q_{m+2}) and the levels above
//! only drain. Two events end a mode: q_{m+1} reaches 1 (switch to mode m + 1, q_{m+1} set
//! to 1 exactly) and λ − μ_m(1 − q_{m+1}) reaches 0 (the sliding condition fails: switch
//! to mode m − 1, q_m starts to fall). Both events are located by the integrator, so
//! there is no chattering and the held levels are exactly 1.
//!
//! In JSQ's fluid limit only the free level grows, so the levels that can ever be occupied
//! are known in advance (the top level of the start, or ⌈λ⌉ for pools, 1 for queues with
//! λ < 1, b for queues with λ ≥ 1): that truncation is exact. For fixed d and an infinite
//! capacity, levels are truncated at K with q_{K+1} = 0, K doubled until the top level
//! stays below the truncation tolerance at every output time, and K is reported.

use super::model::{DSpec, LbError, Model, ModelKind};
use crate::num::ode::{Dopri5, OdeError, OdeSystem, Stop, Tolerance};

/// Default local tolerance (absolute and relative) of the fluid integrations.
pub const DEFAULT_TOLERANCE: f64 = 1e-10;
/// Default occupancy below which levels are truncated (fixed d, infinite capacity).
pub const DEFAULT_TRUNCATION: f64 = 1e-14;
/// Most levels a fluid integration uses.
pub const MAX_FLUID_LEVELS: usize = 1 << 16;
/// Most mode switches of one JSQ fluid trajectory (a guard against Zeno behaviour).
pub const MAX_SWITCHES: usize = 1_000_000;
/// Levels added above the start's top level for the first truncation of a fixed-d run.
const INITIAL_EXTRA_LEVELS: usize = 16;
/// A start value this close to 1 is taken as a full level.
const FULL_LEVEL_TOLERANCE: f64 = 1e-15;

/// Which limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// Fixed d ≥ 1 (the power-of-d mean-field equations).
    PowerOfD(u32),
    /// d(N) → ∞: JSQ's fluid limit.
    Jsq,
}

/// Values of N at which a formula for d must grow for its limit to be read as d(N) → ∞.
const GROWTH_CHECK_N: [f64; 3] = [1e6, 1e12, 1e18];

impl Limit {
    /// The N → ∞ limit of a d specification: a number is fixed d, `inf` and formulas that
    /// grow without bound (checked as increasing at N = 10^6, 10^12, 10^18: `log(N)`,
    /// `sqrt(N)`, `N^0.75`, `N`, …) are JSQ's fluid limit (arXiv 1612.00722, Theorem 3.1:
    /// any d(N) → ∞); a formula constant in N is that d, rounded up.
    ///
    /// ```
    /// use taskassign::lb::{DSpec, Limit};
    /// assert_eq!(Limit::from_spec(&DSpec::parse("2").unwrap()).unwrap(), Limit::PowerOfD(2));
    /// assert_eq!(Limit::from_spec(&DSpec::parse("log(N)").unwrap()).unwrap(), Limit::Jsq);
    /// assert_eq!(Limit::from_spec(&DSpec::parse("2.5").unwrap()).unwrap(), Limit::PowerOfD(3));
    /// assert!(Limit::from_spec(&DSpec::parse("1/N + 2").unwrap()).is_err());
    /// ```
    pub fn from_spec(spec: &DSpec) -> Result<Limit, LbError> {
        match spec {
            DSpec::Fixed(d) => u32::try_from(*d)
                .map(Limit::PowerOfD)
                .map_err(|_| LbError::BadInput(format!("d = {d} is too large for a fixed d"))),
            DSpec::Infinite => Ok(Limit::Jsq),
            DSpec::Formula(f, text) => {
                if f.is_constant() {
                    let v = f.eval(1.0).ceil();
                    if v.is_finite() && (1.0..=f64::from(u32::MAX)).contains(&v) {
                        return Ok(Limit::PowerOfD(v as u32));
                    }
                    return Err(LbError::DTooSmall(text.clone()));
                }
                let v: Vec<f64> = GROWTH_CHECK_N.iter().map(|&n| f.eval(n)).collect();
                if v.windows(2).all(|w| w[1] > w[0]) && v.iter().all(|x| x.is_finite()) {
                    Ok(Limit::Jsq)
                } else {
                    Err(LbError::BadInput(format!(
                        "the d formula '{text}' does not grow with N: give a number or inf for the N -> infinity limit"
                    )))
                }
            }
        }
    }
}

/// The occupancy ODEs' common interface: a vector field on the truncated occupancy.
pub trait FluidModel {
    /// dq/dt at q.
    fn rhs(&self, q: &[f64], dq: &mut [f64]);
}

/// The fixed-d mean-field vector field on K levels.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerOfD {
    kind: ModelKind,
    lambda: f64,
    d: i32,
    levels: usize,
}

impl PowerOfD {
    /// The vector field of `model` with fixed d on `levels` levels.
    pub fn new(model: &Model, d: u32, levels: usize) -> Self {
        PowerOfD {
            kind: model.kind(),
            lambda: model.lambda(),
            d: d.min(i32::MAX as u32) as i32,
            levels,
        }
    }
}

impl FluidModel for PowerOfD {
    fn rhs(&self, q: &[f64], dq: &mut [f64]) {
        let k = self.levels;
        let mut prev_pow = 1.0; // q_0^d
        for i in 0..k {
            let qi = q[i].clamp(0.0, 1.0);
            let next = if i + 1 < k {
                q[i + 1].clamp(0.0, 1.0)
            } else {
                0.0
            };
            let pow = qi.powi(self.d);
            dq[i] = self.lambda * (prev_pow - pow) - self.kind.service_rate(i + 1) * (qi - next);
            prev_pow = pow;
        }
    }
}

impl OdeSystem for PowerOfD {
    fn dim(&self) -> usize {
        self.levels
    }
    fn rhs(&self, _t: f64, y: &[f64], dy: &mut [f64]) {
        FluidModel::rhs(self, y, dy)
    }
}

/// JSQ's fluid limit on K levels (see the module docs for the modes).
#[derive(Debug, Clone, PartialEq)]
pub struct JsqFluid {
    kind: ModelKind,
    lambda: f64,
    levels: usize,
}

impl JsqFluid {
    /// JSQ's fluid limit of `model` on `levels` levels; when `levels` equals the model's
    /// capacity, arrivals finding every server full are discarded.
    pub fn new(model: &Model, levels: usize) -> Self {
        JsqFluid {
            kind: model.kind(),
            lambda: model.lambda(),
            levels,
        }
    }

    fn q(&self, q: &[f64], i: usize) -> f64 {
        // Level i ≥ 1 (1-based); q_0 = 1, q_{K+1} = 0.
        if i == 0 {
            1.0
        } else if i > self.levels {
            0.0
        } else {
            q[i - 1]
        }
    }

    /// The sliding condition of mode m: λ − μ_m (1 − q_{m+1}) (≥ 0 while mode m holds;
    /// +1 for m = 0, which always holds).
    pub fn sliding_margin(&self, q: &[f64], m: usize) -> f64 {
        if m == 0 {
            1.0
        } else {
            self.lambda - self.kind.service_rate(m) * (1.0 - self.q(q, m + 1))
        }
    }

    /// The mode of a start: the number of leading levels at 1, lowered while the sliding
    /// condition fails.
    pub fn initial_mode(&self, q: &mut [f64]) -> usize {
        let mut m = 0;
        while m < self.levels && q[m] >= 1.0 - FULL_LEVEL_TOLERANCE {
            q[m] = 1.0;
            m += 1;
        }
        while m > 0 && self.sliding_margin(q, m) < 0.0 {
            m -= 1;
        }
        m
    }

    /// The vector field of mode m.
    pub fn rhs_mode(&self, q: &[f64], m: usize, dq: &mut [f64]) {
        for (i, d) in dq.iter_mut().enumerate() {
            let level = i + 1;
            *d = if level <= m {
                0.0
            } else {
                let out = self.kind.service_rate(level) * (self.q(q, level) - self.q(q, level + 1));
                if level == m + 1 {
                    let refill = if m == 0 {
                        0.0
                    } else {
                        self.kind.service_rate(m) * (1.0 - self.q(q, m + 1))
                    };
                    self.lambda - refill - out
                } else {
                    -out
                }
            };
        }
    }
}

/// One mode of the JSQ fluid as an ODE with its two events.
struct JsqMode<'a> {
    f: &'a JsqFluid,
    m: usize,
}

/// Index of the event "the free level reached 1".
const EVENT_FILL: usize = 0;
/// Index of the event "the sliding condition failed".
const EVENT_DROP: usize = 1;

impl OdeSystem for JsqMode<'_> {
    fn dim(&self) -> usize {
        self.f.levels
    }
    fn rhs(&self, _t: f64, y: &[f64], dy: &mut [f64]) {
        self.f.rhs_mode(y, self.m, dy)
    }
    fn events(&self) -> usize {
        2
    }
    fn event_values(&self, _t: f64, y: &[f64], g: &mut [f64]) {
        g[EVENT_FILL] = if self.m < self.f.levels {
            1.0 - y[self.m]
        } else {
            1.0
        };
        g[EVENT_DROP] = self.f.sliding_margin(y, self.m);
    }
}

/// Options of a fluid integration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidOptions {
    /// The integrator's local tolerance.
    pub tol: Tolerance,
    /// Occupancy below which levels are truncated (fixed d, infinite capacity).
    pub truncation: f64,
}

impl Default for FluidOptions {
    fn default() -> Self {
        FluidOptions {
            tol: Tolerance::both(DEFAULT_TOLERANCE),
            truncation: DEFAULT_TRUNCATION,
        }
    }
}

/// A mode switch of the JSQ fluid: at `time`, the mode became `mode`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Switch {
    /// The time of the switch (units of the mean service time, from the start at 0).
    pub time: f64,
    /// The new mode (number of levels held at 1).
    pub mode: usize,
}

/// A fluid trajectory at the requested times.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// The times asked for, in increasing order (units of the mean service time).
    pub times: Vec<f64>,
    /// q(t) at each time, levels 1..K (trailing levels below the truncation dropped).
    pub occupancy: Vec<Vec<f64>>,
    /// Levels integrated (K).
    pub levels: usize,
    /// The largest q_K seen at the output times (the truncation's size).
    pub top_level_max: f64,
    /// The integrator's tolerance.
    pub tolerance: Tolerance,
    /// Occupancy below which trailing levels are not reported.
    pub truncation: f64,
    /// Mode switches (JSQ fluid only).
    pub switches: Vec<Switch>,
    /// Accepted integration steps.
    pub steps: usize,
}

fn ode_err(e: OdeError) -> LbError {
    LbError::Numerical(format!("fluid integration: {e}"))
}

fn check_start(model: &Model, init: &[f64], times: &[f64]) -> Result<(), LbError> {
    if init.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err(LbError::BadInput(
            "an initial occupancy must lie in [0, 1]".into(),
        ));
    }
    if init.windows(2).any(|w| w[1] > w[0]) {
        return Err(LbError::BadInput(
            "an initial occupancy must be non-increasing (q_i is the fraction with at least i tasks)"
                .into(),
        ));
    }
    if let Some(b) = model.buffer() {
        let top = init.iter().rposition(|&x| x > 0.0).map_or(0, |i| i + 1);
        if top > b as usize {
            return Err(LbError::BadInput(format!(
                "the initial occupancy has tasks above the capacity {b}"
            )));
        }
    }
    if times.iter().any(|t| !(t.is_finite() && *t >= 0.0)) || times.windows(2).any(|w| w[1] < w[0])
    {
        return Err(LbError::BadInput(
            "times must be finite, non-negative and non-decreasing".into(),
        ));
    }
    Ok(())
}

fn trimmed(q: &[f64], below: f64) -> Vec<f64> {
    let keep = q.iter().rposition(|&x| x >= below).map_or(0, |i| i + 1);
    q[..keep].to_vec()
}

/// The trajectory of `limit` for `model` from `init` (q_1, q_2, …; missing levels are 0)
/// at `times` (non-decreasing, from t = 0).
pub fn trajectory(
    model: &Model,
    limit: Limit,
    init: &[f64],
    times: &[f64],
    opts: &FluidOptions,
) -> Result<Trajectory, LbError> {
    check_start(model, init, times)?;
    let top = init.iter().rposition(|&x| x > 0.0).map_or(0, |i| i + 1);
    match limit {
        Limit::Jsq => {
            let reach = match model.kind() {
                ModelKind::Queues if model.lambda() < 1.0 => 1,
                ModelKind::Queues => model.buffer().map_or(1, |b| b as usize),
                ModelKind::Pools => model.lambda().ceil() as usize,
            };
            // One guard level above the reachable top (it stays 0), unless the capacity
            // is the top.
            let mut k = top.max(reach) + 1;
            if let Some(b) = model.buffer() {
                k = k.min(b as usize);
            }
            jsq_trajectory(model, k, init, times, opts)
        }
        Limit::PowerOfD(d) => {
            if d < 1 {
                return Err(LbError::DTooSmall(d.to_string()));
            }
            if let Some(b) = model.buffer() {
                if (b as usize) <= MAX_FLUID_LEVELS {
                    return power_trajectory(model, d, b as usize, init, times, opts);
                }
            }
            let mut k = top + INITIAL_EXTRA_LEVELS;
            loop {
                let tr = power_trajectory(model, d, k, init, times, opts)?;
                if tr.top_level_max <= opts.truncation {
                    return Ok(tr);
                }
                if k >= MAX_FLUID_LEVELS {
                    return Err(LbError::Numerical(format!(
                        "fluid truncation: q_K = {:e} above {:e} at K = {k} levels",
                        tr.top_level_max, opts.truncation
                    )));
                }
                k = (2 * k).min(MAX_FLUID_LEVELS);
            }
        }
    }
}

fn power_trajectory(
    model: &Model,
    d: u32,
    k: usize,
    init: &[f64],
    times: &[f64],
    opts: &FluidOptions,
) -> Result<Trajectory, LbError> {
    let sys = PowerOfD::new(model, d, k);
    let (mut q, mut ig) = Recording::start(k, init, opts)?;
    let mut rec = Recording::new(&q, times, opts);
    let mut t = 0.0;
    for &tau in times {
        let (tt, _) = ig.integrate(&sys, t, &mut q, tau).map_err(ode_err)?;
        t = tt;
        rec.push(&q, q[k - 1].abs());
    }
    Ok(rec.finish(Vec::new(), &ig))
}

/// What [`power_trajectory`] and [`jsq_trajectory`] keep: the occupancy at each requested
/// time (trimmed at the truncation) and the largest top level q_K seen.
struct Recording<'a> {
    times: &'a [f64],
    opts: &'a FluidOptions,
    levels: usize,
    occupancy: Vec<Vec<f64>>,
    top_max: f64,
}

impl<'a> Recording<'a> {
    /// The start occupancy `init` padded with zeros to `k` levels, and the integrator at
    /// the options' tolerance.
    fn start(k: usize, init: &[f64], opts: &FluidOptions) -> Result<(Vec<f64>, Dopri5), LbError> {
        let mut q = vec![0.0; k];
        for (qi, x) in q.iter_mut().zip(init) {
            *qi = *x;
        }
        let ig = Dopri5::new(k, opts.tol).map_err(ode_err)?;
        Ok((q, ig))
    }

    /// An empty recording from the occupancy `q` the integration starts at: its top level
    /// q_K is the first value of the top-level maximum.
    fn new(q: &[f64], times: &'a [f64], opts: &'a FluidOptions) -> Self {
        Recording {
            times,
            opts,
            levels: q.len(),
            occupancy: Vec::with_capacity(times.len()),
            top_max: q[q.len() - 1],
        }
    }

    /// Records the occupancy `q` reached at the next requested time, whose top level
    /// counts as `top`.
    fn push(&mut self, q: &[f64], top: f64) {
        self.top_max = self.top_max.max(top);
        self.occupancy.push(trimmed(q, self.opts.truncation));
    }

    /// The trajectory recorded, with the mode switches and the integrator's step count.
    fn finish(self, switches: Vec<Switch>, ig: &Dopri5) -> Trajectory {
        Trajectory {
            times: self.times.to_vec(),
            occupancy: self.occupancy,
            levels: self.levels,
            top_level_max: self.top_max,
            tolerance: self.opts.tol,
            truncation: self.opts.truncation,
            switches,
            steps: ig.stats.accepted,
        }
    }
}

fn jsq_trajectory(
    model: &Model,
    k: usize,
    init: &[f64],
    times: &[f64],
    opts: &FluidOptions,
) -> Result<Trajectory, LbError> {
    let f = JsqFluid::new(model, k);
    let (mut q, mut ig) = Recording::start(k, init, opts)?;
    let mut m = f.initial_mode(&mut q);
    let mut rec = Recording::new(&q, times, opts);
    let mut switches = vec![Switch { time: 0.0, mode: m }];
    let mut t = 0.0;
    for &tau in times {
        while t < tau {
            let sys = JsqMode { f: &f, m };
            let (tt, stop) = ig.integrate(&sys, t, &mut q, tau).map_err(ode_err)?;
            t = tt;
            for (i, qi) in q.iter_mut().enumerate() {
                *qi = if i < m { 1.0 } else { qi.clamp(0.0, 1.0) };
            }
            if let Stop::Event(j) = stop {
                if j == EVENT_FILL && m < k {
                    q[m] = 1.0;
                    m += 1;
                    while m > 0 && f.sliding_margin(&q, m) < 0.0 {
                        m -= 1;
                    }
                } else {
                    m = m.saturating_sub(1);
                }
                ig.reset_step();
                switches.push(Switch { time: t, mode: m });
                if switches.len() > MAX_SWITCHES {
                    return Err(LbError::Numerical(format!(
                        "JSQ fluid: more than {MAX_SWITCHES} mode switches before t = {t}"
                    )));
                }
            }
        }
        rec.push(&q, q[k - 1]);
    }
    Ok(rec.finish(switches, &ig))
}

/// The finer of the two fluid integrations of [`fluid_pair`] runs at the default tolerance
/// divided by this: the two agree on the digits the integration has certainly resolved.
pub const FLUID_TOLERANCE_RATIO: f64 = 100.0;

/// The fluid trajectory at the default tolerance and at one [`FLUID_TOLERANCE_RATIO`]
/// times smaller: (coarse, fine). The digits on which the two agree are the ones printed,
/// and their largest difference ([`fluid_difference`]) is the error estimate.
pub fn fluid_pair(
    model: &Model,
    limit: Limit,
    init: &[f64],
    times: &[f64],
) -> Result<(Trajectory, Trajectory), LbError> {
    let opts = FluidOptions::default();
    let mut finer = opts;
    finer.tol.abs /= FLUID_TOLERANCE_RATIO;
    finer.tol.rel /= FLUID_TOLERANCE_RATIO;
    let a = trajectory(model, limit, init, times, &opts)?;
    let b = trajectory(model, limit, init, times, &finer)?;
    Ok((a, b))
}

/// The largest difference between two trajectories at their times (missing levels 0).
pub fn fluid_difference(a: &Trajectory, b: &Trajectory) -> f64 {
    let mut m: f64 = 0.0;
    for (x, y) in a.occupancy.iter().zip(&b.occupancy) {
        for i in 0..x.len().max(y.len()) {
            let u = x.get(i).copied().unwrap_or(0.0);
            let v = y.get(i).copied().unwrap_or(0.0);
            m = m.max((u - v).abs());
        }
    }
    m
}
