"""Achieved power of the audit's test at the planner's n (issue 34, point 2).

`fastfair.sample_size` (``test="auto"``) sizes the test the audit runs on a rate metric, the
exact conditional permutation test, by its exact power. For every cell (metric, rates,
allocation of the reference group, alternative) this script

* plans with the exact planner (``n_per_group_ceil``) and with the Wald formula (eq. 2,
  ``test="asymptotic"``), recording both sizes, the exact power the planner reports at its
  sizes and the exact power of the audit's test at the Wald sizes (what the planner used to
  deliver: 0.76 for TPR 0.7 vs 0.6 at allocation 0.1);
* simulates ``n_sim`` audits at the planner's sizes (each group's denominator binomial, its
  numerator binomial; the other cells do not enter the test) and runs on each the audit's
  own call, ``fastfair.permutation_test_from_counts(cells, metric=..., reference=...)`` with
  its defaults (method "auto": the exact conditional test), rejecting at p <= alpha;
* checks the simulated power against the target 0.8 (the issue's criterion, 0.8 +- 3 SE)
  and against the planner's exact power (an independent check of the enumeration).

SE = sqrt(0.8 * 0.2 / n_sim), the binomial Monte-Carlo error at the target.

    python validation/planning_exact_power.py --quick   # ~1 minute
    python validation/planning_exact_power.py           # recorded in
        validation/results/planning_exact_power.txt
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

import fastfair
from fastfair._conditional_power import exact_power
from fastfair.planning import sample_size

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

PREVALENCE = 0.3
#: (metric, reference rate, group rate): rates 0.02-0.98, both directions
RATE_PAIRS = (
    ("tpr", 0.70, 0.60),
    ("tpr", 0.50, 0.35),
    ("tpr", 0.02, 0.10),
    ("tpr", 0.10, 0.02),
    ("tpr", 0.98, 0.90),
    ("tpr", 0.90, 0.98),
    ("selection_rate", 0.30, 0.20),
    ("selection_rate", 0.05, 0.15),
)
ALLOCATIONS = (0.1, 0.3, 0.5, 0.7, 0.9)
#: one-sided plans (the exact test in the direction of the presumed difference)
GREATER = (("tpr", 0.70, 0.60, 0.1), ("tpr", 0.90, 0.98, 0.9))
QUICK_CELLS = (("selection_rate", 0.30, 0.10, 0.3, "two-sided"), ("tpr", 0.9, 0.6, 0.7, "greater"))
TARGET = 0.8
ALPHA = 0.05


def _rates(metric: str, r_ref: float, r_g: float) -> dict:
    if metric == "tpr":
        return {"tpr": [r_ref, r_g], "prevalence": [PREVALENCE, PREVALENCE]}
    return {"selection_rate": [r_ref, r_g]}


def _cells(metric, n, rate, rng, n_sim):
    """Cell counts (n_sim, 2, 4) in the order (TN, FP, FN, TP) of simulated audits."""
    out = np.zeros((n_sim, 2, 4), dtype=np.int64)
    for g in range(2):
        if metric == "tpr":
            pos = rng.binomial(n[g], PREVALENCE, n_sim)
            tp = rng.binomial(pos, rate[g])
            fp = rng.binomial(n[g] - pos, 0.2)
            out[:, g] = np.stack([n[g] - pos - fp, fp, pos - tp, tp], axis=1)
        else:  # selection rate: predictions positive with the rate, labels independent
            sel = rng.binomial(n[g], rate[g], n_sim)
            tp = rng.binomial(sel, PREVALENCE)
            fn = rng.binomial(n[g] - sel, PREVALENCE)
            out[:, g] = np.stack([n[g] - sel - fn, sel - tp, fn, tp], axis=1)
    return out


def _audit_rejects(metric, cells, alternative, direction):
    """The audit's call on each simulated table (the reference is the table's row 0)."""
    alt = "two-sided" if alternative == "two-sided" else ("greater" if direction > 0 else "less")
    reject = np.empty(len(cells), dtype=bool)
    for b, c in enumerate(cells):
        res = fastfair.permutation_test_from_counts(
            c[::-1], [0, 1], metric=metric, reference=1, alternative=alt, n_jobs=1
        )
        reject[b] = res.pvalue <= ALPHA
    return reject


def run_cell(metric, r_ref, r_g, alloc, alternative, n_sim, seed):
    """One cell: plans, exact powers and the simulated power of the audit's test."""
    rates = _rates(metric, r_ref, r_g)
    tau = abs(r_ref - r_g)
    t0 = time.perf_counter()
    plan = sample_size(
        metric, rates=rates, tau=tau, allocation=alloc, alternative=alternative, power=TARGET
    )
    seconds = time.perf_counter() - t0
    wald = sample_size(
        metric, rates=rates, tau=tau, allocation=alloc, alternative=alternative,
        power=TARGET, test="asymptotic",
    )  # fmt: skip
    den = (PREVALENCE, PREVALENCE) if metric == "tpr" else (1.0, 1.0)
    direction = 1 if r_g > r_ref else -1
    side = 0 if alternative == "two-sided" else direction
    wald_n = wald.n_per_group_ceil
    wald_exact = exact_power((wald_n[1], wald_n[0]), den, (r_g, r_ref), ALPHA, side)
    n = plan.n_per_group_ceil
    rng = np.random.default_rng(seed)
    cells = _cells(metric, n, (r_ref, r_g), rng, n_sim)
    sim = float(_audit_rejects(metric, cells, alternative, direction).mean())
    return {
        "metric": metric,
        "rates": (r_ref, r_g),
        "allocation": alloc,
        "alternative": alternative,
        "wald_n": tuple(int(v) for v in wald_n),
        "wald_exact": wald_exact,
        "n": tuple(int(v) for v in n),
        "planned_power": float(plan.achieved_power),
        "simulated": sim,
        "seconds": seconds,
    }


def cells(quick: bool):
    if quick:
        return list(QUICK_CELLS)
    out = [(m, a, b, al, "two-sided") for m, a, b in RATE_PAIRS for al in ALLOCATIONS]
    return out + [(m, a, b, al, "greater") for m, a, b, al in GREATER]


def run(quick: bool = False, n_sim: int | None = None, seed: int = 34):
    n_sim = n_sim or (300 if quick else 2000)
    rows = [run_cell(*c, n_sim, seed + i) for i, c in enumerate(cells(quick))]
    return rows, n_sim


def format_rows(rows, n_sim) -> str:
    se = math.sqrt(TARGET * (1 - TARGET) / n_sim)
    head = (
        f"{'metric':<15}{'ref':>5}{'group':>6}{'alloc':>6} {'alternative':<10}"
        f"{'Wald n (ref, group)':>21}{'exact pw':>9}{'planned n (ref, group)':>24}"
        f"{'planned pw':>11}{'simulated':>10}{'(sim-0.8)/SE':>13}{'(sim-pl)/SE':>12}{'s':>6}"
    )
    lines = [head]
    worst = worst_pl = 0.0
    for r in rows:
        z = (r["simulated"] - TARGET) / se
        z_pl = (r["simulated"] - r["planned_power"]) / math.sqrt(
            r["planned_power"] * (1 - r["planned_power"]) / n_sim
        )
        worst, worst_pl = max(worst, abs(z)), max(worst_pl, abs(z_pl))
        lines.append(
            f"{r['metric']:<15}{r['rates'][0]:>5.2f}{r['rates'][1]:>6.2f}{r['allocation']:>6.1f} "
            f"{r['alternative']:<10}{r['wald_n']!s:>21}{r['wald_exact']:>9.4f}"
            f"{r['n']!s:>24}{r['planned_power']:>11.4f}{r['simulated']:>10.4f}"
            f"{z:>13.2f}{z_pl:>12.2f}{r['seconds']:>6.1f}"
        )
    n_out = sum(abs(r["simulated"] - TARGET) > 3 * se for r in rows)
    lines.append("")
    lines.append(
        f"cells: {len(rows)}; SE at 0.8 = {se:.4f}; cells outside 0.8 +- 3 SE: {n_out}; "
        f"largest |sim - 0.8| / SE {worst:.2f}; largest |sim - planned| / SE {worst_pl:.2f}"
    )
    wald = [r["wald_exact"] for r in rows]
    lines.append(
        f"the Wald plan's exact power (before): {min(wald):.4f} to {max(wald):.4f}; the exact "
        f"plan's: {min(r['planned_power'] for r in rows):.4f} to "
        f"{max(r['planned_power'] for r in rows):.4f}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    t0 = time.time()
    rows, n_sim = run(args.quick, args.n_sim)
    commit = git_commit()
    text = "\n".join(
        [
            "Achieved power of the audit's test at the planner's n (issue 34 point 2)",
            f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit} "
            f"(+ working tree); mode {'quick' if args.quick else 'full'}; n_sim {n_sim} per cell",
            f"alpha {ALPHA}, target power {TARGET}; TPR cells: prevalence {PREVALENCE} in both "
            "groups; 'alloc' is the reference group's fraction of the rows; 'exact pw' is the "
            "exact power of the audit's test at the Wald plan's sizes; 'planned pw' the exact "
            "power the planner reports at its sizes; 'simulated' the rejection rate of "
            "fastfair.permutation_test_from_counts (the audit's call, method 'auto') on n_sim "
            "simulated audits; 's' the planner's seconds (machine load below)",
            "",
            format_rows(rows, n_sim),
            f"elapsed {time.time() - t0:.0f} s; load at the end: {os.getloadavg()}",
        ]
    )
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
