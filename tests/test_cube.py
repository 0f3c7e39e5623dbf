"""ConfusionCube: confusion counts per combination of attribute levels, mergeable (#28).

Checked against an independent count (a dictionary of the rows' tuples): the cube of
batches added in any order equals the cube of all rows, and every marginal equals
ConfusionStats.from_arrays of the same columns.
"""

import itertools

import numpy as np
import pytest

from fastfair.stats import ConfusionCube, ConfusionStats


def _rows(rng, n, sizes):
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 2, n)
    groups = {f"a{j}": rng.choice([f"L{k}" for k in range(s)], n) for j, s in enumerate(sizes)}
    return y, p, groups


def _brute(y, p, groups, names) -> dict:
    """{tuple of levels: [TN, FP, FN, TP]} by a loop over the rows."""
    out: dict = {}
    for i in range(len(y)):
        key = tuple(groups[n][i] for n in names)
        out.setdefault(key, [0, 0, 0, 0])[2 * y[i] + p[i]] += 1
    return out


def _as_dict(stats: ConfusionStats, several: bool) -> dict:
    labels = stats.labels.tolist()
    return {(lab if several else (lab,)): c for lab, c in zip(labels, stats.counts.tolist())}


@pytest.mark.parametrize("sizes", [(3,), (3, 2), (4, 3, 2), (2,) * 8])
def test_batches_added_in_any_order_equal_the_rows(sizes):
    rng = np.random.default_rng(len(sizes))
    y, p, groups = _rows(rng, 3000, sizes)
    whole = ConfusionCube.from_arrays(y, p, groups)
    cuts = np.sort(rng.choice(np.arange(1, 3000), 5, replace=False))
    parts = [
        ConfusionCube.from_arrays(y[a:b], p[a:b], {n: g[a:b] for n, g in groups.items()})
        for a, b in itertools.pairwise([0, *cuts.tolist(), 3000])
    ]
    rng.shuffle(parts)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    assert total.names == whole.names
    for a, b in zip(total.levels, whole.levels):
        assert a.tolist() == b.tolist()
    assert np.array_equal(total.keys, whole.keys)
    assert np.array_equal(total.counts, whole.counts)
    names = list(groups)
    for size in range(1, min(len(names), 3) + 1):
        for combo in itertools.combinations(names, size):
            stats = total.confusion(list(combo))
            assert _as_dict(stats, size > 1) == _brute(y, p, groups, combo)
            direct = ConfusionStats.from_arrays(y, p, *(groups[n] for n in combo))
            assert stats.labels.tolist() == direct.labels.tolist()
            assert np.array_equal(stats.counts, direct.counts)


def test_many_levels_beyond_one_int64_key():
    """8 attributes of 300 levels: 300^8 > 2^62, the keys are kept as rows."""
    rng = np.random.default_rng(5)
    n = 2000
    y, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    groups = {f"a{j}": rng.integers(0, 300, n) for j in range(8)}
    cube = ConfusionCube.from_arrays(y[:900], p[:900], {k: v[:900] for k, v in groups.items()})
    rest = {k: v[900:] for k, v in groups.items()}
    cube = cube + ConfusionCube.from_arrays(y[900:], p[900:], rest)
    assert int(cube.counts.sum()) == n
    assert _as_dict(cube.confusion(["a3", "a0"]), True) == _brute(y, p, groups, ("a3", "a0"))
    assert cube.n_cells == len(_brute(y, p, groups, tuple(groups)))


def test_numeric_levels_marginal_and_frame():
    groups = {"age": [30, 20, 30, 40], "sex": [True, False, True, True]}
    cube = ConfusionCube.from_arrays([1, 0, 1, 1], [1, 1, 0, 1], groups)
    assert cube.confusion(["age"]).labels.tolist() == [20, 30, 40]
    assert cube.marginal(["sex", "age"]).names == ("sex", "age")
    frame = cube.to_frame()
    assert list(frame.columns) == ["age", "sex", "tn", "fp", "fn", "tp"]
    assert frame[["tn", "fp", "fn", "tp"]].to_numpy().sum() == 4
    assert "3 cells present, 4 rows" in repr(cube)


def test_empty_batch_adds_nothing():
    cube = ConfusionCube.from_arrays([1, 0], [1, 0], {"g": ["a", "b"]})
    none = np.zeros(0, dtype=np.intp)
    empty = ConfusionCube.from_codes(none.astype(np.uint8), [none], [np.array(["a"])], ["g"])
    assert empty.n_cells == 0
    total = empty + cube
    assert total.counts.tolist() == cube.counts.tolist()


def test_bad_input_is_named():
    cube = ConfusionCube.from_arrays([1, 0], [1, 0], {"g": ["a", "b"]})
    other = ConfusionCube.from_arrays([1, 0], [1, 0], {"h": ["a", "b"]})
    with pytest.raises(ValueError, match="different attributes"):
        cube + other
    with pytest.raises(ValueError, match="attributes of the cube"):
        cube.confusion(["nope"])
    with pytest.raises(TypeError, match="non-empty mapping"):
        ConfusionCube.from_arrays([1], [1], ["a"])
    with pytest.raises(ValueError, match="group column 'g'"):
        ConfusionCube.from_arrays([1, 0], [1, 0], {"g": ["a", None]})
    with pytest.raises(ValueError, match="same length"):
        ConfusionCube.from_arrays([1, 0], [1, 0], {"g": ["a", "b", "c"]})


def test_frame_has_each_cells_levels_and_counts_by_hand():
    """to_frame: one row per cell present, its levels in the attribute columns and its
    TN, FP, FN, TP under those names, each equal to a count of the rows by hand (a cube
    of several batches, one attribute's level present in one batch only)."""
    rng = np.random.default_rng(9)
    y, p, groups = _rows(rng, 400, (3, 2))
    groups["a1"][300:] = "L9"  # a level of the last batch only
    cube = ConfusionCube.from_arrays(y[:300], p[:300], {n: g[:300] for n, g in groups.items()})
    cube = cube + ConfusionCube.from_arrays(
        y[300:], p[300:], {n: g[300:] for n, g in groups.items()}
    )
    frame = cube.to_frame()
    assert list(frame.columns) == ["a0", "a1", "tn", "fp", "fn", "tp"]
    want = _brute(y, p, groups, ("a0", "a1"))
    got = {(r.a0, r.a1): [r.tn, r.fp, r.fn, r.tp] for r in frame.itertuples(index=False)}
    assert got == want
    assert len(frame) == len(want) == cube.n_cells
    marginal = cube.marginal(["a1"]).to_frame()
    assert {r.a1: [r.tn, r.fp, r.fn, r.tp] for r in marginal.itertuples(index=False)} == {
        k[0]: v for k, v in _brute(y, p, groups, ("a1",)).items()
    }


def test_levels_no_row_uses_are_dropped_and_the_codes_renumbered():
    """A batch coded against a longer list of levels (an engine's dictionary: GroupCodes
    whose labels some batch lacks) keeps only the levels its rows use, the others' codes
    renumbered; its cells, and its sum with another batch, equal a count by hand."""
    from fastfair._validation import GroupCodes

    y = np.array([1, 0, 1, 1, 0, 1])
    p = np.array([1, 1, 0, 1, 0, 0])
    sex = np.array(["F", "M", "M", "F", "M", "F"])
    levels = np.array(["a", "b", "c", "d", "e"], dtype=object)
    codes = np.array([1, 3, 4, 3, 1, 4])  # a and c unused
    groups = {"race": GroupCodes(codes, levels), "sex": sex}
    cube = ConfusionCube.from_arrays(y, p, groups)
    assert cube.levels[0].tolist() == ["b", "d", "e"]
    plain = {"race": levels[codes], "sex": sex}
    want = _brute(y, p, plain, ("race", "sex"))
    assert _as_dict(cube.confusion(), True) == want
    other = ConfusionCube.from_arrays([0, 1], [1, 1], {"race": ["a", "e"], "sex": ["M", "F"]})
    total = other + cube
    assert total.levels[0].tolist() == ["a", "b", "d", "e"]
    both = {"race": np.r_[["a", "e"], levels[codes]], "sex": np.r_[["M", "F"], sex]}
    assert _as_dict(total.confusion(), True) == _brute(
        np.r_[0, 1, y], np.r_[1, 1, p], both, ("race", "sex")
    )


def test_an_attribute_named_twice_is_refused():
    cube = ConfusionCube.from_arrays([1, 0], [1, 0], {"g": ["a", "b"], "h": ["x", "y"]})
    for names in (["g", "g"], ["h", "g", "h"]):
        with pytest.raises(ValueError, match="must be distinct attributes of the cube"):
            cube.marginal(names)
        with pytest.raises(ValueError, match="must be distinct attributes of the cube"):
            cube.confusion(names)
    with pytest.raises(TypeError, match="non-empty list of attributes"):
        cube.marginal("g")
    with pytest.raises(TypeError, match="non-empty list of attributes"):
        cube.marginal([])


def test_audit_summaries_of_two_batches_add_to_the_summary_of_all_rows():
    """summarise_rows of two different batches, added: the cube and every combination's
    score counts equal those of all the rows at once (the second batch's own scores, not
    the first's twice), and a prediction is score >= threshold."""
    from fastfair.engines.attributes import summarise_rows

    rng = np.random.default_rng(4)
    y, score = rng.integers(0, 2, 90), rng.integers(0, 10, 90) / 10
    groups = {"sex": rng.choice(["F", "M"], 90), "race": rng.choice(["x", "y", "z"], 90)}
    combos = [("sex",), ("sex", "race")]

    def summary(rows):
        part = {n: g[rows] for n, g in groups.items()}
        return summarise_rows(y[rows], None, score[rows], part, combos=combos, threshold=0.6)

    total = summary(slice(0, 30)) + summary(slice(30, 90))
    whole = summary(slice(0, 90))
    pred = (score >= 0.6).astype(int)
    assert _as_dict(total.confusion(["sex", "race"]), True) == _brute(
        y, pred, groups, ("sex", "race")
    )
    for combo in combos:
        a, b = total.scores[combo], whole.scores[combo]
        assert a.labels.tolist() == b.labels.tolist()
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.counts, b.counts)
    alone = summarise_rows(y, None, score, groups, threshold=0.6)  # default: each alone
    assert list(alone.scores) == [("sex",), ("race",)]


def test_unused_levels_between_used_ones_keep_each_cell_its_own_level():
    """Levels no row uses in the middle and at the end of an engine's dictionary (the first
    level used): each cell keeps its own level and counts, equal to a count of the rows by
    hand, alone and added to a cube of other rows. Written for practice mutant
    pprac5-cube-compact-offby1 (the renumbering off by one where level 0 is used)."""
    from fastfair._validation import GroupCodes

    y = np.array([1, 0, 1, 1, 0, 1, 0])
    p = np.array([1, 1, 0, 1, 0, 0, 0])
    levels = np.array(["a", "b", "c", "d", "e"], dtype=object)
    codes = np.array([0, 2, 0, 3, 2, 3, 0])  # b and e unused
    cube = ConfusionCube.from_arrays(y, p, {"g": GroupCodes(codes, levels)})
    assert cube.levels[0].tolist() == ["a", "c", "d"]
    want = _brute(y, p, {"g": levels[codes]}, ("g",))
    assert _as_dict(cube.confusion(["g"]), False) == want
    frame = cube.to_frame()
    assert {(r.g,): [r.tn, r.fp, r.fn, r.tp] for r in frame.itertuples(index=False)} == want
    other = ConfusionCube.from_arrays([1, 0], [0, 0], {"g": ["b", "d"]})
    both = _brute(np.r_[y, 1, 0], np.r_[p, 0, 0], {"g": np.r_[levels[codes], ["b", "d"]]},
                  ("g",))  # fmt: skip
    assert _as_dict((cube + other).confusion(["g"]), False) == both


def test_merged_numeric_labels_keep_their_type_and_values():
    """Summaries of integer groups with different groups merge to the labels of all the
    rows at once, as integers (the dtype np.unique gives the rows), and an integer summary
    merged with a float one keeps every distinct value (1.5 is not truncated to 1).
    Written for practice mutant pprac5-merge-labels-dtype."""
    a = ConfusionStats.from_arrays([1, 0, 1], [1, 0, 0], [3, 1, 3])
    b = ConfusionStats.from_arrays([0, 1], [1, 1], [2, 3])
    whole = ConfusionStats.from_arrays([1, 0, 1, 0, 1], [1, 0, 0, 1, 1], [3, 1, 3, 2, 3])
    merged = a + b
    assert merged.labels.tolist() == np.unique([3, 1, 3, 2, 3]).tolist() == [1, 2, 3]
    assert merged.labels.dtype == whole.labels.dtype == np.unique(np.array([3, 1])).dtype
    np.testing.assert_array_equal(merged.counts, whole.counts)
    c = ConfusionStats.from_arrays([1, 1], [1, 0], [1.5, 2.0])
    mixed = a + c
    assert mixed.labels.tolist() == [1, 1.5, 2.0, 3]
    assert mixed.counts.sum(axis=1).tolist() == [1, 1, 1, 2]


def test_a_cube_of_no_rows_has_empty_marginals():
    """A batch of no rows: its marginal and confusion counts are empty (no cell, no label),
    and ConfusionStats needs a group column."""
    none = np.zeros(0, dtype=np.intp)
    empty = ConfusionCube.from_codes(
        none.astype(np.uint8), [none, none], [np.array(["a"]), np.array(["x"])], ["g", "h"]
    )
    assert repr(empty) == "ConfusionCube(g (0), h (0): 0 cells present, 0 rows)"  # levels unused
    marginal = empty.marginal(["h"])
    assert marginal.n_cells == 0 and marginal.names == ("h",)
    stats = empty.confusion(["g"])
    assert stats.labels.tolist() == [] and stats.counts.shape == (0, 4)
    with pytest.raises(TypeError, match="give at least one group column"):
        ConfusionStats.from_arrays([1, 0], [1, 1])
