"""asv benchmarks of fastfair.calibration: group calibration, ECE and MSCE.

Sizes: n rows, two groups, Beta(2, 2) scores with group 1 miscalibrated by +0.15; the
clustered variant has n / 10 users. Targets of issue 7: GroupCalibrator fit on 10^7 rows
and transform of 10^7 scores in a few seconds on 2 cores; MSCE at n = 10^6 without the
naive quadratic sweep.
"""

import numpy as np

from fastfair.calibration import GroupCalibrator, ece, msce


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, max(n // 10, 2), n)
    group = user % 2
    score = rng.beta(2, 2, n)
    y = (rng.random(n) < np.clip(score + 0.15 * group, 0, 1)).astype(np.float64)
    return y, score, group, user


class GroupCalibration:
    params = ([10**5, 10**6, 10**7], [1, 2])
    param_names = ["n", "n_jobs"]
    timeout = 600

    def setup(self, n, n_jobs):
        self.y, self.s, self.g, self.u = _data(n)
        self.cal = GroupCalibrator(n_jobs=n_jobs).fit(self.s, self.y, self.g)

    def time_fit(self, n, n_jobs):
        GroupCalibrator(n_jobs=n_jobs).fit(self.s, self.y, self.g)

    def time_fit_clustered(self, n, n_jobs):
        GroupCalibrator(n_jobs=n_jobs).fit(self.s, self.y, self.g, self.u)

    def time_transform(self, n, n_jobs):
        self.cal.transform(self.s, self.g)

    def peakmem_fit(self, n, n_jobs):
        GroupCalibrator(n_jobs=n_jobs).fit(self.s, self.y, self.g)


class AlternativeCalibrators:
    params = ([10**5, 10**6], ["platt", "isotonic"])
    param_names = ["n", "method"]
    timeout = 300

    def setup(self, n, method):
        self.y, self.s, self.g, _ = _data(n)

    def time_fit(self, n, method):
        GroupCalibrator(method).fit(self.s, self.y, self.g)


class CalibrationErrors:
    params = [10**4, 10**5, 10**6]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        self.y, self.s, _, _ = _data(n)

    def time_ece_equal_mass(self, n):
        ece(self.y, self.s)

    def time_msce(self, n):
        msce(self.y, self.s)
