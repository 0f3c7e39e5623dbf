"""Sufficient statistics: what the test reads from the data (AUC tests)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair import _auc
from fastfair.auc.ingest import _IDENTITY


@dataclass
class _Sorted:
    """Rows sorted by score: packed = label | 2 * (tied with next); codes in label space
    (uint8 group codes of the positives in sorted order, then of the negatives)."""

    packed: np.ndarray
    codes: np.ndarray
    n_pos: int
    order: np.ndarray

    @classmethod
    def build(cls, order, score, y, codes8, remap=None) -> _Sorted:
        """From `order` (row indices by ascending score; a subset of rows is allowed)."""
        if remap is None:
            remap = _IDENTITY
        packed, codes_ln, n_pos = _auc.prepare(order, score, y, codes8, remap)
        return cls(packed, codes_ln, n_pos, order)


def _sort_rows(y, score, codes):
    """The one sort of the scores (`_auc.sort_order`) and uint8 group codes."""
    order = _auc.sort_order(np.ascontiguousarray(score, dtype=np.float64))
    return order, np.ascontiguousarray(codes, dtype=np.uint8), np.ascontiguousarray(y)


def _strata_sizes(srt: _Sorted, n_groups: int, scheme: str) -> np.ndarray:
    """Group sizes per stratum: (1, K) for the full scheme, (2, K) within outcome."""
    pos = np.bincount(srt.codes[: srt.n_pos], minlength=n_groups)
    neg = np.bincount(srt.codes[srt.n_pos :], minlength=n_groups)
    sizes = np.vstack([pos, neg]) if scheme == "within_outcome" else (pos + neg)[None, :]
    return np.ascontiguousarray(sizes, dtype=np.int64)
