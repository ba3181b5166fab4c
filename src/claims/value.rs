//! Values of the quantity language: a number at the two precisions ([`Pair`]), the
//! statistical uncertainty a simulated number carries through arithmetic ([`SimUnc`]),
//! and the named scalar and vector fields of a computed quantity ([`Value`]), read through
//! one field-access path ([`Value::field`]).

use super::error::QuantityError;
use super::expr::{Field, Op};
use super::proof::Proof;
use rug::Float;

/// A value at the two precisions (low, high), and, when it depends on a simulation, the
/// simulation's statistical uncertainty.
///
/// Not the same thing as [`crate::num::certify::AtBoth`], though both hold a low and a
/// high result: an `AtBoth<T>` is the output of one certified run (any `T`, with the MPFR
/// range flags the run raised, which its caller checks with `guard_range` and then drops),
/// while a `Pair` is a number of the claims language: always a [`Float`], the operand of
/// the evaluator's arithmetic, carrying a simulation's uncertainty and no range flags.
/// A quantity turns the checked `AtBoth` of its computation into `Pair`s, one per field.
#[derive(Debug, Clone)]
pub struct Pair {
    /// At the working precision.
    pub lo: Float,
    /// At the certifying (higher) precision.
    pub hi: Float,
    /// The statistical uncertainty of a simulated value (`None` for computed values).
    pub sim: Option<Box<SimUnc>>,
    /// Under `check --rigorous`, the value's enclosure or why there is none
    /// ([`Proof::Off`] otherwise).
    pub proof: Proof,
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
    pub(crate) fn map2(&self, o: &Pair, f: impl Fn(&Float, &Float) -> Float) -> Pair {
        Pair {
            lo: f(&self.lo, &o.lo),
            hi: f(&self.hi, &o.hi),
            sim: None,
            proof: Proof::Off,
        }
    }
    pub(crate) fn map(&self, f: impl Fn(&Float) -> Float) -> Pair {
        Pair {
            lo: f(&self.lo),
            hi: f(&self.hi),
            sim: None,
            proof: Proof::Off,
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
    /// An exact integer at both precisions.
    pub fn exact(bits: (u32, u32), v: i64) -> Pair {
        Pair {
            lo: Float::with_val(bits.0, v),
            hi: Float::with_val(bits.1, v),
            sim: None,
            proof: Proof::Off,
        }
    }
    /// A simulated estimate: the same f64 at both precisions, with its half-width.
    pub fn simulated(
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
            proof: Proof::Off,
        }
    }
    /// `self` with a simulation uncertainty of half-width `hw` built from `inputs`' (none
    /// when no input is simulated).
    pub(crate) fn with_sim_of(mut self, inputs: &[&Pair], hw: Float) -> Pair {
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
pub(crate) fn bin_half_width(op: Op, x: &Pair, y: &Pair, r: &Pair) -> Float {
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
pub(crate) fn fn_half_width(name: &str, x: &Pair, r: &Pair) -> Float {
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

impl Pair {
    /// The same number at both precisions (`lo` and `hi` given).
    pub fn new(lo: Float, hi: Float) -> Pair {
        Pair {
            lo,
            hi,
            sim: None,
            proof: Proof::Off,
        }
    }
    /// `self` with the enclosure (or the reason for none) `proof`.
    pub fn with_proof(mut self, proof: Proof) -> Pair {
        self.proof = proof;
        self
    }
    /// A number known in f64 (a simulator's formula value), at both precisions.
    pub fn from_f64(bits: (u32, u32), v: f64) -> Pair {
        Pair::new(Float::with_val(bits.0, v), Float::with_val(bits.1, v))
    }
}

/// One field of a computed quantity.
#[derive(Debug, Clone)]
pub enum FieldValue {
    /// A number.
    Scalar(Pair),
    /// A vector, indexed from 1 (negative indices count from the end).
    Vector(Vec<Pair>),
    /// A field the quantity declares but cannot give at this point, and why.
    Missing(String),
}

/// A computed quantity: named scalar and vector fields, one of which is read when the
/// expression names no field.
#[derive(Debug, Clone)]
pub struct Value {
    /// The quantity's name (for messages).
    pub quantity: &'static str,
    /// The field read without `.name`.
    pub default: &'static str,
    /// The fields, in declaration order.
    pub fields: Vec<(&'static str, FieldValue)>,
}

impl Value {
    /// A value whose only field is `value`.
    pub fn scalar(quantity: &'static str, p: Pair) -> Value {
        Value {
            quantity,
            default: "value",
            fields: vec![("value", FieldValue::Scalar(p))],
        }
    }

    /// An empty value with default field `default`.
    pub fn new(quantity: &'static str, default: &'static str) -> Value {
        Value {
            quantity,
            default,
            fields: Vec::new(),
        }
    }

    /// Adds a scalar field.
    pub fn with(mut self, name: &'static str, p: Pair) -> Value {
        self.fields.push((name, FieldValue::Scalar(p)));
        self
    }

    /// Adds a vector field.
    pub fn with_vec(mut self, name: &'static str, v: Vec<Pair>) -> Value {
        self.fields.push((name, FieldValue::Vector(v)));
        self
    }

    /// Adds a field.
    pub fn with_field(mut self, name: &'static str, v: FieldValue) -> Value {
        self.fields.push((name, v));
        self
    }

    /// Adds a field that is not available here, with the reason.
    pub fn missing(mut self, name: &'static str, why: impl Into<String>) -> Value {
        self.fields.push((name, FieldValue::Missing(why.into())));
        self
    }

    /// Every number of the value that carries no proof yet marked unproven, with `why`
    /// (under `check --rigorous`: a quantity's fields it does not enclose).
    pub fn unproven_rest(mut self, why: &str) -> Value {
        let mark = |p: &mut Pair| {
            if p.proof.is_off() {
                p.proof = Proof::unproven(why);
            }
        };
        for (_, f) in &mut self.fields {
            match f {
                FieldValue::Scalar(p) => mark(p),
                FieldValue::Vector(v) => v.iter_mut().for_each(mark),
                FieldValue::Missing(_) => {}
            }
        }
        self
    }

    /// Sets the proof of the scalar field `name` (nothing if there is none).
    pub fn prove(mut self, name: &str, proof: Proof) -> Value {
        if let Some((_, FieldValue::Scalar(p))) = self.fields.iter_mut().find(|(n, _)| *n == name) {
            p.proof = proof;
        }
        self
    }

    /// Sets the proofs of the vector field `name`, one per element (nothing if the field is
    /// not a vector of that length).
    pub fn prove_vec(mut self, name: &str, proofs: Vec<Proof>) -> Value {
        if let Some((_, FieldValue::Vector(v))) = self.fields.iter_mut().find(|(n, _)| *n == name) {
            if v.len() == proofs.len() {
                for (p, q) in v.iter_mut().zip(proofs) {
                    p.proof = q;
                }
            }
        }
        self
    }

    /// Adds a field that may be missing.
    pub fn with_opt(self, name: &'static str, p: Option<Pair>, why: &str) -> Value {
        match p {
            Some(p) => self.with(name, p),
            None => self.missing(name, why),
        }
    }

    /// The field an expression selects (`None`: the default field). A vector field needs an
    /// index (1-based; −1 is the last), a scalar field takes none.
    pub fn field(&self, f: Option<&Field>) -> Result<Pair, QuantityError> {
        let name = f.map_or(self.default, |f| f.name.as_str());
        let Some((_, v)) = self.fields.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = self.fields.iter().map(|(n, _)| *n).collect();
            return Err(QuantityError::Usage(format!(
                "{}() has no field '{name}' ({})",
                self.quantity,
                names.join(", ")
            )));
        };
        let index = f.and_then(|f| f.index);
        match v {
            FieldValue::Missing(why) => Err(QuantityError::Undefined(why.clone())),
            FieldValue::Scalar(p) => match index {
                None => Ok(p.clone()),
                Some(_) => Err(QuantityError::Usage(format!(
                    "{}().{name} is a number: it takes no index",
                    self.quantity
                ))),
            },
            FieldValue::Vector(xs) => {
                let i = index.ok_or_else(|| {
                    QuantityError::Usage(format!(
                        "{name} needs an index: {name}[1] is the first, {name}[-1] the last"
                    ))
                })?;
                let n = xs.len() as i64;
                let k = if i < 0 { n + i } else { i - 1 };
                if k < 0 || k >= n {
                    return Err(QuantityError::Undefined(format!(
                        "{name}[{i}] does not exist ({n} of them)"
                    )));
                }
                Ok(xs[k as usize].clone())
            }
        }
    }
}
