"""Simultaneous coverage of the intervals the audit's slice search reports (issue 34).

``fastfair.audit(..., slices=DEPTH)`` lists the significant slices of
:func:`fastfair.find_slices` (max-T), each with the simultaneous interval of its difference
from its complement, ``difference +- critical_value * SE``. Simultaneous intervals promise
that all of them cover at once with probability 0.95; only the reported (significant)
slices' intervals are shown, so the check here is the necessary one: the share of data
sets in which some reported interval misses its slice's true difference must be at most
0.05 (+ 3 SE).

Data: 20,000 rows, three features (f0 with levels of 85%, 10%, 4% and 1% of the rows, f1
with 60/30/10%, f2 50/50), prevalence 0.5, FPR 0.1; the TPR is `base` everywhere except in
one slice (f0 = a & f1 = b) where it is `base - gap`: a slice of 2.4% of the rows (480), or
of 0.1% (f0 = 3 & f1 = 1: about 60 rows, 30 positives, just above min_size 50), with TPRs
near 1 (rare misses). Each slice's true difference from its complement follows from the
cell probabilities exactly.

    python validation/slices_interval_coverage.py --quick   # the test suite
    python validation/slices_interval_coverage.py           # recorded in
        validation/results/slices_interval_coverage.txt
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

SHARES = (np.array([0.85, 0.10, 0.04, 0.01]), np.array([0.6, 0.3, 0.1]), np.array([0.5, 0.5]))
N_ROWS = 20_000
#: (TPR outside the slice, gap, slice (f0 level, f1 level))
SETTINGS = (
    (0.8, 0.3, (2, 0)),
    (0.98, 0.2, (2, 0)),
    (0.995, 0.1, (2, 0)),
    (0.98, 0.3, (3, 1)),
    (0.6, 0.4, (3, 1)),
)


def cell_rates(base, gap, where):
    """TPR of every cell (f0, f1, f2)."""
    rates = np.full([len(s) for s in SHARES], base)
    rates[where[0], where[1], :] = base - gap
    return rates


def true_difference(predicates, rates) -> float:
    """TPR in the slice minus in its complement (prevalence independent of the features)."""
    w = np.einsum("i,j,k->ijk", *SHARES)
    mask = np.ones(w.shape, dtype=bool)
    for feature, level in predicates:
        axis = int(str(feature)[1])
        sel = np.zeros(w.shape, dtype=bool)
        index = [slice(None)] * 3
        index[axis] = int(level)
        sel[tuple(index)] = True
        mask &= sel
    inside = (w * rates)[mask].sum() / w[mask].sum()
    return inside - (w * rates)[~mask].sum() / w[~mask].sum()


def one_audit(rng, rates):
    """(slices reported, reported intervals that miss their truth)."""
    f = [rng.choice(len(s), N_ROWS, p=s) for s in SHARES]
    y = rng.random(N_ROWS) < 0.5
    pred = np.where(y, rng.random(N_ROWS) < rates[f[0], f[1], f[2]], rng.random(N_ROWS) < 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fastfair.find_slices(
            {"f0": f[0], "f1": f[1], "f2": f[2]}, y, pred, features=["f0", "f1", "f2"],
            metric="tpr", n_permutations=199, random_state=int(rng.integers(2**31)),
        )  # fmt: skip
    miss = 0
    for s in res.slices:
        lo, hi = s.confidence_interval
        t = true_difference(s.predicates, rates)
        miss += not (lo - 1e-12 <= t <= hi + 1e-12)
    return len(res.slices), miss


def run(reps, seed, settings=SETTINGS, out=sys.stdout):
    rows = []
    for base, gap, where in settings:
        rng = np.random.default_rng([seed, int(base * 1000), int(gap * 1000), *where])
        rates = cell_rates(base, gap, where)
        found = [one_audit(rng, rates) for _ in range(reps)]
        share = sum(m > 0 for _, m in found) / reps
        row = (base, gap, where, reps, sum(k for k, _ in found) / reps, share)
        rows.append(row)
        se = math.sqrt(0.05 * 0.95 / reps)
        print(f"  {base:5.3f} {gap:4.2f} {where!s:7s} {reps:5d} {row[4]:7.2f}   {share:.4f}"
              f"   (0.05 + 3 SE = {0.05 + 3 * se:.4f})", file=out, flush=True)  # fmt: skip
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args(argv)
    start = time.time()
    commit = git_commit()
    print(f"# python validation/slices_interval_coverage.py {' '.join(argv or sys.argv[1:])}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit}; "
          f"seed {args.seed}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
          "nice 10")  # fmt: skip
    print(
        "find_slices (max-T, 199 permutations, TPR, depth 3, min_size 50) on 20,000 rows; "
        "share of data sets where some reported simultaneous interval misses its truth"
    )
    print("   base  gap  slice     sets  reported  share missing")
    rows = run(20 if args.quick else args.reps, args.seed,
               SETTINGS[3:4] if args.quick else SETTINGS)  # fmt: skip
    worst = max(r[5] for r in rows)
    print(f"largest share {worst:.4f}; elapsed {time.time() - start:.0f} s; load "
          f"{os.getloadavg()}")  # fmt: skip


if __name__ == "__main__":
    main()
