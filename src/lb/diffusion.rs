//! The diffusion scale of JSQ in the Halfin–Whitt regime, and its reflected-Euler
//! simulation.
//!
//! **Regime.** Queues with λ(N) = N − β√N (β > 0), i.e. λ = 1 − β/√N per server
//! ([`halfin_whitt_lambda`]). The centred and scaled occupancy is
//! Q̄_1 = (Q_1 − N)/√N ≤ 0 (minus the scaled idle servers) and Q̄_i = Q_i/√N, i ≥ 2.
//!
//! **The limit** (Eschenfeldt & Gamarnik 2015 for JSQ; arXiv 1612.00723, Theorem 2.4, for
//! JSQ(d(N)) with d(N)/(√N log N) → ∞): with Q̄_i(0) → 0 for i ≥ 3,
//!
//! dQ̄_1 = √2 dW − β dt + (Q̄_2 − Q̄_1) dt − dU_1,   dQ̄_2 = dU_1 − Q̄_2 dt,
//!
//! where U_1 is non-decreasing and grows only when Q̄_1 = 0 (the reflection at the upper
//! boundary: when no server is idle, arrivals start second tasks). Derivation of the drift:
//! while idle servers exist, arrivals (N − β√N) all go to them and servers with one task
//! complete at rate Q_1 − Q_2, so dQ_1/√N has drift −β − Q̄_1 + Q̄_2; the variance rate is
//! (arrivals + departures)/N → 2.
//!
//! **Scheme.** A reflected Euler scheme: over a step h the drift is frozen, the free
//! endpoint Y = X_1 + (−β − X_1 + X_2)h + √(2h) Z is drawn, and the reflection is applied
//! through the exact supremum of the Brownian bridge from X_1 to Y (see `step`), so the
//! push U_1 over the step is exact for the frozen drift and X_1 ← Y − push; then
//! X_2 ← X_2 + push − X_2 h. (The plain projection X_1 ← min(Y, 0) has an error of order
//! √h in the pushed amount, 4 % on E[Q̄_2] at h = 0.005 in our runs; the bridge removes
//! it.) The step is checked: the run is repeated with h/2 on the same Brownian path (each
//! coarse increment the sum of two fine ones) and the largest difference of the estimates
//! is reported ([`DiffusionEstimate::step_change`]).
//!
//! A check that does not depend on h: in stationarity E[dQ̄_1] = 0 and E[dQ̄_2] = 0 give
//! E[−Q̄_1] = β (the busy servers carry the load), for the scheme as for the limit (the
//! expected push per step is E[X_2] h, up to the O(h) of the frozen drift); the finite-N simulator satisfies the same identity,
//! E[(N − Q_1)/√N] = β, so the two are compared on Q̄_2 and on the spread of Q̄_1.

use super::model::LbError;
use crate::sim::rng::{stream_rng, unit_f64};
use crate::sim::stats::{ratio_estimate, Estimate};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// λ per server of the Halfin–Whitt regime λ(N) = N − β√N: 1 − β/√N.
///
/// ```
/// use taskassign::lb::halfin_whitt_lambda;
/// assert!((halfin_whitt_lambda(10_000, 0.5) - 0.995).abs() < 1e-15);
/// ```
pub fn halfin_whitt_lambda(n: u64, beta: f64) -> f64 {
    1.0 - beta / (n as f64).sqrt()
}

/// The largest step accepted.
pub const MAX_STEP: f64 = 0.1;

/// What a diffusion run estimates (time averages after the burn-in).
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionEstimate {
    /// E[−Q̄_1], the scaled idle servers.
    pub scaled_idle: Estimate,
    /// E[Q̄_1²].
    pub scaled_idle_sq: Estimate,
    /// E[Q̄_2].
    pub scaled_q2: Estimate,
    /// The step used.
    pub step: f64,
    /// The largest change of the three means when the step is halved (on the same paths).
    pub step_change: f64,
}

/// A standard normal variate by Box–Muller (both of a pair are used by the caller).
fn normal_pair(rng: &mut Xoshiro256PlusPlus) -> (f64, f64) {
    let u1 = 1.0 - unit_f64(rng); // (0, 1]
    let u2 = unit_f64(rng);
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    (r * c, r * s)
}

/// One step of size h from (x1, x2) with the standard normal z and the uniform u: the
/// free endpoint Y = x1 + μh + √(2h) z with the drift μ = −β − x1 + x2 frozen over the
/// step, the supremum M of the Brownian bridge from x1 to Y sampled exactly by inversion
/// of P(M ≥ m) = exp(−(m − x1)(m − Y)/h) (variance rate 2: exp(−2(m−x1)(m−Y)/(σ²h))),
/// M = (x1 + Y + √((Y − x1)² − 4h ln u))/2, and the push max(M, 0): the Skorokhod map of
/// the step's path, exact for a frozen drift (Asmussen, Glynn & Pitman 1995, "Discretization
/// error in simulation of one-dimensional reflecting Brownian motion", which also shows
/// the plain projection's √h error that this avoids).
#[inline]
fn step(beta: f64, h: f64, x1: &mut f64, x2: &mut f64, z: f64, u: f64) {
    let y = *x1 + (-beta - *x1 + *x2) * h + (2.0 * h).sqrt() * z;
    let m = 0.5 * (*x1 + y + ((y - *x1).powi(2) - 4.0 * h * u.ln()).sqrt());
    let push = m.max(0.0);
    *x1 = y - push;
    *x2 += push - *x2 * h;
}

/// One replication at steps h (coarse) and h/2 (fine) on the same Brownian path: time
/// averages of (−X_1, X_1², X_2) for each. The coarse step's increment is the sum of the
/// two fine ones; its bridge supremum is drawn afresh (an independent uniform), which
/// keeps each scheme exact in law for a frozen drift.
fn replicate(
    beta: f64,
    h: f64,
    burn: f64,
    horizon: f64,
    rng: &mut Xoshiro256PlusPlus,
) -> [[f64; 3]; 2] {
    let hf = h / 2.0;
    let (mut c1, mut c2) = (0.0f64, 0.0f64);
    let (mut f1, mut f2) = (0.0f64, 0.0f64);
    let mut sums = [[0.0; 3]; 2];
    let steps = ((burn + horizon) / h).round() as u64;
    let burn_steps = (burn / h).round() as u64;
    for k in 0..steps {
        let (z1, z2) = normal_pair(rng);
        let measuring = k >= burn_steps;
        for z in [z1, z2] {
            let u = 1.0 - unit_f64(rng);
            step(beta, hf, &mut f1, &mut f2, z, u);
            if measuring {
                sums[1][0] -= f1 * hf;
                sums[1][1] += f1 * f1 * hf;
                sums[1][2] += f2 * hf;
            }
        }
        // √(h/2)(z1 + z2) = √h · N(0, 1).
        let u = 1.0 - unit_f64(rng);
        step(
            beta,
            h,
            &mut c1,
            &mut c2,
            (z1 + z2) / std::f64::consts::SQRT_2,
            u,
        );
        if measuring {
            sums[0][0] -= c1 * h;
            sums[0][1] += c1 * c1 * h;
            sums[0][2] += c2 * h;
        }
    }
    let t = (steps - burn_steps) as f64 * h;
    for s in &mut sums {
        for v in s.iter_mut() {
            *v /= t;
        }
    }
    sums
}

/// Simulates the limiting diffusion with step `step` (and `step`/2 for the check), from
/// (0, 0), discarding `burn` time units, over `horizon`, in `replications` independent
/// replications (streams of `seed`), and returns the fine-step estimates with the change
/// against the coarse step.
pub fn simulate(
    beta: f64,
    step: f64,
    burn: f64,
    horizon: f64,
    replications: usize,
    seed: u64,
) -> Result<DiffusionEstimate, LbError> {
    if !(beta.is_finite() && beta > 0.0) {
        return Err(LbError::BadInput(format!(
            "beta must be positive, got {beta}"
        )));
    }
    if !(step > 0.0 && step <= MAX_STEP) {
        return Err(LbError::BadInput(format!(
            "the step must be in (0, {MAX_STEP}], got {step}"
        )));
    }
    if !(burn >= 0.0 && horizon > 0.0 && horizon.is_finite() && burn.is_finite()) {
        return Err(LbError::BadInput("bad burn-in or horizon".into()));
    }
    if replications < 2 {
        return Err(LbError::BadInput("at least two replications".into()));
    }
    let reps: Vec<[[f64; 3]; 2]> = (0..replications as u64)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream_rng(seed, 0, r, 0);
            replicate(beta, step, burn, horizon, &mut rng)
        })
        .collect();
    let est = |level: usize, k: usize| {
        ratio_estimate(&reps.iter().map(|s| (s[level][k], 1)).collect::<Vec<_>>())
    };
    let change = (0..3)
        .map(|k| (est(0, k).mean - est(1, k).mean).abs())
        .fold(0.0, f64::max);
    Ok(DiffusionEstimate {
        scaled_idle: est(1, 0),
        scaled_idle_sq: est(1, 1),
        scaled_q2: est(1, 2),
        step: step / 2.0,
        step_change: change,
    })
}
