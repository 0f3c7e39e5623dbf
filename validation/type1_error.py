"""Level and power of permutation_test's variants (METHODS.md 1.3b, paper Sec. 4.2).

Two groups with equal FNR but different prevalence (the null of equal metrics, not of equal
distributions); each simulated data set is tested with every scheme and variance, and the
rejection rate at alpha = 0.05 is recorded with its binomial standard error. Then the same
for alternatives (group B's TPR lowered) to show what each variant's power is.

    python validation/type1_error.py --quick     # a few hundred simulations (tests run this)
    python validation/type1_error.py             # 4,000 simulations per setting (recorded in
                                                 # validation/results/type1_error.txt)
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fastfair

ALPHA = 0.05
# (n_A, n_B, prevalence A, prevalence B, TPR, TNR); the first four are METHODS.md 1.3b's.
NULL_SETTINGS = [
    (200, 200, 0.8, 0.2, 0.9, 0.9),
    (1000, 1000, 0.8, 0.2, 0.9, 0.9),
    (60, 3000, 0.6, 0.15, 0.7, 0.9),
    (50, 5000, 0.6, 0.1, 0.8, 0.9),
    (100, 2000, 0.3, 0.05, 0.8, 0.9),
    (500, 100, 0.1, 0.5, 0.95, 0.8),
]
# Alternatives: the same settings with group B's TPR lowered by `shift`.
POWER_SHIFT = {0: 0.15, 1: 0.06, 2: 0.2, 3: 0.2, 4: 0.15, 5: 0.1}

VARIANTS = {  # name: options of permutation_test_from_counts
    "raw/full": dict(scheme="full", studentize=False, method="monte_carlo"),
    "unpooled/full (paper)": dict(scheme="full", variance="unpooled", method="monte_carlo"),
    "pooled/full": dict(scheme="full", variance="pooled", method="monte_carlo"),
    "raw/within_outcome": dict(scheme="within_outcome", studentize=False, method="exact"),
    "conditional exact (default)": dict(),
    "conditional mid-p": dict(mid_p=True),
    "asymptotic Wald (unpooled)": dict(method="asymptotic", variance="unpooled"),
}


def simulate_counts(rng, n_a, n_b, prev_a, prev_b, tpr_a, tpr_b, tnr):
    """Cell counts (TN, FP, FN, TP) of groups A and B with independent rows."""
    rows = []
    for n, prev, tpr in ((n_a, prev_a, tpr_a), (n_b, prev_b, tpr_b)):
        pos = rng.binomial(n, prev)
        tp = rng.binomial(pos, tpr)
        tn = rng.binomial(n - pos, tnr)
        rows.append([tn, n - pos - tn, pos - tp, tp])
    return np.array(rows)


def rejection_rates(setting, shift, n_sim, n_permutations, seed):
    """Rejection rate of each variant over n_sim data sets (groups with a denominator)."""
    n_a, n_b, prev_a, prev_b, tpr, tnr = setting
    rng = np.random.default_rng(seed)
    rejected = dict.fromkeys(VARIANTS, 0)
    done = 0
    while done < n_sim:
        counts = simulate_counts(rng, n_a, n_b, prev_a, prev_b, tpr, tpr - shift, tnr)
        if (counts[:, 2] + counts[:, 3] == 0).any():  # FNR undefined: redraw
            continue
        for name, options in VARIANTS.items():
            if options.get("method") == "monte_carlo":
                options = {**options, "n_permutations": n_permutations}
            res = fastfair.permutation_test_from_counts(
                counts, ["A", "B"], metric="fnr", reference="A", random_state=done, **options
            )
            rejected[name] += res.pvalue <= ALPHA
        done += 1
    return {name: count / n_sim for name, count in rejected.items()}


def run(n_sim: int, n_permutations: int = 999, seed: int = 0, power: bool = True):
    """Rows (kind, setting, variant, rate, se) for the null and, optionally, alternatives."""
    rows = []
    for i, setting in enumerate(NULL_SETTINGS):
        for kind, shift in (("null", 0.0), ("power", POWER_SHIFT[i]))[: 2 if power else 1]:
            rates = rejection_rates(setting, shift, n_sim, n_permutations, seed + 17 * i)
            for name, rate in rates.items():
                se = math.sqrt(max(rate * (1 - rate), 1e-12) / n_sim)
                rows.append((kind, setting, shift, name, rate, se))
    return rows


def format_rows(rows, n_sim, n_permutations) -> str:
    lines = [
        f"FNR test, alpha = {ALPHA}, {n_sim} simulations per setting, "
        f"B = {n_permutations} for Monte-Carlo variants",
        "setting = (n_A, n_B, prevalence A, prevalence B, TPR, TNR); power: B's TPR lowered",
        "",
    ]
    current = None
    for kind, setting, shift, name, rate, se in rows:
        if (kind, setting) != current:
            current = (kind, setting)
            label = "NULL (equal FNR)" if kind == "null" else f"POWER (TPR_B = TPR - {shift})"
            lines.append(f"{label}  setting {setting}")
        flag = ""
        if kind == "null" and rate > ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / n_sim):
            flag = "  <- above alpha + 3 SE"
        lines.append(f"  {name:30s} {rate:7.4f}  (SE {se:.4f}){flag}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 simulations, B = 199")
    parser.add_argument("--n-sim", type=int, default=None)
    args = parser.parse_args()
    n_sim = args.n_sim or (300 if args.quick else 4000)
    n_permutations = 199 if args.quick else 999
    start = time.perf_counter()
    rows = run(n_sim, n_permutations)
    print(format_rows(rows, n_sim, n_permutations))
    print(f"\n({time.perf_counter() - start:.0f} s, fastfair {fastfair.__version__})")


if __name__ == "__main__":
    main()
