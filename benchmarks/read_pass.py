"""The arrow engine's read pass against pyarrow's own read of the same columns (#28 point 3).

Each measurement is a child process (CPU time = user + system of all its threads, peak RSS
from ``os.wait4``), run one after the other, the machine's load average printed beside:

- ``floor``: ``pyarrow.csv.read_csv`` (CSV; the groups typed as dictionaries at read) or
  ``pyarrow.parquet.read_table`` (Parquet) of the five columns, whole;
- ``batches``: fastfair's reader alone (``fastfair.io.iter_batches``: CSV in 4 MiB blocks);
- ``summary``: the whole summary pass of the audit (``summarise_arrow``: read, checks, the
  cube, the sorted score runs and their one merge for g1, g2 and g1 & g2, the parity
  columns), as ``fastfair audit --engine arrow --group g1 g2 --intersections --cluster user``
  does before its tests.

    python benchmarks/read_pass.py /tmp/ff28/real_1e7.csv /tmp/ff28/real_1e7.parquet
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

CHILD = r"""
import sys
import pyarrow as pa, pyarrow.csv as pcsv, pyarrow.parquet as pq
path, what = sys.argv[1], sys.argv[2]
cols = ["label", "score", "g1", "g2", "user"]
if what == "floor":
    d = pa.dictionary(pa.int32(), pa.string())
    if path.endswith(".parquet"):
        n = pq.read_table(path, columns=cols, read_dictionary=["g1", "g2"]).num_rows
    else:
        opts = pcsv.ConvertOptions(include_columns=cols, column_types={"g1": d, "g2": d})
        n = pcsv.read_csv(path, convert_options=opts).num_rows
elif what == "batches":
    from fastfair.io import iter_batches
    n = sum(len(b["label"]) for _, b in iter_batches(path, cols, dictionary=["g1", "g2"]))
else:
    from fastfair.engines.arrow import summarise_arrow
    combos = [("g1",), ("g2",), ("g1", "g2")]
    s = summarise_arrow(path, label="label", groups=["g1", "g2"], pred=None, score="score",
                        threshold=None, pos_label=None, batch_rows=1 << 20, cluster="user",
                        combos=combos, keep_rows=True)
    sums = [s.scores[c] for c in combos]
    n = int(s.cube.counts.sum())
print(n)
"""


def child(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS GiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/")
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(out.decode()[-2000:])
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20


def main() -> None:
    print("| file | run | wall (s) | CPU (s) | peak RSS (GiB) | load |")
    print("|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        for what in ("floor", "batches", "summary"):
            before = os.getloadavg()[0]
            wall, cpu, rss = child([sys.executable, "-c", CHILD, path, what])
            name = os.path.basename(path)
            print(f"| {name} | {what} | {wall:.1f} | {cpu:.1f} | {rss:.2f} | "
                  f"{before:.1f}/{os.getloadavg()[0]:.1f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
