"""Every public result class is frozen, fully declared, and has to_dict() and to_frame().

The classes are found by walking the public modules (``tests/test_pickle.py``'s walk and
builders), so a new result class fails here until it has both exports. Each built result
must have no attribute beyond its declared fields (nothing attached after construction),
refuse assignment, give a JSON-serialisable ``to_dict()`` and a non-empty ``to_frame()``.
"""

import dataclasses
import importlib.util
import json
import math
import pathlib

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

_spec = importlib.util.spec_from_file_location(
    "pickle_walk", pathlib.Path(__file__).with_name("test_pickle.py")
)
walk = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(walk)

#: Public dataclasses that are not results: options, mergeable summaries, audit attributes.
NOT_RESULTS = {
    "Sequential", "ConfusionStats", "ScoreStats", "MeanStats", "PairedStats", "Attribute",
    "ConfusionCube", "ScoreRuns", "PlacementSums",
}  # fmt: skip


def result_classes() -> list[type]:
    found = [
        cls
        for cls in walk.public_classes()
        if dataclasses.is_dataclass(cls) and cls.__name__ not in NOT_RESULTS
    ]
    return sorted(found, key=lambda c: c.__name__)


def test_the_walk_finds_the_result_classes():
    names = {c.__name__ for c in result_classes()}
    assert {"PermutationTestResult", "AuditResult", "AuditTest", "SampleSizeResult"} <= names
    assert len(names) >= 25


@pytest.mark.parametrize("cls", result_classes(), ids=lambda c: c.__name__)
def test_result_class_is_frozen_with_both_exports(cls):
    assert cls.__dataclass_params__.frozen, f"{cls.__name__} is not frozen"
    assert callable(getattr(cls, "to_dict", None)), f"{cls.__name__} has no to_dict"
    assert callable(getattr(cls, "to_frame", None)), f"{cls.__name__} has no to_frame"


def _finite_json(value):
    """JSON without the NaN/Infinity extensions' surprises: dumps must succeed."""
    return json.dumps(value, allow_nan=True)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("cls", result_classes(), ids=lambda c: c.__name__)
def test_built_results_are_fully_declared_and_export(cls):
    builders = walk.BUILDERS[cls.__name__]
    for build in builders:
        obj = build()
        assert type(obj) is cls
        declared = {f.name for f in dataclasses.fields(obj)}
        attached = set(vars(obj)) - declared
        assert attached == set(), f"attributes attached after construction: {attached}"
        first = dataclasses.fields(obj)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, first, getattr(obj, first))
        d = obj.to_dict()
        assert isinstance(d, dict) and d
        _finite_json(d)
        frame = obj.to_frame()
        assert isinstance(frame, pd.DataFrame)
        assert frame.shape[0] >= 1 and frame.shape[1] >= 1


def test_generic_export_of_a_pairwise_result_matches_its_fields():
    import fastfair

    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b", "c"], 600)
    y, p = rng.random(600) < 0.5, rng.random(600) < 0.4
    res = fastfair.permutation_test(y, p, g, metric="tpr", comparisons="all")
    d = res.to_dict()
    assert set(d) == {f.name for f in dataclasses.fields(res)}
    assert d["comparisons"] == [list(c) for c in res.comparisons]
    assert d["pvalue"] == res.pvalue.tolist()
    frame = res.to_frame()
    assert frame[["group", "reference"]].values.tolist() == [list(c) for c in res.comparisons]
    np.testing.assert_array_equal(frame["pvalue"], res.pvalue)
    np.testing.assert_array_equal(frame["confidence_interval_low"], res.confidence_interval[0])
    np.testing.assert_array_equal(frame["confidence_interval_high"], res.confidence_interval[1])
    assert (frame["metric"] == "tpr").all()  # a scalar field on every row
    assert "group_values" not in frame  # one value per group, not per comparison


def test_audit_test_reads_as_the_dict_it_replaced():
    import fastfair

    rng = np.random.default_rng(1)
    g = rng.choice(["a", "b"], 500)
    y, p = rng.random(500) < 0.5, rng.random(500) < 0.4
    res = fastfair.audit(y, p, {"g": g}, metrics=["tpr", "equalized_odds"])
    t = res.tests[0]
    assert isinstance(t, fastfair.AuditTest)
    assert t["metric"] == t.metric == "tpr" and "error" not in t and t.get("error") is None
    with pytest.raises(KeyError):
        t["error"]
    assert dict(t) == t.to_dict() == res.to_dict()["tests"][0] | {"mde": t["mde"]}
    assert t == dict(t)
    assert list(t.to_frame().columns) == list(t)
    assert not math.isnan(t["pvalue_adjusted"])


def test_plain_values_and_the_audits_json_default():
    """plain(): numpy scalars and arrays as Python numbers and lists, tuples as lists, dict
    keys as text, anything else (a function) as its repr; the audit's json_default writes
    numpy values as numbers and refuses an object it cannot write, naming its type."""
    from fastfair._export import plain
    from fastfair.auditing.results import json_default

    assert plain({1: (np.int64(2), np.float32(0.5))}) == {"1": [2, 0.5]}
    assert plain(np.array([[1, 2]])) == [[1, 2]] and plain(np.bool_(True)) is True
    assert plain(len) == repr(len)
    assert json.dumps({"n": np.int32(3), "x": np.arange(2)}, default=json_default) == (
        '{"n": 3, "x": [0, 1]}')  # fmt: skip
    with pytest.raises(TypeError, match="cannot serialize object"):
        json.dumps({"x": object()}, default=json_default)


def test_generic_frames_of_per_group_and_per_entry_results_read_back_their_rows():
    """A result without comparisons but with groups (DeLongResult) has one row per group:
    the group column holds the labels, each row its group's Mann-Whitney AUC and class
    counts computed here from the rows. A result with neither (a three-group PowerResult)
    has one row per entry of its first flat array field (the variances given), with the
    fields of that length alongside (n_per_group = n * allocation)."""
    import fastfair

    rng = np.random.default_rng(0)
    g = rng.choice(["x", "y", "z"], 300)
    y = rng.random(300) < 0.4
    s = np.round(rng.random(300) + 0.5 * y, 1)  # ties count one half
    frame = fastfair.auc.delong(y, s, g).to_frame()
    assert frame["group"].tolist() == ["x", "y", "z"]
    for k, label in enumerate("xyz"):
        pos, neg = s[(g == label) & y], s[(g == label) & ~y]
        d = pos[:, None] - neg[None, :]
        auc = np.mean((d > 0) + 0.5 * (d == 0))
        assert frame["auc"][k] == pytest.approx(auc, rel=1e-12)
        assert (frame["n_pos"][k], frame["n_neg"][k]) == (pos.size, neg.size)
    plan = fastfair.power(sigma2=[0.2, 0.3, 0.25], tau=0.05, n=1000, allocation=[0.5, 0.3, 0.2])
    frame = plan.to_frame()
    assert len(frame) == 3 and frame["sigma2"].tolist() == [0.2, 0.3, 0.25]
    np.testing.assert_allclose(frame["n_per_group"], [500, 300, 200], rtol=1e-12)
    assert frame["allocation"].tolist() == [0.5, 0.3, 0.2]
