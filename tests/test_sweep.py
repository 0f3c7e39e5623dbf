"""threshold_sweep: per-threshold tests equal a loop of permutation_test; joint permutations."""

from __future__ import annotations

import importlib.util
import math
import os
import pathlib
import sys

import numpy as np
import pytest
from scipy import stats

import fastfair
import fastfair.cli
from fastfair import _parallel, _sweep


def grid_data(n=600, seed=0, shift=0.0):
    """Scores on a 0.1 grid (ties at the thresholds), two groups of unequal size."""
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n) < 0.35, "b", "a")
    y = rng.random(n) < np.where(group == "a", 0.3, 0.5)
    score = np.clip(np.round(rng.normal(0.4 + 0.2 * y + shift * (group == "b"), 0.2), 1), 0, 1)
    return y, score, group


SWEPT = ("tpr", "fnr", "fpr", "tnr", "selection_rate", "accuracy", "error_rate")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_pvalues_equal_a_loop_of_permutation_test(alternative):
    y, score, group = grid_data()
    thresholds = np.round(np.arange(-0.1, 1.15, 0.1), 1)  # grid points: ties with scores
    res = fastfair.threshold_sweep(
        y, score, group, metrics=SWEPT, thresholds=thresholds, alternative=alternative,
        method="exact", n_permutations=50, random_state=0,
    )  # fmt: skip
    assert res.comparison == ("b", "a")  # reference: the larger group
    for m, metric in enumerate(SWEPT):
        for k, t in enumerate(res.thresholds):
            ref = fastfair.permutation_test(
                y, score >= t, group, metric=metric, alternative=alternative
            )
            assert ref.method == "exact"
            assert res.pvalue[m, k] == ref.pvalue
            assert res.statistic[m, k] == ref.statistic
            assert res.difference[m, k] == ref.difference


def test_counts_above_match_brute_force_with_ties():
    y, score, group = grid_data(n=300, seed=3)
    code = (2 * (group == "a") + y).astype(np.uint8)
    thresholds = np.array([-1.0, 0.0, 0.3, 0.30000000000000004, 0.5, 1.0, 2.0])
    want = [[np.sum((score >= t) & (code == c)) for c in range(4)] for t in thresholds]
    for n_threads in (1, 2, 3):
        with _parallel.force_parallel():
            got = _sweep.counts_above(score, code, thresholds, 4, n_threads)
        np.testing.assert_array_equal(got, want)


def _kernel_input(sizes, n_a):
    """(above, totals) of the kernel for pooled rows per label and score bin `sizes` (2, K+1;
    bin j: rows with j thresholds <= score) and group A's rows per label `n_a`."""
    sizes = np.asarray(sizes, dtype=np.int64)
    a_bins = np.zeros_like(sizes)
    for y in range(2):  # where A's rows are observed does not matter to a permuted label
        left = n_a[y]
        for j in range(sizes.shape[1]):
            a_bins[y, j] = min(left, sizes[y, j])
            left -= a_bins[y, j]
    above_of = lambda bins: np.cumsum(bins[:, ::-1], axis=1)[:, ::-1][:, 1:]  # noqa: E731
    above_a, above_b = above_of(a_bins), above_of(sizes - a_bins)
    above = np.ascontiguousarray(np.stack([above_a[0], above_a[1], above_b[0], above_b[1]], 1))
    totals = np.array([n_a, sizes.sum(axis=1) - n_a], dtype=np.int64)
    return above, totals


def _permuted_counts(sizes, n_a, metric, b, seed):
    from fastfair._metrics import get_metric
    from fastfair._scipy import special
    from fastfair.sweep.ingest import _STRATUM

    above, totals = _kernel_input(sizes, n_a)
    spec_metric = get_metric(metric)
    logfact = special.gammaln(np.arange(totals.sum() + 1.0) + 1.0)
    zeros = np.zeros(len(above))
    counts = _sweep.permute_sweep(
        above, totals, _STRATUM[spec_metric.den_masks[0]], spec_metric.num_masks[0], zeros,
        zeros, 0, b, seed, 0, False, logfact, 1, True,
    )[2]  # fmt: skip
    return above, totals, counts


def _chi_square_pvalue(draws, support, probabilities):
    """Pearson's test of draws (ints) against a law on `support`; cells expecting fewer
    than 5 draws are pooled into one."""
    b = len(draws)
    support = np.asarray(support)
    assert draws.min() >= support.min() and draws.max() <= support.max()
    observed = np.bincount(draws - support.min(), minlength=support.max() - support.min() + 1)
    observed = observed[support - support.min()].astype(np.float64)
    expected = b * np.asarray(probabilities)
    assert observed.sum() == b  # every draw lies in the support
    small = expected < 5
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    return stats.chisquare(obs[keep], exp[keep] * obs.sum() / exp[keep].sum()).pvalue


# Bins mixing empty, tiny and large ones: the tree of halves draws by the row walk and
# by the ratio-of-uniforms sampler (the root of label 1: 284 of 1,000 rows, 380 A rows).
SIZES = [[100, 5, 300, 0, 20, 700, 3, 50, 12], [30, 0, 4, 250, 1, 60, 600, 15, 40]]
N_A = [500, 380]


@pytest.mark.parametrize("metric", ["tpr", "selection_rate"])
def test_permuted_counts_follow_the_hypergeometric_at_every_threshold(metric):
    # Permuting group labels among the positives (tpr) or all rows (selection rate), group
    # A's rows with score >= t_k are Hypergeometric(rows of the stratum, rows of the stratum
    # with score >= t_k, A rows of the stratum) at every k; the kernel draws them jointly,
    # node by node. Pearson's test against the exact pmf at every threshold and label.
    b = 20000
    above, totals, counts = _permuted_counts(SIZES, N_A, metric, b, 11)
    pooled = above[:, :2] + above[:, 2:]
    labels = (1,) if metric == "tpr" else (0, 1)
    if metric == "tpr":  # negatives are not permuted: their counts stay observed
        np.testing.assert_array_equal(counts[:, :, 0], np.broadcast_to(above[:, 0], (b, 8)))
    rows = totals.sum(axis=0)  # rows per label
    pvalues = []
    for y in labels:
        m = rows[y] if metric == "tpr" else rows.sum()
        a = totals[0, y] if metric == "tpr" else totals[0].sum()
        for k in range(above.shape[0]):
            law = stats.hypergeom(m, pooled[k, y], a)
            support = np.arange(pooled[k, y] + 1)
            pvalues.append(_chi_square_pvalue(counts[:, k, y], support, law.pmf(support)))
    assert min(pvalues) > 1e-4, pvalues
    # the test has power: binomial counts with the same means are rejected
    rng = np.random.default_rng(0)
    k = 4
    law = stats.hypergeom(rows[1] if metric == "tpr" else rows.sum(), pooled[k, 1],
                          totals[0, 1] if metric == "tpr" else totals[0].sum())  # fmt: skip
    wrong = rng.binomial(pooled[k, 1], law.mean() / pooled[k, 1], b)
    support = np.arange(pooled[k, 1] + 1)
    assert _chi_square_pvalue(wrong, support, law.pmf(support)) < 1e-6


def test_permuted_counts_are_jointly_those_of_one_permutation():
    # Two thresholds of the same permutation: P(U = u, V = v) for the A rows above the
    # higher (U) and the lower (V) threshold is H(u; rows, above_hi, a) times
    # H(v - u; rows - above_hi, above_lo - above_hi, a - u). Independent draws per
    # threshold would have the right marginals and fail this.
    b = 20000
    above, totals, counts = _permuted_counts(SIZES, N_A, "tpr", b, 12)
    pooled = above[:, 1] + above[:, 3]
    rows, a = totals[:, 1].sum(), totals[0, 1]
    for lo, hi in [(2, 5), (5, 6), (0, 7)]:
        u = np.arange(pooled[hi] + 1)
        v = np.arange(pooled[lo] + 1)
        joint = stats.hypergeom(rows, pooled[hi], a).pmf(u)[:, None] * stats.hypergeom(
            rows - pooled[hi], pooled[lo] - pooled[hi], a - u[:, None]
        ).pmf(v[None, :] - u[:, None])
        codes = counts[:, hi, 1] * (pooled[lo] + 1) + counts[:, lo, 1]
        cells = (u[:, None] * (pooled[lo] + 1) + v[None, :]).ravel()
        assert _chi_square_pvalue(codes, cells, joint.ravel()) > 1e-4
        if (lo, hi) == (2, 5):  # 655 of the 966 rows above t_2 are above t_5
            shuffled = counts[np.random.default_rng(1).permutation(b), hi, 1]
            codes = shuffled * (pooled[lo] + 1) + counts[:, lo, 1]
            assert _chi_square_pvalue(codes, cells, joint.ravel()) < 1e-6


def test_kernel_refuses_2_to_the_32_rows():
    above, totals = _kernel_input(SIZES, N_A)
    totals[1, 1] = 2**32
    with pytest.raises(ValueError, match="2\\*\\*32"):
        _sweep.permute_sweep(above, totals, 2, 8, np.zeros(8), np.zeros(8), 0, 1, 0, 0,
                             False, np.zeros(2), 1)  # fmt: skip


def test_exact_critical_value_from_the_hypergeometric():
    # TPR under the conditional scheme: the group's TP among all positives is
    # Hypergeometric(P, TP, P_group); the gap is affine in it.
    y, score, group = grid_data(n=500, seed=4)
    t = 0.5
    res = fastfair.threshold_sweep(
        y, score, group, metrics=["tpr"], thresholds=[t], alpha=0.05, method="exact"
    )
    pos = y.astype(bool)
    p_b, p_a = np.sum(pos & (group == "b")), np.sum(pos & (group == "a"))
    tp = np.sum(pos & (score >= t))
    x = np.arange(max(0, tp - p_a), min(tp, p_b) + 1)
    gaps = np.abs(x / p_b - (tp - x) / p_a)
    pmf = stats.hypergeom(p_a + p_b, tp, p_b).pmf(x)
    tail = np.array([pmf[gaps >= g - 1e-12].sum() for g in gaps])
    assert res.critical_value[0, 0] == pytest.approx(gaps[tail > 0.05].max(), rel=1e-9)
    # and the per-threshold decision is "gap above the critical value"
    assert res.reject[0, 0] == (abs(res.difference[0, 0]) > res.critical_value[0, 0] + 1e-12)


@pytest.mark.parametrize("method", ["exact", "monte_carlo"])
def test_reject_iff_gap_exceeds_critical_value(method):
    y, score, group = grid_data(n=2000, seed=5, shift=0.08)
    res = fastfair.threshold_sweep(
        y, score, group, method=method, thresholds=np.linspace(0.05, 0.95, 10),
        n_permutations=999, random_state=1,
    )  # fmt: skip
    gap = np.abs(res.difference)
    assert res.reject.any() and not res.reject.all()
    np.testing.assert_array_equal(res.reject, gap > res.critical_value * (1 + 1e-9))
    np.testing.assert_array_equal(res.reject_simultaneous, gap > res.band * (1 + 1e-9))
    # max-T adjusted p-values from the returned null maxima of |T| (two-sided), written
    # out: (1 + #{max_b >= |T_k|}) / (1 + B), floored at the pointwise p-value
    maxima = res.null_maxima[:, :, None]
    exceed = (maxima >= np.abs(res.statistic)[:, None, :] * (1 - 1e-12)).sum(axis=1)
    p_maxt = (1 + exceed) / (res.null_maxima.shape[1] + 1)
    np.testing.assert_allclose(res.pvalue_adjusted, np.maximum(p_maxt, res.pvalue), rtol=1e-12)
    # the band's critical |T|: the smallest order statistic of the maxima whose Monte-Carlo
    # p-value is <= alpha; the band is it times the standard error, at least pointwise
    B = res.null_maxima.shape[1]
    for mx, c in zip(res.null_maxima, res.max_critical):
        assert (1 + np.sum(mx > c)) / (B + 1) <= 0.05 < (1 + np.sum(mx >= c)) / (B + 1)
    se = res.standard_error
    gap_band = np.where(se > 0, res.max_critical[:, None] * se, 0.0)
    np.testing.assert_allclose(res.band, np.maximum(gap_band, res.critical_value), rtol=1e-12)


@pytest.mark.parametrize("n, thr", [(400, np.linspace(0.15, 0.85, 8)), (20000, [0.35, 0.65])])
def test_monte_carlo_pvalues_agree_with_exact(n, thr):
    # Marginally, the joint permutations are the conditional permutation test at each
    # threshold: with B = 20,000 the Monte-Carlo p-values are within 4 binomial SEs.
    # Small bins use the row walk, the large bins of n = 20,000 the ratio-of-uniforms sampler.
    y, score, group = grid_data(n=n, seed=6, shift=0.05 * 400 / n)
    kw = dict(metrics=("tpr", "fpr", "selection_rate"), thresholds=thr, random_state=2)
    exact = fastfair.threshold_sweep(y, score, group, method="exact", **kw)
    mc = fastfair.threshold_sweep(
        y, score, group, method="monte_carlo", n_permutations=20000, **kw
    )
    se = np.sqrt(exact.pvalue * (1 - exact.pvalue) / 20000) + 1 / 20001
    assert (np.abs(mc.pvalue - exact.pvalue) <= 4 * se).all()
    assert np.abs(mc.pvalue - exact.pvalue).max() > 0  # not the same computation


def test_joint_maxima_match_row_level_permutations():
    # The max over thresholds of |T| when the group labels of the positives are shuffled
    # (rows, not counts) and T, the pooled studentized TPR gap, is computed from scratch.
    y, score, group = grid_data(n=300, seed=7)
    thr = np.round(np.arange(0.1, 1.0, 0.1), 1)
    b = 4000
    res = fastfair.threshold_sweep(
        y, score, group, metrics=["tpr"], thresholds=thr, n_permutations=b, random_state=3
    )
    rng = np.random.default_rng(0)
    pos = np.flatnonzero(y)
    labels = np.argsort(rng.random((b, pos.size)), axis=1)  # a permutation per row
    is_b = (group[pos] == "b")[labels]  # (b, positives): permuted group labels
    above = score[pos][None, :, None] >= thr[None, None, :]  # (1, positives, thresholds)
    n_b, n_a = is_b.sum(axis=1)[0], (~is_b).sum(axis=1)[0]
    tp_b = np.einsum("bp,opt->bt", is_b.astype(float), above.astype(float))
    tp = above.sum(axis=1)[0]
    p = tp / (n_a + n_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (tp_b / n_b - (tp - tp_b) / n_a) / np.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b))
    brute = np.nan_to_num(np.abs(z)).max(axis=1)
    for c in np.quantile(brute, [0.5, 0.9, 0.95]):
        p1, p2 = np.mean(res.null_maxima[0] >= c - 1e-9), np.mean(brute >= c - 1e-9)
        pooled = (p1 + p2) / 2
        assert abs(p1 - p2) <= 4 * math.sqrt(2 * pooled * (1 - pooled) / b)


def test_identical_for_any_thread_count():
    y, score, group = grid_data(n=1000, seed=8)
    kw = dict(method="monte_carlo", n_permutations=500, random_state=4, thresholds=40)
    with _parallel.force_parallel():
        one = fastfair.threshold_sweep(y, score, group, n_jobs=1, **kw)
        for n_jobs in (2, 3):
            other = fastfair.threshold_sweep(y, score, group, n_jobs=n_jobs, **kw)
            np.testing.assert_array_equal(one.null_maxima, other.null_maxima)
            np.testing.assert_array_equal(one.pvalue, other.pvalue)
            np.testing.assert_array_equal(one.pvalue_adjusted, other.pvalue_adjusted)


def test_degenerate_thresholds_have_zero_gap_and_pvalue_one():
    y, score, group = grid_data(n=200, seed=9)
    res = fastfair.threshold_sweep(y, score, group, thresholds=[-5.0, 5.0], n_permutations=99)
    np.testing.assert_array_equal(res.difference, 0.0)
    np.testing.assert_array_equal(res.statistic, 0.0)
    np.testing.assert_array_equal(res.pvalue, 1.0)
    np.testing.assert_array_equal(res.critical_value, 0.0)
    assert not np.isnan(res.band).any()


def test_default_thresholds_are_score_quantiles():
    y, score, group = grid_data(n=500, seed=10)
    res = fastfair.threshold_sweep(y, score, group, n_permutations=9)
    np.testing.assert_array_equal(res.thresholds, np.unique(score))  # 100 quantiles of 11 values
    res = fastfair.threshold_sweep(y, np.arange(500.0), group, thresholds=5, n_permutations=9)
    np.testing.assert_array_equal(res.thresholds, [0.0, 124.0, 249.0, 374.0, 499.0])


def test_rejections_include_a_pvalue_equal_to_alpha_and_alpha_is_open_at_0_and_1():
    import dataclasses

    y, score, group = grid_data(n=600, seed=3, shift=0.1)
    res = fastfair.threshold_sweep(y, score, group, thresholds=[0.3, 0.5, 0.7],
                                   n_permutations=199, random_state=0)  # fmt: skip
    for field, rule in (("pvalue", "reject"), ("pvalue_adjusted", "reject_simultaneous")):
        p = getattr(res, field)
        at = dataclasses.replace(res, alpha=float(np.min(p)))  # a p-value exactly at alpha
        assert getattr(at, rule)[p == p.min()].all()
        np.testing.assert_array_equal(getattr(at, rule), p <= p.min())
    for alpha in (0.0, 1.0, 1):
        with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\)"):
            fastfair.threshold_sweep(y, score, group, alpha=alpha)


def test_power_twin_detects_a_shifted_group():
    # The same data as test_reject_iff..., without a shift nothing is flagged family-wise;
    # with a shift of the reference group's scores most central thresholds are.
    y, score, group = grid_data(n=4000, seed=11)
    null = fastfair.threshold_sweep(y, score, group, thresholds=np.linspace(0.1, 0.9, 9))
    y, score, group = grid_data(n=4000, seed=11, shift=0.15)
    alt = fastfair.threshold_sweep(y, score, group, thresholds=np.linspace(0.1, 0.9, 9))
    assert not null.reject_simultaneous.any()
    assert alt.reject_simultaneous.sum() >= 8


def test_inputs_are_checked():
    y, score, group = grid_data(n=100)
    with pytest.raises(ValueError, match="two groups"):
        fastfair.threshold_sweep(y, score, np.arange(100) % 3)
    with pytest.raises(ValueError, match="denominator changes"):
        fastfair.threshold_sweep(y, score, group, metrics=["ppv"])
    with pytest.raises(ValueError, match="denominator changes"):
        fastfair.threshold_sweep(y, score, group, metrics=["equalized_odds"])
    with pytest.raises(ValueError, match="distinct"):
        fastfair.threshold_sweep(y, score, group, thresholds=[0.5, 0.5])
    with pytest.raises(ValueError, match="alpha"):
        fastfair.threshold_sweep(y, score, group, alpha=1.5)
    with pytest.raises(ValueError, match="method"):
        fastfair.threshold_sweep(y, score, group, method="asymptotic")
    with pytest.raises(ValueError, match="score contains NaN"):
        fastfair.threshold_sweep(y, np.where(score > 0.5, np.nan, score), group)
    with pytest.raises(ValueError, match="same length"):
        fastfair.threshold_sweep(y[:-1], score, group)
    with pytest.raises(ValueError, match="has no positives"):
        fastfair.threshold_sweep(y & (group == "a"), score, group)


def test_columns_repr_frame_and_report_section():
    pd = pytest.importorskip("pandas")
    y, score, group = grid_data(n=800, seed=12, shift=0.1)
    df = pd.DataFrame({"label": y, "s": score, "g": group})
    res = fastfair.threshold_sweep("label", "s", "g", data=df, thresholds=[0.3, 0.5, 0.7])
    text = repr(res)
    assert "ThresholdSweepResult('b' - 'a', 3 thresholds in [0.3000, 0.7000]" in text
    lines = text.splitlines()
    header = "metric at t gap T pvalue max-T p rejected max-T rej. max-T crit."
    assert lines[2].split() == header.split()
    assert lines[3].split()[0] == "tpr" and lines[4].split()[0] == "fpr"
    frame = res.to_frame()
    assert frame.shape == (6, 11)
    np.testing.assert_array_equal(frame["pvalue"], res.pvalue.ravel())
    section = fastfair.sweep.html_section(res)
    assert "Fairness across thresholds" in section and section.count("<tr>") == 3
    assert section.count("<img") == 2  # one per metric: they wrap on a narrow screen
    assert "data:image/png;base64," in section


def test_familywise_error_quick():
    # validation/sweep_familywise.py in quick mode (the full run is recorded in
    # validation/results/sweep_familywise.txt): the band's family-wise error under the null
    # is within 3 binomial SEs of alpha, while reading thresholds one by one is not, and
    # the power twin flags TPR (shifted) but not FPR (unchanged).
    path = pathlib.Path(__file__).resolve().parents[1] / "validation" / "sweep_familywise.py"
    spec = importlib.util.spec_from_file_location("sweep_familywise", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    n_sim = 100
    rows = module.run(n_sim=n_sim, n_permutations=99, seed=5, settings=[0, 2])
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    null = [r for r in rows if r[0] == "null"]
    assert len(null) == 4
    assert all(r[3] <= bound for r in null)
    assert all(r[5] > bound for r in null)  # unadjusted: well above alpha
    power = {(r[1], r[2]): r[3] for r in rows if r[0] == "power"}
    assert power[(0, "tpr")] > 0.4 and power[(2, "tpr")] > 0.4
    assert power[(0, "fpr")] <= bound
    assert "max-T" in module.format_rows(rows, n_sim, 99)


def _recorded_sec51(results):
    """The full run's figures from validation/results/sec51_real_data.txt."""
    import re

    text = (results / "sec51_real_data.txt").read_text()
    out = {"n_permutations": int(re.search(r"^(\d+) permutations per sweep", text, re.M)[1])}
    for block in re.split(r"\n\n(?=COMPAS|Adult)", text)[1:]:
        head = re.match(r"(\w+): ([\d,]+) rows.*?C = ([\d.]+)", block)
        test = re.search(r"test AUC ([\d.]+) .*?\(Male ([\d,]+), Female ([\d,]+)\)", block)
        crit = re.findall(r"max-T critical value ([\d.]+)", block)
        out[head[1]] = dict(
            n_rows=int(head[2].replace(",", "")),
            C=float(head[3]),
            auc_test=float(test[1]),
            test_groups={"Male": int(test[2].replace(",", "")),
                         "Female": int(test[3].replace(",", ""))},
            max_critical=[float(c) for c in crit],
        )  # fmt: skip
    return out


def test_sec51_quick_mode_reproduces_the_recorded_full_run():
    # validation/sec51_real_data.py --quick (two model fits, Figure 2 with 199 permutations,
    # Figure 3 at two sizes) against the full run recorded in validation/results: the
    # deterministic numbers (rows, split, penalty, AUC, gaps) equal, the Monte-Carlo ones
    # within their Monte-Carlo error (B = 199 here, 999 recorded).
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    path = pathlib.Path(__file__).resolve().parents[1] / "validation" / "sec51_real_data.py"
    spec = importlib.util.spec_from_file_location("sec51_real_data", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = pathlib.Path(os.environ.get("FASTFAIR_DATA") or module.DEFAULT_DATA)
    if not all((data / f).is_file() for f in ("compas-scores-two-years.csv", "adult.data")):
        pytest.skip(f"Sec. 5.1 data not in {data}: set FASTFAIR_DATA to their directory")
    quick = module.run(data, quick=True, write=False)
    recorded = _recorded_sec51(module.RESULTS)
    fig2 = pd.read_csv(module.RESULTS / "sec51_figure2.csv")
    fig3 = pd.read_csv(module.RESULTS / "sec51_figure3.csv")
    b_quick, b_full = quick["n_permutations"], recorded["n_permutations"]
    assert (b_quick, b_full) == (199, 999)
    for name in ("COMPAS", "Adult"):
        got, rec = quick[name], recorded[name]
        assert module.FULL_RUN_C[name] == rec["C"] == got["C"]
        assert (got["n_rows"], got["test_groups"]) == (rec["n_rows"], rec["test_groups"])
        assert got["auc_test"] == pytest.approx(rec["auc_test"], abs=1e-4)  # 4 decimals
        res = got["sweep"]
        for m, metric in enumerate(res.metrics):
            row = fig2[(fig2["dataset"] == name) & (fig2["metric"] == metric)]
            np.testing.assert_allclose(row["threshold"], res.thresholds)
            np.testing.assert_allclose(res.difference[m], row["gap"], atol=1e-6)  # 6 decimals
            p = row["pvalue"].to_numpy()
            se = np.sqrt(p * (1 - p) * (1 / (b_quick + 1) + 1 / (b_full + 1)))
            assert (np.abs(res.pvalue[m] - p) <= 5 * se + 1 / (b_quick + 1)).all()
            # the recorded max-T critical value is the 95th percentile of these maxima
            share = np.mean(res.null_maxima[m] >= rec["max_critical"][m])
            assert abs(share - 0.05) <= 4 * math.sqrt(0.05 * 0.95 * (1 / b_quick + 1 / b_full))
        for i, size in enumerate(quick["sizes"]):
            rows = fig3[(fig3["dataset"] == name) & (fig3["size"] == size)]
            for m, column in enumerate(("min_gap_tpr", "min_gap_fpr")):
                full = rows[column].to_numpy()
                full = full[np.isfinite(full)]
                mine = got["figure3"][i, :, m]
                mine = mine[np.isfinite(mine)]
                assert mine.size >= 1 and full.size >= 10
                se = full.std(ddof=1) * math.sqrt(1 / mine.size + 1 / full.size)
                assert abs(mine.mean() - full.mean()) <= 4 * se


def test_audit_with_scores_sweeps_two_group_attributes_into_the_report():
    rng = np.random.default_rng(13)
    n = 3000
    sex = rng.choice(["F", "M"], n)
    race = rng.choice(["a", "b", "c"], n)
    y = rng.random(n) < 0.4
    score = rng.normal(1.0 * y + 0.4 * (y & (sex == "F")), 1.0)
    res = fastfair.audit(
        y, None, {"sex": sex, "race": race}, y_score=score, threshold=0.5, metrics=["tpr"],
        n_permutations=99, random_state=0,
    )  # fmt: skip
    assert list(res.sweeps) == ["sex"]  # race has three tested groups: not swept
    sweep = res.sweeps["sex"]
    ref = next(a["reference"] for a in res.attributes if a["name"] == "sex")
    assert sweep.comparison[1] == ref and sweep.n_permutations == 99
    direct = fastfair.threshold_sweep(
        y, score, sex, reference=ref, n_permutations=99, random_state=0
    )
    np.testing.assert_array_equal(sweep.pvalue, direct.pvalue)
    assert "<h2>Fairness across thresholds: sex</h2>" in res.to_html()


def _demo_sex_sweep():
    """The demo's sex sweep, where the largest studentized gap (TPR, -0.0935) is not the
    largest gap (-0.120): issue #35."""
    from importlib import resources

    table = fastfair.cli.read_table(str(resources.files("fastfair") / "data" / "adult_demo.csv"))
    return fastfair.threshold_sweep(
        table["label"], table["score"], table["sex"], reference="Male",
        n_permutations=99, random_state=0,
    )  # fmt: skip


def test_report_table_gives_the_largest_absolute_gap_not_the_largest_statistic():
    res = _demo_sex_sweep()
    m = res.metrics.index("tpr")
    by_statistic = int(np.argmax(np.abs(res.statistic[m])))
    by_gap = int(np.argmax(np.abs(res.difference[m])))
    assert by_statistic != by_gap  # the case the report got wrong
    assert res.largest_gap(m) == by_gap
    assert abs(res.difference[m, by_gap]) > abs(res.difference[m, by_statistic]) + 0.02
    # the numbers docs/audit.md quotes
    assert round(res.difference[m, by_gap], 3) == -0.120
    assert round(res.thresholds[by_gap], 3) == 0.207
    assert round(res.difference[m, by_statistic], 4) == -0.0935
    section = fastfair.sweep.html_section(res, plot=False)
    row = next(r for r in section.split("<tr>") if r.startswith("<td>tpr</td>"))
    cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
    assert cells[1] == fastfair._format.format_value(res.difference[m, by_gap])
    assert cells[2] == fastfair._format.format_value(res.thresholds[by_gap])
    assert cells[3] == fastfair._format.format_value(res.pvalue[m, by_gap])
    # one-sided sweeps: the largest gap in the alternative's direction
    y, score, group = grid_data(n=800, seed=3, shift=0.1)
    for alternative, sign in (("greater", 1), ("less", -1)):
        one = fastfair.threshold_sweep(
            y, score, group, alternative=alternative, n_permutations=99, random_state=0
        )
        assert one.largest_gap(0) == int(np.argmax(sign * one.difference[0]))


def test_plot_legend_outside_the_curves():
    """The legend never covers the gap curve, its peak in particular (issue #35: it hid
    the demo's TPR peak)."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = _demo_sex_sweep()
    axes = res.plot()
    fig = axes[0].figure
    fig.canvas.draw()
    for m, ax in enumerate(axes):
        box = ax.get_legend().get_window_extent()
        gap = np.abs(res.difference[m])
        points = ax.transData.transform(np.column_stack([res.thresholds, gap]))
        peak = points[int(np.argmax(gap))]
        assert not box.contains(*peak)
        inside = [box.contains(x, y) for x, y in points]
        assert not any(inside)
        assert box.y1 < ax.get_window_extent().y0  # below the axes, clear of all lines
    plt.close(fig)
    one = res.plot(metric="fpr")
    assert one.get_title() == "fpr"
    plt.close(one.figure)
    with pytest.raises(ValueError, match="metric must be one of"):
        res.plot(metric="ppv")


@pytest.mark.parametrize("b", [18, 19, 99, 100, 500, 999, 1000, 1001])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_monte_carlo_critical_value_is_the_order_statistic(b, alpha):
    """The critical value c of B permuted statistics is the order statistic at which the
    Monte-Carlo p-value (1 + #{T_b >= t}) / (1 + B) crosses alpha: p(c) > alpha and every
    t above c has p(t) <= alpha (counted directly, with ties in the null); infinite when
    no t reaches alpha (B + 1 < 1 / alpha). B values where alpha (B + 1) is and is not an
    integer, so an index off by one or a floor for a ceiling is seen."""
    from fastfair.sweep.inference import _monte_carlo_critical

    rng = np.random.default_rng(b)
    null = np.round(rng.normal(size=(b, 6)), 1)  # ties
    crit = _monte_carlo_critical(null, alpha)
    for col, c in zip(null.T, crit):
        if (1 + 0) / (b + 1) > alpha:
            assert c == np.inf
            continue
        assert (1 + np.sum(col >= c)) / (b + 1) > alpha
        assert (1 + np.sum(col > c)) / (b + 1) <= alpha
        assert c in col


def test_exact_sweep_adjusted_pvalues_are_floored_at_the_pointwise_ones():
    """With exact pointwise p-values and Monte-Carlo max-T ones, the adjusted p-value is the
    larger of the two: with one threshold and 99 permutations the max-T p-value falls below
    the exact one at some thresholds, and the floor must bind there."""
    bound = 0
    for seed in range(6):
        y, score, group = grid_data(n=300, seed=seed, shift=0.1)
        res = fastfair.threshold_sweep(
            y, score, group, method="exact", metrics=["tpr", "fpr"], thresholds=[0.45],
            n_permutations=99, random_state=seed,
        )  # fmt: skip
        maxima = res.null_maxima[:, :, None]
        exceed = (maxima >= np.abs(res.statistic)[:, None, :] * (1 - 1e-12)).sum(axis=1)
        p_maxt = (1 + exceed) / (res.null_maxima.shape[1] + 1)
        np.testing.assert_allclose(res.pvalue_adjusted, np.maximum(p_maxt, res.pvalue))
        bound += int(np.sum(p_maxt < res.pvalue))
    assert bound > 0  # the floor decided at least one adjusted p-value


@pytest.mark.parametrize("n_permutations", [None, 199])
def test_the_audits_sweep_is_threshold_sweep_of_its_two_groups(n_permutations):
    """The report's sweep of an attribute with exactly two tested groups is
    threshold_sweep on those rows against the audit's reference, with the audit's
    n_permutations (9,999 in the sequential audit, n_permutations None); an attribute of
    three groups gets none."""
    rng = np.random.default_rng(3)
    n = 3000
    g = np.where(rng.random(n) < 0.3, "b", "a")
    race = rng.choice(["x", "y", "z"], n)
    y = rng.random(n) < 0.4
    s = rng.random(n) * 0.5 + 0.4 * y + 0.1 * (g == "b")
    res = fastfair.audit(y, s >= 0.5, {"g": g, "race": race}, y_score=s, threshold=0.5,
                         n_permutations=n_permutations, random_state=2, n_jobs=1)  # fmt: skip
    assert list(res.sweeps) == ["g"]
    direct = fastfair.threshold_sweep(y, s, g, reference="a", alpha=0.05, random_state=2,
                                      n_permutations=n_permutations or 9999, n_jobs=1)  # fmt: skip
    assert res.sweeps["g"].n_permutations == (n_permutations or 9999)
    assert res.sweeps["g"].to_frame().equals(direct.to_frame())
    np.testing.assert_array_equal(res.sweeps["g"].critical_value, direct.critical_value)


def test_exact_critical_is_the_largest_value_whose_tail_exceeds_alpha():
    """_exact_critical: the largest support value v with P(V >= v) > alpha (brute force
    over the support), a tail exactly at alpha not counting; tied values share a tail."""
    from fastfair.sweep.inference import _exact_critical

    values = np.array([3.0, 0.0, 2.0, 1.0, 1.0])
    probs = np.array([0.125, 0.5, 0.125, 0.125, 0.125])
    for alpha in (0.125, 0.25, 0.3, 0.5, 0.6):
        tails = {v: probs[values >= v].sum() for v in values}
        expected = max(v for v, t in tails.items() if t > alpha)
        assert _exact_critical(values, probs, alpha) == expected


def test_exact_critical_counts_a_value_exactly_the_tie_tolerance_below_as_a_tie():
    """A support value exactly tie_tolerance(v) below v is a tie of v, as in the exact
    p-value (vals >= obs - tol): P(V >= 1) counts it, so the critical value at alpha = 0.6
    is 1, not the lower value (written for round ten's r10-swi-exact-first: a tail that
    starts after values equal to v - tol)."""
    from fastfair._pvalues import exact_pvalue, tie_tolerance
    from fastfair.sweep.inference import _exact_critical

    low = 1.0 - tie_tolerance(np.array([1.0]))[0]
    values, probs = np.array([low, 1.0]), np.array([0.5, 0.5])
    assert exact_pvalue(values, probs, 1.0, "greater") == 1.0  # the same tie rule
    assert _exact_critical(values, probs, 0.6) == 1.0


def test_band_is_never_narrower_than_the_pointwise_critical_gap():
    """The simultaneous band is max(max-T critical value x standard error, pointwise
    critical gap) at every threshold: a band narrower than a threshold's own exact critical
    gap would call a gap simultaneous that is not significant even at that threshold. In
    this small exact sweep (44 rows, 39 permutations for the max-T) the exact pointwise
    critical gap of the TPR at the third threshold exceeds the max-T one."""
    rng = np.random.default_rng(11)
    n = int(rng.integers(20, 200))
    g = np.where(rng.random(n) < rng.uniform(0.1, 0.5), "a", "b")
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    s = rng.random(n)
    res = fastfair.threshold_sweep(y, s, g, reference="a", thresholds=6, method="exact",
                                   n_permutations=39, alpha=0.05, random_state=11)  # fmt: skip
    max_t_gap = res.max_critical[:, None] * res.standard_error
    assert (res.critical_value > max_t_gap + 1e-12).any()  # the case where it matters
    np.testing.assert_array_equal(res.band, np.maximum(max_t_gap, res.critical_value))


def test_a_threshold_whose_gap_is_always_0_has_critical_value_0_even_with_too_few_draws():
    """9 permutations cannot reach alpha = 0.05 ((1 + 0) / 10 > 0.05): the critical values
    are infinite, except at a threshold above every score, where no row is predicted
    positive, the gap and its standard error are 0 and the critical gap is 0, not NaN."""
    y, score, group = grid_data()
    res = fastfair.threshold_sweep(y, score, group, metrics="tpr", thresholds=[0.5, 2.0],
                                   n_permutations=9, random_state=0)  # fmt: skip
    assert res.standard_error[0].tolist()[1] == 0.0 and res.difference[0][1] == 0.0
    assert res.critical_value[0].tolist() == [np.inf, 0.0]
    assert res.band[0].tolist() == [np.inf, 0.0]


def test_every_frame_column_reads_back_its_metric_and_threshold():
    """to_frame row m * n_thresholds + k is metric m at threshold k, every column; each
    group's value and the difference recomputed from the rows (score >= t predicted)."""
    pytest.importorskip("pandas")
    y, score, group = grid_data(n=800, seed=12, shift=0.1)
    thresholds = [0.3, 0.5, 0.7]
    metrics = ["tpr", "fpr", "selection_rate"]
    res = fastfair.threshold_sweep(y, score, group, metrics=metrics, thresholds=thresholds,
                                   n_permutations=99, random_state=0)  # fmt: skip
    frame = res.to_frame()
    a, b = (str(g) for g in res.comparison)
    n_m, n_k = len(res.metrics), len(thresholds)
    assert len(frame) == n_m * n_k
    labels = np.asarray(group).astype(str)
    for m, metric in enumerate(res.metrics):
        for k, t in enumerate(thresholds):
            row = frame.iloc[m * n_k + k]
            assert row["metric"] == metric and row["threshold"] == t
            pred = score >= t
            values = []
            for g in (a, b):
                rows = labels == g
                den = {"tpr": rows & (y == 1), "fpr": rows & (y == 0), "selection_rate": rows}
                values.append((den[metric] & pred).sum() / den[metric].sum())
            assert row[f"value {a}"] == pytest.approx(values[0], abs=1e-15)
            assert row[f"value {b}"] == pytest.approx(values[1], abs=1e-15)
            assert row["difference"] == pytest.approx(values[0] - values[1], abs=1e-15)
            for name in ("standard_error", "statistic", "pvalue", "critical_value",
                         "pvalue_adjusted", "band"):  # fmt: skip
                assert row[name] == getattr(res, name)[m, k], name


def test_repr_and_report_rows_read_back_every_column():
    """The repr's row per metric: the threshold of the most extreme T, its gap, T, raw and
    max-T p-values, the counts of thresholds with raw p <= alpha and with max-T p <= alpha
    (different here), the max-T critical value; the report's row per metric: the largest
    absolute gap, its threshold, its raw and max-T p-values and the same two counts. Each
    value is taken from the result's arrays by hand (argmax, counts), not from the code."""
    y, score, group = grid_data(n=800, seed=2, shift=0.05)
    res = fastfair.threshold_sweep(y, score, group, thresholds=np.linspace(0.1, 0.9, 9),
                                   n_permutations=199, random_state=0)  # fmt: skip
    fmt = fastfair._format.format_value
    raw = (res.pvalue <= 0.05).sum(axis=1)
    simultaneous = (res.pvalue_adjusted <= 0.05).sum(axis=1)
    assert (raw != simultaneous).any()
    rows = repr(res).splitlines()[3:5]
    section = fastfair.sweep.html_section(res, plot=False)
    html_rows = [r for r in section.split("<tr>") if r.startswith("<td>")]
    for m, name in enumerate(res.metrics):
        k = int(np.argmax(np.abs(res.statistic[m])))
        assert rows[m].split() == [
            name, fmt(res.thresholds[k]), fmt(res.difference[m, k]), fmt(res.statistic[m, k]),
            fmt(res.pvalue[m, k]), fmt(res.pvalue_adjusted[m, k]), str(raw[m]),
            str(simultaneous[m]), fmt(res.max_critical[m]),
        ]  # fmt: skip
        j = int(np.argmax(np.abs(res.difference[m])))
        cells = [c.split("</td>")[0] for c in html_rows[m].split("<td>")[1:]]
        assert cells == [
            name, fmt(res.difference[m, j]), fmt(res.thresholds[j]), fmt(res.pvalue[m, j]),
            fmt(res.pvalue_adjusted[m, j]), str(raw[m]), str(simultaneous[m]),
        ]  # fmt: skip
    assert int(np.argmax(np.abs(res.statistic[0]))) != int(np.argmax(np.abs(res.difference[0])))


def test_metrics_ax_and_missing_matplotlib_are_handled_as_documented(monkeypatch):
    """No metric, a metric twice (also through an alias: recall is tpr), and a plot onto the
    wrong number of axes are refused with their rule; without matplotlib the report
    section keeps its table and says the plot needs matplotlib instead of an image."""
    y, score, group = grid_data(n=300, seed=4)
    kw = dict(thresholds=3, n_permutations=19, random_state=0)
    with pytest.raises(ValueError, match="metrics must name at least one rate"):
        fastfair.threshold_sweep(y, score, group, metrics=[], **kw)
    for twice in (["tpr", "tpr"], ["tpr", "recall"]):
        with pytest.raises(ValueError, match=r"metrics must be distinct, got \['tpr', "):
            fastfair.threshold_sweep(y, score, group, metrics=twice, **kw)
    res = fastfair.threshold_sweep(y, score, group, **kw)
    plt = pytest.importorskip("matplotlib.pyplot")
    _, axes = plt.subplots(1, 3)
    with pytest.raises(ValueError, match="ax must hold 2 axes, got 3"):
        res.plot(ax=axes)
    plt.close("all")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    section = fastfair.sweep.html_section(res, plot=True)
    assert section.endswith("</table></div>\n<p><em>The plot needs matplotlib.</em></p>")
    assert "<img" not in section and section.count("<tr>") == 3


def test_default_reference_is_the_group_with_more_rows_not_more_positives():
    """threshold_sweep's reference is by default the group with the most rows (as in
    permutation_test): 'wide' has 500 rows and 50 positives, 'keen' 300 rows and 240
    positives, so a reference chosen by positives (the TPR's denominator) would be 'keen'.
    The gap at each threshold is keen's TPR minus wide's, counted by hand."""
    rng = np.random.default_rng(4)
    g = np.repeat(np.array(["keen", "wide"]), [300, 500])
    y = np.r_[np.arange(300) < 240, np.arange(500) < 50].astype(int)
    score = np.round(rng.random(g.size) * 0.5 + 0.3 * y, 2)
    res = fastfair.threshold_sweep(
        y, score, g, metrics="tpr", thresholds=[0.3, 0.5], n_permutations=19, random_state=0
    )
    assert res.comparison == ("keen", "wide")
    for k, t in enumerate([0.3, 0.5]):
        tpr = {h: np.mean(score[(g == h) & (y == 1)] >= t) for h in ("keen", "wide")}
        assert res.difference[0, k] == pytest.approx(tpr["keen"] - tpr["wide"])


def test_the_audits_sweep_takes_its_alpha_and_a_reference_that_is_not_the_largest():
    """The audit's sweep with alpha=0.1 and reference='b' (the smaller group, so not the
    sweep's own default) is threshold_sweep with alpha=0.1 and reference='b': its band and
    adjusted decisions at that level, the gaps a minus b (TPRs counted by hand)."""
    rng = np.random.default_rng(3)
    n = 800
    g = np.where(rng.random(n) < 0.3, "b", "a")
    y = rng.random(n) < 0.4
    s = np.round(rng.random(n) * 0.5 + 0.4 * y + 0.1 * (g == "b"), 3)
    res = fastfair.audit(y, s >= 0.5, {"g": g}, y_score=s, threshold=0.5, metrics=["tpr"],
                         reference="b", alpha=0.1, n_permutations=99, random_state=2,
                         n_jobs=1)  # fmt: skip
    sweep = res.sweeps["g"]
    assert sweep.comparison == ("a", "b") and sweep.alpha == 0.1
    direct = fastfair.threshold_sweep(y, s, g, reference="b", alpha=0.1, random_state=2,
                                      n_permutations=99, n_jobs=1)  # fmt: skip
    assert sweep.to_frame().equals(direct.to_frame())
    at_05 = fastfair.threshold_sweep(y, s, g, reference="b", random_state=2, n_permutations=99,
                                     n_jobs=1)  # fmt: skip
    assert not np.array_equal(at_05.critical_value, direct.critical_value)
    k = int(np.argmin(np.abs(sweep.thresholds - 0.5)))
    t = sweep.thresholds[k]
    tpr = {h: np.mean(s[(g == h) & y] >= t) for h in ("a", "b")}
    assert sweep.difference[0, k] == pytest.approx(tpr["a"] - tpr["b"])


def test_counts_above_binary_search_for_every_number_of_thresholds_up_to_17():
    """The branch-free binary search for 1..17 thresholds (every power of two and its
    neighbours): rows at every threshold exactly, between them, below the first and above
    the last, against a brute-force count of score >= t per code, on one and two threads."""
    rng = np.random.default_rng(17)
    for k in range(1, 18):
        thresholds = np.sort(rng.choice(np.arange(-50, 50) / 10, k, replace=False))
        mids = (thresholds[:-1] + thresholds[1:]) / 2
        score = np.concatenate([thresholds, mids, [thresholds[0] - 1, thresholds[-1] + 1]])
        score = np.repeat(score, 3)
        code = (np.arange(score.size) % 3).astype(np.uint8)
        want = [[np.sum((score >= t) & (code == c)) for c in range(3)] for t in thresholds]
        for n_threads in (1, 2):
            with _parallel.force_parallel():
                got = _sweep.counts_above(score, code, thresholds, 3, n_threads)
            np.testing.assert_array_equal(got, want, err_msg=f"{k} thresholds")


def test_a_number_of_thresholds_from_one_and_one_permutation_are_accepted():
    """thresholds=k is k score quantiles from the smallest score to the largest (inverted
    CDF): 1 gives the smallest score alone, 2 the smallest and the largest; 0 is refused
    naming the argument. n_permutations 1 is accepted (its p-values are (1 + count) / 2),
    0 refused."""
    y, score, group = grid_data(n=500, seed=10)
    s = np.arange(500.0)
    kw = dict(n_permutations=9, random_state=0)
    np.testing.assert_array_equal(
        fastfair.threshold_sweep(y, s, group, thresholds=1, **kw).thresholds, [0.0]
    )
    np.testing.assert_array_equal(
        fastfair.threshold_sweep(y, s, group, thresholds=2, **kw).thresholds, [0.0, 499.0]
    )
    with pytest.raises(ValueError, match=r"^thresholds must be >= 1, got 0$"):
        fastfair.threshold_sweep(y, s, group, thresholds=0, **kw)
    one = fastfair.threshold_sweep(y, score, group, thresholds=[0.3, 0.5], n_permutations=1,
                                   random_state=0)  # fmt: skip
    assert one.n_permutations == 1 and set(np.ravel(one.pvalue)) <= {0.5, 1.0}
    with pytest.raises(ValueError, match=r"^n_permutations must be >= 1, got 0$"):
        fastfair.threshold_sweep(y, score, group, n_permutations=0)


def test_one_sided_repr_rows_give_the_threshold_of_the_most_extreme_statistic_in_its_direction():
    """A one-sided sweep's repr row per metric is read at the threshold of the largest
    statistic in the alternative's direction (argmax of T for "greater", of -T for
    "less"; found here with numpy), with that threshold's gap and T; for "less" on data
    whose gaps are mostly positive that is not the largest |T|."""
    y, score, group = grid_data(n=800, seed=3, shift=0.1)
    fmt = fastfair._format.format_value
    for alternative, sign in (("greater", 1), ("less", -1)):
        res = fastfair.threshold_sweep(y, score, group, alternative=alternative,
                                       thresholds=np.linspace(0.1, 0.9, 9), n_permutations=99,
                                       random_state=0)  # fmt: skip
        rows = repr(res).splitlines()[3:5]
        for m, name in enumerate(res.metrics):
            k = int(np.argmax(sign * res.statistic[m]))
            assert rows[m].split()[:4] == [
                name,
                fmt(res.thresholds[k]),
                fmt(res.difference[m, k]),
                fmt(res.statistic[m, k]),
            ]
        if alternative == "less":
            assert int(np.argmax(-res.statistic[0])) != int(np.argmax(np.abs(res.statistic[0])))


def test_plot_draws_each_curve_from_its_field_with_the_level_and_direction_given():
    """Each panel of the sweep's plot: the gap (its absolute value two-sided, itself
    one-sided), the per-threshold critical value and the max-T band (negated for "less"),
    labelled with the level 1 - alpha given (90%), the comparison's groups, and the points
    where the max-T adjusted p-value is at most alpha (not the raw one); the y label says
    |difference| only for a two-sided sweep."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y, score, group = grid_data(n=800, seed=2, shift=0.08)
    for alternative, sign in (("two-sided", 1.0), ("less", -1.0)):
        res = fastfair.threshold_sweep(y, score, group, alternative=alternative, alpha=0.1,
                                       thresholds=np.linspace(0.1, 0.9, 9), n_permutations=99,
                                       random_state=0)  # fmt: skip
        ax = res.plot(metric="tpr")
        try:
            lines = {line.get_label(): line for line in ax.lines}
            gap = np.abs(res.difference[0]) if sign > 0 else res.difference[0]
            np.testing.assert_array_equal(lines["tpr gap (b - a)"].get_ydata(), gap)
            np.testing.assert_array_equal(
                lines["90th percentile of the permutations"].get_ydata(),
                sign * res.critical_value[0],
            )
            np.testing.assert_array_equal(
                lines["simultaneous 90% band (max-T)"].get_ydata(), sign * res.band[0]
            )
            flagged = res.pvalue_adjusted[0] <= 0.1
            if flagged.any():
                np.testing.assert_array_equal(
                    lines["adjusted p <= alpha"].get_xdata(), res.thresholds[flagged]
                )
            else:
                assert "adjusted p <= alpha" not in lines
            assert ax.get_ylabel() == ("|tpr difference|" if sign > 0 else "tpr")
        finally:
            plt.close(ax.figure)
        if sign > 0:
            assert ((res.pvalue[0] <= 0.1) != flagged).any() and flagged.any()
