"""fastfair.FairnessMonitor: e-values checked by enumeration, states, persistence, errors.

The level under continuous monitoring and the detection time are simulated by
validation/monitor_type1.py and validation/monitor_detection.py (their quick modes run in
tests/test_validation_quick.py).
"""

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from scipy import special

from fastfair._parallel import force_parallel
from fastfair._score import restricted_mle
from fastfair.cli import main
from fastfair.monitor import FairnessMonitor, MonitorStateError
from fastfair.monitor.inference import (
    PRIOR,
    SHRINK_ROWS,
    advance,
    block_log_evidence,
    gap_lines,
    sequence_bounds,
    strip_log_evidence,
)
from fastfair.stats import ConfusionStats


def _reference_log_evidence(bx, bn, sx, sn, d):
    """The block's log e-factor written out with the restricted MLE of fastfair._score."""
    p = (np.asarray(sx) + PRIOR) / (np.asarray(sn) + 2 * PRIOR)
    m = min(sn)
    w = m / (m + SHRINK_ROWS)
    t1, t2 = restricted_mle(p[0] * max(sn[0], 1), max(sn[0], 1), p[1] * max(sn[1], 1),
                            max(sn[1], 1), d)  # fmt: skip
    a = np.array([t1 + w * (p[0] - t1), t2 + w * (p[1] - t2)])
    q1, q2 = restricted_mle(a[0] * bn[0], bn[0], a[1] * bn[1], bn[1], d)
    q = np.array([q1, q2])
    bx, bn = np.asarray(bx, float), np.asarray(bn, float)
    return float(
        np.sum(special.xlogy(bx, a) - special.xlogy(bx, q))
        + np.sum(special.xlogy(bn - bx, 1 - a) - special.xlogy(bn - bx, 1 - q))
    )


def test_compiled_block_evidence_matches_the_formula():
    rng = np.random.default_rng(0)
    for _ in range(200):
        sn = rng.integers(0, 300, 2)
        sx = rng.integers(0, sn + 1)
        bn = rng.integers(1, 50, 2)
        bx = rng.integers(0, bn + 1)
        d = rng.uniform(-0.95, 0.95)
        got, gap = block_log_evidence(bx, bn, sx, sn, d)
        want = _reference_log_evidence(bx, bn, sx, sn, d) if min(sn) > 0 else 0.0
        assert got == pytest.approx(want, abs=1e-9)
        p = (sx + PRIOR) / (sn + 2 * PRIOR)
        assert gap == pytest.approx(p[0] - p[1], abs=1e-15)


def test_block_without_both_groups_carries_no_evidence():
    log, _ = block_log_evidence([[3, 0], [0, 4]], [[5, 0], [0, 9]], [[10, 20]] * 2,
                                [[30, 40]] * 2, 0.0)  # fmt: skip
    assert log.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("n1, n2", [(3, 2), (1, 4), (5, 5)])
def test_block_e_value_has_expectation_at_most_one_on_its_strip(n1, n2):
    """E over every outcome of the block, under null rates on the line and inside the strip
    beyond it: <= 1 (the reverse information projection), = 1 at the projection."""
    seen_x, seen_n, d = np.array([7.0, 2.0]), np.array([10.0, 9.0]), -0.1
    outcomes = list(itertools.product(range(n1 + 1), range(n2 + 1)))
    logs = np.array([block_log_evidence([x1, x2], [n1, n2], seen_x, seen_n, d)[0]
                     for x1, x2 in outcomes])  # fmt: skip
    gap = (seen_x[0] + PRIOR) / (seen_n[0] + 1) - (seen_x[1] + PRIOR) / (seen_n[1] + 1)
    assert gap > d  # the alternative lies above the line: the strip's null is {gap <= d}
    worst = 0.0
    for q2 in np.linspace(0.11, 0.99, 45):
        for gap_null in (d, d - 0.05, d - 0.3):
            q1 = q2 + gap_null
            if not 0 < q1 < 1:
                continue
            prob = np.array([
                special.comb(n1, x1) * q1**x1 * (1 - q1) ** (n1 - x1)
                * special.comb(n2, x2) * q2**x2 * (1 - q2) ** (n2 - x2)
                for x1, x2 in outcomes
            ])  # fmt: skip
            worst = max(worst, float(prob @ np.exp(logs)))
    assert worst <= 1 + 1e-12
    assert worst > 0.999  # attained at the projection


def test_strips_bet_on_the_side_of_the_alternative():
    lines = np.array([-0.1, 0.0, 0.1])
    line_log = np.array([1.0, 2.0, 3.0])
    # plug-in gap 0.05: strips below (-1,-0.1], [-0.1, 0] use lines -0.1 and 0; the strip
    # holding 0.05 bets nothing; the strip above uses line 0.1
    out = strip_log_evidence(line_log, np.full(3, 0.05), lines)
    assert out.tolist() == [1.0, 2.0, 0.0, 3.0]


def test_sequence_is_the_hull_of_the_open_strips():
    lines = gap_lines(0.25, None)  # -0.75 ... 0.75
    assert lines.tolist() == [-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75]
    rejected = np.ones(8, dtype=bool)
    rejected[[2, 4]] = False  # [-0.5, -0.25] and [0, 0.25] open, [-0.25, 0] rejected
    lo, hi = sequence_bounds(rejected, lines)
    assert (lo, hi) == (-0.5, 0.25)
    assert np.isnan(sequence_bounds(np.ones(8, dtype=bool), lines)).all()
    assert gap_lines(0.25, 0.1).tolist() == [-0.75, -0.5, -0.25, -0.1, 0.0, 0.1, 0.25, 0.5, 0.75]


def _one_block(lines, sign=1):
    """Counts of one sequence, shape (1, 2): a block with a clear gap of sign `sign`."""
    block_x, block_n = np.array([[60.0, 20.0]]), np.array([[100.0, 100.0]])
    seen_x, seen_n = np.array([[55.0, 25.0]]), np.array([[100.0, 100.0]])
    if sign < 0:
        block_x, seen_x = block_x[:, ::-1], seen_x[:, ::-1]
    return block_x, block_n, seen_x, seen_n


def test_advance_rejects_a_strip_whose_log_e_value_reaches_the_threshold():
    """A strip is rejected once its log e-value *reaches* log(K / alpha): a strip sitting
    exactly at the threshold after a block that bets nothing on it is rejected."""
    lines = gap_lines(0.25, None)
    log_e, rejected = np.zeros((1, 8)), np.zeros((1, 8), dtype=bool)
    log_e[0, 5] = 3.0  # strip [0.25, 0.5] holds the plug-in gap 0.35: it bets nothing
    block_x, block_n, seen_x, seen_n = _one_block(lines)
    advance(log_e, rejected, block_x, block_n, seen_x, seen_n, lines, 3.0)
    assert log_e[0, 5] == 3.0 and rejected[0, 5]
    assert not rejected[0, 6]


@pytest.mark.parametrize("sign", [1, -1])
def test_advance_keeps_betting_on_the_strips_at_zero_when_all_are_rejected(sign):
    """The strips on both sides of 0 (for the p-value) get their evidence even when every
    strip is rejected: the same as evaluating every line (strip_log_evidence). A positive
    gap bets with the line above 0, a negative one with the line below."""
    lines = gap_lines(0.1, None)
    g = lines.size
    zero = int(np.searchsorted(lines, 0.0))
    block_x, block_n, seen_x, seen_n = _one_block(lines, sign)
    log_e, rejected = np.zeros((1, g + 1)), np.ones((1, g + 1), dtype=bool)
    advance(log_e, rejected, block_x, block_n, seen_x, seen_n, lines, 50.0)
    line_log, gap = block_log_evidence(block_x, block_n, seen_x, seen_n, lines)
    full = strip_log_evidence(line_log, gap, lines)
    assert full[zero + 1] != 0.0 and full[zero] != 0.0
    np.testing.assert_allclose(log_e[0, zero : zero + 2], full[zero : zero + 2], rtol=1e-12)


def _day(rng, n=3000, gap=0.0):
    group = rng.choice(["a", "b"], n, p=[0.6, 0.4])
    y = rng.random(n) < 0.4
    y_pred = rng.random(n) < np.where(group == "b", 0.4 + gap, 0.4)
    return y, y_pred, group


def test_update_from_rows_equals_update_from_their_counts():
    rng = np.random.default_rng(1)
    first = _day(rng)
    second = _day(rng, n=2000)  # fewer rows than seen: one block
    a = FairnessMonitor(reference="a").update(*first).update(*second)
    b = FairnessMonitor(reference="a").update(*first)
    stats = ConfusionStats.from_arrays(*second)
    b.update_from_counts(stats)
    assert a.to_json() == b.to_json()
    c = FairnessMonitor(reference="a").update(*first)
    c.update_from_counts(stats.counts, groups=stats.labels)
    assert c.to_json() == a.to_json()


def test_rates_advance_only_on_their_denominator():
    rng = np.random.default_rng(2)
    mon = FairnessMonitor(["tpr", "fpr", "ppv", "accuracy"], reference="a").update(*_day(rng))
    y, y_pred, group = _day(np.random.default_rng(2))
    res = mon.result()
    for k, g in enumerate(res.groups):
        rows = group == g
        assert res.denominators[:, k].tolist() == [
            (y & rows).sum(), (~y & rows).sum(), (y_pred & rows).sum(), rows.sum()]  # fmt: skip
        assert res.group_values[0, k] == pytest.approx(
            (y_pred & y & rows).sum() / (y & rows).sum()
        )


def test_states_read_the_sequence():
    rng = np.random.default_rng(3)
    gap = FairnessMonitor(["selection_rate"], reference="a", tolerance=0.05)
    fair = FairnessMonitor(["selection_rate"], reference="a", tolerance=0.05)
    for _ in range(20):
        gap.update(*_day(rng, gap=0.15))
        fair.update(*_day(rng, gap=0.0))
    g, f = gap.result(), fair.result()
    assert g.state[0, 0] == "DIFFERENCE" and g.confidence_interval[0][0, 0] > 0
    assert f.state[0, 0] == "FAIR within ±0.05"
    lo, hi = f.confidence_interval
    assert -0.05 < lo[0, 0] < 0 < hi[0, 0] < 0.05
    assert 0 < g.decided_at[0, 0] <= 20 and g.pvalue_adjusted[0, 0] <= 0.05
    assert f.pvalue_adjusted[0, 0] > 0.05
    frame = g.to_frame()
    assert frame.loc[0, "state"] == "DIFFERENCE" and frame.loc[0, "group"] == "b"
    assert json.loads(json.dumps(g.to_dict()))["comparisons"][0]["reference"] == "a"
    assert "DIFFERENCE" in repr(g) and "confidence sequence" in repr(g)


def test_state_survives_a_restart_bit_for_bit():
    rng = np.random.default_rng(4)
    days = [_day(rng) for _ in range(5)]
    whole = FairnessMonitor(reference="a", tolerance=0.1)
    for d in days:
        whole.update(*d)
    part = FairnessMonitor(reference="a", tolerance=0.1)
    for d in days[:3]:
        part.update(*d)
    restored = FairnessMonitor.from_json(part.to_json(), tolerance=0.1, reference="a")
    for d in days[3:]:
        restored.update(*d)
    assert restored.to_json() == whole.to_json()


def test_saved_states_of_another_configuration_or_version_are_refused():
    rng = np.random.default_rng(5)
    text = FairnessMonitor(reference="a").update(*_day(rng)).to_json()
    with pytest.raises(MonitorStateError, match=r"alpha=0\.05, not 0\.1"):
        FairnessMonitor.from_json(text, alpha=0.1)
    with pytest.raises(MonitorStateError, match="metrics"):
        FairnessMonitor.from_json(text, metrics=["tpr"])
    state = json.loads(text)
    state["version"] = 99
    with pytest.raises(MonitorStateError, match="version 99"):
        FairnessMonitor.from_json(json.dumps(state))
    with pytest.raises(MonitorStateError, match="not valid JSON"):
        FairnessMonitor.from_json(text[:100])
    state = json.loads(text)
    state["log_e"] = state["log_e"][:40]
    with pytest.raises(MonitorStateError, match="damaged"):
        FairnessMonitor.from_json(json.dumps(state))


def test_bad_batches_get_clear_errors():
    rng = np.random.default_rng(6)
    mon = FairnessMonitor(reference="a").update(*_day(rng))
    y, y_pred, group = _day(rng, n=100)
    with pytest.raises(ValueError, match=r"'c' is not one of the monitored groups.*max_groups"):
        mon.update(y, y_pred, np.where(group == "a", "a", "c"))
    with pytest.raises(ValueError, match="y_true is empty"):
        mon.update([], [], [])
    with pytest.raises(ValueError, match="y_true must be binary"):
        mon.update(np.arange(100) % 3, y_pred, group)
    with pytest.raises(ValueError, match="all zero"):
        mon.update_from_counts(np.zeros((2, 4)), ["a", "b"])
    with pytest.raises(TypeError, match="either y_pred or y_score"):
        mon.update(y, group=group)
    with pytest.raises(ValueError, match="no rows of the reference 'z'"):
        FairnessMonitor(reference="z").update(y, y_pred, group)
    with pytest.raises(TypeError, match="reference"):
        FairnessMonitor()
    with pytest.raises(TypeError, match="reference is required"):
        FairnessMonitor(reference=None)
    with pytest.raises(ValueError, match="joins several rates"):
        FairnessMonitor("equalized_odds", reference="a")
    with pytest.raises(ValueError, match="monitor has no data yet"):
        FairnessMonitor(reference="a").result()


def test_options_are_refused_exactly_at_the_ends_of_their_ranges():
    for name, value in (("resolution", 0.0), ("resolution", 0.1), ("tolerance", 0.0),
                        ("tolerance", 1.0), ("threshold", -np.inf)):  # fmt: skip
        with pytest.raises(ValueError, match=f"{name} must be in"):
            FairnessMonitor(reference="a", **{name: value})
    inside = FairnessMonitor(reference="a", resolution=0.05, tolerance=0.99)
    assert inside.options.tolerance == 0.99
    assert FairnessMonitor(reference="a", max_groups=2).options.max_groups == 2
    abc = FairnessMonitor(reference="a", groups=["a", "b", "c"], max_groups=3)
    assert abc.options.max_groups == 3
    for groups, max_groups in ((None, 1), (["a", "b", "c"], 2)):
        with pytest.raises(ValueError, match="max_groups must be >= 2 and >= len"):
            FairnessMonitor(reference="a", groups=groups, max_groups=max_groups)


def test_new_groups_join_within_the_correction_set_up_front():
    rng = np.random.default_rng(7)
    mon = FairnessMonitor(["tpr"], reference="a", max_groups=3).update(*_day(rng))
    threshold = mon.log_threshold
    assert threshold == pytest.approx(np.log(2 / 0.05))
    y, y_pred, group = _day(rng)
    group = np.where(group == "b", "c", group)
    mon.update(y, y_pred, group)
    res = mon.result()
    assert res.groups.tolist() == ["a", "b", "c"] and mon.log_threshold == threshold
    assert res.state.shape == res.decided_at.shape == (1, 2)
    assert FairnessMonitor.from_json(mon.to_json()).to_json() == mon.to_json()
    assert res.denominators[0, 1] > 0 and res.denominators[0, 2] > 0
    y, y_pred, group = _day(rng)
    with pytest.raises(ValueError, match="'d' is not one"):
        mon.update(y, y_pred, np.where(group == "b", "d", group))


def test_pandas_rows_pair_by_index_and_arrow_is_read():
    rng = np.random.default_rng(8)
    y, y_pred, group = _day(rng)
    base = FairnessMonitor(reference="a").update(y, y_pred, group)
    order = rng.permutation(len(y))
    frame = pd.DataFrame({"y": y, "p": y_pred, "g": group})
    shuffled = pd.Series(y_pred).iloc[order]  # same labels, another order: realigned
    mon = FairnessMonitor(reference="a").update(frame["y"], shuffled, frame["g"])
    assert mon.to_json() == base.to_json()
    with pytest.raises(ValueError, match="indexes hold different labels"):
        FairnessMonitor(reference="a").update(frame["y"], pd.Series(y_pred, index=order + 1),
                                              frame["g"])  # fmt: skip
    pa = pytest.importorskip("pyarrow")
    arrow = FairnessMonitor(reference="a").update(pa.array(y), pa.array(y_pred), pa.array(group))
    assert arrow.to_json() == base.to_json()
    scored = FairnessMonitor(reference="a", threshold=0.5)
    scored.update("y", y_score=np.where(y_pred, 0.5, 0.49), group="g", data=frame)
    state, want = json.loads(scored.to_json()), json.loads(base.to_json())
    assert state["values"] == {"y_true": want["values"]["y_true"]}  # no prediction column
    assert {**state, "values": want["values"]} == want


def test_a_batch_of_a_third_label_alone_is_refused_and_changes_nothing():
    """Labels 'no'/'yes', then a batch holding only 'no' (no event: taken), then a batch
    holding only 'maybe': each batch alone is binary, the stream is not, and the batch is
    refused (it used to be counted as negatives) leaving the state as it was; a monitor
    restored from its saved state refuses it too (the values seen are part of the state)."""
    rng = np.random.default_rng(21)
    values = np.array(["no", "yes"], dtype=object)
    y, p = values[rng.integers(0, 2, 200)], values[rng.integers(0, 2, 200)]
    g = rng.choice(["a", "b"], 200)
    mon = FairnessMonitor(reference="a").update(y, p, g, pos_label="yes")
    mon.update(np.full(50, "no", dtype=object), p[:50], g[:50], pos_label="yes")
    assert mon.n_rows == 250
    before = mon.to_json()
    assert sorted(json.loads(before)["values"]["y_true"]) == ["no", "yes"]
    for monitor in (mon, FairnessMonitor.from_json(before)):
        for column in ("y_true", "y_pred"):
            batch = {"y_true": y[:50], "y_pred": p[:50]}
            batch[column] = np.full(50, "maybe", dtype=object)
            message = (rf"^{column} \(this batch and those before\) must be binary, got 3 "
                       r"distinct values \('maybe', 'no', 'yes'\)$")  # fmt: skip
            with pytest.raises(ValueError, match=message):
                monitor.update(batch["y_true"], batch["y_pred"], g[:50], pos_label="yes")
        assert monitor.to_json() == before


def test_a_state_with_an_undefined_gap_is_saved_and_restored():
    """A first batch where group b has no positive label: its true-positive-rate gap is
    undefined (NaN in the history). JSON has no NaN: the state saves it as null and reads
    it back as NaN (to_json used to fail on such a monitor)."""
    y = np.array([1, 0, 1, 0, 0, 0])
    p = np.array([1, 1, 0, 0, 1, 0])
    g = np.array(["a", "a", "a", "a", "b", "b"])
    mon = FairnessMonitor(["tpr", "fpr"], reference="a").update(y, p, g)
    difference = np.asarray(mon._history["difference"])
    assert np.isnan(difference[0, 0, 0]) and difference[0, 1, 0] == 1 / 2 - 1 / 2
    text = mon.to_json()
    assert json.loads(text)["history"]["difference"] == [[[None], [0.0]]]
    back = FairnessMonitor.from_json(text)
    np.testing.assert_array_equal(np.asarray(back._history["difference"]), difference)
    assert back.to_json() == text
    back.update(y, p, g)
    assert back.to_json() == mon.update(y, p, g).to_json()


def test_results_do_not_depend_on_threads():
    rng = np.random.default_rng(9)
    days = [_day(rng, n=20000) for _ in range(2)]
    one = FairnessMonitor(reference="a", n_jobs=1)
    with force_parallel():
        many = FairnessMonitor(reference="a", n_jobs=3)
        for d in days:
            many.update(*d)
    for d in days:
        one.update(*d)
    assert many.to_json() == one.to_json()


def test_plot_draws_every_sequence(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(10)
    mon = FairnessMonitor(["tpr", "fpr"], reference="a", tolerance=0.1)
    for _ in range(4):
        mon.update(*_day(rng))
    fig = mon.plot()
    assert len(fig.axes) == 2 and len(fig.axes[0].collections) == 1
    fig.savefig(tmp_path / "seq.png")


def test_cli_monitor_updates_the_state_atomically(tmp_path, capsys):
    rng = np.random.default_rng(11)
    state = tmp_path / "state.json"
    for k in range(2):
        y, y_pred, group = _day(rng)
        pd.DataFrame({"y": y.astype(int), "p": y_pred.astype(int), "sex": group}).to_csv(
            tmp_path / f"day{k}.csv", index=False
        )
    args = ["monitor", "--state", str(state), "--label", "y", "--pred", "p", "--group", "sex"]
    assert main([*args, str(tmp_path / "day0.csv"), "--reference", "a"]) == 0
    assert main([*args, str(tmp_path / "day1.csv")]) == 0
    out = capsys.readouterr().out
    assert "updates=2" in out and "tpr: b - a" in out
    saved = state.read_text()
    assert main([*args, str(tmp_path / "day1.csv"), "--alpha", "0.1"]) == 2
    assert "alpha=0.05, not 0.1" in capsys.readouterr().err
    (tmp_path / "bad.csv").write_text("y,p,sex\n1,1,a\n2,0,b\n")
    assert main([*args, str(tmp_path / "bad.csv")]) == 2
    assert state.read_text() == saved and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.csv", "day0.csv", "day1.csv", "state.json"]  # fmt: skip
    expected = FairnessMonitor.from_json(saved).result().to_dict()
    assert expected["n_updates"] == 2


def _worked_example():
    """docs/monitoring.md's daily stream: women's TPR drops from 0.80 to 0.70 on day 20."""
    rng = np.random.default_rng(2026)
    monitor = FairnessMonitor(["tpr", "fpr"], reference="M", alpha=0.05, tolerance=0.05)
    days = []
    for day in range(1, 41):
        group = rng.choice(["F", "M"], 2000, p=[0.4, 0.6])
        y_true = rng.random(2000) < 0.3
        tpr = np.where((group == "F") & (day >= 20), 0.70, 0.80)
        y_pred = np.where(y_true, rng.random(2000) < tpr, rng.random(2000) < 0.10)
        days.append(monitor.update(y_true, y_pred, group).result())
    return days


def test_worked_example_of_the_docs():
    days = _worked_example()

    def first(metric, state):
        return next(k + 1 for k, r in enumerate(days) if r.state[metric, 0] == state)

    assert first(1, "FAIR within ±0.05") == 3
    assert first(0, "FAIR within ±0.05") == 8
    assert first(0, "DIFFERENCE, FAIR within ±0.05") == 27
    assert first(0, "CHANGED") == 40
    lo, hi = days[18].confidence_interval  # day 19, before the change
    assert (round(lo[0, 0], 3), round(hi[0, 0], 3)) == (-0.025, 0.028)
    lo, hi = days[26].confidence_interval  # day 27
    assert (round(lo[0, 0], 3), round(hi[0, 0], 3)) == (-0.025, -0.002)
    lo, hi = days[-1].confidence_interval
    assert (round(lo[1, 0], 3), round(hi[1, 0], 3)) == (-0.013, 0.007)
    assert round(days[-1].difference[0, 0], 4) == -0.0479
    # a new monitor started on day 21 sees the new gap alone
    rng = np.random.default_rng(7)
    fresh = FairnessMonitor(["tpr"], reference="M", tolerance=0.05)
    for day in range(21, 41):  # noqa: B007 (the day of the first DIFFERENCE is checked)
        group = rng.choice(["F", "M"], 2000, p=[0.4, 0.6])
        y_true = rng.random(2000) < 0.3
        y_pred = np.where(y_true, rng.random(2000) < np.where(group == "F", 0.7, 0.8),
                          rng.random(2000) < 0.10)  # fmt: skip
        res = fresh.update(y_true, y_pred, group).result()
        if res.state[0, 0] == "DIFFERENCE":
            break
    lo, hi = res.confidence_interval
    assert day == 21 and (round(lo[0, 0], 3), round(hi[0, 0], 3)) == (-0.268, -0.013)


def test_states_need_the_sequence_strictly_away_from_0_and_strictly_inside_the_tolerance():
    """ "DIFFERENCE" once the sequence excludes 0, "FAIR within ±δ" once it lies inside the
    open (-δ, δ): sequences ending exactly on 0 or on ±δ (both are grid lines) are neither."""
    monitor = FairnessMonitor(metrics="tpr", reference="a", tolerance=0.1)
    lower = np.array([0.0, 0.01, -0.1, -0.09, -0.2, np.nan])
    upper = np.array([0.2, 0.2, 0.05, 0.1, 0.0, np.nan])
    assert monitor._states(lower, upper).tolist() == [
        "watching",
        "DIFFERENCE",
        "watching",
        "watching",
        "watching",
        "CHANGED",
    ]
    inside = monitor._states(np.array([-0.09, 0.02]), np.array([0.09, 0.08]))
    assert inside.tolist() == ["FAIR within ±0.1", "DIFFERENCE, FAIR within ±0.1"]


def test_sequence_bounds_span_minus_1_to_1_while_no_strip_is_rejected():
    from fastfair.monitor.inference import sequence_bounds

    lines = np.array([-0.5, 0.0, 0.5])
    lower, upper = sequence_bounds(np.zeros((2, 4), dtype=bool), lines)
    assert lower.tolist() == [-1.0, -1.0] and upper.tolist() == [1.0, 1.0]
    lower, upper = sequence_bounds(np.array([False, True, True, True]), lines)
    assert (float(lower), float(upper)) == (-1.0, -0.5)


def test_frame_rows_show_each_comparisons_group_and_reference_counts():
    """Each to_frame / to_dict row carries its group's and the reference's own values and
    denominators, counted here from the table (a: 300 rows, b: 120, c: 50)."""
    counts = np.array([[100, 50, 100, 50], [40, 20, 40, 20], [30, 5, 10, 5]])
    mon = FairnessMonitor(["selection_rate", "tpr"], reference="a")
    res = mon.update_from_counts(counts, groups=["a", "b", "c"]).result()
    frame = res.to_frame().set_index(["metric", "group"])
    expected = {  # (rows or positives, selected or true positives) per group
        "selection_rate": {"a": (300, 100), "b": (120, 40), "c": (50, 10)},
        "tpr": {"a": (150, 50), "b": (60, 20), "c": (15, 5)},
    }
    for metric, by_group in expected.items():
        ref_n, ref_x = by_group["a"]
        for group in ("b", "c"):
            row = frame.loc[(metric, group)]
            n, x = by_group[group]
            assert row["reference"] == "a"
            assert (row["group_denominator"], row["reference_denominator"]) == (n, ref_n)
            assert row["group_value"] == pytest.approx(x / n, rel=1e-15)
            assert row["reference_value"] == pytest.approx(ref_x / ref_n, rel=1e-15)
            assert row["difference"] == pytest.approx(x / n - ref_x / ref_n, rel=1e-12)
    listed = res.to_dict()["comparisons"]
    assert {(r["group"], r["reference_denominator"]) for r in listed} == {
        ("b", 300),
        ("c", 300),
        ("b", 150),
        ("c", 150),
    }


def test_adjusted_pvalue_is_at_most_alpha_exactly_when_the_sequence_excludes_zero():
    """The p-value of gap 0 rejects with the sequence: both strips next to 0 must be
    rejected, so pvalue_adjusted <= alpha exactly after the update where the interval first
    leaves 0 (it touches 0 while only the strip on one side is rejected: a coarse grid and a
    true gap inside the strip [0, 0.05]), for every metric and comparison, update after
    update."""
    rng = np.random.default_rng(12)
    mon = FairnessMonitor(["selection_rate", "tpr"], reference="a", alpha=0.05,
                          resolution=0.05)  # fmt: skip
    seen_touching = False
    for _ in range(40):
        n = 1500
        group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
        y = rng.random(n) < 0.4
        shift = np.select([group == "b", group == "c"], [0.03, 0.0], 0.0)
        y_pred = rng.random(n) < 0.4 + shift
        mon.update(y, y_pred, group)
        res = mon.result()
        lo, hi = res.confidence_interval
        excludes = (lo > 0) | (hi < 0)
        np.testing.assert_array_equal(res.pvalue_adjusted <= 0.05, excludes)
        np.testing.assert_array_equal(res.state == "DIFFERENCE", excludes)
        seen_touching |= bool(((lo == 0) | (hi == 0)).any())
    assert seen_touching  # the case that tells one strip from both
    assert lo[0, 0] == 0.0 and res.state[0, 0] == "watching"  # b vs a: gap 0.03 in [0, 0.05]


def test_repr_rows_read_back_counts_differences_and_bonferroni_adjusted_pvalues():
    """Every column of the repr against the rows (numpy counts) and the result: the
    difference of rates, the sequence, the p-value adjusted over the 4 sequences
    (min(1, 4 p): it differs from the raw p where the gap is detected), and the group's and
    the reference's denominators (rows for the selection rate, positives for the TPR)."""
    rng = np.random.default_rng(3)
    mon = FairnessMonitor(["selection_rate", "tpr"], reference="a")
    rows = []
    for _ in range(3):
        n = 2000
        g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
        y = rng.random(n) < 0.4
        y_pred = rng.random(n) < np.where(g == "b", 0.55, 0.4)
        mon.update(y, y_pred, g)
        rows.append((g, y, y_pred))
    g, y, y_pred = (np.concatenate(parts) for parts in zip(*rows))
    res = mon.result()
    lines = repr(res).splitlines()
    assert "Bonferroni over 4 sequences" in lines[0]
    lower, upper = res.confidence_interval
    detected = 0
    for k, (metric, group) in enumerate(itertools.product(["selection_rate", "tpr"], "bc")):
        i, c = k // 2, k % 2
        cells = [v for v in lines[2 + k].strip().split("  ") if v.strip()]
        cells = [v.strip() for v in cells]
        assert cells[0] == f"{metric}: {group} - a"
        den = {h: (g == h) if metric == "selection_rate" else (g == h) & y for h in "abc"}
        rate = {h: y_pred[den[h]].mean() for h in "abc"}
        assert float(cells[1]) == pytest.approx(rate[group] - rate["a"], abs=5e-5)
        assert cells[2] == f"[{lower[i, c]:.4f}, {upper[i, c]:.4f}]"
        p, p_adj = res.pvalue[i, c], min(1.0, 4 * res.pvalue[i, c])
        shown = float(cells[3])
        assert shown == pytest.approx(p_adj, rel=1e-3, abs=5e-5 if p_adj >= 0.01 else 0.0)
        if p_adj < 1.0:
            detected += 1
            assert abs(shown - p) > 0.5 * p  # the adjusted, not the raw p-value
        assert (int(cells[4]), int(cells[5])) == (den[group].sum(), den["a"].sum())
        assert cells[6].startswith(str(res.state[i, c]))
    assert detected >= 2


def test_groups_listed_with_the_reference_not_first_are_still_compared_with_it():
    """groups=["b", "a", "c"] with reference "a": every comparison is against "a" and its
    difference is the group's selection rate minus a's, counted from the rows."""
    rng = np.random.default_rng(8)
    n = 3000
    g = rng.choice(["a", "b", "c"], n, p=[0.4, 0.35, 0.25])
    y = rng.random(n) < 0.4
    y_pred = rng.random(n) < np.select([g == "b", g == "c"], [0.6, 0.3], 0.45)
    mon = FairnessMonitor(["selection_rate"], reference="a", groups=["b", "a", "c"])
    res = mon.update(y, y_pred, g).result()
    assert res.comparisons == [("b", "a"), ("c", "a")]
    assert res.groups.tolist() == ["a", "b", "c"]
    rate = {h: y_pred[g == h].mean() for h in "abc"}
    np.testing.assert_allclose(res.difference[0], [rate["b"] - rate["a"], rate["c"] - rate["a"]],
                               rtol=1e-12)  # fmt: skip
    frame = res.to_frame()
    assert frame.reference.tolist() == ["a", "a"]
    assert frame.reference_denominator.tolist() == [int((g == "a").sum())] * 2


def test_every_refused_option_batch_and_state_names_its_problem():
    """The refusals the other tests leave unexercised, each with its documented message."""
    rng = np.random.default_rng(13)
    y, y_pred, _ = _day(rng, n=200)
    cases = [
        (lambda: FairnessMonitor(reference=["a"]), TypeError,
         r"reference must be a string, number or boolean, got \['a'\]"),
        (lambda: FairnessMonitor(reference=float("nan")), TypeError, "reference must be"),
        (lambda: FairnessMonitor(["tpr", "tpr"], reference="a"), ValueError,
         r"metrics must be distinct rate metrics, got \['tpr', 'tpr'\]"),
        (lambda: FairnessMonitor([], reference="a"), ValueError, "metrics must be distinct"),
        (lambda: FairnessMonitor(reference="a", alpha="0.05"), TypeError,
         "alpha must be a number"),
        (lambda: FairnessMonitor(reference="a", resolution="0.01"), TypeError,
         "resolution must be a number"),
        (lambda: FairnessMonitor(reference="a", tolerance=True), TypeError,
         "tolerance must be a number"),
        (lambda: FairnessMonitor(reference="a", groups=["a", "b", "a"]), ValueError,
         r"groups has duplicates: \['a', 'b', 'a'\]"),
        (lambda: FairnessMonitor(reference="c", groups=["a", "b"]), ValueError,
         r"reference 'c' is not in groups \['a', 'b'\]"),
        (lambda: FairnessMonitor(reference="a", max_groups=2.0), TypeError,
         "max_groups must be an integer, got 2.0"),
        (lambda: FairnessMonitor(reference="a", resolution=0.03), ValueError,
         r"resolution must divide 1 \(e.g. 0.001\), got 0.03"),
        (lambda: FairnessMonitor(reference="a").update(y, y_pred), TypeError,
         "group is required"),
        (lambda: FairnessMonitor(reference="a").update(y, y_pred, np.full(200, "a")),
         ValueError, r"the first batch has one group \('a'\): give groups= or max_groups="),
        (lambda: FairnessMonitor(reference="a").update_from_counts(np.ones((2, 4))),
         TypeError, "groups is required with a counts array"),
        (lambda: FairnessMonitor(reference="a").update_from_counts(np.ones((2, 4)), ["a"]),
         ValueError, r"counts must have shape \(len\(groups\), 4\) = \(1, 4\), got \(2, 4\)"),
        (lambda: FairnessMonitor(reference="a").update_from_counts(np.ones((2, 3)), "ab"),
         ValueError, r"got \(2, 3\)"),
        (lambda: FairnessMonitor(reference="a").update_from_counts(
            [[1, 2, 3, 4], [1, -2, 3, 4]], ["a", "b"]), ValueError,
         "counts must be non-negative whole numbers"),
        (lambda: FairnessMonitor(reference="a").update_from_counts(
            [[1, 2, 3, 4], [1, 2.5, 3, 4]], ["a", "b"]), ValueError,
         "counts must be non-negative whole numbers"),
        (lambda: FairnessMonitor.from_json("[1, 2]"), MonitorStateError,
         "this is not a fastfair.FairnessMonitor state"),
        (lambda: FairnessMonitor.from_json(
            FairnessMonitor(reference="a").to_json(), colour="red"), TypeError,
         "unknown monitor option 'colour'"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    assert FairnessMonitor(reference=2.0).options.reference == 2  # a whole float: an int
    assert FairnessMonitor(reference=np.float64(0.5)).options.reference == 0.5


def test_a_saved_monitor_without_data_restores_empty_and_says_so():
    empty = FairnessMonitor(["tpr"], reference="a", tolerance=0.05)
    back = FairnessMonitor.from_json(empty.to_json())
    assert back.to_json() == empty.to_json() and back.n_updates == 0
    assert repr(back) == f"FairnessMonitor({back.options}, no data yet)"
    with pytest.raises(ValueError, match="no data yet"):
        back.result()
    rng = np.random.default_rng(14)
    back.update(*_day(rng))  # and it still takes its first batch
    assert back.result().comparisons == [("b", "a")]
    assert repr(back).startswith("FairnessMonitor(alpha=0.05, tolerance=0.05, updates=1")


def test_a_state_whose_capacity_disagrees_with_its_options_is_refused():
    rng = np.random.default_rng(15)
    state = json.loads(FairnessMonitor(reference="a").update(*_day(rng)).to_json())
    state["capacity"] = state["capacity"] + 1
    with pytest.raises(MonitorStateError, match="damaged: capacity does not match the options"):
        FairnessMonitor.from_json(json.dumps(state))


def test_plot_draws_into_the_axes_given():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(16)
    mon = FairnessMonitor(["tpr", "fpr"], reference="a").update(*_day(rng))
    fig, axes = plt.subplots(2, 1)
    try:
        out = mon.plot(ax=axes)
        assert all(len(a.lines) >= 1 for a in axes)  # drawn into the given axes
        assert [a.get_ylabel() for a in axes] == ["tpr gap", "fpr gap"]
        assert out is fig
    finally:
        plt.close(fig)


def test_cli_monitor_passes_every_new_state_option_to_the_monitor(tmp_path, capsys):
    """`fastfair monitor` creating a state with every option set (--metrics, --reference,
    --groups, --max-groups, --alpha, --tolerance, --threshold, --score) writes the state of
    FairnessMonitor built with the same values by name and updated with the same rows; each
    option differs from its default, so one left out or passed to another name shows."""
    rng = np.random.default_rng(17)
    n = 600
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < 0.4).astype(int)
    score = np.round(rng.random(n) * 0.6 + 0.3 * y, 3)
    pd.DataFrame({"y": y, "s": score, "g": group}).to_csv(tmp_path / "day.csv", index=False)
    state = tmp_path / "state.json"
    argv = ["monitor", str(tmp_path / "day.csv"), "--state", str(state), "--label", "y",
            "--score", "s", "--group", "g", "--metrics", "fpr", "selection_rate",
            "--reference", "b", "--groups", "b", "c", "--max-groups", "4", "--alpha", "0.1",
            "--tolerance", "0.07", "--threshold", "0.35"]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    want = FairnessMonitor(["fpr", "selection_rate"], reference="b", groups=["b", "c"],
                           max_groups=4, alpha=0.1, tolerance=0.07, threshold=0.35)  # fmt: skip
    want.update(y, None, group, y_score=score)
    got = json.loads(state.read_text())
    assert got == json.loads(want.to_json())
    default = FairnessMonitor(["fpr", "selection_rate"], reference="b", groups=["b", "c"],
                              max_groups=4, alpha=0.1, tolerance=0.07)  # fmt: skip
    default.update(y, None, group, y_score=score)
    assert got != json.loads(default.to_json())  # the threshold changed the counts


def test_a_float_group_column_of_whole_numbers_gives_the_same_int_labels_and_state():
    """A group column read as floats (1.0, 2.0: e.g. a pandas column that once held NaN) is
    the same grouping as its int column: the labels are plain ints, so the saved state, the
    result and a state restored with reference=1 are those of the int column."""
    rng = np.random.default_rng(21)
    n = 2000
    g_int = rng.choice([1, 2, 3], n)
    y = rng.random(n) < 0.4
    y_pred = rng.random(n) < 0.5
    as_int = FairnessMonitor(["tpr"], reference=1).update(y, y_pred, g_int)
    as_float = FairnessMonitor(["tpr"], reference=1).update(y, y_pred, g_int.astype(float))
    res = as_float.result()
    assert [type(v) for v in res.groups] == [int, int, int]
    assert res.comparisons == [(2, 1), (3, 1)]
    assert json.loads(as_float.to_json())["groups"] == [1, 2, 3]
    assert as_float.to_json() == as_int.to_json()
    assert type(FairnessMonitor(reference=2.0).options.reference) is int


def test_decided_at_is_the_first_update_of_the_current_state_and_does_not_move_later():
    """decided_at, read against the states recorded after every update: the 1-based update
    from which the current state has been read without a break (0 while watching)."""
    rng = np.random.default_rng(22)
    mon = FairnessMonitor(["selection_rate"], reference="a")
    seen = []
    for _ in range(8):
        res = mon.update(*_day(rng, n=1500, gap=0.15)).result()
        seen.append(res.state[0, 0])
        k = len(seen)
        while k > 1 and seen[k - 2] == seen[-1]:
            k -= 1
        assert res.decided_at[0, 0] == (0 if seen[-1] == "watching" else k)
    assert seen[-1] == "DIFFERENCE" and seen.count("DIFFERENCE") >= 3  # stays, not re-dated
    assert res.to_frame().decided_at.tolist() == [res.decided_at[0, 0]]


def test_a_first_batch_of_the_reference_alone_is_taken_when_max_groups_leaves_room():
    """max_groups=3: the first batch may hold the reference only (the comparisons come when
    the other groups arrive); without max_groups or groups that batch is refused."""
    rng = np.random.default_rng(23)
    y, y_pred, _ = _day(rng, n=500)
    mon = FairnessMonitor(["selection_rate"], reference="a", max_groups=3)
    mon.update(y, y_pred, np.full(500, "a"))
    assert mon.n_sequences == 2 and mon.log_threshold == pytest.approx(np.log(2 / 0.05))
    y2, p2, g2 = _day(rng, n=1000)
    res = mon.update(y2, p2, g2).result()
    assert res.comparisons == [("b", "a")]
    rate_a = (y_pred.sum() + p2[g2 == "a"].sum()) / (500 + (g2 == "a").sum())
    assert res.difference[0, 0] == pytest.approx(p2[g2 == "b"].mean() - rate_a, rel=1e-12)
    assert res.denominators[0].tolist() == [500 + int((g2 == "a").sum()), int((g2 == "b").sum())]
    with pytest.raises(ValueError, match="the first batch has one group"):
        FairnessMonitor(["selection_rate"], reference="a").update(y, y_pred, np.full(500, "a"))


def test_frame_values_are_each_groups_own_when_every_group_has_a_different_rate():
    """Three groups whose selection rates and TPRs all differ (counted here from the table):
    every row's group_value, reference_value and difference is its own pair's, so a value
    taken from a neighbouring group cannot pass unseen."""
    counts = np.array([[100, 50, 100, 50], [50, 10, 20, 40], [30, 25, 10, 15]])
    # (TN, FP, FN, TP): selected = FP + TP, rows = all, positives = FN + TP
    res = FairnessMonitor(["selection_rate", "tpr"], reference="a").update_from_counts(
        counts, groups=["a", "b", "c"]).result()  # fmt: skip
    value = {
        "selection_rate": (counts[:, 1] + counts[:, 3]) / counts.sum(axis=1),
        "tpr": counts[:, 3] / (counts[:, 2] + counts[:, 3]),
    }
    assert all(len({round(x, 9) for x in v}) == 3 for v in value.values())
    rows = res.to_frame().to_dict("records")
    assert [(r["metric"], r["group"]) for r in rows] == [
        ("selection_rate", "b"),
        ("selection_rate", "c"),
        ("tpr", "b"),
        ("tpr", "c"),
    ]
    for r in rows:
        k = "abc".index(r["group"])
        v = value[r["metric"]]
        assert r["reference"] == "a"
        assert r["group_value"] == pytest.approx(v[k], rel=1e-15)
        assert r["reference_value"] == pytest.approx(v[0], rel=1e-15)
        assert r["difference"] == pytest.approx(v[k] - v[0], rel=1e-12)
    assert res.to_dict()["comparisons"] == rows


def test_a_large_batch_is_cut_into_blocks_of_three_times_the_rows_seen_before_it():
    """update() cuts a batch, in row order, into blocks of max(1,000, 3 x the rows seen
    before the block) (the docstring's rule): the state equals that of the blocks' counts
    given one by one (update_from_counts: one block each), cut here by hand from the rule.
    A first batch of 6,000 rows is blocks 0:1,000, 1,000:4,000 and 4,000:6,000; a second
    of 20,000 after it, 0:18,000 and 18,000:20,000."""
    rng = np.random.default_rng(31)
    first, second = _day(rng, n=6000, gap=0.05), _day(rng, n=20000, gap=0.05)
    rows = FairnessMonitor(["selection_rate", "tpr"], reference="a")
    rows.update(*first).update(*second)
    blocks = FairnessMonitor(["selection_rate", "tpr"], reference="a")
    for batch, cuts in ((first, [0, 1000, 4000, 6000]), (second, [0, 18000, 20000])):
        for a, b in itertools.pairwise(cuts):
            blocks.update_from_counts(ConfusionStats.from_arrays(*(c[a:b] for c in batch)))
    got, want = rows.result(), blocks.result()
    assert got.n_rows == want.n_rows == 26000
    for j in range(2):
        np.testing.assert_array_equal(got.confidence_interval[j], want.confidence_interval[j])
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    np.testing.assert_array_equal(rows._log_e, blocks._log_e)
    one_block = FairnessMonitor(["selection_rate", "tpr"], reference="a")
    one_block.update_from_counts(ConfusionStats.from_arrays(*first))
    assert not np.array_equal(one_block._log_e, FairnessMonitor(
        ["selection_rate", "tpr"], reference="a").update(*first)._log_e)  # fmt: skip


def test_pvalue_keeps_the_running_maximum_of_the_evidence_at_zero_across_updates():
    """The p-value of gap 0 is exp(-min over the two strips next to 0 of the largest log
    e-value each has had after ANY update): a gap first (the evidence against 0 grows),
    then the reverse gap (it falls back). Recomputed here after every update from the
    strips' log e-values by a running maximum kept in the test; the evidence must have
    fallen below its maximum at some update, else the rule was not exercised."""
    rng = np.random.default_rng(32)
    mon = FairnessMonitor(["selection_rate"], reference="a", resolution=0.01)
    zero = mon._zero
    best = np.full(2, -np.inf)
    fell = False
    for gap in (0.08, 0.08, -0.08, -0.08, -0.08, -0.08):
        res = mon.update(*_day(rng, n=1500, gap=gap)).result()
        now = mon._log_e[0, 0, zero : zero + 2]
        fell |= bool((now < best).any())
        best = np.maximum(best, now)
        want = min(1.0, float(np.exp(-best.min())))
        assert res.pvalue[0, 0] == pytest.approx(want, rel=1e-12, abs=1e-300)
    assert fell


def test_plot_of_a_group_that_joined_later_starts_where_it_joined():
    """max_groups=3: group c joins at the third update. Each panel's step line of a
    comparison is its difference after every update over the rows seen then, as
    result() gave them update by update; c - a is missing (NaN) before c joined, not 0
    and not another comparison's value."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(33)
    mon = FairnessMonitor(["selection_rate", "tpr"], reference="a", max_groups=3)
    rows, diffs = [], []
    for k in range(4):
        y, y_pred, group = _day(rng, n=1200, gap=0.1)
        if k >= 2:
            group = np.where(rng.random(1200) < 0.3, "c", group)
        res = mon.update(y, y_pred, group).result()
        rows.append(res.n_rows)
        pad = np.full((2, 2), np.nan)
        pad[:, : res.difference.shape[1]] = res.difference
        diffs.append(pad)
    diffs = np.array(diffs)
    assert np.isnan(diffs[:2, :, 1]).all() and not np.isnan(diffs[2:]).any()
    fig = mon.plot()
    try:
        for i, axis in enumerate(fig.axes):
            lines = [x for x in axis.lines if x.get_label() in ("b - a", "c - a")]
            assert [x.get_label() for x in lines] == ["b - a", "c - a"]
            for c, line in enumerate(lines):
                np.testing.assert_array_equal(line.get_xdata(), rows)
                np.testing.assert_array_equal(line.get_ydata(), diffs[:, i, c])
    finally:
        plt.close(fig)


def test_counts_given_twice_for_a_group_in_one_batch_are_added():
    """update_from_counts with two sources' tables stacked (each group listed twice, in
    another order the second time; later a new group twice): one block of the summed
    counts, as the sums by hand given once give it, and no group is monitored twice."""
    rng = np.random.default_rng(34)
    days = [ConfusionStats.from_arrays(*_day(rng, n=2000, gap=0.1)) for _ in range(4)]
    assert all(d.labels.tolist() == ["a", "b"] for d in days)
    twice = FairnessMonitor(["selection_rate", "tpr"], reference="a", max_groups=3)
    once = FairnessMonitor(["selection_rate", "tpr"], reference="a", max_groups=3)
    twice.update_from_counts(np.vstack([days[0].counts, days[1].counts[::-1]]),
                             groups=["a", "b", "b", "a"])  # fmt: skip
    once.update_from_counts(days[0].counts + days[1].counts, groups=["a", "b"])
    assert twice.result().groups.tolist() == ["a", "b"]
    assert twice.to_json() == once.to_json()
    twice.update_from_counts(np.vstack([days[2].counts, days[3].counts]),
                             groups=["a", "c", "a", "c"])  # fmt: skip
    once.update_from_counts(days[2].counts + days[3].counts, groups=["a", "c"])
    assert twice.result().groups.tolist() == ["a", "b", "c"]
    assert twice.to_json() == once.to_json()


def test_repr_head_counts_rows_and_updates_and_each_state_names_the_update_it_was_read():
    """The repr's head counts the updates and the rows given (summed here from the batches,
    of different sizes), and each state cell names the update (1-based) at which its state
    was first read: b's large gap is read at the first update and still says "(update 1)"
    after the third; c's zero gap keeps watching and names no update."""
    rng = np.random.default_rng(5)
    mon = FairnessMonitor(["selection_rate"], reference="a")
    sizes = (3000, 1000, 2000)
    for n in sizes:
        g = rng.choice(["a", "b", "c"], n)
        y = rng.random(n) < 0.4
        mon.update(y, rng.random(n) < np.where(g == "b", 0.7, 0.4), g)
    res = mon.result()
    head, _, b_line, c_line = repr(res).splitlines()
    assert head.startswith(f"MonitorResult(alpha=0.05, updates=3, rows={sum(sizes)}; ")
    assert res.state.tolist() == [["DIFFERENCE", "watching"]]
    assert b_line.split()[:3] == ["selection_rate:", "b", "-"]
    assert b_line.endswith("  DIFFERENCE (update 1)")
    assert c_line.split()[:3] == ["selection_rate:", "c", "-"] and c_line.endswith("  watching")
