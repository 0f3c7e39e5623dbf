"""Ingest: the options and the data checked and coerced once (predictive parity under dependent
data)."""

from __future__ import annotations

from fastfair._validation import check_choice

ADJUSTMENTS = ("holm", "bonferroni", "bh", "maxT", "none")
SMALL_SAMPLE = ("cr2", "none")
#: The predictive parity test's variance: under the null (pooled curve) or each group's own.
VARIANCES = ("null", "separate")
#: Default number of grid points.
DEFAULT_GRID_POINTS = 50
#: Grid points where a group's effective number of clusters is below this get no SE.
MIN_EFFECTIVE_CLUSTERS = 5.0


def _check_small_sample(small_sample) -> str:
    check_choice(small_sample, "small_sample", SMALL_SAMPLE)
    return small_sample


_ZERO_VARIANCE = 1e-12  # var * n_effective at or below this: outcomes constant near s
