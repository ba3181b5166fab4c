//! The `jsq` commands' contract (issue 11, "Command line"): the keys of each subcommand,
//! numbers as decimal strings, values against closed forms computed independently,
//! one-line errors with exit status 2 for bad input, and simulated output that does not
//! depend on `--threads`.

mod common;
use common::{expect_bad, run_json};
use rug::Float;
use serde_json::{Map, Value};

/// `taskassign jsq ARGS --format json`, run and parsed ([`common::run_json`]).
fn json(args: &[&str]) -> Map<String, Value> {
    run_json(&[&["jsq"][..], args, &["--format", "json"]].concat())
}

/// A decimal string in scientific notation (d.ddd…e±X) or "0".
fn is_decimal(s: &str) -> bool {
    s == "0" || {
        let t = s.strip_prefix('-').unwrap_or(s);
        match t.split_once('e') {
            Some((m, e)) => {
                !m.is_empty()
                    && m.chars().all(|c| c.is_ascii_digit() || c == '.')
                    && e.trim_start_matches('-').parse::<u32>().is_ok()
            }
            None => false,
        }
    }
}

fn has_keys(m: &Map<String, Value>, keys: &[&str]) {
    let got: Vec<&String> = m.keys().collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(
            got.get(i).map(|s| s.as_str()),
            Some(*k),
            "key order: {got:?}"
        );
    }
}

fn num(m: &Map<String, Value>, k: &str) -> f64 {
    let s = m[k]
        .as_str()
        .unwrap_or_else(|| panic!("{k} is not a string"));
    assert!(is_decimal(s), "{k} = {s}");
    s.parse().expect("parses")
}

fn nums(m: &Map<String, Value>, k: &str) -> Vec<f64> {
    m[k].as_array()
        .unwrap_or_else(|| panic!("{k} is not an array"))
        .iter()
        .map(|v| {
            let s = v.as_str().expect("a string");
            assert!(is_decimal(s), "{k}: {s}");
            s.parse().expect("parses")
        })
        .collect()
}

fn text(m: &Map<String, Value>, k: &str) -> String {
    m[k].as_str().unwrap_or_default().to_string()
}

#[test]
fn fixed_point_keys_and_closed_forms() {
    // Queues, d = 2, λ = 0.9: s_i = 0.9^(2^i − 1) (Mitzenmacher 1996; Vvedenskaya et al.
    // 1996), exact decimals: 0.9, 0.729, 0.4782969, 0.205891132094649.
    let m = json(&[
        "fixed-point",
        "--model",
        "queues",
        "--lambda",
        "0.9",
        "--d",
        "2",
        "--digits",
        "20",
    ]);
    has_keys(
        &m,
        &[
            "model",
            "lambda",
            "d",
            "buffer",
            "occupancy",
            "mean_tasks",
            "mean_sojourn",
            "blocking",
            "digits",
        ],
    );
    let occ: Vec<String> = m["occupancy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(occ[0], "9.0000000000000000000e-1");
    assert_eq!(occ[1], "7.2900000000000000000e-1");
    assert_eq!(occ[2], "4.7829690000000000000e-1");
    assert_eq!(occ[3], "2.0589113209464900000e-1");
    assert_eq!(m["digits"], 20);
    assert_eq!(text(&m, "buffer"), "inf");
    // Little: mean sojourn = mean tasks / λ.
    assert!((num(&m, "mean_sojourn") - num(&m, "mean_tasks") / 0.9).abs() < 1e-15);
    // Pools, d → ∞ (a growing formula), λ = 2.5: min{1, max{0, λ − i + 1}} = (1, 1, 0.5),
    // sojourn exactly 1; the note says how the formula was read.
    let p = json(&[
        "fixed-point",
        "--model",
        "pools",
        "--lambda",
        "2.5",
        "--d",
        "log(N)",
    ]);
    assert_eq!(nums(&p, "occupancy"), vec![1.0, 1.0, 0.5]);
    assert_eq!(num(&p, "mean_sojourn"), 1.0);
    assert!(p["notes"].to_string().contains("JSQ's fluid limit"));
    // Pools, d = 2, B = 4: blocking is q_B^d, the probability that both sampled pools are
    // full — not the fraction q_B.
    let b = json(&[
        "fixed-point",
        "--model",
        "pools",
        "--lambda",
        "2.5",
        "--d",
        "2",
        "--buffer",
        "4",
        "--digits",
        "15",
    ]);
    let q = nums(&b, "occupancy");
    assert_eq!(q.len(), 4);
    let blocking = num(&b, "blocking");
    assert!(
        (blocking - q[3] * q[3]).abs() < 1e-14 * blocking,
        "{blocking} vs {}",
        q[3]
    );
    assert!(b["notes"]
        .to_string()
        .contains("all d = 2 sampled servers are full"));
}

#[test]
fn fluid_keys_and_a_closed_form_trajectory() {
    // JSQ's fluid limit for queues from empty at λ = 0.5: only level 1 fills,
    // dq_1/dt = λ − q_1, so q_1(t) = λ(1 − e^(−t)) (derived in lb::fluid's tests).
    let m = json(&[
        "fluid", "--model", "queues", "--lambda", "0.5", "--times", "0,1,2.5",
    ]);
    has_keys(&m, &["times", "occupancy", "tolerance"]);
    let rows = m["occupancy"].as_array().expect("rows");
    assert_eq!(rows.len(), 3);
    assert!(rows[0].as_array().unwrap().is_empty(), "empty at t = 0");
    for (row, t) in rows[1..].iter().zip([1.0f64, 2.5]) {
        let q1: f64 = row[0].as_str().unwrap().parse().unwrap();
        let want = 0.5 * (1.0 - (-t).exp());
        assert!((q1 - want).abs() < 1e-9, "t {t}: {q1} vs {want}");
    }
    assert!(num(&m, "error_estimate") < 1e-9);
    // A start with levels that are not a tail is bad input.
    expect_bad(
        &[
            "jsq", "fluid", "--model", "pools", "--lambda", "2", "--init", "0.2,0.5", "--times",
            "1",
        ],
        &[],
    );
}

#[test]
fn exact_keys_and_one_server_closed_forms() {
    // N = 1, d = 1 is the M/M/1 queue: q_i = λ^i, mean tasks λ/(1 − λ) = 1 at λ = 1/2
    // (the truncated chain's error is below 1e-10).
    let m = json(&[
        "exact",
        "--model",
        "queues",
        "--servers",
        "1",
        "--lambda",
        "0.5",
        "--d",
        "1",
    ]);
    has_keys(
        &m,
        &[
            "mean_tasks",
            "occupancy",
            "blocking",
            "states",
            "truncation",
        ],
    );
    assert!((num(&m, "mean_tasks") - 1.0).abs() < 1e-9);
    for (i, q) in nums(&m, "occupancy").iter().take(10).enumerate() {
        assert!((q - 0.5f64.powi(i as i32 + 1)).abs() < 1e-9, "q_{}", i + 1);
    }
    // M/M/1/2: P(n) ∝ λ^n, blocking P(2) = λ²/(1 + λ + λ²) = 1/7 at λ = 1/2.
    let b = json(&[
        "exact",
        "--model",
        "queues",
        "--servers",
        "1",
        "--lambda",
        "0.5",
        "--d",
        "1",
        "--buffer",
        "2",
    ]);
    assert!((num(&b, "blocking") - 1.0 / 7.0).abs() < 1e-12);
    assert_eq!(b["states"], 3);
    // Pools with d = 1 and no capacity: each pool is M/M/∞ with load λ (Poisson tail),
    // q_1 = 1 − e^(−λ) at λ = 1.
    let p = json(&[
        "exact",
        "--model",
        "pools",
        "--servers",
        "2",
        "--lambda",
        "1",
        "--d",
        "1",
    ]);
    assert!((nums(&p, "occupancy")[0] - (1.0 - (-1.0f64).exp())).abs() < 1e-9);
    // d as a formula at N, rounded up: sqrt(N) at N = 3 is 1.73…, d_used = 2.
    let f = json(&[
        "exact",
        "--model",
        "queues",
        "--servers",
        "3",
        "--lambda",
        "0.5",
        "--d",
        "sqrt(N)",
    ]);
    assert_eq!(f["d_used"], 2);
    assert!(f["notes"].to_string().contains("rounded up to d = 2"));
}

/// The keys `jsq simulate` must print, in order.
const SIM_KEYS: &[&str] = &[
    "mean_tasks",
    "mean_tasks_half_width",
    "occupancy",
    "occupancy_half_width",
    "blocking",
    "blocking_half_width",
    "d_used",
    "samples_per_arrival",
    "events",
    "events_per_second",
];

#[test]
fn simulate_keys_formulas_and_thread_independence() {
    let args = [
        "simulate",
        "--model",
        "queues",
        "--servers",
        "1000",
        "--lambda",
        "0.9",
        "--d",
        "sqrt(N)*log(N)",
        "--time",
        "20",
        "--replications",
        "4",
        "--seed",
        "3",
    ];
    let mut one = json(&[&args[..], &["--threads", "1"]].concat());
    let mut two = json(&[&args[..], &["--threads", "2"]].concat());
    has_keys(&one, SIM_KEYS);
    // √1000 · ln 1000 = 218.44…, rounded up.
    assert_eq!(one["d_used"], 219);
    assert_eq!(one["samples_per_arrival"], 219);
    assert!(num(&one, "events_per_second") > 0.0);
    assert!(one["notes"].to_string().contains("rounded up to d = 219"));
    let hw = nums(&one, "occupancy_half_width");
    assert_eq!(hw.len(), nums(&one, "occupancy").len());
    // Busy servers carry the load: q_1 = λ in stationarity (4 half-widths).
    let q1 = nums(&one, "occupancy")[0];
    assert!((q1 - 0.9).abs() <= 4.0 * hw[0], "{q1} ± {}", hw[0]);
    one.remove("events_per_second");
    two.remove("events_per_second");
    assert_eq!(one, two, "the numbers do not depend on --threads");
    // A formula larger than N is capped, and the output says so.
    let c = json(&[
        "simulate",
        "--model",
        "pools",
        "--servers",
        "50",
        "--lambda",
        "1.5",
        "--d",
        "2*N",
        "--time",
        "5",
        "--replications",
        "2",
    ]);
    assert_eq!(c["d_used"], 50);
    assert!(c["notes"].to_string().contains("capped at d = N"));
}

#[test]
fn simulate_in_the_halfin_whitt_regime() {
    // λ(N) = N − β√N at N = 400, β = 1: λ = 1 − 1/20 = 0.95 per server; the mean of
    // (N − Q_1)/√N is β for every policy (4 half-widths).
    let m = json(&[
        "simulate",
        "--model",
        "queues",
        "--servers",
        "400",
        "--halfin-whitt",
        "1",
        "--d",
        "2",
        "--time",
        "200",
        "--replications",
        "4",
    ]);
    has_keys(&m, SIM_KEYS);
    for k in [
        "scaled_idle",
        "scaled_idle_half_width",
        "scaled_q2",
        "scaled_q2_half_width",
        "scaled_occupancy",
        "scaled_occupancy_half_width",
    ] {
        assert!(m.contains_key(k), "{k}");
    }
    assert_eq!(text(&m, "lambda"), "9.5e-1");
    let (idle, hw) = (num(&m, "scaled_idle"), num(&m, "scaled_idle_half_width"));
    assert!((idle - 1.0).abs() <= 4.0 * hw, "{idle} ± {hw}");
    let scaled = nums(&m, "scaled_occupancy");
    assert_eq!(scaled[0], idle);
    assert_eq!(scaled[1], num(&m, "scaled_q2"));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        // λ ≥ 1 for unbuffered queues
        &["fixed-point", "--model", "queues", "--lambda", "1.2"][..],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "10",
            "--lambda",
            "1",
            "--d",
            "2",
        ],
        // d not positive (a number above N is capped, not refused), a formula it cannot
        // read
        &[
            "exact",
            "--model",
            "queues",
            "--servers",
            "3",
            "--lambda",
            "0.5",
            "--d",
            "1-1",
        ],
        &[
            "fixed-point",
            "--model",
            "queues",
            "--lambda",
            "0.5",
            "--d",
            "0",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "10",
            "--lambda",
            "0.5",
            "--d",
            "sqrt(N",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "10",
            "--lambda",
            "0.5",
            "--d",
            "foo(N)",
        ],
        // N < 1, B < 1
        &[
            "simulate",
            "--model",
            "pools",
            "--servers",
            "0",
            "--lambda",
            "0.5",
            "--d",
            "1",
        ],
        &[
            "fixed-point",
            "--model",
            "pools",
            "--lambda",
            "2",
            "--buffer",
            "0",
        ],
        &[
            "exact",
            "--model",
            "pools",
            "--servers",
            "2",
            "--lambda",
            "2",
            "--d",
            "1",
            "--buffer",
            "-1",
        ],
        // λ and β together, β ≥ √N, no rate
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--lambda",
            "0.5",
            "--halfin-whitt",
            "1",
            "--d",
            "2",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--halfin-whitt",
            "2",
            "--d",
            "2",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--d",
            "2",
        ],
        // times, replications, threads
        &[
            "fluid", "--model", "queues", "--lambda", "0.5", "--times", "2,1",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--lambda",
            "0.5",
            "--d",
            "2",
            "--replications",
            "1",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--lambda",
            "0.5",
            "--d",
            "2",
            "--threads",
            "0",
        ],
        &[
            "simulate",
            "--model",
            "queues",
            "--servers",
            "4",
            "--lambda",
            "0.5",
            "--d",
            "2",
            "--time",
            "-1",
        ],
        // an exact chain too large
        &[
            "exact",
            "--model",
            "queues",
            "--servers",
            "200",
            "--lambda",
            "0.9",
            "--d",
            "2",
        ],
    ] {
        expect_bad(&[&["jsq"][..], args].concat(), &[]);
    }
}

#[test]
fn d_numbers_and_formulas_are_rounded_up_and_capped_alike() {
    // One rule for --d (README, "jsq"): a number or a formula is rounded up and capped at
    // N, and the record says so. N = 1: the only system is M/M/1, whose mean number in
    // system is λ/(1 − λ) = 1 at λ = 1/2 (closed form; the chain certifies 14 digits).
    let exact = |d: &str| {
        json(&[
            "exact",
            "--model",
            "queues",
            "--servers",
            "1",
            "--lambda",
            "0.5",
            "--d",
            d,
        ])
    };
    let (ten, sci) = (exact("10"), exact("1e1"));
    for m in [&ten, &sci] {
        assert_eq!(m["d_used"], 1);
        assert!((num(m, "mean_tasks") - 1.0).abs() < 1e-12);
        assert!(
            m["notes"].to_string().contains("capped at d = N = 1"),
            "{}",
            m["notes"]
        );
    }
    assert_eq!(ten["mean_tasks"], sci["mean_tasks"]);
    // log(N) at N = 2 is 0.693…: rounded up to 1, not refused.
    let l = json(&[
        "exact",
        "--model",
        "queues",
        "--servers",
        "2",
        "--lambda",
        "0.5",
        "--d",
        "log(N)",
    ]);
    assert_eq!(l["d_used"], 1);
    assert!(
        l["notes"].to_string().contains("rounded up to d = 1"),
        "{}",
        l["notes"]
    );
    // N = 2, d = 1 is two independent M/M/1 queues at λ = 1/2: 1 task per server.
    assert!((num(&l, "mean_tasks") - 1.0).abs() < 1e-12);
    // A number above N in a simulation is capped too (d = N: JSQ).
    let s = json(&[
        "simulate",
        "--model",
        "pools",
        "--servers",
        "5",
        "--lambda",
        "1.5",
        "--d",
        "9",
        "--time",
        "50",
        "--replications",
        "2",
    ]);
    assert_eq!(s["d_used"], 5);
    assert!(s["notes"].to_string().contains("capped at d = N = 5"));
    // d must still be positive: 0 and a formula that is 0 at N are bad input.
    for d in ["0", "log(N)"] {
        expect_bad(
            &[
                "jsq",
                "exact",
                "--model",
                "queues",
                "--servers",
                "1",
                "--lambda",
                "0.5",
                "--d",
                d,
            ],
            &["d"],
        );
    }
}

#[test]
fn simulate_reports_the_distance_to_both_fixed_points() {
    // Power-of-2 on N = 2000 queues at λ = 0.9: its own mean-field fixed point is
    // q_i = λ^(2^i − 1) (Mitzenmacher 2001; Vvedenskaya et al. 1996), JSQ's is q_1 = λ,
    // q_i = 0 for i ≥ 2. Their ℓ1 distance is Σ_{i≥2} λ^(2^i − 1) (computed here, not read
    // from the tool). By the triangle inequality the time-averaged distance to JSQ's point
    // is within the distance to the own point of that constant (plus 4 half-widths each).
    let lambda: f64 = 0.9;
    let between: f64 = (2..20).map(|i| lambda.powi((1 << i) - 1)).sum();
    let m = json(&[
        "simulate",
        "--model",
        "queues",
        "--servers",
        "2000",
        "--lambda",
        "0.9",
        "--d",
        "2",
        "--time",
        "50",
        "--replications",
        "4",
        "--seed",
        "5",
    ]);
    let (jsq, jsq_hw) = (num(&m, "distance"), num(&m, "distance_half_width"));
    let (own, own_hw) = (
        num(&m, "distance_own_fixed_point"),
        num(&m, "distance_own_fixed_point_half_width"),
    );
    // Fluctuations of the occupancy are O(1/√N) per level: a few hundredths at N = 2000.
    assert!(own < 0.1, "distance to power-of-2's fixed point {own}");
    assert!(
        (jsq - between).abs() <= own + 4.0 * (own_hw + jsq_hw),
        "distance to JSQ's fixed point {jsq} vs {between} ± {own}"
    );
    // d = N is JSQ: both references are JSQ's fixed point, so the two distances agree.
    let j = json(&[
        "simulate",
        "--model",
        "pools",
        "--servers",
        "50",
        "--lambda",
        "1.5",
        "--d",
        "inf",
        "--time",
        "5",
        "--replications",
        "2",
    ]);
    assert_eq!(j["distance"], j["distance_own_fixed_point"]);
}

/// The keys of a proven record less the ends `K_lo`, `K_hi` and `proven_digits`: those of
/// the certified record it extends (the contract's keys stay as they are, issue 21).
fn contract_keys(m: &Map<String, Value>) -> Vec<String> {
    m.keys()
        .filter(|k| !k.ends_with("_lo") && !k.ends_with("_hi") && *k != "proven_digits")
        .cloned()
        .collect()
}

/// A decimal string of a JSON record as a Float at `bits`.
fn float_of(v: &Value, bits: u32) -> Float {
    let s = v.as_str().expect("a decimal string");
    Float::with_val(bits, Float::parse(s).expect("a decimal"))
}

/// `taskassign jsq fixed-point ARGS --format json`, the arguments as one line.
fn fixed_point(args: &str) -> Map<String, Value> {
    let mut a = vec!["fixed-point"];
    a.extend(args.split_whitespace());
    json(&a)
}

/// The enclosure [K_lo, K_hi] of key K of a proven record, at `bits`.
fn ends(m: &Map<String, Value>, k: &str, bits: u32) -> (Float, Float) {
    (
        float_of(&m[&format!("{k}_lo")], bits),
        float_of(&m[&format!("{k}_hi")], bits),
    )
}

#[test]
fn rigorous_fixed_points_enclose_the_closed_forms_and_the_certified_values() {
    use rug::ops::Pow;
    let bits = 400;
    // Power-of-d queues (issue 21, item 6): s_i = λ^((d^i − 1)/(d − 1)) and the mean
    // Σ s_i, computed here from the exponent form at 400 bits (the command runs the level
    // recursion s_i = λ s_(i−1)^d on intervals; the levels past the 12th sum to less than
    // 1e-370, far below a unit of the 23rd digit the ends are printed to).
    let queues = "--model queues --d 2 --lambda 0.9 --digits 20";
    let m = fixed_point(&format!("{queues} --rigorous"));
    assert_eq!(m["proven_digits"], 20);
    let lam = Float::with_val(bits, Float::parse("0.9").unwrap());
    let mut mean = Float::with_val(bits, 0);
    for i in 1..=12u32 {
        let e = 2u64.pow(i) - 1;
        let s = Float::with_val(bits, (&lam).pow(e));
        mean += &s;
        if let (Some(lo), Some(hi)) = (
            m["occupancy_lo"].as_array().unwrap().get(i as usize - 1),
            m["occupancy_hi"].as_array().unwrap().get(i as usize - 1),
        ) {
            assert!(
                float_of(lo, bits) <= s && s <= float_of(hi, bits),
                "level {i}"
            );
        }
    }
    let (lo, hi) = ends(&m, "mean_tasks", bits);
    assert!(lo <= mean && mean <= hi, "mean {mean} not in [{lo}, {hi}]");
    // The ends a unit of their 23rd digit apart at most (20 asked, 3 more printed).
    assert!(Float::with_val(bits, &hi - &lo) <= Float::with_val(bits, &mean * 1e-21));
    // Its printed digits are the certified command's (two precisions, another route), and
    // its keys the certified record's, in order, with the ends and proven_digits added.
    let c = fixed_point(queues);
    for k in ["mean_tasks", "mean_sojourn", "occupancy"] {
        assert_eq!(m[k], c[k], "{k}");
    }
    assert_eq!(contract_keys(&m), c.keys().cloned().collect::<Vec<_>>());

    // A finite capacity: the root isolated on intervals contains the certified root at 40
    // digits (bracketed in MPFR at two precisions); the enclosures satisfy blocking =
    // q_b^d (d = 2, b = 6) and Little's law mean_sojourn·λ(1 − blocking) = mean_tasks.
    let pools = "--model pools --d 2 --lambda 3.5 --buffer 6 --digits";
    let m = fixed_point(&format!("{pools} 15 --rigorous"));
    let c = fixed_point(&format!("{pools} 40"));
    assert_eq!(m["proven_digits"], 15);
    for k in ["mean_tasks", "mean_sojourn", "blocking"] {
        let x = float_of(&c[k], bits);
        let (lo, hi) = ends(&m, k, bits);
        assert!(lo <= x && x <= hi, "{k}: {x} not in [{lo}, {hi}]");
    }
    let top = (
        float_of(&m["occupancy_lo"].as_array().unwrap()[5], bits),
        float_of(&m["occupancy_hi"].as_array().unwrap()[5], bits),
    );
    let (b_lo, b_hi) = ends(&m, "blocking", bits);
    assert!(Float::with_val(bits, top.0.square_ref()) <= b_hi);
    assert!(b_lo <= Float::with_val(bits, top.1.square_ref()));
    let (t_lo, t_hi) = ends(&m, "mean_tasks", bits);
    let (s_lo, s_hi) = ends(&m, "mean_sojourn", bits);
    let accepted = |s: &Float, b: &Float| Float::with_val(bits, s * 3.5) * (1 - b.clone());
    assert!(accepted(&s_lo, &b_hi) <= t_hi && t_lo <= accepted(&s_hi, &b_lo));

    // JSQ's closed form (d = inf) for pools: (1, 1, 1, 1/2) at λ = 3.5, mean λ, exactly.
    let m = fixed_point("--model pools --lambda 3.5 --digits 15 --rigorous");
    assert_eq!(m["mean_tasks_lo"], "3.50000000000000000e0");
    assert_eq!(m["mean_tasks_hi"], "3.50000000000000000e0");
    assert_eq!(m["occupancy"].as_array().unwrap().len(), 4);

    // Pools without a buffer, d = 2, λ = 3.5 (from a finite capacity's enclosure, the
    // levels bounded by λ times its blocking):
    // * each level contains the certified 40-digit level (the MPFR route without a buffer,
    //   two precisions) and prints the certified 20 digits;
    // * the mean is λ exactly (Σ q_i = λ: the M/M/∞ count of tasks, any routing);
    // * the fixed-point equations λ(q_{i−1}² − q_i²) = i(q_i − q_{i+1}) (q_0 = 1) hold at
    //   the certified levels within the enclosures' widths (checked on intervals built from
    //   the ends, here in MPFR at 400 bits);
    // * each finite capacity's certified levels (B = 5, 6, 8, 40 digits) lie below the
    //   enclosure's upper ends and grow with B (the monotonicity the bound rests on).
    let free = "--model pools --d 2 --lambda 3.5 --digits";
    let m = fixed_point(&format!("{free} 20 --rigorous"));
    let c = fixed_point(&format!("{free} 40"));
    assert_eq!(m["proven_digits"], 20, "{m:?}");
    assert_eq!(m["mean_tasks_lo"], "3.5000000000000000000000e0");
    assert_eq!(m["mean_tasks_hi"], "3.5000000000000000000000e0");
    let lo = m["occupancy_lo"].as_array().unwrap();
    let hi = m["occupancy_hi"].as_array().unwrap();
    let cert = c["occupancy"].as_array().unwrap();
    for (i, (l, h)) in lo.iter().zip(hi).enumerate() {
        let x = float_of(&cert[i], bits);
        let (l, h) = (float_of(l, bits), float_of(h, bits));
        assert!(l <= x && x <= h, "level {}: {x} not in [{l}, {h}]", i + 1);
    }
    assert_eq!(
        m["occupancy"],
        fixed_point(&format!("{free} 20"))["occupancy"]
    );
    let level = |i: usize| -> Float {
        if i == 0 {
            Float::with_val(bits, 1)
        } else {
            cert.get(i - 1)
                .map_or(Float::with_val(bits, 0), |v| float_of(v, bits))
        }
    };
    for i in 1..cert.len() {
        let (a, q, b) = (level(i - 1), level(i), level(i + 1));
        let inflow =
            (Float::with_val(bits, a.square_ref()) - Float::with_val(bits, q.square_ref())) * 3.5;
        let outflow = Float::with_val(bits, &q - &b) * (i as u32);
        let r = Float::with_val(bits, inflow - outflow).abs().to_f64();
        assert!(r < 1e-36, "level {i}: the equation's residual {r:e}");
    }
    let mut below: Option<Vec<Float>> = None;
    for b in ["5", "6", "8"] {
        let f = fixed_point(&format!("{free} 40 --buffer {b}"));
        let levels: Vec<Float> = f["occupancy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| float_of(v, bits))
            .collect();
        for (i, q) in levels.iter().enumerate() {
            if let Some(h) = hi.get(i) {
                assert!(*q <= float_of(h, bits), "B = {b}, level {}", i + 1);
            }
            if let Some(prev) = below.as_ref().and_then(|p| p.get(i)) {
                assert!(
                    prev <= q,
                    "B = {b}, level {}: not above the smaller B's",
                    i + 1
                );
            }
        }
        below = Some(levels);
    }

    // JSQ's own fixed point (d = inf) with a buffer, enclosed by its closed forms since
    // 2026-12-07 (`lb::fixed_point`'s module docs): queues at λ = 1.5 above capacity fill
    // every level up to b = 3 and discard 1 − 1/λ = 1/3, so the mean sojourn is
    // 3/(1.5 · 2/3) = 3; the printed digits are the certified command's.
    let full = "--model queues --d inf --lambda 1.5 --buffer 3 --digits 20";
    let m = fixed_point(&format!("{full} --rigorous"));
    assert_eq!(m["proven_digits"], 20);
    let third = Float::with_val(bits, 1) / 3u32;
    let (lo, hi) = ends(&m, "blocking", bits);
    assert!(lo <= third && third <= hi, "blocking [{lo}, {hi}]");
    let (lo, hi) = ends(&m, "mean_sojourn", bits);
    assert!(lo <= 3 && hi >= 3, "mean sojourn [{lo}, {hi}]");
    let c = fixed_point(full);
    for k in ["mean_tasks", "mean_sojourn", "blocking", "occupancy"] {
        assert_eq!(m[k], c[k], "{k}");
    }
    // At λ = 1 it has no unique fixed point: one line, exit 2, as without --rigorous.
    expect_bad(
        &[
            "jsq",
            "fixed-point",
            "--model",
            "queues",
            "--d",
            "inf",
            "--lambda",
            "1",
            "--buffer",
            "5",
            "--rigorous",
        ],
        &["not unique"],
    );
}

/// `jsq exact --max-states`: one rule with `redundancy exact`. A limit that holds no first
/// truncation is a numerical failure (exit 3: the input is valid, the computation did not
/// get through), one line naming the limit and the way out; a limit between the first
/// truncation and the one the digits need prints the largest truncation that fits, its
/// digits proven, and a note saying so.
#[test]
fn exact_state_limits_fail_like_redundancy_exact_or_print_the_largest_truncation() {
    let base = "jsq exact --model queues --servers 4 --d 2 --lambda 0.9 --digits 12";
    // Its first truncation holds 3 410 states (the message of 2 000, 2026-12-07); a buffer
    // of 60 at 5 servers has C(65, 5) = 8 259 888 states.
    for line in [
        format!("{base} --max-states 2000"),
        "jsq exact --model queues --servers 5 --d 2 --lambda 0.9 --buffer 60 --max-states 100000"
            .to_string(),
    ] {
        let r = common::run(line.split_whitespace().collect::<Vec<_>>());
        assert_eq!(r.code, 3, "{line}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{line}: {}", r.stdout);
        assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
        for needle in ["numerical failure", "raise --max-states", "jsq simulate"] {
            assert!(r.stderr.contains(needle), "no '{needle}' in: {}", r.stderr);
        }
    }
    // Source of the value: the same chain under the default limit (12 digits proven); the
    // limited run's enclosure [value ± (truncation_bound + solve_error)] must hold it.
    let json = |line: &str| -> serde_json::Map<String, serde_json::Value> {
        let mut a: Vec<&str> = line.split_whitespace().collect();
        a.extend(["--format", "json"]);
        common::run_json(&a)
    };
    let full = json(base);
    let cut = json(&format!("{base} --max-states 20000"));
    assert_eq!(full["digits"], 12);
    let digits = cut["digits"].as_u64().unwrap();
    assert!((1..12).contains(&digits), "digits {digits}");
    assert!(cut["states"].as_u64().unwrap() <= 20_000);
    let notes = cut["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("state limit")),
        "{notes:?}"
    );
    let num = |o: &serde_json::Map<String, serde_json::Value>, k: &str| -> f64 {
        o[k].as_str().unwrap().parse().unwrap()
    };
    let err = num(&cut, "truncation_bound") + num(&cut, "solve_error");
    let gap = (num(&cut, "mean_tasks") - num(&full, "mean_tasks")).abs();
    // The printed value is the enclosure's rounding to its digits: half a unit of the last
    // printed digit on top of the error.
    let unit = 10f64.powi(num(&cut, "mean_tasks").abs().log10().floor() as i32 - digits as i32 + 1);
    assert!(
        gap <= err + 0.5 * unit,
        "gap {gap:e}, error {err:e}, unit {unit:e}"
    );
}

/// The exact chain's solves split their kernels among rayon's threads
/// (`num::levels::par`); what they print does not depend on how many there are. N = 5,
/// d = 2, λ = 0.8 to 12 digits: a last truncation of about 192 000 states whose largest
/// breadth-first layers (over 2 048 states) are split among the threads; the whole JSON
/// output on one thread and on three must be the same text.
#[test]
fn the_exact_chain_prints_the_same_on_any_number_of_threads() {
    let args = [
        "jsq",
        "exact",
        "--model",
        "queues",
        "--servers",
        "5",
        "--d",
        "2",
        "--lambda",
        "0.8",
        "--digits",
        "12",
        "--format",
        "json",
    ];
    let out: Vec<String> = ["1", "3"]
        .iter()
        .map(|t| {
            let o = common::taskassign()
                .args(args)
                .env("RAYON_NUM_THREADS", t)
                .output()
                .expect("the binary runs");
            assert!(o.status.success(), "{t} threads: {o:?}");
            String::from_utf8(o.stdout).expect("UTF-8")
        })
        .collect();
    assert!(out[0].contains("\"digits\":12"), "{}", out[0]);
    assert_eq!(out[0], out[1]);
}
