"""Every number fastfair prints: result reprs, planning summaries, the audit's tables and
report.

* :func:`format_value` -- a statistic or p-value in a repr table (4 decimals, else
  scientific);
* :func:`format_pvalue`, :func:`pvalue_field`, :func:`format_adjusted_pvalue` -- a p-value
  at the precision its method has;
* :func:`format_interval`, :func:`format_table` -- intervals and aligned tables of values;
* :func:`format_significant` -- planning figures (sample sizes, rates, arrays of them) to
  a number of significant digits;
* :func:`format_fixed` -- the audit report's differences, a fixed number of decimals with
  a typographic minus;
* :func:`format_mde` -- a minimum detectable difference, rounded up, the same in the
  verdict, the tables and the report.
"""

from __future__ import annotations

import math

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
    >>> from fastfair._format import format_pvalue
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


def format_adjusted_pvalue(
    pvalue, adjusted, method: str | None = None, n_permutations: int | None = None
) -> str:
    """An adjusted p-value; a bound when the raw p-value it adjusts prints as a bound.

    Examples
    --------
    >>> from fastfair._format import format_adjusted_pvalue
    >>> format_adjusted_pvalue(1e-4, 3e-4, "monte_carlo", 9999)
    '< 0.0003'
    >>> format_adjusted_pvalue(0.01, 0.03, "exact")
    '0.0300'
    """
    if format_pvalue(pvalue, method, n_permutations).startswith("<"):
        return "< 1e-16" if adjusted < PVALUE_FLOOR else f"< {adjusted:.3g}"
    return format_pvalue(adjusted)


def format_significant(x, digits: int = 4) -> str:
    """A planning figure: integers exactly, floats to `digits` significant digits, a scalar
    of 10,000 or more with thousands separators and 2 decimals, arrays as ``[a, b, ...]``.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._format import format_significant
    >>> format_significant(1378.7312), format_significant(123456.789), format_significant(0.5)
    ('1379', '123,456.79', '0.5')
    >>> format_significant(np.array([0.683512, 0.78943])), format_significant(np.array([3, 4]))
    ('[0.6835, 0.7894]', '[3, 4]')
    """
    a = np.asarray(x)
    if a.dtype.kind in "iu":
        return str(a.tolist())
    if a.ndim == 0:
        v = float(a)
        return f"{v:,.2f}" if abs(v) >= 1e4 else f"{v:.{digits}g}"
    return np.array2string(
        a,
        separator=", ",
        max_line_width=10_000,
        threshold=24,
        edgeitems=3,
        formatter={"float_kind": lambda v: f"{v:.{digits}g}"},
    ).replace("\n", "")


def format_fixed(x, digits: int = 3) -> str:
    """A value of the audit report: a float to `digits` decimals with a typographic minus,
    a list (equalized odds: TPR / FPR) joined by " / ", None as "-".

    Examples
    --------
    >>> from fastfair._format import format_fixed
    >>> format_fixed(-0.04213), format_fixed([0.1, -0.2], 2), format_fixed(None), format_fixed(12)
    ('\u22120.042', '0.10 / \u22120.20', '-', '12')
    """
    if x is None:
        return "-"
    if isinstance(x, list):
        return " / ".join(format_fixed(v, digits) for v in x)
    return f"{x:.{digits}f}".replace("-", "\u2212") if isinstance(x, float) else str(x)


def format_mde(x: float) -> str:
    """A minimum detectable difference: rounded up to two significant digits, "> 1" when
    no difference below 1 is detectable.

    Rounded up, never to the nearest: "could detect ≥ 0.063" must not promise more power
    than the audit has, and every place that prints an MDE (the verdict, the table's MDE
    column, the report, the summary's range) prints this same text.

    Examples
    --------
    >>> from fastfair._format import format_mde
    >>> format_mde(0.0412), format_mde(0.0621), format_mde(0.305), format_mde(float("inf"))
    ('0.042', '0.063', '0.31', '> 1')
    """
    if math.isinf(x):
        return "> 1"
    if not x > 0:
        return "0"
    exponent = math.floor(math.log10(x)) - 1
    value = math.ceil(x / 10.0**exponent - 1e-9) * 10.0**exponent
    text = f"{value:.{max(0, -exponent)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
