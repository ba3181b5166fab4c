//! The Kolmogorov–Smirnov tier: each f64 sampler against its distribution's own MPFR CDF
//! (the continuous families), and the discrete samplers against their atoms.
//!
//! **Critical value.** D_n > 1.63/√n rejects at the 1 % level (Smirnov's asymptotic
//! distribution, exact to about 1 % of the value at n = 20 000; Stephens, JASA 69, 1974,
//! Table 1A). So a correct sampler fails one test with probability about 0.01 over a
//! change of seed, and some one of the 18 continuous laws below with probability about
//! 1 − 0.99^18 ≈ 17 %. The seeds are fixed, so the tier is deterministic and passes as
//! written: a failure after a change to a sampler is a regression to look at, and one that
//! persists at another seed (`KS_SEED`) is a bug. What it detects: a sampler whose CDF is
//! off by clearly more than 1.63/√20000 ≈ 0.0115 somewhere, e.g. an exponential with its
//! rate off by 4 % (sup |F − G| ≈ 0.04/e ≈ 0.015).

mod common;
use common::{build, empirical_file, EMPIRICAL_SIZES};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::Float;
use taskassign::dist::JobSize;
use taskassign::num::parse_decimal;

/// Kolmogorov–Smirnov critical value at the 1 % level: D_n > 1.63/√n rejects (see the
/// module docs for what false-positive rate it allows).
const KS_C_1PCT: f64 = 1.63;
/// Samples per Kolmogorov–Smirnov test.
const KS_N: usize = 20_000;
/// Seed of the samplers' generator.
const KS_SEED: u64 = 20_250_101;

/// Kolmogorov–Smirnov statistic of sorted samples against a continuous CDF.
fn ks_statistic(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

fn draw(d: &dyn JobSize, seed: u64) -> Vec<f64> {
    let s = d.sampler().unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut xs: Vec<f64> = (0..KS_N).map(|_| s.sample(&mut rng)).collect();
    xs.sort_by(f64::total_cmp);
    xs
}

#[test]
fn samplers_pass_kolmogorov_smirnov() {
    let bits = 64;
    let crit = KS_C_1PCT / (KS_N as f64).sqrt();
    let specs = [
        "bp:k=1,p=1e6,alpha=0.5",
        "bp:k=1,p=1e6,alpha=1",
        "bp:k=1,p=10,alpha=2.5",
        "pareto:k=1,alpha=2.5",
        "pareto:k=1,alpha=3",
        "exp:rate=2",
        "uniform:a=0.5,b=3",
        "hyperexp:p=0.1,rate1=0.1,rate2=10",
        "weibull:shape=0.5,scale=1.5",
        "weibull:shape=1,scale=1.5",
        "weibull:shape=2,scale=1.5",
        "lognormal:mu=0,sigma=0.5",
        "lognormal:mu=0.5,sigma=2",
        "erlang:k=4,rate=4",
        "erlang:k=1,rate=2",
        "hyperexp:mean=1,scv=20",
        "lognormal:mean=1,scv=4",
        "weibull:shape=0.5,mean=1",
    ];
    for (i, spec) in specs.iter().enumerate() {
        let d = build(spec, bits);
        let xs = draw(d.as_ref(), KS_SEED + i as u64);
        // Source: the family's own MPFR CDF.
        let dn = ks_statistic(&xs, |x| d.cdf(&Float::with_val(bits, x)).to_f64());
        assert!(dn < crit, "{spec}: D = {dn} ≥ {crit}");
    }
}

#[test]
fn discrete_samplers_match_their_atoms() {
    let bits = 64;
    let crit = KS_C_1PCT / (KS_N as f64).sqrt();
    // det: every sample is the atom.
    let d = build("det:x=1.7", bits);
    assert!(draw(d.as_ref(), KS_SEED).iter().all(|&x| x == 1.7));
    // empirical: the sample CDF at each atom is within the KS bound of k/n (the KS
    // critical value is conservative for a discrete law).
    let path = empirical_file("sampler");
    let d = build(&format!("empirical:file={path}"), bits);
    let xs = draw(d.as_ref(), KS_SEED);
    for s in EMPIRICAL_SIZES {
        let x: f64 = s.parse().unwrap();
        let sample_cdf = xs.partition_point(|&v| v <= x) as f64 / KS_N as f64;
        let cdf = d.cdf(&parse_decimal(s, bits).unwrap()).to_f64();
        assert!(
            (sample_cdf - cdf).abs() < crit,
            "empirical at {s}: {sample_cdf} vs {cdf}"
        );
    }
    std::fs::remove_file(path).unwrap();
}
