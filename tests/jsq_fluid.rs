//! Fluid and mean-field trajectories against closed forms derived here.

use taskassign::lb::fixed_point;
use taskassign::lb::{fluid_trajectory as trajectory, FluidOptions, Limit};
use taskassign::lb::{Model, ModelKind};
use taskassign::num::{Tolerance, GLOBAL_ERROR_FACTOR};

const TOL: f64 = 1e-10;

fn opts() -> FluidOptions {
    FluidOptions {
        tol: Tolerance::both(TOL),
        ..Default::default()
    }
}

/// The stated accuracy: GLOBAL_ERROR_FACTOR · (atol + rtol |y|).
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= GLOBAL_ERROR_FACTOR * (TOL + TOL * want.abs())
}

fn level(q: &[f64], i: usize) -> f64 {
    q.get(i - 1).copied().unwrap_or(0.0)
}

/// P(Poisson(m) ≥ i), by summing the pmf up to i − 1 (m small here, no cancellation
/// issue at the levels tested, whose tails are ≥ 1e-8).
fn poisson_tail(m: f64, i: usize) -> f64 {
    let mut p = (-m).exp();
    let mut cdf = 0.0;
    for k in 0..i {
        cdf += p;
        p *= m / (k + 1) as f64;
    }
    1.0 - cdf
}

#[test]
fn pools_random_routing_from_empty_is_poisson() {
    // d = 1: each pool is an M/M/∞ queue fed at rate λ; from empty its count at t is
    // Poisson with mean λ(1 − e^{−t}) (the M/M/∞ transient), so q_i(t) = P(Poisson ≥ i).
    let lambda = 2.5;
    let m = Model::new(ModelKind::Pools, "2.5", None).unwrap();
    let times = [0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0];
    let tr = trajectory(&m, Limit::PowerOfD(1), &[], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        let mean = lambda * (1.0 - (-t).exp());
        for i in 1..=8 {
            let want = poisson_tail(mean, i);
            assert!(
                close(level(q, i), want),
                "t {t} i {i}: {} vs {want}",
                level(q, i)
            );
        }
    }
    assert!(tr.top_level_max <= tr.truncation);
}

/// JSQ's fluid limit for pools from empty (derived in `lb::fluid`'s terms): in mode m with
/// the levels above m + 1 empty, dq_{m+1}/dt = λ − m(1 − q_{m+1}) − (m + 1) q_{m+1}
/// = (λ − m) − q_{m+1}, so q_{m+1}(t) = (λ − m)(1 − e^{−(t − t_m)}) from t_m, and level
/// m + 1 fills at t_{m+1} = t_m − ln(1 − 1/(λ − m)) when λ − m > 1.
fn jsq_pools_from_empty(lambda: f64, t: f64) -> (Vec<f64>, Vec<f64>) {
    let mut q = Vec::new();
    let mut fills = Vec::new();
    let mut tm = 0.0;
    let mut m = 0usize;
    loop {
        let a = lambda - m as f64;
        if a > 1.0 {
            let tf = tm - (1.0 - 1.0 / a).ln();
            if t >= tf {
                q.push(1.0);
                fills.push(tf);
                tm = tf;
                m += 1;
                continue;
            }
            fills.push(tf);
        }
        q.push(a * (1.0 - (-(t - tm)).exp()));
        return (q, fills);
    }
}

#[test]
fn jsq_pools_from_empty_matches_the_closed_form() {
    let lambda = 2.5;
    let m = Model::new(ModelKind::Pools, "2.5", None).unwrap();
    let times = [0.2, 0.5, 0.9, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0];
    let tr = trajectory(&m, Limit::Jsq, &[], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        let (want, _) = jsq_pools_from_empty(lambda, *t);
        for i in 1..=4 {
            let w = level(&want, i);
            assert!(close(level(q, i), w), "t {t} i {i}: {} vs {w}", level(q, i));
            // Held levels are exactly 1 (sliding without chattering).
            if w == 1.0 {
                assert_eq!(level(q, i), 1.0, "t {t} i {i}");
            }
        }
    }
    // The switch times: level 1 fills at ln(λ/(λ−1)) = ln(5/3), level 2 at
    // ln(5/3) + ln(1.5/0.5) = ln 5.
    let fills: Vec<f64> = tr.switches.iter().skip(1).map(|s| s.time).collect();
    assert_eq!(
        tr.switches.iter().map(|s| s.mode).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert!((fills[0] - (5.0f64 / 3.0).ln()).abs() < 1e-9, "{fills:?}");
    assert!((fills[1] - 5f64.ln()).abs() < 1e-9, "{fills:?}");
    // The guard level above ⌈λ⌉ = 3 never fills.
    assert_eq!(tr.levels, 4);
    assert_eq!(tr.top_level_max, 0.0);
}

#[test]
fn jsq_queues_slide_then_leave_the_full_level() {
    // Queues, λ = 0.7, start (1, a = 0.5). Mode 1 holds while λ ≥ 1 − q_2: q_1 = 1 exactly
    // and dq_2/dt = λ − (1 − q_2) − (q_2 − 0) = λ − 1, so q_2 = a − (1 − λ)t until
    // t* = (a − (1 − λ))/(1 − λ) = 2/3. Then mode 0: dq_2/dt = −q_2, dq_1/dt = λ − q_1 + q_2,
    // whence q_2 = (1 − λ)e^{−s} and q_1 = λ + (1 − λ)(1 + s)e^{−s}, s = t − t*.
    let (lambda, a) = (0.7, 0.5);
    let m = Model::new(ModelKind::Queues, "0.7", None).unwrap();
    let t_star = (a - (1.0 - lambda)) / (1.0 - lambda);
    let times = [0.1, 0.3, 0.6, 0.7, 1.0, 2.0, 5.0, 15.0];
    let tr = trajectory(&m, Limit::Jsq, &[1.0, a], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        let (q1, q2) = if *t < t_star {
            (1.0, a - (1.0 - lambda) * t)
        } else {
            let s = t - t_star;
            (
                lambda + (1.0 - lambda) * (1.0 + s) * (-s).exp(),
                (1.0 - lambda) * (-s).exp(),
            )
        };
        if *t < t_star {
            assert_eq!(
                level(q, 1),
                1.0,
                "sliding must hold q_1 at exactly 1 (t {t})"
            );
        }
        assert!(close(level(q, 1), q1), "t {t}: q1 {} vs {q1}", level(q, 1));
        assert!(close(level(q, 2), q2), "t {t}: q2 {} vs {q2}", level(q, 2));
    }
    assert!(
        (tr.switches[1].time - t_star).abs() < 1e-9,
        "{:?}",
        tr.switches
    );
    assert_eq!(tr.switches[1].mode, 0);
}

#[test]
fn from_a_full_first_level() {
    // Pools, λ = 0.6 < 1, start q_1 = 1: mode 1 fails at once (λ < 1·(1 − 0)), and in mode
    // 0 dq_1/dt = λ − q_1, so q_1 = λ + (1 − λ)e^{−t}.
    let m = Model::new(ModelKind::Pools, "0.6", None).unwrap();
    let times = [0.5, 1.0, 4.0];
    let tr = trajectory(&m, Limit::Jsq, &[1.0], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        let want = 0.6 + 0.4 * (-t).exp();
        assert!(close(level(q, 1), want), "t {t}");
    }
    // Pools, λ = 1.5, start q_1 = 1: mode 1 holds, dq_2/dt = λ − (1 − q_2) − 2q_2
    // = (λ − 1) − q_2, so q_2 = 0.5(1 − e^{−t}) with q_1 = 1 exactly.
    let m = Model::new(ModelKind::Pools, "1.5", None).unwrap();
    let tr = trajectory(&m, Limit::Jsq, &[1.0], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        assert_eq!(level(q, 1), 1.0);
        assert!(close(level(q, 2), 0.5 * (1.0 - (-t).exp())), "t {t}");
    }
    // Queues, λ = 0.8, start q_1 = 1 (and nothing above): mode 0 at once,
    // dq_1/dt = λ − q_1, so q_1 = λ + (1 − λ)e^{−t}.
    let m = Model::new(ModelKind::Queues, "0.8", None).unwrap();
    let tr = trajectory(&m, Limit::Jsq, &[1.0], &times, &opts()).unwrap();
    for (t, q) in times.iter().zip(&tr.occupancy) {
        assert!(close(level(q, 1), 0.8 + 0.2 * (-t).exp()), "t {t}");
    }
}

#[test]
fn stationary_start_stays_for_mm1() {
    // Queues, d = 1, start at the M/M/1 tail s_i = λ^i: a fixed point, so it must stay
    // there (within the truncation: levels above K lose their arrivals, an effect of size
    // q_K ≤ the truncation tolerance).
    let lambda: f64 = 0.6;
    let m = Model::new(ModelKind::Queues, "0.6", None).unwrap();
    let init: Vec<f64> = (1..=80).map(|i| lambda.powi(i)).collect();
    let tr = trajectory(&m, Limit::PowerOfD(1), &init, &[1.0, 10.0], &opts()).unwrap();
    for q in &tr.occupancy {
        for i in 1..=20 {
            let want = lambda.powi(i as i32);
            assert!(
                (level(q, i) - want).abs() <= 1e-9 * want + 1e-12,
                "i {i}: {} vs {want}",
                level(q, i)
            );
        }
    }
}

#[test]
fn power_of_d_converges_to_its_fixed_point() {
    // Fixed d: the ODE from empty approaches the fixed point of lb::fixed_point (closed
    // form for queues, the MPFR root for pools); both fixed points are global attractors
    // (Mitzenmacher 1996 for queues). The queues' slowest mode relaxes at about 0.075 per
    // unit time at λ = 0.9 (the distance is 8e-4 at t = 60, 2e-8 at t = 200), so t = 400.
    for (kind, lambda, d) in [
        (ModelKind::Queues, "0.9", 2u32),
        (ModelKind::Pools, "3.5", 2),
        (ModelKind::Pools, "1.2", 5),
    ] {
        let m = Model::new(kind, lambda, None).unwrap();
        let tr = trajectory(&m, Limit::PowerOfD(d), &[], &[400.0], &opts()).unwrap();
        let fp = fixed_point(&m, Limit::PowerOfD(d), 128).unwrap();
        for (i, want) in fp.occupancy.iter().enumerate().take(10) {
            let w = want.to_f64();
            let got = level(&tr.occupancy[0], i + 1);
            assert!(
                (got - w).abs() < 1e-8,
                "{kind:?} {lambda} d {d} level {}: {got} vs {w}",
                i + 1
            );
        }
    }
}

#[test]
fn finite_buffer_is_the_top_level() {
    // Queues with b = 2, λ = 1.5, d → ∞: every server fills (dq_2/dt = λ − 1 > 0 in mode 1),
    // so q → (1, 1) and the capacity is the top level (no guard above it).
    let m = Model::new(ModelKind::Queues, "1.5", Some(2)).unwrap();
    let tr = trajectory(&m, Limit::Jsq, &[], &[30.0], &opts()).unwrap();
    assert_eq!(tr.levels, 2);
    assert_eq!(tr.occupancy[0], vec![1.0, 1.0]);
    // Bad starts are bad input.
    assert!(trajectory(&m, Limit::Jsq, &[1.0, 1.0, 0.5], &[1.0], &opts()).is_err());
    assert!(trajectory(&m, Limit::Jsq, &[0.5, 0.7], &[1.0], &opts()).is_err());
    assert!(trajectory(&m, Limit::Jsq, &[0.5], &[2.0, 1.0], &opts()).is_err());
}
