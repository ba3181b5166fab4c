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
use crate::sim::stats::{Estimate, HeavyTail};
use crate::sim::warmup::Diagnostics;
use crate::sim::SimError;
use crate::sim::{Length, RunOptions, DEFAULT_JOBS};
use rug::Float;

/// Precision (bits) of the analytic side: λ, ρ, the cutoffs and the formulas' values
/// (they are compared with f64 simulations, so double precision plus guard bits suffices).
pub const ANALYTIC_BITS: u32 = 128;

/// A simulation request in the user's vocabulary.
pub struct DispatchSimRequest<'a> {
    /// The policy.
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
/// truncation point reported and the run's stationarity tested: [`crate::sim::warmup`]), [`crate::sim::DEFAULT_REPLICATIONS`] replications, seed
/// [`crate::sim::DEFAULT_SEED`], point 0, from empty.
pub const DEFAULT_RUN: RunOptions = RunOptions::new(Length::jobs(DEFAULT_JOBS));

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
    /// Sentences for the output's `notes`.
    pub notes: Vec<String>,
}

impl Prepared {
    /// Simulates (on the request's threads, or a pool of `threads` threads when given)
    /// and adds the a-priori heavy-tail rule to the result's diagnosis.
    pub fn run(
        &self,
        threads: Option<usize>,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) -> Result<SimResult, SimError> {
        let mut r = match threads {
            Some(t) => simulate_with_threads(&self.config, t, progress)?,
            None => simulate(&self.config, progress)?,
        };
        r.heavy_tail = r.heavy_tail.with_unseen_share(self.unseen_share);
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
    if n < 2 {
        return Ok(0.0);
    }
    let bits = d.prec();
    let total = match d.moment(2) {
        Ok(m) => m,
        Err(DistError::InfiniteMoment { .. }) => return Ok(1.0),
        Err(e) => return Err(e),
    };
    if total.is_zero() {
        return Ok(0.0);
    }
    let u = Float::with_val(bits, 1u32) - Float::with_val(bits, 1u32) / Float::with_val(bits, n);
    let x = d.quantile(&u)?;
    let tail = d.partial_moment(2, &x, &d.upper())?;
    Ok((tail / total).to_f64())
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
        run: req.run.clone(),
    };
    config.validate()?;
    Ok(Prepared {
        config,
        lambda,
        load: rho,
        cutoffs,
        host_loads,
        unseen_share,
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
