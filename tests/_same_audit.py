"""The engines' audits compared with the memory engine's (#27): the users of the demo data
nested in its groups, and ``to_dict()`` compared row for row; a distributed engine's
permutation tests against the in-memory ones. Loaded with runpy by
tests/test_audit_engines.py, tests/test_spark.py and tests/test_dask.py."""

import math

import numpy as np
import pandas as pd


def nested_users(frame: pd.DataFrame) -> np.ndarray:
    """Users of three rows each within every sex & race cell (a user belongs to one group
    of every attribute, so predictive parity per user runs), their text ids in an order
    unrelated to the file's."""
    cell = frame.groupby(["sex", "race"]).cumcount() // 3
    key = frame["sex"] + "|" + frame["race"] + "|" + cell.astype(str)
    codes, unique = pd.factorize(key)
    shuffled = np.random.default_rng(0).permutation(len(unique))
    return np.array([f"u{k:05d}" for k in shuffled])[codes]


def same_permutation_tests(test, frame, method, **engine_options):
    """`test(metric=..., ...)` (an engine's permutation_test of the columns y, pred, grp)
    gives :func:`fastfair.permutation_test`'s result on `frame` for four metrics: p-values,
    statistics, denominators and groups identical."""
    import fastfair

    for metric in ("tpr", "fpr", "selection_rate", "equalized_odds"):
        options = dict(metric=metric, method=method, random_state=4, n_permutations=999)
        a = test(**options, **engine_options)
        b = fastfair.permutation_test(frame.y, frame.pred, frame.grp, **options)
        np.testing.assert_array_equal(a.pvalue, b.pvalue)
        np.testing.assert_array_equal(a.statistic, b.statistic)
        np.testing.assert_array_equal(a.group_denominators, b.group_denominators)
        assert a.groups.tolist() == b.groups.tolist()


def same_audit(memory, other, where=()):
    """`other`'s to_dict() as `memory`'s, every key and row (timings and the engine's name
    aside): floats to 1e-12, all else identical; the p-values of every test but DeLong's
    z-test identical (exact tests and Monte-Carlo draws)."""
    if isinstance(memory, dict):
        skip = {"elapsed_seconds", "engine"} if not where else set()
        assert memory.keys() == other.keys(), where
        for k in memory.keys() - skip:
            same_audit(memory[k], other[k], (*where, k))
        if memory.get("family") is not None and memory.get("method") != "delong":
            for k in ("pvalue", "pvalue_adjusted", "n_permutations", "n_group", "n_reference"):
                assert memory.get(k) == other.get(k), (*where, k)
    elif isinstance(memory, (list, tuple)):
        assert len(memory) == len(other), where
        for k, (x, y) in enumerate(zip(memory, other)):
            same_audit(x, y, (*where, k))
    elif isinstance(memory, float) and isinstance(other, float):
        assert math.isclose(memory, other, rel_tol=1e-12, abs_tol=1e-12) or (
            math.isnan(memory) and math.isnan(other)
        ), (where, memory, other)
    else:
        assert memory == other, (where, memory, other)


def half_auc_frame():
    """Group F's positives and negatives share the same 1,000 distinct scores (an AUC of
    exactly 0.5 with varying scores) against group M's 1,000 of each, random."""
    rng = np.random.default_rng(36)
    values = rng.random(1000)
    return pd.DataFrame({
        "label": np.tile(np.r_[np.ones(1000, int), np.zeros(1000, int)], 2),
        "prediction": rng.integers(0, 2, 4000),
        "g": np.repeat(["F", "M"], 2000),
        "s": np.r_[values, values, rng.random(2000)],
    })  # fmt: skip


def untested_group_frame():
    """Groups a, b, c, d of 900, 12, 700 and 400 rows (b below a minimum size of 30, between
    tested groups in code order), three rows per user, rows shuffled."""
    rng = np.random.default_rng(14)
    sizes = {"a": 900, "b": 12, "c": 700, "d": 400}
    g = np.repeat(list(sizes), list(sizes.values()))
    user = np.array([f"{x}{k // 3:04d}" for k, x in enumerate(g)])
    s = rng.random(g.size)
    y = (rng.random(g.size) < np.clip(s + 0.1 * (g == "c"), 0, 1)).astype(int)
    frame = pd.DataFrame({"label": y, "prediction": (s > 0.5).astype(int), "g": g, "s": s,
                          "user": user})  # fmt: skip
    return frame.sample(frac=1.0, random_state=3)
