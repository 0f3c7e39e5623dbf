"""Result classes (dataclasses with a readable repr), warnings and errors (sample size and
power)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport
from fastfair._format import format_significant as _fmt  # short: used in every repr line


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
