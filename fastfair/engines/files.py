"""Reading audit columns from files too large to load whole: Parquet and CSV, in batches.

A source is a file, a directory or a glob pattern of Parquet (``.parquet``, ``.pq``) or CSV
(``.csv``) files. Only the named columns are read, one record batch at a time (a pyarrow
dataset), and each is converted at once to a compact numpy column: numbers as float64,
0/1 labels as small integers, and text columns named in `codes` as group codes (Arrow
dictionary encoding per batch, one dictionary for the whole audit). Memory therefore holds
the needed columns in compact form (about 17 bytes a row for a label, a score, a group and a
cluster), never the file's other columns nor a Python object per cell.

Without pyarrow, a single CSV file is read by pandas (C parser) when pandas is installed.

Bad input is refused with a ValueError that names the file: a missing column, or missing
values (null, NaN) in a column that needs every value.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._validation import (
    GroupCodes,
    as_binary,
    as_groups,
    check_label_values,
    score_threshold,
    sort_labels,
)
from fastfair.engines.groups import arrow_text

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "BATCH_ROWS",
    "arrow_text",
    "check_binary",
    "check_columns",
    "check_names",
    "check_threshold",
    "count_rows",
    "estimate_rows",
    "iter_batches",
    "missing_cells",
    "parse_text",
    "read_columns",
    "source_files",
    "text_batches",
]

#: Rows per record batch: bounds the memory of conversion, not of the result.
BATCH_ROWS = 1 << 20
#: Bytes of CSV text per block: the pyarrow reader parses blocks in parallel, one record
#: batch each (4 MiB: about 10^5 rows of an audit log; the default 1 MiB made 4x the batches).
CSV_BLOCK = 1 << 22
_PARQUET = (".parquet", ".pq")
_CSV = (".csv",)


def source_files(source: str | os.PathLike) -> list[str]:
    """The data files of `source`: a file, a directory (searched recursively) or a glob.

    Parameters
    ----------
    source : str or os.PathLike
        A .parquet/.csv file, a directory (files starting with "." or "_" are skipped) or a
        glob pattern.

    Returns
    -------
    list of str
        The sorted file paths, all Parquet or all CSV (a mix is refused).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.io import source_files
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("b.csv", "a.csv", "_SUCCESS"):
    ...     open(os.path.join(folder, name), "w").close()
    >>> [os.path.basename(f) for f in source_files(folder)]
    ['a.csv', 'b.csv']
    """
    source = os.fspath(source)
    if os.path.isdir(source):
        found = [
            os.path.join(root, f)
            for root, _, files in os.walk(source)
            for f in files
            if f.lower().endswith(_PARQUET + _CSV) and not f.startswith((".", "_"))
        ]
        if not found:
            raise ValueError(f"directory {source} holds no .parquet or .csv files")
    elif os.path.exists(source):
        found = [source]
    else:
        found = [f for f in glob.glob(source, recursive=True) if os.path.isfile(f)]
        if not found:
            raise ValueError(f"no such file: {source}")
    found.sort()
    kinds = {_kind(f) for f in found}
    if len(kinds) > 1:
        raise ValueError(f"{source} mixes Parquet and CSV files; give one kind")
    return found


def _kind(path: str) -> str:
    return "parquet" if path.lower().endswith(_PARQUET) else "csv"


def check_columns(source: str | os.PathLike, columns: Sequence[str]) -> list[str]:
    """The files of `source`, each checked to hold `columns` (from the Parquet footer or the
    CSV header line, without reading data); ValueError naming the first file without one.

    Parameters
    ----------
    source : str or os.PathLike
        As in :func:`source_files`.
    columns : sequence of str
        The columns every file must hold.

    Returns
    -------
    list of str
        The files (:func:`source_files`).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.io import check_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,g\\n1,a\\n")
    >>> check_columns(path, ["y", "user"])
    Traceback (most recent call last):
    ...
    ValueError: ...rows.csv: no column 'user'; available: y, g
    """
    files = source_files(source)
    for path in files:
        if _kind(path) == "parquet":
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(path).names
            except Exception as exc:
                raise ValueError(f"cannot read {path} as parquet: {exc}") from exc
        else:
            names = _csv_layout(path)[2]
        check_names(names, columns, path)
    return files


def check_names(names: Sequence[str], columns: Sequence[str], where: str) -> None:
    """The one column check of the engines: a ValueError naming the first of `columns`
    that is not among `names`, the columns of `where` (a file, a data frame).

    Parameters
    ----------
    names : sequence of str
        The columns `where` holds.
    columns : sequence of str
        The columns wanted.
    where : str
        How the message names the holder.

    Returns
    -------
    None

    Examples
    --------
    >>> from fastfair.io import check_names
    >>> check_names(["y", "g"], ["y", "user"], "rows.csv")
    Traceback (most recent call last):
    ...
    ValueError: rows.csv: no column 'user'; available: y, g
    """
    absent = [c for c in columns if c not in names]
    if absent:
        shown = ", ".join(str(n) for n in names)
        raise ValueError(f"{where}: no column {absent[0]!r}; available: {shown}")


def count_rows(source: str | os.PathLike) -> int:
    """Number of data rows of `source` (Parquet: from the file footers, without reading the
    data; CSV: one parse of the files, in batches).

    Parameters
    ----------
    source : str or os.PathLike
        As in :func:`source_files`.

    Returns
    -------
    int
        The rows of all its files.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from fastfair.io import count_rows
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.parquet")
    >>> pq.write_table(pa.table({"y": [0, 1, 1]}), path)
    >>> count_rows(path)
    3
    """
    import pyarrow.dataset as ds

    total = 0
    for path in source_files(source):
        try:
            total += ds.dataset(path, format=_kind(path)).count_rows()
        except Exception as exc:
            raise ValueError(f"cannot read {path} as {_kind(path)}: {exc}") from exc
    return total


def estimate_rows(source: str | os.PathLike) -> int:
    """Rows of `source`, cheaply: exact for Parquet (file footers, needs pyarrow); for CSV
    the file sizes divided by the mean line length of the first MiB (no parse).

    Parameters
    ----------
    source : str or os.PathLike
        As in :func:`source_files`.

    Returns
    -------
    int
        The (estimated) number of data rows.

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.io import estimate_rows
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,g\\n" + "1,a\\n" * 1000)
    >>> estimate_rows(path)
    1000
    """
    files = source_files(source)
    if _kind(files[0]) == "parquet":
        return count_rows(source)
    total = 0
    for path in files:
        with open(path, "rb") as fh:
            head = fh.read(1 << 20)
        lines = max(head.count(b"\n"), 1)
        size = os.path.getsize(path)
        total += max(round(size * lines / max(len(head), 1)) - 1, 0)  # less the header
    return total


def iter_batches(
    source: str | os.PathLike,
    columns: Sequence[str],
    *,
    batch_rows: int = BATCH_ROWS,
    dictionary: Sequence[str] = (),
) -> Iterator[tuple[str, dict]]:
    """Yield (file, {column: pyarrow Array}) record batches of only `columns`.

    Text columns named in `dictionary` are read from Parquet already dictionary-encoded.
    Raises ValueError naming the file when a column is missing.

    Parameters
    ----------
    source : str or os.PathLike
        As in :func:`source_files`.
    columns : sequence of str
        The columns to read.
    batch_rows : int
        Rows per batch (at most).
    dictionary : sequence of str
        Columns to read dictionary-encoded (Parquet).

    Yields
    ------
    file : str
        The file the batch comes from.
    batch : dict of str to pyarrow.Array
        The batch's columns.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from fastfair.io import iter_batches
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.parquet")
    >>> pq.write_table(pa.table({"y": [0, 1, 1], "g": ["b", "a", "b"]}), path)
    >>> [batch["y"].to_pylist() for _, batch in iter_batches(path, ["y"], batch_rows=2)]
    [[0, 1], [1]]
    """
    try:
        import pyarrow.dataset as ds
    except ImportError as exc:
        raise ImportError(
            "reading Parquet, directories or globs needs pyarrow: pip install pyarrow"
        ) from exc
    files = source_files(source)
    fmt = _kind(files[0])
    for path in files:
        try:
            if fmt == "parquet":  # no pre-buffering: it caches the column chunks read
                import pyarrow.parquet as pq

                names = pq.read_schema(path).names
                coded = [c for c in dictionary if c in names]
                data = pq.ParquetFile(path, read_dictionary=coded, pre_buffer=False)
            else:
                import pyarrow.csv as pcsv

                delimiter, skip, header = _csv_layout(path)
                read = pcsv.ReadOptions(  # the header as _csv_layout read it, spaces stripped
                    column_names=header, skip_rows=skip + 1, block_size=CSV_BLOCK
                )
                csv_format = ds.CsvFileFormat(
                    parse_options=pcsv.ParseOptions(delimiter=delimiter),
                    read_options=read,
                    convert_options=_csv_types(header, dictionary),
                )
                data = ds.dataset(path, format=csv_format)
                names = data.schema.names
                spaced = _spaced_header(path, skip, delimiter)
        except Exception as exc:
            raise ValueError(f"cannot read {path} as {fmt}: {exc}") from exc
        absent = [c for c in columns if c not in names]
        if absent:
            raise ValueError(f"{path}: no column {absent[0]!r}; available: {', '.join(names)}")
        if fmt == "parquet":
            batches = data.iter_batches(batch_size=batch_rows, columns=list(columns))
        else:
            batches = data.to_batches(columns=list(columns), batch_size=batch_rows)
        for batch in batches:
            if fmt == "csv" and spaced:
                yield path, {c: _without_leading_spaces(batch.column(c)) for c in columns}
            else:
                yield path, {c: batch.column(c) for c in columns}


def _spaced_header(path: str, skip: int, delimiter: str) -> bool:
    """Whether the header line of the CSV file `path` has a space after a delimiter
    (``y, pred, g``, as people type CSV by hand)."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        for _ in range(skip):
            fh.readline()
        line = fh.readline()
    return f"{delimiter} " in line or f"{delimiter}\t" in line


def _without_leading_spaces(values):
    """Text `values` (an Arrow string or dictionary array) without the spaces typed after
    each delimiter, as pandas' ``skipinitialspace`` reads them; other arrays unchanged
    (Arrow's number parser already skips them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return values
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
        return pc.utf8_ltrim_whitespace(values).dictionary_encode()
    return pc.utf8_ltrim_whitespace(values)


def _csv_types(names: Sequence[str], dictionary: Sequence[str]):
    """Convert options of a CSV file with columns `names`: the `dictionary` columns read as
    Arrow dictionaries (codes and one small dictionary a block, never a string a row)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    coded = pa.dictionary(pa.int32(), pa.string())
    return pcsv.ConvertOptions(column_types={c: coded for c in dictionary if c in names})


def read_columns(
    source: str | os.PathLike,
    columns: Sequence[str],
    *,
    codes: Sequence[str] = (),
    complete: Sequence[str] = (),
    binary: Sequence[str] = (),
    batch_rows: int = BATCH_ROWS,
    progress: Any = None,
) -> dict:
    """Only `columns` of `source`, as numpy arrays; columns in `codes` as group codes.

    Columns named in `codes` come back as :class:`fastfair._validation.GroupCodes` (codes and
    sorted labels, as :func:`fastfair._validation.as_groups` gives them), coded batch by batch
    through Arrow dictionary encoding; other columns as numpy arrays of their Arrow type.
    Missing values (null, NaN) are refused, naming the file and the count, in coded columns
    and in the columns named in `complete`; a column named in `binary` may hold at most two
    distinct values (the file where a third appears is named).

    Parameters
    ----------
    source : str or os.PathLike
        As in :func:`source_files`.
    columns : sequence of str
        The columns to read.
    codes : sequence of str
        Columns to return as group codes.
    complete : sequence of str
        Columns that may hold no missing value.
    binary : sequence of str
        Columns that may hold at most two distinct values.
    batch_rows : int
        Rows per batch (at most).
    progress : callable, optional
        A tqdm-like progress-bar factory (``progress(total=, desc="reading")``), advanced
        by the rows of each batch; the total is :func:`estimate_rows`.

    Returns
    -------
    dict
        Column name -> numpy array, or :class:`~fastfair._validation.GroupCodes` for the
        columns in `codes`.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from fastfair.io import read_columns
    >>> folder = tempfile.mkdtemp()
    >>> table = pa.table({"y": [0, 1, 1], "g": ["b", "a", "b"], "unused": [1.0, 2.0, 3.0]})
    >>> pq.write_table(table, os.path.join(folder, "part-0.parquet"))
    >>> cols = read_columns(folder, ["y", "g"], codes=["g"])
    >>> cols["y"].tolist(), cols["g"].codes.tolist(), cols["g"].labels.tolist()
    ([0, 1, 1], [1, 0, 1], ['a', 'b'])
    """
    columns = list(dict.fromkeys(columns))
    files = source_files(source)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        if len(files) != 1 or _kind(files[0]) != "csv":
            raise ImportError(
                "reading Parquet, directories or globs needs pyarrow: pip install pyarrow"
            ) from None
        batches = text_batches(files[0], columns, batch_rows=batch_rows)
    else:
        batches = iter_batches(source, columns, batch_rows=batch_rows, dictionary=list(codes))
    batches = _counted_batches(batches, source, progress)
    plain = {c: [] for c in columns if c not in codes}
    coders = {c: _DictionaryCoder(c) for c in columns if c in codes}
    seen = {c: set() for c in binary}
    last = files[-1]
    for path, batch in batches:
        last = path
        for c, values in batch.items():
            if c in coders:
                coders[c].add(values, path)
                continue
            array = values if isinstance(values, np.ndarray) else _to_numpy(values)
            if c in complete:
                _check_complete(array, c, path)
            if c in seen:
                _check_binary(array, c, path, seen[c])
            plain[c].append(array)
    out = {}
    for c in columns:
        if c in coders:
            out[c] = coders[c].result(last)
        else:
            parts = plain[c]
            out[c] = np.concatenate(parts) if len(parts) != 1 else parts[0]
    return out


def _counted_batches(batches: Iterator, source, progress: Any = None) -> Iterator:
    """`batches` as they come, advancing a progress bar by each batch's rows.

    `progress` is a tqdm-like factory (:func:`fastfair.audit`'s): its bar is
    ``progress(total=estimate_rows(source), desc="reading")`` (exact for Parquet, estimated
    from the file sizes for CSV) and is closed when the batches end or the reading stops.

    Parameters
    ----------
    batches : iterator of (file, batch)
        As :func:`iter_batches` yields them.
    source : str or os.PathLike
        Where they come from (for the total).
    progress : callable, optional
        The bar factory (None: the batches unchanged).

    Yields
    ------
    file : str
    batch : dict of str to array

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.engines.files import _counted_batches, text_batches
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y\\n" + "1\\n" * 5)
    >>> batches = text_batches(path, ["y"], batch_rows=2)
    >>> [len(b["y"]) for _, b in _counted_batches(batches, path)]
    [2, 2, 1]
    """
    if progress is None:
        yield from batches
        return
    bar = progress(total=estimate_rows(source), desc="reading")
    try:
        for path, batch in batches:
            yield path, batch
            bar.update(len(next(iter(batch.values()))))
    finally:
        bar.close()


def _to_numpy(values) -> np.ndarray:
    """An Arrow array as numpy: nulls become NaN in numbers (refused later by the tests)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if values.null_count and (
        pa.types.is_integer(values.type) or pa.types.is_boolean(values.type)
    ):
        values = pc.cast(values, pa.float64())
    if values.null_count and pa.types.is_floating(values.type):
        values = pc.fill_null(values, float("nan"))
    return values.to_numpy(zero_copy_only=False)


def _check_complete(array: np.ndarray, name: str, path: str) -> None:
    if array.dtype.kind == "f":
        missing = int(np.isnan(array).sum())
    elif array.dtype.kind == "O":
        missing = sum(1 for v in array.tolist() if v is None)
    else:
        return
    if missing:
        raise ValueError(
            f"{path}: column {name!r} contains missing values (null/NaN) in {missing:,} "
            f"row{'s' * (missing != 1)} of a batch; drop or fill those rows"
        )


def _check_binary(array: np.ndarray, name: str, path: str, seen: set) -> None:
    """Refuse a third distinct value of a binary column, naming the file it appeared in."""
    if array.dtype.kind in "biuf" and len(array):
        lo, hi = array.min(), array.max()
        if ((array == lo) | (array == hi)).all():
            seen.update({lo.item(), hi.item()})
        else:  # at least three distinct values here
            seen.update(np.unique(array)[:3].tolist())
    else:
        seen.update(set(array.tolist()))
    if len(seen) > 2:
        shown = ", ".join(repr(v) for v in sorted(seen, key=repr)[:5])
        raise ValueError(f"{path}: column {name!r} must be binary; values seen so far: {shown}")


class _DictionaryCoder:
    """Codes a text column batch by batch into one dictionary, then sorts the labels.

    Numeric and boolean group columns are kept as numbers and coded at the end by
    :func:`fastfair._validation.as_groups` (a table lookup), with its rules.
    """

    def __init__(self, name: str):
        self.name = name
        self.index: dict = {}  # label -> code in order of first appearance
        self.parts: list[np.ndarray] = []
        self.numeric: list[np.ndarray] = []

    def add(self, values, path: str) -> None:
        """One batch: an Arrow array, or a numpy array (the readers without pyarrow)."""
        if isinstance(values, np.ndarray):
            self._add_numpy(values, path)
            return
        try:
            text = arrow_text(values, f"column {self.name!r}")
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
        if isinstance(text, np.ndarray):
            self.numeric.append(text)
            return
        indices, labels = text
        index = self.index
        local = np.fromiter(
            (index.setdefault(v, len(index)) for v in labels), np.intp, len(labels)
        )
        self.parts.append(np.take(local, indices))

    def _add_numpy(self, values: np.ndarray, path: str) -> None:
        if values.dtype.kind not in "OUS":
            self.numeric.append(values)
            return
        try:
            codes, labels = as_groups(values, self.name, min_groups=1)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
        index = self.index
        local = np.array([index.setdefault(v, len(index)) for v in labels.tolist()], np.intp)
        self.parts.append(np.take(local, codes))

    def result(self, path: str) -> GroupCodes:
        if self.numeric:
            if self.parts:
                raise TypeError(f"{path}: column {self.name!r} is text in some files only")
            values = np.concatenate(self.numeric)
            try:
                return GroupCodes(*as_groups(values, self.name, min_groups=1))
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from exc
        labels = np.empty(len(self.index), dtype=object)
        labels[:] = list(self.index)
        try:
            check_label_values(
                labels, self.name, lambda k: int(sum((p == k).sum() for p in self.parts))
            )
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
        labels, rank = sort_labels(labels)
        codes = np.empty(sum(len(p) for p in self.parts), dtype=np.intp)
        start = 0
        for p in self.parts:
            np.take(rank, p, out=codes[start : start + len(p)])
            start += len(p)
        self.parts = []
        return GroupCodes(codes, labels)


def text_batches(
    path: str | os.PathLike, columns: Sequence[str], *, batch_rows: int = BATCH_ROWS
) -> Iterator[tuple[str, dict]]:
    """Yield (file, {column: numpy array}) batches of one CSV file, without pyarrow.

    pandas' C parser (``read_csv`` with ``chunksize``) when pandas is installed, else
    numpy's C parser (``numpy.loadtxt``) on blocks of `batch_rows` lines: never Python's csv
    module row by row, and memory bounded by the batch. The delimiter (``,`` ``;`` tab
    ``|``) is taken from the header line, a ``sep=X`` first line is honoured, a UTF-8 BOM
    removed. Columns come back as float64 where every present value is a number (missing
    cells: empty, NA, N/A, #N/A, NaN, null, None, as NaN), else as text.

    Parameters
    ----------
    path : str or os.PathLike
        One CSV file.
    columns : sequence of str
        The columns to read.
    batch_rows : int
        Rows per batch (at most).

    Yields
    ------
    file : str
        `path`.
    batch : dict of str to numpy.ndarray
        The batch's columns.

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.io import text_batches
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y;g;unused\\n1;a;x\\n0;b;y\\n1;b;z\\n")
    >>> [b["g"].tolist() for _, b in text_batches(path, ["y", "g"], batch_rows=2)]
    [['a', 'b'], ['b']]
    """
    path = os.fspath(path)
    delimiter, skip, header = _csv_layout(path)
    absent = [c for c in columns if c not in header]
    if absent:
        raise ValueError(f"{path}: no column {absent[0]!r}; available: {', '.join(header)}")
    try:
        import pandas as pd
    except ImportError:
        yield from _numpy_batches(path, header, columns, delimiter, skip + 1, batch_rows)
        return
    reader = pd.read_csv(
        path, sep=delimiter, usecols=list(columns), skiprows=skip, chunksize=batch_rows,
        keep_default_na=False, na_values=_MISSING, skipinitialspace=True,
        encoding="utf-8-sig",
    )  # fmt: skip
    try:
        for chunk in reader:
            yield path, {c: _number_or_text(chunk[c].to_numpy()) for c in columns}
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"cannot read {path} as CSV: {exc}") from exc


def _csv_layout(path: str) -> tuple[str, int, list[str]]:
    """(delimiter, lines before the header: 1 after a ``sep=X`` line else 0, column names)
    of a CSV file, from its first lines (fastfair._textfile.detect_delimiter)."""
    import csv

    from fastfair._textfile import detect_delimiter

    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
            delimiter, rest = detect_delimiter(first)
            skip = 1 if rest != first else 0
            header_line = fh.readline() if skip else first
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path} as UTF-8 CSV: {exc}") from exc
    header = [h.strip() for h in next(csv.reader([header_line], delimiter=delimiter), [])]
    return delimiter, skip, header


#: Missing-cell spellings (fastfair._textfile.MISSING_TOKENS, in the usual cases).
_MISSING = ["", "NA", "N/A", "#N/A", "NaN", "nan", "null", "NULL", "None", "none", "na", "n/a"]


def _numpy_batches(path, header, columns, delimiter, skip, batch_rows):
    """Blocks of lines parsed by numpy.loadtxt (no pandas, no pyarrow)."""
    import itertools

    where = [header.index(c) for c in columns]
    with open(path, encoding="utf-8-sig", newline="") as fh:
        for _ in range(skip):
            fh.readline()
        while True:
            lines = [x for x in itertools.islice(fh, batch_rows) if x.strip()]
            if not lines:
                return
            try:
                cells = np.loadtxt(
                    lines, delimiter=delimiter, dtype=str, comments=None, usecols=where,
                    ndmin=2, quotechar='"',
                )  # fmt: skip
            except ValueError as exc:
                raise ValueError(f"cannot read {path} as CSV: {exc}") from exc
            yield path, {c: _number_or_text(cells[:, j]) for j, c in enumerate(columns)}


def _number_or_text(values: np.ndarray) -> np.ndarray:
    """float64 (missing cells NaN) when every present cell is a number, else text (object,
    stripped; missing cells kept as their text, refused later where a value is needed)."""
    if values.dtype.kind in "biuf":
        return values
    absent = np.zeros(len(values), dtype=bool)
    if values.dtype.kind == "O":  # pandas: NaN (or None) where a cell was missing
        absent = np.asarray(values != values) | np.asarray(np.equal(values, None))
    text = np.char.strip(np.where(absent, "", values).astype(str))
    lowered = np.char.lower(text)
    missing = absent | np.isin(lowered, [m.lower() for m in _MISSING])
    if not missing.any() and np.isin(lowered, ["true", "false"]).all():
        return lowered == "true"
    out = np.full(len(text), np.nan)
    try:
        out[~missing] = text[~missing].astype(np.float64)
    except ValueError:
        labels = text.astype(object)
        labels[missing] = None
        return labels
    return out


# --------------------------------------------------------------------------------------
# A small file read whole (the command line's reader): every quirk of fastfair._textfile.


def parse_text(
    raw: bytes, path: str, names: Sequence[str] | None = None
) -> tuple[list[str], list[np.ndarray]]:
    """The column names and columns of a delimited text file's bytes, read whole.

    The quirks of files exported by spreadsheets and databases (a byte-order mark, a
    ``sep=;`` line, ``;``/tab/``|`` delimiters, blank lines, quoted numbers, missing-cell
    spellings, TRUE/FALSE) are handled, or refused, as listed in docs/cli.md.

    Parameters
    ----------
    raw : bytes
        The file's content.
    path : str
        The file's name, for messages.
    names : sequence of str, optional
        The column names of a file without a header row (every row is then data).

    Returns
    -------
    header : list of str
        The column names, in file order (repeated names kept).
    columns : list of numpy.ndarray
        One a name: float64 where every present cell is a number (missing cells NaN),
        bool for TRUE/FALSE, else text (object).

    Raises
    ------
    ValueError
        Text that is not UTF-8 (or UTF-16 with a BOM), rows of a different length, decimal
        commas or thousands separators; the message names `path` and the line or column.

    Examples
    --------
    >>> from fastfair.io import parse_text
    >>> header, columns = parse_text(b"y;score\\n1;0.5\\n0;NA\\n", "x.csv")
    >>> header, columns[1].tolist()
    (['y', 'score'], [0.5, nan])
    """
    from fastfair import _textfile

    text = _textfile.decode_text(raw, path)
    delimiter, text = _textfile.detect_delimiter(text)
    header, body = _textfile.split_records(text, delimiter, path, names)
    return header, [_textfile.parse_column([r[j] for r in body], n) for j, n in enumerate(header)]


def missing_cells(values: np.ndarray) -> np.ndarray:
    """Where a column read by :func:`parse_text` has a missing cell (a bool mask).

    Parameters
    ----------
    values : numpy.ndarray
        A column of :func:`parse_text`: float64 (missing cells NaN), bool, or text.

    Returns
    -------
    numpy.ndarray
        Bool mask, True where the cell is missing.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.io import missing_cells
    >>> missing_cells(np.array([0.5, np.nan])).tolist()
    [False, True]
    >>> missing_cells(np.array(["a", None, "NA"], dtype=object)).tolist()
    [False, True, True]
    """
    from fastfair._textfile import missing_cells as mask

    return mask(values)


def check_binary(
    values: ArrayLike,
    what: str,
    pos_label: Any = None,
    require_pos: bool = True,
    pos_name: str = "pos_label",
) -> None:
    """Refuse a label or prediction column that ``fastfair.audit`` would refuse.

    Two values at most: bool, {0, 1}, {-1, 1}, or any two with `pos_label` naming the
    positive one (which must occur unless `require_pos` is False). Messages name the
    column `what` and the option `pos_name` (the command line's ``--pos-label``).

    Parameters
    ----------
    values : array-like
        The column.
    what : str
        The column's description in messages, e.g. ``"label column 'y'"``.
    pos_label : scalar, optional
        The positive value.
    require_pos : bool, default True
        Whether `pos_label` must occur in the column.
    pos_name : str, default "pos_label"
        The option's name in messages.

    Returns
    -------
    None

    Raises
    ------
    ValueError or TypeError
        A column that is not binary, or a `pos_label` that does not occur in it.

    Examples
    --------
    >>> from fastfair.io import check_binary
    >>> check_binary(["yes", "no"], "label column 'y'", pos_label="yes")
    >>> check_binary([0, 1, 2], "label column 'y'")
    Traceback (most recent call last):
    ...
    ValueError: label column 'y' must be binary, got 3 distinct values (0, 1, 2)
    """
    as_binary(values, what, pos_label, require_pos, pos_name=pos_name)


def check_threshold(scores: np.ndarray, threshold: float | None, what: str, option: str) -> float:
    """The threshold that turns `scores` into predictions (``scores >= threshold``).

    None means 0.5 for scores in [0, 1]; scores outside [0, 1] need a threshold: a
    ValueError naming the scores `what` and the `option` that sets it.

    Parameters
    ----------
    scores : numpy.ndarray
        The score column.
    threshold : float or None
        The threshold given, or None.
    what : str
        The scores' description in messages.
    option : str
        The option that sets the threshold, for messages.

    Returns
    -------
    float
        The threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.io import check_threshold
    >>> check_threshold(np.array([0.2, 0.9]), None, "score column 's'", "--threshold")
    0.5
    >>> check_threshold(np.array([1.0, 7.0]), None, "score column 's'", "--threshold")
    Traceback (most recent call last):
    ...
    ValueError: score column 's' ...
    """
    return score_threshold(scores, threshold, what, option)
