"""Curated mutation run: plant plausible bugs in the statistics code, one at a time.

Each mutant in ``scripts/mutants.py`` replaces one exact snippet of a source file (Python
or Cython) by a wrong variant -- a formula, a boundary, an orientation, an allocation, a
kernel detail -- and the tests chosen for it are run against the mutated copy. A mutant is

* ``killed`` when a test fails or the run crashes (e.g. a segfault); a failing test is
  confirmed: it must fail again on a re-run with the mutant and pass without it, else the
  mutant is ``inconclusive`` (a test that fails under load -- a Dask worker that cannot
  start in time -- would otherwise "kill" any mutant). A run that exceeds the timeout is
  ``inconclusive (timeout)``, not a kill: on a loaded machine the whole suite can outlast
  any timeout with or without the mutant;
* ``survived`` when every selected test passes (a gap in the suite, or an equivalent
  mutant: see docs/testing.md for the recorded survivors and why they are accepted);
* ``not applicable`` when its file is missing or its snippet no longer occurs exactly
  once (the code changed or moved since the mutant was written). The run checks every
  selected mutant against the source before it builds anything and stops with exit status
  2, listing them, when any does not apply (``--check`` does only this check); with
  ``--allow-missing`` it runs the others and reports these, and still exits with status 1;
* ``error`` when pytest cannot run (collection or usage error): a broken mutant.

The score is killed / (killed + survived + inconclusive). Golden results (tests/test_golden.py) and
doctests are excluded on purpose: they pin printed values, so they would "kill" almost any
change without checking that the statistics are right, which is what this run measures.

Everything happens in a private copy of the tree (``--workdir``, default a new temporary
directory): the files of ``--source`` (default: this repository) are copied there,
built once with meson/ninja, and mutated in place with the original text restored after
each mutant (also on error or Ctrl-C). A Cython mutant rebuilds its extension with ninja.
The worktree you run it from is never modified, so it is safe to run on a shared checkout.
The tests, and every process they start (the CLI, Dask and Spark workers), must import the
mutated copy: an editable install of fastfair in the running Python would shadow it in those
processes through its import hook, which ``PYTHONPATH`` cannot override. So the tests run
under a Python without fastfair installed -- the running one if it has none, else a virtual
environment made in the work directory on the base interpreter's packages -- and the run
checks, in a child process, that the copy is what gets imported. The JSON report is
rewritten after every mutant, so an interrupted run keeps its results.

Needs the build tools (meson, ninja, cython) and the test dependencies in the running
Python. Not part of the default CI run (CI runs only ``--check``): a full run of the 96
mutants took 52 minutes on two cores shared with other jobs (validation/results/mutation.txt).

Usage::

    python scripts/mutation.py                      # every mutant, report on stdout
    python scripts/mutation.py --list               # list the mutants and their tests
    python scripts/mutation.py --check              # does every mutant apply? (no build)
    python scripts/mutation.py --only auc-ci-z,pv-mc-add-one
    python scripts/mutation.py --source /work/main --report mutation.json
    python scripts/mutation.py --mutants mutants_round2   # the set written without the tests
    python scripts/mutation.py --mutants mutants_round3   # a third one, also without them
    python scripts/mutation.py --confirm mutation.json    # re-check an earlier run's kills
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import importlib  # noqa: E402

from mutants import Mutant  # noqa: E402

# Runs pytest on the copy: drops an editable install's import hook (which would shadow the
# copy, as in .ci/alt_build.py) and checks that the copy is what gets imported.
RUNNER = """\
import pathlib, sys
src = pathlib.Path(sys.argv[1])
sys.meta_path = [f for f in sys.meta_path if "Mesonpy" not in type(f).__name__]
sys.path.insert(0, str(src))
import fastfair
assert pathlib.Path(fastfair.__file__).parent == src / "fastfair", fastfair.__file__
import pytest
# A spawned child (Dask's worker processes) imports this file as __mp_main__: without the
# guard it would start pytest again inside the worker, which then fails to start.
if __name__ == "__main__":
    sys.exit(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--import-mode=importlib",
                          "-o", "addopts=", "-m", "not slow", "--rootdir", str(src),
                          *sys.argv[2:]]))
"""


def copy_tree(source: pathlib.Path, dest: pathlib.Path) -> None:
    """Copy the files of the checkout `source` (tracked, and untracked but not ignored, with
    their working-tree contents) into `dest`."""
    files = subprocess.run(
        ["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        rel = name.decode()
        src = source / rel
        if not src.is_file():
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, out)


# -O1 without debug info: compiled mutants rebuild about twice as fast as with the default
# -O2 -g, and the kernels stay fast enough for the tests.
MESON_ARGS = ("-Doptimization=1", "-Ddebug=false")


def build(src: pathlib.Path, build_dir: pathlib.Path) -> None:
    if not (build_dir / "build.ninja").exists():
        subprocess.run(
            ["meson", "setup", *MESON_ARGS, str(build_dir), str(src)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    subprocess.run(["ninja", "-C", str(build_dir)], check=True, stdout=subprocess.DEVNULL)


def extension(build_dir: pathlib.Path, stem: str) -> pathlib.Path:
    found = sorted((build_dir / "csrc").glob(f"{stem}.*.so")) or sorted(
        (build_dir / "csrc").glob(f"{stem}*.pyd")
    )
    if not found:
        raise FileNotFoundError(f"no built extension {stem} in {build_dir / 'csrc'}")
    return found[0]


def install_extensions(src: pathlib.Path, build_dir: pathlib.Path, saved: pathlib.Path):
    """Copy every built extension into the copy's package and keep the originals."""
    saved.mkdir(exist_ok=True)
    for so in (build_dir / "csrc").glob("*.so"):
        shutil.copy2(so, src / "fastfair" / so.name)
        shutil.copy2(so, saved / so.name)


def copy_env(src: pathlib.Path, python: str) -> dict:
    """The environment of the tests: `src` first on the path, and `python` for Spark's
    workers, so that every process the tests start imports the copy."""
    path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))
    return dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=path,
        PYSPARK_PYTHON=python,
        PYSPARK_DRIVER_PYTHON=python,
    )


def imported_from(python: str, src: pathlib.Path) -> str:
    """Where a child process of `python` with the tests' environment imports fastfair."""
    proc = subprocess.run(
        [python, "-c", "import fastfair; print(fastfair.__file__)"],
        cwd=src.parent,
        capture_output=True,
        text=True,
        env=copy_env(src, python),
    )
    return proc.stdout.strip() or (proc.stderr.strip().splitlines() or ["nowhere"])[-1]


def register_copy(src: pathlib.Path) -> None:
    """Make the copy look installed to ``importlib.metadata`` (its version and the console
    script of pyproject's [project.scripts], which a test checks), as an install would: a
    minimal ``.dist-info`` beside the package, found through ``PYTHONPATH``."""
    import tomllib

    project = tomllib.loads((src / "pyproject.toml").read_text())["project"]
    info = src / f"{project['name']}-{project['version']}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    scripts = "".join(f"{k} = {v}\n" for k, v in project.get("scripts", {}).items())
    (info / "entry_points.txt").write_text(f"[console_scripts]\n{scripts}")


def python_for_tests(src: pathlib.Path, work: pathlib.Path) -> str:
    """A Python whose child processes import the copy `src`: the running one, or a virtual
    environment on the base interpreter's packages (without this checkout's editable
    install) made in `work`."""
    expected = str(src / "fastfair" / "__init__.py")
    if imported_from(sys.executable, src) == expected:
        return sys.executable
    venv = work / "venv"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    found = imported_from(str(python), src)
    if found != expected:
        raise SystemExit(
            f"the tests would import fastfair from {found}, not from the copy {expected}: "
            "run this script with a Python that has no fastfair installed"
        )
    return str(python)


@dataclasses.dataclass(frozen=True)
class Runner:
    """How the tests run: the RUNNER `script` under `python` (see python_for_tests)."""

    python: str
    script: pathlib.Path


def run_tests(src: pathlib.Path, runner: Runner, tests, timeout: float):
    """(outcome, seconds, tail of output) of pytest on `tests` in the copy."""
    start = time.perf_counter()
    cmd = [runner.python, str(runner.script), str(src), *tests]
    env = copy_env(src, runner.python)
    try:
        proc = subprocess.run(
            cmd, cwd=src, capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return "inconclusive (timeout)", time.perf_counter() - start, ""
    seconds = time.perf_counter() - start
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    tail = "\n".join(lines[-6:])
    if proc.returncode == 0:
        return "survived", seconds, tail
    if proc.returncode == 1:  # the failing test, for the report
        # a test's FAILED line first: an "ERROR" line may be output captured from a subprocess
        failed = [x for x in lines if x.startswith("FAILED")] or [
            x for x in lines if x.startswith("ERROR")
        ]
        return "killed", seconds, (failed[0] if failed else tail)[:300]
    if proc.returncode < 0:
        return f"killed (signal {-proc.returncode})", seconds, tail
    return f"error (pytest exit {proc.returncode})", seconds, tail


def load_mutants(module: str) -> list[Mutant]:
    """The MUTANTS list of ``scripts/<module>.py`` (``mutants``: the curated set)."""
    return list(importlib.import_module(module).MUTANTS)


def module_tests(m: Mutant, root: pathlib.Path) -> tuple[str, ...]:
    """A quick first selection for a mutant that names no tests.

    A mutant written without reading the tests (a second-round set) names none. Its first
    pass runs the test files named after its module or package (``fastfair/sweep/x.py``:
    ``tests/test_sweep.py``; ``fastfair/auditing/api.py``: ``tests/test_audit*.py``) or
    that mention its dotted module name; if every one passes, the whole default suite runs (see
    run_mutant), so the score is that of the default suite.
    """
    parts = pathlib.PurePath(m.file).with_suffix("").parts
    layer_names = {"api", "inference", "statistics", "ingest", "results", "__init__", "csrc"}
    keys = {p.lstrip("_") for p in parts[1:] if p not in layer_names}
    dotted = ".".join(parts)
    found = []
    for test in sorted((root / "tests").glob("test_*.py")):
        topic = test.stem.removeprefix("test_")
        named = any(key and (key in topic or topic in key) for key in keys)
        if test.name != "test_golden.py" and (named or dotted in test.read_text()):
            found.append(f"tests/{test.name}")
    return tuple(found)


# The files that killed most mutants of earlier rounds from outside their own module, run
# first in the whole-suite pass: pytest -x stops at the first failure, so a kill comes
# sooner, and a survivor still runs every file (rounds seven and eight).
_KILLING_FIRST = """alignment properties extremes generic stats audit audit_engines audit_families
first_hour difference_intervals tolerance compare sequential parity monitor auc sweep
score_runs slices calibration wasserstein spark parity_boundaries planning user_order
sorted_clusters pvalues level_power kernel_sums cli resampling probabilities permutation
dask""".split()


def whole_suite(root: pathlib.Path) -> tuple[str, ...]:
    """The default suite as explicit files, the golden test left out (it pins values, see
    above): the usual killers first, then every other test file alphabetically."""
    files = sorted(p.name for p in (root / "tests").glob("test_*.py"))
    first = [f"test_{n}.py" for n in _KILLING_FIRST if f"test_{n}.py" in files]
    rest = [n for n in files if n not in first and n != "test_golden.py"]
    return tuple(f"tests/{n}" for n in first + rest)


def applies(m: Mutant, root: pathlib.Path) -> str | None:
    """None if the mutant applies to the tree at `root`, else why not."""
    path = root / m.file
    if not path.is_file():
        return f"{m.file} does not exist"
    count = path.read_text().count(m.old)
    if count != 1:
        return f"snippet {'not found' if count == 0 else f'occurs {count} times'} in {m.file}"
    return None


def run_mutant(m: Mutant, src, build_dir, saved, runner, timeout):
    why = applies(m, src)
    if why is not None:
        return "not applicable", 0.0, why
    path = src / m.file
    text = path.read_text()
    stat = path.stat()
    try:
        path.write_text(text.replace(m.old, m.new))
        if path.suffix != ".py":  # Cython source or C header: rebuild what depends on it
            with open(src.parent / "mutated-sources.txt", "a") as fh:
                fh.write(m.file + "\n")
            before = {so: so.stat().st_mtime_ns for so in (build_dir / "csrc").glob("*.so")}
            try:
                subprocess.run(
                    ["ninja", "-C", str(build_dir)], check=True, capture_output=True, text=True
                )
            except subprocess.CalledProcessError as exc:
                return "error (build failed)", 0.0, exc.stdout[-800:]
            for so, mtime in before.items():
                if so.stat().st_mtime_ns != mtime:
                    shutil.copy2(so, src / "fastfair" / so.name)
        outcome, seconds, detail = _first_failure(m, src, runner, timeout)
        if outcome != "killed":
            return outcome, seconds, detail
        node = killing_test(detail)
        if node is None:
            return "inconclusive", seconds, f"{detail} [no failing test named]"
        again, more, _ = run_tests(src, runner, (node,), timeout)
        seconds += more
        if again != "killed":
            return "inconclusive", seconds, f"{detail} [passes on a re-run with the mutant]"
    finally:
        path.write_text(text)
        # the original mtime: ninja will not rebuild the restored source on its own (its
        # build outputs stay mutated, but only extensions rebuilt for a mutant are copied)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        if path.suffix != ".py":
            for so in saved.iterdir():
                shutil.copy2(so, src / "fastfair" / so.name)
    clean, more, _ = run_tests(src, runner, (node,), timeout)
    if clean != "survived":
        return "inconclusive", seconds + more, f"{detail} [fails without the mutant: {clean}]"
    return outcome, seconds + more, detail


def _first_failure(m: Mutant, src, runner, timeout):
    """Outcome of the mutant's own tests, or of its module's tests and then the suite."""
    if m.tests:
        return run_tests(src, runner, m.tests, timeout)
    first = module_tests(m, src)
    if not first:  # no test file is named after it: an empty selection would run pytest's
        return run_tests(src, runner, whole_suite(src), timeout)  # default paths (golden too)
    outcome, seconds, detail = run_tests(src, runner, first, timeout)
    if outcome != "survived":
        return outcome, seconds, detail
    outcome, more, detail = run_tests(src, runner, whole_suite(src), timeout)
    return outcome, seconds + more, detail


def only_ids(value: str) -> list[str]:
    """The ids of ``--only``: comma-separated, or ``@FILE`` with one id per line (which keeps
    them out of the process list, where other engineers would read the names)."""
    if value.startswith("@"):
        return pathlib.Path(value[1:]).read_text().split()
    return value.split(",")


def killing_test(detail: str) -> str | None:
    """The test id of a ``FAILED``/``ERROR`` summary line (None for any other text, and for
    the golden test and doctests, which pin values and are left out of the score)."""
    first = detail.split("\n")[0]
    if not first.startswith(("FAILED ", "ERROR ")):
        return None
    node = first.split(" ", 1)[1].split(" - ")[0].strip()
    pinned = node.startswith("tests/test_golden.py") or not node.startswith("tests/")
    return None if pinned or "::" not in node else node  # golden values and doctests: left out


def confirm_selection(mutants: list[Mutant], report: pathlib.Path) -> list[Mutant]:
    """The mutants killed in `report`, each with the test that killed it as its only test
    (a kill without a named test runs its usual selection again)."""
    results = {r["id"]: r for r in json.loads(report.read_text())["results"]}
    chosen = []
    for m in mutants:
        r = results.get(m.id)
        if r is None or r["outcome"] != "killed":
            continue
        node = killing_test(r["detail"])
        chosen.append(dataclasses.replace(m, tests=(node,)) if node else m)
    return chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=str(HERE.parent), help="tree to copy (git checkout)")
    ap.add_argument("--workdir", help="where the copy and its build live (default: temporary)")
    ap.add_argument(
        "--mutants",
        default="mutants",
        help="module of scripts/ holding the MUTANTS list (default: mutants, the curated set;"
        " mutants_round2, mutants_round3: sets written without reading the tests)",
    )
    ap.add_argument(
        "--only", help="comma-separated mutant ids, or @FILE: the ids in FILE, one per line"
    )
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant")
    ap.add_argument("--report", help="write the results as JSON to this file")
    ap.add_argument(
        "--tests", nargs="+", help="run these tests for every mutant instead of its own list"
    )
    ap.add_argument(
        "--confirm",
        metavar="REPORT",
        help="re-check the kills of an earlier --report: each killed mutant runs only the test "
        "that killed it (which must fail again with it and pass without it)",
    )
    ap.add_argument(
        "--skip-baseline",
        action="store_true",
        help="no unmutated run of the selected tests first (each kill is still confirmed "
        "without the mutant; a survivor needs no baseline)",
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="only check that every mutant applies to --source (exit status 2 if not)",
    )
    ap.add_argument(
        "--allow-missing",
        action="store_true",
        help="run the mutants that apply and report the others (exit status 1)",
    )
    args = ap.parse_args(argv)

    MUTANTS = load_mutants(args.mutants)
    mutants = MUTANTS
    ids = [m.id for m in MUTANTS]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate mutant ids: {sorted(dupes)}")
    if args.only:
        wanted = only_ids(args.only)
        unknown = set(wanted) - set(ids)
        if unknown:
            raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
        mutants = [m for m in MUTANTS if m.id in wanted]
    if args.tests:
        mutants = [dataclasses.replace(m, tests=tuple(args.tests)) for m in mutants]
    if args.confirm:
        mutants = confirm_selection(mutants, pathlib.Path(args.confirm))
    if args.list:
        for m in mutants:
            print(f"{m.id:28s} {m.file:26s} {m.why}\n{'':28s} tests: {' '.join(m.tests)}")
        print(f"{len(mutants)} mutants")
        return 0

    source = pathlib.Path(args.source).resolve()
    missing = [(m, why) for m in mutants if (why := applies(m, source)) is not None]
    for m, why in missing:
        print(f"NOT APPLICABLE: {m.id}: {why}", file=sys.stderr)
    if args.check or (missing and not args.allow_missing):
        if missing:
            print(
                f"{len(missing)} of {len(mutants)} mutants do not apply to {source}: update "
                "their file or snippet in scripts/mutants.py (or drop them)",
                file=sys.stderr,
            )
            return 2
        print(f"all {len(mutants)} mutants apply to {source}")
        return 0

    work = pathlib.Path(args.workdir or tempfile.mkdtemp(prefix="fastfair-mutation-"))
    src, build_dir, saved = work / "src", work / "build", work / "original-extensions"
    if src.resolve() == source or source in src.resolve().parents:
        raise SystemExit("--workdir must be outside --source")
    print(f"copy of {source} in {src}", flush=True)
    if src.exists():  # a fresh copy each run; the build directory is reused
        shutil.rmtree(src)
    copy_tree(source, src)
    # A reused build directory holds extensions built from the compiled mutants of the last
    # run (their restored sources keep old mtimes, see run_mutant): make those sources newer
    # so that ninja rebuilds them from the original text.
    dirty = work / "mutated-sources.txt"
    if dirty.exists():
        for rel in set(dirty.read_text().split()):
            if (src / rel).exists():
                os.utime(src / rel)
        dirty.unlink()
    build(src, build_dir)
    install_extensions(src, build_dir, saved)
    script = work / "run_pytest.py"
    script.write_text(RUNNER)
    register_copy(src)
    runner = Runner(python_for_tests(src, work), script)
    print(f"tests run under {runner.python}", flush=True)

    # the baseline runs every selection a mutant will use (the whole suite if one needs it)
    selected = sorted({t for m in mutants for t in (m.tests or module_tests(m, src))})
    if not all(m.tests or module_tests(m, src) for m in mutants):
        selected = list(whole_suite(src))
    if not args.skip_baseline:
        outcome, seconds, tail = run_tests(src, runner, selected, args.timeout * 4)
        print(f"unmutated baseline ({len(selected)} selections): {outcome} in {seconds:.0f} s")
        if outcome != "survived":
            print(tail)
            raise SystemExit("the selected tests fail without any mutant: fix that first")

    results = []
    started = time.perf_counter()
    for i, m in enumerate(mutants, 1):
        outcome, seconds, detail = run_mutant(m, src, build_dir, saved, runner, args.timeout)
        results.append(
            {
                "id": m.id,
                "file": m.file,
                "why": m.why,
                "outcome": outcome,
                "seconds": round(seconds, 1),
                "detail": detail,
            }
        )
        print(f"[{i:3d}/{len(mutants)}] {m.id:28s} {outcome:24s} {seconds:6.1f} s", flush=True)
        if outcome.startswith(("killed", "inconclusive")):
            print(f"      {detail}", flush=True)
        if args.report:  # after every mutant: an interrupted run keeps what it measured
            write_report(pathlib.Path(args.report), source, results)
    print_summary(results, time.perf_counter() - started)
    n = tally(results)
    if n["not_applicable"]:
        print(f"\nNOT APPLICABLE: {n['not_applicable']} mutants were not run", file=sys.stderr)
    return 0 if not n["errors"] and not n["not_applicable"] else 1


def tally(results: list[dict]) -> dict:
    """Counts of each outcome and the score killed / (killed + survived + inconclusive)."""
    killed = sum(r["outcome"].startswith("killed") for r in results)
    survived = sum(r["outcome"] == "survived" for r in results)
    unsure = sum(r["outcome"].startswith("inconclusive") for r in results)
    applicable = killed + survived + unsure
    return {
        "killed": killed,
        "survived": survived,
        "inconclusive": unsure,
        "not_applicable": sum(r["outcome"] == "not applicable" for r in results),
        "errors": sum(r["outcome"].startswith("error") for r in results),
        "score": killed / applicable if applicable else float("nan"),
    }


def print_summary(results: list[dict], seconds: float) -> None:
    """The counts, the score and every mutant that was not killed."""
    n = tally(results)
    applicable = n["killed"] + n["survived"] + n["inconclusive"]
    print(
        f"\n{n['killed']} killed, {n['survived']} survived, {n['inconclusive']} inconclusive, "
        f"{n['not_applicable']} not applicable, {n['errors']} errors; score "
        f"{n['killed']}/{applicable} = {100 * n['score']:.1f}% ({seconds / 60:.1f} min)"
    )
    titles = (
        ("survived", "survived"),
        ("inconclusive", "inconclusive (re-run with --only)"),
        ("not applicable", "not applicable"),
        ("error", "errors"),
    )
    for prefix, title in titles:
        for r in results:
            if r["outcome"].startswith(prefix):
                print(f"  {title}: {r['id']} ({r['file']}): {r['why']}\n      {r['detail']}")


def write_report(path: pathlib.Path, source: pathlib.Path, results: list[dict]) -> None:
    """The results as JSON, with the commit of `source` and the tally."""
    commit = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    summary = {"source": str(source), "commit": commit, **tally(results), "results": results}
    path.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
