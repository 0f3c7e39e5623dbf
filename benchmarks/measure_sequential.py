"""Measure the speed targets of issue #16 (sequential Monte Carlo, sparse AUC permutations).

    python benchmarks/measure_sequential.py [--repeat 3] [--skip-audit] [--skip-paths]

Each target is timed end to end (input arrays to result, the sort included), best of
--repeat runs, default thread count, with the 1-minute load average read just before it
(the machine may be shared: compare the load with the number of cores), and the process
CPU time of all threads (on a quiet 2-core machine the wall time is about CPU / 2 for the
threaded permutations plus the single-threaded sort and setup). The "p > 0.5" rows
use the first null data set (seeds 1, 2, ...) whose DeLong p-value exceeds 0.5, as the
issue's target states. Then (unless --skip-paths) the CPU time of one permutation by each
AUC path (sweep, blocks, sparse; one thread) and the usual Python route (shuffle, then
sklearn roc_auc_score + numpy DeLong per group: benchmarks/peers_auc.py). Prints markdown
tables for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import fastfair


def load() -> float:
    return os.getloadavg()[0]


def best(fn, repeat):
    """(best wall time, best process CPU time (all threads), result) of `repeat` calls."""
    times, cpus, out = [], [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(times), min(cpus), out


def auc_data(n, share, gap, seed=0, decimals=4):
    """Labels, a 4-decimal score and two groups; `gap` lowers the small group's AUC."""
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < share).astype(np.int8)
    y = rng.random(n) < 0.3
    score = np.round(rng.normal(size=n) + y * (1.0 - gap * group), decimals)
    return y, score, group


def audit_table(n, seed=0):
    """The audit input of the issue: label, 4-decimal float score, 3 string groups."""
    rng = np.random.default_rng(seed)
    group = rng.choice(np.array(["north", "south", "west"]), n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < 0.3).astype(np.int8)
    score = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * y - 1))), 4)
    return {"label": y, "score": score, "group": group}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-audit", action="store_true")
    parser.add_argument("--skip-paths", action="store_true")
    args = parser.parse_args(argv)
    r = args.repeat
    rows = []

    def record(what, data, target, fn):
        lo = load()
        t, cpu, res = best(fn, r)
        extra = ""
        if hasattr(res, "pvalue") and hasattr(res, "n_permutations"):
            extra = f"p={res.pvalue:.2g}, {res.n_permutations} permutations" + (
                f", {res.decision}" if getattr(res, "decision", None) is not None else ""
            )
        rows.append((what, data, f"{t:.3f} s", f"{cpu:.3f} s", target, f"{lo:.1f}", extra))
        print(rows[-1], flush=True)

    for share, label in ((0.5, "two equal groups"), (0.1, "smaller group 10%")):
        target = "< 1 s" if share == 0.5 else "< 0.3 s"
        for gap, what in ((0.05, "clear gap (p < 1e-4)"), (0.0, "no gap, p > 0.5")):
            y, s, g = auc_data(10**6, share, gap, seed=1) if gap else null_above(share)
            record(
                f"auc_test, default (sequential), studentized; {what}",
                f"1e6 rows, {label}",
                target,
                lambda y=y, s=s, g=g: fastfair.auc_test(y, s, g, random_state=0),
            )
    y, s, g = auc_data(10**7, 0.01, 0.1, seed=2)
    record(
        "auc_test, 1,000 fixed permutations, sort included",
        "1e7 rows, 1% group",
        "< 2 s",
        lambda: fastfair.auc_test(y, s, g, n_permutations=1000, random_state=0),
    )
    if not args.skip_audit:
        table = audit_table(10**6)
        record(
            "fastfair audit (label, 4-decimal score, 3 string groups), library call",
            "1e6 rows",
            "< 3 s",
            lambda: _audit(table),
        )
    print()
    print("| what | data | time | CPU (all threads) | target | load (1 min) | notes |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\n{os.cpu_count()} cores")
    if not args.skip_paths:
        paths(r)


def null_above(share, n=10**6):
    """The first null data set (seed 1, 2, ...) whose DeLong p-value is above 0.5."""
    for seed in range(1, 100):
        y, s, g = auc_data(n, share, 0.0, seed=seed)
        if fastfair.auc_test(y, s, g, method="delong").pvalue > 0.5:
            return y, s, g
    raise RuntimeError("no null data set with p > 0.5 among 99 seeds")


def paths(repeat, count=40):
    """CPU time per permutation of each AUC path (one thread) and of the usual Python route."""
    print("\n| data | tie blocks | sweep | blocks | sparse | chosen | peer (roc_auc_score + "
          "numpy DeLong) | peer / chosen | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for n, share, decimals in ((10**6, 0.5, 4), (10**6, 0.1, 4), (10**6, 0.5, 12),
                               (10**6, 0.1, 12), (10**7, 0.01, 4)):  # fmt: skip
        print(path_row(n, share, decimals, repeat, count), flush=True)


def path_row(n, share, decimals, repeat, count):
    from functools import partial

    from peers_auc import peer_permutation

    from fastfair import _auc
    from fastfair.auc.inference import _cheapest_path
    from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

    y, s, g = auc_data(n, share, 0.05, seed=1, decimals=decimals)
    order, codes8, y8 = _sort_rows(y, s, g)
    srt = _Sorted.build(order, s, y8, codes8)
    sizes = _strata_sizes(srt, 2, "within_outcome")
    tables = _auc.sparse_tables(srt.packed, srt.n_pos)
    args = (srt.packed, srt.n_pos, sizes, True, True, count, 1, 0, 1, 0)
    lo = load()
    ms = {
        "sweep": partial(_auc.permute_two, *args),
        "blocks": partial(_auc.permute_two, *args, tables),
        "sparse": partial(_auc.permute_two_sparse, *args, tables),
    }
    ms = {k: cpu_best(fn, repeat) / count * 1e3 for k, fn in ms.items()}
    chosen = _cheapest_path(sizes, n, len(tables[1]))
    peer = cpu_best(partial(peer_permutation, y, s, g, np.random.default_rng(0)), 1) * 1e3
    return (
        f"| {n:.0e} rows, group {share:.0%}, {decimals} decimals | {len(tables[1])} | "
        + " | ".join(f"{ms[k]:.2f} ms" for k in ("sweep", "blocks", "sparse"))
        + f" | {chosen} | {peer:.0f} ms | {peer / ms[chosen]:.0f}x | {lo:.1f} |"
    )


def cpu_best(fn, repeat):
    """Best process CPU time of `repeat` calls (less sensitive to other jobs than wall time)."""
    best_t = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best_t = min(best_t, time.process_time() - start)
    return best_t


def _audit(table):
    """fastfair.audit with its defaults (sequential), scores and one group column."""
    return fastfair.audit("label", None, "group", y_score="score", data=table)


if __name__ == "__main__":
    main()
