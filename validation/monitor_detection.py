"""Detection time of fastfair.FairnessMonitor on the settings of Chugg et al. (issue #31).

Chugg, Cortes-Gomez, Wilder & Ramdas, "Auditing Fairness by Betting" (NeurIPS 2023), observe
one prediction from each of two groups per time step and test equal rates by betting on the
difference, wealth prod(1 - lam_t (x_t - y_t)) with lam_t from online Newton steps (ONS:
z = g / (1 - lam g), A += z^2, lam <- clip(lam - c z / (1 + A), -1/2, 1/2), c = 2/(2 - log 3)),
rejecting once the wealth exceeds 1/alpha; reimplemented here from the paper. They compare it
with permutation tests on successive windows of k steps, without (M1) and with (M2: level
alpha / 2^i at window i) a correction. Settings reproduced:

* figure 1: Bernoulli streams with gaps 0.5 (0.4 vs 0.9), 0.3 (0.7 vs 0.4) and 0.15 (0.4 vs
  0.55), alpha = 0.01, and the null (0.4 vs 0.4);
* figures 3-4, on census-like data: their equal-opportunity audit of a census income model
  is redone on the bundled UCI Adult test set (fastfair/data/adult_demo.csv: the bundled
  model's predictions for the positives, women against men, TPR 0.541 vs 0.604): each step
  draws one positive of each sex (with replacement); the null draws both from the pooled
  positives; the shift scenario is fair for 400 steps, then the real gap. alpha = 0.01,
  0.05, 0.10.

Compared: their ONS bet; FairnessMonitor (fed every step, blocks of one row per group, and
in blocks of 50 steps; the state DIFFERENCE as the monitor reads it, the hull of its open
strips excluding 0; one sequence, log(1/alpha)); the windowed exact permutation tests
(hypergeometric, the exact form of their permutation test of the difference of means); and
the fixed-n test planned by fastfair.sample_size (power 0.8, score variance), whose decision
comes at its planned n (its power is simulated with the exact test).

    python validation/monitor_detection.py --quick   # seconds; the test suite runs it
    nice -n 10 python validation/monitor_detection.py > validation/results/monitor_detection.txt
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import pathlib
import sys
import time

import numpy as np
from scipy import special, stats

import fastfair
from fastfair.monitor.inference import advance, gap_lines, sequence_bounds

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIGURE1 = {
    "0.5 (0.4 vs 0.9)": (0.4, 0.9),
    "0.3 (0.7 vs 0.4)": (0.7, 0.4),
    "0.15 (0.4 vs 0.55)": (0.4, 0.55),
    "0 (0.4 vs 0.4)": (0.4, 0.4),
}
WINDOWS = (50, 100, 200)
SHIFT_AT = 400


def ons_stop(x, y, alpha):
    """First step (1-based) at which the ONS wealth exceeds 1/alpha; T + 1 if never."""
    n, horizon = x.shape
    c = 2.0 / (2.0 - math.log(3.0))
    lam, a_sum, log_w = np.zeros(n), np.zeros(n), np.zeros(n)
    stop = np.full(n, horizon + 1)
    for t in range(horizon):
        g = x[:, t] - y[:, t]
        log_w += np.log1p(-lam * g)
        stop[(log_w > math.log(1 / alpha)) & (stop > horizon)] = t + 1
        z = g / (1.0 - lam * g)
        a_sum += z * z
        lam = np.clip(lam - c * z / (1.0 + a_sum), -0.5, 0.5)
    return stop


def monitor_stop(x, y, alpha, block=1, resolution=0.001):
    """First step at which a FairnessMonitor (one sequence) reads DIFFERENCE; T + 1 if never.

    Runs the monitor's own update (fastfair.monitor.inference.advance) on all streams at once.
    """
    n, horizon = x.shape
    lines = gap_lines(resolution, None)
    log_e = np.zeros((n, len(lines) + 1))
    rejected = np.zeros(log_e.shape, dtype=bool)
    seen_x, seen_n = np.zeros((n, 2)), np.zeros((n, 2))
    stop = np.full(n, horizon + 1)
    active = np.arange(n)
    for start in range(0, horizon, block):
        bx = np.stack(
            [x[active, start : start + block].sum(1), y[active, start : start + block].sum(1)],
            axis=1,
        )
        bn = np.full(bx.shape, float(min(block, horizon - start)))
        sub_e, sub_r = log_e[active], rejected[active]
        advance(sub_e, sub_r, bx, bn, seen_x[active], seen_n[active], lines, math.log(1 / alpha))
        log_e[active], rejected[active] = sub_e, sub_r
        seen_x[active] += bx
        seen_n[active] += bn
        lower, upper = sequence_bounds(sub_r, lines)
        done = (lower > 0) | (upper < 0)
        stop[active[done]] = min(start + block, horizon)
        active = active[~done]
        if not active.size:
            break
    return stop


def mixture_glr_stop(x, y, alpha, a=0.5):
    """The rejected design: one mixture likelihood ratio for the gap (Beta(a, a) prior on
    each rate, divided by the likelihood maximised under a zero gap); it excludes 0 when
    log E(0) >= log(1/alpha). First step at which it does; T + 1 if never."""
    horizon = x.shape[1]
    sx, sy = np.cumsum(x, axis=1), np.cumsum(y, axis=1)
    t = np.arange(1, horizon + 1, dtype=np.float64)
    mix = (special.betaln(sx + a, t - sx + a) + special.betaln(sy + a, t - sy + a)
           - 2 * special.betaln(a, a))  # fmt: skip
    pooled = (sx + sy) / (2 * t)
    best = special.xlogy(sx + sy, pooled) + special.xlogy(2 * t - sx - sy, 1 - pooled)
    hit = mix - best >= math.log(1 / alpha)
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, horizon + 1)


def designs(reps, horizon, rng, alpha=0.01):
    """Steps to a DIFFERENCE of the designs compared (figure 1's gaps)."""
    rows = []
    for name, (p_x, p_y) in list(FIGURE1.items())[:3]:
        x = (rng.random((reps, horizon)) < p_x).astype(np.float64)
        y = (rng.random((reps, horizon)) < p_y).astype(np.float64)
        for method, stop in (
            ("ONS betting (Chugg et al.)", ons_stop(x, y, alpha)),
            ("mixture likelihood ratio, Beta(1/2, 1/2)", mixture_glr_stop(x, y, alpha)),
            ("mixture likelihood ratio, Beta(1, 1)", mixture_glr_stop(x, y, alpha, 1.0)),
            ("strip RIPr bet (FairnessMonitor)", monitor_stop(x, y, alpha)),
        ):
            rows.append((name, method, *_summary(stop, horizon)))
    return rows


def exact_pvalue(x, n):
    """Two-sided exact conditional test of equal rates: hypergeometric tail of the first
    group's successes given the pooled ones, ordered by distance from the mean."""
    total, succ = n.sum(axis=-1), x.sum(axis=-1)
    mean = succ * n[..., 0] / total
    r = np.abs(x[..., 0] - mean)
    lo, hi = np.floor(mean - r + 1e-9), np.ceil(mean + r - 1e-9)
    args = (total, succ, n[..., 0])
    return np.minimum(1.0, stats.hypergeom.cdf(lo, *args) + stats.hypergeom.sf(hi - 1, *args))


def window_stop(x, y, alpha, k, correction):
    """Windowed tests: window i (k steps) tested alone at alpha (M1) or alpha / 2^i (M2)."""
    n, horizon = x.shape
    stop = np.full(n, horizon + 1)
    for i in range(horizon // k):
        sx = x[:, i * k : (i + 1) * k].sum(1)
        sy = y[:, i * k : (i + 1) * k].sum(1)
        p = exact_pvalue(np.stack([sx, sy], axis=-1), np.full((n, 2), float(k)))
        level = alpha / 2 ** (i + 1) if correction else alpha
        stop[(p <= level) & (stop > horizon)] = (i + 1) * k
    return stop


def planned_n(p_x, p_y, alpha):
    """Steps (rows per group) a fixed-n test needs: fastfair.sample_size, power 0.8."""
    res = fastfair.sample_size(
        "selection_rate",
        rates={"selection_rate": [p_y, p_x]},
        tau=abs(p_x - p_y),
        alpha=alpha,
        allocation="equal",
        variance="score",
    )
    return int(np.max(res.n_per_group_ceil))


def fixed_power(p_x, p_y, n_steps, alpha, reps, rng):
    """Rejection rate of the exact test at the planned n (its decision comes only then)."""
    sx = rng.binomial(n_steps, p_x, reps)
    sy = rng.binomial(n_steps, p_y, reps)
    return float(
        (exact_pvalue(np.stack([sx, sy], -1), np.full((reps, 2), n_steps)) <= alpha).mean()
    )


def _summary(stop, horizon):
    hit = stop <= horizon
    return float(np.minimum(stop, horizon).mean()), float(np.median(stop)), float(hit.mean())


def figure1(reps, horizon, rng, alpha=0.01, settings=tuple(FIGURE1)):
    rows = []
    for name in settings:
        p_x, p_y = FIGURE1[name]
        x = (rng.random((reps, horizon)) < p_x).astype(np.float64)
        y = (rng.random((reps, horizon)) < p_y).astype(np.float64)
        rows.append(
            (name, "ONS betting (Chugg et al.)", *_summary(ons_stop(x, y, alpha), horizon))
        )
        for block in (1, 50):
            stop = monitor_stop(x, y, alpha, block)
            rows.append((name, f"FairnessMonitor, blocks of {block}", *_summary(stop, horizon)))
        if p_x != p_y:
            n = planned_n(p_x, p_y, alpha)
            power = fixed_power(p_x, p_y, n, alpha, 4000, rng)
            rows.append((name, "fixed n (sample_size, power 0.8)", float(n), float(n), power))
    return rows


def adult_positives():
    """Predictions of the bundled model for the positives: (women, men)."""
    import csv

    with open(ROOT / "fastfair" / "data" / "adult_demo.csv") as fh:
        data = [r for r in csv.DictReader(fh) if r["label"] == "1"]
    women = np.array([float(r["prediction"]) for r in data if r["sex"] == "Female"])
    men = np.array([float(r["prediction"]) for r in data if r["sex"] == "Male"])
    return women, men


def adult_streams(reps, horizon, rng, scenario):
    women, men = adult_positives()
    pooled = np.concatenate([women, men])
    if scenario == "null":
        return rng.choice(pooled, (reps, horizon)), rng.choice(pooled, (reps, horizon))
    x, y = rng.choice(women, (reps, horizon)), rng.choice(men, (reps, horizon))
    if scenario == "shift":
        x[:, :SHIFT_AT] = rng.choice(pooled, (reps, SHIFT_AT))
        y[:, :SHIFT_AT] = rng.choice(pooled, (reps, SHIFT_AT))
    return x, y


def adult(reps, horizon, rng, alphas=(0.01, 0.05, 0.10)):
    rows = []
    women, men = adult_positives()
    for scenario in ("gap", "null", "shift"):
        x, y = adult_streams(reps, horizon, rng, scenario)
        for alpha in alphas:
            methods = {
                "ONS betting (Chugg et al.)": ons_stop(x, y, alpha),
                "FairnessMonitor, blocks of 1": monitor_stop(x, y, alpha, 1),
            }
            for k in WINDOWS:
                methods[f"windows k={k}, M1"] = window_stop(x, y, alpha, k, False)
                methods[f"windows k={k}, M2"] = window_stop(x, y, alpha, k, True)
            for name, stop in methods.items():
                if scenario == "shift":
                    stop = np.where(stop <= SHIFT_AT, 0, stop)  # rejected before the shift
                    early = float((stop == 0).mean())
                    late = stop[stop > 0]
                    rows.append(
                        (
                            scenario,
                            alpha,
                            name,
                            *_summary(late - SHIFT_AT, horizon - SHIFT_AT),
                            early,
                        )
                    )
                else:
                    rows.append((scenario, alpha, name, *_summary(stop, horizon), None))
            if scenario == "gap":
                n = planned_n(women.mean(), men.mean(), alpha)
                power = fixed_power(women.mean(), men.mean(), n, alpha, 4000, rng)
                rows.append(
                    (
                        scenario,
                        alpha,
                        "fixed n (sample_size, power 0.8)",
                        float(n),
                        float(n),
                        power,
                        None,
                    )
                )
    return rows


def format_report(fig1, adult_rows, settings, seconds) -> str:
    commit = git_commit()
    out = [
        f"validation/monitor_detection.py  {datetime.date.today()}  commit {commit}",
        f"settings: {settings}; CPU time {seconds:.0f} s",
        "steps = time steps of Chugg et al. (one row of each group per step); 'mean' is "
        "capped at the horizon; 'share' = streams with a DIFFERENCE by the horizon "
        "(the fixed-n test: its power at the planned n)",
        "",
        "Figure 1 (Bernoulli streams, alpha = 0.01)",
        f"  {'gap':<20} {'method':<36} {'mean steps':>10} {'median':>8} {'share':>6}",
    ]
    for name, method, mean, median, share in fig1:
        out.append(f"  {name:<20} {method:<36} {mean:>10.1f} {median:>8.0f} {share:>6.3f}")
    out += [
        "",
        "Figures 3-4 (Adult positives, TPR women vs men; shift: fair for "
        f"{SHIFT_AT} steps; its steps counted after the shift, 'early' = rejected before)",
        f"  {'scenario':<8} {'alpha':>5} {'method':<36} {'mean steps':>10} {'median':>8} "
        f"{'share':>6} {'early':>6}",
    ]
    for scenario, alpha, method, mean, median, share, early in adult_rows:
        e = "" if early is None else f"{early:.3f}"
        out.append(
            f"  {scenario:<8} {alpha:>5} {method:<36} {mean:>10.1f} {median:>8.0f} "
            f"{share:>6.3f} {e:>6}"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--designs", action="store_true", help="compare the candidate designs")
    args = parser.parse_args()
    if args.designs:
        start = time.process_time()
        rows = designs(100 if args.quick else 400, 1500, np.random.default_rng(args.seed))
        print(
            f"validation/monitor_detection.py --designs  {datetime.date.today()}; "
            f"CPU {time.process_time() - start:.0f} s; alpha 0.01, 400 streams, horizon 1500"
        )
        for name, method, mean, median, share in rows:
            print(f"  {name:<20} {method:<42} {mean:>8.1f} {median:>7.0f} {share:>6.3f}")
        return
    reps, horizon1, horizon2 = (60, 400, 600) if args.quick else (400, 1500, 3000)
    rng = np.random.default_rng(args.seed)
    start = time.process_time()
    fig1 = figure1(reps, horizon1, rng)
    adult_reps = reps // (2 if args.quick else 3)
    adult_rows = adult(adult_reps, horizon2, rng)
    settings = (
        f"figure 1: {reps} streams, horizon {horizon1} steps; Adult: {adult_reps} "
        f"streams, horizon {horizon2} steps; seed {args.seed}"
    )
    print(format_report(fig1, adult_rows, settings, time.process_time() - start))


if __name__ == "__main__":
    main()
