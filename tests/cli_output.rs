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
