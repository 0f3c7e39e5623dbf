"""The `fastfair` command line: a complete fairness audit of a table of predictions.

    fastfair audit DATA --label COL (--pred COL | --score COL [--threshold T])
                   --group COL [COL ...] [--intersections]
    fastfair audit --demo
    fastfair plan --metric tpr --rate tpr=0.68,0.79 --rate prevalence=0.35,0.44 --tau 0.1

Exit status 0 on success, 2 with a one-line reason on bad input. Nothing is written unless
asked (--json, --report); files are written atomically (temporary file, then rename).
The audit itself is :func:`fastfair.audit`; this module reads the file, checks the options
and writes what that returns. The JSON keys are documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import secrets
import sys
from importlib import resources

import numpy as np

import fastfair
from fastfair import _textfile
from fastfair._audit import ADJUSTMENTS, DEFAULT_METRICS

DEMO_FILE = "adult_demo.csv"
DEMO_GROUPS = ["sex", "race"]
DEFAULT_MAX_ROWS = 150


class CLIError(ValueError):
    """Bad input: reported as one line, exit status 2 (a ValueError for library callers)."""


# --------------------------------------------------------------------------------------
# Reading data
# --------------------------------------------------------------------------------------


def read_table(path: str) -> dict[str, np.ndarray]:
    """Columns of a CSV or Parquet file as numpy arrays (numeric where every value parses).

    CSV files are read as spreadsheets and databases export them: the quirks handled or
    refused are listed in :mod:`fastfair._textfile` and docs/cli.md.

    Parameters
    ----------
    path : str
        A .csv or .parquet file.

    Returns
    -------
    dict of str to ndarray
        Column name -> values (float where every value parses as a number, else text).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.cli import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,score,group\\n1,0.8,a\\n0,0.3,b\\n")
    >>> table = read_table(path)
    >>> table["score"].tolist(), table["group"].tolist()
    ([0.8, 0.3], ['a', 'b'])
    """
    if not os.path.exists(path):
        raise CLIError(f"no such file: {path}")
    if os.path.isdir(path):
        raise CLIError(f"{path} is a directory, not a data file")
    if path.endswith((".parquet", ".pq")):
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise CLIError("reading Parquet needs pyarrow: pip install pyarrow") from exc
        try:
            table = pq.read_table(path)
        except Exception as exc:
            raise CLIError(f"cannot read {path} as Parquet: {exc}") from exc
        names = table.column_names
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise CLIError(f"{path}: the column name {duplicate!r} appears more than once")
        return {name: table.column(name).to_numpy() for name in names}
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        text = _textfile.decode_text(raw, path)
        delimiter, text = _textfile.detect_delimiter(text)
        header, body = _textfile.split_records(text, delimiter, path)
        return {
            name: _textfile.parse_column([r[j] for r in body], name)
            for j, name in enumerate(header)
        }
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


def _is_large_source(path: str) -> bool:
    """Parquet files, directories and globs go through the batch reader (fastfair.io)."""
    return (
        path.lower().endswith((".parquet", ".pq"))
        or os.path.isdir(path)
        or (not os.path.exists(path) and any(c in path for c in "*?["))
    )


def _read_audit_columns(path: str, args) -> dict:
    """Only the audit's columns, read in record batches; group and cluster coded once."""
    from fastfair.io import read_columns

    needed = [args.label, args.pred, args.score, *args.group, args.cluster]
    columns = list(dict.fromkeys(c for c in needed if c is not None))
    coded = [c for c in (*args.group, args.cluster) if c is not None]
    numbers = [c for c in (args.label, args.pred, args.score) if c is not None]
    binary = [c for c in (args.label, args.pred) if c is not None]
    try:
        table = read_columns(path, columns, codes=coded, complete=numbers, binary=binary)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc
    if args.cluster is not None:  # numeric ids as they are; text ids by their codes
        coded = table[args.cluster]
        numeric = coded.labels.dtype.kind in "biuf"
        table[args.cluster] = coded.to_numpy() if numeric else coded.codes
    return table


def _column(table: dict, name: str, role: str, complete: bool = True) -> np.ndarray:
    """Column `name` of the table; with `complete`, refuse missing cells (naming the first)."""
    if name not in table:
        raise CLIError(f"unknown {role} column {name!r}; available: {', '.join(table)}")
    values = table[name]
    if complete:
        missing = _textfile.missing_cells(values)
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise CLIError(
                f"{role} column {name!r} has {int(missing.sum()):,} missing values "
                f"(empty, NA, null or NaN; the first in data row {first + 1}); "
                "drop or fill those rows"
            )
    return values


def _pos_label(text: str | None, label: np.ndarray):
    """--pos-label as a value of the label column's type (a number, a bool or text)."""
    if text is None:
        return None
    if label.dtype.kind == "b":
        lowered = text.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise CLIError(f"--pos-label {text!r}: the label column is true/false")
        return np.bool_(lowered in ("true", "1"))
    if label.dtype.kind in "fiu":
        try:
            return float(text)
        except ValueError:
            raise CLIError(f"--pos-label {text!r}: the label column is numeric") from None
    return text


# --------------------------------------------------------------------------------------
# Output files
# --------------------------------------------------------------------------------------


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


def write_atomic(path: str, text: str) -> None:
    """Write text to path through a temporary file in the same folder, then rename.

    The file gets the mode an ordinary new file would (0666 minus the umask).
    """
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(100):
        tmp = os.path.join(folder, f".fastfair-{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise CLIError(f"cannot create a temporary file in {folder}")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialize {type(obj).__name__}")


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def _progress_factory(quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None

    def make(total):
        if tqdm is not None:
            bar = tqdm(total=total, file=sys.stderr, desc="tests", leave=False)
            return lambda: bar.update(1)
        state = {"done": 0}

        def tick():
            state["done"] += 1
            print(f"\r  tests {state['done']}/{total}", end="", file=sys.stderr, flush=True)

        return tick

    return make


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


def _check_outputs(args) -> None:
    outputs = [(o, getattr(args, o[2:])) for o in ("--json", "--report")]
    outputs = [(o, p) for o, p in outputs if p]
    for option, path in outputs:
        check_output_path(path, option, args.force)
    if len(outputs) == 2 and os.path.abspath(outputs[0][1]) == os.path.abspath(outputs[1][1]):
        raise CLIError("--json and --report name the same file")


def _audit_command(args) -> int:
    if args.demo:
        if args.data:
            raise CLIError("give DATA or --demo, not both")
        path = str(resources.files("fastfair") / "data" / DEMO_FILE)
        args.label = args.label or "label"
        args.score = args.score or ("score" if not args.pred else None)
        if args.group is None:
            args.group, args.intersections = DEMO_GROUPS, True
    else:
        if not args.data:
            raise CLIError("give a DATA file (CSV or Parquet) or --demo")
        path = args.data
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
    if engine != "memory":
        result = _summary_audit(path, engine, reference, args)
    else:
        result = _memory_audit(path, reference, args)
    if not args.quiet and sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    _print(result.format(max_rows=args.max_rows))
    if args.demo:
        print(
            "data: UCI Adult test set (Kohavi 1996; CC BY 4.0), scored by a logistic "
            "regression fitted on Adult's training set (scripts/build_demo_data.py)"
        )
    if args.json:
        write_atomic(args.json, result.to_json())
    if args.report:
        write_atomic(args.report, result.to_html())
    return 0


def _memory_audit(path: str, reference, args):
    """fastfair.audit on the file's columns, read into memory."""
    table = _read_audit_columns(path, args) if _is_large_source(path) else read_table(path)
    for name, role in ((args.label, "label"), (args.pred, "prediction"), (args.score, "score")):
        if name is not None:
            _column(table, name, role)
    for name in args.group:
        _column(table, name, "group", complete=False)
    if args.cluster is not None:
        _column(table, args.cluster, "cluster")
    pos_label = _pos_label(args.pos_label, table[args.label])
    try:
        return fastfair.audit(
            args.label,
            args.pred,
            args.group,
            y_score=args.score,
            threshold=args.threshold,
            data=table,
            cluster=args.cluster,
            metrics=args.metrics,
            reference=reference,
            intersections=args.intersections,
            min_group_size=args.min_group_size,
            alpha=args.alpha,
            tau=args.tau,
            adjust=args.adjust,
            n_permutations=args.permutations,
            pos_label=pos_label,
            random_state=args.seed,
            n_jobs=args.jobs,
            progress=_progress_factory(args.quiet),
            tolerance=args.tolerance,
            equivalence=args.equivalence,
        )
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from exc


def _summary_audit(path: str, engine: str, reference, args):
    """The audit from mergeable summaries (fastfair._summary_audit): arrow or dask engine."""
    from fastfair import _summary_audit as summary_audit

    if len(args.group) != 1 or args.intersections:
        raise CLIError(f"--engine {engine} audits one --group column, without --intersections")
    group = args.group[0]
    options = dict(
        label=args.label,
        group=group,
        pred=args.pred,
        score=args.score,
        threshold=args.threshold,
        pos_label=args.pos_label,
    )
    if engine == "arrow":
        place = contextlib.nullcontext()
    else:
        place = summary_audit.dask_scheduler(args.scheduler)
    try:
        with place as scheduler:
            return _summary_tests(path, engine, reference, args, group, options, scheduler)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc


def _summary_tests(path, engine, reference, args, group, options, scheduler):
    from fastfair import _summary_audit as summary_audit

    if engine == "arrow":
        summary = summary_audit.summarise_arrow(
            path, batch_rows=1 << 20, cluster=args.cluster, **options
        )
        where = dict(batch_rows=1 << 20)
    else:
        summary = summary_audit.summarise_dask(path, scheduler=scheduler, **options)
        where = dict(scheduler=scheduler)
    clusters = None
    if args.score is not None:  # predictive parity: the rows grouped by user
        clusters = functools.partial(
            summary_audit.arrow_clusters if engine == "arrow" else summary_audit.dask_clusters,
            path,
            label=args.label,
            group=group,
            score=args.score,
            cluster=args.cluster,
            pos_label=args.pos_label,
            **where,
        )
    return summary_audit.audit_from_summary(
        summary,
        engine=engine,
        columns=dict(
            label=args.label,
            pred=args.pred,
            score=args.score,
            threshold=args.threshold if args.pred is None else None,
            cluster=args.cluster,
            groups=[group],
        ),
        reference=reference,
        metrics=args.metrics,
        n_permutations=args.permutations,
        random_state=args.seed,
        n_jobs=args.jobs,
        min_group_size=args.min_group_size,
        alpha=args.alpha,
        tau=args.tau,
        adjust=args.adjust,
        tolerance=args.tolerance,
        equivalence=args.equivalence,
        clusters=clusters,
    )


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


def _print(text: str) -> None:
    """Print, writing "≥" as ">=" where the terminal's encoding lacks it."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = text.replace("\u2265", ">=")
    print(text)


def _plan_command(args) -> int:
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
    try:
        res = fastfair.sample_size(
            args.metric,
            rates=rates or None,
            tau=args.tau,
            u_tol=args.u_tol,
            alpha=args.alpha,
            power=args.power,
            allocation=allocation,
            alternative=args.alternative,
        )
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from exc
    print(res)
    if args.json:
        fields = {k: v for k, v in vars(res).items() if not k.startswith("_")}
        write_atomic(args.json, json.dumps(fields, indent=2, default=_json_default))
    return 0


def main(argv=None) -> int:
    """Entry point of the `fastfair` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 2 on a usage or input error (a message on stderr).

    Examples
    --------
    >>> from fastfair.cli import main
    >>> main(["plan", "--metric", "tpr", "--rate", "tpr=0.7,0.8",
    ...       "--rate", "prevalence=0.3,0.3", "--tau", "0.1"])  # doctest: +ELLIPSIS
    SampleSizeResult...
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "audit":
            return _audit_command(args)
        return _plan_command(args)
    except CLIError as exc:
        print("fastfair: error: " + " ".join(str(exc).split("\n")), file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`fastfair audit ... | head`): stop quietly, as the Python docs
        # advise, pointing stdout at devnull so the interpreter's final flush cannot fail too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "read_table"]
