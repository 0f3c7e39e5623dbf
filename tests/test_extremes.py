"""Extreme values give answers or clear errors, never numbers that read as answers (#26).

Counts near the int64 limit, values whose squares overflow float64, groups too small for a
variance: each either computes in a form that does not overflow or raises a ValueError
that says what to do.
"""

import numpy as np
import pytest

import fastfair
from fastfair.permutation import MAX_EXACT_POINTS, ExactInfeasibleError

# --------------------------------------------------------------------------------------
# Case 8: the exact test on counts of 2^58 per cell
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["tpr", "selection_rate", "accuracy", "equalized_odds"])
def test_infeasible_exact_test_names_monte_carlo_before_allocating(metric):
    """The support (7e9 points for 2^58 per cell) is refused before it is allocated: it
    was a 55 GiB MemoryError."""
    counts = np.full((2, 4), 2**58, dtype=np.int64)
    with pytest.raises(ExactInfeasibleError, match=r"infeasible.*method='monte_carlo'"):
        fastfair.permutation_test_from_counts(counts, metric=metric, method="exact")
    res = fastfair.permutation_test_from_counts(counts, metric=metric, random_state=0)
    assert res.method == "monte_carlo" and 0 < res.pvalue <= 1  # auto falls back


def test_exact_test_just_inside_the_limit_still_runs():
    """The refusal is at the documented MAX_EXACT_POINTS, not below it: a window of about
    a million points (m = 2.5e10 per cell) is still enumerated."""
    counts = np.full((2, 4), 25_000_000_000 // 4, dtype=np.int64)
    counts[0, 3] += 2_000_000  # a TPR gap of 8e-5, 18 standard errors
    res = fastfair.permutation_test_from_counts(counts, metric="tpr", method="exact")
    assert res.method == "exact" and res.pvalue < 1e-12
    assert MAX_EXACT_POINTS == 2_000_000
