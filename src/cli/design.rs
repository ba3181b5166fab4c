//! `taskassign design`: the fewest hosts, and their optimal cutoffs, that meet a mean
//! waiting (or slowdown) target for SITA and for TAGS ([BD21]).

use crate::dist::{DistFactory, DistSpec};
use crate::error::Classify;
use crate::num::check_digits;
use crate::optimize::design::{design, Target};
use crate::optimize::OptPolicy;
use crate::report::design::render_designs;
use crate::vocab::Vocabulary;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};

/// Default largest host count tried.
pub(crate) const DEFAULT_MAX_HOSTS: i64 = 32;
/// Default significant digits of `design`.
pub(crate) const DEFAULT_DESIGN_DIGITS: i64 = 20;

/// The `--policy` word of `design` that designs every policy.
const BOTH: &str = "both";

/// The policies `design` runs: one named, or every one whose cutoffs minimise the metric
/// (`both`: SITA and TAGS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Designed(Vec<OptPolicy>);

/// `--policy`'s parser: the names of the [`OptPolicy`]s that minimise the metric, and
/// `both`.
fn designed() -> impl TypedValueParser<Value = Designed> {
    let all = || {
        OptPolicy::all()
            .iter()
            .copied()
            .filter(|p| p.minimises_metric())
    };
    let names = all().map(OptPolicy::name).chain([BOTH]);
    PossibleValuesParser::new(names).try_map(move |s| match s.as_str() {
        BOTH => Ok(Designed(all().collect())),
        one => one.parse().map(|p| Designed(vec![p])),
    })
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum DesignFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub(crate) struct DesignArgs {
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Total offered load rho = lambda*E[X].
    #[arg(long, value_name = "RHO", allow_hyphen_values = true)]
    load: String,
    /// Target mean waiting time.
    #[arg(
        long,
        value_name = "W",
        allow_hyphen_values = true,
        conflicts_with = "target_slowdown"
    )]
    target_waiting: Option<String>,
    /// Target mean slowdown E[W/X].
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    target_slowdown: Option<String>,
    /// Which policy to design.
    #[arg(long, value_parser = designed(), default_value = BOTH)]
    policy: Designed,
    /// Largest number of hosts tried.
    #[arg(long, default_value_t = DEFAULT_MAX_HOSTS, allow_hyphen_values = true)]
    max_hosts: i64,
    /// Significant digits (certified).
    #[arg(long, default_value_t = DEFAULT_DESIGN_DIGITS, allow_hyphen_values = true)]
    digits: i64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: DesignFormat,
}

/// Runs `design`.
pub(crate) fn run_design(a: DesignArgs) -> Result<String, (i32, String)> {
    let bad = |e: String| (super::EXIT_BAD_INPUT, e);
    let digits = check_digits(a.digits).map_err(|e| bad(e.to_string()))?;
    if a.max_hosts < 1 {
        return Err(bad(format!(
            "max-hosts must be at least 1, got {}",
            a.max_hosts
        )));
    }
    let max_hosts = a.max_hosts as usize;
    let dist = DistSpec::parse(&a.dist).map_err(|e| bad(e.to_string()))?;
    let target = match (a.target_waiting, a.target_slowdown) {
        (Some(w), _) => Target::Waiting(w),
        (_, Some(s)) => Target::Slowdown(s),
        _ => return Err(bad("give --target-waiting or --target-slowdown".into())),
    };
    let mut designs = Vec::new();
    for p in a.policy.0 {
        // Bad input exits 2, a solver that failed 3 (crate::error::ErrorKind).
        let d = design(&dist, &a.load, &target, p, max_hosts, digits)
            .map_err(|e| (e.kind().exit_code(), e.to_string()))?;
        designs.push(d);
    }
    let unmet: Vec<&str> = designs
        .iter()
        .filter(|d| d.hosts.is_none())
        .map(|d| d.policy)
        .collect();
    if unmet.len() == designs.len() {
        return Err(bad(format!(
            "the target is not met by {} with up to {max_hosts} hosts (raise --max-hosts or relax the target)",
            unmet.join(" or ")
        )));
    }
    let json = a.format == DesignFormat::Json;
    Ok(render_designs(
        &dist.describe(),
        &a.load,
        &target,
        &designs,
        json,
    ))
}
