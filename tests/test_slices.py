"""find_slices against brute-force enumeration on rows, row-level permutations, definitions."""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from fastfair._slices import slice_null, slice_null_dense
from scipy import stats

import fastfair
from fastfair._metrics import get_metric
from fastfair._pvalues import max_exceedance_pvalues
from fastfair._random import stream_key
from fastfair.slices import ingest, statistics
from fastfair.slices.inference import (
    adjust_family,
    benjamini_yekutieli,
    exact_pvalues,
    rate_parts,
    simultaneous_intervals,
    standardize,
)


def small_data(n=300, seed=0, gap=0.0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 2  # correlated with a
    c = rng.integers(0, 4, n)
    y = (rng.random(n) < 0.5).astype(int)
    p = np.where((a == 1) & (c == 2), 0.7 - gap, 0.7)
    pred = np.where(y == 1, rng.random(n) < p, rng.random(n) < 0.3).astype(int)
    return {"a": a, "b": b, "c": c}, y, pred


def family_of(features, y, pred, metric="tpr", max_depth=2, min_size=10):
    """The family of find_slices, through its layers (what the public call tests)."""
    options = ingest.check_options(metric, max_depth, min_size, 99, "maxT", 0.05, "two-sided",
                                   4, 50, 10**6)  # fmt: skip
    coded = ingest.code_features(features, options)
    n_levels = [len(x) for x in coded.levels]
    cube = statistics.build_cube(coded.codes, n_levels, y, pred)
    lattice = statistics.enumerate_slices(cube, n_levels, max_depth)
    chosen = get_metric(metric)
    num, den = chosen.num_masks[0], chosen.den_masks[0]
    succ, units = rate_parts(lattice.counts, num, den)
    cs, cu = rate_parts(cube.counts, num, den)
    size = lattice.counts.sum(axis=1)
    testable = (size >= min_size) & (units > 0) & (units < cu.sum())
    index = np.flatnonzero(testable)
    fam = standardize(index, succ[index], units[index], int(cs.sum()), int(cu.sum()))
    renumber = np.where(testable, np.cumsum(testable) - 1, -1).astype(np.int32)
    return coded, cube, lattice, fam, np.ascontiguousarray(renumber[lattice.cell_map]), cu


def brute_force_slices(features, y, pred, max_depth, min_size, unit_mask, success_mask):
    """Every slice by boolean masks on the rows: {predicates: (successes, units, rows)}."""
    names = list(features)
    out = {}
    for d in range(1, max_depth + 1):
        for combo in itertools.combinations(names, d):
            for levels in itertools.product(*[np.unique(features[k]) for k in combo]):
                mask = np.ones(y.size, bool)
                for k, v in zip(combo, levels):
                    mask &= features[k] == v
                if mask.sum() < min_size:
                    continue
                units = mask & unit_mask
                out[tuple(zip(combo, levels))] = (
                    int((units & success_mask).sum()),
                    int(units.sum()),
                    int(mask.sum()),
                )
    return out


def pooled_z(x, n, k, big_n):
    """Pooled two-sample z of slice vs complement, times sqrt((N - 1) / N)."""
    p1, p2, p = x / n, (k - x) / (big_n - n), k / big_n
    z = (p1 - p2) / math.sqrt(p * (1 - p) * (1 / n + 1 / (big_n - n)))
    return z * math.sqrt((big_n - 1) / big_n)


def test_slices_equal_brute_force_enumeration():
    features, y, pred = small_data()
    coded, _cube, lattice, fam, _, _ = family_of(features, y, pred, max_depth=3)
    brute = brute_force_slices(features, y, pred, 3, 10, y == 1, pred == 1)
    brute = {k: v for k, v in brute.items() if 0 < v[1] < (y == 1).sum()}
    ours = {}
    for r, s in enumerate(fam.index):
        feats = lattice.sets[lattice.slice_set[s]]
        key = tuple((coded.names[f], coded.levels[f][lattice.slice_levels[s, i]])
                    for i, f in enumerate(feats))  # fmt: skip
        ours[key] = (int(fam.successes[r]), int(fam.units[r]), float(fam.statistic[r]))
    assert set(ours) == set(brute)
    k, big_n = int(((y == 1) & (pred == 1)).sum()), int((y == 1).sum())
    for key, (x, n, _) in brute.items():
        assert ours[key][:2] == (x, n)
        assert ours[key][2] == pytest.approx(pooled_z(x, n, k, big_n), rel=1e-12)


def test_exact_pvalues_by_enumeration():
    features, y, pred = small_data(n=200, seed=3, gap=0.3)
    _, _, _, fam, _, _ = family_of(features, y, pred)
    for alternative in ("two-sided", "greater", "less"):
        ours = exact_pvalues(fam, alternative)
        for r in range(fam.index.size):
            n, x = int(fam.units[r]), int(fam.successes[r])
            support = np.arange(0, n + 1)
            pmf = stats.hypergeom.pmf(support, fam.n_units, fam.n_successes, n)
            mu = n * fam.n_successes / fam.n_units
            if alternative == "two-sided":
                extreme = np.abs(support - mu) >= abs(x - mu) - 1e-9
            elif alternative == "greater":
                extreme = support >= x
            else:
                extreme = support <= x
            assert ours[r] == pytest.approx(min(1.0, pmf[extreme].sum()), rel=1e-9, abs=1e-15)


def row_level_null(features, y, pred, fam, lattice, coded, n_perm, seed):
    """Each tested slice's statistic under permutations of the predictions among y = 1 rows."""
    rng = np.random.default_rng(seed)
    masks = []
    for s in fam.index:
        feats = lattice.sets[lattice.slice_set[s]]
        mask = np.ones(y.size, bool)
        for i, f in enumerate(feats):
            mask &= features[coded.names[f]] == coded.levels[f][lattice.slice_levels[s, i]]
        masks.append(mask[y == 1])
    masks = np.array(masks)
    positives = pred[y == 1].copy()
    out = np.empty((n_perm, fam.index.size))
    for b in range(n_perm):
        rng.shuffle(positives)
        x = masks @ positives
        out[b] = (x - fam.mean) * fam.inv_sd
    return out


def test_cube_null_has_the_distribution_of_row_permutations():
    features, y, pred = small_data(n=400, seed=5)
    coded, _cube, lattice, fam, kmap, cell_units = family_of(features, y, pred)
    n_perm = 4000
    threshold = np.full(fam.index.size, np.inf)
    maxima, _, null = slice_null(cell_units, fam.n_successes, kmap, fam.mean, fam.inv_sd,
                                 threshold, 0, n_perm, stream_key(1), 0, 1, 0, True)  # fmt: skip
    rows = np.abs(row_level_null(features, y, pred, fam, lattice, coded, n_perm, 2))
    assert np.array_equal(maxima, null.max(axis=1))
    # same law of the maximum (what max-T reads), and of each slice's statistic
    assert stats.ks_2samp(maxima, rows.max(axis=1)).pvalue > 1e-3
    assert stats.ks_2samp(null[:, 0], rows[:, 0]).pvalue > 1e-3
    # the slices' statistics are standardized: mean of z^2 is 1 within Monte-Carlo error
    assert np.abs((null**2).mean(axis=0) - 1).max() < 6 * math.sqrt(2 / n_perm) * 2
    # overlapping slices are correlated as on the rows (joint law, not only marginals)
    cube_corr = np.corrcoef(null[:, :6].T)
    row_corr = np.corrcoef(rows[:, :6].T)
    assert np.abs(cube_corr - row_corr).max() < 0.1


def test_maxt_pvalues_match_a_row_level_permutation_test():
    features, y, pred = small_data(n=600, seed=8, gap=0.25)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2, min_size=10,
                               n_permutations=1999, random_state=4)  # fmt: skip
    coded, _, lattice, fam, _, _ = family_of(features, y, pred)
    rows = np.abs(row_level_null(features, y, pred, fam, lattice, coded, 1999, 9))
    maxima = rows.max(axis=1)
    for s in res.slices:
        expected = (1 + np.sum(maxima >= abs(s.statistic) - 1e-9)) / 2000
        se = math.sqrt(max(expected * (1 - expected), 1e-3) / 1999)
        assert abs(max(expected, s.pvalue) - s.pvalue_adjusted) <= 4 * se + 1e-3


def test_planted_slice_is_found_with_its_parents():
    features, y, pred = small_data(n=6000, seed=1, gap=0.35)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2,
                               random_state=0)  # fmt: skip
    top = res.slices[0]
    assert top.predicates == (("a", 1), ("c", 2))
    mask = (features["a"] == 1) & (features["c"] == 2)
    inside, outside = mask & (y == 1), ~mask & (y == 1)
    assert top.value == pred[inside].mean()
    assert top.complement_value == pred[outside].mean()
    assert top.size == mask.sum() and top.n == inside.sum()
    parents = dict(top.parent_values)
    assert parents["a = 1"] == pred[(features["a"] == 1) & (y == 1)].mean()
    assert parents["c = 2"] == pred[(features["c"] == 2) & (y == 1)].mean()
    lower, upper = top.confidence_interval
    assert lower < top.difference < upper < 0
    for row in (res.to_frame().iloc[0], top.to_frame().iloc[0], res.to_dict()["slices"][0]):
        assert (row["value"], row["complement_value"]) == (
            pred[inside].mean(), pred[outside].mean())  # fmt: skip
        assert row["difference"] == pytest.approx(pred[inside].mean() - pred[outside].mean())
        assert (row["size"], row["n"], row["lower"], row["upper"]) == (
            mask.sum(), inside.sum(), lower, upper)  # fmt: skip


def test_no_slice_under_the_null_is_rare_and_ci_multiplier_is_maxt_quantile():
    features, y, pred = small_data(n=2000, seed=2)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=3, min_size=20,
                               random_state=1)  # fmt: skip
    assert res.pvalue > 0.05 and res.slices == ()
    # the critical value lies between one slice's two-sided normal quantile and Bonferroni's
    assert 1.96 < res.critical_value < stats.norm.isf(0.025 / res.n_slices)
    assert 1 < res.effective_n_slices < res.n_slices


def test_benjamini_yekutieli_from_its_definition():
    rng = np.random.default_rng(0)
    p = rng.random(40) ** 3
    m = p.size
    c_m = sum(1 / i for i in range(1, m + 1))
    order = np.argsort(p)
    expected = np.empty(m)
    for rank, i in enumerate(order, start=1):
        expected[i] = min(1.0, min(p[order[j - 1]] * m * c_m / j for j in range(rank, m + 1)))
    assert np.allclose(benjamini_yekutieli(p), expected)


def test_adjustments_agree_on_a_strong_slice_and_bonferroni_is_exact():
    features, y, pred = small_data(n=6000, seed=1, gap=0.35)
    by = fastfair.find_slices(None, y, pred, features=features, max_depth=2, adjust="by")
    bonf = fastfair.find_slices(None, y, pred, features=features, max_depth=2,
                                adjust="bonferroni")  # fmt: skip
    assert by.slices[0].predicates == bonf.slices[0].predicates == (("a", 1), ("c", 2))
    for s in bonf.slices:
        assert s.pvalue_adjusted == pytest.approx(min(1.0, s.pvalue * bonf.n_slices))
    assert bonf.critical_value == pytest.approx(stats.norm.isf(0.025 / bonf.n_slices))


@pytest.mark.parametrize("metric", ["fpr", "ppv", "selection_rate", "accuracy"])
def test_other_metrics_count_their_own_rows(metric):
    features, y, pred = small_data(n=3000, seed=4, gap=0.4)
    unit = {"fpr": y == 0, "ppv": pred == 1, "selection_rate": y >= 0, "accuracy": y >= 0}
    success = {"fpr": pred == 1, "ppv": y == 1, "selection_rate": pred == 1,
               "accuracy": y == pred}  # fmt: skip
    _coded, _, _lattice, fam, _, _ = family_of(features, y, pred, metric=metric)
    brute = brute_force_slices(features, y, pred, 2, 10, unit[metric], success[metric])
    total_units = int(unit[metric].sum())
    brute = {k: v[:2] for k, v in brute.items() if 0 < v[1] < total_units}
    assert sorted(zip(fam.successes.tolist(), fam.units.tolist())) == sorted(brute.values())


def test_numeric_features_are_binned_and_missing_is_a_level():
    rng = np.random.default_rng(0)
    n = 4000
    age = rng.uniform(18, 80, n)
    region = rng.choice(np.array(["n", "s", "e", None], dtype=object), n)
    y = rng.integers(0, 2, n)
    pred = rng.integers(0, 2, n)
    res = fastfair.find_slices(None, y, pred, features={"age": age, "region": region},
                               max_depth=1, alpha=0.999, random_state=0)  # fmt: skip
    edges = res.bins["age"]
    assert np.allclose(edges, np.quantile(age, [0, 0.25, 0.5, 0.75, 1]))
    levels = {p[0][1] for p in (s.predicates for s in res.slices)}
    assert "missing" in levels and any(str(x).startswith("[") for x in levels)
    missing = next(s for s in res.slices if s.predicates == (("region", "missing"),))
    assert missing.size == int(sum(v is None for v in region))


def test_threads_give_identical_results():
    features, y, pred = small_data(n=5000, seed=6, gap=0.2)
    from fastfair import _parallel

    with _parallel.force_parallel():
        runs = [
            fastfair.find_slices(None, y, pred, features=features, max_depth=3, min_size=5,
                                 random_state=3, n_jobs=k).to_dict()
            for k in (1, 2, 3)
        ]  # fmt: skip
    assert runs[0] == runs[1] == runs[2]


def test_bad_input_gets_clear_errors():
    features, y, pred = small_data()
    many = {"id": np.arange(y.size).astype(str)}
    with pytest.raises(ValueError, match="max_levels=50: group its rare levels or bin"):
        fastfair.find_slices(None, y, pred, features=many)
    with pytest.raises(ValueError, match="no slice has min_size=1000 rows"):
        fastfair.find_slices(None, y, pred, features=features, min_size=1000)
    wide = {f"f{k}": np.arange(y.size) % 10 for k in range(12)}
    with pytest.raises(ValueError, match=r"may give up to [\d,]+ slices .*more than max_slices"):
        fastfair.find_slices(None, y, pred, features=wide, max_depth=6, bins=10,
                             max_slices=10**5)  # fmt: skip
    with pytest.raises(ValueError, match="exactly one of y_pred and y_score"):
        fastfair.find_slices(None, y, features=features)
    with pytest.raises(ValueError, match="adjust must be one of"):
        fastfair.find_slices(None, y, pred, features=features, adjust="holm")
    with pytest.raises(ValueError, match="no slice can differ"):
        fastfair.find_slices(None, y, np.ones_like(pred), features=features)
    with pytest.raises(ValueError, match="tests several rates jointly"):
        fastfair.find_slices(None, y, pred, features=features, metric="equalized_odds")


def test_docs_example(capsys):
    """docs/slices.md: the example's printed result is the one the page shows."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "slices.md").read_text()
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", text, re.S)[:2]
    namespace = {}
    exec(compile(code, "docs/slices.md", "exec"), namespace)
    assert capsys.readouterr().out == shown
    parents = sorted(round(v, 3) for _, v in namespace["res"].slices[0].parent_values)
    assert parents == [0.65, 0.679, 0.681]  # quoted in the page


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_dense_walk_equals_the_map_of_each_set(max_depth):
    """The two aggregations of the same draws give the same sums, hence the same results."""
    features, y, pred = small_data(n=3000, seed=7, gap=0.2)
    features = {**features, "d": np.random.default_rng(1).integers(0, 5, 3000)}
    coded, cube, lattice, fam, kmap, cell_units = family_of(
        features, y, pred, max_depth=max_depth, min_size=5
    )
    renumber = np.full(lattice.slice_set.size, -1, dtype=np.int32)
    renumber[fam.index] = np.arange(fam.index.size)
    layout = statistics.tree_layout(cube, [len(x) for x in coded.levels], lattice, renumber)
    threshold = np.abs(fam.statistic) * 0.5
    key = stream_key(5)
    maxima, exceed, _ = slice_null(cell_units, fam.n_successes, kmap, fam.mean, fam.inv_sd,
                                   threshold, 0, 300, key, 0, 1)  # fmt: skip
    dense = slice_null_dense(cell_units, fam.n_successes, layout.cell_index, layout.levels,
                             max_depth, layout.leaf_offset, layout.leaf_map, fam.mean,
                             fam.inv_sd, threshold, 0, 300, key, 0, 2)  # fmt: skip
    assert np.array_equal(maxima, dense[0]) and np.array_equal(exceed, dense[1])


def test_find_slices_is_the_same_on_either_aggregation(monkeypatch):
    features, y, pred = small_data(n=4000, seed=9, gap=0.3)
    first = fastfair.find_slices(None, y, pred, features=features, random_state=2).to_dict()
    monkeypatch.setattr(statistics, "DENSE_LIMIT", 1)
    second = fastfair.find_slices(None, y, pred, features=features, random_state=2).to_dict()
    assert first == second


def test_subset_draws_have_the_multivariate_hypergeometric_law():
    """Both draws of the cells' successes against the law's moments and each other."""
    units = np.array([5, 7, 3, 9, 6, 1, 0, 4], dtype=np.int64)
    n_cells, big_n = units.size, int(units.sum())
    cells = np.ascontiguousarray(np.arange(n_cells, dtype=np.int32)[None, :])
    zeros, ones = np.zeros(n_cells), np.ones(n_cells)
    for k in (12, 27):  # fewer successes, and fewer failures (the complement is drawn)
        draws = {}
        for subset in (False, True):
            _, _, x = slice_null(units, k, cells, zeros, ones, np.full(n_cells, np.inf), 1,
                                 20_000, stream_key(3), 0, 1, 0, True, subset)  # fmt: skip
            assert np.array_equal(x.sum(axis=1), np.full(x.shape[0], k))
            p = units / big_n
            cov = k * (big_n - k) / (big_n - 1) * (np.diag(p) - np.outer(p, p))
            assert np.allclose(x.mean(axis=0), k * p, atol=5 * np.sqrt(cov.diagonal().max() / 2e4))
            assert np.allclose(np.cov(x.T), cov, atol=0.08 * cov.diagonal().max())
            draws[subset] = x
        for j in range(n_cells - 2):
            assert stats.ks_2samp(draws[False][:, j], draws[True][:, j]).pvalue > 1e-4


def _cube_of_batches(features, y, pred, cuts):
    """The ConfusionCube of the rows, built from batches (in a shuffled order) and added."""
    from fastfair.stats import ConfusionCube

    edges = [0, *cuts, len(y)]
    parts = [
        ConfusionCube.from_arrays(
            y[lo:hi], pred[lo:hi], {k: v[lo:hi] for k, v in features.items()}
        )
        for lo, hi in itertools.pairwise(edges)
    ]
    cube = parts[2]
    for part in (parts[0], parts[3], parts[1]):
        cube = cube + part
    return cube


@pytest.mark.parametrize(("metric", "adjust", "alpha"), [("tpr", "maxT", 0.05), ("ppv", "by", 0.9),
                                                         ("accuracy", "maxT", 0.5)])  # fmt: skip
def test_from_cube_equals_rows_for_any_batches(metric, adjust, alpha):
    """find_slices_from_cube on a cube added from 4 batches = find_slices on the rows:
    the same slices, statistics, intervals and p-values under the same random_state; a
    numeric feature binned before the cube (pandas.cut with fixed edges, as documented)."""
    pd = pytest.importorskip("pandas")
    features, y, pred = small_data(n=3000, seed=5, gap=0.3)
    rng = np.random.default_rng(1)
    age = rng.normal(40, 12, y.size)
    features["age"] = np.asarray(pd.cut(age, [-np.inf, 30, 45, np.inf],
                                        labels=["<30", "30-45", ">=45"]).astype(str))  # fmt: skip
    features["region"] = np.array(["north", "south", "east"])[features["c"] % 3]
    kw = dict(metric=metric, adjust=adjust, alpha=alpha, max_depth=3, min_size=40,
              n_permutations=199, random_state=7)  # fmt: skip
    rows = fastfair.find_slices(None, y, pred, features=features, **kw)
    cube = _cube_of_batches(features, y, pred, [700, 1500, 2999])
    got = fastfair.find_slices_from_cube(cube, **kw)
    assert len(rows.slices) > 0
    assert got.n_slices == rows.n_slices and got.n_cells == rows.n_cells
    assert got.n_rows == rows.n_rows == y.size
    assert got.statistic == rows.statistic and got.pvalue == rows.pvalue
    assert got.critical_value == rows.critical_value
    assert got.effective_n_slices == rows.effective_n_slices
    assert [s.description for s in got.slices] == [s.description for s in rows.slices]
    pd.testing.assert_frame_equal(got.to_frame(), rows.to_frame())


def test_slices_with_no_unit_or_every_unit_of_the_rate_are_not_tested():
    rng = np.random.default_rng(5)
    y = (rng.random(400) < 0.4).astype(int)
    pred = (rng.random(400) < 0.5).astype(int)
    h = np.where(y == 1, "p", rng.choice(["p", "q"], 400))  # h = q: no positive, h = p: all
    f = rng.choice(["a", "b"], 400)
    kw = dict(metric="tpr", max_depth=1, min_size=10, n_permutations=99, random_state=0)
    res = fastfair.find_slices(None, y, pred, features={"f": f, "h": h}, **kw)
    assert (res.n_slices, res.n_untestable, res.n_small) == (2, 2, 0)
    assert {s.description for s in res.slices} <= {"f = a", "f = b"}


def test_from_cube_features_subset_and_errors():
    features, y, pred = small_data(n=2000, seed=3, gap=0.3)
    cube = _cube_of_batches(features, y, pred, [500, 1000, 1500])
    kw = dict(max_depth=2, min_size=20, n_permutations=99, random_state=2)
    rows = fastfair.find_slices(None, y, pred, features={"a": features["a"], "c": features["c"]},
                                **kw)  # fmt: skip
    got = fastfair.find_slices_from_cube(cube, features=["a", "c"], **kw)
    assert got.to_dict() == rows.to_dict()
    with pytest.raises(ValueError, match="not attributes of the cube"):
        fastfair.find_slices_from_cube(cube, features=["a", "zzz"])
    with pytest.raises(ValueError, match="max_levels=3: bin it"):
        fastfair.find_slices_from_cube(cube, max_levels=3)
    with pytest.raises(TypeError, match="ConfusionCube"):
        fastfair.find_slices_from_cube({"a": [1, 2]})


def test_a_max_depth_beyond_the_number_of_features_searches_every_combination():
    features, y, pred = small_data(n=2000, seed=3, gap=0.3)
    two = {"a": features["a"], "c": features["c"]}  # 3 and 4 levels: 3 + 4 + 12 slices
    kw = dict(min_size=20, n_permutations=99, random_state=2)
    for adjust in ("maxT", "by"):
        deep = fastfair.find_slices(None, y, pred, features=two, adjust=adjust, **kw).to_dict()
        full = fastfair.find_slices(None, y, pred, features=two, adjust=adjust, max_depth=2, **kw)
        assert deep["n_slices"] == 19 and deep["max_depth"] == 3
        assert {**deep, "max_depth": 2} == full.to_dict()


def test_features_with_exactly_max_levels_levels_are_searched_from_rows_and_cubes():
    features, y, pred = small_data(n=2000, seed=3, gap=0.3)  # c: 4 levels, a: 3
    kw = dict(max_depth=2, min_size=20, n_permutations=99, random_state=2, max_levels=4)
    rows = fastfair.find_slices(None, y, pred, features=features, **kw)
    batches = _cube_of_batches(features, y, pred, [500, 1000, 1500])
    cube = fastfair.find_slices_from_cube(batches, **kw)
    assert cube.to_dict() == rows.to_dict() and rows.n_slices > 0
    text = {"c": np.array(["w", "x", "y", "z"])[features["c"]]}  # 4 levels, then 5 with None
    assert fastfair.find_slices(None, y, pred, features=text, **kw).n_slices == 4
    text["c"] = np.where(features["a"] == 0, None, text["c"]).astype(object)
    with pytest.raises(ValueError, match="has 5 levels, more than max_levels=4"):
        fastfair.find_slices(None, y, pred, features=text, **kw)


def test_max_slices_allows_a_search_of_exactly_that_many_slices():
    features, y, pred = small_data(n=2000, seed=3)
    two = {"a": features["a"], "c": features["c"]}  # at most 3 + 4 + 3 * 4 = 19 slices
    kw = dict(max_depth=2, min_size=20, n_permutations=99, random_state=2)
    assert fastfair.find_slices(None, y, pred, features=two, max_slices=19, **kw).n_slices == 19
    with pytest.raises(ValueError, match="may give up to 19 slices"):
        fastfair.find_slices(None, y, pred, features=two, max_slices=18, **kw)


def test_a_numeric_feature_is_binned_only_with_more_distinct_values_than_bins():
    features, y, pred = small_data(n=2000, seed=3)
    kw = dict(max_depth=1, min_size=20, n_permutations=99, random_state=2, bins=4)
    four = features["c"] / 2.0  # 0, 0.5, 1, 1.5: as many values as bins, kept as levels
    res = fastfair.find_slices(None, y, pred, features={"x": four}, **kw)
    assert res.bins == {} and res.n_slices == 4
    five = np.where(features["a"] == 0, 2.0, four)  # 5 values: cut at the quantiles
    assert "x" in fastfair.find_slices(None, y, pred, features={"x": five}, **kw).bins


@pytest.mark.parametrize("b, alpha", [(19, 0.1), (99, 0.05), (200, 0.05), (37, 0.2), (19, 0.05)])
def test_maxt_critical_value_is_where_the_maxt_pvalue_crosses_alpha(b, alpha):
    """The max-T critical value c: a statistic t is rejected (adjusted p-value
    (1 + #{M_b >= t}) / (1 + B) <= alpha) exactly when t > c."""
    rng = np.random.default_rng(b)
    maxima = rng.normal(size=b) + 2.0
    fam = standardize(np.arange(3), np.array([5, 9, 14]), np.array([20, 30, 40]), 40, 100)
    options = SimpleNamespace(adjust="maxT", alpha=alpha, alternative="greater")
    _, critical, _ = adjust_family(fam, np.full(3, 0.5), maxima, options)
    grid = np.sort(np.r_[maxima, maxima + 1e-9, maxima - 1e-9])
    rejected = max_exceedance_pvalues(maxima, grid) <= alpha
    np.testing.assert_array_equal(rejected, grid > critical)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_maxt_effective_number_of_slices_is_alpha_over_the_mean_exact_tail(alternative):
    """effective_n_slices = alpha / (mean over the slices of P0(the slice's statistic is
    beyond the critical value on the alternative's side)), each probability summed here
    over the slice's hypergeometric law, value by value."""
    fam = standardize(np.arange(4), np.array([5, 9, 14, 30]), np.array([20, 30, 40, 70]), 40, 100)
    maxima = np.random.default_rng(1).normal(size=99) + 2.2
    options = SimpleNamespace(adjust="maxT", alpha=0.05, alternative=alternative)
    _, critical, effective = adjust_family(fam, np.full(4, 0.5), maxima, options)
    tails = []
    for units in (20, 30, 40, 70):
        x = np.arange(units + 1)
        pmf = stats.hypergeom.pmf(x, 100, 40, units)
        mean = units * 0.4
        sd = math.sqrt(units * 0.4 * 0.6 * (100 - units) / 99)
        z = (x - mean) / sd
        beyond = {
            "two-sided": np.abs(z) >= critical - 1e-9,
            "greater": z >= critical - 1e-9,
            "less": z <= -critical + 1e-9,
        }[alternative]
        tails.append(pmf[beyond].sum())
    assert 0 < min(tails) and max(tails) < 0.2
    assert effective == pytest.approx(0.05 / np.mean(tails), rel=1e-9)


def test_by_critical_value_counts_pvalues_equal_to_alpha_as_selected():
    """adjust="by": the critical value is the normal quantile at alpha * R / m, R the
    number of BY-adjusted p-values <= alpha (here both are exactly alpha: R = 2)."""
    raw = np.array([0.125, 0.25])  # BY-adjusted: 0.25 * 2 * 1.5 / 2 = 0.375 for both
    assert benjamini_yekutieli(raw).tolist() == [0.375, 0.375]
    for alternative, per_side in (("two-sided", 0.375 / 2), ("greater", 0.375)):
        options = SimpleNamespace(adjust="by", alpha=0.375, alternative=alternative)
        _, critical, _ = adjust_family(None, raw, None, options)
        assert critical == pytest.approx(stats.norm.isf(per_side), rel=1e-12)


def test_by_critical_value_with_no_slice_selected_is_that_of_one():
    """adjust="by" with no BY-adjusted p-value <= alpha (R = 0): the critical value is the
    one R = 1 gives, the normal quantile at alpha / m (finite; docs/slices.md), and a search
    finding nothing reports it."""
    raw = np.array([0.3, 0.6, 0.9])
    for alternative, per_side in (("two-sided", 0.05 / 3 / 2), ("less", 0.05 / 3)):
        options = SimpleNamespace(adjust="by", alpha=0.05, alternative=alternative)
        _, critical, _ = adjust_family(None, raw, None, options)
        assert critical == pytest.approx(stats.norm.isf(per_side), rel=1e-12)
    features, y, pred = small_data(n=2000, seed=3, gap=0.0)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=1, min_size=20,
                               adjust="by", alpha=1e-6)  # fmt: skip
    assert res.slices == ()
    assert res.critical_value == pytest.approx(stats.norm.isf(1e-6 / res.n_slices / 2))


def test_simultaneous_intervals_are_agresti_caffo_with_each_sides_size():
    """difference +- c * SE with one success and one failure added to each side: p_i =
    (x_i + 1) / (n_i + 2), SE^2 = sum p_i (1 - p_i) / (n_i + 2); sizes differ per side."""
    value, other = np.array([0.3, 0.9]), np.array([0.5, 0.2])
    n, n_other = np.array([10.0, 40.0]), np.array([200.0, 7.0])
    lo, hi = simultaneous_intervals(value, other, n, n_other, 2.0, "two-sided")
    p1, p2 = (value * n + 1) / (n + 2), (other * n_other + 1) / (n_other + 2)
    se = np.sqrt(p1 * (1 - p1) / (n + 2) + p2 * (1 - p2) / (n_other + 2))
    np.testing.assert_allclose(lo, np.maximum(value - other - 2 * se, -1), rtol=1e-12)
    np.testing.assert_allclose(hi, np.minimum(value - other + 2 * se, 1), rtol=1e-12)


def test_one_sided_simultaneous_intervals_are_open_on_the_other_side():
    """ "greater": [difference - c SE, 1]; "less": [-1, difference + c SE] (the bound on the
    alternative's far side is the rate difference's range)."""
    value, other = np.array([0.3, 0.9]), np.array([0.5, 0.2])
    n, n_other = np.array([10.0, 40.0]), np.array([200.0, 7.0])
    p1, p2 = (value * n + 1) / (n + 2), (other * n_other + 1) / (n_other + 2)
    se = np.sqrt(p1 * (1 - p1) / (n + 2) + p2 * (1 - p2) / (n_other + 2))
    lo, hi = simultaneous_intervals(value, other, n, n_other, 1.5, "greater")
    np.testing.assert_allclose(lo, value - other - 1.5 * se, rtol=1e-12)
    np.testing.assert_array_equal(hi, [1.0, 1.0])
    lo, hi = simultaneous_intervals(value, other, n, n_other, 1.5, "less")
    np.testing.assert_array_equal(lo, [-1.0, -1.0])
    np.testing.assert_allclose(hi, value - other + 1.5 * se, rtol=1e-12)


def _exact_maxt_pvalue(sizes, n_success, t, sign):
    """P0(max over the one-level slices of sign * z >= t), the successes' multivariate
    hypergeometric law over three cells enumerated table by table."""
    n = np.array(sizes)
    total = n.sum()
    mean = n * n_success / total
    sd = np.sqrt(mean * (1 - n_success / total) * (total - n) / (total - 1))
    p = 0.0
    for x0 in range(min(n_success, n[0]) + 1):
        for x1 in range(min(n_success - x0, n[1]) + 1):
            x = np.array([x0, x1, n_success - x0 - x1])
            if x[2] <= n[2] and (sign * (x - mean) / sd).max() >= t - 1e-9:
                p += math.comb(n[0], x0) * math.comb(n[1], x1) * math.comb(n[2], x[2])
    return p / math.comb(total, n_success)


def test_maxt_pvalue_of_alternative_less_is_the_exact_law_of_the_largest_negated_z():
    """With a rare success (15 of 365) the null law of max(-z) is far from that of max(z):
    here P0(max(-z) >= t) = 0.098 and P0(max(z) >= t) = 0.31 at the observed t of the
    60-row slice without successes. The max-T p-value for alternative="less" must estimate
    the first (9,999 permutations: Monte-Carlo SE 0.003)."""
    sizes, successes = (60, 5, 300), (0, 0, 15)
    level = np.repeat([0, 1, 2], sizes)
    pred = np.concatenate([np.arange(m) < k for k, m in zip(successes, sizes)]).astype(int)
    res = fastfair.find_slices(
        None, np.ones(len(pred), int), pred, features={"a": level}, max_depth=1, min_size=1,
        n_permutations=9999, alternative="less", random_state=3,
    )  # fmt: skip
    mean0 = 60 * 15 / 365
    t = mean0 / math.sqrt(mean0 * (1 - 15 / 365) * 305 / 364)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    exact = _exact_maxt_pvalue(sizes, 15, t, sign=-1)
    assert exact == pytest.approx(0.0975, abs=1e-3)
    assert _exact_maxt_pvalue(sizes, 15, t, sign=1) > 0.3
    se = math.sqrt(exact * (1 - exact) / 9999)
    assert abs(res.pvalue - exact) < 4 * se + 1 / 10000


def test_slice_counts_small_untestable_and_tested_partition_the_lattice():
    """n_small, n_untestable and n_slices counted by hand over every slice, on data that has
    slices of each kind at once (n_untestable counts big slices only)."""
    rng = np.random.default_rng(11)
    n = 600
    y = (rng.random(n) < 0.4).astype(int)
    pred = (rng.random(n) < 0.5).astype(int)
    h = np.where(y == 1, "p", rng.choice(["p", "q"], n))  # h = q: no positive, h = p: all
    r = rng.choice(["a", "b", "c"], n, p=[0.48, 0.48, 0.04])  # r = c: about 24 rows
    features = {"h": h, "r": r}
    min_size = 40
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2,
                               min_size=min_size, n_permutations=99, random_state=0)  # fmt: skip
    small = untestable = tested = 0
    for combo in ([("h",)], [("r",)], [("h", "r")]):
        names = combo[0]
        for levels in itertools.product(*[np.unique(features[k]) for k in names]):
            mask = np.ones(n, bool)
            for k, v in zip(names, levels):
                mask &= features[k] == v
            if not mask.any():
                continue
            units = (mask & (y == 1)).sum()
            if mask.sum() < min_size:
                small += 1
            elif units == 0 or units == (y == 1).sum():
                untestable += 1
            else:
                tested += 1
    assert small > 0 and untestable > 0 and tested > 0
    assert (res.n_small, res.n_untestable, res.n_slices) == (small, untestable, tested)


def test_bins_below_two_are_refused_and_two_to_a_hundred_accepted():
    _, y, pred = small_data(n=2000, seed=3, gap=0.3)
    x = np.random.default_rng(1).random(y.size)
    kw = dict(max_depth=1, min_size=20, n_permutations=19, random_state=2, alpha=0.999)
    for bad in (0, 1, 101):
        with pytest.raises(ValueError, match="bins"):
            fastfair.find_slices(None, y, pred, features={"x": x}, bins=bad, **kw)
    for ok in (2, 100):
        res = fastfair.find_slices(None, y, pred, features={"x": x}, bins=ok, **kw)
        assert len(res.bins["x"]) == ok + 1


def test_binned_slices_hold_the_rows_of_their_labelled_interval():
    """A value equal to an inner quantile edge belongs to the bin that starts there
    ([lo, hi), the last [lo, hi]): each reported slice's size and denominator equal the
    counts of the rows in its labelled interval, counted from result.bins."""
    rng = np.random.default_rng(4)
    n = 4000
    x = rng.integers(0, 8, n).astype(float)  # ties: the quantile edges are values of x
    y = (rng.random(n) < 0.5).astype(int)
    pred = np.where(y == 1, rng.random(n) < 0.1 + 0.11 * x, rng.random(n) < 0.3).astype(int)
    res = fastfair.find_slices(None, y, pred, features={"x": x}, max_depth=1, min_size=20,
                               n_permutations=99, random_state=0, alpha=0.999)  # fmt: skip
    edges = res.bins["x"]
    inner = edges[1:-1]
    assert np.isin(inner, x).all()  # the case where the side of the edge matters
    assert len(res.slices) >= 3
    for s in res.slices:
        ((_, label),) = s.predicates
        k = next(i for i in range(len(edges) - 1)
                 if label.startswith(f"[{edges[i]:.4g}, {edges[i + 1]:.4g}"))  # fmt: skip
        last = k == len(edges) - 2
        inside = (x >= edges[k]) & ((x <= edges[k + 1]) if last else (x < edges[k + 1]))
        assert s.size == int(inside.sum())
        assert s.n == int((inside & (y == 1)).sum())
        assert s.value == pytest.approx((inside & (y == 1) & (pred == 1)).sum() / s.n)


@pytest.mark.parametrize(
    "option, refused, accepted",
    [("max_depth", (0, 7), (1, 6)), ("min_size", (0,), (1,)), ("n_permutations", (18,), (19,)),
     ("max_levels", (1,), (2,)), ("max_slices", (0,), (19,)), ("alpha", (0.0, 1.0), (0.5,))],
)  # fmt: skip
def test_each_option_is_refused_just_outside_its_range_and_accepted_at_its_ends(
    option, refused, accepted
):
    features, y, pred = small_data(n=2000, seed=3, gap=0.3)
    two = {"a": features["a"], "c": features["c"]}  # 3 and 4 levels: 19 slices
    if option == "max_levels":
        two = {"b": features["b"], "c": features["c"] % 2}  # 2 and 2 levels: 8 slices
    kw = dict(max_depth=2, min_size=20, n_permutations=19, random_state=2)
    for value in refused:
        with pytest.raises(ValueError, match=option):
            fastfair.find_slices(None, y, pred, features=two, **{**kw, option: value})
    for value in accepted:
        res = fastfair.find_slices(None, y, pred, features=two, **{**kw, option: value})
        assert getattr(res, option, value) == value and res.n_slices > 0


def test_search_counts_and_population_value_read_back_from_the_rows():
    """n_rows, n_cells (observed level combinations), n_distinct (distinct row sets among the
    tested slices: b is a function of a here, so a = x & b = y repeats a = x's rows) and
    population_value, each counted on the rows."""
    rng = np.random.default_rng(8)
    n = 3000
    a = rng.integers(0, 4, n)
    b = (a >= 2).astype(int)  # determined by a
    c = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.5).astype(int)
    pred = (rng.random(n) < np.where(y == 1, 0.7, 0.3)).astype(int)
    features = {"a": a, "b": b, "c": c}
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2, min_size=10,
                               n_permutations=19, random_state=0)  # fmt: skip
    assert res.n_rows == n
    assert res.n_cells == len({(i, j, k) for i, j, k in zip(a, b, c)})
    assert res.population_value == pytest.approx(((y == 1) & (pred == 1)).sum() / (y == 1).sum())
    masks = set()
    tested = 0
    for combo in [("a",), ("b",), ("c",), ("a", "b"), ("a", "c"), ("b", "c")]:
        for levels in itertools.product(*[np.unique(features[k]) for k in combo]):
            mask = np.ones(n, bool)
            for k, v in zip(combo, levels):
                mask &= features[k] == v
            if mask.sum() >= 10 and 0 < (mask & (y == 1)).sum() < (y == 1).sum():
                tested += 1
                masks.add(mask.tobytes())
    assert res.n_slices == tested and res.n_distinct == len(masks) < tested


def test_bin_labels_are_half_open_except_the_last_closed_one_holding_the_maximum():
    """With alpha near 1 every bin is reported: its labels are exactly
    "[e_k, e_k+1)" built from result.bins, the last one "[e_B-1, max]" (it holds the
    largest value), and each bin's size is the count of rows in that interval."""
    rng = np.random.default_rng(9)
    n = 2000
    x = rng.uniform(0, 10, n)
    y = (rng.random(n) < 0.5).astype(int)
    pred = (rng.random(n) < 0.2 + 0.06 * x).astype(int)
    res = fastfair.find_slices(None, y, pred, features={"x": x}, max_depth=1, min_size=1,
                               bins=4, n_permutations=99, random_state=0, alpha=0.999)  # fmt: skip
    edges = res.bins["x"]
    assert edges[-1] == x.max() and len(edges) == 5
    expected = {
        f"[{edges[k]:.4g}, {edges[k + 1]:.4g}{']' if k == 3 else ')'}": k for k in range(4)
    }
    found = {s.predicates[0][1]: s for s in res.slices}
    assert set(found) == set(expected)
    for label, k in expected.items():
        inside = (x >= edges[k]) & ((x <= edges[k + 1]) if k == 3 else (x < edges[k + 1]))
        assert found[label].size == int(inside.sum())


def test_bad_features_and_untestable_data_name_their_problem():
    """The refusals the other tests leave unexercised, each with its message."""
    features, y, pred = small_data(n=600, seed=5)
    kw = dict(max_depth=1, min_size=5, n_permutations=19, random_state=0)
    frame = {"a": features["a"], "b": features["b"]}
    x = np.linspace(0.0, 1.0, 600)
    x[7] = np.inf
    cube = _cube_of_batches(features, y, pred, [150, 300, 450])
    no_positive = np.zeros(600, dtype=int)
    cases = [
        (lambda: fastfair.find_slices(frame, y, pred, features="a", **kw), TypeError,
         "features must be a list of column names of data, or a dict name -> array"),
        (lambda: fastfair.find_slices(None, y, pred, features=["a"], **kw), ValueError,
         r"features given as names need data \(a DataFrame or mapping\)"),
        (lambda: fastfair.find_slices(frame, y, pred, features=[], **kw), ValueError,
         "features is empty: give at least one feature to slice by"),
        (lambda: fastfair.find_slices(frame, y, pred, features=["a", "a"], **kw), ValueError,
         r"features must be distinct, got \['a', 'a'\]"),
        (lambda: fastfair.find_slices(None, y, pred, features={"m": np.full(600, np.nan)},
                                      **kw), ValueError, "feature 'm' has only missing values"),
        (lambda: fastfair.find_slices(None, y, pred, features={"x": x}, **kw), ValueError,
         "feature 'x' has infinite values; bin it yourself or drop them"),
        (lambda: fastfair.find_slices_from_cube(cube, features=[], **kw), TypeError,
         "features must be a non-empty list of the cube's attribute names"),
        (lambda: fastfair.find_slices_from_cube(cube, features="a", **kw), TypeError,
         "features must be a non-empty list"),
        (lambda: fastfair.find_slices(None, no_positive, pred, features=features, **kw),
         ValueError, r"no row is in the tpr's denominator \(.*\): nothing to compare"),
        (lambda: fastfair.find_slices(None, y, pred, features={"y": y}, **kw), ValueError,
         "no slice of at least min_size=5 rows has rows both inside and outside it in the "
         "tpr's denominator"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_an_integer_feature_with_more_levels_than_max_levels_is_binned_at_its_quantiles():
    """Integers 0..29 with max_levels=10 are cut into `bins` quantile intervals (edges in
    result.bins, from numpy's quantiles), each slice holding its interval's rows."""
    rng = np.random.default_rng(17)
    n = 3000
    x = rng.integers(0, 30, n)
    y = (rng.random(n) < 0.5).astype(int)
    pred = (rng.random(n) < 0.2 + 0.02 * x).astype(int)
    res = fastfair.find_slices(None, y, pred, features={"x": x}, max_depth=1, min_size=1,
                               max_levels=10, bins=4, n_permutations=99, random_state=0,
                               alpha=0.999)  # fmt: skip
    edges = res.bins["x"]
    np.testing.assert_array_equal(
        edges, np.unique(np.quantile(x.astype(float), np.linspace(0, 1, 5)))
    )
    assert res.n_slices == len(edges) - 1
    for s in res.slices:
        ((_, label),) = s.predicates
        k = next(i for i in range(len(edges) - 1) if label.startswith(f"[{edges[i]:.4g}, "))
        last = k == len(edges) - 2
        inside = (x >= edges[k]) & ((x <= edges[k + 1]) if last else (x < edges[k + 1]))
        assert s.size == int(inside.sum())


def test_repr_says_when_no_slice_differs():
    features, y, pred = small_data(n=2000, seed=3, gap=0.0)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=1, min_size=20,
                               n_permutations=99, random_state=2, alpha=1e-6,
                               adjust="bonferroni")  # fmt: skip
    assert res.slices == ()
    lines = repr(res).splitlines()
    assert lines[1:] == ["  no slice differs significantly"]
    assert f"{res.n_slices} slices tested" in lines[0] and "alpha=1e-06" in lines[0]


def test_search_and_slice_reprs_read_back_the_counts_of_their_rows():
    """Every number of the result's repr (rows, slices tested, the population TPR, each
    slice's size, TPR, difference from its complement's TPR, interval and adjusted p) and
    of FoundSlice's repr, the rates counted from the rows with numpy."""
    features, y, pred = small_data(n=3000, seed=3, gap=0.3)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2, min_size=20,
                               n_permutations=99, random_state=2, alpha=0.999)  # fmt: skip
    lines = repr(res).splitlines()
    pos = y == 1
    head = lines[0]
    assert f"'tpr', 3000 rows, depth <= 2, {res.n_slices} slices tested" in head
    assert head.endswith(f"all rows: {pred[pos].mean():.4f})")
    assert len(lines) == 2 + len(res.slices) >= 10
    for line, s in zip(lines[2:], res.slices):
        inside = np.ones(3000, dtype=bool)
        for name, level in s.predicates:
            inside &= features[name] == level
        value = pred[inside & pos].mean()
        other = pred[~inside & pos].mean()
        lo, hi = s.confidence_interval
        expected = (f"{s.description} {int(inside.sum())} {value:.4f} {value - other:.4f} "
                    f"[{lo:.4f}, {hi:.4f}] {s.pvalue_adjusted:.4f}")  # fmt: skip
        assert line.split() == expected.split()
        assert repr(s) == (
            f"FoundSlice({s.description}: {value:.4f} vs {other:.4f}, difference "
            f"{value - other:+.4f} [{lo:.4f}, {hi:.4f}], size {int(inside.sum())}, "
            f"p adjusted {s.pvalue_adjusted:.4f})"
        )


def test_scores_at_the_threshold_are_positive_predictions():
    """y_score with threshold t searches the predictions score >= t (scores on a 0.1 grid,
    many exactly at t): the same result as y_pred = score >= t; None means 0.5 for
    probabilities and is refused for scores outside [0, 1]."""
    features, y, _ = small_data(n=2000, seed=7)
    rng = np.random.default_rng(7)
    score = rng.integers(0, 11, 2000) / 10
    score = np.where((features["a"] == 1) & (y == 1), np.minimum(score + 0.3, 1.0), score)
    kw = dict(max_depth=1, min_size=20, n_permutations=99, random_state=0, alpha=0.5)
    for t in (0.3, 0.5):
        got = fastfair.find_slices(None, y, y_score=score, threshold=t, features=features, **kw)
        want = fastfair.find_slices(None, y, (score >= t).astype(int), features=features, **kw)
        assert got.to_dict() == want.to_dict()
        assert got.population_value == pytest.approx(np.mean(score[y == 1] >= t))
    default = fastfair.find_slices(None, y, y_score=score, features=features, **kw)
    half = fastfair.find_slices(None, y, y_score=score, threshold=0.5, features=features, **kw)
    assert default.to_dict() == half.to_dict()
    with pytest.raises(ValueError, match="values outside \\[0, 1\\]"):
        fastfair.find_slices(None, y, y_score=score * 10, features=features, **kw)


@pytest.mark.parametrize("n_found", [20, 21])
def test_repr_lists_twenty_slices_and_counts_the_rest_only_beyond_twenty(n_found):
    """The printed search shows at most 20 significant slices: exactly 20 are all listed
    with no "... more" line; 21 list 20 and "... 1 more" (rows counted back from the text;
    the result's slices are copies of one real found slice)."""
    import dataclasses

    features, y, pred = small_data(n=2000, seed=1, gap=0.5)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2, min_size=20,
                               n_permutations=99, random_state=0)  # fmt: skip
    assert res.slices
    many = dataclasses.replace(res, slices=[res.slices[0]] * n_found)
    lines = repr(many).splitlines()
    rows = [line for line in lines if line.startswith(f"  {res.slices[0].description} ")]
    assert len(rows) == min(n_found, 20)
    tail = [line for line in lines if line.startswith("  ... ")]
    assert tail == ([f"  ... {n_found - 20} more"] if n_found > 20 else [])


@pytest.mark.parametrize("n_levels", [20, 21])
def test_repr_lists_20_slices_and_counts_only_the_ones_beyond(n_levels):
    """One feature of 20 or 21 levels whose TPRs alternate 0.1 / 0.9 (every slice differs
    from its complement): the repr lists 20 slices, and a "... k more" line only for the
    slices beyond 20 (none with exactly 20). Each depth-1 slice's parent is "all rows" with
    the TPR of every row (counted with numpy)."""
    rng = np.random.default_rng(40)
    n = 200 * n_levels
    level = np.arange(n) % n_levels
    y = np.ones(n, dtype=int)
    pred = (rng.random(n) < np.where(level % 2 == 0, 0.1, 0.9)).astype(int)
    res = fastfair.find_slices(None, y, pred, features={"f": level}, max_depth=1,
                               min_size=20, adjust="bonferroni")  # fmt: skip
    assert len(res.slices) == n_levels
    lines = repr(res).splitlines()
    assert len(lines) == 2 + 20 + (n_levels > 20)
    assert [line.split()[0] for line in lines[2:22]] == ["f"] * 20
    if n_levels > 20:
        assert lines[-1] == f"  ... {n_levels - 20} more"
    assert not any("more" in line for line in lines[1:22])
    for s in res.slices:
        assert s.parent_values == (("all rows", pred.mean()),)
        assert s.to_dict()["parents"] == f"all rows: {pred.mean():.4f}"


def test_frame_parents_column_lists_every_parent_with_its_rate():
    """A depth-2 slice's "parents" cell names both parents (one predicate fewer each) with
    their TPRs, counted from the rows with numpy, in to_frame and to_dict alike."""
    features, y, pred = small_data(n=6000, seed=1, gap=0.35)
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2,
                               random_state=0)  # fmt: skip
    top = res.slices[0]
    assert top.predicates == (("a", 1), ("c", 2))
    pos = y == 1
    want = {
        "a = 1": pred[(features["a"] == 1) & pos].mean(),
        "c = 2": pred[(features["c"] == 2) & pos].mean(),
    }
    for cell in (res.to_frame().parents[0], top.to_dict()["parents"], top.to_frame().parents[0]):
        parts = dict(p.split(": ") for p in cell.split("; "))
        assert parts.keys() == want.keys()
        for name, value in want.items():
            assert float(parts[name]) == pytest.approx(value, abs=5e-5)


@pytest.mark.parametrize("adjust", ["maxT", "bonferroni"])
def test_a_slice_whose_adjusted_pvalue_equals_alpha_is_reported(adjust):
    """Reported means adjusted p-value <= alpha: rerun with alpha set to one slice's adjusted
    p-value (same seed, same p-values) and that slice is listed, those above it are not."""
    features, y, pred = small_data(n=3000, seed=3, gap=0.3)
    kw = dict(features=features, max_depth=1, min_size=20, n_permutations=99, random_state=2,
              adjust=adjust)  # fmt: skip
    every = fastfair.find_slices(None, y, pred, alpha=0.999999, **kw)
    p = sorted({s.pvalue_adjusted for s in every.slices})
    cut = p[len(p) // 2]
    assert 0 < cut < 0.999999 and len(p) >= 3
    res = fastfair.find_slices(None, y, pred, alpha=cut, **kw)
    want = {s.description for s in every.slices if s.pvalue_adjusted <= cut}
    assert {s.description for s in res.slices} == want
    assert cut in {s.pvalue_adjusted for s in res.slices}


def test_n_distinct_counts_the_row_sets_of_the_tested_slices_only():
    """min_size=300 leaves the a & c slices (about 250 rows) out: n_distinct counts distinct
    row sets among the tested slices only (counted on the rows), not among those left out."""
    rng = np.random.default_rng(8)
    n = 3000
    a = rng.integers(0, 4, n)
    b = (a >= 2).astype(int)  # determined by a: a = x & b = y repeats a = x's rows
    c = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.5).astype(int)
    pred = (rng.random(n) < np.where(y == 1, 0.7, 0.3)).astype(int)
    features = {"a": a, "b": b, "c": c}
    res = fastfair.find_slices(None, y, pred, features=features, max_depth=2, min_size=300,
                               n_permutations=19, random_state=0)  # fmt: skip
    masks, tested, small = set(), 0, 0
    for combo in [("a",), ("b",), ("c",), ("a", "b"), ("a", "c"), ("b", "c")]:
        for levels in itertools.product(*[np.unique(features[k]) for k in combo]):
            mask = np.ones(n, bool)
            for k, v in zip(combo, levels):
                mask &= features[k] == v
            if not mask.any():
                continue
            if mask.sum() < 300:
                small += 1
            elif 0 < (mask & (y == 1)).sum() < (y == 1).sum():
                tested += 1
                masks.add(mask.tobytes())
    assert small >= 10 and res.n_small == small
    assert res.n_slices == tested and res.n_distinct == len(masks) < tested


def test_from_cube_with_every_option_at_its_default_equals_the_rows():
    """find_slices_from_cube documents find_slices' defaults (metric, max_depth, min_size,
    n_permutations, adjust, alpha, alternative, max_levels): with only the cube (all of its
    attributes) and the seed, it finds what find_slices finds on the rows with no option,
    field by field; the data have slices of 20-60 rows, so a different min_size or depth
    changes the family."""
    features, y, pred = small_data(n=1200, seed=9, gap=0.3)
    rows = fastfair.find_slices(None, y, pred, features=features, random_state=4)
    cube = _cube_of_batches(features, y, pred, [100, 600, 1100])
    got = fastfair.find_slices_from_cube(cube, random_state=4)
    sizes = [s.size for s in rows.slices]
    assert rows.n_slices > 0 and min(sizes, default=50) >= 50
    assert got.to_dict() == rows.to_dict()


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.002])
def test_max_t_needs_the_permutations_whose_smallest_pvalue_reaches_alpha(alpha):
    """With adjust="maxT" the smallest adjusted p-value is 1/(B + 1): B = 1/alpha - 1 is
    accepted (and then its strongest slice is found), one fewer refused with the number
    needed; Bonferroni and BY use exact p-values and accept any B >= 19."""
    features, y, pred = small_data(n=3000, seed=3, gap=0.3)
    need = round(1 / alpha) - 1
    kw = dict(features=features, max_depth=1, min_size=20, random_state=0, alpha=alpha)
    res = fastfair.find_slices(None, y, pred, n_permutations=need, **kw)
    assert res.slices and min(s.pvalue_adjusted for s in res.slices) == 1 / (need + 1)
    message = rf"n_permutations={need - 1} cannot reach .*>= {need}" if need > 19 else "19"
    with pytest.raises(ValueError, match=message):  # (at 0.05 the floor of 19 refuses 18)
        fastfair.find_slices(None, y, pred, n_permutations=need - 1, **kw)
    for adjust in ("by", "bonferroni"):
        fastfair.find_slices(None, y, pred, n_permutations=19, adjust=adjust, **kw)


def _hand_layout():
    """Two attributes of 2 and 3 levels, one cell each (C order): the marginals of axis 0
    (slices 0, 1), axis 1 (2..4) and both (5..10) laid out one after the other in leaf_map,
    and the same slices as slice_null's map of the three attribute sets."""
    levels = np.array([2, 3], dtype=np.int64)
    i, j = np.divmod(np.arange(6), 3)
    slice_map = np.ascontiguousarray(np.stack([i, 2 + j, 5 + 3 * i + j]).astype(np.int32))
    return SimpleNamespace(
        levels=levels,
        cell_index=np.arange(6, dtype=np.int64),
        leaf_offset=np.array([0, 0, 2, 5], dtype=np.int64),
        leaf_map=np.arange(11, dtype=np.int32),
        slice_map=slice_map,
    )


@pytest.mark.parametrize("max_depth", [1, 2])
def test_dense_slice_null_of_a_hand_built_cube_equals_slice_null_at_both_depth_limits(max_depth):
    """max_depth 1 and 2 (= the number of axes) are valid: the dense marginals give
    slice_null's maxima and exceedances with the sets up to that depth; 0 and 3 are
    refused, as a cell position equal to the cube's size, a leaf_map slice equal to the
    number of slices and a marginal reaching one past leaf_map's end."""
    lay = _hand_layout()
    units = np.array([4, 7, 2, 9, 5, 3], dtype=np.int64)
    rng = np.random.default_rng(max_depth)
    mean, inv_sd = rng.uniform(0, 3, 11), rng.uniform(0.2, 1.0, 11)
    threshold = np.full(11, 1.5)
    key = stream_key(9)
    sets = lay.slice_map[: 2 if max_depth == 1 else 3].copy()
    maxima, exceed, _ = slice_null(units, 12, sets, mean, inv_sd, threshold, 0, 200, key, 0)

    def dense(depth=max_depth, cell_index=lay.cell_index, leaf_map=lay.leaf_map,
              leaf_offset=lay.leaf_offset):  # fmt: skip
        return slice_null_dense(units, 12, cell_index, lay.levels, depth, leaf_offset,
                                leaf_map, mean, inv_sd, threshold, 0, 200, key, 0)  # fmt: skip

    got = dense()
    assert np.array_equal(got[0], maxima) and np.array_equal(got[1], exceed)
    for depth in (0, 3):
        with pytest.raises(ValueError, match="max_depth"):
            dense(depth=depth)
    bad = lay.cell_index.copy()
    bad[5] = 6
    with pytest.raises(ValueError, match="cell_index"):
        dense(cell_index=bad)
    bad = lay.leaf_map.copy()
    bad[0] = 11
    with pytest.raises(ValueError, match="leaf_map"):
        dense(leaf_map=bad)
    if max_depth == 2:  # the two-axis marginal reaches leaf_map's end exactly: one more is out
        with pytest.raises(ValueError, match="leaf_offset"):
            dense(leaf_offset=np.array([0, 0, 2, 6], dtype=np.int64))


def test_exact_pvalues_keep_their_far_tails():
    """Slices far from the population's rate (400 of 500 units successes where 250 are
    expected, 40 of 300 where 150 are): exact hypergeometric p-values of 1e-47 to 1e-56,
    the enumerated law summed value by value (math.fsum over scipy's pmf) as in
    test_exact_pvalues_by_enumeration but at relative 1e-9, absolute 0: an absolute
    tolerance of 1e-15 there hides 1 - cdf (0 or a residue of 1e-16) for such slices."""
    units, successes, n_units, n_successes = (
        np.array([500, 300, 400]),
        np.array([400, 40, 200]),
        2000,
        1000,
    )
    fam = standardize(np.arange(3), successes, units, n_successes, n_units)
    for alternative in ("two-sided", "greater", "less"):
        ours = exact_pvalues(fam, alternative)
        for r, (n, x) in enumerate(zip(units, successes)):
            support = np.arange(n + 1)
            pmf = stats.hypergeom.pmf(support, n_units, n_successes, n)
            mu = n * n_successes / n_units
            extreme = {"two-sided": np.abs(support - mu) >= abs(x - mu) - 1e-9,
                       "greater": support >= x, "less": support <= x}[alternative]  # fmt: skip
            want = min(1.0, math.fsum(pmf[extreme]))
            assert ours[r] == pytest.approx(want, rel=1e-9, abs=0)
        tiny = (
            ours[:2]
            if alternative == "two-sided"
            else ours[:1]
            if alternative == "greater"
            else ours[1:2]
        )
        assert (0 < tiny).all() and (tiny < 1e-46).all()


def test_search_repr_head_names_the_error_control_of_the_adjustment_given():
    """The head of SliceSearchResult's repr names the error control of the adjustment
    asked for: max-T's family-wise error over joint permutations, Benjamini-Yekutieli's
    false discovery rate, Bonferroni's family-wise error, at the alpha given."""
    features, y, pred = small_data(n=2000, seed=1, gap=0.35)
    control = {
        "maxT": "family-wise error by max-T over joint permutations",
        "by": "false discovery rate (Benjamini-Yekutieli)",
        "bonferroni": "family-wise error (Bonferroni)",
    }
    for adjust, words in control.items():
        res = fastfair.find_slices(None, y, pred, features=features, max_depth=1, adjust=adjust,
                                   alpha=0.1, n_permutations=99, random_state=0)  # fmt: skip
        head = repr(res).splitlines()[0]
        assert f"), {words} at alpha=0.1; slice vs its complement" in head, (adjust, head)
