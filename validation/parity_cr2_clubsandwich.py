"""The parity variances against clubSandwich (R): data sets, and fastfair's values on them.

At a grid point t a group's Nadaraya-Watson estimate is the intercept of ``lm(y ~ 1,
weights = k)`` with row weights ``k = w_m K((s - t) / h)`` (``w_m`` = 1 / the user's rows
with weighting="per_user", 1 with "per_observation"), so clubSandwich's
``vcovCR(fit, cluster = user, type = ...)`` is the same estimator family:

* CR0 is the same estimator: equal on every data set.
* CR2. fastfair's adjustment is Bell & McCaffrey's ``(I - H_mm)^{-1/2}`` with
  ``H_mm = 1 k_m' / B`` (rank one, eigenvalue ``p_m = b_m / B``), which scales user m's
  score by ``(1 - p_m)^{-1/2}``: the CR2 of the working model "weights are inverse variances".
  clubSandwich (Pustejovsky & Tipton 2018) takes the symmetric root
  ``D' (D G D')^{-1/2} D`` with ``D = chol(Phi)``. Where the weights are constant within each
  user (here: one score per user) the two roots are the same matrix, and fastfair equals
  ``vcovCR(..., type = "CR2", inverse_var = TRUE)``. clubSandwich's *default* for a weighted
  ``lm`` is the working model ``Phi = I`` (``inverse_var`` is FALSE when the fit has weights),
  a different estimator; where weights vary within a user, both clubSandwich variants differ
  from fastfair's and change when rows of negligible weight are added to a user (the
  ``tails`` data set at the point 0.2: ten rows at 6.5-7.5 bandwidths, weights below 1e-9),
  which a kernel estimate, and fastfair's CR2, does not see.

``python validation/parity_cr2_clubsandwich.py --write-data`` writes the data sets;
``Rscript validation/parity_cr2_clubsandwich.R`` records clubSandwich's CR0, CR2 (default)
and CR2 (inverse_var = TRUE) in validation/results/parity_cr2_clubsandwich.txt; ``python
validation/parity_cr2_clubsandwich.py`` prints fastfair's values beside them
(tests/test_parity_clubsandwich.py checks them, and runs R when it is installed).
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import warnings

import numpy as np

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
DATA = RESULTS / "parity_cr2_clubsandwich_data.csv"
POINTS = RESULTS / "parity_cr2_clubsandwich_points.csv"
RECORDED = RESULTS / "parity_cr2_clubsandwich.txt"
#: data set -> (grid points, bandwidth, weighting)
DATASETS = {
    "user_scores": ((0.3, 0.5, 0.7), 0.12, "per_user"),
    "user_scores_obs": ((0.3, 0.5, 0.7), 0.12, "per_observation"),
    "row_scores": ((0.2, 0.5, 0.8), 0.1, "per_observation"),
    "tails": ((0.2, 0.5, 0.8), 0.1, "per_observation"),
}


def make_data(seed: int = 20261127) -> list[tuple]:
    """Rows (dataset, group, user, y, score): two groups of 14 users, 1 + Poisson(3) rows a
    user and 30 for each group's first user; "user_scores" one score per user (Beta(2, 2)),
    "row_scores" a row's score the user's plus N(0, 0.08^2); "tails" is "row_scores" with
    ten more rows of group a's first user at scores 0.2 + (6.5 ... 7.5) x 0.1 (outcome 0): at
    the point 0.2 their kernel weights are below 1e-9."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in ("a", "b"):
        n = 1 + rng.poisson(3, 14)
        n[0] = 30
        centre = rng.beta(2, 2, 14)
        for m in range(14):
            user = f"{g}{m:02d}"
            noise = rng.normal(0, 0.08, n[m])
            for i in range(n[m]):
                sr = float(np.clip(centre[m] + noise[i], 0.01, 0.99))
                for name, s in (("user_scores", centre[m]), ("row_scores", sr)):
                    y = int(rng.random() < s)
                    rows.append((name, g, user, y, float(s)))
    rows += [("user_scores_obs", *r[1:]) for r in rows if r[0] == "user_scores"]
    rows += [("tails", *r[1:]) for r in rows if r[0] == "row_scores"]
    rows += [("tails", "a", "a00", 0, 0.2 + x * 0.1) for x in np.linspace(6.5, 7.5, 10)]
    return rows


def write_data() -> None:
    with DATA.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["dataset", "group", "user", "y", "score"])
        writer.writerows([*r[:4], repr(float(r[4]))] for r in make_data())
    with POINTS.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["dataset", "point", "bandwidth", "weighting"])
        for name, (grid, h, weighting) in DATASETS.items():
            writer.writerows([name, repr(float(t)), repr(float(h)), weighting] for t in grid)


def read_data() -> dict:
    """{dataset: (y, score, group, user)} from the data file."""
    out: dict = {}
    with DATA.open() as f:
        for r in csv.DictReader(f):
            out.setdefault(r["dataset"], []).append(
                (float(r["y"]), float(r["score"]), r["group"], r["user"]))  # fmt: skip
    return {k: tuple(np.array(c) for c in zip(*v)) for k, v in out.items()}


def read_recorded(path=RECORDED) -> dict:
    """{(dataset, group, point): {"cr0", "cr2_default", "cr2_inverse_var"}} of R's output."""
    out = {}
    with pathlib.Path(path).open() as f:
        lines = [line for line in f if not line.startswith("#")]
    for r in csv.DictReader(lines):
        key = (r["dataset"], r["group"], float(r["point"]))
        out[key] = {k: float(r[k]) for k in ("cr0", "cr2_default", "cr2_inverse_var")}
    return out


def ours() -> dict:
    """{(dataset, group, point): {"cr0", "cr2"}}: fastfair's variances (squared standard
    errors of ``calibration_curve``, small_sample "none" and "cr2")."""
    from fastfair import calibration_curve

    out = {}
    for name, (y, s, g, user) in read_data().items():
        grid, h, weighting = DATASETS[name]
        kw = dict(cluster=user, grid=np.array(grid), bandwidth=h, weighting=weighting,
                  min_effective_clusters=1)  # fmt: skip
        with warnings.catch_warnings():  # SparseGridWarning: few users, by design
            warnings.simplefilter("ignore")
            cr0 = calibration_curve(y, s, g, small_sample="none", **kw)
            cr2 = calibration_curve(y, s, g, **kw)
        for k, label in enumerate(cr2.groups):
            for j, t in enumerate(grid):
                out[(name, str(label), t)] = {
                    "cr0": cr0.standard_error[k, j] ** 2,
                    "cr2": cr2.standard_error[k, j] ** 2,
                }
    return out


def report(recorded: dict) -> str:
    mine = ours()
    lines = ["dataset          group point  CR0 ours/R-1  CR2 ours/R(inverse_var)-1  "
             "CR2 ours/R(default)-1"]  # fmt: skip
    for key, ref in recorded.items():
        o = mine[key]
        lines.append(
            f"{key[0]:<16} {key[1]:<5} {key[2]:<5} {o['cr0'] / ref['cr0'] - 1:>13.2e}  "
            f"{o['cr2'] / ref['cr2_inverse_var'] - 1:>24.2e}  "
            f"{o['cr2'] / ref['cr2_default'] - 1:>21.2e}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write-data", action="store_true")
    args = parser.parse_args()
    if args.write_data:
        write_data()
    else:
        print(report(read_recorded()))
