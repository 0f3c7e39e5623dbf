"""Level of AUC margin tests with small groups (issue 17): which reference holds alpha.

The DeLong margin test Z = (AUC_A - AUC_B - d) / SE_DeLong reached 0.081 at alpha 0.05 with
100 rows (50 positives) and AUCs near 0.9 (validation/results/tolerance_level.txt): when an
AUC is near 1 its estimate is skewed and its variance shrinks as it grows, so large
estimates come with small standard errors. Candidates, each on the same simulated data:

* ``delong``: N(0, 1) reference (fastfair's method until this comparison);
* ``delong-t``: Student t with Satterthwaite degrees of freedom of the four variance
  components S10/n+ and S01/n- of the two groups;
* ``logit``: MOVER (Zou & Donner 2008; Newcombe 1998's hybrid) from each group's
  logit-scale interval, logit(AUC) +- z SE / (AUC (1 - AUC)): the lower bound of AUC_A -
  AUC_B is D - sqrt((AUC_A - l_A)^2 + (u_B - AUC_B)^2); the p-value of H0: U <= d is
  Phi(-z*) with z* the level at which that bound equals d;
* ``logit-satt``: the same MOVER with each group's interval at level Phi(z) taken from the
  Student t with that group's Satterthwaite degrees of freedom (of S10/n+ and S01/n-);
* ``logit-t``: the same with min(n+, n-) - 1 degrees of freedom per group, the lower
  bound of Satterthwaite's (it needs only the class counts, which every AUC result has);
* ``hybrid``: MOVER from the union of each group's logit-t interval and Newcombe's (2006,
  Method 5) score-type interval, whose Hanley-McNeil variance is taken at the candidate AUC
  rather than at the estimate, so it keeps its width where the DeLong variance collapses
  (an AUC near 1 with few positives or negatives), for a group with fewer than 100
  positives or negatives (the logit-t interval alone beyond): fastfair's method="hybrid",
  the default of tolerance_test, equivalence_test and the audit for the AUC.

The simulated data depend only on the seed, not on the methods, so ``--methods`` runs a
subset on the same data sets.

Scores (``--family``): binormal with equal variances (AUC = Phi(mu / sqrt 2)), or exponential
(negatives Exp(1), positives Exp with mean AUC / (1 - AUC); skewed, the Hanley-McNeil model),
where the logit tests fail with up to 100 per class. The one-sided test of H0: U <= u at
U = u (AUC_A = AUC_B + u) and of H0: U >= -u at U = -u, alpha 0.05, and its power at
|U| = u + 0.05 where that AUC is below 0.995 (the power twin); 4000 simulations per setting
(SE 0.0034 at 0.05).

    python validation/auc_margin_small.py --quick   # seconds
    python validation/auc_margin_small.py --family binormal
        # validation/results/auc_margin_small.txt
    python validation/auc_margin_small.py --family exponential --seed 23
        # validation/results/auc_margin_small_exponential.txt
    python validation/auc_margin_small.py --confirm --seed 18 --methods hybrid,logit-t
    python validation/auc_margin_small.py --confirm --family exponential --seed 24 \
        --methods hybrid,logit-t
        # the settings where logit-t exceeded alpha + 3 SE, 20,000 data sets each:
        # validation/results/auc_margin_confirm_hybrid.txt (auc_margin_confirm.txt: the
        # earlier logit-t, logit and DeLong run, seed 18)
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
from scipy import special, stats

from fastfair.auc import delong
from fastfair.tolerance import auc_margin_statistic, logit_group_parts

ALPHA = 0.05
METHODS = ("delong", "delong-t", "logit", "logit-satt", "logit-t", "hybrid")
FAMILIES = ("binormal", "exponential")
#: power twin: the gap beyond the margin at which power is simulated
EFFECT = 0.05


def satterthwaite_df(s10, n_pos, s01, n_neg):
    """Satterthwaite degrees of freedom of each group's DeLong variance S10/n+ + S01/n-."""
    a, b = s10 / n_pos, s01 / n_neg
    denom = a * a / np.maximum(n_pos - 1.0, 1.0) + b * b / np.maximum(n_neg - 1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, (a + b) ** 2 / denom, np.inf)


def satterthwaite_t(diff, d, s10, n_pos, s01, n_neg):
    """p-value of H0: U <= d with Satterthwaite's t reference (arrays: one row a data set)."""
    parts = np.concatenate([s10 / n_pos, s01 / n_neg], axis=1)
    dfs = np.concatenate([n_pos - 1.0, n_neg - 1.0], axis=1)
    var = parts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(var > 0, var**2 / np.sum(parts**2 / dfs, axis=1), np.inf)
        z = np.where(var > 0, (diff - d) / np.sqrt(var), np.copysign(np.inf, diff - d))
    return stats.t.sf(z, df)


def scores(y, group, aucs, family, rng):
    """Scores of one data set: positives of group g shifted (binormal) or scaled
    (exponential) so that its AUC is aucs[g]."""
    if family == "binormal":
        shift = np.sqrt(2) * special.ndtri(np.asarray(aucs))[group]
        return rng.standard_normal(len(y)) + shift * y
    mean = (np.asarray(aucs) / (1 - np.asarray(aucs)))[group]  # P(pos > neg) = m / (1 + m)
    return rng.exponential(1.0, len(y)) * np.where(y, mean, 1.0)


def simulate(
    n_a, n_b, prev, auc_b, u, side, n_sim, rng, methods=METHODS, family="binormal", effect=0.0
):
    """Rejection rates of each method with AUC_A - AUC_B = u + effect ("greater") or
    -(u + effect) ("less"): the level at the boundary with effect 0, else power (the data
    sets first, then each method on all of them at once)."""
    gap = u + effect
    auc_a = auc_b + gap if side == "greater" else auc_b - gap
    d = u if side == "greater" else -u
    group = np.repeat([0, 1], [n_a, n_b])
    fields = ("auc", "variance", "s10", "s01", "n_pos", "n_neg")
    sims = {f: np.empty((n_sim, 2)) for f in fields}
    for k in range(n_sim):
        while True:
            y = rng.random(n_a + n_b) < prev
            if min(y[:n_a].sum(), n_a - y[:n_a].sum(), y[n_a:].sum(), n_b - y[n_a:].sum()) >= 2:
                break
        res = delong(y, scores(y, group, (auc_a, auc_b), family, rng), group)
        for f in fields:
            sims[f][k] = getattr(res, f)
    auc, var, s10, s01, n_pos, n_neg = (sims[f] for f in fields)
    diff = auc[:, 0] - auc[:, 1]
    z = {}  # signed statistic of H0: U <= d (large is evidence against it)
    for m in methods:
        if m == "delong":
            with np.errstate(divide="ignore", invalid="ignore"):
                z[m] = (diff - d) / np.sqrt(var.sum(axis=1))
        elif m == "delong-t":
            z[m] = special.ndtri(1 - satterthwaite_t(diff, d, s10, n_pos, s01, n_neg))
        else:  # the logit MOVER tests, with tolerance_test's shrinkage of AUCs of 0 or 1
            a, v, df_t = logit_group_parts(auc, var, n_pos, n_neg, True)
            classes = None
            if m == "hybrid":
                classes = (n_pos[:, 0], n_neg[:, 0], n_pos[:, 1], n_neg[:, 1])
            if m == "logit":
                df = np.full(auc.shape, np.inf)
            elif m == "logit-satt":
                df = satterthwaite_df(s10, n_pos, s01, n_neg)
            else:
                df = df_t
            z[m] = auc_margin_statistic(
                a[:, 0], v[:, 0], a[:, 1], v[:, 1], d, df[:, 0], df[:, 1], classes=classes
            )
    out = {}
    for m in methods:
        p = special.ndtr(-z[m]) if side == "greater" else special.ndtr(z[m])
        out[m] = float(np.mean(p <= ALPHA))
    return out


SIZES = [(30, 1000), (50, 50), (50, 1000), (100, 100), (100, 1000), (300, 1000), (600, 1000)]
PREVS = [0.2, 0.5]
AUCS = [0.7, 0.85, 0.93]
SIDES = ["greater", "less"]
#: --confirm: n_A = 50, n_B = 1000, prevalence 0.5, AUC_B 0.93, H1 U > 0.05 (logit-t 0.067
#: with 2000 data sets) and its neighbours in size, prevalence and AUC
CONFIRM = [
    ((50, 1000), 0.5, 0.93, "greater"),
    ((50, 1000), 0.5, 0.85, "greater"),
    ((50, 1000), 0.2, 0.93, "greater"),
    ((100, 1000), 0.5, 0.93, "greater"),
    ((100, 1000), 0.2, 0.93, "greater"),
    ((50, 50), 0.5, 0.93, "greater"),
]


def _row(n_a, n_b, prev, auc_b, h1, rates, methods):
    return (f"  {n_a:4d}  {n_b:5d}  {prev:.1f}  {auc_b:.2f}   {h1:9s}  "
            + "  ".join(f"{rates[m]:10.4f}" for m in methods))  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--confirm", action="store_true", help="CONFIRM settings, 20,000 each")
    parser.add_argument("--n-sim", type=int, default=None, help="default 4000 (--confirm 20000)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--family", choices=FAMILIES, default="binormal")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset")
    args = parser.parse_args()
    methods = tuple(args.methods.split(","))
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    power = not args.confirm
    if args.quick:
        grid = [((100, 1000), 0.5, 0.85, "greater")]
        n_sim = 300
    elif args.confirm:
        grid = CONFIRM
        n_sim = args.n_sim or 20_000
    else:
        grid = list(itertools.product(SIZES, PREVS, AUCS, SIDES))
        n_sim = args.n_sim or 4000
    u = 0.05
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    print(
        f"AUC margin tests, {args.family} scores: one-sided level at the boundary |U| = {u}, "
        f"alpha {ALPHA}; {n_sim} simulations per setting, SE {se:.4f} "
        f"(3 SE: {ALPHA + 3 * se:.4f})"
    )
    header = "   n_A    n_B  prev  AUC_B  H1         " + "  ".join(f"{m:>10}" for m in methods)
    print(header)
    levels = {m: [] for m in methods}
    powers = []
    for (n_a, n_b), prev, auc_b, side in grid:
        sim = dict(methods=methods, family=args.family)
        r = simulate(n_a, n_b, prev, auc_b, u, side, n_sim, rng, **sim)
        for m in methods:
            levels[m].append(r[m])
        h1 = f"U > {u}" if side == "greater" else f"U < {-u}"
        print(_row(n_a, n_b, prev, auc_b, h1, r, methods), flush=True)
        auc_a = auc_b + (u + EFFECT) * (1 if side == "greater" else -1)
        if power and 0.005 < auc_a < 0.995:
            rp = simulate(n_a, n_b, prev, auc_b, u, side, n_sim, rng, effect=EFFECT, **sim)
            powers.append(_row(n_a, n_b, prev, auc_b, h1, rp, methods))
    print("  summary (mean / max / share above alpha + 3 SE):")
    for m in methods:
        lv = np.array(levels[m])
        print(f"    {m:10s} {lv.mean():.4f} / {lv.max():.4f} / {np.mean(lv > ALPHA + 3 * se):.3f}")
    if powers:
        print(f"\nPower twin: the same tests with |U| = {u + EFFECT} (U beyond the margin by "
              f"{EFFECT}), where that AUC is below 0.995")  # fmt: skip
        print(header)
        print("\n".join(powers))
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
