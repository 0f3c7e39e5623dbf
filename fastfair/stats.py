"""Mergeable sufficient statistics (the documented import path of
:mod:`fastfair.engines.summaries`): build them per batch or partition, add them, then test.

- :class:`ConfusionStats`: confusion counts (TN, FP, FN, TP) per group or intersection;
- :class:`ConfusionCube`: confusion counts per combination of the levels of several
  attributes, marginalised to any attribute or intersection (one pass, every combination);
- :class:`ScoreStats`: per group, positives and negatives at each distinct score (AUC,
  DeLong);
- :class:`ScoreRuns`, :class:`PlacementSums`: exact AUC summaries of any scores (sorted
  runs merged k-way; placement sums of score-ordered parts);
- :class:`MeanStats`: count, sum and sum of squares of a value per group (Welch).
"""

from fastfair.engines import summaries
from fastfair.engines.cube import ConfusionCube
from fastfair.engines.summaries import *  # noqa: F403

__all__ = ["ConfusionCube", *summaries.__all__]
