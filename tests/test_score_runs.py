"""Exact AUC summaries of untied scores (#28 point 2): sorted runs merged k-way, and
placement sums of score-ordered parts (the dask path).

The reference is independent: the placement sums by brute force over all pairs of a
group's rows (O(n^2) Python integers), and fastfair.delong on the rows.
"""

import numpy as np
import pandas as pd
import pytest
from fastfair._runs import merge_placements

import fastfair
from fastfair.stats import PlacementSums, ScoreRuns, ScoreStats


def brute_sums(y, s, g):
    """{group: (n_neg, n_pos, sum L, sum L^2, sum M, sum M^2)} over all pairs."""
    out = {}
    for label in np.unique(g):
        ys, ss = y[g == label], s[g == label]
        neg, pos = ss[ys == 0], ss[ys == 1]
        big_l = [2 * int((neg < v).sum()) + int((neg == v).sum()) for v in pos]
        big_m = [2 * int((pos > v).sum()) + int((pos == v).sum()) for v in neg]
        out[label] = (
            len(neg), len(pos), sum(big_l), sum(x * x for x in big_l), sum(big_m),
            sum(x * x for x in big_m),
        )  # fmt: skip
    return out


def as_dict(sums: PlacementSums):
    return {
        label: (int(sums.n_neg[k]), int(sums.n_pos[k]), sums.pos_sum[k], sums.pos_squares[k],
                sums.neg_sum[k], sums.neg_squares[k])
        for k, label in enumerate(sums.labels.tolist())
    }  # fmt: skip


def rows(n, seed, decimals=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    g = rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1])
    s = 0.3 * y + rng.random(n)
    if decimals is not None:
        s = np.round(s, decimals)
    return y, s, g


def runs_of(y, s, g, cuts):
    parts = np.split(np.arange(len(y)), cuts)
    total = ScoreRuns.from_arrays(y[parts[0]], s[parts[0]], g[parts[0]])
    for p in parts[1:]:
        total = total + ScoreRuns.from_arrays(y[p], s[p], g[p])
    return total


@pytest.mark.parametrize("decimals", [None, 1, 2])
def test_sums_equal_brute_force(decimals):
    y, s, g = rows(700, 1, decimals)
    got = as_dict(runs_of(y, s, g, [100, 250, 600]).placements())
    assert got == brute_sums(y, s, g)


@pytest.mark.parametrize("k", [1, 2, 3, 16, 97])
@pytest.mark.parametrize("decimals", [None, 2])
def test_k_way_merge_equals_single_sort_exactly(k, decimals):
    y, s, g = rows(5000, k, decimals)
    rng = np.random.default_rng(k)
    cuts = np.sort(rng.integers(0, len(y), k - 1))  # uneven, some batches empty
    merged = runs_of(y, s, g, cuts).placements()
    single = ScoreRuns.from_arrays(y, s, g).placements()
    assert as_dict(merged) == as_dict(single)


def test_ties_across_batches_and_signed_zero():
    # every batch holds the same few scores: each tie block spans all runs
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1] * 25)
    s = np.array([0.0, -0.0, 0.5, 0.5, 1.0, 1.0, -0.0, 0.0] * 25)
    g = np.array(["a", "a", "b", "b"] * 50)
    merged = runs_of(y, s, g, [8, 16, 17, 100, 100])
    assert as_dict(merged.placements()) == brute_sums(y, s, g)


def test_delong_equals_rows():
    y, s, g = rows(20000, 3)
    runs = runs_of(y, s, g, [5000, 5001, 12000])
    got, ref = runs.delong(), fastfair.delong(y, s, g)
    assert got.groups.tolist() == ref.groups.tolist()
    for field in ("auc", "variance", "s10", "s01"):
        np.testing.assert_allclose(getattr(got, field), getattr(ref, field), rtol=1e-12)
    assert (got.n_pos == ref.n_pos).all() and (got.n_neg == ref.n_neg).all()
    res = runs.test(reference="a")
    want = fastfair.auc_test(y, s, g, method="delong", reference="a")
    np.testing.assert_allclose(res.pvalue, want.pvalue, rtol=1e-10)


def test_rounded_scores_agree_with_histograms():
    y, s, g = rows(8000, 4, decimals=3)
    hist = ScoreStats.from_arrays(y, s, g).delong()
    exact = runs_of(y, s, g, [3000]).delong()
    np.testing.assert_allclose(exact.auc, hist.auc, rtol=1e-12)
    np.testing.assert_allclose(exact.variance, hist.variance, rtol=1e-10)


def test_groups_missing_from_some_batches():
    y, s, g = rows(3000, 5)
    order = np.argsort(g, kind="stable")  # batches of one or two groups
    y, s, g = y[order], s[order], g[order]
    assert as_dict(runs_of(y, s, g, [500, 1900, 2500]).placements()) == as_dict(
        ScoreRuns.from_arrays(y, s, g).placements()
    )


def test_refuses_nan_and_infinite_scores():
    with pytest.raises(ValueError, match="y_score contains NaN"):
        ScoreRuns.from_arrays([0, 1], [0.5, np.nan], ["a", "a"])
    with pytest.raises(ValueError, match="y_score contains infinite"):
        ScoreRuns.from_arrays([0, 1], [0.5, np.inf], ["a", "a"])


def test_undefined_auc_is_refused():
    runs = ScoreRuns.from_arrays([1, 1, 0], [0.1, 0.2, 0.3], ["a", "a", "b"])
    with pytest.raises(ValueError, match="group 'a' has no negatives"):
        runs.delong()


def test_spill_gives_the_same_sums(tmp_path):
    y, s, g = rows(4000, 6)
    runs = runs_of(y, s, g, [1000, 2000])
    spilled = runs.spill(str(tmp_path))
    assert spilled.nbytes == 0 and runs.nbytes > 0
    more = spilled + ScoreRuns.from_arrays([0, 1], [0.25, 0.75], ["a", "a"])
    assert more.spill(str(tmp_path)).nbytes == 0
    assert as_dict(spilled.placements()) == as_dict(runs.placements())
    y2, s2 = np.r_[y, 0, 1], np.r_[s, 0.25, 0.75]
    g2 = np.concatenate([g, ["a", "a"]])
    assert as_dict(more.placements()) == brute_sums(y2, s2, g2)
    assert list(tmp_path.iterdir()) == []  # the files are unlinked once mapped


def test_followed_by_equals_one_sort_and_refuses_overlap():
    y, s, g = rows(3000, 7, decimals=2)
    order = np.argsort(s, kind="stable")
    y, s, g = y[order], s[order], g[order]
    cuts = np.searchsorted(s, [0.3, 0.31, 0.9])  # boundaries between distinct scores
    parts = [PlacementSums.from_arrays(y[p], s[p], g[p]) for p in np.split(np.arange(3000), cuts)
             if len(p)]  # fmt: skip
    chained = parts[0]
    for p in parts[1:]:
        chained = chained.followed_by(p)
    assert as_dict(chained) == brute_sums(y, s, g)
    with pytest.raises(ValueError, match="above the first's"):
        parts[1].followed_by(parts[0])


def test_followed_by_refuses_runs_that_share_their_edge_score():
    """A score that ends the first rows and starts the second is a tie across them (a
    positive and a negative at 0.5 count 1/2 each): the sums cannot be chained, so
    followed_by refuses; the rows sorted together give the sums (brute force)."""
    first = PlacementSums.from_arrays([0, 1], [0.1, 0.5], ["a", "a"])
    second = PlacementSums.from_arrays([0, 1], [0.5, 0.9], ["a", "a"])
    with pytest.raises(ValueError, match=r"above the first's, got 0\.5 after 0\.5"):
        first.followed_by(second)
    together = PlacementSums.from_arrays([0, 1, 0, 1], [0.1, 0.5, 0.5, 0.9], ["a"] * 4)
    assert as_dict(together) == brute_sums(
        np.array([0, 1, 0, 1]), np.array([0.1, 0.5, 0.5, 0.9]), np.array(["a"] * 4)
    )


def test_kernel_checks_its_inputs():
    one = np.ones((1, 1), dtype=np.int32)
    tot = np.zeros((1, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="same number of runs"):
        merge_placements([np.zeros(1)], [], one, 1, tot)
    with pytest.raises(ValueError, match=r"cell_groups must hold group codes in \[0, 1\)"):
        merge_placements([np.zeros(1)], [np.zeros(1, np.uint16)], one, 1, tot)
    with pytest.raises(ValueError, match="same length"):
        merge_placements([np.zeros(2)], [np.zeros(1, np.uint16)], one * 0, 1, tot)
    with pytest.raises(ValueError, match="beyond cell_groups"):
        merge_placements([np.zeros(1)], [np.array([2], np.uint16)], one * 0, 1, tot)


def test_a_row_in_several_attribute_groups():
    # cells (g1, g2) mapped to one group of each attribute: sums per attribute group
    rng = np.random.default_rng(8)
    n = 2000
    y, s = rng.integers(0, 2, n), np.round(rng.random(n), 2)
    g1, g2 = rng.integers(0, 3, n), rng.integers(0, 2, n)
    cell = g1 * 2 + g2
    cell_groups = np.array([[a, 3 + b] for a in range(3) for b in range(2)], dtype=np.int32)
    runs, codes, groups = [], [], np.column_stack([g1, 3 + g2])
    for part in np.array_split(np.arange(n), 4):
        o = part[np.argsort(s[part], kind="stable")]
        runs.append(s[o])
        codes.append((cell[o] * 2 + y[o]).astype(np.uint16))
    totals = np.array(
        [[((groups == k).any(axis=1) & (y == lab)).sum() for lab in (0, 1)] for k in range(5)]
    )
    lin, sq = merge_placements(runs, codes, cell_groups, 5, totals.astype(np.int64))
    ref1, ref2 = brute_sums(y, s, g1), brute_sums(y, s, 3 + g2)
    ref = {**ref1, **ref2}
    for k in range(5):
        assert (int(lin[k, 1]), int(lin[k, 0])) == (ref[k][2], ref[k][4])
        assert int(sq[k, 0]) + (int(sq[k, 1]) << 64) == ref[k][3]
        assert int(sq[k, 2]) + (int(sq[k, 3]) << 64) == ref[k][5]


def test_squares_beyond_64_bits():
    # one group, 2^17 negatives below 2^17 positives: sum of L^2 = 2^17 * (2^18)^2 = 2^53;
    # with 2^21 rows each side the sum is 2^21 * 2^44 = 2^65, past a uint64
    m = 1 << 21
    s = np.r_[np.zeros(m), np.ones(m)]
    y = np.r_[np.zeros(m, int), np.ones(m, int)]
    sums = runs_of(y, s, np.zeros(2 * m, int), [m // 2, 3 * m // 2]).placements()
    assert sums.pos_squares == (m * (2 * m) ** 2,)
    assert sums.neg_squares == (m * (2 * m) ** 2,)
    assert sums.delong().auc[0] == 1.0


def test_dask_sort_path_equals_memory():
    dd = pytest.importorskip("dask.dataframe")
    import fastfair.dask as fdask

    y, s, g = rows(6000, 9)
    frame = pd.DataFrame({"y": y, "s": s, "g": g})
    df = dd.from_pandas(frame, npartitions=6)
    got = fdask.placement_sums(df, "y", "s", "g", scheduler="sync")
    assert as_dict(got) == as_dict(ScoreRuns.from_arrays(y, s, g).placements())
    tied = frame.assign(s=np.round(s, 1))  # heavy ties: each tie block in one partition
    got = fdask.delong(dd.from_pandas(tied, npartitions=5), "y", "s", "g", scheduler="sync")
    np.testing.assert_allclose(got.auc, fastfair.delong(y, tied.s, g).auc, rtol=1e-12)


def test_all_tied_flags_a_constant_group_only():
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    s = np.array([0.5, 0.5, 0.5, 0.5, 0.1, 0.9, 0.4, 0.6])
    g = np.array(["flat"] * 4 + ["varied"] * 4)
    runs = runs_of(y, s, g, [3, 5])
    assert runs.all_tied().tolist() == [True, False]
    # equal L for every positive without ties is not "all tied": scores 0.2 < 0.4 < 0.6
    y2, s2 = np.array([0, 1, 0]), np.array([0.2, 0.4, 0.6])
    assert not PlacementSums.from_arrays(y2, s2, ["a"] * 3).all_tied()[0]


def test_one_merge_for_every_combination_equals_brute_force(tmp_path):
    # the arrow engine's runs coded by cell, numbered as cells appear (not sorted), merged
    # once for g1, g2 and g1 & g2: each combination's sums equal the brute force on its rows
    from fastfair.engines.attributes import CombinationScores

    rng = np.random.default_rng(9)
    n = 1500
    y, s = rng.integers(0, 2, n), np.round(rng.random(n), 2)  # ties within and across runs
    g1 = rng.choice(["b", "a", "c"], n)
    g2 = rng.choice([7, 3], n)
    cells = {}
    total = None
    for part in np.array_split(np.arange(n), 5):
        codes = [cells.setdefault((a, int(b)), len(cells)) for a, b in zip(g1[part], g2[part])]
        labels = np.empty(len(cells), dtype=object)
        labels[:] = list(cells)
        run = ScoreRuns.from_codes(y[part], s[part], np.array(codes), labels)
        one = CombinationScores(run, ["g1", "g2"], [("g1",), ("g2",), ("g1", "g2")])
        total = one if total is None else total + one
    assert list(cells) != sorted(cells)  # the cells are not in sorted order
    spilled = CombinationScores(total.runs.spill(str(tmp_path)), total.names, total.combos)
    # the rows of some groups of a combination, read back from the cell-coded runs
    got = total[("g1",)].rows(["c", "a"])
    keep = np.isin(g1, ["c", "a"])
    want = sorted(zip((g1[keep] == "a").astype(int), s[keep], y[keep]))
    assert sorted(zip(got[2], got[1], got[0])) == want
    with pytest.raises(ValueError, match="no group 'z'"):
        total[("g1",)].rows(["z"])
    assert as_dict(total[("g1",)].sums) == brute_sums(y, s, g1)
    assert as_dict(total[("g2",)].sums) == brute_sums(y, s, g2)
    both = np.array([cells[(a, int(b))] for a, b in zip(g1, g2)])  # tuples as codes
    by_code = brute_sums(y, s, both)
    assert as_dict(total[("g1", "g2")].sums) == {c: by_code[k] for c, k in cells.items()}
    assert total[("g1",)].labels.tolist() == ["a", "b", "c"]
    assert as_dict(spilled[("g1", "g2")].sums) == as_dict(total[("g1", "g2")].sums)
    assert total.runs.nbytes == 0  # merged once, then moved to a file
    rows_after = total[("g1", "g2")].rows([("a", 3)])  # still readable from the file
    assert len(rows_after[0]) == int(((g1 == "a") & (g2 == 3)).sum())


def test_merged_runs_span_their_lowest_and_highest_score():
    """The sums of several runs carry the lowest and highest score of all of them
    (``low``/``high``, what ``followed_by`` checks), whichever run holds each: here the
    second run is scored wholly below the first. Rows scored below every run chain before
    them; rows scored between the runs' lowest score and the first run's are refused."""
    y, s, g = rows(600, 4)
    top = s >= np.median(s)
    first, second = np.flatnonzero(top), np.flatnonzero(~top)
    idx = np.concatenate([first, second])
    sums = runs_of(y[idx], s[idx], g[idx], [len(first)]).placements()
    assert (sums.low, sums.high) == (s.min(), s.max())
    assert as_dict(sums) == brute_sums(y, s, g)
    low = np.array([s.min() - 2, s.min() - 1])
    below = PlacementSums.from_arrays([0, 1], low, ["a", "a"])
    both = below.followed_by(sums)
    assert as_dict(both) == brute_sums(
        np.r_[0, 1, y], np.r_[low, s], np.concatenate([["a", "a"], g])
    )
    middle = (s[second].max() + s[first].min()) / 2  # above s.min(): overlaps the rows
    with pytest.raises(ValueError, match="above the first's"):
        PlacementSums.from_arrays([0, 1], [middle, middle], ["a", "a"]).followed_by(sums)


def test_delong_from_placement_sums_of_two_positives_or_two_negatives_by_hand():
    # a: negatives 0.1, 0.4, 0.6 and positives 0.3, 0.7: V10 = (1/3, 1), V01 = (1, 1/2, 1/2)
    # b: negatives 0.2, 0.5 and positives 0.3, 0.5, 0.8 (a tie counts 1/2): V10 = (1/2, 3/4,
    # 1), V01 = (1, 1/2); s10 and s01 are their sample variances (ddof 1)
    s = [0.1, 0.4, 0.6, 0.3, 0.7, 0.2, 0.5, 0.3, 0.5, 0.8]
    y = [0, 0, 0, 1, 1, 0, 0, 1, 1, 1]
    g = ["a"] * 5 + ["b"] * 5
    got = PlacementSums.from_arrays(y, s, g).delong()
    np.testing.assert_allclose(got.s10, [2 / 9, 1 / 16], rtol=1e-14)
    np.testing.assert_allclose(got.s01, [1 / 12, 1 / 8], rtol=1e-14)
    np.testing.assert_allclose(got.variance, [2 / 9 / 2 + 1 / 12 / 3, 1 / 16 / 3 + 1 / 8 / 2])


def test_runs_code_exactly_max_run_groups_groups_and_refuse_one_more():
    from fastfair.engines.summaries import MAX_RUN_GROUPS

    rng = np.random.default_rng(5)
    y = np.tile([0, 1], MAX_RUN_GROUPS + 1)
    s = rng.permutation(y.size) / y.size  # distinct scores
    g = np.repeat(np.arange(MAX_RUN_GROUPS + 1), 2)  # one negative, one positive each
    keep = g < MAX_RUN_GROUPS
    sums = ScoreRuns.from_arrays(y[keep], s[keep], g[keep]).placements()
    above = 2 * (s[1::2] > s[0::2])[:MAX_RUN_GROUPS]  # L of the positive, M of the negative
    assert len(sums.labels) == MAX_RUN_GROUPS
    np.testing.assert_array_equal(np.asarray(sums.pos_sum, dtype=np.int64), above)
    np.testing.assert_array_equal(np.asarray(sums.neg_sum, dtype=np.int64), above)
    with pytest.raises(ValueError, match=f"at most {MAX_RUN_GROUPS:,} groups, got 32,769"):
        ScoreRuns.from_arrays(y, s, g)


def test_runs_labels_select_and_an_empty_summary():
    """ScoreRuns of two batches with different groups (merged, sorted labels): its labels
    are the sorted union, ``select`` of the last group alone has that group's pair sums
    counted by hand, its DeLong AUC is the pair count's, and a summary of no rows refuses
    to merge with the error saying so."""
    y, s, g = rows(300, 31, decimals=2)
    g = np.where(np.arange(300) < 150, np.where(g == "c", "a", g), g)  # "c" only in batch 2
    runs = ScoreRuns.from_arrays(y[:150], s[:150], g[:150]) + ScoreRuns.from_arrays(
        y[150:], s[150:], g[150:]
    )
    assert runs.labels.tolist() == ["a", "b", "c"]
    want = brute_sums(y, s, g)
    picked = runs.select(["c"])
    assert picked.labels.tolist() == ["c"]
    assert as_dict(picked) == {"c": want["c"]}
    n_neg, n_pos, big_l = want["c"][:3]
    assert runs.delong().auc[2] == pytest.approx(big_l / (2 * n_neg * n_pos), rel=1e-12)
    with pytest.raises(ValueError, match="the summary holds no rows"):
        ScoreRuns.from_arrays([], [], []).placements()
