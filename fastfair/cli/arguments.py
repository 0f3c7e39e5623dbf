"""The command line's arguments: the parser, and every option checked before data are read.

First layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands):
a bad option or an unwritable output path is refused here, before a long audit starts.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
from itertools import combinations as _combinations

import fastfair
from fastfair.auditing.ingest import (
    ADJUSTMENTS,
    CONFUSION_METRICS,
    DEFAULT_METRICS,
    METRIC_ALIASES,
    SLICE_DEPTH,
    check_audit_settings,
)

__all__ = [
    "ADJUSTMENTS",
    "DEFAULT_METRICS",
    "OPTION_NAMES",
    "CLIError",
    "audit_options",
    "audit_source",
    "build_parser",
    "check_audit_settings",
    "check_output_path",
    "plan_options",
]

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
    """The parser of the ``fastfair`` command line: ``audit`` and ``plan``.

    Its errors raise :class:`CLIError` (one line, exit status 2) instead of exiting.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> from fastfair.cli.arguments import build_parser
    >>> args = build_parser().parse_args(["audit", "--demo", "--metrics", "tpr", "fpr"])
    >>> args.command, args.demo, args.metrics, args.adjust
    ('audit', True, ['tpr', 'fpr'], 'holm')
    """
    parser = _Parser(prog="fastfair", description="Statistical fairness audits.")
    parser.add_argument("--version", action="version", version=fastfair.__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    _add_audit(sub)
    _add_plan(sub)
    _add_monitor(sub)
    return parser


def _add_audit(sub) -> None:
    """The ``fastfair audit`` subcommand and its options."""
    audit = sub.add_parser("audit", help="test fairness metrics on a table of predictions")
    audit.add_argument("data", nargs="?", help="CSV or Parquet file")
    audit.add_argument(
        "--demo",
        action="store_true",
        help="audit the bundled UCI Adult demo (label, score, prediction, sex, race)",
    )
    audit.add_argument(
        "--no-header",
        action="store_true",
        help="the CSV file has no header row (UCI Adult): every row is data; name the "
        "columns with --names",
    )
    audit.add_argument(
        "--names",
        nargs="+",
        metavar="NAME",
        help="with --no-header: the name of every column, in file order",
    )
    audit.add_argument("--label", help="binary outcome column (y_true)")
    audit.add_argument("--pred", help="binary prediction column (y_pred)")
    audit.add_argument("--score", help="score column (y_score; predictions = score >= threshold)")
    audit.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="predictions are score >= T (with --score, without --pred); default 0.5, "
        "allowed only when every score is in [0, 1]: a 1-10 or logit score needs T",
    )
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
        help="reference group (default: the largest); with several columns COL=GROUP ...; "
        "an intersection's is the cell of its columns' references (sex=Male race=White: "
        "'Male & White') unless given as 'sex & race=Female & White'",
    )
    audit.add_argument(
        "--metrics",
        nargs="+",
        default=None,
        metavar="METRIC",
        help=f"confusion metrics, any of: {' '.join(CONFUSION_METRICS)} (aliases: "
        f"{', '.join(f'{a}={m}' for a, m in METRIC_ALIASES.items())}); default: "
        f"{' '.join(DEFAULT_METRICS)}",
    )
    audit.add_argument("--pos-label", help="positive value of label/prediction if not 0/1")
    audit.add_argument(
        "--permutations",
        type=int,
        default=None,
        help="fixed permutations per Monte-Carlo test (default: sequential, stopping when "
        "the adjusted decisions over all tests are clear; docs/sequential.md)",
    )
    audit.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="A",
        help="level of the whole audit: the chance of any false DIFFERENCE over all its "
        "tests, after --adjust (default 0.05)",
    )
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
        "--compare",
        nargs=2,
        metavar=("SCORE_A", "SCORE_B"),
        help="two models' score (or 0/1 prediction) columns on the same rows, old then new: "
        "adds 'did the gap shrink?' for every attribute and metric (docs/compare.md)",
    )
    audit.add_argument(
        "--slices",
        nargs="?",
        type=int,
        const=SLICE_DEPTH,
        default=None,
        metavar="DEPTH",
        help="also search every subgroup of up to DEPTH (default "
        f"{SLICE_DEPTH}) group = value conditions over the --group columns, each against "
        "the rest, with the family-wise error over all of them at --alpha (docs/slices.md); "
        "give DEPTH or put --slices after DATA",
    )
    audit.add_argument(
        "--adjust",
        default="holm",
        choices=list(ADJUSTMENTS),
        help="adjustment over all tests of the audit (default holm)",
    )
    audit.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of every random stream (permutations, bootstrap draws): the same seed "
        "gives the same audit, for any --jobs (default 0)",
    )
    audit.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="J",
        help="threads (default: the CPUs this process may use, honouring OMP_NUM_THREADS "
        "and CPU quotas; -1 all of them); results do not depend on it",
    )
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
        choices=["auto", "memory", "arrow", "dask", "spark"],
        default=None,
        help="auto (default): arrow above 2,000,000 rows for one --group column, else "
        "memory; memory: every test, rows in memory; arrow, dask or spark: tests from "
        "summaries built batch by batch, memory bounded by the batch and the per-user sort "
        "(AUC by DeLong, no threshold sweep; docs/cli.md)",
    )
    audit.add_argument(
        "--scheduler", metavar="ADDRESS", help="dask scheduler address (implies --engine dask)"
    )
    audit.add_argument(
        "--master",
        metavar="URL",
        help="Spark master URL (implies --engine spark; default local[*]): the files are "
        "read by Spark and summarised on its executors",
    )


def _add_plan(sub) -> None:
    """The ``fastfair plan`` subcommand and its options."""
    plan = sub.add_parser("plan", help="sample size for a fairness audit")
    plan.add_argument(
        "--metric",
        required=True,
        help="the metric to plan for, and the --rate values it needs: selection_rate; "
        "accuracy; tpr or fnr, fpr or tnr, auc: the metric and prevalence; ppv or fdr, "
        "npv or for: the metric and selection_rate",
    )
    plan.add_argument(
        "--rate",
        action="append",
        default=[],
        metavar="NAME=G1,G2",
        help="per-group rates, one --rate per name, e.g. for --metric fpr: "
        "--rate fpr=0.20,0.25 --rate prevalence=0.3,0.4",
    )
    plan.add_argument("--tau", type=float, required=True, help="difference to detect")
    plan.add_argument("--u-tol", type=float, default=0.0)
    plan.add_argument("--alpha", type=float, default=0.05)
    plan.add_argument("--power", type=float, default=0.8)
    plan.add_argument("--allocation", default="neyman", help="neyman, equal, or a fraction")
    plan.add_argument("--alternative", default="two-sided", choices=["two-sided", "greater"])
    plan.add_argument("--json", metavar="OUT")
    plan.add_argument("--force", action="store_true", help="overwrite an existing output file")


def _add_monitor(sub) -> None:
    """The ``fastfair monitor`` subcommand: a saved fastfair.FairnessMonitor, one more batch."""
    mon = sub.add_parser("monitor", help="update an anytime-valid fairness monitor with a batch")
    mon.add_argument("data", help="the new batch: CSV or Parquet file")
    mon.add_argument("--state", required=True, help="monitor state (JSON; created if missing)")
    mon.add_argument("--label", required=True, help="binary outcome column (y_true)")
    mon.add_argument("--pred", help="binary prediction column (y_pred)")
    mon.add_argument("--score", help="score column (predictions = score >= --threshold)")
    mon.add_argument("--group", required=True, help="protected-attribute column")
    mon.add_argument("--pos-label", help="positive value of label/prediction if not 0/1")
    mon.add_argument("--plot", metavar="PNG", help="also draw every sequence over time")
    new = "; a new state's configuration (an existing state's must match)"
    mon.add_argument(
        "--metrics", nargs="+", help="rate metrics (default: tpr fpr selection_rate)" + new
    )
    mon.add_argument("--reference", help="reference group (required for a new state)")
    mon.add_argument(
        "--groups", nargs="+", help="the groups monitored (default: the first batch's)"
    )
    mon.add_argument("--max-groups", type=int, help="allow new groups up to this many")
    mon.add_argument("--alpha", type=float)
    mon.add_argument("--tolerance", type=float, help="the δ of 'FAIR within ±δ'")
    mon.add_argument("--threshold", type=float, help="score threshold (default 0.5)")


#: The command line's name of each option of :func:`fastfair.audit` it sets.
OPTION_NAMES = {
    "alpha": "--alpha",
    "tau": "--tau",
    "adjust": "--adjust",
    "n_permutations": "--permutations",
    "metrics": "--metrics",
    "tolerance": "--tolerance",
    "equivalence": "--equivalence",
    "random_state": "--seed",
    "n_jobs": "--jobs",
    "min_group_size": "--min-group-size",
    "slices": "--slices",
}


def _not_regular(mode: int) -> str:
    """What a file that is not regular is, for a message (``mode`` from os.stat)."""
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return f"is {kind}, not a regular file"
    return "is not a regular file"


def check_output_path(path: str, option: str, force: bool = False) -> None:
    """Raise CLIError unless `path` can be written: its folder exists and is writable, it
    is not a folder, a device, a FIFO or a socket, and it does not exist (unless `force`).
    A symbolic link is checked (and later written) as the file it points to.

    Parameters
    ----------
    path : str
        The output file.
    option : str
        The option that names it, for the message (``--json``, ``--report``).
    force : bool, default False
        Allow overwriting an existing file.

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> from fastfair.cli.arguments import check_output_path
    >>> folder = tempfile.mkdtemp()
    >>> check_output_path(folder + "/out.json", "--json")
    >>> check_output_path(folder, "--json")
    Traceback (most recent call last):
    ...
    fastfair.cli.arguments.CLIError: --json ...: is a directory; give a file name
    """
    folder = os.path.dirname(os.path.realpath(path))  # a link's target is written
    if os.path.isdir(path):
        raise CLIError(f"{option} {path}: is a directory; give a file name")
    if os.path.exists(path) and not os.path.isfile(path):  # never replaced (fastfair.cli.output)
        kind = _not_regular(os.stat(path).st_mode)
        raise CLIError(f"{option} {path}: {kind}; give the name of a regular file")
    if not os.path.isdir(folder):
        raise CLIError(f"{option} {path}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: the directory {folder} is not writable")
    if os.path.lexists(path) and not force:
        raise CLIError(f"{option} {path}: the file exists; use --force to overwrite it")


def _check_outputs(args, source: str) -> None:
    outputs = [(o, getattr(args, o[2:])) for o in ("--json", "--report")]
    outputs = [(o, p) for o, p in outputs if p]
    for option, path in outputs:
        check_output_path(path, option, args.force)
        if os.path.isfile(source) and os.path.realpath(path) == os.path.realpath(source):
            raise CLIError(f"{option} {path}: is the DATA file; give another output name")
    if len(outputs) == 2 and os.path.realpath(outputs[0][1]) == os.path.realpath(outputs[1][1]):
        raise CLIError("--json and --report name the same file")


def _reference(values, groups):
    """--reference as fastfair.audit takes it: a label (one column) or {column: label};
    a column may be an intersection ("race & sex=Caucasian & Female")."""
    if values is None:
        return None
    names = {" & ".join(c) for k in range(1, len(groups) + 1) for c in _combinations(groups, k)}
    if all("=" in v and v.split("=", 1)[0].strip() in names for v in values):
        return {k.strip(): g for k, g in (v.split("=", 1) for v in values)}
    if len(values) == 1 and len(groups) == 1:
        return values[0]
    raise CLIError(
        "--reference: with several --group columns give COLUMN=GROUP for each, e.g. "
        f"--reference {groups[0]}=..."
    )


def audit_source(args: argparse.Namespace) -> tuple[str, str, dict]:
    """Check the options of ``fastfair audit`` before any data are read.

    Fills in the demo's columns for ``--demo``, refuses a missing or impossible option (by
    :func:`check_audit_settings`, as :func:`fastfair.audit` checks them) and an unwritable
    output path, and resolves the engine and ``--reference``.

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
        ``"auto"`` (the default: chosen from the size of the data once it is known),
        ``"memory"``, ``"arrow"`` or ``"dask"``.
    options : dict
        The keyword options of :func:`fastfair.audit` both engines share
        (:func:`audit_options`), with ``reference`` as :func:`fastfair.audit` takes it.

    Examples
    --------
    >>> from fastfair.cli.arguments import audit_source, build_parser
    >>> args = build_parser().parse_args(["audit", "rows.csv", "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--reference", "F"])
    >>> source, engine, options = audit_source(args)
    >>> source, engine, options["reference"], options["alpha"]
    ('rows.csv', 'auto', 'F', 0.05)
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
    _check_names(args)
    if args.pred is None and args.score is None:
        raise CLIError("give --pred (binary predictions) or --score (scores to threshold)")
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise CLIError(f"--threshold must be a finite number, got {args.threshold}")
    options = audit_options(args)
    try:
        check_audit_settings(**options, names=OPTION_NAMES)
        if args.max_rows is not None and args.max_rows < 0:  # (argparse: an int)
            raise ValueError(f"--max-rows must be >= 0, got {args.max_rows}")
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from exc
    options["reference"] = _reference(args.reference, args.group)
    _check_outputs(args, source)
    engine = args.engine or ("dask" if args.scheduler else "spark" if args.master else "auto")
    if args.scheduler and engine != "dask":
        raise CLIError("--scheduler needs --engine dask")
    if args.master and engine != "spark":
        raise CLIError("--master needs --engine spark")
    if engine in ("arrow", "dask", "spark") and args.compare:
        raise CLIError(f"--compare runs in memory: use --engine memory, not {engine}")
    return source, engine, options


def _check_names(args: argparse.Namespace) -> None:
    """--no-header and --names go together, on a file, with distinct non-empty names."""
    if args.no_header != (args.names is not None):
        given, missing = (
            ("--no-header", "--names") if args.no_header else ("--names", "--no-header")
        )
        raise CLIError(f"{given} needs {missing} (a file without a header row, and its names)")
    if args.names is None:
        return
    if args.demo:
        raise CLIError("--no-header and --names are for a DATA file, not --demo")
    if any(not n.strip() for n in args.names):
        raise CLIError("--names: a column name is empty")
    repeated = sorted({n for n in args.names if args.names.count(n) > 1})
    if repeated:
        raise CLIError(f"--names repeats {', '.join(map(repr, repeated))}")


def audit_options(args: argparse.Namespace) -> dict:
    """The keyword options the in-memory and the summary audits share, from the arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fastfair audit`` arguments.

    Returns
    -------
    dict
        ``metrics``, ``min_group_size``, ``alpha``, ``tau``, ``adjust``, ``n_permutations``,
        ``random_state``, ``n_jobs``, ``tolerance``, ``equivalence`` and ``slices``, named as
        :func:`fastfair.audit` names them (:func:`check_audit_settings` checks them).

    Examples
    --------
    >>> from fastfair.cli.arguments import audit_options, build_parser
    >>> args = build_parser().parse_args(["audit", "rows.csv", "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--permutations", "999"])
    >>> options = audit_options(args)
    >>> options["n_permutations"], options["random_state"], options["adjust"]
    (999, 0, 'holm')
    """
    return dict(
        metrics=args.metrics,
        min_group_size=args.min_group_size,
        alpha=args.alpha,
        tau=args.tau,
        adjust=args.adjust,
        n_permutations=args.permutations,
        random_state=args.seed,
        n_jobs=args.jobs,
        tolerance=args.tolerance,
        equivalence=args.equivalence,
        slices=args.slices,
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
