"""Critical values of a threshold sweep on the scales of the statistic and of the gap."""

from __future__ import annotations

import numpy as np

from fastfair import _counts, _sweep
from fastfair._comparisons import check_rates_defined
from fastfair._exact import exact_pair
from fastfair._pvalues import monte_carlo_pvalue, orient_extremes, tie_tolerance
from fastfair.sweep.ingest import _STRATUM, _Sweep
from fastfair.sweep.statistics import _rates


def _exact_critical(values, probabilities, alpha) -> float:
    """Largest support value v with P(V >= v) > alpha: the test rejects above it."""
    order = np.argsort(values, kind="stable")
    v, pr = values[order], probabilities[order]
    tail = np.append(np.cumsum(pr[::-1])[::-1], 0.0)
    first = np.searchsorted(v, v - tie_tolerance(v), side="left")
    return float(v[tail[first] > alpha].max())


def _monte_carlo_critical(null, alpha) -> np.ndarray:
    """Per column of null (B, C): the value above which (1 + #{T_b >= t})/(1 + B) <= alpha.

    It is the j-th largest permuted value, j the smallest integer with (1 + j)/(1 + B) >
    alpha (ties do not change it); infinite when no statistic can reach alpha.
    """
    b = null.shape[0]
    j = int(np.floor(alpha * (b + 1) - 1)) + 1
    if j <= 0:
        return np.full(null.shape[1], np.inf)
    return np.partition(null, b - j, axis=0)[b - j]


def _gap_scale(critical, se):
    """Critical values of T as gaps: times the standard error (0 where the gap is always 0).

    An infinite critical value (too few permutations to reach alpha) stays infinite.
    """
    return np.where(se > 0, np.asarray(critical, dtype=np.float64) * np.where(se > 0, se, 1), 0.0)


def _test_metric(sweep: _Sweep, m: int, counts, logfact, key, n_threads) -> dict:
    """Metric m of the sweep tested at every threshold: the result's row of each field.

    `counts` are (above, totals, tables) of :func:`fastfair.sweep.statistics._sweep_counts`;
    `logfact` holds log(k!) up to the most rows among which group labels are permuted.
    """
    above, totals, tables = counts
    spec_metric = sweep.specs[m]
    n_thr = len(sweep.thresholds)
    pair_codes = np.array([[0, 1]], dtype=np.intp)
    check_rates_defined(spec_metric, tables[0].reshape(2, 4), sweep.pair_labels, pair_codes)
    spec = spec_metric.spec(True, True)
    observed = _counts.metric_statistics(tables, tables, spec, pair_codes)[:, 0]
    rates = _rates(spec_metric, tables)
    orient = {"two-sided": 0, "greater": 1, "less": -1}[sweep.alternative]
    maxima, null, _ = _sweep.permute_sweep(
        above,
        totals,
        _STRATUM[spec_metric.den_masks[0]],
        spec_metric.num_masks[0],
        rates.scale,
        rates.offset,
        orient,
        sweep.n_permutations,
        key,
        m,
        sweep.method == "monte_carlo",
        logfact,
        n_threads,
    )
    obs_o = orient_extremes(observed, observed, sweep.alternative)[0]
    if sweep.method == "exact":
        strata = spec_metric.strata("conditional")
        crit = np.empty(n_thr)
        p = np.empty(n_thr)
        for k in range(n_thr):
            p[k], support, probs = exact_pair(
                tables[k].reshape(2, 4).astype(np.int64),
                spec_metric,
                spec,
                strata,
                observed[k],
                sweep.alternative,
                False,
                want_null=True,
            )
            oriented = orient_extremes(support, 0.0, sweep.alternative)[0]
            crit[k] = _exact_critical(oriented, probs, sweep.alpha)
    else:  # null: (thresholds, B), oriented
        p = monte_carlo_pvalue(null.T, obs_o, "greater")[0]
        crit = _monte_carlo_critical(null.T, sweep.alpha)
    p_maxt = monte_carlo_pvalue(maxima[:, None], obs_o, "greater")[0]
    c_max = _monte_carlo_critical(maxima[:, None], sweep.alpha)[0]
    critical = _gap_scale(crit, rates.se)
    return dict(
        group_values=rates.rate,
        difference=rates.rate[:, 0] - rates.rate[:, 1],
        statistic=observed,
        standard_error=rates.se,
        pvalue=p,
        critical_value=critical,
        pvalue_adjusted=np.maximum(p_maxt, p),
        band=np.maximum(_gap_scale(c_max, rates.se), critical),
        max_critical=c_max,
        null_maxima=maxima,
    )
