"""Coverage of the 95% intervals of a difference of rates (issue 18 item 1, issue 17).

Part 1 (exact): for two binomial rates with fixed denominators n1, n2 (what a confusion
metric is, given the rows in its denominator), the coverage of an interval method is
sum_{x1, x2} P(x1) P(x2) 1{p1 - p2 in CI(x1, x2)}, computed exactly by enumerating all
(n1 + 1)(n2 + 1) outcomes, over a grid of group sizes (10 to 1000) and rates near 0, 1 and in
between. Three methods: Miettinen-Nurminen (fastfair's), Newcombe's hybrid score (method 10)
and Wald. Reported: mean coverage over the grid, the minimum, and the share of settings below
0.93.

Part 2 (Monte Carlo, through the public API): rows are simulated (random denominators:
prevalence draws the positives), `fastfair.permutation_test` is run, and the coverage of
`difference_interval` is counted, unweighted and with random sampling weights; also equalized
odds (both components). Binomial SEs are printed.

    python validation/difference_interval_coverage.py --quick   # seconds (the tests run it)
    python validation/difference_interval_coverage.py           # 2,000 simulations
    python validation/difference_interval_coverage.py --n-sim 1000 --sizes 10 30 100 300
        # recorded in validation/results/difference_interval_coverage.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
from scipy import special, stats

import fastfair
from fastfair._score import score_interval

LEVEL = 0.95
SIZES = [10, 30, 100, 300, 1000]
RATES = [0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99]
QUICK_SIZES = [10, 40]
QUICK_RATES = [0.05, 0.5, 0.95]


def wilson(x, n, z):
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe(x1, n1, x2, n2, level):
    """Newcombe (1998) hybrid score interval of p1 - p2 from two Wilson intervals."""
    z = special.ndtri(0.5 + level / 2)
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    return d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + np.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def wald(x1, n1, x2, n2, level):
    z = special.ndtri(0.5 + level / 2)
    p1, p2 = x1 / n1, x2 / n2
    se = np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return p1 - p2 - z * se, p1 - p2 + z * se


METHODS = {
    "miettinen-nurminen": lambda x1, n1, x2, n2, lv: score_interval(x1, n1, x2, n2, lv),
    "newcombe hybrid": newcombe,
    "wald": wald,
}


def exact_coverage(n1, n2, r1, r2, intervals):
    """Exact coverage of each method's interval for Binomial(n1, r1) - Binomial(n2, r2)."""
    prob = np.outer(
        stats.binom.pmf(np.arange(n1 + 1), n1, r1), stats.binom.pmf(np.arange(n2 + 1), n2, r2)
    )
    truth = r1 - r2
    out = {}
    for name, (lo, hi) in intervals.items():
        out[name] = float(prob[(lo <= truth + 1e-12) & (truth - 1e-12 <= hi)].sum())
    return out


def run_exact(sizes, rates):
    rows = []
    for n1, n2 in itertools.combinations_with_replacement(sizes, 2):
        x1, x2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
        intervals = {
            k: f(x1.astype(float), n1, x2.astype(float), n2, LEVEL) for k, f in METHODS.items()
        }
        for r1, r2 in itertools.product(rates, rates):
            rows.append((n1, n2, r1, r2, exact_coverage(n1, n2, r1, r2, intervals)))
    return rows


def summarize_exact(rows):
    lines = ["method              mean cov  min cov  share < 0.93  share < 0.94   (worst setting)"]
    for name in METHODS:
        cov = np.array([r[4][name] for r in rows])
        worst = rows[int(np.argmin(cov))]
        lines.append(
            f"{name:<19} {cov.mean():8.4f} {cov.min():8.4f} {np.mean(cov < 0.93):13.3f} "
            f"{np.mean(cov < 0.94):13.3f}   "
            f"(n1={worst[0]}, n2={worst[1]}, r1={worst[2]}, r2={worst[3]})"
        )
    return lines


def simulate_api(settings, n_sim, seed, weighted=False):
    """Coverage of permutation_test's difference_interval with simulated rows."""
    rng = np.random.default_rng(seed)
    out = []
    for n_a, n_b, prev, tpr_a, tpr_b, tnr_a, tnr_b in settings:
        hits = {"tpr": 0, "eo_tpr": 0, "eo_fpr": 0}
        for _ in range(n_sim):
            group = np.repeat([0, 1], [n_a, n_b])
            y = rng.random(n_a + n_b) < prev
            tpr = np.where(group == 0, tpr_a, tpr_b)
            tnr = np.where(group == 0, tnr_a, tnr_b)
            u = rng.random(n_a + n_b)
            yhat = np.where(y, u < tpr, u >= tnr)
            while (
                min(y[group == 0].sum(), y[group == 1].sum()) == 0
                or min((~y)[group == 0].sum(), (~y)[group == 1].sum()) == 0
            ):  # every rate needs a denominator: redraw the labels
                y = rng.random(n_a + n_b) < prev
                yhat = np.where(y, u < tpr, u >= tnr)
            w = rng.gamma(2.0, 0.5, n_a + n_b) if weighted else None
            kw = dict(reference=1, method="asymptotic", sample_weight=w)
            res = fastfair.permutation_test(y, yhat, group, metric="tpr", **kw)
            lo, hi = res.confidence_interval
            hits["tpr"] += lo <= tpr_a - tpr_b <= hi
            res = fastfair.permutation_test(y, yhat, group, metric="equalized_odds", **kw)
            lo, hi = res.confidence_interval
            hits["eo_tpr"] += lo[0] <= tpr_a - tpr_b <= hi[0]
            hits["eo_fpr"] += lo[1] <= (1 - tnr_a) - (1 - tnr_b) <= hi[1]
        out.append(
            (n_a, n_b, prev, tpr_a, tpr_b, tnr_a, tnr_b, {k: v / n_sim for k, v in hits.items()})
        )
    return out


API_SETTINGS = [  # n_A, n_B, prevalence, TPR_A, TPR_B, TNR_A, TNR_B
    (40, 40, 0.5, 0.9, 0.7, 0.95, 0.9),
    (30, 400, 0.3, 0.97, 0.99, 0.98, 0.99),
    (200, 2000, 0.1, 0.6, 0.75, 0.8, 0.9),
    (1000, 1000, 0.4, 0.5, 0.5, 0.5, 0.5),
]


def format_api(rows, n_sim, label):
    se = math.sqrt(LEVEL * (1 - LEVEL) / n_sim)
    lines = [
        f"{label}: {n_sim} simulations per setting, binomial SE at 0.95 = {se:.4f}",
        "  n_A   n_B  prev  TPR_A TPR_B TNR_A TNR_B   tpr    eo:tpr  eo:fpr",
    ]
    for n_a, n_b, prev, ta, tb, na_, nb_, cov in rows:
        lines.append(
            f"  {n_a:4d} {n_b:5d} {prev:5.2f} {ta:6.2f} {tb:5.2f} {na_:5.2f} {nb_:5.2f}"
            f"  {cov['tpr']:.4f}  {cov['eo_tpr']:.4f}  {cov['eo_fpr']:.4f}"
        )
    return lines


def run(quick: bool, seed: int = 2026, n_sim: int | None = None, sizes=None):
    sizes, rates = (QUICK_SIZES, QUICK_RATES) if quick else (sizes or SIZES, RATES)
    n_sim = n_sim or (100 if quick else 2000)
    settings = API_SETTINGS[:1] if quick else API_SETTINGS
    exact_rows = run_exact(sizes, rates)
    api = simulate_api(settings, n_sim, seed)
    api_w = simulate_api(settings, n_sim, seed + 1, weighted=True)
    return exact_rows, api, api_w, n_sim


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n-sim", type=int, default=None, help="simulations per setting")
    parser.add_argument("--sizes", type=int, nargs="+", default=None, help="group sizes")
    args = parser.parse_args()
    t0 = time.time()
    exact_rows, api, api_w, n_sim = run(args.quick, args.seed, args.n_sim, args.sizes)
    sizes = QUICK_SIZES if args.quick else (args.sizes or SIZES)
    rates = QUICK_RATES if args.quick else RATES
    print(f"Exact coverage of 95% intervals for p1 - p2; sizes {sizes} (all pairs), rates {rates}")
    print(f"(all rate pairs): {len(exact_rows)} settings")
    print("\n".join(summarize_exact(exact_rows)))
    print()
    print("Smallest group sizes only (n1, n2 <= 30):")
    print("\n".join(summarize_exact([r for r in exact_rows if max(r[0], r[1]) <= 30])))
    print()
    print("Rates near 0 or 1 only (both rates in {0.01, 0.05, 0.95, 0.99}):")
    print(
        "\n".join(
            summarize_exact(
                [r for r in exact_rows if all(v in (0.01, 0.05, 0.95, 0.99) for v in r[2:4])]
            )
        )
    )
    print()
    print(
        "\n".join(format_api(api, n_sim, "permutation_test(...).confidence_interval, unweighted"))
    )
    print(
        "\n".join(
            format_api(api_w, n_sim, "weighted (gamma(2, 0.5) weights, Kish effective sizes)")
        )
    )
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
