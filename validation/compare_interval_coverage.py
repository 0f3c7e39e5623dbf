"""Coverage of the intervals on the audit's model-comparison rows (issue 34).

``fastfair.audit(..., compare=(A, B))`` reports, for each tested group against the
reference, the change of the gap between two models scored on the same rows, ``difference
= gap_B - gap_A`` with ``ci_low`` / ``ci_high``: for a rate metric the interval of
:func:`fastfair.compare_models_from_counts`, for the AUC that of :func:`fastfair.compare_auc`
(``method="delong"``, what the audit runs). This script measures their coverage where the
audit's other intervals were checked: a small group of 10-50 rows against a reference of
10^3-10^6 rows, rates 0.005-0.995, AUCs 0.6-0.99.

Rates (selection rate: the metric's denominator is the group's rows): each row has model
A's and model B's prediction, with rates (p_A, p_B) in the group and a dependence rho
between the two: P(both 1) = rho min(p_A, p_B) + (1 - rho) p_A p_B (rho 1: the models
disagree as little as their rates allow). The reference has both models at the small
group's p_A. A data set is a draw of each group's paired cell counts (multinomial); the
interval is computed for 4,000 data sets per cell at once by the functions the public
``compare_models_from_counts`` runs (``paired_moments``, ``gap_statistics`` and the
interval of ``pack``, or the candidate replacement), and the script checks it against the
public function on a subset of data sets (to 1e-12). Both the interval the function
reported before issue 34 (Wald, D +- z SE) and the one it reports now (MOVER over each
model's limits, ``fastfair.compare.inference.mover_intervals``) are shown, and the small
group's own change interval (``group_change_interval``). A data set without a discordant row
in either group gets no interval (the audit's row is an error: "identical"): coverage is
counted over the data sets with an interval, and their share is shown.

AUC: binormal scores, each model's score mu_m y + e_m with corr(e_A, e_B) = rho, so the
group's AUC under model m is Phi(mu_m / sqrt 2); the small group has prevalence 0.5, the
reference AUC 0.85 under both models and prevalence 0.3. Each data set's interval is
computed from both groups' paired DeLong moments (``paired_auc_moments``, the function
``compare_auc`` runs) and checked against the public function on a subset. References of
10^4 and 10^6 rows: a pool of 20 reference draws (per size and rho) is cycled through (the
reference's paired variance is below 1e-4 there, against the small group's ~1e-2); those of
10^3 rows are drawn afresh for each data set.

    python validation/compare_interval_coverage.py --quick   # seconds (the test suite)
    python validation/compare_interval_coverage.py           # recorded in
        validation/results/compare_interval_coverage.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time

import numpy as np
from scipy import special

import fastfair
from fastfair._metrics import get_metric
from fastfair.compare.inference import auc_limits_of, mover_intervals, rate_limits_of
from fastfair.compare.statistics import gap_statistics, paired_auc_moments, paired_moments

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

LEVEL = 0.95
SMALL = (10, 20, 30, 50)
REFERENCES = (1000, 10_000, 100_000, 1_000_000)
#: AUC: references of 1,000 (fresh each data set), 10,000 and 1,000,000 (pooled)
AUC_REFERENCES = (1000, 10_000, 1_000_000)
#: (p_A, p_B) in the small group: equal rates, and B moved from A, across 0.005-0.995
RATE_PAIRS = (
    (0.005, 0.005), (0.02, 0.02), (0.1, 0.1), (0.5, 0.5), (0.9, 0.9), (0.98, 0.98),
    (0.995, 0.995), (0.005, 0.02), (0.02, 0.1), (0.1, 0.3), (0.5, 0.7), (0.9, 0.98),
    (0.98, 0.995),
)  # fmt: skip
RHOS = (0.5, 0.9)
PREVALENCE = 0.3
#: (AUC_A, AUC_B) in the small group
AUC_PAIRS = ((0.6, 0.6), (0.75, 0.85), (0.9, 0.9), (0.85, 0.95), (0.99, 0.99), (0.95, 0.99))
AUC_REFERENCE = 0.85
AUC_SMALL = (10, 20, 30, 50)
#: groups beyond the small ones, where the Wald interval covered
LARGER = (200, 1000, 5000)
AUC_POOL = 20
METRIC = get_metric("selection_rate")


def floor(n_sim: int) -> float:
    """0.95 - 3 binomial SE of a coverage estimated from n_sim data sets."""
    return LEVEL - 3 * math.sqrt(LEVEL * (1 - LEVEL) / n_sim)


def cell_probabilities(p_a: float, p_b: float, rho: float, prevalence=PREVALENCE):
    """Probabilities of the 8 paired cells 4 y + 2 a + b (labels independent of the
    predictions: the selection rate does not read them)."""
    both = rho * min(p_a, p_b) + (1 - rho) * p_a * p_b
    ab = np.array([1 - p_a - p_b + both, p_b - both, p_a - both, both])  # (a, b) = 00 01 10 11
    return np.clip(np.concatenate([(1 - prevalence) * ab, prevalence * ab]), 0.0, 1.0)


def draw_counts(rng, n_small, n_ref, p_a, p_b, rho, n_sim):
    """(n_sim, 2, 8) paired counts: the small group (0) and the reference (1)."""
    small = rng.multinomial(n_small, cell_probabilities(p_a, p_b, rho), size=n_sim)
    ref = rng.multinomial(n_ref, cell_probabilities(p_a, p_a, rho), size=n_sim)
    return np.stack([small, ref], axis=1).astype(np.float64)


def wald_interval(counts, level=LEVEL):
    """The interval compare_models_from_counts reported before issue 34: D +- z sqrt(V), V
    the paired (Agresti-Min padded) variance of ``gap_statistics``; on a batch of tables."""
    stats = gap_statistics(paired_moments(counts, METRIC), np.array([[0, 1]]))
    z = special.ndtri(0.5 + level / 2)
    d, se = stats.difference[..., 0, 0], np.sqrt(stats.variance[..., 0, 0])
    return d - z * se, d + z * se


def audit_interval(counts, level=LEVEL):
    """The interval compare_models_from_counts reports now (issue 34): MOVER over each
    model's rate limits (``mover_intervals``), on a batch of tables."""
    m = paired_moments(counts, METRIC)
    lo, hi = mover_intervals(m, rate_limits_of(m, level), np.array([[0, 1]]))[1]
    return lo[..., 0, 0], hi[..., 0, 0]


def small_change_interval(counts, level=LEVEL):
    """group_change_interval of the small group (MOVER), on a batch of tables."""
    m = paired_moments(counts, METRIC)
    lo, hi = mover_intervals(m, rate_limits_of(m, level), np.array([[0, 1]]))[0]
    return lo[..., 0, 0], hi[..., 0, 0]


def has_interval(counts):
    """Whether the audit's row has an interval: some discordant row in the two groups."""
    return (counts[..., [1, 2, 5, 6]].sum(axis=(-1, -2))) > 0


def check_public(counts, interval=None, k=30):
    """Largest |difference| between `interval` and compare_models_from_counts on the first
    k data sets with an interval."""
    lo, hi = (interval or audit_interval)(counts[:k])
    worst = 0.0
    for i in np.flatnonzero(has_interval(counts[:k])):
        res = fastfair.compare_models_from_counts(
            counts[i], [0, 1], metric="selection_rate", reference=1, method="asymptotic"
        )
        worst = max(worst, abs(res.confidence_interval[0] - lo[i]),
                    abs(res.confidence_interval[1] - hi[i]))  # fmt: skip
    return worst


def rate_coverage(n_sim, seed, small=SMALL, refs=REFERENCES, pairs=RATE_PAIRS, rhos=RHOS,
                  methods=None, out=None):  # fmt: skip
    """Rows (n, n_ref, p_A, p_B, rho, share with an interval, {method: coverage}, check)."""
    methods = methods or {
        "wald (before)": wald_interval,
        "mover (audit)": audit_interval,
        "small group's change": small_change_interval,
    }
    rows = []
    for n, n_ref, (p_a, p_b), rho in itertools.product(small, refs, pairs, rhos):
        rng = np.random.default_rng([seed, n, n_ref, int(p_a * 1e4), int(p_b * 1e4),
                                     int(rho * 100)])  # fmt: skip
        counts = draw_counts(rng, n, n_ref, p_a, p_b, rho, n_sim)
        ok = has_interval(counts)
        truth = p_b - p_a  # the reference's change is 0
        cov = {}
        for name, f in methods.items():
            lo, hi = f(counts[ok])
            cov[name] = float(np.mean((lo <= truth + 1e-12) & (truth - 1e-12 <= hi)))
        check = check_public(counts) if n_ref <= 10_000 else float("nan")
        row = (n, n_ref, p_a, p_b, rho, float(ok.mean()), cov, check)
        rows.append(row)
        if out:
            print(format_rate_row(row), file=out, flush=True)
    return rows


def format_rate_row(row) -> str:
    n, n_ref, p_a, p_b, rho, share, cov, check = row
    text = "  ".join(f"{v:.4f}" for v in cov.values())
    return (f"{n:5d} {n_ref:9,d} {p_a:6.3f} {p_b:6.3f} {rho:4.1f} {share:7.3f}  {text}"
            f"  {check:.1e}")  # fmt: skip


# ---- AUC --------------------------------------------------------------------------------


def auc_scores(rng, n, prevalence, auc_a, auc_b, rho):
    """Labels and two binormal scores with the given AUCs and noise correlation rho."""
    y = (rng.random(n) < prevalence).astype(np.float64)
    e_a = rng.normal(size=n)
    e_b = rho * e_a + math.sqrt(1 - rho * rho) * rng.normal(size=n)
    mu_a, mu_b = (math.sqrt(2) * special.ndtri(a) for a in (auc_a, auc_b))
    return y, mu_a * y + e_a, mu_b * y + e_b


def auc_moments(y, sa, sb):
    """Paired DeLong moments of one group (a PairedMoments of one group)."""
    codes = np.zeros(len(y), dtype=np.intp)
    return paired_auc_moments(y, sa, sb, codes, np.array([0]))


def stack_moments(small, ref):
    """The PairedMoments of the two groups (group 0, reference 1)."""
    import dataclasses

    return type(small)(**{f.name: np.concatenate([getattr(small, f.name), getattr(ref, f.name)])
                          for f in dataclasses.fields(small)})  # fmt: skip


def auc_delong_interval(m, level=LEVEL):
    """compare_auc's interval before issue 34: D +- z sqrt(V), V the paired DeLong
    variance."""
    stats = gap_statistics(m, np.array([[0, 1]]))
    z = special.ndtri(0.5 + level / 2)
    d, se = float(stats.difference[0, 0]), math.sqrt(stats.variance[0, 0])
    return d - z * se, d + z * se


def auc_audit_interval(m, classes, level=LEVEL):
    """compare_auc's interval now (issue 34): MOVER over each model's hybrid AUC limits."""
    lo, hi = mover_intervals(m, auc_limits_of(m, *classes, level), np.array([[0, 1]]))[1]
    return float(lo[0, 0]), float(hi[0, 0])


def _reference_pool(seed, n_ref, rho):
    """AUC_POOL reference data sets' (paired moments, positives), shared by the cells of one
    reference size and rho."""
    rng = np.random.default_rng([seed, n_ref, int(rho * 100), 7])
    pool = []
    for _ in range(AUC_POOL):
        ref = auc_scores(rng, n_ref, PREVALENCE, AUC_REFERENCE, AUC_REFERENCE, rho)
        pool.append((auc_moments(*ref), ref[0].sum()))
    return pool


def auc_coverage(n_sim, seed, small=AUC_SMALL, refs=AUC_REFERENCES, pairs=AUC_PAIRS, rhos=RHOS,
                 methods=None, out=None, n_check=10):  # fmt: skip
    """Rows (n, n_ref, AUC_A, AUC_B, rho, share with an interval, {method: coverage},
    check)."""
    methods = methods or {
        "delong wald (before)": auc_delong_interval,
        "mover (audit)": auc_audit_interval,
    }
    rows, pools = [], {}
    for n, n_ref, (auc_a, auc_b), rho in itertools.product(small, refs, pairs, rhos):
        rng = np.random.default_rng([seed, n, n_ref, int(auc_a * 1e3), int(auc_b * 1e3),
                                     int(rho * 100)])  # fmt: skip
        pool = None
        if n_ref > 1000:
            pool = pools.setdefault((n_ref, rho), _reference_pool(seed, n_ref, rho))
        hits = {k: 0 for k in methods}
        made, check = 0, 0.0
        for s in range(n_sim):
            y, sa, sb = auc_scores(rng, n, 0.5, auc_a, auc_b, rho)
            if y.min() == y.max():
                continue  # no positive or no negative: the audit does not compare the AUC
            if pool is None:
                ref = auc_scores(rng, n_ref, PREVALENCE, AUC_REFERENCE, AUC_REFERENCE, rho)
                m_ref, pos_ref = auc_moments(*ref), ref[0].sum()
            else:
                m_ref, pos_ref = pool[s % AUC_POOL]
            m = stack_moments(auc_moments(y, sa, sb), m_ref)
            n_pos = np.array([y.sum(), pos_ref])
            classes = (n_pos, np.array([len(y), n_ref]) - n_pos)
            made += 1
            for name, f in methods.items():
                lo, hi = f(m) if name.startswith("delong") else f(m, classes)
                hits[name] += lo <= auc_b - auc_a + 1e-12 and auc_b - auc_a - 1e-12 <= hi
            if pool is None and s < n_check:
                interval = auc_audit_interval(m, classes)
                check = max(check, _check_auc_public(y, sa, sb, ref, interval))
        cov = {k: v / max(made, 1) for k, v in hits.items()}
        row = (n, n_ref, auc_a, auc_b, rho, made / n_sim, cov, check if pool is None else
               float("nan"))  # fmt: skip
        rows.append(row)
        if out:
            print(format_rate_row(row), file=out, flush=True)
    return rows


def _check_auc_public(y, sa, sb, ref, interval) -> float:
    """|public compare_auc interval - `interval`| on one data set."""
    group = np.r_[np.zeros(len(y), dtype=np.intp), np.ones(len(ref[0]), dtype=np.intp)]
    res = fastfair.compare_auc(np.r_[y, ref[0]], np.r_[sa, ref[1]], np.r_[sb, ref[2]], group,
                               method="delong", reference=1)  # fmt: skip
    return max(abs(res.confidence_interval[0] - interval[0]),
               abs(res.confidence_interval[1] - interval[1]))  # fmt: skip


# ---- summaries and main -------------------------------------------------------------------


def summarize(rows, n_sim, what) -> list[str]:
    lines = [f"{what}: {len(rows)} cells, {n_sim} data sets each; 0.95 - 3 SE = "
             f"{floor(n_sim):.4f}"]  # fmt: skip
    for name in rows[0][6]:
        cov = np.array([r[6][name] for r in rows])
        k = int(cov.argmin())
        below = int((cov < floor(n_sim)).sum())
        lines.append(f"  {name:24s} mean {cov.mean():.4f}  min {cov[k]:.4f} at "
                     f"{rows[k][:5]}  cells below the floor: {below}")  # fmt: skip
        by_n = "  ".join(f"{n}: {min(r[6][name] for r in rows if r[0] == n):.4f}"
                         for n in sorted({r[0] for r in rows}))  # fmt: skip
        lines.append(f"    min by small group {by_n}")
    checks = [r[7] for r in rows if np.isfinite(r[7])]
    if checks:
        lines.append(f"  largest |interval - public function| on the checked subset: "
                     f"{max(checks):.1e}")  # fmt: skip
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-sim", type=int, default=4000)
    parser.add_argument("--auc-n-sim", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--part", choices=("rates", "auc", "both"), default="both")
    args = parser.parse_args(argv)
    out = sys.stdout
    start = time.time()
    print(f"# validation/compare_interval_coverage.py {' '.join(argv or sys.argv[1:])}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {git_commit()}; "
          f"seed {args.seed}; load {os.getloadavg()[0]:.1f}", file=out)  # fmt: skip
    if args.part in ("rates", "both"):
        print("rates: n n_ref p_A p_B rho share-with-interval coverage... check", file=out)
        n_sim = 400 if args.quick else args.n_sim
        rows = rate_coverage(n_sim, args.seed, out=out,
                             **(dict(small=(10,), refs=(1000, 1_000_000)) if args.quick
                                else {}))  # fmt: skip
        print("\n".join(summarize(rows, n_sim, "rate comparison intervals")), file=out)
        if not args.quick:  # the change must not cost coverage where groups are large
            rows = rate_coverage(2000, args.seed, small=LARGER, refs=(1000, 100_000), out=out)
            print("\n".join(summarize(rows, 2000, "larger groups (rates)")), file=out)
    if args.part in ("auc", "both"):
        print("AUC: n n_ref AUC_A AUC_B rho share-with-interval coverage... check", file=out)
        n_sim = 100 if args.quick else args.auc_n_sim
        rows = auc_coverage(n_sim, args.seed, out=out,
                            **(dict(small=(20,), refs=(1000,), pairs=AUC_PAIRS[2:3],
                                    rhos=(0.5,)) if args.quick else {}))  # fmt: skip
        print("\n".join(summarize(rows, n_sim, "AUC comparison intervals")), file=out)
    print(f"elapsed {time.time() - start:.0f} s; load {os.getloadavg()}", file=out)


if __name__ == "__main__":
    main()
