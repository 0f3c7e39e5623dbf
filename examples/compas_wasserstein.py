"""Wasserstein projection test of a logistic recidivism classifier on COMPAS.

Data and preprocessing as in the authors' code (docs/wasserstein.md):
compas-scores-two-years.csv with
ProPublica's filters, African-American vs Caucasian (a = 1 for Caucasian), features age_cat
one-hot, sex, standardized priors_count and c_charge_degree, label two_year_recid. A logistic
regression is fitted on 70% of the rows and audited on the other 30%, for probabilistic equal
opportunity and equalized odds; then the most favorable distribution shows how the test rows
would have to move for the classifier to be fair, and a sweep over the regularization shows
accuracy and the statistic as the penalty changes (the paper's Figure 4).

    python examples/compas_wasserstein.py [path/to/compas-scores-two-years.csv]

Without a path, the file is looked for beside the repository (``../shared/data``, where the
project keeps it) and in the current directory; when it is in neither, the script says where
to download it (ProPublica's repository) and exits with status 2. It runs from any directory.

scikit-learn is used to fit the classifier when installed (any fitted model with coef_ and
intercept_ works); otherwise a small L2-regularized Newton fit stands in.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
from scipy import special

from fastfair.wasserstein import wasserstein_test

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = "compas-scores-two-years.csv"
#: Where the file is looked for without a path: beside the repository, then the directory
#: the script is run from.
PLACES = (os.path.join(HERE, "..", "..", "shared", "data", FILE), FILE)
URL = f"https://raw.githubusercontent.com/propublica/compas-analysis/master/{FILE}"


def find_data(path=None):
    """The COMPAS file: `path`, else the first of PLACES that exists; else exit 2 saying
    where to get it."""
    candidates = [path] if path is not None else PLACES
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    looked = ", ".join(os.path.abspath(c) for c in candidates)
    print(
        f"{FILE} not found ({looked}). Download it from {URL} and run\n"
        f"    python {os.path.abspath(__file__)} path/to/{FILE}",
        file=sys.stderr,
    )
    sys.exit(2)


def load_compas(path):
    df = pd.read_csv(path)
    df = df.dropna(subset=["days_b_screening_arrest"])
    keep = (
        df["days_b_screening_arrest"].between(-30, 30)
        & (df["is_recid"] != -1)
        & (df["c_charge_degree"] != "O")
        & (df["score_text"] != "N/A")
        & df["race"].isin(["African-American", "Caucasian"])
    )
    df = df[keep]
    age = pd.get_dummies(df["age_cat"], prefix="age", dtype=float)
    priors = df["priors_count"].astype(float)
    features = pd.concat(
        [
            age,
            (df["sex"] == "Male").astype(float).rename("male"),
            ((priors - priors.mean()) / priors.std(ddof=0)).rename("priors_count_std"),
            (df["c_charge_degree"] == "M").astype(float).rename("misdemeanor"),
        ],
        axis=1,
    )
    return features, df["two_year_recid"].to_numpy(), df["race"].to_numpy()


def fit_logistic(X, y, C=1.0):
    """L2-regularized logistic regression: scikit-learn if available, else Newton's method."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        Xb = np.column_stack([X, np.ones(len(y))])
        w = np.zeros(Xb.shape[1])
        penalty = np.r_[np.full(X.shape[1], 1.0 / C), 0.0]
        for _ in range(50):
            p = special.expit(Xb @ w)
            grad = Xb.T @ (p - y) + penalty * w
            hess = (Xb * (p * (1 - p))[:, None]).T @ Xb + np.diag(penalty)
            step = np.linalg.solve(hess, grad)
            w -= step
            if np.abs(step).max() < 1e-10:
                break

        class Fitted:
            coef_ = w[None, :-1]
            intercept_ = w[-1:]

        return Fitted()
    return LogisticRegression(C=C, max_iter=1000).fit(X, y)


def main(path=None):
    features, y, race = load_compas(find_data(path))
    print(
        f"COMPAS after ProPublica's filters: {len(y)} defendants, "
        f"{ {k: int(v) for k, v in zip(*np.unique(race, return_counts=True))} }"
    )
    rng = np.random.default_rng(2021)
    test = rng.random(len(y)) < 0.3
    X = features.to_numpy()
    model = fit_logistic(X[~test], y[~test])
    acc = np.mean((special.expit(X[test] @ model.coef_[0] + model.intercept_[0]) > 0.5) == y[test])
    print(
        f"logistic regression on {np.sum(~test)} rows; test accuracy {acc:.3f} "
        f"on {np.sum(test)} rows"
    )
    print(
        "coefficients:", {k: round(float(v), 3) for k, v in zip(features.columns, model.coef_[0])}
    )

    for criterion in ("equal_opportunity", "equalized_odds"):
        res = wasserstein_test(
            X[test], y[test], race[test], model, criterion=criterion, return_favorable=True
        )
        print()
        print(res)
        print(res.favorable)

    # where the most favorable distribution moves the positives (equal opportunity)
    res = wasserstein_test(X[test], y[test], race[test], model, return_favorable=True)
    fav = res.favorable
    moves = pd.DataFrame(fav.X - X[test][fav.source], columns=features.columns)
    moves["race"] = fav.group
    moves["y"] = fav.y_true
    print("\nmean displacement of the features under the most favorable distribution")
    print("(only y = 1 rows move; each group moves toward the other along the coefficients)")
    print(
        moves[moves["y"] == 1]
        .groupby("race")
        .mean(numeric_only=True)
        .drop(columns="y")
        .round(4)
        .to_string()
    )

    print("\nregularization sweep (paper Fig. 4). For small coefficients N*R hardly depends on")
    print("their scale (the disparity and sqrt(M) both shrink like ||beta||): shrinking the")
    print("coefficients alone does not make a classifier fair, only changing their direction can.")
    print(f"  {'C':>8} {'accuracy':>9} {'N*R':>9} {'threshold':>9} {'pvalue':>9}")
    for C in np.logspace(-4, 0, 5):
        m = fit_logistic(X[~test], y[~test], C=C)
        acc = np.mean((special.expit(X[test] @ m.coef_[0] + m.intercept_[0]) > 0.5) == y[test])
        r = wasserstein_test(X[test], y[test], race[test], m)
        print(f"  {C:>8.0e} {acc:>9.3f} {r.statistic:>9.3f} {r.threshold:>9.3f} {r.pvalue:>9.2e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
