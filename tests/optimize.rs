//! Optimal cutoffs: global optimality against brute force, first-order conditions by finite
//! differences of the policy formulas (not of the optimiser's gradient), closed forms,
//! two-precision agreement, monotonicity.

mod common;
use common::sizes_law;
use rug::Float;
use taskassign::dist::{DistFactory, DistSpec, JobSize};
use taskassign::num::parse_decimal;
use taskassign::optimize::{optimal_cutoffs, OptPolicy};
use taskassign::optimize::{optimize_certified, OptimizeRequest};
use taskassign::policy::{evaluate, LoadSpec, Metric, PolicyKind};

/// Brute-force grid points for h = 2.
const GRID_2: usize = 3000;
/// Brute-force grid points per cutoff for h = 3.
const GRID_3: usize = 160;
/// The optimum may not be worse than any grid point by more than this relative amount
/// (rounding of 64-bit evaluations).
const NOT_WORSE_TOL: f64 = 1e-12;

fn spec(s: &str) -> DistSpec {
    DistSpec::parse(s).unwrap()
}

fn value_at(
    d: &dyn JobSize,
    load: &LoadSpec,
    p: PolicyKind,
    h: usize,
    cut: &[Float],
    m: Metric,
) -> Option<Float> {
    let (lambda, _) = load.resolve(d, h).unwrap();
    let e = evaluate(p, d, &lambda, h, cut, m).ok()?;
    if e.stable {
        Some(e.value)
    } else {
        None
    }
}

/// Grid points strictly inside the support: log-spaced on [k, p] for bounded supports
/// away from 0, otherwise at quantiles.
fn brute_grid(d: &dyn JobSize, n: usize) -> Vec<Float> {
    let b = d.prec();
    let (lo, hi) = (d.lower(), d.upper());
    (1..n)
        .map(|i| {
            let t = i as f64 / n as f64;
            if lo > 0 && hi.is_finite() {
                let l = Float::with_val(b, lo.ln_ref()) * (1.0 - t)
                    + Float::with_val(b, hi.ln_ref()) * t;
                l.exp()
            } else {
                d.quantile(&Float::with_val(b, t)).unwrap()
            }
        })
        .collect()
}

fn rel(a: &Float, b: &Float) -> f64 {
    (Float::with_val(a.prec(), a - b) / b).abs().to_f64()
}

const CASES: &[(&str, &str)] = &[
    ("bp:k=1,p=1e6,alpha=0.5", "0.5"),
    ("bp:k=1,p=1e6,alpha=1", "0.5"),
    ("bp:k=1,p=1e6,alpha=1.5", "0.7"),
    ("exp:rate=1", "0.8"),
    ("uniform:a=0,b=1", "0.6"),
    ("hyperexp:p=0.1,rate1=0.1,rate2=10", "0.5"),
];

#[test]
fn two_hosts_global_against_brute_force() {
    for (s, load) in CASES {
        let f = spec(s);
        let d = f.build(64).unwrap();
        let load = LoadSpec::Total((*load).into());
        for (pol, kind) in [
            (OptPolicy::Sita, PolicyKind::Sita),
            (OptPolicy::Tags, PolicyKind::Tags),
        ] {
            let opt = optimal_cutoffs(&f, &load, 2, pol, Metric::Waiting, 15).unwrap();
            let grid = brute_grid(d.as_ref(), GRID_2);
            let mut best: Option<(Float, Float)> = None;
            for g in &grid {
                if let Some(v) = value_at(
                    d.as_ref(),
                    &load,
                    kind,
                    2,
                    std::slice::from_ref(g),
                    Metric::Waiting,
                ) {
                    if best.as_ref().is_none_or(|(bv, _)| v < *bv) {
                        best = Some((v, g.clone()));
                    }
                }
            }
            let (bv, bg) = best.unwrap();
            let ov = Float::with_val(64, &opt.eval.value);
            assert!(
                ov.to_f64() <= bv.to_f64() * (1.0 + NOT_WORSE_TOL),
                "{s} {pol:?}: optimum {ov} worse than grid {bv} at {bg}"
            );
            // The best grid point is within one grid step of the optimum: compare values
            // (the objective is flat there) to the grid's resolution.
            assert!(
                rel(&bv, &ov) < 1e-3,
                "{s} {pol:?}: grid {bv} vs optimum {ov}"
            );
            if opt.idle_hosts > 0 {
                // One host does at least as well as any grid cutoff (checked above): the
                // objective is flat towards the top, and there is no cutoff to locate.
                continue;
            }
            let cut = Float::with_val(64, &opt.cutoffs[0]);
            let step = if d.lower() > 0 && d.upper().is_finite() {
                (Float::with_val(64, d.upper().ln_ref()) - Float::with_val(64, d.lower().ln_ref()))
                    .to_f64()
                    / GRID_2 as f64
            } else {
                0.05
            };
            let dist_ln = (Float::with_val(64, cut.ln_ref()) - Float::with_val(64, bg.ln_ref()))
                .abs()
                .to_f64();
            assert!(
                dist_ln < 4.0 * step.max(0.01),
                "{s} {pol:?}: cutoff {cut} vs grid best {bg}"
            );
        }
    }
}

#[test]
fn three_hosts_global_against_brute_force() {
    for (s, load) in CASES {
        let f = spec(s);
        let d = f.build(64).unwrap();
        let load = LoadSpec::Total((*load).into());
        let grid = brute_grid(d.as_ref(), GRID_3);
        for (pol, kind) in [
            (OptPolicy::Sita, PolicyKind::Sita),
            (OptPolicy::Tags, PolicyKind::Tags),
        ] {
            let opt = optimal_cutoffs(&f, &load, 3, pol, Metric::Waiting, 15).unwrap();
            let ov = Float::with_val(64, &opt.eval.value).to_f64();
            let mut best = f64::INFINITY;
            for i in 0..grid.len() {
                for j in i + 1..grid.len() {
                    let c = [grid[i].clone(), grid[j].clone()];
                    if let Some(v) = value_at(d.as_ref(), &load, kind, 3, &c, Metric::Waiting) {
                        best = best.min(v.to_f64());
                    }
                }
            }
            assert!(
                ov <= best * (1.0 + NOT_WORSE_TOL),
                "{s} {pol:?}: optimum {ov} vs grid {best}"
            );
            assert!(
                (best - ov) / ov < 2e-2,
                "{s} {pol:?}: optimum {ov} far below grid {best}?"
            );
        }
    }
}

#[test]
fn sita_bp_alpha_one_two_hosts_cuts_at_geometric_mean() {
    // BP(k,p,1), h = 2: the SITA objective is symmetric under s -> kp/s (the density
    // ∝ x^-2 maps M_0·M_2 and M_1 of one host onto the other's), so the optimum is
    // s = √(kp) exactly, at any load (derivation in this comment; HBV10: α = 1 balances).
    for (k, p, load) in [
        ("1", "1e10", "0.5"),
        ("2", "1e300", "0.9"),
        ("1", "1e1000", "0.3"),
    ] {
        let f = spec(&format!("bp:k={k},p={p},alpha=1"));
        let o = optimal_cutoffs(
            &f,
            &LoadSpec::Total(load.into()),
            2,
            OptPolicy::Sita,
            Metric::Waiting,
            40,
        )
        .unwrap();
        let b = o.cutoffs[0].prec();
        let want = (parse_decimal(k, b).unwrap() * parse_decimal(p, b).unwrap()).sqrt();
        assert!(
            rel(&o.cutoffs[0], &want) < 1e-38,
            "p={p}: {} vs {}",
            o.cutoffs[0],
            want
        );
    }
}

#[test]
fn f64_brent_finds_the_geometric_mean_cut() {
    // The closed form of the test above (s* = √(kp) for SITA, BP(k, p, 1), h = 2) against
    // the f64 Brent refinement of the grid optimum. Tolerance: 10·LN_BRENT_TOL·√(1 + |ln J|)
    // in ln s (Brent stops within its tolerance of a minimiser J resolves, and the f64
    // value of J has a relative error of about 1e-16·|ln J|).
    use taskassign::optimize::{
        fast_grid_size, ln_brent, ln_grid, ln_grid_optima, LnChain, LN_BRENT_TOL,
    };
    use taskassign::policy::ChainKind;
    for (k, p, load) in [
        ("1", "1e10", "0.5"),
        ("2", "1e300", "0.9"),
        ("1", "1e1000", "0.3"),
        ("1", "1e100000", "0.7"),
    ] {
        let d = spec(&format!("bp:k={k},p={p},alpha=1")).build(64).unwrap();
        let (lambda, _) = LoadSpec::Total(load.into()).resolve(d.as_ref(), 2).unwrap();
        let lc = LnChain::new(d.as_ref(), &lambda, ChainKind::Sita, Metric::Waiting).unwrap();
        let g = ln_grid(&lc, 2, fast_grid_size(2)).unwrap();
        let start = ln_grid_optima(&lc, 2, &g, false).swap_remove(0);
        let z = ln_brent(&lc, &start, &g).expect("one busy cutoff");
        assert!(
            z.ln_value <= start.ln_value,
            "p={p}: Brent worse than the grid"
        );
        let b = 200;
        let want = Float::with_val(
            b,
            parse_decimal(k, b).unwrap() * parse_decimal(p, b).unwrap(),
        )
        .sqrt()
        .ln()
        .to_f64();
        let tol = 10.0 * LN_BRENT_TOL * (1.0 + z.ln_value.abs()).sqrt();
        assert!(
            (z.ys[0] - want).abs() <= tol,
            "p={p}: Brent ln s = {} vs ln √(kp) = {want} (tolerance {tol:.1e})",
            z.ys[0]
        );
    }
}

#[test]
fn first_order_conditions_hold_by_finite_differences() {
    // Central differences of the policy formula (policy::evaluate, independent of the
    // optimiser's analytic gradient) at 400 bits with relative step 1e-40: truncation
    // ~1e-80, rounding ~1e-120/1e-40; so s ∂J/∂s / J must vanish to ~1e-60 at a 50-digit
    // optimum (50 digits: the optimum's own error 1e-50 enters squared in J, linearly in ∂J).
    const FOC_TOL: f64 = 1e-45;
    let bits = 400;
    for (s, load) in [
        ("bp:k=1,p=1e6,alpha=1.5", "0.7"),
        ("exp:rate=1", "0.8"),
        ("bp:k=1,p=1e100,alpha=0.5", "0.5"),
    ] {
        let f = spec(s);
        let d = f.build(bits).unwrap();
        let load = LoadSpec::Total(load.into());
        for (pol, kind) in [
            (OptPolicy::Sita, PolicyKind::Sita),
            (OptPolicy::Tags, PolicyKind::Tags),
        ] {
            let o = optimal_cutoffs(&f, &load, 3, pol, Metric::Waiting, 50).unwrap();
            // Idle hosts (cutoff at the top) are left out: the policy then has fewer hosts.
            let cut: Vec<Float> = o
                .cutoffs_free()
                .iter()
                .map(|c| Float::with_val(bits, c))
                .collect();
            let h = cut.len() + 1;
            let j0 = value_at(d.as_ref(), &load, kind, h, &cut, Metric::Waiting).unwrap();
            for i in 0..cut.len() {
                let step = Float::with_val(bits, &cut[i]) * parse_decimal("1e-40", bits).unwrap();
                let mut up = cut.clone();
                up[i] += &step;
                let mut dn = cut.clone();
                dn[i] -= &step;
                let ju = value_at(d.as_ref(), &load, kind, h, &up, Metric::Waiting).unwrap();
                let jd = value_at(d.as_ref(), &load, kind, h, &dn, Metric::Waiting).unwrap();
                let g = (ju - jd) / (step * 2u32) * &cut[i] / &j0;
                let g = g.to_f64();
                assert!(
                    g.abs() < FOC_TOL,
                    "{s} {pol:?} cutoff {i}: s dJ/ds / J = {g}"
                );
            }
        }
    }
}

#[test]
fn thirty_and_three_hundred_digits_agree() {
    for (s, pol, h) in [
        ("bp:k=1,p=1e10,alpha=1.5", OptPolicy::Tags, 3),
        ("bp:k=1,p=1e1000,alpha=0.5", OptPolicy::Sita, 4),
        ("exp:rate=1", OptPolicy::TagsMinmax, 3),
        ("uniform:a=0,b=1", OptPolicy::SitaE, 5),
    ] {
        let f = spec(s);
        let mk = |digits| OptimizeRequest {
            policy: pol,
            dist: &f,
            hosts: h,
            load: LoadSpec::Total("0.6".into()),
            metric: Metric::Waiting,
            digits,
        };
        let a = optimize_certified(&mk(30)).unwrap();
        let b = optimize_certified(&mk(300)).unwrap();
        assert_eq!(a.digits, 30, "{s} {pol:?}");
        assert_eq!(b.digits, 300, "{s} {pol:?}");
        let pairs = [(&a.value, &b.value)]
            .into_iter()
            .chain(a.cutoffs.iter().zip(b.cutoffs.iter()));
        for (x, y) in pairs {
            let xf = parse_decimal(&x.text, 1100).unwrap();
            let yf = parse_decimal(&y.text, 1100).unwrap();
            let r = (Float::with_val(1100, &xf - &yf) / &yf).abs();
            assert!(r < 5.01e-30, "{s} {pol:?}: {} vs {}", x.text, y.text);
        }
    }
}

#[test]
fn monotone_in_hosts_and_load_and_sita_e_is_worse() {
    let f = spec("bp:k=1,p=1e8,alpha=1.2");
    for pol in [OptPolicy::Sita, OptPolicy::Tags] {
        let mut prev: Option<Float> = None;
        for h in 1..=6 {
            let o = optimal_cutoffs(
                &f,
                &LoadSpec::Total("0.8".into()),
                h,
                pol,
                Metric::Waiting,
                20,
            )
            .unwrap();
            if let Some(p) = &prev {
                assert!(
                    o.eval.value <= *p,
                    "{pol:?} h={h}: {} > {}",
                    o.eval.value,
                    p
                );
            }
            prev = Some(o.eval.value);
        }
        let mut prev: Option<Float> = None;
        for load in ["0.2", "0.4", "0.6", "0.8", "0.95"] {
            let o = optimal_cutoffs(
                &f,
                &LoadSpec::Total(load.into()),
                3,
                pol,
                Metric::Waiting,
                20,
            )
            .unwrap();
            if let Some(p) = &prev {
                assert!(o.eval.value > *p, "{pol:?} load={load}");
            }
            prev = Some(o.eval.value);
        }
    }
    for h in 2..=5 {
        let load = LoadSpec::PerHost("0.7".into());
        let opt = optimal_cutoffs(&f, &load, h, OptPolicy::Sita, Metric::Waiting, 20).unwrap();
        let e = optimal_cutoffs(&f, &load, h, OptPolicy::SitaE, Metric::Waiting, 20).unwrap();
        assert!(opt.eval.value <= e.eval.value);
        // SITA-E loads are equal: ρ_i = ρ/h = 0.7.
        for r in &e.eval.host_loads {
            assert!(
                rel(r, &parse_decimal("0.7", r.prec()).unwrap()) < 1e-18,
                "{r}"
            );
        }
    }
}

#[test]
fn tags_minmax_equalises_queue_lengths_and_beats_tags_opt_on_its_objective() {
    // Mean queue length at host i: λ P(X > s_{i-1}) Q_i (Little's law), Q_i the host's
    // mean wait in queue (host_waiting).
    let f = spec("bp:k=1,p=1e6,alpha=1");
    let load = LoadSpec::Total("0.7".into());
    let d = f.build(96).unwrap();
    let (lambda, _) = load.resolve(d.as_ref(), 3).unwrap();
    let qlen = |cut: &[Float]| -> Vec<Float> {
        let e = evaluate(
            PolicyKind::Tags,
            d.as_ref(),
            &lambda,
            3,
            cut,
            Metric::Waiting,
        )
        .unwrap();
        let mut s = vec![d.lower_open()];
        s.extend(cut.iter().cloned());
        (0..3)
            .map(|i| Float::with_val(96, &lambda * &d.tail(&s[i])) * &e.host_waiting[i])
            .collect()
    };
    let mm = optimal_cutoffs(&f, &load, 3, OptPolicy::TagsMinmax, Metric::Waiting, 25).unwrap();
    let cut: Vec<Float> = mm.cutoffs.iter().map(|c| Float::with_val(96, c)).collect();
    let l = qlen(&cut);
    for x in &l {
        assert!(rel(x, &l[0]) < 1e-20, "unequal queue lengths {l:?}");
    }
    let opt = optimal_cutoffs(&f, &load, 3, OptPolicy::Tags, Metric::Waiting, 25).unwrap();
    let lo: Vec<Float> = qlen(
        &opt.cutoffs
            .iter()
            .map(|c| Float::with_val(96, c))
            .collect::<Vec<_>>(),
    );
    let max_opt = lo.iter().fold(
        Float::with_val(96, 0),
        |m, x| if *x > m { x.clone() } else { m },
    );
    assert!(l[0] <= max_opt);
    assert!(opt.eval.value <= mm.eval.value);
}

#[test]
fn optimum_pinned_against_a_stability_boundary() {
    // BP(1, 1e100, 1.5), SITA, h = 2, ρ = 1.2: host 1 is stable only for s < 36 (λ M_1(1, s)
    // = 1.2 (1 − s^-1/2) < 1), while the huge E[X²] of host 2 pushes the cutoff against that
    // boundary: s* = 36 (1 − O(1e-24)). Newton fails there; the bracketed gradient roots
    // must still give a stable optimum satisfying the first-order condition, checked by
    // central differences of the policy formula at 600 bits with a relative step of 1e-60
    // (below the distance to the boundary).
    const FOC_TOL: f64 = 1e-30;
    let bits = 600;
    let f = spec("bp:k=1,p=1e100,alpha=1.5");
    let load = LoadSpec::Total("1.2".into());
    let o = optimal_cutoffs(&f, &load, 2, OptPolicy::Sita, Metric::Waiting, 50).unwrap();
    assert!(o.eval.stable && o.eval.host_loads[0] < 1);
    let d = f.build(bits).unwrap();
    let s = Float::with_val(bits, &o.cutoffs[0]);
    assert!(s < 36 && s > 35.999);
    let step = Float::with_val(bits, &s) * parse_decimal("1e-60", bits).unwrap();
    let j = |x: Float| {
        value_at(
            d.as_ref(),
            &load,
            PolicyKind::Sita,
            2,
            &[x],
            Metric::Waiting,
        )
        .unwrap()
    };
    let j0 = j(s.clone());
    let g = (j(Float::with_val(bits, &s + &step)) - j(Float::with_val(bits, &s - &step)))
        / (step * 2u32)
        * &s
        / &j0;
    let g = g.to_f64();
    assert!(g.abs() < FOC_TOL, "s dJ/ds / J = {g}");
}

/// The f64 search on logarithms (`Search::Auto`, used wherever the family has f64 partial
/// moments) and the MPFR grid search (`Search::Mpfr`) are two independent global searches:
/// polished at 160 bits from their starts, they must reach the same optimum. Source of the
/// expected value: the MPFR search; tolerance 1e-30 relative on the value (both polishes
/// converge to the working precision, ~48 digits).
#[test]
fn f64_search_agrees_with_mpfr_search() {
    use taskassign::optimize::LnChain;
    use taskassign::optimize::{optimum_from, search_starts_with, Search};
    use taskassign::policy::ChainKind;
    let cases: &[(&str, &str, usize)] = &[
        ("bp:k=1,p=1e10,alpha=1.5", "0.5", 2),
        ("bp:k=1,p=1e10,alpha=0.5", "0.8", 3),
        ("bp:k=1,p=1e1000,alpha=1", "0.5", 4),
        ("bp:k=1,p=1e100000,alpha=1.5", "0.9", 3),
        ("pareto:k=1,alpha=2.5", "0.7", 3),
        ("exp:rate=1", "0.8", 3),
        ("uniform:a=0,b=1", "0.6", 2),
        ("hyperexp:p=0.1,rate1=0.1,rate2=10", "0.5", 4),
        ("lognormal:mu=0,sigma=2", "0.7", 3),
        ("weibull:shape=0.5,scale=1", "0.6", 2),
    ];
    let bits = 160;
    for (s, load, hosts) in cases {
        let f = spec(s);
        let load = LoadSpec::Total((*load).into());
        for pol in [OptPolicy::Sita, OptPolicy::Tags, OptPolicy::TagsMinmax] {
            for metric in [Metric::Waiting, Metric::Slowdown] {
                if pol == OptPolicy::TagsMinmax && metric == Metric::Slowdown {
                    continue;
                }
                let run = |search| -> Result<Float, String> {
                    let st = search_starts_with(&f, &load, *hosts, pol, metric, search)
                        .map_err(|e| e.to_string())?;
                    let d = f.build(bits).unwrap();
                    let o = optimum_from(d.as_ref(), &load, *hosts, pol, metric, &st)
                        .map_err(|e| e.to_string())?;
                    Ok(match o.max_queue {
                        Some(q) => q,
                        None => o.eval.value,
                    })
                };
                // The test means something only where the f64 search is used.
                let d64 = f.build(64).unwrap();
                let (lambda, _) = load.resolve(d64.as_ref(), *hosts).unwrap();
                let kind = match pol {
                    OptPolicy::Sita => ChainKind::Sita,
                    OptPolicy::Tags => ChainKind::Tags,
                    _ => ChainKind::TagsQueueLength,
                };
                assert!(
                    LnChain::new(d64.as_ref(), &lambda, kind, metric).is_some(),
                    "{s}: no f64 search"
                );
                let (a, b) = (run(Search::Auto), run(Search::Mpfr));
                match (a, b) {
                    (Ok(a), Ok(b)) => assert!(
                        rel(&a, &b) < 1e-30,
                        "{s} h={hosts} {pol:?} {metric:?}: f64 search {a} vs MPFR search {b}"
                    ),
                    (Err(a), Err(b)) => assert_eq!(a, b, "{s} {pol:?} {metric:?}"),
                    (a, b) => panic!("{s} h={hosts} {pol:?} {metric:?}: {a:?} vs {b:?}"),
                }
            }
        }
    }
}

/// Every digit printed is right: for optima with cutoffs that barely move J (TAGS with
/// heavy tails and many hosts, where the certification must cap or withhold digits), each
/// certified value and cutoff of a 30-digit run agrees with an independent 120-digit run
/// (its own search and polish) to within one unit of its last printed digit. Source of the
/// expected values: the 120-digit run; tolerance: 10^(1 − d) relative for d printed digits.
#[test]
fn printed_digits_agree_with_a_higher_precision_run() {
    for (s, pol, h, load) in [
        ("bp:k=1,p=1e100,alpha=1.5", OptPolicy::Tags, 8, "0.5"),
        ("bp:k=1,p=1e100,alpha=0.5", OptPolicy::Tags, 8, "0.5"),
        ("bp:k=1,p=1e1000,alpha=1.5", OptPolicy::Tags, 10, "0.5"),
        ("bp:k=1,p=1e10,alpha=1", OptPolicy::Sita, 6, "0.9"),
        (
            "hyperexp:p=0.1,rate1=0.1,rate2=10",
            OptPolicy::Tags,
            5,
            "0.5",
        ),
    ] {
        let f = spec(s);
        let mk = |digits| OptimizeRequest {
            policy: pol,
            dist: &f,
            hosts: h,
            load: LoadSpec::Total(load.into()),
            metric: Metric::Waiting,
            digits,
        };
        let a = optimize_certified(&mk(30)).unwrap();
        let reference = optimal_cutoffs(
            &f,
            &LoadSpec::Total(load.into()),
            h,
            pol,
            Metric::Waiting,
            120,
        )
        .unwrap();
        let mut pairs = vec![(&a.value, reference.eval.value.clone())];
        pairs.extend(a.cutoffs.iter().zip(reference.cutoffs.iter().cloned()));
        let mut checked = 0;
        for (c, r) in pairs {
            if c.digits == 0 {
                continue;
            }
            if c.text == "inf" {
                // An idle host's cutoff at the top of an unbounded support.
                assert!(r.is_infinite(), "{s}: inf vs {r}");
                continue;
            }
            let x = parse_decimal(&c.text, 500).unwrap();
            let rel = (Float::with_val(500, &x - &r) / &r).abs().to_f64();
            let unit = 10f64.powi(1 - c.digits as i32);
            assert!(
                rel <= unit,
                "{s} {pol:?} h={h}: printed {} ({} digits) vs 120-digit {}",
                c.text,
                c.digits,
                r.to_string_radix(10, Some(40))
            );
            checked += 1;
        }
        assert!(checked >= 2, "{s}: nothing certified");
    }
}

/// The sizes 1 (six times), 2 (three) and 3 (twice): each atom carries the same load 6λ/11.
const THREE_EQUAL_ATOMS: [&str; 11] = ["1", "1", "1", "1", "1", "1", "2", "2", "2", "3", "3"];

#[test]
fn discrete_laws_take_a_cutoff_at_their_least_atom() {
    // Expected values by hand (Pollaczek–Khinchine, W = λ_i E[S²] / (2(1 − ρ_i)) at each
    // host; exact rationals, tolerance 1e-25 relative at 30 digits).
    let rel_ok = |got: &Float, want: &Float| rel(got, want) < 1e-25;
    let law = sizes_law("three-atoms", &THREE_EQUAL_ATOMS);
    // SITA, λ = 1.1, 3 hosts: each atom alone has load 0.6 and any two 1.2, so the only
    // stable cutoffs give each host one atom: (1, 2), the first at the least atom. Mean
    // waiting (6·0.75 + 3·1.5 + 2·2.25)/11 = 27/22.
    let load = LoadSpec::Lambda("1.1".into());
    let o = optimal_cutoffs(&law, &load, 3, OptPolicy::Sita, Metric::Waiting, 30).unwrap();
    assert_eq!(o.cutoffs.len(), 2, "{:?}", o.cutoffs);
    assert_eq!(o.cutoffs[0], 1);
    assert_eq!(o.cutoffs[1], 2);
    assert!(
        rel_ok(&o.eval.value, &(Float::with_val(128, 27) / 22u32)),
        "{}",
        o.eval.value
    );
    // SITA-E: the load below the atom 1 is exactly 1/3 of the total and below 2 exactly
    // 2/3, so the cutoffs are (1, 2) with equal loads (a share met exactly, not lost to
    // rounding at either precision).
    let e = optimal_cutoffs(&law, &load, 3, OptPolicy::SitaE, Metric::Waiting, 30).unwrap();
    assert_eq!((e.cutoffs[0].to_f64(), e.cutoffs[1].to_f64()), (1.0, 2.0));
    assert!(rel_ok(&e.eval.value, &(Float::with_val(128, 27) / 22u32)));
    // TAGS on the sizes 1 and 4 at load 1 (λ = 0.4), 2 hosts: host 1 runs every job up to
    // size 1 (deterministic service 1, ρ = 0.4, W = 1/3); the size-4 jobs (λ = 0.2) restart
    // at host 2 (ρ = 0.8, W = 8) after wasting 1. Waiting 1/3 + 8/2 + 1/2 = 29/6 at the
    // cutoff 1; any cutoff in (1, 4) routes the same and wastes more. The optimiser printed
    // 1.0203 (waiting 4.8526) before a cutoff could sit at the least atom.
    let two = sizes_law("one-four", &["1", "4"]);
    for h in [2, 8] {
        let t = optimal_cutoffs(
            &two,
            &LoadSpec::Total("1".into()),
            h,
            OptPolicy::Tags,
            Metric::Waiting,
            30,
        )
        .unwrap();
        assert_eq!(t.cutoffs[0], 1, "h = {h}: {:?}", t.cutoffs);
        assert!(
            rel_ok(&t.eval.value, &(Float::with_val(128, 29) / 6u32)),
            "h = {h}: {}",
            t.eval.value
        );
    }
    // TAGS-minmax on the same law: host 2's queue is 0.2 · 8 = 1.6 whatever the cutoff in
    // [1, 4), so the equaliser's cutoff (host 1's queue 1.6 too, at 2.856) ties the minimum;
    // at the atom 1 host 1's queue is 0.4 · 1/3 and the waiting 29/6, where 2.856 wasted
    // work for nothing (before: cutoff 2.856, waiting 9.4278).
    let m = optimal_cutoffs(
        &two,
        &LoadSpec::Total("1".into()),
        2,
        OptPolicy::TagsMinmax,
        Metric::Waiting,
        30,
    )
    .unwrap();
    assert_eq!(m.cutoffs[0], 1, "{:?}", m.cutoffs);
    let level = m.max_queue.as_ref().unwrap();
    assert!(rel_ok(level, &(Float::with_val(128, 8) / 5u32)), "{level}");
    assert!(
        rel_ok(&m.eval.value, &(Float::with_val(128, 29) / 6u32)),
        "{}",
        m.eval.value
    );
}
