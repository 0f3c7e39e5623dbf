"""Sufficient statistics: confusion counts per monitored group, and each metric's rates."""

from __future__ import annotations

import numpy as np

from fastfair import _counts
from fastfair._metrics import get_metric

__all__ = ["batch_counts", "metric_counts", "metric_masks"]


def batch_counts(cell, codes, slots, n_groups: int) -> np.ndarray:
    """(n_groups, 4) confusion counts (TN, FP, FN, TP) of rows with cells `cell`
    (``fastfair._metrics.cell_index``), rows of batch group k counted in monitor slot
    ``slots[k]`` (one pass of the compiled ``cell_sums``)."""
    cells, _ = _counts.cell_sums(cell, codes, len(slots), None)
    out = np.zeros((n_groups, 4), dtype=np.int64)
    np.add.at(out, slots, cells.astype(np.int64))
    return out


def metric_masks(metrics) -> tuple[np.ndarray, np.ndarray]:
    """(4, n_metrics) 0/1 matrices: which cells each metric's numerator and denominator sum."""
    num = np.zeros((4, len(metrics)), dtype=np.int64)
    den = np.zeros((4, len(metrics)), dtype=np.int64)
    for i, name in enumerate(metrics):
        metric = get_metric(name)
        for cell in range(4):
            num[cell, i] = (metric.num_masks[0] >> cell) & 1
            den[cell, i] = (metric.den_masks[0] >> cell) & 1
    return num, den


def metric_counts(counts: np.ndarray, masks) -> tuple[np.ndarray, np.ndarray]:
    """Numerators and denominators, shape (n_metrics, ..., n_groups), from counts of shape
    (..., n_groups, 4)."""
    num, den = masks
    if counts.ndim == 2:
        return (counts @ num).T, (counts @ den).T
    return np.moveaxis(counts @ num, -1, 0), np.moveaxis(counts @ den, -1, 0)
