"""The audits of docs/audit.md on the public files, run with the flags the page gives.

ProPublica's COMPAS file and UCI Adult are read as published (a repeated column, no header
row), from ``../shared/data`` beside the repository (where CI keeps them;
``FASTFAIR_SHARED_DATA`` names another folder); the tests skip, saying so, when the files
are absent. Each command is taken from the page's code block, and every number the page
quotes is checked against the audit's JSON.
"""

import json
import os
import pathlib
import re
import shlex

import pytest

from fastfair.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("FASTFAIR_SHARED_DATA", ROOT.parent / "shared" / "data"))
DOC = ROOT / "docs" / "audit.md"


def _command(file_name: str) -> list[str]:
    """The page's `fastfair audit FILE ...` command (continuation lines joined)."""
    text = DOC.read_text(encoding="utf-8").replace("\\\n", " ")
    (line,) = [x for x in text.splitlines() if x.strip().startswith(f"fastfair audit {file_name}")]
    return shlex.split(line.split("#")[0])[1:]


def _audit(file_name: str, tmp_path) -> dict:
    path = DATA / file_name
    if not path.is_file():
        pytest.skip(f"{path} is absent: the public data sets are kept in ../shared/data beside "
                    "the repository (or set FASTFAIR_SHARED_DATA)")  # fmt: skip
    argv = _command(file_name)
    argv[1] = str(path)
    out = tmp_path / "audit.json"
    assert main([*argv, "--quiet", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def _test(audit, metric, group, attribute=None):
    (row,) = [
        t
        for t in audit["tests"]
        if t["metric"] == metric
        and t["group"] == group
        and (attribute is None or t["attribute"] == attribute)
    ]
    return row


def _quoted(*phrases: str) -> None:
    page = " ".join(DOC.read_text(encoding="utf-8").split())
    missing = [p for p in phrases if " ".join(p.split()) not in page]
    assert not missing, f"docs/audit.md does not quote: {missing}"


def _gap(row, digits=3) -> str:
    return (
        f"{row['value_group']:.{digits}f} against {row['value_reference']:.{digits}f}, a gap of "
        f"{row['difference']:.{digits}f} (95% CI {row['ci_low']:.{digits}f} to "
        f"{row['ci_high']:.{digits}f})"
    )


def test_compas_from_the_raw_file(tmp_path):
    audit = _audit("compas-scores-two-years.csv", tmp_path)
    s = audit["summary"]
    fpr = _test(audit, "fpr", "African-American", "race")
    tpr = _test(audit, "tpr", "African-American", "race")
    ppv = _test(audit, "ppv", "African-American", "race")
    assert fpr["pvalue"] < 1e-16 and fpr["decision"] == "difference"
    assert ppv["decision"] != "difference"
    inter = audit["attributes"][2]
    assert inter["reference"] == "Caucasian & Male"
    (parity,) = [t for t in audit["tests"] if t["family"] == "parity" and t["attribute"] == "race"]
    assert parity["decision"] == "error"
    assert re.search(r"group 'Asian' has fewer than 5 effective clusters", parity["error"])
    _quoted(
        f"{audit['n_rows']:,} defendants",
        f"{s['n_differences']} of {s['n_tests']} tests show a DIFFERENCE",
        f"FPR {_gap(fpr)}",
        f"TPR {_gap(tpr)}",
        f"PPV {ppv['value_group']:.3f} against {ppv['value_reference']:.3f} "
        f"(adjusted p = {ppv['pvalue_adjusted']:.2f})",
        f"reference {inter['reference']} ({inter['reference_rule']})",
        f"{s['n_errors']} tests could not run",
    )


def test_adult_from_the_raw_file(tmp_path):
    audit = _audit("adult.data", tmp_path)
    s = audit["summary"]
    tpr = _test(audit, "tpr", "Female", "sex")
    fpr = _test(audit, "fpr", "Female", "sex")
    black = _test(audit, "tpr", "Black", "race")
    assert audit["n_rows"] == 32561 and audit["columns"]["threshold"] == 13
    _quoted(
        f"{audit['n_rows']:,} people",
        f"{s['n_differences']} of {s['n_tests']} tests show a DIFFERENCE",
        f"TPR {_gap(tpr)}",
        f"FPR {_gap(fpr)}",
        f"TPR {_gap(black)}",
        f"{tpr['verdict']}",
    )
