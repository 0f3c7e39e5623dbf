"""Data loading of the command line: the audit's columns from a CSV or Parquet file.

Second layer of :mod:`fastfair.cli` (arguments -> loading -> audit -> report -> commands).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from fastfair import _textfile
from fastfair.cli.arguments import CLIError

__all__ = ["load_columns", "read_table"]


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


def _read_audit_columns(path: str, args) -> dict:
    """Only the audit's columns, read in record batches; group and cluster coded once."""
    from fastfair.io import read_columns

    needed = [args.label, args.pred, args.score, *args.group, args.cluster]
    columns = list(dict.fromkeys(c for c in needed if c is not None))
    numbers = [c for c in (args.label, args.pred, args.score) if c is not None]
    coded = [c for c in (*args.group, args.cluster) if c is not None and c not in numbers]
    binary = [c for c in (args.label, args.pred) if c is not None]
    try:
        table = read_columns(path, columns, codes=coded, complete=numbers, binary=binary)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc
    if args.cluster in coded:  # numeric ids as they are; text ids by their codes
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


def load_columns(source: str, args: argparse.Namespace) -> tuple[dict, object]:
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
    ...     _ = f.write("y,p,sex\\nyes,1,F\\nno,0,M\\n")
    >>> args = build_parser().parse_args(["audit", path, "--label", "y", "--pred", "p",
    ...                                   "--group", "sex", "--pos-label", "yes"])
    >>> table, pos_label = load_columns(path, args)
    >>> sorted(table), pos_label
    (['p', 'sex', 'y'], 'yes')
    """
    if _is_large_source(source):
        _large_csv_note(source, args.quiet)
        table = _read_audit_columns(source, args)
    else:
        table = read_table(source)
    for name, role in ((args.label, "label"), (args.pred, "prediction"), (args.score, "score")):
        if name is not None:
            _column(table, name, role)
    for name in args.group:
        _column(table, name, "group", complete=False)
    if args.cluster is not None:
        _column(table, args.cluster, "cluster")
    return table, _pos_label(args.pos_label, table[args.label])
