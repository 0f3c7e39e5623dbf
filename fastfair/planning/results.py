"""Result classes (dataclasses with a readable repr), warnings and errors (sample size and
power)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport, is_scalar, repeated_column
from fastfair._format import format_significant as _fmt  # short: used in every repr line

if TYPE_CHECKING:
    import pandas as pd


def _align(lines: list[str]) -> str:
    """Join summary lines, aligning the colons of the ``"  label : value"`` lines."""
    keyed = [ln.startswith("  ") and not ln.startswith("   ") and ": " in ln for ln in lines]
    width = max(
        (len(ln.split(": ", 1)[0].rstrip()) for ln, k in zip(lines, keyed, strict=True) if k),
        default=0,
    )
    out = []
    for ln, k in zip(lines, keyed, strict=True):
        if k:
            label, value = ln.split(": ", 1)
            ln = f"{label.rstrip():<{width}} : {value}"
        out.append(ln)
    return "\n".join(out)


def _alt_text(alternative: str, z: float, alpha_c: float) -> str:
    if alternative == "two-sided":
        return f"two-sided (paper's convention: z_(1-alpha/2) = {z:.4f} at alpha = {alpha_c:.4g})"
    return f"greater (one-sided: z_(1-alpha) = {z:.4f} at alpha = {alpha_c:.4g})"


def _size_lines(res: Any) -> list[str]:
    """The given design's lines: total n, n per group and the allocation if known."""
    lines = [
        f"  n               : {_fmt(res.n, 7)}",
        f"  n per group     : {_fmt(res.n_per_group, 6)}",
    ]
    if res.allocation is not None:
        lines.append(f"  allocation      : {_fmt(res.allocation)}")
    return lines


def _margin_line(res: Any) -> str:
    if res.delta is not None:
        return f"  tau, delta      : {_fmt(res.tau)}, {res.delta:g} (H1: |U| < delta)"
    return f"  tau, u_tol      : {_fmt(res.tau)}, {res.u_tol:g}"


@renamed_attributes(reference="reference_index")
@dataclass(frozen=True, repr=False)
class _PlanBase(ResultExport):
    metric: str | None
    sigma2: np.ndarray
    rates: dict[str, np.ndarray] | None
    u_tol: float
    alpha: float
    alternative: str
    reference_index: int
    alpha_per_comparison: float
    z_critical: float
    population_sizes: np.ndarray | None

    #: The fields that run along a curve (a plan for several sizes, margins or powers).
    _CURVE: ClassVar[tuple[str, ...]] = ("n", "tau", "power", "n_total_ceil", "achieved_power")

    def to_frame(self) -> pd.DataFrame:
        """The plan as a table. One size, margin and power: one row per group (its
        ``sigma2``, ``allocation``, ``n_per_group``, ...), the scalars repeated. A curve
        (several sizes, margins or powers): one row per point, with the fields that run along
        it (``n``, ``tau``, ``power``, ``n_total_ceil``, ``achieved_power``) and the
        scalars; the per-group fields are then in :meth:`to_dict`. Needs pandas.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import fastfair
        >>> rates = {"tpr": [0.5, 0.6], "prevalence": [0.3, 0.4]}
        >>> curve = fastfair.power("tpr", n=[100, 400, 1600], rates=rates, tau=0.1)
        >>> frame = curve.to_frame()
        >>> frame["n"].tolist(), frame["power"].round(3).tolist()
        ([100.0, 400.0, 1600.0], [0.086, 0.219, 0.659])
        """
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        curve = {k: values[k] for k in self._CURVE if np.ndim(values.get(k)) == 1}
        length = max((np.size(v) for v in curve.values()), default=0)
        if length < 2:
            return super().to_frame()
        import pandas as pd

        along = {k for k, v in curve.items() if np.size(v) == length}
        return pd.DataFrame(
            {
                k: repeated_column(v, length)
                for k, v in values.items()
                if k in along or is_scalar(v)
            }
        )

    def _common_lines(self, equivalence: bool = False) -> list[str]:
        k = self.sigma2.shape[-1]
        lines = [f"  metric          : {self.metric}"]
        if self.rates is not None:
            for key, val in self.rates.items():
                lines.append(f"  rates[{key!r}]".ljust(20) + f": {_fmt(val)}")
        lines.append(f"  sigma^2 (unit)  : {_fmt(self.sigma2)}")
        if equivalence:
            lines.append(
                f"  test            : TOST, two one-sided tests at z_(1-alpha) = "
                f"{self.z_critical:.4f} (alpha {self.alpha_per_comparison:.4g})"
            )
        else:
            lines.append(
                "  alternative     : "
                + _alt_text(self.alternative, self.z_critical, self.alpha_per_comparison)
            )
        if k > 2:
            lines.append(
                f"  comparisons     : {k - 1} against reference group {self.reference_index}, "
                f"Bonferroni alpha {self.alpha:g}/{k - 1}"
            )
        if self.population_sizes is not None:
            lines.append(f"  population N_g  : {_fmt(self.population_sizes)} (FPC 1 - n_g/N_g)")
        return lines


@dataclass(frozen=True, repr=False)
class PowerResult(_PlanBase):
    """Result of :func:`power`.

    ``power`` is the smallest power over the comparisons with the reference group (the only one
    for two groups); ``power_per_comparison`` has the last axis over the non-reference groups.
    """

    power: float | np.ndarray
    power_per_comparison: np.ndarray
    n: float | np.ndarray
    n_per_group: np.ndarray
    allocation: np.ndarray | None
    tau: float | np.ndarray
    delta: float | None = None

    def __repr__(self) -> str:
        lines = ["PowerResult", f"  power           : {_fmt(self.power)}"]
        lines += _size_lines(self)
        lines.append(_margin_line(self))
        lines.append(f"  alpha           : {self.alpha:g}")
        lines += self._common_lines(self.delta is not None)
        return _align(lines)


@dataclass(frozen=True, repr=False)
class DetectableDifferenceResult(_PlanBase):
    """Result of :func:`detectable_difference`: ``tau`` is the smallest unfairness detected
    with probability ``power`` by every comparison."""

    tau: float | np.ndarray
    n: float | np.ndarray
    n_per_group: np.ndarray
    allocation: np.ndarray | None
    power: float
    z_power: float

    def __repr__(self) -> str:
        lines = ["DetectableDifferenceResult", f"  tau (detectable): {_fmt(self.tau)}"]
        lines += _size_lines(self)
        lines.append(f"  u_tol           : {self.u_tol:g}")
        lines.append(f"  alpha, power    : {self.alpha:g}, {self.power:g}")
        lines += self._common_lines()
        return _align(lines)


@renamed_attributes(se="standard_error", ci="confidence_interval")
@dataclass(frozen=True, repr=False)
class SimulatedPowerResult(ResultExport):
    """Result of :func:`simulate_power`.

    Attributes
    ----------
    power : float
        Fraction of simulated audits that rejected.
    standard_error : float
        Binomial standard error ``sqrt(power (1 - power) / n_sim)``.
    confidence_interval : tuple of float
        95% Wilson interval for the power.
    formula_power : float
        Asymptotic power from :func:`power` for the same design.
    true_difference : float
        ``M_0 - M_1`` implied by the rates.
    """

    metric: str
    test: str
    method: str | None
    n_per_group: np.ndarray
    rates: dict[str, np.ndarray]
    true_difference: float
    alpha: float
    alternative: str
    n_sim: int
    n_rejections: int
    power: float
    standard_error: float
    confidence_interval: tuple[float, float]
    formula_power: float
    u_tol: float = 0.0
    delta: float | None = None

    def __repr__(self) -> str:
        test = self.test + (f" (method={self.method!r})" if self.method else "")
        if self.delta is not None:
            test += f", TOST |U| < {self.delta:g}"
        elif self.u_tol:
            test += f", H0: U <= {self.u_tol:g}"
        return _align(
            [
                "SimulatedPowerResult",
                f"  metric          : {self.metric}",
                f"  test            : {test}"
                + ("" if self.delta is not None else f", alternative {self.alternative!r}")
                + f", alpha {self.alpha:g}",
                f"  n per group     : {_fmt(self.n_per_group)}",
                f"  true difference : {self.true_difference:.4g} (M_0 - M_1)",
                f"  simulated power : {self.power:.4f} (se {self.standard_error:.4f}, 95% Wilson "
                f"[{self.confidence_interval[0]:.4f}, {self.confidence_interval[1]:.4f}], "
                f"{self.n_rejections}/{self.n_sim})",
                f"  formula power   : {self.formula_power:.4f}",
            ]
        )


#: What each plan sized (``SampleSizeResult.test``).
_TEST_NAMES = {
    "exact": "the audit's exact conditional test (exact power, fastfair.audit's default)",
    "wald": "Wald z-test, unpooled variances (eq. 2)",
    "score": "score z-test, variance at the rates fitted under U = u_tol",
    "tost": "TOST of two one-sided Wald tests",
}


@dataclass(frozen=True, repr=False)
class SampleSizeResult(_PlanBase):
    """Result of :func:`sample_size`.

    Attributes
    ----------
    n : float or ndarray
        Total sample size from eq. 2 / 3 (not rounded; the paper's numbers).
    n_per_group : ndarray
        ``n * allocation``, shape ``tau.shape + (k,)``.
    n_per_group_ceil, n_total_ceil : ndarray of int
        Each group's size rounded up, and their sum: the units to collect.
    allocation : ndarray
        Fraction of the total per group; ``allocation_rule`` is "neyman", "equal" or "given".
    tau, power : float or ndarray
        Presumed unfairness and target power (of each comparison).
    test : str
        The test sized: "exact" (the audit's exact conditional test), "wald" (eq. 2),
        "score" or "tost".
    achieved_power : float or ndarray or None
        With ``test="exact"``: the exact power of the audit's test at ``n_per_group_ceil``
        (the smallest over comparisons).
    """

    n: float | np.ndarray
    n_per_group: np.ndarray
    n_per_group_ceil: np.ndarray
    n_total_ceil: int | np.ndarray
    allocation: np.ndarray
    allocation_rule: str
    tau: float | np.ndarray
    power: float
    z_power: float
    delta: float | None = None
    test: str = "wald"
    achieved_power: float | np.ndarray | None = None

    def __repr__(self) -> str:
        lines = ["SampleSizeResult"]
        label = {"tost": "n (TOST)", "exact": "n (exact test)"}.get(self.test, "n (eq. 2/3)")
        lines.append(f"  {label:<15} : {_fmt(self.n, 7)}")
        lines.append(f"  test sized      : {_TEST_NAMES[self.test]}")
        lines.append(
            f"  n per group     : {_fmt(self.n_per_group, 6)} -> collect "
            f"{_fmt(self.n_per_group_ceil)} (total {_fmt(self.n_total_ceil)})"
        )
        lines.append(f"  allocation      : {self.allocation_rule} {_fmt(self.allocation)}")
        lines.append(_margin_line(self))
        lines.append(f"  alpha, power    : {self.alpha:g}, {self.power:g}")
        if self.achieved_power is not None:
            reached = _fmt(self.achieved_power, 4)
            lines.append(f"  exact power     : {reached} at the sizes collected")
        lines += self._common_lines(self.delta is not None)
        return _align(lines)

    def plot(self, n: Any = None, ax: Any = None) -> Any:
        """Plot the power curve of this design (needs matplotlib).

        Parameters
        ----------
        n : array_like, optional
            Total sample sizes to draw; by default 2% to 250% of the planned n.
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            As :func:`plot_power_curve`.
        """
        from fastfair.planning.api import plot_power_curve  # the curve needs power()

        return plot_power_curve(self, n=n, ax=ax)


@renamed_attributes(rates_se="rates_standard_error", n_resamples="n_bootstrap")
@dataclass(frozen=True, repr=False)
class PilotPlanResult(ResultExport):
    """Result of :func:`plan_from_data`.

    Attributes
    ----------
    plan : SampleSizeResult
        The plan from the pilot's point estimates.
    groups : ndarray
        Group labels in the order of the plan's arrays.
    pilot_n_per_group : ndarray
        Pilot group sizes.
    rates, rates_standard_error : dict
        Estimated per-group rates and their bootstrap standard errors.
    observed_difference : ndarray
        Pilot estimate of ``M_ref - M_g`` for each non-reference group.
    n_interval : tuple of float
        Percentile bootstrap interval for the planned total n.
    n_per_group_interval : ndarray
        Shape (2, k): intervals for each group's planned size.
    confidence_level : float
        Level of the intervals.
    n_bootstrap : int
        Number of bootstrap resamples of the pilot.
    bootstrap_distribution : ndarray
        The planned total n of each bootstrap resample (``scipy.stats.bootstrap``'s name).
    n_degenerate : int
        Resamples whose n is not finite (a rate at 0 or 1), left out of the intervals.
    """

    plan: SampleSizeResult
    groups: np.ndarray
    pilot_n_per_group: np.ndarray
    rates: dict[str, np.ndarray]
    rates_standard_error: dict[str, np.ndarray]
    observed_difference: np.ndarray
    n_interval: tuple[float, float]
    n_per_group_interval: np.ndarray
    confidence_level: float
    n_bootstrap: int
    bootstrap_distribution: np.ndarray
    n_degenerate: int

    @property
    def n(self) -> float:
        """Planned total n (point estimate)."""
        return self.plan.n

    @property
    def n_per_group(self) -> np.ndarray:
        """Planned n per group (point estimate)."""
        return self.plan.n_per_group

    def __repr__(self) -> str:
        lines = ["PilotPlanResult"]
        lines.append(
            f"  groups          : {self.groups.tolist()} "
            f"(reference {self.groups.tolist()[self.plan.reference_index]!r})"
        )
        lines.append(f"  pilot n / group : {_fmt(self.pilot_n_per_group)}")
        for key, val in self.rates.items():
            lines.append(
                f"  pilot {key}".ljust(20)
                + f": {_fmt(val)} (se {_fmt(self.rates_standard_error[key], 2)})"
            )
        lines.append(f"  observed diff   : {_fmt(self.observed_difference)}")
        lo, hi = self.n_interval
        lines.append(
            f"  planned n       : {_fmt(self.plan.n, 7)}, {self.confidence_level:.0%} interval "
            f"from pilot sampling error [{_fmt(lo, 7)}, {_fmt(hi, 7)}] "
            f"({self.n_bootstrap} bootstrap resamples)"
        )
        plan_lines = repr(self.plan).splitlines()[1:]
        lines.append("  plan:")
        lines += ["  " + s for s in plan_lines]
        return _align(lines)
