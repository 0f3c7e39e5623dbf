"""Sequential Monte-Carlo tests: draw permutations only until the decision is clear.

A Monte-Carlo p-value estimates p = P(T* >= t_obs) from exceedances X_b = 1{T*_b >= t_obs},
i.i.d. Bernoulli(p). With S_n exceedances among the first n permutations, Robbins' (1970)
confidence sequence for a binomial proportion,

    I_n = {q : (n + 1) C(n, S_n) q^S_n (1 - q)^(n - S_n) > delta},

covers p at every n simultaneously with probability >= 1 - delta: (n + 1) times the binomial
likelihood is the likelihood ratio of the uniform-prior mixture against q, a non-negative
martingale under q, and Ville's inequality bounds its crossing of 1/delta. Ding, Gandy &
Hahn (2020, "A simple method for implementing Monte Carlo tests", Comput. Stat. 35) stop as
soon as alpha leaves I_n and decide by the side it leaves on; the decision then differs from
the one the exact p-value gives (the resampling risk) with probability at most delta = epsilon,
uniformly in p, and the interval I_n at the stopping time stays a valid interval for p.

Several hypotheses (Holm, Bonferroni, Benjamini-Hochberg over comparisons, or over a whole
audit) follow MMCTest (Gandy & Hahn 2014, 2016): every Monte-Carlo p-value gets the confidence
sequence at level epsilon / K, K the number of Monte-Carlo p-values (exact ones are known), so
with probability >= 1 - epsilon all K intervals cover at once; the
procedure applied to the upper ends rejects a subset of what it rejects on the true p-values
and applied to the lower ends a superset (step-up and step-down procedures are monotone).
Hypotheses in the first set are rejected, those outside the second retained, and only the
rest draw more permutations. A hypothesis still open at the cap is reported "undecided".

Permutations are drawn in blocks whose sizes depend only on the exceedance counts, and
permutation b always uses random stream b, so results are identical for any n_jobs.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_table, format_value
from fastfair._pvalues import adjust_pvalues, monte_carlo_pvalue, wilson_interval
from fastfair._scipy import optimize
from fastfair._validation import check_resamples, show_value

__all__ = [
    "PROCEDURES",
    "ContinuableResult",
    "MultipleMonteCarloResult",
    "Sequential",
    "multiple_monte_carlo",
    "robbins_interval",
]


#: Monte-Carlo samplers of a result that can draw on (multiple_monte_carlo continues them),
#: by id of the result, for as long as the result lives. Results are frozen: the samplers
#: are working state of the test, not a field of its result.
_SAMPLERS: dict[int, list | str] = {}


def keep_samplers(result: Any, samplers: Sequence | str | None) -> Any:
    """Remember `samplers` (one per comparison, None where not Monte Carlo) as the ones
    :func:`multiple_monte_carlo` continues for `result`; returns `result`. Nothing is kept
    when no comparison was drawn by Monte Carlo; :data:`LEFT_BEHIND` marks an unpickled copy
    of a result that had samplers."""
    if isinstance(samplers, str) or (samplers and any(s is not None for s in samplers)):
        key = id(result)
        _SAMPLERS[key] = samplers if isinstance(samplers, str) else list(samplers)
        weakref.finalize(result, _SAMPLERS.pop, key, None)
    return result


def samplers_of(result: Any) -> list | str | None:
    """The samplers :func:`keep_samplers` kept for `result` (None: no Monte-Carlo draws;
    :data:`LEFT_BEHIND`: a copy whose samplers stayed with the original)."""
    return _SAMPLERS.get(id(result))


PROCEDURES = ("holm", "bonferroni", "bh", "none")
#: What a pickled result holds in place of its samplers (closures over the data).
LEFT_BEHIND = "left behind when the result was pickled"


class ContinuableResult:
    """A result whose Monte-Carlo p-values :func:`multiple_monte_carlo` can continue: the
    samplers :func:`keep_samplers` kept for it draw more permutations from the data the test
    ran on. They are closures over that data and stay in their process: a pickled (or
    copied) result keeps every field and records that its samplers were left behind, so
    that multiple_monte_carlo refuses it instead of taking its Monte-Carlo estimate for an
    exact p-value."""

    def __getstate__(self) -> tuple[dict, bool]:
        return dict(self.__dict__), samplers_of(self) is not None

    def __setstate__(self, state: tuple[dict, bool]) -> None:
        fields, left_behind = state
        self.__dict__.update(fields)  # a frozen dataclass: its fields, set as pickle does
        if left_behind:
            keep_samplers(self, LEFT_BEHIND)


DECISIONS = ("reject", "retain", "undecided")
FIRST_BLOCK = 16
MIN_CAP = 19_999
#: A family decision (multiple_monte_carlo with max_permutations=None) lets a test whose
#: permutation cost is known (Sampler.work, in sweep rows) draw up to WORK_BUDGET sweep rows'
#: worth of permutations, at most BUDGET_CAP, where that exceeds the default cap: near an
#: adjusted level a cheap test resolves p to ~1e-4 instead of stopping "undecided" at 19,999.
WORK_BUDGET = 10**9
BUDGET_CAP = 1_000_000


@dataclass(frozen=True)
class Sequential:
    """Options of a sequential Monte-Carlo test (the default when n_permutations is None).

    Parameters
    ----------
    alpha : float
        Level the decision refers to (of each comparison, or of the family with an
        adjustment).
    epsilon : float
        Bound on the resampling risk: the probability that the decision differs from the one
        the exact permutation p-value would give (uniformly in that p-value). Also one minus
        the coverage of `pvalue_interval`.
    max_permutations : int, optional
        Cap per comparison; a comparison still open there is "undecided". None: at least
        19,999 and ten times what rejecting at the smallest adjusted level needs when no
        permutation exceeds the observed statistic (so Holm over many tests can still
        reject).

    Examples
    --------
    >>> from fastfair import Sequential
    >>> Sequential(alpha=0.01).epsilon
    0.001
    """

    alpha: float = 0.05
    epsilon: float = 1e-3
    max_permutations: int | None = None

    def __post_init__(self):
        for name in ("alpha", "epsilon"):
            value = getattr(self, name)
            if not isinstance(value, (float, int)) or isinstance(value, bool):
                raise TypeError(f"{name} must be a number, got {value!r}")
            if not 0 < value < 1:
                raise ValueError(f"{name} must be in (0, 1), got {value!r}")
        cap = self.max_permutations
        if cap is not None and (
            isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < FIRST_BLOCK
        ):
            raise ValueError(
                f"max_permutations must be None or an integer >= {FIRST_BLOCK}, got {cap!r}"
            )


def resolve(n_permutations, sequential) -> tuple[int | None, Sequential | None]:
    """(fixed count, None) or (None, Sequential options) from a test's two arguments."""
    if sequential is not None and not isinstance(sequential, Sequential):
        raise TypeError(
            f"sequential must be None or a fastfair.Sequential, got {type(sequential).__name__}"
        )
    if n_permutations is None:
        return None, sequential if sequential is not None else Sequential()
    if sequential is not None:
        raise ValueError(
            "give either n_permutations (a fixed number of permutations) or sequential, not both"
        )
    return check_resamples(n_permutations, "n_permutations", 1), None


# --------------------------------------------------------------------------------------
# Robbins' confidence sequence
# --------------------------------------------------------------------------------------


def _log_mixture1(n: int, s: int, q: float) -> float:
    """log of (n + 1) C(n, s) q^s (1 - q)^(n - s): Robbins' mixture likelihood ratio."""
    out = (
        math.log(n + 1.0) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0) - math.lgamma(n - s + 1.0)
    )
    if s:
        out += s * math.log(q) if q > 0 else -math.inf
    if n - s:
        out += (n - s) * math.log1p(-q) if q < 1 else -math.inf
    return out


def robbins_interval(count: int, n: int, delta: float) -> tuple[float, float]:
    """Robbins' (1970) confidence sequence for a binomial proportion, at time n.

    The set of q with (n + 1) C(n, count) q^count (1 - q)^(n - count) > delta: it covers the
    true proportion at all n simultaneously with probability >= 1 - delta, so it stays
    valid at a data-dependent stopping time.

    Examples
    --------
    >>> lo, hi = robbins_interval(0, 250, 1e-3)  # 250 permutations, none as extreme
    >>> lo, round(hi, 4)
    (0.0, 0.0485)
    """
    if n == 0:
        return 0.0, 1.0
    level = math.log(delta)
    mode = count / n

    def f(q):
        return _log_mixture1(n, count, q) - level

    lo = 0.0 if count == 0 else optimize.brentq(f, 0.0, mode, xtol=1e-15, rtol=1e-12)
    hi = 1.0 if count == n else optimize.brentq(f, mode, 1.0, xtol=1e-15, rtol=1e-12)
    return float(lo), float(hi)


def _first(condition, lo: int, hi: int) -> int:
    """Smallest m in (lo, hi] with condition(m), by doubling then bisection (assumes that
    the condition, once true, stays true: true of the exclusion of a level by the interval
    as draws accumulate on one side); hi when none is found."""
    step, prev = 1, lo
    while True:
        m = min(lo + step, hi)
        if condition(m):
            break
        if m == hi:
            return hi
        prev, step = m, 2 * step
    a, b = prev, m
    while b - a > 1:
        mid = (a + b) // 2
        if condition(mid):
            b = mid
        else:
            a = mid
    return b


def _zero_count_length(q: float, delta: float) -> int:
    """Smallest n at which the interval with no exceedances lies below q."""
    level = math.log(delta)
    return _first(lambda n: _log_mixture1(n, 0, q) <= level, 0, 1 << 40)


# --------------------------------------------------------------------------------------
# Samplers and the procedure
# --------------------------------------------------------------------------------------


class Sampler:
    """The Monte-Carlo p-value of one comparison, extendable by blocks of permutations.

    draw(start, count) returns the permuted statistics of permutations start..start+count-1
    (each from its own random stream); exceedances count as in `monte_carlo_pvalue`.
    `work`, when known, is the estimated cost of one permutation in sweep rows (auc_test
    sets it); a family decision (`multiple_monte_carlo`) sizes the test's cap from it.
    """

    def __init__(
        self,
        draw: Callable,
        observed: float,
        alternative: str,
        keep_null: bool,
        work: int | None = None,
    ):
        self.draw, self.observed, self.alternative = draw, observed, alternative
        self.work = work
        self.n = 0
        self.count = 0
        self.lo, self.hi = 0.0, 1.0
        self.blocks: list | None = [] if keep_null else None
        self._ahead = np.empty(0)  # permutations n, n + 1, ... drawn ahead of use

    def extend(self, size: int, ahead: int = 0) -> None:
        """Use permutations n .. n + size - 1; with `ahead` > size, draw up to n + ahead in
        the same call and keep the rest for later extends (one kernel call instead of many:
        permutation b always comes from stream b, so the results do not change)."""
        if len(self._ahead) < size:
            more = max(size, ahead) - len(self._ahead)
            fresh = np.asarray(self.draw(self.n + len(self._ahead), more), dtype=np.float64)
            self._ahead = np.concatenate([self._ahead, fresh])
        null, self._ahead = self._ahead[:size], self._ahead[size:]
        _, count = monte_carlo_pvalue(null, self.observed, self.alternative)
        self.count += int(count)
        self.n += size
        if self.blocks is not None:
            self.blocks.append(null)

    def narrow(self, delta: float) -> None:
        """Intersect the running interval with Robbins' interval at the current n."""
        lo, hi = robbins_interval(self.count, self.n, delta)
        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)

    @property
    def pvalue(self) -> float:
        return (self.count + 1.0) / (self.n + 1.0)

    def null(self) -> np.ndarray | None:
        if self.blocks is None:
            return None
        return np.concatenate(self.blocks) if self.blocks else np.empty(0)


def rejected(p: np.ndarray, alpha: float, procedure: str) -> np.ndarray:
    """Which hypotheses `procedure` rejects at family level alpha, given p-values p."""
    p = np.asarray(p, dtype=np.float64)
    m = p.size
    if procedure == "none" or m == 1:
        return p <= alpha
    if procedure == "bonferroni":
        return p <= alpha / m
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    out = np.zeros(m, dtype=bool)
    if procedure == "holm":
        ok = ranked <= alpha / (m - np.arange(m))
        k = m if ok.all() else int(np.argmin(ok))
        out[order[:k]] = True
        return out
    if procedure == "bh":
        ok = np.flatnonzero(ranked <= alpha * np.arange(1, m + 1) / m)
        if ok.size:
            out[order[: ok[-1] + 1]] = True
        return out
    raise ValueError(f"adjust must be one of {PROCEDURES}, got {procedure!r}")


def adjusted_estimates(p: np.ndarray, procedure: str) -> np.ndarray:
    """Adjusted p-values of the point estimates (Holm, Bonferroni, BH or none)."""
    return adjust_pvalues(np.asarray(p, dtype=np.float64), procedure)


def _thresholds(alpha: float, m: int, procedure: str) -> tuple[float, float]:
    """(largest, smallest) level a hypothesis can be compared with under `procedure`."""
    if procedure == "none" or m == 1:
        return alpha, alpha
    if procedure == "bonferroni":
        return alpha / m, alpha / m
    return alpha, alpha / m


def _next_block(s: Sampler, delta: float, t_hi: float, t_lo: float, cap: int) -> tuple[int, int]:
    """(size, ahead): permutations to use next, and to draw now. size: no fewer than the
    earliest n at which the interval could leave [t_lo, t_hi] (all new draws below, or all
    above, the observed statistic), and at least an eighth of those drawn so far. ahead:
    with no exceedance yet, up to the end of the block at which the interval would lie below
    t_hi if none follows, where a p-value near 0 stops (one kernel call instead of a dozen
    growing blocks). Both depend on the counts only."""
    size = _block_size(s.n, s.count, delta, t_hi, t_lo, cap)
    if s.count or not s.n:
        return size, size
    level = math.log(delta)
    end = s.n + size
    while end < cap and not (0 < t_hi * end and _log_mixture1(end, 0, t_hi) <= level):
        end += _block_size(end, 0, delta, t_hi, t_lo, cap)
    return size, max(size, end - s.n)


def _block_size(n: int, c: int, delta: float, t_hi: float, t_lo: float, cap: int) -> int:
    """`_next_block`'s size after n permutations with c exceedances."""
    level = math.log(delta)
    limit = max(cap, n + 1)

    def below(m):  # m permutations, no new exceedance: the interval lies below t_hi
        return c < t_hi * m and _log_mixture1(m, c, t_hi) <= level

    def above(m):  # every new permutation an exceedance: the interval lies above t_lo
        k = c + m - n
        return k > t_lo * m and _log_mixture1(m, k, t_lo) <= level

    earliest = min(_first(below, n, limit), _first(above, n, limit))
    size = max(earliest - n, n // 8, FIRST_BLOCK if n == 0 else 1)
    return int(max(1, min(size, cap - n)))


def default_cap(options: Sequential, m: int, procedure: str, m_sampled: int | None = None) -> int:
    """The cap per hypothesis: `options.max_permutations`, else at least MIN_CAP and ten
    times what rejecting at the smallest adjusted level (of m hypotheses) needs with no
    exceedance, at the level of each of the m_sampled (default m) Monte-Carlo intervals."""
    if options.max_permutations is not None:
        return int(options.max_permutations)
    delta = _interval_level(options.epsilon, m if m_sampled is None else m_sampled, procedure)
    _, t_lo = _thresholds(options.alpha, m, procedure)
    return max(MIN_CAP, 10 * _zero_count_length(t_lo, delta))


def _interval_level(epsilon: float, m_sampled: int, procedure: str) -> float:
    """Level of each Monte-Carlo p-value's confidence sequence: epsilon split over the
    m_sampled hypotheses with Monte-Carlo p-values (exact or asymptotic p-values are known:
    their intervals are points that always cover), so all cover at once with probability
    >= 1 - epsilon."""
    if procedure == "none":
        return epsilon
    return epsilon / max(1, m_sampled)


def _budget_cap(s: Sampler, cap: int, budget: int | None) -> int:
    """A sampler's cap: `cap`, raised to what `budget` sweep rows buy at the sampler's known
    cost per permutation (at most BUDGET_CAP)."""
    if budget is None or not s.work:
        return cap
    return max(cap, min(BUDGET_CAP, budget // int(s.work)))


def run(
    samplers: list,
    options: Sequential,
    procedure: str = "none",
    known: np.ndarray | None = None,
    on_round: Callable[[int, int], None] | None = None,
    budget: int | None = None,
) -> np.ndarray:
    """Extend `samplers` until `procedure` at options.alpha is decided for each of them.

    `samplers[k]` None means hypothesis k has the known p-value known[k] (exact or
    asymptotic): it takes part in the procedure and is never sampled. Returns the decisions
    (array of "reject", "retain", "undecided"); the samplers keep counts and intervals.
    `on_round(n_open, n_drawn)`, when given, is called before each round of draws and at
    the end (n_open 0) with the number of hypotheses still drawing permutations and the
    permutations drawn so far (all samplers). `budget` (sweep rows, with
    options.max_permutations None): a sampler of known cost may draw beyond the default cap
    up to what it buys (`_budget_cap`).
    """
    m = len(samplers)
    if procedure not in PROCEDURES:
        raise ValueError(f"adjust must be one of {PROCEDURES}, got {procedure!r}")
    m_sampled = sum(s is not None for s in samplers)
    delta = _interval_level(options.epsilon, m_sampled, procedure)
    cap = default_cap(options, m, procedure, m_sampled)
    if options.max_permutations is not None:
        budget = None
    caps = [0 if s is None else _budget_cap(s, cap, budget) for s in samplers]
    t_hi, t_lo = _thresholds(options.alpha, m, procedure)
    lo = np.zeros(m)
    hi = np.ones(m)
    if known is not None:
        fixed = np.array([s is None for s in samplers])
        lo[fixed] = hi[fixed] = np.asarray(known, dtype=np.float64)[fixed]
    for k, s in enumerate(samplers):
        if s is not None and s.n > 0:
            lo[k], hi[k] = s.lo, s.hi
    while True:
        sure = rejected(hi, options.alpha, procedure)
        possible = rejected(lo, options.alpha, procedure)
        active = [
            k
            for k in np.flatnonzero(possible & ~sure)
            if samplers[k] is not None and samplers[k].n < caps[k]
        ]
        if on_round is not None:
            on_round(len(active), sum(s.n for s in samplers if s is not None))
        if not active:
            break
        for k in active:
            s = samplers[k]
            s.extend(*_next_block(s, delta, t_hi, t_lo, caps[k]))
            s.narrow(delta)
            lo[k], hi[k] = s.lo, s.hi
    decision = np.where(sure, "reject", np.where(possible, "undecided", "retain"))
    return decision.astype(object)


# --------------------------------------------------------------------------------------
# A family of tests (MMCTest), e.g. every comparison of an audit
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class MultipleMonteCarloResult(ResultExport):
    """Result of :func:`multiple_monte_carlo`: one entry per comparison of the family.

    Attributes
    ----------
    source : list of tuple
        (index of the result in the input list, comparison index within it).
    pvalue : ndarray
        p-value of each comparison: (1 + S) / (1 + n) for Monte-Carlo ones, the exact or
        asymptotic p-value otherwise.
    pvalue_interval : tuple of ndarray
        Intervals that cover all Monte-Carlo p-values at once with probability
        >= 1 - epsilon (Robbins' confidence sequence at level epsilon / K, K the number of
        Monte-Carlo p-values).
    pvalue_adjusted : ndarray
        `adjust`-adjusted p-values of the point estimates.
    decision : ndarray of str
        "reject", "retain" or "undecided" under `adjust` at family level `alpha`.
    n_permutations : ndarray
        Permutations drawn per comparison (0 for exact or asymptotic p-values).
    """

    source: list
    pvalue: np.ndarray
    pvalue_interval: tuple
    pvalue_adjusted: np.ndarray
    decision: np.ndarray
    n_permutations: np.ndarray
    adjust: str
    alpha: float
    epsilon: float

    def __repr__(self) -> str:
        lo, hi = self.pvalue_interval
        rows = [
            (
                f"{i}/{c}",
                self.pvalue[k],
                lo[k],
                hi[k],
                self.pvalue_adjusted[k],
                int(self.n_permutations[k]),
                self.decision[k],
            )
            for k, (i, c) in enumerate(self.source)
        ]
        table = format_table(
            ["test/comparison", "pvalue", "low", "high", "adjusted", "permutations", "decision"],
            rows,
        )
        return (
            f"MultipleMonteCarloResult(adjust={self.adjust!r}, alpha={format_value(self.alpha)}"
            f", epsilon={format_value(self.epsilon)})\n{table}"
        )


def multiple_monte_carlo(
    results: Sequence[Any],
    *,
    adjust: str = "holm",
    alpha: float = 0.05,
    epsilon: float = 1e-3,
    max_permutations: int | None = None,
    progress: Callable[..., Any] | None = None,
) -> MultipleMonteCarloResult:
    """Decide a family of Monte-Carlo tests at once, drawing permutations only where needed.

    MMCTest (Gandy & Hahn 2014, 2016) with Robbins' confidence sequences (Ding, Gandy & Hahn
    2020): each Monte-Carlo p-value of the family gets an interval valid at level
    epsilon / K under optional stopping (K Monte-Carlo p-values; exact or asymptotic ones
    are known and need no interval); `adjust` applied to the upper ends gives the
    hypotheses it surely rejects, applied to the lower ends those it may reject; only the
    hypotheses in between draw more permutations (continuing each test's own random
    streams). With probability >= 1 - epsilon every decision equals the one `adjust` takes
    on the exact permutation p-values.

    Parameters
    ----------
    results : list
        Results of fastfair tests (permutation_test, auc_test, mean_difference_test,
        correlation_test, permutation_test with a callable metric), with sequential or
        fixed Monte-Carlo p-values, or exact/asymptotic ones (kept as they are), or plain
        floats (known p-values, e.g. of another kind of test). Every comparison of every
        result is one hypothesis.
    adjust : {"holm", "bonferroni", "bh", "none"}
        Procedure over the family (Benjamini-Hochberg controls the false discovery rate).
    alpha : float
        Family level.
    epsilon : float
        Bound on the probability that any decision differs from the exact-p-value one.
    max_permutations : int, optional
        Cap per comparison. None: the default cap of :class:`Sequential`, raised for a test
        whose cost per permutation is known (:func:`fastfair.auc_test`'s comparisons) to
        what `WORK_BUDGET` (10^9 sweep rows) buys, at most 10^6 permutations: near an
        adjusted level a cheap test resolves its p-value instead of stopping "undecided".
    progress : callable, optional
        A progress-bar factory called as ``progress(total=m, desc="adjustment")`` (e.g.
        ``tqdm.tqdm``); the returned bar's ``update(n)`` counts the hypotheses decided (or
        stopped at the cap) and its ``close()`` is called at the end.

    Returns
    -------
    MultipleMonteCarloResult

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 3000)
    >>> v1, v2 = rng.normal(0.15 * g), rng.normal(size=3000)
    >>> tests = [fastfair.mean_difference_test(v, g, random_state=1) for v in (v1, v2)]
    >>> fam = fastfair.multiple_monte_carlo(tests, adjust="holm")
    >>> fam.decision.tolist()
    ['reject', 'retain']
    """
    options = Sequential(alpha=alpha, epsilon=epsilon, max_permutations=max_permutations)
    if adjust not in PROCEDURES:
        raise ValueError(f"adjust must be one of {PROCEDURES}, got {adjust!r}")
    samplers, known, source = [], [], []
    for i, res in enumerate(results):
        if isinstance(res, (float, int, np.floating)) and not isinstance(res, bool):
            if not 0.0 <= res <= 1.0:  # NaN too
                raise ValueError(f"results[{i}] = {show_value(res)} is not a p-value in [0, 1]")
            samplers.append(None)
            known.append(float(res))
            source.append((i, 0))
            continue
        if not hasattr(res, "pvalue"):
            raise TypeError(f"results[{i}] is neither a fastfair test result nor a p-value")
        pv = np.atleast_1d(np.asarray(res.pvalue, dtype=np.float64))
        own = samplers_of(res) or [None] * pv.size
        if isinstance(own, str):  # LEFT_BEHIND
            raise ValueError(
                f"results[{i}] was pickled or copied: its Monte-Carlo permutations cannot be "
                "continued here; call multiple_monte_carlo where the test ran, or pass "
                "float(result.pvalue) to take its p-value as known"
            )
        for c in range(pv.size):
            samplers.append(own[c])
            known.append(pv[c])
            source.append((i, c))
    if not samplers:
        raise ValueError("results is empty")
    delta = _interval_level(epsilon, sum(s is not None for s in samplers), adjust)
    for s in samplers:
        if s is not None and s.n > 0:
            s.lo, s.hi = 0.0, 1.0  # intervals at the family's level, not the test's
            s.narrow(delta)
    known = np.array(known)
    m = len(samplers)
    decision = run(
        samplers, options, adjust, known, _round_counter(progress, m), budget=WORK_BUDGET
    )
    pvalue = np.array([known[k] if s is None else s.pvalue for k, s in enumerate(samplers)])
    lo = np.array([known[k] if s is None else s.lo for k, s in enumerate(samplers)])
    hi = np.array([known[k] if s is None else s.hi for k, s in enumerate(samplers)])
    n_used = np.array([0 if s is None else s.n for s in samplers], dtype=np.int64)
    return MultipleMonteCarloResult(
        source=source,
        pvalue=pvalue,
        pvalue_interval=(lo, hi),
        pvalue_adjusted=adjusted_estimates(pvalue, adjust),
        decision=decision,
        n_permutations=n_used,
        adjust=adjust,
        alpha=float(alpha),
        epsilon=float(epsilon),
    )


def _round_counter(progress, m: int) -> Callable[[int, int], None] | None:
    """`run`'s on_round callback driving a progress bar of the m hypotheses: each round
    advances it by the hypotheses that stopped drawing (never back: Holm may reopen one)
    and shows the permutations drawn (``set_postfix_str``, when the bar has it); the last
    call (0 open) closes it."""
    if progress is None:
        return None
    bar = progress(total=m, desc="adjustment")
    shown = [0]

    def on_round(n_open: int, n_drawn: int) -> None:
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(f"{n_drawn:,} permutations")
        done = max(shown[0], m - n_open)
        if done > shown[0]:
            bar.update(done - shown[0])
            shown[0] = done
        if n_open == 0:
            bar.close()

    return on_round


def summarize(samplers: list, decision: np.ndarray, single: bool):
    """(pvalue, interval, n_permutations, decision, null) in a result's layout."""
    p = np.array([s.pvalue for s in samplers])
    lo = np.array([s.lo for s in samplers])
    hi = np.array([s.hi for s in samplers])
    n = np.array([s.n for s in samplers], dtype=np.int64)
    nulls = [s.null() for s in samplers]
    if single:
        return float(p[0]), (float(lo[0]), float(hi[0])), int(n[0]), str(decision[0]), nulls[0]
    null = None if nulls[0] is None else _ragged_columns(nulls)
    return p, (lo, hi), n, np.asarray(decision, dtype=object), null


def monte_carlo_summary(samplers: list, fixed: int | None, decision, single: bool):
    """(pvalue_interval, n_permutations, decision, null_distribution) of Monte-Carlo
    p-values in a result's layout (floats for one comparison, arrays for several): Wilson
    95% intervals after a fixed number of permutations (`fixed`), else the sequential
    test's (:func:`summarize`)."""
    if fixed is None:
        _, interval, n_used, decision, null = summarize(samplers, decision, single)
        return interval, n_used, decision, null
    lo, hi = wilson_interval([s.count for s in samplers], fixed)
    nulls = [s.null() for s in samplers]
    null = None if nulls[0] is None else nulls[0] if single else np.column_stack(nulls)
    return ((float(lo[0]), float(hi[0])) if single else (lo, hi)), fixed, decision, null


def _ragged_columns(nulls: list) -> np.ndarray:
    """Permuted statistics of several comparisons as columns, NaN-padded to equal length."""
    length = max(len(x) for x in nulls)
    out = np.full((length, len(nulls)), np.nan)
    for c, x in enumerate(nulls):
        out[: len(x), c] = x
    return out


def draw_all(samplers: list, fixed: int | None, options: Sequential | None, procedure: str):
    """Draw `fixed` permutations for every sampler, or run the sequential procedure.

    Returns the decisions (sequential) or None (fixed count: today's p-values, bit for bit).
    """
    if fixed is not None:
        for s in samplers:
            s.extend(fixed)
        return None
    return run(samplers, options, procedure if len(samplers) > 1 else "none")


def monte_carlo_notes(pvalue_interval, sequential, decision, n_permutations) -> list[str]:
    """The lines a test result's repr ends with: the Monte-Carlo interval of each p-value
    (Wilson 95% for a fixed number of permutations, else the confidence sequence) and the
    summary of a sequential test (:func:`describe`)."""
    lines = []
    if pvalue_interval is not None:
        lo, hi = (np.atleast_1d(x) for x in pvalue_interval)
        spans = ", ".join(f"[{format_value(a)}, {format_value(b)}]" for a, b in zip(lo, hi))
        what = "95%" if sequential is None else "confidence-sequence"
        lines.append(f"  {what} Monte-Carlo interval of the p-value: {spans}")
    summary = describe(sequential, decision, n_permutations)
    if summary:
        lines.append(summary)
    return lines


def describe(options: Sequential | None, decision, n_permutations) -> str | None:
    """One repr line for a sequential result (None for a fixed number of permutations)."""
    if options is None or decision is None:
        return None
    dec = ", ".join(np.atleast_1d(decision).astype(str).tolist())
    used = ", ".join(str(int(x)) for x in np.atleast_1d(n_permutations))
    return (
        f"  sequential Monte Carlo (alpha={format_value(options.alpha)}, "
        f"epsilon={format_value(options.epsilon)}): decision {dec}; permutations {used}"
    )
