"""Renderings of an :class:`fastfair.AuditResult`: the printed table and the HTML report.

The HTML report is one self-contained file an auditor reads in a minute: a summary first
(is there a gap, how big, could this audit have seen one), one forest plot of every
difference with its interval (inline SVG, so it needs no plotting library), the tests, the
power of each comparison, the groups, calibration curves by group (PNG, needs matplotlib:
``pip install "fastfair[plot]"``; without it the report says so and keeps everything else),
and method notes in plain words. It fits a 1,200 px window and reads on a 420 px phone
screen: wide tables and the forest plot scroll inside their own boxes with their first
column (the labels) kept in view, and the plots wrap one per row.

`SECTIONS` lists the functions that render the report's sections in order; each takes the
result and returns HTML, so a new section is one more function.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._format import format_fixed as _v  # short: used in every table cell
from fastfair._format import format_mde, format_pvalue
from fastfair._metrics import CONFUSION_METRICS
from fastfair._score import rate_limits
from fastfair.auditing.results import pvalue_text

__all__ = [
    "SECTIONS",
    "audit_html",
    "audit_text",
    "forest_axes",
    "forest_svg",
]

if TYPE_CHECKING:
    from fastfair.auditing.results import AuditResult

COLOURS = {
    "difference": "#c62828",
    "no_evidence": "#1565c0",
    "equivalent": "#2e7d32",
    "underpowered": "#8a8a8a",
    "undecided": "#b26a00",
    "error": "#8a8a8a",
}
SHORT_VERDICTS = {
    "difference": "DIFFERENCE",
    "no_evidence": "no evidence",
    "equivalent": "FAIR within ±δ",
    "underpowered": "too small to tell",
    "undecided": "undecided",
    "error": "ERROR, not run",
}
METRIC_TITLES = {
    "tpr": "TPR",
    "fnr": "FNR",
    "fpr": "FPR",
    "tnr": "TNR",
    "ppv": "PPV",
    "fdr": "FDR",
    "npv": "NPV",
    "for": "FOR",
    "selection_rate": "selection rate",
    "accuracy": "accuracy",
    "error_rate": "error rate",
    "equalized_odds": "equalized odds",
    "auc": "AUC",
    "predictive_parity": "predictive parity",
}


def _pvalue(row, key="pvalue") -> str:
    return pvalue_text(row, key)


def _pvalue_phrase(row, key="pvalue") -> str:
    """ "= 0.012" or "< 1e-16": a p-value to follow the letter p in a sentence."""
    text = _pvalue(row, key)
    return text if text.startswith("<") else f"= {text}"


def _ci(row, digits=3) -> str:
    """difference [low, high], per component for equalized odds."""
    diff = row.get("difference")
    if diff is None:
        return "-"
    if "ci_low" not in row:
        return _v(diff, digits)
    if isinstance(diff, list):
        return " / ".join(
            f"{_v(d, digits)} [{_v(lo, digits)}, {_v(hi, digits)}]"
            for d, lo, hi in zip(diff, row["ci_low"], row["ci_high"])
        )
    return f"{_v(diff, digits)} [{_v(row['ci_low'], digits)}, {_v(row['ci_high'], digits)}]"


def _mde(row) -> str:
    return "-" if row.get("mde") is None else _mde_value(row["mde"])


def _mde_value(x: float) -> str:
    """An MDE as the verdict prints it: rounded up to two significant digits; infinite (no
    difference below 1 detectable) as "> 1"."""
    return format_mde(x)


def _power(row) -> str:
    return "-" if row.get("power_at_tau") is None else f"{row['power_at_tau']:.2f}"


def _needed(row) -> str:
    return "-" if row.get("n_needed") is None else f"{row['n_needed']:,}"


def _comparison(row) -> str:
    if row["family"] == "parity":
        return "all groups"
    return f"{row['group']} vs {row['reference']}"


def _by_attribute(result):
    """(attribute, its tests ordered by comparison, then in the audit's metric order)."""
    for attr in result.attributes:
        by_comparison: dict = {}
        for t in result.tests:
            if t["attribute"] == attr["name"]:
                by_comparison.setdefault(_comparison(t), []).append(t)
        yield attr, [t for tests in by_comparison.values() for t in tests]


# --------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------


MAX_CELL = 40  # characters of a group name shown in the printed table
MAX_GROUPS_LINE = 120  # characters of a printed list of groups


def _clip(text, width: int = MAX_CELL) -> str:
    """A table cell: control characters escaped (a label never breaks a line), at most
    `width` characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return text if len(text) <= width else text[: width - 3] + "..."


def audit_text(result: AuditResult, max_rows: int | None = None) -> str:
    """The printed audit: a header, one table per attribute, the summary.

    At most `max_rows` tests are shown (all when None) and group names are clipped, so the
    output is proportional to what it shows, not to the number or names of the groups.

    Parameters
    ----------
    result : AuditResult
        The audit.
    max_rows : int or None
        Tests shown in all (None: every test).

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> rng = np.random.default_rng(0)
    >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
    ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
    >>> from fastfair.auditing.report import audit_text
    >>> audit_text(res) == res.format()
    True
    """
    s = result.summary
    lines = [
        f"fastfair audit: {result.n_rows:,} rows; {len(result.tests)} tests over "
        f"{', '.join(a['name'] for a in result.attributes)}; p-values adjusted "
        f"({result.adjust}) over all tests; alpha = {result.alpha:g}",
        f"MDE: smallest difference detected with {result.power:.0%} power at alpha = "
        f"{result.alpha:g} (one comparison; asymptotic planner); tau = {result.tau:g}",
    ]
    header = [
        "metric",
        "comparison",
        "value",
        "reference",
        "difference [95% CI]",
        "p-value",
        "adjusted",
        "MDE",
        "verdict",
    ]
    left = len(result.tests) if max_rows is None else max_rows
    for attr, tests in _by_attribute(result):
        lines += ["", _attribute_line(attr, result.min_group_size)]
        rows = []
        for t in tests[: max(left, 0)]:
            comparison = f"{_clip(t['group'])} vs {_clip(t['reference'])}"
            if t["family"] == "parity":
                comparison = _comparison(t)
            if "error" in t:
                rows.append([t["metric"], comparison, *["-"] * 6, "ERROR, not run (below)"])
                continue
            rows.append(
                [
                    t["metric"],
                    comparison,
                    _v(t.get("value_group")),
                    _v(t.get("value_reference")),
                    _ci(t),
                    _pvalue(t),
                    _pvalue(t, "pvalue_adjusted"),
                    _mde(t),
                    t["verdict"],
                ]
            )
        left -= len(rows)
        if not rows:
            continue
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for r in [header, ["-" * w for w in widths], *rows]:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines += [
        f"error: {t['metric']} {_clip(_comparison(t), 83)} ({_clip(t['attribute'], 83)}): "
        f"{_clip(t['error'], 1000)}"
        for t in result.tests
        if t.get("error")
    ]
    lines += [
        f"note: {t['metric']} {_clip(_comparison(t), 83)}: {_clip(t[key], 1000)}"
        for t in result.tests
        for key in ("note", "margin_note")
        if t.get(key)
    ]
    if left < 0 or (max_rows is not None and max_rows < len(result.tests)):
        hidden = len(result.tests) - (max_rows or 0)
        lines += ["", f"... {hidden:,} more tests not shown (--max-rows; all are in --json)"]
    lines += _model_comparison_lines(result)
    lines += _slices_lines(result)
    lines += ["", *_summary_sentences(result, s)]
    return "\n".join(lines).replace("\u2212", "-")


def _attribute_line(attr, min_group_size) -> str:
    ref = _clip(attr["reference"])
    rule = attr.get("reference_rule")
    ref += f" ({rule})" if rule else ""
    text = f"{attr['name']}: reference {ref}; groups {_group_list(attr['groups'], True)}"
    if attr["skipped"]:
        text += f"; skipped (fewer than {min_group_size} rows): " + _group_list(
            attr["skipped"], False
        )
    if attr.get("note"):
        text += f"; {attr['note']}"
    return text


def _group_list(groups, tested: bool) -> str:
    """ "a (1,234), b (56)" within MAX_GROUPS_LINE characters, then "... (N more)"."""
    chosen = [g for g in groups if g.get("tested", True) == tested] if tested else groups
    listed = []
    for g in chosen:
        item = f"{_clip(g['group'])} ({'n=' if not tested else ''}{g['n']:,})"
        if listed and sum(len(x) + 2 for x in listed) + len(item) > MAX_GROUPS_LINE:
            break
        listed.append(item)
    text = ", ".join(listed)
    if len(chosen) > len(listed):
        text += f", ... ({len(chosen) - len(listed):,} more)"
    return text


def _summary_sentences(result, s) -> list[str]:
    out = [
        f"Gaps: {s['n_differences']} of {s['n_tests']} tests show a DIFFERENCE "
        f"(adjusted p <= {result.alpha:g})."
    ]
    deltas = sorted({t["delta"] for t in result.tests if "delta" in t})
    if deltas:
        within = sum("within ±" in t["verdict"] for t in result.tests)
        out.append(
            f"Equivalence: {within} of {s['n_tests']} tests shown within "
            f"±{deltas[0]:g} (TOST, adjusted separately); 'no evidence' alone is not that."
        )
    big = s["largest"]
    if big is not None:
        what = "Largest" if big["significant"] else "Largest difference (not significant)"
        out.append(
            f"{what}: {big['metric']}, {big['group']} vs {big['reference']} "
            f"({big['attribute']}): {_ci(big)}."
        )
    if s["n_with_mde"]:
        lo, hi = s["mde_range"]
        out.append(
            f"Power: {s['n_detectable']} of {s['n_with_mde']} comparisons could detect a "
            f"difference of tau = {result.tau:g} with {result.power:.0%} power "
            f"(MDE {_mde_value(lo)} to {_mde_value(hi)}); {s['n_underpowered']} "
            "non-significant ones are too small to tell."
        )
    if s["n_errors"]:
        out.append(f"Errors: {_errors_sentence(result, s)}")
    return out


def _errors_sentence(result, s) -> str:
    """ "2 tests could not run: ppv Asian vs Caucasian (race), ..." (the first three)."""
    failed = [t for t in result.tests if t["decision"] == "error"]
    named = ", ".join(
        f"{t['metric']} {_clip(_comparison(t), 83)} ({_clip(t['attribute'], 83)})"
        for t in failed[:3]
    )
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    runs = "test could not run" if s["n_errors"] == 1 else "tests could not run"
    return f"{s['n_errors']} {runs}: {named}{more}; each reason is given with its test."


# --------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1140px;
margin:16px auto;padding:0 12px;color:#222;font-size:14px;line-height:1.4}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:3px}
.meta{color:#555;margin:0 0 12px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:12px;
margin:10px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:10px 12px;background:#fafafa}
.card .q{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#666}
.card .a{font-size:19px;font-weight:600;margin:4px 0}
.card.alert{border-color:#c62828;background:#fdf3f3}.card.ok{border-color:#2e7d32}
.card.warn{border-color:#b26a00;background:#fff8ec}
ul.found{margin:6px 0 0;padding-left:20px}ul.found li{margin:1px 0}
.scroll{overflow-x:auto;max-width:100%;margin:4px 0}
table{border-collapse:collapse;font-size:12.5px;width:100%}
td,th{border-bottom:1px solid #e3e3e3;padding:3px 5px;text-align:right;white-space:nowrap}
th{background:#f2f2f2;font-weight:600}td.l,th.l{text-align:left}
.scroll tr>:first-child{position:sticky;left:0;background:#fff;z-index:1}
.scroll tr>th:first-child{background:#f2f2f2}
.scroll tr.attr>td{background:#e6eef7}
tr.attr td{background:#e6eef7;font-weight:600;text-align:left;white-space:normal}
tr.comp td{text-align:left;font-style:italic;color:#333;padding-top:6px}
tr.attr .stick,tr.comp .stick{position:sticky;left:5px;display:inline-block;
max-width:calc(100vw - 50px)}
.difference{color:#c62828;font-weight:600}.underpowered{color:#777}
td.why{white-space:normal}
td.parents{white-space:normal;min-width:200px}
table.family{width:auto}
.mde-ok{background:#e8f5e9}.mde-low{background:#f3f3f3;color:#777}
.note{color:#555;font-size:13px}svg text{font-family:inherit}
img{max-width:100%;height:auto}
.plots{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start}
.forest{display:flex;overflow-x:auto;max-width:100%}.forest svg{flex:none}
.forest svg.labels{position:sticky;left:0;background:#fff;z-index:1}
.legend span{display:inline-block;margin-right:16px}
.narrow,.legend .narrow{display:none}
@media (max-width:760px){.narrow,.legend .narrow{display:inline}}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;
vertical-align:-1px}
"""


def audit_html(
    result: AuditResult,
    sections: Sequence[Callable[[AuditResult], str]] | None = None,
    progress: Callable[..., Any] | None = None,
) -> str:
    """The report as one self-contained HTML document.

    Parameters
    ----------
    result : AuditResult
        The audit.
    sections : sequence of callables, optional
        Functions rendering one section each from the result (default :data:`SECTIONS`).
    progress : callable, optional
        A progress-bar factory with tqdm's interface (``progress(total=, desc="report")``,
        one step per section), as :func:`fastfair.audit`'s.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> rng = np.random.default_rng(0)
    >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
    ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
    >>> from fastfair.auditing.report import audit_html, forest_svg
    >>> page = audit_html(res, sections=[forest_svg])
    >>> page.startswith("<!DOCTYPE html>"), page.count("<svg")
    (True, 2)
    """
    sections = sections or SECTIONS
    bar = progress(total=len(sections), desc="report") if progress else None
    parts = []
    for section in sections:
        parts.append(section(result))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>fastfair audit</title><style>{STYLE}</style></head><body>\n{body}\n"
        "</body></html>\n"
    )


def _e(x) -> str:
    return html.escape(str(x))


def _summary_section(result) -> str:
    import fastfair

    s = result.summary
    attrs = ", ".join(a["name"] for a in result.attributes)
    meta = (
        f"{result.n_rows:,} rows · attributes {_e(attrs)} · {s['n_tests']} tests · "
        f"&alpha; = {result.alpha:g} (p-values adjusted by {result.adjust} over all tests) · "
        f"τ = {result.tau:g} · fastfair {fastfair.__version__} · seed {result.seed}"
    )
    errors = (
        f"<p class='note'>Errors: {_e(_errors_sentence(result, s))}</p>" if s["n_errors"] else ""
    )
    return (
        f"<h1>Fairness audit</h1><p class='meta'>{meta}</p>"
        f"<div class='cards'>{_summary_cards(result, s)}</div>"
        f"{_differences_list(result)}{errors}{_skipped_note(result)}"
    )


def _summary_cards(result, s) -> str:
    """The three questions: is there a gap, how big, could this audit have seen one."""
    found = s["n_differences"]
    gap_card = (
        f"<div class='card {'alert' if found else 'ok'}'><div class='q'>Is there a gap?</div>"
        f"<div class='a'>{'Yes' if found else 'No evidence'}: {found} of {s['n_tests']} "
        f"tests</div>show a difference at adjusted p ≤ {result.alpha:g}.</div>"
    )
    big = s["largest"]
    if big is None:
        size_card = "<div class='card'><div class='q'>How big?</div>no test ran</div>"
    else:
        size_card = (
            "<div class='card'><div class='q'>How big?</div>"
            f"<div class='a'>{_ci(big)}</div>"
            f"{'largest difference' if big['significant'] else 'largest, not significant'}: "
            f"{_e(METRIC_TITLES.get(big['metric'], big['metric']))}, "
            f"{_e(big['group'])} vs {_e(big['reference'])} ({_e(big['attribute'])})"
            f"{', 95% CI' if 'ci_low' in big else ''}.</div>"
        )
    if s["n_with_mde"]:
        lo, hi = s["mde_range"]
        under = s["n_underpowered"]
        power_card = (
            f"<div class='card {'warn' if under else 'ok'}'>"
            "<div class='q'>Could this audit have seen one?</div>"
            f"<div class='a'>{s['n_detectable']} of {s['n_with_mde']} comparisons</div>"
            f"could detect a gap of τ = {result.tau:g} with {result.power:.0%} power "
            f"(smallest detectable gap {_mde_value(lo)} to {_mde_value(hi)}); {under} "
            f"non-significant test{'s are' if under != 1 else ' is'} too small to tell.</div>"
        )
    else:
        power_card = (
            "<div class='card'><div class='q'>Could this audit have seen one?</div>"
            "no planner figure</div>"
        )
    return gap_card + size_card + power_card


def _differences_list(result) -> str:
    """The largest significant differences (at most six), largest first."""
    items = []
    ranked = sorted(
        (t for t in result.tests if t["decision"] == "difference"),
        key=lambda t: -max(np.abs(np.atleast_1d(t.get("difference", 0.0)))),
    )
    for t in ranked[:6]:
        items.append(
            f"<li><b>{_e(METRIC_TITLES.get(t['metric'], t['metric']))}</b>, "
            f"{_e(_comparison(t))} "
            f"({_e(t['attribute'])}): {_e(_ci(t))}, "
            f"adjusted p {_e(_pvalue_phrase(t, 'pvalue_adjusted'))}</li>"
        )
    if len(ranked) > 6:
        items.append(f"<li>and {len(ranked) - 6} more (table below)</li>")
    return f"<ul class='found'>{''.join(items)}</ul>" if items else ""


def _skipped_note(result) -> str:
    """The groups too small to test, by attribute."""
    skipped = [
        f"{_e(a['name'])}: " + ", ".join(f"{_e(g['group'])} (n={g['n']})" for g in a["skipped"])
        for a in result.attributes
        if a["skipped"]
    ]
    if not skipped:
        return ""
    return (
        f"<p class='note'>Skipped, fewer than {result.min_group_size} rows: "
        + "; ".join(skipped)
        + ".</p>"
    )


# ---- forest plot (inline SVG) ---------------------------------------------------------


def _nice_limit(x: float) -> float:
    for step in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0):
        if x <= step:
            return step
    return float(np.ceil(x * 2) / 2)


def _forest_rows(result):
    """Columns (metrics with one difference per comparison) and rows (attribute, comparison)."""
    plotted = [
        t
        for t in result.tests
        if t["family"] in ("confusion", "auc") and t["metric"] != "equalized_odds"
    ]
    columns = list(dict.fromkeys(t["metric"] for t in plotted))
    cells, rows = {}, []
    for attr in result.attributes:
        comps = list(
            dict.fromkeys(
                (t["group"], t["reference"]) for t in plotted if t["attribute"] == attr["name"]
            )
        )
        if comps:
            rows.append(("attribute", attr))
            rows += [("comparison", (attr["name"], g, r)) for g, r in comps]
    for t in plotted:
        cells[(t["attribute"], t["group"], t["reference"], t["metric"])] = t
    return columns, rows, cells


def forest_svg(result: AuditResult, width: int = 1110) -> str:
    """Forest plot of every difference with its interval: one column per metric, one row per
    comparison, grouped by attribute; colour = verdict, dashed lines at ±tau.

    Two SVG elements side by side in a ``div.forest``: the labels (attributes, groups and
    their sizes) and the panels. Both keep their size in CSS pixels (text at 10.5-12.5 px
    whatever the window); on a narrow screen the panels scroll horizontally inside the
    box while the labels stay in view (the report's CSS makes them sticky).

    Parameters
    ----------
    result : AuditResult
        The audit.
    width : int, default 1110
        Width of the labels and panels together, in CSS pixels.

    Returns
    -------
    str
        A legend and the ``div.forest`` with its two inline SVG elements (no plotting
        library needed).

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> rng = np.random.default_rng(0)
    >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
    ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
    >>> from fastfair.auditing.report import forest_svg
    >>> svg = forest_svg(res)
    >>> svg.count("<svg"), svg.count("</svg>"), svg.count("class='labels'")
    (2, 2, 1)
    """
    columns, rows, cells = _forest_rows(result)
    if not columns:
        return "<p class='note'>No differences to plot.</p>"
    lim = _forest_limit(result, cells)
    layout = _ForestLayout(width, len(columns), rows, lim)
    panels = []
    for c, metric in enumerate(columns):
        panels += _forest_panel(layout, c, metric, result.tau)
    labels, marks = _forest_marks(layout, rows, columns, cells, result)
    label_w, h = layout.label_w, layout.height
    style = (
        "<style>.t{font-size:12px;fill:#222}.s{font-size:10.5px;fill:#666}"
        ".h{font-size:12.5px;font-weight:600;fill:#222}</style>"
    )
    return _forest_legend(result.tau, lim) + "".join(
        [
            "<div class='forest'>",
            f"<svg xmlns='http://www.w3.org/2000/svg' class='labels' width='{label_w}' "
            f"height='{h}' viewBox='0 0 {label_w} {h}' role='img' "
            "aria-label='groups of the forest plot'>",
            style,
            *labels,
            "</svg>",
            f"<svg xmlns='http://www.w3.org/2000/svg' class='panels' width='{width - label_w}' "
            f"height='{h}' viewBox='{label_w} 0 {width - label_w} {h}' role='img' "
            "aria-label='forest plot of differences with 95% intervals'>",
            style,
            *panels,
            *marks,
            "</svg></div>",
        ]
    )


def _forest_limit(result, cells) -> float:
    """Half-width of the forest plot's axis: a round number above the largest difference
    and at least 2 tau."""
    diffs = [abs(t["difference"]) for t in cells.values() if "difference" in t]
    lim = _nice_limit(max([*diffs, 0.0]) * 1.2 if diffs else 0.1)
    lim = max(lim, _nice_limit(2 * result.tau))
    return min(lim, 1.0) if max(diffs or [0]) <= 1 else lim


def forest_axes(result: AuditResult, ax=None, metric: str | None = None):
    """The forest plot as matplotlib Axes (:meth:`AuditResult.plot`).

    Parameters
    ----------
    result : AuditResult
        The audit.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes with `metric`, else one per plotted metric (default: a new figure).
    metric : str, optional
        Plot only this metric.

    Returns
    -------
    matplotlib Axes (with `metric`) or ndarray of Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, fastfair
    >>> from fastfair.auditing.report import forest_axes
    >>> rng = np.random.default_rng(0)
    >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
    ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
    >>> forest_axes(res, metric="tpr").get_title()
    'TPR'
    """
    from fastfair._plotting import pyplot

    plt = pyplot("AuditResult.plot")
    columns, rows, cells = _forest_rows(result)
    if metric is not None and metric not in columns:
        raise ValueError(f"metric must be one of {columns}, got {metric!r}")
    names = columns if metric is None else [metric]
    comps = [item for kind, item in rows if kind == "comparison"]
    if ax is None:
        # constrained layout keeps the tick labels, axis labels and titles inside the
        # figure when it is saved (the default layout cut the x tick labels off)
        _, grid = plt.subplots(
            1, len(names), figsize=(2.4 * len(names) + 2.6, 0.3 * len(comps) + 1.4),
            sharey=True, squeeze=False, layout="constrained",
        )  # fmt: skip
        ax = grid[0]
    axes = np.atleast_1d(np.asarray(ax, dtype=object))
    if len(axes) != len(names):
        raise ValueError(f"ax must hold {len(names)} axes, got {len(axes)}")
    y = np.arange(len(comps))[::-1]
    lim = _forest_limit(result, cells)
    labels = [f"{a}: {_short(g, 30)} vs {_short(r, 30)}" for a, g, r in comps]
    for i, (one, name) in enumerate(zip(axes, names)):
        for yc, (attribute, group, reference) in zip(y, comps):
            t = cells.get((attribute, group, reference, name))
            if t is not None and "error" not in t:
                _forest_axes_mark(one, t, yc)
        one.axvline(0, color="#555", lw=1)
        for v in (-result.tau, result.tau):
            one.axvline(v, color="#9ccc65", ls="--", lw=1)
        one.set_xlim(-lim, lim)
        one.set_title(METRIC_TITLES.get(name, name))
        one.set_xlabel("difference")
        one.set_yticks(y, labels)
        one.tick_params(labelleft=i == 0)
    return axes[0] if metric is not None else axes


def _forest_axes_mark(ax, t: dict, yc: float) -> None:
    colour = COLOURS[t["decision"]]
    if "ci_low" in t:
        ax.plot([t["ci_low"], t["ci_high"]], [yc, yc], color=colour, lw=1.4)
    face = "white" if t["decision"] == "underpowered" else colour
    ax.plot(t["difference"], yc, "o", color=colour, markerfacecolor=face, markersize=5)


class _ForestLayout:
    """Geometry of the forest plot: a label column, then one panel per metric."""

    label_w, gap, top, row_h, head_h = 250, 14, 34, 19, 22

    def __init__(self, width: int, n_panels: int, rows: list, lim: float):
        self.lim = lim
        self.panel_w = (width - self.label_w - self.gap * (n_panels - 1) - 6) / n_panels
        heights = [self.head_h if kind == "attribute" else self.row_h for kind, _ in rows]
        self.height = self.top + sum(heights) + 30
        self.y_end = self.height - 30

    def x0(self, c: int) -> float:
        """Left edge of panel c."""
        return self.label_w + c * (self.panel_w + self.gap)

    def x_of(self, c: int, v: float) -> float:
        """x of the value v (clipped to ±lim) in panel c."""
        lim = self.lim
        return self.x0(c) + (np.clip(v, -lim, lim) + lim) / (2 * lim) * self.panel_w


def _forest_panel(layout: _ForestLayout, c: int, metric: str, tau: float) -> list[str]:
    """Panel c: background, title, dashed lines at ±tau, the zero line and the axis."""
    x0, top, y_end, x_of = layout.x0(c), layout.top, layout.y_end, layout.x_of
    out = [
        f"<rect x='{x0:.1f}' y='{top - 4}' width='{layout.panel_w:.1f}' "
        f"height='{y_end - top + 8}' fill='#fafafa' stroke='#ddd'/>",
        f"<text class='h' x='{x0 + layout.panel_w / 2:.1f}' y='{top - 12}' "
        f"text-anchor='middle'>{_e(METRIC_TITLES.get(metric, metric))}</text>",
    ]
    for v in (-tau, tau):
        if abs(v) < layout.lim:
            out.append(
                f"<line x1='{x_of(c, v):.1f}' x2='{x_of(c, v):.1f}' y1='{top - 4}' "
                f"y2='{y_end + 4}' stroke='#9ccc65' stroke-dasharray='3,3'/>"
            )
    out.append(
        f"<line x1='{x_of(c, 0):.1f}' x2='{x_of(c, 0):.1f}' y1='{top - 4}' y2='{y_end + 4}' "
        "stroke='#555'/>"
    )
    for v in (-layout.lim, 0.0, layout.lim):
        anchor = "start" if v < 0 else "end" if v > 0 else "middle"
        out.append(
            f"<text class='s' x='{x_of(c, v):.1f}' y='{y_end + 18}' text-anchor='{anchor}'>"
            f"{_v(v, 2) if v else '0'}</text>"
        )
    return out


def _forest_marks(layout: _ForestLayout, rows, columns, cells, result):
    """The label column (attributes, groups with their sizes) and each comparison's mark,
    as two lists of SVG elements."""
    labels, marks = [], []
    y = layout.top
    shade = False
    for kind, item in rows:
        if kind == "attribute":
            ref = item["reference"]
            labels.append(
                f"<text class='h' x='4' y='{y + 15}'>{_e(item['name'])}"
                f"<tspan class='s' dx='6'>vs {_e(ref)}</tspan></text>"
            )
            y += layout.head_h
            shade = False
            continue
        attribute, group, reference = item
        if shade:
            labels.append(
                f"<rect x='0' y='{y}' width='{layout.label_w - 4}' height='{layout.row_h}' "
                "fill='#f4f4f4'/>"
            )
        shade = not shade
        n = _group_size(result, attribute, group)
        labels.append(
            f"<text class='t' x='14' y='{y + 13.5}'>{_e(_short(group, 30))}"
            f"<tspan class='s' dx='5'>n={n:,}</tspan></text>"
        )
        yc = y + layout.row_h / 2
        for c, metric in enumerate(columns):
            t = cells.get((attribute, group, reference, metric))
            if t is None:
                continue
            if "error" in t:
                marks.append(
                    f"<text class='s' x='{layout.x_of(c, 0) + 4:.1f}' y='{yc + 4:.1f}'>n/a"
                    f"<title>{_e(t['error'])}</title></text>"
                )
                continue
            marks.append(_forest_mark(t, c, yc, layout.lim, layout.x_of))
        y += layout.row_h
    return labels, marks


def _forest_legend(tau: float, lim: float) -> str:
    return (
        "<p class='legend note'>"
        f"<span><i class='dot' style='background:{COLOURS['difference']}'></i>DIFFERENCE</span>"
        f"<span><i class='dot' style='background:{COLOURS['no_evidence']}'></i>no evidence, "
        f"could detect τ</span><span><i class='dot' style='border:2px solid "
        f"{COLOURS['underpowered']};width:7px;height:7px'></i>too small to tell</span>"
        f"<span>dashed green: ±τ = {tau:g}; intervals beyond ±{lim:g} end in an "
        "arrow. Hover a point for its numbers.</span>"
        "<span class='narrow'>Scroll the plot sideways for the other metrics.</span></p>"
    )


def _forest_mark(t, c, yc, lim, x_of) -> str:
    colour = COLOURS[t["decision"]]
    parts = []
    title = (
        f"{t['metric']} {t['group']} vs {t['reference']}: {_ci(t)}; p {_pvalue_phrase(t)}, "
        f"adjusted {_pvalue(t, 'pvalue_adjusted')}; MDE {_mde(t)}; {t['verdict']}"
    )
    if "ci_low" in t:
        lo, hi = t["ci_low"], t["ci_high"]
        parts.append(
            f"<line x1='{x_of(c, lo):.1f}' x2='{x_of(c, hi):.1f}' y1='{yc:.1f}' y2='{yc:.1f}' "
            f"stroke='{colour}' stroke-width='1.6'/>"
        )
        for bound, sign in ((lo, -1), (hi, 1)):
            if abs(bound) > lim:
                xe = x_of(c, bound)
                parts.append(
                    f"<path d='M{xe:.1f},{yc:.1f} l{-6 * sign},-4 l0,8 z' fill='{colour}'/>"
                )
    x = x_of(c, t["difference"])
    fill = "white" if t["decision"] == "underpowered" else colour
    parts.append(
        f"<circle cx='{x:.1f}' cy='{yc:.1f}' r='4' fill='{fill}' stroke='{colour}' "
        f"stroke-width='1.6'><title>{_e(title)}</title></circle>"
    )
    return "".join(parts)


def _short(text, n) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _group_size(result, attribute, group) -> int:
    for attr in result.attributes:
        if attr["name"] == attribute:
            for g in attr["groups"]:
                if g["group"] == group:
                    return g["n"]
    return 0


def _forest_section(result) -> str:
    return (
        "<h2>Every difference with its 95% interval</h2>"
        "<p class='note'>Group minus reference, one column per metric; intervals are "
        "pointwise (not adjusted for the number of tests), verdicts use the adjusted "
        "p-values.</p>" + forest_svg(result)
    )


# ---- tables ---------------------------------------------------------------------------


def _tests_section(result) -> str:
    head = [
        ("metric", "l"),
        ("value", ""),
        ("reference", ""),
        ("difference [95% CI]", ""),
        ("p-value", ""),
        ("adjusted", ""),
        ("MDE", ""),
        (f"power at τ={result.tau:g}", ""),
        ("rows for τ", ""),
        ("verdict", "l"),
    ]
    rows = [
        "<div class='scroll'><table><tr>"
        + "".join(f"<th class='{c}'>{_e(h)}</th>" for h, c in head)
        + "</tr>"
    ]
    for attr, tests in _by_attribute(result):
        rows.append(
            f"<tr class='attr'><td colspan='{len(head)}'><span class='stick'>"
            f"{_e(_attribute_line(attr, result.min_group_size))}</span></td></tr>"
        )
        previous = None
        for t in tests:
            if _comparison(t) != previous:
                previous = _comparison(t)
                rows.append(
                    f"<tr class='comp'><td colspan='{len(head)}'><span class='stick'>"
                    f"{_e(previous)}</span></td></tr>"
                )
            if "error" in t:
                rows.append(
                    f"<tr><td class='l'>{_e(METRIC_TITLES.get(t['metric'], t['metric']))}</td>"
                    f"<td colspan='{len(head) - 1}' class='l underpowered why'>{_e(t['verdict'])}"
                    "</td></tr>"
                )
                continue
            cells = [
                (METRIC_TITLES.get(t["metric"], t["metric"]), "l"),
                (_v(t.get("value_group")), ""),
                (_v(t.get("value_reference")), ""),
                (_ci(t), ""),
                (_pvalue(t), ""),
                (_pvalue(t, "pvalue_adjusted"), ""),
                (_mde(t), ""),
                (_power(t), ""),
                (_needed(t), ""),
                (SHORT_VERDICTS[t["decision"]], f"l {t['decision']}"),
            ]
            notes = [t[k] for k in ("note", "margin_note") if t.get(k)]
            title = f" title='{_e('; '.join([t['verdict'], *notes]))}'"
            rows.append(
                f"<tr{title}>"
                + "".join(
                    f"<td class='{c}'>{_e(v).replace(' / ', '<br>')}</td>" for v, c in cells
                )  # equalized odds: its TPR and FPR parts on two lines
                + "</tr>"
            )
    return (
        "<h2>All tests</h2><p class='note'>MDE: the smallest difference this comparison "
        f"detects with {result.power:.0%} power at &alpha; = {result.alpha:g} (asymptotic planner "
        "figure for one comparison); rows for τ: rows of the two groups, in their observed "
        f"proportion, that give {result.power:.0%} power at τ."
        "<span class='narrow'> Scroll the table sideways for every column.</span></p>"
        + "\n".join(rows)
        + "</table></div>"
    )


def _gap(x) -> str:
    """A gap (per component for equalized odds)."""
    return " / ".join(_v(v) for v in x) if isinstance(x, list) else _v(x)


def _model_comparison_cells(t) -> list[str]:
    """attribute, metric, comparison, gap A, gap B, change [CI], p-values, verdict."""
    head = [t["attribute"], t["metric"], f"{_clip(t['group'])} vs {_clip(t['reference'])}"]
    if "error" in t:  # the five number cells empty, the reason in the verdict column
        return [*head, *["-"] * 5, f"{t['verdict']}: {_clip(t['error'], 120)}"]
    return [*head, _gap(t["gap_a"]), _gap(t["gap_b"]), _ci(t), _pvalue(t, "pvalue_adjusted"),
            _pvalue(t, "pvalue_reduced_adjusted"), t["verdict"]]  # fmt: skip


MODEL_COMPARISON_HEADER = ["attribute", "metric", "comparison", "gap A", "gap B",
                           "change [95% CI]", "p (equal)", "p (shrank)", "verdict"]  # fmt: skip


def _model_comparison_title(result) -> str:
    a, b = result.columns.get("compare", ["model A", "model B"])
    return (
        f"Did the gap shrink? model B ({b}) against model A ({a}) on the same rows: gaps "
        "(group - reference), change = gap B - gap A, paired tests (docs/compare.md); "
        f"p-values adjusted ({result.adjust}) over these {len(result.model_comparison)} "
        "comparisons"
    )


def _model_comparison_lines(result) -> list[str]:
    """The printed "did the gap shrink?" section (audit option compare)."""
    if not result.model_comparison:
        return []
    rows = [MODEL_COMPARISON_HEADER]
    rows += [_model_comparison_cells(t) for t in result.model_comparison]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rows.insert(1, ["-" * w for w in widths])
    table = ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return ["", _model_comparison_title(result), *table]


def _model_comparison_section(result) -> str:
    """The report's "did the gap shrink?" table (audit option compare)."""
    if not result.model_comparison:
        return ""
    head = "".join(f"<th>{_e(h)}</th>" for h in MODEL_COMPARISON_HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(c)}</td>" for c in _model_comparison_cells(t)) + "</tr>"
        for t in result.model_comparison
    )
    return (
        f"<h2>Did the gap shrink?</h2><p class='note'>{_e(_model_comparison_title(result))}."
        " p (shrank): H1 |gap B| &lt; |gap A|.</p>"
        f"<div class='scroll'><table><tr>{head}</tr>{body}</table></div>"
    )


# ---- slices (audit option slices) ------------------------------------------------------

SLICES_HEADER = ["slice", "metric", "size", "n", "value", "complement",
                 "difference [simultaneous CI]", "p (adjusted)", "parents"]  # fmt: skip
#: Slices listed in the printed audit and in the report (all are in the JSON).
SLICES_SHOWN = {"text": 20, "html": 100}


def _slices_head(sl) -> str:
    """What was searched, and how the error is controlled."""
    return (
        f"Slices: every subgroup of up to {sl.max_depth} conditions attribute = group over "
        f"{', '.join(sl.features)} with at least {sl.min_size:,} rows, each against its "
        f"complement (the other rows); {sl.control}"
    )


def _slices_tested(sl) -> str:
    """ "tested: tpr 17 slices (effective 12.3), ..." and each search's critical value."""
    parts = [
        f"{METRIC_TITLES.get(m, m)} {res.n_slices:,} slices ({res.n_distinct:,} distinct; "
        f"effective number {res.effective_n_slices:,.1f}; critical |z| "
        f"{res.critical_value:.2f})"
        for m, res in sl.searches.items()
    ]
    return "Tested: " + ("; ".join(parts) if parts else "nothing")


def _slice_cells(sl, metric, found) -> list[str]:
    """One significant slice as the cells of SLICES_HEADER."""
    lower, upper = found.confidence_interval
    parents = "; ".join(f"{p} {_v(v)}" for p, v in found.parent_values)
    return [
        found.description, METRIC_TITLES.get(metric, metric), f"{found.size:,}",
        f"{found.n:,}", _v(found.value), _v(found.complement_value),
        f"{_v(found.difference)} [{_v(lower)}, {_v(upper)}]",
        format_pvalue(found.pvalue_adjusted, "permutation", sl.n_permutations), parents,
    ]  # fmt: skip


def _slices_rows(sl, where: str) -> tuple[list, int]:
    """The cells of the slices shown, and how many more were found."""
    found = sl.found
    shown = found[: SLICES_SHOWN[where]]
    return [_slice_cells(sl, m, f) for m, f in shown], len(found) - len(shown)


def _slices_notes(sl) -> list[str]:
    """Why a metric was not searched (the same reason once for several metrics)."""
    by_reason: dict[str, list[str]] = {}
    for metric, note in sl.notes.items():
        by_reason.setdefault(note, []).append(metric)
    return [f"not searched ({', '.join(ms)}): {note}" for note, ms in by_reason.items()]


def _slices_lines(result) -> list[str]:
    """The printed slice search (audit option slices)."""
    sl = result.slices
    if sl is None:
        return []
    rows, more = _slices_rows(sl, "text")
    lines = ["", _slices_head(sl), _slices_tested(sl)]
    if rows:
        cells = [[_clip(c, 60) for c in r] for r in [SLICES_HEADER, *rows]]
        widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
        cells.insert(1, ["-" * w for w in widths])
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    elif sl.searches:
        lines.append("No slice differs significantly from its complement.")
    if more:
        lines.append(f"... {more:,} more significant slices (all are in --json)")
    return lines + [f"note: slices {n}" for n in _slices_notes(sl)]


def _slices_family(sl) -> str:
    """The report's table of the searches: slices tested, effective number, critical value."""
    columns = ("slices tested", "distinct", "effective number", "critical |z|", "significant")
    head = "<th class='l'>metric</th>" + "".join(f"<th>{h}</th>" for h in columns)
    body = "".join(
        f"<tr><td class='l'>{_e(METRIC_TITLES.get(m, m))}</td><td>{res.n_slices:,}</td>"
        f"<td>{res.n_distinct:,}</td><td>{res.effective_n_slices:,.1f}</td>"
        f"<td>{res.critical_value:.2f}</td><td>{len(res.slices):,}</td></tr>"
        for m, res in sl.searches.items()
    )
    return f"<div class='scroll'><table class='family'><tr>{head}</tr>{body}</table></div>"


def _slices_section(result) -> str:
    """The report's slice search (audit option slices): the family tested and the error
    control, then the significant slices ranked by the size of the difference."""
    sl = result.slices
    if sl is None:
        return ""
    rows, more = _slices_rows(sl, "html")
    text = (f"<p class='note'>{_e(_slices_head(sl))}. The effective number of slices is "
            "the Bonferroni-equivalent size of the family (fewer than those tested where "
            "slices overlap).</p>")  # fmt: skip
    text += _slices_family(sl) if sl.searches else ""
    if rows:
        left = (0, 1, 8)
        head = "".join(f"<th class='l'>{_e(h)}</th>" if k in left else f"<th>{_e(h)}</th>"
                       for k, h in enumerate(SLICES_HEADER))  # fmt: skip
        body = "".join(
            "<tr>" + "".join(f"<td class='l{' parents' * (k == 8)}'>{_e(c)}</td>" if k in left
                             else f"<td>{_e(c)}</td>" for k, c in enumerate(r)) + "</tr>"
            for r in rows
        )  # fmt: skip
        text += (
            "<p class='note'>Significant slices, largest difference first: size (rows), n "
            "(rows in the rate's denominator), the rate in the slice and in its complement, "
            "the difference with its interval (simultaneous over the slices of the metric) "
            "and the adjusted p-value; a parent is the slice with one condition fewer, so "
            "its value shows whether the last condition adds anything.</p>"
            f"<div class='scroll'><table class='slices'><tr>{head}</tr>{body}</table></div>"
        )
    elif sl.searches:
        text += "<p><b>No slice differs significantly from its complement.</b></p>"
    if more:
        text += f"<p class='note'>{more:,} more significant slices are in the JSON.</p>"
    text += "".join(f"<p class='note'>{_e(n)}.</p>" for n in _slices_notes(sl))
    return "<h2>Slices: the subgroups nobody named</h2>" + text


def _margins_section(result) -> str:
    """What the tolerance and equivalence verdicts mean (only when the audit ran them)."""
    rows = [t for t in result.tests if "pvalue_equivalence" in t or "pvalue_tolerance" in t]
    if not rows:
        return ""
    paras = [
        "A test of equality answers <i>is there a gap?</i> Its 'no evidence' verdict says "
        "only that this audit did not find one: a small audit finds none even when the gap "
        "is large (see its interval and MDE). It is a statement about what was "
        "<i>not found</i>, never evidence of fairness."
    ]
    delta = next((t["delta"] for t in rows if "delta" in t), None)
    if delta is not None:
        shown = sum(t.get("pvalue_equivalence_adjusted", 1.0) <= result.alpha for t in rows)
        paras.append(
            f"<b>FAIR within ±{delta:g}</b> is the verdict of an equivalence test (two "
            f"one-sided tests, TOST): the data rule out every gap of {delta:g} or more, i.e. "
            f"the {1 - 2 * result.alpha:.0%} interval of the difference lies inside "
            f"(-{delta:g}, {delta:g}). Its p-values are adjusted over the comparisons as a "
            "family of their own. A real but small gap can be shown both ways: "
            f"<b>DIFFERENCE, within ±{delta:g}</b>. Here {shown} of {len(rows)} comparisons "
            f"are shown to be within ±{delta:g}; for the others the audit cannot tell."
        )
    u_tol = next((t["u_tol"] for t in rows if "u_tol" in t), None)
    if u_tol is not None:
        paras.append(
            f"<b>DIFFERENCE beyond ±{u_tol:g}</b>: with a tolerance, the difference verdict "
            f"tests H0: |gap| ≤ {u_tol:g}, so it says the gap exceeds the tolerance, not "
            "merely that it differs from 0 (the test of equality is still listed)."
        )
    paras.append(
        "Rates are tested with the Miettinen-Nurminen score test, or with the exact "
        "unconditional test (Chan 1998) when a group has fewer than 20 events or non-events, "
        "or fewer than 50 against a group 20 or more times larger (up to 200,000 rows, or "
        "a group of at most 500 rows against any reference); "
        "AUCs with the hybrid MOVER test (each group's logit-scale DeLong interval with a "
        "Student t reference, widened by Newcombe's score-type interval below 100 positives "
        "or negatives)."
    )
    approximate = [t for t in rows if t.get("margin_note")]
    if approximate:
        names = ", ".join(f"{t['group']} vs {t['reference']}" for t in approximate)
        paras.append(
            f"<b>Approximate</b>: {len(approximate)} AUC comparison(s) ({_e(names)}) have "
            "fewer than 5 positives or negatives in a group; their tolerance and "
            "equivalence p-values are approximate (the test's level was validated by "
            "simulation down to about 6 per class)."
        )
    return "<h2>No evidence of a gap vs. shown to be fair</h2>" + "".join(
        f"<p>{p}</p>" for p in paras
    )


def _power_section(result) -> str:
    metrics = list(dict.fromkeys(t["metric"] for t in result.tests if t.get("mde") is not None))
    if not metrics:
        return ""
    head = "<tr><th class='l'>comparison</th>" + "".join(
        f"<th>{_e(METRIC_TITLES.get(m, m))}</th>" for m in metrics
    )
    rows = [f"<div class='scroll'><table>{head}</tr>"]
    for attr, tests in _by_attribute(result):
        by = {}
        for t in tests:
            if t.get("mde") is not None:
                by.setdefault((t["group"], t["reference"]), {})[t["metric"]] = t
        if not by:
            continue
        rows.append(
            f"<tr class='attr'><td colspan='{len(metrics) + 1}'>{_e(attr['name'])}</td></tr>"
        )
        for (g, r), per in by.items():
            cells = []
            for m in metrics:
                t = per.get(m)
                if t is None:
                    cells.append("<td>-</td>")
                    continue
                cls = "mde-ok" if t["mde"] <= result.tau else "mde-low"
                cells.append(
                    f"<td class='{cls}' title='power at τ {_power(t)}; rows for τ "
                    f"{_needed(t)}'>{_mde(t)} <span class='note'>({_power(t)})</span></td>"
                )
            rows.append(f"<tr><td class='l'>{_e(g)} vs {_e(r)}</td>{''.join(cells)}</tr>")
    return (
        "<h2>Could the audit detect a gap? Minimum detectable difference (power at τ)</h2>"
        f"<p class='note'>Each cell: the smallest difference detected with {result.power:.0%} "
        f"power at &alpha; = {result.alpha:g}, and in brackets the power to detect τ = "
        f"{result.tau:g}. Green: the comparison could detect τ. Planner's asymptotic "
        "(normal-approximation) figure at the observed group sizes and rates, for one "
        "comparison; the Holm adjustment makes the audit somewhat less powerful.</p>"
        + "\n".join(rows)
        + "</table></div>"
    )


def _groups_section(result) -> str:
    names = ["tpr", "fpr", "ppv", "selection_rate", "accuracy"]
    head = (
        "<tr><th class='l'>group</th><th>rows</th><th>base rate</th>"
        + "".join(f"<th>{METRIC_TITLES[m]} [95% CI]</th>" for m in names)
        + "</tr>"
    )
    rows = [f"<div class='scroll'><table>{head}"]
    for attr in result.attributes:
        cells = result.group_cells[attr["name"]]
        n = cells.sum(axis=1)
        rows.append(
            f"<tr class='attr'><td colspan='{len(names) + 3}'>{_e(attr['name'])}</td></tr>"
        )
        labels = [g["group"] for g in attr["groups"]]
        present = np.flatnonzero(n > 0)
        for k, g in zip(present, labels):
            out = [f"<td class='l'>{_e(g)}</td><td>{int(n[k]):,}</td>"]
            out.append(f"<td>{(cells[k, 2] + cells[k, 3]) / n[k]:.3f}</td>")
            for m in names:
                num, den = CONFUSION_METRICS[m].rates(cells[k : k + 1])
                num, den = float(num[0, 0]), float(den[0, 0])
                if den == 0:
                    out.append("<td>-</td>")
                    continue
                lo, hi = rate_limits(num, den)
                out.append(f"<td>{num / den:.3f} [{float(lo):.3f}, {float(hi):.3f}]</td>")
            rows.append("<tr>" + "".join(out) + "</tr>")
    return (
        "<h2>Groups</h2><p class='note'>Each group's rates with 95% intervals, "
        "Clopper-Pearson below 50 events or non-events and Wilson's otherwise "
        "(skipped groups included).</p>" + "\n".join(rows) + "</table></div>"
    )


# ---- calibration curves (matplotlib) ---------------------------------------------------


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


#: Coverage of the calibration curves' pointwise 95% bands for a group of 30 rows with rare
#: outcomes against 1,000 (validation/results/parity_band_coverage.txt): why the report
#: draws none (0.79 with scores spread over (0, 1), 0.88 for 1,000 rows with rare outcomes).
BAND_COVERAGE = "0.22"
#: Attributes with more groups than this get one small panel per group (each curve, the
#: other groups' curves in grey): more curves on one panel hide each other.
MAX_GROUPS_ONE_PANEL = 3


def _calibration_section(result) -> str:
    if not result.parity:
        return ""
    head = "<h2>Calibration curves by group</h2>"
    plt = _pyplot()
    if plt is None:
        return head + (
            "<p class='note'>The calibration curves need matplotlib: "
            '<code>pip install "fastfair[plot]"</code>. The predictive-parity tests are in '
            "the table of all tests.</p>"
        )
    tests = {t["attribute"]: t for t in result.tests if t["family"] == "parity"}
    images, blocks = [], []
    for name, res in result.parity.items():
        t = tests.get(name, {})
        title = f"{name}: p {_pvalue_phrase(t)}" if "pvalue" in t else name
        curve = res.curve
        if len(curve.groups) <= MAX_GROUPS_ONE_PANEL:
            fig, ax = plt.subplots(figsize=(3.7, 4.4))
            _calibration_panel(ax, curve, range(len(curve.groups)), title)
            ax.legend(
                fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                frameon=False,
            )  # fmt: skip
            images.append(_img(fig, plt, f"calibration curves of {name}"))
            continue
        small = []
        for j, g in enumerate(curve.groups):
            fig, ax = plt.subplots(figsize=(2.6, 2.5))
            _calibration_panel(ax, curve, [j], _short(g, 28), small=True)
            small.append(_img(fig, plt, f"calibration curve of {name} = {g}"))
        blocks.append(
            f"<p class='note'><b>{_e(title)}</b>: one panel per group, its curve; grey: the "
            "other groups' curves.</p>"
            f"<div class='plots'>{''.join(small)}</div>"
        )
    return (
        head + "<p class='note'>Observed outcome rate against the score (Nadaraya-Watson), "
        "drawn where a group has enough data for a standard error; dotted: perfect "
        "calibration. Predictive parity holds when the curves coincide; the p-value tests "
        "all groups over the whole score range. No pointwise bands are drawn: a smoothed "
        f"curve's 95% band covered the true curve as little as {BAND_COVERAGE} of the time "
        "for a small group or rare outcomes (validation/results/parity_band_coverage.txt). "
        f"Attributes with more than {MAX_GROUPS_ONE_PANEL} groups get one panel per group.</p>"
        + (f"<div class='plots'>{''.join(images)}</div>" if images else "")
        + "".join(blocks)
    )


def _calibration_panel(ax, curve, shown, title: str, small: bool = False) -> None:
    """The curves of the groups `shown` on `ax` (no bands: BAND_COVERAGE); with `small`, the
    other groups' curves in grey behind them."""
    for j, g in enumerate(curve.groups):
        estimate = np.where(np.isfinite(curve.standard_error[j]), curve.estimate[j], np.nan)
        if j not in shown:
            if small:
                ax.plot(curve.grid, estimate, color="#c8c8c8", lw=0.9)
            continue
        colour = "C0" if small else None
        ax.plot(curve.grid, estimate, lw=1.4, label=str(g), color=colour)
    lo, hi = float(curve.grid[0]), float(curve.grid[-1])
    ax.plot([lo, hi], [lo, hi], color="grey", ls=":", lw=1)
    ax.set_title(title, fontsize=9 if small else 10)
    ax.set_xlabel("score", fontsize=8 if small else 9)
    ax.set_ylabel("observed outcome rate", fontsize=8 if small else 9)
    ax.set_ylim(-0.02, 1.02)
    ax.tick_params(labelsize=7 if small else 8)


def _sweep_section(result) -> str:
    """TPR and FPR gaps across score thresholds (attributes with two tested groups)."""
    from fastfair.sweep import html_section

    plot = _pyplot() is not None
    return "\n".join(
        html_section(res, plot=plot).replace(
            "<h2>Fairness across thresholds</h2>",
            f"<h2>Fairness across thresholds: {_e(name)}</h2>",
        )
        for name, res in result.sweeps.items()
    )


def _img(fig, plt, alt: str) -> str:
    """`fig` as an embedded PNG (closed afterwards)."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"<img alt='{_e(alt)}' src='data:image/png;base64,{data}'>"


# ---- method notes ---------------------------------------------------------------------


def _notes_section(result) -> str:
    families = {t["family"] for t in result.tests}
    notes = [
        "<b>Rates</b> (TPR, FPR, PPV, selection rate, accuracy): an exact permutation test. "
        "Among the rows that define the rate (e.g. the people with a positive outcome, for "
        "TPR), group labels are shuffled: if the rate is the same in both groups, any "
        "shuffle is as likely as the observed data. It assumes one row per independent "
        "person and no large-sample approximation; the p-value is exact.",
        "<b>Equalized odds</b> tests TPR and FPR together (sum of the squared studentized "
        "differences); its two differences are the TPR and FPR columns of the forest plot.",
    ]
    if "auc" in families:
        notes.append(
            "<b>AUC</b>: how well the score ranks positives above negatives in each group. "
            "Permutation test of the AUC difference divided by its DeLong standard error "
            "(labels shuffled within positives and within negatives, random permutations); "
            "the interval combines each group's logit-scale DeLong interval with Newcombe's "
            "score-type interval where a group has few positives or negatives (it covers for "
            "small groups, where DeLong's Wald interval did not). Assumes independent rows."
        )
    if "parity" in families:
        notes.append(
            "<b>Predictive parity</b>: does the same score mean the same outcome rate in "
            "every group? Calibration curves estimated by kernel smoothing and compared over "
            "the whole score range at once (multiplier bootstrap; with a cluster column, one "
            "user's rows may depend on each other)."
        )
    notes += [
        f"<b>Several tests</b>: the {len(result.tests)} p-values are adjusted together "
        f"({result.adjust}), so the chance of any false DIFFERENCE in the whole audit is at "
        f"most &alpha; = {result.alpha:g}, whatever the dependence between the tests. "
        "Intervals are 95% for each difference alone.",
        "<b>Power</b>: the smallest detectable difference (MDE) is the planner's figure "
        "(normal approximation, Singh &amp; Chunara 2023) for a two-sided test at &alpha; with "
        f"{result.power:.0%} power, at the observed group sizes and rates. 'No evidence' with "
        "an MDE below τ means a gap of τ would probably have been seen; 'too small to tell' "
        "means it could have been missed: collect more rows (column 'rows for τ').",
        "<b>p-values</b> print at the precision their method has: a Monte-Carlo p-value "
        "with no permutation as extreme as the data prints as &lt; 1/(B+1); exact or "
        "asymptotic values below 1e-16 print as &lt; 1e-16. The JSON keeps every float.",
        f"<b>Groups</b> with fewer than {result.min_group_size} rows are skipped and listed; "
        "intersections combine attributes (e.g. 'Female &amp; Black').",
        "'No evidence' is not evidence of fairness: read it with the interval and the MDE.",
    ]
    return (
        "<h2>How to read this audit</h2><ul>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"
    )


SECTIONS = [
    _summary_section,
    _forest_section,
    _tests_section,
    _margins_section,
    _model_comparison_section,
    _slices_section,
    _power_section,
    _calibration_section,
    _sweep_section,
    _groups_section,
    _notes_section,
]
