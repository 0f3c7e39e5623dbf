"""Coverage of the calibration curves' pointwise 95% bands the audit's report drew (issue 34).

The audit's predictive-parity row runs :func:`fastfair.predictive_parity_test` on the
tested groups; its report drew each group's Nadaraya-Watson calibration curve with the
pointwise 95% band (``curve.lower``, ``curve.upper``) "where a group has enough data for a
standard error". This script measures how often those bands cover the true calibration
curve E[Y | S = s, G = g] at the grid scores, for a group of 10-1,000 rows against a
reference of 1,000 or 100,000 rows, with scores spread over (0, 1) or concentrated near 0
or 1 (rare or common outcomes). Both groups are calibrated: Y ~ Bernoulli(S), so the truth
at grid score s is s. Coverage is pooled over the grid points where the small group has a
band (its share is shown) and given at the worst grid point.

    python validation/parity_band_coverage.py --quick   # the test suite (seconds)
    python validation/parity_band_coverage.py           # recorded in
        validation/results/parity_band_coverage.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
import warnings

import numpy as np

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

SMALL = (10, 30, 50, 200, 1000)
REFERENCES = (1000, 100_000)
#: score distributions: spread over (0, 1); near 0 (Beta(0.6, 12), mean 0.048); near 1
KINDS = ("uniform", "near 0", "near 1")
LEVEL = 0.95


def scores(rng, n, kind):
    """Scores and labels Y ~ Bernoulli(S) (a calibrated model)."""
    if kind == "uniform":
        s = rng.random(n)
    else:
        s = rng.beta(0.6, 12.0, n)
        s = s if kind == "near 0" else 1.0 - s
    return s, rng.random(n) < s


def coverage(n, n_ref, kind, n_sim, seed):
    """(pooled coverage, share of grid points with a band, worst point's coverage, its
    data sets) of the small group's bands; the audit's call (maxT, bootstrap) is replaced
    by n_bootstrap=0: the bands do not depend on the bootstrap."""
    rng = np.random.default_rng([seed, n, n_ref, KINDS.index(kind)])
    hits = tot = points = 0
    per_hit, per_tot = None, None
    for _ in range(n_sim):
        s0, y0 = scores(rng, n, kind)
        s1, y1 = scores(rng, n_ref, kind)
        group = np.r_[np.zeros(n, dtype=np.intp), np.ones(n_ref, dtype=np.intp)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = fastfair.predictive_parity_test(
                    np.r_[y0, y1], np.r_[s0, s1], group, n_bootstrap=0, adjust="holm"
                )
            except ValueError:
                continue  # the audit's row is an error: no curve
        c = res.curve
        k = list(c.groups).index(0)
        band = np.isfinite(c.lower[k])
        inside = (c.lower[k] <= c.grid) & (c.grid <= c.upper[k]) & band
        if per_hit is None:
            per_hit, per_tot = np.zeros(band.size), np.zeros(band.size)
        per_hit += inside
        per_tot += band
        hits += int(inside.sum())
        tot += int(band.sum())
        points += band.size
    if not tot:
        return float("nan"), 0.0, float("nan"), 0
    enough = per_tot >= max(20, 0.2 * n_sim)
    worst = np.where(enough, per_hit / np.maximum(per_tot, 1), np.inf)
    j = int(worst.argmin())
    return hits / tot, tot / points, float(worst[j]), int(per_tot[j])


def run(n_sim, seed, small=SMALL, refs=REFERENCES, kinds=KINDS, out=sys.stdout):
    rows = []
    for n_ref, kind, n in itertools.product(refs, kinds, small):
        sims = n_sim if n_ref <= 1000 else max(50, n_sim // 4)
        row = (n, n_ref, kind, sims, *coverage(n, n_ref, kind, sims, seed))
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    return rows


def format_row(row) -> str:
    n, n_ref, kind, sims, pooled, share, worst, at = row
    return (f"  {n:5d} {n_ref:8,d}  {kind:8s} {sims:5d}   {pooled:.3f}   {share:5.2f}   "
            f"{worst:.3f} ({at})")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=200)
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args(argv)
    start = time.time()
    print(f"# python validation/parity_band_coverage.py {' '.join(argv or sys.argv[1:])}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {git_commit()}; "
          f"seed {args.seed}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
          "nice 10")  # fmt: skip
    print("Pointwise 95% bands of the small group's calibration curve (truth: E[Y | S = s] = s)."
          " MC SE of a coverage c from m data sets: sqrt(c (1 - c) / m) (0.015 at 0.95 and "
          "m = 200; pooled coverage: points of one data set are correlated)")  # fmt: skip
    print("  small reference  scores    sims  pooled  share with a band  worst point (sets)")
    if args.quick:
        rows = run(40, args.seed, small=(30, 1000), refs=(1000,), kinds=("near 0",))
    else:
        rows = run(args.n_sim, args.seed)
    bad = [r for r in rows if np.isfinite(r[4]) and r[4] < LEVEL - 3 * math.sqrt(
        LEVEL * (1 - LEVEL) / r[3])]  # fmt: skip
    print(f"cells whose pooled coverage is below 0.95 - 3 SE: {len(bad)} of {len(rows)}; lowest "
          f"{min(r[4] for r in rows if np.isfinite(r[4])):.3f}")  # fmt: skip
    print(f"elapsed {time.time() - start:.0f} s; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
