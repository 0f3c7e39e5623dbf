"""Data loading of the command line: the audit's columns from a CSV or Parquet file.

Second layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from fastfair.cli.arguments import CLIError
from fastfair.io import check_binary, check_threshold, missing_cells, parse_text

__all__ = ["Table", "load_columns", "read_table"]


class Table(dict):
    """Column name -> values, as :func:`read_table` returns them.

    A name the header repeats is kept once when its copies are equal (COMPAS repeats
    ``decile_score``, identically); `ambiguous` maps a repeated name whose copies differ to
    their 1-based positions, and using it is refused (:func:`load_columns`).
    """

    def __init__(self, *args, ambiguous: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.ambiguous = dict(ambiguous or {})


def _table(names: list[str], columns) -> Table:
    """The columns by name; repeated names kept once when equal, else marked ambiguous."""
    table, positions = Table(), {}
    for j, (name, values) in enumerate(zip(names, columns)):
        positions.setdefault(name, []).append(j + 1)
        if name not in table:
            table[name] = values
        elif not _equal(table[name], values):
            table.ambiguous[name] = positions[name]
    return table


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    floats = a.dtype.kind == "f" and b.dtype.kind == "f"
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=floats))


def read_table(path: str, names: list[str] | None = None) -> Table:
    """Columns of a CSV or Parquet file as numpy arrays (numeric where every value parses).

    CSV files are read as spreadsheets and databases export them: the quirks handled or
    refused are listed in docs/cli.md (:func:`fastfair.io.parse_text`).

    Parameters
    ----------
    path : str
        A .csv or .parquet file.
    names : list of str, optional
        The column names of a CSV file without a header row (every row is then data).

    Returns
    -------
    Table
        Column name -> values (float where every value parses as a number, else text); a
        dict whose ``ambiguous`` attribute lists the repeated names whose copies differ.

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
        columns = (table.column(j).to_numpy() for j in range(table.num_columns))
        return _table(table.column_names, columns)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        header, columns = parse_text(raw, path, names)
        return _table(header, columns)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


#: A CSV file larger than this goes through the batch reader (fastfair.io: pyarrow, else
#: pandas' or numpy's C parser), not the quirk-aware text reader (Python's csv module).
LARGE_CSV_BYTES = 32 << 20


def _is_large_source(path: str) -> bool:
    """Parquet files, directories, globs and large CSV files go through the batch reader."""
    return (
        path.lower().endswith((".parquet", ".pq"))
        or os.path.isdir(path)
        or (not os.path.exists(path) and any(c in path for c in "*?["))
        or (os.path.isfile(path) and os.path.getsize(path) > LARGE_CSV_BYTES)
    )


def _large_csv_note(path: str, quiet: bool) -> None:
    """Say how a large CSV file is read when pyarrow is absent (slower, memory per row)."""
    if quiet or path.lower().endswith((".parquet", ".pq")) or not os.path.isfile(path):
        return
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        try:
            import pandas  # noqa: F401

            how = "pandas' C parser"
        except ImportError:
            how = "numpy.loadtxt"
        size = os.path.getsize(path) / 2**20
        print(
            f"fastfair: note: reading {path} ({size:,.0f} MiB) without pyarrow: {how} in "
            "batches of 2^20 rows, the needed columns kept in memory; pip install pyarrow "
            "reads it several times faster (and --engine arrow keeps memory bounded)",
            file=sys.stderr,
        )


def _read_audit_columns(path: str, args, progress=None) -> dict:
    """Only the audit's columns, read in record batches; group and cluster coded once."""
    from fastfair.io import read_columns

    compared = list(args.compare or [])
    needed = [args.label, args.pred, args.score, *compared, *args.group, args.cluster]
    columns = list(dict.fromkeys(c for c in needed if c is not None))
    numbers = [c for c in (args.label, args.pred, args.score, *compared) if c is not None]
    coded = [c for c in (*args.group, args.cluster) if c is not None and c not in numbers]
    binary = [c for c in (args.label, args.pred) if c is not None]
    try:
        table = read_columns(
            path, columns, codes=coded, complete=numbers, binary=binary, progress=progress
        )
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc
    if args.cluster in coded:  # numeric ids as they are; text ids by their codes
        coded = table[args.cluster]
        numeric = coded.labels.dtype.kind in "biuf"
        table[args.cluster] = coded.to_numpy() if numeric else coded.codes
    return table


def _column(table: dict, name: str, role: str, complete: bool = True) -> np.ndarray:
    """Column `name` of the table; with `complete`, refuse missing cells (naming the first)."""
    if name in getattr(table, "ambiguous", {}):
        places = ", ".join(str(j) for j in table.ambiguous[name])
        raise CLIError(
            f"the {role} column {name!r} appears in columns {places} of the header, with "
            "different values: rename or drop the copy you do not mean"
        )
    if name not in table:
        available = ", ".join(table)
        hint = _no_header_hint(table)
        raise CLIError(f"unknown {role} column {name!r}; available: {available}{hint}")
    values = table[name]
    if complete:
        missing = missing_cells(values)
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise CLIError(
                f"{role} column {name!r} has {int(missing.sum()):,} missing values "
                f"(empty, NA, null or NaN; the first in data row {first + 1}); "
                "drop or fill those rows"
            )
    return values


def _no_header_hint(table) -> str:
    """A hint when the header read looks like a data row (a number as a column name)."""

    def number(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return True

    if any(number(str(n)) for n in table):
        return (
            " (the first row looks like data: for a file without a header row give "
            "--no-header --names NAME ...)"
        )
    return ""


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


def _read_whole(source: str, names, progress) -> dict:
    """read_table, as one step of a progress bar ``desc="reading"`` (when given)."""
    bar = progress(total=1, desc="reading") if progress else None
    try:
        table = read_table(source, names)
        if bar is not None:
            bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return table


def load_columns(
    source: str, args: argparse.Namespace, progress: Callable[..., Any] | None = None
) -> tuple[dict, object]:
    """The audit's columns in memory, each checked, and ``--pos-label`` in the label's type.

    A CSV file up to ``LARGE_CSV_BYTES`` is read whole (:func:`read_table`); Parquet files,
    folders, globs and larger CSV files are read in record batches (:mod:`fastfair.io`), only
    the audit's columns, the group and cluster columns coded once.
    Label, prediction, score and cluster columns must have no missing cells.

    Parameters
    ----------
    source : str
        A file, a folder of files or a glob.
    args : argparse.Namespace
        The parsed ``fastfair audit`` arguments (the column names and ``--pos-label``).
    progress : callable, optional
        A tqdm-like progress-bar factory for the reading (``desc="reading"``): the rows of
        each batch read, or one step for a file read whole.

    Returns
    -------
    table : dict
        Column name -> values.
    pos_label : object
        ``--pos-label`` as a value of the label column's type (None when not given).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.cli.arguments import build_parser
    >>> from fastfair.cli.loading import load_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,p,sex\\nyes,yes,F\\nno,no,M\\n")
    >>> args = build_parser().parse_args(["audit", path, "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--pos-label", "yes"])
    >>> table, pos_label = load_columns(path, args)
    >>> sorted(table), pos_label
    (['p', 'sex', 'y'], 'yes')
    """
    names = getattr(args, "names", None)
    if _is_large_source(source):
        if names is not None:
            raise CLIError(
                "--no-header: only CSV files read whole (up to 32 MiB) can be read without "
                "a header row; add the header line to the file"
            )
        _large_csv_note(source, args.quiet)
        table = _read_audit_columns(source, args, progress)
    else:
        table = _read_whole(source, names, progress)
    compared = [(name, "--compare") for name in args.compare or []]
    for name, role in ((args.label, "label"), (args.pred, "prediction"), (args.score, "score"),
                       *compared):  # fmt: skip
        if name is not None:
            _column(table, name, role)
    for name in args.group:
        _column(table, name, "group", complete=False)
    if args.cluster is not None:
        _column(table, args.cluster, "cluster")
    if args.score is not None and args.pred is None:
        _check_threshold(table[args.score], args)
    pos_label = _pos_label(args.pos_label, table[args.label])
    for name, role in ((args.label, "label"), (args.pred, "prediction")):
        if name is not None:  # as fastfair.audit will, naming --pos-label
            try:
                check_binary(table[name], f"{role} column {name!r}", pos_label,
                             name == args.label, pos_name="--pos-label")  # fmt: skip
            except (TypeError, ValueError) as exc:
                raise CLIError(str(exc)) from exc
    return table, pos_label


def _check_threshold(scores: np.ndarray, args: argparse.Namespace) -> None:
    """Scores outside [0, 1] need --threshold (fastfair.io.check_threshold)."""
    if scores.dtype.kind not in "biuf":
        return  # fastfair.audit names the column that is not numeric
    try:
        what = f"score column {args.score!r}"
        check_threshold(np.asarray(scores, dtype=float), args.threshold, what, "--threshold")
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
