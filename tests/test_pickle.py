"""Every public result class survives a pickle round trip (#26).

Results travel between processes (multiprocessing, joblib, Dask). The classes are found by
walking the public modules, so a new class fails here until ``BUILDERS`` makes one. Each
result is pickled and unpickled; the copy must have the same repr and the same
``to_dict()`` / ``to_json()`` / ``to_frame()`` where the class has them. A Monte-Carlo
result's samplers (closures over the data, which ``multiple_monte_carlo`` continues) stay in
their process, and the copy says so when asked to continue.
"""

import importlib
import inspect
import pathlib
import pickle
import runpy

import numpy as np
import pytest

import fastfair
import fastfair.stats

pd = pytest.importorskip("pandas")

PUBLIC_MODULES = runpy.run_path(str(pathlib.Path(__file__).with_name("_public_api.py")))[
    "PUBLIC_MODULES"
]  # the one list of public modules (tests/_public_api.py)


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b"], n)
    y_score = np.clip(rng.beta(2, 2, n) + 0.1 * (group == "b"), 0.001, 0.999)
    y_true = (rng.random(n) < y_score).astype(np.int64)
    y_pred = (y_score > 0.5).astype(np.int64)
    cluster = (group == "b") * 1000 + rng.integers(0, n // 4, n)
    return y_true, y_pred, y_score, group, cluster


Y, P, S, G, C = _data()
RATES = {"tpr": [0.7, 0.6], "prevalence": [0.4, 0.3]}


def _rate(y_true, y_pred):
    return y_pred[y_true == 1].mean()


BUILDERS = {
    "PermutationTestResult": [
        lambda: fastfair.permutation_test(Y, P, G, metric="tpr"),
        lambda: fastfair.permutation_test(Y, P, G, method="monte_carlo", random_state=0),
        lambda: fastfair.permutation_test(Y, P, G, n_permutations=99, random_state=0),
    ],
    "GenericTestResult": [
        lambda: fastfair.permutation_test(Y, P, G, metric=_rate, n_permutations=99,
                                          n_bootstrap=20, random_state=0),
        lambda: fastfair.mean_difference_test(S, G, random_state=0),
    ],
    "AUCTestResult": [
        lambda: fastfair.auc_test(Y, S, G, random_state=0),
        lambda: fastfair.auc_test(Y, S, G, n_permutations=99, random_state=0),
    ],
    "DeLongResult": [lambda: fastfair.delong(Y, S, G)],
    "CorrelationTestResult": [lambda: fastfair.correlation_test(S, Y, random_state=0)],
    "BootstrapTestResult": [
        lambda: fastfair.basic_bootstrap_test(Y, P, G, n_bootstrap=99, random_state=0)
    ],
    "MultipleMonteCarloResult": [
        lambda: fastfair.multiple_monte_carlo(
            [fastfair.mean_difference_test(S, G, random_state=0), 0.01]
        )
    ],
    "Sequential": [lambda: fastfair.Sequential(alpha=0.01)],
    "ToleranceTestResult": [lambda: fastfair.tolerance_test(Y, P, G, u_tol=0.05)],
    "EquivalenceTestResult": [lambda: fastfair.equivalence_test(Y, P, G, delta=0.2)],
    "CalibrationCurve": [lambda: fastfair.calibration_curve(Y, S, G, cluster=C, grid=5)],
    "PredictiveParityResult": [
        lambda: fastfair.predictive_parity_test(Y, S, G, grid=5, n_bootstrap=99, random_state=0)
    ],
    "MarginalOutcomeResult": [lambda: fastfair.marginal_outcome_test(Y, S, G, threshold=0.5)],
    "CalibrationErrorResult": [lambda: fastfair.calibration_error(Y, S, G)],
    "CompositeParityCheck": [
        lambda: fastfair.check_composite_parity(
            np.column_stack([S, S]), np.column_stack([Y, Y]), G, [0.5, 0.5], n_bootstrap=19,
            random_state=0,
        )
    ],
    "FairThresholds": [
        lambda: fastfair.fair_thresholds(Y, S, G, 0.5, keep_positive_rate=True, grid=50)
    ],
    "ImpactResult": [lambda: fastfair.delta_pcc(Y, S, G, 0.5)],
    "GroupCalibrator": [lambda: fastfair.GroupCalibrator().fit(S, Y, G)],
    "MultiObjectiveCalibrator": [
        lambda: fastfair.MultiObjectiveCalibrator().fit(np.column_stack([S, S]),
                                                        np.column_stack([Y, Y]), G)
    ],
    "SampleSizeResult": [lambda: fastfair.sample_size("tpr", rates=RATES, tau=0.1)],
    "PowerResult": [lambda: fastfair.power("tpr", rates=RATES, tau=0.1, n=2000)],
    "DetectableDifferenceResult": [
        lambda: fastfair.detectable_difference("tpr", rates=RATES, n=2000)
    ],
    "SimulatedPowerResult": [
        lambda: fastfair.simulate_power("tpr", rates=RATES, n_per_group=[200, 200], tau=0.1,
                                        test="wald", n_sim=50, random_state=0)
    ],
    "PilotPlanResult": [
        lambda: fastfair.plan_from_data(Y, P, G, "tpr", tau=0.1, n_bootstrap=20, random_state=0)
    ],
    "ThresholdSweepResult": [
        lambda: fastfair.threshold_sweep(Y, S, G, thresholds=5, n_permutations=19,
                                         random_state=0)
    ],
    "WassersteinTestResult": [
        lambda: fastfair.wasserstein_test(np.column_stack([S, S**2]), Y, G, [1.0, -0.5])
    ],
    "FavorableDistribution": [
        lambda: fastfair.wasserstein_test(np.column_stack([S, S**2]), Y, G, [1.0, -0.5],
                                          return_favorable=True).favorable
    ],
    "AuditResult": [
        lambda: fastfair.audit(Y, P, {"g": G}, y_score=S, metrics=["tpr"]),
        lambda: fastfair.audit(Y, P, {"g": G}, y_score=S, metrics=["tpr"], n_permutations=99),
    ],
    "AuditTest": [
        lambda: fastfair.audit(Y, P, {"g": G}, y_score=S, metrics=["tpr"]).tests[0],
        lambda: fastfair.audit(Y, P, {"g": G}, y_score=S, metrics=["tpr"]).tests[-1],
    ],
    "ModelComparisonRow": [
        lambda: fastfair.audit(Y, P, {"g": G}, metrics=["tpr"], compare=(S, S**2),
                               threshold=0.5, random_state=0).model_comparison[0],
    ],
    "ConfusionStats": [lambda: fastfair.stats.ConfusionStats.from_arrays(Y, P, G)],
    "ConfusionCube": [
        lambda: fastfair.stats.ConfusionCube.from_arrays(Y, P, {"g": G, "c": C % 3})
    ],
    "FairnessMonitor": [lambda: fastfair.FairnessMonitor(reference=G[0]).update(Y, P, G)],
    "MonitorResult": [lambda: fastfair.FairnessMonitor(reference=G[0]).update(Y, P, G).result()],
    "SliceSearchResult": [
        lambda: fastfair.find_slices(None, Y, P, features={"g": G, "s": S}, max_depth=2,
                                     alpha=0.5, n_permutations=99, random_state=0),
    ],
    "FoundSlice": [
        lambda: fastfair.find_slices(None, Y, P, features={"g": G, "s": S}, max_depth=2,
                                     alpha=0.5, n_permutations=99, random_state=0).slices[0],
    ],
    "ScoreStats": [lambda: fastfair.stats.ScoreStats.from_arrays(Y, S, G)],
    "ScoreRuns": [
        lambda: fastfair.stats.ScoreRuns.from_arrays(Y[:60], S[:60], G[:60])
        + fastfair.stats.ScoreRuns.from_arrays(Y[60:], S[60:], G[60:])
    ],
    "PlacementSums": [lambda: fastfair.stats.PlacementSums.from_arrays(Y, S, G)],
    "MeanStats": [lambda: fastfair.stats.MeanStats.from_arrays(S, G)],
    "ModelComparisonResult": [
        lambda: fastfair.compare_models(Y, P, S > 0.45, G, metric="equalized_odds", delta=0.05),
        lambda: fastfair.compare_models(Y, P, S > 0.45, G, method="permutation",
                                        n_permutations=99, random_state=0, return_null=True),
        lambda: fastfair.compare_auc(Y, S, S**2 + 0.1 * (Y - 0.5), G, method="delong"),
    ],
    "PairedDeLongResult": [lambda: fastfair.paired_delong(Y, S, S**2 + 0.1 * (Y - 0.5), G)],
    "PairedStats": [lambda: fastfair.PairedStats.from_arrays(Y, P, S > 0.45, G)],
}  # fmt: skip


def public_classes(errors: bool = False) -> set:
    """Every class the public modules export but errors and warnings (with `errors`, only
    those)."""
    found = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and obj.__module__.startswith("fastfair")
                and issubclass(obj, BaseException) == errors
            ):
                found.add(obj)
    return found


def _views(obj) -> dict:
    """The repr and every serialised view the object offers."""
    out = {"repr": repr(obj)}
    if hasattr(obj, "to_dict"):
        out["to_dict"] = repr(obj.to_dict())
    if hasattr(obj, "to_json"):
        out["to_json"] = obj.to_json()
    if hasattr(obj, "to_frame"):
        frame = obj.to_frame()
        out["to_frame"] = frame.to_csv() if hasattr(frame, "to_csv") else repr(frame)
    return out


def test_every_public_class_has_a_builder():
    names = {cls.__name__ for cls in public_classes()}
    assert len(names) >= 30
    assert sorted(names - set(BUILDERS)) == [], "add these to BUILDERS"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_result_survives_a_pickle_round_trip(name):
    for build in BUILDERS[name]:
        obj = build()
        assert type(obj).__name__ == name
        copy = pickle.loads(pickle.dumps(obj))
        assert type(copy) is type(obj)
        assert _views(copy) == _views(obj)


def test_a_pickled_monte_carlo_result_is_not_continued_as_if_exact():
    """multiple_monte_carlo continues a Monte-Carlo test with its samplers; a pickled copy
    has none, and taking its estimate for an exact p-value would void the family's
    guarantee, so it is refused with the way out named."""
    res = fastfair.auc_test(Y, S, G, random_state=0)
    copy = pickle.loads(pickle.dumps(res))
    with pytest.raises(ValueError, match=r"pickled.*float\(result.pvalue\)"):
        fastfair.multiple_monte_carlo([copy])
    family = fastfair.multiple_monte_carlo([float(copy.pvalue)])
    assert family.pvalue[0] == res.pvalue
    assert fastfair.multiple_monte_carlo([res]).n_permutations[0] >= res.n_permutations


def test_errors_and_warnings_survive_a_pickle_round_trip():
    """A worker's error reaches the parent process pickled (joblib, Dask)."""
    classes = public_classes(errors=True)
    assert len(classes) >= 4
    for cls in classes:
        err = cls("a message naming the argument")
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is cls and str(copy) == str(err)
