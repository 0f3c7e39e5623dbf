"""Family-wise error of threshold_sweep's simultaneous (max-T) band, with a power twin.

Under the null the two groups have the same score distribution given the label (equal TPR
and FPR at every threshold) but different sizes and prevalences. For each simulated data
set the sweep tests TPR and FPR at K thresholds; we record, per metric, whether any
threshold is flagged by the max-T adjusted p-values (the band's family-wise error: should
be at most alpha = 0.05) and whether any is flagged by the unadjusted per-threshold
p-values (the error a user makes by reading Figure 2 threshold by threshold). Settings
cover continuous scores and scores on a 0.05 grid (ties at the thresholds). The power twin
shifts the reference group's positive scores.

    python validation/sweep_familywise.py --quick   # 120 data sets per setting (tests run this)
    python validation/sweep_familywise.py           # 2,000 per setting, recorded in
                                                    # validation/results/sweep_familywise.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fastfair

ALPHA = 0.05
# (n_group, n_reference, prevalence group, prevalence reference, grid step or None, K)
SETTINGS = [
    (300, 700, 0.3, 0.5, None, 50),
    (1500, 3500, 0.2, 0.4, None, 200),
    (400, 600, 0.5, 0.3, 0.05, 21),
]
POWER_SHIFT = 0.35  # added to the reference group's positive scores (SD 1)


def simulate(rng, n_a, n_b, prev_a, prev_b, step, shift=0.0):
    """Labels, scores and groups; scores N(1.2 y, 1), the reference's positives + shift."""
    group = np.r_[np.zeros(n_a, dtype=np.int8), np.ones(n_b, dtype=np.int8)]
    y = rng.random(n_a + n_b) < np.where(group == 0, prev_a, prev_b)
    score = rng.normal(1.2 * y + shift * (y & (group == 1)), 1.0)
    score = 1.0 / (1.0 + np.exp(-score))  # probabilities, as in the paper's figures
    if step is not None:
        score = np.round(score / step) * step
    return y, score, group


def rates(setting, shift, n_sim, n_permutations, seed):
    """Per metric (TPR, FPR): share of data sets with any max-T / any unadjusted rejection."""
    n_a, n_b, prev_a, prev_b, step, k = setting
    rng = np.random.default_rng(seed)
    thresholds = np.linspace(0.05, 0.95, k)
    any_maxt = np.zeros(2)
    any_raw = np.zeros(2)
    for i in range(n_sim):
        y, score, group = simulate(rng, n_a, n_b, prev_a, prev_b, step, shift)
        res = fastfair.threshold_sweep(
            y,
            score,
            group,
            thresholds=thresholds,
            method="monte_carlo",
            n_permutations=n_permutations,
            reference=1,
            random_state=i,
            n_jobs=1,
        )
        any_maxt += res.reject_simultaneous.any(axis=1)
        any_raw += res.reject.any(axis=1)
    return any_maxt / n_sim, any_raw / n_sim


def run(n_sim: int, n_permutations: int = 999, seed: int = 0, power: bool = True, settings=None):
    """Rows (kind, setting, metric, max-T rate, SE, unadjusted rate); settings: indices."""
    rows = []
    kinds = [("null", 0.0)] + ([("power", POWER_SHIFT)] if power else [])
    for kind, shift in kinds:
        for s in range(len(SETTINGS)) if settings is None else settings:
            setting = SETTINGS[s]
            maxt, raw = rates(setting, shift, n_sim, n_permutations, seed + 1000 * s)
            for m, metric in enumerate(("tpr", "fpr")):
                se = math.sqrt(max(maxt[m] * (1 - maxt[m]), 1e-12) / n_sim)
                rows.append((kind, s, metric, float(maxt[m]), se, float(raw[m])))
    return rows


def format_rows(rows, n_sim, n_permutations) -> str:
    lines = [
        f"threshold_sweep family-wise error at alpha = {ALPHA}: {n_sim} data sets per setting,",
        f"{n_permutations} joint permutations, method='monte_carlo', thresholds 0.05..0.95.",
        "max-T: share of data sets with any threshold flagged by the adjusted p-values "
        "(+- binomial SE);",
        "unadjusted: share with any threshold flagged by the per-threshold p-values.",
        "settings (n group, n reference, prevalences, score grid, K):",
    ]
    for s, st in enumerate(SETTINGS):
        grid = "continuous" if st[4] is None else f"grid {st[4]}"
        lines.append(
            f"  {s}: n = {st[0]} / {st[1]}, prevalence {st[2]} / {st[3]}, {grid}, K = {st[5]}"
        )
    lines.append(f"power twin: reference positives' latent score + {POWER_SHIFT} (FPR unchanged)")
    lines.append(
        f"{'kind':6} {'setting':>7} {'metric':>6} {'max-T':>8} {'SE':>7} {'unadjusted':>10}"
    )
    for kind, s, metric, rate, se, raw in rows:
        lines.append(f"{kind:6} {s:>7} {metric:>6} {rate:8.4f} {se:7.4f} {raw:10.4f}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_sim, n_perm = (120, 199) if args.quick else (2000, 999)
    start = time.time()
    rows = run(n_sim, n_perm, args.seed)
    print(format_rows(rows, n_sim, n_perm))
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
