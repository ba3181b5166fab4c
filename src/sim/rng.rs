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

/// A uniform double in [0, 1) from the top 53 bits of one 64-bit output.
#[inline]
pub fn unit_f64(rng: &mut Xoshiro256PlusPlus) -> f64 {
    const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
    (rng.next_u64() >> 11) as f64 * SCALE
}

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

/// Layers of the exponential ziggurat.
const ZIG_LAYERS: usize = 256;
/// Right edge R of the base layer of the 256-layer exponential ziggurat (Marsaglia & Tsang
/// 2000, "The ziggurat method for generating random variables", §4).
const ZIG_R: f64 = 7.697_117_470_131_05;
/// Area V of every layer (same source).
const ZIG_V: f64 = 3.949_659_822_581_557e-3;

/// The ziggurat's layer edges x_0 > x_1 = R > … > x_256 = 0 (x_0 = V e^R is the base
/// layer's virtual width) and f(x_i) = e^(−x_i); layer i spans [x_{i+1}, x_i].
struct Ziggurat {
    x: [f64; ZIG_LAYERS + 1],
    f: [f64; ZIG_LAYERS + 1],
}

fn ziggurat() -> &'static Ziggurat {
    static Z: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();
    Z.get_or_init(|| {
        let mut x = [0.0; ZIG_LAYERS + 1];
        x[0] = ZIG_V * ZIG_R.exp();
        x[1] = ZIG_R;
        // Each layer has area V: x_i (f(x_{i+1}) − f(x_i)) = V.
        for i in 1..ZIG_LAYERS - 1 {
            x[i + 1] = -(ZIG_V / x[i] + (-x[i]).exp()).ln();
        }
        x[ZIG_LAYERS] = 0.0;
        let mut f = [0.0; ZIG_LAYERS + 1];
        for (fi, xi) in f.iter_mut().zip(&x) {
            *fi = (-xi).exp();
        }
        Ziggurat { x, f }
    })
}

/// An Exp(1) variate by the ziggurat method (Marsaglia & Tsang 2000): one 64-bit draw and
/// one multiplication on the fast path (about 98.9 % of draws); the wedges use one more
/// uniform and an `exp`, the tail R + Exp(1) by memorylessness. About three times faster
/// than inversion (−ln U), which matters because every simulated job needs one gap.
#[inline]
pub fn exp1(rng: &mut Xoshiro256PlusPlus) -> f64 {
    const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
    let z = ziggurat();
    loop {
        let bits = rng.next_u64();
        let i = (bits & 0xff) as usize;
        let u = (bits >> 11) as f64 * SCALE;
        let x = u * z.x[i];
        if x < z.x[i + 1] {
            return x;
        }
        if i == 0 {
            return ZIG_R - (1.0 - unit_f64(rng)).ln();
        }
        let y = z.f[i] + (z.f[i + 1] - z.f[i]) * unit_f64(rng);
        if y < (-x).exp() {
            return x;
        }
    }
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
    fn ziggurat_layers_close() {
        // The recursion must land on x_255 > 0 with the top layer's area about V.
        let z = ziggurat();
        assert!(z.x[ZIG_LAYERS - 1] > 0.0 && z.x[ZIG_LAYERS - 1] < 0.1);
        let top = z.x[ZIG_LAYERS - 1] * (1.0 - z.f[ZIG_LAYERS - 1]);
        assert!((top - ZIG_V).abs() < 1e-6 * ZIG_V, "{top}");
    }

    #[test]
    fn exp1_passes_kolmogorov_smirnov() {
        // KS against 1 − e^(−x) with n = 100 000: the 1 % critical value of √n D is 1.628
        // (Kolmogorov's limit law).
        const N: usize = 100_000;
        const KS_CRIT_1PCT: f64 = 1.628;
        let mut r = stream_rng(11, 0, 0, 0);
        let mut v: Vec<f64> = (0..N).map(|_| exp1(&mut r)).collect();
        v.sort_by(f64::total_cmp);
        let d = v
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let c = 1.0 - (-x).exp();
                (c - i as f64 / N as f64).max((i + 1) as f64 / N as f64 - c)
            })
            .fold(0.0, f64::max);
        assert!((N as f64).sqrt() * d < KS_CRIT_1PCT, "D = {d}");
        let mean = v.iter().sum::<f64>() / N as f64;
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        // The tail beyond R (probability e^(−R) ≈ 4.5e-4) is sampled too.
        assert!(v.iter().filter(|x| **x > ZIG_R).count() > 10);
    }
}
