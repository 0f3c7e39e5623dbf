"""Silent wrong answers and unusable errors of the reliability issue, fixed as classes.

Each test names the class of input it covers; each failed before its fix.
"""

import warnings

import numpy as np
import pytest

import fastfair
import fastfair.cli
from fastfair import planning
from fastfair._validation import as_weights, check_int

pd = pytest.importorskip("pandas")


def _confusion_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.7, y, 1 - y)
    return y, pred, group


# --------------------------------------------------------------------------------------
# Zero-variance grid points in predictive parity
# --------------------------------------------------------------------------------------


def _two_valued(n_per_value=100, seed=0):
    """A score taking the values 0 and 1, with outcomes equal to the score (perfectly
    calibrated), in two groups."""
    rng = np.random.default_rng(seed)
    score = np.r_[np.zeros(n_per_value), np.ones(n_per_value)]
    group = np.where(rng.random(2 * n_per_value) < 0.5, "a", "b")
    return score.astype(int), score, group


def test_perfectly_calibrated_score_is_not_unfair():
    y, score, group = _two_valued()
    res = fastfair.predictive_parity_test(y, score, group, random_state=0)
    assert np.isfinite(res.statistic) and np.isfinite(res.grid_statistic[res.tested]).all()
    assert res.pvalue > 0.05  # was z = inf, p = 1/(B + 1) from 1.0 vs 0.99999999
    out = fastfair.marginal_outcome_test(y, score, group, threshold=0.0)
    assert np.isfinite(out.statistic) and out.pvalue > 0.5


def test_constant_but_different_outcomes_are_a_finite_large_difference():
    y, score, group = _two_valued()
    y = np.where(group == "a", 1, 0)  # all positive in a, all negative in b
    res = fastfair.predictive_parity_test(y, score, group, grid=20, random_state=0)
    assert np.isfinite(res.statistic) and res.statistic > 10
    assert res.pvalue == pytest.approx(1 / 10_000)
    # the documented rule of each group's own variance (variance="separate"; the default
    # null variance pools the groups, #33): f~ = (f n + 1/2) / (n + 1), variance f~ (1 - f~) / n
    res = fastfair.predictive_parity_test(
        y, score, group, grid=20, random_state=0, variance="separate"
    )
    assert np.isfinite(res.statistic) and res.statistic > 10
    curve = res.curve
    j = int(np.flatnonzero(res.tested)[0])
    n = curve.n_effective[:, j]
    f = (curve.estimate[:, j] * n + 0.5) / (n + 1)
    z = (curve.estimate[0, j] - curve.estimate[1, j]) / np.sqrt((f * (1 - f) / n).sum())
    assert res.grid_statistic[j] == pytest.approx(z, rel=1e-12)


def test_audit_of_a_calibrated_score_finds_no_parity_difference(tmp_path):
    y, score, group = _two_valued()
    path = tmp_path / "d.csv"
    path.write_text("y,s,g\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, score, group)))
    audit = fastfair.audit(
        "y", y_score="s", sensitive_features="g", data=fastfair.cli.read_table(str(path)),
        metrics=["tpr"], n_permutations=199,
    )  # fmt: skip
    parity = [t for t in audit.tests if t["family"] == "parity"]
    assert parity and parity[0]["verdict"] == "no evidence"


# --------------------------------------------------------------------------------------
# Saturated classifiers in the Wasserstein test
# --------------------------------------------------------------------------------------


def test_saturated_classifier_is_refused():
    rng = np.random.default_rng(0)
    n = 2000
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = (2 * a - 1.0)[:, None] + 0.1 * rng.normal(size=(n, 1))  # maximal unfairness
    assert fastfair.wasserstein_test(X, y, a, [1.0]).pvalue < 1e-10
    for scale in (10.0, 1e3, 1e6):
        with pytest.raises(ValueError, match="saturated"):
            fastfair.wasserstein_test(X, y, a, [scale])


def test_steep_but_not_saturated_classifier_still_tested():
    rng = np.random.default_rng(1)
    n = 2000
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = rng.normal(size=(n, 1))
    res = fastfair.wasserstein_test(X, y, a, [10.0])
    assert np.isfinite(res.theta) and 0 < res.pvalue <= 1


# --------------------------------------------------------------------------------------
# Weights of extreme magnitude
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-170, 1e300, 2.0**-600, 3.7])
def test_uniform_rescaling_of_weights_changes_nothing(scale):
    y, pred, group = _confusion_data()
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    kw = dict(metric="tpr", n_permutations=199, random_state=0)
    base = fastfair.permutation_test(y, pred, group, sample_weight=w, **kw)
    res = fastfair.permutation_test(y, pred, group, sample_weight=w * scale, **kw)
    exact = np.frexp(scale)[0] == 0.5  # a power of two: bit-identical
    cmp = (lambda a, b: a == b) if exact else (lambda a, b: a == pytest.approx(b, rel=1e-9))
    assert np.isfinite(res.statistic) and cmp(res.statistic, base.statistic)
    assert cmp(res.pvalue, base.pvalue)
    np.testing.assert_allclose(res.group_denominators, base.group_denominators * scale, rtol=1e-9)
    counts, _ = fastfair.confusion_counts(y, pred, group, sample_weight=w * scale)
    np.testing.assert_allclose(
        counts, fastfair.confusion_counts(y, pred, group, sample_weight=w)[0] * scale, rtol=1e-9
    )
    score = np.random.default_rng(4).random(len(y))
    kw = dict(metric="mse", n_permutations=99, n_bootstrap=20, random_state=0)
    rows = fastfair.permutation_test(y, score, group, sample_weight=w * scale, **kw)
    rows_base = fastfair.permutation_test(y, score, group, sample_weight=w, **kw)
    assert np.isfinite(rows.statistic) and cmp(rows.pvalue, rows_base.pvalue)


def test_weights_helper():
    w, e = as_weights([1e300, 5e299], return_exponent=True)
    assert 0.5 <= w.max() < 1 and np.ldexp(w, e).tolist() == [1e300, 5e299]
    with pytest.raises(ValueError, match="zero for every row"):
        as_weights([0.0, 0.0])
    with pytest.raises(ValueError, match="non-negative"):
        as_weights([1.0, -1.0])


# --------------------------------------------------------------------------------------
# pandas inputs whose indexes are in different orders
# --------------------------------------------------------------------------------------


def _shuffled(series, seed=0):
    order = np.random.default_rng(seed).permutation(len(series))
    return series.iloc[order]


def test_pandas_inputs_are_paired_by_index():
    y, pred, group = _confusion_data()
    ys, ps, gs = pd.Series(y), pd.Series(pred), pd.Series(group)
    base = fastfair.permutation_test(y, pred, group, metric="tpr")
    res = fastfair.permutation_test(_shuffled(ys, 1), ps, _shuffled(gs, 2), metric="tpr")
    assert res.pvalue == base.pvalue and res.statistic == base.statistic
    score = np.random.default_rng(0).random(len(y))
    auc = fastfair.auc_test(y, score, group, n_permutations=99, random_state=0)
    auc_sh = fastfair.auc_test(
        ys, _shuffled(pd.Series(score)), gs, n_permutations=99, random_state=0
    )
    assert auc_sh.pvalue == auc.pvalue
    frame = pd.DataFrame({"y": y, "s": score, "g": group})
    frame_res = fastfair.calibration_error(frame["y"], _shuffled(frame["s"]), frame["g"])
    np.testing.assert_allclose(
        frame_res.value, fastfair.calibration_error(y, score, group).value, rtol=1e-12
    )


def test_pandas_indexes_with_different_labels_are_refused():
    y, pred, group = _confusion_data()
    ys = pd.Series(y)
    gs = pd.Series(group, index=np.arange(len(group)) + 1)
    with pytest.raises(ValueError, match="indexes hold different labels"):
        fastfair.permutation_test(ys, pred.tolist(), gs)
    # numpy arrays are paired by position, whatever the pandas input's index
    res = fastfair.permutation_test(ys, pred, gs.to_numpy())
    assert res.pvalue == fastfair.permutation_test(y, pred, group).pvalue


# --------------------------------------------------------------------------------------
# Options reported but not applied
# --------------------------------------------------------------------------------------


def test_mid_p_only_where_it_applies():
    y, pred, group = _confusion_data()
    exact = fastfair.permutation_test(y, pred, group, mid_p=True)
    assert exact.mid_p and exact.method == "exact"
    for method in ("monte_carlo", "asymptotic"):
        with pytest.raises(ValueError, match="mid_p applies to exact p-values only"):
            fastfair.permutation_test(y, pred, group, mid_p=True, method=method)
    with pytest.raises(ValueError, match="weighted data"):
        fastfair.permutation_test(y, pred, group, mid_p=True, sample_weight=np.ones(len(y)))


def test_pos_label_that_does_not_occur():
    y, pred, group = _confusion_data()
    ys = np.where(y == 1, "yes", "no")
    ps = np.where(pred == 1, "yes", "no")
    with pytest.raises(ValueError, match="pos_label='Yes' does not occur in y_true"):
        fastfair.permutation_test(ys, ps, group, pos_label="Yes")
    all_no = np.full(len(y), "no")
    with pytest.raises(ValueError, match="pos_label='yes' occurs in neither"):
        fastfair.permutation_test(all_no, all_no, group, pos_label="yes")  # was: all negative
    with pytest.raises(ValueError, match="pos_label='Yes' does not occur in y_true"):
        fastfair.auc_test(ys, np.random.default_rng(0).random(len(y)), group, pos_label="Yes")
    # a classifier that predicts no positive is accepted
    res = fastfair.permutation_test(ys, all_no, group, pos_label="yes", metric="fnr")
    assert res.group_values.tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------------------
# Planning: impossible values
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tau", [1.0, 1.5, -2.0])
def test_rate_difference_of_one_or_more_is_refused(tau):
    rates = {"tpr": [0.6, 0.7], "prevalence": [0.3, 0.4]}
    with pytest.raises(ValueError, match="must be below 1"):
        planning.sample_size("tpr", rates=rates, tau=tau)
    with pytest.raises(ValueError, match="must be below 1"):
        planning.power("tpr", rates=rates, tau=tau, n=1000)


def test_tiny_tau_is_refused_not_a_negative_sample_size():
    with pytest.raises(ValueError, match=r"exceeds 4.61e\+18 units"):
        planning.sample_size(sigma2=[0.25, 0.25], tau=1e-12)
    res = planning.sample_size(sigma2=[0.25, 0.25], tau=1e-7)
    assert (res.n_per_group_ceil > 0).all()


def test_detectable_difference_above_one_is_inf_with_a_warning():
    rates = {"tpr": [0.6, 0.7], "prevalence": [0.3, 0.4]}
    with pytest.warns(UserWarning, match="no difference of tpr"):
        res = planning.detectable_difference("tpr", rates=rates, n=[4, 4000])
    assert res.tau[0] == np.inf and 0 < res.tau[1] < 1


# --------------------------------------------------------------------------------------
# Errors from deep inside numpy or the compiled layer
# --------------------------------------------------------------------------------------


def test_huge_resample_counts_refused_before_allocating():
    y, pred, group = _confusion_data()
    score = np.random.default_rng(0).random(len(y))
    big = 10**12
    calls = [
        lambda: fastfair.permutation_test(y, pred, group, method="exact", n_permutations=big),
        lambda: fastfair.auc_test(y, score, group, n_permutations=big),
        lambda: fastfair.permutation_test(y, score, group, metric="mse", n_permutations=big),
        lambda: fastfair.mean_difference_test(score, group, n_permutations=big),
        lambda: fastfair.correlation_test(score, y, n_permutations=big),
        lambda: fastfair.basic_bootstrap_test(y, score, group, metric="mse", n_bootstrap=big),
        lambda: fastfair.predictive_parity_test(y, score, group, n_bootstrap=big),
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(ValueError, match="must be <= 100,000,000"):
            call()


def test_count_sums_beyond_int64_are_refused():
    counts = np.full((2, 4), 2**61, dtype=np.int64)
    with pytest.raises(ValueError, match="beyond 64-bit integer arithmetic"):
        fastfair.permutation_test_from_counts(counts)
    with pytest.raises(ValueError, match="beyond 64-bit integer arithmetic"):
        fastfair.permutation_test_from_counts(np.full((2, 4), 2.0**63))


def test_count_sums_of_exactly_2_to_the_62_are_accepted_and_one_more_refused():
    from fastfair._confusion import check_counts

    edge = [[2**60, 2**60, 2**60, 2**59], [2**58, 2**57, 2**56, 2**56]]  # sums to 2**62
    assert sum(map(sum, edge)) == 2**62
    for table in (np.array(edge, dtype=np.int64), np.array(edge, dtype=object)):
        assert check_counts(table, None)[0].sum() == 2.0**62
        table[1, 3] += 1
        with pytest.raises(ValueError, match=r"counts sum to more than 2\*\*62"):
            check_counts(table, None)


def test_messages_show_labels_as_written():
    y, pred, group = _confusion_data()
    codes = np.where(group == "a", 1, 2)
    with pytest.raises(ValueError) as exc:
        fastfair.permutation_test(y, pred, codes, reference=np.int64(3))
    assert "reference 3 is not a group" in str(exc.value) and "np.int64" not in str(exc.value)
    with pytest.raises(ValueError) as exc:
        fastfair.permutation_test(y, pred, group, reference=np.str_("c"))
    assert "reference 'c' is not a group" in str(exc.value)
    with pytest.raises(ValueError) as exc:
        fastfair.permutation_test(np.where(y == 1, "p", "n"), pred, group, pos_label=np.str_("x"))
    assert "np.str_" not in str(exc.value)


def test_numpy_integers_accepted_for_counts_and_threads():
    y, pred, group = _confusion_data()
    res = fastfair.permutation_test(
        y, pred, group, method="monte_carlo", n_permutations=np.int64(99), n_jobs=np.int32(2)
    )
    assert res.n_permutations == 99
    assert check_int(np.uint8(3), "k", 1) == 3
    with pytest.raises(TypeError, match="must be an integer, got True"):
        check_int(np.bool_(True), "k", 1)


def test_auc_weights_documented_as_raised():
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "auc.md").read_text()
    assert "NotImplementedError" not in doc
    y, _, group = _confusion_data()
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        fastfair.auc_test(y, np.linspace(0, 1, len(y)), group, sample_weight=np.ones(len(y)))


def test_no_warnings_on_clean_input():
    y, pred, group = _confusion_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastfair.permutation_test(y, pred, group, mid_p=True)
