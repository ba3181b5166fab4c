//! The face where the top host is idle: where the certified start leaves host h without
//! work (its top cutoff at the top of a bounded support), the (h − 1)-host minimum, proven
//! first by the same search, bounds every box whose top cutoff lies at or above that top
//! ([`face_bound`], [`idle_top`]).

use super::{proven_from, show_digits, trace, Problem};
use crate::dist::{Enclosure, JobSize};
use crate::num::interval::Interval;
use crate::policy::host_term::ChainKind;
use crate::policy::{LoadSpec, PolicyError};
use rug::Float;

/// The face where the top host is idle ([`face_bound`]): the proven minimum over one host
/// fewer, which bounds every box whose top cutoff lies at or above the top of the support.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceBound {
    /// The hosts of the smaller problem (h − 1).
    pub hosts: usize,
    /// Its proven lower bound of the minimum (a point's enclosure at h − 1 = 1 host).
    pub value_lo: Float,
    /// Boxes its own search evaluated (counted in [`ProvenOptimum::boxes`] too).
    pub boxes: usize,
    /// Whether its gap closed.
    pub closed: bool,
}

/// Whether the top host is idle at every cutoff vector of the box `cut`: its top cutoff's
/// interval lies at or above `top`, the upper end of the support's enclosure (a box whose
/// interval only reaches it holds vectors that give the top host work).
pub(super) fn idle_top(cut: &[Interval], top: &Float) -> bool {
    cut.last().is_some_and(|c| c.lo() >= top)
}

/// The face bound with the best point the smaller search found (its printed cutoffs and the
/// top one at the start's, the top host idle).
pub(super) struct Face {
    pub(super) bound: FaceBound,
    pub(super) best: Option<Vec<String>>,
}

/// Where the start `start` leaves the top host idle (its top cutoff at or above the top of
/// the support: the certified optimum found one host fewer better, TAGS at BP(1, 10^10, 1),
/// total load 0.5, 8 hosts), the proven minimum over h − 1 hosts at the same arrival rate.
///
/// Every cutoff vector whose top cutoff lies at or above the top of the support sends no job
/// to host h: its term is 0 (no mass above the cutoff, nothing killed there for TAGS), and
/// host h − 1's term over (s_{h−2}, s_{h−1}] is the last host's over (s_{h−2}, top]. So the
/// objective there is the (h − 1)-host objective at s_1 … s_{h−2}, and any proven lower
/// bound of that problem's minimum bounds every box whose top cutoff interval lies at or
/// above the top (the monotonicity test moves a box there when the objective is proven to
/// fall in its top cutoff). Without it those boxes are bounded by the h-host forms, and their
/// (h − 1)-dimensional face is refined box by box among the h-host boxes: 3 000 000 boxes
/// proved 2 digits of that 8-host row, where the 7-host row alone closes in 673 911 (stop
/// 62). The smaller problem is proven by the same search from the start's other cutoffs
/// (recursively, where its own top host is idle too), on at most `budget` boxes; at one host
/// the objective has no cutoff and is enclosed directly.
///
/// `None` for the largest host term (TAGS-minmax), one host, a start whose top host is
/// busy, or an unbounded law: no box's top cutoff reaches +∞ at its lower end (a split of
/// [a, +∞] keeps +∞ in one half), so the face would bound nothing and the smaller search
/// would only take its boxes from the budget (TAGS's waiting at Exp(1), total load 0.5,
/// whose optimum leaves all but two hosts idle: 8 hosts 54 103 → 167 951 boxes, the same
/// search after the smaller ones, 2026-12-07).
pub(super) fn face_bound(
    pb: &Problem,
    raw_enc: &dyn Enclosure,
    law: &dyn JobSize,
    hosts: usize,
    start: &[Float],
    digits: (u32, u32),
    budget: usize,
) -> Result<Option<Face>, PolicyError> {
    let sum = matches!(pb.obj.kind, ChainKind::Sita | ChainKind::Tags) && !pb.obj.max;
    let Some(last) = start.last() else {
        return Ok(None);
    };
    let top = raw_enc.upper();
    if !sum || hosts < 2 || start.len() + 1 != hosts || !top.hi().is_finite() || *last < *top.lo() {
        return Ok(None);
    }
    let rest = &start[..hosts - 2];
    if hosts == 2 {
        // One host: no cutoff, the value itself.
        let v = pb.value(&[])?;
        return Ok(Some(Face {
            bound: FaceBound {
                hosts: 1,
                value_lo: pb.floored(v.lo().clone()),
                boxes: 0,
                closed: true,
            },
            best: None,
        }));
    }
    // The same arrival rate (a load per host would give another at h − 1 hosts).
    let sub = proven_from(
        pb.obj,
        raw_enc,
        law,
        &LoadSpec::Lambda(String::new()),
        Some(&pb.lambda),
        hosts - 1,
        rest,
        digits,
        budget,
        None,
    )?;
    if trace() {
        eprintln!(
            "proven: face at {} hosts: value_lo {} in {} boxes (closed {})",
            hosts - 1,
            show_digits(&sub.value_lo, 12),
            sub.boxes,
            sub.closed
        );
    }
    let best = Some(sub.cutoffs.clone());
    Ok(Some(Face {
        bound: FaceBound {
            hosts: hosts - 1,
            value_lo: sub.value_lo,
            boxes: sub.boxes,
            closed: sub.closed,
        },
        best,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::Objective;
    use super::*;
    use crate::dist::{DistFactory, DistSpec};
    use crate::optimize::OptPolicy;
    use crate::policy::Metric;

    /// The face bound on a law whose 4-host optimum keeps every host busy (TAGS waiting,
    /// BP(1, 10^10, 1), total load 0.5: the certified optimum's cutoffs 2.654e2, 7.045e4,
    /// 1.872e7, value 29.83, against 137.98 at 3 hosts; `taskassign optimize`, 2026-12-07),
    /// so the 3-host minimum lies well above the 4-host one. From a start with the top host
    /// idle, [`face_bound`] proves the 3-host minimum; every vector of a box whose top
    /// cutoff lies at the top (the objective enclosed at grid points, the oracle of
    /// `box_bounds_lie_below_every_point_of_the_box`) lies above it. The box whose top
    /// interval only reaches the top ([10^7, p]) holds the 4-host optimum, whose enclosed
    /// value lies far below it: a face bound taken wherever the top interval reaches the top
    /// would be wrong there, and [`idle_top`] refuses that box.
    #[test]
    fn the_face_bound_holds_on_the_face_and_only_there() {
        let bits = 128;
        let s = DistSpec::parse("bp:k=1,p=1e10,alpha=1").unwrap();
        let enc = s.enclose(bits).unwrap();
        let law = s.build(bits).unwrap();
        let obj = Objective::of(OptPolicy::Tags, Metric::Waiting).unwrap();
        let (lambda, _) = LoadSpec::Total("0.5".into())
            .resolve_enclosed(enc.as_ref(), 4)
            .unwrap();
        let pb = Problem::new(obj, enc.as_ref(), law.as_ref(), lambda).unwrap();
        let f = |x: &str| crate::num::parse_decimal(x, bits).unwrap();
        let top = enc.upper().hi().clone();
        let start = [f("1.705e3"), f("2.909e6"), top.clone()];
        let face = face_bound(&pb, enc.as_ref(), law.as_ref(), 4, &start, (20, 20), 20_000)
            .unwrap()
            .expect("the start's top host is idle");
        assert_eq!(face.bound.hosts, 3);
        assert!(
            face.bound.closed,
            "the 3-host minimum closes in 20 000 boxes"
        );
        let lo = face.bound.value_lo.to_f64();
        assert!((lo - 137.977905033).abs() < 1e-6, "3-host minimum {lo}");
        // Points of the face: the objective there is the 3-host one, above its minimum.
        let point = |c: [&str; 3]| -> Interval {
            let cut: Vec<Interval> = c
                .iter()
                .map(|x| Interval::point(if *x == "p" { top.clone() } else { f(x) }))
                .collect();
            pb.value(&cut).unwrap()
        };
        for c in [
            ["1.705e3", "2.909e6", "p"],
            ["1e3", "1e6", "p"],
            ["3e3", "5e6", "p"],
            ["10", "1e4", "p"],
        ] {
            let v = point(c);
            assert!(
                *v.hi() >= face.bound.value_lo,
                "{c:?}: {v:?} below the face bound"
            );
        }
        let on_face = vec![
            Interval::new(f("1e3"), f("3e3")),
            Interval::new(f("1e6"), f("5e6")),
            Interval::point(top.clone()),
        ];
        assert!(idle_top(&on_face, &top));
        // The box that only reaches the top: the 4-host optimum inside it lies below the
        // face bound, so that bound must not be taken there.
        let reaching = vec![
            Interval::new(f("100"), f("1e3")),
            Interval::new(f("1e4"), f("1e5")),
            Interval::new(f("1e7"), top.clone()),
        ];
        assert!(!idle_top(&reaching, &top));
        let opt = point(["2.65414696859e2", "7.04452135983e4", "1.87150681464e7"]);
        assert!(
            *opt.hi() < face.bound.value_lo,
            "the 4-host optimum {opt:?} is not below the face bound: the case tests nothing"
        );
        // A busy top host: no face bound.
        let busy = [f("2.654e2"), f("7.045e4"), f("1.87e7")];
        assert!(
            face_bound(&pb, enc.as_ref(), law.as_ref(), 4, &busy, (20, 20), 1000)
                .unwrap()
                .is_none()
        );
    }
}
