//! From the user's vocabulary (a distribution spec, a load, cutoffs as decimal strings) to a
//! [`SimConfig`], checked for stability, and the one runner of the dispatch simulators
//! ([`run`]) that the `simulate` command and the claims engine call.
//!
//! The load, λ and the cutoffs are resolved in MPFR at [`ANALYTIC_BITS`] exactly as `eval`
//! resolves them, then rounded to f64 for the simulator. The per-host loads (the policy
//! vocabulary of [`crate::policy`]) decide stability before anything runs. The value a run
//! is compared with is not computed here: [`crate::policy::reference`] gives it from the
//! resolved λ and cutoffs ([`Prepared::lambda`], [`Prepared::cutoffs`]).

use super::{simulate, simulate_with_threads, Arrivals, SimConfig, SimPolicy, SimResult};
use crate::dist::{DistError, DistFactory, JobSize};
use crate::num::{message_number, parse_decimal};
use crate::policy::{self, tags, LoadSpec, PolicyError};
use crate::sim::observe::{names, Key};
use crate::sim::stats::{Estimate, HeavyTail, UNSEEN_FOURTH_MOMENT_SHARE};
use crate::sim::warmup::Diagnostics;
use crate::sim::SimError;
use crate::sim::{Length, LengthRule, RunOptions, DEFAULT_JOBS, DEFAULT_WARMUP_FRACTION};
use rug::Float;

/// Precision (bits) of the analytic side: λ, ρ, the cutoffs and the formulas' values
/// (they are compared with f64 simulations, so double precision plus guard bits suffices).
pub const ANALYTIC_BITS: u32 = 128;

/// A simulation request in the user's vocabulary.
pub struct DispatchSimRequest<'a> {
    /// The dispatching rule simulated (SITA and TAGS read `cutoffs`, the others not).
    pub policy: SimPolicy,
    /// Job sizes.
    pub dist: &'a dyn DistFactory,
    /// Hosts h ≥ 1.
    pub hosts: usize,
    /// The load (ρ, ρ/h or λ).
    pub load: LoadSpec,
    /// The h − 1 interior cutoffs as decimal strings (SITA, TAGS).
    pub cutoffs: Vec<String>,
    /// Renewal arrivals: the gap distribution (rescaled to mean 1/λ); `None` for Poisson.
    pub interarrival: Option<&'a dyn DistFactory>,
    /// Jobs (measured and warm-up), replications, seed, point, threads ([`DEFAULT_RUN`]
    /// unless the caller says otherwise).
    pub run: RunOptions,
}

/// The defaults of a dispatch simulation, on the command line and in the claims:
/// [`crate::sim::DEFAULT_JOBS`] measured jobs after a tenth as many discarded (MSER-5's
/// truncation point reported and the run's stationarity tested: [`crate::sim::warmup`]),
/// lengthened where the job-size law's fourth moment asks for it ([`LengthRule::HeavyTail`],
/// [`tail_length`]), [`crate::sim::DEFAULT_REPLICATIONS`] replications, seed
/// [`crate::sim::DEFAULT_SEED`], point 0, from empty.
pub const DEFAULT_RUN: RunOptions =
    RunOptions::new(Length::jobs(DEFAULT_JOBS)).with_length_rule(LengthRule::HeavyTail {
        warmup_follows: true,
    });

/// A request resolved: the f64 configuration and the analytic side.
#[derive(Debug)]
pub struct Prepared {
    /// What the simulator runs.
    pub config: SimConfig,
    /// λ (MPFR).
    pub lambda: Float,
    /// Total load ρ = λ E\[X\] (MPFR).
    pub load: Float,
    /// The interior cutoffs (MPFR), as parsed.
    pub cutoffs: Vec<Float>,
    /// Per-host loads when the policy determines them (SITA, TAGS, Random, RR).
    pub host_loads: Option<Vec<f64>>,
    /// E\[X²; X > x_n\] / E\[X²\] with P(X > x_n) = 1/n, n = jobs per replication: the input
    /// of the a-priori heavy-tail rule ([`HeavyTail::with_unseen_share`]).
    pub unseen_share: f64,
    /// What the fourth-moment length rule did ([`tail_length`]): `config.run` holds the
    /// length that runs.
    pub tail: TailLength,
    /// Sentences for the output's `notes`.
    pub notes: Vec<String>,
}

impl Prepared {
    /// Simulates (on the request's threads, or a pool of `threads` threads when given)
    /// and adds the a-priori heavy-tail rules (second and fourth moments) to the result's
    /// diagnosis.
    pub fn run(
        &self,
        threads: Option<usize>,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) -> Result<SimResult, SimError> {
        let mut r = match threads {
            Some(t) => simulate_with_threads(&self.config, t, progress)?,
            None => simulate(&self.config, progress)?,
        };
        r.heavy_tail = r
            .heavy_tail
            .with_unseen_share(self.unseen_share)
            .with_unseen_fourth_share(self.tail.share_run, self.tail.needed);
        Ok(r)
    }
}

/// E\[X²; X > x_n\] / E\[X²\] where P(X > x_n) = 1/n: the share of the second moment carried
/// by the sizes that n draws meet less than once on average. 1 when E\[X²\] is infinite,
/// 0 for n < 2.
///
/// ```
/// use taskassign::dist::{DistFactory, DistSpec};
/// use taskassign::sim::dispatch::unseen_second_moment_share;
/// // Exp(1): x_n = ln n and E[X²; X > x] = e^(−x)(x² + 2x + 2), so the share is
/// // ((ln n)² + 2 ln n + 2)/(2n).
/// let d = DistSpec::parse("exp:rate=1").unwrap().build(128).unwrap();
/// let l = 1000f64.ln();
/// let want = (l * l + 2.0 * l + 2.0) / 2000.0;
/// let got = unseen_second_moment_share(d.as_ref(), 1000).unwrap();
/// assert!((got - want).abs() < 1e-12);
/// ```
pub fn unseen_second_moment_share(d: &dyn JobSize, n: u64) -> Result<f64, DistError> {
    unseen_share(d, n, || d.moment(2), |x| d.partial_moment(2, x, &d.upper()))
}

/// tail(x_n) / total, where P(X > x_n) = 1/n, of a moment of `d` given as its `total` and
/// its `tail` above a point: 0 for n < 2 or a zero total, 1 when the total is infinite.
fn unseen_share(
    d: &dyn JobSize,
    n: u64,
    total: impl FnOnce() -> Result<Float, DistError>,
    tail: impl FnOnce(&Float) -> Result<Float, DistError>,
) -> Result<f64, DistError> {
    if n < 2 {
        return Ok(0.0);
    }
    let bits = d.prec();
    let total = match total() {
        Ok(m) => m,
        Err(DistError::InfiniteMoment { .. }) => return Ok(1.0),
        Err(e) => return Err(e),
    };
    if total.is_zero() {
        return Ok(0.0);
    }
    let u = Float::with_val(bits, 1u32) - Float::with_val(bits, 1u32) / Float::with_val(bits, n);
    let x = d.quantile(&u)?;
    let tail = tail(&x)?;
    Ok((tail / total).to_f64())
}

/// The most the fourth-moment rule lengthens a replication by itself: at most this many
/// times the measured jobs given. Beyond it the run is not lengthened, and the record says
/// how many jobs the law asks for.
///
/// Why 20: the cap keeps an automatic lengthening a run one waits for, and 20 times the
/// default admits the heavy bounded Pareto of the coverage tier (BP(1, 10⁶, 1.1) asks for
/// 1.4 × 10⁷ jobs per replication, 14 times the default). At 10 its runs kept 10⁶ jobs,
/// were flagged in every one of 200 seeds and covered 88 %. Measured on this project's
/// machine (`taskassign simulate --policy random --dist bp:k=1,p=1e6,alpha=1.1 --hosts 2
/// --load 1 --threads 1`, 10 replications): 0.15 s of one core at 10⁶ jobs, 2.0 s at
/// 1.4 × 10⁷ (about 7 × 10⁷ jobs per second), so 20 times a default dispatch run is
/// seconds; a default `redundancy simulate` run (N-model 0.3,0.5 under lrf-fcfs) takes
/// 0.6 s of one core, so 20 times that is about 12 s. Laws that ask for far more (lognormal(0, 2): 1.7 × 10¹⁵) are not lengthened
/// whatever the cap, and the event budget bounds every lengthening as well.
pub const HEAVY_TAIL_MAX_FACTOR: u64 = 20;

/// E\[X⁴; X > x_n\] / E\[X⁴\] where P(X > x_n) = 1/n: the share of the fourth moment carried
/// by the sizes that n draws meet less than once on average (the input of the
/// fourth-moment rule, [`HeavyTail::with_unseen_fourth_share`]). 1 when E\[X⁴\] is
/// infinite, 0 for n < 2.
///
/// ```
/// use taskassign::dist::{DistFactory, DistSpec};
/// use taskassign::sim::dispatch::unseen_fourth_moment_share;
/// // Exp(1): x_n = ln n and E[X⁴; X > x] = e^(−x) Σ_{k≤4} 4!/k! x^k (DLMF 8.4.8), E[X⁴] = 24.
/// let d = DistSpec::parse("exp:rate=1").unwrap().build(128).unwrap();
/// let l = 1000f64.ln();
/// let want = (l.powi(4) + 4.0 * l.powi(3) + 12.0 * l * l + 24.0 * l + 24.0) / (24.0 * 1000.0);
/// let got = unseen_fourth_moment_share(d.as_ref(), 1000).unwrap();
/// assert!((got - want).abs() < 1e-12, "{got} {want}");
/// ```
pub fn unseen_fourth_moment_share(d: &dyn JobSize, n: u64) -> Result<f64, DistError> {
    let up = d.upper();
    unseen_share(
        d,
        n,
        || d.higher_partial_moment(4, &d.lower_open(), &up),
        |x| d.higher_partial_moment(4, x, &up),
    )
}

/// Steps of the bisection for the point above which half of E\[X⁴\] lies.
const HALF_FOURTH_STEPS: usize = 200;
/// Doublings allowed to bracket that point on an unbounded support.
const HALF_FOURTH_DOUBLINGS: usize = 4000;

/// The fewest measured jobs per replication at which [`unseen_fourth_moment_share`] is at
/// most 1/2 (rounded up to two significant digits): 1/F̄(x½) with x½ the point above which
/// half of E\[X⁴\] lies (found by bisection on E\[X⁴; X > x\], which falls with x; the
/// median of X lies below it, since E\[X⁴; X > m\] ≥ m⁴/2 ≥ E\[X⁴; X ≤ m\]). `None` when
/// E\[X⁴\] is infinite (no length does).
///
/// ```
/// use taskassign::dist::{DistFactory, DistSpec};
/// use taskassign::sim::dispatch::{jobs_to_see_fourth_moment, unseen_fourth_moment_share};
/// // Weibull(0.3): half of E[X⁴] lies above y = x^0.3 = the median of Gamma(1 + 4/0.3), about
/// // 14.0, so n ≈ e^14 ≈ 1.2e6 (the rule fires at the default 10⁶ jobs: share 0.52).
/// let d = DistSpec::parse("weibull:shape=0.3,scale=1").unwrap().build(128).unwrap();
/// let n = jobs_to_see_fourth_moment(d.as_ref()).unwrap().unwrap();
/// assert!((1_000_000..2_000_000).contains(&n), "{n}");
/// assert!(unseen_fourth_moment_share(d.as_ref(), n).unwrap() <= 0.5);
/// assert!(unseen_fourth_moment_share(d.as_ref(), 1_000_000).unwrap() > 0.5);
/// // Pareto with α = 3 has no fourth moment.
/// let p = DistSpec::parse("pareto:k=1,alpha=3").unwrap().build(128).unwrap();
/// assert_eq!(jobs_to_see_fourth_moment(p.as_ref()).unwrap(), None);
/// ```
pub fn jobs_to_see_fourth_moment(d: &dyn JobSize) -> Result<Option<u64>, DistError> {
    let bits = d.prec();
    let up = d.upper();
    let total = match d.higher_partial_moment(4, &d.lower_open(), &up) {
        Ok(m) => m,
        Err(DistError::InfiniteMoment { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    if total.is_zero() {
        return Ok(Some(1));
    }
    let half = Float::with_val(bits, &total / 2u32);
    let above = |x: &Float| d.higher_partial_moment(4, x, &up);
    let mut lo = d.quantile(&Float::with_val(bits, 0.5))?;
    if above(&lo)? < half {
        lo = d.lower_open();
    }
    let mut hi = if up.is_finite() {
        up.clone()
    } else {
        let mut h = Float::with_val(bits, &lo * 2u32).max(&Float::with_val(bits, 1u32));
        let mut steps = 0;
        while above(&h)? >= half {
            h *= 2u32;
            steps += 1;
            if steps > HALF_FOURTH_DOUBLINGS {
                return Ok(None);
            }
        }
        h
    };
    for _ in 0..HALF_FOURTH_STEPS {
        let mid = if lo > 0 {
            Float::with_val(bits, &lo * &hi).sqrt()
        } else {
            Float::with_val(bits, &lo + &hi) / 2u32
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if above(&mid)? >= half {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // P(X > lo), lo the end at which at least half of E[X⁴] lies above: n draws meet those
    // sizes once on average when n = 1/P(X > lo).
    let t = d.tail(&lo).to_f64();
    if !(t > 0.0) {
        return Ok(None);
    }
    let mut n = crate::num::round_up_two_digits((1.0 / t).max(2.0));
    // Rounding of the quantile at 1 − 1/n: a few steps up until the rule passes.
    for _ in 0..8 {
        if n >= u64::MAX as f64 {
            return Ok(Some(u64::MAX));
        }
        if unseen_fourth_moment_share(d, n as u64)? <= UNSEEN_FOURTH_MOMENT_SHARE {
            break;
        }
        n = crate::num::round_up_two_digits(n * 1.05);
    }
    Ok(Some(if n >= u64::MAX as f64 {
        u64::MAX
    } else {
        n as u64
    }))
}

/// What the fourth-moment length rule did to a job-counting run.
#[derive(Debug, Clone, PartialEq)]
pub struct TailLength {
    /// The rule ([`LengthRule::HeavyTail`] by default, [`LengthRule::Given`] when the
    /// jobs were given).
    pub rule: LengthRule,
    /// Measured jobs per replication asked for.
    pub requested: u64,
    /// Measured and warm-up jobs per replication that run.
    pub measured: u64,
    /// Warm-up jobs per replication that run.
    pub warmup: u64,
    /// [`unseen_fourth_moment_share`] at the jobs asked for and at the jobs that run
    /// (0 where it could not be evaluated).
    pub share_requested: f64,
    /// The same at the jobs that run.
    pub share_run: f64,
    /// The jobs per replication the law asks for ([`jobs_to_see_fourth_moment`]), when the
    /// rule fired at the jobs asked for; `None` also when E\[X⁴\] is infinite.
    pub needed: Option<u64>,
    /// Why the run was not lengthened to `needed` although the rule fired.
    pub short_of: Option<String>,
    /// The rule could not be evaluated (a quadrature or a quantile failed), in words.
    pub error: Option<String>,
}

impl TailLength {
    /// True when the replications run longer than asked.
    pub fn lengthened(&self) -> bool {
        self.measured > self.requested
    }

    /// Which length runs and why, for the record's `length_reason`.
    pub fn reason(&self) -> String {
        let pct = |x: f64| format!("{:.0}%", 100.0 * x);
        let shown = |n: u64| crate::sim::warmup::nice_up(n as f64);
        if let Some(e) = &self.error {
            return format!(
                "{} measured jobs per replication; the fourth-moment heavy-tail rule could not be evaluated ({e})",
                self.requested
            );
        }
        let rule = format!(
            "more than {} of E[X^4], which drives the variance of a simulated mean waiting, must not come from sizes a replication meets less than once on average",
            pct(UNSEEN_FOURTH_MOMENT_SHARE)
        );
        if self.share_requested <= UNSEEN_FOURTH_MOMENT_SHARE {
            let how = match self.rule {
                LengthRule::Given => "as given",
                _ => "the default",
            };
            return format!(
                "{} measured jobs per replication ({how}); {rule}: {} does at this length",
                self.requested,
                pct(self.share_requested)
            );
        }
        if self.lengthened() {
            return format!(
                "{} measured jobs per replication (lengthened from {}, warm-up {}); {rule}: {} did at {} jobs, {} does at {}",
                self.measured,
                self.requested,
                self.warmup,
                pct(self.share_requested),
                self.requested,
                pct(self.share_run),
                self.measured
            );
        }
        let need = match self.needed {
            Some(n) => format!("about {} jobs per replication would meet them", shown(n)),
            None => "E[X^4] is infinite, so no length meets them".into(),
        };
        let why = match (&self.rule, &self.short_of) {
            (LengthRule::Given, _) => "jobs as given".to_string(),
            (_, Some(s)) => format!("not lengthened: {s}"),
            (_, None) => "not lengthened".to_string(),
        };
        format!(
            "{} measured jobs per replication ({why}); {rule}: {} does at this length and {need}",
            self.requested,
            pct(self.share_requested)
        )
    }
}

/// The fourth-moment length rule ([`LengthRule::HeavyTail`]) on `run` for the law `d`:
/// where the rule fires at the measured jobs asked for, the options lengthened to the jobs
/// the law asks for ([`jobs_to_see_fourth_moment`]; the warm-up following at a tenth
/// unless given), when that is at most [`HEAVY_TAIL_MAX_FACTOR`] times the jobs asked for
/// and within the event budget (`events_per_job` simulated events per job); otherwise
/// `run` as it is. The rule is evaluated whatever `run.length_rule` says (the record
/// reports it); only [`LengthRule::HeavyTail`] lengthens. `model` names the simulator.
pub fn tail_length(
    d: &dyn JobSize,
    run: &RunOptions,
    events_per_job: f64,
    model: &str,
) -> Result<(RunOptions, TailLength), SimError> {
    let (jobs, warmup) = run.jobs(model)?;
    let mut out = TailLength {
        rule: run.length_rule,
        requested: jobs,
        measured: jobs,
        warmup,
        share_requested: 0.0,
        share_run: 0.0,
        needed: None,
        short_of: None,
        error: None,
    };
    let share = match unseen_fourth_moment_share(d, jobs) {
        Ok(s) => s,
        Err(e) => {
            out.error = Some(e.to_string());
            return Ok((run.clone(), out));
        }
    };
    out.share_requested = share;
    out.share_run = share;
    if share <= UNSEEN_FOURTH_MOMENT_SHARE {
        return Ok((run.clone(), out));
    }
    out.needed = match jobs_to_see_fourth_moment(d) {
        Ok(n) => n,
        Err(e) => {
            out.error = Some(e.to_string());
            return Ok((run.clone(), out));
        }
    };
    let LengthRule::HeavyTail { warmup_follows } = run.length_rule else {
        return Ok((run.clone(), out));
    };
    let Some(n) = out.needed.filter(|&n| n > jobs) else {
        return Ok((run.clone(), out));
    };
    if n / HEAVY_TAIL_MAX_FACTOR > jobs {
        out.short_of = Some(format!(
            "more than {HEAVY_TAIL_MAX_FACTOR} times the jobs asked for (give --jobs, and --no-limit beyond the event budget)"
        ));
        return Ok((run.clone(), out));
    }
    let new_warmup = if warmup_follows {
        n / DEFAULT_WARMUP_FRACTION
    } else {
        warmup
    };
    let longer = RunOptions {
        length: Length::Jobs {
            measured: n,
            warmup: new_warmup,
        },
        ..run.clone()
    };
    if longer
        .check_budget(events_per_job * (n as f64 + new_warmup as f64), "--jobs")
        .is_err()
    {
        out.short_of = Some("beyond the event budget (give --jobs and --no-limit)".into());
        return Ok((run.clone(), out));
    }
    out.measured = n;
    out.warmup = new_warmup;
    out.share_run = unseen_fourth_moment_share(d, n).unwrap_or(share);
    Ok((longer, out))
}

/// The error for cutoffs given to a policy that has none, e.g. `random takes no cutoffs`:
/// one wording for every command (`policy` is the name the sentence starts with):
/// `takes_no_cutoffs("lwl")` reads "cutoffs: lwl takes no cutoffs".
pub fn takes_no_cutoffs(policy: &str) -> PolicyError {
    PolicyError::BadCutoffs(format!("{policy} takes no cutoffs"))
}

/// Resolves `req` and simulates it: the one runner of the dispatch simulators (the
/// `simulate` command and the claims call it).
pub fn run(
    req: &DispatchSimRequest,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Result<(Prepared, SimResult), SimError> {
    let p = prepare(req)?;
    let r = p.run(None, progress)?;
    Ok((p, r))
}

/// Resolves a request (validating everything the simulator needs).
pub fn prepare(req: &DispatchSimRequest) -> Result<Prepared, SimError> {
    req.run.validate()?;
    let (jobs, warmup) = req.run.jobs("dispatch")?;
    req.run.require_empty_start("dispatch")?;
    req.run
        .check_budget(jobs as f64 + warmup as f64, "--jobs, --replications")?;
    let bits = ANALYTIC_BITS;
    let d = req.dist.build(bits)?;
    let (lambda, rho) = req.load.resolve(d.as_ref(), req.hosts)?;
    let cutoffs = req
        .cutoffs
        .iter()
        .map(|c| parse_decimal(c, bits).map_err(|e| PolicyError::BadCutoffs(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let full = if req.policy.uses_cutoffs() {
        Some(policy::full_cutoffs(d.as_ref(), req.hosts, &cutoffs)?)
    } else if !cutoffs.is_empty() {
        return Err(SimError::Policy(takes_no_cutoffs(req.policy.name())));
    } else {
        None
    };
    crate::dist::check_simulable_scale(d.as_ref())?;
    let sizes = d.sampler()?;
    let mut notes = Vec::new();
    let arrivals = match req.interarrival {
        None => Arrivals::Poisson,
        Some(g) => {
            let gd = g.build(bits)?;
            let mean = gd.mean()?;
            let scale =
                (Float::with_val(bits, 1u32) / (Float::with_val(bits, &lambda * &mean))).to_f64();
            notes.push(format!(
                "renewal arrivals: gaps from {} rescaled to mean 1/lambda; the formulas assume Poisson arrivals, so no analytic value is given",
                g.describe()
            ));
            Arrivals::Renewal {
                gaps: gd.sampler()?,
                scale,
            }
        }
    };
    let host_loads = host_loads(req.policy, d.as_ref(), &lambda, req.hosts, full.as_deref())?;
    if let Some(loads) = &host_loads {
        if let Some((i, r)) = loads.iter().enumerate().find(|(_, r)| **r >= 1.0) {
            return Err(SimError::Unstable(format!(
                "host {} has load {} >= 1 (total load {}): the mean waiting is infinite and a simulation would not settle",
                i + 1,
                message_number(&Float::with_val(53, *r)),
                message_number(&rho)
            )));
        }
    }
    // The fourth-moment rule, which may lengthen the replications (one event per job).
    let (run, tail) = tail_length(d.as_ref(), &req.run, 1.0, "dispatch")?;
    if let Some(e) = &tail.error {
        notes.push(format!(
            "the fourth-moment heavy-tail rule could not be evaluated: {e}"
        ));
    }
    let (jobs, _) = run.jobs("dispatch")?;
    let unseen_share = match unseen_second_moment_share(d.as_ref(), jobs) {
        Ok(s) => s,
        Err(e) => {
            notes.push(format!(
                "the a-priori heavy-tail rule could not be evaluated: {e}"
            ));
            0.0
        }
    };
    let config = SimConfig {
        policy: req.policy,
        hosts: req.hosts,
        lambda: lambda.to_f64(),
        cutoffs: cutoffs.iter().map(Float::to_f64).collect(),
        sizes,
        arrivals,
        run,
    };
    config.validate()?;
    Ok(Prepared {
        config,
        lambda,
        load: rho,
        cutoffs,
        host_loads,
        unseen_share,
        tail,
        notes,
    })
}

/// Per-host loads for the policies that fix them: SITA λ M_1(s_{i−1}, s_i), TAGS
/// λ (M_1(s_{i−1}, s_i) + s_i F̄(s_i)), Random and Round-Robin ρ/h. `None` for LWL and
/// JSQ (stable iff ρ < h, which the load check ensured).
fn host_loads(
    policy: SimPolicy,
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    full: Option<&[Float]>,
) -> Result<Option<Vec<f64>>, SimError> {
    let bits = d.prec();
    let lo_open = d.lower_open();
    let per_interval = |f: &dyn Fn(&Float, &Float) -> Result<Float, PolicyError>| {
        full.map(|s| {
            (1..s.len())
                .map(|i| {
                    let a = if i == 1 { &lo_open } else { &s[i - 1] };
                    f(a, &s[i]).map(|x| x.to_f64())
                })
                .collect::<Result<Vec<f64>, PolicyError>>()
        })
        .transpose()
    };
    Ok(match policy {
        SimPolicy::Sita => {
            per_interval(&|a, b| Ok(Float::with_val(bits, lambda * &d.partial_moment(1, a, b)?)))?
        }
        SimPolicy::Tags => per_interval(&|a, b| tags::host_load(d, lambda, a, b))?,
        SimPolicy::Random | SimPolicy::RoundRobin => {
            let u = Float::with_val(bits, lambda * &d.mean()?) / Float::with_val(bits, hosts);
            Some(vec![u.to_f64(); hosts])
        }
        SimPolicy::Lwl | SimPolicy::Jsq => None,
    })
}

/// Simulates `req` and returns the estimate of the named observable `q` ([`Key`], e.g.
/// `Key::scalar(names::WAITING)` or `Key::at(names::HOST_WAITING, 0)`), with the heavy-tail
/// diagnosis and the run's diagnostics of initialisation bias and length: the entry point for claims that need a simulated value (e.g. Least-Work-Left's waiting);
/// the claims engine turns it into HOLDS / FAILS / INCONCLUSIVE.
///
/// ```
/// use taskassign::dist::DistSpec;
/// use taskassign::policy::LoadSpec;
/// use taskassign::policy::erlang_c_waiting;
/// use taskassign::sim::dispatch::{simulated_mean, DEFAULT_RUN, DispatchSimRequest};
/// use taskassign::sim::{names, Key};
/// use taskassign::sim::SimPolicy;
/// use taskassign::sim::{Length, RunOptions};
/// // "LWL with exponential sizes is within 10 % of Erlang C" at ρ = 1.2 on 2 hosts: the
/// // whole 95 % interval lies in the band.
/// let d = DistSpec::parse("exp:rate=1").unwrap();
/// let req = DispatchSimRequest {
///     policy: SimPolicy::Lwl, dist: &d, hosts: 2, load: LoadSpec::Total("1.2".into()),
///     cutoffs: vec![], interarrival: None,
///     run: RunOptions { length: Length::jobs(100_000), ..DEFAULT_RUN },
/// };
/// let (est, tail, diag) = simulated_mean(&req, Key::scalar(names::WAITING)).unwrap();
/// let target = erlang_c_waiting(1.2, 1.0, 2);
/// let (lo, hi) = est.interval();
/// assert!(!tail.warned() && lo >= 0.9 * target && hi <= 1.1 * target, "{est:?}");
/// assert!(diag.stationarity.is_some_and(|t| t.passed));
/// // Too few jobs to tell a 1 % difference: the interval is wider than the ±1 % band.
/// let short = DispatchSimRequest { run: RunOptions { length: Length::jobs(2_000), ..req.run.clone() }, ..req };
/// let (est, _, _) = simulated_mean(&short, Key::scalar(names::WAITING)).unwrap();
/// assert!(2.0 * est.half_width > 0.02 * target, "{est:?}");
/// ```
pub fn simulated_mean(
    req: &DispatchSimRequest,
    key: Key,
) -> Result<(Estimate, HeavyTail, Diagnostics), SimError> {
    let (_, r) = run(req, None)?;
    let e = r
        .estimates
        .get(key)
        .copied()
        .ok_or_else(|| match key.index {
            Some(i) if key.name == names::HOST_WAITING => SimError::BadConfig(format!(
                "host {} does not exist ({} hosts)",
                i + 1,
                req.hosts
            )),
            _ => SimError::BadConfig(format!(
                "the dispatch simulator has no observable {key} (it has {})",
                r.estimates
                    .keys()
                    .filter(|k| k.index.is_none())
                    .map(|k| k.name)
                    .chain([names::HOST_WAITING])
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        })?;
    Ok((e, r.heavy_tail, r.diagnostics))
}
