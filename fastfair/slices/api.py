"""find_slices: every slice of up to max_depth predicates, with error control over all."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._metrics import get_metric
from fastfair._parallel import threads_for
from fastfair.slices.inference import (
    adjust_family,
    exact_pvalues,
    found_slice,
    null_maxima,
    rate_parts,
    simultaneous_intervals,
    standardize,
)
from fastfair.slices.ingest import (
    CodedFeatures,
    check_options,
    check_slice_count,
    code_features,
    plain_level,
    rows,
)
from fastfair.slices.results import SliceSearchResult, describe
from fastfair.slices.statistics import SliceCube, build_cube, enumerate_slices, tree_layout

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas
    from numpy.typing import ArrayLike

    from fastfair.stats import ConfusionCube

__all__ = ["find_slices", "find_slices_from_cube"]


def find_slices(
    data: Mapping[str, Any] | pandas.DataFrame | None,
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str | None = None,
    *,
    features: Sequence[str] | Mapping[str, ArrayLike],
    y_score: ArrayLike | str | None = None,
    threshold: float | None = None,
    metric: str = "tpr",
    max_depth: int = 3,
    min_size: int = 50,
    n_permutations: int = 999,
    adjust: str = "maxT",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    bins: int = 4,
    max_levels: int = 50,
    max_slices: int = 2_000_000,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> SliceSearchResult:
    r"""Find the slices (conjunctions of feature = level) where a metric differs.

    Every conjunction of up to `max_depth` predicates ``feature = level`` on distinct
    features (a *slice*) with at least `min_size` rows is compared with its complement (the
    rows outside it) on `metric`; the error rate is controlled over the whole search.

    Each slice's statistic is standardized by its exact null mean and variance (its
    successes are hypergeometric under the null), so slices of every size compete on the
    same scale. The default error control, ``adjust="maxT"``, is family-wise: the null
    distribution of the largest statistic over all slices comes from joint permutations of
    the metric's successes among its units (for the TPR: the predictions among the rows with
    y_true = 1), each drawn as one multivariate hypergeometric draw over the cube of counts
    (one cell per observed combination of levels), so a permutation costs O(cells), not
    O(rows), and every overlapping slice is read from the same draw. ``adjust="by"``
    controls the false discovery rate (Benjamini-Yekutieli on the slices' exact
    hypergeometric p-values: valid under any dependence); ``"bonferroni"`` is the
    family-wise baseline.

    Parameters
    ----------
    data : DataFrame, mapping or None
        Holds the columns named by the other arguments.
    y_true, y_pred : array-like or column name
        Binary labels and predictions (or `y_score` with `threshold`).
    features : list of column names, or dict name -> array
        The features to slice by. Float features with more than `bins` distinct values,
        and integer features with more than `max_levels`, are cut at their quantiles into
        `bins` intervals (reported in ``result.bins``); other features keep their values as
        levels (at most `max_levels`, else an error that says how to bin). A missing value
        is a level of its own, ``"missing"``.
    y_score : array-like or column name, optional
        Scores, instead of `y_pred`.
    threshold : float, optional
        Predictions are ``y_score >= threshold`` (default 0.5 for scores in [0, 1]).
    metric : str
        A rate of the confusion matrix: "tpr", "fnr", "fpr", "tnr", "ppv", "fdr", "npv",
        "for", "selection_rate", "accuracy", "error_rate" (or an alias).
    max_depth : int
        Largest number of predicates in a slice (1 to 6).
    min_size : int
        Smallest slice tested, in rows. A smaller slice is left out with all its
        descendants (they have fewer rows still): the family is fixed before any outcome is
        looked at, so leaving them out keeps every guarantee.
    n_permutations : int
        Joint permutations for max-T: at least 19, and, with ``adjust="maxT"``, enough for
        the smallest p-value, 1 / (n_permutations + 1), to reach `alpha` (99 at 0.01).
    adjust : {"maxT", "by", "bonferroni"}
        Error control over every slice tested.
    alpha : float
        Level of the error control; intervals are simultaneous at 1 - alpha.
    alternative : {"two-sided", "greater", "less"}
        "greater": the slice's rate exceeds its complement's.
    bins, max_levels, max_slices : int
        Quantile bins of a numeric feature; the most levels of any other feature; the most
        slices enumerated (the count is bounded before enumerating, and too many is an
        error that says how to reduce it).
    random_state : None, int, Generator or SeedSequence
        Seeds the permutations (results do not depend on `n_jobs`).
    n_jobs : int or None
        Threads.

    Returns
    -------
    SliceSearchResult
        The significant slices ranked by the absolute difference, each with its size, value,
        difference from the complement with a simultaneous interval, adjusted p-value and
        its parents' values; the effective number of slices tested.

    Notes
    -----
    The null tested is that, among the metric's units, success is independent of the
    features (for the TPR: within y_true = 1, the prediction does not depend on the slice);
    it implies that every slice has the complement's rate. The interval of a slice's
    difference is ``difference +- critical_value * SE`` with the unpooled standard error
    (Agresti-Caffo smoothed): simultaneous over the slices to the accuracy of the normal
    approximation of the max-T distribution; with ``adjust="by"`` they are the false
    coverage-rate intervals of Benjamini & Yekutieli (2005).

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> rng = np.random.default_rng(0)
    >>> n = 20_000
    >>> region, sex = rng.integers(0, 4, n), rng.integers(0, 2, n)
    >>> y = rng.random(n) < 0.4
    >>> hit = np.where((region == 2) & (sex == 1), 0.6, 0.8)  # a lower TPR in one slice
    >>> pred = np.where(y, rng.random(n) < hit, rng.random(n) < 0.2)
    >>> res = fastfair.find_slices(None, y, pred, features={"region": region, "sex": sex},
    ...                            max_depth=2, random_state=0)
    >>> res.slices[0].description
    'region = 2 & sex = 1'
    >>> res.n_slices, round(res.slices[0].value, 2), round(res.slices[0].complement_value, 2)
    (14, 0.57, 0.8)
    """
    options = check_options(metric, max_depth, min_size, n_permutations, adjust, alpha,
                            alternative, bins, max_levels, max_slices)  # fmt: skip
    truth, pred, columns = rows(data, y_true, y_pred, y_score, threshold, features)
    coded = code_features(columns, options)
    n_levels = [len(x) for x in coded.levels]
    cube = build_cube(coded.codes, n_levels, truth, pred)
    check_slice_count(coded.levels, options, cube.cells.shape[0])
    return search_cube(cube, coded, options, random_state, n_jobs)


def find_slices_from_cube(
    cube: ConfusionCube,
    *,
    features: Sequence[str] | None = None,
    metric: str = "tpr",
    max_depth: int = 3,
    min_size: int = 50,
    n_permutations: int = 999,
    adjust: str = "maxT",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    max_levels: int = 50,
    max_slices: int = 2_000_000,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> SliceSearchResult:
    """:func:`find_slices` on a :class:`fastfair.stats.ConfusionCube` (any engine's).

    The cube's attributes are the features; their levels are used as they are (a numeric
    feature must be binned before the cube is built, e.g. with ``pandas.cut`` on each batch
    with the same edges, since the cube cannot be re-binned). With the same levels, options
    and `random_state`, the result equals :func:`find_slices` on the rows, however the cube
    was split into batches and added.

    Parameters
    ----------
    cube : ConfusionCube
        Confusion counts per combination of the features' levels (``a + b`` over batches).
    features : sequence of str, optional
        The cube's attributes to slice by (default: all); the others are summed over.
    metric, max_depth, min_size, n_permutations, adjust, alpha, alternative, max_levels,
    max_slices, random_state, n_jobs
        As in :func:`find_slices`; a feature with more than `max_levels` levels is refused.

    Returns
    -------
    SliceSearchResult

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> from fastfair.stats import ConfusionCube
    >>> rng = np.random.default_rng(0)
    >>> n = 20_000
    >>> region, sex = rng.integers(0, 4, n), rng.integers(0, 2, n)
    >>> y = rng.random(n) < 0.4
    >>> hit = np.where((region == 2) & (sex == 1), 0.6, 0.8)
    >>> pred = np.where(y, rng.random(n) < hit, rng.random(n) < 0.2)
    >>> a, b = slice(0, n // 2), slice(n // 2, n)  # two batches, added
    >>> cube = (ConfusionCube.from_arrays(y[a], pred[a], {"region": region[a], "sex": sex[a]})
    ...         + ConfusionCube.from_arrays(y[b], pred[b], {"region": region[b], "sex": sex[b]}))
    >>> res = fastfair.find_slices_from_cube(cube, max_depth=2, random_state=0)
    >>> res.slices[0].description, res.n_slices
    ('region = 2 & sex = 1', 14)
    """
    options = check_options(metric, max_depth, min_size, n_permutations, adjust, alpha,
                            alternative, 2, max_levels, max_slices)  # fmt: skip
    summary, coded = _cube_features(cube, features, options)
    check_slice_count(coded.levels, options, summary.cells.shape[0])
    return search_cube(summary, coded, options, random_state, n_jobs)


def _cube_features(cube, features, options) -> tuple:
    """The search's cube and coded features from a ConfusionCube (levels checked)."""
    if not all(hasattr(cube, a) for a in ("names", "levels", "keys", "counts", "marginal")):
        raise TypeError(f"cube must be a fastfair.stats.ConfusionCube, not {type(cube).__name__}")
    if features is not None:
        if isinstance(features, str) or not len(features):
            raise TypeError("features must be a non-empty list of the cube's attribute names")
        unknown = [f for f in features if f not in cube.names]
        if unknown:
            raise ValueError(f"features {unknown} are not attributes of the cube {cube.names}")
        cube = cube.marginal(list(features))
    for name, levels in zip(cube.names, cube.levels):
        if len(levels) > options.max_levels:
            raise ValueError(
                f"feature {name!r} has {len(levels)} levels in the cube, more than "
                f"max_levels={options.max_levels}: bin it (the same edges in every batch, "
                "e.g. pandas.cut) before building the cube, or raise max_levels"
            )
    if int(np.asarray(cube.counts).sum()) == 0:
        raise ValueError("the cube has no rows")
    levels = tuple(tuple(plain_level(v) for v in x) for x in cube.levels)
    coded = CodedFeatures(tuple(cube.names), (), levels, {})
    summary = SliceCube(np.ascontiguousarray(cube.keys, dtype=np.int64),
                        np.ascontiguousarray(cube.counts, dtype=np.int64))  # fmt: skip
    return summary, coded


def search_cube(cube, coded, options, random_state, n_jobs) -> SliceSearchResult:
    """The search on a cube of counts (any engine's): lattice, null, adjustment, result."""
    chosen = get_metric(options.metric)
    num, den = chosen.num_masks[0], chosen.den_masks[0]
    lattice = enumerate_slices(cube, [len(x) for x in coded.levels], options.max_depth)
    successes, units = rate_parts(lattice.counts, num, den)
    cell_successes, cell_units = rate_parts(cube.counts, num, den)
    n_units, n_successes = int(cell_units.sum()), int(cell_successes.sum())
    _check_metric_varies(n_units, n_successes, chosen)
    size = lattice.counts.sum(axis=1)
    big = size >= options.min_size
    testable = big & (units > 0) & (units < n_units)
    if not testable.any():
        raise ValueError(_nothing_to_test(options, int(big.sum()), int(size.max())))
    index = np.flatnonzero(testable)
    fam = standardize(index, successes[index], units[index], n_successes, n_units)
    maxima = None
    if options.adjust == "maxT":  # BY and Bonferroni read the exact p-values only
        maxima = _null(cube, coded, lattice, testable, fam, cell_units, options, random_state,
                       n_jobs)  # fmt: skip
    raw = exact_pvalues(fam, options.alternative)
    adjusted, critical, effective = adjust_family(fam, raw, maxima, options)
    parts = _found(lattice, coded, fam, raw, adjusted, critical, size, options, chosen)
    return SliceSearchResult(
        slices=parts, statistic=float(_oriented(fam.statistic, options.alternative).max()),
        pvalue=float(adjusted.min()), metric=options.metric, alternative=options.alternative,
        adjust=options.adjust, alpha=options.alpha, critical_value=critical,
        n_slices=int(index.size), n_distinct=int(np.unique(lattice.signature[index]).size),
        effective_n_slices=float(effective), n_small=int((~big).sum()),
        n_untestable=int((big & ~testable).sum()), n_rows=int(cube.counts.sum()),
        n_cells=int(cube.cells.shape[0]), population_value=n_successes / n_units,
        features=coded.names, bins=dict(coded.bins), max_depth=options.max_depth,
        min_size=options.min_size, n_permutations=options.n_permutations,
    )  # fmt: skip


def _null(cube, coded, lattice, testable, fam, cell_units, options, random_state, n_jobs):
    """The maxima of the joint permutations (the dense walk when the cube is small enough)."""
    renumber = np.where(testable, np.cumsum(testable) - 1, -1).astype(np.int32)
    layout = tree_layout(cube, [len(x) for x in coded.levels], lattice, renumber)
    kernel_map = None if layout is not None else np.ascontiguousarray(renumber[lattice.cell_map])
    work = options.n_permutations * cube.cells.shape[0] * (4 if layout else len(lattice.sets))
    n_threads = threads_for(n_jobs, work, 2_000_000)
    maxima, _ = null_maxima(fam, kernel_map, cell_units, options, random_state, n_threads,
                            layout)  # fmt: skip
    return maxima


def _check_metric_varies(n_units: int, n_successes: int, chosen) -> None:
    if n_units == 0:
        raise ValueError(f"no row is in the {chosen.name}'s denominator "
                         f"({chosen.den_description[0]}): nothing to compare")  # fmt: skip
    if n_successes in (0, n_units):
        raise ValueError(
            f"the {chosen.name} is {n_successes / n_units:g} in every row of its denominator: "
            "no slice can differ from its complement"
        )


def _nothing_to_test(options, n_big: int, largest: int) -> str:
    if n_big == 0:
        return (f"no slice has min_size={options.min_size} rows (the largest has {largest}); "
                "lower min_size")  # fmt: skip
    return (f"no slice of at least min_size={options.min_size} rows has rows both inside and "
            f"outside it in the {options.metric}'s denominator")  # fmt: skip


def _oriented(z: np.ndarray, alternative: str) -> np.ndarray:
    return np.abs(z) if alternative == "two-sided" else (z if alternative == "greater" else -z)


def _found(lattice, coded, fam, raw, adjusted, critical, size, options, chosen) -> tuple:
    """The significant slices, largest absolute difference first, with parents' values."""
    x, n = fam.successes.astype(np.float64), fam.units.astype(np.float64)
    value = x / n
    other = (fam.n_successes - x) / (fam.n_units - n)
    interval = simultaneous_intervals(value, other, n, fam.n_units - n, critical,
                                      options.alternative)  # fmt: skip
    rows_ = np.flatnonzero(adjusted <= options.alpha)
    rows_ = rows_[np.argsort(-np.abs(value - other)[rows_], kind="stable")]
    keys = _slice_keys(lattice)
    lookup = {key: s for s, key in enumerate(keys)}
    lattice_success, lattice_units = rate_parts(lattice.counts, chosen.num_masks[0],
                                                chosen.den_masks[0])  # fmt: skip
    found = []
    for r in rows_:
        s = int(fam.index[r])
        preds = _predicates(keys[s], coded)
        parents = _parents(keys[s], lookup, coded, lattice_success, lattice_units, fam)
        found.append(found_slice(preds, size[s], r, fam, interval, raw, adjusted, parents))
    return tuple(found)


def _slice_keys(lattice) -> list:
    """Each slice as a tuple of (feature index, level code) pairs."""
    keys = []
    for t, levels in zip(lattice.slice_set.tolist(), lattice.slice_levels.tolist()):
        features = lattice.sets[t]
        keys.append(tuple(zip(features, levels[: len(features)])))
    return keys


def _predicates(key, coded) -> tuple:
    return tuple((coded.names[f], coded.levels[f][level]) for f, level in key)


def _parents(key, lookup, coded, success, units, fam) -> tuple:
    """(description, value) of each slice with one predicate fewer; all rows at depth 1."""
    if len(key) == 1:
        return (("all rows", fam.n_successes / fam.n_units),)
    out = []
    for drop in range(len(key)):
        parent = key[:drop] + key[drop + 1 :]
        s = lookup[parent]
        value = success[s] / units[s] if units[s] else float("nan")
        out.append((describe(_predicates(parent, coded)), float(value)))
    return tuple(out)
