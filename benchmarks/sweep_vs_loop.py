"""threshold_sweep against the loop a user would otherwise write (issue 19's speed target).

The loop: ``permutation_test(y_true, score >= t, group, metric=m)`` for every threshold t and
metric m (exact, its default), which re-reads every row at every threshold. The sweep:
``threshold_sweep`` with its defaults (999 joint permutations for the per-threshold
p-values and the max-T band), which reads the rows once, and with ``method="exact"``
(per-threshold p-values equal to the loop's, checked on the looped thresholds). Target: at
least 50x faster at 1e6 rows and 1,000 thresholds, metrics TPR and FPR. The loop is timed
on `--loop-thresholds` evenly spread thresholds and scaled to all of them (its cost per
threshold does not depend on t).

    python benchmarks/sweep_vs_loop.py                 # 1e6 rows, 1,000 thresholds
    python benchmarks/sweep_vs_loop.py --n 100000 --thresholds 100
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import fastfair


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n).astype(np.int32)
    y = rng.random(n) < 0.3
    score = 1 / (1 + np.exp(-rng.normal(1.5 * y - 1 + 0.1 * group, 1.0)))
    return y, score, group


def best_of(fn, repeat):
    """(best wall-clock time, best CPU time of this process, last output)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--thresholds", type=int, default=1000)
    parser.add_argument("--loop-thresholds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    y, score, group = data(args.n)
    thr = np.linspace(0.001, 0.999, args.thresholds)
    metrics = ("tpr", "fpr")
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
    picks = np.linspace(0, args.thresholds - 1, args.loop_thresholds).round().astype(int)

    def loop():
        return [
            [fastfair.permutation_test(y, score >= thr[k], group, metric=m).pvalue for k in picks]
            for m in metrics
        ]

    t_part, c_part, pvals = best_of(loop, 1)
    scale = args.thresholds / len(picks)
    t_loop, c_loop = t_part * scale, c_part * scale
    same = np.array_equal(np.array(pvals), res.pvalue[:, picks])
    load_after = os.getloadavg()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cpus, "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"fastfair {fastfair.__version__}"
    )
    print(f"load average (1, 5, 15 min) before {load_before}, after {load_after}")
    print(f"n = {args.n:,} rows, {args.thresholds} thresholds, metrics {metrics}")
    print("times: wall clock / CPU of the process (CPU sums both threads of the sweep)")
    print(
        f"threshold_sweep (defaults: 999 joint permutations), best of {args.repeat}: "
        f"{t_sweep:.3f} / {c_sweep:.3f} s"
    )
    print(
        f"threshold_sweep(method='exact'), best of {args.repeat}: {t_exact:.3f} / {c_exact:.3f} s"
    )
    print(
        f"loop of permutation_test: {t_part:.2f} / {c_part:.2f} s for {len(picks)} "
        f"thresholds x {len(metrics)} metrics -> {t_loop:.1f} / {c_loop:.1f} s "
        f"for {args.thresholds}"
    )
    print(
        f"ratio, wall: {t_loop / t_sweep:.0f}x (default), {t_loop / t_exact:.0f}x (exact); "
        f"CPU: {c_loop / c_sweep:.0f}x (default), {c_loop / c_exact:.0f}x (exact)"
    )
    print(f"exact per-threshold p-values equal to the loop's: {same}")


if __name__ == "__main__":
    main()
