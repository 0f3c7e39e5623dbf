"""The list of public modules the API walks use (tests/_public_api.py) is complete (#27)."""

import importlib
import pathlib
import pkgutil
import runpy

import fastfair

_LIST = runpy.run_path(str(pathlib.Path(__file__).with_name("_public_api.py")))
PUBLIC_MODULES, NOT_WALKED = _LIST["PUBLIC_MODULES"], _LIST["NOT_WALKED"]


def package_modules() -> set[str]:
    """fastfair and each of its modules and subpackages whose name has no underscore."""
    return {"fastfair"} | {
        f"fastfair.{m.name}" for m in pkgutil.iter_modules(fastfair.__path__)
        if not m.name.startswith("_")
    }  # fmt: skip


def test_every_public_module_is_walked_or_excluded_with_a_reason():
    found = package_modules()
    listed = set(PUBLIC_MODULES) | set(NOT_WALKED)
    assert sorted(found - listed) == [], "add to PUBLIC_MODULES (or NOT_WALKED, with why)"
    assert sorted(listed - found) == [], "no such module: remove it from the list"
    assert not set(PUBLIC_MODULES) & set(NOT_WALKED)
    assert len(PUBLIC_MODULES) == len(set(PUBLIC_MODULES))


def test_every_walked_module_declares_its_public_names():
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        assert module.__all__, name
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert missing == [], f"{name}.__all__ names what it does not define: {missing}"
