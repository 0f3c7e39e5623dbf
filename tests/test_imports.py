"""Importing fastfair stays cheap: no scipy, pandas, pyarrow or matplotlib until used."""

import subprocess
import sys

import pytest

HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "dask")


def loaded_after(statement: str) -> list[str]:
    code = f"{statement}\nimport sys\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_fastfair_loads_no_heavy_dependency():
    mods = loaded_after("import fastfair, fastfair.cli")
    heavy = sorted({m.split(".")[0] for m in mods} & set(HEAVY))
    assert heavy == [], f"`import fastfair` loaded {heavy}"


def test_lazy_scipy_resolves_on_first_use():
    mods = loaded_after(
        "import fastfair\nfrom fastfair._scipy import special\nassert special.ndtr(0.0) == 0.5"
    )
    assert "scipy.special" in mods


def test_package_ships_type_information():
    import pathlib

    import fastfair

    assert (pathlib.Path(fastfair.__file__).parent / "py.typed").is_file()


# --------------------------------------------------------------------------------------
# Module structure: every module imports on its own, no import cycle, and no module reads
# a private name of a public module (shared helpers live in private leaf modules).

import ast  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "fastfair"


def _modules(package: pathlib.Path = PACKAGE) -> dict[str, pathlib.Path]:
    """Dotted name -> file of every Python module of the package."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _fake_package(tmp_path: pathlib.Path, files: dict[str, str]) -> dict[str, pathlib.Path]:
    """A package ``fastfair`` under tmp_path holding `files` (path -> source; an empty
    __init__.py in every folder), and its modules as `_modules` names them: the planted
    violations the checks below must see."""
    root = tmp_path / "fastfair"
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in (path.parent, *path.parent.parents):
            if folder == tmp_path:
                break
            (folder / "__init__.py").touch()
        path.write_text(source)
    return _modules(root)


def _is_package(name: str, modules) -> bool:
    return modules[name].name == "__init__.py"


def _imports(name: str, modules, *, top_level_only: bool):
    """(imported module, imported name or None, node) for each fastfair import of `name`."""
    tree = ast.parse(modules[name].read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "fastfair":
                    yield alias.name, None, node
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "fastfair":
                continue
            for alias in node.names:
                yield base, alias.name, node


def _graph(modules) -> dict[str, set[str]]:
    """Module-level import edges between modules of the package.

    `from pkg import x` is an edge to pkg.x when x is a module, else to pkg. Edges into the
    top-level package (its __init__ re-exports everything) are left out: importing any
    submodule runs it first by construction."""
    graph = {}
    for name in modules:
        edges = set()
        for base, item, _ in _imports(name, modules, top_level_only=True):
            target = f"{base}.{item}" if item and f"{base}.{item}" in modules else base
            if target in modules and target != "fastfair" and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first search meets, as [a, b, ..., a]."""
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])
    return cycles


def test_no_import_cycle():
    cycles = _cycles(_graph(_modules()))
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_cycle_search_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    assert _cycles({"a": {"a"}}) == [["a", "a"]]


_IMPORT_EACH = """
import importlib, json, sys
failures = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] == "fastfair"]:
        if str(getattr(sys.modules[loaded], "__file__", "")).endswith(".py"):
            del sys.modules[loaded]  # compiled kernels stay: they import nothing of ours
    try:
        importlib.import_module(name)
    except Exception as exc:
        failures.append(f"{name}: {type(exc).__name__}: {exc}")
print(json.dumps(failures))
"""


def test_every_module_imports_on_its_own():
    """Each module imported first, with no other module of the package loaded (one
    interpreter; the Python modules are dropped from sys.modules before each import)."""
    names = [n for n in _modules() if n != "fastfair.__main__"]
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *names], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []


def test_generic_is_a_deprecated_alias_of_resampling():
    import importlib

    import fastfair.resampling

    sys.modules.pop("fastfair.generic", None)
    with pytest.warns(DeprecationWarning, match="fastfair.resampling"):
        generic = importlib.import_module("fastfair.generic")
    assert generic.mean_difference_test is fastfair.resampling.mean_difference_test
    assert sorted(generic.__all__) == sorted(fastfair.resampling.__all__)


#: The files of a family's subpackage, in the order data flow through them.
LAYERS = ("results", "ingest", "statistics", "inference", "api")
#: The command line's layers: arguments -> output files -> data loading -> writing -> commands.
CLI_LAYERS = ("arguments", "output", "loading", "writing", "commands")
#: The audit's layers: result -> options -> report -> the audit -> the audit from summaries.
AUDIT_LAYERS = ("results", "ingest", "report", "api", "summaries")
#: The engines' layers: group coding -> files -> summaries -> the cube -> the audit's summary
#: -> clusters -> engines (what dask and spark share first) -> choice.
ENGINE_LAYERS = (
    "groups", "files", "summaries", "cube", "attributes", "clusters", "arrow", "distributed",
    "dask", "spark", "choose",
)  # fmt: skip
#: Calibration's estimators (fit -> transform) sit between its inference and its functions.
CALIBRATION_LAYERS = ("results", "ingest", "statistics", "inference", "estimators", "api")
#: Subpackages whose layers are not the families' (every other subpackage has LAYERS).
PACKAGE_LAYERS = {
    "fastfair.calibration": CALIBRATION_LAYERS,
    "fastfair.cli": CLI_LAYERS,
    "fastfair.engines": ENGINE_LAYERS,
    "fastfair.auditing": AUDIT_LAYERS,
}


def _layer_violations(modules) -> list[str]:
    """`module -> sibling` for each module-level import of a later layer of its subpackage."""
    bad = []
    for name in modules:
        package, _, layer = name.rpartition(".")
        layers = PACKAGE_LAYERS.get(package, LAYERS)
        if layer not in layers or package.count(".") != 1:
            continue
        for base, item, _ in _imports(name, modules, top_level_only=True):
            target = f"{base}.{item}" if item and f"{base}.{item}" in modules else base
            other = target.rpartition(".")[2]
            if target.rpartition(".")[0] == package and other in layers:
                if layers.index(other) >= layers.index(layer):
                    bad.append(f"{name} -> {target}")
    return bad


def test_family_layers_import_only_earlier_layers():
    """results <- ingest <- statistics <- inference <- api inside each family, and
    arguments <- output <- loading <- writing <- commands in fastfair.cli, and the
    engines' and the auditing package's layers."""
    modules = _modules()
    assert any(n.endswith(".permutation.api") for n in modules)
    assert {f"fastfair.cli.{layer}" for layer in CLI_LAYERS} <= set(modules)
    assert {f"fastfair.sweep.{layer}" for layer in LAYERS} <= set(modules)
    assert {f"fastfair.compare.{layer}" for layer in LAYERS} <= set(modules)
    assert {f"fastfair.monitor.{layer}" for layer in LAYERS} <= set(modules)
    assert {f"fastfair.calibration.{layer}" for layer in CALIBRATION_LAYERS} <= set(modules)
    assert _layer_violations(modules) == []


def test_layer_check_sees_a_backward_import(tmp_path):
    modules = _fake_package(tmp_path, {
        "fam/ingest.py": "from fastfair.fam.api import run\n",
        "fam/api.py": "from fastfair.fam.ingest import check\n",
    })  # fmt: skip
    assert _layer_violations(modules) == ["fastfair.fam.ingest -> fastfair.fam.api"]


def _init_statements(path: pathlib.Path) -> list[str]:
    """Statements of a family's __init__.py other than its docstring, imports and __all__."""
    body = ast.parse(path.read_text()).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [
        f"{path.parent.name}/__init__.py:{node.lineno}"
        for node in body
        if not isinstance(node, ast.ImportFrom)
        and not (
            isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]
        )
    ]


def test_every_family_is_a_layered_subpackage_with_a_re_export_only_init():
    """A family (a subpackage with an api.py) has no code in its __init__.py; the tolerance
    tests, once a module, are one of them."""
    families = sorted(p.parent for p in PACKAGE.glob("*/api.py"))
    assert PACKAGE / "tolerance" in families and not (PACKAGE / "tolerance.py").exists()
    bad = [s for family in families for s in _init_statements(family / "__init__.py")]
    assert bad == []


def test_re_export_check_sees_code(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text('"""Doc."""\nfrom a import b\n__all__ = ["b"]\nc = b + 1\n')
    assert _init_statements(init) == [f"{tmp_path.name}/__init__.py:4"]


def test_cli_layer_check_sees_a_backward_import(tmp_path):
    modules = _fake_package(tmp_path, {
        "cli/loading.py": "from fastfair.cli import writing\n",
        "cli/writing.py": "from fastfair.cli.loading import read_table\n",
    })  # fmt: skip
    assert _layer_violations(modules) == ["fastfair.cli.loading -> fastfair.cli.writing"]


# --------------------------------------------------------------------------------------
# The engines (#27): rows -> mergeable summaries, below the families and the command line.

#: The method families: subpackages with the layers results <- ... <- api.
FAMILIES = sorted(p.parent.name for p in PACKAGE.glob("*/api.py") if p.parent.name != "auditing")
#: Thin modules that keep the documented import paths of the engines working.
RE_EXPORTS = {
    "fastfair.stats": "fastfair.engines",  # summaries and cube
    "fastfair.io": "fastfair.engines.files",
    "fastfair.dask": "fastfair.engines.dask",
    "fastfair.spark": "fastfair.engines.spark",
}


def _all_imports(name: str, modules) -> set[str]:
    """Every fastfair module `name` imports, at module level or inside a function."""
    out = set()
    for base, item, _ in _imports(name, modules, top_level_only=False):
        out.add(f"{base}.{item}" if item and f"{base}.{item}" in modules else base)
    return out


def _engine_violations(modules) -> list[str]:
    """Engines importing a family's internals (anything but its package, whose __init__
    re-exports the public API), the command line or the auditing package; families
    importing the engines, the command line or the auditing package."""
    bad = []
    for name in modules:
        parts = name.split(".")
        if len(parts) < 2:
            continue
        for target in sorted(_all_imports(name, modules)):
            tparts = target.split(".")
            if len(tparts) < 2:
                continue
            if parts[1] == "engines" and (
                (tparts[1] in FAMILIES and len(tparts) > 2) or tparts[1] in ("cli", "auditing")
            ):
                bad.append(f"{name} -> {target}")
            if parts[1] in FAMILIES and tparts[1] in ("engines", "cli", "auditing"):
                bad.append(f"{name} -> {target}")
    return bad


def test_engines_import_no_family_internals_and_families_no_engines():
    modules = _modules()
    assert {f"fastfair.engines.{layer}" for layer in ENGINE_LAYERS} <= set(modules)
    assert {"permutation", "auc", "parity", "planning"} <= set(FAMILIES)
    assert _engine_violations(modules) == []


def test_engine_check_sees_both_directions(tmp_path):
    modules = _fake_package(tmp_path, {
        "auc/api.py": "from fastfair.engines import summaries\n",
        "engines/summaries.py": "from fastfair.auc import DeLongResult\n"
        "def f():\n    from fastfair.auc.inference import _pack\n",
    })  # fmt: skip
    global FAMILIES
    saved, FAMILIES = FAMILIES, ["auc"]
    try:
        assert _engine_violations(modules) == [
            "fastfair.auc.api -> fastfair.engines.summaries",
            "fastfair.engines.summaries -> fastfair.auc.inference",  # the package is fine
        ]
    finally:
        FAMILIES = saved


def _cli_violations(modules) -> list[str]:
    """`cli module -> target` for each import of the command line (module level or in a
    function) outside the public API: ``fastfair``, its public subpackages and modules by
    their package name (``fastfair.planning``, ``fastfair.engines``: no ``.api``,
    ``.summaries``, ...), the ``auditing`` package, ``io`` and the command line itself."""
    bad = []
    for name in modules:
        if name.split(".")[:2] != ["fastfair", "cli"]:
            continue
        for target in sorted(_all_imports(name, modules)):
            parts = target.split(".")
            if target == "fastfair" or parts[1] in ("cli", "auditing"):
                continue
            if len(parts) == 2 and not parts[1].startswith("_"):
                continue  # a public subpackage or module (fastfair.io, fastfair.planning)
            bad.append(f"{name} -> {target}")
    return bad


def test_cli_imports_only_the_public_api_auditing_and_io():
    """#27: the command line parses, calls fastfair.audit(..., engine=) and writes: it
    reaches no engine or family internals and no private leaf."""
    modules = _modules()
    assert _cli_violations(modules) == []


def test_cli_check_sees_internals(tmp_path):
    modules = _fake_package(tmp_path, {
        "cli/commands.py": "import fastfair\nfrom fastfair import io\n"
        "from fastfair.auditing import api\nfrom fastfair.engines import choose_engine\n"
        "from fastfair._metrics import ALL\n"
        "def f():\n    from fastfair.engines.dask import dask_scheduler\n"
        "    from fastfair.planning.api import sample_size\n",
    })  # fmt: skip
    assert _cli_violations(modules) == [
        "fastfair.cli.commands -> fastfair._metrics",
        "fastfair.cli.commands -> fastfair.engines.dask",
        "fastfair.cli.commands -> fastfair.planning.api",
    ]


def _package_graph(modules) -> dict[str, set[str]]:
    """Import edges between the package's subpackages and top-level modules, from every
    import (module level and inside functions); the top-level package left out."""
    graph: dict[str, set[str]] = {}
    for name in modules:
        source = ".".join(name.split(".")[:2])
        for target in _all_imports(name, modules):
            other = ".".join(target.split(".")[:2])
            if "fastfair" not in (source, other) and other != source:
                graph.setdefault(source, set()).add(other)
            graph.setdefault(other, set())
        graph.setdefault(source, set())
    graph.pop("fastfair", None)
    return {k: v - {"fastfair"} for k, v in graph.items()}


def test_no_import_cycle_between_packages():
    """No cycle anywhere: between subpackages and leaf modules, lazy imports inside
    functions counted too (the module-level graph is test_no_import_cycle's)."""
    cycles = _cycles(_package_graph(_modules()))
    assert cycles == [], "package cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_package_graph_sees_a_lazy_cycle(tmp_path):
    modules = _fake_package(tmp_path, {
        "a/api.py": "from fastfair.b import x\n",
        "b/api.py": "def f():\n    from fastfair.a.api import y\n",
    })  # fmt: skip
    assert _cycles(_package_graph(modules)) == [["fastfair.a", "fastfair.b", "fastfair.a"]]


@pytest.mark.parametrize(("old", "new"), sorted(RE_EXPORTS.items()))
def test_old_import_paths_are_thin_re_exports(old, new):
    """fastfair.stats, fastfair.io and fastfair.dask keep working: each public name is the
    engines' object itself, and the module holds nothing but imports and __all__."""
    import importlib

    module, target = importlib.import_module(old), importlib.import_module(new)
    assert module.__all__
    for name in module.__all__:
        assert getattr(module, name) is getattr(target, name)
    assert _init_statements(_modules()[old]) == []


def _package(name: str) -> str:
    """fastfair.parity.api -> parity; fastfair._pvalues -> _pvalues (a leaf is its own)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _private_names_across_packages(modules) -> list[str]:
    """`module: target.name` for each private name (not a module: the compiled kernels are
    private modules) that a module reads from a module of another package, imported by name
    or as an attribute of an imported module."""
    bad = []
    for name, path in modules.items():
        bound = {}
        for base, item, node in _imports(name, modules, top_level_only=False):
            if item is not None and f"{base}.{item}" in modules:
                base, item = f"{base}.{item}", None
            if base == "fastfair" or _package(base) == _package(name):
                continue
            if item is not None and item.startswith("_") and not item.startswith("__"):
                bad.append(f"{name}: {base}.{item}")
            for alias in node.names:
                if item is None and alias.name in (base, base.rpartition(".")[2]):
                    bound[alias.asname or alias.name] = base
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                continue
            owner = ast.unparse(node.value)  # a bound name, or a dotted path after `import a.b`
            owner = bound.get(owner, owner if owner in modules else None)
            if owner is not None and owner != "fastfair" and _package(owner) != _package(name):
                bad.append(f"{name}: {owner}.{node.attr}")
    return sorted(set(bad))


def test_no_private_name_used_across_packages():
    """Shared helpers are public names of their leaf modules (fastfair._pvalues.
    orient_extremes, fastfair._clustered.cv_bandwidth, ...): a private name is used only
    inside its own package (#27), so no family reads another's private helpers either."""
    assert _private_names_across_packages(_modules()) == []


def test_private_name_check_sees_both_forms(tmp_path):
    modules = _fake_package(tmp_path, {
        "_pvalues.py": "_oriented = 1\n",
        "sweep/api.py": "from fastfair._pvalues import _oriented\n"
        "from fastfair import _pvalues\nx = _pvalues._oriented\n",
        "parity/inference.py": "_a = _b = _c = _own = 1\n",
        "parity/api.py": "from fastfair.parity.inference import _own\n"
        "from fastfair.parity import inference\ny = inference._own\n",  # its own package
        "sweep/ingest.py": "import fastfair.parity.inference\n"
        "import fastfair.parity.inference as inf\n"
        "a = fastfair.parity.inference._a\nb = inf._b\n"
        "from fastfair.parity.inference import _c\n",
    })  # fmt: skip
    assert _private_names_across_packages(modules) == [
        "fastfair.sweep.api: fastfair._pvalues._oriented",
        "fastfair.sweep.ingest: fastfair.parity.inference._a",
        "fastfair.sweep.ingest: fastfair.parity.inference._b",
        "fastfair.sweep.ingest: fastfair.parity.inference._c",
    ]
