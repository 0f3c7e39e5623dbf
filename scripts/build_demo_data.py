"""Build fastfair's bundled demo data from the UCI Adult census data (reproducible).

A logistic regression is fitted on Adult's training file (adult.data) and scores Adult's
test file (adult.test); the shipped file keeps only what an audit needs: the label
(income > 50K), the score, the prediction at 0.5, sex and race. No other columns ship.

Source: Kohavi, R. (1996), "Scaling Up the Accuracy of Naive-Bayes Classifiers: a
Decision-Tree Hybrid", KDD; UCI Machine Learning Repository, Adult data set,
https://doi.org/10.24432/C5XW20, licensed CC BY 4.0.

    python scripts/build_demo_data.py [--data ../shared/data]   # needs pandas, scikit-learn
"""

from __future__ import annotations

import argparse
import hashlib
import os

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
]
NUMERIC = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
CATEGORICAL = ["workclass", "marital_status", "occupation", "relationship", "native_country"]
SHA256 = {  # ../shared/data/README.md
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
}
OUT = os.path.join(os.path.dirname(__file__), "..", "fastfair", "data", "adult_demo.csv")


def read_adult(path: str) -> pd.DataFrame:
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if digest != SHA256[os.path.basename(path)]:
        raise SystemExit(f"{path}: checksum differs from the UCI original")
    frame = pd.read_csv(
        path, header=None, names=COLUMNS, skipinitialspace=True, comment="|", na_values="?"
    )
    frame["income"] = frame["income"].str.rstrip(".")
    return frame.dropna(subset=["income"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    args = parser.parse_args()
    train = read_adult(os.path.join(args.data, "adult.data"))
    test = read_adult(os.path.join(args.data, "adult.test"))
    features = ColumnTransformer(
        [
            ("num", StandardScaler(), NUMERIC),
            ("cat", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL),
        ]
    )
    model = make_pipeline(features, LogisticRegression(max_iter=2000, C=1.0))
    model.fit(train[NUMERIC + CATEGORICAL].fillna("missing"), train["income"] == ">50K")
    score = model.predict_proba(test[NUMERIC + CATEGORICAL].fillna("missing"))[:, 1]
    demo = pd.DataFrame(
        {
            "label": (test["income"] == ">50K").astype(int),
            "score": np.round(score, 4),
            "prediction": (score >= 0.5).astype(int),
            "sex": test["sex"],
            "race": test["race"],
        }
    )
    demo.to_csv(OUT, index=False, lineterminator="\n")
    print(
        f"wrote {len(demo)} rows to {os.path.normpath(OUT)}; "
        f"accuracy {np.mean(demo['label'] == demo['prediction']):.3f}"
    )


if __name__ == "__main__":
    main()
