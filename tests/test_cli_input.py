"""The command line with impossible options, unwritable outputs, many groups and real files.

Every bad input ends with exit status 2 and one line on stderr, before any data are read
or any test is run; files as spreadsheets and databases export them are read or refused
with a message naming the problem.
"""

import json
import os
import stat

import numpy as np
import pytest

import fastfair
from fastfair import cli
from fastfair._textfile import decode_text, detect_delimiter, parse_column, split_records
from fastfair.auditing import AuditResult


def _run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err, message):
    assert code == 2
    assert err.startswith("fastfair: error: ") and err.count("\n") == 1, err
    assert message in err, err


CLEAN = "y,score,pred,grp\n" + "".join(
    f"{i % 2},{(i % 7) / 7:.4f},{(i * 3 % 5) > 1:d},{'ab'[i % 3 == 0]}\n" for i in range(60)
)
BASE = ["--label", "y", "--pred", "pred", "--group", "grp", "--metrics", "tpr", "--quiet"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(CLEAN)
    return path


@pytest.fixture
def no_reading(monkeypatch):
    """Fail the test if the data file is read: options must be checked before any work."""

    def refuse(path):
        raise AssertionError("the data were read before the options were checked")

    monkeypatch.setattr(cli.loading, "read_table", refuse)


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--threshold", "nan"], "--threshold must be a finite number, got nan"),
        (["--threshold", "inf"], "--threshold must be a finite number"),
        (["--jobs", "0"], "--jobs == 0 has no meaning"),
        (["--seed", "-1"], "--seed must be non-negative, got -1"),
        (["--permutations", "0"], "--permutations must be >= 1"),
        (["--permutations", "1000000000000"], "--permutations must be <= 100,000,000"),
        (["--alpha", "nan"], "--alpha must be in (0, 1)"),
        (["--alpha", "1"], "--alpha must be in (0, 1)"),
        (["--min-group-size", "0"], "--min-group-size must be >= 1"),
        (["--max-rows", "-1"], "--max-rows must be >= 0"),
        (["--metrics", "tpr", "bogus"], "--metrics: unknown metric 'bogus'"),
        (["--jobs", "two"], "argument --jobs: invalid int value: 'two'"),
        (["--unknown-option"], "unrecognized arguments: --unknown-option"),
    ],
)
def test_impossible_options_exit_2_before_reading(extra, message, data, no_reading, capsys):
    code, out, err = _run(["audit", str(data), *BASE, *extra], capsys)
    _one_line_error(code, err, message)
    assert out == ""


@pytest.mark.parametrize(
    "key,value,option",
    [
        ("alpha", 1.5, ["--alpha", "1.5"]),
        ("tau", 0.0, ["--tau", "0"]),
        ("n_permutations", 0, ["--permutations", "0"]),
        ("metrics", ["tpr", "bogus"], ["--metrics", "tpr", "bogus"]),
        ("tolerance", 1.5, ["--tolerance", "1.5"]),
        ("equivalence", 0.0, ["--equivalence", "0"]),
        ("random_state", -1, ["--seed", "-1"]),
        ("n_jobs", 0, ["--jobs", "0"]),
        ("min_group_size", 0, ["--min-group-size", "0"]),
    ],
)
def test_library_and_command_line_refuse_an_option_alike(key, value, option, data, capsys):
    """One check of the audit's options: fastfair.audit and `fastfair audit` give the same
    message, the option named as each caller spells it."""
    table = cli.read_table(str(data))
    with pytest.raises((TypeError, ValueError)) as info:
        fastfair.audit("y", "pred", "grp", data=table, **{"metrics": ["tpr"], key: value})
    code, out, err = _run(["audit", str(data), *BASE, *option], capsys)
    expected = str(info.value).replace(key, cli.arguments.OPTION_NAMES[key], 1)
    _one_line_error(code, err, expected)
    assert out == ""


def test_argparse_errors_are_one_line(capsys):
    assert cli.main(["audit", "--threshold", "x"]) == 2
    _, err = capsys.readouterr()
    assert err == "fastfair: error: argument --threshold: invalid float value: 'x'\n"
    assert cli.main([]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("fastfair: error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "target,message",
    [
        ("missing_dir/out.json", "does not exist"),
        ("a_dir", "is a directory"),
        ("exists.json", "the file exists; use --force"),
    ],
)
def test_output_paths_checked_before_reading(target, message, data, no_reading, capsys):
    folder = data.parent
    (folder / "a_dir").mkdir()
    (folder / "exists.json").write_text("keep me")
    for option in ("--json", "--report"):
        code, _, err = _run(["audit", str(data), *BASE, option, str(folder / target)], capsys)
        _one_line_error(code, err, message)
    assert (folder / "exists.json").read_text() == "keep me"


def test_same_file_for_json_and_report(data, no_reading, capsys):
    out = str(data.parent / "o")
    code, _, err = _run(["audit", str(data), *BASE, "--json", out, "--report", out], capsys)
    _one_line_error(code, err, "--json and --report name the same file")


def test_plan_output_checked_before_planning(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(fastfair, "sample_size", lambda *a, **k: pytest.fail("planned"))
    (tmp_path / "p.json").write_text("keep me")
    argv = ["plan", "--metric", "tpr", "--rate", "tpr=0.6,0.7", "--tau", "0.1"]
    code, _, err = _run([*argv, "--json", str(tmp_path / "p.json")], capsys)
    _one_line_error(code, err, "the file exists; use --force")


def test_force_overwrites_and_mode_follows_umask(data, capsys):
    out = data.parent / "r.json"
    out.write_text("old")
    old_umask = os.umask(0o022)
    try:
        code, _, _ = _run(["audit", str(data), *BASE, "--json", str(out), "--force"], capsys)
        assert code == 0 and json.loads(out.read_text())["n_rows"] == 60
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        os.umask(0o077)
        fresh = data.parent / "fresh.json"
        assert cli.main(["audit", str(data), *BASE, "--json", str(fresh)]) == 0
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    finally:
        os.umask(old_umask)
    assert sorted(p.name for p in data.parent.iterdir()) == ["d.csv", "fresh.json", "r.json"]


def test_pos_label_of_the_wrong_type(data, capsys):
    code, _, err = _run(["audit", str(data), *BASE, "--pos-label", "yes"], capsys)
    _one_line_error(code, err, "--pos-label 'yes': the label column is numeric")


# --------------------------------------------------------------------------------------
# Thousands of groups: the printed output is proportional to what it shows
# --------------------------------------------------------------------------------------


def _audit_with_groups(k, name_length):
    names = [f"{i:0{name_length}d}" for i in range(k)]
    tests = [
        dict(attribute="g", family="confusion", metric="tpr", group=g, reference=names[0],
             value_group=0.5, value_reference=0.5, difference=0.0, statistic=0.0, pvalue=1.0,
             pvalue_adjusted=1.0, method="exact", mde=0.5, decision="underpowered",
             verdict="too small to tell (could detect only ≥ 0.5)")
        for g in names[1:]
    ] + [dict(attribute="g", family="parity", metric="predictive_parity", group="all groups",
              reference="each other", groups=names, statistic=1.0, pvalue=0.5,
              pvalue_adjusted=1.0, method="multiplier_bootstrap", decision="no_evidence",
              verdict="no evidence")]  # fmt: skip
    groups = [dict(group=g, n=10, base_rate=0.5, selection_rate=0.5, tested=True) for g in names]
    attributes = [dict(name="g", columns=["g"], reference=names[0], groups=groups, skipped=[])]
    return AuditResult(
        tests=tests, attributes=attributes, n_rows=10 * k, alpha=0.05, tau=0.05, power=0.8,
        adjust="holm", metrics=["tpr"], intersections=False, min_group_size=10, columns={},
        seed=0, n_permutations=99, elapsed_seconds=0.0,
    )  # fmt: skip


def test_printed_table_bounded_for_thousands_of_groups():
    small = _audit_with_groups(5, 60).format(max_rows=100)
    large = _audit_with_groups(5000, 60).format(max_rows=100)
    assert max(map(len, large.splitlines())) <= 250
    assert len(large.splitlines()) <= 100 + 12
    assert "4,900 more tests not shown" in large and "(4,998 more)" in large
    assert max(map(len, small.splitlines())) <= 250
    every = _audit_with_groups(300, 8).format()
    assert len(every.splitlines()) == 300 + 10  # max_rows=None shows every test


def test_cli_with_many_groups(tmp_path, capsys):
    rng = np.random.default_rng(1)
    k, per = 150, 12
    group = np.repeat([f"group-with-a-long-name-{i:04d}-" + "x" * 40 for i in range(k)], per)
    y = rng.integers(0, 2, k * per)
    pred = rng.integers(0, 2, k * per)
    path = tmp_path / "many.csv"
    path.write_text("y,pred,grp\n" + "".join(f"{a},{b},{g}\n" for a, b, g in zip(y, pred, group)))
    out_json = tmp_path / "r.json"
    code, out, _ = _run(
        ["audit", str(path), *BASE, "--max-rows", "20", "--json", str(out_json)], capsys
    )
    assert code == 0
    lines = out.splitlines()
    assert len(lines) < 40 and max(map(len, lines)) < 250
    assert "129 more tests not shown" in out
    audit = json.loads(out_json.read_text())
    groups = audit["attributes"][0]["groups"]
    assert len(audit["tests"]) == k - 1 and len(groups) == k
    sizes = {g["group"]: g for g in groups}
    first = group[0]
    assert sizes[first]["n"] == per
    assert sizes[first]["base_rate"] == pytest.approx(y[group == first].mean())
    assert sizes[first]["selection_rate"] == pytest.approx(pred[group == first].mean())


# --------------------------------------------------------------------------------------
# Files as spreadsheets and databases export them
# --------------------------------------------------------------------------------------

QUIRKS_READ = {
    "utf8_bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "utf16_bom": lambda t: t.replace(",", "\t").encode("utf-16"),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "cr_only": lambda t: t.replace("\n", "\r").encode(),
    "excel_sep_line": lambda t: ("sep=;\n" + t.replace(",", ";")).encode(),
    "semicolon": lambda t: t.replace(",", ";").encode(),
    "tab": lambda t: t.replace(",", "\t").encode(),
    "quoted_everything": lambda t: "\n".join(
        ",".join(f'"{c}"' for c in line.split(",")) for line in t.splitlines()
    ).encode(),
    "trailing_delimiter": lambda t: t.replace("\n", ",\n").encode(),
    "blank_and_empty_rows": lambda t: t.replace("\n", "\n\n", 3).encode() + b",,,\n\n",
    "spaces_around_values": lambda t: t.replace(",", " , ").encode(),
    "no_final_newline": lambda t: t.rstrip("\n").encode(),
}


def _audit_of(path, capsys):
    out = path.parent / (path.name + ".json")
    code, _, err = _run(["audit", str(path), *BASE, "--json", str(out)], capsys)
    assert code == 0, err
    return [t["pvalue"] for t in json.loads(out.read_text())["tests"]]


@pytest.mark.parametrize("quirk", sorted(QUIRKS_READ))
def test_file_quirks_read_like_the_clean_file(quirk, tmp_path, capsys):
    clean = tmp_path / "clean.csv"
    clean.write_text(CLEAN)
    odd = tmp_path / f"{quirk}.csv"
    odd.write_bytes(QUIRKS_READ[quirk](CLEAN))
    assert _audit_of(odd, capsys) == _audit_of(clean, capsys)


def test_true_false_labels(tmp_path, capsys):
    clean = tmp_path / "clean.csv"
    clean.write_text(CLEAN)
    lines = CLEAN.splitlines()
    excel = [lines[0]] + [
        ",".join(["TRUE" if r[0] == "1" else "FALSE", *r[1:2], "true" if r[2] == "1" else "false",
                  r[3]])
        for r in (line.split(",") for line in lines[1:])
    ]  # fmt: skip
    odd = tmp_path / "bools.csv"
    odd.write_text("\n".join(excel) + "\n")
    assert _audit_of(odd, capsys) == _audit_of(clean, capsys)


def _with_cell(row, col, value):
    lines = CLEAN.splitlines()
    cells = lines[row].split(",")
    cells[col] = value
    lines[row] = ",".join(cells)
    return "\n".join(lines) + "\n"


QUIRKS_REFUSED = {
    "label_empty": (_with_cell(5, 0, ""), "label column 'y' has 1 missing values"),
    "label_NA": (_with_cell(5, 0, "NA"), "(empty, NA, null or NaN; the first in data row 5)"),
    "label_null": (_with_cell(9, 0, "null"), "label column 'y' has 1 missing values"),
    "pred_na": (_with_cell(9, 2, "N/A"), "prediction column 'pred' has 1 missing values"),
    "duplicate_column": (
        CLEAN.replace("pred,grp", "pred,pred", 1),
        "the prediction column 'pred' appears in columns 3, 4 of the header, with different",
    ),
    "ragged_row": (_with_cell(7, 3, "a,extra"), "line 8 has 5 fields, the header has 4"),
    "decimal_comma": (
        CLEAN.replace(",", ";").replace("0.", "0,"),
        "column 'score' has numbers written with commas (e.g. '0,0000')",
    ),
    "header_only": ("y,score,pred,grp\n", "no data rows after the header"),
    "empty": ("\n\n", "as CSV: it is empty"),
}


@pytest.mark.parametrize("quirk", sorted(QUIRKS_REFUSED))
def test_file_quirks_refused_with_one_line(quirk, tmp_path, capsys):
    text, message = QUIRKS_REFUSED[quirk]
    path = tmp_path / "odd.csv"
    path.write_text(text)
    code, _, err = _run(["audit", str(path), *BASE], capsys)
    _one_line_error(code, err, message)


def test_score_missing_and_not_utf8(tmp_path, capsys):
    path = tmp_path / "odd.csv"
    path.write_text(_with_cell(3, 1, "NA"))
    argv = ["--label", "y", "--score", "score", "--group", "grp", "--quiet"]
    code, _, err = _run(["audit", str(path), *argv], capsys)
    _one_line_error(code, err, "score column 'score' has 1 missing values")
    path.write_bytes(CLEAN.replace("a\n", "\xe9\n").encode("latin-1"))
    code, _, err = _run(["audit", str(path), *argv], capsys)
    _one_line_error(code, err, "is not UTF-8 text (byte 0xe9 on line 3)")


def test_quirk_functions():
    assert decode_text(b"\xef\xbb\xbfa,b\n", "f") == "a,b\n"
    assert detect_delimiter('"a;b",c\n1,2') == (",", '"a;b",c\n1,2')
    assert detect_delimiter("sep=|\na|b\n") == ("|", "a|b\n")
    assert detect_delimiter("single\n1\n") == (",", "single\n1\n")
    header, rows = split_records("a,b,\n1,2,\n\n3,4,\n", ",", "f")
    assert header == ["a", "b"] and rows == [["1", "2"], ["3", "4"]]
    values = parse_column(["1", "NA", " 2.5"], "x")
    assert values.dtype == np.float64 and np.isnan(values[1]) and values[2] == 2.5
    assert parse_column(["TRUE", "false"], "x").tolist() == [True, False]
    assert parse_column(["NA", "b"], "g").tolist() == ["NA", "b"]  # text: "NA" may be a name
    with pytest.raises(ValueError, match="commas"):
        parse_column(["1,234", "12"], "x")


def test_control_characters_never_break_the_one_line_contract(tmp_path, capsys):
    rows = "".join(f'{i % 2},{i % 3 > 0:d},"grp\nline{i % 2}\tx"\n' for i in range(40))
    path = tmp_path / "odd.csv"
    path.write_text("y,pred,grp\n" + rows)
    code, out, _ = _run(["audit", str(path), *BASE], capsys)
    assert code == 0
    assert "grp\\nline0\\tx" in out and "grp\\nline1\\tx" in out  # labels escaped
    assert "\t" not in out and not any(line.startswith("line") for line in out.splitlines())
    missing = tmp_path / "no\nsuch.csv"
    code, _, err = _run(["audit", str(missing), *BASE], capsys)
    _one_line_error(code, err, "no such file")


def test_other_broken_pipe_is_an_error_not_a_silent_exit(monkeypatch, capsys):
    """A BrokenPipeError that is not stdout's (a dask worker's socket, a subprocess) used to
    end the command with status 1 and no message, like a reader that left `| head`: now it
    is reported on stderr."""
    from fastfair.cli import commands

    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(commands, "_audit_command", broken)
    assert commands.main(["audit", "--demo"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("fastfair: error: broken pipe") and out == ""


def test_closed_pipe_ends_quietly(tmp_path):
    """`fastfair audit ... | head -1`: no BrokenPipeError traceback once the reader leaves."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    path = tmp_path / "many.csv"
    groups = np.repeat([f"g{i:04d}" for i in range(400)], 10)
    rows = [
        f"{a},{b},{g}"
        for a, b, g in zip(rng.integers(0, 2, 4000), rng.integers(0, 2, 4000), groups)
    ]
    path.write_text("label,pred,grp\n" + "\n".join(rows) + "\n")
    code = "import sys; from fastfair.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["audit", str(path), "--label", "label", "--pred", "pred", "--group", "grp"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--max-rows", "5000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline()  # the first line arrives, then the reader leaves
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 1


def test_a_blank_name_in_names_is_refused(data, capsys):
    code, _, err = _run(
        ["audit", str(data), "--no-header", "--names", "y", " ", "pred", "grp", *BASE], capsys
    )
    _one_line_error(code, err, "--names: a column name is empty")


def test_pos_label_in_the_label_columns_type():
    """--pos-label text becomes a value of the label column's type: true/false or 1/0 for a
    bool column (any case, spaces around), a float for a numeric one, else the text."""
    from fastfair.cli.loading import _pos_label

    flags = np.array([True, False])
    for text, want in (
        ("1", True),
        ("TRUE ", True),
        ("true", True),
        ("0", False),
        ("false", False),
    ):
        value = _pos_label(text, flags)
        assert isinstance(value, np.bool_) and bool(value) is want, text
    value = _pos_label("2", np.array([1.0, 2.0]))
    assert isinstance(value, float) and value == 2.0
    assert _pos_label("yes", np.array(["yes", "no"], dtype=object)) == "yes"
    assert _pos_label(None, flags) is None


def test_copies_of_a_column_equal_with_their_missing_cells_are_one_column(tmp_path):
    """A repeated float column whose copies are equal, empty cells (NaN) included, is kept
    once and not ambiguous; copies that differ in one cell are."""
    path = tmp_path / "rep.csv"
    path.write_text("y,s,grp,s\n1,0.5,a,0.5\n0,,b,\n1,0.25,a,0.25\n")
    table = cli.read_table(str(path))
    assert table.ambiguous == {} and np.isnan(table["s"][1]) and table["s"][0] == 0.5
    path.write_text("y,s,grp,s\n1,0.5,a,0.5\n0,,b,0.1\n1,0.25,a,0.25\n")
    assert cli.read_table(str(path)).ambiguous == {"s": [2, 4]}


def test_a_missing_cluster_cell_is_refused_naming_its_row(tmp_path, capsys):
    path = tmp_path / "u.csv"
    rows = [f"{i % 2},{(i * 3 % 5) > 1:d},{'ab'[i % 3 == 0]},u{i // 2}" for i in range(40)]
    rows[6] = rows[6].rsplit(",", 1)[0] + ","
    path.write_text("y,pred,grp,user\n" + "\n".join(rows) + "\n")
    code, _, err = _run(["audit", str(path), *BASE, "--cluster", "user"], capsys)
    _one_line_error(code, err, "cluster column 'user' has 1 missing values")
    assert "the first in data row 7" in err


def test_scores_outside_0_and_1_need_no_threshold_when_predictions_are_given(tmp_path, capsys):
    """--threshold turns scores into predictions: with --pred given, scores on another scale
    (logits) are read as they are, for the AUC, and no threshold is asked for."""
    path = tmp_path / "logit.csv"
    rows = [f"{i % 2},{(i * 3 % 5) > 1:d},{(i % 7) - 3.5 + 2 * (i % 2)},{'ab'[i % 3 == 0]}"
            for i in range(80)]  # fmt: skip
    path.write_text("y,pred,logit,grp\n" + "\n".join(rows) + "\n")
    argv = ["audit", str(path), "--label", "y", "--pred", "pred", "--score", "logit"]
    code, _, err = _run([*argv, "--group", "grp", "--metrics", "tpr", "--quiet"], capsys)
    assert code == 0, err
    code, _, err = _run(["audit", str(path), "--label", "y", "--score", "logit",
                         "--group", "grp", "--metrics", "tpr", "--quiet"], capsys)  # fmt: skip
    _one_line_error(code, err, "give --threshold")


def test_a_reference_group_whose_label_holds_an_equals_sign(tmp_path, capsys):
    """--reference COLUMN=GROUP splits at the first "=": a group labelled "age=40+" is the
    reference of `--reference grp=age=40+` (not the default, the largest group)."""
    path = tmp_path / "eq.csv"
    rows = [
        f"{i % 2},{(i * 3 % 5) > 1:d},{['age=20-40', 'age=40+'][i % 3 == 0]}" for i in range(60)
    ]
    path.write_text("y,pred,grp\n" + "\n".join(rows) + "\n")
    out = tmp_path / "a.json"
    argv = ["audit", str(path), *BASE, "--reference", "grp=age=40+", "--json", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    audit = json.loads(out.read_text())
    assert [a["reference"] for a in audit["attributes"]] == ["age=40+"]
    assert [(t["group"], t["reference"]) for t in audit["tests"]] == [("age=20-40", "age=40+")]


def test_max_rows_zero_is_allowed_and_limits_only_the_printed_table(data, tmp_path, capsys):
    """--max-rows is ">= 0": 0 (print no test) is accepted, -1 refused; the JSON keeps every
    test whatever the limit."""
    outs = []
    for limit in ("0", "50"):
        out = tmp_path / f"max{limit}.json"
        code, _, err = _run(
            ["audit", str(data), *BASE, "--max-rows", limit, "--json", str(out)], capsys
        )
        assert code == 0, err
        outs.append(json.loads(out.read_text())["tests"])
    assert outs[0] == outs[1] and len(outs[0]) > 0
    code, _, err = _run(["audit", str(data), *BASE, "--max-rows", "-1"], capsys)
    _one_line_error(code, err, "--max-rows must be >= 0, got -1")


def test_two_reference_groups_for_one_group_column_are_refused(data, no_reading, capsys):
    """One --group column takes one --reference label; a second one is not silently
    dropped (the first kept) but refused before the data are read."""
    code, out, err = _run(["audit", str(data), *BASE, "--reference", "a", "b"], capsys)
    _one_line_error(code, err, "--reference")
    assert out == ""


def test_a_reference_column_name_with_spaces_around_it(data, tmp_path, capsys):
    """`--reference "grp =b"`: the column name is read without the spaces around it (as
    the check of the names does), so b, the smaller group, is the reference (counted by
    hand: 20 of 60 rows), not the default largest group a."""
    out = tmp_path / "ref.json"
    argv = ["audit", str(data), *BASE, "--reference", "grp =b", "--json", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    audit = json.loads(out.read_text())
    assert [a["reference"] for a in audit["attributes"]] == ["b"]
    assert [(t["group"], t["reference"]) for t in audit["tests"]] == [("a", "b")]


def test_plan_rate_names_are_read_without_the_spaces_around_them(tmp_path, capsys):
    """`--rate "tpr = 0.7,0.8"` is the rate tpr (spaces around the name and values, as a
    shell user may quote them): the same plan as `--rate tpr=0.7,0.8`."""
    plans = []
    for rates in (
        ["tpr=0.7,0.8", "prevalence=0.3,0.4"],
        ["tpr = 0.7, 0.8", " prevalence =0.3,0.4"],
    ):
        out = tmp_path / f"plan{len(plans)}.json"
        argv = ["plan", "--metric", "tpr", "--tau", "0.1", "--json", str(out)]
        for r in rates:
            argv += ["--rate", r]
        code, _, err = _run(argv, capsys)
        assert code == 0, err
        plans.append(json.loads(out.read_text()))
    assert plans[0] == plans[1]


def test_a_csv_file_of_exactly_the_large_size_is_still_read_whole(tmp_path, capsys, monkeypatch):
    """LARGE_CSV_BYTES is the largest file read whole (quirks, --no-header): a file of
    exactly that size is read whole, one byte more goes to the batch reader, which
    refuses --no-header."""
    path = tmp_path / "rows.csv"
    path.write_text(CLEAN.split("\n", 1)[1])  # the data rows, no header line
    argv = ["audit", str(path), "--no-header", "--names", "y", "score", "pred", "grp"]
    argv += BASE[4:]  # --group grp --metrics tpr --quiet
    argv += ["--label", "y", "--pred", "pred"]
    monkeypatch.setattr(cli.loading, "LARGE_CSV_BYTES", path.stat().st_size)
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    monkeypatch.setattr(cli.loading, "LARGE_CSV_BYTES", path.stat().st_size - 1)
    code, _, err = _run(argv, capsys)
    _one_line_error(code, err, "--no-header: only CSV files read whole")


def test_missing_tokens_in_a_text_column_are_missing_in_any_case(tmp_path, capsys):
    """A text label column (yes/no) with "NA" and "NULL" cells: both are missing, whatever
    their case, and the audit is refused naming the count and the first data row; the
    mask of missing_cells, cell by cell, against the documented tokens."""
    from fastfair._textfile import missing_cells

    cells = ["yes", "NA", "no", "NULL", "None", "n/a", "#N/A", "NaN", "", "nan", "Nab"]
    want = [False, True, False, True, True, True, True, True, True, True, False]
    assert missing_cells(np.array(cells, dtype=object)).tolist() == want
    assert missing_cells(np.array(cells)).tolist() == want  # a fixed-width text array
    lines = ["y,pred,grp"] + [f"{'yes' if i % 2 else 'no'},{'yes' if i % 3 else 'no'},"
                              f"{'ab'[i % 2]}" for i in range(40)]  # fmt: skip
    lines[4] = "NA,yes,a"
    lines[9] = "NULL,no,b"
    path = tmp_path / "text.csv"
    path.write_text("\n".join(lines) + "\n")
    argv = ["audit", str(path), "--label", "y", "--pred", "pred", "--group", "grp",
            "--pos-label", "yes", "--quiet"]  # fmt: skip
    code, _, err = _run(argv, capsys)
    _one_line_error(code, err, "label column 'y' has 2 missing values (empty, NA, null or NaN; "
                               "the first in data row 4)")  # fmt: skip


@pytest.mark.parametrize(
    "argv,message",
    [
        (["audit", "DATA", "--demo", "--quiet"], "give DATA or --demo, not both"),
        (["audit", "--label", "y", "--pred", "pred", "--group", "grp"],
         "give a DATA file (CSV or Parquet) or --demo"),
        (["audit", "DATA", "--pred", "pred", "--group", "grp"], "--label is required"),
        (["audit", "DATA", "--label", "y", "--pred", "pred"], "--group is required"),
        (["audit", "DATA", *BASE, "--engine", "memory", "--scheduler", "tcp://h:8786"],
         "--scheduler needs --engine dask"),
        (["audit", "DATA", *BASE, "--engine", "dask", "--master", "local[1]"],
         "--master needs --engine spark"),
        (["audit", "DATA", *BASE, "--engine", "arrow", "--compare", "score", "pred"],
         "--compare runs in memory: use --engine memory, not arrow"),
        (["audit", "DATA", *BASE, "--master", "local[1]", "--compare", "score", "pred"],
         "--compare runs in memory: use --engine memory, not spark"),
        (["audit", "--demo", "--no-header", "--names", "a", "b", "--quiet"],
         "--no-header and --names are for a DATA file, not --demo"),
        (["plan", "--metric", "tpr", "--tau", "0.1", "--rate", "tpr=0.7,x"],
         "--rate 'tpr=0.7,x': expected NAME=VALUE,VALUE"),
        (["plan", "--metric", "tpr", "--tau", "0.1", "--rate", "tpr=0.7,0.8",
          "--allocation", "half"], "--allocation must be neyman, equal or a fraction: half"),
    ],
)  # fmt: skip
def test_options_that_cannot_go_together_exit_2_before_reading(argv, message, data, no_reading,
                                                                capsys):  # fmt: skip
    """Each refused combination of options (docs/cli.md): one line naming it, exit status 2,
    and the data never read (the demo's neither)."""
    argv = [str(data) if a == "DATA" else a for a in argv]
    code, out, err = _run(argv, capsys)
    _one_line_error(code, err, message)
    assert out == ""


def test_pos_label_on_a_true_false_label_column(tmp_path, capsys):
    """A true/false label column: --pos-label true and 1 mean True, false and 0 mean False
    (the audit of --pos-label false is that of the negated labels, counted here as the TPR
    of the rows labelled false); any other value is refused naming the column's type."""
    rng = np.random.default_rng(8)
    n = 120
    y, pred = rng.random(n) < 0.5, rng.random(n) < 0.5
    grp = np.repeat(["a", "b"], n // 2)
    path = tmp_path / "bool.csv"
    path.write_text("y,pred,grp\n" + "".join(
        f"{'TRUE' if a else 'FALSE'},{'TRUE' if b else 'FALSE'},{g}\n"
        for a, b, g in zip(y, pred, grp)))  # fmt: skip
    base = ["audit", str(path), "--label", "y", "--pred", "pred", "--group", "grp",
            "--metrics", "tpr", "--quiet", "--permutations", "99"]  # fmt: skip
    values = {}
    for text in ("true", "1", "false", "0"):
        out_json = tmp_path / f"{text}.json"
        code, _, _ = _run([*base, "--pos-label", text, "--json", str(out_json)], capsys)
        assert code == 0
        (t,) = json.loads(out_json.read_text())["tests"]
        order = (t["group"], t["reference"])
        values[text] = (t["value_group"], t["value_reference"])
    for positive, rows in (("true", y), ("false", ~y)):
        hit = pred == positive.startswith("t")  # the prediction of the positive class
        want = tuple((hit & rows & (grp == g)).sum() / (rows & (grp == g)).sum() for g in order)
        assert values[positive] == pytest.approx(want, rel=1e-12)
    assert values["1"] == values["true"] != values["false"] == values["0"]
    code, _, err = _run([*base, "--pos-label", "yes"], capsys)
    _one_line_error(code, err, "--pos-label 'yes': the label column is true/false")


def test_a_text_score_column_is_refused_naming_it(tmp_path, capsys):
    path = tmp_path / "text_score.csv"
    path.write_text("y,s,grp\n" + "".join(f"{i % 2},{'hml'[i % 3]},{'ab'[i % 2]}\n"
                                         for i in range(40)))  # fmt: skip
    code, _, err = _run(["audit", str(path), "--label", "y", "--score", "s", "--group", "grp",
                         "--quiet"], capsys)  # fmt: skip
    _one_line_error(code, err, "score column 's' must be numeric and finite")


def test_text_file_rules_at_their_edges():
    """The rarer rules of fastfair._textfile, each on a file written here: UTF-16 with a BOM
    but broken, a CSV the csv module refuses (a NUL byte), a trailing delimiter on every line
    of a file without a header row (dropped), and a column with every cell missing (NaN).
    (The csv module refuses a field of more than 131,072 characters.)"""
    with pytest.raises(ValueError, match=r"f\.csv starts like UTF-16 but is not valid UTF-16"):
        decode_text(b"\xff\xfea\x00b", "f.csv")
    assert decode_text("y,g\n1,a\n".encode("utf-16"), "f.csv") == "y,g\n1,a\n"
    with pytest.raises(ValueError, match=r"cannot read f\.csv as CSV: field larger than"):
        split_records("a,b\n" + "x" * 200_000 + ",1\n", ",", "f.csv")
    header, rows = split_records("1,a,\n0,b,\n", ",", "f.csv", names=["y", "g"])
    assert header == ["y", "g"] and rows == [["1", "a"], ["0", "b"]]
    with pytest.raises(ValueError, match="line 2 has 3 fields, --names gives 2"):
        split_records("1,a\n0,b,\n", ",", "f.csv", names=["y", "g"])
    values = parse_column(["", "NA", "null"], "x")
    assert values.dtype == np.float64 and np.isnan(values).all() and len(values) == 3


@pytest.mark.parametrize(
    "sep_line, line_end",
    [("sep=;", "\r\n"), ("sep=;", "\r"), ("SEP=;", "\n"), ("\ufeffsep=;", "\r\n")],
)
def test_excel_sep_line_with_other_line_ends_reads_like_the_clean_file(
    sep_line, line_end, tmp_path
):
    """Excel's ``sep=;`` first line combined with Windows (CRLF) or old Mac (CR) line ends,
    written in capitals, or after a byte-order mark: the delimiter line is recognised and
    skipped, and every column reads as the comma-separated, LF file's (compared column by
    column)."""
    clean = tmp_path / "clean.csv"
    clean.write_text(CLEAN)
    odd = tmp_path / "odd.csv"
    body = CLEAN.replace(",", ";").replace("\n", line_end)
    odd.write_bytes((sep_line + line_end + body).encode())
    want, got = cli.read_table(str(clean)), cli.read_table(str(odd))
    assert list(got) == list(want) == ["y", "score", "pred", "grp"]
    for name in want:
        assert got[name].dtype == want[name].dtype
        assert got[name].tolist() == want[name].tolist()


def test_a_true_false_column_with_a_missing_cell_stays_text_with_the_cell_missing():
    """TRUE/FALSE cells are booleans only when every cell is one: with an empty cell the
    column stays text (the doc's rule for missing cells outside numeric columns), and
    missing_cells marks exactly that cell; the complete column is bool."""
    from fastfair._textfile import missing_cells

    cells = ["TRUE", "", "false"]
    values = parse_column(cells, "x")
    assert values.dtype.kind == "U" and values.tolist() == cells
    assert missing_cells(values).tolist() == [c == "" for c in cells]
    full = parse_column(["TRUE", "FALSE", "false"], "x")
    assert full.dtype == bool and full.tolist() == [True, False, False]


def test_every_spelling_of_a_missing_cell_is_missing_in_any_case():
    """The missing tokens ("", NA, N/A, #N/A, NaN, null, None) in any capitalisation are NaN
    in a numeric column (the other cells read as float() reads them) and missing in a text
    column (missing_cells), where the other cells are not."""
    from fastfair._textfile import missing_cells

    tokens = ["", "NA", "na", "N/A", "n/a", "#N/A", "#n/a", "NaN", "nan", "NULL", "null",
              "Null", "None", "NONE", "none"]  # fmt: skip
    numbers = ["1", "2.5", "-3e2"]
    values = parse_column([*numbers, *tokens], "x")
    assert values.dtype == np.float64
    assert values[: len(numbers)].tolist() == [float(c) for c in numbers]
    assert np.isnan(values[len(numbers) :]).all()
    text = parse_column(["a", "b", *tokens], "g")
    assert missing_cells(text).tolist() == [False, False] + [True] * len(tokens)


@pytest.mark.parametrize("cell", ["0,75", ",5", "-,5", "1,234", "12,345,678", "-1,234.5"])
def test_numbers_with_commas_are_refused_in_every_form(cell):
    """A decimal comma (0,75 and ,5 without a leading digit, signed too) or thousands
    separators in a column otherwise numeric are refused, naming the cell; a text column
    with commas inside words is text."""
    with pytest.raises(ValueError, match=f"numbers written with commas \\(e.g. '{cell}'\\)"):
        parse_column(["1", cell], "x")
    assert parse_column(["a,b", "1"], "g").tolist() == ["a,b", "1"]


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_each_delimiter_is_detected_and_the_file_reads_like_the_comma_one(delimiter, tmp_path):
    """Each documented delimiter (comma, semicolon, tab, pipe) is taken from the header
    line, even when a quoted name holds every other candidate; the file then reads column
    by column as the comma-separated one."""
    others = "".join(d for d in (",", ";", "\t", "|") if d != delimiter)
    header = delimiter.join(["y", f'"x{others}x"', "g"])
    assert detect_delimiter(header + "\n1\n") == (delimiter, header + "\n1\n")
    clean = tmp_path / "clean.csv"
    clean.write_text(CLEAN)
    odd = tmp_path / "odd.csv"
    odd.write_text(CLEAN.replace(",", delimiter))
    want, got = cli.read_table(str(clean)), cli.read_table(str(odd))
    assert list(got) == list(want)
    for name in want:
        assert got[name].tolist() == want[name].tolist()


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_either_byte_order_mark_reads_like_the_utf8_file(encoding, tmp_path):
    """UTF-16 text with a byte-order mark, little-endian (FF FE, Windows' "Unicode text")
    or big-endian (FE FF): decoded by its mark and read column by column as the UTF-8
    file (the bytes written here with Python's own codec and an explicit BOM)."""
    raw = ("\ufeff" + CLEAN).encode(encoding)
    assert raw[:2] == (b"\xff\xfe" if encoding.endswith("le") else b"\xfe\xff")
    assert decode_text(raw, "f.csv") == CLEAN
    clean, odd = tmp_path / "clean.csv", tmp_path / "odd.csv"
    clean.write_text(CLEAN)
    odd.write_bytes(raw)
    want, got = cli.read_table(str(clean)), cli.read_table(str(odd))
    assert list(got) == list(want)
    for name in want:
        assert got[name].tolist() == want[name].tolist()


def test_a_row_of_blank_cells_is_skipped_like_an_empty_row():
    """A row whose cells are all spaces (" , , ") is skipped like an empty line or a row of
    empty cells: the header and the data rows are those of the file without it, and the
    line numbers in messages still count it."""
    text = "y,g\n1,a\n  , \n0,b\n,\n"
    header, rows = split_records(text, ",", "f.csv")
    assert header == ["y", "g"] and rows == [["1", "a"], ["0", "b"]]
    with pytest.raises(ValueError, match="line 4 has 3 fields, the header has 2"):
        split_records("y,g\n1,a\n \t, \n0,b,c\n", ",", "f.csv")


def test_an_excel_sep_line_in_any_case(tmp_path, capsys):
    """Excel's 'sep=X' line is recognised in any case ('SEP=;' too): the delimiter it names is
    used and the line skipped, so the file audits as the comma-separated one."""
    assert detect_delimiter("SEP=;\na;b\n") == (";", "a;b\n")
    assert detect_delimiter("Sep=|\na|b\n") == ("|", "a|b\n")
    clean = tmp_path / "clean.csv"
    clean.write_text(CLEAN)
    upper = tmp_path / "upper.csv"
    upper.write_text("SEP=;\n" + CLEAN.replace(",", ";"))
    assert _audit_of(upper, capsys) == _audit_of(clean, capsys)


def test_a_trailing_delimiter_column_is_dropped_only_when_empty_on_every_line():
    """The unnamed last column of a header ending in a delimiter is dropped only when every
    row has it and leaves it empty: a row with a value there keeps the column (nothing is
    lost), and a row without the trailing delimiter is refused with the header's width."""
    header, rows = split_records("a,b,\n1,2,\n3,4,\n", ",", "f.csv")
    assert header == ["a", "b"] and rows == [["1", "2"], ["3", "4"]]
    header, rows = split_records("a,b,\n1,2,\n3,4,5\n", ",", "f.csv")
    assert header == ["a", "b", ""] and rows == [["1", "2", ""], ["3", "4", "5"]]
    with pytest.raises(ValueError, match=r"^f\.csv: line 3 has 2 fields, the header has 3 "):
        split_records("a,b,\n1,2,\n3,4\n", ",", "f.csv")


def test_delimiters_inside_quoted_header_names_are_not_counted():
    """The delimiter is the candidate most frequent in the header OUTSIDE quotes: a quoted
    name holding three ';' does not outvote two commas, and the file reads by commas."""
    text = 'y,pred,"grp;a;b;c"\n1,0,x\n0,1,z\n'
    assert detect_delimiter(text) == (",", text)
    header, rows = split_records(text, ",", "f.csv")
    assert header == ["y", "pred", "grp;a;b;c"] and rows == [["1", "0", "x"], ["0", "1", "z"]]
    assert detect_delimiter('"a,b,c";d\n1;2\n')[0] == ";"  # and the other way round
