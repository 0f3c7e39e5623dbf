"""``engine="auto"``: which engine audits a source (memory, arrow or dask).

The memory engine holds the rows; the arrow engine reads record batches into mergeable
summaries on one machine; the dask engine reduces partitions on a cluster. ``auto`` picks
arrow for a source of more than :data:`AUTO_ROWS` rows, the memory engine otherwise.
"""

from __future__ import annotations

__all__ = ["AUTO_ROWS", "ENGINES", "choose_engine"]

ENGINES = ("auto", "memory", "arrow", "dask", "spark")


#: ``--engine auto`` (the default) audits a source of more rows than this with the arrow
#: engine (memory bounded by the batch plus the per-user sort), smaller ones in memory.
AUTO_ROWS = 2_000_000


def choose_engine(source, *, compare: bool = False):
    """(engine, note) for ``--engine auto``: "arrow" for a source of more than
    :data:`AUTO_ROWS` rows (Parquet: exact, from the footers; CSV: estimated from the file
    size), else "memory"; a comparison of two models (`compare`) stays in memory, and
    `note` says why a large source does (None otherwise).

    What changes above the threshold: the report has no threshold sweep and the JSON says
    ``"engine": "arrow"``; every test's result is the memory engine's (the AUC's included:
    its permutation tests run on the compared groups' rows, read back), for every
    attribute and intersection.

    Examples
    --------
    >>> from fastfair.engines import choose_engine
    >>> choose_engine("no-such-file.parquet")  # the memory engine reports a bad source
    ('memory', None)
    """
    try:
        import pyarrow  # noqa: F401

        from fastfair.engines.files import estimate_rows

        rows = estimate_rows(source)
    except (ImportError, ValueError, OSError):  # the memory engine reports a bad source
        return "memory", None
    if rows <= AUTO_ROWS:
        return "memory", None
    if compare:
        return "memory", (
            f"{rows:,} rows audited in memory: --compare needs the memory engine, which "
            "holds the rows (about 30-150 bytes a row)"
        )
    return "arrow", None
