"""Mergeable sufficient statistics: build them per batch or partition, add them, then test.

Each object summarises some rows so that the test of the whole data needs only the sum of
the summaries: ``ConfusionStats.from_arrays(batch_1) + ConfusionStats.from_arrays(batch_2)``
equals ``ConfusionStats.from_arrays(both batches)``, and addition is associative and
commutative, so batches may be merged in any order (a tree reduction on a cluster). The
tests then run the same inference code as the in-memory functions.

- :class:`ConfusionStats`: confusion counts (TN, FP, FN, TP) per group, or per intersection
  of several group columns. ``.test()`` is :func:`fastfair.permutation_test_from_counts`,
  identical to :func:`fastfair.permutation_test` on the rows (exact p-values and all).
- :class:`ScoreStats`: per group, the counts of positives and negatives at each distinct
  score. The Mann-Whitney AUC and the DeLong variance are exact functions of these counts,
  so ``.delong()`` and ``.test()`` (the DeLong z-test) equal :func:`fastfair.delong` and
  ``auc_test(method="delong")`` up to floating-point summation order (1e-12 relative).
  Rounded scores (e.g. 4 decimals) keep the summary small; for continuous scores pass
  ``resolution=h``: scores are binned to multiples of h, and the AUC of the binned form is
  within ``auc_error_bound`` of the exact AUC (pairs sharing a bin count one half in the
  summary, 0 or 1 in the data).
- :class:`ScoreRuns`: for any scores (float64, untied), each batch's rows sorted by score
  (a run); ``+`` lists the runs and one k-way merge (O(n log k)) gives
  :class:`PlacementSums`, the exact integer DeLong placement sums per group, equal to one
  sort of all the rows. ``PlacementSums.followed_by`` adds the sums of score-ordered parts
  (the partitions of a distributed sort).
- :class:`MeanStats`: count, sum and sum of squares of a value per group; the Welch
  statistic and its normal p-value (``mean_difference_test(method="asymptotic")``).

The audit's summary of several attributes (:class:`fastfair.engines.attributes.AuditSummary`)
is built from these and :class:`fastfair.engines.cube.ConfusionCube`.

The public import path is :mod:`fastfair.stats` (a re-export of this module).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from fastfair import _counts
from fastfair._groups import add_by_labels, intersection_codes, merge_labels
from fastfair._metrics import CELL_Y_PRED, CELL_Y_TRUE, cell_index
from fastfair._validation import (
    align_index,
    as_binary,
    as_finite_float,
    as_groups,
    check_same_length,
    score_threshold,
    show_value,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

    from numpy.typing import ArrayLike

    from fastfair.auc import AUCTestResult, DeLongResult
    from fastfair.permutation import PermutationTestResult
    from fastfair.planning import PilotPlanResult


__all__ = [
    "ConfusionStats",
    "MeanStats",
    "PlacementSums",
    "ScoreRuns",
    "ScoreStats",
]


class _GroupSubset:
    """``select``: the summary of some of its groups, for summaries whose fields named in
    `_PER_GROUP` hold one entry per group (an array or a tuple, in label order)."""

    _PER_GROUP: ClassVar[tuple[str, ...]]

    def select(self, labels: Sequence) -> Any:
        """The summary of some of the groups (kept in label order).

        Parameters
        ----------
        labels : sequence
            Labels of groups of this summary.

        Returns
        -------
        ScoreStats or PlacementSums
            The same kind of summary, with only those groups.

        Examples
        --------
        >>> from fastfair.stats import ScoreStats
        >>> stats = ScoreStats.from_arrays([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.3], list("caba"))
        >>> stats.select(["c", "a"]).labels.tolist()
        ['a', 'c']
        """
        rows = _positions(self.labels, labels)
        picked = {}
        for name in self._PER_GROUP:
            values = getattr(self, name)
            picked[name] = tuple(values[k] for k in rows) if isinstance(values, tuple) else (
                values[rows]
            )  # fmt: skip
        return dataclasses.replace(self, **picked)


class _DeLongTest:
    """``test``: the DeLong z-test of a summary's ``delong()``."""

    def test(self, **options: Any) -> AUCTestResult:
        """The DeLong z-test of equal AUCs: ``auc_test(method="delong")`` on the rows.

        Parameters
        ----------
        **options
            Arguments of :func:`fastfair.auc.auc_test_from_delong` (``alternative``,
            ``reference``, ``comparisons``, ``adjust``, ``confidence_level``).

        Returns
        -------
        fastfair.auc.AUCTestResult
        """
        from fastfair.auc import auc_test_from_delong

        return auc_test_from_delong(self.delong(), **options)


def _delong_result(labels, totals, auc, s10, s01) -> DeLongResult:
    """The DeLongResult of groups `labels` from their (negatives, positives) `totals`, AUCs
    and the variances of their placements."""
    from fastfair.auc import DeLongResult

    return DeLongResult(
        groups=labels,
        auc=auc,
        variance=s10 / totals[:, 1] + s01 / totals[:, 0],
        s10=s10,
        s01=s01,
        n_pos=totals[:, 1].copy(),
        n_neg=totals[:, 0].copy(),
    )


@dataclass(frozen=True, eq=False)
class ConfusionStats:
    """Confusion counts per group: ``counts[k] = (TN, FP, FN, TP)`` of group ``labels[k]``.

    With several group columns, the groups are their intersections and each label is a tuple.

    Examples
    --------
    >>> from fastfair.stats import ConfusionStats
    >>> a = ConfusionStats.from_arrays([1, 0, 1], [1, 0, 0], ["x", "y", "y"])
    >>> b = ConfusionStats.from_arrays([1, 1], [1, 1], ["z", "x"])
    >>> merged = a + b
    >>> merged.labels.tolist(), merged.counts.tolist()
    (['x', 'y', 'z'], [[0, 0, 0, 2], [1, 0, 1, 0], [0, 0, 0, 1]])
    """

    labels: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_pred: ArrayLike,
        *groups: ArrayLike,
        pos_label: Hashable | None = None,
    ) -> ConfusionStats:
        """Counts of the rows given (one batch); `groups`: one or more group columns."""
        if not groups:
            raise TypeError("give at least one group column")
        aligned = align_index(
            y_true=y_true, y_pred=y_pred, **{f"groups[{j}]": g for j, g in enumerate(groups)}
        )
        y_true, y_pred, *groups = aligned.values()
        y = as_binary(y_true, "y_true", pos_label)
        yhat = as_binary(y_pred, "y_pred", pos_label)
        check_same_length(y_true=y, y_pred=yhat, group=groups[0])
        codes, labels = intersection_codes(groups, len(y))
        check_same_length(y_true=y, group=codes)
        cell = cell_index(y, yhat)
        w, _ = _counts.cell_sums(cell, codes, len(labels), None)
        return cls(labels, w.astype(np.int64))

    def __add__(self, other: ConfusionStats) -> ConfusionStats:
        if not isinstance(other, ConfusionStats):
            return NotImplemented
        return ConfusionStats(*add_by_labels(self.labels, self.counts, other.labels, other.counts))

    def plan(self, metric: str, *, tau: float, **options: Any) -> PilotPlanResult:
        """:func:`fastfair.planning.plan_from_data` with these counts as the pilot.

        For a rate metric the pilot plan uses only each group's confusion counts (point
        rates, and multinomial resampling of the counts for the interval of n), so the plan
        of a pilot summarised batch by batch is identical to the plan of its rows (same
        `random_state`). The rows are rebuilt from the counts for the call (a pilot is
        small: memory O(pilot rows)). ``metric="auc"`` needs the scores: refused.

        Parameters
        ----------
        metric : str
            A rate metric, as in :func:`fastfair.planning.plan_from_data`.
        tau : float
            The unfairness the main audit must detect.
        **options
            Further arguments of :func:`fastfair.planning.plan_from_data` (``u_tol``,
            ``alpha``, ``power``, ``allocation``, ``n_bootstrap``, ``random_state``, ...).

        Returns
        -------
        fastfair.planning.PilotPlanResult

        Examples
        --------
        >>> from fastfair.stats import ConfusionStats
        >>> pilot = ConfusionStats.from_arrays([1, 1, 0, 1, 1, 0] * 50, [1, 0, 0, 1, 0, 1] * 50,
        ...                                    ["a", "a", "a", "b", "b", "b"] * 50)
        >>> res = pilot.plan("tpr", tau=0.1, random_state=0)
        >>> res.pilot_n_per_group.tolist()
        [150, 150]
        """
        from fastfair._validation import GroupCodes
        from fastfair.planning import plan_from_data

        if str(metric).lower() == "auc":
            raise ValueError("metric 'auc' needs the scores: plan it with plan_from_data")
        k = len(self.labels)
        n = self.counts.ravel()
        cell = np.repeat(np.tile(np.arange(4, dtype=np.uint8), k), n)
        groups = np.repeat(np.repeat(np.arange(k), 4), n)
        labels = self.labels
        if labels.dtype.kind == "O" and labels.size and isinstance(labels[0], tuple):
            labels = np.array([" & ".join(map(str, g)) for g in labels.tolist()], dtype=object)
        return plan_from_data(
            CELL_Y_TRUE[cell],
            CELL_Y_PRED[cell],
            GroupCodes(groups, labels),
            metric,
            tau=tau,
            **options,
        )

    def test(self, **options: Any) -> PermutationTestResult:
        """:func:`fastfair.permutation_test_from_counts` on these counts.

        Parameters
        ----------
        **options
            Arguments of :func:`fastfair.permutation_test_from_counts` (``metric``,
            ``method``, ``n_permutations``, ``random_state``, ...); the groups are these
            labels (an intersection's labels joined by " & ").

        Returns
        -------
        fastfair.PermutationTestResult
        """
        from fastfair.permutation import permutation_test_from_counts

        groups = self.labels
        if groups.dtype.kind == "O" and groups.size and isinstance(groups[0], tuple):
            groups = np.array([" & ".join(map(str, g)) for g in groups.tolist()], dtype=object)
        return permutation_test_from_counts(self.counts, groups=groups, **options)


@dataclass(frozen=True, eq=False)
class ScoreStats(_GroupSubset, _DeLongTest):
    """Counts of negatives and positives at each distinct score, per group.

    ``counts[k, 0, v]`` and ``counts[k, 1, v]`` are the negatives and positives of group
    ``labels[k]`` with score ``values[v]``. With ``resolution=h``, ``values`` are the bins
    ``floor(score / h) * h`` and the AUC is summarised, exact to within `auc_error_bound`.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> from fastfair.stats import ScoreStats
    >>> rng = np.random.default_rng(0)
    >>> y, g = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> s = np.round(0.3 * y + 0.7 * rng.random(400), 2)
    >>> stats = ScoreStats.from_arrays(y[:150], s[:150], g[:150]) + ScoreStats.from_arrays(
    ...     y[150:], s[150:], g[150:])
    >>> np.allclose(stats.delong().auc, fastfair.delong(y, s, g).auc, rtol=1e-12)
    True
    """

    labels: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    resolution: float | None = None

    _PER_GROUP = ("labels", "counts")

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike,
        group: ArrayLike,
        *,
        resolution: float | None = None,
        pos_label: Hashable | None = None,
    ) -> ScoreStats:
        y_true, y_score, group = align_index(y_true=y_true, y_score=y_score, group=group).values()
        y = as_binary(y_true, "y_true", pos_label)
        score = as_finite_float(y_score, "y_score")
        check_same_length(y_true=y, y_score=score, group=group)
        codes, labels = as_groups(group, "group", min_groups=1)
        if resolution is not None:
            if not resolution > 0:
                raise ValueError(f"resolution must be positive, got {resolution!r}")
            score = np.floor(score / resolution) * resolution
        where, values = as_groups(score, "y_score", min_groups=1)  # a hash, not a sort
        cell = (codes * 2 + y) * len(values) + where
        counts = np.bincount(cell, minlength=len(labels) * 2 * len(values))
        counts = counts.reshape(len(labels), 2, len(values)).astype(np.int64)
        return cls(labels, values, counts, resolution)

    def __add__(self, other: ScoreStats) -> ScoreStats:
        if not isinstance(other, ScoreStats):
            return NotImplemented
        if self.resolution != other.resolution:
            raise ValueError("cannot add summaries binned at different resolutions")
        labels, ia, ib = merge_labels(self.labels, other.labels)
        values = np.union1d(self.values, other.values)
        va = np.searchsorted(values, self.values)
        vb = np.searchsorted(values, other.values)
        counts = np.zeros((len(labels), 2, len(values)), dtype=np.int64)
        counts[np.ix_(ia, [0, 1], va)] += self.counts
        counts[np.ix_(ib, [0, 1], vb)] += other.counts
        return ScoreStats(labels, values, counts, self.resolution)

    @property
    def auc_error_bound(self) -> np.ndarray:
        """Per group, the largest possible |AUC of this summary - AUC of the rows|.

        Zero for unbinned scores. Binned: a positive and a negative in the same bin count one
        half here and 0 or 1 in the data, so the error is at most
        sum_v pos_v neg_v / (2 n_pos n_neg).
        """
        if self.resolution is None:
            return np.zeros(len(self.labels))
        neg, pos = self.counts[:, 0, :], self.counts[:, 1, :]
        n0, n1 = neg.sum(axis=1), pos.sum(axis=1)
        return (neg * pos).sum(axis=1) / (2.0 * n0 * n1)

    def delong(self) -> DeLongResult:
        """Per-group AUC and DeLong variance: :class:`fastfair.auc.DeLongResult`.

        With P_v, N_v the positives and negatives at score v: a positive at v outranks
        V10 = (N_{<v} + N_v/2)/n_neg of the negatives, a negative at v is outranked by
        V01 = (P_{>v} + P_v/2)/n_pos of the positives; AUC is the mean of V10 (and of V01),
        s10 and s01 their sample variances, variance = s10/n_pos + s01/n_neg (DeLong 1988).

        Returns
        -------
        fastfair.auc.DeLongResult
            Per group: AUC, its variance, s10, s01, positives and negatives.
        """
        from fastfair._comparisons import check_auc_defined

        neg = self.counts[:, 0, :].astype(np.float64)
        pos = self.counts[:, 1, :].astype(np.float64)
        n0, n1 = neg.sum(axis=1), pos.sum(axis=1)
        tot = np.column_stack([n0, n1]).astype(np.int64)
        check_auc_defined(tot, self.labels, range(len(self.labels)))
        below = np.cumsum(neg, axis=1) - neg
        above = n1[:, None] - np.cumsum(pos, axis=1)
        v10 = (below + neg / 2.0) / n0[:, None]
        v01 = (above + pos / 2.0) / n1[:, None]
        auc = (pos * v10).sum(axis=1) / n1
        ss10 = (pos * (v10 - auc[:, None]) ** 2).sum(axis=1)
        ss01 = (neg * (v01 - auc[:, None]) ** 2).sum(axis=1)
        s10 = np.divide(ss10, n1 - 1, out=np.zeros_like(ss10), where=n1 > 1)  # one: 0
        s01 = np.divide(ss01, n0 - 1, out=np.zeros_like(ss01), where=n0 > 1)
        return _delong_result(self.labels, tot, auc, s10, s01)


#: Groups a run can code: its codes are uint16, 2 * group + label.
MAX_RUN_GROUPS = 1 << 15


@dataclass(frozen=True, eq=False)
class PlacementSums(_GroupSubset, _DeLongTest):
    """Per group, the exact DeLong placement sums of some rows (O(groups) integers).

    A positive of group g has the placement ``L = 2 * (negatives of g scored below it) +
    (negatives of g tied with it)`` (in half-units), a negative ``M = 2 * (positives of g
    scored above it) + (positives of g tied with it)``. ``pos_sum``/``pos_squares`` add up L
    and L^2 over the positives, ``neg_sum``/``neg_squares`` M and M^2 over the negatives, as
    Python integers (exact at any size). The AUC is ``pos_sum / (2 n_neg n_pos)`` and the
    DeLong variances follow exactly (:meth:`delong`).

    Sums of rows that are ordered by score (every score of `other` above every score of
    this one, as the partitions of a distributed sort are) combine with
    :meth:`followed_by`: the placements of the later rows are shifted by the counts of the
    earlier ones, so only these numbers (never the rows) need to travel.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> from fastfair.stats import PlacementSums
    >>> rng = np.random.default_rng(0)
    >>> y, g, s = rng.integers(0, 2, 400), rng.integers(0, 2, 400), rng.random(400)
    >>> order = np.argsort(s)
    >>> low, high = order[:250], order[250:]
    >>> sums = PlacementSums.from_arrays(y[low], s[low], g[low]).followed_by(
    ...     PlacementSums.from_arrays(y[high], s[high], g[high]))
    >>> np.allclose(sums.delong().auc, fastfair.delong(y, s, g).auc, rtol=1e-12)
    True
    """

    labels: np.ndarray
    n_neg: np.ndarray
    n_pos: np.ndarray
    pos_sum: tuple
    pos_squares: tuple
    neg_sum: tuple
    neg_squares: tuple
    low: float | None = None
    high: float | None = None

    _PER_GROUP = ("labels", "n_neg", "n_pos", "pos_sum", "pos_squares", "neg_sum", "neg_squares")

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike,
        group: ArrayLike,
        *,
        pos_label: Hashable | None = None,
    ) -> PlacementSums:
        """The sums of the rows given (sorted here once)."""
        return ScoreRuns.from_arrays(y_true, y_score, group, pos_label=pos_label).placements()

    def followed_by(self, other: PlacementSums) -> PlacementSums:
        """The sums of these rows and `other`'s, whose scores are all above these.

        Parameters
        ----------
        other : PlacementSums
            The sums of rows scored above every row of these.

        Returns
        -------
        PlacementSums
            The sums of both sets of rows, as of one sort of them all.

        Raises
        ------
        ValueError
            A score of `other` is not above every score of these rows (ties or overlap
            across the two: their placements would need the rows).
        """
        if self.high is None:
            return other
        if other.low is None:
            return self
        if not self.high < other.low:
            raise ValueError(
                f"followed_by needs the second rows' scores above the first's, got "
                f"{other.low!r} after {self.high!r}"
            )
        labels, ia, ib = merge_labels(self.labels, other.labels)
        a, b = _spread(self, ia, len(labels)), _spread(other, ib, len(labels))
        n0a, n1b = a["n_neg"], b["n_pos"]
        pos_sum = [x + y + 2 * p * q for x, y, p, q in zip(a["pos_sum"], b["pos_sum"], n0a, n1b)]
        pos_sq = [
            x + y + 4 * p * s + 4 * p * p * q
            for x, y, p, s, q in zip(a["pos_squares"], b["pos_squares"], n0a, b["pos_sum"], n1b)
        ]
        neg_sum = [x + y + 2 * q * p for x, y, p, q in zip(a["neg_sum"], b["neg_sum"], n0a, n1b)]
        neg_sq = [
            x + y + 4 * q * s + 4 * q * q * p
            for x, y, p, s, q in zip(a["neg_squares"], b["neg_squares"], n0a, a["neg_sum"], n1b)
        ]
        return PlacementSums(
            labels,
            np.asarray(a["n_neg"], dtype=np.int64) + np.asarray(b["n_neg"], dtype=np.int64),
            np.asarray(a["n_pos"], dtype=np.int64) + np.asarray(b["n_pos"], dtype=np.int64),
            tuple(pos_sum), tuple(pos_sq), tuple(neg_sum), tuple(neg_sq),
            self.low, other.high,
        )  # fmt: skip

    def all_tied(self) -> np.ndarray:
        """Per group, whether every positive ties with every negative (both present): then
        all its scores are equal (each L is n_neg and each M n_pos exactly when the sums
        and sums of squares say so), the AUC 0.5 by ties alone.

        Returns
        -------
        numpy.ndarray of bool
        """
        out = []
        for k in range(len(self.labels)):
            n0, n1 = int(self.n_neg[k]), int(self.n_pos[k])
            out.append(
                n0 > 0 and n1 > 0
                and self.pos_sum[k] == n1 * n0 and self.pos_squares[k] == n1 * n0 * n0
                and self.neg_sum[k] == n0 * n1 and self.neg_squares[k] == n0 * n1 * n1
            )  # fmt: skip
        return np.array(out, dtype=bool)

    def delong(self) -> DeLongResult:
        """Per-group AUC and DeLong variance (:class:`fastfair.auc.DeLongResult`), from the
        exact integer sums (one rounding per quantity).

        Returns
        -------
        fastfair.auc.DeLongResult
        """
        from fastfair._comparisons import check_auc_defined

        tot = np.column_stack([self.n_neg, self.n_pos]).astype(np.int64)
        check_auc_defined(tot, self.labels, range(len(self.labels)))
        auc, s10, s01 = [], [], []
        for k in range(len(self.labels)):
            n0, n1 = int(self.n_neg[k]), int(self.n_pos[k])
            auc.append(self.pos_sum[k] / (2 * n0 * n1))
            s10.append(_sample_variance(self.pos_sum[k], self.pos_squares[k], n1, 2 * n0))
            s01.append(_sample_variance(self.neg_sum[k], self.neg_squares[k], n0, 2 * n1))
        return _delong_result(self.labels, tot, np.array(auc), np.array(s10), np.array(s01))


def _positions(known: np.ndarray, labels: Sequence) -> list[int]:
    """Positions in `known` of the groups `labels`, ascending (a summary's groups stay in
    label order); a label not in `known` is named."""
    index = {g: k for k, g in enumerate(known.tolist())}
    unknown = [g for g in labels if g not in index]
    if unknown:
        raise ValueError(f"no group {show_value(unknown[0])} in the summary")
    return sorted(index[g] for g in labels)


def _sample_variance(total: int, squares: int, m: int, scale: int) -> float:
    """Sample variance (ddof 1) of m values x / scale with sum `total` and sum of squares
    `squares` of the x, exact until the one division (0 for one value)."""
    if m < 2:
        return 0.0
    return (m * squares - total * total) / (scale * scale * m * (m - 1))


def _spread(sums: PlacementSums, index: np.ndarray, n: int) -> dict:
    """`sums`' per-group fields moved to positions `index` of n groups (zeros elsewhere)."""
    out = {}
    for name in ("n_neg", "n_pos", "pos_sum", "pos_squares", "neg_sum", "neg_squares"):
        values = [0] * n
        for k, v in zip(index.tolist(), getattr(sums, name)):
            values[k] = int(v)
        out[name] = values
    return out


def _grouping(cells: np.ndarray, key) -> tuple[np.ndarray, np.ndarray]:
    """(the sorted groups of a grouping of `cells`, each cell's group code)."""
    if key is None:
        values = cells.tolist()
    else:
        values = [key(v) for v in cells.tolist()]
    if key is None and all(a < b for a, b in itertools.pairwise(values)):
        labels = cells
    else:
        labels = np.empty(len(set(values)), dtype=object)
        labels[:] = sorted(set(values))
        if cells.dtype.kind != "O" and key is None:
            labels = labels.astype(cells.dtype)
    position = {v: k for k, v in enumerate(labels.tolist())}
    return labels, np.array([position[v] for v in values], dtype=np.intp)


def _placement_sums(labels, totals, lin, sq, low, high) -> PlacementSums:
    """PlacementSums of groups `labels` from the merge's counts and words."""
    big = [[int(w[0]) + (int(w[1]) << 64), int(w[2]) + (int(w[3]) << 64)] for w in sq]
    return PlacementSums(
        labels, totals[:, 0].copy(), totals[:, 1].copy(),
        tuple(int(v) for v in lin[:, 1]), tuple(b[0] for b in big),
        tuple(int(v) for v in lin[:, 0]), tuple(b[1] for b in big),
        low, high,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class _Run:
    """One batch's rows sorted by score: labels of its groups, scores, codes 2 * group +
    label (uint16), and its negatives and positives per group."""

    labels: np.ndarray
    scores: np.ndarray
    codes: np.ndarray
    totals: np.ndarray
    mapped: bool = False


@dataclass(frozen=True, eq=False)
class ScoreRuns(_DeLongTest):
    """Exact AUC summary of any scores, mergeable in O(n log k) for k batches.

    Each batch becomes a sorted run (its rows sorted by score once: 10 bytes a row, the
    score and a 2-byte code of group and label); ``a + b`` only lists the runs (no sort,
    no copy), and :meth:`placements` merges the k runs in one pass through a heap (a k-way
    merge, :func:`fastfair._runs.merge_placements`) into the exact DeLong sums of every
    group, :class:`PlacementSums`, from which :meth:`delong` and :meth:`test` follow. The
    sums are integers, so they equal those of one sort of all the rows, whatever the
    batches and ties across them; the AUC and DeLong results equal :func:`fastfair.delong`
    on the rows up to floating-point rounding (1e-12 relative).

    Unlike :class:`ScoreStats`, memory grows with the rows, not with the distinct scores:
    use it for untied (float64) scores; :meth:`spill` moves the runs to Arrow IPC files
    (memory-mapped back for the merge) when they do not fit.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> from fastfair.stats import ScoreRuns
    >>> rng = np.random.default_rng(0)
    >>> y, g = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> s = 0.3 * y + 0.7 * rng.random(400)
    >>> runs = ScoreRuns.from_arrays(y[:150], s[:150], g[:150]) + ScoreRuns.from_arrays(
    ...     y[150:], s[150:], g[150:])
    >>> np.allclose(runs.delong().auc, fastfair.delong(y, s, g).auc, rtol=1e-12)
    True
    """

    runs: tuple

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike,
        group: ArrayLike,
        *,
        pos_label: Hashable | None = None,
    ) -> ScoreRuns:
        """One run: the rows given, checked (binary labels, finite scores) and sorted; no
        run for an empty batch."""
        if len(y_true) == 0 and len(y_score) == 0 and len(group) == 0:
            return cls(())
        y_true, y_score, group = align_index(y_true=y_true, y_score=y_score, group=group).values()
        y = as_binary(y_true, "y_true", pos_label)
        score = as_finite_float(y_score, "y_score")
        check_same_length(y_true=y, y_score=score, group=group)
        codes, labels = as_groups(group, "group", min_groups=1)
        return cls.from_codes(y, score, codes, labels)

    @classmethod
    def from_codes(cls, y: np.ndarray, score: np.ndarray, codes, labels, *, order=None):
        """One run from checked columns: 0/1 labels, finite float64 scores, group codes
        into `labels`. With `order` (the permutation that sorted them), `y` and `score` are
        already in sorted order and `codes` in the original order: several group columns of
        one batch then share one sort and one sorted score array."""
        from fastfair._auc import sort_order

        if len(labels) > MAX_RUN_GROUPS:
            raise ValueError(
                f"the exact AUC summary codes at most {MAX_RUN_GROUPS:,} groups, got "
                f"{len(labels):,}"
            )
        codes = np.asarray(codes)
        if order is None:
            order = sort_order(np.ascontiguousarray(score, dtype=np.float64))
            y, score = np.asarray(y)[order], score[order]
        code = (codes[order].astype(np.uint16) << 1) | np.asarray(y).astype(np.uint16)
        totals = np.bincount(code, minlength=2 * len(labels)).reshape(-1, 2).astype(np.int64)
        return cls((_Run(np.asarray(labels), score, code, totals),))

    def __add__(self, other: ScoreRuns) -> ScoreRuns:
        if not isinstance(other, ScoreRuns):
            return NotImplemented
        return ScoreRuns(self.runs + other.runs)

    def rows(
        self, labels: Sequence, key: Callable | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of the groups `labels`, run after run (each run sorted by score).

        What a test that needs the rows themselves reads (the AUC permutation test);
        the DeLong sums need only :meth:`placements`.

        Parameters
        ----------
        labels : sequence
            The groups whose rows are wanted; the index of each row refers to it.
        key : callable, optional
            The runs' group ``v`` counts as group ``key(v)`` (runs coded by cell: a cell's
            levels of some attributes, as in :meth:`placements_by`); None: itself.

        Returns
        -------
        y : numpy.ndarray of uint8
            Each row's label (0/1).
        score : numpy.ndarray of float64
            Each row's score.
        index : numpy.ndarray of intp
            Each row's position in `labels`.

        Examples
        --------
        >>> from fastfair.stats import ScoreRuns
        >>> runs = ScoreRuns.from_arrays([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.3], list("caba"))
        >>> y, score, index = runs.rows(["c", "a"])
        >>> y.tolist(), score.tolist(), index.tolist()
        ([0, 0, 1], [0.1, 0.3, 0.9], [1, 1, 0])
        """
        wanted = {v: k for k, v in enumerate(labels)}
        project = (lambda v: v) if key is None else key
        held = {project(v) for r in self.runs for v in r.labels.tolist()}
        known = np.empty(len(held), dtype=object)
        known[:] = list(held)
        _positions(known, labels)  # names a group that is not here
        ys, scores, index = [], [], []
        for r in self.runs:
            table = [wanted.get(project(v), -1) for v in r.labels.tolist()]
            table = np.array(table, dtype=np.intp)
            where = table[np.asarray(r.codes) >> 1]
            keep = where >= 0
            ys.append((np.asarray(r.codes)[keep] & 1).astype(np.uint8))
            scores.append(np.asarray(r.scores)[keep])
            index.append(where[keep])
        if not ys:
            return np.zeros(0, np.uint8), np.zeros(0, np.float64), np.zeros(0, np.intp)
        return np.concatenate(ys), np.concatenate(scores), np.concatenate(index)

    @property
    def nbytes(self) -> int:
        """Bytes of the runs held in memory (not those spilled to a file)."""
        return sum(r.scores.nbytes + r.codes.nbytes for r in self.runs if not r.mapped)

    def spill(self, directory: str) -> ScoreRuns:
        """The same runs, those in memory written to one Arrow IPC file in `directory` and
        memory-mapped back: the operating system pages them in and out during the merge.

        Parameters
        ----------
        directory : str
            Where the file goes (it is unlinked at once; the mapping keeps it readable).

        Returns
        -------
        ScoreRuns
            The same runs, all of them mapped.
        """
        import os
        import tempfile

        import pyarrow as pa

        fd, path = tempfile.mkstemp(suffix=".arrow", dir=directory)
        os.close(fd)
        schema = pa.schema([("score", pa.float64()), ("code", pa.uint16())])
        moved = [r for r in self.runs if not r.mapped]
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
            for r in moved:
                writer.write_batch(pa.record_batch([r.scores, r.codes], schema=schema))
        reader = pa.ipc.open_file(pa.memory_map(path, "r"))
        runs = [r for r in self.runs if r.mapped]
        for k, r in enumerate(moved):
            batch = reader.get_batch(k)
            scores, codes = (batch.column(j).to_numpy(zero_copy_only=True) for j in (0, 1))
            runs.append(_Run(r.labels, scores, codes, r.totals, mapped=True))
        os.unlink(path)  # the mapping keeps the data until the arrays go
        return ScoreRuns(tuple(runs))

    @functools.cached_property
    def _sums(self) -> PlacementSums:
        return self.placements_by([None])[0]

    def _cells(self) -> tuple[np.ndarray, list, np.ndarray]:
        """(the runs' groups, each run's codes into them, their negatives and positives).
        Runs whose labels are each a prefix of one list (an engine's groups numbered as
        they appear) keep their codes: no copy; otherwise the labels are merged (sorted)
        and the codes remapped."""
        if not self.runs:
            raise ValueError("the summary holds no rows")
        longest = max((r.labels for r in self.runs), key=len)
        head = longest.tolist()
        if all(r.labels.tolist() == head[: len(r.labels)] for r in self.runs):
            labels = longest
            codes = [r.codes for r in self.runs]
            totals = np.zeros((len(labels), 2), dtype=np.int64)
            for r in self.runs:
                totals[: len(r.labels)] += r.totals
            return labels, codes, totals
        labels = functools.reduce(
            lambda a, b: merge_labels(a, b)[0], (r.labels for r in self.runs)
        )
        codes, totals = [], np.zeros((len(labels), 2), dtype=np.int64)
        for r in self.runs:
            _, _, where = merge_labels(labels, r.labels)
            totals[where] += r.totals
            code = r.codes
            if not np.array_equal(where, np.arange(len(r.labels))):
                table = np.empty(2 * len(r.labels), dtype=np.uint16)
                table[0::2], table[1::2] = 2 * where, 2 * where + 1
                code = table[code]
            codes.append(code)
        return labels, codes, totals

    def placements_by(self, keys: Sequence) -> list[PlacementSums]:
        """The exact DeLong sums of several groupings of the runs' groups, from one k-way
        merge: e.g. each attribute and each intersection, from runs coded by the cells
        of all the attributes (the rows sorted and merged once for every grouping).

        Parameters
        ----------
        keys : sequence of callables or None
            Grouping j puts the rows of the runs' group ``label`` in group
            ``keys[j](label)`` (None: the groups themselves).

        Returns
        -------
        list of PlacementSums
            One per grouping, its groups sorted; each equal to the sums of runs coded by
            that grouping's groups.

        Examples
        --------
        >>> from fastfair.stats import ScoreRuns
        >>> runs = ScoreRuns.from_arrays([1, 0, 1, 0, 1], [0.9, 0.1, 0.4, 0.3, 0.2],
        ...                              ["F-x", "M-x", "F-y", "M-y", "M-x"])
        >>> by_sex, whole = runs.placements_by([lambda cell: cell[0], None])
        >>> by_sex.labels.tolist(), whole.labels.tolist()
        (['F', 'M'], ['F-x', 'F-y', 'M-x', 'M-y'])
        """
        from fastfair._runs import merge_placements

        cells, codes, totals = self._cells()
        groupings, columns, offset = [], [], 0
        for key in keys:
            labels, column = _grouping(cells, key)
            groupings.append((labels, offset))
            columns.append(offset + column)
            offset += len(labels)
        cell_groups = np.ascontiguousarray(np.column_stack(columns), dtype=np.int32)
        group_totals = np.zeros((offset, 2), dtype=np.int64)
        for column in columns:
            np.add.at(group_totals, column, totals)
        scores = [r.scores for r in self.runs]
        lin, sq = merge_placements(scores, codes, cell_groups, offset, group_totals)
        present = [s for s in scores if len(s)]
        low = min(float(s[0]) for s in present) if present else None
        high = max(float(s[-1]) for s in present) if present else None
        return [
            _placement_sums(labels, group_totals[a : a + len(labels)],
                            lin[a : a + len(labels)], sq[a : a + len(labels)], low, high)
            for labels, a in groupings
        ]  # fmt: skip

    def placements(self) -> PlacementSums:
        """The exact DeLong sums of all the runs' rows: one k-way merge (cached).

        Returns
        -------
        PlacementSums
            Per group, the counts and the integer placement sums of the rows.
        """
        return self._sums

    @property
    def labels(self) -> np.ndarray:
        return self._sums.labels

    def all_tied(self) -> np.ndarray:
        """Per group, whether all its scores are equal (:meth:`PlacementSums.all_tied`).

        Returns
        -------
        numpy.ndarray of bool
        """
        return self._sums.all_tied()

    def select(self, labels: Sequence) -> PlacementSums:
        """The placement sums of some of the groups (:meth:`PlacementSums.select`).

        Parameters
        ----------
        labels : sequence
            Labels of groups of this summary.

        Returns
        -------
        PlacementSums
        """
        return self._sums.select(labels)

    def delong(self) -> DeLongResult:
        """Per-group AUC and DeLong variance, from the exact placement sums.

        Returns
        -------
        fastfair.auc.DeLongResult
        """
        return self._sums.delong()


@dataclass(frozen=True, eq=False)
class MeanStats:
    """Count, sum and sum of squares of a value per group (the Welch statistic's inputs).

    Sums of squares are taken about a fixed shift (the first batch's first value) so that
    the variance does not suffer cancellation when the mean is large.
    """

    labels: np.ndarray
    n: np.ndarray
    total: np.ndarray
    squares: np.ndarray
    shift: float

    @classmethod
    def from_arrays(
        cls, values: ArrayLike, group: ArrayLike, *, shift: float | None = None
    ) -> MeanStats:
        values, group = align_index(values=values, group=group).values()
        x = as_finite_float(values, "values")
        check_same_length(values=x, group=group)
        codes, labels = as_groups(group, "group", min_groups=1)
        shift = float(x[0]) if shift is None else float(shift)
        d = x - shift
        n = np.bincount(codes, minlength=len(labels)).astype(np.int64)
        total = np.bincount(codes, weights=d, minlength=len(labels))
        with np.errstate(over="ignore"):
            squares = np.bincount(codes, weights=d * d, minlength=len(labels))
        _check_squares(squares)
        return cls(labels, n, total, squares, shift)

    def __add__(self, other: MeanStats) -> MeanStats:
        if not isinstance(other, MeanStats):
            return NotImplemented
        labels, ia, ib = merge_labels(self.labels, other.labels)
        delta = other.shift - self.shift  # re-centre other's sums on self's shift
        o_total = other.total + other.n * delta
        o_squares = other.squares + 2 * delta * other.total + other.n * delta * delta
        n = np.zeros(len(labels), dtype=np.int64)
        total, squares = np.zeros(len(labels)), np.zeros(len(labels))
        for idx, (nn, t, q) in (
            (ia, (self.n, self.total, self.squares)),
            (ib, (other.n, o_total, o_squares)),
        ):
            np.add.at(n, idx, nn)
            np.add.at(total, idx, t)
            np.add.at(squares, idx, q)
        return MeanStats(labels, n, total, squares, self.shift)

    @property
    def mean(self) -> np.ndarray:
        return self.shift + self.total / self.n

    @property
    def variance(self) -> np.ndarray:
        """Sample variance (ddof=1) of each group."""
        centred = self.squares - self.total**2 / self.n
        return centred / (self.n - 1)

    def welch(self, a: Hashable, b: Hashable) -> tuple[float, float]:
        """Difference of means and Welch statistic of group `a` minus group `b`.

        Parameters
        ----------
        a, b : group label
            Labels of the two groups compared.

        Returns
        -------
        difference, statistic : float
            ``mean_a - mean_b`` and the Welch statistic (0 when the means are equal and both
            variances 0; +-inf when only the variances are 0, as mean_difference_test).

        Raises
        ------
        ValueError
            A group has fewer than 2 rows (its variance is undefined), or the sums of
            squares overflowed.
        """
        index = {g: k for k, g in enumerate(self.labels.tolist())}
        i, j = index[a], index[b]
        for k in (i, j):
            if self.n[k] < 2:
                raise ValueError(
                    f"group {show_value(self.labels[k])} has {self.n[k]} row(s): its variance "
                    "is undefined, and the Welch statistic needs at least 2 rows per group"
                )
        _check_squares(self.squares[[i, j]])
        _check_precision(self.total[[i, j]], self.squares[[i, j]])
        diff = self.mean[i] - self.mean[j]
        se = np.sqrt(self.variance[i] / self.n[i] + self.variance[j] / self.n[j])
        if se > 0:
            return float(diff), float(diff / se)
        return float(diff), 0.0 if diff == 0 else math.copysign(math.inf, diff)


#: Sums of squares below this are subnormal or near it: they have lost digits (or are 0).
_TINY_SQUARES = np.finfo(np.float64).tiny / np.finfo(np.float64).eps


def _check_precision(total: np.ndarray, squares: np.ndarray) -> None:
    """A ValueError when values that differ from the shift have squares that underflowed
    (values of about 1e-146 or less): the variance would be 0 or wrong, the statistic
    +-inf or wrong, read as a certain difference."""
    if np.any((total != 0) & (squares < _TINY_SQUARES)):
        raise ValueError(
            "the sums of squares of values underflow float64 (values of about 1e-146 or "
            "less about the first one): multiply the values by a power of ten (the Welch "
            "statistic does not change)"
        )


def _check_squares(squares: np.ndarray) -> None:
    """A ValueError when sums of squares overflowed (values of about 1e155 or more)."""
    if not np.isfinite(squares).all():
        raise ValueError(
            "the sums of squares of values overflow float64 (values of about 1e155 or more "
            "about the first one): divide the values by a power of ten (the Welch statistic "
            "does not change)"
        )


def release_memory() -> None:
    """Give memory freed by large summaries back to the operating system: the C heap
    (glibc keeps freed blocks of a few MiB, such as sorted runs, in its arenas; its
    ``malloc_trim`` returns their pages) and Arrow's pool (``release_unused``). Without
    it, memory freed after one phase of an audit at 10^8 rows still counts in the
    process's resident size during the next."""
    import ctypes
    import ctypes.util

    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except ImportError:
        pass
    name = ctypes.util.find_library("c")
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to trim
        pass


def checked_rows(label, pred, score, *, threshold, pos_label):
    """(label, prediction, score) of one batch, checked: binary labels, finite scores. A
    batch (a file, a partition) need not hold `pos_label`: the audit checks that it occurs
    in the whole column (:func:`fastfair.auditing.summaries.check_pos_label_seen`)."""
    y = as_binary(label, "label", pos_label, require_pos=False, pos_name="--pos-label")
    s = None if score is None else as_finite_float(score, "score")
    yhat = (
        None
        if pred is None
        else as_binary(pred, "prediction", pos_label, require_pos=False, pos_name="--pos-label")
    )
    if yhat is None:
        yhat = (s >= score_threshold(s, threshold, "score", "--threshold")).astype(np.uint8)
    return y, yhat, s
