"""fastfair.audit: every test of every attribute, checked against independent computations."""

import html
import html.parser
import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fastfair
from fastfair.auditing import api as _audit
from fastfair.auditing import report as _report
from fastfair.auditing.results import pvalue_text

Z_ALPHA = stats.norm.ppf(0.975)  # two-sided alpha = 0.05
Z_POWER = stats.norm.ppf(0.8)


def _data(n=3000, seed=0):
    """Two attributes (sex: F/M; race: a, b and a small c) with a TPR gap for F."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    race = rng.choice(["a", "b"], n, p=[0.7, 0.3])
    race[:8] = "c"  # 8 rows: below min_group_size=10
    y = (rng.random(n) < np.where(sex == "F", 0.3, 0.4)).astype(int)
    tpr = np.where(sex == "F", 0.6, 0.75)
    score = np.where(y == 1, rng.beta(4, 2, n), rng.beta(2, 4, n))
    pred = np.where(y == 1, rng.random(n) < tpr, rng.random(n) < 0.1).astype(int)
    return pd.DataFrame({"y": y, "pred": pred, "score": score, "sex": sex, "race": race})


@pytest.fixture(scope="module")
def frame():
    return _data()


@pytest.fixture(scope="module")
def result(frame):
    return fastfair.audit(
        "y",
        "pred",
        ["sex", "race"],
        y_score="score",
        data=frame,
        intersections=True,
        n_permutations=199,
    )


def _rows(result, **match):
    return [t for t in result.tests if all(t.get(k) == v for k, v in match.items())]


def test_attributes_and_intersections_match_pandas(frame, result):
    names = [a["name"] for a in result.attributes]
    assert names == ["sex", "race", "sex & race"]
    inter = result.attributes[2]
    sizes = frame.groupby(["sex", "race"]).size()
    expected = {f"{s} & {r}": int(n) for (s, r), n in sizes.items()}
    assert {g["group"]: g["n"] for g in inter["groups"]} == expected
    # groups below min_group_size are skipped, listed with their size, and never tested
    small = {k: v for k, v in expected.items() if v < 10}
    assert {g["group"]: g["n"] for g in inter["skipped"]} == small
    assert result.attributes[1]["skipped"] == [{"group": "c", "n": 8}]
    tested_groups = {t["group"] for t in result.tests if t["family"] != "parity"}
    assert "c" not in tested_groups and not set(small) & tested_groups
    # reference: the largest group of each attribute
    assert [a["reference"] for a in result.attributes] == ["M", "a", "M & a"]


def test_attribute_groups_read_back_sizes_base_and_selection_rates(frame, result):
    """Every group of every attribute (intersections too): its rows, its share of positive
    labels (base_rate) and of positive predictions (selection_rate), counted with pandas;
    tested when it has min_group_size (10) rows. The two rates differ in every group here
    (TPR < 1, FPR > 0), so one shown for the other fails."""
    for attr in result.attributes:
        label = frame[attr["columns"]].astype(str).agg(" & ".join, axis=1)
        assert sorted(g["group"] for g in attr["groups"]) == sorted(set(label))
        for g in attr["groups"]:
            rows = frame[(label == g["group"]).to_numpy()]
            assert g["n"] == len(rows)
            assert g["base_rate"] == pytest.approx(rows.y.mean(), rel=1e-12)
            assert g["selection_rate"] == pytest.approx(rows.pred.mean(), rel=1e-12)
            assert g["tested"] == (len(rows) >= 10)
            assert g["base_rate"] != pytest.approx(g["selection_rate"], rel=1e-3)


def test_confusion_rows_equal_two_group_tests_on_rows(frame, result):
    """Each comparison is the exact test on the two groups' rows (the audit uses counts)."""
    for t in _rows(result, family="confusion", attribute="race"):
        keep = frame["race"].isin([t["group"], t["reference"]]).to_numpy()
        sub = frame[keep]
        res = fastfair.permutation_test(
            sub["y"], sub["pred"], sub["race"], metric=t["metric"], reference=t["reference"]
        )
        assert t["pvalue"] == pytest.approx(res.pvalue, rel=1e-12, abs=1e-300)
        assert t["statistic"] == pytest.approx(res.statistic, rel=1e-12)
        np.testing.assert_allclose(t["difference"], res.difference, rtol=1e-12)


def test_auc_rows_equal_auc_test_on_the_pair(frame, result):
    for t in _rows(result, family="auc", attribute="sex & race"):
        label = frame["sex"] + " & " + frame["race"]
        keep = label.isin([t["group"], t["reference"]]).to_numpy()
        res = fastfair.auc_test(
            frame["y"][keep],
            frame["score"][keep],
            label[keep],
            reference=t["reference"],
            n_permutations=199,
            random_state=0,
        )
        assert t["pvalue"] == res.pvalue
        assert t["difference"] == pytest.approx(res.difference, rel=1e-12)
        # the hybrid logit/Newcombe interval (issue 34): the 1 - 2 * 0.025 interval of the
        # AUC equivalence test (TOST) with method="hybrid" on the same pair
        eq = fastfair.equivalence_test(
            frame["y"][keep], frame["score"][keep], label[keep], metric="auc", delta=0.5,
            alpha=0.025, method="hybrid", reference=t["reference"], adjust="none",
        )  # fmt: skip
        lo, hi = (float(np.ravel(v)[0]) for v in eq.equivalence_interval)
        assert [t["ci_low"], t["ci_high"]] == pytest.approx([lo, hi], rel=1e-9)
        assert [t["ci_low"], t["ci_high"]] != pytest.approx(list(res.confidence_interval))


def test_holm_over_every_test_of_the_audit(result):
    valid = [t for t in result.tests if "pvalue" in t]
    p = np.array([t["pvalue"] for t in valid])
    order = np.argsort(p, kind="stable")
    m, running, expected = len(p), 0.0, np.empty(len(p))
    for rank, i in enumerate(order):  # Holm step-down, written out
        running = max(running, (m - rank) * p[i])
        expected[i] = min(1.0, running)
    np.testing.assert_allclose([t["pvalue_adjusted"] for t in valid], expected, rtol=1e-12)
    for t in valid:
        assert (t["decision"] == "difference") == (t["pvalue_adjusted"] <= 0.05)


def _group_counts(frame, column, group):
    g = frame[frame[column] == group]
    tp = int(((g.y == 1) & (g.pred == 1)).sum())
    fn = int(((g.y == 1) & (g.pred == 0)).sum())
    fp = int(((g.y == 0) & (g.pred == 1)).sum())
    tn = int(((g.y == 0) & (g.pred == 0)).sum())
    return tp, fn, fp, tn


def _planner_by_hand(frame, metric):
    """(MDE, power at tau 0.05, rows needed) of sex F vs M for one rate, written out."""
    sig2, share = [], []
    for group in ("F", "M"):
        tp, fn, fp, tn = _group_counts(frame, "sex", group)
        n = tp + fn + fp + tn
        num, den = {
            "tpr": (tp, tp + fn),
            "fpr": (fp, fp + tn),
            "ppv": (tp, tp + fp),
            "npv": (tn, tn + fn),
            "selection_rate": (tp + fp, n),
            "accuracy": (tp + tn, n),
        }[metric]
        r = num / den
        sig2.append(r * (1 - r) / (den / n))  # variance per row of the group
        share.append(n)
    n = np.array(share, dtype=float)
    sig2 = np.array(sig2)
    se = np.sqrt((sig2 / n).sum())
    p = n / n.sum()
    total = (Z_ALPHA + Z_POWER) ** 2 * (sig2 / p).sum() / 0.05**2
    return (
        (Z_ALPHA + Z_POWER) * se,
        stats.norm.cdf(0.05 / se - Z_ALPHA),
        int(np.ceil(total * p - 1e-9).sum()),
    )


@pytest.mark.parametrize("metric", ["tpr", "fpr", "ppv", "npv", "selection_rate", "accuracy"])
def test_mde_power_and_rows_needed_by_hand(frame, result, metric):
    """The planner's figures from the two groups' rates, written out per metric."""
    t = _rows(result, attribute="sex", metric=metric)
    if not t:
        res = fastfair.audit("y", "pred", "sex", data=frame, metrics=[metric])
        t = _rows(res, metric=metric)
    (t,) = t
    mde, power, needed = _planner_by_hand(frame, metric)
    assert t["mde"] == pytest.approx(mde, rel=1e-10)
    assert t["power_at_tau"] == pytest.approx(power, rel=1e-10)
    assert t["n_needed"] == needed


def test_equalized_odds_planner_figures_are_the_worse_of_tpr_and_fpr(frame, result):
    """Equalized odds has its TPR's and FPR's figures, the less favourable of each: the
    larger MDE, the smaller power at tau, the more rows needed (each written out by hand;
    here TPR and FPR give different figures, so any other choice shows)."""
    (t,) = _rows(result, attribute="sex", metric="equalized_odds")
    tpr, fpr = _planner_by_hand(frame, "tpr"), _planner_by_hand(frame, "fpr")
    assert tpr[0] != pytest.approx(fpr[0], rel=1e-3) and tpr[1] != pytest.approx(fpr[1], rel=1e-3)
    assert t["mde"] == pytest.approx(max(tpr[0], fpr[0]), rel=1e-10)
    assert t["power_at_tau"] == pytest.approx(min(tpr[1], fpr[1]), rel=1e-10)
    assert t["n_needed"] == max(tpr[2], fpr[2])


def test_mde_auc_hanley_mcneil_by_hand(frame, result):
    (t,) = _rows(result, attribute="sex", metric="auc")
    var = []
    for group in ("F", "M"):
        g = frame[frame.sex == group]
        a = fastfair.delong(g.y, g.score).auc[0]
        prev = g.y.mean()
        q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
        var.append(((q1 - a * a) / (1 - prev) + (q2 - a * a) / prev) / len(g))
    assert t["mde"] == pytest.approx((Z_ALPHA + Z_POWER) * np.sqrt(sum(var)), rel=1e-10)


def test_rates_of_zero_or_one_are_shrunk_for_the_planner():
    """A group whose TPR is 1 still gets an MDE: rates (num + 1/2) / (den + 1)."""
    rng = np.random.default_rng(3)
    n = 400
    group = np.repeat(["small", "big"], [40, n - 40])
    y = rng.random(n) < 0.5
    y[:2] = True
    pred = np.where(group == "small", y, rng.random(n) < 0.7) & y
    res = fastfair.audit(y, pred, group, metrics=["tpr"])
    (t,) = res.tests
    pos = [int(y[group == g].sum()) for g in ("small", "big")]
    tp = [int((pred & y)[group == g].sum()) for g in ("small", "big")]
    assert tp[0] == pos[0]  # TPR = 1 in the small group
    r = [(tp[0] + 0.5) / (pos[0] + 1), tp[1] / pos[1]]
    se = np.sqrt(sum(ri * (1 - ri) / p for ri, p in zip(r, pos)))
    assert t["mde"] == pytest.approx((Z_ALPHA + Z_POWER) * se, rel=1e-10)


@pytest.mark.parametrize(
    "row,decision,text",
    [
        ({"pvalue_adjusted": 0.05, "mde": 0.5}, "difference", "DIFFERENCE"),
        (
            {"pvalue_adjusted": 0.06, "mde": 0.05},
            "no_evidence",
            "no evidence (could detect ≥ 0.05)",
        ),
        (
            {"pvalue_adjusted": 0.2, "mde": 0.0501},
            "underpowered",
            "too small to tell (could detect only ≥ 0.051)",
        ),
        (
            {"pvalue_adjusted": 1, "mde": 0.0412},
            "no_evidence",
            "no evidence (could detect ≥ 0.042)",
        ),
        ({"pvalue_adjusted": 0.2}, "no_evidence", "no evidence"),
        ({"error": "no positives"}, "error", "ERROR, not run: no positives"),
    ],
)
def test_verdicts(row, decision, text):
    assert _audit.verdict(row, alpha=0.05, tau=0.05) == (decision, text)


_EQ = {"pvalue_equivalence_adjusted": 0.05, "delta": 0.04}


@pytest.mark.parametrize(
    "row,sequential,decision,text",
    [
        # the equivalence test's adjusted p-value at alpha is "within", above it is not
        ({"pvalue_adjusted": 0.3, "mde": 0.5, **_EQ}, None, "equivalent", "FAIR within ±0.04"),
        (
            {"pvalue_adjusted": 0.3, "mde": 0.5, **_EQ, "pvalue_equivalence_adjusted": 0.0501},
            None,
            "underpowered",
            "too small to tell (could detect only ≥ 0.5)",
        ),
        (
            {"pvalue_adjusted": 0.05, "u_tol": 0.02, **_EQ},
            None,
            "difference",
            "DIFFERENCE beyond ±0.02, within ±0.04",
        ),
        (
            {"pvalue_adjusted": 0.3, "mde": 1.5},  # tiny groups: finite, above 1
            None,
            "underpowered",
            "too small to tell (could detect only ≥ 1.5)",
        ),
        (
            {"pvalue_adjusted": 0.3, "mde": float("inf")},
            None,
            "underpowered",
            "too small to tell (no difference below 1 is detectable)",
        ),
        # a sequential audit's family decision replaces the adjusted p-value's comparison
        ({"pvalue_adjusted": 0.5, "mde": 0.01}, "reject", "difference", "DIFFERENCE"),
        (
            {"pvalue_adjusted": 0.01, "mde": 0.01},
            "retain",
            "no_evidence",
            "no evidence (could detect ≥ 0.01)",
        ),
        (
            {"pvalue_adjusted": 0.01, "mde": 0.01},
            "undecided",
            "undecided",
            "undecided (p-value within Monte-Carlo error of the level)",
        ),
    ],
)
def test_verdicts_equivalence_tolerance_and_sequential_rules(row, sequential, decision, text):
    got = _audit.verdict(row, alpha=0.05, tau=0.05, sequential=sequential)
    assert got == (decision, text)


@pytest.mark.parametrize(
    "x,text",
    [(0.0412, "0.042"), (0.31, "0.31"), (0.305, "0.31"), (0.04, "0.04"), (1.234, "1.3"),
     (0.00123, "0.0013"), (0.1, "0.1")],
)  # fmt: skip
def test_mde_rounds_up_to_two_digits(x, text):
    from fastfair._format import format_mde

    assert format_mde(x) == text


def test_summary_counts_a_detectable_gap_equal_to_tau_as_detectable(frame):
    kw = dict(data=frame, n_permutations=199)
    first = fastfair.audit("y", "pred", ["sex"], **kw).tests[0]
    res = fastfair.audit("y", "pred", ["sex"], tau=first["mde"], **kw)
    mdes = [t["mde"] for t in res.tests]
    assert first["mde"] in mdes  # a row exactly at tau ("could detect a gap of tau")
    assert res.summary["n_detectable"] == sum(m <= res.tau for m in mdes)


def test_summary_counts_and_mde_range_read_back_from_the_rows(frame, result):
    """Every count of the summary read back from the tests' rows (each decision counted,
    the MDEs at most tau), the MDE range their smallest and largest, the skipped groups
    those below min_group_size counted with pandas; and the printed power sentence says
    the same."""
    s = result.summary
    decisions = [t["decision"] for t in result.tests]
    mdes = [t["mde"] for t in result.tests if t.get("mde") is not None]
    assert s["n_tests"] == len(result.tests)
    for key, decision in (("n_differences", "difference"), ("n_no_evidence", "no_evidence"),
                          ("n_equivalent", "equivalent"), ("n_underpowered", "underpowered"),
                          ("n_errors", "error")):  # fmt: skip
        assert s[key] == decisions.count(decision), key
    assert s["n_differences"] and s["n_no_evidence"] and s["n_underpowered"]
    assert s["n_with_mde"] == len(mdes) and s["n_detectable"] == sum(m <= 0.05 for m in mdes)
    assert s["mde_range"] == [min(mdes), max(mdes)] and min(mdes) < max(mdes)
    small = sum(
        int((frame.groupby(columns).size() < 10).sum())
        for columns in (["sex"], ["race"], ["sex", "race"])
    )
    assert s["n_skipped_groups"] == small > 0
    fmt = _report.format_mde
    assert (
        f"Power: {s['n_detectable']} of {len(mdes)} comparisons could detect a difference of "
        f"tau = 0.05 with 80% power (MDE {fmt(min(mdes))} to {fmt(max(mdes))}); "
        f"{s['n_underpowered']} non-significant ones are too small to tell."
    ) in result.format()


def test_sensitive_feature_forms_agree(frame):
    kw = dict(metrics=["tpr", "selection_rate"], intersections=True)
    base = fastfair.audit("y", "pred", ["sex", "race"], data=frame, **kw).to_dict()
    others = [
        fastfair.audit(frame.y, frame.pred, frame[["sex", "race"]], **kw),
        fastfair.audit(frame.y.to_numpy(), frame.pred, dict(sex=frame.sex, race=frame.race), **kw),
    ]
    for other in others:
        d = other.to_dict()
        assert d["tests"] == base["tests"] and d["attributes"] == base["attributes"]
    one = fastfair.audit(frame.y, frame.pred, frame.sex, metrics=["tpr"])
    assert one.attributes[0]["name"] == "sex"  # a Series keeps its name
    arr = fastfair.audit(frame.y, frame.pred, frame.sex.to_numpy(), metrics=["tpr"])
    assert arr.attributes[0]["name"] == "group"
    assert arr.tests[0]["pvalue"] == one.tests[0]["pvalue"]


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        (dict(alpha=1.5), ValueError, "alpha must be in (0, 1)"),
        (dict(tau=0), ValueError, "tau must be in (0, 1)"),
        (dict(tau=1), ValueError, "tau must be in (0, 1)"),
        (dict(adjust="maxT"), ValueError, "adjust must be one of"),
        (dict(metrics=["nope"]), ValueError, "unknown metric 'nope'"),
        (dict(sensitive_features=None), TypeError, "sensitive_features is required"),
        (dict(y_pred=None), TypeError, "give y_pred"),
        (dict(reference="M"), ValueError, "give reference as {attribute: group}"),
        (dict(reference={"sex": "X"}), ValueError, "reference 'X' is not a group of 'sex'"),
        (dict(reference={"race": "c"}), ValueError, "has 8 rows, fewer than min_group_size"),
        (dict(reference={"age": "1"}), ValueError, "unknown attributes ['age']"),
        (dict(min_group_size=0), ValueError, "min_group_size must be >= 1"),
        (dict(n_permutations=0), ValueError, "n_permutations must be >= 1"),
        # the open interval (0, 1) of every level and margin: both ends refused
        (dict(alpha=0), ValueError, "alpha must be in (0, 1), got 0"),
        (dict(power=1), ValueError, "power must be in (0, 1), got 1"),
        (dict(tolerance=0), ValueError, "tolerance must be in (0, 1) (a gap between rates)"),
        (dict(tolerance=1.0), ValueError, "tolerance must be in (0, 1) (a gap between rates)"),
        (dict(equivalence=0.0), ValueError, "equivalence must be in (0, 1) (a gap between"),
        (dict(equivalence=True), ValueError, "equivalence must be in (0, 1) (a gap between"),
    ],
)
def test_bad_arguments_name_the_problem(frame, kwargs, error, message):
    args = dict(y_pred="pred", sensitive_features=["sex", "race"], data=frame)
    args.update(kwargs)
    with pytest.raises(error, match=None) as info:
        fastfair.audit("y", **args)
    assert message in str(info.value)


def test_groups_too_small_for_any_difference():
    """With 1 row a group could not show even a difference of 1: MDE inf, null in JSON."""
    group = np.array(["a"] + ["b"] * 200)
    y = np.tile([0, 1], 101)[:201]
    pred = y.copy()
    res = fastfair.audit(y, pred, group, metrics=["accuracy"], min_group_size=1)
    (t,) = res.tests
    assert t["mde"] == np.inf and t["decision"] == "underpowered"
    assert t["verdict"] == "too small to tell (no difference below 1 is detectable)"
    assert res.to_dict()["tests"][0]["mde"] is None
    json.dumps(res.to_dict(), allow_nan=False)  # strict JSON
    assert "> 1" in res.to_html() and "> 1" in str(res)


def test_error_rows_name_the_group_whose_rate_is_undefined():
    """A rate undefined in one group fails that group's comparisons, and the message names
    that group (counted here: "b" has no positive labels): the reference when it is the one
    (every comparison against it), the compared group otherwise, never the other one."""
    rng = np.random.default_rng(1)
    g = np.repeat(["a", "b", "c"], [30, 40, 20])
    y = rng.random(90) < 0.5
    y[g == "b"] = False
    pred = rng.random(90) < 0.5
    assert not y[g == "b"].any() and y[g == "a"].any() and y[g == "c"].any()
    against_b = fastfair.audit(y, pred, {"g": g}, metrics=["tpr"], reference="b",
                               n_permutations=99)  # fmt: skip
    against_a = fastfair.audit(y, pred, {"g": g}, metrics=["tpr"], reference="a",
                               n_permutations=99)  # fmt: skip
    undefined = "'b' has no positives (y_true = 1), so tpr is undefined for it"
    assert [(t["group"], t.get("error")) for t in against_b.tests] == [
        ("a", undefined), ("c", undefined)]  # fmt: skip
    by_group = {t["group"]: t for t in against_a.tests}
    assert by_group["b"]["error"] == undefined and "error" not in by_group["c"]
    assert f"error: tpr b vs a (g): {undefined}" in against_a.format()


def test_auc_error_rows_name_the_group_not_its_code_in_the_pair(tmp_path):
    """An AUC undefined in a group (counted here: "b" has no positive labels) names that
    group, as the confusion rows do, on the rows and on the arrow engine (whose AUC rows run
    the same test on the pair read back); the rows' audit named "group 1", the reference's
    code in the pair it tests."""
    rng = np.random.default_rng(1)
    g = np.repeat(["a", "b", "c"], [30, 40, 20])
    y = rng.random(90) < 0.5
    y[g == "b"] = False
    score = rng.random(90)
    assert not y[g == "b"].any() and y[g == "a"].any() and y[g == "c"].any()
    kw = dict(metrics=["tpr"], n_permutations=99)
    undefined = "'b' has no positives, so its AUC is undefined"
    path = tmp_path / "rows.parquet"
    pd.DataFrame({"y": y.astype(int), "s": score, "g": g}).to_parquet(path)
    for res in (
        fastfair.audit(y, score >= 0.5, {"g": g}, y_score=score, reference="b", **kw),
        fastfair.audit("y", None, ["g"], y_score="s", data=str(path), engine="arrow",
                       reference="b", **kw),
    ):  # fmt: skip
        auc = [(t["group"], t.get("error")) for t in res.tests if t["family"] == "auc"]
        assert auc == [("a", undefined), ("c", undefined)], res.engine
    res = fastfair.audit(y, score >= 0.5, {"g": g}, y_score=score, reference="a", **kw)
    auc = {t["group"]: t for t in res.tests if t["family"] == "auc"}
    assert auc["b"]["error"] == undefined and "error" not in auc["c"]


def test_length_mismatch(frame):
    with pytest.raises(ValueError, match="sensitive feature 'sex' has 10 rows"):
        fastfair.audit(frame.y, frame.pred, {"sex": frame.sex[:10]})


def test_exports_frame_and_json(result):
    d = result.to_dict()
    assert json.loads(result.to_json()) == d
    assert d["schema_version"] == 2 and d["n_rows"] == 3000
    assert d["summary"]["n_tests"] == len(result.tests)
    frame = result.to_frame()
    n_eo = len(_rows(result, metric="equalized_odds"))
    assert len(frame) == len(result.tests) + n_eo  # equalized odds: one row per component
    eo = frame[frame.metric == "equalized_odds"]
    assert set(eo.component) == {"tpr", "fpr"}
    tpr = frame[(frame.metric == "tpr") & (frame.attribute == "sex")].iloc[0]
    eo_tpr = eo[(eo.component == "tpr") & (eo.attribute == "sex")].iloc[0]
    assert tpr.difference == eo_tpr.difference
    # p-values keep full precision in the exports, whatever the tables print
    assert list(frame.drop_duplicates(["attribute", "metric", "group"]).pvalue) == [
        t["pvalue"] for t in result.tests
    ]


def test_frame_reads_back_every_column_of_every_row_and_component(result):
    """to_frame(): each test's row (equalized odds: its TPR row, then its FPR row) holds the
    test's own values, read back column by column; equalized odds' component j holds entry
    j of each per-component list (value_group, value_reference, difference, ci_low,
    ci_high, n_group, n_reference), and the other columns are the test's scalars."""
    frame = result.to_frame()
    per_part = ("value_group", "value_reference", "difference", "ci_low", "ci_high",
                "n_group", "n_reference")  # fmt: skip
    expected = []
    for t in result.tests:
        eo = t["metric"] == "equalized_odds" and "difference" in t
        for j, part in enumerate(["tpr", "fpr"] if eo else [t["metric"]]):
            rec = {c: t.get(c) for c in frame.columns}
            rec["component"] = part
            for key in per_part:
                if eo and key in t:
                    assert isinstance(t[key], list) and len(t[key]) == 2
                    rec[key] = t[key][j]
            expected.append(rec)
    assert len(frame) == len(expected)
    eo_rows = 0
    for got, want in zip(frame.to_dict("records"), expected):
        for c in frame.columns:
            if want[c] is None:
                assert got[c] is None or got[c] != got[c], c  # None or NaN
            elif isinstance(want[c], float):
                assert got[c] == pytest.approx(want[c], rel=1e-15, abs=0), c
            else:
                assert got[c] == want[c], c
        eo_rows += got["metric"] == "equalized_odds"
    assert eo_rows >= 6  # three attributes, two components each
    # the two components differ in every per-component column, so a swap shows
    eo = frame[(frame.metric == "equalized_odds") & (frame.attribute == "sex")]
    for key in per_part:
        assert eo[key].iloc[0] != eo[key].iloc[1], key


def test_adjusted_pvalue_of_a_monte_carlo_bound_is_a_bound():
    row = {"pvalue": 1 / 200, "pvalue_adjusted": 9 / 200, "method": "permutation",
           "n_permutations": 199}  # fmt: skip
    assert pvalue_text(row) == "< 0.005"
    assert pvalue_text(row, "pvalue_adjusted") == "< 0.045"
    row.update(pvalue=0.01, pvalue_adjusted=0.09)
    assert pvalue_text(row, "pvalue_adjusted") == "0.0900"


def test_printed_audit(result):
    text = str(result)
    assert text.splitlines()[0].startswith("fastfair audit: 3,000 rows")
    assert "skipped (fewer than 10 rows): c (n=8)" in text
    sex_tpr = _rows(result, attribute="sex", metric="tpr")[0]
    assert sex_tpr["verdict"] in text


def test_adjusted_pvalue_is_a_bound_only_when_the_pvalue_it_adjusts_is_one():
    """pvalue_text of an adjusted p-value reads the raw p-value it adjusts: a model
    comparison's pvalue_reduced_adjusted is a bound when pvalue_reduced is one, whatever the
    row's other (equal-gaps) p-value; it printed "< 0.006" for an exact 0.006 beside an
    equal-gaps p-value below 1e-16."""
    row = {"pvalue": 1e-17, "pvalue_adjusted": 6e-17, "pvalue_reduced": 0.001,
           "pvalue_reduced_adjusted": 0.006, "method": "asymptotic"}  # fmt: skip
    assert pvalue_text(row, "pvalue_adjusted") == "< 1e-16"
    assert pvalue_text(row, "pvalue_reduced_adjusted") == "0.0060"
    row.update(
        pvalue=0.2, pvalue_adjusted=0.6, pvalue_reduced=1e-18, pvalue_reduced_adjusted=0.003
    )
    assert pvalue_text(row, "pvalue_reduced_adjusted") == "< 0.003"
    assert pvalue_text(row, "pvalue_adjusted") == "0.6000"


def _printed_rows(text):
    """The cells of every test row of the printed audit's tables, in order."""
    rows, lines = [], text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("  metric  ") and lines[k + 1].strip().startswith("---"):
            for row in lines[k + 2 :]:
                if not row.strip():
                    break
                rows.append(re.split(r"\s{2,}", row.strip()))
    return rows


def _holm_of_every_test(result) -> dict:
    """id(test) -> Holm's step-down p-value over every test with a p-value, written out."""
    valid = [t for t in result.tests if "pvalue" in t]
    p = np.array([t["pvalue"] for t in valid])
    order, running, holm = np.argsort(p, kind="stable"), 0.0, np.empty(len(p))
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        holm[i] = min(1.0, running)
    return {id(t): h for t, h in zip(valid, holm)}


def _tests_as_shown(result) -> list:
    """The tests in the order the table shows them: each attribute's, by comparison, then
    in the audit's metric order."""
    ordered = []
    for attr in result.attributes:
        by_pair = {}
        for t in result.tests:
            if t["attribute"] == attr["name"]:
                by_pair.setdefault((t["group"], t["reference"]), []).append(t)
        ordered += [t for tests in by_pair.values() for t in tests]
    return ordered


def _fixed(x) -> str:
    """A value to 3 decimals (equalized odds: TPR / FPR)."""
    return " / ".join(f"{v:.3f}" for v in x) if isinstance(x, list) else f"{x:.3f}"


def _interval_cell(t) -> str:
    parts = zip(*(np.atleast_1d(t[k]).tolist() for k in ("difference", "ci_low", "ci_high")))
    return " / ".join(f"{d:.3f} [{lo:.3f}, {hi:.3f}]" for d, lo, hi in parts)


def _shows(cell, x) -> bool:
    """A printed p-value (4 decimals or 4 significant digits, or a bound) shows x."""
    return cell.startswith("<") or float(cell) == pytest.approx(x, rel=1e-3, abs=5e-5)


def test_printed_table_reads_back_each_test_with_its_holm_adjusted_pvalue(result):
    """The printed table, cell by cell: value, reference value, difference [interval] to 3
    decimals (equalized odds: TPR / FPR), the raw p-value and, in the "adjusted" column, the
    Holm step-down p-value over every test written out here; MDE and verdict. Holm moves
    most p-values here, so the raw one in the adjusted column shows."""
    adjusted = _holm_of_every_test(result)
    rows, ordered = _printed_rows(result.format()), _tests_as_shown(result)
    assert len(rows) == len(ordered) == len(result.tests)
    moved = 0
    for cells, t in zip(rows, ordered):
        assert cells[0] == t["metric"] and len(cells) == 9, cells
        if t["family"] != "parity":
            assert cells[1] == f"{t['group']} vs {t['reference']}"
            assert cells[2:4] == [_fixed(t["value_group"]), _fixed(t["value_reference"])]
            assert cells[4] == _interval_cell(t)
        assert _shows(cells[5], t["pvalue"]) and _shows(cells[6], adjusted[id(t)]), cells
        assert cells[7] == ("-" if t.get("mde") is None else _report.format_mde(t["mde"]))
        assert cells[8] == t["verdict"]
        moved += not cells[6].startswith("<") and not _shows(cells[6], t["pvalue"])
    assert moved >= 10


def test_report_table_of_all_tests_reads_back_each_test(result):
    """The HTML report's "All tests" table, cell by cell, as the printed one: values,
    difference [interval], raw and Holm-adjusted p-values (written out), MDE, power at tau
    to 2 decimals and rows needed, one table row per test in the printed order."""
    adjusted = _holm_of_every_test(result)
    page = result.to_html()
    table = page[page.index("<h2>All tests</h2>") :]
    table = table[: table.index("</table>")]
    rows = []
    for tr in re.findall(r"<tr title='[^']*'>(.*?)</tr>", table):
        cells = re.findall(r"<td class='[^']*'>(.*?)</td>", tr)
        rows.append([html.unescape(c.replace("<br>", " / ")) for c in cells])
    ordered = _tests_as_shown(result)
    assert len(rows) == len(ordered) == len(result.tests)
    for cells, t in zip(rows, ordered):
        assert len(cells) == 10, cells
        if t["family"] != "parity":
            assert cells[1:4] == [_fixed(t["value_group"]), _fixed(t["value_reference"]),
                                  _interval_cell(t).replace("-", "\u2212")]  # fmt: skip
        assert _shows(cells[4], t["pvalue"]) and _shows(cells[5], adjusted[id(t)]), cells
        assert cells[6] == ("-" if t.get("mde") is None else _report.format_mde(t["mde"]))
        power, needed = t.get("power_at_tau"), t.get("n_needed")
        assert cells[7:9] == ["-" if power is None else f"{power:.2f}",
                              "-" if needed is None else f"{needed:,}"]  # fmt: skip


def test_max_rows_shows_that_many_tests_and_counts_the_rest(frame):
    """format(max_rows=k) prints k test rows and "... n - k more tests not shown" when
    k < n tests; k = n (or None) prints them all, with no such line."""
    res = fastfair.audit("y", "pred", ["sex", "race"], data=frame, n_permutations=99)
    n = len(res.tests)
    for k in (None, n + 1, n, n - 1, 1, 0):
        rows, text = _printed_rows(res.format(max_rows=k)), res.format(max_rows=k)
        hidden = [line for line in text.splitlines() if "more tests not shown" in line]
        shown = n if k is None else min(k, n)
        assert len(rows) == shown, k
        assert hidden == ([f"... {n - shown:,} more tests not shown (--max-rows; all are in "
                           "--json)"] if shown < n else []), k  # fmt: skip


def test_tiny_pvalues_print_as_a_bound_and_json_keeps_the_float():
    rng = np.random.default_rng(5)
    group = np.repeat(["a", "b"], 2000)
    pred = rng.random(4000) < np.where(group == "a", 0.1, 0.6)
    y = rng.random(4000) < 0.5
    res = fastfair.audit(y, pred, group, metrics=["selection_rate"])
    (t,) = res.tests
    # the exact p-value is the enumeration's truncation bound (4e-20), kept in the JSON
    assert 0 < t["pvalue"] < 1e-16 and res.to_dict()["tests"][0]["pvalue"] == t["pvalue"]
    for text in (str(res), html.unescape(res.to_html())):
        assert "< 1e-16" in text and "e-20" not in text


class _Parser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.order, self.circles, self.images, self.widths = [], 0, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("h1", "h2", "svg", "table", "img") or attrs.get("class") == "cards":
            self.order.append(tag if tag != "div" else "cards")
        if tag == "circle":
            self.circles += 1
        if tag == "svg":
            self.widths.append(float(attrs["width"]))
        if tag == "img":
            self.images.append(attrs["src"])


def test_html_report_summary_first_and_forest_of_every_difference(result, monkeypatch):
    parser = _Parser()
    parser.feed(result.to_html())
    assert parser.order[:3] == ["h1", "cards", "h2"] and parser.order[3] == "svg"
    plotted = [
        t
        for t in result.tests
        if t["family"] in ("confusion", "auc")
        and t["metric"] != "equalized_odds"
        and "error" not in t
    ]
    assert parser.circles == len(plotted)
    assert sum(parser.widths) <= 1140  # labels and panels fit a 1,200 px window
    # calibration curves (one panel per attribute of up to three groups, else one per
    # group), then the rate gaps across thresholds of each two-group attribute (TPR, FPR)
    panels = sum(
        1 if len(res.curve.groups) <= _report.MAX_GROUPS_ONE_PANEL else len(res.curve.groups)
        for res in result.parity.values()
    )
    assert len(parser.images) == panels + 2 * len(result.sweeps)
    assert all(src.startswith("data:image/png;base64,") for src in parser.images)
    # without matplotlib: the same report, no image, a note saying how to get the curves
    monkeypatch.setattr(_report, "_pyplot", lambda: None)
    bare = result.to_html()
    parser = _Parser()
    parser.feed(bare)
    assert parser.images == [] and parser.circles == len(plotted)
    assert 'pip install "fastfair[plot]"' in bare


def _tpr_counts(rng, n, prevalence, tpr):
    pos = rng.binomial(n, prevalence)
    tp = rng.binomial(pos, tpr)
    return [n - pos, 0, pos - tp, tp]  # TN, FP, FN, TP (no false positives: FPR unused)


def test_mde_is_detected_with_the_promised_power():
    """At a true TPR gap equal to the MDE the exact test rejects ~80% of the time; at no gap,
    at most alpha (level twin). 600 simulated audits each; tolerance 3 binomial SEs.

    The audit computes the MDE at the observed rates, so the gap d solves d = MDE(rates
    0.7 - d and 0.7): the MDE an audit reports when its rates are the true ones.
    """
    rng = np.random.default_rng(20261122)
    n, prevalence, tpr_ref = 1500, 0.4, 0.7
    options = dict(alpha=0.05, tau=0.05, power=0.8)
    mde = 0.0
    for _ in range(20):
        rates = {"tpr": np.array([tpr_ref - mde, tpr_ref]), "prevalence": np.full(2, prevalence)}
        mde = _audit._planner_figures("tpr", rates, [n, n], options)["mde"]
    assert 0.07 < mde < 0.08
    reps = 600
    for gap, target in ((mde, 0.8), (0.0, 0.05)):
        rejected = 0
        for _ in range(reps):
            counts = [
                _tpr_counts(rng, n, prevalence, tpr_ref - gap),
                _tpr_counts(rng, n, prevalence, tpr_ref),
            ]
            res = fastfair.permutation_test_from_counts(counts, metric="tpr", reference=1)
            rejected += res.pvalue <= 0.05
        se = np.sqrt(target * (1 - target) / reps)
        if gap:
            assert abs(rejected / reps - target) <= 3 * se
        else:
            assert rejected / reps <= target + 3 * se


def test_rate_intervals_are_newcombe_with_exact_limits_for_few_events(result):
    """Issue 34: the audit's interval of a rate difference is the union of
    Miettinen-Nurminen's (fastfair._score, checked in test_difference_intervals.py) and
    Newcombe's square-and-add of the two groups' limits, Clopper-Pearson for a group with
    fewer than 50 events or non-events and Wilson's otherwise (written out with
    scipy.stats.binomtest)."""
    from scipy import stats

    from fastfair._score import score_interval

    def limits(x, n):
        method = "exact" if min(x, n - x) < 50 else "wilson"
        ci = stats.binomtest(round(x), int(n)).proportion_ci(0.95, method=method)
        return ci.low, ci.high

    rows = [t for t in result.tests if t.get("family") == "confusion" and "ci_low" in t]
    kinds = set()
    for t in rows:
        if isinstance(t["value_group"], list):
            continue
        n1, n2 = t["n_group"], t["n_reference"]
        p1, p2 = t["value_group"], t["value_reference"]
        (l1, u1), (l2, u2) = limits(p1 * n1, n1), limits(p2 * n2, n2)
        lower = p1 - p2 - np.hypot(p1 - l1, u2 - p2)
        upper = p1 - p2 + np.hypot(u1 - p1, p2 - l2)
        mn = score_interval(round(p1 * n1), n1, round(p2 * n2), n2)
        expected = [min(lower, mn[0]), max(upper, mn[1])]
        assert [t["ci_low"], t["ci_high"]] == pytest.approx(expected, abs=1e-6)
        kinds.add((min(p1 * n1, n1 - p1 * n1) < 50, lower < mn[0]))
    assert {k[0] for k in kinds} == {True, False}  # both kinds of limits were checked
    assert {k[1] for k in kinds} == {True, False}  # and both ends of the union


def test_json_is_strict_a_parity_grid_point_without_standard_error_is_null():
    """The parity grid table of a group with few users has NaN standard errors; the JSON
    wrote them as bare NaN tokens, which strict readers (JSON.parse, jq) refuse. Now null."""
    rng = np.random.default_rng(0)
    n = 600
    g = rng.choice(["a", "b"], n, p=[0.8, 0.2])
    s = rng.random(n)
    y = rng.random(n) < s
    user = np.where(g == "b", 1000 + rng.integers(0, 6, n), rng.integers(0, 200, n))
    res = fastfair.audit(
        y, s >= 0.5, g, y_score=s, cluster=user, metrics=["tpr"], n_permutations=99,
        random_state=0,
    )  # fmt: skip
    table = res.parity["group"].table
    assert any(np.isnan(v).any() for v in table.values() if np.asarray(v).dtype.kind == "f")

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    text = res.to_json()
    loaded = json.loads(text, parse_constant=refuse)
    grid = loaded["parity"]["group"]["grid_table"]
    assert None in [v for column in grid.values() if isinstance(column, list) for v in column]
    assert res.to_dict() == loaded


def test_parity_row_takes_part_in_the_sequential_decision(frame):
    """Sequential audit (n_permutations=None): the parity row's bootstrap p-value is
    continued by MMCTest like the permutation tests (draws, interval, decision), instead of
    entering the family as a known p-value (issue 33)."""
    res = fastfair.audit(
        "y", "pred", ["sex"], y_score="score", data=frame, metrics=["tpr"], random_state=1
    )
    (row,) = _rows(res, family="parity")
    assert row["n_permutations"] > 0
    lo, hi = row["pvalue_interval"]
    assert lo <= row["pvalue"] <= hi
    assert row["verdict"] != "not tested"


def test_parity_row_is_undecided_when_its_monte_carlo_interval_holds_its_level(frame):
    """Issue 33: the sequential audit does not decide the parity row on its bootstrap
    p-value as is. At alpha = 0.0093 the row's Holm level (alpha / 2: the TPR row's p is
    ~5e-8) lies inside the p-value's Monte-Carlo interval at the cap, so the row's decision
    and its verdict read "undecided"; at alpha = 0.05 the same row is decided (its interval
    lies below alpha / 2)."""
    kw = dict(y_score="score", data=frame, metrics=["tpr"], random_state=1)
    decided = fastfair.audit("y", "pred", ["sex"], **kw)
    (row,) = _rows(decided, family="parity")
    assert row.decision == "difference" and row["verdict"] == "DIFFERENCE"
    assert row["pvalue_interval"][1] < 0.05 / 2
    alpha = 0.0093
    res = fastfair.audit("y", "pred", ["sex"], alpha=alpha, **kw)
    (row,) = _rows(res, family="parity")
    (tpr,) = _rows(res, family="confusion")
    assert tpr["pvalue"] < row["pvalue"]  # parity is second in Holm's order: level alpha / 2
    lo, hi = row["pvalue_interval"]
    assert lo < alpha / 2 < hi and lo <= row["pvalue"] <= hi
    assert row.decision == "undecided" and row["verdict"].startswith("undecided: p-value in")
    assert row["n_permutations"] > 10_000  # continued past the first draws, to the cap


@pytest.mark.parametrize("sizes", [(20, 380), (25,) * 16])
def test_an_attribute_with_fewer_than_two_groups_large_enough_is_not_tested(sizes):
    """min_group_size=30 leaves one group of 'attr' (then none): no reference is chosen, no
    test is run on it, its note and printed line say why, and the other attribute is tested
    as usual (written for round ten's r10-aud-one-tested: one large group taken as reference)."""
    rng = np.random.default_rng(0)
    attr = np.repeat([f"a{k}" for k in range(len(sizes))], sizes).astype(object)
    n = attr.size
    other = np.array(["x", "y"])[rng.integers(0, 2, n)]
    y, pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    res = fastfair.audit(y, pred, {"attr": attr, "other": other}, metrics=["tpr"],
                         n_permutations=99, min_group_size=30)  # fmt: skip
    assert {t["attribute"] for t in res.tests} == {"other"}
    (info,) = [d for d in res.to_dict()["attributes"] if d["name"] == "attr"]
    tested = [g["group"] for g in info["groups"] if g["tested"]]
    assert tested == [f"a{k}" for k, size in enumerate(sizes) if size >= 30]
    assert info["reference"] is None and info["reference_rule"] is None
    assert info["note"] == "fewer than two groups have enough rows: nothing tested"
    assert "attr: reference None;" in res.format()


def test_mde_cells_are_green_exactly_where_the_comparison_could_detect_tau(result):
    """The HTML power table marks a cell 'mde-ok' (green) when its MDE is at most tau and
    'mde-low' otherwise: counted against the tests' MDEs, which fall on both sides of tau
    here (written for round ten's r10-rep-mde-class: the classes swapped)."""
    mdes = [t["mde"] for t in result.tests if t.get("mde") is not None]
    ok = sum(m <= result.tau for m in mdes)
    assert 0 < ok < len(mdes) - ok  # both kinds, unequal counts: a swap changes them
    page = result.to_html()
    assert page.count("<td class='mde-ok'") == ok
    assert page.count("<td class='mde-low'") == len(mdes) - ok


# ---- practice round (session 16, prac4): report cells and sentences read back -------------


@pytest.fixture(scope="module")
def three():
    """One attribute of three groups (a: 300 rows, b: 150, c: 60) with scores: two
    comparisons per metric, so Holm moves the p-values; (y, pred, g, audit, its HTML)."""
    rng = np.random.default_rng(11)
    g = np.repeat(["a", "b", "c"], [300, 150, 60])
    y = rng.random(g.size) < np.where(g == "c", 0.5, 0.3)
    score = np.clip(np.where(y, 0.62, 0.38) + rng.normal(0, 0.2, g.size), 0.0, 1.0)
    pred = np.where(g == "b", score >= 0.6, score >= 0.5)
    res = fastfair.audit(y, pred, {"g": g}, y_score=score, metrics=["tpr", "fpr", "accuracy"],
                         n_permutations=99, random_state=2)  # fmt: skip
    return y, pred, g, res, res.to_html()


def test_to_dict_adjustment_counts_every_test_of_the_audit(three):
    """'holm over all N tests': N = comparisons x (metrics + AUC) + one parity test, counted
    from the design (two comparisons, three metrics) rather than from the rows."""
    res = three[3]
    n = 2 * (3 + 1) + 1
    assert len(res.tests) == n
    assert res.to_dict()["adjustment"] == f"holm over all {n} tests of the audit"


def test_forest_labels_give_each_groups_rows_and_hovers_give_both_pvalues(three):
    """The forest plot's label column: each compared group with its own rows (n=, counted
    with numpy; the reference a has 300, more than either), and each point's hover title:
    the raw p-value after "p" and the Holm-adjusted one after "adjusted"; with nine tests
    Holm moves some, so one shown for the other fails."""
    _, _, g, res, page = three
    labels = re.findall(r"<text class='t' x='14' y='[^']*'>([^<]*)<tspan class='s' dx='5'>"
                        r"n=([\d,]+)</tspan>", page)  # fmt: skip
    assert labels == [("b", f"{(g == 'b').sum():,}"), ("c", f"{(g == 'c').sum():,}")]
    titles = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title></circle>", page)]
    plotted = [t for t in res.tests if t["family"] in ("confusion", "auc")]
    assert len(titles) == len(plotted) == 8
    moved = 0
    for t in plotted:
        raw, adjusted = pvalue_text(t), pvalue_text(t, "pvalue_adjusted")
        want = f"{t['metric']} {t['group']} vs {t['reference']}: "
        (title,) = [x for x in titles if x.startswith(want)]
        assert f"; p = {raw}, adjusted {adjusted}; MDE " in title, title
        assert title.endswith(t["verdict"])
        moved += raw != adjusted
    assert moved >= 4


def test_groups_table_reads_back_each_groups_rates(three):
    """The report's Groups table, row by row: rows, base rate (share of positive labels),
    TPR, FPR, PPV, selection rate and accuracy to 3 decimals, each counted with numpy; the
    base rate and the selection rate differ in every group here, so one shown for the other
    fails."""
    y, pred, g, _, page = three
    section = page[page.index("<h2>Groups</h2>") :]
    section = section[: section.index("</table>")]
    rows = re.findall(r"<tr><td class='l'>([^<]*)</td>(.*?)</tr>", section)
    assert [name for name, _ in rows] == ["a", "b", "c"]
    for name, cells in rows:
        cells = re.findall(r"<td>([^<]*)</td>", cells)
        m = g == name
        yy, pp = y[m], pred[m]
        want = [yy.mean(), pp[yy].mean(), pp[~yy].mean(), yy[pp].mean(), pp.mean(),
                (yy == pp).mean()]  # fmt: skip
        assert cells[0] == f"{m.sum():,}"
        assert cells[1] == f"{want[0]:.3f}" != f"{want[4]:.3f}"
        assert [c.split(" [")[0] for c in cells[2:]] == [f"{v:.3f}" for v in want[1:]]


def test_three_groups_share_one_calibration_panel_four_get_one_each(three):
    """An attribute of three groups (MAX_GROUPS_ONE_PANEL) gets one panel with every curve;
    more groups get one panel per group (counted from the images' alt texts)."""
    pytest.importorskip("matplotlib")
    page = three[4]
    assert page.count("alt='calibration curves of g'") == 1
    assert "alt='calibration curve of g = " not in page
    rng = np.random.default_rng(4)
    g4 = np.repeat(["a", "b", "c", "d"], 120)
    y = rng.random(g4.size) < 0.4
    score = np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.2, g4.size), 0.0, 1.0)
    four = fastfair.audit(y, score >= 0.5, {"g": g4}, y_score=score, metrics=["tpr"],
                          n_permutations=99)  # fmt: skip
    page = four.to_html()
    assert "alt='calibration curves of g'" not in page
    assert [page.count(f"alt='calibration curve of g = {k}'") for k in "abcd"] == [1] * 4


def _fake_result(**kw):
    from types import SimpleNamespace

    base = dict(alpha=0.05, tau=0.05, power=0.8, tests=[], adjust="holm", attributes=[])
    return SimpleNamespace(**{**base, **kw})


@pytest.mark.parametrize("under,words", [(0, "0 non-significant tests are"),
                                         (1, "1 non-significant test is"),
                                         (2, "2 non-significant tests are")])  # fmt: skip
def test_power_card_says_how_many_tests_are_too_small_in_words(under, words):
    s = dict(n_differences=0, n_tests=5, largest=None, n_with_mde=4, mde_range=[0.03, 0.2],
             n_detectable=4 - under, n_underpowered=under)  # fmt: skip
    card = _report._summary_cards(_fake_result(), s)
    assert f"{words} too small to tell." in card
    assert f"{4 - under} of 4 comparisons" in card
    assert ("card warn" in card) == (under > 0)


def _diff_row(diff, group, p=0.001):
    return dict(attribute="g", family="confusion", metric="tpr", group=group, reference="a",
                difference=diff, pvalue=p, pvalue_adjusted=min(1.0, 3 * p),
                decision="difference")  # fmt: skip


def test_differences_list_ranks_by_the_size_of_the_gap_whatever_its_sign():
    """The summary's list: the significant differences by |difference|, largest first, at
    most six, then "and k more"; a negative gap of -0.4 comes before +0.1."""
    gaps = [0.1, -0.4, 0.25, -0.05, 0.3, -0.2, 0.15, 0.02]
    rows = [_diff_row(d, f"g{k}") for k, d in enumerate(gaps)]
    rows.append({**_diff_row(0.9, "ns"), "decision": "no_evidence"})  # not significant
    text = _report._differences_list(_fake_result(tests=rows))
    order = re.findall(r"<b>TPR</b>, (\w+) vs a", text)
    by_size = sorted(range(len(gaps)), key=lambda k: -abs(gaps[k]))
    assert order == [f"g{k}" for k in by_size[:6]]
    assert "<li>and 2 more (table below)</li>" in text


@pytest.mark.parametrize("step", [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0])
def test_forest_axis_limit_keeps_a_value_that_is_already_a_round_step(step):
    """_nice_limit(x): the smallest round step >= x; a step itself stays (2 tau = 0.1 at the
    default tau gives an axis of ±0.1, not ±0.15), anything above moves to the next."""
    assert _report._nice_limit(step) == step
    assert _report._nice_limit(step * (1 + 1e-9)) > step


def test_group_list_counts_only_the_tested_groups_it_leaves_out():
    """The attribute line's list of tested groups stops at MAX_GROUPS_LINE characters and
    counts the tested groups not listed; skipped groups are listed separately, never in
    that count."""
    tested = [dict(group=f"group-{k:03d}", n=100 + k, tested=True) for k in range(30)]
    skipped = [dict(group=f"small-{k}", n=3, tested=False) for k in range(5)]
    text = _report._group_list(tested + skipped, True)
    listed = re.findall(r"group-\d{3} \(\d+\)", text)
    assert 0 < len(listed) < 30 and "small-" not in text
    assert text.endswith(f", ... ({30 - len(listed)} more)")


def test_equivalence_sentence_counts_every_verdict_within_delta():
    """'Equivalence: k of n tests shown within ±δ' counts the verdicts shown within the
    margin, "FAIR within ±δ" and "DIFFERENCE, within ±δ" alike."""
    verdicts = ["FAIR within ±0.05", "DIFFERENCE, within ±0.05", "DIFFERENCE",
                "no evidence (could detect ≥ 0.04)"]  # fmt: skip
    tests = [dict(delta=0.05, verdict=v) for v in verdicts]
    s = dict(n_differences=2, n_tests=4, largest=None, n_with_mde=0, n_errors=0)
    out = _report._summary_sentences(_fake_result(tests=tests), s)
    assert out[1] == ("Equivalence: 2 of 4 tests shown within ±0.05 (TOST, adjusted "
                      "separately); 'no evidence' alone is not that.")  # fmt: skip


def test_parity_rows_list_the_tested_groups_only(frame, result):
    """Each predictive-parity row's `groups`: the attribute's groups with at least
    min_group_size (10) rows, counted with pandas, in sorted order; race's 'c' (8 rows) and
    the small intersections are not among them."""
    rows = [t for t in result.tests if t["family"] == "parity"]
    assert [t["attribute"] for t in rows] == ["sex", "race", "sex & race"]
    for t, columns in zip(rows, (["sex"], ["race"], ["sex", "race"])):
        sizes = frame.groupby(columns).size()
        want = sorted(" & ".join(k) if isinstance(k, tuple) else k
                      for k, n in sizes.items() if n >= 10)  # fmt: skip
        assert t["groups"] == want, t["attribute"]
        assert len(want) < len(sizes) or columns == ["sex"]  # race, sex & race: some skipped


def test_sensitive_feature_forms_refused_or_named(frame):
    """An empty list or mapping of attributes and a repeated name are refused by name; a 2-D
    array's columns are the attributes sensitive_feature_0, _1 (the same tests as those
    columns given by name)."""
    kw = dict(metrics=["tpr"], n_permutations=99)
    for sf, message in (([], "sensitive_features is an empty list"),
                        ({}, "sensitive_features is an empty mapping"),
                        (["sex", "sex"], "sensitive_features has repeated names: "
                                         "['sex', 'sex']")):  # fmt: skip
        with pytest.raises(ValueError) as info:
            fastfair.audit("y", "pred", sf, data=frame, **kw)
        assert message in str(info.value)
    two = frame[["sex", "race"]].to_numpy()
    res = fastfair.audit(frame.y, frame.pred, two, **kw)
    named = fastfair.audit("y", "pred", ["sex", "race"], data=frame, **kw)
    assert [a["name"] for a in res.attributes] == ["sensitive_feature_0", "sensitive_feature_1"]
    assert [t["pvalue"] for t in res.tests] == [t["pvalue"] for t in named.tests]
    with pytest.raises(ValueError, match="y_pred has 2999 rows, y_true has 3000"):
        fastfair.audit(frame.y.to_numpy(), frame.pred.to_numpy()[1:], frame.sex.to_numpy())


def test_report_branches_of_a_small_audit():
    """What the report says where a part is missing: equalized odds alone has no forest
    plot ("No differences to plot."); a rate undefined in one group is "n/a" in the forest
    plot with the reason on hover, "-" in the power table, and the groups' other metrics
    keep their marks; with no MDE at all the power card says "no planner figure"."""
    rng = np.random.default_rng(21)
    g = np.repeat(["a", "b", "c"], [80, 60, 40])
    y = rng.random(g.size) < 0.5
    y[g == "c"] = False  # no positives in c: its TPR is undefined
    pred = rng.random(g.size) < 0.5
    eo = fastfair.audit(y[g != "c"], pred[g != "c"], g[g != "c"], metrics=["equalized_odds"],
                        n_permutations=99)  # fmt: skip
    assert "<p class='note'>No differences to plot.</p>" in eo.to_html()
    res = fastfair.audit(y, pred, {"g": g}, metrics=["tpr", "fpr"], n_permutations=99)
    page = res.to_html()
    (error,) = [t["error"] for t in res.tests if "error" in t]
    assert page.count("n/a<title>") == 1 and f"n/a<title>{html.escape(error)}</title>" in page
    power = page[page.index("<h2>Could the audit detect a gap?") :]
    power = power[: power.index("</table>")]
    rows = re.findall(r"<tr><td class='l'>([^<]*)</td>(.*?)</tr>", power)
    cells = {name: re.findall(r"<td[^>]*>(.*?)</td>", rest) for name, rest in rows}
    assert list(cells) == ["b vs a", "c vs a"]
    assert cells["c vs a"][0] == "-" and cells["c vs a"][1] != "-"
    assert all(c != "-" for c in cells["b vs a"])
    s = dict(n_differences=0, n_tests=1, largest=None, n_with_mde=0)
    card = _report._summary_cards(_fake_result(), s)
    assert "How big?</div>no test ran</div>" in card
    assert "Could this audit have seen one?</div>no planner figure</div>" in card


def test_nice_limit_above_one_is_the_next_half():
    assert [_report._nice_limit(x) for x in (1.01, 1.5, 1.51, 2.2)] == [1.5, 1.5, 2.0, 2.5]


def test_forest_axes_refuse_the_wrong_number_of_axes(result):
    """One Axes per plotted metric (or one with `metric`): any other number is refused,
    naming both."""
    plt = pytest.importorskip("matplotlib.pyplot")
    n = len({t["metric"] for t in result.tests if t["family"] in ("confusion", "auc")
             and t["metric"] != "equalized_odds"})  # fmt: skip
    fig, axes = plt.subplots(1, n + 1)
    with pytest.raises(ValueError, match=f"ax must hold {n} axes, got {n + 1}"):
        result.plot(ax=axes)
    plt.close(fig)


def test_slices_repr_and_a_search_without_significant_slices():
    """AuditSlices' repr: depth, features, the number of significant slices and the error
    control; a search that found none says so in the printed audit and the report."""
    rng = np.random.default_rng(6)
    n = 600
    g, h = rng.choice(["a", "b"], n), rng.choice(["x", "y"], n)
    y, pred = rng.random(n) < 0.5, rng.random(n) < 0.5  # no gap anywhere
    res = fastfair.audit(y, pred, {"g": g, "h": h}, metrics=["tpr"], slices=2,
                         n_permutations=99, random_state=1)  # fmt: skip
    sl = res.slices
    assert sl.found == [] and list(sl.searches) == ["tpr"]
    assert repr(sl) == f"AuditSlices(depth <= 2 over g, h, 0 significant slices; {sl.control})"
    assert "No slice differs significantly from its complement." in res.format()
    assert "<p><b>No slice differs significantly from its complement.</b></p>" in res.to_html()
    assert pvalue_text({"pvalue": 0.5}, "pvalue_adjusted") == "-"


def test_model_comparison_table_reads_back_each_row_with_its_holm_adjusted_pvalues():
    """The printed "did the gap shrink?" table: its title names model A's and model B's
    columns in that order; each row's cells are the row's gaps, change, and in the p
    columns the p-values Holm-adjusted over the comparisons (written out here, both
    families); a comparison that could not run (c has no positives: TPR undefined) shows
    "-" in its five number cells and "not tested: <reason>" as its verdict, in the printed
    table and in the report's (one cell per column of the header)."""
    rng = np.random.default_rng(9)
    g = np.repeat(["a", "b", "c"], [300, 200, 80])
    y = rng.random(g.size) < 0.45
    y[g == "c"] = False
    sa = np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.25, g.size), 0, 1)
    sb = np.clip(sa + rng.normal(0, 0.05, g.size) + np.where(g == "b", 0.15, 0.0) * y, 0, 1)
    data = pd.DataFrame({"y": y.astype(int), "sa": sa, "sb": sb, "g": g})
    res = fastfair.audit("y", None, ["g"], y_score="sa", data=data, compare=("sa", "sb"),
                         metrics=["tpr", "fpr", "selection_rate"], n_permutations=99)  # fmt: skip
    rows = [r for r in res.model_comparison if r["metric"] != "auc"]
    valid = [r for r in rows if "error" not in r]
    everything = [r for r in res.model_comparison if "error" not in r]
    for key in ("pvalue", "pvalue_reduced"):
        p = np.array([r[key] for r in everything])
        order, running, holm = np.argsort(p, kind="stable"), 0.0, np.empty(len(p))
        for rank, i in enumerate(order):
            running = max(running, (len(p) - rank) * p[i])
            holm[i] = min(1.0, running)
        assert [r[f"{key}_adjusted"] for r in everything] == pytest.approx(holm, rel=1e-12)
    text = res.format()
    assert "Did the gap shrink? model B (sb) against model A (sa) on the same rows" in text
    table = text.split("Did the gap shrink?", 1)[1].splitlines()[3:]
    shown = [re.split(r"\s{2,}", line.strip()) for line in table[: len(res.model_comparison)]]
    moved = 0
    for cells, r in zip(shown, res.model_comparison, strict=True):
        assert cells[:3] == [r["attribute"], r["metric"], f"{r['group']} vs {r['reference']}"]
        if "error" in r:
            reason = r["error"] if len(r["error"]) <= 120 else r["error"][:117] + "..."
            assert cells[3:] == ["-"] * 5 + [f"not tested: {reason}"]
            continue
        assert cells[6] == pvalue_text(r, "pvalue_adjusted")
        assert cells[7] == pvalue_text(r, "pvalue_reduced_adjusted")
        assert cells[8] == r["verdict"]
        moved += cells[7] != pvalue_text(r, "pvalue_reduced")
    errors = [r for r in rows if "error" in r]
    assert [(r["group"], r["metric"]) for r in errors] == [("c", "tpr")]
    assert "has no positives" in errors[0]["error"] and moved >= 2 and len(valid) == 5
    page = res.to_html()
    section = page[page.index("<h2>Did the gap shrink?</h2>") :]
    section = section[: section.index("</table>")]
    heads = re.findall(r"<th>", section.split("</tr>", 1)[0])
    body = re.findall(r"<tr>(.*?)</tr>", section.split("</tr>", 1)[1])
    assert len(heads) == 9 and len(body) == len(res.model_comparison)
    assert all(len(re.findall(r"<td>", tr)) == 9 for tr in body)


def test_the_audits_threshold_sweep_runs_at_the_audits_alpha():
    """The sweep of a two-group attribute is threshold_sweep at the audit's alpha (here
    0.1): its critical values and band equal the direct call's at 0.1, which differ from
    those at the default 0.05."""
    rng = np.random.default_rng(7)
    n = 800
    g = np.where(rng.random(n) < 0.35, "b", "a")
    y = rng.random(n) < 0.4
    s = rng.random(n) * 0.5 + 0.4 * y + 0.1 * (g == "b")
    res = fastfair.audit(y, s >= 0.5, {"g": g}, y_score=s, metrics=["tpr"], alpha=0.1,
                         n_permutations=99, random_state=2, n_jobs=1)  # fmt: skip
    sweep = res.sweeps["g"]
    kw = dict(reference="a", n_permutations=99, random_state=2, n_jobs=1)
    at_01 = fastfair.threshold_sweep(y, s, g, alpha=0.1, **kw)
    at_005 = fastfair.threshold_sweep(y, s, g, alpha=0.05, **kw)
    assert sweep.alpha == 0.1
    np.testing.assert_array_equal(sweep.critical_value, at_01.critical_value)
    np.testing.assert_array_equal(sweep.band, at_01.band)
    assert not np.array_equal(at_01.band, at_005.band)


def test_every_setting_is_read_back_where_the_audit_states_it():
    """Non-default settings (alpha 0.1, tau 0.04, power 0.9, Bonferroni, min_group_size 70,
    seed 3, 99 permutations) read back in to_dict's fields and in every sentence that
    states them: the printed header and MDE line, the report's meta line, the tests table's
    power column, and the method notes; each value differs from its neighbours', so one
    shown for another fails. The test count and skipped group (c, 60 rows) are counted from
    the design."""
    rng = np.random.default_rng(13)
    g = np.repeat(["a", "b", "c"], [300, 150, 60])
    y = rng.random(g.size) < 0.4
    pred = rng.random(g.size) < np.where(y, 0.7, 0.2)
    res = fastfair.audit(y, pred, {"grp": g}, metrics=["tpr", "fpr"], alpha=0.1, tau=0.04,
                         power=0.9, adjust="bonferroni", min_group_size=70, random_state=3,
                         n_permutations=99)  # fmt: skip
    n_tests = 2  # b vs a, two metrics; c (60 rows) skipped
    d = res.to_dict()
    assert (d["n_rows"], d["alpha"], d["tau"], d["power"]) == (510, 0.1, 0.04, 0.9)
    assert (d["min_group_size"], d["seed"], d["n_permutations"]) == (70, 3, 99)
    assert d["metrics"] == ["tpr", "fpr"] and d["intersections"] is False
    assert d["engine"] == "memory" and len(d["tests"]) == n_tests
    assert d["adjustment"] == f"bonferroni over all {n_tests} tests of the audit"
    assert "two-sided z-test at alpha = 0.1 for one comparison, power 0.9," in d["power_method"]
    assert d["attributes"][0]["skipped"] == [{"group": "c", "n": 60}]
    text = res.format()
    first, second = text.splitlines()[:2]
    assert first == (f"fastfair audit: 510 rows; {n_tests} tests over grp; p-values adjusted "
                     "(bonferroni) over all tests; alpha = 0.1")  # fmt: skip
    assert second == ("MDE: smallest difference detected with 90% power at alpha = 0.1 (one "
                      "comparison; asymptotic planner); tau = 0.04")  # fmt: skip
    assert "skipped (fewer than 70 rows): c (n=60)" in text
    page = html.unescape(res.to_html())
    assert (f"510 rows · attributes grp · {n_tests} tests · \u03b1 = 0.1 (p-values adjusted by "
            f"bonferroni over all tests) · τ = 0.04 · fastfair {fastfair.__version__} · "
            "seed 3") in page  # fmt: skip
    assert "<th class=''>power at τ=0.04</th>" in page
    assert "detects with 90% power at \u03b1 = 0.1 (asymptotic planner" in page
    assert (f"the {n_tests} p-values are adjusted together (bonferroni), so the chance of any "
            "false DIFFERENCE in the whole audit is at most \u03b1 = 0.1") in page  # fmt: skip
    assert "Groups</b> with fewer than 70 rows are skipped and listed" in page
    assert "Skipped, fewer than 70 rows: grp: c (n=60)." in page


def test_power_table_cells_read_back_each_comparisons_figures(three):
    """The report's power table: one row per comparison, one cell per metric (AUC
    included), each "MDE (power at tau)" with "power at τ p; rows for τ n" on hover, read
    back from the row of that comparison and metric; power and rows needed are different
    numbers, so one shown for the other fails."""
    _, _, _, res, page = three
    from fastfair._format import format_mde

    section = page[page.index("<h2>Could the audit detect a gap?") :]
    section = section[: section.index("</table>")]
    heads = re.findall(r"<th>([^<]*)</th>", section)
    assert heads == ["TPR", "FPR", "accuracy", "AUC"]
    metric_of = dict(zip(heads, ["tpr", "fpr", "accuracy", "auc"]))
    rows = re.findall(r"<tr><td class='l'>([^<]*)</td>(.*?)</tr>", section)
    assert [name for name, _ in rows] == ["b vs a", "c vs a"]
    for name, cells in rows:
        group = name.split(" vs ")[0]
        found = re.findall(r"<td class='mde-(?:ok|low)' title='power at τ ([^;]*); rows for τ "
                           r"([^']*)'>([^ ]*) <span class='note'>\(([^)]*)\)</span></td>",
                           cells)  # fmt: skip
        assert len(found) == 4
        for head, (power, needed, mde, power_again) in zip(heads, found):
            (t,) = [t for t in res.tests if t["group"] == group
                    and t["metric"] == metric_of[head]]  # fmt: skip
            assert (power, power_again) == (f"{t['power_at_tau']:.2f}",) * 2
            assert needed == f"{t['n_needed']:,}" and mde == format_mde(t["mde"])


def test_printed_table_clips_long_group_labels_to_forty_characters():
    """A label longer than MAX_CELL (40) prints as its first 37 characters and '...', 40 in
    all, in the table and the group list; a label of exactly 40 prints whole."""
    rng = np.random.default_rng(2)
    long_label = "Region " + "abcdefghij" * 6  # 67 characters
    exact = "E" * 40
    g = rng.choice([long_label, exact], 600)
    y, pred = rng.integers(0, 2, 600), rng.integers(0, 2, 600)
    text = str(fastfair.audit(y, pred, g, metrics=["tpr"], n_permutations=99))
    (groups,) = [x for x in text.splitlines() if x.startswith("group: reference")]
    (row,) = [x for x in text.splitlines() if x.startswith("  tpr ")]
    clipped = long_label[:37] + "..."
    assert len(clipped) == 40
    n_long, n_exact = int((g == long_label).sum()), int((g == exact).sum())
    assert f"{clipped} ({n_long})" in groups and f"{exact} ({n_exact})" in groups
    assert f"{exact} vs {clipped} " in row
    assert long_label[:38] not in groups + row and exact + "..." not in groups + row


def test_audit_default_reference_is_the_group_with_most_rows_with_its_counts_read_back():
    """audit's reference is by default the largest group by rows: 'a' (400 rows, 40
    positives), while 'b' has the most positives (200 of 250) and 'c' the fewest rows. Each
    confusion row names 'a' as its reference, holds the denominators counted by hand
    (positives for TPR, negatives for FPR) and the p-value of permutation_test on the pair."""
    rng = np.random.default_rng(3)
    sizes, positives = {"a": 400, "b": 250, "c": 150}, {"a": 40, "b": 200, "c": 75}
    g = np.repeat(np.array(list(sizes)), list(sizes.values()))
    y = np.concatenate([np.arange(n) < positives[k] for k, n in sizes.items()]).astype(int)
    p = (rng.random(g.size) < np.where(y == 1, 0.7, 0.3)).astype(int)
    df = pd.DataFrame({"y": y, "p": p, "g": g})
    res = fastfair.audit("y", "p", "g", data=df, metrics=["tpr", "fpr"], n_permutations=99)
    rows = [t for t in res.tests if t["family"] == "confusion"]
    assert sorted((t["metric"], t["group"]) for t in rows) == [
        ("fpr", "b"), ("fpr", "c"), ("tpr", "b"), ("tpr", "c")
    ]  # fmt: skip
    for t in rows:
        assert t["reference"] == "a"
        den = (y == 1) if t["metric"] == "tpr" else (y == 0)
        assert t["n_group"] == np.sum(den & (g == t["group"]))
        assert t["n_reference"] == np.sum(den & (g == "a"))
        keep = np.isin(g, [t["group"], "a"])
        alone = fastfair.permutation_test(y[keep], p[keep], g[keep], metric=t["metric"],
                                          reference="a")  # fmt: skip
        assert t["pvalue"] == pytest.approx(alone.pvalue, rel=1e-12)


@pytest.mark.parametrize("n_groups", [5, 6])
def test_nothing_tested_message_lists_five_groups_then_dots_only_beyond_five(n_groups):
    """The error of an audit where no attribute has two groups of min_group_size rows names
    at most five groups with their sizes (counted here with np.unique), and adds ", ..."
    only when there are more than five: not at exactly five, at six."""
    labels = np.array([f"g{i}" for i in range(n_groups)])
    g = np.repeat(labels, np.arange(3, 3 + n_groups))
    rng = np.random.default_rng(0)
    y, yhat = rng.random(g.size) < 0.5, rng.random(g.size) < 0.5
    names, counts = np.unique(g, return_counts=True)
    listed = ", ".join(f"{a} ({c})" for a, c in zip(names[:5], counts[:5]))
    listed += ", ..." if n_groups > 5 else ""
    with pytest.raises(ValueError) as err:
        fastfair.audit(y, yhat, g, min_group_size=30)
    assert f"at least 30 rows (group: {listed}); see min_group_size" in str(err.value)


@pytest.mark.parametrize("extra, fits", [(0, True), (1, False)])
def test_group_list_of_exactly_max_groups_line_characters_is_shown_whole(extra, fits):
    """The attribute line's list of groups "name (n), ..." is cut only when it would be
    LONGER than MAX_GROUPS_LINE (120) characters: a list of exactly 120 characters (its
    length counted here from the joined text) is shown whole; one character more (a longer
    last name) drops that group and says "... (1 more)"."""
    assert _report.MAX_GROUPS_LINE == 120
    groups = [dict(group=f"grp-{k:02d}", n=100 + k, tested=True) for k in range(8)]
    items = [f"{g['group']} ({g['n']})" for g in groups]
    last = 120 - len(", ".join(items)) + len(groups[-1]["group"]) + extra
    groups[-1]["group"] = "z" * last
    items[-1] = f"{groups[-1]['group']} ({groups[-1]['n']})"
    whole = ", ".join(items)
    assert len(whole) == 120 + extra
    text = _report._group_list(groups, True)
    if fits:
        assert text == whole
    else:
        assert text == ", ".join(items[:-1]) + ", ... (1 more)"


@pytest.mark.parametrize("kind", ["categorical", "string", "string[pyarrow]"])
def test_a_sensitive_feature_as_a_categorical_or_pandas_array_audits_like_numpy(kind):
    """docs/data.md: every function accepts a column as a pandas Categorical or a pandas
    extension array. The audit of such a column (which has no .name, unlike a Series) is
    the audit of the same labels as a numpy array: attribute "group", the same groups,
    sizes and p-values. Written for a bug found by prac9 (AttributeError 'Categorical'
    object has no attribute 'name')."""
    if kind == "string[pyarrow]":
        pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    n = 400
    y, yhat = rng.random(n) < 0.5, rng.random(n) < 0.5
    g = rng.choice(["a", "b"], n)
    column = pd.Categorical(g) if kind == "categorical" else pd.array(g, dtype=kind)
    kw = dict(metrics=["tpr", "fpr"], n_permutations=99, random_state=0)
    want = fastfair.audit(y, yhat, g, **kw)
    got = fastfair.audit(y, yhat, column, **kw)
    assert got.attributes[0]["name"] == want.attributes[0]["name"] == "group"
    assert got.attributes[0]["groups"] == want.attributes[0]["groups"]
    assert [t["pvalue"] for t in got.tests] == [t["pvalue"] for t in want.tests]


@pytest.mark.parametrize("n_found", [6, 7])
def test_differences_list_says_more_only_beyond_six(n_found):
    """The summary's list shows at most six significant differences: exactly six are all
    listed with no "and 0 more"; seven list six and "and 1 more" (counted here from the
    rows' decisions)."""
    rows = [_diff_row(0.05 * (k + 1), f"g{k}") for k in range(n_found)]
    text = _report._differences_list(_fake_result(tests=rows))
    found = sum(r["decision"] == "difference" for r in rows)
    assert len(re.findall(r"<li><b>TPR</b>", text)) == min(found, 6)
    more = re.findall(r"<li>and (\d+) more \(table below\)</li>", text)
    assert more == ([str(found - 6)] if found > 6 else [])


def test_error_and_note_lines_print_a_long_reason_whole():
    """The printed table's "error:" and "note:" lines give the reason whole, up to 1,000
    characters (only a runaway message is clipped): the constant-prediction error (168
    characters) and the two-group constant-prediction note (114 characters) appear
    exactly as the test rows hold them."""
    rng = np.random.default_rng(0)
    n = 600
    y, g = (rng.random(n) < 0.45).astype(int), rng.choice(["a", "b"], n)
    both = fastfair.audit(y, np.ones(n, int), g, metrics=["tpr"], n_permutations=99)
    (t,) = both.tests
    assert len(t["error"]) > 150
    line = f"error: tpr {t['group']} vs {t['reference']} (group): {t['error']}"
    assert line in both.format().splitlines()
    one = fastfair.audit(y, (g == "a").astype(int), g, metrics=["tpr"], n_permutations=99)
    (t,) = one.tests
    assert len(t["note"]) > 100
    line = f"note: tpr {t['group']} vs {t['reference']}: {t['note']}"
    assert line in one.format().splitlines()


def test_printed_attribute_line_names_the_rule_of_every_reference():
    """Each printed attribute line says how its reference was chosen: '(largest group)' for
    the default (the group with most rows, counted here), '(given)' for a named one, and
    '(from the references of sex and race)' for an intersection of two given references."""
    rng = np.random.default_rng(5)
    n = 600
    sex = rng.choice(["F", "M"], n, p=[0.35, 0.65])
    race = rng.choice(["x", "y"], n, p=[0.55, 0.45])
    y, pred = rng.random(n) < 0.4, rng.random(n) < 0.5
    labels, counts = np.unique(sex, return_counts=True)
    largest = labels[np.argmax(counts)]
    res = fastfair.audit(y, pred, {"sex": sex}, metrics=["tpr"], n_permutations=99)
    lines = res.format().splitlines()
    assert any(s.startswith(f"sex: reference {largest} (largest group); ") for s in lines)
    res = fastfair.audit(y, pred, {"sex": sex, "race": race}, metrics=["tpr"],
                         reference={"sex": "F", "race": "y"}, intersections=True,
                         n_permutations=99)  # fmt: skip
    lines = res.format().splitlines()
    assert any(s.startswith("sex: reference F (given); ") for s in lines)
    assert any(s.startswith("race: reference y (given); ") for s in lines)
    want = "sex & race: reference F & y (from the references of sex and race); "
    assert any(s.startswith(want) for s in lines)


def test_planner_figures_use_the_audits_alpha_tau_and_power():
    """audit(alpha=0.1, tau=0.04, power=0.9): each row's MDE, power at tau and rows needed
    are the planner's formulas at those values, written out by hand from the two groups'
    counts (z at 1 - alpha/2 and at the power; variance per row r(1-r)/(den/n)); each value
    differs from its default, so one option not reaching the planner shows."""
    rng = np.random.default_rng(13)
    g = np.repeat(["a", "b"], [300, 150])
    y = rng.random(g.size) < 0.4
    pred = rng.random(g.size) < np.where(y, 0.7, 0.2)
    res = fastfair.audit(y, pred, {"grp": g}, metrics=["tpr", "fpr"], alpha=0.1, tau=0.04,
                         power=0.9, n_permutations=99)  # fmt: skip
    z_alpha, z_power = stats.norm.ppf(0.95), stats.norm.ppf(0.9)
    for t in res.tests:
        den_of = y if t["metric"] == "tpr" else ~y
        sig2, n = [], []
        for k in ("b", "a"):
            rows, den = g == k, den_of & (g == k)
            r = pred[den].mean()
            sig2.append(r * (1 - r) / (den.sum() / rows.sum()))
            n.append(rows.sum())
        sig2, n = np.array(sig2), np.array(n, dtype=float)
        se, share = np.sqrt((sig2 / n).sum()), n / n.sum()
        total = (z_alpha + z_power) ** 2 * (sig2 / share).sum() / 0.04**2
        assert t["mde"] == pytest.approx((z_alpha + z_power) * se, rel=1e-10)
        assert t["power_at_tau"] == pytest.approx(stats.norm.cdf(0.04 / se - z_alpha), rel=1e-10)
        assert t["n_needed"] == int(np.ceil(total * share - 1e-9).sum())


def test_parity_row_is_predictive_parity_test_with_the_audits_draws_seed_and_max_t():
    """The audit's predictive-parity row is predictive_parity_test of the tested groups'
    rows, clustered by the audit's `cluster`, with the max-T adjustment over the grid,
    `n_permutations` bootstrap draws and the audit's seed (docs: "bootstrap draws (parity)"):
    the statistic, p-value and draws of a direct call with those options."""
    rng = np.random.default_rng(31)
    n = 1200
    user = rng.integers(0, 300, n)
    g = np.where(user % 3 == 0, "x", "y")
    score = np.clip(rng.beta(2, 3, n) + 0.05 * (g == "x"), 0, 1)
    y = (rng.random(n) < score).astype(int)
    res = fastfair.audit(y, None, {"g": g}, y_score=score, cluster=user, metrics=["tpr"],
                         n_permutations=99, random_state=7)  # fmt: skip
    (row,) = [t for t in res.tests if t["family"] == "parity"]
    direct = fastfair.predictive_parity_test(y, score, g, cluster=user, adjust="maxT",
                                             n_bootstrap=99, random_state=7)  # fmt: skip
    assert row["n_permutations"] == direct.n_bootstrap == 99
    assert row["statistic"] == pytest.approx(direct.statistic, rel=1e-12)
    assert row["pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
    table, want = res.parity["g"].to_frame(), direct.to_frame()
    assert list(table.columns) == list(want.columns) and "pvalue_maxT" in table
    np.testing.assert_allclose(table.to_numpy(float), want.to_numpy(float), rtol=1e-12)
    other = fastfair.predictive_parity_test(y, score, g, cluster=user, adjust="maxT",
                                            n_bootstrap=99, random_state=8)  # fmt: skip
    assert other.pvalue != direct.pvalue  # the seed matters: a seed not passed on shows


def test_auc_row_is_the_permutation_test_with_the_audits_draws_and_a_non_default_seed():
    """With n_permutations set, the audit's AUC row is auc_test(method="permutation") of the
    pair with that many permutations and the audit's seed (11 here, not the default 0):
    the same p-value as the direct call with seed 11, and a seed that was not passed on
    (0, another draw) would give another p-value."""
    rng = np.random.default_rng(23)
    g = rng.choice(["a", "b"], 700, p=[0.6, 0.4])
    y = (rng.random(700) < 0.4).astype(int)
    score = rng.normal(size=700) + y * np.where(g == "b", 0.35, 0.5)
    res = fastfair.audit(y, None, {"g": g}, y_score=score, threshold=0.0, metrics=["tpr"],
                         n_permutations=99, random_state=11)  # fmt: skip
    (row,) = [t for t in res.tests if t["family"] == "auc"]
    assert (row["group"], row["reference"]) == ("b", "a")
    kw = dict(reference="a", method="permutation", n_permutations=99)
    direct = {seed: fastfair.auc_test(y, score, g, random_state=seed, **kw) for seed in (11, 0)}
    assert row["n_permutations"] == 99 and row["method"] == direct[11].method
    assert row["pvalue"] == direct[11].pvalue != direct[0].pvalue
    assert row["statistic"] == pytest.approx(direct[11].statistic, rel=1e-12)


def test_summary_largest_is_the_largest_significant_gap_else_the_largest_gap_flagged_so():
    """summary["largest"]: among the significant rows the one with the largest |difference|
    (a larger non-significant gap, a list-valued equalized-odds row and an error row do not
    count), flagged significant; with no significant row, the largest |difference| of all,
    flagged not significant. The text's sentence and the HTML card say which: "Largest:"
    / "largest difference" against "Largest difference (not significant):" / "largest,
    not significant"."""
    from types import SimpleNamespace

    def row(group, diff, decision):
        return dict(attribute="g", family="confusion", metric="tpr", group=group,
                    reference="a", difference=diff, ci_low=diff - 0.1, ci_high=diff + 0.1,
                    pvalue=0.01, pvalue_adjusted=0.02, decision=decision)  # fmt: skip

    rows = [row("b", 0.05, "difference"), row("c", -0.12, "difference"),
            row("d", 0.3, "no_evidence"),
            {**row("e", 0.0, "difference"), "difference": [0.9, 0.9]},
            dict(attribute="g", family="confusion", metric="tpr", group="f", reference="a",
                 error="no positives", decision="error")]  # fmt: skip
    summary = fastfair.AuditResult.summary.fget

    def largest(tests):
        fake = SimpleNamespace(tests=tests, attributes=[], tau=0.05)
        return summary(fake)["largest"]

    big = largest(rows)
    assert (big["group"], big["difference"], big["significant"]) == ("c", -0.12, True)
    assert (big["ci_low"], big["ci_high"]) == (-0.22, pytest.approx(-0.02))
    quiet = [{**t, "decision": "no_evidence"} if t["decision"] == "difference" else t
             for t in rows]  # fmt: skip
    big_quiet = largest(quiet)
    assert (big_quiet["group"], big_quiet["significant"]) == ("d", False)
    assert largest([rows[-1]]) is None
    fake = _fake_result()
    s = dict(n_differences=2, n_tests=5, n_with_mde=0, n_errors=0)
    said = _report._summary_sentences(fake, {**s, "largest": big})
    assert said[1].startswith("Largest: tpr, c vs a (g): ")
    said = _report._summary_sentences(fake, {**s, "largest": big_quiet})
    assert said[1].startswith("Largest difference (not significant): tpr, d vs a (g): ")
    card = _report._summary_cards(fake, {**s, "largest": big})
    assert "</div>largest difference: TPR, c vs a (g), 95% CI.</div>" in card
    card = _report._summary_cards(fake, {**s, "largest": big_quiet})
    assert "</div>largest, not significant: TPR, d vs a (g), 95% CI.</div>" in card


def test_report_explains_only_the_families_and_margins_the_audit_ran():
    """The report's notes explain the AUC and predictive parity only when those families
    ran (a score given), each once; the margins section explains a tolerance only when one
    was given, naming it: "DIFFERENCE beyond ±0.02" and H0: |gap| ≤ 0.02."""
    rng = np.random.default_rng(3)
    n = 1200
    g = rng.choice(["a", "b"], n)
    y = rng.random(n) < 0.4
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    kw = dict(metrics=["tpr"], n_permutations=99, random_state=0)
    plain = fastfair.audit(y, score >= 0.5, {"g": g}, **kw).to_html()
    scored = fastfair.audit(y, score >= 0.5, {"g": g}, y_score=score, **kw).to_html()
    for note in ("<li><b>AUC</b>: ", "<li><b>Predictive parity</b>: "):
        assert (plain.count(note), scored.count(note)) == (0, 1), note
    tolerant = fastfair.audit(y, score >= 0.5, {"g": g}, tolerance=0.02, **kw).to_html()
    paragraph = ("<b>DIFFERENCE beyond ±0.02</b>: with a tolerance, the difference verdict "
                 "tests H0: |gap| ≤ 0.02, so it says")  # fmt: skip
    assert paragraph in tolerant and "DIFFERENCE beyond" not in plain
