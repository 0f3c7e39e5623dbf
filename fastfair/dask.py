"""Fairness tests of a dask DataFrame: statistics per partition, merged by a tree reduction
(the documented import path of :mod:`fastfair.engines.dask`). Install with
``pip install fastfair[dask]``; dask is imported only when these run."""

from fastfair.engines.dask import (
    auc_test,
    compare_models,
    confusion_stats,
    delong,
    paired_stats,
    permutation_test,
    placement_sums,
    score_stats,
)

__all__ = [
    "auc_test",
    "compare_models",
    "confusion_stats",
    "delong",
    "paired_stats",
    "permutation_test",
    "placement_sums",
    "score_stats",
]
