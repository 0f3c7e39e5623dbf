"""Audit planning: sample size, power and minimum detectable unfairness.

The formulas follow Singh & Chunara, "Sample size calculations for fairness audits" (2023),
Section 2 and Appendices A-B, with the corrections in docs/planning.md. Unfairness is a
difference of a per-group metric,
``U = M_ref - M_g``; the audit tests ``H0: U <= u_tol`` against ``H1: U > u_tol`` with the
studentized difference ``(U_hat - u_tol) / se_hat``. Under stratified sampling with ``n_g`` units
from group ``g`` the metric estimate has variance ``sigma_g^2 / n_g`` (Table 1, with the
delta-method corrections for PPV and NPV described below), so the test statistic is
asymptotically normal with mean ``(tau - u_tol) / sigma_U`` where
``sigma_U^2 = sigma_ref^2 / n_ref + sigma_g^2 / n_g``.

Conventions
-----------
* ``alternative="two-sided"`` (the default) uses the critical value ``z_{1-alpha/2}`` exactly as
  the paper does (eq. 2-3), although its alternative is one-sided; this reproduces the paper's
  numbers. It is the upper half of a two-sided level-``alpha`` test: the probability of
  rejecting in the wrong direction, ``Phi(-z_{1-alpha/2} - (tau - u_tol) / sigma_U)``, is
  ignored (it is below 1e-5 at any design with power >= 0.5). ``alternative="greater"`` uses
  ``z_{1-alpha}``: the one-sided test at level ``alpha``, which needs about 21% fewer units at
  ``alpha = 0.05`` and power 0.8.
* The paper's Table 1 (and the authors' notebook) uses ``TPR (1 - TPR) / PP`` for PPV and
  ``TNR (1 - TNR) / (1 - PP)`` for NPV. The delta-method variances of the ratio estimators are
  ``PPV (1 - PPV) / PP`` and ``NPV (1 - NPV) / (1 - PP)``; those are implemented here (the test
  suite checks them by Monte-Carlo). On the paper's ACS example this changes the PPV sample size
  from 4,363.33 to 4,221.89 and the NPV one from 846,670.97 to 887,010.37.
* AUC (listed as future work in the paper) uses the Hanley-McNeil (1982) variance,
  ``Var(AUC) ~ (Q1 - A^2) / n_neg + (Q2 - A^2) / n_pos`` with ``Q1 = A / (2 - A)`` and
  ``Q2 = 2 A^2 / (1 + A)``, i.e. ``sigma^2 = (Q1 - A^2) / (1 - prev) + (Q2 - A^2) / prev`` per
  unit of group size. It is exact for exponential score distributions and a good approximation
  for binormal ones.
* More than two groups: every group is compared with a reference group, each comparison at level
  ``alpha / (k - 1)`` (Bonferroni), and the plan gives each comparison at least the target power.
* Finite-population correction: with ``population_sizes`` ``N_g`` the variance of group ``g``
  is multiplied by ``1 - n_g / N_g`` (sampling without replacement, Appendix B).

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: the sufficient statistics the tests read
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.planning.api import (
    detectable_difference,
    plan_from_data,
    plot_power_curve,
    power,
    sample_size,
    simulate_power,
    unit_variances,
)
from fastfair.planning.results import (
    DetectableDifferenceResult,
    PilotPlanResult,
    PowerResult,
    SampleSizeResult,
    SimulatedPowerResult,
)

__all__ = [
    "DetectableDifferenceResult",
    "PilotPlanResult",
    "PowerResult",
    "SampleSizeResult",
    "SimulatedPowerResult",
    "detectable_difference",
    "plan_from_data",
    "plot_power_curve",
    "power",
    "sample_size",
    "simulate_power",
    "unit_variances",
]
