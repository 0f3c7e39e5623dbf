"""Exact unconditional tests of a difference of two proportions against a margin.

Chan (1998), "Exact tests of equivalence and efficacy with a non-zero lower bound for
comparative studies", Stat. Med. 17: 1403-1413. For X1 ~ Bin(n1, p1), X2 ~ Bin(n2, p2) and
H0: p1 - p2 <= d, the statistic is the score statistic Z(d) of :mod:`fastfair._score`
(Miettinen-Nurminen) and the p-value is its exact tail probability maximised over the
nuisance rate on the null boundary:

    p = sup_{p2} P_{(p2 + d, p2)}( Z(X1, X2; d) >= z_obs ).

The size of the test is at most alpha for every (p1, p2) on the boundary, whatever the group
sizes; the supremum over the whole null (p1 - p2 < d) is attained on the boundary because Z
decreases when X1 decreases or X2 increases (Chan 1998, section 2). H0: p1 - p2 >= d is the
mirror image (small Z).

That monotonicity (Barnard's convexity condition) also makes the tail cheap: for each
outcome x2 the outcomes at least as extreme are a run x1 >= a(x2) ("greater") or x1 <= b(x2)
("less"), so the region is n2 + 1 runs found by bisection in x1, O(n2 log n1) evaluations of
Z instead of the (n1 + 1)(n2 + 1) of the whole table, and its probability at one nuisance
value costs O(n1 + n2) (``fastfair._margin_tails``). Above FULL_SUM_MAX rows the runs are
taken along the smaller group (bisection in the larger one) and the tail sums skip the
binomial terms outside a window around each mode (Chernoff bound, at most 1e-15 of
probability dropped), O(sqrt(n1) + sqrt(n2)) per nuisance value. Above CDF_ABOVE (=
MAX_SIZE) rows with a smaller group of at most SMALL_GROUP_MAX rows (a small group against a
huge reference, where an audit most often is) the larger group's binomial enters only
through its distribution function at the ends of each run, the regularized incomplete beta
function (``scipy.special.bdtr``): O(n_small) per nuisance value whatever the reference's
size, and no O(n_large) table of binomial coefficients. The monotonicity was checked
numerically for group sizes 1-1000 and margins -0.99..0.99 (both statistics, no exception);
tests/test_tolerance.py checks it on a subset and checks the runs and p-values against
brute-force enumeration.

The supremum is found on a grid of nuisance values (uniform in p2 and in arcsin(sqrt(p2)),
finer for larger groups) refined twice around its best points.
"""

from __future__ import annotations

import math

import numpy as np

from fastfair._margin_tails import log_binomial_coefficients, region_probabilities
from fastfair._parallel import threads_for
from fastfair._scipy import special
from fastfair._score import score_statistic

#: Nuisance values of the coarse grid (uniform in p2, and per sqrt(n) uniform in
#: arcsin(sqrt(p2))), and of each refinement around the best grid points.
_GRID = 301
_ARCSINE_PER_ROOT = 6.0
_REFINE = 21
_REFINE_ROUNDS = 2
_CANDIDATES = 3
#: Outcomes with Z within this (relative) distance of the observed Z count as ties.
_TIE = 1e-10
#: Bisection steps of the exact interval (2^-20 < 1e-6).
_BISECTION_STEPS = 20
#: Largest n1 + n2 that method="exact" accepts (a p-value ~0.5 s, its interval ~40 of them).
MAX_SIZE = 1_000_000
#: Binomial terms per thread of the tail sums (threads pay off only above it).
_TERMS_PER_THREAD = 1_000_000
#: Above this n1 + n2 the tail sums skip the terms outside a window around each binomial's
#: mode holding all but WINDOW_TOL of its mass on each side (Chernoff bound), so a computed
#: tail probability is low by at most 4 * WINDOW_TOL = 1e-15 (``fastfair._margin_tails``).
#: At or below it every term is summed, as before the windows (results bit-identical).
FULL_SUM_MAX = 5_000
WINDOW_TOL = 2.5e-16
#: Above this n1 + n2, a comparison whose smaller group has at most SMALL_GROUP_MAX rows
#: sums its tails along the smaller group with the larger group's distribution function
#: (``_cdf_probabilities``), and the exact test accepts it whatever the larger group's size
#: (MAX_SIZE bounds only comparisons of two large groups). At or below CDF_ABOVE the
#: windowed sums run as before (results bit-identical; they are faster there). The two
#: agree to 1e-9 (tests/test_tolerance.py). With 500 rows against 3,000,000 a p-value
#: costs ~0.8 s, its interval ~40 of them; with 30 rows, 0.14 s.
CDF_ABOVE = MAX_SIZE
SMALL_GROUP_MAX = 500
#: Small-group outcomes whose probability is below this are skipped by the CDF sums (at
#: most (SMALL_GROUP_MAX + 1) * 1e-18 < 1e-15 of probability dropped).
_PMF_FLOOR = 1e-18
#: Elements of the (nuisance value x run) blocks of the CDF sums.
_CDF_BLOCK = 1 << 20


def exact_feasible(n1, n2):
    """Whether the exact test accepts groups of n1 and n2 rows: n1 + n2 <= MAX_SIZE, or a
    smaller group of at most SMALL_GROUP_MAX rows (any reference; arrays broadcast)."""
    n1, n2 = np.asarray(n1, dtype=np.float64), np.asarray(n2, dtype=np.float64)
    return (n1 + n2 <= MAX_SIZE) | (np.minimum(n1, n2) <= SMALL_GROUP_MAX)


def check_size(n1: int, n2: int) -> None:
    """ValueError when the exact test does not accept the sizes (exact_feasible)."""
    if not exact_feasible(n1, n2):
        raise ValueError(
            f"the exact test sums binomial tails over n1 + n2 = {n1 + n2:,} outcomes per "
            f"nuisance value, above the limit {MAX_SIZE:,} with both groups above "
            f"{SMALL_GROUP_MAX:,} rows: use method='score' (accurate at these sizes)"
        )


def _switch_points(lines: int, size: int, switched) -> tuple[np.ndarray, np.ndarray]:
    """Bisection on `lines` lines at once: for a predicate ``switched(k)`` (arrays of one k
    per line) that is monotone, False then True, over k = 0..size, return (lo, hi) with hi
    the first k where it holds and lo = hi - 1 (virtual ends: -1 False, size + 1 True).
    Lines already closed are evaluated at k = 0 and left as they are."""
    lo, hi = np.full(lines, -1.0), np.full(lines, size + 1.0)
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            return lo, hi
        mid = np.floor(0.5 * (lo + hi))
        up = switched(np.where(open_, mid, 0.0))
        lo = np.where(open_ & ~up, mid, lo)
        hi = np.where(open_ & up, mid, hi)


class BoundaryTails:
    """Exact tail probabilities of Z(d) for one pair of group sizes and one margin d."""

    def __init__(self, n1: int, n2: int, d: float, correction: bool = True, n_jobs=1):
        self.n1, self.n2, self.d = int(n1), int(n2), float(d)
        self.correction = correction
        self.n_jobs = n_jobs
        self._logc = {}
        self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)  # range of p2
        self._z = None

    @property
    def logc1(self) -> np.ndarray:
        """log C(n1, k), k = 0..n1 (computed on first use)."""
        return self._log_coefficients(self.n1)

    @property
    def logc2(self) -> np.ndarray:
        """log C(n2, k), k = 0..n2 (computed on first use)."""
        return self._log_coefficients(self.n2)

    def _log_coefficients(self, n: int) -> np.ndarray:
        if n not in self._logc:
            self._logc[n] = log_binomial_coefficients(n)
        return self._logc[n]

    def statistic(self, x1, x2):
        """Z(d) at outcomes (x1, x2) (arrays broadcast)."""
        return score_statistic(x1, self.n1, x2, self.n2, self.d, correction=self.correction)

    @property
    def z(self) -> np.ndarray:
        """Z(d) on the whole (n1 + 1, n2 + 1) table of outcomes (computed on first use)."""
        if self._z is None:
            self._z = self.statistic(np.arange(self.n1 + 1.0)[:, None], np.arange(self.n2 + 1.0))
        return self._z

    def region(self, z_obs: float, side: str) -> np.ndarray:
        """Boolean (n1 + 1, n2 + 1) mask of outcomes at least as extreme as z_obs."""
        threshold = self._threshold(z_obs, side)
        return self.z >= threshold if side == "greater" else self.z <= threshold

    def runs(self, z_obs: float, side: str) -> tuple:
        """The region of :meth:`region` as runs (x2, first x1, last x1), by bisection in x1.

        Z is non-decreasing in x1 for each x2, so the region's column x2 is x1 >= a(x2)
        ("greater") or x1 <= b(x2) ("less"); columns without outcomes have no run.
        """
        threshold = self._threshold(z_obs, side)
        x2 = np.arange(self.n2 + 1.0)
        # "greater": Z(x1) >= threshold switches on at hi; "less": Z(x1) > threshold at hi
        lo, hi = _switch_points(
            self.n2 + 1,
            self.n1,
            lambda x1: (
                (self.statistic(x1, x2) >= threshold)
                if side == "greater"
                else (self.statistic(x1, x2) > threshold)
            ),
        )
        # "greater": first x1 in the region is hi; "less": last x1 in the region is lo
        if side == "greater":
            keep = hi <= self.n1
            first, last = hi[keep], np.full(keep.sum(), float(self.n1))
        else:
            keep = lo >= 0
            first, last = np.zeros(keep.sum()), lo[keep]
        return tuple(v.astype(np.int64) for v in (x2[keep], first, last))

    def runs_by_x1(self, z_obs: float, side: str) -> tuple:
        """The same region as runs (x1, first x2, last x2), by bisection in x2.

        Z is non-increasing in x2 for each x1, so the region's row x1 is x2 <= c(x1)
        ("greater") or x2 >= c(x1) ("less"). n1 + 1 runs: cheaper than :meth:`runs` when
        n1 < n2 (a small group against a large reference).
        """
        threshold = self._threshold(z_obs, side)
        x1 = np.arange(self.n1 + 1.0)
        # Z falls with x2: "greater": lo is in the region (Z >= threshold), hi not;
        # "less": lo is not, hi is (Z <= threshold)
        lo, hi = _switch_points(
            self.n1 + 1,
            self.n2,
            lambda x2: (
                (self.statistic(x1, x2) < threshold)
                if side == "greater"
                else (self.statistic(x1, x2) <= threshold)
            ),
        )
        if side == "greater":
            keep = lo >= 0
            first, last = np.zeros(keep.sum()), lo[keep]
        else:
            keep = hi <= self.n2
            first, last = hi[keep], np.full(keep.sum(), float(self.n2))
        return tuple(v.astype(np.int64) for v in (x1[keep], first, last))

    def probabilities(self, mask: np.ndarray, p2: np.ndarray) -> np.ndarray:
        """P(mask) at (p2 + d, p2) for each nuisance value p2 (mask of the whole table)."""
        step = np.diff(mask.T.astype(np.int8), axis=1, prepend=0, append=0)
        run_x2, run_lo = np.nonzero(step == 1)
        run_hi = np.nonzero(step == -1)[1] - 1
        return self._run_probabilities((run_x2, run_lo, run_hi), p2)

    def _run_probabilities(self, runs, p2, by_x1: bool = False) -> np.ndarray:
        """P(region) at (p2 + d, p2); runs of :meth:`runs`, or of :meth:`runs_by_x1` if by_x1."""
        p2 = np.asarray(p2, dtype=np.float64)
        p1 = np.clip(p2 + self.d, 0.0, 1.0)
        if self._by_cdf:
            small, large = (
                ((self.n1, p1), (self.n2, p2)) if by_x1 else ((self.n2, p2), (self.n1, p1))
            )
            return self._cdf_probabilities(runs, small, large)
        runs = tuple(np.ascontiguousarray(v, dtype=np.int64) for v in runs)
        # one thread per ~1e6 binomial terms: small tails run on one (results never differ)
        n_threads = threads_for(self.n_jobs, len(p2) * (self.n1 + self.n2 + 2), _TERMS_PER_THREAD)
        tol = WINDOW_TOL if self._large else 0.0
        if by_x1:  # the kernel is symmetric in the two binomials: swap their roles
            return region_probabilities(
                self.logc2, self.logc1, p2, p1, *runs, n_threads=n_threads, tol=tol
            )
        return region_probabilities(
            self.logc1, self.logc2, p1, p2, *runs, n_threads=n_threads, tol=tol
        )

    def _cdf_probabilities(self, runs, small, large) -> np.ndarray:
        """P(region) for each nuisance value from runs (x_small, first, last) along the
        smaller group: sum over x_small of b(x_small; n_s, p_s) P(first <= X_large <= last),
        the second factor from the binomial distribution function (``special.bdtr``), in
        blocks of nuisance values; outcomes of the small group with probability below
        _PMF_FLOOR are skipped."""
        (n_s, p_s), (n_l, p_l) = small, large
        x, first, last = (np.asarray(v, dtype=np.float64) for v in runs)
        logc = self._log_coefficients(n_s)[x.astype(np.int64)]
        out = np.zeros(len(p_s))
        step = max(1, _CDF_BLOCK // max(len(x), 1))
        for start in range(0, len(p_s), step):
            ps, pl = p_s[start : start + step, None], p_l[start : start + step, None]
            pmf = np.exp(logc + special.xlogy(x, ps) + special.xlog1py(n_s - x, -ps))
            row, col = np.nonzero(pmf >= _PMF_FLOOR)
            lo, hi, p = first[col], last[col], pl[row, 0]
            below = np.where(lo > 0, special.bdtr(np.maximum(lo - 1, 0), n_l, p), 0.0)
            mass = np.where(
                hi >= n_l,
                np.where(lo > 0, special.bdtrc(np.maximum(lo - 1, 0), n_l, p), 1.0),
                special.bdtr(hi, n_l, p) - below,
            )
            block = np.zeros(pmf.shape)
            block[row, col] = pmf[row, col] * mass
            out[start : start + step] = block.sum(axis=1)
        return np.minimum(out, 1.0)

    @property
    def _by_cdf(self) -> bool:
        """Tail sums with the larger group's distribution function (above CDF_ABOVE rows,
        smaller group at most SMALL_GROUP_MAX)."""
        return self.n1 + self.n2 > CDF_ABOVE and min(self.n1, self.n2) <= SMALL_GROUP_MAX

    @property
    def _large(self) -> bool:
        """Windowed tail sums and runs along the smaller group (above FULL_SUM_MAX)."""
        return self.n1 + self.n2 > FULL_SUM_MAX

    def _threshold(self, z_obs: float, side: str) -> float:
        """Z at or beyond which ("greater") or at or below which ("less") an outcome counts."""
        tie = _TIE * max(1.0, abs(z_obs)) if np.isfinite(z_obs) else 0.0
        return z_obs - tie if side == "greater" else z_obs + tie

    def nuisance_grid(self) -> np.ndarray:
        """Coarse grid of p2: _GRID values uniform in p2 and _ARCSINE_PER_ROOT * sqrt(n)
        uniform in arcsin(sqrt(p2)), n the larger group (a tail probability's peak is about
        1/(2 sqrt(n)) wide on that scale, and only 1/n wide in p2 near 0 or 1)."""
        uniform = np.linspace(self.lo, self.hi, _GRID)
        k = max(2, math.ceil(_ARCSINE_PER_ROOT * math.sqrt(max(self.n1, self.n2))))
        ends = np.arcsin(np.sqrt([self.lo, self.hi]))
        arcsine = np.clip(np.sin(np.linspace(ends[0], ends[1], k)) ** 2, self.lo, self.hi)
        return np.unique(np.concatenate([uniform, arcsine]))

    def supremum(self, runs, by_x1: bool = False) -> float:
        """max over the boundary of P(region given as runs), on :meth:`nuisance_grid`
        refined twice around its best points (each between its grid neighbours)."""
        if len(runs[0]) == 0:
            return 0.0
        grid = self.nuisance_grid()
        prob = self._run_probabilities(runs, grid, by_x1)
        best = float(prob.max())
        for _ in range(_REFINE_ROUNDS):
            top = np.argsort(prob)[-_CANDIDATES:]
            fine = np.concatenate(
                [np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)], _REFINE)
                 for i in top]
            )  # fmt: skip
            grid = np.unique(fine)
            prob = self._run_probabilities(runs, grid, by_x1)
            best = max(best, float(prob.max()))
        return min(best, 1.0)

    def pvalue(self, z_obs: float, side: str) -> float:
        """Exact p-value of the observed Z: side "greater" for H0: p1 - p2 <= d (large Z).

        Above FULL_SUM_MAX the region is found along the smaller group (n1 + 1 or n2 + 1
        runs, whichever is fewer); at or below it along x2, as before (bit-identical)."""
        if self._large and self.n1 < self.n2:
            return self.supremum(self.runs_by_x1(z_obs, side), by_x1=True)
        return self.supremum(self.runs(z_obs, side))

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


def exact_pvalue(x1, n1, x2, n2, d, side: str, correction: bool = True, n_jobs=1) -> float:
    """Chan's exact unconditional p-value of H0: p1 - p2 <= d ("greater") or >= d ("less")."""
    n1, n2 = round(float(n1)), round(float(n2))  # counts arrive as floats
    tails = BoundaryTails(n1, n2, d, correction, n_jobs)
    z_obs = float(tails.statistic(round(float(x1)), round(float(x2))))
    return tails.pvalue(z_obs, side)


def exact_bound(
    x1, n1, x2, n2, alpha: float, side: str, correction: bool = True, n_jobs=1
) -> float:
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
        rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, n_jobs) <= alpha
        if side == "lower":
            lo, hi = (mid, hi) if rejected else (lo, mid)
        else:
            lo, hi = (lo, mid) if rejected else (mid, hi)
    return hi if side == "lower" else lo
