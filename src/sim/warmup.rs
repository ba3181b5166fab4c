//! Initialisation bias: the series of a replication's headline observable, the MSER-5
//! truncation point that chooses its warm-up, and the test that its measured window is
//! stationary.
//!
//! **The series.** Every replication of a simulator that keeps one records its headline
//! observable (dispatch: the waiting of each job; JSQ(d(N)): the tasks per server over
//! time; redundancy: the response time of each job, by arrival) over its whole run, warm-up
//! included, as [`SERIES_BATCHES`] consecutive batches of equal length (in jobs, or in
//! simulated time): a [`Series`] of batch sums and weights.
//!
//! **MSER-5** (White 1997, "An effective truncation heuristic for bias reduction in
//! simulation output", *Simulation* 69(6); White, Cobb & Spratt 2000, "A comparison of five
//! steady-state truncation heuristics for simulation", Proc. Winter Simulation Conference):
//! the series' batch means are grouped by 5 into Z_1, …, Z_m, and the truncation point is
//! the d* in 0 ≤ d ≤ m/2 that minimises the marginal standard error
//! MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (m − d)², Z̄_d the mean of the Z_j with j > d: the
//! deletion that most reduces the width of a confidence interval on the retained mean. The
//! search stops at half the run, where the rule is known to be unreliable (its minimum
//! there rests on a few batches; White, Cobb & Spratt 2000). Every runner reports it;
//! under [`WarmupRule::Mser`] (opt-in) a replication whose truncation point lies beyond its
//! configured warm-up is run again discarding d* instead ([`crate::sim::Simulator::
//! replicate_from`]), with the same measured length.
//!
//! **Stationarity** ([`halves_test`]): under stationarity the means of the first and
//! second halves of a replication's measured window have the same expectation, so their
//! differences D_r over the R independent replications are a sample of mean 0; the paired
//! t statistic T = D̄ / (s_D / √R) with R − 1 degrees of freedom tests it (the paired-t
//! comparison of Law & Kelton, *Simulation Modeling and Analysis*, 3rd ed., §10.2.1,
//! applied to the halves). An initialisation bias that the warm-up left in the window makes
//! the first half differ from the second. The test runs at level [`STATIONARITY_LEVEL`]
//! on every record.

use super::run::MIN_MEASURED;
use super::stats::t_abs_cdf;
use super::{Replicated, Tally};

/// Batches of a replication's series (over its whole run). MSER-5 groups them by 5 into
/// 200 batch means: a truncation point resolved to 0.5 % of the run.
pub const SERIES_BATCHES: u64 = 1000;

/// Batch means per group of MSER-5 (White's "5").
pub const MSER_GROUP: usize = 5;

/// Level of the stationarity test. It runs on every simulated record (and every simulated
/// value of a claim, where a failure makes the verdict INCONCLUSIVE): at 0.001 a run that
/// is stationary is flagged once in a thousand, so that the claims catalogue (about a
/// hundred simulations) expects 0.1 false alarms, while a bias of about two half-widths
/// of the headline's interval (t_{0.9995, 9} = 4.78 for 10 replications, against the
/// interval's 2.26) is flagged.
pub const STATIONARITY_LEVEL: f64 = 0.001;

/// Sokal's window constant: the autocorrelations of [`relaxation`] are summed up to the
/// smallest lag M with M ≥ `SOKAL_WINDOW` · τ̂(M) (Sokal 1997, §3; Madras & Sokal 1988).
pub const SOKAL_WINDOW: f64 = 5.0;

/// How the warm-up of each replication is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarmupRule {
    /// The configured warm-up, extended in a replication to MSER-5's truncation point
    /// where that lies beyond it (module docs). Opt-in, not a default: on the coverage
    /// tier it made heavy-tailed intervals cover less (MSER-5 cuts at the big early
    /// excursions of the same jobs) and, applied to one policy's replication and not the
    /// other's, it breaks the common random numbers of paired differences (wider
    /// intervals).
    Mser,
    /// The warm-up as configured (the default: a tenth of the run unless given); MSER-5's
    /// truncation point is reported, and the stationarity test judges the run.
    Given,
}

impl WarmupRule {
    /// `mser-5` or `given`.
    pub fn name(self) -> &'static str {
        match self {
            WarmupRule::Mser => "mser-5",
            WarmupRule::Given => "given",
        }
    }
}

/// A replication's headline observable in consecutive batches of equal length over its
/// whole run, warm-up included (module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// The length of a batch, in the run's unit (jobs or simulated time).
    pub width: f64,
    /// The warm-up this replication discarded, in the same unit.
    pub warmup: f64,
    /// Σ of the observable per batch (over jobs, or its integral over time).
    pub sums: Vec<f64>,
    /// The weight of each batch (its jobs, or its length of time).
    pub weights: Vec<f64>,
    /// 1 / `width`: [`Self::add_job`] runs once per simulated job, and a multiplication
    /// costs a fraction of a division there (the FCFS recursion does little else per job).
    inv_width: f64,
}

impl Series {
    /// An empty series of `batches` batches of `width` each, after a warm-up of `warmup`.
    pub fn new(width: f64, warmup: f64, batches: usize) -> Self {
        Series {
            width,
            warmup,
            sums: vec![0.0; batches],
            weights: vec![0.0; batches],
            inv_width: if width > 0.0 { 1.0 / width } else { 0.0 },
        }
    }

    /// The series of a run of `total` jobs (warm-up included, `warmup` of them
    /// discarded): batches of ⌈total / [`SERIES_BATCHES`]⌉ jobs.
    pub fn for_jobs(total: u64, warmup: u64) -> Self {
        let width = total.div_ceil(SERIES_BATCHES).max(1);
        let batches = total.div_ceil(width);
        Series::new(
            width as f64,
            warmup as f64,
            usize::try_from(batches).unwrap_or(0),
        )
    }

    /// The series of a run of simulated time `total` (`warmup` of it discarded): batches
    /// of total / [`SERIES_BATCHES`].
    pub fn for_time(total: f64, warmup: f64) -> Self {
        let n = SERIES_BATCHES as usize;
        Series::new(total / SERIES_BATCHES as f64, warmup, n)
    }

    /// Adds job `index` (0-based, in arrival order) with value `x`.
    #[inline]
    pub fn add_job(&mut self, index: u64, x: f64) {
        let i = index as f64;
        let mut b = (i * self.inv_width) as usize;
        // the rounded reciprocal may put a job at a batch's edge one batch off: correct it
        // to ⌊index / width⌋ exactly (both sides are exact for widths and indices < 2^53)
        if (b + 1) as f64 * self.width <= i {
            b += 1;
        } else if b > 0 && b as f64 * self.width > i {
            b -= 1;
        }
        if let (Some(s), Some(w)) = (self.sums.get_mut(b), self.weights.get_mut(b)) {
            *s += x;
            *w += 1.0;
        }
    }

    /// Adds the value `v` held constant over the time [t0, t1).
    #[inline]
    pub fn add_time(&mut self, t0: f64, t1: f64, v: f64) {
        if t1 <= t0 || self.width <= 0.0 {
            return;
        }
        let mut a = t0;
        let mut b = (a / self.width) as usize;
        while a < t1 && b < self.sums.len() {
            let end = ((b + 1) as f64 * self.width).min(t1);
            let dt = end - a;
            if dt > 0.0 {
                self.sums[b] += v * dt;
                self.weights[b] += dt;
            }
            a = end;
            b += 1;
        }
    }

    /// The batch means, 0 for an empty batch.
    fn means(&self) -> impl Iterator<Item = f64> + '_ {
        self.sums
            .iter()
            .zip(&self.weights)
            .map(|(s, w)| if *w > 0.0 { s / w } else { 0.0 })
    }

    /// The index of the first batch that lies wholly after the warm-up.
    fn first_measured(&self) -> usize {
        if self.width <= 0.0 {
            return self.sums.len();
        }
        // A relative slack for the rounding of warm-up / width when the warm-up is a
        // whole number of batches.
        const SLACK: f64 = 1e-9;
        let x = self.warmup / self.width;
        let i = (x - SLACK * x.max(1.0)).ceil().max(0.0);
        (i as usize).min(self.sums.len())
    }

    /// The batch means of the measured window (the batches wholly after the warm-up;
    /// empty batches left out).
    pub fn measured_means(&self) -> Vec<f64> {
        let i0 = self.first_measured();
        self.sums[i0..]
            .iter()
            .zip(&self.weights[i0..])
            .filter(|(_, w)| **w > 0.0)
            .map(|(s, w)| s / w)
            .collect()
    }

    /// The means of the first and second halves of the measured window (the batches
    /// wholly after the warm-up, split by count; the odd one to the second), weighted by
    /// the batches' weights; `None` with fewer than two batches or an empty half.
    pub fn halves(&self) -> Option<(f64, f64)> {
        let i0 = self.first_measured();
        let n = self.sums.len().saturating_sub(i0);
        if n < 2 {
            return None;
        }
        let mid = i0 + n / 2;
        let mean = |r: std::ops::Range<usize>| {
            let s: f64 = self.sums[r.clone()].iter().sum();
            let w: f64 = self.weights[r].iter().sum();
            (w > 0.0).then(|| s / w)
        };
        Some((mean(i0..mid)?, mean(mid..self.sums.len())?))
    }
}

/// A [`Series`] filled one job at a time in arrival order (the driver's hot loop: a
/// countdown per batch instead of a division per job).
#[derive(Debug, Clone)]
pub struct JobSeries {
    series: Series,
    width: u64,
    left: u64,
    batch: usize,
    sum: f64,
    count: f64,
}

impl JobSeries {
    /// The series of a run of `total` jobs, `warmup` of them discarded
    /// ([`Series::for_jobs`]).
    pub fn new(total: u64, warmup: u64) -> Self {
        let series = Series::for_jobs(total, warmup);
        let width = series.width as u64;
        JobSeries {
            series,
            width,
            left: width,
            batch: 0,
            sum: 0.0,
            count: 0.0,
        }
    }

    /// The next job's value.
    #[inline(always)]
    pub fn push(&mut self, x: f64) {
        self.sum += x;
        self.count += 1.0;
        self.left -= 1;
        if self.left == 0 {
            self.flush();
            self.left = self.width;
        }
    }

    #[cold]
    fn flush(&mut self) {
        if let (Some(s), Some(w)) = (
            self.series.sums.get_mut(self.batch),
            self.series.weights.get_mut(self.batch),
        ) {
            *s += self.sum;
            *w += self.count;
        }
        self.batch += 1;
        self.sum = 0.0;
        self.count = 0.0;
    }

    /// The series (a last, partial batch included).
    pub fn finish(mut self) -> Series {
        if self.count > 0.0 {
            self.flush();
        }
        self.series
    }
}

/// A [`Series`] of a value held constant between events, filled in time order (a
/// comparison per event instead of a division).
#[derive(Debug, Clone)]
pub struct TimeSeries {
    series: Series,
    batch: usize,
    end: f64,
    sum: f64,
}

impl TimeSeries {
    /// The series of a run of simulated time `total`, `warmup` of it discarded
    /// ([`Series::for_time`]).
    pub fn new(total: f64, warmup: f64) -> Self {
        let series = Series::for_time(total, warmup);
        let end = series.width;
        TimeSeries {
            series,
            batch: 0,
            end,
            sum: 0.0,
        }
    }

    /// The value was `v` over [t0, t1) (t0 at or after the previous call's t1).
    #[inline(always)]
    pub fn add(&mut self, t0: f64, t1: f64, v: f64) {
        if t1 <= self.end {
            self.sum += v * (t1 - t0);
        } else {
            self.cross(t0, t1, v);
        }
    }

    #[cold]
    fn cross(&mut self, mut t0: f64, t1: f64, v: f64) {
        let n = self.series.sums.len();
        while t1 > self.end && self.batch < n {
            self.sum += v * (self.end - t0).max(0.0);
            self.series.sums[self.batch] += self.sum;
            self.series.weights[self.batch] += self.series.width;
            self.sum = 0.0;
            t0 = self.end.max(t0);
            self.batch += 1;
            self.end = (self.batch + 1) as f64 * self.series.width;
        }
        if self.batch < n {
            self.sum += v * (t1 - t0).max(0.0);
        }
    }

    /// The series at the end of the run `total` (the last batch closed), each sum divided
    /// by `scale` (JSQ: the servers, for tasks per server).
    pub fn finish(mut self, total: f64, scale: f64) -> Series {
        if self.batch < self.series.sums.len() {
            let start = self.batch as f64 * self.series.width;
            self.series.sums[self.batch] += self.sum;
            self.series.weights[self.batch] += (total - start).max(0.0);
        }
        if scale != 1.0 {
            self.series.sums.iter_mut().for_each(|x| *x /= scale);
        }
        self.series
    }
}

/// The MSER-5 truncation point of `series` in its unit (a multiple of 5 batches), over
/// the first half of the run (module docs); 0 with fewer than two groups.
///
/// ```
/// use taskassign::sim::{mser5, Series};
/// // A run that rises from 0 to 1 over its first 100 batches (of width 2) and then
/// // fluctuates around 1: the truncation removes the rise (200 units) and little more.
/// let mut s = Series::new(2.0, 0.0, 1000);
/// for b in 0..1000 {
///     let level = (b as f64 / 100.0).min(1.0);
///     let noise = if b % 2 == 0 { 0.05 } else { -0.05 };
///     s.sums[b] = 2.0 * (level + noise);
///     s.weights[b] = 2.0;
/// }
/// let d = mser5(&s);
/// assert!((150.0..=260.0).contains(&d), "{d}");
/// ```
pub fn mser5(series: &Series) -> f64 {
    let means: Vec<f64> = series.means().collect();
    let z: Vec<f64> = means
        .chunks_exact(MSER_GROUP)
        .map(|c| c.iter().sum::<f64>() / MSER_GROUP as f64)
        .collect();
    let m = z.len();
    if m < 2 {
        return 0.0;
    }
    // Suffix sums of Z and Z² (centred on the overall mean, against cancellation).
    let centre = z.iter().sum::<f64>() / m as f64;
    let mut s1 = vec![0.0; m + 1];
    let mut s2 = vec![0.0; m + 1];
    for j in (0..m).rev() {
        let x = z[j] - centre;
        s1[j] = s1[j + 1] + x;
        s2[j] = s2[j + 1] + x * x;
    }
    let mut best = (f64::INFINITY, 0usize);
    for d in 0..=m / 2 {
        let k = (m - d) as f64;
        let ss = (s2[d] - s1[d] * s1[d] / k).max(0.0);
        let v = ss / (k * k);
        if v < best.0 {
            best = (v, d);
        }
    }
    (best.1 * MSER_GROUP) as f64 * series.width
}

/// The integrated autocorrelation time of a run's headline observable ([`relaxation`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    /// τ̂_int = ∫_0^∞ ρ(s) ds in the series' unit (simulated time or jobs): a time average
    /// over a window of length T has the variance of about T / (2 τ̂_int) independent
    /// observations.
    pub tau: f64,
    /// False when the window reached the largest lag (half the shortest measured window)
    /// before M ≥ [`SOKAL_WINDOW`] τ̂(M): τ̂ is then a lower estimate and the window is too
    /// short to measure it.
    pub resolved: bool,
}

/// The integrated autocorrelation time of the measured windows of `series` (one per
/// replication), by the windowed estimator of Sokal (1997, "Monte Carlo methods in
/// statistical mechanics: foundations and new algorithms", §3; Madras & Sokal 1988, *J.
/// Stat. Phys.* 50): the autocovariances ĉ(k) of the batch means at lag k, pooled over the
/// replications about their grand mean (a replication's own mean would bias them low when
/// its window holds few relaxation times), ρ̂(k) = ĉ(k)/ĉ(0), τ̂(M) = 1/2 + Σ_{k=1}^{M} ρ̂(k)
/// with the smallest M ≥ [`SOKAL_WINDOW`] τ̂(M), times the batch width. For batches
/// shorter than the relaxation time this is ∫ρ; for longer ones the batch means vary less
/// than the observable and τ̂ comes out larger (on the safe side). `None` without two
/// measured batches or with a constant series.
///
/// ```
/// use taskassign::sim::{relaxation, Series};
/// // An AR(1) series x_j = a x_{j-1} + e_j (a deterministic stand-in for the noise)
/// // has τ = 1/2 + a/(1 − a) batches: 9.5 for a = 0.9, at width 2: 19.
/// let a: f64 = 0.9;
/// let mut seed = 12345u64;
/// let mut reps = Vec::new();
/// for _ in 0..10 {
///     let mut s = Series::new(2.0, 0.0, 1000);
///     let mut x = 0.0;
///     for b in 0..1000 {
///         seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
///         let e = (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
///         x = a * x + e;
///         s.sums[b] = 2.0 * x;
///         s.weights[b] = 2.0;
///     }
///     reps.push(s);
/// }
/// let r = relaxation(&reps.iter().collect::<Vec<_>>()).unwrap();
/// // (the windowed estimate of 10 x 1000 batches has a standard error of about 15 %)
/// assert!(r.resolved && (r.tau - 19.0).abs() < 5.0, "{r:?}");
/// ```
pub fn relaxation(series: &[&Series]) -> Option<Relaxation> {
    let xs: Vec<Vec<f64>> = series.iter().map(|s| s.measured_means()).collect();
    let width = series.first()?.width;
    let n: usize = xs.iter().map(Vec::len).sum();
    let shortest = xs.iter().map(Vec::len).min()?;
    if shortest < 2 || !(width > 0.0) {
        return None;
    }
    let mean = xs.iter().flatten().sum::<f64>() / n as f64;
    let c = |k: usize| -> f64 {
        let (mut s, mut m) = (0.0, 0usize);
        for v in &xs {
            for j in 0..v.len() - k {
                s += (v[j] - mean) * (v[j + k] - mean);
            }
            m += v.len() - k;
        }
        s / m as f64
    };
    let c0 = c(0);
    if !(c0 > 0.0 && c0.is_finite()) {
        return None;
    }
    let mut tau = 0.5;
    for k in 1..shortest / 2 {
        tau += c(k) / c0;
        if k as f64 >= SOKAL_WINDOW * tau {
            return Some(Relaxation {
                tau: width * tau.max(0.5),
                resolved: true,
            });
        }
    }
    Some(Relaxation {
        tau: width * tau.max(0.5),
        resolved: false,
    })
}

/// The outcome of the stationarity test ([`halves_test`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stationarity {
    /// The paired t statistic of (second half − first half) over the replications.
    pub statistic: f64,
    /// Its two-sided p-value (Student t with R − 1 degrees of freedom).
    pub p_value: f64,
    /// Replications tested.
    pub replications: usize,
    /// False when p < [`STATIONARITY_LEVEL`].
    pub passed: bool,
}

/// The paired t test of the halves of the measured windows (module docs): `halves` is each
/// replication's (first-half mean, second-half mean). `None` with fewer than two
/// replications. Differences that are all 0 pass (p = 1); equal nonzero differences fail.
///
/// ```
/// use taskassign::sim::halves_test;
/// // Second halves higher in every replication, by 1 ± 0.1: a trend, flagged.
/// let rising: Vec<(f64, f64)> = (0..10).map(|r| (0.0, 1.0 + 0.02 * r as f64)).collect();
/// assert!(!halves_test(&rising).unwrap().passed);
/// // Differences that change sign around 0: no trend.
/// let flat: Vec<(f64, f64)> = (0..10).map(|r| (0.0, if r % 2 == 0 { 0.1 } else { -0.1 })).collect();
/// let t = halves_test(&flat).unwrap();
/// assert!(t.passed && t.p_value > 0.9);
/// ```
pub fn halves_test(halves: &[(f64, f64)]) -> Option<Stationarity> {
    let d: Vec<f64> = halves.iter().map(|(a, b)| b - a).collect();
    let r = d.len();
    if r < 2 || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let rf = r as f64;
    let mean = d.iter().sum::<f64>() / rf;
    let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (rf - 1.0);
    let se = (var / rf).sqrt();
    let (statistic, p_value) = if se > 0.0 {
        let t = mean / se;
        (t, (1.0 - t_abs_cdf(t.abs(), (r - 1) as u64)).max(0.0))
    } else if mean == 0.0 {
        (0.0, 1.0)
    } else {
        (mean.signum() * f64::INFINITY, 0.0)
    };
    Some(Stationarity {
        statistic,
        p_value,
        replications: r,
        passed: p_value >= STATIONARITY_LEVEL,
    })
}

/// What the warm-up rule did over the replications of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct WarmupReport {
    /// The warm-up rule that applied: the configured warm-up, or extended to MSER-5's
    /// truncation point.
    pub rule: WarmupRule,
    /// Each replication's MSER-5 truncation point (of its first run), in the run's unit.
    pub truncation: Vec<f64>,
    /// The warm-up each replication discarded in the end.
    pub applied: Vec<f64>,
    /// Replications run again with a longer warm-up.
    pub extended: usize,
}

impl WarmupReport {
    /// The largest truncation point.
    pub fn truncation_max(&self) -> f64 {
        self.truncation.iter().copied().fold(0.0, f64::max)
    }

    /// The largest warm-up discarded.
    pub fn applied_max(&self) -> f64 {
        self.applied.iter().copied().fold(0.0, f64::max)
    }

    /// Replications whose MSER-5 truncation point lies beyond the warm-up they discarded
    /// (under [`WarmupRule::Given`]: the warm-up may be too short there).
    pub fn short(&self) -> usize {
        self.truncation
            .iter()
            .zip(&self.applied)
            .filter(|(t, a)| t > a)
            .count()
    }
}

/// The options a failed diagnostic tells the user to change, in the caller's syntax
/// (`--warmup` on the command line, `warmup=` in a claim).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knobs {
    /// The warm-up option.
    pub warmup: &'static str,
    /// The length option (`--jobs`, `--time`).
    pub length: &'static str,
    /// The start option, for a model that has one.
    pub start: Option<&'static str>,
    /// What a replication measures: `jobs` or `events`.
    pub unit: &'static str,
}

impl Knobs {
    /// The command line of a simulator that counts jobs (`simulate`, `redundancy
    /// simulate`).
    pub const CLI_JOBS: Knobs = Knobs::counting_jobs("--warmup", "--jobs");
    /// The command line of `jsq simulate`.
    pub const CLI_TIME: Knobs = Knobs::counting_events(
        "--warmup",
        "--time",
        "--start fixed-point, or --start q1,q2,...",
    );
    /// A claim's simulated quantity that counts jobs (`lwl_sim`, `red_sim`, …).
    pub const CLAIM_JOBS: Knobs = Knobs::counting_jobs("warmup=", "jobs=");
    /// A claim's JSQ(d) simulation (`jsq_sim`, `jsq_excess`).
    pub const CLAIM_TIME: Knobs = Knobs::counting_events("warmup=", "time=", "start=fixed_point");

    /// The knobs of a model that counts jobs: it has no start option.
    const fn counting_jobs(warmup: &'static str, length: &'static str) -> Knobs {
        Knobs {
            warmup,
            length,
            start: None,
            unit: "jobs",
        }
    }

    /// The knobs of a model that counts events over a time: it starts from a state the
    /// `start` option chooses.
    const fn counting_events(
        warmup: &'static str,
        length: &'static str,
        start: &'static str,
    ) -> Knobs {
        Knobs {
            warmup,
            length,
            start: Some(start),
            unit: "events",
        }
    }
}

/// What a run's record says about initialisation bias and length: the headline
/// observable the series followed, the warm-up rule's work, the stationarity test, and
/// the fewest jobs (or events) a replication measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostics {
    /// The observable of the series (`waiting`, `mean_tasks`, `response`).
    pub observable: &'static str,
    /// What the warm-up rule did.
    pub warmup: Option<WarmupReport>,
    /// The stationarity test.
    pub stationarity: Option<Stationarity>,
    /// The fewest jobs (or events) a replication measured.
    pub fewest_measured: Option<u64>,
}

impl Diagnostics {
    /// The diagnostics of a run whose series followed `observable`.
    pub fn of<T: Tally>(run: &Replicated<T>, observable: &'static str) -> Self {
        Diagnostics {
            observable,
            warmup: run.warmup.clone(),
            stationarity: run.stationarity,
            fewest_measured: run.fewest_measured,
        }
    }

    /// Why the run is no sample: a replication measured fewer than [`MIN_MEASURED`] jobs
    /// (or events), with how much longer to run (`length` the run's length in the
    /// option's unit).
    pub fn too_short(&self, knobs: &Knobs, length: f64) -> Option<String> {
        let k = self.fewest_measured?;
        if k >= MIN_MEASURED {
            return None;
        }
        // The length that would give MIN_MEASURED at the rate seen (twice as long when
        // nothing was seen).
        let longer = if k == 0 {
            2.0 * length
        } else {
            length * MIN_MEASURED as f64 / k as f64
        };
        Some(format!(
            "a replication measured only {k} {} (at least {MIN_MEASURED} are needed for a sample of the mean): run longer ({} {} or more)",
            knobs.unit,
            knobs.length,
            nice_up(longer)
        ))
    }

    /// The failed diagnostics, each a sentence saying what to change: a replication that
    /// measured too few ([`Diagnostics::too_short`]) and the stationarity test. A failure
    /// means the interval is not trusted (a claim's value is INCONCLUSIVE).
    pub fn failures(&self, knobs: &Knobs, length: f64) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(self.too_short(knobs, length));
        let start = knobs
            .start
            .map(|s| format!(", or start nearer the stationary state ({s})"))
            .unwrap_or_default();
        if let Some(t) = self.stationarity.filter(|t| !t.passed) {
            out.push(format!(
                "initialisation bias: the stationarity test failed (the first and second halves of the measured window differ in {}: paired t = {:.3} over {} replications, p = {:.1e} < {STATIONARITY_LEVEL}): the interval is not trusted; lengthen the warm-up ({}), run longer ({}){start}",
                self.observable,
                t.statistic,
                t.replications,
                t.p_value,
                knobs.warmup,
                knobs.length
            ));
        }
        out
    }

    /// Advice that does not make the interval untrusted: under [`WarmupRule::Given`], a
    /// warm-up shorter than MSER-5's truncation point in some replication while the
    /// stationarity test passed (MSER-5 also truncates stationary runs by chance, so this
    /// alone is no evidence of bias).
    pub fn advice(&self, knobs: &Knobs) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(w) = self.warmup.as_ref().filter(|w| w.rule == WarmupRule::Given) {
            let short = w.short();
            if short > 0 && self.stationarity.is_some_and(|t| t.passed) {
                out.push(format!(
                    "the warm-up is shorter than MSER-5's truncation point in {short} of {} replications (largest {}): the stationarity test passed (MSER-5 also truncates stationary runs by chance), but a longer warm-up ({}) is safer",
                    w.truncation.len(),
                    nice_up(w.truncation_max()),
                    knobs.warmup
                ));
            }
        }
        out
    }
}

/// `x` rounded up to two significant digits, as the shortest decimal (a length to
/// suggest).
pub(crate) fn nice_up(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return format!("{x}");
    }
    let v = crate::num::round_up_two_digits(x);
    if (1.0..1e15).contains(&v) && v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_lands_in_the_batch_integer_division_names() {
        // the reference: ⌊index / width⌋ in integers, for widths whose reciprocals are not
        // binary fractions (3, 7, 1000003) and indices at and beside every edge
        for total in [30_u64, 7_000, 1_000_003_000, (1 << 40) + 12_345] {
            let mut s = Series::for_jobs(total, 0);
            let w = s.width as u64;
            for k in [0, 1, 2, s.sums.len() as u64 / 2, s.sums.len() as u64 - 1] {
                for i in [k * w, (k * w).saturating_sub(1), k * w + 1, k * w + w - 1] {
                    if i >= total {
                        continue;
                    }
                    let before = s.weights.clone();
                    s.add_job(i, 1.0);
                    let hit: Vec<usize> = (0..before.len())
                        .filter(|&b| s.weights[b] != before[b])
                        .collect();
                    assert_eq!(hit, vec![(i / w) as usize], "index {i}, width {w}");
                }
            }
        }
    }

    #[test]
    fn job_series_cover_the_run_in_equal_batches() {
        let s = Series::for_jobs(1100, 100);
        assert_eq!((s.width, s.sums.len()), (2.0, 550));
        let s = Series::for_jobs(7, 0);
        assert_eq!((s.width, s.sums.len()), (1.0, 7));
        let mut s = Series::for_jobs(10, 2);
        for i in 0..10 {
            s.add_job(i, i as f64);
        }
        assert_eq!(s.sums.iter().sum::<f64>(), 45.0);
        // Batches 2..10 are measured: halves 2..6 (mean 3.5) and 6..10 (mean 7.5).
        assert_eq!(s.halves(), Some((3.5, 7.5)));
    }

    #[test]
    fn time_series_split_at_batch_boundaries() {
        let mut s = Series::for_time(10.0, 0.0);
        assert_eq!(s.sums.len(), SERIES_BATCHES as usize);
        s.add_time(0.0, 10.0, 2.0);
        let total: f64 = s.sums.iter().sum();
        assert!((total - 20.0).abs() < 1e-9, "{total}");
        assert!(s.weights.iter().all(|w| (w - 0.01).abs() < 1e-12));
        // Past the end: dropped.
        s.add_time(10.0, 11.0, 5.0);
        assert!((s.sums.iter().sum::<f64>() - 20.0).abs() < 1e-9);
    }

    #[test]
    fn mser_finds_no_truncation_in_a_flat_series_and_caps_at_half() {
        let mut s = Series::new(1.0, 0.0, 1000);
        for b in 0..1000 {
            // A deterministic sawtooth without trend.
            s.sums[b] = ((b * 37) % 11) as f64;
            s.weights[b] = 1.0;
        }
        assert!(mser5(&s) <= 50.0, "{}", mser5(&s));
        // A transient over the whole run: the search stops at half of it.
        for b in 0..1000 {
            s.sums[b] = b as f64;
        }
        assert!(mser5(&s) <= 500.0);
        assert_eq!(mser5(&Series::new(1.0, 0.0, 9)), 0.0);
    }

    #[test]
    fn cursors_fill_as_the_plain_series() {
        let mut a = JobSeries::new(2503, 3);
        let mut b = Series::for_jobs(2503, 3);
        for i in 0..2503u64 {
            let x = (i % 17) as f64;
            a.push(x);
            b.add_job(i, x);
        }
        assert_eq!(a.finish(), b);
        let mut a = TimeSeries::new(10.0, 1.0);
        let mut b = Series::for_time(10.0, 1.0);
        let mut t = 0.0;
        for k in 0..500 {
            let t1 = (t + 0.0173 * (1 + k % 5) as f64).min(10.0);
            let v = (k % 3) as f64;
            a.add(t, t1, v);
            b.add_time(t, t1, v);
            t = t1;
        }
        a.add(t, 10.0, 2.0);
        b.add_time(t, 10.0, 2.0);
        let a = a.finish(10.0, 1.0);
        for (x, y) in a.sums.iter().zip(&b.sums) {
            assert!((x - y).abs() < 1e-9, "{x} {y}");
        }
        for (x, y) in a.weights.iter().zip(&b.weights) {
            assert!((x - y).abs() < 1e-9, "{x} {y}");
        }
    }

    #[test]
    fn suggested_lengths_round_up() {
        assert_eq!(nice_up(1234.0), "1300");
        assert_eq!(nice_up(0.123), "1.3e-1");
        assert_eq!(nice_up(100.0), "100");
    }

    #[test]
    fn halves_test_p_values() {
        // T = 2.262157 with 9 degrees of freedom is the 97.5 % point: p = 0.05.
        let d = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0];
        let sd = (10.0f64 / 9.0).sqrt();
        let shift = 2.262_157_163 * sd / 10f64.sqrt();
        let h: Vec<(f64, f64)> = d.iter().map(|x| (0.0, x + shift)).collect();
        let t = halves_test(&h).unwrap();
        assert!((t.p_value - 0.05).abs() < 1e-8, "{t:?}");
        assert!(t.passed);
        assert!(halves_test(&[(0.0, 1.0)]).is_none());
        let same = halves_test(&[(1.0, 1.0), (2.0, 2.0)]).unwrap();
        assert_eq!(
            (same.statistic, same.p_value, same.passed),
            (0.0, 1.0, true)
        );
        let shifted = halves_test(&[(1.0, 2.0), (2.0, 3.0)]).unwrap();
        assert!(!shifted.passed);
    }
}
