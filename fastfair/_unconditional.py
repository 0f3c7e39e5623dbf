"""Exact unconditional tests of a difference of two proportions against a margin.

Chan (1998), "Exact tests of equivalence and efficacy with a non-zero lower bound for
comparative studies", Stat. Med. 17: 1403-1413. For X1 ~ Bin(n1, p1), X2 ~ Bin(n2, p2) and
H0: p1 - p2 <= d, the statistic is the score statistic Z(d) of :mod:`fastfair._score`
(Miettinen-Nurminen) and the p-value is its exact tail probability maximised over the
nuisance rate on the null boundary:

    p = sup_{p2} P_{(p2 + d, p2)}( Z(X1, X2; d) >= z_obs ),

the sum running over all (n1 + 1)(n2 + 1) outcomes (compiled: ``fastfair._margin_tails``). The size
of the test is at most alpha for every (p1, p2) on the boundary, whatever the group sizes;
the supremum over the whole null (p1 - p2 < d) is attained on the boundary because Z
decreases when X1 decreases or X2 increases (Chan 1998, section 2). H0: p1 - p2 >= d is the
mirror image (small Z).

The supremum is found on a grid of nuisance values refined twice around its best points
(spacing 1/30000 of the boundary's range at the end).
"""

from __future__ import annotations

import numpy as np

from fastfair._margin_tails import log_binomial_coefficients, region_probabilities
from fastfair._score import score_statistic

#: Nuisance values of the coarse grid, and of each refinement around the best grid points.
_GRID = 301
_REFINE = 21
_REFINE_ROUNDS = 2
_CANDIDATES = 3
#: Outcomes with Z within this (relative) distance of the observed Z count as ties.
_TIE = 1e-10
#: Bisection steps of the exact interval (2^-20 < 1e-6).
_BISECTION_STEPS = 20
#: Largest enumeration, (n1 + 1)(n2 + 1) outcomes, that method="exact" accepts.
MAX_OUTCOMES = 4_000_000


def check_size(n1: int, n2: int) -> None:
    """ValueError when the enumeration would exceed MAX_OUTCOMES outcomes."""
    if (n1 + 1) * (n2 + 1) > MAX_OUTCOMES:
        raise ValueError(
            f"the exact test enumerates (n1 + 1)(n2 + 1) = {(n1 + 1) * (n2 + 1)} outcomes, "
            f"above the limit {MAX_OUTCOMES}: use method='score' (accurate at these sizes)"
        )


class BoundaryTails:
    """Exact tail probabilities of Z(d) for one pair of group sizes and one margin d."""

    def __init__(self, n1: int, n2: int, d: float, correction: bool = True):
        self.n1, self.n2, self.d = int(n1), int(n2), float(d)
        self.z = score_statistic(
            np.arange(n1 + 1.0)[:, None], n1, np.arange(n2 + 1.0)[None, :], n2, d,
            correction=correction,
        )  # fmt: skip
        self.logc1 = log_binomial_coefficients(self.n1)
        self.logc2 = log_binomial_coefficients(self.n2)
        self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)  # range of p2

    def region(self, z_obs: float, side: str) -> np.ndarray:
        """Boolean (n1 + 1, n2 + 1) mask of outcomes at least as extreme as z_obs."""
        tie = _TIE * max(1.0, abs(z_obs)) if np.isfinite(z_obs) else 0.0
        return self.z >= z_obs - tie if side == "greater" else self.z <= z_obs + tie

    def probabilities(self, mask: np.ndarray, p2: np.ndarray) -> np.ndarray:
        """P(mask) at (p2 + d, p2) for each nuisance value p2."""
        step = np.diff(mask.T.astype(np.int8), axis=1, prepend=0, append=0)
        run_x2, run_lo = np.nonzero(step == 1)
        run_hi = np.nonzero(step == -1)[1] - 1
        p2 = np.asarray(p2, dtype=np.float64)
        p1 = np.clip(p2 + self.d, 0.0, 1.0)
        return region_probabilities(
            self.logc1, self.logc2, p1, p2, run_x2.astype(np.int64), run_lo.astype(np.int64),
            run_hi.astype(np.int64),
        )  # fmt: skip

    def supremum(self, mask: np.ndarray) -> float:
        """max over the boundary of P(mask), by a grid refined around its best points."""
        if not mask.any():
            return 0.0
        grid = np.linspace(self.lo, self.hi, _GRID)
        prob = self.probabilities(mask, grid)
        best = float(prob.max())
        width = (self.hi - self.lo) / (_GRID - 1)
        centres = grid[np.argsort(prob)[-_CANDIDATES:]]
        for _ in range(_REFINE_ROUNDS):
            fine = np.concatenate(
                [np.linspace(max(c - width, self.lo), min(c + width, self.hi), _REFINE)
                 for c in centres]
            )  # fmt: skip
            prob = self.probabilities(mask, fine)
            best = max(best, float(prob.max()))
            centres = fine[np.argsort(prob)[-_CANDIDATES:]]
            width *= 2.0 / (_REFINE - 1)
        return min(best, 1.0)

    def pvalue(self, z_obs: float, side: str) -> float:
        """Exact p-value of the observed Z: side "greater" for H0: p1 - p2 <= d (large Z)."""
        return self.supremum(self.region(z_obs, side))

    def critical_value(self, alpha: float, side: str) -> float:
        """The least extreme attainable Z whose exact p-value is <= alpha (inf if none).

        The test rejects exactly when Z >= this value ("greater") or <= it ("less").
        """
        values = np.unique(self.z)
        values = values if side == "greater" else values[::-1]
        # p-values decrease along `values`; find the first index with p <= alpha
        lo, hi = 0, len(values)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.pvalue(float(values[mid]), side) <= alpha:
                hi = mid
            else:
                lo = mid + 1
        if lo == len(values):
            return np.inf if side == "greater" else -np.inf
        return float(values[lo])


def exact_pvalue(x1, n1, x2, n2, d, side: str, correction: bool = True) -> float:
    """Chan's exact unconditional p-value of H0: p1 - p2 <= d ("greater") or >= d ("less")."""
    n1, n2 = round(float(n1)), round(float(n2))  # counts arrive as floats
    tails = BoundaryTails(n1, n2, d, correction)
    return tails.pvalue(float(tails.z[round(float(x1)), round(float(x2))]), side)


def exact_bound(x1, n1, x2, n2, alpha: float, side: str, correction: bool = True) -> float:
    """One end of the exact interval of p1 - p2 by inverting the one-sided exact tests.

    "lower": inf{d : the test of H0: p1 - p2 <= d has p > alpha} (the 1 - alpha lower
    confidence bound); "upper": the mirror image.
    """
    diff = x1 / n1 - x2 / n2
    test = "greater" if side == "lower" else "less"
    # the bound lies between the end of the range and the estimate (where p >= 1/2 > alpha)
    lo, hi = (-1.0, diff) if side == "lower" else (diff, 1.0)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction) <= alpha
        if side == "lower":
            lo, hi = (mid, hi) if rejected else (lo, mid)
        else:
            lo, hi = (lo, mid) if rejected else (mid, hi)
    return hi if side == "lower" else lo
