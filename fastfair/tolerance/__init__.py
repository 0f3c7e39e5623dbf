r"""Tolerance tests and equivalence tests of a fairness gap.

The sample-size paper (Singh & Chunara 2023, eq. 1) plans an audit for
:math:`H_0: U \le U_{tol}` against :math:`H_1: U > U_{tol}`; a permutation test cannot test it
(permuting makes the groups' rates equal, not ``U_tol`` apart). Here the gap is tested with the
margin tests of the clinical-trial literature:

* rate metrics: the Miettinen-Nurminen (1985) score test, i.e. Farrington-Manning (1990) with
  the variance factor :math:`N/(N-1)`: :math:`Z(d) = (\hat U - d)/\sqrt{\tilde V(d)}` with the
  maximum-likelihood rates restricted to :math:`U = d` in the variance (``method="score"``;
  ``"farrington-manning"`` without the factor; ``"wald"`` the plug-in variance of the paper's
  eq. 1, kept for comparison); with few events the exact unconditional test of Chan (1998),
  the tail probability of the same Z maximised over the nuisance rate (``method="exact"``;
  ``"auto"``, the default, uses it when a group has fewer than 20 events or non-events, or
  fewer than 50 against a reference 20 or more times larger, and the two groups have at
  most 200,000 rows or the smaller one at most 500);
* AUC: MOVER (Zou & Donner 2008) from each group's interval, the logit-scale DeLong
  interval with a Student t reference of min(n+, n-) - 1 degrees of freedom, widened to its
  union with Newcombe's (2006) score-type interval for a group with fewer than 100 positives
  or negatives (``method="hybrid"``, the default; ``"logit-t"`` the first alone,
  ``"logit"`` with the normal reference), or
  :math:`Z = (\hat U - d)/\text{SE}_{DeLong}` (``"delong"``, liberal with 50-100 rows and
  AUCs far from 0.5);
* callables and row metrics (:func:`fastfair.permutation_test`'s generic metrics): the
  bootstrap (or, for row metrics, Welch) standard error.

An equivalence test (two one-sided tests, TOST; Schuirmann 1987) shows
:math:`|U| < \delta`: it rejects :math:`H_0: |U| \ge \delta` when both
:math:`U \le -\delta` and :math:`U \ge \delta` are rejected at level alpha, which is the same
as the :math:`1 - 2\alpha` interval lying inside :math:`(-\delta, \delta)`. All three
(interval, tolerance test, equivalence test) invert the same statistic, so they never
disagree.

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes and their tables
* ``ingest.py``: options, checked once
* ``statistics.py``: the gap of each comparison and its statistic Z(d)
* ``inference.py``: the tests on the statistic, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.tolerance.api import (
    equivalence_test,
    equivalence_test_from_counts,
    tolerance_test,
    tolerance_test_from_counts,
)
from fastfair.tolerance.inference import auc_margin_pvalue, margin_pvalue_from_counts
from fastfair.tolerance.ingest import (
    ADJUSTMENTS,
    ALTERNATIVES,
    AUC_DEFAULT,
    AUC_LIBERAL,
    AUC_METHODS,
    AUC_WARN_BELOW,
    AUTO_MAX_SIZE,
    EXACT_BELOW,
    EXACT_BELOW_UNBALANCED,
    NEWCOMBE_BELOW,
    RATE_METHODS,
    UNBALANCED_RATIO,
)
from fastfair.tolerance.results import (
    ApproximateLevelWarning,
    EquivalenceTestResult,
    ToleranceTestResult,
)
from fastfair.tolerance.statistics import (
    auc_difference_interval,
    auc_limits,
    auc_margin_statistic,
    auto_exact,
    logit_group_parts,
    newcombe_variance,
    small_class_note,
)

__all__ = [
    "ApproximateLevelWarning",
    "EquivalenceTestResult",
    "ToleranceTestResult",
    "equivalence_test",
    "equivalence_test_from_counts",
    "tolerance_test",
    "tolerance_test_from_counts",
]
