"""Type I error of fastfair.FairnessMonitor under continuous monitoring (issue #31).

Null streams of two groups (group share 0.3 / reference 0.7, prevalence 0.3 in both) arrive
in batches of 100 rows, looked at after every batch up to 10^6 rows (10,000 looks):

* "null": TPR 0.7, FPR 0.2 in both groups, so the TPR, FPR and selection-rate gaps are 0;
  error = the sequence ever excludes 0 (a false "DIFFERENCE");
* "boundary": the group's TPR 0.75 and FPR 0.25 against 0.70 and 0.20, so every gap is
  exactly tolerance = 0.05; error = the sequence ever lies inside (-0.05, 0.05) (a false
  "FAIR within ±0.05").

The monitor's sequence excludes a gap d only when both grid strips that contain d are
rejected, so each error is counted on those two strips' e-values, evaluated with the
monitor's own functions (fastfair.monitor.inference) vectorized over the streams: the
measured rate is an upper bound of the monitor's (which needs more strips rejected). The
--quick mode also checks that one stream fed to a FairnessMonitor gives the same e-values.
Levels: per sequence (one metric monitored, threshold log(1/alpha)) and for the family of
the three metrics (Bonferroni, log(3/alpha), error = any metric wrong).

Beside it, what users do today: a fixed-n test looked at after every batch, rejecting when
p <= alpha at any look: the exact conditional test (hypergeometric tail of the group's
successes given the pooled ones, ordered by |x - mean|) while the metric's denominators sum
to at most EXACT_UP_TO rows, then its normal limit (the pooled z-test).

    python validation/monitor_type1.py --quick   # seconds; the test suite runs it
    nice -n 10 python validation/monitor_type1.py > validation/results/monitor_type1.txt
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
import time

import numpy as np
from scipy import stats

import fastfair
from fastfair.monitor.inference import block_log_evidence, strip_log_evidence
from fastfair.monitor.statistics import metric_counts, metric_masks

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

METRICS = ("tpr", "fpr", "selection_rate")
GROUP_SHARE, PREVALENCE = 0.3, 0.3
RATES = {"null": ((0.7, 0.2), (0.7, 0.2)), "boundary": ((0.75, 0.25), (0.70, 0.20))}
TOLERANCE, RESOLUTION = 0.05, 0.001
EXACT_UP_TO = 2_000


def cell_probabilities(setting: str) -> np.ndarray:
    """(2, 4) probabilities of (TN, FP, FN, TP) for (group, reference)."""
    out = []
    for share, (tpr, fpr) in zip((GROUP_SHARE, 1 - GROUP_SHARE), RATES[setting]):
        neg, pos = (1 - PREVALENCE) * share, PREVALENCE * share
        out.append([neg * (1 - fpr), neg * fpr, pos * (1 - tpr), pos * tpr])
    return np.array(out)


def _fixed_n_pvalue(x, n, exact):
    """Two-sided conditional test of equal rates from (streams, 2) successes/denominators."""
    total, succ = n.sum(axis=1), x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = succ / total
        var = pooled * (1 - pooled) * (1 / n[:, 0] + 1 / n[:, 1])
        z = (x[:, 0] / n[:, 0] - x[:, 1] / n[:, 1]) / np.sqrt(var)
    p = np.where(var > 0, 2 * stats.norm.sf(np.abs(z)), 1.0)
    if exact:
        mean = succ * n[:, 0] / total
        r = np.abs(x[:, 0] - mean)
        lo = np.floor(mean - r + 1e-9)
        hi = np.ceil(mean + r - 1e-9)
        args = (total, succ, n[:, 0])
        p = np.minimum(1.0, stats.hypergeom.cdf(lo, *args) + stats.hypergeom.sf(hi - 1, *args))
    return np.where((n > 0).all(axis=1), p, 1.0)


def run(n_streams=2000, n_rows=1_000_000, batch=100, alpha=0.05, seed=0, check=False):
    """Error rates: {setting: {metric or 'family': (monitor K=1, monitor K=3, fixed-n)}}."""
    rng = np.random.default_rng(seed)
    masks = metric_masks(METRICS)
    lines = {
        "null": np.array([-RESOLUTION, 0.0, RESOLUTION]),
        "boundary": np.array([TOLERANCE - RESOLUTION, TOLERANCE, TOLERANCE + RESOLUTION]),
    }
    out, traces = {}, {}
    for setting in RATES:
        probs = cell_probabilities(setting).ravel()
        seen = np.zeros((n_streams, 2, 4), dtype=np.int64)
        log_e = np.zeros((len(METRICS), n_streams, 4))
        best = np.full((len(METRICS), n_streams, 4), -np.inf)
        fixed = np.zeros((len(METRICS), n_streams), dtype=bool)
        trace = []
        for _ in range(n_rows // batch):
            block = rng.multinomial(batch, probs, size=n_streams).reshape(n_streams, 2, 4)
            bx, bn = metric_counts(block, masks)  # (metrics, streams, 2)
            sx, sn = metric_counts(seen, masks)
            for i in range(len(METRICS)):
                line_log, gap = block_log_evidence(
                    bx[i][:, None, :],
                    bn[i][:, None, :],
                    sx[i][:, None, :],
                    sn[i][:, None, :],
                    lines[setting],
                )
                log_e[i] += strip_log_evidence(line_log, gap, lines[setting])
                np.maximum(best[i], log_e[i], out=best[i])
                if setting == "null":
                    tx, tn = sx[i] + bx[i], sn[i] + bn[i]
                    fixed[i] |= (
                        _fixed_n_pvalue(tx, tn, tn.sum(axis=1).max() <= EXACT_UP_TO) <= alpha
                    )
            seen += block
            if check:
                trace.append(log_e[:, 0, 1:3].copy())
        # the strips holding the true gap: 1 and 2 (lines 0-1 and 1-2 of the three)
        held = np.minimum(best[..., 1], best[..., 2])
        rates = {}
        for k, threshold in (("K=1", math.log(1 / alpha)), ("K=3", math.log(3 / alpha))):
            wrong = held >= threshold
            rates[k] = [float(w.mean()) for w in wrong] + [float(wrong.any(axis=0).mean())]
        rates["fixed"] = [float(f.mean()) for f in fixed] + [float(fixed.any(axis=0).mean())]
        out[setting] = rates
        traces[setting] = trace
    return (out, traces) if check else out


def monitor_trace(n_streams, n_rows, batch=100, seed=0):
    """The first null stream of run(n_streams, ..., seed) fed batch by batch to a
    FairnessMonitor: its log e-values of the two strips at 0, per look (for --quick)."""
    rng = np.random.default_rng(seed)
    probs = cell_probabilities("null").ravel()
    monitor = fastfair.FairnessMonitor(
        METRICS, reference="r", groups=["r", "g"], tolerance=TOLERANCE
    )
    zero = int(np.searchsorted(monitor._lines, 0.0))
    trace = []
    for _ in range(n_rows // batch):
        block = rng.multinomial(batch, probs, size=n_streams)[0].reshape(2, 4)
        monitor.update_from_counts(block, ["g", "r"])
        trace.append(monitor._log_e[:, 0, zero : zero + 2].copy())
    return trace


def format_report(out, n_streams, n_rows, batch, alpha, seconds) -> str:
    se = math.sqrt(alpha * (1 - alpha) / n_streams)
    commit = git_commit()
    lines = [
        f"validation/monitor_type1.py  {datetime.date.today()}  commit {commit}",
        f"{n_streams} streams, batches of {batch} rows, looked at after every batch up to "
        f"{n_rows:,} rows ({n_rows // batch:,} looks); alpha = {alpha}; group share "
        f"{GROUP_SHARE}, prevalence {PREVALENCE}; tolerance {TOLERANCE}; grid {RESOLUTION}",
        f"Monte-Carlo SE at alpha: {se:.4f}; bound alpha + 3 SE = {alpha + 3 * se:.4f}",
        f"CPU time {seconds:.0f} s",
        "",
        "rate of streams ever wrong | " + " | ".join([*METRICS, "any of the three"]),
    ]
    names = {
        "K=1": "monitor, one sequence (log 1/alpha)",
        "K=3": "monitor, three metrics (Bonferroni)",
        "fixed": f"fixed-n test at every look (exact to {EXACT_UP_TO:,} rows, then z)",
    }
    for setting, rates in out.items():
        claim = (
            "DIFFERENCE (gap 0)" if setting == "null" else f"FAIR ±{TOLERANCE} (gap {TOLERANCE})"
        )
        for key, values in rates.items():
            if setting == "boundary" and key == "fixed":
                continue
            cells = " | ".join(f"{v:.4f}" for v in values)
            lines.append(f"{claim:<28} {names[key]:<58} | {cells}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    streams, rows = (300, 20_000) if args.quick else (args.streams, args.rows)
    start = time.process_time()
    out = run(streams, rows, seed=args.seed)
    print(format_report(out, streams, rows, 100, 0.05, time.process_time() - start))


if __name__ == "__main__":
    main()
