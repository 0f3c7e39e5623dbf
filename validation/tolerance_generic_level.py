"""Level at the boundary of the generic and weighted tolerance tests (issue 17).

fastfair.tolerance_test with (one-sided, H0: U <= u_tol, alpha 0.05), at a true gap U equal
to u_tol:

* a row metric, ``"mean_score"`` (mean of y_pred), Welch's standard error (method "auto")
  and the bootstrap standard error (``"bootstrap"``);
* a callable metric, the median of y_pred, bootstrap standard error (the only method);
* weighted TPR (score test with Kish effective sizes), weights Gamma(2, 1) independent of
  the outcome, so the weighted rate estimates the same TPR.

Scores of group A are those of group B shifted by u_tol (Beta(2, 5) + shift), so every
location metric (mean, median) differs by exactly u_tol. The rejection rates are compared
with alpha within 3 binomial SEs, and a power twin (true gap u_tol + 0.05; weighted TPR
u_tol + 0.2) is printed.

    python validation/tolerance_generic_level.py --quick   # seconds (the tests run it)
    python validation/tolerance_generic_level.py           # recorded in
        validation/results/tolerance_generic_level.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fastfair

ALPHA = 0.05
U_TOL = 0.02


def median_metric(y_true, y_pred):
    """A callable metric: the median score of a group."""
    return float(np.median(y_pred))


def _scores(rng, n_a, n_b, gap):
    group = np.repeat([0, 1], [n_a, n_b])
    score = rng.beta(2, 5, n_a + n_b) + np.where(group == 0, gap, 0.0)
    y = rng.random(n_a + n_b) < 0.3
    return y, score, group


def rate_of(kind, n_a, n_b, gap, n_sim, seed, n_bootstrap):
    """Rejection rate of one kind of test at true gap `gap`."""
    rng = np.random.default_rng(seed)
    rej = 0
    for s in range(n_sim):
        if kind == "weighted tpr":
            group = np.repeat([0, 1], [n_a, n_b])
            y = rng.random(n_a + n_b) < 0.4
            y[[0, n_a]] = True  # every group has a positive
            tpr = np.where(group == 0, 0.7 + gap, 0.7)
            yhat = y & (rng.random(n_a + n_b) < tpr)
            w = rng.gamma(2.0, 1.0, n_a + n_b)
            res = fastfair.tolerance_test(
                y, yhat, group, metric="tpr", u_tol=U_TOL, alternative="greater", reference=1,
                sample_weight=w,
            )  # fmt: skip
        else:
            y, score, group = _scores(rng, n_a, n_b, gap)
            metric = median_metric if kind == "callable median (bootstrap)" else "mean_score"
            method = "bootstrap" if "bootstrap" in kind else "welch"
            res = fastfair.tolerance_test(
                y, score, group, metric=metric, u_tol=U_TOL, alternative="greater", reference=1,
                method=method, n_bootstrap=n_bootstrap, random_state=seed + s,
            )  # fmt: skip
        rej += res.pvalue <= ALPHA
    return rej / n_sim


KINDS = [
    "mean_score (welch)",
    "mean_score (bootstrap)",
    "callable median (bootstrap)",
    "weighted tpr",
]
SIZES = [(50, 500), (200, 200), (1000, 1000)]
#: true gap beyond u_tol of the power twin (a TPR gap needs more: 40% of the rows count)
POWER_GAP = {"weighted tpr": 0.2}


def run(quick, seed=17, n_sim_full=4000):
    """Rows (kind, n_a, n_b, n_sim, level, power)."""
    rows = []
    sizes = [(200, 200)] if quick else SIZES
    for k, kind in enumerate(KINDS):
        bootstrap = "bootstrap" in kind
        n_sim = (30 if bootstrap else 100) if quick else n_sim_full // (4 if bootstrap else 1)
        n_boot = 100 if quick else 500
        for n_a, n_b in sizes:
            level = rate_of(kind, n_a, n_b, U_TOL, n_sim, seed + 100 * k, n_boot)
            gap = U_TOL + POWER_GAP.get(kind, 0.05)
            power = rate_of(kind, n_a, n_b, gap, max(n_sim // 4, 25), seed + 1, n_boot)
            rows.append((kind, n_a, n_b, n_sim, level, power))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--n-sim", type=int, default=4000, help="(bootstrap kinds: a quarter)")
    args = parser.parse_args()
    t0 = time.time()
    rows = run(args.quick, args.seed, args.n_sim)
    print(
        f"Generic and weighted tolerance tests, H0: U <= {U_TOL} at U = {U_TOL}, alpha {ALPHA} "
        "(one-sided); power at U = u_tol + 0.05 (weighted TPR: + 0.2)"
    )
    print("  test                           n_A    n_B   n_sim   level   (3 SE)   power")
    for kind, n_a, n_b, n_sim, level, power in rows:
        se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
        flag = "" if abs(level - ALPHA) <= 3 * se else "  outside 3 SE"
        print(
            f"  {kind:28s} {n_a:5d}  {n_b:5d}  {n_sim:6d}  {level:.4f}  "
            f"({3 * se:.4f})  {power:.3f}{flag}"
        )
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
