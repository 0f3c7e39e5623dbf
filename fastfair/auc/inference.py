"""Inference: the test on the statistics (p-values, intervals), then packing (AUC tests)."""

from __future__ import annotations

import numpy as np

from fastfair import _auc
from fastfair.auc.ingest import BITMAP_ROWS, BLOCK_COST, SPARSE_CACHE_BLOCKS, SPARSE_COST
from fastfair.auc.statistics import _Sorted, _strata_sizes


def _pair_sampler(
    sub: _Sorted, scheme: str, studentize: bool, key: int, stream: int, n_threads, path="auto"
):
    """draw(start, count): permuted statistics of one pair (codes 0, 1) from its streams.

    path: "sweep", "blocks", "sparse" or "auto" (the cheapest by `_cheapest_path`); all
    three draw the same rows and give the same statistics."""
    sizes = _strata_sizes(sub, 2, scheme)
    within = scheme == "within_outcome"
    tables = _auc.sparse_tables(sub.packed, sub.n_pos)
    if path == "auto":
        path = _cheapest_path(sizes, len(sub.packed), len(tables[1]))

    def draw(start: int, count: int) -> np.ndarray:
        args = (sub.packed, sub.n_pos, sizes, within, studentize, count, key, stream)
        if path == "sparse":
            return _auc.permute_two_sparse(*args, n_threads, start, tables)
        return _auc.permute_two(*args, n_threads, start, tables if path == "blocks" else None)

    return draw


def _cheapest_path(sizes: np.ndarray, n: int, n_blocks: int) -> str:
    """The permutation path of least estimated cost (see BLOCK_COST): a sweep over the n
    rows, a pass over the tie blocks, or the drawn rows alone."""
    drawn = int(sizes.min(axis=1).sum()) if sizes.shape[0] == 1 else _drawn_within(sizes)
    costs = {
        "sweep": n,
        "blocks": BLOCK_COST * n_blocks + n // BITMAP_ROWS,
        "sparse": SPARSE_COST * (1 if n_blocks <= SPARSE_CACHE_BLOCKS else 5) * drawn
        + n // BITMAP_ROWS,
    }
    return min(costs, key=costs.get)


def _drawn_within(sizes: np.ndarray) -> int:
    """Rows permute_two draws within outcome: the smaller group of each stratum, or group
    1's rows in both strata when the smaller groups differ."""
    small = sizes.argmin(axis=1)
    if small[0] != small[1]:
        return int(sizes[:, 1].sum())
    return int(sizes[0, small[0]] + sizes[1, small[1]])
