"""The audit's result: :class:`AuditResult` (tests, attributes, summaries) and its JSON,
frame, HTML and text views, with the small value converters the audit's rows share."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._export import plain
from fastfair._format import format_adjusted_pvalue, format_pvalue

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ABSENT",
    "AuditResult",
    "AuditSlices",
    "AuditTest",
    "ModelComparisonRow",
    "pvalue_text",
]

#: Version of the dictionary of :meth:`AuditResult.to_dict` (the CLI's ``--json``).
SCHEMA_VERSION = 2


class _Absent:
    """The value of a field a test does not have (an error row has no p-value)."""

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


#: Marks a key an audit test does not have: the row's mapping view leaves it out.
ABSENT = _Absent()


class _Row(Mapping):
    """The dict view of the audit's typed rows (:class:`AuditTest`,
    :class:`ModelComparisonRow`): a row reads as the dict the audit used to give,
    ``row["pvalue"]``, ``row.get("mde")``, ``"error" in row``, ``dict(row)``, with the keys
    whose field is not :data:`ABSENT`, in the order the fields are declared."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, key) if key in self.__dataclass_fields__ else ABSENT
        if value is ABSENT:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        return (k for k in self.__dataclass_fields__ if getattr(self, k) is not ABSENT)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.items())})"

    def to_dict(self) -> dict:
        """The keys this row has, as a dict (the row's JSON).

        Returns
        -------
        dict
        """
        return dict(self)

    def to_frame(self) -> pd.DataFrame:
        """This row as a one-row DataFrame (columns: its keys). Needs pandas.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame([dict(self)])


@dataclass(frozen=True, eq=False, repr=False)
class AuditTest(_Row):
    """One test and comparison of the audit: a row of :attr:`AuditResult.tests`.

    A frozen record with one declared field per key of docs/cli.md. It reads as the dict
    the audit used to give: ``test["pvalue"]``, ``test.get("mde")``, ``"error" in test`` and
    ``dict(test)`` see the keys the test has, in the order of the fields; a key the test
    does not have (an error row's p-value, a predictive-parity row's MDE) is absent, not
    None.

    Examples
    --------
    >>> from fastfair.auditing.results import AuditTest
    >>> t = AuditTest(attribute="sex", family="confusion", metric="tpr", group="F",
    ...               reference="M", pvalue=0.01)
    >>> t["pvalue"], "mde" in t, t.get("mde"), list(t)
    (0.01, False, None, ['attribute', 'family', 'metric', 'group', 'reference', 'pvalue'])
    """

    attribute: str
    family: str
    metric: str
    group: Any = ABSENT
    reference: Any = ABSENT
    groups: list | _Absent = ABSENT
    value_group: float | list | _Absent = ABSENT
    value_reference: float | list | _Absent = ABSENT
    difference: float | list | _Absent = ABSENT
    ci_low: float | list | _Absent = ABSENT
    ci_high: float | list | _Absent = ABSENT
    confidence_level: float | _Absent = ABSENT
    statistic: float | _Absent = ABSENT
    pvalue: float | _Absent = ABSENT
    method: str | _Absent | None = ABSENT
    scheme: str | _Absent | None = ABSENT
    n_permutations: int | _Absent | None = ABSENT
    n_group: float | list | _Absent = ABSENT
    n_reference: float | list | _Absent = ABSENT
    note: str | _Absent = ABSENT
    error: str | _Absent = ABSENT
    mde: float | _Absent = ABSENT
    power_at_tau: float | _Absent = ABSENT
    n_needed: int | _Absent | None = ABSENT
    power_note: str | _Absent = ABSENT
    margin_note: str | _Absent = ABSENT
    u_tol: float | _Absent = ABSENT
    pvalue_tolerance: float | _Absent = ABSENT
    delta: float | _Absent = ABSENT
    pvalue_equivalence: float | _Absent = ABSENT
    pvalue_adjusted: float | _Absent = ABSENT
    pvalue_interval: list | _Absent = ABSENT
    pvalue_equivalence_adjusted: float | _Absent = ABSENT
    decision: str | _Absent = ABSENT
    verdict: str | _Absent = ABSENT


@dataclass(frozen=True, eq=False, repr=False)
class ModelComparisonRow(_Row):
    """One comparison of two models in the audit ("did the gap shrink?", option
    ``compare``): a row of :attr:`AuditResult.model_comparison`.

    A frozen record with one declared field per key of the comparison (docs/compare.md),
    read like :class:`AuditTest`: as a dict of the keys it has, in the order of the fields.
    A comparison that could not run has `error` and `verdict` ("not tested") instead of the
    numbers.

    Attributes
    ----------
    attribute, family, metric, group, reference
        The attribute, "compare", the metric ("auc" for the scores), the compared group and
        the reference group.
    gap_a, gap_b : float or list of float
        Each model's gap, group minus reference (lists [tpr, fpr] for equalized odds).
    difference, ci_low, ci_high : float or list of float
        The change gap_b - gap_a and its interval.
    pvalue, pvalue_reduced : float
        Equal gaps; |gap_b| < |gap_a|.
    method : str
        The paired test's method.
    n_discordant : int
        Rows of the two groups where the models' predictions differ.
    error : str
        Why the comparison could not run.
    pvalue_adjusted, pvalue_reduced_adjusted : float
        Both p-values adjusted (the audit's `adjust`) over the audit's comparisons.
    verdict : str
        "gap shrank", "gap grew", "gap changed", "no evidence of a change" or "not tested".

    Examples
    --------
    >>> from fastfair.auditing.results import ModelComparisonRow
    >>> row = ModelComparisonRow(attribute="sex", family="compare", metric="tpr", group="F",
    ...                          reference="M", error="no positives", verdict="not tested")
    >>> row["verdict"], "pvalue" in row, list(row)
    ('not tested', False, ['attribute', 'family', 'metric', 'group', 'reference', \
'error', 'verdict'])
    """

    attribute: str
    family: str
    metric: str
    group: Any
    reference: Any
    gap_a: float | list | _Absent = ABSENT
    gap_b: float | list | _Absent = ABSENT
    difference: float | list | _Absent = ABSENT
    ci_low: float | list | _Absent = ABSENT
    ci_high: float | list | _Absent = ABSENT
    pvalue: float | _Absent = ABSENT
    pvalue_reduced: float | _Absent = ABSENT
    method: str | _Absent = ABSENT
    n_discordant: int | _Absent = ABSENT
    error: str | _Absent = ABSENT
    pvalue_adjusted: float | _Absent = ABSENT
    pvalue_reduced_adjusted: float | _Absent = ABSENT
    verdict: str | _Absent = ABSENT


@dataclass(frozen=True, repr=False)
class AuditSlices:
    """The audit's slice search (``fastfair.audit(..., slices=DEPTH)``, docs/slices.md).

    Every conjunction of up to `max_depth` predicates ``attribute = group`` over the
    audit's attributes with at least `min_size` rows, compared with its complement on each
    rate of `metrics` (:func:`fastfair.find_slices_from_cube` on the cube of counts of the
    attributes, the same on every engine). The family-wise error over every slice and
    metric is at most `alpha`: max-T over joint permutations within each metric's search,
    at ``metric_alpha = alpha / len(metrics)`` (Bonferroni over the metrics).

    Attributes
    ----------
    features : tuple of str
        The attributes sliced (the audit's single attributes).
    max_depth, min_size, n_permutations : int
        Most predicates in a slice; smallest slice tested, in rows; joint permutations.
    alpha, metric_alpha : float
        The section's family-wise level, and each metric's search's level.
    metrics : tuple of str
        The rates searched (equalized odds as its TPR and FPR).
    searches : dict
        Metric -> :class:`fastfair.SliceSearchResult`, for each search that ran.
    notes : dict
        Metric -> why its search did not run (e.g. no slice has `min_size` rows).
    """

    features: tuple
    max_depth: int
    min_size: int
    alpha: float
    metric_alpha: float
    n_permutations: int
    metrics: tuple
    searches: dict
    notes: dict

    @property
    def found(self) -> list:
        """(metric, :class:`fastfair.FoundSlice`) of every significant slice of every
        metric, largest absolute difference first."""
        pairs = [(m, s) for m, res in self.searches.items() for s in res.slices]
        return sorted(pairs, key=lambda p: -abs(p[1].difference))

    @property
    def control(self) -> str:
        """The error control, in words."""
        m = len(self.metrics)
        split = (f", at alpha / {m} = {self.metric_alpha:.4g} each (Bonferroni over the {m} "
                 "metrics)") if m > 1 else ""  # fmt: skip
        return (f"family-wise error at most {self.alpha:g} over every slice and metric: "
                f"max-T over {self.n_permutations} joint permutations within each metric's "
                f"search{split}")  # fmt: skip

    def to_dict(self) -> dict:
        """Plain Python values (JSON-ready).

        Returns
        -------
        dict
            The settings, ``control`` (in words), ``searches`` (metric -> the search's
            :meth:`fastfair.SliceSearchResult.to_dict`) and ``notes``.
        """
        out = {k: plain(getattr(self, k)) for k in ("features", "max_depth", "min_size",
               "alpha", "metric_alpha", "n_permutations", "metrics")}  # fmt: skip
        out["control"] = self.control
        out["searches"] = {m: res.to_dict() for m, res in self.searches.items()}
        out["notes"] = dict(self.notes)
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per significant slice of every metric, largest absolute difference
        first: column ``metric``, then :meth:`fastfair.SliceSearchResult.to_frame`'s.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        rows = [dict(metric=m, **s.to_dict()) for m, s in self.found]
        columns = ["metric", *SLICE_COLUMNS]
        return pd.DataFrame.from_records(rows, columns=columns)

    def __repr__(self) -> str:
        found = self.found
        return (f"AuditSlices(depth <= {self.max_depth} over {', '.join(self.features)}, "
                f"{len(found)} significant slices; {self.control})")  # fmt: skip


#: The columns of a found slice (:meth:`fastfair.FoundSlice.to_dict`).
SLICE_COLUMNS = ("slice", "depth", "predicates", "size", "n", "value", "complement_value",
                 "difference", "lower", "upper", "statistic", "pvalue", "pvalue_adjusted",
                 "parents")  # fmt: skip


@dataclass(frozen=True, repr=False)
class AuditResult:
    """Result of :func:`audit`.

    Attributes
    ----------
    tests : list of AuditTest
        One entry per test and comparison (keys in docs/cli.md): attribute, family, metric,
        group, reference, values, difference with its interval (ci_low, ci_high), statistic,
        pvalue, pvalue_adjusted, mde, power_at_tau, n_needed, decision, verdict.
    attributes : list of dict
        Each attribute: name, columns, reference, groups (n, base and selection rates),
        skipped groups (with their sizes).
    parity : dict
        Attribute name -> :class:`fastfair.PredictiveParityResult` (with scores).
    group_cells : dict
        Attribute name -> per-group confusion counts (TN, FP, FN, TP).
    sweeps : dict
        Attribute name -> :class:`fastfair.ThresholdSweepResult` (with scores, attributes
        with two tested groups): TPR and FPR gaps at every score threshold.
    model_comparison : list of ModelComparisonRow
        With ``compare=(model A, model B)``: "did the gap shrink?", one entry per attribute,
        metric and comparison: gap_a, gap_b, difference (gap_b - gap_a) with ci_low and
        ci_high, pvalue (equal gaps) and pvalue_reduced (|gap_b| < |gap_a|), both adjusted
        over these entries, and a verdict (docs/compare.md).
    slices : AuditSlices or None
        With ``slices=DEPTH``: the slice search over the attributes (None without).
    """

    tests: list
    attributes: list
    n_rows: int
    alpha: float
    tau: float
    power: float
    adjust: str
    metrics: list
    intersections: bool
    min_group_size: int
    columns: dict
    seed: int | None
    n_permutations: int
    elapsed_seconds: float
    parity: dict = field(default_factory=dict)
    group_cells: dict = field(default_factory=dict)
    engine: str = "memory"
    sweeps: dict = field(default_factory=dict)
    model_comparison: list = field(default_factory=list)
    slices: AuditSlices | None = None

    # ---- summaries ------------------------------------------------------------------

    @property
    def summary(self) -> dict:
        """Counts of verdicts, the largest significant difference, and power."""
        decisions = [t["decision"] for t in self.tests]
        scalar = [
            t for t in self.tests if "error" not in t and isinstance(t.get("difference"), float)
        ]
        found = [t for t in scalar if t["decision"] == "difference"]
        pool = found or scalar
        largest = max(pool, key=lambda t: abs(t["difference"])) if pool else None
        powered = [t for t in self.tests if t.get("mde") is not None]
        mdes = [t["mde"] for t in powered]
        keys = ("attribute", "metric", "group", "reference", "difference", "ci_low", "ci_high")
        return dict(
            n_tests=len(self.tests),
            n_differences=decisions.count("difference"),
            n_no_evidence=decisions.count("no_evidence"),
            n_equivalent=decisions.count("equivalent"),
            n_underpowered=decisions.count("underpowered"),
            n_errors=decisions.count("error"),
            n_detectable=sum(t["mde"] <= self.tau for t in powered),
            n_with_mde=len(powered),
            largest=None
            if largest is None
            else dict(
                {k: largest[k] for k in keys if k in largest},
                significant=largest["decision"] == "difference",
            ),
            mde_range=[min(mdes), max(mdes)] if mdes else None,
            n_skipped_groups=sum(len(a["skipped"]) for a in self.attributes),
        )

    # ---- exports ------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """The audit as a JSON-ready dict (schema_version 2; keys in docs/cli.md).

        Returns
        -------
        dict
            Settings, columns, attributes, every test and the summary; numbers that
            are not finite (an infinite MDE, a parity grid point without a standard
            error) become None, null in JSON.

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> d = res.to_dict()
        >>> d["schema_version"], d["tests"][0]["metric"]
        (2, 'tpr')
        """
        import fastfair

        out = dict(
            schema_version=SCHEMA_VERSION,
            fastfair_version=fastfair.__version__,
            n_rows=self.n_rows,
            alpha=self.alpha,
            tau=self.tau,
            power=self.power,
            adjustment=f"{self.adjust} over all {len(self.tests)} tests of the audit",
            power_method=(
                "asymptotic planner (fastfair.planning.detectable_difference): two-sided "
                f"z-test at alpha = {self.alpha:g} for one comparison, power {self.power:g}, "
                "observed group sizes and rates"
            ),
            columns=self.columns,
            metrics=self.metrics,
            intersections=self.intersections,
            min_group_size=self.min_group_size,
            seed=self.seed,
            n_permutations=self.n_permutations,
            engine=self.engine,
            elapsed_seconds=self.elapsed_seconds,
            summary=self.summary,
            attributes=self.attributes,
            tests=self.tests,
            model_comparison=self.model_comparison,
            parity={
                name: dict(
                    bandwidth=float(res.curve.bandwidth),
                    weighting=res.curve.weighting,
                    clustered=bool(res.curve.clustered),
                    grid_table=res.table,
                )
                for name, res in self.parity.items()
            },
        )
        if self.slices is not None:
            out["slices"] = self.slices.to_dict()
        return _finite(json.loads(json.dumps(out, default=json_default)))

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (p-values as full-precision floats).

        Parameters
        ----------
        indent : int or None, default 2
            Indentation of the JSON text (None: one line).

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> res.to_json(indent=None).startswith('{"schema_version": 2')
        True
        """
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    def to_frame(self) -> pd.DataFrame:
        """Tidy pandas DataFrame: one row per test, comparison and component.

        Equalized odds gives two rows (component "tpr" and "fpr") with the same statistic,
        p-values and verdict; every other test has component equal to its metric. With
        ``slices``, each significant slice follows as a row of family "slice": attribute
        (its attributes joined by " & "), group (the slice), reference "complement",
        value_group and value_reference (the slice's rate and its complement's), the
        difference with its simultaneous interval, pvalue (the slice's exact p-value) and
        pvalue_adjusted (over the search), n_group (rows of the slice in the rate's
        denominator), method "maxT". Needs pandas.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> res.to_frame()[["attribute", "metric", "group", "reference"]].values.tolist()
        [['group', 'tpr', 'a', 'b']]
        """
        import pandas as pd

        columns = [
            "attribute",
            "family",
            "metric",
            "component",
            "group",
            "reference",
            "value_group",
            "value_reference",
            "difference",
            "ci_low",
            "ci_high",
            "statistic",
            "pvalue",
            "pvalue_adjusted",
            "mde",
            "power_at_tau",
            "n_needed",
            "n_group",
            "n_reference",
            "method",
            "decision",
            "verdict",
        ]
        records = []
        for t in self.tests:
            parts = ["tpr", "fpr"] if isinstance(t.get("difference"), list) else [t["metric"]]
            for j, part in enumerate(parts):
                rec = {c: t.get(c) for c in columns}
                rec["component"] = part
                for key in ("value_group", "value_reference", "difference", "ci_low", "ci_high",
                            "n_group", "n_reference"):  # fmt: skip
                    if isinstance(rec[key], list):
                        rec[key] = rec[key][j]
                records.append(rec)
        if self.slices is not None:
            records += [_slice_record(m, s) for m, s in self.slices.found]
        frame = pd.DataFrame.from_records(records, columns=columns)
        for c in ("value_group", "value_reference", "difference", "ci_low", "ci_high"):
            frame[c] = frame[c].astype(float)
        return frame

    @property
    def by_group(self) -> pd.DataFrame:
        """Every group's rates with their 95% intervals: one row per attribute and group, as
        fairlearn's ``MetricFrame.by_group`` (needs pandas). The intervals are
        Clopper-Pearson's (exact) for a rate with fewer than 50 events or non-events and
        Wilson's elsewhere (``fastfair._score.rate_limits``; Wilson's alone covered 0.860 at
        15 rows and a rate of 0.01, validation/results/group_interval_coverage.txt).

        The rates are the audit's confusion metrics (equalized odds as its TPR and FPR) and
        the base rate, from the groups' confusion counts (``group_cells``); every group with
        rows is listed, the skipped (too small) ones with ``tested`` False. A rate whose
        denominator is empty in a group (e.g. TPR without positives) is NaN with its
        interval. The AUC and predictive parity compare groups over the scores: they are in
        :meth:`to_frame`.

        Returns
        -------
        pandas.DataFrame
            Indexed by (attribute, group); columns ``n``, ``reference`` (the group the
            attribute's comparisons are against), ``tested``, then per rate ``<rate>``,
            ``<rate>_low`` and ``<rate>_high``.

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> frame = res.by_group
        >>> frame.index.tolist(), list(frame.columns)
        ([('group', 'a'), ('group', 'b')], ['n', 'reference', 'tested', 'base_rate', \
'base_rate_low', 'base_rate_high', 'tpr', 'tpr_low', 'tpr_high'])
        """
        import pandas as pd

        from fastfair._metrics import POSITIVES, cell_count, get_metric
        from fastfair._score import rate_limits

        rates = {"base_rate": (POSITIVES, 0b1111)}  # (numerator mask, denominator mask)
        for name in self.metrics:
            metric = get_metric(name)
            for part, num, den in zip(metric.part_names, metric.num_masks, metric.den_masks):
                rates.setdefault(part, (num, den))
        records, index = [], []
        for attr in self.attributes:
            cells = np.asarray(self.group_cells[attr["name"]])
            present = np.flatnonzero(cells.sum(axis=1) > 0)
            for k, g in zip(present, attr["groups"]):
                rec = dict(n=g["n"], reference=g["group"] == attr["reference"], tested=g["tested"])
                for name, (num_mask, den_mask) in rates.items():
                    num = float(cell_count(cells[k], num_mask))
                    den = float(cell_count(cells[k], den_mask))
                    lo, hi = rate_limits(num, den) if den else (np.nan, np.nan)
                    rec[name] = num / den if den else np.nan
                    rec[f"{name}_low"], rec[f"{name}_high"] = float(lo), float(hi)
                records.append(rec)
                index.append((attr["name"], g["group"]))
        names = pd.MultiIndex.from_tuples(index, names=["attribute", "group"])
        return pd.DataFrame.from_records(records, index=names)

    def plot(self, ax: Any = None, *, metric: str | None = None) -> Any:
        """Forest plot of every difference with its 95% interval (needs matplotlib).

        The report's forest plot as matplotlib Axes: one panel per metric (the confusion
        metrics and the AUC), one row per comparison, grouped by attribute; colour = verdict
        (red DIFFERENCE, blue no evidence, hollow grey too small to tell), dashed lines at
        ±tau.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, optional
            One Axes with `metric`, else one per plotted metric (default: a new figure).
        metric : str, optional
            Plot only this metric and return its Axes.

        Returns
        -------
        matplotlib Axes (with `metric`) or ndarray of Axes (one per metric)

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b", "c"], 400), metrics=["tpr", "fpr"],
        ...                      random_state=0)
        >>> [a.get_title() for a in res.plot()]
        ['TPR', 'FPR']
        >>> [t.get_text() for t in res.plot(metric="fpr").get_yticklabels()]
        ['group: a vs b', 'group: c vs b']
        """
        from fastfair.auditing.report import forest_axes

        return forest_axes(self, ax, metric)

    def to_html(self, progress: Callable[..., Any] | None = None) -> str:
        """A self-contained HTML report (see docs/cli.md); plots need matplotlib.

        Parameters
        ----------
        progress : callable, optional
            A progress-bar factory with tqdm's interface (one step per section).

        Returns
        -------
        str
            One HTML document (:func:`fastfair.auditing.report.audit_html`).

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> res.to_html().startswith("<!DOCTYPE html>")
        True
        """
        from fastfair.auditing.report import audit_html

        return audit_html(self, progress=progress)

    # ---- text -----------------------------------------------------------------------

    def format(self, max_rows: int | None = None) -> str:
        """The printed audit: one table per attribute (at most `max_rows` tests in all),
        then the summary.

        Parameters
        ----------
        max_rows : int or None
            Tests shown in all (None: every test).

        Returns
        -------
        str
            :func:`fastfair.auditing.report.audit_text` of the audit.

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> res = fastfair.audit(rng.random(400) < 0.4, rng.random(400) < 0.5,
        ...                      rng.choice(["a", "b"], 400), metrics=["tpr"], random_state=0)
        >>> print(res.format(max_rows=1).splitlines()[0])  # doctest: +ELLIPSIS
        fastfair audit: 400 rows; 1 tests over group; ...
        """
        from fastfair.auditing.report import audit_text

        return audit_text(self, max_rows)

    def __repr__(self) -> str:
        return self.format()


def _slice_record(metric: str, found) -> dict:
    """A significant slice as a row of :meth:`AuditResult.to_frame`."""
    lower, upper = found.confidence_interval
    return dict(
        attribute=" & ".join(str(name) for name, _ in found.predicates), family="slice",
        metric=metric, component=metric, group=found.description, reference="complement",
        value_group=found.value, value_reference=found.complement_value,
        difference=found.difference, ci_low=lower, ci_high=upper, statistic=found.statistic,
        pvalue=found.pvalue, pvalue_adjusted=found.pvalue_adjusted, n_group=found.n,
        method="maxT", decision="difference", verdict="DIFFERENCE",
    )  # fmt: skip


def as_number(x):
    """A one-element array as a float, a longer one as a list of floats (a row's values)."""
    x = np.asarray(x, dtype=float)
    return float(x.ravel()[0]) if x.size == 1 else [float(v) for v in x.ravel()]


def as_python(value):
    """A numpy scalar as the equivalent Python value (labels in JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def _finite(value):
    """JSON has no infinity and no NaN: an infinite MDE (nothing below 1 detectable) and a
    missing number (a parity grid point where a group has no standard error) become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def json_default(obj):
    """What ``json.dumps`` writes for the audit's rows and numpy values."""
    if isinstance(obj, _Row):
        return obj.to_dict()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialize {type(obj).__name__}")


def pvalue_text(row: dict, key: str = "pvalue") -> str:
    """A test row's p-value (or its adjustment `key`) at the precision its method has.

    Parameters
    ----------
    row : dict
        One test of the audit.
    key : str, default "pvalue"
        The p-value to show ("pvalue_adjusted", ...): a bound when the raw p-value it
        adjusts is one (``pvalue_reduced`` for ``pvalue_reduced_adjusted``, else ``pvalue``).

    Returns
    -------
    str
        "-" when the row has no such p-value.

    Examples
    --------
    >>> from fastfair.auditing.results import pvalue_text
    >>> row = {"pvalue": 1e-4, "pvalue_adjusted": 9e-4, "method": "monte_carlo",
    ...        "n_permutations": 199}
    >>> pvalue_text(row), pvalue_text(row, "pvalue_adjusted")
    ('< 0.005', '< 0.0009')
    """
    if key not in row:
        return "-"
    if key == "pvalue":
        return format_pvalue(row["pvalue"], row.get("method"), row.get("n_permutations"))
    raw = key.removesuffix("_adjusted")  # the p-value `key` adjusts: a bound when it is one
    if raw != "pvalue" and raw in row:  # e.g. pvalue_reduced for pvalue_reduced_adjusted
        return format_adjusted_pvalue(
            row[raw], row[key], row.get("method"), row.get("n_permutations")
        )
    return format_adjusted_pvalue(
        row["pvalue"], row[key], row.get("method"), row.get("n_permutations")
    )
