"""Inference: the test on the statistics (p-values, intervals), then packing (AUC tests)."""

from __future__ import annotations

import numpy as np

from fastfair import _auc
from fastfair._pvalues import asymptotic_pvalue, family_adjusted
from fastfair._random import stream_key
from fastfair._scipy import special
from fastfair._sequential import Sampler, draw_all, keep_samplers, monte_carlo_summary
from fastfair.auc.ingest import (
    ASYMPTOTIC_MIN_CLASS,
    BITMAP_ROWS,
    BLOCK_COST,
    SPARSE_CACHE_BLOCKS,
    SPARSE_COST,
    _Options,
)
from fastfair.auc.results import AUCTestResult
from fastfair.auc.statistics import _AUCStatistics, _pair_rows, _Sorted, _strata_sizes


def _pair_sampler(
    sub: _Sorted, scheme: str, studentize: bool, key: int, stream: int, n_threads, path="auto"
):
    """draw(start, count): permuted statistics of one pair (codes 0, 1) from its streams.

    path: "sweep", "blocks", "sparse" or "auto" (the cheapest by `_cheapest_path`); all
    three draw the same rows and give the same statistics."""
    sizes = _strata_sizes(sub, 2, scheme)
    within = scheme == "within_outcome"
    tables = _auc.sparse_tables(sub.packed, sub.n_pos)
    if path == "auto":
        path = _cheapest_path(sizes, len(sub.packed), len(tables[1]))

    def draw(start: int, count: int) -> np.ndarray:
        args = (sub.packed, sub.n_pos, sizes, within, studentize, count, key, stream)
        if path == "sparse":
            return _auc.permute_two_sparse(*args, n_threads, start, tables)
        return _auc.permute_two(*args, n_threads, start, tables if path == "blocks" else None)

    return draw


def _cheapest_path(sizes: np.ndarray, n: int, n_blocks: int) -> str:
    """The permutation path of least estimated cost (see BLOCK_COST): a sweep over the n
    rows, a pass over the tie blocks, or the drawn rows alone."""
    drawn = int(sizes.min(axis=1).sum()) if sizes.shape[0] == 1 else _drawn_within(sizes)
    costs = {
        "sweep": n,
        "blocks": BLOCK_COST * n_blocks + n // BITMAP_ROWS,
        "sparse": SPARSE_COST * (1 if n_blocks <= SPARSE_CACHE_BLOCKS else 5) * drawn
        + n // BITMAP_ROWS,
    }
    return min(costs, key=costs.get)


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
            draw = _pair_sampler(
                sub, options.scheme, options.studentize, key, c, options.n_threads
            )
            samplers.append(Sampler(draw, observed[c], alternative, options.return_null))
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


def _pack(st, options, method, pvalues, adjusted, interval, used, decision, null_out):
    """AUCTestResult: per-pair values as floats with one comparison, arrays with several;
    DeLong (Wald) intervals of each AUC and each difference."""
    auc, var, labels, pairs = st.auc, st.var, st.labels, st.pairs
    confidence_level = options.confidence_level
    a, b = pairs[:, 0], pairs[:, 1]
    difference = auc[a] - auc[b]
    z = special.ndtri(0.5 + confidence_level / 2.0)
    se_diff = np.sqrt(var[a] + var[b])
    diff_interval = (difference - z * se_diff, difference + z * se_diff)
    se = np.sqrt(var)
    group_interval = (np.clip(auc - z * se, 0.0, 1.0), np.clip(auc + z * se, 0.0, 1.0))
    single = len(pairs) == 1

    def pick(x):
        return float(x[0]) if single else x

    return AUCTestResult(
        statistic=pick(st.observed),
        pvalue=pick(pvalues),
        difference=pick(difference),
        confidence_interval=(pick(diff_interval[0]), pick(diff_interval[1])),
        groups=labels,
        group_auc=auc,
        group_variance=var,
        group_interval=group_interval,
        group_n_pos=st.tot[:, 1].copy(),
        group_n_neg=st.tot[:, 0].copy(),
        comparisons=[(labels[i], labels[j]) for i, j in pairs],
        method=method,
        scheme=options.scheme if method == "permutation" else None,
        studentize=options.studentize,
        alternative=options.alternative,
        confidence_level=confidence_level,
        n_permutations=used,
        pvalue_adjusted=adjusted,
        adjust=options.adjust if adjusted is not None else None,
        pvalue_interval=interval,
        null_distribution=null_out,
        decision=decision,
        sequential=options.sequential if method == "permutation" else None,
    )
