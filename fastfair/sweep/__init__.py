r"""Fairness across thresholds: permutation tests of outcome rates at every threshold.

A score s becomes a decision at a threshold t: predicted positive when :math:`s \ge t`
(the one convention of fastfair). The permutation-test paper (DiCiccio et al., KDD 2020,
Sec. 5.1, Figure 2) varies t from 0 to 1 and, at each t, compares the equalized-odds
distances (TPR and FPR gaps between two groups) with the 95th percentile of their
permutation distribution. :func:`threshold_sweep` does this for every threshold at once:

- one pass over the rows puts each in its score bin between consecutive thresholds; each
  group's confusion counts at every threshold are then running sums over the bins, updated
  threshold to threshold (compiled, ``fastfair._sweep``);
- joint permutations of group labels, one per random stream, give at every threshold the
  statistic of the same permuted data (group A's rows per score bin, drawn by splitting the
  bins in halves: one exact hypergeometric draw per threshold, mostly among few rows, so
  O(1) per threshold and permutation): the per-threshold tests (the paper's 1,000
  permutations and 95th percentile), the single-step max-T adjustment over thresholds and a
  simultaneous band;
- or each threshold is tested on its counts exactly as :func:`fastfair.permutation_test`
  tests them (conditional scheme, pooled studentization: exact under equal rates), by the
  same count-level machinery (``method="exact"``).

Layers of this subpackage (each imports only those above it):

* ``results.py``: :class:`ThresholdSweepResult`, its table, plot and HTML section
* ``ingest.py``: options and data, checked and coerced once
* ``statistics.py``: each group's confusion counts at every threshold
* ``inference.py``: critical values on the scales of the statistic and of the gap
* ``api.py``: :func:`threshold_sweep` (ingest -> statistics -> inference)
"""

from fastfair.sweep.api import threshold_sweep
from fastfair.sweep.ingest import SWEEP_METHODS
from fastfair.sweep.results import ThresholdSweepResult, html_section

__all__ = ["ThresholdSweepResult", "html_section", "threshold_sweep"]
