"""fastfair.dask on a real dask.distributed LocalCluster with two worker processes."""

import functools
import pathlib
import re
import runpy

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import fastfair  # noqa: E402
import fastfair.cli  # noqa: E402
import fastfair.dask as fdask  # noqa: E402
import fastfair.stats  # noqa: E402

_HELPERS = runpy.run_path(str(pathlib.Path(__file__).with_name("_same_audit.py")))


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(11)
    n = 6000
    g = rng.choice(["north", "south", "east"], n)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.25 * y + 0.7 * rng.random(n) + 0.05 * (g == "east"), 0, 1), 4)
    return pd.DataFrame({"y": y, "pred": (score > 0.5).astype(int), "score": score, "grp": g})


def test_workers_are_processes(client):
    assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.parametrize("method", ["exact", "monte_carlo"])
def test_permutation_test_identical_on_the_cluster(client, frame, method):
    df = dd.from_pandas(frame, npartitions=5)
    test = functools.partial(fdask.permutation_test, df, "y", "pred", "grp")
    _HELPERS["same_permutation_tests"](test, frame, method)


def test_auc_on_the_cluster(client, frame):
    df = dd.from_pandas(frame, npartitions=4)
    a = fdask.auc_test(df, "y", "score", "grp")
    b = fastfair.auc_test(frame.y, frame.score, frame.grp, method="delong")
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-12)
    np.testing.assert_allclose(a.pvalue, b.pvalue, rtol=1e-12)
    np.testing.assert_array_equal(a.group_n_pos, b.group_n_pos)
    d = fdask.delong(df, "y", "score", "grp")
    np.testing.assert_allclose(
        d.variance, fastfair.delong(frame.y, frame.score, frame.grp).variance, rtol=1e-12
    )


def test_exact_auc_of_float_scores_on_the_cluster(client, frame):
    # untied float64 scores: dask sorts the rows on the workers, the client adds the
    # partitions' placement sums (#28); the sums are the integers of one sort of the rows
    rng = np.random.default_rng(12)
    floats = frame.assign(score=frame.score + 1e-6 * rng.random(len(frame)))
    df = dd.from_pandas(floats, npartitions=6)
    sums = fdask.placement_sums(df, "y", "score", "grp")
    one = fastfair.stats.ScoreRuns.from_arrays(floats.y, floats.score, floats.grp).placements()
    assert (sums.pos_sum, sums.pos_squares) == (one.pos_sum, one.pos_squares)
    assert (sums.neg_sum, sums.neg_squares) == (one.neg_sum, one.neg_squares)
    a = fdask.auc_test(df, "y", "score", "grp")
    b = fastfair.auc_test(floats.y, floats.score, floats.grp, method="delong")
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-12)
    np.testing.assert_allclose(a.pvalue, b.pvalue, rtol=1e-12)


def test_intersections_on_the_cluster(client, frame):
    frame = frame.assign(sex=np.where(np.arange(len(frame)) % 3 == 0, "f", "m"))
    stats = fdask.confusion_stats(dd.from_pandas(frame, npartitions=3), "y", "pred", "grp", "sex")
    local = fastfair.stats.ConfusionStats.from_arrays(frame.y, frame.pred, frame.grp, frame.sex)
    assert stats.labels.tolist() == local.labels.tolist()
    np.testing.assert_array_equal(stats.counts, local.counts)


def test_errors_name_the_partition(client, frame):
    bad = frame.copy()
    bad.loc[4500, "y"] = 2
    with pytest.raises(ValueError, match=r"partition 3: y_true must be binary"):
        fdask.permutation_test(dd.from_pandas(bad, npartitions=4), "y", "pred", "grp")
    bad = frame.astype({"grp": object})
    bad.loc[10, "grp"] = None
    with pytest.raises(ValueError, match=r"partition 0: group contains missing"):
        fdask.permutation_test(dd.from_pandas(bad, npartitions=4), "y", "pred", "grp")
    with pytest.raises(ValueError, match="no column 'label'"):
        fdask.permutation_test(dd.from_pandas(frame, npartitions=2), "label", "pred", "grp")


def test_cli_on_the_cluster(client, frame, tmp_path, capsys):
    for i in range(3):
        frame.iloc[i * 2000 : (i + 1) * 2000].to_parquet(tmp_path / f"p{i}.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "y", "--pred", "pred", "--group", "grp"]
    argv += ["--quiet", "--metrics", "tpr", "--json", str(tmp_path / "a.json")]
    address = client.scheduler.address
    assert fastfair.cli.main([*argv, "--scheduler", address]) == 0, capsys.readouterr().err
    capsys.readouterr()
    import json

    rows = json.loads((tmp_path / "a.json").read_text())["tests"]
    res = fastfair.permutation_test(frame.y, frame.pred, frame.grp, metric="tpr", random_state=0)
    assert [t["pvalue"] for t in rows] == np.atleast_1d(res.pvalue).tolist()


def test_partitions_of_one_row_after_the_sort_count_their_row(tmp_path):
    """Ten rows in ten partitions (or ten files): dask's sort by score leaves partitions
    of one row (and maybe empty ones); every row still counts, as fastfair.delong on the
    rows (counted by hand: a has 2 negatives and 3 positives, b 3 and 2)."""
    from fastfair.engines.dask import summarise_dask

    frame = pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 0, 1, 0, 0, 1],
            "s": [0.91, 0.12, 0.55, 0.34, 0.78, 0.6, 0.23, 0.47, 0.05, 0.83],
            "g": ["a", "a", "a", "b", "a", "b", "b", "a", "b", "b"],
        }
    )
    want = fastfair.delong(frame.y, frame.s, frame.g)
    df = dd.from_pandas(frame, npartitions=10)
    sums = fdask.placement_sums(df, "y", "s", "g", scheduler="sync")
    for k in range(10):  # the audit's engine: ten files of one row
        frame.iloc[k : k + 1].to_parquet(tmp_path / f"part-{k}.parquet", index=False)
    audit = summarise_dask(tmp_path, label="y", groups=["g"], pred=None, score="s",
                           threshold=0.5, pos_label=None, scheduler="sync")  # fmt: skip
    for got in (sums, audit.scores[("g",)]):
        assert got.n_neg.tolist() == [2, 3] and got.n_pos.tolist() == [3, 2]
        np.testing.assert_allclose(got.delong().auc, want.auc, rtol=1e-12)
        np.testing.assert_allclose(got.delong().variance, want.variance, rtol=1e-12)


@pytest.mark.parametrize("resolution", [0.0, -0.05, float("nan")])
def test_a_resolution_that_is_not_positive_is_refused_by_the_dask_engine(frame, resolution):
    """The dask engine's binned AUC summary refuses a bin width that is not positive, as
    ScoreStats does on the rows (a partition's error, naming the resolution); a positive
    width gives ScoreStats' DeLong AUCs of the rows."""
    df = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="resolution must be positive"):
        fdask.delong(df, "y", "score", "grp", resolution=resolution, scheduler="sync")
    if resolution == 0.0:
        got = fdask.delong(df, "y", "score", "grp", resolution=0.05, scheduler="sync")
        want = fastfair.stats.ScoreStats.from_arrays(
            frame.y, frame.score, frame.grp, resolution=0.05
        ).delong()
        np.testing.assert_allclose(got.auc, want.auc, rtol=1e-12)


def test_user_frames_number_every_row_by_its_place_in_the_files(tmp_path):
    """Three files of 7, 1 and 12 rows shuffled on the user column: each row's ``_row``
    (by which the parity passes order a user's rows as in memory) is its position in the
    files read one after another, the rows a permutation of 0..19 read back from it."""
    import dask

    from fastfair.engines.dask import dask_user_frames

    rng = np.random.default_rng(3)
    n = 20
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": rng.permutation(n) / n,
            "g": rng.choice(["a", "b"], n),
            "u": rng.integers(0, 5, n),
        }
    )
    for i, (a, b) in enumerate(((0, 7), (7, 8), (8, n))):
        frame.iloc[a:b].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    parts = dask_user_frames(tmp_path, label="y", score="s", groups=["g"], cluster="u",
                             scheduler="sync")  # fmt: skip
    got = pd.concat(dask.compute(*parts, scheduler="sync")).reset_index()
    assert sorted(got["_row"].tolist()) == list(range(n))
    back = frame.iloc[got["_row"].to_numpy()]
    for column in ("y", "s", "g", "u"):
        assert got[column].tolist() == back[column].tolist(), column


@pytest.mark.parametrize("n_files", [2, 3])
def test_exact_auc_of_several_parquet_files_equals_the_rows(tmp_path, n_files):
    """Two or three Parquet files of four columns, scores spread over each: dask fuses the
    files' partitions when it reads the score column alone (its check for partitions
    already sorted then saw one and sorted each file alone, and the chained sums refused
    the overlap). The audit engine's and placement_sums' DeLong results equal
    fastfair.delong on all the rows."""
    from fastfair.engines.dask import summarise_dask

    rng = np.random.default_rng(15)
    n = 300
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": rng.random(n),
            "g": rng.choice(["a", "b"], n),
            "other": rng.random(n),
        }
    )
    for k, part in enumerate(np.array_split(np.arange(n), n_files)):
        frame.iloc[part].to_parquet(tmp_path / f"part-{k}.parquet", index=False)
    want = fastfair.delong(frame.y, frame.s, frame.g)
    audit = summarise_dask(tmp_path, label="y", groups=["g"], pred=None, score="s",
                           threshold=0.5, pos_label=None, scheduler="sync")  # fmt: skip
    df = dd.read_parquet(sorted(str(p) for p in tmp_path.iterdir()))
    sums = fdask.placement_sums(df, "y", "s", "g", scheduler="sync")
    for got in (audit.scores[("g",)].delong(), sums.delong()):
        np.testing.assert_allclose(got.auc, want.auc, rtol=1e-12)
        np.testing.assert_allclose(got.variance, want.variance, rtol=1e-12)


def test_summaries_of_a_frame_with_an_empty_partition_equal_the_rows():
    """A filter empties the middle partition (or all of them): the empty partition adds
    nothing to the counts, histograms and placement sums, which equal the summaries of
    the rows kept; a frame with no row left is refused as such."""
    rng = np.random.default_rng(16)
    n = 300
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "a": rng.integers(0, 2, n),
            "b": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 2),
            "g": rng.choice(["u", "v"], n),
            "k": np.arange(n),
        }
    )
    df = dd.from_pandas(frame, npartitions=3)
    kept = df[(df.k < 100) | (df.k >= 200)]
    assert [len(p) for p in dask_partitions(kept)] == [100, 0, 100]
    rows = frame[(frame.k < 100) | (frame.k >= 200)]
    sync = dict(scheduler="sync")
    got = fdask.confusion_stats(kept, "y", "a", "g", **sync)
    want = fastfair.stats.ConfusionStats.from_arrays(rows.y, rows.a, rows.g)
    assert got.labels.tolist() == want.labels.tolist()
    np.testing.assert_array_equal(got.counts, want.counts)
    got = fdask.score_stats(kept, "y", "s", "g", **sync)
    want = fastfair.stats.ScoreStats.from_arrays(rows.y, rows.s, rows.g)
    np.testing.assert_array_equal(got.values, want.values)
    np.testing.assert_array_equal(got.counts, want.counts)
    got = fdask.paired_stats(kept, "y", "a", "b", "g", **sync)
    want = fastfair.compare.PairedStats.from_arrays(rows.y, rows.a, rows.b, rows.g)
    np.testing.assert_array_equal(got.counts, want.counts)
    delong = fdask.placement_sums(kept, "y", "s", "g", **sync).delong()
    np.testing.assert_allclose(delong.auc, fastfair.delong(rows.y, rows.s, rows.g).auc,
                               rtol=1e-12)  # fmt: skip
    with pytest.raises(ValueError, match="the dask DataFrame has no rows"):
        fdask.confusion_stats(df[df.k < 0], "y", "a", "g", **sync)


def _labelled_frame(n=120, seed=17):
    """Text labels and predictions in two partitions of 60 rows; every row of the second
    partition is negative (label and both predictions 'no')."""
    rng = np.random.default_rng(seed)
    values = np.array(["no", "yes"], dtype=object)
    frame = pd.DataFrame({c: values[rng.integers(0, 2, n)] for c in ("y", "a", "b")})
    frame["s"], frame["g"] = np.round(rng.random(n), 3), rng.choice(["u", "v"], n)
    frame.loc[n // 2 :, ["y", "a", "b"]] = "no"
    return frame


def _dask_summaries(df):
    """The four summaries of fastfair.dask, with pos_label 'yes' (name -> a thunk)."""
    kw = dict(pos_label="yes", scheduler="sync")
    return {
        "confusion": lambda: fdask.confusion_stats(df, "y", "a", "g", **kw),
        "scores": lambda: fdask.score_stats(df, "y", "s", "g", **kw),
        "placements": lambda: fdask.placement_sums(df, "y", "s", "g", **kw),
        "paired": lambda: fdask.paired_stats(df, "y", "a", "b", "g", **kw),
    }


def test_a_partition_without_the_positive_label_is_a_piece_of_the_column():
    """The second partition holds no 'yes' (a day without events): the summaries equal
    the memory ones of all the rows (they used to refuse the partition)."""
    frame = _labelled_frame()
    df = dd.from_pandas(frame, npartitions=2, sort=False)
    assert [set(p.y) for p in dask_partitions(df)][1] == {"no"}
    got = {name: build() for name, build in _dask_summaries(df).items()}
    stats = fastfair.stats
    want = stats.ConfusionStats.from_arrays(frame.y, frame.a, frame.g, pos_label="yes")
    np.testing.assert_array_equal(got["confusion"].counts, want.counts)
    want = stats.ScoreStats.from_arrays(frame.y, frame.s, frame.g, pos_label="yes")
    np.testing.assert_array_equal(got["scores"].counts, want.counts)
    want = stats.PlacementSums.from_arrays(frame.y, frame.s, frame.g, pos_label="yes")
    for field in ("n_neg", "n_pos", "pos_sum", "neg_sum", "pos_squares", "neg_squares"):
        np.testing.assert_array_equal(getattr(got["placements"], field), getattr(want, field))
    want = fastfair.compare.PairedStats.from_arrays(frame.y, frame.a, frame.b, frame.g,
                                                    pos_label="yes")  # fmt: skip
    np.testing.assert_array_equal(got["paired"].counts, want.counts)


@pytest.mark.parametrize("name", ["confusion", "scores", "placements", "paired"])
def test_a_third_value_alone_in_one_partition_is_refused(name):
    """The second partition's labels are all 'maybe': each partition is binary, the column
    is not, and every summary refuses it as the memory engine refuses the whole column
    (it used to count 'maybe' as a negative); after the sort by score (the placement
    sums) a partition may already hold all three, and is named."""
    frame = _labelled_frame()
    frame.loc[60:, "y"] = "maybe"
    df = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.raises(ValueError) as memory:
        fastfair.stats.ConfusionStats.from_arrays(frame.y, frame.a, frame.g, pos_label="yes")
    assert (
        str(memory.value) == "y_true must be binary, got 3 distinct values ('maybe', 'no', 'yes')"
    )
    with pytest.raises(ValueError) as dask:
        _dask_summaries(df)[name]()
    assert re.fullmatch(r"(partition \d+: )?" + re.escape(str(memory.value)), str(dask.value))


@pytest.mark.parametrize("name", ["confusion", "scores", "placements"])
def test_a_positive_label_in_no_partition_is_refused_as_in_memory(name):
    """No 'yes' label in any partition: refused with the memory summaries' message (a
    partition alone may lack it, the column may not)."""
    frame = _labelled_frame()
    frame["y"] = "no"
    df = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.raises(ValueError, match=r"^pos_label='yes' does not occur in y_true; its "
                                         r"values are \['no'\]$"):  # fmt: skip
        _dask_summaries(df)[name]()


def dask_partitions(df):
    import dask

    return dask.compute(*df.to_delayed(), scheduler="sync")
