r"""Tolerance tests and equivalence tests of a fairness gap.

The sample-size paper (Singh & Chunara 2023, eq. 1) plans an audit for
:math:`H_0: U \le U_{tol}` against :math:`H_1: U > U_{tol}`; a permutation test cannot test it
(permuting makes the groups' rates equal, not ``U_tol`` apart). Here the gap is tested with the
margin tests of the clinical-trial literature:

* rate metrics: the Miettinen-Nurminen (1985) score test, i.e. Farrington-Manning (1990) with
  the variance factor :math:`N/(N-1)`: :math:`Z(d) = (\hat U - d)/\sqrt{\tilde V(d)}` with the
  maximum-likelihood rates restricted to :math:`U = d` in the variance (``method="score"``;
  ``"farrington-manning"`` without the factor; ``"wald"`` the plug-in variance of the paper's
  eq. 1, kept for comparison); with few events the exact unconditional test of Chan (1998),
  the tail probability of the same Z maximised over the nuisance rate (``method="exact"``;
  ``"auto"``, the default, uses it when a group has fewer than 10 events or non-events);
* AUC: MOVER (Zou & Donner 2008) from each group's logit-scale DeLong interval
  (``method="logit"``, the default), or :math:`Z = (\hat U - d)/\text{SE}_{DeLong}`
  (``"delong"``, liberal with 50-100 rows and AUCs far from 0.5);
* callables and row metrics (:func:`fastfair.permutation_test`'s generic metrics): the
  bootstrap (or, for row metrics, Welch) standard error.

An equivalence test (two one-sided tests, TOST; Schuirmann 1987) shows
:math:`|U| < \delta`: it rejects :math:`H_0: |U| \ge \delta` when both
:math:`U \le -\delta` and :math:`U \ge \delta` are rejected at level alpha, which is the same
as the :math:`1 - 2\alpha` interval lying inside :math:`(-\delta, \delta)`. All three
(interval, tolerance test, equivalence test) invert the same statistic, so they never
disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair import _counts
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._confusion import check_counts, coerce_rows
from fastfair._metrics import get_metric
from fastfair._pvalues import adjust_pvalues
from fastfair._results import format_interval, format_table
from fastfair._scipy import special
from fastfair._score import kish_counts, score_bound, score_statistic
from fastfair._unconditional import check_size, exact_bound, exact_pvalue
from fastfair._validation import check_choice, check_level

__all__ = [
    "EquivalenceTestResult",
    "ToleranceTestResult",
    "equivalence_test",
    "equivalence_test_from_counts",
    "tolerance_test",
    "tolerance_test_from_counts",
]

RATE_METHODS = ("auto", "score", "exact", "farrington-manning", "wald")
#: method="auto" tests a comparison exactly when a group has fewer events or non-events
#: than this, and the enumeration has at most AUTO_MAX_OUTCOMES outcomes (~0.1 s a test).
EXACT_BELOW = 10
AUTO_MAX_OUTCOMES = 100_000
ALTERNATIVES = ("two-sided", "greater", "less")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Bisection of the logit MOVER level: z in [-_Z_MAX, _Z_MAX] to 2 * _Z_MAX / 2^48 (3e-13).
_Z_MAX = 40.0
_BISECTION_STEPS = 48


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass(repr=False)
class ToleranceTestResult:
    """Result of :func:`tolerance_test`.

    With two groups the per-comparison fields are floats; with more, arrays with one entry
    per comparison in `comparisons`.

    Attributes
    ----------
    statistic : float or ndarray
        :math:`Z = (\\hat U - d)/\\text{SE}(d)` at the boundary ``d = u_tol`` (``"greater"``)
        or ``d = -u_tol`` (``"less"``); for ``"two-sided"``, of the side with the smaller
        p-value.
    pvalue : float or ndarray
        p-value of :math:`H_0` (not adjusted for multiplicity).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values (`adjust`) with more than one comparison.
    difference : float or ndarray
        Estimated gap :math:`\\hat U`: metric of the group minus that of the reference.
    confidence_interval : tuple
        Two-sided interval of :math:`U` at `confidence_level`, from the same statistic.
    u_tol : float
        Tolerated gap.
    alternative : str
        ``"two-sided"``: :math:`H_1: |U| > u_{tol}`; ``"greater"``: :math:`U > u_{tol}`;
        ``"less"``: :math:`U < -u_{tol}`.
    method : str
        ``"score"`` (Miettinen-Nurminen), ``"exact"`` (Chan 1998), ``"score/exact"`` (both,
        by comparison), ``"farrington-manning"``, ``"wald"``, ``"logit"`` or ``"delong"``
        (AUC), ``"bootstrap"`` or ``"welch"`` (generic metrics).
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    difference: float | np.ndarray
    confidence_interval: tuple
    u_tol: float
    alternative: str
    metric: str
    method: str
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    confidence_level: float = 0.95
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    weighted: bool = False

    def __repr__(self) -> str:
        h1 = {
            "two-sided": f"|U| > {self.u_tol:g}",
            "greater": f"U > {self.u_tol:g}",
            "less": f"U < {-self.u_tol:g}",
        }[self.alternative]
        head = (
            f"ToleranceTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"H1: {h1}, U = group - reference)"
        )
        return "\n".join(
            [
                head,
                _group_table(self),
                _comparison_table(
                    self,
                    self.confidence_interval,
                    f"{100 * self.confidence_level:g}% CI",
                    ["statistic", "pvalue"],
                    lambda c: [_pick(self.statistic, c), _pick(self.pvalue, c)],
                ),
            ]
        )


@dataclass(repr=False)
class EquivalenceTestResult:
    """Result of :func:`equivalence_test`.

    Attributes
    ----------
    equivalent : bool or ndarray
        Whether :math:`|U| < \\delta` is shown at level `alpha` (with the adjusted p-value
        when there are several comparisons).
    pvalue : float or ndarray
        TOST p-value, the larger of the two one-sided p-values (not adjusted).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values with more than one comparison.
    statistic : tuple
        (Z at :math:`-\\delta`, Z at :math:`+\\delta`): the first must exceed
        :math:`z_{1-\\alpha}` and the second be below :math:`-z_{1-\\alpha}`.
    difference : float or ndarray
        Estimated gap :math:`\\hat U` (group minus reference).
    equivalence_interval : tuple
        The :math:`1 - 2\\alpha` interval of :math:`U`; equivalence is shown (before
        multiplicity adjustment) exactly when it lies inside :math:`(-\\delta, \\delta)`.
    delta, alpha : float
        Equivalence margin and level.
    """

    equivalent: bool | np.ndarray
    pvalue: float | np.ndarray
    statistic: tuple
    difference: float | np.ndarray
    equivalence_interval: tuple
    delta: float
    alpha: float
    metric: str
    method: str
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    weighted: bool = False

    def __repr__(self) -> str:
        head = (
            f"EquivalenceTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"H1: |U| < {self.delta:g}, alpha={self.alpha:g}, U = group - reference)"
        )
        level = f"{100 * (1 - 2 * self.alpha):g}% CI"

        def extra(c):
            verdict = "yes" if bool(np.atleast_1d(self.equivalent)[c]) else "no"
            return [_pick(self.pvalue, c), verdict]

        return "\n".join(
            [
                head,
                _group_table(self),
                _comparison_table(
                    self, self.equivalence_interval, level, ["pvalue", "equivalent"], extra
                ),
            ]
        )


def _pick(value, c):
    return np.atleast_1d(value)[c]


def _group_table(res) -> str:
    dens = (
        res.group_denominators
        if res.weighted
        else np.asarray(res.group_denominators).astype(np.int64)
    )
    rows = [(str(g), res.group_values[k], dens[k]) for k, g in enumerate(res.groups)]
    return format_table(["group", res.metric, "denominator"], rows)


def _comparison_table(res, interval, level, names, extra) -> str:
    headers = ["comparison", "difference", level, *names]
    if res.pvalue_adjusted is not None:
        headers.append(f"adjusted ({res.adjust})")
    rows = []
    n_c = len(res.comparisons)
    for c, (a, b) in enumerate(res.comparisons):
        row = [f"{a} - {b}", _pick(res.difference, c), format_interval(interval, c, 0, n_c)]
        row += extra(c)
        if res.pvalue_adjusted is not None:
            row.append(res.pvalue_adjusted[c])
        rows.append(row)
    return format_table(headers, rows)


# --------------------------------------------------------------------------------------
# Estimates: per-comparison gap and a statistic Z(d)
# --------------------------------------------------------------------------------------


@dataclass
class _Gap:
    """Per-comparison estimates and the statistic Z(d) of H0: U = d."""

    difference: np.ndarray
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    metric: str
    method: str
    weighted: bool
    counts: tuple | None = None  # (x_a, n_a, x_b, n_b) for rate metrics
    se: np.ndarray | None = None  # standard error of Wald-type methods
    exact: np.ndarray | None = None  # comparisons tested by the exact unconditional test
    auc_parts: tuple | None = None  # (A_a, V_a, A_b, V_b) of the logit MOVER test of AUC

    def z(self, d):
        """Z(d) for each comparison (d broadcasts against the comparisons)."""
        if self.counts is not None and self.method != "wald":
            return score_statistic(*self.counts, d, correction=self.method != "farrington-manning")
        if self.auc_parts is not None:
            return auc_margin_statistic(*self.auc_parts, d)
        with np.errstate(divide="ignore", invalid="ignore"):
            num = self.difference - d
            return np.where(num == 0, 0.0, num / self.se)

    def pvalue(self, d, side):
        """One-sided p-values of H0: U <= d (`side` "greater") or U >= d ("less")."""
        z = np.atleast_1d(self.z(d))
        p = special.ndtr(-z) if side == "greater" else special.ndtr(z)
        for c in np.flatnonzero(self.exact) if self.exact is not None else ():
            p[c] = exact_pvalue(*(v[c] for v in self.counts), d, side)
        return p

    def bound(self, z, side):
        """d with Z(d) = z (lower) or Z(d) = -z (upper); the exact test's at level Phi(-z)."""
        if self.counts is not None and self.method != "wald":
            out = np.atleast_1d(
                score_bound(*self.counts, z, side, correction=self.method != "farrington-manning")
            )
            for c in np.flatnonzero(self.exact) if self.exact is not None else ():
                out[c] = exact_bound(*(v[c] for v in self.counts), special.ndtr(-z), side)
            return out
        if self.auc_parts is not None:
            return _mover_bound(*self.auc_parts, z if side == "lower" else -z)
        return self.difference - z * self.se if side == "lower" else self.difference + z * self.se


def _rate_gap(w, w2, labels, weighted, metric, method, reference, comparisons) -> _Gap:
    spec_metric = get_metric(metric)
    if spec_metric.n_parts > 1:
        raise ValueError(
            "equalized_odds combines two gaps; test metric='tpr' and metric='fpr' separately"
        )
    pairs = comparison_pairs(w.sum(axis=1), labels, reference, comparisons)
    check_rates_defined(spec_metric, w, labels, pairs)
    num, den = (v[:, 0] for v in spec_metric.rates(w))
    values = num / den
    if weighted:
        x, n = kish_counts(values, den, spec_metric.rates(w2)[1][:, 0])
    else:
        x, n = num, den
    a, b = pairs[:, 0], pairs[:, 1]
    gap = _Gap(
        difference=values[a] - values[b],
        groups=labels,
        group_values=values,
        group_denominators=den,
        comparisons=[(labels.tolist()[i], labels.tolist()[j]) for i, j in pairs],
        metric=spec_metric.name,
        method=method,
        weighted=weighted,
        counts=(x[a], n[a], x[b], n[b]),
    )
    if method in ("auto", "exact"):
        _choose_exact(gap, method)
    if method == "wald":
        p_a, p_b = x[a] / n[a], x[b] / n[b]
        se = np.sqrt(p_a * (1 - p_a) / n[a] + p_b * (1 - p_b) / n[b])
        # a zero plug-in variance (both rates 0 or 1) uses half a pseudo-observation, as the
        # permutation test's unpooled statistic does, so Z stays finite
        shrunk = np.sqrt(
            sum(
                q * (1 - q) / m
                for q, m in (((x[a] + 0.5) / (n[a] + 1), n[a]), ((x[b] + 0.5) / (n[b] + 1), n[b]))
            )
        )
        gap.se = np.where(se > 0, se, shrunk)
    return gap


def _logit_limits(auc, var, z):
    """Ends of the interval expit(logit(A) -+ z SE / (A (1 - A))) of one group's AUC."""
    centre = special.logit(auc)
    half = z * np.sqrt(var) / (auc * (1.0 - auc))
    return special.expit(centre - half), special.expit(centre + half)


def auc_margin_statistic(auc_a, var_a, auc_b, var_b, d):
    r"""Signed level z* of the logit MOVER test of :math:`H_0: U \le d`, U = AUC_A - AUC_B.

    MOVER (Zou & Donner 2008) combines each group's logit-scale interval (l, u) into
    :math:`L(z) = D - \sqrt{(A_A - l_A)^2 + (u_B - A_B)^2}` and
    :math:`U(z) = D + \sqrt{(u_A - A_A)^2 + (A_B - l_B)^2}`, D = A_A - A_B. z* solves
    L(z*) = d (z* >= 0) or U(-z*) = d (z* < 0), so the p-value of H0: U <= d is
    Phi(-z*) and that of H0: U >= d is Phi(z*); the interval of level 1 - 2 alpha is
    [L, U] at z = z_{1 - alpha}. AUCs must lie in (0, 1) (shrink them first).
    """
    auc_a, var_a, auc_b, var_b, d = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (auc_a, var_a, auc_b, var_b, d))
    )
    diff = auc_a - auc_b
    lo, hi = np.full(diff.shape, -_Z_MAX), np.full(diff.shape, _Z_MAX)
    for _ in range(_BISECTION_STEPS):  # g(z) = L(z) (z >= 0) or U(-z) (z < 0) decreases in z
        mid = 0.5 * (lo + hi)
        g = _mover_bound(auc_a, var_a, auc_b, var_b, mid)
        lo, hi = np.where(g > d, mid, lo), np.where(g > d, hi, mid)
    z = 0.5 * (lo + hi)
    return np.where(diff == d, 0.0, z)


def _logit_parts(res) -> tuple:
    """(A_a, V_a, A_b, V_b) per comparison of an AUCTestResult, each AUC in (0, 1).

    An AUC of 0 or 1 is shrunk by half a pseudo-pair, A' = (A n+ n- + 1/2) / (n+ n- + 1),
    and a zero DeLong variance replaced by A'(1 - A') / (n+ n-), as auc_test does.
    """
    pairs = res.group_n_pos * res.group_n_neg
    auc = np.where((res.group_auc > 0) & (res.group_auc < 1), res.group_auc,
                   (res.group_auc * pairs + 0.5) / (pairs + 1))  # fmt: skip
    var = np.where(res.group_variance > 0, res.group_variance, auc * (1 - auc) / pairs)
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    a = np.array([index[c[0]] for c in res.comparisons])
    b = np.array([index[c[1]] for c in res.comparisons])
    return auc[a], var[a], auc[b], var[b]


def _mover_bound(auc_a, var_a, auc_b, var_b, z):
    """L(z) for z >= 0 and U(-z) for z < 0 (see auc_margin_statistic)."""
    la, ua = _logit_limits(auc_a, var_a, np.abs(z))
    lb, ub = _logit_limits(auc_b, var_b, np.abs(z))
    diff = auc_a - auc_b
    low = diff - np.sqrt((auc_a - la) ** 2 + (ub - auc_b) ** 2)
    high = diff + np.sqrt((ua - auc_a) ** 2 + (auc_b - lb) ** 2)
    return np.where(z >= 0, low, high)


def _choose_exact(gap: _Gap, method: str) -> None:
    """Set which comparisons the exact unconditional test handles, and the method's name.

    ``"auto"``: those with fewer than EXACT_BELOW events or non-events in either group
    (where the score test's level can reach 0.12 at alpha 0.05), unweighted, and at most
    AUTO_MAX_OUTCOMES outcomes to enumerate; ``"exact"``: all (unweighted, at most
    MAX_OUTCOMES outcomes).
    """
    xa, na, xb, nb = gap.counts
    if method == "exact":
        if gap.weighted:
            raise ValueError(
                "method='exact' enumerates integer counts; weighted rates are tested with "
                "method='score' (Kish effective sizes)"
            )
        for c in range(len(na)):
            check_size(int(na[c]), int(nb[c]))
        exact = np.ones(len(na), dtype=bool)
    else:
        small = np.minimum.reduce([xa, na - xa, xb, nb - xb]) < EXACT_BELOW
        exact = small & ((na + 1) * (nb + 1) <= AUTO_MAX_OUTCOMES) & (not gap.weighted)
    gap.exact = exact
    gap.method = "exact" if exact.all() else "score/exact" if exact.any() else "score"


def _gap_from_rows(
    y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
    data, n_bootstrap, random_state, vectorized,
) -> _Gap:  # fmt: skip
    check_choice(comparisons, "comparisons", ("reference", "all"))
    from fastfair import resampling  # lazy, as in permutation_test
    from fastfair.auc import auc_test

    if isinstance(metric, str) and metric.lower() == "auc":
        if method not in ("auto", "logit", "delong"):
            raise ValueError(
                f"metric='auc' is tested with method='logit' or 'delong', got {method!r}"
            )
        res = auc_test(
            y_true, y_pred, group, method="delong", reference=reference, comparisons=comparisons,
            adjust="none", sample_weight=sample_weight, pos_label=pos_label, data=data,
        )  # fmt: skip
        lo, hi = (np.atleast_1d(v) for v in res.confidence_interval)
        se = (hi - lo) / (2 * special.ndtri(0.5 + res.confidence_level / 2))
        gap = _Gap(
            difference=np.atleast_1d(res.difference),
            groups=res.groups,
            group_values=res.group_auc,
            group_denominators=res.group_n_pos + res.group_n_neg,
            comparisons=res.comparisons,
            metric="auc",
            method="delong" if method == "delong" else "logit",
            weighted=sample_weight is not None,
            se=se,
        )
        if gap.method == "logit":
            gap.auc_parts = _logit_parts(res)
        return gap
    if callable(metric) or resampling.is_row_metric(metric):
        if method not in ("auto", "bootstrap", "welch"):
            raise ValueError(
                f"a callable or row metric is tested with method='bootstrap' (or 'welch' for "
                f"row metrics), got {method!r}"
            )
        row = not callable(metric)
        mode = "welch" if row and method != "bootstrap" else "bootstrap-fast"
        res = resampling.permutation_test_rows(
            y_true, y_pred, group, metric=metric, studentize=mode, method="asymptotic",
            reference=reference, comparisons=comparisons, adjust="none",
            sample_weight=sample_weight, data=data, random_state=random_state,
            n_bootstrap=n_bootstrap, vectorized=vectorized,
        )  # fmt: skip
        return _Gap(
            difference=np.atleast_1d(res.difference),
            groups=res.groups,
            group_values=res.group_values,
            group_denominators=res.group_denominators,
            comparisons=res.comparisons,
            metric=res.metric,
            method="welch" if mode == "welch" else "bootstrap",
            weighted=res.weighted,
            se=np.atleast_1d(res.standard_error),
        )
    check_choice(method, "method", RATE_METHODS)
    y, yhat, weights, codes, labels, _ = coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data
    )
    cell = (2 * y + yhat).astype(np.uint8)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights)
    return _rate_gap(w, w2, labels, weights is not None, metric, method, reference, comparisons)


def _gap_from_counts(counts, groups, metric, method, reference, comparisons) -> _Gap:
    check_choice(comparisons, "comparisons", ("reference", "all"))
    w, labels = check_counts(counts, groups)
    check_choice(method, "method", RATE_METHODS)
    return _rate_gap(w, w, labels, False, metric, method, reference, comparisons)


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------


def _tolerance_pvalues(gap: _Gap, u_tol, alternative):
    """(statistic, p-value) per comparison of the tolerance test."""
    z_up = np.atleast_1d(gap.z(u_tol))  # H0: U <= u_tol
    z_low = np.atleast_1d(gap.z(-u_tol))  # H0: U >= -u_tol
    if alternative == "greater":
        return z_up, gap.pvalue(u_tol, "greater")
    if alternative == "less":
        return z_low, gap.pvalue(-u_tol, "less")
    p_up, p_low = gap.pvalue(u_tol, "greater"), gap.pvalue(-u_tol, "less")
    stat = np.where(p_up <= p_low, z_up, z_low)
    return stat, np.minimum(1.0, 2.0 * np.minimum(p_up, p_low))


def _equivalence_pvalues(gap: _Gap, delta):
    """((Z at -delta, Z at +delta), TOST p-value) per comparison."""
    z_low = np.atleast_1d(gap.z(-delta))  # H0: U <= -delta, rejected when large
    z_up = np.atleast_1d(gap.z(delta))  # H0: U >= delta, rejected when small
    p = np.maximum(gap.pvalue(-delta, "greater"), gap.pvalue(delta, "less"))
    return (z_low, z_up), p


def margin_pvalue_from_counts(counts, metric: str, *, u_tol=None, delta=None) -> float:
    """p-value of the two-sided tolerance test (`u_tol`) or of TOST (`delta`) of group 0
    against the reference group 1 of two rows of counts, without the interval (the audit's
    per-comparison p-values; method "auto")."""
    gap = _gap_from_counts(counts, [0, 1], metric, "auto", 1, "reference")
    if delta is None:
        return float(_tolerance_pvalues(gap, u_tol, "two-sided")[1][0])
    return float(_equivalence_pvalues(gap, delta)[1][0])


def _tolerance(gap: _Gap, u_tol, alternative, adjust, confidence_level) -> ToleranceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    confidence_level = _check_common(alternative, adjust, confidence_level, "confidence_level")
    u_tol = _check_margin(u_tol, "u_tol", False, gap)
    stat, p = _tolerance_pvalues(gap, u_tol, alternative)
    zc = special.ndtri(0.5 + confidence_level / 2)
    lo, hi = gap.bound(zc, "lower"), gap.bound(zc, "upper")
    single = len(gap.comparisons) == 1
    adjusted = None if single else adjust_pvalues(p, adjust)
    return ToleranceTestResult(
        statistic=float(stat[0]) if single else stat,
        pvalue=float(p[0]) if single else p,
        difference=float(gap.difference[0]) if single else gap.difference,
        confidence_interval=(float(lo[0]), float(hi[0])) if single else (lo, hi),
        u_tol=float(u_tol),
        alternative=alternative,
        metric=gap.metric,
        method=gap.method,
        groups=gap.groups,
        group_values=gap.group_values,
        group_denominators=gap.group_denominators,
        comparisons=gap.comparisons,
        confidence_level=float(confidence_level),
        pvalue_adjusted=adjusted,
        adjust=None if single else adjust,
        weighted=gap.weighted,
    )


def _equivalence(gap: _Gap, delta, alpha, adjust) -> EquivalenceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    alpha = _check_common(None, adjust, alpha, "alpha")
    if alpha >= 0.5:
        raise ValueError(f"alpha must be below 0.5 for a 1 - 2 alpha interval, got {alpha!r}")
    delta = _check_margin(delta, "delta", True, gap)
    (z_low, z_up), p = _equivalence_pvalues(gap, delta)
    zc = special.ndtri(1 - alpha)
    lo, hi = gap.bound(zc, "lower"), gap.bound(zc, "upper")
    single = len(gap.comparisons) == 1
    adjusted = None if single else adjust_pvalues(p, adjust)
    equivalent = (p if single else adjusted) <= alpha
    return EquivalenceTestResult(
        equivalent=bool(equivalent[0]) if single else equivalent,
        pvalue=float(p[0]) if single else p,
        statistic=(float(z_low[0]), float(z_up[0])) if single else (z_low, z_up),
        difference=float(gap.difference[0]) if single else gap.difference,
        equivalence_interval=(float(lo[0]), float(hi[0])) if single else (lo, hi),
        delta=float(delta),
        alpha=float(alpha),
        metric=gap.metric,
        method=gap.method,
        groups=gap.groups,
        group_values=gap.group_values,
        group_denominators=gap.group_denominators,
        comparisons=gap.comparisons,
        pvalue_adjusted=adjusted,
        adjust=None if single else adjust,
        weighted=gap.weighted,
    )


def _check_margin(value, name: str, positive: bool, gap: _Gap) -> float:
    """u_tol >= 0 or delta > 0; below 1 for rates and AUC (differences of probabilities)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.floating, np.integer)
    ):
        raise TypeError(f"{name} must be a number, got {value!r}")
    v = float(value)
    bounded = gap.counts is not None or gap.metric == "auc"
    if not np.isfinite(v) or v < 0 or (positive and v == 0) or (bounded and v >= 1):
        need = ">= 0" if not positive else "> 0"
        need += " and < 1 (a gap between two probabilities)" if bounded else " and finite"
        raise ValueError(f"{name} must be {need}, got {value!r}")
    return v


def _check_common(alternative, adjust, level, level_name):
    """Options shared by the tests (`comparisons` is checked before the data)."""
    if alternative is not None:
        check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(adjust, "adjust", ADJUSTMENTS)
    return check_level(level, level_name)


def tolerance_test(
    y_true,
    y_pred,
    group,
    *,
    metric="tpr",
    u_tol: float = 0.0,
    alternative: str = "two-sided",
    method: str = "auto",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    sample_weight=None,
    pos_label=None,
    data=None,
    n_bootstrap: int = 1000,
    random_state=None,
    vectorized: bool = False,
) -> ToleranceTestResult:
    r"""Test whether a fairness gap exceeds a tolerance: :math:`H_0: U \le u_{tol}`.

    :math:`U` is the metric of a group minus that of the reference group. The statistic is
    :math:`Z = (\hat U - d)/\text{SE}(d)` at the boundary of the null, referred to N(0, 1):

    * rate metrics (``method="score"``): Miettinen & Nurminen (1985),
      :math:`\text{SE}(d)^2 = \tfrac{N}{N-1}\big(\tilde p_A(1-\tilde p_A)/n_A +
      \tilde p_B(1-\tilde p_B)/n_B\big)` with the rates :math:`\tilde p` fitted by maximum
      likelihood under :math:`U = d`, n the denominators (e.g. positives for TPR) and
      N their sum. ``"farrington-manning"`` omits :math:`N/(N-1)`; ``"wald"`` is the
      plug-in variance of the sample-size paper's eq. 1 (liberal with small groups or rates
      near 0 or 1; kept for comparison). Weighted rates use Kish effective sizes.
      ``"exact"``: Chan's (1998) exact unconditional test, the p-value
      :math:`\sup_{p_B} P(Z(d) \ge z_{obs})` over the boundary :math:`p_A - p_B = d`
      (enumerating the :math:`(n_A+1)(n_B+1)` outcomes; its interval inverts it).
      ``"auto"``: exact where a group has fewer than 10 events or non-events and
      :math:`(n_A+1)(n_B+1) \le 10^5`, score elsewhere;
    * ``metric="auc"`` (`y_pred` are scores): ``"logit"`` combines each group's interval
      :math:`\text{expit}(\text{logit} A \pm z\,\text{SE}/(A(1-A)))` by MOVER,
      :math:`L = \hat U - \sqrt{(A_A - l_A)^2 + (u_B - A_B)^2}`, z* solving L = d;
      ``"delong"``: :math:`Z = (\hat U - d)/\text{SE}_{DeLong}`;
    * a callable or row metric: the SD of `n_bootstrap` bootstrap differences
      (``"bootstrap"``), or for row metrics by default Welch's standard error.

    With ``u_tol=0`` and ``alternative="two-sided"`` this is an asymptotic test of equal
    metrics; the permutation tests of :func:`fastfair.permutation_test` are exact there.

    Parameters
    ----------
    y_true, y_pred, group
        As in :func:`fastfair.permutation_test` (scores for ``metric="auc"``).
    metric : str or callable
        A rate metric of :func:`fastfair.permutation_test` (not ``"equalized_odds"``: test
        ``"tpr"`` and ``"fpr"``), ``"auc"``, a row metric or a callable.
    u_tol : float
        Tolerated gap (>= 0).
    alternative : {"two-sided", "greater", "less"}
        ``"two-sided"``: :math:`H_1: |U| > u_{tol}` (p-value twice the smaller one-sided
        one; the upper half of a two-sided test, the planner's ``"two-sided"`` convention);
        ``"greater"``: :math:`H_1: U > u_{tol}`; ``"less"``: :math:`H_1: U < -u_{tol}`.
    method : str
        One of "auto", "score", "exact", "farrington-manning", "wald" (rates), "logit",
        "delong" (AUC), "bootstrap", "welch" (generic metrics). ``"auto"``: score or exact
        for rates (see above), logit MOVER for AUC, Welch for row metrics, bootstrap for
        callables.
    reference, comparisons
        As in :func:`fastfair.permutation_test`: every group against the reference (the
        largest group by default), or all pairs.
    adjust : {"holm", "bonferroni", "none"}
        Family-wise adjustment with more than one comparison.
    confidence_level : float
        Level of the two-sided `confidence_interval` (the inverted score test).
    sample_weight, pos_label, data
        As in :func:`fastfair.permutation_test`.
    n_bootstrap, random_state, vectorized
        Bootstrap of a callable metric.

    Returns
    -------
    ToleranceTestResult

    Notes
    -----
    The level at the boundary :math:`U = u_{tol}` was computed exactly over denominators
    10-1000 and rates 0.01-0.99 (``validation/results/tolerance_level.txt``, docs
    "tolerance"): one-sided level 0.047 on average for the score test (at most 0.060 with
    300 or more rows in both denominators, 0.052 with 1000), but up to 0.12 with 10-100 rows
    and a handful of events; the Wald test reaches 0.90 on the same grid. The exact test's
    level is at most alpha everywhere (by construction, and on that grid).

    Examples
    --------
    >>> import fastfair
    >>> counts = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP per group
    >>> res = fastfair.tolerance_test_from_counts(counts, ["a", "b"], metric="tpr",
    ...                                           u_tol=0.02)
    >>> res.comparisons, round(res.difference, 3), round(res.pvalue, 4)
    ([('b', 'a')], -0.164, 0.0009)
    """
    gap = _gap_from_rows(
        y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
        data, n_bootstrap, random_state, vectorized,
    )  # fmt: skip
    return _tolerance(gap, u_tol, alternative, adjust, confidence_level)


def tolerance_test_from_counts(
    counts,
    groups=None,
    *,
    metric: str = "tpr",
    u_tol: float = 0.0,
    alternative: str = "two-sided",
    method: str = "auto",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    confidence_level: float = 0.95,
) -> ToleranceTestResult:
    """:func:`tolerance_test` of a rate metric on confusion-matrix counts (TN, FP, FN, TP).

    Parameters
    ----------
    counts : array-like of shape (n_groups, 4)
        Counts per group in the order TN, FP, FN, TP.
    groups : array-like of shape (n_groups,), optional
        Group labels (default 0..n_groups-1).
    metric : str
        A rate metric (e.g. ``"tpr"``, ``"fpr"``, ``"selection_rate"``).
    method : {"score", "farrington-manning", "wald"}
        Standard error at the boundary of the null, as in :func:`tolerance_test`.
    reference, comparisons, adjust
        As in :func:`tolerance_test`.
    u_tol, alternative, confidence_level
        As in :func:`tolerance_test`.

    Returns
    -------
    ToleranceTestResult
        As :func:`tolerance_test` returns it.

    Examples
    --------
    >>> import fastfair
    >>> res = fastfair.tolerance_test_from_counts([[500, 40, 30, 170], [450, 60, 55, 120]],
    ...                                           metric="fpr", u_tol=0.01)
    >>> round(res.difference, 4), round(res.pvalue, 3)
    (0.0436, 0.063)
    """
    gap = _gap_from_counts(counts, groups, metric, method, reference, comparisons)
    return _tolerance(gap, u_tol, alternative, adjust, confidence_level)


def equivalence_test(
    y_true,
    y_pred,
    group,
    *,
    metric="tpr",
    delta: float,
    alpha: float = 0.05,
    method: str = "auto",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
    sample_weight=None,
    pos_label=None,
    data=None,
    n_bootstrap: int = 1000,
    random_state=None,
    vectorized: bool = False,
) -> EquivalenceTestResult:
    r"""Test whether a fairness gap is within a margin: :math:`H_1: |U| < \delta`.

    Two one-sided tests (TOST) with the statistic of :func:`tolerance_test`: equivalence is
    shown at level `alpha` when :math:`H_0: U \le -\delta` and :math:`H_0: U \ge \delta`
    are both rejected at level alpha, i.e. when the :math:`1 - 2\alpha` interval of U lies
    inside :math:`(-\delta, \delta)`. The p-value is the larger one-sided p-value.

    A large p-value of a difference test ("no evidence of a gap") is not evidence of
    fairness: a small audit fails to find any gap. An equivalence test puts the burden the
    other way: only an audit precise enough to rule out gaps of size delta shows fairness.

    Parameters
    ----------
    delta : float
        Equivalence margin (> 0), in the metric's units.
    alpha : float
        Level of the test (the interval has level 1 - 2 alpha).
    adjust : {"holm", "bonferroni", "none"}
        Adjustment over comparisons with more than two groups; `equivalent` uses the
        adjusted p-values.
    y_true, y_pred, group, metric, method, reference, comparisons
        As in :func:`tolerance_test`.
    sample_weight, pos_label, data, n_bootstrap, random_state, vectorized
        As in :func:`tolerance_test`.

    Returns
    -------
    EquivalenceTestResult
        The TOST p-value, the 1 - 2 alpha interval and the decision `equivalent`.

    Examples
    --------
    >>> import fastfair
    >>> counts = [[5000, 400, 300, 1700], [4500, 420, 320, 1650]]
    >>> res = fastfair.equivalence_test_from_counts(counts, metric="tpr", delta=0.04)
    >>> res.equivalent, [round(v, 4) for v in res.equivalence_interval]
    (True, [-0.0314, 0.0065])
    """
    gap = _gap_from_rows(
        y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
        data, n_bootstrap, random_state, vectorized,
    )  # fmt: skip
    return _equivalence(gap, delta, alpha, adjust)


def equivalence_test_from_counts(
    counts,
    groups=None,
    *,
    metric: str = "tpr",
    delta: float,
    alpha: float = 0.05,
    method: str = "auto",
    reference=None,
    comparisons: str = "reference",
    adjust: str = "holm",
) -> EquivalenceTestResult:
    """:func:`equivalence_test` of a rate metric on confusion-matrix counts (TN, FP, FN, TP).

    Parameters
    ----------
    counts : array-like of shape (n_groups, 4)
        Counts per group in the order TN, FP, FN, TP.
    groups : array-like of shape (n_groups,), optional
        Group labels (default 0..n_groups-1).
    metric : str
        A rate metric (e.g. ``"tpr"``, ``"fpr"``, ``"selection_rate"``).
    method : {"score", "farrington-manning", "wald"}
        Standard error at the boundary of the null, as in :func:`tolerance_test`.
    reference, comparisons, adjust
        As in :func:`tolerance_test`.
    delta, alpha
        As in :func:`equivalence_test`.

    Returns
    -------
    EquivalenceTestResult
        As :func:`equivalence_test` returns it.

    Examples
    --------
    >>> import fastfair
    >>> res = fastfair.equivalence_test_from_counts([[50, 4, 3, 17], [45, 4, 3, 16]],
    ...                                             metric="tpr", delta=0.03)
    >>> res.equivalent  # the same rates, but 20 positives per group cannot show it
    False
    """
    gap = _gap_from_counts(counts, groups, metric, method, reference, comparisons)
    return _equivalence(gap, delta, alpha, adjust)
