"""Reading audit columns from files too large to load whole: Parquet and CSV, in batches;
and small text files read whole, with the command line's checks (the documented import path
of :mod:`fastfair.engines.files`)."""

from fastfair.engines.files import (
    BATCH_ROWS,
    check_binary,
    check_columns,
    check_names,
    check_threshold,
    count_rows,
    estimate_rows,
    iter_batches,
    missing_cells,
    parse_text,
    read_columns,
    source_files,
    text_batches,
)
from fastfair.engines.groups import arrow_text

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
