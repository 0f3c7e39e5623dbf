"""asv benchmarks of permutation_test (confusion-matrix metrics)."""

import numpy as np

import fastfair


def _data(n, seed=0, n_groups=2):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n).astype(np.int32)
    y_true = rng.random(n) < 0.3
    y_pred = np.where(y_true, rng.random(n) < 0.8, rng.random(n) < 0.1)
    return y_true, y_pred, group


class ExactEndToEnd:
    """Default test (conditional scheme, exact): counting included."""

    params = ([10**5, 10**6, 10**7], ["tpr", "ppv", "selection_rate", "equalized_odds"])
    param_names = ["n", "metric"]
    timeout = 300

    def setup(self, n, metric):
        self.data = _data(n)

    def time_permutation_test(self, n, metric):
        fastfair.permutation_test(*self.data, metric=metric)


class MonteCarloCounts:
    """Monte-Carlo permutations of cell counts (full scheme), rows counted once."""

    params = ([10**3, 10**4, 10**5], [1, 2])
    param_names = ["n_permutations", "n_jobs"]

    def setup(self, n_permutations, n_jobs):
        self.counts = fastfair.confusion_counts(*_data(10**6))[0]

    def time_full_scheme(self, n_permutations, n_jobs):
        fastfair.permutation_test_from_counts(
            self.counts,
            metric="fnr",
            scheme="full",
            method="monte_carlo",
            n_permutations=n_permutations,
            random_state=0,
            n_jobs=n_jobs,
        )


class MonteCarloRows:
    """End to end at n = 10^7 with 10^5 permutations (full scheme)."""

    params = ([10**6, 10**7],)
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        self.data = _data(n)

    def time_full_scheme_1e5(self, n):
        fastfair.permutation_test(
            *self.data,
            metric="tpr",
            scheme="full",
            method="monte_carlo",
            n_permutations=10**5,
            random_state=0,
        )


class Weighted:
    """Row-level permutations with sample weights, 10^3 permutations."""

    params = ([10**5, 10**6], ["tpr", "selection_rate"], [1, 2])
    param_names = ["n", "metric", "n_jobs"]
    timeout = 300

    def setup(self, n, metric, n_jobs):
        self.data = _data(n)
        self.weight = np.random.default_rng(1).random(n)

    def time_weighted(self, n, metric, n_jobs):
        fastfair.permutation_test(
            *self.data,
            metric=metric,
            sample_weight=self.weight,
            n_permutations=1000,
            random_state=0,
            n_jobs=n_jobs,
        )


class SeveralGroups:
    """Five groups, all pairs, max-T from 10^4 joint permutations."""

    params = ([10**6],)
    param_names = ["n"]

    def setup(self, n):
        self.data = _data(n, n_groups=5)

    def time_all_pairs_maxt(self, n):
        fastfair.permutation_test(
            *self.data,
            metric="fpr",
            comparisons="all",
            adjust="maxT",
            n_permutations=10**4,
            random_state=0,
        )

    def peakmem_all_pairs_maxt(self, n):
        fastfair.permutation_test(
            *self.data,
            metric="fpr",
            comparisons="all",
            adjust="maxT",
            n_permutations=10**4,
            random_state=0,
        )
