"""asv benchmarks of the exact AUC summaries of untied scores (#28): k sorted runs merged
in one pass (fastfair._runs.merge_placements), against the histogram merge it replaces."""

import numpy as np

from fastfair.stats import ScoreRuns, ScoreStats


def _batches(n, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.uint8)
    g = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    s = 1.0 / (1.0 + np.exp(-(rng.standard_normal(n) + y)))
    return [(y[p], s[p], g[p]) for p in np.array_split(np.arange(n), k)]


class KWayMerge:
    params = ([10**5, 10**6], [1, 10, 100])
    param_names = ["n", "batches"]

    def setup(self, n, batches):
        parts = _batches(n, batches)
        labels = np.arange(3)
        runs = [ScoreRuns.from_codes(y, s, g, labels) for y, s, g in parts]
        self.runs = sum(runs[1:], runs[0])
        self.parts = parts

    def time_merge(self, n, batches):
        # a fresh summary each call: the merge is cached on the object
        type(self.runs)(self.runs.runs).placements()

    def time_sort_runs_and_merge(self, n, batches):
        labels = np.arange(3)
        runs = [ScoreRuns.from_codes(y, s, g, labels) for y, s, g in self.parts]
        sum(runs[1:], runs[0]).placements()

    def peakmem_sort_runs_and_merge(self, n, batches):
        self.time_sort_runs_and_merge(n, batches)


class HistogramMerge:
    """The old path for the same untied scores: each + re-sorts the growing union."""

    params = ([10**5], [1, 10, 100])
    param_names = ["n", "batches"]

    def setup(self, n, batches):
        self.parts = _batches(n, batches)

    def time_histograms_added(self, n, batches):
        stats = [ScoreStats.from_arrays(y, s, g) for y, s, g in self.parts]
        sum(stats[1:], stats[0]).delong()
