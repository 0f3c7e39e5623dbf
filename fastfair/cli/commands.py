"""The `fastfair` commands: parse the arguments, load the columns, run the audit, write it.

Last layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands):
:func:`main` is the console script's entry point and ``python -m fastfair``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import sys
from importlib import resources

import numpy as np

import fastfair
from fastfair.cli.arguments import (
    CLIError,
    _check_outputs,
    _reference,
    build_parser,
    check_audit_options,
    check_output_path,
)
from fastfair.cli.loading import (
    _column,
    _is_large_source,
    _pos_label,
    _read_audit_columns,
    read_table,
)

DEMO_FILE = "adult_demo.csv"
DEMO_GROUPS = ["sex", "race"]


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
    """The audit from mergeable summaries (fastfair.cli.summary_audit): arrow or dask engine."""
    from fastfair.cli import summary_audit

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
    from fastfair.cli import summary_audit

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
