"""Audit verdicts near an adjusted level (issue 34 point 4): how often "undecided", at what cost.

An audit of one attribute (two groups, 6,000 rows, 15% in group b; scores a logistic
model's float64 probabilities, group b's with extra noise; predictions independent of the
groups) runs 9 tests, so Holm compares the smallest p-value with 0.05 / 9 = 0.0056. The
AUC test is the only Monte-Carlo one (the groups have < 1,000 positives each, so the audit
permutes; the confusion tests are exact and predictive parity's bootstrap p-value enters
as known). Two data sets put the AUC's permutation p-value near that level, one above
(about 0.0069) and one below (about 0.0046); a third has a clear AUC gap. Each is audited
with `random_state` 1..R (the Monte-Carlo draws differ, the data do not): the share of
audits whose AUC verdict is "undecided", wrong decisions (against a reference estimate of
the p-value from 500,000 permutations), the permutations drawn, the width of the p-value's
interval, and the median wall time against the clear case's.

    python validation/audit_near_level.py --quick   # one audit above the level, one clear
    python validation/audit_near_level.py           # R = 20, recorded in
    # validation/results/audit_near_level.txt
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

METRICS = ["tpr", "fpr", "ppv", "npv", "selection_rate", "accuracy", "equalized_odds"]
#: (name, seed, noise): the data sets, found by a search over seeds (DeLong p near 0.0056)
CASES = [("above", 104, 0.5), ("below", 80, 0.5), ("clear", 104, 2.0)]
THRESHOLD = 0.05 / 9


def dataset(seed, noise, n=6000):
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.15, "b", "a")
    y = rng.random(n) < 0.3
    z = rng.normal(size=n) + 1.2 * y
    z = np.where(g == "b", z + noise * rng.normal(size=n), z)
    pred = rng.random(n) < 0.3
    return y, pred, 1.0 / (1.0 + np.exp(-z)), g


def audit_once(data, random_state):
    """(AUC row as a dict, number of tests, wall seconds) of one audit."""
    y, pred, s, g = data
    start = time.perf_counter()
    res = fastfair.audit(y, pred, g, y_score=s, metrics=METRICS, random_state=random_state)
    seconds = time.perf_counter() - start
    rows = [t.to_dict() for t in res.tests]
    auc = next(r for r in rows if r["metric"] == "auc")
    n_tests = len({(r["metric"] if r["metric"] != "equalized_odds" else "eo") for r in rows})
    return auc, n_tests, seconds


def reference_pvalue(data, n_permutations):
    """The AUC permutation p-value from many permutations, with its binomial SE."""
    y, _, s, g = data
    res = fastfair.auc_test(y, s, g, reference="a", n_permutations=n_permutations,
                            random_state=12345)  # fmt: skip
    p = float(res.pvalue)
    return p, math.sqrt(p * (1 - p) / n_permutations)


def run(repeats: int, n_reference: int, cases=CASES):
    out = {}
    for name, seed, noise in cases:
        data = dataset(seed, noise)
        ref = reference_pvalue(data, n_reference) if name != "clear" else (None, None)
        audits = [audit_once(data, r) for r in range(1, repeats + 1)]
        out[name] = (ref, audits)
    return out


def summarize(out) -> list[str]:
    clear_time = float(np.median([sec for _, _, sec in out["clear"][1]]))
    lines = [
        f"Holm's first level 0.05 / 9 = {THRESHOLD:.5f}; the clear case's median audit: "
        f"{clear_time:.2f} s",
        "undecided: count (one-sided 95% upper bound of the share, Clopper-Pearson)",
        "case   reference p (SE)        audits  undecided        wrong  permutations (median)"
        "  interval width (median)  time (median)  time / clear",
    ]
    for name, ((p_ref, se_ref), audits) in out.items():
        decisions = [row["decision"] for row, _, _ in audits]
        n = len(audits)
        k_undecided = sum(d == "undecided" for d in decisions)
        upper = stats.beta.ppf(0.95, k_undecided + 1, n - k_undecided)  # one-sided 95%
        wrong = 0
        if p_ref is not None:
            truth = "difference" if p_ref <= THRESHOLD else None
            wrong = sum((d == "difference") != (truth == "difference") for d in decisions
                        if d != "undecided")  # fmt: skip
        perms = [row.get("n_permutations") or 0 for row, _, _ in audits]
        widths = [row["pvalue_interval"][1] - row["pvalue_interval"][0] for row, _, _ in audits
                  if row.get("pvalue_interval")]  # fmt: skip
        seconds = float(np.median([sec for _, _, sec in audits]))
        ref = "-" if p_ref is None else f"{p_ref:.5f} ({se_ref:.5f})"
        width = f"{np.median(widths):.5f}" if widths else "-"
        lines.append(
            f"{name:<6} {ref:<23} {n:>6}  {k_undecided:>3} (<= {upper:.3f})  {wrong:>5}  "
            f"{int(np.median(perms)):>21}  {width:>23}  {seconds:>12.2f}s  "
            f"{seconds / clear_time:>11.1f}"
        )
    tests = {k for _, audits in out.values() for _, k, _ in audits}
    lines.append(f"tests per audit: {sorted(tests)}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.time()
    repeats, n_reference = (1, 20_000) if args.quick else (20, 500_000)
    out = run(repeats, n_reference, CASES[::2] if args.quick else CASES)
    commit = git_commit()
    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"commit {commit}",
          f"load {os.getloadavg()[0]:.1f} (1 min) at the end")  # fmt: skip
    print("\n".join(summarize(out)))
    print(f"elapsed {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
