"""Ingest: the options and the data checked and coerced once (calibration and impact)."""

from __future__ import annotations

import numpy as np

CALIBRATION_METHODS = ("nadaraya_watson", "platt", "isotonic")
ERROR_ESTIMATORS = ("nadaraya_watson", "ece_equal_mass", "ece_equal_width", "msce")
#: Default number of bins of the Nadaraya-Watson calibrator (bin edges = n_bins + 1 points).
DEFAULT_CALIBRATION_BINS = 100


def _numeric_array(values, name: str) -> np.ndarray:
    """`values` as a float64 array of any shape; TypeError naming `name` when not numeric."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric") from None


def _check_binary(y, what: str):
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError(f"{what} needs binary outcomes y (0/1 or bool)")
