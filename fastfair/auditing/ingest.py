"""The audit's options, checked once for :func:`fastfair.audit` and the command line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fastfair._metrics import CONFUSION_METRICS, METRIC_ALIASES, get_metric
from fastfair._parallel import effective_n_threads
from fastfair._random import stream_key
from fastfair._validation import check_choice, check_int, check_resamples, show_value

__all__ = [
    "ADJUSTMENTS",
    "CONFUSION_METRICS",
    "DEFAULT_METRICS",
    "METRIC_ALIASES",
    "SLICE_DEPTH",
    "check_audit_settings",
    "slice_metrics",
]

DEFAULT_METRICS = ("tpr", "fpr", "ppv", "selection_rate", "accuracy", "equalized_odds")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: The slice search's depth of ``fastfair audit --slices`` without a DEPTH.
SLICE_DEPTH = 2
#: The smallest slice the audit's search tests: max(SLICE_MIN_SIZE, min_group_size) rows.
SLICE_MIN_SIZE = 50
#: Joint permutations of the audit's slice search when the audit's are sequential (None).
SLICE_PERMUTATIONS = 999


def check_audit_settings(
    *,
    alpha: float = 0.05,
    tau: float = 0.05,
    power: float = 0.8,
    adjust: str = "holm",
    n_permutations: int | None = None,
    metrics: Sequence[str] | None = None,
    tolerance: float | None = None,
    equivalence: float | None = None,
    random_state: int | None = 0,
    n_jobs: int | None = None,
    min_group_size: int = 10,
    slices: int | None = None,
    names: Mapping[str, str] | None = None,
) -> dict:
    """Check the options of an audit once, for :func:`fastfair.audit` and the command line.

    Raises ValueError (TypeError for a wrong type) naming the first impossible option, by
    its name in `names` (the command line's ``--seed`` for ``random_state``, ...).

    Parameters
    ----------
    alpha, tau, power : float
        Level, the gap to detect and the power of the audit: each in (0, 1).
    adjust : str
        One of :data:`ADJUSTMENTS`.
    n_permutations : int or None
        Monte-Carlo permutations per test (None: sequential).
    metrics : sequence of str or None
        Confusion metrics (None: :data:`DEFAULT_METRICS`).
    tolerance, equivalence : float or None
        Margins of the tolerance and equivalence tests, in (0, 1).
    random_state : int or None
        Seed of the audit's random streams.
    n_jobs : int or None
        Threads.
    min_group_size : int
        Smallest group tested (at least 1).
    slices : int or None
        Depth of the audit's slice search (1 to 6; None: no search).
    names : mapping, optional
        Name under which to report each option (default: the argument's name).

    Returns
    -------
    dict
        ``options`` (the dict every test of the audit reads: alpha, tau, power,
        n_permutations, random_state, n_jobs, tolerance, equivalence), ``metrics`` (the
        registry's names), ``adjust`` and ``min_group_size``.

    Examples
    --------
    >>> from fastfair.auditing.ingest import check_audit_settings
    >>> from fastfair.cli.arguments import OPTION_NAMES
    >>> check_audit_settings(metrics=["recall"], n_permutations=999)["metrics"]
    ['tpr']
    >>> check_audit_settings(random_state=-1, names=OPTION_NAMES)
    Traceback (most recent call last):
    ...
    ValueError: --seed must be non-negative, got -1
    """
    names = names or {}

    def name(key: str) -> str:
        return names.get(key, key)

    for key, value in (("alpha", alpha), ("tau", tau), ("power", power)):
        if not (isinstance(value, int | float) and 0 < value < 1):
            raise ValueError(f"{name(key)} must be in (0, 1), got {show_value(value)}")
    check_choice(adjust, name("adjust"), ADJUSTMENTS)
    if n_permutations is not None:
        check_resamples(n_permutations, name("n_permutations"), 1)
    metrics = list(DEFAULT_METRICS if metrics is None else metrics)
    if not metrics:
        raise ValueError(f"{name('metrics')} is empty")
    try:
        metric_names = [get_metric(m).name for m in metrics]
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name('metrics')}: {exc}") from exc
    if slices is not None and n_permutations is not None:
        need = _slice_permutations_needed(alpha, metric_names)
        if n_permutations < need:
            k = len(slice_metrics(metric_names))
            raise ValueError(
                f"{name('slices')} needs {name('n_permutations')} >= {need} (the slice "
                f"searches' joint permutations: each of the {k} searches is at alpha / {k} "
                f"= {alpha / k:.4g}, and its smallest p-value is 1/({name('n_permutations')} "
                f"+ 1)), got {n_permutations}"
            )
    for key, value in (("tolerance", tolerance), ("equivalence", equivalence)):
        if value is not None and not (
            isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1
        ):
            raise ValueError(
                f"{name(key)} must be in (0, 1) (a gap between rates), got {show_value(value)}"
            )
    if random_state is not None and not isinstance(random_state, int | np.integer):
        raise TypeError(
            f"{name('random_state')} must be an int or None, got {show_value(random_state)}"
        )
    for key, check, value in (
        ("random_state", stream_key, random_state),
        ("n_jobs", effective_n_threads, n_jobs),
    ):
        try:
            check(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(str(exc).replace(key, name(key))) from exc
    options = dict(
        alpha=float(alpha),
        tau=float(tau),
        power=float(power),
        n_permutations=None if n_permutations is None else int(n_permutations),
        random_state=random_state,
        n_jobs=n_jobs,
        tolerance=None if tolerance is None else float(tolerance),
        equivalence=None if equivalence is None else float(equivalence),
    )
    return dict(
        options=options,
        metrics=metric_names,
        adjust=adjust,
        min_group_size=check_int(min_group_size, name("min_group_size"), 1),
        slices=None if slices is None else check_int(slices, name("slices"), 1, 6),
    )


def slice_permutations(n_permutations: int | None, alpha: float, metrics: Sequence[str]) -> int:
    """The joint permutations of the audit's slice searches: `n_permutations`, or, for a
    sequential audit (None), 999 or as many as each search needs to reach its level,
    alpha over the number of rates searched (:func:`slice_metrics`).

    Examples
    --------
    >>> slice_permutations(None, 0.05, ["tpr"]), slice_permutations(None, 0.001, ["tpr", "fpr"])
    (999, 1999)
    """
    if n_permutations is not None:
        return int(n_permutations)
    return max(SLICE_PERMUTATIONS, _slice_permutations_needed(alpha, metrics))


def _slice_permutations_needed(alpha: float, metrics: Sequence[str]) -> int:
    from fastfair.slices.ingest import permutations_to_reach

    return permutations_to_reach(alpha / len(slice_metrics(metrics)))


def slice_metrics(metrics: Sequence[str]) -> list[str]:
    """The rates the audit's slice search compares: each rate of `metrics` once, equalized
    odds as its two rates (TPR and FPR), in the audit's order.

    Parameters
    ----------
    metrics : sequence of str
        The audit's metrics (registry names).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from fastfair.auditing.ingest import slice_metrics
    >>> slice_metrics(["fpr", "equalized_odds", "ppv"])
    ['fpr', 'tpr', 'ppv']
    """
    out = []
    for m in metrics:
        out += [part for part in get_metric(m).part_names if part not in out]
    return out
