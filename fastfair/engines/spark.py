"""Fairness tests of a Spark DataFrame: statistics per partition, merged by a tree aggregation.

Each function takes a ``pyspark.sql.DataFrame`` and column names. Every partition is read
as Arrow record batches where it lives (``mapInArrow``), checked column by column (errors
name the column and the partition) and reduced by the compiled kernels to a mergeable
summary of :mod:`fastfair.stats`; the summaries are added pairwise on the executors
(``treeAggregate``) and only their sum reaches the driver. The inference is the families'
own, run on the sum. Results are the same objects as the in-memory functions return:

- :func:`permutation_test`, :func:`compare_models`: identical to
  :func:`fastfair.permutation_test` and :func:`fastfair.compare_models` on the rows (the
  counts are integers: exact p-values, and Monte-Carlo p-values for the same seed, are
  identical);
- :func:`delong` and :func:`auc_test` (DeLong z-test): exact for any scores, equal to the
  in-memory DeLong results to 1e-12 relative. The rows are range-partitioned on the score
  by Spark (tied scores share a partition); each partition's placements are computed with
  the counts of lower-score partitions as offsets, and only per-group moments of the
  placements (count, mean, centred sum of squares) are merged: the driver holds
  O(partitions x groups) numbers, never a score histogram. With ``resolution`` the binned
  :class:`fastfair.stats.ScoreStats` is used instead (as :func:`fastfair.dask.delong`).

Spark needs a Java runtime; install with ``pip install fastfair[spark]``. pyspark is
imported only when these run. The engine's building blocks for the audit:
:func:`delong_by_sort` (the exact DeLong results of several attributes and intersections
from one sort) and :func:`spark_clusters` (the rows grouped by user for predictive
parity, range-partitioned on the user column). The public import path is
:mod:`fastfair.spark` (a re-export of this module).
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair.compare import PairedStats
from fastfair.engines import distributed, summaries
from fastfair.engines.cube import ConfusionCube
from fastfair.engines.summaries import ConfusionStats, ScoreStats

if TYPE_CHECKING:
    from collections.abc import Hashable

    from pyspark.sql import DataFrame, SparkSession

    from fastfair.auc import AUCTestResult, DeLongResult
    from fastfair.compare import ModelComparisonResult  # noqa: F401 (the generated tests'
    from fastfair.permutation import PermutationTestResult  # noqa: F401 return types)

__all__ = [
    "auc_test",
    "compare_models",
    "confusion_cube",
    "confusion_stats",
    "delong",
    "delong_by_sort",
    "paired_stats",
    "permutation_test",
    "score_stats",
    "spark_clusters",
    "spark_delong",
    "spark_score_rows",
    "spark_session",
    "summarise_spark",
]

#: The summaries' column in the Arrow batches the partitions send back.
_BLOB = "summary binary"


def _pyspark():
    try:
        import pyspark.sql
    except ImportError as exc:
        raise ImportError(
            "fastfair.spark needs pyspark and a Java runtime: pip install 'fastfair[spark]'"
        ) from exc
    return pyspark.sql


def _check_frame(df, columns) -> None:
    """A TypeError for anything but a Spark DataFrame, a ValueError naming a missing column."""
    sql = _pyspark()
    if not isinstance(df, sql.DataFrame):
        raise TypeError(f"df must be a pyspark.sql.DataFrame, got {type(df).__name__}")
    absent = [c for c in columns if c not in df.columns]
    if absent:
        raise ValueError(
            f"no column {absent[0]!r} in the Spark DataFrame; available: {list(df.columns)}"
        )


# --------------------------------------------------------------------------------------
# On the executors: a partition's Arrow batches -> its checked columns -> a summary


@dataclass(frozen=True)
class _Failure:
    """A partition's error, carried to the driver as a value (the first partition's wins)."""

    partition: int
    error: Exception


def _merge(a, b):
    """Sum of two partial results; None is the empty sum, a failure absorbs the rest."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, _Failure) or isinstance(b, _Failure):
        failures = [x for x in (a, b) if isinstance(x, _Failure)]
        return min(failures, key=lambda f: f.partition)
    return a + b


def _column(values, name: str, role: str, pos_label=None):
    """One column of a partition as the summaries read it; errors name the column."""
    from fastfair._validation import as_binary, as_finite_float
    from fastfair.engines.files import _to_numpy
    from fastfair.engines.groups import batch_codes

    where = f"column {name!r}"
    if role == "binary":
        return as_binary(_to_numpy(values), where, pos_label, require_pos=False)
    if role == "score":
        return as_finite_float(_to_numpy(values), where)
    if role == "group":
        return batch_codes(values, where)
    if values.null_count:  # role "present": used as it is, but never missing
        raise ValueError(f"{where} has {values.null_count:,} missing values")
    return _to_numpy(values)


def _partition_table(batches):
    """(partition index, the partition's rows as one Arrow table or None when empty)."""
    import pyarrow as pa
    from pyspark import TaskContext

    batches = [b for b in batches if b.num_rows]
    index = TaskContext.get().partitionId()
    return index, (pa.Table.from_batches(batches) if batches else None)


def _send(value):
    """One Arrow batch holding the pickled `value`."""
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"summary": [pickle.dumps(value, protocol=5)]})


def _summarise_partition(batches, *, build, roles, pos_label):
    """mapInArrow function: the summary (or the failure) of one partition's rows."""
    index, table = _partition_table(batches)
    if table is None:
        return
    try:
        arrays = [
            _column(table.column(name).combine_chunks(), name, role, pos_label)
            for name, role in roles
        ]
        result = distributed.Piece(build(*arrays), _distinct_values(table, roles))
    except (ValueError, TypeError) as exc:
        result = _Failure(index, type(exc)(f"partition {index}: {exc}"))
    yield _send(result)


def _distinct_values(table, roles) -> dict:
    """{binary column: its distinct values in this partition}, to be checked as a whole."""
    import pyarrow.compute as pc

    return {
        name: frozenset(pc.unique(table.column(name)).to_pylist())
        for name, role in roles
        if role == "binary"
    }


def _load(row):
    return pickle.loads(row.summary)


def _aggregate(frame, fn, *, depth: int = 2):
    """treeAggregate of the values that `fn` (a mapInArrow function) yields per partition;
    None when there are none. A partition's failure is raised here, as its own type."""
    rdd = frame.mapInArrow(fn, _BLOB).rdd.map(_load)
    total = rdd.treeAggregate(None, _merge, _merge, depth=depth)
    if isinstance(total, _Failure):
        raise total.error
    return total


def _reduce(df, build, roles, *, pos_label=None, require_pos=False, empty="has no rows"):
    """Tree aggregation of per-partition summaries `build(*checked columns)`; `roles`:
    (column, role) pairs, role "binary", "score", "group" or "present". A partition need
    not hold `pos_label`; each binary column as a whole is checked as the memory engine
    checks it (`require_pos`: `pos_label` must occur in it)."""
    names = [name for name, _ in roles]
    _check_frame(df, names)
    fn = functools.partial(_summarise_partition, build=build, roles=roles, pos_label=pos_label)
    total = _aggregate(df.select(*dict.fromkeys(names)), fn)
    if total is None:
        raise ValueError(f"the Spark DataFrame {empty}")
    binary = {name: f"column {name!r}" for name, role in roles if role == "binary"}
    return distributed.checked_piece(total, binary, pos_label, require_pos)


# --------------------------------------------------------------------------------------
# The public functions (those of fastfair.dask)

#: The Spark parts of the functions' docstrings (:mod:`fastfair.engines.distributed`
#: fills them in with the shared ones).
_DOCS = {
    "df": """df : pyspark.sql.DataFrame
        The rows, in any number of partitions.""",
    "exact_resolution": """resolution : float, optional
        Bin the scores to multiples of this width (the :class:`fastfair.stats.ScoreStats`
        summary); None: the exact scores, by a distributed sort (see the module docstring).""",
    "example": """>>> import numpy as np, pandas as pd
    >>> import fastfair, fastfair.spark
    >>> spark = fastfair.spark.spark_session("local[2]")
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({c: rng.integers(0, 2, 1000) for c in ("y", "p", "a", "b")})
    >>> frame["s"], frame["g"] = rng.random(1000), rng.choice(["u", "v"], 1000)
    >>> frame["x"] = rng.choice(["f", "m"], 1000)
    >>> df = spark.createDataFrame(frame)""",
}

_documented = distributed.documented(_DOCS)


@_documented
def confusion_stats(
    df: DataFrame,
    y_true: str,
    y_pred: str,
    *group: str,
    pos_label: Hashable | None = None,
) -> ConfusionStats:
    """Confusion counts per group (or intersection of `group` columns) of a Spark DataFrame.

    Parameters
    ----------
    {df}
    {y_pred}
    {groups}
    {pos_label}

    Returns
    -------
    fastfair.stats.ConfusionStats
        The counts per group, ready for ``.test(...)``.

    Examples
    --------
    {example}
    >>> stats = fastfair.spark.confusion_stats(df, "y", "p", "g")
    >>> counts, _ = fastfair.confusion_counts(frame.y, frame.p, frame.g)
    >>> bool((stats.counts == counts).all())
    True
    """
    if not group:
        raise TypeError("give at least one group column")
    roles = [(y_true, "binary"), (y_pred, "binary"), *((g, "group") for g in group)]
    return _reduce(df, ConfusionStats.from_arrays, roles, pos_label=pos_label, require_pos=True)


def _cube_of(y, yhat, *groups, names):
    return ConfusionCube.from_arrays(y, yhat, dict(zip(names, groups)))


@_documented
def confusion_cube(
    df: DataFrame,
    y_true: str,
    y_pred: str,
    *group: str,
    pos_label: Hashable | None = None,
) -> ConfusionCube:
    """Confusion counts of every combination of the `group` columns' levels, one pass.

    Parameters
    ----------
    {df}
    {y_pred}
    *group : str
        Names of the attributes (each a group column).
    {pos_label}

    Returns
    -------
    fastfair.stats.ConfusionCube
        Marginalise it to any attribute or intersection: ``cube.confusion(["sex"])``.

    Examples
    --------
    {example}
    >>> cube = fastfair.spark.confusion_cube(df, "y", "p", "g", "x")
    >>> from fastfair.stats import ConfusionStats
    >>> local = ConfusionStats.from_arrays(frame.y, frame.p, frame.g, frame.x)
    >>> bool((cube.confusion(["g", "x"]).counts == local.counts).all())
    True
    """
    if not group:
        raise TypeError("give at least one group column")
    roles = [(y_true, "binary"), (y_pred, "binary"), *((g, "group") for g in group)]
    build = functools.partial(_cube_of, names=group)
    return _reduce(df, build, roles, pos_label=pos_label, require_pos=True)


permutation_test = distributed.summary_test(
    "permutation_test",
    confusion_stats,
    engine="Spark",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.spark.permutation_test(df, "y", "p", "g")
    >>> res.pvalue == fastfair.permutation_test(frame.y, frame.p, frame.g).pvalue
    True""",
)


@_documented
def score_stats(
    df: DataFrame,
    y_true: str,
    y_score: str,
    group: str,
    *,
    resolution: float | None = None,
    pos_label: Hashable | None = None,
) -> ScoreStats:
    """Score histograms per group and label of a Spark DataFrame (:class:`ScoreStats`).

    The summary holds one count per group, label and distinct score: small for rounded or
    binned scores (``resolution``), as large as the data for untied float scores (then use
    :func:`delong`, which never builds it).

    Parameters
    ----------
    {df}
    {y_score}
    {resolution}
    {pos_label}

    Returns
    -------
    fastfair.stats.ScoreStats
        Counts per group, label and distinct score, ready for ``.delong()``/``.test()``.

    Examples
    --------
    {example}
    >>> stats = fastfair.spark.score_stats(df, "y", "s", "g", resolution=0.01)
    >>> int(stats.counts.sum())
    1000
    """
    roles = [(y_true, "binary"), (y_score, "score"), (group, "group")]
    build = functools.partial(ScoreStats.from_arrays, resolution=resolution)
    if resolution is not None and not resolution > 0:
        raise ValueError(f"resolution must be positive, got {resolution!r}")
    return _reduce(df, build, roles, pos_label=pos_label, require_pos=True)


@_documented
def delong(
    df: DataFrame,
    y_true: str,
    y_score: str,
    group: str,
    *,
    resolution: float | None = None,
    pos_label: Hashable | None = None,
) -> DeLongResult:
    """Per-group AUC and DeLong variance of a Spark DataFrame (:class:`DeLongResult`).

    Parameters
    ----------
    {df}
    {y_score}
    {exact_resolution}
    {pos_label}

    Returns
    -------
    DeLongResult
        As :func:`fastfair.delong` returns it for the same rows.

    Examples
    --------
    {example}
    >>> res = fastfair.spark.delong(df, "y", "s", "g")
    >>> ref = fastfair.delong(frame.y, frame.s, frame.g)
    >>> bool(np.allclose(res.auc, ref.auc, rtol=1e-12))
    True
    """
    if resolution is not None:
        stats = score_stats(df, y_true, y_score, group, resolution=resolution,
                            pos_label=pos_label)  # fmt: skip
        return stats.delong()
    return spark_delong(df, y_true, y_score, group, pos_label=pos_label)


auc_test = distributed.summary_test(
    "auc_test",
    delong,
    engine="Spark",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.spark.auc_test(df, "y", "s", "g")
    >>> ref = fastfair.auc_test(frame.y, frame.s, frame.g, method="delong")
    >>> bool(np.isclose(res.pvalue, ref.pvalue, rtol=1e-12))
    True""",
)


@_documented
def paired_stats(
    df: DataFrame,
    y_true: str,
    y_pred_a: str,
    y_pred_b: str,
    group: str,
    *,
    pos_label: Hashable | None = None,
) -> PairedStats:
    """Paired cell counts of two models per group of a Spark DataFrame.

    Parameters
    ----------
    {df}
    {y_pred_ab}
    {pos_label}

    Returns
    -------
    fastfair.compare.PairedStats
        The counts per group, ready for ``.test(...)``.

    Examples
    --------
    >>> import pandas as pd
    >>> import fastfair.spark
    >>> spark = fastfair.spark.spark_session("local[2]")
    >>> frame = pd.DataFrame({"y": [1, 1, 0, 1], "a": [1, 0, 0, 1], "b": [1, 1, 0, 0],
    ...                       "g": ["u", "u", "v", "v"]})
    >>> stats = fastfair.spark.paired_stats(spark.createDataFrame(frame), "y", "a", "b", "g")
    >>> stats.counts.tolist()  # cells (y, a, b): 000 001 010 011 100 101 110 111
    [[0, 0, 0, 0, 0, 1, 0, 1], [1, 0, 0, 0, 0, 0, 1, 0]]
    """
    roles = [(y_true, "binary"), (y_pred_a, "binary"), (y_pred_b, "binary"), (group, "group")]
    return _reduce(df, PairedStats.from_arrays, roles, pos_label=pos_label)


compare_models = distributed.summary_test(
    "compare_models",
    paired_stats,
    engine="Spark",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.spark.compare_models(df, "y", "a", "b", "g", random_state=0)
    >>> res.pvalue == fastfair.compare_models(frame.y, frame.a, frame.b, frame.g,
    ...                                       random_state=0).pvalue
    True""",
)


# --------------------------------------------------------------------------------------
# Exact DeLong by a distributed sort: placements with offsets, merged moments


@dataclass(frozen=True)
class _ByPartition:
    """Per-partition values keyed by partition index (their union is their sum)."""

    values: dict

    def __add__(self, other: _ByPartition) -> _ByPartition:
        return _ByPartition({**self.values, **other.values})


@dataclass(frozen=True)
class _Moments:
    """Per group and label: count, mean and centred sum of squares of the placements
    (``moments[k, 0]``: the negatives' V01, ``moments[k, 1]``: the positives' V10), merged
    by Chan et al.'s pairwise update."""

    moments: np.ndarray

    def __add__(self, other: _Moments) -> _Moments:
        a, b = self.moments, other.moments
        na, nb = a[..., 0], b[..., 0]
        n = na + nb
        delta = b[..., 1] - a[..., 1]
        share = np.divide(nb, n, out=np.zeros_like(n), where=n > 0)
        out = np.empty_like(a)
        out[..., 0] = n
        out[..., 1] = a[..., 1] + delta * share
        out[..., 2] = a[..., 2] + b[..., 2] + delta * delta * na * share
        return _Moments(out)


def _moments(values: np.ndarray) -> tuple[float, float, float]:
    mean = float(values.mean())
    return float(len(values)), mean, float(((values - mean) ** 2).sum())


def _by_score(table, y_true, y_score, pos_label):
    """(label, score) of a range partition, checked."""
    y = _column(table.column(y_true).combine_chunks(), y_true, "binary", pos_label)
    s = _column(table.column(y_score).combine_chunks(), y_score, "score")
    return y, s


def _local_moments(y, s, g, K) -> np.ndarray:
    """Per group of one attribute in a range partition, ``out[k, label]`` = (rows, mean,
    centred sum of squares) of the local placement numerators q: for a positive, the
    group's negatives of the partition below its score plus half the ties; for a negative,
    the positives below plus half the ties. With the partitions below as offsets,
    V10 = (negatives below the partition + q) / n_neg and V01 = (positives above the
    partition's start - q) / n_pos (:func:`_placements`)."""
    order = np.lexsort((s, g))
    y, s, g = y[order], s[order], g[order]
    out = np.zeros((K, 2, 3))
    bounds = np.searchsorted(g, np.arange(K + 1))
    for k in range(K):
        sk, yk = s[bounds[k] : bounds[k + 1]], y[bounds[k] : bounds[k + 1]]
        neg, pos = sk[yk == 0], sk[yk == 1]  # each sorted
        if len(pos):
            lo, hi = np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "right")
            out[k, 1] = _moments((lo + hi) / 2.0)
        if len(neg):
            lo, hi = np.searchsorted(pos, neg, "left"), np.searchsorted(pos, neg, "right")
            out[k, 0] = _moments((lo + hi) / 2.0)
    return out


def _partition_placements(batches, *, label, score, attributes, indexes, pos_label):
    """mapInArrow function: each attribute's local placement moments of one range
    partition (:func:`_local_moments`), keyed by the partition's index."""
    pid, table = _partition_table(batches)
    if table is None:
        return
    try:
        y, s = _by_score(table, label, score, pos_label)
        out = [
            _local_moments(y, s, _group_codes(table, columns, index), len(index))
            for columns, index in zip(attributes, indexes)
        ]
        value = _ByPartition({pid: out})
    except (ValueError, TypeError) as exc:
        value = _Failure(pid, type(exc)(f"partition {pid}: {exc}"))
    yield _send(value)


def _placements(parts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """The moments of the placements V01 (``[:, 0]``) and V10 (``[:, 1]``) of every row
    per group, from each range partition's local moments (`parts[p]`, partitions in score
    order): each partition's moments shifted by the counts of the partitions below it and
    scaled, then merged (Chan et al.'s pairwise update)."""
    counts = parts[..., 0]  # (partitions, groups, label)
    if not np.array_equal(counts.sum(axis=0), totals):
        raise RuntimeError("the range partitions hold other rows than were counted")
    below = np.cumsum(counts, axis=0) - counts
    n0, n1 = totals[:, 0].astype(np.float64), totals[:, 1].astype(np.float64)
    total = None
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN where a group lacks a label
        for p in range(len(parts)):
            m = parts[p].copy()
            m[:, 1, 1] = (below[p, :, 0] + m[:, 1, 1]) / n0
            m[:, 1, 2] /= n0 * n0
            m[:, 0, 1] = (n1 - below[p, :, 1] - m[:, 0, 1]) / n1
            m[:, 0, 2] /= n1 * n1
            total = _Moments(m) if total is None else total + _Moments(m)
    return total.moments


def _label_totals(y, s, *groups):
    return ConfusionStats.from_arrays(y, y, *groups)  # TN: negatives, TP: positives


def spark_delong(
    df: DataFrame, y_true: str, y_score: str, group: str, *, pos_label=None
) -> DeLongResult:
    """Exact per-group AUC and DeLong variance of a Spark DataFrame (see the module
    docstring): the columns checked and the groups' negatives and positives counted (a
    tree aggregation), then :func:`delong_by_sort`."""
    roles = [(y_true, "binary"), (y_score, "score"), (group, "group")]
    counted = _reduce(df, _label_totals, roles, pos_label=pos_label, require_pos=True)
    return delong_by_sort(df, y_true, y_score, [(group,)], [counted], pos_label=pos_label)[0]


def delong_by_sort(df, y_true, y_score, attributes, counted, *, pos_label=None, check=True):
    """Exact DeLong results of several attributes (each a tuple of group columns: one, or
    an intersection) from one distributed sort by score.

    `counted[j]`: the :class:`ConfusionStats` of attribute j (its labels; negatives TN + FP,
    positives FN + TP). The rows are range-partitioned on the score (tied scores share a
    partition) and each partition sends, per group, its negatives and positives and the
    moments of its rows' local placements (:func:`_local_moments`): one pass, and the
    driver holds O(partitions x groups) numbers; the partitions below each one give its
    offsets there (:func:`_placements`). With `check`, a group without positives or without
    negatives is a ValueError; without, its AUC is NaN (for the audit, which refuses it
    when that group is tested).
    """
    from pyspark.sql import functions as F

    from fastfair._comparisons import check_auc_defined

    totals = []
    for conf in counted:
        c = np.asarray(conf.counts)
        totals.append(np.column_stack([c[:, 0] + c[:, 1], c[:, 2] + c[:, 3]]))
        if check:
            check_auc_defined(totals[-1], conf.labels, range(len(conf.labels)))
    score = F.col(y_score).cast("double")
    groups = list(dict.fromkeys(c for combo in attributes for c in combo))
    frame = df.select(
        F.col(y_true),
        F.when(score == 0, F.lit(0.0)).otherwise(score).alias(y_score),
        *(F.col(c) for c in groups),
    )  # fmt: skip  (-0.0 and 0.0 are one score: they must share a partition)
    n_rows = int(sum(t.sum() for t in totals[:1]))
    n_parts = max(df.rdd.getNumPartitions(), -(-n_rows // _USER_PARTITION_ROWS), 1)
    ranged = frame.repartitionByRange(n_parts, y_score)
    fn = functools.partial(
        _partition_placements, label=y_true, score=y_score,
        attributes=[tuple(a) for a in attributes],
        indexes=[{v: k for k, v in enumerate(c.labels.tolist())} for c in counted],
        pos_label=pos_label,
    )  # fmt: skip
    per_part = _aggregate(ranged, fn).values
    pids = sorted(per_part)
    return [
        _delong_result(
            conf.labels, tot, _placements(np.array([per_part[p][j] for p in pids]), tot)
        )
        for j, (conf, tot) in enumerate(zip(counted, totals))
    ]


def _delong_result(labels, totals, moments) -> DeLongResult:
    """The DeLongResult of merged placement moments (as ScoreStats.delong computes it)."""
    from fastfair.auc import DeLongResult

    n0, n1 = totals[:, 0].astype(np.float64), totals[:, 1].astype(np.float64)
    undefined = (n0 == 0) | (n1 == 0)
    moments = np.where(undefined[:, None, None], np.nan, moments)
    auc = moments[:, 1, 1]
    ss10 = moments[:, 1, 2]
    ss01 = moments[:, 0, 2] + n0 * (moments[:, 0, 1] - auc) ** 2  # about the AUC
    s10 = np.divide(ss10, n1 - 1, out=np.zeros_like(ss10), where=n1 > 1)
    s01 = np.divide(ss01, n0 - 1, out=np.zeros_like(ss01), where=n0 > 1)
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN where undefined
        variance = s10 / n1 + s01 / n0
    return DeLongResult(
        groups=labels, auc=auc, variance=variance, s10=s10, s01=s01,
        n_pos=totals[:, 1].copy(), n_neg=totals[:, 0].copy(),
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class DeLongSummary:
    """The audit's AUC summary of the spark engine: the exact :class:`DeLongResult` of the
    rows (:func:`delong_by_sort`) under the group labels `labels`, with ``.select()`` and
    ``.test()`` as :class:`fastfair.stats.ScoreStats` has them."""

    labels: np.ndarray
    result: DeLongResult

    def delong(self) -> DeLongResult:
        """The DeLong result of the rows; a ValueError when a group's AUC is undefined (no
        positives or no negatives), as :meth:`fastfair.stats.ScoreStats.delong`."""
        import dataclasses

        from fastfair._comparisons import check_auc_defined

        r = self.result
        totals = np.column_stack([r.n_neg, r.n_pos])
        check_auc_defined(totals, self.labels, range(len(self.labels)))
        return dataclasses.replace(r, groups=self.labels)

    def select(self, labels) -> DeLongSummary:
        """The summary of the groups `labels` only (each group's AUC and variance are its
        own rows': a subset is exact)."""
        import dataclasses

        where = {v: k for k, v in enumerate(self.labels.tolist())}
        keep = sorted(where[v] for v in labels)
        r = self.result
        sub = dataclasses.replace(
            r, groups=r.groups[keep], auc=r.auc[keep], variance=r.variance[keep],
            s10=r.s10[keep], s01=r.s01[keep], n_pos=r.n_pos[keep], n_neg=r.n_neg[keep],
        )  # fmt: skip
        return DeLongSummary(self.labels[keep], sub)

    def all_tied(self) -> np.ndarray:
        """Per group, whether every positive ties with every negative (both present): then
        all its scores are equal. From the exact result: an AUC of 0.5 with no spread in
        either class's placements (each is 1/2 exactly when every pair ties), as
        :meth:`fastfair.engines.PlacementSums.all_tied`.

        Returns
        -------
        numpy.ndarray of bool
        """
        r = self.result
        present = (np.asarray(r.n_pos) > 0) & (np.asarray(r.n_neg) > 0)
        flat = (np.asarray(r.s10) == 0) & (np.asarray(r.s01) == 0)
        return present & flat & (np.asarray(r.auc) == 0.5)

    def test(self, **options: Any) -> AUCTestResult:
        """``fastfair.auc_test_from_delong`` of the result (reference, alternative, ...)."""
        from fastfair.auc import auc_test_from_delong

        return auc_test_from_delong(self.delong(), **options)


# --------------------------------------------------------------------------------------
# The audit's engine: a session, the files as a DataFrame, the summaries


def spark_session(master: str | None = None) -> SparkSession:
    """The active Spark session, or a new one on `master` (default ``local[*]``).

    A new session has the Spark UI off, Arrow transfers on, 2 GiB of driver memory (on
    ``local[N]`` the executors' too) and the workers running this Python
    (``PYSPARK_PYTHON``, unless set). An active session is returned as it is (Spark
    cannot change the master of a running session).

    Parameters
    ----------
    master : str, optional
        Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``, ...).

    Returns
    -------
    pyspark.sql.SparkSession

    Examples
    --------
    >>> import fastfair.spark
    >>> spark = fastfair.spark.spark_session("local[2]")
    >>> spark.range(3).count()
    3
    """
    sql = _pyspark()
    active = sql.SparkSession.getActiveSession()
    if active is not None:
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        sql.SparkSession.builder.master(master or "local[*]")
        .appName("fastfair")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "2g")
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


@contextlib.contextmanager
def spark_place(master: str | None):
    """The session the audit runs on: the active one (kept), or a new one on `master`
    (stopped on exit)."""
    sql = _pyspark()
    if sql.SparkSession.getActiveSession() is not None:
        yield sql.SparkSession.getActiveSession()
        return
    spark = spark_session(master)
    try:
        yield spark
    finally:
        spark.stop()


def spark_frame(spark: SparkSession, source, columns) -> DataFrame:
    """The files as a Spark DataFrame of `columns`; a file without one is named at once."""
    from fastfair.engines.files import _kind, check_columns

    files = [str(f) for f in check_columns(source, columns)]
    if _kind(files[0]) == "parquet":
        return spark.read.parquet(*files).select(*columns)
    frame = spark.read.csv(files, header=True, inferSchema=True)
    return frame.select(*columns)


def _audit_partition(label, pred, score, *groups, names, threshold):
    """The audit's summary of one partition's checked columns: the cube of every
    combination of the attributes (no score histogram: the AUC is :func:`delong_by_sort`'s)."""
    from fastfair.engines import attributes

    y, yhat, _ = summaries.checked_rows(label, pred, score, threshold=threshold, pos_label=None)
    return attributes.summary_of(y, yhat, None, dict(zip(names, groups)), [])


def summarise_spark(
    frame: DataFrame, *, label, groups, pred, score, threshold, pos_label, combos,
    cluster=None,
):  # fmt: skip
    """The audit's summary of a Spark DataFrame: the cube of the attributes' confusion
    counts merged in a tree and, with a score, the exact DeLong result of each attribute
    combination in `combos` from one sort by score (:class:`DeLongSummary`); `cluster` is
    checked (no missing value).

    Returns
    -------
    fastfair.engines.attributes.AuditSummary
    """
    from fastfair.engines import attributes

    roles = [(label, "binary"), (pred, "binary"), (score, "score")]
    roles = [(name, role) for name, role in roles if name is not None]
    roles += [(g, "group") for g in groups]
    if cluster is not None:
        roles.append((cluster, "present"))
    build = functools.partial(
        _audit_partition_of, label=label, pred=pred, score=score, groups=tuple(groups),
        names=[name for name, _ in roles], threshold=threshold,
    )  # fmt: skip
    total = _reduce(frame, build, roles, pos_label=pos_label)
    if score is None:
        return total
    counted = [total.confusion(list(c)) for c in combos]
    results = delong_by_sort(frame, label, score, combos, counted, pos_label=pos_label,
                             check=False)  # fmt: skip
    scores = {tuple(c): DeLongSummary(r.groups, r) for c, r in zip(combos, results)}
    return attributes.AuditSummary(total.cube, scores)


def _audit_partition_of(*arrays, label, pred, score, groups, names, threshold):
    values = dict(zip(names, arrays))
    return _audit_partition(
        values[label], values.get(pred), values.get(score), *(values[g] for g in groups),
        names=list(groups), threshold=threshold,
    )  # fmt: skip


class UserGroups:
    """The audit's `clusters` callback on Spark: ``(attribute columns, tested labels, their
    codes, their rows, last)`` -> :func:`spark_clusters` of the rows grouped by user once
    for every attribute (:func:`user_partitions`, kept until :meth:`release`)."""

    def __init__(self, frame, *, label, score, cluster, pos_label):
        self.frame, self.rows = frame, None
        self.read = dict(label=label, score=score, cluster=cluster, pos_label=pos_label)

    def __call__(self, combo, labels, codes, n_rows, last):
        if self.rows is None:
            groups = [c for c in self.frame.columns if c not in self.read.values()]
            self.rows = user_partitions(self.frame, groups=groups, n_total=n_rows, **self.read)
        return spark_clusters(self.frame, labels, codes, n_rows, group=list(combo),
                              rows=self.rows, **self.read)  # fmt: skip

    def release(self) -> None:
        """Unpersist the rows grouped by user."""
        if self.rows is not None:
            self.rows.unpersist()
            self.rows = None


# --------------------------------------------------------------------------------------
# Predictive parity per user: the rows range-partitioned on the user column, kept compact

#: The global row order (file order within a partition) of the parity pass.
_ROW = "__fastfair_row"

#: Rows per partition of the rows grouped by user and of the rows sorted by score (at
#: least the frame's partitions): each is one value in a task's memory.
_USER_PARTITION_ROWS = 1 << 19


@dataclass(frozen=True)
class _Sums:
    """Kernel sums of disjoint sets of users (added by :func:`clusters.merge_sums`)."""

    sums: dict

    def __add__(self, other: _Sums) -> _Sums:
        from fastfair.engines.clusters import merge_sums

        return _Sums(merge_sums(self.sums, other.sums))


@dataclass(frozen=True)
class _UserPart:
    """One partition of the rows grouped by user, compact: label (uint8), score, the
    partition's user codes (increasing: the rows are sorted by user, then file order) with
    the users they stand for (``users``; None: every row its own user) and each group
    column's codes (:func:`fastfair.engines.groups.batch_codes`)."""

    pid: int
    y: np.ndarray
    score: np.ndarray
    user: np.ndarray
    users: Any
    groups: dict

    def rows(self, columns, index) -> tuple:
        """(y, score, tested group code, user code) of the rows of the tested groups
        (`index`: label -> code; `columns`: the attribute's group columns)."""
        g = _codes_of([self.groups[c] for c in columns], len(self.y), index)
        keep = g >= 0
        return self.y[keep], self.score[keep], g[keep], self.user[keep]

    def user_label(self, code):
        """The user that a code of this partition stands for (for messages)."""
        return code if self.users is None else self.users[int(code)].as_py()


def _compact_partition(batches, *, label, score, cluster, groups, pos_label):
    """mapInArrow function: a partition of the rows sorted by user as one :class:`_UserPart`
    (or the failure), so that the kernel passes read numpy arrays, not rows."""
    import pyarrow.compute as pc

    pid, table = _partition_table(batches)
    if table is None:
        return
    try:
        y = np.asarray(_column(table.column(label).combine_chunks(), label, "binary",
                               pos_label), dtype=np.uint8)  # fmt: skip
        s = _column(table.column(score).combine_chunks(), score, "score")
        users = None
        user = np.arange(table.num_rows, dtype=np.int64)
        if cluster is not None:
            ids = table.column(cluster).combine_chunks()
            _column(ids, cluster, "present")  # no missing id
            new = np.ones(len(ids), dtype=bool)
            new[1:] = pc.not_equal(ids[1:], ids[:-1]).to_numpy(zero_copy_only=False)
            user = np.cumsum(new, dtype=np.int64) - 1
            users = ids.filter(new)
        coded = {c: _column(table.column(c).combine_chunks(), c, "group") for c in groups}
        value = _UserPart(pid, y, s, user, users, coded)
    except (ValueError, TypeError) as exc:
        value = _Failure(pid, type(exc)(f"partition {pid}: {exc}"))
    yield _send(value)


def user_partitions(frame, *, label, score, groups, cluster, pos_label, n_total=0):
    """The rows grouped by user once for every attribute: each row numbered in file order
    (``monotonically_increasing_id``), range-partitioned on the user column (a user's
    rows in one partition, the partitions in user order; without `cluster`, every row its
    own user and nothing is shuffled), sorted by user then row, and kept on the executors
    as compact numpy partitions (:class:`_UserPart`, an RDD persisted in memory and disk):
    the kernel passes read these, never the rows again. The caller unpersists it."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    columns = list(dict.fromkeys(c for c in (label, score, *groups, cluster) if c))
    rows = frame.select(*columns).withColumn(_ROW, F.monotonically_increasing_id())
    if cluster is not None:
        n_parts = max(frame.rdd.getNumPartitions(), -(-int(n_total) // _USER_PARTITION_ROWS))
        rows = rows.repartitionByRange(n_parts, cluster).sortWithinPartitions(cluster, _ROW)
    fn = functools.partial(
        _compact_partition, label=label, score=score, cluster=cluster, groups=groups,
        pos_label=pos_label,
    )  # fmt: skip
    parts = rows.mapInArrow(fn, _BLOB).rdd.map(_load)
    return parts.persist(StorageLevel.MEMORY_AND_DISK)


def _codes_of(coded: list, n: int, index: dict) -> np.ndarray:
    """Group codes (one column's, or the intersection's with tuple labels) as codes into
    the global labels (`index`: label -> code); a label not in `index` gets -1."""
    from fastfair.engines.groups import intersection_codes

    codes, labels = intersection_codes(coded, n)
    local = np.array([index.get(v, -1) for v in labels.tolist()], dtype=np.intp)
    return local[codes]


def _group_codes(table, columns, index: dict) -> np.ndarray:
    """A partition's group column, or the intersection of several (tuple labels), as codes
    into the global labels (`index`: label -> code); a label not in `index` gets -1."""
    coded = [_column(table.column(c).combine_chunks(), c, "group") for c in columns]
    return _codes_of(coded, table.num_rows, index)


def _on_part(part, *, columns, index, task):
    """`task(partition index, its rows of the tested groups)`; a failure passes through."""
    if isinstance(part, _Failure):
        return part
    try:
        return task(part, part.rows(columns, index))
    except (ValueError, TypeError) as exc:
        return _Failure(part.pid, type(exc)(f"partition {part.pid}: {exc}"))


def _count_task(part, rows, *, n_groups):
    from fastfair.engines.clusters import partition_counts

    counted = partition_counts(rows, n_groups, "per_user")
    if counted[3] is not None:  # the first user in two groups: by its id
        counted = (*counted[:3], (part.user_label(counted[3][0]), *counted[3][1:]), counted[4])
    return _ByPartition({part.pid: counted})


def _sample_task(part, rows, *, starts, step):
    from fastfair.engines.clusters import partition_sample

    return _ByPartition({part.pid: partition_sample(rows, int(starts[part.pid]), step,
                                                    "per_user")})  # fmt: skip


def _kernel_task(part, rows, *, fn):
    from fastfair.engines.clusters import partition_pass

    sums = partition_pass(rows, fn, "per_user")
    return None if sums is None else _Sums(sums)


def _user_rows(table, *, label, score, groups, index, pos_label):
    """(y, score, group code) of a partition's rows of the tested groups (`index`: label ->
    code; `groups`: the attribute's columns), in the partition's order."""
    g = _group_codes(table, groups, index)
    keep = g >= 0
    y = _column(table.column(label).combine_chunks(), label, "binary", pos_label)
    s = _column(table.column(score).combine_chunks(), score, "score")
    return np.asarray(y[keep], dtype=np.uint8), s[keep], g[keep].astype(np.intp)


def _rows_partition(batches, *, read):
    """mapInArrow function: a partition's rows of the tested groups, keyed by its index."""
    pid, table = _partition_table(batches)
    if table is None:
        return
    try:
        value = _ByPartition({pid: read(table)})
    except (ValueError, TypeError) as exc:
        value = _Failure(pid, type(exc)(f"partition {pid}: {exc}"))
    yield _send(value)


def spark_score_rows(frame, labels, *, label, score, group, pos_label):
    """The rows of the groups `labels` of an attribute (`group`: its column, or an
    intersection's columns with tuple labels) as (y, score, index into `labels`), gathered
    on the driver partition after partition (in partition order): the AUC permutation test
    needs them (the DeLong sums do not)."""
    groups = [group] if isinstance(group, str) else list(group)
    read = functools.partial(
        _user_rows, label=label, score=score, groups=groups,
        index={v: k for k, v in enumerate(labels)}, pos_label=pos_label,
    )  # fmt: skip
    columns = list(dict.fromkeys((label, score, *groups)))
    got = _aggregate(frame.select(*columns), functools.partial(_rows_partition, read=read))
    parts = [] if got is None else [got.values[p] for p in sorted(got.values)]
    if not parts:
        return np.zeros(0, np.uint8), np.zeros(0, np.float64), np.zeros(0, np.intp)
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def spark_clusters(
    frame, tested_labels, codes, n_total, *, label, group, score, cluster, pos_label,
    rows=None,
):  # fmt: skip
    """Rows of the tested groups grouped by user, as
    :class:`fastfair.engines.clusters.SortedClusters` (see
    :func:`fastfair.engines.dask.dask_clusters`).

    `group`: a group column, or the list of an intersection's columns (`tested_labels`
    then tuples). `rows`: the frame's rows grouped by user (:func:`user_partitions`, with
    these group columns; the caller unpersists it); None: grouped here for this attribute
    (persisted while the session runs). Only per-partition counts, the row sample
    (at most 200,000 rows) and the merged kernel sums reach the driver.
    """
    from fastfair.engines import clusters as sc

    groups = [group] if isinstance(group, str) else list(group)
    if rows is None:
        rows = user_partitions(frame, label=label, score=score, groups=groups,
                               cluster=cluster, pos_label=pos_label, n_total=n_total)  # fmt: skip
    index = {v: k for k, v in enumerate(tested_labels)}

    def run(task):
        fn = functools.partial(_on_part, columns=groups, index=index, task=task)
        total = rows.map(fn).treeAggregate(None, _merge, _merge, depth=2)
        if isinstance(total, _Failure):
            raise total.error
        return total

    counted = run(functools.partial(_count_task, n_groups=len(tested_labels)))
    counted = {} if counted is None else counted.values
    pids = sorted(counted)
    bad = [(counted[p][3], sum(counted[q][4] for q in pids)) for p in pids if counted[p][3]]
    if bad:
        (user, first, other), n_bad = bad[0]  # partitions in user order: the first user
        raise sc.conflict_error(user, tested_labels[first], tested_labels[other], n_bad, cluster)
    lengths = np.array([counted[p][0] for p in pids], dtype=np.int64)
    if lengths.sum() != n_total:
        raise RuntimeError(f"expected {n_total} rows of the tested groups, met {lengths.sum()}")
    starts = dict(zip(pids, np.cumsum(lengths) - lengths))
    sampled = run(functools.partial(_sample_task, starts=starts,
                                    step=sc.sample_step(n_total))).values  # fmt: skip
    sample = tuple(np.concatenate([sampled[p][j] for p in sorted(sampled)]) for j in range(3))
    n_rows = np.sum([counted[p][1] for p in pids], axis=0).astype(np.int64)
    n_clusters = np.sum([counted[p][2] for p in pids], axis=0).astype(np.int64)

    def map_reduce(fn):
        total = run(functools.partial(_kernel_task, fn=fn))
        return None if total is None else total.sums

    result = sc.SortedClusters(np.asarray(codes), n_rows, n_clusters, sample, map_reduce,
                               "per_user")  # fmt: skip
    result.clustered = cluster is not None
    return result
