"""Side-by-side timing of wasserstein_test against the authors' algorithm in numpy.

The peer re-implements the approach of the authors' code (BaharTaskesen/Statistical-
Fairness-Test, functions.py) vectorized with numpy: for each gamma, every positive sample
evaluates its inner objective on a 100-point grid of k in [0, 1/8] and keeps the grid minimum;
golden-section search on gamma in [-5, 5] to tolerance 1e-10, as in their scripts. (Their
published script loops in Python and starts a process pool per evaluation: about 51 s per
replication.) Same data for both; equal opportunity; both statistics are printed when run as
a script (the grid makes the peer's value slightly larger).

    python benchmarks/peers_wasserstein.py [--quick]
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy import special

from fastfair.wasserstein import wasserstein_test

GOLDEN = (math.sqrt(5) + 1) / 2
K_GRID = np.linspace(0.0, 1.0 / 8.0, 100)
CHUNK = 20_000  # samples per block of the grid evaluation (bounds memory)
#: (task, n) -> (fastfair N R, peer N R) of the last run()
LAST_STATISTICS: dict = {}


def authors_numpy(X, y, a, beta, gamma_range=(-5.0, 5.0), tol=1e-10):
    """N R of the authors' algorithm (grid over k, golden section over gamma), in numpy."""
    n = len(y)
    pos = y == 1
    u = X[pos] @ beta
    n11 = np.sum(a[pos] == 1)
    n01 = np.sum(pos) - n11
    lam = np.where(a[pos] == 1, n / n11, -n / n01)
    b2 = float(beta @ beta)

    def neg_dual(gamma):
        total = 0.0
        for s in range(0, len(u), CHUNK):
            t = gamma * lam[s : s + CHUNK, None]
            f = t * t * b2 * K_GRID**2 + t * special.expit(
                u[s : s + CHUNK, None] - t * b2 * K_GRID
            )
            total += f.min(axis=1).sum()
        return -total / n

    lo, hi = gamma_range
    c = hi - (hi - lo) / GOLDEN
    d = lo + (hi - lo) / GOLDEN
    while abs(c - d) > tol:  # their gss: both points re-evaluated every iteration
        if neg_dual(c) < neg_dual(d):
            hi = d
        else:
            lo = c
        c = hi - (hi - lo) / GOLDEN
        d = lo + (hi - lo) / GOLDEN
    return -n * neg_dual((hi + lo) / 2)


def _mixture(n, rng):
    """The authors' Gaussian-mixture null (METHODS.md 4), beta = (0, 1)."""
    counts = rng.multinomial(n, [0.4, 0.1, 0.3, 0.2])
    means = [(-6.0, 0.0), (-2.0, 0.0), (2.0, 0.0), (6.0, 0.0)]
    sds = [math.sqrt(5.0)] * 2 + [math.sqrt(3.5)] * 2
    X = np.vstack([rng.normal(size=(m, 2)) * s + mu for m, s, mu in zip(counts, sds, means)])
    return X, np.repeat([0, 1, 0, 1], counts), np.repeat([0, 0, 1, 1], counts)


def _wide(n, d, rng):
    X = rng.normal(size=(n, d))
    a = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    X[:, 0] += 0.02 * a * y
    beta = rng.normal(size=d) / math.sqrt(d)
    return X, y, a, beta


def _best_time(fn, repeats):
    best, out = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def run(quick: bool = False) -> list[dict]:
    rng = np.random.default_rng(0)
    cases = [("eq. opportunity, authors' mixture d=2", 1000, None)]
    sizes = (10**3, 10**4) if quick else (10**3, 10**4, 10**5, 10**6)
    cases += [("eq. opportunity, d=20", n, 20) for n in sizes]
    rows = []
    for task, n, d in cases:
        if d is None:
            X, y, a = _mixture(n, rng)
            beta = np.array([0.0, 1.0])
        else:
            X, y, a, beta = _wide(n, d, rng)
        args = (X, y, a, beta)
        t_ff, res = _best_time(lambda: wasserstein_test(*args), 5 if n < 10**6 else 3)  # noqa: B023
        t_peer, stat_peer = _best_time(lambda: authors_numpy(*args), 1)  # noqa: B023
        rows.append(
            {
                "task": task,
                "n": n,
                "fastfair_s": t_ff,
                "peer": "authors' algorithm (numpy)",
                "peer_s": t_peer,
                "ratio": t_peer / t_ff,
            }
        )
        LAST_STATISTICS[task, n] = (res.statistic, stat_peer)
    return rows


if __name__ == "__main__":
    import sys

    for row in run("--quick" in sys.argv):
        ff, peer = LAST_STATISTICS[row["task"], row["n"]]
        print(
            f"{row['task']:40s} n={row['n']:>8,}  fastfair {row['fastfair_s']:.4f} s  "
            f"peer {row['peer_s']:.3f} s  ratio {row['ratio']:,.0f}x  "
            f"N*R {ff:.6g} vs {peer:.6g}"
        )
