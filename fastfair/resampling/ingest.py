"""Ingest: the options and the data checked and coerced once (resampling tests of any metric,
means and correlations)."""

from __future__ import annotations

import sys
import warnings

from fastfair._pvalues import ALTERNATIVES
from fastfair._sequential import resolve
from fastfair._validation import check_choice

#: Built-in row-level metrics: the mean of a per-row value (y = y_true, p = y_pred).
ROW_METRICS = {
    "mse": "mean of (y - p)^2",
    "mae": "mean of |y - p|",
    "mean_residual": "mean of y - p",
    "mean_score": "mean of p (score parity)",
    "mean_outcome": "mean of y (outcome parity)",
}
STUDENTIZE = ("welch", "bootstrap", "bootstrap-fast")


def is_row_metric(metric) -> bool:
    """True when `metric` names a built-in row-level metric (see `ROW_METRICS`)."""
    return isinstance(metric, str) and metric.lower() in ROW_METRICS


METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Largest number of subsets that method="exact" enumerates for a difference of means.
MAX_EXACT_SUBSETS = 200_000
_CHUNK_ELEMENTS = 1 << 20  # gathered values per call of a vectorized metric (per array)
SCALE_BLOCK = 999  # "bootstrap-fast", sequential: permutations that fix the scale
_PROGRESS_GUESS = 1000  # progress-bar length of a sequential test (it has no fixed count)
_OBSERVED = 1 << 62  # bootstrap stream index of the observed data (permutation b uses b)


def _resolve_progress(progress, total: int):
    """A tqdm bar or None: None = auto (installed, stderr is a terminal, long run)."""
    if progress is False or (progress is None and total < 20_000):
        return None
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            warnings.warn(
                "progress=True needs tqdm (pip install tqdm); running without a progress bar",
                stacklevel=3,
            )
        return None
    return tqdm(total=total, unit="eval", leave=False)


def _check_common(alternative, comparisons, adjust, n_permutations, sequential):
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    if adjust == "maxT":
        raise ValueError(
            "adjust='maxT' is available for confusion-matrix metrics only; "
            "use 'holm' or 'bonferroni' here"
        )
    check_choice(adjust, "adjust", ADJUSTMENTS)
    return resolve(n_permutations, sequential)
