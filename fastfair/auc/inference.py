"""Inference: the test on the statistics (p-values, intervals), then packing (AUC tests)."""

from __future__ import annotations

import numpy as np

from fastfair import _auc
from fastfair._pvalues import adjust_pvalues, asymptotic_pvalue, family_adjusted
from fastfair._random import stream_key
from fastfair._scipy import special
from fastfair._sequential import Sampler, draw_all, keep_samplers, monte_carlo_summary
from fastfair.auc.ingest import (
    ASYMPTOTIC_MIN_CLASS,
    BITMAP_ROWS,
    BLOCK_COST,
    RANK_COST,
    RANKS_MAX_ROWS,
    SPARSE_CACHE_BLOCKS,
    SPARSE_COST,
    _Options,
)
from fastfair.auc.results import AUCTestResult, DeLongResult
from fastfair.auc.statistics import _AUCStatistics, _pair_rows, _Sorted, _strata_sizes

_TIED = 2  # the packed byte's tied-with-next bit (csrc/_auc.pyx)


def _pair_sampler(
    sub: _Sorted, scheme: str, studentize: bool, key: int, stream: int, n_threads, path="auto"
):
    """(draw, cost): draw(start, count) gives the permuted statistics of one pair (codes 0,
    1) from its streams; cost is one permutation's estimated cost in sweep rows.

    path: "sweep", "blocks", "sparse", "ranks" (untied scores only) or "auto" (the cheapest
    by `_cheapest_path`); all draw the same rows and give the same statistics. Only the
    tables of the chosen path are built."""
    sizes = _strata_sizes(sub, 2, scheme)
    within = scheme == "within_outcome"
    n = len(sub.packed)
    n_blocks = n - int(np.count_nonzero(sub.packed & _TIED))
    costs = _path_costs(sizes, n, n_blocks)
    if path == "auto":
        path = min(costs, key=costs.get)
    tables = None
    if path == "ranks":
        tables = _auc.rank_tables(sub.packed, sub.n_pos)
        if tables is None:
            raise ValueError("path 'ranks' needs untied scores and fewer than 2^31 rows")
    elif path in ("blocks", "sparse"):
        tables = _auc.sparse_tables(sub.packed, sub.n_pos)

    def draw(start: int, count: int) -> np.ndarray:
        args = (sub.packed, sub.n_pos, sizes, within, studentize, count, key, stream)
        if path == "ranks":
            return _auc.permute_two_ranks(*args, n_threads, start, tables)
        if path == "sparse":
            return _auc.permute_two_sparse(*args, n_threads, start, tables)
        return _auc.permute_two(*args, n_threads, start, tables)

    return draw, costs.get(path, n)


def _cheapest_path(sizes: np.ndarray, n: int, n_blocks: int) -> str:
    """The permutation path of least estimated cost (see BLOCK_COST): a sweep over the n
    rows, a pass over the tie blocks, or the drawn rows alone (their ranks when no scores
    tie, else the block tables)."""
    costs = _path_costs(sizes, n, n_blocks)
    return min(costs, key=costs.get)


def _path_costs(sizes: np.ndarray, n: int, n_blocks: int) -> dict:
    """Estimated cost of one permutation by each applicable path, in sweep rows."""
    drawn = int(sizes.min(axis=1).sum()) if sizes.shape[0] == 1 else _drawn_within(sizes)
    if n_blocks == n and n < RANKS_MAX_ROWS:  # untied: the block paths' tables are per row
        return {"sweep": n, "ranks": RANK_COST * drawn + n // BITMAP_ROWS}
    return {
        "sweep": n,
        "blocks": BLOCK_COST * n_blocks + n // BITMAP_ROWS,
        "sparse": SPARSE_COST * (1 if n_blocks <= SPARSE_CACHE_BLOCKS else 5) * drawn
        + n // BITMAP_ROWS,
    }


def _drawn_within(sizes: np.ndarray) -> int:
    """Rows permute_two draws within outcome: the smaller group of each stratum, or group
    1's rows in both strata when the smaller groups differ."""
    small = sizes.argmin(axis=1)
    if small[0] != small[1]:
        return int(sizes[:, 1].sum())
    return int(sizes[0, small[0]] + sizes[1, small[1]])


def _auc_test(st: _AUCStatistics, options: _Options) -> AUCTestResult:
    """The tests of every compared pair on the statistics (DeLong z-test or Monte-Carlo
    permutations), the family-wise adjustment, then the result."""
    pairs, observed, alternative = st.pairs, st.observed, options.alternative
    method = options.method
    if method == "auto":
        smallest = st.tot[np.unique(pairs)].min()
        method = (
            "delong" if options.studentize and smallest >= ASYMPTOTIC_MIN_CLASS else "permutation"
        )
    key = stream_key(options.random_state) if method == "permutation" else 0
    samplers = []
    decision = None
    if method == "delong":
        pvalues = asymptotic_pvalue(observed, alternative)
    else:
        for c, (ga, gb) in enumerate(pairs):
            sub = _pair_rows(st, ga, gb)
            draw, cost = _pair_sampler(
                sub, options.scheme, options.studentize, key, c, options.n_threads
            )
            samplers.append(Sampler(draw, observed[c], alternative, options.return_null, cost))
        fixed, seq_options = options.n_permutations, options.sequential
        decision = draw_all(samplers, fixed, seq_options, options.adjust)
        pvalues = np.array([s.pvalue for s in samplers])

    def joint_null():
        sizes = _strata_sizes(st.srt, len(st.labels), options.scheme)
        srt = st.srt
        return _auc.permute(srt.packed, srt.n_pos, sizes, options.scheme == "within_outcome",
                            pairs, options.studentize, options.n_permutations, key, len(pairs),
                            options.n_threads)  # fmt: skip

    adjusted = family_adjusted(pvalues, options.adjust, observed, alternative, joint_null)
    interval, used, null_out = None, None, None
    if method == "permutation":
        single = len(pairs) == 1
        interval, used, decision, null_out = monte_carlo_summary(
            samplers, options.n_permutations, decision, single
        )
    res = _pack(st, options, method, pvalues, adjusted, interval, used, decision, null_out)
    return keep_samplers(res, samplers)  # multiple_monte_carlo continues them


def _picker(single: bool):
    """Per-pair values as floats with one comparison, arrays with several."""

    def pick(x):
        return float(x[0]) if single else x

    return pick


def delong_fields(auc, var, tot, labels, pairs, confidence_level: float) -> dict:
    """The fields of an AUCTestResult that the groups' AUCs and DeLong variances give:
    each AUC with its Wald interval, each compared pair's difference with its interval.
    `tot` holds each group's (negatives, positives)."""
    a, b = pairs[:, 0], pairs[:, 1]
    difference = auc[a] - auc[b]
    z = special.ndtri(0.5 + confidence_level / 2.0)
    se_diff = np.sqrt(var[a] + var[b])
    diff_interval = (difference - z * se_diff, difference + z * se_diff)
    se = np.sqrt(var)
    pick = _picker(len(pairs) == 1)
    return dict(
        difference=pick(difference),
        confidence_interval=(pick(diff_interval[0]), pick(diff_interval[1])),
        groups=labels,
        group_auc=auc,
        group_variance=var,
        group_interval=(np.clip(auc - z * se, 0.0, 1.0), np.clip(auc + z * se, 0.0, 1.0)),
        group_n_pos=tot[:, 1].copy(),
        group_n_neg=tot[:, 0].copy(),
        comparisons=[(labels[i], labels[j]) for i, j in pairs],
        confidence_level=confidence_level,
    )


def _zero_variance_rule(auc, n_pairs, pairs, var) -> np.ndarray:
    """DeLong variance of each pair's difference, or, where it is 0 (constant placements),
    A'(1 - A') / (m+ m-) per group with A' the AUC shrunk by half a pseudo-pair: auc_test's
    rule (a statistic of 0 would read as "no difference" for AUCs of 1 and 0)."""
    a, b = pairs[:, 0], pairs[:, 1]
    v = var[a] + var[b]
    shrunk = (auc * n_pairs + 0.5) / (n_pairs + 1.0)
    fallback = (shrunk * (1 - shrunk) / n_pairs)[a] + (shrunk * (1 - shrunk) / n_pairs)[b]
    return np.where(v > 0, v, fallback)


def delong_z_test(
    delong: DeLongResult, pairs: np.ndarray, *, alternative: str, adjust: str,
    confidence_level: float,
) -> AUCTestResult:  # fmt: skip
    """The DeLong z-test of each compared pair from the groups' AUCs and variances (a
    :class:`DeLongResult`, from rows or from summaries): ``auc_test(method="delong")``."""
    auc, var = delong.auc, delong.variance
    a, b = pairs[:, 0], pairs[:, 1]
    difference = auc[a] - auc[b]
    n_pairs = delong.n_pos * delong.n_neg
    statistic = difference / np.sqrt(_zero_variance_rule(auc, n_pairs, pairs, var))
    statistic[np.abs(difference) < 1e-14] = 0.0  # auc_test's kernel (_pair_stat) rule
    pvalues = np.array([asymptotic_pvalue(t, alternative) for t in statistic])
    single = len(pairs) == 1
    pick = _picker(single)
    tot = np.column_stack([delong.n_neg, delong.n_pos])
    return AUCTestResult(
        statistic=pick(statistic),
        pvalue=pick(pvalues),
        **delong_fields(auc, var, tot, delong.groups, pairs, float(confidence_level)),
        method="delong",
        scheme=None,
        studentize=True,
        alternative=alternative,
        pvalue_adjusted=None if single else adjust_pvalues(pvalues, adjust),
        adjust=None if single else adjust,
    )


def _pack(st, options, method, pvalues, adjusted, interval, used, decision, null_out):
    """AUCTestResult of auc_test: DeLong (Wald) intervals of each AUC and each difference,
    the test's statistics and p-values."""
    pick = _picker(len(st.pairs) == 1)
    return AUCTestResult(
        statistic=pick(st.observed),
        pvalue=pick(pvalues),
        **delong_fields(st.auc, st.var, st.tot, st.labels, st.pairs, options.confidence_level),
        method=method,
        scheme=options.scheme if method == "permutation" else None,
        studentize=options.studentize,
        alternative=options.alternative,
        n_permutations=used,
        pvalue_adjusted=adjusted,
        adjust=options.adjust if adjusted is not None else None,
        pvalue_interval=interval,
        null_distribution=null_out,
        decision=decision,
        sequential=options.sequential if method == "permutation" else None,
    )
