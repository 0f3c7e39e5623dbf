"""Statistics: the estimated gap of each comparison and its statistic Z(d) of H0: U = d
(score, exact unconditional, Wald, logit MOVER for AUC, bootstrap or Welch)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from fastfair import _counts
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._confusion import check_counts, coerce_rows
from fastfair._metrics import cell_index, get_metric
from fastfair._parallel import effective_n_threads
from fastfair._scipy import special
from fastfair._score import kish_counts, score_bound, score_statistic, unpooled_variance
from fastfair._unconditional import check_size, exact_bound, exact_pvalue
from fastfair._validation import check_choice
from fastfair.tolerance.ingest import (
    _BISECTION_STEPS,
    _Z_MAX,
    AUC_DEFAULT,
    AUC_METHODS,
    AUC_WARN_BELOW,
    AUTO_MAX_SIZE,
    EXACT_BELOW,
    RATE_METHODS,
)
from fastfair.tolerance.results import ApproximateLevelWarning


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
    auc_df: tuple = (np.inf, np.inf)  # (df_a, df_b) of its t reference (inf: normal)
    n_jobs: int | None = 1  # threads of the exact test's tail sums (results do not depend on it)

    def z(self, d):
        """Z(d) for each comparison (d broadcasts against the comparisons)."""
        if self.counts is not None and self.method != "wald":
            return score_statistic(*self.counts, d, correction=self.method != "farrington-manning")
        if self.auc_parts is not None:
            return auc_margin_statistic(*self.auc_parts, d, *self.auc_df)
        with np.errstate(divide="ignore", invalid="ignore"):
            num = self.difference - d
            return np.where(num == 0, 0.0, num / self.se)

    def pvalue(self, d, side):
        """One-sided p-values of H0: U <= d (`side` "greater") or U >= d ("less")."""
        z = np.atleast_1d(self.z(d))
        p = special.ndtr(-z) if side == "greater" else special.ndtr(z)
        for c in np.flatnonzero(self.exact) if self.exact is not None else ():
            p[c] = exact_pvalue(*(v[c] for v in self.counts), d, side, n_jobs=self.n_jobs)
        return p

    def bound(self, z, side):
        """d with Z(d) = z (lower) or Z(d) = -z (upper); the exact test's at level Phi(-z)."""
        if self.counts is not None and self.method != "wald":
            out = np.atleast_1d(
                score_bound(*self.counts, z, side, correction=self.method != "farrington-manning")
            )
            for c in np.flatnonzero(self.exact) if self.exact is not None else ():
                out[c] = exact_bound(
                    *(v[c] for v in self.counts), special.ndtr(-z), side, n_jobs=self.n_jobs
                )
            return out
        if self.auc_parts is not None:
            return _mover_bound(*self.auc_parts, z if side == "lower" else -z, *self.auc_df)
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
        # a zero plug-in variance (both rates 0 or 1) has the permutation tests' fallback
        gap.se = np.sqrt(unpooled_variance(x[a] / n[a], n[a], x[b] / n[b], n[b]))
    return gap


def _logit_limits(auc, var, z, df=np.inf):
    """Ends of the interval expit(logit(A) -+ q SE / (A (1 - A))) of one group's AUC.

    q = z with infinite `df` (normal reference); otherwise the Student t quantile with `df`
    degrees of freedom at the same level, q = t_df^{-1}(Phi(z)).
    """
    centre = special.logit(auc)
    q = np.where(np.isfinite(df), special.stdtrit(np.where(np.isfinite(df), df, 1.0),
                                                  special.ndtr(z)), z)  # fmt: skip
    half = q * np.sqrt(var) / (auc * (1.0 - auc))
    return special.expit(centre - half), special.expit(centre + half)


def auc_margin_statistic(auc_a, var_a, auc_b, var_b, d, df_a=np.inf, df_b=np.inf):
    r"""Signed level z* of the logit MOVER test of :math:`H_0: U \le d`, U = AUC_A - AUC_B.

    MOVER (Zou & Donner 2008) combines each group's logit-scale interval (l, u) into
    :math:`L(z) = D - \sqrt{(A_A - l_A)^2 + (u_B - A_B)^2}` and
    :math:`U(z) = D + \sqrt{(u_A - A_A)^2 + (A_B - l_B)^2}`, D = A_A - A_B. z* solves
    L(z*) = d (z* >= 0) or U(-z*) = d (z* < 0), so the p-value of H0: U <= d is
    Phi(-z*) and that of H0: U >= d is Phi(z*); the interval of level 1 - 2 alpha is
    [L, U] at z = z_{1 - alpha}. AUCs must lie in (0, 1) (shrink them first). With finite
    `df_a`, `df_b` each group's interval at level Phi(z) uses the Student t quantile with
    those degrees of freedom instead of z (``method="logit-t"``: min(n+, n-) - 1).
    """
    auc_a, var_a, auc_b, var_b, d, df_a, df_b = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (auc_a, var_a, auc_b, var_b, d, df_a, df_b))
    )
    diff = auc_a - auc_b
    lo, hi = np.full(diff.shape, -_Z_MAX), np.full(diff.shape, _Z_MAX)
    for _ in range(_BISECTION_STEPS):  # g(z) = L(z) (z >= 0) or U(-z) (z < 0) decreases in z
        mid = 0.5 * (lo + hi)
        g = _mover_bound(auc_a, var_a, auc_b, var_b, mid, df_a, df_b)
        lo, hi = np.where(g > d, mid, lo), np.where(g > d, hi, mid)
    z = 0.5 * (lo + hi)
    return np.where(diff == d, 0.0, z)


def logit_group_parts(auc, variance, n_pos, n_neg, t_reference: bool):
    """(A', V', df) per group for the logit MOVER test, each AUC in (0, 1).

    An AUC of 0 or 1 is shrunk by half a pseudo-pair, A' = (A n+ n- + 1/2) / (n+ n- + 1),
    and a zero DeLong variance replaced by A'(1 - A') / (n+ n-), as auc_test does. df is
    min(n+, n-) - 1 (at least 1; the smallest of Satterthwaite's degrees of freedom for
    S10/n+ + S01/n-) with `t_reference`, else infinite (normal reference).
    """
    auc, variance, n_pos, n_neg = (np.asarray(v, dtype=np.float64) for v in
                                   (auc, variance, n_pos, n_neg))  # fmt: skip
    pairs = n_pos * n_neg
    shrunk = np.where((auc > 0) & (auc < 1), auc, (auc * pairs + 0.5) / (pairs + 1))
    var = np.where(variance > 0, variance, shrunk * (1 - shrunk) / pairs)
    df = (
        np.maximum(np.minimum(n_pos, n_neg) - 1.0, 1.0)
        if t_reference
        else np.full(auc.shape, np.inf)
    )
    return shrunk, var, df


def small_class_note(groups: list, n_pos: np.ndarray, n_neg: np.ndarray) -> str | None:
    """The ApproximateLevelWarning text when a group has < AUC_WARN_BELOW positives or
    negatives (None otherwise): shared by the functions' warning and the audit's note."""
    smallest = np.minimum(np.asarray(n_pos), np.asarray(n_neg))
    small = [str(g) for g, m in zip(groups, smallest) if m < AUC_WARN_BELOW]
    if not small:
        return None
    return (
        f"AUC margin test with fewer than {AUC_WARN_BELOW} positives or negatives in "
        f"group(s) {', '.join(small)}: the p-value is approximate (level 0.073 at alpha 0.05 "
        f"with 25 per class and an AUC of 0.98, 0.059 with 20 positives, in simulation)"
    )


def _warn_small_classes(res) -> None:
    """ApproximateLevelWarning when a compared group has < AUC_WARN_BELOW in a class."""
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    compared = sorted({index[g] for pair in res.comparisons for g in pair})
    note = small_class_note(
        [res.groups[k] for k in compared], res.group_n_pos[compared], res.group_n_neg[compared]
    )
    if note is not None:
        warnings.warn(note, ApproximateLevelWarning, stacklevel=4)


def _logit_parts(res, t_reference: bool) -> tuple:
    """((A_a, V_a, A_b, V_b), (df_a, df_b)) per comparison of an AUCTestResult."""
    auc, var, df = logit_group_parts(
        res.group_auc, res.group_variance, res.group_n_pos, res.group_n_neg, t_reference
    )
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    a = np.array([index[c[0]] for c in res.comparisons])
    b = np.array([index[c[1]] for c in res.comparisons])
    return (auc[a], var[a], auc[b], var[b]), (df[a], df[b])


def _mover_bound(auc_a, var_a, auc_b, var_b, z, df_a=np.inf, df_b=np.inf):
    """L(z) for z >= 0 and U(-z) for z < 0 (see auc_margin_statistic)."""
    la, ua = _logit_limits(auc_a, var_a, np.abs(z), df_a)
    lb, ub = _logit_limits(auc_b, var_b, np.abs(z), df_b)
    diff = auc_a - auc_b
    low = diff - np.sqrt((auc_a - la) ** 2 + (ub - auc_b) ** 2)
    high = diff + np.sqrt((ua - auc_a) ** 2 + (auc_b - lb) ** 2)
    return np.where(z >= 0, low, high)


def _choose_exact(gap: _Gap, method: str) -> None:
    """Set which comparisons the exact unconditional test handles, and the method's name.

    ``"auto"``: those with fewer than EXACT_BELOW events or non-events in either group
    (where the score test's level can reach 0.12 at alpha 0.05), unweighted, with
    n_A + n_B <= AUTO_MAX_SIZE; ``"exact"``: all (unweighted, n_A + n_B <= MAX_SIZE).
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
        exact = small & (na + nb <= AUTO_MAX_SIZE) & (not gap.weighted)
    gap.exact = exact
    gap.method = "exact" if exact.all() else "score/exact" if exact.any() else "score"


def _gap_from_rows(
    y_true, y_pred, group, metric, method, reference, comparisons, sample_weight, pos_label,
    data, n_bootstrap, random_state, vectorized, n_jobs,
) -> _Gap:  # fmt: skip
    check_choice(comparisons, "comparisons", ("reference", "all"))
    effective_n_threads(n_jobs)  # TypeError/ValueError before any work
    from fastfair import resampling  # lazy, as in permutation_test
    from fastfair.auc import auc_test

    if isinstance(metric, str) and metric.lower() == "auc":
        if method not in AUC_METHODS:
            raise ValueError(
                f"metric='auc' is tested with method='logit-t', 'logit' or 'delong', "
                f"got {method!r}"
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
            method=AUC_DEFAULT if method == "auto" else method,
            weighted=sample_weight is not None,
            se=se,
        )
        if gap.method != "delong":
            gap.auc_parts, gap.auc_df = _logit_parts(res, gap.method == "logit-t")
        _warn_small_classes(res)
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
            n_bootstrap=n_bootstrap, vectorized=vectorized, n_jobs=n_jobs,
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
    cell = cell_index(y, yhat)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights)
    gap = _rate_gap(w, w2, labels, weights is not None, metric, method, reference, comparisons)
    gap.n_jobs = n_jobs
    return gap


def _gap_from_counts(counts, groups, metric, method, reference, comparisons, n_jobs=1) -> _Gap:
    check_choice(comparisons, "comparisons", ("reference", "all"))
    effective_n_threads(n_jobs)
    w, labels = check_counts(counts, groups)
    check_choice(method, "method", RATE_METHODS)
    gap = _rate_gap(w, w, labels, False, metric, method, reference, comparisons)
    gap.n_jobs = n_jobs
    return gap
