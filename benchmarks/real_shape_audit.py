"""Time and peak memory of `fastfair audit` on the logs of ``real_shape.py`` (#28).

Each run is a child process (wall time, CPU time and its own peak RSS from ``os.wait4``),
one at a time; the machine's load average is printed with every row, since the machine
may be shared. The floor is pyarrow's own read of the same columns (Parquet:
``pq.read_table``; CSV: ``pyarrow.csv.read_csv`` with the same column types), in a child too.

    python benchmarks/real_shape.py --rows 1e6 1e7 --shape real rounded --dir /tmp/ff28
    python benchmarks/real_shape_audit.py --rows 1e6 1e7 --shape real rounded \\
        --format parquet csv --engine arrow --dir /tmp/ff28
    python benchmarks/real_shape_audit.py --rows 1e7 --groups g1 g2 --intersections
    python benchmarks/real_shape_audit.py --rows 1e6 --peer /tmp/before/.venv/bin/python

Rows of the printed Markdown table: shape, rows, format, engine, wall (s), CPU (s), peak
RSS (GiB), load average (1 min) before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

FLOOR = """
import sys, pyarrow as pa
path, cols = sys.argv[1], sys.argv[2].split(",")
if path.endswith(".parquet"):
    import pyarrow.parquet as pq
    t = pq.read_table(path, columns=cols, read_dictionary=[c for c in cols if c[0] == "g"])
else:
    import pyarrow.csv as pcsv
    d = pa.dictionary(pa.int32(), pa.string())
    t = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(
        include_columns=cols, column_types={c: d for c in cols if c[0] == "g"}))
print(t.num_rows)
"""


def load() -> float:
    return os.getloadavg()[0]


def child(argv: list[str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS GiB, last line of output) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(  # from /: a peer must not import this checkout
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd="/"
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{out[-2000:]}")
    last = out.strip().splitlines()[-1] if out.strip() else ""
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20, last


def audit_argv(path, engine, groups, intersections, cluster, python=sys.executable) -> list:
    argv = [python, "-m", "fastfair", "audit", path, "--label", "label"]
    argv += ["--score", "score", "--group", *groups, "--engine", engine, "--quiet"]
    if intersections:
        argv.append("--intersections")
    if cluster:
        argv += ["--cluster", "user"]
    return argv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", nargs="+", default=["1e6"])
    parser.add_argument("--shape", nargs="+", default=["real"])
    parser.add_argument("--format", nargs="+", default=["parquet"])
    parser.add_argument("--engine", nargs="+", default=["arrow"])
    parser.add_argument("--groups", nargs="+", default=["g1"])
    parser.add_argument("--intersections", action="store_true")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--floor", action="store_true", help="also pyarrow's own read")
    parser.add_argument("--dir", default="/tmp/ff28")
    parser.add_argument("--peer", help="another Python (e.g. a build of main before a change)")
    args = parser.parse_args()
    print("| shape | rows | format | run | wall (s) | CPU (s) | peak RSS (GiB) | load |")
    print("|---|---|---|---|---|---|---|---|")
    for rows in args.rows:
        for shape in args.shape:
            for fmt in args.format:
                path = os.path.join(args.dir, f"{shape}_{rows}.{fmt}")
                runs = []
                if args.floor:
                    cols = ",".join(["label", "score", *args.groups, "user"])
                    runs.append(("pyarrow read", [sys.executable, "-c", FLOOR, path, cols]))
                for engine in args.engine:
                    argv = audit_argv(
                        path, engine, args.groups, args.intersections, not args.no_cluster
                    )
                    runs.append((f"audit --engine {engine}", argv))
                    if args.peer:
                        argv = audit_argv(path, engine, args.groups, args.intersections,
                                          not args.no_cluster, args.peer)  # fmt: skip
                        runs.append((f"peer: audit --engine {engine}", argv))
                for name, argv in runs:
                    before = load()
                    wall, cpu, rss, _ = child(argv)
                    print(
                        f"| {shape} | {rows} | {fmt} | {name} | {wall:.1f} | {cpu:.1f} | "
                        f"{rss:.2f} | {before:.1f}/{load():.1f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
