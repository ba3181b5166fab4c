//! Redundancy-d: k servers of rate μ, Poisson arrivals at total rate λ, every job copied to
//! d servers chosen uniformly at random (each of the C(k, d) sets with rate λ/C(k, d)),
//! FCFS, exponential i.i.d. copies (Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky &
//! Zbarsky, "Redundancy-d: the power of d choices for redundancy", Operations Research 65,
//! 2017). A second exact model, computed by another route than [`super::product_form`].
//!
//! **Aggregation by union size.** In the ordered product form (Gardner et al. 2016) a job
//! whose set brings the union of the sets ahead of it from size j to size i contributes
//! (λ/C(k,d))/(iμ). Summed over the d-sets, a job arriving behind a union of size j
//! contributes λ q(j → i)/(iμ), with the hypergeometric
//! q(j → i) = C(j, d − (i − j)) C(k − j, i − j) / C(k, d), the chance that a uniform
//! d-set adds exactly i − j servers to a fixed j-set. The weight depends only on the sizes,
//! so the normaliser is a sum over size paths: with β_0 = 1 and, for i = d, …, k,
//!
//! β_i = Σ_{j<i} β_j λ q(j → i) / (iμ − λ q(i → i)),  q(i → i) = C(i, d)/C(k, d),
//!
//! (the stays at size i form the geometric series 1/(1 − λ q(i→i)/(iμ))), G = Σ_i β_i,
//! E[N] = λ G′(λ)/G and E[T] = E[N]/λ. Stable iff λ q(i → i) < iμ for every i ≥ d; the
//! binding size is i = k (λ < kμ) since q(i→i)/i increases in i.
//!
//! Limits, tested: d = 1 is k independent M/M/1 queues, E[T] = 1/(μ − λ/k); d = k is one
//! M/M/1 at rate kμ, E[T] = 1/(kμ − λ).

use super::RedundancyError;
use crate::num::message_number;
use rug::{Float, Integer};

/// Most servers of the closed form (binomials of k ≤ 1000 are exact integers).
pub const MAX_K: u32 = 1000;

/// E[N] and E[T] of redundancy-d at one precision.
#[derive(Debug, Clone, PartialEq)]
pub struct RedundancyD {
    /// E[N].
    pub number: Float,
    /// E[T] = E[N]/λ.
    pub response: Float,
    /// P(empty) = 1/G.
    pub p_empty: Float,
}

fn binom(n: u32, r: i64) -> Integer {
    if r < 0 || r > i64::from(n) {
        Integer::ZERO
    } else {
        Integer::from(Integer::binomial_u(n, r as u32))
    }
}

/// Redundancy-d with `k` servers of rate `mu`, total arrival rate `lambda`, `d` copies,
/// at `bits`.
///
/// ```
/// use rug::Float;
/// use taskassign::redundancy::redundancy_d;
/// // d = k: one M/M/1 at rate kμ = 4: E[T] = 1/(4 − 2) = 0.5.
/// let r = redundancy_d(4, 4, &Float::with_val(64, 2), &Float::with_val(64, 1), 64).unwrap();
/// assert_eq!(r.response, 0.5);
/// ```
pub fn redundancy_d(
    k: u32,
    d: u32,
    lambda: &Float,
    mu: &Float,
    bits: u32,
) -> Result<RedundancyD, RedundancyError> {
    if !(1..=MAX_K).contains(&k) || !(1..=k).contains(&d) {
        return Err(RedundancyError::BadSystem(format!(
            "redundancy-d needs 1 <= d <= k <= {MAX_K}, got k = {k}, d = {d}"
        )));
    }
    if !(*lambda > 0 && *mu > 0) {
        return Err(RedundancyError::BadSystem(
            "redundancy-d needs positive rates".into(),
        ));
    }
    let total = Float::with_val(bits, binom(k, i64::from(d)));
    let q = |j: u32, i: u32| -> Float {
        let add = i64::from(i) - i64::from(j);
        let c = binom(j, i64::from(d) - add) * binom(k - j, add);
        Float::with_val(bits, c) / &total
    };
    let ku = k as usize;
    // β_i and β'_i = dβ_i/dλ, indexed by size 0..=k (sizes 1..d−1 unreachable: 0).
    let mut beta = vec![Float::with_val(bits, 0); ku + 1];
    let mut dbeta = vec![Float::with_val(bits, 0); ku + 1];
    beta[0] = Float::with_val(bits, 1);
    for i in d..=k {
        let stay = q(i, i);
        let den = Float::with_val(bits, mu * i) - Float::with_val(bits, lambda * &stay);
        if !(den > 0) {
            return Err(RedundancyError::Unstable {
                classes: format!("all sets inside {i} servers"),
                servers: format!("{i} of {k}"),
                load: message_number(&Float::with_val(bits, lambda * &stay)),
                capacity: message_number(&Float::with_val(bits, mu * i)),
            });
        }
        // N = Σ_j β_j λ q(j→i); N' = Σ_j (β'_j λ + β_j) q(j→i); D' = −q(i→i).
        let mut n = Float::with_val(bits, 0);
        let mut dn = Float::with_val(bits, 0);
        for j in (0..i).filter(|&j| j == 0 || j >= d) {
            if i - j > d {
                continue;
            }
            let qji = q(j, i);
            if qji.is_zero() {
                continue;
            }
            n += Float::with_val(bits, &beta[j as usize] * lambda) * &qji;
            let t = Float::with_val(bits, &dbeta[j as usize] * lambda) + &beta[j as usize];
            dn += t * &qji;
        }
        let b = Float::with_val(bits, &n / &den);
        // β' = (N' − β D')/D = (N' + β q(i→i))/D.
        let db = (dn + Float::with_val(bits, &b * &stay)) / &den;
        beta[i as usize] = b;
        dbeta[i as usize] = db;
    }
    let mut g = Float::with_val(bits, 0);
    let mut dg = Float::with_val(bits, 0);
    for i in 0..=ku {
        g += &beta[i];
        dg += &dbeta[i];
    }
    let number = Float::with_val(bits, lambda * &dg) / &g;
    let response = Float::with_val(bits, &number / lambda);
    Ok(RedundancyD {
        number,
        response,
        p_empty: Float::with_val(bits, g.recip_ref()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d_one_is_k_independent_mm1_queues() {
        // d = 1: each server an M/M/1 at λ/k: E[T] = 1/(μ − λ/k) = 1/(1 − 2.4/4) = 2.5.
        let b = 200;
        let l = crate::num::parse_decimal("2.4", b).unwrap();
        let r = redundancy_d(4, 1, &l, &Float::with_val(b, 1), b).unwrap();
        let e = Float::with_val(b, 5) / 2u32;
        assert!(
            Float::with_val(b, &r.response - &e).abs() < 1e-50,
            "{}",
            message_number(&r.response)
        );
    }

    #[test]
    fn overload_is_an_error() {
        let b = 64;
        assert!(matches!(
            redundancy_d(3, 2, &Float::with_val(b, 3), &Float::with_val(b, 1), b),
            Err(RedundancyError::Unstable { .. })
        ));
    }
}
