"""Sufficient statistics: the fitted calibration maps (per-group kernel sums, logistic and
isotonic fits), the multivariate kernel regression and the binned sums of the calibration
errors (calibration and impact)."""

from __future__ import annotations

import numpy as np

from fastfair import _kernel_sums
from fastfair._clustered import ROWS_PER_THREAD, choose_bandwidth
from fastfair._parallel import threads_for
from fastfair._scipy import optimize, special
from fastfair._validation import unit_scale
from fastfair.calibration.ingest import _check_binary


def _row_weights(prep) -> np.ndarray:
    if not prep.clustered:
        return prep.cluster_weight
    return np.repeat(prep.cluster_weight, np.diff(prep.starts))


def _row_groups(prep) -> np.ndarray:
    if not prep.clustered:
        return prep.cluster_group
    return np.repeat(prep.cluster_group, np.diff(prep.starts))


def _logistic_irls(X, y, w, max_iter: int = 100, tol: float = 1e-10) -> np.ndarray:
    """Weighted maximum-likelihood logistic regression by Newton's method (no penalty)."""
    beta = np.zeros(X.shape[1])
    ridge = 1e-12 * np.eye(X.shape[1])
    for _ in range(max_iter):
        p = special.expit(X @ beta)
        grad = X.T @ (w * (y - p))
        hess = (X * (w * p * (1.0 - p))[:, None]).T @ X + ridge
        step = np.linalg.solve(hess, grad)
        # Halve the step while the log-likelihood does not improve (separation guard).
        ll0 = np.sum(w * (y * np.log(p + 1e-300) + (1 - y) * np.log(1 - p + 1e-300)))
        for _ in range(30):
            p1 = special.expit(X @ (beta + step))
            ll1 = np.sum(w * (y * np.log(p1 + 1e-300) + (1 - y) * np.log(1 - p1 + 1e-300)))
            if ll1 >= ll0 - 1e-12 * abs(ll0):
                break
            step = step / 2
        beta = beta + step
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            break
    return beta


# --------------------------------------------------------------------------------------
# GroupCalibrator's maps: per group, knots and the calibrated values between which
# transform interpolates


def _nadaraya_watson_maps(prep, n_bins, bandwidth, kernel, n_jobs):
    """Per group, n_bins + 1 equally spaced edges over the group's scores and the clustered
    Nadaraya-Watson estimate at each (an edge with no score within the kernel's reach takes
    the value interpolated from its neighbours). Returns (knots, values, h, empty edges)."""
    rows_g = _row_groups(prep)
    K = prep.n_groups
    n_threads = threads_for(n_jobs, prep.score.size, ROWS_PER_THREAD)
    h, _ = choose_bandwidth(prep, bandwidth, kernel, n_threads)
    knots, values = [], []
    n_empty = np.zeros(K, dtype=np.int64)
    for k in range(K):
        sk = prep.score[rows_g == k]
        lo, hi = float(sk.min()), float(sk.max())
        if not hi > lo:
            hi = lo + h
        edges = np.linspace(lo, hi, n_bins + 1)
        cg = np.where(prep.cluster_group == k, 0, -1).astype(np.intp)
        sums = _kernel_sums.kernel_sums(
            prep.score, prep.y, None, prep.starts, cg, prep.cluster_weight, 1, edges, h,
            kernel, False, n_threads,
        )  # fmt: skip
        sa, sb = sums["sum_a"][0], sums["sum_b"][0]
        ok = sb > 0
        n_empty[k] = int((~ok).sum())
        est = np.empty_like(sb)
        est[ok] = sa[ok] / sb[ok]
        if not ok.all():
            est[~ok] = np.interp(edges[~ok], edges[ok], est[ok])
        knots.append(edges)
        values.append(est)
    return knots, values, h, n_empty


def _platt_maps(prep):
    """Per group, the weighted logistic regression of y on s (binary y): (knots = the
    group's score range, values there, coefficients (n_groups, 2))."""
    _check_binary(prep.y, "method='platt'")
    rows_g, wrow = _row_groups(prep), _row_weights(prep)
    coef = np.zeros((prep.n_groups, 2))
    knots, values = [], []
    for k in range(prep.n_groups):
        sel = rows_g == k
        sk = prep.score[sel]
        X = np.column_stack([np.ones(sk.size), sk])
        coef[k] = _logistic_irls(X, prep.y[sel], wrow[sel])
        knots.append(np.array([sk.min(), sk.max()]))
        values.append(special.expit(coef[k, 0] + coef[k, 1] * knots[-1]))
    return knots, values, coef


def _isotonic_maps(prep):
    """Per group, the weighted isotonic regression of y on s (ties in s pooled first):
    (knots = the distinct scores, fitted values)."""
    rows_g, wrow = _row_groups(prep), _row_weights(prep)
    knots, values = [], []
    for k in range(prep.n_groups):
        sel = rows_g == k
        sk, yk, wk = prep.score[sel], prep.y[sel], wrow[sel]
        order = np.argsort(sk, kind="stable")
        sk, yk, wk = sk[order], yk[order], wk[order]
        xs, inv = np.unique(sk, return_inverse=True)
        wsum = np.bincount(inv, weights=wk, minlength=xs.size)
        ymean = np.bincount(inv, weights=wk * yk, minlength=xs.size) / wsum
        fitted = optimize.isotonic_regression(ymean, weights=wsum, increasing=True).x
        knots.append(xs)
        values.append(np.asarray(fitted, dtype=np.float64))
    return knots, values


# --------------------------------------------------------------------------------------
# MultiObjectiveCalibrator: per group, logistic coefficients or the rows of the kernel
# regression


def _multi_objective_fits(S, Y, w, codes, n_groups, method, bandwidth_scale) -> list:
    """Per group: the (K, K + 1) logistic coefficients of each outcome on all K scores, or
    (scores, outcomes, row weights, bandwidths, mean outcome) of the kernel regression with
    bandwidth c sigma_l M^(-1/(K+4)) per score (Scott's rate, robust scale)."""
    K = S.shape[1]
    fits = []
    for g in range(n_groups):
        sel = codes == g
        Sg, Yg, wg = S[sel], Y[sel], w[sel]
        if method == "logistic":
            X = np.column_stack([np.ones(Sg.shape[0]), Sg])
            fits.append(np.array([_logistic_irls(X, Yg[:, k], wg) for k in range(K)]))
            continue
        m_eff = wg.sum()
        q1, q3 = np.quantile(Sg, [0.25, 0.75], axis=0)
        sd = _column_sd(Sg)
        scale = np.minimum(sd, (q3 - q1) / 1.349)
        scale = np.where(scale > 0, scale, sd + 1e-12)
        h = bandwidth_scale * scale * max(m_eff, 2.0) ** (-1.0 / (K + 4))
        mean = (wg[:, None] * Yg).sum(axis=0) / wg.sum()
        fits.append((Sg.copy(), Yg.copy(), wg.copy(), h, mean))
    return fits


def _column_sd(S: np.ndarray) -> np.ndarray:
    """Standard deviation (ddof 0) of each column, computed in units of a power of two so
    that scores of 1e160 do not overflow their squares (the same bits otherwise)."""
    sd = np.empty(S.shape[1])
    for k, column in enumerate(S.T):
        e = unit_scale(column - column.mean())[1]
        sd[k] = np.ldexp(np.ldexp(column, -e).std(), e)
    return sd


def _kernel_regression(fit, Q, budget: int = 4_000_000) -> np.ndarray:
    """The product-Gaussian Nadaraya-Watson estimate at the rows of Q from one group's fit,
    in chunks of at most `budget` kernel weights (the group's mean where no weight is left)."""
    Sg, Yg, wg, h, mean = fit
    out = np.empty((Q.shape[0], Yg.shape[1]))
    step = max(1, budget // max(Sg.shape[0], 1))
    for a in range(0, Q.shape[0], step):
        q = Q[a : a + step]
        d = np.zeros((q.shape[0], Sg.shape[0]))
        for k in range(Sg.shape[1]):
            d += ((q[:, k : k + 1] - Sg[None, :, k]) / h[k]) ** 2
        kw = np.exp(-0.5 * d) * wg
        den = kw.sum(axis=1)
        num = kw @ Yg
        ok = den > 1e-300
        out[a : a + step] = np.where(ok[:, None], num / np.where(ok, den, 1)[:, None], mean)
    return out


# --------------------------------------------------------------------------------------
# Binned sums of the calibration errors: (sum of y, sum of s, count) per bin


def _binned_sums(yv, s, n_bins, binning) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal mass: rows sorted by score (stable), rank r in bin min(B - 1, r B / n). Equal
    width: B bins on [0, 1] (the scores are probabilities), score 1 in the last."""
    n, B = s.size, n_bins
    if binning == "equal_mass":
        order = np.argsort(s, kind="stable")
        b = np.minimum(B - 1, (np.arange(n) * B) // n)
        ys, ss = yv[order], s[order]
    else:
        b = np.minimum(np.floor(s * B).astype(np.int64), B - 1)
        ys, ss = yv, s
    count = np.bincount(b, minlength=B).astype(np.float64)
    return np.bincount(b, weights=ys, minlength=B), np.bincount(b, weights=ss, minlength=B), count


def _monotone_sweep_sums(yv, s):
    """The binned sums of the monotonic sweep: the largest b* such that b* equal-mass bins
    (rank r in bin floor(r b / n)) have non-decreasing means of y, found from prefix sums
    of the score-sorted y and s. Returns (sum of y, sum of s, count, b*)."""
    n = s.size
    order = np.argsort(s, kind="stable")
    cy = np.concatenate([[0.0], np.cumsum(yv[order])])
    cs = np.concatenate([[0.0], np.cumsum(s[order])])
    best = max(n - 1, 1)
    for b in range(2, n):
        k = np.arange(b + 1, dtype=np.int64)
        edges = -((-k * n) // b)  # ceil(k n / b): first rank of bin k
        cnt = np.diff(edges)
        means = np.diff(cy[edges]) / cnt
        if np.any(means[1:] < means[:-1]):
            best = b - 1
            break
    k = np.arange(best + 1, dtype=np.int64)
    edges = -((-k * n) // best)
    cnt = np.diff(edges).astype(np.float64)
    return np.diff(cy[edges]), np.diff(cs[edges]), cnt, best


def _ranks_within(query_codes, x):
    """Descending average ranks (1 = largest) of x within each query."""
    n = x.size
    order = np.lexsort((-x, query_codes))
    q, xs = query_codes[order], x[order]
    new_q = np.r_[True, q[1:] != q[:-1]]
    qstart = np.maximum.accumulate(np.where(new_q, np.arange(n), 0))
    pos = np.arange(n) - qstart + 1.0
    new_tie = new_q | np.r_[True, xs[1:] != xs[:-1]]
    tie_id = np.cumsum(new_tie) - 1
    first = np.flatnonzero(new_tie)
    last = np.r_[first[1:], n] - 1
    avg = 0.5 * (pos[first] + pos[last])
    ranks = np.empty(n)
    ranks[order] = avg[tie_id]
    return ranks
