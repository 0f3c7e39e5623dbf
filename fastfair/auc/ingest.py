"""Ingest: the options and the data checked and coerced once (AUC tests)."""

from __future__ import annotations

import numpy as np

SCHEMES = ("within_outcome", "full")
METHODS = ("permutation", "delong", "auto")
#: method="auto" uses the DeLong z-test when every compared group has at least this many
#: positives and negatives (validation/auc_asymptotic_level.py checks its level there).
ASYMPTOTIC_MIN_CLASS = 1000
ADJUSTMENTS = ("holm", "bonferroni", "maxT", "none")
_MAX_GROUPS = 255
#: Cost of one permutation's sums, in sweep rows (benchmarks/RESULTS.md, measured per path):
#: sweep n; blocks BLOCK_COST per tie block + n / BITMAP_ROWS; sparse SPARSE_COST per drawn
#: row + n / BITMAP_ROWS, 5x that per drawn row when its block tables outgrow the cache
#: (more than SPARSE_CACHE_BLOCKS tie blocks). The Floyd draws, common to all, are left out.
BLOCK_COST = 2
SPARSE_COST = 3
SPARSE_CACHE_BLOCKS = 1 << 17
BITMAP_ROWS = 20


_IDENTITY = np.arange(256, dtype=np.uint8)
