//! Redundancy scheduling ([ARV22], the `redundancy` model of
//! [`crate::claims::systems::redundancy`]):
//!
//! | call | value | fields |
//! |---|---|---|
//! | `red_exact(P)` | E[T] of policy P, exponential i.i.d. copies of mean 1, exact: FCFS by its product form at two precisions, the others by the truncated chain (the two truncations are the two values) | `value`, `number` (E[N]), `class_response[i]`, `class_number[i]` |
//! | `red_sim(P, jobs=, replications=, seed=, warmup=)` | E[T] of P under the setup's law and copies, simulated (± 95 % half-width) | as `red_exact` |
//! | `red_sim_diff(P, vs=Q, …)` | E[T_P] − E[T_Q] with common random numbers (the same streams), the half-width of the paired difference over replications | `value` |
//! | `red_stability(P, method=exact\|simulated, horizon=, replications=, bisections=, seed=)` | the largest factor s on every λ_c at which P is stable: exact for FCFS with exponential i.i.d. copies (min over unions U of μ(U)/λ(U)), otherwise the simulated drift test's bracket, its midpoint ± half its width | `value`, `lower`, `upper` |
//!
//! P and Q are `fcfs`, `ros`, `lrf-fcfs`, `mrf-fcfs`, `lrf-ros`, `mrf-ros`; the setup's
//! `preemptive` applies to the class-priority policies.

use crate::claims::expr::{Arg, Expr};
use crate::claims::registry::{
    CacheKey, Call, FieldSpec, NamedArg, Positional, Quantity, QuantityError, Signature, VALUE_ONLY,
};
use crate::claims::systems::redundancy::{RedundancyPoint, RedundancySpec};
use crate::claims::value::{Pair, Value};
use crate::dist::DistSpec;
use crate::num::certify::Certify;
use crate::redundancy::ctmc;
use crate::redundancy::policy::{Copies, Policy, POLICY_NAMES};
use crate::redundancy::product_form::fcfs_means;
use crate::redundancy::sim::{simulate, DriftVerdict, SimRequest};
use crate::redundancy::stability::{estimate_scale_limit, fcfs_region, EstimateOptions};
use crate::redundancy::RedundancyError;
use crate::sim::observe::{names, Key};
use crate::sim::stats::paired_difference;
use crate::sim::{
    DEFAULT_REPLICATIONS, DEFAULT_WARMUP_FRACTION, MAX_REPLICATIONS, MIN_REPLICATIONS,
};

/// Significant digits at which a claim asks a chain (every policy but FCFS) for its
/// values: the truncation grows until its blocking probability is below 10^−(this + 2)
/// and is then doubled; the two truncations' values are the value's two precisions, so
/// their difference is the uncertainty a verdict allows for. More digits cost chains of
/// millions of states for no change of any verdict of the catalogue.
pub const CLAIM_CHAIN_DIGITS: u32 = 4;
/// Measured jobs per replication of a redundancy simulation unless `jobs=` says otherwise.
pub const DEFAULT_RED_JOBS: u64 = 100_000;
/// Base seed of a redundancy simulation unless `seed=` says otherwise.
pub const DEFAULT_RED_SEED: u64 = 1;
/// The sweep-point coordinate of every redundancy simulation's streams: the grid points
/// and the policies of a claim share the streams (seed, 0, replication) — common random
/// numbers.
pub const RED_SIM_POINT: u64 = 0;
/// Arrivals per replication of the drift test unless `horizon=` says otherwise.
pub const DEFAULT_RED_HORIZON: u64 = 100_000;
/// Replications per scale of the drift test unless `replications=` says otherwise.
pub const DEFAULT_RED_DRIFT_REPLICATIONS: usize = 4;
/// Bisection steps of the drift test unless `bisections=` says otherwise.
pub const DEFAULT_RED_BISECTIONS: usize = 6;

const POLICY_WORD: Positional = Positional::Word {
    what: "policy",
    choices: POLICY_NAMES,
};

const SIM_FIELDS: &[FieldSpec] = &[
    FieldSpec::scalar("value"),
    FieldSpec::scalar("number"),
    FieldSpec::vector("class_response"),
    FieldSpec::vector("class_number"),
];

/// `red_sim_diff`'s arguments: the simulation options, then `vs=`.
const DIFF_ARGS: &[NamedArg] = &[
    NamedArg {
        name: "jobs",
        words: &[],
    },
    NamedArg {
        name: "replications",
        words: &[],
    },
    NamedArg {
        name: "seed",
        words: &[],
    },
    NamedArg {
        name: "warmup",
        words: &[],
    },
    NamedArg {
        name: "vs",
        words: POLICY_NAMES,
    },
];
/// The options of a redundancy simulation.
const SIM_ARGS: &[NamedArg] = DIFF_ARGS.split_at(4).0;

/// The words `method=` takes.
const METHOD_WORDS: &[&str] = &["exact", "simulated"];

const STABILITY_ARGS: &[NamedArg] = &[
    NamedArg {
        name: "method",
        words: METHOD_WORDS,
    },
    NamedArg {
        name: "horizon",
        words: &[],
    },
    NamedArg {
        name: "replications",
        words: &[],
    },
    NamedArg {
        name: "bisections",
        words: &[],
    },
    NamedArg {
        name: "seed",
        words: &[],
    },
];

fn red_err(what: String) -> impl FnOnce(RedundancyError) -> QuantityError {
    move |e| QuantityError::compute(what, e)
}

/// The policy named by positional word `i` (the setup's preemption applied).
fn policy_of(call: &Call, p: &RedundancyPoint) -> Result<Policy, QuantityError> {
    let w = call.word(0)?;
    Policy::parse(&w, p.preemptive).map_err(|e| QuantityError::Usage(e.to_string()))
}

/// A count option `key=` at least `min`, or `default`.
fn count(call: &Call, key: &str, min: i64, default: u64) -> Result<u64, QuantityError> {
    match call.named_number(key)? {
        None => Ok(default),
        Some(v) if v >= min => Ok(v as u64),
        Some(v) => Err(QuantityError::Usage(format!(
            "{key}= must be at least {min}, got {v}"
        ))),
    }
}

/// A replication count option.
fn replications(call: &Call, default: usize) -> Result<usize, QuantityError> {
    let r = count(
        call,
        "replications",
        MIN_REPLICATIONS as i64,
        default as u64,
    )?;
    if r > MAX_REPLICATIONS as u64 {
        return Err(QuantityError::Usage(format!(
            "replications= must be at most {MAX_REPLICATIONS}, got {r}"
        )));
    }
    Ok(r as usize)
}

/// Options of one simulation.
#[derive(Debug, Clone, Copy)]
struct SimOpts {
    jobs: u64,
    replications: usize,
    seed: u64,
    warmup: u64,
}

impl SimOpts {
    fn of(call: &Call) -> Result<SimOpts, QuantityError> {
        let jobs = count(call, "jobs", 1, DEFAULT_RED_JOBS)?;
        Ok(SimOpts {
            jobs,
            replications: replications(call, DEFAULT_REPLICATIONS)?,
            seed: count(call, "seed", 0, DEFAULT_RED_SEED)?,
            warmup: count(call, "warmup", 0, jobs / DEFAULT_WARMUP_FRACTION)?,
        })
    }
    fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.jobs, self.replications, self.seed, self.warmup
        )
    }
    fn flags(&self) -> String {
        format!(
            "--jobs {} --replications {} --seed {}",
            self.jobs, self.replications, self.seed
        )
    }
}

/// The system must be stable under FCFS's (the largest) region for an exact value.
fn need_stable(p: &RedundancyPoint, what: &str) -> Result<(), QuantityError> {
    let r = fcfs_region(&p.sys, crate::num::working_bits(crate::num::DEFAULT_DIGITS))
        .map_err(red_err(what.to_string()))?;
    if r.stable() {
        Ok(())
    } else {
        Err(QuantityError::Undefined(format!(
            "{what}: unstable (classes {} overload servers {})",
            p.sys.describe(&r.binding_classes),
            r.binding_union
        )))
    }
}

/// `red_exact(P)`.
pub struct RedExact;

static RED_EXACT: Signature = Signature {
    name: "red_exact",
    model: Some("redundancy"),
    positional: POLICY_WORD,
    named: &[],
    fields: SIM_FIELDS,
    default_field: "value",
    summary: "E[T] of a redundancy policy, exponential i.i.d. copies, exact (product form or truncated chain)",
};

/// The exact values at the two precisions: (E[T], E[N], E[T_c], E[N_c]).
type ExactPairs = (Pair, Pair, Vec<Pair>, Vec<Pair>);

impl Quantity for RedExact {
    fn signature(&self) -> &'static Signature {
        &RED_EXACT
    }

    /// FCFS (no class priority): the product form at the claim's two precisions. Every
    /// other policy: [`ctmc::solve`] at [`CLAIM_CHAIN_DIGITS`], whose two truncations are
    /// the value's two "precisions". The setup's `dist` and `copies` are not read: the exact
    /// methods are for exponential i.i.d. copies of mean 1.
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let scope = &call.scope;
        let p = RedundancySpec::resolve(scope)?;
        let policy = policy_of(call, &p)?;
        let what = format!(
            "redundancy exact {} --policy {}{}",
            p.system,
            policy.name(),
            if policy.preemptive {
                " --preemptive"
            } else {
                ""
            }
        );
        let key = CacheKey::new(
            "red_exact",
            format!("{}|{}|{}", p.system, policy.name(), policy.preemptive),
        );
        if p.copies != Copies::Iid || !is_exponential(&p.dist) {
            return Err(QuantityError::Usage(format!(
                "red_exact is for exponential i.i.d. copies of mean 1 (dist='exp:rate=1', copies=iid); the point has {} copies of {}: use red_sim, or override dist= and copies=",
                p.copies.name(),
                p.dist
            )));
        }
        let bits = scope.bits;
        let digits = scope.digits;
        let r = scope
            .cache
            .get_or(key, || -> Result<ExactPairs, QuantityError> {
                need_stable(&p, &what)?;
                if policy.has_product_form() {
                    let both = Certify::digits(digits)
                        .run(|b| fcfs_means(&p.sys, b))
                        .map_err(red_err(what.clone()))?;
                    let v = |a: &[rug::Float], b: &[rug::Float]| -> Vec<Pair> {
                        a.iter()
                            .zip(b)
                            .map(|(x, y)| Pair::new(x.clone(), y.clone()))
                            .collect()
                    };
                    return Ok((
                        Pair::new(
                            both.lo.total_response.clone(),
                            both.hi.total_response.clone(),
                        ),
                        Pair::new(both.lo.total_number.clone(), both.hi.total_number.clone()),
                        v(&both.lo.response, &both.hi.response),
                        v(&both.lo.number, &both.hi.number),
                    ));
                }
                let c = ctmc::solve(&p.sys, policy, CLAIM_CHAIN_DIGITS, None)
                    .map_err(red_err(what.clone()))?;
                let two = |a: f64, b: f64| {
                    Pair::new(
                        rug::Float::with_val(bits.0, a),
                        rug::Float::with_val(bits.1, b),
                    )
                };
                let v = |a: &[f64], b: &[f64]| -> Vec<Pair> {
                    a.iter().zip(b).map(|(x, y)| two(*x, *y)).collect()
                };
                Ok((
                    two(c.coarse.total_response, c.fine.total_response),
                    two(c.coarse.total_number, c.fine.total_number),
                    v(&c.coarse.response, &c.fine.response),
                    v(&c.coarse.number, &c.fine.number),
                ))
            })?;
        let (t, n, tc, nc) = r.as_ref();
        Ok(Value::new("red_exact", "value")
            .with("value", t.clone())
            .with("number", n.clone())
            .with_vec("class_response", tc.clone())
            .with_vec("class_number", nc.clone()))
    }
}

/// One simulation of a redundancy point, cached.
fn simulated(
    call: &Call,
    p: &RedundancyPoint,
    policy: Policy,
    opts: SimOpts,
) -> Result<std::sync::Arc<crate::redundancy::sim::SimReport>, QuantityError> {
    let key = CacheKey::new(
        "red_sim",
        format!(
            "{}|{}|{}|{}",
            p.key(),
            policy.name(),
            policy.preemptive,
            opts.key()
        ),
    );
    let what = format!(
        "redundancy simulate {} --policy {} {}",
        p.flags(),
        policy.name(),
        opts.flags()
    );
    call.scope.cache.get_or(key, || {
        let dist = DistSpec::parse(&p.dist)?;
        let req = SimRequest {
            sys: &p.sys,
            policy,
            copies: p.copies,
            dist: &dist,
            jobs: opts.jobs,
            warmup: opts.warmup,
            replications: opts.replications,
            seed: opts.seed,
            point: RED_SIM_POINT,
            threads: None,
        };
        let r = simulate(&req, None).map_err(red_err(what.clone()))?;
        if DriftVerdict::of(&r.drift) == DriftVerdict::Unstable {
            return Err(QuantityError::Undefined(format!(
                "{what}: unstable (the number in system drifts up by {:.2e} ± {:.1e} per arrival)",
                r.drift.mean, r.drift.half_width
            )));
        }
        Ok(r)
    })
}

/// `red_sim(P, …)`.
pub struct RedSim;

static RED_SIM: Signature = Signature {
    name: "red_sim",
    model: Some("redundancy"),
    positional: POLICY_WORD,
    named: SIM_ARGS,
    fields: SIM_FIELDS,
    default_field: "value",
    summary: "E[T] of a redundancy policy under the setup's law and copies, simulated (mean ± 95 % half-width)",
};

impl Quantity for RedSim {
    fn signature(&self) -> &'static Signature {
        &RED_SIM
    }

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = RedundancySpec::resolve(&call.scope)?;
        let policy = policy_of(call, &p)?;
        let opts = SimOpts::of(call)?;
        let r = simulated(call, &p, policy, opts)?;
        let bits = call.scope.bits;
        let warnings = r.run.heavy_tail.describe();
        let source = format!(
            "{} {}, {} copies, {} simulated ({} replications x {} jobs, seed {})",
            p.system,
            policy.name(),
            p.copies.name(),
            p.dist,
            opts.replications,
            opts.jobs,
            opts.seed
        );
        let pair = |key: Key| -> Result<Pair, String> {
            match r.run.estimates.get(key) {
                Some(e) if e.mean.is_finite() => Ok(Pair::simulated(
                    bits,
                    e.mean,
                    e.half_width,
                    warnings.clone(),
                    source.clone(),
                )),
                _ => Err(format!("{source}: no finite estimate")),
            }
        };
        let v = Value::new("red_sim", "value");
        let v = match pair(Key::scalar(names::RESPONSE)) {
            Ok(x) => v.with("value", x),
            Err(e) => v.missing("value", e),
        };
        let v = match pair(Key::scalar(names::NUMBER)) {
            Ok(x) => v.with("number", x),
            Err(e) => v.missing("number", e),
        };
        let classes = p.sys.classes().len();
        let per = |name: &'static str| -> Result<Vec<Pair>, String> {
            (0..classes).map(|c| pair(Key::at(name, c))).collect()
        };
        let v = match per(names::RESPONSE) {
            Ok(x) => v.with_vec("class_response", x),
            Err(e) => v.missing("class_response", e),
        };
        Ok(match per(names::NUMBER) {
            Ok(x) => v.with_vec("class_number", x),
            Err(e) => v.missing("class_number", e),
        })
    }
}

/// `red_sim_diff(P, vs=Q, …)`.
pub struct RedSimDiff;

static RED_SIM_DIFF: Signature = Signature {
    name: "red_sim_diff",
    model: Some("redundancy"),
    positional: POLICY_WORD,
    named: DIFF_ARGS,
    fields: VALUE_ONLY,
    default_field: "value",
    summary: "E[T_P] - E[T_Q] simulated with common random numbers (paired 95 % half-width)",
};

impl Quantity for RedSimDiff {
    fn signature(&self) -> &'static Signature {
        &RED_SIM_DIFF
    }

    /// Both policies run on the same streams (seed, [`RED_SIM_POINT`], replication): the
    /// replications are paired and the half-width is that of the differences
    /// ([`paired_difference`]), much narrower than the sum of the two half-widths when the
    /// policies respond alike to the same arrivals and sizes.
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = RedundancySpec::resolve(&call.scope)?;
        let a = policy_of(call, &p)?;
        let b = match call.named("vs") {
            Some(Arg::Pos(Expr::Var(w))) | Some(Arg::Str(w)) => {
                Policy::parse(w, p.preemptive).map_err(|e| QuantityError::Usage(e.to_string()))?
            }
            _ => {
                return Err(QuantityError::Usage(
                    "red_sim_diff(P, vs=Q): give the other policy as vs=".into(),
                ))
            }
        };
        let opts = SimOpts::of(call)?;
        let ra = simulated(call, &p, a, opts)?;
        let rb = simulated(call, &p, b, opts)?;
        let key = Key::scalar(names::RESPONSE);
        let (Some(sa), Some(sb)) = (ra.run.samples(key), rb.run.samples(key)) else {
            return Err(QuantityError::Internal(
                "the redundancy simulator has no response observable".into(),
            ));
        };
        let d = paired_difference(&sa, &sb);
        if !d.mean.is_finite() {
            return Err(QuantityError::Undefined(format!(
                "{} - {}: no finite estimate",
                a.name(),
                b.name()
            )));
        }
        let mut warnings = ra.run.heavy_tail.describe();
        warnings.extend(rb.run.heavy_tail.describe());
        Ok(Value::scalar(
            "red_sim_diff",
            Pair::simulated(
                call.scope.bits,
                d.mean,
                d.half_width,
                warnings,
                format!(
                    "{} E[T] {} - {}, {} copies, {}, common random numbers ({} paired replications x {} jobs, seed {})",
                    p.system,
                    a.name(),
                    b.name(),
                    p.copies.name(),
                    p.dist,
                    opts.replications,
                    opts.jobs,
                    opts.seed
                ),
            ),
        ))
    }
}

/// `red_stability(P, …)`.
pub struct RedStability;

static RED_STABILITY: Signature = Signature {
    name: "red_stability",
    model: Some("redundancy"),
    positional: POLICY_WORD,
    named: STABILITY_ARGS,
    fields: &[
        FieldSpec::scalar("value"),
        FieldSpec::scalar("lower"),
        FieldSpec::scalar("upper"),
    ],
    default_field: "value",
    summary: "largest factor on the arrival rates at which a redundancy policy is stable (exact for FCFS, exp. i.i.d.; else simulated)",
};

/// The stability limit: (value, lower, upper).
type Limits = (Pair, Pair, Pair);

impl Quantity for RedStability {
    fn signature(&self) -> &'static Signature {
        &RED_STABILITY
    }

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = RedundancySpec::resolve(&call.scope)?;
        let policy = policy_of(call, &p)?;
        let exp_iid = p.copies == Copies::Iid && is_exponential(&p.dist);
        let fcfs = policy.has_product_form();
        let method = match call.named("method") {
            None => {
                if fcfs && exp_iid {
                    "exact"
                } else {
                    "simulated"
                }
            }
            Some(Arg::Pos(Expr::Var(w))) if METHOD_WORDS.contains(&w.as_str()) => w.as_str(),
            Some(other) => {
                return Err(QuantityError::Usage(format!(
                    "method={other}: give exact or simulated"
                )))
            }
        };
        let bits = call.scope.bits;
        if method == "exact" {
            if !(fcfs && exp_iid) {
                return Err(QuantityError::Usage(format!(
                    "red_stability({}, method=exact): the exact region is FCFS's with exponential i.i.d. copies (got {}, {} copies, {})",
                    policy.name(),
                    policy.name(),
                    p.copies.name(),
                    p.dist
                )));
            }
            let what = format!("redundancy stability {} --policy fcfs", p.flags());
            let both = Certify::digits(call.scope.digits)
                .run(|b| fcfs_region(&p.sys, b).map(|r| r.scale_limit))
                .map_err(red_err(what))?;
            let v = Pair::new(both.lo, both.hi);
            return Ok(Value::new("red_stability", "value")
                .with("value", v.clone())
                .with("lower", v.clone())
                .with("upper", v));
        }
        let opts = EstimateOptions {
            horizon: count(call, "horizon", 1000, DEFAULT_RED_HORIZON)?,
            replications: replications(call, DEFAULT_RED_DRIFT_REPLICATIONS)?,
            seed: count(call, "seed", 0, DEFAULT_RED_SEED)?,
            bisections: count(call, "bisections", 0, DEFAULT_RED_BISECTIONS as u64)? as usize,
            threads: None,
        };
        let what = format!(
            "redundancy stability {} --policy {}",
            p.flags(),
            policy.name()
        );
        let key = CacheKey::new(
            "red_stability",
            format!(
                "{}|{}|{}|{:?}",
                p.key(),
                policy.name(),
                policy.preemptive,
                opts
            ),
        );
        let r = call.scope.cache.get_or(key, || -> Result<Limits, QuantityError> {
            let dist = DistSpec::parse(&p.dist)?;
            let e = estimate_scale_limit(&p.sys, policy, p.copies, &dist, &opts)
                .map_err(red_err(what.clone()))?;
            let (Some(lo), Some(hi)) = (e.stable_up_to, e.unstable_from) else {
                return Err(QuantityError::Undefined(format!(
                    "{what}: the drift test found no bracket (stable up to {:?}, unstable from {:?})",
                    e.stable_up_to, e.unstable_from
                )));
            };
            let source = format!(
                "{} {} stability limit by the drift test: stable at {lo:.4}, unstable at {hi:.4} ({} replications x {} arrivals per scale, seed {}{})",
                p.system,
                policy.name(),
                opts.replications,
                opts.horizon,
                opts.seed,
                if e.stopped_inconclusive {
                    "; stopped at an undecided midpoint"
                } else {
                    ""
                }
            );
            let mid = 0.5 * (lo + hi);
            let half = 0.5 * (hi - lo);
            Ok((
                Pair::simulated(bits, mid, half, Vec::new(), source.clone()),
                Pair::simulated(bits, lo, 0.0, Vec::new(), source.clone()),
                Pair::simulated(bits, hi, 0.0, Vec::new(), source),
            ))
        })?;
        let (v, lo, hi) = r.as_ref();
        Ok(Value::new("red_stability", "value")
            .with("value", v.clone())
            .with("lower", lo.clone())
            .with("upper", hi.clone()))
    }
}

/// Whether `spec` is the exponential law of mean 1 of the exact methods.
fn is_exponential(spec: &str) -> bool {
    spec.split_whitespace().collect::<String>() == crate::claims::systems::redundancy::DEFAULT_DIST
}
