"""What the exact AUC of float64 scores costs the dask client (#28 point 2).

On a LocalCluster (2 worker processes, 1 thread each), the DeLong AUC of a Parquet log of
``real_shape.py`` (float64 scores) by

- ``fastfair.dask.placement_sums`` (dask's distributed sort by score; each partition's
  placement sums, a few integers per group, reach the client), and
- ``fastfair.dask.score_stats`` (the score histograms, the path the AUC took before #28:
  as large as the data when scores are untied),

each in a fresh client process: wall time, the client's peak RSS, and the pickled size of
what the client received. The two AUCs are compared.

    python benchmarks/dask_client_memory.py /tmp/ff28/real_1e7.parquet
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = """
import json, pickle, resource, sys, time
import dask.dataframe as dd
import distributed
import fastfair.dask

path, how = sys.argv[1], sys.argv[2]
cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
client = distributed.Client(cluster)
df = dd.read_parquet(path, columns=["label", "score", "g1"], split_row_groups=True)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
start = time.perf_counter()
if how == "sort":
    summary = fastfair.dask.placement_sums(df, "label", "score", "g1")
else:
    summary = fastfair.dask.score_stats(df, "label", "score", "g1")
auc = summary.delong().auc.tolist()
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps(dict(how=how, wall=wall, client_peak_gib=peak, before_gib=base,
                      received_bytes=len(pickle.dumps(summary)), auc=auc,
                      partitions=df.npartitions)))
client.close()
cluster.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path")
    args = parser.parse_args()
    print("| summary | partitions | wall (s) | client peak RSS (GiB) | received | load |")
    print("|---|---|---|---|---|---|")
    aucs = []
    for how in ("sort", "histogram"):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD, args.path, how], cwd="/",
                             capture_output=True, text=True, check=True)  # fmt: skip
        res = json.loads(out.stdout.strip().splitlines()[-1])
        aucs.append(res["auc"])
        name = "placement sums (sort)" if how == "sort" else "score histograms (before)"
        print(
            f"| {name} | {res['partitions']} | {res['wall']:.1f} | "
            f"{res['client_peak_gib']:.2f} (at start {res['before_gib']:.2f}) | "
            f"{res['received_bytes'] / 2**20:.2f} MiB | {load:.1f} "
            f"({time.perf_counter() - start:.0f} s with the cluster) |",
            flush=True,
        )
    diff = max(abs(a - b) / b for a, b in zip(*aucs))
    print(f"\nlargest relative AUC difference between the two: {diff:.1e}")


if __name__ == "__main__":
    main()
