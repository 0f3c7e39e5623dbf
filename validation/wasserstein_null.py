"""Null rejection rates and power of the Wasserstein projection test (METHODS.md 4).

The authors' Gaussian-mixture null (Taskesen et al., FAccT 2021, Table 1): marginals
p00 = 0.4, p01 = 0.1, p10 = 0.3, p11 = 0.2 (multinomial cell counts, redrawn when a y = 1
cell is empty), X | (a, y) Gaussian: (1,1) N((6,0), 3.5 I), (0,1) N((-2,0), 5 I),
(1,0) N((2,0), 3.5 I), (0,0) N((-6,0), 5 I); classifier beta = (0, 1), no intercept, which is
fair for equal opportunity and for equalized odds (theta = 3.70). Power: beta = (delta, 1) on
the same data, unfair for delta != 0.

Usage: python validation/wasserstein_null.py [--quick] [--reps R] [--seed S]
The full run is recorded in validation/results/wasserstein_null.txt.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import integrate, special, stats

import fastfair
from fastfair.wasserstein import wasserstein_test

MARGINALS = np.array([0.4, 0.1, 0.3, 0.2])  # cells (a, y) = 00, 01, 10, 11
MEANS = {(0, 0): (-6.0, 0.0), (0, 1): (-2.0, 0.0), (1, 0): (2.0, 0.0), (1, 1): (6.0, 0.0)}
VARIANCE = {0: 5.0, 1: 3.5}  # by a
AUTHORS = {  # null rejection rates from the authors' outputs (METHODS.md 4)
    0.10: {10: 0.000, 100: 0.048, 500: 0.0895, 1000: 0.093},
    0.05: {10: 0.000, 100: 0.007, 500: 0.0425, 1000: 0.0405},
    0.01: {10: 0.000, 100: 0.000, 500: 0.0065, 1000: 0.005},
}
AUTHORS_REPS = 2000
ALPHAS = (0.10, 0.05, 0.01)


def draw(n: int, rng: np.random.Generator):
    """One sample of size n from the authors' mixture."""
    while True:
        counts = rng.multinomial(n, MARGINALS)
        if counts[1] > 0 and counts[3] > 0:
            break
    X, a, y = [], [], []
    for k, ((ai, yi), mean) in enumerate(sorted(MEANS.items())):
        m = counts[k]
        X.append(rng.normal(size=(m, 2)) * math.sqrt(VARIANCE[ai]) + np.array(mean))
        a.append(np.full(m, ai))
        y.append(np.full(m, yi))
    return np.vstack(X), np.concatenate(y), np.concatenate(a)


def population_theta() -> float:
    """theta of the limit for beta = (0, 1): both y = 1 cells have h = sigmoid(N(0, v))."""

    def moment(v, g):
        dens = lambda z: g(z) * math.exp(-z * z / (2 * v)) / math.sqrt(2 * math.pi * v)  # noqa: E731
        return integrate.quad(dens, -60, 60)[0]

    sig = special.expit
    num = den = 0.0
    for a, p in ((1, 0.2), (0, 0.1)):
        v = VARIANCE[a]
        num += moment(v, lambda z: (sig(z) - 0.5) ** 2) / p
        den += moment(v, lambda z: (sig(z) * (1 - sig(z))) ** 2) / p
    return num / den


def authors_theta(X, y, a, beta):
    """The authors' plug-in theta: each group centered at the other group's mean."""
    h = special.expit(X @ np.asarray(beta))
    n = len(y)
    h1, h0 = h[(a == 1) & (y == 1)], h[(a == 0) & (y == 1)]
    p1, p0 = len(h1) / n, len(h0) / n
    num = np.sum((h1 - h0.mean()) ** 2) / p1**2 + np.sum((h0 - h1.mean()) ** 2) / p0**2
    den = np.sum((h1 * (1 - h1)) ** 2) / p1**2 + np.sum((h0 * (1 - h0)) ** 2) / p0**2
    return num / den * float(np.dot(beta, beta)) ** -1


def simulate(n, reps, beta, criterion, seed):
    """p-values (ours, and with the authors' theta) and plug-in thetas over replications."""
    rng = np.random.default_rng([seed, n, int(1e6 * beta[0]), len(criterion)])
    pvals = np.empty(reps)
    pvals_authors = np.empty(reps)
    thetas = np.empty(reps)
    for r in range(reps):
        X, y, a = draw(n, rng)
        res = wasserstein_test(X, y, a, beta, criterion=criterion, n_jobs=1)
        pvals[r] = res.pvalue
        thetas[r] = np.sum(res.theta) if criterion == "equal_opportunity" else res.theta[1]
        if criterion == "equal_opportunity":
            theta_a = authors_theta(X, y, a, beta)
            pvals_authors[r] = stats.chi2.sf(res.statistic / theta_a, 1)
    return pvals, thetas, pvals_authors


def mc_se(p, reps):
    return math.sqrt(max(p * (1 - p), 1e-12) / reps)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 replications, N 100 and 500")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=20210303)
    args = parser.parse_args(argv)
    reps = args.reps or (300 if args.quick else 2000)
    sizes = (100, 500) if args.quick else (10, 100, 500, 1000)
    power_sizes = (100, 500) if args.quick else (100, 500, 1000)
    deltas = (0.05, 0.1) if args.quick else (0.02, 0.05, 0.1)

    print(f"fastfair {fastfair.__version__}: Wasserstein projection test, {reps} replications")
    print(f"population theta (equal opportunity) = {population_theta():.4f} (spec: 3.70)")
    t0 = time.perf_counter()

    print("\nNull rejection rates, equal opportunity, beta = (0, 1)")
    print("  (MC error: binomial standard error of our rate; z: difference from the authors'")
    print(
        f"   rate in units of the combined standard error of both, theirs with {AUTHORS_REPS}"
        " replications)"
    )
    print("  (theirs-theta: our statistic with the authors' plug-in theta, which centers each")
    print("   group at the other group's mean: it reproduces their rates)")
    header = (
        f"  {'N':>5} {'alpha':>6} {'fastfair':>9} {'+-se':>7} {'authors':>8} {'z':>6} "
        f"{'theirs-theta':>13}"
    )
    print(header)
    worst = 0.0
    for n in sizes:
        pvals, thetas, pvals_a = simulate(n, reps, (0.0, 1.0), "equal_opportunity", args.seed)
        for alpha in ALPHAS:
            rate = float(np.mean(pvals < alpha))
            theirs = AUTHORS[alpha][n]
            se = math.sqrt(mc_se(rate, reps) ** 2 + mc_se(theirs, AUTHORS_REPS) ** 2)
            z = (rate - theirs) / se
            if n >= 500:
                worst = max(worst, abs(z))
            print(
                f"  {n:>5} {alpha:>6.2f} {rate:>9.4f} {mc_se(rate, reps):>7.4f} "
                f"{theirs:>8.4f} {z:>6.2f} {np.mean(pvals_a < alpha):>13.4f}"
            )
        print(f"  {n:>5}  mean plug-in theta {np.mean(thetas):.3f} (sd {np.std(thetas):.3f})")
    print(f"  largest |z| at N >= 500: {worst:.2f}")

    print("\nNull rejection rates, equalized odds (theta_0 chi2_1 + theta_1 chi2_1, exact)")
    print(f"  {'N':>5} " + " ".join(f"{'a=' + str(al):>9}" for al in ALPHAS))
    for n in sizes[1:]:
        pvals, _, _ = simulate(n, reps, (0.0, 1.0), "equalized_odds", args.seed)
        rates = [float(np.mean(pvals < al)) for al in ALPHAS]
        print(f"  {n:>5} " + " ".join(f"{r:>9.4f}" for r in rates))

    print("\nPower at alpha = 0.05, equal opportunity, beta = (delta, 1) on the same data")
    rng = np.random.default_rng(args.seed)
    print(f"  {'delta':>6} {'gap':>7} " + " ".join(f"{'N=' + str(n):>8}" for n in power_sizes))
    for delta in deltas:
        Xb, yb, ab = draw(400_000, rng)
        h = special.expit(Xb @ np.array([delta, 1.0]))
        gap = h[(ab == 1) & (yb == 1)].mean() - h[(ab == 0) & (yb == 1)].mean()
        rates = []
        for n in power_sizes:
            pvals, _, _ = simulate(n, reps, (delta, 1.0), "equal_opportunity", args.seed)
            rates.append(float(np.mean(pvals < 0.05)))
        print(f"  {delta:>6.2f} {gap:>7.4f} " + " ".join(f"{r:>8.3f}" for r in rates))
    print(f"\nelapsed {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
