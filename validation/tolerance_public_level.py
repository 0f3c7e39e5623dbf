"""Level of the audit's tolerance and TOST defaults through the public function (issue 34).

validation/tolerance_large_reference.py computes the level of method="auto" at 300 vs
300,000 and 30 vs 3,000,000 rows from a reimplementation of its rejection region (the
exact test's critical value of Z found once by bisection), because the public
``fastfair.tolerance_test_from_counts`` also inverts the exact test for its interval (about
40 p-values, 23-47 s a call at 300 vs 300,000). This script computes the level with the
function the audit calls for its ``pvalue_tolerance`` and ``pvalue_equivalence``,
``fastfair.tolerance.margin_pvalue_from_counts`` (method "auto"; the same p-value as
``tolerance_test_from_counts``, without the interval): the two-sided tolerance test and
TOST at alpha 0.05, at the boundary of their null (p_A - p_B = u_tol; |p_A - p_B| = delta).

For a fixed count x_A of the small group the method "auto" runs is fixed (its rule reads
the fewest events or non-events, here those of the small group: the reference has
thousands of each), and each one-sided test rejects on a half-line of x_B (its statistic
is monotone in x_B): the rejection region is, per x_A, a union (tolerance) or intersection
(TOST) of half-lines. The reimplementation predicts each half-line's end; the public
function is called on both sides of every end that lies within 12 standard deviations of
the reference's mean count (once at both edges of the window when no end lies in it), and the
script records whether every decision agrees (if one did not, the end is found by
bisection with the public function). The level is then the probability of that region,
summed exactly over every x_A with probability above 1e-12 (the rest is reported).

    python validation/tolerance_public_level.py --quick   # the test suite (seconds)
    python validation/tolerance_public_level.py           # recorded in
        validation/results/tolerance_public_level.txt
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from functools import cache

import numpy as np
from scipy import special, stats

from fastfair._score import score_statistic
from fastfair._unconditional import BoundaryTails
from fastfair.tolerance import auto_exact, margin_pvalue_from_counts

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ALPHA = 0.05
#: (test, n_A, n_B, p_A, p_B, margin): the issue's cells (TPR 0.03 vs 0.02 at margin 0.01;
#: TOST at 0.98 vs 0.93) and rare events beside them
CELLS = (
    ("tolerance", 300, 300_000, 0.03, 0.02, 0.01),
    ("tolerance", 300, 300_000, 0.005, 0.005, 0.0),
    ("tolerance", 300, 300_000, 0.02, 0.01, 0.01),
    ("tolerance", 300, 300_000, 0.025, 0.005, 0.02),
    ("TOST", 300, 300_000, 0.98, 0.93, 0.05),
    ("tolerance", 30, 3_000_000, 0.005, 0.005, 0.0),
    ("tolerance", 30, 3_000_000, 0.011, 0.001, 0.01),
    ("tolerance", 30, 3_000_000, 0.03, 0.02, 0.01),
    ("TOST", 30, 3_000_000, 0.98, 0.93, 0.05),
)
QUICK_CELLS = (("tolerance", 20, 30_000, 0.03, 0.02, 0.01),)
PMF_FLOOR = 1e-12
SDS = 12.0


def one_sided_tests(test: str, margin: float):
    """(d, side, level) of the one-sided tests: two-sided tolerance = either at alpha/2;
    TOST = both at alpha."""
    if test == "tolerance":
        return [(margin, "greater", ALPHA / 2), (-margin, "less", ALPHA / 2)]
    return [(-margin, "greater", ALPHA), (margin, "less", ALPHA)]


@cache
def exact_critical_value(n_a, n_b, d, level, side, steps=40):
    """Least (greater) or greatest (less) Z whose exact p-value is <= level, by bisection
    on |Z| in [0, 12] (the reimplementation)."""
    tails = BoundaryTails(n_a, n_b, d)
    sign = 1.0 if side == "greater" else -1.0
    lo, hi = 0.0, 12.0
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if tails.pvalue(sign * mid, side) <= level else (mid, hi)
    return sign * hi


def predicted_rejects(x_a, xb, n_a, n_b, d, side, level):
    """The reimplementation's one-sided decisions at (x_a, every xb)."""
    z = score_statistic(float(x_a), n_a, xb * 1.0, n_b, d)
    fewest = np.minimum(min(x_a, n_a - x_a), np.minimum(xb, n_b - xb))
    exact = auto_exact(fewest, n_a, n_b)
    crit = exact_critical_value(n_a, n_b, d, level, side) if exact.any() else np.nan
    q = special.ndtri(1 - level)
    if side == "greater":
        return np.where(exact, z >= crit, z > q)
    return np.where(exact, z <= crit, z < -q)


def public_rejects(x_a, n_a, x_b, n_b, test, margin) -> tuple[bool, float]:
    """(decision, p-value) of the public function at (x_a, x_b) (TPR counts)."""
    counts = np.array([[1, 0, n_a - x_a, x_a], [1, 0, n_b - x_b, x_b]])
    key = dict(u_tol=margin) if test == "tolerance" else dict(delta=margin)
    p = margin_pvalue_from_counts(counts, "tpr", **key)
    return p <= ALPHA, p


def level_through_public(test, n_a, n_b, p_a, p_b, margin, out=None):
    """(level, calls, disagreements, dropped mass, closest |p - alpha| at a checked end)."""
    sd = math.sqrt(n_b * p_b * (1 - p_b))
    xb = np.arange(max(0, int(n_b * p_b - SDS * sd)), min(n_b, int(n_b * p_b + SDS * sd)) + 1)
    pmf_b = stats.binom.pmf(xb, n_b, p_b)
    x_all = np.arange(n_a + 1)
    pmf_a = stats.binom.pmf(x_all, n_a, p_a)
    kept = x_all[pmf_a >= PMF_FLOOR]
    level, calls, disagree, closest = 0.0, 0, 0, 1.0
    combine = np.logical_or if test == "tolerance" else np.logical_and
    for x_a in kept:
        parts = [predicted_rejects(x_a, xb, n_a, n_b, d, s, lv)
                 for d, s, lv in one_sided_tests(test, margin)]  # fmt: skip
        region = combine(*parts)
        checks = _check_points(region)
        for k in checks:
            decision, p = public_rejects(int(x_a), n_a, int(xb[k]), n_b, test, margin)
            calls += 1
            closest = min(closest, abs(p - ALPHA))
            if decision != bool(region[k]):
                disagree += 1
                region = _public_region(x_a, xb, n_a, n_b, test, margin)
                break
        level += pmf_a[x_a] * float(pmf_b[region].sum())
    dropped = float(pmf_a[pmf_a < PMF_FLOOR].sum())
    return level, calls, disagree, dropped, closest


def _check_points(region: np.ndarray) -> list[int]:
    """Indices on both sides of every switch of `region`; both ends of the window if none."""
    switches = np.flatnonzero(region[1:] != region[:-1])
    if switches.size == 0:
        return [0, len(region) - 1]
    return sorted({int(i) for s in switches for i in (s, s + 1)})


def _public_region(x_a, xb, n_a, n_b, test, margin) -> np.ndarray:
    """The public function's decisions at every xb of the window (the fallback: slow)."""
    return np.array([public_rejects(int(x_a), n_a, int(x), n_b, test, margin)[0] for x in xb])


def reimplemented_level(test, n_a, n_b, p_a, p_b, margin):
    """The level from the reimplementation alone, on the same outcomes."""
    sd = math.sqrt(n_b * p_b * (1 - p_b))
    xb = np.arange(max(0, int(n_b * p_b - SDS * sd)), min(n_b, int(n_b * p_b + SDS * sd)) + 1)
    pmf_b = stats.binom.pmf(xb, n_b, p_b)
    combine = np.logical_or if test == "tolerance" else np.logical_and
    total = 0.0
    for x_a in range(n_a + 1):
        w = stats.binom.pmf(x_a, n_a, p_a)
        if w < PMF_FLOOR:
            continue
        parts = [predicted_rejects(x_a, xb, n_a, n_b, d, s, lv)
                 for d, s, lv in one_sided_tests(test, margin)]  # fmt: skip
        total += w * float(pmf_b[combine(*parts)].sum())
    return total


def run(cells, out=sys.stdout):
    rows = []
    for cell in cells:
        t0 = time.time()
        level, calls, disagree, dropped, closest = level_through_public(*cell)
        reimpl = reimplemented_level(*cell)
        row = (*cell, level, reimpl, calls, disagree, dropped, closest, time.time() - t0)
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    return rows


def format_row(row) -> str:
    test, n_a, n_b, p_a, p_b, m, level, reimpl, calls, disagree, dropped, closest, sec = row
    return (f"  {test:9s} {n_a:4d} {n_b:9,d}  {p_a:5.3f}  {p_b:5.3f}  {m:5.3f}   {level:.4f}"
            f"   {reimpl:.4f}  {calls:5d}  {disagree:3d}  {dropped:.1e}  {closest:.1e}"
            f"  {sec:6.0f}")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.time()
    print(f"# python validation/tolerance_public_level.py {' '.join(argv or sys.argv[1:])}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {git_commit()}; load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, nice 10; exact (no "
          "Monte-Carlo error)")  # fmt: skip
    print(f"Level at alpha {ALPHA} at the null's boundary, through "
          "fastfair.tolerance.margin_pvalue_from_counts (method 'auto'; tolerance: two-sided, "
          "p_A - p_B = u_tol; TOST: p_A - p_B = delta)")  # fmt: skip
    print(
        "  test      n_A       n_B    p_A    p_B  margin  public  reimpl.  calls  dis  "
        "dropped  min|p-a|    s"
    )
    rows = run(QUICK_CELLS if args.quick else CELLS)
    worst = max(rows, key=lambda r: r[6])
    print(f"max level through the public function {worst[6]:.4f} at {worst[:6]}; alpha + 3 SE "
          f"of a 10,000-draw simulation = {ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 1e4):.4f};"
          f" public decisions that disagreed with the reimplementation: "
          f"{sum(r[9] for r in rows)} of {sum(r[8] for r in rows)}")  # fmt: skip
    print(f"elapsed {time.time() - start:.0f} s; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
