"""Ingest: the options and the data checked and coerced once (permutation tests of confusion-
matrix metrics)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._pvalues import ALTERNATIVES
from fastfair._sequential import Sequential, resolve
from fastfair._validation import check_choice, check_level, show_value

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


def _check_options(
    *,
    metric,
    scheme,
    studentize,
    variance,
    method,
    n_permutations,
    sequential,
    alternative,
    mid_p,
    reference,
    comparisons,
    adjust,
    return_null,
    random_state,
    confidence_level,
) -> _Options:
    spec_metric = get_metric(metric)
    check_choice(scheme, "scheme", SCHEMES)
    check_choice(variance, "variance", VARIANCES)
    check_choice(method, "method", METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", ("reference", "all"))
    check_choice(adjust, "adjust", ADJUSTMENTS)
    fixed, seq_options = resolve(n_permutations, sequential)
    if not isinstance(studentize, (bool, np.bool_)):
        raise TypeError(f"studentize must be True or False, got {show_value(studentize)}")
    if spec_metric.n_parts > 1 and alternative != "two-sided":
        raise ValueError("equalized_odds combines two differences; only 'two-sided' applies")
    check_level(confidence_level, "confidence_level")
    if method == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs a studentized statistic (studentize=True)")
    return _Options(
        metric=spec_metric,
        scheme=scheme,
        studentize=studentize,
        variance=variance,
        method=method,
        n_permutations=fixed,
        sequential=seq_options,
        alternative=alternative,
        mid_p=mid_p,
        reference=reference,
        comparisons=comparisons,
        adjust=adjust,
        return_null=return_null,
        random_state=random_state,
        confidence_level=confidence_level,
    )
