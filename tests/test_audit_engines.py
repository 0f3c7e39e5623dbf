"""fastfair.audit(data=path, engine=...): one public route to every engine (#27).

The demo data are written to Parquet; the same audit (two attributes, their intersections,
a score, users) read by the memory, arrow and dask (synchronous scheduler) engines gives
the same ``to_dict()``, row for row (timings and the engine's name aside): counts, exact
and Monte-Carlo p-values identical, DeLong's and every other float to 1e-12. The AUC test
is the rows' audit's on every engine (the DeLong z-test where every class of both groups
has 1,000 rows and the audit is sequential, else the permutation test on the two groups'
rows, which the engines read back). The memory engine on the path equals the audit of the
data frame.
"""

import itertools
import math
import pathlib
import runpy

import numpy as np
import pytest

import fastfair

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("dask")

DEMO = pathlib.Path(fastfair.__file__).with_name("data") / "adult_demo.csv"
OPTIONS = dict(n_permutations=199, random_state=1, n_jobs=1)
ARGS = ("label", "prediction", ["sex", "race"])
_HELPERS = runpy.run_path(str(pathlib.Path(__file__).with_name("_same_audit.py")))
nested_users, same_audit = _HELPERS["nested_users"], _HELPERS["same_audit"]
half_auc_frame, untested_group_frame = _HELPERS["half_auc_frame"], _HELPERS["untested_group_frame"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    frame = pd.read_csv(DEMO)
    frame["user"] = nested_users(frame)
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    return frame, str(path)


def test_memory_engine_on_the_path_equals_the_data_frame(demo):
    frame, path = demo
    kw = dict(y_score="score", cluster="user", intersections=True, **OPTIONS)
    on_path = fastfair.audit(*ARGS, data=path, engine="memory", **kw).to_dict()
    on_frame = fastfair.audit(*ARGS, data=frame, **kw).to_dict()
    for d in (on_path, on_frame):
        d.pop("elapsed_seconds")
    assert on_path == on_frame


@pytest.mark.parametrize("split", [False, True])
def test_memory_engine_keeps_text_user_ids(demo, tmp_path, split):
    """A text user column read from a file is coded once; the audit still names a user by
    the id written in the file (it named the code, "cluster 0"), and the results are the
    data frame's. With `split`, one user's rows are in both groups of sex."""
    frame = demo[0].copy()
    frame["user"] = "u-" + frame["user"].astype(str)
    if split:
        first = frame.index[frame["user"] == frame["user"].iloc[0]]
        frame.loc[first, "sex"] = "Female"
        frame.loc[first[0], "sex"] = "Male"
    path = tmp_path / "text_users.parquet"
    frame.to_parquet(path, index=False)
    kw = dict(y_score="score", cluster="user", **OPTIONS)
    on_path = fastfair.audit(*ARGS[:2], ["sex"], data=str(path), engine="memory", **kw)
    on_frame = fastfair.audit(*ARGS[:2], ["sex"], data=frame, **kw)
    (row,) = [t for t in on_path.tests if t["family"] == "parity"]
    if split:
        user = frame["user"].iloc[0]
        assert row["error"].startswith(
            f"cluster {user!r} of the cluster column 'user' has rows in group 'Male' and in"
        )
    else:
        assert "error" not in row and row["pvalue"] > 0
    d_path, d_frame = on_path.to_dict(), on_frame.to_dict()
    for d in (d_path, d_frame):
        d.pop("elapsed_seconds")
    assert d_path == d_frame


@pytest.mark.parametrize("engine", ["arrow", "dask"])
@pytest.mark.parametrize("cluster", [None, "user"])
def test_the_full_audit_is_the_same_on_every_engine(demo, engine, cluster):
    """#27: two attributes, their intersections, a score and users: every row of the
    arrow and dask engines' audit (one pass: the cube of counts, a score summary per
    combination, the rows by user; the compared groups' rows read back for the AUC
    permutation tests) is the memory engine's."""
    _, path = demo
    kw = dict(y_score="score", data=path, cluster=cluster, intersections=True, **OPTIONS)
    memory = fastfair.audit(*ARGS, engine="memory", **kw)
    other = fastfair.audit(*ARGS, engine=engine, scheduler="sync", **kw)
    assert other.engine == engine and memory.engine == "memory" and other.intersections
    assert {t["attribute"] for t in other.tests} == {"sex", "race", "sex & race"}
    parity = [t for t in memory.tests if t["family"] == "parity"]
    assert len(parity) == 3 and not any(t.get("error") for t in parity)
    assert {t["method"] for t in memory.tests if t["family"] == "auc"} == {"permutation"}
    same_audit(memory.to_dict(), other.to_dict())
    assert memory.group_cells.keys() == other.group_cells.keys()
    for name, cells in memory.group_cells.items():
        assert np.array_equal(cells, other.group_cells[name])


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_the_sequential_audit_is_the_same_on_every_engine(demo, engine):
    """The default audit (n_permutations None): the AUC's sequential permutation tests
    (groups under 1,000 positives) and parity's bootstrap are decided together
    (MMCTest), so one test run differently elsewhere (the AUC by DeLong's z-test on the
    engines before #27) changed the draws and p-values of the others (parity's)."""
    _, path = demo
    kw = dict(y_score="score", data=path, cluster="user", random_state=1, n_jobs=1)
    memory = fastfair.audit(*ARGS, engine="memory", **kw)
    other = fastfair.audit(*ARGS, engine=engine, scheduler="sync", **kw)
    aucs = [t for t in memory.tests if t["family"] == "auc"]
    assert {t["method"] for t in aucs} == {"permutation"} and aucs[0]["pvalue_interval"]
    same_audit(memory.to_dict(), other.to_dict())


def test_the_delong_rule_is_the_same_on_every_engine(demo, monkeypatch):
    """Where the audit's rule picks DeLong's z-test (every class of both groups at least
    ASYMPTOTIC_MIN_CLASS; lowered here so that the demo's sex comparison qualifies and
    race's do not), the engines take it from their summaries (no rows read back) and
    agree with the rows' to 1e-12; the other pairs stay permutation tests."""
    import fastfair.auc
    import fastfair.auc.inference

    for module in (fastfair.auc, fastfair.auc.inference):
        monkeypatch.setattr(module, "ASYMPTOTIC_MIN_CLASS", 500)
    _, path = demo
    kw = dict(y_score="score", data=path, cluster="user", random_state=1, n_jobs=1)
    memory = fastfair.audit(*ARGS, engine="memory", **kw)
    methods = {t["attribute"]: t["method"] for t in memory.tests if t["family"] == "auc"}
    assert methods["sex"] == "delong" and methods["race"] == "permutation"
    for engine in ("arrow", "dask"):
        other = fastfair.audit(*ARGS, engine=engine, scheduler="sync", **kw)
        same_audit(memory.to_dict(), other.to_dict())


@pytest.fixture(scope="module")
def flat_scores(demo, tmp_path_factory):
    """The demo with score columns: "one" equal within the women (0.5), "both" equal
    within each sex (a constant per group), "score" untouched; and a group column "band"
    whose group "a" (the women's negatives) has one class, with constant scores in
    "band_both" (both bands constant) and "band_one" (only "a")."""
    frame, _ = demo
    frame = frame.copy()
    women = frame["sex"] == "Female"
    frame["one"] = np.where(women, 0.5, frame["score"])
    frame["both"] = np.where(women, 0.5, 0.25)
    band = women & (frame["label"] == 0)
    frame["band"] = np.where(band, "a", "b")
    frame["band_both"] = np.where(band, 0.5, 0.25)
    frame["band_one"] = np.where(band, 0.5, frame["score"])
    path = tmp_path_factory.mktemp("flat") / "flat.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    return str(path)


def _auc_row(engine, data, group, score):
    kw = dict(data=data, engine=engine, metrics=["tpr"], y_score=score, **OPTIONS)
    if engine != "memory":
        kw["scheduler"] = "sync"
    res = fastfair.audit("label", "prediction", [group], **kw)
    (test,) = [t for t in res.tests if t["metric"] == "auc"]
    return test


@pytest.mark.parametrize("engine", ["memory", "arrow", "dask"])
def test_every_engine_flags_a_constant_score(flat_scores, engine):
    """#35 point 2 on every engine: one group's scores all equal -> a note on its AUC test;
    both groups' -> the test is not run (an error); a varying score -> no note."""
    one = _auc_row(engine, flat_scores, "sex", "one")
    assert one["decision"] != "error"
    assert "constant score: every score of 'Female' is the same" in one["note"]
    both = _auc_row(engine, flat_scores, "sex", "both")
    assert both["decision"] == "error"
    assert "every score of 'Female' and of 'Male' is the same" in both["error"]
    varying = _auc_row(engine, flat_scores, "sex", "score")
    assert "constant score" not in (varying.get("note") or "")


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_a_constant_group_of_one_class_on_every_engine(flat_scores, engine):
    """A constant-score group without positives is flagged as on the rows (#27): both
    groups constant -> the constant-score error (the engines' DeLong sums alone cannot
    see one class's constant scores); one constant -> the AUC's undefined-group error."""
    for score in ("band_both", "band_one"):
        memory = _auc_row("memory", flat_scores, "band", score)
        assert memory == _auc_row(engine, flat_scores, "band", score)
        assert memory["decision"] == "error"
    assert (
        "every score of 'a' and of 'b' is the same"
        in _auc_row("memory", flat_scores, "band", "band_both")["error"]
    )


def test_engines_refuse_what_they_cannot_read(demo):
    frame, path = demo
    with pytest.raises(ValueError, match="reads files: give data as a path"):
        fastfair.audit("label", "prediction", ["sex"], data=frame, engine="dask")
    with pytest.raises(ValueError, match="engine"):
        fastfair.audit("label", "prediction", ["sex"], data=frame, engine="spark")
    with pytest.raises(TypeError, match="column names"):
        fastfair.audit(frame["label"], "prediction", ["sex"], data=path, engine="arrow")


def test_untied_float_scores_on_every_engine(demo, tmp_path, monkeypatch):
    """#28: float64 scores with no ties (the arrow engine's sorted runs merged k-way, dask's
    sort by score), many batches: the whole audit as memory's, the AUC of sex by DeLong's
    z-test (its rule lowered to 500 a class) from the engines' exact sums, equal to
    auc_test on the rows to 1e-10, the others by permutations on the rows read back."""
    import fastfair.auc
    import fastfair.auc.inference

    for module in (fastfair.auc, fastfair.auc.inference):
        monkeypatch.setattr(module, "ASYMPTOTIC_MIN_CLASS", 500)
    frame, _ = demo
    rng = np.random.default_rng(5)
    frame = frame.assign(score=frame["score"] + 1e-7 * rng.random(len(frame)))
    assert frame["score"].nunique() == len(frame)
    path = tmp_path / "untied.parquet"
    frame.to_parquet(path, row_group_size=1000, index=False)  # many batches
    kw = dict(y_score="score", data=str(path), random_state=1, n_jobs=1)
    memory = fastfair.audit(*ARGS, engine="memory", **kw)
    for engine in ("arrow", "dask"):
        other = fastfair.audit(*ARGS, engine=engine, scheduler="sync", **kw)
        same_audit(memory.to_dict(), other.to_dict())
    sex = next(t for t in other.tests if t["family"] == "auc" and t["attribute"] == "sex")
    assert sex["method"] == "delong"
    ref = fastfair.auc_test(frame.label, frame.score, frame.sex, method="delong",
                            reference=sex["reference"])  # fmt: skip
    assert math.isclose(sex["pvalue"], float(np.atleast_1d(ref.pvalue)[0]), rel_tol=1e-10)


def test_signed_zero_scores_on_every_engine(demo, tmp_path, monkeypatch):
    """Scores +0.0 and -0.0 are equal (a tie) to dask's sort by score but not to the radix
    sort of a partition (-0.0 first): a partition's labels must follow its rows' re-sorting
    (round-3 mutant r3-dask-audit-labels-unsorted left them in dask's order and survived
    the suite). Half the rows score a signed zero, +0.0 for women and -0.0 for men, in the
    file's order; the audit (its AUC by DeLong's z-test from the engines' sums, the rule
    lowered to 500 a class) equals memory's on the arrow and dask engines."""
    import fastfair.auc
    import fastfair.auc.inference

    for module in (fastfair.auc, fastfair.auc.inference):
        monkeypatch.setattr(module, "ASYMPTOTIC_MIN_CLASS", 500)
    frame, _ = demo
    low = frame["score"] < frame["score"].median()
    zero = np.where(frame["sex"] == "Female", 0.0, -0.0)
    frame = frame.assign(score=np.where(low, zero, frame["score"]))
    assert np.signbit(frame["score"]).sum() > 1000
    path = tmp_path / "signed_zeros.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    kw = dict(y_score="score", data=str(path), random_state=1, n_jobs=1)
    memory = fastfair.audit(*ARGS, engine="memory", **kw)
    sex = next(t for t in memory.tests if t["family"] == "auc" and t["attribute"] == "sex")
    assert sex["method"] == "delong"
    for engine in ("arrow", "dask"):
        other = fastfair.audit(*ARGS, engine=engine, scheduler="sync", **kw)
        same_audit(memory.to_dict(), other.to_dict())


def _boundary_frame(positives: int) -> "pd.DataFrame":
    """Group F with `positives` positives (its smallest class) and 1,500 negatives, of which
    1,200 rows are predicted positive (both predicted classes above 1,000), against group M
    with 1,500 rows of each class; untied scores."""
    rng = np.random.default_rng(11)
    parts = []
    for group, n_pos, n_neg, n_pred in (("F", positives, 1500, 1200), ("M", 1500, 1500, 1500)):
        n = n_pos + n_neg
        label = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
        pred = np.zeros(n, int)
        pred[rng.choice(n, n_pred, replace=False)] = 1
        score = rng.random(n) * 0.5 + 0.25 * label
        parts.append(pd.DataFrame({"label": label, "prediction": pred, "g": group, "s": score}))
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("engine", ["memory", "arrow", "dask"])
def test_the_delong_rule_at_exactly_its_boundary(tmp_path, monkeypatch, engine):
    """The audit's AUC test is DeLong's z-test when every class of both groups has at least
    ASYMPTOTIC_MIN_CLASS (1,000) rows -- the true classes, not the predicted ones (F's are
    1,200 and 1,299 or 1,300 here). At exactly 1,000 positives in F it is DeLong, and an
    engine takes it from its summaries without reading any rows back (at 1e8 rows that read
    is a second pass); at 999 it is the permutation test on the rows read back. Written for
    round-3 mutants r3-audit-auc-delong-boundary (``>`` for ``>=``: the rows are read back
    at 1,000) and r3-audsum-class-totals (an engine's class totals taken from the predicted
    classes: DeLong at 999)."""
    import fastfair.auditing.summaries as summaries
    from fastfair.auc import ASYMPTOTIC_MIN_CLASS

    assert ASYMPTOTIC_MIN_CLASS == 1000
    reads = []
    auc_rows = summaries._auc_rows

    def counting(attr, scores, labels, cells, read, options):
        def counted(wanted):
            reads.append(wanted)
            return read(wanted)

        return auc_rows(attr, scores, labels, cells, counted, options)

    monkeypatch.setattr(summaries, "_auc_rows", counting)
    for positives, method in ((1000, "delong"), (999, "permutation")):
        reads.clear()
        path = tmp_path / f"boundary{positives}.parquet"
        _boundary_frame(positives).to_parquet(path, row_group_size=1000, index=False)
        kw = dict(data=str(path), engine=engine, y_score="s", metrics=["tpr"], random_state=1)
        if engine != "memory":
            kw["scheduler"] = "sync"
        res = fastfair.audit("label", "prediction", ["g"], n_jobs=1, **kw)
        (auc,) = [t for t in res.tests if t["family"] == "auc"]
        assert auc["method"] == method, (positives, auc)
        if engine != "memory":
            assert len(reads) == (method == "permutation"), (positives, reads)


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_delong_and_permutation_pairs_of_one_attribute(tmp_path, engine):
    """An attribute of three groups: "a" (the reference) and "b" each with 1,200 rows of
    each class (DeLong's z-test from the engine's sums), "c" with 60 (the permutation test
    on the rows of "a" and "c" read back: codes 0 and 2, not a prefix of the codes). The
    audit equals memory's. Written for round-3 mutant r3-audsum-rows-index-unmapped (the
    rows read back keep their index into the wanted groups, so "c"'s rows pass as "b"'s)."""
    rng = np.random.default_rng(12)
    sizes = {"a": 1500, "b": 1200, "c": 60}
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "label": np.r_[np.ones(n, int), np.zeros(n, int)],
                    "prediction": rng.integers(0, 2, 2 * n),
                    "g": g,
                    "s": rng.random(2 * n) * 0.6
                    + 0.3 * np.r_[np.ones(n), np.zeros(n)] * (g != "c"),
                }
            )
            for g, n in sizes.items()
        ],
        ignore_index=True,
    )
    path = tmp_path / "three.parquet"
    frame.to_parquet(path, row_group_size=1000, index=False)
    kw = dict(data=str(path), y_score="s", metrics=["tpr"], random_state=1, n_jobs=1)
    memory = fastfair.audit("label", "prediction", ["g"], engine="memory", **kw)
    methods = {t["group"]: t["method"] for t in memory.tests if t["family"] == "auc"}
    assert methods == {"b": "delong", "c": "permutation"}
    other = fastfair.audit("label", "prediction", ["g"], engine=engine, scheduler="sync", **kw)
    same_audit(memory.to_dict(), other.to_dict())


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_an_auc_of_exactly_one_half_is_not_a_constant_score(tmp_path, engine):
    """Group F's positives and negatives share the same 1,000 distinct scores: an AUC of
    exactly 0.5 although the scores vary. The engines' DeLong sums must not call it
    all-tied (no constant-score note); the audit (DeLong's z-test) is memory's. The Spark
    twin is in test_spark.py (round-3 mutant r3-spark-all-tied-auc-only)."""
    frame = half_auc_frame()
    path = tmp_path / "half.parquet"
    frame.to_parquet(path, row_group_size=1000, index=False)
    kw = dict(data=str(path), y_score="s", metrics=["tpr"], random_state=1, n_jobs=1)
    memory = fastfair.audit("label", "prediction", ["g"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["g"], engine=engine, scheduler="sync", **kw)
    (auc,) = [t for t in other.tests if t["family"] == "auc"]
    assert auc["method"] == "delong" and auc["value_reference"] == 0.5
    assert "constant score" not in (auc.get("note") or "")
    same_audit(memory.to_dict(), other.to_dict())


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_an_untested_group_between_tested_ones(tmp_path, engine):
    """Group "b" (12 rows, below min_group_size) sits between tested groups in code order;
    its users are its own. The whole audit (confusion tests, the AUC by permutations on
    the rows read back, clustered parity on the tested groups' users) equals memory's:
    the untested rows count nowhere."""
    frame = untested_group_frame()
    path = tmp_path / "untested.parquet"
    frame.to_parquet(path, row_group_size=500, index=False)
    kw = dict(data=str(path), y_score="s", cluster="user", min_group_size=30,
              n_permutations=199, random_state=1, n_jobs=1)  # fmt: skip
    memory = fastfair.audit("label", "prediction", ["g"], engine="memory", **kw)
    tested = {t["group"] for t in memory.tests if t["family"] == "confusion"}
    assert "b" not in tested and {"c", "d"} <= tested
    other = fastfair.audit("label", "prediction", ["g"], engine=engine, scheduler="sync", **kw)
    same_audit(memory.to_dict(), other.to_dict())


def _three_attributes_frame(flat: str = "") -> "pd.DataFrame":
    """Three attributes: every class of every group of each and of their intersections has
    at least 40 rows; the largest intersection is ("A", "x", "p"), first in label order, so
    every other intersection group's code is above its reference's. `flat`: the scores of
    the intersection ("B", "y", "q") all 0.5 ("one") or of every row 0.5 ("both")."""
    rng = np.random.default_rng(21)
    parts = []
    for a, b, c in itertools.product("AB", "xy", "pq"):
        n = 120 if (a, b, c) == ("A", "x", "p") else 50 + 4 * len(parts)
        label = np.r_[np.ones(n, int), np.zeros(n, int)]
        score = np.round(rng.random(2 * n) * 0.6 + 0.3 * label * (a == "A"), 3)
        if flat == "both" or (flat == "one" and (a, b, c) == ("B", "y", "q")):
            score = np.full(2 * n, 0.5)
        parts.append(pd.DataFrame({"label": label, "prediction": rng.integers(0, 2, 2 * n),
                                   "a": a, "b": b, "c": c, "s": score}))  # fmt: skip
    return pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=3)


@pytest.mark.parametrize("flat", ["", "one", "both"])
def test_delong_from_the_summaries_of_intersections_of_three_attributes(
    tmp_path, monkeypatch, flat
):
    """The arrow engine's DeLong z-tests of intersections (the rule lowered to 40 rows a
    class, so every AUC test is DeLong's from the summaries): three attributes, so two of
    three are a projection of the cells; every compared group's code above its
    reference's. Each intersection's AUC row, its labels ("A & x" ...), difference and
    z-test, the constant-score note (one group's scores all 0.5) and error (both groups'),
    equal the memory engine's audit of the rows. Written for the never-executed lines of
    the summaries' DeLong rows of intersections (the kind of round-3 mutant
    r3-audsum-shown-unsorted)."""
    import fastfair.auc
    import fastfair.auc.inference

    for module in (fastfair.auc, fastfair.auc.inference):
        monkeypatch.setattr(module, "ASYMPTOTIC_MIN_CLASS", 40)
    path = tmp_path / "three.parquet"
    _three_attributes_frame(flat).to_parquet(path, row_group_size=500, index=False)
    kw = dict(data=str(path), y_score="s", metrics=["tpr"], intersections=True,
              random_state=1, n_jobs=1)  # fmt: skip
    memory = fastfair.audit("label", "prediction", ["a", "b", "c"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["a", "b", "c"], engine="arrow", **kw)
    aucs = [t for t in memory.tests if t["family"] == "auc"]
    assert {t["attribute"] for t in aucs} >= {"a & b", "a & c", "b & c", "a & b & c"}
    if flat != "both":
        assert {t["method"] for t in aucs} == {"delong"}
    triple = [t for t in aucs if t["attribute"] == "a & b & c"]
    assert {t["reference"] for t in triple} == {"A & x & p"} and len(triple) == 7
    if flat == "one":
        row = next(t for t in triple if t["group"] == "B & y & q")
        assert "every score of 'B & y & q' is the same" in row["note"]
    if flat == "both":
        assert all("is the same" in t["error"] for t in aucs)
    else:
        signs = {t["group"]: np.sign(t["difference"]) for t in triple}
        assert signs["B & x & p"] == signs["B & y & p"] == -1  # the reference's AUC is higher
    same_audit(memory.to_dict(), other.to_dict())


def _blank_label_frame(n=400):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "score": rng.random(n).round(3),
            "g": rng.choice(["a", "b"], n),
            "h": rng.choice(["x", "y"], n),
        }
    )
    frame.loc[7, "g"] = ""
    return frame


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_a_blank_label_is_named_as_group_for_one_attribute_and_by_column_for_several(
    tmp_path, engine
):
    """A blank group label (a blank cell) is refused by every engine, counting its one row;
    the message calls the column "group" when the audit has one attribute, and names the
    column ("group column 'g'") when it has several. Written for practice mutants
    pprac5-code-groups-named and pprac5-arrow-named-one (the column named for one too)."""
    path = tmp_path / "blank.parquet"
    _blank_label_frame().to_parquet(path, index=False)
    kw = dict(y_score="score", data=str(path), engine=engine, n_permutations=99,
              metrics=["tpr"], scheduler="sync")  # fmt: skip
    blank = (
        r"contains empty or blank labels \(missing values, e\.g\. a blank cell of a file\) "
        r"in 1 row;"
    )
    with pytest.raises(ValueError, match=r"(: |^)group " + blank):
        fastfair.audit("label", None, ["g"], **kw)
    with pytest.raises(ValueError, match=r"group column 'g' " + blank):
        fastfair.audit("label", None, ["g", "h"], **kw)


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_predictions_from_the_score_at_the_default_threshold_on_every_engine(tmp_path, engine):
    """No prediction column: every engine predicts score >= 0.5 (scores exactly 0.5
    included), reports that threshold among the audit's columns, and its confusion cells
    are a count of the rows by hand; the audit is the memory engine's."""
    frame = _blank_label_frame().assign(g=lambda f: np.where(f.index == 7, "a", f["g"]))
    frame.loc[:40, "score"] = 0.5
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path, index=False)
    kw = dict(y_score="score", data=str(path), n_permutations=99, metrics=["tpr"],
              random_state=1, n_jobs=1)  # fmt: skip
    memory = fastfair.audit("label", None, ["g"], engine="memory", **kw)
    other = fastfair.audit("label", None, ["g"], engine=engine, scheduler="sync", **kw)
    assert other.columns["threshold"] == 0.5 == memory.columns["threshold"]
    pred = (frame["score"] >= 0.5).astype(int)
    for k, label in enumerate(["a", "b"]):
        rows = frame["g"] == label
        want = [
            int(((frame["label"] == t) & (pred == p) & rows).sum()) for t in (0, 1) for p in (0, 1)
        ]
        assert other.group_cells["g"][k].tolist() == want
    same_audit(memory.to_dict(), other.to_dict())


def test_an_audit_from_score_histograms_flags_a_group_constant_over_both_classes_only(
    monkeypatch,
):
    """The audit from exact score histograms (ScoreStats, the Spark engine's summary): a
    group whose negatives share one score while its positives vary ('a', the reference) is
    not constant, a group whose every row has one score ('c') is; each AUC row (note,
    decision, DeLong p-value) equals the rows' audit's, which looks at the rows."""
    import fastfair.auc
    import fastfair.auc.inference
    from fastfair.auditing.summaries import audit_from_summary
    from fastfair.engines.attributes import summarise_rows

    for module in (fastfair.auc, fastfair.auc.inference):
        monkeypatch.setattr(module, "ASYMPTOTIC_MIN_CLASS", 20)
    rng = np.random.default_rng(6)
    g = np.repeat(["a", "b", "c"], 100)
    y = np.tile([0, 1], 150)
    s = rng.integers(1, 20, 300) / 20
    s[(g == "a") & (y == 0)] = 0.25
    s[g == "c"] = 0.5
    assert len(np.unique(s[g == "a"])) > 1 and len(np.unique(s[g == "c"])) == 1
    pred = (s >= 0.5).astype(int)
    summary = summarise_rows(y, pred, s, {"g": g})
    assert type(summary.scores[("g",)]).__name__ == "ScoreStats"
    settings = dict(
        alpha=0.05, tau=0.05, power=0.8, adjust="holm", n_permutations=None, metrics=["tpr"],
        random_state=0, n_jobs=1, intersections=False, min_group_size=10, tolerance=None,
        equivalence=None, slices=None,
    )  # fmt: skip
    columns = dict(label="y", pred="pred", score="s", threshold=None, cluster=None, groups=["g"])
    res = audit_from_summary(summary, engine="spark", columns=columns, **settings)
    memory = fastfair.audit(y, pred, {"g": g}, y_score=s, metrics=["tpr"], n_jobs=1)

    def auc(result):
        return {t["group"]: t for t in result.tests if t["family"] == "auc"}

    got, want = auc(res), auc(memory)
    assert set(got) == set(want) == {"b", "c"}
    for group in ("b", "c"):
        assert got[group]["method"] == want[group]["method"] == "delong"
        assert got[group].get("note") == want[group].get("note")
        assert got[group]["decision"] == want[group]["decision"] != "error"
        assert got[group]["pvalue"] == pytest.approx(want[group]["pvalue"], rel=1e-9)
    assert got["b"].get("note") is None
    assert "every score of 'c' is the same" in got["c"]["note"]


@pytest.mark.parametrize("spill_bytes", [None, 0], ids=["in memory", "spilled each batch"])
def test_arrow_summary_of_batches_whose_groups_and_scores_differ_equals_the_rows(
    tmp_path, spill_bytes
):
    """Record batches of 40 rows that differ: level "c" of g first met in the last batch,
    "z" of h only in the first, the score range growing from batch to batch (ties within
    one). The arrow engine's summary (the cube of counts; the exact AUC summary of g, of h
    and of their intersection, from sorted runs coded by the cells met so far; with
    `spill_bytes` 0 the runs met so far go to a file after every batch) against numpy on
    all the rows: each group's confusion counts, and its AUC by brute force
    (P(positive scored above negative) + half the ties)."""
    from fastfair.engines.arrow import SPILL_BYTES, summarise_arrow

    rng = np.random.default_rng(12)
    n = 200
    first, last = np.arange(n) < 40, np.arange(n) >= 160
    g = np.where(last, rng.choice(["a", "c"], n), rng.choice(["a", "b"], n))
    h = np.where(first, rng.choice(["x", "z"], n), "x")
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * (1 + np.arange(n) // 40) / 5, 2)
    frame = pd.DataFrame({"y": y, "s": s, "g": g, "h": h})
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    combos = [("g",), ("h",), ("g", "h")]
    budget = SPILL_BYTES if spill_bytes is None else spill_bytes
    total = summarise_arrow(str(path), label="y", groups=["g", "h"], pred=None, score="s",
                            threshold=0.5, pos_label=None, batch_rows=40, combos=combos,
                            spill_bytes=budget)  # fmt: skip
    yhat = s >= 0.5
    for combo in combos:
        key = [t if len(combo) > 1 else t[0] for t in zip(*(frame[c] for c in combo))]
        labels = sorted(set(key))
        conf, scores = total.confusion(list(combo)), total.scores[combo]
        assert conf.labels.tolist() == scores.labels.tolist() == labels, combo
        auc = scores.delong().auc
        for k, label in enumerate(labels):
            rows = np.array([v == label for v in key])
            counts = [((y == t) & (yhat == p) & rows).sum() for t in (0, 1) for p in (0, 1)]
            assert conf.counts[k].tolist() == counts, (combo, label)
            pos, neg = s[rows & (y == 1)], s[rows & (y == 0)]
            above = (pos[:, None] > neg).sum() + 0.5 * (pos[:, None] == neg).sum()
            assert auc[k] == pytest.approx(above / (len(pos) * len(neg)), rel=1e-12)
        # the rows read back (the AUC permutation test's), the groups in reverse order
        wanted = labels[::-1]
        got_y, got_s, index = scores.rows(wanted)
        for k, label in enumerate(wanted):
            rows = np.array([v == label for v in key])
            assert sorted(zip(got_s[index == k], got_y[index == k])) == sorted(
                zip(s[rows], y[rows])
            ), (combo, label)


@pytest.mark.parametrize("engine", ["arrow", "dask"])
@pytest.mark.parametrize("kind", ["text labels, pos_label", "labels -1 and 1"])
def test_a_file_without_a_positive_row_is_read_as_in_memory(tmp_path, engine, kind):
    """The second file holds no positive label and no positive prediction (a day without
    events): the engines check each file (partition) as a piece of the column, in the
    summaries and in the rows read back (the AUC's, parity's), so the audit is the memory
    engine's on the same files, row for row; a label column with no positive anywhere is
    refused on every engine with the memory engine's message."""
    rng = np.random.default_rng(14)
    n = 300
    if kind == "labels -1 and 1":
        values, pos_label = np.array([-1, 1]), None
    else:
        values, pos_label = np.array(["no", "yes"], dtype=object), "yes"
    y, p = values[rng.integers(0, 2, n)], values[rng.integers(0, 2, n)]
    y[200:], p[200:] = values[0], values[0]
    frame = pd.DataFrame({"y": y, "p": p, "s": rng.random(n), "g": rng.choice(["a", "b"], n)})
    frame.iloc[:200].to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.iloc[200:].to_parquet(tmp_path / "part-1.parquet", index=False)
    kw = dict(data=str(tmp_path), pos_label=pos_label, y_score="s", **OPTIONS)
    extra = {"scheduler": "sync"} if engine == "dask" else {}
    memory = fastfair.audit("y", "p", ["g"], engine="memory", **kw)
    other = fastfair.audit("y", "p", ["g"], engine=engine, **kw, **extra)
    same_audit(memory.to_dict(), other.to_dict())
    if pos_label is None:
        return
    frame.iloc[200:].to_parquet(tmp_path / "part-0.parquet", index=False)  # no "yes" at all
    for chosen in ("memory", engine):
        with pytest.raises(ValueError, match=r"^pos_label='yes' does not occur in label column "
                                             r"'y'"):  # fmt: skip
            fastfair.audit("y", "p", ["g"], engine=chosen, **kw,
                           **(extra if chosen == engine else {}))  # fmt: skip


@pytest.mark.parametrize("engine", ["arrow", "dask"])
@pytest.mark.parametrize("column", ["y", "p"])
def test_a_third_value_alone_in_one_file_is_refused_as_in_memory(tmp_path, engine, column):
    """The first file holds 'no' and 'yes', the second only 'maybe' (in the label or the
    prediction column): each file alone is binary, the column is not. Every engine refuses
    it, naming the column and its three values (arrow and dask used to read 'maybe' as a
    negative label or prediction)."""
    rng = np.random.default_rng(15)
    n = 200
    values = np.array(["no", "yes"], dtype=object)
    frame = pd.DataFrame({"y": values[rng.integers(0, 2, n)], "p": values[rng.integers(0, 2, n)],
                          "g": rng.choice(["a", "b"], n)})  # fmt: skip
    frame.loc[150:, column] = "maybe"
    frame.iloc[:150].to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.iloc[150:].to_parquet(tmp_path / "part-1.parquet", index=False)
    message = f"column '{column}' must be binary.*'maybe', 'no', 'yes'"
    kw = dict(data=str(tmp_path), pos_label="yes", **OPTIONS)
    for chosen, extra in (
        ("memory", {}),
        (engine, {"scheduler": "sync"} if engine == "dask" else {}),
    ):
        with pytest.raises(ValueError, match=message):
            fastfair.audit("y", "p", ["g"], engine=chosen, **kw, **extra)


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_an_empty_file_and_a_file_of_an_untested_group_are_read_as_in_memory(tmp_path, engine):
    """Four files: rows, an empty file (a day without rows), rows, and a file holding
    only a small group that no test compares (its rows below min_group_size): the empty
    and the untested pieces add nothing, and the audit with a score (AUC rows read back,
    parity) is the memory engine's on the same files, row for row."""
    rng = np.random.default_rng(17)
    n = 300
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n),
            "g": rng.choice(["a", "b"], n),
        }
    )
    frame.iloc[:150].to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.iloc[:0].to_parquet(tmp_path / "part-1.parquet", index=False)
    frame.iloc[150:].to_parquet(tmp_path / "part-2.parquet", index=False)
    frame.iloc[:6].assign(g="tiny").to_parquet(tmp_path / "part-3.parquet", index=False)
    kw = dict(data=str(tmp_path), y_score="s", **OPTIONS)
    extra = {"scheduler": "sync"} if engine == "dask" else {}
    memory = fastfair.audit("y", "p", ["g"], engine="memory", **kw)
    other = fastfair.audit("y", "p", ["g"], engine=engine, **kw, **extra)
    assert {t["family"] for t in memory.tests} == {"confusion", "auc", "parity"}
    assert not any("error" in t for t in memory.tests)
    assert "tiny" in str(memory.to_dict()["attributes"])  # skipped: below min_group_size
    same_audit(memory.to_dict(), other.to_dict())
