"""fastfair.audit(data=path, engine=...): one public route to every engine (#27).

The demo data are written to Parquet; the same audit (one attribute, or two with their
intersections) read by the memory, arrow and dask
(synchronous scheduler) engines must agree: every confusion-matrix test identical (counts,
exact p-values, intervals), predictive parity per user equal to 1e-12, the AUCs and their
DeLong intervals equal to 1e-12 (the engines' AUC p-value is the DeLong z-test; memory
permutes rows). The memory engine on the path equals the audit of the data frame.
"""

import math
import pathlib

import numpy as np
import pytest

import fastfair

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("dask")

DEMO = pathlib.Path(fastfair.__file__).with_name("data") / "adult_demo.csv"
OPTIONS = dict(n_permutations=199, random_state=1, n_jobs=1)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    frame = pd.read_csv(DEMO)
    frame["user"] = np.arange(len(frame)) // 3
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    return frame, str(path)


def _tests(result) -> dict:
    return {(t["attribute"], t["metric"], str(t["group"])): t for t in result.tests}


def _same(a, b, keys, rel=0.0):
    for k in keys:
        x, y = a.get(k), b.get(k)
        if isinstance(x, float) and isinstance(y, float):
            assert math.isclose(x, y, rel_tol=rel, abs_tol=rel), (k, x, y)
        else:
            assert x == y, (k, x, y)


def test_memory_engine_on_the_path_equals_the_data_frame(demo):
    frame, path = demo
    args = ("label", "prediction", ["sex", "race"])
    kw = dict(y_score="score", cluster="user", intersections=True, **OPTIONS)
    on_path = fastfair.audit(*args, data=path, engine="memory", **kw).to_dict()
    on_frame = fastfair.audit(*args, data=frame, **kw).to_dict()
    for d in (on_path, on_frame):
        d.pop("elapsed_seconds")
    assert on_path == on_frame


def _agree(memory, other):
    """Every test of `other` as memory's: confusion-matrix tests identical, AUCs and their
    intervals and predictive parity to 1e-12; the attributes' groups identical."""
    a, b = _tests(memory), _tests(other)
    assert a.keys() == b.keys()
    exact = ["value_group", "value_reference", "difference", "ci_low", "ci_high", "statistic",
             "pvalue", "n_group", "n_reference", "method", "mde", "n_needed", "error"]  # fmt: skip
    for key, t in a.items():
        if t["family"] == "confusion":
            _same(t, b[key], exact)
        elif t["family"] == "auc":
            _same(t, b[key], ["value_group", "value_reference", "ci_low", "ci_high"], 1e-12)
            _same(t, b[key], ["n_group", "n_reference", "error"])
        else:  # predictive parity per user, the same bootstrap draws
            _same(t, b[key], ["statistic", "pvalue"], 1e-12)
            _same(t, b[key], ["groups", "scheme", "error"])
    assert memory.attributes == other.attributes
    assert memory.columns == other.columns


@pytest.mark.parametrize("engine", ["arrow", "dask"])
@pytest.mark.parametrize("cluster", [None, "user"])
def test_engines_agree_with_memory(demo, engine, cluster):
    _, path = demo
    kw = dict(y_score="score", data=path, cluster=cluster, **OPTIONS)
    memory = fastfair.audit("label", "prediction", ["sex"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["sex"], engine=engine, scheduler="sync", **kw)
    assert other.engine == engine and memory.engine == "memory"
    _agree(memory, other)


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_every_engine_audits_attributes_and_intersections(demo, engine):
    """#27/#28: two attributes, their intersections, a score and users: the arrow and dask
    engines (one pass: the cube of counts, a score summary per combination, the rows by
    user) give the memory engine's audit. The AUC p-value is the DeLong z-test on the
    engines (memory permutes rows), so only the AUCs and their intervals are compared."""
    _, path = demo
    kw = dict(y_score="score", data=path, cluster="user", intersections=True, **OPTIONS)
    args = ("label", "prediction", ["sex", "race"])
    memory = fastfair.audit(*args, engine="memory", **kw)
    other = fastfair.audit(*args, engine=engine, scheduler="sync", **kw)
    assert other.engine == engine and other.intersections
    assert {t["attribute"] for t in other.tests} == {"sex", "race", "sex & race"}
    assert any(t["family"] == "parity" and t["attribute"] == "sex & race" for t in other.tests)
    _agree(memory, other)
    assert memory.group_cells.keys() == other.group_cells.keys()
    for name, cells in memory.group_cells.items():
        assert np.array_equal(cells, other.group_cells[name])


@pytest.fixture(scope="module")
def flat_scores(demo, tmp_path_factory):
    """The demo with two score columns: "one" equal within the women (0.5), "both" equal
    within each sex (a constant per group), "score" untouched."""
    frame, _ = demo
    frame = frame.copy()
    women = frame["sex"] == "Female"
    frame["one"] = np.where(women, 0.5, frame["score"])
    frame["both"] = np.where(women, 0.5, 0.25)
    path = tmp_path_factory.mktemp("flat") / "flat.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    return str(path)


@pytest.mark.parametrize("engine", ["memory", "arrow", "dask"])
def test_every_engine_flags_a_constant_score(flat_scores, engine):
    """#35 point 2 on every engine: one group's scores all equal -> a note on its AUC test;
    both groups' -> the test is not run (an error); a varying score -> no note."""
    kw = dict(data=flat_scores, engine=engine, metrics=["tpr"], **OPTIONS)
    if engine != "memory":
        kw["scheduler"] = "sync"

    def auc(score):
        res = fastfair.audit("label", "prediction", ["sex"], y_score=score, **kw)
        (test,) = [t for t in res.tests if t["metric"] == "auc"]
        return test

    one = auc("one")
    assert one["decision"] != "error"
    assert "constant score: every score of 'Female' is the same" in one["note"]
    both = auc("both")
    assert both["decision"] == "error"
    assert "every score of 'Female' and of 'Male' is the same" in both["error"]
    assert "constant score" not in (auc("score").get("note") or "")


def test_engines_refuse_what_they_cannot_read(demo):
    frame, path = demo
    with pytest.raises(ValueError, match="reads files: give data as a path"):
        fastfair.audit("label", "prediction", ["sex"], data=frame, engine="dask")
    with pytest.raises(ValueError, match="engine"):
        fastfair.audit("label", "prediction", ["sex"], data=frame, engine="spark")
    with pytest.raises(TypeError, match="column names"):
        fastfair.audit(frame["label"], "prediction", ["sex"], data=path, engine="arrow")


def test_untied_float_scores_on_every_engine(demo, tmp_path):
    """#28: float64 scores with no ties (the arrow engine's sorted runs merged k-way, dask's
    sort by score): the AUCs and their DeLong intervals equal memory's to 1e-12, and the
    arrow and dask engines' DeLong p-values agree with each other and with auc_test on the
    rows."""
    frame, _ = demo
    rng = np.random.default_rng(5)
    frame = frame.assign(score=frame["score"] + 1e-7 * rng.random(len(frame)))
    assert frame["score"].nunique() == len(frame)
    path = tmp_path / "untied.parquet"
    frame.to_parquet(path, row_group_size=1000, index=False)  # many batches
    kw = dict(y_score="score", data=str(path), intersections=True, **OPTIONS)
    args = ("label", "prediction", ["sex", "race"])
    memory = fastfair.audit(*args, engine="memory", **kw)
    arrow = fastfair.audit(*args, engine="arrow", **kw)
    dask = fastfair.audit(*args, engine="dask", scheduler="sync", **kw)
    _agree(memory, arrow)
    _agree(memory, dask)
    a, d = _tests(arrow), _tests(dask)
    aucs = [k for k, t in a.items() if t["family"] == "auc" and t.get("error") is None]
    assert aucs
    for key in aucs:
        _same(a[key], d[key], ["statistic", "pvalue"], 1e-12)
    sex = next(t for k, t in a.items() if k[:2] == ("sex", "auc"))
    ref = fastfair.auc_test(frame.label, frame.score, frame.sex, method="delong",
                            reference=sex["reference"])  # fmt: skip
    assert math.isclose(sex["pvalue"], float(np.atleast_1d(ref.pvalue)[0]), rel_tol=1e-10)
