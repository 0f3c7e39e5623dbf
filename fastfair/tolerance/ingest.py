"""Ingest: the options of the tolerance and equivalence tests, checked once."""

from __future__ import annotations

import numpy as np

from fastfair._validation import check_choice, check_level

RATE_METHODS = ("auto", "score", "exact", "farrington-manning", "wald")
#: method="auto" tests a comparison exactly (auto_exact) when a group has fewer events or non-
#: events than EXACT_BELOW, or fewer than EXACT_BELOW_UNBALANCED and one denominator is at
#: least UNBALANCED_RATIO times the other, and the two denominators sum to at most
#: AUTO_MAX_SIZE or the smaller is at most fastfair._unconditional.SMALL_GROUP_MAX (500) rows
#: whatever the reference's size (with windowed tail sums a p-value then costs at most ~0.5 s,
#: its interval ~40 p-values). 20, not 10: with 10 the level at the boundary reached 0.058 at n
#: = 100 and 1000 (validation/results/tolerance_level.txt). The unbalanced rule: against a
#: reference 20 or more times larger (a rate known almost exactly) the score test's level
#: follows the small group's lattice, 0.063 at 100 rows against 100,000 with 20-35 events; with
#: it "auto" is at most 0.0556 for 30-2,000 rows against 1,000-100,000
#: (validation/results/tolerance_large_reference.txt), while balanced groups with 20-49 events
#: keep the more powerful score test. 200,000, not 5,000: beyond 5,000 the score test reached
#: 0.14 for 30 rows against 10,000 with rare events. Not 1,000,000: a p-value of two groups of
#: 500,000 with 40 events costs 3 s, its interval a minute. The small-group clause (issue 34):
#: beyond 200,000 rows the score test rejected 0.068 at 300 rows against 300,000 at the
#: boundary; along the small group the exact test's cost does not grow with the reference's
#: size (validation/results/tolerance_large_reference.txt).
EXACT_BELOW = 20
EXACT_BELOW_UNBALANCED = 50
UNBALANCED_RATIO = 20
AUTO_MAX_SIZE = 200_000
#: AUC margin tests; "auto" is AUC_DEFAULT (validation/results/auc_margin_small.txt and
#: auc_margin_small_exponential.txt)
AUC_METHODS = ("auto", "hybrid", "logit-t", "logit", "delong")
AUC_DEFAULT = "hybrid"
#: "hybrid" widens a group's logit-t interval to Newcombe's where the group has fewer
#: positives or negatives than this (logit-t alone reached 0.164 with 20 positives and 0.062
#: with 60 under exponential scores; at most 0.056 with 120 or more per class).
NEWCOMBE_BELOW = 100
#: AUC margin tests warn (ApproximateLevelWarning) when a compared group has fewer positives
#: or negatives than this, by method. "hybrid" held the level (at most 0.056, alpha + 3 SE =
#: 0.060) in all 168 simulated settings, binormal and exponential scores, down to 30 rows at
#: a prevalence of 0.2 (about 6 positives). The others exceeded it with up to 60 per class
#: and an AUC near 1, up to AUC_LIBERAL (exponential scores).
AUC_WARN_BELOW = {"hybrid": 5, "logit-t": 100, "logit": 100, "delong": 100}
AUC_LIBERAL = {"logit-t": 0.164, "logit": 0.180, "delong": 0.335}
ALTERNATIVES = ("two-sided", "greater", "less")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Bisection of the logit MOVER level: z in [-_Z_MAX, _Z_MAX] to 2 * _Z_MAX / 2^48 (3e-13).
_Z_MAX = 40.0
_BISECTION_STEPS = 48
#: Newton steps (inside a bracket) polishing the ends of Newcombe's AUC interval.
_NEWTON_STEPS = 3


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
