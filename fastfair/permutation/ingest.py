"""Ingest: the options and the data checked and coerced once (permutation tests of confusion-
matrix metrics)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastfair._comparisons import ComparisonOptions, comparison_fields
from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._validation import check_choice, check_flag

SCHEMES = ("conditional", "within_outcome", "full")
METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
VARIANCES = ("pooled", "unpooled")
ADJUSTMENTS = ("holm", "bonferroni", "maxT", "none")


@dataclass(frozen=True)
class _Options(ComparisonOptions):
    """The options of a test of confusion-matrix rates, checked once (_check_options)."""

    metric: ConfusionMetric
    scheme: str
    studentize: bool
    variance: str
    method: str
    mid_p: bool


def _check_options(arguments: Mapping[str, Any]) -> _Options:
    """The options of permutation_test / permutation_test_from_counts, checked once.

    `arguments`: the public function's arguments by name (its ``locals()`` on entry).
    """
    studentize, method = arguments["studentize"], arguments["method"]
    spec_metric = get_metric(arguments["metric"])
    check_choice(arguments["scheme"], "scheme", SCHEMES)
    check_choice(arguments["variance"], "variance", VARIANCES)
    check_choice(method, "method", METHODS)
    fields = comparison_fields(arguments, ADJUSTMENTS)
    check_flag(studentize, "studentize")
    if spec_metric.n_parts > 1 and fields["alternative"] != "two-sided":
        raise ValueError("equalized_odds combines two differences; only 'two-sided' applies")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs a studentized statistic (studentize=True)")
    return _Options(
        **fields,
        metric=spec_metric,
        scheme=arguments["scheme"],
        studentize=studentize,
        variance=arguments["variance"],
        method=method,
        mid_p=arguments["mid_p"],
    )
