//! Quantities of size-based routing: optimal cutoffs (`opt`), a policy at given cutoffs
//! (`eval`), the TAGS stability threshold (`threshold`) and the existence of stable TAGS
//! cutoffs (`tags_stable`, `tags_stable_search`).
//!
//! | call | value | fields |
//! |---|---|---|
//! | `opt(P)` P ∈ sita, sita-e, tags, tags-minmax | the optimum's metric | `value`, `queueing`, `wasted`, `cutoff[i]`, `host_load[i]`, `host_waiting[i]`, `max_queue`, `idle_hosts`, `lambda`, `rho` |
//! | `eval(P, cutoffs=Q)` P ∈ sita, tags, random; Q an `opt` policy or `"c1,c2"` | the metric at those cutoffs | as `opt` but `max_queue`, `idle_hosts` |
//! | `threshold()` | ρ*(F, h) (h may be `inf`) | `load`, `lambda`, `cutoff[i]`, `argmax` |
//! | `tags_stable()` | 1 if stable TAGS cutoffs exist at the load (greedy), else 0 | |
//! | `tags_stable_search(n)` | the same decided by exhaustive search over an n-point grid | |

use super::shared::{pairs, per_precision};
use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::expr::{Arg, Expr};
use crate::claims::proof::Proof;
use crate::claims::registry::Quantity;
use crate::claims::scope::Call;
use crate::claims::scope::{Scope, COARSE_STAGES};
use crate::claims::signature::{FieldSpec, NamedArg, Positional, Signature, VALUE_ONLY};
use crate::claims::systems::dispatch::{load_flag, DispatchSpec, DispatchSystem};
use crate::claims::value::{Pair, Value};
use crate::dist::DistFactory;
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use crate::optimize::certified::OptimizeRequest;
use crate::optimize::proven::proven_from_start_to;
use crate::optimize::rigorous::{sita_e_enclosed, threshold_rigorous, RigorousThreshold};
use crate::optimize::threshold::{exhaustive_stable, greedy, tags_threshold, Threshold};
use crate::optimize::{optimal_cutoffs_pair, OptPolicy, Optimum};
use crate::policy::rigorous::{evaluate_enclosed, EnclosedEvaluation};
use crate::policy::{evaluate, Evaluation, PolicyKind};
use crate::vocab::{UnknownName, Vocabulary};
use rug::Float;
use std::sync::Arc;

/// Largest grid accepted by `tags_stable_search`.
pub const MAX_SEARCH_GRID: usize = 400;

/// The fields of a policy evaluated at cutoffs.
const EVAL_FIELDS: &[FieldSpec] = &[
    FieldSpec::scalar("value"),
    FieldSpec::scalar("queueing"),
    FieldSpec::scalar("wasted"),
    FieldSpec::vector("cutoff"),
    FieldSpec::vector("host_load"),
    FieldSpec::vector("host_waiting"),
    FieldSpec::scalar("lambda"),
    FieldSpec::scalar("rho"),
];
/// `opt`'s fields: [`EVAL_FIELDS`] and the optimum's own.
/// Its cutoffs are the h − 1 of the optimum (idle hosts' included), its host loads and
/// waiting times one a host.
const OPT_FIELDS: &[FieldSpec] = &[
    FieldSpec::scalar("value"),
    FieldSpec::scalar("queueing"),
    FieldSpec::scalar("wasted"),
    FieldSpec::per_host("cutoff", -1),
    FieldSpec::per_host("host_load", 0),
    FieldSpec::per_host("host_waiting", 0),
    FieldSpec::scalar("max_queue"),
    FieldSpec::scalar("idle_hosts"),
    FieldSpec::scalar("lambda"),
    FieldSpec::scalar("rho"),
];

/// The `opt` policy named `s`.
pub fn opt_policy(s: &str) -> Result<OptPolicy, QuantityError> {
    s.parse()
        .map_err(|e: UnknownName| QuantityError::Usage(e.within("for opt").to_string()))
}

/// An optimum at both precisions, with λ and ρ.
pub struct OptPair {
    /// At the working precision.
    pub lo: Optimum,
    /// At the certifying precision.
    pub hi: Optimum,
    /// λ.
    pub lambda: Pair,
    /// ρ.
    pub rho: Pair,
}

/// The optimum of `policy` for the system at `scope` (cached per claim).
pub fn opt_pair(scope: &Scope, policy: OptPolicy) -> Result<Arc<OptPair>, QuantityError> {
    let s = DispatchSpec::resolve(scope, true)?;
    let hosts = s.need_hosts("opt")?;
    let load = s.need_load("opt")?;
    let key = CacheKey::new(
        "opt",
        format!(
            "{}|{}|{hosts}|{load:?}|{}",
            policy.name(),
            s.dist,
            s.metric.name()
        ),
    );
    let bits = scope.bits;
    scope.cache.get_or(key, || {
        let spec = s.spec()?;
        let (a, b) =
            optimal_cutoffs_pair(&spec, &load, hosts, policy, s.metric, bits).map_err(|e| {
                QuantityError::compute(
                    format!(
                        "optimize --policy {} --dist {} --hosts {hosts} {}",
                        policy.name(),
                        s.dist,
                        load_flag(&load)
                    ),
                    e,
                )
            })?;
        let resolve = |bits: u32| -> Result<(Float, Float), QuantityError> {
            let d = spec.build(bits)?;
            Ok(load.resolve(d.as_ref(), hosts)?)
        };
        let (l1, r1) = resolve(bits.0)?;
        let (l2, r2) = resolve(bits.1)?;
        Ok(OptPair {
            lo: a,
            hi: b,
            lambda: Pair::new(l1, l2),
            rho: Pair::new(r1, r2),
        })
    })
}

/// The fields shared by `opt` and `eval`.
fn eval_value(name: &'static str, a: &Evaluation, b: &Evaluation, lam: &Pair, rho: &Pair) -> Value {
    let p = |x: &Float, y: &Float| Pair::new(x.clone(), y.clone());
    Value::new(name, "value")
        .with("value", p(&a.value, &b.value))
        .with("queueing", p(&a.queueing, &b.queueing))
        .with("wasted", p(&a.wasted, &b.wasted))
        .with("lambda", lam.clone())
        .with("rho", rho.clone())
        .with_field(
            "host_load",
            pairs(&a.host_loads, &b.host_loads, "host loads"),
        )
        .with_field(
            "host_waiting",
            pairs(&a.host_waiting, &b.host_waiting, "host waiting times"),
        )
}

/// `opt(P)`: the optimal cutoffs of policy P and the policy there.
pub struct Opt;

static OPT: Signature = Signature {
    name: "opt",
    model: Some("dispatch"),
    positional: Positional::Word {
        what: "policy",
        choices: OptPolicy::NAMES,
    },
    named: &[],
    fields: OPT_FIELDS,
    default_field: "value",
    summary: "the optimum's metric (global optimum over the cutoffs)",
};

impl Quantity for Opt {
    declared!(OPT);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        if call.pos.len() != 1 {
            return Err(QuantityError::Usage(
                "opt(POLICY, ...) takes one policy".into(),
            ));
        }
        let policy = opt_policy(&call.word(0)?)?;
        let r = opt_pair(&call.scope, policy)?;
        let (a, b) = (&r.lo, &r.hi);
        let v = eval_value("opt", &a.eval, &b.eval, &r.lambda, &r.rho)
            .with_opt(
                "max_queue",
                a.max_queue
                    .as_ref()
                    .zip(b.max_queue.as_ref())
                    .map(|(x, y)| Pair::new(x.clone(), y.clone())),
                "max_queue exists only for opt(tags-minmax)",
            )
            .with(
                "idle_hosts",
                Pair::exact(call.scope.bits, b.idle_hosts as i64),
            );
        let v = if a.cutoffs.len() != b.cutoffs.len() {
            v.missing(
                "cutoff",
                "the two precisions disagree on the number of cutoffs",
            )
        } else {
            v.with_field("cutoff", pairs(&a.cutoffs, &b.cutoffs, "cutoffs"))
        };
        if !call.scope.rigorous {
            return Ok(v);
        }
        // The proven optimum encloses the minimised objective: the metric for sita and
        // tags, the largest queue for tags-minmax. The cutoffs (and the values there) are
        // located by the search, not proven.
        let proof = crate::num::range::isolated(|| opt_proof(&call.scope, policy, &r));
        let field = match policy {
            OptPolicy::Sita | OptPolicy::Tags | OptPolicy::SitaE => "value",
            OptPolicy::TagsMinmax => "max_queue",
        };
        Ok(v.prove(field, proof)
            .prove("idle_hosts", Proof::unproven(LOCATED))
            .unproven_rest(LOCATED))
    }
}

/// Why the fields of an optimum other than its minimised objective are not proven.
const LOCATED: &str =
    "opt(): the optimum's cutoffs, and the values at them, are located by the search, not proven";

/// Boxes the proven optimum of a claim point may evaluate (the gap it reached bounds the
/// enclosure: a wider enclosure is still valid, it only decides fewer relations).
pub const OPT_PROVEN_BOXES: usize = 20_000;

/// Boxes the proven optimum may evaluate in each coarse stage of `check --rigorous`
/// ([`Scope::stage`]): most relations are decided by the enclosure the first gives (with
/// the gap closed to a few digits); a check left undecided is judged again at the next
/// stage, and at last with [`OPT_PROVEN_BOXES`] and the claim's digits. On
/// proofs-check/bd21/decentralized-qos-design (TAGS, BP α = 0.5) the relation h = 4
/// vs h = 5 needs the second stage; the others are decided by the first.
pub const OPT_COARSE_BOXES: [usize; COARSE_STAGES] = [250, 2_000];

/// The proven optimum's enclosure [value_lo, value_hi] of the global minimum (branch and
/// bound from the certified optimum's cutoffs), cached per claim.
fn opt_proof(scope: &Scope, policy: OptPolicy, r: &OptPair) -> Proof {
    let s = match DispatchSpec::resolve(scope, true) {
        Ok(s) => s,
        Err(e) => return Proof::unproven(e.to_string()),
    };
    let load_value = match s.load_value(scope) {
        Ok(v) => v,
        Err(why) => return Proof::unproven(why),
    };
    let (Some(hosts), Some(load)) = (s.hosts, s.load.clone()) else {
        return Proof::unproven("opt() needs finite hosts and a load");
    };
    // The gap is closed to the digits of the stage (few in the first stage of
    // `check --rigorous`, the claim's in the second); a run short of the claim's digits
    // that reached its gap says so to the scope (the check is judged again when undecided).
    let gap_digits = scope.proof_digits();
    let max_boxes = if scope.coarse.is_some() {
        OPT_COARSE_BOXES[scope.stage.min(COARSE_STAGES - 1)]
    } else {
        OPT_PROVEN_BOXES
    };
    let key = CacheKey::new(
        "opt-proven",
        format!(
            "{}|{}|{}|{gap_digits}|{max_boxes}",
            policy.name(),
            s.key(),
            scope.digits
        ),
    );
    let start = r.hi.cutoffs.clone();
    let got = scope
        .cache
        .get_or(key, || -> Result<(Proof, bool), QuantityError> {
            let spec = s.spec()?;
            match policy {
                OptPolicy::SitaE => {
                    // SITA-E's cutoffs enclosed as roots (equal loads), then the metric over
                    // them: it contains the metric at the exact cutoffs.
                    let bits = scope.enclosure_bits();
                    let run = || -> Result<Interval, String> {
                        let enc = spec.enclose(bits).map_err(|e| e.to_string())?;
                        let cuts = sita_e_enclosed(enc.as_ref(), hosts, &r.hi.cutoffs_free())
                            .map_err(|e| e.to_string())?;
                        let (lambda, _) = load
                            .resolve_enclosed_at(load_value.as_ref(), enc.as_ref(), hosts)
                            .map_err(|e| e.to_string())?;
                        let e = evaluate_enclosed(
                            PolicyKind::Sita,
                            enc.as_ref(),
                            &lambda,
                            hosts,
                            &cuts,
                            s.metric,
                        )
                        .map_err(|e| e.to_string())?;
                        Ok(e.value)
                    };
                    return Ok((
                        match run() {
                            Ok(i) => Proof::enclosed(i),
                            Err(e) => Proof::unproven(format!("opt(sita-e): {e}")),
                        },
                        false,
                    ));
                }
                OptPolicy::Sita | OptPolicy::Tags | OptPolicy::TagsMinmax => {}
            }
            let req = OptimizeRequest {
                policy,
                dist: &spec,
                hosts,
                load,
                metric: s.metric,
                digits: scope.digits,
            };
            Ok(
                match proven_from_start_to(&req, &start, max_boxes, load_value.as_ref(), gap_digits)
                {
                    // Stopped at the stage's gap short of the claim's digits, or at the
                    // stage's box limit below the full one: the second stage could narrow
                    // it (the same boxes come first at any gap and limit).
                    Ok(p) => (
                        Proof::enclosed(Interval::new(p.value_lo, p.value_hi)),
                        if p.closed {
                            gap_digits < scope.digits
                        } else {
                            max_boxes < OPT_PROVEN_BOXES
                        },
                    ),
                    Err(e) => (Proof::unproven(format!("opt(): {e}")), false),
                },
            )
        });
    match got {
        Ok(p) => {
            if p.1 {
                scope.note_coarse();
            }
            p.0.clone()
        }
        Err(e) => Proof::unproven(e.to_string()),
    }
}

/// `eval(P, cutoffs=Q)`: policy P at the cutoffs Q.
pub struct Eval;

static EVAL: Signature = Signature {
    name: "eval",
    model: Some("dispatch"),
    positional: Positional::Word {
        what: "policy",
        choices: PolicyKind::NAMES,
    },
    named: &[NamedArg {
        name: "cutoffs",
        words: OptPolicy::NAMES,
    }],
    fields: EVAL_FIELDS,
    default_field: "value",
    summary: "the metric at given cutoffs (an opt policy's, or a list)",
};

/// An evaluation at both precisions, with the cutoffs, λ and ρ.
struct EvalPair {
    lo: Evaluation,
    hi: Evaluation,
    cutoffs: Vec<Pair>,
    lambda: Pair,
    rho: Pair,
}

impl Quantity for Eval {
    declared!(EVAL);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        if call.pos.len() != 1 {
            return Err(QuantityError::Usage(
                "eval(POLICY, cutoffs=..., ...) takes one policy".into(),
            ));
        }
        let policy = call.word(0)?;
        let kind: PolicyKind = policy
            .parse()
            .map_err(|e: UnknownName| QuantityError::Usage(e.within("for eval").to_string()))?;
        let scope = &call.scope;
        let s = DispatchSpec::resolve(scope, true)?;
        let hosts = s.need_hosts("eval")?;
        let load = s.need_load("eval")?;
        // Cutoffs at each precision; as written (decimals) when they are a list, for the
        // enclosures of `check --rigorous`.
        let mut written: Result<Vec<String>, String> = Ok(vec![]);
        let (c1, c2): (Vec<Float>, Vec<Float>) = match (call.named("cutoffs"), kind.chain_kind()) {
            (None, None) => (vec![], vec![]),
            (None, Some(_)) => return Err(QuantityError::Usage(
                "eval(sita|tags, cutoffs=...) needs cutoffs: an opt policy (sita-e) or \"c1,c2\""
                    .into(),
            )),
            (Some(Arg::Str(list)), _) => {
                written = list
                    .split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| scope.substitute(x).map_err(|e| e.to_string()))
                    .collect();
                let parse = |bits: u32| -> Result<Vec<Float>, QuantityError> {
                    list.split(',')
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(|x| Ok(parse_decimal(&scope.substitute(x)?, bits)?))
                        .collect()
                };
                (parse(scope.bits.0)?, parse(scope.bits.1)?)
            }
            (Some(Arg::Pos(Expr::Var(w))), _) => {
                written = Err(format!(
                    "eval(cutoffs={w}): the optimiser's cutoffs are located, not enclosed"
                ));
                let r = opt_pair(scope, opt_policy(w)?)?;
                (r.lo.cutoffs_free(), r.hi.cutoffs_free())
            }
            (Some(other), _) => {
                return Err(QuantityError::Usage(format!(
                    "cutoffs={other}: give an opt policy name or a string \"c1,c2\""
                )))
            }
        };
        let used = match kind.chain_kind() {
            None => hosts,
            Some(_) => c1.len() + 1,
        };
        let key = CacheKey::new(
            "eval",
            format!(
                "{}|{}|{used}|{load:?}|{}|{}",
                kind.name(),
                s.dist,
                s.metric.name(),
                c2.iter()
                    .map(|c| to_sci(c, CUTOFF_KEY_DIGITS))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        );
        let bits = scope.bits;
        let proof_key = format!("{}|{}", key.args, s.key());
        let r = scope.cache.get_or(key, || {
            let spec = s.spec()?;
            let run =
                |b: u32, cuts: &[Float]| -> Result<(Evaluation, Float, Float), QuantityError> {
                    let d = spec.build(b)?;
                    let (l, rho) = load.resolve(d.as_ref(), used)?;
                    let e = evaluate(kind, d.as_ref(), &l, used, cuts, s.metric)?;
                    Ok((e, l, rho))
                };
            let (e1, l1, r1) = run(bits.0, &c1)?;
            let (e2, l2, r2) = run(bits.1, &c2)?;
            let cutoffs = c1
                .iter()
                .zip(&c2)
                .map(|(a, b)| Pair::new(a.clone(), b.clone()))
                .collect();
            Ok(EvalPair {
                lo: e1,
                hi: e2,
                cutoffs,
                lambda: Pair::new(l1, l2),
                rho: Pair::new(r1, r2),
            })
        })?;
        let v = eval_value("eval", &r.lo, &r.hi, &r.lambda, &r.rho)
            .with_vec("cutoff", r.cutoffs.clone());
        if !scope.rigorous {
            return Ok(v);
        }
        let e = match written {
            Err(w) => Err(w),
            Ok(cuts) => {
                let key = CacheKey::new("eval-enclosed", proof_key);
                scope
                    .cache
                    .get_or(key, || {
                        Ok(crate::num::range::isolated(|| {
                            eval_enclosed(scope, &s, kind, used, &load, &cuts)
                        }))
                    })
                    .map_err(|e| e.to_string())
                    .and_then(|r| r.as_ref().clone())
            }
        };
        Ok(match e {
            Err(why) => v.unproven_rest(&format!("eval(): {why}")),
            Ok((e, lambda, rho, cuts)) => {
                let ps = |xs: &[Interval]| xs.iter().cloned().map(Proof::enclosed).collect();
                v.prove("value", Proof::enclosed(e.value))
                    .prove("queueing", Proof::enclosed(e.queueing))
                    .prove("wasted", Proof::enclosed(e.wasted))
                    .prove("lambda", Proof::enclosed(lambda))
                    .prove("rho", Proof::enclosed(rho))
                    .prove_vec("host_load", ps(&e.host_loads))
                    .prove_vec("host_waiting", ps(&e.host_waiting))
                    .prove_vec("cutoff", ps(&cuts))
            }
        })
    }
}

/// An enclosed evaluation, λ, ρ and the cutoffs enclosed, or why there is none.
type Enclosed = Result<(EnclosedEvaluation, Interval, Interval, Vec<Interval>), String>;

/// `eval` on the law's enclosures at the decimal cutoffs `cuts` (the certified evaluation
/// has checked them).
fn eval_enclosed(
    scope: &Scope,
    s: &DispatchSystem,
    kind: PolicyKind,
    hosts: usize,
    load: &crate::policy::LoadSpec,
    cuts: &[String],
) -> Enclosed {
    let bits = scope.enclosure_bits();
    let enc = s.enclosure(bits)?;
    let load_value = s.load_value(scope)?;
    let (lambda, rho) = load
        .resolve_enclosed_at(load_value.as_ref(), enc.as_ref(), hosts)
        .map_err(|e| e.to_string())?;
    let cuts =
        crate::dist::enclose::enclose_cutoffs(enc.as_ref(), cuts).map_err(|e| e.to_string())?;
    let e = evaluate_enclosed(kind, enc.as_ref(), &lambda, hosts, &cuts, s.metric)
        .map_err(|e| e.to_string())?;
    Ok((e, lambda, rho, cuts))
}

/// Significant digits of cutoffs in `eval`'s cache key (beyond any claim's precision).
const CUTOFF_KEY_DIGITS: u32 = 40;

/// `threshold()`: ρ*(F, h), the TAGS stability threshold.
pub struct ThresholdQ;

static THRESHOLD: Signature = Signature {
    name: "threshold",
    model: Some("dispatch"),
    positional: Positional::None,
    named: &[],
    fields: &[
        FieldSpec::scalar("load"),
        FieldSpec::scalar("lambda"),
        FieldSpec::vector("cutoff"),
        FieldSpec::scalar("argmax"),
    ],
    default_field: "load",
    summary: "the TAGS stability threshold ρ*(F, h) (h may be inf)",
};

impl Quantity for ThresholdQ {
    declared!(THRESHOLD);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        if !call.pos.is_empty() {
            return Err(QuantityError::Usage(
                "threshold() takes only overrides such as hosts=inf".into(),
            ));
        }
        let scope = &call.scope;
        let s = DispatchSpec::resolve(scope, false)?;
        let key = CacheKey::new("threshold", format!("{}|{:?}", s.dist, s.hosts));
        let bits = scope.bits;
        let r = scope.cache.get_or(key, || {
            let spec = s.spec()?;
            let run = |b: u32| -> Result<Threshold, QuantityError> {
                let d = spec.build(b)?;
                tags_threshold(d.as_ref(), s.hosts).map_err(|e| {
                    let h = s
                        .hosts
                        .map(|h| h.to_string())
                        .unwrap_or_else(|| "inf".into());
                    QuantityError::compute(format!("threshold --dist {} --hosts {h}", s.dist), e)
                })
            };
            Ok((run(bits.0)?, run(bits.1)?))
        })?;
        let (a, b) = (&r.0, &r.1);
        let v = Value::new("threshold", "load")
            .with("load", Pair::new(a.load.clone(), b.load.clone()))
            .with("lambda", Pair::new(a.lambda.clone(), b.lambda.clone()))
            .with_field("cutoff", pairs(&a.cutoffs, &b.cutoffs, "cutoffs"))
            .with_opt(
                "argmax",
                a.argmax
                    .as_ref()
                    .zip(b.argmax.as_ref())
                    .map(|(x, y)| Pair::new(x.clone(), y.clone())),
                "argmax exists only for threshold(hosts=inf)",
            );
        if !scope.rigorous {
            return Ok(v);
        }
        Ok(match threshold_enclosed(scope, &s) {
            Err(why) => v.unproven_rest(&format!("threshold(): {why}")),
            Ok(t) => {
                let v = v
                    .prove("load", Proof::enclosed(t.load))
                    .prove("lambda", Proof::enclosed(t.lambda));
                let v = if t.cutoffs_enclosed {
                    v.prove_vec(
                        "cutoff",
                        t.cutoffs.into_iter().map(Proof::enclosed).collect(),
                    )
                } else {
                    v
                };
                v.unproven_rest(
                    "threshold(): the greedy cutoffs (or sup x F(x)'s argmax) are not enclosed here",
                )
            }
        })
    }
}

/// The enclosure of ρ*(F, h) and λ* at the point's law and hosts
/// ([`threshold_rigorous`] at the claim's digits), cached per claim: `threshold()` and
/// `tags_stable()` share it.
fn threshold_enclosed(scope: &Scope, s: &DispatchSystem) -> Result<RigorousThreshold, String> {
    let key = CacheKey::new(
        "threshold-rigorous",
        format!("{}|{:?}|{}", s.dist, s.hosts, scope.digits),
    );
    scope
        .cache
        .get_or(key, || {
            Ok(crate::num::range::isolated(|| {
                s.spec().map_err(|e| e.to_string()).and_then(|spec| {
                    threshold_rigorous(&spec, s.hosts, scope.digits).map_err(|e| e.to_string())
                })
            }))
        })
        .map_err(|e| e.to_string())
        .and_then(|r| r.as_ref().clone())
}

/// Under `check --rigorous`, `tags_stable()` decided by enclosures: the greedy
/// construction leaves stable cutoffs exactly where λ < λ*(F, h) (`optimize::rigorous`
/// encloses λ* between a rate it proves stable and one it proves unstable), so with the
/// point's λ enclosed, 1 is proven where λ's upper end is below λ*'s lower end and 0 where
/// λ's lower end is at least λ*'s upper end; enclosures that meet decide nothing.
fn tags_stable_proof(scope: &Scope) -> Proof {
    let decide = || -> Result<Proof, String> {
        let s = DispatchSpec::resolve(scope, true).map_err(|e| e.to_string())?;
        let hosts = s
            .hosts
            .ok_or("tags_stable() needs a finite number of hosts")?;
        let enc = s.enclosure(scope.enclosure_bits())?;
        let (lambda, _) = s.enclosed_load(scope, enc.as_ref(), hosts)?;
        let t = threshold_enclosed(scope, &s).map_err(|why| format!("threshold(): {why}"))?;
        let bits = lambda.prec();
        Ok(if *lambda.hi() < *t.lambda.lo() {
            Proof::enclosed(Interval::int(bits, 1))
        } else if *lambda.lo() >= *t.lambda.hi() {
            Proof::enclosed(Interval::int(bits, 0))
        } else {
            Proof::unproven(
                "tags_stable(): the arrival rate's enclosure meets that of the threshold lambda*(F, h)",
            )
        })
    };
    crate::num::range::isolated(decide)
        .unwrap_or_else(|why| Proof::unproven(format!("tags_stable(): {why}")))
}

/// `tags_stable()`: whether stable TAGS cutoffs exist at the load (the greedy decision).
pub struct TagsStable;

static TAGS_STABLE: Signature = Signature::value_only(
    "tags_stable",
    Some("dispatch"),
    "1 if stable TAGS cutoffs exist at the load (greedy), else 0",
);

impl Quantity for TagsStable {
    declared!(TAGS_STABLE);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "stable", String::new(), true, |d, s| {
            let hosts = s.need_hosts("tags_stable")?;
            let load = s.need_load("tags_stable")?;
            let (lambda, _) = load.resolve(d, hosts)?;
            let g = greedy(d, &lambda, hosts)?;
            Ok(Float::with_val(d.prec(), u32::from(g.stable())))
        })?;
        let v = Value::scalar("tags_stable", p);
        Ok(if call.scope.rigorous {
            v.prove("value", tags_stable_proof(&call.scope))
        } else {
            v
        })
    }
}

/// `tags_stable_search(n)`: the same decided by an exhaustive search of an n-point grid.
pub struct TagsStableSearch;

static TAGS_STABLE_SEARCH: Signature = Signature {
    name: "tags_stable_search",
    model: Some("dispatch"),
    positional: Positional::Number { what: "n" },
    named: &[],
    fields: VALUE_ONLY,
    default_field: "value",
    summary: "1 if an exhaustive search of an n-point grid finds stable TAGS cutoffs, else 0",
};

impl Quantity for TagsStableSearch {
    declared!(TAGS_STABLE_SEARCH, unproven: "decides by an exhaustive grid search in MPFR, not by enclosures");
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let n = match call.number(0)? {
            Some(v) => {
                let n = v.hi.to_f64();
                if !(n >= 2.0 && n <= MAX_SEARCH_GRID as f64) {
                    return Err(QuantityError::Usage(format!(
                        "tags_stable_search(n): n must be between 2 and {MAX_SEARCH_GRID}"
                    )));
                }
                n as usize
            }
            None => {
                return Err(QuantityError::Usage(
                    "tags_stable_search(n) needs the grid size n".into(),
                ))
            }
        };
        let p = per_precision(
            &call.scope,
            "search",
            n.to_string(),
            true,
            |d, s: &DispatchSystem| {
                let hosts = s.need_hosts("tags_stable_search")?;
                let load = s.need_load("tags_stable_search")?;
                let (lambda, _) = load.resolve(d, hosts)?;
                let ok = exhaustive_stable(d, &lambda, hosts, n)?;
                Ok(Float::with_val(d.prec(), u32::from(ok)))
            },
        )?;
        Ok(Value::scalar("tags_stable_search", p))
    }
}
