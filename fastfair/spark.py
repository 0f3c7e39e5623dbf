"""Fairness tests of a Spark DataFrame: statistics per partition (Arrow batches into the
compiled kernels), merged by a tree aggregation (the documented import path of
:mod:`fastfair.engines.spark`). Install with ``pip install fastfair[spark]`` (Spark also
needs a Java runtime); pyspark is imported only when these run."""

from fastfair.engines.spark import (
    auc_test,
    compare_models,
    confusion_cube,
    confusion_stats,
    delong,
    paired_stats,
    permutation_test,
    score_stats,
    spark_session,
)

__all__ = [
    "auc_test",
    "compare_models",
    "confusion_cube",
    "confusion_stats",
    "delong",
    "paired_stats",
    "permutation_test",
    "score_stats",
    "spark_session",
]
