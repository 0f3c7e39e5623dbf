"""Error control of find_slices over the whole search, and its power against Bonferroni.

1. Global null, 8 correlated features of 2-10 levels (quantile cuts of a shared Gaussian
   factor plus noise, correlation 0.36 between latents), depth 3: labels and predictions
   independent of the features. Share of data sets with any significant slice, for max-T
   (family-wise, the default), Benjamini-Yekutieli (FDR; under the global null FDR = FWER)
   and Bonferroni. Promise: at most alpha = 0.05 (checked as <= alpha + 3 SE).
2. FDR with real slices: 8 independent features; the TPR is 0.15 lower where feature 0 = 0.
   Slices that do not involve feature 0 are true nulls (their membership is independent of
   the prediction given the label); those that involve it are not. False discovery
   proportion of BY (promise: mean <= alpha) and max-T's strong family-wise error over the
   true nulls (promise: <= alpha).
3. Power: 1e6 rows, independent features, a planted depth-3 slice of 0.5% of the rows
   (f7 = 0 & f5 = 0 & f4 = 0: 0.1 x 0.2 x 0.25) with a TPR gap of -0.1 (and of -0.05):
   share of data sets where the planted slice is significant, max-T vs Bonferroni over the
   same slices.

    python validation/slices_fwer.py --quick   # small (tests run this)
    python validation/slices_fwer.py           # recorded in validation/results/slices_fwer.txt
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ALPHA = 0.05
LEVELS = (2, 2, 3, 3, 4, 5, 6, 10)
PLANTED = (("f7", 0), ("f5", 0), ("f4", 0))


def features(rng, n, correlated):
    """8 features, feature k cut into LEVELS[k] equal-probability levels of its latent."""
    shared = rng.standard_normal(n) if correlated else np.zeros(n)
    out = {}
    for k, levels in enumerate(LEVELS):
        latent = 0.6 * shared + (0.8 if correlated else 1.0) * rng.standard_normal(n)
        cuts = np.quantile(latent, np.linspace(0, 1, levels + 1)[1:-1])
        out[f"f{k}"] = np.searchsorted(cuts, latent).astype(np.int64)
    return out


def labels(rng, n, tpr, fpr=0.2, prevalence=0.3):
    """Labels and predictions with per-row TPR `tpr` (array or scalar)."""
    y = (rng.random(n) < prevalence).astype(np.int64)
    pred = np.where(y == 1, rng.random(n) < tpr, rng.random(n) < fpr).astype(np.int64)
    return y, pred


def search(y, pred, feats, adjust, n_permutations, seed, min_size):
    return fastfair.find_slices(
        None, y, pred, features=feats, max_depth=3, min_size=min_size, adjust=adjust,
        n_permutations=n_permutations, random_state=seed, n_jobs=1,
    )  # fmt: skip


def global_null(n_sets, n, n_permutations, seed, min_size=30):
    """Any rejection per method under the global null; also the slices tested."""
    rng = np.random.default_rng(seed)
    hits = {"maxT": 0, "by": 0, "bonferroni": 0}
    tested, effective = [], []
    for i in range(n_sets):
        feats = features(rng, n, correlated=True)
        y, pred = labels(rng, n, 0.7)
        for adjust in hits:
            res = search(y, pred, feats, adjust, n_permutations, seed * 100_003 + i, min_size)
            hits[adjust] += bool(res.slices)
            if adjust == "maxT":
                tested.append(res.n_slices)
                effective.append(res.effective_n_slices)
    return (
        {k: v / n_sets for k, v in hits.items()},
        float(np.mean(tested)),
        float(np.mean(effective)),
    )


def fdr_setting(n_sets, n, n_permutations, seed, min_size=30):
    """(mean false discovery proportion of BY, max-T strong FWER, mean rejections of each)."""
    rng = np.random.default_rng(seed)
    fdp, fwer, r_by, r_maxt = [], 0, [], []
    for i in range(n_sets):
        feats = features(rng, n, correlated=False)
        y, pred = labels(rng, n, np.where(feats["f0"] == 0, 0.55, 0.7))
        by = search(y, pred, feats, "by", n_permutations, i, min_size)
        maxt = search(y, pred, feats, "maxT", n_permutations, i, min_size)
        false_by = sum(all(f != "f0" for f, _ in s.predicates) for s in by.slices)
        fdp.append(false_by / max(len(by.slices), 1))
        fwer += any(all(f != "f0" for f, _ in s.predicates) for s in maxt.slices)
        r_by.append(len(by.slices))
        r_maxt.append(len(maxt.slices))
    return (
        float(np.mean(fdp)),
        float(np.std(fdp) / math.sqrt(n_sets)),
        fwer / n_sets,
        float(np.mean(r_by)),
        float(np.mean(r_maxt)),
    )


def power(n_sets, n, gap, n_permutations, seed, min_size=100):
    """Share of data sets where the planted slice is significant: (max-T, Bonferroni)."""
    rng = np.random.default_rng(seed)
    found = {"maxT": 0, "bonferroni": 0}
    seconds = []
    for i in range(n_sets):
        feats = features(rng, n, correlated=False)
        inside = np.ones(n, bool)
        for name, level in PLANTED:
            inside &= feats[name] == level
        y, pred = labels(rng, n, np.where(inside, 0.7 - gap, 0.7))
        for adjust in found:
            start = time.perf_counter()
            res = search(y, pred, feats, adjust, n_permutations, i, min_size)
            if adjust == "maxT":
                seconds.append(time.perf_counter() - start)
            found[adjust] += any(set(s.predicates) == set(PLANTED) for s in res.slices)
    return {k: v / n_sets for k, v in found.items()}, float(np.median(seconds))


def se(p, n):
    return math.sqrt(max(p * (1 - p), 1e-12) / n)


def main(quick: bool) -> str:
    if quick:
        cfg = dict(null=(40, 1000, 99), fdr=(20, 2000, 99), power=(1, 200_000, 99), gaps=(0.25,))
    else:
        cfg = dict(
            null=(1000, 3000, 199), fdr=(200, 3000, 199), power=(5, 1_000_000, 999),
            gaps=(0.1, 0.05),
        )  # fmt: skip
    started = time.time()
    lines = [f"slices_fwer ({'quick' if quick else 'full'}), alpha = {ALPHA}"]
    n_sets, n, b = cfg["null"]
    rates, tested, effective = global_null(n_sets, n, b, seed=1)
    lines.append(f"1. global null, correlated features {LEVELS}, depth 3, {n_sets} data sets of "
                 f"{n} rows, {b} joint permutations, min_size 30")  # fmt: skip
    lines.append(
        f"   slices tested (mean): {tested:.0f}; effective number (max-T): {effective:.0f}"
    )
    for k, v in rates.items():
        bound = ALPHA + 3 * se(ALPHA, n_sets)
        lines.append(f"   any rejection, {k:10s}: {v:.4f} (SE {se(v, n_sets):.4f}; promise <= "
                     f"{ALPHA}; bound alpha + 3 SE = {bound:.4f})")  # fmt: skip
    n_sets, n, b = cfg["fdr"]
    fdr, fdr_se, fwer, r_by, r_maxt = fdr_setting(n_sets, n, b, seed=2)
    lines.append(f"2. TPR 0.15 lower where f0 = 0, independent features, {n_sets} data sets of "
                 f"{n} rows")  # fmt: skip
    lines.append(f"   BY: mean false discovery proportion {fdr:.4f} (SE {fdr_se:.4f}; promise <= "
                 f"{ALPHA}); mean slices reported {r_by:.1f}")  # fmt: skip
    lines.append(f"   max-T: any true-null slice rejected {fwer:.4f} (SE {se(fwer, n_sets):.4f}; "
                 f"promise <= {ALPHA}); mean slices reported {r_maxt:.1f}")  # fmt: skip
    n_sets, n, b = cfg["power"]
    for gap in cfg["gaps"]:
        found, seconds = power(n_sets, n, gap, b, seed=3)
        lines.append(f"3. power, planted slice {PLANTED} (0.5% of rows), TPR gap -{gap}, "
                     f"{n_sets} data sets of {n:,} rows, {b} joint permutations, "
                     "min_size 100")  # fmt: skip
        lines.append(f"   found by max-T {found['maxT']:.2f}, by Bonferroni over the same "
                     f"slices {found['bonferroni']:.2f} (median max-T search {seconds:.1f} s, "
                     "1 thread)")  # fmt: skip
    lines.append(f"total {time.time() - started:.0f} s")
    return "\n".join(lines)


def _header() -> str:
    commit = git_commit()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    return f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}; {load}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(_header())
    print(main(args.quick))
