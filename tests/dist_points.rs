//! Per-point evaluation (`JobSize::point`, `tail_at`, `density_at`, `moments_between`)
//! against the plain methods.
//!
//! Source of the reference: `tail`, `density` and `partial_moment` of the same family (the
//! same binary parameters) at 3·bits + 100 bits, a different code path (one logarithm and
//! one expm1 per call, no shared per-point values; tests/dist_moments.rs checks it against
//! quadrature). Its ln(b/a) keeps 2·bits + 100 bits even for points one ulp apart, 2^-100
//! of the tolerance.
//!
//! Tolerance: 2^−(bits − SLACK_BITS) relative. Source: the error analysis in the doc of
//! `PowerLaw` (src/dist/point.rs): every value is a product of at most six correctly
//! rounded factors, the guarded logarithms add less than 2^−8 ulp, and the one subtraction
//! ((b/a)^t − 1 with |t ln(b/a)| ≥ ½) amplifies by at most 2.6, about 20 ulps in all.

mod common;
use common::build;

use rug::Float;
use taskassign::dist::BoundedPareto;
use taskassign::dist::JobSize;
use taskassign::dist::Pareto;
use taskassign::num::message_number;
use taskassign::num::parse_decimal;

const SLACK_BITS: u32 = 8;
const EXTRA_REF_BITS: u32 = 100;

/// The family `spec` ("bp:k,p,alpha" or "pareto:k,alpha", decimal parameters) at `bits`,
/// and the same family at `ref_bits` from the very same (binary) parameter values, so that
/// both have exactly the same support.
fn build_pair(spec: &str, bits: u32, ref_bits: u32) -> (Box<dyn JobSize>, Box<dyn JobSize>) {
    let (family, params) = spec.split_once(':').expect("family:params");
    let v: Vec<Float> = params
        .split(',')
        .map(|x| parse_decimal(x, bits).expect("a decimal"))
        .collect();
    let at = |x: &Float, b: u32| Float::with_val(b, x);
    let make = |b: u32| -> Box<dyn JobSize> {
        match family {
            "bp" => Box::new(BoundedPareto::new(at(&v[0], b), at(&v[1], b), at(&v[2], b)).unwrap()),
            "pareto" => Box::new(Pareto::new(at(&v[0], b), at(&v[1], b)).unwrap()),
            _ => panic!("unknown family {family}"),
        }
    };
    (make(bits), make(ref_bits))
}

/// |x − r| ≤ tol·|r| (both zero, or both the same infinity, also pass); returns the
/// fraction of the tolerance used.
fn close(what: &str, x: &Float, r: &Float, bits: u32) -> f64 {
    if x == r {
        return 0.0;
    }
    assert!(
        x.is_finite() && r.is_finite(),
        "{what}: {} vs reference {}",
        message_number(x),
        message_number(r)
    );
    let tol = Float::with_val(bits + 200, r.abs_ref()) >> (bits - SLACK_BITS);
    let err = Float::with_val(bits + 200, x - r).abs();
    let used = Float::with_val(64, &err / &tol).to_f64();
    assert!(
        err <= tol,
        "{what}: {} vs reference {} (error {:.3e} of the tolerance)",
        message_number(x),
        message_number(r),
        used
    );
    used
}

/// Points spread over the support (and outside it) for a family on [k, p].
fn points(k: &Float, p: &Float, bits: u32) -> Vec<Float> {
    let mut v: Vec<Float> = Vec::new();
    let lk = Float::with_val(bits, k.ln_ref());
    let top = if p.is_infinite() {
        Float::with_val(bits, &lk + 60)
    } else {
        Float::with_val(bits, p.ln_ref())
    };
    // Log-spaced interior points.
    for i in 0..=24 {
        let t: Float = Float::with_val(bits, &top - &lk) * (i as u32) / 24u32 + &lk;
        v.push(t.exp());
    }
    // Near the ends, and pairs of nearly equal points (the direct-logarithm branch).
    for rel in [1e-30, 1e-12, 1e-6, 1e-3] {
        v.push(Float::with_val(bits, k * Float::with_val(bits, 1.0 + rel)));
        if p.is_finite() {
            v.push(Float::with_val(bits, p * Float::with_val(bits, 1.0 - rel)));
        }
        let mid = Float::with_val(bits, Float::with_val(bits, &lk + &top) / 2u32).exp();
        v.push(Float::with_val(
            bits,
            &mid * Float::with_val(bits, 1.0 + rel),
        ));
        v.push(mid);
    }
    // Outside the support.
    v.push(Float::with_val(bits, k / 2u32));
    if p.is_finite() {
        v.push(Float::with_val(bits, p * 2u32));
    } else {
        v.push(Float::with_val(bits, rug::float::Special::Infinity));
    }
    v.push(k.clone());
    v.push(p.clone());
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v.dedup();
    v
}

fn check_family(spec: &str, bits: u32) -> f64 {
    // The reference precision covers the ratio of two points one ulp apart: ln(b/a) needs
    // bits more bits than the value to keep its relative precision.
    let (d, r) = build_pair(spec, bits, 3 * bits + EXTRA_REF_BITS);
    let pts = points(&d.lower(), &d.upper(), bits);
    let prepared: Vec<_> = pts.iter().map(|x| d.point(x)).collect();
    let mut worst: f64 = 0.0;
    for (x, pt) in pts.iter().zip(&prepared) {
        let what = format!("{spec} at {} bits, x = {}", bits, message_number(x));
        if x.is_finite() {
            worst = worst.max(close(
                &format!("tail, {what}"),
                &pt.tail(d.as_ref()),
                &r.tail(x),
                bits,
            ));
            let dens = pt.density(d.as_ref()).expect("a density");
            let dref = r.density(x).expect("a density");
            worst = worst.max(close(&format!("density, {what}"), &dens, &dref, bits));
        }
    }
    for (i, a) in pts.iter().enumerate() {
        for (jb, b) in pts.iter().enumerate().skip(i) {
            for js in [&[-1, 0, 1, 2][..], &[0, 1, 2], &[1, 2], &[-1], &[2]] {
                let got = d.moments_between(js, &prepared[i], &prepared[jb]);
                let want: Result<Vec<Float>, _> =
                    js.iter().map(|&j| r.partial_moment(j, a, b)).collect();
                match (got, want) {
                    (Ok(g), Ok(w)) => {
                        for ((x, y), j) in g.iter().zip(&w).zip(js) {
                            let what = format!(
                                "{spec} at {bits} bits: M_{j}({}, {}), b/a − 1 = {:.3e}",
                                message_number(a),
                                message_number(b),
                                (Float::with_val(bits, b / a) - 1u32).to_f64()
                            );
                            worst = worst.max(close(&what, x, y, bits));
                        }
                    }
                    (Err(e), Err(f)) => assert_eq!(e.to_string(), f.to_string()),
                    (g, w) => panic!(
                        "{spec}: M({}, {}) orders {js:?}: {g:?} vs reference {w:?}",
                        message_number(a),
                        message_number(b)
                    ),
                }
            }
        }
    }
    worst
}

#[test]
fn bounded_pareto_points_match_the_plain_methods() {
    let mut worst: f64 = 0.0;
    for spec in [
        "bp:1,1e10,1.5",
        "bp:1,1e10,1",
        "bp:1,1e10,2",
        "bp:1,1e10,0.5",
        "bp:1,1e1000,1",
        "bp:1,1e1000,1.1",
        "bp:0.001,1e100000,1.5",
        "bp:1e-400,1,0.7",
        "bp:1,1.001,1.5",
    ] {
        for bits in [64, 132, 400] {
            worst = worst.max(check_family(spec, bits));
        }
    }
    eprintln!("worst: {worst:.3} of the tolerance");
}

#[test]
fn pareto_points_match_the_plain_methods() {
    let mut worst: f64 = 0.0;
    for spec in [
        "pareto:1,2.5",
        "pareto:1,1.5",
        "pareto:1e-300,0.5",
        "pareto:3,3",
    ] {
        for bits in [64, 132, 400] {
            worst = worst.max(check_family(spec, bits));
        }
    }
    eprintln!("worst: {worst:.3} of the tolerance");
}

#[test]
fn families_without_point_values_fall_back_to_the_plain_methods() {
    // Source: the default `*_at` methods call the plain ones at x, so the values are
    // identical (tolerance 0).
    for spec in ["exp:rate=2", "uniform:a=1,b=3", "weibull:shape=0.5,scale=1"] {
        let d = build(spec, 100);
        let a = Float::with_val(100, 1.5);
        let b = Float::with_val(100, 2.5);
        let (pa, pb) = (d.point(&a), d.point(&b));
        assert_eq!(pa.tail(d.as_ref()), d.tail(&a));
        assert_eq!(pb.density(d.as_ref()), d.density(&b));
        let m = d.moments_between(&[0, 1, 2], &pa, &pb).unwrap();
        let n = d.partial_moments(&[0, 1, 2], &a, &b).unwrap();
        assert_eq!(m, n);
    }
}
