"""The `fastfair` commands: parse the arguments, load the columns, run the audit, write it.

Last layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands):
:func:`main` is the console script's entry point and ``python -m fastfair``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Sequence

import fastfair
from fastfair.cli.arguments import (
    CLIError,
    audit_source,
    build_parser,
    plan_options,
)
from fastfair.cli.loading import load_columns
from fastfair.cli.output import write_outputs

__all__ = ["main"]


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


def _audit_command(args: argparse.Namespace) -> int:
    """``fastfair audit``: parse -> load -> test -> report."""
    from fastfair.cli import report  # after the audit: `import fastfair` stays light

    source, engine, options = audit_source(args)
    if engine == "auto":
        engine = _auto_engine(source, args)
    if engine == "memory":
        table, pos_label = load_columns(source, args)
        result = _memory_audit(table, pos_label, options, args)
    else:  # read batch by batch into summaries, then tested
        result = _summary_audit(source, engine, options, args)
    if not args.quiet and sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)  # clear the progress line
    report.write_audit(result, args)
    return 0


def _auto_engine(source: str, args: argparse.Namespace) -> str:
    """--engine auto: arrow for large sources (fastfair.cli.summary_audit.choose_engine)."""
    from fastfair.cli.summary_audit import choose_engine

    engine, note = choose_engine(
        source, n_group_columns=len(args.group), intersections=args.intersections
    )
    if note is not None and not args.quiet:
        print(f"fastfair: note: {note}", file=sys.stderr)
    return engine


def _memory_audit(table: dict, pos_label, options: dict, args: argparse.Namespace):
    """fastfair.audit on the columns read into memory."""
    try:
        return fastfair.audit(
            args.label,
            args.pred,
            args.group,
            y_score=args.score,
            threshold=args.threshold,
            data=table,
            cluster=args.cluster,
            intersections=args.intersections,
            pos_label=pos_label,
            progress=_progress_factory(args.quiet),
            **options,
        )
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from exc


def _summary_audit(source: str, engine: str, options: dict, args: argparse.Namespace):
    """The audit from mergeable summaries (fastfair.cli.summary_audit): arrow or dask engine."""
    from fastfair.cli import summary_audit

    columns = dict(
        label=args.label,
        group=args.group[0],
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
            return _summary_tests(source, engine, options, args, columns, scheduler)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc


def _summary_tests(path, engine, audit_options, args, options, scheduler):
    from fastfair.cli import summary_audit

    group = options["group"]
    clusters = None
    if engine == "arrow":  # one read: the summaries and the parity columns
        summary = summary_audit.summarise_arrow(
            path, batch_rows=1 << 20, cluster=args.cluster, keep_rows=True, **options
        )
        if summary.rows is not None:
            clusters = functools.partial(summary_audit.arrow_clusters, summary.rows)
    else:
        summary = summary_audit.summarise_dask(
            path, scheduler=scheduler, cluster=args.cluster, **options
        )
        if args.score is not None:  # predictive parity: the rows grouped by user
            clusters = functools.partial(
                summary_audit.dask_clusters,
                path,
                label=args.label,
                group=group,
                score=args.score,
                cluster=args.cluster,
                pos_label=args.pos_label,
                scheduler=scheduler,
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
        clusters=clusters,
        **audit_options,
    )


def _plan_command(args: argparse.Namespace) -> int:
    """``fastfair plan``: parse -> plan -> report."""
    from fastfair.cli import report

    options = plan_options(args)
    try:
        res = fastfair.sample_size(args.metric, **options)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from exc
    print(res)
    if args.json:
        write_outputs([("--json", args.json, report.plan_json(res))])
    return 0


def main(argv: Sequence[str] | None = None) -> int:
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
    except BrokenPipeError as exc:
        if not _stdout_closed():
            # another pipe broke (a worker's socket, a subprocess): an error, not a reader
            # that went away, so say so instead of ending silently
            print(f"fastfair: error: broken pipe: {exc}", file=sys.stderr)
            return 1
        # The reader went away (`fastfair audit ... | head`): stop quietly, as the Python docs
        # advise, pointing stdout at devnull so the interpreter's final flush cannot fail too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on it). An
    in-memory stdout (no file descriptor) cannot be; where poll is missing (Windows) assume
    it is: the quiet exit."""
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0))
