"""Level of the Wasserstein test as the classifier steepens, and where it is refused.

Fair data: a and y independent fair coins, one standard normal feature independent of both;
classifier h(x) = sigmoid(scale * x). For each scale: the rejection rate at alpha = 0.05 of
the test with the saturation check switched off, and the median of the check's quantity,
the largest logit move that undoes a difference of null size (the test refuses above 4).
This is the evidence for the cut: the level holds while the move stays below about 4.

Usage: python validation/wasserstein_steep_null.py [--quick] [--n N] [--reps R] [--seed S]
The full run is recorded in validation/results/wasserstein_steep_null.txt.
"""

from __future__ import annotations

import argparse
import math
import re

import numpy as np

import fastfair.wasserstein as ws

SCALES = (3.0, 10.0, 30.0, 100.0)


def null_move(X, y, a, coef) -> float:
    """The saturation check's quantity, read from its message with the cut at 0."""
    old, ws.ingest._MAX_NULL_MOVE = ws.ingest._MAX_NULL_MOVE, 0.0
    try:
        ws.wasserstein_test(X, y, a, coef, n_jobs=1)
    except ValueError as exc:
        return float(re.search(r"by (\S+) on", str(exc)).group(1))
    finally:
        ws.ingest._MAX_NULL_MOVE = old
    return 0.0


def run(n: int, reps: int, seed: int, scales=SCALES, alpha: float = 0.05):
    """Rows (scale, rejection rate, its Monte-Carlo SE, median move) without the check."""
    rows = []
    for scale in scales:
        rejections, moves = 0, []
        for r in range(reps):
            rng = np.random.default_rng([seed, int(scale * 1000), r])
            a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
            X = rng.normal(size=(n, 1))
            old, ws.ingest._MAX_NULL_MOVE = ws.ingest._MAX_NULL_MOVE, math.inf
            try:
                res = ws.wasserstein_test(X, y, a, [scale], alpha=alpha, n_jobs=1)
            finally:
                ws.ingest._MAX_NULL_MOVE = old
            rejections += res.pvalue < alpha
            moves.append(null_move(X, y, a, [scale]))
        rate = rejections / reps
        rows.append((scale, rate, math.sqrt(alpha * (1 - alpha) / reps), float(np.median(moves))))
    return rows


def format_rows(rows, n, reps, seed) -> str:
    lines = [
        f"Wasserstein test on fair data, N = {n}, {reps} data sets per scale, seed {seed}, "
        "alpha = 0.05, saturation check off",
        "scale   rejection rate (SE)   median largest null move (refused above 4)",
    ]
    for scale, rate, se, move in rows:
        lines.append(f"{scale:6g}   {rate:.3f} ({se:.3f})         {move:.3g}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    reps = 40 if args.quick else args.reps
    print(format_rows(run(args.n, reps, args.seed), args.n, reps, args.seed))


if __name__ == "__main__":
    main()
