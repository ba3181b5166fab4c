//! Statistics of independent replications: Student-t confidence intervals for ratio
//! estimators and the heavy-tail warning. (Judging an estimate against a bound — HOLDS,
//! FAILS, INCONCLUSIVE — is the claims engine's business, `crate::claims`.)
//!
//! Every simulated mean is a ratio Σ_r S_r / Σ_r n_r over the replications r (S_r the sum of
//! the quantity over the measured jobs of replication r, n_r their count). When every n_r
//! is the same this is the plain mean of the replication means; per-host values (a host
//! sees a random number of jobs) use the same estimator. Its 95 % half-width is
//! t_{0.975, R−1} · s_e / (n̄ √R), where s_e² is the sample variance of the residuals
//! S_r − m̂ n_r (the delta method for a ratio: Law & Kelton, *Simulation Modeling and
//! Analysis*, 3rd ed., §9.5; equal n_r reduce it to the textbook interval).

use std::f64::consts::PI;

/// One replication's contribution to one estimate: the sum of the quantity over what was
/// measured, the measure it is averaged over, and how many observations went into it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Σ of the quantity (over jobs) or its integral (over time).
    pub sum: f64,
    /// The denominator: the number of jobs as an f64, or the length of the time window.
    pub weight: f64,
    /// Jobs, visits or events behind the sample (reported in [`Estimate::count`]).
    pub count: u64,
}

impl Sample {
    /// A per-job mean: `sum` over `n` jobs (weight n).
    pub fn per_job(sum: f64, n: u64) -> Self {
        Sample {
            sum,
            weight: n as f64,
            count: n,
        }
    }

    /// A time average: the `integral` of the quantity over a window of length `duration`,
    /// with `events` events in the window.
    pub fn per_time(integral: f64, duration: f64, events: u64) -> Self {
        Sample {
            sum: integral,
            weight: duration,
            count: events,
        }
    }
}

/// Confidence level of every half-width.
pub const CONFIDENCE: f64 = 0.95;

/// Significance level of the Grubbs test that flags one dominating replication.
pub const GRUBBS_LEVEL: f64 = 0.001;

/// Share of a replication's Σ X² carried by its largest job above which the heavy-tail
/// warning is raised (see [`HeavyTail`]).
pub const DOMINANT_JOB_SHARE: f64 = 0.1;

/// Share of E\[X²\] carried by the sizes a replication sees less than once on average
/// (P(X > x) < 1/n) above which the heavy-tail warning is raised (see [`HeavyTail`]).
pub const UNSEEN_SECOND_MOMENT_SHARE: f64 = 0.5;

/// Share of E\[X⁴\] carried by the sizes a replication sees less than once on average
/// (P(X > x) < 1/n) above which the fourth-moment rule fires (see
/// [`HeavyTail::with_unseen_fourth_share`]); the job-counting runners then lengthen the
/// replications until it no longer does, where they may.
pub const UNSEEN_FOURTH_MOMENT_SHARE: f64 = 0.5;

/// Bisection steps of [`t_quantile`] (the bracket in θ = atan(t/√ν) is (0, π/2); 2^-80 of
/// it is far below f64 resolution).
const T_BISECTION_STEPS: usize = 80;

/// P(|T| ≤ t) for Student's t with ν ≥ 1 integer degrees of freedom, by the finite sums of
/// Abramowitz & Stegun 26.7.3 (ν odd) and 26.7.4 (ν even) in θ = atan(t/√ν).
///
/// ```
/// use taskassign::sim::t_abs_cdf;
/// // ν = 1 is the Cauchy law: P(|T| ≤ 1) = 1/2.
/// assert!((t_abs_cdf(1.0, 1) - 0.5).abs() < 1e-15);
/// // ν = 2: P(|T| ≤ t) = t / √(2 + t²).
/// assert!((t_abs_cdf(3.0, 2) - 3.0 / 11f64.sqrt()).abs() < 1e-15);
/// ```
pub fn t_abs_cdf(t: f64, nu: u64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let theta = (t / (nu as f64).sqrt()).atan();
    let (s, c) = theta.sin_cos();
    let c2 = c * c;
    if nu % 2 == 1 {
        // (2/π) [θ + sinθ (cosθ + (2/3) cos³θ + … + (2·4⋯(ν−3))/(1·3⋯(ν−2)) cos^(ν−2)θ)]
        let mut sum = 0.0;
        if nu > 1 {
            let mut term = c;
            sum = term;
            let mut k = 1u64;
            while 2 * k < nu - 1 {
                term *= c2 * (2 * k) as f64 / (2 * k + 1) as f64;
                sum += term;
                k += 1;
            }
        }
        (2.0 / PI) * (theta + s * sum)
    } else {
        // sinθ (1 + (1/2) cos²θ + (1·3)/(2·4) cos⁴θ + … + (1·3⋯(ν−3))/(2·4⋯(ν−2)) cos^(ν−2)θ)
        let mut term = 1.0;
        let mut sum = 1.0;
        let mut k = 1u64;
        while 2 * k < nu {
            term *= c2 * (2 * k - 1) as f64 / (2 * k) as f64;
            sum += term;
            k += 1;
        }
        s * sum
    }
}

/// The t with P(|T| ≤ t) = `level` for ν degrees of freedom (so `level` = 0.95 gives the
/// two-sided 95 % quantile t_{0.975, ν}), by bisection in θ on [`t_abs_cdf`].
///
/// ```
/// use taskassign::sim::t_quantile;
/// // Tabulated t_{0.975, ν} (Abramowitz & Stegun, Table 26.10).
/// assert!((t_quantile(0.95, 1) - 12.706_204_736).abs() < 1e-8);
/// assert!((t_quantile(0.95, 9) - 2.262_157_163).abs() < 1e-8);
/// ```
pub fn t_quantile(level: f64, nu: u64) -> f64 {
    let nu = nu.max(1);
    let (mut lo, mut hi) = (0.0f64, PI / 2.0);
    let sq = (nu as f64).sqrt();
    for _ in 0..T_BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        if t_abs_cdf(mid.tan() * sq, nu) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).tan() * sq
}

/// Critical value of the largest share of the squared deviations that one of n normal
/// observations may carry, max_r (x_r − x̄)² / Σ (x − x̄)², at level `alpha`: Grubbs'
/// (1950) test, G_crit² / (n − 1) = ((n − 1)/n) t² / (n − 2 + t²) with t the upper
/// α/(2n) quantile of Student's t with n − 2 degrees of freedom. `None` for n < 3.
pub fn grubbs_share_critical(n: usize, alpha: f64) -> Option<f64> {
    if n < 3 {
        return None;
    }
    let nf = n as f64;
    let t = t_quantile(1.0 - alpha / nf, (n - 2) as u64);
    let t2 = t * t;
    Some((nf - 1.0) / nf * t2 / (nf - 2.0 + t2))
}

/// A simulated mean with its 95 % confidence half-width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The point estimate (NaN when no job contributed).
    pub mean: f64,
    /// Half-width of the 95 % Student-t interval (+∞ when it cannot be computed).
    pub half_width: f64,
    /// Replications that contributed (n_r > 0).
    pub replications: usize,
    /// Jobs (or host visits) that contributed, over all replications.
    pub count: u64,
}

impl Estimate {
    /// No replication measured anything (`count` jobs, all in replications without a
    /// weight): the mean is undefined (NaN) and its half-width +∞.
    pub fn unmeasured(count: u64) -> Self {
        Estimate {
            mean: f64::NAN,
            half_width: f64::INFINITY,
            replications: 0,
            count,
        }
    }

    /// (mean − hw, mean + hw).
    pub fn interval(&self) -> (f64, f64) {
        (self.mean - self.half_width, self.mean + self.half_width)
    }

    /// (mean − target) / half-width: how many half-widths the estimate is from `target`.
    pub fn z(&self, target: f64) -> f64 {
        let d = self.mean - target;
        if d == 0.0 {
            0.0
        } else {
            d / self.half_width
        }
    }
}

/// The ratio estimator Σ S_r / Σ n_r with its delta-method half-width (module docs), over
/// the replications with n_r > 0.
///
/// ```
/// use taskassign::sim::ratio_estimate;
/// // Equal counts: the mean of the replication means 1, 2, 3 and the textbook interval
/// // t_{0.975,2} · s/√3 = 4.302653 · 1/√3.
/// let e = ratio_estimate(&[(10.0, 10), (20.0, 10), (30.0, 10)]);
/// assert!((e.mean - 2.0).abs() < 1e-15);
/// assert!((e.half_width - 4.302_652_73 / 3f64.sqrt()).abs() < 1e-8);
/// ```
pub fn ratio_estimate(sums: &[(f64, u64)]) -> Estimate {
    let samples: Vec<Sample> = sums.iter().map(|&(s, n)| Sample::per_job(s, n)).collect();
    ratio_estimate_weighted(&samples)
}

/// The ratio estimator Σ S_r / Σ w_r with its delta-method half-width (module docs) over the
/// replications with weight w_r > 0; a per-job sample has w_r = n_r (then it is
/// [`ratio_estimate`]), a time average w_r = the length of the observation window.
///
/// ```
/// use taskassign::sim::Sample;
/// use taskassign::sim::ratio_estimate_weighted;
/// // Integrals 2, 4, 6 over windows of length 2: the time averages 1, 2, 3, whose interval
/// // is the textbook one, t_{0.975,2} · 1/√3.
/// let e = ratio_estimate_weighted(&[
///     Sample::per_time(2.0, 2.0, 5),
///     Sample::per_time(4.0, 2.0, 5),
///     Sample::per_time(6.0, 2.0, 5),
/// ]);
/// assert!((e.mean - 2.0).abs() < 1e-15 && e.count == 15);
/// assert!((e.half_width - 4.302_652_73 / 3f64.sqrt()).abs() < 1e-8);
/// ```
pub fn ratio_estimate_weighted(samples: &[Sample]) -> Estimate {
    let used: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.weight > 0.0)
        .map(|s| (s.sum, s.weight))
        .collect();
    let r = used.len();
    let count: u64 = samples.iter().map(|s| s.count).sum();
    if r == 0 {
        return Estimate::unmeasured(count);
    }
    let total_s: f64 = used.iter().map(|(s, _)| s).sum();
    let total_n: f64 = used.iter().map(|(_, n)| n).sum();
    let mean = total_s / total_n;
    if r < 2 || !mean.is_finite() {
        return Estimate {
            mean,
            half_width: f64::INFINITY,
            replications: r,
            count,
        };
    }
    let rf = r as f64;
    let nbar = total_n / rf;
    let ss: f64 = used
        .iter()
        .map(|(s, n)| {
            let e = s - mean * n;
            e * e
        })
        .sum();
    let var = ss / (rf - 1.0);
    let half_width = t_quantile(CONFIDENCE, (r - 1) as u64) * var.sqrt() / (nbar * rf.sqrt());
    Estimate {
        mean,
        half_width,
        replications: r,
        count,
    }
}

/// The difference of two estimators paired by replication: d_r = S_r/w_r − S'_r/w'_r over
/// the replications where both weights are positive, its mean and the 95 % Student-t
/// half-width t_{0.975, R−1} · s_d / √R (the paired-t interval: Law & Kelton,
/// *Simulation Modeling and Analysis*, 3rd ed., §10.2.1). With common random numbers the
/// d_r vary much less than either side. `count` is the first side's.
///
/// ```
/// use taskassign::sim::Sample;
/// use taskassign::sim::paired_difference;
/// // Replication means 1, 2, 3 against 0.5, 1.5, 2.5: every difference is 0.5, so the
/// // interval has width 0 although each side spreads.
/// let a: Vec<Sample> = [1.0, 2.0, 3.0].iter().map(|m| Sample::per_job(10.0 * m, 10)).collect();
/// let b: Vec<Sample> = [0.5, 1.5, 2.5].iter().map(|m| Sample::per_job(10.0 * m, 10)).collect();
/// let d = paired_difference(&a, &b);
/// assert_eq!((d.mean, d.half_width, d.replications), (0.5, 0.0, 3));
/// ```
pub fn paired_difference(a: &[Sample], b: &[Sample]) -> Estimate {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.weight > 0.0 && y.weight > 0.0)
        .map(|(x, y)| x.sum / x.weight - y.sum / y.weight)
        .collect();
    let count = a.iter().map(|s| s.count).sum();
    let r = d.len();
    if r == 0 {
        return Estimate::unmeasured(count);
    }
    let rf = r as f64;
    let mean = d.iter().sum::<f64>() / rf;
    let half_width = if r < 2 || !mean.is_finite() {
        f64::INFINITY
    } else {
        let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (rf - 1.0);
        t_quantile(CONFIDENCE, (r - 1) as u64) * (var / rf).sqrt()
    };
    Estimate {
        mean,
        half_width,
        replications: r,
        count,
    }
}

/// Why the heavy-tail warning was raised (the two empirical rules of [`heavy_tail_check`]
/// and the a-priori rule of [`HeavyTail::with_unseen_share`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeavyTail {
    /// Grubbs: the largest share of the squared deviations of the replication means of
    /// waiting carried by one replication and its critical value, when the share exceeds it.
    pub dominant_replication: Option<(f64, f64)>,
    /// The largest share of a replication's Σ X² carried by one job, when it exceeds
    /// [`DOMINANT_JOB_SHARE`].
    pub dominant_job: Option<f64>,
    /// The share of E\[X²\] carried by sizes that a replication of n jobs sees less than
    /// once on average (P(X > x) < 1/n), when it exceeds [`UNSEEN_SECOND_MOMENT_SHARE`].
    pub unseen_second_moment: Option<f64>,
    /// The share of E\[X⁴\] carried by sizes that a replication of the measured jobs sees
    /// less than once on average, when it exceeds [`UNSEEN_FOURTH_MOMENT_SHARE`], and the
    /// measured jobs per replication at which it would not (`None`: at no length, E\[X⁴\]
    /// is infinite).
    pub unseen_fourth_moment: Option<(f64, Option<u64>)>,
}

impl HeavyTail {
    /// True when any rule fired.
    pub fn warned(&self) -> bool {
        self.dominant_replication.is_some()
            || self.dominant_job.is_some()
            || self.unseen_second_moment.is_some()
            || self.unseen_fourth_moment.is_some()
    }

    /// Adds the a-priori rule: `share` = E\[X²; X > x_n\] / E\[X²\] with P(X > x_n) = 1/n and
    /// n the measured jobs per replication (1 when E\[X²\] is infinite). Most of E\[X²\] — the
    /// moment that drives the Pollaczek–Khinchine waiting — then comes from sizes that a
    /// typical replication never meets, so every replication mean is biased low and their
    /// spread does not show it. The warning fires above [`UNSEEN_SECOND_MOMENT_SHARE`].
    pub fn with_unseen_share(mut self, share: f64) -> Self {
        if share > UNSEEN_SECOND_MOMENT_SHARE {
            self.unseen_second_moment = Some(share);
        }
        self
    }

    /// Adds the fourth-moment rule: `share` = E\[X⁴; X > x_n\] / E\[X⁴\] with P(X > x_n) =
    /// 1/n and n the measured jobs per replication (1 when E\[X⁴\] is infinite), `needed`
    /// the jobs per replication at which the share is at most 1/2. The variance of a
    /// replication's mean waiting is driven by E\[X⁴\]: in M/G/1 the waiting time's second
    /// moment needs E\[X³\] (Takács' recursion for the moments of the waiting time) and
    /// the sum of its autocovariances, the variance constant of the mean of n waiting
    /// times, is finite only when E\[X⁴\] is (Daley 1968, "The serial correlation
    /// coefficients of waiting times in a stationary single server queue", J. Austral. Math.
    /// Soc. 8). When most of E\[X⁴\] comes from sizes a replication practically never
    /// meets, the replication means are skewed (most low, a rare one huge), their sample
    /// variance understates the true one, and the Student-t interval undercovers. Fires
    /// above [`UNSEEN_FOURTH_MOMENT_SHARE`].
    pub fn with_unseen_fourth_share(mut self, share: f64, needed: Option<u64>) -> Self {
        if share > UNSEEN_FOURTH_MOMENT_SHARE {
            self.unseen_fourth_moment = Some((share, needed));
        }
        self
    }

    /// One sentence per rule that fired.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((share, crit)) = self.dominant_replication {
            out.push(format!(
                "heavy-tail warning: one replication carries {:.0}% of the spread of the replication means of waiting (Grubbs critical share at level 0.1%: {:.0}%): the half-widths are not reliable",
                100.0 * share,
                100.0 * crit
            ));
        }
        if let Some(share) = self.dominant_job {
            out.push(format!(
                "heavy-tail warning: a single job carries {:.1}% of the sum of squared sizes of its replication (rule: > {:.0}%): the mean waiting rests on a few huge jobs and converges slowly",
                100.0 * share,
                100.0 * DOMINANT_JOB_SHARE
            ));
        }
        if let Some(share) = self.unseen_second_moment {
            out.push(format!(
                "heavy-tail warning: {:.0}% of E[X^2] comes from sizes that a replication of this length sees less than once on average: the simulated means are biased low and the half-widths do not show it (use more jobs per replication)",
                100.0 * share
            ));
        }
        if let Some((share, needed)) = self.unseen_fourth_moment {
            let fix = match needed {
                Some(n) => {
                    format!("about {n} measured jobs per replication (--jobs {n}) would see them")
                }
                None => "E[X^4] is infinite, so no run length does".into(),
            };
            out.push(format!(
                "heavy-tail warning: {:.0}% of E[X^4] (which drives the variance of a simulated mean waiting) comes from sizes that a replication of this length sees less than once on average (rule: > {:.0}%): the replication means are skewed and the 95% interval undercovers; {fix}",
                100.0 * share,
                100.0 * UNSEEN_FOURTH_MOMENT_SHARE
            ));
        }
        out
    }
}

/// The empirical heavy-tail rules. The warning is raised when either
/// 1. **one replication dominates the spread**: with R ≥ 3 replications, the largest
///    share max_r (m_r − m̄)² / Σ (m − m̄)² of the replication means m_r of waiting
///    exceeds Grubbs' critical share at level [`GRUBBS_LEVEL`] — for normal replication
///    means this happens with probability 0.1 %; under heavy tails, one replication that
///    met a huge job does it routinely; or
/// 2. **one job dominates a replication**: in some replication, the largest job's X²
///    exceeds [`DOMINANT_JOB_SHARE`] of that replication's Σ X² (over measured jobs). The
///    Pollaczek–Khinchine mean waiting is driven by E\[X²\]; when a single job carries a
///    visible part of its sample estimate, the replication's mean waiting rests on a
///    handful of jobs. (For exponential sizes the share is about (ln n)²/(2n): 0.07 % at
///    n = 10⁵; for BP(1, 10⁶, 1.1) it is about 30 % at n = 10⁶.)
///
/// `means` are the replication means of waiting; `max_x2_share` the per-replication
/// shares of rule 2. A third, a-priori rule needs the distribution: see
/// [`HeavyTail::with_unseen_share`].
pub fn heavy_tail_check(means: &[f64], max_x2_share: &[f64]) -> HeavyTail {
    let mut out = HeavyTail::default();
    if let Some(crit) = grubbs_share_critical(means.len(), GRUBBS_LEVEL) {
        let m = means.iter().sum::<f64>() / means.len() as f64;
        let devs: Vec<f64> = means.iter().map(|x| (x - m) * (x - m)).collect();
        let total: f64 = devs.iter().sum();
        let max = devs.iter().copied().fold(0.0, f64::max);
        if total > 0.0 && max / total > crit {
            out.dominant_replication = Some((max / total, crit));
        }
    }
    let worst = max_x2_share.iter().copied().fold(0.0, f64::max);
    if worst > DOMINANT_JOB_SHARE {
        out.dominant_job = Some(worst);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Abramowitz & Stegun Table 26.10, two-sided 95 % (upper 0.025) points.
        let table = [
            (1u64, 12.706_204_736),
            (2, 4.302_652_730),
            (3, 3.182_446_305),
            (4, 2.776_445_105),
            (10, 2.228_138_852),
            (30, 2.042_272_456),
            (120, 1.979_930_405),
        ];
        for (nu, t) in table {
            let got = t_quantile(CONFIDENCE, nu);
            assert!((got - t).abs() < 1e-8, "nu {nu}: {got} vs {t}");
        }
        // Large ν tends to the normal quantile 1.959964.
        assert!((t_quantile(CONFIDENCE, 100_000) - 1.959_964).abs() < 1e-4);
    }

    #[test]
    fn grubbs_matches_published_critical_values() {
        // Grubbs (1969), Table 1 (ASTM E178): one-sided 1 % critical G is 2.410 for n = 10
        // and 1.155 for n = 3; the two-sided test at level 2 % uses the same value.
        // share = G²/(n−1).
        let s10 = grubbs_share_critical(10, 0.02).unwrap();
        assert!((s10 - 2.410f64.powi(2) / 9.0).abs() < 2e-3, "{s10}");
        let s3 = grubbs_share_critical(3, 0.02).unwrap();
        assert!((s3 - 1.155f64.powi(2) / 2.0).abs() < 2e-3, "{s3}");
        assert!(grubbs_share_critical(2, 0.01).is_none());
    }

    #[test]
    fn ratio_estimate_handles_empty_and_single() {
        let e = ratio_estimate(&[(0.0, 0), (0.0, 0)]);
        assert!(e.mean.is_nan() && e.half_width.is_infinite());
        let e = ratio_estimate(&[(5.0, 5), (0.0, 0)]);
        assert_eq!(e.mean, 1.0);
        assert!(e.half_width.is_infinite());
    }

    #[test]
    fn heavy_tail_rules() {
        let calm = heavy_tail_check(&[1.0, 1.1, 0.9, 1.05, 0.95, 1.02], &[0.001; 6]);
        assert!(!calm.warned());
        let spike = heavy_tail_check(&[1.0, 1.01, 0.99, 1.0, 1.0, 9.0], &[0.001; 6]);
        assert!(spike.dominant_replication.is_some());
        let big_job = heavy_tail_check(&[1.0, 1.1], &[0.3, 0.01]);
        assert_eq!(big_job.dominant_job, Some(0.3));
        // The fourth-moment rule fires strictly above one half, and says what would do.
        assert!(!calm
            .clone()
            .with_unseen_fourth_share(0.5, Some(10))
            .warned());
        let w = calm.with_unseen_fourth_share(0.52, Some(1_300_000));
        assert_eq!(w.unseen_fourth_moment, Some((0.52, Some(1_300_000))));
        assert!(
            w.describe()[0].contains("--jobs 1300000"),
            "{:?}",
            w.describe()
        );
    }
}
