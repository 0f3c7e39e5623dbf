"""Paired DeLong against pROC: the data sets, and fastfair's statistics on them.

``python validation/paired_delong_proc.py --write-data`` writes the data sets (ties, small
groups, unbalanced prevalence) to validation/results/paired_delong_proc_data.csv;
``Rscript validation/paired_delong_proc.R`` computes pROC's
``roc.test(roc_b, roc_a, paired=TRUE, method="delong")`` on each (data set, group) and
records it in validation/results/paired_delong_proc.txt; ``python
validation/paired_delong_proc.py`` compares fastfair.paired_delong with the recorded values
(tests/test_compare.py does the same, and runs R when Rscript with pROC is installed).
"""

from __future__ import annotations

import argparse
import csv
import pathlib

import numpy as np

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
DATA = RESULTS / "paired_delong_proc_data.csv"
RECORDED = RESULTS / "paired_delong_proc.txt"


def make_data(seed: int = 20261127) -> list[tuple]:
    """Rows (dataset, group, y, score_a, score_b) of five data sets."""
    rng = np.random.default_rng(seed)
    rows = []

    def add(name, group, y, a, b):
        rows.extend(zip([name] * len(y), group, y.astype(int), a, b))

    # 1. heavy ties: scores on a grid of 0.1, both models, two groups
    n = 400
    g = rng.choice(["a", "b"], n)
    y = rng.random(n) < 0.4
    lat = rng.normal(size=n) + y
    add(
        "ties",
        g,
        y,
        np.round(1 / (1 + np.exp(-lat)), 1),
        np.round(1 / (1 + np.exp(-(lat + 0.7 * rng.normal(size=n)))), 1),
    )
    # 2. small groups: 8 and 11 rows (3 and 4 positives), integer scores with ties
    for name, n_pos, n_neg in (("small", 3, 5), ("small", 4, 7)):
        y = np.r_[np.ones(n_pos), np.zeros(n_neg)].astype(bool)
        a = rng.integers(0, 5, n_pos + n_neg) + y
        b = rng.integers(0, 5, n_pos + n_neg) + 2 * y
        add(name, [f"g{n_pos}"] * (n_pos + n_neg), y, a.astype(float), b.astype(float))
    # 3. unbalanced prevalence: 3% positives in one group, 60% in the other
    for grp, n, prev in (("rare", 1500, 0.03), ("common", 300, 0.6)):
        y = rng.random(n) < prev
        s = rng.normal(size=n) + 1.2 * y
        add("unbalanced", [grp] * n, y, s, 0.8 * s + 0.6 * rng.normal(size=n) + 0.3 * y)
    # 4. strongly correlated models (0.99), continuous scores
    n = 600
    y = rng.random(n) < 0.3
    s = rng.normal(size=n) + y
    add("correlated", rng.choice(["x", "y", "z"], n), y, s, s + 0.15 * rng.normal(size=n))
    # 5. ties across the two models and within: scores from {0, 0.5, 1}
    n = 200
    y = rng.random(n) < 0.5
    add(
        "three_values",
        ["all"] * n,
        y,
        rng.integers(0, 3, n) / 2 + 0.0 * y,
        np.clip(rng.integers(0, 3, n) + y, 0, 2) / 2,
    )
    return rows


def write_data() -> None:
    with DATA.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["dataset", "group", "y", "score_a", "score_b"])
        for row in make_data():
            writer.writerow([row[0], row[1], row[2], repr(float(row[3])), repr(float(row[4]))])


def read_data() -> dict:
    """{(dataset, group): (y, score_a, score_b)} from the data file."""
    out: dict = {}
    with DATA.open() as f:
        for r in csv.DictReader(f):
            out.setdefault((r["dataset"], r["group"]), []).append(
                (int(r["y"]), float(r["score_a"]), float(r["score_b"])))  # fmt: skip
    return {k: tuple(np.array(c) for c in zip(*v)) for k, v in out.items()}


def read_recorded(path=RECORDED) -> dict:
    """{(dataset, group): {"statistic", "auc_a", "auc_b", ...}} of pROC's output."""
    out = {}
    with pathlib.Path(path).open() as f:
        lines = [line for line in f if not line.startswith("#")]
    for r in csv.DictReader(lines):
        out[(r["dataset"], r["group"])] = {k: float(v) for k, v in r.items()
                                           if k not in ("dataset", "group")}  # fmt: skip
    return out


def compare(recorded: dict) -> float:
    """Largest absolute difference between fastfair and pROC over statistics, AUCs,
    variances and covariances of every (data set, group)."""
    import fastfair

    worst = 0.0
    for key, (y, a, b) in read_data().items():
        res = fastfair.paired_delong(y, a, b)
        ref = recorded[key]
        ours = {"statistic": res.statistic[0], "auc_a": res.auc_a[0], "auc_b": res.auc_b[0],
                "var_a": res.variance_a[0], "var_b": res.variance_b[0],
                "cov": res.covariance[0]}  # fmt: skip
        worst = max(worst, *(abs(ours[k] - ref[k]) for k in ours))
    return worst


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write-data", action="store_true")
    args = parser.parse_args()
    if args.write_data:
        write_data()
    else:
        print(f"largest |fastfair - pROC|: {compare(read_recorded()):.3e}")
