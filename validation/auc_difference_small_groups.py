"""Coverage of the audit's AUC difference interval for small groups against large references
(issue 34, Done-when 1: "every interval the audit reports", small groups 10-50).

validation/difference_interval_coverage.py (part 1c) checks the audit's AUC difference
interval (``fastfair.tolerance.auc_difference_interval``, the hybrid logit/Newcombe MOVER)
with 20-40 positives and negatives in both groups and AUCs 0.8-0.9 only. The audit reports
it too for a group of 10-50 rows against a reference of thousands to millions, and for AUCs
near 1. Here:

* the small group has 10, 20 or 50 rows, prevalence 0.5 or 0.3 (so 3-25 positives), with
  binormal scores (equal variances) of AUC 0.6, 0.9 or 0.99; its AUC and DeLong
  variance come from ``fastfair.auc.delong`` on each simulated data set;
* the reference (AUC 0.85, prevalence 0.3) has 1,000 rows, simulated the same way, or
  1,000,000 rows, where its AUC is drawn from its normal limit (mean 0.85,
  variance the DeLong variance of one simulated reference of that size, computed once;
  the reference's error is then 20-60 times smaller than the small group's);
* coverage of the true difference by the 95% interval over n_sim data sets per cell,
  against 0.95 - 3 SE (SE the binomial error at 0.95).

    python validation/auc_difference_small_groups.py --quick
    python validation/auc_difference_small_groups.py   # recorded in
        validation/results/auc_difference_small_groups.txt
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from scipy import special

from fastfair.auc import delong
from fastfair.tolerance import auc_difference_interval

SMALL = (10, 20, 50)
PREVALENCES = (0.5, 0.3)
AUCS = (0.6, 0.9, 0.99)
REFERENCES = (1_000, 1_000_000)
REF_AUC, REF_PREV = 0.85, 0.3


def _sample(n_pos, n_neg, auc, rng):
    y = np.r_[np.ones(n_pos, np.uint8), np.zeros(n_neg, np.uint8)]
    shift = math.sqrt(2.0) * special.ndtri(auc)
    return y, rng.standard_normal(n_pos + n_neg) + shift * y


def _group(n_pos, n_neg, auc, rng):
    y, s = _sample(n_pos, n_neg, auc, rng)
    d = delong(y, s)
    return float(d.auc[0]), float(d.variance[0])


def coverage(n_small, prev, auc, n_ref, n_sim, rng):
    n_pos = max(1, round(n_small * prev))
    n_neg = n_small - n_pos
    r_pos = round(n_ref * REF_PREV)
    r_neg = n_ref - r_pos
    big = n_ref > 10_000
    if big:  # the reference's AUC from its normal limit
        ref_var = _group(r_pos, r_neg, REF_AUC, rng)[1]
    hits = 0
    for _ in range(n_sim):
        a_auc, a_var = _group(n_pos, n_neg, auc, rng)
        if big:
            b_auc, b_var = REF_AUC + math.sqrt(ref_var) * rng.standard_normal(), ref_var
        else:
            b_auc, b_var = _group(r_pos, r_neg, REF_AUC, rng)
        lo, hi = auc_difference_interval(
            np.array([a_auc, b_auc]), np.array([a_var, b_var]), np.array([n_pos, r_pos]),
            np.array([n_neg, r_neg]), [0], [1],
        )  # fmt: skip
        hits += bool(lo[0] <= auc - REF_AUC <= hi[0])
    return hits / n_sim


def run(quick=False, n_sim=None, seed=34):
    n_sim = n_sim or (200 if quick else 2000)
    rng = np.random.default_rng(seed)
    cells = [
        (n, p, a, r)
        for n in SMALL
        for p in PREVALENCES
        for a in AUCS
        for r in REFERENCES
        if not quick or (n == 10 and a in (0.9, 0.99) and r == 1_000_000)
    ]
    return [(*c, coverage(*c, n_sim, rng)) for c in cells], n_sim


def format_rows(rows, n_sim):
    bound = 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_sim)
    lines = [f"{'rows':>5}{'prev':>6}{'n_pos':>6}{'AUC':>6}{'reference':>11}{'coverage':>10}"]
    for n, p, a, r, cov in rows:
        flag = "" if cov >= bound else "  < bound"
        lines.append(
            f"{n:>5}{p:>6.1f}{max(1, round(n * p)):>6}{a:>6.2f}{r:>11,}{cov:>10.4f}{flag}"
        )
    worst = min(rows, key=lambda r: r[-1])
    lines.append(
        f"cells {len(rows)}; 0.95 - 3 SE = {bound:.4f}; below: "
        f"{sum(r[-1] < bound for r in rows)}; min {worst[-1]:.4f} at {worst[:4]}"
    )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    t0 = time.time()
    rows, n_sim = run(args.quick)
    text = (
        f"AUC difference interval of the audit, small groups vs large references; "
        f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; n_sim {n_sim} per cell; "
        f"seed 34; reference AUC {REF_AUC}, prevalence {REF_PREV}\n"
        + format_rows(rows, n_sim)
        + f"\nelapsed {time.time() - t0:.0f} s; load {os.getloadavg()}"
    )
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
