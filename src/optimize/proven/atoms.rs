//! The exact global minimum of a discrete law (the empirical law of a sample file): its
//! cutoffs matter only through the atoms they pass, so the minimum over every cutoff vector
//! is a minimum over finitely many choices, found by a dynamic programme along the chain of
//! hosts over the atoms' slots, every host term enclosed ([`Problem::atom_programme`]).
//!
//! **Why it is the minimum.** With atoms x_1 < … < x_m, a cutoff s lies in a slot: below x_1
//! (slot 0) or in [x_k, x_{k+1}) (slot k; x_{m+1} = +∞). Host i's term on (a, b] reads a
//! only through the event {X > a}, which is the same for every a of a slot, and reads b
//! through the atoms up to b (the same in a slot) and, for TAGS, through b itself in
//! b^j F̄(b) and b G(b), which grow with b while F̄(b) and G(b) stay fixed in the slot. So
//! every term at a cutoff vector is at least its value with each cutoff moved down to its
//! slot's lower end (x_k; slot 0: the least cutoff allowed), exactly equal for SITA, and the
//! moved vector is still ordered. Hence the global minimum of the sum (the largest term for
//! TAGS-minmax) is the least over non-decreasing slot sequences of the terms at the slots'
//! lower ends — what the programme computes, each term enclosed (counts of atoms by a point
//! r_k in [x_k, x_{k+1}) so that the moments are exact sums, the value b = x_k enclosed), the
//! lower ends combined with rounding down. The path that attains it, at the atoms
//! themselves, is a cutoff vector whose value the upper ends enclose: the two ends bound the
//! global minimum, and their gap is only the enclosures' width.
//!
//! Before it, SITA on an empirical law with atoms 1, 2, 2, 5, 10, 40, 3 hosts, load 0.5,
//! proved no digit (the branch and bound's natural bound over a box whose cutoff straddles
//! an atom drops the atom from both of its hosts, so a box around the optimum never closes:
//! "a box cannot be split at the working precision" after 529 boxes), and TAGS-minmax 4
//! digits in 20 000 boxes (2026-12-05).

use super::Problem;
use crate::dist::enclose::{below_support, Atom, Enclosure};
use crate::num::interval::Interval;
use crate::policy::host_term::{host, weight_order, HostInputs, KillPoint, Parts};
use crate::policy::{Metric, PolicyError};
use rug::float::{Round, Special};
use rug::Float;

/// A host's inputs with its cutoffs at slots: a at the point `a` (a slot's representative,
/// or below the support), b at the representative `rep` with the value `at` (TAGS's b), or
/// the top (`None`).
struct SlotInputs<'a> {
    enc: &'a dyn Enclosure,
    metric: Metric,
    a: &'a Float,
    b: Option<(&'a Float, &'a Interval)>,
    top: Float,
}

impl SlotInputs<'_> {
    fn moment(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, PolicyError> {
        if a >= b {
            return Ok(Interval::zero_at(self.enc.prec()));
        }
        self.enc
            .moment_at(j, a, b)
            .map_err(|e| PolicyError::Dist(e).for_metric(self.metric))
    }
    fn b_rep(&self) -> &Float {
        self.b.map_or(&self.top, |(r, _)| r)
    }
}

impl HostInputs for SlotInputs<'_> {
    type R = Interval;
    type Error = PolicyError;
    fn m1(&self) -> Result<Interval, PolicyError> {
        self.moment(1, self.a, self.b_rep())
    }
    fn m2(&self) -> Result<Interval, PolicyError> {
        self.moment(2, self.a, self.b_rep())
    }
    fn interval_weight(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, self.b_rep())
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Interval>>, PolicyError> {
        let Some((rep, at)) = self.b else {
            return Ok(None);
        };
        let tail = self
            .enc
            .tail_at(rep)
            .map_err(|e| PolicyError::Dist(e).for_metric(self.metric))?;
        Ok(Some(KillPoint { b: at, tail }))
    }
    fn weight_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, &self.top)
    }
    fn mass_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(0, self.a, &self.top)
    }
    fn weight_above_b(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.b_rep(), &self.top)
    }
}

/// What the atom programme proved.
#[derive(Debug, Clone)]
pub(super) struct AtomOptimum {
    /// A proven lower bound of the objective's global minimum (shift included).
    pub value_lo: Float,
    /// The slots of the path that attains it, one per cutoff (0: below the least atom,
    /// k ≥ 1: the atom x_k).
    pub slots: Vec<usize>,
    /// The atoms (index k − 1 for slot k).
    pub atoms: Vec<Atom>,
    /// The objective at the path's atoms, enclosed (shift included).
    pub value: Interval,
    /// Host terms enclosed.
    pub evals: usize,
}

impl Problem<'_> {
    /// The exact global minimum over the atoms' slots (module docs) for a law whose
    /// [`Enclosure::atoms`] are known, `hosts` ≥ 2; `None` for any other law, or where the
    /// (m + 1)(m + 4)/2 host terms of m atoms would pass `budget`.
    pub(super) fn atom_programme(
        &self,
        hosts: usize,
        budget: usize,
    ) -> Result<Option<AtomOptimum>, PolicyError> {
        self.slot_programme(hosts, budget, false)
    }

    /// [`Problem::atom_programme`]; `snap_up` is a test's mutation: TAGS's b at its slot's
    /// upper end (the next atom) rather than its lower one, not a bound.
    fn slot_programme(
        &self,
        hosts: usize,
        budget: usize,
        snap_up: bool,
    ) -> Result<Option<AtomOptimum>, PolicyError> {
        let Some(atoms) = self.enc.atoms() else {
            return Ok(None);
        };
        let m = atoms.len();
        let terms = (m + 1).saturating_mul(m + 4) / 2;
        if hosts < 2 || m == 0 || terms > budget {
            return Ok(None);
        }
        let bits = self.bits;
        let below = below_support(bits);
        // Slot 0: counts below the least atom, b at the least cutoff allowed.
        let least = Interval::point(self.enc.lower().lo().clone());
        let rep = |k: usize| -> &Float {
            if k == 0 {
                &below
            } else {
                &atoms[k - 1].rep
            }
        };
        let at = |k: usize| -> &Interval {
            let k = if snap_up { (k + 1).min(m) } else { k };
            if k == 0 {
                &least
            } else {
                &atoms[k - 1].value
            }
        };
        let term = |a: usize, b: Option<usize>| -> Result<Interval, PolicyError> {
            let inputs = SlotInputs {
                enc: self.enc,
                metric: self.obj.metric,
                a: rep(a),
                b: b.map(|k| (rep(k), at(k))),
                top: Float::with_val(bits, Special::Infinity),
            };
            Ok(host(self.obj.kind, &self.lambda, &inputs, Parts::Term)?.term())
        };
        // inner[a][b − a]: host with a at slot a, b at slot b ≥ a; last[a]: b at the top.
        let mut inner: Vec<Vec<Interval>> = Vec::with_capacity(m + 1);
        let mut last: Vec<Interval> = Vec::with_capacity(m + 1);
        for a in 0..=m {
            inner.push(
                (a..=m)
                    .map(|b| term(a, Some(b)))
                    .collect::<Result<_, _>>()?,
            );
            last.push(term(a, None)?);
        }
        let combine = |x: &Float, y: &Float, round: Round| -> Float {
            if self.obj.max {
                x.clone().max(y)
            } else {
                Float::with_val_round(bits, x + y, round).0
            }
        };
        let inf = Float::with_val(bits, Special::Infinity);
        // v[k]: the least combination of the hosts so far with the current cutoff at slot
        // k; from[i][k]: the previous cutoff's slot on that path.
        let mut v: Vec<Float> = (0..=m).map(|k| inner[0][k].lo().clone()).collect();
        let mut from: Vec<Vec<usize>> = Vec::with_capacity(hosts - 1);
        from.push((0..=m).collect());
        for _ in 2..hosts {
            let mut next = vec![inf.clone(); m + 1];
            let mut arg = vec![0usize; m + 1];
            for k in 0..=m {
                for j in 0..=k {
                    let c = combine(&v[j], inner[j][k - j].lo(), Round::Down);
                    if c < next[k] {
                        next[k] = c;
                        arg[k] = j;
                    }
                }
            }
            v = next;
            from.push(arg);
        }
        let (mut best, mut slot) = (inf.clone(), 0usize);
        for (j, vj) in v.iter().enumerate() {
            let c = combine(vj, last[j].lo(), Round::Down);
            if c < best {
                best = c;
                slot = j;
            }
        }
        // The path back, and its value at the atoms (upper ends rounded up).
        let mut slots = vec![0usize; hosts - 1];
        for i in (0..hosts - 1).rev() {
            slots[i] = slot;
            slot = from[i][slot];
        }
        let mut hi = last[slots[hosts - 2]].hi().clone();
        let mut lo = last[slots[hosts - 2]].lo().clone();
        for i in 0..hosts - 1 {
            let a = if i == 0 { 0 } else { slots[i - 1] };
            let t = &inner[a][slots[i] - a];
            hi = combine(&hi, t.hi(), Round::Up);
            lo = combine(&lo, t.lo(), Round::Down);
        }
        let (value_lo, value) = if self.obj.max {
            (best, Interval::new(lo, hi))
        } else {
            (
                Float::with_val_round(bits, &best + self.shift.lo(), Round::Down).0,
                Interval::new(
                    Float::with_val_round(bits, &lo + self.shift.lo(), Round::Down).0,
                    Float::with_val_round(bits, &hi + self.shift.hi(), Round::Up).0,
                ),
            )
        };
        Ok(Some(AtomOptimum {
            value_lo,
            slots,
            atoms,
            value,
            evals: terms,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Objective, Problem};
    use crate::dist::{DistFactory, DistSpec};
    use crate::num::interval::Interval;
    use crate::optimize::OptPolicy;
    use crate::policy::{LoadSpec, Metric};
    use rug::Float;

    /// The atom programme against brute force: an empirical law with non-dyadic sizes
    /// (0.1, 0.3, 0.3, 0.7, 1.3, 2.9, 6.1, so that no atom is a double), 3 hosts, load
    /// 0.3 per host, SITA, TAGS and TAGS-minmax, waiting, response and slowdown. The
    /// oracle: the objective enclosed by `policy::rigorous` (checked against Arb in
    /// `tests/rigorous.rs`) at every ordered pair of a grid of cutoffs: each atom rounded
    /// up and down (so one side of the atom each), points between atoms and beyond both
    /// ends. The programme's bound must lie at or below every grid point's upper end (a
    /// lower bound of the minimum) and within 10^−25 relative of the least lower end of
    /// the grid (the grid holds the minimising path's atoms rounded up, where SITA's value
    /// is the atoms' and TAGS's at most 10^−30 above it): the exact minimum, not only a
    /// bound. Mutant: TAGS's cutoff at its slot's upper end must exceed some grid point.
    #[test]
    fn the_atom_programme_is_the_least_value_of_a_brute_force_grid() {
        let bits = 128;
        let dir = std::env::temp_dir().join(format!("ta-atoms-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("sizes.txt");
        std::fs::write(&file, "0.1\n0.3\n0.3\n0.7\n1.3\n2.9\n6.1\n").unwrap();
        let spec = DistSpec::parse(&format!("empirical:file={}", file.display())).unwrap();
        let enc = spec.enclose(bits).unwrap();
        let law = spec.build(bits).unwrap();
        let hosts = 3;
        let (lambda, _) = LoadSpec::PerHost("0.3".into())
            .resolve_enclosed(enc.as_ref(), hosts)
            .unwrap();
        let sizes = ["0.1", "0.3", "0.7", "1.3", "2.9", "6.1"];
        let mut grid: Vec<Float> = Vec::new();
        for t in sizes {
            let x = Interval::from_decimal(t, bits).unwrap();
            assert!(!x.is_point(), "{t} is a double");
            grid.push(x.lo().clone());
            grid.push(x.hi().clone());
        }
        for x in [0.05, 0.2, 0.5, 1.0, 2.0, 4.0, 9.0] {
            grid.push(Float::with_val(bits, x));
        }
        grid.sort_by(|a, b| a.total_cmp(b));
        let mut caught = false;
        for policy in [OptPolicy::Sita, OptPolicy::Tags, OptPolicy::TagsMinmax] {
            for metric in [Metric::Waiting, Metric::Response, Metric::Slowdown] {
                let obj = Objective::of(policy, metric).unwrap();
                let pb = Problem {
                    obj,
                    enc: enc.as_ref(),
                    law: law.as_ref(),
                    lambda: lambda.clone(),
                    shift: match metric {
                        Metric::Response => enc.mean().unwrap(),
                        _ => Interval::zero_at(bits),
                    },
                    bits,
                    waste: Default::default(),
                };
                let what = format!("{policy:?} {metric:?}");
                let a = pb
                    .atom_programme(hosts, 1000)
                    .unwrap()
                    .expect("atoms known");
                assert_eq!(a.atoms.len(), 6, "{what}");
                let mutant = pb.slot_programme(hosts, 1000, true).unwrap().unwrap();
                let mut least = Float::with_val(bits, rug::float::Special::Infinity);
                for (i, x) in grid.iter().enumerate() {
                    for y in &grid[i..] {
                        let cut = [Interval::point(x.clone()), Interval::point(y.clone())];
                        let v = pb.value(&cut).unwrap();
                        assert!(
                            a.value_lo <= *v.hi(),
                            "{what}: bound {} above the objective {v:?} at ({x}, {y})",
                            a.value_lo
                        );
                        if mutant.value_lo > *v.hi() {
                            caught = true;
                        }
                        if *v.lo() < least {
                            least = v.lo().clone();
                        }
                    }
                }
                let rel = (Float::with_val(bits, &least - &a.value_lo) / &least).to_f64();
                assert!(
                    rel.abs() < 1e-25,
                    "{what}: bound {} against the grid's least {least}",
                    a.value_lo
                );
                // The path's enclosure (the objective at its atoms) attains the bound.
                let gap = (Float::with_val(bits, a.value.hi() - &a.value_lo) / &least).to_f64();
                assert!((0.0..1e-30).contains(&gap), "{what}: path {:?}", a.value);
            }
        }
        assert!(caught, "the snapped-up mutant is not caught");
        std::fs::remove_dir_all(&dir).ok();
    }
}
