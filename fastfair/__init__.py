"""fastfair: fast, statistically valid fairness tests and audit planning.

Permutation tests of group differences in fairness metrics (exact where possible,
studentized where not), computed from sufficient statistics in a compiled core.
"""

from fastfair import datasets, simulate
from fastfair._include import get_include
from fastfair._metrics import CONFUSION_METRICS
from fastfair._sequential import MultipleMonteCarloResult, Sequential, multiple_monte_carlo
from fastfair.auc import AUCTestResult, DeLongResult, auc_test, auc_test_from_delong, delong
from fastfair.auditing import AuditResult, AuditTest, ModelComparisonRow, audit
from fastfair.calibration import (
    GroupCalibrator,
    MultiObjectiveCalibrator,
    calibration_error,
    check_composite_parity,
    delta_pcc,
    delta_rc,
    ece,
    fair_thresholds,
    msce,
    tce_nadaraya_watson,
)
from fastfair.compare import (
    ModelComparisonResult,
    PairedDeLongResult,
    PairedStats,
    compare_auc,
    compare_models,
    compare_models_from_counts,
    paired_delong,
)
from fastfair.monitor import FairnessMonitor, MonitorResult, MonitorStateError
from fastfair.parity import (
    CalibrationCurve,
    MarginalOutcomeResult,
    PredictiveParityResult,
    SparseGridWarning,
    calibration_curve,
    marginal_outcome_test,
    predictive_parity_test,
    select_bandwidth,
)
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
from fastfair.resampling import (
    BootstrapTestResult,
    CorrelationTestResult,
    GenericTestResult,
    MetricError,
    basic_bootstrap_test,
    correlation_test,
    mean_difference_test,
)
from fastfair.slices import FoundSlice, SliceSearchResult, find_slices, find_slices_from_cube
from fastfair.sweep import ThresholdSweepResult, threshold_sweep
from fastfair.tolerance import (
    ApproximateLevelWarning,
    EquivalenceTestResult,
    ToleranceTestResult,
    equivalence_test,
    equivalence_test_from_counts,
    tolerance_test,
    tolerance_test_from_counts,
)
from fastfair.wasserstein import (
    FavorableDistribution,
    WassersteinTestResult,
    wasserstein_test,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "CONFUSION_METRICS",
    "AUCTestResult",
    "ApproximateLevelWarning",
    "AuditResult",
    "AuditTest",
    "BootstrapTestResult",
    "CalibrationCurve",
    "CorrelationTestResult",
    "DeLongResult",
    "EquivalenceTestResult",
    "ExactInfeasibleError",
    "FairnessMonitor",
    "FavorableDistribution",
    "FoundSlice",
    "GenericTestResult",
    "GroupCalibrator",
    "MarginalOutcomeResult",
    "MetricError",
    "ModelComparisonResult",
    "ModelComparisonRow",
    "MonitorResult",
    "MonitorStateError",
    "MultiObjectiveCalibrator",
    "MultipleMonteCarloResult",
    "PairedDeLongResult",
    "PairedStats",
    "PermutationTestResult",
    "PredictiveParityResult",
    "Sequential",
    "SliceSearchResult",
    "SparseGridWarning",
    "ThresholdSweepResult",
    "ToleranceTestResult",
    "WassersteinTestResult",
    "__version__",
    "auc_test",
    "auc_test_from_delong",
    "audit",
    "basic_bootstrap_test",
    "calibration_curve",
    "calibration_error",
    "check_composite_parity",
    "compare_auc",
    "compare_models",
    "compare_models_from_counts",
    "confusion_counts",
    "correlation_test",
    "datasets",
    "delong",
    "delta_pcc",
    "delta_rc",
    "detectable_difference",
    "ece",
    "equivalence_test",
    "equivalence_test_from_counts",
    "fair_thresholds",
    "find_slices",
    "find_slices_from_cube",
    "get_include",
    "marginal_outcome_test",
    "mean_difference_test",
    "msce",
    "multiple_monte_carlo",
    "paired_delong",
    "permutation_test",
    "permutation_test_from_counts",
    "plan_from_data",
    "power",
    "predictive_parity_test",
    "sample_size",
    "select_bandwidth",
    "simulate",
    "simulate_power",
    "tce_nadaraya_watson",
    "threshold_sweep",
    "tolerance_test",
    "tolerance_test_from_counts",
    "wasserstein_test",
]
