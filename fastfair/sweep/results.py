"""Result of a threshold sweep, its table, plot and HTML section."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_table, format_value
from fastfair._pvalues import orient_extremes

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

#: Result fields of shape (n_metrics, n_thresholds).
_PER_THRESHOLD = (
    "difference",
    "statistic",
    "standard_error",
    "pvalue",
    "critical_value",
    "pvalue_adjusted",
    "band",
)


@dataclass(frozen=True, repr=False)
class ThresholdSweepResult(ResultExport):
    """Result of :func:`threshold_sweep`.

    Arrays have shape (n_metrics, n_thresholds), in the order of `metrics` and `thresholds`.

    Attributes
    ----------
    thresholds : ndarray
        Ascending thresholds t; a row is predicted positive when score >= t.
    metrics : tuple of str
        Rates tested.
    comparison : tuple
        (group, reference): differences are group minus reference.
    group_values : ndarray of shape (n_metrics, n_thresholds, 2)
        Rate of the group and of the reference at each threshold.
    difference, statistic : ndarray
        Observed rate gap and its pooled studentized statistic.
    standard_error : ndarray
        Pooled standard error of the gap, :math:`\\sqrt{p(1-p)(1/n_A + 1/n_B)}`.
    pvalue : ndarray
        Per-threshold p-value, not adjusted for multiplicity (exact, or Monte Carlo).
    critical_value : ndarray
        Per-threshold critical value on the scale of the gap (the paper's 95th percentile of
        the permutation distribution for alpha = 0.05): the test at threshold t rejects when
        the gap exceeds it (two-sided: ``abs(difference) > critical_value``).
    pvalue_adjusted : ndarray
        Single-step max-T p-values over the thresholds of each metric (Westfall-Young).
    band : ndarray
        Simultaneous critical value on the scale of the gap: the gaps lie inside
        ``[-band, band]`` at every threshold at once with probability 1 - alpha when the
        groups' score distributions are equal within the rate's denominator.
    max_critical : ndarray of shape (n_metrics,)
        (1 - alpha) quantile of the largest studentized statistic over thresholds.
    alpha, alternative, method, n_permutations
        Options of the sweep.
    null_maxima : ndarray of shape (n_metrics, n_permutations)
        Largest oriented statistic over thresholds in each joint permutation.
    """

    thresholds: np.ndarray
    metrics: tuple
    comparison: tuple
    group_values: np.ndarray
    difference: np.ndarray
    statistic: np.ndarray
    standard_error: np.ndarray
    pvalue: np.ndarray
    critical_value: np.ndarray
    pvalue_adjusted: np.ndarray
    band: np.ndarray
    max_critical: np.ndarray
    alpha: float
    alternative: str
    method: str
    n_permutations: int
    null_maxima: np.ndarray

    @property
    def reject(self) -> np.ndarray:
        """Thresholds where the per-threshold test rejects at `alpha` (no adjustment)."""
        return self.pvalue <= self.alpha

    @property
    def reject_simultaneous(self) -> np.ndarray:
        """Thresholds where the max-T adjusted test rejects at `alpha` (family-wise)."""
        return self.pvalue_adjusted <= self.alpha

    def to_frame(self) -> pd.DataFrame:
        """One row per (metric, threshold) as a pandas DataFrame (needs pandas).

        Returns
        -------
        pandas.DataFrame
            Columns metric, threshold, each group's value, difference, standard_error,
            statistic, pvalue, critical_value, pvalue_adjusted and band.

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 500); s = rng.random(500); y = rng.random(500) < s
        >>> res = fastfair.threshold_sweep(y, s, g, thresholds=5, n_permutations=99,
        ...                                random_state=0)
        >>> frame = res.to_frame()
        >>> frame.shape, list(frame.columns[:4])
        ((10, 11), ['metric', 'threshold', 'value 0', 'value 1'])
        """
        import pandas as pd

        m, k = self.difference.shape
        a, b = (str(g) for g in self.comparison)
        return pd.DataFrame(
            {
                "metric": np.repeat(np.array(self.metrics, dtype=object), k),
                "threshold": np.tile(self.thresholds, m),
                f"value {a}": self.group_values[..., 0].ravel(),
                f"value {b}": self.group_values[..., 1].ravel(),
                "difference": self.difference.ravel(),
                "standard_error": self.standard_error.ravel(),
                "statistic": self.statistic.ravel(),
                "pvalue": self.pvalue.ravel(),
                "critical_value": self.critical_value.ravel(),
                "pvalue_adjusted": self.pvalue_adjusted.ravel(),
                "band": self.band.ravel(),
            }
        )

    def plot(
        self, ax: Axes | Sequence[Axes] | None = None, *, metric: str | None = None
    ) -> Axes | np.ndarray:
        """The paper's Figure 2: each metric's gap against its permutation critical values.

        One panel per metric: the gap (absolute for a two-sided test) at each threshold, the
        per-threshold critical value (the 1 - alpha percentile of the permutation
        distribution) and the simultaneous max-T band. The legend sits below each panel,
        outside the axes, so it never hides the curves. Needs matplotlib (``pip install
        "fastfair[plot]"``).

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, optional
            Where to draw: one Axes with `metric`, else one per metric (default: a new
            figure, one panel per metric).
        metric : str, optional
            Draw only this metric (one of `metrics`) and return its Axes.

        Returns
        -------
        matplotlib Axes (with `metric`) or ndarray of Axes (one per metric)

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 500); s = rng.random(500); y = rng.random(500) < s
        >>> res = fastfair.threshold_sweep(y, s, g, thresholds=5, n_permutations=99,
        ...                                random_state=0)
        >>> axes = res.plot()
        >>> [ax.get_title() for ax in axes]
        ['tpr', 'fpr']
        >>> res.plot(metric="fpr").get_title()
        'fpr'
        """
        from fastfair._plotting import pyplot

        plt = pyplot("ThresholdSweepResult.plot")
        names = list(self.metrics) if metric is None else [metric]
        if metric is not None and metric not in self.metrics:
            raise ValueError(f"metric must be one of {list(self.metrics)}, got {metric!r}")
        if ax is None:
            _, grid = plt.subplots(1, len(names), figsize=(4.5 * len(names), 4.6), squeeze=False)
            ax = grid[0]
        axes = np.atleast_1d(np.asarray(ax, dtype=object))
        if len(axes) != len(names):
            raise ValueError(f"ax must hold {len(names)} axes, got {len(axes)}")
        for one, name in zip(axes, names):
            self._plot_metric(one, self.metrics.index(name))
        return axes[0] if metric is not None else axes

    def _plot_metric(self, ax, m: int) -> None:
        """Metric m's panel of :meth:`plot`."""
        name = self.metrics[m]
        gap = np.abs(self.difference) if self.alternative == "two-sided" else self.difference
        sign = -1.0 if self.alternative == "less" else 1.0
        level = f"{100 * (1 - self.alpha):g}"
        a, b = (str(g) for g in self.comparison)
        ax.plot(self.thresholds, gap[m], color="C0", label=f"{name} gap ({a} - {b})")
        ax.plot(
            self.thresholds,
            sign * self.critical_value[m],
            color="C1",
            label=f"{level}th percentile of the permutations",
        )
        ax.plot(
            self.thresholds,
            sign * self.band[m],
            color="C1",
            linestyle="--",
            label=f"simultaneous {level}% band (max-T)",
        )
        flagged = self.reject_simultaneous[m]
        if flagged.any():
            ax.plot(self.thresholds[flagged], gap[m][flagged], "k.", label="adjusted p <= alpha")
        ax.set_xlabel("threshold (score >= t is positive)")
        ax.set_ylabel(f"|{name} difference|" if self.alternative == "two-sided" else name)
        ax.set_title(name)
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)

    def largest_gap(self, m: int) -> int:
        """Index of the threshold with metric m's largest gap: the largest absolute
        difference (two-sided), else the largest in the alternative's direction.

        Parameters
        ----------
        m : int
            Position of the metric in `metrics`.

        Returns
        -------
        int
            Index into `thresholds` (the first one on ties).

        Examples
        --------
        >>> import numpy as np, fastfair
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 500); s = rng.random(500); y = rng.random(500) < s
        >>> res = fastfair.threshold_sweep(y, s, g, thresholds=5, n_permutations=99,
        ...                                random_state=0)
        >>> k = res.largest_gap(0)
        >>> bool(abs(res.difference[0, k]) == abs(res.difference[0]).max())
        True
        """
        oriented = orient_extremes(self.difference[m], self.difference[m], self.alternative)[0]
        return int(np.argmax(oriented))

    def __repr__(self) -> str:
        a, b = self.comparison
        t = self.thresholds
        head = (
            f"ThresholdSweepResult({a!r} - {b!r}, {len(t)} thresholds in "
            f"[{format_value(t[0])}, {format_value(t[-1])}], score >= t is positive;\n"
            f"  method={self.method!r}, n_permutations={self.n_permutations}, "
            f"alpha={self.alpha:g}, alternative={self.alternative!r})"
        )
        rows = []
        for m, name in enumerate(self.metrics):
            oriented = orient_extremes(self.statistic[m], self.statistic[m], self.alternative)[0]
            k = int(np.argmax(oriented))
            rows.append(
                [
                    name,
                    t[k],
                    self.difference[m, k],
                    self.statistic[m, k],
                    self.pvalue[m, k],
                    self.pvalue_adjusted[m, k],
                    int(self.reject[m].sum()),
                    int(self.reject_simultaneous[m].sum()),
                    self.max_critical[m],
                ]
            )
        headers = ["metric", "at t", "gap", "T", "pvalue", "max-T p", "rejected", "max-T rej."]
        headers.append("max-T crit.")
        note = "  at t: threshold of the most extreme T; rejected: count of p <= alpha"
        note += " (raw, max-T)"
        return "\n".join([head, format_table(headers, rows), note])


def html_section(result: ThresholdSweepResult, *, plot: bool = True) -> str:
    """HTML fragment of a sweep for the audit report: the Figure 2 plot and a summary.

    The table gives, per metric, the threshold of the largest gap
    (:meth:`ThresholdSweepResult.largest_gap`) with that gap and its p-values. The plot is
    one embedded PNG per metric (they wrap on a narrow screen) when `plot` and matplotlib
    is installed; the table always appears.

    Parameters
    ----------
    result : ThresholdSweepResult
        A sweep from :func:`threshold_sweep`.
    plot : bool, default True
        Embed the plots (skipped without matplotlib).

    Returns
    -------
    str
        The HTML fragment: a heading, the explanation, the table and the plots.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> from fastfair.sweep import html_section
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 500); s = rng.random(500); y = rng.random(500) < s
    >>> res = fastfair.threshold_sweep(y, s, g, thresholds=5, n_permutations=99, random_state=0)
    >>> html_section(res, plot=False).startswith("<h2>Fairness across thresholds</h2>")
    True
    """
    a, b = (html.escape(str(g)) for g in result.comparison)
    parts = [
        "<h2>Fairness across thresholds</h2>",
        f"<p>Rate gaps {a} &minus; {b} at {len(result.thresholds)} thresholds (score &ge; t "
        f"is positive), with the {100 * (1 - result.alpha):g}th percentile of the "
        "permutation distribution at each threshold and the simultaneous max-T band over "
        f"thresholds ({result.n_permutations} joint permutations).</p>",
        "<div class='scroll'><table><tr><th>metric</th><th>largest gap</th>"
        "<th>at threshold</th><th>p-value</th><th>max-T adjusted</th>"
        "<th>thresholds rejected</th><th>rejected (max-T)</th></tr>",
    ]
    for m, name in enumerate(result.metrics):
        k = result.largest_gap(m)
        cells = [
            format_value(result.difference[m, k]),
            format_value(result.thresholds[k]),
            format_value(result.pvalue[m, k]),
            format_value(result.pvalue_adjusted[m, k]),
            str(int(result.reject[m].sum())),
            str(int(result.reject_simultaneous[m].sum())),
        ]
        parts.append(
            f"<tr><td>{html.escape(name)}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        )
    parts.append("</table></div>")
    if not plot:
        return "\n".join(parts)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        parts.append("<p><em>The plot needs matplotlib.</em></p>")
        return "\n".join(parts)
    images = []
    for name in result.metrics:
        ax = result.plot(metric=name)
        ax.figure.set_size_inches(4.4, 4.4)
        ax.figure.tight_layout()
        buf = io.BytesIO()
        ax.figure.savefig(buf, format="png", dpi=90)
        plt.close(ax.figure)
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        images.append(
            f"<img alt='{html.escape(name)} gaps across thresholds' "
            f"src='data:image/png;base64,{data}'>"
        )
    parts.append(f"<div class='plots'>{''.join(images)}</div>")
    return "\n".join(parts)
