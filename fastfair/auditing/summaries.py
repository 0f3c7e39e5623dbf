"""The audit of a source of files (``fastfair.audit(data=path, engine=...)``) and its tests
from a merged summary (``engine="arrow"|"dask"``), as fastfair.audit's on rows.

The engines (:mod:`fastfair.engines`) read the rows into an
:class:`fastfair.engines.summaries.AuditSummary`; this module runs the audit's tests on it:
confusion-matrix tests identical to the in-memory audit's (same counts, same seed), the
AUC test of each pair as the in-memory audit runs it (DeLong's z-test from the summary
where its rule picks it, else the permutation test on the two groups' rows, which the
engine reads back), and predictive parity per user from the rows grouped by user.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from typing import Any

import numpy as np

from fastfair._groups import attribute_combinations
from fastfair.auditing import api as _audit
from fastfair.auditing.results import AuditResult
from fastfair.engines.attributes import AuditSummary

__all__ = ["audit_from_summary", "audit_source"]


def audit_from_summary(
    summary: AuditSummary,
    *,
    engine: str,
    columns: dict,
    clusters: Any = None,
    score_rows: Any = None,
    reference: Any = None,
    progress: Any = None,
    **settings: Any,
) -> AuditResult:
    """The AuditResult of every attribute of a merged summary, and with intersections
    every combination of them (as fastfair.audit's on the rows).

    `settings`: the audit's options as :func:`fastfair.audit` takes them, every one given
    (alpha, tau, power, adjust, n_permutations, metrics, random_state, n_jobs,
    intersections, min_group_size, tolerance, equivalence, slices); `clusters(attribute columns,
    tested labels, their codes, their rows, last)`: the rows grouped by user
    (:class:`fastfair.engines.clusters.SortedClusters`), for predictive parity per user;
    `score_rows(attribute columns, labels)`: the rows of those groups as (y, score, index
    into `labels`), for the AUC permutation tests (default: the summary's
    :class:`fastfair.engines.summaries.ScoreRuns`, which hold the rows); `progress`: a
    progress-bar factory, as fastfair.audit's.
    """
    start = time.perf_counter()
    if score_rows is None:
        score_rows = functools.partial(_summary_rows, summary)
    settings = _audit._settings(**settings)
    min_group_size, intersections = settings["min_group_size"], settings["intersections"]
    combos = attribute_combinations(list(summary.cube.names), intersections)
    stats = [summary.confusion(list(c)) for c in combos]
    attributes = _audit.attributes_from_sizes(
        [(c, conf.labels.tolist(), conf.counts.sum(axis=1)) for c, conf in zip(combos, stats)],
        min_group_size=min_group_size, reference=reference,
    )  # fmt: skip
    _audit._check_something_tested(attributes, min_group_size)
    cells = {a.name: np.asarray(conf.counts) for a, conf in zip(attributes, stats)}
    parity_left = sum(a.reference is not None for a in attributes)
    tests, parity = [], {}
    steps = len(attributes) * (len(settings["metrics"]) + (summary.scores is not None))
    bar = progress(total=steps, desc="tests") if progress else None
    for attr, combo, conf in zip(attributes, combos, stats):
        for metric in settings["metrics"]:
            tests += _audit._confusion_rows(attr, cells[attr.name], metric, settings["options"])
            if bar is not None:
                bar.update(1)
        if summary.scores is None:
            continue
        read = functools.partial(score_rows, combo)
        tests += _auc_rows(attr, summary.scores[combo], conf.labels.tolist(),
                           cells[attr.name], read, settings["options"])  # fmt: skip
        if attr.reference is not None and clusters is not None:
            parity_left -= 1
            prepared = functools.partial(
                _grouped, clusters, combo, conf.labels.tolist(), cells[attr.name],
                last=parity_left == 0,
            )  # fmt: skip
            row, res = _audit._parity_row(attr, None, None, None, settings["options"], prepared)
            tests.append(row)
            if res is not None:
                parity[attr.name] = res
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return _audit._result(
        tests, attributes, cells, settings, n_rows=int(summary.cube.counts.sum()),
        columns=columns, parity=parity, start=start, engine=engine, progress=progress,
        slices=_audit.slice_search(summary.cube, settings, progress),
    )  # fmt: skip


def _grouped(clusters, combo, labels, cells, tested, *, last):
    """The rows of an attribute's tested groups (codes `tested` into `labels`) grouped by
    user, from the engine's `clusters`."""
    n_rows = int(cells[tested].sum())
    return clusters(combo, [labels[c] for c in tested], tested, n_rows, last)


def _auc_rows(attr, scores, labels, cells, read, options) -> list:
    """Each tested group's AUC test against the reference, as the rows' audit runs it
    (:func:`fastfair.auditing.api.auc_pair_rows`, one pair at a time): the DeLong z-test
    from the attribute's summary `scores` where the audit's rule picks it
    (:func:`fastfair.auditing.api.auc_uses_delong`), else the permutation test on the two
    groups' rows, read back once for the attribute by `read(labels of the groups)` ->
    (y, score, index into those labels). `labels`: the summary's label of each group code
    (an intersection's: a tuple); `cells`: the attribute's confusion counts per group."""
    tot = np.column_stack([cells[:, :2].sum(axis=1), cells[:, 2:].sum(axis=1)])
    delong = {p: _audit.auc_uses_delong(tot[list(p)], options) for p in attr.comparisons}
    wanted = sorted({c for p, d in delong.items() if not d for c in p})
    rows_read = None
    if wanted:
        y, s, index = read([labels[c] for c in wanted])
        rows_read = (y, s, np.asarray(wanted, dtype=np.intp)[index])
    rows = []
    for g, r in attr.comparisons:
        if delong[(g, r)]:
            rows += _delong_rows(attr, scores, labels, (g, r))
        else:
            rows += _audit.auc_pair_rows(attr, rows_read, (g, r), options)
    return rows


def _summary_rows(summary, combo, labels):
    """The rows of groups `labels` of an attribute combination, from the summary's score
    runs (:meth:`fastfair.engines.summaries.ScoreRuns.rows`)."""
    scores = summary.scores[tuple(combo)]
    if not hasattr(scores, "rows"):
        raise ValueError(
            "the AUC permutation test needs the rows of the compared groups; this summary "
            "keeps only their DeLong sums"
        )
    return scores.rows(labels)


def _delong_rows(attr, scores, labels, pair) -> list:
    """The DeLong z-test of one pair of group codes from the summary `scores` (as
    :func:`fastfair.auc_test` chooses it on the rows, every class of both groups large)."""
    g, r = pair
    selected = scores.select([labels[g], labels[r]])
    constant = _constant_scores(scores, attr, labels, pair)
    if constant and constant[0] == "both":
        row = _audit.row_head(attr, "auc", "auc", g, r)
        row["error"] = constant[1]
        return [row]
    if len(attr.columns) > 1:  # tuples -> the audit's labels ("Female & Black")
        shown = np.empty(2, dtype=object)
        shown[:] = [attr.labels[k] for k in sorted(pair)]
        selected = dataclasses.replace(selected, labels=shown)
    try:
        res = selected.test(reference=attr.labels[r])
    except ValueError as exc:
        row = _audit.row_head(attr, "auc", "auc", g, r)
        row["error"] = str(exc)
        return [row]
    out = _audit.auc_result_rows(attr, res, [pair])
    for row in out:
        if constant:
            row["note"] = "; ".join(filter(None, (row.get("note"), constant[1])))
    return out


def _constant_scores(scores, attr, labels, codes) -> tuple[str, str] | None:
    """The rows' audit's constant-score note or error (#35): a group is constant when its
    ScoreStats row has one distinct score (exact; binned summaries are never flagged)."""
    if getattr(scores, "resolution", None) is not None:
        return None
    flat = []
    for code in codes:
        one = scores.select([labels[code]])
        if not hasattr(one, "counts"):  # exact placement sums (#28): both classes tied
            if one.all_tied()[0]:
                flat.append(attr.labels[code])
        elif np.count_nonzero(one.counts[0].sum(axis=0)) == 1:
            flat.append(attr.labels[code])
    return _audit.constant_score_message([attr.labels[c] for c in codes], flat)


def _names(value, role: str) -> list[str]:
    """Column names of a source's audit: a name, or a list of names for the groups."""
    names = [value] if isinstance(value, str) else value
    if (
        not isinstance(names, (list, tuple))
        or not names
        or not all(isinstance(n, str) for n in names)
    ):
        raise TypeError(f"with data a path, {role} must be column names, got {value!r}")
    return names


def audit_source(source, *, engine: str, scheduler: Any = None, **arguments: Any):
    """:func:`fastfair.audit` of a source of files: its columns by name, read by `engine`.

    "memory" reads the audit's columns (record batches, groups coded once) and audits the
    rows; "arrow", "dask" and "spark" build the mergeable summaries and audit them
    (:func:`audit_from_summary`); "auto" chooses by the source's size
    (:func:`fastfair.engines.choose_engine`).
    """
    from fastfair.auditing.api import audit
    from fastfair.engines import choose_engine

    if engine not in ("auto", "memory", "arrow", "dask", "spark"):
        raise ValueError(f"engine must be one of auto, memory, arrow, dask, spark, got {engine!r}")
    groups = _names(arguments.pop("sensitive_features"), "sensitive_features")
    columns = {"label": _names(arguments.pop("y_true"), "y_true")[0]}
    for key, role in (("pred", "y_pred"), ("score", "y_score"), ("cluster", "cluster")):
        value = arguments[role]
        columns[key] = None if value is None else _names(value, role)[0]
    if engine == "auto":
        engine, _ = choose_engine(source, compare=arguments.get("compare") is not None)
    compared = arguments.get("compare")
    if engine == "memory":
        extra = [] if compared is None else _names(list(compared), "compare")
        table = read_audit_columns(source, groups=groups, extra=extra, **columns)
        for key in ("y_pred", "y_score", "cluster"):
            arguments.pop(key)
        return audit(
            columns["label"], columns["pred"], groups, y_score=columns["score"], data=table,
            cluster=columns["cluster"], **arguments,
        )  # fmt: skip
    if compared is not None:
        raise ValueError(f"engine={engine!r} cannot compare two models (compare=): use "
                         "engine='memory'")  # fmt: skip
    return _summary_audit(source, engine, scheduler, groups, columns, arguments)


def read_audit_columns(source, *, label, pred, score, groups, cluster, extra=()) -> dict:
    """Only the audit's columns of a source, read in record batches; group and cluster
    columns coded once (a text cluster id coded, a numeric one as it is); `extra`:
    further numeric columns (the models of ``compare=``)."""
    from fastfair.engines.files import read_columns

    numbers = [c for c in (label, pred, score, *extra) if c is not None]
    coded = [c for c in (*groups, cluster) if c is not None and c not in numbers]
    names = list(dict.fromkeys(c for c in (label, pred, score, *extra, *groups, cluster) if c))
    binary = [c for c in (label, pred) if c is not None]
    table = read_columns(source, names, codes=coded, complete=numbers, binary=binary)
    if cluster in coded:
        ids = table[cluster]
        table[cluster] = ids.to_numpy() if ids.labels.dtype.kind in "biuf" else ids
    return table


_OPTIONS = (
    "reference", "metrics", "n_permutations", "random_state", "n_jobs", "min_group_size",
    "alpha", "tau", "power", "adjust", "tolerance", "equivalence", "progress", "intersections",
    "slices",
)  # fmt: skip


def _summary_audit(source, engine, scheduler, groups, columns, arguments):
    """The arrow, dask or spark engine's summaries of the source, then the audit's tests."""
    read = dict(
        label=columns["label"], groups=groups, pred=columns["pred"], score=columns["score"],
        threshold=arguments["threshold"], pos_label=arguments["pos_label"],
        combos=attribute_combinations(groups, arguments["intersections"]),
    )  # fmt: skip
    summarise = {"arrow": _arrow_summary, "dask": _dask_summary, "spark": _spark_summary}
    with _place(engine, scheduler) as chosen:
        summary, clusters, score_rows = summarise[engine](source, chosen, read, columns,
                                                          arguments)  # fmt: skip
        check_pos_label_seen(summary.cube.counts, arguments["pos_label"], columns["label"],
                             columns["pred"])  # fmt: skip
        try:
            return audit_from_summary(
                summary, engine=engine, clusters=clusters, score_rows=score_rows,
                columns=dict(
                    label=columns["label"], pred=columns["pred"], score=columns["score"],
                    threshold=_threshold_used(arguments["threshold"], columns["pred"]),
                    cluster=columns["cluster"], groups=list(groups),
                ),
                **{k: arguments[k] for k in _OPTIONS},
            )  # fmt: skip
        finally:
            if hasattr(clusters, "release"):  # dask, spark: the rows grouped by user
                clusters.release()


def check_pos_label_seen(counts: np.ndarray, pos_label, label: str, pred: str | None) -> None:
    """Refuse a `pos_label` that occurs in no row of the `label` column (nor, when there is
    one, of the `pred` column), as the memory engine's check of the whole column does (the
    same message); the engines' files and partitions need not each hold it. `counts`:
    (TN, FP, FN, TP) of the cube's cells. A positive label of 1 or True needs no
    occurrence (0/1 columns, as in memory)."""
    from fastfair._validation import show_value

    if pos_label is None or (isinstance(pos_label, (bool, int, float, np.number))
                             and pos_label == 1):  # fmt: skip
        return
    counts = np.asarray(counts).reshape(-1, 4)
    columns = [("label", label, counts[:, 2:].sum())]
    if pred is not None:
        columns.append(("pred", pred, counts[:, 1].sum() + counts[:, 3].sum()))
    for role, name, positives in columns:
        if positives == 0:
            raise ValueError(
                f"pos_label={show_value(pos_label)} does not occur in {role} column {name!r} "
                "(in any file)"
            )


def _place(engine, scheduler):
    """Where the engine runs: nothing for arrow, the dask scheduler (a client for an
    ADDRESS), the Spark session (the active one, or a new one on the master `scheduler`)."""
    if engine == "arrow":
        return contextlib.nullcontext()
    if engine == "dask":
        from fastfair.engines.dask import dask_scheduler

        return dask_scheduler(scheduler)
    from fastfair.engines.spark import spark_place

    return spark_place(scheduler)


def _arrow_summary(source, _, read, columns, arguments):
    """One read: the summaries and the parity columns."""
    from fastfair.engines import arrow

    summary = arrow.summarise_arrow(
        source, batch_rows=1 << 20, cluster=columns["cluster"], keep_rows=True,
        progress=arguments["progress"], **read,
    )  # fmt: skip
    clusters = None
    if summary.rows is not None:
        clusters = functools.partial(_arrow_clusters, summary.rows, read["groups"])
    return summary, clusters, None  # the AUC's rows: the summary's score runs


def _dask_summary(source, scheduler, read, columns, arguments):
    """The partitions reduced in a tree; predictive parity: the rows grouped by user; the
    AUC permutation tests: the compared groups' rows read again."""
    from fastfair.engines import dask

    summary = dask.summarise_dask(source, scheduler=scheduler, cluster=columns["cluster"], **read)
    clusters = score_rows = None
    if columns["score"] is not None:
        clusters = dask.UserGroups(
            source, label=columns["label"], score=columns["score"], groups=read["groups"],
            cluster=columns["cluster"], pos_label=arguments["pos_label"], scheduler=scheduler,
        )  # fmt: skip
        score_rows = functools.partial(
            _dask_rows, source, label=columns["label"], score=columns["score"],
            pos_label=arguments["pos_label"], scheduler=scheduler,
        )  # fmt: skip
    return summary, clusters, score_rows


def _spark_summary(source, session, read, columns, arguments):
    """The files read by Spark, the partitions reduced by treeAggregate; predictive parity:
    the rows range-partitioned on the user column."""
    from fastfair.engines import spark

    names = (columns["label"], columns["pred"], columns["score"], *read["groups"],
             columns["cluster"])  # fmt: skip
    frame = spark.spark_frame(session, source, list(dict.fromkeys(c for c in names if c)))
    summary = spark.summarise_spark(frame, cluster=columns["cluster"], **read)
    clusters = score_rows = None
    if columns["score"] is not None:
        clusters = spark.UserGroups(
            frame, label=columns["label"], score=columns["score"], cluster=columns["cluster"],
            pos_label=arguments["pos_label"],
        )  # fmt: skip
        score_rows = functools.partial(
            _spark_rows, frame, label=columns["label"], score=columns["score"],
            pos_label=arguments["pos_label"],
        )  # fmt: skip
    return summary, clusters, score_rows


def _arrow_clusters(rows, groups, combo, labels, codes, n_rows, last):
    """The arrow engine's rows of an attribute's tested groups, grouped by user."""
    from fastfair.engines.arrow import arrow_clusters

    positions = None if len(groups) == 1 else [groups.index(c) for c in combo]
    return arrow_clusters(rows, labels, codes, n_rows, positions=positions, last=last)


def _dask_rows(source, combo, labels, **read):
    """The dask engine's rows of groups `labels` of an attribute combination."""
    from fastfair.engines.dask import dask_score_rows

    return dask_score_rows(source, labels, group=list(combo), **read)


def _spark_rows(frame, combo, labels, **read):
    """The Spark engine's rows of groups `labels` of an attribute combination."""
    from fastfair.engines.spark import spark_score_rows

    return spark_score_rows(frame, labels, group=list(combo), **read)


def _threshold_used(threshold, pred) -> float | None:
    """The threshold that made the predictions (None with a prediction column)."""
    from fastfair._validation import DEFAULT_THRESHOLD

    if pred is not None:
        return None
    return DEFAULT_THRESHOLD if threshold is None else threshold
