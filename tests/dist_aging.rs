//! NBU/NWU and IFR/DFR classes of every family: the theory (Barlow & Proschan 1975, ch. 4,
//! and the families' hazards) against the definition checked on a grid of quantile pairs
//! in MPFR — two independent sources that must agree, family by family.

use taskassign::dist::{
    aging_on_grid as on_grid, aging_theory as theory, AGING_GRID_BITS as GRID_BITS,
};
use taskassign::dist::{DistFactory, DistSpec};

fn both(spec: &str) -> (taskassign::dist::Aging, taskassign::dist::Aging) {
    let s = DistSpec::parse(spec).unwrap();
    let t = theory(&s).unwrap_or_else(|| panic!("{spec}: no theory"));
    let g = on_grid(s.build(GRID_BITS).unwrap().as_ref()).unwrap();
    (t, g)
}

#[test]
fn grid_agrees_with_theory_for_every_family() {
    for spec in [
        "exp:rate=2",
        "erlang:k=1,rate=3",
        "erlang:k=4,rate=4",
        "erlang:k=2,rate=1",
        "hyperexp:p=0.1,rate1=0.1,rate2=10",
        "hyperexp:mean=1,scv=20",
        "hyperexp:mean=1,scv=1",
        "weibull:shape=0.5,mean=1",
        "weibull:shape=2,scale=1",
        "weibull:shape=1,scale=3",
        "uniform:a=0.5,b=2",
        "pareto:k=1,alpha=2.5",
        "lognormal:mean=1,scv=4",
        "lognormal:mu=0,sigma=0.25",
        "bp:k=1,p=1e6,alpha=1.1",
    ] {
        let (t, g) = both(spec);
        assert_eq!(
            (t.nbu, t.nwu),
            (g.nbu, g.nwu),
            "{spec}: theory {} vs grid {:?}",
            t.label(),
            g
        );
        assert_eq!(
            (t.ifr, t.dfr),
            (g.ifr, g.dfr),
            "{spec}: hazard, theory {} vs grid {:?}",
            t.label(),
            g
        );
    }
}

#[test]
fn labels_name_the_classes() {
    let label = |s: &str| theory(&DistSpec::parse(s).unwrap()).unwrap().label();
    assert_eq!(label("exp:rate=1"), "exponential (NBU and NWU)");
    assert_eq!(label("erlang:k=4,rate=4"), "NBU (IFR)");
    assert_eq!(label("hyperexp:mean=1,scv=20"), "NWU (DFR)");
    assert_eq!(label("weibull:shape=0.5,mean=1"), "NWU (DFR)");
    assert_eq!(label("lognormal:mean=1,scv=4"), "neither NBU nor NWU");
    // The deterministic law has no density: the grid decides NBU only.
    let d = DistSpec::parse("det:x=1").unwrap();
    let g = on_grid(d.build(GRID_BITS).unwrap().as_ref()).unwrap();
    assert!(g.nbu && !g.nwu && g.ifr.is_none());
    assert_eq!(label("det:x=1"), "NBU (IFR)");
}
