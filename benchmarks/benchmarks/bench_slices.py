"""asv benchmarks of fastfair.find_slices (issue 29): the search end to end, and the joint
permutation kernel alone (999 draws on the cube, the dense marginal walk).

Target: 1e7 rows, 8 features of 2-10 levels, depth 3, 999 permutations in < 10 s
(benchmarks/slices_speed.py measures that size; asv keeps to 1e6 rows).
"""

import numpy as np
from fastfair._slices import slice_null_dense

import fastfair
from fastfair.slices import ingest, statistics
from fastfair.slices.inference import rate_parts, standardize

LEVELS = (2, 2, 3, 3, 4, 5, 6, 10)


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    feats = {f"f{k}": rng.integers(0, levels, n) for k, levels in enumerate(LEVELS)}
    y = rng.random(n) < 0.3
    return feats, y, np.where(y, rng.random(n) < 0.7, rng.random(n) < 0.2)


class FindSlices:
    params = ([100_000, 1_000_000],)
    param_names = ["rows"]
    timeout = 600

    def setup(self, rows):
        self.feats, self.y, self.pred = _data(rows)

    def time_find_slices_depth3(self, rows):
        fastfair.find_slices(None, self.y, self.pred, features=self.feats, max_depth=3,
                             n_permutations=999, random_state=0)  # fmt: skip


class NullKernel:
    """999 joint permutations on the cube: hypergeometric draws per cell or a subset draw."""

    params = ([False, True],)
    param_names = ["subset"]
    timeout = 600

    def setup(self, subset):
        feats, y, pred = _data(1_000_000)
        options = ingest.check_options("tpr", 3, 50, 999, "maxT", 0.05, "two-sided", 4, 50,
                                       10**6)  # fmt: skip
        coded = ingest.code_features(feats, options)
        n_levels = [len(x) for x in coded.levels]
        cube = statistics.build_cube(coded.codes, n_levels, y, pred)
        lattice = statistics.enumerate_slices(cube, n_levels, 3)
        succ, units = rate_parts(lattice.counts, 8, 12)
        cell_succ, self.cell_units = rate_parts(cube.counts, 8, 12)
        index = np.arange(units.size)
        self.fam = standardize(index, succ, units, int(cell_succ.sum()),
                               int(self.cell_units.sum()))  # fmt: skip
        tested = np.arange(units.size, dtype=np.int32)
        self.layout = statistics.tree_layout(cube, n_levels, lattice, tested)

    def time_null_999(self, subset):
        fam, lay = self.fam, self.layout
        slice_null_dense(self.cell_units, fam.n_successes, lay.cell_index, lay.levels, 3,
                         lay.leaf_offset, lay.leaf_map, fam.mean, fam.inv_sd,
                         np.abs(fam.statistic), 0, 999, 1, 0, 1, 0, subset)  # fmt: skip
