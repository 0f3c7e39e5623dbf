"""Every printed number goes through fastfair._format: p-values at the precision their method
has (result reprs, the audit's tables), values, planning figures and report values."""

import re

import numpy as np
import pytest

import fastfair
from fastfair._format import (
    format_adjusted_pvalue,
    format_fixed,
    format_pvalue,
    format_significant,
    format_value,
)


def test_format_pvalue_bounds():
    assert format_pvalue(2e-20, "exact") == "< 1e-16"  # the enumeration's truncation bound
    assert format_pvalue(3e-17, "asymptotic") == "< 1e-16"
    assert format_pvalue(1e-16, "exact") == "1.000e-16"
    assert format_pvalue(1 / 200, "monte_carlo", 199) == "< 0.005"  # no exceedance: 1/(B+1)
    assert format_pvalue(1 / 10000, "permutation", 9999) == "< 0.0001"
    assert format_pvalue(2 / 200, "monte_carlo", 199) == "0.0100"
    assert format_pvalue(1 / 200, "exact", 199) == "0.0050"  # exact: no Monte-Carlo floor
    assert format_pvalue(None) == "-" and format_pvalue(float("nan")) == "nan"


def test_reprs_print_the_bounds():
    rng = np.random.default_rng(1)
    group = np.repeat([0, 1], 300)
    y = np.tile([0, 1], 300)
    score = rng.random(600) + np.where(group == 0, y, 0.0)  # group 0 ranks perfectly
    res = fastfair.auc_test(y, score, group, n_permutations=199, random_state=0)
    assert res.pvalue == 1 / 200 and "< 0.005" in repr(res) and "0.0050" not in repr(res)
    pp = fastfair.predictive_parity_test(
        y, np.clip(score / 2, 0, 1), group, grid=5, n_bootstrap=199, random_state=0
    )
    assert pp.pvalue == 1 / 200 and "pvalue < 0.005," in repr(pp)


def test_permutation_repr_prints_the_bounds():
    rng = np.random.default_rng(0)
    group = np.repeat([0, 1], 2000)
    y = rng.random(4000) < 0.5
    pred = rng.random(4000) < np.where(group == 0, 0.1, 0.6)
    exact = fastfair.permutation_test(y, pred, group, metric="selection_rate")
    assert exact.pvalue < 1e-16 and "< 1e-16" in repr(exact) and "e-20" not in repr(exact)
    mc = fastfair.permutation_test(
        y, pred, group, metric="selection_rate", method="monte_carlo", n_permutations=199
    )
    assert mc.pvalue == 1 / 200 and "< 0.005" in repr(mc)


def test_format_value_fixed_then_scientific():
    assert format_value(0.012345) == "0.0123" and format_value(-2.5) == "-2.5000"
    assert format_value(3e-5) == "3.000e-05" and format_value(2.5e6) == "2.500e+06"
    assert format_value(0) == "0" and format_value(0.0) == "0.0000"
    assert format_value(np.int64(7)) == "7" and format_value(None) == "-"
    assert format_value(float("nan")) == "nan" and format_value("n/a") == "n/a"


def test_format_adjusted_pvalue_is_a_bound_when_the_raw_pvalue_is():
    # no permuted statistic as extreme: raw p = 1/(B+1) is a bound, so is the adjusted one
    assert format_adjusted_pvalue(1 / 1000, 3 / 1000, "monte_carlo", 999) == "< 0.003"
    assert format_adjusted_pvalue(1e-20, 3e-20, "exact") == "< 1e-16"
    assert format_adjusted_pvalue(1e-20, 0.5e-16, "exact") == "< 1e-16"
    assert format_adjusted_pvalue(2 / 1000, 6 / 1000, "monte_carlo", 999) == "0.0060"


def test_format_significant_planning_figures():
    assert format_significant(1378.7312) == "1379"
    assert format_significant(1378.7312, 7) == "1378.731"
    assert format_significant(12345.678) == "12,345.68"  # >= 1e4: thousands, 2 decimals
    assert format_significant(np.array([3, 40])) == "[3, 40]"  # integers exactly
    assert format_significant(np.array([0.683512, 0.78943])) == "[0.6835, 0.7894]"
    assert format_significant(np.array([0.683512]), 2) == "[0.68]"
    long = format_significant(np.arange(30) + 0.5)  # summarised, on one line
    assert "..." in long and "\n" not in long


def test_format_fixed_report_values():
    assert format_fixed(-0.04213) == "\u22120.042"  # a typographic minus
    assert format_fixed(0.04213, 2) == "0.04"
    assert format_fixed([0.1, -0.2], 2) == "0.10 / \u22120.20"  # equalized odds: TPR / FPR
    assert format_fixed(None) == "-" and format_fixed(12) == "12"


@pytest.mark.parametrize("n_permutations", [99, 999, 9999])
def test_a_monte_carlo_pvalue_at_its_floor_prints_below_it(n_permutations):
    """(1 + 0) / (1 + B), no permuted statistic as extreme, prints "< 1/(B+1)"; the next
    value, 2 / (1 + B), prints as itself. And end to end, a strong gap's permutation test
    with B = 999 shows "< 0.001". Written for round-5 mutant r5-fmt-mc-floor-strict
    (``p < floor``: the floor itself printed as a value)."""

    floor = (1 + 0) / (1 + n_permutations)
    assert format_pvalue(floor, "monte_carlo", n_permutations) == f"< {floor:.3g}"
    assert not format_pvalue(2 / (1 + n_permutations), "monte_carlo", n_permutations).startswith(
        "<"
    )
    if n_permutations == 999:
        rng = np.random.default_rng(0)
        g = np.repeat([0, 1], 500)
        y = rng.integers(0, 2, 1000)
        pred = np.where(g == 1, y, 1 - y)  # group 1 always right, group 0 always wrong
        res = fastfair.permutation_test(y, pred, g, metric="accuracy", method="monte_carlo",
                                        n_permutations=999, random_state=1)  # fmt: skip
        assert res.pvalue == floor and "< 0.001" in repr(res)


def test_format_mde_keeps_every_two_digit_value_as_written():
    """An MDE that already has two significant digits prints as written, never rounded up a
    step by the float's last bit (0.14 / 0.001 is 140.00000000000003 in floating point; a
    ceiling without slack printed "0.15"). Every value d.d x 10^k, k = -3..1, against its
    own decimal text."""
    from decimal import Decimal

    from fastfair._format import format_mde

    for k in range(10, 100):
        for exponent in (-4, -3, -2, -1, 0):
            text = str(Decimal(k).scaleb(exponent).normalize())
            text = f"{Decimal(text):f}"
            assert format_mde(float(text)) == text, text


def test_format_significant_switches_to_thousands_at_exactly_ten_thousand():
    """Scalars of 10,000 or more get thousands separators and 2 decimals, 10,000 itself
    included; just below keeps `digits` significant digits."""
    assert format_significant(10000.0) == "10,000.00"
    assert format_significant(-10000.0) == "-10,000.00"
    assert format_significant(9999.4) == "9999"


def test_format_mde_of_zero_and_infinity():
    """No MDE above 0 (a degenerate planner figure) prints "0"; infinity "> 1"."""
    from fastfair._format import format_mde

    assert format_mde(0.0) == "0" and format_mde(-0.01) == "0"
    assert format_mde(float("inf")) == "> 1"


def test_format_value_switches_to_scientific_exactly_outside_its_fixed_range():
    """format_value prints 4 decimals for 1e-4 <= |v| < 1e6 (the bounds as its code states
    them) and scientific notation outside: 1e-4 itself is fixed, the float just below it
    scientific; 1e6 itself is scientific, the float just below it fixed; both signs."""
    below, above = np.nextafter(1e-4, 0.0), np.nextafter(1e6, 0.0)
    for sign in (1.0, -1.0):
        assert format_value(sign * 1e-4) == f"{sign * 1e-4:.4f}"
        assert format_value(sign * below) == f"{sign * below:.3e}"
        assert format_value(sign * 1e6) == f"{sign * 1e6:.3e}"
        assert format_value(sign * above) == f"{sign * above:.4f}"


@pytest.mark.parametrize("size", [24, 25])
def test_format_significant_shows_24_values_whole_and_summarises_25(size):
    """An array of planning figures prints whole up to 24 values (every value, counted
    back from the text) and from 25 on as its first and last three with "..." between."""
    values = np.arange(size) + 0.5
    text = format_significant(values)
    shown = [f"{v:.4g}" for v in values]
    if size <= 24:
        assert text == "[" + ", ".join(shown) + "]"
    else:
        assert text == "[" + ", ".join([*shown[:3], "...", *shown[-3:]]) + "]"


def test_format_interval_picks_comparison_c_part_j():
    """format_interval reads entry (c, j) of intervals of shape (n_comparisons, n_parts):
    checked on a 2 x 2 layout, and on the repr of a 3-group equalized-odds test, whose
    row of each comparison shows its own TPR and FPR intervals."""
    from fastfair._format import format_interval

    lo, hi = np.array([[0.1, 0.2], [0.3, 0.4]]), np.array([[1.1, 1.2], [1.3, 1.4]])
    got = {(c, j): format_interval((lo, hi), c, j, 2, 2) for c in range(2) for j in range(2)}
    assert got == {(c, j): f"[{lo[c, j]:.4f}, {hi[c, j]:.4f}]" for c in range(2) for j in range(2)}
    assert format_interval(([0.5, 0.6], [0.7, 0.8]), 1, 0, 2) == "[0.6000, 0.8000]"
    rng = np.random.default_rng(0)
    n = 600
    y, pred, g = rng.random(n) < 0.5, rng.random(n) < 0.5, rng.choice(["a", "b", "c"], n)
    res = fastfair.permutation_test(y, pred, g, metric="equalized_odds", n_permutations=99,
                                    random_state=0)  # fmt: skip
    low, high = (np.reshape(x, (2, 2)) for x in res.confidence_interval)
    lines = repr(res).splitlines()
    for c, (a, b) in enumerate(res.comparisons):
        (line,) = [s for s in lines if s.strip().startswith(f"{a} - {b} ")]
        shown = re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", line)
        assert [tuple(map(float, s)) for s in shown] == [
            pytest.approx((low[c, j], high[c, j]), abs=5e-5) for j in range(2)
        ]


def test_format_table_aligns_the_first_column_left_and_the_others_right():
    """format_table: two leading spaces, columns two apart, the label column padded on the
    right (left-aligned) and every value column on the left (right-aligned), widths from the
    widest cell of each column, header included."""
    from fastfair._format import format_table

    text = format_table(["group", "v"], [["a", 1], ["bbbbbbb", 0.5]])
    assert text.splitlines() == [
        "  " + "group  " + "  " + "     v",
        "  " + "a      " + "  " + "     1",
        "  " + "bbbbbbb" + "  " + "0.5000",
    ]
