"""Paired comparisons of two models on the same rows: is the new model fairer?

After a mitigation, a retraining or a threshold change the question is whether model B
closed model A's gap, or whether the change is noise. Both models are scored on the same
rows, so their gaps are correlated: the comparison is paired (docs/compare.md).

* rates (:func:`compare_models`, :func:`compare_models_from_counts`): per group the counts
  of the eight (label, prediction of A, prediction of B) cells are sufficient; swapping
  the two predictions within rows is one binomial draw per group and label
  (csrc/_paired.pyx), enumerated exactly when small;
* AUC (:func:`compare_auc`, :func:`paired_delong`): the DeLong covariance of the two AUCs
  of a group from the placements of :func:`fastfair.delong`;
* :class:`PairedStats`: mergeable counts for batches and clusters (:mod:`fastfair.dask`).

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: the paired counts and moments, the gaps and their change
* ``inference.py``: exact, Monte-Carlo and asymptotic tests, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.compare.api import (
    compare_auc,
    compare_models,
    compare_models_from_counts,
    paired_delong,
)
from fastfair.compare.ingest import AUC_ASYMPTOTIC_MIN_CLASS, EXACT_MAX_TABLES
from fastfair.compare.results import ModelComparisonResult, PairedDeLongResult
from fastfair.compare.statistics import PairedStats

__all__ = [
    "AUC_ASYMPTOTIC_MIN_CLASS",
    "EXACT_MAX_TABLES",
    "ModelComparisonResult",
    "PairedDeLongResult",
    "PairedStats",
    "compare_auc",
    "compare_models",
    "compare_models_from_counts",
    "paired_delong",
]
