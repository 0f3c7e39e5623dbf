"""Measure issue 28 point 4's second target: auc_test's default call at 1e6 rows, a 10%
group, untied scores, with a p-value near alpha = 0.05.

    python benchmarks/measure_auc_near_alpha.py

Finds the first null data set (seeds 0, 1, ...) whose DeLong p-value lies in [0.04, 0.06],
then times the default call (method None: the DeLong z-test here) and, in the same run, the
sequential permutation test (`method="permutation"`, the old default; on the ranks path),
with the 1-minute load average and the process CPU time. Prints a markdown table.
"""

from __future__ import annotations

import os
import time

import numpy as np

import fastfair


def data(seed, n=10**6):
    rng = np.random.default_rng(seed)
    g = (rng.random(n) < 0.1).astype(np.int64)
    y = rng.random(n) < 0.3
    return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y))), g


def main():
    for seed in range(500):
        y, s, g = data(seed)
        p = fastfair.auc_test(y, s, g, method="delong").pvalue
        if 0.04 <= p <= 0.06:
            break
    print(f"\nseed {seed}, DeLong p = {p:.4f}; `uptime`: {os.popen('uptime').read().strip()}")
    print("\n| call | method used | wall | CPU | load | p-value | permutations | decision |")
    print("|---|---|---|---|---|---|---|---|")
    for label, kwargs in (("default", {}), ('method="permutation"', {"method": "permutation"})):
        load = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        res = fastfair.auc_test(y, s, g, random_state=0, **kwargs)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            f"| {label} | {res.method} | {wall:.2f} s | {cpu:.2f} s | {load:.1f} | "
            f"{res.pvalue:.4f} | {res.n_permutations} | {res.decision} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
