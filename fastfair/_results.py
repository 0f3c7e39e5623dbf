"""Plain-text tables for the readable repr of result dataclasses."""

from __future__ import annotations

import numpy as np


def format_value(value) -> str:
    """Format a number compactly (p-values and statistics alike)."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(value)
    value = float(value)
    if value != value:
        return "nan"
    if value == 0 or 1e-4 <= abs(value) < 1e6:
        return f"{value:.4f}"
    return f"{value:.3e}"


def format_interval(interval, c: int = 0, j: int = 0, n_c: int = 1, n_parts: int = 1) -> str:
    """ "[lo, hi]" of comparison `c`, part `j` of an interval (lower, upper) of any shape."""
    lo, hi = (np.reshape(x, (n_c, n_parts))[c, j] for x in interval)
    return f"[{format_value(lo)}, {format_value(hi)}]"


def format_table(headers, rows) -> str:
    """Left-aligned first column, right-aligned others; cells formatted by format_value."""
    cells = [[str(h) for h in headers]]
    cells += [
        [r[0] if isinstance(r[0], str) else str(r[0])] + [format_value(v) for v in r[1:]]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  " + "  ".join(parts))
    return "\n".join(lines)


#: Smallest exact or asymptotic p-value printed as a number. Below it double precision
#: (relative accuracy ~1e-16 of the probabilities summed) and the exact enumeration's
#: truncation (up to 4e-20 of neglected mass is added) do not support the digits.
PVALUE_FLOOR = 1e-16  # printed as "< 1e-16"
_MONTE_CARLO_METHODS = ("monte_carlo", "mixed", "permutation", "multiplier_bootstrap")


def format_pvalue(pvalue, method: str | None = None, n_permutations: int | None = None) -> str:
    """A p-value at the precision its method has.

    A Monte-Carlo p-value with no permuted statistic as extreme as the observed one,
    1/(B+1), prints as "< 1/(B+1)" in numbers (e.g. "< 0.0001" for B = 9999): the p-value
    of infinitely many permutations is smaller. Any p-value below PVALUE_FLOOR prints as
    "< 1e-16". Others print as format_value does.

    Examples
    --------
    >>> from fastfair._results import format_pvalue
    >>> format_pvalue(1e-4, "monte_carlo", 9999), format_pvalue(2e-20, "exact")
    ('< 0.0001', '< 1e-16')
    >>> format_pvalue(0.0123, "exact")
    '0.0123'
    """
    if pvalue is None:
        return "-"
    p = float(pvalue)
    if p != p:
        return "nan"
    if n_permutations and method in _MONTE_CARLO_METHODS:
        floor = 1.0 / (n_permutations + 1.0)
        if p <= floor * (1 + 1e-9):
            return f"< {floor:.3g}"
    if p < PVALUE_FLOOR:
        return "< 1e-16"
    return format_value(p)


def pvalue_field(pvalue, method: str | None = None, n_permutations: int | None = None) -> str:
    """ "pvalue=0.0123" or "pvalue < 1e-16" for a repr's header line."""
    text = format_pvalue(pvalue, method, n_permutations)
    return f"pvalue {text}" if text.startswith("<") else f"pvalue={text}"
