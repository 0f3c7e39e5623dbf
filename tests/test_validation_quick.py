"""Quick modes of the validation scripts (their full runs are recorded in validation/results)."""

import importlib.util
import io
import math
import pathlib

import numpy as np
import pytest

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


def test_difference_interval_coverage_quick():
    module = _load("difference_interval_coverage")
    exact_rows, api, api_w, n_sim = module.run(quick=True)
    mn = [r[4]["miettinen-nurminen"] for r in exact_rows]
    wald = [r[4]["wald"] for r in exact_rows]
    # exact coverage: Miettinen-Nurminen close to 0.95 on average and never far below,
    # while the Wald interval, checked the same way, is far below at n = 10
    assert 0.945 <= sum(mn) / len(mn) <= 0.965 and min(mn) >= 0.92
    assert min(wald) < 0.8
    bound = 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_sim)
    for row in api + api_w:
        assert all(cov >= bound for cov in row[-1].values())
    assert "miettinen-nurminen" in "\n".join(module.summarize_exact(exact_rows))


def test_tolerance_level_quick():
    module = _load("tolerance_level")
    rows, api, auc, n_sim = module.run(quick=True)
    tol = [r for r in rows if r[0] == "tolerance" and min(r[2], r[3]) >= 50]
    score = [r[6]["score"] for r in tol]
    wald_small = [r[6]["wald"] for r in rows if r[0] == "tolerance" and r[2] == 10]
    # exact level at the boundary: the score test near alpha once the groups have 50 rows,
    # the Wald test far above it with 10 (the check can fail)
    assert max(score) <= 0.065 and sum(score) / len(score) >= 0.04
    assert max(wald_small) > 0.1
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    assert all(r[-1] <= bound for r in api)
    assert all(r[-1] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / (n_sim // 2)) for r in auc)


def test_tolerance_generic_level_quick():
    module = _load("tolerance_generic_level")
    rows = module.run(quick=True)
    assert {r[0] for r in rows} == set(module.KINDS)
    for _, _, _, n_sim, level, power in rows:
        # level within 3 SE of alpha (the checks can fail: Wald on 10-row groups would not)
        assert abs(level - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / n_sim) + 1 / n_sim
        assert power > 0.25


def test_tolerance_planning_quick():
    module = _load("tolerance_planning")
    n_sim = 400
    rows = module.tolerance_rows(n_sim, 5, metrics=["tpr"])
    bound = 3 * math.sqrt(0.8 * 0.2 / n_sim) + 0.02
    for *_, score, wald in rows:
        assert abs(score.power - 0.8) <= bound and abs(wald.power - 0.8) <= bound
    eqv = module.equivalence_rows(n_sim, 5)
    assert all(abs(sim.power - 0.8) <= bound for *_, sim in eqv)
    assert "Equivalence" in "\n".join(module.format_rows(rows, eqv, n_sim))
    score_plan = module.score_plan_rows(n_sim, 5, metrics=["tpr"])
    assert len(score_plan) == 2 and all(abs(r[-1] - 0.8) <= bound for r in score_plan)


def test_auc_asymptotic_level_quick():
    """auc_test(method="auto") switches to DeLong at 1,000 per class; its level there."""
    module = _load("auc_asymptotic_level")
    n_sim = 150
    null = module.simulate(module.SETTINGS[0], n_sim, seed=3)
    assert null[0.05] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    alt = module.simulate(module.SETTINGS[0], n_sim, seed=4, auc_gap=0.03)
    assert alt[0.05] > 0.3  # the power twin


def test_parity_small_clusters_quick():
    """Issue 20: the script's methods are the library's, and the default holds its level."""
    module = _load("parity_small_clusters")
    diffs = module.library_check(seed=3, n_users=200)
    assert diffs["default"] < 1e-12 and diffs["cr2_t_bm"] < 1e-12
    reps = 30
    null = module.run_cell(100, "pareto", "strong", False, reps, seed=5)
    power = module.run_cell(100, "pareto", "strong", True, reps, seed=5, gap=5.0)
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    level = null["counts"]["cr2_t_bm"]["sim@0.05"] / reps
    assert level <= bound
    # power twin: a calibration gap of 5 / sqrt(100) is found far more often than alpha
    assert power["counts"]["cr2_t_bm"]["sim@0.05"] / reps > 0.5
    text = module.format_report([null, power])
    assert "cr2_t_bm" in text and "wild_webb" in text


def test_parity_dependent_null_quick():
    """Issue 33: the script's "old" and "new" are the library's variance="separate" and
    default, the new default holds its level on the issue's scenarios (30 data sets per
    cell) and finds the power twin's gap."""
    module = _load("parity_dependent_null")
    diffs = module.library_check(seed=3)
    assert diffs["old"] < 1e-9 and diffs["new"] < 1e-9
    reps = 30
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    results = []
    for name in ("issue2", "three"):
        settings, _, _, delta = module.CELLS[name]
        null = module.run_cell(name, settings, reps, 0.0, seed=5)
        assert all(k / reps <= bound for k in null["counts"]["new"])  # mid, holm, sim
        results += [null, module.run_cell(name, settings, reps, 2 * delta, seed=5)]
    assert results[1]["counts"]["new"][2] / reps > 0.5  # sim power at twice the gap
    text = module.format_report(results)
    assert "issue2" in text and "three" in text and "new_own" in text


def test_auc_margin_small_quick():
    """10 positives in the smaller group, AUC 0.98 against 0.93 at the boundary U = 0.05: the
    DeLong margin test is far above alpha, the default hybrid test within 3 SE of it. With
    skewed (exponential) scores and 25 per class at AUC 0.90 against 0.85, logit-t alone
    exceeds alpha + 3 SE (0.107 with 4,000 data sets) while hybrid holds it."""
    import numpy as np

    module = _load("auc_margin_small")
    n_sim = 300
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    rng = np.random.default_rng(17)
    level = module.simulate(50, 1000, 0.2, 0.93, 0.05, "greater", n_sim, rng, ("delong", "hybrid"))
    assert level["delong"] > 0.1
    assert level["hybrid"] <= bound
    n_sim = 600
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)
    level = module.simulate(
        50, 1000, 0.2, 0.85, 0.05, "greater", n_sim, np.random.default_rng(5),
        ("logit-t", "hybrid"), family="exponential",
    )  # fmt: skip
    assert level["logit-t"] > bound and level["hybrid"] <= bound


def test_tolerance_large_reference_quick():
    """30 rows against 6,000 (beyond the old 5,000 cap, so the windowed exact test runs):
    the score test's level at a rate of 0.005 is far above alpha, "auto"'s (exact there)
    is at most alpha."""
    module = _load("tolerance_large_reference")
    rows = module.levels(small=(30,), large=(6000,), rates=(0.005, 0.2), u_tols=(0.0,))
    score = {r[3]: r[4] for r in rows}
    auto = {r[3]: r[5] for r in rows}
    assert score[0.005] > 0.1 and 0.04 < score[0.2] < 0.065
    assert 0 < auto[0.005] <= 0.05 and 0 < auto[0.2] <= 0.05


def test_auto_rule_at_a_rate_of_0_2_against_100000():
    """100 rows against 100,000 at rates 0.22 vs 0.2 (u_tol 0.02), exact enumeration: with
    the exact test only below 20 events (the previous rule) the level was 0.059, above
    alpha + 3 SE of 10,000 draws (0.0565); with the unbalanced rule (exact below 50 events
    against a reference 20 or more times larger) it is at most alpha."""
    module = _load("tolerance_large_reference")
    (row,) = module.levels(small=(100,), large=(100_000,), rates=(0.2,), u_tols=(0.02,))
    score, auto, previous = row[4:]
    assert previous == score > 0.0565
    assert 0 < auto <= 0.05


def test_monitor_type1_quick():
    module = _load("monitor_type1")
    n_streams, alpha = 150, 0.05
    (out, traces) = module.run(n_streams, 5_000, seed=3, check=True)
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / n_streams)
    for setting in ("null", "boundary"):
        assert (
            max(out[setting]["K=1"]) <= bound and max(out[setting]["K=3"][:3]) <= bound / 3 + 0.03
        )
    # what users do today fails by far: a fixed-n test looked at after every batch
    assert min(out["null"]["fixed"][:3]) > 3 * alpha
    # the simulation runs the monitor's own e-values: one stream fed to a FairnessMonitor
    monitor = module.monitor_trace(n_streams, 5_000, seed=3)
    assert len(monitor) == len(traces["null"]) == 50
    for got, want in zip(monitor, traces["null"]):
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    assert "fixed-n test at every look" in module.format_report(
        out, n_streams, 10_000, 100, alpha, 1
    )


def test_monitor_detection_quick():
    module = _load("monitor_detection")
    rng = np.random.default_rng(5)
    rows = module.figure1(
        50, 250, rng, settings=("0.5 (0.4 vs 0.9)", "0.3 (0.7 vs 0.4)", "0 (0.4 vs 0.4)")
    )
    mean = {(name, method): m for name, method, m, _, _ in rows}
    for gap in ("0.5 (0.4 vs 0.9)", "0.3 (0.7 vs 0.4)"):
        ours = mean[(gap, "FairnessMonitor, blocks of 1")]
        theirs = mean[(gap, "ONS betting (Chugg et al.)")]
        assert ours <= 1.1 * theirs  # no worse than the ONS bet (Monte-Carlo slack)
    null = [r for r in rows if r[0].startswith("0 (") and r[1].startswith("FairnessMonitor")]
    # level 0.01 on 50 null streams: at most the binomial 99.9% quantile of rejections
    from scipy import stats

    assert all(round(share * 50) <= stats.binom.ppf(0.999, 50, 0.01) for *_, share in null)


def test_tolerance_huge_reference_quick():
    """Issue 34: 30 rows against 1,200,000 (beyond the old 200,000 cap and MAX_SIZE: the
    exact test along the small group): the score test's level at TPR 0.02 vs 0.01 (margin
    0.01) is far above alpha, "auto"'s (exact there) is at most alpha; at 300 vs 300,000
    (issue 34's cell, 0.068 before) "auto" is at most alpha."""
    module = _load("tolerance_large_reference")
    (row,) = module.huge_levels(
        small=(30,), large=(1_200_000,), rates=(0.01,), u_tols=(0.01,), tost=()
    )
    assert row[6] > 0.1 and 0 < row[7] <= 0.05 and row[8]
    crit = module.exact_critical_value(300, 300_000, 0.01, steps=24)
    score, auto, used = module.boundary_level(300, 300_000, 0.03, 0.02, [(0.01, "greater", crit)])
    assert used and 0 < auto <= 0.05 + 1e-6 and score > 0.06


def test_difference_interval_coverage_issue34_quick():
    """Issue 34: at the issue's cells (10 vs 5,000 at 0.05 vs 0.01; 15 vs 100,000 at 0.99
    vs 0.95) Miettinen-Nurminen's exact coverage is below 0.95 - 3 SE of 2,000 draws and the
    audit's hybrid interval's above it, as on a small unbalanced grid; the AUC hybrid
    interval covers on two cells with 20 per class (200 data sets)."""
    module = _load("difference_interval_coverage")
    rows, issue, auc_rows, n_auc = module.run_issue34(quick=True)
    for *_, cov in issue:
        assert cov["miettinen-nurminen"] < module.FLOOR < cov["audit hybrid"]
    assert min(r[4]["audit hybrid"] for r in rows) >= module.FLOOR
    floor = 0.95 - 3 * (0.95 * 0.05 / n_auc) ** 0.5
    assert all(c["audit hybrid"] >= floor for _, c in auc_rows)


def test_slices_fwer_quick():
    module = _load("slices_fwer")
    n_sets = 40
    rates, tested, _ = module.global_null(n_sets, 1000, 99, seed=1)
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sets)
    assert tested > 500 and all(rate <= bound for rate in rates.values())
    fdr, _, fwer, _, _ = module.fdr_setting(20, 2000, 99, seed=2)
    assert fdr <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 20) and fwer <= bound
    # the power twin: a planted slice of 0.5% of the rows is found by max-T and Bonferroni
    found, _ = module.power(1, 200_000, 0.25, 99, seed=3)
    assert found == {"maxT": 1.0, "bonferroni": 1.0}


def test_planning_exact_power_quick():
    module = _load("planning_exact_power")
    rows, n_sim = module.run(quick=True)
    se = math.sqrt(0.8 * 0.2 / n_sim)
    for row in rows:
        planned = row["planned_power"]
        assert planned >= 0.8
        assert abs(row["simulated"] - 0.8) <= 3 * se  # the issue's criterion
        # the planner's exact power against the audit's simulated rejection rate
        assert abs(row["simulated"] - planned) <= 3 * math.sqrt(planned * (1 - planned) / n_sim)
    text = module.format_rows(rows, n_sim)
    assert "cells outside 0.8 +- 3 SE: 0" in text


def test_group_interval_coverage_quick():
    """Exact: Wilson's interval fails at 15 rows and a rate of 0.01; the audit's covers."""
    module = _load("group_interval_coverage")
    rows = module.run((15, 30, 1000), (0.005, 0.01, 0.5))
    assert min(r[2] for r in rows) < 0.87  # Wilson's, what the audit reported before
    assert min(r[3] for r in rows) >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)
    assert "the audit's interval" in module.summary(rows)


def test_auc_difference_small_groups_quick():
    module = _load("auc_difference_small_groups")
    rows, n_sim = module.run(quick=True)
    bound = 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_sim)
    assert len(rows) == 4 and all(r[-1] >= bound for r in rows)
    assert "below: 0" in module.format_rows(rows, n_sim)


def test_auc_default_level_quick():
    """auc_test's default call holds its level in both branches (DeLong z with large
    groups, sequential permutations with small ones) and has power (the twins)."""
    module = _load("auc_default_level")
    rows, n_sim = module.run(quick=True)
    by_name = {r[0]: r for r in rows}
    for name in ("large: 10% group", "small: 4% group"):
        rate, se = by_name[name][4:6]
        assert rate <= module.ALPHA + 3 * se
    assert by_name["large: 10% group"][6] == ["delong"]
    assert by_name["small: 4% group"][6] == ["permutation"]
    assert by_name["power, large, gap 0.02"][4] > 0.5
    assert by_name["power, small, gap 0.15"][4] > 0.5
    assert "rejection" in module.format_rows(rows, n_sim)


def test_audit_near_level_quick():
    """An audit whose AUC p-value (about 0.007) is near Holm's first level (0.0056) decides
    it (no "undecided"), rightly, in a few times the clear case's time, and reports the
    permutations drawn and the p-value's interval."""
    module = _load("audit_near_level")
    out = module.run(1, 20_000, module.CASES[::2])
    (p_ref, _), [(auc, n_tests, _)] = out["above"]
    assert n_tests == 9 and p_ref > module.THRESHOLD
    assert auc["decision"] != "undecided" and auc["decision"] != "difference"
    assert auc["n_permutations"] > 19_999  # beyond the cap that left it undecided
    lo, hi = auc["pvalue_interval"]
    assert module.THRESHOLD < lo <= hi
    assert "time / clear" in "\n".join(module.summarize(out))


def test_parity_audit_null_quick():
    """Issue 33's audit scenario: its data are calibrated alike in every group (so any
    parity difference the audit claims is false), the audit has its three parity rows and
    the report lists them."""
    module = _load("parity_audit_null")
    y, _, s, attrs, user = module.dataset(0)
    assert 19_000 < y.size < 21_000 and np.unique(user).size == 4000
    bins = np.digitize(s, [0.2, 0.4, 0.6])
    for g in ("a", "b", "c"):
        for b in range(4):
            rows = (attrs["race"] == g) & (bins == b)
            se = math.sqrt(0.25 / rows.sum())
            assert abs(y[rows].mean() - s[rows].mean()) < 4 * se * 2  # users: design effect
    r = module.run(1)
    assert r["audits"] == 1 and r["any"] in (0, 1)
    text = module.report(r)
    assert all(a in text for a in module.ATTRIBUTES)


def test_compare_interval_coverage_quick():
    """The model-comparison rows' interval (MOVER) covers where the Wald interval it
    replaced did not (10 rows against 1,000 and 1,000,000; the check can fail: Wald's
    does), and the script's batch computation is the public function's."""
    module = _load("compare_interval_coverage")
    rows = module.rate_coverage(400, 34, small=(10,), refs=(1000, 1_000_000))
    floor = module.floor(400)
    assert all(r[6]["mover (audit)"] >= floor for r in rows)
    assert min(r[6]["wald (before)"] for r in rows) < floor
    assert max(r[7] for r in rows if math.isfinite(r[7])) <= 1e-12
    auc = module.auc_coverage(60, 34, small=(10,), refs=(1000,), pairs=[(0.95, 0.99)],
                              rhos=(0.9,))  # fmt: skip
    ((*_, cov, check),) = auc
    assert cov["mover (audit)"] >= module.floor(60) > cov["delong wald (before)"]
    assert check <= 1e-12


def test_tolerance_public_level_quick():
    """The level of the audit's tolerance default through the public function equals the
    reimplementation's, every boundary decision agreeing, and is below alpha + 3 SE."""
    module = _load("tolerance_public_level")
    (row,) = module.run(module.QUICK_CELLS, out=io.StringIO())
    level, reimpl, calls, disagree = row[6:10]
    assert calls > 0 and disagree == 0 and level == pytest.approx(reimpl, abs=1e-12)
    assert level <= module.ALPHA + 3 * math.sqrt(module.ALPHA * (1 - module.ALPHA) / 1e4)


def test_parity_band_coverage_quick():
    """The calibration curves' pointwise bands, which the report no longer draws, cover
    far below 0.95 for a small group with rare outcomes (the check can pass: 1,000 rows
    come close)."""
    module = _load("parity_band_coverage")
    rows = module.run(40, 34, small=(30, 1000), refs=(1000,), kinds=("near 0",),
                      out=io.StringIO())  # fmt: skip
    by_n = {r[0]: r[4] for r in rows}
    assert by_n[30] < 0.6 < by_n[1000]


def test_slices_interval_coverage_quick():
    """The slice search finds the planted gap of a 60-row slice with TPRs near 1, and its
    reported simultaneous intervals cover their truths (at most 0.05 + 3 SE of the data
    sets with a miss)."""
    module = _load("slices_interval_coverage")
    ((*_, reps, reported, share),) = module.run(20, 34, module.SETTINGS[3:4], out=io.StringIO())
    assert reported >= 1
    assert share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    # the truth function is the one the check reads: the planted slice's difference
    rates = module.cell_rates(0.98, 0.3, (3, 1))
    assert module.true_difference([("f0", 3), ("f1", 1)], rates) == pytest.approx(-0.3, abs=1e-3)


def test_compare_auc_small_groups_quick():
    """With 2.5 expected positives in the compared group the paired DeLong test rejects far
    above alpha under the null; the audit's AUC comparison (swaps there) does not."""
    module = _load("compare_auc_small_groups")
    rows = module.run(n_sim=80, n_permutations=99, settings=((50, 0.05, 0.5),))
    (_, _, _, used, delong, audit, methods) = rows[0]
    bound = module.ALPHA + 3 * math.sqrt(module.ALPHA * (1 - module.ALPHA) / used)
    assert methods == ["permutation"]
    assert audit <= bound < delong
    assert "DeLong" in module.format_rows(rows, 99)
