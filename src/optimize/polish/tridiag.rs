//! The symmetric tridiagonal solve of the Newton step (Thomas algorithm: the LDLᵀ
//! factorisation without pivoting, which exists iff the matrix is positive definite).

use rug::Float;

/// Solves the symmetric tridiagonal system (diag d, off-diagonal e) · x = r; None if a
/// pivot is not positive (matrix not positive definite).
pub fn solve_tridiag(d: &[Float], e: &[Float], r: &[Float]) -> Option<Vec<Float>> {
    let n = d.len();
    if n == 0 {
        return Some(vec![]);
    }
    let bits = d[0].prec();
    let mut c = vec![Float::with_val(bits, 0); n];
    let mut z = vec![Float::with_val(bits, 0); n];
    let mut piv = d[0].clone();
    if piv <= 0 {
        return None;
    }
    z[0] = Float::with_val(bits, &r[0] / &piv);
    for i in 1..n {
        c[i - 1] = Float::with_val(bits, &e[i - 1] / &piv);
        piv = Float::with_val(bits, &d[i] - Float::with_val(bits, &c[i - 1] * &e[i - 1]));
        if piv <= 0 {
            return None;
        }
        z[i] = Float::with_val(bits, &r[i] - Float::with_val(bits, &e[i - 1] * &z[i - 1])) / &piv;
    }
    for i in (0..n - 1).rev() {
        let t = Float::with_val(bits, &c[i] * &z[i + 1]);
        z[i] -= t;
    }
    Some(z)
}
