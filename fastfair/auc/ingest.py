"""Ingest: the options and the data checked and coerced once (AUC tests)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._comparisons import ComparisonOptions, comparison_fields
from fastfair._parallel import effective_n_threads
from fastfair._validation import check_choice, check_flag

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
#: Untied scores (fewer than RANKS_MAX_ROWS rows): the ranks path, RANK_COST per drawn row
#: + n / BITMAP_ROWS, against the sweep (the block paths' tables would hold every row;
#: measured in benchmarks/RESULTS.md, issue 28).
RANK_COST = 3
RANKS_MAX_ROWS = 1 << 31


_IDENTITY = np.arange(256, dtype=np.uint8)


@dataclass(frozen=True)
class _Options(ComparisonOptions):
    """The options of auc_test, checked once (_check_options)."""

    method: str  # "permutation", "delong" or "auto" (decided on the data)
    scheme: str
    studentize: bool
    n_threads: int


def _check_options(arguments: Mapping[str, Any]) -> _Options:
    """auc_test's options (its arguments by name, ``locals()`` on entry), checked once.
    max-T needs a fixed number of joint permutations: 9,999 unless `n_permutations`.
    method None (the default) is "auto" for the default sequential test, else
    "permutation" (a requested number of permutations or sequential options, or max-T)."""
    method = arguments["method"]
    if method is None:  # the default: see auc_test's `method`
        sequential = arguments["n_permutations"] is None and arguments["sequential"] is None
        method = "auto" if sequential and arguments["adjust"] != "maxT" else "permutation"
    check_choice(method, "method", METHODS)
    check_choice(arguments["scheme"], "scheme", SCHEMES)
    fields = comparison_fields(arguments, ADJUSTMENTS)
    if fields["adjust"] == "maxT" and fields["sequential"] is not None and method == "permutation":
        fields["n_permutations"], fields["sequential"] = 9999, None
    studentize = check_flag(arguments["studentize"], "studentize")
    if method == "delong" and not studentize:
        raise ValueError("method='delong' needs the studentized statistic (studentize=True)")
    if method in ("delong", "auto") and fields["adjust"] == "maxT":
        raise ValueError("adjust='maxT' needs method='permutation'")
    return _Options(
        **fields,
        method=method,
        scheme=arguments["scheme"],
        studentize=studentize,
        n_threads=effective_n_threads(arguments["n_jobs"]),
    )
