"""asv benchmarks of fastfair.auc: DeLong from one sort, and permutation tests."""

import numpy as np

from fastfair.auc import auc_test, delong


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < 0.4).astype(np.int64)
    y = rng.random(n) < np.where(group == 1, 0.2, 0.5)
    score = rng.normal(size=n) + y * (1.0 - 0.2 * group)
    return y, score, group


class DeLong:
    params = ([10**4, 10**5, 10**6], [False, True])
    param_names = ["n", "ties"]

    def setup(self, n, ties):
        self.y, self.s, self.g = data(n)
        if ties:
            self.s = np.round(self.s, 1)

    def time_delong_two_groups(self, n, ties):
        delong(self.y, self.s, self.g)

    def peakmem_delong_two_groups(self, n, ties):
        delong(self.y, self.s, self.g)


class AUCPermutationTest:
    params = ([10**4, 10**5, 10**6], ["full", "within_outcome"], [1, 2])
    param_names = ["n", "scheme", "n_jobs"]
    timeout = 300

    def setup(self, n, scheme, n_jobs):
        self.y, self.s, self.g = data(n, 1)

    def time_studentized_1000_permutations(self, n, scheme, n_jobs):
        auc_test(
            self.y,
            self.s,
            self.g,
            scheme=scheme,
            n_permutations=1000,
            random_state=0,
            n_jobs=n_jobs,
        )


class AUCManyGroups:
    params = ([4, 16], ["holm", "maxT"])
    param_names = ["n_groups", "adjust"]

    def setup(self, n_groups, adjust):
        rng = np.random.default_rng(2)
        n = 10**5
        self.g = rng.integers(0, n_groups, n)
        self.y = rng.random(n) < 0.3
        self.s = rng.normal(size=n) + self.y

    def time_reference_comparisons(self, n_groups, adjust):
        auc_test(
            self.y, self.s, self.g, n_permutations=200, adjust=adjust, random_state=0, n_jobs=1
        )


class AUCSmallGroupPermutations:
    """The three permutation paths (4-decimal scores): sparse (cost of the small group),
    blocks (cost of the tie blocks) and the O(n) sweep."""

    params = ([10**5, 10**6], [0.01, 0.1, 0.5], ["sparse", "blocks", "sweep"])
    param_names = ["n", "share", "path"]
    timeout = 300

    def setup(self, n, share, path):
        from fastfair import _auc
        from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

        rng = np.random.default_rng(3)
        g = (rng.random(n) < share).astype(np.intp)
        y = (rng.random(n) < 0.3).astype(np.uint8)
        s = np.round(rng.normal(size=n) + y, 4)
        order, codes8, y8 = _sort_rows(y, s, g)
        self.srt = _Sorted.build(order, s, y8, codes8)
        self.sizes = _strata_sizes(self.srt, 2, "within_outcome")
        self.tables = _auc.sparse_tables(self.srt.packed, self.srt.n_pos)
        self.auc = _auc

    def time_200_permutations(self, n, share, path):
        args = (self.srt.packed, self.srt.n_pos, self.sizes, True, True, 200, 1, 0, 1, 0)
        if path == "sparse":
            self.auc.permute_two_sparse(*args, self.tables)
        elif path == "blocks":
            self.auc.permute_two(*args, self.tables)
        else:
            self.auc.permute_two(*args)


class AUCSort:
    """The one sort of auc_test / delong (radix sort of index-carrying keys) and np.argsort."""

    params = ([10**6, 10**7], ["sort_order", "argsort"])
    param_names = ["n", "how"]
    timeout = 300

    def setup(self, n, how):
        from fastfair import _auc

        self.s = np.round(np.random.default_rng(5).normal(size=n), 4)
        self.auc = _auc

    def time_sort(self, n, how):
        if how == "sort_order":
            self.auc.sort_order(self.s)
        else:
            np.argsort(self.s)


class AUCSequentialDefault:
    """auc_test with default settings (sequential): a clear gap, no gap."""

    params = ([10**5, 10**6], [0.0, 0.1])
    param_names = ["n", "gap"]
    timeout = 300

    def setup(self, n, gap):
        rng = np.random.default_rng(4)
        self.g = (rng.random(n) < 0.5).astype(np.int64)
        self.y = rng.random(n) < 0.3
        self.s = np.round(rng.normal(size=n) + self.y * (1.0 - gap * self.g), 4)

    def time_auc_test_default(self, n, gap):
        auc_test(self.y, self.s, self.g, random_state=0)


class AUCUntiedSmallGroup:
    """Untied float64 scores, a small group (issue 28): the ranks path (the drawn rows'
    ranks alone) against the O(n) sweep, and auc_test end to end (sort included) against
    the same call on the scores rounded to 4 decimals (the tie-block path)."""

    params = ([10**6, 10**7], [0.01, 0.1])
    param_names = ["n", "share"]
    timeout = 600

    def setup(self, n, share):
        from fastfair import _auc
        from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

        rng = np.random.default_rng(6)
        self.g = (rng.random(n) < share).astype(np.intp)
        self.y = rng.random(n) < 0.3
        self.s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + self.y)))
        self.rounded = np.round(self.s, 4)
        order, codes8, y8 = _sort_rows(self.y.astype(np.uint8), self.s, self.g)
        self.srt = _Sorted.build(order, self.s, y8, codes8)
        self.sizes = _strata_sizes(self.srt, 2, "within_outcome")
        self.table = _auc.rank_tables(self.srt.packed, self.srt.n_pos)
        self.auc = _auc

    def time_ranks_200_permutations(self, n, share):
        args = (self.srt.packed, self.srt.n_pos, self.sizes, True, True, 200, 1, 0, 1, 0)
        self.auc.permute_two_ranks(*args, self.table)

    def time_sweep_20_permutations(self, n, share):
        args = (self.srt.packed, self.srt.n_pos, self.sizes, True, True, 20, 1, 0, 1, 0)
        self.auc.permute_two(*args)

    def time_auc_test_1000_permutations(self, n, share):
        auc_test(self.y, self.s, self.g, n_permutations=1000, random_state=0)

    def time_auc_test_1000_permutations_rounded(self, n, share):
        auc_test(self.y, self.rounded, self.g, n_permutations=1000, random_state=0)

    def peakmem_auc_test_1000_permutations(self, n, share):
        auc_test(self.y, self.s, self.g, n_permutations=1000, random_state=0)
