"""find_slices at scale (issue 29's target: 1e7 rows, 8 features, depth 3, 999 joint
permutations in < 10 s), with a peer measured in the same run to read the machine's load.

The data are validation/slices_fwer.py's global-null set (8 correlated features of 2-10
levels). Reported: wall and CPU seconds (all threads) of each phase and end to end, peak
memory, and the peer, auc_test on 1e6 rows with 1,000 permutations, whose quiet-machine time
is in benchmarks/RESULTS.md (4.49 s): the ratio of the two peer times is the load factor.

    python benchmarks/slices_speed.py [ROWS]
"""

from __future__ import annotations

import pathlib
import resource
import subprocess
import sys
import time

import numpy as np

import fastfair

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "validation"))
import slices_fwer


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(rows: int) -> None:
    rng = np.random.default_rng(0)
    feats = slices_fwer.features(rng, rows, correlated=True)
    y, pred = slices_fwer.labels(rng, rows, 0.7)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())

    def search():
        return fastfair.find_slices(
            None, y, pred, features=feats, max_depth=3, n_permutations=999, random_state=0
        )

    res, wall, cpu = timed(search)
    print(
        f"find_slices, {rows:,} rows, 8 features, depth 3, 999 permutations: {wall:.2f} s "
        f"wall, {cpu:.2f} s CPU; {res.n_slices} slices, {res.n_cells} cells"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"peak resident memory of the process (data included): {peak:.2f} GiB")
    rng = np.random.default_rng(1)
    g = rng.integers(0, 2, 1_000_000)
    yy = rng.random(g.size) < 0.3
    s = rng.random(g.size) + 0.1 * yy
    _, wall_peer, cpu_peer = timed(
        lambda: fastfair.auc_test(yy, s, g, n_permutations=1000, random_state=0)
    )
    print(f"peer auc_test, 1e6 rows, 1,000 permutations: {wall_peer:.2f} s wall, "
          f"{cpu_peer:.2f} s CPU (4.49 s wall on the quiet machine: load factor "
          f"{wall_peer / 4.49:.1f})")  # fmt: skip
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000)
