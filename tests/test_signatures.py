"""Type hints on every public signature.

Every public function of every public module, and every public method of the public
classes, annotates each parameter and its return value, and every annotation names real
types (the annotations are strings, ``from __future__ import annotations``: each is
evaluated here in its module with the names the module imports for type checking only).
"""

import ast
import collections.abc
import importlib
import inspect
import pathlib
import runpy

import numpy as np
import numpy.typing
import pandas
import pytest

PUBLIC_MODULES = runpy.run_path(str(pathlib.Path(__file__).with_name("_public_api.py")))[
    "PUBLIC_MODULES"
]  # the one list of public modules (tests/_public_api.py)
TYPING_ONLY = {
    "ArrayLike": numpy.typing.ArrayLike,
    "Hashable": collections.abc.Hashable,
    "Mapping": collections.abc.Mapping,
    "Sequence": collections.abc.Sequence,
    "Iterator": collections.abc.Iterator,
    "Callable": collections.abc.Callable,
    "pandas": pandas,
    "pd": pandas,
    "np": np,
}
for name, module in (("pa", "pyarrow"), ("dd", "dask.dataframe")):
    try:
        TYPING_ONLY[name] = importlib.import_module(module)
    except ImportError:  # an optional extra: its annotations are checked where installed
        pass


def _namespace(module) -> dict:
    """The module's names plus those it imports under ``if TYPE_CHECKING:``."""
    namespace = {**vars(module), **TYPING_ONLY}
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            try:
                exec(compile(ast.Module(node.body, []), module.__name__, "exec"), namespace)
            except ImportError:  # an optional extra that is not installed
                pass
    return namespace


def _own(obj, module_name: str) -> bool:
    return getattr(obj, "__module__", "").startswith("fastfair")


def public_callables() -> list:
    out, seen = [], set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isfunction(obj) and _own(obj, module_name):
                found = [(f"{module_name}.{name}", obj)]
            elif inspect.isclass(obj) and _own(obj, module_name):
                found = [
                    (f"{module_name}.{name}.{attr}", value)
                    for attr, value in vars(obj).items()
                    if inspect.isfunction(value) and not attr.startswith("_")
                ]
            else:
                found = []
            for label, func in found:
                key = inspect.unwrap(func)
                if key not in seen:
                    seen.add(key)
                    out.append(pytest.param(func, id=label))
    return out


@pytest.mark.parametrize("func", public_callables())
def test_public_callable_is_typed(func):
    signature = inspect.signature(func)
    untyped = [
        p
        for p, v in signature.parameters.items()
        if v.annotation is inspect._empty and p not in ("self", "cls")
    ]
    assert untyped == [], f"{func.__qualname__}: parameters without type hints: {untyped}"
    assert signature.return_annotation is not inspect._empty, f"{func.__qualname__}: no return"
    namespace = _namespace(inspect.getmodule(inspect.unwrap(func)))
    annotations = [v.annotation for v in signature.parameters.values()]
    for annotation in [*annotations, signature.return_annotation]:
        if isinstance(annotation, str):
            eval(annotation, namespace)  # a NameError names a type that does not exist


def test_an_untyped_function_is_caught():
    """The check above fails on a function without hints (it is not vacuous)."""

    def untyped(y_true, group: str = "a"):
        return y_true

    with pytest.raises(AssertionError, match="y_true"):
        test_public_callable_is_typed(untyped)
    assert len(public_callables()) > 60
