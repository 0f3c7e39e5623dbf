"""The `fastfair` command line: a complete fairness audit of a table of predictions.

    fastfair audit DATA --label COL (--pred COL | --score COL [--threshold T]) --group COL
    fastfair audit --demo
    fastfair plan --metric tpr --rate tpr=0.68,0.79 --rate prevalence=0.35,0.44 --tau 0.1

Exit status 0 on success, 2 with a one-line reason on bad input. Nothing is written unless
asked (--json, --report); files are written atomically (temporary file, then rename).
The JSON keys are documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import sys
import time
from importlib import resources

import numpy as np

import fastfair
from fastfair import _textfile
from fastfair._pvalues import adjust_pvalues
from fastfair._validation import GroupCodes, as_groups

DEFAULT_METRICS = ["tpr", "fpr", "ppv", "selection_rate", "accuracy", "equalized_odds"]
DEMO_FILE = "adult_demo.csv"
DEFAULT_MAX_ROWS = 100
JSON_SCHEMA_VERSION = 1


class CLIError(ValueError):
    """Bad input: reported as one line, exit status 2 (a ValueError for library callers)."""


# --------------------------------------------------------------------------------------
# Reading data
# --------------------------------------------------------------------------------------


def read_table(path: str) -> dict[str, np.ndarray]:
    """Columns of a CSV or Parquet file as numpy arrays (numeric where every value parses).

    CSV files are read as spreadsheets and databases export them: the quirks handled or
    refused are listed in :mod:`fastfair._textfile` and docs/cli.md.
    """
    if not os.path.exists(path):
        raise CLIError(f"no such file: {path}")
    if os.path.isdir(path):
        raise CLIError(f"{path} is a directory, not a data file")
    if path.endswith((".parquet", ".pq")):
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise CLIError("reading Parquet needs pyarrow: pip install pyarrow") from exc
        try:
            table = pq.read_table(path)
        except Exception as exc:
            raise CLIError(f"cannot read {path} as Parquet: {exc}") from exc
        names = table.column_names
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise CLIError(f"{path}: the column name {duplicate!r} appears more than once")
        return {name: table.column(name).to_numpy() for name in names}
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        text = _textfile.decode_text(raw, path)
        delimiter, text = _textfile.detect_delimiter(text)
        header, body = _textfile.split_records(text, delimiter, path)
        return {
            name: _textfile.parse_column([r[j] for r in body], name)
            for j, name in enumerate(header)
        }
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


def _is_large_source(path: str) -> bool:
    """Parquet files, directories and globs go through the batch reader (fastfair.io)."""
    return (
        path.lower().endswith((".parquet", ".pq"))
        or os.path.isdir(path)
        or (not os.path.exists(path) and any(c in path for c in "*?["))
    )


def _read_audit_columns(path: str, args) -> dict:
    """Only the audit's columns, read in record batches; group and cluster coded once."""
    from fastfair.io import read_columns

    needed = [args.label, args.pred, args.score, args.group, args.cluster]
    columns = [c for c in needed if c is not None]
    coded = [c for c in (args.group, args.cluster) if c is not None]
    numbers = [c for c in (args.label, args.pred, args.score) if c is not None]
    binary = [c for c in (args.label, args.pred) if c is not None]
    try:
        table = read_columns(path, columns, codes=coded, complete=numbers, binary=binary)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc
    if args.cluster is not None:  # numeric ids as they are; text ids by their codes
        coded = table[args.cluster]
        numeric = coded.labels.dtype.kind in "biuf"
        table[args.cluster] = coded.to_numpy() if numeric else coded.codes
    return table


def _column(table: dict, name: str, role: str, complete: bool = True) -> np.ndarray:
    """Column `name` of the table; with `complete`, refuse missing cells (naming the first)."""
    if name not in table:
        raise CLIError(f"unknown {role} column {name!r}; available: {', '.join(table)}")
    values = table[name]
    if complete:
        missing = _textfile.missing_cells(values)
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise CLIError(
                f"{role} column {name!r} has {int(missing.sum()):,} missing values "
                f"(empty, NA, null or NaN; the first in data row {first + 1}); "
                "drop or fill those rows"
            )
    return values


def _binary(values: np.ndarray, name: str, pos_label) -> np.ndarray:
    try:
        return fastfair._validation.as_binary(values, name, pos_label)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from exc


def _pos_label(text: str | None, label: np.ndarray):
    """--pos-label as a value of the label column's type (a number, a bool or text)."""
    if text is None:
        return None
    if label.dtype.kind == "b":
        lowered = text.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise CLIError(f"--pos-label {text!r}: the label column is true/false")
        return np.bool_(lowered in ("true", "1"))
    if label.dtype.kind in "fiu":
        try:
            return float(text)
        except ValueError:
            raise CLIError(f"--pos-label {text!r}: the label column is numeric") from None
    return text


# --------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------


def run_audit(
    table: dict,
    *,
    label: str,
    group: str,
    pred: str | None = None,
    score: str | None = None,
    threshold: float = 0.5,
    cluster: str | None = None,
    reference=None,
    metrics=None,
    permutations: int = 9999,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int | None = None,
    pos_label=None,
    min_group_size: int = 10,
    progress=None,
    keep_nulls: bool = False,
) -> dict:
    """Run every applicable test; return the JSON-ready audit (see docs/cli.md)."""
    if pred is None and score is None:
        raise CLIError("give --pred (binary predictions) or --score (scores to threshold)")
    y = _binary(_column(table, label, "label"), "label", pos_label)
    scores = None
    if score is not None:
        scores = np.asarray(_column(table, score, "score"))
        if scores.dtype.kind not in "fiu" or not np.isfinite(scores).all():
            raise CLIError(f"score column {score!r} must be numeric with no missing values")
    if pred is not None:
        yhat = _binary(_column(table, pred, "prediction"), "prediction", pos_label)
    else:
        yhat = (scores >= threshold).astype(np.uint8)
    raw_groups = _column(table, group, "group", complete=False)
    clusters = None if cluster is None else _column(table, cluster, "cluster")
    try:  # coded once here (a hash coder); every test below reuses the codes
        codes, labels = as_groups(raw_groups, "group", min_groups=1)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"group column {group!r}: {exc}") from exc
    groups = GroupCodes(codes, labels)
    sizes = np.bincount(codes, minlength=len(labels))
    if len(labels) < 2:
        raise CLIError(f"group column {group!r} has a single group ({labels.tolist()[0]!r})")
    small = [(g, s) for g, s in zip(labels.tolist(), sizes.tolist()) if s < min_group_size]
    if small:
        g, s = small[0]
        raise CLIError(
            f"group {g!r} has only {s} rows (at least {min_group_size} needed; "
            "see --min-group-size)"
        )
    if reference is not None:
        matches = [g for g in labels.tolist() if str(g) == str(reference)]
        if not matches:
            raise CLIError(f"reference {reference!r} is not a group; groups: {labels.tolist()}")
        reference = matches[0]
    metrics = metrics or DEFAULT_METRICS
    tests, nulls = [], {}
    steps = len(metrics) + (scores is not None) * 2
    tick = progress(steps) if progress else (lambda: None)

    for metric in metrics:
        try:
            res = fastfair.permutation_test(
                y,
                yhat,
                groups,
                metric=metric,
                reference=reference,
                n_permutations=permutations,
                random_state=seed,
                n_jobs=jobs,
                return_null=keep_nulls,
            )
        except ValueError as exc:
            tests.append(dict(family="confusion", metric=metric, error=str(exc)))
            tick()
            continue
        tests.extend(_confusion_rows(metric, res))
        if keep_nulls and len(res.comparisons) == 1:
            nulls[metric] = (res.null_distribution, res.null_probabilities, res.statistic)
        tick()

    if scores is not None and hasattr(fastfair, "auc_test"):
        tests.extend(_auc_rows(y, scores, groups, reference, permutations, seed, jobs))
        tick()
    parity = None
    if scores is not None and hasattr(fastfair, "predictive_parity_test"):
        parity, parity_rows = _parity_rows(y, scores, groups, clusters, permutations, seed, jobs)
        tests.extend(parity_rows)
        tick()

    _adjust(tests, alpha)
    positives = np.bincount(codes, weights=y, minlength=len(labels))
    selected = np.bincount(codes, weights=yhat, minlength=len(labels))
    groups_summary = [
        dict(group=g, n=int(s), base_rate=float(p / s), selection_rate=float(q / s))
        for g, s, p, q in zip(labels.tolist(), sizes.tolist(), positives, selected)
    ]
    return dict(
        schema_version=JSON_SCHEMA_VERSION,
        fastfair_version=fastfair.__version__,
        n_rows=len(y),
        alpha=alpha,
        adjustment="holm over all tests in the table",
        columns=dict(
            label=label,
            pred=pred,
            score=score,
            threshold=threshold if pred is None else None,
            group=group,
            cluster=cluster,
        ),
        seed=seed,
        groups=groups_summary,
        tests=tests,
        parity=parity,
        _nulls=nulls,
    )


def _adjust(tests: list[dict], alpha: float) -> None:
    """Holm-adjusted p-values and verdicts over every test of the table."""
    valid = [t for t in tests if "pvalue" in t]
    adjusted = adjust_pvalues([t["pvalue"] for t in valid], "holm") if valid else []
    for t, p_adj in zip(valid, adjusted):
        t["pvalue_adjusted"] = float(p_adj)
        t["verdict"] = "DIFFERENCE" if p_adj <= alpha else "no evidence"


def _num(x):
    x = np.asarray(x, dtype=float)
    return float(x.ravel()[0]) if x.size == 1 else [float(v) for v in x.ravel()]


def _confusion_rows(metric: str, res) -> list[dict]:
    """One table row per comparison of a permutation_test result."""
    stats, pvals = np.atleast_1d(res.statistic), np.atleast_1d(res.pvalue)
    values = res.group_values.reshape(len(res.groups), -1)
    dens = res.group_denominators.reshape(len(res.groups), -1)
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    return [
        dict(
            family="confusion",
            metric=metric,
            group=a,
            reference=b,
            value_group=_num(values[index[a]]),
            value_reference=_num(values[index[b]]),
            difference=_num(values[index[a]] - values[index[b]]),
            statistic=float(stats[c]),
            pvalue=float(pvals[c]),
            method=res.method,
            scheme=res.scheme,
            n_group=_num(dens[index[a]]),
            n_reference=_num(dens[index[b]]),
        )
        for c, (a, b) in enumerate(res.comparisons)
    ]


def _auc_rows(y, scores, groups, reference, permutations, seed, jobs):
    try:
        res = fastfair.auc_test(
            y,
            scores,
            groups,
            reference=reference,
            n_permutations=permutations,
            random_state=seed,
            n_jobs=jobs,
        )
    except ValueError as exc:
        return [dict(family="auc", metric="auc", error=str(exc))]
    return _auc_result_rows(res)


def _auc_result_rows(res) -> list[dict]:
    """One table row per comparison of an auc_test result."""
    stats, pvals = np.atleast_1d(res.statistic), np.atleast_1d(res.pvalue)
    auc = dict(zip(res.groups.tolist(), np.atleast_1d(res.group_auc).tolist()))
    rows = []
    for c, (a, b) in enumerate(res.comparisons):
        rows.append(
            dict(
                family="auc",
                metric="auc",
                group=a,
                reference=b,
                value_group=auc[a],
                value_reference=auc[b],
                difference=auc[a] - auc[b],
                statistic=float(stats[c]),
                pvalue=float(pvals[c]),
                method=res.method,
                scheme=res.scheme,
            )
        )
    return rows


def _parity_rows(y, scores, groups, clusters, permutations, seed, jobs):
    try:
        res = fastfair.predictive_parity_test(
            y,
            scores,
            groups,
            cluster=clusters,
            adjust="maxT",
            n_bootstrap=permutations,
            random_state=seed,
            n_jobs=jobs,
        )
    except ValueError as exc:
        return None, [dict(family="parity", metric="predictive_parity", error=str(exc))]
    summary = dict(
        bandwidth=float(res.curve.bandwidth),
        weighting=res.curve.weighting,
        clustered=bool(res.curve.clustered),
        grid_table=res.table,
        result=res,
    )
    rows = [
        dict(
            family="parity",
            metric="predictive_parity",
            group=" / ".join(map(str, res.groups)),
            reference="(all grid points)",
            statistic=float(res.statistic),
            pvalue=float(res.pvalue),
            method=res.method,
            scheme="per-user clustered" if clusters is not None else "rows",
        )
    ]
    return summary, rows


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


def _fmt(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, list):
        return "/".join(_fmt(v, digits) for v in x)
    if isinstance(x, str):
        return x
    if x != 0 and abs(x) < 10 ** (-digits):
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


MAX_CELL = 40  # characters of a group name shown in the printed table
MAX_GROUPS_LINE = 120  # characters of the printed list of groups


def _clip(text: str, width: int = MAX_CELL) -> str:
    text = str(text)
    return text if len(text) <= width else text[: width - 3] + "..."


def format_audit(audit: dict, max_rows: int | None = None) -> str:
    """The printed table: at most `max_rows` tests (all when None), cells of bounded width.

    Its size is proportional to what it shows, not to the number of groups or to the
    length of their names: every test is in the JSON.
    """
    tests = audit["tests"]
    head = (
        f"fastfair {audit['fastfair_version']} audit: {audit['n_rows']:,} rows, "
        f"alpha = {audit['alpha']}, p-values adjusted (Holm) over all {len(tests)} tests"
    )
    header = [
        "metric",
        "group vs reference",
        "value",
        "reference",
        "difference",
        "statistic",
        "p-value",
        "adjusted",
        "verdict",
    ]
    shown = tests if max_rows is None else tests[:max_rows]
    rows = []
    for t in shown:
        if "error" in t:
            error = _clip("error: " + t["error"], 3 * MAX_CELL)
            rows.append([t["metric"], "-", "-", "-", "-", "-", "-", "-", error])
            continue
        rows.append(
            [
                t["metric"],
                f"{_clip(t['group'])} vs {_clip(t['reference'])}",
                _fmt(t.get("value_group")),
                _fmt(t.get("value_reference")),
                _fmt(t.get("difference")),
                _fmt(t["statistic"], 3),
                _fmt(t["pvalue"]),
                _fmt(t["pvalue_adjusted"]),
                t["verdict"],
            ]
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [head, ""]
    for r in [header, *rows]:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.insert(3, "  ".join("-" * w for w in widths))
    if len(shown) < len(tests):
        lines.append(
            f"... {len(tests) - len(shown):,} more tests not shown (--max-rows; all are in --json)"
        )
    listed = []
    for g in audit["groups"]:
        item = f"{_clip(g['group'])} (n={g['n']:,})"
        if listed and sum(len(x) + 2 for x in listed) + len(item) > MAX_GROUPS_LINE:
            break
        listed.append(item)
    groups = ", ".join(listed)
    if len(audit["groups"]) > len(listed):
        groups += f", ... ({len(audit['groups']) - len(listed):,} more)"
    lines += [
        "",
        f"groups: {groups}",
        "verdict DIFFERENCE: the metric differs between the groups at the adjusted level.",
    ]
    return "\n".join(lines)


def check_output_path(path: str, option: str, force: bool = False) -> None:
    """Raise CLIError unless `path` can be written: its folder exists and is writable, it
    is not a folder, and it does not exist (unless `force`)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CLIError(f"{option} {path}: is a directory; give a file name")
    if not os.path.isdir(folder):
        raise CLIError(f"{option} {path}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: the directory {folder} is not writable")
    if os.path.lexists(path) and not force:
        raise CLIError(f"{option} {path}: the file exists; use --force to overwrite it")


def write_atomic(path: str, text: str) -> None:
    """Write text to path through a temporary file in the same folder, then rename.

    The file gets the mode an ordinary new file would (0666 minus the umask).
    """
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(100):
        tmp = os.path.join(folder, f".fastfair-{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise CLIError(f"cannot create a temporary file in {folder}")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def audit_json(audit: dict) -> str:
    public = {k: v for k, v in audit.items() if not k.startswith("_")}
    if public.get("parity"):
        public["parity"] = {k: v for k, v in public["parity"].items() if k != "result"}
    return json.dumps(public, indent=2, default=_json_default)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialize {type(obj).__name__}")


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def _progress_factory(quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None

    def make(total):
        if tqdm is not None:
            bar = tqdm(total=total, file=sys.stderr, desc="tests", leave=False)
            return lambda: bar.update(1)
        state = {"done": 0}

        def tick():
            state["done"] += 1
            print(f"\r  tests {state['done']}/{total}", end="", file=sys.stderr, flush=True)

        return tick

    return make


class _Parser(argparse.ArgumentParser):
    """argparse with the package's error convention: one line on stderr, exit status 2."""

    def error(self, message):
        raise CLIError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fastfair", description="Statistical fairness audits.")
    parser.add_argument("--version", action="version", version=fastfair.__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    audit = sub.add_parser("audit", help="test fairness metrics on a table of predictions")
    audit.add_argument("data", nargs="?", help="CSV or Parquet file")
    audit.add_argument(
        "--demo",
        action="store_true",
        help="audit the bundled UCI Adult demo (label, score, prediction, sex, race)",
    )
    audit.add_argument("--label", help="binary outcome column")
    audit.add_argument("--pred", help="binary prediction column")
    audit.add_argument("--score", help="score column (predictions = score >= threshold)")
    audit.add_argument("--threshold", type=float, default=0.5)
    audit.add_argument("--group", help="protected-group column")
    audit.add_argument("--cluster", help="user/cluster column (dependent rows, predictive parity)")
    audit.add_argument("--reference", help="reference group (default: the largest)")
    audit.add_argument(
        "--metrics",
        nargs="+",
        default=None,
        help=f"confusion metrics (default: {' '.join(DEFAULT_METRICS)})",
    )
    audit.add_argument("--pos-label", help="positive value of label/prediction if not 0/1")
    audit.add_argument("--permutations", type=int, default=9999)
    audit.add_argument("--alpha", type=float, default=0.05)
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument("--jobs", type=int, default=None)
    audit.add_argument("--min-group-size", type=int, default=10)
    audit.add_argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"tests shown in the printed table (default {DEFAULT_MAX_ROWS}; all are in --json)",
    )
    audit.add_argument("--json", metavar="OUT", help="write the results as JSON")
    audit.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report")
    audit.add_argument("--force", action="store_true", help="overwrite existing output files")
    audit.add_argument("--quiet", action="store_true", help="no progress output")
    audit.add_argument(
        "--engine",
        choices=["memory", "arrow", "dask"],
        default=None,
        help="memory (default: every test, rows in memory); arrow or dask: tests from "
        "summaries built batch by batch, memory bounded by the batch (docs/data.md)",
    )
    audit.add_argument(
        "--scheduler", metavar="ADDRESS", help="dask scheduler address (implies --engine dask)"
    )

    plan = sub.add_parser("plan", help="sample size for a fairness audit")
    plan.add_argument("--metric", required=True)
    plan.add_argument(
        "--rate",
        action="append",
        default=[],
        metavar="NAME=G1,G2",
        help="per-group rates, e.g. tpr=0.68,0.79 (repeat for prevalence, ...)",
    )
    plan.add_argument("--tau", type=float, required=True, help="difference to detect")
    plan.add_argument("--u-tol", type=float, default=0.0)
    plan.add_argument("--alpha", type=float, default=0.05)
    plan.add_argument("--power", type=float, default=0.8)
    plan.add_argument("--allocation", default="neyman", help="neyman, equal, or a fraction")
    plan.add_argument("--alternative", default="two-sided", choices=["two-sided", "greater"])
    plan.add_argument("--json", metavar="OUT")
    plan.add_argument("--force", action="store_true", help="overwrite an existing output file")
    return parser


def check_audit_options(
    *,
    threshold: float = 0.5,
    alpha: float = 0.05,
    permutations: int = 9999,
    seed: int | None = 0,
    jobs: int | None = None,
    min_group_size: int = 10,
    metrics=None,
    max_rows: int | None = None,
) -> None:
    """Raise CLIError (a ValueError) naming the first option with an impossible value.

    Run before any data are read, so that a bad option never costs a long audit.
    """
    if not math.isfinite(threshold):
        raise CLIError(f"--threshold must be a finite number, got {threshold}")
    if not 0 < alpha < 1:
        raise CLIError(f"--alpha must be in (0, 1), got {alpha}")
    checks = [
        ("--permutations", permutations, lambda v: fastfair._validation.check_resamples(
            v, "--permutations", 1)),
        ("--seed", seed, lambda v: v is None or fastfair._random.stream_key(v)),
        ("--jobs", jobs, fastfair._parallel.effective_n_threads),
        ("--min-group-size", min_group_size, lambda v: fastfair._validation.check_int(
            v, "--min-group-size", 1)),
        ("--max-rows", max_rows, lambda v: v is None or fastfair._validation.check_int(
            v, "--max-rows", 0)),
    ]  # fmt: skip
    for option, value, check in checks:
        try:
            check(value)
        except (TypeError, ValueError) as exc:
            message = str(exc).replace("n_jobs", option).replace("random_state", option)
            raise CLIError(
                message if message.startswith(option) else f"{option}: {message}"
            ) from exc
    for metric in metrics or ():
        try:
            fastfair._metrics.get_metric(metric)
        except (TypeError, ValueError) as exc:
            raise CLIError(f"--metrics: {exc}") from exc


def _check_outputs(args) -> None:
    outputs = [(o, getattr(args, o[2:])) for o in ("--json", "--report")]
    outputs = [(o, p) for o, p in outputs if p]
    for option, path in outputs:
        check_output_path(path, option, args.force)
    if len(outputs) == 2 and os.path.abspath(outputs[0][1]) == os.path.abspath(outputs[1][1]):
        raise CLIError("--json and --report name the same file")


def _audit_command(args) -> int:
    if args.demo:
        if args.data:
            raise CLIError("give DATA or --demo, not both")
        path = str(resources.files("fastfair") / "data" / DEMO_FILE)
        args.label = args.label or "label"
        args.score = args.score or ("score" if not args.pred else None)
        args.group = args.group or "sex"
    else:
        if not args.data:
            raise CLIError("give a DATA file (CSV or Parquet) or --demo")
        path = args.data
        missing = [o for o in ("label", "group") if getattr(args, o) is None]
        if missing:
            raise CLIError(f"--{missing[0]} is required")
    if args.pred is None and args.score is None:
        raise CLIError("give --pred (binary predictions) or --score (scores to threshold)")
    check_audit_options(
        threshold=args.threshold,
        alpha=args.alpha,
        permutations=args.permutations,
        seed=args.seed,
        jobs=args.jobs,
        min_group_size=args.min_group_size,
        metrics=args.metrics,
        max_rows=args.max_rows,
    )
    _check_outputs(args)
    engine = args.engine or ("dask" if args.scheduler else "memory")
    if args.scheduler and engine != "dask":
        raise CLIError("--scheduler needs --engine dask")
    if engine != "memory":
        return _summary_audit_command(path, engine, args)
    table = _read_audit_columns(path, args) if _is_large_source(path) else read_table(path)
    pos_label = args.pos_label = _pos_label(args.pos_label, _column(table, args.label, "label"))
    start = time.perf_counter()
    audit = run_audit(
        table,
        label=args.label,
        group=args.group,
        pred=args.pred,
        score=args.score,
        threshold=args.threshold,
        cluster=args.cluster,
        reference=args.reference,
        metrics=args.metrics,
        permutations=args.permutations,
        alpha=args.alpha,
        seed=args.seed,
        jobs=args.jobs,
        pos_label=pos_label,
        min_group_size=args.min_group_size,
        progress=_progress_factory(args.quiet),
        keep_nulls=bool(args.report),
    )
    audit["elapsed_seconds"] = round(time.perf_counter() - start, 3)
    if not args.quiet and sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    print(format_audit(audit, args.max_rows))
    if args.demo:
        print(
            "data: UCI Adult test set (Kohavi 1996; CC BY 4.0), scored by a logistic "
            "regression fitted on Adult's training set (scripts/build_demo_data.py)"
        )
    if args.json:
        write_atomic(args.json, audit_json(audit))
    if args.report:
        from fastfair._report import audit_html

        write_atomic(args.report, audit_html(audit, table=table, args=args))
    return 0


def _summary_audit_command(path: str, engine: str, args) -> int:
    """The audit from mergeable summaries (fastfair._summary_audit): arrow or dask engine."""
    from fastfair import _summary_audit as summary_audit

    if args.report:
        raise CLIError(f"--report needs the rows in memory; not available with --engine {engine}")
    options = dict(
        label=args.label,
        group=args.group,
        pred=args.pred,
        score=args.score,
        threshold=args.threshold,
        pos_label=args.pos_label,
    )
    start = time.perf_counter()
    try:
        if engine == "arrow":
            summary = summary_audit.summarise_arrow(path, batch_rows=1 << 20, **options)
        else:
            summary = summary_audit.summarise_dask(path, scheduler=args.scheduler, **options)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from exc
    tests, groups, n_rows = summary_audit.audit_from_summary(
        summary,
        engine=engine,
        reference=args.reference,
        metrics=args.metrics or DEFAULT_METRICS,
        permutations=args.permutations,
        seed=args.seed,
        jobs=args.jobs,
        min_group_size=args.min_group_size,
        alpha=args.alpha,
    )
    _adjust(tests, args.alpha)
    audit = dict(
        schema_version=JSON_SCHEMA_VERSION,
        fastfair_version=fastfair.__version__,
        n_rows=n_rows,
        alpha=args.alpha,
        adjustment="holm over all tests in the table",
        columns=dict(
            label=args.label,
            pred=args.pred,
            score=args.score,
            threshold=args.threshold if args.pred is None else None,
            group=args.group,
            cluster=args.cluster,
        ),
        seed=args.seed,
        engine=engine,
        groups=groups,
        tests=tests,
        parity=None,
        _nulls={},
    )
    audit["elapsed_seconds"] = round(time.perf_counter() - start, 3)
    print(format_audit(audit, args.max_rows))
    if args.json:
        write_atomic(args.json, audit_json(audit))
    return 0


def _plan_command(args) -> int:
    if args.json:
        check_output_path(args.json, "--json", args.force)
    rates = {}
    for item in args.rate:
        name, _, values = item.partition("=")
        try:
            rates[name.strip()] = [float(v) for v in values.split(",")]
        except ValueError as exc:
            raise CLIError(f"--rate {item!r}: expected NAME=VALUE,VALUE") from exc
    allocation = args.allocation
    if allocation not in ("neyman", "equal"):
        try:
            allocation = float(allocation)
        except ValueError as exc:
            raise CLIError(
                f"--allocation must be neyman, equal or a fraction: {allocation}"
            ) from exc
    try:
        res = fastfair.sample_size(
            args.metric,
            rates=rates or None,
            tau=args.tau,
            u_tol=args.u_tol,
            alpha=args.alpha,
            power=args.power,
            allocation=allocation,
            alternative=args.alternative,
        )
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from exc
    print(res)
    if args.json:
        fields = {k: v for k, v in vars(res).items() if not k.startswith("_")}
        write_atomic(args.json, json.dumps(fields, indent=2, default=_json_default))
    return 0


def main(argv=None) -> int:
    """Entry point of the `fastfair` console script."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "audit":
            return _audit_command(args)
        return _plan_command(args)
    except CLIError as exc:
        print(f"fastfair: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "read_table", "run_audit"]
