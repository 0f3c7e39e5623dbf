"""Sufficient statistics of a threshold sweep: each group's confusion counts per threshold."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair import _sweep
from fastfair._parallel import threads_for
from fastfair.sweep.ingest import _Sweep


def _tables(above, totals) -> np.ndarray:
    """(K, 8) cell counts (TN, FP, FN, TP of the group, then of the reference)."""
    tables = np.empty((len(above), 8), dtype=np.float64)
    for g in range(2):
        tables[:, 4 * g + 0] = totals[g, 0] - above[:, 2 * g]
        tables[:, 4 * g + 1] = above[:, 2 * g]
        tables[:, 4 * g + 2] = totals[g, 1] - above[:, 2 * g + 1]
        tables[:, 4 * g + 3] = above[:, 2 * g + 1]
    return tables


def _sweep_counts(sweep: _Sweep, n_jobs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pass over the rows: per threshold, rows at or above it per (group, label).

    Returns ``above`` (K, 4), ``totals`` (2, 2) (rows per group x label) and the (K, 8)
    cell counts of :func:`_tables`.
    """
    code = (2 * sweep.second + sweep.y).astype(np.uint8)
    count_threads = threads_for(n_jobs, len(sweep.s), 1_000_000)
    above = _sweep.counts_above(sweep.s, code, sweep.thresholds, 4, count_threads)
    totals = np.bincount(code, minlength=4).reshape(2, 2).astype(np.int64)
    return above, totals, _tables(above, totals)


@dataclass(frozen=True)
class _Rates:
    """One rate of both groups at every threshold, and its pooled studentization.

    The statistic of a permutation is ``T = num_A * scale - offset``: the denominators, the
    pooled numerator and the standard error are the same in every permutation.
    """

    rate: np.ndarray  # (K, 2): the group's and the reference's rate
    se: np.ndarray  # pooled standard error of the gap, sqrt(p(1-p)(1/den_A + 1/den_B))
    scale: np.ndarray
    offset: np.ndarray


def _rates(spec_metric, tables: np.ndarray) -> _Rates:
    """The rate `spec_metric` of both groups at each threshold, from the (K, 8) counts."""
    num, den = spec_metric.rates(tables.reshape(len(tables), 2, 4))
    rate = num[..., 0] / den[..., 0]
    pooled = num[..., 0].sum(axis=1) / den[..., 0].sum(axis=1)
    se = np.sqrt(pooled * (1 - pooled) * (1 / den[:, 0, 0] + 1 / den[:, 1, 0]))
    # T = (num_A/den_A - (num - num_A)/den_B)/SE = num_A * scale - offset
    positive = se > 0
    safe_se = np.where(positive, se, 1.0)
    scale = np.where(positive, (1 / den[:, 0, 0] + 1 / den[:, 1, 0]) / safe_se, 0.0)
    offset = np.where(positive, num[..., 0].sum(axis=1) / den[:, 1, 0] / safe_se, 0.0)
    return _Rates(rate=rate, se=se, scale=scale, offset=offset)
