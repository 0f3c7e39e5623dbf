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
- predictive parity needs each cluster's rows together: reported as not run.
"""

from __future__ import annotations

import numpy as np

from fastfair._validation import GroupCodes, _check_label_values, as_binary, as_finite_float
from fastfair.stats import ConfusionStats, ScoreStats

__all__ = [
    "ENGINES",
    "AuditSummary",
    "audit_from_summary",
    "summarise_arrow",
    "summarise_dask",
    "summarise_rows",
]

ENGINES = ("memory", "arrow", "dask")


class AuditSummary:
    """Confusion counts (and score histograms) of some rows; merged with ``+``."""

    def __init__(self, confusion: ConfusionStats, scores: ScoreStats | None):
        self.confusion, self.scores = confusion, scores

    def __add__(self, other: AuditSummary) -> AuditSummary:
        scores = None if self.scores is None else self.scores + other.scores
        return AuditSummary(self.confusion + other.confusion, scores)


def summarise_rows(label, pred, score, group, *, threshold=0.5, pos_label=None):
    """The summary of one batch: label, prediction (or score >= threshold), group."""
    y = as_binary(label, "label", pos_label)
    s = None if score is None else as_finite_float(score, "score")
    yhat = as_binary(pred, "prediction", pos_label) if pred is not None else None
    if yhat is None:
        yhat = (s >= threshold).astype(np.uint8)
    confusion = ConfusionStats.from_arrays(y, yhat, group)
    scores = None if s is None else ScoreStats.from_arrays(y, s, group)
    return AuditSummary(confusion, scores)


def _batch_groups(values, name: str) -> GroupCodes:
    """An Arrow text column of one batch as codes with sorted labels (dictionary encoding)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if values.null_count:
        raise ValueError(
            f"{name} contains missing values (null) in {values.null_count:,} rows; "
            "a group label must be present: drop those rows or give them a label of their own"
        )
    kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        if kind is not values.type:
            values = values.dictionary_decode()
        return values.to_numpy(zero_copy_only=False)
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
    labels = np.array(values.dictionary.to_pylist(), dtype=object)
    indices = values.indices.to_numpy(zero_copy_only=False)
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


def summarise_arrow(source, *, label, group, pred, score, threshold, pos_label, batch_rows):
    """Summary of a file, directory or glob, batch by batch (pyarrow)."""
    from fastfair.io import _to_numpy, iter_batches

    columns = [c for c in (label, pred, score, group) if c is not None]
    total = None
    for path, batch in iter_batches(source, columns, batch_rows=batch_rows, dictionary=[group]):
        try:
            part = summarise_rows(
                _to_numpy(batch[label]),
                None if pred is None else _to_numpy(batch[pred]),
                None if score is None else _to_numpy(batch[score]),
                _batch_groups(batch[group], "group"),
                threshold=threshold,
                pos_label=pos_label,
            )
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{path}: {exc}") from exc
        total = part if total is None else total + part
    if total is None:
        raise ValueError(f"{source} has no rows")
    return total


def summarise_dask(source, *, label, group, pred, score, threshold, pos_label, scheduler):
    """Summary of Parquet/CSV files through dask (partitions reduced in a tree)."""
    import dask.dataframe as dd

    from fastfair.dask import _reduce
    from fastfair.io import _kind, source_files

    columns = [c for c in (label, pred, score, group) if c is not None]
    files = source_files(source)
    if _kind(files[0]) == "parquet":
        df = dd.read_parquet(files, columns=columns)
    else:
        df = dd.read_csv(files, usecols=columns, keep_default_na=False, na_values=[""])

    def build(*cols):
        values = dict(zip(columns, cols))
        return summarise_rows(
            values[label],
            values.get(pred),
            values.get(score),
            values[group],
            threshold=threshold,
            pos_label=pos_label,
        )

    client = None
    if scheduler is not None and scheduler not in ("threads", "processes", "sync"):
        from distributed import Client

        client = Client(scheduler)
    try:
        return _reduce(df, build, columns, {}, scheduler=None if client else scheduler)
    finally:
        if client is not None:
            client.close()


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
):
    """The AuditResult of one group column from a merged summary (as fastfair.audit's)."""
    import time

    from fastfair import _audit

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
    tests = []
    for metric in settings["metrics"]:
        tests += _audit._confusion_rows(attr, cells, metric, options)
    if summary.scores is not None:
        tested = [attr.labels[g] for g, _ in attr.comparisons]
        try:
            res = summary.scores.test(reference=attr.labels[attr.reference])
        except ValueError as exc:
            tests.append(dict(attribute=name, family="auc", metric="auc", error=str(exc)))
        else:
            pairs = [
                (attr.labels.index(a), attr.reference) for a, _ in res.comparisons if a in tested
            ]
            keep = [c for c, (a, _) in enumerate(res.comparisons) if a in tested]
            res.comparisons = [res.comparisons[c] for c in keep]
            for key in ("statistic", "pvalue"):
                setattr(res, key, np.atleast_1d(getattr(res, key))[keep])
            res.confidence_interval = tuple(
                np.atleast_1d(x)[keep] for x in res.confidence_interval
            )
            tests += _audit.auc_result_rows(attr, res, pairs)
        tests.append(
            dict(
                attribute=name,
                family="parity",
                metric="predictive_parity",
                group="all groups",
                reference="each other",
                groups=[attr.labels[g] for g in np.flatnonzero(attr.tested)],
                error=f"not run with --engine {engine}: it needs each cluster's rows "
                "together; run the audit in memory (--engine memory)",
            )
        )
    return _audit._result(
        tests,
        [attr],
        {name: cells},
        settings,
        n_rows=int(cells.sum()),
        columns=columns,
        parity={},
        start=start,
        engine=engine,
    )
