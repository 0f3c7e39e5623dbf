"""The audit's tests from a merged summary (``--engine arrow|dask``), as fastfair.audit's.

The engines (:mod:`fastfair.engines`) read the rows into an
:class:`fastfair.engines.summaries.AuditSummary`; this module runs the audit's tests on it:
confusion-matrix tests identical to the in-memory audit's (same counts, same seed), the
DeLong z-test of the AUC, and predictive parity per user from the rows grouped by user.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from fastfair.engines.summaries import AuditSummary

__all__ = ["audit_from_summary"]


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
    (:class:`fastfair.engines.clusters.SortedClusters`), for predictive parity per user;
    `progress`: a progress-bar factory, as fastfair.audit's.
    """
    import time

    from fastfair.auditing import api as _audit

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
