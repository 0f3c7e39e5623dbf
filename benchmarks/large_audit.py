"""End-to-end audit of a large synthetic log with the `fastfair audit` command line.

Writes the log in chunks (never the whole table in memory): a binary label, a score with 4
decimals, a group with 3 string values and a user id with n/10 users (each user in one
group), as Parquet; then runs

    fastfair audit LOG --label label --score score --group grp --cluster user

in a child process and records wall time and the child's peak RSS (ru_maxrss), with the
machine's load average, as a Markdown table row.

    python benchmarks/large_audit.py --rows 1e6 1e7          # quick sizes
    python benchmarks/large_audit.py --rows 1e8 --dir /tmp    # ~2 GB file, on a quiet machine
    python benchmarks/large_audit.py --rows 1e7 --engine arrow --audit-args "--metrics tpr"
    python benchmarks/large_audit.py --rows 1e7 --compare-engines

--phases runs one `--engine arrow` audit in a child process and prints the peak RSS
(VmHWM, reset between phases through /proc/self/clear_refs) and the time of each phase:
the read (summaries and parity columns), the coding of the users, their counting sort, the
gather in user order and the tests. tracemalloc cannot see numpy/Arrow buffers; VmHWM can.

--compare-engines times the one-machine out-of-core step itself (the audit's summaries:
confusion counts per group and score histograms per group and label) computed by plain
Arrow record batches (fastfair's --engine arrow), by dask's local threaded scheduler and by
DuckDB (SQL GROUP BY), in this process.

Files go to --dir (default: the system temporary folder), never into the repository, and
are reused when already there with the same size and seed.
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

CHUNK = 1_000_000
GROUPS = np.array(["group_a", "group_b", "group_c"])


def write_log(path: str, n: int, seed: int = 0) -> None:
    """The synthetic log, written chunk by chunk with a Parquet writer."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [("label", pa.int8()), ("score", pa.float64()), ("grp", pa.string()), ("user", pa.int64())]
    )
    n_users = max(n // 10, 1)
    rng = np.random.default_rng(seed)
    tmp = path + ".partial"
    with pq.ParquetWriter(tmp, schema) as writer:
        for start in range(0, n, CHUNK):
            m = min(CHUNK, n - start)
            user = rng.integers(0, n_users, m)
            g = user % 3
            score = np.round(rng.beta(2, 3, m) + 0.03 * g, 4).clip(0, 1)
            label = (rng.random(m) < score).astype(np.int8)
            table = pa.table(
                {"label": label, "score": score, "grp": GROUPS[g], "user": user}, schema=schema
            )
            writer.write_table(table)
    os.replace(tmp, path)


def run_audit(path: str, extra: list[str]) -> tuple[float, float, float, str]:
    """(seconds, CPU seconds (user + system, all threads), peak RSS in GiB of the child,
    first line of output) of one CLI audit.

    Each audit runs in a fresh child process, so ru_maxrss of RUSAGE_CHILDREN is the largest
    peak among the children run so far: run the sizes in increasing order.
    """
    argv = [sys.executable, "-m", "fastfair", "audit", path, "--label", "label"]
    argv += ["--score", "score", "--group", "grp", "--cluster", "user", "--quiet", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"audit failed ({done.returncode}): {done.stderr.strip()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB -> GiB
    return seconds, cpu, peak, done.stdout.strip().splitlines()[0]


def _vm(field: str = "VmHWM") -> float:
    """This process's peak RSS since the last reset (VmHWM) or RSS now (VmRSS), in GiB."""
    with open("/proc/self/status") as fh:
        line = next(x for x in fh if x.startswith(field + ":"))
    return int(line.split()[1]) / 2**20


def _phase_wrapper(name: str, fn, clock: list):
    """fn, printing the peak RSS and time of the phase it ends (then resetting the peak)."""

    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        now = time.perf_counter()
        print(f"| {name} | {now - clock[0]:.1f} | {_vm():.2f} | {_vm('VmRSS'):.2f} |", flush=True)
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset VmHWM to the current RSS
        clock[0] = time.perf_counter()
        return out

    return wrapped


def phases(path: str, extra: list[str]) -> None:
    """One arrow-engine audit in this process, peak RSS per phase (run it in a child)."""
    clock = [time.perf_counter()]
    import fastfair.cli
    from fastfair import _kernel_sums
    from fastfair.auditing import summaries as _summary_audit
    from fastfair.engines import arrow as _arrow
    from fastfair.engines import clusters as _sorted_clusters

    print("| phase | seconds | peak RSS (GiB) | RSS after (GiB) |\n| --- | ---: | ---: | ---: |")
    _phase_wrapper("start-up and imports", lambda: None, clock)()
    patches = [
        (_arrow, "summarise_arrow", "read: summaries + parity columns"),
        (_sorted_clusters.UserRows, "_user_codes", "user ids -> int32 codes"),
        (_kernel_sums, "cluster_order", "counting sort (int32 order)"),
        (_sorted_clusters, "_gather", "a column gathered in user order (group, label, score)"),
        (_sorted_clusters.UserRows, "sorted_chunks", "the group codes of the tested groups"),
        (_summary_audit, "audit_from_summary", "tests (kernel passes, bootstrap)"),
    ]
    for owner, attr, name in patches:
        setattr(owner, attr, _phase_wrapper(name, getattr(owner, attr), clock))
    argv = ["audit", path, "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--cluster", "user", "--quiet", "--engine", "arrow", *extra]
    fastfair.cli.main(argv)


def compare_engines(path: str) -> None:
    """Time the audit's summaries by Arrow batches, dask (local threads) and DuckDB."""
    import duckdb

    from fastfair.engines.arrow import summarise_arrow
    from fastfair.engines.dask import summarise_dask

    options = dict(label="label", groups=["grp"], pred=None, score="score", threshold=0.5)
    runs = {
        "Arrow record batches (--engine arrow)": lambda: summarise_arrow(
            path, pos_label=None, batch_rows=1 << 20, **options
        ),
        "dask, local threads (--engine dask)": lambda: summarise_dask(
            path, pos_label=None, scheduler="threads", **options
        ),
        "DuckDB GROUP BY": lambda: _duckdb_summary(duckdb, path),
    }
    print("| engine | seconds | load before |")
    print("| --- | ---: | --- |")
    for name, run in runs.items():
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        start = time.perf_counter()
        run()
        print(f"| {name} | {time.perf_counter() - start:.2f} | {load} |", flush=True)


def _duckdb_summary(duckdb, path: str):
    """The same counts by SQL: confusion cells and score histograms per group."""
    con = duckdb.connect()
    cells = con.execute(
        f"SELECT grp, label, score >= 0.5 AS pred, count(*) FROM read_parquet('{path}') "
        "GROUP BY ALL"
    ).fetchall()
    hist = con.execute(
        f"SELECT grp, label, score, count(*) FROM read_parquet('{path}') GROUP BY ALL"
    ).fetchnumpy()
    return cells, hist


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=float, default=[1e6])
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--audit-args",
        default="--permutations 999",
        help="extra arguments for fastfair audit (quoted), default: %(default)s",
    )
    parser.add_argument("--engine", default="auto", choices=["auto", "memory", "arrow", "dask"])
    parser.add_argument("--compare-engines", action="store_true")
    parser.add_argument("--phases", action="store_true", help="peak RSS and time per phase")
    parser.add_argument("--phases-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phases_child:
        return phases(args.phases_child, args.audit_args.split())
    if args.phases:
        for rows in args.rows:
            path = os.path.join(args.dir, f"fastfair_log_{int(rows)}_{args.seed}.parquet")
            if not os.path.exists(path):
                write_log(path, int(rows), args.seed)
            print(f"\n{int(rows):.0e} rows, load {os.getloadavg()[0]:.1f}:", flush=True)
            child = [sys.executable, __file__, "--phases-child", path]
            subprocess.run([*child, "--audit-args", args.audit_args], check=True)
        return
    if args.compare_engines:
        for rows in args.rows:
            path = os.path.join(args.dir, f"fastfair_log_{int(rows)}_{args.seed}.parquet")
            if not os.path.exists(path):
                write_log(path, int(rows), args.seed)
            print(f"\n{int(rows):.0e} rows:")
            compare_engines(path)
        return
    print(
        "| rows | file size | write (s) | audit (s) | CPU (s) | peak RSS (GiB) | load before "
        "| options |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for rows in args.rows:
        n = int(rows)
        path = os.path.join(args.dir, f"fastfair_log_{n}_{args.seed}.parquet")
        start = time.perf_counter()
        if not os.path.exists(path):
            write_log(path, n, args.seed)
        written = time.perf_counter() - start
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        extra = [*args.audit_args.split(), "--engine", args.engine]
        seconds, cpu, peak, _ = run_audit(path, extra)
        size = os.path.getsize(path) / 2**20
        print(
            f"| {n:.0e} | {size:,.0f} MiB | {written:.1f} | {seconds:.1f} | {cpu:.1f} | "
            f"{peak:.2f} | {load} | `--engine {args.engine} {args.audit_args}` |",
            flush=True,
        )


if __name__ == "__main__":
    main()
