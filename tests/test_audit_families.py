"""Which family each audit p-value is adjusted in, recomputed from the rows.

The audit adjusts (Holm by default) the difference tests over every valid comparison; with
`tolerance` the tolerance p-value replaces the difference p-value in that family; with
`equivalence` the equivalence p-values form a family of their own. Equalized odds has two
components: Bonferroni over them for the tolerance test, the larger p-value
(intersection-union) for equivalence. Each expected value below is computed from the rows
with the public single-comparison functions and statsmodels' Holm.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

import fastfair


def _data(seed=4, n=4000):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    region = rng.choice(["north", "south", "east"], n)
    y = rng.random(n) < 0.35
    score = rng.normal(size=n) + y * np.where(sex == "F", 0.9, 1.2) + 0.2 * (region == "east")
    return y.astype(int), score, {"sex": sex, "region": region}


def _counts(y, yhat, mask):
    """[tn, fp, fn, tp] of the rows in mask."""
    yt, yp = y[mask], yhat[mask]
    return [
        np.sum((yt == 0) & (yp == 0)),
        np.sum((yt == 0) & (yp == 1)),
        np.sum((yt == 1) & (yp == 0)),
        np.sum((yt == 1) & (yp == 1)),
    ]


def _expected_margins(row, y, yhat, score, groups, u_tol, delta):
    """(tolerance p, equivalence p) of one audit row, from its two groups' rows."""
    column = np.asarray(groups[row["attribute"]])
    a, b = column == row["group"], column == row["reference"]
    if row["family"] == "auc":
        keep = a | b
        g = np.where(a[keep], 0, 1)
        tol = fastfair.tolerance_test(
            y[keep], score[keep], g, metric="auc", u_tol=u_tol, reference=1
        ).pvalue
        eq = fastfair.equivalence_test(
            y[keep], score[keep], g, metric="auc", delta=delta, reference=1
        ).pvalue
        return float(np.ravel(tol)[0]), float(np.ravel(eq)[0])
    pair = [_counts(y, yhat, a), _counts(y, yhat, b)]
    parts = ["tpr", "fpr"] if row["metric"] == "equalized_odds" else [row["metric"]]
    tol = [
        float(np.ravel(fastfair.tolerance_test_from_counts(
            pair, metric=p, u_tol=u_tol, reference=1).pvalue)[0])
        for p in parts
    ]  # fmt: skip
    eq = [
        float(np.ravel(fastfair.equivalence_test_from_counts(
            pair, metric=p, delta=delta, reference=1).pvalue)[0])
        for p in parts
    ]  # fmt: skip
    return min(1.0, len(parts) * min(tol)), max(eq)


@pytest.mark.parametrize("adjust", ["holm", "bonferroni"])
def test_tolerance_and_equivalence_families_recomputed(adjust):
    y, score, groups = _data()
    yhat = (score > 0.5).astype(int)
    u_tol, delta = 0.02, 0.08
    res = fastfair.audit(
        y, yhat, groups, y_score=score, metrics=["tpr", "selection_rate", "equalized_odds"],
        tolerance=u_tol, equivalence=delta, adjust=adjust, n_permutations=499,
    )  # fmt: skip
    rows = [t for t in res.tests if "error" not in t and t["family"] in ("confusion", "auc")]
    assert {t["metric"] for t in rows} >= {"tpr", "equalized_odds", "auc"}
    assert all("error" not in t for t in res.tests if t["family"] != "parity")
    tol, eq = zip(*(_expected_margins(t, y, yhat, score, groups, u_tol, delta) for t in rows))
    np.testing.assert_allclose([t["pvalue_tolerance"] for t in rows], tol, rtol=1e-9)
    np.testing.assert_allclose([t["pvalue_equivalence"] for t in rows], eq, rtol=1e-9)
    valid = [t for t in res.tests if "error" not in t]
    family = [t.get("pvalue_tolerance", t["pvalue"]) for t in valid]
    want = multipletests(family, method=adjust)[1]
    np.testing.assert_allclose([t["pvalue_adjusted"] for t in valid], want, rtol=1e-12)
    with_eq = [t for t in valid if "pvalue_equivalence" in t]
    want_eq = multipletests([t["pvalue_equivalence"] for t in with_eq], method=adjust)[1]
    np.testing.assert_allclose(
        [t["pvalue_equivalence_adjusted"] for t in with_eq], want_eq, rtol=1e-12
    )
    # the two families differ: equivalence p-values are not adjusted with the others
    assert len(with_eq) < len(valid) or not np.allclose(want_eq, want[: len(with_eq)])


def test_difference_family_without_margins_is_every_valid_test():
    y, score, groups = _data(seed=5)
    yhat = (score > 0.5).astype(int)
    res = fastfair.audit(
        y, yhat, groups, y_score=score, metrics=["tpr", "fpr"], n_permutations=499
    )
    valid = [t for t in res.tests if "error" not in t]
    assert len({t["family"] for t in valid}) >= 2
    want = multipletests([t["pvalue"] for t in valid], method="holm")[1]
    np.testing.assert_allclose([t["pvalue_adjusted"] for t in valid], want, rtol=1e-12)


def test_report_states_the_tost_interval_level_and_counts_the_equivalent_comparisons():
    """The report's margins section: TOST at alpha is the 1 - 2 alpha interval (here alpha
    0.1: the 80% interval, not the 90%), and "Here k of m comparisons are shown to be within"
    counts the equivalence p-values Holm-adjusted (statsmodels) at most alpha among the rows
    with one; the verdicts say the same."""
    y, score, groups = _data()
    yhat = (score > 0.5).astype(int)
    res = fastfair.audit(y, yhat, groups, metrics=["tpr", "selection_rate"], equivalence=0.08,
                         tolerance=0.02, alpha=0.1, n_permutations=99)  # fmt: skip
    with_eq = [t for t in res.tests if "pvalue_equivalence" in t]
    adjusted = multipletests([t["pvalue_equivalence"] for t in with_eq], method="holm")[1]
    shown = int(np.sum(adjusted <= 0.1))
    assert 0 < shown < len(with_eq)
    assert sum("within ±0.08" in t["verdict"] for t in res.tests) == shown
    text = re.sub(r"<[^>]+>", "", html.unescape(res.to_html()))
    assert "i.e. the 80% interval of the difference lies inside (-0.08, 0.08)" in text
    assert f"Here {shown} of {len(with_eq)} comparisons are shown to be within ±0.08" in text
