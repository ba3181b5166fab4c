//! Golden-section maximisation in MPFR (Kiefer 1953; Press et al., Numerical Recipes,
//! 3rd ed., §10.2): for a unimodal f the bracket shrinks by 1/φ per evaluation, so the
//! maximiser is found to about half the working precision (f is flat there: a relative
//! step ε changes f by ε²) and the maximum to all of it.

use rug::Float;

/// Golden-section iterations per bit of precision (the maximiser converges to half the
/// bits; the value to all of them).
pub const GOLDEN_ITER_PER_BIT: f64 = 0.75;

/// Golden-section maximisation of a unimodal `f` on [lo, hi]; returns (argmax, max).
pub fn golden_max<F: FnMut(&Float) -> Float>(
    bits: u32,
    mut lo: Float,
    mut hi: Float,
    mut f: F,
) -> (Float, Float) {
    let invphi = (Float::with_val(bits, 5u32).sqrt() - 1u32) / 2u32;
    let iters = (GOLDEN_ITER_PER_BIT * f64::from(bits)).ceil() as usize + 10;
    let mut c = Float::with_val(bits, &hi - Float::with_val(bits, &hi - &lo) * &invphi);
    let mut e = Float::with_val(bits, &lo + Float::with_val(bits, &hi - &lo) * &invphi);
    let mut fc = f(&c);
    let mut fe = f(&e);
    for _ in 0..iters {
        if fc > fe {
            hi = e;
            e = c;
            fe = fc;
            c = Float::with_val(bits, &hi - Float::with_val(bits, &hi - &lo) * &invphi);
            fc = f(&c);
        } else {
            lo = c;
            c = e;
            fc = fe;
            e = Float::with_val(bits, &lo + Float::with_val(bits, &hi - &lo) * &invphi);
            fe = f(&e);
        }
    }
    if fc > fe {
        (c, fc)
    } else {
        (e, fe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maximum_of_a_parabola() {
        // Source: f(x) = x(2 − x) has its maximum 1 at x = 1 (closed form). Tolerances: the
        // maximum to 2^-(bits − 4), the maximiser to 2^-(bits/2 − 4) (half the bits, see the
        // module docs).
        let bits = 128;
        let (x, v) = golden_max(
            bits,
            Float::with_val(bits, 0),
            Float::with_val(bits, 3),
            |x| Float::with_val(bits, x * Float::with_val(bits, 2u32 - x.clone())),
        );
        let one = Float::with_val(bits, 1);
        assert!(Float::with_val(bits, &v - &one).abs() < Float::with_val(bits, 1u32) >> (bits - 4));
        assert!(
            Float::with_val(bits, &x - &one).abs() < Float::with_val(bits, 1u32) >> (bits / 2 - 4)
        );
    }
}
