"""asv benchmarks of threshold_sweep (fairness across thresholds) and its kernels."""

import numpy as np

import fastfair
from fastfair import _sweep
from fastfair._metrics import get_metric
from fastfair._scipy import special


def data(n, seed=0):
    """(labels, scores, groups): 30% positives, two groups, logistic scores; also used by
    benchmarks/sweep_vs_loop.py."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n).astype(np.int32)
    y = rng.random(n) < 0.3
    score = 1 / (1 + np.exp(-rng.normal(1.5 * y - 1 + 0.1 * group, 1.0)))
    return y, score, group


class SweepEndToEnd:
    """threshold_sweep with its defaults (999 joint permutations), TPR and FPR."""

    params = ([10**5, 10**6, 10**7], [100, 1000], ["monte_carlo", "exact"])
    param_names = ["n", "thresholds", "method"]
    timeout = 300

    def setup(self, n, thresholds, method):
        self.data = data(n)
        self.thr = np.linspace(0.001, 0.999, thresholds)

    def time_threshold_sweep(self, n, thresholds, method):
        fastfair.threshold_sweep(*self.data, thresholds=self.thr, method=method, random_state=0)


class LoopOfPermutationTests:
    """The loop the sweep replaces, on 10 of the thresholds (scale by thresholds / 10)."""

    params = ([10**5, 10**6],)
    param_names = ["n"]

    def setup(self, n):
        self.y, self.score, self.group = data(n)

    def time_ten_thresholds_two_metrics(self, n):
        for t in np.linspace(0.1, 0.9, 10):
            for metric in ("tpr", "fpr"):
                fastfair.permutation_test(self.y, self.score >= t, self.group, metric=metric)


class Kernels:
    """The counting pass and the joint permutations of one metric, one thread."""

    params = ([10**6, 10**7], [100, 1000])
    param_names = ["n", "thresholds"]
    timeout = 300

    def setup(self, n, thresholds):
        y, self.score, group = data(n)
        self.code = (2 * group + y).astype(np.uint8)
        self.thr = np.linspace(0.001, 0.999, thresholds)
        self.above = _sweep.counts_above(self.score, self.code, self.thr, 4, 1)
        self.totals = np.bincount(self.code, minlength=4).reshape(2, 2).astype(np.int64)
        self.num_mask = get_metric("tpr").num_masks[0]
        self.scale, self.offset = np.ones(thresholds), np.zeros(thresholds)
        self.logfact = special.gammaln(np.arange(int(self.totals[:, 1].sum()) + 1) + 1.0)

    def time_counts_above(self, n, thresholds):
        _sweep.counts_above(self.score, self.code, self.thr, 4, 1)

    def time_permute_999(self, n, thresholds):
        _sweep.permute_sweep(
            self.above,
            self.totals,
            2,
            self.num_mask,
            self.scale,
            self.offset,
            0,
            999,
            1,
            0,
            False,
            self.logfact,
            1,
        )
