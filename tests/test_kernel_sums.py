"""The compiled kernel sums of predictive parity against plain references (#28).

`kernel_sums` adds each cluster's cross-grid outer products in blocks of clusters
(`ff_cov_flush`) and `max_wald_draws` multiplies the bootstrap's root row by row: both must
give what the plain definitions give, the blocks bit for bit.
"""

import itertools

import numpy as np
import pytest

from fastfair import _kernel_sums


def _clusters(n_clusters, seed, kernel_rows=6):
    """Clusters of 1..2*kernel_rows rows with scores spread over [0, 1] (so a cluster's
    window on the grid has gaps), real-valued outcomes of both signs, three groups and
    some clusters left out (group -1)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 2 * kernel_rows + 1, n_clusters)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    s = rng.random(starts[-1])
    y = rng.normal(0.3, 1.0, starts[-1])
    group = rng.integers(-1, 3, n_clusters).astype(np.intp)
    weight = 1.0 / sizes
    return s, y, starts, group, weight


def _reference(s, y, starts, group, weight, grid, h, kernel):
    """cov_aa, cov_ab, cov_bb added cluster by cluster, grid point by grid point, in the
    kernel's chunks of clusters (see `_chunk_count`) summed in chunk order."""
    M, G, K = starts.size - 1, grid.size, 3
    A, B = _kernel_sums.cluster_contributions(s, y, None, starts, grid, h, kernel)
    width = K * (7 * G + 1) + 3 * K * G * G
    n_chunks = max(1, min(64, M // 256 + 1, 48 * 1024 * 1024 // (8 * width)))
    total = None
    for c in range(n_chunks):
        mats = np.zeros((3, K, G, G))
        for m in range((M * c) // n_chunks, (M * (c + 1)) // n_chunks):
            g = group[m]
            a, b = weight[m] * A[m], weight[m] * B[m]
            touched = np.flatnonzero((a != 0) | (b != 0))
            if g < 0 or not touched.size:
                continue
            lo, hi = touched[0], touched[-1] + 1
            for j in touched:
                mats[0, g, j, j:hi] += a[j] * a[j:hi]
                mats[1, g, j, lo:hi] += a[j] * b[lo:hi]
                mats[2, g, j, j:hi] += b[j] * b[j:hi]
        total = mats if total is None else total + mats
    upper = np.triu(np.ones((G, G), dtype=bool))
    sym = [np.where(upper, total[i], np.swapaxes(total[i], 1, 2)) for i in (0, 2)]
    return {"cov_aa": sym[0], "cov_ab": total[1], "cov_bb": sym[1]}


@pytest.mark.parametrize(
    ("n_clusters", "kernel", "h"),
    [(250, "gaussian", 0.012), (700, "gaussian", 0.03), (400, "epanechnikov", 0.05)],
)
def test_cross_grid_sums_equal_the_cluster_by_cluster_sums(n_clusters, kernel, h):
    """Blocks of 32 clusters per group (full and partial, flushed at each chunk's end:
    700 clusters are 3 chunks) give the one-cluster-at-a-time sums bit for bit."""
    s, y, starts, group, weight = _clusters(n_clusters, seed=n_clusters)
    grid = np.linspace(0.05, 0.95, 40)
    got = _kernel_sums.kernel_sums(s, y, None, starts, group, weight, 3, grid, h, kernel, True)
    want = _reference(s, y, starts, group, weight, grid, h, kernel)
    for name in ("cov_aa", "cov_ab", "cov_bb"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert np.count_nonzero(got["cov_ab"]) > 0.3 * got["cov_ab"].size


def test_bootstrap_draws_multiply_the_root_row_by_row():
    """max_wald_draws computes D = root e, not root^T e: with the second group's root zero and
    unit variances, W_j = D_1j^2 / 2, so the draws of the rows (1, 1, 0) and (1, -1, 0)
    sum to twice those of (1, 0, 0) and (0, 1, 0) (non-symmetric roots)."""
    P = 3

    def draws(row):
        root = np.zeros((2, P, P))
        root[0, 0] = row
        return _kernel_sums.max_wald_draws(root, np.ones((2, P)), 200, 42, 0)

    plus, minus = draws([1.0, 1.0, 0.0]), draws([1.0, -1.0, 0.0])
    first, second = draws([1.0, 0.0, 0.0]), draws([0.0, 1.0, 0.0])
    np.testing.assert_allclose(plus + minus, 2.0 * (first + second), rtol=1e-12)
    assert not np.allclose(plus, minus)


def _loco_loss_by_hand(s, y, starts, group, weight, grid, h, fallback):
    """The leave-one-cluster-out loss of loco_cv_loss's docstring, in plain numpy: the
    Gaussian Nadaraya-Watson sums of each group without cluster m at the grid points,
    linearly interpolated at m's scores (np.interp), the group's fallback where a
    leave-out denominator is at most 1e-8 of the group's largest."""
    kern = np.exp(-0.5 * ((grid[None, :] - s[:, None]) / h) ** 2)
    n_groups = group.max() + 1
    A = np.array([(y[a:b, None] * kern[a:b]).sum(0) for a, b in itertools.pairwise(starts)])
    B = np.array([kern[a:b].sum(0) for a, b in itertools.pairwise(starts)])
    sa = np.array([(weight[group == g, None] * A[group == g]).sum(0) for g in range(n_groups)])
    sb = np.array([(weight[group == g, None] * B[group == g]).sum(0) for g in range(n_groups)])
    loss = total = 0.0
    for m, g in enumerate(group):
        if g < 0:
            continue
        num, den = sa[g] - weight[m] * A[m], sb[g] - weight[m] * B[m]
        ok = den > 1e-8 * sb[g].max()
        fit_grid = np.where(ok, num / np.where(ok, den, 1.0), np.inf)
        rows = slice(starts[m], starts[m + 1])
        j = np.clip(np.floor((s[rows] - grid[0]) / (grid[1] - grid[0])), 0, grid.size - 2)
        j = j.astype(int)
        usable = np.isfinite(fit_grid[j]) & np.isfinite(fit_grid[j + 1])
        fit = np.where(usable, np.interp(s[rows], grid, np.where(ok, fit_grid, 0.0)), fallback[g])
        loss += weight[m] * ((y[rows] - fit) ** 2).sum()
        total += weight[m] * (starts[m + 1] - starts[m])
    return loss / total


@pytest.mark.parametrize("h", [0.15, 0.004])
def test_loco_cv_loss_is_the_leave_one_cluster_out_loss_by_hand(h):
    """The bandwidth's cross-validation loss against plain numpy, on a coarse grid (11
    points for scores in [0, 1], so rows fall between grid points and the interpolation's
    weights matter) at a wide bandwidth and at a narrow one where some leave-out
    denominators vanish and the group's fallback value is used."""
    s, y, starts, group, weight = _clusters(120, seed=4)
    grid = np.linspace(0.0, 1.0, 11)
    fallback = np.array([0.1, 0.4, -0.2])
    loss = _kernel_sums.loco_cv_loss(s, y, None, starts, group, weight, 3, grid, h, fallback)
    expected = _loco_loss_by_hand(s, y, starts, group, weight, grid, h, fallback)
    assert loss == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    ("grid", "ok"),
    [([0.2, 0.2 + 1e-9, 0.6], True), ([0.2, 0.2, 0.6], False), ([0.6, 0.2], False), ([], False)],
    ids=["close but increasing", "a repeated point", "decreasing", "empty"],
)
def test_kernel_sums_need_a_strictly_increasing_grid(grid, ok):
    """The grid check at its boundary: a repeated point is refused, a point 1e-9 above its
    neighbour is not."""
    s, y, starts, group, weight = _clusters(30, seed=1)
    args = (s, y, None, starts, group, weight, 3, np.array(grid, dtype=float), 0.05)
    if ok:
        assert _kernel_sums.kernel_sums(*args, "gaussian", True)["cov_aa"].shape == (3, 3, 3)
        return
    with pytest.raises(ValueError, match="grid must be strictly increasing and non-empty"):
        _kernel_sums.kernel_sums(*args, "gaussian", True)


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
def test_leverage_sums_are_the_cr2_and_df_terms_of_each_clusters_share(kernel):
    """The CR2 pass against its documented definitions, cluster by cluster in numpy: with
    a = w A, b = w B of cluster m (cluster_contributions), p = b / sum_b[g, j], omega =
    1 / (1 - p) (1 - p floored at 1e-12: a grid point one cluster holds alone, here the
    point -0.97 reached only by the cluster at -1), ut = (a - f b) sqrt(omega): cr2 = sum
    ut^2 and the Satterthwaite df's terms sum omega p^2, omega p^3, omega p^4, omega^2 p^4,
    omega^2 p^5 (they never show in the curve, only in its degrees of freedom), cov the
    sums of ut_j ut_k."""
    s, y, starts, group, weight = _clusters(60, seed=3)
    s = np.concatenate([[-1.0], s])  # a cluster of one row, alone near grid point -0.97
    y = np.concatenate([[2.0], y])
    starts = np.concatenate([[0], starts + 1]).astype(np.intp)
    group = np.concatenate([[1], group]).astype(np.intp)
    weight = np.concatenate([[1.0], weight])
    grid = np.concatenate([[-0.97], np.linspace(0.2, 0.95, 12)])
    h = 0.06
    first = _kernel_sums.kernel_sums(s, y, None, starts, group, weight, 3, grid, h, kernel)
    sb = first["sum_b"]
    f = np.where(sb > 0, first["sum_a"] / np.where(sb > 0, sb, 1.0), 0.0)
    got = _kernel_sums.leverage_sums(s, y, None, starts, group, weight, 3, grid, h, sb, f,
                                     kernel, True)  # fmt: skip
    A, B = _kernel_sums.cluster_contributions(s, y, None, starts, grid, h, kernel)
    want = {k: np.zeros((3, grid.size)) for k in ("cr2", "op2", "op3", "op4", "o2p4", "o2p5")}
    cov = np.zeros((3, grid.size, grid.size))
    lone = 0
    for m in range(len(weight)):
        g = group[m]
        if g < 0:
            continue
        a, b = weight[m] * A[m], weight[m] * B[m]
        ok = (sb[g] > 0) & (b > 0)
        p = np.where(ok, b / np.where(sb[g] > 0, sb[g], 1.0), 0.0)
        lone += int(np.sum(ok & (p == 1.0)))
        om = np.where(ok, 1.0 / np.maximum(1.0 - p, 1e-12), 0.0)
        ut = np.where(ok, (a - f[g] * b) * np.sqrt(om), 0.0)
        want["cr2"][g] += ut * ut
        for name, (i, k) in {"op2": (1, 2), "op3": (1, 3), "op4": (1, 4), "o2p4": (2, 4),
                             "o2p5": (2, 5)}.items():  # fmt: skip
            want[name][g] += np.where(ok, om**i * p**k, 0.0)
        cov[g] += np.outer(ut, ut)
    assert lone >= 1 and got["op2"][1, 0] == pytest.approx(1e12, rel=1e-6)  # the floor
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-9, atol=1e-300, err_msg=name)
    np.testing.assert_allclose(got["cov"], cov, rtol=1e-9, atol=1e-12)
