"""fastfair predictive parity curves against a straightforward numpy implementation and
statsmodels KernelReg (fixed bandwidth).

`run(quick)` returns rows {"task", "n", "fastfair_s", "peer", "peer_s", "ratio"}
(ratio = peer_s / fastfair_s, > 1 means fastfair is faster); benchmarks/compare_peers.py
collects them. Same data for both sides (fixed seed; n rows from n / 10 users, two groups),
50 grid points, the same fixed bandwidth; times are the best of a few repeats.

* numpy: the clustered estimate and sandwich standard errors (METHODS.md 3) written the
  direct way: an (n x grid) kernel matrix, per-user sums by sorting and np.add.reduceat.
  It holds O(n x grid) memory, so it runs only up to a few 10^5 rows.
* statsmodels KernelReg(reg_type="lc") is the Nadaraya-Watson estimate itself, per group,
  without any standard error (it has no clustered variance); fastfair is timed on the same
  task with cluster=None (and still computes standard errors).
"""

from __future__ import annotations

import numpy as np
from _peers import best, peer_row
from benchmarks.bench_parity import data  # the asv suite's data

from fastfair.parity import calibration_curve

GRID = np.linspace(0.05, 0.95, 50)
H = 0.03


def numpy_clustered_curve(y, score, group, user, grid=GRID, h=H):
    """Per-user (w_m = 1/n_m) Nadaraya-Watson estimate and sandwich SE, directly in numpy."""
    out = []
    for g in np.unique(group):
        m = group == g
        order = np.argsort(user[m], kind="stable")
        u, s, yy = user[m][order], score[m][order], y[m][order]
        starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
        n_m = np.diff(np.r_[starts, u.size])
        k = np.exp(-0.5 * ((s[:, None] - grid[None, :]) / h) ** 2)
        a = np.add.reduceat(yy[:, None] * k, starts, axis=0) / n_m[:, None]
        b = np.add.reduceat(k, starts, axis=0) / n_m[:, None]
        f = a.sum(0) / b.sum(0)
        se = np.sqrt(((a - f * b) ** 2).sum(0)) / b.sum(0)
        out.append((f, se))
    return out


def statsmodels_curve(y, score, group, grid=GRID, h=H):
    from statsmodels.nonparametric.kernel_regression import KernelReg

    out = []
    for g in np.unique(group):
        m = group == g
        kr = KernelReg(y[m], score[m], var_type="c", reg_type="lc", bw=[h])
        out.append(kr.fit(grid)[0])
    return out


def run(quick: bool = False) -> list[dict]:
    rows = []
    repeat = 2 if quick else 3
    sizes_np = [10**4, 10**5] if quick else [10**4, 10**5, 3 * 10**5]
    for n in sizes_np:
        y, s, g, u = data(n)
        ff = best(
            lambda y=y, s=s, g=g, u=u: calibration_curve(
                y, s, g, cluster=u, grid=GRID, bandwidth=H
            ),
            repeat,
        )
        peer = best(lambda y=y, s=s, g=g, u=u: numpy_clustered_curve(y, s, g, u), repeat)
        rows.append(
            peer_row(
                "clustered NW curve + sandwich SE, 2 groups, 50 points",
                n,
                ff,
                "numpy (n x grid kernel matrix, reduceat)",
                peer,
            )
        )
    try:
        import statsmodels  # noqa: F401
    except ImportError:
        return rows
    sizes_sm = [10**3, 10**4] if quick else [10**3, 10**4, 10**5]
    for n in sizes_sm:
        y, s, g, _ = data(n, 1)
        ff = best(lambda y=y, s=s, g=g: calibration_curve(y, s, g, grid=GRID, bandwidth=H), repeat)
        peer = best(lambda y=y, s=s, g=g: statsmodels_curve(y, s, g), 1 if n >= 10**5 else repeat)
        rows.append(
            peer_row(
                "NW curve (no clusters), 2 groups, 50 points, fixed h",
                n,
                ff,
                "statsmodels KernelReg(reg_type='lc', bw=[h])",
                peer,
            )
        )
    return rows


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
