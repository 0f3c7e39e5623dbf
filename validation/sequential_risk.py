"""Resampling risk and familywise error of the sequential Monte-Carlo tests.

1. Resampling risk (Ding, Gandy & Hahn 2020): for exact p-values at alpha + offset, how
   often the sequential decision is on the wrong side of alpha (it must be <= epsilon, within
   Monte-Carlo error), how often it is "undecided" at the cap, and the permutations used.
   Two sources of exact p-values:
   - "bernoulli": the exceedance stream of a permutation test with exact p-value p is i.i.d.
     Bernoulli(p), so a sampler drawing Bernoulli(p) is the general case;
   - "permutation_test": simulated confusion-matrix data sets, each tested by
     fastfair.permutation_test (conditional scheme, method="monte_carlo", sequential), whose
     exact p-value (method="exact") is known; data sets are kept when their exact p-value lies
     within `window` of alpha + offset.
2. Familywise error of the multiple-testing variant (MMCTest with Holm): K hypotheses, K0 of
   them true (exact p-values uniform on (0, 1)), the rest false (p = 1e-4); FWER = P(some
   true null rejected) must be <= alpha (Holm on exact p-values) + epsilon; the power twin is
   the fraction of false nulls rejected.

    python validation/sequential_risk.py --quick   # seconds (the test suite runs a part)
    python validation/sequential_risk.py           # recorded in
                                                   # validation/results/sequential_risk.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fastfair
from fastfair import Sequential
from fastfair._sequential import Sampler, run


def _bernoulli_sampler(p: float, rng: np.random.Generator) -> Sampler:
    def draw(start, count):
        return (rng.random(count) < p).astype(np.float64)

    return Sampler(draw, 0.5, "greater", keep_null=False)


def _tally(p_exact, decisions, used, alpha, epsilon):
    decisions = np.asarray(decisions)
    right = "reject" if p_exact <= alpha else "retain"
    wrong = np.mean((decisions != right) & (decisions != "undecided"))
    reps = len(decisions)
    return dict(
        p=p_exact,
        reps=reps,
        wrong=float(wrong),
        se_bound=math.sqrt(epsilon * (1 - epsilon) / reps),
        undecided=float(np.mean(decisions == "undecided")),
        mean_permutations=float(np.mean(used)),
        max_permutations=int(np.max(used)),
    )


def simulate_risk(alpha=0.05, epsilon=1e-3, offsets=(-0.02, -0.01, 0.01, 0.02), reps=1000,
                  seed=0, cap=None):  # fmt: skip
    """Bernoulli exceedance streams at p = alpha + offset (and p = 0, 0.5 for the cost)."""
    rng = np.random.default_rng(seed)
    options = Sequential(alpha=alpha, epsilon=epsilon, max_permutations=cap)
    rows = []
    for offset in offsets:
        p = alpha + offset
        decisions, used = [], []
        for _ in range(reps):
            s = _bernoulli_sampler(p, rng)
            decisions.append(run([s], options)[0])
            used.append(s.n)
        rows.append(_tally(p, decisions, used, alpha, epsilon))
    return rows


def _confusion_data(rng, n, shift):
    g = rng.integers(0, 2, n)
    y = rng.random(n) < 0.3
    yhat = np.where(y, rng.random(n) < 0.7 - shift * g, rng.random(n) < 0.1)
    return y, yhat, g


def simulate_permutation_test(alpha=0.05, epsilon=1e-3, offset=0.01, window=0.003,
                              reps=200, seed=0, n=4000):  # fmt: skip
    """Data sets whose exact permutation p-value is within `window` of alpha + offset."""
    rng = np.random.default_rng(seed)
    decisions, used, exact = [], [], []
    tries = 0
    while len(decisions) < reps and tries < 400 * reps:
        tries += 1
        shift = rng.uniform(0.0, 0.08)
        y, yhat, g = _confusion_data(rng, n, shift)
        p = fastfair.permutation_test(y, yhat, g, metric="tpr", method="exact").pvalue
        if abs(p - (alpha + offset)) > window:
            continue
        res = fastfair.permutation_test(
            y, yhat, g, metric="tpr", method="monte_carlo",
            sequential=Sequential(alpha=alpha, epsilon=epsilon),
            random_state=int(rng.integers(2**32)),
        )  # fmt: skip
        right = "reject" if p <= alpha else "retain"
        decisions.append(res.decision if res.decision == "undecided" else res.decision == right)
        used.append(res.n_permutations)
        exact.append(p)
    d = np.array(decisions, dtype=object)
    k = len(d)
    return dict(
        target=alpha + offset,
        reps=k,
        mean_exact_p=float(np.mean(exact)),
        wrong=float(np.mean(d == False)),  # noqa: E712  (object array of True/False/str)
        se_bound=math.sqrt(epsilon * (1 - epsilon) / max(k, 1)),
        undecided=float(np.mean(d == "undecided")),
        mean_permutations=float(np.mean(used)),
    )


def simulate_fwer(n_tests=10, n_false=3, reps=500, alpha=0.05, epsilon=1e-3, seed=0,
                  procedure="holm"):  # fmt: skip
    """FWER and power of the sequential family (MMCTest with `procedure`)."""
    rng = np.random.default_rng(seed)
    options = Sequential(alpha=alpha, epsilon=epsilon)
    any_false_rejection, power, used = 0, [], []
    for _ in range(reps):
        p = np.r_[np.full(n_false, 1e-4), rng.random(n_tests - n_false)]
        samplers = [_bernoulli_sampler(q, rng) for q in p]
        dec = run(samplers, options, procedure)
        any_false_rejection += bool(np.any(dec[n_false:] == "reject"))
        power.append(np.mean(dec[:n_false] == "reject"))
        used.append(sum(s.n for s in samplers))
    fwer = any_false_rejection / reps
    return dict(
        n_tests=n_tests,
        n_false=n_false,
        reps=reps,
        fwer=fwer,
        se=math.sqrt(alpha * (1 - alpha) / reps),
        power=float(np.mean(power)),
        mean_permutations_total=float(np.mean(used)),
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    quick = args.quick
    t0 = time.perf_counter()
    print("Sequential Monte-Carlo tests: resampling risk (alpha 0.05, epsilon 1e-3)")
    print("1a. Bernoulli exceedance streams with exact p-value p")
    reps = 200 if quick else 2000
    rows = simulate_risk(offsets=(-0.05, -0.02, -0.01, 0.01, 0.02, 0.45), reps=reps, seed=1)
    head = ("p", "reps", "wrong", "bound+3SE", "undecided", "mean n", "max n")
    print("{:>7} {:>6} {:>8} {:>10} {:>9} {:>9} {:>7}".format(*head))
    for r in rows:
        print(
            f"{r['p']:7.3f} {r['reps']:6d} {r['wrong']:8.4f} {1e-3 + 3 * r['se_bound']:10.4f} "
            f"{r['undecided']:9.3f} {r['mean_permutations']:9.0f} {r['max_permutations']:7d}"
        )
    print("1b. permutation_test (TPR, conditional scheme, 4,000 rows), exact p-value known")
    for offset in (-0.01, 0.01):
        r = simulate_permutation_test(offset=offset, reps=40 if quick else 300, seed=5)
        print(
            f"  exact p ~ {r['target']:.3f} (mean {r['mean_exact_p']:.4f}): {r['reps']} data sets,"
            f" wrong {r['wrong']:.4f} (bound 1e-3 + 3 SE = {1e-3 + 3 * r['se_bound']:.4f}),"
            f" undecided {r['undecided']:.3f}, mean permutations {r['mean_permutations']:.0f}"
        )
    print("2. familywise error of the MMCTest family (Holm), true nulls p ~ U(0, 1)")
    for k, k1 in ((10, 3), (30, 5)):
        r = simulate_fwer(n_tests=k, n_false=k1, reps=100 if quick else 1000, seed=k)
        print(
            f"  {k} tests ({k1} false, p = 1e-4): FWER {r['fwer']:.4f} "
            f"(alpha + 3 SE = {0.05 + 3 * r['se']:.4f}), power {r['power']:.3f}, "
            f"permutations per family {r['mean_permutations_total']:.0f}"
        )
    print(f"elapsed {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
