"""asv benchmarks of the paired model comparison (issue 30).

Rates: the whole ``compare_models`` from rows (coding, the paired counting pass, the
exact swap enumeration or 9,999 swap permutations from the counts); the peer in the same
run is ``permutation_test`` of one model on the same rows (one count, one exact test).
AUC: ``compare_auc(method="delong")`` (two sorts, the placements, the covariance) against
``delong`` of one model.
"""

import numpy as np

import fastfair


def _rates(n, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n).astype(np.int8)
    y = (rng.random(n) < 0.4).view(np.uint8)
    score = rng.random(n).astype(np.float32)
    a = (score > 0.6).view(np.uint8)
    b = (score + 0.05 * group > 0.6).view(np.uint8)
    return y, a, b, group


class CompareRates:
    params = ([10**5, 10**6, 10**7], ["tpr", "equalized_odds"], ["auto", "permutation"])
    param_names = ["n", "metric", "method"]
    timeout = 300

    def setup(self, n, metric, method):
        self.y, self.a, self.b, self.group = _rates(n)

    def time_compare_models(self, n, metric, method):
        fastfair.compare_models(self.y, self.a, self.b, self.group, metric=metric,
                                method=method, random_state=0)  # fmt: skip

    def time_permutation_test_one_model(self, n, metric, method):
        fastfair.permutation_test(self.y, self.a, self.group, metric=metric)


class CompareAUC:
    params = ([10**4, 10**5, 10**6],)
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        rng = np.random.default_rng(1)
        self.group = rng.integers(0, 2, n)
        self.y = rng.random(n) < 0.3
        noise = rng.normal(size=n)
        self.a = noise + self.y * (1.0 - 0.3 * self.group)
        self.b = noise + self.y * 1.0 + 0.3 * rng.normal(size=n)

    def time_compare_auc_delong(self, n):
        fastfair.compare_auc(self.y, self.a, self.b, self.group, method="delong")

    def time_delong_one_model(self, n):
        fastfair.delong(self.y, self.a, self.group)
