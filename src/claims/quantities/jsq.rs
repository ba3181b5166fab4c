//! Quantities of JSQ(d(N)) load balancing (the `jsq` model, [`crate::claims::systems::jsq`]):
//!
//! | call | value | fields |
//! |---|---|---|
//! | `jsq_fixed_point()` | the fixed point of the N → ∞ limit of d (a number: power-of-d; `inf` or a growing formula: JSQ's fluid limit), certified at two precisions | `occupancy[i]`, `mean_tasks`, `mean_sojourn`, `blocking`, `distance` (ℓ1 to JSQ's fluid fixed point), `levels` |
//! | `jsq_fluid(at=t, init='q1,q2')` | the fluid trajectory at time t (from empty by default), integrated at two tolerances (their difference is the uncertainty) | `occupancy[i]`, `mean_tasks`, `distance` (ℓ1 to JSQ's fluid trajectory at t from the same start), `to_fixed_point` (ℓ1 to JSQ's fluid fixed point) |
//! | `jsq_exact()` | the finite-N chain's stationary values (`servers`, `d` at N) | `occupancy[i]`, `mean_tasks`, `blocking`, `states` |
//! | `jsq_sim(time=, warmup=, replications=, seed=, at=)` | the occupancy simulator, **simulated** (mean ± 95 % half-width) | stationary: `occupancy[i]`, `mean_tasks`, `blocking`, `distance` (time average of Σ_i \|q_i(t) − q*_i\|, q* JSQ's fluid fixed point), `scaled_idle` (E[(N − Q_1)/√N]), `scaled_q2` (E[Q_2/√N]), `scaled_occupancy[i]`, `scaled_idle_sd`, `scaled_idle_sq`, `samples_per_arrival`, `d_used`, `events`; with `at=t` (from empty): `occupancy[i]` = E[q_i(t)], `mean_tasks`, `distance` = Σ_i \|E q_i(t) − JSQ's fluid q_i(t)\| |
//! | `jsq_diffusion(step=, horizon=, burn=, replications=, seed=)` | the Halfin–Whitt diffusion limit of JSQ (queues, β = `halfin_whitt`; arXiv 1612.00723 Thm 2.4), **simulated** by the reflected Euler scheme of [`crate::lb::diffusion`]; the half-width includes the step-halving change | `scaled_idle`, `scaled_idle_sq`, `scaled_q2` |
//!
//! Simulated quantities use the streams (seed, 0, replication) at every grid point (common
//! random numbers, as `lwl_sim`); each distinct simulation runs once per claim (cached).
//! `jsq_sim` and `jsq_excess` run the one JSQ runner of `jsq simulate`
//! ([`crate::lb::sim::run`]) with its defaults ([`crate::lb::sim::DEFAULT_RUN`]: time 100,
//! lengthened to 200 × √(3/N) relaxation times of the run where those are longer, after a warm-up of
//! a tenth, 10 replications, seed 1, from the mean-field fixed point of the d used), read
//! by [`super::run::run_options`]; `time=` is run as given. `jsq_excess` runs JSQ at the
//! length the JSQ(d) run chose, so that the pairs share one window.

use super::run::{named_count, named_time, run_options, TIME_ARGS};
use super::shared::pairs;
use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::expr::{Arg, Expr};
use crate::claims::proof::{abs, Proof};
use crate::claims::registry::{Quantity, SIMULATED};
use crate::claims::scope::Call;
use crate::claims::signature::{FieldSpec, NamedArg, Positional, Signature};
use crate::claims::systems::jsq::{JsqPoint, JsqSpec};
use crate::claims::value::{FieldValue, Pair, Value};
use crate::lb::diffusion;
use crate::lb::exact::{exact, ExactOptions};
use crate::lb::fixed_point::{fixed_point, jsq_reference, l1_distance, FixedPoint};
use crate::lb::fluid::{fluid_pair, Limit};
use crate::lb::model::{JsqSystem, ModelKind};
use crate::lb::sim::{names, run, Measure, SimRun, DEFAULT_RUN};
use crate::lb::{fixed_point_enclosed, jsq_fixed_point_enclosed, EnclosedFixedPoint};
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use crate::sim::observe::Key;
use crate::sim::stats::Estimate;
use crate::sim::warmup::{Knobs, WarmupRule};
use crate::sim::{
    check_replications, Length, LengthRule, RunOptions, Start, DEFAULT_REPLICATIONS, DEFAULT_SEED,
};
use rug::Float;

/// `jsq_diffusion`'s defaults: step h (the check runs h and h/2 on the same paths).
pub const DEFAULT_DIFFUSION_STEP: f64 = 0.02;
/// `jsq_diffusion`'s default measured time per replication.
pub const DEFAULT_DIFFUSION_HORIZON: f64 = 2000.0;
/// `jsq_diffusion`'s default burn-in.
pub const DEFAULT_DIFFUSION_BURN: f64 = 50.0;

const fn arg(name: &'static str) -> NamedArg {
    NamedArg { name, words: &[] }
}

/// `jsq_fixed_point()`: the fixed point of the N → ∞ limit.
pub struct JsqFixedPoint;

static FIXED_POINT: Signature = Signature {
    name: "jsq_fixed_point",
    model: Some("jsq"),
    positional: Positional::None,
    named: &[],
    fields: &[
        FieldSpec::vector("occupancy"),
        FieldSpec::scalar("mean_tasks"),
        FieldSpec::scalar("mean_sojourn"),
        FieldSpec::scalar("blocking"),
        FieldSpec::scalar("distance"),
        FieldSpec::scalar("levels"),
    ],
    default_field: "mean_tasks",
    summary: "fixed point of the N -> inf limit (power-of-d, or JSQ's fluid limit), certified",
};

/// The limit's fixed point and JSQ's at one precision.
fn fixed_points(s: &JsqPoint, bits: u32) -> Result<(FixedPoint, FixedPoint), QuantityError> {
    let model = s.model()?;
    let limit = Limit::from_spec(&s.d_spec()?)?;
    let what = || format!("jsq fixed-point {}", s.flags());
    let fp = fixed_point(&model, limit, bits).map_err(|e| QuantityError::compute(what(), e))?;
    let jsq =
        fixed_point(&model, Limit::Jsq, bits).map_err(|e| QuantityError::compute(what(), e))?;
    Ok((fp, jsq))
}

/// Two vectors padded with zeros to the same length (the two precisions of a truncated
/// fixed point stop at different levels; the missing ones are below 2^-2p).
fn padded(a: &[Float], b: &[Float]) -> (Vec<Float>, Vec<Float>) {
    let n = a.len().max(b.len());
    let pad = |v: &[Float]| -> Vec<Float> {
        let p = v.first().map_or(64, Float::prec);
        let mut out = v.to_vec();
        out.resize(n, Float::with_val(p, 0));
        out
    };
    (pad(a), pad(b))
}

/// The fixed point enclosed (`check --rigorous`): the power-of-d closed form for queues
/// without a buffer ([`queues_power_of_d_enclosed`]), the root isolated for a finite
/// capacity ([`power_of_d_capacity_enclosed`]), JSQ's closed form without a buffer; each
/// with the enclosure of JSQ's fixed point that its `distance` is measured to (`None`:
/// not enclosed, and why).
struct EnclosedPoint {
    fp: EnclosedFixedPoint,
    reference: Result<Vec<Interval>, String>,
}

/// The enclosures of `jsq_fixed_point()` at one point, or why there are none.
fn enclosed_point(s: &JsqPoint, bits: u32) -> Result<EnclosedPoint, String> {
    let model = s.model().map_err(|e| e.to_string())?;
    let limit =
        Limit::from_spec(&s.d_spec().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let lambda = Interval::from_decimal(model.lambda_text(), bits).map_err(|e| e.to_string())?;
    let reference =
        jsq_fixed_point_enclosed(model.kind(), &lambda, model.buffer()).map_err(|e| e.to_string());
    let fp = fixed_point_enclosed(&model, limit, bits).map_err(|e| e.to_string())?;
    Ok(EnclosedPoint { fp, reference })
}

/// The proofs of `jsq_fixed_point()`'s fields from its enclosures: `occupancy` (`levels`
/// long: the certified vector's length), `mean_tasks`, `mean_sojourn`, `blocking`,
/// `distance`.
fn fixed_point_proofs(
    v: Value,
    e: &Result<EnclosedPoint, String>,
    limit_jsq: bool,
    levels: usize,
) -> Value {
    let e = match e {
        Ok(e) => e,
        Err(why) => return v.unproven_rest(&format!("jsq_fixed_point(): {why}")),
    };
    let fp = &e.fp;
    let bits = fp.mean_tasks.prec();
    let zero = Interval::zero_at(bits);
    // Levels beyond the enclosed ones: 0 with a finite capacity or for JSQ (the closed
    // form stops there); without a buffer below the last one (the levels decrease) and
    // below the enclosed sum of all of them (`beyond`).
    let beyond = match (fp.blocking.is_some() || limit_jsq, fp.occupancy.last()) {
        (true, _) => Some(zero.clone()),
        (false, Some(last)) => Some(Interval::new(
            zero.lo().clone(),
            last.hi().clone().min(fp.beyond.hi()),
        )),
        (false, None) => None,
    };
    let occupancy: Vec<Proof> = (0..levels)
        .map(|i| match (fp.occupancy.get(i), &beyond) {
            (Some(q), _) => Proof::enclosed(q.clone()),
            (None, Some(b)) => Proof::enclosed(b.clone()),
            (None, None) => Proof::unproven("jsq_fixed_point(): a level beyond the enclosure"),
        })
        .collect();
    let distance = if limit_jsq {
        Proof::enclosed(zero.clone())
    } else {
        match (&e.reference, fp.blocking.is_some()) {
            (Err(why), _) => Proof::unproven(format!("jsq_fixed_point().distance: {why}")),
            // Without a buffer (queues, λ < 1): JSQ's fixed point is (λ, 0, …), so the
            // distance is |s_1 − λ| + Σ_{i ≥ 2} s_i = |s_1 − λ| + (mean tasks − s_1).
            (Ok(r), false) => match (fp.occupancy.first(), r.as_slice()) {
                (Some(s1), [lam]) => {
                    Proof::enclosed(abs(&s1.sub(lam)).add(&fp.mean_tasks.sub(s1).max(&zero)))
                }
                // Pools: every level up to the enclosure's last, JSQ's closed form 0 past
                // it (it stops at ⌈λ⌉), and the levels past it summed within `beyond`.
                (Some(_), r) if r.len() <= fp.occupancy.len() => {
                    let mut sum = fp.beyond.clone();
                    for (i, a) in fp.occupancy.iter().enumerate() {
                        sum = sum.add(&abs(&a.sub(r.get(i).unwrap_or(&zero))));
                    }
                    Proof::enclosed(sum)
                }
                _ => Proof::unproven("jsq_fixed_point().distance: not enclosed for this model"),
            },
            // A finite capacity: every level enclosed, Σ_i |q_i − q*_i|.
            (Ok(r), true) => {
                let mut sum = zero.clone();
                for i in 0..fp.occupancy.len().max(r.len()) {
                    let a = fp.occupancy.get(i).unwrap_or(&zero);
                    let b = r.get(i).unwrap_or(&zero);
                    sum = sum.add(&abs(&a.sub(b)));
                }
                Proof::enclosed(sum)
            }
        }
    };
    v.prove_vec("occupancy", occupancy)
        .prove("mean_tasks", Proof::enclosed(fp.mean_tasks.clone()))
        .prove("mean_sojourn", Proof::enclosed(fp.mean_sojourn.clone()))
        .prove(
            "blocking",
            Proof::enclosed(fp.blocking.clone().unwrap_or(zero)),
        )
        .prove("distance", distance)
        .prove(
            "levels",
            Proof::unproven("jsq_fixed_point().levels counts the computed levels"),
        )
}

impl Quantity for JsqFixedPoint {
    declared!(FIXED_POINT, unproven: "is not enclosed here");

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        if s.halfin_whitt.is_some() {
            return Err(QuantityError::Usage(
                "jsq_fixed_point() is the N -> inf limit at a fixed lambda: give lambda, not halfin_whitt".into(),
            ));
        }
        let key = CacheKey::new("jsq_fixed_point", format!("{}|{}", s.key(), scope.digits));
        let bits = scope.bits;
        let both = scope.cache.get_or(key, || {
            let lo = fixed_points(&s, bits.0)?;
            let hi = fixed_points(&s, bits.1)?;
            Ok((lo, hi))
        })?;
        let ((lo, jlo), (hi, jhi)) = both.as_ref();
        let (a, b) = padded(&lo.occupancy, &hi.occupancy);
        let levels = a.len();
        let p = |x: &Float, y: &Float| Pair::new(x.clone(), y.clone());
        let v = Value::new("jsq_fixed_point", "mean_tasks")
            .with_field("occupancy", pairs(&a, &b, "levels"))
            .with("mean_tasks", p(&lo.mean_tasks, &hi.mean_tasks))
            .with("mean_sojourn", p(&lo.mean_sojourn, &hi.mean_sojourn))
            .with("blocking", p(&lo.blocking, &hi.blocking))
            .with(
                "distance",
                Pair::new(
                    l1_distance(&lo.occupancy, &jlo.occupancy, bits.0),
                    l1_distance(&hi.occupancy, &jhi.occupancy, bits.1),
                ),
            )
            .with("levels", Pair::exact(bits, hi.occupancy.len() as i64));
        if !scope.rigorous {
            return Ok(v);
        }
        let ebits = scope.enclosure_bits();
        let key = CacheKey::new("jsq_fixed_point_enclosed", format!("{}|{ebits}", s.key()));
        let e = scope.cache.get_or(key, || {
            Ok(crate::num::range::isolated(|| enclosed_point(&s, ebits)))
        })?;
        let limit_jsq = matches!(
            s.d_spec().ok().and_then(|d| Limit::from_spec(&d).ok()),
            Some(Limit::Jsq)
        );
        Ok(fixed_point_proofs(v, e.as_ref(), limit_jsq, levels))
    }
}

/// `jsq_fluid(at=t, init='q1,q2')`.
pub struct JsqFluid;

static FLUID: Signature = Signature {
    name: "jsq_fluid",
    model: Some("jsq"),
    positional: Positional::None,
    named: &[arg("at"), arg("init")],
    fields: &[
        FieldSpec::vector("occupancy"),
        FieldSpec::scalar("mean_tasks"),
        FieldSpec::scalar("distance"),
        FieldSpec::scalar("to_fixed_point"),
    ],
    default_field: "distance",
    summary: "fluid trajectory at time at= (two tolerances), its distance to JSQ's fluid trajectory and fixed point",
};

fn f64s(v: &[f64], bits: u32) -> Vec<Float> {
    v.iter().map(|x| Float::with_val(bits, *x)).collect()
}

fn l1_f64(a: &[f64], b: &[f64]) -> f64 {
    (0..a.len().max(b.len()))
        .map(|i| (a.get(i).copied().unwrap_or(0.0) - b.get(i).copied().unwrap_or(0.0)).abs())
        .sum()
}

impl Quantity for JsqFluid {
    declared!(FLUID, unproven: "integrates an ODE whose error is estimated, not bounded");

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let at = named_time(call, "at", false)?
            .ok_or_else(|| QuantityError::Usage("jsq_fluid needs at=t (a time >= 0)".into()))?;
        let init: Vec<f64> = match call.named("init") {
            None => Vec::new(),
            Some(Arg::Str(t)) => call
                .outer
                .substitute(t)?
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.parse::<f64>()
                        .map_err(|_| QuantityError::Usage(format!("init: '{x}' is not a number")))
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(QuantityError::Usage(format!(
                    "init={other}: give a string 'q1,q2,...'"
                )))
            }
        };
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        let key = CacheKey::new("jsq_fluid", format!("{}|{at:e}|{init:?}", s.key()));
        let r = scope
            .cache
            .get_or(key, || -> Result<FluidAt, QuantityError> {
                let model = s.model()?;
                let limit = Limit::from_spec(&s.d_spec()?)?;
                let what = || format!("jsq fluid {} --times {at:e}", s.flags());
                let (a, b) = fluid_pair(&model, limit, &init, &[at])
                    .map_err(|e| QuantityError::compute(what(), e))?;
                let (ja, jb) = fluid_pair(&model, Limit::Jsq, &init, &[at])
                    .map_err(|e| QuantityError::compute(what(), e))?;
                let star = jsq_reference(&model).map_err(|e| QuantityError::compute(what(), e))?;
                Ok(FluidAt {
                    coarse: a.occupancy.concat(),
                    fine: b.occupancy.concat(),
                    jsq_coarse: ja.occupancy.concat(),
                    jsq_fine: jb.occupancy.concat(),
                    jsq_fixed_point: star,
                })
            })?;
        let FluidAt {
            coarse: a,
            fine: b,
            jsq_coarse: ja,
            jsq_fine: jb,
            jsq_fixed_point: star,
        } = r.as_ref();
        let bits = scope.bits;
        let n = a.len().max(b.len());
        let pad = |v: &[f64]| {
            let mut o = v.to_vec();
            o.resize(n, 0.0);
            o
        };
        let (pa, pb) = (pad(a), pad(b));
        let two =
            |x: f64, y: f64| Pair::new(Float::with_val(bits.0, x), Float::with_val(bits.1, y));
        Ok(Value::new("jsq_fluid", "distance")
            .with_field(
                "occupancy",
                pairs(&f64s(&pa, bits.0), &f64s(&pb, bits.1), "levels"),
            )
            .with("mean_tasks", two(pa.iter().sum(), pb.iter().sum()))
            .with("distance", two(l1_f64(a, ja), l1_f64(b, jb)))
            .with("to_fixed_point", two(l1_f64(a, star), l1_f64(b, star))))
    }
}

/// What `jsq_fluid` compares at one time t: the occupancy of the setup's limit and of
/// JSQ's fluid limit at t, each integrated at the two tolerances of
/// [`crate::lb::fluid::fluid_pair`], and JSQ's fluid fixed point.
struct FluidAt {
    /// The setup's limit at the default tolerance.
    coarse: Vec<f64>,
    /// The setup's limit at the finer tolerance.
    fine: Vec<f64>,
    /// JSQ's fluid limit at the default tolerance.
    jsq_coarse: Vec<f64>,
    /// JSQ's fluid limit at the finer tolerance.
    jsq_fine: Vec<f64>,
    /// JSQ's fluid fixed point.
    jsq_fixed_point: Vec<f64>,
}

/// `jsq_exact()`: the finite-N chain.
pub struct JsqExact;

static EXACT: Signature = Signature {
    name: "jsq_exact",
    model: Some("jsq"),
    positional: Positional::None,
    named: &[],
    fields: &[
        FieldSpec::vector("occupancy"),
        FieldSpec::scalar("mean_tasks"),
        FieldSpec::scalar("blocking"),
        FieldSpec::scalar("states"),
    ],
    default_field: "mean_tasks",
    summary: "stationary values of the finite-N chain (servers, d at N)",
};

impl Quantity for JsqExact {
    declared!(EXACT, unproven: "solves a finite chain truncated at its buffer, certified by two precisions, not enclosed");

    /// The enclosures of [`crate::lb::exact`] (a proven truncation bound plus the solve's
    /// error bound) at the claim's digits (a chain certifies at most
    /// [`crate::lb::exact::CHAIN_MAX_DIGITS`]): the working-precision value is displaced by
    /// the enclosure's half-width, so that the spread the verdicts use is that error.
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        let sys = s.system("jsq_exact")?;
        let digits = scope.digits;
        let key = CacheKey::new("jsq_exact", format!("{}|{digits}", s.key()));
        let r = scope.cache.get_or(key, || {
            let opts = ExactOptions {
                digits,
                ..ExactOptions::default()
            };
            exact(&sys, &opts)
                .map_err(|e| QuantityError::compute(format!("jsq exact {}", s.flags()), e))
        })?;
        let bits = scope.bits;
        let val = |v: &crate::lb::exact::Value| {
            let err = (v.hi - v.value).max(v.value - v.lo).max(0.0);
            Pair::new(
                Float::with_val(bits.0, v.value + err),
                Float::with_val(bits.1, v.value),
            )
        };
        Ok(Value::new("jsq_exact", "mean_tasks")
            .with_vec("occupancy", r.occupancy.iter().map(val).collect())
            .with("mean_tasks", val(&r.mean_tasks))
            .with("blocking", val(&r.blocking))
            .with("states", Pair::exact(bits, r.states as i64)))
    }
}

/// `jsq_sim(time=, warmup=, replications=, seed=, at=)`: the occupancy simulator.
pub struct JsqSim;

static SIM: Signature = Signature {
    name: "jsq_sim",
    model: Some("jsq"),
    positional: Positional::None,
    named: &[
        TIME_ARGS[0],
        TIME_ARGS[1],
        TIME_ARGS[2],
        TIME_ARGS[3],
        arg("at"),
        NamedArg {
            name: "start",
            words: START_WORDS,
        },
    ],
    fields: &[
        FieldSpec::vector("occupancy"),
        FieldSpec::scalar("mean_tasks"),
        FieldSpec::scalar("blocking"),
        FieldSpec::scalar("distance"),
        FieldSpec::scalar("scaled_idle"),
        FieldSpec::scalar("scaled_q2"),
        FieldSpec::vector("scaled_occupancy"),
        FieldSpec::scalar("scaled_idle_sd"),
        FieldSpec::scalar("scaled_idle_sq"),
        FieldSpec::scalar("samples_per_arrival"),
        FieldSpec::scalar("d_used"),
        FieldSpec::scalar("events"),
    ],
    default_field: "distance",
    summary: "JSQ(d) on N servers simulated on the occupancy counts (mean ± 95 % half-width)",
};

/// Words of `jsq_sim`'s `start=`: the mean-field fixed point of the d used (the default of
/// a stationary run) or the empty system.
const START_WORDS: &[&str] = &["fixed_point", "empty"];

/// The options of one `jsq_sim`/`jsq_excess` call: the run, and the time of a transient run
/// (`at=`).
#[derive(Debug, Clone)]
struct JsqRunCall {
    run: RunOptions,
    at: Option<f64>,
}

impl JsqRunCall {
    /// `time=`, `warmup=`, `replications=`, `seed=`, `start=` over
    /// [`crate::lb::sim::DEFAULT_RUN`], or `at=t`: from empty to t without a warm-up.
    fn of(call: &Call) -> Result<JsqRunCall, QuantityError> {
        let at = named_time(call, "at", true)?;
        let start = match call.named("start") {
            None => None,
            Some(Arg::Pos(Expr::Var(w))) if START_WORDS.contains(&w.as_str()) => {
                Some(w.parse::<Start>().map_err(QuantityError::Usage)?)
            }
            Some(other) => {
                return Err(QuantityError::Usage(format!(
                    "start={other}: give fixed_point or empty"
                )))
            }
        };
        let Some(t) = at else {
            let mut run = run_options(call, DEFAULT_RUN)?;
            if let Some(s) = start {
                run.start = s;
            }
            return Ok(JsqRunCall { run, at: None });
        };
        if start == Some(Start::FixedPoint) {
            return Err(QuantityError::Usage(
                "at= runs from empty (start=fixed_point is for stationary runs)".into(),
            ));
        }
        if call.named("time").is_some() || call.named("warmup").is_some() {
            return Err(QuantityError::Usage(
                "at=t runs from empty to t: time= and warmup= are for stationary runs".into(),
            ));
        }
        let mut run = run_options(call, DEFAULT_RUN)?;
        run.length = Length::Time {
            measured: t,
            warmup: 0.0,
        };
        run.start = Start::Empty;
        // A transient run measures at t from empty: no warm-up to choose.
        run.warmup_rule = WarmupRule::Given;
        run.length_rule = LengthRule::Given;
        Ok(JsqRunCall { run, at })
    }

    /// The measured time and the warm-up.
    fn times(&self) -> (f64, f64) {
        match self.run.length {
            Length::Time { measured, warmup } => (measured, warmup),
            Length::Jobs { .. } => (0.0, 0.0),
        }
    }

    fn key(&self) -> String {
        format!("{}|{:?}", self.run.key(), self.at)
    }

    /// The failed diagnostics of `run` (none for a transient run, `at=`).
    fn warnings(&self, run: &SimRun) -> Vec<String> {
        match self.at {
            Some(_) => Vec::new(),
            None => run.diagnostics.failures(&Knobs::CLAIM_TIME, ran(run).0),
        }
    }

    /// The options with the length `run` ran, as given (the length rule chose it): the
    /// second system of a paired comparison runs the first one's length.
    fn with_length_of(&self, run: &SimRun) -> JsqRunCall {
        let mut o = self.clone();
        o.run.length = run.length;
        o.run.length_rule = LengthRule::Given;
        o
    }

    /// The run in words.
    fn describe(&self, run: &SimRun) -> String {
        let start = &run.start;
        let (time, warmup) = ran(run);
        match self.at {
            Some(t) => format!(
                "{} replications from empty to t = {t}, seed {}",
                self.run.replications, self.run.seed
            ),
            None => format!(
                "{} replications x time {time} (warm-up {warmup} from {}), seed {}",
                self.run.replications,
                match start {
                    Start::FixedPoint => "the mean-field fixed point".to_string(),
                    Start::Empty => "empty".to_string(),
                    Start::Occupancy(_) => format!("the occupancy {}", start.name()),
                },
                self.run.seed
            ),
        }
    }
}

/// The measured time and the warm-up `run` ran (after the length rule).
fn ran(run: &SimRun) -> (f64, f64) {
    match run.length {
        Length::Time { measured, warmup } => (measured, warmup),
        Length::Jobs { .. } => (0.0, 0.0),
    }
}

/// What a simulation gives: the run, and in the transient mode JSQ's fluid trajectory at
/// the time.
type Simulated = (SimRun, Option<Vec<f64>>);

/// The simulation of `sys` with options `o`, cached per claim under the system's key.
fn cached_run(
    scope: &crate::claims::scope::Scope,
    s: &JsqPoint,
    sys: &JsqSystem,
    o: &JsqRunCall,
) -> Result<std::sync::Arc<Simulated>, QuantityError> {
    // The resolved system (so that d = N and a formula capped at N share one run).
    let m = sys.model();
    let key = CacheKey::new(
        "jsq_sim",
        format!(
            "{}|{}|{}|{}|{:?}|{}|{}",
            m.kind().name(),
            m.lambda_text(),
            sys.servers(),
            sys.d().d,
            m.buffer(),
            sys.sampling().name(),
            o.key()
        ),
    );
    scope.cache.get_or(key, || run_sim(s, sys, o))
}

fn run_sim(s: &JsqPoint, sys: &JsqSystem, o: &JsqRunCall) -> Result<Simulated, QuantityError> {
    let (measure, fluid) = match o.at {
        Some(t) => {
            let (_, fine) = fluid_pair(sys.model(), Limit::Jsq, &[], &[t])?;
            (Measure::AtEnd, Some(fine.occupancy.concat()))
        }
        None => (Measure::Stationary, None),
    };
    let (time, warmup) = o.times();
    let r = run(sys, &o.run, measure, None).map_err(|e| {
        QuantityError::compute(
            format!(
                "jsq simulate {} --time {time} --warmup {warmup} --replications {} --seed {}",
                s.flags(),
                o.run.replications,
                o.run.seed
            ),
            e,
        )
    })?;
    Ok((r, fluid))
}

impl Quantity for JsqSim {
    declared!(SIM, unproven: SIMULATED);

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let o = JsqRunCall::of(call)?;
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        let sys = s.system("jsq_sim")?;
        let r = cached_run(scope, &s, &sys, &o)?;
        let (run, fluid) = r.as_ref();
        // A failed diagnostic of a stationary run (too few events, initialisation bias)
        // makes its values untrusted; a transient run (at=) measures a time, not a
        // stationary mean.
        let warnings = o.warnings(run);
        let sum = &run.summary;
        let bits = scope.bits;
        let source = format!(
            "JSQ(d) {} N={} d={}: {}",
            s.kind.name(),
            sys.servers(),
            sys.d().d,
            o.describe(run)
        );
        let sim = |e: &Estimate| -> FieldValue {
            if e.mean.is_finite() {
                FieldValue::Scalar(Pair::simulated(
                    bits,
                    e.mean,
                    e.half_width,
                    warnings.clone(),
                    source.clone(),
                ))
            } else {
                FieldValue::Missing(format!("{source}: no estimate"))
            }
        };
        let sim_vec = |es: &[Estimate]| -> FieldValue {
            FieldValue::Vector(
                es.iter()
                    .map(|e| {
                        Pair::simulated(
                            bits,
                            e.mean,
                            e.half_width,
                            warnings.clone(),
                            source.clone(),
                        )
                    })
                    .collect(),
            )
        };
        let d = sys.d().d as i64;
        let v = Value::new("jsq_sim", "distance")
            .with("samples_per_arrival", Pair::exact(bits, d))
            .with("d_used", Pair::exact(bits, d))
            .with("events", Pair::exact(bits, sum.events as i64));
        if let Some(f) = fluid {
            // Transient: E[q_i(t)] against JSQ's fluid trajectory at t.
            // Levels no replication reached at t are 0 (and the fluid's levels are all
            // reported, so that occupancy[i] exists wherever the fluid has it).
            let mut occ = sum.trajectory.first().cloned().unwrap_or_default();
            let levels = occ.len().max(f.len());
            occ.resize(
                levels,
                Estimate {
                    mean: 0.0,
                    half_width: 0.0,
                    replications: sum.replications,
                    count: 0,
                },
            );
            let mut dist = 0.0;
            let mut hw = 0.0;
            let mut tasks = 0.0;
            let mut tasks_hw = 0.0;
            for i in 0..levels {
                let (m, h) = occ.get(i).map_or((0.0, 0.0), |e| (e.mean, e.half_width));
                dist += (m - f.get(i).copied().unwrap_or(0.0)).abs();
                hw += h;
                tasks += m;
                tasks_hw += h;
            }
            let one =
                |m: f64, h: f64| Pair::simulated(bits, m, h, warnings.clone(), source.clone());
            let why = "not measured by a transient run (at=)";
            return Ok(v
                .with_field("occupancy", sim_vec(&occ))
                .with("mean_tasks", one(tasks, tasks_hw))
                .with("distance", one(dist, hw))
                .missing("blocking", why)
                .missing("scaled_idle", why)
                .missing("scaled_q2", why)
                .missing("scaled_occupancy", why)
                .missing("scaled_idle_sd", why)
                .missing("scaled_idle_sq", why));
        }
        let zero = Estimate {
            mean: 0.0,
            half_width: 0.0,
            replications: sum.replications,
            count: 0,
        };
        let v = v
            .with_field("occupancy", sim_vec(&sum.occupancy))
            .with_field("mean_tasks", sim(&sum.mean_tasks))
            .with_field(
                "scaled_idle",
                sim(sum.scaled_occupancy.first().unwrap_or(&zero)),
            )
            .with_field(
                "scaled_q2",
                sim(sum.scaled_occupancy.get(1).unwrap_or(&zero)),
            )
            .with_field("scaled_occupancy", sim_vec(&sum.scaled_occupancy))
            .with_field("scaled_idle_sd", sim(&sum.scaled_idle_sd))
            .with_field(
                "scaled_idle_sq",
                sim(sum.scaled_occupancy_sq.first().unwrap_or(&zero)),
            );
        let v = match &sum.distance {
            Some(e) => v.with_field("distance", sim(e)),
            None => v.missing("distance", "JSQ's fluid fixed point is not unique here"),
        };
        let v = if s.buffer.is_some() {
            v.with_field("blocking", sim(&sum.blocking))
        } else {
            v.with("blocking", Pair::exact(bits, 0))
        };
        Ok(v)
    }
}

/// `jsq_diffusion(…)`: JSQ's Halfin–Whitt diffusion limit, simulated.
pub struct JsqDiffusion;

static DIFFUSION: Signature = Signature {
    name: "jsq_diffusion",
    model: Some("jsq"),
    positional: Positional::None,
    named: &[
        arg("step"),
        arg("horizon"),
        arg("burn"),
        arg("replications"),
        arg("seed"),
    ],
    fields: &[
        FieldSpec::scalar("scaled_idle"),
        FieldSpec::scalar("scaled_idle_sq"),
        FieldSpec::scalar("scaled_q2"),
    ],
    default_field: "scaled_q2",
    summary: "JSQ's Halfin-Whitt diffusion limit (queues), reflected Euler; half-width includes the step change",
};

impl Quantity for JsqDiffusion {
    declared!(DIFFUSION, unproven: SIMULATED);

    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        if s.kind != ModelKind::Queues {
            return Err(QuantityError::Usage(
                "jsq_diffusion() is the diffusion limit of queues (arXiv 1612.00723 Thm 2.4)"
                    .into(),
            ));
        }
        let beta = match &s.halfin_whitt {
            Some(b) => parse_decimal(b, 64)?.to_f64(),
            None => {
                return Err(QuantityError::Usage(
                    "jsq_diffusion() needs halfin_whitt (beta) in the setup or the call".into(),
                ))
            }
        };
        let step = named_time(call, "step", true)?.unwrap_or(DEFAULT_DIFFUSION_STEP);
        let horizon = named_time(call, "horizon", true)?.unwrap_or(DEFAULT_DIFFUSION_HORIZON);
        let burn = named_time(call, "burn", false)?.unwrap_or(DEFAULT_DIFFUSION_BURN);
        let reps = match named_count(call, "replications")? {
            None => DEFAULT_REPLICATIONS,
            Some(r) => usize::try_from(r).unwrap_or(usize::MAX),
        };
        check_replications(reps).map_err(|e| QuantityError::Usage(e.to_string()))?;
        let seed = named_count(call, "seed")?.unwrap_or(DEFAULT_SEED);
        let key = CacheKey::new(
            "jsq_diffusion",
            format!("{beta:e}|{step:e}|{horizon:e}|{burn:e}|{reps}|{seed}"),
        );
        let r = scope.cache.get_or(key, || {
            diffusion::simulate(beta, step, burn, horizon, reps, seed).map_err(|e| {
                QuantityError::compute(format!("JSQ diffusion limit at beta = {beta}"), e)
            })
        })?;
        let bits = scope.bits;
        let source = format!(
            "JSQ diffusion limit, beta {beta}, step {} (change {:.2e} against {}), {reps} x {horizon}",
            r.step,
            r.step_change,
            2.0 * r.step
        );
        let one = |e: &Estimate| {
            Pair::simulated(
                bits,
                e.mean,
                e.half_width + r.step_change,
                Vec::new(),
                source.clone(),
            )
        };
        Ok(Value::new("jsq_diffusion", "scaled_q2")
            .with("scaled_idle", one(&r.scaled_idle))
            .with("scaled_idle_sq", one(&r.scaled_idle_sq))
            .with("scaled_q2", one(&r.scaled_q2)))
    }
}

/// `jsq_excess(time=, warmup=, replications=, seed=)`: JSQ(d) minus JSQ at the same N,
/// paired by replication.
pub struct JsqExcess;

static EXCESS: Signature = Signature {
    name: "jsq_excess",
    model: Some("jsq"),
    positional: Positional::None,
    named: &TIME_ARGS,
    fields: &[
        FieldSpec::scalar("scaled_idle"),
        FieldSpec::scalar("scaled_q2"),
        FieldSpec::scalar("scaled_idle_sd"),
        FieldSpec::scalar("scaled_idle_sq"),
        FieldSpec::scalar("distance"),
        FieldSpec::scalar("mean_tasks"),
    ],
    default_field: "scaled_q2",
    summary: "JSQ(d) minus JSQ (d = N) at the same N, simulated with common random numbers and paired by replication",
};

/// The observables `jsq_excess` compares, by field.
const EXCESS_KEYS: [(&str, Key); 6] = [
    ("scaled_idle", Key::at(names::SCALED_OCCUPANCY, 0)),
    ("scaled_q2", Key::at(names::SCALED_OCCUPANCY, 1)),
    ("scaled_idle_sd", Key::scalar(names::SCALED_IDLE_SD)),
    ("scaled_idle_sq", Key::at(names::SCALED_OCCUPANCY_SQ, 0)),
    ("distance", Key::scalar(names::DISTANCE)),
    ("mean_tasks", Key::scalar(names::MEAN_TASKS)),
];

impl Quantity for JsqExcess {
    declared!(EXCESS, unproven: SIMULATED);

    /// Each field is E[stat | JSQ(d)] − E[stat | JSQ] with the paired Student-t half-width
    /// ([`crate::sim::Replicated::difference`]): both systems run on the same streams, so
    /// where JSQ(d) behaves like JSQ the pairs agree and the interval is narrow.
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let o = JsqRunCall::of(call)?;
        if o.at.is_some() {
            return Err(QuantityError::Usage(
                "jsq_excess() compares stationary runs: no at=".into(),
            ));
        }
        let scope = &call.scope;
        let s = JsqSpec::resolve(scope)?;
        let sys = s.system("jsq_excess")?;
        let jsq = JsqSystem::new(
            sys.model().clone(),
            sys.servers(),
            &crate::lb::model::DSpec::Infinite,
            sys.sampling(),
        )?;
        let a = cached_run(scope, &s, &sys, &o)?;
        // JSQ at the length JSQ(d) ran, so that the pairs share their streams over one
        // window.
        let b = cached_run(scope, &s, &jsq, &o.with_length_of(&a.0))?;
        let bits = scope.bits;
        let source = format!(
            "JSQ(d) - JSQ, {} N={} d={} vs d=N, paired over {}",
            s.kind.name(),
            sys.servers(),
            sys.d().d,
            o.describe(&a.0)
        );
        let mut warnings = o.warnings(&a.0);
        for w in o.warnings(&b.0) {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let mut v = Value::new("jsq_excess", "scaled_q2");
        for (field, key) in EXCESS_KEYS {
            v = match a.0.replicated.difference(&b.0.replicated, key) {
                Some(e) if e.mean.is_finite() => v.with(
                    field,
                    Pair::simulated(bits, e.mean, e.half_width, warnings.clone(), source.clone()),
                ),
                _ => v.missing(field, format!("{field} is not measured here")),
            };
        }
        Ok(v)
    }
}
