//! Host counts read alike however they are written (issue 10: `hosts=1e6` was rejected
//! where `hosts=1000000` was accepted): the binary's `--hosts` and a claim's `hosts=`.

mod common;
use common::{expect_bad, run};

#[test]
fn hosts_written_as_a_decimal_give_the_same_output() {
    for (a, b) in [("1e6", "1000000"), ("2e0", "2"), ("1.6e1", "16")] {
        let x = run([
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            a,
            "--load",
            "0.5",
            "--digits",
            "8",
            "--format",
            "json",
        ]);
        let y = run([
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            b,
            "--load",
            "0.5",
            "--digits",
            "8",
            "--format",
            "json",
        ]);
        assert_eq!(x.code, 0, "{}", x.stderr);
        assert_eq!(x.stdout, y.stdout, "{a} vs {b}");
    }
    for bad in ["0", "2.5", "-1", "1e100", "abc"] {
        expect_bad(
            &[
                "eval",
                "--policy",
                "random",
                "--dist",
                "exp:rate=1",
                "--hosts",
                bad,
                "--load",
                "0.5",
            ],
            &["hosts"],
        );
    }
}
