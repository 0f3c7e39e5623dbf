"""Level and power of the paired comparison of two models (fastfair.compare_models,
fastfair.compare_auc) when the two models are correlated.

Two groups (1,500 rows with prevalence 0.5 and 500 with prevalence 0.3). Each row has
latent scores (Z_A, Z_B), bivariate normal with correlation rho in {0.5, 0.9, 0.99}; model
m predicts 1 when Z_m exceeds a threshold set per group and label so that its TPR (and FPR)
in each group is the one of the setting. Settings:

* null, equal gaps 0.10: TPR of A 0.70 / 0.60, of B 0.75 / 0.65 (B is not A: the two
  predictions of a row are not exchangeable, only the gaps are equal; the weak null the
  studentized statistic is for);
* null, no gaps: both models 0.70 / 0.70 (the strong null, exchangeable rows; also the
  point where |gap| is not differentiable);
* power: B closes the gap, 0.70 / 0.60 -> 0.70 / 0.66.

Tests at alpha = 0.05: the default paired test (``method="auto"``: exact swap
enumeration, or 9,999 swap permutations when larger), the paired asymptotic z-test, the
"B reduces the gap" test at its boundary |gap_B| = |gap_A|, and the unpaired comparison
(z-test of the same change with the covariance of the two models ignored, what one does
with two separate audits). AUC (scores, not predictions): the paired DeLong test of the
change of the AUC gap (``compare_auc(method="delong")``) and the unpaired comparison, with
binormal scores whose noises have correlation rho and equal AUC gaps (0.80 / 0.75 under A,
0.82 / 0.77 under B) or a closed gap (0.80 / 0.78 under B).

    python validation/compare_level.py --quick   # the tests run it (seconds)
    python validation/compare_level.py           # full run, recorded in
    # validation/results/compare_level.txt
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
from scipy import stats

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ALPHA = 0.05
SIZES, PREVALENCE = (1500, 500), (0.5, 0.3)
RHOS = (0.5, 0.9, 0.99)
#: (kind, name, TPR of A per group, TPR of B per group)
RATE_SETTINGS = (
    ("null", "equal gaps 0.10", (0.70, 0.60), (0.75, 0.65)),
    ("null", "no gaps", (0.70, 0.70), (0.70, 0.70)),
    ("power", "B closes the gap", (0.70, 0.60), (0.70, 0.66)),
)
AUC_SETTINGS = (
    ("null", "equal AUC gaps 0.05", (0.80, 0.75), (0.82, 0.77)),
    ("power", "B closes the AUC gap", (0.80, 0.75), (0.80, 0.78)),
)
METHODS = ("paired_default", "paired_asymptotic", "reduced", "unpaired")
AUC_METHODS = ("paired_delong", "reduced", "unpaired")
FPR = (0.2, 0.2)  # both models, both groups


def _latent(rng, n, rho):
    za = rng.normal(size=n)
    return za, rho * za + math.sqrt(1 - rho * rho) * rng.normal(size=n)


def rate_data(rng, rho, tpr_a, tpr_b):
    """Labels, groups and the two models' predictions."""
    group = np.repeat([0, 1], SIZES)
    y = rng.random(group.size) < np.array(PREVALENCE)[group]
    za, zb = _latent(rng, group.size, rho)
    rate_a = np.where(y, np.array(tpr_a)[group], np.array(FPR)[group])
    rate_b = np.where(y, np.array(tpr_b)[group], np.array(FPR)[group])
    return y, za > stats.norm.ppf(1 - rate_a), zb > stats.norm.ppf(1 - rate_b), group


def unpaired_pvalue(y, a, b, group, reference=0):
    """Two-sided z-test of the change of TPR gaps with the two models taken as independent."""
    var, gaps = 0.0, []
    for pred in (a, b):
        rates = []
        for g in (0, 1):
            pos = (group == g) & y
            p = pred[pos].mean()
            rates.append(p)
            var += p * (1 - p) / pos.sum()
        gaps.append(rates[1] - rates[reference])
    return 2 * stats.norm.sf(abs(gaps[1] - gaps[0]) / math.sqrt(var))


def rate_rejections(rng, rho, tpr_a, tpr_b):
    y, a, b, group = rate_data(rng, rho, tpr_a, tpr_b)
    seed = int(rng.integers(2**32))
    default = fastfair.compare_models(y, a, b, group, reference=0, random_state=seed)
    asym = fastfair.compare_models(y, a, b, group, reference=0, method="asymptotic")
    return {
        "paired_default": default.pvalue <= ALPHA,
        "paired_asymptotic": asym.pvalue <= ALPHA,
        "reduced": default.pvalue_reduced <= ALPHA,
        "unpaired": unpaired_pvalue(y, a, b, group) <= ALPHA,
    }, default.method


def auc_data(rng, rho, auc_a, auc_b):
    group = np.repeat([0, 1], SIZES)
    y = rng.random(group.size) < np.array(PREVALENCE)[group]
    za, zb = _latent(rng, group.size, rho)
    mu_a = math.sqrt(2) * stats.norm.ppf(np.array(auc_a))[group]
    mu_b = math.sqrt(2) * stats.norm.ppf(np.array(auc_b))[group]
    return y, za + y * mu_a, zb + y * mu_b, group


def auc_rejections(rng, rho, auc_a, auc_b):
    y, sa, sb, group = auc_data(rng, rho, auc_a, auc_b)
    res = fastfair.compare_auc(y, sa, sb, group, reference=0, method="delong")
    var_unpaired = res.standard_error**2 + 0.0
    pd_ = fastfair.paired_delong(y, sa, sb, group)
    var_unpaired = (pd_.variance_a + pd_.variance_b).sum()
    z = res.difference / math.sqrt(var_unpaired)
    return {
        "paired_delong": res.pvalue <= ALPHA,
        "reduced": res.pvalue_reduced <= ALPHA,
        "unpaired": 2 * stats.norm.sf(abs(z)) <= ALPHA,
    }, "delong"


def simulate(kind, name, rho, a, b, n_sim, seed, auc=False):
    rng = np.random.default_rng(seed)
    methods = AUC_METHODS if auc else METHODS
    counts = dict.fromkeys(methods, 0)
    used = set()
    for _ in range(n_sim):
        hits, method = (auc_rejections if auc else rate_rejections)(rng, rho, a, b)
        used.add(method)
        for k in methods:
            counts[k] += bool(hits[k])
    row = {"kind": kind, "setting": name, "metric": "auc" if auc else "tpr", "rho": rho,
           "n_sim": n_sim, "methods": methods, "used": "/".join(sorted(used))}  # fmt: skip
    row.update({k: counts[k] / n_sim for k in methods})
    return row


def run(quick=False, n_sim=1000, seed=2026):
    """Rows of rejection rates; quick: 100 data sets, rho 0.9 only, TPR and AUC."""
    rhos = (0.9,) if quick else RHOS
    n_sim = 100 if quick else n_sim
    rows = []
    for r, rho in enumerate(rhos):
        for s, (kind, name, a, b) in enumerate(RATE_SETTINGS):
            rows.append(simulate(kind, name, rho, a, b, n_sim, seed + 100 * r + s))
        for s, (kind, name, a, b) in enumerate(AUC_SETTINGS):
            rows.append(simulate(kind, name, rho, a, b, n_sim, seed + 100 * r + 50 + s, True))
    return rows


def format_rows(rows) -> str:
    lines = []
    for row in rows:
        se = math.sqrt(ALPHA * (1 - ALPHA) / row["n_sim"])
        rates = "  ".join(f"{k} {row[k]:.3f}" for k in row["methods"])
        bound = f"(alpha + 3 SE = {ALPHA + 3 * se:.3f})" if row["kind"] == "null" else "(power)"
        lines.append(f"{row['metric']:<4} rho {row['rho']:<5} {row['setting']:<22} "
                     f"[{row['used']}] {rates}  {bound}")  # fmt: skip
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=1000)
    args = parser.parse_args()
    start = time.time()
    rows = run(args.quick, args.n_sim)
    commit = git_commit()
    print(f"# compare_level: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit "
          f"{commit}, {rows[0]['n_sim']} data sets per row, alpha {ALPHA}, groups {SIZES} "
          f"with prevalence {PREVALENCE}, FPR {FPR}; MC SE of a rate p: sqrt(p(1-p)/n_sim) "
          f"({math.sqrt(ALPHA * (1 - ALPHA) / rows[0]['n_sim']):.4f} at alpha); "
          f"{time.time() - start:.0f} s")  # fmt: skip
    print(format_rows(rows))


if __name__ == "__main__":
    main()
