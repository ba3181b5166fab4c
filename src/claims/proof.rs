//! Proofs of `check --rigorous`: the enclosure a number of the quantity language carries
//! ([`Proof`]), its arithmetic with outward rounding, and the decision of a relation by
//! enclosures ([`decide`]).
//!
//! Under `--rigorous` every number is either **enclosed** — an interval computed with
//! outward rounding ([`crate::num::interval`]) that contains the exact value for the
//! decimals written — or **unproven**, with the reason (a simulation, a truncated Markov
//! chain, a custom density, a quantity that computes no enclosure). Arithmetic of the
//! expression language maps enclosures to enclosures (the inclusion property: the
//! result contains the exact result for every point of the operands); anything computed
//! from an unproven number is unproven for the first reason met. A relation is *proven*
//! at a point when it holds for every point of the enclosures (quantity, bound and
//! tolerance), and *refuted* when it fails for every point.
//!
//! Without `--rigorous` every number is [`Proof::Off`] and nothing here is computed.

use super::expr::Op;
use super::verdict::Relation;
use crate::num::interval::Interval;
use rug::Float;

/// The enclosure of a number under `check --rigorous`.
#[derive(Debug, Clone, Default)]
pub enum Proof {
    /// Not asked (the default, fast `check`).
    #[default]
    Off,
    /// An interval, computed with outward rounding, that contains the exact value.
    Enclosed(Box<Interval>),
    /// No enclosure, and why.
    Unproven(String),
}

impl Proof {
    /// An enclosure.
    pub fn enclosed(i: Interval) -> Proof {
        Proof::Enclosed(Box::new(i))
    }

    /// An unproven number and why.
    pub fn unproven(why: impl Into<String>) -> Proof {
        Proof::Unproven(why.into())
    }

    /// The enclosure, if there is one.
    pub fn interval(&self) -> Option<&Interval> {
        match self {
            Proof::Enclosed(i) => Some(i),
            _ => None,
        }
    }

    /// Whether rigour was not asked.
    pub fn is_off(&self) -> bool {
        matches!(self, Proof::Off)
    }

    /// Why there is no enclosure (`None` when there is one, or rigour was not asked).
    pub fn why(&self) -> Option<&str> {
        match self {
            Proof::Unproven(w) => Some(w),
            _ => None,
        }
    }

    /// `self` unless it is unproven, in which case `other`'s reason comes first when
    /// `other` is unproven too (the first reason met wins).
    fn first_unproven<'a>(&'a self, other: &'a Proof) -> Option<&'a str> {
        self.why().or_else(|| other.why())
    }

    /// x op y on enclosures (outward rounding). A division by an enclosure containing 0
    /// and a power of a base not proven positive are unproven.
    pub fn bin(op: Op, x: &Proof, y: &Proof) -> Proof {
        if let Some(w) = x.first_unproven(y) {
            return Proof::unproven(w);
        }
        let (Some(a), Some(b)) = (x.interval(), y.interval()) else {
            return Proof::Off;
        };
        match op {
            Op::Add => Proof::enclosed(a.add(b)),
            Op::Sub => Proof::enclosed(a.sub(b)),
            Op::Mul => Proof::enclosed(a.mul(b)),
            Op::Div if b.contains_zero() => Proof::unproven("a divisor's enclosure contains 0"),
            Op::Div => Proof::enclosed(a.div(b)),
            Op::Pow if !a.is_positive() => {
                Proof::unproven("x^y with x not proven positive is not enclosed")
            }
            Op::Pow => Proof::enclosed(a.pow(b)),
        }
    }

    /// −x.
    pub fn neg(&self) -> Proof {
        match self {
            Proof::Enclosed(a) => Proof::enclosed(a.neg()),
            other => other.clone(),
        }
    }

    /// A function of the language (`ln`, `log10`, `exp`, `sqrt`, `abs`) on an enclosure.
    pub fn function(name: &str, x: &Proof) -> Proof {
        let a = match x {
            Proof::Enclosed(a) => a,
            other => return other.clone(),
        };
        let bits = a.prec();
        match name {
            "ln" | "log10" if !a.is_positive() => {
                Proof::unproven(format!("{name}() of an enclosure not proven positive"))
            }
            "ln" => Proof::enclosed(a.ln()),
            "log10" => Proof::enclosed(a.ln().div(&Interval::int(bits, 10).ln())),
            "exp" => Proof::enclosed(a.exp()),
            "sqrt" if a.lo() < &0 => {
                Proof::unproven("sqrt() of an enclosure not proven non-negative")
            }
            "sqrt" => Proof::enclosed(a.sqrt()),
            _ => Proof::enclosed(abs(a)),
        }
    }

    /// min or max of several enclosures.
    pub fn extreme(max: bool, xs: &[&Proof]) -> Proof {
        let mut acc: Option<Interval> = None;
        for x in xs {
            match x {
                Proof::Enclosed(a) => {
                    acc = Some(match acc {
                        None => (**a).clone(),
                        Some(c) if max => c.max(a),
                        Some(c) => c.min(a),
                    })
                }
                other => return (*other).clone(),
            }
        }
        acc.map_or(Proof::Off, Proof::enclosed)
    }
}

/// |x| over an interval.
pub fn abs(a: &Interval) -> Interval {
    if a.lo() >= &0 {
        a.clone()
    } else if a.hi() <= &0 {
        a.neg()
    } else {
        let m = a.neg().hi().clone().max(a.hi());
        Interval::new(Float::with_val(a.prec(), 0), m)
    }
}

/// What the enclosures say of a relation at one comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// It holds for every point of the enclosures.
    Holds,
    /// It fails for every point of the enclosures.
    Fails,
    /// The enclosures do not decide it, and why.
    Undecided(String),
}

/// The verdict of a margin's enclosure `m` (positive when the relation holds).
pub fn by_margin(m: &Interval, strict: bool) -> Decided {
    let holds = if strict { m.lo() > &0 } else { m.lo() >= &0 };
    let fails = if strict { m.hi() <= &0 } else { m.hi() < &0 };
    if holds {
        Decided::Holds
    } else if fails {
        Decided::Fails
    } else {
        Decided::Undecided("the margin's enclosure contains 0".into())
    }
}

/// The relations with a bound (`<=`, `<`, `>=`, `>`, `==`, `sign_as`) decided by the
/// enclosures of the quantity `q`, the bound `b` and the tolerance `tol` (absolute plus
/// relative, enclosed). `consistent` is a statement about a simulation's confidence
/// interval and is never proven.
pub fn decide(rel: Relation, q: &Interval, b: &Interval, tol: &Interval) -> Decided {
    match rel {
        Relation::Le | Relation::Lt => by_margin(&b.add(tol).sub(q), rel == Relation::Lt),
        Relation::Ge | Relation::Gt => by_margin(&q.sub(b).add(tol), rel == Relation::Gt),
        Relation::Eq => by_margin(&tol.sub(&abs(&q.sub(b))), false),
        Relation::SignAs => {
            let neg_tol = tol.neg();
            if b.lo() > tol.hi() {
                by_margin(&q.sub(tol), true)
            } else if b.hi() < neg_tol.lo() {
                by_margin(&q.neg().sub(tol), true)
            } else if b.lo() >= neg_tol.lo() && b.hi() <= tol.lo() {
                by_margin(&tol.sub(&abs(q)), false)
            } else {
                Decided::Undecided("the sign of the bound's enclosure is not decided".into())
            }
        }
        _ => Decided::Undecided(format!(
            "`{}` compares a simulation's confidence interval: never proven",
            rel.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(a: &str, b: &str) -> Interval {
        let x = Interval::from_decimal(a, 64).unwrap();
        let y = Interval::from_decimal(b, 64).unwrap();
        Interval::new(x.lo().clone(), y.hi().clone())
    }

    /// Hand-made enclosures against hand-decided relations: [1, 2] <= 3 holds, <= 1.5
    /// is undecided, <= 0.5 fails; == 1.5 ± 0.5 holds, ± 0.4 is undecided.
    #[test]
    fn relations_by_enclosure() {
        let q = iv("1", "2");
        let zero = Interval::zero_at(64);
        let p = |s: &str| Interval::from_decimal(s, 64).unwrap();
        assert_eq!(decide(Relation::Le, &q, &p("3"), &zero), Decided::Holds);
        assert!(matches!(
            decide(Relation::Le, &q, &p("1.5"), &zero),
            Decided::Undecided(_)
        ));
        assert_eq!(decide(Relation::Le, &q, &p("0.5"), &zero), Decided::Fails);
        // [1, 2] < 2: q = 2 is in the enclosure (it fails) and q = 1 too (it holds).
        assert!(matches!(
            decide(Relation::Lt, &q, &p("2"), &zero),
            Decided::Undecided(_)
        ));
        // [1, 2] < 1 fails at every point of the enclosure (q = 1 included: strict).
        assert_eq!(decide(Relation::Lt, &q, &p("1"), &zero), Decided::Fails);
        assert_eq!(decide(Relation::Le, &q, &p("2"), &zero), Decided::Holds);
        assert_eq!(decide(Relation::Ge, &q, &p("1"), &zero), Decided::Holds);
        assert_eq!(
            decide(Relation::Gt, &q, &p("1"), &zero),
            Decided::Undecided("the margin's enclosure contains 0".into())
        );
        assert_eq!(
            decide(Relation::Eq, &q, &p("1.5"), &p("0.5")),
            Decided::Holds
        );
        assert!(matches!(
            decide(Relation::Eq, &q, &p("1.5"), &p("0.4")),
            Decided::Undecided(_)
        ));
        assert_eq!(decide(Relation::SignAs, &q, &p("7"), &zero), Decided::Holds);
        assert_eq!(
            decide(Relation::SignAs, &q, &p("-7"), &zero),
            Decided::Fails
        );
        assert!(matches!(
            decide(Relation::Consistent, &q, &p("1.5"), &zero),
            Decided::Undecided(_)
        ));
    }

    /// 1/10 + 2/10 encloses 3/10 (no binary float equals any of them), and an unproven
    /// operand makes the result unproven with its reason.
    #[test]
    fn arithmetic_encloses_and_propagates_reasons() {
        let t = |s: &str| Proof::enclosed(Interval::from_decimal(s, 64).unwrap());
        let s = Proof::bin(Op::Add, &t("0.1"), &t("0.2"));
        let exact = Float::with_val(256, Float::parse("0.3").unwrap());
        assert!(s.interval().unwrap().contains(&exact));
        let u = Proof::bin(Op::Mul, &Proof::unproven("simulated"), &t("2"));
        assert_eq!(u.why(), Some("simulated"));
        let d = Proof::bin(Op::Div, &t("1"), &Proof::enclosed(iv("-1", "1")));
        assert!(d.why().is_some());
        assert!(Proof::bin(Op::Add, &Proof::Off, &t("1")).is_off());
        let a = Proof::function("abs", &Proof::enclosed(iv("-3", "2")));
        let a = a.interval().unwrap();
        assert!(a.lo() == &0 && a.hi() == &3);
    }
}
