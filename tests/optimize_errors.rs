//! Whose fault an optimiser error is (crate::error::Classify): a load no cutoffs can
//! stabilise is bad input, a solver that fails where an answer exists is numerical, and
//! the library's entry points reject zero hosts instead of underflowing `hosts - 1`.

use taskassign::dist::{DistFactory, DistSpec};
use taskassign::error::{Classify, ErrorKind};
use taskassign::optimize::{grid_optima, make_grid};
use taskassign::optimize::{
    optimal_cutoffs, sita_e_cutoffs, tags_equal_load_cutoffs, tags_minmax_cutoffs, OptPolicy,
};
use taskassign::policy::ChainKind;
use taskassign::policy::{LoadSpec, Metric, PolicyError};

fn spec(s: &str) -> DistSpec {
    DistSpec::parse(s).unwrap()
}

#[test]
fn a_load_beyond_the_tags_threshold_is_bad_input() {
    // Uniform(0, 1), two hosts: stable cutoffs exist iff ρ < 4/3 (BDS20; the doc-test of
    // optimize::threshold::greedy), so ρ = 1.5 is the user's to change.
    let e = optimal_cutoffs(
        &spec("uniform:a=0,b=1"),
        &LoadSpec::Total("1.5".into()),
        2,
        OptPolicy::Tags,
        Metric::Waiting,
        20,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input, "{e}");
    assert!(e.to_string().contains("stability threshold"), "{e}");
}

#[test]
fn a_search_that_finds_nothing_is_a_numerical_failure() {
    // The grid search alone, at a load beyond the threshold (the pipeline would have
    // rejected it first): it reports what failed, not bad input, and says what may help.
    let d = spec("uniform:a=0,b=1").build(64).unwrap();
    let (lambda, _) = LoadSpec::Total("1.5".into())
        .resolve(d.as_ref(), 2)
        .unwrap();
    let g = make_grid(d.as_ref(), 40).unwrap();
    let e = grid_optima(
        d.as_ref(),
        &lambda,
        2,
        ChainKind::Tags,
        Metric::Waiting,
        &g,
        false,
    )
    .unwrap_err();
    assert!(matches!(e, PolicyError::Solver { .. }), "{e:?}");
    assert_eq!(e.kind(), ErrorKind::Numerical);
    assert!(e.to_string().contains("--load"), "{e}");
}

#[test]
fn zero_hosts_are_rejected_by_every_entry_point() {
    let d = spec("exp:rate=1").build(64).unwrap();
    let lambda = rug::Float::with_val(64, 0.5);
    let bad = |r: Result<(), PolicyError>| {
        assert!(matches!(r, Err(PolicyError::BadHosts(0))), "{r:?}");
    };
    bad(sita_e_cutoffs(d.as_ref(), 0).map(|_| ()));
    bad(tags_minmax_cutoffs(d.as_ref(), &lambda, 0, &[]).map(|_| ()));
    bad(tags_equal_load_cutoffs(d.as_ref(), &lambda, 0).map(|_| ()));
    let g = make_grid(d.as_ref(), 40).unwrap();
    bad(grid_optima(
        d.as_ref(),
        &lambda,
        0,
        ChainKind::Sita,
        Metric::Waiting,
        &g,
        false,
    )
    .map(|_| ()));
    bad(optimal_cutoffs(
        &spec("exp:rate=1"),
        &LoadSpec::Total("0.5".into()),
        0,
        OptPolicy::Sita,
        Metric::Waiting,
        20,
    )
    .map(|_| ()));
}
