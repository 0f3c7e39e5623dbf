"""Level of AUC margin tests with small groups (issue 17): which reference holds alpha.

The DeLong margin test Z = (AUC_A - AUC_B - d) / SE_DeLong reached 0.081 at alpha 0.05 with
100 rows (50 positives) and AUCs near 0.9 (validation/results/tolerance_level.txt): when an
AUC is near 1 its estimate is skewed and its variance shrinks as it grows, so large
estimates come with small standard errors. Candidates, each on the same simulated data:

* ``delong``: N(0, 1) reference (fastfair's method until this comparison);
* ``delong-t``: Student t with Satterthwaite degrees of freedom of the four variance
  components S10/n+ and S01/n- of the two groups;
* ``logit``: MOVER (Zou & Donner 2008; Newcombe 1998's hybrid) from each group's
  logit-scale interval, logit(AUC) +- z SE / (AUC (1 - AUC)): the lower bound of AUC_A -
  AUC_B is D - sqrt((AUC_A - l_A)^2 + (u_B - AUC_B)^2); the p-value of H0: U <= d is
  Phi(-z*) with z* the level at which that bound equals d;
* ``logit-t``: the same MOVER with each group's interval at level Phi(z) taken from the
  Student t with that group's Satterthwaite degrees of freedom (of S10/n+ and S01/n-).

Binormal scores with equal variances (AUC = Phi(mu / sqrt 2)); the one-sided test of
H0: U <= u at U = u (AUC_A = AUC_B + u) and of H0: U >= -u at U = -u, alpha 0.05; 4000
simulations per setting (SE 0.0034 at 0.05).

    python validation/auc_margin_small.py --quick   # seconds
    python validation/auc_margin_small.py           # validation/results/auc_margin_small.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
from scipy import special, stats

from fastfair.auc import delong
from fastfair.tolerance import auc_margin_statistic, satterthwaite_df

ALPHA = 0.05
METHODS = ("delong", "delong-t", "logit", "logit-t")


def satterthwaite_t(diff, d, res):
    """Z with Satterthwaite's t reference: the p-value of H0: U <= d."""
    parts = np.concatenate([res.s10 / res.n_pos, res.s01 / res.n_neg])
    dfs = np.concatenate([res.n_pos - 1.0, res.n_neg - 1.0])
    var = parts.sum()
    df = var**2 / np.sum(parts**2 / dfs) if var > 0 else np.inf
    z = (diff - d) / math.sqrt(var) if var > 0 else math.copysign(np.inf, diff - d)
    return stats.t.sf(z, df)


def simulate(n_a, n_b, prev, auc_b, u, side, n_sim, rng):
    """Rejection rates of each method at the boundary."""
    auc_a = auc_b + u if side == "greater" else auc_b - u
    shift = [math.sqrt(2) * special.ndtri(a) for a in (auc_a, auc_b)]
    d = u if side == "greater" else -u
    rej = dict.fromkeys(METHODS, 0)
    group = np.repeat([0, 1], [n_a, n_b])
    for _ in range(n_sim):
        while True:
            y = rng.random(n_a + n_b) < prev
            if min(y[:n_a].sum(), n_a - y[:n_a].sum(), y[n_a:].sum(), n_b - y[n_a:].sum()) >= 2:
                break
        score = rng.standard_normal(n_a + n_b) + np.where(group == 0, shift[0], shift[1]) * y
        res = delong(y, score, group)
        diff = res.auc[0] - res.auc[1]
        z = (diff - d) / math.sqrt(res.variance.sum())
        p_t = satterthwaite_t(diff, d, res)
        parts = (res.auc[0], res.variance[0], res.auc[1], res.variance[1], d)
        z_logit = auc_margin_statistic(*parts)
        df = satterthwaite_df(res.s10, res.n_pos, res.s01, res.n_neg)
        z_logit_t = auc_margin_statistic(*parts, df[0], df[1])
        if side == "greater":
            p = {
                "delong": special.ndtr(-z),
                "delong-t": p_t,
                "logit": special.ndtr(-z_logit),
                "logit-t": special.ndtr(-z_logit_t),
            }
        else:
            p = {
                "delong": special.ndtr(z),
                "delong-t": 1 - p_t,
                "logit": special.ndtr(z_logit),
                "logit-t": special.ndtr(z_logit_t),
            }
        for m in METHODS:
            rej[m] += p[m] <= ALPHA
    return {m: r / n_sim for m, r in rej.items()}


SIZES = [(50, 50), (50, 1000), (100, 100), (100, 1000)]
PREVS = [0.2, 0.5]
AUCS = [0.7, 0.85, 0.93]
SIDES = ["greater", "less"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    if args.quick:
        grid = [((100, 1000), 0.5, 0.85, "greater")]
        n_sim = 300
    else:
        grid = list(itertools.product(SIZES, PREVS, AUCS, SIDES))
        n_sim = args.n_sim
    u = 0.05
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    print(
        f"AUC margin tests, one-sided level at the boundary |U| = {u}, alpha {ALPHA}; "
        f"{n_sim} simulations per setting, SE {se:.4f} (3 SE: {ALPHA + 3 * se:.4f})"
    )
    print("   n_A    n_B  prev  AUC_B  H1         " + "  ".join(f"{m:>8}" for m in METHODS))
    levels = {m: [] for m in METHODS}
    for (n_a, n_b), prev, auc_b, side in grid:
        r = simulate(n_a, n_b, prev, auc_b, u, side, n_sim, rng)
        for m in METHODS:
            levels[m].append(r[m])
        h1 = f"U > {u}" if side == "greater" else f"U < {-u}"
        print(
            f"  {n_a:4d}  {n_b:5d}  {prev:.1f}  {auc_b:.2f}   {h1:9s}  "
            + "  ".join(f"{r[m]:8.4f}" for m in METHODS),
            flush=True,
        )
    print("  summary (mean / max / share above alpha + 3 SE):")
    for m in METHODS:
        lv = np.array(levels[m])
        print(f"    {m:9s} {lv.mean():.4f} / {lv.max():.4f} / {np.mean(lv > ALPHA + 3 * se):.3f}")
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
