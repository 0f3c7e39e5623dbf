"""Cost of the small-sample correction of the predictive parity test (issue 20).

Times `predictive_parity_test` (defaults: 50 grid points, 9,999 multiplier draws) on
clustered data of n rows / n/10 users with

  none        small_sample="none": one kernel pass (CR0, normal reference)
  cr2         small_sample="cr2" (default) as the data dictate: the fast path (one pass) when
              no user holds more than FAST_SHARE = 0.1% of the kernel weight at any point
  cr2 forced  small_sample="cr2" with the second (leverage) pass forced (FAST_SHARE = 0)

and reports the median of `--repeat` runs, the machine load, and whether the default took
the fast path. Memory: both passes hold O(users + groups x grid^2) (the per-chunk partial
sums, at most 64 x 2 x 50^2 doubles per pass), never O(rows x grid).

Usage: python benchmarks/parity_small_sample_cost.py [--rows 100000,1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np

from fastfair import parity
from fastfair.parity import SparseGridWarning, predictive_parity_test


def data(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    n_users = n_rows // 10
    user = rng.integers(0, n_users, n_rows)
    group = user % 2
    centre = rng.beta(2, 2, n_users)[user]
    score = np.clip(centre + rng.normal(0, 0.08, n_rows), 0.001, 0.999)
    y = (rng.random(n_rows) < score).astype(float)
    return y, score, group, user


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()}, cores {os.cpu_count()}")
    warnings.simplefilter("ignore", SparseGridWarning)
    for n in [int(x) for x in args.rows.split(",")]:
        arrays = data(n)

        def run(option, arrays=arrays):
            y, s, g, u = arrays
            return predictive_parity_test(y, s, g, cluster=u, random_state=0, small_sample=option)

        t_none, _ = timed(lambda: run("none"), args.repeat)
        t_cr2, res = timed(lambda: run("cr2"), args.repeat)
        fast = bool(res.curve.max_share.max() <= parity.FAST_SHARE)
        old = parity.FAST_SHARE
        parity.FAST_SHARE = 0.0
        try:
            t_forced, _ = timed(lambda: run("cr2"), args.repeat)
        finally:
            parity.FAST_SHARE = old
        print(
            f"rows {n:>10,} users {n // 10:>9,}: none {t_none:7.3f} s | cr2 {t_cr2:7.3f} s "
            f"(fast path: {fast}, largest share {res.curve.max_share.max():.2e}) | "
            f"cr2 forced second pass {t_forced:7.3f} s (x{t_forced / t_none:.2f})"
        )
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
