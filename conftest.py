"""pytest configuration: fastfair.dask's doctests need the optional dask extra."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("dask") else ["fastfair/dask.py"]
