//! Whose fault an optimiser error is (crate::error::Classify): a load no cutoffs can
//! stabilise is bad input, a solver that fails where an answer exists is numerical, and
//! the library's entry points reject zero hosts instead of underflowing `hosts - 1`.

mod common;
use common::sizes_law;
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

#[test]
fn sita_on_atoms_no_cutoffs_keep_stable_is_bad_input() {
    // A cutoff cannot split an atom. Sizes 1 and 100 at load 1.5 (λ = 1.5/50.5): the atom
    // 100 alone brings λ·100/2 = 1.485… ≥ 1 to its host, at any host count. Before, SITA
    // exited 3 with the TAGS grid's hint and SITA-E with "outside the support".
    let one_hundred = sizes_law("one-hundred", &["1", "100"]);
    for p in [OptPolicy::Sita, OptPolicy::SitaE] {
        let e = optimal_cutoffs(
            &one_hundred,
            &LoadSpec::Total("1.5".into()),
            3,
            p,
            Metric::Waiting,
            20,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input, "{e}");
        assert!(
            e.to_string().contains("atom at 1.0") && e.to_string().contains("1.48514851485"),
            "{e}"
        );
    }
    // Sizes 1 (×6), 2 (×3), 3 (×2) at λ = 1.1: each atom has load 0.6 and any two 1.2, so
    // SITA needs 3 hosts although ρ = 1.8 < 2.
    let atoms = sizes_law(
        "three-atoms",
        &["1", "1", "1", "1", "1", "1", "2", "2", "2", "3", "3"],
    );
    let e = optimal_cutoffs(
        &atoms,
        &LoadSpec::Lambda("1.1".into()),
        2,
        OptPolicy::Sita,
        Metric::Waiting,
        20,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input, "{e}");
    assert!(e.to_string().contains("at least 3 hosts"), "{e}");
    assert!(optimal_cutoffs(
        &atoms,
        &LoadSpec::Lambda("1.1".into()),
        3,
        OptPolicy::Sita,
        Metric::Waiting,
        20
    )
    .is_ok());
}

#[test]
fn sita_e_on_an_atom_heavier_than_a_share_is_bad_input() {
    // Sizes 1, 2, 2, 5, 10, 40: the atom 40 carries 40/60 of the load, more than a third,
    // so SITA-E's cutoffs at 3 hosts would meet at 40 (load 1.2 keeps each atom stable).
    let law = sizes_law("heavy", &["1", "2", "2", "5", "10", "40"]);
    let e = optimal_cutoffs(
        &law,
        &LoadSpec::Total("1.2".into()),
        3,
        OptPolicy::SitaE,
        Metric::Waiting,
        20,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input, "{e}");
    assert!(
        e.to_string().contains("atom at 4.0") && e.to_string().contains("--policy sita"),
        "{e}"
    );
}
