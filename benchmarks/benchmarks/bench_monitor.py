"""asv benchmarks of fastfair.FairnessMonitor (issue 31): one update from rows or counts.

Targets: an update from a 10^6-row batch under 50 ms; from counts under 1 ms per metric and
comparison. "first" is the monitor's first batch (cut into blocks no larger than the rows
seen: about ten blocks on the whole grid of ~2,000 gap lines), "next" a batch after 10^6 rows
(one block; only the lines around the open part of the sequence are evaluated). The peer is
the counting pass alone (``ConfusionStats.from_arrays``), which any update pays.
"""

import numpy as np

from fastfair.monitor import FairnessMonitor
from fastfair.stats import ConfusionStats


def _rows(n, seed):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    y = rng.random(n) < 0.3
    return y, rng.random(n) < np.where(group == 1, 0.45, 0.4), group


class UpdateRows:
    """A batch of rows: the first one, the next one, and the counting pass alone."""

    params = ([10_000, 1_000_000],)
    param_names = ["rows"]
    timeout = 300

    def setup(self, rows):
        self.batch = _rows(rows, 1)
        self.warm = FairnessMonitor(reference=0).update(*_rows(1_000_000, 0))
        self.state = self.warm.to_json()

    def time_first_update(self, rows):
        FairnessMonitor(reference=0).update(*self.batch)

    def time_next_update(self, rows):
        FairnessMonitor.from_json(self.state).update(*self.batch)

    def time_counting_only(self, rows):
        ConfusionStats.from_arrays(*self.batch)


class UpdateCounts:
    """One block of counts, for 1 metric x 1 comparison up to 5 metrics x 4 comparisons."""

    params = ([(1, 2), (3, 2), (5, 5)], ["early", "late"])
    param_names = ["metrics_groups", "when"]
    timeout = 300

    def setup(self, metrics_groups, when):
        n_metrics, n_groups = metrics_groups
        metrics = ["tpr", "fpr", "selection_rate", "ppv", "accuracy"][:n_metrics]
        self.groups = list(range(n_groups))
        self.counts = np.tile([[300, 100, 60, 140]], (n_groups, 1))
        self.monitor = FairnessMonitor(metrics, reference=0)
        for _ in range(1 if when == "early" else 200):
            self.monitor.update_from_counts(self.counts, self.groups)
        self.state = self.monitor.to_json()

    def time_update_from_counts(self, metrics_groups, when):
        self.monitor.update_from_counts(self.counts, self.groups)
