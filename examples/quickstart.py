"""fastfair quickstart: is a gap in a fairness metric real or noise?

Simulates a screening model whose recall (TPR) is slightly lower for group "B" and whose
groups differ in prevalence (the situation where naive permutation tests go wrong), then
runs the tests an auditor would: exact conditional tests per metric, equalized odds, and a
Monte-Carlo test with several groups and max-T adjustment. Run: python examples/quickstart.py
"""

import time

import numpy as np

import fastfair

rng = np.random.default_rng(2026)
n = 1_000_000
group = rng.choice(np.array(["A", "B", "C"]), n, p=[0.6, 0.3, 0.1])
prevalence = np.select([group == "A", group == "B"], [0.30, 0.20], 0.25)
y_true = rng.random(n) < prevalence
recall = np.where(group == "B", 0.795, 0.80)
y_pred = np.where(y_true, rng.random(n) < recall, rng.random(n) < 0.10)

print(f"fastfair {fastfair.__version__}: audit of {n:,} rows, groups A/B/C\n")
for metric in ("tpr", "fpr", "ppv", "selection_rate", "equalized_odds"):
    start = time.perf_counter()
    res = fastfair.permutation_test(y_true, y_pred, group, metric=metric, reference="A")
    elapsed = time.perf_counter() - start
    print(res)
    print(f"  ({elapsed:.2f} s)\n")

start = time.perf_counter()
res = fastfair.permutation_test(
    y_true,
    y_pred,
    group,
    metric="tpr",
    reference="A",
    method="monte_carlo",
    n_permutations=99_999,
    adjust="maxT",
    random_state=0,
)
print(res)
print(f"  (100,000 permutations, max-T: {time.perf_counter() - start:.2f} s)")
