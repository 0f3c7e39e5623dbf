"""scipy submodules, imported on first use: `import fastfair` must not pay for scipy.

`from fastfair._scipy import special, stats` gives module stand-ins; the first attribute
read imports the real module (scipy.special alone costs ~0.3 s) and copies its namespace
into the stand-in, so later reads cost what a module attribute costs.
"""

from __future__ import annotations

import importlib
import types

__all__ = ["integrate", "optimize", "special", "stats"]


class _LazyModule(types.ModuleType):
    def __getattr__(self, attr: str):
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)


integrate = _LazyModule("scipy.integrate")
optimize = _LazyModule("scipy.optimize")
special = _LazyModule("scipy.special")
stats = _LazyModule("scipy.stats")
