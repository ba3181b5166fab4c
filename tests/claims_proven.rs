//! `check --rigorous` (issue 21, item 7): a check decided by enclosures at every point is
//! PROVEN; a bound tightened past the enclosure is FAIL, not PROVEN; limits, simulations,
//! truncated chains and custom densities are never PROVEN, and the report says why; a
//! PROVEN value's enclosure contains the certified value.

mod common;
use common::run;
use rug::Float;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use taskassign::claims::compile;
use taskassign::claims::parse_expr as parse;
use taskassign::claims::registry;
use taskassign::claims::Cache;
use taskassign::claims::Proof;
use taskassign::claims::Scope;
use taskassign::dist::DistFactory;
use taskassign::dist::{CustomFactory, DensityFn};

/// Exit status when nothing fails / when a claim fails (ARCHITECTURE.md, "Errors and exit
/// statuses").
const EXIT_OK: i32 = 0;
const EXIT_FAIL: i32 = 1;

const HEAD: &str = r#"id = "t"
statement = "s"
reading = "r"

[source]
paper = "BDS20"
seed = "000_cd45625dab727f36.txt"
words = "w"
"#;

/// Writes a claim file and runs `check --format json` on it with `extra` arguments.
fn check_json(dir: &Path, name: &str, text: &str, extra: &[&str]) -> (i32, Value) {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write claim");
    let mut args: Vec<String> = vec!["check".into(), "--format".into(), "json".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(p.display().to_string());
    let r = run(&args);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {} stderr {}", r.stdout, r.stderr));
    (r.code, v)
}

/// The checks of the first claim of a JSON report.
fn checks(v: &Value) -> &Vec<Value> {
    v["claims"][0]["checks"].as_array().expect("checks")
}

/// The Pareto(1, α) threshold has the closed form ρ*(h) = α/(α−1)(1 − α^(−h)) (Bachmat,
/// Doncel & Sarfati 2020; ARCHITECTURE.md, "TAGS stability"). Its enclosure decides
/// `== closed form ± 1e-15` at every point: PROVEN (and the summary counts it apart). The
/// same claim without --rigorous stays PASS with today's keys only. Tightening the bound
/// past the enclosure (closed form − 1e-12, far outside an enclosure 10^-20 wide) is FAIL,
/// not PROVEN; tolerance 0 cannot be decided by any enclosure of non-zero width: not
/// PROVEN.
#[test]
fn threshold_claim_is_proven_and_tightened_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        r#"{HEAD}
[setup]
dist = "pareto:k=1,alpha={{alpha}}"
hosts = 2
digits = 20

[grid]
alpha = ["2", "3"]

[[check]]
name = "closed"
quantity = "threshold()"
relation = "=="
bound = "alpha / (alpha - 1) * (1 - alpha^(-hosts))"
tolerance = "1e-15"
"#
    );
    let (code, v) = check_json(dir.path(), "proven.toml", &text, &["--rigorous"]);
    assert_eq!(code, EXIT_OK, "{v}");
    let c = &checks(&v)[0];
    assert_eq!(c["verdict"], "PROVEN", "{c}");
    assert_eq!(c["proven"], true, "{c}");
    assert_eq!(v["claims"][0]["verdict"], "PROVEN");
    assert_eq!(v["summary"]["proven"], 1);
    assert_eq!(v["summary"]["proven_checks"], 1);
    assert_eq!(v["summary"]["pass"], 0, "PROVEN is counted apart from PASS");
    for j in c["comparisons"].as_array().expect("comparisons") {
        assert_eq!(j["verdict"], "PROVEN", "{j}");
    }
    // Without --rigorous: PASS, and no key of the rigorous run.
    let (code, v) = check_json(dir.path(), "plain.toml", &text, &[]);
    assert_eq!(code, EXIT_OK);
    let c = &checks(&v)[0];
    assert_eq!(c["verdict"], "PASS");
    assert!(c.get("proven").is_none() && v["summary"].get("proven").is_none());

    let tight = text
        .replace("relation = \"==\"", "relation = \"<=\"")
        .replace(
            "bound = \"alpha / (alpha - 1) * (1 - alpha^(-hosts))\"",
            "bound = \"alpha / (alpha - 1) * (1 - alpha^(-hosts)) - 1e-12\"",
        );
    let (code, v) = check_json(dir.path(), "tight.toml", &tight, &["--rigorous"]);
    assert_eq!(code, EXIT_FAIL, "{v}");
    let c = &checks(&v)[0];
    assert_eq!(c["verdict"], "FAIL", "{c}");
    assert_eq!(c["proven"], false);

    let zero = text.replace("tolerance = \"1e-15\"", "tolerance = \"0\"");
    let (_, v) = check_json(dir.path(), "zero.toml", &zero, &["--rigorous"]);
    let c = &checks(&v)[0];
    assert_ne!(c["verdict"], "PROVEN", "{c}");
    assert!(c["proof_note"].as_str().is_some_and(|s| !s.is_empty()));
}

/// Limits, simulations and truncated chains are never PROVEN, and each check says why; a
/// claim file may ask for the rigorous run itself (`rigorous = true`). Each relation
/// holds (PASS): E[X^0] = 1 exactly along p (a limit of a constant), a simulated mean
/// waiting time is ≥ 0, an exact chain's mean response is ≥ its mean size 1.
#[test]
fn limits_simulations_and_chains_are_never_proven() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limit = format!(
        r#"{HEAD}
[setup]
dist = "bp:k=1,p={{p}},alpha=1"
hosts = 2
load = "0.5"
digits = 15

[[check]]
name = "limit"
quantity = "moment(0)"
relation = "=="
bound = "1"
tolerance = "1e-10"
[check.limit]
var = "p"
values = ["1e10", "1e20", "1e40"]
transform = "1/ln"
degree = 1

[[check]]
name = "simulated"
quantity = "lwl_sim(jobs=20000, replications=4, seed=1, dist='exp:rate=1')"
relation = ">="
bound = "0"
[check.grid]
p = ["1e3"]
"#
    );
    let (code, v) = check_json(dir.path(), "limit.toml", &limit, &["--rigorous"]);
    assert_eq!(code, EXIT_OK, "{v}");
    let cs = checks(&v);
    assert_eq!(cs[0]["verdict"], "PASS", "{}", cs[0]);
    assert!(
        cs[0]["proof_note"]
            .as_str()
            .is_some_and(|s| s.contains("limit")),
        "{}",
        cs[0]
    );
    assert_ne!(cs[1]["verdict"], "PROVEN", "{}", cs[1]);
    assert!(
        cs[1]["proof_note"]
            .as_str()
            .is_some_and(|s| s.contains("simulated")),
        "{}",
        cs[1]
    );

    // Asked for by the file itself, without --rigorous on the command line.
    let chain = r#"id = "t"
statement = "s"
reading = "r"
rigorous = true

[source]
paper = "ARV22"
seed = "004_276e2e483bd89c20.txt"
words = "w"

[setup]
model = "redundancy"
classes = "1:0.3 1+2:0.5"
digits = 8

[[check]]
quantity = "red_exact(lrf-fcfs)"
relation = ">="
bound = "1"
"#;
    let (code, v) = check_json(dir.path(), "chain.toml", chain, &[]);
    assert_eq!(code, EXIT_OK, "{v}");
    let c = &checks(&v)[0];
    assert_eq!(c["verdict"], "PASS", "{c}");
    assert!(
        c["proof_note"]
            .as_str()
            .is_some_and(|s| s.contains("truncated")),
        "{c}"
    );
    assert_eq!(v["summary"]["proven_checks"], 0);
}

/// A custom density has no enclosure (its moments come from quadrature with an estimated
/// error): the library says so, and that is the reason a claim would show. (The claim
/// language names laws by spec strings only, so a claim cannot reach one.)
#[test]
fn custom_densities_have_no_enclosure() {
    let f: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), -x).exp());
    let c = CustomFactory::new("e", "0", "inf", f).expect("density");
    let e = c.enclose(128).expect_err("no enclosure");
    assert!(e.to_string().contains("no rigorous enclosure"), "{e}");
}

/// The enclosures a claim's quantities carry contain the certified values: each certified
/// value (the certifying precision's, which agrees with the working one to the claim's
/// 20 digits) lies within 10^-19 relative of its enclosure, and the enclosure is narrower
/// than 10^-18 relative. Values: BP(1, 10^6, 1) at h = 2, ρ = 0.5 (the BDS20 setting):
/// E[X], the TAGS threshold, Random's waiting, SITA at the cutoff 30, and the SITA
/// optimum (its enclosure [proven lower bound, value at the printed cutoffs]).
#[test]
fn enclosures_contain_the_certified_values() {
    let text = format!(
        r#"{HEAD}
[setup]
dist = "bp:k=1,p=1e6,alpha=1"
hosts = 2
load = "0.5"
digits = 20

[[check]]
quantity = "mean()"
relation = ">"
bound = "0"
"#
    );
    let claim = compile("t.toml", &text).expect("compiles");
    let cache = Cache::default();
    let scope = Scope::new(
        BTreeMap::new(),
        claim.system.as_ref(),
        registry(),
        &cache,
        claim.digits,
    )
    .with_rigour(true);
    let words = registry().words();
    for q in [
        "mean()",
        "threshold()",
        "eval(random).value",
        "eval(sita, cutoffs=\"30\").value",
        "opt(sita).value",
        "opt(sita).value / mean() + 1",
    ] {
        let e = parse(q, &words).expect("expr");
        let p = scope.eval(&e).expect("value");
        let Proof::Enclosed(i) = &p.proof else {
            panic!("{q}: not enclosed: {:?}", p.proof);
        };
        let bits = p.hi.prec();
        let slack = Float::with_val(bits, p.hi.abs_ref()) * Float::with_val(bits, 1e-19);
        let lo = Float::with_val(bits, i.lo() - &slack);
        let hi = Float::with_val(bits, i.hi() + &slack);
        assert!(
            lo <= p.hi && p.hi <= hi,
            "{q}: certified {} outside [{}, {}]",
            p.hi,
            i.lo(),
            i.hi()
        );
        assert!(i.rel_width() < 1e-18, "{q}: width {}", i.rel_width());
    }
}

/// `tags_stable()` under `--rigorous`: the greedy construction has stable cutoffs exactly
/// below λ*(F, h), so the point's enclosed λ against λ*'s enclosure decides it. Pareto(1, 2)
/// on 2 hosts has ρ* = 2/(2 − 1)·(1 − 2^−2) = 3/2 (the closed form of the first test): at
/// f = 0.999 and 1.001 of it, `tags_stable() − 1/2` has the sign of 1 − f, PROVEN; the
/// value 1 at f = 0.999 with the bound moved to 1 + 1e-12 is FAIL, not PROVEN; at f = 1
/// the two enclosures meet and nothing is proven (the note says so).
#[test]
fn tags_stable_is_decided_by_the_threshold_enclosure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let claim = |f: &str, check: &str| {
        format!(
            "{HEAD}\n[setup]\ndist = \"pareto:k=1,alpha=2\"\nhosts = 2\nload = \"f * threshold()\"\ndigits = 20\n\n[grid]\nf = [{f}]\n\n[[check]]\n{check}\n"
        )
    };
    let sign = "name = \"sign\"\nquantity = \"tags_stable() - 0.5\"\nrelation = \"sign_as\"\nbound = \"1 - f\"";
    let (code, v) = check_json(
        dir.path(),
        "sign.toml",
        &claim("\"0.999\", \"1.001\"", sign),
        &["--rigorous"],
    );
    assert_eq!(code, EXIT_OK, "{v}");
    assert_eq!(checks(&v)[0]["verdict"], "PROVEN", "{}", checks(&v)[0]);
    let tight =
        "name = \"tight\"\nquantity = \"tags_stable()\"\nrelation = \">=\"\nbound = \"1 + 1e-12\"";
    let (code, v) = check_json(
        dir.path(),
        "tight.toml",
        &claim("\"0.999\"", tight),
        &["--rigorous"],
    );
    assert_eq!(code, EXIT_FAIL, "{v}");
    assert_eq!(checks(&v)[0]["verdict"], "FAIL", "{}", checks(&v)[0]);
    assert_eq!(checks(&v)[0]["proven"], false, "{}", checks(&v)[0]);
    let edge = "name = \"edge\"\nquantity = \"tags_stable()\"\nrelation = \"<=\"\nbound = \"1\"";
    let (_, v) = check_json(
        dir.path(),
        "edge.toml",
        &claim("\"1\"", edge),
        &["--rigorous"],
    );
    let c = &checks(&v)[0];
    assert_ne!(c["verdict"], "PROVEN", "{c}");
    assert!(
        c["proof_note"]
            .as_str()
            .is_some_and(|s| s.contains("meets")),
        "{c}"
    );
}

/// The shipped `tags-stability-condition`'s point at the hyperexponential law
/// (bds19/tags-stability-condition.toml, h = 2, f = 0.5) under `--rigorous`: the value of
/// `tags_stable_search(80) - tags_stable()` is 0 at both precisions (both decide "stable"),
/// and the threshold's enclosure, computed beside it for `tags_stable()`'s proof, underflows
/// in MPFR on the way (an outward-rounded bound all the same). Before 2026-12-07 that flag
/// was charged to the value and its 0 refused ("a quantity underflowed MPFR's exponent
/// range"): INCONCLUSIVE and exit 3 where the run without `--rigorous` passes. It must pass.
#[test]
fn an_enclosure_that_underflows_does_not_refuse_the_value_beside_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{HEAD}\n[setup]\ndist = \"hyperexp:p=0.1,rate1=0.1,rate2=10\"\nhosts = 2\nload = \"0.5 * threshold()\"\ndigits = 20\n\n[[check]]\nname = \"same\"\nquantity = \"tags_stable_search(80) - tags_stable()\"\nrelation = \"==\"\nbound = \"0\"\n"
    );
    let (code, v) = check_json(dir.path(), "same.toml", &text, &["--rigorous"]);
    assert_eq!(code, EXIT_OK, "{v}");
    assert_eq!(checks(&v)[0]["verdict"], "PASS", "{}", checks(&v)[0]);
}

/// The claim head of a `jsq` or `redundancy` claim with `setup` and one check.
fn model_claim(setup: &str, check: &str) -> String {
    format!("{HEAD}\n[setup]\n{setup}\ndigits = 20\n\n[[check]]\n{check}\n")
}

/// Under `--rigorous`, `quantity == exact ± 1e-15` is PROVEN, and the bound moved past the
/// exact value by 1e-12 (`tight` is the relation and the moved bound, e.g. `<= {exact} -
/// 1e-12`) is FAIL with `proven: false`, not PROVEN.
fn assert_proven_and_tightened_fails(
    dir: &Path,
    setup: &str,
    quantity: &str,
    exact: &str,
    tight: &str,
) {
    let text = model_claim(
        setup,
        &format!("name = \"closed\"\nquantity = \"{quantity}\"\nrelation = \"==\"\nbound = \"{exact}\"\ntolerance = \"1e-15\""),
    );
    let (code, v) = check_json(dir, "closed.toml", &text, &["--rigorous"]);
    assert_eq!(code, EXIT_OK, "{v}");
    assert_eq!(checks(&v)[0]["verdict"], "PROVEN", "{}", checks(&v)[0]);
    let (relation, bound) = tight.split_once(' ').expect("a relation and a bound");
    let text = model_claim(
        setup,
        &format!("name = \"tight\"\nquantity = \"{quantity}\"\nrelation = \"{relation}\"\nbound = \"{bound}\""),
    );
    let (code, v) = check_json(dir, "tight.toml", &text, &["--rigorous"]);
    assert_eq!(code, EXIT_FAIL, "{v}");
    let c = &checks(&v)[0];
    assert_eq!(c["verdict"], "FAIL", "{c}");
    assert_eq!(c["proven"], false, "{c}");
}

/// Under `--rigorous`, the one check of `setup` and `check` is not PROVEN and its
/// `proof_note` contains `why`; returns the check.
fn assert_not_proven(dir: &Path, setup: &str, check: &str, why: &str) -> Value {
    let (_, v) = check_json(
        dir,
        "unproven.toml",
        &model_claim(setup, check),
        &["--rigorous"],
    );
    let c = checks(&v)[0].clone();
    assert_ne!(c["verdict"], "PROVEN", "{c}");
    assert!(
        c["proof_note"].as_str().is_some_and(|s| s.contains(why)),
        "{c}"
    );
    c
}

/// Issue 21, item 6 wired into `check --rigorous`. The power-of-d fixed point of queues
/// without a buffer at λ = 0.5, d = 2 is s_i = λ^(2^i − 1) (Mitzenmacher 1996;
/// Vvedenskaya, Dobrushin & Karpelevich 1996): its mean tasks Σ_i s_i is 0.5 + 0.125 +
/// 2^−7 + 2^−15 + 2^−31 + 2^−63 + 2^−127 + (terms below 2^−255), so `== that ± 1e-15` is
/// PROVEN by the enclosure of `lb::queues_power_of_d_enclosed`; the bound tightened by
/// 1e-12 (`<=`, far outside an enclosure ~10^−25 wide) is FAIL, not PROVEN.
#[test]
fn jsq_fixed_point_is_proven_and_tightened_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let setup = "model = \"jsq\"\nkind = \"queues\"\nlambda = \"0.5\"\nservers = 100\nd = \"2\"";
    let sum = "0.5 + 0.125 + 2^(-7) + 2^(-15) + 2^(-31) + 2^(-63) + 2^(-127)";
    let q = "jsq_fixed_point().mean_tasks";
    assert_proven_and_tightened_fails(dir.path(), setup, q, sum, &format!("<= {sum} - 1e-12"));
    // Pools without a buffer at fixed d, enclosed from a finite capacity since 2026-12-06:
    // their mean tasks is λ = 2.5 exactly (Σ q_i = λ, the M/M/∞ count of tasks whatever
    // the routing), PROVEN, and tightened by 1e-12 FAIL.
    let pools = "model = \"jsq\"\nkind = \"pools\"\nlambda = \"2.5\"\nservers = 100\nd = \"2\"";
    assert_proven_and_tightened_fails(dir.path(), pools, q, "2.5", "<= 2.5 - 1e-12");
    // JSQ's own fixed point (d = inf) with a buffer, by its closed forms since 2026-12-07
    // (`lb::fixed_point`'s module docs): queues at λ = 0.9 below capacity hold (λ, 0, …),
    // mean tasks 0.9; pools at λ = 7.5 with B = 5 are full and discard 1 − 5/7.5 = 1/3.
    // Each PROVEN, and tightened by 1e-12 FAIL. Before, both were never proven ("not
    // enclosed").
    let queues = "model = \"jsq\"\nkind = \"queues\"\nlambda = \"0.9\"\nservers = 100\nd = \"inf\"\nbuffer = 5";
    assert_proven_and_tightened_fails(dir.path(), queues, q, "0.9", "<= 0.9 - 1e-12");
    let full = "model = \"jsq\"\nkind = \"pools\"\nlambda = \"7.5\"\nservers = 100\nd = \"inf\"\nbuffer = 5";
    assert_proven_and_tightened_fails(
        dir.path(),
        full,
        "jsq_fixed_point().blocking",
        "1/3",
        "<= 1/3 - 1e-12",
    );
}

/// The jsq model's own variables are enclosed under `--rigorous`: `servers` (an integer) and
/// `lambda` (the decimal the model runs at). Little's law for the fixed point at λ = 0.5,
/// d = 2 (mean sojourn × λ = mean tasks, each side enclosed) and N·λ = 50 are PROVEN; the
/// same with N·λ tightened by 1e-12 is FAIL. Before, a check naming `servers` or `lambda`
/// was never proven ("the jsq model encloses no 'servers'"), and a simulation's check
/// that divides by it said so instead of naming the simulation.
#[test]
fn jsq_servers_and_lambda_are_enclosed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let setup = "model = \"jsq\"\nkind = \"queues\"\nlambda = \"0.5\"\nservers = 100\nd = \"2\"";
    assert_proven_and_tightened_fails(dir.path(), setup, "servers * lambda", "50", "<= 50 - 1e-12");
    assert_proven_and_tightened_fails(
        dir.path(),
        setup,
        "jsq_fixed_point().mean_sojourn * lambda - jsq_fixed_point().mean_tasks",
        "0",
        ">= 1e-12",
    );
    assert_not_proven(
        dir.path(),
        setup,
        "name = \"sim\"\nquantity = \"servers / jsq_sim(time=5, warmup=1, replications=2).samples_per_arrival\"\nrelation = \">\"\nbound = \"1\"",
        "simulated",
    );
}

/// Redundancy with disjoint classes is independent M/M/1 queues (each class on its own
/// unit-rate server, FCFS): classes 1:0.3 and 2:0.2 give E[T] = (0.3/0.7 + 0.2/0.8)/0.5
/// (M/M/1: E[T] = 1/(μ − λ), weighted by the arrival rates). `red_exact(fcfs)` is the
/// FCFS product form, enclosed by `redundancy::fcfs_means_enclosed`: PROVEN; the bound
/// tightened by 1e-12 is FAIL; a non-FCFS policy (a truncated chain) is not PROVEN.
#[test]
fn redundancy_fcfs_product_form_is_proven_and_tightened_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let setup = "model = \"redundancy\"\nclasses = \"1:0.3 2:0.2\"";
    let mm1 = "(0.3/0.7 + 0.2/0.8)/0.5";
    assert_proven_and_tightened_fails(
        dir.path(),
        setup,
        "red_exact(fcfs)",
        mm1,
        &format!(">= {mm1} + 1e-12"),
    );
    assert_not_proven(
        dir.path(),
        setup,
        "name = \"chain\"\nquantity = \"red_exact(ros)\"\nrelation = \">\"\nbound = \"1\"",
        "truncated Markov chain",
    );
    // FCFS's exact stability limit along the ray, s* = min_U μ(U)/λ(U) (Gardner et al.
    // 2016): the N-model {1}, {1+2} at (0.9, 0.5) gives min(1/0.9, 2/1.4) = 1/0.9, PROVEN
    // since 2026-12-07 (the unions' ratios on intervals), and FAIL once tightened by 1e-12;
    // the simulated drift test stays unproven and says so.
    let n_model = "model = \"redundancy\"\nclasses = \"1:0.9 1+2:0.5\"";
    assert_proven_and_tightened_fails(
        dir.path(),
        n_model,
        "red_stability(fcfs)",
        "1/0.9",
        "<= 1/0.9 - 1e-12",
    );
    assert_not_proven(
        dir.path(),
        n_model,
        "name = \"drift\"\nquantity = \"red_stability(fcfs, method=simulated, horizon=2000, replications=2, bisections=1)\"\nrelation = \">\"\nbound = \"0\"",
        "simulated drift test",
    );
}

/// `lwl()` under `--rigorous` encloses the Lee-Longton approximation (what it means; not
/// the M/G/h queue): at Exp(1), 2 hosts, total load 1 it is exact, the M/M/2 waiting
/// C(2, 1)/(2 − 1) = 1/3 by hand, so `== 1/3` is PROVEN and the bound tightened by 1e-12
/// is FAIL. Before 2026-12-07 `lwl()` was never proven.
#[test]
fn lwl_approximation_is_proven_and_tightened_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let setup = "dist = \"exp:rate=1\"\nhosts = 2\nload = \"1\"";
    assert_proven_and_tightened_fails(dir.path(), setup, "lwl()", "1/3", "<= 1/3 - 1e-12");
}

/// The enclosures of the JSQ fixed point (queues without a buffer, pools with a finite
/// capacity by root isolation, pools without one from a finite capacity, JSQ's own closed
/// form) and of the redundancy FCFS product
/// form contain the certified values (to 10^−19 relative: the certified high precision's
/// own rounding).
#[test]
fn jsq_and_redundancy_enclosures_contain_the_certified_values() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "model = \"jsq\"\nkind = \"queues\"\nlambda = \"0.9\"\nservers = 100\nd = \"3\"",
            &[
                "jsq_fixed_point().mean_tasks",
                "jsq_fixed_point().mean_sojourn",
                "jsq_fixed_point().distance",
                "jsq_fixed_point().occupancy[2]",
            ],
        ),
        (
            "model = \"jsq\"\nkind = \"pools\"\nlambda = \"2.5\"\nservers = 100\nd = \"2\"\nbuffer = 5",
            &[
                "jsq_fixed_point().mean_tasks",
                "jsq_fixed_point().blocking",
                "jsq_fixed_point().occupancy[3]",
            ],
        ),
        (
            "model = \"jsq\"\nkind = \"pools\"\nlambda = \"2.5\"\nservers = 100\nd = \"inf\"",
            &["jsq_fixed_point().mean_tasks", "jsq_fixed_point().occupancy[3]"],
        ),
        (
            "model = \"jsq\"\nkind = \"pools\"\nlambda = \"2.5\"\nservers = 100\nd = \"2\"",
            &[
                "jsq_fixed_point().occupancy[1]",
                "jsq_fixed_point().occupancy[4]",
                "jsq_fixed_point().distance",
            ],
        ),
        (
            "model = \"redundancy\"\nclasses = \"1:0.3 1+2:0.5\"",
            &["red_exact(fcfs)", "red_exact(fcfs).class_number[2]"],
        ),
    ];
    for (setup, quantities) in cases {
        let text = model_claim(setup, "quantity = \"1\"\nrelation = \">\"\nbound = \"0\"");
        let claim = compile("t.toml", &text).expect("compiles");
        let cache = Cache::default();
        let scope = Scope::new(
            BTreeMap::new(),
            claim.system.as_ref(),
            registry(),
            &cache,
            claim.digits,
        )
        .with_rigour(true);
        let words = registry().words();
        for q in quantities {
            let e = parse(q, &words).expect("expr");
            let p = scope.eval(&e).expect("value");
            let Proof::Enclosed(i) = &p.proof else {
                panic!("{setup} {q}: not enclosed: {:?}", p.proof);
            };
            let bits = p.hi.prec();
            let slack = Float::with_val(bits, p.hi.abs_ref()) * Float::with_val(bits, 1e-19);
            let lo = Float::with_val(bits, i.lo() - &slack);
            let hi = Float::with_val(bits, i.hi() + &slack);
            assert!(
                lo <= p.hi && p.hi <= hi,
                "{setup} {q}: certified {} outside [{}, {}]",
                p.hi,
                i.lo(),
                i.hi()
            );
        }
    }
}

/// The staged proof of an optimum: `check --rigorous` decides `opt(tags).value > T` by the
/// proven optimum's enclosure [value_lo, value_hi] (branch and bound over 250, then 2000,
/// then 20 000 boxes while undecided). TAGS on BP(1, 10^10, 0.5), h = 3, total load 0.5
/// (the law of proofs-check/bd21/decentralized-qos-design): its minimum m* is at most v,
/// the certified optimum's value from `optimize` (the objective at its cutoffs, to 20
/// digits; m* is the least value over all cutoffs). The bounds T around it:
/// - T = v (1 + 10^−9) lies above m*: the relation is false, so FAIL, and never PROVEN
///   (the enclosure's upper end, the value at the printed cutoffs, lies below T).
/// - T = v (1 − 10^−5) lies below m* by far more than the gap the box bound reaches in
///   2000 boxes (about 10^−6 of the value, measured): PROVEN.
/// - T = v (1 − 10^−15) lies below m* (v is certified to 20 digits): the relation holds,
///   so PASS or PROVEN, never FAIL (measured: PROVEN, the last stage closes h = 3's gap
///   to 10^−22 of the value with the mean-value form).
#[test]
fn optimum_decided_by_its_enclosure_never_proves_a_bound_above_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dist = "bp:k=1,p=1e10,alpha=0.5";
    let r = run([
        "optimize", "--policy", "tags", "--dist", dist, "--hosts", "3", "--load", "0.5",
        "--digits", "20", "--format", "json",
    ]);
    assert_eq!(r.code, EXIT_OK, "{}", r.stderr);
    let o: Value = serde_json::from_str(&r.stdout).expect("json");
    let v = Float::with_val(256, Float::parse(o["value"].as_str().unwrap()).unwrap());
    let at = |rel: f64| -> String {
        let t = Float::with_val(256, &v * Float::with_val(256, 1.0 + rel));
        format!("{t:.30e}")
    };
    let t_exact_low = {
        let e = Float::with_val(256, Float::parse("1e-15").unwrap());
        let t = Float::with_val(256, &v * (Float::with_val(256, 1) - e));
        format!("{t:.30e}")
    };
    let claim = |name: &str, bound: &str| {
        format!(
            "{HEAD}\n[setup]\ndist = \"{dist}\"\nhosts = 3\nload = \"0.5\"\ndigits = 20\n\n\
             [[check]]\nname = \"{name}\"\nquantity = \"opt(tags).value\"\nrelation = \">\"\n\
             bound = \"{bound}\"\n"
        )
    };
    let (code, out) = check_json(
        dir.path(),
        "above.toml",
        &claim("above", &at(1e-9)),
        &["--rigorous"],
    );
    let c = &checks(&out)[0];
    assert_eq!(code, EXIT_FAIL, "{c}");
    assert_eq!(c["verdict"], "FAIL", "{c}");
    assert_eq!(c["proven"], false, "{c}");
    let (code, out) = check_json(
        dir.path(),
        "below.toml",
        &claim("below", &at(-1e-5)),
        &["--rigorous"],
    );
    let c = &checks(&out)[0];
    assert_eq!(code, EXIT_OK, "{c}");
    assert_eq!(c["verdict"], "PROVEN", "{c}");
    let (code, out) = check_json(
        dir.path(),
        "close.toml",
        &claim("close", &t_exact_low),
        &["--rigorous"],
    );
    let c = &checks(&out)[0];
    assert_eq!(code, EXIT_OK, "{c}");
    assert!(c["verdict"] == "PASS" || c["verdict"] == "PROVEN", "{c}");
}
