"""Where the compiled layer's Cython declarations and C headers are installed."""

from __future__ import annotations

import os


def get_include() -> str:
    """Directory holding fastfair's Cython declarations (.pxd) and C headers.

    An installed fastfair ships ``_core.pxd`` (the random streams, sampling helpers and rate
    statistics of its kernels) with the headers it declares (``ff_random.h``,
    ``ff_sampling.h``, ``ff_rates.h``). A downstream Cython module cimports them, e.g.
    ``from fastfair._core cimport ff_fast_init, ff_fast_t, ff_floyd_bits``, and compiles with
    this directory and ``numpy.get_include()`` on its C include path; its draws then match
    fastfair's streams (a pure function of key, stream id and work-item index).
    docs/cython.md shows a complete example.

    Returns
    -------
    str
        The installed ``fastfair`` package directory (an editable install points at the
        source tree's ``fastfair/``, which holds no .pxd: build against a regular install).

    Examples
    --------
    >>> import os
    >>> import fastfair
    >>> os.path.isfile(os.path.join(fastfair.get_include(), "__init__.py"))
    True
    """
    return os.path.dirname(os.path.abspath(__file__))
