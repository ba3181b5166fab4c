"""Numbers keep their digits: .text, .digits, .mpf, float() range-checked, _mpf_."""

import math

import mpmath
import pytest

import taskassign
from taskassign import Certified


def test_1000_digit_optimum_round_trips_through_mpf():
    # SITA-opt on bp(k=1, p=1e10, alpha=1), 2 hosts: the optimal cutoff is sqrt(kp) = 1e5
    # (README, `optimize`; the symmetry of alpha = 1), asked to 1000 digits.
    rec = taskassign.optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, digits=1000)
    assert rec.digits == 1000
    value = rec.value
    assert value.digits == 1000
    x = value.mpf
    # Every digit survives: mpmath prints the mpf back to the same 1000 digits (mantissa
    # and exponent compared as numbers of the text, exactly).
    with mpmath.workdps(1000):
        back = mpmath.nstr(x, 1000, strip_zeros=False, min_fixed=math.inf, max_fixed=-math.inf)
        assert mpmath.mpf(back) == mpmath.mpf(value.text)
        mant, exp = value.text.split("e")
        bmant, bexp = back.split("e")
        assert bmant == mant and int(bexp) == int(exp)
    # and the cutoff is 1e5 to every certified digit (independent: sqrt(1 * 1e10)).
    with mpmath.workprec(rec.cutoffs[0].prec):
        assert rec.cutoffs[0].mpf == mpmath.mpf(10) ** 5
    # _mpf_: mpmath takes the certified number directly, with no digit lost.
    with mpmath.workprec(value.prec):
        assert mpmath.mpf(value) == x
        assert mpmath.mpmathify(value) - x == 0


def test_float_of_a_huge_number_raises_not_inf():
    # bp(k=1, p=1e100000): the top of the support, 10^100000, is far above the double range
    # (about 1.8e308).
    big = Certified("1e100000")
    with pytest.raises(OverflowError):
        float(big)
    assert big.mpf > mpmath.mpf("1e99999")  # mpmath's exponent has no such limit
    assert float(Certified("1.5e300")) == 1.5e300
    # From a record: SITA on bp(p=1e100000) with cutoff 1e50000 waits about 2.9e49994
    # (README, `eval`), and its cutoff 1e50000 is exact.
    rec = taskassign.eval("sita", "bp:k=1,p=1e100000,alpha=1", 2, load=0.5, cutoffs=["1e50000"])
    assert mpmath.mpf("1e49999") < rec.cutoffs[0].mpf < mpmath.mpf("1e50001")
    with pytest.raises(OverflowError):
        float(rec.value)
    with pytest.raises(OverflowError):
        float(rec.cutoffs[0])


def test_digits_count_the_certified_text():
    assert Certified("1.2300e-3").digits == 5  # trailing zeros are certified digits
    assert Certified("5e0").digits == 1
    assert Certified("-2.5e10").digits == 2


def test_threshold_against_the_closed_form_in_mpmath():
    # TAGS threshold of exp(1) on 2 hosts, derived by hand from ARCHITECTURE.md's TAGS loads:
    # host 1 critical, rho (1 - e^-s) = 1; host 2 critical, rho e^-s (1 + s) = 1; so
    # e^s = 2 + s and rho* = 1 / (1 - e^-s). Solved by mpmath at 60 digits; the 30 certified
    # digits must agree to half a unit of their last place.
    rec = taskassign.threshold("exp:rate=1", 2)
    with mpmath.workdps(60):
        s = mpmath.findroot(lambda s: mpmath.exp(s) - s - 2, 1.1)
        rho = 1 / (1 - mpmath.exp(-s))
        t = rec.threshold_load
        assert t.digits == 30
        assert abs(t.mpf - rho) <= mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(rho)) - 29) / 2
        assert abs(rec.cutoffs[0].mpf - s) <= mpmath.mpf(10) ** (-29)


def test_enclosure_to_arb():
    flint = pytest.importorskip("flint")
    rec = taskassign.threshold("exp:rate=1", "inf", rigorous=True, digits=20)
    t = rec.threshold_load
    b = t.arb()
    assert isinstance(b, flint.arb)
    # rho*(F, inf) = E[X] / sup x e^-x = e for exp(1) (ARCHITECTURE.md, TAGS stability):
    # the ball contains e, computed by flint itself.
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        assert b.contains(flint.arb.const_e())
    finally:
        flint.ctx.prec = old


def test_an_mpf_argument_keeps_its_own_precision_not_mp_dps():
    # Precision is an argument, never a global: 1/3 made at 30 digits is passed with its
    # own digits whatever mpmath's mp.dps is at the call (the old conversion used mp.dps and
    # passed 0.33333 under workdps(5)).
    with mpmath.workdps(30):
        third = mpmath.mpf(1) / 3
    with mpmath.workdps(5):
        low = taskassign.eval("sita", "exp:rate=1", 2, load=third, cutoffs=[1], digits=25)
    with mpmath.workdps(60):
        high = taskassign.eval("sita", "exp:rate=1", 2, load=third, cutoffs=[1], digits=25)
    assert low.to_dict() == high.to_dict()
    # The load the core saw is 1/3 to its 25 certified digits (independent: Fraction 1/3).
    assert low.load.text == "3.333333333333333333333333e-1"
    # and a short mpf passes as its shortest round-trip decimal, like repr of a float.
    assert taskassign._mpf_text(mpmath.mpf(0.1)) == "0.1"
    assert taskassign._mpf_text(mpmath.mpf(2) ** -1000) == repr(2.0 ** -1000)
