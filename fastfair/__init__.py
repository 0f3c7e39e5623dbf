"""fastfair: fast, statistically valid fairness tests and audit planning.

Permutation tests of group differences in fairness metrics (exact where possible,
studentized where not), computed from sufficient statistics in a compiled core.
"""

from fastfair._metrics import CONFUSION_METRICS
from fastfair.auc import AUCTestResult, DeLongResult, auc_test, delong
from fastfair.permutation import (
    ExactInfeasibleError,
    PermutationTestResult,
    confusion_counts,
    permutation_test,
    permutation_test_from_counts,
)
from fastfair.planning import (
    detectable_difference,
    plan_from_data,
    power,
    sample_size,
    simulate_power,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "CONFUSION_METRICS",
    "AUCTestResult",
    "DeLongResult",
    "ExactInfeasibleError",
    "PermutationTestResult",
    "__version__",
    "auc_test",
    "confusion_counts",
    "delong",
    "detectable_difference",
    "permutation_test",
    "permutation_test_from_counts",
    "plan_from_data",
    "power",
    "sample_size",
    "simulate_power",
]
