"""The engines: rows to mergeable summaries, batch by batch or partition by partition.

An engine reads the audit's columns and reduces them to summaries that add (``a + b``), so
the tests of the whole data need only the sum: the memory engine holds the rows, the arrow
engine reads record batches of files on one machine (:mod:`fastfair.engines.arrow`), the
dask engine reduces partitions on a cluster (:mod:`fastfair.engines.dask`). No engine runs
inference: the summaries' ``.test()`` and the audit call each method's own code.

Modules, in the order data flow through them:

- :mod:`~fastfair.engines.groups`: the one group coder (batches, intersections, merges);
- :mod:`~fastfair.engines.files`: sources, column checks, row counts, record batches
  (public path :mod:`fastfair.io`);
- :mod:`~fastfair.engines.summaries`: :class:`ConfusionStats`, :class:`ScoreStats`,
  :class:`ScoreRuns` and :class:`PlacementSums` (exact AUC of any scores),
  :class:`MeanStats` (public path :mod:`fastfair.stats`);
- :mod:`~fastfair.engines.cube`: :class:`ConfusionCube`, the confusion counts of every
  combination of several attributes' levels, from one pass (public path :mod:`fastfair.stats`);
- :mod:`~fastfair.engines.attributes`: the audit's :class:`AuditSummary` of several
  attributes and their intersections, from one pass;
- :mod:`~fastfair.engines.clusters`: the rows grouped by user for the kernel passes;
- :mod:`~fastfair.engines.arrow`, :mod:`~fastfair.engines.dask` (public path
  :mod:`fastfair.dask`): the two out-of-core engines;
- :mod:`~fastfair.engines.choose`: ``engine="auto"``.
"""

from fastfair.engines import summaries
from fastfair.engines.attributes import AuditSummary
from fastfair.engines.choose import AUTO_ROWS, ENGINES, choose_engine
from fastfair.engines.cube import ConfusionCube
from fastfair.engines.summaries import *  # noqa: F403

__all__ = [
    "AUTO_ROWS",
    "ENGINES",
    "AuditSummary",
    "ConfusionCube",
    "choose_engine",
    *summaries.__all__,  # the summaries, also fastfair.stats's
]
