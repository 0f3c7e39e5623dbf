"""Ingest: the options and the data checked and coerced once (permutation tests of confusion-
matrix metrics)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastfair._comparisons import check_comparison_options
from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._sequential import Sequential, resolve
from fastfair._validation import check_choice, check_flag, check_level

SCHEMES = ("conditional", "within_outcome", "full")
METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
VARIANCES = ("pooled", "unpooled")
ADJUSTMENTS = ("holm", "bonferroni", "maxT", "none")


@dataclass(frozen=True)
class _Options:
    """The options of a test of confusion-matrix rates, checked once (_check_options)."""

    metric: ConfusionMetric
    scheme: str
    studentize: bool
    variance: str
    method: str
    n_permutations: int | None  # fixed-size Monte Carlo; None: sequential
    sequential: Sequential | None  # the sequential test's options, None when fixed
    alternative: str
    mid_p: bool
    reference: object
    comparisons: str
    adjust: str
    return_null: bool
    random_state: object
    confidence_level: float


def _check_options(arguments: Mapping[str, Any]) -> _Options:
    """The options of permutation_test / permutation_test_from_counts, checked once.

    `arguments`: the public function's arguments by name (its ``locals()`` on entry); the
    fields of `_Options` are read from it, `n_permutations` and `sequential` resolved.
    """
    metric, studentize, method = arguments["metric"], arguments["studentize"], arguments["method"]
    alternative = arguments["alternative"]
    spec_metric = get_metric(metric)
    check_choice(arguments["scheme"], "scheme", SCHEMES)
    check_choice(arguments["variance"], "variance", VARIANCES)
    check_choice(method, "method", METHODS)
    check_comparison_options(
        alternative, arguments["comparisons"], arguments["adjust"], ADJUSTMENTS
    )
    fixed, seq_options = resolve(arguments["n_permutations"], arguments["sequential"])
    check_flag(studentize, "studentize")
    if spec_metric.n_parts > 1 and alternative != "two-sided":
        raise ValueError("equalized_odds combines two differences; only 'two-sided' applies")
    check_level(arguments["confidence_level"], "confidence_level")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs a studentized statistic (studentize=True)")
    fields = {name: arguments[name] for name in _Options.__dataclass_fields__}
    return _Options(
        **{**fields, "metric": spec_metric, "n_permutations": fixed, "sequential": seq_options}
    )
