"""Comparisons between groups: which pairs are tested and whether each compared
group's statistic is defined (shared by every family)."""

from __future__ import annotations

import numpy as np

from fastfair._metrics import ConfusionMetric
from fastfair._pvalues import ALTERNATIVES
from fastfair._validation import check_choice, show_value

COMPARISONS = ("reference", "all")


def check_comparison_options(alternative, comparisons, adjust, adjustments) -> None:
    """The options of every test over pairs of groups: `alternative`, `comparisons` and
    `adjust`, one of the family's `adjustments`."""
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(comparisons, "comparisons", COMPARISONS)
    check_choice(adjust, "adjust", adjustments)


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
