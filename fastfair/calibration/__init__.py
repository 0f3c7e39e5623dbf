"""Mitigation and impact of predictive-parity violations: calibration, thresholds, errors.

DiCiccio, Hsu, Yu, Nandy & Basu (FAccT 2023), Sections 4-7 (docs/parity.md).

- :class:`GroupCalibrator` (Sec. 4.1): replace a score s of group g by the clustered
  Nadaraya-Watson estimate :math:`\\hat f_g(s)` of E[Y | S = s, G = g], evaluated at bin
  edges :math:`l_k < u_k` and linearly interpolated,
  :math:`t(s, g) = \\hat f_g(l_k) + (s - l_k)(\\hat f_g(u_k) - \\hat f_g(l_k))/(u_k - l_k)`;
  Platt scaling and isotonic regression per group for comparison (Appendix C).
- :class:`MultiObjectiveCalibrator` (Sec. 5): :math:`\tilde S^{(k)} = E[Y^{(k)} \\mid
  S^{(1)}, \\dots, S^{(K)}, G]`, after which every composite :math:`\\sum_k w_k \tilde
  S^{(k)}` satisfies predictive parity (Theorem in Sec. 5.1); :func:`check_composite_parity`.
- :func:`fair_thresholds` (Sec. 6.1, eqs. 3-4): group thresholds with equal marginal
  outcomes, optionally keeping the overall positive rate.
- Calibration error (Sec. 7.1, Appendix A, Sec. 8): :func:`tce_nadaraya_watson`,
  :func:`ece` (equal mass / equal width), :func:`msce` (monotonic sweep), per group with
  :func:`calibration_error`.
- Impact (Sec. 7.2): :func:`delta_pcc`, :func:`delta_rc`.

Layers of this subpackage (each imports only those above it):

* ``results.py``: result classes, warnings and errors
* ``ingest.py``: options and data, checked and coerced once (groups, user weights,
  thresholds, fitted group codes)
* ``statistics.py``: the fitted maps (kernel sums, logistic and isotonic fits), the
  multivariate kernel regression, binned sums and ranks
* ``inference.py``: the calibration errors of the binned sums or of a fitted map, the
  impact per group, the fair thresholds
* ``estimators.py``: :class:`GroupCalibrator`, :class:`MultiObjectiveCalibrator` (fit ->
  transform; get_params / set_params)
* ``api.py``: the public functions (ingest -> statistics -> inference)
"""

from fastfair.calibration.api import (
    calibration_error,
    check_composite_parity,
    delta_pcc,
    delta_rc,
    ece,
    fair_thresholds,
    msce,
    tce_nadaraya_watson,
)
from fastfair.calibration.estimators import GroupCalibrator, MultiObjectiveCalibrator
from fastfair.calibration.ingest import (
    CALIBRATION_METHODS,
    DEFAULT_CALIBRATION_BINS,
    ERROR_ESTIMATORS,
)
from fastfair.calibration.results import (
    CalibrationErrorResult,
    CompositeParityCheck,
    FairThresholds,
    ImpactResult,
)

__all__ = [
    "CalibrationErrorResult",
    "CompositeParityCheck",
    "FairThresholds",
    "GroupCalibrator",
    "ImpactResult",
    "MultiObjectiveCalibrator",
    "calibration_error",
    "check_composite_parity",
    "delta_pcc",
    "delta_rc",
    "ece",
    "fair_thresholds",
    "msce",
    "tce_nadaraya_watson",
]
