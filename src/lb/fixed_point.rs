//! Fixed points of the mean-field and fluid limits in MPFR, certified at two precisions.
//!
//! **Closed forms.**
//! * Queues, fixed d, no buffer (Mitzenmacher 1996; Vvedenskaya, Dobrushin & Karpelevich
//!   1996): s_i = λ^{(d^i − 1)/(d − 1)}, computed by the exact recursion s_i = λ s_{i−1}^d
//!   from s_0 = 1 (since (d^i − 1)/(d − 1) = 1 + d (d^{i−1} − 1)/(d − 1)); d = 1 gives the
//!   M/M/1 tail λ^i.
//! * d(N) → ∞, queues: (λ, 0, 0, …) for λ < 1; with a buffer b and λ > 1 every level up to
//!   b is full and a share 1 − 1/λ is discarded (at λ = 1 the fixed point is not unique:
//!   every (1, a, 0, …) is one).
//! * d(N) → ∞, pools (arXiv 1612.00722, Theorem 3.1's fixed point):
//!   q_i = min{1, max{0, λ − i + 1}}, i ≤ B; if λ > B every pool is full and a share
//!   1 − B/λ is discarded.
//!
//! **Otherwise** (pools with fixed d, any capacity; queues with fixed d and a buffer) the
//! fixed-point equations λ(q_{i−1}^d − q_i^d) = μ_i (q_i − q_{i+1}), summed from level i
//! to the top K, read
//!
//! λ (q_{i−1}^d − β) = T_i,  T_i = Σ_{j ≥ i} μ_j (q_j − q_{j+1}) = { q_i (queues);
//! i q_i + Σ_{j>i} q_j (pools) },
//!
//! with β = q_K^d at a capacity K (the blocked share) and β = 0 for an infinite capacity
//! truncated at K. Given x = q_K they determine q_{K−1}, …, q_0 downwards,
//! q_{i−1} = (β + T_i/λ)^{1/d}: a recursion of sums of positive terms (no cancellation),
//! each q_{i−1} increasing in x (by induction, T_i is a sum of increasing terms). So
//! q_0(x) − 1 is increasing, −1 at x = 0 and ≥ 0 at x = 1 (the K levels are chosen with
//! K > λ), and its root is found by [`crate::num::root::solve_increasing`] with a bracket.
//! An infinite capacity is truncated at the first K (grown by half from ⌈λ⌉ + 2) with
//! q_K < 2^{−2p} at precision p: the neglected tail perturbs every level printed
//! (q_i ≥ 10^{−digits}) by less than its last bit, and since the two precisions of a
//! certified run truncate at different K, their agreement covers the truncation too.
//! For queues the truncated recursion is the closed form's (q_{i−1} = (q_i/λ)^{1/d}), so
//! the two routes must agree to every digit (a test).
//!
//! **Derived values.** Mean tasks per server Σ q_i; blocking: the probability that all d
//! sampled servers are full, q_K^d at a capacity K (not the fraction q_K of full servers;
//! with and without replacement this limit is the same, the two differ only at finite N);
//! mean sojourn by Little's law, tasks / (λ (1 − blocking)) — exactly 1 for pools, whose
//! tasks never wait (a check).

use super::fluid::Limit;
use super::model::{LbError, Model, ModelKind};
use crate::num::certify::{certify_pair, Certified, Certify};
use crate::num::root::solve_increasing;
use crate::num::NumError;
use rug::ops::Pow;
use rug::Float;

/// Levels added above ⌈λ⌉ for the first truncation of an infinite capacity (then K grows
/// by half at a time).
pub const FIRST_TRUNCATION_EXTRA: usize = 2;
/// Most levels of a fixed-point computation.
pub const MAX_FIXED_POINT_LEVELS: usize = 1 << 20;
/// Extra bits below 2^-p at which the closed-form tails stop (their remainder is below
/// the last bit of the sum).
const TAIL_EXTRA_BITS: u32 = 16;
/// Starting lower bracket 2^-64 of the top level (squared until q_0 < 1).
const LOWER_BRACKET_LOG2: i32 = -64;
/// Squarings of the lower bracket tried before giving up.
const LOWER_BRACKET_SQUARINGS: usize = 40;

/// How a fixed point was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A closed form.
    ClosedForm,
    /// A bracketed root of the top level.
    Root {
        /// Root-finder iterations of the final solve.
        iterations: usize,
    },
}

/// A fixed point at one precision.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedPoint {
    /// q_1, …, q_K.
    pub occupancy: Vec<Float>,
    /// Σ q_i.
    pub mean_tasks: Float,
    /// Mean sojourn time (Little's law).
    pub mean_sojourn: Float,
    /// Probability that an arrival is discarded.
    pub blocking: Float,
    /// When an infinite capacity was truncated (or a finite capacity lies beyond the
    /// levels where q is negligible), the bound below which the neglected blocking lies.
    pub blocking_bound: Option<Float>,
    /// How it was computed.
    pub method: Method,
}

/// A certified fixed point: the digits on which two precisions agree.
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedFixedPoint {
    /// q_1, q_2, … while q_i ≥ 10^−digits.
    pub occupancy: Vec<Certified>,
    /// Mean tasks per server.
    pub mean_tasks: Certified,
    /// Mean sojourn time.
    pub mean_sojourn: Certified,
    /// Blocking probability.
    pub blocking: Certified,
    /// The digits asked for.
    pub digits: u32,
    /// How it was computed.
    pub method: Method,
}

impl CertifiedFixedPoint {
    /// The fewest certified digits of any value listed (the `digits` asked for when
    /// every value has them all).
    pub fn shown_digits(&self) -> u32 {
        self.occupancy
            .iter()
            .chain([&self.mean_tasks, &self.mean_sojourn, &self.blocking])
            .map(|c| c.digits)
            .min()
            .unwrap_or(self.digits)
    }
}

fn num(e: NumError) -> LbError {
    LbError::Num(e)
}

fn finish(
    model: &Model,
    occupancy: Vec<Float>,
    blocking: Float,
    blocking_bound: Option<Float>,
    method: Method,
    bits: u32,
) -> Result<FixedPoint, LbError> {
    let lambda = model.lambda_at(bits)?;
    let mut mean = Float::with_val(bits, 0);
    for q in &occupancy {
        mean += q;
    }
    let accepted = Float::with_val(bits, 1u32 - &blocking) * &lambda;
    if !(accepted > 0) {
        // 1 − blocking cancelled to 0 (the blocking is within 2^-bits of 1): Little's law
        // would print an infinite sojourn, a wrong number.
        return Err(LbError::Numerical(format!(
            "the accepted rate lambda·(1 − blocking) cancels to 0 at {bits} bits (the blocking is within 2^-{bits} of 1 at this lambda), so the mean sojourn cannot be computed: use a smaller lambda or a larger buffer"
        )));
    }
    let sojourn = Float::with_val(bits, &mean / &accepted);
    Ok(FixedPoint {
        occupancy,
        mean_tasks: mean,
        mean_sojourn: sojourn,
        blocking,
        blocking_bound,
        method,
    })
}

/// The fixed point of `limit` for `model` at `bits` of precision: the closed form where
/// one exists, the bracketed root otherwise.
pub fn fixed_point(model: &Model, limit: Limit, bits: u32) -> Result<FixedPoint, LbError> {
    match closed_form(model, limit, bits) {
        Some(r) => r,
        None => match limit {
            Limit::PowerOfD(d) => by_root(model, d, bits),
            Limit::Jsq => Err(LbError::Numerical(
                "no JSQ fixed point route for this model".into(),
            )),
        },
    }
}

/// The closed-form fixed point, when the model has one (module docs), else `None`.
///
/// ```
/// use taskassign::lb::{fixed_point_closed_form as closed_form, Limit, Model, ModelKind};
/// // Queues, d = 2, λ = 0.5: s_i = 0.5^(2^i − 1) = 0.5, 0.125, 0.0078125, …
/// let m = Model::new(ModelKind::Queues, "0.5", None).unwrap();
/// let fp = closed_form(&m, Limit::PowerOfD(2), 128).unwrap().unwrap();
/// assert_eq!(fp.occupancy[0], 0.5);
/// assert_eq!(fp.occupancy[1], 0.125);
/// assert_eq!(fp.occupancy[2], 0.0078125);
/// // Pools, d → ∞, λ = 2.5: (1, 1, 0.5).
/// let p = Model::new(ModelKind::Pools, "2.5", None).unwrap();
/// let fp = closed_form(&p, Limit::Jsq, 64).unwrap().unwrap();
/// let q: Vec<f64> = fp.occupancy.iter().map(|x| x.to_f64()).collect();
/// assert_eq!(q, vec![1.0, 1.0, 0.5]);
/// ```
pub fn closed_form(model: &Model, limit: Limit, bits: u32) -> Option<Result<FixedPoint, LbError>> {
    match (model.kind(), limit, model.buffer()) {
        (ModelKind::Queues, Limit::PowerOfD(d), None) => Some(queues_power_of_d(model, d, bits)),
        (ModelKind::Queues, Limit::Jsq, _) => Some(queues_jsq(model, bits)),
        (ModelKind::Pools, Limit::Jsq, _) => Some(pools_jsq(model, bits)),
        _ => None,
    }
}

fn queues_power_of_d(model: &Model, d: u32, bits: u32) -> Result<FixedPoint, LbError> {
    if d < 1 {
        return Err(LbError::DTooSmall(d.to_string()));
    }
    let lambda = model.lambda_at(bits)?;
    let mut occ = Vec::new();
    let mut s = Float::with_val(bits, 1);
    let mut sum = Float::with_val(bits, 0);
    let stop = Float::with_val(bits, 1) >> (bits + TAIL_EXTRA_BITS);
    loop {
        // s_i = λ s_{i−1}^d.
        s = Float::with_val(bits, (&s).pow(d)) * &lambda;
        if s.is_zero() || Float::with_val(bits, &s / &sum) < stop && !sum.is_zero() {
            break;
        }
        sum += &s;
        occ.push(s.clone());
        if occ.len() > MAX_FIXED_POINT_LEVELS {
            return Err(LbError::Numerical(format!(
                "the fixed point needs more than {MAX_FIXED_POINT_LEVELS} levels"
            )));
        }
    }
    let mut fp = finish(
        model,
        occ,
        Float::with_val(bits, 0),
        None,
        Method::ClosedForm,
        bits,
    )?;
    if d == 1 {
        // The geometric tail in closed form: Σ λ^i = λ/(1 − λ), sojourn 1/(1 − λ).
        let one_minus = Float::with_val(bits, 1u32 - &lambda);
        fp.mean_tasks = Float::with_val(bits, &lambda / &one_minus);
        fp.mean_sojourn = Float::with_val(bits, one_minus.recip_ref());
    }
    Ok(fp)
}

fn queues_jsq(model: &Model, bits: u32) -> Result<FixedPoint, LbError> {
    let lambda = model.lambda_at(bits)?;
    if lambda < 1 {
        return finish(
            model,
            vec![lambda],
            Float::with_val(bits, 0),
            None,
            Method::ClosedForm,
            bits,
        );
    }
    match model.buffer() {
        Some(b) if lambda > 1 => {
            let occ = vec![Float::with_val(bits, 1); b as usize];
            let blocking = Float::with_val(bits, 1u32 - Float::with_val(bits, lambda.recip_ref()));
            finish(model, occ, blocking, None, Method::ClosedForm, bits)
        }
        _ => Err(LbError::BadInput(format!(
            "queues with d = inf at lambda = {}: every (1, a, 0, …) with a in [0, 1] is a fixed point (not unique)",
            model.lambda_text()
        ))),
    }
}

fn pools_jsq(model: &Model, bits: u32) -> Result<FixedPoint, LbError> {
    let lambda = model.lambda_at(bits)?;
    let top = match model.buffer() {
        Some(b) => b as usize,
        None => lambda.to_f64().ceil() as usize + 1,
    };
    let mut occ = Vec::with_capacity(top);
    for i in 1..=top {
        // min{1, max{0, λ − i + 1}}
        let v = Float::with_val(bits, &lambda - (i as u32 - 1));
        let v = if v > 1 {
            Float::with_val(bits, 1)
        } else if v < 0 {
            Float::with_val(bits, 0)
        } else {
            v
        };
        if v.is_zero() {
            break;
        }
        occ.push(v);
    }
    let blocking = match model.buffer() {
        Some(b) if lambda > b => {
            // 1 − B/λ
            Float::with_val(bits, 1u32 - Float::with_val(bits, b / &lambda))
        }
        _ => Float::with_val(bits, 0),
    };
    finish(model, occ, blocking, None, Method::ClosedForm, bits)
}

/// q_0 − 1 and the levels, from the top value x on K levels (module docs); `capacity`
/// says whether level K is the capacity (β = x^d) or a truncation (β = 0).
fn descend(
    kind: ModelKind,
    lambda: &Float,
    d: u32,
    k: usize,
    capacity: bool,
    x: &Float,
    levels: &mut Vec<Float>,
) -> Float {
    let bits = x.prec();
    levels.clear();
    levels.resize(k + 1, Float::new(bits));
    levels[k] = Float::with_val(bits, x);
    let beta = if capacity {
        Float::with_val(bits, x.pow(d))
    } else {
        Float::with_val(bits, 0)
    };
    // Σ_{j>i} q_j for pools.
    let mut above = Float::with_val(bits, 0);
    for i in (1..=k).rev() {
        let t = match kind {
            ModelKind::Queues => Float::with_val(bits, &levels[i]),
            ModelKind::Pools => Float::with_val(bits, &levels[i] * (i as u32)) + &above,
        };
        let inner = Float::with_val(bits, &t / lambda) + &beta;
        let q = if d == 1 { inner } else { inner.root(d) };
        above += &levels[i];
        levels[i - 1] = q;
    }
    Float::with_val(bits, &levels[0] - 1u32)
}

/// The fixed point of the fixed-d equations by the bracketed root of the top level (module
/// docs), for any model and capacity; used where no closed form exists and, in the tests,
/// against the closed forms.
pub fn by_root(model: &Model, d: u32, bits: u32) -> Result<FixedPoint, LbError> {
    if d < 1 {
        return Err(LbError::DTooSmall(d.to_string()));
    }
    let lambda = model.lambda_at(bits)?;
    let cap = model.buffer().map(|b| b as usize);
    // Truncation threshold 2^-2p.
    let eps = Float::with_val(bits, 1) >> (2 * bits);
    let mut k = lambda.to_f64().ceil() as usize + FIRST_TRUNCATION_EXTRA;
    if let Some(b) = cap {
        k = k.min(b);
        // An overloaded queue fills its buffer: only the capacity is a valid top (a
        // truncation without blocking needs λ < 1).
        if model.kind() == ModelKind::Queues && lambda >= 1 {
            k = b;
        }
    }
    let mut levels = Vec::new();
    // The last K whose top level was representable, and whether growth is cautious (one
    // level at a time, after a K so large that q_K left MPFR's exponent range: with a
    // large d the levels fall doubly exponentially).
    let mut last_ok: Option<usize> = None;
    let mut cautious = false;
    loop {
        let capacity = cap == Some(k);
        let (x, iterations) = match solve_top(model.kind(), &lambda, d, k, capacity, &mut levels)? {
            Some(r) => r,
            None if last_ok.map_or(k > 1, |j| k > j + 1) => {
                cautious = true;
                k = last_ok.map_or(1, |j| j + 1);
                continue;
            }
            None => {
                return Err(LbError::Numerical(format!(
                    "fixed point: the top level of {k} levels is below MPFR's exponent range"
                )))
            }
        };
        last_ok = Some(k);
        descend(model.kind(), &lambda, d, k, capacity, &x, &mut levels);
        let occ: Vec<Float> = levels[1..].to_vec();
        if capacity {
            let blocking = Float::with_val(bits, x.pow(d));
            return finish(
                model,
                occ,
                blocking,
                None,
                Method::Root { iterations },
                bits,
            );
        }
        if x < eps {
            let bound = Float::with_val(bits, eps.pow(d));
            return finish(
                model,
                occ,
                Float::with_val(bits, 0),
                cap.map(|_| bound),
                Method::Root { iterations },
                bits,
            );
        }
        if k >= MAX_FIXED_POINT_LEVELS {
            return Err(LbError::Numerical(format!(
                "fixed point: the top level is still {} at {k} levels",
                crate::num::message_number(&x)
            )));
        }
        k = if cautious { k + 1 } else { k + k.div_ceil(2) };
        k = k.min(MAX_FIXED_POINT_LEVELS);
        if let Some(b) = cap {
            k = k.min(b);
        }
    }
}

fn solve_top(
    kind: ModelKind,
    lambda: &Float,
    d: u32,
    k: usize,
    capacity: bool,
    levels: &mut Vec<Float>,
) -> Result<Option<(Float, usize)>, LbError> {
    let bits = lambda.prec();
    let what = format!("q_0(q_{k}) = 1 ({} levels, d = {d})", k);
    let hi = Float::with_val(bits, 1);
    let mut lo = Float::with_val(bits, 1) << LOWER_BRACKET_LOG2;
    let mut found = false;
    for _ in 0..LOWER_BRACKET_SQUARINGS {
        let f = descend(kind, lambda, d, k, capacity, &lo, levels);
        if f < 0 {
            found = true;
            break;
        }
        lo = Float::with_val(bits, lo.square_ref());
        if lo.is_zero() {
            break;
        }
    }
    if !found {
        // q_0 ≥ 1 even at the smallest representable top: K is too large.
        return Ok(None);
    }
    let mut scratch = Vec::new();
    let root = solve_increasing(&what, &lo, &hi, |x| {
        Ok(descend(kind, lambda, d, k, capacity, x, &mut scratch))
    })
    .map_err(num)?;
    Ok(Some((root.x, root.iterations)))
}

/// The fixed point of `limit` for `model`, computed at the two precisions of `digits`
/// ([`Certify`]) and printed with the digits on which both agree; the occupancy is listed
/// while q_i ≥ 10^−digits.
pub fn certified(model: &Model, limit: Limit, digits: u32) -> Result<CertifiedFixedPoint, LbError> {
    let c = Certify::digits(digits);
    let both = c.run(|bits| fixed_point(model, limit, bits))?;
    let (_, hi_bits) = c.bits();
    let cutoff = Float::with_val(hi_bits, Float::i_pow_u(10, digits)).recip();
    let mut occupancy = Vec::new();
    for (i, q) in both.hi.occupancy.iter().enumerate() {
        if *q < cutoff {
            break;
        }
        let lo = both
            .lo
            .occupancy
            .get(i)
            .cloned()
            .unwrap_or_else(|| Float::with_val(q.prec(), 0));
        occupancy.push(certify_pair(&lo, q, digits));
    }
    Ok(CertifiedFixedPoint {
        occupancy,
        mean_tasks: both.certify(digits, |f| &f.mean_tasks),
        mean_sojourn: both.certify(digits, |f| &f.mean_sojourn),
        blocking: both.certify(digits, |f| &f.blocking),
        digits,
        method: both.hi.method,
    })
}

/// Precision of JSQ's fluid fixed point used as an f64 reference ([`jsq_reference`]).
const REFERENCE_BITS: u32 = 64;

/// JSQ's fluid fixed point (d(N) → ∞, the closed forms above) in f64: q_1, q_2, … — the
/// reference from which the simulators measure the distance to JSQ's fluid limit. Errors
/// where the fixed point is not unique (queues at λ = 1).
///
/// ```
/// use taskassign::lb::jsq_reference;
/// use taskassign::lb::{Model, ModelKind};
/// let p = Model::new(ModelKind::Pools, "2.5", None).unwrap();
/// assert_eq!(jsq_reference(&p).unwrap(), vec![1.0, 1.0, 0.5]);
/// ```
pub fn jsq_reference(model: &Model) -> Result<Vec<f64>, LbError> {
    let fp = fixed_point(model, Limit::Jsq, REFERENCE_BITS)?;
    Ok(fp.occupancy.iter().map(Float::to_f64).collect())
}

/// The ℓ1 distance Σ_i |a_i − b_i| of two occupancies (missing levels are 0), at `bits`.
///
/// ```
/// use rug::Float;
/// use taskassign::lb::l1_distance;
/// let a = [Float::with_val(64, 0.5), Float::with_val(64, 0.25)];
/// let b = [Float::with_val(64, 0.5)];
/// assert_eq!(l1_distance(&a, &b, 64), 0.25);
/// ```
pub fn l1_distance(a: &[Float], b: &[Float], bits: u32) -> Float {
    let zero = Float::with_val(bits, 0);
    let mut sum = Float::with_val(bits, 0);
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).unwrap_or(&zero);
        let y = b.get(i).unwrap_or(&zero);
        sum += Float::with_val(bits, x - y).abs();
    }
    sum
}
