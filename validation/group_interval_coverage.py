"""Exact coverage of the audit's per-group rate intervals (issue 34, Done-when 1).

The audit reports every group's rates with a 95% interval (``AuditResult.by_group``, the
report's Groups table). They were Wilson's score intervals, which cover only 0.860 at 15 rows
and a rate of 0.01 (and at 30 rows and 0.005); they are now ``fastfair._score.rate_limits``:
Clopper-Pearson (exact) for a rate with fewer than 50 events or non-events, Wilson's
elsewhere. This script computes the exact coverage of both, summing the binomial
probabilities of the counts whose interval holds the rate, for group sizes 10-50 and 100 to
1,000,000 and rates 0.005-0.995 (no Monte-Carlo error; counts beyond 12 standard deviations
of the mean, below 1e-30 of the mass, are left out).

    python validation/group_interval_coverage.py --quick
    python validation/group_interval_coverage.py   # validation/results/group_interval_coverage.txt
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from fastfair._pvalues import wilson_interval
from fastfair._score import rate_limits

SIZES = (10, 15, 20, 25, 30, 40, 50, 100, 300, 1000, 10_000, 100_000, 1_000_000)
RATES = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995)


def coverage(n: int, p: float) -> tuple[float, float]:
    """Exact coverage of (Wilson, the audit's interval) at n rows and rate p."""
    sd = np.sqrt(n * p * (1 - p))
    x = np.arange(max(0, int(n * p - 12 * sd) - 1), min(n, int(n * p + 12 * sd) + 1) + 1)
    pmf = stats.binom.pmf(x, n, p)
    out = []
    for lo, hi in (wilson_interval(x.astype(float), n), rate_limits(x, n)):
        out.append(float(pmf[(lo <= p) & (p <= hi)].sum()))
    return out[0], out[1]


def run(sizes=SIZES, rates=RATES):
    return [(n, p, *coverage(n, p)) for n in sizes for p in rates]


def summary(rows) -> str:
    lines = [f"{'n':>9}{'rate':>7}{'wilson':>9}{'audit':>9}"]
    lines += [f"{n:>9,}{p:>7.3f}{w:>9.4f}{a:>9.4f}" for n, p, w, a in rows]
    worst_w = min(rows, key=lambda r: r[2])
    worst_a = min(rows, key=lambda r: r[3])
    lines.append(
        f"settings {len(rows)}; Wilson: min {worst_w[2]:.4f} (n={worst_w[0]}, rate="
        f"{worst_w[1]}), below 0.9354 (0.95 - 3 SE of 2,000 simulations): "
        f"{sum(r[2] < 0.9354 for r in rows)}; the audit's interval: min {worst_a[3]:.4f} "
        f"(n={worst_a[0]}, rate={worst_a[1]}), below 0.9354: {sum(r[3] < 0.9354 for r in rows)}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    t0 = time.time()
    rows = run((15, 30, 1000), (0.005, 0.01, 0.5)) if args.quick else run()
    text = (
        "Exact coverage of 95% intervals for one group's rate (issue 34); "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
        + summary(rows)
        + f"\nelapsed {time.time() - t0:.1f} s"
    )
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
