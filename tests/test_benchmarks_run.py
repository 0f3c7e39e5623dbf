"""The asv suite (benchmarks/benchmarks) still runs: every benchmark class is set up and
each of its timed methods called once, at the first value of each parameter (the smallest
size), so a renamed import or a changed signature fails here rather than in a nightly asv run.
"""

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
PREFIXES = ("time_", "peakmem_", "mem_", "track_")


def benchmark_classes() -> list:
    if not (BENCHMARKS / "benchmarks").is_dir():  # an installed package without the tree
        return []
    sys.path.insert(0, str(BENCHMARKS))
    try:
        package = importlib.import_module("benchmarks")
        out = []
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"benchmarks.{info.name}")
            for name, cls in vars(module).items():
                if inspect.isclass(cls) and cls.__module__ == module.__name__:
                    if any(m.startswith(PREFIXES) for m in dir(cls)):
                        out.append(pytest.param(cls, id=f"{info.name}.{name}"))
        return out
    finally:
        sys.path.remove(str(BENCHMARKS))


CLASSES = benchmark_classes()


@pytest.mark.skipif(not CLASSES, reason="benchmarks/ is not next to the tests")
@pytest.mark.parametrize("cls", CLASSES)
def test_benchmark_runs(cls):
    params = getattr(cls, "params", None)
    if params is None:
        first = ()
    elif params and isinstance(params[0], (list, tuple)):
        first = tuple(p[0] for p in params)
    else:
        first = (params[0],)
    bench = cls()
    if hasattr(bench, "setup"):
        bench.setup(*first)
    methods = [m for m in dir(bench) if m.startswith(PREFIXES)]
    assert methods
    for method in methods:
        getattr(bench, method)(*first)


def test_every_benchmark_module_has_classes():
    modules = {p.values[0].__module__ for p in CLASSES}
    files = {f"benchmarks.{p.stem}" for p in (BENCHMARKS / "benchmarks").glob("bench_*.py")}
    assert files and modules == files
