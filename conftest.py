"""pytest configuration: fastfair.dask's doctests need the optional dask extra,
fastfair.spark's the spark extra and a Java runtime; the deprecated alias module
fastfair.generic is not collected."""

import importlib.util
import os
import shutil

# fastfair/generic.py is the deprecated alias of fastfair.resampling: importing it warns
collect_ignore = ["fastfair/generic.py"]
if not importlib.util.find_spec("dask"):
    collect_ignore += ["fastfair/dask.py", "fastfair/engines/dask.py"]
if not importlib.util.find_spec("pyspark") or not (
    shutil.which("java") or os.environ.get("JAVA_HOME")
):
    collect_ignore += ["fastfair/spark.py", "fastfair/engines/spark.py"]
