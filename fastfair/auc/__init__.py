"""AUC fairness tests: Mann-Whitney AUC with DeLong studentization.

DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal (KDD 2020), "Evaluating fairness using
permutation tests", Sec. 3.2 (Theorems 1-2; docs/auc.md). Permuting the raw difference of
AUCs behaves as if both groups came from their mixture, so it is not a valid test of equal
AUCs when the groups differ in prevalence or score distributions (Theorem 1); permuting the
difference studentized by its DeLong standard error is (Theorem 2).

Everything is computed from one sort of the pooled scores (fast DeLong, Sun & Xu 2014):
the pooled order does not change when group labels are permuted, so each permutation is one
linear sweep over the sorted rows, never a new sort.

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: the sufficient statistics the tests read
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.auc.api import auc_test, auc_test_from_delong, delong
from fastfair.auc.ingest import (
    ADJUSTMENTS,
    ASYMPTOTIC_MIN_CLASS,
    BITMAP_ROWS,
    BLOCK_COST,
    METHODS,
    SCHEMES,
    SPARSE_CACHE_BLOCKS,
    SPARSE_COST,
)
from fastfair.auc.results import AUCTestResult, DeLongResult

__all__ = [
    "AUCTestResult",
    "DeLongResult",
    "auc_test",
    "auc_test_from_delong",
    "delong",
]
