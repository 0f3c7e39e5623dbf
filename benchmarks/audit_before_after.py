"""Alternated before/after timing of `fastfair audit` end to end (a fresh process each run).

Each tree is a copy of ``fastfair/`` at one commit with the compiled kernels of the build
copied in (``git archive REV fastfair | tar -x -C DIR`` then ``cp build/cp311/csrc/*.so
DIR/fastfair/``): valid when ``csrc/`` is the same at both commits. Usage:

    python benchmarks/audit_before_after.py BEFORE_DIR AFTER_DIR [ROUNDS]

The rounds alternate the trees (the order flipped each round) so that a changing machine
load falls on both; the table gives each case's runs and medians.
"""

from __future__ import annotations

import os
import pathlib
import statistics
import subprocess
import sys
import time

COMMON = [
    "--label", "label", "--pred", "prediction", "--score", "score", "--permutations", "199",
    "--seed", "1", "--jobs", "1", "--quiet",
]  # fmt: skip


def _data(folder: pathlib.Path, demo_csv: pathlib.Path) -> dict:
    """The demo as CSV and about 1e6 rows of it as Parquet; the cases' arguments."""
    import pandas as pd

    folder.mkdir(exist_ok=True)
    demo = pd.read_csv(demo_csv)
    demo.to_csv(folder / "demo.csv", index=False)
    big = folder / "big.parquet"
    if not big.exists():  # 62 copies: 1,009,422 rows
        pd.concat([demo] * 62, ignore_index=True).to_parquet(
            big, row_group_size=1 << 17, index=False
        )
    return {
        "demo CSV, memory, sex+race+intersections, score": [
            str(folder / "demo.csv"), "--group", "sex", "race", "--intersections",
            "--engine", "memory",
        ],
        "1.0e6-row Parquet, arrow, sex, score": [
            str(big), "--group", "sex", "--engine", "arrow",
        ],
    }  # fmt: skip


def _run(tree: str, args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("VIRTUAL_ENV", None)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "fastfair", "audit", *args, *COMMON],
        env=env, cwd="/tmp", capture_output=True, text=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return elapsed


def main(argv: list[str]) -> None:
    trees = {"before": argv[0], "after": argv[1]}
    rounds = int(argv[2]) if len(argv) > 2 else 3
    cases = _data(
        pathlib.Path("/tmp/bench_data"),
        pathlib.Path(argv[1]) / "fastfair" / "data" / "adult_demo.csv",
    )
    times = {(c, t): [] for c in cases for t in trees}
    loads = []
    for r in range(rounds):
        for case, args in cases.items():
            for tree in list(trees) if r % 2 == 0 else list(trees)[::-1]:
                loads.append(os.getloadavg()[0])
                times[(case, tree)].append(_run(trees[tree], args))
    print(f"{rounds} rounds alternated; load average (1 min): {min(loads):.1f}-{max(loads):.1f}")
    print("| case | before s | after s | after / before |\n| --- | ---: | ---: | ---: |")
    for case in cases:
        runs = [times[(case, t)] for t in trees]
        before, after = (statistics.median(x) for x in runs)
        shown = [f"{statistics.median(x):.2f} ({', '.join(f'{v:.2f}' for v in x)})" for x in runs]
        print(f"| {case} | {shown[0]} | {shown[1]} | {after / before:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
