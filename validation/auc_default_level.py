"""Level of auc_test's default call (issue 28 point 4), on untied float64 scores.

The default (method None) is the DeLong z-test when every compared group has at least
1,000 positives and 1,000 negatives and the sequential permutation test otherwise. Under
the weak null of equal AUCs (groups that differ in prevalence, 30% against 10%, and in the
shape of their positives' scores, binormal with SD 1 against 2, both AUC 0.75), this counts
the share of data sets the default call rejects at alpha = 0.05 ("undecided" counts as
not rejected), in two designs: a large one (a 10% group of 200,000 rows, about 2,000
positives: the z-test branch)
and a small one (a 4% group of 20,000 rows, about 80 positives: the permutation branch),
with the binomial standard error; the mean time per call; and, as the power twins, the
same designs with group 1's AUC lower by 0.02 (large) and 0.15 (small).

    python validation/auc_default_level.py --quick   # 60 data sets per design
    python validation/auc_default_level.py           # full run (500 per design, 100 per
    # power twin), recorded in validation/results/auc_default_level.txt
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
from scipy import stats

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ALPHA = 0.05


def _mu(auc, sd_pos):
    """Mean of positives ~ N(mu, sd_pos) against negatives ~ N(0, 1) giving `auc`."""
    return stats.norm.ppf(auc) * math.sqrt(1.0 + sd_pos**2)


def dataset(rng, n, share, gap=0.0, auc=0.75):
    """Group 1 (a `share` of the rows): prevalence 10%, positives N(mu, 2), AUC auc - gap;
    group 0: prevalence 30%, positives N(mu, 1), AUC auc; negatives N(0, 1); logistic scores
    (float64, no ties)."""
    g = (rng.random(n) < share).astype(np.int64)
    y = rng.random(n) < np.where(g == 1, 0.1, 0.3)
    sd = np.where(g == 1, 2.0, 1.0)
    mu = np.where(g == 1, _mu(auc - gap, 2.0), _mu(auc, 1.0))
    z = np.where(y, rng.normal(size=n) * sd + mu, 0)
    z = np.where(y, z, rng.normal(size=n))
    return y, 1.0 / (1.0 + np.exp(-z)), g


def simulate(n, share, n_sim, seed, gap=0.0):
    """(rejection rate, SE, methods used, share undecided, mean seconds per call)."""
    rng = np.random.default_rng(seed)
    rejected, undecided, methods, seconds = 0, 0, set(), 0.0
    for i in range(n_sim):
        y, s, g = dataset(rng, n, share, gap)
        start = time.perf_counter()
        res = fastfair.auc_test(y, s, g, reference=0, random_state=i)
        seconds += time.perf_counter() - start
        methods.add(res.method)
        if res.method == "delong":
            rejected += res.pvalue <= ALPHA
        else:
            rejected += res.decision == "reject"
            undecided += res.decision == "undecided"
    rate = rejected / n_sim
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    return rate, se, sorted(methods), undecided / n_sim, seconds / n_sim


def run(quick: bool = False, seed: int = 28):
    n_sim = 60 if quick else 500
    large = 2 * 10**5
    designs = [
        ("large: 10% group", large, 0.10, 0.0),
        ("small: 4% group", 20_000, 0.04, 0.0),
        ("power, large, gap 0.02", large, 0.10, 0.02),  # the power twins: AUC lower by gap
        ("power, small, gap 0.15", 20_000, 0.04, 0.15),
    ]
    rows = []
    for k, (name, n, share, gap) in enumerate(designs):
        n_k = n_sim if gap == 0 else max(30, n_sim // 5)
        rows.append((name, n, share, n_k, *simulate(n, share, n_k, seed + k, gap)))
    return rows, n_sim


def format_rows(rows, n_sim) -> str:
    lines = [
        f"alpha = {ALPHA}; SE = sqrt(alpha (1 - alpha) / data sets) (under the null)",
        "design                     rows  group  data sets  rejection  SE      method used"
        "          undecided  s per call",
    ]
    for name, n, share, n_k, rate, se, methods, undecided, sec in rows:
        lines.append(
            f"{name:<23} {n:>8} {share:>5.0%}  {n_k:>9}  {rate:>9.4f}  {se:.4f}  "
            f"{'/'.join(methods):<20} {undecided:>9.3f}  {sec:>10.3f}"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.time()
    rows, n_sim = run(quick=args.quick)
    commit = git_commit()
    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"commit {commit}")
    print(format_rows(rows, n_sim))
    print(f"elapsed {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
