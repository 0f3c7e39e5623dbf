"""Time and memory of `fastfair audit` by engine, Spark beside arrow and dask (#32).

Each audit is a child process, run one at a time: wall and CPU time, and two memory
figures, because the Spark engine is several processes:

- driver peak RSS: the `fastfair audit` process itself (``os.wait4``'s ``ru_maxrss``), the
  only process that holds the audit's results (for Spark: the Python driver);
- tree peak RSS: the largest sum, sampled every 0.2 s with psutil, of the RSS of the child
  and all its descendants (for Spark: the driver, the JVM that runs the local executors,
  and its Python workers; for arrow and dask the same as the driver's).

The machine's load average (1 min) is printed before and after each run. Logs come from
``benchmarks/real_shape.py`` (#28: float64 scores, string ids, two attributes):

    python benchmarks/real_shape.py --rows 1e7 --shape real --format parquet --dir /tmp/ff28
    python benchmarks/spark_audit.py /tmp/ff28/real_1e7.parquet --engine arrow dask spark

With ``--scheduler ADDRESS`` the dask audit runs on that dask.distributed scheduler (e.g. a
``LocalCluster(n_workers=2)`` started beside); its workers are not the child's descendants,
so the tree figure is then the client's alone and the workers' memory is not counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time


def tree_rss(pid: int) -> int:
    """Bytes resident in process `pid` and its descendants now (0 once it has ended)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def run(argv: list[str]) -> tuple[float, float, float, float, str]:
    """(wall s, CPU s, driver peak GiB, tree peak GiB, output tail) of one child."""
    start = time.perf_counter()
    proc = subprocess.Popen(  # from /: the Python given imports its own fastfair
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd="/"
    )
    peak, done = [0], threading.Event()

    def sample():  # never waits for the child (os.wait4 below reaps it)
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss(proc.pid))
            time.sleep(0.2)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    watcher.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{out[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 2**20, peak[0] / 2**30, out.strip()[-200:]


def audit_argv(path: str, engine: str, args) -> list[str]:
    argv = [sys.executable, "-m", "fastfair", "audit", path, "--label", "label"]
    argv += ["--score", "score", "--group", *args.groups, "--engine", engine, "--quiet"]
    if args.intersections:
        argv.append("--intersections")
    if not args.no_cluster:
        argv += ["--cluster", "user"]
    if engine == "spark":
        argv += ["--master", args.master]
    if engine == "dask" and args.scheduler:
        argv += ["--scheduler", args.scheduler]
    return argv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path")
    parser.add_argument("--engine", nargs="+", default=["arrow", "dask", "spark"])
    parser.add_argument("--groups", nargs="+", default=["g1", "g2"])
    parser.add_argument("--intersections", action="store_true")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--scheduler", help="dask scheduler address (e.g. a LocalCluster's)")
    args = parser.parse_args()
    print(f"{args.path}: --group {' '.join(args.groups)}"
          f"{' --intersections' if args.intersections else ''}"
          f"{'' if args.no_cluster else ' --cluster user'} --score score")  # fmt: skip
    print("| engine | wall (s) | CPU (s) | driver peak RSS (GiB) | tree peak RSS (GiB) | load |")
    print("|---|---|---|---|---|---|")
    for engine in args.engine:
        before = os.getloadavg()[0]
        wall, cpu, driver, tree, _ = run(audit_argv(args.path, engine, args))
        name = f"{engine} ({args.master})" if engine == "spark" else engine
        print(
            f"| {name} | {wall:.1f} | {cpu:.1f} | {driver:.2f} | {tree:.2f} | "
            f"{before:.1f}/{os.getloadavg()[0]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
