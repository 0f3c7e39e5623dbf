"""The public modules of fastfair: the one list every test that walks the public API uses
(alignment, pickling, probability arguments, signatures; #27). ``tests/test_public_api.py``
fails when a public module of the package is neither here nor in ``NOT_WALKED``."""

#: Modules whose ``__all__`` is the public API (top level, families, data paths, the CLI).
PUBLIC_MODULES = (
    "fastfair",
    "fastfair.auc",
    "fastfair.calibration",
    "fastfair.cli",
    "fastfair.compare",
    "fastfair.dask",
    "fastfair.datasets",
    "fastfair.io",
    "fastfair.monitor",
    "fastfair.parity",
    "fastfair.permutation",
    "fastfair.planning",
    "fastfair.resampling",
    "fastfair.simulate",
    "fastfair.slices",
    "fastfair.stats",
    "fastfair.sweep",
    "fastfair.tolerance",
    "fastfair.wasserstein",
)
#: Public-looking modules the walks leave out, and why.
NOT_WALKED = {
    "fastfair.generic": "deprecated alias of fastfair.resampling (same objects)",
    "fastfair.engines": "its public names are those of fastfair.io, fastfair.stats, fastfair.dask",
    "fastfair.auditing": "its public names are fastfair.audit, AuditResult, AuditTest and "
    "ModelComparisonRow",
    "fastfair.spark": "needs pyspark, a Java runtime and a Spark session; the functions of "
    "fastfair.dask, each checked against the in-memory one in tests/test_spark.py",
}
