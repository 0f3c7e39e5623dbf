"""Critical values of a threshold sweep on the scales of the statistic and of the gap."""

from __future__ import annotations

import numpy as np

from fastfair._pvalues import _tolerance


def _exact_critical(values, probabilities, alpha) -> float:
    """Largest support value v with P(V >= v) > alpha: the test rejects above it."""
    order = np.argsort(values, kind="stable")
    v, pr = values[order], probabilities[order]
    tail = np.append(np.cumsum(pr[::-1])[::-1], 0.0)
    first = np.searchsorted(v, v - _tolerance(v), side="left")
    return float(v[tail[first] > alpha].max())


def _monte_carlo_critical(null, alpha) -> np.ndarray:
    """Per column of null (B, C): the value above which (1 + #{T_b >= t})/(1 + B) <= alpha.

    It is the j-th largest permuted value, j the smallest integer with (1 + j)/(1 + B) >
    alpha (ties do not change it); infinite when no statistic can reach alpha.
    """
    b = null.shape[0]
    j = int(np.floor(alpha * (b + 1) - 1)) + 1
    if j <= 0:
        return np.full(null.shape[1], np.inf)
    return np.partition(null, b - j, axis=0)[b - j]


def _gap_scale(critical, se):
    """Critical values of T as gaps: times the standard error (0 where the gap is always 0).

    An infinite critical value (too few permutations to reach alpha) stays infinite.
    """
    return np.where(se > 0, np.asarray(critical, dtype=np.float64) * np.where(se > 0, se, 1), 0.0)
