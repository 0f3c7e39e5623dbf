"""Inference: the test on the statistics (p-values, intervals), then packing (Wasserstein
projection test)."""

from __future__ import annotations

import math

import numpy as np

from fastfair import _wasserstein
from fastfair._scipy import integrate, optimize, special, stats
from fastfair._validation import show_value
from fastfair.wasserstein.ingest import _CONVEX_LIMIT, _MAX_ITER, _check_not_saturated
from fastfair.wasserstein.results import FavorableDistribution, WassersteinTestResult


def _coefficients(coef, intercept, d):
    """(beta, b) from an array or from a fitted model with coef_ and intercept_."""
    if coef is None:
        raise TypeError("coef is required, got None")
    if hasattr(coef, "coef_"):
        if intercept != 0.0:
            raise ValueError(
                "intercept is taken from the fitted model's intercept_; do not pass it too"
            )
        model = coef
        beta = np.asarray(model.coef_, dtype=np.float64)
        if beta.ndim == 2:
            if beta.shape[0] != 1:
                raise ValueError(
                    f"coef: the model has {beta.shape[0]} rows of coefficients; "
                    "only a binary logistic classifier (one row) can be tested"
                )
            beta = beta[0]
        b0 = np.asarray(getattr(model, "intercept_", 0.0), dtype=np.float64).ravel()
        b0 = float(b0[0]) if b0.size else 0.0
    else:
        if isinstance(coef, str):
            raise TypeError("coef must be an array of coefficients or a fitted model")
        beta = np.asarray(coef, dtype=np.float64)
        try:
            b0 = float(intercept)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"intercept must be a number, got {show_value(intercept)}") from exc
    if beta.ndim != 1:
        raise ValueError(f"coef must be 1-D with {d} entries, got shape {beta.shape}")
    if beta.shape[0] != d:
        raise ValueError(f"coef has {beta.shape[0]} entries but X has {d} columns")
    if not np.isfinite(beta).all() or not math.isfinite(b0):
        raise ValueError("coef and intercept must be finite")
    return np.ascontiguousarray(beta), b0


#: Range of b2 = beta' Omega^{-1} beta the dual is solved in: distances are 1 / b2 times
#: squared logits, so beyond it they leave float64 (or b2 underflows to "constant").
B2_RANGE = (1e-300, 1e300)


def _direction(beta, metric_matrix, d):
    """Moving direction Omega^{-1} beta and b2 = beta' Omega^{-1} beta."""
    direction, b2 = _unchecked_direction(beta, metric_matrix, d)
    if beta.any() and not B2_RANGE[0] <= b2 <= B2_RANGE[1]:
        raise ValueError(
            f"coef is on an extreme scale for X (beta' Omega^-1 beta = {b2:.3g}, outside "
            f"[{B2_RANGE[0]:g}, {B2_RANGE[1]:g}]): the transport distances would leave the "
            "float64 range; divide X by a power of ten and multiply coef by it (the test "
            "does not change)"
        )
    return direction, b2


def _unchecked_direction(beta, metric_matrix, d):
    if metric_matrix is None:
        return beta, float(beta @ beta)
    omega = np.asarray(metric_matrix, dtype=np.float64)
    if omega.shape != (d, d):
        raise ValueError(f"metric_matrix must have shape ({d}, {d}), got {omega.shape}")
    if not np.isfinite(omega).all() or not np.allclose(omega, omega.T, rtol=1e-10, atol=0):
        raise ValueError("metric_matrix must be finite and symmetric")
    try:
        chol = np.linalg.cholesky(omega)
    except np.linalg.LinAlgError as exc:
        raise ValueError("metric_matrix must be positive definite") from exc
    direction = np.linalg.solve(chol.T, np.linalg.solve(chol, beta))
    return direction, float(beta @ direction)


#: Largest spread of the scores u = beta'x + b treated as the sigmoid's linear range: below
#: it, h = sigmoid(u) keeps too few digits of the spread (and none below 1e-16), so the
#: spread is magnified by a power of two to this size (see `_scores`).
_LINEAR_SPREAD = 2.0**-20


def _scores(X, beta, b0):
    """The scores u = X beta + b, and 1; or, when their spread is below _LINEAR_SPREAD (X
    on a scale like 1e-300), scores with the spread magnified by s = 2^k to about
    _LINEAR_SPREAD around their midrange, and s.

    There the sigmoid is linear to a relative 1e-6, where the test is invariant to the
    magnification: R, theta, the statistic and its critical value scale by s^2, gamma, the
    difference c and the moves by s, the p-value not at all (docs/wasserstein.md). Computed
    on sigmoid(u) directly, h rounds to sigmoid(b) and every difference vanished: p = 1.
    """
    lin = X @ beta
    lo, hi = (float(lin.min()), float(lin.max())) if lin.size else (0.0, 0.0)
    mid = 0.5 * lo + 0.5 * hi
    spread = max(hi - mid, mid - lo)
    if not 0.0 < spread < _LINEAR_SPREAD:
        return (lin + b0 if b0 != 0.0 else lin), 1.0
    scale = math.ldexp(1.0, math.frexp(_LINEAR_SPREAD)[1] - math.frexp(spread)[1])
    return (b0 + mid) + (lin - mid) * scale, scale


def _critical_points(c: float) -> tuple[float, float]:
    """0 < z1 < z2 with sigmoid''(z) = -1/|c| (the fold of the stationarity map), if any.

    With v = 2 sigmoid(z) - 1, sigmoid'' = -v (1 - v^2) / 4, so v solves v^3 - v + 4/|c| = 0
    (trigonometric roots); z = 2 atanh(v).
    """
    ca = abs(c)
    if ca <= _CONVEX_LIMIT:
        return 0.0, 0.0
    q = 4.0 / ca
    phi = math.acos(-min(1.0, 1.5 * math.sqrt(3.0) * q)) / 3.0
    r = 2.0 / math.sqrt(3.0)
    v = r * math.cos(phi - 2.0 * math.pi / 3.0)  # smaller root in (0, 1)
    w = 1.0 - r * math.cos(phi)  # 1 - larger root, solves w (1 - w) (2 - w) = q
    for _ in range(3):  # polish (the trigonometric form loses digits for large |c|)
        dv = 3.0 * v * v - 1.0
        if abs(dv) > 1e-6:
            v -= (v * v * v - v + q) / dv
        dw = 2.0 - 6.0 * w + 3.0 * w * w
        if abs(dw) > 1e-6:
            w -= (w * (1.0 - w) * (2.0 - w) - q) / dw
    w = min(max(w, 1e-300), 1.0)
    return math.log((1.0 + v) / (1.0 - v)), math.log((2.0 - w) / w)


def _evaluate(cells, gamma, n, b2, n_threads, store=None):
    """Dual objective F(gamma), F'(gamma), F''(gamma) summed over the cells of one label."""
    f = f1 = f2 = 0.0
    for k, (uc, lam) in enumerate(cells):
        t = gamma * lam
        z1, z2 = _critical_points(0.5 * t * b2)
        out = () if store is None else store[k]
        cost, ssig, curv = _wasserstein.cell_sums(uc, t, b2, z1, z2, n_threads, *out)
        f += cost + t * ssig
        f1 += lam * ssig
        f2 -= 0.5 * lam * lam * b2 * curv
    return f / n, f1 / n, f2 / n


def _solve_part(u, idx, lam, n, b2, n_threads):
    """Solve sup_gamma F(gamma) for the two cells of one label; plug-in theta."""
    cells = [(np.ascontiguousarray(u[i]), l_) for i, l_ in zip(idx, lam)]
    h = [special.expit(uc) for uc, _ in cells]
    c = sum(l_ * hc.sum() for hc, (_, l_) in zip(h, cells)) / n
    dsig = [hc * (1.0 - hc) for hc in h]
    m_scale = b2 * sum(l_ * l_ * (ds * ds).sum() for ds, (_, l_) in zip(dsig, cells)) / n
    common = sum(hc.sum() for hc in h) / sum(len(hc) for hc in h)  # mean of h given y
    spread = sum(l_ * l_ * ((hc - common) ** 2).sum() for hc, (_, l_) in zip(h, cells)) / n
    theta = spread / m_scale if m_scale > 0 else math.nan
    result = {"cells": cells, "idx": idx, "lam": lam, "c": c, "M": m_scale, "theta": theta}
    if b2 == 0.0:  # constant classifier: always fair, nothing moves
        result.update(gamma=0.0, R=0.0, residual=0.0, iterations=0)
        return result
    _check_not_saturated(dsig, cells, spread, m_scale, n, b2)
    gamma, value, residual, iterations = _maximize_dual(cells, c, m_scale, n, b2, n_threads)
    result.update(gamma=gamma, R=max(value, 0.0), residual=residual, iterations=iterations)
    return result


def _maximize_dual(cells, c, m_scale, n, b2, n_threads):
    """Safeguarded Newton on F'(gamma) = 0 (F concave), from the bracket [0, inf).

    Works with tau = sign(c) * gamma >= 0, where g(tau) = sign(c) F'(gamma) decreases from
    |c| to -1. Returns (gamma*, F(gamma*), F'(gamma*), evaluations).
    """
    if c == 0.0:
        return 0.0, 0.0, 0.0, 0
    sign = 1.0 if c > 0 else -1.0
    scale = sum(abs(l_) * len(uc) for uc, l_ in cells) / n  # sum |lambda| / N (= 2)
    ftol = 1e-13 * scale
    lo, hi = 0.0, math.inf
    tau = 2.0 * abs(c) / m_scale if m_scale > 0 and math.isfinite(2 * abs(c) / m_scale) else 1.0
    best = (0.0, 0.0, c)
    for it in range(1, _MAX_ITER + 1):
        f, f1, f2 = _evaluate(cells, sign * tau, n, b2, n_threads)
        g, dg = sign * f1, f2  # dg = d g / d tau = F'' <= 0
        if abs(g) < abs(best[2]) or it == 1:
            best = (sign * tau, f, f1)
        if abs(g) <= ftol:
            return sign * tau, f, f1, it
        if g > 0:
            lo = tau
        else:
            hi = tau
        if math.isfinite(hi) and hi - lo <= 1e-15 * hi:
            break
        step = tau - g / dg if dg < 0 else math.nan
        if math.isfinite(hi):
            if not (lo < step < hi):
                step = 0.5 * (lo + hi)
        elif not (step > lo):
            step = 2.0 * max(tau, lo)
        else:
            step = min(step, 64.0 * max(tau, lo) + 1.0)
        tau = step
    else:
        raise RuntimeError("the dual problem did not converge; please report this data")
    # kink: F' jumps across zero at tau*; the value is continuous, take the better end
    f_lo = _evaluate(cells, sign * lo, n, b2, n_threads)
    f_hi = _evaluate(cells, sign * hi, n, b2, n_threads)
    if f_lo[0] >= f_hi[0]:
        return sign * lo, f_lo[0], f_lo[1], it + 2
    return sign * hi, f_hi[0], f_hi[1], it + 2


def _favorable(X, u, cell, groups, codes, y01, parts, direction, b2, n, n_threads, scale=1.0):
    """Moved samples of every constrained label; rows split at a kink of the dual. With
    magnified scores (`scale` > 1, see `_scores`) the moves and constraints are divided by
    `scale`."""
    steps = np.zeros(n)  # each row moves by steps[i] * direction, costing b2 * steps[i]^2
    extra_src, extra_steps, extra_w = [], [], []
    weight = np.full(n, 1.0 / n)
    constraint = []
    for part in parts:
        if part["R"] == 0.0 and part["gamma"] == 0.0:
            constraint.append(part["c"])
            continue
        store = [tuple(np.empty(len(uc)) for _ in range(3)) for uc, _ in part["cells"]]
        _, residual, _ = _evaluate(part["cells"], part["gamma"], n, b2, n_threads, store)
        for (uc, _), (z, _, _), rows in zip(part["cells"], store, part["idx"]):
            steps[rows] = (z - uc) / b2
        if abs(residual) > 1e-12:
            residual = _split_at_kink(
                part, store, residual, n, b2, extra_src, extra_steps, extra_w, weight
            )
        constraint.append(residual / scale)
    steps /= scale
    X_out = X + np.outer(steps, direction) if b2 > 0 else X.copy()
    source = np.arange(n)
    cost = float(np.dot(weight, steps * steps) * b2)
    if extra_src:
        extra_src = np.array(extra_src, dtype=np.intp)
        extra_steps = np.array(extra_steps) / scale
        X_out = np.vstack([X_out, X[extra_src] + np.outer(extra_steps, direction)])
        source = np.concatenate([source, extra_src])
        weight = np.concatenate([weight, np.array(extra_w)])
        cost += float(np.dot(extra_w, extra_steps * extra_steps) * b2)
    cons = float(constraint[0]) if len(constraint) == 1 else np.array(constraint)
    return FavorableDistribution(
        X=X_out,
        group=groups[codes[source]],
        y_true=y01[source].astype(np.int64),
        weight=weight,
        source=source,
        transport_cost=cost,
        constraint=cons,
    )


def _split_at_kink(part, store, residual, n, b2, extra_src, extra_steps, extra_w, weight):
    """Send part of the mass of tied samples to their other minimizer to zero the residual."""
    candidates = []
    for (uc, lam), (z, alt, gap), rows in zip(part["cells"], store, part["idx"]):
        for j in np.flatnonzero(np.isfinite(alt)):
            delta = lam * (special.expit(alt[j]) - special.expit(z[j])) / n  # full move
            if delta * residual < 0:
                candidates.append((gap[j], rows[j], (alt[j] - uc[j]) / b2, delta))
    candidates.sort(key=lambda item: item[0])
    for _gap, row, step, delta in candidates:
        if abs(residual) <= 1e-15:
            break
        frac = min(1.0, -residual / delta)
        residual += frac * delta
        weight[row] -= frac / n
        extra_src.append(row)
        extra_steps.append(step)
        extra_w.append(frac / n)
    return residual


def _weighted_chi2_sf(s: float, weights) -> float:
    """P(sum_k w_k chi2_1 > s) for one or two non-negative weights.

    Two weights: with (Z0, Z1) = R (cos phi, sin phi), R^2 ~ chi2_2,
    P = (2/pi) int_0^{pi/2} exp(-s / (2 (w0 cos^2 phi + w1 sin^2 phi))) dphi.
    """
    w = [float(x) for x in weights if x > 0]
    if s <= 0:
        return 1.0
    if not w:
        return 0.0
    if len(w) == 1:
        return float(special.chdtrc(1, s / w[0]))
    w0, w1 = w

    def integrand(phi):
        return math.exp(-s / (2.0 * (w0 * math.cos(phi) ** 2 + w1 * math.sin(phi) ** 2)))

    val, _ = integrate.quad(integrand, 0.0, 0.5 * math.pi, epsabs=0.0, epsrel=1e-12, limit=200)
    return float(min(1.0, 2.0 / math.pi * val))


def _chi2_mixture_tail(statistic: float, thetas, alpha: float):
    """(p-value, critical value at alpha) of sum_k theta_k chi2_1."""
    thetas = np.asarray(thetas, dtype=np.float64)
    if np.isnan(thetas).any():  # constant classifier
        return 1.0, math.inf
    w = [float(x) for x in thetas if x > 0]
    if not w:
        return (1.0 if statistic <= 0 else 0.0), 0.0
    pvalue = _weighted_chi2_sf(statistic, w)
    if len(w) == 1:
        return pvalue, float(w[0] * special.chdtri(1, alpha))
    lo = max(w) * stats.chi2.isf(alpha, 1)
    hi = max(w) * stats.chi2.isf(alpha, 2) * (1.0 + 1e-9)
    threshold = optimize.brentq(
        lambda s: _weighted_chi2_sf(s, w) - alpha, lo, hi, xtol=1e-12, rtol=1e-12
    )
    return pvalue, float(threshold)


def _result(parts, criterion, alpha, n, groups, counts, means, favorable, scale=1.0):
    """The test from the projections of each compared outcome: the statistic n sum R, its
    p-value and critical value from the chi-square mixture, and the result; the p-value
    and the decision from magnified scores (`scale` > 1), the other figures scaled back."""
    stat_parts = np.array([n * p["R"] for p in parts])
    statistic = float(stat_parts.sum())
    thetas = np.array([p["theta"] for p in parts])
    if criterion == "equal_opportunity":
        pvalue, threshold = _chi2_mixture_tail(statistic, thetas[:1], alpha)
    else:
        pvalue, threshold = _chi2_mixture_tail(statistic, thetas, alpha)
    reject = bool(statistic > threshold)
    q = scale * scale  # a power of two: exact, and 1 unless the scores were magnified

    def per_label(values):
        values = np.asarray(values, dtype=np.float64)
        return float(values[0]) if criterion == "equal_opportunity" else values

    return WassersteinTestResult(
        statistic=statistic / q,
        pvalue=pvalue,
        threshold=threshold / q,
        reject=reject,
        alpha=alpha,
        criterion=criterion,
        distance=float(sum(p["R"] for p in parts)) / q,
        distance_parts=per_label([p["R"] / q for p in parts]),
        theta=per_label(thetas / q),
        gamma=per_label([p["gamma"] / scale for p in parts]),
        difference=per_label([p["c"] / scale for p in parts]),
        n=n,
        groups=groups,
        cell_counts=counts,
        cell_means=means.reshape(2, 2),
        favorable=favorable,
    )
