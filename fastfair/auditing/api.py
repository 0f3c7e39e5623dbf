"""The whole fairness audit as one call: every test, every attribute, verdicts with power.

:func:`audit` runs, for each protected attribute (and with ``intersections=True`` each
combination of attributes), every applicable test of each group against a reference group:
the confusion-matrix metrics (:func:`fastfair.permutation_test_from_counts`, exact
conditional tests), the AUC (:func:`fastfair.auc_test`) and predictive parity
(:func:`fastfair.predictive_parity_test`) when scores are given. It adjusts every p-value of
the audit together (Holm by default) and reads each comparison with the power the audit
had: the minimum detectable difference (MDE) at the audit's alpha and 80% power, from the
asymptotic formula of :func:`fastfair.planning.detectable_difference`.

The steps are separate functions, so each can be replaced on its own: reading the inputs
(:func:`_inputs`), coding the groups (:func:`code_attributes`), running the tests
(:func:`_confusion_rows`, :func:`_auc_rows`, :func:`_parity_row`), power
(:func:`_add_power`), the verdict of each comparison (:func:`verdict`), and rendering
(:class:`AuditResult`: text, JSON, a pandas frame, HTML).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import _counts, planning
from fastfair._format import format_mde, format_significant
from fastfair._groups import attribute_combinations, combine_codes, split_codes, tuple_labels
from fastfair._metrics import ALL, FP, NEGATIVES, POSITIVES, TP, cell_index, get_metric
from fastfair._pvalues import adjust_pvalues
from fastfair._sequential import keep_samplers, samplers_of
from fastfair._validation import (
    GroupCodes,
    align_index,
    as_1d,
    as_binary,
    as_groups,
    check_choice,
    check_int,
    drop_unused,
    resolve_columns,
    score_threshold,
    show_value,
)
from fastfair.auditing.ingest import (
    SLICE_MIN_SIZE,
    check_audit_settings,
    slice_metrics,
    slice_permutations,
)
from fastfair.auditing.results import (
    AuditResult,
    AuditSlices,
    AuditTest,
    ModelComparisonRow,
    as_number,
    as_python,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "Attribute", "AuditResult", "PendingTest", "audit", "code_attributes", "slice_search",
    "verdict",
]  # fmt: skip

SWEEP_PERMUTATIONS = 9999  # the report's threshold sweep (max-T band) when sequential
COMPARE_PERMUTATIONS = 999  # compare='s AUC swaps of small groups when n_permutations is None
PARITY_BOOTSTRAP = 9999  # parity's bootstrap draws when n_permutations is None (sequential)
#: Joins the labels of an intersection ("Female & Black") and the names of its attributes.
JOIN = " & "


# --------------------------------------------------------------------------------------
# Coding the groups
# --------------------------------------------------------------------------------------


@dataclass
class Attribute:
    """One protected attribute (or intersection) of the audit, with its groups coded.

    Attributes
    ----------
    name : str
        The column name, or names joined by " & " for an intersection.
    columns : list of str
        The columns it is made of.
    codes : ndarray of intp or None
        Group code (0..k-1, in sorted label order) of every row (None when the audit runs
        on summaries, without the rows).
    labels : list
        Label of each code; an intersection's label joins its parts with " & ".
    sizes : ndarray
        Rows per group.
    tested : ndarray of bool
        Groups with at least `min_group_size` rows; the others are skipped.
    reference : int or None
        Code of the reference group (None when fewer than two groups are tested).
    reference_rule : str
        How the reference was chosen: "given", "from the references of sex and race" (an
        intersection of attributes whose references were given) or "largest group".
    """

    name: str
    columns: list
    codes: np.ndarray | None
    labels: list
    sizes: np.ndarray
    tested: np.ndarray
    reference: int | None = None
    reference_rule: str = "largest group"

    @property
    def comparisons(self) -> list[tuple[int, int]]:
        """(group code, reference code) for every tested group but the reference."""
        if self.reference is None:
            return []
        return [(g, self.reference) for g in np.flatnonzero(self.tested) if g != self.reference]

    @property
    def skipped(self) -> list[dict]:
        """Groups with fewer than `min_group_size` rows: {"group", "n"}."""
        return [
            {"group": as_python(self.labels[g]), "n": int(self.sizes[g])}
            for g in np.flatnonzero(~self.tested)
        ]


def _named_features(sensitive_features, data) -> list[tuple[str, Any]]:
    """(name, values) for each attribute, from the forms fairlearn accepts."""
    sf = sensitive_features
    if sf is None:
        raise TypeError("sensitive_features is required (a column, several, or a mapping)")
    if isinstance(sf, str) or (
        data is not None and isinstance(sf, list | tuple) and all(isinstance(s, str) for s in sf)
    ):
        names = [sf] if isinstance(sf, str) else list(sf)
        if not names:
            raise ValueError("sensitive_features is an empty list")
        cols = resolve_columns(data, **{f"_{i}": n for i, n in enumerate(names)})
        return [(n, cols[f"_{i}"]) for i, n in enumerate(names)]
    if hasattr(sf, "columns") and hasattr(sf, "iloc"):  # pandas DataFrame
        return [(str(c), sf[c]) for c in sf.columns]
    if isinstance(sf, Mapping):
        if not sf:
            raise ValueError("sensitive_features is an empty mapping")
        return [(str(k), v) for k, v in sf.items()]
    if hasattr(sf, "to_numpy") and getattr(sf, "ndim", 1) == 1:  # pandas Series, Categorical
        name = getattr(sf, "name", None)  # a Categorical or a pandas array has no name
        return [(str(name) if name is not None else "group", sf)]
    arr = np.asarray(sf)
    if arr.ndim == 2:
        return [(f"sensitive_feature_{j}", arr[:, j]) for j in range(arr.shape[1])]
    return [("group", sf)]


def code_attributes(
    sensitive_features: Any,
    *,
    data: Any = None,
    intersections: bool = False,
    min_group_size: int = 10,
    reference: Any = None,
    n_rows: int | None = None,
    rows: tuple[str, Any] | None = None,
) -> list[Attribute]:
    """Code each protected attribute (and their combinations) into groups.

    Parameters
    ----------
    sensitive_features : array-like, pandas Series/DataFrame, mapping, str or list of str
        As fairlearn's ``sensitive_features``: one column of labels, a DataFrame or a mapping
        {name: labels} of several, or column names of `data`.
    data : pandas.DataFrame or mapping, optional
    intersections : bool
        Also code every combination of two or more attributes ("sex & race").
    min_group_size : int
        Groups with fewer rows are not tested (they are reported as skipped).
    reference : label or mapping, optional
        Reference group: a label (one attribute only) or {attribute name: label}.
        Default: the largest tested group of each attribute.
    n_rows : int, optional
        Required length of every attribute.
    rows : (name, pandas Series), optional
        The audit's first pandas input (e.g. ``("y_true", y_true)``): pandas attributes are
        paired with its rows by index label (and with each other when it is None), or
        refused when their labels differ, as every fastfair function pairs pandas inputs.

    Returns
    -------
    list of Attribute

    Examples
    --------
    >>> from fastfair.auditing.api import code_attributes
    >>> sex = ["F", "M", "M", "F", "M"]
    >>> race = ["a", "a", "b", "b", "a"]
    >>> attrs = code_attributes({"sex": sex, "race": race}, intersections=True,
    ...                         min_group_size=1)
    >>> [a.name for a in attrs], attrs[2].labels
    (['sex', 'race', 'sex & race'], ['F & a', 'F & b', 'M & a', 'M & b'])
    """
    min_group_size = check_int(min_group_size, "min_group_size", 1)
    features = _named_features(sensitive_features, data)
    names = [n for n, _ in features]
    if len(set(names)) != len(names):
        raise ValueError(f"sensitive_features has repeated names: {names}")
    by_name = data is not None and not isinstance(sensitive_features, Mapping)
    base = []
    for name, values in features:
        what = f"group column {name!r}" if by_name else f"sensitive feature {name!r}"
        try:  # GroupCodes (already coded by a reader) and pandas columns keep their form
            length = len(values)
        except TypeError:
            length = len(as_1d(values, what))
        if n_rows is not None and length != n_rows:
            raise ValueError(f"{what} has {length} rows, the labels have {n_rows}")
        rows, values = _paired(rows, what, values)
        try:
            codes, labels = as_groups(values, "group", min_groups=1)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{what}: {exc}") from exc
        base.append((name, [name], codes, list(labels.tolist())))
    coded, by_name = list(base), {c[0]: c for c in base}
    for combo in attribute_combinations(names, intersections)[len(base) :]:
        parts = [by_name[n][3] for n in combo]
        sizes = [len(p) for p in parts]
        codes, present = combine_codes([by_name[n][2] for n in combo], sizes)
        labels = tuple_labels(split_codes(present, sizes), parts)
        coded.append((JOIN.join(combo), list(combo), codes, [joined(t) for t in labels]))
    sized = [(*c, np.bincount(c[2], minlength=len(c[3]))) for c in coded]
    return _with_references(sized, reference, len(base), min_group_size)


def _with_references(coded, reference, n_base: int, min_group_size: int) -> list[Attribute]:
    """The Attributes of (name, columns, codes or None, labels, sizes), each with its
    tested groups and reference (`n_base`: the number of single attributes)."""
    references = _reference_by_attribute(reference, [c[0] for c in coded], n_base)
    attributes = []
    for name, columns, codes, labels, sizes in coded:
        sizes = np.asarray(sizes, dtype=np.int64) if codes is None else sizes
        attr = Attribute(name, columns, codes, labels, sizes, sizes >= min_group_size)
        wanted, attr.reference_rule = _wanted_reference(name, columns, references)
        attr.reference = _pick_reference(attr, wanted, min_group_size)
        attributes.append(attr)
    return attributes


def joined(label: tuple) -> str:
    """An intersection's label as the audit shows it: its parts joined by " & "."""
    return JOIN.join(str(part) for part in label)


def _wanted_reference(name, columns, references) -> tuple[Any, str]:
    """The reference asked for an attribute, and the rule that gave it.

    Given for the attribute itself; for an intersection whose attributes all have one, the
    cell of those references ("Caucasian & Male" from race=Caucasian and sex=Male), so that
    its comparisons answer the same question as the attributes'; else None (the largest).
    """
    if name in references:
        return references[name], "given"
    if len(columns) > 1 and all(c in references for c in columns):
        wanted = JOIN.join(str(references[c]) for c in columns)
        return wanted, f"from the references of {' and '.join(columns)}"
    return None, "largest group"


def _paired(rows, what, values):
    """`values` ordered as the pandas input `rows` by index label (`rows` becomes `values`
    when it is the first pandas input), or a ValueError when their labels differ."""
    if rows is None:
        return ((what, values) if _is_pandas(values) else None), values
    return rows, align_index(**{rows[0]: rows[1], what: values})[what]


def _is_pandas(values) -> bool:
    """A pandas Series or DataFrame: its rows carry index labels."""
    return hasattr(values, "to_numpy") and hasattr(getattr(values, "index", None), "equals")


def _reference_by_attribute(reference, names, n_base) -> dict:
    if reference is None:
        return {}
    if isinstance(reference, Mapping):
        unknown = [k for k in reference if k not in names]
        if unknown:
            raise ValueError(f"reference names unknown attributes {unknown}; attributes: {names}")
        return dict(reference)
    if n_base > 1:
        raise ValueError(
            "with several sensitive features give reference as {attribute: group}, "
            f"e.g. {{{names[0]!r}: ...}}"
        )
    return {names[0]: reference}


def attributes_from_sizes(
    groups: Sequence[tuple[tuple[str, ...], Sequence, ArrayLike]],
    *,
    min_group_size: int,
    reference: Any = None,
) -> list[Attribute]:
    """Attributes known by their groups' sizes only (an audit from summaries).

    Parameters
    ----------
    groups : sequence of (columns, labels, sizes)
        Each attribute (one column) or intersection (several), in the audit's order
        (:func:`fastfair._groups.attribute_combinations`): its columns, the label of each
        group code (an intersection's: the tuple of its parts, shown joined by " & ") and
        the rows per group.
    min_group_size : int
        Groups with fewer rows are not tested.
    reference : label or mapping, optional
        As :func:`code_attributes` takes it (default: the largest tested group).

    Returns
    -------
    list of Attribute
        Without row codes (``codes`` is None).

    Examples
    --------
    >>> from fastfair.auditing.api import attributes_from_sizes
    >>> (attr,) = attributes_from_sizes([(("sex",), ["F", "M", "X"], [40, 60, 3])],
    ...                                 min_group_size=10)
    >>> attr.labels[attr.reference], attr.skipped
    ('M', [{'group': 'X', 'n': 3}])
    """
    coded = [
        (JOIN.join(columns), list(columns), None,
         list(labels) if len(columns) == 1 else [joined(t) for t in labels], sizes)
        for columns, labels, sizes in groups
    ]  # fmt: skip
    n_base = sum(len(columns) == 1 for columns, _, _ in groups)
    return _with_references(coded, reference, n_base, min_group_size)


def _pick_reference(attr: Attribute, wanted, min_group_size) -> int | None:
    if wanted is None:
        if attr.tested.sum() < 2:
            return None
        return int(np.argmax(np.where(attr.tested, attr.sizes, -1)))
    matches = [k for k, g in enumerate(attr.labels) if g == wanted or str(g) == str(wanted)]
    if not matches:
        raise ValueError(
            f"reference {show_value(wanted)} is not a group of {attr.name!r}; "
            f"groups: {attr.labels}"
        )
    ref = matches[0]
    if not attr.tested[ref]:
        derived = attr.reference_rule.startswith("from")
        raise ValueError(
            f"reference {show_value(wanted)} of {attr.name!r}"
            + (f" ({attr.reference_rule})" if derived else "")
            + f" has {attr.sizes[ref]} rows, fewer than min_group_size={min_group_size}"
            + (f"; name another as reference={{{attr.name!r}: ...}}" if derived else "")
        )
    return ref


# --------------------------------------------------------------------------------------
# Running the tests: one row per metric and comparison
# --------------------------------------------------------------------------------------


class PendingTest(dict):
    """A test row while the audit fills it: its keys (those of :class:`AuditTest`) and the
    working state the later steps read, as typed attributes rather than private keys.

    Attributes
    ----------
    codes : tuple of int or None
        (group code, reference code) of a comparison.
    prevalence : list of float or None
        The two groups' prevalences (AUC rows; the planner's inputs).
    auc_groups : tuple or None
        The two groups' (AUC, DeLong variance, positives, negatives), for the margin tests.
    result : test result or None
        The test whose Monte-Carlo draws a sequential audit continues.
    decision : str or None
        The sequential audit's family decision ("reject", "retain", "undecided").
    """

    __slots__ = ("auc_groups", "codes", "decision", "prevalence", "result")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.codes = self.prevalence = self.auc_groups = self.result = self.decision = None


def _confusion_rows(attr, cells, metric, options) -> list[dict]:
    """Exact conditional tests of one metric, each group against the reference.

    `cells` are the attribute's per-group counts (TN, FP, FN, TP): every test runs on the
    two groups' counts, so a group whose metric is undefined fails alone.
    """
    import fastfair

    rows = []
    for g, r in attr.comparisons:
        row = row_head(attr, "confusion", metric, g, r)
        constant = _constant_predictions(cells, (g, r), (row["group"], row["reference"]))
        if constant and constant[0] == "both":
            row["error"] = constant[1]
            rows.append(row)
            continue
        if constant:
            row["note"] = constant[1]
        try:
            res = fastfair.permutation_test_from_counts(
                cells[[g, r]],
                [0, 1],
                metric=metric,
                reference=1,
                n_permutations=options["n_permutations"],
                random_state=options["random_state"],
                n_jobs=options["n_jobs"],
            )
        except ValueError as exc:
            row["error"] = (
                str(exc)
                .replace("group 0", repr(row["group"]))
                .replace("group 1", repr(row["reference"]))
            )
            rows.append(row)
            continue
        values = res.group_values.reshape(2, -1)
        dens = res.group_denominators.reshape(2, -1)
        row.update(
            value_group=as_number(values[0]),
            value_reference=as_number(values[1]),
            difference=as_number(values[0] - values[1]),
            **_interval(_rate_interval(values, dens, res.confidence_level), res),
            statistic=float(res.statistic),
            pvalue=float(res.pvalue),
            method=res.method,
            scheme=res.scheme,
            n_permutations=res.n_permutations,
            n_group=as_number(dens[0]),
            n_reference=as_number(dens[1]),
        )
        row.result = res
        rows.append(row)
    return rows


def _constant_predictions(cells, codes, labels) -> tuple[str, str] | None:
    """("both" or "one", message) when a compared group's predictions are all equal.

    With every prediction of both groups positive (or both negative), every confusion
    metric of the pair is fixed by the labels alone (a TPR and an FPR of 1, an accuracy and
    a PPV equal to the base rate): the test compares nothing the model decides, so it is
    not run. One constant group is a real (if extreme) difference: a note.
    """
    kinds = []
    for code, label in zip(codes, labels):
        predicted = cells[code, 1] + cells[code, 3]  # FP + TP
        if predicted in (0, cells[code].sum()):
            kinds.append((label, "positive" if predicted else "negative"))
    if not kinds:
        return None
    if len(kinds) == 2 and kinds[0][1] == kinds[1][1]:
        return "both", (
            f"constant prediction: every prediction of {show_value(labels[0])} and "
            f"{show_value(labels[1])} is {kinds[0][1]}, so the metric depends on the labels "
            "only; a test of the model is meaningless (is the threshold right?)"
        )
    return "one", "; ".join(
        f"constant prediction: every prediction of {show_value(label)} is {kind}"
        for label, kind in kinds
    )


def _auc_rows(attr, y, scores, options) -> list[dict]:
    """Studentized permutation tests of the AUC, each group against the reference."""
    rows = []
    for g, r in attr.comparisons:
        rows += auc_pair_rows(attr, (y, scores, attr.codes), (g, r), options)
    return rows


def auc_uses_delong(tot: np.ndarray, options: Mapping) -> bool:
    """Whether the audit's AUC test of a pair is the DeLong z-test: ``method="auto"`` (the
    sequential audit, `n_permutations` None) and every class of both groups at least
    :data:`fastfair.auc.ASYMPTOTIC_MIN_CLASS` (`tot`: the pair's negatives and positives),
    the rule :func:`fastfair.auc_test` applies; otherwise the permutation test, which needs
    the two groups' rows (the engines read them only then).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.auditing.api import auc_uses_delong
    >>> auc_uses_delong(np.array([[5000, 1200], [900, 3000]]), {"n_permutations": None})
    False
    """
    import fastfair.auc

    smallest = int(np.min(tot))
    return options["n_permutations"] is None and smallest >= fastfair.auc.ASYMPTOTIC_MIN_CLASS


def auc_pair_rows(attr: Attribute, rows: tuple, pair: tuple[int, int], options: Mapping) -> list:
    """The audit's AUC test of one pair of group codes `pair` = (g, r) on rows
    ``(y, scores, codes)`` (`codes`: each row's group code of `attr`; other codes are
    ignored): the constant-score check, then :func:`fastfair.auc_test` of the two groups
    (the DeLong z-test or the sequential permutation test, :func:`auc_uses_delong`; the
    permutation test with `n_permutations`). The rows' audit and the engines' (on the rows
    of the pair they read back) run this same code, so their results are identical.

    Returns
    -------
    list of PendingTest
        One row (family "auc").
    """
    import fastfair

    y, scores, codes = rows
    g, r = pair
    keep = (codes == g) | (codes == r)
    constant = _constant_scores(attr, scores, codes, (g, r))
    if constant and constant[0] == "both":
        row = row_head(attr, "auc", "auc", g, r)
        row["error"] = constant[1]
        return [row]
    try:
        res = fastfair.auc_test(
            y[keep],
            scores[keep],
            (codes[keep] == r).astype(np.intp),
            reference=1,
            method="auto" if options["n_permutations"] is None else "permutation",
            n_permutations=options["n_permutations"],
            random_state=options["random_state"],
            n_jobs=options["n_jobs"],
        )
    except ValueError as exc:  # the test saw the pair coded 0 (group) and 1 (reference)
        row = row_head(attr, "auc", "auc", g, r)
        names = (row["group"], row["reference"])  # one pass: a label may read "group 1"
        row["error"] = re.sub(r"\bgroup ([01])\b", lambda m: repr(names[int(m[1])]), str(exc))
        return [row]
    out = auc_result_rows(attr, res, [(g, r)])
    for row in out:
        row.result = res
        if constant:
            row["note"] = "; ".join(filter(None, (row.get("note"), constant[1])))
    return out


def _constant_scores(attr, scores, codes, pair) -> tuple[str, str] | None:
    """("both" or "one", message) when a compared group's scores are all equal.

    A group whose scores are all equal has an AUC of 0.5 by ties alone: the model does not
    rank its rows at all. Both groups constant: the test compares nothing the model
    decides, so it is not run; one: a note, as for constant predictions.
    """
    labels = [attr.labels[code] for code in pair]
    flat = [label for code, label in zip(pair, labels) if np.ptp(scores[codes == code]) == 0.0]
    return constant_score_message(labels, flat)


def constant_score_message(labels: Sequence, flat: Sequence) -> tuple[str, str] | None:
    """("both" or "one", message) for a compared pair of groups `labels` of which those in
    `flat` have all their scores equal; None when none has (the rows' and the engines'
    audits share it)."""
    if not flat:
        return None
    if len(flat) == 2:
        return "both", (
            f"constant score: every score of {show_value(labels[0])} and of "
            f"{show_value(labels[1])} is the same, so both AUCs are 0.5 by ties alone; a "
            "test of the model's ranking is meaningless"
        )
    return "one", (
        f"constant score: every score of {show_value(flat[0])} is the same, so its AUC is "
        "0.5 by ties alone (the model does not rank this group)"
    )


def auc_result_rows(
    attr: Attribute, res: Any, pairs: Sequence[tuple[int, int]]
) -> list[PendingTest]:
    """Rows of an AUC test result: comparison c of `res` is the pair of codes pairs[c].

    Parameters
    ----------
    attr : Attribute
        The attribute tested.
    res : AUCTestResult or DeLongResult
        The test of its groups' AUCs.
    pairs : sequence of (int, int)
        (group code, reference code) of each comparison of `res`.

    Returns
    -------
    list of PendingTest
        One audit row per comparison (family "auc").

    Examples
    --------
    >>> import numpy as np, fastfair
    >>> from fastfair.auditing.api import attributes_from_sizes, auc_result_rows
    >>> rng = np.random.default_rng(0)
    >>> g = rng.choice(["a", "b"], 300); y = rng.random(300) < 0.5
    >>> res = fastfair.auc_test(y, rng.normal(y, 1.0), g, reference="b", method="delong")
    >>> (attr,) = attributes_from_sizes([(("g",), ["a", "b"], np.bincount(g == "b"))],
    ...                                 min_group_size=10, reference="b")
    >>> [(row["group"], row["reference"], row["metric"]) for row in
    ...  auc_result_rows(attr, res, attr.comparisons)]
    [('a', 'b', 'auc')]
    """
    auc = np.atleast_1d(np.asarray(res.group_auc, dtype=float))
    var = np.atleast_1d(np.asarray(res.group_variance, dtype=float))
    n_pos, n_neg = np.atleast_1d(res.group_n_pos), np.atleast_1d(res.group_n_neg)
    stats, pvals = np.atleast_1d(res.statistic), np.atleast_1d(res.pvalue)
    index = {g: k for k, g in enumerate(np.asarray(res.groups).tolist())}
    lo, hi = _auc_interval(res, index)
    rows = []
    for c, ((g, r), (a, b)) in enumerate(zip(pairs, res.comparisons)):
        i, j = index[a], index[b]
        row = row_head(attr, "auc", "auc", g, r)
        row.update(
            value_group=float(auc[i]),
            value_reference=float(auc[j]),
            difference=float(auc[i] - auc[j]),
            ci_low=float(lo[c]),
            ci_high=float(hi[c]),
            confidence_level=float(res.confidence_level),
            statistic=float(stats[c]),
            pvalue=float(pvals[c]),
            method=res.method,
            scheme=res.scheme,
            n_permutations=res.n_permutations,
            n_group=int(n_pos[i] + n_neg[i]),
            n_reference=int(n_pos[j] + n_neg[j]),
        )
        row.prevalence = [float(n_pos[k] / (n_pos[k] + n_neg[k])) for k in (i, j)]
        row.auc_groups = (auc[[i, j]], var[[i, j]], n_pos[[i, j]], n_neg[[i, j]])
        rows.append(row)
    return rows


def _parity_row(attr, y, scores, clusters, options, prepared=None, cluster_column=None):
    """Predictive parity over the score grid, all tested groups of the attribute at once.

    `prepared`, when given, replaces the rows: ``prepared(tested codes)`` returns the
    users' rows grouped by user from batches (``fastfair._sorted_clusters``).
    `cluster_column`: the name of the column `clusters` came from (None: an array), which
    the test's messages name. Returns (row, result or None).
    """
    import fastfair
    from fastfair.parity.inference import prepared_parity_test

    tested = np.flatnonzero(attr.tested)
    keep = np.isin(attr.codes, tested)
    row = PendingTest(
        attribute=attr.name,
        family="parity",
        metric="predictive_parity",
        group="all groups",
        reference="each other",
        groups=[as_python(attr.labels[g]) for g in tested],
    )
    run = dict(
        adjust="maxT",
        n_bootstrap=options["n_permutations"] or PARITY_BOOTSTRAP,
        random_state=options["random_state"],
        n_jobs=options["n_jobs"],
    )
    try:  # the engine's grouping of the rows is no part of the test: its warnings are not notes
        grouped = None if prepared is None else prepared(tested)
    except ValueError as exc:
        row["error"] = _labelled(str(exc), attr.labels)
        return row, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if grouped is not None:
                res = prepared_parity_test(grouped, **run)
            else:
                res = fastfair.predictive_parity_test(
                    y[keep],
                    scores[keep],
                    attr.codes[keep],
                    **_cluster_argument(clusters, keep, cluster_column),
                    **run,
                )
        except ValueError as exc:
            row["error"] = _labelled(str(exc), attr.labels)
            return row, None
    notes = sorted(  # fastfair's own warnings: not those of a library an engine calls
        {
            _labelled(str(w.message), attr.labels)
            for w in caught
            if w.category.__module__.startswith("fastfair")
        }
    )
    labels = np.asarray([attr.labels[g] for g in res.groups.tolist()], dtype=object)
    samplers = samplers_of(res)  # the bootstrap p-value's draws, continued by the audit
    res = dataclasses.replace(
        res, groups=labels, curve=dataclasses.replace(res.curve, groups=labels)
    )
    row.result = keep_samplers(res, samplers)
    if not np.isfinite(res.pvalue):  # e.g. no grid point with a standard error everywhere
        row["error"] = "; ".join(notes) or "the test gave no p-value"
        return row, res  # the curves are still shown
    row.update(
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        method=res.method,
        scheme="per-user clustered" if res.curve.clustered else "rows",
        n_permutations=res.n_bootstrap or None,
    )
    if notes:
        row["note"] = "; ".join(notes)
    return row, res


def _cluster_argument(clusters, keep, column) -> dict:
    """The parity test's `cluster` for the rows `keep`: their users, by the column's name
    (as ``cluster=column, data={column: users}``) when the audit was given one, so that the
    test's messages name the column. A coded column (text ids read from a file) keeps its
    labels, so that a message names a user by the id in the file, not by its code."""
    if clusters is None:
        return {}
    if isinstance(clusters, GroupCodes):
        users = GroupCodes(*drop_unused(clusters.codes[keep], clusters.labels))
    else:
        users = clusters[keep]
    return dict(cluster=users) if column is None else dict(cluster=column, data={column: users})


def _labelled(message: str, labels) -> str:
    """A message of a test run on group codes, with each "group k" named by its label."""
    return re.sub(r"\bgroup (\d+)\b", lambda m: f"group {show_value(labels[int(m[1])])}", message)


def _threshold_sweep(attr, y, scores, options):
    """TPR and FPR gaps at 100 score quantiles (:func:`fastfair.threshold_sweep`) when the
    attribute has exactly two tested groups, for the report; None otherwise or when a group
    lacks positives or negatives."""
    import fastfair

    tested = np.flatnonzero(attr.tested)
    if len(tested) != 2:
        return None
    keep = np.isin(attr.codes, tested)
    labels = np.asarray([attr.labels[g] for g in attr.codes[keep]], dtype=object)
    try:
        return fastfair.threshold_sweep(
            y[keep],
            scores[keep],
            labels,
            reference=attr.labels[attr.reference],
            n_permutations=options["n_permutations"] or SWEEP_PERMUTATIONS,
            alpha=options["alpha"],
            random_state=options["random_state"],
            n_jobs=options["n_jobs"],
        )
    except ValueError:
        return None


def row_head(attr, family, metric, g, r) -> PendingTest:
    """A test row of the comparison of group code `g` with reference code `r`."""
    row = PendingTest(
        attribute=attr.name,
        family=family,
        metric=metric,
        group=as_python(attr.labels[g]),
        reference=as_python(attr.labels[r]),
    )
    row.codes = (g, r)
    return row


def _rate_interval(values, dens, confidence_level) -> tuple:
    """The audit's interval of a rate difference (group minus reference, one per part):
    the union of Miettinen-Nurminen's and Newcombe's square-and-add with Clopper-Pearson
    limits for a group with fewer than 50 events or non-events
    (``fastfair._score.hybrid_interval``; Miettinen-Nurminen's alone covered 0.86 at 15 rows
    against 100,000, validation/difference_interval_coverage.py)."""
    from fastfair._score import hybrid_interval

    x = values * dens
    lo, hi = hybrid_interval(x[0], dens[0], x[1], dens[1], confidence_level)
    return (float(lo[0]), float(hi[0])) if lo.size == 1 else (lo, hi)


def _auc_interval(res, index) -> tuple:
    """The audit's intervals of AUC differences, one per comparison of `res`: the hybrid
    logit/Newcombe MOVER of the AUC margin tests (``fastfair.tolerance``; the DeLong Wald
    interval covered 0.89-0.93 with 20-40 per class at an AUC of 0.9)."""
    from fastfair.tolerance import auc_difference_interval

    a = [index[c[0]] for c in res.comparisons]
    b = [index[c[1]] for c in res.comparisons]
    return auc_difference_interval(
        *(np.atleast_1d(np.asarray(v, dtype=float)) for v in
          (res.group_auc, res.group_variance, res.group_n_pos, res.group_n_neg)),
        a, b, float(res.confidence_level),
    )  # fmt: skip


def _interval(interval, res) -> dict:
    """ci_low / ci_high of a result's difference interval (absent when it has none)."""
    if interval is None:
        return {}
    lo, hi = interval
    return dict(
        ci_low=as_number(lo),
        ci_high=as_number(hi),
        confidence_level=float(getattr(res, "confidence_level", 0.95)),
    )


# --------------------------------------------------------------------------------------
# Power: the planner's minimum detectable difference for each comparison
# --------------------------------------------------------------------------------------

#: Denominator of a rate -> (planner rate key, whether the planner's rate is den/n or 1 - den/n)
_PLANNER_DENOMINATOR = {
    POSITIVES: ("prevalence", True),
    NEGATIVES: ("prevalence", False),
    TP | FP: ("selection_rate", True),
    ALL & ~(TP | FP): ("selection_rate", False),
    ALL: (None, True),
}


def _shrunk(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den, with 0 and 1 moved in by half a pseudo-observation, (num + 1/2)/(den + 1).

    The planner needs rates inside (0, 1); a small group often has a rate of 0 or 1.
    """
    rate = num / den
    edge = (num <= 0) | (num >= den)
    return np.where(edge, (num + 0.5) / (den + 1.0), rate)


def _planner_inputs(metric_name: str, part: int, cells: np.ndarray) -> tuple[str, dict]:
    """Planner metric name and per-group rates for one rate of a confusion metric."""
    spec = get_metric(metric_name)
    name = spec.part_names[part]
    num, den = spec.rates(cells)
    num, den = num[:, part].astype(float), den[:, part].astype(float)
    rates = {name: _shrunk(num, den)}
    key, direct = _PLANNER_DENOMINATOR[spec.den_masks[part]]
    if key is not None:
        n = cells.sum(axis=1).astype(float)
        share = den if direct else n - den
        rates[key] = _shrunk(share, n)
    return name, rates


def _planner_figures(metric, rates, n_per_group, options) -> dict:
    """MDE at 80% power, power at tau and rows needed for tau, for one two-group comparison."""
    alpha, tau, target = options["alpha"], options["tau"], options["power"]
    common = dict(rates=rates, alpha=alpha, reference_index=1)
    with warnings.catch_warnings():  # inf: no rate difference below 1 is detectable
        warnings.simplefilter("ignore")
        mde = planning.detectable_difference(
            metric, n_per_group=n_per_group, power=target, **common
        ).tau
    achieved = planning.power(metric, tau=tau, n_per_group=n_per_group, **common).power
    share = np.asarray(n_per_group, dtype=float) / np.sum(n_per_group)
    try:
        needed = int(
            planning.sample_size(
                metric, tau=tau, power=target, allocation=share, test="asymptotic", **common
            ).n_total_ceil
        )
    except ValueError:  # beyond any real audit (more than 2**62 rows)
        needed = None
    return dict(mde=float(mde), power_at_tau=float(achieved), n_needed=needed)


def _add_power(row: PendingTest, cells: np.ndarray | None, options) -> None:
    """Add the planner's MDE, power at tau and rows needed to a test row (in place).

    Equalized odds: the figures of its TPR and FPR parts (largest MDE, smallest power,
    most rows). Predictive parity has no planner formula: no figures.
    """
    if "error" in row or row["family"] == "parity":
        return
    n_per_group = None
    try:
        if row["family"] == "auc":
            n_per_group = [row["n_group"], row["n_reference"]]
            rates = {
                "auc": np.array([row["value_group"], row["value_reference"]]),
                "prevalence": np.array(row.prevalence),
            }
            figures = [_planner_figures("auc", rates, n_per_group, options)]
        else:
            pair = cells[list(row.codes)]
            n_per_group = pair.sum(axis=1).astype(float)
            spec = get_metric(row["metric"])
            figures = []
            for part in range(spec.n_parts):
                name, rates = _planner_inputs(row["metric"], part, pair)
                figures.append(_planner_figures(name, rates, n_per_group, options))
    except ValueError as exc:  # e.g. an AUC of exactly 0 or 1
        row["power_note"] = f"no planner figure: {exc}"
        return
    row.update(
        mde=max(f["mde"] for f in figures),
        power_at_tau=min(f["power_at_tau"] for f in figures),
        n_needed=None
        if any(f["n_needed"] is None for f in figures)
        else max(f["n_needed"] for f in figures),
    )


# --------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------


def _add_margins(row: PendingTest, cells: np.ndarray | None, options) -> None:
    """Tolerance and equivalence p-values of one comparison (audit options tolerance and
    equivalence): the tests of :mod:`fastfair.tolerance` (method "auto": score, or exact
    with few events) on the two groups' counts; for the AUC, tolerance_test's default AUC
    margin test ("hybrid") on the two groups' AUCs, DeLong variances and class counts, with a
    ``margin_note`` when a group has fewer than AUC_WARN_BELOW["hybrid"] positives or
    negatives (approximate p-value).
    Equalized odds: Bonferroni over its two components for the tolerance test, the larger
    p-value (intersection-union) for equivalence."""
    u_tol, delta = options.get("tolerance"), options.get("equivalence")
    if (u_tol is None and delta is None) or "error" in row:
        return
    if row["family"] == "confusion":
        from fastfair import tolerance

        g, r = row.codes
        parts = ["tpr", "fpr"] if row["metric"] == "equalized_odds" else [row["metric"]]
        pair = cells[[g, r]]

        def pvalue(kind: str, part: str) -> float:
            if kind == "tolerance":
                return tolerance.margin_pvalue_from_counts(pair, part, u_tol=u_tol)
            return tolerance.margin_pvalue_from_counts(pair, part, delta=delta)

    elif row["family"] == "auc" and row.auc_groups is not None:
        from fastfair import tolerance

        parts = ["auc"]
        # the functions' ApproximateLevelWarning, as a note of the row (text, JSON, report)
        _, _, n_pos, n_neg = row.auc_groups
        note = tolerance.small_class_note([row["group"], row["reference"]], n_pos, n_neg)
        if note is not None:
            row["margin_note"] = note

        def pvalue(kind: str, part: str) -> float:
            if kind == "tolerance":
                return tolerance.auc_margin_pvalue(*row.auc_groups, u_tol=u_tol)
            return tolerance.auc_margin_pvalue(*row.auc_groups, delta=delta)

    else:
        return
    if u_tol is not None:
        p = [pvalue("tolerance", part) for part in parts]
        row.update(u_tol=u_tol, pvalue_tolerance=min(1.0, len(p) * min(p)))
    if delta is not None:
        row.update(delta=delta, pvalue_equivalence=max(pvalue("equivalence", p) for p in parts))


def _undecided_text(row: Mapping) -> str:
    """The verdict of a test still open at the cap, with the resolution reached: the
    p-value's interval after the permutations drawn (when the row has them)."""
    interval, drawn = row.get("pvalue_interval"), row.get("n_permutations")
    if not interval or not drawn:
        return "undecided (p-value within Monte-Carlo error of the level)"
    lo, hi = interval
    return (
        f"undecided: p-value in [{format_significant(lo, 2)}, {format_significant(hi, 2)}] "
        f"after {drawn:,} permutations, its level inside"
    )


def verdict(
    row: Mapping, *, alpha: float, tau: float, sequential: str | None = None
) -> tuple[str, str]:
    """The verdict of one comparison: (decision, text).

    decision is "difference" (adjusted p-value <= alpha), "equivalent" (not significant, and
    the equivalence test's adjusted p-value <= alpha: "FAIR within ±δ"), "no_evidence" (not
    significant, and the audit could detect a difference of `tau`: MDE <= tau),
    "underpowered" (not significant, MDE > tau), or "error" (the test could not run). A
    difference shown within ±δ reads "DIFFERENCE, within ±δ". Without an MDE (predictive
    parity) a non-significant test reads "no evidence".

    Parameters
    ----------
    row : dict
        One test of the audit: its adjusted p-value, MDE and, where run, the equivalence
        test's adjusted p-value and margin.
    alpha : float
        Level of the audit.
    tau : float
        The gap the audit should detect.
    sequential : str, optional
        A sequential audit's family decision of this test (MMCTest: "reject", "retain"
        or "undecided"), which replaces the comparison of the adjusted p-value with alpha.

    Returns
    -------
    decision : str
        "difference", "equivalent", "no_evidence", "underpowered", "undecided" or "error".
    text : str
        The verdict as the table prints it.

    Examples
    --------
    >>> from fastfair.auditing.api import verdict
    >>> verdict({"pvalue_adjusted": 0.2, "mde": 0.0412}, alpha=0.05, tau=0.05)
    ('no_evidence', 'no evidence (could detect ≥ 0.042)')
    >>> verdict({"pvalue_adjusted": 0.2, "mde": 0.305}, alpha=0.05, tau=0.05)
    ('underpowered', 'too small to tell (could detect only ≥ 0.31)')
    >>> verdict({"pvalue_adjusted": 0.4, "pvalue_equivalence_adjusted": 0.01, "delta": 0.05},
    ...         alpha=0.05, tau=0.05)
    ('equivalent', 'FAIR within ±0.05')
    >>> verdict({"pvalue_adjusted": 1e-6, "pvalue_equivalence_adjusted": 0.01, "delta": 0.05},
    ...         alpha=0.05, tau=0.05)
    ('difference', 'DIFFERENCE, within ±0.05')
    >>> verdict({"pvalue_adjusted": 0.05, "pvalue_interval": [0.0051, 0.0060],
    ...          "n_permutations": 1_000_000}, alpha=0.05, tau=0.05, sequential="undecided")[1]
    'undecided: p-value in [0.0051, 0.006] after 1,000,000 permutations, its level inside'
    """
    if "error" in row:
        return "error", "ERROR, not run: " + row["error"]
    if sequential == "undecided":
        return "undecided", _undecided_text(row)
    within = row.get("pvalue_equivalence_adjusted", 1.0) <= alpha
    margin = f"±{row['delta']:g}" if within else ""
    if sequential == "reject" or (sequential is None and row["pvalue_adjusted"] <= alpha):
        beyond = f" beyond ±{row['u_tol']:g}" if row.get("u_tol") else ""
        return "difference", "DIFFERENCE" + beyond + (f", within {margin}" if within else "")
    if within:
        return "equivalent", f"FAIR within {margin}"
    mde = row.get("mde")
    if mde is None:
        return "no_evidence", "no evidence"
    if math.isinf(mde):
        return "underpowered", "too small to tell (no difference below 1 is detectable)"
    if mde <= tau:
        return "no_evidence", f"no evidence (could detect ≥ {format_mde(mde)})"
    return "underpowered", f"too small to tell (could detect only ≥ {format_mde(mde)})"


# --------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------


def _inputs(y_true, y_pred, y_score, threshold, cluster, data, pos_label):
    """Labels, predictions, scores and clusters as arrays, the column names used, and the
    first pandas input (its name and value) whose rows the attributes are paired with."""
    names = {
        "label": y_true if isinstance(y_true, str) else None,
        "pred": y_pred if isinstance(y_pred, str) else None,
        "score": y_score if isinstance(y_score, str) else None,
        "cluster": cluster if isinstance(cluster, str) else None,
    }
    cols = resolve_columns(data, y_true=y_true, y_pred=y_pred, y_score=y_score, cluster=cluster)
    if cols["y_pred"] is None and cols["y_score"] is None:
        raise TypeError("give y_pred (binary predictions) or y_score (scores to threshold)")

    def called(arg, role):  # errors name the column when the argument is one
        return f"{role} column {names[role]!r}" if names[role] else arg

    y = as_binary(cols["y_true"], called("y_true", "label"), pos_label)
    scores = None
    if cols["y_score"] is not None:
        scores = as_1d(cols["y_score"], called("y_score", "score"))
        if scores.dtype.kind not in "biuf" or not np.isfinite(scores.astype(float)).all():
            raise ValueError(f"{called('y_score', 'score')} must be numeric and finite")
        scores = scores.astype(np.float64)
    if cols["y_pred"] is not None:
        yhat = as_binary(cols["y_pred"], called("y_pred", "pred"), pos_label)
    else:
        threshold = score_threshold(scores, threshold, called("y_score", "score"), "threshold")
        yhat = (scores >= threshold).astype(np.uint8)
    clusters = cols["cluster"]
    if clusters is not None and not isinstance(clusters, GroupCodes):  # coded text ids stay
        clusters = as_1d(clusters, "cluster")
    for name, arr in (("y_pred", yhat), ("y_score", scores), ("cluster", clusters)):
        if arr is not None and len(arr) != len(y):
            raise ValueError(f"{name} has {len(arr)} rows, y_true has {len(y)}")
    names["threshold"] = float(threshold) if cols["y_pred"] is None else None
    rows = next(((k, v) for k, v in cols.items() if _is_pandas(v)), None)
    return y, yhat, scores, clusters, names, rows


def _compare_inputs(compare, data, y_true, threshold, n) -> dict | None:
    """The two models of the audit option `compare`: (model A, model B) as score columns or
    0/1 predictions (arrays or column names of `data`), paired with `y_true` by pandas
    index; predictions at `threshold`; scores kept for the AUC unless both are 0/1."""
    if compare is None:
        return None
    if isinstance(compare, str) or not isinstance(compare, Sequence) or len(compare) != 2:
        raise TypeError("compare must be a pair (model A, model B) of score columns or arrays")
    cols = resolve_columns(data, y_true=y_true, compare_a=compare[0], compare_b=compare[1])
    names = [c if isinstance(c, str) else f"model {m}" for c, m in zip(compare, "AB")]
    scores = []
    for key, name in zip(("compare_a", "compare_b"), names):
        values = as_1d(cols[key], f"compare column {name!r}").astype(np.float64)
        if len(values) != n or not np.isfinite(values).all():
            raise ValueError(f"compare column {name!r} must hold {n} finite numbers")
        scores.append(values)
    binary = all(np.isin(v, (0.0, 1.0)).all() for v in scores)
    preds = [
        (v >= score_threshold(v, threshold, f"compare column {name!r}", "threshold")).astype(
            np.uint8
        )
        for v, name in zip(scores, names)
    ]
    return dict(a=preds[0], b=preds[1], names=names, scores=None if binary else scores)


def _model_comparison_rows(attr, y, models, metric_names, options) -> list[dict]:
    """ "Did the gap shrink?" (audit option `compare`): each tested group against the
    reference, each metric, model B against model A on the same rows
    (:func:`fastfair.compare_models_from_counts` on the two groups' paired counts; the AUC
    by :func:`fastfair.compare_auc`, "auto": DeLong for large groups, swaps for small ones,
    whose DeLong level is far above alpha: 0.21 with 2-3 positives)."""
    from fastfair.compare import PairedStats, compare_auc, compare_models_from_counts

    codes = GroupCodes(attr.codes, np.arange(len(attr.labels)))
    counts = PairedStats.from_arrays(y, models["a"], models["b"], codes).counts
    rows = []
    for g, r in attr.comparisons:  # the pair coded 0 (group) and 1 (reference)
        shared = dict(reference=1, random_state=options["random_state"], n_jobs=options["n_jobs"])
        for metric in metric_names:
            test = partial(compare_models_from_counts, counts[[g, r]], [0, 1], metric=metric)
            rows.append(_comparison_row(attr, metric, g, r, partial(test, **shared)))
        if models["scores"] is not None:
            rows_of = np.isin(attr.codes, (g, r))
            pair = GroupCodes((attr.codes[rows_of] == r).astype(np.intp), np.array([0, 1]))
            scores = [s[rows_of] for s in models["scores"]]
            test = partial(
                compare_auc,
                y[rows_of],
                *scores,
                pair,
                **shared,
                n_permutations=options["n_permutations"] or COMPARE_PERMUTATIONS,
            )
            rows.append(_comparison_row(attr, "auc", g, r, test))
    return rows


def _comparison_row(attr, name, g, r, test) -> dict:
    """One row of the comparison of the two models, ``test()`` (an error row when it cannot
    run: a metric undefined in a group, no discordant rows)."""
    row = dict(row_head(attr, "compare", name, g, r))
    try:
        res = test()
    except ValueError as exc:
        text = str(exc).replace("group 0", repr(row["group"]))
        text = text.replace("group 1", repr(row["reference"]))
        return dict(row, error=text, verdict="not tested")
    return dict(
        row,
        gap_a=as_number(res.gap_a),
        gap_b=as_number(res.gap_b),
        difference=as_number(res.difference),
        ci_low=as_number(res.confidence_interval[0]),
        ci_high=as_number(res.confidence_interval[1]),
        pvalue=float(res.pvalue),
        pvalue_reduced=float(res.pvalue_reduced),
        method=res.method,
        n_discordant=int(res.group_discordant.sum()),
    )


def _compare_verdicts(rows, adjust, alpha) -> list[ModelComparisonRow]:
    """Both p-values of each comparison of the two models adjusted over all of them (a family
    of its own, with the audit's `adjust`), and the verdict: "gap shrank" (|gap_B| < |gap_A|
    shown), "gap grew" or "gap changed" (the gaps differ), else "no evidence of a change";
    the rows as :class:`ModelComparisonRow`."""
    valid = [t for t in rows if "error" not in t]
    for key in ("pvalue", "pvalue_reduced"):
        for t, p in zip(valid, adjust_pvalues([t[key] for t in valid], adjust)):
            t[f"{key}_adjusted"] = float(p)
    for t in valid:
        size_a, size_b = (np.abs(np.atleast_1d(t[k])).max() for k in ("gap_a", "gap_b"))
        if t["pvalue_reduced_adjusted"] <= alpha:
            t["verdict"] = "gap shrank"
        elif t["pvalue_adjusted"] <= alpha:
            t["verdict"] = "gap grew" if size_b > size_a else "gap changed"
        else:
            t["verdict"] = "no evidence of a change"
    return [ModelComparisonRow(**t) for t in rows]


def audit(
    y_true: ArrayLike | str,
    y_pred: ArrayLike | str | None = None,
    sensitive_features: Any = None,
    *,
    y_score: ArrayLike | str | None = None,
    threshold: float | None = None,
    data: Any = None,
    cluster: ArrayLike | str | None = None,
    metrics: Sequence[str] | None = None,
    reference: Any = None,
    intersections: bool = False,
    min_group_size: int = 10,
    alpha: float = 0.05,
    tau: float = 0.05,
    power: float = 0.8,
    adjust: str = "holm",
    n_permutations: int | None = None,
    pos_label: Any = None,
    random_state: int | None = 0,
    n_jobs: int | None = None,
    progress: Callable[..., Any] | None = None,
    tolerance: float | None = None,
    equivalence: float | None = None,
    compare: Sequence[ArrayLike | str] | None = None,
    slices: int | None = None,
    engine: str = "auto",
    scheduler: Any = None,
) -> AuditResult:
    """Audit a model's predictions for every protected attribute: tests, intervals, power.

    For each attribute (and combination of attributes with `intersections`), each group
    with at least `min_group_size` rows is compared with the reference group:

    * each confusion metric of `metrics` by the exact conditional permutation test
      (:func:`fastfair.permutation_test_from_counts` on the two groups' counts);
    * with `y_score`, the AUC by the DeLong-studentized permutation test
      (:func:`fastfair.auc_test`) and predictive parity over the score grid
      (:func:`fastfair.predictive_parity_test`, all groups at once, clustered by `cluster`).

    The p-values of all tests of the audit are adjusted together (`adjust`). Each comparison
    also gets the minimum detectable difference (MDE): the smallest difference a two-sided
    test at `alpha` (one comparison) detects with probability `power`, from the planner's
    asymptotic formula (:func:`fastfair.planning.detectable_difference`) at the observed
    group sizes and rates; the power achieved at a difference `tau`; and the rows (of the two
    groups, in their observed proportion) a test needs to reach `power` at `tau`. Verdicts
    (:func:`verdict`): "DIFFERENCE" when the adjusted p-value is at most `alpha`, else
    "no evidence (could detect ≥ MDE)" when MDE <= `tau`, else "too small to tell (could
    detect only ≥ MDE)".

    Parameters
    ----------
    y_true : array-like or str
        Binary outcomes (or a column name of `data`).
    y_pred : array-like or str, optional
        Binary predictions. Give `y_pred` or `y_score` (or both).
    sensitive_features : array-like, pandas Series/DataFrame, mapping, str or list of str
        Protected attributes, as fairlearn's ``sensitive_features``: one array of group
        labels, a DataFrame or mapping {name: labels} of several, or column names of `data`.
    y_score : array-like or str, optional
        Scores; predictions are ``y_score >= threshold`` when `y_pred` is not given. Adds
        the AUC and predictive-parity tests.
    threshold : float, optional
        Threshold of `y_score` for the predictions (``y_score >= threshold``). Default 0.5
        when every score is in [0, 1]; scores outside [0, 1] (a 1-10 risk score, a logit)
        need it: without it the audit raises a ValueError rather than test predictions
        that 0.5 makes all positive.
    data : pandas.DataFrame, mapping or path, optional
        Table whose columns the string arguments name; or a source of files beyond memory
        (a Parquet or CSV file, a directory or a glob pattern: only the named columns are
        read, in record batches), audited by `engine`.
    cluster : array-like or str, optional
        User (cluster) of each row, for predictive parity with dependent rows.
    metrics : list of str, optional
        Confusion metrics (default tpr, fpr, ppv, selection_rate, accuracy, equalized_odds).
    reference : label or mapping, optional
        Reference group (one attribute) or {attribute: label}; default the largest group.
        An intersection's reference is the cell of its attributes' references when they
        are all given ("Caucasian & Male" from ``{"race": "Caucasian", "sex": "Male"}``),
        unless named itself (``{"race & sex": "Caucasian & Female"}``); the result's
        attributes say which (``reference_rule``).
    intersections : bool
        Also audit every combination of two or more attributes ("sex & race").
    min_group_size : int
        Groups with fewer rows are skipped and reported with their size.
    alpha : float
        Family-wise level of the audit.
    tau : float
        The difference the audit should be able to detect (power and rows needed).
    power : float
        Target power of the MDE and of the rows needed (default 0.8).
    adjust : {"holm", "bonferroni", "none"}
        Adjustment over every test of the audit.
    n_permutations : int, optional
        Permutations for Monte-Carlo tests (the AUC) and bootstrap draws (parity). None
        (default): sequential Monte Carlo (docs/sequential.md): the AUC uses the DeLong
        z-test where every compared group has >= 1,000 positives and negatives and a
        sequential permutation test otherwise, and `adjust` over all tests is decided by
        :func:`fastfair.multiple_monte_carlo` (MMCTest, resampling risk 1e-3), which draws
        permutations only until every decision is clear; a test still open at the cap reads
        "undecided". Parity's multiplier bootstrap takes part the same way (its draws are
        continued, not taken as exact: a p-value within Monte-Carlo error of its level is
        "undecided" at the cap).
    pos_label : optional
        Positive value of `y_true` / `y_pred` when they are not 0/1 or bool.
    random_state : int or None
        Seed of every Monte-Carlo test (recorded in the result).
    n_jobs : int, optional
        Threads (None: all cores).
    progress : callable, optional
        A progress-bar factory with tqdm's interface, e.g. ``tqdm.tqdm``: called as
        ``progress(total=n, desc=phase)`` for each long phase ("tests": one step per metric
        and attribute; "adjustment": the Monte-Carlo hypotheses decided by the sequential
        adjustment), whose bar's ``update(k)`` and ``close()`` the audit calls.
    tolerance : float, optional
        Test the confusion metrics and the AUC for a gap beyond ``±tolerance``
        (:func:`fastfair.tolerance_test`, two-sided, H1: :math:`|U| > u_{tol}`) instead of
        any gap: these p-values (``pvalue_tolerance``) then replace the tests of equality in
        the family of difference tests, and "DIFFERENCE" reads "DIFFERENCE beyond ±u".
    equivalence : float, optional
        Also test every confusion metric and AUC for a gap within ``±equivalence``
        (:func:`fastfair.equivalence_test`, TOST at `alpha`; ``pvalue_equivalence``),
        adjusted (`adjust`) as a family of its own. Verdicts: "FAIR within ±δ" when
        equivalence is shown and no difference, "DIFFERENCE, within ±δ" when both (a real
        but small gap). Equalized odds is within ±δ when both components are (the larger
        p-value); its tolerance p-value is Bonferroni over the two components.
    compare : pair of array-like or str, optional
        Two models on the same rows, (model A, model B): score columns (or 0/1
        predictions), arrays or column names of `data`, thresholded at `threshold`. Adds
        "did the gap shrink?" (`AuditResult.model_comparison`): for every attribute,
        tested group and metric (and the AUC, when they are scores), model B's gap against
        model A's by :func:`fastfair.compare_models` (paired; the AUC by
        :func:`fastfair.compare_auc`'s "auto": the paired DeLong test when both groups have
        at least 1,000 positives and 1,000 negatives, else `n_permutations` (999 when
        None) swaps of the two models' scores within rows), both p-values adjusted
        (`adjust`) over these comparisons as a family of their own; verdicts "gap shrank"
        (|gap_B| < |gap_A| shown), "gap grew", "gap changed", "no evidence of a change"
        (docs/compare.md).
    slices : int, optional
        Also search the slices of the attributes (docs/slices.md): every conjunction of up
        to `slices` predicates ``attribute = group`` (1 to 6; the command line's
        ``--slices`` alone means 2) with at least max(50, `min_group_size`) rows, compared
        with its complement on each rate of `metrics` (equalized odds as TPR and FPR) by
        :func:`fastfair.find_slices_from_cube` on the cube of counts of the attributes (the
        same on every engine). The family-wise error over every slice and metric is at
        most `alpha`: max-T over `n_permutations` (999 when None) joint permutations
        within each metric, at `alpha` divided by the number of metrics. A metric whose
        search cannot run (no slice that large) gets a note, not an error
        (`AuditResult.slices`, a section of the report).
    engine : {"auto", "memory", "arrow", "dask", "spark"}
        How a `data` path is read: "memory" holds the audit's columns; "arrow" reads record
        batches into mergeable summaries on this machine (memory: one batch plus the
        summaries); "dask" reduces partitions on a dask scheduler; "spark" reads the files
        through Spark and reduces its partitions on the executors; "auto" (default) takes
        "arrow" for a source of more than 2,000,000 rows
        (:func:`fastfair.engines.choose_engine`), else "memory". Every engine audits every
        attribute and intersection, with the same confusion-matrix and predictive-parity
        results (one pass builds the cube of counts of every combination of the attributes'
        levels); from summaries the AUC is the DeLong z-test; `compare` needs "memory".
        Arrays and data frames are audited in memory.
    scheduler : str or distributed.Client, optional
        The dask scheduler of ``engine="dask"`` ("sync", "threads", "processes", a client,
        or the ADDRESS of a scheduler); None: dask's default. With ``engine="spark"``: the
        Spark master URL of a new session (default ``local[*]``; an active SparkSession is
        used as it is).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> sex = rng.choice(["F", "M"], n)
    >>> y = rng.random(n) < 0.4
    >>> pred = np.where(y, rng.random(n) < np.where(sex == "F", 0.7, 0.8), rng.random(n) < 0.1)
    >>> res = fastfair.audit(y, pred, {"sex": sex}, metrics=["tpr", "fpr"])
    >>> for t in res.tests:
    ...     print(t["metric"], t["group"], "vs", t["reference"], round(t["difference"], 3),
    ...           t["verdict"])
    tpr F vs M -0.089 DIFFERENCE
    fpr F vs M -0.002 no evidence (could detect ≥ 0.036)
    >>> res.to_frame().shape
    (2, 22)
    """
    if is_source(data):
        arguments = locals_of_audit(locals())
        from fastfair.auditing.summaries import audit_source

        return audit_source(data, **arguments)
    check_in_memory(engine)
    start = time.perf_counter()
    settings = _settings(
        alpha, tau, power, adjust, n_permutations, metrics, random_state, n_jobs,
        intersections, min_group_size, tolerance=tolerance, equivalence=equivalence,
        slices=slices,
    )  # fmt: skip
    options, metric_names = settings["options"], settings["metrics"]
    y, yhat, scores, clusters, names, rows = _inputs(
        y_true, y_pred, y_score, threshold, cluster, data, pos_label
    )
    models = _compare_inputs(compare, data, y_true, threshold, len(y))
    attributes = code_attributes(
        sensitive_features,
        data=data,
        intersections=intersections,
        min_group_size=min_group_size,
        reference=reference,
        n_rows=len(y),
        rows=rows,
    )
    _check_something_tested(attributes, min_group_size)
    steps = sum(len(metric_names) + 2 * (scores is not None) for _ in attributes)
    bar = progress(total=steps, desc="tests") if progress else None
    tick = bar.update if bar is not None else (lambda: None)
    cell = cell_index(y, yhat)
    tests, parity, sweeps, cells_by_attribute, compared = [], {}, {}, {}, []
    for attr in attributes:
        cells, _ = _counts.cell_sums(cell, attr.codes, len(attr.labels))
        cells_by_attribute[attr.name] = cells
        for metric in metric_names:
            tests += _confusion_rows(attr, cells, metric, options)
            tick()
        if models is not None:
            compared += _model_comparison_rows(attr, y, models, metric_names, options)
        if scores is not None:
            tests += _auc_rows(attr, y, scores, options)
            tick()
            if attr.reference is not None:
                row, res = _parity_row(
                    attr, y, scores, clusters, options, cluster_column=names["cluster"]
                )
                tests.append(row)
                if res is not None:
                    parity[attr.name] = res
                sweep = _threshold_sweep(attr, y, scores, options)
                if sweep is not None:
                    sweeps[attr.name] = sweep
            tick()
    if bar is not None:
        bar.close()
    compared = _compare_verdicts(compared, settings["adjust"], options["alpha"])
    if models is not None:
        names["compare"] = models["names"]
    found = slice_search(_attribute_cube(attributes, cell), settings, progress)
    return _result(
        tests,
        attributes,
        cells_by_attribute,
        settings,
        n_rows=len(y),
        columns=dict(names, groups=[a.name for a in attributes if len(a.columns) == 1]),
        parity=parity,
        start=start,
        sweeps=sweeps,
        progress=progress,
        model_comparison=compared,
        slices=found,
    )


def _attribute_cube(attributes, cell):
    """The cube of counts of the single attributes' groups (their codes, as coded)."""
    from fastfair.stats import ConfusionCube

    single = [a for a in attributes if len(a.columns) == 1]
    return ConfusionCube.from_codes(
        cell, [a.codes for a in single], [np.asarray(a.labels) for a in single],
        [a.name for a in single],
    )  # fmt: skip


def slice_search(cube, settings: dict, progress=None) -> AuditSlices | None:
    """The audit's slice search (``slices=DEPTH``) on the cube of counts of its attributes,
    from the rows or any engine's summary: one :func:`fastfair.find_slices_from_cube` per
    rate at alpha / (number of rates); a search that cannot run gets a note.

    Parameters
    ----------
    cube : fastfair.stats.ConfusionCube
        Confusion counts of every combination of the attributes' groups.
    settings : dict
        The audit's checked settings (:func:`fastfair.auditing.ingest.check_audit_settings`).
    progress : callable, optional
        A progress-bar factory (one step per rate).

    Returns
    -------
    AuditSlices or None
        None when the audit was not asked for slices.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.auditing.api import slice_search
    >>> from fastfair.auditing.ingest import check_audit_settings
    >>> from fastfair.stats import ConfusionCube
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> sex, region = rng.choice(["F", "M"], n), rng.choice(["a", "b", "c"], n)
    >>> y = rng.random(n) < 0.4
    >>> hit = np.where((sex == "F") & (region == "c"), 0.5, 0.8)  # a lower TPR in one slice
    >>> pred = np.where(y, rng.random(n) < hit, rng.random(n) < 0.2)
    >>> cube = ConfusionCube.from_arrays(y, pred, {"sex": sex, "region": region})
    >>> found = slice_search(cube, check_audit_settings(metrics=["tpr", "fpr"], slices=2))
    >>> found.metric_alpha, [(m, s.description) for m, s in found.found][:1]
    (0.025, [('tpr', 'sex = F & region = c')])
    """
    from fastfair.slices import find_slices_from_cube

    depth, options = settings.get("slices"), settings["options"]
    if depth is None:
        return None
    metrics = slice_metrics(settings["metrics"])
    fields = dict(
        features=tuple(cube.names), max_depth=depth, alpha=options["alpha"],
        min_size=max(SLICE_MIN_SIZE, settings["min_group_size"]),
        metric_alpha=options["alpha"] / len(metrics), metrics=tuple(metrics),
        n_permutations=slice_permutations(options["n_permutations"], options["alpha"],
                                          settings["metrics"]),
    )  # fmt: skip
    bar = progress(total=len(metrics), desc="slices") if progress else None
    searches, notes = {}, {}
    too_small = _no_slice_large_enough(cube, fields["min_size"])
    for metric in metrics:
        if too_small:
            notes[metric] = too_small
            continue
        try:
            searches[metric] = find_slices_from_cube(
                cube, metric=metric, max_depth=depth, min_size=fields["min_size"],
                n_permutations=fields["n_permutations"], alpha=fields["metric_alpha"],
                random_state=options["random_state"], n_jobs=options["n_jobs"],
            )  # fmt: skip
        except ValueError as exc:  # nothing to search (sizes, a constant rate, levels)
            notes[metric] = str(exc)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return AuditSlices(searches=searches, notes=notes, **fields)


def _no_slice_large_enough(cube, min_size: int) -> str | None:
    """Why no slice can be searched when no group has `min_size` rows (a group, a slice of
    depth 1, is larger than each of its refinements), else None."""
    rows = cube.counts.sum(axis=1)
    largest = max(int(np.bincount(cube.keys[:, j], weights=rows).max())
                  for j in range(len(cube.names)))  # fmt: skip
    if largest >= min_size:
        return None
    return (f"no slice has {min_size} rows (the largest group has {largest}): the audit's "
            f"slices have at least max({SLICE_MIN_SIZE}, min_group_size) rows")  # fmt: skip


def is_source(data: Any) -> bool:
    """Whether `data` names files (a path, a directory or a glob) rather than holding columns."""
    return isinstance(data, (str, os.PathLike))


def check_in_memory(engine: str) -> None:
    """The engine of an audit of arrays or a data frame: "auto" or "memory"."""
    check_choice(engine, "engine", ("auto", "memory", "arrow", "dask", "spark"))
    if engine not in ("auto", "memory"):
        raise ValueError(
            f"engine={engine!r} reads files: give data as a path (a Parquet or CSV file, a "
            "directory or a glob pattern) and the columns by name"
        )


def locals_of_audit(arguments: dict) -> dict:
    """The arguments of :func:`audit` but `data`, by name (for the audit of a source)."""
    return {k: v for k, v in arguments.items() if k != "data"}


def _settings(
    alpha, tau, power, adjust, n_permutations, metrics, random_state, n_jobs, intersections,
    min_group_size, tolerance=None, equivalence=None, slices=None,
) -> dict:  # fmt: skip
    """Checked settings of an audit: the options every test reads, and the rest."""
    settings = check_audit_settings(
        alpha=alpha, tau=tau, power=power, adjust=adjust, n_permutations=n_permutations,
        metrics=metrics, tolerance=tolerance, equivalence=equivalence,
        random_state=random_state, n_jobs=n_jobs, min_group_size=min_group_size,
        slices=slices,
    )  # fmt: skip
    return dict(settings, intersections=bool(intersections))


def _check_something_tested(attributes, min_group_size) -> None:
    if any(a.reference is not None for a in attributes):
        return
    sizes = "; ".join(
        f"{a.name}: "
        + ", ".join(f"{g} ({n})" for g, n in zip(a.labels[:5], a.sizes[:5]))
        + (", ..." if len(a.labels) > 5 else "")
        for a in attributes
    )
    raise ValueError(
        f"no attribute has two groups with at least {min_group_size} rows ({sizes}); "
        "see min_group_size"
    )


def _result(
    tests, attributes, cells_by_attribute, settings, *, n_rows, columns, parity, start,
    engine="memory", sweeps=None, progress=None, model_comparison=None, slices=None,
) -> AuditResult:  # fmt: skip
    """Power, the adjustment over every test, verdicts, and the AuditResult."""
    options = settings["options"]
    for t in tests:
        if "error" not in t and not math.isfinite(t.get("pvalue", math.nan)):
            t["error"] = "the test gave no p-value"
        cells = cells_by_attribute[t["attribute"]] if t["family"] == "confusion" else None
        _add_power(t, cells, options)
        _add_margins(t, cells, options)
    valid = [t for t in tests if "error" not in t]
    if (
        options["n_permutations"] is None
        and valid
        and not any("pvalue_tolerance" in t for t in valid)
    ):
        _sequential_adjust(valid, settings["adjust"], options["alpha"], progress)
    else:
        family = [t.get("pvalue_tolerance", t["pvalue"]) for t in valid]
        adjusted = adjust_pvalues(family, settings["adjust"]) if valid else []
        for t, p_adj in zip(valid, adjusted):
            t["pvalue_adjusted"] = float(p_adj)
    equivalence = [t for t in valid if "pvalue_equivalence" in t]  # a family of its own
    if equivalence:
        p_eq = [t["pvalue_equivalence"] for t in equivalence]
        for t, p_adj in zip(equivalence, adjust_pvalues(p_eq, settings["adjust"])):
            t["pvalue_equivalence_adjusted"] = float(p_adj)
    for t in tests:
        t["decision"], t["verdict"] = verdict(
            t, alpha=options["alpha"], tau=options["tau"], sequential=t.decision
        )
    return AuditResult(
        tests=[AuditTest(**t) for t in tests],
        attributes=[_attribute_summary(a, cells_by_attribute[a.name]) for a in attributes],
        n_rows=int(n_rows),
        alpha=options["alpha"],
        tau=options["tau"],
        power=options["power"],
        adjust=settings["adjust"],
        metrics=settings["metrics"],
        intersections=settings["intersections"],
        min_group_size=settings["min_group_size"],
        columns=columns,
        seed=options["random_state"],
        n_permutations=options["n_permutations"],
        elapsed_seconds=round(time.perf_counter() - start, 3),
        parity=parity,
        group_cells=dict(cells_by_attribute),
        engine=engine,
        sweeps=sweeps or {},
        model_comparison=model_comparison or [],
        slices=slices,
    )


def _sequential_adjust(valid, adjust, alpha, progress=None) -> None:
    """`adjust` over every test of the audit, decided by fastfair.multiple_monte_carlo
    (MMCTest): Monte-Carlo tests continue their permutations until the family's decision is
    clear; exact, asymptotic and bootstrap p-values take part as they are. Sets each row's
    pvalue (Monte Carlo: the final estimate), pvalue_adjusted, n_permutations,
    pvalue_interval (simultaneous, level 1 - 1e-3) and the decision the verdict reads."""
    import fastfair

    family = []
    for t in valid:
        res = t.result
        sampled = res is not None and samplers_of(res) is not None
        family.append(res if sampled else float(t["pvalue"]))
    fam = fastfair.multiple_monte_carlo(family, adjust=adjust, alpha=alpha, progress=progress)
    lo, hi = fam.pvalue_interval
    for k, t in enumerate(valid):  # each result holds one comparison: entry k is row k
        t["pvalue"] = float(fam.pvalue[k])
        t["pvalue_adjusted"] = float(fam.pvalue_adjusted[k])
        t.decision = str(fam.decision[k])
        if fam.n_permutations[k]:
            t["n_permutations"] = int(fam.n_permutations[k])
            t["pvalue_interval"] = [float(lo[k]), float(hi[k])]


def _attribute_summary(attr: Attribute, cells) -> dict:
    """JSON-ready description of an attribute: its groups with sizes and base rates."""
    n = cells.sum(axis=1)
    positives = cells[:, 2] + cells[:, 3]
    selected = cells[:, 1] + cells[:, 3]
    groups = [
        dict(
            group=as_python(attr.labels[k]),
            n=int(n[k]),
            base_rate=float(positives[k] / n[k]),
            selection_rate=float(selected[k] / n[k]),
            tested=bool(attr.tested[k]),
        )
        for k in range(len(attr.labels))
        if n[k] > 0
    ]
    return dict(
        name=attr.name,
        columns=list(attr.columns),
        reference=None if attr.reference is None else as_python(attr.labels[attr.reference]),
        reference_rule=None if attr.reference is None else attr.reference_rule,
        groups=groups,
        skipped=attr.skipped,
        note=None
        if attr.reference is not None
        else "fewer than two groups have enough rows: nothing tested",
    )
