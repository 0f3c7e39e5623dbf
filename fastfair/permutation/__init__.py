"""Permutation tests of group differences in confusion-matrix fairness metrics.

DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal (KDD 2020), "Evaluating fairness using
permutation tests", with the corrections of docs/permutation.md ("The statistic"): the
paper's unpooled
studentized statistic under full permutation does not hold its level, while permuting
within the metric's denominator ("conditional") is exact for equal rates and the pooled
(score-type) variance holds the level under full permutation. Those are the defaults; every
variant of the paper stays available.

Layers of this subpackage (each imports only those above it):

* ``ingest.py``: options and data, checked and coerced once
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair._exact import EXACT_NEGLECTED_MASS, MAX_EXACT_POINTS, ExactInfeasibleError
from fastfair._permutation_result import PermutationTestResult
from fastfair.permutation.api import (
    confusion_counts,
    permutation_test,
    permutation_test_from_counts,
)
from fastfair.permutation.inference import difference_interval
from fastfair.permutation.ingest import ADJUSTMENTS, METHODS, SCHEMES, VARIANCES

__all__ = [
    "PermutationTestResult",
    "confusion_counts",
    "permutation_test",
    "permutation_test_from_counts",
]
