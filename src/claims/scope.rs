//! Evaluating an expression at one grid point, at two precisions.
//!
//! Every number is a [`Pair`]: the value at the working precision for the claim's digits
//! and at the higher certifying precision of [`crate::num::certify_bits`]. Their difference
//! is the numerical uncertainty the verdicts use; the digits on which they agree are the
//! ones printed. Arithmetic and the mathematical functions are here; calls of computed
//! quantities go through the [`Quantities`] the scope was given (the
//! [registry](super::registry)), with the call's overrides of setup keys (`hosts=inf`,
//! `load=0.5`, `dist="…"`) and of grid variables (`alpha=1`) applied to a child scope
//! ([`Call`]). The system's variables (`hosts`, `rho`) are read from its
//! [`SystemSpec`].
//!
//! The evaluator defines the two interfaces it calls through, so that it depends on
//! neither the registry nor the models: they depend on it.
//!
//! A simulated value also carries its 95 % half-width and heavy-tail warnings
//! ([`super::value::SimUnc`]), propagated through the expression; the verdicts add the
//! half-width to the numerical uncertainty and treat a warning as INCONCLUSIVE.

use super::cache::Cache;
use super::error::QuantityError;
use super::expr::{Arg, Expr, Field, Op};
use super::proof::Proof;
use super::signature::{ModelSignature, Signature};
use super::value::{bin_half_width, fn_half_width, Pair, Value};
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use rug::Float;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

/// Mathematical functions of the language.
pub const FUNCTIONS: &[&str] = &["ln", "log10", "exp", "sqrt", "abs", "min", "max"];

/// Rounds of substitution (a grid value may itself hold `{p}`).
pub const SUBSTITUTION_DEPTH: usize = 3;

/// Digits kept when a computed number becomes a decimal string (a load from an
/// expression): far more than any claim asks for, so the string is exact to the
/// working precision.
pub const RENDER_EXTRA_DIGITS: u32 = 10;

/// Largest integer a named integer argument may take (exact in f64).
const MAX_INTEGER_ARG: f64 = 9.007_199_254_740_992e15;

/// Replaces `{name}` by the variable's value (repeatedly, so that a grid value such as
/// `"uniform:a=1,b={p}"` is completed too).
pub fn substitute(t: &str, vars: &BTreeMap<String, String>) -> Result<String, QuantityError> {
    let mut s = substitute_once(t, vars)?;
    for _ in 1..SUBSTITUTION_DEPTH {
        if !s.contains('{') {
            break;
        }
        s = substitute_once(&s, vars)?;
    }
    Ok(s)
}

fn substitute_once(t: &str, vars: &BTreeMap<String, String>) -> Result<String, QuantityError> {
    let mut out = String::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let j = after
            .find('}')
            .ok_or_else(|| QuantityError::Usage(format!("unclosed '{{' in '{t}'")))?;
        let name = after[..j].trim();
        let v = vars.get(name).ok_or_else(|| {
            QuantityError::Usage(format!(
                "'{t}' uses {{{name}}}, which is not a grid variable"
            ))
        })?;
        out.push_str(v);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// An override's value.
#[derive(Debug, Clone)]
pub enum OverVal {
    /// A text (a dist spec, a metric, `inf`).
    Text(String),
    /// A number rendered as a decimal string.
    Number(String),
}

impl OverVal {
    /// The text.
    pub fn text(&self) -> &str {
        match self {
            OverVal::Text(s) | OverVal::Number(s) => s,
        }
    }
}

/// A model's `[setup]`, compiled (by its [`crate::claims::system::Model`]): the system as
/// written, which a scope reads its setup keys and variables from. A model implements
/// [`SystemSpec::signature`] and what differs from the defaults; its quantities downcast
/// the system to their own type through [`AsAny`].
pub trait SystemSpec: AsAny + Send + Sync + std::fmt::Debug {
    /// The model's declaration.
    fn signature(&self) -> &'static ModelSignature;
    /// The model's name (`dispatch`).
    fn model(&self) -> &'static str {
        self.signature().name
    }
    /// The setup keys a call may override (`opt(tags, hosts=3)`).
    fn keys(&self) -> &'static [&'static str] {
        self.signature().keys
    }
    /// Groups of keys of which one value holds at a time: overriding one clears the others
    /// (`load`, `lambda`, `load_per_host`).
    fn exclusive(&self) -> &'static [&'static [&'static str]] {
        self.signature().exclusive
    }
    /// Names with a value at every grid point besides the grid variables (`hosts`, `rho`).
    fn variables(&self) -> &'static [&'static str] {
        self.signature().variables
    }
    /// The expression the setup gives for `key`, where the model lets the compiler read
    /// it (dispatch: `hosts`, which fixes the length of `opt()`'s per-host fields); `None`
    /// by default.
    fn setup_value(&self, key: &str) -> Option<&Expr> {
        let _ = key;
        None
    }
    /// Bare words an override of `key` takes as text (`metric=slowdown`); none by default.
    fn key_words(&self, key: &str) -> &'static [&'static str] {
        let _ = key;
        &[]
    }
    /// The value of one of [`SystemSpec::variables`] at the point of `scope` (a model
    /// without variables is never asked).
    fn variable(&self, name: &str, scope: &Scope) -> Result<Pair, QuantityError> {
        let _ = scope;
        Err(QuantityError::Internal(format!(
            "the {} model has no variable '{name}'",
            self.model()
        )))
    }
}

/// A value as [`Any`], to downcast a `&dyn SystemSpec` to its model's own type (every
/// `'static` type has it).
pub trait AsAny {
    /// `self` as [`Any`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The computed quantities a scope's calls go to (the registry is one).
pub trait Quantities: Sync {
    /// The declaration of the quantity called `name`, if there is one.
    fn signature(&self, name: &str) -> Option<&'static Signature>;
    /// Every quantity's name, for messages.
    fn names(&self) -> Vec<&'static str>;
    /// The value of the quantity `call.sig` declares, at the call's scope.
    fn eval(&self, call: &Call<'_>) -> Result<Value, QuantityError>;
}

/// One grid point: its variables, the claim's system, the overrides made by enclosing
/// calls, the quantities its calls go to, the claim's cache and the two precisions.
pub struct Scope<'a> {
    /// Grid variables at this point (name, value as written).
    pub vars: BTreeMap<String, String>,
    /// The claim's system, as written.
    pub system: &'a dyn SystemSpec,
    /// The quantities calls go to.
    pub quantities: &'a dyn Quantities,
    /// Overrides of setup keys made by enclosing calls.
    pub over: BTreeMap<String, OverVal>,
    /// The claim's cache.
    pub cache: &'a Cache,
    /// The two precisions.
    pub bits: (u32, u32),
    /// The claim's digits.
    pub digits: u32,
    /// Set while a setup expression (hosts, load) is being evaluated: the system it
    /// resolves must not need the value being computed.
    pub resolving: bool,
    /// `check --rigorous`: every number also carries its enclosure or why there is none
    /// ([`Proof`]).
    pub rigorous: bool,
    /// Under `check --rigorous`, one of its coarse stages ([`Scope::stage`]): a costly
    /// proof (a proven optimum) may stop at [`COARSE_PROOF_DIGITS`] digits or the stage's
    /// budget, which decide most relations, and raises this flag when it did, so that a
    /// check it leaves undecided is evaluated again at the next stage, the last with the
    /// proofs to the claim's digits (`None`: every proof to the claim's digits).
    pub coarse: Option<&'a AtomicBool>,
    /// Which coarse stage (0 first; [`COARSE_STAGES`] of them) when [`Scope::coarse`] is
    /// set: a costly proof's budget grows with it.
    pub stage: usize,
}

/// The coarse stages of `check --rigorous` before the one with the claim's digits
/// ([`Scope::stage`]).
pub const COARSE_STAGES: usize = 2;

/// The digits a proof of the first stage of `check --rigorous` closes its gap to
/// ([`Scope::coarse`]): a relation between numbers that differ in these digits is decided
/// by them; one that is not is judged again with the proofs to the claim's digits.
pub const COARSE_PROOF_DIGITS: u32 = 6;

impl<'a> Scope<'a> {
    /// The scope of a grid point.
    pub fn new(
        vars: BTreeMap<String, String>,
        system: &'a dyn SystemSpec,
        quantities: &'a dyn Quantities,
        cache: &'a Cache,
        digits: u32,
    ) -> Self {
        Scope {
            vars,
            system,
            quantities,
            over: BTreeMap::new(),
            cache,
            bits: crate::num::certify_bits(digits),
            digits,
            resolving: false,
            rigorous: false,
            coarse: None,
            stage: 0,
        }
    }

    /// The scope with `check --rigorous` on or off.
    pub fn with_rigour(mut self, rigorous: bool) -> Self {
        self.rigorous = rigorous;
        self
    }

    /// The scope in the first stage of `check --rigorous` ([`Scope::coarse`]): costly
    /// proofs may stop early and raise `flag` when they do.
    pub fn with_coarse(mut self, flag: Option<&'a AtomicBool>) -> Self {
        self.coarse = flag;
        self
    }

    /// The scope at coarse stage `stage` (`None`: the proofs to the claim's digits).
    pub fn with_stage(self, stage: Option<usize>, flag: &'a AtomicBool) -> Self {
        let mut s = self.with_coarse(stage.map(|_| flag));
        s.stage = stage.unwrap_or(0);
        s
    }

    /// The digits a costly proof must close its gap to: [`COARSE_PROOF_DIGITS`] in the
    /// first stage of `check --rigorous` (at most the claim's), else the claim's.
    pub fn proof_digits(&self) -> u32 {
        match self.coarse {
            Some(_) => COARSE_PROOF_DIGITS.min(self.digits),
            None => self.digits,
        }
    }

    /// Notes that a proof stopped at [`Scope::proof_digits`] short of the claim's digits
    /// (the check is evaluated again with full proofs if it is left undecided).
    pub fn note_coarse(&self) {
        if let Some(f) = self.coarse {
            f.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The precision of enclosures (the certifying precision, at least the working one
    /// plus 32 guard bits).
    pub fn enclosure_bits(&self) -> u32 {
        self.bits.1
    }

    /// The claim's system as its model's own type `T` (a model's quantities read their
    /// setup this way); an internal error if the claim is of another model than `model`,
    /// which the compiler rules out.
    pub fn system_as<T: SystemSpec + Any>(&self, model: &str) -> Result<&'a T, QuantityError> {
        let system: &'a dyn SystemSpec = self.system;
        system.as_any().downcast_ref::<T>().ok_or_else(|| {
            QuantityError::Internal(format!(
                "a {model} quantity in a '{}' claim",
                system.model()
            ))
        })
    }

    /// A copy of this scope, to apply overrides to.
    pub fn child(&self) -> Scope<'a> {
        Scope {
            vars: self.vars.clone(),
            system: self.system,
            quantities: self.quantities,
            over: self.over.clone(),
            cache: self.cache,
            bits: self.bits,
            digits: self.digits,
            resolving: self.resolving,
            rigorous: self.rigorous,
            coarse: self.coarse,
            stage: self.stage,
        }
    }

    /// A child scope for evaluating a setup expression.
    pub fn resolving(&self) -> Scope<'a> {
        let mut c = self.child();
        c.resolving = true;
        // A setup value is passed on as a rounded decimal: its enclosure would not be used.
        c.rigorous = false;
        c
    }

    /// A resolving scope (as [`Scope::resolving`]) that keeps `check --rigorous`: a setup
    /// expression evaluated with its enclosure (a computed load's).
    pub fn resolving_rigorous(&self) -> Scope<'a> {
        let mut c = self.child();
        c.resolving = true;
        c
    }

    /// A setup expression (a load, a rate) as the decimal text a command takes: a literal
    /// as written, a grid variable's own text, anything else evaluated (in a resolving
    /// scope) and rendered exact to the working precision.
    pub fn setup_text(&self, e: &Expr) -> Result<String, QuantityError> {
        match e {
            Expr::Num(s) => Ok(s.clone()),
            Expr::Var(v) if self.vars.contains_key(v) => Ok(self.vars[v].clone()),
            _ => {
                let c = self.resolving();
                let v = c.eval(e)?;
                Ok(c.render(&v))
            }
        }
    }

    /// A computed number as a decimal string exact to the working precision.
    pub fn render(&self, p: &Pair) -> String {
        to_sci(&p.hi, self.digits + RENDER_EXTRA_DIGITS)
    }

    /// A decimal literal at both precisions.
    pub fn num_literal(&self, s: &str) -> Result<Pair, QuantityError> {
        let p = Pair::new(
            parse_decimal(s, self.bits.0)?,
            parse_decimal(s, self.bits.1)?,
        );
        if !self.rigorous {
            return Ok(p);
        }
        Ok(p.with_proof(Proof::enclosed(Interval::from_decimal(
            s,
            self.enclosure_bits(),
        )?)))
    }

    /// `{var}` substitution with this point's variables.
    pub fn substitute(&self, t: &str) -> Result<String, QuantityError> {
        substitute(t, &self.vars)
    }

    /// Evaluates a whole expression whose value is reported or compared (a quantity, a
    /// bound, a tolerance): [`Self::eval`], and a value that left MPFR's exponent range is
    /// refused, never reported (README; the rule of
    /// [`crate::num::certify::AtBoth::guard_range`], on the final value only): an overflow
    /// flag beside an infinite or undetermined value (exp(1e10), exp(1e10) − exp(1e10)), an
    /// underflow flag beside a zero (10^-1000000000). An infinite value without the flag is
    /// the quantity's own (an unstable host's waiting), and an intermediate that left the
    /// range without reaching the value (exp(-1e10)·0 + 1) did not matter.
    pub fn eval_value(&self, e: &Expr) -> Result<Pair, QuantityError> {
        let (v, flags) = crate::num::range::watch(|| self.eval(e));
        let v = v?;
        if reached(flags, &v) {
            return Err(QuantityError::compute(
                format!("{e}"),
                crate::num::range::out_of_range("the value", flags),
            ));
        }
        Ok(v)
    }

    /// Evaluates a leaf of an expression (a quantity's field, a system's variable) under its
    /// own watch: flags it raised that did not reach its value (by the rule of
    /// [`Self::eval_value`]) are its own business and are dropped, so a value computed
    /// beside it and judged by the enclosing watch is not charged with them
    /// (`tags_stable_search(80) - tags_stable()` is 0 at a hyperexponential law whose
    /// searches underflow on the way); flags that reached it stay for that judge. Flags
    /// raised before the leaf stay raised (`10^(-1000000000) + 0 * tags_stable()` is
    /// refused).
    fn leaf(&self, f: impl FnOnce() -> Result<Pair, QuantityError>) -> Result<Pair, QuantityError> {
        let before = crate::num::range::flags();
        let (r, raised) = crate::num::range::watch(f);
        if let Ok(p) = &r {
            if !reached(raised, p) {
                crate::num::range::set(before);
            }
        }
        r
    }

    /// Evaluates an expression at both precisions.
    pub fn eval(&self, e: &Expr) -> Result<Pair, QuantityError> {
        match e {
            Expr::Num(s) => self.num_literal(s),
            Expr::Var(v) => self.var(v),
            Expr::Neg(a) => {
                let x = self.eval(a)?;
                let hw = x.sim_half_width();
                Ok(x.map(|v| Float::with_val(v.prec(), -v))
                    .with_sim_of(&[&x], hw)
                    .with_proof(x.proof.neg()))
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
                            return Err(QuantityError::Undefined(format!(
                                "division by zero in {e}"
                            )));
                        }
                        x.map2(&y, |a, b| Float::with_val(a.prec(), a / b))
                    }
                    Op::Pow => x.map2(&y, |a, b| {
                        use rug::ops::Pow;
                        Float::with_val(a.prec(), a.pow(b))
                    }),
                };
                let r = r.with_proof(Proof::bin(*op, &x.proof, &y.proof));
                if x.sim.is_none() && y.sim.is_none() {
                    return Ok(r);
                }
                let hw = bin_half_width(*op, &x, &y, &r);
                Ok(r.with_sim_of(&[&x, &y], hw))
            }
            Expr::Call { name, args, field } => self.call(name, args, field.as_ref()),
        }
    }

    fn var(&self, v: &str) -> Result<Pair, QuantityError> {
        if let Some(s) = self.vars.get(v) {
            if s == "inf" {
                return Err(QuantityError::Undefined(format!(
                    "variable {v} is inf, not a number"
                )));
            }
            return self.num_literal(s);
        }
        if self.system.variables().contains(&v) {
            let p = self.leaf(|| self.system.variable(v, self))?;
            if self.rigorous && p.proof.is_off() {
                return Ok(p.with_proof(Proof::unproven(format!(
                    "the {} model encloses no '{v}'",
                    self.system.model()
                ))));
            }
            return Ok(p);
        }
        Err(QuantityError::Usage(format!(
            "unknown name '{v}' (not a grid variable; known: {})",
            self.system.variables().join(", ")
        )))
    }

    fn call(&self, name: &str, args: &[Arg], field: Option<&Field>) -> Result<Pair, QuantityError> {
        if FUNCTIONS.contains(&name) {
            if field.is_some() {
                return Err(QuantityError::Usage(format!("{name}() has no fields")));
            }
            return self.function(name, args);
        }
        let sig = self.quantities.signature(name).ok_or_else(|| {
            QuantityError::Usage(format!(
                "unknown function '{name}' (quantities: {}; functions: {})",
                self.quantities.names().join(", "),
                FUNCTIONS.join(", ")
            ))
        })?;
        // Overrides and positional arguments.
        let mut c = self.child();
        let mut pos: Vec<&Arg> = Vec::new();
        // An override computed by an expression reaches the quantity as a decimal
        // rendered to the working precision: not the exact value, so nothing is proven.
        let mut rendered: Option<String> = None;
        for a in args {
            match a {
                Arg::Named(n, _) if sig.takes(n) => {}
                Arg::Named(n, v) => {
                    let val = match v.as_ref() {
                        Arg::Str(s) => OverVal::Text(s.clone()),
                        Arg::Pos(Expr::Var(w)) if w == "inf" => OverVal::Text("inf".into()),
                        Arg::Pos(Expr::Var(w)) if self.vars.contains_key(w) => {
                            OverVal::Text(self.vars[w].clone())
                        }
                        Arg::Pos(Expr::Var(w))
                            if self.system.key_words(n).contains(&w.as_str()) =>
                        {
                            OverVal::Text(w.clone())
                        }
                        Arg::Pos(Expr::Num(s)) => OverVal::Number(s.clone()),
                        Arg::Pos(e) => {
                            rendered.get_or_insert_with(|| format!("{n}={e}"));
                            OverVal::Number(self.render(&self.eval(e)?))
                        }
                        Arg::Named(..) => {
                            return Err(QuantityError::Usage(format!("nested '=' in {name}()")))
                        }
                    };
                    if self.system.keys().contains(&n.as_str()) {
                        for group in self.system.exclusive() {
                            if group.contains(&n.as_str()) {
                                for k in group.iter() {
                                    c.over.remove(*k);
                                }
                            }
                        }
                        c.over.insert(n.clone(), val);
                    } else {
                        c.vars.insert(n.clone(), val.text().to_string());
                    }
                }
                other => pos.push(other),
            }
        }
        let call = Call {
            sig,
            args,
            pos,
            scope: c,
            outer: self,
        };
        let p = self.leaf(|| self.quantities.eval(&call)?.field(field))?;
        match rendered {
            Some(o) if self.rigorous => Ok(p.with_proof(Proof::unproven(format!(
                "{name}(): the override {o} is computed and passed as a rounded decimal"
            )))),
            _ => Ok(p),
        }
    }

    fn function(&self, name: &str, args: &[Arg]) -> Result<Pair, QuantityError> {
        let vals: Vec<Pair> = args
            .iter()
            .map(|a| match a {
                Arg::Pos(e) => self.eval(e),
                other => Err(QuantityError::Usage(format!(
                    "{name}(): unexpected argument '{other}'"
                ))),
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
            let acc = acc.ok_or_else(|| {
                QuantityError::Usage(format!("{name}() needs at least one argument"))
            })?;
            let proof = Proof::extreme(
                name == "max",
                &vals.iter().map(|v| &v.proof).collect::<Vec<_>>(),
            );
            let picked = Pair::new(acc.lo.clone(), acc.hi.clone()).with_proof(proof);
            return Ok(picked.with_sim_of(&refs, hw));
        }
        if vals.len() != 1 {
            return Err(QuantityError::Usage(format!("{name}() takes one argument")));
        }
        let x = &vals[0];
        let domain = |ok: bool| -> Result<(), QuantityError> {
            if ok {
                Ok(())
            } else {
                Err(QuantityError::Undefined(format!(
                    "{name}() of {} is undefined",
                    to_sci(&x.hi, 6)
                )))
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
        let r = r.with_proof(Proof::function(name, &x.proof));
        if x.sim.is_none() {
            return Ok(r);
        }
        let hw = fn_half_width(name, x, &r);
        Ok(r.with_sim_of(&[x], hw))
    }

    /// The value of a named argument `key=` as an integer (evaluated at this point).
    pub fn named_number(&self, args: &[Arg], key: &str) -> Result<Option<i64>, QuantityError> {
        let Some(v) = args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == key => Some(v.as_ref()),
            _ => None,
        }) else {
            return Ok(None);
        };
        let x = match v {
            Arg::Pos(e) => self.eval(e)?.hi.to_f64(),
            Arg::Str(t) => parse_decimal(&self.substitute(t)?, 64)
                .map_err(|e| QuantityError::Usage(format!("{key}={t}: {e}")))?
                .to_f64(),
            Arg::Named(..) => return Err(QuantityError::Usage(format!("nested '=' in {key}="))),
        };
        if !(x.is_finite() && x.fract() == 0.0 && x.abs() <= MAX_INTEGER_ARG) {
            return Err(QuantityError::Usage(format!(
                "{key}= must be an integer, got {x}"
            )));
        }
        Ok(Some(x as i64))
    }
}

/// One call being evaluated: the arguments as written and the scopes.
pub struct Call<'a> {
    /// The quantity's declaration.
    pub sig: &'static Signature,
    /// The arguments as written.
    pub args: &'a [Arg],
    /// The positional ones.
    pub pos: Vec<&'a Arg>,
    /// The scope the quantity is evaluated in: the caller's, with the call's overrides
    /// (setup keys and grid variables) applied.
    pub scope: Scope<'a>,
    /// The caller's scope, in which the quantity's own arguments are evaluated.
    pub outer: &'a Scope<'a>,
}

impl<'a> Call<'a> {
    /// The i-th positional argument as a word (a bare name or a string).
    pub fn word(&self, i: usize) -> Result<String, QuantityError> {
        let name = self.sig.name;
        match self.pos.get(i) {
            Some(Arg::Pos(Expr::Var(w))) => Ok(w.clone()),
            Some(Arg::Str(s)) => Ok(s.clone()),
            Some(other) => Err(QuantityError::Usage(format!(
                "{name}(): expected a name, got '{other}'"
            ))),
            None => Err(QuantityError::Usage(format!(
                "{name}(): missing argument {}",
                i + 1
            ))),
        }
    }

    /// The named argument `key=` as written.
    pub fn named(&self, key: &str) -> Option<&'a Arg> {
        self.args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == key => Some(v.as_ref()),
            _ => None,
        })
    }

    /// The named argument `key=` as an integer, evaluated in the caller's scope.
    pub fn named_number(&self, key: &str) -> Result<Option<i64>, QuantityError> {
        self.outer.named_number(self.args, key)
    }

    /// The positional expression `i`, evaluated in the caller's scope.
    pub fn number(&self, i: usize) -> Result<Option<Pair>, QuantityError> {
        match self.pos.get(i) {
            Some(Arg::Pos(e)) => Ok(Some(self.outer.eval(e)?)),
            _ => Ok(None),
        }
    }
}

/// Whether the range flags `f` reached the value `v`: an overflow beside an infinite or
/// undetermined value, an underflow beside a zero or undetermined one, at either precision.
fn reached(f: crate::num::range::Flags, v: &Pair) -> bool {
    let gone = |x: &Float| {
        (f.overflow && (x.is_infinite() || x.is_nan()))
            || (f.underflow && (x.is_zero() || x.is_nan()))
    };
    gone(&v.lo) || gone(&v.hi)
}
