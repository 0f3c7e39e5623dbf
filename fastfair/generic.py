"""Deprecated alias of :mod:`fastfair.resampling` (the module was renamed in 0.1).

``import fastfair.generic`` warns and gives the same functions and classes; it will be
removed in fastfair 0.2.
"""

import warnings

import fastfair.resampling as _resampling
from fastfair._deprecation import DEPRECATED_SINCE, REMOVED_IN
from fastfair.resampling import *  # noqa: F403

__all__ = list(_resampling.__all__)

warnings.warn(
    f"module fastfair.generic is deprecated since fastfair {DEPRECATED_SINCE} and will be "
    f"removed in {REMOVED_IN}; use fastfair.resampling",
    DeprecationWarning,
    stacklevel=2,
)
