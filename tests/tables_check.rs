//! `taskassign tables --check`: a fresh regeneration of data/ equals the checked-in files
//! (deterministic output, every file naming the command that made it).

use assert_cmd::Command;
use std::path::PathBuf;

#[test]
fn tables_check_passes_on_the_checked_in_data() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::cargo_bin("taskassign")
        .expect("binary")
        .current_dir(&root)
        .args(["tables", "--out", "data", "--check"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "claims/tags-sita-factor-two.tex",
        "figures/threshold-vs-alpha.svg",
        "claims/tags-spare-servers.csv",
    ] {
        let text = std::fs::read_to_string(root.join("data").join(f)).expect("generated file");
        assert!(
            text.contains("made by: taskassign tables --out data"),
            "{f} names its command"
        );
    }
}
