"""What the dask and spark engines share: their public functions' docstrings and the
tests they make of a summary.

Both engines offer the same functions of a DataFrame's columns (confusion and paired counts,
score summaries, DeLong and the tests); each fills the shared parts of the docstrings
(:func:`documented`) with its own ``{df}`` and ``{example}``, and makes
``permutation_test``, ``compare_models`` and ``auc_test`` from its ``confusion_stats``,
``paired_stats`` and ``delong`` (:func:`summary_test`). Their partitions' summaries carry the
distinct values of the binary columns (:class:`Piece`), checked once for the whole frame.
"""

from __future__ import annotations

import inspect

from fastfair._validation import check_binary_values

__all__ = ["SHARED", "Piece", "checked_piece", "documented", "summary_test"]

#: The docstring parts both engines use, by key ({pos_label}, {y_score}, ...).
SHARED = {
    "y_pred": """y_true, y_pred : str
        Names of the binary outcome and prediction columns.""",
    "groups": """*group : str
        Names of one or more group columns (several: their intersections).""",
    "y_score": """y_true, y_score, group : str
        Names of the binary outcome, score and group columns.""",
    "y_pred_ab": """y_true, y_pred_a, y_pred_b, group : str
        Names of the outcome, the two models' binary predictions and the group column.""",
    "pos_label": """pos_label : optional
        Positive value of the outcome and predictions when they are not bool or 0/1.""",
    "resolution": """resolution : float, optional
        Bin the scores to multiples of this width (see :class:`fastfair.stats.ScoreStats`);
        None: the exact scores.""",
}

#: The tests made of a summary: (their result, first line, options, what they equal).
_TESTS = {
    "permutation_test": (
        "PermutationTestResult",
        ":func:`fastfair.permutation_test` of a {engine} DataFrame's columns (same result).",
        "Those of :func:`fastfair.permutation_test_from_counts` (metric, scheme, method,\n"
        "        n_permutations, random_state, ...).",
        "As :func:`fastfair.permutation_test` returns it for the same rows.",
    ),
    "compare_models": (
        "ModelComparisonResult",
        ":func:`fastfair.compare_models` of a {engine} DataFrame's columns (same result).",
        "Those of :func:`fastfair.compare_models_from_counts` (metric, method, delta,\n"
        "        n_permutations, random_state, ...).",
        "As :func:`fastfair.compare_models` returns it for the same rows.",
    ),
    "auc_test": (
        "AUCTestResult",
        'DeLong z-test of equal AUCs: ``fastfair.auc_test(method="delong")`` of the columns.',
        "alternative, reference, comparisons, adjust (holm, bonferroni, none),\n"
        "        confidence_level, as in :func:`fastfair.auc_test`.",
        'As ``fastfair.auc_test(method="delong")`` returns it for the same rows.',
    ),
}


def fill(doc: str, parts: dict) -> str:
    """`doc` with each ``{key}`` of `parts` (and of :data:`SHARED`) replaced by its text."""
    for key, text in {**SHARED, **parts}.items():
        doc = doc.replace("{" + key + "}", text)
    return doc


def documented(parts: dict):
    """A decorator filling in the shared parts of a function's docstring (:func:`fill`)."""

    def decorate(function):
        function.__doc__ = fill(function.__doc__, parts)
        return function

    return decorate


def _finish(name: str, summary, options: dict):
    """The test `name` of a summary (the DeLong z-test of a DeLong result)."""
    if name == "auc_test":
        from fastfair.auc import auc_test_from_delong

        return auc_test_from_delong(summary, **options)
    return summary.test(**options)


def summary_test(name: str, build, *, engine: str, parts: dict, example: str, module: str):
    """The test `name` (``permutation_test``, ``compare_models`` or ``auc_test``) of a
    DataFrame whose summary `build` makes (``confusion_stats``, ``paired_stats`` or
    ``delong``): `build`'s arguments, then the options of the test; the same result as
    ``fastfair.<name>`` of the rows.

    Its docstring: `build`'s Parameters, the options, and `example` (doctest lines after
    ``{example}``), the shared parts filled in from `parts`.
    """
    returns, first, options_text, same = _TESTS[name]
    signature = inspect.signature(build)
    names = set(signature.parameters)

    def test(*args, **kwargs):
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in names}
        return _finish(name, build(*args, **kwargs), options)

    options = inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD, annotation="Any")
    test.__signature__ = signature.replace(
        parameters=[*signature.parameters.values(), options], return_annotation=returns
    )
    head = build.__doc__.split("Parameters\n    ----------\n", 1)[1].split("\n\n")[0].strip()
    doc = f"""{first.format(engine=engine)}

    Parameters
    ----------
    {head}
    **options
        {options_text}

    Returns
    -------
    {returns}
        {same}

    Examples
    --------
    {{example}}
    {example.strip()}
    """
    test.__doc__ = fill(doc, parts)
    test.__module__, test.__name__, test.__qualname__ = module, name, name
    return test


class Piece:
    """A partition's summary and the distinct values of its binary columns: two pieces add
    as their summaries add and unite their values, checked once for the whole frame
    (:func:`checked_piece`): one partition may hold only 'no', another only 'maybe'.

    Examples
    --------
    >>> total = Piece(1, {"y": frozenset({"no"})}) + Piece(2, {"y": frozenset({"maybe"})})
    >>> total.summary, sorted(total.values["y"])
    (3, ['maybe', 'no'])
    """

    def __init__(self, summary, values: dict):
        self.summary, self.values = summary, values

    def __add__(self, other: Piece) -> Piece:
        values = {c: v | other.values[c] for c, v in self.values.items()}
        return Piece(self.summary + other.summary, values)


def checked_piece(piece, binary: dict, pos_label, require_pos: bool):
    """The summary of a reduced :class:`Piece` (anything else as it is), once the union of
    each binary column's values passes the memory engine's check of the whole column;
    `binary`: {column: the name messages give it}."""
    if not isinstance(piece, Piece):
        return piece
    for column, name in binary.items():
        check_binary_values(piece.values[column], name, pos_label, require_pos)
    return piece.summary
