//! The symmetries of a redundancy system that its compact chain ([`super::ClassChain`])
//! is reduced by: permutations of the servers that keep their rates and map every class's
//! set onto the set of a class of the same arrival rate and rank ([`Symmetry`]). The chain
//! is lumpable onto the orbits of the group they form (Kemeny & Snell, *Finite Markov
//! Chains*, 1960, Thm 6.3.2): [`Symmetry::canonical`] names each state's orbit by its least
//! image, the chain is built on these representatives with the rates into an orbit summed,
//! and a class's mean is the mean over its class orbit ([`Symmetry::average`]). The
//! W-model with equal singleton rates halves. What the reduction saves and why the chain is
//! invariant: [`Symmetry`]'s docs and the parent module's *Symmetry*.

use super::{PackedState, Work, CHAIN_MAX_CLASSES, CHAIN_MAX_SERVERS, FREE};
use crate::redundancy::classes::ClassSystem;
use crate::redundancy::policy::Policy;

/// Most elements (the identity included) of a symmetry group the compact chain is reduced
/// by: a state's representative is the least of its images, one packing per element and
/// transition. Larger groups (many equal servers and classes) are not used.
pub const MAX_SYMMETRIES: usize = 48;

/// The symmetries of a system that the compact chain can be reduced by: permutations σ of
/// the servers that keep every server's rate and map every class's set S_c onto the set of
/// a class π(c) of the same arrival rate (π is then a permutation of the classes; two
/// classes never share a set). Such a pair maps the chain onto itself: an arrival of c at
/// rate λ_c becomes one of π(c) at the same rate, a group on servers M completes at
/// μ(M) = μ(σM), and the policies see a class only through its set (its rank is a function
/// of |S_c|, ROS picks uniformly, and the free servers' picks do not depend on the order
/// in which they pick: under FCFS with a class priority all servers of a class serve its
/// oldest job, under ROS each server picks uniformly among the jobs of its top rank,
/// independently of the others). The truncations used are invariant too (equal caps and
/// weights on exchanged classes). The chain is then lumpable onto the orbits of the group
/// (Kemeny & Snell, *Finite Markov Chains*, 1960, Thm 6.3.2): the lumped chain's rate from
/// an orbit to another is the rate from any of its states into the other orbit, and its
/// stationary mass on an orbit is the full chain's, spread evenly over the orbit's states
/// (the full chain's stationary law is invariant). A class mean is therefore the mean over
/// the class's orbit of the lumped chain's means (orbit-averaged per state).
#[derive(Debug, Clone, PartialEq)]
pub struct Symmetry {
    k: usize,
    nc: usize,
    /// The elements other than the identity: (σ, π) with server s ↦ σ[s], class c ↦ π[c].
    elements: Vec<(Vec<usize>, Vec<usize>)>,
    /// For each class, its orbit under the group (sorted).
    orbit: Vec<Vec<usize>>,
}

/// The next permutation in lexicographic order (false after the last).
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let Some(i) = (0..n - 1).rev().find(|&i| p[i] < p[i + 1]) else {
        return false;
    };
    let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap_or(i + 1);
    p.swap(i, j);
    p[i + 1..].reverse();
    true
}

impl Symmetry {
    /// The group of `sys` under `policy` (type docs), or `None` when it is trivial, when the
    /// system is beyond the chain's limits, or when it has more than [`MAX_SYMMETRIES`]
    /// elements. Rates are compared as the f64 the chain uses, so that the computed chain
    /// is exactly invariant.
    pub fn of(sys: &ClassSystem, policy: Policy) -> Option<Symmetry> {
        let k = sys.servers();
        let nc = sys.classes().len();
        if k > CHAIN_MAX_SERVERS || nc > CHAIN_MAX_CLASSES {
            return None;
        }
        let mu = sys.mu_f64();
        let lambda = sys.lambda_f64();
        let rank = policy.ranks(sys);
        let sets: Vec<u32> = sys.classes().iter().map(|c| c.set.mask()).collect();
        let image = |sigma: &[usize]| -> Option<Vec<usize>> {
            if (0..k).any(|s| mu[sigma[s]] != mu[s]) {
                return None;
            }
            (0..nc)
                .map(|c| {
                    let m = (0..k)
                        .filter(|&s| (sets[c] >> s) & 1 == 1)
                        .fold(0u32, |m, s| m | 1 << sigma[s]);
                    let d = sets.iter().position(|&x| x == m)?;
                    (lambda[d] == lambda[c] && rank[d] == rank[c]).then_some(d)
                })
                .collect()
        };
        let mut sigma: Vec<usize> = (0..k).collect();
        let mut elements = Vec::new();
        while next_permutation(&mut sigma) {
            if let Some(pi) = image(&sigma) {
                elements.push((sigma.clone(), pi));
                if elements.len() + 1 > MAX_SYMMETRIES {
                    return None;
                }
            }
        }
        if elements.is_empty() {
            return None;
        }
        let orbit = (0..nc)
            .map(|c| {
                let mut o: Vec<usize> = elements.iter().map(|(_, pi)| pi[c]).collect();
                o.push(c);
                o.sort_unstable();
                o.dedup();
                o
            })
            .collect();
        Some(Symmetry {
            k,
            nc,
            elements,
            orbit,
        })
    }

    /// The class orbits of more than one class (sorted, each sorted): the classes exchanged.
    pub fn exchanged(&self) -> Vec<Vec<usize>> {
        let mut v: Vec<Vec<usize>> = self.orbit.iter().filter(|o| o.len() > 1).cloned().collect();
        v.sort();
        v.dedup();
        v
    }

    /// The representative of the orbit of `s`: the least of its images.
    pub fn canonical(&self, s: &PackedState) -> PackedState {
        let mut best = *s;
        for (sigma, pi) in self.elements() {
            let p = self.image(s, sigma, pi);
            if p < best {
                best = p;
            }
        }
        best
    }

    /// The orbit of class `c` under the group (sorted; `c` itself included).
    pub(super) fn orbit(&self, c: usize) -> &[usize] {
        &self.orbit[c]
    }

    /// The group's elements (σ, π) other than the identity.
    pub(super) fn elements(&self) -> &[(Vec<usize>, Vec<usize>)] {
        &self.elements
    }

    /// The image of `s` under the element (σ, π): class c's count becomes class π(c)'s,
    /// server s's group server σ(s)'s, a group of class c one of class π(c); packed.
    pub(super) fn image(&self, s: &PackedState, sigma: &[usize], pi: &[usize]) -> PackedState {
        let mut w = Work::empty();
        for (&x, &d) in s.counts[..self.nc].iter().zip(pi) {
            w.counts[d] = x;
        }
        for (&g, &t) in s.server[..self.k].iter().zip(sigma) {
            w.server[t] = g;
        }
        for (g, &c) in w.gclass.iter_mut().zip(&s.gclass) {
            *g = if c == FREE {
                FREE
            } else {
                pi[usize::from(c)] as u8
            };
        }
        w.pack()
    }

    /// Each class's entry of `v` replaced by the least over its orbit.
    pub(super) fn minimum(&self, v: &mut [f64]) {
        let raw = v.to_vec();
        for (c, o) in self.orbit.iter().enumerate() {
            v[c] = o.iter().map(|&d| raw[d]).fold(f64::INFINITY, f64::min);
        }
    }

    /// Per-class values of the lumped chain made the full chain's: each class gets the mean
    /// over its orbit (summed in the orbit's order, so that exchanged classes get the same
    /// f64).
    pub(super) fn average(&self, v: &mut [f64]) {
        let raw = v.to_vec();
        for (c, o) in self.orbit.iter().enumerate() {
            v[c] = o.iter().map(|&d| raw[d]).sum::<f64>() / o.len() as f64;
        }
    }
}

/// "classes {1} and {2} exchanged" (or the servers, when no class moves).
pub fn exchanged_text(sys: &ClassSystem, exchanged: &[Vec<usize>]) -> String {
    if exchanged.is_empty() {
        return "equal servers exchanged".into();
    }
    exchanged
        .iter()
        .map(|o| {
            let names: Vec<String> = o.iter().map(|&c| sys.describe(&[c])).collect();
            match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    format!("classes {} and {last} exchanged", rest.join(", "))
                }
                _ => format!("class {} exchanged", names.join("")),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(k: usize, classes: &[(&str, &str)]) -> ClassSystem {
        ClassSystem::unit_for_tests(k, classes)
    }

    #[test]
    fn symmetries_are_found_where_servers_and_classes_map_onto_each_other() {
        // The W-model's servers swap with its singleton classes at equal rates; at unequal
        // rates, and in the N-model ({1} has no partner), there is nothing to exchange.
        let ros = Policy::parse("ros", false).unwrap();
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let g = Symmetry::of(&w, ros).unwrap();
        assert_eq!(g.exchanged(), vec![vec![0, 1]]);
        assert_eq!(g.elements, vec![(vec![1, 0], vec![1, 0, 2])]);
        let u = sys(2, &[("1", "0.5"), ("2", "0.4"), ("1+2", "0.6")]);
        assert!(Symmetry::of(&u, ros).is_none());
        let n = sys(2, &[("1", "0.1"), ("1+2", "1.7")]);
        assert!(Symmetry::of(&n, ros).is_none());
        // Three equal servers, one class on all: the server permutations (S3, 6 elements)
        // move no class.
        let f = sys(3, &[("1+2+3", "2")]);
        let g = Symmetry::of(&f, ros).unwrap();
        assert_eq!(g.elements.len(), 5);
        assert!(g.exchanged().is_empty());
        // The canonical state is one per orbit: a state and its mirror image agree.
        let mut a = Work::empty();
        a.counts[0] = 3;
        a.counts[2] = 1;
        a.server[0] = 1;
        a.gclass[0] = 0;
        a.server[1] = 2;
        a.gclass[1] = 2;
        let mut b = Work::empty();
        b.counts[1] = 3;
        b.counts[2] = 1;
        b.server[1] = 1;
        b.gclass[0] = 1;
        b.server[0] = 2;
        b.gclass[1] = 2;
        let w = Symmetry::of(&w, ros).unwrap();
        assert_ne!(a.pack(), b.pack());
        assert_eq!(w.canonical(&a.pack()), w.canonical(&b.pack()));
    }

    /// The premise of averaging a function over the group (a Lyapunov certificate made
    /// invariant, `lyapunov`): the chain is invariant under every element, i.e. the
    /// transitions out of image(s) are the images of those out of s, rate for rate
    /// (exactly: the same f64 sums). Checked on every state of the W-model at
    /// (0.5, 0.5, 0.6) and of the 3-server nested system with two exchanged singleton
    /// classes, with at most 6 jobs, under the four priority policies. A wrong image (π
    /// not applied to the groups' classes) fails it.
    #[test]
    fn the_chain_is_invariant_under_every_element() {
        use crate::num::markov::Ctmc;
        use crate::redundancy::ctmc::ClassChain;
        let nested = sys(
            3,
            &[
                ("1", "0.4"),
                ("2", "0.4"),
                ("1+2", "0.6"),
                ("3", "0.5"),
                ("1+2+3", "0.8"),
            ],
        );
        let w = sys(2, &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.6")]);
        let merged = |v: &mut Vec<(PackedState, f64)>| {
            v.sort_by_key(|a| a.0);
            let mut out: Vec<(PackedState, f64)> = Vec::new();
            for &(t, r) in v.iter() {
                match out.last_mut() {
                    Some(last) if last.0 == t => last.1 += r,
                    _ => out.push((t, r)),
                }
            }
            out
        };
        for system in [&w, &nested] {
            for name in ["lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"] {
                let policy = Policy::parse(name, false).unwrap();
                let g = Symmetry::of(system, policy).expect("a symmetric system");
                let chain = ClassChain::new(system, policy, 6).unwrap();
                let mut seen = std::collections::HashSet::new();
                let mut todo = vec![chain.start()];
                seen.insert(chain.start());
                let mut checked = 0;
                while let Some(s) = todo.pop() {
                    let mut out = Vec::new();
                    chain.transitions(&s, &mut out);
                    for (sigma, pi) in g.elements() {
                        let mut images: Vec<(PackedState, f64)> = out
                            .iter()
                            .map(|(t, r)| (g.image(t, sigma, pi), *r))
                            .collect();
                        let mut direct = Vec::new();
                        chain.transitions(&g.image(&s, sigma, pi), &mut direct);
                        assert_eq!(merged(&mut images), merged(&mut direct), "{name} {s:?}");
                        checked += 1;
                    }
                    for (t, _) in out {
                        if seen.insert(t) {
                            todo.push(t);
                        }
                    }
                }
                assert!(checked > 100, "{name}: {checked}");
            }
        }
    }
}
