"""Deprecated names of arguments and result fields, kept working for one release.

fastfair uses one vocabulary (docs/conventions.md). Names that it replaced stay accepted
until :data:`REMOVED_IN`, with a :class:`DeprecationWarning` naming the new one:

* :func:`renamed_arguments` -- a function decorator mapping old keyword arguments to the new
  ones (positional calls are unaffected: the renamed parameters keep their positions);
* :func:`renamed_attributes` -- a class decorator adding read-only properties under the old
  names of result fields.

A decorated function runs one frame deeper, so a warning that fastfair raises for the user
uses :func:`user_stacklevel` rather than a fixed ``stacklevel``.

Examples
--------
>>> import warnings
>>> @renamed_arguments(y="y_true")
... def f(y_true):
...     return y_true
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     f(y=1)
1
>>> print(caught[0].message)
f: argument 'y' is deprecated since fastfair 0.1 and will be removed in 0.2; use 'y_true'
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

#: the release in development (``fastfair.__version__`` 0.1.0.dev0) renamed the names, and
#: the next minor release removes them (tests/test_deprecations.py checks the two against
#: ``fastfair.__version__``)
DEPRECATED_SINCE = "0.1"
REMOVED_IN = "0.2"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside fastfair.

    ``warnings.warn(message, stacklevel=user_stacklevel())`` names the user's line whatever
    fastfair frames (helpers, decorators) lie between it and the warning.
    """
    frame = sys._getframe(1)  # the frame that calls warnings.warn: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def _message(kind: str, owner: str, old: str, new: str) -> str:
    return (
        f"{owner}: {kind} {old!r} is deprecated since fastfair {DEPRECATED_SINCE} "
        f"and will be removed in {REMOVED_IN}; use {new!r}"
    )


def renamed_arguments(**old_to_new: str) -> Callable[[F], F]:
    """Accept the old keyword names ``old=...`` of renamed parameters, with a warning.

    Passing both the old and the new name is a TypeError, as passing one argument twice is.
    """

    def decorate(func: F) -> F:
        params = inspect.signature(func).parameters
        for old, new in old_to_new.items():
            if new not in params or old in params:
                raise TypeError(f"{func.__qualname__}: cannot rename {old!r} to {new!r}")
        owner = func.__qualname__

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old in old_to_new.keys() & kwargs.keys():
                new = old_to_new[old]
                if new in kwargs:
                    raise TypeError(f"{owner}() got both {new!r} and its deprecated name {old!r}")
                warnings.warn(
                    _message("argument", owner, old, new), DeprecationWarning, stacklevel=2
                )
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__deprecated_arguments__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def renamed_attributes(**old_to_new: str) -> Callable[[C], C]:
    """Add read-only properties ``old`` returning field ``new``, with a warning."""

    def decorate(cls: C) -> C:
        for old, new in old_to_new.items():
            if hasattr(cls, old):
                raise TypeError(f"{cls.__qualname__} already has an attribute {old!r}")
            setattr(cls, old, _alias(old, new))
        cls.__deprecated_attributes__ = {  # type: ignore[attr-defined]
            **getattr(cls, "__deprecated_attributes__", {}),
            **old_to_new,
        }
        return cls

    return decorate


def _alias(old: str, new: str) -> property:
    def getter(self):
        owner = type(self).__qualname__
        warnings.warn(_message("attribute", owner, old, new), DeprecationWarning, stacklevel=2)
        return getattr(self, new)

    getter.__name__ = old
    return property(getter, doc=f"Deprecated name of `{new}` (until fastfair {REMOVED_IN}).")
