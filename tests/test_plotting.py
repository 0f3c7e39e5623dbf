"""AuditResult.by_group and the plotting API: result.plot(ax=None, ...) on every result that
has a picture, matplotlib imported only when plotting (issue #35)."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

import fastfair

pd = pytest.importorskip("pandas")


def _data(n=2500, seed=3):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    race = rng.choice(["a", "b", "c", "tiny"], n, p=[0.5, 0.3, 0.196, 0.004])
    y = rng.random(n) < np.where(sex == "F", 0.3, 0.4)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    return y, score, {"sex": sex, "race": race}


@pytest.fixture(scope="module")
def audit():
    y, score, groups = _data()
    res = fastfair.audit(
        y, None, groups, y_score=score, metrics=["tpr", "ppv", "equalized_odds", "accuracy"],
        intersections=True, n_permutations=99, min_group_size=20,
    )  # fmt: skip
    return y, score, groups, res


def test_by_group_equals_direct_computation(audit):
    """Each rate and its interval recomputed from the rows (statsmodels' intervals:
    Clopper-Pearson, "beta", below 50 events or non-events, Wilson's otherwise)."""
    confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint
    y, score, groups, res = audit
    pred = score >= 0.5
    frame = res.by_group
    labels = {
        "sex": groups["sex"],
        "race": groups["race"],
        "sex & race": np.char.add(np.char.add(groups["sex"], " & "), groups["race"]),
    }
    expected_index = [
        (name, g) for name, values in labels.items() for g in sorted(set(values.tolist()))
    ]
    assert sorted(frame.index.tolist()) == sorted(expected_index)
    assert frame.index.names == ["attribute", "group"]
    rates = ["base_rate", "tpr", "ppv", "fpr", "accuracy"]  # equalized odds -> tpr, fpr
    assert list(frame.columns[:3]) == ["n", "reference", "tested"]
    assert sorted(frame.columns[3::3]) == sorted(rates)
    references = {a["name"]: a["reference"] for a in res.attributes}
    for (name, g), row in frame.iterrows():
        rows = labels[name] == g
        assert row["n"] == rows.sum()
        assert row["reference"] == (g == references[name])
        assert row["tested"] == (rows.sum() >= 20)
        for rate, (num, den) in {
            "base_rate": (y, np.ones_like(y)),
            "tpr": (pred & y, y),
            "fpr": (pred & ~y, ~y),
            "ppv": (pred & y, pred),
            "accuracy": (pred == y, np.ones_like(y)),
        }.items():
            k, n = int((num & rows).sum()), int((den & rows).sum())
            if n == 0:
                assert np.isnan(row[rate]) and np.isnan(row[f"{rate}_low"])
                continue
            method = "beta" if min(k, n - k) < 50 else "wilson"
            lo, hi = confint(k, n, alpha=0.05, method=method)
            assert row[rate] == pytest.approx(k / n, rel=1e-12)
            assert row[f"{rate}_low"] == pytest.approx(lo, abs=1e-12)
            assert row[f"{rate}_high"] == pytest.approx(hi, abs=1e-12)
    assert not frame.loc[("race", "tiny"), "tested"]  # a skipped group is listed
    assert frame["reference"].sum() == 3  # one reference per attribute


def _plotting():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    return plt, Axes


def _results(audit):
    """(name, result, keyword arguments) of every result class that has a picture."""
    y, score, groups, res = audit
    sex = groups["sex"]
    pred = (score >= 0.5).astype(int)
    kw = dict(random_state=0, return_null=True)
    generic = fastfair.permutation_test(
        y, pred, sex, metric=lambda yt, yp: float(np.mean(yt == yp)), n_permutations=99, **kw
    )
    return [
        ("AuditResult", res, {}),
        ("AuditResult, one metric", res, {"metric": "ppv"}),
        ("ThresholdSweepResult", res.sweeps["sex"], {"metric": "tpr"}),
        ("PredictiveParityResult", res.parity["sex"], {}),
        ("CalibrationCurve", res.parity["sex"].curve, {}),
        (
            "SampleSizeResult",
            fastfair.sample_size(
                "tpr", rates={"tpr": [0.7, 0.8], "prevalence": [0.3, 0.3]}, tau=0.1
            ),
            {},
        ),
        ("PermutationTestResult exact", fastfair.permutation_test(y, pred, sex, **kw), {}),
        (
            "PermutationTestResult Monte Carlo",
            fastfair.permutation_test(
                y, pred, groups["race"], method="monte_carlo", n_permutations=99, **kw
            ),
            {"comparison": 1},
        ),
        ("GenericTestResult", generic, {}),
        ("AUCTestResult", fastfair.auc_test(y, score, sex, n_permutations=99, **kw), {}),
        (
            "CorrelationTestResult",
            fastfair.correlation_test(score, y.astype(float), n_permutations=99, **kw),
            {},
        ),
        (
            "BootstrapTestResult",
            fastfair.basic_bootstrap_test(y, pred, sex, n_bootstrap=99, return_null=True),
            {},
        ),
    ]


def test_every_result_with_a_picture_plots_on_the_given_axes(audit):
    plt, Axes = _plotting()
    for name, result, kw in _results(audit):
        panels = 4 if name == "AuditResult" else 1  # TPR, PPV, accuracy, AUC
        fig, axes = plt.subplots(1, panels, squeeze=False)
        ax = axes[0] if panels > 1 else axes[0, 0]
        drawn = result.plot(ax=ax, **kw)
        assert np.all(np.atleast_1d(drawn) == np.atleast_1d(ax)), name
        assert all(one.has_data() for one in np.atleast_1d(ax)), name
        plt.close(fig)
        new = result.plot(**kw)  # a new figure when no Axes is given
        first = np.atleast_1d(new)[0]
        assert isinstance(first, Axes), name
        plt.close(first.figure)


def test_parity_plot_stars_only_grid_scores_whose_adjusted_pvalue_is_below_alpha(audit):
    """plot(alpha) stars the grid scores with an adjusted p-value below alpha, as its
    docstring says: with alpha set to one of those p-values, that score is not starred
    and every smaller one is."""
    plt, _ = _plotting()
    result = audit[3].parity["sex"]
    p = result.grid_pvalue_adjusted
    alpha = float(np.unique(p[(p > 0) & (p < 1)])[1])  # the second smallest inner p-value
    ax = result.plot(alpha=alpha)
    stars = [line for line in ax.get_lines() if line.get_marker() == "*"]
    assert len(stars) == 1
    np.testing.assert_array_equal(stars[0].get_xdata(), result.grid[p < alpha])
    plt.close(ax.figure)


def test_audit_forest_axes_match_the_tests(audit):
    plt, _ = _plotting()
    res = audit[3]
    axes = res.plot()
    plotted = [t for t in res.tests if t["family"] in ("confusion", "auc")]
    plotted = [t for t in plotted if t["metric"] != "equalized_odds" and "error" not in t]
    titles = [ax.get_title() for ax in axes]
    assert titles == ["TPR", "PPV", "accuracy", "AUC"]
    for ax, metric in zip(axes, ["tpr", "ppv", "accuracy", "auc"]):
        tests = [t for t in plotted if t["metric"] == metric]
        points = sorted(
            float(line.get_xdata()[0]) for line in ax.lines if len(line.get_xdata()) == 1
        )
        assert points == pytest.approx(sorted(t["difference"] for t in tests))
    plt.close(axes[0].figure)
    with pytest.raises(ValueError, match="metric must be one of"):
        res.plot(metric="npv")


def _outside_figure(axes) -> list:
    """Texts of the axes (tick labels within the view, axis labels, titles) that a saved
    figure would cut off: their extents reach beyond the figure."""
    fig = axes[0].figure
    fig.savefig(io.BytesIO(), format="png")  # lays the figure out as it is saved
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    cut = []
    for ax in axes:
        lo, hi = sorted(ax.get_xlim())
        ticks = [t for t, v in zip(ax.get_xticklabels(), ax.get_xticks()) if lo <= v <= hi]
        for text in [*ticks, *ax.get_yticklabels(), ax.xaxis.label, ax.title]:
            if text.get_visible() and text.get_text():
                box = text.get_window_extent(renderer)
                if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5:
                    cut.append(text.get_text())
    return cut


@pytest.mark.parametrize("n_groups", [2, 3, 8])
def test_audit_plot_saved_keeps_every_label_inside_the_figure(n_groups):
    """AuditResult.plot's own figure, saved as is, cut off the x tick labels and the
    "difference" label below a short panel and the comparison labels on the left."""
    plt, _ = _plotting()
    rng = np.random.default_rng(0)
    res = fastfair.audit(
        rng.random(400) < 0.4, rng.random(400) < 0.5, rng.choice(list("abcdefgh")[:n_groups], 400),
        metrics=["tpr", "fpr"], random_state=0,
    )  # fmt: skip
    axes = res.plot()
    try:
        assert _outside_figure(axes) == []
    finally:
        plt.close(axes[0].figure)


def test_null_distribution_plots_show_the_stored_null(audit):
    plt, _ = _plotting()
    y, score, groups, _ = audit
    pred = (score >= 0.5).astype(int)
    exact = fastfair.permutation_test(y, pred, groups["sex"], return_null=True)
    ax = exact.plot()
    (stems,) = ax.collections  # one stem per support point, height its probability
    heights = [seg[1, 1] for seg in stems.get_segments()]
    assert sum(heights) == pytest.approx(1.0)
    marks = sorted(line.get_xdata()[0] for line in ax.lines)
    assert marks == pytest.approx(sorted([exact.statistic, -exact.statistic]))
    plt.close(ax.figure)
    auc = fastfair.auc_test(y, score, groups["sex"], n_permutations=199, return_null=True)
    ax = auc.plot()
    total = sum(p.get_height() * p.get_width() for p in ax.patches)
    assert total == pytest.approx(1.0)  # a density histogram of the 199 permuted values
    plt.close(ax.figure)
    without = fastfair.auc_test(y, score, groups["sex"], n_permutations=99)
    with pytest.raises(ValueError, match="return_null=True"):
        without.plot()


def test_without_matplotlib_plot_names_the_plot_extra(audit, monkeypatch):
    _plotting()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    for _name, result, kw in _results(audit):
        with pytest.raises(ImportError, match=r'pip install "fastfair\[plot\]"'):
            result.plot(**kw)


def test_matplotlib_is_imported_only_to_plot():
    code = (
        "import sys, numpy as np, fastfair\n"
        "rng = np.random.default_rng(0)\n"
        "res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,\n"
        "                     rng.choice(['a', 'b'], 400), metrics=['tpr'])\n"
        "res.to_frame(); res.by_group\n"
        "print('matplotlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_docs_plotting_example_runs():
    """docs/plotting.md's example runs as written."""
    _plotting()
    import pathlib

    text = (pathlib.Path(__file__).parents[1] / "docs" / "plotting.md").read_text()
    (code,) = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    namespace: dict = {}
    exec(compile(code, "docs/plotting.md", "exec"), namespace)
    frame = namespace["res"].by_group
    assert frame.loc[("sex", "M"), "reference"] != frame.loc[("sex", "F"), "reference"]
    namespace["plt"].close("all")


def test_plot_null_marks_plus_and_minus_observed_once_each_and_zero_once():
    """Two-sided: a line at +observed and one at -observed; an observed 0 is one line (both
    marks coincide), one-sided always one. The histogram holds the finite permuted values
    only (NaN padding of a sequential test dropped): its density integrates to 1 over the
    999 finite values."""
    plt, _ = _plotting()
    from fastfair._plotting import plot_null

    null = np.concatenate([np.random.default_rng(0).normal(size=999), [np.nan] * 5])
    cases = [(1.5, True, [-1.5, 1.5]), (0.0, True, [0.0]), (1.5, False, [1.5])]
    for observed, two_sided, want in cases:
        ax = plot_null(None, null, observed, what="x.plot", two_sided=two_sided)
        assert sorted(line.get_xdata()[0] for line in ax.lines) == want
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["observed"]
        assert sum(p.get_height() * p.get_width() for p in ax.patches) == pytest.approx(1.0)
        plt.close(ax.figure)


def test_plot_null_marks_a_negative_observed_on_both_sides_and_bins_by_size():
    """A negative observed statistic, two-sided: lines at observed and -observed (the same
    pair as for |observed|); one-sided: only at observed. The histogram has one bin per 20
    finite values, at least 10 and at most 60 (100 values: 10, 999: 49, 5000: 60)."""
    plt, _ = _plotting()
    from fastfair._plotting import plot_null

    rng = np.random.default_rng(2)
    for observed, two_sided, want in [(-2.0, True, [-2.0, 2.0]), (-2.0, False, [-2.0])]:
        ax = plot_null(None, rng.normal(size=999), observed, what="x.plot", two_sided=two_sided)
        assert sorted(line.get_xdata()[0] for line in ax.lines) == want
        plt.close(ax.figure)
    for size, bins in [(100, 10), (999, 49), (5000, 60)]:
        ax = plot_null(None, rng.normal(size=size), 0.5, what="x.plot")
        assert len(ax.patches) == bins
        plt.close(ax.figure)


def test_null_plots_mark_the_chosen_comparison_and_name_their_statistic():
    """A three-group Monte-Carlo permutation test's plot of comparison 1 marks +- that
    comparison's own statistic (two-sided), and "greater" marks it once; the x axis reads
    "studentized statistic", or "statistic" for a raw difference; an unstudentized
    correlation test's reads "Pearson r" and marks r."""
    plt, _ = _plotting()
    rng = np.random.default_rng(5)
    n = 900
    g = rng.choice(["a", "b", "c"], n)
    y = rng.random(n) < 0.5
    pred = rng.random(n) < np.select([g == "b", g == "c"], [0.6, 0.4], 0.5)
    kw = dict(method="monte_carlo", n_permutations=99, random_state=0, return_null=True)
    for studentize, alternative, label in ((True, "two-sided", "studentized statistic"),
                                           (False, "greater", "statistic")):  # fmt: skip
        res = fastfair.permutation_test(y, pred, g, studentize=studentize,
                                        alternative=alternative, **kw)  # fmt: skip
        t = float(res.statistic[1])
        assert abs(t - float(res.statistic[0])) > 1e-3
        ax = res.plot(comparison=1)
        marks = sorted(line.get_xdata()[0] for line in ax.lines)
        assert marks == ([-abs(t), abs(t)] if alternative == "two-sided" else [t])
        assert ax.get_xlabel() == label
        plt.close(ax.figure)
    x = rng.normal(size=200)
    e = x + rng.normal(size=200)
    cor = fastfair.correlation_test(x, e, studentize=False, n_permutations=99, random_state=0,
                                    return_null=True)  # fmt: skip
    ax = cor.plot()
    assert ax.get_xlabel() == "Pearson r"
    assert sorted(line.get_xdata()[0] for line in ax.lines) == [-cor.r, cor.r]
    plt.close(ax.figure)
