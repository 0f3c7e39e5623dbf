"""Sufficient statistics of a threshold sweep: each group's confusion counts per threshold."""

from __future__ import annotations

import numpy as np


def _tables(above, totals) -> np.ndarray:
    """(K, 8) cell counts (TN, FP, FN, TP of the group, then of the reference)."""
    tables = np.empty((len(above), 8), dtype=np.float64)
    for g in range(2):
        tables[:, 4 * g + 0] = totals[g, 0] - above[:, 2 * g]
        tables[:, 4 * g + 1] = above[:, 2 * g]
        tables[:, 4 * g + 2] = totals[g, 1] - above[:, 2 * g + 1]
        tables[:, 4 * g + 3] = above[:, 2 * g + 1]
    return tables
