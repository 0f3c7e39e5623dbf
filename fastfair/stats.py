"""Mergeable sufficient statistics (the documented import path of
:mod:`fastfair.engines.summaries`): build them per batch or partition, add them, then test.

- :class:`ConfusionStats`: confusion counts (TN, FP, FN, TP) per group or intersection;
- :class:`ScoreStats`: per group, positives and negatives at each distinct score (AUC,
  DeLong);
- :class:`MeanStats`: count, sum and sum of squares of a value per group (Welch).
"""

from fastfair.engines.summaries import ConfusionStats, MeanStats, ScoreStats

__all__ = ["ConfusionStats", "MeanStats", "ScoreStats"]
