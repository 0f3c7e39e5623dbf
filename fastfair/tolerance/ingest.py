"""Ingest: the options of the tolerance and equivalence tests, checked once."""

from __future__ import annotations

import numpy as np

from fastfair._validation import check_choice, check_level

RATE_METHODS = ("auto", "score", "exact", "farrington-manning", "wald")
#: method="auto" tests a comparison exactly when a group has fewer events or non-events
#: than EXACT_BELOW and the two denominators sum to at most AUTO_MAX_SIZE (with windowed
#: tail sums a p-value then costs ~0.1 s, its interval ~40 p-values). 20, not 10: with 10
#: the level at the boundary reached 0.058 at n = 100 and 1000
#: (validation/results/tolerance_level.txt). 200,000, not 5,000: beyond 5,000 the score
#: test reached 0.14 for 30 rows against 10,000 with rare events
#: (validation/results/tolerance_large_reference.txt).
EXACT_BELOW = 20
AUTO_MAX_SIZE = 200_000
#: AUC margin tests; "auto" is AUC_DEFAULT (validation/results/auc_margin_small.txt)
AUC_METHODS = ("auto", "logit-t", "logit", "delong")
AUC_DEFAULT = "logit-t"
#: AUC margin tests warn (ApproximateLevelWarning) when a group has fewer positives or
#: negatives than this: with 25 per class and an AUC of 0.98 the level reached 0.073
#: (20,000 data sets, validation/results/auc_margin_confirm.txt), with 20 positives 0.059;
#: with 50 per class 0.052.
AUC_WARN_BELOW = 30
ALTERNATIVES = ("two-sided", "greater", "less")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Bisection of the logit MOVER level: z in [-_Z_MAX, _Z_MAX] to 2 * _Z_MAX / 2^48 (3e-13).
_Z_MAX = 40.0
_BISECTION_STEPS = 48


def _check_margin(value, name: str, positive: bool, gap) -> float:
    """u_tol >= 0 or delta > 0; below 1 for rates and AUC (differences of probabilities)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.floating, np.integer)
    ):
        raise TypeError(f"{name} must be a number, got {value!r}")
    v = float(value)
    bounded = gap.counts is not None or gap.metric == "auc"
    if not np.isfinite(v) or v < 0 or (positive and v == 0) or (bounded and v >= 1):
        need = ">= 0" if not positive else "> 0"
        need += " and < 1 (a gap between two probabilities)" if bounded else " and finite"
        raise ValueError(f"{name} must be {need}, got {value!r}")
    return v


def _check_common(alternative, adjust, level, level_name):
    """Options shared by the tests (`comparisons` is checked before the data)."""
    if alternative is not None:
        check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(adjust, "adjust", ADJUSTMENTS)
    return check_level(level, level_name)
