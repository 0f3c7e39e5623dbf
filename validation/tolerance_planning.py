"""Planning and testing agree: simulated power of the tolerance and equivalence tests at the
planned n (issue 17).

For the per-group rates behind the sample-size paper's Table 2 (Black vs White, ACS
example; the first group is the reference), each metric is planned with
``fastfair.planning.sample_size`` (the paper's eq. 2-3, Neyman allocation, two-sided
convention, alpha 0.05, power 0.8) for ``u_tol = 0`` and ``u_tol = 0.02`` (metrics whose gap
exceeds 0.02), then audits of that size are simulated and tested with the score test of
``fastfair.tolerance_test`` (``simulate_power(test="score")``) and with the paper's Wald test.
The same rates planned with ``sample_size(..., variance="score")`` (the score test's
restricted-null variance at the critical value) are simulated with the score test.
Equivalence mode: ``sample_size(..., delta=0.05)`` at true gaps 0 and 0.02 (the White rates,
the reference's TPR shifted), simulated with TOST (score statistic).

    python validation/tolerance_planning.py --quick   # 400 simulations (the tests run a subset)
    python validation/tolerance_planning.py           # 4,000 simulations, recorded in
        validation/results/tolerance_planning.txt
"""

from __future__ import annotations

import argparse
import math
import time

from fastfair.planning import sample_size, simulate_power

# (Black, White): METHODS / the paper's notebook, 4-decimal rates
RATES = {
    "selection_rate": {"selection_rate": [0.3290, 0.4441]},
    "tpr": {"tpr": [0.6835, 0.7894], "prevalence": [0.3478, 0.4404]},
    "tnr": {"tnr": [0.8600, 0.8276], "prevalence": [0.3478, 0.4404]},
    "ppv": {"ppv": [0.7224, 0.7827], "selection_rate": [0.3290, 0.4441]},
    "npv": {"npv": [0.8359, 0.8331], "selection_rate": [0.3290, 0.4441]},
}
VALUE_KEY = {
    "selection_rate": "selection_rate",
    "tpr": "tpr",
    "tnr": "tnr",
    "ppv": "ppv",
    "npv": "npv",
}


def settings(metrics=None):
    """(metric, rates, u_tol, tau) of each plan: Table 2's rates, U_tol 0 and 0.02."""
    for metric, rates in RATES.items():
        if metrics is None or metric in metrics:
            vals = rates[VALUE_KEY[metric]]
            for u_tol in (0.0, 0.02):
                yield metric, rates, u_tol, abs(vals[0] - vals[1])


def tolerance_rows(n_sim, seed, metrics=None):
    rows = []
    for metric, rates, u_tol, tau in settings(metrics):
        if tau <= u_tol:
            rows.append((metric, u_tol, tau, None, None, None, None))
        else:
            plan = sample_size(metric, rates=rates, tau=tau, u_tol=u_tol, test="asymptotic")
            npg = plan.n_per_group_ceil
            sims = {
                test: simulate_power(
                    metric,
                    rates=rates,
                    n_per_group=npg,
                    u_tol=u_tol,
                    test=test,
                    n_sim=n_sim,
                    random_state=seed,
                )
                for test in ("score", "wald")
            }
            rows.append((metric, u_tol, tau, plan.n, npg.tolist(), sims["score"], sims["wald"]))
    return rows


def score_plan_rows(n_sim, seed, metrics=None):
    """Plans with sample_size(variance="score") and the score test's simulated power."""
    rows = []
    for metric, rates, u_tol, tau in settings(metrics):
        if tau > u_tol:
            plan = sample_size(metric, rates=rates, tau=tau, u_tol=u_tol, variance="score")
            sim = simulate_power(
                metric, rates=rates, n_per_group=plan.n_per_group_ceil, u_tol=u_tol,
                test="score", n_sim=n_sim, random_state=seed,
            )  # fmt: skip
            rows.append((metric, u_tol, plan.n, plan.n_per_group_ceil.tolist(), sim.power))
    return rows


def format_score_plan(rows, n_sim):
    lines = [
        f"Planned with variance='score' (restricted-null variance at the critical value), "
        f"score test simulated; {n_sim} simulations",
        "  metric          u_tol     n (plan)     n per group      score power",
    ]
    for metric, u_tol, n, npg, pw in rows:
        lines.append(f"  {metric:<15} {u_tol:5.2f}  {n:11.1f}  {npg!s:>16}  {pw:.4f}")
    return lines


def equivalence_rows(n_sim, seed):
    rows = []
    base = {"tpr": [0.7894, 0.7894], "prevalence": [0.3478, 0.4404]}
    for gap in (0.0, 0.02):
        rates = {"tpr": [0.7894 - gap, 0.7894], "prevalence": base["prevalence"]}
        plan = sample_size("tpr", rates=rates, tau=gap, delta=0.05)
        sim = simulate_power(
            "tpr", rates=rates, n_per_group=plan.n_per_group_ceil, delta=0.05, test="score",
            n_sim=n_sim, random_state=seed,
        )  # fmt: skip
        rows.append((gap, plan.n, plan.n_per_group_ceil.tolist(), sim))
    return rows


def format_rows(tol, eqv, n_sim):
    se = math.sqrt(0.8 * 0.2 / n_sim)
    lines = [
        f"Planned n (eq. 2-3, two-sided convention, alpha 0.05, power 0.8) and simulated power; "
        f"{n_sim} simulations, SE at 0.8 = {se:.4f}",
        "  metric          u_tol   tau     n (plan)     n per group      score   wald   formula",
    ]
    for metric, u_tol, tau, n, npg, score, wald in tol:
        if n is None:
            lines.append(
                f"  {metric:<15} {u_tol:5.2f}  {tau:.4f}  (tau <= u_tol: nothing to plan)"
            )
            continue
        lines.append(
            f"  {metric:<15} {u_tol:5.2f}  {tau:.4f}  {n:11.1f}  {npg!s:>16}  "
            f"{score.power:.4f}  {wald.power:.4f}  {score.formula_power:.4f}"
        )
    lines.append("")
    lines.append("Equivalence (TOST, score statistic), delta = 0.05, TPR, prevalence 0.35 / 0.44")
    lines.append("  true gap   n (plan)   n per group     simulated   formula")
    for gap, n, npg, sim in eqv:
        lines.append(
            f"  {gap:8.2f}  {n:9.1f}  {npg!s:>14}  {sim.power:9.4f}  {sim.formula_power:8.4f}"
        )
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    n_sim = 400 if args.quick else 4000
    t0 = time.time()
    tol = tolerance_rows(n_sim, args.seed)
    eqv = equivalence_rows(n_sim, args.seed)
    print("\n".join(format_rows(tol, eqv, n_sim)))
    print()
    print("\n".join(format_score_plan(score_plan_rows(n_sim, args.seed), n_sim)))
    print(f"\n{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
