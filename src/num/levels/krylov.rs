//! The Krylov solver of [`super`]'s two-level method: an ILU(0) factorisation kept in f32
//! (the smoother), restarted right-preconditioned GMRES, and the dot product both use.
//! Hand-written: the factors, the products and the level correction around them work on
//! the chain's own compressed rows (offsets, targets, rates), which no sparse crate's
//! types hold without a copy of the chain, and the triangular solves are tuned to that
//! layout (u32 offsets, f32 factors).
//!
//! Measured on 2026-12-06 and not kept (side by side, alternating runs of two binaries):
//! * *Classical Gram–Schmidt in two fused passes over blocks of rows* (every dot product in
//!   one pass, every update in a second), repeated where the first round left less than
//!   half of w's norm: the repeat ran in 65 % of the Arnoldi steps (480 of 740 on the
//!   N-model (0.1, 1.7) under MRF-FCFS; with a good preconditioner A M⁻¹ v_k is close to
//!   v_k, so the projection cancels most of w), and the W-model (0.5, 0.5, 0.6) under
//!   MRF-FCFS took 26.1 and 24.0 s user against 23.2 and 23.6 s with modified Gram–Schmidt
//!   (GMRES's own share of the profile 36.5 % against 28.8 %).
//! * *Two partial sums per sparse row* in the triangular solves and the products (two
//!   independent chains of multiply–adds instead of one): the triangular solves kept their
//!   share of the profile (29.5 and 29.4 % of the samples against 29.8 and 28.6 %) at
//!   JSQ N = 5, d = 2, λ = 0.9, and N = 4, d = 4, λ = 0.95 took 4.12, 4.45, 5.79 s user
//!   against 4.00, 4.37, 5.51: the rows wait on their gathers, not on the additions.

use super::par::{self, Layers};
use super::OffDiagonal;

/// An incomplete LU factorisation without fill of a matrix on the unknowns 1..n given by its
/// diagonal and its off-diagonal entries by row (sorted columns, none in column 0): L unit
/// lower and U upper, stored together row by row. The factors are computed in f64 and
/// kept in f32 (the triangular solves accumulate in f64): a preconditioner only needs to be
/// nonsingular and close to −B, ILU(0) itself is far coarser than f32's 6e−8, and the
/// residuals the enclosure uses are computed with −B itself; the smaller factors cut the
/// memory traffic of the solves, which dominate the run time.
pub(super) struct Ilu {
    /// Row i's entries of L (left of the diagonal) are `start[i]..mid[i]`, those of U
    /// (right of it) `mid[i]..start[i + 1]`, in `col` and `val`; the diagonal of U is
    /// `pivot`. Offsets in u32 and the pivots apart: the triangular solves stream these
    /// arrays once per application, and are bound by that traffic.
    start: Vec<u32>,
    mid: Vec<u32>,
    col: Vec<u32>,
    val: Vec<f32>,
    pivot: Vec<f32>,
    /// The runs of rows the triangular solves take at once ([`par::layers`]).
    layers: Layers,
}

impl Ilu {
    /// ILU(0) of diag(total) − (the off-diagonal rates), row-wise (IKJ order).
    pub(super) fn new(n: usize, (off, idx, rate): OffDiagonal<'_>, total: &[f64]) -> Self {
        let mut o = Vec::with_capacity(n + 1);
        let mut col = Vec::with_capacity(idx.len() + n);
        let mut val = Vec::with_capacity(idx.len() + n);
        let mut diag = vec![0usize; n];
        o.push(0);
        o.push(0);
        for x in 1..n {
            let mut placed = false;
            for k in off[x]..off[x + 1] {
                let j = idx[k] as usize;
                if !placed && j > x {
                    diag[x] = col.len();
                    col.push(x as u32);
                    val.push(total[x]);
                    placed = true;
                }
                if j == x {
                    continue;
                }
                col.push(j as u32);
                val.push(-rate[k]);
            }
            if !placed {
                diag[x] = col.len();
                col.push(x as u32);
                val.push(total[x]);
            }
            o.push(col.len());
        }
        let mut pos = vec![usize::MAX; n];
        for i in 1..n {
            let (s, e) = (o[i], o[i + 1]);
            for p in s..e {
                pos[col[p] as usize] = p;
            }
            for p in s..diag[i] {
                let k = col[p] as usize;
                let piv = val[diag[k]];
                val[p] /= piv;
                let lik = val[p];
                for q in diag[k] + 1..o[k + 1] {
                    let t = pos[col[q] as usize];
                    if t != usize::MAX {
                        val[t] -= lik * val[q];
                    }
                }
            }
            // An M-matrix keeps positive pivots; rounding that loses one falls back to the
            // diagonal (the preconditioner only needs to be nonsingular).
            if !(val[diag[i]] > 0.0 && val[diag[i]].is_finite()) {
                val[diag[i]] = total[i].max(f64::MIN_POSITIVE);
            }
            for p in s..e {
                pos[col[p] as usize] = usize::MAX;
            }
        }
        let mut val32: Vec<f32> = val.iter().map(|&v| v as f32).collect();
        drop(val);
        for (i, &d) in diag.iter().enumerate().skip(1) {
            // A pivot that f32 cannot hold (below its range) falls back to the diagonal.
            if !(val32[d] > 0.0 && val32[d].is_normal()) {
                val32[d] = (total[i] as f32).max(f32::MIN_POSITIVE);
            }
        }
        Self::compact(&o, &col, &val32, &diag)
    }

    /// The solve's layout of factors held row by row with their diagonal in place.
    fn compact(off: &[usize], col: &[u32], val: &[f32], diag: &[usize]) -> Self {
        let n = diag.len();
        let keep = col.len() - n.saturating_sub(1);
        let mut out = Ilu {
            start: Vec::with_capacity(n + 1),
            mid: Vec::with_capacity(n),
            col: Vec::with_capacity(keep),
            val: Vec::with_capacity(keep),
            pivot: vec![1.0; n],
            layers: Vec::new(),
        };
        // In range: the factors hold one entry per transition ([`explore_with`] refuses
        // chains with 2^32 transitions or more).
        let at = |len: usize| len as u32;
        out.start.push(0);
        out.mid.push(0);
        for i in 1..n {
            out.start.push(at(out.col.len()));
            for p in off[i]..off[i + 1] {
                if p == diag[i] {
                    out.mid.push(at(out.col.len()));
                    out.pivot[i] = val[p];
                } else {
                    out.col.push(col[p]);
                    out.val.push(val[p]);
                }
            }
        }
        out.start.push(at(out.col.len()));
        out.layers = par::layers(
            n,
            |i| {
                let (s, m) = (out.start[i] as usize, out.mid[i] as usize);
                out.col[s..m].iter().copied().max()
            },
            |i| {
                let (m, e) = (out.mid[i] as usize, out.start[i + 1] as usize);
                out.col[m..e].iter().copied().min()
            },
        );
        if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
            let runs = out.layers.len().saturating_sub(1);
            let big = out
                .layers
                .windows(2)
                .filter(|w| (w[1] - w[0]) as usize >= 2048)
                .count();
            eprintln!("    ilu n {n} runs {runs} of which {big} of 2048 rows or more");
        }
        out
    }

    /// v ← (LU)⁻¹v (v[0] stays 0): the forward and backward solves run by run of
    /// [`Self::layers`], each run's rows at once ([`par`]); every row is the same sum in the
    /// same order as in a plain sweep.
    pub(super) fn solve_in_place(&self, v: &mut [f64]) {
        v[0] = 0.0;
        let runs = self.layers.windows(2);
        for w in runs.clone() {
            let (s, e) = (w[0] as usize, w[1] as usize);
            par::run_forward(v, s, e, |i, lo, x| {
                let mut acc = x;
                for p in self.start[i] as usize..self.mid[i] as usize {
                    acc -= f64::from(self.val[p]) * lo[self.col[p] as usize];
                }
                acc
            });
        }
        for w in runs.rev() {
            let (s, e) = (w[0] as usize, w[1] as usize);
            par::run_backward(v, s, e, |i, hi, x| {
                let mut acc = x;
                for p in self.mid[i] as usize..self.start[i + 1] as usize {
                    acc -= f64::from(self.val[p]) * hi[self.col[p] as usize - e];
                }
                acc / f64::from(self.pivot[i])
            });
        }
    }
}

/// Restarted GMRES with right preconditioning (Saad, *Iterative Methods for Sparse Linear
/// Systems*, 2003, Alg. 9.5): solves A x = b for x with ‖b − Ax‖₂ ≤ tol·‖b‖₂, from x = 0,
/// at most `max_iter` inner iterations; `apply` computes A v, `precond` M⁻¹ v. Index 0 (the
/// regeneration state) is not an unknown and stays 0.
pub(super) fn gmres(
    n: usize,
    b: &[f64],
    apply: &dyn Fn(&[f64], &mut [f64]),
    precond: &dyn Fn(&[f64]) -> Vec<f64>,
    tol: f64,
    max_iter: usize,
    restart: usize,
) -> Vec<f64> {
    let norm = |a: &[f64]| par::dot(a, a).sqrt();
    let mut x = vec![0.0; n];
    let bnorm = norm(b);
    if bnorm == 0.0 {
        return x;
    }
    let m = restart.max(1);
    let mut r = b.to_vec();
    let mut done = 0;
    let mut tmp = vec![0.0; n];
    while done < max_iter {
        let beta = norm(&r);
        if beta <= tol * bnorm {
            break;
        }
        let mut v0 = r.clone();
        par::update(&mut v0, |_, a| a / beta);
        let mut v: Vec<Vec<f64>> = vec![v0];
        let mut h = vec![vec![0.0; m]; m + 1];
        let mut cs = vec![0.0; m];
        let mut sn = vec![0.0; m];
        let mut g = vec![0.0; m + 1];
        g[0] = beta;
        let mut k = 0;
        while k < m && done < max_iter {
            let zk = precond(&v[k]);
            let mut w = vec![0.0; n];
            apply(&zk, &mut w);
            w[0] = 0.0;
            // Modified Gram–Schmidt against the basis.
            for (i, vi) in v.iter().enumerate() {
                let hik = par::dot(&w, vi);
                h[i][k] = hik;
                par::axpy(&mut w, -hik, vi);
            }
            let hn = norm(&w);
            h[k + 1][k] = hn;
            for i in 0..k {
                let t = cs[i] * h[i][k] + sn[i] * h[i + 1][k];
                h[i + 1][k] = -sn[i] * h[i][k] + cs[i] * h[i + 1][k];
                h[i][k] = t;
            }
            let d = (h[k][k] * h[k][k] + h[k + 1][k] * h[k + 1][k]).sqrt();
            if d == 0.0 {
                break;
            }
            cs[k] = h[k][k] / d;
            sn[k] = h[k + 1][k] / d;
            h[k][k] = d;
            h[k + 1][k] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] *= cs[k];
            k += 1;
            done += 1;
            if g[k].abs() <= tol * bnorm || hn == 0.0 {
                break;
            }
            par::update(&mut w, |_, a| a / hn);
            v.push(w);
        }
        // Back substitution for the k coefficients, then x += M⁻¹(Σ y_i v_i): the
        // preconditioner is linear (a fixed level correction and fixed factors), so the
        // preconditioned vectors z_i = M⁻¹v_i need not be kept (half the memory of a
        // restart cycle, for one more preconditioner application per cycle).
        let mut yv = vec![0.0; k];
        for i in (0..k).rev() {
            let mut t = g[i];
            for j in i + 1..k {
                t -= h[i][j] * yv[j];
            }
            yv[i] = if h[i][i] != 0.0 { t / h[i][i] } else { 0.0 };
        }
        if k > 0 {
            let mut u = vec![0.0; n];
            for (&yi, vi) in yv.iter().zip(&v) {
                par::axpy(&mut u, yi, vi);
            }
            let zu = precond(&u);
            par::axpy(&mut x, 1.0, &zu);
        }
        apply(&x, &mut tmp);
        par::update(&mut r, |j, _| if j == 0 { 0.0 } else { b[j] - tmp[j] });
        if k == 0 {
            break;
        }
    }
    if std::env::var_os("TASKASSIGN_TRACE_EXACT").is_some() {
        let rn = norm(&r);
        eprintln!(
            "    gmres n {n} iterations {done} residual {:.2e}",
            rn / bnorm
        );
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// −B of three M/M/1 queues fed at 0.3, 0.2 and 0.1 and served at 1, truncated to
    /// a + b + c ≤ t and numbered level by level (the breadth-first order of exploration):
    /// (offsets, targets, rates, total rates), column 0 (the empty state) left out.
    #[allow(clippy::type_complexity)]
    fn tetrahedron(t: u32) -> (Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>) {
        let mut states = Vec::new();
        for l in 0..=t {
            for a in (0..=l).rev() {
                for b in (0..=l - a).rev() {
                    states.push([a, b, l - a - b]);
                }
            }
        }
        let index: std::collections::HashMap<[u32; 3], u32> = states
            .iter()
            .enumerate()
            .map(|(i, s)| (*s, i as u32))
            .collect();
        let (mut off, mut to, mut rate, mut total) = (vec![0], Vec::new(), Vec::new(), Vec::new());
        for s in &states {
            let mut row: Vec<(u32, f64)> = Vec::new();
            let mut out = 0.0;
            for (k, up) in [0.3, 0.2, 0.1].into_iter().enumerate() {
                let mut u = *s;
                u[k] += 1;
                out += up;
                if let Some(&j) = index.get(&u) {
                    row.push((j, up));
                }
                if s[k] > 0 {
                    let mut d = *s;
                    d[k] -= 1;
                    out += 1.0;
                    row.push((index[&d], 1.0));
                }
            }
            row.retain(|&(j, _)| j != 0);
            row.sort_by_key(|&(j, _)| j);
            for (j, r) in row {
                to.push(j);
                rate.push(r);
            }
            off.push(to.len());
            total.push(out);
        }
        (off, to, rate, total)
    }

    /// The layered triangular solves give, on one thread and on four, the numbers of a
    /// plain forward and backward sweep over the same factors, to the bit (the same sums in
    /// the same order, whoever computes a row). Source of the reference: the sweeps written
    /// out here from the factors' rows. The tetrahedron a + b + c ≤ 80 has
    /// 83·82·81/6 = 91 881 states and top levels of 3 321 states, so its largest runs are
    /// split among the threads.
    #[test]
    fn the_layered_solve_is_the_plain_sweep_on_any_number_of_threads() {
        let (off, to, rate, total) = tetrahedron(80);
        let n = total.len();
        assert_eq!(n, 91_881);
        let ilu = Ilu::new(n, (&off, &to, &rate), &total);
        let long = ilu
            .layers
            .windows(2)
            .filter(|w| (w[1] - w[0]) as usize >= 2048)
            .count();
        assert!(long >= 10, "{long} runs of 2048 rows or more");
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).sin() + 1.5).collect();
        let mut want = rhs.clone();
        want[0] = 0.0;
        for i in 1..n {
            let mut s = want[i];
            for p in ilu.start[i] as usize..ilu.mid[i] as usize {
                s -= f64::from(ilu.val[p]) * want[ilu.col[p] as usize];
            }
            want[i] = s;
        }
        for i in (1..n).rev() {
            let mut s = want[i];
            for p in ilu.mid[i] as usize..ilu.start[i + 1] as usize {
                s -= f64::from(ilu.val[p]) * want[ilu.col[p] as usize];
            }
            want[i] = s / f64::from(ilu.pivot[i]);
        }
        for threads in [1, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut got = rhs.clone();
            pool.install(|| ilu.solve_in_place(&mut got));
            for i in 0..n {
                assert_eq!(
                    got[i].to_bits(),
                    want[i].to_bits(),
                    "{threads} threads, row {i}"
                );
            }
        }
    }
}
