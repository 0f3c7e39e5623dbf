"""Progress of `fastfair audit` on long phases, and its closing summary line (issue #35)."""

import io
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import fastfair
import fastfair.auditing.report
from fastfair.cli import main

SMALL = ["audit", "--demo", "--metrics", "tpr", "fpr"]


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


class _Recorder:
    """A progress-bar factory with tqdm's interface that records what it is told."""

    def __init__(self):
        self.bars = []

    def __call__(self, total=None, desc=""):
        bar = _RecordedBar(total, desc)
        self.bars.append(bar)
        return bar


class _RecordedBar:
    def __init__(self, total, desc):
        self.total, self.desc, self.n, self.closed, self.postfix = total, desc, 0, False, []

    def update(self, n=1):
        assert not self.closed and n >= 0
        self.n += n

    def set_postfix_str(self, text, refresh=True):
        self.postfix.append(text)

    def close(self):
        self.closed = True


def _audit_on_a_terminal(monkeypatch, argv):
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(argv) == 0
    return out.getvalue(), err.getvalue()


def test_plain_progress_without_tqdm_names_every_phase(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `from tqdm import tqdm` fails
    report = tmp_path / "r.html"
    out, err = _audit_on_a_terminal(
        monkeypatch, [*SMALL, "--permutations", "99", "--report", str(report)]
    )
    frames = [f.strip() for f in err.split("\r") if f.strip()]
    assert "reading 0/1" in frames and "reading 1/1" in frames
    steps = 3 * 4  # 3 attributes x (2 metrics + AUC + parity)
    assert [f"tests {k}/{steps}" for k in range(steps + 1)] == [
        f for f in frames if f.startswith("tests")
    ]
    n_sections = len(fastfair.auditing.report.SECTIONS)
    assert f"report {n_sections}/{n_sections}" in frames
    # stdout is not a terminal here: the summary line closes stderr
    assert frames[-1].startswith("fastfair audit: 16,281 rows; ")
    assert f"wrote {report}" in frames[-1] and "tests" in frames[-1]
    assert "Female vs Male" in out and "\r" not in out


def test_tqdm_bars_when_installed(monkeypatch):
    pytest.importorskip("tqdm")
    _, err = _audit_on_a_terminal(monkeypatch, [*SMALL])  # sequential Monte Carlo
    for phase in ("reading", "tests", "adjustment"):
        assert f"{phase}:" in err  # tqdm's "desc: 50%|###  | ..."
    assert "permutations" in err  # the adjustment shows the permutations drawn


def test_not_a_terminal_one_summary_line_and_nothing_else(tmp_path):
    """The command and line docs/cli.md quotes (all but the seconds)."""
    argv = ["audit", "--demo", "--group", "race", "--metrics", "tpr", "--report", "audit.html"]
    proc = subprocess.run(
        [sys.executable, "-m", "fastfair", *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert proc.stderr.count("\n") == 1 and "\r" not in proc.stderr, proc.stderr
    line = proc.stderr.strip()
    docs = (pathlib.Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    assert f"`fastfair {' '.join(argv)} > table.txt`" in " ".join(docs.split())
    (quoted,) = [x for x in docs.splitlines() if x.startswith("fastfair audit: 16,281 rows")]
    seconds = re.compile(r"\d+\.\d s")
    assert seconds.sub("_", line) == seconds.sub("_", quoted)
    assert "Black vs White" in proc.stdout


def test_quiet_prints_nothing_on_stderr(capsys):
    assert main([*SMALL, "--quiet", "--permutations", "99"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "Female vs Male" in out


def test_audit_progress_protocol_counts_every_step():
    """fastfair.audit's `progress`: a tqdm-like factory; "tests" advances once per metric
    and attribute, "adjustment" once per hypothesis of the sequential adjustment."""
    rng = np.random.default_rng(1)
    n = 3000
    y = rng.random(n) < 0.4
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    groups = {"sex": rng.choice(["F", "M"], n), "age": rng.choice(["<40", ">=40"], n)}
    recorder = _Recorder()
    res = fastfair.audit(y, None, groups, y_score=score, metrics=["tpr", "fpr"], progress=recorder)
    tests, adjustment = recorder.bars
    assert (tests.desc, tests.total, tests.n, tests.closed) == ("tests", 2 * 4, 8, True)
    n_hypotheses = sum(1 for t in res.tests if "error" not in t)
    assert adjustment.desc == "adjustment" and adjustment.closed
    assert adjustment.total == adjustment.n == n_hypotheses
    assert adjustment.postfix and adjustment.postfix[-1].endswith("permutations")


def test_multiple_monte_carlo_progress_reaches_the_family_size():
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 2000)
    tests = [
        fastfair.mean_difference_test(rng.normal(0.1 * k * g), g, random_state=k) for k in range(3)
    ]
    recorder = _Recorder()
    fam = fastfair.multiple_monte_carlo([*tests, 0.5], progress=recorder)
    (bar,) = recorder.bars
    assert bar.total == bar.n == 4 and bar.closed
    drawn = int(fam.n_permutations.sum())
    assert bar.postfix[-1] == f"{drawn:,} permutations"


def test_reading_progress_counts_the_rows_of_each_batch(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": np.arange(2500) % 2, "g": ["a", "b"] * 1250}), path)
    recorder = _Recorder()
    table = fastfair.io.read_columns(path, ["y", "g"], codes=["g"], batch_rows=1000,
                                     progress=recorder)  # fmt: skip
    (bar,) = recorder.bars
    assert (bar.desc, bar.total, bar.n, bar.closed) == ("reading", 2500, 2500, True)
    assert len(table["y"]) == 2500


@pytest.mark.parametrize("engine", ["memory", "arrow"])
def test_reading_progress_of_a_parquet_file_on_a_terminal(monkeypatch, tmp_path, engine):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    monkeypatch.setitem(sys.modules, "tqdm", None)
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n)
    path = tmp_path / "rows.parquet"
    pq.write_table(
        pa.table({"y": y, "p": rng.integers(0, 2, n), "g": rng.choice(["a", "b"], n)}), path
    )
    argv = ["audit", str(path), "--label", "y", "--pred", "p", "--group", "g"]
    _, err = _audit_on_a_terminal(monkeypatch, [*argv, "--engine", engine, "--metrics", "tpr"])
    frames = [f.strip() for f in err.split("\r") if f.strip()]
    assert "reading 0/3000" in frames and "reading 3000/3000" in frames
    assert "tests 1/1" in frames


def test_summary_line_counts_errors_and_slices_and_names_every_file_written():
    """The closing line on stderr, from the summary's counts: "k could not run" only when a
    test could not run, the number of significant slices only with a slice search, every
    file written (--json, then --report) and each phase's seconds in the order run; none
    of them when there is nothing to say."""
    from types import SimpleNamespace

    from fastfair.cli.commands import _summary_line

    def result(n_errors, found):
        summary = dict(n_differences=2, n_tests=7, n_errors=n_errors)
        slices = None if found is None else SimpleNamespace(found=[object()] * found)
        return SimpleNamespace(summary=summary, slices=slices, n_rows=12345)

    progress = SimpleNamespace(seconds={"reading": 1.26, "tests": 2.04})
    both = SimpleNamespace(json="a.json", report="r.html")
    assert _summary_line(result(1, 3), progress, both, 3.33) == (
        "fastfair audit: 12,345 rows; 2 of 7 tests show a DIFFERENCE, 1 could not run; "
        "3 significant slices; wrote a.json, r.html; 3.3 s (reading 1.3 s, tests 2.0 s)"
    )
    none = SimpleNamespace(json=None, report=None)
    quick = SimpleNamespace(seconds={"reading": 0.04})
    assert _summary_line(result(0, None), quick, none, 0.06) == (
        "fastfair audit: 12,345 rows; 2 of 7 tests show a DIFFERENCE; 0.1 s (reading 0.0 s)"
    )
    report_only = SimpleNamespace(json=None, report="r.html")
    assert _summary_line(result(0, 0), quick, report_only, 0.06) == (
        "fastfair audit: 12,345 rows; 2 of 7 tests show a DIFFERENCE; 0 significant slices; "
        "wrote r.html; 0.1 s (reading 0.0 s)"
    )
