"""Inference: swap permutations (exact or Monte Carlo), the asymptotic paired test,
intervals and the result."""

from __future__ import annotations

import numpy as np

from fastfair import _paired
from fastfair._comparisons import comparison_pairs
from fastfair._exact import MAX_EXACT_POINTS, ExactInfeasibleError
from fastfair._parallel import threads_for
from fastfair._pvalues import adjust_pvalues, asymptotic_pvalue, exact_pvalue, monte_carlo_pvalue
from fastfair._random import stream_key
from fastfair._scipy import special, stats
from fastfair._score import rate_limits
from fastfair.compare.ingest import AUC_ASYMPTOTIC_MIN_CLASS, EXACT_MAX_TABLES, _Options
from fastfair.compare.results import ModelComparisonResult
from fastfair.compare.statistics import (
    A_ONLY,
    B_ONLY,
    GapStatistics,
    PairedMoments,
    SortedScores,
    check_defined,
    discordant,
    gap_statistics,
    paired_auc_moments,
    paired_moments,
    swap_auc_moments,
)

_BLOCK = 2048  # permutations whose tables are held at once


def _relevant_labels(metric) -> np.ndarray:
    """Labels (0, 1) whose rows the metric reads: a swap among other rows changes nothing."""
    masks = [*metric.num_masks, *metric.den_masks]
    return np.array([any((m >> (2 * y + p)) & 1 for m in masks for p in (0, 1)) for y in (0, 1)])


def _check_not_identical(disc, relevant, groups, metric_name) -> None:
    if disc[np.ix_(groups, relevant)].sum() == 0:
        raise ValueError(
            "y_pred_a and y_pred_b are identical on every row that "
            f"{metric_name} reads in the compared groups: the change of gap is 0 by "
            "construction, there is nothing to test"
        )


def _set_swaps(tables, disc, strata, draws):
    """Tables with cell (y, 1, 0) of each stratum (group slot, group, label) set to the
    drawn count and (y, 0, 1) to the rest of its discordant rows."""
    for s, (slot, g, y) in enumerate(strata):
        tables[:, slot, A_ONLY[y]] = draws[:, s]
        tables[:, slot, B_ONLY[y]] = disc[g, y] - draws[:, s]
    return tables


def _strata(groups, disc, relevant):
    return [(k, g, y) for k, g in enumerate(groups) for y in (0, 1)
            if relevant[y] and disc[g, y] > 0]  # fmt: skip


def _exact_size(pairs, disc, relevant) -> float:
    """The largest number of tables an exact enumeration of one comparison visits."""
    return max(float(np.prod([disc[g, y] + 1.0 for _, g, y in _strata(pair, disc, relevant)]))
               for pair in pairs)  # fmt: skip


def _check_exact_feasible(pairs, disc, relevant) -> None:
    """method="exact" on many discordant rows would allocate the whole swap grid (a
    MemoryError for terabytes, or minutes and gigabytes below that): refuse it first."""
    size = _exact_size(pairs, disc, relevant)
    if size > MAX_EXACT_POINTS:
        raise ExactInfeasibleError(
            f"the exact test is infeasible here: enumerating the swap distribution needs "
            f"{size:.3g} tables (at most {MAX_EXACT_POINTS:,}); use method='permutation' "
            "(or 'asymptotic')"
        )


def _exact_null(counts, disc, relevant, pair, metric):
    """The statistics (N, n_parts) of every swap of one comparison and their probabilities
    (tables built `_BLOCK` at a time)."""
    strata = _strata(pair, disc, relevant)
    sizes = [disc[g, y] for _, g, y in strata]
    grid = np.stack([x.ravel() for x in np.meshgrid(*[np.arange(m + 1) for m in sizes],
                                                     indexing="ij")], axis=1)  # fmt: skip
    prob = np.ones(len(grid))
    for s, m in enumerate(sizes):
        prob *= stats.binom.pmf(grid[:, s], m, 0.5)
    one = np.array([[0, 1]], dtype=np.intp)
    blocks = []
    for start in range(0, len(grid), 16 * _BLOCK):
        part = grid[start : start + 16 * _BLOCK]
        tables = np.repeat(counts[list(pair)][None].astype(np.float64), len(part), axis=0)
        tables = _set_swaps(tables, disc, strata, part)
        blocks.append(gap_statistics(paired_moments(tables, metric), one).statistic[:, 0, :])
    return np.concatenate(blocks, axis=0), prob


def _combined(t):
    """Two-sided statistic of each comparison: |T| for one part, the sum of squares else."""
    return np.abs(t[..., 0]) if t.shape[-1] == 1 else (t * t).sum(axis=-1)


def _exact_pvalues(counts, disc, relevant, pairs, metric, observed, sign):
    """Two-sided p-values (n_c,) and those of "B moves the gap towards 0" (n_c, n_parts)."""
    two, toward = [], []
    for c, pair in enumerate(pairs):
        null, prob = _exact_null(counts, disc, relevant, pair, metric)
        two.append(exact_pvalue(_combined(null), prob, _combined(observed[c]), "greater"))
        toward.append([exact_pvalue(sign[c, j] * null[:, j], prob, sign[c, j] * observed[c, j],
                                    "less") for j in range(null.shape[1])])  # fmt: skip
    return np.array(two), np.array(toward)


def _swap_null(counts, disc, relevant, pairs, metric, options):
    """Statistics (B, n_comparisons, n_parts) of B random swap permutations (kernel draws,
    one counter-based stream per permutation)."""
    groups = np.arange(len(counts))
    strata = _strata(groups, disc, relevant)
    sizes = np.array([disc[g, y] for _, g, y in strata], dtype=np.int64)
    key, b_total = stream_key(options.random_state), options.n_permutations
    n_threads = threads_for(options.n_threads, b_total * max(len(sizes), 1), 20000)
    blocks = []
    for start in range(0, b_total, _BLOCK):
        n = min(_BLOCK, b_total - start)
        draws = _paired.paired_swaps(sizes, n, key, 0, n_threads, start)
        tables = np.repeat(counts[None].astype(np.float64), n, axis=0)
        tables = _set_swaps(tables, disc, strata, draws)
        blocks.append(gap_statistics(paired_moments(tables, metric), pairs).statistic)
    return np.concatenate(blocks, axis=0)


def _monte_carlo_pvalues(null, observed, sign):
    two, _ = monte_carlo_pvalue(_combined(null), _combined(observed), "greater")
    toward, _ = monte_carlo_pvalue(sign * null, sign * observed, "less")
    return np.asarray(two), np.asarray(toward)


def _asymptotic_pvalues(observed, sign):
    t = observed
    if t.shape[-1] == 1:
        two = asymptotic_pvalue(t[..., 0], "two-sided")
    else:  # the parts read disjoint rows (tpr positives, fpr negatives): chi-square
        two = asymptotic_pvalue(_combined(t), df=t.shape[-1])
    return np.asarray(two), np.asarray(asymptotic_pvalue(sign * t, "less"))


def rate_comparison(counts, labels, metric, options: _Options) -> ModelComparisonResult:
    """The paired comparison of a rate metric from paired cell counts (n_groups, 8)."""
    pairs = comparison_pairs(counts.sum(axis=1), labels, options.reference, options.comparisons)
    moments = paired_moments(counts, metric)
    check_defined(moments, metric, labels, np.unique(pairs))
    disc, relevant = discordant(counts), _relevant_labels(metric)
    _check_not_identical(disc, relevant, np.unique(pairs), metric.name)
    observed = gap_statistics(moments, pairs)
    sign = _sign(observed)
    method = options.method
    if method == "auto":
        small = _exact_size(pairs, disc, relevant) <= EXACT_MAX_TABLES
        method = "exact" if small else "permutation"
    null = None
    if method == "exact":
        _check_exact_feasible(pairs, disc, relevant)
        pvalues = _exact_pvalues(counts, disc, relevant, pairs, metric, observed.statistic,
                                 sign)  # fmt: skip
    elif method == "permutation":
        null = _swap_null(counts, disc, relevant, pairs, metric, options)
        pvalues = _monte_carlo_pvalues(null, observed.statistic, sign)
    else:
        pvalues = _asymptotic_pvalues(observed.statistic, sign)
    if options.method == "auto":  # no more significant than the asymptotic test either
        asymptotic = _asymptotic_pvalues(observed.statistic, sign)
        pvalues = tuple(np.maximum(p, q) for p, q in zip(pvalues, asymptotic))
        method += ", asymptotic"
    group_disc = disc[:, relevant].sum(axis=1)
    limits = rate_limits_of(moments, options.confidence_level)
    return pack(metric.name, metric.part_names, moments, observed, labels, pairs, method,
                pvalues, group_disc, null, options, limits)  # fmt: skip


def _auc_null(y, score_a, score_b, codes, labels, pairs, options):
    """Statistics (B, n_comparisons, 1) of B swaps of the two scores within rows: the 2n
    scores are sorted once and the kernel sweeps them once per permutation (O(n), no sort);
    the swaps of permutation b come from the counter-based stream keyed by (seed, b)."""
    entries = SortedScores.build(score_a, score_b, codes)
    n_pos = np.bincount(codes, y, len(labels)).astype(np.int64)
    n_neg = np.bincount(codes, minlength=len(labels)).astype(np.int64) - n_pos
    key, b_total = stream_key(options.random_state), options.n_permutations
    n_threads = threads_for(options.n_threads, b_total * len(y), 200000)
    sums = _paired.paired_auc_swaps(
        entries.row, entries.model, entries.block_end, entries.group, y.astype(np.uint8),
        np.asarray(codes, dtype=np.intp), n_pos, n_neg, b_total, key, 0, n_threads,
    )  # fmt: skip
    return gap_statistics(swap_auc_moments(sums, n_pos, n_neg), pairs).statistic


def auc_comparison(y, score_a, score_b, codes, labels, options: _Options):
    """The paired comparison of AUCs (paired DeLong, or swap permutations)."""
    if np.array_equal(score_a, score_b):
        raise ValueError(
            "y_score_a and y_score_b are identical: the change of gap is 0 by construction, "
            "there is nothing to test"
        )
    sizes = np.bincount(codes, minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, options.reference, options.comparisons)
    moments = paired_auc_moments(y, score_a, score_b, codes, labels)
    observed = gap_statistics(moments, pairs)
    sign = _sign(observed)
    method = options.method
    if method == "auto":
        used = np.unique(pairs)
        n_pos = np.bincount(codes, y, len(labels))[used]
        n_neg = sizes[used] - n_pos
        large = min(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS
        method = "delong" if large else "permutation"
    null = None
    if method == "permutation":
        null = _auc_null(y, score_a, score_b, codes, labels, pairs, options)
        pvalues = _monte_carlo_pvalues(null, observed.statistic, sign)
    else:
        pvalues = _asymptotic_pvalues(observed.statistic, sign)
    group_disc = np.bincount(codes, score_a != score_b, len(labels)).astype(np.int64)
    n_pos = np.bincount(codes, y, len(labels))
    limits = auc_limits_of(moments, n_pos, sizes - n_pos, options.confidence_level)
    return pack("auc", ("auc",), moments, observed, labels, pairs, method, pvalues,
                group_disc, null, options, limits)  # fmt: skip


def _squeeze(x, n_first):
    """Per-comparison (n_c, n_parts) or per-group fields as the result shows them: the
    parts axis dropped for a one-part metric, a float for one comparison of one part."""
    x = np.asarray(x)
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if n_first == 1 and x.shape[0] == 1:
        x = x[0]
        return float(x) if np.ndim(x) == 0 else x
    return x


def _sign(obs: GapStatistics) -> np.ndarray:
    """The direction of model A's observed gap (+1 at 0): "towards 0" is against it."""
    return np.where(obs.gap_a >= 0, 1.0, -1.0)


def _shrink_pvalues(obs: GapStatistics, toward, delta):
    r"""p-values of :math:`H_1: |d_B| < |d_A| + \delta` (``delta=0``: "B reduces the gap"),
    an intersection-union test over the parts and two conditions, with s the sign of
    :math:`d_A`: :math:`s(d_B - d_A) < \delta` (towards 0; `toward` at delta 0, by the
    test's method, else the paired z-test) and :math:`s(d_B + d_A) > -\delta` (not past
    :math:`-d_A`; a z-test with the variance of the sum, which a swap does not change)."""
    sign = _sign(obs)
    if delta:
        toward = special.ndtr((sign * obs.difference - delta) / obs.scale)
    total = sign * (obs.gap_b + obs.gap_a) + delta
    sd = np.sqrt(obs.total_variance)
    past = np.where(sd > 0, special.ndtr(-total / np.where(sd > 0, sd, 1.0)),
                    np.where(total > 0, 0.0, 1.0))  # fmt: skip
    return np.maximum(toward, past).max(axis=-1)


def rate_limits_of(m: PairedMoments, confidence_level: float) -> tuple:
    """((l_A, u_A), (l_B, u_B)) per group and part: each model's rate with its limits
    (``rate_limits``: Clopper-Pearson below 50 events or non-events, Wilson elsewhere)."""
    return tuple(rate_limits(v * den, den, confidence_level)
                 for v, den in ((m.value_a, m.den_a), (m.value_b, m.den_b)))  # fmt: skip


def auc_limits_of(m: PairedMoments, n_pos, n_neg, confidence_level: float) -> tuple:
    """((l_A, u_A), (l_B, u_B)) per group: each model's AUC with the hybrid limits of the
    AUC margin tests (``fastfair.tolerance.auc_limits``)."""
    from fastfair.tolerance import auc_limits

    n_pos, n_neg = (np.asarray(v, dtype=np.float64)[:, None] for v in (n_pos, n_neg))
    return tuple(auc_limits(v, var, n_pos, n_neg, confidence_level)
                 for v, var in ((m.value_a, m.variance_a), (m.value_b, m.variance_b)))  # fmt: skip


def mover_intervals(m: PairedMoments, limits, pairs) -> tuple:
    r"""Intervals of each group's change B - A and of each comparison's change of gap
    :math:`D = (B_g - A_g) - (B_r - A_r)` by MOVER (Newcombe 1998, method 10; Zou & Donner
    2008): each model's metric with its limits `limits`, the two models' metrics in a group
    correlated by :math:`\phi = C / \sqrt{V_A V_B}` (the padded paired moments), so a
    group's change falls by at most :math:`\sqrt{(B - l_B)^2 + (u_A - A)^2 - 2\phi (B -
    l_B)(u_A - A)}` and groups add in squares. The Wald interval D +- z SE covered 0.89 at 10
    rows against 10^5 (selection rates 0.1 -> 0.3) and 0.44 for an AUC change 0.95 -> 0.99
    with 5 positives (validation/results/compare_interval_coverage.txt).
    Returns ((change low, change high) per group and part, (low, high) per comparison and
    part); leading axes of `m` (a batch of tables) are kept."""
    (la, ua), (lb, ub) = limits
    va, vb = m.value_a, m.value_b
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = m.covariance / np.sqrt(m.variance_a * m.variance_b)
    phi = np.clip(np.where(np.isfinite(phi), phi, 0.0), -1.0, 1.0)
    down_b, up_a = np.maximum(vb - lb, 0.0), np.maximum(ua - va, 0.0)
    up_b, down_a = np.maximum(ub - vb, 0.0), np.maximum(va - la, 0.0)
    down = np.maximum(down_b**2 + up_a**2 - 2.0 * phi * down_b * up_a, 0.0)
    up = np.maximum(up_b**2 + down_a**2 - 2.0 * phi * up_b * down_a, 0.0)
    change = vb - va
    g, r = pairs[:, 0], pairs[:, 1]
    diff = change[..., g, :] - change[..., r, :]
    low = np.sqrt(down[..., g, :] + up[..., r, :])
    high = np.sqrt(up[..., g, :] + down[..., r, :])
    return (change - np.sqrt(down), change + np.sqrt(up)), (diff - low, diff + high)


def pack(name, parts, m: PairedMoments, obs: GapStatistics, labels, pairs, method, pvalues,
         group_disc, null, options: _Options, limits) -> ModelComparisonResult:  # fmt: skip
    """ModelComparisonResult: gaps, change, MOVER intervals (:func:`mover_intervals` with
    each model's `limits`), p-values and each group's paired change."""
    two, toward = pvalues
    se = np.sqrt(obs.variance)
    n_c = len(pairs)
    (change_lo, change_hi), (lo, hi) = mover_intervals(m, limits, pairs)
    reduced = _shrink_pvalues(obs, toward, 0.0)
    ni = None
    if options.delta is not None:
        ni = _squeeze(_shrink_pvalues(obs, toward, options.delta), n_c)
    change = m.value_b - m.value_a
    change_se = np.sqrt(np.maximum(m.variance_a + m.variance_b - 2.0 * m.covariance, 0.0))
    adjusted = adjust_pvalues(two, options.adjust) if n_c > 1 else None
    statistic = obs.statistic[:, 0] if len(parts) == 1 else (obs.statistic**2).sum(axis=-1)
    return ModelComparisonResult(
        metric=name, parts=tuple(parts),
        statistic=_squeeze(statistic, n_c), pvalue=_squeeze(two, n_c),
        pvalue_reduced=_squeeze(reduced, n_c), pvalue_noninferior=ni, pvalue_adjusted=adjusted,
        difference=_squeeze(obs.difference, n_c), standard_error=_squeeze(se, n_c),
        confidence_interval=(_squeeze(lo, n_c), _squeeze(hi, n_c)),
        gap_a=_squeeze(obs.gap_a, n_c), gap_b=_squeeze(obs.gap_b, n_c),
        groups=labels, comparisons=[(labels[i], labels[j]) for i, j in pairs],
        group_metric_a=_squeeze(m.value_a, 0), group_metric_b=_squeeze(m.value_b, 0),
        group_change=_squeeze(change, 0), group_change_standard_error=_squeeze(change_se, 0),
        group_change_interval=(_squeeze(change_lo, 0), _squeeze(change_hi, 0)),
        group_discordant=group_disc, method=method, delta=options.delta,
        confidence_level=options.confidence_level,
        n_permutations=options.n_permutations if method.startswith("permutation") else None,
        adjust=options.adjust if adjusted is not None else None,
        null_distribution=null if options.return_null else None,
    )  # fmt: skip
