"""The parity curve's cluster-robust variances against clubSandwich (R), issue 33.

Reference values: validation/results/parity_cr2_clubsandwich.txt, written by
``Rscript validation/parity_cr2_clubsandwich.R`` (clubSandwich 0.5.8) on the data of
``python validation/parity_cr2_clubsandwich.py --write-data``; the R command per value is in
the file's header and in validation/parity_cr2_clubsandwich.R.
"""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the data sets whose kernel weights are constant within each user (one score a user)
CONSTANT_WITHIN_USER = ("user_scores", "user_scores_obs")


def _load():
    path = ROOT / "validation" / "parity_cr2_clubsandwich.py"
    spec = importlib.util.spec_from_file_location("parity_cr2_clubsandwich", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check(recorded, ours):
    """CR0 equal everywhere; CR2 equal to clubSandwich's inverse_var = TRUE where the
    weights are constant within each user (there the two CR2 adjustments are one matrix)."""
    assert len(recorded) == 24 and set(recorded) == set(ours)
    for key, ref in recorded.items():
        assert ours[key]["cr0"] == pytest.approx(ref["cr0"], rel=1e-11), key
        if key[0] in CONSTANT_WITHIN_USER:
            assert ours[key]["cr2"] == pytest.approx(ref["cr2_inverse_var"], rel=1e-11), key


def test_cr0_and_cr2_equal_recorded_clubsandwich():
    module = _load()
    recorded, ours = module.read_recorded(), module.ours()
    _check(recorded, ours)
    # clubSandwich's default for a weighted lm (working model Phi = I) is another estimator:
    # it differs from ours even where the weights are constant within users.
    default = [abs(ours[k]["cr2"] / r["cr2_default"] - 1) for k, r in recorded.items()
               if k[0] in CONSTANT_WITHIN_USER]  # fmt: skip
    assert max(default) > 0.01
    # Weights varying within a user: ten rows of weight < 1e-9 added to a user leave our
    # CR2 as it is (the estimate does not see them) but move both clubSandwich CR2s.
    a, b = ("row_scores", "a", 0.2), ("tails", "a", 0.2)
    assert ours[b]["cr2"] == pytest.approx(ours[a]["cr2"], rel=1e-8)
    for kind in ("cr2_default", "cr2_inverse_var"):
        assert abs(recorded[b][kind] / recorded[a][kind] - 1) > 1e-4


def _clubsandwich_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(["Rscript", "-e", "library(clubSandwich)"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _clubsandwich_available(), reason="Rscript with clubSandwich missing")
def test_cr2_equals_clubsandwich_run_now(tmp_path):
    module = _load()
    out = tmp_path / "cs.txt"
    subprocess.run(["Rscript", str(ROOT / "validation" / "parity_cr2_clubsandwich.R"),
                    str(module.DATA), str(module.POINTS), str(out)],
                   check=True, cwd=ROOT, capture_output=True)  # fmt: skip
    fresh = module.read_recorded(out)
    _check(fresh, module.ours())
    recorded = module.read_recorded()
    for key, ref in recorded.items():  # the stored reference is R's output
        assert fresh[key] == pytest.approx(ref, rel=1e-12), key
