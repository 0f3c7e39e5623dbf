"""Time the README's first command, the demo audit, end to end and by part.

    python benchmarks/audit_demo.py [--permutations 9999] [--repeat 1]

Runs `fastfair audit --demo --report` in a child process (wall time, as a user runs it:
sex, race and sex & race on the bundled 16,281 rows, 101 tests), then times the parts of
`fastfair.audit` in this process: the confusion tests with their power figures only, and
the AUC and predictive-parity tests added by the score. Prints a Markdown table with the
machine's load average: the figures are only comparable on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from importlib import resources

import fastfair
from fastfair.cli import read_table


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--permutations", type=int, default=9999)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    table = read_table(str(resources.files("fastfair") / "data" / "adult_demo.csv"))
    common = dict(sensitive_features=["sex", "race"], intersections=True, data=table)
    b = args.permutations

    def cli():
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "audit.html")
            cmd = [sys.executable, "-m", "fastfair", "audit", "--demo", "--quiet"]
            cmd += ["--permutations", str(b), "--report", report]
            subprocess.run(cmd, check=True, capture_output=True)

    rows = [
        ("`fastfair audit --demo --report` (child process)", cli),
        (
            "fastfair.audit, confusion tests only (--pred)",
            lambda: fastfair.audit("label", "prediction", n_permutations=b, **common),
        ),
        (
            "fastfair.audit with scores (AUC, predictive parity)",
            lambda: fastfair.audit("label", y_score="score", n_permutations=b, **common),
        ),
    ]
    print(f"load average before: {os.getloadavg()[0]:.2f}; permutations {b}")
    print(f"| what | seconds (best of {args.repeat}) |")
    print("|---|---|")
    for name, fn in rows:
        print(f"| {name} | {min(timed(fn) for _ in range(args.repeat)):.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
