"""`fastfair audit --engine arrow|dask`: the audit from mergeable summaries, never the rows.

The data are read in record batches (``arrow``: pyarrow datasets on one machine) or
partitions (``dask``: any dask scheduler, ``--scheduler ADDRESS`` for a cluster); each is
reduced at once to :class:`fastfair.stats.ConfusionStats` (and
:class:`fastfair.stats.ScoreStats` when a score is given), and the summaries are added.
Memory is one batch plus the summaries, whatever the number of rows.

What the summaries support, and how the table differs from the in-memory audit:

- confusion-matrix tests: identical (same counts, same seed, same p-values);
- AUC: the DeLong z-test (the in-memory audit permutes rows), exact for scores with a
  bounded number of distinct values;
- predictive parity (arrow): the read that builds the summaries also keeps label, score,
  group and user in compact columns; the rows of the tested groups are then put in user
  order by a counting sort of int32 user codes (without ``--cluster`` each row is a user
  and the file order is kept) and the kernel sums are added over chunks of whole users
  (:mod:`fastfair._sorted_clusters`): equal to the in-memory test. The dask engine
  range-partitions the rows on the user column instead (:func:`dask_clusters`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools

import numpy as np

from fastfair._validation import (
    GroupCodes,
    _check_label_values,
    as_binary,
    as_finite_float,
    score_threshold,
)
from fastfair.stats import ConfusionStats, ScoreStats

__all__ = [
    "AUTO_ROWS",
    "ENGINES",
    "AuditSummary",
    "arrow_clusters",
    "audit_from_summary",
    "choose_engine",
    "dask_clusters",
    "dask_scheduler",
    "summarise_arrow",
    "summarise_dask",
    "summarise_rows",
]

ENGINES = ("auto", "memory", "arrow", "dask")

#: ``--engine auto`` (the default) audits a source of more rows than this with the arrow
#: engine (memory bounded by the batch plus the per-user sort), smaller ones in memory.
AUTO_ROWS = 2_000_000


def choose_engine(source, *, n_group_columns: int, intersections: bool):
    """(engine, note) for ``--engine auto``: "arrow" for a source of more than
    :data:`AUTO_ROWS` rows (Parquet: exact, from the footers; CSV: estimated from the file
    size) when the audit is one group column without intersections, else "memory"; `note`
    says why a large source stays in memory (None otherwise).

    What changes above the threshold: the AUC test is the DeLong z-test even with
    ``--permutations`` (``memory`` then permutes rows; by default both use DeLong at this
    size), the report has no threshold sweep, and the JSON says ``"engine": "arrow"``;
    confusion-matrix and predictive-parity results are identical.
    """
    try:
        import pyarrow  # noqa: F401

        from fastfair.io import estimate_rows

        rows = estimate_rows(source)
    except (ImportError, ValueError, OSError):  # the memory engine reports a bad source
        return "memory", None
    if rows <= AUTO_ROWS:
        return "memory", None
    if n_group_columns != 1 or intersections:
        return "memory", (
            f"{rows:,} rows audited in memory: several --group columns or --intersections "
            "need the memory engine, which holds the rows (about 30-150 bytes a row); "
            "audit one --group column at a time for the arrow engine's bounded memory"
        )
    return "arrow", None


class AuditSummary:
    """Confusion counts (and score histograms) of some rows; merged with ``+``.

    `rows`: the arrow engine's :class:`fastfair._sorted_clusters.UserRows` (the parity
    columns of every row, kept from the same read), else None.
    """

    def __init__(self, confusion: ConfusionStats, scores: ScoreStats | None, rows=None):
        self.confusion, self.scores, self.rows = confusion, scores, rows

    def __add__(self, other: AuditSummary) -> AuditSummary:
        scores = None if self.scores is None else self.scores + other.scores
        return AuditSummary(self.confusion + other.confusion, scores)


def _checked_rows(label, pred, score, *, threshold, pos_label):
    """(label, prediction, score) of one batch, checked: binary labels, finite scores."""
    y = as_binary(label, "label", pos_label, pos_name="--pos-label")
    s = None if score is None else as_finite_float(score, "score")
    yhat = (
        None if pred is None else as_binary(pred, "prediction", pos_label, pos_name="--pos-label")
    )
    if yhat is None:
        yhat = (s >= score_threshold(s, threshold, "score", "--threshold")).astype(np.uint8)
    return y, yhat, s


def _summary_of(y, yhat, s, group) -> AuditSummary:
    confusion = ConfusionStats.from_arrays(y, yhat, group)
    scores = None if s is None else ScoreStats.from_arrays(y, s, group)
    return AuditSummary(confusion, scores)


def summarise_rows(label, pred, score, group, *, threshold=None, pos_label=None):
    """The summary of one batch: label, prediction (or score >= threshold), group."""
    y, yhat, s = _checked_rows(label, pred, score, threshold=threshold, pos_label=pos_label)
    return _summary_of(y, yhat, s, group)


def _batch_groups(values, name: str) -> GroupCodes:
    """An Arrow text column of one batch as codes with sorted labels (dictionary encoding,
    :func:`fastfair.io.arrow_text`); numbers as they are."""
    from fastfair.io import arrow_text

    text = arrow_text(values, name)
    if isinstance(text, np.ndarray):
        return text
    indices, labels = text
    labels = np.array(labels, dtype=object)
    _check_label_values(labels, name, lambda k: int((indices == k).sum()))
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    used = np.bincount(indices, minlength=len(labels)) > 0  # dictionaries may hold unused
    codes = np.take(rank, indices)
    if not used.all():
        keep = used[order]
        remap = np.cumsum(keep) - 1
        return GroupCodes(np.take(remap, codes), labels[order][keep])
    return GroupCodes(codes, labels[order])


def summarise_arrow(
    source, *, label, group, pred, score, threshold, pos_label, batch_rows, cluster=None,
    keep_rows=False, progress=None,
):  # fmt: skip
    """Summary of a file, directory or glob, batch by batch (pyarrow); `cluster` is checked
    (present in every file, no missing value). With `keep_rows` (and a score), the same
    read also fills the parity columns (:class:`fastfair._sorted_clusters.UserRows`, in
    ``summary.rows``): the file is read once. `progress`: a tqdm-like bar factory advanced
    by the rows of each batch."""
    from fastfair._sorted_clusters import UserRows
    from fastfair.io import _counted_batches, _to_numpy, count_rows, iter_batches

    columns = list(dict.fromkeys(c for c in (label, pred, score, group, cluster) if c))
    rows = None
    if keep_rows and score is not None:
        rows = UserRows(count_rows(source), clustered=cluster is not None)
    total = None
    batches = iter_batches(source, columns, batch_rows=batch_rows, dictionary=[group])
    for path, batch in _counted_batches(batches, source, progress):
        try:
            _check_cluster(batch, cluster)
            y, yhat, s = _checked_rows(
                _to_numpy(batch[label]),
                None if pred is None else _to_numpy(batch[pred]),
                None if score is None else _to_numpy(batch[score]),
                threshold=threshold,
                pos_label=pos_label,
            )
            groups = _batch_groups(batch[group], "group")
            part = _summary_of(y, yhat, s, groups)
            if rows is not None:
                rows.add(y, s, groups, None if cluster is None else batch[cluster])
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{path}: {exc}") from exc
        total = part if total is None else total + part
    if total is None:
        raise ValueError(f"{source} has no rows")
    total.rows = rows
    return total


def _check_cluster(batch, cluster) -> None:
    if cluster is not None and batch[cluster].null_count:
        raise ValueError(
            f"cluster column {cluster!r} has {batch[cluster].null_count:,} missing values "
            "in a batch; drop or fill those rows"
        )


def arrow_clusters(rows, tested_labels, codes, n_total):
    """Rows of the tested groups grouped by user, from the columns the summary pass kept
    (`rows`, :class:`fastfair._sorted_clusters.UserRows`), as
    :class:`fastfair._sorted_clusters.SortedClusters` whose group k is `tested_labels[k]`,
    labelled `codes[k]`; `n_total` is their number of rows.

    Memory at 10^8 rows: the columns (label 1 byte, score 8, group 2, integer user id 8 a
    row) while they are filled; then the ids become int32 user codes, a counting sort gives
    an int32 order, and each column is gathered once in user order (the unsorted one freed
    at once), so the kernel passes read the rows sequentially.
    """
    from fastfair._sorted_clusters import from_ordered_chunks

    chunks, user_labels = rows.sorted_chunks(tested_labels)
    return from_ordered_chunks(
        chunks,
        np.asarray(codes),
        n_total=n_total,
        weighting="per_user",
        clustered=rows.clustered,
        user_labels=user_labels,
    )


def summarise_dask(
    source, *, label, group, pred, score, threshold, pos_label, scheduler, cluster=None
):
    """Summary of Parquet/CSV files through dask (partitions reduced in a tree); `cluster`
    is checked (in every file, no missing value in any partition), for the parity pass."""
    from fastfair.dask import _reduce

    columns = list(dict.fromkeys(c for c in (label, pred, score, group, cluster) if c))
    df = _dask_frame(source, columns)

    def build(*cols):
        values = dict(zip(columns, cols))
        if cluster is not None and values[cluster].isna().any():
            raise ValueError(
                f"cluster column {cluster!r} has {int(values[cluster].isna().sum()):,} "
                "missing values; drop or fill those rows"
            )
        return summarise_rows(
            values[label],
            values.get(pred),
            values.get(score),
            values[group],
            threshold=threshold,
            pos_label=pos_label,
        )

    return _reduce(df, build, columns, {}, scheduler=scheduler)


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

    from fastfair.io import _kind, check_columns

    files = check_columns(source, columns)
    if _kind(files[0]) == "parquet":
        return dd.read_parquet(files, columns=columns)
    return dd.read_csv(files, usecols=columns, keep_default_na=False, na_values=[""])


def _with_row(frame, start: int):
    """A partition with its global row numbers (the file order) in ``_row``."""
    return frame.assign(_row=np.arange(start, start + len(frame), dtype=np.int64))


def dask_clusters(
    source, tested_labels, codes, n_total, *, label, group, score, cluster, pos_label,
    scheduler=None,
):  # fmt: skip
    """Rows of the tested groups grouped by user by a dask sort on the user column, as
    :class:`fastfair._sorted_clusters.SortedClusters` (see :func:`arrow_clusters`).

    The partitions get their global row numbers first (the file order, by which the rows
    of a user are ordered as in memory), are range-partitioned on the user column
    (``set_index``: each output partition holds whole users, the partitions in user order),
    sorted inside and kept on the workers (persist) for the kernel passes; only per-partition
    counts and the row sample reach the client. Without `cluster` every row is its own
    cluster (no shuffle).
    """
    import dask
    import dask.dataframe as dd

    from fastfair import _sorted_clusters as sc

    columns = list(dict.fromkeys(c for c in (label, score, group, cluster) if c))
    df = _dask_frame(source, columns)
    parts = df.to_delayed()
    lengths = dask.compute(*[dask.delayed(len)(p) for p in parts], scheduler=scheduler)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    meta = df._meta.assign(_row=np.zeros(0, dtype=np.int64))
    df = dd.from_delayed(
        [dask.delayed(_with_row)(p, int(k)) for p, k in zip(parts, starts)], meta=meta
    )
    key = cluster if cluster is not None else "_row"
    if cluster is not None:
        # a local scheduler cannot run the distributed p2p shuffle: tasks then
        df = df.set_index(cluster, shuffle_method="tasks" if scheduler else None)
    index = {v: k for k, v in enumerate(tested_labels)}
    sort = functools.partial(
        sc.sort_partition, label=label, score=score, group=group, cluster=key, index=index,
        pos_label=pos_label,
    )  # fmt: skip
    sorted_parts = [
        dask.delayed(sc.named_partition)(k, sort, p) for k, p in enumerate(df.to_delayed())
    ]
    sorted_parts = dask.persist(*sorted_parts, scheduler=scheduler)

    def compute(*values):
        return dask.compute(*values, scheduler=scheduler)

    result = sc.from_partitions(
        list(sorted_parts), np.asarray(codes), n_total=n_total, weighting="per_user",
        compute=compute,
    )  # fmt: skip
    result.clustered = cluster is not None
    return result


def audit_from_summary(
    summary: AuditSummary,
    *,
    engine: str,
    columns: dict,
    reference=None,
    metrics=None,
    n_permutations: int | None = None,
    random_state=0,
    n_jobs=None,
    min_group_size: int = 10,
    alpha: float = 0.05,
    tau: float = 0.05,
    power: float = 0.8,
    adjust: str = "holm",
    tolerance: float | None = None,
    equivalence: float | None = None,
    clusters=None,
    progress=None,
):
    """The AuditResult of one group column from a merged summary (as fastfair.audit's).

    `clusters(tested labels, their codes, their rows)`: the rows grouped by user
    (:class:`fastfair._sorted_clusters.SortedClusters`), for predictive parity per user;
    `progress`: a progress-bar factory, as fastfair.audit's.
    """
    import time

    from fastfair.cli import audit as _audit

    start = time.perf_counter()
    settings = _audit._settings(
        alpha, tau, power, adjust, n_permutations, metrics, random_state, n_jobs, False,
        min_group_size, tolerance=tolerance, equivalence=equivalence,
    )  # fmt: skip
    conf = summary.confusion
    cells = np.asarray(conf.counts)
    name = columns["groups"][0]
    attr = _audit.attribute_from_sizes(
        name, conf.labels.tolist(), cells.sum(axis=1), min_group_size=min_group_size,
        reference=reference,
    )  # fmt: skip
    _audit._check_something_tested([attr], min_group_size)
    options = settings["options"]
    tests, parity = [], {}
    steps = len(settings["metrics"]) + (summary.scores is not None)
    bar = progress(total=steps, desc="tests") if progress else None
    for metric in settings["metrics"]:
        tests += _audit._confusion_rows(attr, cells, metric, options)
        if bar is not None:
            bar.update(1)
    if summary.scores is not None:
        tested = [attr.labels[g] for g, _ in attr.comparisons]
        try:
            res = summary.scores.test(reference=attr.labels[attr.reference])
        except ValueError as exc:
            tests.append(
                _audit.PendingTest(attribute=name, family="auc", metric="auc", error=str(exc))
            )
        else:
            pairs = [
                (attr.labels.index(a), attr.reference) for a, _ in res.comparisons if a in tested
            ]
            keep = [c for c, (a, _) in enumerate(res.comparisons) if a in tested]
            res = dataclasses.replace(
                res,
                comparisons=[res.comparisons[c] for c in keep],
                statistic=np.atleast_1d(res.statistic)[keep],
                pvalue=np.atleast_1d(res.pvalue)[keep],
                confidence_interval=tuple(np.atleast_1d(x)[keep] for x in res.confidence_interval),
            )
            tests += _audit.auc_result_rows(attr, res, pairs)
        if attr.reference is not None and clusters is not None:

            def prepared(tested):
                return clusters([attr.labels[c] for c in tested], tested, int(cells[tested].sum()))

            row, res = _audit._parity_row(attr, None, None, None, settings["options"], prepared)
            tests.append(row)
            if res is not None:
                parity[name] = res
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return _audit._result(
        tests,
        [attr],
        {name: cells},
        settings,
        n_rows=int(cells.sum()),
        columns=columns,
        parity=parity,
        start=start,
        engine=engine,
        progress=progress,
    )
