"""Result classes (dataclasses with a readable repr), warnings and errors (Wasserstein
projection test)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport
from fastfair._format import format_pvalue, format_table, format_value


@renamed_attributes(a="group", y="y_true")
@dataclass(frozen=True, repr=False)
class FavorableDistribution(ResultExport):
    r"""The most favorable distribution: the projection of the data onto the fair set.

    A discrete distribution on the moved samples (rows of `X` with probabilities `weight`).
    Usually each input row is moved once with weight 1/N. When the dual optimum sits at a kink
    (possible only when the inner problem is non-convex) a few rows are split between their
    two optimal destinations so that the fairness constraint holds exactly.

    Attributes
    ----------
    X : ndarray of shape (m, d)
        Support points (moved features); rows of the input that do not move are copied.
    group, y_true : ndarray of shape (m,)
        Group label (as given) and 0/1 label of each point (never changed).
    weight : ndarray of shape (m,)
        Probability of each point (sums to 1).
    source : ndarray of shape (m,)
        Index of the input row each point comes from.
    transport_cost : float
        :math:`\sum_j w_j \|x'_j - x_{source(j)}\|^2` (in the metric): equals the distance R.
    constraint : float or ndarray
        :math:`E_Q[h \mid a=1, y] - E_Q[h \mid a=0, y]` under this distribution for the
        constrained label(s) (y = 1; or y = 0 and y = 1 for equalized odds): zero up to
        rounding.
    """

    X: np.ndarray
    group: np.ndarray
    y_true: np.ndarray
    weight: np.ndarray
    source: np.ndarray
    transport_cost: float
    constraint: float | np.ndarray

    def __repr__(self) -> str:
        cons = np.atleast_1d(self.constraint)
        return (
            f"FavorableDistribution(points={len(self.weight)}, features={self.X.shape[1]}, "
            f"transport_cost={format_value(self.transport_cost)}, "
            f"constraint=[{', '.join(format_value(c) for c in cons)}])"
        )


@dataclass(frozen=True, repr=False)
class WassersteinTestResult(ResultExport):
    r"""Result of :func:`wasserstein_test`.

    For ``criterion="equal_opportunity"`` the per-label attributes (`theta`, `gamma`,
    `difference`, `distance_parts`) are floats for label y = 1; for ``"equalized_odds"`` they
    are arrays of length 2 for labels y = 0 and y = 1.

    Attributes
    ----------
    statistic : float
        :math:`N R`, N times the squared Wasserstein distance to the fair set.
    pvalue : float
        Asymptotic p-value, :math:`P(\theta\chi^2_1 > NR)` (equal opportunity) or
        :math:`P(\theta_0\chi^2_1 + \theta_1\chi^2_1 > NR)` (equalized odds).
    threshold : float
        Critical value at `alpha`: reject when `statistic` > `threshold`.
    reject : bool
        Whether the test rejects fairness at level `alpha`.
    distance : float
        R, the squared projection distance (the optimal transport cost).
    distance_parts : float or ndarray
        :math:`R_y` for each constrained label (R is their sum).
    theta : float or ndarray
        Plug-in scale(s) of the limiting distribution.
    gamma : float or ndarray
        Dual optimum :math:`\gamma^*` for each constrained label.
    difference : float or ndarray
        :math:`\hat E[h \mid a=1, y] - \hat E[h \mid a=0, y]` on the data (the quantity that
        is zero under the null).
    groups : ndarray
        The two labels of `a`; the second is coded a = 1.
    cell_counts, cell_means : ndarray of shape (2, 2)
        Number of samples and mean of h in each cell [a, y].
    favorable : FavorableDistribution or None
        With ``return_favorable=True``.
    """

    statistic: float
    pvalue: float
    threshold: float
    reject: bool
    alpha: float
    criterion: str
    distance: float
    distance_parts: float | np.ndarray
    theta: float | np.ndarray
    gamma: float | np.ndarray
    difference: float | np.ndarray
    n: int
    groups: np.ndarray
    cell_counts: np.ndarray
    cell_means: np.ndarray
    favorable: FavorableDistribution | None = None

    def __repr__(self) -> str:
        head = (
            f"WassersteinTestResult(criterion={self.criterion!r}, n={self.n}, "
            f"groups={self.groups.tolist()!r}, alpha={self.alpha})"
        )
        labels = [1] if self.criterion == "equal_opportunity" else [0, 1]
        cols = [
            np.atleast_1d(v)
            for v in (self.difference, self.distance_parts, self.theta, self.gamma)
        ]
        rows = [(f"y = {lab}", *(c[k] for c in cols)) for k, lab in enumerate(labels)]
        table = format_table(["label", "difference", "R_y", "theta", "gamma"], rows)
        summary = format_table(
            ["statistic N*R", "threshold", "pvalue", "reject"],
            [
                (
                    format_value(self.statistic),
                    self.threshold,
                    format_pvalue(self.pvalue),
                    "yes" if self.reject else "no",
                )
            ],
        )
        return "\n".join([head, table, summary])
