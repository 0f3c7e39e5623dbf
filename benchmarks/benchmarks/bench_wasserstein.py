"""asv benchmarks of wasserstein_test (Wasserstein projection test, METHODS.md 4)."""

import numpy as np

from fastfair.wasserstein import wasserstein_test


def _data(n, d, seed=0, shift=0.02):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    a = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    X[:, 0] += shift * a * y
    beta = rng.normal(size=d) / np.sqrt(d)
    return X, y, a, beta


class EndToEnd:
    """Whole test: validation, scores, dual problem(s), plug-in theta, p-value."""

    params = ([10**3, 10**4, 10**5, 10**6], ["equal_opportunity", "equalized_odds"], [1, 2])
    param_names = ["n", "criterion", "n_jobs"]
    timeout = 300

    def setup(self, n, criterion, n_jobs):
        self.X, self.y, self.a, self.beta = _data(n, 20)

    def time_wasserstein_test(self, n, criterion, n_jobs):
        wasserstein_test(self.X, self.y, self.a, self.beta, criterion=criterion, n_jobs=n_jobs)

    def peakmem_wasserstein_test(self, n, criterion, n_jobs):
        wasserstein_test(self.X, self.y, self.a, self.beta, criterion=criterion, n_jobs=n_jobs)


class Unfair:
    """Strong disparity: larger dual optimum, more Newton steps per sample."""

    params = ([10**4, 10**5, 10**6], [0.3, 3.0])
    param_names = ["n", "shift"]
    timeout = 300

    def setup(self, n, shift):
        self.X, self.y, self.a, self.beta = _data(n, 20, shift=shift)
        self.beta = 3.0 * self.beta

    def time_equal_opportunity(self, n, shift):
        wasserstein_test(self.X, self.y, self.a, self.beta)


class FavorableDistribution:
    """Test plus the most favorable distribution (moved samples)."""

    params = [10**4, 10**5, 10**6]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        self.X, self.y, self.a, self.beta = _data(n, 20, shift=0.3)

    def time_with_favorable(self, n):
        wasserstein_test(
            self.X, self.y, self.a, self.beta, criterion="equalized_odds", return_favorable=True
        )
