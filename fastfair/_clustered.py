"""Clustered score/outcome data for the kernel methods of FAccT 2023 (parity and
calibration): ingest (rows grouped by cluster, per-user or per-observation
weights), the evaluation grid and the bandwidth (rule of thumb, cross-validation)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from fastfair import _kernel_sums
from fastfair._validation import (
    MAX_POINTS,
    as_finite_float,
    as_groups,
    check_choice,
    check_int,
    check_same_length,
    resolve_columns,
    show_value,
    unit_scale,
)

WEIGHTINGS = ("per_user", "per_observation")
KERNELS = ("gaussian", "epanechnikov")
BANDWIDTH_METHODS = ("rule_of_thumb", "cv")


NAN_POLICIES = ("raise", "omit")


#: Default grid range: from the largest group's 2.5% to the smallest group's 97.5% quantile.
GRID_QUANTILES = (0.025, 0.975)
#: Undersmoothing: the rule-of-thumb / CV bandwidth (rate M^(-1/5)) is multiplied by
#: M^(-UNDERSMOOTH), so h ~ M^(-1/4): M h -> inf and sqrt(M h) h^2 -> 0 (Theorem 2).
UNDERSMOOTH = 0.05


#: Canonical-bandwidth ratio Epanechnikov / Gaussian (same smoothing for both kernels).
_EPANECHNIKOV_FACTOR = 2.214
#: Scores used for quantiles and scales (systematic subsample beyond this many rows).
QUANTILE_ROWS = 200_000
#: Rows per thread below which the kernel pass stays single-threaded (thread start-up).
ROWS_PER_THREAD = 50_000  # rows per thread in the kernel sums
#: Clusters used by cross-validation (random fixed-seed subsample beyond this many).
_CV_CLUSTERS = 20_000


class ClusterCounts:
    """Group and cluster counts shared by :class:`Prepared` and its batched stand-in
    (``fastfair._sorted_clusters.SortedClusters``): `labels` and `n_clusters` per group."""

    labels: np.ndarray
    n_clusters: np.ndarray

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    @property
    def total_clusters(self) -> int:
        return int(self.n_clusters.sum())


def kernel_pass(chunk, *, grid, h, kernel, covariance, n_groups, n_threads) -> dict:
    """:func:`fastfair._kernel_sums.kernel_sums` of rows (score, y, starts, cluster_group,
    cluster_weight, ...) of whole clusters: all rows, or one chunk of the batched engines."""
    s, y, starts, cgroup, weight = chunk[:5]
    return _kernel_sums.kernel_sums(
        s, y, None, starts, cgroup, weight, n_groups, grid, h, kernel, covariance, n_threads
    )


def leverage_pass(
    chunk, *, grid, h, sum_b, estimate, kernel, covariance, n_groups, n_threads
) -> dict:
    """:func:`fastfair._kernel_sums.leverage_sums` (the CR2 pass) of rows as in
    :func:`kernel_pass`."""
    s, y, starts, cgroup, weight = chunk[:5]
    return _kernel_sums.leverage_sums(
        s, y, None, starts, cgroup, weight, n_groups, grid, h, sum_b, estimate, kernel,
        covariance, n_threads,
    )  # fmt: skip


@dataclass
class Prepared(ClusterCounts):
    """Rows grouped by cluster (score, y in cluster order) and per-cluster data."""

    score: np.ndarray
    y: np.ndarray
    starts: np.ndarray
    cluster_group: np.ndarray
    cluster_weight: np.ndarray
    labels: np.ndarray
    n_rows: np.ndarray  # per group
    n_clusters: np.ndarray  # per group, clusters with at least one row
    weighting: str
    clustered: bool
    n_dropped: int = 0
    #: per group, rows with a score at or below `threshold` (None: prepared without one)
    n_at_or_below: np.ndarray | None = None

    @property
    def size(self) -> int:
        """Rows (observations) kept."""
        return self.score.size

    def row_sample(self):
        """Systematic subsample of the rows in cluster order: every ceil(n / 200,000)-th
        row's score, weight and group (grid quantiles and the rule-of-thumb bandwidth)."""
        n = self.score.size
        step = max(1, math.ceil(n / QUANTILE_ROWS))
        idx = np.arange(0, n, step)
        cl = np.searchsorted(self.starts, idx, side="right") - 1
        return self.score[idx], self.cluster_weight[cl], self.cluster_group[cl]

    def kernel_sums(self, grid, h, kernel, covariance, n_threads) -> dict:
        """:func:`kernel_pass` of these rows (the first pass).

        The batched engines' stand-in (``fastfair._sorted_clusters.SortedClusters``) has
        the same attributes and passes, computed over chunks of whole clusters."""
        return kernel_pass(
            self._rows(), grid=grid, h=h, kernel=kernel, covariance=covariance,
            n_groups=self.n_groups, n_threads=n_threads,
        )  # fmt: skip

    def leverage_sums(self, grid, h, sum_b, estimate, kernel, covariance, n_threads) -> dict:
        """:func:`leverage_pass` of these rows (the CR2 pass)."""
        return leverage_pass(
            self._rows(), grid=grid, h=h, sum_b=np.ascontiguousarray(sum_b),
            estimate=np.ascontiguousarray(estimate), kernel=kernel, covariance=covariance,
            n_groups=self.n_groups, n_threads=n_threads,
        )  # fmt: skip

    def _rows(self) -> tuple:
        return (self.score, self.y, self.starts, self.cluster_group, self.cluster_weight)


#: Outcomes whose largest magnitude is outside this range are refused: the variances and
#: Satterthwaite degrees of freedom take their fourth powers, which leave float64 beyond.
OUTCOME_RANGE = (2.0**-250, 2.0**250)


def _check_outcome_range(y: np.ndarray) -> None:
    top = float(np.nanmax(np.abs(y))) if y.size and not np.isnan(y).all() else 0.0
    if top != 0.0 and not OUTCOME_RANGE[0] <= top <= OUTCOME_RANGE[1]:
        raise ValueError(
            f"y_true reaches {top:.3g}: the kernel methods' variances and degrees of freedom "
            f"take fourth powers of the outcomes, which leave float64 outside "
            f"[{OUTCOME_RANGE[0]:.1e}, {OUTCOME_RANGE[1]:.1e}]; multiply or divide y_true by "
            "a power of ten (the tests do not change)"
        )


def prepare(
    y_true, y_score, group, cluster, weighting, nan_policy, data, *, min_groups, threshold=None
) -> Prepared:
    """Rows of the kernel methods, checked once and grouped by cluster.

    Rows kept: finite score (and y where needed), and score >= `threshold` for the marginal
    outcome test. Cluster sizes n_m count every row with a usable score, so a user's weight
    does not depend on how many of their rows pass the threshold.
    """
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    s, yv, gcodes, labels, ccodes, clabels = _columns(
        y_true, y_score, group, cluster, data, min_groups
    )
    keep, dropped = _kept_rows(s, yv, nan_policy, threshold)
    n_below = None
    if threshold is not None:
        n_below = np.bincount(gcodes[s <= threshold], minlength=len(labels))  # NaN: never
    sizes_all = None
    if ccodes is not None and weighting == "per_user":
        usable = ~np.isnan(s)
        sizes_all = np.bincount(ccodes[usable], minlength=len(clabels)).astype(np.float64)
    if not keep.all():
        s, yv, gcodes = s[keep], yv[keep], gcodes[keep]
        if ccodes is not None:
            ccodes = ccodes[keep]
    if s.size == 0:
        what = "at or above the threshold" if threshold is not None else "left"
        raise ValueError(f"no observations {what}")
    if ccodes is None:
        n_rows = np.bincount(gcodes, minlength=len(labels))
        starts = np.arange(s.size + 1, dtype=np.intp)
        return Prepared(
            s, yv, starts, gcodes, np.ones(s.size), labels, n_rows, n_rows.copy(), weighting,
            False, dropped, n_below,
        )  # fmt: skip
    column = cluster if isinstance(cluster, str) else None  # named in a conflict's message
    return _by_cluster(
        s, yv, gcodes, labels, ccodes, clabels, sizes_all, weighting, (dropped, n_below), column
    )


def _columns(y_true, y_score, group, cluster, data, min_groups) -> tuple:
    """(score, y, group codes, group labels, cluster codes, cluster labels), checked; one
    group "all" without `group`, cluster codes None without `cluster`."""
    cols = resolve_columns(data, y_true=y_true, y_score=y_score, group=group, cluster=cluster)
    s = as_finite_float(cols["y_score"], "y_score", allow_nan=True)
    yv = as_finite_float(cols["y_true"], "y_true", allow_nan=True)
    _check_outcome_range(yv)
    raw_group, raw_cluster = cols["group"], cols["cluster"]
    if raw_group is None and min_groups > 1:
        raise TypeError("group is required")
    gcodes = labels = ccodes = clabels = None
    if raw_group is not None:
        gcodes, labels = as_groups(raw_group, "group", min_groups=min_groups)
    if raw_cluster is not None:
        ccodes, clabels = as_groups(raw_cluster, "cluster", min_groups=1)
    n = check_same_length(y_true=yv, y_score=s, group=gcodes, cluster=ccodes)
    if raw_group is None:
        gcodes, labels = np.zeros(n, dtype=np.intp), np.array(["all"], dtype=object)
    return s, yv, gcodes, labels, ccodes, clabels


def _kept_rows(s, yv, nan_policy, threshold) -> tuple[np.ndarray, int]:
    """(mask of the rows kept, number of rows dropped for NaN): NaN scores, and NaN outcomes
    among the rows at or above the threshold, raise or are dropped by `nan_policy`."""
    nan_s = np.isnan(s)
    if nan_s.any() and nan_policy == "raise":
        raise ValueError(
            f"y_score contains {int(nan_s.sum())} NaN values; pass nan_policy='omit' to drop "
            "those rows"
        )
    keep = ~nan_s
    if threshold is not None:
        keep &= s >= threshold
    nan_y = np.isnan(yv) & keep
    if nan_y.any():
        if nan_policy == "raise":
            raise ValueError(
                f"y_true contains {int(nan_y.sum())} NaN values; pass nan_policy='omit' to drop "
                "those rows"
            )
        keep &= ~nan_y
    return keep, int(nan_s.sum() + nan_y.sum())


def _by_cluster(
    s, yv, gcodes, labels, ccodes, clabels, sizes_all, weighting, row_counts, column=None
):  # fmt: skip
    """The kept rows sorted by cluster, with each cluster's group and weight (1/n_m with
    n_m = `sizes_all`, per user; 1 per observation); a cluster in two groups is refused
    (its message names the cluster `column`, when the cluster was given as one).
    `row_counts`: (rows dropped for NaN, rows per group at or below the threshold or None)."""
    K, M = len(labels), len(clabels)
    s_sorted, y_sorted, starts, cluster_group, conflict = _kernel_sums.sort_by_cluster(
        ccodes, M, gcodes, s, yv
    )
    if conflict >= 0:
        c = ccodes[conflict]
        first = labels[cluster_group[c]]
        other = labels[gcodes[conflict]]
        n_bad = _count_conflicts(ccodes, gcodes, M)
        raise conflict_error(clabels[c], first, other, n_bad, column)
    counts = np.diff(starts)
    if weighting == "per_user":
        with np.errstate(divide="ignore"):
            weight = np.where(counts > 0, 1.0 / np.maximum(sizes_all, 1.0), 0.0)
    else:
        weight = np.ones(M)
    present = counts > 0
    n_rows = np.bincount(cluster_group[present], weights=counts[present], minlength=K)
    n_clu = np.bincount(cluster_group[present], minlength=K)
    return Prepared(
        s_sorted, y_sorted, starts, cluster_group, weight, labels, n_rows.astype(np.int64),
        n_clu.astype(np.int64), weighting, True, *row_counts,
    )  # fmt: skip


def conflict_error(user, first_group, other_group, n_bad: int, column=None) -> ValueError:
    """The error for a cluster (user) whose rows span several groups, the same on every
    engine: names the first such user, two of its groups, the number of such users and the
    cluster `column` (None: the cluster was given as values, not as a column name)."""
    where = "" if column is None else f" of the cluster column {column!r}"
    return ValueError(
        f"cluster {label_text(user)}{where} has rows in group {label_text(first_group)} and in "
        f"group {label_text(other_group)} ({n_bad} cluster(s) span several groups): a "
        "cluster (user) must belong to one group"
    )


def _count_conflicts(ccodes, gcodes, n_clusters) -> int:
    lo = np.full(n_clusters, np.iinfo(np.intp).max)
    hi = np.full(n_clusters, -1)
    np.minimum.at(lo, ccodes, gcodes)
    np.maximum.at(hi, ccodes, gcodes)
    return int(((hi >= 0) & (lo != hi)).sum())


def _row_sample(prep: Prepared):
    """Systematic subsample of rows: (score, per-row weight, group code)."""
    return prep.row_sample()


def weighted_quantiles(x, w, probs):
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    total = ws.sum()
    pos = (np.cumsum(ws) - 0.5 * ws) / total
    return np.interp(probs, pos, xs)


def _scale(x, w) -> float:
    """min(sd, IQR / 1.349) of the weighted scores (Silverman's robust scale)."""
    # constant on the raw scores, not on the sd: the mean of 500 scores of 0.3 rounds to
    # 0.3 + 5.6e-17, and the centred residues would pass as a spread of 1e-17
    kept = x[w > 0]
    if kept.size == 0 or kept.min() == kept.max():
        raise ValueError("score is constant: no bandwidth can be chosen from its spread")
    mean = np.average(x, weights=w)
    centred, e = unit_scale(x - mean)  # scores of 1e160 would overflow their squares
    sd = math.ldexp(math.sqrt(max(np.average(centred**2, weights=w), 0.0)), e)
    q1, q3 = weighted_quantiles(x, w, [0.25, 0.75])
    iqr = (q3 - q1) / 1.349
    scale = min(sd, iqr) if iqr > 0 else sd
    if not scale > 0:
        raise ValueError("score is constant: no bandwidth can be chosen from its spread")
    return scale


def make_grid(grid, prep: Prepared) -> np.ndarray:
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        n_points = check_int(grid, "grid", 1, MAX_POINTS)
        x, w, g = _row_sample(prep)
        lo, hi = -np.inf, np.inf
        for k in range(prep.n_groups):
            sel = g == k
            if not sel.any() or w[sel].sum() <= 0:
                continue
            q_lo, q_hi = weighted_quantiles(x[sel], w[sel], GRID_QUANTILES)
            lo, hi = max(lo, q_lo), min(hi, q_hi)
        if not lo < hi:
            if n_points == 1 and np.isfinite(lo):
                return np.array([lo])
            raise ValueError(
                "the groups' central score ranges (2.5% to 97.5% quantiles) do not overlap; "
                "pass grid explicitly"
            )
        return np.linspace(lo, hi, n_points) if n_points > 1 else np.array([(lo + hi) / 2])
    if isinstance(grid, (str, bytes)) or grid is None:
        raise TypeError(f"grid must be an integer or an array of scores, got {show_value(grid)}")
    arr = np.asarray(grid, dtype=np.float64)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("grid must be a non-empty 1-D array of scores")
    if not np.isfinite(arr).all():
        raise ValueError("grid contains NaN or infinite values")
    out = np.unique(arr)
    if out.size != arr.size:
        raise ValueError("grid contains duplicate points")
    if not np.array_equal(out, arr):
        raise ValueError("grid must be increasing")
    return out


def rule_of_thumb(prep: Prepared, kernel: str, undersmooth: float) -> float:
    x, w, _ = _row_sample(prep)
    M = max(prep.total_clusters, 2)
    h = 0.9 * _scale(x, w) * M ** (-0.2 - undersmooth)
    return h * (_EPANECHNIKOV_FACTOR if kernel == "epanechnikov" else 1.0)


def _subset_clusters(prep: Prepared, idx: np.ndarray) -> Prepared:
    counts = np.diff(prep.starts)[idx]
    new_starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    rows = np.repeat(prep.starts[idx] - new_starts[:-1], counts) + np.arange(new_starts[-1])
    cg = prep.cluster_group[idx]
    K = prep.n_groups
    present = counts > 0
    return Prepared(
        prep.score[rows],
        prep.y[rows],
        new_starts,
        np.ascontiguousarray(cg),
        np.ascontiguousarray(prep.cluster_weight[idx]),
        prep.labels,
        np.bincount(cg, weights=counts, minlength=K).astype(np.int64),
        np.bincount(cg[present], minlength=K).astype(np.int64),
        prep.weighting,
        prep.clustered,
    )


def cv_bandwidth(prep: Prepared, kernel: str, undersmooth: float, n_threads: int):
    """Leave-one-cluster-out CV on (a subsample of) clusters; returns (h, candidates, loss)."""
    M_all = prep.starts.size - 1
    present = np.flatnonzero(np.diff(prep.starts) > 0)
    sub = prep
    if present.size > _CV_CLUSTERS:
        rng = np.random.default_rng(0)
        idx = np.sort(rng.choice(present, _CV_CLUSTERS, replace=False))
        sub = _subset_clusters(prep, idx)
    elif present.size < M_all:
        sub = _subset_clusters(prep, present)
    m_sub, m_all = sub.total_clusters, prep.total_clusters
    h0 = rule_of_thumb(sub, kernel, 0.0)
    candidates = h0 * 2.0 ** np.linspace(-3.0, 1.5, 16)
    wsum = np.bincount(
        sub.cluster_group, weights=sub.cluster_weight * np.diff(sub.starts), minlength=sub.n_groups
    )
    ysum = np.add.reduceat(sub.y, sub.starts[:-1]) if sub.y.size else np.zeros(0)
    ysum = np.where(np.diff(sub.starts) > 0, ysum, 0.0)
    fallback = np.bincount(
        sub.cluster_group, weights=sub.cluster_weight * ysum, minlength=sub.n_groups
    ) / np.maximum(wsum, 1e-300)
    lo, hi = float(sub.score.min()), float(sub.score.max())
    losses = np.empty(candidates.size)
    for i, h in enumerate(candidates):
        n_eval = int(np.clip(math.ceil((hi - lo) / (h / 4.0)) + 1, 32, 2048))
        eval_grid = np.linspace(lo, hi, n_eval) if hi > lo else np.array([lo, lo + h])
        losses[i] = _kernel_sums.loco_cv_loss(
            sub.score,
            sub.y,
            None,
            sub.starts,
            sub.cluster_group,
            sub.cluster_weight,
            sub.n_groups,
            eval_grid,
            float(h),
            fallback,
            kernel,
            n_threads,
        )
    best = float(candidates[int(np.nanargmin(losses))])
    h = best * (m_sub / m_all) ** 0.2 * max(m_all, 2) ** (-undersmooth)
    return h, candidates, losses


def choose_bandwidth(prep, bandwidth, kernel, n_threads) -> tuple[float, str]:
    if isinstance(bandwidth, str):
        check_choice(bandwidth, "bandwidth", BANDWIDTH_METHODS)
        if bandwidth == "cv":
            return cv_bandwidth(prep, kernel, UNDERSMOOTH, n_threads)[0], "cv"
        return rule_of_thumb(prep, kernel, UNDERSMOOTH), "rule_of_thumb"
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real):
        raise TypeError(
            "bandwidth must be a positive number, 'rule_of_thumb' or 'cv', "
            f"got {show_value(bandwidth)}"
        )
    if not (np.isfinite(bandwidth) and bandwidth > 0):
        raise ValueError(f"bandwidth must be a finite number > 0, got {show_value(bandwidth)}")
    return float(bandwidth), "fixed"


def label_text(g) -> str:
    return repr(g.item() if isinstance(g, np.generic) else g)
