//! `simulate`: argument parsing and rendering for the simulators of [`crate::sim`].

use super::{bad, hosts_of, render, Format, LoadArgs, Outcome};
use crate::dist::{DistFactory, DistSpec};
use crate::policy::LoadSpec;
use crate::report::Record;
use crate::sim::rng::GENERATOR;
use crate::sim::setup::{prepare, SimRequest};
use crate::sim::stats::Estimate;
use crate::sim::SimPolicy;
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};

/// Significant digits of simulated means (and of z) in the output.
const MEAN_DIGITS: usize = 6;
/// Significant digits of half-widths.
const HALF_WIDTH_DIGITS: usize = 3;
/// Simulated jobs (all replications) above which progress is shown on a terminal.
const PROGRESS_MIN_JOBS: u64 = 10_000_000;
/// Default measured jobs per replication.
const DEFAULT_JOBS: &str = "1000000";
/// Default replications.
const DEFAULT_REPLICATIONS: i64 = 10;
/// Default warm-up, as a fraction of `--jobs`.
const DEFAULT_WARMUP_FRACTION: u64 = 10;

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum SimPolicyArg {
    Sita,
    Tags,
    Random,
    Rr,
    Lwl,
    Jsq,
}

/// Options of `simulate`.
#[derive(Args, Debug)]
pub(super) struct SimulateArgs {
    /// Routing policy: sita/tags (with cutoffs), random, rr (round-robin), lwl
    /// (least-work-left = M/G/h central queue), jsq (join-the-shortest-queue).
    #[arg(long, value_enum)]
    policy: SimPolicyArg,
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Number of hosts h >= 1.
    #[arg(long, allow_hyphen_values = true)]
    hosts: i64,
    #[command(flatten)]
    load: LoadArgs,
    /// The h-1 interior cutoffs s1 < ... < s_{h-1} (sita, tags).
    #[arg(
        long,
        value_name = "S1,S2,...",
        allow_hyphen_values = true,
        default_value = ""
    )]
    cutoffs: String,
    /// Measured jobs per replication (an integer, e.g. 1000000 or 1e6).
    #[arg(long, value_name = "N", default_value = DEFAULT_JOBS, allow_hyphen_values = true)]
    jobs: String,
    /// Independent replications (>= 2), run in parallel.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPLICATIONS, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed: replication r of this run uses streams seeded from (seed, 0, r).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Jobs discarded at the start of each replication (default: jobs/10).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Renewal arrivals: inter-arrival distribution (rescaled to mean 1/lambda); default Poisson.
    #[arg(long, value_name = "SPEC")]
    interarrival: Option<String>,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// A job count: a non-negative integer, also written like 1e6.
fn count(what: &str, s: &str, min: u64) -> Result<u64, (i32, String)> {
    let t = s.trim();
    let v = if let Ok(v) = t.parse::<u64>() {
        Some(v)
    } else {
        t.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x < 1.8e19)
            .map(|x| x as u64)
    };
    match v {
        Some(v) if v >= min => Ok(v),
        _ => Err(bad(format!(
            "{what} must be an integer >= {min} (e.g. 1000000 or 1e6), got '{s}'"
        ))),
    }
}

/// A simulated number in scientific notation with `digits` significant digits; "0",
/// "inf", and "n/a" for an undefined value (a host no measured job visited).
fn sci(x: f64, digits: usize) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.is_nan() {
        "n/a".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{:.*e}", digits.saturating_sub(1), x)
    }
}

/// An input value as the f64 the simulator used: the shortest scientific string that
/// reads back to it.
fn exact(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:e}")
    }
}

fn est_pair(rec: &mut Record, key: &str, e: &Estimate) {
    rec.text(key, sci(e.mean, MEAN_DIGITS));
    rec.text(
        &format!("{key}_half_width"),
        sci(e.half_width, HALF_WIDTH_DIGITS),
    );
}

pub(super) fn run_simulate(a: SimulateArgs) -> Outcome {
    let hosts = hosts_of(a.hosts)?;
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    let load = match (a.load.load, a.load.load_per_host, a.load.lambda) {
        (Some(r), _, _) => LoadSpec::Total(r),
        (_, Some(u), _) => LoadSpec::PerHost(u),
        (_, _, Some(l)) => LoadSpec::Lambda(l),
        _ => return Err(bad("give one of --load, --load-per-host, --lambda")),
    };
    let jobs = count("jobs", &a.jobs, 1)?;
    let warmup = match &a.warmup {
        Some(w) => count("warmup", w, 0)?,
        None => jobs / DEFAULT_WARMUP_FRACTION,
    };
    let replications = usize::try_from(a.replications)
        .ok()
        .filter(|r| *r >= crate::sim::MIN_REPLICATIONS)
        .ok_or_else(|| {
            bad(format!(
                "replications must be at least {} (a confidence interval needs two), got {}",
                crate::sim::MIN_REPLICATIONS,
                a.replications
            ))
        })?;
    if a.threads == Some(0) {
        return Err(bad("threads must be at least 1"));
    }
    let interarrival = match &a.interarrival {
        Some(s) => Some(DistSpec::parse(s).map_err(bad)?),
        None => None,
    };
    let policy = match a.policy {
        SimPolicyArg::Sita => SimPolicy::Sita,
        SimPolicyArg::Tags => SimPolicy::Tags,
        SimPolicyArg::Random => SimPolicy::Random,
        SimPolicyArg::Rr => SimPolicy::RoundRobin,
        SimPolicyArg::Lwl => SimPolicy::Lwl,
        SimPolicyArg::Jsq => SimPolicy::Jsq,
    };
    let cutoffs: Vec<String> = a
        .cutoffs
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let req = SimRequest {
        policy,
        dist: &dist,
        hosts,
        load,
        cutoffs,
        interarrival: interarrival.as_ref().map(|d| d as &dyn DistFactory),
        jobs,
        warmup,
        replications,
        seed: a.seed,
        point: 0,
    };
    let prep = prepare(&req).map_err(bad)?;
    let cfg = &prep.config;
    let show_progress = std::io::stderr().is_terminal()
        && (jobs.saturating_add(warmup)).saturating_mul(replications as u64) >= PROGRESS_MIN_JOBS;
    let progress = |k: usize, n: usize| {
        let mut e = std::io::stderr().lock();
        // Progress is best effort: a failed write to the terminal is not an error.
        let _ = write!(e, "\rsimulate: {k}/{n} replications done");
        if k == n {
            let _ = writeln!(e);
        }
    };
    let progress_ref: Option<&(dyn Fn(usize, usize) + Sync)> =
        if show_progress { Some(&progress) } else { None };
    let res = prep.run(a.threads, progress_ref).map_err(bad)?;

    let mut rec = Record::default();
    rec.text("policy", policy.name())
        .text("dist", dist.describe())
        .int("hosts", hosts as u64)
        .text("load", exact(prep.load.to_f64()))
        .text("lambda", exact(cfg.lambda))
        .texts(
            "cutoffs",
            &cfg.cutoffs.iter().map(|c| exact(*c)).collect::<Vec<_>>(),
        )
        .text(
            "arrivals",
            match &interarrival {
                Some(d) => format!("renewal:{}", d.describe()),
                None => "poisson".into(),
            },
        )
        .int("jobs", jobs)
        .int("warmup", warmup)
        .int("replications", replications as u64)
        .int("seed", a.seed)
        .text("generator", GENERATOR);
    est_pair(&mut rec, "waiting", &res.waiting);
    est_pair(&mut rec, "response", &res.response);
    est_pair(&mut rec, "slowdown", &res.slowdown);
    if policy == SimPolicy::Tags {
        est_pair(&mut rec, "queueing", &res.queueing);
        est_pair(&mut rec, "wasted", &res.wasted);
    }
    if let Some(l) = &prep.host_loads {
        rec.texts(
            "host_loads",
            &l.iter().map(|x| sci(*x, MEAN_DIGITS)).collect::<Vec<_>>(),
        );
    }
    rec.texts(
        "host_waiting",
        &res.host_waiting
            .iter()
            .map(|e| sci(e.mean, MEAN_DIGITS))
            .collect::<Vec<_>>(),
    )
    .texts(
        "host_waiting_half_width",
        &res.host_waiting
            .iter()
            .map(|e| sci(e.half_width, HALF_WIDTH_DIGITS))
            .collect::<Vec<_>>(),
    );
    let mut notes = prep.notes.clone();
    if let Some(an) = &prep.analytic {
        rec.text("analytic_waiting", sci(an.waiting, MEAN_DIGITS))
            .text(
                "z",
                sci(
                    if an.waiting.is_finite() {
                        res.waiting.z(an.waiting)
                    } else {
                        f64::NAN
                    },
                    MEAN_DIGITS,
                ),
            )
            .text("analytic_source", an.source);
        if let Some(hw) = &an.host_waiting {
            rec.texts(
                "analytic_host_waiting",
                &hw.iter().map(|x| sci(*x, MEAN_DIGITS)).collect::<Vec<_>>(),
            )
            .texts(
                "host_z",
                &hw.iter()
                    .zip(&res.host_waiting)
                    .map(|(x, e)| sci(if x.is_finite() { e.z(*x) } else { f64::NAN }, MEAN_DIGITS))
                    .collect::<Vec<_>>(),
            );
        }
    }
    rec.flag("heavy_tail_warning", res.heavy_tail.warned());
    notes.extend(res.heavy_tail.describe());
    if res.host_waiting.iter().any(|e| e.mean.is_nan()) {
        notes.push("n/a: no measured job visited that host".into());
    }
    notes.push(format!(
        "half-widths: 95% Student-t over {replications} independent replications (warm-up of {warmup} jobs discarded in each)"
    ));
    rec.texts("notes", &notes);
    Ok(render(&rec, a.format))
}
