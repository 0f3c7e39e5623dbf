"""Ingest: the options and the data checked and coerced once (calibration and impact), and the
estimators' parameters (get_params / set_params, scikit-learn conventions)."""

from __future__ import annotations

import numpy as np

from fastfair._validation import as_finite_float, as_groups, as_probabilities, check_same_length
from fastfair.calibration.results import _key

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


def _score_matrix(values, name, k=None) -> np.ndarray:
    """`values` as a finite (n, K) float array (a 1-D array is one column)."""
    arr = _numeric_array(values, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, K)")
    if k is not None and arr.shape[1] != k:
        raise ValueError(f"{name} must have {k} columns, got {arr.shape[1]}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _prep_xy(y_true, y_score):
    """Outcomes and predicted probabilities (the calibration errors compare the two)."""
    s = as_probabilities(y_score, "y_score", "predicted probabilities")
    yv = as_finite_float(y_true, "y_true")
    check_same_length(y_true=yv, y_score=s)
    if s.size == 0:
        raise ValueError("y_score is empty")
    return yv, s


def _fitted_codes(calibrator, group, n) -> np.ndarray:
    """Codes of `group` in the fitted groups of `calibrator` (groups_ and whether it was
    fitted with groups); all zero when it was fitted without."""
    if not hasattr(calibrator, "groups_"):
        name = type(calibrator).__name__
        raise RuntimeError(f"this {name} is not fitted yet: call fit first")
    if group is None:
        if calibrator._fitted_with_group:
            raise TypeError("group is required: the calibrator was fitted with groups")
        return np.zeros(n, dtype=np.intp)
    codes, labels = as_groups(group, "group", min_groups=1)
    index = {_key(g): k for k, g in enumerate(calibrator.groups_)}
    unseen = [_key(g) for g in labels if _key(g) not in index]
    if unseen:
        raise ValueError(
            f"group contains label(s) {unseen[:5]} not seen in fit; fitted groups are "
            f"{[_key(g) for g in calibrator.groups_]}"
        )
    lookup = np.array([index[_key(g)] for g in labels], dtype=np.intp)
    return lookup[codes]


class _Params:
    """get_params / set_params / repr of an estimator from its `_param_names` (scikit-learn
    conventions)."""

    _param_names: tuple = ()

    def get_params(self, deep: bool = True) -> dict:
        """Parameters of the estimator (scikit-learn convention).

        Parameters
        ----------
        deep : bool
            Accepted for scikit-learn compatibility (no nested estimators).

        Returns
        -------
        dict
            Constructor parameter name -> value.

        Examples
        --------
        >>> from fastfair.calibration import GroupCalibrator, MultiObjectiveCalibrator
        >>> GroupCalibrator().get_params()["weighting"]
        'per_user'
        >>> sorted(MultiObjectiveCalibrator().get_params())
        ['bandwidth_scale', 'method', 'weighting']
        """
        return {k: getattr(self, k) for k in self._param_names}

    def set_params(self, **params):
        """Set parameters (scikit-learn convention).

        Parameters
        ----------
        **params
            Constructor parameters to change.

        Returns
        -------
        estimator
            self.

        Examples
        --------
        >>> from fastfair.calibration import GroupCalibrator
        >>> GroupCalibrator().set_params(weighting="per_observation").weighting
        'per_observation'
        """
        for k, v in params.items():
            if k not in self._param_names:
                raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._param_names)
        return f"{type(self).__name__}({args})"
