"""asv benchmarks of fastfair.resampling: difference of means, correlation, callable metrics.

Target of issue 4: the built-in difference of means at n = 10^6 with 10^4 permutations in
under 5 s on 2 cores (time_mean_difference_10000_permutations, n = 10^6, n_jobs = 2).
"""

import numpy as np

import fastfair
from fastfair.resampling import correlation_test, mean_difference_test


def _data(n, minority, seed=0):
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < minority).astype(np.int64)
    y = rng.normal(size=n)
    pred = y + rng.normal(0.02 * group, 1.0 + 0.2 * group)
    return y, pred, group


class MeanDifference:
    params = ([10**4, 10**5, 10**6], [0.5, 0.1], [1, 2])
    param_names = ["n", "minority", "n_jobs"]
    timeout = 300

    def setup(self, n, minority, n_jobs):
        y, pred, self.group = _data(n, minority)
        self.residual = y - pred

    def time_mean_difference_10000_permutations(self, n, minority, n_jobs):
        mean_difference_test(
            self.residual, self.group, n_permutations=10_000, random_state=0, n_jobs=n_jobs
        )


class RowMetric:
    params = ([10**4, 10**6], ["mse", "mae"])
    param_names = ["n", "metric"]
    timeout = 300

    def setup(self, n, metric):
        self.y, self.pred, self.group = _data(n, 0.3, 1)

    def time_row_metric_1000_permutations(self, n, metric):
        fastfair.permutation_test(
            self.y, self.pred, self.group, metric=metric, n_permutations=1000, random_state=0
        )


class Correlation:
    params = ([2000, 10**5], [True, False], [1, 2])
    param_names = ["n", "studentize", "n_jobs"]

    def setup(self, n, studentize, n_jobs):
        rng = np.random.default_rng(2)
        self.x = rng.uniform(1e-5, 1, n)
        self.e = rng.normal(size=n) / self.x**2

    def time_correlation_1000_permutations(self, n, studentize, n_jobs):
        correlation_test(
            self.x,
            self.e,
            studentize=studentize,
            n_permutations=1000,
            random_state=0,
            n_jobs=n_jobs,
        )


def _mse(y_true, y_pred):
    return float(np.mean((y_true - y_pred) ** 2))


def _mse_vectorized(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2, axis=-1)


class CallableMetric:
    params = ([1000, 10**5], [False, True], [False, "bootstrap-fast"])
    param_names = ["n", "vectorized", "studentize"]
    timeout = 300

    def setup(self, n, vectorized, studentize):
        self.y, self.pred, self.group = _data(n, 0.3, 3)
        self.metric = _mse_vectorized if vectorized else _mse

    def time_callable_1000_permutations(self, n, vectorized, studentize):
        fastfair.permutation_test(
            self.y,
            self.pred,
            self.group,
            metric=self.metric,
            vectorized=vectorized,
            studentize=studentize,
            n_permutations=1000,
            n_bootstrap=200,
            random_state=0,
        )


class FullAlgorithm1:
    params = [1000, 10**4]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        self.y, self.pred, self.group = _data(n, 0.3, 4)

    def time_bootstrap_inside_200_permutations_x_100(self, n):
        fastfair.permutation_test(
            self.y,
            self.pred,
            self.group,
            metric=_mse_vectorized,
            vectorized=True,
            studentize="bootstrap",
            n_permutations=200,
            n_bootstrap=100,
            random_state=0,
        )


class SequentialStopping:
    """The sequential driver on cheap kernels: how much the block schedule costs."""

    params = ([0.0, 0.3], ["mean_difference", "correlation"])
    param_names = ["effect", "test"]

    def setup(self, effect, test):
        rng = np.random.default_rng(5)
        n = 10**4
        self.g = rng.integers(0, 2, n)
        self.v = rng.normal(size=n) + effect * self.g
        self.x = rng.normal(size=n)

    def time_default_sequential(self, effect, test):
        import fastfair

        if test == "mean_difference":
            fastfair.mean_difference_test(self.v, self.g, random_state=0)
        else:
            fastfair.correlation_test(self.x, self.v + effect * self.x, random_state=0)
