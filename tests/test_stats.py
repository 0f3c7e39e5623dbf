"""Mergeable sufficient statistics: merging batches equals summarising all rows, and the
tests on the merged summaries equal the in-memory tests."""

import functools
import itertools
import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastfair
from fastfair.resampling import mean_difference_test
from fastfair.stats import ConfusionStats, MeanStats, PlacementSums, ScoreStats


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["north", "south", "east"], dtype=object), n)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.25 * y + 0.7 * rng.random(n) + 0.05 * (g == "east"), 0, 1), 3)
    pred = (score > 0.5).astype(int)
    sex = rng.choice(np.array(["f", "m"], dtype=object), n)
    return y, pred, score, g, sex


def _batches(n, sizes, *arrays):
    edges = np.cumsum([0, *sizes])
    assert edges[-1] == n
    return [[a[lo:hi] for a in arrays] for lo, hi in itertools.pairwise(edges)]


@pytest.mark.parametrize("method", ["exact", "monte_carlo", "asymptotic"])
def test_confusion_merged_equals_rows(method):
    y, pred, _, g, _ = _data()
    parts = [
        ConfusionStats.from_arrays(*b) for b in _batches(3000, [700, 1, 1299, 1000], y, pred, g)
    ]
    merged = parts[3] + (parts[0] + parts[2]) + parts[1]  # any order, any grouping
    for metric in ("tpr", "ppv", "equalized_odds"):
        a = merged.test(metric=metric, method=method, random_state=3, n_permutations=999)
        b = fastfair.permutation_test(
            y, pred, g, metric=metric, method=method, random_state=3, n_permutations=999
        )
        assert a.groups.tolist() == b.groups.tolist()
        np.testing.assert_array_equal(a.pvalue, b.pvalue)
        np.testing.assert_array_equal(a.statistic, b.statistic)
        np.testing.assert_array_equal(a.pvalue_adjusted, b.pvalue_adjusted)


def test_batch_missing_a_group_merges_by_label():
    a = ConfusionStats.from_arrays([1, 0], [1, 1], ["b", "c"])
    b = ConfusionStats.from_arrays([0, 1, 1], [0, 0, 1], ["a", "c", "c"])
    assert (a + b).labels.tolist() == ["a", "b", "c"]
    assert (a + b).counts.tolist() == [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 1, 1]]
    assert (b + a).counts.tolist() == (a + b).counts.tolist()


def test_intersection_counts_by_brute_force():
    y, pred, _, g, sex = _data(500)
    stats = ConfusionStats.from_arrays(y, pred, g, sex)
    combos = sorted(set(zip(g.tolist(), sex.tolist())))
    assert stats.labels.tolist() == combos
    for k, (gg, ss) in enumerate(combos):
        rows = (g == gg) & (sex == ss)
        cells = 2 * y[rows] + pred[rows]
        assert stats.counts[k].tolist() == np.bincount(cells, minlength=4).tolist()
    res = stats.test(metric="selection_rate", method="asymptotic")
    assert len(res.groups) == len(combos) and "east & f" in res.groups.tolist()


def test_auc_summary_is_exact_for_bounded_scores():
    y, _, score, g, _ = _data()
    parts = [ScoreStats.from_arrays(*b) for b in _batches(3000, [1000, 1500, 500], y, score, g)]
    merged = parts[2] + parts[0] + parts[1]
    d, ref = merged.delong(), fastfair.delong(y, score, g)
    np.testing.assert_allclose(d.auc, ref.auc, rtol=1e-12)
    np.testing.assert_allclose(d.variance, ref.variance, rtol=1e-12)
    np.testing.assert_allclose(d.s10, ref.s10, rtol=1e-12)
    np.testing.assert_array_equal(d.n_pos, ref.n_pos)
    a, b = merged.test(), fastfair.auc_test(y, score, g, method="delong")
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-12)
    np.testing.assert_allclose(a.pvalue, b.pvalue, rtol=1e-12)
    np.testing.assert_allclose(a.pvalue_adjusted, b.pvalue_adjusted, rtol=1e-12)
    np.testing.assert_allclose(a.confidence_interval, b.confidence_interval, rtol=1e-12)
    assert a.comparisons == b.comparisons
    assert merged.auc_error_bound.tolist() == [0.0, 0.0, 0.0]


def test_binned_auc_within_its_bound():
    rng = np.random.default_rng(5)
    n = 4000
    y, g = rng.integers(0, 2, n), rng.integers(0, 2, n)
    score = rng.normal(0.6 * y, 1.0)  # continuous: every score distinct
    exact = fastfair.delong(y, score, g).auc
    for h in (0.5, 0.05, 0.005):
        stats = ScoreStats.from_arrays(y, score, g, resolution=h)
        error = np.abs(stats.delong().auc - exact)
        bound = stats.auc_error_bound
        assert (error <= bound + 1e-15).all()
        assert bound.max() < {0.5: 0.1, 0.05: 0.012, 0.005: 0.0012}[h]
    # the bound is attained when every tie in a bin breaks the same way
    y2 = np.array([0, 1, 0, 1])
    s2 = np.array([0.10, 0.11, 0.20, 0.21])
    stats = ScoreStats.from_arrays(y2, s2, [0, 0, 0, 0], resolution=0.1)
    gap = fastfair.delong(y2, s2).auc[0] - stats.delong().auc[0]
    assert gap == pytest.approx(stats.auc_error_bound[0])


@pytest.mark.parametrize("centre", [5.0, 1e6])
def test_welch_from_merged_means(centre):
    rng = np.random.default_rng(2)
    v = rng.normal(centre, 2.0, 3000)
    g = rng.integers(0, 3, 3000)
    parts = [MeanStats.from_arrays(v[lo:hi], g[lo:hi]) for lo, hi in ((0, 1000), (1000, 3000))]
    merged = parts[1] + parts[0]
    res = mean_difference_test(v, g, method="asymptotic")
    for (a, b), stat, diff in zip(res.comparisons, res.statistic, res.difference):
        d, t = merged.welch(a, b)
        # reference: exactly rounded sums (math.fsum), then the Welch formula
        va, vb = v[g == a], v[g == b]
        ma, mb = math.fsum(va) / len(va), math.fsum(vb) / len(vb)
        sa = math.fsum((va - ma) ** 2) / (len(va) - 1)
        sb = math.fsum((vb - mb) ** 2) / (len(vb) - 1)
        want = (ma - mb) / math.sqrt(sa / len(va) + sb / len(vb))
        assert t == pytest.approx(want, rel=1e-9 if centre > 100 else 1e-12)
        if centre < 100:  # the in-memory test, at a modest centre (no cancellation there)
            assert d == pytest.approx(diff, rel=1e-12) and t == pytest.approx(stat, rel=1e-12)
    np.testing.assert_allclose(merged.variance, [v[g == k].var(ddof=1) for k in range(3)])


def test_bad_merges():
    with pytest.raises(ValueError, match="resolution"):
        ScoreStats.from_arrays(
            [0, 1], [0.1, 0.2], [0, 0], resolution=0.1
        ) + ScoreStats.from_arrays([0, 1], [0.1, 0.2], [0, 0])
    with pytest.raises(TypeError, match="cannot be ordered"):
        ConfusionStats.from_arrays([0, 1], [0, 1], ["a", "a"]) + ConfusionStats.from_arrays(
            [0, 1], [0, 1], [1, 1]
        )
    with pytest.raises(ValueError, match="group contains missing"):
        ConfusionStats.from_arrays([0, 1], [0, 1], ["a", None])


def test_pilot_plan_from_merged_counts_equals_the_rows_plan():
    from fastfair.planning import plan_from_data

    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < 0.3 + 0.4 * y).astype(int)
    g = rng.choice(["x", "y", "z"], n)
    merged = fastfair.stats.ConfusionStats.from_arrays(y[:1000], p[:1000], g[:1000])
    merged = merged + fastfair.stats.ConfusionStats.from_arrays(y[1000:], p[1000:], g[1000:])
    for metric in ("tpr", "fpr", "ppv", "selection_rate", "accuracy"):
        a = merged.plan(metric, tau=0.05, random_state=3)
        b = plan_from_data(y, p, g, metric, tau=0.05, random_state=3)
        assert a.plan.n == b.plan.n and a.n_interval == b.n_interval
        np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
        assert a.groups.tolist() == b.groups.tolist()
    with pytest.raises(ValueError, match="'auc' needs the scores"):
        merged.plan("auc", tau=0.05)


def test_pilot_plan_of_an_intersection_names_its_groups_like_the_test():
    """An intersection's pilot plan: groups "a & b" as the permutation test names them,
    the plan of the rows with those labels built by hand, in two batches."""
    from fastfair.planning import plan_from_data

    rng = np.random.default_rng(4)
    n = 2000
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < 0.3 + 0.4 * y).astype(int)
    sex, band = rng.choice(["f", "m"], n), rng.choice([1, 2], n)
    merged = ConfusionStats.from_arrays(y[:700], p[:700], sex[:700], band[:700])
    merged = merged + ConfusionStats.from_arrays(y[700:], p[700:], sex[700:], band[700:])
    joined = np.array([f"{a} & {b}" for a, b in zip(sex, band)], dtype=object)
    a = merged.plan("tpr", tau=0.05, random_state=3)
    b = plan_from_data(y, p, joined, "tpr", tau=0.05, random_state=3)
    assert a.groups.tolist() == b.groups.tolist() == ["f & 1", "f & 2", "m & 1", "m & 2"]
    assert a.plan.n == b.plan.n and a.n_interval == b.n_interval
    assert merged.test(metric="tpr", method="asymptotic").groups.tolist() == a.groups.tolist()


def test_wasserstein_depends_on_the_rows_only_through_the_projection():
    """docs/data.md: the large-data form of the Wasserstein test (one feature u / |beta|)."""
    from fastfair.wasserstein import wasserstein_test

    rng = np.random.default_rng(0)
    n = 2000
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3))
    X[:, 0] += 0.4 * a * y
    beta = np.array([1.0, -0.5, 0.2])
    full = wasserstein_test(X, y, a, beta, intercept=0.3, criterion="equalized_odds")
    norm = float(np.linalg.norm(beta))
    u = X @ beta + 0.3
    one = wasserstein_test((u / norm)[:, None], y, a, [norm], criterion="equalized_odds")
    assert one.statistic == pytest.approx(full.statistic, rel=1e-12)
    assert one.pvalue == pytest.approx(full.pvalue, rel=1e-9)
    assert full.pvalue < 0.05  # a real difference, so the equality is not about zeros


@pytest.mark.parametrize("wanted", [["south"], ["east", "south"], ["north", "east"]])
def test_select_equals_the_summary_of_the_selected_groups_rows(wanted):
    """``select`` of groups that are not the first ones (labels in order: east, north,
    south) keeps each selected group's own entries: PlacementSums field by field, and the
    DeLong AUCs and variances of PlacementSums and ScoreStats, equal the summaries of those
    groups' rows alone. Written for round-4 mutant r4-placement-select-neg-squares (one
    per-group field left out of the selection, so a later group reads the first groups')."""
    from fastfair.stats import PlacementSums

    y, _, score, g, _ = _data()
    keep = np.isin(g, wanted)
    for cls in (PlacementSums, ScoreStats):
        picked = cls.from_arrays(y, score, g).select(wanted)
        alone = cls.from_arrays(y[keep], score[keep], g[keep])
        if cls is PlacementSums:
            for name in PlacementSums._PER_GROUP:
                np.testing.assert_array_equal(getattr(picked, name), getattr(alone, name))
        a, b = picked.delong(), alone.delong()
        np.testing.assert_array_equal(a.groups, b.groups)
        np.testing.assert_allclose(a.auc, b.auc, rtol=1e-12)
        np.testing.assert_allclose(a.variance, b.variance, rtol=1e-12)


def test_merged_means_and_variances_equal_numpy_whatever_the_shifts():
    """MeanStats merged from batches with different shifts (each batch's first value by
    default, or given) has each group's count, mean and variance of its rows (numpy), in
    either order: the merged sums are re-centred on the first summary's shift, and the
    mean read back from that shift. The Welch difference alone cannot see a wrong shift
    (it cancels between two groups), so the means are compared one by one."""
    rng = np.random.default_rng(11)
    v = rng.normal(50.0, 3.0, 600)
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), 600)
    g[400:] = np.where(g[400:] == "a", "d", g[400:])  # "d" only in the last batch
    edges = [(0, 150, None), (150, 400, -7.5), (400, 600, 1e3)]
    parts = [MeanStats.from_arrays(v[lo:hi], g[lo:hi], shift=s) for lo, hi, s in edges]
    assert len({p.shift for p in parts}) == 3
    for merged in (parts[0] + parts[1] + parts[2], parts[2] + (parts[1] + parts[0])):
        assert merged.labels.tolist() == ["a", "b", "c", "d"]
        np.testing.assert_array_equal(merged.n, [np.sum(g == k) for k in "abcd"])
        np.testing.assert_allclose(merged.mean, [v[g == k].mean() for k in "abcd"], rtol=1e-12)
        np.testing.assert_allclose(
            merged.variance, [v[g == k].var(ddof=1) for k in "abcd"], rtol=1e-9
        )
        d, _ = merged.welch("d", "b")
        assert d == pytest.approx(v[g == "d"].mean() - v[g == "b"].mean(), rel=1e-12)


def test_welch_accepts_groups_of_exactly_two_rows_and_refuses_one():
    from scipy import stats

    v = np.array([1.0, 4.0, 2.0, 3.0, 7.0, 5.0])
    g = np.array(["a", "a", "b", "b", "b", "c"])  # groups of 2, 3 and 1 rows
    stats_ = MeanStats.from_arrays(v, g)
    d, t = stats_.welch("a", "b")
    want = stats.ttest_ind(v[:2], v[2:5], equal_var=False).statistic
    assert d == pytest.approx(2.5 - 4.0) and t == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="group 'c' has 1 row"):
        stats_.welch("a", "c")


@pytest.mark.parametrize("resolution", [None, 0.25])
def test_score_counts_field_by_field_against_a_count_of_the_rows(resolution):
    """ScoreStats of batches merged in either order: ``values`` are the distinct scores
    (with a resolution h, the bins floor(score / h) * h, so 0.49 is in bin 0.25 and -0.1
    in bin -0.25), and ``counts[k, label, v]`` the rows of group k with that label and
    value, counted by hand; a group present in one batch only keeps its counts."""
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
    s = np.array([0.49, 0.5, 0.74, 0.2, 0.49, -0.1, 0.99, 0.26, 0.5, 0.2])
    g = np.array(["b", "a", "b", "a", "c", "a", "c", "b", "c", "c"], dtype=object)
    binned = s if resolution is None else np.floor(s / resolution) * resolution
    values = np.unique(binned)
    want = np.zeros((3, 2, len(values)), dtype=np.int64)
    for yi, vi, gi in zip(y, binned, g):
        want["abc".index(gi), yi, values.tolist().index(vi)] += 1
    a = ScoreStats.from_arrays(y[:4], s[:4], g[:4], resolution=resolution)  # no "c"
    b = ScoreStats.from_arrays(y[4:], s[4:], g[4:], resolution=resolution)
    for merged in (a + b, b + a):
        assert merged.labels.tolist() == ["a", "b", "c"]
        np.testing.assert_array_equal(merged.values, values)
        np.testing.assert_array_equal(merged.counts, want)
        assert merged.resolution == resolution


@st.composite
def _split_rows(draw):
    """Rows (labels, predictions, tied scores, values, groups of int or text ids), cut into
    batches (some of one row, a group often in one batch only) and an order to add them."""
    n = draw(st.integers(2, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = rng.integers(0, draw(st.integers(1, 4)), n)
    if draw(st.booleans()):
        codes = np.sort(codes)  # each group in few batches
    group = np.array(["g0", "g1", "x", "a"], dtype=object)[codes] if draw(st.booleans()) else (
        codes * 5 - 7
    )  # fmt: skip
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=5))))
    batches = list(itertools.pairwise([0, *cuts, n]))
    order = draw(st.permutations(range(len(batches))))
    y, pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    score, value = rng.integers(0, 5, n) / 4, rng.normal(3.0, 1.0, n)
    return y, pred, score, value, group, [batches[k] for k in order]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_split_rows())
def test_batches_added_in_any_order_equal_one_pass_over_the_rows(case):
    """ConfusionStats, ScoreStats, MeanStats, the cube and ScoreRuns' placement sums of
    batches added in any order (left to right, or as a right-leaning tree) equal, field by
    field, the summary of all the rows at once: no batch dropped, counted twice or moved to
    another group."""
    from fastfair.stats import ConfusionCube, ScoreRuns

    y, pred, score, value, group, batches = case

    def parts(build):
        return [build(slice(a, b)) for a, b in batches]

    def chained(items):
        left = functools.reduce(operator.add, items)
        right = functools.reduce(lambda acc, item: item + acc, reversed(items))
        return left, right

    whole = ConfusionStats.from_arrays(y, pred, group)
    for merged in chained(parts(lambda r: ConfusionStats.from_arrays(y[r], pred[r], group[r]))):
        assert merged.labels.tolist() == whole.labels.tolist()
        np.testing.assert_array_equal(merged.counts, whole.counts)
    whole = ScoreStats.from_arrays(y, score, group)
    for merged in chained(parts(lambda r: ScoreStats.from_arrays(y[r], score[r], group[r]))):
        assert merged.labels.tolist() == whole.labels.tolist()
        np.testing.assert_array_equal(merged.values, whole.values)
        np.testing.assert_array_equal(merged.counts, whole.counts)
    labels = whole.labels.tolist()
    for merged in chained(parts(lambda r: MeanStats.from_arrays(value[r], group[r]))):
        assert merged.labels.tolist() == labels
        np.testing.assert_array_equal(merged.n, [np.sum(group == g) for g in labels])
        np.testing.assert_allclose(merged.mean, [value[group == g].mean() for g in labels])
    cube = ConfusionCube.from_arrays(y, pred, {"g": group})
    for merged in chained(
        parts(lambda r: ConfusionCube.from_arrays(y[r], pred[r], {"g": group[r]}))
    ):
        np.testing.assert_array_equal(merged.keys, cube.keys)
        np.testing.assert_array_equal(merged.counts, cube.counts)
    one = ScoreRuns.from_arrays(y, score, group).placements()
    for merged in chained(parts(lambda r: ScoreRuns.from_arrays(y[r], score[r], group[r]))):
        sums = merged.placements()
        assert sums.labels.tolist() == one.labels.tolist()
        for name in PlacementSums._PER_GROUP[1:]:
            assert list(map(int, getattr(sums, name))) == list(map(int, getattr(one, name)))


@pytest.mark.parametrize("resolution", [0, 0.0, -0.25, float("nan")])
def test_a_resolution_that_is_not_positive_is_refused(resolution):
    """Bins of width 0, a negative width or NaN are not bins: ScoreStats refuses them with
    the ValueError naming the resolution (a width of 0 would divide by zero and make every
    score NaN, a NaN width every bin NaN). Written for practice mutant
    pprac5-resolution-zero (``not resolution > 0`` read as ``resolution < 0``)."""
    with pytest.raises(ValueError, match="resolution must be positive"):
        ScoreStats.from_arrays([0, 1, 1], [0.1, 0.4, 0.8], ["a", "a", "a"], resolution=resolution)


def test_a_group_of_one_positive_has_delong_s10_zero_by_hand():
    """A group with a single positive: its placement V10 has no sample variance (s10 = 0,
    as fastfair.delong and ScoreStats take it), and the DeLong variance is s01 / n_neg, with
    the AUC and s01 counted by hand from the four negatives' placements. PlacementSums (the
    engines' exact integer sums) and ScoreStats agree with the count. Written for practice
    mutant pprac5-sample-var-one (the one-value guard of the exact sample variance)."""
    y = np.array([1, 0, 0, 0, 0, 1, 1, 0, 0])
    s = np.array([0.6, 0.2, 0.6, 0.9, 0.1, 0.5, 0.8, 0.3, 0.7])
    g = np.array(["a"] * 5 + ["b"] * 4)  # "a": one positive (0.6), negatives 0.2 0.6 0.9 0.1
    neg = s[:5][y[:5] == 0]
    v01 = (0.6 > neg) + 0.5 * (0.6 == neg)  # each negative's share of positives above it
    auc, s01 = v01.mean(), v01.var(ddof=1)
    for res in (
        PlacementSums.from_arrays(y, s, g).delong(),
        ScoreStats.from_arrays(y, s, g).delong(),
    ):
        assert res.groups.tolist() == ["a", "b"]
        assert res.n_pos.tolist() == [1, 2] and res.n_neg.tolist() == [4, 2]
        assert res.auc[0] == pytest.approx(auc, rel=1e-12)
        assert res.s10[0] == 0.0
        assert res.s01[0] == pytest.approx(s01, rel=1e-12)
        assert res.variance[0] == pytest.approx(s01 / 4, rel=1e-12)


def test_score_resolution_must_be_positive_and_a_tiny_one_keeps_every_score():
    """ScoreStats' resolution h bins scores as floor(s / h) * h: 0 and negative h are
    refused naming it (floor(s / 0) is no bin); the smallest binary fraction used here
    (2**-20, finer than these scores' grid of 1/8) keeps every distinct score, the counts
    those of no resolution."""
    y, s, g = [0, 1, 1, 0, 1], [0.125, 0.5, 0.875, 0.5, 0.25], [0, 0, 1, 1, 1]
    for bad in (0.0, -0.25):
        with pytest.raises(ValueError, match=rf"^resolution must be positive, got {bad!r}$"):
            ScoreStats.from_arrays(y, s, g, resolution=bad)
    fine = ScoreStats.from_arrays(y, s, g, resolution=2.0**-20)
    plain = ScoreStats.from_arrays(y, s, g)
    np.testing.assert_array_equal(fine.values, plain.values)
    np.testing.assert_array_equal(fine.counts, plain.counts)
