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
    reference,
    metrics,
    permutations: int,
    seed,
    jobs,
    min_group_size: int,
    alpha: float,
) -> tuple[list[dict], list[dict], int]:
    """(tests, groups summary, rows) of the audit table, from a merged summary."""
    from fastfair.cli import CLIError, _auc_result_rows, _confusion_rows

    conf = summary.confusion
    labels, counts = conf.labels, conf.counts
    sizes = counts.sum(axis=1)
    if len(labels) < 2:
        raise CLIError(f"the group column has a single group ({labels.tolist()[0]!r})")
    for g, n in zip(labels.tolist(), sizes.tolist()):
        if n < min_group_size:
            raise CLIError(
                f"group {g!r} has only {n} rows (at least {min_group_size} needed; "
                "see --min-group-size)"
            )
    if reference is not None:
        matches = [g for g in labels.tolist() if str(g) == str(reference)]
        if not matches:
            raise CLIError(f"reference {reference!r} is not a group; groups: {labels.tolist()}")
        reference = matches[0]
    tests = []
    for metric in metrics:
        try:
            res = conf.test(
                metric=metric,
                reference=reference,
                n_permutations=permutations,
                random_state=seed,
                n_jobs=jobs,
            )
        except ValueError as exc:
            tests.append(dict(family="confusion", metric=metric, error=str(exc)))
            continue
        tests.extend(_confusion_rows(metric, res))
    if summary.scores is not None:
        try:
            tests.extend(_auc_result_rows(summary.scores.test(reference=reference)))
        except ValueError as exc:
            tests.append(dict(family="auc", metric="auc", error=str(exc)))
        tests.append(
            dict(
                family="parity",
                metric="predictive_parity",
                error=f"not run with --engine {engine}: it needs each cluster's rows "
                "together; run the audit in memory (--engine memory)",
            )
        )
    positives = counts[:, 2] + counts[:, 3]
    selected = counts[:, 1] + counts[:, 3]
    groups = [
        dict(group=g, n=int(n), base_rate=float(p / n), selection_rate=float(q / n))
        for g, n, p, q in zip(labels.tolist(), sizes.tolist(), positives, selected)
    ]
    return tests, groups, int(sizes.sum())
