//! The data-parallel kernels of the level solves: the sparse products, the residuals, the
//! Krylov vectors' dot products and updates, and the ILU(0) triangular solves by layers.
//! They run on rayon's current pool (every core unless `RAYON_NUM_THREADS` says otherwise),
//! and compute **the same numbers on any number of threads**: a row's sum is formed in the
//! same order whoever computes it, and a dot product is the sum, in chunk order, of the
//! dot products of fixed chunks of [`CHUNK`] entries. So a chain's states, digits and
//! printed values do not depend on the machine's cores.
//!
//! Each kernel streams a few vectors and the chain's rows and waits on memory; the two
//! cores of the machine this was measured on read 1.9 times what one reads (a dot product
//! over 512 MB, 2026-12-08), which bounds what a second thread can give.

use rayon::prelude::*;

/// Entries per task and per partial sum of a dot product: large enough that a task's
/// overhead (about a microsecond) is small against its work, small enough that a level's
/// rows split among the threads.
pub(super) const CHUNK: usize = 1 << 13;

/// Below this many entries a kernel runs on the calling thread (the same numbers: only who
/// computes the chunks changes).
const PAR_MIN: usize = 1 << 15;

/// Whether a kernel over `len` entries runs on the calling thread: a short one, or a pool
/// of one thread (where handing the chunks to rayon costs 2–6 % of a run and buys nothing).
#[inline]
fn serial(len: usize) -> bool {
    len < PAR_MIN || rayon::current_num_threads() < 2
}

/// The dot product of eight partial sums within one chunk.
#[inline]
fn dot8(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, &p), &q) in acc.iter_mut().zip(x).zip(y) {
            *s += p * q;
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// The dot product of `a` and `b` (equal lengths): the chunks' dot products summed in
/// chunk order, the same on any number of threads.
pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if serial(a.len()) {
        return a
            .chunks(CHUNK)
            .zip(b.chunks(CHUNK))
            .fold(0.0, |s, (x, y)| s + dot8(x, y));
    }
    let parts: Vec<f64> = a
        .par_chunks(CHUNK)
        .zip(b.par_chunks(CHUNK))
        .map(|(x, y)| dot8(x, y))
        .collect();
    parts.iter().fold(0.0, |s, &p| s + p)
}

/// `f(base, chunk)` for the chunks of [`CHUNK`] entries of `out` (base: the index of the
/// chunk's first entry), in parallel; f loops over its chunk itself, so that the loop is
/// compiled with the kernel's body.
pub(super) fn chunks<F>(out: &mut [f64], f: F)
where
    F: Fn(usize, &mut [f64]) + Sync,
{
    if serial(out.len()) {
        for (c, ch) in out.chunks_mut(CHUNK).enumerate() {
            f(c * CHUNK, ch);
        }
        return;
    }
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, ch)| f(c * CHUNK, ch));
}

/// `f(i, &mut a[i], &mut b[i])` for every i (equal lengths), in parallel chunks: two
/// vectors updated in one pass.
pub(super) fn update2<F>(a: &mut [f64], b: &mut [f64], f: F)
where
    F: Fn(usize, &mut f64, &mut f64) + Sync,
{
    debug_assert_eq!(a.len(), b.len());
    let body = |base: usize, x: &mut [f64], y: &mut [f64]| {
        for (k, (p, q)) in x.iter_mut().zip(y.iter_mut()).enumerate() {
            f(base + k, p, q);
        }
    };
    if serial(a.len()) {
        body(0, a, b);
        return;
    }
    a.par_chunks_mut(CHUNK)
        .zip(b.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (x, y))| body(c * CHUNK, x, y));
}

/// `out[i] = f(i, out[i])` for every i, in parallel chunks; f sees the entry's old value.
#[inline]
pub(super) fn update<F>(out: &mut [f64], f: F)
where
    F: Fn(usize, f64) -> f64 + Sync,
{
    chunks(out, |base, ch| {
        for (k, o) in ch.iter_mut().enumerate() {
            *o = f(base + k, *o);
        }
    });
}

/// y ← y + a·x.
pub(super) fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    chunks(y, |base, ch| {
        let len = ch.len();
        for (o, &v) in ch.iter_mut().zip(&x[base..base + len]) {
            *o += a * v;
        }
    });
}

/// The rows of a layered triangular solve: [`layers`] of a triangular factor.
///
/// A layer is a run of consecutive rows none of which reads another row of the run, so
/// that its rows can be solved at once. The chains' transitions move the level by one, so
/// their graph is bipartite and the breadth-first order of exploration puts each distance
/// from z in one run with no transition inside it: a chain of n states has about as many
/// layers as its largest distance from z.
pub(super) type Layers = Vec<u32>;

/// The layers of rows 1..n for a forward solve whose row i reads the columns `lower(i)`
/// (all < i) and a backward solve whose row i reads `upper(i)` (all > i): the starts of
/// runs of rows in which no row reads a row of its own run, then n. Built greedily in one
/// pass; any ordering is accepted (a chain without that structure gets short runs and the
/// solve stays sequential in effect).
pub(super) fn layers<L, U>(n: usize, lower: L, upper: U) -> Layers
where
    L: Fn(usize) -> Option<u32>,
    U: Fn(usize) -> Option<u32>,
{
    let mut out = Vec::new();
    if n <= 1 {
        out.push(n.min(1) as u32);
        return out;
    }
    let mut start = 1usize;
    // The least column a row of the current run reads above itself.
    let mut least_up = u32::MAX;
    out.push(1);
    for i in 1..n {
        let reads_run = lower(i).is_some_and(|j| j as usize >= start);
        let read_by_run = least_up as usize <= i;
        if i > start && (reads_run || read_by_run) {
            out.push(i as u32);
            start = i;
            least_up = u32::MAX;
        }
        if let Some(j) = upper(i) {
            least_up = least_up.min(j);
        }
    }
    out.push(n as u32);
    out
}

/// The least rows of a run handed to one task of a triangular solve: a task costs about a
/// microsecond, a row about ten nanoseconds.
const RUN_PIECE: usize = 1 << 10;

/// The rows of a run a task takes: the run split about twice per thread, at least
/// [`RUN_PIECE`] rows a task; `None` for a run one thread takes whole.
fn piece(len: usize) -> Option<usize> {
    let threads = rayon::current_num_threads();
    if threads < 2 || len < 2 * RUN_PIECE {
        return None;
    }
    Some(len.div_ceil(2 * threads).max(RUN_PIECE))
}

/// Runs `row(i, read, x)` for the rows of a run (`rows` holds rows s.., x the row's old
/// value) and writes the result in its place; in parallel when the run is long.
fn run<F>(rows: &mut [f64], s: usize, read: &[f64], row: &F)
where
    F: Fn(usize, &[f64], f64) -> f64 + Sync,
{
    let body = |base: usize, ch: &mut [f64]| {
        for (k, x) in ch.iter_mut().enumerate() {
            *x = row(base + k, read, *x);
        }
    };
    match piece(rows.len()) {
        None => body(s, rows),
        Some(p) => rows
            .par_chunks_mut(p)
            .enumerate()
            .for_each(|(c, ch)| body(s + c * p, ch)),
    }
}

/// Runs `row(i, lo, v[i])` for the rows `s..e` of `v`, where lo = v[..s] (forward: the
/// rows read only earlier runs), and writes its value to v[i].
pub(super) fn run_forward<F>(v: &mut [f64], s: usize, e: usize, row: F)
where
    F: Fn(usize, &[f64], f64) -> f64 + Sync,
{
    let (lo, hi) = v.split_at_mut(s);
    run(&mut hi[..e - s], s, lo, &row);
}

/// Runs `row(i, hi, v[i])` for the rows `s..e` of `v`, where hi = v[e..] as a slice
/// starting at e (backward: the rows read only later runs).
pub(super) fn run_backward<F>(v: &mut [f64], s: usize, e: usize, row: F)
where
    F: Fn(usize, &[f64], f64) -> f64 + Sync,
{
    let (lo, hi) = v.split_at_mut(e);
    run(&mut lo[s..], s, hi, &row);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked dot product is the same number on one thread and on several (a pool of
    /// one against a pool of four), and close to the plain sum (relative 1e-13: vectors
    /// of positive entries, where reordering the additions moves a sum by a few ulps).
    #[test]
    fn the_dot_product_does_not_depend_on_the_threads() {
        let n = 300_001;
        let a: Vec<f64> = (0..n).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let b: Vec<f64> = (0..n).map(|i| ((i % 97) as f64).sqrt() + 0.5).collect();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let d1 = one.install(|| dot(&a, &b));
        let d4 = four.install(|| dot(&a, &b));
        assert_eq!(d1.to_bits(), d4.to_bits());
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((d1 - plain).abs() <= 1e-13 * plain, "{d1} against {plain}");
    }

    /// The layers of a bipartite chain explored breadth first are its distances from z:
    /// a path 0 - 1 - 2 - 3 - 4 (each row reads its neighbours) has one row a layer, and
    /// the rows of a star's leaves (1..=3 read only 0, 4 reads 1..=3) share one.
    #[test]
    fn layers_split_where_a_row_reads_its_own_run() {
        let path = layers(
            5,
            |i| if i > 1 { Some(i as u32 - 1) } else { None },
            |i| if i + 1 < 5 { Some(i as u32 + 1) } else { None },
        );
        assert_eq!(path, vec![1, 2, 3, 4, 5]);
        let star = layers(
            5,
            |i| if i == 4 { Some(3) } else { None },
            |i| if i < 4 { Some(4) } else { None },
        );
        assert_eq!(star, vec![1, 4, 5]);
    }
}
