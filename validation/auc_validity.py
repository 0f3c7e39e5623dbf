"""Validity of the AUC permutation tests by simulation (KDD 2020 Sec. 3.2, Theorems 1-2).

Weak null: two groups with equal AUC but different prevalence (0.8 vs 0.2) and different
score spread (binormal, positives N(1, 1) vs N(sqrt(5), 3), negatives N(0, 1): AUC =
Phi(1 / sqrt(2)) = 0.760 in both). Theorem 1: the permutation distribution of the raw AUC
difference is that of the mixture, so its test does not hold the level; Theorem 2: the
DeLong-studentized difference does. Strong null: both groups from the same distribution,
where every variant is exact. Rejection rates at alpha = 0.05 with their binomial Monte-Carlo
standard errors.

Usage: python validation/auc_validity.py [--quick] [--n-jobs N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import special

import fastfair.auc as ffauc

ALPHA = 0.05
VARIANTS = [
    ("full", True),
    ("full", False),
    ("within_outcome", True),
    ("within_outcome", False),
    ("delong", True),
]


def draw(rng, n_a, n_b, weak: bool):
    """Scores, labels and groups of one simulated data set."""
    y_a = rng.random(n_a) < 0.8
    y_b = rng.random(n_b) < (0.2 if weak else 0.8)
    s_a = np.where(y_a, rng.normal(1.0, 1.0, n_a), rng.normal(0.0, 1.0, n_a))
    if weak:
        s_b = np.where(y_b, rng.normal(np.sqrt(5.0), 3.0, n_b), rng.normal(0.0, 1.0, n_b))
    else:
        s_b = np.where(y_b, rng.normal(1.0, 1.0, n_b), rng.normal(0.0, 1.0, n_b))
    group = np.r_[np.zeros(n_a, int), np.ones(n_b, int)]
    return np.r_[y_a, y_b], np.r_[s_a, s_b], group


def rejection_rates(n_a, n_b, weak, n_sim, n_perm, seed, n_jobs):
    rng = np.random.default_rng(seed)
    reject = np.zeros(len(VARIANTS))
    for sim in range(n_sim):
        y, s, g = draw(rng, n_a, n_b, weak)
        for v, (scheme, stud) in enumerate(VARIANTS):
            if scheme == "delong":
                res = ffauc.auc_test(y, s, g, method="delong")
            else:
                res = ffauc.auc_test(
                    y,
                    s,
                    g,
                    scheme=scheme,
                    studentize=stud,
                    n_permutations=n_perm,
                    random_state=seed * 100003 + sim,
                    n_jobs=n_jobs,
                )
            reject[v] += res.pvalue <= ALPHA
    return reject / n_sim


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few simulations (about 1 min)")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    n_sim, n_perm = (400, 199) if args.quick else (2000, 199)
    settings = [(200, 200), (1000, 1000), (200, 2000)]
    if args.quick:
        settings = [(200, 200)]
    se = np.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    print(
        f"AUC test validity: alpha = {ALPHA}, {n_sim} simulations, B = {n_perm}; "
        f"MC standard error of a rate near alpha: {se:.4f} (3 SE = {3 * se:.4f})"
    )
    print("weak null: equal AUC 0.760, prevalence 0.8 vs 0.2, positives N(1,1) vs N(2.24,3)")
    print(f"Phi(1/sqrt2) = {special.ndtr(1 / np.sqrt(2)):.4f}\n")
    header = "  ".join(f"{s + ('/stud' if t else '/raw'):>20}" for s, t in VARIANTS)
    for null in ("weak", "strong"):
        for n_a, n_b in settings:
            t0 = time.perf_counter()
            rates = rejection_rates(n_a, n_b, null == "weak", n_sim, n_perm, 7, args.n_jobs)
            print(f"{null} null, n_A = {n_a}, n_B = {n_b}  ({time.perf_counter() - t0:.0f} s)")
            print("  " + header)
            print("  " + "  ".join(f"{r:>20.4f}" for r in rates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
