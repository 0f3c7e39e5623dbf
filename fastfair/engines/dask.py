"""Fairness tests of a dask DataFrame: statistics per partition, merged by a tree reduction.

Each function takes a ``dask.dataframe.DataFrame`` and column names, summarises every
partition where it lives into a mergeable statistic of :mod:`fastfair.stats`, adds the
summaries pairwise (a tree of depth log2(partitions)) and runs the in-memory inference code
on the sum. Results are the same objects as the in-memory functions return:

- :func:`permutation_test`: identical to :func:`fastfair.permutation_test` on the rows
  (the counts are integers, so exact p-values and Monte-Carlo p-values for the same seed are
  identical);
- :func:`compare_models`: :func:`fastfair.compare_models` of two models' predictions on
  the same rows, from the paired counts (:class:`fastfair.compare.PairedStats`): identical
  to the in-memory result;
- :func:`delong` and :func:`auc_test` (DeLong z-test): equal to the in-memory DeLong
  results to 1e-12 relative, for any scores: dask sorts the rows by score (a distributed
  sort; the rows stay on the workers), each partition sums its placements and the client
  adds O(groups) numbers per partition, shifted by the counts below
  (:func:`placement_sums`, :class:`fastfair.stats.PlacementSums`). With ``resolution``
  the scores are binned instead (histograms, no shuffle; see
  :class:`fastfair.stats.ScoreStats`). The permutation AUC test needs the rows and is not
  offered here.

Install with ``pip install fastfair[dask]``; dask is imported only when these run. Errors
found in a partition name it (``partition 3: ...``).

The same module is the audit's dask engine (``fastfair.audit(..., engine="dask")``,
``fastfair audit --engine dask``): :func:`summarise_dask` reduces the partitions to an
:class:`fastfair.engines.attributes.AuditSummary` (every attribute and intersection in one
pass), and :func:`dask_clusters` range-partitions the rows on the user column for predictive
parity. The public import path is
:mod:`fastfair.dask` (a re-export of this module).
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._validation import as_binary, check_binary_values
from fastfair.compare import PairedStats
from fastfair.engines import attributes, distributed
from fastfair.engines.files import check_names
from fastfair.engines.summaries import (
    ConfusionStats,
    PlacementSums,
    ScoreRuns,
    ScoreStats,
    checked_rows,
)

if TYPE_CHECKING:
    from collections.abc import Hashable

    import dask.dataframe as dd

    from fastfair.auc import AUCTestResult, DeLongResult  # noqa: F401 (auc_test's return type)
    from fastfair.compare import ModelComparisonResult  # noqa: F401 (the generated tests'
    from fastfair.permutation import PermutationTestResult  # noqa: F401 return types)

__all__ = [
    "auc_test",
    "compare_models",
    "confusion_stats",
    "dask_clusters",
    "dask_scheduler",
    "dask_score_rows",
    "delong",
    "paired_stats",
    "permutation_test",
    "placement_sums",
    "score_stats",
    "summarise_dask",
]


#: The dask parts of the functions' docstrings (:mod:`fastfair.engines.distributed`
#: fills them in with the shared ones).
_DOCS = {
    "df": """df : dask.dataframe.DataFrame
        The rows, in any number of partitions.""",
    "scheduler": """scheduler : str or distributed.Client, optional
        Passed to ``dask.compute`` (e.g. ``"sync"``, ``"threads"``, ``"processes"``, a
        client); None: dask's default.""",
    "exact_resolution": """resolution : float, optional
        Bin the scores to multiples of this width (see :class:`fastfair.stats.ScoreStats`;
        no shuffle, the AUC within its ``auc_error_bound``); None: the exact scores, sorted
        by dask (:func:`placement_sums`: the rows stay on the workers).""",
    "example": """>>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> import fastfair, fastfair.dask
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({c: rng.integers(0, 2, 1000) for c in ("y", "p", "a", "b")})
    >>> frame["s"], frame["g"] = rng.random(1000).round(2), rng.choice(["u", "v"], 1000)
    >>> df = dd.from_pandas(frame, npartitions=4)""",
}


_documented = distributed.documented(_DOCS)


def _dask():
    try:
        import dask
    except ImportError as exc:
        raise ImportError("fastfair.dask needs dask: pip install 'fastfair[dask]'") from exc
    return dask


def _in_partition(index: int, build, frame, columns, kwargs, binary=()):
    """Summary of one partition (None when it has no rows: an empty file, a partition
    emptied by a filter); errors say which partition. With `binary` columns: the summary
    and those columns' distinct values (a :class:`~fastfair.engines.distributed.Piece`)."""
    if len(frame) == 0:
        return None
    try:
        summary = build(*(frame[c] for c in columns), **kwargs)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"partition {index}: {exc}") from exc
    if not binary:
        return summary
    return distributed.Piece(
        summary, {c: frozenset(frame[c].drop_duplicates().tolist()) for c in binary}
    )


def _add(a, b):
    """Two partial summaries added; None (empty partitions) adds nothing."""
    return b if a is None else a if b is None else a + b


def _reduce(
    df, build, columns, kwargs, *, split_every: int = 2, scheduler=None,
    binary: dict | None = None, require_pos: bool = True,
):  # fmt: skip
    """Tree reduction of per-partition summaries; returns the merged summary. `binary`:
    {column: its name in messages}, checked as a whole
    (:func:`~fastfair.engines.distributed.checked_piece`) against
    ``kwargs["pos_label"]``."""
    binary = binary or {}
    graph = _reduction(df, build, columns, kwargs, split_every, binary=tuple(binary))
    (result,) = _dask().compute(graph, scheduler=scheduler)
    if result is None:
        raise ValueError("the dask DataFrame has no rows")
    return distributed.checked_piece(result, binary, kwargs.get("pos_label"), require_pos)


def _reduction(df, build, columns, kwargs, split_every: int = 2, binary=()):
    """The delayed tree reduction of per-partition summaries (pieces with `binary`
    columns)."""
    dask = _dask()
    check_names(list(df.columns), columns, "the dask DataFrame")
    parts = df[list(dict.fromkeys(columns))].to_delayed()
    layer = [
        dask.delayed(_in_partition)(i, build, part, columns, kwargs, binary)
        for i, part in enumerate(parts)
    ]
    if not layer:
        raise ValueError("the dask DataFrame has no partitions")
    while len(layer) > 1:
        merged = []
        for k in range(0, len(layer), split_every):
            block = layer[k : k + split_every]
            node = block[0]
            for other in block[1:]:
                node = dask.delayed(_add)(node, other)
            merged.append(node)
        layer = merged
    return layer[0]


@_documented
def confusion_stats(
    df: dd.DataFrame,
    y_true: str,
    y_pred: str,
    *group: str,
    pos_label: Hashable | None = None,
    scheduler: str | Any | None = None,
) -> ConfusionStats:
    """Confusion counts per group (or intersection of `group` columns) of a dask DataFrame.

    Parameters
    ----------
    {df}
    {y_pred}
    {groups}
    {pos_label}
    {scheduler}

    Returns
    -------
    fastfair.stats.ConfusionStats
        The counts per group, ready for ``.test(...)``.

    Examples
    --------
    {example}
    >>> stats = fastfair.dask.confusion_stats(df, "y", "p", "g", scheduler="sync")
    >>> counts, _ = fastfair.confusion_counts(frame.y, frame.p, frame.g)
    >>> bool((stats.counts == counts).all())
    True
    """
    columns = [y_true, y_pred, *group]
    return _reduce(df, _confusion_of, columns, dict(pos_label=pos_label), scheduler=scheduler,
                   binary={y_true: "y_true", y_pred: "y_pred"})  # fmt: skip


def _confusion_of(y, yhat, *groups, pos_label=None):
    """A partition's counts: it need not hold `pos_label` (the whole columns must)."""
    y, yhat = _binary(y, "y_true", pos_label), _binary(yhat, "y_pred", pos_label)
    return ConfusionStats.from_arrays(y, yhat, *groups)


def _binary(values, name: str, pos_label):
    """A partition's binary column as 0/1; `pos_label` need not occur in this partition."""
    return as_binary(values, name, pos_label, require_pos=False)


permutation_test = distributed.summary_test(
    "permutation_test",
    confusion_stats,
    engine="dask",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.dask.permutation_test(df, "y", "p", "g", scheduler="sync")
    >>> res.pvalue == fastfair.permutation_test(frame.y, frame.p, frame.g).pvalue
    True""",
)


@_documented
def score_stats(
    df: dd.DataFrame,
    y_true: str,
    y_score: str,
    group: str,
    *,
    resolution: float | None = None,
    pos_label: Hashable | None = None,
    scheduler: str | Any | None = None,
) -> ScoreStats:
    """Score histograms per group and label of a dask DataFrame (:class:`ScoreStats`).

    Parameters
    ----------
    {df}
    {y_score}
    {resolution}
    {pos_label}
    {scheduler}

    Returns
    -------
    fastfair.stats.ScoreStats
        Counts per group, label and distinct score, ready for ``.delong()``/``.test()``.

    Examples
    --------
    {example}
    >>> stats = fastfair.dask.score_stats(df, "y", "s", "g", scheduler="sync")
    >>> int(stats.counts.sum())
    1000
    """
    kwargs = dict(resolution=resolution, pos_label=pos_label)
    return _reduce(df, _scores_of, [y_true, y_score, group], kwargs, scheduler=scheduler,
                   binary={y_true: "y_true"})  # fmt: skip


def _scores_of(y, score, group, resolution=None, pos_label=None):
    y = _binary(y, "y_true", pos_label)
    return ScoreStats.from_arrays(y, score, group, resolution=resolution)


@_documented
def placement_sums(
    df: dd.DataFrame,
    y_true: str,
    y_score: str,
    group: str,
    *,
    pos_label: Hashable | None = None,
    scheduler: str | Any | None = None,
) -> PlacementSums:
    """Exact DeLong placement sums per group of a dask DataFrame, for any scores.

    The rows are sorted by score with dask's own distributed sort (``sort_values``: the
    partitions become score ranges, rows with equal scores in one partition, and the rows
    move between workers, never to the client); each partition then sums its rows'
    placements within the partition (:class:`fastfair.stats.PlacementSums`, O(groups)
    integers), and the client shifts each partition's sums by the counts of the partitions
    below it (:meth:`fastfair.stats.PlacementSums.followed_by`). Only O(groups x
    partitions) numbers reach the client, and the sums are the exact integers of one sort
    of all the rows.

    Parameters
    ----------
    {df}
    {y_score}
    {pos_label}
    {scheduler}

    Returns
    -------
    fastfair.stats.PlacementSums
        Ready for ``.delong()``/``.test()``.

    Examples
    --------
    {example}
    >>> sums = fastfair.dask.placement_sums(df, "y", "s", "g", scheduler="sync")
    >>> ref = fastfair.delong(frame.y, frame.s, frame.g)
    >>> bool(np.allclose(sums.delong().auc, ref.auc, rtol=1e-12))
    True
    """
    layer = _placement_layer(df, [y_true, y_score, group], _placements_of,
                             dict(pos_label=pos_label), y_score, scheduler,
                             binary=(y_true,))  # fmt: skip
    pieces = [p for p in _dask().compute(*layer, scheduler=scheduler) if p is not None]
    values = frozenset().union(*(p.values[y_true] for p in pieces))
    check_binary_values(values, "y_true", pos_label)
    return _chain([p.summary for p in pieces])


def _placement_layer(df, columns, build, kwargs, score, scheduler, binary=()) -> list:
    """Delayed `build` of each partition of `df[columns]` sorted by `score` (dask's sort);
    pieces with `binary` columns."""
    dask = _dask()
    check_names(list(df.columns), columns, "the dask DataFrame")
    if df.npartitions == 0:
        raise ValueError("the dask DataFrame has no partitions")
    frame = df[list(dict.fromkeys(columns))]
    # Handed over as delayed partitions: dask fuses the small partitions of Parquet files
    # when it reads the score column alone, so its check whether the partitions were
    # already sorted by score counted fewer partitions than the frame's (two files: one),
    # found them "sorted" and sorted each file alone; delayed values are never fused.
    import dask.dataframe as dd

    frame = dd.from_delayed(frame.to_delayed(), meta=frame._meta)
    # a local scheduler cannot run the distributed p2p shuffle: tasks then
    ranked = frame.sort_values(score, shuffle_method="tasks" if scheduler else None)
    return [
        dask.delayed(_in_partition)(i, build, part, columns, kwargs, binary)
        for i, part in enumerate(ranked.to_delayed())
    ]


def _chain(parts) -> PlacementSums:
    """The partitions' placement sums, in score order, combined."""
    present = [p for p in parts if p is not None]
    if not present:
        raise ValueError("the dask DataFrame has no rows")
    return functools.reduce(PlacementSums.followed_by, present)


def _placements_of(y, score, group, pos_label=None):
    """A partition's own placement sums (None when it is empty)."""
    if len(y) == 0:
        return None
    return PlacementSums.from_arrays(_binary(y, "y_true", pos_label), score, group)


@_documented
def delong(
    df: dd.DataFrame,
    y_true: str,
    y_score: str,
    group: str,
    *,
    resolution: float | None = None,
    scheduler: str | Any | None = None,
) -> DeLongResult:
    """Per-group AUC and DeLong variance of a dask DataFrame (:class:`DeLongResult`).

    Parameters
    ----------
    {df}
    {y_score}
    {exact_resolution}
    {scheduler}

    Returns
    -------
    DeLongResult
        As :func:`fastfair.delong` returns it for the same rows.

    Examples
    --------
    {example}
    >>> res = fastfair.dask.delong(df, "y", "s", "g", scheduler="sync")
    >>> ref = fastfair.delong(frame.y, frame.s, frame.g)
    >>> bool(np.allclose(res.auc, ref.auc, rtol=1e-12))
    True
    """
    return _score_summary(df, y_true, y_score, group, resolution, scheduler).delong()


def _score_summary(df, y_true, y_score, group, resolution, scheduler):
    """Exact placement sums (a distributed sort), or histograms binned at `resolution`."""
    if resolution is None:
        return placement_sums(df, y_true, y_score, group, scheduler=scheduler)
    return score_stats(df, y_true, y_score, group, resolution=resolution, scheduler=scheduler)


auc_test = distributed.summary_test(
    "auc_test",
    delong,
    engine="dask",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.dask.auc_test(df, "y", "s", "g", scheduler="sync")
    >>> ref = fastfair.auc_test(frame.y, frame.s, frame.g, method="delong")
    >>> bool(np.isclose(res.pvalue, ref.pvalue, rtol=1e-9))
    True""",
)


@_documented
def paired_stats(
    df: dd.DataFrame,
    y_true: str,
    y_pred_a: str,
    y_pred_b: str,
    group: str,
    *,
    pos_label: Hashable | None = None,
    scheduler: str | Any | None = None,
) -> PairedStats:
    """Paired cell counts of two models per group of a dask DataFrame.

    Parameters
    ----------
    {df}
    {y_pred_ab}
    {pos_label}
    {scheduler}

    Returns
    -------
    fastfair.compare.PairedStats
        The counts per group, ready for ``.test(...)``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> import fastfair, fastfair.dask
    >>> frame = pd.DataFrame({"y": [1, 1, 0, 1], "a": [1, 0, 0, 1], "b": [1, 1, 0, 0],
    ...                       "g": ["u", "u", "v", "v"]})
    >>> stats = fastfair.dask.paired_stats(dd.from_pandas(frame, npartitions=2), "y", "a", "b",
    ...                                    "g", scheduler="sync")
    >>> stats.counts.tolist()  # cells (y, a, b): 000 001 010 011 100 101 110 111
    [[0, 0, 0, 0, 0, 1, 0, 1], [1, 0, 0, 0, 0, 0, 1, 0]]
    """
    columns = [y_true, y_pred_a, y_pred_b, group]
    binary = {y_true: "y_true", y_pred_a: "y_pred_a", y_pred_b: "y_pred_b"}
    return _reduce(df, _paired_of, columns, dict(pos_label=pos_label), scheduler=scheduler,
                   binary=binary, require_pos=False)  # fmt: skip


def _paired_of(y, a, b, group, pos_label=None):
    return PairedStats.from_arrays(y, a, b, group, pos_label=pos_label)


compare_models = distributed.summary_test(
    "compare_models",
    paired_stats,
    engine="dask",
    parts=_DOCS,
    module=__name__,
    example="""
    >>> res = fastfair.dask.compare_models(df, "y", "a", "b", "g", random_state=0,
    ...                                    scheduler="sync")
    >>> res.pvalue == fastfair.compare_models(frame.y, frame.a, frame.b, frame.g,
    ...                                       random_state=0).pvalue
    True""",
)


def summarise_dask(
    source, *, label, groups, pred, score, threshold, pos_label, scheduler, cluster=None,
    combos=None,
):  # fmt: skip
    """Summary of Parquet/CSV files through dask (partitions reduced in a tree): the
    :class:`fastfair.engines.attributes.AuditSummary` of the attributes `groups` (column
    names): the confusion cube of the partitions reduced in a tree and, with a score, the
    exact :class:`fastfair.stats.PlacementSums` of each attribute combination of `combos`
    (default: each attribute alone) from dask's sort by score (:func:`placement_sums`), in
    one compute. `cluster` is checked (in every file, no missing value in any partition),
    for the parity pass."""
    groups = [groups] if isinstance(groups, str) else list(groups)
    columns = list(dict.fromkeys(c for c in (label, pred, score, *groups, cluster) if c))
    df = _dask_frame(source, columns)

    def build(*cols):
        values = dict(zip(columns, cols))
        if cluster is not None and values[cluster].isna().any():
            raise ValueError(
                f"cluster column {cluster!r} has {int(values[cluster].isna().sum()):,} "
                "missing values; drop or fill those rows"
            )
        y, yhat, _ = checked_rows(
            values[label], values.get(pred), values.get(score), threshold=threshold,
            pos_label=pos_label,
        )  # fmt: skip
        return attributes.summary_of(y, yhat, None, {g: values[g] for g in groups}, combos)

    combos = [(g,) for g in groups] if combos is None else [tuple(c) for c in combos]
    binary = {c: f"{role} column {c!r}" for c, role in ((label, "label"), (pred, "prediction"))
              if c is not None}  # fmt: skip
    graph = [_reduction(df, build, columns, {}, binary=tuple(binary))]
    if score is not None:
        kwargs = dict(names=groups, combos=combos, pos_label=pos_label)
        graph += _placement_layer(df, [label, score, *groups], _audit_placements, kwargs,
                                  score, scheduler)  # fmt: skip
    total, *parts = _dask().compute(*graph, scheduler=scheduler)
    if total is None:
        raise ValueError(f"{source} has no rows")
    total = distributed.checked_piece(total, binary, pos_label, require_pos=False)
    if score is not None:
        present = [p for p in parts if p is not None]
        total.scores = {c: _chain([p[c] for p in present]) for c in combos}
    return total


def _audit_placements(y, score, *groups, names, combos, pos_label=None):
    """{combination: its PlacementSums} of one partition of the rows sorted by score (the
    partition sorted once for every combination); None when it is empty."""
    from fastfair._auc import sort_order

    if len(y) == 0:
        return None
    y, _, s = checked_rows(y, y, score, threshold=None, pos_label=pos_label)
    coded = attributes.code_groups(dict(zip(names, groups)))
    order = sort_order(s)
    ranked = (y[order], s[order])
    out = {}
    for c in combos:
        g = attributes.combination_codes(coded, c)
        out[c] = ScoreRuns.from_codes(*ranked, g.codes, g.labels, order=order).placements()
    return out


@contextlib.contextmanager
def dask_scheduler(scheduler):
    """The dask scheduler to pass on: a dask.distributed Client for an ADDRESS (closed on
    exit; None then means "the client"), else `scheduler` itself (threads, sync, ...)."""
    if scheduler is None or scheduler in ("threads", "processes", "sync"):
        yield scheduler
        return
    from distributed import Client

    with Client(scheduler):
        yield None


def _dask_frame(source, columns):
    """The files as a dask DataFrame of `columns`; a file without one is named at once."""
    import dask.dataframe as dd

    from fastfair.engines.files import _kind, check_columns

    files = check_columns(source, columns)
    if _kind(files[0]) == "parquet":
        return dd.read_parquet(files, columns=columns)
    return dd.read_csv(files, usecols=columns, keep_default_na=False, na_values=[""])


def _with_row(frame, start: int):
    """A partition with its global row numbers (the file order) in ``_row``."""
    return frame.assign(_row=np.arange(start, start + len(frame), dtype=np.int64))


def dask_score_rows(source, labels, *, label, score, group, pos_label, scheduler=None):
    """The rows of the groups `labels` of an attribute (`group`: its column, or an
    intersection's columns with tuple labels) as (y, score, index into `labels`), gathered
    on the client partition after partition: the AUC permutation test needs them (the
    DeLong sums do not), 17 bytes a row of those groups."""
    import dask

    from fastfair.engines import clusters as sc

    group = [group] if isinstance(group, str) else list(group)
    df = _dask_frame(source, list(dict.fromkeys((label, score, *group))))
    read = functools.partial(
        sc.group_rows, label=label, score=score, group=group,
        index={v: k for k, v in enumerate(labels)}, pos_label=pos_label,
    )  # fmt: skip
    parts = dask.compute(
        *[dask.delayed(sc.named_partition)(k, read, p) for k, p in enumerate(df.to_delayed())],
        scheduler=scheduler,
    )
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def dask_user_frames(source, *, label, score, groups, cluster, scheduler=None) -> list:
    """The rows grouped by user once for every attribute: the partitions get their global
    row numbers (``_row``: the file order, by which a user's rows are ordered as in
    memory), are range-partitioned on the user column (``set_index``: each output partition
    holds whole users, the partitions in user order) and kept on the workers (persist), so
    that each attribute's parity passes (:func:`dask_clusters`) neither read the files nor
    shuffle again. Without `cluster` every row is its own user (no shuffle)."""
    import dask
    import dask.dataframe as dd

    columns = list(dict.fromkeys(c for c in (label, score, *groups, cluster) if c))
    df = _dask_frame(source, columns)
    parts = df.to_delayed()
    lengths = dask.compute(*[dask.delayed(len)(p) for p in parts], scheduler=scheduler)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    meta = df._meta.assign(_row=np.zeros(0, dtype=np.int64))
    df = dd.from_delayed(
        [dask.delayed(_with_row)(p, int(k)) for p, k in zip(parts, starts)], meta=meta
    )
    if cluster is not None:
        # a local scheduler cannot run the distributed p2p shuffle: tasks then
        df = df.set_index(cluster, shuffle_method="tasks" if scheduler else None)
    return list(dask.persist(*df.to_delayed(), scheduler=scheduler))


class UserGroups:
    """The audit's `clusters` callback on dask: ``(attribute columns, tested labels, their
    codes, their rows, last)`` -> :func:`dask_clusters` of the rows grouped by user once for
    every attribute (:func:`dask_user_frames`, dropped by :meth:`release`)."""

    def __init__(self, source, *, label, score, groups, cluster, pos_label, scheduler):
        self.source, self.frames, self.groups = source, None, list(groups)
        self.read = dict(label=label, score=score, cluster=cluster, pos_label=pos_label,
                         scheduler=scheduler)  # fmt: skip

    def __call__(self, combo, labels, codes, n_rows, last):
        if self.frames is None:
            read = {k: v for k, v in self.read.items() if k != "pos_label"}
            self.frames = dask_user_frames(self.source, groups=self.groups, **read)
        return dask_clusters(self.source, labels, codes, n_rows, group=list(combo),
                             frames=self.frames, **self.read)  # fmt: skip

    def release(self) -> None:
        """Let the workers drop the rows grouped by user."""
        self.frames = None


def dask_clusters(
    source, tested_labels, codes, n_total, *, label, group, score, cluster, pos_label,
    scheduler=None, frames=None,
):  # fmt: skip
    """Rows of the tested groups grouped by user, as
    :class:`fastfair.engines.clusters.SortedClusters` (see
    :func:`fastfair.engines.arrow.arrow_clusters`). `group`: the attribute's column, or
    the columns of an intersection (`tested_labels` then tuples).

    `frames`: the rows grouped by user (:func:`dask_user_frames`, with these group
    columns); None: grouped here. Each partition's rows of the tested groups are sorted by
    user and row number and kept on the workers (persist) for the kernel passes; only
    per-partition counts and the row sample reach the client.
    """
    import dask

    from fastfair.engines import clusters as sc

    group = [group] if isinstance(group, str) else list(group)
    if frames is None:
        frames = dask_user_frames(source, label=label, score=score, groups=group,
                                  cluster=cluster, scheduler=scheduler)  # fmt: skip
    sort = functools.partial(
        sc.sort_partition, label=label, score=score, group=group,
        cluster=cluster if cluster is not None else "_row",
        index={v: k for k, v in enumerate(tested_labels)}, pos_label=pos_label,
    )  # fmt: skip
    sorted_parts = [dask.delayed(sc.named_partition)(k, sort, p) for k, p in enumerate(frames)]
    sorted_parts = dask.persist(*sorted_parts, scheduler=scheduler)

    def compute(*values):
        return dask.compute(*values, scheduler=scheduler)

    result = sc.from_partitions(
        list(sorted_parts), np.asarray(codes), n_total=n_total, weighting="per_user",
        compute=compute, column=cluster,
    )  # fmt: skip
    result.clustered = cluster is not None
    return result
