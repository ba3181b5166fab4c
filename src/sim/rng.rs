//! Reproducible random streams.
//!
//! Every replication of every sweep point owns its streams: the seed of a stream is a
//! SplitMix64 mix of (base seed, point, replication, stream), and the generator is
//! Xoshiro256++ (Blackman & Vigna 2018) seeded from it through its portable
//! `seed_from_u64` (itself SplitMix64). A replication's numbers therefore depend only on
//! that quadruple, never on the thread that runs it or on how many threads there are.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The stream of inter-arrival times.
pub const STREAM_ARRIVALS: u64 = 0;
/// The stream of job sizes.
pub const STREAM_SIZES: u64 = 1;
/// The stream of routing decisions (Random, JSQ ties).
pub const STREAM_ROUTING: u64 = 2;

/// The generator's name, as printed in outputs.
pub const GENERATOR: &str =
    "xoshiro256++ per (seed, point, replication, stream), seeded by a SplitMix64 mix";

/// One SplitMix64 output step (Steele, Lea & Flood 2014): the finaliser applied to
/// `z + 0x9e3779b97f4a7c15`.
///
/// ```
/// use taskassign::sim::splitmix64;
/// // First output of SplitMix64 seeded with 0 (reference implementation by Vigna).
/// assert_eq!(splitmix64(0), 0xe220a8397b1dcdaf);
/// ```
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 64-bit seed of one stream: SplitMix64 applied in turn to the base seed and to each
/// of point, replication and stream xor-ed in.
pub fn stream_seed(seed: u64, point: u64, replication: u64, stream: u64) -> u64 {
    let mut z = splitmix64(seed);
    z = splitmix64(z ^ point);
    z = splitmix64(z ^ replication);
    splitmix64(z ^ stream)
}

/// The generator of one stream.
pub fn stream_rng(seed: u64, point: u64, replication: u64, stream: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, point, replication, stream))
}

pub use crate::dist::ziggurat::{exp1, unit_f64};

/// A uniform index in 0..n (n ≥ 1) without bias: Lemire's multiply-and-reject
/// (Lemire 2019, "Fast random integer generation in an interval", Algorithm 5), written
/// here so that the sequence does not depend on the `rand` version.
#[inline]
pub fn index(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    let n = n as u64;
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    let mut low = m as u64;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
            low = m as u64;
        }
    }
    (m >> 64) as usize
}

/// Walker's alias table (Vose's construction, "A linear algorithm for generating random
/// numbers with a given distribution", IEEE TSE 1991): an index drawn with probabilities
/// proportional to given weights from ONE 64-bit draw, in constant time. The draw times n
/// splits into the column (the high word) and a uniform fraction (the low word), which is
/// compared with the column's threshold in integers. Hand-written rather than
/// `rand_distr::WeightedAliasIndex` because that one spends two draws per index, and the
/// redundancy simulator's arrival stream spends one (the class of a job is a function of
/// one draw, so policies compared on common random numbers see the same classes).
#[derive(Debug, Clone)]
pub struct Alias {
    /// Per column: keep the column when the fraction (as a u64) is below this.
    keep: Vec<u64>,
    /// Per column: the other index.
    other: Vec<u32>,
}

impl Alias {
    /// The table of non-negative `weights` (not all zero, at most 2^32 of them), or `None`.
    pub fn new(weights: &[f64]) -> Option<Self> {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        if n == 0
            || u32::try_from(n).is_err()
            || !(total > 0.0 && total.is_finite())
            || weights.iter().any(|w| !(*w >= 0.0))
        {
            return None;
        }
        let mut p: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut keep = vec![u64::MAX; n];
        let mut other: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| p[i] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            keep[s] = to_u64_fraction(p[s]);
            other[s] = l as u32;
            p[l] -= 1.0 - p[s];
            if p[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left has p = 1 up to rounding: the column keeps itself (keep = MAX,
        // other = itself, so the fraction does not matter).
        Some(Alias { keep, other })
    }

    /// An index with the table's probabilities.
    #[inline]
    pub fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> usize {
        let m = u128::from(rng.next_u64()) * self.keep.len() as u128;
        let col = (m >> 64) as usize;
        // Both candidates loaded first, so the choice is a conditional move: the branch it
        // replaces goes either way at random and mispredicts.
        let other = self.other[col] as usize;
        if (m as u64) < self.keep[col] {
            col
        } else {
            other
        }
    }

    /// The probability of each index that the table implies (for the tests).
    #[cfg(test)]
    pub(crate) fn probabilities(&self) -> Vec<f64> {
        let n = self.keep.len() as f64;
        let mut p = vec![0.0; self.keep.len()];
        for (i, (&k, &o)) in self.keep.iter().zip(&self.other).enumerate() {
            let kept = if o as usize == i {
                1.0
            } else {
                k as f64 / 2f64.powi(64)
            };
            p[i] += kept / n;
            p[o as usize] += (1.0 - kept) / n;
        }
        p
    }
}

/// x ∈ [0, 1) as the threshold x·2^64 (rounded down).
fn to_u64_fraction(x: f64) -> u64 {
    (x.clamp(0.0, 1.0) * 2f64.powi(64)).min(u64::MAX as f64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_by_every_coordinate() {
        let base = stream_seed(1, 2, 3, 4);
        assert_ne!(base, stream_seed(2, 2, 3, 4));
        assert_ne!(base, stream_seed(1, 3, 3, 4));
        assert_ne!(base, stream_seed(1, 2, 4, 4));
        assert_ne!(base, stream_seed(1, 2, 3, 5));
        // Swapping coordinates gives another stream.
        assert_ne!(stream_seed(1, 2, 3, 4), stream_seed(1, 3, 2, 4));
    }

    #[test]
    fn index_is_in_range_and_covers_it() {
        let mut r = stream_rng(7, 0, 0, 0);
        let mut seen = [0usize; 3];
        for _ in 0..3000 {
            seen[index(&mut r, 3)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
        assert_eq!(index(&mut r, 1), 0);
    }

    #[test]
    fn unit_is_in_half_open_interval() {
        let mut r = stream_rng(9, 0, 0, 0);
        for _ in 0..1000 {
            let u = unit_f64(&mut r);
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn alias_table_implies_the_weights() {
        // Expected: the normalised weights themselves (the table must reproduce them up to
        // the 2^-64 granularity of a threshold and f64 rounding; tolerance 1e-14).
        for w in [
            vec![0.1, 0.1, 0.1, 0.1, 0.4, 0.4, 1.2],
            vec![1.0],
            vec![3.0, 0.0, 1.0],
            vec![1e-9, 1.0, 2.0, 5.0, 0.25],
            vec![0.25; 8],
        ] {
            let a = Alias::new(&w).expect("valid weights");
            let total: f64 = w.iter().sum();
            for (p, wi) in a.probabilities().iter().zip(&w) {
                assert!(
                    (p - wi / total).abs() < 1e-14,
                    "{w:?}: {p} vs {}",
                    wi / total
                );
            }
        }
        assert!(Alias::new(&[]).is_none());
        assert!(Alias::new(&[0.0, 0.0]).is_none());
        assert!(Alias::new(&[1.0, -1.0]).is_none());
        assert!(Alias::new(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn alias_draws_have_the_weights_frequencies() {
        // Expected: binomial frequencies n·p_i, within 5 standard deviations.
        let w = [0.1, 0.1, 0.1, 0.1, 0.4, 0.4, 1.2];
        let total: f64 = w.iter().sum();
        let a = Alias::new(&w).expect("valid weights");
        let mut r = stream_rng(11, 0, 0, 0);
        let n = 1_000_000usize;
        let mut seen = [0usize; 7];
        for _ in 0..n {
            seen[a.sample(&mut r)] += 1;
        }
        for (c, wi) in seen.iter().zip(&w) {
            let p = wi / total;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((*c as f64 - n as f64 * p).abs() < 5.0 * sd, "{seen:?}");
        }
    }
}
