"""p-values print at the precision their method has (result reprs, the audit's tables)."""

import numpy as np

import fastfair
from fastfair._results import format_pvalue


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
