"""asv benchmarks of the margin tests (issue 17): the exact unconditional test (Chan 1998)
and the AUC margin test.

A small group with rare events against references of several sizes: above 5,000 rows the
tail sums are windowed around the binomial modes (fastfair._margin_tails), so a p-value
grows with about sqrt(n), not n. The interval (about 40 p-values) is what
``tolerance_test``/``equivalence_test`` with method="auto" pay per comparison there.
"""

from fastfair.tolerance import tolerance_test_from_counts


def _counts(n_a, n_b):
    """TN, FP, FN, TP per group: one miss in group A, a miss rate of 0.005 in the reference."""
    miss_b = max(1, n_b // 200)
    return [[0, 0, 1, n_a - 1], [0, 0, miss_b, n_b - miss_b]]


class ExactMargin:
    """One exact p-value and the whole tolerance test (p-value and exact interval)."""

    params = ([(30, 1_000), (30, 10_000), (110, 10_456), (30, 100_000), (300, 100_000)],)
    param_names = ["sizes"]
    timeout = 300

    def setup(self, sizes):
        self.counts = _counts(*sizes)

    def time_pvalue(self, sizes):
        from fastfair._unconditional import exact_pvalue

        (_, _, fn_a, tp_a), (_, _, fn_b, tp_b) = self.counts
        exact_pvalue(fn_a, fn_a + tp_a, fn_b, fn_b + tp_b, 0.0, "greater")

    def time_tolerance_test(self, sizes):
        tolerance_test_from_counts(self.counts, metric="fnr", u_tol=0.01, method="exact")


class AUCMargin:
    """The AUC tolerance test on rows (DeLong, then the MOVER statistic and its interval):
    the default "hybrid" (Newcombe's interval for the group below 100 per class: a quartic's
    roots per bisection step) against "logit-t" alone, a small group against a large one."""

    params = ([(200, 2_000), (2_000, 20_000), (20_000, 200_000)], ["hybrid", "logit-t"])
    param_names = ["sizes", "method"]
    timeout = 300

    def setup(self, sizes, method):
        import numpy as np

        rng = np.random.default_rng(0)
        n_a, n_b = sizes
        self.group = np.repeat([0, 1], [n_a, n_b])
        # group A: 10% positives (20 at the smallest size, so hybrid widens it there)
        self.y = rng.random(n_a + n_b) < np.where(self.group == 0, 0.1, 0.3)
        self.score = rng.standard_normal(n_a + n_b) + 2.0 * self.y

    def time_tolerance_test(self, sizes, method):
        import warnings

        from fastfair import tolerance_test

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # logit-t warns below 100 per class
            tolerance_test(self.y, self.score, self.group, metric="auc", u_tol=0.02,
                           reference=1, method=method)  # fmt: skip
