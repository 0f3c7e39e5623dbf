"""The command line's arguments: the parser, and every option checked before data are read.

First layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands):
a bad option or an unwritable output path is refused here, before a long audit starts.
"""

from __future__ import annotations

import argparse
import math
import os

import fastfair

DEFAULT_METRICS = ("tpr", "fpr", "ppv", "selection_rate", "accuracy", "equalized_odds")
ADJUSTMENTS = ("holm", "bonferroni", "none")
DEFAULT_MAX_ROWS = 150
DEMO_FILE = "adult_demo.csv"
DEMO_GROUPS = ["sex", "race"]


class CLIError(ValueError):
    """Bad input: reported as one line, exit status 2 (a ValueError for library callers)."""


class _Parser(argparse.ArgumentParser):
    """argparse with the package's error convention: one line on stderr, exit status 2."""

    def error(self, message):
        raise CLIError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fastfair", description="Statistical fairness audits.")
    parser.add_argument("--version", action="version", version=fastfair.__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    audit = sub.add_parser("audit", help="test fairness metrics on a table of predictions")
    audit.add_argument("data", nargs="?", help="CSV or Parquet file")
    audit.add_argument(
        "--demo",
        action="store_true",
        help="audit the bundled UCI Adult demo (label, score, prediction, sex, race)",
    )
    audit.add_argument("--label", help="binary outcome column (y_true)")
    audit.add_argument("--pred", help="binary prediction column (y_pred)")
    audit.add_argument("--score", help="score column (y_score; predictions = score >= threshold)")
    audit.add_argument("--threshold", type=float, default=0.5)
    audit.add_argument(
        "--group",
        nargs="+",
        metavar="COL",
        help="protected-attribute (group) column(s); each is audited (demo: sex race)",
    )
    audit.add_argument(
        "--intersections",
        action="store_true",
        help="also audit every combination of the --group columns (e.g. sex & race)",
    )
    audit.add_argument("--cluster", help="user/cluster column (dependent rows, predictive parity)")
    audit.add_argument(
        "--reference",
        nargs="+",
        metavar="GROUP",
        help="reference group (default: the largest); with several columns COL=GROUP ...",
    )
    audit.add_argument(
        "--metrics",
        nargs="+",
        default=None,
        help=f"confusion metrics (default: {' '.join(DEFAULT_METRICS)})",
    )
    audit.add_argument("--pos-label", help="positive value of label/prediction if not 0/1")
    audit.add_argument(
        "--permutations",
        type=int,
        default=None,
        help="fixed permutations per Monte-Carlo test (default: sequential, stopping when "
        "the adjusted decisions over all tests are clear; docs/sequential.md)",
    )
    audit.add_argument("--alpha", type=float, default=0.05)
    audit.add_argument(
        "--tau",
        type=float,
        default=0.05,
        help="the difference the audit should detect (power, rows needed; default 0.05)",
    )
    audit.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="U_TOL",
        help="test for gaps beyond ±U_TOL instead of any gap (tolerance tests, docs/tolerance.md)",
    )
    audit.add_argument(
        "--equivalence",
        type=float,
        default=None,
        metavar="DELTA",
        help="also test whether each gap is within ±DELTA (equivalence tests): verdicts "
        "'FAIR within ±DELTA' and 'DIFFERENCE, within ±DELTA'",
    )
    audit.add_argument(
        "--adjust",
        default="holm",
        choices=list(ADJUSTMENTS),
        help="adjustment over all tests of the audit (default holm)",
    )
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument("--jobs", type=int, default=None)
    audit.add_argument(
        "--min-group-size",
        type=int,
        default=10,
        help="groups with fewer rows are skipped and listed (default 10)",
    )
    audit.add_argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"tests shown in the printed table (default {DEFAULT_MAX_ROWS}; all are in --json)",
    )
    audit.add_argument("--json", metavar="OUT", help="write the results as JSON")
    audit.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report")
    audit.add_argument("--force", action="store_true", help="overwrite existing output files")
    audit.add_argument("--quiet", action="store_true", help="no progress output")
    audit.add_argument(
        "--engine",
        choices=["memory", "arrow", "dask"],
        default=None,
        help="memory (default: every test, rows in memory); arrow or dask: tests from "
        "summaries built batch by batch, memory bounded by the batch (docs/data.md)",
    )
    audit.add_argument(
        "--scheduler", metavar="ADDRESS", help="dask scheduler address (implies --engine dask)"
    )

    plan = sub.add_parser("plan", help="sample size for a fairness audit")
    plan.add_argument("--metric", required=True)
    plan.add_argument(
        "--rate",
        action="append",
        default=[],
        metavar="NAME=G1,G2",
        help="per-group rates, e.g. tpr=0.68,0.79 (repeat for prevalence, ...)",
    )
    plan.add_argument("--tau", type=float, required=True, help="difference to detect")
    plan.add_argument("--u-tol", type=float, default=0.0)
    plan.add_argument("--alpha", type=float, default=0.05)
    plan.add_argument("--power", type=float, default=0.8)
    plan.add_argument("--allocation", default="neyman", help="neyman, equal, or a fraction")
    plan.add_argument("--alternative", default="two-sided", choices=["two-sided", "greater"])
    plan.add_argument("--json", metavar="OUT")
    plan.add_argument("--force", action="store_true", help="overwrite an existing output file")
    return parser


def check_audit_options(
    *,
    threshold: float = 0.5,
    alpha: float = 0.05,
    tau: float = 0.05,
    permutations: int | None = None,
    seed: int | None = 0,
    jobs: int | None = None,
    min_group_size: int = 10,
    metrics=None,
    max_rows: int | None = None,
    tolerance: float | None = None,
    equivalence: float | None = None,
) -> None:
    """Raise CLIError (a ValueError) naming the first option with an impossible value.

    Run before any data are read, so that a bad option never costs a long audit.
    """
    if not math.isfinite(threshold):
        raise CLIError(f"--threshold must be a finite number, got {threshold}")
    if not 0 < alpha < 1:
        raise CLIError(f"--alpha must be in (0, 1), got {alpha}")
    if not 0 < tau < 1:
        raise CLIError(f"--tau must be in (0, 1), got {tau}")
    for option, value in (("--tolerance", tolerance), ("--equivalence", equivalence)):
        if value is not None and not 0 < value < 1:
            raise CLIError(f"{option} must be in (0, 1), got {value}")
    checks = [
        ("--permutations", permutations, lambda v: v is None or
            fastfair._validation.check_resamples(v, "--permutations", 1)),
        ("--seed", seed, lambda v: v is None or fastfair._random.stream_key(v)),
        ("--jobs", jobs, fastfair._parallel.effective_n_threads),
        ("--min-group-size", min_group_size, lambda v: fastfair._validation.check_int(
            v, "--min-group-size", 1)),
        ("--max-rows", max_rows, lambda v: v is None or fastfair._validation.check_int(
            v, "--max-rows", 0)),
    ]  # fmt: skip
    for option, value, check in checks:
        try:
            check(value)
        except (TypeError, ValueError) as exc:
            message = str(exc).replace("n_jobs", option).replace("random_state", option)
            raise CLIError(
                message if message.startswith(option) else f"{option}: {message}"
            ) from exc
    for metric in metrics or ():
        try:
            fastfair._metrics.get_metric(metric)
        except (TypeError, ValueError) as exc:
            raise CLIError(f"--metrics: {exc}") from exc


def check_output_path(path: str, option: str, force: bool = False) -> None:
    """Raise CLIError unless `path` can be written: its folder exists and is writable, it
    is not a folder, and it does not exist (unless `force`)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CLIError(f"{option} {path}: is a directory; give a file name")
    if not os.path.isdir(folder):
        raise CLIError(f"{option} {path}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: the directory {folder} is not writable")
    if os.path.lexists(path) and not force:
        raise CLIError(f"{option} {path}: the file exists; use --force to overwrite it")


def _check_outputs(args) -> None:
    outputs = [(o, getattr(args, o[2:])) for o in ("--json", "--report")]
    outputs = [(o, p) for o, p in outputs if p]
    for option, path in outputs:
        check_output_path(path, option, args.force)
    if len(outputs) == 2 and os.path.abspath(outputs[0][1]) == os.path.abspath(outputs[1][1]):
        raise CLIError("--json and --report name the same file")


def _reference(values, groups):
    """--reference as fastfair.audit takes it: a label (one column) or {column: label}."""
    if values is None:
        return None
    if all("=" in v and v.split("=", 1)[0] in groups for v in values):
        return dict(v.split("=", 1) for v in values)
    if len(values) == 1 and len(groups) == 1:
        return values[0]
    raise CLIError(
        "--reference: with several --group columns give COLUMN=GROUP for each, e.g. "
        f"--reference {groups[0]}=..."
    )


def audit_source(args: argparse.Namespace) -> tuple[str, str, str | dict | None]:
    """Check the options of ``fastfair audit`` before any data are read.

    Fills in the demo's columns for ``--demo``, refuses a missing or impossible option and
    an unwritable output path, and resolves the engine and ``--reference``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fastfair audit`` arguments (:func:`build_parser`); the demo's columns
        are written into it.

    Returns
    -------
    source : str
        The data: a file, a folder of files or a glob (the bundled demo with ``--demo``).
    engine : str
        ``"memory"``, ``"arrow"`` or ``"dask"``.
    reference : str, dict or None
        ``--reference`` as :func:`fastfair.audit` takes it.

    Examples
    --------
    >>> from fastfair.cli.arguments import audit_source, build_parser
    >>> args = build_parser().parse_args(["audit", "rows.csv", "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--reference", "F"])
    >>> audit_source(args)
    ('rows.csv', 'memory', 'F')
    """
    if args.demo:
        if args.data:
            raise CLIError("give DATA or --demo, not both")
        from importlib import resources

        source = str(resources.files("fastfair") / "data" / DEMO_FILE)
        args.label = args.label or "label"
        args.score = args.score or ("score" if not args.pred else None)
        if args.group is None:
            args.group, args.intersections = DEMO_GROUPS, True
    else:
        if not args.data:
            raise CLIError("give a DATA file (CSV or Parquet) or --demo")
        source = args.data
        missing = [o for o in ("label", "group") if getattr(args, o) is None]
        if missing:
            raise CLIError(f"--{missing[0]} is required")
    if args.pred is None and args.score is None:
        raise CLIError("give --pred (binary predictions) or --score (scores to threshold)")
    check_audit_options(
        threshold=args.threshold,
        alpha=args.alpha,
        tau=args.tau,
        permutations=args.permutations,
        seed=args.seed,
        jobs=args.jobs,
        min_group_size=args.min_group_size,
        metrics=args.metrics,
        max_rows=args.max_rows,
        tolerance=args.tolerance,
        equivalence=args.equivalence,
    )
    reference = _reference(args.reference, args.group)
    _check_outputs(args)
    engine = args.engine or ("dask" if args.scheduler else "memory")
    if args.scheduler and engine != "dask":
        raise CLIError("--scheduler needs --engine dask")
    if engine != "memory" and (len(args.group) != 1 or args.intersections):
        raise CLIError(f"--engine {engine} audits one --group column, without --intersections")
    return source, engine, reference


def audit_options(args: argparse.Namespace, reference: str | dict | None) -> dict:
    """The keyword options the in-memory and the summary audits share, from the arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fastfair audit`` arguments, checked by :func:`audit_source`.
    reference : str, dict or None
        The reference group(s), as :func:`audit_source` returns them.

    Returns
    -------
    dict
        ``metrics``, ``reference``, ``min_group_size``, ``alpha``, ``tau``, ``adjust``,
        ``n_permutations``, ``random_state``, ``n_jobs``, ``tolerance`` and ``equivalence``,
        named as :func:`fastfair.audit` names them.

    Examples
    --------
    >>> from fastfair.cli.arguments import audit_options, build_parser
    >>> args = build_parser().parse_args(["audit", "rows.csv", "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--permutations", "999"])
    >>> options = audit_options(args, None)
    >>> options["n_permutations"], options["random_state"], options["adjust"]
    (999, 0, 'holm')
    """
    return dict(
        metrics=args.metrics,
        reference=reference,
        min_group_size=args.min_group_size,
        alpha=args.alpha,
        tau=args.tau,
        adjust=args.adjust,
        n_permutations=args.permutations,
        random_state=args.seed,
        n_jobs=args.jobs,
        tolerance=args.tolerance,
        equivalence=args.equivalence,
    )


def plan_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`fastfair.sample_size` from ``fastfair plan``'s.

    Checks the ``--json`` path first, then parses each ``--rate NAME=G1,G2`` and
    ``--allocation``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fastfair plan`` arguments (:func:`build_parser`).

    Returns
    -------
    dict
        ``rates``, ``tau``, ``u_tol``, ``alpha``, ``power``, ``allocation`` and
        ``alternative``.

    Examples
    --------
    >>> from fastfair.cli.arguments import build_parser, plan_options
    >>> args = build_parser().parse_args(["plan", "--metric", "tpr", "--tau", "0.1",
    ...                                   "--rate", "tpr=0.7,0.8", "--allocation", "0.3"])
    >>> options = plan_options(args)
    >>> options["rates"], options["allocation"]
    ({'tpr': [0.7, 0.8]}, 0.3)
    """
    if args.json:
        check_output_path(args.json, "--json", args.force)
    rates = {}
    for item in args.rate:
        name, _, values = item.partition("=")
        try:
            rates[name.strip()] = [float(v) for v in values.split(",")]
        except ValueError as exc:
            raise CLIError(f"--rate {item!r}: expected NAME=VALUE,VALUE") from exc
    allocation = args.allocation
    if allocation not in ("neyman", "equal"):
        try:
            allocation = float(allocation)
        except ValueError as exc:
            raise CLIError(
                f"--allocation must be neyman, equal or a fraction: {allocation}"
            ) from exc
    return dict(
        rates=rates or None,
        tau=args.tau,
        u_tol=args.u_tol,
        alpha=args.alpha,
        power=args.power,
        allocation=allocation,
        alternative=args.alternative,
    )
