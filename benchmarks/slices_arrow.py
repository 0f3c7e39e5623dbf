"""The audit's slice search through the arrow engine (issue 29's target: 1e8 rows, < 120 s,
< 3 GiB), with a peer measured in the same run to read the machine's load.

The data are validation/slices_fwer.py's global-null set (8 correlated features of 2-10
equal-probability levels, prevalence 0.3, TPR 0.7, FPR 0.2), written chunk by chunk (one
chunk of rows in memory at a time) to a Parquet file of int8 columns: the levels are cut at
the latent's exact normal quantiles, so every chunk uses the same edges. The run is
``fastfair.audit(..., data=path, engine="arrow", slices=3)``: one read of the record batches
into the cube of counts, the audit's tests of the 8 attributes, then the slice search on
the cube (4,631 slices at depth 3, 999 joint permutations). Reported: wall and CPU seconds
(all threads) of the audit and of the slice search alone, peak resident memory, `uptime`,
and the peer (auc_test on 1e6 rows with 1,000 permutations, 4.49 s on the quiet machine).

    nice -n 10 python benchmarks/slices_arrow.py --rows 1e8 --dir /tmp/ffslices
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import time

import numpy as np

import fastfair

LEVELS = (2, 2, 3, 3, 4, 5, 6, 10)  # validation/slices_fwer.py's features
CHUNK = 1_000_000


def chunk_table(rng, m: int):
    """`m` rows: label, prediction and f0..f7 (int8), the features correlated through a
    shared normal, each cut into equal-probability levels of its N(0, 1) latent."""
    import pyarrow as pa
    from scipy.stats import norm

    shared = rng.standard_normal(m)
    columns = {}
    for k, levels in enumerate(LEVELS):
        latent = 0.6 * shared + 0.8 * rng.standard_normal(m)  # variance 1
        cuts = norm.ppf(np.linspace(0, 1, levels + 1)[1:-1])
        columns[f"f{k}"] = np.searchsorted(cuts, latent).astype(np.int8)
    y = rng.random(m) < 0.3
    pred = np.where(y, rng.random(m) < 0.7, rng.random(m) < 0.2)
    table = {"label": y.astype(np.int8), "prediction": pred.astype(np.int8), **columns}
    return pa.table(table)


def write(rows: int, folder: str) -> str:
    """The Parquet file of `rows` rows (reused when already there)."""
    import pyarrow.parquet as pq

    path = os.path.join(folder, f"slices_{rows:.0e}.parquet".replace("+0", ""))
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(29)
    partial = path + ".partial"
    writer = None
    for start in range(0, rows, CHUNK):
        table = chunk_table(rng, min(CHUNK, rows - start))
        writer = writer or pq.ParquetWriter(partial, table.schema)
        writer.write_table(table)
    writer.close()
    os.replace(partial, path)
    return path


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


class Timed:
    """Wall and CPU (all threads of the process) seconds of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


class Phases:
    """A progress factory (fastfair.audit's `progress`) that times each phase: the read
    ("rows"), the tests, the slice search ("slices")."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def __call__(self, total=None, desc="", **_):
        phases, start = self, time.perf_counter()

        class Bar:
            def update(self, n=1):
                pass

            def close(self):
                phases.seconds[desc] = phases.seconds.get(desc, 0.0) + time.perf_counter() - start

        return Bar()


def main(rows: int, folder: str, metrics: list[str]) -> None:
    with Timed() as made:
        path = write(rows, folder)
    print(f"data: {path} ({os.path.getsize(path) / 2**30:.2f} GiB; {made.wall:.0f} s to write)")
    print("before:", uptime())
    features = [f"f{k}" for k in range(len(LEVELS))]
    phases = Phases()
    with Timed() as run:
        res = fastfair.audit("label", "prediction", features, data=path, engine="arrow",
                             metrics=metrics, slices=3, n_permutations=999, random_state=0,
                             progress=phases)  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print("after:", uptime())
    sl = res.slices
    print(f"audit(engine='arrow', slices=3, metrics={metrics}), {res.n_rows:,} rows: "
          f"{run.wall:.1f} s wall, {run.cpu:.1f} s CPU; peak RSS {peak:.2f} GiB")  # fmt: skip
    for metric, search in sl.searches.items():
        print(f"  {metric}: {search.n_slices} slices tested, {search.n_cells} cells, "
              f"{len(search.slices)} significant")  # fmt: skip
    print("  notes:", sl.notes or "none")
    print("  phases (wall s):", {k: round(v, 1) for k, v in phases.seconds.items()})
    rng = np.random.default_rng(1)
    g = rng.integers(0, 2, 1_000_000)
    yy = rng.random(g.size) < 0.3
    s = rng.random(g.size) + 0.1 * yy
    with Timed() as peer:
        fastfair.auc_test(yy, s, g, n_permutations=1000, random_state=0)
    print(f"peer auc_test, 1e6 rows, 1,000 permutations: {peer.wall:.2f} s wall, "
          f"{peer.cpu:.2f} s CPU (4.49 s on the quiet machine: load factor "
          f"{peer.wall / 4.49:.1f})")  # fmt: skip
    print("end:", uptime())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--dir", default="/tmp/ffslices")
    parser.add_argument("--metrics", nargs="+", default=["tpr"])
    args = parser.parse_args()
    main(int(args.rows), args.dir, args.metrics)
