//! Cells of declared paper tables against closed forms derived independently of the code
//! that computed them. The tables are the checked-in `data/claims/*.table-*.csv` (kept
//! current with the code by `tables --check` in `make test`, as `latex_tables` relies on).
//! A cell `x ± e` (a limit with its error estimate, the estimate rounded to the error's
//! digit) must lie within `e` plus half a unit of its last printed digit of the closed form;
//! a plain cell `x` (a value rounded to the table's digits) within half a unit of its last
//! printed digit, plus the model error the closed form neglects where there is one.

mod common;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A table's CSV as (row label, [(column header, cell)]), the header row first read off.
fn table(claim: &str, label: &str) -> Vec<(String, Vec<(String, String)>)> {
    let p = root().join(format!("data/claims/{claim}.table-{label}.csv"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = split_csv(lines.next().expect("a header row"));
    lines
        .map(|l| {
            let cells = split_csv(l);
            assert_eq!(cells.len(), header.len(), "{}: {l}", p.display());
            let cols = header[1..]
                .iter()
                .cloned()
                .zip(cells[1..].iter().cloned())
                .collect();
            (cells[0].clone(), cols)
        })
        .collect()
}

/// One CSV line's fields (double-quoted fields may hold commas).
fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// Half a unit of the last printed digit of a decimal such as `0.499`, `5.00000e24`.
fn half_unit(s: &str) -> f64 {
    let (mant, exp) = match s.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().expect("exponent")),
        None => (s, 0),
    };
    let decimals = mant.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    0.5 * 10f64.powi(exp - decimals)
}

/// A cell as (value, allowed distance from the truth from its printing and error):
/// `x`, `x ± e` or `(x ± e)eN`.
fn cell(s: &str) -> (f64, f64) {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('(') {
        let (body, exp) = inner.split_once(")e").expect("(x ± e)eN");
        let (x, e) = body.split_once(" ± ").expect("x ± e");
        let scale = format!("e{exp}");
        let xs = format!("{x}{scale}");
        let es = format!("{e}{scale}");
        let v: f64 = xs.parse().expect("estimate");
        let err: f64 = es.parse().expect("error");
        return (v, err + half_unit(&xs));
    }
    match s.split_once(" ± ") {
        Some((x, e)) => (
            x.parse().expect("estimate"),
            e.parse::<f64>().expect("error") + half_unit(x),
        ),
        None => (s.parse().expect("value"), half_unit(s)),
    }
}

/// A table cell against a closed form, within the cell's own rounding plus `extra`
/// ([`common::assert_close_f64`]).
fn assert_close(what: &str, s: &str, truth: f64, extra: f64) {
    let (v, tol) = cell(s);
    common::assert_close_f64(&format!("{what}: table cell {s}"), v, truth, tol + extra);
}

/// Light traffic, BP(1, p, 1), h hosts: TAGS's optimum uses one host, E[W] = lambda E[X^2]/2;
/// SITA-E's cutoffs s_i = p^(i/h) (equal loads: the load of [a, b] is proportional to
/// ln(b/a)) give E[W] = lambda/2 sum_i P(host i) E[X^2; host i] ~ lambda/2 h p^(1/h)
/// (P(host i) ~ 1/s_(i-1), E[X^2; host i] ~ s_i, with the density x^-2). So
/// R ~ p^(1-1/h)/h and lim ln R / ln p = 1 - 1/h: 1/2, 2/3, 3/4.
#[test]
fn light_traffic_exponent_is_one_minus_one_over_h() {
    let rows = table("tags-sita-e-light-traffic", "exponent");
    assert_eq!(rows.len(), 3, "h = 2, 3, 4");
    for (h, cols) in &rows {
        let h: f64 = h.parse().expect("h");
        assert_close(&format!("h = {h}"), &cols[0].1, 1.0 - 1.0 / h, 0.0);
    }
}

/// Two hosts, BP(1, p, 1), lambda = c/p (so the load c ln p / p -> 0): with the second host
/// idle TAGS waits lambda E[X^2]/2 = lambda/2 c_n (p - 1), c_n = 1/(1 - 1/p); SITA with
/// cutoff s waits lambda/2 c_n^2 f(s), f(s) = (1 - 1/s)(s - 1) + (1/s - 1/p)(p - s)
/// = s (1 + 1/p) + (p + 1)/s - 4, least at s = sqrt(p): f = 2 sqrt(p) + 2/sqrt(p) - 4. The
/// ratio is (p - 1)(1 - 1/p) / f (about sqrt(p)/2, exponent 1/2) up to the factors
/// 1/(1 - rho_i), i.e. a relative error of at most 2 rho = 2 c c_n ln p / p (below 1e-8 at
/// p >= 1e10; the rows p <= 1e6, where it is 1e-2 to 1e-5, are left out).
#[test]
fn two_host_ratio_is_sqrt_p_over_two_in_the_low_load_limit() {
    let rows = table("tags-sita-unbounded-two-hosts", "ratio");
    let mut n = 0;
    for (p, cols) in &rows {
        let p: f64 = p.parse().expect("p");
        if p < 1e10 {
            continue;
        }
        let f = 2.0 * p.sqrt() + 2.0 / p.sqrt() - 4.0;
        let ratio = (p - 1.0) * (1.0 - 1.0 / p) / f;
        for (col, s) in cols {
            let c: f64 = col.trim_start_matches("c=").parse().expect("c");
            let rho = c / (1.0 - 1.0 / p) * p.ln() / p;
            assert_close(&format!("p = {p:e}, {col}"), s, ratio, 2.0 * rho * ratio);
            n += 1;
        }
    }
    assert_eq!(n, 9, "p = 1e10, 1e20, 1e50 by c = 0.25, 0.5, 0.9");
    for (c, cols) in &table("tags-sita-unbounded-two-hosts", "exponent") {
        assert_close(&format!("exponent at c = {c}"), &cols[0].1, 0.5, 0.0);
    }
}

/// The limit as p -> inf of rho*(BP(1, p, alpha), h): for alpha > 1, BP(1, p, alpha) tends
/// to Pareto(1, alpha), whose threshold is alpha/(alpha - 1) (1 - alpha^-h) (BDS20's closed
/// form, also tabulated by tags-threshold-families); at alpha = 1 that expression's limit
/// as alpha -> 1 is h. (For alpha < 1 there is no such form; those rows are not tested.)
#[test]
fn threshold_limits_match_the_pareto_closed_form() {
    let rows = table("tags-most-stable-alpha-1", "limits");
    let mut n = 0;
    for (alpha, cols) in &rows {
        let a: f64 = alpha.parse().expect("alpha");
        if a < 1.0 {
            continue;
        }
        for (col, s) in cols {
            let h: f64 = col.trim_start_matches("h=").parse().expect("h");
            let truth = if a == 1.0 {
                h
            } else {
                a / (a - 1.0) * (1.0 - a.powf(-h))
            };
            assert_close(&format!("alpha = {alpha}, {col}"), s, truth, 0.0);
            n += 1;
        }
    }
    assert_eq!(n, 9, "alpha = 1, 1.01, 1.1 by h = 2, 3, 5");
}

/// SITA's normalised waiting E[W]/E[X] at h = 2, rho = 0.5: for BP(1, p, 1) the optimal
/// cutoff is near sqrt(p) and both hosts wait about lambda sqrt(p) with lambda ~ rho/ln p
/// and E[X] ~ ln p, so E[W]/E[X] ~ sqrt(p)/(ln p)^2 and the exponent is 1/2; the uniform
/// distribution on [1, p] is p U(0, 1) up to O(1/p), scale-free, so its exponent is 0.
#[test]
fn sita_growth_exponents_are_one_half_at_alpha_1_and_zero_for_the_uniform() {
    let rows = table("alpha-1-near-worst", "growth-exponent");
    let get = |d: &str| {
        rows.iter()
            .find(|(k, _)| k == d)
            .map(|(_, c)| c[0].1.clone())
            .unwrap_or_else(|| panic!("no row {d}"))
    };
    assert_close("BP alpha = 1", &get("bp:k=1,p={p},alpha=1"), 0.5, 0.0);
    assert_close("uniform", &get("uniform:a=1,b={p}"), 0.0, 0.0);
}

#[test]
fn cell_parsing() {
    // the printing rules of README's [[table]] section, read back
    assert_eq!(cell("0.499 ± 0.001"), (0.499, 0.001 + 0.0005));
    let (v, t) = cell("(0 ± 3)e-33");
    assert_eq!(v, 0.0);
    assert!((t - 3.5e-33).abs() < 1e-45);
    let (v, t) = cell("5.00000e24");
    assert_eq!(v, 5e24);
    assert!((t - 5e18).abs() < 1.0);
    assert_eq!(split_csv("\"a,b\",1 ± 2"), vec!["a,b", "1 ± 2"]);
}
