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
/// use taskassign::sim::rng::splitmix64;
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
}
