"""asv benchmarks of fastfair.parity: clustered Nadaraya-Watson curves and tests.

Sizes: n rows from n / 10 users (about 10 rows each, unsorted), two groups, 50 grid
points, default (undersmoothed rule-of-thumb) bandwidth. The target of issue 6 is
n = 10^7 (10^6 users): curve and test under 3 s on 2 cores.
"""

import numpy as np

from fastfair import _kernel_sums
from fastfair.parity import calibration_curve, predictive_parity_test


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    n_users = max(n // 10, 2)
    user = rng.integers(0, n_users, n)
    group = user % 2
    centre = rng.beta(2, 2, n_users)
    score = np.clip(centre[user] + rng.normal(0, 0.1, n), 0.0, 1.0)
    y = (rng.random(n) < score).astype(np.float64)
    return y, score, group, user


class ClusteredCurve:
    params = ([10**5, 10**6, 10**7], [1, 2])
    param_names = ["n", "n_jobs"]
    timeout = 600

    def setup(self, n, n_jobs):
        self.y, self.s, self.g, self.u = data(n)

    def time_calibration_curve(self, n, n_jobs):
        calibration_curve(self.y, self.s, self.g, cluster=self.u, n_jobs=n_jobs)

    def time_predictive_parity_test(self, n, n_jobs):
        predictive_parity_test(
            self.y, self.s, self.g, cluster=self.u, n_jobs=n_jobs, random_state=0
        )

    def peakmem_predictive_parity_test(self, n, n_jobs):
        predictive_parity_test(
            self.y, self.s, self.g, cluster=self.u, n_jobs=n_jobs, random_state=0
        )


class KernelPass:
    """The compiled pass alone (rows already grouped by user)."""

    params = ([10**6, 10**7], ["gaussian", "epanechnikov"], [False, True])
    param_names = ["n", "kernel", "covariance"]
    timeout = 600

    def setup(self, n, kernel, covariance):
        y, s, g, u = data(n, 1)
        m = u.max() + 1
        self.s, self.y, self.starts, self.cg, _ = _kernel_sums.sort_by_cluster(u, m, g, s, y)
        self.w = 1.0 / np.maximum(np.diff(self.starts), 1)
        self.grid = np.linspace(0.05, 0.95, 50)
        self.h = 0.9 * 0.2 * (m**-0.25) * (2.214 if kernel == "epanechnikov" else 1.0)

    def time_kernel_sums(self, n, kernel, covariance):
        _kernel_sums.kernel_sums(
            self.s,
            self.y,
            None,
            self.starts,
            self.cg,
            self.w,
            2,
            self.grid,
            self.h,
            kernel,
            covariance,
            2,
        )


class Bandwidth:
    params = ([10**5, 10**6], ["rule_of_thumb", "cv"])
    param_names = ["n", "method"]
    timeout = 600

    def setup(self, n, method):
        self.y, self.s, self.g, self.u = data(n, 2)

    def time_curve_with_bandwidth(self, n, method):
        calibration_curve(self.y, self.s, self.g, cluster=self.u, bandwidth=method)
