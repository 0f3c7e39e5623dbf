"""pytest configuration: fastfair.dask's doctests need the optional dask extra; the
deprecated alias module fastfair.generic is not collected."""

import importlib.util

# fastfair/generic.py is the deprecated alias of fastfair.resampling: importing it warns
collect_ignore = ["fastfair/generic.py"]
if not importlib.util.find_spec("dask"):
    collect_ignore += ["fastfair/dask.py", "fastfair/engines/dask.py"]
