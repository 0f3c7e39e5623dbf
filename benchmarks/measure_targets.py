"""Measure each issue's speed target once, end to end, and print a markdown table.

    python benchmarks/measure_targets.py [--repeat 3]

Times are the best of --repeat runs (wall clock, default thread count). Used to fill
benchmarks/RESULTS.md; the asv suite in benchmarks/benchmarks tracks the same kernels.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import fastfair


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def confusion_data(n, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n).astype(np.int32)
    y = rng.random(n) < 0.3
    pred = np.where(y, rng.random(n) < 0.8, rng.random(n) < 0.1)
    return y, pred, group


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    r = args.repeat
    rows = []
    y, pred, group = confusion_data(10**7)
    for metric in ("tpr", "ppv", "selection_rate", "equalized_odds"):
        t = best(lambda m=metric: fastfair.permutation_test(y, pred, group, metric=m), r)
        rows.append(
            (
                "permutation_test, exact (default), counting included",
                f"1e7 rows, {metric}",
                t,
                "< 0.5 s",
            )
        )
    t = best(
        lambda: fastfair.permutation_test(
            y,
            pred,
            group,
            metric="tpr",
            scheme="full",
            method="monte_carlo",
            n_permutations=10**5,
            random_state=0,
        ),
        r,
    )
    rows.append(
        ("permutation_test, Monte Carlo, full scheme", "1e7 rows, 1e5 permutations", t, "< 0.5 s")
    )
    y6, pred6, group6 = y[: 10**6], pred[: 10**6], group[: 10**6]
    words = np.array(["group_a", "group_b", "group_c"], dtype=object)
    three = words[np.random.default_rng(3).integers(0, 3, 10**6)]
    for kind, labels in (("object strings", three), ("numpy <U strings", three.astype(str))):
        t = best(lambda g=labels: fastfair.permutation_test(y6, pred6, g, metric="tpr"), r)
        rows.append(
            (
                f"permutation_test, exact, groups as {kind} (hash coder)",
                "1e6 rows, 3 groups",
                t,
                "< 0.05 s",
            )
        )
    w = np.random.default_rng(1).random(10**6)
    for metric in ("tpr", "selection_rate"):
        t = best(
            lambda m=metric: fastfair.permutation_test(
                y6, pred6, group6, metric=m, sample_weight=w, n_permutations=1000, random_state=0
            ),
            r,
        )
        rows.append(
            (
                "permutation_test, weighted (row-level)",
                f"1e6 rows, 1e3 perms, {metric}",
                t,
                "< 2 s",
            )
        )

    rng = np.random.default_rng(2)
    n = 10**6
    ya = rng.random(n) < 0.4
    ga = rng.integers(0, 2, n)
    score = rng.normal(size=n) + ya * (1.0 + 0.2 * ga)
    t = best(lambda: fastfair.delong(ya, score, ga), r)
    from sklearn.metrics import roc_auc_score

    t_sk = best(lambda: roc_auc_score(ya, score), r)
    rows.append(
        ("delong: AUC + DeLong, two groups", "1e6 rows", t, f"< roc_auc_score ({t_sk:.3f} s)")
    )
    t = best(lambda: fastfair.auc_test(ya, score, ga, n_permutations=1000, random_state=0), 1)
    rows.append(("auc_test, studentized, 1,000 permutations", "1e6 rows", t, "< 5 s"))
    t = best(
        lambda: fastfair.auc_test(
            ya, score, ga, n_permutations=1000, scheme="full", random_state=0
        ),
        1,
    )
    rows.append(("auc_test, full scheme, 1,000 permutations", "1e6 rows", t, "< 5 s"))

    values = rng.normal(size=n)
    for frac in (0.5, 0.1):
        gm = (rng.random(n) < frac).astype(int)
        t = best(
            lambda g=gm: fastfair.mean_difference_test(
                values, g, method="monte_carlo", n_permutations=10**4, random_state=0
            ),
            1,
        )
        rows.append(
            (
                "mean_difference_test (Welch), 1e4 permutations",
                f"1e6 rows, minority {frac:.0%}",
                t,
                "< 5 s",
            )
        )

    n_obs, n_users = 10**7, 10**6
    user = rng.integers(0, n_users, n_obs)
    user_group = rng.integers(0, 2, n_users)
    s = rng.beta(2, 5, n_obs)
    yy = (rng.random(n_obs) < s).astype(np.int8)
    t = best(
        lambda: fastfair.predictive_parity_test(
            yy, s, user_group[user], cluster=user, grid=50, random_state=0
        ),
        1,
    )
    rows.append(
        ("predictive_parity_test, clustered, 50 grid points", "1e7 obs, 1e6 users", t, "< 3 s")
    )

    nw, d = 10**6, 20
    X = rng.normal(size=(nw, d))
    a = rng.integers(0, 2, nw)
    yw = rng.integers(0, 2, nw)
    coef = rng.normal(size=d) / np.sqrt(d)
    t = best(lambda: fastfair.wasserstein_test(X, yw, a, coef), r)
    rows.append(("wasserstein_test, equal opportunity", "N = 1e6, d = 20", t, "< 2 s"))

    print(
        f"fastfair {fastfair.__version__}; {platform.machine()}, {os.cpu_count()} cores; "
        f"load average at end {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}"
    )
    print("| task | size | time (s) | target |")
    print("|---|---|---|---|")
    for task, size, t, target in rows:
        print(f"| {task} | {size} | {t:.3f} | {target} |")


if __name__ == "__main__":
    main()
