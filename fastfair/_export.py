"""`to_dict()` and `to_frame()` for every result class, from its declared fields.

A result class is a frozen dataclass; :class:`ResultExport` reads its fields only (nothing
is attached after construction), so the two exports list exactly what the class declares.
Classes with a table of their own (the audit, the calibration curve, the threshold sweep,
...) define their own methods, which take precedence.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultExport", "is_scalar", "plain", "repeated_column"]


def plain(value: Any) -> Any:
    """`value` as JSON-ready Python: numpy scalars and arrays as numbers and lists, tuples
    as lists, nested results as dicts; other objects (callables, ...) as their repr."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, numbers.Number):
        return value
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()] if value.dtype == object else value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if hasattr(value, "to_dict") and dataclasses.is_dataclass(value):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)


def is_scalar(value: Any) -> bool:
    """None, a bool, a string or a number: a value one cell of a table holds."""
    return value is None or isinstance(value, (bool, str, numbers.Number, np.generic))


def _fits(value: Any, n: int) -> bool:
    """A scalar (repeated on every row) or a flat sequence of `n` scalars."""
    if is_scalar(value):
        return True
    if isinstance(value, (np.ndarray, list)) and np.ndim(value) == 1 and len(value) == n:
        return all(is_scalar(v) for v in (value.tolist() if hasattr(value, "tolist") else value))
    return False


def repeated_column(value: Any, n: int) -> list:
    """A table column of `n` rows: a scalar repeated, else the values as plain Python."""
    return [plain(value)] * n if is_scalar(value) else plain(value)


def _rows_of(values: dict) -> tuple[int, dict[str, list], set[str]]:
    """Rows of the table: one per comparison, else one per group, else one per entry of
    the first field that is a flat array, else one."""
    comparisons, groups = values.get("comparisons"), values.get("groups")
    if comparisons is not None and len(comparisons) and isinstance(comparisons[0], tuple):
        table = {
            "group": [plain(a) for a, _ in comparisons],
            "reference": [plain(b) for _, b in comparisons],
        }
        return len(comparisons), table, {"comparisons"}
    if groups is not None and np.ndim(groups) == 1 and len(groups):
        return len(groups), {"group": [plain(g) for g in groups]}, {"groups"}
    for value in values.values():
        if isinstance(value, np.ndarray) and value.ndim == 1 and len(value):
            if _fits(value, len(value)):
                return len(value), {}, set()
    return 1, {}, set()


class ResultExport:
    """`to_dict` and `to_frame` of a result dataclass, from its declared fields."""

    def to_dict(self) -> dict:
        """Every field of the result as plain Python (arrays as lists, nested results as
        dicts), ready for ``json.dumps``.

        Returns
        -------
        dict

        Examples
        --------
        >>> import fastfair
        >>> res = fastfair.permutation_test([1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 1, 1],
        ...                                 ["a", "a", "a", "b", "b", "b"])
        >>> d = res.to_dict()
        >>> d["comparisons"], round(d["pvalue"], 3)
        ([['b', 'a']], 1.0)
        """
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """The result as a table: one row per comparison (columns group and reference),
        else one per group, else one per entry of the first flat array field, else one row;
        the fields that fit (scalars repeated, one value per row, an interval as
        ``<name>_low``/``<name>_high``; per-group ``group_*`` fields are left out of a
        table of comparisons). Needs pandas.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import fastfair
        >>> res = fastfair.permutation_test([1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 1, 1],
        ...                                 ["a", "a", "a", "b", "b", "b"])
        >>> res.to_frame()[["group", "reference", "pvalue"]].values.tolist()
        [['b', 'a', 1.0]]
        """
        import pandas as pd

        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        n, table, used = _rows_of(values)
        per_comparison = "comparisons" in used
        for name, value in values.items():
            if name in used or (per_comparison and name.startswith("group_")):
                continue  # a per-group field has no place on a comparison's row
            if isinstance(value, tuple) and len(value) == 2 and all(_fits(v, n) for v in value):
                table[f"{name}_low"] = repeated_column(value[0], n)
                table[f"{name}_high"] = repeated_column(value[1], n)
            elif _fits(value, n):
                table[name] = repeated_column(value, n)
        return pd.DataFrame(table)
