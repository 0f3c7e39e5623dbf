"""Result classes (dataclasses with a readable repr), warnings and errors (predictive parity
under dependent data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport
from fastfair._format import format_pvalue, format_table, format_value, pvalue_field
from fastfair._sequential import ContinuableResult
from fastfair._validation import check_level

if TYPE_CHECKING:
    import pandas


class SparseGridWarning(UserWarning):
    """Some grid points have too few observations or clusters nearby for inference."""


@renamed_attributes(std_error="standard_error")
@dataclass(frozen=True, repr=False)
class CalibrationCurve(ResultExport):
    """Result of :func:`calibration_curve`: per-group estimates of E[Y | S = s, G = g].

    Arrays indexed [group, grid point] have shape (n_groups, n_grid).

    Attributes
    ----------
    grid : ndarray
        Scores s at which the curves are estimated.
    groups : ndarray
        Group labels.
    estimate, standard_error, lower, upper : ndarray
        Nadaraya-Watson estimate, cluster-robust standard error and pointwise confidence
        band at `confidence_level`. NaN where a group has no observation within the
        kernel's reach (estimate) or fewer than `min_effective_clusters` effective clusters
        (standard error and band); `notes` says which and why.
    n_effective : ndarray
        Effective number of clusters at each point, :math:`(\\sum_m v_m)^2 / \\sum_m v_m^2`
        (Kish): how many users the estimate really rests on.
    max_share : ndarray
        Largest user's share of the kernel weight, :math:`\\max_m v_m / \\sum_m v_m`
        (its leverage): near 1, the estimate is essentially that user's.
    df : ndarray
        Satterthwaite degrees of freedom of the variance (``small_sample="cr2"``; inf with
        ``"none"``); the bands use t quantiles with these df. NaN where SE is NaN.
    small_sample : str
        Correction used ("cr2" or "none").
    n_clusters_near : ndarray
        Clusters with a positive kernel weight at each point.
    bandwidth, bandwidth_method, kernel, weighting, confidence_level
        Settings used (``bandwidth_method``: "fixed", "rule_of_thumb" or "cv").
    n_observations, n_clusters : ndarray
        Rows and clusters (users) per group; without `cluster` every row is a cluster.
    n_out_of_reach : ndarray
        Rows per group farther than the kernel's reach from every grid point (they do not
        enter any estimate).
    notes : list of str
        Why some points are NaN.
    """

    grid: np.ndarray
    groups: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    n_effective: np.ndarray
    n_clusters_near: np.ndarray
    bandwidth: float
    bandwidth_method: str
    kernel: str
    weighting: str
    confidence_level: float
    n_observations: np.ndarray
    n_clusters: np.ndarray
    n_out_of_reach: np.ndarray
    clustered: bool
    df: np.ndarray = None
    max_share: np.ndarray = None
    small_sample: str = "cr2"
    notes: list = field(default_factory=list)

    def to_frame(self) -> pandas.DataFrame:
        """The curves as a long-format table (needs pandas).

        Returns
        -------
        pandas.DataFrame
            One row per (group, grid score): columns ``group``, ``score``, ``estimate``,
            ``standard_error``, ``lower``, ``upper`` (the pointwise band), ``n_effective``,
            ``max_share`` and ``df``.
        """
        pd = _import_pandas()
        K, G = self.estimate.shape
        return pd.DataFrame(
            {
                "group": np.repeat(self.groups, G),
                "score": np.tile(self.grid, K),
                "estimate": self.estimate.ravel(),
                "standard_error": self.standard_error.ravel(),
                "lower": self.lower.ravel(),
                "upper": self.upper.ravel(),
                "n_effective": self.n_effective.ravel(),
                "max_share": self.max_share.ravel(),
                "df": self.df.ravel(),
            }
        )

    def plot(self, ax: Any = None, *, diagonal: bool = True, band: bool = False) -> Any:
        """Plot each group's curve (needs matplotlib).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; None: a new figure.
        diagonal : bool, default True
            Draw the diagonal ``E[Y | score] = score`` of perfect calibration.
        band : bool, default False
            Also shade each group's pointwise band (`lower`, `upper`), labelled pointwise.
            Off by default: a smoothed curve's pointwise 95% band covered the true curve as
            little as 0.22 of the time for a small group or rare outcomes
            (validation/results/parity_band_coverage.txt), and read along the curve it is
            not a simultaneous band.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.
        """
        if ax is None:
            plt = _import_pyplot()
            _, ax = plt.subplots()
        for k, g in enumerate(self.groups):
            (line,) = ax.plot(self.grid, self.estimate[k], label=str(g))
            if band:
                ax.fill_between(
                    self.grid,
                    self.lower[k],
                    self.upper[k],
                    alpha=0.25,
                    color=line.get_color(),
                    linewidth=0,
                    label=f"{g}: pointwise {self.confidence_level:.0%} band",
                )
        if diagonal:
            lo, hi = float(self.grid[0]), float(self.grid[-1])
            ax.plot([lo, hi], [lo, hi], color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("score")
        ax.set_ylabel("E[Y | score, group]")
        ax.legend(title="group")
        return ax

    def _header(self) -> str:
        per = ", ".join(
            f"{g}: {n} rows / {c} {'users' if self.clustered else 'rows'}"
            for g, n, c in zip(self.groups, self.n_observations, self.n_clusters)
        )
        return (
            f"weighting={self.weighting!r}, kernel={self.kernel!r}, "
            f"bandwidth={format_value(self.bandwidth)} ({self.bandwidth_method}), "
            f"{len(self.grid)} grid points; {per}"
        )

    def __repr__(self) -> str:
        level = f"{100 * self.confidence_level:g}%"
        headers = ["score"]
        for g in self.groups:
            headers += [f"{g}", f"{level} band"]
        rows = []
        for j in _shown_rows(len(self.grid)):
            if j is None:
                rows.append(["..."] + [""] * (len(headers) - 1))
                continue
            row = [format_value(self.grid[j])]
            for k in range(len(self.groups)):
                row += [self.estimate[k, j], _band(self.lower[k, j], self.upper[k, j])]
            rows.append(row)
        lines = [f"CalibrationCurve({self._header()})", format_table(headers, rows)]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _band(lo, hi) -> str:
    if np.isnan(lo):
        return "-"
    return f"[{format_value(lo)}, {format_value(hi)}]"


def _shown_rows(n: int, limit: int = 16):
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return [*range(half), None, *range(n - half, n)]


def _import_pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_frame() needs pandas: pip install pandas") from exc
    return pd


def _import_pyplot():
    from fastfair._plotting import pyplot

    return pyplot("CalibrationCurve.plot")


@renamed_attributes(difference_se="difference_standard_error")
@dataclass(frozen=True, repr=False)
class PredictiveParityResult(ContinuableResult, ResultExport):
    """Result of :func:`predictive_parity_test`.

    Attributes
    ----------
    statistic : float
        Largest per-point statistic over the tested grid points: max |z| (two groups) or
        max Wald chi-square (more groups).
    pvalue : float
        p-value of the simultaneous test of predictive parity over the whole grid: the
        multiplier bootstrap over clusters when ``n_bootstrap > 0``, else the smallest
        adjusted per-point p-value (`adjust`).
    method : str
        "multiplier_bootstrap" or the adjustment behind `pvalue`.
    curve : CalibrationCurve
        Per-group estimates, standard errors and pointwise bands.
    grid : ndarray
        Grid scores (same as ``curve.grid``).
    difference, difference_standard_error : ndarray or None
        Two groups: first group minus second (sorted labels) and its standard error.
    grid_statistic : ndarray
        z (two groups) or Wald chi-square with K-1 df at each grid point (NaN where a
        group lacks a standard error).
    grid_pvalue, grid_pvalue_adjusted : ndarray
        Two-sided pointwise p-values and their adjustment over the tested points.
    adjust : str
        "holm", "bonferroni", "bh" (Benjamini-Hochberg: false discovery rate), "maxT"
        (single-step max-T from the multiplier bootstrap) or "none".
    critical_value : float or None
        Two groups with bootstrap: the `confidence_level` quantile of max |z*| (normal
        scale).
    n_bootstrap : int
    tested : ndarray of bool
        Grid points entering the tests.
    grid_df : ndarray
        Degrees of freedom of each point's t (two groups: Welch-Satterthwaite) or F
        reference; inf with ``small_sample="none"`` (normal / chi-square).
    critical_values : ndarray or None
        Two groups with bootstrap: per point, the t quantile (df `grid_df`) at the level of
        `critical_value`, so difference ± critical_values × difference_standard_error is a
        simultaneous band (all equal to `critical_value` with ``small_sample="none"``).
    small_sample : str
        "cr2" or "none" (see :func:`predictive_parity_test`).
    variance : str
        The tests' variance: "null" (scores centred at the pooled curve, normal reference)
        or "separate" (each group's own residuals, `small_sample`'s reference).
    """

    statistic: float
    pvalue: float
    method: str
    curve: CalibrationCurve
    grid: np.ndarray
    groups: np.ndarray
    difference: np.ndarray | None
    difference_standard_error: np.ndarray | None
    grid_statistic: np.ndarray
    grid_pvalue: np.ndarray
    grid_pvalue_adjusted: np.ndarray
    adjust: str
    critical_value: float | None
    n_bootstrap: int
    tested: np.ndarray
    statistic_name: str = "z"
    null_distribution: np.ndarray | None = field(default=None)
    grid_df: np.ndarray | None = None
    critical_values: np.ndarray | None = None
    small_sample: str = "cr2"
    variance: str = "null"

    @property
    def table(self) -> dict:
        """Per-grid table as a dict of arrays (columns of :meth:`to_frame`)."""
        out = {"score": self.grid}
        for k, g in enumerate(self.groups):
            out[f"estimate_{g}"] = self.curve.estimate[k]
            out[f"standard_error_{g}"] = self.curve.standard_error[k]
        if self.difference is not None:
            out["difference"] = self.difference
            out["difference_standard_error"] = self.difference_standard_error
        out[self.statistic_name] = self.grid_statistic
        out["df"] = self.grid_df
        out["pvalue"] = self.grid_pvalue
        out[f"pvalue_{self.adjust}"] = self.grid_pvalue_adjusted
        return out

    def to_frame(self) -> pandas.DataFrame:
        """The per-grid table (:attr:`table`) as a DataFrame (needs pandas).

        Returns
        -------
        pandas.DataFrame
            One row per grid score: ``score``, ``estimate_<group>`` and
            ``standard_error_<group>`` per group, ``difference`` and
            ``difference_standard_error`` (two groups), the statistic, ``df``, ``pvalue`` and
            the adjusted p-value ``pvalue_<adjust>``.
        """
        return _import_pandas().DataFrame(self.table)

    def plot(self, ax: Any = None, *, alpha: float = 0.05, band: bool = False) -> Any:
        """Plot the curves and mark the grid scores where the groups differ (needs
        matplotlib).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; None: a new figure.
        alpha : float, default 0.05
            Grid scores with an adjusted p-value below `alpha` are marked with a star.
        band : bool, default False
            Also shade the pointwise bands (see :meth:`CalibrationCurve.plot`: off by default,
            since they under-cover for small groups and rare outcomes).

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.
        """
        alpha = check_level(alpha, "alpha")
        ax = self.curve.plot(ax, band=band)
        flagged = np.flatnonzero(self.grid_pvalue_adjusted < alpha)
        if flagged.size:
            top = np.nanmax(self.curve.estimate[:, flagged], axis=0)
            ax.plot(self.grid[flagged], top, "k*", label=f"adjusted p < {alpha:g}")
            ax.legend(title="group")
        return ax

    def __repr__(self) -> str:
        head = (
            f"PredictiveParityResult(statistic=max {self.statistic_name} = "
            f"{format_value(self.statistic)}, "
            f"{pvalue_field(self.pvalue, self.method, self.n_bootstrap)}, "
            f"method={self.method!r}, adjust={self.adjust!r})\n  {self.curve._header()}"
        )
        table = self.table
        headers = list(table)
        rows = []
        for j in _shown_rows(len(self.grid)):
            if j is None:
                rows.append(["..."] + [""] * (len(headers) - 1))
            else:
                rows.append(
                    [format_value(table["score"][j])]
                    + [
                        format_pvalue(table[c][j]) if c.startswith("pvalue") else table[c][j]
                        for c in headers[1:]
                    ]
                )
        lines = [head, format_table(headers, rows)]
        if self.critical_value is not None:
            if self.small_sample == "none":
                width = format_value(self.critical_value)
            else:
                width = f"{format_value(np.nanmin(self.critical_values))} to " + format_value(
                    np.nanmax(self.critical_values)
                )
            lines.append(
                f"  simultaneous {100 * self.curve.confidence_level:g}% band for the "
                f"difference: ± {width} SE"
            )
        lines += [f"  note: {n}" for n in self.curve.notes]
        return "\n".join(lines)


@renamed_attributes(std_error="standard_error", difference_se="difference_standard_error")
@dataclass(frozen=True, repr=False)
class MarginalOutcomeResult(ResultExport):
    """Result of :func:`marginal_outcome_test`.

    Attributes
    ----------
    threshold : float
    groups : ndarray
    estimate, standard_error, n_effective : ndarray
        Per group: marginal outcome E[Y | S = t, G = g] estimated from rows with S >= t,
        its cluster-robust standard error and effective number of clusters.
    statistic, pvalue : float
        z (two groups, first minus second) or Wald chi-square with K-1 df; two-sided.
    difference, difference_standard_error : float or None
        Two groups: first group minus second.
    confidence_interval : tuple or None
        Two groups: interval for the difference at `confidence_level`.
    bandwidth, bandwidth_method, kernel, weighting : settings used
    n_observations, n_clusters : ndarray
        Rows at or above the threshold and their clusters, per group.
    df : float
        Degrees of freedom of the t (two groups) or F reference; inf with
        ``small_sample="none"``.
    max_share : ndarray
        Per group: the largest user's share of the kernel weight at the threshold.
    small_sample : str
    """

    threshold: float
    groups: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    n_effective: np.ndarray
    statistic: float
    pvalue: float
    difference: float | None
    difference_standard_error: float | None
    confidence_interval: tuple | None
    confidence_level: float
    bandwidth: float
    bandwidth_method: str
    kernel: str
    weighting: str
    n_observations: np.ndarray
    n_clusters: np.ndarray
    statistic_name: str = "z"
    notes: list = field(default_factory=list)
    df: float = float("inf")
    max_share: np.ndarray | None = None
    small_sample: str = "cr2"

    def __repr__(self) -> str:
        head = (
            f"MarginalOutcomeResult(threshold={format_value(self.threshold)}, "
            f"{self.statistic_name}={format_value(self.statistic)}, "
            f"{pvalue_field(self.pvalue)}, "
            + (f"df={format_value(self.df)}, " if np.isfinite(self.df) else "")
            + f"weighting={self.weighting!r}, "
            f"bandwidth={format_value(self.bandwidth)} ({self.bandwidth_method}))"
        )
        rows = [
            (
                str(g),
                self.estimate[k],
                self.standard_error[k],
                self.n_effective[k],
                int(self.n_observations[k]),
                int(self.n_clusters[k]),
            )
            for k, g in enumerate(self.groups)
        ]
        lines = [
            head,
            format_table(
                ["group", "marginal outcome", "SE", "eff. clusters", "rows", "clusters"], rows
            ),
        ]
        if self.difference is not None:
            lo, hi = self.confidence_interval
            lines.append(
                f"  difference {format_value(self.difference)}, "
                f"{100 * self.confidence_level:g}% CI [{format_value(lo)}, {format_value(hi)}]"
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
