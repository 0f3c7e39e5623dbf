"""Reference computations written out from their definitions, shared by the tests (loaded
with runpy, as tests/_same_audit.py)."""

import numpy as np


def holm(p):
    """Holm's step-down adjusted p-values: max over the ranks up to i of (m - rank) p, at
    most 1."""
    p = np.asarray(p, dtype=float)
    order, running, out = np.argsort(p, kind="stable"), 0.0, np.empty(len(p))
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        out[i] = min(1.0, running)
    return out
