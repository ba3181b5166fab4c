//! Proven enclosures of the closed-form fixed point of the power-of-d mean field (queues,
//! no buffer; Mitzenmacher 1996; Vvedenskaya, Dobrushin & Karpelevich 1996):
//! s_i = λ^{(d^i − 1)/(d − 1)}, the fraction of servers with at least i tasks, by the
//! exact recursion s_i = λ s_{i−1}^d from s_0 = 1 on [`Interval`]s (each step rounded
//! outward, so each s_i contains the exact value for the decimal λ).
//!
//! The mean tasks per server Σ_{i ≥ 1} s_i is summed to a level K and its tail bounded:
//! for i ≥ K, s_{i+1} = λ s_i^d = s_i · λ s_i^{d−1} ≤ s_i · r with r = λ s_K^{d−1} < 1
//! (the s_i decrease and λ < 1), so Σ_{i > K} s_i ≤ s_{K+1}/(1 − r). The enclosure of the
//! mean is [Σ_{i ≤ K} s_i, Σ_{i ≤ K} s_i + that bound] (upper ends), and the mean sojourn is
//! the mean tasks over λ (Little's law; nothing is blocked without a buffer).
//!
//! With a finite capacity (pools with B, queues with a buffer), where the fixed point is a
//! root rather than a closed form, [`power_of_d_capacity_enclosed`] isolates the root
//! rigorously: a sign change proven at both ends of a bracket by interval evaluation of
//! the monotone level recursion, then every level enclosed by monotonicity.

use super::model::LbError;
use crate::num::interval::{fewest_proven, prove_to_digits, Interval};

/// The proven fixed point.
#[derive(Debug, Clone)]
pub struct EnclosedFixedPoint {
    /// s_1, s_2, …, s_K (each an enclosure).
    pub occupancy: Vec<Interval>,
    /// Σ_{i ≥ 1} s_i, the tail beyond K bounded.
    pub mean_tasks: Interval,
    /// Mean sojourn time (service rate 1): mean tasks over the accepted rate.
    pub mean_sojourn: Interval,
    /// The probability that an arrival is discarded (a finite capacity), `None` without
    /// a buffer (nothing is discarded).
    pub blocking: Option<Interval>,
    /// Σ of the levels past `occupancy`: 0 where the fixed point stops there (a finite
    /// capacity, JSQ's closed forms), [0, the tail bound] for the queues' closed form,
    /// [0, λ β_B] for pools without a buffer ([`pools_power_of_d_enclosed`]).
    pub beyond: Interval,
}

/// Levels at most (s_i falls doubly exponentially for d ≥ 2 and geometrically for d = 1).
pub const MAX_ENCLOSED_LEVELS: usize = 1 << 20;

/// The power-of-d fixed point for queues without a buffer, λ the decimal `lambda` in
/// (0, 1), enclosed at `bits`; the levels stop where s_K is below 2^−bits of the sum.
pub fn queues_power_of_d_enclosed(
    lambda: &str,
    d: u32,
    bits: u32,
) -> Result<EnclosedFixedPoint, LbError> {
    if d < 1 {
        return Err(LbError::DTooSmall(d.to_string()));
    }
    let lam = Interval::from_decimal(lambda, bits)?;
    if !lam.is_positive() || *lam.hi() >= 1 {
        return Err(LbError::BadInput(format!(
            "the enclosed fixed point needs 0 < lambda < 1, got {lambda}"
        )));
    }
    let dj = i32::try_from(d).map_err(|_| LbError::DTooSmall(d.to_string()))?;
    let mut occupancy: Vec<Interval> = Vec::new();
    let mut s = Interval::int(bits, 1);
    let mut sum = Interval::zero_at(bits);
    loop {
        s = lam.mul(&s.powi(dj));
        sum = sum.add(&s);
        occupancy.push(s.clone());
        // s_K below 2^−bits of the sum (an exact shift).
        let small = *s.hi() <= rug::Float::with_val(bits, sum.lo() >> bits);
        if small || s.hi().is_zero() {
            break;
        }
        if occupancy.len() >= MAX_ENCLOSED_LEVELS {
            return Err(LbError::Numerical(format!(
                "the enclosed fixed point needs more than {MAX_ENCLOSED_LEVELS} levels"
            )));
        }
    }
    // Tail: Σ_{i > K} s_i ≤ s_{K+1}/(1 − r), r = λ s_K^{d−1} (upper ends).
    let next = lam.mul(&s.powi(dj));
    let r = lam.mul(&s.powi(dj - 1));
    let one = Interval::int(bits, 1);
    let gap = one.sub(&r.hi_point());
    if !gap.is_positive() {
        return Err(LbError::Numerical(
            "the enclosed fixed point: the tail's ratio is not proven below 1 (more digits may help)"
                .into(),
        ));
    }
    let tail = next.hi_point().div(&gap);
    let mean_tasks = Interval::new(sum.lo().clone(), sum.add(&tail).hi().clone());
    let mean_sojourn = mean_tasks.div(&lam);
    let beyond = Interval::new(rug::Float::new(bits), tail.hi().clone());
    Ok(EnclosedFixedPoint {
        occupancy,
        mean_tasks,
        mean_sojourn,
        blocking: None,
        beyond,
    })
}

/// A power-of-d fixed point with a finite capacity K (pools with B, or queues with a
/// buffer b), enclosed by rigorous root isolation.
///
/// The fixed-point equations give the levels downwards from the top x = q_K
/// (`lb::fixed_point`, module docs): q_{i−1} = (β + T_i/λ)^{1/d}, β = x^d, a recursion of
/// sums of positive terms in which every q_i is increasing in x, so q_0(x) − 1 is
/// increasing and its root x* is unique. The recursion is run on intervals (outward
/// rounding, λ enclosed from its decimal) at two points x₋ < x₊ around the MPFR root; when
/// the enclosure of q_0(x₋) lies below 1 and that of q_0(x₊) above 1, the exact x* lies in
/// (x₋, x₊) (a sign change proven at both ends, with monotonicity: the root is isolated),
/// and by monotonicity every exact q_i(x*) lies between the lower end of its enclosure at
/// x₋ and the upper end at x₊. Blocking is x*^d (the probability that all d sampled servers
/// are full), the mean tasks Σ q_i, the mean sojourn the tasks over the accepted rate
/// λ (1 − blocking) (Little's law).
///
/// The capacity must be the top level the MPFR route solves (its levels do not fall
/// below MPFR's exponent range before K); a capacity so large that the MPFR route
/// truncates is an error here.
pub fn power_of_d_capacity_enclosed(
    model: &super::model::Model,
    d: u32,
    bits: u32,
) -> Result<EnclosedFixedPoint, LbError> {
    use super::model::ModelKind;
    use rug::Float;
    if d < 1 {
        return Err(LbError::DTooSmall(d.to_string()));
    }
    let Some(cap) = model.buffer() else {
        return Err(LbError::BadInput(
            "the enclosed fixed point by root isolation needs a finite capacity".into(),
        ));
    };
    let k = cap as usize;
    let located = super::fixed_point::by_root(model, d, bits + ROOT_EXTRA_BITS)?;
    if located.occupancy.len() != k {
        return Err(LbError::Numerical(format!(
            "the enclosed fixed point: the levels fall below MPFR's range before the capacity {k}"
        )));
    }
    let x = located.occupancy[k - 1].clone();
    if !(x > 0) {
        return Err(LbError::Numerical(
            "the enclosed fixed point: the top level is 0 at this precision".into(),
        ));
    }
    let lam = Interval::from_decimal(model.lambda_text(), bits)?;
    let kind = model.kind();
    let dj = i32::try_from(d).map_err(|_| LbError::DTooSmall(d.to_string()))?;
    // The levels q_0 … q_K from the top value x, on intervals.
    let descend = |x: &Float| -> Vec<Interval> {
        let top = Interval::point(Float::with_val(bits.max(x.prec()), x));
        let beta = top.powi(dj);
        let mut levels = vec![Interval::zero_at(bits); k + 1];
        levels[k] = top;
        let mut above = Interval::zero_at(bits);
        for i in (1..=k).rev() {
            let t = match kind {
                ModelKind::Queues => levels[i].clone(),
                ModelKind::Pools => levels[i]
                    .mul(&Interval::int(bits, i64::try_from(i).unwrap_or(i64::MAX)))
                    .add(&above),
            };
            let inner = t.div(&lam).add(&beta);
            above = above.add(&levels[i]);
            levels[i - 1] = if d == 1 { inner } else { inner.root(d) };
        }
        levels
    };
    let mut rel = Float::with_val(bits, 1) >> bits.saturating_sub(ROOT_BRACKET_SLACK_BITS);
    for _ in 0..ROOT_BRACKET_TRIES {
        let below = Float::with_val(bits, &x - Float::with_val(bits, &x * &rel));
        let above = Float::with_val(bits, &x + Float::with_val(bits, &x * &rel));
        let lo = descend(&below);
        let hi = descend(&above);
        if *lo[0].hi() < 1 && *hi[0].lo() > 1 {
            let occupancy: Vec<Interval> = (1..=k)
                .map(|i| Interval::new(lo[i].lo().clone(), hi[i].hi().clone()))
                .collect();
            let top = &occupancy[k - 1];
            let blocking = top.powi(dj);
            let mut mean_tasks = Interval::zero_at(bits);
            for q in &occupancy {
                mean_tasks = mean_tasks.add(q);
            }
            let accepted = lam.mul(&Interval::int(bits, 1).sub(&blocking));
            if !accepted.is_positive() {
                return Err(LbError::Numerical(format!(
                    "the accepted rate lambda·(1 − blocking) is not enclosed away from 0 at {bits} bits (the blocking is within 2^-{bits} of 1 at this lambda), so the mean sojourn has no enclosure: use a smaller lambda or a larger buffer"
                )));
            }
            let mean_sojourn = mean_tasks.div(&accepted);
            return Ok(EnclosedFixedPoint {
                occupancy,
                mean_tasks,
                mean_sojourn,
                blocking: Some(blocking),
                beyond: Interval::zero_at(bits),
            });
        }
        rel <<= ROOT_BRACKET_WIDEN_BITS;
    }
    Err(LbError::Numerical(format!(
        "the enclosed fixed point: no sign change of q_0 − 1 proven around the root within \
         {ROOT_BRACKET_TRIES} widenings (more digits may help)"
    )))
}

/// The power-of-d fixed point of pools without a buffer, from the enclosed fixed point of a
/// finite capacity B ([`power_of_d_capacity_enclosed`]) and a proven bound on what the
/// capacity leaves out:
///
/// 1. **Each capacity's fixed point is the unique equilibrium of its ODE** dq_i/dt =
///    λ(q_{i−1}^d − q_i^d) − i(q_i − q_{i+1}), i = 1 … B, q_0 = 1, q_{B+1} = 0 (every
///    equilibrium satisfies the top-down recursion of [`power_of_d_capacity_enclosed`],
///    whose q_0 grows with the top level: one root).
/// 2. **q(B) ≤ q(B + 1) level by level.** The ODE is cooperative (∂f_i/∂q_{i−1} =
///    λ d q_{i−1}^{d−1} ≥ 0, ∂f_i/∂q_{i+1} = i ≥ 0, no other off-diagonal term) and leaves
///    the box [0, 1]^{B+1} invariant. At (q(B), 0) every derivative of the capacity-(B + 1)
///    system is 0 but the top one, λ q_B(B)^d ≥ 0: a sub-equilibrium, from which the
///    trajectory never decreases (Kamke's comparison; H. L. Smith, *Monotone Dynamical
///    Systems*, AMS 1995, Prop. 3.2.1) and, bounded, converges to an equilibrium: the
///    unique one, q(B + 1).
/// 3. **Sums.** Summing the equations from level 1 up gives Σ_i q_i(B) = λ(1 − β_B), β_B =
///    q_B(B)^d the blocking; and since the levels decrease, B q_B(B) ≤ λ, so β_B → 0. The
///    fixed point without a buffer is the increasing limit q(∞) = lim q(B) (each level
///    nondecreasing and at most 1), with Σ_i q_i(∞) = λ (monotone convergence): the
///    M/M/∞ count of tasks, whatever the routing.
/// 4. Hence every q_i(∞) − q_i(B) ≥ 0, and they sum to λ β_B: q_i(∞) ∈ [q_i(B), q_i(B) +
///    λ β_B] for i ≤ B, and the levels past B sum to at most λ β_B.
///
/// B is the level where the MPFR route without a buffer stops (its top level below
/// 2^−2p), so λ β_B is far below 2^−bits of λ (checked: else an error). The mean tasks are
/// λ exactly (3.), the mean sojourn 1 (Little's law), nothing is blocked.
pub fn pools_power_of_d_enclosed(
    model: &super::model::Model,
    d: u32,
    bits: u32,
) -> Result<EnclosedFixedPoint, LbError> {
    use super::model::{Model, ModelKind, MAX_CAPACITY};
    let lam = Interval::from_decimal(model.lambda_text(), bits)?;
    // The capacity: the level where the MPFR route without a buffer stops (its top level
    // below 2^−2p there), which the capacity's own MPFR route then reaches by the same
    // steps.
    let free = super::fixed_point::by_root(model, d, bits + ROOT_EXTRA_BITS)?;
    let cap = u32::try_from(free.occupancy.len())
        .ok()
        .filter(|c| (1..=MAX_CAPACITY).contains(c))
        .ok_or_else(|| {
            LbError::Numerical(format!(
                "the enclosed fixed point of pools without a buffer: {} levels",
                free.occupancy.len()
            ))
        })?;
    let finite = Model::new(ModelKind::Pools, model.lambda_text(), Some(cap))?;
    let fp = power_of_d_capacity_enclosed(&finite, d, bits)?;
    let blocking = fp
        .blocking
        .clone()
        .unwrap_or_else(|| Interval::zero_at(bits));
    let lost = lam.mul(&blocking).hi_point();
    if *lost.hi() > rug::Float::with_val(bits, lam.lo() >> bits) {
        return Err(LbError::Numerical(format!(
            "the enclosed fixed point of pools without a buffer: the blocking at capacity {cap} is not below 2^-{bits}"
        )));
    }
    let zero = rug::Float::new(bits);
    let occupancy = fp
        .occupancy
        .iter()
        .map(|q| Interval::new(q.lo().clone(), q.add(&lost).hi().clone()))
        .collect();
    Ok(EnclosedFixedPoint {
        occupancy,
        mean_tasks: lam,
        mean_sojourn: Interval::int(bits, 1),
        blocking: None,
        beyond: Interval::new(zero, lost.hi().clone()),
    })
}

/// Extra bits of the MPFR root that the enclosure's bracket starts from.
const ROOT_EXTRA_BITS: u32 = 32;
/// The bracket's first half-width is 2^−(bits − this) relative.
const ROOT_BRACKET_SLACK_BITS: u32 = 8;
/// Widenings of the bracket (each by 2^[`ROOT_BRACKET_WIDEN_BITS`]) before giving up.
const ROOT_BRACKET_TRIES: usize = 6;
/// Bits the bracket widens by each time.
const ROOT_BRACKET_WIDEN_BITS: u32 = 8;

/// JSQ's fluid fixed point (the closed forms of `lb::fixed_point`) on intervals, `lambda`
/// the enclosed arrival rate per server: queues (λ, 0, …) for λ < 1, and with a buffer b
/// and λ > 1 every level up to b full; pools min{1, max{0, λ − i + 1}} for i = 1, 2, …
/// (up to B with a buffer: every pool full where λ > B). Queues at a λ whose enclosure
/// meets 1 have none (at λ = 1 every (1, a, 0, …) is a fixed point, and the fixed point
/// jumps there): an error naming why. Pools' levels are continuous in λ, and interval
/// min and max enclose them wherever λ lies.
pub fn jsq_fixed_point_enclosed(
    kind: super::model::ModelKind,
    lambda: &Interval,
    buffer: Option<u32>,
) -> Result<Vec<Interval>, LbError> {
    use super::model::ModelKind;
    let bits = lambda.prec();
    let one = Interval::int(bits, 1);
    match (kind, buffer) {
        (ModelKind::Queues, _) if *lambda.hi() < 1 => Ok(vec![lambda.clone()]),
        (ModelKind::Queues, Some(b)) if *lambda.lo() > 1 => Ok(vec![one; b as usize]),
        (ModelKind::Queues, None) => Err(LbError::BadInput(
            "JSQ's fixed point of queues without a buffer is enclosed only for lambda < 1"
                .into(),
        )),
        (ModelKind::Queues, Some(_)) => Err(LbError::BadInput(format!(
            "JSQ's fixed point of queues is not enclosed at a lambda whose enclosure meets 1 ([{}, {}]): at lambda = 1 every (1, a, 0, …) is a fixed point",
            crate::num::message_number(lambda.lo()),
            crate::num::message_number(lambda.hi())
        ))),
        (ModelKind::Pools, _) => {
            let zero = Interval::zero_at(bits);
            let top = buffer.map_or(i64::MAX, i64::from);
            let mut levels = Vec::new();
            for i in 1..=top {
                let v = lambda.sub(&Interval::int(bits, i - 1)).max(&zero).min(&one);
                if v.hi().is_zero() {
                    break;
                }
                levels.push(v);
            }
            Ok(levels)
        }
    }
}

/// The share of arrivals JSQ's fluid fixed point discards with a buffer (`None` without
/// one): queues 1 − 1/λ where λ > 1 and 0 where λ < 1 (the levels' error where λ meets
/// 1), pools max{0, 1 − B/λ}.
fn jsq_blocking_enclosed(
    kind: super::model::ModelKind,
    lambda: &Interval,
    buffer: Option<u32>,
) -> Option<Interval> {
    use super::model::ModelKind;
    let bits = lambda.prec();
    let zero = Interval::zero_at(bits);
    let one = Interval::int(bits, 1);
    let b = buffer?;
    Some(match kind {
        ModelKind::Queues if *lambda.lo() > 1 => one.sub(&one.div(lambda)),
        ModelKind::Queues => zero,
        ModelKind::Pools => one
            .sub(&Interval::int(bits, i64::from(b)).div(lambda))
            .max(&zero),
    })
}

/// The fixed point of `limit` for `model`, enclosed at `bits`: the power-of-d closed form
/// for queues without a buffer ([`queues_power_of_d_enclosed`]), the root isolated for a
/// finite capacity ([`power_of_d_capacity_enclosed`]), JSQ's closed forms
/// ([`jsq_fixed_point_enclosed`]; mean sojourn by Little's law at the accepted rate), the
/// power-of-d fixed point of pools without a buffer from a finite capacity's
/// ([`pools_power_of_d_enclosed`]).
pub fn fixed_point_enclosed(
    model: &super::model::Model,
    limit: super::fluid::Limit,
    bits: u32,
) -> Result<EnclosedFixedPoint, LbError> {
    use super::fluid::Limit;
    use super::model::ModelKind;
    match (limit, model.kind(), model.buffer()) {
        (Limit::PowerOfD(d), ModelKind::Queues, None) => {
            queues_power_of_d_enclosed(model.lambda_text(), d, bits)
        }
        (Limit::PowerOfD(d), _, Some(_)) => power_of_d_capacity_enclosed(model, d, bits),
        (Limit::PowerOfD(d), ModelKind::Pools, None) => pools_power_of_d_enclosed(model, d, bits),
        (Limit::Jsq, kind, buffer) => {
            let lambda = Interval::from_decimal(model.lambda_text(), bits)?;
            let occupancy = jsq_fixed_point_enclosed(kind, &lambda, buffer)?;
            let blocking = jsq_blocking_enclosed(kind, &lambda, buffer);
            let mut mean_tasks = Interval::zero_at(bits);
            for q in &occupancy {
                mean_tasks = mean_tasks.add(q);
            }
            // Little's law at the accepted rate λ (1 − blocking).
            let accepted = match &blocking {
                Some(b) => lambda.mul(&Interval::int(bits, 1).sub(b)),
                None => lambda.clone(),
            };
            if *accepted.lo() <= 0 {
                return Err(LbError::Numerical(format!(
                    "the accepted rate lambda·(1 − blocking) is not enclosed away from 0 at {bits} bits"
                )));
            }
            let mean_sojourn = mean_tasks.div(&accepted);
            Ok(EnclosedFixedPoint {
                occupancy,
                mean_tasks,
                mean_sojourn,
                blocking,
                beyond: Interval::zero_at(bits),
            })
        }
    }
}

/// [`fixed_point_enclosed`] for `digits` digits: at the precisions of a proven answer
/// ([`prove_to_digits`]), until the mean tasks and sojourn prove the digits asked.
pub fn fixed_point_proven(
    model: &super::model::Model,
    limit: super::fluid::Limit,
    digits: u32,
) -> Result<EnclosedFixedPoint, LbError> {
    prove_to_digits(
        digits,
        |bits| fixed_point_enclosed(model, limit, bits),
        |fp| fewest_proven([&fp.mean_tasks, &fp.mean_sojourn], digits),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;
    use rug::{Float, Integer};

    /// Each level contains the closed form λ^{(d^i − 1)/(d − 1)} computed directly (MPFR's
    /// power with the exact integer exponent, at 2000 bits: an independent route from the
    /// recursion); d = 1: the mean tasks contain λ/(1 − λ) (the M/M/1 mean, closed form) and
    /// the mean sojourn 1/(1 − λ); d = 2: the mean contains the direct sum of 30 levels (its
    /// remainder below λ^(2^30 − 1), far below the enclosure's width). At 200 bits every
    /// enclosure is at most 2^−180 wide relative.
    #[test]
    fn levels_and_means_contain_the_closed_forms() {
        let hp = 2000;
        let bits = 200;
        for lambda in ["0.1", "0.5", "0.9", "0.99"] {
            let l = crate::num::parse_decimal(lambda, hp).unwrap();
            for d in [1u32, 2, 3, 5] {
                let fp = queues_power_of_d_enclosed(lambda, d, bits).unwrap();
                let mut direct_sum = Float::with_val(hp, 0);
                for (i, s) in fp.occupancy.iter().enumerate() {
                    let i = i as u32 + 1;
                    let e = if d == 1 {
                        Integer::from(i)
                    } else {
                        (Integer::from(d).pow(i) - 1u32) / (d - 1)
                    };
                    let want = Float::with_val(hp, (&l).pow(&e));
                    assert!(s.contains(&want), "lambda {lambda} d {d} level {i}");
                    assert!(
                        s.rel_width() < 2f64.powi(-180),
                        "lambda {lambda} d {d} level {i}"
                    );
                    direct_sum += &want;
                }
                if d == 1 {
                    let one_m = Float::with_val(hp, 1u32 - &l);
                    assert!(fp.mean_tasks.contains(&Float::with_val(hp, &l / &one_m)));
                    assert!(fp
                        .mean_sojourn
                        .contains(&Float::with_val(hp, one_m.recip_ref())));
                }
                if d == 2 {
                    let mut s = Float::with_val(hp, 0);
                    for i in 1..=30u32 {
                        let e = Integer::from(2).pow(i) - 1u32;
                        s += Float::with_val(hp, (&l).pow(&e));
                    }
                    assert!(fp.mean_tasks.contains(&s), "lambda {lambda}");
                }
                assert!(
                    fp.mean_tasks.rel_width() < 2f64.powi(-180),
                    "lambda {lambda} d {d}"
                );
                assert!(fp.mean_tasks.contains(&direct_sum), "lambda {lambda} d {d}");
            }
        }
        assert!(queues_power_of_d_enclosed("1", 2, bits).is_err());
        assert!(queues_power_of_d_enclosed("0.5", 0, bits).is_err());
    }
}

#[cfg(test)]
mod capacity_tests {
    use super::*;
    use crate::lb::fixed_point::by_root;
    use crate::lb::model::{Model, ModelKind};
    use rug::ops::Pow;
    use rug::Float;

    const HP: u32 = 2000;

    fn lam(s: &str) -> Float {
        crate::num::parse_decimal(s, HP).unwrap()
    }

    /// Pools with capacity B = 1: λ (1 − q^d) = q (the summed equation at K = 1), whose
    /// roots are closed forms: q = λ/(1 + λ) for d = 1 (the Erlang loss system with one
    /// server: blocking λ/(1 + λ)) and q = (√(1 + 4λ²) − 1)/(2λ) for d = 2 (the quadratic
    /// λ q² + q − λ = 0), computed in MPFR at 2000 bits (not by the recursion). The
    /// enclosure contains them and its blocking contains q^d; pools never queue, so the
    /// mean sojourn (Little's law) contains 1.
    #[test]
    fn pools_of_one_slot_contain_the_closed_forms() {
        let bits = 200;
        for l in ["0.3", "1", "2.5", "10"] {
            let m = Model::new(ModelKind::Pools, l, Some(1)).unwrap();
            let x = lam(l);
            let one = Float::with_val(HP, 1);
            let q1 = Float::with_val(HP, &x / Float::with_val(HP, &x + 1u32));
            let disc = Float::with_val(HP, Float::with_val(HP, &x * &x) * 4u32) + 1u32;
            let q2 = Float::with_val(HP, disc.sqrt() - 1u32) / Float::with_val(HP, &x * 2u32);
            for (d, want) in [(1u32, q1), (2, q2)] {
                let e = power_of_d_capacity_enclosed(&m, d, bits).unwrap();
                assert_eq!(e.occupancy.len(), 1);
                assert!(e.occupancy[0].contains(&want), "lambda {l} d {d}");
                assert!(
                    e.occupancy[0].rel_width() < 2f64.powi(-150),
                    "lambda {l} d {d}"
                );
                let b = e.blocking.as_ref().unwrap();
                assert!(
                    b.contains(&Float::with_val(HP, (&want).pow(d))),
                    "lambda {l} d {d}"
                );
                assert!(e.mean_sojourn.contains(&one), "lambda {l} d {d}");
            }
        }
    }

    /// Queues with a buffer b and d = 1 are M/M/1/b queues: q_i = P(N ≥ i) =
    /// (λ^i − λ^{b+1})/(1 − λ^{b+1}) and the blocking P(N = b) = q_b (the M/M/1/K
    /// stationary law, a closed form; λ ≠ 1), at 2000 bits. The enclosure contains each.
    #[test]
    fn queues_with_a_buffer_and_d_one_are_mm1b() {
        let bits = 160;
        for l in ["0.5", "0.9", "1.5"] {
            for b in [1u32, 3, 8] {
                let m = Model::new(ModelKind::Queues, l, Some(b)).unwrap();
                let x = lam(l);
                let top = Float::with_val(HP, (&x).pow(b + 1));
                let den = Float::with_val(HP, 1u32 - &top);
                let e = power_of_d_capacity_enclosed(&m, 1, bits).unwrap();
                assert_eq!(e.occupancy.len(), b as usize);
                for (i, q) in e.occupancy.iter().enumerate() {
                    let xi = Float::with_val(HP, (&x).pow(i as u32 + 1));
                    let want = Float::with_val(HP, xi - &top) / &den;
                    assert!(q.contains(&want), "lambda {l} b {b} level {}", i + 1);
                    assert!(q.rel_width() < 2f64.powi(-120), "lambda {l} b {b}");
                }
                let xb = Float::with_val(HP, (&x).pow(b));
                let pb = Float::with_val(HP, xb - &top) / &den;
                assert!(e.blocking.unwrap().contains(&pb), "lambda {l} b {b}");
            }
        }
    }

    /// The enclosure contains the certified fixed point (the MPFR root at 3× the
    /// precision) for d = 2, 3 and both models, and narrows as the precision grows.
    #[test]
    fn contains_the_mpfr_root_and_narrows() {
        for (kind, l, b) in [
            (ModelKind::Pools, "2.5", 3u32),
            (ModelKind::Pools, "0.8", 5),
            (ModelKind::Queues, "0.9", 4),
            (ModelKind::Queues, "1.3", 6),
        ] {
            let m = Model::new(kind, l, Some(b)).unwrap();
            for d in [2u32, 3] {
                let f = by_root(&m, d, 600).unwrap();
                let e1 = power_of_d_capacity_enclosed(&m, d, 100).unwrap();
                let e2 = power_of_d_capacity_enclosed(&m, d, 200).unwrap();
                for (i, want) in f.occupancy.iter().enumerate() {
                    for e in [&e1, &e2] {
                        assert!(
                            e.occupancy[i].contains(want),
                            "{kind:?} {l} d {d} q{}",
                            i + 1
                        );
                    }
                    assert!(e2.occupancy[i].rel_width() < e1.occupancy[i].rel_width());
                }
                assert!(e2.mean_tasks.contains(&f.mean_tasks));
                assert!(e2.blocking.as_ref().unwrap().contains(&f.blocking));
                assert!(e2.mean_sojourn.contains(&f.mean_sojourn));
            }
        }
        let inf = Model::new(ModelKind::Pools, "2", None).unwrap();
        assert!(power_of_d_capacity_enclosed(&inf, 2, 100).is_err());
    }

    /// JSQ's fixed point with a buffer (d = inf), against the papers' closed forms by hand
    /// (`lb::fixed_point`'s module docs: queues (λ, 0, …) below λ = 1 and every level up to
    /// b full above it, a share 1 − 1/λ discarded; pools min{1, max{0, λ − i + 1}} up to B,
    /// a share 1 − B/λ discarded above B): queues at λ = 0.9, b = 5: mean 0.9, sojourn 1,
    /// nothing blocked; queues at λ = 1.5, b = 3: mean 3, blocking 1/3, sojourn
    /// 3/(1.5 · 2/3) = 3; pools at λ = 2.5, B = 5: (1, 1, 0.5), sojourn 1; at λ = 7.5, B = 5:
    /// five full levels, blocking 1/3, sojourn 1. Each enclosure contains the value and is
    /// at most 2^−190 wide relative at 200 bits. λ = 1 for queues (no unique fixed point)
    /// is an input error; pools at a λ enclosed across B hold both sides' blocking.
    #[test]
    fn jsq_with_a_buffer_contains_the_closed_forms() {
        let bits = 200;
        let q = |x: &str| crate::num::parse_decimal(x, 600).unwrap();
        let third = Float::with_val(600, 1) / 3u32;
        for (kind, l, b, levels, mean, blocking, sojourn) in [
            (
                ModelKind::Queues,
                "0.9",
                5u32,
                vec!["0.9"],
                "0.9",
                q("0"),
                "1",
            ),
            (
                ModelKind::Queues,
                "1.5",
                3,
                vec!["1"; 3],
                "3",
                third.clone(),
                "3",
            ),
            (
                ModelKind::Pools,
                "2.5",
                5,
                vec!["1", "1", "0.5"],
                "2.5",
                q("0"),
                "1",
            ),
            (
                ModelKind::Pools,
                "7.5",
                5,
                vec!["1"; 5],
                "5",
                third.clone(),
                "1",
            ),
        ] {
            let m = Model::new(kind, l, Some(b)).unwrap();
            let e = fixed_point_enclosed(&m, crate::lb::fluid::Limit::Jsq, bits).unwrap();
            let what = format!("{kind:?} lambda {l} buffer {b}");
            assert_eq!(e.occupancy.len(), levels.len(), "{what}");
            for (o, want) in e.occupancy.iter().zip(&levels) {
                assert!(o.contains(&q(want)), "{what}: level {o:?}");
            }
            let blocked = e.blocking.as_ref().expect("a buffer blocks");
            for (v, want) in [
                (&e.mean_tasks, q(mean)),
                (blocked, blocking.clone()),
                (&e.mean_sojourn, q(sojourn)),
            ] {
                assert!(v.contains(&want), "{what}: {v:?} against {want}");
                let w = Float::with_val(64, v.hi() - v.lo());
                let scale = Float::with_val(64, want.abs_ref()).max(&Float::with_val(64, 1));
                assert!(w / scale < 2f64.powi(-190), "{what}: {v:?}");
            }
        }
        let one = Model::new(ModelKind::Queues, "1", Some(3)).unwrap();
        assert!(matches!(
            fixed_point_enclosed(&one, crate::lb::fluid::Limit::Jsq, bits),
            Err(LbError::BadInput(_))
        ));
        let across = Interval::new(q("4.9"), q("5.1"));
        let b = jsq_blocking_enclosed(ModelKind::Pools, &across, Some(5)).unwrap();
        assert!(b.contains(&q("0")) && b.contains(&Float::with_val(600, 1 - q("5") / q("5.1"))));
    }
}
