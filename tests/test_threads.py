"""Results are identical for any n_jobs, on the multithreaded path of every family.

Every test here runs under `force_parallel`, which switches off the "too small to be worth a
thread" rule, and on data large enough that each kernel splits its work into many chunks:
a thread race (a variable shared between threads that should be private) changes the
numbers here. Thread counts above the core count make the threads interleave more.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastfair
from fastfair import _counts, _kernel_sums, _parallel

THREADS = (2, 3, 4)


@pytest.fixture(autouse=True)
def _parallel_path():
    with _parallel.force_parallel():
        yield


def clustered(n_users=20_000, seed=0):
    rng = np.random.default_rng(seed)
    n_rows = 1 + rng.poisson(2, n_users)
    user = np.repeat(np.arange(n_users), n_rows)
    group = (np.arange(n_users) % 2)[user]
    score = np.clip(rng.beta(2, 2, n_users)[user] + rng.normal(0, 0.05, user.size), 0.01, 0.99)
    y = (rng.random(user.size) < score).astype(float)
    return y, score, group, user


def assert_same(a, b):
    """Bit-identical fields of two results (numbers, arrays, nested results)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif hasattr(a, "__dataclass_fields__"):
        for k in a.__dataclass_fields__:
            assert_same(getattr(a, k), getattr(b, k))
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, float):
        assert (a == b) or (np.isnan(a) and np.isnan(b)), (a, b)
    else:
        assert a == b


def test_openmp_teams_really_start():
    """Guard: the build has OpenMP, so the tests below exercise several threads."""
    if not _counts.openmp_enabled():
        pytest.skip("built without OpenMP: every kernel is sequential")
    assert _parallel.threads_for(4, 1, 10**9) == 4


def test_kernel_sums_and_cluster_contributions_are_thread_safe():
    y, s, _, user = clustered()
    order = np.argsort(user, kind="stable").astype(np.intp)
    starts = np.searchsorted(user[order], np.arange(user.max() + 2)).astype(np.intp)
    cg = np.zeros(starts.size - 1, dtype=np.intp)
    w = np.ones(starts.size - 1)
    grid = np.linspace(0.02, 0.98, 60)
    args = (s, y, order, starts, cg, w, 1, grid, 0.02)
    ref = _kernel_sums.kernel_sums(*args, "gaussian", True, 1)
    ref_a, ref_b = _kernel_sums.cluster_contributions(s, y, order, starts, grid, 0.02)
    for t in THREADS:
        for _ in range(3):
            assert_same(ref, _kernel_sums.kernel_sums(*args, "gaussian", True, t))
        a, b = _kernel_sums.cluster_contributions(s, y, order, starts, grid, 0.02, n_threads=t)
        np.testing.assert_array_equal(a, ref_a)
        np.testing.assert_array_equal(b, ref_b)
        for _ in range(3):
            loss = _kernel_sums.loco_cv_loss(*args, np.array([0.5]), "gaussian", t)
            assert loss == _kernel_sums.loco_cv_loss(*args, np.array([0.5]), "gaussian", 1)


def test_leverage_sums_are_thread_safe():
    """The CR2 second pass (small_sample="cr2"), with its cross-grid matrix."""
    y, s, _, user = clustered()
    order = np.argsort(user, kind="stable").astype(np.intp)
    starts = np.searchsorted(user[order], np.arange(user.max() + 2)).astype(np.intp)
    cg = (np.arange(starts.size - 1) % 2).astype(np.intp)
    w = 1.0 / np.maximum(np.diff(starts), 1)
    grid = np.linspace(0.02, 0.98, 60)
    first = _kernel_sums.kernel_sums(s, y, order, starts, cg, w, 2, grid, 0.02, "gaussian")
    sb = first["sum_b"]
    f = np.where(sb > 0, first["sum_a"] / np.where(sb > 0, sb, 1.0), 0.0)
    args = (s, y, order, starts, cg, w, 2, grid, 0.02, sb, f, "gaussian", True)
    ref = _kernel_sums.leverage_sums(*args, 1)
    assert ref["cr2"].min() > 0 and ref["cov"].shape == (2, 60, 60)
    for t in THREADS:
        for _ in range(3):
            assert_same(ref, _kernel_sums.leverage_sums(*args, t))


@pytest.mark.parametrize("bandwidth", ["rule_of_thumb", "cv"])
def test_parity_family(bandwidth):
    y, s, g, user = clustered()
    kw = dict(cluster=user, grid=30, bandwidth=bandwidth)
    ref = fastfair.predictive_parity_test(y, s, g, n_bootstrap=499, random_state=1, n_jobs=1, **kw)
    # The default small-sample correction runs its second pass here (CR2 path).
    assert ref.small_sample == "cr2" and ref.curve.max_share.max() > fastfair.parity.FAST_SHARE
    curve = fastfair.calibration_curve(y, s, g, n_jobs=1, **kw)
    for t in THREADS:
        res = fastfair.predictive_parity_test(
            y, s, g, n_bootstrap=499, random_state=1, n_jobs=t, **kw
        )
        assert_same(ref, res)
        assert_same(curve, fastfair.calibration_curve(y, s, g, n_jobs=t, **kw))
    mo = dict(cluster=user, bandwidth=bandwidth)
    ref_mo = fastfair.marginal_outcome_test(y, s, g, 0.5, n_jobs=1, **mo)
    for t in THREADS:
        assert_same(ref_mo, fastfair.marginal_outcome_test(y, s, g, 0.5, n_jobs=t, **mo))
    # The uncorrected path (one pass, cross-grid sums from kernel_sums) as well.
    ref0 = fastfair.predictive_parity_test(
        y, s, g, n_bootstrap=499, random_state=1, n_jobs=1, small_sample="none", **kw
    )
    for t in THREADS:
        res = fastfair.predictive_parity_test(
            y, s, g, n_bootstrap=499, random_state=1, n_jobs=t, small_sample="none", **kw
        )
        assert_same(ref0, res)


def test_calibration_family():
    y, s, g, user = clustered()
    ref = fastfair.GroupCalibrator(n_jobs=1).fit(s, y, g, cluster=user).transform(s, g)
    ref_tce = fastfair.tce_nadaraya_watson(y, s, cluster=user, n_jobs=1)
    ref_bw = fastfair.select_bandwidth(y, s, g, cluster=user, method="cv", n_jobs=1)
    for t in THREADS:
        cal = fastfair.GroupCalibrator(n_jobs=t).fit(s, y, g, cluster=user)
        np.testing.assert_array_equal(cal.transform(s, g), ref)
        assert fastfair.tce_nadaraya_watson(y, s, cluster=user, n_jobs=t) == ref_tce
        assert fastfair.select_bandwidth(y, s, g, cluster=user, method="cv", n_jobs=t) == ref_bw


@pytest.mark.parametrize(
    "kw",
    [
        dict(metric="tpr", method="monte_carlo", n_permutations=2000),
        dict(metric="equalized_odds", method="monte_carlo", n_permutations=2000),
        dict(metric="fpr", method="exact"),
        dict(metric="selection_rate", scheme="full", method="monte_carlo", n_permutations=500),
    ],
)
def test_permutation_family(kw):
    rng = np.random.default_rng(5)
    n = 30_000
    group = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    yhat = (rng.random(n) < 0.4 + 0.05 * group).astype(int)
    ref = fastfair.permutation_test(y, yhat, group, random_state=2, n_jobs=1, **kw)
    for t in THREADS:
        assert_same(ref, fastfair.permutation_test(y, yhat, group, random_state=2, n_jobs=t, **kw))


def test_weighted_rows_are_thread_safe():
    rng = np.random.default_rng(6)
    n = 20_000
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    yhat = rng.integers(0, 2, n)
    wt = rng.exponential(size=n)
    kw = dict(metric="tpr", n_permutations=300, sample_weight=wt, random_state=3)
    ref = fastfair.permutation_test(y, yhat, group, n_jobs=1, **kw)
    for t in THREADS:
        assert_same(ref, fastfair.permutation_test(y, yhat, group, n_jobs=t, **kw))


@pytest.mark.parametrize("scheme", ["within_outcome", "full"])
def test_auc_family(scheme):
    rng = np.random.default_rng(7)
    n = 20_000
    group = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    s = rng.random(n) + 0.3 * y
    kw = dict(scheme=scheme, n_permutations=400, random_state=4)
    ref = fastfair.auc_test(y, s, group, n_jobs=1, **kw)
    two = fastfair.auc_test(y, s, group == 1, n_jobs=1, **kw)
    for t in THREADS:
        assert_same(ref, fastfair.auc_test(y, s, group, n_jobs=t, **kw))
        assert_same(two, fastfair.auc_test(y, s, group == 1, n_jobs=t, **kw))


def test_generic_family():
    rng = np.random.default_rng(8)
    n = 20_000
    group = rng.integers(0, 3, n)
    v = rng.normal(size=n) + 0.01 * group
    x, e = rng.normal(size=n), rng.normal(size=n)
    ref = fastfair.mean_difference_test(v, group, n_permutations=999, random_state=1, n_jobs=1)
    ref_c = fastfair.correlation_test(x, e, n_permutations=999, random_state=1, n_jobs=1)
    for t in THREADS:
        res = fastfair.mean_difference_test(v, group, n_permutations=999, random_state=1, n_jobs=t)
        assert_same(ref, res)
        cor = fastfair.correlation_test(x, e, n_permutations=999, random_state=1, n_jobs=t)
        assert_same(ref_c, cor)


@pytest.mark.parametrize("criterion", ["equal_opportunity", "equalized_odds"])
def test_wasserstein_family(criterion):
    rng = np.random.default_rng(9)
    n = 60_000  # several kernel chunks per group cell
    X = rng.normal(size=(n, 3))
    a = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.5).astype(int)
    beta = np.array([0.3, -0.2, 0.1])
    ref = fastfair.wasserstein_test(X, y, a, beta, criterion=criterion, n_jobs=1)
    for t in THREADS:
        assert_same(ref, fastfair.wasserstein_test(X, y, a, beta, criterion=criterion, n_jobs=t))


def _near_alpha_data(n=6000, seed=11):
    """A score whose AUC gap gives a p-value near 0.05, so the sequential test runs many
    blocks (the case where a block schedule that depended on threads would show)."""
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < 0.08).astype(int)
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(size=n) + y * (1.0 - 0.25 * group), 2)
    return y, s, group


def test_sequential_tests_are_thread_safe():
    """Sequential stopping (blocks, decisions, counts) and the sparse AUC path (the small
    group here takes it) give identical results for any n_jobs."""
    y, s, group = _near_alpha_data()
    seq = fastfair.Sequential(max_permutations=3000)
    ref = fastfair.auc_test(y, s, group, sequential=seq, random_state=2, n_jobs=1)
    full = fastfair.auc_test(y, s, group, scheme="full", sequential=seq, random_state=2, n_jobs=1)
    v = s + 0.05 * group
    ref_m = fastfair.mean_difference_test(v, group, sequential=seq, random_state=2, n_jobs=1)
    assert ref.n_permutations > 200  # several blocks were drawn
    for t in THREADS:
        assert_same(ref, fastfair.auc_test(y, s, group, sequential=seq, random_state=2, n_jobs=t))
        assert_same(
            full,
            fastfair.auc_test(
                y, s, group, scheme="full", sequential=seq, random_state=2, n_jobs=t
            ),
        )
        assert_same(
            ref_m,
            fastfair.mean_difference_test(v, group, sequential=seq, random_state=2, n_jobs=t),
        )


def test_sparse_and_block_auc_kernels_are_thread_safe():
    from fastfair import _auc
    from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

    y, s, group = _near_alpha_data(n=30_000, seed=12)
    order, codes8, y8 = _sort_rows(y.astype(np.uint8), s, group)
    srt = _Sorted.build(order, s, y8, codes8)
    tables = _auc.sparse_tables(srt.packed, srt.n_pos)
    for scheme in ("within_outcome", "full"):
        sizes = _strata_sizes(srt, 2, scheme)
        args = (srt.packed, srt.n_pos, sizes, scheme == "within_outcome", True, 500, 99, 1)
        ref = _auc.permute_two_sparse(*args, 1, 0, tables)
        for t in THREADS:
            np.testing.assert_array_equal(ref, _auc.permute_two_sparse(*args, t, 0, tables))
            np.testing.assert_array_equal(ref, _auc.permute_two(*args, t, 0, tables))


def test_rank_auc_kernel_is_thread_safe():
    """The ranks path (untied scores): identical statistics for any thread count, equal to
    the sweep's, and auc_test's results on it likewise."""
    from fastfair import _auc
    from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

    rng = np.random.default_rng(13)
    n = 60_000
    group = (rng.random(n) < 0.05).astype(int)
    y = rng.random(n) < 0.3
    s = rng.normal(size=n) + y * (1.0 - 0.1 * group)
    order, codes8, y8 = _sort_rows(y.astype(np.uint8), s, group)
    srt = _Sorted.build(order, s, y8, codes8)
    table = _auc.rank_tables(srt.packed, srt.n_pos)
    for scheme in ("within_outcome", "full"):
        sizes = _strata_sizes(srt, 2, scheme)
        args = (srt.packed, srt.n_pos, sizes, scheme == "within_outcome", True, 400, 99, 1)
        ref = _auc.permute_two_ranks(*args, 1, 0, table)
        np.testing.assert_array_equal(ref, _auc.permute_two(*args, 1, 0, None))
        for t in THREADS:
            np.testing.assert_array_equal(ref, _auc.permute_two_ranks(*args, t, 0, table))
    seq = fastfair.Sequential(max_permutations=2000)
    one = fastfair.auc_test(y, s, group, sequential=seq, random_state=4, n_jobs=1)
    for t in THREADS:
        assert_same(one, fastfair.auc_test(y, s, group, sequential=seq, random_state=4, n_jobs=t))


@pytest.mark.parametrize("n_jobs", THREADS)
def test_compare_models_counts_and_swaps(n_jobs):
    """The paired counting pass (chunks of rows) and the swap permutations (one stream per
    permutation) give the same counts, null distribution and p-values on any thread count."""
    rng = np.random.default_rng(30)
    n = 400_000
    group = rng.integers(0, 5, n)
    y = rng.random(n) < 0.3
    a = rng.random(n) < 0.4
    b = np.where(rng.random(n) < 0.9, a, ~a)
    one = fastfair.compare_models(y, a, b, group, metric="ppv", method="permutation",
                                  n_permutations=3000, random_state=2, n_jobs=1,
                                  return_null=True)  # fmt: skip
    many = fastfair.compare_models(y, a, b, group, metric="ppv", method="permutation",
                                   n_permutations=3000, random_state=2, n_jobs=n_jobs,
                                   return_null=True)  # fmt: skip
    assert_same(one, many)
