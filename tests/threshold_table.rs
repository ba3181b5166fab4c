//! Snapshot of the TAGS threshold table ρ*(F, h), h = 2…10 and ∞, as certified decimal
//! strings with 15 significant digits. A change in any digit fails the test.
//!
//! Independent anchors inside the table (also asserted in tests/threshold.rs): Pareto rows
//! equal α/(α−1)(1 − α^(−h)); uniform h=2 is 4/3; exponential h=∞ is e.

use taskassign::dist::DistSpec;
use taskassign::optimize::threshold_certified;

/// Significant digits locked by the snapshot.
const DIGITS: u32 = 15;

const FAMILIES: &[&str] = &[
    "exp:rate=1",
    "uniform:a=0,b=1",
    "pareto:k=1,alpha=1.5",
    "pareto:k=1,alpha=2.5",
    "bp:k=1,p=1e2,alpha=0.5",
    "bp:k=1,p=1e2,alpha=1",
    "bp:k=1,p=1e2,alpha=1.5",
    "bp:k=1,p=1e10,alpha=0.5",
    "bp:k=1,p=1e10,alpha=1",
    "bp:k=1,p=1e10,alpha=1.5",
    "bp:k=1,p=1e10,alpha=2",
    "hyperexp:p=0.1,rate1=0.1,rate2=10",
];

#[test]
fn threshold_table_snapshot() {
    let mut out = String::from("dist | h | threshold_load | certified_digits\n");
    for spec in FAMILIES {
        let d = DistSpec::parse(spec).unwrap();
        let hs: Vec<Option<usize>> = (2..=10).map(Some).chain([None]).collect();
        for h in hs {
            let t = threshold_certified(&d, h, DIGITS).unwrap();
            let hn = h.map(|h| h.to_string()).unwrap_or_else(|| "inf".into());
            out.push_str(&format!("{spec} | {hn} | {} | {}\n", t.load.text, t.digits));
        }
    }
    insta::assert_snapshot!(out);
}
