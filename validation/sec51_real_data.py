"""Sec. 5.1 of the permutation-test paper (DiCiccio et al., KDD 2020) on the real data.

A logistic regression with L2 penalty on COMPAS and on Adult, race and sex excluded from the
features, 70/15/15 train/validation/test split (the validation part picks the penalty C);
then, with sex as the protected attribute (Male minus Female):

- Figure 2: on the test set, the equalized-odds distances (recall and FPR gaps) at thresholds
  0, 0.01, ..., 1 against the 95th percentile of the permutation distribution
  (fastfair.threshold_sweep, 999 permutations; the paper used 1,000), plus the simultaneous
  max-T band the paper does not have;
- Figure 3: the minimum gap detected (smallest |gap| among thresholds whose test rejects at
  0.05) as the sample size grows from 950 to 4,500: samples of the Adult test set, and of
  the COMPAS training and validation rows (the paper sampled COMPAS training data since its
  test set is too small; our training part alone has 4,320 rows, fewer than 4,500).

Data. The script reads the raw files from ``../shared/data`` relative to the repository
root by default; ``--data-dir DIR`` or the environment variable ``FASTFAIR_DATA`` overrides.
- COMPAS: ``compas-scores-two-years.csv`` with ProPublica's filters (the "How we analyzed"
  notebook): ``-30 <= days_b_screening_arrest <= 30``, ``is_recid != -1``,
  ``c_charge_degree != "O"``, ``score_text != "N/A"``; 6,172 rows (the paper reports
  6,167). Label ``two_year_recid``. Only these columns are read: the features below, the
  four filter columns, ``sex``, and the label. No name, date of birth, case number or
  other personal column is read, and nothing from the data is written to the repository
  except aggregate numbers. ``is_recid`` and ``score_text`` are used for the filters only.
  Features (COMPAS_FEATURES): age, age_cat, juv_fel_count, juv_misd_count,
  juv_other_count, priors_count, c_charge_degree, c_charge_desc, days_b_screening_arrest,
  c_days_from_compas. Excluded: race and sex (protected), the COMPAS outputs
  (decile_score, score_text, v_*), every outcome-derived column (is_recid, r_*,
  violent_recid, is_violent_recid, vr_*, start, end, event, two_year_recid), custody and
  screening dates, identifiers and personal data.
- Adult: ``adult.data`` and ``adult.test`` together (48,842 rows, as the paper), label
  income > 50K; features: every column except race, sex and fnlwgt (the paper ignores the
  final weight); "?" is kept as its own category.
Numeric features are standardized on the training rows (the paper uses them as-is; scaling
only helps the solver, the L2 penalty is chosen on the validation rows), categorical ones
one-hot encoded. scikit-learn and pandas are needed (validation dependencies only).

    python validation/sec51_real_data.py --quick   # a few seconds (tests/test_sweep.py runs
                                                   # it and checks it against the record)
    python validation/sec51_real_data.py           # recorded in validation/results/

The quick mode refits each model with the penalty the full run chose (FULL_RUN_C; the test
checks it against the record), runs Figure 2 with 199 permutations and Figure 3 with two
samples at the first two sizes.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

import numpy as np

import fastfair

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "validation" / "results"
DEFAULT_DATA = ROOT.parent / "shared" / "data"
THRESHOLDS = np.round(np.linspace(0.0, 1.0, 101), 2)
SIZES = (950, 1500, 2000, 2500, 3000, 3500, 4000, 4500)
C_GRID = (0.01, 0.1, 1.0, 10.0)  # L2 penalties tried; the validation AUC picks one
#: Penalties the full run chose (validation/results/sec51_real_data.txt); --quick fits only these.
FULL_RUN_C = {"COMPAS": 1.0, "Adult": 0.1}
COMPAS_FEATURES = [
    "age",
    "age_cat",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
    "c_charge_desc",
    "days_b_screening_arrest",
    "c_days_from_compas",
]
COMPAS_FILTER_ONLY = ["is_recid", "score_text"]
ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
ADULT_EXCLUDED = ["race", "sex", "fnlwgt", "income"]


def data_dir(arg=None) -> pathlib.Path:
    path = pathlib.Path(arg or os.environ.get("FASTFAIR_DATA") or DEFAULT_DATA)
    if not path.is_dir():
        raise SystemExit(f"data directory {path} not found: pass --data-dir or FASTFAIR_DATA")
    return path


def load_compas(path):
    """(features DataFrame, label, sex) of the filtered COMPAS rows; only needed columns."""
    import pandas as pd

    usecols = sorted(set(COMPAS_FEATURES + COMPAS_FILTER_ONLY + ["sex", "two_year_recid"]))
    df = pd.read_csv(path / "compas-scores-two-years.csv", usecols=usecols)
    keep = (
        df["days_b_screening_arrest"].between(-30, 30)
        & (df["is_recid"] != -1)
        & (df["c_charge_degree"] != "O")
        & (df["score_text"] != "N/A")
    )
    df = df[keep].reset_index(drop=True)
    x = df[COMPAS_FEATURES].copy()
    x["c_charge_desc"] = x["c_charge_desc"].fillna("missing")
    return x, df["two_year_recid"].to_numpy().astype(bool), df["sex"].to_numpy()


def load_adult(path):
    """(features DataFrame, label, sex) of adult.data and adult.test together."""
    import pandas as pd

    kw = dict(header=None, names=ADULT_COLUMNS, skipinitialspace=True)
    train = pd.read_csv(path / "adult.data", **kw)
    test = pd.read_csv(path / "adult.test", skiprows=1, **kw)
    df = pd.concat([train, test], ignore_index=True).dropna(subset=["income"])
    label = df["income"].str.rstrip(".").eq(">50K").to_numpy()
    x = df[[c for c in ADULT_COLUMNS if c not in ADULT_EXCLUDED]]
    return x, label, df["sex"].to_numpy()


def fit_model(x, y, seed, cs=C_GRID):
    """70/15/15 split; L2 logistic regression with C among `cs` chosen on validation AUC.

    Returns (test AUC, validation AUC, C, predicted probabilities of all rows, split indices).
    """
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    n_train, n_val = int(0.70 * len(y)), int(0.15 * len(y))
    idx = dict(
        train=order[:n_train], val=order[n_train : n_train + n_val], test=order[n_train + n_val :]
    )
    numeric = [c for c in x.columns if x[c].dtype.kind in "if"]
    design = pd.get_dummies(x, columns=[c for c in x.columns if c not in numeric], dtype=float)
    mean = design.iloc[idx["train"]][numeric].mean()
    sd = design.iloc[idx["train"]][numeric].std().replace(0, 1)
    design[numeric] = (design[numeric].fillna(mean) - mean) / sd
    design = design.to_numpy()
    best = None
    for c in cs:
        model = LogisticRegression(C=c, max_iter=5000).fit(design[idx["train"]], y[idx["train"]])
        auc_val = roc_auc_score(y[idx["val"]], model.predict_proba(design[idx["val"]])[:, 1])
        if best is None or auc_val > best[0]:
            best = (auc_val, c, model)
    auc_val, c, model = best
    prob = model.predict_proba(design)[:, 1]
    auc_test = roc_auc_score(y[idx["test"]], prob[idx["test"]])
    return auc_test, auc_val, c, prob, idx


def sweep(y, prob, sex, seed, n_permutations=999):
    return fastfair.threshold_sweep(
        y,
        prob,
        sex,
        thresholds=THRESHOLDS,
        reference="Female",
        n_permutations=n_permutations,
        random_state=seed,
    )


def min_detected(res):
    """Per metric: the smallest |gap| among thresholds whose test rejects (NaN if none)."""
    gaps = np.where(res.reject, np.abs(res.difference), np.inf).min(axis=1)
    return np.where(np.isfinite(gaps), gaps, np.nan)


def figure3(y, prob, sex, pool, sizes, repetitions, seed, n_permutations):
    """(sizes, repetitions, 2) minimum gaps detected on random samples of `pool`."""
    rng = np.random.default_rng(seed)
    out = np.full((len(sizes), repetitions, 2), np.nan)
    for i, size in enumerate(sizes):
        for r in range(repetitions):
            rows = rng.choice(pool, size, replace=False)
            res = sweep(y[rows], prob[rows], sex[rows], seed + 1000 * i + r, n_permutations)
            out[i, r] = min_detected(res)
    return out


def run(data_path, quick=False, seed=0, write=True):
    """Fit, sweep and summarize both datasets; returns a dict of the numbers."""
    start = time.time()
    reps, n_perm = (2, 199) if quick else (20, 999)
    sizes = SIZES[:2] if quick else SIZES
    summary = {}
    for name, loader in (("COMPAS", load_compas), ("Adult", load_adult)):
        x, y, sex = loader(data_path)
        cs = (FULL_RUN_C[name],) if quick else C_GRID
        auc_test, auc_val, c, prob, idx = fit_model(x, y, seed, cs)
        test = idx["test"]
        res = sweep(y[test], prob[test], sex[test], seed, n_perm)
        pool = np.r_[idx["train"], idx["val"]] if name == "COMPAS" else test
        fig3 = figure3(y, prob, sex, pool, sizes, reps, seed, n_perm)
        summary[name] = dict(
            n_rows=len(y),
            n_features=x.shape[1],
            n_test=len(test),
            test_groups={g: int((sex[test] == g).sum()) for g in ("Male", "Female")},
            auc_test=auc_test,
            auc_val=auc_val,
            C=c,
            sweep=res,
            figure3=fig3,
            pool=len(pool),
        )
    summary["seconds"] = time.time() - start
    summary["sizes"] = sizes
    summary["n_permutations"] = n_perm
    summary["repetitions"] = reps
    if write:
        write_results(summary)
    return summary


def _ranges(mask, thresholds):
    """Runs of True as 'a-b' threshold ranges."""
    out, k = [], 0
    while k < len(mask):
        if mask[k]:
            j = k
            while j + 1 < len(mask) and mask[j + 1]:
                j += 1
            out.append(f"{thresholds[k]:.2f}" + (f"-{thresholds[j]:.2f}" if j > k else ""))
            k = j + 1
        else:
            k += 1
    return ", ".join(out) or "none"


def format_summary(summary) -> str:
    lines = [
        "Sec. 5.1 of the permutation-test paper on the real data (validation/sec51_real_data.py)",
        f"{summary['n_permutations']} permutations per sweep, thresholds 0, 0.01, ..., 1; "
        "gaps are Male - Female; rejection at alpha = 0.05.",
        "",
    ]
    paper_auc = {"COMPAS": 0.7005, "Adult": 0.9087}
    for name in ("COMPAS", "Adult"):
        s = summary[name]
        res = s["sweep"]
        lines += [
            f"{name}: {s['n_rows']:,} rows, {s['n_features']} feature columns; "
            f"L2 logistic regression, C = {s['C']:g} (validation AUC {s['auc_val']:.4f})",
            f"  test AUC {s['auc_test']:.4f} (paper {paper_auc[name]}); test rows "
            f"{s['n_test']:,} (Male {s['test_groups']['Male']:,}, "
            f"Female {s['test_groups']['Female']:,})",
        ]
        for m, metric in enumerate(res.metrics):
            gap = np.abs(res.difference[m])
            k = int(np.argmax(gap))
            lines += [
                f"  Figure 2, {metric}: largest |gap| {gap[k]:.4f} at t = {res.thresholds[k]:.2f} "
                f"(95th percentile there {res.critical_value[m, k]:.4f}, p = "
                f"{res.pvalue[m, k]:.4f}, max-T p = {res.pvalue_adjusted[m, k]:.4f})",
                f"    thresholds rejected per threshold: {_ranges(res.reject[m], res.thresholds)}",
                "    thresholds rejected by the max-T band: "
                f"{_ranges(res.reject_simultaneous[m], res.thresholds)}",
                f"    max-T critical value {res.max_critical[m]:.3f} (studentized)",
            ]
        lines.append(
            f"  Figure 3 (samples of {s['pool']:,} rows, {summary['repetitions']} per size): "
            "minimum gap detected, mean +- SE over samples with a detection [samples without]"
        )
        fig3 = s["figure3"]
        for i, size in enumerate(summary["sizes"]):
            cells = []
            for m, metric in enumerate(("tpr", "fpr")):
                v = fig3[i, :, m]
                ok = v[np.isfinite(v)]
                if ok.size:
                    se = ok.std(ddof=1) / np.sqrt(ok.size) if ok.size > 1 else float("nan")
                    cells.append(f"{metric} {ok.mean():.4f} +- {se:.4f} [{v.size - ok.size}]")
                else:
                    cells.append(f"{metric} none [{v.size}]")
            lines.append(f"    n = {size:5d}: " + "; ".join(cells))
        lines.append("")
    lines.append(f"({summary['seconds']:.0f} s)")
    return "\n".join(lines)


def write_results(summary) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "sec51_real_data.txt").write_text(format_summary(summary) + "\n")
    header = "dataset,metric,threshold,gap,critical_value,band,pvalue,pvalue_adjusted\n"
    rows = []
    for name in ("COMPAS", "Adult"):
        res = summary[name]["sweep"]
        for m, metric in enumerate(res.metrics):
            for k, t in enumerate(res.thresholds):
                rows.append(
                    f"{name},{metric},{t:.2f},{res.difference[m, k]:.6f},"
                    f"{res.critical_value[m, k]:.6f},{res.band[m, k]:.6f},"
                    f"{res.pvalue[m, k]:.6f},{res.pvalue_adjusted[m, k]:.6f}"
                )
    (RESULTS / "sec51_figure2.csv").write_text(header + "\n".join(rows) + "\n")
    rows = ["dataset,size,repetition,min_gap_tpr,min_gap_fpr"]
    for name in ("COMPAS", "Adult"):
        fig3 = summary[name]["figure3"]
        for i, size in enumerate(summary["sizes"]):
            for r in range(fig3.shape[1]):
                rows.append(f"{name},{size},{r},{fig3[i, r, 0]:.6f},{fig3[i, r, 1]:.6f}")
    (RESULTS / "sec51_figure3.csv").write_text("\n".join(rows) + "\n")
    plot(summary)


def plot(summary) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for row, name in enumerate(("COMPAS", "Adult")):
        res = summary[name]["sweep"]
        res.plot(axes[row, ::-1])  # FPR left, recall right, as in the paper
        for ax, metric in zip(axes[row, ::-1], res.metrics):
            ax.set_title(f"{name}: {'recall' if metric == 'tpr' else 'FPR'}")
    fig.tight_layout()
    fig.savefig(RESULTS / "sec51_figure2.png", dpi=110)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, name in zip(axes, ("COMPAS", "Adult")):
        fig3 = summary[name]["figure3"]
        for m, metric in enumerate(("tpr", "fpr")):
            mean = np.array(
                [np.nanmean(v) if np.isfinite(v).any() else np.nan for v in fig3[..., m]]
            )
            ax.plot(summary["sizes"], mean, "o-", label="recall" if metric == "tpr" else "FPR")
        ax.set_xlabel("sample size")
        ax.set_ylabel("minimum difference detected")
        ax.set_title(name)
        ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "sec51_figure3.png", dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir", default=None, help="default: ../shared/data or $FASTFAIR_DATA"
    )
    args = parser.parse_args()
    summary = run(data_dir(args.data_dir), quick=args.quick, seed=args.seed, write=not args.quick)
    print(format_summary(summary))


if __name__ == "__main__":
    main()
