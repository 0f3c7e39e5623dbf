"""Level at the boundary and power of tolerance and equivalence tests (issue 17).

Part 1 (exact): for a rate metric the test depends on the data through the two groups'
numerators given their denominators (n_A, n_B), so its rejection probability at true rates
(p_A, p_B) is sum_{x_A, x_B} Binom(x_A; n_A, p_A) Binom(x_B; n_B, p_B) 1{reject}, computed
exactly by enumeration. The one-sided tolerance test H0: U <= u_tol (U = p_A - p_B) at
alpha = 0.05 is evaluated at the boundary p_A = p_B + u_tol, and TOST (delta = 0.05 or 0.1)
at U = delta, over group sizes 10..1000 and rates 0.01..0.99. Methods: Miettinen-Nurminen
score, Farrington-Manning, Wald (the paper's eq. 1 statistic), the exact unconditional test
(Chan 1998) and "auto" (fastfair's default, ``fastfair.tolerance.auto_exact``: exact where
a group has fewer than 20 events or non-events, or fewer than 50 with one denominator 20 or
more times the other, and n_A + n_B <= 200,000, score elsewhere; with the exact test below
10 events only its level reached 0.058, printed for comparison as "auto<10").

Part 2 (Monte Carlo through the public API): fastfair.tolerance_test (method="score"; the
exact test's and "auto"'s levels are computed exactly in part 1) on simulated rows with
random denominators, unweighted; and the default AUC margin test (hybrid MOVER) with
binormal scores at AUC_A - AUC_B = u_tol. Rejection rates with binomial SEs.

Part 3 (power curves, exact): rejection probability of the score tolerance test
(u_tol = 0.02) and of TOST (delta = 0.05) as a function of the true gap, for 200 and 1000
rows per group's denominator, printed as a table (and a PNG when matplotlib is installed).

    python validation/tolerance_level.py --quick     # seconds (the tests run it)
    python validation/tolerance_level.py             # recorded in
        validation/results/tolerance_level.txt (and tolerance_power.png)
"""

from __future__ import annotations

import argparse
import itertools
import math
import pathlib
import time

import numpy as np
from scipy import special, stats

import fastfair
from fastfair._score import score_statistic
from fastfair._unconditional import BoundaryTails
from fastfair.tolerance import AUTO_MAX_SIZE, auto_exact

ALPHA = 0.05
SIZES = [10, 30, 100, 300, 1000]
RATES = [0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99]
U_TOLS = [0.0, 0.02, 0.05]
DELTAS = [0.05, 0.1]
QUICK_SIZES = [10, 50]
QUICK_RATES = [0.05, 0.5, 0.9]
METHODS = ("score", "farrington-manning", "wald", "exact", "auto", "auto<10")
#: the rule of method="auto" before this session's change, for comparison
OLD_EXACT_BELOW = 10
#: methods whose rejection region is "Z beyond the normal quantile"
ASYMPTOTIC = ("score", "farrington-manning", "wald")


def exact_region(n1, n2, d, side, z_score):
    """Rejection regions of the exact test (Chan 1998) and of method="auto" at margin d.

    The exact test rejects when Z(d) is at least as extreme as its critical value (the least
    extreme attainable Z whose exact p-value is <= alpha); "auto" uses it where auto_exact
    says so, the score test elsewhere.
    """
    tails = BoundaryTails(n1, n2, d)
    crit = tails.critical_value(ALPHA, side)
    exact = tails.z >= crit if side == "greater" else tails.z <= crit
    score = tails.z > z_score if side == "greater" else tails.z < -z_score
    x1 = np.arange(n1 + 1.0)[:, None]
    x2 = np.arange(n2 + 1.0)[None, :]
    fewest = np.minimum(np.minimum(x1, n1 - x1), np.minimum(x2, n2 - x2))
    small = auto_exact(fewest, n1, n2)
    old = (fewest < OLD_EXACT_BELOW) & (n1 + n2 <= AUTO_MAX_SIZE)
    return exact, np.where(small, exact, score), np.where(old, exact, score)


def statistic(method, x1, n1, x2, n2, d):
    """Z(d) of each method on the grid of outcomes."""
    if method != "wald":
        return score_statistic(x1, n1, x2, n2, d, correction=method == "score")
    p1, p2 = x1 / n1, x2 / n2
    se = np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    num = p1 - p2 - d
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, num / se, np.copysign(np.inf, num))
    return np.where(np.abs(num) < 1e-14, 0.0, z)


def exact_levels(sizes, rates, u_tols, deltas):
    """Rows (kind, margin, n1, n2, p_A, p_B, {method: rejection probability})."""
    z = special.ndtri(1 - ALPHA)
    rows = []
    for n1, n2 in itertools.combinations_with_replacement(sizes, 2):
        x1, x2 = np.meshgrid(np.arange(n1 + 1.0), np.arange(n2 + 1.0), indexing="ij")

        def prob(region, pa, pb, n1=n1, n2=n2):
            pmf1 = stats.binom.pmf(np.arange(n1 + 1), n1, pa)
            pmf2 = stats.binom.pmf(np.arange(n2 + 1), n2, pb)
            return float(pmf1 @ region.astype(float) @ pmf2)

        for u in u_tols:
            regions = {m: statistic(m, x1, n1, x2, n2, u) > z for m in ASYMPTOTIC}
            regions["exact"], regions["auto"], regions["auto<10"] = exact_region(
                n1, n2, u, "greater", z
            )
            for pb in rates:
                pa = round(pb + u, 10)
                if pa >= 1:
                    continue
                rows.append(
                    (
                        "tolerance",
                        u,
                        n1,
                        n2,
                        pa,
                        pb,
                        {m: prob(r, pa, pb) for m, r in regions.items()},
                    )
                )
        for dl in deltas:
            regions = {
                m: (statistic(m, x1, n1, x2, n2, -dl) > z)
                & (statistic(m, x1, n1, x2, n2, dl) < -z)
                for m in ASYMPTOTIC
            }
            low, up = exact_region(n1, n2, -dl, "greater", z), exact_region(n1, n2, dl, "less", z)
            for k, m in enumerate(("exact", "auto", "auto<10")):
                regions[m] = low[k] & up[k]
            for pb in rates:
                pa = round(pb + dl, 10)
                if pa >= 1:
                    continue
                rows.append(
                    (
                        "equivalence",
                        dl,
                        n1,
                        n2,
                        pa,
                        pb,
                        {m: prob(r, pa, pb) for m, r in regions.items()},
                    )
                )
    return rows


def summarize(rows, title):
    lines = [
        title,
        "  method               mean    max     share > 0.06  share > 0.07   (worst setting)",
    ]
    for m in METHODS:
        lv = np.array([r[6][m] for r in rows])
        w = rows[int(np.argmax(lv))]
        lines.append(
            f"  {m:<19} {lv.mean():.4f}  {lv.max():.4f}  "
            f"{np.mean(lv > 0.06):12.3f}  {np.mean(lv > 0.07):12.3f}"
            f"   (margin {w[1]}, n_A={w[2]}, n_B={w[3]}, p_A={w[4]}, p_B={w[5]})"
        )
    return lines


def per_size_table(rows, method="score"):
    """Maximum and mean level of `method` for each (n_A, n_B)."""
    lines = [f"  {method}: level by group sizes (max over rates and margins / mean)"]
    keys = sorted({(r[2], r[3]) for r in rows})
    for k in keys:
        lv = np.array([r[6][method] for r in rows if (r[2], r[3]) == k])
        lines.append(f"    n_A={k[0]:5d} n_B={k[1]:5d}: max {lv.max():.4f}  mean {lv.mean():.4f}")
    return lines


def simulate_api(settings, n_sim, seed):
    """Rejection rate of fastfair.tolerance_test (TPR, 'greater') at U = u_tol, rows simulated."""
    rng = np.random.default_rng(seed)
    out = []
    for n_a, n_b, prev, tpr_b, u in settings:
        tpr_a = tpr_b + u
        rej = 0
        for _ in range(n_sim):
            group = np.repeat([0, 1], [n_a, n_b])
            while True:
                y = rng.random(n_a + n_b) < prev
                if y[:n_a].any() and y[n_a:].any():
                    break
            yhat = y & (rng.random(n_a + n_b) < np.where(group == 0, tpr_a, tpr_b))
            res = fastfair.tolerance_test(
                y, yhat, group, metric="tpr", u_tol=u, alternative="greater", reference=1,
                method="score",
            )  # fmt: skip
            rej += res.pvalue <= ALPHA
        out.append((n_a, n_b, prev, tpr_a, tpr_b, u, rej / n_sim))
    return out


def simulate_auc(settings, n_sim, seed):
    """Rejection rate of the AUC margin test (default method) at AUC_A - AUC_B = u_tol."""
    rng = np.random.default_rng(seed)
    out = []
    for n_a, n_b, prev, auc_b, u in settings:
        aucs = (auc_b + u, auc_b)
        shift = [math.sqrt(2) * special.ndtri(a) for a in aucs]
        rej = 0
        for _ in range(n_sim):
            ys, ss, gs = [], [], []
            for g, n in enumerate((n_a, n_b)):
                while True:
                    y = rng.random(n) < prev
                    if 2 <= y.sum() <= n - 2:
                        break
                ys.append(y)
                ss.append(rng.standard_normal(n) + shift[g] * y)
                gs.append(np.full(n, g))
            res = fastfair.tolerance_test(
                np.concatenate(ys), np.concatenate(ss), np.concatenate(gs), metric="auc",
                u_tol=u, alternative="greater", reference=1,
            )  # fmt: skip
            rej += res.pvalue <= ALPHA
        out.append((n_a, n_b, prev, aucs[0], aucs[1], u, rej / n_sim))
    return out


API_SETTINGS = [  # n_A, n_B, prevalence, TPR_B, u_tol
    (100, 100, 0.3, 0.7, 0.02),
    (60, 3000, 0.5, 0.9, 0.05),
    (2000, 2000, 0.2, 0.97, 0.02),
    (500, 500, 0.4, 0.5, 0.0),
]
AUC_SETTINGS = [  # n_A, n_B, prevalence, AUC_B, u_tol
    (200, 200, 0.3, 0.75, 0.02),
    (100, 1000, 0.5, 0.85, 0.05),
    (1000, 1000, 0.2, 0.7, 0.02),
]


def power_curves(sizes=(200, 1000), u_tol=0.02, delta=0.05, p_b=0.7):
    """Exact power of the score tolerance test ('greater') and TOST against the true gap."""
    z = special.ndtri(1 - ALPHA)
    gaps = np.round(np.arange(-0.1, 0.1501, 0.01), 4)
    table = {}
    for n in sizes:
        x1, x2 = np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0), indexing="ij")
        tol = score_statistic(x1, n, x2, n, u_tol) > z
        eqv = (score_statistic(x1, n, x2, n, -delta) > z) & (
            score_statistic(x1, n, x2, n, delta) < -z
        )
        pb = stats.binom.pmf(np.arange(n + 1), n, p_b)
        for g in gaps:
            pa = stats.binom.pmf(np.arange(n + 1), n, p_b + g)
            table[(n, g)] = (float(pa @ tol @ pb), float(pa @ eqv @ pb))
    return gaps, table


def sparse_power(sizes=(30, 100), u_tol=0.02, p_b=0.05):
    """Exact power of the score, exact and auto tests ('greater') with a rare event."""
    z = special.ndtri(1 - ALPHA)
    gaps = np.round(np.arange(0.0, 0.3001, 0.05), 4) + u_tol
    rows = []
    for n in sizes:
        x = np.arange(n + 1.0)
        regions = {"score": statistic("score", x[:, None], n, x[None, :], n, u_tol) > z}
        regions["exact"], regions["auto"], _ = exact_region(n, n, u_tol, "greater", z)
        pmf_b = stats.binom.pmf(np.arange(n + 1), n, p_b)
        for g in gaps:
            pmf_a = stats.binom.pmf(np.arange(n + 1), n, p_b + g)
            rows.append((n, g, {m: float(pmf_a @ r @ pmf_b) for m, r in regions.items()}))
    lines = [
        f"Exact power with a rare event: p_B = {p_b}, H1: U > {u_tol}, n_A = n_B = n",
        "     n     U     score   exact    auto",
    ]
    for n, g, pw in rows:
        lines.append(f"  {n:4d}  {g:+.2f}  {pw['score']:.4f}  {pw['exact']:.4f}  {pw['auto']:.4f}")
    return lines


def format_power(gaps, table, sizes=(200, 1000), u_tol=0.02, delta=0.05, p_b=0.7):
    lines = [
        f"Exact power, rate of the reference p_B = {p_b}, U = p_A - p_B; tolerance test "
        f"H1: U > {u_tol} (score, alpha {ALPHA}) and TOST H1: |U| < {delta}",
        "   U     " + "  ".join(f"tol n={n:<5d} tost n={n:<5d}" for n in sizes),
    ]
    for g in gaps:
        lines.append(
            f"  {g:+.2f}  "
            + "  ".join(f"{table[(n, g)][0]:10.4f} {table[(n, g)][1]:11.4f}" for n in sizes)
        )
    return lines


def plot_power(gaps, table, path, sizes=(200, 1000)):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    for n in sizes:
        ax.plot(gaps, [table[(n, g)][0] for g in gaps], label=f"tolerance u_tol=0.02, n={n}")
        ax.plot(gaps, [table[(n, g)][1] for g in gaps], "--", label=f"TOST delta=0.05, n={n}")
    ax.axhline(ALPHA, color="grey", lw=0.8)
    ax.set_xlabel("true gap U = p_A - p_B (p_B = 0.7)")
    ax.set_ylabel("rejection probability (exact)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def run(quick, seed=17, n_sim_full=4000):
    sizes, rates = (QUICK_SIZES, QUICK_RATES) if quick else (SIZES, RATES)
    rows = exact_levels(sizes, rates, U_TOLS, DELTAS)
    n_sim = 200 if quick else n_sim_full
    api = simulate_api(API_SETTINGS[:1] if quick else API_SETTINGS, n_sim, seed)
    auc = simulate_auc(AUC_SETTINGS[:1] if quick else AUC_SETTINGS, n_sim // 2, seed + 1)
    return rows, api, auc, n_sim


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--n-sim", type=int, default=4000, help="simulations (full mode)")
    args = parser.parse_args()
    t0 = time.time()
    rows, api, auc, n_sim = run(args.quick, args.seed, args.n_sim)
    tol = [r for r in rows if r[0] == "tolerance"]
    eqv = [r for r in rows if r[0] == "equivalence"]
    print(
        f"Exact level at the boundary, alpha = {ALPHA} (one-sided), {len(tol)} tolerance "
        f"and {len(eqv)} TOST settings"
    )
    print(
        "\n".join(
            summarize(tol, "Tolerance test H0: U <= u_tol at U = u_tol (u_tol in 0, 0.02, 0.05):")
        )
    )
    print(
        "\n".join(
            summarize(
                [r for r in tol if min(r[2], r[3]) >= 30], "  ... with both denominators >= 30:"
            )
        )
    )
    print("\n".join(summarize(eqv, "TOST H0: |U| >= delta at U = delta (delta in 0.05, 0.1):")))
    target = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 10_000)
    worst = max(r[6]["auto"] for r in rows)
    print(
        f"Target: the level of method='auto' at most alpha + 3 SE of a 10,000-draw simulation "
        f"({target:.4f}) on the whole grid (tolerance and TOST): max {worst:.4f} "
        f"({'met' if worst <= target else 'NOT met'}); with the exact test below 10 events "
        f"(the old rule) max {max(r[6]['auto<10'] for r in rows):.4f}"
    )
    for m in ("score", "wald", "exact", "auto"):
        print("\n".join(per_size_table(tol, m)))
    print()
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    print(
        f"fastfair.tolerance_test (TPR, 'greater') on simulated rows at U = u_tol: "
        f"{n_sim} simulations, SE {se:.4f}"
    )
    for n_a, n_b, prev, ta, tb, u, r in api:
        print(
            f"  n_A={n_a:5d} n_B={n_b:5d} prev={prev:.2f} TPR_A={ta:.2f} TPR_B={tb:.2f} "
            f"u_tol={u:.2f}: {r:.4f}"
        )
    n_auc = n_sim // 2
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_auc)
    print(
        f"AUC (the default margin test, hybrid MOVER: logit-t and Newcombe, 'greater') at "
        f"AUC_A - AUC_B = u_tol: "
        f"{n_auc} simulations, "
        f"SE {se:.4f}"
    )
    for n_a, n_b, prev, aa, ab, u, r in auc:
        print(
            f"  n_A={n_a:5d} n_B={n_b:5d} prev={prev:.2f} AUC_A={aa:.2f} AUC_B={ab:.2f} "
            f"u_tol={u:.2f}: {r:.4f}"
        )
    if not args.quick:
        gaps, table = power_curves()
        print()
        print("\n".join(format_power(gaps, table)))
        print()
        print("\n".join(sparse_power()))
        out = pathlib.Path(__file__).parent / "results" / "tolerance_power.png"
        if plot_power(gaps, table, out):
            print(f"(plot: validation/results/{out.name})")
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
