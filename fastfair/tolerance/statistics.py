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
from fastfair._unconditional import SMALL_GROUP_MAX, check_size, exact_bound, exact_pvalue
from fastfair._validation import check_choice
from fastfair.tolerance.ingest import (
    _BISECTION_STEPS,
    _NEWTON_STEPS,
    _Z_MAX,
    AUC_DEFAULT,
    AUC_LIBERAL,
    AUC_METHODS,
    AUC_WARN_BELOW,
    AUTO_MAX_SIZE,
    EXACT_BELOW,
    EXACT_BELOW_UNBALANCED,
    NEWCOMBE_BELOW,
    RATE_METHODS,
    UNBALANCED_RATIO,
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
    auc_classes: tuple | None = None  # (n+_a, n-_a, n+_b, n-_b): "hybrid" adds Newcombe's
    n_jobs: int | None = 1  # threads of the exact test's tail sums (results do not depend on it)

    def z(self, d):
        """Z(d) for each comparison (d broadcasts against the comparisons)."""
        if self.counts is not None and self.method != "wald":
            return score_statistic(*self.counts, d, correction=self.method != "farrington-manning")
        if self.auc_parts is not None:
            return auc_margin_statistic(*self.auc_parts, d, *self.auc_df, classes=self.auc_classes)
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
            zz = z if side == "lower" else -z
            return _mover_bound(*self.auc_parts, zz, *self.auc_df, classes=self.auc_classes)
        return self.difference - z * self.se if side == "lower" else self.difference + z * self.se


def _rate_gap(w, w2, labels, sizes, metric, method, reference, comparisons) -> _Gap:
    """The rate gaps on per-group cell sums; `sizes`: the groups' rows, when weighted
    (the default reference is the group with the most rows), else None."""
    spec_metric = get_metric(metric)
    weighted = sizes is not None
    if spec_metric.n_parts > 1:
        raise ValueError(
            "equalized_odds combines two gaps; test metric='tpr' and metric='fpr' separately"
        )
    sizes = w.sum(axis=1) if sizes is None else sizes
    pairs = comparison_pairs(sizes, labels, reference, comparisons)
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


def newcombe_variance(theta, n_pos, n_neg, derivative: bool = False):
    r"""Hanley & McNeil's (1982) variance of the AUC at a candidate value theta, with both
    class sizes in the bracket replaced by :math:`N^* = (n_+ + n_-)/2 - 1` (Newcombe 2006,
    Method 5):
    :math:`V(\theta) = \theta(1-\theta)\,[2N^* - 1 - 3(N^*-1)/q(\theta)] / (n_+ n_-)`,
    :math:`q(\theta) = (2-\theta)(1+\theta)`; with `derivative`, (V, dV/dtheta)."""
    n_star = 0.5 * (n_pos + n_neg) - 1.0
    q = (2.0 - theta) * (1.0 + theta)
    bracket = 2.0 * n_star - 1.0 - 3.0 * (n_star - 1.0) / q
    pairs = n_pos * n_neg
    var = theta * (1.0 - theta) * bracket / pairs
    if not derivative:
        return var
    d_bracket = 3.0 * (n_star - 1.0) * (1.0 - 2.0 * theta) / (q * q)
    return var, ((1.0 - 2.0 * theta) * bracket + theta * (1.0 - theta) * d_bracket) / pairs


def _newcombe_limits(auc, n_pos, n_neg, z):
    """Ends of Newcombe's (2006) score-type interval of one group's AUC: the theta on each
    side of the estimate A with (A - theta)^2 = z^2 V(theta) (V: newcombe_variance). Times
    (n+ n-) q(theta) > 0 this is a quartic in theta; its roots are the eigenvalues of the
    companion matrices (all groups at once), then polished by Newton steps inside the
    bracket [0, A] or [A, 1]. Unlike a Wald or logit interval it keeps its width as A nears
    0 or 1, where the DeLong variance collapses (it is 0 when the classes are separated)."""
    auc, n_pos, n_neg, z = (np.asarray(v, dtype=np.float64) for v in
                            np.broadcast_arrays(auc, n_pos, n_neg, z))  # fmt: skip
    shape = auc.shape
    auc, n_pos, n_neg, z = (v.ravel() for v in (auc, n_pos, n_neg, z))
    pairs, z2 = n_pos * n_neg, z * z
    n_star = 0.5 * (n_pos + n_neg) - 1.0
    r0, r1 = n_star + 1.0, 2.0 * n_star - 1.0  # bracket times q: r0 + r1 theta - r1 theta^2
    a2 = auc * auc
    coef = np.stack(
        [  # ascending powers of P (A - theta)^2 q - z^2 theta (1 - theta) R
            2.0 * pairs * a2,
            pairs * (a2 - 4.0 * auc) - z2 * r0,
            pairs * (2.0 - a2 - 2.0 * auc) - z2 * (r1 - r0),
            pairs * (2.0 * auc + 1.0) + z2 * 2.0 * r1,
            -pairs - z2 * r1,
        ]
    )
    lead = np.where(coef[4] != 0, coef[4], -1e-300)
    companion = np.zeros((auc.size, 4, 4))
    companion[:, 1:, :3] = np.eye(3)
    companion[:, :, 3] = -(coef[:4] / lead).T
    roots = np.linalg.eigvals(companion)
    real = np.where(np.abs(roots.imag) <= 1e-7, roots.real, np.nan)
    ends = []
    for sign, lo, hi in ((-1.0, np.zeros(auc.size), auc), (1.0, auc, np.ones(auc.size))):
        ok = (real >= lo[:, None] - 1e-9) & (real <= hi[:, None] + 1e-9)
        # at A = 0 or 1 the quartic has the root theta = A itself (V(A) = 0): not an end
        ok &= ~(((auc == 0) | (auc == 1))[:, None] & (np.abs(real - auc[:, None]) < 1e-9))
        pick = np.where(ok, real, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: no root found
            x = np.nanmax(pick, axis=1) if sign < 0 else np.nanmin(pick, axis=1)
        x = np.clip(np.where(np.isfinite(x), x, 0.5 * (lo + hi)), lo, hi)
        for _ in range(_NEWTON_STEPS):  # f = sign (theta - A) - z sqrt(V) < 0 inside
            var, dvar = newcombe_variance(x, n_pos, n_neg, derivative=True)
            root = np.sqrt(np.maximum(var, 0.0))
            f = sign * (x - auc) - z * root
            inside = f <= 0  # the end lies beyond x on the sign side
            lo, hi = (np.where(inside, lo, x), np.where(inside, x, hi)) if sign < 0 else (
                np.where(inside, x, lo), np.where(inside, hi, x))  # fmt: skip
            with np.errstate(divide="ignore", invalid="ignore"):
                x = x - f / (sign - z * dvar / (2.0 * root))
            x = np.where(np.isfinite(x) & (x >= lo) & (x <= hi), x, 0.5 * (lo + hi))
        # where the quartic failed (its leading coefficient vanishes for n+ = n- = 1 at
        # z = 1), finish by bisection inside the bracket
        f = sign * (x - auc) - z * np.sqrt(np.maximum(newcombe_variance(x, n_pos, n_neg), 0))
        bad = np.flatnonzero((np.abs(f) > 1e-12) & (z > 0))
        if bad.size:
            a, b, A, zb, npb, nnb = (v[bad] for v in (lo, hi, auc, z, n_pos, n_neg))
            for _ in range(_BISECTION_STEPS + 12):
                mid = 0.5 * (a + b)
                var = np.maximum(newcombe_variance(mid, npb, nnb), 0.0)
                inside = sign * (mid - A) - zb * np.sqrt(var) <= 0  # end beyond mid
                keep_low = inside == (sign < 0)  # lower end: below mid; upper: above it
                a, b = np.where(keep_low, a, mid), np.where(keep_low, mid, b)
            x[bad] = 0.5 * (a + b)
        ends.append(np.where(z > 0, x, auc).reshape(shape))
    return ends[0], ends[1]


def _group_limits(auc, var, z, df, classes):
    """One group's interval at level Phi(z): the logit one, or with `classes` (n+, n-) its
    union with Newcombe's score-type interval where the group has fewer than NEWCOMBE_BELOW
    positives or negatives (method "hybrid"; beyond that the logit-t interval held the
    level, and Newcombe's Hanley-McNeil variance, 1.3 times the binormal one at an AUC of
    0.95, would only cost power)."""
    low, high = _logit_limits(auc, var, z, df)
    if classes is None:
        return low, high
    n_pos, n_neg = classes
    small = np.minimum(n_pos, n_neg) < NEWCOMBE_BELOW
    if not np.any(small):
        return low, high
    low_s, high_s = _newcombe_limits(auc, n_pos, n_neg, z)
    return np.where(small, np.minimum(low, low_s), low), np.where(
        small, np.maximum(high, high_s), high
    )


def auc_margin_statistic(auc_a, var_a, auc_b, var_b, d, df_a=np.inf, df_b=np.inf, classes=None):
    r"""Signed level z* of the logit MOVER test of :math:`H_0: U \le d`, U = AUC_A - AUC_B.

    MOVER (Zou & Donner 2008) combines each group's logit-scale interval (l, u) into
    :math:`L(z) = D - \sqrt{(A_A - l_A)^2 + (u_B - A_B)^2}` and
    :math:`U(z) = D + \sqrt{(u_A - A_A)^2 + (A_B - l_B)^2}`, D = A_A - A_B. z* solves
    L(z*) = d (z* >= 0) or U(-z*) = d (z* < 0), so the p-value of H0: U <= d is
    Phi(-z*) and that of H0: U >= d is Phi(z*); the interval of level 1 - 2 alpha is
    [L, U] at z = z_{1 - alpha}. AUCs must lie in (0, 1) (shrink them first). With finite
    `df_a`, `df_b` each group's interval at level Phi(z) uses the Student t quantile with
    those degrees of freedom instead of z (``method="logit-t"``: min(n+, n-) - 1). With
    `classes` = (n+_A, n-_A, n+_B, n-_B) each group's interval is the union of that one and
    Newcombe's (2006) score-type interval at level Phi(z) where that group has fewer than
    NEWCOMBE_BELOW positives or negatives (``method="hybrid"``).
    """
    auc_a, var_a, auc_b, var_b, d, df_a, df_b = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (auc_a, var_a, auc_b, var_b, d, df_a, df_b))
    )
    if classes is not None:
        classes = tuple(np.broadcast_to(np.asarray(c, dtype=np.float64), d.shape) for c in classes)
    diff = auc_a - auc_b
    lo, hi = np.full(diff.shape, -_Z_MAX), np.full(diff.shape, _Z_MAX)
    for _ in range(_BISECTION_STEPS):  # g(z) = L(z) (z >= 0) or U(-z) (z < 0) decreases in z
        mid = 0.5 * (lo + hi)
        g = _mover_bound(auc_a, var_a, auc_b, var_b, mid, df_a, df_b, classes)
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


def small_class_note(
    groups: list, n_pos: np.ndarray, n_neg: np.ndarray, method: str = AUC_DEFAULT
) -> str | None:
    """The ApproximateLevelWarning text when a group has fewer positives or negatives than
    AUC_WARN_BELOW[method] (None otherwise): shared by the functions' warning and the
    audit's note."""
    below = AUC_WARN_BELOW[method]
    smallest = np.minimum(np.asarray(n_pos), np.asarray(n_neg))
    small = [str(g) for g, m in zip(groups, smallest) if m < below]
    if not small:
        return None
    head = (
        f"AUC margin test (method={method!r}) with fewer than {below} positives or negatives "
        f"in group(s) {', '.join(small)}: the p-value is approximate"
    )
    if method == "hybrid":
        return head + " (its level was validated by simulation down to about 6 per class)"
    return head + (
        f" (level up to {AUC_LIBERAL[method]} at alpha 0.05 in simulation, with 6-60 per "
        f"class, an AUC near 1 and skewed scores); method='hybrid' (the default) holds it"
    )


def _warn_small_classes(res, method: str) -> None:
    """ApproximateLevelWarning when a compared group has < AUC_WARN_BELOW[method] in a
    class."""
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    compared = sorted({index[g] for pair in res.comparisons for g in pair})
    note = small_class_note(
        [res.groups[k] for k in compared],
        res.group_n_pos[compared],
        res.group_n_neg[compared],
        method,
    )
    if note is not None:
        warnings.warn(note, ApproximateLevelWarning, stacklevel=4)


def auc_parts(auc, variance, n_pos, n_neg, a, b, method: str) -> tuple:
    """((A_a, V_a, A_b, V_b), (df_a, df_b), classes) of the comparisons a[i] vs b[i] (group
    positions) for an AUC margin method, from each group's AUC, DeLong variance and class
    counts: AUCs shrunk into (0, 1) (logit_group_parts), t degrees of freedom for "logit-t"
    and "hybrid", and classes = (n+_a, n-_a, n+_b, n-_b) for "hybrid" (else None)."""
    shrunk, var, df = logit_group_parts(
        auc, variance, n_pos, n_neg, method in ("logit-t", "hybrid")
    )
    classes = None
    if method == "hybrid":
        n_pos, n_neg = (np.asarray(v, dtype=np.float64) for v in (n_pos, n_neg))
        classes = (n_pos[a], n_neg[a], n_pos[b], n_neg[b])
    return (shrunk[a], var[a], shrunk[b], var[b]), (df[a], df[b]), classes


def auc_difference_interval(
    auc, variance, n_pos, n_neg, a, b, confidence_level: float = 0.95
) -> tuple:
    """Two-sided interval of AUC_a[i] - AUC_b[i] (group positions a, b) by the hybrid
    MOVER of method="hybrid" (each group's logit-t interval, widened to Newcombe's where it
    has fewer than NEWCOMBE_BELOW positives or negatives): the interval whose one-sided
    ends the AUC margin tests invert, for the audit's AUC differences (the DeLong Wald
    interval covered 0.89-0.93 with 20-40 per class at an AUC of 0.9).

    Examples
    --------
    >>> lo, hi = auc_difference_interval([0.9, 0.85], [0.002, 0.001], [30, 300], [30, 300],
    ...                                  [0], [1])
    >>> bool(lo[0] < 0.05 < hi[0])
    True
    """
    parts, df, classes = auc_parts(auc, variance, n_pos, n_neg, np.asarray(a),
                                   np.asarray(b), "hybrid")  # fmt: skip
    z = special.ndtri(0.5 + confidence_level / 2.0)
    return (
        _mover_bound(*parts, z, *df, classes=classes),
        _mover_bound(*parts, -z, *df, classes=classes),
    )


def auc_limits(auc, variance, n_pos, n_neg, confidence_level: float = 0.95) -> tuple:
    """Each group's two-sided interval of its AUC as the hybrid MOVER combines them: the
    logit-t interval of the (shrunk) AUC, widened to Newcombe's score-type interval where
    the group has fewer than NEWCOMBE_BELOW positives or negatives (arrays broadcast; the
    paired comparison of two models combines them too, ``fastfair.compare_auc``).

    Examples
    --------
    >>> lo, hi = auc_limits([0.9, 1.0], [0.002, 0.0], [30, 5], [30, 5])
    >>> [round(float(v), 3) for v in lo], [round(float(v), 3) for v in hi]
    ([0.765, 0.472], [0.961, 1.0])
    """
    n_pos, n_neg = (np.asarray(v, dtype=np.float64) for v in (n_pos, n_neg))
    shrunk, var, df = logit_group_parts(auc, variance, n_pos, n_neg, True)
    z = special.ndtri(0.5 + confidence_level / 2.0)
    return _group_limits(shrunk, var, z, df, (n_pos, n_neg))


def _logit_parts(res, method: str) -> tuple:
    """auc_parts of every comparison of an AUCTestResult."""
    index = {g: k for k, g in enumerate(res.groups.tolist())}
    a = np.array([index[c[0]] for c in res.comparisons])
    b = np.array([index[c[1]] for c in res.comparisons])
    return auc_parts(
        res.group_auc, res.group_variance, res.group_n_pos, res.group_n_neg, a, b, method
    )


def _mover_bound(auc_a, var_a, auc_b, var_b, z, df_a=np.inf, df_b=np.inf, classes=None):
    """L(z) for z >= 0 and U(-z) for z < 0 (see auc_margin_statistic)."""
    class_a, class_b = (None, None) if classes is None else (classes[:2], classes[2:])
    la, ua = _group_limits(auc_a, var_a, np.abs(z), df_a, class_a)
    lb, ub = _group_limits(auc_b, var_b, np.abs(z), df_b, class_b)
    diff = auc_a - auc_b
    low = diff - np.sqrt((auc_a - la) ** 2 + (ub - auc_b) ** 2)
    high = diff + np.sqrt((ua - auc_a) ** 2 + (auc_b - lb) ** 2)
    return np.where(z >= 0, low, high)


def auto_exact(fewest, n_a, n_b):
    """Where method="auto" runs the exact test: `fewest` (the fewest events or non-events of
    the two groups) below EXACT_BELOW, or below EXACT_BELOW_UNBALANCED when one denominator
    is at least UNBALANCED_RATIO times the other; n_A + n_B <= AUTO_MAX_SIZE, or a smaller
    group of at most SMALL_GROUP_MAX rows whatever the reference's size (arrays broadcast;
    shared with the validation scripts that compute its level)."""
    n_a, n_b = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    unbalanced = np.maximum(n_a, n_b) >= UNBALANCED_RATIO * np.minimum(n_a, n_b)
    few = (fewest < EXACT_BELOW) | (unbalanced & (fewest < EXACT_BELOW_UNBALANCED))
    cheap = (n_a + n_b <= AUTO_MAX_SIZE) | (np.minimum(n_a, n_b) <= SMALL_GROUP_MAX)
    return few & cheap


def _choose_exact(gap: _Gap, method: str) -> None:
    """Set which comparisons the exact unconditional test handles, and the method's name.

    ``"auto"``: those auto_exact selects (where the score test's level can exceed alpha +
    3 SE), unweighted; ``"exact"``: all (unweighted, n_A + n_B <= MAX_SIZE or a smaller
    group of at most SMALL_GROUP_MAX rows).
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
        fewest = np.minimum.reduce([xa, na - xa, xb, nb - xb])
        exact = auto_exact(fewest, na, nb) & (not gap.weighted)
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
                f"metric='auc' is tested with method='hybrid', 'logit-t', 'logit' or 'delong', "
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
            gap.auc_parts, gap.auc_df, gap.auc_classes = _logit_parts(res, gap.method)
        _warn_small_classes(res, gap.method)
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
    y, yhat, weights, codes, labels, exponent = coerce_rows(
        y_true, y_pred, group, sample_weight, pos_label, data
    )
    cell = cell_index(y, yhat)
    w, w2 = _counts.cell_sums(cell, codes, len(labels), weights)
    sizes = None if weights is None else np.bincount(codes, minlength=len(labels))
    gap = _rate_gap(w, w2, labels, sizes, metric, method, reference, comparisons)
    gap.n_jobs = n_jobs
    if exponent:  # weighted denominators in the user's units (weights were rescaled)
        gap.group_denominators = np.ldexp(gap.group_denominators, exponent)
    return gap


def _gap_from_counts(counts, groups, metric, method, reference, comparisons, n_jobs=1) -> _Gap:
    check_choice(comparisons, "comparisons", ("reference", "all"))
    effective_n_threads(n_jobs)
    w, labels = check_counts(counts, groups)
    check_choice(method, "method", RATE_METHODS)
    gap = _rate_gap(w, w, labels, None, metric, method, reference, comparisons)
    gap.n_jobs = n_jobs
    return gap
