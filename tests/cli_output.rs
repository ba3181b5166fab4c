//! Delivering the output (issue 14, item 2): a reader that closes the pipe early
//! (`taskassign … | head -1`) ends the output quietly, without a panic; a failed write
//! (a full disk) is an error with exit status 3, not a silent success.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_taskassign")
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // 100 000 hosts: many lines of host loads, far more than a pipe buffer holds.
    let mut child = Command::new(bin())
        .args([
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "100000",
            "--load",
            "0.5",
            "--digits",
            "5",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    {
        let out = child.stdout.take().expect("stdout");
        let mut first = String::new();
        BufReader::new(out).read_line(&mut first).expect("a line");
        assert!(first.starts_with("policy"), "{first}");
    } // the reader goes away here: the pipe is closed
    let out = child.wait_with_output().expect("ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn a_failed_write_is_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system: nothing to test
    };
    let out = Command::new(bin())
        .args(["threshold", "--dist", "exp:rate=1", "--hosts", "2"])
        .stdout(full)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("writing the output"));
}

/// Ctrl-C during `check --out DIR` (issue 14, item 7): the claims in progress finish,
/// the report of what is done is written and marked incomplete, and the exit status is
/// 130; a second Ctrl-C stops at once.
#[test]
fn ctrl_c_writes_what_is_done_and_exits_130() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let child = Command::new(bin())
        .current_dir(root)
        .args(["check", "--out"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    // Long enough for the handler to be installed and some claims to run, far shorter
    // than the catalogue.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let out = child.wait_with_output().expect("ends");
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("INCOMPLETE: interrupted after"), "{text}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("report.json")).expect("report written"),
    )
    .expect("valid JSON");
    assert_eq!(json["summary"]["incomplete"], true);
    assert_eq!(json["summary"]["exit_status"], 130);
    assert!(
        json["summary"]["claims"].as_u64() < json["summary"]["claims_total"].as_u64(),
        "{}",
        json["summary"]
    );
    assert!(std::fs::read_to_string(dir.path().join("report.md"))
        .expect("markdown written")
        .contains("INCOMPLETE"));
}

#[test]
fn a_second_ctrl_c_stops_at_once() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let start = std::time::Instant::now();
    let child = Command::new(bin())
        .current_dir(root)
        .args(["check"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    std::thread::sleep(std::time::Duration::from_millis(800));
    for _ in 0..2 {
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(130));
    // At once: well before the claims in progress could have finished.
    assert!(start.elapsed() < std::time::Duration::from_secs(3));
}
