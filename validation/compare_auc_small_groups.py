"""Level of the audit's AUC comparison of two models (``audit(compare=...)``) for small groups.

The audit compared the AUC gap of two models with the paired DeLong test in every group.
DeLong's z is a large-sample approximation; with a few positives in the compared group it
rejects far more often than alpha. This run measures, under the null, the rejection rate
at alpha = 0.05 of

* ``delong``: ``compare_auc(method="delong")``, what the audit used for every group;
* ``audit``: ``fastfair.audit(..., compare=(a, b))``'s AUC row, which now takes
  ``compare_auc``'s "auto" (DeLong with at least 1,000 positives and 1,000 negatives in
  both groups, else swaps of the two models' scores within rows).

Null: a small group (n rows, prevalence p) against a reference of 5,000 rows (prevalence
0.3). Each model's score is ``y * sep + sqrt(rho) Z + sqrt(1 - rho) E_m`` with the shared
noise Z and the model's own E_m (exchangeable models: the change of the AUC gap is 0), the
separation 0.5 in the small group and 1.0 in the reference. The small group's expected
positives go from 2.5 to 60: the extremes are where the normal approximation fails.

    python validation/compare_auc_small_groups.py --quick   # the tests run it (seconds)
    python validation/compare_auc_small_groups.py           # full run, recorded in
    # validation/results/compare_auc_small_groups.txt
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time

import numpy as np

import fastfair

ALPHA = 0.05
REFERENCE = (5000, 0.3)
#: (rows of the small group, its prevalence, correlation of the two models' noises)
SETTINGS = ((50, 0.05, 0.5), (30, 0.1, 0.5), (30, 0.1, 0.9), (20, 0.3, 0.5), (200, 0.3, 0.5))


def _data(rng, n_small, prevalence, rho):
    """Labels, the two models' scores and the group of one null data set."""
    n_ref, p_ref = REFERENCE
    group = np.r_[np.full(n_small, "small"), np.full(n_ref, "reference")]
    y = rng.random(len(group)) < np.where(group == "small", prevalence, p_ref)
    sep = np.where(group == "small", 0.5, 1.0)
    shared = math.sqrt(rho) * rng.normal(size=len(group))
    a, b = (y * sep + shared + math.sqrt(1 - rho) * rng.normal(size=len(group)) for _ in "ab")
    return y, a, b, group


def _pvalues(y, a, b, group, n_permutations, seed):
    """(DeLong's p-value, the audit's p-value and method), or None when the AUC of the small
    group is undefined (no positive)."""
    small = group == "small"
    if not y[small].any() or y[small].all():
        return None
    delong = fastfair.compare_auc(y, a, b, small, reference=False, method="delong")
    res = fastfair.audit(
        y, a >= 0.5, {"g": group}, compare=(a, b), threshold=0.5, metrics=["tpr"],
        min_group_size=5, n_permutations=n_permutations, random_state=seed,
    )  # fmt: skip
    row = next(r for r in res.model_comparison if r["metric"] == "auc")
    return float(delong.pvalue), row["pvalue"], row["method"]


def run(n_sim: int = 1000, n_permutations: int = 199, seed: int = 0, settings=SETTINGS):
    """Rows (n, prevalence, rho, data sets used, DeLong's rate, the audit's rate, the
    audit's methods)."""
    rows = []
    for i, (n_small, prevalence, rho) in enumerate(settings):
        rng = np.random.default_rng([seed, i])
        found = [
            _pvalues(*_data(rng, n_small, prevalence, rho), n_permutations, seed + s)
            for s in range(n_sim)
        ]
        found = [f for f in found if f is not None]
        delong = np.mean([f[0] <= ALPHA for f in found])
        audit = np.mean([f[1] <= ALPHA for f in found])
        methods = sorted({f[2] for f in found})
        rows.append((n_small, prevalence, rho, len(found), delong, audit, methods))
    return rows


def format_rows(rows, n_permutations: int) -> str:
    lines = []
    for n_small, prevalence, rho, used, delong, audit, methods in rows:
        bound = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / used)
        lines.append(
            f"small group {n_small:4d} rows, prevalence {prevalence:.2f}, rho {rho:.1f} "
            f"({used} data sets): DeLong {delong:.4f}  audit {audit:.4f} "
            f"[{', '.join(methods)}, {n_permutations} swaps]  (alpha + 3 SE = {bound:.4f})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=1000)
    args = parser.parse_args()
    n_sim = 60 if args.quick else args.n_sim
    start = time.time()
    rows = run(n_sim=n_sim)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()  # fmt: skip
    print(f"# compare_auc_small_groups: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"commit {commit}, {n_sim} data sets per row, alpha {ALPHA}, reference "
          f"{REFERENCE[0]} rows (prevalence {REFERENCE[1]}); MC SE of a rate p: "
          f"sqrt(p(1-p)/n); {time.time() - start:.0f} s")  # fmt: skip
    print(format_rows(rows, 199))


if __name__ == "__main__":
    main()
