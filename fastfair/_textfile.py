"""Delimited text files as spreadsheets and databases export them.

Each quirk is handled, or refused with a message naming the file, the column or the line, by
one small function, so that any reader (Python's csv module today, a faster one tomorrow)
can apply the same rules:

===============================  =====================================================
quirk                            rule
===============================  =====================================================
UTF-8 byte-order mark (Excel)    removed (:func:`decode_text`)
UTF-16 with BOM ("Unicode text") decoded (:func:`decode_text`)
other encodings (Latin-1 ...)    refused: "not UTF-8 text", with the offending byte
``sep=;`` first line (Excel)     used as the delimiter, then skipped
``;``, tab or ``|`` delimiters   detected from the header line (:func:`detect_delimiter`)
CRLF or CR line ends             handled by the csv module (``newline=""``)
blank lines, rows of empty cells skipped (:func:`split_records`)
trailing delimiter               the empty, unnamed last column is dropped
no header row                    the names given instead (``--no-header --names``)
duplicate column names           kept: the reader keeps one copy when they are equal,
                                 and refuses to use a name whose copies differ
rows with a different length     refused, naming the first such line
spaces around names and values   removed
quoted numbers ``"0.5"``         numbers (the quotes are CSV syntax)
missing cells                    ``""``, NA, N/A, #N/A, NaN, null, NULL, None:
                                 NaN in numeric columns, kept as text otherwise, and
                                 reported by :func:`missing_cells`
TRUE/FALSE, true/false           booleans
``1,234`` or ``0,75``            refused: thousands separators / decimal commas are
                                 ambiguous; export with '.' and no separators
===============================  =====================================================
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

__all__ = [
    "MISSING_TOKENS",
    "decode_text",
    "detect_delimiter",
    "missing_cells",
    "parse_column",
    "split_records",
]

MISSING_TOKENS = frozenset(["", "na", "n/a", "#n/a", "nan", "null", "none"])
_DELIMITERS = (",", ";", "\t", "|")
_COMMA_NUMBER = re.compile(r"^[+-]?\d+(,\d+)+(\.\d*)?$|^[+-]?\d*,\d+$")
_BOOLEANS = {"true": True, "false": False}


def decode_text(raw: bytes, path: str) -> str:
    """The text of a file: UTF-8 (BOM removed) or UTF-16 with a BOM; else ValueError."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path} starts like UTF-16 but is not valid UTF-16") from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); "
            "save it as UTF-8 (CSV UTF-8 in Excel)"
        ) from exc


def detect_delimiter(text: str) -> tuple[str, str]:
    """(delimiter, text without an Excel ``sep=X`` line) from the header line.

    The delimiter is the candidate (``,`` ``;`` tab ``|``) occurring most often in the
    header outside quotes; a comma when there is none (a one-column file).
    """
    first = re.match(r"[^\r\n]*(?:\r\n|\r|\n)?", text).group(0)  # LF, CRLF or CR ends
    head = first.rstrip("\r\n")
    if head.lower().startswith("sep=") and len(head) == 5:
        return head[4], text[len(first) :]
    unquoted = re.sub(r'"[^"]*"', "", head)
    counts = [unquoted.count(d) for d in _DELIMITERS]
    best = max(range(len(_DELIMITERS)), key=lambda i: counts[i])
    return (_DELIMITERS[best] if counts[best] else ","), text


def split_records(
    text: str, delimiter: str, path: str, names: list[str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """Header and data rows; blank rows skipped; a trailing-delimiter column dropped.

    With `names` (a file without a header row) every row is data and `names` is the header.
    The header may repeat a name (the reader decides what to do with the copies). Raises
    ValueError for rows whose length differs from the header's (naming the first such line).
    """
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise ValueError(f"cannot read {path} as CSV: {exc}") from exc
    numbered = [
        (i + 1, [c.strip() for c in r]) for i, r in enumerate(records) if any(c.strip() for c in r)
    ]
    if not numbered:
        raise ValueError(f"cannot read {path} as CSV: it is empty")
    if names is None:
        (_, header), body = numbered[0], numbered[1:]
        if not body:
            raise ValueError(f"cannot read {path} as CSV: no data rows after the header")
    else:
        header, body = list(names), numbered
    width = len(header)
    if header[-1] == "" and all(len(r) == width and r[-1] == "" for _, r in body):
        header, body = header[:-1], [(i, r[:-1]) for i, r in body]
        width -= 1
    if names is not None and all(len(r) == width + 1 and r[-1] == "" for _, r in body):
        body = [(i, r[:-1]) for i, r in body]  # a trailing delimiter on every line
    which = "the header has" if names is None else "--names gives"
    for line, r in body:
        if len(r) != width:
            raise ValueError(
                f"{path}: line {line} has {len(r)} fields, {which} {width} "
                f"(delimiter {delimiter!r})"
            )
    return header, [r for _, r in body]


def parse_column(cells: list[str], name: str) -> np.ndarray:
    """Column values: float64 (missing cells as NaN), bool, or str (missing kept as text).

    Raises ValueError for numbers written with commas (thousands separators or decimal
    commas), which cannot be read without guessing.
    """
    raw = np.array(cells, dtype=str)
    present = [c for c in cells if c.lower() not in MISSING_TOKENS]
    if not present:
        return np.full(len(cells), np.nan)
    lowered = {c.lower() for c in present}
    if lowered <= set(_BOOLEANS) and len(present) == len(cells):
        return np.array([_BOOLEANS[c.lower()] for c in cells], dtype=bool)
    try:
        if len(present) == len(cells):
            return raw.astype(np.float64)
        values = np.array(
            [np.nan if c.lower() in MISSING_TOKENS else float(c) for c in cells], dtype=np.float64
        )
    except ValueError:
        comma = next((c for c in present if _COMMA_NUMBER.match(c)), None)
        if comma is not None:
            raise ValueError(
                f"column {name!r} has numbers written with commas (e.g. {comma!r}); "
                "export numbers with '.' as the decimal mark and no thousands separators"
            ) from None
        return raw
    return values


def missing_cells(values: np.ndarray) -> np.ndarray:
    """Boolean mask of missing entries: NaN/None, or a missing token in a text column."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "OUS":
        return np.array(
            [v is None or (isinstance(v, float) and v != v) or str(v).lower() in MISSING_TOKENS
             for v in values.tolist()],
            dtype=bool,
        )  # fmt: skip
    return np.zeros(len(values), dtype=bool)
