"""Wasserstein projection test of probabilistic fairness for a logistic classifier.

Taskesen, Blanchet, Kuhn & Nguyen (FAccT 2021), "A statistical test for probabilistic
fairness", with the formulas of docs/wasserstein.md. The statistic is N times the squared
Wasserstein distance from the empirical distribution to the set of distributions under which
the classifier :math:`h(x) = \\sigma(\beta^\top x + b)` is fair, with transport allowed in the
features only. The per-sample inner problem is solved exactly (to rounding) in the compiled
core, the concave outer problem by safeguarded Newton on its derivative inside a bracket that
always holds the optimum.

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once
* ``inference.py``: the tests on the statistics, p-values, intervals, result packing
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.wasserstein.api import wasserstein_test
from fastfair.wasserstein.ingest import CRITERIA
from fastfair.wasserstein.results import FavorableDistribution, WassersteinTestResult

__all__ = [
    "FavorableDistribution",
    "WassersteinTestResult",
    "wasserstein_test",
]
