"""Level of the score tolerance test for a small group against a large reference (issue 17).

method="auto" runs the exact unconditional test only when n_A + n_B <= AUTO_MAX_SIZE (5,000)
and a group has fewer than 20 events or non-events; beyond that size it runs the score test
whatever the counts. validation/tolerance_level.py stops at 1,000 rows a group, so this
script measures what happens beyond the cap, where an audit most often is: a small group
(30-300 rows in the metric's denominator) against 10,000 in the reference, rare events.
Exact rejection probability of the one-sided score test (H0: U <= u_tol, alpha 0.05) at the
boundary p_A = p_B + u_tol, all outcomes enumerated (the exact test's level is at most alpha
by construction, so method="exact" is the remedy there).

    python validation/tolerance_large_reference.py --quick   # seconds
    python validation/tolerance_large_reference.py           # recorded in
        validation/results/tolerance_large_reference.txt
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import special, stats

from fastfair._score import score_statistic
from fastfair.tolerance import AUTO_MAX_SIZE

ALPHA = 0.05
SMALL = (30, 100, 300)
LARGE = 10_000
RATES = (0.005, 0.01, 0.05, 0.2)
U_TOLS = (0.0, 0.02)


def score_levels(small=SMALL, large=LARGE, rates=RATES, u_tols=U_TOLS):
    """Rows (n_A, n_B, u_tol, p_B, level) of the score test at the boundary."""
    z = special.ndtri(1 - ALPHA)
    rows = []
    for n_a in small:
        x_a, x_b = np.arange(n_a + 1.0)[:, None], np.arange(large + 1.0)[None, :]
        for u in u_tols:
            region = (score_statistic(x_a, n_a, x_b, large, u) > z).astype(float)
            for p_b in rates:
                pmf_a = stats.binom.pmf(np.arange(n_a + 1), n_a, p_b + u)
                pmf_b = stats.binom.pmf(np.arange(large + 1), large, p_b)
                rows.append((n_a, large, u, p_b, float(pmf_a @ region @ pmf_b)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    t0 = time.time()
    rows = score_levels(small=(30,), large=2000) if args.quick else score_levels()
    print(
        f"Score tolerance test, exact level at the boundary (alpha {ALPHA}, one-sided); "
        f"method='auto' runs it here because n_A + n_B > {AUTO_MAX_SIZE}"
    )
    print("    n_A    n_B  u_tol   p_B     level")
    for n_a, n_b, u, p_b, level in rows:
        print(f"  {n_a:5d}  {n_b:5d}  {u:5.2f}  {p_b:5.3f}  {level:.4f}")
    worst = max(rows, key=lambda r: r[-1])
    print(f"  max {worst[-1]:.4f} (n_A={worst[0]}, u_tol={worst[2]}, p_B={worst[3]})")
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
