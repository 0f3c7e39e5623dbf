"""The result of a permutation test of group differences (confusion-matrix metrics,
callables and row metrics alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport
from fastfair._format import format_interval, format_pvalue, format_table
from fastfair._sequential import ContinuableResult, Sequential, monte_carlo_notes


class PairwiseResultMixin(ContinuableResult, ResultExport):
    """The parts of a repr that every result of a test over pairs of groups shares
    (PermutationTestResult and its GenericTestResult, AUCTestResult): p-values at the
    precision of their method, the adjusted column, the Monte-Carlo notes."""

    def _p(self, pvalue, c: int = 0) -> str:
        """A p-value at the precision of this result's method (format_pvalue); sequential
        tests drew a number of permutations per comparison c, others one number for all."""
        n = self.n_permutations
        if n is not None:
            n = np.atleast_1d(n)
            n = int(n[c] if n.size > 1 else n[0])
        return format_pvalue(pvalue, self.method, n)

    def plot(self, ax: Any = None, *, comparison: int = 0) -> Any:
        """The null distribution of one comparison's statistic, the observed value marked
        (needs matplotlib and ``return_null=True``).

        Monte Carlo: a histogram of the permuted statistics; exact: the probabilities of
        the support. For a two-sided test both ±observed are marked.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        comparison : int, default 0
            Position of the comparison in `comparisons`.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> y, g = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
        >>> res = fastfair.permutation_test(y, rng.integers(0, 2, 300), g, return_null=True)
        >>> res.plot().get_ylabel()
        'probability'
        """
        from fastfair._plotting import plot_null

        null = self.null_distribution
        probabilities = getattr(self, "null_probabilities", None)
        if null is not None and probabilities is None and np.ndim(null) == 2:
            null = null[:, comparison]
        observed = float(np.atleast_1d(self.statistic)[comparison])
        finite = null is not None and np.isfinite(np.asarray(null, dtype=float)).any()
        two_sided = self.alternative == "two-sided" and finite and np.nanmin(null) < 0
        return plot_null(
            ax, null, observed, what=f"{type(self).__name__}.plot",
            probabilities=probabilities, two_sided=bool(two_sided),
            xlabel="statistic" if not self.studentize else "studentized statistic",
        )  # fmt: skip

    def _permutations_shown(self) -> str:
        """The head's ", n_permutations=B" of a fixed-size Monte-Carlo test."""
        if self.n_permutations is None or self.sequential is not None:
            return ""
        return f", n_permutations={self.n_permutations}"

    def _pvalue_headers(self) -> list[str]:
        adjusted = [] if self.pvalue_adjusted is None else [f"adjusted ({self.adjust})"]
        return ["pvalue", *adjusted]

    def _pvalue_cells(self, c: int) -> list[str]:
        cells = [self._p(np.atleast_1d(self.pvalue)[c], c)]
        if self.pvalue_adjusted is not None:
            cells.append(self._p(self.pvalue_adjusted[c], c))
        return cells

    def _notes(self) -> list[str]:
        return monte_carlo_notes(
            self.pvalue_interval, self.sequential, self.decision, self.n_permutations
        )


@renamed_attributes(difference_interval="confidence_interval")
@dataclass(frozen=True, repr=False)
class PermutationTestResult(PairwiseResultMixin):
    """Result of :func:`permutation_test`.

    With two groups `statistic`, `pvalue` and `difference` are floats; with more groups they
    are arrays with one entry per comparison in `comparisons`.

    Attributes
    ----------
    statistic : float or ndarray
        Observed test statistic (studentized difference; T_tpr^2 + T_fpr^2 for equalized odds).
    pvalue : float or ndarray
        p-value of each comparison (not adjusted for multiplicity).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values (`adjust`), when there is more than one comparison.
    difference : float or ndarray
        Metric of the first group minus metric of the second (shape (..., 2) for
        equalized odds: TPR and FPR differences).
    groups, group_values, group_denominators : ndarray
        Group labels, each group's metric value(s), and the (weighted) size of its denominator.
    comparisons : list of tuple
        (group, other group) for each comparison; the difference is group minus other.
    n_permutations : int, ndarray or None
        Permutations drawn (per comparison, when sequential with several comparisons).
    pvalue_interval : tuple of ndarray or None
        Interval of a Monte-Carlo p-value (where the p-value of infinitely many permutations
        lies): Wilson 95% for a fixed number of permutations; sequential: Robbins'
        confidence sequence at level 1 - epsilon (1 - epsilon / C over C comparisons with an
        adjustment), valid at the data-dependent stopping time.
    confidence_interval : tuple or None
        (lower, upper) confidence interval of each difference at `confidence_level`
        (pointwise, one per comparison and, for equalized odds, per component; same shape as
        `difference`). Confusion-matrix metrics: the Miettinen-Nurminen score interval, the
        differences a two-sided score test does not reject (Kish effective sizes when
        weighted); callable and row metrics: difference +- z * `standard_error`.
    confidence_level : float
        Level of `confidence_interval`.
    decision : str, ndarray or None
        Sequential Monte Carlo: "reject", "retain" or "undecided" at `sequential.alpha`
        (under `adjust` with several comparisons; exact p-values take part as they are).
        None otherwise.
    sequential : Sequential or None
        The options of a sequential test.
    null_distribution, null_probabilities : ndarray or None
        With ``return_null=True``: permuted statistics (Monte Carlo, shape (B,) or (B, C);
        sequential with several comparisons: NaN-padded columns), or the support and
        probabilities of the exact distribution (two groups).
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    difference: float | np.ndarray
    metric: str
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    scheme: str
    studentize: bool
    variance: str
    method: str
    alternative: str
    mid_p: bool = False
    n_permutations: int | None = None
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    pvalue_interval: tuple | None = None
    weighted: bool = False
    confidence_interval: tuple | None = None
    confidence_level: float = 0.95
    null_distribution: np.ndarray | None = field(default=None)
    null_probabilities: np.ndarray | None = field(default=None)
    decision: str | np.ndarray | None = None
    sequential: Sequential | None = None

    def __repr__(self) -> str:
        stat = "studentized" if self.studentize else "raw difference"
        head = (
            f"PermutationTestResult(metric={self.metric!r}, scheme={self.scheme!r}, "
            f"method={self.method!r}, statistic={stat}"
            + (f", variance={self.variance!r}" if self.studentize else "")
            + f", alternative={self.alternative!r}"
            + self._permutations_shown()
            + ")"
        )
        values = self.group_values.reshape(len(self.groups), -1)
        dens = self.group_denominators.reshape(len(self.groups), -1)
        parts = ["tpr", "fpr"] if values.shape[1] == 2 else [self.metric]
        den_names = [f"den({p})" for p in parts] if len(parts) > 1 else ["denominator"]
        if not self.weighted:
            dens = dens.astype(np.int64)
        group_rows = [(str(g), *values[k], *dens[k]) for k, g in enumerate(self.groups)]
        group_table = format_table(["group", *parts, *den_names], group_rows)
        stat_v = np.atleast_1d(self.statistic)
        n_c = len(self.comparisons)
        diff_v = np.reshape(self.difference, (n_c, len(parts)))
        prefix = [f"{p} " for p in parts] if len(parts) > 1 else [""]
        level = f"{100 * self.confidence_level:g}% CI"
        headers = ["comparison"]
        for pre in prefix:
            headers += [f"{pre}difference"]
            if self.confidence_interval is not None:
                headers += [f"{pre}{level}"]
        headers += ["statistic", *self._pvalue_headers()]
        rows = []
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}"]
            for j in range(len(parts)):
                row.append(diff_v[c, j])
                if self.confidence_interval is not None:
                    row.append(format_interval(self.confidence_interval, c, j, n_c, len(parts)))
            rows.append([*row, stat_v[c], *self._pvalue_cells(c)])
        return "\n".join([head, group_table, format_table(headers, rows), *self._notes()])
