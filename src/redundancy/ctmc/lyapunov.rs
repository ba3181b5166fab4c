//! A Foster–Lyapunov certificate for the compact chain under a class priority with FCFS
//! within a rank (issue 26, item 2; the module docs of `ctmc.rs`, "A full quadratic fails
//! too; a configuration-dependent linear term works").
//!
//! **The candidate.** V(n, σ) = nᵀPn + Σ_c g_c(σ) n_c with P ≥ 0 (symmetric) and g ≥ 0,
//! σ the busy-server configuration (each server's group and the groups' classes). A
//! transition adds d = ±1 to class c and moves σ to σ'; it changes V by
//! 2d(Pn)_c + P_cc + Σ_i (g_i(σ') − g_i(σ)) n_i + d g_c(σ').
//!
//! **Cells.** Under FCFS within a rank the configuration a transition leads to depends only
//! on which classes are present after it, so it is the same for all counts with the same
//! category cat_c = min(n_c, T), T = [`FCFS_THRESHOLD`] = 2 (a class with n_c ≥ 2 is still
//! present after one departure). On a cell (σ, cat) with at least one "big" class
//! (cat_j = T), QV is therefore affine in the big counts: QV = b(σ, cat) + Σ_{big j} a_j n_j
//! with a_j = Σ_t r_t (2d_t P_{j c_t} + g_j(σ'_t) − g_j(σ)) and b the same sum's remaining
//! terms at the small counts. If every a_j ≤ −m (m > 0, the margin) and b ≤ B on every
//! cell, then QV(n, σ) ≤ B − m Σ_{big j} n_j ≤ B + mC(T − 1) − m|n| at every state with a
//! big class (C classes), i.e. QV ≤ −1 once |n| ≥ C(T − 1) + (B + 1)/m.
//!
//! **Which cells.** Every configuration the chain reaches: those of the states with at most
//! 3C + 3 jobs (every state with all counts below T is among them), closed under the
//! cells' own transitions (a state with a big class lies in a cell, and its transitions'
//! targets are that cell's), so every state of the infinite chain with a big class lies in
//! a cell that is checked. Cells whose counts no state of that configuration can have (fewer
//! jobs of a class than its groups in service, or an idle server a present class could
//! use) are left out.
//!
//! **Search and check.** The rows a_j ≤ −5/4 (a margin over −1 for the rounding) are an LP
//! in (P, g) ≥ 0, solved in f64 by `microlp`; the solution's entries are taken as the
//! rationals they are (negative roundings set to 0) and every row and constant is then
//! recomputed in exact rational arithmetic (`rug::Rational`) from the chain's own rates
//! (each f64 rate read as the rational it is: the certificate is for the chain that is
//! solved). The verdict is found only if that exact check gives m > 0.
//!
//! ROS within a rank (pick probabilities in 1/n_c) is not handled here yet: its cells need
//! the probabilities enclosed over n_c ≥ T (`scripts/redundancy_lyapunov.py` shows how).

use super::{
    ClassChain, PackedState, Symmetry, CHAIN_MAX_CLASSES, CHAIN_MAX_SERVERS, CHAIN_MAX_TRUNCATION,
};
use crate::num::markov::Ctmc;
use crate::redundancy::classes::ClassSystem;
use crate::redundancy::policy::{Order, Policy};
use rug::Rational;
use rustc_hash::FxHashMap;

/// The category threshold T of FCFS within a rank: a class with n_c ≥ T is "big".
pub const FCFS_THRESHOLD: u16 = 2;
/// The LP's rows ask a_j ≤ −LP_MARGIN (the exact check then asks a_j < 0).
const LP_MARGIN: f64 = 1.25;

/// One transition of a cell: class, ±1, rate (exact), target configuration (index).
#[derive(Debug, Clone)]
struct Move {
    class: usize,
    d: i32,
    rate: Rational,
    target: usize,
}

/// The LP's (P, g) in f64.
type LpSolution = (Vec<f64>, Vec<f64>);

/// A cell (σ, cat) with its transitions.
#[derive(Debug, Clone)]
struct Cell {
    config: usize,
    cat: Vec<u16>,
    moves: Vec<Move>,
}

/// The cells of one system and policy.
#[derive(Debug, Clone)]
struct Cells {
    nc: usize,
    configs: Vec<PackedState>,
    index: FxHashMap<PackedState, usize>,
    cells: Vec<Cell>,
}

/// A checked certificate V(n, σ) = nᵀPn + Σ_c g_c(σ) n_c.
#[derive(Debug, Clone)]
pub struct LyapunovCertificate {
    nc: usize,
    /// P, row-major C × C (symmetric).
    p: Vec<Rational>,
    /// Configurations (counts zeroed) and their g rows.
    index: FxHashMap<PackedState, usize>,
    g: Vec<Rational>,
    margin: Rational,
    constant: Rational,
    configs: usize,
    cells: usize,
    rows: usize,
    /// Whether V is invariant under the system's symmetry (averaged over the group and
    /// checked again), so that it serves the chain lumped onto orbits too.
    invariant: bool,
}

/// What the search found.
#[derive(Debug, Clone)]
pub enum LyapunovVerdict {
    /// A certificate, checked exactly.
    Found(Box<LyapunovCertificate>),
    /// The LP has no solution: no certificate of this shape exists on these cells.
    Infeasible {
        /// Configurations of the search.
        configs: usize,
        /// Cells of the search.
        cells: usize,
        /// LP rows (one per cell and large count).
        rows: usize,
    },
    /// The LP solved but the exact check of the rounded solution failed.
    RoundingLost {
        /// The largest coefficient the exact check found (≥ 0).
        worst: f64,
    },
    /// The policy or system is outside what this search handles (the reason).
    Unsupported(String),
}

fn config_of(s: &PackedState) -> PackedState {
    let mut c = *s;
    c.counts = [0; CHAIN_MAX_CLASSES];
    c
}

fn exact(x: f64) -> Rational {
    Rational::from_f64(x).unwrap_or_default()
}

impl Cells {
    fn build(sys: &ClassSystem, policy: Policy) -> Result<Cells, String> {
        if policy.order != Order::Fcfs {
            return Err(format!(
                "{}: a certificate for ROS within a rank needs its pick probabilities enclosed over the large counts (not implemented)",
                policy.name()
            ));
        }
        let nc = sys.classes().len();
        let small = ClassChain::new(sys, policy, 3 * nc + 3).map_err(|e| e.to_string())?;
        let big = ClassChain::new(sys, policy, CHAIN_MAX_TRUNCATION).map_err(|e| e.to_string())?;
        let mut configs = Vec::new();
        let mut index = FxHashMap::default();
        let mut seen = rustc_hash::FxHashSet::default();
        let z = small.start();
        seen.insert(z);
        let mut todo = vec![z];
        let mut out = Vec::new();
        while let Some(s) = todo.pop() {
            let c = config_of(&s);
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(c) {
                e.insert(configs.len());
                configs.push(c);
            }
            out.clear();
            small.transitions(&s, &mut out);
            for (t, _) in &out {
                if seen.insert(*t) {
                    todo.push(*t);
                }
            }
        }
        let t = FCFS_THRESHOLD;
        let mut cells = Vec::new();
        let mut next = 0;
        while next < configs.len() {
            let sg = configs[next];
            let ci = next;
            next += 1;
            let groups: Vec<u16> = (0..nc)
                .map(|c| sg.gclass.iter().filter(|&&g| usize::from(g) == c).count() as u16)
                .collect();
            let mut cat = vec![0u16; nc];
            loop {
                let consistent = cat.contains(&t)
                    && (0..nc).all(|c| cat[c] >= groups[c])
                    && !(0..big.k)
                        .any(|s| sg.server[s] == 0 && big.compat[s].iter().any(|&c| cat[c] > 0));
                if consistent {
                    let mut st = sg;
                    st.counts[..nc].copy_from_slice(&cat);
                    out.clear();
                    big.transitions(&st, &mut out);
                    let mut moves = Vec::with_capacity(out.len());
                    for (u, r) in &out {
                        let (class, d) = (0..nc)
                            .find_map(|c| match u.counts[c].cmp(&st.counts[c]) {
                                std::cmp::Ordering::Greater => Some((c, 1)),
                                std::cmp::Ordering::Less => Some((c, -1)),
                                std::cmp::Ordering::Equal => None,
                            })
                            .ok_or("a transition that moves no count")?;
                        let uc = config_of(u);
                        let target = match index.get(&uc) {
                            Some(&i) => i,
                            None => {
                                index.insert(uc, configs.len());
                                configs.push(uc);
                                configs.len() - 1
                            }
                        };
                        moves.push(Move {
                            class,
                            d,
                            rate: exact(*r),
                            target,
                        });
                    }
                    cells.push(Cell {
                        config: ci,
                        cat: cat.clone(),
                        moves,
                    });
                }
                // Next category vector (odometer).
                let mut i = 0;
                while i < nc && cat[i] == t {
                    cat[i] = 0;
                    i += 1;
                }
                if i == nc {
                    break;
                }
                cat[i] += 1;
            }
        }
        Ok(Cells {
            nc,
            configs,
            index,
            cells,
        })
    }

    fn rows(&self) -> usize {
        self.cells
            .iter()
            .map(|c| c.cat.iter().filter(|&&x| x == FCFS_THRESHOLD).count())
            .sum()
    }

    /// The LP's (P, g) in f64, or `None` when it is infeasible.
    fn lp(&self) -> Result<Option<LpSolution>, String> {
        use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
        let nc = self.nc;
        let mut pb = Problem::new(OptimizationDirection::Minimize);
        let mut pv = vec![None; nc * nc];
        for i in 0..nc {
            for j in i..nc {
                let v = pb.add_var(1.0, (0.0, f64::INFINITY));
                pv[i * nc + j] = Some(v);
                pv[j * nc + i] = Some(v);
            }
        }
        let pv: Vec<_> = pv.into_iter().map(|v| v.expect("every entry")).collect();
        let gv: Vec<_> = (0..self.configs.len() * nc)
            .map(|_| pb.add_var(1e-3, (0.0, f64::INFINITY)))
            .collect();
        for cell in &self.cells {
            for j in 0..nc {
                if cell.cat[j] != FCFS_THRESHOLD {
                    continue;
                }
                let mut coef: FxHashMap<usize, f64> = FxHashMap::default();
                let np = nc * nc;
                for m in &cell.moves {
                    let r = m.rate.to_f64();
                    // Variables keyed: P by the entry's first index, g offset by np.
                    let (a, b) = (j.min(m.class), j.max(m.class));
                    *coef.entry(a * nc + b).or_default() += 2.0 * f64::from(m.d) * r;
                    *coef.entry(np + m.target * nc + j).or_default() += r;
                    *coef.entry(np + cell.config * nc + j).or_default() -= r;
                }
                let mut e = LinearExpr::empty();
                let mut keys: Vec<_> = coef.into_iter().filter(|&(_, x)| x != 0.0).collect();
                keys.sort_by_key(|&(k, _)| k);
                for (k, x) in keys {
                    let v = if k < np { pv[k] } else { gv[k - np] };
                    e.add(v, x);
                }
                pb.add_constraint(e, ComparisonOp::Le, -LP_MARGIN);
            }
        }
        match pb.solve() {
            Ok(outcome) => match outcome.solution() {
                Some(sol) => {
                    let p = pv.iter().map(|&v| sol.var_value(v)).collect();
                    let g = gv.iter().map(|&v| sol.var_value(v)).collect();
                    Ok(Some((p, g)))
                }
                None => Err("the LP stopped before a solution".into()),
            },
            Err(microlp::Error::Infeasible) => Ok(None),
            Err(e) => Err(format!("the certificate's LP failed: {e}")),
        }
    }

    /// (P, g) averaged over the group of `sym`: V'(s) = (1/|G|) Σ_T V(T s). With T = (σ, π)
    /// (class c's count moves to π(c)), V(T s) = Σ_{c,d} n_c n_d P_{π(c)π(d)} +
    /// Σ_c g_{π(c)}(T σ) n_c, so P'_{cd} is the mean of P_{π(c)π(d)} and g'_c(σ) that of
    /// g_{π(c)}(T σ). `None` when an image of a configuration is not among the cells'
    /// (then the group does not act on them and no average is claimed).
    fn averaged(
        &self,
        sym: &Symmetry,
        p: &[Rational],
        g: &[Rational],
    ) -> Option<(Vec<Rational>, Vec<Rational>)> {
        let nc = self.nc;
        let identity: (Vec<usize>, Vec<usize>) = (
            (0..CHAIN_MAX_SERVERS).collect(),
            (0..CHAIN_MAX_CLASSES).collect(),
        );
        let group: Vec<(&[usize], &[usize], bool)> =
            std::iter::once((identity.0.as_slice(), identity.1.as_slice(), true))
                .chain(
                    sym.elements()
                        .iter()
                        .map(|(s, q)| (s.as_slice(), q.as_slice(), false)),
                )
                .collect();
        let order = Rational::from(group.len());
        let mut pa = vec![Rational::new(); nc * nc];
        let mut ga = vec![Rational::new(); g.len()];
        for &(sigma, pi, is_identity) in &group {
            for c in 0..nc {
                for d in 0..nc {
                    pa[c * nc + d] += &p[pi[c] * nc + pi[d]];
                }
            }
            for (ci, cfg) in self.configs.iter().enumerate() {
                let ti = if is_identity {
                    ci
                } else {
                    *self.index.get(&sym.image(cfg, sigma, pi))?
                };
                for c in 0..nc {
                    ga[ci * nc + c] += &g[ti * nc + pi[c]];
                }
            }
        }
        for x in pa.iter_mut().chain(ga.iter_mut()) {
            *x /= &order;
        }
        Some((pa, ga))
    }

    /// Exact check of (P, g): (the largest big-count coefficient, the largest constant)
    /// over every cell. P is C × C row-major (must be symmetric), g is configs × C.
    fn check(&self, p: &[Rational], g: &[Rational]) -> (Rational, Rational) {
        let nc = self.nc;
        let mut worst_a: Option<Rational> = None;
        let mut worst_b: Option<Rational> = None;
        for cell in &self.cells {
            let gs = &g[cell.config * nc..(cell.config + 1) * nc];
            let mut b = Rational::new();
            let mut a = vec![Rational::new(); nc];
            for m in &cell.moves {
                let gt = &g[m.target * nc..(m.target + 1) * nc];
                let c = m.class;
                let d = Rational::from(m.d);
                // Constant: P_cc + d g_c(σ') at the move, plus the small counts' terms.
                let mut k = Rational::from(&p[c * nc + c]) + Rational::from(&d * &gt[c]);
                for i in 0..nc {
                    let coef = Rational::from(2 * m.d) * &p[i * nc + c] + &gt[i] - &gs[i];
                    if cell.cat[i] == FCFS_THRESHOLD {
                        a[i] += Rational::from(&m.rate * &coef);
                    } else {
                        k += coef * cell.cat[i];
                    }
                }
                b += k * &m.rate;
            }
            for (j, aj) in a.into_iter().enumerate() {
                if cell.cat[j] == FCFS_THRESHOLD && worst_a.as_ref().is_none_or(|w| aj > *w) {
                    worst_a = Some(aj);
                }
            }
            if worst_b.as_ref().is_none_or(|w| b > *w) {
                worst_b = Some(b);
            }
        }
        (worst_a.unwrap_or_default(), worst_b.unwrap_or_default())
    }
}

/// Searches a certificate for `sys` under `policy` (a class priority, FCFS within a rank).
pub fn lyapunov_search(sys: &ClassSystem, policy: Policy) -> LyapunovVerdict {
    let cells = match Cells::build(sys, policy) {
        Ok(c) => c,
        Err(e) => return LyapunovVerdict::Unsupported(e),
    };
    let rows = cells.rows();
    let (pf, gf) = match cells.lp() {
        Ok(Some(x)) => x,
        Ok(None) => {
            return LyapunovVerdict::Infeasible {
                configs: cells.configs.len(),
                cells: cells.cells.len(),
                rows,
            }
        }
        Err(e) => return LyapunovVerdict::Unsupported(e),
    };
    let p: Vec<Rational> = pf.iter().map(|&x| exact(x.max(0.0))).collect();
    let g: Vec<Rational> = gf.iter().map(|&x| exact(x.max(0.0))).collect();
    let (a, b) = cells.check(&p, &g);
    if a >= 0 {
        return LyapunovVerdict::RoundingLost { worst: a.to_f64() };
    }
    let (p, g, a, b, invariant) =
        match Symmetry::of(sys, policy).and_then(|sym| cells.averaged(&sym, &p, &g)) {
            Some((pa, ga)) => {
                // The average of certificates of an invariant chain is one (each image V∘T has
                // the same drift bound: T permutes the large counts), but it is checked again
                // exactly rather than trusted; if it failed, the unaveraged one is kept.
                let (aa, ba) = cells.check(&pa, &ga);
                if aa < 0 {
                    (pa, ga, aa, ba, true)
                } else {
                    (p, g, a, b, false)
                }
            }
            None => (p, g, a, b, false),
        };
    LyapunovVerdict::Found(Box::new(LyapunovCertificate {
        nc: cells.nc,
        p,
        index: cells.index.clone(),
        g,
        margin: -a,
        constant: b,
        configs: cells.configs.len(),
        cells: cells.cells.len(),
        rows,
        invariant,
    }))
}

impl LyapunovCertificate {
    /// V at a state of the chain; `None` for a configuration the certificate has not seen
    /// (not one the chain reaches).
    pub(super) fn value(&self, s: &PackedState) -> Option<Rational> {
        let nc = self.nc;
        let ci = *self.index.get(&config_of(s))?;
        let n = &s.counts[..nc];
        let mut v = Rational::new();
        for i in 0..nc {
            for j in 0..nc {
                v += Rational::from(&self.p[i * nc + j] * n[i]) * n[j];
            }
            v += Rational::from(&self.g[ci * nc + i] * n[i]);
        }
        Some(v)
    }

    /// m: every large count's coefficient of QV is ≤ −m on every cell.
    pub fn margin(&self) -> &Rational {
        &self.margin
    }

    /// B: QV ≤ B − m Σ_{big j} n_j at every state with a count ≥ T.
    pub fn constant(&self) -> &Rational {
        &self.constant
    }

    /// Whether V is invariant under the system's symmetry ([`Symmetry`]): then it is a
    /// certificate for the chain lumped onto orbits as well (its drift at a representative
    /// is the full chain's there).
    pub fn invariant(&self) -> bool {
        self.invariant
    }

    /// The number of classes C.
    pub fn classes(&self) -> usize {
        self.nc
    }

    /// (configurations, cells, LP rows) of the search.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.configs, self.cells, self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(k: usize, classes: &[(&str, &str)]) -> ClassSystem {
        ClassSystem::unit_for_tests(k, classes)
    }

    fn w(l3: &str) -> ClassSystem {
        sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", l3)])
    }

    fn found(v: LyapunovVerdict) -> Box<LyapunovCertificate> {
        match v {
            LyapunovVerdict::Found(c) => c,
            other => panic!("no certificate: {other:?}"),
        }
    }

    #[test]
    fn the_scripts_verdicts_are_reproduced() {
        // scripts/redundancy_lyapunov.py (2026-12-03, ctmc.rs module docs): certified for the
        // W-model at (0.5, 0.5, 0.6) and the N-model at (0.1, 1.7) under LRF-FCFS and
        // MRF-FCFS; infeasible for the W-model at (0.5, 0.5, 1.1) (past the stability
        // region: total load 2.1 on capacity 2, where no certificate can exist).
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        for s in [&w("0.6"), &n] {
            for name in ["lrf-fcfs", "mrf-fcfs"] {
                let c = found(lyapunov_search(s, Policy::parse(name, false).unwrap()));
                assert!(*c.margin() > 0, "{name}");
            }
        }
        for name in ["lrf-fcfs", "mrf-fcfs"] {
            let v = lyapunov_search(&w("1.1"), Policy::parse(name, false).unwrap());
            assert!(
                matches!(v, LyapunovVerdict::Infeasible { .. }),
                "{name}: {v:?}"
            );
        }
        // The sizes of the script's search (its output of 2026-12-04, same cells: T = 2,
        // every configuration of the states with at most 3C + 3 jobs): W-model 7
        // configurations, 46 cells, 71 rows; N-model 4, 8, 10 (LRF-FCFS).
        let c = found(lyapunov_search(
            &w("0.6"),
            Policy::parse("lrf-fcfs", false).unwrap(),
        ));
        assert_eq!(c.sizes(), (7, 46, 71));
        let c = found(lyapunov_search(
            &n,
            Policy::parse("lrf-fcfs", false).unwrap(),
        ));
        assert_eq!(c.sizes(), (4, 8, 10));
        let v = lyapunov_search(&w("0.6"), Policy::parse("ros", false).unwrap());
        assert!(matches!(v, LyapunovVerdict::Unsupported(_)), "{v:?}");
    }

    #[test]
    fn the_exact_check_rejects_mutants() {
        // A certificate the check accepts; the same with g = 0 must fail (ctmc.rs module
        // docs: in the W-model under LRF the quadratic alone has two cells whose
        // coefficients of n_2 sum to 0.4 P_23 ≥ 0), and so must P = 0 (the drift of the
        // linear part alone is not negative on every face; same docs).
        let s = w("0.6");
        let p = Policy::parse("lrf-fcfs", false).unwrap();
        let cells = Cells::build(&s, p).unwrap();
        let c = found(lyapunov_search(&s, p));
        let (a, _) = cells.check(&c.p, &c.g);
        assert!(a < 0);
        let zeros_g = vec![Rational::new(); c.g.len()];
        assert!(cells.check(&c.p, &zeros_g).0 >= 0, "g = 0 accepted");
        let zeros_p = vec![Rational::new(); c.p.len()];
        assert!(cells.check(&zeros_p, &c.g).0 >= 0, "P = 0 accepted");
    }

    #[test]
    fn the_drift_holds_state_by_state() {
        // QV computed directly from ClassChain::transitions and V at every state of a box
        // (each count ≤ 7, every configuration the chain reaches there) with a count ≥ T
        // must be ≤ B − m Σ_{n_j ≥ T} n_j (the module docs' bound), in exact arithmetic.
        // Independent of the rows' algebra: a sign slip in a row's coefficient or constant
        // gives a certificate this catches.
        for (s, name) in [
            (w("0.6"), "lrf-fcfs"),
            (w("0.6"), "mrf-fcfs"),
            (sys(2, &[("1", "0.1"), ("1+2", "1.7")]), "mrf-fcfs"),
        ] {
            let p = Policy::parse(name, false).unwrap();
            let c = found(lyapunov_search(&s, p));
            let nc = c.classes();
            let chain = ClassChain::new(&s, p, CHAIN_MAX_TRUNCATION).unwrap();
            let boxed = ClassChain::new(&s, p, 7 * nc).unwrap();
            let z = boxed.start();
            let mut seen = rustc_hash::FxHashSet::default();
            seen.insert(z);
            let mut todo = vec![z];
            let mut out = Vec::new();
            let mut checked = 0;
            while let Some(st) = todo.pop() {
                out.clear();
                boxed.transitions(&st, &mut out);
                for (t, _) in &out {
                    if t.counts[..nc].iter().all(|&x| x <= 7) && seen.insert(*t) {
                        todo.push(*t);
                    }
                }
                let big: u32 = st.counts[..nc]
                    .iter()
                    .filter(|&&x| x >= FCFS_THRESHOLD)
                    .map(|&x| u32::from(x))
                    .sum();
                if big == 0 {
                    continue;
                }
                out.clear();
                chain.transitions(&st, &mut out);
                let v0 = c.value(&st).expect("a configuration the certificate knows");
                let mut qv = Rational::new();
                for (t, r) in &out {
                    let v1 = c.value(t).expect("a configuration the certificate knows");
                    qv += (v1 - &v0) * exact(*r);
                }
                let bound = c.constant() - Rational::from(c.margin() * big);
                assert!(
                    qv <= bound,
                    "{name}: QV {} > {}",
                    qv.to_f64(),
                    bound.to_f64()
                );
                checked += 1;
            }
            assert!(checked > 100, "{name}: {checked} states");
        }
    }
}
