"""Start-up time of the command line: `import fastfair` and `fastfair --help`, whole processes.

    python benchmarks/cli_startup.py [--runs 15]

Each command runs --runs times, interleaved, after one warm-up run (bytecode cached, as
after `pip install`); the table gives the minimum and the median wall time with the load
average. Targets (issue #13, 2-core machine): `fastfair --help` under 0.4 s,
`import fastfair` under 0.25 s. Run it against an installed (non-editable) package: the
editable loader checks the build on every import.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "import numpy": [sys.executable, "-c", "import numpy"],
    "import fastfair": [sys.executable, "-c", "import fastfair"],
    "fastfair --help": [shutil.which("fastfair") or "fastfair", "--help"],
    "python -m fastfair --help": [sys.executable, "-m", "fastfair", "--help"],
}


#: Bytecode is written and read, as after `pip install` (PYTHONDONTWRITEBYTECODE=1 would
#: compile every module on every start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    for command in COMMANDS.values():
        wall(command)  # warm-up: bytecode written, files in the page cache
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    load = os.getloadavg()[0]
    for _ in range(runs):
        for name, command in COMMANDS.items():
            times[name].append(wall(command))
    load = max(load, os.getloadavg()[0])
    print(f"| command | min (s) | median (s) |   ({runs} runs each, load average <= {load:.1f})")
    print("|---|---|---|")
    for name, values in times.items():
        print(f"| `{name}` | {min(values):.3f} | {statistics.median(values):.3f} |")


if __name__ == "__main__":
    main()
