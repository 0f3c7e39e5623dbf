"""fastfair.spark on a local[2] Spark session: every function against the in-memory one on
the same rows (counts and exact p-values identical, floats to 1e-12), errors naming the
column, and nothing but summaries reaching the driver.

One SparkSession serves the module (and the doctests of fastfair/spark.py, which reuse the
active session). Without pyspark or without a Java runtime the module is skipped, saying
which; ``.ci/run`` installs both.
"""

import functools
import os
import pathlib
import pickle
import runpy
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed: pip install 'fastfair[spark]'")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip(
        "Spark needs a Java runtime: apt-get install default-jre-headless",
        allow_module_level=True,
    )

import pyspark
from pyspark.sql import SparkSession

import fastfair
import fastfair.spark as fspark
import fastfair.stats
from fastfair.engines.spark import spark_delong
from fastfair.stats import ConfusionStats, ScoreStats

_HELPERS = runpy.run_path(str(pathlib.Path(__file__).with_name("_same_audit.py")))

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("fastfair-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session  # left running: the doctests of fastfair/spark.py reuse it


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(32)
    n = 5000
    g = rng.choice(["north", "south", "east"], n, p=[0.5, 0.35, 0.15])
    sex = rng.choice(["f", "m"], n)
    y = rng.integers(0, 2, n)
    raw = np.clip(0.25 * y + 0.7 * rng.random(n) + 0.05 * (g == "east"), 0, 1)
    return pd.DataFrame(
        {
            "y": y,
            "pred": (raw > 0.5).astype(int),
            "pred_b": (raw > 0.45).astype(int),
            "score": raw,  # untied float64 scores
            "rounded": np.round(raw, 2),  # many ties, some across partitions
            "grp": g,
            "sex": sex,
        }
    )


@pytest.fixture(scope="module")
def df(spark, frame):
    return spark.createDataFrame(frame).repartition(5).cache()


@pytest.mark.parametrize("method", ["exact", "monte_carlo"])
def test_permutation_test_identical(df, frame, method):
    test = functools.partial(fspark.permutation_test, df, "y", "pred", "grp")
    _HELPERS["same_permutation_tests"](test, frame, method)


def test_confusion_stats_of_intersections_identical(df, frame):
    stats = fspark.confusion_stats(df, "y", "pred", "grp", "sex")
    local = ConfusionStats.from_arrays(frame.y, frame.pred, frame.grp, frame.sex)
    assert stats.labels.tolist() == local.labels.tolist()
    np.testing.assert_array_equal(stats.counts, local.counts)


def test_confusion_cube_identical(df, frame):
    cube = fspark.confusion_cube(df, "y", "pred", "grp", "sex")
    local = fastfair.stats.ConfusionCube.from_arrays(
        frame.y, frame.pred, {"grp": frame.grp, "sex": frame.sex}
    )
    np.testing.assert_array_equal(cube.keys, local.keys)
    np.testing.assert_array_equal(cube.counts, local.counts)
    assert [v.tolist() for v in cube.levels] == [v.tolist() for v in local.levels]


@pytest.mark.parametrize("column", ["score", "rounded"])
def test_delong_and_auc_test_equal_to_1e12(df, frame, column):
    a = fspark.delong(df, "y", column, "grp")
    b = fastfair.delong(frame.y, frame[column], frame.grp)
    assert a.groups.tolist() == b.groups.tolist()
    np.testing.assert_array_equal(a.n_pos, b.n_pos)
    np.testing.assert_array_equal(a.n_neg, b.n_neg)
    for name in ("auc", "variance", "s10", "s01"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=0)
    t = fspark.auc_test(df, "y", column, "grp", reference="north")
    r = fastfair.auc_test(frame.y, frame[column], frame.grp, method="delong", reference="north")
    np.testing.assert_allclose(t.statistic, r.statistic, rtol=1e-12)
    np.testing.assert_allclose(t.pvalue, r.pvalue, rtol=1e-12)
    np.testing.assert_array_equal(t.group_n_pos, r.group_n_pos)


def test_delong_of_several_attributes_from_one_sort(df, frame):
    """The audit's AUC summaries: every attribute and intersection from one range sort."""
    from fastfair.engines.spark import delong_by_sort

    counted = [ConfusionStats.from_arrays(frame.y, frame.y, frame.grp),
               ConfusionStats.from_arrays(frame.y, frame.y, frame.grp, frame.sex)]  # fmt: skip
    one, both = delong_by_sort(df, "y", "score", [("grp",), ("grp", "sex")], counted)
    ref = fastfair.delong(frame.y, frame.score, frame.grp)
    np.testing.assert_allclose(one.auc, ref.auc, rtol=1e-12)
    ref = fastfair.delong(frame.y, frame.score, frame.grp + " & " + frame.sex)
    assert [" & ".join(g) for g in both.groups.tolist()] == ref.groups.tolist()
    np.testing.assert_allclose(both.auc, ref.auc, rtol=1e-12)
    np.testing.assert_allclose(both.variance, ref.variance, rtol=1e-12)


def test_delong_ties_at_zero_and_minus_zero(spark):
    """-0.0 and 0.0 are one score in memory; Spark's range partitioning must not split them."""
    rng = np.random.default_rng(5)
    n = 3000
    s = np.where(rng.random(n) < 0.3, 0.0, rng.random(n).round(1))
    s[rng.random(n) < 0.5 * (s == 0)] = -0.0
    data = pd.DataFrame({"y": rng.integers(0, 2, n), "s": s, "g": rng.choice(["a", "b"], n)})
    a = fspark.delong(spark.createDataFrame(data).repartition(4), "y", "s", "g")
    b = fastfair.delong(data.y, data.s, data.g)
    np.testing.assert_allclose(a.auc, b.auc, rtol=1e-12)
    np.testing.assert_allclose(a.variance, b.variance, rtol=1e-12)


def test_score_stats_identical_and_binned(df, frame):
    stats = fspark.score_stats(df, "y", "rounded", "grp")
    local = ScoreStats.from_arrays(frame.y, frame.rounded, frame.grp)
    np.testing.assert_array_equal(stats.values, local.values)
    np.testing.assert_array_equal(stats.counts, local.counts)
    binned = fspark.delong(df, "y", "score", "grp", resolution=0.05)
    ref = ScoreStats.from_arrays(frame.y, frame.score, frame.grp, resolution=0.05).delong()
    np.testing.assert_allclose(binned.auc, ref.auc, rtol=1e-12)


def test_paired_stats_and_compare_models_identical(df, frame):
    stats = fspark.paired_stats(df, "y", "pred", "pred_b", "grp")
    local = fastfair.compare.PairedStats.from_arrays(frame.y, frame.pred, frame.pred_b, frame.grp)
    np.testing.assert_array_equal(stats.counts, local.counts)
    a = fspark.compare_models(df, "y", "pred", "pred_b", "grp", metric="tpr", random_state=3)
    b = fastfair.compare_models(
        frame.y, frame.pred, frame.pred_b, frame.grp, metric="tpr", random_state=3
    )
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    np.testing.assert_array_equal(a.statistic, b.statistic)


def test_pos_label_with_text_labels(spark):
    data = pd.DataFrame(
        {"y": ["yes", "no", "yes", "no"] * 50, "p": ["yes", "yes", "no", "no"] * 50,
         "g": ["a"] * 100 + ["b"] * 100}
    )  # fmt: skip
    df = spark.createDataFrame(data).repartition(3)
    a = fspark.confusion_stats(df, "y", "p", "g", pos_label="yes")
    b = ConfusionStats.from_arrays(data.y, data.p, data.g, pos_label="yes")
    np.testing.assert_array_equal(a.counts, b.counts)


def _halves(spark, data):
    """The rows in two partitions: the first half, then the second (parallelize slices a
    list into contiguous pieces)."""
    rows = spark.sparkContext.parallelize(data.to_records(index=False).tolist(), 2)
    return spark.createDataFrame(rows, list(data.columns))


def _text_labels(n=120, seed=33):
    rng = np.random.default_rng(seed)
    values = np.array(["no", "yes"], dtype=object)
    data = pd.DataFrame({c: values[rng.integers(0, 2, n)] for c in ("y", "p", "q")})
    data["s"], data["g"] = np.round(rng.random(n), 3), rng.choice(["a", "b"], n)
    data.loc[n // 2 :, ["y", "p", "q"]] = "no"  # the second partition: no positive
    return data


#: Each partition pass of fastfair.spark with a binary column, pos_label "yes".
BINARY_CALLS = {
    "confusion_stats": lambda d: fspark.confusion_stats(d, "y", "p", "g", pos_label="yes"),
    "confusion_cube": lambda d: fspark.confusion_cube(d, "y", "p", "g", pos_label="yes"),
    "score_stats": lambda d: fspark.score_stats(d, "y", "s", "g", pos_label="yes"),
    "spark_delong": lambda d: spark_delong(d, "y", "s", "g", pos_label="yes"),
    "paired_stats": lambda d: fspark.paired_stats(d, "y", "p", "q", "g", pos_label="yes"),
}


def test_a_partition_without_a_positive_is_a_piece_of_the_column(spark):
    """The second partition holds no 'yes': the counts are the memory ones of all rows."""
    data = _text_labels()
    df = _halves(spark, data)
    assert [set(p) for p in df.select("y").rdd.map(lambda r: r.y).glom().collect()] == [
        {"no", "yes"}, {"no"}
    ]  # fmt: skip
    got = BINARY_CALLS["confusion_stats"](df)
    want = ConfusionStats.from_arrays(data.y, data.p, data.g, pos_label="yes")
    np.testing.assert_array_equal(got.counts, want.counts)
    got = BINARY_CALLS["paired_stats"](df)
    want = fastfair.compare.PairedStats.from_arrays(data.y, data.p, data.q, data.g,
                                                    pos_label="yes")  # fmt: skip
    np.testing.assert_array_equal(got.counts, want.counts)


@pytest.mark.parametrize("call", sorted(BINARY_CALLS))
def test_a_third_value_alone_in_one_partition_is_refused_on_spark(spark, call):
    """The second partition's labels are all 'maybe': each partition is binary, the
    column is not; refused naming the column and its three values (it used to count
    'maybe' as a negative)."""
    data = _text_labels()
    data.loc[60:, "y"] = "maybe"
    message = r"^column 'y' must be binary, got 3 distinct values \('maybe', 'no', 'yes'\)$"
    with pytest.raises(ValueError, match=message):
        BINARY_CALLS[call](_halves(spark, data))


@pytest.mark.parametrize("call", ["confusion_stats", "score_stats", "spark_delong"])
def test_a_positive_label_in_no_partition_is_refused_on_spark(spark, call):
    """No 'yes' label anywhere: refused as the memory summaries refuse it (a partition
    alone may lack it, the column may not)."""
    data = _text_labels()
    data["y"] = "no"
    message = r"^pos_label='yes' does not occur in column 'y'; its values are \['no'\]$"
    with pytest.raises(ValueError, match=message):
        BINARY_CALLS[call](_halves(spark, data))


def _bad(spark, frame, column, value, rows=(17, 4200)):
    data = frame.copy()
    data[column] = data[column].astype(object)
    for i in rows:
        data.loc[i, column] = value
    return spark.createDataFrame(data).repartition(3)


#: One call per way a summary is built (auc_test is delong's; score_stats and
#: confusion_stats are permutation_test's partition pass with another summary).
CALLS = {
    "permutation_test": lambda d, y: fspark.permutation_test(d, y, "pred", "grp"),
    "delong": lambda d, y: fspark.delong(d, y, "score", "grp"),
    "compare_models": lambda d, y: fspark.compare_models(d, y, "pred", "pred_b", "grp"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_missing_column_is_named(df, call):
    with pytest.raises(ValueError, match="no column 'label' in the Spark DataFrame"):
        CALLS[call](df, "label")


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_null_label_is_named(spark, frame, call):
    bad = _bad(spark, frame, "y", None)
    with pytest.raises(ValueError, match=r"partition \d+: column 'y' contains missing values"):
        CALLS[call](bad, "y")


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_non_binary_label_is_named(spark, frame, call):
    bad = _bad(spark, frame, "y", 2, rows=(4200,))
    with pytest.raises(ValueError, match=r"column 'y' must be binary, got 3 distinct values"):
        CALLS[call](bad, "y")


def test_null_group_and_score_are_named(spark, frame):
    with pytest.raises(ValueError, match="column 'grp'"):
        fspark.permutation_test(_bad(spark, frame, "grp", None), "y", "pred", "grp")
    bad = frame.assign(score=frame.score.where(frame.index != 30))  # a NaN score
    with pytest.raises(ValueError, match="column 'score' contains NaN"):
        fspark.delong(spark.createDataFrame(bad), "y", "score", "grp")


def test_not_a_spark_dataframe(frame):
    with pytest.raises(TypeError, match=r"pyspark\.sql\.DataFrame"):
        fspark.permutation_test(frame, "y", "pred", "grp")


def test_no_rows_and_undefined_auc(spark, frame):
    empty = spark.createDataFrame(frame).limit(0)
    with pytest.raises(ValueError, match="the Spark DataFrame has no rows"):
        fspark.permutation_test(empty, "y", "pred", "grp")
    one_label = spark.createDataFrame(frame[frame.y == 1])
    with pytest.raises(ValueError, match="has no negatives, so its AUC is undefined"):
        fspark.delong(one_label, "y", "score", "grp")


def test_only_summaries_reach_the_driver(spark, monkeypatch):
    """No DataFrame is collected, and what the RDD actions bring to the driver is
    O(groups x partitions), not O(rows): untied scores of 20,000 rows (a score histogram
    would be ~500 kB) cross as a few kB."""
    rng = np.random.default_rng(1)
    n = 20_000
    data = pd.DataFrame(
        {"y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n), "s": rng.random(n),
         "g": rng.choice(["a", "b"], n)}
    )  # fmt: skip
    df = spark.createDataFrame(data).repartition(6)
    from pyspark.sql import DataFrame

    for name in ("collect", "toPandas", "toArrow", "toLocalIterator", "take", "head"):
        monkeypatch.setattr(DataFrame, name, _refuse(name), raising=False)
    received = []
    collect = pyspark.RDD.collect

    def measured(self):
        out = collect(self)
        received.append(len(pickle.dumps(out)))
        return out

    monkeypatch.setattr(pyspark.RDD, "collect", measured)
    res = fspark.delong(df, "y", "s", "g")
    test = fspark.permutation_test(df, "y", "p", "g", metric="tpr")
    assert received and max(received) < 20_000, received
    ref = fastfair.delong(data.y, data.s, data.g)
    np.testing.assert_allclose(res.auc, ref.auc, rtol=1e-12)
    assert test.pvalue == fastfair.permutation_test(data.y, data.p, data.g, metric="tpr").pvalue


def _refuse(name):
    def refuse(*args, **kwargs):
        raise AssertionError(f"DataFrame.{name} called: rows would reach the driver")

    return refuse


@pytest.mark.parametrize("clustered", [True, False])
def test_parity_sums_by_user_equal_the_in_memory_test(spark, clustered):
    """The rows range-partitioned on the user column (spark_clusters) give the in-memory
    predictive parity test: statistics to 1e-12, the same bootstrap p-value."""
    from fastfair.engines.spark import spark_clusters
    from fastfair.parity.inference import prepared_parity_test

    rng = np.random.default_rng(7)
    n, users = 6000, 1500
    user = rng.integers(0, users, n)
    g = np.where(user % 3 == 0, "b", "a")
    s = rng.beta(2, 2, n)
    y = (rng.random(n) < np.clip(s + 0.05 * (g == "b"), 0, 1)).astype(int)
    data = pd.DataFrame({"y": y, "s": s, "g": g, "user": [f"u{u:05d}" for u in user]})
    df = spark.createDataFrame(data).repartition(4)
    cluster = "user" if clustered else None
    prep = spark_clusters(
        df, ["a", "b"], np.array(["a", "b"], dtype=object), n, label="y", group="g", score="s",
        cluster=cluster, pos_label=None,
    )  # fmt: skip
    a = prepared_parity_test(prep, grid=8, n_bootstrap=499, random_state=2)
    b = fastfair.predictive_parity_test(
        data.y, data.s, data.g, cluster=data.user if clustered else None, grid=8,
        n_bootstrap=499, random_state=2,
    )  # fmt: skip
    np.testing.assert_array_equal(prep.n_rows, [int((g == "a").sum()), int((g == "b").sum())])
    np.testing.assert_allclose(a.grid, b.grid, rtol=1e-12)
    np.testing.assert_allclose(a.curve.estimate, b.curve.estimate, rtol=1e-12)
    np.testing.assert_allclose(a.grid_statistic, b.grid_statistic, rtol=1e-10)
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-10)
    assert a.pvalue == b.pvalue


def test_parity_sums_leave_out_the_groups_not_tested(spark):
    """Rows of a group that is not tested (here "c", e.g. below the audit's minimum size)
    are left out of the user partitions' passes, not counted in a tested group: the sums
    give the in-memory test on the rows of "a" and "b" alone. Written for round-4 mutant
    r4-spark-untested-group-zero (such rows coded as the first tested group)."""
    from fastfair.engines.spark import spark_clusters
    from fastfair.parity.inference import prepared_parity_test

    rng = np.random.default_rng(8)
    n, users = 4000, 1000
    user = rng.integers(0, users, n)
    g = np.array(["a", "b", "c"])[user % 3]
    s = rng.beta(2, 2, n)
    y = (rng.random(n) < np.clip(s + 0.3 * (g == "c"), 0, 1)).astype(int)
    data = pd.DataFrame({"y": y, "s": s, "g": g, "user": [f"u{u:05d}" for u in user]})
    df = spark.createDataFrame(data).repartition(3)
    tested = np.array(["a", "b"], dtype=object)
    prep = spark_clusters(
        df, ["a", "b"], tested, int((g != "c").sum()), label="y", group="g", score="s",
        cluster="user", pos_label=None,
    )  # fmt: skip
    np.testing.assert_array_equal(prep.n_rows, [int((g == "a").sum()), int((g == "b").sum())])
    a = prepared_parity_test(prep, grid=8, n_bootstrap=199, random_state=2)
    kept = data[data.g != "c"]
    b = fastfair.predictive_parity_test(
        kept.y, kept.s, kept.g, cluster=kept.user, grid=8, n_bootstrap=199, random_state=2
    )
    np.testing.assert_allclose(a.curve.estimate, b.curve.estimate, rtol=1e-12)
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-10)
    assert a.pvalue == b.pvalue


def test_parity_user_in_two_groups_is_named(spark):
    from fastfair.engines.spark import spark_clusters

    data = pd.DataFrame(
        {"y": [1, 0, 1, 0] * 10, "s": np.linspace(0.1, 0.9, 40),
         "g": ["a", "b"] * 20, "user": ["u1", "u1", "u2", "u3"] * 10}
    )  # fmt: skip
    message = "cluster 'u1' of the cluster column 'user' has rows in group 'a' and in group 'b'"
    with pytest.raises(ValueError, match=message):
        spark_clusters(
            spark.createDataFrame(data), ["a", "b"], np.arange(2), 40, label="y", group="g",
            score="s", cluster="user", pos_label=None,
        )  # fmt: skip


# --------------------------------------------------------------------------------------
# fastfair.audit(engine="spark") and fastfair audit --engine spark

DEMO = pathlib.Path(fastfair.__file__).with_name("data") / "adult_demo.csv"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    data = pd.read_csv(DEMO)
    data["user"] = _HELPERS["nested_users"](data)  # text ids, each user in one group
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    data.to_parquet(path, row_group_size=4096, index=False)
    return data, str(path)


def test_audit_on_spark_equals_the_memory_engine(spark, demo):
    """Two attributes, their intersections, a score and users (text ids) on the active
    local[2] session: the whole audit as the memory engine's (counts and exact and
    Monte-Carlo p-values identical, floats to 1e-12; the AUC permutation tests on the
    compared groups' rows read back, #27)."""
    _, path = demo
    kw = dict(y_score="score", data=path, cluster="user", intersections=True,
              n_permutations=199, random_state=1, n_jobs=1)  # fmt: skip
    args = ("label", "prediction", ["sex", "race"])
    memory = fastfair.audit(*args, engine="memory", **kw)
    other = fastfair.audit(*args, engine="spark", **kw)
    assert other.engine == "spark"
    assert {t["attribute"] for t in other.tests} == {"sex", "race", "sex & race"}
    parity = [t for t in other.tests if t["family"] == "parity"]
    assert len(parity) == 3 and not any(t.get("error") for t in parity)
    _HELPERS["same_audit"](memory.to_dict(), other.to_dict())
    for name, cells in memory.group_cells.items():
        np.testing.assert_array_equal(cells, other.group_cells[name])


def test_audit_slices_on_spark_equal_the_memory_engine(spark, demo):
    """#29: the slice search of the audit reads the cube Spark built: the memory engine's."""
    _, path = demo
    kw = dict(data=path, slices=2, n_permutations=199, random_state=1, n_jobs=1)
    memory = fastfair.audit("label", "prediction", ["sex", "race"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["sex", "race"], engine="spark", **kw)
    assert other.engine == "spark" and other.slices.found
    assert other.slices.to_dict() == memory.slices.to_dict()


def test_cli_engine_spark(spark, demo, tmp_path, capsys):
    """`fastfair audit --engine spark` (the active session: --master is not used then);
    --master alone implies the engine, with another engine it is refused."""
    from fastfair.cli import main

    _, path = demo
    out = tmp_path / "audit.json"
    code = main(["audit", path, "--label", "label", "--pred", "prediction", "--group", "sex",
                 "--master", "local[2]", "--json", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    import json

    result = json.loads(out.read_text())
    assert result["engine"] == "spark"
    code = main(["audit", path, "--label", "label", "--pred", "prediction", "--group", "sex",
                 "--engine", "arrow", "--master", "local[2]"])  # fmt: skip
    assert code == 2
    assert "--master needs --engine spark" in capsys.readouterr().err


def test_an_auc_of_exactly_one_half_is_not_a_constant_score(spark, tmp_path):
    """Group F's positives and negatives have the same 1,000 distinct scores, so its AUC is
    exactly 0.5 although its scores vary: Spark's DeLong summary must not call it all-tied
    (no constant-score note), and the audit (DeLong's z-test, 1,000 rows in each class) is
    the memory engine's. Written for round-3 mutant r3-spark-all-tied-auc-only (an AUC of
    0.5 alone taken as all-tied)."""
    frame = _HELPERS["half_auc_frame"]()
    path = tmp_path / "half.parquet"
    frame.to_parquet(path, index=False)
    kw = dict(data=str(path), y_score="s", metrics=["tpr"], random_state=1, n_jobs=1)
    memory = fastfair.audit("label", "prediction", ["g"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["g"], engine="spark", **kw)
    (auc,) = [t for t in other.tests if t["family"] == "auc"]
    assert auc["method"] == "delong" and auc["value_reference"] == 0.5
    assert "constant score" not in (auc.get("note") or "")
    _HELPERS["same_audit"](memory.to_dict(), other.to_dict())


def test_an_untested_group_between_tested_ones(spark, tmp_path):
    """As tests/test_audit_engines.py's twin: group "b" (12 rows, below min_group_size)
    between tested groups; the whole audit on Spark (confusion tests, AUC permutations on
    the rows read back, clustered parity) equals the memory engine's."""
    frame = _HELPERS["untested_group_frame"]()
    path = tmp_path / "untested.parquet"
    frame.to_parquet(path, index=False)
    kw = dict(data=str(path), y_score="s", cluster="user", min_group_size=30,
              n_permutations=199, random_state=1, n_jobs=1)  # fmt: skip
    memory = fastfair.audit("label", "prediction", ["g"], engine="memory", **kw)
    other = fastfair.audit("label", "prediction", ["g"], engine="spark", **kw)
    assert "b" not in {t["group"] for t in other.tests}
    _HELPERS["same_audit"](memory.to_dict(), other.to_dict())


def test_merge_keeps_the_first_partitions_failure_whatever_the_order():
    """treeAggregate merges partial results in any order: the error raised is always that
    of the lowest partition, None is the empty sum, and a sum is kept beside None."""
    from fastfair.engines.spark import _Failure, _merge

    f1, f3 = _Failure(1, ValueError("one")), _Failure(3, ValueError("three"))
    a = ConfusionStats.from_arrays([1, 0], [1, 1], ["x", "y"])
    for parts in ([f3, a, f1], [f1, f3], [a, f3, None, f1], [None, f1, f3, a]):
        total = functools.reduce(_merge, parts, None)
        assert total is f1
        total = functools.reduce(_merge, parts[::-1], None)
        assert total is f1
    assert _merge(None, a) is a and _merge(a, None) is a and _merge(None, None) is None


def test_placement_moments_of_score_ranges_equal_the_placements_of_all_rows():
    """The driver's side of the sort-based DeLong: three score ranges (ties kept within a
    range) of unequal sizes, their local moments shifted by the ranges below and merged,
    against each row's placement counted by brute force over all the rows (numpy)."""
    from fastfair.engines.spark import _local_moments, _placements

    rng = np.random.default_rng(11)
    n, K = 300, 2
    s = np.round(rng.random(n), 2)
    y = rng.integers(0, 2, n)
    g = rng.integers(0, K, n)
    cuts = [0.15, 0.8]  # ranges of about 45, 195 and 60 rows
    ranges = [s < cuts[0], (s >= cuts[0]) & (s < cuts[1]), s >= cuts[1]]
    parts = np.array([_local_moments(y[r], s[r], g[r], K) for r in ranges])
    totals = np.array(
        [[np.sum((g == k) & (y == 0)), np.sum((g == k) & (y == 1))] for k in range(K)]
    )
    got = _placements(parts, totals)
    for k in range(K):
        neg, pos = s[(g == k) & (y == 0)], s[(g == k) & (y == 1)]
        v10 = [(np.sum(neg < x) + 0.5 * np.sum(neg == x)) / len(neg) for x in pos]
        v01 = [(np.sum(pos > x) + 0.5 * np.sum(pos == x)) / len(pos) for x in neg]
        for label, v in ((1, np.array(v10)), (0, np.array(v01))):
            want = [len(v), v.mean(), ((v - v.mean()) ** 2).sum()]
            np.testing.assert_allclose(got[k, label], want, rtol=1e-12, atol=1e-12)


def test_placement_moments_of_a_group_met_only_in_the_last_score_range():
    """Score ranges that differ: group 1 has no row in the first three ranges (its
    moments there are empty: count 0, so the first merges are of two empty results), and
    group 0 none in the last (an empty result merged into a full one). Against each row's
    placement counted by brute force over all the rows (numpy)."""
    from fastfair.engines.spark import _local_moments, _placements

    rng = np.random.default_rng(12)
    s = np.round(rng.random(240), 2)
    g = (s >= 0.7).astype(np.intp)  # group 1: the scores of the last range only
    y = rng.integers(0, 2, 240)
    ranges = [s < 0.3, (s >= 0.3) & (s < 0.5), (s >= 0.5) & (s < 0.7), s >= 0.7]
    parts = np.array([_local_moments(y[r], s[r], g[r], 2) for r in ranges])
    assert (parts[:3, 1, :, 0] == 0).all() and (parts[3, 0, :, 0] == 0).all()
    totals = np.array([[np.sum((g == k) & (y == t)) for t in (0, 1)] for k in range(2)])
    got = _placements(parts, totals)
    for k in range(2):
        neg, pos = s[(g == k) & (y == 0)], s[(g == k) & (y == 1)]
        v10 = np.array([(np.sum(neg < x) + 0.5 * np.sum(neg == x)) / len(neg) for x in pos])
        v01 = np.array([(np.sum(pos > x) + 0.5 * np.sum(pos == x)) / len(pos) for x in neg])
        for label, v in ((1, v10), (0, v01)):
            want = [len(v), v.mean(), ((v - v.mean()) ** 2).sum()]
            np.testing.assert_allclose(got[k, label], want, rtol=1e-12, atol=1e-12)


def test_per_partition_values_merged_in_any_order_keep_every_partition():
    """treeAggregate merges the partitions' _ByPartition values in any grouping and order:
    the result holds each partition's own value under its index, read back in partition
    order (the driver sorts the indexes), whatever the order of the merges; an empty
    partition (None) adds nothing."""
    import itertools as it

    from fastfair.engines.spark import _ByPartition, _merge

    parts = [_ByPartition({pid: f"value of {pid}"}) for pid in (3, 0, 2, 5)]
    for order in it.permutations([*parts, None]):
        total = functools.reduce(_merge, order, None)
        assert sorted(total.values) == [0, 2, 3, 5]
        assert all(total.values[p] == f"value of {p}" for p in total.values)
    left = _merge(_merge(parts[0], parts[1]), _merge(parts[2], parts[3]))
    right = _merge(parts[3], _merge(parts[2], _merge(parts[1], parts[0])))
    assert left.values == right.values


@pytest.mark.parametrize("resolution", [0.0, -0.01, float("nan")])
def test_a_resolution_that_is_not_positive_is_refused_by_spark(spark, frame, resolution):
    """score_stats' bin width must be positive (0 included: no bins), as the memory summary
    and the dask engine refuse it; refused before any Spark job, naming the value."""
    df = spark.createDataFrame(frame.head(20))
    with pytest.raises(ValueError, match=r"^resolution must be positive, got "):
        fspark.score_stats(df, "y", "score", "grp", resolution=resolution)
    with pytest.raises(ValueError, match="resolution"):
        ScoreStats.from_arrays(frame.y, frame.score, frame.grp, resolution=resolution)
    got = fspark.score_stats(df, "y", "score", "grp", resolution=1e-9)  # the first width taken
    want = ScoreStats.from_arrays(frame.y[:20], frame.score[:20], frame.grp[:20], resolution=1e-9)
    np.testing.assert_array_equal(got.counts, want.counts)
