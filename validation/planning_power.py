"""How close is the planning formula's power to the power of the actual tests?

For each metric, plan the audit with :func:`fastfair.sample_size` (alpha 0.05, power 0.8,
Neyman allocation, u_tol 0) on the paper's ACS example (the notebook's confusion matrices,
METHODS.md 2) and on a small-sample scenario, then simulate audits of the planned size and
record the rejection rate of
  * the paper's Wald z-test (plug-in variances), and
  * fastfair.permutation_test (studentized, default conditional scheme, method="auto"),
    with its default pooled variance and with variance="unpooled" (the paper's statistic);
    skipped for NPV on the ACS example (n ~ 887,000 per audit),
for alternative="two-sided" (the paper's z_(1-alpha/2)) and "greater" (z_(1-alpha)).

Usage: python validation/planning_power.py [--quick] [--out FILE]
Full mode takes a few minutes; its output is kept in validation/results/planning_power.txt.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np

from fastfair.planning import sample_size, simulate_power
from fastfair.planning.statistics import _rates_from_counts

# notebook confusion matrices (TN, FP, FN, TP): Black, White
COUNTS = np.array([[1437, 234, 282, 609], [16814, 3503, 3368, 12622]])


KEYS = {
    "selection_rate": ("selection_rate", "prevalence"),
    "tpr": ("tpr", "prevalence", "tnr"),
    "tnr": ("tnr", "prevalence", "tpr"),
    "ppv": ("ppv", "selection_rate", "npv"),
    "npv": ("npv", "selection_rate", "ppv"),
    "accuracy": ("accuracy", "prevalence"),
}

# a small-sample scenario (large differences, planned n in the low hundreds)
SMALL = {
    "selection_rate": {
        "selection_rate": np.array([0.55, 0.35]),
        "prevalence": np.array([0.4, 0.4]),
    },
    "tpr": {
        "tpr": np.array([0.85, 0.65]),
        "prevalence": np.array([0.3, 0.2]),
        "tnr": np.array([0.8, 0.8]),
    },
    "tnr": {
        "tnr": np.array([0.9, 0.75]),
        "prevalence": np.array([0.3, 0.4]),
        "tpr": np.array([0.7, 0.7]),
    },
    "ppv": {
        "ppv": np.array([0.8, 0.6]),
        "selection_rate": np.array([0.3, 0.35]),
        "npv": np.array([0.85, 0.85]),
    },
    "npv": {
        "npv": np.array([0.92, 0.8]),
        "selection_rate": np.array([0.3, 0.3]),
        "ppv": np.array([0.7, 0.7]),
    },
    "accuracy": {"accuracy": np.array([0.85, 0.72]), "prevalence": np.array([0.4, 0.4])},
}


def has_permutation_test() -> bool:
    try:
        from fastfair.permutation import permutation_test  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few simulations (smoke test)")
    ap.add_argument("--out", default=None, help="also write the report to this file")
    args = ap.parse_args(argv)
    n_wald = 2000 if args.quick else 20000
    n_perm = 200 if args.quick else 1000
    perm = has_permutation_test()
    acs = _rates_from_counts(COUNTS)
    scenarios = {
        "ACS": {m: {k: acs[k] for k in KEYS[m]} for m in KEYS},
        "small": SMALL,
    }
    lines = [
        "Planning formula vs simulated power (fastfair.planning)",
        f"mode: {'quick' if args.quick else 'full'}; Wald sims {n_wald}, permutation sims "
        f"{n_perm if perm else 'n/a (permutation_test not available)'}",
        f"python {platform.python_version()}, numpy {np.__version__}",
        "design: alpha 0.05, target power 0.8, Neyman allocation, u_tol 0, each group's n "
        "rounded up; SE = binomial standard error of the simulated power",
        "",
        f"{'scenario':9}{'metric':15}{'alternative':12}{'n1':>8}{'n2':>8}{'formula':>9}"
        f"{'wald':>8}{'(se)':>8}{'perm':>8}{'(se)':>8}{'perm-unp':>9}{'(se)':>8}",
    ]
    seed = 20240601
    t0 = time.perf_counter()
    worst = {"wald": 0.0, "perm": 0.0, "perm-unpooled": 0.0}
    for sname, sc in scenarios.items():
        for metric, rates in sc.items():
            diff = abs(float(rates[metric][0] - rates[metric][1]))
            for alt in ("two-sided", "greater"):
                plan = sample_size(
                    metric, rates=rates, tau=diff, alternative=alt, test="asymptotic"
                )
                npg = plan.n_per_group_ceil
                seed += 1
                w = simulate_power(
                    metric,
                    rates=rates,
                    n_per_group=npg,
                    test="wald",
                    alternative=alt,
                    n_sim=n_wald,
                    random_state=seed,
                )
                row = (
                    f"{sname:9}{metric:15}{alt:12}{npg[0]:>8}{npg[1]:>8}"
                    f"{w.formula_power:>9.4f}{w.power:>8.4f}{w.standard_error:>8.4f}"
                )
                worst["wald"] = max(worst["wald"], abs(w.power - w.formula_power))
                if perm and not (sname == "ACS" and metric == "npv"):
                    p = simulate_power(
                        metric,
                        rates=rates,
                        n_per_group=npg,
                        alternative=alt,
                        n_sim=n_perm,
                        random_state=seed,
                        method="auto",
                    )
                    u = simulate_power(
                        metric,
                        rates=rates,
                        n_per_group=npg,
                        alternative=alt,
                        n_sim=n_perm,
                        random_state=seed,
                        method="auto",
                        permutation_kwargs={"variance": "unpooled"},
                    )
                    row += f"{p.power:>8.4f}{p.standard_error:>8.4f}"
                    row += f"{u.power:>9.4f}{u.standard_error:>8.4f}"
                    worst["perm"] = max(worst["perm"], abs(p.power - p.formula_power))
                    worst["perm-unpooled"] = max(
                        worst["perm-unpooled"], abs(u.power - u.formula_power)
                    )
                else:
                    row += f"{'-':>8}{'-':>8}{'-':>9}{'-':>8}"
                lines.append(row)
                print(lines[-1], flush=True)
    lines += [
        "",
        f"largest |simulated - formula|: Wald {worst['wald']:.4f}"
        + (
            f", permutation (pooled, default) {worst['perm']:.4f}, permutation (unpooled) "
            f"{worst['perm-unpooled']:.4f}"
            if perm
            else ""
        ),
        f"elapsed {time.perf_counter() - t0:.1f} s",
    ]
    text = "\n".join(lines)
    print("\n".join(lines[-3:]))
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
