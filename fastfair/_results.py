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
