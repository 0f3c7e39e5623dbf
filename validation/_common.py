"""What several validation scripts share: the commit their results were run at, and the
Bell-McCaffrey degrees of freedom of a group's CR2 variance (parity_small_clusters.py,
parity_dependent_null.py). Scripts import it after putting their folder on sys.path, so it
is found however they are run (``python validation/x.py`` or loaded by a test)."""

from __future__ import annotations

import os
import subprocess

import numpy as np


def git_commit() -> str:
    """The short hash of the commit checked out where these scripts are, whatever the
    working directory ("unknown" outside a git checkout)."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=here).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def bell_mccaffrey_df(p):
    """Bell-McCaffrey df of one group's CR2 variance, random-intercept working model.

    p: (M_g, G) leverages (shares of the kernel weight). With omega_m = 1/(1 - p_m),
    s_m = p_m^2, S = sum p^2 (everything scaled by the total weight), the variance is the
    quadratic form sum_m (g_m' eta)^2 with g_m' g_l = c_m c_l T_ml,
    T_ml = delta_ml s_m - p_l s_m - p_m s_l + p_m p_l S; df = (sum_m ||g_m||^2)^2 /
    sum_ml (g_m' g_l)^2, expanded into single sums (NaN where it is 0 / 0).
    """
    om = 1.0 / (1.0 - p)
    s = p * p
    S = s.sum(axis=0)
    tr = (om * (s - 2 * p * s + p * p * S)).sum(axis=0)
    diag = (om * om * (s * s + 2 * s * (-2 * p * s + p * p * S))).sum(axis=0)
    P2 = (om * p * p).sum(axis=0)
    S2 = (om * s * s).sum(axis=0)
    PS = (om * p * s).sum(axis=0)
    Q = diag + 2 * P2 * S2 + 2 * PS * PS + S * S * P2 * P2 - 4 * S * PS * P2
    with np.errstate(divide="ignore", invalid="ignore"):
        return tr * tr / Q
