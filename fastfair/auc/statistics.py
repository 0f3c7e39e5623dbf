"""Sufficient statistics: what the test reads from the data (AUC tests)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair import _auc
from fastfair._comparisons import check_auc_defined, comparison_pairs
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


@dataclass(frozen=True)
class _AUCStatistics:
    """What auc_test reads: the rows sorted once (`srt`, with the inputs `_pair_rows`
    re-sorts from), each group's label counts `tot` (negatives, positives), AUC and DeLong
    variance, the compared pairs and their observed statistics."""

    srt: _Sorted
    score: np.ndarray
    y8: np.ndarray
    codes8: np.ndarray
    labels: np.ndarray
    pairs: np.ndarray
    tot: np.ndarray
    auc: np.ndarray
    var: np.ndarray
    observed: np.ndarray


def _auc_statistics(y, score, codes, labels, reference, comparisons, studentize):
    """One sort, then one sweep for every group's AUC and DeLong variance and each
    compared pair's statistic (raw or studentized difference)."""
    order, codes8, y8 = _sort_rows(y, score, codes)
    srt = _Sorted.build(order, score, y8, codes8)
    n_groups = len(labels)
    pairs = comparison_pairs(np.bincount(codes8, minlength=n_groups), labels, reference,
                             comparisons)  # fmt: skip
    tot, auc, var, _, _, _, observed = _auc.sweep_groups(
        srt.packed, srt.codes, srt.n_pos, n_groups, False, pairs, studentize
    )
    check_auc_defined(tot, labels, np.unique(pairs))
    return _AUCStatistics(srt, score, y8, codes8, labels, pairs, tot, auc, var, observed)


def _pair_rows(st: _AUCStatistics, ga: int, gb: int) -> _Sorted:
    """The sorted rows of groups ga and gb alone, recoded 0 and 1."""
    srt = st.srt
    if len(st.labels) == 2 and (ga, gb) == (0, 1):
        return srt
    if len(st.labels) == 2:  # the same rows: only the codes swap
        return _Sorted(srt.packed, 1 - srt.codes, srt.n_pos, srt.order)
    remap = np.full(256, 255, dtype=np.uint8)
    remap[ga], remap[gb] = 0, 1
    codes_sorted = st.codes8[srt.order]
    sub_order = srt.order[(codes_sorted == ga) | (codes_sorted == gb)]
    return _Sorted.build(sub_order, st.score, st.y8, st.codes8, remap)
