"""pandas inputs are paired by index label in every public function (#26).

Every public function or method that takes two or more per-row columns is called twice:
with numpy arrays, and with pandas objects on the same rows whose indexes are permuted
differently (the first per-row argument keeps the rows in order, so the aligned answer is
the numpy answer, bit for bit, even for Monte-Carlo tests). A function may also refuse
such inputs with a ValueError that names the indexes; it may never pair them by position.
The walk discovers the functions from the package, so a new one fails until it is added
to ``CALLS``.
"""

import dataclasses
import importlib
import inspect
import pathlib
import runpy

import numpy as np
import pytest

import fastfair
import fastfair.dask
import fastfair.resampling
import fastfair.stats

pd = pytest.importorskip("pandas")

PUBLIC_MODULES = runpy.run_path(str(pathlib.Path(__file__).with_name("_public_api.py")))[
    "PUBLIC_MODULES"
]  # the one list of public modules (tests/_public_api.py)
#: Arguments that hold one value per row (``*groups`` of ``ConfusionStats.from_arrays`` too).
PER_ROW = {
    "y_true", "y_pred", "y_score", "group", "sample_weight", "cluster", "values",
    "attribute", "X", "query", "sensitive_features", "y_pred_a", "y_pred_b", "y_score_a",
    "y_score_b",
}  # fmt: skip
MC = dict(n_permutations=99, random_state=0)


def _two(column):
    """Two copies of a column side by side (the multi-score inputs), pandas kept."""
    if isinstance(column, pd.Series):
        return pd.DataFrame({"a": column, "b": column})
    return np.column_stack([column, column])


CALLS = {
    "permutation_test": lambda d: fastfair.permutation_test(
        d["y_true"], d["y_pred"], d["group"], sample_weight=d["sample_weight"], **MC
    ),
    "permutation_test_rows": lambda d: fastfair.resampling.permutation_test_rows(
        d["y_true"], d["y_score"], d["group"], metric="mse", sample_weight=d["sample_weight"],
        **MC,
    ),
    "confusion_counts": lambda d: fastfair.confusion_counts(
        d["y_true"], d["y_pred"], d["group"], sample_weight=d["sample_weight"]
    ),
    "basic_bootstrap_test": lambda d: fastfair.basic_bootstrap_test(
        d["y_true"], d["y_pred"], d["group"], n_bootstrap=99, random_state=0,
    ),
    "tolerance_test": lambda d: fastfair.tolerance_test(
        d["y_true"], d["y_pred"], d["group"], u_tol=0.05, sample_weight=d["sample_weight"]
    ),
    "equivalence_test": lambda d: fastfair.equivalence_test(
        d["y_true"], d["y_pred"], d["group"], delta=0.2, sample_weight=d["sample_weight"]
    ),
    "auc_test": lambda d: fastfair.auc_test(d["y_true"], d["y_score"], d["group"], **MC),
    "delong": lambda d: fastfair.delong(d["y_true"], d["y_score"], d["group"]),
    "mean_difference_test": lambda d: fastfair.mean_difference_test(
        d["values"], d["group"], **MC
    ),
    "correlation_test": lambda d: fastfair.correlation_test(d["attribute"], d["values"], **MC),
    "calibration_curve": lambda d: fastfair.calibration_curve(
        d["y_true"], d["y_score"], d["group"], cluster=d["cluster"], grid=5
    ),
    "calibration_error": lambda d: fastfair.calibration_error(
        d["y_true"], d["y_score"], d["group"], cluster=d["cluster"]
    ),
    "select_bandwidth": lambda d: fastfair.select_bandwidth(
        d["y_true"], d["y_score"], d["group"], cluster=d["cluster"]
    ),
    "predictive_parity_test": lambda d: fastfair.predictive_parity_test(
        d["y_true"], d["y_score"], d["group"], cluster=d["cluster"], grid=5, n_bootstrap=99,
        random_state=0,
    ),
    "marginal_outcome_test": lambda d: fastfair.marginal_outcome_test(
        d["y_true"], d["y_score"], d["group"], threshold=0.5, cluster=d["cluster"]
    ),
    "ece": lambda d: fastfair.ece(d["y_true"], d["y_score"], n_bins=5),
    "msce": lambda d: fastfair.msce(d["y_true"], d["y_score"]),
    "tce_nadaraya_watson": lambda d: fastfair.tce_nadaraya_watson(
        d["y_true"], d["y_score"], cluster=d["cluster"]
    ),
    "fair_thresholds": lambda d: fastfair.fair_thresholds(
        d["y_true"], d["y_score"], d["group"], 0.7, keep_positive_rate=True, cluster=d["cluster"]
    ),
    "delta_pcc": lambda d: fastfair.delta_pcc(
        d["y_true"], d["y_score"], d["group"], 0.5, cluster=d["cluster"]
    ),
    "delta_rc": lambda d: fastfair.delta_rc(
        d["y_true"], d["y_score"], d["group"], d["query"], cluster=d["cluster"]
    ),
    "FairnessMonitor.update": lambda d: fastfair.FairnessMonitor(reference="a")
    .update(d["y_true"], d["y_pred"], d["group"])
    .result(),
    "GroupCalibrator.fit": lambda d: fastfair.GroupCalibrator().fit(
        d["y_score"], d["y_true"], d["group"], d["cluster"]
    ),
    "GroupCalibrator.fit_transform": lambda d: fastfair.GroupCalibrator().fit_transform(
        d["y_score"], d["y_true"], d["group"], d["cluster"]
    ),
    "GroupCalibrator.transform": lambda d: fastfair.GroupCalibrator()
    .fit(d["y_score"], d["y_true"], d["group"])
    .transform(d["y_score"], d["group"]),
    "GroupCalibrator.predict": lambda d: fastfair.GroupCalibrator()
    .fit(d["y_score"], d["y_true"], d["group"])
    .predict(d["y_score"], d["group"]),
    "MultiObjectiveCalibrator.fit": lambda d: fastfair.MultiObjectiveCalibrator().fit(
        _two(d["y_score"]),
        _two(d["y_true"]),
        d["group"], d["cluster"],
    ),
    "MultiObjectiveCalibrator.fit_transform": lambda d: fastfair.MultiObjectiveCalibrator()
    .fit_transform(
        _two(d["y_score"]),
        _two(d["y_true"]),
        d["group"], d["cluster"],
    ),
    "MultiObjectiveCalibrator.transform": lambda d: fastfair.MultiObjectiveCalibrator()
    .fit(_two(d["y_score"]), _two(d["y_true"]), d["group"])
    .transform(
        _two(d["y_score"]),
        d["group"],
    ),
    "check_composite_parity": lambda d: fastfair.check_composite_parity(
        _two(d["y_score"]),
        _two(d["y_true"]),
        d["group"], [0.5, 0.5], cluster=d["cluster"], n_bootstrap=19, random_state=0,
    ),
    "threshold_sweep": lambda d: fastfair.threshold_sweep(
        d["y_true"], d["y_score"], d["two_groups"], thresholds=5, n_permutations=19, random_state=0
    ),
    "wasserstein_test": lambda d: fastfair.wasserstein_test(
        d["X"], d["y_true"], d["two_groups"], [1.0, -2.0]
    ),
    "plan_from_data": lambda d: fastfair.plan_from_data(
        d["y_true"], d["y_pred"], d["group"], "tpr", tau=0.1, n_bootstrap=50, random_state=0
    ),
    "audit": lambda d: fastfair.audit(
        d["y_true"], d["y_pred"], d["sensitive_features"], y_score=d["y_score"],
        cluster=d["cluster"], metrics=["tpr", "fpr"], n_permutations=99,
    ),
    "ConfusionStats.from_arrays": lambda d: fastfair.stats.ConfusionStats.from_arrays(
        d["y_true"], d["y_pred"], d["group"]
    ),
    "MeanStats.from_arrays": lambda d: fastfair.stats.MeanStats.from_arrays(
        d["values"], d["group"]
    ),
    "ScoreStats.from_arrays": lambda d: fastfair.stats.ScoreStats.from_arrays(
        d["y_true"], d["y_score"], d["group"]
    ),
    "ScoreRuns.from_arrays": lambda d: fastfair.stats.ScoreRuns.from_arrays(
        d["y_true"], d["y_score"], d["group"]
    ),
    "PlacementSums.from_arrays": lambda d: fastfair.stats.PlacementSums.from_arrays(
        d["y_true"], d["y_score"], d["group"]
    ),
    "compare_models": lambda d: fastfair.compare_models(
        d["y_true"], d["y_pred"], d["query"], d["group"], **MC
    ),
    "compare_auc": lambda d: fastfair.compare_auc(
        d["y_true"], d["y_score"], d["attribute"], d["group"], **MC
    ),
    "paired_delong": lambda d: fastfair.paired_delong(
        d["y_true"], d["y_score"], d["attribute"], d["group"]
    ),
    "PairedStats.from_arrays": lambda d: fastfair.PairedStats.from_arrays(
        d["y_true"], d["y_pred"], d["query"], d["group"]
    ),
    "find_slices": lambda d: fastfair.find_slices(
        None, d["y_true"], d["y_pred"], features={"g": d["group"], "q": d["query"]},
        max_depth=2, min_size=10, n_permutations=19, random_state=0,
    ),
    "ConfusionCube.from_arrays": lambda d: fastfair.stats.ConfusionCube.from_arrays(
        d["y_true"], d["y_pred"], {"g": d["group"], "q": d["query"]}
    ),
    # fastfair.dask reads named columns of one Dask frame: the probe builds the frame from
    # the columns (pandas aligns them by index) and must match the numpy-built one
    "dask.confusion_stats": lambda d: fastfair.dask.confusion_stats(
        _dask(d, "y_true", "y_pred", "group"), "y_true", "y_pred", "group", scheduler="sync"
    ),
    "dask.permutation_test": lambda d: fastfair.dask.permutation_test(
        _dask(d, "y_true", "y_pred", "group"), "y_true", "y_pred", "group", scheduler="sync",
        random_state=0,
    ),
    "dask.score_stats": lambda d: fastfair.dask.score_stats(
        _dask(d, "y_true", "y_score", "group"), "y_true", "y_score", "group", scheduler="sync"
    ),
    "dask.placement_sums": lambda d: fastfair.dask.placement_sums(
        _dask(d, "y_true", "y_score", "group"), "y_true", "y_score", "group", scheduler="sync"
    ),
    "dask.delong": lambda d: fastfair.dask.delong(
        _dask(d, "y_true", "y_score", "group"), "y_true", "y_score", "group", scheduler="sync"
    ),
    "dask.auc_test": lambda d: fastfair.dask.auc_test(
        _dask(d, "y_true", "y_score", "group"), "y_true", "y_score", "group", scheduler="sync"
    ),
    "dask.paired_stats": lambda d: fastfair.dask.paired_stats(
        _dask(d, "y_true", "y_pred", "query", "group"), "y_true", "y_pred", "query", "group",
        scheduler="sync",
    ),
    "dask.compare_models": lambda d: fastfair.dask.compare_models(
        _dask(d, "y_true", "y_pred", "query", "group"), "y_true", "y_pred", "query", "group",
        scheduler="sync", **MC,
    ),
}  # fmt: skip


def _dask(cols: dict, *names: str):
    """A Dask frame (3 partitions) of the named columns, paired by index when they are pandas."""
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(pd.DataFrame({k: cols[k] for k in names}), npartitions=3)


#: The argument whose rows define the order of a per-row output (the first per-row one).
FIRST = {
    name: "y_score" for name in CALLS if "Calibrator" in name or name == "check_composite_parity"
}
FIRST.update(correlation_test="attribute", mean_difference_test="values", wasserstein_test="X")
FIRST["MeanStats.from_arrays"] = "values"


def _per_row(func) -> list[str]:
    params = inspect.signature(func).parameters.values()
    return [
        p.name for p in params
        if p.name in PER_ROW or (p.kind is p.VAR_POSITIONAL and p.name == "groups")
    ]  # fmt: skip


def functions_with_columns() -> dict:
    """Every public function, method and classmethod taking two or more per-row columns."""
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                members = {name: obj}
            elif inspect.isclass(obj) and obj.__module__.startswith("fastfair"):
                members = {
                    f"{name}.{attr}": getattr(value, "__func__", value)
                    for attr, value in vars(obj).items()
                    if not attr.startswith("_")
                    and inspect.isfunction(getattr(value, "__func__", value))
                }
            else:
                members = {}
            prefix = "dask." if module_name == "fastfair.dask" else ""  # same names as top level
            for label, func in members.items():
                if len(_per_row(func)) >= 2:
                    found.setdefault(prefix + label, func)
    return found


def _columns(n=240, seed=0) -> dict:
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y_score = np.clip(rng.beta(2, 2, n) + 0.15 * (group == "b"), 0.001, 0.999)
    y_true = (rng.random(n) < y_score).astype(np.int64)
    cols = dict(
        y_true=y_true,
        y_pred=(y_score > 0.5).astype(np.int64),
        y_score=y_score,
        group=group,
        sensitive_features=group,
        sample_weight=rng.uniform(0.5, 2.0, n),
        cluster=np.searchsorted(["a", "b", "c"], group) * 1000 + rng.integers(0, n // 9, n),
        two_groups=np.where(group == "a", "a", "b"),
        values=rng.normal(0.2 * (group == "a"), 1.0, n),
        attribute=rng.normal(size=n),
        query=rng.random(n) < 0.5,
    )
    cols["X"] = np.column_stack([y_score, rng.normal(size=n)])
    return cols


def _as_pandas(cols: dict, first: str, seed=1) -> dict:
    """Each column on its own permutation of the labels 0..n-1; `first` in order."""
    rng = np.random.default_rng(seed)
    out = {}
    for key, value in cols.items():
        n = len(value)
        order = np.arange(n) if key == first else rng.permutation(n)
        if value.ndim == 2:
            out[key] = pd.DataFrame(value[order], index=order, columns=["s", "x"])
        else:
            out[key] = pd.Series(value[order], index=order)
    return out


def _plain(obj, depth=0):
    """A result as nested dicts / lists / arrays, for comparison."""
    if depth > 6:
        return repr(obj)
    if hasattr(obj, "to_dict") and not isinstance(obj, pd.Series | pd.DataFrame):
        obj = obj.to_dict()
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("fastfair"):
        obj = {k: v for k, v in vars(obj).items() if not callable(v)}
    if isinstance(obj, pd.Series | pd.DataFrame):
        return np.asarray(obj.to_numpy())
    if isinstance(obj, dict):
        return {k: _plain(v, depth + 1) for k, v in obj.items() if "elapsed" not in str(k)}
    if isinstance(obj, list | tuple):
        return [_plain(v, depth + 1) for v in obj]
    return obj


def _assert_same(a, b, where="result"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, equal_nan=True, err_msg=where)
    elif isinstance(a, float | np.floating):
        if not (np.isnan(a) and np.isnan(b)):
            assert a == pytest.approx(b, rel=1e-12, abs=0), where
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, str | int | bool | np.generic | type(None)):
        assert a == b, where
    elif not callable(a):
        assert repr(a) == repr(b), where


def test_every_function_with_columns_is_walked():
    found = functions_with_columns()
    assert len(found) >= 30
    missing = sorted(set(found) - set(CALLS))
    assert missing == [], f"add these to CALLS: {missing}"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_pandas_inputs_on_permuted_indexes_give_the_aligned_answer(name):
    cols = _columns()
    expected = CALLS[name](cols)
    permuted = _as_pandas(cols, FIRST.get(name, "y_true"))
    try:
        got = CALLS[name](permuted)
    except ValueError as exc:  # a clear refusal is the other acceptable answer
        assert "index" in str(exc), exc
        return
    _assert_same(_plain(expected), _plain(got))


def test_the_walk_catches_pairing_by_position():
    """Pairing by position gives another answer here, so the comparison is not vacuous."""
    cols = _columns()
    expected = fastfair.permutation_test(cols["y_true"], cols["y_pred"], cols["group"])
    pandas = _as_pandas(cols, "y_true")
    by_position = fastfair.permutation_test(
        pandas["y_true"], pandas["y_pred"].to_numpy(), pandas["group"].to_numpy()
    )
    with pytest.raises(AssertionError):
        _assert_same(_plain(expected), _plain(by_position))


# --------------------------------------------------------------------------------------
# The audit (case 1 of #26): attributes were paired with the labels by position
# --------------------------------------------------------------------------------------


def _audit_rows(n=800, seed=3):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    race = rng.choice(["x", "y"], n)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < np.where(sex == "F", 0.6, 0.8), y, 1 - y)
    return y, pred, sex, race


def _differences(res):
    return [(t["attribute"], t["metric"], t["group"], t["difference"]) for t in res.tests]


@pytest.mark.parametrize("form", ["series", "frame", "mapping", "names"])
def test_audit_pairs_attributes_by_index(form):
    y, pred, sex, race = _audit_rows()
    kw = dict(metrics=["tpr", "fpr"], n_permutations=99, intersections=True)
    base = fastfair.audit(y, pred, {"sex": sex, "race": race}, **kw)
    order = np.random.default_rng(7).permutation(len(y))
    frame = pd.DataFrame({"sex": sex, "race": race}).iloc[order]
    ys, ps = pd.Series(y), pd.Series(pred)
    if form == "series":
        kw.pop("intersections")
        base = fastfair.audit(y, pred, {"sex": sex}, **kw)
        res = fastfair.audit(ys, ps, frame["sex"], **kw)
    elif form == "frame":
        res = fastfair.audit(ys, ps, frame, **kw)
    elif form == "mapping":  # each attribute in its own order
        race_s = pd.Series(race).iloc[np.random.default_rng(8).permutation(len(y))]
        res = fastfair.audit(ys, ps, {"sex": frame["sex"], "race": race_s}, **kw)
    else:  # column names of data, the labels from another frame
        res = fastfair.audit(ys, ps, ["sex", "race"], data=frame, **kw)
    assert _differences(res) == _differences(base)
    assert [t["pvalue"] for t in res.tests] == [t["pvalue"] for t in base.tests]


def test_audit_refuses_attributes_on_other_labels():
    y, pred, sex, _ = _audit_rows()
    shifted = pd.Series(sex, index=np.arange(len(sex)) + 5)
    with pytest.raises(ValueError, match=r"sensitive feature 'sex'.*indexes hold different"):
        fastfair.audit(pd.Series(y), pred, shifted.rename("sex"), metrics=["tpr"])
    # numpy labels: a pandas attribute is paired by position, as documented
    res = fastfair.audit(y, pred, shifted.rename("sex"), metrics=["tpr"])
    assert _differences(res) == _differences(
        fastfair.audit(y, pred, {"sex": sex}, metrics=["tpr"])
    )
