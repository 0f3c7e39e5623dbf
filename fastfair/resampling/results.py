"""Result classes (dataclasses with a readable repr), warnings and errors (resampling tests of
any metric, means and correlations)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_interval, format_pvalue, format_table, format_value
from fastfair._permutation_result import PermutationTestResult
from fastfair._sequential import ContinuableResult, Sequential, monte_carlo_notes


class MetricError(ValueError):
    """A user metric raised, or returned something other than a finite number."""


@dataclass(frozen=True, repr=False)
class GenericTestResult(PermutationTestResult):
    """Result of a permutation test of a callable or row-level metric.

    The fields of :class:`~fastfair.PermutationTestResult`, where `variance` says how the
    statistic was studentized: ``"welch"`` (standard error of a difference of means),
    ``"bootstrap"`` (Algorithm 1: a bootstrap variance inside every permutation),
    ``"bootstrap-fast"`` (Sec. 5: observed difference over its bootstrap SD, permuted
    differences over the SD of the permutation distribution) or ``"none"``;
    `group_denominators` holds group sizes (sums of weights when weighted).

    Attributes
    ----------
    n_bootstrap : int or None
        Bootstrap resamples per variance estimate (bootstrap studentization).
    standard_error : float or ndarray or None
        Standard error that studentized each observed difference.
    """

    n_bootstrap: int | None = None
    standard_error: float | np.ndarray | None = None

    def __repr__(self) -> str:
        stat = f"studentized ({self.variance})" if self.studentize else "raw difference"
        head = (
            f"GenericTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"statistic={stat}, alternative={self.alternative!r}"
            + self._permutations_shown()
            + (f", n_bootstrap={self.n_bootstrap}" if self.n_bootstrap else "")
            + ")"
        )
        sizes = self.group_denominators
        if not self.weighted:
            sizes = sizes.astype(np.int64)
        group_rows = [(str(g), self.group_values[k], sizes[k]) for k, g in enumerate(self.groups)]
        size_name = "sum of weights" if self.weighted else "n"
        lines = [head, format_table(["group", self.metric, size_name], group_rows)]
        diff, stat_v = (np.atleast_1d(x) for x in (self.difference, self.statistic))
        ci = self.confidence_interval is not None
        headers = ["comparison", "difference"]
        headers += [f"{100 * self.confidence_level:g}% CI"] if ci else []
        headers += ["statistic", *self._pvalue_headers()]
        rows = []
        n_c = len(self.comparisons)
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}", diff[c]]
            row += [format_interval(self.confidence_interval, c, 0, n_c)] if ci else []
            rows.append([*row, stat_v[c], *self._pvalue_cells(c)])
        lines.append(format_table(headers, rows))
        return "\n".join([*lines, *self._notes()])


@dataclass(frozen=True, repr=False)
class CorrelationTestResult(ContinuableResult, ResultExport):
    """Result of :func:`correlation_test`.

    Attributes
    ----------
    statistic : float
        Studentized :math:`S = \\sqrt{n}\\,r/\\hat\\tau` or, unstudentized, Pearson's r.
    pvalue : float
        p-value for the null of zero correlation.
    r : float
        Pearson's correlation coefficient.
    tau : float
        :math:`\\hat\\tau`, the asymptotic standard deviation of :math:`\\sqrt{n}\\,r`
        without assuming independence (1 under independence with finite fourth moments).
    studentize, method, alternative, n, n_permutations
        The options used, the sample size and the permutations drawn.
    pvalue_interval : tuple or None
        Interval of a Monte-Carlo p-value: Wilson 95% for a fixed number of permutations,
        Robbins' confidence sequence at level 1 - epsilon for a sequential test.
    null_distribution : ndarray or None
        Permuted statistics, with ``return_null=True``.
    decision : str or None
        Sequential test: "reject", "retain" or "undecided" at `sequential.alpha`.
    sequential : Sequential or None
        The options of a sequential test.
    """

    statistic: float
    pvalue: float
    r: float
    tau: float
    studentize: bool
    method: str
    alternative: str
    n: int
    n_permutations: int | None = None
    pvalue_interval: tuple | None = None
    null_distribution: np.ndarray | None = field(default=None)
    decision: str | None = None
    sequential: Sequential | None = None

    def plot(self, ax: Any = None) -> Any:
        """The permutation distribution of the statistic, the observed value marked (needs
        matplotlib and ``return_null=True``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=200); e = x + rng.normal(size=200)
        >>> res = fastfair.correlation_test(x, e, n_permutations=199, return_null=True)
        >>> res.plot().get_ylabel()
        'density'
        """
        from fastfair._plotting import plot_null

        return plot_null(
            ax, self.null_distribution, float(self.statistic), what="CorrelationTestResult.plot",
            two_sided=self.alternative == "two-sided",
            xlabel="studentized statistic" if self.studentize else "Pearson r",
        )  # fmt: skip

    def __repr__(self) -> str:
        stat = "studentized" if self.studentize else "pearson r"
        head = (
            f"CorrelationTestResult(statistic={stat}, method={self.method!r}, "
            f"alternative={self.alternative!r}, n={self.n}"
            + (
                f", n_permutations={self.n_permutations}"
                if self.n_permutations is not None and self.sequential is None
                else ""
            )
            + ")"
        )
        table = format_table(
            ["r", "tau", "statistic", "pvalue"],
            [
                [
                    format_value(self.r),
                    self.tau,
                    self.statistic,
                    format_pvalue(self.pvalue, self.method, self.n_permutations),
                ]
            ],
        )
        lines = [head, table]
        lines += monte_carlo_notes(
            self.pvalue_interval, self.sequential, self.decision, self.n_permutations
        )
        return "\n".join(lines)


@dataclass(frozen=True, repr=False)
class BootstrapTestResult(ResultExport):
    """Result of :func:`basic_bootstrap_test`.

    Attributes
    ----------
    difference : float or ndarray
        Observed metric of the first group minus the second, per comparison.
    pvalue : float or ndarray
        Basic-bootstrap p-value (the inversion of the basic confidence interval).
    confidence_interval : tuple
        Basic bootstrap interval :math:`(2T - q_{1-a/2}, 2T - q_{a/2})` of the difference.
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values with more than two groups.
    null_distribution : ndarray or None
        :math:`T^* - T` per resample (two groups, ``return_null=True``).
    """

    difference: float | np.ndarray
    pvalue: float | np.ndarray
    confidence_interval: tuple
    metric: str
    groups: np.ndarray
    group_values: np.ndarray
    comparisons: list
    alternative: str
    confidence_level: float
    n_bootstrap: int
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    null_distribution: np.ndarray | None = field(default=None)

    def plot(self, ax: Any = None) -> Any:
        """The bootstrap distribution of :math:`T^* - T` with the observed difference
        marked (needs matplotlib; two groups, ``return_null=True``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

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
        >>> res = fastfair.basic_bootstrap_test(y, rng.integers(0, 2, 300), g,
        ...                                     n_bootstrap=199, return_null=True)
        >>> res.plot().get_xlabel()
        'T* - T (bootstrap)'
        """
        from fastfair._plotting import plot_null

        return plot_null(
            ax, self.null_distribution, float(np.atleast_1d(self.difference)[0]),
            what="BootstrapTestResult.plot", two_sided=self.alternative == "two-sided",
            xlabel="T* - T (bootstrap)",
        )  # fmt: skip

    def __repr__(self) -> str:
        head = (
            f"BootstrapTestResult(metric={self.metric!r}, method='basic bootstrap', "
            f"alternative={self.alternative!r}, n_bootstrap={self.n_bootstrap})"
        )
        groups = format_table(
            ["group", self.metric],
            [(str(g), v) for g, v in zip(self.groups, self.group_values)],
        )
        diff, p_v = np.atleast_1d(self.difference), np.atleast_1d(self.pvalue)
        lo, hi = (np.atleast_1d(x) for x in self.confidence_interval)
        level = f"{100 * self.confidence_level:g}% interval"
        headers = ["comparison", "difference", f"{level} low", "high", "pvalue"]
        if self.pvalue_adjusted is not None:
            headers.append(f"adjusted ({self.adjust})")
        rows = []
        for c, (a, b) in enumerate(self.comparisons):
            row = [f"{a} - {b}", diff[c], lo[c], hi[c], format_pvalue(p_v[c])]
            if self.pvalue_adjusted is not None:
                row.append(format_pvalue(self.pvalue_adjusted[c]))
            rows.append(row)
        return "\n".join([head, groups, format_table(headers, rows)])
