"""Slice discovery: the subgroups nobody named, with valid error control over the search.

:func:`find_slices` compares every conjunction of up to ``max_depth`` feature = level
predicates with its complement on a confusion-matrix rate, with family-wise (max-T over
joint permutations on the cube of counts) or false-discovery-rate control (docs/slices.md).

Layers of this subpackage (each imports only those above it):

* ``results.py``: the result classes and their tables
* ``ingest.py``: options checked once; features coded as levels (numeric ones binned)
* ``statistics.py``: the cube of counts (one row per observed level combination) and the
  lattice of slices read from it
* ``inference.py``: standardized statistics, exact p-values, the joint permutation null
  (compiled ``slice_null``), adjustment and simultaneous intervals
* ``api.py``: ``find_slices`` (ingest -> statistics -> inference) and
  ``find_slices_from_cube`` (an engine's ConfusionCube -> inference)
"""

from fastfair.slices.api import find_slices, find_slices_from_cube
from fastfair.slices.results import FoundSlice, SliceSearchResult

__all__ = ["FoundSlice", "SliceSearchResult", "find_slices", "find_slices_from_cube"]
