"""KDD 2020 Sec. 4.2: the basic bootstrap of the FNR difference vs permutation tests.

Setting (METHODS.md 1.8): n_A = n_B = 200; P(y = 1) = 0.8 in A and 0.2 in B; the classifier
has TPR = TNR = 0.9 in both groups, so the FNRs are equal (null true). Rejection rates at
alpha = 0.05 of:

* the basic bootstrap of the unstudentized FNR difference
  (fastfair.resampling.basic_bootstrap_test; paper 0.1078, a quick run while writing the issue
  0.096);
* for context, the permutation tests of fastfair.permutation_test under full permutation:
  unstudentized (paper 0.1216) and studentized with the paper's unpooled variance (paper
  0.0486, not reproduced: see METHODS.md 1.3b), and the default conditional exact test.

Usage: python validation/basic_bootstrap_fnr.py [--quick] [--n-sims N]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fastfair
from fastfair.resampling import basic_bootstrap_test

N_A = N_B = 200
ALPHA = 0.05
N_BOOT = N_PERM = 999


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1000 simulations")
    parser.add_argument("--n-sims", type=int, default=None)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    n_sims = args.n_sims or (1000 if args.quick else 10_000)
    rng = np.random.default_rng(args.seed)
    group = np.repeat([0, 1], [N_A, N_B])
    names = [
        "basic bootstrap, unstudentized difference",
        "permutation (full), unstudentized",
        "permutation (full), studentized, unpooled",
        "permutation (conditional, exact; default)",
    ]
    paper = [0.1078, 0.1216, 0.0486, None]
    rejected = np.zeros(len(names))
    times = np.zeros(len(names))
    for s in range(n_sims):
        y = rng.random(N_A + N_B) < np.where(group == 0, 0.8, 0.2)
        pred = np.where(rng.random(N_A + N_B) < 0.9, y, ~y)
        t0 = time.perf_counter()
        res = basic_bootstrap_test(
            y, pred, group, metric="fnr", n_bootstrap=N_BOOT, random_state=s
        )
        times[0] += time.perf_counter() - t0
        rejected[0] += res.pvalue <= ALPHA
        for k, kw in enumerate(
            [
                dict(scheme="full", studentize=False, method="monte_carlo"),
                dict(scheme="full", variance="unpooled", method="monte_carlo"),
                dict(),
            ],
            start=1,
        ):
            t0 = time.perf_counter()
            p = fastfair.permutation_test(
                y, pred, group, metric="fnr", n_permutations=N_PERM, random_state=s, **kw
            ).pvalue
            times[k] += time.perf_counter() - t0
            rejected[k] += p <= ALPHA
    print(
        f"KDD 2020 Sec. 4.2, FNR: n_A = n_B = {N_A}, prevalence 0.8 / 0.2, TPR = TNR = 0.9; "
        f"{n_sims} simulations, B = {N_BOOT} resamples/permutations, alpha = {ALPHA}"
    )
    print(f"{'test':46s}{'rate':>8s}{'MC SE':>8s}{'paper':>8s}{'time (s)':>10s}")
    for name, r, p_ref, t in zip(names, rejected / n_sims, paper, times):
        se = math.sqrt(max(r * (1 - r), 1e-12) / n_sims)
        p_txt = f"{p_ref:8.4f}" if p_ref is not None else f"{'-':>8s}"
        print(f"{name:46s}{r:8.4f}{se:8.4f}{p_txt}{t:10.1f}")


if __name__ == "__main__":
    main()
