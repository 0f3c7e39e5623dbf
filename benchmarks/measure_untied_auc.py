"""Measure issue 28 point 4: auc_test on untied float64 scores with a small group.

    python benchmarks/measure_untied_auc.py [--repeat 3] [--rows 10000000]

End to end (arrays to result, the sort included), 1,000 permutations, a 1% group: float64
scores (a logistic model's probabilities, no ties) against the same scores rounded to 4
decimals (the tie-block path), alternating in the same run, best of --repeat, with the
1-minute load average before each call and the process CPU time (all threads). Then the
CPU time of one permutation by each path on the untied scores (one thread): ranks (the
default for untied scores now), sparse (the block tables, the default before) and the
O(n) sweep. Prints markdown tables for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import fastfair
from fastfair.auc.inference import _pair_sampler
from fastfair.auc.statistics import _auc_statistics, _pair_rows


def data(n, share, seed=0):
    rng = np.random.default_rng(seed)
    g = (rng.random(n) < share).astype(np.int8)
    y = rng.random(n) < 0.3
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))
    return y, s, g


def timed(fn):
    load = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - start, time.process_time() - cpu, load, out


def end_to_end(n, repeat):
    y, s, g = data(n, 0.01)
    rounded = np.round(s, 4)
    best = {}
    for _ in range(repeat):
        for name, score in (("float64", s), ("rounded 4 decimals", rounded)):
            wall, cpu, load, res = timed(
                lambda sc=score: fastfair.auc_test(y, sc, g, n_permutations=1000, random_state=0)
            )
            if name not in best or wall < best[name][0]:
                best[name] = (wall, cpu, load, res.pvalue)
    print(f"\n`uptime` before: {os.popen('uptime').read().strip()}")
    print("\n| scores | rows | wall (best) | CPU | load (1 min) | p-value |")
    print("|---|---|---|---|---|---|")
    for name, (wall, cpu, load, p) in best.items():
        print(f"| {name} | {n:.0e} | {wall:.2f} s | {cpu:.2f} s | {load:.1f} | {p:.3f} |")


def paths(n, share, count):
    y, s, g = data(n, share, 1)
    st = _auc_statistics(y, s, g, np.array([0, 1]), None, "reference", True)
    sub = _pair_rows(st, 0, 1)
    row = [f"{n:.0e}", f"{share:.0%}"]
    for path in ("ranks", "sparse", "sweep"):
        _, setup, _, draw = timed(
            lambda p=path: _pair_sampler(sub, "within_outcome", True, 1, 0, 1, p)[0]
        )
        k = count if path == "ranks" else max(5, count // 20)
        _, cpu, _, _ = timed(lambda d=draw, k=k: d(0, k))
        row.append(f"{cpu / k * 1e3:.2f} ms (tables {setup:.2f} s)")
    row.append(f"{os.getloadavg()[0]:.1f}")
    print("| " + " | ".join(row) + " |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=10**7)
    args = parser.parse_args(argv)
    end_to_end(args.rows, args.repeat)
    print("\n| rows | group | ranks | sparse (before) | sweep | load |\n|---|---|---|---|---|---|")
    for n, share in ((10**6, 0.01), (10**6, 0.1), (args.rows, 0.01)):
        paths(n, share, 200)


if __name__ == "__main__":
    main()
