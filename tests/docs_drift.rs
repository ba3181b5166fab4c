//! The documentation a newcomer reads first cannot drift from the code: the README's
//! family table and `--help`'s distribution list name every form of
//! `dist::spec::FAMILIES` (each family with each set of keys) and nothing else; `jsq
//! fluid` takes `--digits` and prints one time point a line; `jsq simulate --help` shows
//! `--time`'s default; a mistyped subcommand is answered with clap's suggestion.

mod common;
use common::{run, run_ok};
use taskassign::dist::FAMILIES;

/// The `family:key=…,key=…` forms written in `text`, as (family, keys in order).
fn forms_in(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == '`' || c == '|') {
        let Some((fam, rest)) = word.split_once(':') else {
            continue;
        };
        if fam.is_empty() || !fam.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let keys: Vec<String> = rest
            .split(',')
            .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.trim().to_string()))
            .collect();
        if keys.is_empty() {
            continue;
        }
        out.push((fam.to_string(), keys));
    }
    out
}

/// The README's table of job-size families: the lines of the table after "Job-size
/// families".
fn readme_family_table() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find("Job-size families")
        .expect("README has a 'Job-size families' table");
    readme[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap_or("").to_string() + "\n")
        .collect()
}

/// `--help`'s distribution list: the lines after "Distributions:" up to the next blank
/// line or option section.
fn help_family_list() -> String {
    let help = run_ok(&["--help"]);
    let start = help
        .find("Distributions:")
        .expect("--help has a 'Distributions:' list");
    help[start..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn same_forms(what: &str, got: Vec<(String, Vec<String>)>) {
    // Source of the expected forms: dist::spec::FAMILIES, the parser's own table.
    let want: Vec<(String, Vec<String>)> = FAMILIES
        .iter()
        .map(|(f, k)| (f.to_string(), k.iter().map(|s| s.to_string()).collect()))
        .collect();
    for w in &want {
        assert!(
            got.contains(w),
            "{what} lacks {}:{} (forms found: {got:?})",
            w.0,
            w.1.join("=,") + "="
        );
    }
    for g in &got {
        assert!(
            want.contains(g),
            "{what} shows {}:{} which dist::spec::FAMILIES does not parse",
            g.0,
            g.1.join("=,") + "="
        );
    }
}

#[test]
fn readme_family_table_matches_the_parser() {
    same_forms("README's family table", forms_in(&readme_family_table()));
}

#[test]
fn help_distribution_list_matches_the_parser() {
    let list = help_family_list();
    same_forms("--help's distribution list", forms_in(&list));
    // The balanced-means form says what it means.
    assert!(
        list.contains("balanced means"),
        "--help says what hyperexp:mean=,scv= means: {list}"
    );
}

#[test]
fn every_documented_example_parses() {
    // Each example of the README table and of --help is a spec the parser accepts
    // (empirical:file=PATH names no file, and is left out).
    let mut texts = readme_family_table();
    texts.push('\n');
    texts.push_str(&help_family_list());
    for word in texts.split(|c: char| c.is_whitespace() || c == '`' || c == '|') {
        if !word.contains(':') || !word.contains('=') || word.starts_with("empirical") {
            continue;
        }
        if let Err(e) = taskassign::dist::DistSpec::parse(word) {
            panic!("documented spec '{word}' does not parse: {e}");
        }
    }
}

#[test]
fn jsq_fluid_takes_digits_and_prints_one_time_a_line() {
    // q_1(t) = λ(1 − e^(−t)) for JSQ's fluid limit of queues from empty at λ = 0.5 (only
    // level 1 fills: lb::fluid's closed form); at t = 1, 0.316060279414…
    let out = run_ok(&[
        "jsq", "fluid", "--model", "queues", "--lambda", "0.5", "--times", "0,1,2", "--digits", "4",
    ]);
    let occ: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("occupancy"))
        .take(3)
        .collect();
    assert_eq!(occ.len(), 3, "three time points, one a line:\n{out}");
    assert!(!out.contains(" | "), "no rows joined with |:\n{out}");
    // 4 significant digits of 0.316060… (each row one time).
    assert!(occ[1].trim_end().ends_with("3.161e-1"), "{occ:?}");
    // --digits above what the integration can certify is refused with one line.
    let r = run([
        "jsq", "fluid", "--model", "queues", "--lambda", "0.5", "--times", "1", "--digits", "0",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn jsq_simulate_help_shows_the_time_default() {
    let help = run_ok(&["jsq", "simulate", "--help"]);
    let time = help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--time"))
        .take_while(|l| !l.trim_start().starts_with("--warmup"))
        .collect::<Vec<_>>()
        .join(" ");
    // Source: lb::sim::DEFAULT_TIME = 100, lengthened by the relaxation rule (issue 22).
    assert!(time.contains("[default: 100,"), "{time}");
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    for (typo, meant) in [("optimise", "optimize"), ("evl", "eval"), ("chek", "check")] {
        let r = run([typo]);
        assert_eq!(r.code, 2);
        assert_eq!(r.stderr.lines().count(), 1, "one line: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("'{meant}'")),
            "{typo}: a suggestion of '{meant}': {}",
            r.stderr
        );
    }
}
