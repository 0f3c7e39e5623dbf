"""Predictive parity under dependent data: clustered Nadaraya-Watson curves and tests.

DiCiccio, Hsu, Yu, Nandy & Basu (FAccT 2023), "Detection and Mitigation of Algorithmic
Bias via Predictive Parity" (docs/parity.md). Users m = 1..M contribute n_m observations
(y_mi, s_mi); user m belongs to one group G_m. Users are independent, observations of a
user are not. Per group, the conditional outcome E[Y | S = s, G = g] is estimated by

.. math:: \\hat f_g(s) = \frac{\\sum_{m \\in g} w_m \\sum_i y_{mi} K((s_{mi} - s)/h)}
                             {\\sum_{m \\in g} w_m \\sum_i K((s_{mi} - s)/h)},

with :math:`w_m = 1/n_m` ("per_user": every user counts once, the paper's recommended
estimand, Sec. 3) or :math:`w_m = 1` ("per_observation", Appendix D). Its cluster-robust
(sandwich) variance is

.. math:: \\widehat{\\mathrm{Var}}\\,\\hat f_g(s) = \frac{\\sum_{m\\in g} u_m(s)^2}
                                                     {(\\sum_{m\\in g} v_m(s))^2},\\quad
          u_m = w_m \\sum_i (y_{mi} - \\hat f_g(s)) K_{mi}(s),\\quad v_m = w_m \\sum_i K_{mi}(s).

Everything is computed from per-user kernel sums on the grid, accumulated in one pass over
the observations grouped by user by the compiled core (``fastfair._kernel_sums``).

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: the sufficient statistics the tests read
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair._clustered import NAN_POLICIES, WEIGHTINGS
from fastfair.parity.api import (
    calibration_curve,
    marginal_outcome_test,
    predictive_parity_test,
    select_bandwidth,
)
from fastfair.parity.ingest import (
    ADJUSTMENTS,
    DEFAULT_GRID_POINTS,
    MIN_EFFECTIVE_CLUSTERS,
    SMALL_SAMPLE,
)
from fastfair.parity.results import (
    CalibrationCurve,
    MarginalOutcomeResult,
    PredictiveParityResult,
    SparseGridWarning,
)
from fastfair.parity.statistics import DF_WARNING, FAST_SHARE, SHARE_WARNING

__all__ = [
    "CalibrationCurve",
    "MarginalOutcomeResult",
    "PredictiveParityResult",
    "SparseGridWarning",
    "calibration_curve",
    "marginal_outcome_test",
    "predictive_parity_test",
    "select_bandwidth",
]
