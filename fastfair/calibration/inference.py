"""Inference: the estimates from the statistics, then packing (calibration and impact): the
calibration errors of binned sums or of a fitted map, the impact per group, and the fair
thresholds from the groups' curves."""

from __future__ import annotations

import numpy as np

from fastfair._clustered import weighted_quantiles
from fastfair._validation import show_value
from fastfair.calibration.results import FairThresholds, _key


def _inverse_threshold(grid, fmono, v):
    """Smallest s on the grid (linear interpolation) with running-max curve >= v; NaN if none."""
    j = int(np.searchsorted(fmono, v, side="left"))
    if j >= fmono.size or not np.isfinite(fmono[j]):
        return np.nan
    if j == 0:
        return grid[0] if fmono[0] == v else -np.inf
    f0, f1 = fmono[j - 1], fmono[j]
    if not np.isfinite(f0) or f1 <= f0:
        return grid[j]
    return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1])


def _binned_error(ysum, ssum, count, n, p):
    nz = count > 0
    gap = np.abs(ysum[nz] / count[nz] - ssum[nz] / count[nz])
    return float((np.sum(count[nz] / n * gap**p)) ** (1.0 / p))


def _root_mean_square_gap(calibrated, s, w, at: str) -> float:
    """The TCE of a fitted map `calibrated`: the root of the w-weighted mean of
    (s - calibrated(s))^2 over the rows, or of the mean over the 100 weighted percentiles
    of s (at="quantiles")."""
    if at == "quantiles":
        q = weighted_quantiles(s, w, (np.arange(100) + 0.5) / 100)
        return float(np.sqrt(np.mean((q - calibrated(q)) ** 2)))
    f = calibrated(s)
    return float(np.sqrt(np.sum(w * (s - f) ** 2) / w.sum()))


def _per_group_mean(values, codes, n_groups) -> tuple[np.ndarray, np.ndarray]:
    """(mean of `values` per group, rows per group): an impact measure's value per group."""
    n = np.bincount(codes, minlength=n_groups)
    return np.bincount(codes, weights=values, minlength=n_groups) / n, n


# --------------------------------------------------------------------------------------
# Fair thresholds (Sec. 6.1): the common marginal outcome v and each group's threshold


def _fair_thresholds(pts, curve, s, codes, labels, threshold, keep_positive_rate, reference):
    """:func:`fastfair.fair_thresholds` from the groups' curves on the grid `pts`.

    v is the group-size weighted mean of the curves at t, the reference group's value
    there, or (keep_positive_rate) the value whose thresholds keep the overall positive
    rate; each group's threshold is the smallest score where its running-max curve reaches
    v.
    """
    K = len(labels)
    est = curve.estimate
    fmono = np.fmax.accumulate(np.where(np.isnan(est), -np.inf, est), axis=1)
    at_t = np.array([np.interp(threshold, pts, np.nan_to_num(e, nan=np.nanmean(e))) for e in est])
    rates = _PositiveRates(s, codes, K)
    rate_before = rates.per_group(np.full(K, float(threshold)))
    overall_before = rates.overall(rate_before)
    ref = None
    if keep_positive_rate:
        v = _rate_keeping_outcome(pts, fmono, rates, overall_before)
    elif reference is not None:
        index = {_key(g): k for k, g in enumerate(labels)}
        if _key(reference) not in index:
            raise ValueError(f"reference {show_value(reference)} is not a group label")
        ref = index[_key(reference)]
        v = float(at_t[ref])
    else:
        v = float((at_t * rates.n).sum() / rates.n.sum())
    ts = _thresholds_at(pts, fmono, v)
    if ref is not None:
        ts[ref] = float(threshold)
    bad = [str(_key(labels[k])) for k in range(K) if not np.isfinite(ts[k])]
    if bad:
        raise ValueError(
            f"no threshold in the scored range gives group(s) {bad} the marginal outcome "
            f"{v:.4f}: their estimated outcome curve does not cross it"
        )
    rate_after = rates.per_group(ts)
    return FairThresholds(
        labels,
        ts,
        v,
        float(threshold),
        at_t,
        rate_before,
        rate_after,
        overall_before,
        rates.overall(rate_after),
        curve,
    )


class _PositiveRates:
    """Each group's share of scores at or above its threshold, and the overall share."""

    def __init__(self, s, codes, n_groups):
        self.n = np.bincount(codes, minlength=n_groups)
        self.sorted = [np.sort(s[codes == k]) for k in range(n_groups)]

    def per_group(self, ts) -> np.ndarray:
        return np.array(
            [
                1.0 - np.searchsorted(x, t, side="left") / n
                for x, t, n in zip(self.sorted, ts, self.n)
            ]
        )

    def overall(self, per_group) -> float:
        return float((per_group * self.n).sum() / self.n.sum())


def _thresholds_at(pts, fmono, v) -> np.ndarray:
    """Each group's smallest score whose running-max curve reaches v (NaN: none)."""
    return np.array([_inverse_threshold(pts, f, v) for f in fmono])


def _rate_keeping_outcome(pts, fmono, rates, target) -> float:
    """The common marginal outcome whose thresholds give the overall positive rate
    `target`: bisection (100 halvings) on the range of v where every group has a threshold
    inside the grid (the rate is non-increasing in v)."""
    v_lo = max(float(f[np.isfinite(f)][0]) for f in fmono)
    v_hi = min(float(f[-1]) for f in fmono)
    if not v_lo < v_hi:
        raise ValueError(
            "no common marginal outcome exists: the groups' estimated outcome ranges "
            "do not overlap on the scored range"
        )

    def overall(v):
        return rates.overall(rates.per_group(_thresholds_at(pts, fmono, v)))

    r_lo, r_hi = overall(v_lo), overall(v_hi)
    if not r_hi <= target <= r_lo:
        raise ValueError(
            f"no thresholds keep the overall positive rate {target:.4f}: with equal "
            f"marginal outcomes it ranges over [{r_hi:.4f}, {r_lo:.4f}] in the scored range"
        )
    a, b = v_lo, v_hi
    for _ in range(100):
        mid = 0.5 * (a + b)
        if overall(mid) > target:
            a = mid
        else:
            b = mid
    return b if abs(overall(b) - target) <= abs(overall(a) - target) else a
