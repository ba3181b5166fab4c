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

use super::run::{job_counts, named_count, run_options, JOBS_ARGS};
use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::expr::{Arg, Expr};
use crate::claims::proof::Proof;
use crate::claims::registry::{Quantity, SIMULATED};
use crate::claims::scope::Call;
use crate::claims::signature::{FieldSpec, NamedArg, Positional, Signature, VALUE_ONLY};
use crate::claims::systems::redundancy::{RedundancyPoint, RedundancySpec};
use crate::claims::value::{Pair, Value};
use crate::dist::DistSpec;
use crate::num::interval::Interval;
use crate::redundancy::ctmc::ProvenValue;
use crate::redundancy::ctmc::CHAIN_MAX_DIGITS;
use crate::redundancy::exact::{exact_methods_apply, solve, Solution};
use crate::redundancy::policy::{Policy, POLICY_NAMES};
use crate::redundancy::run::{simulate, RedundancySimRequest, SimReport, DEFAULT_RUN};
use crate::redundancy::stability::{
    estimate_scale_limit, fcfs_region, fcfs_scale_limit_enclosed, region_at_both, DriftVerdict,
    EstimateOptions,
};
use crate::redundancy::{fcfs_means_enclosed, RedundancyError};
use crate::sim::observe::{names, Key};
use crate::sim::stats::paired_difference;
use crate::sim::warmup::Knobs;
use crate::sim::{Length, RunOptions};

/// The fewest significant digits a claim asks a chain (every policy but FCFS) for, and the
/// digits it falls back to when the chain cannot reach more ([`claim_chain_digits`]).
pub const CLAIM_CHAIN_DIGITS: u32 = 6;
/// Digits a claim asks a chain for beyond the claim's own `digits`: a claim's quantity is
/// often a difference of nearby means (`red_exact(lrf-ros) - red_exact(lrf-fcfs)` is
/// 3e-3 of either term), and the difference keeps only the digits of its terms that do
/// not cancel.
pub const CLAIM_CANCELLATION_DIGITS: u32 = 4;

/// The digits a claim of `digits` significant digits asks a chain for: `digits` +
/// [`CLAIM_CANCELLATION_DIGITS`], at least [`CLAIM_CHAIN_DIGITS`] and at most
/// [`CHAIN_MAX_DIGITS`]. The chain's two truncations are compared to these digits (the
/// larger one's boundary carries below 10^−(these + 2)), and the two truncations' values
/// are the value's two "precisions", so their difference is the uncertainty a verdict
/// allows for. With 6 digits whatever the claim asked, the weighted-simplex truncation
/// delivers just those 6 (the caps it replaced delivered 9–10 by accident), and
/// `redundancy-nbu-ros`'s difference of two means 2.3 apart by 7.5e-3 kept 4 digits.
pub fn claim_chain_digits(digits: u32) -> u32 {
    (digits + CLAIM_CANCELLATION_DIGITS).clamp(CLAIM_CHAIN_DIGITS, CHAIN_MAX_DIGITS)
}
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
    JOBS_ARGS[0],
    JOBS_ARGS[1],
    JOBS_ARGS[2],
    JOBS_ARGS[3],
    NamedArg {
        name: "vs",
        words: POLICY_NAMES,
    },
];
/// The options of a redundancy simulation.
const SIM_ARGS: &[NamedArg] = &JOBS_ARGS;

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
fn count(call: &Call, key: &str, min: u64, default: u64) -> Result<u64, QuantityError> {
    match named_count(call, key)? {
        None => Ok(default),
        Some(v) if v >= min => Ok(v),
        Some(v) => Err(QuantityError::Usage(format!(
            "{key}= must be at least {min}, got {v}"
        ))),
    }
}

/// The options as `redundancy simulate` flags.
fn flags(o: &RunOptions) -> Result<String, QuantityError> {
    let (jobs, _) = job_counts(o, "redundancy")?;
    // The default length is left to the command's own rule (given jobs run as given).
    let jobs = match o.length_rule {
        crate::sim::LengthRule::HeavyTail { .. } => String::new(),
        _ => format!("--jobs {jobs} "),
    };
    Ok(format!(
        "{jobs}--replications {} --seed {}",
        o.replications, o.seed
    ))
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
    declared!(RED_EXACT, unproven: "is not enclosed here");

    /// FCFS (no class priority): the product form at the claim's two precisions. Every
    /// other policy: [`ctmc::solve`] at [`claim_chain_digits`] of the claim's digits, whose two truncations are
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
            format!(
                "{}|{}|{}|{}",
                p.system,
                policy.name(),
                policy.preemptive,
                scope.digits
            ),
        );
        let law = DistSpec::parse(&p.dist)?;
        if !exact_methods_apply(&law, p.copies).map_err(red_err(what.clone()))? {
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
                // The digits the claim needs, else the fewest a claim takes: a chain too
                // large for the first may still settle the second.
                let chain = claim_chain_digits(digits);
                let solved = match solve(&p.sys, policy, digits, chain) {
                    Err(RedundancyError::Numerical(_)) if chain > CLAIM_CHAIN_DIGITS => {
                        solve(&p.sys, policy, digits, CLAIM_CHAIN_DIGITS)
                    }
                    other => other,
                };
                let c = match solved.map_err(red_err(what.clone()))? {
                    Solution::ProductForm(both) => {
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
                    Solution::Certified(c) => {
                        // The enclosure's ends: the digits on which they agree are the ones
                        // every point of the enclosure rounds to.
                        let ends = |v: &ProvenValue| {
                            Pair::new(
                                rug::Float::with_val(bits.0, v.enclosure.lo()),
                                rug::Float::with_val(bits.1, v.enclosure.hi()),
                            )
                        };
                        return Ok((
                            ends(&c.total_response),
                            ends(&c.total_number),
                            c.response.iter().map(ends).collect(),
                            c.number.iter().map(ends).collect(),
                        ));
                    }
                    Solution::Chain(c, _) => c,
                };
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
        let v = Value::new("red_exact", "value")
            .with("value", t.clone())
            .with("number", n.clone())
            .with_vec("class_response", tc.clone())
            .with_vec("class_number", nc.clone());
        if !scope.rigorous {
            return Ok(v);
        }
        if !policy.has_product_form() {
            return Ok(v.unproven_rest(&format!(
                "red_exact({}): a truncated Markov chain is never proven",
                policy.name()
            )));
        }
        // FCFS: the product form's closed-form phase sum on intervals (finite: nothing
        // truncated), the same routine `solve` took at the two precisions.
        let ebits = scope.enclosure_bits();
        let key = CacheKey::new("red_exact_enclosed", format!("{}|{ebits}", p.system));
        let e = scope.cache.get_or(key, || {
            Ok(
                crate::num::range::isolated(|| fcfs_means_enclosed(&p.sys, ebits))
                    .map_err(|e| format!("red_exact(fcfs): {e}")),
            )
        })?;
        Ok(match e.as_ref() {
            Err(why) => v.unproven_rest(why),
            Ok(m) => {
                let each = |xs: &[Interval]| xs.iter().cloned().map(Proof::enclosed).collect();
                v.prove("value", Proof::enclosed(m.total_response.clone()))
                    .prove("number", Proof::enclosed(m.total_number.clone()))
                    .prove_vec("class_response", each(&m.response))
                    .prove_vec("class_number", each(&m.number))
            }
        })
    }
}

/// The measured jobs per replication a simulation ran (after the fourth-moment length
/// rule).
fn ran_jobs(r: &SimReport) -> u64 {
    match r.length {
        Length::Jobs { measured, .. } => measured,
        Length::Time { .. } => 0,
    }
}

/// `", lengthened from N by the fourth-moment rule"` when the rule lengthened the run.
fn lengthened_note(r: &SimReport) -> String {
    if r.tail.lengthened() {
        format!(
            ", lengthened from {} by the fourth-moment heavy-tail rule",
            r.tail.requested
        )
    } else {
        String::new()
    }
}

/// One simulation of a redundancy point, cached.
fn simulated(
    call: &Call,
    p: &RedundancyPoint,
    policy: Policy,
    opts: RunOptions,
) -> Result<std::sync::Arc<SimReport>, QuantityError> {
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
        flags(&opts)?
    );
    call.scope.cache.get_or(key, || {
        let dist = DistSpec::parse(&p.dist)?;
        let req = RedundancySimRequest {
            sys: &p.sys,
            policy,
            copies: p.copies,
            dist: &dist,
            run: opts,
        };
        let r = simulate(&req, None).map_err(red_err(what.clone()))?;
        if let Some(why) = &r.starved {
            return Err(QuantityError::Undefined(format!(
                "{what}: unstable ({why})"
            )));
        }
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
    declared!(RED_SIM, unproven: SIMULATED);

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = RedundancySpec::resolve(&call.scope)?;
        let policy = policy_of(call, &p)?;
        let opts = run_options(call, DEFAULT_RUN)?;
        let r = simulated(call, &p, policy, opts.clone())?;
        let jobs = ran_jobs(&r);
        let bits = call.scope.bits;
        let mut warnings = r.run.heavy_tail.describe();
        warnings.extend(r.diagnostics.failures(&Knobs::CLAIM_JOBS, jobs as f64));
        let source = format!(
            "{} {}, {} copies, {} simulated ({} replications x {} jobs{}, seed {})",
            p.system,
            policy.name(),
            p.copies.name(),
            p.dist,
            opts.replications,
            jobs,
            lengthened_note(&r),
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
    declared!(RED_SIM_DIFF, unproven: SIMULATED);

    /// Both policies run on the same streams (seed, 0, replication): the
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
        let opts = run_options(call, DEFAULT_RUN)?;
        let ra = simulated(call, &p, a, opts.clone())?;
        let rb = simulated(call, &p, b, opts.clone())?;
        let jobs = ran_jobs(&ra);
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
        for w in [&ra, &rb]
            .iter()
            .flat_map(|r| r.diagnostics.failures(&Knobs::CLAIM_JOBS, jobs as f64))
        {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        Ok(Value::scalar(
            "red_sim_diff",
            Pair::simulated(
                call.scope.bits,
                d.mean,
                d.half_width,
                warnings,
                format!(
                    "{} E[T] {} - {}, {} copies, {}, common random numbers ({} paired replications x {} jobs{}, seed {})",
                    p.system,
                    a.name(),
                    b.name(),
                    p.copies.name(),
                    p.dist,
                    opts.replications,
                    jobs,
                    lengthened_note(&ra),
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
    declared!(RED_STABILITY, unproven: "is a simulated drift test (every method but FCFS's exact region), not enclosed");

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = RedundancySpec::resolve(&call.scope)?;
        let policy = policy_of(call, &p)?;
        let exp_iid = exact_methods_apply(&DistSpec::parse(&p.dist)?, p.copies)
            .map_err(red_err(format!("redundancy stability {}", p.flags())))?;
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
            let both = region_at_both(&p.sys, call.scope.digits).map_err(red_err(what))?;
            let v = Pair::new(both.lo.scale_limit, both.hi.scale_limit);
            let v = Value::new("red_stability", "value")
                .with("value", v.clone())
                .with("lower", v.clone())
                .with("upper", v);
            if !call.scope.rigorous {
                return Ok(v);
            }
            // min over unions U of μ(U)/λ(U) on intervals: a finite closed form.
            let ebits = call.scope.enclosure_bits();
            return Ok(
                match crate::num::range::isolated(|| fcfs_scale_limit_enclosed(&p.sys, ebits)) {
                    Ok(e) => v
                        .prove("value", Proof::enclosed(e.clone()))
                        .prove("lower", Proof::enclosed(e.clone()))
                        .prove("upper", Proof::enclosed(e)),
                    Err(why) => v.unproven_rest(&format!("red_stability(fcfs): {why}")),
                },
            );
        }
        let defaults = EstimateOptions::default();
        let opts = EstimateOptions {
            horizon: count(call, "horizon", 0, defaults.horizon)?,
            replications: usize::try_from(count(
                call,
                "replications",
                0,
                defaults.replications as u64,
            )?)
            .unwrap_or(usize::MAX),
            seed: count(call, "seed", 0, defaults.seed)?,
            bisections: usize::try_from(count(call, "bisections", 0, defaults.bisections as u64)?)
                .unwrap_or(usize::MAX),
            threads: None,
        };
        opts.validate()
            .map_err(|e| QuantityError::Usage(e.to_string()))?;
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
