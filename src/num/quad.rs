//! MPFR quadrature with an error estimate: double-exponential (tanh-sinh) rules.
//!
//! On a finite interval [a, b] the rule is tanh-sinh (Takahasi & Mori, Publ. RIMS 9, 1974):
//! x = c + d·tanh(π/2·sinh t), c = (a+b)/2, d = (b−a)/2, with the trapezoidal rule in t.
//! On [a, ∞) it is exp-sinh: x = a + exp(π/2·sinh t). Both cope with integrable end-point
//! singularities and, for exp-sinh, with algebraic or exponential decay, at the cost of
//! a number of nodes that grows only linearly with the digits wanted.
//!
//! Nodes next to an end point are computed from their *distance* to it: 1 − tanh(u) is
//! formed as 2/(e^{2u}+1), never by subtraction, so a node 10^-1000 from a = 0 is exact
//! to the working precision (Bailey, Jeyabalan & Li, Exp. Math. 14, 2005).
//!
//! The step is halved level by level (h = 2^-k, reusing every earlier node) until two
//! successive levels agree. The error reported is
//! |S_k − S_{k−1}| + (truncation of the t-range) + (rounding), which is conservative:
//! the rule converges roughly quadratically, so S_k is usually far more accurate than
//! |S_k − S_{k−1}| says. The tolerance is relative to ∫|f| (the L1 norm), so integrals that
//! cancel to near zero report an absolute error.

use super::{message_number, NumError};
use rug::float::Constant;
use rug::Float;

/// Extra bits carried inside the quadrature beyond the requested precision.
pub const QUAD_GUARD_BITS: u32 = 24;
/// Two successive levels must agree to 2^-(bits − QUAD_TOL_SLACK_BITS) relative to ∫|f|.
pub const QUAD_TOL_SLACK_BITS: u32 = 8;
/// Levels are never declared converged before this one (h = 2^-QUAD_MIN_LEVEL), so that
/// a coarse rule cannot agree with a coarser one by accident.
pub const QUAD_MIN_LEVEL: usize = 3;
/// Last level tried (h = 2^-QUAD_MAX_LEVEL) before reporting [`NumError::Quadrature`].
pub const QUAD_MAX_LEVEL: usize = 12;
/// The t-range is truncated at |t| ≤ QUAD_T_MAX: there π/2·sinh t ≈ 1.7·10^4, so the
/// nodes are within e^(−3.4·10^4) of the end points (tanh-sinh) or beyond e^(1.7·10^4)
/// (exp-sinh).
pub const QUAD_T_MAX: f64 = 10.0;
/// A side of the t-range ends after this many consecutive negligible terms.
pub const QUAD_NEGLIGIBLE_RUN: usize = 2;
/// At most this many bits are added for end points of large magnitude (see
/// [`integrate_with`]): enough for e^(−x) beyond x = 10^19, without turning an interval
/// near 10^100000 into a 330000-bit computation.
pub const QUAD_MAGNITUDE_MAX_BITS: u32 = 64;
/// [`integrate_positive`] substitutes x = e^t when b/a exceeds this ratio.
pub const LOG_SUBSTITUTION_RATIO: f64 = 1e6;

/// An integral with its error estimate.
#[derive(Debug, Clone)]
pub struct QuadResult {
    /// The integral, at the requested precision.
    pub value: Float,
    /// An upper estimate of |true − value| (absolute).
    pub error: Float,
    /// The level reached (the final step is 2^-levels).
    pub levels: usize,
    /// Integrand evaluations used.
    pub evaluations: usize,
}

/// ∫_a^b f(x) dx by tanh-sinh (b finite) or exp-sinh (b = +∞), with an error estimate, at
/// `bits` of precision (the nodes carry [`QUAD_GUARD_BITS`] more; `f` should compute at
/// the precision of its argument). `a` must be finite. For a > b the result is −∫_b^a.
///
/// Fails with [`NumError::Quadrature`] if two successive levels do not agree to
/// 2^-(bits − [`QUAD_TOL_SLACK_BITS`]) relative to ∫|f| by level [`QUAD_MAX_LEVEL`], and with
/// [`NumError::NotFinite`] if `f` returns NaN or ±∞ at a node.
///
/// ```
/// use rug::Float;
/// use taskassign::num::tanh_sinh;
/// let b = 128;
/// // ∫_0^1 4/(1+x²) dx = π
/// let r = tanh_sinh(b, &Float::with_val(b, 0), &Float::with_val(b, 1), |x| {
///     Float::with_val(x.prec(), 4u32) / (Float::with_val(x.prec(), x * x) + 1u32)
/// })
/// .unwrap();
/// let pi = Float::with_val(b, rug::float::Constant::Pi);
/// assert!(Float::with_val(b, &r.value - &pi).abs() <= r.error);
/// assert!(r.error < 1e-30);
/// ```
pub fn tanh_sinh<F: FnMut(&Float) -> Float>(
    bits: u32,
    a: &Float,
    b: &Float,
    f: F,
) -> Result<QuadResult, NumError> {
    integrate_with(
        bits,
        bits.saturating_sub(QUAD_TOL_SLACK_BITS).max(1),
        a,
        b,
        f,
    )
}

/// As [`tanh_sinh`], with the agreement asked for given separately: successive levels must
/// agree to 2^-tol_bits relative to ∫|f|.
///
/// ```
/// use rug::Float;
/// use taskassign::num::integrate_with;
/// // ∫_0^1 x³ dx = 1/4 at 200 bits, asking only for 2^-60 agreement.
/// let b = 200;
/// let r = integrate_with(b, 60, &Float::with_val(b, 0), &Float::with_val(b, 1), |x| {
///     Float::with_val(x.prec(), x * x) * x
/// })
/// .unwrap();
/// assert!(Float::with_val(b, &r.value - 0.25f64).abs() <= r.error);
/// ```
pub fn integrate_with<F: FnMut(&Float) -> Float>(
    bits: u32,
    tol_bits: u32,
    a: &Float,
    b: &Float,
    mut f: F,
) -> Result<QuadResult, NumError> {
    if a.is_nan() || b.is_nan() || a.is_infinite() || (b.is_infinite() && b.is_sign_negative()) {
        return Err(NumError::NotFinite(format!(
            "integration interval [{}, {}]",
            message_number(a),
            message_number(b)
        )));
    }
    if a == b {
        return Ok(QuadResult {
            value: Float::with_val(bits, 0),
            error: Float::with_val(bits, 0),
            levels: 0,
            evaluations: 0,
        });
    }
    if a > b {
        let mut r = integrate_with(bits, tol_bits, b, a, f)?;
        r.value = -r.value;
        return Ok(r);
    }
    // Nodes next to an end point carry an absolute error of |end|·2^-wbits. Extra bits
    // keep it at 2^-(bits + QUAD_GUARD_BITS) for integrands that vary on a unit scale (e^(−x)
    // near x = 10^8 would otherwise lose 27 bits; at most QUAD_MAGNITUDE_MAX_BITS), and below 2^-(bits + QUAD_GUARD_BITS)
    // of the width b − a (nodes cannot come closer to b than its last place, so a short
    // interval [1 − 10^-11, 1] would otherwise lose 36 bits).
    let exponent = |x: &Float| {
        if x.is_finite() && !x.is_zero() {
            x.get_exp().unwrap_or(0)
        } else {
            i32::MIN
        }
    };
    let top = exponent(a).max(exponent(b));
    let magnitude = (top.max(0) as u32).min(QUAD_MAGNITUDE_MAX_BITS);
    let narrowness = if b.is_finite() && top > i32::MIN {
        let width = Float::with_val(bits.max(a.prec()).max(b.prec()) + 1, b - a);
        (top - exponent(&width)).max(0) as u32
    } else {
        0
    };
    let wbits = bits + QUAD_GUARD_BITS + magnitude + narrowness;
    let map = if b.is_infinite() {
        Map::SemiInfinite {
            a: Float::with_val(wbits, a),
        }
    } else {
        let a = Float::with_val(wbits, a);
        let b = Float::with_val(wbits, b);
        let c = Float::with_val(wbits, &a + &b) / 2u32;
        let d = Float::with_val(wbits, &b - &a) / 2u32;
        Map::Finite { a, b, c, d }
    };
    de_rule(bits, tol_bits, wbits, &map, &mut f)
}

/// ∫_a^b f(x) dx for 0 ≤ a < b ≤ ∞ on a possibly wide range: when a > 0 and b/a exceeds
/// [`LOG_SUBSTITUTION_RATIO`] (or b = ∞) it integrates f(e^t)·e^t over t ∈ [ln a, ln b],
/// so that mass spread over many decades is resolved; otherwise it calls [`tanh_sinh`].
/// With b = ∞ the integrand is taken as 0 beyond MPFR's largest number (about
/// 2^(2^30)), where e^t overflows.
///
/// ```
/// use rug::Float;
/// use taskassign::num::integrate_positive;
/// let b = 100;
/// // ∫_1^1e300 x^-2 dx = 1 − 1e-300
/// let hi = taskassign::num::parse_decimal("1e300", b).unwrap();
/// let r = integrate_positive(b, &Float::with_val(b, 1), &hi, |x| Float::with_val(x.prec(), x * x).recip()).unwrap();
/// assert!(Float::with_val(b, &r.value - 1u32).abs() < 1e-25);
/// ```
pub fn integrate_positive<F: FnMut(&Float) -> Float>(
    bits: u32,
    a: &Float,
    b: &Float,
    mut f: F,
) -> Result<QuadResult, NumError> {
    let wide = *a > 0 && (b.is_infinite() || Float::with_val(bits, b / a) > LOG_SUBSTITUTION_RATIO);
    if !wide {
        return tanh_sinh(bits, a, b, f);
    }
    // A node t near ln a is known to |ln a|·2^-w, so x = e^t to x·|ln a|·2^-w in absolute
    // terms: for an integrand varying on a unit scale in x (e^(−x) beyond a = 10^8) that
    // costs log2(a) bits, which are added (integrate_with adds those of |ln a|).
    let extra = if *a >= 1 {
        (a.get_exp().unwrap_or(0).max(0) as u32).min(QUAD_MAGNITUDE_MAX_BITS)
    } else {
        0
    };
    let inner = bits + extra;
    let wbits = inner + QUAD_GUARD_BITS;
    let la = Float::with_val(wbits, a.ln_ref());
    let lb = if b.is_infinite() {
        Float::with_val(wbits, b)
    } else {
        Float::with_val(wbits, b.ln_ref())
    };
    let tol_bits = bits.saturating_sub(QUAD_TOL_SLACK_BITS).max(1);
    let r = integrate_with(inner, tol_bits, &la, &lb, |t| {
        let x = Float::with_val(t.prec(), t.exp_ref());
        if x.is_infinite() {
            // Beyond MPFR's exponent range (x > 2^(2^30)): the mass there is dropped.
            return Float::with_val(t.prec(), 0);
        }
        let fx = f(&x);
        Float::with_val(t.prec(), &fx * &x)
    })?;
    let value = Float::with_val(bits, &r.value);
    let rounding = Float::with_val(inner, &value - &r.value).abs();
    Ok(QuadResult {
        error: Float::with_val(bits, rounding + &r.error),
        value,
        ..r
    })
}

/// The change of variables: t ↦ (x, dx/dt) on each side of t = 0.
enum Map {
    /// tanh-sinh on [a, b], centre c, half-width d.
    Finite {
        a: Float,
        b: Float,
        c: Float,
        d: Float,
    },
    /// exp-sinh on [a, ∞).
    SemiInfinite { a: Float },
}

impl Map {
    /// The node and weight at t = 0.
    fn centre(&self, wbits: u32, half_pi: &Float) -> (Float, Float) {
        match self {
            Map::Finite { c, d, .. } => (c.clone(), Float::with_val(wbits, d * half_pi)),
            Map::SemiInfinite { a } => (Float::with_val(wbits, a + 1u32), half_pi.clone()),
        }
    }

    /// The node and weight at −t (`side` 0) or +t (`side` 1), t > 0, from the node data
    /// of t; `None` where the node coincides with an end point at the working precision.
    fn node(&self, wbits: u32, data: &NodeData, side: usize) -> Option<(Float, Float)> {
        match (self, data) {
            (Map::Finite { a, b, d, .. }, NodeData::Finite { delta, omega }) => {
                let dist = Float::with_val(wbits, delta * d);
                let w = Float::with_val(wbits, omega * d);
                if side == 0 {
                    let x = Float::with_val(wbits, a + &dist);
                    (x > *a).then_some((x, w))
                } else {
                    let x = Float::with_val(wbits, b - &dist);
                    (x < *b).then_some((x, w))
                }
            }
            (Map::SemiInfinite { a }, NodeData::SemiInfinite { up, down, ch }) => {
                if side == 0 {
                    let x = Float::with_val(wbits, a + down);
                    (x > *a).then(|| (x, Float::with_val(wbits, down * ch)))
                } else {
                    let x = Float::with_val(wbits, a + up);
                    x.is_finite().then(|| (x, Float::with_val(wbits, up * ch)))
                }
            }
            _ => None,
        }
    }

    fn semi_infinite(&self) -> bool {
        matches!(self, Map::SemiInfinite { .. })
    }
}

/// The part of a node that does not depend on the interval, for one t > 0.
#[derive(Clone)]
enum NodeData {
    /// tanh-sinh: distance to either end = d·delta, weight = d·omega, where with
    /// u = π/2·sinh t and e = e^(−2u): delta = 2e/(1+e) (= 1 − tanh u, never formed by
    /// subtraction) and omega = π/2·cosh t·4e/(1+e)² (= π/2·cosh t·sech² u).
    Finite { delta: Float, omega: Float },
    /// exp-sinh: x − a = e^(±u), weight = e^(±u)·ch with ch = π/2·cosh t.
    SemiInfinite { up: Float, down: Float, ch: Float },
}

impl NodeData {
    fn new(semi_infinite: bool, wbits: u32, t: f64) -> NodeData {
        let half_pi = Float::with_val(wbits, Constant::Pi) / 2u32;
        let t = Float::with_val(wbits, t);
        let u = Float::with_val(wbits, t.sinh_ref()) * &half_pi;
        let ch = Float::with_val(wbits, t.cosh_ref()) * &half_pi;
        if semi_infinite {
            let up = Float::with_val(wbits, u.exp_ref());
            let down = Float::with_val(wbits, (-u).exp());
            NodeData::SemiInfinite { up, down, ch }
        } else {
            let e = (-Float::with_val(wbits, &u * 2u32)).exp();
            let one_e = Float::with_val(wbits, &e + 1u32);
            let delta = Float::with_val(wbits, &e * 2u32) / &one_e;
            let omega = Float::with_val(wbits, &e * 4u32)
                / Float::with_val(wbits, one_e.square_ref())
                * &ch;
            NodeData::Finite { delta, omega }
        }
    }
}

/// The node data are cached per thread for precisions up to this many bits…
pub const NODE_CACHE_MAX_BITS: u32 = 4096;
/// …and the cache is emptied when it would hold more than this many bytes (estimated).
pub const NODE_CACHE_MAX_BYTES: usize = 64 << 20;

/// The cache of node data, keyed by (bits, semi-infinite, level); entry i of a level is
/// the i-th node visited there ([`node_t`]). The values depend only on the key, so the
/// cache is invisible in the results; it saves the sinh, cosh and exp of every node.
type NodeCache = std::collections::HashMap<(u32, bool, usize), Vec<NodeData>>;

thread_local! {
    static NODE_CACHE: std::cell::RefCell<(NodeCache, usize)> = std::cell::RefCell::new((NodeCache::new(), 0));
}

/// The t of the i-th node visited on a level: 1, 2, … on level 0, the odd multiples of
/// 2^-level above.
fn node_t(level: usize, i: usize) -> f64 {
    if level == 0 {
        (i + 1) as f64
    } else {
        (2 * i + 1) as f64 * (0.5f64).powi(level as i32)
    }
}

/// Node data of the i-th node of a level, from the cache when the precision allows.
fn node_data(semi_infinite: bool, wbits: u32, level: usize, i: usize) -> NodeData {
    if wbits > NODE_CACHE_MAX_BITS {
        return NodeData::new(semi_infinite, wbits, node_t(level, i));
    }
    NODE_CACHE.with(|cell| {
        let mut guard = cell.borrow_mut();
        let (cache, bytes) = &mut *guard;
        let per_node = (if semi_infinite { 3 } else { 2 }) * (wbits as usize / 8 + 48);
        if *bytes + per_node > NODE_CACHE_MAX_BYTES {
            cache.clear();
            *bytes = 0;
        }
        let nodes = cache.entry((wbits, semi_infinite, level)).or_default();
        while nodes.len() <= i {
            let k = nodes.len();
            nodes.push(NodeData::new(semi_infinite, wbits, node_t(level, k)));
            *bytes += per_node;
        }
        nodes[i].clone()
    })
}

/// Why a side of the t-range stopped at the last level.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    /// Terms became negligible.
    Negligible,
    /// A node reached the end point (at the working precision) or overflowed.
    EndPoint,
    /// |t| reached [`QUAD_T_MAX`].
    Range,
}

/// One side (t < 0 or t > 0) of the trapezoidal sum.
struct SideState {
    /// Largest |t| evaluated so far.
    reach: f64,
    /// Why the side stopped at the current level.
    stop: Stop,
    /// Magnitudes of the last two terms evaluated on this level (last, the one before).
    last: Float,
    prev: Float,
}

fn de_rule<F: FnMut(&Float) -> Float>(
    bits: u32,
    tol_bits: u32,
    wbits: u32,
    map: &Map,
    f: &mut F,
) -> Result<QuadResult, NumError> {
    let half_pi = Float::with_val(wbits, Constant::Pi) / 2u32;
    let negligible = Float::with_val(wbits, 1u32) >> wbits;
    let tol = Float::with_val(wbits, 1u32) >> tol_bits;
    let mut evaluations = 0usize;
    let mut eval = |x: &Float, w: &Float, evaluations: &mut usize| -> Result<Float, NumError> {
        *evaluations += 1;
        let fx = f(x);
        if !fx.is_finite() {
            return Err(NumError::NotFinite(format!(
                "integrand at x = {}",
                message_number(x)
            )));
        }
        Ok(Float::with_val(wbits, &fx * w))
    };
    // Unweighted sums of the terms (times h they give the integral) and of their moduli.
    let (xc, wc) = map.centre(wbits, &half_pi);
    let mut sum = eval(&xc, &wc, &mut evaluations)?;
    let mut l1 = Float::with_val(wbits, sum.abs_ref());
    let mut sides = [
        SideState {
            reach: 0.0,
            stop: Stop::Negligible,
            last: Float::new(wbits),
            prev: Float::new(wbits),
        },
        SideState {
            reach: 0.0,
            stop: Stop::Negligible,
            last: Float::new(wbits),
            prev: Float::new(wbits),
        },
    ];
    let mut previous: Option<Float> = None;
    let mut last_value = Float::new(wbits);
    let mut last_error = Float::with_val(wbits, rug::float::Special::Infinity);
    for level in 0..=QUAD_MAX_LEVEL {
        let h = (0.5f64).powi(level as i32);
        // Integral of |f| estimated from the previous level (or the running sum on level 0).
        let l1_prev = Float::with_val(wbits, &l1 * (2.0 * h).min(1.0));
        for (s, side) in sides.iter_mut().enumerate() {
            let mut run = 0usize;
            let mut i = 0usize;
            side.stop = Stop::Range;
            side.last = Float::with_val(wbits, 0);
            side.prev = Float::with_val(wbits, 0);
            loop {
                // Level 0 visits t = 1, 2, …; level k ≥ 1 the odd multiples of 2^-k.
                let t = node_t(level, i);
                if t > QUAD_T_MAX {
                    side.stop = Stop::Range;
                    break;
                }
                let data = node_data(map.semi_infinite(), wbits, level, i);
                i += 1;
                let Some((x, w)) = map.node(wbits, &data, s) else {
                    side.stop = Stop::EndPoint;
                    break;
                };
                let term = eval(&x, &w, &mut evaluations)?;
                let mag = Float::with_val(wbits, term.abs_ref());
                sum += &term;
                l1 += &mag;
                side.reach = side.reach.max(t);
                let scale = if level == 0 {
                    Float::with_val(wbits, &l1 * h)
                } else {
                    l1_prev.clone()
                };
                let small = mag < Float::with_val(wbits, &scale * &negligible);
                side.prev = std::mem::replace(&mut side.last, mag);
                run = if small { run + 1 } else { 0 };
                if run >= QUAD_NEGLIGIBLE_RUN && t >= side.reach {
                    side.stop = Stop::Negligible;
                    break;
                }
            }
        }
        let value = Float::with_val(wbits, &sum * h);
        let integral_l1 = Float::with_val(wbits, &l1 * h);
        // Truncation of the t-range. A side that ended on negligible terms leaves about
        // h·|last term|. One cut by the end point or by QUAD_T_MAX leaves the rest of its
        // tail: if the last two terms (a step Δ apart) fall by a ratio r < 1, and the
        // terms fall at least geometrically from there (the double-exponential decay is
        // faster), that is at most Δ·|last|·r/(1 − r); otherwise the tail is not under
        // control and |last| per unit of t is charged (which stops a divergent integral
        // from converging).
        let step = if level == 0 { 1.0 } else { 2.0 * h };
        let mut error = Float::with_val(wbits, 0);
        for side in &sides {
            match side.stop {
                Stop::Negligible => error += Float::with_val(wbits, &side.last * h),
                Stop::EndPoint | Stop::Range => {
                    if side.last < side.prev {
                        let r = Float::with_val(wbits, &side.last / &side.prev);
                        let one_minus = Float::with_val(wbits, 1u32 - &r);
                        error += Float::with_val(wbits, &side.last * &r) / one_minus * step;
                    } else {
                        error += &side.last;
                    }
                }
            }
        }
        // Rounding: each evaluation contributes ≈ 2^-wbits relative to its term.
        error += Float::with_val(wbits, &integral_l1 * &negligible) * evaluations as f64;
        if let Some(prev) = &previous {
            error += Float::with_val(wbits, &value - prev).abs();
        } else {
            error += &integral_l1;
        }
        let converged =
            level >= QUAD_MIN_LEVEL && error <= Float::with_val(wbits, &integral_l1 * &tol);
        last_value = value.clone();
        last_error = error.clone();
        if converged {
            let out = Float::with_val(bits, &value);
            // The final rounding to `bits` is part of the error of the value returned.
            let rounding = Float::with_val(wbits, &out - &value).abs();
            let error = Float::with_val(bits, error + rounding);
            return Ok(QuadResult {
                value: out,
                error,
                levels: level,
                evaluations,
            });
        }
        previous = Some(value);
    }
    Err(NumError::Quadrature {
        estimate: message_number(&last_value),
        error: message_number(&last_error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Precisions the tests run at.
    const TEST_BITS: [u32; 2] = [64, 400];
    /// The error estimate must be below 2^-(bits − ERROR_SLACK_BITS) relative to the value.
    const ERROR_SLACK_BITS: u32 = QUAD_TOL_SLACK_BITS + 2;

    /// [`tanh_sinh`] of `f` over [a, b] for integer ends at `bits`.
    fn on_ints(
        bits: u32,
        a: i32,
        b: i32,
        f: impl FnMut(&Float) -> Float,
    ) -> Result<QuadResult, NumError> {
        tanh_sinh(
            bits,
            &Float::with_val(bits, a),
            &Float::with_val(bits, b),
            f,
        )
    }

    fn check(bits: u32, r: &QuadResult, exact: &Float, what: &str) {
        let err = Float::with_val(bits + 64, &r.value - exact).abs();
        assert!(
            err <= r.error,
            "{what} at {bits} bits: |error| {} > estimate {}",
            message_number(&err),
            message_number(&r.error)
        );
        let bound = Float::with_val(bits, exact.abs_ref()) >> (bits - ERROR_SLACK_BITS);
        assert!(
            r.error <= bound,
            "{what} at {bits} bits: estimate {} too large",
            message_number(&r.error)
        );
    }

    #[test]
    fn inverse_sqrt_singularity() {
        // ∫_0^1 x^(-1/2) dx = 2 (elementary).
        for bits in TEST_BITS {
            let r = on_ints(bits, 0, 1, |x| {
                Float::with_val(x.prec(), x.sqrt_ref()).recip()
            })
            .unwrap();
            check(bits, &r, &Float::with_val(bits, 2), "x^-1/2");
        }
    }

    #[test]
    fn exponential_on_half_line() {
        // ∫_0^∞ e^(−x) dx = 1 (elementary).
        for bits in TEST_BITS {
            let inf = Float::with_val(bits, rug::float::Special::Infinity);
            let r = tanh_sinh(bits, &Float::with_val(bits, 0), &inf, |x| {
                Float::with_val(x.prec(), -x).exp()
            })
            .unwrap();
            check(bits, &r, &Float::with_val(bits, 1), "e^-x");
        }
    }

    #[test]
    fn reciprocal_gives_ln2() {
        // ∫_1^2 dx/x = ln 2 (elementary; MPFR's ln 2 constant at higher precision).
        for bits in TEST_BITS {
            let r = on_ints(bits, 1, 2, |x| Float::with_val(x.prec(), x.recip_ref())).unwrap();
            check(bits, &r, &Float::with_val(bits + 64, Constant::Log2), "1/x");
        }
    }

    #[test]
    fn algebraic_decay_and_log_substitution() {
        // ∫_1^∞ x^(-2) dx = 1 and ∫_1^∞ x^(−3/2) dx = 2 (elementary), direct and in ln x.
        for bits in TEST_BITS {
            let one = Float::with_val(bits, 1);
            let inf = Float::with_val(bits, rug::float::Special::Infinity);
            let r = tanh_sinh(bits, &one, &inf, |x| {
                Float::with_val(x.prec(), x.square_ref()).recip()
            })
            .unwrap();
            check(bits, &r, &Float::with_val(bits, 1), "x^-2");
            let g = |x: &Float| {
                let s = Float::with_val(x.prec(), x.sqrt_ref());
                Float::with_val(x.prec(), &s * x).recip()
            };
            let r = integrate_positive(bits, &one, &inf, g).unwrap();
            check(bits, &r, &Float::with_val(bits, 2), "x^-3/2 in ln x");
        }
    }

    #[test]
    fn reversed_and_empty_intervals() {
        let b = 64;
        let r = on_ints(b, 2, 1, |x| Float::with_val(x.prec(), x.recip_ref())).unwrap();
        // ∫_2^1 dx/x = −ln 2, within the error estimate (plus the constant's rounding).
        let exact = -Float::with_val(b + 64, Constant::Log2);
        let err = Float::with_val(b + 64, &r.value - &exact).abs();
        assert!(err <= r.error);
        let r = on_ints(b, 1, 1, |x| x.clone()).unwrap();
        assert!(r.value.is_zero() && r.error.is_zero());
    }

    #[test]
    fn divergent_integral_is_an_error() {
        // ∫_0^1 dx/x diverges: the levels keep growing with the t-range.
        let b = 64;
        let r = on_ints(b, 0, 1, |x| Float::with_val(x.prec(), x.recip_ref()));
        assert!(matches!(r, Err(NumError::Quadrature { .. })), "{r:?}");
    }

    #[test]
    fn nan_integrand_is_an_error() {
        let b = 64;
        let r = on_ints(b, 0, 1, |x| {
            Float::with_val(x.prec(), rug::float::Special::Nan)
        });
        assert!(matches!(r, Err(NumError::NotFinite(_))));
    }
}
