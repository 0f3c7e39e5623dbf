"""Inference: the test on the statistics (p-values, intervals), then packing (sample size and
power)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from fastfair._scipy import special
from fastfair._score import restricted_mle, score_statistic
from fastfair._validation import show_value
from fastfair.planning.ingest import (
    _MAX_UNITS,
    _RATE_METRICS,
    _as_rate_dict,
    _check_alternative,
    _check_metric,
    _check_open01,
    _check_population,
    _check_reference,
    _metric_rate_names,
    _needed_rates,
)
from fastfair.planning.statistics import _num_den, _rows_from_cells


def _get_rate(rates: dict[str, np.ndarray], key: str, metric: str) -> np.ndarray:
    if key in rates:
        return rates[key]
    comp = _RATE_METRICS.get(key, (None, None))[0] if key in _RATE_METRICS else None
    if comp is not None and comp in rates:
        return 1.0 - rates[comp]
    need = _needed_rates(metric)
    missing = [n for n in need if n not in rates and _RATE_METRICS.get(n, (None,))[0] not in rates]
    alt = f" (or its complement {comp!r})" if comp else ""
    raise ValueError(
        f"metric {metric!r} needs the per-group rates {need}; missing {key!r}{alt}. "
        f"Missing overall: {missing}"
    )


def _hanley_mcneil_unit_variance(auc: np.ndarray, prevalence: np.ndarray) -> np.ndarray:
    q1 = auc / (2.0 - auc)
    q2 = 2.0 * auc**2 / (1.0 + auc)
    return (q1 - auc**2) / (1.0 - prevalence) + (q2 - auc**2) / prevalence


def _unit_variances_and_values(
    metric: str, rates: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    if metric == "auc":
        a = _get_rate(rates, "auc", metric)
        prev = _get_rate(rates, "prevalence", metric)
        return _hanley_mcneil_unit_variance(a, prev), a
    r = _get_rate(rates, metric, metric)
    _, den = _RATE_METRICS[metric]
    if den is None:
        d = np.ones_like(r)
    elif den == "prevalence":
        d = _get_rate(rates, "prevalence", metric)
    elif den == "negatives":
        d = 1.0 - _get_rate(rates, "prevalence", metric)
    elif den == "selection_rate":
        d = _get_rate(rates, "selection_rate", metric)
    else:
        d = 1.0 - _get_rate(rates, "selection_rate", metric)
    return r * (1.0 - r) / d, r


def _sigma2_from_args(
    metric: Any, rates: Any, sigma2: Any
) -> tuple[str | None, np.ndarray, dict[str, np.ndarray] | None]:
    if rates is not None and sigma2 is not None:
        raise ValueError("give either rates or sigma2, not both")
    if rates is None and sigma2 is None:
        name = _check_metric(metric, allow_none=True)
        need = _needed_rates(name) if name else ["..."]
        raise ValueError(
            f"missing rates: give rates={{...}} with the per-group {need} or the per-group unit "
            "variances sigma2=[...]"
        )
    if sigma2 is not None:
        name = _check_metric(metric, allow_none=True)
        s2 = np.asarray(sigma2, dtype=float)
        if s2.ndim != 1 or s2.size < 2:
            raise ValueError(
                f"sigma2 must be a 1-d sequence with one variance per group (at least two); "
                f"got shape {s2.shape}"
            )
        if not np.all(np.isfinite(s2) & (s2 > 0)):
            raise ValueError(f"sigma2 must be finite and > 0 for every group; got {s2}")
        return name, s2, None
    name = _check_metric(metric)
    rd = _as_rate_dict(rates)
    s2, _ = _unit_variances_and_values(name, rd)
    return name, s2, rd


def _others(k: int, ref: int) -> np.ndarray:
    return np.array([g for g in range(k) if g != ref], dtype=np.intp)


def _neyman_fractions(sigma2: np.ndarray, ref: int) -> np.ndarray:
    """Allocation minimising the total n so that every comparison with ``ref`` has the target
    power. For two groups this is Neyman's ``p_1 = sigma_1 / (sigma_1 + sigma_2)``; for ``k``
    groups ``p_ref = sigma_ref / (sigma_ref + sqrt(S))`` and
    ``p_g = sigma_g^2 / (sqrt(S) (sigma_ref + sqrt(S)))`` with ``S = sum_{g != ref} sigma_g^2``
    (the square-root rule for comparisons with a control)."""
    sigma2 = np.asarray(sigma2, dtype=float)
    k = sigma2.shape[-1]
    oth = _others(k, ref)
    sr = np.sqrt(sigma2[..., ref])
    rs = np.sqrt(np.sum(sigma2[..., oth], axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = sigma2 / (rs * (sr + rs))[..., None]
        p[..., ref] = sr / (sr + rs)
    return p


def _allocation_fractions(allocation: Any, sigma2: np.ndarray, ref: int) -> tuple[np.ndarray, str]:
    k = sigma2.shape[-1]
    if isinstance(allocation, str):
        if allocation == "neyman":
            return _neyman_fractions(sigma2, ref), "neyman"
        if allocation == "equal":
            return np.full(sigma2.shape, 1.0 / k), "equal"
        raise ValueError(
            f"allocation must be 'neyman', 'equal', a fraction for the first group or one "
            f"fraction per group; got {show_value(allocation)}"
        )
    a = np.asarray(allocation, dtype=float)
    if a.ndim == 0:
        if k != 2:
            raise ValueError(
                f"a scalar allocation (the first group's fraction) needs two groups; with {k} "
                "groups give one fraction per group"
            )
        a = np.array([float(a), 1.0 - float(a)])
    if a.shape != (k,):
        raise ValueError(f"allocation must have one fraction per group ({k}); got {a.shape}")
    if not np.all((a > 0) & (a < 1)) or abs(a.sum() - 1.0) > 1e-8:
        raise ValueError(f"allocation fractions must be in (0, 1) and sum to 1; got {a.tolist()}")
    return np.broadcast_to(a, sigma2.shape).copy(), "given"


def _critical(alpha: float, k: int, alternative: str) -> tuple[float, float]:
    a = alpha / (k - 1)
    z = special.ndtri(1.0 - a / 2.0) if alternative == "two-sided" else special.ndtri(1.0 - a)
    return float(z), a


def _plan_fields(
    metric: str | None,
    sigma2: np.ndarray,
    rates: dict[str, np.ndarray] | None,
    u_tol: float,
    alpha: Any,
    alternative: Any,
    reference_index: Any,
    population_sizes: Any,
) -> dict[str, Any]:
    """Check the options every plan shares and return the fields of its result that they
    set (``_PlanBase``), with the Bonferroni critical value. ``alternative="equivalence"``
    (TOST) uses the one-sided critical value."""
    k = sigma2.size
    alpha = _check_open01(alpha, "alpha")
    if alternative != "equivalence":
        alternative = _check_alternative(alternative)
    ref = _check_reference(reference_index, k)
    pop = _check_population(population_sizes, k)
    z, a_c = _critical(alpha, k, "greater" if alternative == "equivalence" else alternative)
    return {
        "metric": metric,
        "sigma2": sigma2,
        "rates": rates,
        "u_tol": u_tol,
        "alpha": alpha,
        "alternative": alternative,
        "reference_index": ref,
        "alpha_per_comparison": a_c,
        "z_critical": z,
        "population_sizes": pop,
    }


def _n_required(
    sigma2: np.ndarray,
    p: np.ndarray,
    ref: int,
    delta: np.ndarray,
    zsum: float,
    population: np.ndarray | None,
) -> np.ndarray:
    """Smallest total n with every comparison's ``se <= delta / zsum`` (eq. 2 with FPC)."""
    k = sigma2.shape[-1]
    oth = _others(k, ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sigma2 > 0, sigma2 / p, 0.0)
        num = ratio[..., ref : ref + 1] + ratio[..., oth]
        c = (np.asarray(delta, dtype=float)[..., None] / zsum) ** 2
        if population is not None:
            fpc = sigma2[..., ref : ref + 1] / population[ref] + sigma2[..., oth] / population[oth]
            c = c + fpc
        return np.max(num / c, axis=-1)


def _se_comparisons(
    sigma2: np.ndarray, n_per_group: np.ndarray, ref: int, population: np.ndarray | None
) -> np.ndarray:
    k = sigma2.shape[-1]
    oth = _others(k, ref)
    var = sigma2 / n_per_group
    if population is not None:  # a census (n_g = N_g, up to the float error that
        # _check_feasible lets through) has no sampling variance: 0, never below
        var = var * np.maximum(1.0 - n_per_group / population, 0.0)
    return np.sqrt(var[..., ref : ref + 1] + var[..., oth])


def _ceil(x: np.ndarray) -> np.ndarray:
    """Units to collect: x rounded up, except a float error of at most a relative 1e-12 (and
    1e-6 units) above an integer; sizes above _MAX_UNITS (or NaN) refused."""
    x = np.asarray(x)
    if not np.all(x <= _MAX_UNITS):  # also catches NaN
        raise ValueError(
            f"the sample size needed exceeds {_MAX_UNITS:.3g} units: tau - u_tol is too small "
            "to detect with any audit"
        )
    down = np.floor(x)  # a float error just above an integer (7.000000000000001) is that
    near = x - down <= np.minimum(1e-12 * x, 1e-6)  # integer, never more than 1e-6 below x
    return np.where(near, down, np.ceil(x)).astype(np.int64)


def _tost_power(t: np.ndarray, delta: float, se: np.ndarray, z: float) -> np.ndarray:
    """Asymptotic TOST power: Phi((delta - tau)/se - z) + Phi((delta + tau)/se - z) - 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.asarray(t)[..., None]
        pw = special.ndtr((delta - a) / se - z) + special.ndtr((delta + a) / se - z) - 1.0
    return np.maximum(pw, 0.0)


def _n_required_score(name, rd, p, ref, gap, u_tol, z, zb, pop) -> np.ndarray:
    """n of the score test: (z sqrt(V~) + z_b sqrt(V))^2 / gap^2, largest over comparisons.

    Per unit of total n, a comparison's variance is V = sum r (1 - r) / (p den) over its two
    groups (den: the metric's denominator fraction, e.g. the prevalence for TPR), and V~ the
    same at the rates fitted by maximum likelihood under U = u_tol in the direction of the
    presumed gap (fastfair._score.restricted_mle on the expected counts).
    """
    if rd is None or name not in _RATE_METRICS or pop is not None:
        raise ValueError(
            "variance='score' plans rate metrics from rates=, without population_sizes"
        )
    s2, r = _unit_variances_and_values(name, rd)
    den = r * (1.0 - r) / s2
    oth = _others(s2.size, ref)
    n1, n2 = p[ref] * den[ref], p[oth] * den[oth]
    sign = np.where(r[ref] >= r[oth], 1.0, -1.0)
    q1, q2 = restricted_mle(r[ref] * n1, n1, r[oth] * n2, n2, sign * u_tol)
    v_null = q1 * (1 - q1) / n1 + q2 * (1 - q2) / n2
    v_alt = r[ref] * (1 - r[ref]) / n1 + r[oth] * (1 - r[oth]) / n2
    gap = np.asarray(gap, dtype=float)[..., None]
    return np.max((z * np.sqrt(v_null) + zb * np.sqrt(v_alt)) ** 2 / gap**2, axis=-1)


def _n_per_group_from_args(
    n: Any, n_per_group: Any, allocation: Any, s2: np.ndarray, ref: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    k = s2.size
    if (n is None) == (n_per_group is None):
        raise ValueError("give exactly one of n (total, split by allocation) or n_per_group")
    if n_per_group is not None:
        npg = np.asarray(n_per_group, dtype=float)
        if npg.ndim == 0 or npg.shape[-1] != k:
            raise ValueError(
                f"n_per_group must have a last axis of length {k} (one size per group); got "
                f"shape {npg.shape}"
            )
        if not np.all(np.isfinite(npg) & (npg > 0)):
            raise ValueError("n_per_group must be finite and > 0")
        return npg.sum(axis=-1), npg, None
    nn = np.asarray(n, dtype=float)
    if not np.all(np.isfinite(nn) & (nn > 0)):
        raise ValueError(f"n must be finite and > 0; got {show_value(n)}")
    p, _ = _allocation_fractions(allocation, s2, ref)
    return nn, nn[..., None] * p, p


def _sigma2_batch(metric: str, rates: dict[str, np.ndarray]) -> np.ndarray:
    """Unit variances without range checks (for bootstrap resamples)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "auc":
            return _hanley_mcneil_unit_variance(rates["auc"], rates["prevalence"])
        primary = _metric_rate_names(metric)[0]
        r = rates[primary]
        _, den = _RATE_METRICS[metric]
        d = {
            None: 1.0,
            "prevalence": rates.get("prevalence"),
            "negatives": None if "prevalence" not in rates else 1.0 - rates["prevalence"],
            "selection_rate": rates.get("selection_rate"),
            "non_selected": None
            if "selection_rate" not in rates
            else 1.0 - rates["selection_rate"],
        }[den]
        return r * (1.0 - r) / d


def _wald_rates(metric: str, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    num, den = _num_den(metric, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(den > 0, num / np.maximum(den, 1), 0.5)
        v = np.where(den > 0, m * (1 - m) / np.maximum(den, 1), np.inf)
    return m, v


def _wald_differences(metric: str, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``M_hat_0 - M_hat_1`` and its plug-in variance from cell counts (n_sim, 2, 4)."""
    m, v = _wald_rates(metric, c)
    return m[:, 0] - m[:, 1], v[:, 0] + v[:, 1]


def _wald_z(est: np.ndarray, var: np.ndarray) -> Callable[[float], np.ndarray]:
    """``Z(d)`` of ``H0: M_0 - M_1 = d``, studentized by the estimated variance."""

    def z_of(d: float) -> np.ndarray:
        return _studentize(est - d, var)

    return z_of


def _score_z(metric: str, c: np.ndarray) -> Callable[[float], np.ndarray]:
    """``Z(d)`` of the Miettinen-Nurminen score test from cell counts (n_sim, 2, 4); NaN
    (never rejects) where a denominator is empty and the audit cannot test."""
    num, den = _num_den(metric, c)
    ok = (den > 0).all(axis=1)

    def z_of(d: float) -> np.ndarray:
        x, n_ = np.where(ok[:, None], num, 0.5), np.where(ok[:, None], den, 1.0)
        z = score_statistic(x[:, 0], n_[:, 0], x[:, 1], n_[:, 1], d)
        return np.where(ok, z, np.nan)

    return z_of


def _asymptotic_rejections(sim: Any, z_of: Callable[[float], np.ndarray]) -> np.ndarray:
    """Which simulated audits reject: TOST with ``sim.delta``, else ``H0: U <= u_tol`` for
    the gap ``U`` oriented in the direction of the true difference (two-sided: ``|U|``)."""
    alpha, sign, u_tol = sim.alpha, sim.sign, sim.u_tol
    with np.errstate(invalid="ignore"):
        if sim.delta is not None:
            zc = special.ndtri(1 - alpha)
            return (z_of(-sim.delta) > zc) & (z_of(sim.delta) < -zc)
        # oriented gap sign * (M_0 - M_1): Z_oriented(u) = sign * Z(sign * u)
        upper = sign * z_of(sign * u_tol)
        if sim.alternative == "two-sided":
            zc = special.ndtri(1 - alpha / 2)
            return (upper > zc) | (sign * z_of(-sign * u_tol) < -zc)
        return upper > special.ndtri(1 - alpha)


def _permutation_rejections(
    sim: Any,
    counts: np.ndarray,
    rng: np.random.Generator,
    method: str,
    n_permutations: int,
    n_jobs: int | None,
    permutation_kwargs: Mapping[str, Any] | None,
) -> np.ndarray:
    """Which simulated audits :func:`fastfair.permutation_test` rejects at ``sim.alpha``
    (reference group 1, so the difference is ``M_0 - M_1``; "greater" tests the direction
    of the true difference). Each audit gets its own seed drawn from ``rng``."""
    from fastfair.permutation import permutation_test

    seeds = rng.integers(0, 2**63 - 1, size=sim.n_sim)
    extra: dict[str, Any] = {"n_permutations": n_permutations, **(permutation_kwargs or {})}
    if n_jobs is not None:
        extra["n_jobs"] = n_jobs
    perm_alt = "two-sided"
    if sim.alternative == "greater":
        perm_alt = "greater" if sim.sign > 0 else "less"
    reject = np.empty(sim.n_sim, dtype=bool)
    for b in range(sim.n_sim):
        y, yhat, g = _rows_from_cells(counts[b])
        res = permutation_test(
            y,
            yhat,
            g,
            metric=sim.metric,
            method=method,
            alternative=perm_alt,
            reference=1,
            random_state=int(seeds[b]),
            **extra,
        )
        reject[b] = float(res.pvalue) <= sim.alpha
    return reject


def _studentize(diff: np.ndarray, var: np.ndarray) -> np.ndarray:
    se = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(diff == 0, 0.0, diff / se)
    return np.nan_to_num(s, nan=0.0)


def _bootstrap_plans(
    plan: Any, boot: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The plan's total n and n per group recomputed on each bootstrap resample of the
    pilot rates, and which resamples give a finite plan. An allocation rule ("neyman",
    "equal") is applied to each resample; given fractions stay fixed."""
    metric, ref = plan.metric, plan.reference_index
    s2b = _sigma2_batch(metric, boot)
    if plan.allocation_rule != "given":
        pb, _ = _allocation_fractions(plan.allocation_rule, np.nan_to_num(s2b, posinf=1e300), ref)
    else:
        pb = np.broadcast_to(plan.allocation, s2b.shape)
    zsum = plan.z_critical + plan.z_power
    nb = _n_required(s2b, pb, ref, np.asarray(plan.tau - plan.u_tol), zsum, plan.population_sizes)
    npgb = nb[:, None] * pb
    ok = np.isfinite(nb) & ~np.any(np.isnan(npgb), axis=1)
    return nb, npgb, ok


def _observed_difference(metric: str, point: dict[str, np.ndarray], ref: int) -> np.ndarray:
    """Pilot estimate of ``M_ref - M_g`` for each other group (the complement's gap flips)."""
    own = _metric_rate_names(metric)[0]
    vals = point[own]
    gap = vals[ref] - vals[_others(len(vals), ref)]
    return gap if own == _needed_rates(metric)[0] else -gap


def _n_required_tost(
    sigma2: np.ndarray,
    p: np.ndarray,
    ref: int,
    t: np.ndarray,
    delta: float,
    z: float,
    power: float,
) -> np.ndarray:
    """Smallest total n giving every comparison TOST power >= `power` (bisection in log n)."""
    k = sigma2.shape[-1]
    oth = _others(k, ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sigma2 > 0, sigma2 / p, 0.0)
    unit = ratio[..., ref : ref + 1] + ratio[..., oth]  # se^2 * n per comparison
    t = np.asarray(t, dtype=float)
    lo = np.full(t.shape, 0.0)
    hi = np.full(t.shape, 40.0)  # log n in [0, 40]
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        se = np.sqrt(unit / np.exp(mid)[..., None])
        ok = _tost_power(t, delta, se, z).min(axis=-1) >= power
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    return np.exp(hi)


# --------------------------------------------------------------------------------------------
# Exact plans: the audit's exact conditional test
# --------------------------------------------------------------------------------------------

#: Totals above the plan checked for power >= target (a discrete test's power is not monotone).
EXACT_WINDOW_POINTS = 10
#: Largest lattice (cells at the asymptotic n, see fastfair._conditional_power.lattice_cells)
#: an exact plan enumerates: ~3 times the TPR example's (36,000 at 6,900 rows).
EXACT_MAX_CELLS = 100_000


def _exact_applicable(name, rd, u_tol, delta, population_sizes) -> str | None:
    """Why the exact conditional test cannot be sized here (None when it can)."""
    if rd is None or name not in _RATE_METRICS:
        return "rate metrics given by rates= (the audit tests AUC differently)"
    if u_tol != 0 or delta is not None:
        return "u_tol = 0 without delta (the audit's test of no difference)"
    if population_sizes is not None:
        return "no population_sizes"
    return None


def _exact_alternatives(name, rd, ref, gap) -> tuple[np.ndarray, np.ndarray]:
    """Metric values of the alternative (the reference's rate kept, every other group `gap`
    away in the direction of its given rate) and each group's denominator fraction."""
    s2, r = _unit_variances_and_values(name, rd)
    den = r * (1.0 - r) / s2
    direction = np.where(r >= r[ref], 1.0, -1.0)
    alt = r[ref] + direction * gap
    alt[ref] = r[ref]
    if not np.all((alt > 0) & (alt < 1)):
        raise ValueError(
            f"tau (={gap:g}) puts a group's {name} outside (0, 1) away from the reference's "
            f"{r[ref]:.4g}; give rates whose difference is tau"
        )
    return alt, den


def _exact_too_large(name, rd, p, ref, t, start) -> bool:
    """Whether an exact plan would enumerate lattices above EXACT_MAX_CELLS (at the
    asymptotic n `start`, for any gap in `t` and comparison)."""
    from fastfair._conditional_power import lattice_cells

    t, start = np.asarray(t, dtype=float), np.asarray(start, dtype=float)
    for i in np.ndindex(t.shape):
        alt, den = _exact_alternatives(name, rd, ref, float(t[i]))
        for g in _others(p.size, ref):
            n = (start[i] * p[g], start[i] * p[ref])
            if lattice_cells(n, (den[g], den[ref]), (alt[g], alt[ref])) > EXACT_MAX_CELLS:
                return True
    return False


def _exact_power_at(total, p, alt, den, ref, alpha, alternative, bins=None) -> float:
    """Smallest exact power over the comparisons with ``ceil(total p_g)`` rows per group
    (`bins`: a coarser quadrature over the denominators, for a first search)."""
    from fastfair._conditional_power import BINS, exact_power

    sizes = _ceil(total * p)
    out = 1.0
    for g in _others(p.size, ref):
        side = 0 if alternative == "two-sided" else (1 if alt[g] > alt[ref] else -1)
        pw = exact_power(
            (sizes[g], sizes[ref]),
            (den[g], den[ref]),
            (alt[g], alt[ref]),
            alpha,
            side,
            bins or BINS,
        )
        out = min(out, pw)
    return out


def _bracket(power_at, n: int, smallest: int, target: float, step: float) -> tuple[int, int]:
    """(failing, passing) totals around `n`, stepping by the factor 1 + `step`."""
    if power_at(n) >= target:
        hi = lo = n
        while lo > smallest and power_at(lo) >= target:
            hi, lo = lo, max(smallest, min(lo - 1, int(lo / (1 + step))))
        if lo == smallest and power_at(lo) >= target:
            return lo - 1, lo
        return lo, hi
    lo, hi = n, max(n + 1, int(n * (1 + step)))
    while power_at(hi) < target:
        if hi > 1e9:
            raise ValueError("no audit of up to 1e9 rows reaches the target power")
        lo, hi = hi, max(hi + 1, int(hi * (1 + step)))
    return lo, hi


def _smallest_passing(power_at, lo: int, hi: int, target: float) -> int:
    """Bisection between a failing `lo` and a passing `hi` (lo < hi)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    return hi


def _window_failure(power_at, n: int, target: float) -> int | None:
    """The last total failing among up to EXACT_WINDOW_POINTS spread over the next
    max(10%, 20) totals above `n`, checked upward until one has power >= target + 0.01."""
    width = max(20, math.ceil(0.1 * n))
    failing = None
    for c in np.unique(np.linspace(n + 1, n + width, EXACT_WINDOW_POINTS).astype(int)):
        pw = power_at(int(c))
        if pw < target:
            failing = int(c)
        elif pw >= target + 0.01 and failing is None:
            return None
    return failing


def _exact_total(power_at, start: float, smallest: int, target: float) -> int:
    """Smallest total n from which the exact power stays >= target over the window.

    A coarse search (3 bins per denominator) from the asymptotic `start`, then the full
    quadrature: bracket within 0.4%, bisect, and check the window above (a discrete test's
    power is not monotone in n); a failing total moves the plan above it.
    """
    n = max(math.ceil(start), smallest)
    n = _smallest_passing(
        lambda m: power_at(m, 3),
        *_bracket(lambda m: power_at(m, 3), n, smallest, target, 0.15),
        target,
    )
    n = _smallest_passing(power_at, *_bracket(power_at, n, smallest, target, 0.004), target)
    for _ in range(20):
        failing = _window_failure(power_at, n, target)
        if failing is None:
            return n
        n = _smallest_passing(
            power_at, *_bracket(power_at, failing + 1, failing, target, 0.004), target
        )
    return n


def _n_required_exact(
    name, rd, p, ref, t, alpha_c, alternative, power, start
) -> tuple[np.ndarray, np.ndarray]:
    """Exact plan (total n) for each presumed gap in `t`, starting from the asymptotic n,
    and the exact power at each plan."""
    t = np.asarray(t, dtype=float)
    out, achieved = np.empty(t.shape), np.empty(t.shape)
    smallest = math.ceil(2.0 / p.min())  # at least two rows in every group
    for i in np.ndindex(t.shape):
        alt, den = _exact_alternatives(name, rd, ref, float(t[i]))
        cache: dict[tuple, float] = {}

        def power_at(total: int, bins=None, alt=alt, den=den, cache=cache) -> float:
            key = (bins, *_ceil(total * p).tolist())  # totals giving the same groups agree
            if key not in cache:
                cache[key] = _exact_power_at(total, p, alt, den, ref, alpha_c, alternative, bins)
            return cache[key]

        out[i] = _exact_total(power_at, float(np.asarray(start)[i]), smallest, power)
        achieved[i] = power_at(int(out[i]))
    return out, achieved
