"""Predictive parity per user from batches (`--engine arrow --cluster`): same as in memory."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyarrow")

import fastfair.cli
from fastfair import _clustered, parity
from fastfair.engines import arrow
from fastfair.engines import clusters as _sorted_clusters
from fastfair.engines.clusters import merge_sums, whole_clusters


def _log(n, n_users, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, n_users, n) * 7 + 3  # sparse ids: codes differ from the values
    group = np.array(["north", "south", "east"], dtype=object)[user % 3]
    score = np.round(np.clip(rng.beta(2, 3, n) + 0.03 * (user % 3), 0, 1), 4)
    y = (rng.random(n) < np.clip(score + shift * (group == "east"), 0, 1)).astype(int)
    return pd.DataFrame({"label": y, "score": score, "grp": group, "user": user})


def _audit(source, tmp, engine, capsys, cluster=True, extra=()):
    out = tmp / f"{engine}.json"
    argv = ["audit", str(source), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user"] * cluster
    argv += ["--permutations", "199", "--quiet", "--json", str(out), "--force"]
    argv += ["--metrics", "tpr", "--engine", engine, *extra]
    assert fastfair.cli.main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    return json.loads(out.read_text())


def _assert_same_parity(memory, batched):
    (a,) = [t for t in memory["tests"] if t["family"] == "parity"]
    (b,) = [t for t in batched["tests"] if t["family"] == "parity"]
    assert "error" not in a and "error" not in b
    for key in ("groups", "method", "scheme", "n_permutations"):
        assert a[key] == b[key]
    np.testing.assert_allclose(b["statistic"], a["statistic"], rtol=1e-12)
    assert b["pvalue"] == a["pvalue"]  # (1 + count) / (1 + B): a count, identical
    ca, cb = memory["parity"]["grp"], batched["parity"]["grp"]
    assert cb["bandwidth"] == pytest.approx(ca["bandwidth"], rel=1e-12)
    assert ca["clustered"] == cb["clustered"]
    ta, tb = pd.DataFrame(ca["grid_table"]), pd.DataFrame(cb["grid_table"])
    assert list(ta.columns) == list(tb.columns) and len(ta) == len(tb) > 0
    for col in ta.columns:
        if ta[col].dtype.kind in "iub":
            np.testing.assert_array_equal(tb[col], ta[col], err_msg=col)
        elif ta[col].dtype.kind == "f":
            np.testing.assert_allclose(tb[col], ta[col], rtol=1e-12, err_msg=col)
        else:
            assert tb[col].tolist() == ta[col].tolist(), col


@pytest.mark.parametrize("passes", ["one pass (CR0 df)", "CR2 second pass", "spilled"])
def test_arrow_cluster_parity_equals_in_memory(tmp_path, capsys, monkeypatch, passes):
    """Several files, record batches, chunks and a row sample (step > 1) all cut users;
    "spilled": the scores and user ids kept in files during the read (as beyond memory)."""
    frame = _log(6000, 400, shift=0.15)
    folder = tmp_path / "log"
    folder.mkdir()
    for i, k in enumerate((0, 2500, 4000)):
        frame.iloc[k : k + (2500 if i == 0 else 1500 if i == 1 else 2000)].to_parquet(
            folder / f"part-{i}.parquet", index=False
        )
    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 700)  # sample every 3rd row of 2 groups
    monkeypatch.setattr(_sorted_clusters, "CHUNK_ROWS", 333)
    if passes == "one pass (CR0 df)":
        monkeypatch.setattr(parity.statistics, "FAST_SHARE", 1.0)
    if passes == "spilled":
        monkeypatch.setattr(arrow, "ROW_BYTES", 1 << 40)
    memory = _audit(folder, tmp_path, "memory", capsys)
    batched = _audit(folder, tmp_path, "arrow", capsys)
    _assert_same_parity(memory, batched)
    (row,) = [t for t in batched["tests"] if t["family"] == "parity"]
    assert row["scheme"] == "per-user clustered" and row["pvalue"] < 0.01  # a real gap


def test_arrow_parity_without_cluster_equals_in_memory(tmp_path, capsys, monkeypatch):
    path = tmp_path / "log.parquet"
    _log(3000, 300).to_parquet(path, index=False)
    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 1000)
    monkeypatch.setattr(_sorted_clusters, "CHUNK_ROWS", 500)
    memory = _audit(path, tmp_path, "memory", capsys, cluster=False)
    batched = _audit(path, tmp_path, "arrow", capsys, cluster=False)
    _assert_same_parity(memory, batched)
    assert batched["parity"]["grp"]["clustered"] is False


def test_user_in_two_groups_is_refused_as_in_memory(tmp_path, capsys):
    frame = _log(2000, 200)
    frame.loc[5, "grp"] = "north" if frame.loc[5, "grp"] != "north" else "south"
    path = tmp_path / "log.parquet"
    frame.to_parquet(path, index=False)
    rows = []
    for engine in ("memory", "arrow", "dask"):
        extra = ["--scheduler", "sync"] if engine == "dask" else []
        audit = _audit(path, tmp_path, engine, capsys, extra=extra)
        (row,) = [t for t in audit["tests"] if "parity" in t["family"]]
        rows.append(row)
    for row in rows:  # every engine names the user, its cluster column and the count
        assert "(1 cluster(s) span several groups): a cluster (user) must belong" in row["error"]
        assert row["error"].startswith(
            f"cluster {frame.loc[5, 'user']} of the cluster column 'user' has rows in group "
        )


def test_whole_clusters_recuts_at_user_boundaries():
    rng = np.random.default_rng(3)
    user = np.sort(rng.integers(0, 40, 500))
    cols = (rng.integers(0, 2, 500), rng.random(500), rng.integers(0, 3, 500), user)
    cuts = np.sort(rng.choice(np.arange(1, 500), 30, replace=False))
    pieces = [tuple(np.split(c, cuts)[k] for c in cols) for k in range(len(cuts) + 1)]
    chunks = list(whole_clusters(iter(pieces)))
    for k in range(4):
        np.testing.assert_array_equal(np.concatenate([c[k] for c in chunks]), cols[k])
    firsts = [c[3][0] for c in chunks]
    lasts = [c[3][-1] for c in chunks]
    assert all(a < b for a, b in zip(lasts[:-1], firsts[1:]))  # no user in two chunks


def test_whole_clusters_carries_only_the_last_user_of_a_piece():
    """Each chunk is what has been met up to the piece's last user, that user carried into
    the next piece (a chunk runs over a piece by one user at most, as CHUNK_ROWS says),
    never a piece cut after its first user."""
    users = [[0, 0, 1, 1, 2], [2, 3, 3, 4], [4, 5], [6]]
    pieces = [tuple(np.array(u) for _ in range(4)) for u in users]
    chunks = [c[3].tolist() for c in whole_clusters(iter(pieces))]
    assert chunks == [[0, 0, 1, 1], [2, 2, 3, 3], [4, 4], [5], [6]]


def test_merge_sums_adds_and_keeps_the_maximum():
    a = {"sum_a": np.array([1.0, 2.0]), "max_b": np.array([3.0, 1.0])}
    b = {"sum_a": np.array([0.5, 0.5]), "max_b": np.array([2.0, 4.0])}
    merged = merge_sums(a, b)
    assert merged["sum_a"].tolist() == [1.5, 2.5] and merged["max_b"].tolist() == [3.0, 4.0]


def test_arrow_cluster_column_errors_name_the_file(tmp_path, capsys):
    frame = _log(400, 40)
    frame.iloc[:200].to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.iloc[200:].drop(columns="user").to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user", "--engine", "arrow", "--quiet"]
    assert fastfair.cli.main(argv) == 2
    assert "part-1.parquet: no column 'user'" in capsys.readouterr().err
    missing = frame.iloc[200:].astype({"user": "Int64"})
    missing.loc[missing.index[3], "user"] = pd.NA
    missing.to_parquet(tmp_path / "part-1.parquet", index=False)
    assert fastfair.cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "part-1.parquet: cluster column 'user' has 1 missing values" in err


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.mark.parametrize("scheduler", ["cluster", "sync"])
def test_cli_parity_per_user_equals_in_memory(client, tmp_path, capsys, monkeypatch, scheduler):
    """--engine dask --cluster: a shuffle on the user column, kernel sums per partition."""
    frame = _log(5000, 350, shift=0.15)
    for i, k in enumerate((0, 2000, 3500)):
        end = {0: 2000, 1: 3500, 2: 5000}[i]
        frame.iloc[k:end].to_parquet(tmp_path / f"p{i}.parquet", index=False)
    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 900)  # sample step 4: positions matter
    memory = _audit(tmp_path, tmp_path, "memory", capsys)
    # the sample step is computed here and sent to the workers: no patch needed there
    extra = ["--scheduler", client.scheduler.address if scheduler == "cluster" else "sync"]
    batched = _audit(tmp_path, tmp_path, "dask", capsys, extra=extra)
    _assert_same_parity(memory, batched)
    confusion = [t for t in batched["tests"] if t["family"] == "confusion"]
    want = [t for t in memory["tests"] if t["family"] == "confusion"]
    assert [t["pvalue"] for t in confusion] == [t["pvalue"] for t in want]


def test_cli_parity_engines_agree_whichever_eigenbasis_lapack_returns(
    tmp_path, capsys, monkeypatch
):
    """Regression (#15): the rounding of another engine's sums can make LAPACK return an
    eigenvector of the bootstrap covariance with the other sign (3% of dask runs on this
    log: pvalue_maxT then differed at 33 of 50 points). Here the in-memory run gets
    flipped signs: the max-T p-values must not move."""
    frame = _log(5000, 350, shift=0.15)
    for i, (k, end) in enumerate(((0, 2000), (2000, 3500), (3500, 5000))):
        frame.iloc[k:end].to_parquet(tmp_path / f"p{i}.parquet", index=False)
    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 900)
    batched = _audit(tmp_path, tmp_path, "arrow", capsys)
    eigh = np.linalg.eigh

    def flipped(a):
        vals, vecs = eigh(a)
        return vals, vecs * np.where(np.arange(len(vals)) % 2, -1.0, 1.0)

    monkeypatch.setattr(np.linalg, "eigh", flipped)
    memory = _audit(tmp_path, tmp_path, "memory", capsys)
    _assert_same_parity(memory, batched)


def test_small_group_skipped_and_left_out_of_parity_as_in_memory(tmp_path, capsys):
    frame = _log(3000, 300, shift=0.1)
    tiny = frame.iloc[:6].assign(grp="tiny", user=-1)  # one user, below min_group_size
    path = tmp_path / "log.parquet"
    pd.concat([tiny, frame]).to_parquet(path, index=False)
    memory = _audit(path, tmp_path, "memory", capsys)
    batched = _audit(path, tmp_path, "arrow", capsys)
    assert batched["attributes"] == memory["attributes"]
    assert "tiny" in json.dumps(memory["attributes"])  # listed as skipped, with its size
    _assert_same_parity(memory, batched)
    (row,) = [t for t in batched["tests"] if t["family"] == "parity"]
    assert "tiny" not in row["groups"]


def test_cluster_order_is_a_stable_counting_sort():
    from fastfair import _kernel_sums

    codes = np.random.default_rng(4).integers(0, 50, 3000).astype(np.int32)
    order, starts = _kernel_sums.cluster_order(codes, 60)  # ten codes without rows
    assert order.dtype == np.int32
    np.testing.assert_array_equal(order, np.argsort(codes, kind="stable"))
    np.testing.assert_array_equal(np.diff(starts), np.bincount(codes, minlength=60))
    with pytest.raises(ValueError, match=r"cluster code 50 outside 0\.\.49"):
        _kernel_sums.cluster_order(np.array([3, 50], dtype=np.int32), 50)


@pytest.mark.parametrize("spill", [False, True])
@pytest.mark.parametrize("ids", ["sparse integers", "integers", "text", "floats"])
def test_user_rows_sorted_chunks_equal_a_lexsort(monkeypatch, tmp_path, ids, spill):
    """Batches in, rows of the tested groups out in (user, file order), cut at users;
    with `spill`, the scores and the text or float ids go through files."""
    import pyarrow as pa

    from fastfair._validation import GroupCodes

    rng = np.random.default_rng(5)
    n = 2500
    user = rng.integers(0, 90, n) * 1_000_003 - 7  # range beyond a lookup table: hashed
    if ids == "sparse integers":
        user = rng.integers(0, 90, n) * 13 - 400  # negative and sparse: a lookup table
    label = np.array(["a", "b", "c", "skip"], dtype=object)
    group = rng.integers(0, 4, n)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    monkeypatch.setattr(_sorted_clusters, "CHUNK_ROWS", 128)
    rows = _sorted_clusters.UserRows(n, clustered=True, spill_dir=tmp_path if spill else None)
    for a in range(0, n, 700):
        b = min(a + 700, n)
        local = np.unique(group[a:b])  # each batch its own group codes
        codes = GroupCodes(np.searchsorted(local, group[a:b]), label[local])
        batch_ids = pa.array(user[a:b])
        if ids == "text":
            batch_ids = pa.array([f"u{v}" for v in user[a:b]])
        elif ids == "floats":
            batch_ids = pa.array(user[a:b] / 4.0)
        rows.add(y[a:b], s[a:b], codes, batch_ids)
    chunks, user_labels = rows.sorted_chunks(["c", "a", "b"])
    got = [np.concatenate(c) for c in zip(*chunks())]
    keep = group != 3
    key = {"text": np.array([f"u{v}" for v in user], dtype=object), "floats": user / 4.0}
    key = key.get(ids, user)
    order = np.flatnonzero(keep)[np.argsort(np.unique(key[keep], return_inverse=True)[1],
                                            kind="stable")]  # fmt: skip
    np.testing.assert_array_equal(got[0], y[order])
    np.testing.assert_array_equal(got[1], s[order])
    np.testing.assert_array_equal(got[2], np.array([1, 2, 0, -1])[group[order]])
    np.testing.assert_array_equal(np.asarray(user_labels)[got[3]], key[order])
    for chunk in chunks():  # whole users per chunk
        assert len(chunk[3]) and (np.diff(chunk[3]) >= 0).all()
    firsts = [c[3][0] for c in chunks()]
    lasts = [c[3][-1] for c in chunks()]
    assert len(firsts) > 5 and all(a < b for a, b in zip(lasts[:-1], firsts[1:]))
    if spill:
        assert rows.s is None and list(tmp_path.iterdir()) == []  # read back; unlinked


@pytest.mark.parametrize(
    "later",
    [np.arange(100, 200), np.arange(-300, -200), np.arange(3_000_000_000, 3_000_000_100)],
    ids=["larger ids", "smaller ids", "ids beyond int32"],
)
def test_user_rows_keep_the_id_range_of_every_batch(later):
    """Integer ids whose range differs between batches (a file sorted by user, a later part
    with 64-bit ids): the rows come out by user as a lexsort of all ids, each user whole."""
    import pyarrow as pa

    from fastfair._validation import GroupCodes

    rng = np.random.default_rng(11)
    first = np.arange(0, 100)
    user = np.concatenate([first, first[::-1], later, later])  # 2 rows a user
    n = len(user)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    group = GroupCodes(np.zeros(n, dtype=np.intp), np.array(["a"], dtype=object))
    rows = _sorted_clusters.UserRows(n, clustered=True)
    for a in (0, 200):
        part = GroupCodes(group.codes[a : a + 200], group.labels)
        rows.add(y[a : a + 200], s[a : a + 200], part, pa.array(user[a : a + 200]))
    chunks, labels = rows.sorted_chunks(["a"])
    got = [np.concatenate(c) for c in zip(*chunks())]
    order = np.argsort(user, kind="stable")
    np.testing.assert_array_equal(got[1], s[order])
    np.testing.assert_array_equal(np.asarray(labels)[got[3]], user[order])
    assert len(labels) == 200 and np.bincount(got[3]).tolist() == [2] * 200


def test_user_ids_of_two_types_are_refused(tmp_path, capsys):
    frame = _log(400, 40)
    frame.iloc[:200].to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.iloc[200:].astype({"user": str}).to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user", "--engine", "arrow", "--quiet"]
    assert fastfair.cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "part-1.parquet: the cluster column holds large_string values here and int64" in err


def test_dask_parity_brings_counts_not_users_to_the_client(client, tmp_path, monkeypatch):
    """Pass 1 returns per-partition counts (length = groups); the users stay on workers."""
    import dask

    from fastfair.engines import dask as dask_engine

    frame = _log(4000, 1500)  # 1,500 users in 4 partitions
    for i in range(4):
        frame.iloc[i * 1000 : (i + 1) * 1000].to_parquet(tmp_path / f"p{i}.parquet", index=False)
    returned = []
    real = dask.compute

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        returned.append(out)
        return out

    monkeypatch.setattr(dask, "compute", recording)
    labels = ["east", "north", "south"]
    res = dask_engine.dask_clusters(
        tmp_path, labels, np.arange(3), 4000, label="label", group="grp", score="score",
        cluster="user", pos_label=None, scheduler=None,  # the module's client
    )  # fmt: skip
    first = next(r for r in returned if r and isinstance(r[0], tuple) and len(r[0]) == 5)
    for _, rows, users, bad, n_bad in first:  # one tuple per partition
        assert rows.shape == users.shape == (3,) and bad is None and n_bad == 0
    assert sum(f[0] for f in first) == 4000
    codes = frame["user"].groupby(frame["grp"]).nunique().reindex(labels).to_numpy()
    np.testing.assert_array_equal(res.n_clusters, codes)  # users counted on the workers
    np.testing.assert_array_equal(res.n_rows, frame["grp"].value_counts().reindex(labels))


@pytest.mark.parametrize("engine", ["memory", "arrow", "dask"])
@pytest.mark.parametrize(
    "change, message",
    [
        ("nan label", "label contains missing values|'label' contains missing values"),
        ("label 3", "label must be binary|'label' must be binary"),
        ("no user column", "no column 'user'"),
        ("missing user", "cluster column 'user' has 1 missing values|'user' contains missing"),
    ],
)
def test_bad_input_is_named_on_every_engine(tmp_path, capsys, engine, change, message):
    """The file (memory, arrow) or the partition (dask) where bad input was found."""
    frame = _log(600, 60)
    frame.iloc[:300].to_parquet(tmp_path / "part-0.parquet", index=False)
    bad = frame.iloc[300:].astype({"label": float, "user": "Int64"})
    if change == "nan label":
        bad.loc[bad.index[7], "label"] = np.nan
    elif change == "label 3":
        bad.loc[bad.index[7], "label"] = 3
    elif change == "no user column":
        bad = bad.drop(columns="user")
    else:
        bad.loc[bad.index[7], "user"] = pd.NA
    bad.to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user", "--quiet", "--engine", engine, "--permutations", "99"]
    argv += ["--scheduler", "sync"] * (engine == "dask")
    assert fastfair.cli.main(argv) == 2
    err = capsys.readouterr().err
    import re

    assert re.search(message, err), err
    where = "part-1.parquet" if engine != "dask" or change == "no user column" else "partition 1"
    assert where in err and len(err.strip().splitlines()) == 1


def test_ordered_chunks_count_rows_and_users_per_group_as_pandas():
    """from_ordered_chunks' n_rows are the rows and n_clusters the users of each group, as
    pandas counts them: users of one to many rows, read in several chunks of whole users,
    and a group with no rows (written for round ten's r10-clu-nrows: users counted as rows)."""
    rng = np.random.default_rng(11)
    user = np.sort(rng.integers(0, 300, 2000))
    group = (user % 5 == 0) + 2 * (user % 7 == 0)  # codes 0..3 of five labels (4 unused)
    frame = pd.DataFrame({"u": user, "g": group})
    y = rng.integers(0, 2, user.size)
    s = rng.random(user.size)

    def chunks():
        for lo in range(0, 300, 70):
            keep = (user >= lo) & (user < lo + 70)
            yield y[keep], s[keep], group[keep], user[keep]

    labels = np.array(["a", "b", "c", "d", "e"], dtype=object)
    sc = _sorted_clusters.from_ordered_chunks(
        chunks, labels, n_total=user.size, weighting="per_user"
    )
    rows = frame.groupby("g").size().reindex(range(5), fill_value=0).to_numpy()
    users = frame.groupby("g")["u"].nunique().reindex(range(5), fill_value=0).to_numpy()
    assert (rows[:4] > users[:4]).all() and rows[4] == 0  # users of several rows; one empty
    np.testing.assert_array_equal(sc.n_rows, rows)
    np.testing.assert_array_equal(sc.n_clusters, users)
    assert sc.size == user.size


def test_users_in_several_groups_are_counted_and_the_first_is_named_with_its_groups(tmp_path):
    """Three users (3, 7 and 10) have rows in both groups: the error names the first of
    them in row order with the group of its first row, then its other group, and counts
    the users spanning several groups as a count of distinct groups per user gives it, on
    the rows and in the audit's parity row on every engine (naming the cluster column)."""
    rng = np.random.default_rng(2)
    user = np.repeat(np.arange(40), 5)
    g = np.where(user % 2 == 0, "a", "b").astype(object)
    g[3 * 5 + 2], g[7 * 5 + 4], g[10 * 5] = "a", "a", "b"
    y, s = rng.integers(0, 2, 200).astype(float), rng.random(200)
    spans = pd.Series(g).groupby(user).nunique()
    several = spans[spans > 1].index.tolist()
    assert several == [3, 7, 10]
    first = several[0]
    mine = g[user == first]
    other = next(v for v in mine if v != mine[0])
    want = (
        f"cluster {first} has rows in group '{mine[0]}' and in group '{other}' "
        f"({len(several)} cluster(s) span several groups)"
    )
    with pytest.raises(ValueError, match=want.replace("(", r"\(").replace(")", r"\)")):
        parity.predictive_parity_test(y, s, g, cluster=user)
    path = tmp_path / "users.parquet"
    pd.DataFrame({"y": y.astype(int), "s": s, "g": g, "u": user}).to_parquet(path, index=False)
    named = want.replace(f"cluster {first} ", f"cluster {first} of the cluster column 'u' ")
    for engine in ("memory", "arrow", "dask"):
        res = fastfair.audit("y", None, ["g"], y_score="s", cluster="u", data=str(path),
                             engine=engine, n_permutations=99, metrics=["tpr"],
                             **({"scheduler": "sync"} if engine == "dask" else {}))  # fmt: skip
        (row,) = [t for t in res.tests if t["family"] == "parity"]
        assert row["error"].startswith(named), (engine, row["error"])


def test_a_user_whose_rows_are_all_dropped_is_not_counted_as_spanning_groups():
    """nan_policy='omit' drops every row of user 5 (NaN scores): it has no row left, so it
    spans no groups; the count in the error is the one user with kept rows in both groups
    (user 3), as a count of distinct groups per user over the kept rows gives it."""
    rng = np.random.default_rng(4)
    user = np.repeat(np.arange(8), 4)
    g = np.where(user % 2 == 0, "a", "b").astype(object)
    g[3 * 4 + 1] = "a"  # user 3: rows in both groups
    y = rng.integers(0, 2, 32).astype(float)
    s = rng.uniform(0.1, 0.9, 32)
    s[user == 5] = np.nan
    kept = ~np.isnan(s)
    spans = pd.Series(g[kept]).groupby(user[kept]).nunique()
    assert spans[spans > 1].index.tolist() == [3]
    with pytest.raises(ValueError, match=r"^cluster 3 has rows .*\(1 cluster\(s\) span several"):
        parity.predictive_parity_test(y, s, g, cluster=user, nan_policy="omit")


def _rows_by_user(y, s, g, user):
    """(y, score, group, user) sorted by user, the row order kept within a user."""
    order = np.argsort(user, kind="stable")
    return y[order], s[order], g[order], user[order]


def _kernel_of_all(rows, n_groups, grid, h):
    """The kernel sums of all the rows in one chunk: the reference of the merged ones."""
    chunk = _sorted_clusters.chunk_arrays(*rows, "per_user")
    return _clustered.kernel_pass(chunk, grid=grid, h=h, kernel="gaussian", covariance=False,
                                  n_groups=n_groups, n_threads=1)  # fmt: skip


def _users_log(n=900, n_users=120, seed=21):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, n_users, n)
    g = (user % 3).astype(np.intp)
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = np.round(rng.random(n), 3)
    return _rows_by_user(y, s, g, user)


def test_user_rows_keep_each_rows_group_beyond_the_codes_int16_holds():
    """40,000 groups (more than int16's 32,767), the 32,768th first met in the second
    batch: the group codes widen, and every row comes out with its own group (rows in file
    order without a user column), as a table lookup of the labels gives it."""
    from fastfair._validation import GroupCodes

    n = 40_000
    rng = np.random.default_rng(6)
    labels = np.array([f"g{k:05d}" for k in range(n)], dtype=object)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    rows = _sorted_clusters.UserRows(n, clustered=False)
    for a, b in ((0, 30_000), (30_000, n)):
        rows.add(y[a:b], s[a:b], GroupCodes(np.arange(b - a), labels[a:b]))
    tested = labels[::-1].tolist()  # group k is tested as n - 1 - k
    chunks, _ = rows.sorted_chunks(tested)
    got = [np.concatenate(c) for c in zip(*chunks())]
    np.testing.assert_array_equal(got[2], n - 1 - np.arange(n))
    np.testing.assert_array_equal(got[1], s)


@pytest.mark.parametrize("spill", [False, True])
def test_user_rows_integer_ids_then_float_ids_in_a_later_batch(tmp_path, spill):
    """A file of integer user ids, then one of float ids: the integer ids kept so far
    become floats, and the rows come out by user as a stable sort of all the ids as floats
    (the integer 9 and the float 9.0 one user); an empty batch of integers first."""
    import pyarrow as pa

    from fastfair._validation import GroupCodes

    ints = np.array([5, 3, 5, 9, 1, 3])
    floats = np.array([3.5, 9.0, 1.25, 5.0, 3.5])
    user = np.concatenate([ints, floats]).astype(float)
    n = len(user)
    rng = np.random.default_rng(8)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    one = GroupCodes(np.zeros(n, dtype=np.intp), np.array(["a"], dtype=object))
    rows = _sorted_clusters.UserRows(n, clustered=True, spill_dir=tmp_path if spill else None)
    empty = GroupCodes(np.zeros(0, dtype=np.intp), one.labels)
    rows.add(y[:0], s[:0], empty, pa.array(np.zeros(0, dtype=np.int64)))
    for a, b, ids in ((0, 6, pa.array(ints)), (6, n, pa.array(floats))):
        rows.add(y[a:b], s[a:b], GroupCodes(one.codes[a:b], one.labels), ids)
    chunks, labels = rows.sorted_chunks(["a"])
    got = [np.concatenate(c) for c in zip(*chunks())]
    order = np.argsort(user, kind="stable")
    np.testing.assert_array_equal(got[1], s[order])
    np.testing.assert_array_equal(np.asarray(labels)[got[3]], user[order])
    assert list(np.asarray(labels)) == sorted(set(user.tolist()))


def test_user_rows_integer_ids_after_an_empty_first_batch():
    """An empty first batch (an empty file of a directory) and an empty one between: the
    integer ids of the others are kept, the rows by user as a stable sort of the ids."""
    import pyarrow as pa

    from fastfair._validation import GroupCodes

    rng = np.random.default_rng(9)
    user = np.concatenate([rng.integers(100, 140, 50), rng.integers(-20, 20, 30)])
    n = len(user)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    label = np.array(["a"], dtype=object)
    rows = _sorted_clusters.UserRows(n, clustered=True)
    for a, b in ((0, 0), (0, 50), (50, 50), (50, n)):
        codes = GroupCodes(np.zeros(b - a, dtype=np.intp), label)
        rows.add(y[a:b], s[a:b], codes, pa.array(user[a:b], type=pa.int64()))
    chunks, labels = rows.sorted_chunks(["a"])
    got = [np.concatenate(c) for c in zip(*chunks())]
    order = np.argsort(user, kind="stable")
    np.testing.assert_array_equal(got[1], s[order])
    np.testing.assert_array_equal(np.asarray(labels)[got[3]], user[order])


def test_ordered_chunks_row_sample_is_every_steps_row_of_all_the_rows(monkeypatch):
    """Chunks of whole users of uneven sizes (none a multiple of the step): the row sample
    is rows 0, step, 2 step, ... of all the rows in user order, each with its user's weight
    1 / (its rows) and its group, as numpy reads them from the concatenated rows."""
    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 200)  # 900 rows: step 5
    y, s, g, user = _users_log()
    n = len(user)
    step = _sorted_clusters.sample_step(n)
    assert step == 5
    cuts = [0, *np.searchsorted(user, [7, 8, 40, 41, 90]), n]  # users 7 and 40 alone

    def chunks():
        for a, b in itertools.pairwise(cuts):
            yield y[a:b], s[a:b], g[a:b], user[a:b]

    sc = _sorted_clusters.from_ordered_chunks(chunks, np.array(["a", "b", "c"]), n_total=n,
                                              weighting="per_user")  # fmt: skip
    x, w, grp = sc.row_sample()
    idx = np.arange(0, n, step)
    per_user = np.bincount(user)[user]
    np.testing.assert_array_equal(x, s[idx])
    np.testing.assert_allclose(w, 1.0 / per_user[idx], rtol=1e-15)
    np.testing.assert_array_equal(grp, g[idx])


def _partitions(rows, cuts):
    return [tuple(c[a:b] for c in rows) for a, b in itertools.pairwise(cuts)]


def test_partitions_with_empty_ones_give_the_kernel_sums_of_all_the_rows(monkeypatch):
    """dask partitions of whole users, the first, one between and the last empty (a range
    partitioning can leave some empty): counts, row sample and kernel sums are those of
    all the rows in one chunk."""
    import dask

    monkeypatch.setattr(_clustered, "QUANTILE_ROWS", 200)
    rows = _users_log()
    _, s, g, user = rows
    n = len(user)
    cuts = [0, 0, *np.searchsorted(user, [30, 30, 77]), n, n]
    parts = _partitions(rows, cuts)
    assert [len(p[3]) for p in parts].count(0) == 3

    def compute(*values):
        return dask.compute(*values, scheduler="sync")

    labels = np.array(["a", "b", "c"])
    sc = _sorted_clusters.from_partitions(parts, labels, n_total=n, weighting="per_user",
                                          compute=compute)  # fmt: skip
    np.testing.assert_array_equal(sc.n_rows, np.bincount(g, minlength=3))
    users = [len(np.unique(user[g == k])) for k in range(3)]
    np.testing.assert_array_equal(sc.n_clusters, users)
    idx = np.arange(0, n, 5)
    np.testing.assert_array_equal(sc.row_sample()[0], s[idx])
    np.testing.assert_array_equal(sc.row_sample()[2], g[idx])
    grid = np.linspace(0.1, 0.9, 5)
    got = sc.kernel_sums(grid, 0.2, "gaussian", False, 1)
    want = _kernel_of_all(rows, 3, grid, 0.2)
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-300, err_msg=key)


def _bad_users(rows):
    """rows with users 7, 12 and 52 (in that order) given a row of another group."""
    y, s, g, user = (c.copy() for c in rows)
    for bad in (7, 12, 52):
        first = np.flatnonzero(user == bad)
        assert len(first) > 1
        g[first[-1]] = (g[first[0]] + 1) % 3
    return y, s, g, user


def test_partitions_name_the_first_user_spanning_groups_and_count_them_all():
    """Three users spanning groups, two in the first partition and one in another: the
    error names the first (in user order) with its two groups and counts all three, as in
    memory."""
    import dask

    rows = _bad_users(_users_log())
    y, s, g, user = rows
    cuts = [0, *np.searchsorted(user, [30, 77]), len(user)]
    labels = np.array(["a", "b", "c"])
    first_group, other = labels[g[user == 7][0]], labels[g[user == 7][-1]]
    with pytest.raises(ValueError, match=rf"^cluster 7 .*'{first_group}' and in group "
                                         rf"'{other}' \(3 cluster\(s\) span"):  # fmt: skip
        _sorted_clusters.from_partitions(
            _partitions(rows, cuts), labels, n_total=len(user), weighting="per_user",
            compute=lambda *v: dask.compute(*v, scheduler="sync"),
        )  # fmt: skip
    with pytest.raises(ValueError, match=rf"^cluster 7 .*'{first_group}' and in group "
                                         rf"'{other}' \(3 cluster\(s\) span"):  # fmt: skip
        parity.predictive_parity_test(y.astype(float), s, labels[g], cluster=user)


def test_ordered_chunks_name_the_first_user_spanning_groups_and_count_them_all():
    """The arrow engine's chunks: three users spanning groups, two in the first chunk and
    one in another: the first named (its two groups) and all three counted."""
    rows = _bad_users(_users_log())
    _, _, g, user = rows
    cuts = [0, *np.searchsorted(user, [30, 77]), len(user)]
    labels = np.array(["a", "b", "c"])
    first_group, other = labels[g[user == 7][0]], labels[g[user == 7][-1]]

    def chunks():
        yield from _partitions(rows, cuts)

    with pytest.raises(ValueError, match=rf"^cluster 7 .*'{first_group}' and in group "
                                         rf"'{other}' \(3 cluster\(s\) span"):  # fmt: skip
        _sorted_clusters.from_ordered_chunks(chunks, labels, n_total=len(user),
                                             weighting="per_user")  # fmt: skip


def _packed_sort(keys):
    """compact_keys, radix_sort_high and key_runs on a copy of keys, as _order_by_packed."""
    from fastfair._auc import radix_sort_high

    from fastfair import _kernel_sums

    work = keys.copy()
    ib, masks, template = _kernel_sums.compact_keys(work)
    if ib < 0:
        return ib, masks, template, work, None
    order, starts, compact = _kernel_sums.key_runs(radix_sort_high(work, ib), ib)
    return (
        ib,
        masks,
        template,
        (order, starts, compact),
        _sorted_clusters._expand_bits(compact, masks, template),
    )


@pytest.mark.parametrize("n", [1, 2, 64, 65, 2048, 2049])
def test_packed_keys_radix_sort_is_a_stable_argsort_and_their_runs_np_unique(n):
    """Keys varying in the top bit, the lowest bit and bits of three bytes, n around powers
    of two (the index takes max(1, bit_length(n - 1)) bits): the byte masks are those of
    the OR of key ^ key[0], the template key[0]'s other bits; the rows come out in
    np.argsort(kind="stable") order, the runs start where np.unique's values first occur,
    and the run keys expand back to np.unique's values."""
    rng = np.random.default_rng(n)
    base = np.uint64(0x5A00_1234_0000_7700)
    flips = np.array([1 << 63, 1, 1 << 20, 1 << 9, 3 << 40], dtype=np.uint64)
    keys = base ^ np.bitwise_or.reduce(flips * rng.integers(0, 2, (n, len(flips))).astype(
        np.uint64), axis=1)  # fmt: skip
    ib, masks, template, (order, starts, compact), expanded = _packed_sort(keys)
    assert ib == max(1, (n - 1).bit_length())
    varying = int(np.bitwise_or.reduce(keys ^ keys[0]))
    assert masks.tolist() == list(varying.to_bytes(8, "big"))
    assert template == int(keys[0]) & ~varying
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    unique, inverse = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(np.diff(starts), np.bincount(inverse.ravel()))
    np.testing.assert_array_equal(expanded, unique)
    np.testing.assert_array_equal(compact[1:] > compact[:-1], True)


def test_packed_keys_take_exactly_64_bits_and_refuse_one_more():
    """Two keys (1 index bit): 63 varying bits fit in 64 with the index, 64 do not (then
    the keys are left unchanged and ib is -1)."""
    fit = np.array([0, (1 << 63) - 1], dtype=np.uint64)
    ib, _, _, (order, starts, _), expanded = _packed_sort(fit)
    assert ib == 1 and order.tolist() == [0, 1] and starts.tolist() == [0, 1, 2]
    assert expanded.tolist() == fit.tolist()
    over = np.array([1 << 63, (1 << 63) - 1], dtype=np.uint64)
    ib, _, _, left, _ = _packed_sort(over)
    assert ib == -1 and left.tolist() == over.tolist()


def test_sort_by_cluster_is_a_stable_counting_sort_with_each_clusters_group_and_first_conflict():
    from fastfair import _kernel_sums

    rng = np.random.default_rng(8)
    n, k = 500, 40
    cluster = rng.integers(0, k - 5, n).astype(np.intp)  # five clusters without rows
    group = (cluster % 3).astype(np.intp)
    score, y = rng.random(n), rng.integers(0, 2, n).astype(np.float64)
    order, starts, cgroup, conflict = _kernel_sums.sort_by_cluster(cluster, k, group)
    want = np.argsort(cluster, kind="stable")
    np.testing.assert_array_equal(order, want)
    np.testing.assert_array_equal(np.diff(starts), np.bincount(cluster, minlength=k))
    np.testing.assert_array_equal(cgroup, np.where(np.arange(k) < k - 5, np.arange(k) % 3, -1))
    assert conflict == -1
    s_sorted, y_sorted, starts2, cgroup2, _ = _kernel_sums.sort_by_cluster(
        cluster, k, group, score, y
    )
    np.testing.assert_array_equal(s_sorted, score[want])
    np.testing.assert_array_equal(y_sorted, y[want])
    np.testing.assert_array_equal(starts2, starts)
    np.testing.assert_array_equal(cgroup2, cgroup)
    # two rows of one cluster in different groups: the first such row (a later row of the
    # cluster than its first) is reported, whatever follows
    group[[100, 300]] = 2 - group[[100, 300]] + 1
    bad = [i for i in range(n) if group[i] != group[np.flatnonzero(cluster == cluster[i])[0]]]
    assert _kernel_sums.sort_by_cluster(cluster, k, group)[3] == bad[0]


def test_user_rows_sorted_once_serve_each_attribute_in_turn():
    """Rows of two attributes (each row's group the tuple (sex, race)), read in batches
    whose groups differ: the rows of sex, then of the intersection, then of race, from
    three calls (the first two keep the columns): each call's rows are the lexsort by
    user of that attribute's tested rows, as if it were the only call."""
    import pyarrow as pa

    rng = np.random.default_rng(13)
    n = 600
    user = rng.integers(0, 80, n)
    sex = np.array(["F", "M"], dtype=object)[user % 2]
    race = np.array(["x", "y", "z"], dtype=object)[user % 3]
    race[:200] = np.where(race[:200] == "z", "x", race[:200])  # "z" first met later
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    rows = _sorted_clusters.UserRows(n, clustered=True)
    for a in range(0, n, 200):
        cells = np.empty(200, dtype=object)
        cells[:] = list(zip(sex[a : a + 200], race[a : a + 200]))
        rows.add(y[a : a + 200], s[a : a + 200], cells, pa.array(user[a : a + 200]))
    calls = [
        (["M", "F"], [0], sex, False),
        ([("F", "y"), ("M", "x"), ("M", "z")], None, np.array(list(zip(sex, race))), False),
        (["z", "y"], [1], race, True),
    ]
    for tested, positions, label, last in calls:
        chunks, users = rows.sorted_chunks(tested, positions=positions, last=last)
        got = [np.concatenate(c) for c in zip(*chunks())]
        keyed = [tuple(v) if positions is None else v for v in label]
        code = np.array([tested.index(v) if v in tested else -1 for v in keyed])
        keep = np.flatnonzero(code >= 0)
        order = keep[np.argsort(user[keep], kind="stable")]
        np.testing.assert_array_equal(got[1], s[order])
        np.testing.assert_array_equal(got[2], code[order])
        np.testing.assert_array_equal(np.asarray(users)[got[3]], user[order])
    with pytest.raises(RuntimeError, match="freed by an earlier call"):
        rows.sorted_chunks(["F"], positions=[0])
