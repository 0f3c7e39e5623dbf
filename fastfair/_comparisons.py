"""Comparisons between groups: which pairs are tested and whether each compared
group's statistic is defined (shared by every family)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._metrics import ConfusionMetric
from fastfair._pvalues import ALTERNATIVES
from fastfair._sequential import Sequential, resolve
from fastfair._validation import check_choice, check_level, show_value

COMPARISONS = ("reference", "all")


def check_comparison_options(alternative, comparisons, adjust, adjustments) -> None:
    """The options of every test over pairs of groups: `alternative`, `comparisons` and
    `adjust`, one of the family's `adjustments`."""
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", COMPARISONS)
    check_choice(adjust, "adjust", adjustments)


@dataclass(frozen=True)
class ComparisonOptions:
    """The options of a Monte-Carlo test over pairs of groups, checked once
    (`comparison_fields`); each family's options add their own fields."""

    alternative: str
    reference: object
    comparisons: str
    adjust: str
    n_permutations: int | None  # fixed-size Monte Carlo; None: sequential
    sequential: Sequential | None  # the sequential test's options, None when fixed
    return_null: bool
    random_state: object
    confidence_level: float


def comparison_fields(arguments: Mapping[str, Any], adjustments) -> dict[str, Any]:
    """The `ComparisonOptions` fields of a public function's arguments (read by name, its
    ``locals()`` on entry), checked: `alternative`, `comparisons`, `adjust` (one of
    `adjustments`), `n_permutations` and `sequential` resolved (fixed count or sequential
    options), `confidence_level` in (0, 1) (0.95 for a function without it)."""
    alternative, comparisons, adjust = (
        arguments["alternative"],
        arguments["comparisons"],
        arguments["adjust"],
    )
    check_comparison_options(alternative, comparisons, adjust, adjustments)
    fixed, sequential = resolve(arguments["n_permutations"], arguments["sequential"])
    level = check_level(arguments.get("confidence_level", 0.95), "confidence_level")
    return {
        "alternative": alternative,
        "reference": arguments["reference"],
        "comparisons": comparisons,
        "adjust": adjust,
        "n_permutations": fixed,
        "sequential": sequential,
        "return_null": arguments["return_null"],
        "random_state": arguments["random_state"],
        "confidence_level": level,
    }


def comparison_pairs(sizes, labels, reference, comparisons) -> np.ndarray:
    """(n_comparisons, 2) group codes: (group, reference) or all (i, j), i < j."""
    k = len(labels)
    if comparisons == "all":
        if reference is not None:
            raise ValueError("reference applies to comparisons='reference' only")
        return np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.intp)
    if reference is None:
        ref = int(np.argmax(sizes))
    else:
        matches = np.flatnonzero(labels == reference)
        if matches.size == 0:
            raise ValueError(
                f"reference {show_value(reference)} is not a group; groups: {labels.tolist()}"
            )
        ref = int(matches[0])
    return np.array([(g, ref) for g in range(k) if g != ref], dtype=np.intp)


def check_rates_defined(spec_metric: ConfusionMetric, w, labels, pairs) -> None:
    """Raise ValueError when a compared group's metric has an empty denominator."""
    _, den = spec_metric.rates(w)
    for g in np.unique(pairs):
        for part, text in enumerate(spec_metric.den_description):
            if den[g, part] <= 0:
                raise ValueError(
                    f"group {labels.tolist()[g]!r} has no {text}, so "
                    f"{spec_metric.part_names[part]} is undefined for it"
                )


def check_auc_defined(tot, labels, groups) -> None:
    for g in groups:
        if tot[g, 1] == 0 or tot[g, 0] == 0:
            kind = "positives" if tot[g, 1] == 0 else "negatives"
            raise ValueError(
                f"group {show_value(labels[g])} has no {kind}, so its AUC is undefined"
            )
