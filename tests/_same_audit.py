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
