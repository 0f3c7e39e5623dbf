"""Paired comparisons of two models (fastfair.compare) against independent computations."""

from __future__ import annotations

import importlib.util
import itertools
import math
import pathlib
import re
import runpy
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fastfair
from fastfair import _paired
from fastfair.compare import PairedStats, compare_auc, compare_models, paired_delong
from fastfair.compare import compare_models_from_counts as from_counts

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "validation" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def two_models(n=3000, seed=0, rho_flip=0.1, shift=0.1):
    """Labels, groups and two correlated binary models (B shifts group 1's scores)."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    score = rng.random(n) + 0.3 * y - 0.15 * group
    a = score > 0.6
    b = score + shift * group + rho_flip * rng.normal(size=n) > 0.6
    return y, a, b, group


# --------------------------------------------------------------------------------------
# kernel
# --------------------------------------------------------------------------------------


def test_paired_counts_equal_a_bincount_of_the_cells():
    y, a, b, group = two_models(200_001, seed=1)
    cells = 4 * y + 2 * a + b
    expected = np.stack([np.bincount(cells[group == g], minlength=8) for g in (0, 1)])
    got = _paired.paired_counts(y.view(np.uint8), a.view(np.uint8), b.view(np.uint8),
                                group.astype(np.intp), 2, 3)  # fmt: skip
    np.testing.assert_array_equal(got, expected)


def test_paired_counts_check_their_inputs():
    u = np.zeros(3, np.uint8)
    with pytest.raises(ValueError, match="same length"):
        _paired.paired_counts(u, u[:2], u, np.zeros(3, np.intp), 1)
    with pytest.raises(ValueError, match="a must lie"):
        _paired.paired_counts(u, u + 2, u, np.zeros(3, np.intp), 1)
    with pytest.raises(ValueError, match="codes"):
        _paired.paired_counts(u, u, u, np.full(3, 4, np.intp), 2)


def test_swap_draws_are_binomial_half_and_do_not_depend_on_threads():
    sizes = np.array([0, 1, 7, 40, 1000, 10**6], dtype=np.int64)
    one = _paired.paired_swaps(sizes, 20000, 99, 0, 1)
    many = _paired.paired_swaps(sizes, 20000, 99, 0, 4)
    np.testing.assert_array_equal(one, many)
    # a later block of permutations continues the same streams
    np.testing.assert_array_equal(_paired.paired_swaps(sizes, 100, 99, 0, 2, 5000),
                                  one[5000:5100])  # fmt: skip
    assert (one[:, 0] == 0).all() and set(np.unique(one[:, 1])) == {0, 1}
    for s, m in enumerate(sizes[1:], start=1):
        mean, var = m / 2, m / 4
        se = math.sqrt(var / len(one))
        assert abs(one[:, s].mean() - mean) < 4 * se
        assert abs(one[:, s].var() / var - 1) < 0.06
    # the whole law for m = 7: chi-square goodness of fit
    observed = np.bincount(one[:, 2], minlength=8)
    expected = stats.binom.pmf(np.arange(8), 7, 0.5) * len(one)
    assert stats.chisquare(observed, expected).pvalue > 1e-3


# --------------------------------------------------------------------------------------
# rates: moments and statistics from rows, written out independently
# --------------------------------------------------------------------------------------

NUM_DEN = {  # (numerator, denominator) indicators of a model's prediction p and label y
    "tpr": lambda y, p: (y & p, y),
    "fpr": lambda y, p: (~y & p, ~y),
    "ppv": lambda y, p: (y & p, p),
    "selection_rate": lambda y, p: (p, np.ones_like(p)),
    "accuracy": lambda y, p: (y == p, np.ones_like(p)),
}


PSEUDO = [(yy, aa, bb) for yy in (0, 1) for aa in (0, 1) for bb in (0, 1)]


def row_statistic(y, a, b, group, metric):
    """(change, variance, statistic, gap_a, gap_b, variance of the sum) of each part, group 1
    vs group 0, from row-level influences; the variances with half a pseudo-row of each
    (label, prediction A, prediction B) per group (Agresti & Min); a zero variance
    studentizes with one discordant row per group (the documented rule)."""
    parts = [metric] if metric != "equalized_odds" else ["tpr", "fpr"]
    out = []
    for part in parts:
        val, var, cov, den = {}, {}, {}, {}
        for h in (0, 1):
            rows = group == h
            yy = np.r_[y[rows], [p[0] for p in PSEUDO]].astype(bool)
            weight = np.r_[np.ones(rows.sum()), np.full(8, 0.5)]
            us = []
            for m, p in (
                ("a", np.r_[a[rows], [q[1] for q in PSEUDO]].astype(bool)),
                ("b", np.r_[b[rows], [q[2] for q in PSEUDO]].astype(bool)),
            ):
                x, w = (v.astype(float) for v in NUM_DEN[part](yy, p))
                real = weight == 1
                rate = x[real].sum() / w[real].sum() if w[real].sum() else 0.0
                shrunk = (weight * x).sum() / (weight * w).sum()
                u = (x - shrunk * w) / (weight * w).sum()
                val[m, h], var[m, h], den[m, h] = rate, (weight * u * u).sum(), w[real].sum()
                us.append(u)
            cov[h] = (weight * us[0] * us[1]).sum()
        d_a, d_b = val["a", 1] - val["a", 0], val["b", 1] - val["b", 0]
        diff = d_b - d_a
        v = sum(var["a", h] + var["b", h] - 2 * cov[h] for h in (0, 1))
        v_sum = sum(var["a", h] + var["b", h] + 2 * cov[h] for h in (0, 1))
        floor = sum(1 / max(den["a", h] * den["b", h], 1) for h in (0, 1))
        if v > 1e-12 * floor:
            t = diff / math.sqrt(v)
        else:
            t = 0.0 if diff == 0 else diff / math.sqrt(floor)
        out.append((diff, v, t, d_a, d_b, v_sum))
    return out


def past_pvalue(part):
    """p-value of "B's gap is not beyond -gap_a": z-test of s (d_b + d_a) > 0."""
    _, _, _, d_a, d_b, v_sum = part
    s = 1.0 if d_a >= 0 else -1.0
    return stats.norm.cdf(-s * (d_a + d_b) / math.sqrt(v_sum))


@pytest.mark.parametrize("metric", ["tpr", "fpr", "ppv", "selection_rate", "accuracy",
                                    "equalized_odds"])  # fmt: skip
def test_change_and_paired_variance_equal_row_level_influences(metric):
    y, a, b, group = two_models(2500, seed=4)
    res = compare_models(y, a, b, group, metric=metric, method="asymptotic", reference=0)
    expected = row_statistic(y, a, b, group, metric)
    diff = np.atleast_1d(res.difference)
    se = np.atleast_1d(res.standard_error)
    for j, (d, v, *_) in enumerate(expected):
        assert diff[j] == pytest.approx(d, abs=1e-13)
        assert se[j] == pytest.approx(math.sqrt(v), rel=1e-10)
    if metric != "equalized_odds":
        z = expected[0][2]
        assert res.statistic == pytest.approx(z, rel=1e-10)
        assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
        s = 1.0 if expected[0][3] >= 0 else -1.0
        reduced = max(stats.norm.cdf(s * z), past_pvalue(expected[0]))
        assert res.pvalue_reduced == pytest.approx(reduced, rel=1e-9)
    else:
        q = sum(t[2] ** 2 for t in expected)
        assert res.statistic == pytest.approx(q, rel=1e-10)
        assert res.pvalue == pytest.approx(stats.chi2.sf(q, 2), rel=1e-9)
        reduced = max(max(stats.norm.cdf((1.0 if t[3] >= 0 else -1.0) * t[2]), past_pvalue(t))
                      for t in expected)  # fmt: skip
        assert res.pvalue_reduced == pytest.approx(reduced, rel=1e-9)


def test_tpr_variance_is_agresti_min_mcnemar():
    y, a, b, group = two_models(3000, seed=5)
    res = compare_models(y, a, b, group, metric="tpr", method="asymptotic")
    for h in (0, 1):  # Agresti & Min: half a pseudo-row in each of the 4 cells of a label
        pos = (group == h) & y
        n = pos.sum() + 2.0
        p10 = ((a[pos] & ~b[pos]).sum() + 0.5) / n
        p01 = ((~a[pos] & b[pos]).sum() + 0.5) / n
        mcnemar = (p10 + p01 - (p01 - p10) ** 2) / n
        assert res.group_change_standard_error[h] ** 2 == pytest.approx(mcnemar, rel=1e-12)
        assert res.group_change[h] == pytest.approx(b[pos].mean() - a[pos].mean(), abs=1e-15)


def _limits(x, n, level):
    """Clopper-Pearson below 50 events or non-events, Wilson elsewhere (scipy)."""
    method = "exact" if min(x, n - x) < 50 else "wilson"
    ci = stats.binomtest(int(x), int(n)).proportion_ci(level, method=method)
    return ci.low, ci.high


def _group_mover(y, a, b, level):
    """(change, distance down, distance up) of TPR under B minus under A in one group,
    written out: each model's TPR limits and the phi coefficient of the 2 x 2 table of the
    positives' two predictions with 1/2 added to every cell."""
    a, b = a[y], b[y]
    n = len(a)
    ra, rb = a.mean(), b.mean()
    (la, ua), (lb, ub) = _limits(a.sum(), n, level), _limits(b.sum(), n, level)
    d, c = (~a & ~b).sum() + 0.5, (~a & b).sum() + 0.5  # (A, B) = 00, 01
    bb, aa = (a & ~b).sum() + 0.5, (a & b).sum() + 0.5  # 10, 11
    phi = (aa * d - bb * c) / math.sqrt((aa + bb) * (c + d) * (aa + c) * (bb + d))
    down = math.sqrt((rb - lb) ** 2 + (ua - ra) ** 2 - 2 * phi * (rb - lb) * (ua - ra))
    up = math.sqrt((ub - rb) ** 2 + (ra - la) ** 2 - 2 * phi * (ub - rb) * (ra - la))
    return rb - ra, down, up


def test_interval_endpoints_are_mover_of_each_models_limits():
    # MOVER (Newcombe's method 10): each model's TPR with Clopper-Pearson or Wilson limits,
    # the two models' rates in a group correlated by the padded phi, groups in squares; a
    # small group (Clopper-Pearson) and a large one (Wilson)
    rng = np.random.default_rng(6)
    y, a, b, group = two_models(3000, seed=6)
    group = np.where(rng.random(3000) < 0.03, 1, 0)  # group 1: ~90 rows, ~40 positives
    for level in (0.8, 0.95, 0.99):
        res = compare_models(y, a, b, group, confidence_level=level, method="asymptotic",
                             reference=0)  # fmt: skip
        (c1, down1, up1), (c0, down0, up0) = (
            _group_mover(y[group == h], a[group == h], b[group == h], level) for h in (1, 0)
        )
        lo, hi = res.confidence_interval
        assert res.difference == pytest.approx(c1 - c0, abs=1e-14)
        assert lo == pytest.approx(c1 - c0 - math.sqrt(down1**2 + up0**2), abs=1e-12)
        assert hi == pytest.approx(c1 - c0 + math.sqrt(up1**2 + down0**2), abs=1e-12)
        glo, ghi = res.group_change_interval
        np.testing.assert_allclose(glo, [c0 - down0, c1 - down1], atol=1e-12)
        np.testing.assert_allclose(ghi, [c0 + up0, c1 + up1], atol=1e-12)


def test_auc_interval_is_mover_of_each_models_hybrid_limits():
    from fastfair.tolerance import auc_limits

    rng = np.random.default_rng(3)
    n = 400
    group = (rng.random(n) < 0.9).astype(int)
    y = rng.random(n) < 0.5
    sa = y + rng.normal(size=n)
    sb = sa + 0.5 * y + 0.3 * rng.normal(size=n)
    res = compare_auc(y, sa, sb, group, method="delong", reference=1)
    (lo,), (hi,) = res.confidence_interval if np.ndim(res.confidence_interval[0]) else (
        [res.confidence_interval[0]], [res.confidence_interval[1]])  # fmt: skip
    parts = []
    for h in (0, 1):
        # paired_delong: pROC's paired DeLong moments (validation/paired_delong_proc.R)
        d = paired_delong(y[group == h], sa[group == h], sb[group == h])
        npos, nneg = y[group == h].sum(), (~y[group == h]).sum()
        ra, rb, va, vb = (float(v[0]) for v in (d.auc_a, d.auc_b, d.variance_a, d.variance_b))
        (la, lb), (ua, ub) = auc_limits([ra, rb], [va, vb], npos, nneg)
        phi = float(d.covariance[0]) / math.sqrt(va * vb)
        down = (rb - lb) ** 2 + (ua - ra) ** 2 - 2 * phi * (rb - lb) * (ua - ra)
        up = (ub - rb) ** 2 + (ra - la) ** 2 - 2 * phi * (ub - rb) * (ra - la)
        parts.append((rb - ra, down, up))
    (c0, down0, up0), (c1, down1, up1) = parts
    assert lo == pytest.approx(c0 - c1 - math.sqrt(down0 + up1), abs=1e-10)
    assert hi == pytest.approx(c0 - c1 + math.sqrt(up0 + down1), abs=1e-10)
    # the small group has 40 rows: Newcombe's limits widen it beyond the DeLong Wald interval
    assert hi - lo > 2 * 1.959964 * res.standard_error


def test_noninferiority_pvalue_is_the_shifted_normal_tail():
    y, a, b, group = two_models(3000, seed=7)
    part = row_statistic(y, a, b, group, "tpr")[0]
    _, v, _, d_a, d_b, v_sum = part
    s = 1.0 if d_a >= 0 else -1.0
    for delta in (0.0, 0.02, 0.1):
        res = compare_models(y, a, b, group, delta=delta, method="asymptotic", reference=0)
        toward = stats.norm.cdf((s * (d_b - d_a) - delta) / math.sqrt(v))
        past = stats.norm.cdf(-(s * (d_b + d_a) + delta) / math.sqrt(v_sum))
        assert res.pvalue_noninferior == pytest.approx(max(toward, past), rel=1e-10)
    big = compare_models(y, a, b, group, delta=0.1, random_state=0)
    small = compare_models(y, a, b, group, delta=0.0, random_state=0)
    assert big.pvalue_noninferior < small.pvalue_noninferior


# --------------------------------------------------------------------------------------
# exact and Monte-Carlo swap distributions against enumeration of every row swap
# --------------------------------------------------------------------------------------


def tiny(seed):
    rng = np.random.default_rng(seed)
    group = np.repeat([0, 1], [9, 8])
    y = rng.random(17) < 0.6
    y[[0, 1, 9, 10]] = True
    y[[2, 11]] = False
    a = rng.random(17) < 0.5
    b = a.copy()
    flip = rng.choice(17, 9, replace=False)
    b[flip] = ~b[flip]
    return y, a, b, group


def swaps(y, a, b, group, metric):
    """The row-level statistics of every swap of the discordant rows."""
    disc = np.flatnonzero(a != b)
    for swap in itertools.product([False, True], repeat=len(disc)):
        aa, bb = a.copy(), b.copy()
        idx = disc[np.array(swap, dtype=bool)]
        aa[idx], bb[idx] = b[idx], a[idx]
        yield [t[2] for t in row_statistic(y, aa, bb, group, metric)]


@pytest.mark.parametrize("metric", ["tpr", "ppv", "accuracy", "equalized_odds"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_exact_pvalues_are_averages_over_every_row_swap(metric, seed):
    y, a, b, group = tiny(seed)
    try:
        res = compare_models(y, a, b, group, metric=metric, method="exact", reference=0)
    except ValueError as exc:  # a group without predicted positives under a model
        assert "undefined" in str(exc)
        return
    parts = row_statistic(y, a, b, group, metric)
    null = np.array(list(swaps(y, a, b, group, metric)))
    obs = np.array([t[2] for t in parts])
    sign = np.array([1.0 if t[3] >= 0 else -1.0 for t in parts])
    if metric == "equalized_odds":
        two = np.mean((null**2).sum(axis=1) >= (obs**2).sum() - 1e-9)
    else:
        two = np.mean(np.abs(null[:, 0]) >= abs(obs[0]) - 1e-9)
    toward = [np.mean(sign[j] * null[:, j] <= sign[j] * obs[j] + 1e-9) for j in range(len(obs))]
    less = max(max(toward), *(past_pvalue(t) for t in parts))
    assert res.pvalue == pytest.approx(two, abs=1e-12)
    assert res.pvalue_reduced == pytest.approx(less, abs=1e-12)


def test_monte_carlo_pvalue_is_recomputed_from_its_null_distribution():
    y, a, b, group = two_models(4000, seed=8, shift=0.03)
    res = compare_models(y, a, b, group, method="permutation", n_permutations=2999,
                         random_state=1, return_null=True)  # fmt: skip
    null = res.null_distribution[:, 0, 0]
    assert null.shape == (2999,)
    expected = (1 + np.sum(np.abs(null) >= abs(res.statistic) * (1 - 1e-12))) / 3000
    assert res.pvalue == pytest.approx(expected, abs=1e-15)
    s = 1.0 if res.gap_a >= 0 else -1.0
    toward = 1 + np.sum(s * null <= s * res.statistic + 1e-12 * max(abs(res.statistic), 1))
    assert res.pvalue_reduced >= toward / 3000 - 1e-15
    exact = compare_models(y, a, b, group, method="exact").pvalue
    assert abs(res.pvalue - exact) < 4 * math.sqrt(exact * (1 - exact) / 2999) + 1e-3


def test_permutations_do_not_depend_on_the_thread_count():
    from fastfair import _parallel

    y, a, b, group = two_models(20_000, seed=9, shift=0.02)
    g = np.where(group == 1, np.arange(20_000) % 5, 9)
    runs = []
    with _parallel.force_parallel():
        for n_jobs in (1, 2, 3, 4):
            res = compare_models(y, a, b, g, metric="equalized_odds", method="permutation",
                                 n_permutations=5000, random_state=3, n_jobs=n_jobs,
                                 return_null=True)  # fmt: skip
            runs.append(res.null_distribution)
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0], other)


# --------------------------------------------------------------------------------------
# mergeable counts, engines, errors
# --------------------------------------------------------------------------------------


def test_paired_stats_merge_equals_the_whole_and_from_counts_equals_rows():
    y, a, b, group = two_models(5000, seed=10)
    labels = np.array(["p", "q"])[group]
    whole = PairedStats.from_arrays(y, a, b, labels)
    parts = [PairedStats.from_arrays(y[s], a[s], b[s], labels[s])
             for s in (slice(0, 100), slice(100, 3000), slice(3000, None))]  # fmt: skip
    merged = parts[2] + parts[0] + parts[1]
    np.testing.assert_array_equal(merged.counts, whole.counts)
    assert merged.labels.tolist() == ["p", "q"]
    rows = compare_models(y, a, b, labels, metric="ppv", random_state=2, delta=0.05)
    summary = merged.test(metric="ppv", random_state=2, delta=0.05)
    for field in ("statistic", "pvalue", "pvalue_reduced", "pvalue_noninferior", "difference"):
        assert getattr(rows, field) == getattr(summary, field)


def test_dask_compare_models_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    import fastfair.dask

    y, a, b, group = two_models(3000, seed=11)
    frame = pd.DataFrame({"y": y, "a": a, "b": b, "g": group})
    df = dd.from_pandas(frame, npartitions=5)
    res = fastfair.dask.compare_models(df, "y", "a", "b", "g", metric="fpr", random_state=0,
                                       scheduler="sync")  # fmt: skip
    ref = compare_models(y, a, b, group, metric="fpr", random_state=0)
    assert res.pvalue == ref.pvalue and res.difference == ref.difference


def test_bad_input_names_the_argument():
    y, a, b, group = two_models(300, seed=12)
    with pytest.raises(ValueError, match="y_pred_b"):
        compare_models(y, a, b[:-1], group)
    with pytest.raises(ValueError, match=r"y_pred_a must be binary.*compare_auc"):
        compare_models(y, np.linspace(0, 1, 300), b, group)
    with pytest.raises(ValueError, match=r"identical.*0 by construction"):
        compare_models(y, a, a.copy(), group)
    ia, ib = pd.Series(a), pd.Series(b, index=np.arange(300) + 5)
    with pytest.raises(ValueError, match=r"y_pred_b and y_pred_a .*indexes"):
        compare_models(y, ia, ib, group)
    never = np.zeros(300, dtype=bool)
    never[group == 0] = a[group == 0]
    with pytest.raises(ValueError, match=r"group 1 has no predicted positives.*model A"):
        compare_models(y, never, b, group, metric="ppv")
    with pytest.raises(ValueError, match="metric"):
        compare_models(y, a, b, group, metric="auc")
    with pytest.raises(ValueError, match="delta"):
        compare_models(y, a, b, group, delta=-0.1)
    with pytest.raises(ValueError, match="method"):
        compare_models(y, a, b, group, method="delong")
    with pytest.raises(ValueError, match="identical"):
        compare_auc(y, a * 1.0, a * 1.0, group)
    with pytest.raises(ValueError, match="counts must have shape"):
        from_counts(np.ones((2, 4)))
    big = [[0, 400, 400, 0, 0, 400, 400, 0]] * 2  # 401^4 swap tables for equalized odds
    with pytest.raises(ValueError, match="exact test is infeasible"):
        from_counts(big, metric="equalized_odds", method="exact")


def test_pandas_inputs_are_paired_by_index():
    y, a, b, group = two_models(2000, seed=13)
    order = np.random.default_rng(0).permutation(2000)
    sb = pd.Series(b).iloc[order]  # same labels, other order: realigned
    res = compare_models(pd.Series(y), pd.Series(a), sb, pd.Series(group), random_state=0)
    ref = compare_models(y, a, b, group, random_state=0)
    assert res.difference == ref.difference and res.pvalue == ref.pvalue


def test_one_sided_test_reads_the_direction_of_the_change():
    y, a, b, group = two_models(4000, seed=14)  # B closes the tpr gap
    closes = compare_models(y, a, b, group, random_state=0)
    opens = compare_models(y, b, a, group, random_state=0)
    assert closes.gap_a < 0 and closes.difference > 0  # group 1's tpr caught up
    assert abs(closes.gap_b) < abs(closes.gap_a)
    assert closes.pvalue_reduced < 0.001 and opens.pvalue_reduced > 0.999
    assert closes.difference == pytest.approx(-opens.difference, abs=1e-15)


def test_result_frame_and_repr():
    y, a, b, group = two_models(3000, seed=15)
    res = compare_models(y, a, b, np.array(["x", "y", "z"])[group + (np.arange(3000) % 2)],
                         metric="equalized_odds", delta=0.05, random_state=0)  # fmt: skip
    frame = res.to_frame()
    assert len(frame) == 2 * 2 and set(frame.part) == {"tpr", "fpr"}
    assert res.pvalue_adjusted is not None and len(res.comparisons) == 2
    text = repr(res)
    assert "gap A" in text and "p (non-inferior)" in text
    assert isinstance(res.to_dict()["groups"], list)


def _three_groups_two_models():
    """900 rows in three groups; model B flips A's prediction more often in later groups,
    so the comparisons' p-values differ: (y, group, a, b)."""
    rng = np.random.default_rng(62)
    n = 900
    y = rng.random(n) < 0.5
    group = rng.integers(0, 3, n)
    a = rng.random(n) < 0.5
    b = np.where(rng.random(n) < 0.25 * (1 + group), ~a, a)
    return y, group, a, b


def test_model_comparison_repr_rows_read_back_the_rates_counted_from_the_rows():
    """Every number of the repr: each group's TPR under A and B (counted with numpy), their
    change; each comparison's gaps (group minus reference), change of gap, its interval
    (as in to_frame) and the two p-values (the asymptotic two-sided one from the
    studentized change), with three groups so that the comparisons differ."""
    y, group, a, b = _three_groups_two_models()
    res = compare_models(y, a, b, group, metric="tpr", method="asymptotic", reference=1)
    lines = repr(res).splitlines()
    tpr = {m: np.array([pred[(group == k) & y].mean() for k in range(3)]) for m, pred in
           (("a", a), ("b", b))}  # fmt: skip
    for k in range(3):
        cells = [float(v) for v in lines[2 + k].split()]
        assert cells[0] == k
        assert cells[1:4] == pytest.approx([tpr["a"][k], tpr["b"][k],
                                            tpr["b"][k] - tpr["a"][k]], abs=5e-5)  # fmt: skip
    assert lines[5].split()[:3] == ["comparison", "gap", "A"]
    frame = res.to_frame()
    for c, g in enumerate((0, 2)):
        name, cells = lines[6 + c][:12].split(), [float(v) for v in lines[6 + c][12:].split()]
        assert name == [str(g), "vs", "1"]
        gap_a, gap_b = tpr["a"][g] - tpr["a"][1], tpr["b"][g] - tpr["b"][1]
        assert cells[:3] == pytest.approx([gap_a, gap_b, gap_b - gap_a], abs=5e-5)
        assert cells[3:5] == pytest.approx([frame.ci_low[c], frame.ci_high[c]], abs=5e-5)
        z = res.difference[c] / res.standard_error[c]
        assert cells[5] == pytest.approx(2 * stats.norm.sf(abs(z)), abs=5e-5)
        assert cells[6] == pytest.approx(frame.pvalue_reduced[c], abs=5e-5)
        assert frame.pvalue_reduced[c] != pytest.approx(frame.pvalue[c], abs=1e-3)


# --------------------------------------------------------------------------------------
# AUC: paired DeLong against brute force and pROC
# --------------------------------------------------------------------------------------


def brute_paired_delong(y, a, b):
    """AUCs, variances and covariance from the O(n+ n-) structural components."""
    pos, neg = y == 1, y == 0

    def psi(s):
        d = s[pos][:, None] - s[neg][None, :]
        return (d > 0) + 0.5 * (d == 0)

    pa, pb = psi(a), psi(b)
    v10 = np.stack([pa.mean(axis=1), pb.mean(axis=1)])
    v01 = np.stack([pa.mean(axis=0), pb.mean(axis=0)])
    s = np.cov(v10) / pos.sum() + np.cov(v01) / neg.sum()
    return pa.mean(), pb.mean(), s[0, 0], s[1, 1], s[0, 1]


def test_paired_delong_equals_the_structural_components():
    rng = np.random.default_rng(16)
    y = rng.random(300) < 0.3
    a = np.round(rng.normal(size=300) + y, 1)
    b = np.round(a + rng.normal(size=300) * 0.5, 1)
    group = rng.integers(0, 3, 300)
    res = paired_delong(y, a, b, group)
    for g in range(3):
        rows = group == g
        auc_a, auc_b, va, vb, c = brute_paired_delong(y[rows], a[rows], b[rows])
        assert (res.auc_a[g], res.auc_b[g]) == pytest.approx((auc_a, auc_b), abs=1e-14)
        assert (res.variance_a[g], res.variance_b[g], res.covariance[g]) == pytest.approx(
            (va, vb, c), abs=1e-15)  # fmt: skip
        z = (auc_b - auc_a) / math.sqrt(va + vb - 2 * c)
        assert res.statistic[g] == pytest.approx(z, rel=1e-11)


def test_paired_delong_repr_rows_read_back_each_groups_brute_force_values():
    """Every column of the repr's group rows (model A's AUC left of model B's, the counts
    of positives and negatives) against the structural components and counts of the rows."""
    rng = np.random.default_rng(61)
    y = rng.random(120) < 0.4
    group = rng.integers(0, 2, 120)
    a = rng.random(120) + 0.6 * y  # model A separates well, model B does not
    b = rng.random(120)
    lines = repr(paired_delong(y, a, b, group)).splitlines()
    assert lines[1].split() == ["group", "auc", "A", "auc", "B", "covariance", "statistic",
                                "pvalue", "n_pos", "n_neg"]  # fmt: skip
    for g, line in zip(range(2), lines[2:4]):
        rows = group == g
        auc_a, auc_b, va, vb, c = brute_paired_delong(y[rows], a[rows], b[rows])
        cells = line.split()
        assert cells[0] == str(g)
        assert float(cells[1]) == pytest.approx(auc_a, abs=5e-5)
        assert float(cells[2]) == pytest.approx(auc_b, abs=5e-5)
        z = (auc_b - auc_a) / math.sqrt(va + vb - 2 * c)
        assert float(cells[4]) == pytest.approx(z, abs=5e-5)
        assert (int(cells[6]), int(cells[7])) == (int(y[rows].sum()), int((~y[rows]).sum()))


def test_paired_delong_equals_recorded_proc():
    module = _load("paired_delong_proc")
    assert module.compare(module.read_recorded()) < 1e-12


def _proc_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(["Rscript", "-e", "library(pROC)"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _proc_available(), reason="Rscript with pROC is not installed")
def test_paired_delong_equals_proc_run_now(tmp_path):
    module = _load("paired_delong_proc")
    out = tmp_path / "proc.txt"
    subprocess.run(["Rscript", str(ROOT / "validation" / "paired_delong_proc.R"),
                    str(module.DATA), str(out)], check=True, cwd=ROOT)  # fmt: skip
    assert module.compare(module.read_recorded(out)) < 1e-12


def test_compare_auc_gap_uses_the_paired_delong_moments():
    rng = np.random.default_rng(17)
    n = 4000
    group = rng.integers(0, 2, n)
    y = rng.random(n) < 0.3
    noise = rng.normal(size=n)
    a = noise + y * (1.0 - 0.4 * group)
    b = noise + y * (1.0 - 0.1 * group) + 0.3 * rng.normal(size=n)
    res = compare_auc(y, a, b, group, method="delong", reference=0)
    pd_ = paired_delong(y, a, b, group)
    d_a = pd_.auc_a[1] - pd_.auc_a[0]
    d_b = pd_.auc_b[1] - pd_.auc_b[0]
    var = sum(pd_.variance_a[h] + pd_.variance_b[h] - 2 * pd_.covariance[h] for h in (0, 1))
    assert res.difference == pytest.approx(d_b - d_a, abs=1e-15)
    assert res.standard_error == pytest.approx(math.sqrt(var), rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(res.statistic)), rel=1e-12)
    np.testing.assert_allclose(res.group_change, pd_.auc_b - pd_.auc_a, atol=1e-15)


def test_compare_auc_permutation_pvalue_from_its_null_and_close_to_delong():
    rng = np.random.default_rng(18)
    n = 1200
    group = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    noise = rng.normal(size=n)
    a = noise + y * (1.0 - 0.5 * group)
    b = noise + y * (1.0 - 0.3 * group) + 0.4 * rng.normal(size=n)
    perm = compare_auc(y, a, b, group, method="permutation", n_permutations=399,
                       random_state=0, return_null=True)  # fmt: skip
    null = perm.null_distribution[:, 0, 0]
    assert perm.pvalue == pytest.approx((1 + np.sum(np.abs(null) >= abs(perm.statistic)
                                                    * (1 - 1e-12))) / 400)  # fmt: skip
    assert abs(null.std() - 1) < 0.15  # studentized: the swap distribution is near N(0, 1)
    delong = compare_auc(y, a, b, group, method="delong")
    assert delong.statistic == perm.statistic
    assert abs(perm.pvalue - delong.pvalue) < 0.05
    again = compare_auc(y, a, b, group, method="permutation", n_permutations=399,
                        random_state=0, return_null=True)  # fmt: skip
    np.testing.assert_array_equal(again.null_distribution, perm.null_distribution)


# --------------------------------------------------------------------------------------
# level and power (quick; validation/compare_level.py is the full run)
# --------------------------------------------------------------------------------------


def test_level_and_power_quick():
    """rho 0.9, 100 data sets per setting: every paired test (and "B reduces the gap" at its
    boundary) within alpha + 3 SE under equal gaps; the power twin: the paired tests find a
    closed gap that the unpaired comparison of the same change misses."""
    module = _load("compare_level")
    rows = module.run(quick=True)
    assert {r["metric"] for r in rows} == {"tpr", "auc"}
    for row in rows:
        if row["kind"] == "null":
            bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / row["n_sim"])
            assert all(row[m] <= bound for m in row["methods"]), row
        else:
            paired = row["paired_default"] if row["metric"] == "tpr" else row["paired_delong"]
            assert paired > 0.3 and paired > row["unpaired"] + 0.2, row
    assert "alpha + 3 SE" in module.format_rows(rows)


# --------------------------------------------------------------------------------------
# the worked example of docs/compare.md (its numbers are asserted here)
# --------------------------------------------------------------------------------------


def test_docs_worked_example_on_the_demo_data():
    from importlib.resources import files

    df = pd.read_csv(files("fastfair") / "data" / "adult_demo.csv")
    fair = fastfair.fair_thresholds(df.label, df.score, df.sex, 0.5)
    thresholds = dict(zip(fair.groups, fair.thresholds))
    mitigated = df.score >= df.sex.map(thresholds)
    assert [round(t, 4) for t in fair.thresholds] == [0.5018, 0.4958]
    res = compare_models(df.label, df.prediction, mitigated, df.sex, metric="tpr", delta=0.01,
                         random_state=0)  # fmt: skip
    assert res.method == "exact, asymptotic" and res.comparisons == [("Female", "Male")]
    assert (round(res.gap_a, 4), round(res.gap_b, 4)) == (-0.0634, -0.0677)
    assert (round(res.difference, 4), round(res.standard_error, 4)) == (-0.0043, 0.0021)
    assert [round(x, 4) for x in res.confidence_interval] == [-0.0084, -0.0002]
    assert (round(res.pvalue, 4), round(res.pvalue_reduced, 4)) == (0.0372, 1.0)
    assert round(res.pvalue_noninferior, 4) == 0.0029
    assert res.group_discordant.tolist() == [0, 14]
    exact = compare_models(df.label, df.prediction, mitigated, df.sex, method="exact")
    assert round(exact.pvalue, 4) == 0.0001
    # the unpaired comparison of the same change (the covariance ignored) sees nothing
    unpaired = math.sqrt(((res.group_metric_a * (1 - res.group_metric_a)
                           + res.group_metric_b * (1 - res.group_metric_b))
                          / np.array([590, 3256])).sum())  # fmt: skip
    assert round(unpaired, 4) == 0.0314
    assert round(2 * stats.norm.sf(abs(res.difference) / unpaired), 2) == 0.89
    sel = compare_models(df.label, df.prediction, mitigated, df.sex, metric="selection_rate",
                         delta=0.01, random_state=0)  # fmt: skip
    assert (round(sel.gap_a, 4), round(sel.gap_b, 4)) == (-0.1696, -0.1725)
    assert round(sel.pvalue, 7) == 1.4e-6 and sel.pvalue_noninferior < 1e-16
    ppv = compare_models(df.label, df.prediction, mitigated, df.sex, metric="ppv", delta=0.01,
                         random_state=0)  # fmt: skip
    assert (round(ppv.gap_a, 4), round(ppv.gap_b, 4), round(ppv.pvalue, 3)) == (
        0.0165, 0.0212, 0.096)  # fmt: skip
    assert round(ppv.pvalue_noninferior, 3) == 0.146
    cal = fastfair.GroupCalibrator().fit(df.score, df.label, df.sex)
    calibrated = cal.transform(df.score, df.sex)
    auc = compare_auc(df.label, df.score, calibrated, df.sex, method="delong")
    assert [round(x, 4) for x in auc.group_metric_a] == [0.9313, 0.8813]
    assert [round(x, 4) for x in auc.group_metric_b] == [0.9325, 0.8815]
    assert (round(auc.gap_a, 4), round(auc.gap_b, 4), round(auc.pvalue, 4)) == (
        0.05, 0.051, 0.0092)  # fmt: skip
    pdl = paired_delong(df.label, df.score, calibrated, df.sex)
    assert [round(z, 2) for z in pdl.statistic] == [3.23, 1.93]


def test_auto_pvalues_are_the_larger_of_the_swap_and_asymptotic_tests():
    """One group's predictions do not change (no discordant rows), the other's all move one
    way: the swap test rejects exchangeability outright, but whether the gaps differ rests
    on the unchanged group's sampling error too, which only the asymptotic test counts."""
    y, a, b, group = two_models(3000, seed=19)
    b = np.where(group == 0, a, b)
    auto = compare_models(y, a, b, group, metric="tpr", delta=0.02, random_state=0)
    exact = compare_models(y, a, b, group, metric="tpr", method="exact")
    asym = compare_models(y, a, b, group, metric="tpr", method="asymptotic", delta=0.02)
    assert auto.method == "exact, asymptotic" and auto.statistic == exact.statistic
    assert auto.pvalue == max(exact.pvalue, asym.pvalue)
    assert auto.pvalue_reduced == max(exact.pvalue_reduced, asym.pvalue_reduced)
    assert auto.pvalue_noninferior == asym.pvalue_noninferior
    mc = compare_models(y, a, b, group, n_permutations=999, random_state=0, method="auto",
                        metric="fpr")  # fmt: skip
    assert mc.method.endswith("asymptotic")


# --------------------------------------------------------------------------------------
# the audit: "did the gap shrink?"
# --------------------------------------------------------------------------------------


def _audit_frame(n=4000, seed=20):
    y, a, b, group = two_models(n, seed=seed, shift=0.12)
    rng = np.random.default_rng(seed + 1000)  # h independent of the rest
    return pd.DataFrame({"y": y.astype(int), "a": a.astype(int), "b": b.astype(int),
                         "g": np.array(["u", "v"])[group],
                         "h": rng.choice(["p", "q", "r"], n)})  # fmt: skip


def test_audit_compare_rows_are_the_paired_tests_adjusted_together():
    df = _audit_frame()
    res = fastfair.audit("y", "a", ["g", "h"], data=df, compare=("a", "b"),
                         metrics=["tpr", "equalized_odds"], n_permutations=99)  # fmt: skip
    rows = res.model_comparison
    assert len(rows) == 2 * (1 + 2) and res.columns["compare"] == ["a", "b"]
    first = rows[0]
    assert (first["attribute"], first["metric"], first["group"], first["reference"]) == (
        "g", "tpr", "v", "u")  # fmt: skip
    ref = compare_models(df.y, df.a, df.b, df.g, metric="tpr", reference="u", random_state=0)
    assert first["pvalue"] == ref.pvalue and first["difference"] == ref.difference
    assert first["pvalue_reduced"] == ref.pvalue_reduced
    holm = fastfair._pvalues.adjust_pvalues([r["pvalue_reduced"] for r in rows], "holm")
    assert [r["pvalue_reduced_adjusted"] for r in rows] == holm.tolist()
    assert first["verdict"] == "gap shrank"  # B closes group v's TPR gap
    verdicts = {"gap shrank", "gap grew", "gap changed", "no evidence of a change"}
    assert all(r["verdict"] in verdicts for r in rows)
    assert "Did the gap shrink?" in res.format() and res.to_dict()["model_comparison"] == rows
    from fastfair.auditing.report import audit_html

    assert "<h2>Did the gap shrink?</h2>" in audit_html(res)
    plain = fastfair.audit("y", "a", ["g"], data=df, metrics=["tpr"], n_permutations=99)
    assert plain.model_comparison == [] and "Did the gap" not in plain.format()


_holm_by_hand = runpy.run_path(str(pathlib.Path(__file__).with_name("_by_hand.py")))["holm"]


def test_audit_compare_printed_table_reads_back_each_row_with_its_own_adjusted_pvalues():
    """The printed "did the gap shrink?" table, cell by cell: gaps and change [interval] to
    3 decimals (equalized odds: TPR / FPR), "p (equal)" the Holm adjustment (written out)
    of the equal-gaps p-values, "p (shrank)" that of the reduction's, each printed as a bound
    ("< x") only when its own raw p-value is below what the method resolves (1e-16), and the
    verdict. Here the first row's equal-gaps p-value is below 1e-16 and its reduction's is
    not; Holm moves the p-values, so a raw one in either column shows."""
    df = _audit_frame()
    res = fastfair.audit("y", "a", ["g", "h"], data=df, compare=("a", "b"),
                         metrics=["tpr", "equalized_odds"], n_permutations=99)  # fmt: skip
    rows = res.model_comparison
    equal = _holm_by_hand([r["pvalue"] for r in rows])
    shrank = _holm_by_hand([r["pvalue_reduced"] for r in rows])
    assert rows[0]["pvalue"] < 1e-16 < rows[0]["pvalue_reduced"]
    text = res.format()
    lines = text[text.index("Did the gap shrink?") :].splitlines()[3 : 3 + len(rows)]

    def fixed(x):
        return " / ".join(f"{v:.3f}" for v in x) if isinstance(x, list) else f"{x:.3f}"

    def shown(raw, adjusted):  # 4 decimals, else 4 significant digits; a bound below 1e-16
        if raw < 1e-16:
            return f"< {adjusted:.3g}"
        return f"{adjusted:.4f}" if adjusted >= 1e-4 else f"{adjusted:.3e}"

    moved = np.zeros(2, dtype=int)  # rows whose printed adjusted p-value is not the raw one
    for line, r, eq, sh in zip(lines, rows, equal, shrank, strict=True):
        cells = re.split(r"\s{2,}", line.strip())
        assert cells[:3] == [r["attribute"], r["metric"], f"{r['group']} vs {r['reference']}"]
        assert cells[3:5] == [fixed(r["gap_a"]), fixed(r["gap_b"])]
        parts = zip(*(np.atleast_1d(r[k]).tolist() for k in ("difference", "ci_low",
                                                              "ci_high")))  # fmt: skip
        assert cells[5] == " / ".join(f"{d:.3f} [{lo:.3f}, {hi:.3f}]" for d, lo, hi in parts)
        assert cells[6:8] == [shown(r["pvalue"], eq), shown(r["pvalue_reduced"], sh)], cells
        assert cells[8] == r["verdict"]
        moved += [shown(r[k], adj) != shown(r[k], r[k])
                  for k, adj in (("pvalue", eq), ("pvalue_reduced", sh))]  # fmt: skip
    assert moved.min() >= 2


def test_audit_compare_scores_add_the_auc_and_errors_stay_in_their_row():
    rng = np.random.default_rng(21)
    n = 3000
    group = rng.choice(["x", "y", "z"], n, p=[0.6, 0.39, 0.01])
    y = rng.random(n) < 0.4
    y[group == "z"] = False  # no positives: tpr and the AUC are undefined there
    s_a = rng.random(n) + 0.3 * y
    s_b = s_a + 0.05 * rng.normal(size=n)
    res = fastfair.audit(y, s_a >= 0.6, {"grp": group}, compare=(s_a, s_b), threshold=0.6,
                         metrics=["tpr"], min_group_size=5, n_permutations=99)  # fmt: skip
    by = {(r["metric"], r["group"]): r for r in res.model_comparison}
    assert set(by) == {("tpr", "y"), ("auc", "y"), ("tpr", "z"), ("auc", "z")}
    assert by["auc", "y"]["method"] == "permutation"  # 470 positives: too few for DeLong
    assert "'z' has no positives" in by["tpr", "z"]["error"]
    assert "no positives" in by["auc", "z"]["error"]
    assert res.columns["compare"] == ["model A", "model B"]
    with pytest.raises(TypeError, match="compare must be a pair"):
        fastfair.audit(y, s_a >= 0.6, {"grp": group}, compare=s_a)
    with pytest.raises(ValueError, match="finite"):
        fastfair.audit(y, s_a >= 0.6, {"grp": group}, compare=(s_a, s_b[:-1]))


def test_audit_compare_error_rows_name_the_reference_when_it_lacks_positives():
    """A reference without positive labels (counted here) fails every comparison of the two
    models against it, and each message names the reference, not the compared group nor
    its code in the pair (the rate's and the AUC's)."""
    rng = np.random.default_rng(1)
    g = np.repeat(["a", "b", "c"], [30, 40, 20])
    y = rng.random(90) < 0.5
    y[g == "b"] = False
    s_a, s_b = rng.random(90), rng.random(90)
    assert not y[g == "b"].any() and y[g == "a"].any() and y[g == "c"].any()
    res = fastfair.audit(y, s_a >= 0.5, {"g": g}, compare=(s_a, s_b), metrics=["tpr"],
                         reference="b", n_permutations=99)  # fmt: skip
    errors = [(r["metric"], r["group"], r["error"]) for r in res.model_comparison]
    tpr = "'b' has no positives (y_true = 1) under model A (y_pred_a), so tpr is undefined for it"
    auc = "'b' has no positives, so its AUC is undefined"
    assert errors == [("tpr", "a", tpr), ("auc", "a", auc), ("tpr", "c", tpr), ("auc", "c", auc)]
    assert all(r["verdict"] == "not tested" for r in res.model_comparison)


#: The keys of a comparison row, in the order the dicts of the audit had them before the
#: rows were typed (#27): a row that ran, and one that could not.
COMPARE_KEYS = ["attribute", "family", "metric", "group", "reference", "gap_a", "gap_b",
                "difference", "ci_low", "ci_high", "pvalue", "pvalue_reduced", "method",
                "n_discordant", "pvalue_adjusted", "pvalue_reduced_adjusted",
                "verdict"]  # fmt: skip
COMPARE_ERROR_KEYS = ["attribute", "family", "metric", "group", "reference", "error", "verdict"]


def test_audit_compare_rows_are_frozen_typed_rows_read_as_the_old_dicts():
    import dataclasses
    import json

    rng = np.random.default_rng(21)
    n = 3000
    group = rng.choice(["x", "y", "z"], n, p=[0.6, 0.39, 0.01])
    y = rng.random(n) < 0.4
    y[group == "z"] = False  # no positives: tpr undefined in z, an error row
    s_a = rng.random(n) + 0.3 * y
    s_b = s_a + 0.05 * rng.normal(size=n)
    res = fastfair.audit(y, s_a >= 0.6, {"grp": group}, compare=(s_a > 0.6, s_b > 0.6),
                         metrics=["tpr"], min_group_size=5, n_permutations=99)  # fmt: skip
    ran, failed = res.model_comparison
    assert all(isinstance(r, fastfair.ModelComparisonRow) for r in res.model_comparison)
    assert list(ran) == COMPARE_KEYS and list(failed) == COMPARE_ERROR_KEYS
    with pytest.raises(dataclasses.FrozenInstanceError):
        ran.pvalue = 0.5
    with pytest.raises(KeyError):
        failed["pvalue"]
    assert failed.pvalue is fastfair.auditing.results.ABSENT and failed.get("pvalue") is None
    assert ran["pvalue"] == ran.pvalue and ran.to_dict() == dict(ran) == ran
    exported = res.to_dict()["model_comparison"]
    assert exported == [dict(r) for r in res.model_comparison]
    assert [list(d) for d in exported] == [COMPARE_KEYS, COMPARE_ERROR_KEYS]
    assert json.loads(res.to_json())["model_comparison"] == exported
    assert repr(failed).startswith("ModelComparisonRow(attribute='grp', family='compare'")
    assert list(ran.to_frame().columns) == COMPARE_KEYS


def test_cli_audit_compare(tmp_path, capsys):
    from fastfair.cli.commands import main

    path = tmp_path / "rows.csv"
    _audit_frame().to_csv(path, index=False)
    base = ["audit", str(path), "--label", "y", "--pred", "a", "--group", "g",
            "--metrics", "tpr", "--permutations", "99", "--quiet"]  # fmt: skip
    out = tmp_path / "audit.json"
    assert main([*base, "--compare", "a", "b", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Did the gap shrink? model B (b) against model A (a)" in text and "gap shrank" in text
    import json

    assert json.loads(out.read_text())["model_comparison"][0]["verdict"] == "gap shrank"
    assert main([*base, "--compare", "a", "nope"]) != 0
    assert "unknown --compare column 'nope'" in capsys.readouterr().err


def test_swap_kernel_moments_equal_paired_delong_of_the_swapped_scores():
    """The swap permutations of compare_auc sweep the pre-sorted scores once per
    permutation: each permutation's moments equal paired_auc_moments of the scores swapped
    as swap_bits says (ties, three groups, two threads, a start offset)."""
    from fastfair import _paired
    from fastfair.compare.statistics import SortedScores, paired_auc_moments, swap_auc_moments

    rng = np.random.default_rng(3)
    n = 300
    codes = rng.integers(0, 3, n).astype(np.intp)
    y = rng.random(n) < 0.4
    a = np.round(rng.normal(size=n) + y, 1)
    b = np.round(0.5 * a + rng.normal(size=n), 1)
    e = SortedScores.build(a, b, codes)
    n_pos = np.bincount(codes, y, 3).astype(np.int64)
    n_neg = np.bincount(codes, minlength=3) - n_pos
    sums = _paired.paired_auc_swaps(e.row, e.model, e.block_end, e.group, y.astype(np.uint8),
                                    codes, n_pos, n_neg, 6, 77, 0, 2, 10)  # fmt: skip
    got = swap_auc_moments(sums, n_pos, n_neg)
    for p in range(6):
        swap = _paired.swap_bits(77, 0, 10 + p, n)
        assert 0 < swap.sum() < n
        ref = paired_auc_moments(y, np.where(swap, b, a), np.where(swap, a, b), codes,
                                 np.arange(3))  # fmt: skip
        for field in ("value_a", "value_b", "variance_a", "variance_b", "covariance", "den_a"):
            np.testing.assert_allclose(getattr(got, field)[p], getattr(ref, field),
                                       rtol=0, atol=1e-13)  # fmt: skip


def test_audit_compare_auc_of_a_small_group_is_the_swap_test():
    """A group with a few positives: DeLong's paired test rejects far above alpha there
    (validation/results/compare_auc_small_groups.txt), so the audit's AUC comparison is
    compare_auc's "auto", the swap permutation test with the audit's n_permutations."""
    rng = np.random.default_rng(8)
    group = np.r_[np.full(40, "small"), np.full(4000, "big")]
    y = rng.random(len(group)) < np.where(group == "small", 0.1, 0.3)
    s_a = rng.normal(size=len(group)) + y
    s_b = s_a + rng.normal(size=len(group))
    res = fastfair.audit(y, s_a >= 0.5, {"g": group}, compare=(s_a, s_b), threshold=0.5,
                         metrics=["tpr"], min_group_size=5, n_permutations=199,
                         random_state=4)  # fmt: skip
    row = next(r for r in res.model_comparison if r["metric"] == "auc")
    pair = group == "small"
    ref = compare_auc(y, s_a, s_b, pair, reference=False, n_permutations=199, random_state=4)
    assert row["method"] == ref.method == "permutation"
    assert row["pvalue"] == pytest.approx(float(ref.pvalue), abs=1e-15)
    delong = compare_auc(y, s_a, s_b, pair, reference=False, method="delong")
    assert row["pvalue"] != pytest.approx(float(delong.pvalue))
    # the sequential audit (n_permutations None) draws the documented 999 swaps
    res = fastfair.audit(y, s_a >= 0.5, {"g": group}, compare=(s_a, s_b), threshold=0.5,
                         metrics=["tpr"], min_group_size=5, random_state=4)  # fmt: skip
    row = next(r for r in res.model_comparison if r["metric"] == "auc")
    ref = compare_auc(y, s_a, s_b, pair, reference=False, n_permutations=999, random_state=4)
    assert row["pvalue"] == pytest.approx(float(ref.pvalue), abs=1e-15)


@pytest.mark.parametrize(
    ("classes", "method"),
    [
        ((1000, 1000), "delong"),  # both classes exactly at the rule's 1,000
        ((999, 1200), "permutation"),  # one positive short
        ((1200, 999), "permutation"),  # one negative short
    ],
)
def test_compare_auc_auto_rule_at_its_boundary(classes, method):
    """compare_auc(method="auto") is DeLong's paired test when every compared group has at
    least 1,000 positives and 1,000 negatives (fastfair.compare.AUC_ASYMPTOTIC_MIN_CLASS):
    at exactly 1,000 of each in group "a" it is; one positive or one negative fewer, it is
    the swap permutation test. Group "b" has 1,500 of each. Written for round-4 mutants
    r4-compare-auto-strict (``>`` for ``>=``) and r4-compare-auto-negatives-as-size (a
    group's size taken as its negatives)."""
    from fastfair.compare import AUC_ASYMPTOTIC_MIN_CLASS

    assert AUC_ASYMPTOTIC_MIN_CLASS == 1000
    rng = np.random.default_rng(40)
    (n_pos, n_neg), big = classes, 1500
    y = np.r_[np.ones(n_pos), np.zeros(n_neg), np.ones(big), np.zeros(big)].astype(int)
    group = np.r_[np.zeros(n_pos + n_neg, int), np.ones(2 * big, int)]
    a = rng.random(y.size) + 0.3 * y
    b = a + 0.1 * rng.random(y.size)
    res = compare_auc(y, a, b, np.array(["a", "b"])[group], n_permutations=99, random_state=0)
    assert res.method == method


def _paired_with_discordant(d00, d01, d10, d11):
    """Two groups; d_gy rows of group g and label y where the models disagree (A predicts
    1, B 0), plus 5 rows per group and label where they agree."""
    y, a, b, g = [], [], [], []
    for grp, lab, d in ((0, 0, d00), (0, 1, d01), (1, 0, d10), (1, 1, d11)):
        y += [lab] * (d + 5)
        a += [1] * d + [lab] * 5
        b += [0] * d + [lab] * 5
        g += [grp] * (d + 5)
    return np.array(y), np.array(a), np.array(b), np.array(g)


@pytest.mark.parametrize(
    "d11, method", [(98, "exact"), (99, "exact"), (100, "permutation")]
)  # tables: 10 * 10 * 10 * (d11 + 1), the auto rule's limit EXACT_MAX_TABLES = 100,000
def test_auto_is_exact_up_to_exactly_the_table_limit(d11, method):
    """method="auto" of compare_models enumerates exactly when the swap grid of a comparison
    has at most EXACT_MAX_TABLES = prod over (group, label) strata of (discordant + 1)
    tables, here 99,000, 100,000 (at the limit: exact) and 101,000."""
    from fastfair.compare.ingest import EXACT_MAX_TABLES

    assert EXACT_MAX_TABLES == 100_000
    y, a, b, g = _paired_with_discordant(9, 9, 9, d11)
    res = compare_models(y, a, b, g, metric="accuracy", n_permutations=99, random_state=0)
    assert res.method.split(", ")[0] == method  # the test's method, then the interval's


def test_audit_compare_verdict_sizes_a_gap_by_its_largest_part():
    """The audit's "gap grew" compares each model's largest |part| (equalized odds: TPR and
    FPR gaps): B's largest part above A's grows; B's parts each larger than A's smallest
    but not its largest is a change, not growth. Rows with a significant difference and no
    shown reduction; both orders of the parts."""
    from fastfair.auditing.api import _compare_verdicts

    base = dict(attribute="g", family="compare", metric="equalized_odds", group="b",
                reference="a", difference=[0.0, 0.0], ci_low=[0.0, 0.0], ci_high=[0.0, 0.0],
                pvalue=0.001, pvalue_reduced=0.9, method="permutation",
                n_discordant=10)  # fmt: skip
    cases = [
        ([0.05, -0.01], [0.0, -0.09], "gap grew"),  # max 0.09 > 0.05, though min 0.0 < 0.01
        ([-0.10, 0.02], [0.05, -0.08], "gap changed"),  # max 0.08 < 0.10, though min 0.05 > 0.02
        ([0.05, -0.01], [-0.05, 0.03], "gap changed"),  # max 0.05 = 0.05: not larger, no growth
    ]
    for gap_a, gap_b, expected in cases:
        for order in (slice(None), slice(None, None, -1)):
            row = dict(base, gap_a=gap_a[order], gap_b=gap_b[order])
            (out,) = _compare_verdicts([row], "holm", 0.05)
            assert out["verdict"] == expected, (gap_a, gap_b)


def test_audit_compare_verdicts_include_alpha_on_both_pvalues():
    """A comparison's adjusted p-value equal to alpha is evidence ("<= alpha", as every
    verdict of the audit); the next float above it is not. One row: its adjusted p-values
    are its raw ones."""
    from fastfair.auditing.api import _compare_verdicts

    base = dict(attribute="g", family="compare", metric="tpr", group="b", reference="a",
                difference=0.0, ci_low=0.0, ci_high=0.0, gap_a=0.05, gap_b=0.09,
                method="permutation", n_discordant=10)  # fmt: skip
    above = float(np.nextafter(0.05, 1.0))
    cases = [
        (0.5, 0.05, "gap shrank"),
        (0.5, above, "no evidence of a change"),
        (0.05, 0.9, "gap grew"),
        (above, 0.9, "no evidence of a change"),
    ]
    for pvalue, reduced, expected in cases:
        row = dict(base, pvalue=pvalue, pvalue_reduced=reduced)
        (out,) = _compare_verdicts([row], "holm", 0.05)
        assert out["verdict"] == expected, (pvalue, reduced)


def test_audit_compare_verdicts_read_the_pvalues_adjusted_over_every_comparison():
    """Each verdict reads its p-values adjusted (here Holm) over all the comparisons, by
    hand: raw (0.03, 0.03) -> (0.06, 0.06), no evidence for either, though each raw one is
    below alpha; raw (0.01, 0.04) -> (0.02, 0.04), both below alpha. The same for both the
    reduction's p-value ("gap shrank") and the difference's ("gap grew")."""
    from fastfair.auditing.api import _compare_verdicts

    base = dict(attribute="g", family="compare", metric="tpr", reference="a", difference=0.0,
                ci_low=0.0, ci_high=0.0, gap_a=0.05, gap_b=0.09, method="permutation",
                n_discordant=10)  # fmt: skip
    cases = [
        ((0.03, 0.03), (0.06, 0.06), "no evidence of a change"),
        ((0.01, 0.04), (0.02, 0.04), None),
    ]
    for key, shown in (("pvalue_reduced", "gap shrank"), ("pvalue", "gap grew")):
        other = "pvalue" if key == "pvalue_reduced" else "pvalue_reduced"
        for raw, adjusted, verdict in cases:
            rows = [dict(base, group=grp, **{key: p, other: 0.9}) for grp, p in zip("bc", raw)]
            out = _compare_verdicts(rows, "holm", 0.05)
            assert [o[f"{key}_adjusted"] for o in out] == pytest.approx(adjusted, rel=1e-12)
            assert [o["verdict"] for o in out] == [verdict or shown] * 2, (key, raw)


def test_method_exact_allows_exactly_max_exact_points_tables(monkeypatch):
    """method="exact" refuses a swap grid of more than MAX_EXACT_POINTS tables (prod over
    strata of discordant + 1) before building it: with the limit lowered to 1,000, the
    grid of 10 * 10 * 10 tables is enumerated and 10 * 10 * 11 is refused."""
    import fastfair.compare.inference as inference
    from fastfair.permutation import ExactInfeasibleError

    monkeypatch.setattr(inference, "MAX_EXACT_POINTS", 1000)
    y, a, b, g = _paired_with_discordant(9, 9, 9, 0)
    res = compare_models(y, a, b, g, metric="accuracy", method="exact")
    assert res.method == "exact" and res.n_permutations is None
    y, a, b, g = _paired_with_discordant(9, 9, 10, 0)
    with pytest.raises(ExactInfeasibleError, match=r"1\.1e\+03 tables"):
        compare_models(y, a, b, g, metric="accuracy", method="exact")


def test_n_permutations_is_reported_only_for_the_swap_permutation_test():
    y, a, b, g = _paired_with_discordant(30, 30, 30, 30)
    perm = compare_models(y, a, b, g, metric="accuracy", method="permutation",
                          n_permutations=199, random_state=0)  # fmt: skip
    assert perm.method == "permutation" and perm.n_permutations == 199
    for method in ("asymptotic", "exact"):
        res = compare_models(y, a, b, g, metric="accuracy", method=method, n_permutations=199)
        assert res.method == method and res.n_permutations is None


@pytest.mark.parametrize("metric", ["tpr", "equalized_odds"])
def test_every_frame_column_reads_back_its_comparison_and_part(metric):
    """ModelComparisonResult.to_frame with 2 comparisons: row c * n_parts + j is comparison
    c, part j; every column equals its field there (the per-comparison statistic and
    p-values repeated over the parts)."""
    y, a, b, group = two_models(3000, seed=15)
    g = np.array(["x", "y", "z"])[group + (np.arange(3000) % 2)]
    res = compare_models(y, a, b, g, metric=metric, delta=0.05, random_state=0)
    frame = res.to_frame()
    n_c, n_p = len(res.comparisons), len(res.parts)
    assert n_c == 2 and len(frame) == n_c * n_p

    def at(field, c, j):  # (n_c, n_parts) view of a per-comparison-and-part field
        return np.reshape(np.asarray(field, dtype=float), (n_c, n_p))[c, j]

    def per_c(field, c):  # per comparison (combined over the parts)
        return np.reshape(np.asarray(field, dtype=float), (n_c,))[c]

    lo, hi = res.confidence_interval
    raw = np.asarray(res.pvalue, dtype=float).reshape(n_c)  # Holm over 2 comparisons by hand
    first = int(np.argmin(raw))
    holm = np.empty(n_c)
    holm[first] = min(1.0, 2 * raw[first])
    holm[1 - first] = max(holm[first], raw[1 - first])
    assert not np.allclose(holm, raw)
    for c, (grp, ref) in enumerate(res.comparisons):
        for j, part in enumerate(res.parts):
            row = frame.iloc[c * n_p + j]
            assert (row["group"], row["reference"], row["part"]) == (grp, ref, part)
            for name in ("gap_a", "gap_b", "difference", "standard_error"):
                assert row[name] == at(getattr(res, name), c, j), name
            assert (row["ci_low"], row["ci_high"]) == (at(lo, c, j), at(hi, c, j))
            for name in ("statistic", "pvalue", "pvalue_reduced", "pvalue_noninferior"):
                assert row[name] == per_c(getattr(res, name), c), name
            assert row["pvalue_adjusted"] == holm[c]
    # the two gaps are the groups' metrics' differences, read back from the group fields
    ga = np.reshape(res.group_metric_a, (len(res.groups), n_p))
    gb = np.reshape(res.group_metric_b, (len(res.groups), n_p))
    index = {label: k for k, label in enumerate(res.groups)}
    for c, (grp, ref) in enumerate(res.comparisons):
        for j in range(n_p):
            assert at(res.gap_a, c, j) == pytest.approx(ga[index[grp], j] - ga[index[ref], j])
            assert at(res.gap_b, c, j) == pytest.approx(gb[index[grp], j] - gb[index[ref], j])


@pytest.mark.parametrize("seed, shift", [(8, 0.05), (9, 0.06)])  # gap_a < 0, gap_a > 0
def test_monte_carlo_reduced_pvalue_counts_the_swaps_at_or_towards_zero(seed, shift):
    """pvalue_reduced by swap permutations, where model B shrinks a gap far from its
    opposite (the "not past -gap_a" part is negligible): (1 + #{s T_b <= s T}) / (1 + B),
    s the sign of gap_a, counted from the returned null distribution; the other tail
    would give nearly 1."""
    y, a, b, group = two_models(4000, seed=seed, shift=shift)
    res = compare_models(y, a, b, group, method="permutation", n_permutations=999,
                         random_state=1, return_null=True)  # fmt: skip
    assert abs(res.gap_b) < abs(res.gap_a) and abs(res.gap_a + res.gap_b) > 0.15
    null = res.null_distribution[:, 0, 0]
    s = 1.0 if res.gap_a >= 0 else -1.0
    tol = 1e-12 * max(abs(res.statistic), 1)
    toward = (1 + np.sum(s * null <= s * res.statistic + tol)) / 1000
    assert toward < 0.1
    assert res.pvalue_reduced == pytest.approx(toward, abs=1e-15)
    asym = compare_models(y, a, b, group, method="asymptotic")
    assert asym.statistic == pytest.approx(res.statistic, rel=1e-12)
    toward_z = stats.norm.cdf(s * asym.statistic)  # the normal "towards 0" tail
    assert asym.pvalue_reduced >= toward_z * (1 - 1e-9)
    if toward_z > 0.01:  # seed 8: it is the larger part
        assert asym.pvalue_reduced == pytest.approx(toward_z, rel=1e-9)


def test_frame_of_one_comparison_has_no_adjusted_pvalue():
    y, a, b, group = two_models(2000, seed=3)
    res = compare_models(y, a, b, group, random_state=0)
    assert res.pvalue_adjusted is None
    assert res.to_frame()["pvalue_adjusted"].tolist() == [None]


def test_bad_options_and_count_tables_name_their_problem():
    """The refusals the other tests leave unexercised, each with its message."""
    y, a, b, group = two_models(400, seed=3)
    good = PairedStats.from_arrays(y, a, b, group).counts
    cases = [
        (lambda: compare_models(y, a, b, group, delta="0.1"), TypeError,
         "delta must be a number or None, got str"),
        (lambda: compare_models(y, a, b, group, delta=True), TypeError,
         "delta must be a number or None, got bool"),
        (lambda: compare_models(y, a, b, group, return_null=1), TypeError,
         "return_null must be True or False"),
        (lambda: from_counts(np.where(good == good.max(), -1, good)), ValueError,
         "counts must be finite non-negative numbers"),
        (lambda: from_counts(np.where(good == good.max(), np.nan, good)), ValueError,
         "counts must be finite non-negative numbers"),
        (lambda: from_counts(good + 0.5), ValueError,
         r"counts must be whole numbers \(rows of each paired cell\)"),
        (lambda: from_counts(good[:1]), ValueError, "counts must hold at least 2 groups, got 1"),
        (lambda: from_counts(good, groups=["x", "y", "z"]), ValueError,
         "groups has 3 labels for 2 rows of counts"),
        (lambda: from_counts(good[:, :7]), ValueError,
         r"counts must have shape \(n_groups, 8\), got \(2, 7\)"),
        (lambda: PairedStats.from_arrays(y, a, b, group) + good, TypeError,
         "unsupported operand"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    # the boundary values accepted: delta 0 and exactly two groups of whole float counts
    res = from_counts(good.astype(float), groups=["x", "y"], delta=0, method="asymptotic")
    assert res.delta == 0.0 and len(res.comparisons) == 1
    assert res.pvalue_noninferior is not None


def test_adjust_and_comparisons_options_reach_the_adjusted_pvalues():
    """Four groups: comparisons="reference" gives 3 pairs, "all" 6 (every pair of labels);
    pvalue_adjusted is Holm, Bonferroni, Benjamini-Hochberg or the raw p-values (by hand
    from `pvalue`) as `adjust` says, and `adjust` is recorded."""
    rng = np.random.default_rng(63)
    n = 2400
    group = rng.integers(0, 4, n)
    y = rng.random(n) < 0.5
    a = rng.random(n) < 0.5
    b = np.where(rng.random(n) < 0.1 * (1 + group), ~a, a)
    kw = dict(metric="selection_rate", method="asymptotic")
    ref = compare_models(y, a, b, group, reference=0, **kw)
    assert ref.comparisons == [(1, 0), (2, 0), (3, 0)]
    every = compare_models(y, a, b, group, comparisons="all", **kw)
    assert sorted(tuple(sorted(c)) for c in every.comparisons) == list(
        itertools.combinations(range(4), 2)
    )
    for res in (ref, every):
        p = np.asarray(res.pvalue)
        m, order = p.size, np.argsort(p)
        holm = np.empty(m)
        holm[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[order]))
        bh = np.empty(m)
        bh[order] = np.minimum(1, np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))
                                                        [::-1])[::-1])  # fmt: skip
        want = {"holm": holm, "bonferroni": np.minimum(1, m * p), "bh": bh, "none": p}
        for adjust, expected in want.items():
            opts = dict(comparisons="all") if res is every else dict(reference=0)
            got = compare_models(y, a, b, group, adjust=adjust, **opts, **kw)
            np.testing.assert_allclose(got.pvalue, p, rtol=1e-12)
            np.testing.assert_allclose(got.pvalue_adjusted, expected, rtol=1e-12)
            assert got.adjust == adjust
            np.testing.assert_allclose(got.to_frame().pvalue_adjusted, expected, rtol=1e-12)
        assert not np.allclose(holm, bh) and not np.allclose(holm, p)


def test_compare_default_reference_is_the_group_with_most_rows_on_every_entry_point():
    """The default reference of compare_models, compare_models_from_counts and compare_auc
    is the group with the most rows: here 'a' (400 rows, 40 positives), while 'b' has the
    most positives (200 of 250), so a reference by positives or denominators would be 'b'.
    The counts (cells 4y + 2a + b counted by hand) give the rows' result."""
    rng = np.random.default_rng(3)
    sizes, positives = {"a": 400, "b": 250, "c": 150}, {"a": 40, "b": 200, "c": 75}
    g = np.repeat(np.array(list(sizes)), list(sizes.values()))
    y = np.concatenate([np.arange(n) < positives[k] for k, n in sizes.items()]).astype(int)
    pa = (rng.random(g.size) < np.where(y == 1, 0.7, 0.3)).astype(int)
    pb = np.where(rng.random(g.size) < 0.2, 1 - pa, pa)
    cell = 4 * y + 2 * pa + pb
    counts = np.array([np.bincount(cell[g == k], minlength=8) for k in sizes])
    assert np.argmax(counts.sum(axis=1)) == 0 and np.argmax(counts[:, 4:].sum(axis=1)) == 1
    expected = [("b", "a"), ("c", "a")]
    rows = compare_models(y, pa, pb, g, method="asymptotic")
    summary = from_counts(counts, ["a", "b", "c"], method="asymptotic")
    assert rows.comparisons == summary.comparisons == expected
    np.testing.assert_allclose(summary.pvalue, rows.pvalue, rtol=1e-12)
    s_a = rng.normal(size=g.size) + y
    s_b = s_a + rng.normal(scale=0.5, size=g.size)
    assert compare_auc(y, s_a, s_b, g, method="delong").comparisons == expected


def test_model_comparison_repr_non_inferiority_column_reads_back_its_own_pvalue():
    """With delta, the repr's last column is each comparison's non-inferiority p-value (its
    frame column and field), not the neighbouring "reduced" one: three groups whose two
    comparisons have different p-values, none of them equal to their reduced p-value."""
    y, group, a, b = _three_groups_two_models()
    res = compare_models(y, a, b, group, metric="tpr", method="asymptotic", reference=1,
                         delta=0.05)  # fmt: skip
    lines = repr(res).splitlines()
    assert lines[5].split()[-2:] == ["p", "(non-inferior)"]
    frame = res.to_frame()
    noninf = np.atleast_1d(res.pvalue_noninferior)
    for c, g in enumerate((0, 2)):
        assert lines[6 + c][:12].split() == [str(g), "vs", "1"]
        cells = [float(v) for v in lines[6 + c][12:].split()]
        assert len(cells) == 8
        assert cells[7] == pytest.approx(noninf[c], abs=5e-5)
        assert frame.pvalue_noninferior[c] == noninf[c]
        assert abs(noninf[c] - frame.pvalue_reduced[c]) > 1e-3


def test_from_counts_with_every_option_at_its_default_equals_the_rows_on_every_field():
    """compare_models_from_counts documents compare_models' defaults (metric, method,
    delta, reference, comparisons, adjust, confidence_level, n_permutations): with only the
    paired counts (cells 4y + 2a + b counted by hand) and the seed it returns, field by
    field, what compare_models returns on the rows, on three groups."""
    rng = np.random.default_rng(8)
    g = rng.choice(["a", "b", "c"], 900, p=[0.5, 0.3, 0.2])
    y = (rng.random(900) < 0.5).astype(int)
    pa = (rng.random(900) < np.where(y == 1, 0.7, 0.3)).astype(int)
    pb = np.where(rng.random(900) < 0.15, 1 - pa, pa)
    counts = np.array([np.bincount((4 * y + 2 * pa + pb)[g == k], minlength=8) for k in "abc"])
    rows = compare_models(y, pa, pb, g, random_state=1).to_dict()
    assert len(rows["comparisons"]) == 2 and rows["confidence_level"] == 0.95
    assert from_counts(counts, ["a", "b", "c"], random_state=1).to_dict() == rows


def test_n_permutations_is_taken_from_1_to_ten_million_and_counts_need_two_groups():
    """n_permutations is checked on every method (before the data): 1 and 10**7 (the
    documented ends) are accepted, 0 and 10**7 + 1 refused naming the argument; counts of
    one group are refused (a comparison needs two), two accepted."""
    y, a, b, group = two_models(300, seed=12)
    for ok in (1, 10**7):
        res = compare_models(y, a, b, group, method="asymptotic", n_permutations=ok)
        assert res.method == "asymptotic"
    too_many = "n_permutations must be <= 10,000,000, got 10,000,001"
    for bad, message in ((0, "n_permutations must be >= 1, got 0"), (10**7 + 1, too_many)):
        with pytest.raises(ValueError, match=f"^{message}$"):
            compare_models(y, a, b, group, method="asymptotic", n_permutations=bad)
    row = [40, 5, 3, 30, 20, 4, 6, 50]
    with pytest.raises(ValueError, match=r"^counts must hold at least 2 groups, got 1$"):
        from_counts([row])
    assert from_counts([row, row[::-1]], method="asymptotic").method == "asymptotic"


def test_noninferiority_pvalue_keeps_its_far_tail():
    """Model B closes a TPR gap of 0.31 to 0.02 on 3000 rows a group: both one-sided
    conditions (towards 0, and not past -d_A) are far in their tails, the larger 3.5e-58
    (not past), the other 1e-273 or below; at delta 0 and 0.02 the non-inferiority p-value
    is the larger normal tail (scipy, by the rows' influences as above): relative 1e-12,
    absolute 0, where 1 - cdf would give 0."""
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1], 3000)
    y = np.ones(6000, int)
    a = (rng.random(6000) < np.where(group == 0, 0.8, 0.5)).astype(int)
    b = a.copy()
    b[(group == 1) & (a == 0) & (rng.random(6000) < 0.6)] = 1
    for _, res, toward, past in _noninferiority_tails(y, a, b, group):
        assert toward < 1e-270 and 0 < past < 1e-57
        assert res.pvalue_noninferior == pytest.approx(max(toward, past), rel=1e-12, abs=0)


def _noninferiority_tails(y, a, b, group):
    """At delta 0 and 0.02: (delta, compare_models' asymptotic TPR result against group 0,
    the "towards 0" and the "past 0" normal tails by scipy from the rows' influences)."""
    _, v, _, d_a, d_b, v_sum = row_statistic(y, a, b, group, "tpr")[0]
    s = 1.0 if d_a >= 0 else -1.0
    for delta in (0.0, 0.02):
        res = compare_models(y, a, b, group, delta=delta, method="asymptotic", reference=0)
        toward = stats.norm.cdf((s * (d_b - d_a) - delta) / math.sqrt(v))
        past = stats.norm.cdf(-(s * (d_b + d_a) + delta) / math.sqrt(v_sum))
        yield delta, res, toward, past


def test_equalized_odds_repr_names_each_part_and_reads_back_its_rates_and_settings():
    """Equalized odds has two parts: every group row and every comparison row of the repr
    names its part ("0 tpr", "0 vs 1 fpr"), in the order group, then TPR before FPR; each
    group row's rates under A and B and their change are counted from the rows with numpy
    and its last column is the change's standard error (the field, not the change); each
    comparison row's gaps (group minus reference) are counted likewise. The head names the
    permutations and delta given, the interval column the confidence level given (90%);
    an asymptotic comparison without delta names neither."""
    y, group, a, b = _three_groups_two_models()
    res = compare_models(y, a, b, group, metric="equalized_odds", reference=1, delta=0.05,
                         confidence_level=0.9, method="permutation", n_permutations=199,
                         random_state=0)  # fmt: skip
    lines = repr(res).splitlines()
    assert lines[0] == ("ModelComparisonResult(metric='equalized_odds', "
                        f"method={res.method!r}, n_permutations=199, delta=0.05)")  # fmt: skip
    rate = {
        (m, k, part): pred[(group == k) & (y if part == "tpr" else ~y)].mean()
        for m, pred in (("a", a), ("b", b))
        for k in range(3)
        for part in ("tpr", "fpr")
    }
    se = np.reshape(res.group_change_standard_error, (3, 2))
    ch = np.reshape(res.group_change, (3, 2))
    assert lines[1].split() == ["group", "model", "A", "model", "B", "change", "std_error"]
    for row, (k, j) in enumerate(itertools.product(range(3), range(2))):
        part = ("tpr", "fpr")[j]
        cells = lines[2 + row].split()
        assert cells[:2] == [str(k), part]
        ra, rb = rate[("a", k, part)], rate[("b", k, part)]
        assert [float(v) for v in cells[2:5]] == pytest.approx([ra, rb, rb - ra], abs=5e-5)
        assert float(cells[5]) == pytest.approx(se[k, j], abs=5e-5)
        assert abs(se[k, j] - ch[k, j]) > 1e-3
    header = lines[8].split()
    assert header[:8] == ["comparison", "gap", "A", "gap", "B", "change", "90%", "low"]
    assert header[-2:] == ["p", "(non-inferior)"]
    for row, (g, j) in enumerate(itertools.product((0, 2), range(2))):
        part = ("tpr", "fpr")[j]
        cells = lines[9 + row].split()
        assert cells[:4] == [str(g), "vs", "1", part]
        gaps = [rate[(m, g, part)] - rate[(m, 1, part)] for m in "ab"]
        assert [float(v) for v in cells[4:6]] == pytest.approx(gaps, abs=5e-5)
    assert len(lines) == 13
    plain = compare_models(y, a, b, group, metric="tpr", method="asymptotic", reference=1)
    assert repr(plain).splitlines()[0] == (
        "ModelComparisonResult(metric='tpr', method='asymptotic')"
    )
    assert "95% low" in repr(plain)


def test_noninferiority_pvalue_keeps_the_far_tail_towards_zero():
    """The other side: model B, drawn apart from A (few shared predictions, so the change
    has the variance of a sum), halves a TPR gap of 0.31: the "towards 0" tail is the
    larger, 6e-24 at delta 0 (by the asymptotic test) and 1e-29 at delta 0.02 (the shifted
    normal tail), the "not past" one below 1e-170: relative 1e-12, absolute 0."""
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1], 3000)
    y = np.ones(6000, int)
    a = (rng.random(6000) < np.where(group == 0, 0.8, 0.5)).astype(int)
    b = (rng.random(6000) < np.where(group == 0, 0.8, 0.65)).astype(int)
    for _, res, toward, past in _noninferiority_tails(y, a, b, group):
        assert 0 < toward < 1e-23 and past < 1e-170
        assert res.pvalue_noninferior == pytest.approx(toward, rel=1e-12, abs=0)
