"""The slice search's result: the significant slices, ranked by effect, and the search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastfair._export import plain
from fastfair._format import format_table, format_value

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FoundSlice", "SliceSearchResult", "describe"]


def describe(predicates) -> str:
    """``"sex = F & age = [18, 25)"``; the whole population is ``"all rows"``."""
    return " & ".join(f"{name} = {level}" for name, level in predicates) or "all rows"


@dataclass(frozen=True, repr=False)
class FoundSlice:
    """One significant slice, compared with its complement (the rows outside it).

    Attributes
    ----------
    predicates : tuple of (feature, level)
        The conjunction that defines the slice.
    size : int
        Rows in the slice.
    n : int
        Rows of the slice in the metric's denominator (e.g. y_true = 1 for the TPR).
    value, complement_value : float
        The metric in the slice and in its complement.
    difference : float
        ``value - complement_value``.
    confidence_interval : tuple of float
        Simultaneous interval of the difference (see :func:`fastfair.find_slices`).
    statistic : float
        The slice's standardized statistic (exact null mean 0, variance 1).
    pvalue : float
        Exact (hypergeometric) p-value of this slice alone, not adjusted.
    pvalue_adjusted : float
        p-value adjusted over every slice tested.
    parent_values : tuple of (str, float)
        The metric in each parent slice (one predicate fewer; "all rows" for depth 1).
    """

    predicates: tuple
    size: int
    n: int
    value: float
    complement_value: float
    difference: float
    confidence_interval: tuple
    statistic: float
    pvalue: float
    pvalue_adjusted: float
    parent_values: tuple

    @property
    def description(self) -> str:
        return describe(self.predicates)

    @property
    def depth(self) -> int:
        return len(self.predicates)

    def to_dict(self) -> dict:
        """Plain Python values (JSON-ready).

        Returns
        -------
        dict
            The columns of :meth:`SliceSearchResult.to_frame` for this slice.
        """
        lower, upper = self.confidence_interval
        return {
            "slice": self.description,
            "depth": self.depth,
            "predicates": plain(self.predicates),
            "size": self.size,
            "n": self.n,
            "value": self.value,
            "complement_value": self.complement_value,
            "difference": self.difference,
            "lower": lower,
            "upper": upper,
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "pvalue_adjusted": self.pvalue_adjusted,
            "parents": "; ".join(f"{p}: {format_value(v)}" for p, v in self.parent_values),
        }

    def to_frame(self) -> pd.DataFrame:
        """The slice as a one-row frame.

        Returns
        -------
        pandas.DataFrame
            The columns of :meth:`SliceSearchResult.to_frame`.
        """
        import pandas as pd

        return pd.DataFrame([self.to_dict()], columns=list(_COLUMNS))

    def __repr__(self) -> str:
        lower, upper = self.confidence_interval
        return (
            f"FoundSlice({self.description}: {self.value:.4f} vs {self.complement_value:.4f}, "
            f"difference {self.difference:+.4f} [{lower:.4f}, {upper:.4f}], size {self.size}, "
            f"p adjusted {format_value(self.pvalue_adjusted)})"
        )


@dataclass(frozen=True, repr=False)
class SliceSearchResult:
    """Result of :func:`fastfair.find_slices`.

    Attributes
    ----------
    slices : tuple of FoundSlice
        The significant slices (adjusted p-value <= alpha), largest absolute difference first.
    statistic : float
        The largest oriented statistic over the slices tested.
    pvalue : float
        p-value of the global null (no slice differs): the smallest adjusted p-value (1 when
        no slice was tested).
    metric, alternative, adjust : str
        The rate compared, the alternative, and the error control ("maxT": family-wise by
        joint permutations; "by": false discovery rate, Benjamini-Yekutieli; "bonferroni").
    alpha : float
        Level of the error control; the intervals are simultaneous at 1 - alpha ("by":
        false coverage-statement rate alpha over the slices reported).
    critical_value : float
        The statistic a slice must reach (maxT: the 1 - alpha quantile of the joint
        permutations' maxima); the intervals' multiplier.
    n_slices : int
        Slices tested: at least ``min_size`` rows, and rows both inside and outside the
        slice in the metric's denominator.
    n_distinct : int
        Distinct sets of rows among them (``a = x & b = y`` may hold the rows of ``a = x``).
    effective_n_slices : float
        The Bonferroni-equivalent number of slices: alpha over the mean, across the slices
        tested, of each slice's exact null probability of reaching the critical value
        (Bonferroni uses n_slices; max-T gains where slices overlap). It may exceed
        n_slices when small slices have skewed statistics whose extremes set the maximum.
    n_small, n_untestable : int
        Slices left out: fewer than ``min_size`` rows (with all their descendants), or no
        row inside or outside the slice in the metric's denominator.
    n_rows, n_cells : int
        Rows, and joint cells of the cube (observed level combinations).
    population_value : float
        The metric over all rows.
    bins : dict
        Feature -> bin edges of the numeric features that were binned.
    """

    slices: tuple
    statistic: float
    pvalue: float
    metric: str
    alternative: str
    adjust: str
    alpha: float
    critical_value: float
    n_slices: int
    n_distinct: int
    effective_n_slices: float
    n_small: int
    n_untestable: int
    n_rows: int
    n_cells: int
    population_value: float
    features: tuple
    bins: dict
    max_depth: int
    min_size: int
    n_permutations: int

    def to_frame(self) -> pd.DataFrame:
        """One row per significant slice, in the order of ``slices``.

        Returns
        -------
        pandas.DataFrame
            Columns slice, depth, predicates, size, n, value, complement_value, difference,
            lower, upper, statistic, pvalue, pvalue_adjusted, parents.
        """
        import pandas as pd

        columns = list(_COLUMNS)
        return pd.DataFrame([s.to_dict() for s in self.slices], columns=columns)

    def to_dict(self) -> dict:
        """Plain Python values (JSON-ready).

        Returns
        -------
        dict
            The search's figures, and ``slices``: one dict per significant slice.
        """
        out = {k: plain(getattr(self, k)) for k in self.__dataclass_fields__ if k != "slices"}
        out["slices"] = [s.to_dict() for s in self.slices]
        return out

    def __repr__(self) -> str:
        control = {
            "maxT": "family-wise error by max-T over joint permutations",
            "by": "false discovery rate (Benjamini-Yekutieli)",
            "bonferroni": "family-wise error (Bonferroni)",
        }[self.adjust]
        head = (
            f"SliceSearchResult(metric={self.metric!r}, {self.n_rows} rows, depth <= "
            f"{self.max_depth}, {self.n_slices} slices tested ({self.n_distinct} distinct, "
            f"effective {self.effective_n_slices:.0f}), {control} at alpha={self.alpha:g}; "
            f"slice vs its complement, all rows: {self.population_value:.4f})"
        )
        if not self.slices:
            return head + "\n  no slice differs significantly"
        rows = [
            [s.description, s.size, s.value, s.difference, _interval(s), s.pvalue_adjusted]
            for s in self.slices[:20]
        ]
        headers = ["slice", "size", self.metric, "difference", "simultaneous CI", "p (adjusted)"]
        more = f"\n  ... {len(self.slices) - 20} more" if len(self.slices) > 20 else ""
        return head + "\n" + format_table(headers, rows) + more


def _interval(found: FoundSlice) -> str:
    lower, upper = found.confidence_interval
    return f"[{format_value(lower)}, {format_value(upper)}]"


_COLUMNS = (
    "slice", "depth", "predicates", "size", "n", "value", "complement_value", "difference",
    "lower", "upper", "statistic", "pvalue", "pvalue_adjusted", "parents",
)  # fmt: skip
