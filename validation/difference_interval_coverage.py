"""Coverage of the 95% intervals of a difference of rates (issue 18 item 1, issue 17).

Part 1 (exact): for two binomial rates with fixed denominators n1, n2 (what a confusion
metric is, given the rows in its denominator), the coverage of an interval method is
sum_{x1, x2} P(x1) P(x2) 1{p1 - p2 in CI(x1, x2)}, computed exactly by enumerating all
(n1 + 1)(n2 + 1) outcomes, over a grid of group sizes (10 to 1000) and rates near 0, 1 and in
between. Three methods: Miettinen-Nurminen (fastfair's), Newcombe's hybrid score (method 10)
and Wald. Reported: mean coverage over the grid, the minimum, and the share of settings below
0.93.

Part 1b (exact, issue 34): a small group of 10-50 rows against a reference of 1,000 to
1,000,000 rows, rates 0.005-0.995 (13 x 13 pairs), the audit's interval (Newcombe's
square-and-add with Clopper-Pearson limits for a group with fewer than 50 events or
non-events, Wilson's otherwise: ``fastfair._score.hybrid_interval``); the reference's
outcomes within 9 standard deviations of its mean (the rest has probability < 1e-18).
Miettinen-Nurminen (what the audit reported before) at the issue's cells: 10 vs 5,000 at
0.05 vs 0.01 and 15 vs 100,000 at 0.99 vs 0.95.

Part 1c (Monte Carlo, issue 34): coverage of the AUC difference interval the audit reports,
the hybrid logit/Newcombe MOVER (``fastfair.tolerance.auc_difference_interval``), against
the DeLong Wald interval it reported before, 20-40 positives and negatives per group, AUC
0.9 (and 0.8) in the reference, binormal and exponential scores, 2,000 data sets per cell.

The criterion: coverage at least 0.95 - 3 SE of a 2,000-data-set simulation (0.9354); the
exact parts have no Monte-Carlo error.

Part 2 (Monte Carlo, through the public API): rows are simulated (random denominators:
prevalence draws the positives), `fastfair.permutation_test` is run, and the coverage of
`difference_interval` is counted, unweighted and with random sampling weights; also equalized
odds (both components). Binomial SEs are printed.

    python validation/difference_interval_coverage.py --quick   # seconds (the tests run it)
    python validation/difference_interval_coverage.py           # 2,000 simulations
    python validation/difference_interval_coverage.py --sizes 10 30 100 300
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
from fastfair._score import hybrid_interval, score_interval
from fastfair.auc import delong
from fastfair.tolerance import auc_difference_interval

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
    "audit hybrid": hybrid_interval,
}
#: the criterion: 0.95 - 3 SE of 2,000 simulated data sets
FLOOR = LEVEL - 3 * math.sqrt(LEVEL * (1 - LEVEL) / 2000)
SMALL = [10, 15, 20, 30, 50]
REFERENCES = [1000, 10_000, 100_000, 1_000_000]
WIDE_RATES = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995]
#: the issue's cells (n1, n2, r1, r2) where Miettinen-Nurminen covered 0.907 and 0.853
ISSUE_CELLS = [(10, 5000, 0.05, 0.01), (15, 100_000, 0.99, 0.95)]


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


def _reference_outcomes(n, r, sds=9.0):
    """Outcomes of Bin(n, r) within `sds` standard deviations of the mean (all for small n)."""
    sd = math.sqrt(n * r * (1 - r))
    lo, hi = max(0, int(n * r - sds * sd) - 3), min(n, int(n * r + sds * sd) + 4)
    return np.arange(lo, hi + 1)


def unbalanced_coverage(n1, n2, r2, rates, methods):
    """Exact coverage of each method at (n1, n2, r1, r2) for every r1 in `rates`: all
    outcomes of the small group, the reference's near its mean."""
    x1 = np.arange(n1 + 1.0)[:, None]
    x2 = _reference_outcomes(n2, r2)
    pmf2 = stats.binom.pmf(x2, n2, r2)
    x2 = x2[None, :] * 1.0
    intervals = {k: f(x1, n1, x2, n2, LEVEL) for k, f in methods.items()}
    out = []
    for r1 in rates:
        pmf1 = stats.binom.pmf(x1[:, 0], n1, r1)
        truth = r1 - r2
        cov = {k: float(pmf1 @ ((lo <= truth + 1e-12) & (truth - 1e-12 <= hi)) @ pmf2)
               for k, (lo, hi) in intervals.items()}  # fmt: skip
        out.append((n1, n2, r1, r2, cov))
    return out


def run_unbalanced(small=SMALL, references=REFERENCES, rates=WIDE_RATES):
    rows = []
    for n1, n2, r2 in itertools.product(small, references, rates):
        rows += unbalanced_coverage(n1, n2, r2, rates, {"audit hybrid": hybrid_interval})
    issue = []
    for n1, n2, r1, r2 in ISSUE_CELLS:
        methods = {"miettinen-nurminen": METHODS["miettinen-nurminen"],
                   "audit hybrid": hybrid_interval}  # fmt: skip
        issue += unbalanced_coverage(n1, n2, r2, [r1], methods)
    return rows, issue


def auc_coverage(n_class, auc_b, gap, family, n_sim, rng):
    """Coverage of the DeLong Wald and the hybrid interval of AUC_A - AUC_B, n_class
    positives and negatives per group (AUC_A = AUC_B + gap)."""
    aucs = np.array([auc_b + gap, auc_b])
    group = np.repeat([0, 1], 2 * n_class)
    y = np.tile(np.repeat([True, False], n_class), 2)
    hits = {"delong wald": 0, "audit hybrid": 0}
    z = special.ndtri(0.5 + LEVEL / 2)
    for _ in range(n_sim):
        if family == "binormal":
            score = rng.standard_normal(len(y)) + np.sqrt(2) * special.ndtri(aucs)[group] * y
        else:
            score = rng.exponential(1.0, len(y)) * np.where(y, (aucs / (1 - aucs))[group], 1.0)
        res = delong(y, score, group)
        truth = aucs[0] - aucs[1]
        half = z * math.sqrt(res.variance.sum())  # the audit's interval before: DeLong Wald
        hits["delong wald"] += bool(abs(res.auc[0] - res.auc[1] - truth) <= half)
        lo, hi = auc_difference_interval(res.auc, res.variance, res.n_pos, res.n_neg, [0], [1])
        hits["audit hybrid"] += bool(lo[0] <= truth <= hi[0])
    return {k: v / n_sim for k, v in hits.items()}


AUC_CELLS = [(n, auc_b, gap, fam) for fam in ("binormal", "exponential")
             for n in (20, 30, 40) for auc_b, gap in ((0.9, 0.0), (0.8, 0.1))]  # fmt: skip


def run_auc(cells, n_sim, seed):
    rng = np.random.default_rng(seed)
    return [(cell, auc_coverage(*cell, n_sim, rng)) for cell in cells]


def format_issue34(rows, issue, auc_rows, n_auc):
    cov = np.array([r[4]["audit hybrid"] for r in rows])
    worst = rows[int(np.argmin(cov))]
    lines = [
        f"Part 1b: small groups {sorted({r[0] for r in rows})} against references "
        f"{sorted({r[1] for r in rows})}, rates {sorted({r[2] for r in rows})} (all pairs): "
        f"{len(rows)} settings, exact coverage of the audit's interval (hybrid):",
        f"  mean {cov.mean():.4f}  min {cov.min():.4f} (n1={worst[0]}, n2={worst[1]}, "
        f"r1={worst[2]}, r2={worst[3]})  below {FLOOR:.4f}: {int(np.sum(cov < FLOOR))}",
        "  by small group: " + "  ".join(
            f"{n}: min {min(r[4]['audit hybrid'] for r in rows if r[0] == n):.4f}"
            for n in sorted({r[0] for r in rows})),
        "  the issue's cells (exact):   n1      n2    r1    r2   miettinen-nurminen  hybrid",
    ]  # fmt: skip
    for n1, n2, r1, r2, c in issue:
        lines.append(f"  {'':27s}{n1:4d} {n2:7d} {r1:5.2f} {r2:5.2f}   "
                     f"{c['miettinen-nurminen']:18.4f}  {c['audit hybrid']:.4f}")  # fmt: skip
    se = math.sqrt(LEVEL * (1 - LEVEL) / n_auc)
    lines += [
        f"\nPart 1c: AUC difference intervals, {n_auc} data sets per cell (SE {se:.4f}, "
        f"0.95 - 3 SE = {LEVEL - 3 * se:.4f}); n per class in each group",
        "  family        n  AUC_B  AUC_A   delong wald  audit hybrid",
    ]
    for (n, auc_b, gap, fam), c in auc_rows:
        lines.append(f"  {fam:11s} {n:3d}  {auc_b:.2f}   {auc_b + gap:.2f}   "
                     f"{c['delong wald']:11.4f}  {c['audit hybrid']:12.4f}")  # fmt: skip
    low = min(c["audit hybrid"] for _, c in auc_rows)
    lines.append(f"  min audit hybrid {low:.4f}; min delong wald "
                 f"{min(c['delong wald'] for _, c in auc_rows):.4f}")  # fmt: skip
    return lines


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


def run_issue34(quick: bool, seed: int = 2026, n_sim: int | None = None):
    """Parts 1b and 1c (quick: one small group, two references, five rates, two AUC cells
    with 200 data sets)."""
    if quick:
        rows, issue = run_unbalanced([15], [5000, 100_000], [0.01, 0.05, 0.5, 0.95, 0.99])
        n_auc = 200
        auc_rows = run_auc(AUC_CELLS[:1] + AUC_CELLS[6:7], n_auc, seed)
    else:
        rows, issue = run_unbalanced()
        n_auc = n_sim or 2000
        auc_rows = run_auc(AUC_CELLS, n_auc, seed)
    return rows, issue, auc_rows, n_auc


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
    print()
    print("\n".join(format_issue34(*run_issue34(args.quick, args.seed, args.n_sim))))
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
