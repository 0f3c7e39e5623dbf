"""`fastfair audit` on a file with thousands of groups: time, peak memory, printed size.

The printed table must stay proportional to what it shows (at most --max-rows tests, cells
of bounded width), not to the number of groups or the length of their names; every test
is in --json. Writes a CSV of K groups x PER rows (label, prediction, score, a group name
of ~32 characters) to a temporary folder, runs the CLI in a subprocess and reports its
wall time, peak RSS, the bytes and longest line printed, and the size of the JSON.

Usage: python benchmarks/many_groups_cli.py [--groups K] [--per PER] [--metrics M ...]
(defaults: 3000 groups of 20 rows, all default confusion metrics).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_data(path: str, groups: int, per: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    names = np.repeat([f"group-{i:05d}-" + "x" * 20 for i in range(groups)], per)
    y = rng.integers(0, 2, groups * per)
    pred = rng.integers(0, 2, groups * per)
    score = rng.random(groups * per)
    with open(path, "w") as fh:
        fh.write("y,pred,score,grp\n")
        for a, b, c, g in zip(y, pred, score, names):
            fh.write(f"{a},{b},{c:.4f},{g}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=3000)
    parser.add_argument("--per", type=int, default=20)
    parser.add_argument("--metrics", nargs="+", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "many.csv")
        out_json = os.path.join(folder, "audit.json")
        write_data(data, args.groups, args.per)
        argv = [sys.executable, "-m", "fastfair", "audit", data, "--label", "y", "--pred"]
        argv += ["pred", "--group", "grp", "--quiet", "--json", out_json]
        if args.metrics:
            argv += ["--metrics", *args.metrics]
        start = time.perf_counter()
        run = subprocess.run(argv, capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - start
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        lines = run.stdout.splitlines()
        print(
            f"{args.groups} groups x {args.per} rows: {elapsed:.1f} s wall, peak RSS "
            f"{rss_mb:.0f} MB, printed {len(run.stdout):,} bytes in {len(lines)} lines "
            f"(longest {max(map(len, lines))}), JSON {os.path.getsize(out_json):,} bytes; "
            f"load {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
