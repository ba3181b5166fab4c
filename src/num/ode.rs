//! An embedded Runge–Kutta integrator in f64 with error control and event location.
//!
//! The method is Dormand & Prince's 5(4) pair (J. R. Dormand, P. J. Prince, "A family of
//! embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6, 1980, Table 2; coefficients
//! as in Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.5, Table 5.2), advanced with the
//! fifth-order solution (local extrapolation) and the first-same-as-last property.
//!
//! **Error control.** A step of size h is accepted when the embedded error estimate
//! satisfies max_i |e_i| / (atol + rtol · max(|y_i|, |ŷ_i|)) ≤ 1 (the max norm, so every
//! component is controlled, small occupancy levels included); the next step is
//! h · min(5, max(0.2, 0.9 · err^(−1/5))) (Hairer et al., §II.4). The estimate is the
//! local error of the *fourth*-order solution, so the accepted fifth-order step is
//! typically far more accurate than the tolerance.
//!
//! **Stated accuracy.** A local tolerance does not bound the global error in general; for
//! the contractive systems this crate integrates (occupancy ODEs of many-server systems,
//! whose linearisations at their fixed points are stable), the global error stays of the
//! order of the tolerance: the tests of this module and of `lb::fluid` check
//! |y(t) − y_exact(t)| ≤ [`GLOBAL_ERROR_FACTOR`] · (atol + rtol · |y|) on closed-form
//! trajectories over t ≤ 20, and the fifth order of the method on a fixed-step run.
//!
//! **Events.** An [`OdeSystem`] may declare event functions g_j(t, y); integration stops at
//! the first t where some g_j, positive at the start of the step, becomes ≤ 0. The
//! crossing is located by bisection on the size of a single Runge–Kutta step from the
//! accepted step's start (each trial is itself a step no longer than the accepted one, so
//! its local error is no larger), down to [`EVENT_TIME_TOLERANCE`] relative to the time
//! scale; the state returned is the one at the right end of the final bracket, where
//! g_j ≤ 0 holds. A piecewise-smooth system is integrated by switching its vector field
//! there (as `lb::fluid` does for JSQ's fluid limit).

use thiserror::Error;

/// Largest ratio of the observed global error to the local tolerance that the tests
/// accept on closed-form trajectories (see the module docs).
pub const GLOBAL_ERROR_FACTOR: f64 = 10.0;

/// Relative width (to max(1, |t|)) to which an event time is located.
pub const EVENT_TIME_TOLERANCE: f64 = 1e-13;

/// Smallest step size relative to max(1, |t|) before the integrator gives up.
pub const MIN_STEP_RELATIVE: f64 = 1e-14;

/// Default limit on the number of steps of one [`Dopri5::integrate`] call.
pub const DEFAULT_MAX_STEPS: usize = 10_000_000;

/// Safety factor of the step-size controller.
const SAFETY: f64 = 0.9;
/// Largest growth of the step size in one step.
const FAC_MAX: f64 = 5.0;
/// Largest shrinking of the step size in one step.
const FAC_MIN: f64 = 0.2;
/// Bisection steps of the event locator (2^-60 of a step is far below f64 resolution).
const EVENT_BISECTIONS: usize = 60;

/// Errors of the integrator.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum OdeError {
    /// The step size fell below [`MIN_STEP_RELATIVE`] (stiffness or a singularity).
    #[error("step size underflow at t = {t} (h = {h})")]
    StepUnderflow {
        /// Time reached.
        t: f64,
        /// Last step size tried.
        h: f64,
    },
    /// More steps than allowed.
    #[error("more than {steps} steps before t = {t}")]
    TooManySteps {
        /// The limit.
        steps: usize,
        /// Time reached.
        t: f64,
    },
    /// A right-hand side that returned a non-finite value.
    #[error("non-finite derivative at t = {0}")]
    NotFinite(f64),
    /// Bad tolerances or interval.
    #[error("{0}")]
    BadInput(String),
}

impl crate::error::Classify for OdeError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            OdeError::BadInput(_) => ErrorKind::Input,
            _ => ErrorKind::Numerical,
        }
    }
}

/// An autonomous or time-dependent system y' = f(t, y) with optional event functions.
pub trait OdeSystem {
    /// Dimension of y.
    fn dim(&self) -> usize;
    /// Writes f(t, y) into `dy`.
    fn rhs(&self, t: f64, y: &[f64], dy: &mut [f64]);
    /// Number of event functions (default none).
    fn events(&self) -> usize {
        0
    }
    /// Writes the event functions g_j(t, y) into `g` (length [`OdeSystem::events`]).
    fn event_values(&self, _t: f64, _y: &[f64], _g: &mut [f64]) {}
}

/// Absolute and relative tolerances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance.
    pub rel: f64,
}

impl Tolerance {
    /// The same value for both.
    pub fn both(tol: f64) -> Self {
        Tolerance { abs: tol, rel: tol }
    }
}

/// Why an integration stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// The end of the interval was reached.
    End,
    /// Event j fired at the returned time.
    Event(usize),
}

/// Counters of an integration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OdeStats {
    /// Accepted steps.
    pub accepted: usize,
    /// Rejected steps.
    pub rejected: usize,
    /// Right-hand side evaluations.
    pub evaluations: usize,
}

// Dormand–Prince 5(4) tableau.
const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const B1: f64 = 35.0 / 384.0;
const B3: f64 = 500.0 / 1113.0;
const B4: f64 = 125.0 / 192.0;
const B5: f64 = -2187.0 / 6784.0;
const B6: f64 = 11.0 / 84.0;
// Error coefficients b − b* (b* the fourth-order weights).
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;

/// The Dormand–Prince 5(4) integrator with its work arrays (no allocation per step).
#[derive(Debug, Clone)]
pub struct Dopri5 {
    tol: Tolerance,
    max_steps: usize,
    h: Option<f64>,
    k: [Vec<f64>; 7],
    ytmp: Vec<f64>,
    ynew: Vec<f64>,
    err: Vec<f64>,
    g0: Vec<f64>,
    g1: Vec<f64>,
    /// Counters since construction.
    pub stats: OdeStats,
}

impl Dopri5 {
    /// An integrator for systems of dimension `dim` with tolerance `tol`.
    pub fn new(dim: usize, tol: Tolerance) -> Result<Self, OdeError> {
        if !(tol.abs > 0.0 && tol.abs.is_finite() && tol.rel >= 0.0 && tol.rel.is_finite()) {
            return Err(OdeError::BadInput(format!(
                "tolerances must be finite with atol > 0 and rtol >= 0, got {tol:?}"
            )));
        }
        let v = || vec![0.0; dim];
        Ok(Dopri5 {
            tol,
            max_steps: DEFAULT_MAX_STEPS,
            h: None,
            k: [v(), v(), v(), v(), v(), v(), v()],
            ytmp: v(),
            ynew: v(),
            err: v(),
            g0: Vec::new(),
            g1: Vec::new(),
            stats: OdeStats::default(),
        })
    }

    /// Forgets the last step size (call after a discontinuity of the vector field).
    pub fn reset_step(&mut self) {
        self.h = None;
    }

    /// One Runge–Kutta step of size h from (t, y), k\[0\] = f(t, y) already set: the
    /// fifth-order result in `ynew`, the error estimate's norm returned.
    fn try_step<S: OdeSystem + ?Sized>(&mut self, sys: &S, t: f64, y: &[f64], h: f64) -> f64 {
        let n = y.len();
        let [k1, k2, k3, k4, k5, k6, k7] = &mut self.k;
        let yt = &mut self.ytmp;
        for i in 0..n {
            yt[i] = y[i] + h * A21 * k1[i];
        }
        sys.rhs(t + C2 * h, yt, k2);
        for i in 0..n {
            yt[i] = y[i] + h * (A31 * k1[i] + A32 * k2[i]);
        }
        sys.rhs(t + C3 * h, yt, k3);
        for i in 0..n {
            yt[i] = y[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
        }
        sys.rhs(t + C4 * h, yt, k4);
        for i in 0..n {
            yt[i] = y[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
        }
        sys.rhs(t + C5 * h, yt, k5);
        for i in 0..n {
            yt[i] =
                y[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] + A65 * k5[i]);
        }
        sys.rhs(t + h, yt, k6);
        let yn = &mut self.ynew;
        for i in 0..n {
            yn[i] = y[i] + h * (B1 * k1[i] + B3 * k3[i] + B4 * k4[i] + B5 * k5[i] + B6 * k6[i]);
        }
        sys.rhs(t + h, yn, k7);
        self.stats.evaluations += 6;
        let mut norm = 0.0f64;
        for i in 0..n {
            let e =
                h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i]);
            self.err[i] = e;
            let sc = self.tol.abs + self.tol.rel * y[i].abs().max(yn[i].abs());
            norm = norm.max(e.abs() / sc);
        }
        if norm.is_nan() || yn.iter().any(|x| !x.is_finite()) {
            f64::INFINITY
        } else {
            norm
        }
    }

    /// A starting step size (Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.4: the simple
    /// rule h = 0.01 ‖y‖/‖f‖ in the error norm, h = 10⁻⁶ when either norm is below 10⁻⁵),
    /// kept within [10⁻¹² span, span]. Only a start: the error control adapts it.
    fn initial_step(&self, y: &[f64], f: &[f64], span: f64) -> f64 {
        const TINY_NORM: f64 = 1e-5;
        const TINY_STEP: f64 = 1e-6;
        const STEP_FRACTION: f64 = 0.01;
        const MIN_STEP_OF_SPAN: f64 = 1e-12;
        let mut d0 = 0.0f64;
        let mut d1 = 0.0f64;
        for (yi, fi) in y.iter().zip(f) {
            let sc = self.tol.abs + self.tol.rel * yi.abs();
            d0 = d0.max(yi.abs() / sc);
            d1 = d1.max(fi.abs() / sc);
        }
        let h = if d0 < TINY_NORM || d1 < TINY_NORM {
            TINY_STEP
        } else {
            STEP_FRACTION * d0 / d1
        };
        h.min(span.abs()).max(span.abs() * MIN_STEP_OF_SPAN)
    }

    /// Integrates `sys` from (t0, y) to t1 > t0 (or to the first event), overwriting `y`.
    /// Returns the time reached and why it stopped.
    pub fn integrate<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        y: &mut [f64],
        t1: f64,
    ) -> Result<(f64, Stop), OdeError> {
        let n = sys.dim();
        if y.len() != n || self.k[0].len() != n {
            return Err(OdeError::BadInput(format!(
                "dimension mismatch: system {n}, state {}, integrator {}",
                y.len(),
                self.k[0].len()
            )));
        }
        if !(t1 >= t0) || !t0.is_finite() || !t1.is_finite() {
            return Err(OdeError::BadInput(format!("bad interval [{t0}, {t1}]")));
        }
        let ne = sys.events();
        self.g0.resize(ne, 0.0);
        self.g1.resize(ne, 0.0);
        let mut t = t0;
        if t1 == t0 {
            return Ok((t, Stop::End));
        }
        sys.rhs(t, y, &mut self.k[0]);
        self.stats.evaluations += 1;
        if self.k[0].iter().any(|x| !x.is_finite()) {
            return Err(OdeError::NotFinite(t));
        }
        let mut h = match self.h {
            Some(h) => h,
            None => self.initial_step(y, &self.k[0].clone(), t1 - t0),
        };
        let mut steps = 0usize;
        loop {
            if steps >= self.max_steps {
                return Err(OdeError::TooManySteps {
                    steps: self.max_steps,
                    t,
                });
            }
            let remaining = t1 - t;
            let last = h >= remaining;
            let hs = if last { remaining } else { h };
            if hs < MIN_STEP_RELATIVE * t.abs().max(1.0) && !last {
                return Err(OdeError::StepUnderflow { t, h: hs });
            }
            let err = self.try_step(sys, t, y, hs);
            steps += 1;
            if err <= 1.0 {
                self.stats.accepted += 1;
                // Events: any g_j positive at the start and ≤ 0 at the end of the step.
                if ne > 0 {
                    sys.event_values(t, y, &mut self.g0);
                    sys.event_values(t + hs, &self.ynew, &mut self.g1);
                    let fired = (0..ne).any(|j| self.g0[j] > 0.0 && self.g1[j] <= 0.0);
                    if fired {
                        let (te, j) = self.locate_event(sys, t, y, hs);
                        y.copy_from_slice(&self.ynew);
                        self.h = Some(hs);
                        return Ok((te, Stop::Event(j)));
                    }
                }
                t = if last { t1 } else { t + hs };
                y.copy_from_slice(&self.ynew);
                // First same as last: f(t + h, y_new) is k7.
                let (head, tail) = self.k.split_at_mut(6);
                head[0].copy_from_slice(&tail[0]);
                let fac = if err == 0.0 {
                    FAC_MAX
                } else {
                    (SAFETY * err.powf(-0.2)).clamp(FAC_MIN, FAC_MAX)
                };
                if !last {
                    h = hs * fac;
                }
                if last {
                    self.h = Some(h);
                    return Ok((t, Stop::End));
                }
            } else {
                self.stats.rejected += 1;
                let fac = if err.is_finite() {
                    (SAFETY * err.powf(-0.2)).clamp(FAC_MIN, 1.0)
                } else {
                    FAC_MIN
                };
                h = hs * fac;
                if h < MIN_STEP_RELATIVE * t.abs().max(1.0) {
                    return Err(OdeError::StepUnderflow { t, h });
                }
            }
        }
    }

    /// Bisection on the step size θ·h of one step from (t, y) for the first event that
    /// fires within [t, t + h]; leaves the state at the right end of the final bracket in
    /// `ynew` and returns that time with the event's index.
    fn locate_event<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        y: &[f64],
        h: f64,
    ) -> (f64, usize) {
        let ne = self.g0.len();
        let g_start = self.g0.clone();
        let k1 = self.k[0].clone();
        let (mut lo, mut hi) = (0.0f64, h);
        let scale = EVENT_TIME_TOLERANCE * t.abs().max(1.0);
        let mut first = (0..ne)
            .find(|&j| g_start[j] > 0.0 && self.g1[j] <= 0.0)
            .unwrap_or(0);
        for _ in 0..EVENT_BISECTIONS {
            if hi - lo <= scale {
                break;
            }
            let mid = 0.5 * (lo + hi);
            self.k[0].copy_from_slice(&k1);
            self.try_step(sys, t, y, mid);
            sys.event_values(t + mid, &self.ynew, &mut self.g1);
            if (0..ne).any(|j| g_start[j] > 0.0 && self.g1[j] <= 0.0) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // The state at the right end of the bracket, where the event has fired.
        self.k[0].copy_from_slice(&k1);
        self.try_step(sys, t, y, hi);
        sys.event_values(t + hi, &self.ynew, &mut self.g1);
        if let Some(j) = (0..ne).find(|&j| g_start[j] > 0.0 && self.g1[j] <= 0.0) {
            first = j;
        }
        (t + hi, first)
    }

    /// A fixed-step integration (no error control), for convergence-order checks.
    #[cfg(test)]
    pub(crate) fn integrate_fixed<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        y: &mut [f64],
        t1: f64,
        steps: usize,
    ) {
        let h = (t1 - t0) / steps as f64;
        let mut t = t0;
        for _ in 0..steps {
            sys.rhs(t, y, &mut self.k[0]);
            self.try_step(sys, t, y, h);
            y.copy_from_slice(&self.ynew);
            t += h;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y' = A y for the rotation generator plus damping: y1' = −a y1 + w y2,
    /// y2' = −w y1 − a y2, with the closed form e^{−at}(cos wt, −sin wt) from (1, 0).
    struct Damped {
        a: f64,
        w: f64,
    }
    impl OdeSystem for Damped {
        fn dim(&self) -> usize {
            2
        }
        fn rhs(&self, _t: f64, y: &[f64], dy: &mut [f64]) {
            dy[0] = -self.a * y[0] + self.w * y[1];
            dy[1] = -self.w * y[0] - self.a * y[1];
        }
    }

    #[test]
    fn damped_rotation_within_stated_accuracy() {
        let sys = Damped { a: 0.1, w: 2.0 };
        for tol in [1e-6, 1e-9, 1e-12] {
            let mut ig = Dopri5::new(2, Tolerance::both(tol)).unwrap();
            let mut y = [1.0, 0.0];
            let mut t = 0.0;
            for k in 1..=20 {
                let t1 = k as f64;
                let (tt, stop) = ig.integrate(&sys, t, &mut y, t1).unwrap();
                assert_eq!(stop, Stop::End);
                t = tt;
                let e = (-sys.a * t).exp();
                let exact = [e * (sys.w * t).cos(), -e * (sys.w * t).sin()];
                for i in 0..2 {
                    let bound = GLOBAL_ERROR_FACTOR * (tol + tol * exact[i].abs());
                    assert!(
                        (y[i] - exact[i]).abs() <= bound,
                        "tol {tol} t {t}: {} vs {}",
                        y[i],
                        exact[i]
                    );
                }
            }
        }
    }

    #[test]
    fn fifth_order_on_fixed_steps() {
        // Halving the step of a fixed-step run divides the error by about 2^5 = 32.
        let sys = Damped { a: 0.5, w: 1.0 };
        let exact = |t: f64| (-0.5 * t).exp() * t.cos();
        let run = |steps: usize| {
            let mut ig = Dopri5::new(2, Tolerance::both(1.0)).unwrap();
            let mut y = [1.0, 0.0];
            ig.integrate_fixed(&sys, 0.0, &mut y, 4.0, steps);
            (y[0] - exact(4.0)).abs()
        };
        let (e1, e2) = (run(20), run(40));
        let ratio = e1 / e2;
        assert!((24.0..40.0).contains(&ratio), "ratio {ratio}: {e1} {e2}");
    }

    /// y' = 1 from 0, with the event g = 0.75 − y: fires at t = 0.75 exactly.
    struct Ramp;
    impl OdeSystem for Ramp {
        fn dim(&self) -> usize {
            1
        }
        fn rhs(&self, _t: f64, _y: &[f64], dy: &mut [f64]) {
            dy[0] = 1.0;
        }
        fn events(&self) -> usize {
            1
        }
        fn event_values(&self, _t: f64, y: &[f64], g: &mut [f64]) {
            g[0] = 0.75 - y[0];
        }
    }

    #[test]
    fn events_are_located() {
        let mut ig = Dopri5::new(1, Tolerance::both(1e-10)).unwrap();
        let mut y = [0.0];
        let (t, stop) = ig.integrate(&Ramp, 0.0, &mut y, 5.0).unwrap();
        assert_eq!(stop, Stop::Event(0));
        assert!((t - 0.75).abs() < 1e-12, "{t}");
        assert!((y[0] - 0.75).abs() < 1e-12 && y[0] >= 0.75, "{}", y[0]);
    }

    #[test]
    fn bad_tolerance_is_rejected() {
        assert!(Dopri5::new(1, Tolerance::both(0.0)).is_err());
        assert!(Dopri5::new(
            1,
            Tolerance {
                abs: 1e-9,
                rel: f64::NAN
            }
        )
        .is_err());
    }
}
