"""Anytime-valid fairness monitoring: confidence sequences for gaps as the data arrive.

:class:`FairnessMonitor` keeps, for every metric and every group against the reference, a
confidence sequence for the gap that is valid at every update at once (docs/monitoring.md).

Layers of this subpackage (each imports only those above it):

* ``results.py``: the result class, its table, the state error
* ``ingest.py``: options and each batch's columns, checked once
* ``statistics.py``: confusion counts per group (compiled ``cell_sums``) and metric rates
* ``inference.py``: the grid of gaps, the e-values of each block, the sequence's ends
* ``api.py``: the monitor (ingest -> statistics -> inference), its JSON state and plot
"""

from fastfair.monitor.api import FairnessMonitor
from fastfair.monitor.results import MonitorResult, MonitorStateError

__all__ = ["FairnessMonitor", "MonitorResult", "MonitorStateError"]
