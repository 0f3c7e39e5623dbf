"""fastfair.io: only the needed columns, read in batches, groups coded once."""

import builtins
import json
import os

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import fastfair  # noqa: E402
import fastfair.cli  # noqa: E402
import fastfair.cli.loading  # noqa: E402
import fastfair.engines.files  # noqa: E402
import fastfair.io  # noqa: E402
from fastfair._validation import as_groups  # noqa: E402
from fastfair.io import estimate_rows, read_columns, source_files  # noqa: E402


def _frame(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    user = rng.integers(0, n // 10, n)
    group = np.array(["north", "south", "east"], dtype=object)[user % 3]
    score = np.round(np.clip(0.3 * y + 0.6 * rng.random(n) + 0.05 * (group == "east"), 0, 1), 4)
    return pd.DataFrame(
        {
            "label": y,
            "score": score,
            "pred": (score >= 0.5).astype(int),
            "grp": group,
            "user": user,
            "unused": rng.random(n),
        }
    )


@pytest.fixture
def parts(tmp_path):
    frame = _frame(3000)
    folder = tmp_path / "log"
    folder.mkdir()
    for i, chunk in enumerate(frame.iloc[k : k + 1000] for k in (0, 1000, 2000)):
        chunk.to_parquet(folder / f"part-{i}.parquet", index=False)
        chunk.to_csv(tmp_path / f"part-{i}.csv", index=False)
    return frame, folder, tmp_path


def test_directory_glob_and_csv_give_the_columns(parts):
    frame, folder, tmp = parts
    want_codes, want_labels = as_groups(frame["grp"])
    for source in (folder, str(folder / "*.parquet"), str(tmp / "part-*.csv")):
        cols = read_columns(source, ["label", "score", "grp"], codes=["grp"], batch_rows=700)
        assert set(cols) == {"label", "score", "grp"}
        np.testing.assert_array_equal(cols["label"], frame["label"])
        np.testing.assert_array_equal(cols["score"], frame["score"])
        np.testing.assert_array_equal(cols["grp"].codes, want_codes)
        assert cols["grp"].labels.tolist() == want_labels.tolist()


def _hide_from_fastfair(monkeypatch, *packages):
    """`import package` fails inside fastfair (as if not installed); pandas itself keeps
    its own optional use of pyarrow."""
    real = builtins.__import__

    def fake(name, globals=None, *args, **kwargs):
        caller = (globals or {}).get("__name__", "")
        if name.split(".")[0] in packages and caller.startswith("fastfair"):
            raise ImportError(f"No module named {name!r} (hidden by the test)")
        return real(name, globals, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_without_pyarrow_one_csv_is_read_in_batches(parts, monkeypatch, reader):
    """pyarrow hidden (and pandas too for numpy.loadtxt): the same columns, in batches."""
    frame, _, tmp = parts
    path = tmp / "semicolons.csv"
    text = frame.to_csv(index=False, sep=";").replace("\n", "\n\n", 3)  # blank lines
    path.write_text("sep=;\n" + text)
    want = read_columns(str(tmp / "part-*.csv"), ["label", "score", "grp", "user"], codes=["grp"])
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    read = fastfair.engines.files.text_batches  # batches of 700 rows
    monkeypatch.setattr(
        fastfair.engines.files,
        "text_batches",
        lambda *a, **k: read(*a, **{**k, "batch_rows": 700}),
    )
    cols = read_columns(path, ["label", "score", "grp", "user"], codes=["grp"], binary=["label"])
    for c in ("label", "score", "user"):
        np.testing.assert_array_equal(cols[c], want[c])
    np.testing.assert_array_equal(cols["grp"].codes, want["grp"].codes)
    assert cols["grp"].labels.tolist() == want["grp"].labels.tolist() == ["east", "north", "south"]
    with pytest.raises(ImportError, match="directories or globs needs pyarrow"):
        read_columns(str(tmp / "part-*.csv"), ["label"])
    frame.iloc[2, 0] = 2  # a third label value in the first batch
    frame.iloc[800, 3] = ""  # a blank group label in the second batch
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"semicolons\.csv: column 'label' must be binary"):
        read_columns(path, ["label"], binary=["label"])
    with pytest.raises(ValueError, match=r"semicolons\.csv: grp contains missing values"):
        read_columns(path, ["grp"], codes=["grp"])
    with pytest.raises(ValueError, match=r"semicolons\.csv: no column 'nope'"):
        read_columns(path, ["nope"])


def test_cli_reads_a_large_csv_without_pyarrow_in_batches(parts, monkeypatch, capsys):
    """Above LARGE_CSV_BYTES (forced small) one CSV goes through the batch reader."""
    frame, _, tmp = parts
    path = tmp / "all.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", str(path), "--label", "label", "--pred", "pred", "--group", "grp"]
    argv += ["--json", str(tmp / "out.json"), "--force", "--metrics", "tpr"]
    assert fastfair.cli.main([*argv, "--quiet"]) == 0
    want = json.loads((tmp / "out.json").read_text())
    _hide_from_fastfair(monkeypatch, "pyarrow")
    monkeypatch.setattr(fastfair.cli.loading, "LARGE_CSV_BYTES", 1000)
    calls = []
    read = fastfair.engines.files.text_batches
    monkeypatch.setattr(
        fastfair.engines.files, "text_batches", lambda *a, **k: calls.append(1) or read(*a, **k)
    )
    capsys.readouterr()
    assert fastfair.cli.main(argv) == 0
    assert calls and "without pyarrow: pandas' C parser in batches" in capsys.readouterr().err
    got = json.loads((tmp / "out.json").read_text())
    assert got["tests"] == want["tests"] and got["engine"] == "memory"


@pytest.mark.parametrize(
    "change, kwargs, message",
    [
        (None, dict(columns=["label", "nope"]), r"part-0\.parquet: no column 'nope'"),
        ("label_null", dict(complete=["label"]), r"part-1\.parquet: column 'label' contains mis"),
        ("label_two", dict(binary=["label"]), r"part-1\.parquet: column 'label' must be binary"),
        ("group_null", dict(codes=["grp"]), r"part-1\.parquet: column 'grp' contains missing"),
        ("group_blank", dict(codes=["grp"]), r"part-\d\.parquet: grp contains empty or blank"),
    ],
)
def test_bad_input_names_the_file(tmp_path, change, kwargs, message):
    frame = _frame(200)
    chunks = [frame.iloc[:100], frame.iloc[100:]]
    good = chunks[1].copy()
    if change == "label_null":
        good["label"] = good["label"].astype("Int64")
        good.loc[good.index[3], "label"] = pd.NA
    elif change == "label_two":
        good.loc[good.index[3], "label"] = 2
    elif change == "group_null":
        good.loc[good.index[3], "grp"] = None
    elif change == "group_blank":
        good.loc[good.index[3], "grp"] = ""
    chunks[0].to_parquet(tmp_path / "part-0.parquet", index=False)
    good.to_parquet(tmp_path / "part-1.parquet", index=False)
    kwargs = {"columns": ["label", "grp"], **kwargs}
    with pytest.raises(ValueError, match=message):
        read_columns(tmp_path, **kwargs)


def test_missing_source_and_mixed_kinds(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_columns(tmp_path / "none-*.parquet", ["a"])
    _frame(50).to_parquet(tmp_path / "a.parquet")
    _frame(50).to_csv(tmp_path / "b.csv")
    with pytest.raises(ValueError, match="mixes Parquet and CSV"):
        read_columns(tmp_path, ["label"])


def test_cli_on_a_directory_matches_the_in_memory_audit(parts, capsys):
    frame, folder, tmp = parts
    common = ["--label", "label", "--score", "score", "--group", "grp", "--cluster", "user"]
    common += ["--permutations", "99", "--quiet", "--metrics", "tpr", "ppv"]
    csv_path = tmp / "whole.csv"
    frame.to_csv(csv_path, index=False)
    outs = []
    for source in (folder, csv_path):
        out = tmp / f"{source.name}.json"
        assert fastfair.cli.main(["audit", str(source), *common, "--json", str(out)]) == 0
        outs.append(json.loads(out.read_text()))
    capsys.readouterr()
    a, b = outs
    assert a["attributes"] == b["attributes"]
    assert len(a["tests"]) == len(b["tests"]) > 3
    for ta, tb in zip(a["tests"], b["tests"]):
        assert ta == tb


def test_cli_bad_file_in_a_directory(tmp_path, capsys):
    frame = _frame(100)
    frame.to_parquet(tmp_path / "part-0.parquet", index=False)
    frame.drop(columns="grp").to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--pred", "pred", "--group", "grp"]
    assert fastfair.cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "part-1.parquet: no column 'grp'" in err and len(err.strip().splitlines()) == 1


def _engine_audit(source, tmp, engine, capsys, extra=()):
    out = tmp / f"{engine}.json"
    argv = ["audit", str(source), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--permutations", "199", "--quiet", "--json", str(out), *extra]
    if engine != "memory":
        argv += ["--engine", engine]
    assert fastfair.cli.main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    return json.loads(out.read_text())


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_summary_engines_match_the_in_memory_audit(parts, capsys, engine):
    _, folder, tmp = parts
    memory = _engine_audit(folder, tmp, "memory", capsys)
    summary = _engine_audit(
        folder, tmp, engine, capsys, ["--scheduler", "sync"] * (engine == "dask")
    )
    assert summary["attributes"] == memory["attributes"] and summary["n_rows"] == 3000
    assert summary["engine"] == engine and memory["engine"] == "memory"

    def family(audit, name):
        return [t for t in audit["tests"] if t["family"] == name]

    assert family(summary, "confusion") == family(memory, "confusion")
    assert len(family(memory, "confusion")) == 12
    # the AUC: memory's test on every engine (#27), here the sequential permutation test
    # (fewer than 1,000 positives), on the compared groups' rows read back
    assert family(summary, "auc") == family(memory, "auc")
    assert {t["method"] for t in family(memory, "auc")} == {"permutation"}
    (parity,) = family(summary, "parity")
    # the rows again, in batches or partitions (tests/test_sorted_clusters.py: with users)
    (want,) = [t for t in memory["tests"] if t["family"] == "parity"]
    assert parity["pvalue"] == want["pvalue"] and parity["scheme"] == "rows"
    assert parity["statistic"] == pytest.approx(want["statistic"], rel=1e-12)


def test_summary_engine_names_the_bad_file(tmp_path, capsys):
    frame = _frame(200)
    frame.iloc[:100].to_parquet(tmp_path / "part-0.parquet", index=False)
    bad = frame.iloc[100:].copy()
    bad.loc[bad.index[5], "label"] = 3
    bad.to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--pred", "pred", "--group", "grp"]
    assert fastfair.cli.main([*argv, "--engine", "arrow"]) == 2
    err = capsys.readouterr().err
    assert "part-1.parquet: label must be binary" in err and len(err.strip().splitlines()) == 1


def test_summary_engine_report(parts, capsys):
    """The report needs no rows: the arrow engine writes it, calibration curves included."""
    _, folder, tmp = parts
    report = tmp / "summary.html"
    argv = ["audit", str(folder), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--permutations", "99", "--quiet", "--engine", "arrow", "--report", str(report)]
    assert fastfair.cli.main(argv) == 0, capsys.readouterr().err
    text = report.read_text()
    assert "<svg" in text and "not run with --engine" not in text
    assert "predictive parity" in text and "Calibration" in text


def test_estimate_rows(parts):
    _, folder, tmp = parts
    from fastfair.io import count_rows, estimate_rows

    assert estimate_rows(folder) == count_rows(folder) == 3000  # Parquet: the footers
    assert count_rows(str(tmp / "part-*.csv")) == 3000
    assert abs(estimate_rows(str(tmp / "part-*.csv")) - 3000) < 30  # CSV: from the size


def test_auto_engine_switches_to_arrow_above_the_threshold(parts, capsys, monkeypatch):
    """The default engine is "auto": arrow above AUTO_ROWS rows (forced small here), for
    one group column or several with their intersections; memory below it."""
    from fastfair.engines import choose as _choose

    _, folder, tmp = parts
    argv = ["audit", str(folder), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--permutations", "99", "--metrics", "tpr", "--json", str(tmp / "a.json")]
    argv += ["--force", "--quiet"]

    def engine(*extra):
        assert fastfair.cli.main([*argv, *extra]) == 0, capsys.readouterr().err
        return json.loads((tmp / "a.json").read_text())["engine"], capsys.readouterr().err

    assert engine() == ("memory", "")  # 3,000 rows <= 2,000,000
    monkeypatch.setattr(_choose, "AUTO_ROWS", 2999)
    assert engine() == ("arrow", "")
    assert engine("--engine", "memory")[0] == "memory"
    argv.remove("--quiet")
    used, err = engine("--group", "grp", "label", "--intersections")
    assert used == "arrow" and "note" not in err
    monkeypatch.setattr(_choose, "AUTO_ROWS", 3000)
    assert engine()[0] == "memory"


def _later_levels():
    """Three files whose group levels differ: 'b' (sorting first) only in the second file's
    second batch, 'zz' only in the last file; a label column with a null-free 0/1."""
    files = [
        pd.DataFrame({"g": ["m", "k", "m", "k", "m"], "y": [0, 1, 1, 0, 1]}),
        pd.DataFrame({"g": ["k", "k", "m", "b", "m", "b"], "y": [1, 1, 0, 0, 1, 0]}),
        pd.DataFrame({"g": ["zz", "b", "k"], "y": [0, 1, 1]}),
    ]
    return files


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_a_level_first_seen_in_a_later_file_or_batch_gets_its_sorted_code(tmp_path, kind):
    """Group codes read batch by batch (3 rows a batch) from files whose levels differ,
    against numpy's sorted labels and inverse of all the rows at once."""
    files = _later_levels()
    for i, f in enumerate(files):
        path = tmp_path / f"part-{i}.{kind}"
        f.to_parquet(path, index=False) if kind == "parquet" else f.to_csv(path, index=False)
    cols = read_columns(tmp_path, ["g", "y"], codes=["g"], batch_rows=3)
    every = np.concatenate([f["g"].to_numpy() for f in files]).astype(str)
    labels, inverse = np.unique(every, return_inverse=True)
    assert cols["g"].labels.tolist() == labels.tolist() == ["b", "k", "m", "zz"]
    np.testing.assert_array_equal(cols["g"].codes, inverse)
    np.testing.assert_array_equal(cols["y"], np.concatenate([f["y"] for f in files]))


def test_a_third_binary_value_across_files_is_refused_naming_the_file_it_appears_in(tmp_path):
    """Each file alone holds two values ({0, 1}, then {1, 2}); together three: the second
    file is named. Two files of {0, 1} and {1, 0} pass."""
    pd.DataFrame({"y": [0, 1, 0, 1]}).to_parquet(tmp_path / "part-0.parquet", index=False)
    pd.DataFrame({"y": [1, 2, 2]}).to_parquet(tmp_path / "part-1.parquet", index=False)
    with pytest.raises(ValueError, match=r"part-1\.parquet: column 'y' must be binary; .*0, 1, 2"):
        read_columns(tmp_path, ["y"], binary=["y"])
    pd.DataFrame({"y": [1, 0, 0]}).to_parquet(tmp_path / "part-1.parquet", index=False)
    assert read_columns(tmp_path, ["y"], binary=["y"])["y"].tolist() == [0, 1, 0, 1, 1, 0, 0]


def test_a_missing_text_cell_in_a_complete_column_is_refused_with_its_count(tmp_path):
    """A text column (user ids) that must be complete: two nulls in the second file are
    counted there (2 rows) and that file named; the first file alone passes."""
    pd.DataFrame({"user": ["u1", "u2"]}).to_parquet(tmp_path / "part-0.parquet", index=False)
    pd.DataFrame({"user": ["u3", None, "u4", None]}).to_parquet(
        tmp_path / "part-1.parquet", index=False
    )
    with pytest.raises(ValueError, match=r"part-1\.parquet: column 'user' .* in 2 rows"):
        read_columns(tmp_path, ["user"], complete=["user"])
    got = read_columns(tmp_path / "part-0.parquet", ["user"], complete=["user"])["user"]
    assert got.tolist() == ["u1", "u2"]


def test_a_directory_skips_hidden_and_underscore_files_and_lists_the_rest_sorted(tmp_path):
    """Spark and Hadoop leave `_SUCCESS`/`_temporary` and editors `.name` files beside the
    data: neither is read; subfolders are searched and the paths sorted."""
    (tmp_path / "sub").mkdir()
    for name in ("b.csv", ".a.csv", "_c.csv", "sub/a.csv", "a.csv", "notes.txt"):
        (tmp_path / name).write_text("y\n1\n")
    found = [os.path.relpath(f, tmp_path) for f in source_files(tmp_path)]
    assert found == ["a.csv", "b.csv", os.path.join("sub", "a.csv")]
    assert read_columns(tmp_path, ["y"])["y"].tolist() == [1, 1, 1]


def test_estimated_rows_of_csv_files_read_whole_are_their_data_rows(tmp_path):
    """A CSV file under 1 MiB is its own sample: the estimate is exact, the header line
    not counted (rows of different lengths; 3 + 1 + 5 data rows counted by hand)."""
    (tmp_path / "a.csv").write_text("y,g\n1,a\n0,bb\n1,ccc\n")
    (tmp_path / "b.csv").write_text("y,g\n1,dddddddd\n")
    (tmp_path / "c.csv").write_text("y,g\n" + "".join(f"{k % 2},g{k}\n" for k in range(5)))
    assert estimate_rows(tmp_path) == 3 + 1 + 5


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_without_pyarrow_a_level_first_seen_in_a_later_batch_gets_its_sorted_code(
    tmp_path, monkeypatch, reader
):
    """The readers without pyarrow code each batch's labels into one dictionary too: a
    level sorting first ('b') that appears only in the last batch, against numpy."""
    frame = pd.concat(_later_levels(), ignore_index=True)
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    cols = read_columns(path, ["g", "y"], codes=["g"], batch_rows=4)
    labels, inverse = np.unique(frame["g"].to_numpy().astype(str), return_inverse=True)
    assert cols["g"].labels.tolist() == labels.tolist()
    np.testing.assert_array_equal(cols["g"].codes, inverse)


def test_a_group_column_of_numbers_in_one_file_and_text_in_another_is_refused(tmp_path):
    pd.DataFrame({"g": [1, 2, 1]}).to_parquet(tmp_path / "part-0.parquet", index=False)
    pd.DataFrame({"g": ["a", "b"]}).to_parquet(tmp_path / "part-1.parquet", index=False)
    with pytest.raises(TypeError, match=r"column 'g' is text in some files only"):
        read_columns(tmp_path, ["g"], codes=["g"])
    (tmp_path / "part-1.parquet").unlink()
    pd.DataFrame({"g": [3, 1]}).to_parquet(tmp_path / "part-1.parquet", index=False)
    cols = read_columns(tmp_path, ["g"], codes=["g"])
    assert cols["g"].labels.tolist() == [1, 2, 3]
    assert cols["g"].codes.tolist() == [0, 1, 0, 2, 0]


def test_a_null_in_a_bool_or_integer_column_reads_as_nan(tmp_path):
    """Nulls of a bool or integer Parquet column come back as NaN in float64 (then refused
    where a value is needed, counted in `complete`), the other rows as their numbers."""
    table = pa.table({"b": pa.array([True, None, False]), "i": pa.array([3, 4, None])})
    pq.write_table(table, tmp_path / "part-0.parquet")
    cols = read_columns(tmp_path, ["b", "i"])
    np.testing.assert_array_equal(cols["b"], [1.0, np.nan, 0.0])
    np.testing.assert_array_equal(cols["i"], [3.0, 4.0, np.nan])
    assert cols["b"].dtype == cols["i"].dtype == np.float64
    with pytest.raises(ValueError, match=r"column .b. contains missing values .* in 1 row of a"):
        read_columns(tmp_path, ["b"], complete=["b"])


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_without_pyarrow_true_false_is_bool_only_when_every_cell_is_true_or_false(
    tmp_path, monkeypatch, reader
):
    path = tmp_path / "rows.csv"
    path.write_text("flag,answer\nTRUE,true\nfalse,maybe\nTrue,false\n")
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    cols = read_columns(path, ["flag", "answer"])
    assert cols["flag"].dtype == bool and cols["flag"].tolist() == [True, False, True]
    assert cols["answer"].tolist() == ["true", "maybe", "false"]


@pytest.mark.parametrize("engine", ["arrow", "dask"])
def test_summary_engine_refuses_a_missing_user_naming_its_file_or_partition(
    tmp_path, capsys, engine
):
    """A null in the cluster column of the second file (one row, counted by hand) is one
    `fastfair: error:` line on the batch engines, not a user of its own."""
    frame = _frame(200)
    frame["user"] = frame["user"].astype("Int64")
    frame.iloc[:100].to_parquet(tmp_path / "part-0.parquet", index=False)
    late = frame.iloc[100:].copy()
    late.loc[late.index[7], "user"] = pd.NA
    late.to_parquet(tmp_path / "part-1.parquet", index=False)
    argv = ["audit", str(tmp_path), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user", "--quiet", "--engine", engine]
    argv += ["--scheduler", "sync"] * (engine == "dask")
    assert fastfair.cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fastfair: error:") and len(err.splitlines()) == 1
    assert "cluster column 'user' has 1 missing values" in err
    if engine == "arrow":
        assert "part-1.parquet" in err


def test_a_third_prediction_value_in_a_parquet_file_is_named_with_the_file(tmp_path, capsys):
    """The batch reader checks the prediction column as binary too (not only the label):
    a 2 among the predictions is one error line naming the file and the column."""
    frame = _frame(120)
    frame.loc[frame.index[5], "pred"] = 2
    frame.to_parquet(tmp_path / "rows.parquet", index=False)
    argv = ["audit", str(tmp_path / "rows.parquet"), "--label", "label", "--pred", "pred"]
    assert fastfair.cli.main([*argv, "--group", "grp", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fastfair: error:") and len(err.splitlines()) == 1
    assert "rows.parquet: column 'pred' must be binary" in err


def test_auto_engine_of_the_python_audit_and_the_sources_it_refuses(parts, monkeypatch):
    """fastfair.audit(data=path, engine="auto") chooses as the command line does: below
    AUTO_ROWS the memory engine (the data frame's audit), above it arrow; a comparison of
    two models stays in memory with a note giving the rows; an unknown engine, a model
    comparison on the arrow engine and no group column are refused by name."""
    from fastfair.engines import choose as _choose
    from fastfair.engines import choose_engine

    frame, folder, _ = parts
    kw = dict(y_score="score", metrics=["tpr"], n_permutations=99, random_state=1, n_jobs=1)
    auto = fastfair.audit("label", "pred", ["grp"], data=str(folder), engine="auto", **kw)
    assert auto.engine == "memory"
    rows = fastfair.audit("label", "pred", ["grp"], data=frame, **kw).to_dict()
    got = auto.to_dict()
    for d in (got, rows):
        d.pop("elapsed_seconds")
    assert got == rows
    monkeypatch.setattr(_choose, "AUTO_ROWS", 2999)
    assert choose_engine(str(folder)) == ("arrow", None)
    assert choose_engine(str(folder), compare=True) == (
        "memory",
        "3,000 rows audited in memory: --compare needs the memory engine, which holds the "
        "rows (about 30-150 bytes a row)",
    )
    assert fastfair.audit("label", "pred", ["grp"], data=str(folder), **kw).engine == "arrow"
    with pytest.raises(
        ValueError, match=r"^engine must be one of auto, memory, arrow, dask, spark, got 'arow'$"
    ):
        fastfair.audit("label", "pred", ["grp"], data=str(folder), engine="arow", **kw)
    with pytest.raises(ValueError, match=r"^engine='arrow' cannot compare two models"):
        fastfair.audit("label", "pred", ["grp"], data=str(folder), engine="arrow",
                       compare={"other": "score"}, **kw)  # fmt: skip
    with pytest.raises(
        TypeError, match=r"^with data a path, sensitive_features must be column names, got \[\]$"
    ):
        fastfair.audit("label", "pred", [], data=str(folder), engine="arrow", **kw)


def test_a_missing_group_label_in_a_file_counts_its_rows_in_words(tmp_path):
    """A null group label read from a file is refused naming the column and counting the
    rows: "in 1 row" for one, "in 2 rows" for two (the arrow batch coder; the same words
    as every other missing-label message)."""
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "g": ["a", None, "b", "a"]})
    path = tmp_path / "null.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"column 'g' contains missing values \(null\) in 1 row;"):
        read_columns(path, ["y", "g"], codes=["g"])
    frame.loc[3, "g"] = None
    frame.to_parquet(path, index=False)
    with pytest.raises(
        ValueError, match=r"column 'g' contains missing values \(null\) in 2 rows;"
    ):
        read_columns(path, ["y", "g"], codes=["g"])


def test_a_batch_dictionary_with_unused_labels_codes_as_np_unique():
    """An Arrow batch whose dictionary holds labels no row uses, before, between and after
    the used ones (a file's dictionary shared by batches): the batch coder's codes and
    labels are np.unique's of the rows' text, the unused labels gone."""
    import pyarrow as pa

    from fastfair.engines.groups import batch_codes

    dictionary = pa.array(["m", "b", "k", "zz", "a", "c"])
    indices = pa.array([0, 4, 0, 2, 4, 2, 0], type=pa.int32())
    values = pa.DictionaryArray.from_arrays(indices, dictionary)
    text = np.array(values.to_pylist(), dtype=object)
    want_labels, want_codes = np.unique(text, return_inverse=True)
    coded = batch_codes(values, "group")
    assert coded.labels.tolist() == want_labels.tolist() == ["a", "k", "m"]
    np.testing.assert_array_equal(coded.codes, want_codes.ravel())
    with pytest.raises(ValueError, match=r"^group contains missing values \(null\) in 1 row;"):
        batch_codes(pa.array(["a", None, "b"]), "group")


def test_a_numeric_group_column_across_files_codes_as_np_unique(tmp_path):
    """An integer group column (an age band) read from two files: its codes and labels are
    np.unique's of all the rows, and the memory engine's audit of the folder is the audit
    of the data frame. Written for the numeric branch of the file reader's group coder,
    which no test reached (coverage of the default suite)."""
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(
        {"y": rng.integers(0, 2, 600), "p": rng.integers(0, 2, 600),
         "band": rng.choice([40, 20, 30], 600)}
    )  # fmt: skip
    frame.loc[:299, "band"] = np.where(frame.loc[:299, "band"] == 40, 30, frame.loc[:299, "band"])
    folder = tmp_path / "bands"
    folder.mkdir()
    frame.iloc[:300].to_parquet(folder / "a.parquet", index=False)  # no 40 in the first file
    frame.iloc[300:].to_parquet(folder / "b.parquet", index=False)
    cols = read_columns(folder, ["y", "band"], codes=["band"])
    want_labels, want_codes = np.unique(frame["band"].to_numpy(), return_inverse=True)
    assert cols["band"].labels.tolist() == want_labels.tolist() == [20, 30, 40]
    np.testing.assert_array_equal(cols["band"].codes, want_codes.ravel())
    kw = dict(metrics=["tpr"], n_permutations=99, random_state=1, n_jobs=1)
    on_path = fastfair.audit("y", "p", ["band"], data=str(folder), engine="memory", **kw)
    on_frame = fastfair.audit("y", "p", ["band"], data=frame, **kw)
    d_path, d_frame = on_path.to_dict(), on_frame.to_dict()
    for d in (d_path, d_frame):
        d.pop("elapsed_seconds")
    assert d_path == d_frame


def test_a_label_column_read_from_files_names_its_missing_rows_and_a_third_value(tmp_path):
    """A label column read from files: one missing value is counted as "1 row", two as "2
    rows", naming the file; a text label column with a third value in a later file is
    refused naming that file and the values seen so far (sorted)."""
    path = tmp_path / "one.parquet"
    pd.DataFrame({"y": [1.0, np.nan, 0.0], "g": ["a", "b", "a"]}).to_parquet(path, index=False)
    with pytest.raises(
        ValueError, match=r"column 'y' contains missing values \(null/NaN\) in 1 row of a batch"
    ):
        read_columns(path, ["y", "g"], complete=["y"], binary=["y"])
    pd.DataFrame({"y": [np.nan, np.nan, 0.0], "g": ["a", "b", "a"]}).to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"in 2 rows of a batch"):
        read_columns(path, ["y", "g"], complete=["y"], binary=["y"])
    folder = tmp_path / "text"
    folder.mkdir()
    pd.DataFrame({"y": ["yes", "no"], "g": ["a", "b"]}).to_parquet(
        folder / "a.parquet", index=False
    )
    pd.DataFrame({"y": ["no", "maybe"], "g": ["a", "b"]}).to_parquet(
        folder / "b.parquet", index=False
    )
    with pytest.raises(
        ValueError,
        match=r"b\.parquet: column 'y' must be binary; values seen so far: 'maybe', 'no', 'yes'$",
    ):
        read_columns(folder, ["y", "g"], complete=["y"], binary=["y"])
    two = read_columns(folder / "a.parquet", ["y"], complete=["y"], binary=["y"])
    assert two["y"].tolist() == ["yes", "no"]


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_a_header_spaced_after_its_delimiters_names_the_columns_without_the_spaces(
    tmp_path, monkeypatch, reader
):
    """'y, pred, g' (a space after each comma, as people type CSV by hand): the columns are
    y, pred and g, found by name, and read as the rows written, by pandas and by
    numpy.loadtxt alike (pyarrow hidden)."""
    rng = np.random.default_rng(3)
    y, pred = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    g = rng.choice(["east", "west"], 50)
    path = tmp_path / "spaced.csv"
    lines = [f"{a}, {b}, {c}" for a, b, c in zip(y, pred, g)]
    path.write_text("\n".join(["y, pred, g", *lines]) + "\n")
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    assert fastfair.engines.files.check_columns(path, ["y", "pred", "g"]) == [str(path)]
    cols = read_columns(path, ["y", "pred", "g"], codes=["g"])
    np.testing.assert_array_equal(cols["y"], y)
    np.testing.assert_array_equal(cols["pred"], pred)
    assert cols["g"].labels[cols["g"].codes].tolist() == g.tolist()


def test_pyarrow_reads_a_directory_of_spaced_csv_files_as_the_same_files_unspaced(tmp_path):
    """pyarrow's reader (one file, a directory, a glob) of files typed 'y, pred, g' with
    text cells ' east', ' yes': the columns are found by name and every value is read as the
    same file written without the spaces reads it (text without its leading space, as
    pandas' skipinitialspace reads one file); the audit of both directories is the same."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    spaced, plain = tmp_path / "spaced", tmp_path / "plain"
    spaced.mkdir()
    plain.mkdir()
    for part in range(2):
        y, pred = rng.choice(["yes", "no"], 40), rng.choice(["yes", "no"], 40)
        score = rng.random(40).round(3)
        g, user = rng.choice(["east", "west"], 40), rng.choice(["u1", "u2", "u3"], 40)
        rows = list(zip(y, pred, score, g, user))
        for folder, sep in ((spaced, ", "), (plain, ",")):
            lines = [sep.join(["y", "pred", "score", "g", "user"])]
            lines += [sep.join(str(v) for v in row) for row in rows]
            (folder / f"part-{part}.csv").write_text("\n".join(lines) + "\n")
    names = ["y", "pred", "score", "g", "user"]
    for source in (spaced, spaced / "part-1.csv", str(spaced / "*.csv")):
        assert fastfair.engines.files.check_columns(source, names)
        got = read_columns(source, names, codes=["g"])
        want = read_columns(str(source).replace("spaced", "plain"), names, codes=["g"])
        for c in ("y", "pred", "score", "user"):
            assert got[c].tolist() == want[c].tolist(), c
        assert set(got["y"].tolist()) | set(got["pred"].tolist()) == {"yes", "no"}
        assert got["g"].labels.tolist() == want["g"].labels.tolist() == ["east", "west"]
        assert got["g"].codes.tolist() == want["g"].codes.tolist()
    options = dict(y_pred="pred", sensitive_features="g", pos_label="yes", random_state=0)
    a = fastfair.audit("y", data=str(spaced), **options).to_frame()
    b = fastfair.audit("y", data=str(plain), **options).to_frame()
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_without_pyarrow_a_true_false_column_with_a_missing_cell_keeps_the_cell_missing(
    tmp_path, monkeypatch, reader
):
    """TRUE/FALSE cells with one blank (or NA) cell are not a bool column: the missing cell
    would read as False. The column stays text with the cell missing (None), so a group
    column is refused naming its 1 missing row (counted by hand)."""
    path = tmp_path / "rows.csv"
    path.write_text("flag,na,y\nTRUE,true,1\n,NA,0\nFalse,false,1\n")
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    cols = read_columns(path, ["flag", "na"])
    for name in ("flag", "na"):  # text (pandas' reader spells its bools 'True')
        assert cols[name].dtype == object
        assert [v if v is None else v.lower() for v in cols[name]] == ["true", None, "false"]
    with pytest.raises(ValueError, match=r"rows\.csv: flag contains missing values.* in 1 row;"):
        read_columns(path, ["flag", "y"], codes=["flag"])


def test_a_missing_column_is_named_with_the_columns_the_file_holds(tmp_path):
    """check_columns (the CSV header line, the Parquet footer) names the first absent column
    and lists the columns the file holds, in file order (not the columns asked for)."""
    from fastfair.io import check_columns, check_names

    pd.DataFrame({"y": [1], "g": ["a"]}).to_csv(tmp_path / "rows.csv", index=False)
    pd.DataFrame({"y": [1], "grp": ["a"]}).to_parquet(tmp_path / "rows.parquet", index=False)
    with pytest.raises(ValueError, match=r"rows\.csv: no column 'user'; available: y, g$"):
        check_columns(tmp_path / "rows.csv", ["y", "user", "score"])
    with pytest.raises(ValueError, match=r"rows\.parquet: no column 'g'; available: y, grp$"):
        check_columns(tmp_path / "rows.parquet", ["g"])
    with pytest.raises(ValueError, match=r"^frame: no column 'b'; available: a, c$"):
        check_names(["a", "c"], ["a", "b"], "frame")
    assert check_columns(tmp_path / "rows.csv", ["g", "y"]) == [str(tmp_path / "rows.csv")]


@pytest.mark.parametrize("reader", ["pandas", "numpy"])
def test_without_pyarrow_lines_of_only_spaces_or_tabs_are_blank_lines(
    tmp_path, monkeypatch, reader
):
    """A line holding only spaces or a tab (an edited export) is a blank line, skipped like
    an empty one, in every batch: the rows are the 4 data lines, in order."""
    path = tmp_path / "rows.csv"
    path.write_text("y,g\n1,a\n   \n0,b\n\t\n\n1,b\n  \n0,a\n")
    _hide_from_fastfair(monkeypatch, "pyarrow", *(["pandas"] if reader == "numpy" else []))
    cols = read_columns(path, ["y", "g"], codes=["g"], batch_rows=2)
    assert cols["y"].tolist() == [1, 0, 1, 0]
    assert cols["g"].labels.tolist() == ["a", "b"]
    assert cols["g"].codes.tolist() == [0, 1, 1, 0]


def test_a_text_label_column_of_many_values_lists_the_first_five_values_seen(tmp_path):
    """A binary column's refusal lists up to five of the values seen (ordered by their repr):
    six text values in one file show the first five of them, written out by hand."""
    values = ["yes", "no", "maybe", "unsure", "later", "never"]
    pd.DataFrame({"y": values * 2}).to_parquet(tmp_path / "rows.parquet", index=False)
    shown = "'later', 'maybe', 'never', 'no', 'unsure'"
    with pytest.raises(
        ValueError, match=rf"column 'y' must be binary; values seen so far: {shown}$"
    ):
        read_columns(tmp_path / "rows.parquet", ["y"], binary=["y"])
