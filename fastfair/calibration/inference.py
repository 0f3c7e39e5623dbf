"""Inference: the test on the statistics (p-values, intervals), then packing (calibration and
impact)."""

from __future__ import annotations

import numpy as np

from fastfair._scipy import special
from fastfair._validation import (
    as_finite_float,
    as_groups,
    as_probabilities,
    check_same_length,
)
from fastfair.calibration.ingest import _numeric_array
from fastfair.calibration.results import _key


def _fitted_codes(calibrator, group, n) -> np.ndarray:
    """Codes of `group` in the fitted groups of `calibrator` (groups_ and whether it was
    fitted with groups); all zero when it was fitted without."""
    if not hasattr(calibrator, "groups_"):
        name = type(calibrator).__name__
        raise RuntimeError(f"this {name} is not fitted yet: call fit first")
    if group is None:
        if calibrator._fitted_with_group:
            raise TypeError("group is required: the calibrator was fitted with groups")
        return np.zeros(n, dtype=np.intp)
    codes, labels = as_groups(group, "group", min_groups=1)
    index = {_key(g): k for k, g in enumerate(calibrator.groups_)}
    unseen = [_key(g) for g in labels if _key(g) not in index]
    if unseen:
        raise ValueError(
            f"group contains label(s) {unseen[:5]} not seen in fit; fitted groups are "
            f"{[_key(g) for g in calibrator.groups_]}"
        )
    lookup = np.array([index[_key(g)] for g in labels], dtype=np.intp)
    return lookup[codes]


def _score_matrix(values, name, k=None) -> np.ndarray:
    """`values` as a finite (n, K) float array (a 1-D array is one column)."""
    arr = _numeric_array(values, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, K)")
    if k is not None and arr.shape[1] != k:
        raise ValueError(f"{name} must have {k} columns, got {arr.shape[1]}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _row_weights(prep) -> np.ndarray:
    if not prep.clustered:
        return prep.cluster_weight
    return np.repeat(prep.cluster_weight, np.diff(prep.starts))


def _row_groups(prep) -> np.ndarray:
    if not prep.clustered:
        return prep.cluster_group
    return np.repeat(prep.cluster_group, np.diff(prep.starts))


def _logistic_irls(X, y, w, max_iter: int = 100, tol: float = 1e-10) -> np.ndarray:
    """Weighted maximum-likelihood logistic regression by Newton's method (no penalty)."""
    beta = np.zeros(X.shape[1])
    ridge = 1e-12 * np.eye(X.shape[1])
    for _ in range(max_iter):
        p = special.expit(X @ beta)
        grad = X.T @ (w * (y - p))
        hess = (X * (w * p * (1.0 - p))[:, None]).T @ X + ridge
        step = np.linalg.solve(hess, grad)
        # Halve the step while the log-likelihood does not improve (separation guard).
        ll0 = np.sum(w * (y * np.log(p + 1e-300) + (1 - y) * np.log(1 - p + 1e-300)))
        for _ in range(30):
            p1 = special.expit(X @ (beta + step))
            ll1 = np.sum(w * (y * np.log(p1 + 1e-300) + (1 - y) * np.log(1 - p1 + 1e-300)))
            if ll1 >= ll0 - 1e-12 * abs(ll0):
                break
            step = step / 2
        beta = beta + step
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            break
    return beta


def _inverse_threshold(grid, fmono, v):
    """Smallest s on the grid (linear interpolation) with running-max curve >= v; NaN if none."""
    j = int(np.searchsorted(fmono, v, side="left"))
    if j >= fmono.size or not np.isfinite(fmono[j]):
        return np.nan
    if j == 0:
        return grid[0] if fmono[0] == v else -np.inf
    f0, f1 = fmono[j - 1], fmono[j]
    if not np.isfinite(f0) or f1 <= f0:
        return grid[j]
    return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1])


def _prep_xy(y_true, y_score):
    """Outcomes and predicted probabilities (the calibration errors compare the two)."""
    s = as_probabilities(y_score, "y_score", "predicted probabilities")
    yv = as_finite_float(y_true, "y_true")
    check_same_length(y_true=yv, y_score=s)
    if s.size == 0:
        raise ValueError("y_score is empty")
    return yv, s


def _binned_error(ysum, ssum, count, n, p):
    nz = count > 0
    gap = np.abs(ysum[nz] / count[nz] - ssum[nz] / count[nz])
    return float((np.sum(count[nz] / n * gap**p)) ** (1.0 / p))


def _ranks_within(query_codes, x):
    """Descending average ranks (1 = largest) of x within each query."""
    n = x.size
    order = np.lexsort((-x, query_codes))
    q, xs = query_codes[order], x[order]
    new_q = np.r_[True, q[1:] != q[:-1]]
    qstart = np.maximum.accumulate(np.where(new_q, np.arange(n), 0))
    pos = np.arange(n) - qstart + 1.0
    new_tie = new_q | np.r_[True, xs[1:] != xs[:-1]]
    tie_id = np.cumsum(new_tie) - 1
    first = np.flatnonzero(new_tie)
    last = np.r_[first[1:], n] - 1
    avg = 0.5 * (pos[first] + pos[last])
    ranks = np.empty(n)
    ranks[order] = avg[tie_id]
    return ranks
