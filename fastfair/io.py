"""Reading audit columns from files too large to load whole: Parquet and CSV, in batches;
and small text files read whole, with the command line's checks (the documented import path
of :mod:`fastfair.engines.files`)."""

from fastfair.engines.files import *  # noqa: F403
from fastfair.engines.files import __all__  # noqa: F401 (the reader's public names)
