//! The simulation options of a claim quantity, read into the one
//! [`crate::sim::RunOptions`] every model's runner takes: `jobs=` (the simulators that
//! count jobs) or `time=` (JSQ(d(N))), `warmup=` (default: a tenth of the length),
//! `replications=` and `seed=`, over the model's defaults (the same as the command
//! line's), checked by [`RunOptions::validate`]. Every grid point of a claim runs at sweep
//! point 0 (common random numbers across the grid); another `seed=` is an independent run.

use crate::claims::error::QuantityError;
use crate::claims::expr::Arg;
use crate::claims::scope::Call;
use crate::claims::signature::NamedArg;
use crate::num::parse_decimal;
use crate::sim::warmup::WarmupRule;
use crate::sim::{Length, LengthRule, RunOptions, DEFAULT_WARMUP_FRACTION};

const fn arg(name: &'static str) -> NamedArg {
    NamedArg { name, words: &[] }
}

/// The options of a simulation that counts jobs: `jobs=`, `replications=`, `seed=`,
/// `warmup=`.
pub const JOBS_ARGS: [NamedArg; 4] = [arg("jobs"), arg("replications"), arg("seed"), arg("warmup")];

/// The options of a simulation that runs for a time: `time=`, `warmup=`,
/// `replications=`, `seed=`.
pub const TIME_ARGS: [NamedArg; 4] = [arg("time"), arg("warmup"), arg("replications"), arg("seed")];

/// A named argument as a real number (an expression or a string), in the caller's scope.
pub fn named_real(call: &Call, key: &str) -> Result<Option<f64>, QuantityError> {
    match call.named(key) {
        None => Ok(None),
        Some(Arg::Pos(e)) => Ok(Some(call.outer.eval(e)?.hi.to_f64())),
        Some(Arg::Str(t)) => {
            let t = call.outer.substitute(t)?;
            Ok(Some(
                parse_decimal(&t, 64)
                    .map_err(|e| QuantityError::Usage(format!("{key}={t}: {e}")))?
                    .to_f64(),
            ))
        }
        Some(Arg::Named(..)) => Err(QuantityError::Usage(format!("nested '=' in {key}="))),
    }
}

/// A named argument as a finite real ≥ 0 (> 0 when `positive`).
pub fn named_time(call: &Call, key: &str, positive: bool) -> Result<Option<f64>, QuantityError> {
    match named_real(call, key)? {
        None => Ok(None),
        Some(v) if v.is_finite() && v >= 0.0 && (!positive || v > 0.0) => Ok(Some(v)),
        Some(v) => Err(QuantityError::Usage(format!(
            "{key}= must be finite and {}, got {v}",
            if positive { "> 0" } else { ">= 0" }
        ))),
    }
}

/// A named argument as a count (a whole number ≥ 0).
pub fn named_count(call: &Call, key: &str) -> Result<Option<u64>, QuantityError> {
    match call.named_number(key)? {
        None => Ok(None),
        Some(v) => u64::try_from(v)
            .map(Some)
            .map_err(|_| QuantityError::Usage(format!("{key}= must be >= 0, got {v}"))),
    }
}

/// The run options of `call` over `defaults`: the length its kind counts (`jobs=` or
/// `time=`), `warmup=` (default: the length over [`DEFAULT_WARMUP_FRACTION`]),
/// `replications=`, `seed=`; checked by [`RunOptions::validate`].
pub fn run_options(call: &Call, defaults: RunOptions) -> Result<RunOptions, QuantityError> {
    let length = match defaults.length {
        Length::Jobs { measured, .. } => {
            let jobs = named_count(call, "jobs")?.unwrap_or(measured);
            Length::Jobs {
                measured: jobs,
                warmup: named_count(call, "warmup")?.unwrap_or(jobs / DEFAULT_WARMUP_FRACTION),
            }
        }
        Length::Time { measured, .. } => {
            let time = named_real(call, "time")?.unwrap_or(measured);
            Length::Time {
                measured: time,
                warmup: named_real(call, "warmup")?
                    .unwrap_or(time / DEFAULT_WARMUP_FRACTION as f64),
            }
        }
    };
    let replications = match named_count(call, "replications")? {
        None => defaults.replications,
        Some(r) => usize::try_from(r).unwrap_or(usize::MAX),
    };
    // A warm-up given is used as given; the default one is extended by MSER-5 where it
    // finds it too short (as on the command line).
    let warmup_rule = if call.named("warmup").is_some() {
        WarmupRule::Given
    } else {
        defaults.warmup_rule
    };
    // A time (jobs) given is run as given; the default one follows the defaults' length
    // rule (JSQ: lengthened to the relaxation time; dispatch and redundancy: by the
    // fourth-moment heavy-tail rule), its warm-up following it unless given.
    let length_rule = match defaults.length_rule {
        LengthRule::Relaxation { .. } if call.named("time").is_none() => LengthRule::Relaxation {
            warmup_follows: call.named("warmup").is_none(),
        },
        LengthRule::HeavyTail { .. } if call.named("jobs").is_none() => LengthRule::HeavyTail {
            warmup_follows: call.named("warmup").is_none(),
        },
        _ => LengthRule::Given,
    };
    let opts = RunOptions {
        length,
        replications,
        seed: named_count(call, "seed")?.unwrap_or(defaults.seed),
        warmup_rule,
        length_rule,
        ..defaults
    };
    opts.validate()
        .map_err(|e| QuantityError::Usage(e.to_string()))?;
    Ok(opts)
}

/// (measured, warm-up) jobs of options read by [`run_options`] over the defaults of a
/// simulator that counts jobs (`model` names it).
pub fn job_counts(o: &RunOptions, model: &str) -> Result<(u64, u64), QuantityError> {
    o.jobs(model)
        .map_err(|e| QuantityError::Internal(e.to_string()))
}
