"""Type hints on the public functions of the permutation, resampling and AUC families.

Every parameter and the return value are annotated, and every annotation names real types
(the annotations are strings, `from __future__ import annotations`: each is evaluated here
in its module with the names the module imports for type checking only).
"""

import collections.abc
import importlib
import inspect

import numpy as np
import numpy.typing
import pandas
import pytest

FAMILIES = ("permutation", "resampling", "auc")
TYPING_ONLY = {
    "ArrayLike": numpy.typing.ArrayLike,
    "Hashable": collections.abc.Hashable,
    "Mapping": collections.abc.Mapping,
    "pandas": pandas,
    "np": np,
}


def public_functions() -> list:
    out = []
    for family in FAMILIES:
        module = importlib.import_module(f"fastfair.{family}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                out.append(pytest.param(obj, id=f"{family}.{name}"))
    return out


@pytest.mark.parametrize("func", public_functions())
def test_public_function_is_typed(func):
    signature = inspect.signature(func)
    untyped = [p for p, v in signature.parameters.items() if v.annotation is inspect._empty]
    assert untyped == [], f"{func.__name__}: parameters without type hints: {untyped}"
    assert signature.return_annotation is not inspect._empty, f"{func.__name__}: no return"
    namespace = {**vars(inspect.getmodule(inspect.unwrap(func))), **TYPING_ONLY}
    annotations = [v.annotation for v in signature.parameters.values()]
    for annotation in [*annotations, signature.return_annotation]:
        if isinstance(annotation, str):
            eval(annotation, namespace)  # a NameError names a type that does not exist
