"""Deprecated alias of :mod:`fastfair.resampling` (the module was renamed in 0.2).

``import fastfair.generic`` warns and gives the same functions and classes; it will be
removed in fastfair 0.3.
"""

import warnings

import fastfair.resampling as _resampling
from fastfair.resampling import *  # noqa: F403

__all__ = list(_resampling.__all__)

warnings.warn(
    "module fastfair.generic is deprecated since fastfair 0.2 and will be removed in 0.3; "
    "use fastfair.resampling",
    DeprecationWarning,
    stacklevel=2,
)
