"""The command line's outputs of an audit: the printed table, ``--json`` and ``--report``
files (written all or nothing, :mod:`fastfair.cli.output`), and ``fastfair plan --json``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastfair.auditing.results import json_default
from fastfair.cli.output import write_outputs

if TYPE_CHECKING:
    from fastfair.auditing.results import AuditResult
    from fastfair.planning import SampleSizeResult

__all__ = ["DEMO_SOURCE", "plan_json", "write_audit"]


DEMO_SOURCE = (
    "data: UCI Adult test set (Kohavi 1996; CC BY 4.0), scored by a logistic "
    "regression fitted on Adult's training set (scripts/build_demo_data.py)"
)


def _print(text: str) -> None:
    """Print, writing "≥" as ">=" where the terminal's encoding lacks it."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = text.replace("\u2265", ">=")
    print(text)


def write_audit(
    result: AuditResult, args: argparse.Namespace, progress: Callable[..., Any] | None = None
) -> None:
    """Print the audit's table and write the files asked for (``--json``, ``--report``).

    Parameters
    ----------
    result : AuditResult
        The audit.
    args : argparse.Namespace
        The parsed ``fastfair audit`` arguments (``--max-rows``, ``--demo``, ``--json``,
        ``--report``), their output paths checked before the audit ran.
    progress : callable, optional
        A progress-bar factory for rendering the report
        (:func:`fastfair.auditing.report.audit_html`).

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse, numpy as np, fastfair
    >>> from fastfair.cli.writing import write_audit
    >>> rng = np.random.default_rng(0)
    >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
    ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
    >>> args = argparse.Namespace(max_rows=1, demo=False, json=None, report=None)
    >>> write_audit(res, args)  # doctest: +ELLIPSIS
    fastfair audit: 400 rows; ...
    """
    _print(result.format(max_rows=args.max_rows))
    if args.demo:
        print(DEMO_SOURCE)
    outputs = [
        ("--json", args.json, result.to_json),
        ("--report", args.report, lambda: result.to_html(progress=progress)),
    ]
    write_outputs([(option, path, render()) for option, path, render in outputs if path])


def plan_json(plan: SampleSizeResult) -> str:
    """The fields of a sample-size plan as JSON (``fastfair plan --json``).

    Parameters
    ----------
    plan : SampleSizeResult
        A plan from :func:`fastfair.sample_size`.

    Returns
    -------
    str
        A JSON object of the plan's public fields.

    Examples
    --------
    >>> import json, fastfair
    >>> from fastfair.cli.writing import plan_json
    >>> plan = fastfair.sample_size(
    ...     "tpr", rates={"tpr": [0.7, 0.8], "prevalence": [0.3, 0.3]}, tau=0.1)
    >>> json.loads(plan_json(plan))["alpha"]
    0.05
    """
    fields = {k: v for k, v in vars(plan).items() if not k.startswith("_")}
    return json.dumps(fields, indent=2, default=json_default)
