"""Level of the DeLong z-test where auc_test(method="auto") uses it.

auc_test(method="auto") (and the audit) refer the studentized AUC difference to N(0, 1)
when every compared group has at least ASYMPTOTIC_MIN_CLASS = 1,000 positives and 1,000
negatives. This checks the rejection rate under the null of equal AUCs at exactly that
size, with groups that differ in prevalence and in the shape of their score distributions
(the null the studentized statistic is for, KDD 2020 Theorem 2), at alpha 0.05, 0.01 and
0.005 (a Holm step over 10 tests), with binomial standard errors; and, as the power twin,
the rejection rate when group B's AUC is lower by 0.03.

    python validation/auc_asymptotic_level.py --quick   # a few hundred data sets
    python validation/auc_asymptotic_level.py           # full run, recorded in
    # validation/results/auc_asymptotic_level.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

import fastfair
from fastfair.auc import ASYMPTOTIC_MIN_CLASS

ALPHAS = (0.05, 0.01, 0.005)


def _binormal_mu(auc, sd_pos):
    """Mean of positives ~ N(mu, sd_pos) against negatives ~ N(0, 1) giving `auc`."""
    return stats.norm.ppf(auc) * math.sqrt(1.0 + sd_pos**2)


def simulate(setting, n_sim, seed, auc_gap=0.0):
    """Share of data sets whose DeLong p-value is <= each alpha."""
    _, n_pos, n_neg, sd_b, decimals = setting
    rng = np.random.default_rng(seed)
    auc = 0.75
    pvals = np.empty(n_sim)
    for i in range(n_sim):
        # group A: 1,000 positives, 9 times as many negatives, equal-variance binormal
        ya = np.r_[np.ones(n_pos), np.zeros(9 * n_neg)]
        sa = np.r_[rng.normal(_binormal_mu(auc, 1.0), 1.0, n_pos), rng.normal(0, 1, 9 * n_neg)]
        # group B: n_pos positives, n_neg negatives, unequal-variance scores, same AUC
        yb = np.r_[np.ones(n_pos), np.zeros(n_neg)]
        mu_b = _binormal_mu(auc - auc_gap, sd_b)
        sb = np.r_[rng.normal(mu_b, sd_b, n_pos), rng.normal(0, 1, n_neg)]
        y = np.r_[ya, yb]
        s = np.r_[sa, sb]
        if decimals is not None:
            s = np.round(s, decimals)
        g = np.r_[np.zeros(len(ya), dtype=int), np.ones(len(yb), dtype=int)]
        res = fastfair.auc_test(y, s, g, method="auto", reference=0)
        assert res.method == "delong", res.method
        pvals[i] = res.pvalue
    return {a: float(np.mean(pvals <= a)) for a in ALPHAS}


SETTINGS = [
    # name, positives per group, negatives of group B, SD of B's positive scores, rounding
    (
        "at the threshold, B's positives SD 2",
        ASYMPTOTIC_MIN_CLASS,
        ASYMPTOTIC_MIN_CLASS,
        2.0,
        None,
    ),
    (
        "at the threshold, SD 0.5, 1-decimal ties",
        ASYMPTOTIC_MIN_CLASS,
        ASYMPTOTIC_MIN_CLASS,
        0.5,
        1,
    ),
]


def run(n_sim, seed=0, power=True):
    rows = []
    for k, setting in enumerate(SETTINGS):
        rows.append((setting[0], "null", simulate(setting, n_sim, seed + k)))
        if power:
            rows.append((setting[0], "AUC gap 0.03", simulate(setting, n_sim, seed + k, 0.03)))
    return rows


def format_rows(rows, n_sim):
    lines = [
        f"DeLong z-test at the auto threshold ({ASYMPTOTIC_MIN_CLASS} per class); "
        f"{n_sim} data sets each"
    ]
    for name, kind, rates in rows:
        cells = []
        for a in ALPHAS:
            se = math.sqrt(a * (1 - a) / n_sim)
            cells.append(f"alpha {a}: {rates[a]:.4f} (alpha + 3 SE = {a + 3 * se:.4f})")
        lines.append(f"{name} [{kind}]: " + "; ".join(cells))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n_sim = 300 if args.quick else 4000
    t0 = time.perf_counter()
    print(format_rows(run(n_sim), n_sim))
    print(f"elapsed {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
