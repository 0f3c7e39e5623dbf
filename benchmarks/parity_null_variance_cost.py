"""Cost of the predictive parity test's null variance (issue 33) against the variance it
replaced as the default.

Times `predictive_parity_test` (defaults: 50 grid points, 9,999 multiplier draws,
small_sample="cr2") on n rows / n/10 users of `parity_small_sample_cost.data`, with

  separate   variance="separate": each group's own residuals (the default before issue 33)
  null       variance="null" (default): scores centred at the pooled curve, from the same
             first-pass sums; the curve and band still use the separate variances

alternating the two in every repeat (both see the same machine load), and reports the
medians, their ratio and the load average before and after.

Usage: python benchmarks/parity_null_variance_cost.py [--rows 10000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parity_small_sample_cost import data

from fastfair.parity import SparseGridWarning, predictive_parity_test


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", SparseGridWarning)
    y, s, g, u = data(args.rows)
    print(f"{args.rows:,} rows, {args.rows // 10:,} users; load before {os.getloadavg()}")
    times = {"separate": [], "null": []}
    for _ in range(args.repeat):
        for variance in times:
            t0 = time.perf_counter()
            res = predictive_parity_test(y, s, g, cluster=u, variance=variance, random_state=0)
            times[variance].append(time.perf_counter() - t0)
            print(f"  {variance:8s} {times[variance][-1]:.2f} s, p = {res.pvalue:.4f}")
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"median: separate {med['separate']:.2f} s, null {med['null']:.2f} s, "
        f"ratio {med['null'] / med['separate']:.2f}; load after {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
