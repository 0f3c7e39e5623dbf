"""Time fastfair against the tools a user would otherwise use, side by side, in one run.

Each method family has a module benchmarks/peers_<family>.py with run(quick) -> rows.

    python benchmarks/compare_peers.py [--quick] [family ...]
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = ["permutation", "auc", "generic", "parity", "wasserstein"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("families", nargs="*", default=FAMILIES)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    import fastfair

    print(
        f"fastfair {fastfair.__version__}, numpy {np.__version__}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d')}"
    )
    print("| family | task | n | fastfair (s) | peer | peer (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for family in args.families:
        try:
            module = importlib.import_module(f"peers_{family}")
        except ModuleNotFoundError:
            print(f"| {family} | (no benchmarks/peers_{family}.py) | | | | | |")
            continue
        for row in module.run(args.quick):
            print(
                f"| {family} | {row['task']} | {row['n']:,} | {row['fastfair_s']:.3g} | "
                f"{row['peer']} | {row['peer_s']:.3g} | {row['ratio']:,.3g}x |"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
