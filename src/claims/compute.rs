//! Evaluating a quantity expression at one grid point, at two precisions.
//!
//! Every number is a [`Pair`]: the value at the working precision for the claim's digits
//! and at the higher certifying precision of [`crate::num::certify_bits`]. Their difference
//! is the numerical uncertainty the verdicts use; the digits on which they agree are the
//! ones printed.
//!
//! Computed quantities (the names a claim file may call):
//!
//! | call | value | fields |
//! |---|---|---|
//! | `opt(P)` P ∈ sita, sita-e, tags, tags-minmax | the optimum's metric | `value`, `queueing`, `wasted`, `cutoff[i]`, `host_load[i]`, `host_waiting[i]`, `max_queue`, `idle_hosts`, `lambda`, `rho` |
//! | `eval(P, cutoffs=Q)` P ∈ sita, tags, random; Q an `opt` policy or `"c1,c2"` | the metric at those cutoffs | as `opt` |
//! | `threshold()` | ρ*(F, h) (h may be `inf`) | `load`, `lambda`, `cutoff[i]`, `argmax` |
//! | `lwl()` | Least-Work-Left by the Lee–Longton approximation (labelled) | `value` |
//! | `lwl_sim(jobs=, replications=, seed=, warmup=)` | Least-Work-Left simulated (mean ± 95 % half-width) | `value` |
//! | `tags_host_error(host=i, cutoffs=Q, …)` | (formula − simulated)/simulated at TAGS host i, simulated; Q = `balanced`, an `opt` policy or `"c1,c2"` | `value`, `simulated`, `formula`, `load` |
//! | `tags_stable()` | 1 if stable TAGS cutoffs exist at the load (greedy), else 0 | |
//! | `tags_stable_search(n)` | the same decided by exhaustive search over an n-point grid | |
//! | `mean()`, `moment(j)`, `sup_x_tail()` | E[X], E[X^j], sup x F̄(x) | |
//!
//! Every call takes overrides `name=value`: `dist="…"`, `hosts=…|inf`, `load=…`,
//! `lambda=…`, `load_per_host=…`, `metric=…`, or any grid variable (`alpha=1`).
//!
//! A simulated value also carries its 95 % half-width and heavy-tail warnings
//! ([`SimUnc`]), propagated through the expression; the verdicts add the half-width to the
//! numerical uncertainty and treat a warning as INCONCLUSIVE.

use super::expr::{Arg, Expr, Field, Op};
use crate::dist::{DistFactory, DistSpec, JobSize};
use crate::num::certify::to_sci;
use crate::num::parse_decimal;
use crate::optimize::threshold::{greedy, tags_threshold, Threshold};
use crate::optimize::{grid::make_grid, optimal_cutoffs_pair, OptPolicy, Optimum};
use crate::policy::mmh::erlang_c;
use crate::policy::{evaluate, tags::host_load, Evaluation, LoadSpec, Metric, PolicyKind};
use crate::sim::dispatch::setup::{simulated_mean, Quantity, SimRequest, ANALYTIC_BITS};
use crate::sim::dispatch::tags_error::{balanced_cutoffs, tags_poisson_error, TagsHostError};
use crate::sim::dispatch::SimPolicy;
use rug::Float;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// A value at the two precisions (low, high), and, when it depends on a simulation, the
/// simulation's statistical uncertainty.
#[derive(Debug, Clone)]
pub struct Pair {
    /// At the working precision.
    pub lo: Float,
    /// At the certifying (higher) precision.
    pub hi: Float,
    /// The statistical uncertainty of a simulated value (`None` for computed values).
    pub sim: Option<Box<SimUnc>>,
}

/// The statistical uncertainty a simulated quantity carries through an expression.
///
/// A simulated mean enters with its 95 % confidence half-width (Student t over independent
/// replications, [`crate::sim::stats`]). Arithmetic propagates it as the largest change of
/// the result over the inputs' intervals (exact bounds for `+ − × ÷ ln log10 exp sqrt abs
/// min max`, first order for `^`), adding the contributions of the inputs linearly: this
/// is conservative when two inputs come from the same simulation (their errors may be
/// correlated) and never narrower than the delta method. A divisor whose interval contains
/// 0 makes the half-width infinite.
#[derive(Debug, Clone)]
pub struct SimUnc {
    /// 95 % half-width (at the certifying precision; +∞ when it cannot be bounded).
    pub half_width: Float,
    /// Heavy-tail warnings of the simulations the value depends on: while any is present,
    /// the interval is not trusted and the verdict is INCONCLUSIVE.
    pub warnings: Vec<String>,
    /// The simulations the value depends on, in words (for the evidence).
    pub sources: Vec<String>,
}

impl Pair {
    fn map2(&self, o: &Pair, f: impl Fn(&Float, &Float) -> Float) -> Pair {
        Pair {
            lo: f(&self.lo, &o.lo),
            hi: f(&self.hi, &o.hi),
            sim: None,
        }
    }
    fn map(&self, f: impl Fn(&Float) -> Float) -> Pair {
        Pair {
            lo: f(&self.lo),
            hi: f(&self.hi),
            sim: None,
        }
    }
    /// |hi − lo|: the numerical uncertainty.
    pub fn spread(&self) -> Float {
        Float::with_val(self.hi.prec(), &self.hi - &self.lo).abs()
    }
    /// The simulation's 95 % half-width, 0 for a computed value.
    pub fn sim_half_width(&self) -> Float {
        match &self.sim {
            Some(s) => s.half_width.clone(),
            None => Float::with_val(self.hi.prec(), 0),
        }
    }
    /// The total uncertainty a verdict allows for: the spread between the precisions plus
    /// the simulation's half-width.
    pub fn uncertainty(&self) -> Float {
        Float::with_val(self.hi.prec(), self.spread() + self.sim_half_width())
    }
    /// Heavy-tail warnings of the simulations behind the value.
    pub fn warnings(&self) -> &[String] {
        self.sim.as_ref().map_or(&[], |s| s.warnings.as_slice())
    }
    fn exact(bits: (u32, u32), v: i64) -> Pair {
        Pair {
            lo: Float::with_val(bits.0, v),
            hi: Float::with_val(bits.1, v),
            sim: None,
        }
    }
    /// A simulated estimate: the same f64 at both precisions, with its half-width.
    fn simulated(
        bits: (u32, u32),
        mean: f64,
        hw: f64,
        warnings: Vec<String>,
        source: String,
    ) -> Pair {
        Pair {
            lo: Float::with_val(bits.0, mean),
            hi: Float::with_val(bits.1, mean),
            sim: Some(Box::new(SimUnc {
                half_width: Float::with_val(bits.1, hw),
                warnings,
                sources: vec![source],
            })),
        }
    }
    /// `self` with a simulation uncertainty of half-width `hw` built from `inputs`' (none
    /// when no input is simulated).
    fn with_sim_of(mut self, inputs: &[&Pair], hw: Float) -> Pair {
        if inputs.iter().all(|p| p.sim.is_none()) {
            return self;
        }
        let mut warnings: Vec<String> = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        for s in inputs.iter().filter_map(|p| p.sim.as_ref()) {
            for w in &s.warnings {
                if !warnings.contains(w) {
                    warnings.push(w.clone());
                }
            }
            for w in &s.sources {
                if !sources.contains(w) {
                    sources.push(w.clone());
                }
            }
        }
        let hw = if hw.is_nan() {
            Float::with_val(hw.prec(), rug::float::Special::Infinity)
        } else {
            hw
        };
        self.sim = Some(Box::new(SimUnc {
            half_width: hw,
            warnings,
            sources,
        }));
        self
    }
}

fn inf(bits: u32) -> Float {
    Float::with_val(bits, rug::float::Special::Infinity)
}

/// The half-width of `x op y` (result `r`) from the inputs' half-widths: the largest
/// |(x + dx) op (y + dy) − x op y| over |dx| ≤ u_x, |dy| ≤ u_y (first order for `^`).
fn bin_half_width(op: Op, x: &Pair, y: &Pair, r: &Pair) -> Float {
    let bits = r.hi.prec();
    let ux = x.sim_half_width();
    let uy = y.sim_half_width();
    let ax = Float::with_val(bits, x.hi.abs_ref());
    let ay = Float::with_val(bits, y.hi.abs_ref());
    let ar = Float::with_val(bits, r.hi.abs_ref());
    match op {
        Op::Add | Op::Sub => Float::with_val(bits, &ux + &uy),
        // |x dy + y dx + dx dy|
        Op::Mul => {
            Float::with_val(bits, &ax * &uy)
                + Float::with_val(bits, &ay * &ux)
                + Float::with_val(bits, &ux * &uy)
        }
        // |(x + dx)/(y + dy) − x/y| = |y dx − x dy| / |y (y + dy)| ≤ (u_x + |x/y| u_y)/(|y| − u_y)
        Op::Div => {
            if uy >= ay {
                inf(bits)
            } else {
                Float::with_val(bits, &ux + Float::with_val(bits, &ar * &uy))
                    / Float::with_val(bits, &ay - &uy)
            }
        }
        // first order: |x^y| (|y| u_x/|x| + |ln|x|| u_y)
        Op::Pow => {
            if ax.is_zero() {
                return inf(bits);
            }
            let a = Float::with_val(bits, y.hi.abs_ref()) * &ux / &ax;
            let b = Float::with_val(bits, ax.ln_ref()).abs() * &uy;
            Float::with_val(bits, &ar * Float::with_val(bits, &a + &b))
        }
    }
}

/// The half-width of a one-argument function of `x` (result `r`).
fn fn_half_width(name: &str, x: &Pair, r: &Pair) -> Float {
    let bits = r.hi.prec();
    let u = x.sim_half_width();
    if u.is_zero() {
        return u;
    }
    let v = &x.hi;
    match name {
        // the lower end is the farther: −ln(1 − u/x)
        "ln" | "log10" => {
            if u >= *v {
                return inf(bits);
            }
            let q = Float::with_val(bits, &u / v);
            let d = -Float::with_val(bits, (Float::with_val(bits, 1) - q).ln_ref());
            if name == "log10" {
                d / Float::with_val(bits, 10).ln()
            } else {
                d
            }
        }
        // e^x (e^u − 1)
        "exp" => Float::with_val(bits, &r.hi * (Float::with_val(bits, u.exp_ref()) - 1u32)),
        // √x − √(max(x − u, 0))
        "sqrt" => {
            let low = Float::with_val(bits, v - &u).max(&Float::with_val(bits, 0));
            Float::with_val(bits, &r.hi - low.sqrt())
        }
        _ => u,
    }
}

/// The system of a claim, as written (templates and expressions).
#[derive(Debug, Clone)]
pub struct SetupDef {
    /// Distribution template.
    pub dist: String,
    /// Hosts expression, or `None` for `inf`.
    pub hosts: Option<Expr>,
    /// Load: (kind, expression); kind is `load`, `load_per_host` or `lambda`.
    pub load: Option<(String, Expr)>,
    /// Metric.
    pub metric: Metric,
    /// Digits.
    pub digits: u32,
}

/// A computed object, cached per claim.
#[derive(Debug)]
enum Computed {
    Opt(Box<(Optimum, Optimum)>, Pair, Pair),
    Eval(Box<(Evaluation, Evaluation)>, Vec<Pair>, Pair, Pair),
    Thr(Box<(Threshold, Threshold)>),
    Num(Pair),
    /// Per-host TAGS approximation errors, the heavy-tail warnings, the simulation in words.
    TagsErr(Vec<TagsHostError>, Vec<String>, String),
    /// Cutoffs as decimal strings.
    Cuts(Vec<String>),
}

/// Results shared by the points of one claim (same key, same numbers).
#[derive(Default)]
pub struct Cache {
    map: Mutex<HashMap<String, Arc<Result<Computed, String>>>>,
}

impl Cache {
    fn get_or(
        &self,
        key: String,
        f: impl FnOnce() -> Result<Computed, String>,
    ) -> Arc<Result<Computed, String>> {
        if let Ok(m) = self.map.lock() {
            if let Some(v) = m.get(&key) {
                return v.clone();
            }
        }
        let v = Arc::new(f());
        if let Ok(mut m) = self.map.lock() {
            m.insert(key, v.clone());
        }
        v
    }
}

/// The resolved system at a point.
#[derive(Debug, Clone)]
struct System {
    dist: String,
    hosts: Option<usize>,
    load: Option<LoadSpec>,
    metric: Metric,
}

/// Evaluation context: one grid point.
pub struct Ctx<'a> {
    /// Grid variables at this point (name, value as written).
    pub vars: BTreeMap<String, String>,
    /// The claim's setup.
    pub setup: &'a SetupDef,
    /// Overrides of setup keys made by enclosing calls.
    pub over: BTreeMap<String, OverVal>,
    /// The cache.
    pub cache: &'a Cache,
    /// The two precisions.
    pub bits: (u32, u32),
}

/// An override's value.
#[derive(Debug, Clone)]
pub enum OverVal {
    /// A text (a dist spec, a metric, `inf`).
    Text(String),
    /// A number rendered as a decimal string.
    Number(String),
}

/// Rounds of substitution (a grid value may itself hold `{p}`).
pub const SUBSTITUTION_DEPTH: usize = 3;

/// Replaces `{name}` by the variable's value (repeatedly, so that a grid value such as
/// `"uniform:a=1,b={p}"` is completed too).
pub fn substitute(t: &str, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut s = substitute_once(t, vars)?;
    for _ in 1..SUBSTITUTION_DEPTH {
        if !s.contains('{') {
            break;
        }
        s = substitute_once(&s, vars)?;
    }
    Ok(s)
}

fn substitute_once(t: &str, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let j = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in '{t}'"))?;
        let name = after[..j].trim();
        let v = vars
            .get(name)
            .ok_or_else(|| format!("'{t}' uses {{{name}}}, which is not a grid variable"))?;
        out.push_str(v);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn metric_named(s: &str) -> Result<Metric, String> {
    match s.trim() {
        "waiting" => Ok(Metric::Waiting),
        "response" => Ok(Metric::Response),
        "slowdown" => Ok(Metric::Slowdown),
        other => Err(format!(
            "unknown metric '{other}' (waiting, response, slowdown)"
        )),
    }
}

/// Parses a metric name of the schema.
pub fn parse_metric(s: &str) -> Result<Metric, String> {
    metric_named(s)
}

fn opt_policy(s: &str) -> Result<OptPolicy, String> {
    Ok(match s {
        "sita" => OptPolicy::Sita,
        "sita-e" => OptPolicy::SitaE,
        "tags" => OptPolicy::Tags,
        "tags-minmax" => OptPolicy::TagsMinmax,
        other => {
            return Err(format!(
                "unknown policy '{other}' for opt (sita, sita-e, tags, tags-minmax)"
            ))
        }
    })
}

/// Digits kept when a computed number becomes a decimal string (a load from an
/// expression): far more than any claim asks for, so the string is exact to the
/// working precision.
pub const RENDER_EXTRA_DIGITS: u32 = 10;

/// Names recognised as calls.
pub const QUANTITIES: &[&str] = &[
    "opt",
    "eval",
    "threshold",
    "lwl",
    "lwl_sim",
    "tags_host_error",
    "tags_stable",
    "tags_stable_search",
    "mean",
    "moment",
    "sup_x_tail",
];
/// Mathematical functions.
pub const FUNCTIONS: &[&str] = &["ln", "log10", "exp", "sqrt", "abs", "min", "max"];
/// Setup keys an override may set.
pub const SETUP_KEYS: &[&str] = &["dist", "hosts", "load", "lambda", "load_per_host", "metric"];

/// Options of the simulated quantities (`lwl_sim`, `tags_host_error`).
pub const SIM_KEYS: &[&str] = &["jobs", "replications", "seed", "warmup"];
/// Measured jobs per replication of a simulated quantity unless `jobs=` says otherwise.
pub const DEFAULT_SIM_JOBS: u64 = 200_000;
/// Replications of a simulated quantity unless `replications=` says otherwise.
pub const DEFAULT_SIM_REPLICATIONS: usize = 10;
/// Base seed of a simulated quantity unless `seed=` says otherwise.
pub const DEFAULT_SIM_SEED: u64 = 1;
/// Warm-up is jobs / this unless `warmup=` says otherwise (as `taskassign simulate`).
pub const DEFAULT_SIM_WARMUP_FRACTION: u64 = 10;
/// The sweep-point coordinate of every simulated quantity's random streams: every grid
/// point of a claim uses the streams (seed, 0, replication) — common random numbers; a
/// different `seed=` gives an independent run.
pub const SIM_POINT: u64 = 0;
/// Significant digits of the cutoffs handed to the simulator: enough to round-trip an f64
/// (the simulator runs in f64; the formula it is compared with uses the same decimal).
const SIM_CUTOFF_DIGITS: u32 = 17;
/// Largest integer a simulation option may take (exact in f64).
const MAX_SIM_OPTION: f64 = 9.007_199_254_740_992e15;

/// Named arguments a quantity reads itself (they are not setup overrides).
fn own_args(name: &str) -> &'static [&'static str] {
    match name {
        "eval" => &["cutoffs"],
        "lwl_sim" => SIM_KEYS,
        "tags_host_error" => &["jobs", "replications", "seed", "warmup", "host", "cutoffs"],
        _ => &[],
    }
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
    fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.jobs, self.replications, self.seed, self.warmup
        )
    }
    fn describe(&self) -> String {
        format!(
            "{} replications x {} jobs ({} warm-up), seed {}",
            self.replications, self.jobs, self.warmup, self.seed
        )
    }
}

/// Largest grid accepted by `tags_stable_search`.
pub const MAX_SEARCH_GRID: usize = 400;

impl<'a> Ctx<'a> {
    fn digits(&self) -> u32 {
        self.setup.digits
    }

    fn child(&self) -> Ctx<'a> {
        Ctx {
            vars: self.vars.clone(),
            setup: self.setup,
            over: self.over.clone(),
            cache: self.cache,
            bits: self.bits,
        }
    }

    fn render(&self, p: &Pair) -> String {
        to_sci(&p.hi, self.digits() + RENDER_EXTRA_DIGITS)
    }

    fn num_literal(&self, s: &str) -> Result<Pair, String> {
        Ok(Pair {
            lo: parse_decimal(s, self.bits.0).map_err(|e| e.to_string())?,
            hi: parse_decimal(s, self.bits.1).map_err(|e| e.to_string())?,
            sim: None,
        })
    }

    /// The system at this point (the load is left out when `with_load` is false).
    fn system(&self, with_load: bool) -> Result<System, String> {
        let dist = match self.over.get("dist") {
            Some(OverVal::Text(s)) | Some(OverVal::Number(s)) => substitute(s, &self.vars)?,
            None => substitute(&self.setup.dist, &self.vars)?,
        };
        let metric = match self.over.get("metric") {
            Some(OverVal::Text(s)) | Some(OverVal::Number(s)) => metric_named(s)?,
            None => self.setup.metric,
        };
        let hosts = match self.over.get("hosts") {
            Some(OverVal::Text(s)) if s == "inf" => None,
            Some(OverVal::Text(s)) | Some(OverVal::Number(s)) => Some(hosts_from_text(s)?),
            None => match &self.setup.hosts {
                None => None,
                Some(Expr::Var(v)) if self.vars.get(v).is_some_and(|x| x == "inf") => None,
                Some(e) => {
                    let mut c = self.child();
                    c.over
                        .insert("__no_load".into(), OverVal::Text(String::new()));
                    let v = c.eval(e)?;
                    Some(hosts_from_text(&to_sci(&v.hi, 30))?)
                }
            },
        };
        let load = if !with_load || self.over.contains_key("__no_load") {
            None
        } else {
            let given = ["load", "lambda", "load_per_host"]
                .iter()
                .find_map(|k| self.over.get(*k).map(|v| (k.to_string(), v.clone())));
            let (kind, text) = match given {
                Some((k, OverVal::Number(s))) | Some((k, OverVal::Text(s))) => (k, s),
                None => match &self.setup.load {
                    None => {
                        return Err("the setup gives no load (load, lambda or load_per_host)".into())
                    }
                    Some((k, e)) => {
                        let text = match e {
                            Expr::Num(s) => s.clone(),
                            Expr::Var(v) if self.vars.contains_key(v) => self.vars[v].clone(),
                            _ => {
                                let mut c = self.child();
                                c.over
                                    .insert("__no_load".into(), OverVal::Text(String::new()));
                                let v = c.eval(e)?;
                                c.render(&v)
                            }
                        };
                        (k.clone(), text)
                    }
                },
            };
            Some(match kind.as_str() {
                "lambda" => LoadSpec::Lambda(text),
                "load_per_host" => LoadSpec::PerHost(text),
                _ => LoadSpec::Total(text),
            })
        };
        Ok(System {
            dist,
            hosts,
            load,
            metric,
        })
    }

    /// Evaluates an expression at both precisions.
    pub fn eval(&self, e: &Expr) -> Result<Pair, String> {
        match e {
            Expr::Num(s) => self.num_literal(s),
            Expr::Var(v) => self.var(v),
            Expr::Neg(a) => {
                let x = self.eval(a)?;
                let hw = x.sim_half_width();
                Ok(x.map(|v| Float::with_val(v.prec(), -v))
                    .with_sim_of(&[&x], hw))
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                let r = match op {
                    Op::Add => x.map2(&y, |a, b| Float::with_val(a.prec(), a + b)),
                    Op::Sub => x.map2(&y, |a, b| Float::with_val(a.prec(), a - b)),
                    Op::Mul => x.map2(&y, |a, b| Float::with_val(a.prec(), a * b)),
                    Op::Div => {
                        if y.hi.is_zero() || y.lo.is_zero() {
                            return Err(format!("division by zero in {e}"));
                        }
                        x.map2(&y, |a, b| Float::with_val(a.prec(), a / b))
                    }
                    Op::Pow => x.map2(&y, |a, b| {
                        use rug::ops::Pow;
                        Float::with_val(a.prec(), a.pow(b))
                    }),
                };
                if x.sim.is_none() && y.sim.is_none() {
                    return Ok(r);
                }
                let hw = bin_half_width(*op, &x, &y, &r);
                Ok(r.with_sim_of(&[&x, &y], hw))
            }
            Expr::Call { name, args, field } => self.call(name, args, field.as_ref()),
        }
    }

    fn var(&self, v: &str) -> Result<Pair, String> {
        if let Some(s) = self.vars.get(v) {
            if s == "inf" {
                return Err(format!("variable {v} is inf, not a number"));
            }
            return self.num_literal(s);
        }
        match v {
            "hosts" => {
                let s = self.system(false)?;
                let h = s
                    .hosts
                    .ok_or_else(|| "hosts is inf, not a number".to_string())?;
                Ok(Pair::exact(self.bits, h as i64))
            }
            "rho" | "lambda" => {
                let s = self.system(true)?;
                let load = s.load.ok_or("no load at this point")?;
                let hosts = s.hosts.unwrap_or(1);
                let spec = DistSpec::parse(&s.dist).map_err(|e| e.to_string())?;
                let one = |bits: u32| -> Result<Float, String> {
                    let d = spec.build(bits).map_err(|e| e.to_string())?;
                    let (l, r) = load.resolve(d.as_ref(), hosts).map_err(|e| e.to_string())?;
                    Ok(if v == "rho" { r } else { l })
                };
                Ok(Pair {
                    lo: one(self.bits.0)?,
                    hi: one(self.bits.1)?,
                    sim: None,
                })
            }
            _ => Err(format!(
                "unknown name '{v}' (not a grid variable; known: hosts, rho, lambda)"
            )),
        }
    }

    fn call(&self, name: &str, args: &[Arg], field: Option<&Field>) -> Result<Pair, String> {
        if FUNCTIONS.contains(&name) {
            if field.is_some() {
                return Err(format!("{name}() has no fields"));
            }
            return self.function(name, args);
        }
        if !QUANTITIES.contains(&name) {
            return Err(format!(
                "unknown function '{name}' (quantities: {}; functions: {})",
                QUANTITIES.join(", "),
                FUNCTIONS.join(", ")
            ));
        }
        // Positional words and overrides.
        let mut c = self.child();
        let mut pos: Vec<&Arg> = Vec::new();
        let own = own_args(name);
        for a in args {
            match a {
                Arg::Named(n, _) if own.contains(&n.as_str()) => {}
                Arg::Named(n, v) => {
                    let val = match v.as_ref() {
                        Arg::Str(s) => OverVal::Text(s.clone()),
                        Arg::Pos(Expr::Var(w)) if w == "inf" => OverVal::Text("inf".into()),
                        Arg::Pos(Expr::Var(w)) if self.vars.contains_key(w) => {
                            OverVal::Text(self.vars[w].clone())
                        }
                        Arg::Pos(Expr::Var(w)) if n == "metric" => OverVal::Text(w.clone()),
                        Arg::Pos(Expr::Num(s)) => OverVal::Number(s.clone()),
                        Arg::Pos(e) => OverVal::Number(self.render(&self.eval(e)?)),
                        Arg::Named(..) => return Err(format!("nested '=' in {name}()")),
                    };
                    if SETUP_KEYS.contains(&n.as_str()) {
                        if ["load", "lambda", "load_per_host"].contains(&n.as_str()) {
                            for k in ["load", "lambda", "load_per_host"] {
                                c.over.remove(k);
                            }
                        }
                        c.over.insert(n.clone(), val);
                    } else {
                        let s = match val {
                            OverVal::Text(s) | OverVal::Number(s) => s,
                        };
                        c.vars.insert(n.clone(), s);
                    }
                }
                other => pos.push(other),
            }
        }
        let word = |i: usize| -> Result<String, String> {
            match pos.get(i) {
                Some(Arg::Pos(Expr::Var(w))) => Ok(w.clone()),
                Some(Arg::Str(s)) => Ok(s.clone()),
                Some(other) => Err(format!("{name}(): expected a name, got '{other}'")),
                None => Err(format!("{name}(): missing argument {}", i + 1)),
            }
        };
        match name {
            "opt" => {
                if pos.len() != 1 {
                    return Err("opt(POLICY, ...) takes one policy".into());
                }
                c.opt_field(&opt_policy(&word(0)?)?, field)
            }
            "eval" => {
                if pos.len() != 1 {
                    return Err("eval(POLICY, cutoffs=..., ...) takes one policy".into());
                }
                c.eval_field(&word(0)?, args, field)
            }
            "threshold" => {
                if !pos.is_empty() {
                    return Err("threshold() takes only overrides such as hosts=inf".into());
                }
                c.threshold_field(field)
            }
            "lwl" => {
                only_value(name, field)?;
                c.lwl()
            }
            "lwl_sim" => {
                only_value(name, field)?;
                if !pos.is_empty() {
                    return Err("lwl_sim() takes only named options (jobs=, replications=, seed=, warmup=) and overrides".into());
                }
                let opts = self.sim_opts(args)?;
                c.lwl_sim(opts)
            }
            "tags_host_error" => {
                if !pos.is_empty() {
                    return Err(
                        "tags_host_error(host=i, cutoffs=..., ...) takes only named arguments"
                            .into(),
                    );
                }
                let opts = self.sim_opts(args)?;
                let host = match self.named_number(args, "host")? {
                    Some(h) => h,
                    None => {
                        return Err(
                            "tags_host_error needs host=i (1-based; -1 is the last host)".into(),
                        )
                    }
                };
                let cut = args.iter().find_map(|a| match a {
                    Arg::Named(n, v) if n == "cutoffs" => Some(v.as_ref().clone()),
                    _ => None,
                });
                c.tags_host_error(opts, host, cut.as_ref(), field)
            }
            "tags_stable" => {
                only_value(name, field)?;
                c.tags_stable()
            }
            "tags_stable_search" => {
                only_value(name, field)?;
                let n = match pos.first() {
                    Some(Arg::Pos(e)) => {
                        let v = self.eval(e)?;
                        let n = v.hi.to_f64();
                        if !(n >= 2.0 && n <= MAX_SEARCH_GRID as f64) {
                            return Err(format!(
                                "tags_stable_search(n): n must be between 2 and {MAX_SEARCH_GRID}"
                            ));
                        }
                        n as usize
                    }
                    _ => return Err("tags_stable_search(n) needs the grid size n".into()),
                };
                c.tags_stable_search(n)
            }
            "mean" | "moment" | "sup_x_tail" => {
                only_value(name, field)?;
                let j = if name == "moment" {
                    match pos.first() {
                        Some(Arg::Pos(Expr::Num(s))) => s
                            .parse::<i32>()
                            .map_err(|_| format!("moment(j): j must be -1, 0, 1 or 2, got {s}"))?,
                        Some(Arg::Pos(Expr::Neg(b))) => match b.as_ref() {
                            Expr::Num(s) if s == "1" => -1,
                            _ => return Err("moment(j): j must be -1, 0, 1 or 2".into()),
                        },
                        _ => return Err("moment(j) needs the order j".into()),
                    }
                } else {
                    1
                };
                c.dist_number(name, j)
            }
            _ => Err(format!("unknown quantity '{name}'")),
        }
    }

    fn function(&self, name: &str, args: &[Arg]) -> Result<Pair, String> {
        let vals: Vec<Pair> = args
            .iter()
            .map(|a| match a {
                Arg::Pos(e) => self.eval(e),
                other => Err(format!("{name}(): unexpected argument '{other}'")),
            })
            .collect::<Result<_, _>>()?;
        if name == "min" || name == "max" {
            // |min(x + dx, …) − min(x, …)| ≤ max |dx|: the largest half-width of the arguments.
            let bits = self.bits.1;
            let hw = vals
                .iter()
                .map(Pair::sim_half_width)
                .fold(Float::with_val(bits, 0), |a, b| a.max(&b));
            let refs: Vec<&Pair> = vals.iter().collect();
            let mut acc: Option<&Pair> = None;
            for v in &vals {
                let take = match acc {
                    None => true,
                    Some(a) if name == "min" => v.hi < a.hi,
                    Some(a) => v.hi > a.hi,
                };
                if take {
                    acc = Some(v);
                }
            }
            let acc = acc.ok_or_else(|| format!("{name}() needs at least one argument"))?;
            let picked = Pair {
                lo: acc.lo.clone(),
                hi: acc.hi.clone(),
                sim: None,
            };
            return Ok(picked.with_sim_of(&refs, hw));
        }
        if vals.len() != 1 {
            return Err(format!("{name}() takes one argument"));
        }
        let x = &vals[0];
        let domain = |ok: bool| -> Result<(), String> {
            if ok {
                Ok(())
            } else {
                Err(format!("{name}() of {} is undefined", to_sci(&x.hi, 6)))
            }
        };
        let r = match name {
            "ln" => {
                domain(x.hi > 0 && x.lo > 0)?;
                x.map(|v| Float::with_val(v.prec(), v.ln_ref()))
            }
            "log10" => {
                domain(x.hi > 0 && x.lo > 0)?;
                x.map(|v| Float::with_val(v.prec(), v.log10_ref()))
            }
            "exp" => x.map(|v| Float::with_val(v.prec(), v.exp_ref())),
            "sqrt" => {
                domain(x.hi >= 0 && x.lo >= 0)?;
                x.map(|v| Float::with_val(v.prec(), v.sqrt_ref()))
            }
            _ => x.map(|v| Float::with_val(v.prec(), v.abs_ref())),
        };
        if x.sim.is_none() {
            return Ok(r);
        }
        let hw = fn_half_width(name, x, &r);
        Ok(r.with_sim_of(&[x], hw))
    }

    fn spec(&self, s: &System) -> Result<DistSpec, String> {
        DistSpec::parse(&s.dist).map_err(|e| e.to_string())
    }

    fn need_hosts(s: &System, what: &str) -> Result<usize, String> {
        s.hosts.ok_or_else(|| {
            format!("{what} needs a finite number of hosts (hosts = inf is only for threshold)")
        })
    }

    fn opt_pair(&self, policy: OptPolicy) -> Result<Arc<Result<Computed, String>>, String> {
        let s = self.system(true)?;
        let hosts = Self::need_hosts(&s, "opt")?;
        let load = s.load.clone().ok_or("opt needs a load")?;
        let key = format!(
            "opt|{}|{}|{hosts}|{load:?}|{}",
            policy.name(),
            s.dist,
            s.metric.name()
        );
        let bits = self.bits;
        Ok(self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let (a, b) = optimal_cutoffs_pair(&spec, &load, hosts, policy, s.metric, bits)
                .map_err(|e| {
                    format!(
                        "optimize --policy {} --dist {} --hosts {hosts} {}: {e}",
                        policy.name(),
                        s.dist,
                        load_flag(&load)
                    )
                })?;
            let resolve = |bits: u32| -> Result<(Float, Float), String> {
                let d = spec.build(bits).map_err(|e| e.to_string())?;
                load.resolve(d.as_ref(), hosts).map_err(|e| e.to_string())
            };
            let (l1, r1) = resolve(bits.0)?;
            let (l2, r2) = resolve(bits.1)?;
            Ok(Computed::Opt(
                Box::new((a, b)),
                Pair {
                    lo: l1,
                    hi: l2,
                    sim: None,
                },
                Pair {
                    lo: r1,
                    hi: r2,
                    sim: None,
                },
            ))
        }))
    }

    fn opt_field(&self, policy: &OptPolicy, field: Option<&Field>) -> Result<Pair, String> {
        let r = self.opt_pair(*policy)?;
        match r.as_ref() {
            Ok(Computed::Opt(ab, lam, rho)) => {
                let (a, b) = ab.as_ref();
                let f = field.map(|f| f.name.as_str()).unwrap_or("value");
                match f {
                    "max_queue" => match (&a.max_queue, &b.max_queue) {
                        (Some(x), Some(y)) => Ok(Pair {
                            lo: x.clone(),
                            hi: y.clone(),
                            sim: None,
                        }),
                        _ => Err("max_queue exists only for opt(tags-minmax)".into()),
                    },
                    "idle_hosts" => Ok(Pair::exact(self.bits, b.idle_hosts as i64)),
                    "cutoff" => {
                        if a.cutoffs.len() != b.cutoffs.len() {
                            return Err(
                                "the two precisions disagree on the number of cutoffs".into()
                            );
                        }
                        pick(&a.cutoffs, &b.cutoffs, field, "cutoff")
                    }
                    _ => eval_fields(&a.eval, &b.eval, lam, rho, field),
                }
            }
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    fn eval_field(
        &self,
        policy: &str,
        args: &[Arg],
        field: Option<&Field>,
    ) -> Result<Pair, String> {
        let kind = match policy {
            "sita" => PolicyKind::Sita,
            "tags" => PolicyKind::Tags,
            "random" => PolicyKind::Random,
            other => {
                return Err(format!(
                    "unknown policy '{other}' for eval (sita, tags, random)"
                ))
            }
        };
        let cut = args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == "cutoffs" => Some(v.as_ref().clone()),
            _ => None,
        });
        let s = self.system(true)?;
        let hosts = Self::need_hosts(&s, "eval")?;
        let load = s.load.clone().ok_or("eval needs a load")?;
        // Cutoffs at each precision.
        let (c1, c2): (Vec<Float>, Vec<Float>) = match (&cut, kind) {
            (None, PolicyKind::Random) => (vec![], vec![]),
            (None, _) => return Err(
                "eval(sita|tags, cutoffs=...) needs cutoffs: an opt policy (sita-e) or \"c1,c2\""
                    .into(),
            ),
            (Some(Arg::Str(list)), _) => {
                let parse = |bits: u32| -> Result<Vec<Float>, String> {
                    list.split(',')
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(|x| {
                            parse_decimal(&substitute(x, &self.vars)?, bits)
                                .map_err(|e| e.to_string())
                        })
                        .collect()
                };
                (parse(self.bits.0)?, parse(self.bits.1)?)
            }
            (Some(Arg::Pos(Expr::Var(w))), _) => {
                let p = opt_policy(w)?;
                let r = self.opt_pair(p)?;
                match r.as_ref() {
                    Ok(Computed::Opt(ab, _, _)) => (ab.0.cutoffs_free(), ab.1.cutoffs_free()),
                    Ok(_) => return Err("internal: cache entry of the wrong kind".into()),
                    Err(e) => return Err(e.clone()),
                }
            }
            (Some(other), _) => {
                return Err(format!(
                    "cutoffs={other}: give an opt policy name or a string \"c1,c2\""
                ))
            }
        };
        let used = if kind == PolicyKind::Random {
            hosts
        } else {
            c1.len() + 1
        };
        let key = format!(
            "eval|{}|{}|{used}|{load:?}|{}|{}",
            kind.name(),
            s.dist,
            s.metric.name(),
            c2.iter()
                .map(|c| to_sci(c, 40))
                .collect::<Vec<_>>()
                .join(",")
        );
        let bits = self.bits;
        let r = self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let run = |b: u32, cuts: &[Float]| -> Result<(Evaluation, Float, Float), String> {
                let d = spec.build(b).map_err(|e| e.to_string())?;
                let (l, rho) = load.resolve(d.as_ref(), used).map_err(|e| e.to_string())?;
                let e = evaluate(kind, d.as_ref(), &l, used, cuts, s.metric)
                    .map_err(|e| e.to_string())?;
                Ok((e, l, rho))
            };
            let (e1, l1, r1) = run(bits.0, &c1)?;
            let (e2, l2, r2) = run(bits.1, &c2)?;
            let cuts = c1
                .iter()
                .zip(&c2)
                .map(|(a, b)| Pair {
                    lo: a.clone(),
                    hi: b.clone(),
                    sim: None,
                })
                .collect();
            Ok(Computed::Eval(
                Box::new((e1, e2)),
                cuts,
                Pair {
                    lo: l1,
                    hi: l2,
                    sim: None,
                },
                Pair {
                    lo: r1,
                    hi: r2,
                    sim: None,
                },
            ))
        });
        match r.as_ref() {
            Ok(Computed::Eval(ee, cuts, lam, rho)) => {
                if field.map(|f| f.name.as_str()) == Some("cutoff") {
                    let lo: Vec<Float> = cuts.iter().map(|p| p.lo.clone()).collect();
                    let hi: Vec<Float> = cuts.iter().map(|p| p.hi.clone()).collect();
                    return pick(&lo, &hi, field, "cutoff");
                }
                eval_fields(&ee.0, &ee.1, lam, rho, field)
            }
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    fn threshold_field(&self, field: Option<&Field>) -> Result<Pair, String> {
        let s = self.system(false)?;
        let key = format!("thr|{}|{:?}", s.dist, s.hosts);
        let bits = self.bits;
        let r = self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let run = |b: u32| -> Result<Threshold, String> {
                let d = spec.build(b).map_err(|e| e.to_string())?;
                tags_threshold(d.as_ref(), s.hosts).map_err(|e| {
                    let h = s
                        .hosts
                        .map(|h| h.to_string())
                        .unwrap_or_else(|| "inf".into());
                    format!("threshold --dist {} --hosts {h}: {e}", s.dist)
                })
            };
            Ok(Computed::Thr(Box::new((run(bits.0)?, run(bits.1)?))))
        });
        match r.as_ref() {
            Ok(Computed::Thr(tt)) => {
                let (a, b) = tt.as_ref();
                match field.map(|f| f.name.as_str()).unwrap_or("load") {
                    "load" => Ok(Pair {
                        lo: a.load.clone(),
                        hi: b.load.clone(),
                        sim: None,
                    }),
                    "lambda" => Ok(Pair {
                        lo: a.lambda.clone(),
                        hi: b.lambda.clone(),
                        sim: None,
                    }),
                    "argmax" => match (&a.argmax, &b.argmax) {
                        (Some(x), Some(y)) => Ok(Pair {
                            lo: x.clone(),
                            hi: y.clone(),
                            sim: None,
                        }),
                        _ => Err("argmax exists only for threshold(hosts=inf)".into()),
                    },
                    "cutoff" => pick(&a.cutoffs, &b.cutoffs, field, "cutoff"),
                    other => Err(format!(
                        "threshold() has no field '{other}' (load, lambda, cutoff[i], argmax)"
                    )),
                }
            }
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    fn per_precision<F>(&self, key: String, f: F) -> Result<Pair, String>
    where
        F: Fn(&dyn JobSize, &System) -> Result<Float, String>,
    {
        let s = self.system(!key.starts_with("dist|"))?;
        let key = format!(
            "{key}|{}|{:?}|{:?}|{}",
            s.dist,
            s.hosts,
            s.load,
            s.metric.name()
        );
        let bits = self.bits;
        let r = self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let run = |b: u32| -> Result<Float, String> {
                let d = spec.build(b).map_err(|e| e.to_string())?;
                f(d.as_ref(), &s)
            };
            Ok(Computed::Num(Pair {
                lo: run(bits.0)?,
                hi: run(bits.1)?,
                sim: None,
            }))
        });
        match r.as_ref() {
            Ok(Computed::Num(p)) => Ok(p.clone()),
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    fn dist_number(&self, name: &str, j: i32) -> Result<Pair, String> {
        let name = name.to_string();
        self.per_precision(format!("dist|{name}|{j}"), move |d, _| {
            match name.as_str() {
                "sup_x_tail" => d.sup_x_tail().map(|(_, v)| v).map_err(|e| e.to_string()),
                _ => d.moment(j).map_err(|e| e.to_string()),
            }
        })
    }

    fn lwl(&self) -> Result<Pair, String> {
        self.per_precision("lwl".into(), |d, s| {
            let hosts = Self::need_hosts(s, "lwl")?;
            let load = s.load.clone().ok_or("lwl needs a load")?;
            let (lambda, rho) = load.resolve(d, hosts).map_err(|e| e.to_string())?;
            lee_longton(d, &lambda, &rho, hosts, s.metric)
        })
    }

    /// The value of a named argument `key=` as a number (evaluated at this point).
    fn named_number(&self, args: &[Arg], key: &str) -> Result<Option<i64>, String> {
        let Some(v) = args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == key => Some(v.as_ref()),
            _ => None,
        }) else {
            return Ok(None);
        };
        let x = match v {
            Arg::Pos(e) => self.eval(e)?.hi.to_f64(),
            Arg::Str(t) => parse_decimal(&substitute(t, &self.vars)?, 64)
                .map_err(|e| format!("{key}={t}: {e}"))?
                .to_f64(),
            Arg::Named(..) => return Err(format!("nested '=' in {key}=")),
        };
        if !(x.is_finite() && x.fract() == 0.0 && x.abs() <= MAX_SIM_OPTION) {
            return Err(format!("{key}= must be an integer, got {x}"));
        }
        Ok(Some(x as i64))
    }

    /// `jobs=`, `replications=`, `seed=`, `warmup=` with their defaults.
    fn sim_opts(&self, args: &[Arg]) -> Result<SimOpts, String> {
        let count = |key: &str, min: i64| -> Result<Option<u64>, String> {
            match self.named_number(args, key)? {
                None => Ok(None),
                Some(v) if v >= min => Ok(Some(v as u64)),
                Some(v) => Err(format!("{key}= must be at least {min}, got {v}")),
            }
        };
        let jobs = count("jobs", 1)?.unwrap_or(DEFAULT_SIM_JOBS);
        let replications = match count("replications", crate::sim::MIN_REPLICATIONS as i64)? {
            None => DEFAULT_SIM_REPLICATIONS,
            Some(r) if r <= crate::sim::MAX_REPLICATIONS as u64 => r as usize,
            Some(r) => {
                return Err(format!(
                    "replications= must be at most {}, got {r}",
                    crate::sim::MAX_REPLICATIONS
                ))
            }
        };
        let seed = count("seed", 0)?.unwrap_or(DEFAULT_SIM_SEED);
        let warmup = count("warmup", 0)?.unwrap_or(jobs / DEFAULT_SIM_WARMUP_FRACTION);
        Ok(SimOpts {
            jobs,
            replications,
            seed,
            warmup,
        })
    }

    /// Least-Work-Left (the M/G/h central FCFS queue), simulated: the metric's mean with its
    /// 95 % half-width and the heavy-tail diagnosis ([`simulated_mean`]).
    fn lwl_sim(&self, opts: SimOpts) -> Result<Pair, String> {
        let s = self.system(true)?;
        let hosts = Self::need_hosts(&s, "lwl_sim")?;
        let load = s.load.clone().ok_or("lwl_sim needs a load")?;
        let key = format!(
            "lwlsim|{}|{hosts}|{load:?}|{}|{}",
            s.dist,
            s.metric.name(),
            opts.key()
        );
        let bits = self.bits;
        let r = self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let req = SimRequest {
                policy: SimPolicy::Lwl,
                dist: &spec,
                hosts,
                load: load.clone(),
                cutoffs: vec![],
                interarrival: None,
                jobs: opts.jobs,
                warmup: opts.warmup,
                replications: opts.replications,
                seed: opts.seed,
                point: SIM_POINT,
            };
            let q = match s.metric {
                Metric::Waiting => Quantity::Waiting,
                Metric::Response => Quantity::Response,
                Metric::Slowdown => Quantity::Slowdown,
            };
            let what = format!(
                "simulate --policy lwl --dist {} --hosts {hosts} {} --jobs {} --replications {} --seed {} --warmup {}",
                s.dist,
                load_flag(&load),
                opts.jobs,
                opts.replications,
                opts.seed,
                opts.warmup
            );
            let (est, tail) = simulated_mean(&req, q).map_err(|e| format!("{what}: {e}"))?;
            if !est.mean.is_finite() {
                return Err(format!("{what}: no finite estimate"));
            }
            Ok(Computed::Num(Pair::simulated(
                bits,
                est.mean,
                est.half_width,
                tail.describe(),
                format!("LWL {} simulated ({})", s.metric.name(), opts.describe()),
            )))
        });
        match r.as_ref() {
            Ok(Computed::Num(p)) => Ok(p.clone()),
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    /// The TAGS cutoffs named by `cutoffs=` as decimal strings: `balanced` (equal host
    /// loads, [`balanced_cutoffs`]), an `opt` policy, or a string `'c1,c2'`.
    fn tags_cutoff_texts(
        &self,
        s: &System,
        hosts: usize,
        load: &LoadSpec,
        cut: Option<&Arg>,
    ) -> Result<Vec<String>, String> {
        match cut {
            None => Err("tags_host_error needs cutoffs=balanced, an opt policy (cutoffs=tags) or a string 'c1,c2'".into()),
            Some(Arg::Pos(Expr::Var(w))) if w == "balanced" => {
                let key = format!("balanced|{}|{hosts}|{load:?}", s.dist);
                let r = self.cache.get_or(key, || {
                    let spec = self.spec(s)?;
                    let d = spec.build(ANALYTIC_BITS).map_err(|e| e.to_string())?;
                    let (lambda, _) =
                        load.resolve(d.as_ref(), hosts).map_err(|e| e.to_string())?;
                    let (c, _) = balanced_cutoffs(d.as_ref(), &lambda, hosts)
                        .map_err(|e| format!("balanced TAGS cutoffs for {}: {e}", s.dist))?;
                    Ok(Computed::Cuts(
                        c.iter().map(|x| to_sci(x, SIM_CUTOFF_DIGITS)).collect(),
                    ))
                });
                match r.as_ref() {
                    Ok(Computed::Cuts(c)) => Ok(c.clone()),
                    Ok(_) => Err("internal: cache entry of the wrong kind".into()),
                    Err(e) => Err(e.clone()),
                }
            }
            Some(Arg::Pos(Expr::Var(w))) => {
                let p = opt_policy(w)?;
                let r = self.opt_pair(p)?;
                match r.as_ref() {
                    Ok(Computed::Opt(ab, _, _)) => Ok(ab
                        .1
                        .cutoffs_free()
                        .iter()
                        .map(|x| to_sci(x, SIM_CUTOFF_DIGITS))
                        .collect()),
                    Ok(_) => Err("internal: cache entry of the wrong kind".into()),
                    Err(e) => Err(e.clone()),
                }
            }
            Some(Arg::Str(list)) => list
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| substitute(x, &self.vars))
                .collect(),
            Some(other) => Err(format!(
                "cutoffs={other}: give balanced, an opt policy name or a string 'c1,c2'"
            )),
        }
    }

    /// The relative error (formula − simulated)/simulated of the TAGS formula's queueing
    /// delay per visit at host `host` ([`tags_poisson_error`]; exact at host 1, the Poisson
    /// approximation at hosts ≥ 2), with its 95 % half-width. Fields: `value` (the relative
    /// error), `simulated`, `formula`, `load` (ρ_i).
    fn tags_host_error(
        &self,
        opts: SimOpts,
        host: i64,
        cut: Option<&Arg>,
        field: Option<&Field>,
    ) -> Result<Pair, String> {
        let s = self.system(true)?;
        let hosts = Self::need_hosts(&s, "tags_host_error")?;
        let load = s.load.clone().ok_or("tags_host_error needs a load")?;
        let cutoffs = self.tags_cutoff_texts(&s, hosts, &load, cut)?;
        let k = if host < 0 {
            hosts as i64 + host
        } else {
            host - 1
        };
        if host == 0 || k < 0 || k >= hosts as i64 {
            return Err(format!(
                "host={host} does not exist ({hosts} hosts; 1-based, -1 is the last)"
            ));
        }
        let key = format!(
            "tagserr|{}|{hosts}|{load:?}|{}|{}",
            s.dist,
            cutoffs.join(","),
            opts.key()
        );
        let bits = self.bits;
        let r = self.cache.get_or(key, || {
            let spec = self.spec(&s)?;
            let req = SimRequest {
                policy: SimPolicy::Tags,
                dist: &spec,
                hosts,
                load: load.clone(),
                cutoffs: cutoffs.clone(),
                interarrival: None,
                jobs: opts.jobs,
                warmup: opts.warmup,
                replications: opts.replications,
                seed: opts.seed,
                point: SIM_POINT,
            };
            let (rows, tail) = tags_poisson_error(&req).map_err(|e| {
                format!(
                    "simulate --policy tags --dist {} --hosts {hosts} {} --cutoffs {} --jobs {} --replications {} --seed {}: {e}",
                    s.dist,
                    load_flag(&load),
                    cutoffs.join(","),
                    opts.jobs,
                    opts.replications,
                    opts.seed
                )
            })?;
            Ok(Computed::TagsErr(
                rows,
                tail.describe(),
                format!(
                    "TAGS simulated, cutoffs {} ({})",
                    cutoffs.join(","),
                    opts.describe()
                ),
            ))
        });
        match r.as_ref() {
            Ok(Computed::TagsErr(rows, warnings, source)) => {
                let row = rows
                    .get(k as usize)
                    .ok_or_else(|| format!("host {} not simulated", k + 1))?;
                let sim = |mean: f64, hw: f64| -> Result<Pair, String> {
                    if !mean.is_finite() {
                        return Err(format!(
                            "host {}: no finite estimate (no job visited it?)",
                            row.host
                        ));
                    }
                    Ok(Pair::simulated(
                        bits,
                        mean,
                        hw,
                        warnings.clone(),
                        format!("host {}: {source}", row.host),
                    ))
                };
                match field.map(|f| f.name.as_str()).unwrap_or("value") {
                    "value" => sim(row.rel_error, row.rel_error_half_width),
                    "simulated" => sim(row.simulated.mean, row.simulated.half_width),
                    "formula" => Ok(Pair {
                        lo: Float::with_val(bits.0, row.formula),
                        hi: Float::with_val(bits.1, row.formula),
                        sim: None,
                    }),
                    "load" => Ok(Pair {
                        lo: Float::with_val(bits.0, row.load),
                        hi: Float::with_val(bits.1, row.load),
                        sim: None,
                    }),
                    other => Err(format!(
                        "tags_host_error() has no field '{other}' (value, simulated, formula, load)"
                    )),
                }
            }
            Ok(_) => Err("internal: cache entry of the wrong kind".into()),
            Err(e) => Err(e.clone()),
        }
    }

    fn tags_stable(&self) -> Result<Pair, String> {
        self.per_precision("stable".into(), |d, s| {
            let hosts = Self::need_hosts(s, "tags_stable")?;
            let load = s.load.clone().ok_or("tags_stable needs a load")?;
            let (lambda, _) = load.resolve(d, hosts).map_err(|e| e.to_string())?;
            let g = greedy(d, &lambda, hosts).map_err(|e| e.to_string())?;
            Ok(Float::with_val(d.prec(), u32::from(g.stable())))
        })
    }

    fn tags_stable_search(&self, n: usize) -> Result<Pair, String> {
        self.per_precision(format!("search|{n}"), move |d, s| {
            let hosts = Self::need_hosts(s, "tags_stable_search")?;
            let load = s.load.clone().ok_or("tags_stable_search needs a load")?;
            let (lambda, _) = load.resolve(d, hosts).map_err(|e| e.to_string())?;
            let ok = exhaustive_stable(d, &lambda, hosts, n)?;
            Ok(Float::with_val(d.prec(), u32::from(ok)))
        })
    }
}

fn load_flag(l: &LoadSpec) -> String {
    match l {
        LoadSpec::Total(s) => format!("--load {s}"),
        LoadSpec::PerHost(s) => format!("--load-per-host {s}"),
        LoadSpec::Lambda(s) => format!("--lambda {s}"),
    }
}

fn hosts_from_text(s: &str) -> Result<usize, String> {
    let t = s.trim();
    if let Ok(h) = t.parse::<usize>() {
        return if h >= 1 {
            Ok(h)
        } else {
            Err("hosts must be at least 1".into())
        };
    }
    let x = parse_decimal(t, 64).map_err(|_| format!("hosts '{t}' is not a number"))?;
    let r = x.to_f64();
    if r >= 1.0 && r.fract() == 0.0 && r < 1e6 {
        Ok(r as usize)
    } else {
        Err(format!("hosts must be a positive integer, got {t}"))
    }
}

fn only_value(name: &str, field: Option<&Field>) -> Result<(), String> {
    match field {
        None => Ok(()),
        Some(f) if f.name == "value" && f.index.is_none() => Ok(()),
        Some(f) => Err(format!("{name}() has no field '{}'", f.name)),
    }
}

fn pick(lo: &[Float], hi: &[Float], field: Option<&Field>, what: &str) -> Result<Pair, String> {
    let i = field.and_then(|f| f.index).ok_or_else(|| {
        format!("{what} needs an index: {what}[1] is the first, {what}[-1] the last")
    })?;
    let n = hi.len() as i64;
    let k = if i < 0 { n + i } else { i - 1 };
    if k < 0 || k >= n || lo.len() != hi.len() {
        return Err(format!("{what}[{i}] does not exist ({n} of them)"));
    }
    Ok(Pair {
        lo: lo[k as usize].clone(),
        hi: hi[k as usize].clone(),
        sim: None,
    })
}

fn eval_fields(
    a: &Evaluation,
    b: &Evaluation,
    lam: &Pair,
    rho: &Pair,
    field: Option<&Field>,
) -> Result<Pair, String> {
    let f = field.map(|f| f.name.as_str()).unwrap_or("value");
    let p = |x: &Float, y: &Float| Pair {
        lo: x.clone(),
        hi: y.clone(),
        sim: None,
    };
    match f {
        "value" => Ok(p(&a.value, &b.value)),
        "queueing" => Ok(p(&a.queueing, &b.queueing)),
        "wasted" => Ok(p(&a.wasted, &b.wasted)),
        "lambda" => Ok(lam.clone()),
        "rho" => Ok(rho.clone()),
        "host_load" => pick(&a.host_loads, &b.host_loads, field, "host_load"),
        "host_waiting" => pick(&a.host_waiting, &b.host_waiting, field, "host_waiting"),
        other => Err(format!(
            "no field '{other}' (value, queueing, wasted, cutoff[i], host_load[i], host_waiting[i], max_queue, idle_hosts, lambda, rho)"
        )),
    }
}

/// Least-Work-Left (the M/G/h FCFS queue) by the Lee–Longton approximation — an
/// **approximation**, not an exact value (Lee & Longton 1959; see Whitt, "Approximations
/// for the GI/G/m queue", 1993): E[W] ≈ (1 + C²)/2 · E[W_{M/M/h}] with
/// E[W_{M/M/h}] = C(h, ρ) E[X] / (h − ρ), C² = Var X / E[X]², i.e.
/// E[W] ≈ C(h, ρ) E[X²] / (2 E[X] (h − ρ)). Exact for h = 1 (Pollaczek–Khinchine).
/// Waiting in FCFS does not depend on the job's own size, so E[W/X] = E[W] E[1/X].
pub fn lee_longton(
    d: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
    metric: Metric,
) -> Result<Float, String> {
    let bits = d.prec();
    let _ = lambda;
    let m1 = d.mean().map_err(|e| e.to_string())?;
    let m2 = d.moment(2).map_err(|e| e.to_string())?;
    let c = erlang_c(rho, hosts);
    let h = Float::with_val(bits, hosts);
    let den = Float::with_val(bits, &h - rho) * Float::with_val(bits, &m1 * 2u32);
    let w = Float::with_val(bits, &c * &m2) / den;
    Ok(match metric {
        Metric::Waiting => w,
        Metric::Response => w + m1,
        Metric::Slowdown => {
            let inv = d.moment(-1).map_err(|e| e.to_string())?;
            w * inv
        }
    })
}

/// Whether any TAGS cutoffs on an n-point grid (the optimiser's grid of job-count and work
/// quantiles and log-spaced points, independent of the greedy construction) make every
/// host's load below 1: an exhaustive search of all increasing (h − 1)-tuples, organised
/// as a reachability table over the chain of hosts (host i's load depends only on
/// (s_{i−1}, s_i)), which visits every pair of consecutive cutoffs.
pub fn exhaustive_stable(
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    n: usize,
) -> Result<bool, String> {
    let top = d.upper();
    let lo_open = d.lower_open();
    if hosts == 1 {
        let full = Float::with_val(d.prec(), lambda * &d.mean().map_err(|e| e.to_string())?);
        return Ok(full < 1);
    }
    let grid = make_grid(d, n).map_err(|e| e.to_string())?;
    let pts: Vec<Float> = grid
        .into_iter()
        .filter(|x| *x > d.lower() && *x < top)
        .collect();
    let load = |a: &Float, b: &Float| -> Result<bool, String> {
        Ok(host_load(d, lambda, a, b).map_err(|e| e.to_string())? < 1)
    };
    // reach[j]: some stable assignment of hosts 1..i ends with s_i = pts[j].
    let mut reach: Vec<bool> = pts
        .iter()
        .map(|x| load(&lo_open, x))
        .collect::<Result<_, _>>()?;
    for _ in 2..hosts {
        let mut next = vec![false; pts.len()];
        for j in 0..pts.len() {
            for m in 0..j {
                if reach[m] && load(&pts[m], &pts[j])? {
                    next[j] = true;
                    break;
                }
            }
        }
        reach = next;
    }
    for (m, x) in pts.iter().enumerate() {
        if reach[m] && load(x, &top)? {
            return Ok(true);
        }
    }
    Ok(false)
}
