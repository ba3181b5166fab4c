//! A malformed TOML file — a grid, a claim, a figure, a redundancy system — is refused
//! with one line naming the file, the line and a reason, also where the TOML parser itself
//! gives none (a key whose value is missing at the end of the file).

mod common;

use common::taskassign;

/// Runs `taskassign ARGS` in `dir`; expects exit 2 and one line holding each of `want`,
/// with a reason after the last `: ` (not empty).
fn refused(dir: &std::path::Path, args: &[&str], want: &[&str]) {
    let o = taskassign()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    let line = err.trim_end();
    assert_eq!(line.lines().count(), 1, "{args:?}: {err}");
    for w in want {
        assert!(line.contains(w), "{args:?}: want '{w}' in {line}");
    }
    let reason = line.rsplit(": ").next().unwrap_or("");
    assert!(reason.trim().len() > 10, "{args:?}: no reason in {line}");
}

#[test]
fn a_value_missing_at_the_end_of_a_file_is_named() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let missing = "a value is missing after '='";
    // a grid file ending right after `load =` (line 7)
    std::fs::write(
        d.join("g.toml"),
        "command = \"eval\"\n[options]\npolicy = \"random\"\ndist = \"exp:rate=1\"\nhosts = 2\n[grid]\nload =",
    )
    .expect("write");
    refused(
        d,
        &["sweep", "g.toml", "--out", "o"],
        &["g.toml:7:", missing],
    );
    // a claim file ending after `id =` (line 1), and after `statement =` (line 2)
    std::fs::write(d.join("c.toml"), "id =").expect("write");
    refused(d, &["check", "c.toml"], &["c.toml:1: id:", missing]);
    std::fs::write(d.join("c2.toml"), "id = \"x\"\nstatement = ").expect("write");
    refused(
        d,
        &["check", "c2.toml"],
        &["c2.toml:2: statement:", missing],
    );
    // a redundancy system file ending after `servers = ` (line 1)
    std::fs::write(d.join("sys.toml"), "servers = ").expect("write");
    refused(
        d,
        &[
            "redundancy",
            "exact",
            "--system",
            "sys.toml",
            "--policy",
            "fcfs",
        ],
        &["sys.toml:1:", missing],
    );
    // the parser's own reason is kept, on one line: an array left open (line 2)
    std::fs::write(d.join("sys2.toml"), "servers = 2\nrates = [1,").expect("write");
    refused(
        d,
        &[
            "redundancy",
            "exact",
            "--system",
            "sys2.toml",
            "--policy",
            "fcfs",
        ],
        &["sys2.toml:2:", "invalid array; expected `]`"],
    );
}
