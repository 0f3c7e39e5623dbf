"""Every probability, p-value or [0, 1] score is checked where it enters (#26).

A level, a power, a confidence level, an error bound or a margin on the probability scale
outside its range, or NaN, must raise a ValueError naming the argument: a number computed
from it reads as an answer. The walk finds every public function with such a parameter, so
a new one fails until ``CALLS`` can call it. The array inputs that are probabilities (the
p-values ``multiple_monte_carlo`` combines, the predicted probabilities the calibration
errors compare with outcome frequencies, the planning rates) are checked the same way.
"""

import importlib
import inspect
import pathlib
import runpy
import warnings

import numpy as np
import pytest

import fastfair
import fastfair.stats

PUBLIC_MODULES = runpy.run_path(str(pathlib.Path(__file__).with_name("_public_api.py")))[
    "PUBLIC_MODULES"
]  # the one list of public modules (tests/_public_api.py)
#: Parameters on the probability scale, and the values each must refuse.
BAD = [np.nan, -0.1, 1.5, np.inf]
PROBABILITY_PARAMETERS = {
    "alpha", "power", "confidence_level", "epsilon", "u_tol", "tolerance", "equivalence",
}  # fmt: skip
#: (function, parameter) pairs where a value beyond 1 is on another scale, documented:
#: the planners' margins with `sigma2` are in the metric's own unit.
OTHER_SCALE = set()

rng = np.random.default_rng(0)
N = 300
G = rng.choice(["a", "b"], N)
S = rng.random(N)
Y = (rng.random(N) < S).astype(int)
P = (S > 0.5).astype(int)
RATES = {"tpr": [0.7, 0.6], "prevalence": [0.4, 0.3]}
COUNTS = fastfair.confusion_counts(Y, P, G)[0]
PARITY = fastfair.predictive_parity_test(Y, S, G, grid=5, n_bootstrap=19, random_state=0)

CALLS = {
    "audit": lambda **k: fastfair.audit(Y, P, G, metrics=["tpr"], n_permutations=19, **k),
    "permutation_test": lambda **k: fastfair.permutation_test(Y, P, G, **k),
    "auc_test_from_delong": lambda **k: fastfair.auc_test_from_delong(
        fastfair.delong(Y, S, G), **k
    ),
    "permutation_test_from_counts": lambda **k: fastfair.permutation_test_from_counts(
        COUNTS, **k
    ),
    "permutation_test_rows": lambda **k: fastfair.resampling.permutation_test_rows(
        Y, S, G, metric="mse", n_permutations=19, **k
    ),
    "auc_test": lambda **k: fastfair.auc_test(Y, S, G, n_permutations=19, **k),
    "basic_bootstrap_test": lambda **k: fastfair.basic_bootstrap_test(
        Y, P, G, n_bootstrap=19, **k
    ),
    "tolerance_test": lambda **k: fastfair.tolerance_test(Y, P, G, **{"u_tol": 0.05, **k}),
    "tolerance_test_from_counts": lambda **k: fastfair.tolerance_test_from_counts(
        COUNTS, **{"u_tol": 0.05, **k}
    ),
    "equivalence_test": lambda **k: fastfair.equivalence_test(Y, P, G, **{"delta": 0.2, **k}),
    "equivalence_test_from_counts": lambda **k: fastfair.equivalence_test_from_counts(
        COUNTS, **{"delta": 0.2, **k}
    ),
    "calibration_curve": lambda **k: fastfair.calibration_curve(Y, S, G, grid=5, **k),
    "predictive_parity_test": lambda **k: fastfair.predictive_parity_test(
        Y, S, G, grid=5, n_bootstrap=19, **k
    ),
    "marginal_outcome_test": lambda **k: fastfair.marginal_outcome_test(
        Y, S, G, threshold=0.5, **k
    ),
    "check_composite_parity": lambda **k: fastfair.check_composite_parity(
        np.column_stack([S, S]), np.column_stack([Y, Y]), G, [0.5, 0.5], n_bootstrap=19, **k
    ),
    "threshold_sweep": lambda **k: fastfair.threshold_sweep(
        Y, S, G, thresholds=5, n_permutations=19, **k
    ),
    "wasserstein_test": lambda **k: fastfair.wasserstein_test(
        np.column_stack([S, S**2]), Y, G, [1.0, -0.5], **k
    ),
    "sample_size": lambda **k: fastfair.sample_size("tpr", **{"rates": RATES, "tau": 0.1, **k}),
    "power": lambda **k: fastfair.power("tpr", **{"rates": RATES, "tau": 0.1, "n": 2000, **k}),
    "detectable_difference": lambda **k: fastfair.detectable_difference(
        "tpr", **{"rates": RATES, "n": 2000, **k}
    ),
    "simulate_power": lambda **k: fastfair.simulate_power(
        "tpr", **{"rates": RATES, "n_per_group": [200, 200], "tau": 0.1, "test": "wald",
                  "n_sim": 20, **k}
    ),
    "plan_from_data": lambda **k: fastfair.plan_from_data(
        Y, P, G, "tpr", **{"tau": 0.1, "n_bootstrap": 20, **k}
    ),
    "multiple_monte_carlo": lambda **k: fastfair.multiple_monte_carlo([0.01, 0.2], **k),
    "find_slices": lambda **k: fastfair.find_slices(
        None, Y, P, features={"g": G}, max_depth=1, n_permutations=19, **k
    ),
    "find_slices_from_cube": lambda **k: fastfair.find_slices_from_cube(
        fastfair.stats.ConfusionCube.from_arrays(Y, P, {"g": G}), max_depth=1,
        n_permutations=19, **k
    ),
    "Sequential": lambda **k: fastfair.Sequential(**k),
    "FairnessMonitor": lambda **k: fastfair.FairnessMonitor(reference=0, **k),
    "PredictiveParityResult.plot": lambda **k: PARITY.plot(**k),
    "compare_models": lambda **k: fastfair.compare_models(Y, P, S > 0.45, G, **k),
    "compare_models_from_counts": lambda **k: fastfair.compare_models_from_counts(
        fastfair.PairedStats.from_arrays(Y, P, S > 0.45, G).counts, **k
    ),
    "compare_auc": lambda **k: fastfair.compare_auc(Y, S, S**2 + 0.1 * Y, G, method="delong",
                                                    **k),
}  # fmt: skip


def functions_with_probabilities() -> dict:
    """{name: probability parameters} of every public function, method and class (its
    __init__), result classes' constructors aside (they record values, not inputs)."""
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            members = {}
            if inspect.isfunction(obj):
                members = {name: obj}
            elif inspect.isclass(obj) and obj.__module__.startswith("fastfair"):
                if not name.endswith(
                    (
                        "Result",
                        "Check",
                        "Thresholds",
                        "Distribution",
                        "Curve",
                        "Stats",
                        "AuditTest",
                        "ModelComparisonRow",
                    )
                ):
                    members[name] = obj.__init__
                for attr, value in vars(obj).items():
                    func = getattr(value, "__func__", value)
                    if not attr.startswith("_") and inspect.isfunction(func):
                        members[f"{name}.{attr}"] = func
            for label, func in members.items():
                try:
                    params = set(inspect.signature(func).parameters) & PROBABILITY_PARAMETERS
                except (TypeError, ValueError):
                    continue
                if params:
                    found.setdefault(label, params)
    return found


def test_every_function_with_a_probability_is_walked():
    found = functions_with_probabilities()
    assert len(found) >= 20
    assert sorted(set(found) - set(CALLS)) == [], "add these to CALLS"
    # a function whose probability argument went into **options (ScoreStats.test forwards
    # to auc_test_from_delong, walked itself) is no longer seen: its entry must go
    assert sorted(set(CALLS) - set(found)) == [], "no probability argument: remove from CALLS"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_probabilities_out_of_range_are_refused_naming_the_argument(name):
    call = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()  # the base call is valid
    params = functions_with_probabilities()[name]
    for param in sorted(params):
        for value in BAD:
            if (name, param) in OTHER_SCALE and value > 1:
                continue
            with pytest.raises((ValueError, TypeError), match=param):
                call(**{param: value})


#: Probability parameters whose range is closed at 0: a tolerated gap of 0 is the
#: equality test (every other one is a level, a power or a margin in (0, 1)).
CLOSED_AT_ZERO = {"u_tol"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_probabilities_are_refused_exactly_at_the_ends_of_their_range(name):
    """BAD stays away from the ends; here each walked parameter gets 0 and 1 themselves:
    both refused naming the argument ((0, 1) is open), except u_tol, whose range [0, 1)
    takes 0 (the result records it)."""
    call = CALLS[name]
    for param in sorted(functions_with_probabilities()[name]):
        ends = (1.0,) if param in CLOSED_AT_ZERO else (0.0, 1.0)
        for value in ends:
            with pytest.raises(ValueError, match=param):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    call(**{param: value})
        if param in CLOSED_AT_ZERO:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = call(**{param: 0.0})
            assert getattr(res, param, 0.0) == 0.0


# --------------------------------------------------------------------------------------
# Arrays of probabilities (case 6 of #26)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-0.2, 1.2, np.nan, np.inf])
def test_multiple_monte_carlo_refuses_values_that_are_not_pvalues(bad):
    with pytest.raises(ValueError, match=r"results\[1\] = .* is not a p-value in \[0, 1\]"):
        fastfair.multiple_monte_carlo([0.01, bad])
    edges = fastfair.multiple_monte_carlo([0.0, 1.0], adjust="holm")
    assert edges.pvalue_adjusted.tolist() == [0.0, 1.0]


CALIBRATION_ERRORS = {
    "ece": lambda s: fastfair.ece(Y, s),
    "msce": lambda s: fastfair.msce(Y, s),
    "tce_nadaraya_watson": lambda s: fastfair.tce_nadaraya_watson(Y, s),
    "calibration_error": lambda s: fastfair.calibration_error(Y, s, G),
    "delta_pcc": lambda s: fastfair.delta_pcc(Y, s, G, 0.5),
}


@pytest.mark.parametrize("name", sorted(CALIBRATION_ERRORS))
@pytest.mark.parametrize("bad", [-0.2, 1.3])
def test_calibration_errors_refuse_scores_outside_zero_one(name, bad):
    """They compare the score with an outcome frequency: a score of 1.3 is not a predicted
    probability, and ece returned a number for it."""
    scores = S.copy()
    scores[7] = bad
    with pytest.raises(ValueError, match=r"y_score must be predicted probabilities.* in \[0, 1\]"):
        CALIBRATION_ERRORS[name](scores)
    edges = S.copy()
    edges[:2] = [0.0, 1.0]
    assert np.isfinite(np.atleast_1d(getattr(CALIBRATION_ERRORS[name](edges), "value", 0.0))).all()


@pytest.mark.parametrize("threshold", [np.nan, -0.1, 1.5])
def test_delta_pcc_threshold_is_a_probability(threshold):
    with pytest.raises(ValueError, match="threshold must be a probability"):
        fastfair.delta_pcc(Y, S, G, threshold)


def test_planning_rates_are_probabilities():
    for bad in (1.2, -0.1, np.nan):
        rates = {"tpr": [0.7, bad], "prevalence": [0.4, 0.3]}
        with pytest.raises(ValueError, match=r"rates\['tpr'\]\[1\]"):
            fastfair.sample_size("tpr", rates=rates, tau=0.1)


def test_simulate_power_guard_refuses_nan_tau():
    with pytest.raises(ValueError, match="tau"):
        fastfair.simulate_power("tpr", rates=RATES, n_per_group=[200, 200], tau=np.nan,
                                test="wald", n_sim=20)  # fmt: skip
