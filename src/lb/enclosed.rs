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

use super::model::LbError;
use crate::num::interval::Interval;

/// The proven fixed point.
#[derive(Debug, Clone)]
pub struct EnclosedFixedPoint {
    /// s_1, s_2, …, s_K (each an enclosure).
    pub occupancy: Vec<Interval>,
    /// Σ_{i ≥ 1} s_i, the tail beyond K bounded.
    pub mean_tasks: Interval,
    /// Mean sojourn time (service rate 1): mean tasks / λ.
    pub mean_sojourn: Interval,
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
    Ok(EnclosedFixedPoint {
        occupancy,
        mean_tasks,
        mean_sojourn,
    })
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
