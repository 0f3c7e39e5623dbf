"""Reading audit columns from files too large to load whole: Parquet and CSV, in batches
(the documented import path of :mod:`fastfair.engines.files`)."""

from fastfair.engines.files import (
    BATCH_ROWS,
    check_columns,
    check_names,
    count_rows,
    estimate_rows,
    iter_batches,
    read_columns,
    source_files,
    text_batches,
)
from fastfair.engines.groups import arrow_text

__all__ = [
    "BATCH_ROWS",
    "arrow_text",
    "check_columns",
    "check_names",
    "count_rows",
    "estimate_rows",
    "iter_batches",
    "read_columns",
    "source_files",
    "text_batches",
]
