"""Self-contained HTML report of an audit (tables always; plots when matplotlib is present)."""

from __future__ import annotations

import base64
import html
import io

import numpy as np

import fastfair
from fastfair._metrics import CONFUSION_METRICS
from fastfair._pvalues import wilson_interval


def audit_html(audit: dict, table: dict, args) -> str:
    """The report: summary table, group metrics with 95% intervals, null distributions."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>fastfair audit</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:right}th{background:#eee}.bad{color:#b00;font-weight:bold}</style>",
        "</head><body>",
        f"<h1>fastfair audit</h1><p>{audit['n_rows']:,} rows; alpha = {audit['alpha']}; "
        f"p-values adjusted by Holm over all tests; fastfair {audit['fastfair_version']}.</p>",
        "<h2>Tests</h2>",
        _tests_table(audit["tests"]),
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    y = fastfair._validation.as_binary(
        table[audit["columns"]["label"]],
        "label",
        args.pos_label
        if args.pos_label is None
        else type(table[audit["columns"]["label"]][0])(args.pos_label),
    )
    groups = table[audit["columns"]["group"]]
    if audit["columns"]["pred"]:
        yhat = fastfair._validation.as_binary(
            table[audit["columns"]["pred"]], "pred", args.pos_label
        )
    else:
        yhat = (table[audit["columns"]["score"]] >= audit["columns"]["threshold"]).astype(np.uint8)
    counts, labels = fastfair.confusion_counts(y, yhat, groups)
    parts += ["<h2>Group metrics (95% Wilson intervals)</h2>", _group_table(counts, labels)]
    if plt is None:
        parts.append(
            "<p><em>Plots need matplotlib: <code>pip install fastfair[plot]</code></em></p>"
        )
    else:
        parts.append(_img(_group_plot(plt, counts, labels)))
        if audit.get("parity"):
            parts.append("<h2>Calibration curves by group (pointwise 95% bands)</h2>")
            fig, ax = plt.subplots(figsize=(5, 4))
            audit["parity"]["result"].plot(ax)
            parts.append(_img(fig))
        if audit.get("_nulls"):
            parts.append("<h2>Permutation null distributions</h2>")
            parts.append(_img(_null_plot(plt, audit["_nulls"])))
    parts.append("</body></html>")
    return "\n".join(parts)


def _tests_table(tests) -> str:
    head = [
        "metric",
        "group",
        "reference",
        "value",
        "reference value",
        "difference",
        "statistic",
        "p-value",
        "adjusted",
        "verdict",
    ]
    rows = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for t in tests:
        if "error" in t:
            rows.append(
                f"<tr><td>{html.escape(t['metric'])}</td><td colspan=9>"
                f"{html.escape(t['error'])}</td></tr>"
            )
            continue
        cls = " class='bad'" if t["verdict"] == "DIFFERENCE" else ""
        cells = [
            t["metric"],
            t["group"],
            t["reference"],
            _f(t.get("value_group")),
            _f(t.get("value_reference")),
            _f(t.get("difference")),
            _f(t["statistic"]),
            _f(t["pvalue"]),
            _f(t["pvalue_adjusted"]),
            t["verdict"],
        ]
        rows.append(
            f"<tr{cls}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"
        )
    return "\n".join(rows) + "</table>"


def _rates(counts):
    out = {}
    for name in ("tpr", "fpr", "ppv", "npv", "selection_rate", "accuracy"):
        num, den = CONFUSION_METRICS[name].rates(counts)
        num, den = num[:, 0], den[:, 0]
        lo, hi = wilson_interval(num, np.maximum(den, 1))
        out[name] = (num / np.where(den > 0, den, np.nan), lo, hi)
    return out


def _group_table(counts, labels) -> str:
    rates = _rates(counts)
    head = "<tr><th>group</th><th>n</th>" + "".join(f"<th>{m}</th>" for m in rates) + "</tr>"
    rows = [f"<table>{head}"]
    for k, g in enumerate(labels.tolist()):
        cells = "".join(
            f"<td>{v[k]:.3f} [{lo[k]:.3f}, {hi[k]:.3f}]</td>" for v, lo, hi in rates.values()
        )
        rows.append(
            f"<tr><td>{html.escape(str(g))}</td><td>{int(counts[k].sum()):,}</td>{cells}</tr>"
        )
    return "\n".join(rows) + "</table>"


def _group_plot(plt, counts, labels):
    rates = _rates(counts)
    fig, axes = plt.subplots(1, len(rates), figsize=(3 * len(rates), 3), sharey=False)
    for ax, (name, (value, lo, hi)) in zip(axes, rates.items()):
        x = np.arange(len(labels))
        ax.errorbar(x, value, yerr=[value - lo, hi - value], fmt="o", capsize=4)
        ax.set_xticks(x, [str(g) for g in labels], rotation=45, ha="right")
        ax.set_title(name)
    fig.tight_layout()
    return fig


def _null_plot(plt, nulls):
    fig, axes = plt.subplots(1, len(nulls), figsize=(3.2 * len(nulls), 2.8), squeeze=False)
    for ax, (metric, (support, probs, observed)) in zip(axes[0], nulls.items()):
        if support is None:
            continue
        if probs is not None:  # exact: the enumerated distribution
            order = np.argsort(support)
            ax.plot(support[order], probs[order], lw=1)
            ax.set_ylabel("probability")
        else:
            ax.hist(support, bins=60, density=True)
        ax.axvline(observed, color="red", lw=1.5)
        ax.set_title(f"{metric}: observed (red)")
    fig.tight_layout()
    return fig


def _img(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    fig.clf()
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"<p><img alt='plot' src='data:image/png;base64,{data}'></p>"


def _f(x):
    if x is None:
        return "-"
    if isinstance(x, list):
        return "/".join(_f(v) for v in x)
    if isinstance(x, str):
        return x
    return f"{x:.4g}"
