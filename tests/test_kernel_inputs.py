"""Kernels check the sizes they are handed before entering nogil code.

A kernel that trusts its inputs writes out of bounds when a caller passes inconsistent
sizes (a segfault, or silently wrong statistics). Swapping the within-outcome stratum sizes
(negatives' counts in the positives' row and vice versa) must raise ValueError.
CI also runs these tests against a build with Cython bounds checks (.ci/alt_build.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from fastfair import _auc
from fastfair import auc as ffauc


def _sorted_two_groups():
    rng = np.random.default_rng(0)
    n = 400
    g = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.1).astype(np.uint8)  # few positives: swapping overflows them
    s = rng.normal(size=n) + y
    order, codes8, y8 = ffauc._sort_rows(y, s, g)
    srt = ffauc._Sorted.build(order, s, y8, codes8)
    return srt, ffauc._strata_sizes(srt, 2, "within_outcome")


def test_consistent_sizes_run():
    srt, sizes = _sorted_two_groups()
    null = _auc.permute_two(srt.packed, srt.n_pos, sizes, True, True, 20, 1, 0, 1)
    assert null.shape == (20,) and np.isfinite(null).all()


@pytest.mark.parametrize("kernel", ["permute_two", "permute"])
def test_swapped_within_outcome_sizes_raise(kernel):
    srt, sizes = _sorted_two_groups()
    swapped = np.ascontiguousarray(sizes[::-1])
    pairs = np.array([[0, 1]], dtype=np.intp)
    with pytest.raises(ValueError, match="sizes"):
        if kernel == "permute_two":
            _auc.permute_two(srt.packed, srt.n_pos, swapped, True, True, 20, 1, 0, 1)
        else:
            _auc.permute(srt.packed, srt.n_pos, swapped, True, pairs, True, 20, 1, 0, 1)
