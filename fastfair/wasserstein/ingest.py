"""Ingest: the options and the data checked and coerced once (Wasserstein projection test)."""

from __future__ import annotations

import math

import numpy as np

from fastfair._validation import show_value

CRITERIA = ("equal_opportunity", "equalized_odds")
_CONVEX_LIMIT = 6.0 * math.sqrt(3.0)  # |c| above which the inner problem is non-convex
_MAX_ITER = 300
_MAX_NULL_MOVE = 4.0  # largest logit move of a null-size difference (level holds to ~4)


def _as_features(X) -> np.ndarray:
    if X is None:
        raise TypeError("X is required, got None")
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D (n samples, d features), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X is empty (shape {arr.shape})")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"X must be numeric, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite values"
        rows = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        raise ValueError(f"X contains {bad} (first in row {rows[0]})")
    return arr


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise TypeError(f"alpha must be a number, got {show_value(alpha)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(alpha)


def _check_not_saturated(dsig, cells, spread, m_scale, n, b2):
    r"""Refuse a classifier too steep on these data for the chi-square limit law.

    The limit law linearizes h around each sample. A difference of null size,
    :math:`\mathrm{sd}(c) = \sqrt{\text{spread}/N}`, is undone by moving sample i's score
    by about :math:`\Delta u_i = \mathrm{sd}(c)\, b_2 |\lambda_i| \sigma'(u_i) / M` (the
    first Newton step of the dual). When the largest such move exceeds 1, the sigmoid's
    curvature scale, the linearization (hence theta and the p-value) is meaningless: with
    saturated scores (every :math:`\sigma'(u_i)` tiny or zero) theta explodes or becomes
    NaN and a maximally unfair classifier would get p close to 1.
    """
    slope = max(abs(l_) * float(ds.max()) for ds, (_, l_) in zip(dsig, cells))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        move = math.sqrt(spread / n) * b2 * slope / m_scale if m_scale > 0 else math.inf
    if not move <= _MAX_NULL_MOVE:
        raise ValueError(
            "the classifier is saturated on these data (|beta'x + b| is large for almost "
            f"every sample: a difference of null size moves scores by {move:.3g} on the "
            "logit scale, beyond the sigmoid's linear range), so the test's chi-square limit "
            "does not apply; test a less steep (e.g. regularized or calibrated) model, or "
            "its thresholded predictions with permutation_test"
        )


def _cells(codes, y01, groups, criterion):
    """(cell = 2 a + y of each row, the 2 x 2 cell counts, the outcomes y compared): each
    compared outcome needs rows in both groups."""
    cell = 2 * codes.astype(np.uint8) + y01
    counts = np.bincount(cell, minlength=4).reshape(2, 2)
    labels = [1] if criterion == "equal_opportunity" else [0, 1]
    for lab in labels:
        for g in (0, 1):
            if counts[g, lab] == 0:
                raise ValueError(
                    f"no samples with a = {groups.tolist()[g]!r} and y = {lab}: {criterion} "
                    f"compares E[h | a, y = {lab}] between the groups, so both cells must be "
                    "non-empty"
                )
    return cell, counts, labels
