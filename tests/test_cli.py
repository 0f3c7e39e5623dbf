"""End-to-end tests of the `fastfair` command line."""

import base64
import html.parser
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import fastfair
from fastfair.cli import main


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


DEMO = ["audit", "--demo", "--quiet", "--permutations", "999"]


@pytest.fixture(scope="module")
def demo_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "audit.json"
    assert main([*DEMO, "--json", str(path)]) == 0
    return json.loads(path.read_text())


def _demo_table():
    from importlib import resources

    return fastfair.cli.read_table(str(resources.files("fastfair") / "data" / "adult_demo.csv"))


def test_demo_audits_sex_race_and_their_intersection(demo_json):
    assert demo_json["schema_version"] == 2 and demo_json["n_rows"] == 16281
    names = [a["name"] for a in demo_json["attributes"]]
    assert names == ["sex", "race", "sex & race"]
    assert {g["group"] for g in demo_json["attributes"][0]["groups"]} == {"Female", "Male"}
    assert len(demo_json["attributes"][2]["groups"]) == 10  # 2 sexes x 5 races
    assert {t["attribute"] for t in demo_json["tests"]} == set(names)


def test_library_audit_equals_the_cli_json(demo_json):
    """fastfair.audit on the demo gives the CLI's JSON (all but the run time)."""
    result = fastfair.audit(
        "label",
        y_score="score",
        sensitive_features=["sex", "race"],
        intersections=True,
        data=_demo_table(),
        n_permutations=999,
    )
    library = result.to_dict()
    cli_json = dict(demo_json)
    for d in (library, cli_json):
        assert d.pop("elapsed_seconds") > 0
    assert library == cli_json


def test_demo_sex_tests_match_the_library_tests(demo_json):
    table = _demo_table()
    y, score, sex = table["label"], table["score"], table["sex"]
    pred = (score >= 0.5).astype(int)
    by_metric = {t["metric"]: t for t in demo_json["tests"] if t["attribute"] == "sex"}
    for metric in ("tpr", "fpr", "ppv", "selection_rate", "accuracy", "equalized_odds"):
        res = fastfair.permutation_test(y, pred, sex, metric=metric, random_state=0)
        assert by_metric[metric]["pvalue"] == pytest.approx(res.pvalue, rel=1e-12)
        assert by_metric[metric]["statistic"] == pytest.approx(res.statistic, rel=1e-12)
        assert by_metric[metric]["group"] == "Female" and by_metric[metric]["reference"] == "Male"
    auc = fastfair.auc_test(y, score, sex, n_permutations=999, random_state=0)
    assert by_metric["auc"]["pvalue"] == pytest.approx(auc.pvalue)
    p = [t["pvalue"] for t in demo_json["tests"] if "pvalue" in t]
    np.testing.assert_allclose(
        [t["pvalue_adjusted"] for t in demo_json["tests"] if "pvalue" in t],
        fastfair._pvalues.adjust_pvalues(p, "holm"),
    )


def test_printed_table(capsys, tmp_path):
    os.chdir(tmp_path)
    argv = ["audit", "--demo", "--quiet", "--metrics", "tpr", "fpr", "--permutations", "99"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    assert "tpr" in out and "Female vs Male" in out and "verdict" in out
    assert "Black vs White" in out and "Female & Black vs Male & White" in out
    assert "Kohavi 1996" in out
    assert os.listdir(tmp_path) == []  # nothing written unless asked


def _write_csv(path, n=400, seed=0, groups=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    g = rng.choice(groups, n)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1)
    with open(path, "w") as fh:
        fh.write("y,score,pred,grp,user\n")
        for i in range(n):
            fh.write(f"{y[i]},{s[i]:.4f},{int(s[i] >= 0.5)},{g[i]},{i // 4}\n")
    return y, s, g


def test_generated_csv_and_parquet(tmp_path, capsys):
    csv_path = tmp_path / "d.csv"
    y, s, g = _write_csv(csv_path)
    out_json = tmp_path / "r.json"
    code, _, _ = _run(
        [
            "audit",
            str(csv_path),
            "--label",
            "y",
            "--pred",
            "pred",
            "--group",
            "grp",
            "--reference",
            "a",
            "--metrics",
            "fnr",
            "--json",
            str(out_json),
            "--quiet",
        ],
        capsys,
    )
    assert code == 0
    tests = json.loads(out_json.read_text())["tests"]
    res = fastfair.permutation_test(y, (s >= 0.5).astype(int), g, metric="fnr", reference="a")
    assert [t["pvalue"] for t in tests] == pytest.approx(list(res.pvalue), rel=1e-9)
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq_path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"y": y, "pred": (s >= 0.5).astype(int), "grp": g}), pq_path)
    out_pq = tmp_path / "p.json"
    assert (
        main(
            [
                "audit",
                str(pq_path),
                "--label",
                "y",
                "--pred",
                "pred",
                "--group",
                "grp",
                "--reference",
                "a",
                "--metrics",
                "fnr",
                "--json",
                str(out_pq),
                "--quiet",
            ]
        )
        == 0
    )
    assert [t["pvalue"] for t in json.loads(out_pq.read_text())["tests"]] == pytest.approx(
        [t["pvalue"] for t in tests]
    )


def test_several_groups_references_and_adjustment(tmp_path, capsys):
    """--group a b --intersections --reference a=X b=Y --adjust: as fastfair.audit."""
    rng = np.random.default_rng(4)
    n = 600
    a, b = rng.choice(["P", "Q"], n), rng.choice(["X", "Y", "Z"], n)
    y, pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    path = tmp_path / "d.csv"
    path.write_text("y,pred,a,b\n" + "".join(f"{r[0]},{r[1]},{r[2]},{r[3]}\n"
                                            for r in zip(y, pred, a, b)))  # fmt: skip
    out = tmp_path / "r.json"
    argv = ["audit", str(path), "--label", "y", "--pred", "pred", "--group", "a", "b"]
    argv += ["--intersections", "--reference", "a=Q", "b=Z", "--adjust", "bonferroni"]
    argv += ["--metrics", "tpr", "--quiet", "--json", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    got = json.loads(out.read_text())
    frame = {"y": y, "pred": pred, "a": a, "b": b}
    want = fastfair.audit(
        "y", "pred", ["a", "b"], data=frame, metrics=["tpr"], intersections=True,
        reference={"a": "Q", "b": "Z"}, adjust="bonferroni",
    ).to_dict()  # fmt: skip
    for d in (got, want):
        d.pop("elapsed_seconds")
    assert got["tests"] == want["tests"] and got["attributes"] == want["attributes"]
    combos, sizes = np.unique(np.char.add(np.char.add(a, " & "), b), return_counts=True)
    largest = combos[np.argmax(sizes)]  # the intersection's reference: its largest group
    assert [x["reference"] for x in got["attributes"]] == ["Q", "Z", largest]
    p = np.array([t["pvalue"] for t in got["tests"]])
    assert [t["pvalue_adjusted"] for t in got["tests"]] == list(np.minimum(1, p * len(p)))
    code, _, err = _run([*argv[:-2], "--reference", "Q"], capsys)
    assert code == 2 and "give COLUMN=GROUP for each" in err


class _ImageCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs)["src"])


def test_html_report_embeds_forest_and_calibration(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    report = tmp_path / "r.html"
    code, _, _ = _run([*DEMO[:3], "--permutations", "199", "--report", str(report)], capsys)
    assert code == 0
    parser = _ImageCollector()
    parser.feed(report.read_text())
    # calibration curves: one panel for sex (2 groups), one per group for race (5) and
    # sex & race (10); the rate gaps across thresholds of sex: TPR and FPR
    assert "table" in parser.tags and "svg" in parser.tags and len(parser.images) == 18
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["audit", "missing.csv", "--label", "y", "--pred", "pred", "--group", "grp"],
            "no such file",
        ),
        (
            ["audit", "{csv}", "--label", "nope", "--pred", "pred", "--group", "grp"],
            "unknown label column 'nope'; available: y, score, pred, grp, user",
        ),
        (
            ["audit", "{csv}", "--label", "score", "--pred", "pred", "--group", "grp"],
            "label column 'score' must be binary",
        ),
        (["audit", "{bin}", "--label", "y", "--pred", "pred", "--group", "grp"], "cannot read"),
        (
            ["audit", "{csv}", "--label", "y", "--pred", "pred", "--group", "user"],
            "no attribute has two groups with at least 10 rows (user: 0.0 (4)",
        ),
        (["audit", "{csv}", "--label", "y", "--group", "grp"], "give --pred"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, tmp_path, capsys):
    csv_path = tmp_path / "d.csv"
    _write_csv(csv_path)
    binary = tmp_path / "junk.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 100)
    argv = [a.format(csv=csv_path, bin=binary) for a in argv]
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("fastfair: error: ")
    assert message in err


def test_plan_command(capsys):
    code, out, _ = _run(
        [
            "plan",
            "--metric",
            "tpr",
            "--rate",
            "tpr=0.6835,0.7894",
            "--rate",
            "prevalence=0.3478,0.4404",
            "--tau",
            "0.1059",
        ],
        capsys,
    )
    assert code == 0
    expected = fastfair.sample_size(
        "tpr", rates={"tpr": [0.6835, 0.7894], "prevalence": [0.3478, 0.4404]}, tau=0.1059
    )
    assert str(expected) in out
    code, _, err = _run(["plan", "--metric", "tpr", "--tau", "0.1"], capsys)
    assert code == 2 and err.startswith("fastfair: error:")


def test_console_entry_point():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "fastfair",
            "audit",
            "--demo",
            "--quiet",
            "--metrics",
            "tpr",
            "--permutations",
            "99",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "tpr" in out and "Female vs Male" in out


def test_console_script_and_python_m_reach_the_same_main():
    """The package move kept both ways in: the `fastfair` script (pyproject's
    [project.scripts]) and `python -m fastfair`."""
    import importlib.metadata

    (script,) = [
        e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "fastfair"
    ]
    assert script.value == "fastfair.cli:main"
    assert script.load() is fastfair.cli.main
    out = subprocess.run(
        [sys.executable, "-m", "fastfair", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == fastfair.__version__


def test_calibration_panels_with_many_groups_and_no_bands():
    """More than three groups: one small panel per group (the other groups' curves in grey);
    up to three: one panel. No pointwise band is drawn (they under-cover for small groups
    and rare outcomes, validation/results/parity_band_coverage.txt), and the page says so."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastfair.auditing.report import BAND_COVERAGE, _calibration_panel

    rng = np.random.default_rng(5)
    n = 3000
    y = rng.random(n) < 0.4
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    groups = {"g": rng.choice(list("abcde"), n), "sex": rng.choice(["F", "M"], n)}
    res = fastfair.audit(y, None, groups, y_score=score, metrics=["tpr"], n_permutations=99)
    page = res.to_html()
    assert sorted(re.findall(r"alt='calibration curve of g = (\w)'", page)) == list("abcde")
    assert page.count("alt='calibration curves of sex'") == 1
    assert f"as little as {BAND_COVERAGE} of the time" in page
    curve = res.parity["g"].curve
    for j in range(5):
        fig, ax = plt.subplots()
        _calibration_panel(ax, curve, [j], "panel", small=True)
        assert len(ax.collections) == 0  # no fill_between: no band
        assert len(ax.lines) == 5 + 1  # its curve, the 4 others in grey, the diagonal
        (own,) = [line for line in ax.lines if line.get_color() == "C0"]
        finite = np.isfinite(curve.standard_error[j])
        np.testing.assert_allclose(own.get_ydata()[finite], curve.estimate[j][finite])
        plt.close(fig)


@pytest.mark.parametrize(
    ("engine", "option", "address"),
    [("dask", "--scheduler", "tcp://10.0.0.1:8786"), ("spark", "--master", "local[3]")],
)
def test_the_engine_gets_its_own_place_option(tmp_path, monkeypatch, capsys, engine, option,
                                              address):  # fmt: skip
    """--scheduler reaches the dask engine and --master the Spark engine, as fastfair.audit's
    scheduler (written for round ten's r10-cli-spark-master: the two swapped)."""
    pytest.importorskip("pyarrow")
    path = tmp_path / "log.csv"
    path.write_text("y,p,g\n" + "".join(f"{i % 2},{i // 2 % 2},{'ab'[i % 3 > 0]}\n"
                                          for i in range(60)))  # fmt: skip
    seen = {}

    def fake_audit(*args, **kwargs):
        seen.update(kwargs)
        raise ValueError("stop here")

    monkeypatch.setattr(fastfair, "audit", fake_audit)
    argv = ["audit", str(path), "--label", "y", "--pred", "p", "--group", "g",
            "--engine", engine, option, address]  # fmt: skip
    assert fastfair.cli.main(argv) == 2
    assert "stop here" in capsys.readouterr().err
    assert seen["engine"] == engine and seen["scheduler"] == address


def test_monitor_reads_a_parquet_batch_as_its_csv_and_names_a_missing_column(tmp_path, capsys):
    """`fastfair monitor` on a Parquet batch: the same state as on the same rows as CSV (the
    reader's Parquet branch), numeric group labels matched to --reference as numbers; a
    column the batch lacks is named with the columns it has; a folder is refused."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(12)
    n = 400
    rows = pd.DataFrame({"y": (rng.random(n) < 0.4).astype(int),
                         "p": (rng.random(n) < 0.4).astype(int),
                         "g": rng.choice([1, 2], n)})  # fmt: skip
    rows.to_csv(tmp_path / "b.csv", index=False)
    rows.to_parquet(tmp_path / "b.parquet", index=False)
    states = []
    for name in ("b.csv", "b.parquet"):
        state = tmp_path / f"{name}.json"
        argv = ["monitor", str(tmp_path / name), "--state", str(state), "--label", "y",
                "--pred", "p", "--group", "g", "--reference", "1"]  # fmt: skip
        code, out, _ = _run(argv, capsys)
        assert code == 0 and "updates=1" in out
        states.append(json.loads(state.read_text()))
    assert states[0] == states[1]
    argv = ["monitor", str(tmp_path / "b.parquet"), "--state", str(tmp_path / "s.json"),
            "--label", "y", "--pred", "nope", "--group", "g", "--reference", "1"]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert f"{tmp_path / 'b.parquet'} has no column 'nope'; columns: ['y', 'p', 'g']" in err
    argv[1] = str(tmp_path)
    code, _, err = _run(argv, capsys)
    assert code == 2 and f"{tmp_path} is a directory, not a data file" in err
    assert not (tmp_path / "s.json").exists()


def test_printed_audit_writes_ge_as_ascii_where_the_terminal_cannot(monkeypatch):
    """The printed table's "≥" ("could detect ≥ 0.04") becomes ">=" on a stdout whose
    encoding lacks it, and stays on a UTF-8 one."""
    import io

    from fastfair.cli.writing import _print

    text = "no evidence (could detect \u2265 0.042)"
    for encoding, want in (("ascii", "no evidence (could detect >= 0.042)\n"),
                           ("utf-8", text + "\n")):  # fmt: skip
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding)
        monkeypatch.setattr(sys, "stdout", stream)
        _print(text)
        stream.flush()
        assert raw.getvalue().decode(encoding) == want


def test_every_audit_option_reaches_the_audit(tmp_path, capsys):
    """`fastfair audit` with every option away from its default gives the JSON of
    fastfair.audit called with those options by name (one option passed as another, or
    dropped, changes some field): the two dicts equal but for the elapsed time."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(14)
    n = 900
    frame = pd.DataFrame({"y": (rng.random(n) < 0.4).astype(int),
                          "s": rng.random(n),
                          "sex": rng.choice(["F", "M"], n),
                          "reg": rng.choice(["n", "s", "w"], n, p=[0.5, 0.3, 0.2])})  # fmt: skip
    frame["p"] = (frame["s"] * 0.6 + 0.3 * frame["y"] >= 0.45).astype(int)
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.json"
    argv = ["audit", str(path), "--label", "y", "--pred", "p",
            "--group", "sex", "reg", "--intersections", "--reference", "sex=F", "reg=s",
            "--metrics", "tpr", "fpr", "--alpha", "0.1", "--tau", "0.07", "--adjust",
            "bonferroni", "--seed", "5", "--permutations", "99", "--min-group-size", "40",
            "--tolerance", "0.02", "--equivalence", "0.09", "--quiet", "--json",
            str(out)]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    got = json.loads(out.read_text())
    table = fastfair.cli.read_table(str(path))
    want = fastfair.audit("y", "p", ["sex", "reg"], data=table, intersections=True,
                          reference={"sex": "F", "reg": "s"}, metrics=["tpr", "fpr"],
                          alpha=0.1, tau=0.07, adjust="bonferroni", random_state=5,
                          n_permutations=99, min_group_size=40, tolerance=0.02,
                          equivalence=0.09).to_dict()  # fmt: skip
    got.pop("elapsed_seconds"), want.pop("elapsed_seconds")
    assert got == want
    assert (got["alpha"], got["tau"], got["seed"], got["min_group_size"]) == (0.1, 0.07, 5, 40)
    assert {t.get("u_tol") for t in got["tests"]} == {0.02} and got["metrics"] == ["tpr", "fpr"]
    assert [a["reference"] for a in got["attributes"]] == ["F", "s", "F & s"]


def test_every_plan_option_reaches_the_planner(tmp_path, capsys):
    """`fastfair plan` with every option set: its JSON is the fields of fastfair.sample_size
    called with the same values by name."""
    out = tmp_path / "plan.json"
    argv = ["plan", "--metric", "fpr", "--rate", "fpr=0.2,0.25", "--rate",
            "prevalence=0.3,0.4", "--tau", "0.06", "--u-tol", "0.01", "--alpha", "0.1",
            "--power", "0.9", "--allocation", "0.3", "--alternative", "greater", "--json",
            str(out)]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    plan = fastfair.sample_size("fpr", rates={"fpr": [0.2, 0.25], "prevalence": [0.3, 0.4]},
                                tau=0.06, u_tol=0.01, alpha=0.1, power=0.9, allocation=0.3,
                                alternative="greater")  # fmt: skip
    want = json.loads(fastfair.cli.writing.plan_json(plan))
    assert json.loads(out.read_text()) == want
    assert (want["alpha"], want["power"], want["u_tol"]) == (0.1, 0.9, 0.01)


def test_audit_defaults_are_the_librarys_defaults(tmp_path, capsys):
    """`fastfair audit` with only the required options gives the JSON of fastfair.audit
    called with no options: every CLI default (tau, alpha, min_group_size, adjust, seed,
    metrics, ...) is the library's. A group of 15 rows is tested with the default
    min_group_size (10) and a skipped one of 6 is listed."""
    rng = np.random.default_rng(21)
    sizes = {"a": 260, "b": 180, "c": 15, "d": 6}
    grp = np.repeat(list(sizes), list(sizes.values()))
    n = len(grp)
    y = (rng.random(n) < 0.4).astype(int)
    pred = (rng.random(n) < np.where(y == 1, 0.7, 0.2)).astype(int)
    path = tmp_path / "rows.csv"
    path.write_text("y,pred,grp\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, pred, grp)))
    out = tmp_path / "out.json"
    argv = ["audit", str(path), "--label", "y", "--pred", "pred", "--group", "grp",
            "--quiet", "--json", str(out)]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    got = json.loads(out.read_text())
    table = fastfair.cli.read_table(str(path))
    want = fastfair.audit("y", "pred", "grp", data=table).to_dict()
    got.pop("elapsed_seconds"), want.pop("elapsed_seconds")
    assert got == want
    # the library's documented defaults, read back from the JSON
    assert (got["alpha"], got["tau"], got["power"], got["min_group_size"]) == (0.05, 0.05, 0.8, 10)
    assert got["seed"] == 0 and got["adjustment"].startswith("holm ")
    (attr,) = got["attributes"]
    assert [g["group"] for g in attr["groups"] if g["tested"]] == ["a", "b", "c"]
    assert attr["skipped"] == [{"group": "d", "n": 6}] and attr["reference"] == "a"


def test_plan_defaults_are_the_planners_defaults(tmp_path, capsys):
    """`fastfair plan` with only --metric, --rate and --tau gives the JSON of
    fastfair.sample_size called with no other option (u_tol 0, alpha 0.05, power 0.8,
    Neyman allocation, two-sided)."""
    out = tmp_path / "plan.json"
    argv = ["plan", "--metric", "tpr", "--rate", "tpr=0.7,0.8", "--rate",
            "prevalence=0.3,0.2", "--tau", "0.1", "--json", str(out)]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    plan = fastfair.sample_size("tpr", rates={"tpr": [0.7, 0.8], "prevalence": [0.3, 0.2]},
                                tau=0.1)  # fmt: skip
    got = json.loads(out.read_text())
    assert got == json.loads(fastfair.cli.writing.plan_json(plan))
    assert (got["alpha"], got["power"], got["u_tol"]) == (0.05, 0.8, 0.0)
    assert not any(k.startswith("_") for k in got)
