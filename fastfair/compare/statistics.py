"""Sufficient statistics of a paired comparison.

Rates: per group, the counts of the eight paired cells ``4 * y + 2 * a + b`` (label, the
prediction of model A, of model B; csrc/_paired.pyx). Each model's rate, its variance and
the covariance of the two models' rates on the same rows are functions of those counts
(the delta method over rows, :func:`paired_moments`). AUC: each model's placements
(:func:`fastfair.delong`), whose products give the DeLong covariance of the two AUCs
(:func:`paired_auc_moments`). The gaps and their change are then the same for both
(:func:`gap_statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import _paired
from fastfair._groups import add_by_labels
from fastfair._parallel import threads_for
from fastfair._validation import (
    GroupCodes,
    align_index,
    as_binary,
    as_groups,
    check_same_length,
)
from fastfair.auc import delong
from fastfair.compare.ingest import _check_counts

if TYPE_CHECKING:
    from collections.abc import Hashable

    from numpy.typing import ArrayLike

    from fastfair._metrics import ConfusionMetric
    from fastfair.compare.results import ModelComparisonResult

#: Label, prediction of A and prediction of B of each paired cell 4 * y + 2 * a + b.
CELL_Y = np.arange(8) >> 2
CELL_A = (np.arange(8) >> 1) & 1
CELL_B = np.arange(8) & 1
#: Pseudo-rows added to every paired cell for the variances (Agresti & Min 2005): a group
#: whose rows all agree, or all move one way, still has a variance of its change.
PSEUDO_ROWS = 0.5
#: Cells (y, 1, 0) and (y, 0, 1) of label y: the discordant rows a swap exchanges.
A_ONLY = np.array([2, 6])
B_ONLY = np.array([1, 5])


def discordant(counts: np.ndarray) -> np.ndarray:
    """Discordant rows per group and label, shape (..., n_groups, 2)."""
    return counts[..., A_ONLY] + counts[..., B_ONLY]


@dataclass(frozen=True)
class PairedMoments:
    """Per group and part (..., n_groups, n_parts): each model's metric and variance, the
    covariance of the two, and each model's denominator (rows; for AUC, positive-negative
    pairs)."""

    value_a: np.ndarray
    value_b: np.ndarray
    variance_a: np.ndarray
    variance_b: np.ndarray
    covariance: np.ndarray
    den_a: np.ndarray
    den_b: np.ndarray


def _influence(tables, num, den):
    """A rate of every table and its influence per cell, (x_c - M w_c) / W (delta method)."""
    n_num, n_den = tables @ num, tables @ den
    safe = np.where(n_den > 0, n_den, 1.0)
    rate = np.where(n_den > 0, n_num / safe, 0.0)
    return rate, n_den, (num - rate[..., None] * den) / safe[..., None]


def paired_moments(tables: np.ndarray, metric: ConfusionMetric) -> PairedMoments:
    r"""Rates of both models and their paired variances from paired cell counts.

    `tables` has shape (..., n_groups, 8). For a rate :math:`M = \sum_i x_i / \sum_i w_i`
    (numerator and denominator indicators of the model's cell), row i's influence is
    :math:`u_i = (x_i - M w_i)/W`, :math:`\widehat{Var}(M) = \sum_i u_i^2` and
    :math:`\widehat{Cov}(M_A, M_B) = \sum_i u_{A,i} u_{B,i}`; rows of one paired cell share
    their influence, so the sums run over the 8 cells. For a rate whose denominator does not
    depend on the prediction this is :math:`M(1-M)/W` and McNemar's
    :math:`(p_{10} + p_{01} - (p_{10} - p_{01})^2)/W` for the change. The variances and the
    covariance are computed with `PSEUDO_ROWS` (1/2) added to every cell, Agresti & Min's
    (2005) adjustment for matched pairs: without it a small group whose predictions did not
    change (no discordant rows) would have a change of variance 0, known exactly, and a
    change of gaps would be called significant on the other group's evidence alone. The
    rates themselves are those of the rows. A rate with an empty denominator is 0 (only in
    permuted tables: observed ones are checked).
    """
    tables = np.asarray(tables, dtype=np.float64)
    padded = tables + PSEUDO_ROWS
    cells_a, cells_b = 2 * CELL_Y + CELL_A, 2 * CELL_Y + CELL_B
    out = {k: [] for k in ("value_a", "value_b", "variance_a", "variance_b", "covariance",
                           "den_a", "den_b")}  # fmt: skip
    for num_mask, den_mask in zip(metric.num_masks, metric.den_masks):
        parts = []
        for cells in (cells_a, cells_b):
            num = ((num_mask >> cells) & 1).astype(np.float64)
            den = ((den_mask >> cells) & 1).astype(np.float64)
            rate, n_den, _ = _influence(tables, num, den)
            parts.append((rate, n_den, _influence(padded, num, den)[2]))
        (ra, da, ua), (rb, db, ub) = parts
        for key, value in (("value_a", ra), ("value_b", rb), ("den_a", da), ("den_b", db)):
            out[key].append(value)
        out["variance_a"].append((padded * ua * ua).sum(axis=-1))
        out["variance_b"].append((padded * ub * ub).sum(axis=-1))
        out["covariance"].append((padded * ua * ub).sum(axis=-1))
    return PairedMoments(**{k: np.stack(v, axis=-1) for k, v in out.items()})


def check_defined(moments: PairedMoments, metric: ConfusionMetric, labels, groups) -> None:
    """ValueError naming the group and the model whose metric has an empty denominator."""
    for g in groups:
        for part, text in enumerate(metric.den_description):
            for model, den in (("A (y_pred_a)", moments.den_a), ("B (y_pred_b)", moments.den_b)):
                if den[g, part] <= 0:
                    kind = text.replace("y_pred", "prediction")
                    raise ValueError(
                        f"group {labels.tolist()[g]!r} has no {kind} under model {model}, so "
                        f"{metric.part_names[part]} is undefined for it"
                    )


@dataclass(frozen=True)
class GapStatistics:
    """Per comparison and part (..., n_comparisons, n_parts): each model's gap, their
    change and its studentized form; their sum and its variance (the overshoot check)."""

    gap_a: np.ndarray
    gap_b: np.ndarray
    difference: np.ndarray
    variance: np.ndarray
    statistic: np.ndarray
    scale: np.ndarray  # the standard error the statistic divides by (floored when 0)
    total_variance: np.ndarray  # variance of gap_a + gap_b


def gap_statistics(m: PairedMoments, pairs: np.ndarray) -> GapStatistics:
    r"""Gaps of both models, their change D = gap_B - gap_A and its studentized form.

    The gap of a model in comparison (g, r) is :math:`d = M_g - M_r`; groups being
    independent, :math:`\widehat{Var}(d_B \mp d_A) = \sum_{h \in \{g, r\}} V_{B,h} + V_{A,h}
    \mp 2 C_h` (delta method; the covariance of the two models' metrics on the same rows
    is what pairing gains for the change). When the variance of the change is 0 the
    statistic is 0 if D is 0, else D over the standard error of one discordant row in each
    group, :math:`(\sum_h 1/(W_{A,h} W_{B,h}))^{1/2}` (never NaN or infinite).
    """
    g, r = pairs[:, 0], pairs[:, 1]
    d_a = m.value_a[..., g, :] - m.value_a[..., r, :]
    d_b = m.value_b[..., g, :] - m.value_b[..., r, :]
    diff = d_b - d_a
    both = np.zeros_like(diff)
    cross = np.zeros_like(diff)
    floor = np.zeros_like(diff)
    for h in (g, r):
        both += m.variance_a[..., h, :] + m.variance_b[..., h, :]
        cross += 2.0 * m.covariance[..., h, :]
        floor += 1.0 / np.maximum(m.den_a[..., h, :] * m.den_b[..., h, :], 1.0)
    var = both - cross
    degenerate = var <= 1e-12 * floor
    var = np.where(degenerate, 0.0, var)
    scale = np.sqrt(np.where(degenerate, floor, var))
    statistic = np.where(degenerate & (diff == 0), 0.0, diff / scale)
    total = np.maximum(both + cross, 0.0)
    return GapStatistics(d_a, d_b, diff, var, statistic, scale, total)


def count_rows(y, a, b, codes, n_groups, n_jobs=None) -> np.ndarray:
    """Paired cell counts (n_groups, 8) of coded rows (the compiled counting pass)."""
    n_threads = threads_for(n_jobs, len(y), 1 << 20)
    return _paired.paired_counts(y, a, b, np.ascontiguousarray(codes, dtype=np.intp), n_groups,
                                 n_threads)  # fmt: skip


@dataclass(frozen=True, eq=False)
class PairedStats:
    """Paired cell counts per group, mergeable: ``counts[k, 4 * y + 2 * a + b]`` rows of
    group ``labels[k]`` with label y, model A's prediction a and model B's prediction b.

    Build one per batch or partition and add them (``+`` is associative and commutative);
    ``.test()`` runs :func:`fastfair.compare_models_from_counts` on the sum, which equals
    :func:`fastfair.compare_models` on the rows.

    Examples
    --------
    >>> from fastfair.compare import PairedStats
    >>> s1 = PairedStats.from_arrays([1, 0, 1], [1, 0, 0], [1, 1, 1], ["x", "y", "y"])
    >>> s2 = PairedStats.from_arrays([1], [0], [1], ["z"])
    >>> merged = s1 + s2
    >>> merged.labels.tolist()
    ['x', 'y', 'z']
    >>> merged.counts.tolist()  # cells (y, a, b): 000 001 010 011 100 101 110 111
    [[0, 0, 0, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0]]
    """

    labels: np.ndarray
    counts: np.ndarray

    def __post_init__(self):
        counts, labels = _check_counts(self.counts, self.labels, min_groups=1)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "labels", labels)

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_pred_a: ArrayLike,
        y_pred_b: ArrayLike,
        group: ArrayLike,
        *,
        pos_label: Hashable | None = None,
    ) -> PairedStats:
        """Counts of the rows given (one batch); pandas inputs paired by index."""
        cols = align_index(y_true=y_true, y_pred_a=y_pred_a, y_pred_b=y_pred_b, group=group)
        y = as_binary(cols["y_true"], "y_true", pos_label, require_pos=False)
        a = as_binary(cols["y_pred_a"], "y_pred_a", pos_label, require_pos=False)
        b = as_binary(cols["y_pred_b"], "y_pred_b", pos_label, require_pos=False)
        check_same_length(y_true=y, y_pred_a=a, y_pred_b=b, group=cols["group"])
        codes, labels = as_groups(cols["group"], "group", min_groups=1)
        return cls(labels, count_rows(y, a, b, codes, len(labels)))

    def __add__(self, other: PairedStats) -> PairedStats:
        if not isinstance(other, PairedStats):
            return NotImplemented
        return PairedStats(*add_by_labels(self.labels, self.counts, other.labels, other.counts))

    def test(self, **options: Any) -> ModelComparisonResult:
        """:func:`fastfair.compare_models_from_counts` on these counts.

        Parameters
        ----------
        **options
            Arguments of :func:`fastfair.compare_models_from_counts` (``metric``,
            ``method``, ``delta``, ``random_state``, ...).

        Returns
        -------
        ModelComparisonResult
        """
        from fastfair.compare.api import compare_models_from_counts

        return compare_models_from_counts(self.counts, groups=self.labels, **options)


def _grouped_covariance(x, y, codes, n_groups):
    """Sample covariance (ddof 1) of x and y within each group; 0 for a single row."""
    n = np.bincount(codes, minlength=n_groups).astype(np.float64)
    sx = np.bincount(codes, x, n_groups)
    sy = np.bincount(codes, y, n_groups)
    mx = sx / np.maximum(n, 1.0)
    my = sy / np.maximum(n, 1.0)
    sxy = np.bincount(codes, (x - mx[codes]) * (y - my[codes]), n_groups)
    return np.where(n > 1, sxy / np.maximum(n - 1.0, 1.0), 0.0), n


def paired_auc_moments(y, score_a, score_b, codes, labels) -> PairedMoments:
    r"""Both models' AUCs, DeLong variances and DeLong covariance in each group.

    :func:`fastfair.delong` gives each model's AUC, variance and placements (V10 of each
    positive, V01 of each negative); the covariance of the two AUCs of a group is
    :math:`S_{10}^{AB}/n^+ + S_{01}^{AB}/n^-` with :math:`S^{AB}` the sample covariances
    (ddof 1) of the two models' placements of the same rows (DeLong et al. 1988).
    """
    groups = GroupCodes(codes, labels)
    res_a = delong(y, score_a, groups, return_placements=True)
    res_b = delong(y, score_b, groups, return_placements=True)
    k = len(labels)
    pos = y.astype(bool)
    c10, n_pos = _grouped_covariance(res_a.placements[pos], res_b.placements[pos], codes[pos], k)
    c01, n_neg = _grouped_covariance(
        res_a.placements[~pos], res_b.placements[~pos], codes[~pos], k
    )
    cov = c10 / np.maximum(n_pos, 1.0) + c01 / np.maximum(n_neg, 1.0)
    pairs = (res_a.n_pos * res_a.n_neg).astype(np.float64)
    return PairedMoments(
        value_a=res_a.auc[:, None], value_b=res_b.auc[:, None],
        variance_a=res_a.variance[:, None], variance_b=res_b.variance[:, None],
        covariance=cov[:, None], den_a=pairs[:, None], den_b=pairs[:, None],
    )  # fmt: skip


@dataclass(frozen=True)
class SortedScores:
    """Both models' scores of every row, 2n entries sorted by group, then score: the input
    of the swap permutations of AUCs (``_paired.paired_auc_swaps``). Entry k is row
    ``row[k]``'s score of model ``model[k]`` (0: A, 1: B) in group ``group[k]``;
    ``block_end[k]`` is one past the last entry of its group tied with it."""

    row: np.ndarray
    model: np.ndarray
    block_end: np.ndarray
    group: np.ndarray

    @classmethod
    def build(cls, score_a, score_b, codes) -> SortedScores:
        """Sort the 2n scores once (a stable sort of group, then score)."""
        n = len(codes)
        values = np.concatenate([score_a, score_b])
        groups = np.concatenate([codes, codes]).astype(np.intp)
        order = np.lexsort((values, groups))
        v, g = values[order], groups[order]
        starts = np.flatnonzero(np.r_[True, (v[1:] != v[:-1]) | (g[1:] != g[:-1])])
        ends = np.r_[starts[1:], len(v)]
        block_end = np.repeat(ends, ends - starts).astype(np.intp)
        return cls((order % n).astype(np.intp), (order >= n).astype(np.uint8), block_end, g)


def _centred(s_xy, s_x, s_y, n):
    """Sample covariance (ddof 1) from sums; 0 for a single row."""
    return np.where(n > 1, (s_xy - s_x * s_y / n) / np.maximum(n - 1.0, 1.0), 0.0)


def swap_auc_moments(sums: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> PairedMoments:
    r"""Paired AUC moments of swap permutations from their placement sums.

    `sums` (B, n_groups, 10) holds, over each group's positives, the sums of model A's and
    model B's placements (V10), their squares and their products, then the same over its
    negatives (V01), as ``_paired.paired_auc_swaps`` returns them. The AUC is the mean V10,
    its variance :math:`S_{10}/n^+ + S_{01}/n^-` and the covariance of the two models
    :math:`S_{10}^{AB}/n^+ + S_{01}^{AB}/n^-` (ddof 1), as in :func:`paired_auc_moments`.
    """
    n_pos = np.asarray(n_pos, dtype=np.float64)
    n_neg = np.asarray(n_neg, dtype=np.float64)
    pos, neg = sums[..., :5], sums[..., 5:]

    def spread(i, j, ij):  # S^{ij}_10 / n+ + S^{ij}_01 / n-, sums i, j and their products ij
        return (_centred(pos[..., ij], pos[..., i], pos[..., j], n_pos) / n_pos
                + _centred(neg[..., ij], neg[..., i], neg[..., j], n_neg) / n_neg)  # fmt: skip

    pairs = np.broadcast_to(n_pos * n_neg, pos.shape[:-1])[..., None]
    return PairedMoments(
        value_a=(pos[..., 0] / n_pos)[..., None], value_b=(pos[..., 1] / n_pos)[..., None],
        variance_a=spread(0, 0, 2)[..., None], variance_b=spread(1, 1, 3)[..., None],
        covariance=spread(0, 1, 4)[..., None], den_a=pairs, den_b=pairs,
    )  # fmt: skip
