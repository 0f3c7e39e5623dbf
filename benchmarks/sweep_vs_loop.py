"""threshold_sweep against the loops a user would otherwise write (issue 19's speed target).

The loop of the target: ``permutation_test(y_true, score >= t, group, metric=m)`` for every
threshold t and metric m in (TPR, FPR), with its defaults (exact p-values): it re-reads
every row at every threshold. A second, stronger loop for reference: the confusion counts
of each threshold once (``confusion_counts``), then ``permutation_test_from_counts`` per
metric. The sweep: ``threshold_sweep`` with its defaults (999 joint permutations for the
per-threshold p-values and the max-T band), which reads the rows once, and with
``method="exact"`` (per-threshold p-values equal to the loop's, checked). Target: at least
50x faster than the first loop at 1e6 rows and 1,000 thresholds.

The loops run on every threshold by default. ``--loop-thresholds k`` times them on k
evenly spread thresholds instead and scales by (thresholds / k); the spread of the
per-threshold times is printed so the scaling can be judged (a call's cost does not depend
much on t: the rows are read the same way and the exact test enumerates about sqrt(n)
hypergeometric points).

    python benchmarks/sweep_vs_loop.py                 # 1e6 rows, 1,000 thresholds
    python benchmarks/sweep_vs_loop.py --n 100000 --thresholds 100
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from benchmarks.bench_sweep import data  # benchmarks/benchmarks: the asv suite

import fastfair

METRICS = ("tpr", "fpr")


def best_of(fn, repeat):
    """(best wall-clock time, best CPU time of this process, last output)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu), out


def timed_loop(step, thresholds):
    """Run step(t) for each threshold: (wall times, CPU times, outputs) per threshold."""
    wall, cpu, out = [], [], []
    for t in thresholds:
        start, start_cpu = time.perf_counter(), time.process_time()
        out.append(step(t))
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return np.array(wall), np.array(cpu), np.array(out).T


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--thresholds", type=int, default=1000)
    parser.add_argument("--loop-thresholds", type=int, default=None, help="default: all")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    y, score, group = data(args.n)
    thr = np.linspace(0.001, 0.999, args.thresholds)
    n_loop = args.thresholds if args.loop_thresholds is None else args.loop_thresholds
    picks = np.linspace(0, args.thresholds - 1, n_loop).round().astype(int)
    scale = args.thresholds / len(picks)
    load_before = os.getloadavg()
    t_sweep, c_sweep, _ = best_of(
        lambda: fastfair.threshold_sweep(y, score, group, thresholds=thr, random_state=0),
        args.repeat,
    )
    t_exact, c_exact, res = best_of(
        lambda: fastfair.threshold_sweep(
            y, score, group, thresholds=thr, method="exact", random_state=0
        ),
        args.repeat,
    )

    def naive(t):
        return [fastfair.permutation_test(y, score >= t, group, metric=m).pvalue for m in METRICS]

    def by_counts(t):
        counts, groups = fastfair.confusion_counts(y, score >= t, group)
        return [
            fastfair.permutation_test_from_counts(counts, groups, metric=m).pvalue for m in METRICS
        ]

    w_naive, c_naive, p_naive = timed_loop(naive, thr[picks])
    w_counts, c_counts, p_counts = timed_loop(by_counts, thr[picks])
    load_after = os.getloadavg()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cpus, "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"fastfair {fastfair.__version__}"
    )
    print(f"load average (1, 5, 15 min) before {load_before}, after {load_after}")
    print(f"n = {args.n:,} rows, {args.thresholds} thresholds, metrics {METRICS}")
    print("times: wall clock / CPU of the process (CPU sums both threads of the sweep)")
    print(
        f"threshold_sweep (defaults: 999 joint permutations), best of {args.repeat}: "
        f"{t_sweep:.3f} / {c_sweep:.3f} s"
    )
    print(
        f"threshold_sweep(method='exact'), best of {args.repeat}: {t_exact:.3f} / {c_exact:.3f} s"
    )
    loops = {}
    for name, wall, cpu in [
        ("loop of permutation_test (the target's loop)", w_naive, c_naive),
        ("loop of confusion_counts + permutation_test_from_counts", w_counts, c_counts),
    ]:
        loops[name] = (wall.sum() * scale, cpu.sum() * scale)
        spread = np.percentile(cpu, [0, 50, 100]) * 1e3
        print(
            f"{name}: {wall.sum():.2f} / {cpu.sum():.2f} s for {len(picks)} thresholds x "
            f"{len(METRICS)} metrics"
            + (f" -> {loops[name][0]:.1f} / {loops[name][1]:.1f} s for all" if scale != 1 else "")
            + f"; CPU per threshold min / median / max {spread[0]:.1f} / {spread[1]:.1f} / "
            f"{spread[2]:.1f} ms"
        )
    for name, (wall, cpu) in loops.items():
        print(
            f"ratio to the {name}: wall {wall / t_sweep:.0f}x (default), "
            f"{wall / t_exact:.0f}x (exact); CPU {cpu / c_sweep:.0f}x (default), "
            f"{cpu / c_exact:.0f}x (exact)"
        )
    same = np.array_equal(p_naive, res.pvalue[:, picks])
    same_counts = np.array_equal(p_counts, res.pvalue[:, picks])
    print(f"exact per-threshold p-values equal to the loops': {same}, {same_counts}")


if __name__ == "__main__":
    main()
