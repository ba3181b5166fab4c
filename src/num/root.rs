//! Bracketing root finder in MPFR for monotone functions whose roots may sit anywhere
//! between 1e-100000 and 1e100000.
//!
//! The method is regula falsi with the Illinois modification (Dowell & Jarratt, BIT 11,
//! 1971), superlinear of order about 1.44, safeguarded by bisection; while the bracket
//! spans more than a factor [`GEOMETRIC_RATIO`] on the positive axis it bisects
//! geometrically (in ln x), so the cost grows with ln ln(hi/lo), not with the size of hi.

use super::{message_number, NumError};
use rug::Float;

/// While hi/lo exceeds this (both positive) the bracket is bisected geometrically.
pub const GEOMETRIC_RATIO: f64 = 4.0;
/// The bisection point of [lo, hi] (lo < hi) on the scale the bracket spans: the geometric
/// mean while both ends are positive and hi/lo exceeds [`GEOMETRIC_RATIO`]; √hi from an end
/// lo ≤ 0 while hi > 1 (down the decades to 1 first); else the midpoint. For the bisections
/// on a sign (`optimize::proven::floors`, `optimize::polish::edge`), whose brackets may span
/// 10^1000.
pub fn bisection_point(lo: &Float, hi: &Float, bits: u32) -> Float {
    if *lo > 0 && Float::with_val(bits, hi / lo) > GEOMETRIC_RATIO {
        Float::with_val(bits, lo * hi).sqrt()
    } else if *lo <= 0 && *hi > 1 {
        Float::with_val(bits, hi.sqrt_ref())
    } else {
        Float::with_val(bits, lo + hi) / 2u32
    }
}

/// Steps of [`bisect_predicate`] at most (a bracket spanning 10^1000 narrows to 2^−bits
/// relative in about bits + 12 geometric steps).
pub const BISECT_STEPS: usize = 4000;

/// Bisection on a predicate that holds at `lo` and not at `hi` (lo < hi) and changes once
/// between them: the bracket (last point where it holds, first where it does not), narrowed
/// at [`bisection_point`] until its width is at most 2^−`stop_bits` of |hi|, the midpoint
/// is no longer strictly inside, or [`BISECT_STEPS`]. For the sign bisections at a
/// stability edge, where a host's load or a gradient jumps and a secant step stalls (the
/// stability floors, the edge fill, the coordinate roots' edge).
pub fn bisect_predicate<E>(
    lo: &Float,
    hi: &Float,
    bits: u32,
    stop_bits: u32,
    mut holds: impl FnMut(&Float) -> Result<bool, E>,
) -> Result<(Float, Float), E> {
    let (mut a, mut b) = (Float::with_val(bits, lo), Float::with_val(bits, hi));
    for _ in 0..BISECT_STEPS {
        let width = Float::with_val(bits, &b - &a);
        if width <= (Float::with_val(bits, b.abs_ref()) >> stop_bits) {
            break;
        }
        let mid = bisection_point(&a, &b, bits);
        if !(mid > a && mid < b) {
            break;
        }
        if holds(&mid)? {
            a = mid;
        } else {
            b = mid;
        }
    }
    Ok((a, b))
}

/// Iteration limit per extra bit of precision (plus [`ROOT_BASE_ITERATIONS`]).
pub const ROOT_ITERATIONS_PER_BIT: usize = 4;
/// Fixed part of the iteration limit (covers geometric bisection over 2^30 binary orders).
pub const ROOT_BASE_ITERATIONS: usize = 400;
/// Bits of relative bracket width the root finder stops at, below the working precision.
pub const ROOT_SLACK_BITS: u32 = 2;
/// How many doublings [`expand_upper`] tries before giving up.
pub const EXPAND_LIMIT: usize = 4000;

/// A root with its final bracket and iteration count.
#[derive(Debug, Clone)]
pub struct Root {
    /// The root (the bracket end with the smaller |f|, or the exact zero found).
    pub x: Float,
    /// Final bracket.
    pub lo: Float,
    /// Final bracket.
    pub hi: Float,
    /// Iterations used.
    pub iterations: usize,
}

impl Root {
    /// An exact zero `x` found after `iterations`: the bracket [x, x].
    fn exact(x: Float, iterations: usize) -> Root {
        Root {
            x: x.clone(),
            lo: x.clone(),
            hi: x,
            iterations,
        }
    }

    /// The bracket [a, b] after `iterations`, its root the end where |f| (compared at
    /// `bits`) is smaller, b on a tie.
    fn at_better_end(
        bits: u32,
        ends: (Float, Float),
        f: (&Float, &Float),
        iterations: usize,
    ) -> Root {
        let ((a, b), (fa, fb)) = (ends, f);
        let x = if Float::with_val(bits, fa.abs_ref()) < Float::with_val(bits, fb.abs_ref()) {
            a.clone()
        } else {
            b.clone()
        };
        Root {
            x,
            lo: a,
            hi: b,
            iterations,
        }
    }
}

/// Finds x in [lo, hi] with f(x) = 0 for a function with f(lo) ≤ 0 ≤ f(hi) (increasing
/// through the root; pass `-f` for a decreasing one). `what` names the equation in errors.
/// The result has the precision of `lo`. `f` may fail with any error a [`NumError`]
/// converts into (a caller's own error passes through with its type).
pub fn solve_increasing<F, E>(what: &str, lo: &Float, hi: &Float, mut f: F) -> Result<Root, E>
where
    F: FnMut(&Float) -> Result<Float, E>,
    E: From<NumError>,
{
    let bits = lo.prec();
    let mut a = Float::with_val(bits, lo);
    let mut b = Float::with_val(bits, hi);
    let mut fa = f(&a)?;
    let mut fb = f(&b)?;
    if fa.is_nan() || fb.is_nan() {
        return Err(NumError::NotFinite(format!("{what} at the bracket ends")).into());
    }
    if fa.is_zero() {
        return Ok(Root::exact(a, 0));
    }
    if fb.is_zero() {
        return Ok(Root::exact(b, 0));
    }
    if fa > 0 || fb < 0 {
        return Err(NumError::NoBracket {
            what: what.to_string(),
            lo: message_number(&a),
            hi: message_number(&b),
        }
        .into());
    }
    let max_iter = ROOT_BASE_ITERATIONS + ROOT_ITERATIONS_PER_BIT * bits as usize;
    let stop_bits = bits.saturating_sub(ROOT_SLACK_BITS) as i32;
    // Illinois: which side was kept last time (-1 left, +1 right, 0 none).
    let mut side = 0i8;
    for it in 1..=max_iter {
        // Converged when the bracket is narrower than 2^-stop_bits relative to its ends.
        let width = Float::with_val(bits, &b - &a);
        let scale = if a.is_zero() {
            b.clone().abs()
        } else {
            a.clone().abs().min(&b.clone().abs())
        };
        let converged = if scale.is_zero() {
            width.is_zero()
        } else {
            width.is_zero()
                || width.get_exp().unwrap_or(i32::MIN)
                    < scale.get_exp().unwrap_or(i32::MIN) - stop_bits
        };
        if converged {
            return Ok(Root::at_better_end(bits, (a, b), (&fa, &fb), it - 1));
        }
        let geometric = a > 0 && b > 0 && {
            let r = Float::with_val(bits, &b / &a);
            r > GEOMETRIC_RATIO
        };
        let x = if geometric {
            Float::with_val(bits, &a * &b).sqrt()
        } else {
            // Illinois regula falsi step. When it rounds onto an end (one |f| below 2^-bits
            // of the other: the root is within rounding of that end), a step of the
            // stopping tolerance from that end instead: bisection there would close the
            // bracket one bit per evaluation (1073 evaluations of the TAGS threshold's
            // greedy at 3000 digits). Bisection only if the step leaves the open bracket.
            let denom = Float::with_val(bits, &fb - &fa);
            let step = Float::with_val(bits, &fb * &width) / denom;
            let c = Float::with_val(bits, &b - &step);
            let mid = || Float::with_val(bits, &a + &b) / 2u32;
            if c.is_finite() && c > a && c < b {
                c
            } else if c.is_finite() && !scale.is_zero() {
                // Half the stopping width: the next bracket then meets the criterion.
                let tol =
                    Float::with_val(bits, 1u32) << (scale.get_exp().unwrap_or(0) - stop_bits - 1);
                let near = if c <= a {
                    Float::with_val(bits, &a + &tol)
                } else {
                    Float::with_val(bits, &b - &tol)
                };
                if near > a && near < b && Float::with_val(bits, &tol * 2u32) < width {
                    near
                } else {
                    mid()
                }
            } else {
                mid()
            }
        };
        if x <= a || x >= b {
            // No representable point strictly inside: the bracket is as tight as it gets.
            return Ok(Root::at_better_end(bits, (a, b), (&fa, &fb), it));
        }
        let fx = f(&x)?;
        if fx.is_nan() {
            return Err(NumError::NotFinite(format!("{what} at {}", message_number(&x))).into());
        }
        if fx.is_zero() {
            return Ok(Root::exact(x, it));
        }
        if fx < 0 {
            a = x;
            fa = fx;
            if side == -1 && !geometric {
                fb /= 2u32;
            }
            side = -1;
        } else {
            b = x;
            fb = fx;
            if side == 1 && !geometric {
                fa /= 2u32;
            }
            side = 1;
        }
    }
    Err(NumError::NoConvergence {
        what: what.to_string(),
        iterations: max_iter,
        lo: message_number(&a),
        hi: message_number(&b),
    }
    .into())
}

/// Doubles `start` (a positive number) until `f` is ≥ 0 there, for brackets whose upper end
/// is +∞. Returns the first point where f ≥ 0.
pub fn expand_upper<F, E>(what: &str, start: &Float, mut f: F) -> Result<Float, E>
where
    F: FnMut(&Float) -> Result<Float, E>,
    E: From<NumError>,
{
    let bits = start.prec();
    let mut x = Float::with_val(bits, start);
    if x <= 0 {
        x = Float::with_val(bits, 1);
    }
    for _ in 0..EXPAND_LIMIT {
        let v = f(&x)?;
        if v >= 0 {
            return Ok(x);
        }
        x *= 2u32;
        if !x.is_finite() {
            break;
        }
    }
    Err(NumError::NoBracket {
        what: what.to_string(),
        lo: message_number(start),
        hi: "inf".into(),
    }
    .into())
}

// ---------------------------------------------------------------------------------------
// f64: the same Illinois iteration for the optimiser's f64 search on logarithms.
// ---------------------------------------------------------------------------------------

/// Relative tolerance in x of [`solve_increasing_f64`]: a few ulps of x short of f64's
/// resolution (the bracket [a, b] stops at |b − a| ≤ tol · (1 + max(|a|, |b|))).
pub const F64_ROOT_TOL: f64 = 1e-12;

/// Evaluations of [`solve_increasing_f64`] at most (far more than [`F64_ROOT_TOL`] needs:
/// Illinois steps converge superlinearly, and bisection where a value is infinite halves
/// the bracket each time, 2^-200 of it after this many).
pub const F64_ROOT_MAX_EVALS: usize = 200;

/// The bracket an [`illinois_f64`] run ended with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BracketF64 {
    /// Lower end (f(lo) < target).
    pub lo: f64,
    /// Upper end (f(hi) > target).
    pub hi: f64,
    /// f(lo) − target.
    pub f_lo: f64,
    /// f(hi) − target.
    pub f_hi: f64,
    /// A point where f equals the target exactly, if one was met.
    pub exact: Option<f64>,
    /// Whether the bracket met the tolerance (or an exact root was met) within the
    /// evaluations allowed.
    pub converged: bool,
    /// Evaluations of f used (the two end values given are not counted).
    pub evals: usize,
}

impl BracketF64 {
    /// The exact root if one was met, else the bracket's midpoint.
    #[inline]
    pub fn midpoint(&self) -> f64 {
        self.exact.unwrap_or(0.5 * (self.lo + self.hi))
    }

    /// The exact root if one was met, else the bracket's regula falsi point (its midpoint
    /// where an end value is infinite): the next Illinois estimate, the better point of a
    /// run stopped after a fixed number of evaluations.
    #[inline]
    pub fn secant(&self) -> f64 {
        self.exact
            .unwrap_or_else(|| secant_point(self.lo, self.hi, self.f_lo, self.f_hi))
    }
}

/// The regula falsi point of a bracket, or its midpoint where that is not strictly inside.
#[inline]
fn secant_point(a: f64, b: f64, fa: f64, fb: f64) -> f64 {
    if fa.is_finite() && fb.is_finite() {
        let x = (a * fb - b * fa) / (fb - fa);
        if x > a && x < b {
            return x;
        }
    }
    0.5 * (a + b)
}

/// The Illinois iteration (as [`solve_increasing`], in f64) for an increasing `f` on
/// [lo, hi] whose end values `f_lo`, `f_hi` are known: the bracket of f(x) = target,
/// narrowed by regula falsi steps with the Illinois halving, and by bisection where a value
/// is infinite, until |hi − lo| ≤ tol · (1 + max(|lo|, |hi|)) or `max_evals` evaluations
/// of f. Errors: [`NumError::NoBracket`] when f_lo < target < f_hi does not hold (a NaN
/// end included), [`NumError::NotFinite`] when f is NaN inside. A run that stops at
/// `max_evals` is not an error: its bracket says `converged: false`.
///
/// ```
/// use taskassign::num::illinois_f64;
/// let f = |x: f64| x * x;
/// let r = illinois_f64("x^2", f, 2.0, (0.0, f(0.0)), (2.0, f(2.0)), 1e-12, 200).unwrap();
/// assert!(r.converged && (r.midpoint() - 2f64.sqrt()).abs() < 1e-11);
/// assert!(illinois_f64("x^2", f, 5.0, (0.0, f(0.0)), (2.0, f(2.0)), 1e-12, 200).is_err());
/// ```
#[inline]
pub fn illinois_f64(
    what: &str,
    f: impl Fn(f64) -> f64,
    target: f64,
    (lo, f_lo): (f64, f64),
    (hi, f_hi): (f64, f64),
    tol: f64,
    max_evals: usize,
) -> Result<BracketF64, NumError> {
    let (mut a, mut b) = (lo, hi);
    let (mut fa, mut fb) = (f_lo - target, f_hi - target);
    if !(fa < 0.0 && fb > 0.0) {
        return Err(NumError::NoBracket {
            what: what.to_string(),
            lo: format!("{lo:e}"),
            hi: format!("{hi:e}"),
        });
    }
    let done = |a: f64, b: f64, fa: f64, fb: f64, exact, converged, evals| BracketF64 {
        lo: a,
        hi: b,
        f_lo: fa,
        f_hi: fb,
        exact,
        converged,
        evals,
    };
    let mut side = 0i32;
    for evals in 0..max_evals {
        if (b - a).abs() <= tol * (1.0 + a.abs().max(b.abs())) {
            return Ok(done(a, b, fa, fb, None, true, evals));
        }
        let x = secant_point(a, b, fa, fb);
        let fx = f(x) - target;
        if fx.is_nan() {
            return Err(NumError::NotFinite(format!("{what} at {x:e}")));
        }
        if fx < 0.0 {
            a = x;
            fa = fx;
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        } else if fx > 0.0 {
            b = x;
            fb = fx;
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        } else {
            return Ok(done(a, b, fa, fb, Some(x), true, evals + 1));
        }
    }
    let converged = (b - a).abs() <= tol * (1.0 + a.abs().max(b.abs()));
    Ok(done(a, b, fa, fb, None, converged, max_evals))
}

/// The root of an increasing `f` on [lo, hi] (f may be ±∞ near the ends): x with
/// f(x) = target, to a relative tolerance `tol` in x ([`F64_ROOT_TOL`] for full f64
/// precision), as the midpoint of [`illinois_f64`]'s final bracket. Errors when there is no
/// sign change, f is NaN, or [`F64_ROOT_MAX_EVALS`] evaluations do not meet `tol`
/// ([`NumError::NoConvergence`], with the last bracket).
pub fn solve_increasing_f64(
    what: &str,
    f: impl Fn(f64) -> f64,
    target: f64,
    lo: f64,
    hi: f64,
    tol: f64,
) -> Result<f64, NumError> {
    let (f_lo, f_hi) = (f(lo), f(hi));
    let r = illinois_f64(
        what,
        f,
        target,
        (lo, f_lo),
        (hi, f_hi),
        tol,
        F64_ROOT_MAX_EVALS,
    )?;
    if !r.converged {
        return Err(NumError::NoConvergence {
            what: what.to_string(),
            iterations: r.evals,
            lo: format!("{:e}", r.lo),
            hi: format!("{:e}", r.hi),
        });
    }
    Ok(r.midpoint())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three regimes of the bisection point, by hand: √(1·100) = 10 (geometric),
    /// √16 = 4 from 0 (down the decades), (1 + 3)/2 = 2 (within the ratio 4).
    #[test]
    fn bisection_points_follow_the_scale_of_the_bracket() {
        let f = |x: f64| Float::with_val(64, x);
        assert_eq!(bisection_point(&f(1.0), &f(100.0), 64).to_f64(), 10.0);
        assert_eq!(bisection_point(&f(0.0), &f(16.0), 64).to_f64(), 4.0);
        assert_eq!(bisection_point(&f(1.0), &f(3.0), 64).to_f64(), 2.0);
    }

    /// The bracket of x² < 2 from [1, 2] closes on √2 (by hand: 1.41421356237309504880…)
    /// to 2^−56 of it at 64 bits with 8 bits of slack.
    #[test]
    fn a_predicate_bisection_brackets_its_change() {
        let f = |x: f64| Float::with_val(64, x);
        let (a, b) = bisect_predicate(&f(1.0), &f(2.0), 64, 56, |x| {
            Ok::<bool, ()>(Float::with_val(64, x.square_ref()) < 2)
        })
        .unwrap();
        let r = std::f64::consts::SQRT_2;
        assert!(a.to_f64() <= r && b.to_f64() >= r, "[{a}, {b}]");
        assert!(
            (b.to_f64() - a.to_f64()) <= r * 2f64.powi(-55),
            "[{a}, {b}]"
        );
    }

    #[test]
    fn root_within_rounding_of_an_end_takes_few_steps() {
        // f(x) = x − r with r = 1 + 2^-(bits+10) (held at twice the precision): f(1) is
        // 2^-(bits+10) below 0, f(2) ≈ 1, so the regula falsi step rounds onto x = 1. Plain
        // bisection then needs ~bits evaluations (it did: 1073 in the TAGS threshold at 3000
        // digits); the root is 1 to the precision asked (exact value: r rounds to 1).
        for bits in [64u32, 300, 3000] {
            let r =
                Float::with_val(2 * bits + 20, 1u32) + (Float::with_val(64, 1u32) >> (bits + 10));
            let lo = Float::with_val(bits, 1);
            let hi = Float::with_val(bits, 2);
            let root =
                solve_increasing("x - r", &lo, &hi, |x: &Float| -> Result<Float, NumError> {
                    Ok(Float::with_val(bits, x - &r))
                })
                .unwrap();
            assert!(
                root.iterations < 10,
                "bits {bits}: {} iterations",
                root.iterations
            );
            let err = Float::with_val(bits, &root.x - 1u32).abs();
            assert!(
                err <= Float::with_val(bits, 1u32) >> (bits - ROOT_SLACK_BITS),
                "bits {bits}"
            );
            assert!(root.lo <= root.hi);
        }
    }

    #[test]
    fn sqrt_two_to_full_precision() {
        for bits in [64u32, 300, 3000] {
            let r = solve_increasing(
                "x^2-2",
                &Float::with_val(bits, 0),
                &Float::with_val(bits, 2),
                |x| Ok::<_, NumError>(Float::with_val(bits, x * x) - 2u32),
            )
            .unwrap();
            let exact = Float::with_val(bits, 2).sqrt();
            let err = Float::with_val(bits, &r.x - &exact).abs();
            // Accuracy within the slack: relative 2^-(bits-ROOT_SLACK_BITS-1).
            assert!(
                err.get_exp().unwrap_or(i32::MIN) <= -(bits as i32) + ROOT_SLACK_BITS as i32 + 2,
                "bits {bits}"
            );
        }
    }

    #[test]
    fn huge_range_geometric() {
        // Root of ln x = 200000 ln 10 (x = 1e200000) found in a bracket [1, 1e300000].
        let bits = 128;
        let hi = crate::num::parse_decimal("1e300000", bits).unwrap();
        let target = Float::with_val(bits, 10).ln() * 200000u32;
        let r = solve_increasing("ln x", &Float::with_val(bits, 1), &hi, |x| {
            Ok::<_, NumError>(Float::with_val(bits, x.ln_ref()) - &target)
        })
        .unwrap();
        let l = Float::with_val(bits, r.x.log10_ref());
        assert!((l - 200000u32).abs() < 1e-25);
        assert!(r.iterations < 600, "{}", r.iterations);
    }

    #[test]
    fn no_bracket_is_an_error() {
        let e = solve_increasing(
            "x+1",
            &Float::with_val(64, 0),
            &Float::with_val(64, 1),
            |x| Ok(Float::with_val(64, x + 1u32)),
        );
        assert!(matches!(e, Err(NumError::NoBracket { .. })));
    }

    #[test]
    fn f64_illinois_finds_roots() {
        // Source: closed-form roots (cube root, e); tolerance 1e-10 (the solver's is 1e-12
        // relative in x).
        let r = solve_increasing_f64("y^3", |y| y * y * y, 2.0, 0.0, 5.0, F64_ROOT_TOL).unwrap();
        assert!((r - 2f64.cbrt()).abs() < 1e-10);
        let ln = |y: f64| if y < 1.0 { f64::NEG_INFINITY } else { y.ln() };
        let r = solve_increasing_f64("ln", ln, 1.0, 0.0, 10.0, F64_ROOT_TOL).unwrap();
        assert!((r - std::f64::consts::E).abs() < 1e-10);
    }

    #[test]
    fn f64_illinois_reports_failures() {
        // No sign change, a NaN inside, and too few evaluations are errors, not guesses.
        let e = solve_increasing_f64("y", |y| y, 3.0, 0.0, 1.0, F64_ROOT_TOL);
        assert!(matches!(e, Err(NumError::NoBracket { .. })));
        let nan = |y: f64| {
            if y > 0.1 && y < 0.9 {
                f64::NAN
            } else {
                y - 0.5
            }
        };
        let e = solve_increasing_f64("nan", nan, 0.0, 0.0, 1.0, F64_ROOT_TOL);
        assert!(matches!(e, Err(NumError::NotFinite(_))));
        let f = |y: f64| y.powi(9);
        let r = illinois_f64("y^9", f, 0.5, (0.0, f(0.0)), (1.0, f(1.0)), 1e-12, 2).unwrap();
        assert!(!r.converged && r.evals == 2);
    }
}
