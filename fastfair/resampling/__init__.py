"""Algorithm 1 for any metric: callables, regression metrics, means and correlations.

DiCiccio, Vasudevan, Basu, Kenthapadi & Agarwal (KDD 2020), "Evaluating fairness using
permutation tests", Sec. 3.4 (Algorithm 1), 4.1, 4.2 and 5 (docs/generic.md).

* :func:`permutation_test_rows` (reached through ``fastfair.permutation_test`` with a
  callable or a row metric): the permutation test of ``metric(group A) - metric(group B)``
  for any metric, studentized by a bootstrap variance inside every permutation (the full
  Algorithm 1), by the Sec. 5 shortcut, by the Welch variance (means of per-row values), or
  not at all (a pivotal statistic).
* :func:`mean_difference_test`: the difference of means of any per-row value, Welch
  studentized, with the permutations in the compiled core.
* :func:`correlation_test`: Pearson's r between a continuous attribute and a model's error,
  raw (FairTest's statistic) or studentized (DiCiccio & Romano 2017).
* :func:`basic_bootstrap_test`: the "basic" bootstrap test of Sec. 4.2, to compare with.

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: the sufficient statistics the tests read
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.resampling.api import (
    basic_bootstrap_test,
    correlation_test,
    mean_difference_test,
    permutation_test_rows,
)
from fastfair.resampling.ingest import (
    ADJUSTMENTS,
    MAX_EXACT_SUBSETS,
    METHODS,
    ROW_METRICS,
    SCALE_BLOCK,
    STUDENTIZE,
    is_row_metric,
)
from fastfair.resampling.results import (
    BootstrapTestResult,
    CorrelationTestResult,
    GenericTestResult,
    MetricError,
)

__all__ = [
    "ROW_METRICS",
    "BootstrapTestResult",
    "CorrelationTestResult",
    "GenericTestResult",
    "MetricError",
    "basic_bootstrap_test",
    "correlation_test",
    "mean_difference_test",
    "permutation_test_rows",
]
