"""Quick modes of the validation scripts (their full runs are recorded in validation/results)."""

import importlib.util
import math
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "validation" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_type1_error_quick():
    module = _load("type1_error")
    n_sim = 150
    rows = module.run(n_sim=n_sim, n_permutations=99, seed=11, power=False)
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    default = [r for r in rows if r[3] == "conditional exact (default)"]
    assert len(default) == len(module.NULL_SETTINGS)
    assert all(r[4] <= bound for r in default)
    text = module.format_rows(rows, n_sim, 99)
    assert "raw/full" in text and "conditional exact (default)" in text


def test_wasserstein_steep_null_quick():
    module = _load("wasserstein_steep_null")
    rows = module.run(n=300, reps=30, seed=3, scales=(3.0, 300.0))
    (_, rate, se, move_small), (_, _, _, move_large) = rows
    assert rate <= 0.05 + 3 * se  # the level holds where the test is not refused
    assert move_small < 4 < move_large  # and a saturated classifier would be refused
    assert "median largest null move" in module.format_rows(rows, 300, 30, 3)
