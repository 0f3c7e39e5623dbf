"""find_slices side by side with SliceLine (PyPI `sliceline`) on the same data.

SliceLine ranks slices by a score that mixes the slice's error rate and its size, with a
minimum support; it gives no error rate. For the TPR, it runs on the rows with y_true = 1 and
the error "missed positive" (1 - y_pred): its slices are then slices of the TPR's
denominator, the rows our statistic reads. We report the time of each, the slices each
finds, and which of SliceLine's top 10 slices survive our family-wise control (max-T, alpha
0.05) with their adjusted p-values.

Data: UCI Adult (shared data, adult.data as published; a logistic regression fitted on it
predicts income > 50K; 8 slicing features, age cut at its quartiles) and the synthetic set
of validation/slices_fwer.py (1e6 rows, a planted slice of 0.5% with a TPR gap of 0.1).

    python benchmarks/slices_peers.py
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import fastfair

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "validation"))
import slices_fwer

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The shared data beside the checkout (../shared/data), or the session's copy.
ADULT = (
    next(
        (p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.exists()),
        ROOT.parent / "shared",
    )
    / "data"
    / "adult.data"
)

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
           "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
           "hours_per_week", "native_country", "income"]  # fmt: skip
FEATURES = ["age", "workclass", "education", "marital_status", "occupation", "relationship",
            "race", "sex"]  # fmt: skip


def adult():
    """Adult with a logistic regression's predictions; age cut at its quartiles."""
    from sklearn.linear_model import LogisticRegression

    frame = pd.read_csv(ADULT, header=None, names=COLUMNS, skipinitialspace=True)
    y = (frame["income"] == ">50K").to_numpy().astype(int)
    numeric = frame[["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]]
    design = pd.get_dummies(frame[["sex", "race", "relationship"]], dtype=float)
    x = np.column_stack([(numeric - numeric.mean()) / numeric.std(), design])
    pred = LogisticRegression(max_iter=1000).fit(x, y).predict(x)
    feats = frame[FEATURES].copy()
    feats["age"] = pd.qcut(frame["age"], 4).astype(str)
    return {k: feats[k].to_numpy(dtype=object) for k in FEATURES}, y, pred


def synthetic():
    rng = np.random.default_rng(3)
    n = 1_000_000
    feats = slices_fwer.features(rng, n, correlated=False)
    inside = np.ones(n, bool)
    for name, level in slices_fwer.PLANTED:
        inside &= feats[name] == level
    y, pred = slices_fwer.labels(rng, n, np.where(inside, 0.6, 0.7))
    return feats, y, pred


def sliceline_top(feats, y, pred, k=10):
    from sliceline.slicefinder import Slicefinder

    names = list(feats)
    x = pd.DataFrame({n: np.asarray(feats[n])[y == 1].astype(str) for n in names})
    errors = 1 - np.asarray(pred)[y == 1]
    start = time.perf_counter()
    finder = Slicefinder(alpha=0.95, k=k, max_l=3, min_sup=50, verbose=False).fit(x, errors)
    seconds = time.perf_counter() - start
    tops = []
    for row in finder.top_slices_:
        tops.append(frozenset((n, v) for n, v in zip(names, row) if v is not None))
    return tops, seconds


def compare(label, feats, y, pred):
    start = time.perf_counter()
    res = fastfair.find_slices(None, y, pred, features=feats, max_depth=3, min_size=50,
                               random_state=0)  # fmt: skip
    ours = time.perf_counter() - start
    every = fastfair.find_slices(None, y, pred, features=feats, max_depth=3, min_size=50,
                                 random_state=0, alpha=0.9999)  # fmt: skip
    adjusted = {frozenset((n, str(v)) for n, v in s.predicates): s for s in every.slices}
    significant = {frozenset((n, str(v)) for n, v in s.predicates) for s in res.slices}
    tops, theirs = sliceline_top(feats, y, pred)
    print(f"\n{label}: {len(y):,} rows, {int(np.sum(y)):,} positives")
    print(f"  fastfair.find_slices (tpr, depth 3, min_size 50, 999 permutations): {ours:.2f} s;"
          f" {res.n_slices} slices tested, {len(res.slices)} significant (max-T, alpha 0.05),"
          f" {sum(s.difference < 0 for s in res.slices)} with a lower TPR")  # fmt: skip
    print(f"  sliceline (alpha 0.95, max_l 3, min_sup 50, top 10): {theirs:.2f} s")
    if not tops:
        print("    (no slice with a positive SliceLine score: its top 10 is empty)")
    for top in tops:
        text = " & ".join(f"{n} = {v}" for n, v in sorted(top))
        found = adjusted.get(top)
        if found is None:
            verdict = "not tested (below min_size or no complement)"
        else:
            verdict = (f"TPR {found.value:.3f} vs {found.complement_value:.3f}, size "
                       f"{found.size}, p adjusted {found.pvalue_adjusted:.3g}: "
                       + ("SURVIVES" if top in significant else "not significant"))  # fmt: skip
        print(f"    {text}: {verdict}")


def main():
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    compare("UCI Adult, logistic regression", *adult())
    compare("synthetic, planted slice f7 = 0 & f5 = 0 & f4 = 0", *synthetic())
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
