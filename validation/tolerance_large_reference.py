"""Level of method="auto" for a small group against a large reference (issue 17).

method="auto" runs the exact unconditional test (Chan 1998) when a group has fewer than 20
events or non-events, or fewer than 50 and one denominator is at least 20 times the other,
and n_A + n_B <= AUTO_MAX_SIZE (200,000), the score test elsewhere. Until the exact test's
tail sums were windowed the cap was 5,000, and beyond it the score test ran whatever the
counts: liberal for a small group (30-2,000 rows in the metric's denominator) against a
large reference with rare events, where an audit most often is. This script computes, for
references of 1,000, 10,000 and 100,000 rows, the exact rejection probability at the
boundary p_A = p_B + u_tol (one-sided, alpha 0.05) of

* the score test alone (what "auto" ran beyond 5,000 rows before), and
* "auto" as it is now (``fastfair.tolerance.auto_exact``): on each outcome (x_A, x_B) the
  exact test where the rule says so, the score test otherwise; and "auto<20", the previous
  rule (exact below 20 counts whatever the sizes), whose level reached 0.063 at 100 rows
  against 100,000.

Issue 34: beyond n_A + n_B = 200,000 "auto" ran the score test whatever the counts (0.068
at 300 rows against 300,000, TPR 0.03 vs 0.02, margin 0.01; TOST 0.058-0.060 at 300 vs
300,000, rates 0.98 vs 0.93); now a smaller group of at most SMALL_GROUP_MAX (500) rows runs
the exact test at any reference size. The second table computes, exactly, the level of
"auto" and of the score test for 30-500 rows against 300,000 and 3,000,000 with rare events
(tolerance, one-sided) and of the TOST (both one-sided tests at the boundary
p_A - p_B = delta, rates near 1).

All outcomes of group A are enumerated, and those of the reference within 12 standard
deviations of its mean (the rest has probability below 1e-30). The exact test rejects when
Z >= c, c its critical value found by bisection on its (monotone) p-value.

    python validation/tolerance_large_reference.py --quick   # seconds
    python validation/tolerance_large_reference.py           # recorded in
        validation/results/tolerance_large_reference.txt
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy import special, stats

from fastfair._score import score_statistic
from fastfair._unconditional import SMALL_GROUP_MAX, BoundaryTails
from fastfair.tolerance import (
    AUTO_MAX_SIZE,
    EXACT_BELOW,
    EXACT_BELOW_UNBALANCED,
    UNBALANCED_RATIO,
    auto_exact,
)

ALPHA = 0.05
SMALL = (30, 100, 150, 200, 300, 1000, 2000)
LARGE = (1000, 10_000, 100_000)
#: the rule of "auto" before the unbalanced rule, for comparison: exact below 20 counts
PREVIOUS_BELOW = 20
RATES = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
U_TOLS = (0.0, 0.02, 0.05)
#: Bisection steps on the exact test's critical value of Z (a width below 1e-12).
_STEPS = 45


#: Issue 34's cells: small groups, huge references, rare events (tolerance) and rates
#: near 1 (TOST at the boundary p_A - p_B = delta)
HUGE_SMALL = (30, 300, 500)
HUGE_LARGE = (300_000, 3_000_000)
HUGE_RATES = (0.001, 0.005, 0.01, 0.02, 0.03)
HUGE_U_TOLS = (0.0, 0.01, 0.02)
TOST_CELLS = ((0.98, 0.93, 0.05), (0.97, 0.95, 0.02), (0.995, 0.985, 0.01))


def exact_critical_value(n_a, n_b, u, alpha=ALPHA, side="greater", steps=_STEPS):
    """Least Z ("greater": H0 p_A - p_B <= u) or greatest Z ("less": H0 p_A - p_B >= u)
    whose exact p-value is <= alpha, by bisection."""
    tails = BoundaryTails(n_a, n_b, u)
    sign = 1.0 if side == "greater" else -1.0
    lo, hi = 0.0, 12.0  # p(0) > alpha >= p(12) for these sizes (on the |Z| scale)
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if tails.pvalue(sign * mid, side) <= alpha else (mid, hi)
    return sign * hi


def _outcomes(n, p, sds=12):
    """Outcomes of Bin(n, p) within `sds` standard deviations of the mean (and their pmf)."""
    sd = np.sqrt(n * p * (1 - p))
    x = np.arange(max(0, int(n * p - sds * sd)), min(n, int(n * p + sds * sd + 1)) + 1)
    return x, stats.binom.pmf(x, n, p)


def boundary_level(n_a, n_b, p_a, p_b, tests):
    """Exact rejection probability at (p_A, p_B) of "auto" and of the score test, for a test
    that rejects when every one-sided test (d, side, critical value) in `tests` rejects (one
    test: tolerance; two: TOST). Returns (score level, auto level, auto exact anywhere)."""
    xa, pmf_a = _outcomes(n_a, p_a, sds=40)
    xb, pmf_b = _outcomes(n_b, p_b)
    fewest = np.minimum(np.minimum(xa, n_a - xa)[:, None], np.minimum(xb, n_b - xb)[None, :])
    exact = auto_exact(fewest, n_a, n_b)
    score = auto = True
    for d, side, crit in tests:
        z = score_statistic(xa[:, None] * 1.0, n_a, xb * 1.0, n_b, d)
        z_alpha = special.ndtri(1 - ALPHA)
        by_score = z > z_alpha if side == "greater" else z < -z_alpha
        by_exact = z >= crit if side == "greater" else z <= crit
        score = score & by_score
        auto = auto & np.where(exact, by_exact, by_score)
    return float(pmf_a @ score @ pmf_b), float(pmf_a @ auto @ pmf_b), bool(exact.any())


def huge_levels(small=HUGE_SMALL, large=HUGE_LARGE, rates=HUGE_RATES, u_tols=HUGE_U_TOLS,
                tost=TOST_CELLS):  # fmt: skip
    """Rows (test, n_A, n_B, p_A, p_B, margin, score level, auto level, exact used)."""
    rows = []
    for n_b in large:
        for n_a in small:
            for u in u_tols:
                crit = exact_critical_value(n_a, n_b, u, steps=32)
                for p_b in rates:
                    lev = boundary_level(n_a, n_b, p_b + u, p_b, [(u, "greater", crit)])
                    rows.append(("tolerance", n_a, n_b, p_b + u, p_b, u, *lev))
            for p_a, p_b, delta in tost:
                tests = [(delta, "less", exact_critical_value(n_a, n_b, delta, side="less",
                                                              steps=32)),
                         (-delta, "greater", exact_critical_value(n_a, n_b, -delta,
                                                                  steps=32))]  # fmt: skip
                lev = boundary_level(n_a, n_b, p_a, p_b, tests)
                rows.append(("TOST", n_a, n_b, p_a, p_b, delta, *lev))
    return rows


def levels(small=SMALL, large=LARGE, rates=RATES, u_tols=U_TOLS):
    """Rows (n_A, n_B, u_tol, p_B, score level, auto level, previous auto level) at the
    boundary."""
    z_score = special.ndtri(1 - ALPHA)
    rows = []
    for n_b in large:
        for n_a in small:
            for u in u_tols:
                crit = exact_critical_value(n_a, n_b, u)
                for p_b in rates:
                    sd = np.sqrt(n_b * p_b * (1 - p_b))
                    xb = np.arange(max(0, int(n_b * p_b - 12 * sd)),
                                   min(n_b, int(n_b * p_b + 12 * sd + 1)) + 1)  # fmt: skip
                    xa = np.arange(n_a + 1)
                    z = score_statistic(xa[:, None] * 1.0, n_a, xb * 1.0, n_b, u)
                    fewest = np.minimum(np.minimum(xa, n_a - xa)[:, None],
                                        np.minimum(xb, n_b - xb)[None, :])  # fmt: skip
                    score = z > z_score
                    capped = n_a + n_b <= AUTO_MAX_SIZE
                    auto = np.where(auto_exact(fewest, n_a, n_b), z >= crit, score)
                    previous = np.where((fewest < PREVIOUS_BELOW) & capped, z >= crit, score)
                    pmf_a = stats.binom.pmf(xa, n_a, p_b + u)
                    pmf_b = stats.binom.pmf(xb, n_b, p_b)
                    rejection = [float(pmf_a @ r @ pmf_b) for r in (score, auto, previous)]
                    rows.append((n_a, n_b, u, p_b, *rejection))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    t0 = time.time()
    if args.quick:
        rows = levels(small=(30,), large=(6000,), rates=(0.005, 0.2), u_tols=(0.0,))
        huge = huge_levels(small=(30,), large=(1_200_000,), rates=(0.01,), u_tols=(0.01,),
                           tost=TOST_CELLS[:1])  # fmt: skip
    else:
        rows = levels()
        huge = huge_levels()
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"python validation/tolerance_large_reference.py, load {load} on {os.cpu_count()} cores")
    print(
        f"\nExact level at the boundary p_A = p_B + u_tol (alpha {ALPHA}, one-sided): the score "
        f"test, method='auto' (exact when a count is below {EXACT_BELOW}, or below "
        f"{EXACT_BELOW_UNBALANCED} with one denominator {UNBALANCED_RATIO} or more times the "
        f"other, and n_A + n_B <= {AUTO_MAX_SIZE:,} or a smaller group of at most "
        f"{SMALL_GROUP_MAX} rows) and the previous rule (exact below "
        f"{PREVIOUS_BELOW} whatever the sizes)"
    )
    print("    n_A     n_B  u_tol    p_B   score    auto  auto<20")
    for n_a, n_b, u, p_b, score, auto, previous in rows:
        print(f"  {n_a:5d}  {n_b:6d}  {u:5.2f}  {p_b:5.3f}  {score:.4f}  {auto:.4f}  "
              f"{previous:.4f}")  # fmt: skip
    for name, col in (("score", 4), ("auto", 5), ("auto<20", 6)):
        worst = max(rows, key=lambda r: r[col])
        print(f"  max {name} {worst[col]:.4f} (n_A={worst[0]}, n_B={worst[1]}, "
              f"u_tol={worst[2]}, p_B={worst[3]})")  # fmt: skip
    print_huge(huge)
    print(f"\n{time.time() - t0:.1f} s")


def print_huge(rows):
    """The second table (issue 34) and its maxima."""
    print(
        f"\nIssue 34: exact level at the boundary with references of 300,000 and 3,000,000 "
        f"rows: 'auto' now runs the exact test for a smaller group of at most "
        f"{SMALL_GROUP_MAX} rows at any size (TOST: both one-sided tests reject)"
    )
    print("  test         n_A      n_B    p_A    p_B  margin   score    auto  exact used")
    for test, n_a, n_b, p_a, p_b, m, score, auto, used in rows:
        print(f"  {test:9s}  {n_a:5d}  {n_b:7d}  {p_a:5.3f}  {p_b:5.3f}  {m:6.3f}  "
              f"{score:.4f}  {auto:.4f}  {'yes' if used else 'no'}")  # fmt: skip
    for test in ("tolerance", "TOST"):
        sel = [r for r in rows if r[0] == test]
        if sel:
            worst = max(sel, key=lambda r: r[7])
            print(f"  max auto ({test}) {worst[7]:.4f} (n_A={worst[1]}, n_B={worst[2]}, "
                  f"p_A={worst[3]}, p_B={worst[4]}); max score "
                  f"{max(r[6] for r in sel):.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
