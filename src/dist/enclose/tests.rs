//! The enclosures against the certified MPFR implementation of each family (`dist/`) at
//! three times the precision: every enclosure must contain that value (whose own error,
//! about 2^−600 relative, is far inside the enclosure's width), be no wider than
//! [`WIDTH_BITS_LOST`] bits below the working precision, and narrow as the precision grows.
//! The independent oracle (python-flint's Arb balls) is `tests/rigorous.rs`.

use super::*;
use crate::dist::{DistFactory, DistSpec};

/// Bits an enclosure may lose to rounding and to the conditioning of the formulas (the
/// widest case below: Weibull moments through the incomplete gamma's differences).
const WIDTH_BITS_LOST: u32 = 40;

const SPECS: &[&str] = &[
    "bp:k=1,p=1e10,alpha=1",
    "bp:k=0.1,p=1e1000,alpha=0.5",
    "bp:k=1,p=100,alpha=2",
    "bp:k=1,p=1e6,alpha=1.3",
    "pareto:k=1,alpha=2.5",
    "pareto:k=0.3,alpha=1.1",
    "exp:rate=0.7",
    "uniform:a=0.1,b=3",
    "uniform:a=2,b=3",
    "det:x=1.7",
    "hyperexp:p=0.1,rate1=0.1,rate2=10",
    "hyperexp:mean=1,scv=10",
    "weibull:shape=0.5,scale=1",
    "weibull:shape=2.3,scale=0.4",
    "weibull:shape=0.7,mean=1",
    "lognormal:mu=0,sigma=2",
    "lognormal:mean=1,scv=4",
    "erlang:k=4,rate=4",
    "erlang:k=1,rate=2",
];

fn close_to(enc: &Interval, x: &Float, bits: u32, what: &str) {
    assert!(enc.contains(x), "{what}: {enc:?} does not contain {x}");
    if !x.is_zero() && x.is_finite() {
        let tol = f64::from(bits - WIDTH_BITS_LOST).exp2().recip();
        assert!(
            enc.rel_width() <= tol,
            "{what}: width {} > {tol}",
            enc.rel_width()
        );
    }
}

/// Cutoffs inside the support of a built law: its quartiles and a far point.
fn points(d: &dyn crate::dist::JobSize) -> Vec<Float> {
    let b = d.prec();
    let mut v: Vec<Float> = [0.1, 0.5, 0.9, 0.999]
        .iter()
        .filter_map(|&u| d.quantile(&Float::with_val(b, u)).ok())
        .collect();
    v.sort_by(|a, c| a.partial_cmp(c).unwrap_or(std::cmp::Ordering::Equal));
    v.dedup();
    v
}

#[test]
fn moments_tails_and_sup_contain_the_certified_values() {
    let bits = 200;
    let hp = 3 * bits;
    for spec in SPECS {
        let s = DistSpec::parse(spec).unwrap();
        let enc = s.enclose(bits).unwrap();
        let d = s.build(hp).unwrap();
        // The ends at the working precision (an end at a higher one would raise the
        // enclosure's precision to it).
        let below = below_support(bits);
        let inf = Float::with_val(bits, rug::float::Special::Infinity);
        let mut ends = vec![below.clone()];
        ends.extend(
            points(d.as_ref())
                .into_iter()
                .map(|x| Float::with_val(bits, x)),
        );
        ends.push(inf.clone());
        for x in &ends[1..ends.len() - 1] {
            close_to(
                &enc.tail_at(x).unwrap(),
                &d.tail(x),
                bits,
                &format!("{spec} tail({x})"),
            );
        }
        for j in [-1, 0, 1, 2] {
            for w in ends
                .windows(2)
                .chain([[ends[0].clone(), inf.clone()]].iter().map(|a| &a[..]))
            {
                let (a, b) = (&w[0], &w[1]);
                let want = d.partial_moment(j, a, b);
                let got = enc.moment_at(j, a, b);
                match (want, got) {
                    (Ok(m), Ok(e)) => close_to(&e, &m, bits, &format!("{spec} M_{j}({a}, {b})")),
                    (Err(_), Err(_)) => {}
                    (w, g) => panic!("{spec} M_{j}({a}, {b}): {w:?} vs {g:?}"),
                }
            }
        }
        let (_, sup) = d.sup_x_tail().unwrap();
        let e = enc.sup_x_tail().unwrap();
        // The MPFR default for laws without a closed form (the hyperexponential) searches a
        // grid and golden sections: accurate to its working precision only at its maximum.
        assert!(
            e.contains(&sup) || (Float::with_val(hp, &sup - e.hi()).abs() < 1e-50),
            "{spec} sup: {e:?} vs {sup}"
        );
        assert!(e.rel_width() < 1e-40, "{spec} sup width {}", e.rel_width());
    }
}

#[test]
fn enclosures_narrow_as_the_precision_grows() {
    for spec in [
        "bp:k=0.1,p=1e1000,alpha=0.5",
        "weibull:shape=0.7,mean=1",
        "lognormal:mean=1,scv=4",
    ] {
        let s = DistSpec::parse(spec).unwrap();
        let (e1, e2) = (s.enclose(128).unwrap(), s.enclose(512).unwrap());
        let a = Float::with_val(128, 1.5);
        let b = Float::with_val(128, 7.25);
        let (m1, m2) = (
            e1.moment_at(1, &a, &b).unwrap(),
            e2.moment_at(1, &a, &b).unwrap(),
        );
        assert!(
            m2.rel_width() < m1.rel_width() * 1e-100,
            "{spec}: {} vs {}",
            m2.rel_width(),
            m1.rel_width()
        );
        assert!(m1.lo() <= m2.lo() && m2.hi() <= m1.hi(), "{spec}: nested");
    }
}

#[test]
fn interval_arguments_are_enclosed_by_monotonicity() {
    let bits = 160;
    let s = DistSpec::parse("bp:k=1,p=1e10,alpha=1").unwrap();
    let e = s.enclose(bits).unwrap();
    let a = Interval::from_decimal("2.1", bits).unwrap();
    let b = Interval::from_decimal("33.3", bits).unwrap();
    let m = e.partial_moment(1, &a, &b).unwrap();
    let d = s.build(3 * bits).unwrap();
    for (x, y) in [
        (a.lo(), b.lo()),
        (a.lo(), b.hi()),
        (a.hi(), b.lo()),
        (a.hi(), b.hi()),
    ] {
        assert!(m.contains(&d.partial_moment(1, x, y).unwrap()));
    }
    let t = e.tail(&a).unwrap();
    assert!(t.contains(&d.tail(a.lo())) && t.contains(&d.tail(a.hi())));
}

#[test]
fn a_custom_density_has_no_enclosure() {
    let density: crate::dist::custom::DensityFn =
        std::sync::Arc::new(|x: &Float| Float::with_val(x.prec(), (-x.clone()).exp()));
    let f = crate::dist::custom::CustomFactory::new("e^-x", "0", "inf", density).unwrap();
    match f.enclose(128) {
        Err(DistError::NoEnclosure { why, .. }) => assert!(why.contains("quadrature")),
        other => panic!("{other:?}"),
    }
}

/// The mutation: with the rounding directions swapped inside the interval arithmetic
/// (`num::interval`'s test switch), the enclosure of a moment with decimal parameters no
/// longer contains the MPFR value at 3× the precision, which the same computation with the
/// right directions does. (A swapped computation may still contain a value by chance,
/// where its crossed ends are put back in order — the tail at the same point does — so the
/// check is on one that it does not.)
#[test]
fn a_wrong_rounding_direction_is_caught() {
    let bits = 128;
    let hp = 3 * bits;
    let s = DistSpec::parse("bp:k=0.1,p=1e10,alpha=0.7").unwrap();
    let d = s.build(hp).unwrap();
    let (a, b) = (Float::with_val(bits, 0.3), Float::with_val(bits, 7.5));
    let want = d.partial_moment(1, &a, &b).unwrap();
    let right = s.enclose(bits).unwrap();
    assert!(right.moment_at(1, &a, &b).unwrap().contains(&want));
    let m = crate::num::interval::with_wrong_directions(|| {
        s.enclose(bits).unwrap().moment_at(1, &a, &b).unwrap()
    });
    assert!(!m.contains(&want), "moment: {m:?} still contains {want}");
}

/// The Weibull moments over the whole support go through the complete gamma
/// (E[X^j] = λ^j Γ(1 + j/k)): against closed forms — shape 1/2, scale 1: E[X] = Γ(3) = 2,
/// E[X²] = Γ(5) = 24; shape 2, scale 3: E[X] = 3Γ(3/2) = 3√π/2, E[X²] = 9Γ(2) = 9 — with
/// √π from MPFR at 3× the precision; and against the incomplete gamma's enclosure of the
/// same integral over (0, ∞) (the path they took before), which they must meet, for decimal
/// shapes too. Tolerance: [`WIDTH_BITS_LOST`] bits below the working precision.
#[test]
fn weibull_whole_support_moments_are_complete_gammas() {
    let bits = 200;
    let hp = 3 * bits;
    let below = below_support(bits);
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    let sqrt_pi = Float::with_val(hp, rug::float::Constant::Pi).sqrt();
    let closed: [(&str, i32, Float); 4] = [
        ("weibull:shape=0.5,scale=1", 1, Float::with_val(hp, 2)),
        ("weibull:shape=0.5,scale=1", 2, Float::with_val(hp, 24)),
        (
            "weibull:shape=2,scale=3",
            1,
            Float::with_val(hp, &sqrt_pi * 1.5),
        ),
        ("weibull:shape=2,scale=3", 2, Float::with_val(hp, 9)),
    ];
    for (spec, j, want) in closed {
        let enc = DistSpec::parse(spec).unwrap().enclose(bits).unwrap();
        let m = enc.moment_at(j, &below, &inf).unwrap();
        close_to(&m, &want, bits, &format!("{spec} E[X^{j}]"));
    }
    for (k, lam) in [("0.5", "1"), ("2.3", "0.4"), ("0.7", "1.3")] {
        let spec = format!("weibull:shape={k},scale={lam}");
        let (ki, li) = (
            Interval::from_decimal(k, bits).unwrap(),
            Interval::from_decimal(lam, bits).unwrap(),
        );
        let enc = WeibullEnclosure::new(ki.clone(), li.clone()).unwrap();
        let d = DistSpec::parse(&spec).unwrap().build(hp).unwrap();
        for j in [1, 2] {
            let complete = enc.moment_at(j, &below, &inf).unwrap();
            let want = d.partial_moment(j, &below, &inf).unwrap();
            close_to(&complete, &want, bits, &format!("{spec} E[X^{j}]"));
            let s = Interval::int(bits, i64::from(j))
                .div(&ki)
                .add(&Interval::int(bits, 1));
            let incomplete = crate::num::gamma::gamma_interval_enclosure(
                &s,
                &Interval::zero_at(bits),
                &Interval::infinite_at(bits),
            )
            .unwrap()
            .mul(&li.powi(j));
            assert!(
                incomplete.contains(&want),
                "{spec} E[X^{j}] incomplete: {incomplete:?} vs {want}"
            );
            assert!(
                complete.hi() >= incomplete.lo() && incomplete.hi() >= complete.lo(),
                "{spec} E[X^{j}]: {complete:?} and {incomplete:?} are disjoint"
            );
        }
    }
}

/// The density slope f' against a central difference of the density enclosure (the second
/// way): at each quartile x of every law with a density enclosure, with h = 10^−6 x,
/// D = (f(x + h) − f(x − h))/(2h) equals f'(ξ) for some ξ in (x − h, x + h) (mean value
/// theorem), so the slope enclosed over [x − h, x + h] must meet D's enclosure; at the point
/// x the slope must agree with D to 10^−8 relative (D's error is h² f'''/6, about 10^−12
/// relative for these laws, plus D's own width). An interval meeting an end of the support
/// where the density jumps gets `None`; a law without a density enclosure gets `None`.
#[test]
fn density_slopes_match_a_central_difference_of_the_density() {
    let bits = 200;
    let mut checked = 0;
    for spec in SPECS {
        let d = DistSpec::parse(spec).unwrap();
        let enc = d.enclose(bits).unwrap();
        let law = d.build(bits).unwrap();
        for x in points(law.as_ref()) {
            let xi = Interval::point(x.clone());
            let Some(f) = enc.density(&xi) else {
                assert!(
                    enc.density_slope(&xi).is_none(),
                    "{spec}: a slope without f"
                );
                continue;
            };
            if f.hi().is_zero() {
                continue;
            }
            let h = Float::with_val(bits, &x * 1e-6f64);
            let xp = Interval::point(Float::with_val(bits, &x + &h));
            let xm = Interval::point(Float::with_val(bits, &x - &h));
            let diff = enc
                .density(&xp)
                .unwrap()
                .sub(&enc.density(&xm).unwrap())
                .div(&Interval::point(h.clone()).mul_2exp(1));
            let span = Interval::new(xm.lo().clone(), xp.hi().clone());
            let Some(over) = enc.density_slope(&span) else {
                // Uniform's support ends and det have no slope; every other law here must.
                assert!(spec.starts_with("det"), "{spec}: no slope at {x}");
                continue;
            };
            assert!(
                over.lo() <= diff.hi() && diff.lo() <= over.hi(),
                "{spec} at {x}: slope {over:?} misses the difference {diff:?}"
            );
            let at = enc.density_slope(&xi).unwrap();
            let scale =
                Float::with_val(bits, diff.hi().abs_ref()).max(&Float::with_val(bits, f.hi() / &x));
            let gap = Float::with_val(bits, at.hi() - diff.lo())
                .abs()
                .max(&Float::with_val(bits, diff.hi() - at.lo()).abs());
            assert!(
                gap <= scale * 1e-8f64,
                "{spec} at {x}: slope {at:?} vs difference {diff:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} points checked");
    // Across a jump of the density: none.
    let iv = |lo: f64, hi: f64| Interval::new(Float::with_val(bits, lo), Float::with_val(bits, hi));
    for (spec, lo, hi) in [
        ("exp:rate=0.7", -1.0, 1.0),
        ("bp:k=1,p=1e10,alpha=1", 0.5, 2.0),
        ("bp:k=1,p=100,alpha=2", 50.0, 200.0),
        ("uniform:a=0.1,b=3", 2.0, 4.0),
    ] {
        let enc = DistSpec::parse(spec).unwrap().enclose(bits).unwrap();
        assert!(
            enc.density_slope(&iv(lo, hi)).is_none(),
            "{spec}: slope across a jump"
        );
    }
    // Over an interval that meets 0 or reaches +∞ the natural extensions of the
    // Weibull, Erlang and lognormal densities are not used: no slope there, and no density
    // where it is unbounded (Weibull k < 1) or jumps (Erlang k = 1) at 0; where f(0) = 0
    // and the law has one mode, the density over [0, x₁] is [0, f(min(x₁, m))], which must
    // hold the density at every point of a grid of (0, x₁] (each enclosed as a point).
    for spec in ["weibull:shape=0.5,scale=1", "erlang:k=1,rate=2"] {
        let enc = DistSpec::parse(spec).unwrap().enclose(bits).unwrap();
        assert!(enc.density(&iv(0.0, 1.0)).is_none(), "{spec}");
    }
    for (spec, x1) in [
        ("lognormal:mu=0,sigma=2", 0.01),
        ("lognormal:mu=0,sigma=2", 1.0),
        ("lognormal:mu=0,sigma=0.5", 3.0),
        ("weibull:shape=2.3,scale=0.4", 0.1),
        ("weibull:shape=2.3,scale=0.4", 2.0),
        ("erlang:k=4,rate=4", 0.3),
        ("erlang:k=4,rate=4", 5.0),
    ] {
        let enc = DistSpec::parse(spec).unwrap().enclose(bits).unwrap();
        let over = enc.density(&iv(0.0, x1)).expect("a density from 0");
        assert!(over.lo().is_zero(), "{spec}: {over:?}");
        let mut peak = Float::with_val(bits, 0);
        for i in 1..=400 {
            let x = Float::with_val(bits, x1 * f64::from(i) / 400.0);
            let at = enc.density(&Interval::point(x.clone())).unwrap();
            assert!(at.hi() <= over.hi(), "{spec} at {x}: {at:?} above {over:?}");
            peak = peak.max(at.lo());
        }
        // Not much wider than the grid's largest value (a bound, not a blanket).
        assert!(
            *over.hi() <= peak * 1.01f64,
            "{spec} over [0, {x1}]: {over:?}"
        );
    }
    for spec in [
        "lognormal:mu=0,sigma=2",
        "weibull:shape=0.5,scale=1",
        "weibull:shape=2.3,scale=0.4",
        "erlang:k=4,rate=4",
    ] {
        let enc = DistSpec::parse(spec).unwrap().enclose(bits).unwrap();
        assert!(enc.density_slope(&iv(0.0, 1.0)).is_none(), "{spec}");
        let far = Interval::new(
            Float::with_val(bits, 1),
            Float::with_val(bits, rug::float::Special::Infinity),
        );
        assert!(enc.density(&far).is_none(), "{spec}");
        assert!(enc.density(&iv(1.0, 1.1)).is_some(), "{spec}");
        assert!(enc.density_slope(&iv(1.0, 1.1)).is_some(), "{spec}");
    }
}

/// The density against the tail, the second way: by the mean value theorem
/// (F̄(x − h) − F̄(x + h))/(2h) = f(ξ) for some ξ in (x − h, x + h), so the density
/// enclosed over [x − h, x + h] must meet that quotient's enclosure (each F̄ an enclosure of
/// its own, `tail_at`), at every quartile x of every law with a density enclosure and
/// h = 10^−6 x; at the point x it must agree with the quotient to 10^−8 relative (its
/// error is h² f''/6, about 10^−12 relative for these laws). The laws without one are
/// those whose density jumps or has atoms (det).
#[test]
fn densities_match_a_central_difference_of_the_tail() {
    let bits = 200;
    let mut checked = 0;
    for spec in SPECS {
        let d = DistSpec::parse(spec).unwrap();
        let enc = d.enclose(bits).unwrap();
        let law = d.build(bits).unwrap();
        for x in points(law.as_ref()) {
            let Some(at) = enc.density(&Interval::point(x.clone())) else {
                assert!(spec.starts_with("det"), "{spec}: no density at {x}");
                continue;
            };
            let h = Float::with_val(bits, &x * 1e-6f64);
            let xp = Float::with_val(bits, &x + &h);
            let xm = Float::with_val(bits, &x - &h);
            let q = enc
                .tail_at(&xm)
                .unwrap()
                .sub(&enc.tail_at(&xp).unwrap())
                .div(&Interval::point(h.clone()).mul_2exp(1));
            let over = enc.density(&Interval::new(xm, xp)).unwrap();
            assert!(
                over.lo() <= q.hi() && q.lo() <= over.hi(),
                "{spec} at {x}: density {over:?} misses the quotient {q:?}"
            );
            let gap = Float::with_val(bits, at.hi() - q.lo())
                .abs()
                .max(&Float::with_val(bits, q.hi() - at.lo()).abs());
            assert!(
                gap <= Float::with_val(bits, q.hi() * 1e-8f64),
                "{spec} at {x}: density {at:?} vs quotient {q:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} points checked");
}
