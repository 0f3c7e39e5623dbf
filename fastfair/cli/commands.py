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
import time
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


class _PlainBar:
    """The progress display without tqdm: one line on stderr, ``desc n/total``, rewritten
    in place (the same interface as a tqdm bar: ``update``, ``close``)."""

    def __init__(self, total: int | None = None, desc: str = "", **_options):
        self.total, self.desc, self.n, self._width, self._postfix = total, desc, 0, 0, ""
        self._show()

    def update(self, n: int = 1) -> None:
        self.n += n
        self._show()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self._postfix = f", {text}" if text else ""
        if refresh:
            self._show()

    def _show(self) -> None:
        count = "..." if self.total is None else f"{self.n}/{self.total}"
        self._line(f"  {self.desc} {count}{self._postfix}")

    def _line(self, text: str) -> None:
        print("\r" + text.ljust(self._width), end="", file=sys.stderr, flush=True)
        self._width = len(text)

    def close(self) -> None:
        self._line("")
        print("\r", end="", file=sys.stderr, flush=True)


class _Progress:
    """Progress of ``fastfair audit`` on stderr, phase by phase, and their timings.

    Bars (tqdm's when installed, else :class:`_PlainBar`) are shown only on a terminal and
    without ``--quiet``; the phases are timed either way for the closing summary line.
    """

    def __init__(self, quiet: bool):
        self.shown = not quiet and _isatty(sys.stderr)
        self.seconds: dict[str, float] = {}
        self._bar_class = _PlainBar
        if self.shown:
            with contextlib.suppress(ImportError):
                from tqdm import tqdm

                self._bar_class = functools.partial(tqdm, file=sys.stderr, leave=False)

    def __call__(self, total: int | None = None, desc: str = "", **_options):
        """A bar for one phase (the factory fastfair.audit's `progress` expects)."""
        bar = self._bar_class(total=total, desc=desc) if self.shown else _NoBar()
        return _TimedBar(bar, desc, self.seconds)

    @contextlib.contextmanager
    def phase(self, desc: str):
        """A phase without steps (reading a file, writing the report): a one-step bar."""
        bar = self(total=1, desc=desc)
        try:
            yield
            bar.update(1)
        finally:
            bar.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class _TimedBar:
    """A bar that adds the time from its creation to its close to ``seconds[desc]``."""

    def __init__(self, bar, desc: str, seconds: dict):
        self._bar, self._desc, self._seconds = bar, desc, seconds
        self._start = time.perf_counter()
        self._open = True

    def update(self, n: int = 1) -> None:
        self._bar.update(n)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        if hasattr(self._bar, "set_postfix_str"):
            self._bar.set_postfix_str(text, refresh=refresh)

    def close(self) -> None:
        if self._open:
            self._open = False
            self._bar.close()
            elapsed = time.perf_counter() - self._start
            self._seconds[self._desc] = self._seconds.get(self._desc, 0.0) + elapsed


def _isatty(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _summary_line(result, progress: _Progress, args: argparse.Namespace, total: float) -> str:
    """The one line on stderr when stdout is not a terminal: what ran, what it found, the
    files written and where the time went."""
    s = result.summary
    found = f"{s['n_differences']} of {s['n_tests']} tests show a DIFFERENCE"
    errors = f", {s['n_errors']} could not run" if s["n_errors"] else ""
    if result.slices is not None:
        errors += f"; {len(result.slices.found)} significant slices"
    written = [p for p in (args.json, args.report) if p]
    phases = ", ".join(f"{name} {sec:.1f} s" for name, sec in progress.seconds.items())
    return (
        f"fastfair audit: {result.n_rows:,} rows; {found}{errors}"
        + (f"; wrote {', '.join(written)}" if written else "")
        + f"; {total:.1f} s ({phases})"
    )


def _audit_command(args: argparse.Namespace) -> int:
    """``fastfair audit``: parse -> load -> test -> report; progress and a summary line on
    stderr (docs/cli.md)."""
    from fastfair.cli import writing  # after the audit: `import fastfair` stays light

    start = time.perf_counter()
    progress = _Progress(args.quiet)
    source, engine, options = audit_source(args)
    if engine == "auto":
        engine = _auto_engine(source, args)
    if engine == "memory":
        table, pos_label = load_columns(source, args, progress)
        result = _run_audit(table, engine, pos_label, options, args, progress)
    else:  # read batch by batch into summaries, then tested
        result = _run_audit(source, engine, args.pos_label, options, args, progress)
    writing.write_audit(result, args, progress=progress)
    if not args.quiet and not _isatty(sys.stdout):
        total = time.perf_counter() - start
        print(_summary_line(result, progress, args, total), file=sys.stderr)
    return 0


def _auto_engine(source: str, args: argparse.Namespace) -> str:
    """--engine auto: arrow for large sources (fastfair.engines.choose_engine)."""
    from fastfair.engines import choose_engine

    engine, note = choose_engine(source, compare=bool(args.compare))
    if note is not None and not args.quiet:
        print(f"fastfair: note: {note}", file=sys.stderr)
    return engine


def _run_audit(data, engine: str, pos_label, options: dict, args: argparse.Namespace, progress):
    """fastfair.audit of `data`: the columns read into memory (engine "memory"), or the
    source read by the arrow or dask engine into mergeable summaries."""
    place = args.master if engine == "spark" else args.scheduler
    extra = {} if engine == "memory" else dict(engine=engine, scheduler=place)
    try:
        return fastfair.audit(
            args.label,
            args.pred,
            args.group,
            y_score=args.score,
            threshold=args.threshold,
            data=data,
            cluster=args.cluster,
            intersections=args.intersections,
            pos_label=pos_label,
            progress=progress,
            compare=args.compare,
            **extra,
            **options,
        )
    except (TypeError, ValueError, ImportError) as exc:
        raise CLIError(str(exc)) from exc


def _plan_command(args: argparse.Namespace) -> int:
    """``fastfair plan``: parse -> plan -> report."""
    from fastfair.cli import writing

    options = plan_options(args)
    try:
        res = fastfair.sample_size(args.metric, **options)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from exc
    print(res)
    if args.json:
        write_outputs([("--json", args.json, writing.plan_json(res))])
    return 0


def _monitor_command(args: argparse.Namespace) -> int:
    """``fastfair monitor``: load the state, add the batch, write the state atomically."""
    from fastfair.cli.loading import read_table
    from fastfair.cli.output import write_outputs

    try:
        table = read_table(args.data)
        columns = [c for c in (args.label, args.pred, args.score, args.group) if c is not None]
        missing = [c for c in columns if c not in table]
        if missing:
            raise CLIError(f"{args.data} has no column {missing[0]!r}; columns: {list(table)}")
        numeric = table[args.group].dtype.kind in "iuf"  # labels typed as the file's column

        def label(v):
            return float(v) if numeric and v is not None else v

        config = dict(metrics=args.metrics, reference=label(args.reference),
                      groups=None if args.groups is None else [label(g) for g in args.groups],
                      max_groups=args.max_groups, alpha=args.alpha, tolerance=args.tolerance,
                      threshold=args.threshold)  # fmt: skip
        if os.path.exists(args.state):
            with open(args.state, encoding="utf-8") as fh:
                monitor = fastfair.FairnessMonitor.from_json(fh.read(), **config)
        else:
            given = {k: v for k, v in config.items() if v is not None}
            monitor = fastfair.FairnessMonitor(**given)
        monitor.update(args.label, args.pred, args.group, y_score=args.score, data=table,
                       pos_label=args.pos_label)  # fmt: skip
    except (OSError, TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from exc
    write_outputs([("--state", args.state, monitor.to_json())])
    print(monitor.result())
    if args.plot:
        monitor.plot().savefig(args.plot, dpi=120, bbox_inches="tight")
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
        if args.command == "monitor":
            return _monitor_command(args)
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
