"""Inference: the test on the statistics (p-values, intervals), then packing (permutation tests
of confusion-matrix metrics)."""

from __future__ import annotations

import warnings

import numpy as np

from fastfair import _counts, _rows
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._exact import ExactInfeasibleError, exact_pair
from fastfair._parallel import threads_for
from fastfair._permutation_result import PermutationTestResult
from fastfair._pvalues import adjust_pvalues, asymptotic_pvalue, maxt_pvalues, wilson_interval
from fastfair._random import stream_key
from fastfair._score import kish_counts, score_interval
from fastfair._sequential import Sampler, draw_all, run, summarize
from fastfair._validation import show_value
from fastfair.permutation.ingest import _Options


def _test_cells(w, w2, labels, rows, options: _Options, n_threads) -> PermutationTestResult:
    """The test on per-group cell sums; `rows` = (cell, weights, codes) when weighted."""
    spec_metric, scheme, method = options.metric, options.scheme, options.method
    studentize, variance, alternative = options.studentize, options.variance, options.alternative
    reference, comparisons, adjust = options.reference, options.comparisons, options.adjust
    return_null, random_state, mid_p = options.return_null, options.random_state, options.mid_p
    confidence_level = options.confidence_level
    weighted = rows is not None
    if weighted and method == "exact":
        raise ValueError("method='exact' needs unweighted data; use 'monte_carlo' with weights")
    if not isinstance(mid_p, (bool, np.bool_)):
        raise TypeError(f"mid_p must be True or False, got {show_value(mid_p)}")
    if mid_p and (method in ("monte_carlo", "asymptotic") or weighted):
        raise ValueError(
            "mid_p applies to exact p-values only, not to "
            + ("weighted data (Monte Carlo)" if weighted else f"method={method!r}")
        )
    pairs = comparison_pairs(w.sum(axis=1), labels, reference, comparisons)
    check_rates_defined(spec_metric, w, labels, pairs)
    spec = spec_metric.spec(studentize, variance == "pooled")
    strata = spec_metric.strata(scheme)
    observed = _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), spec, pairs)[0]
    num, den = spec_metric.rates(w)
    values = num / den
    a, b = pairs[:, 0], pairs[:, 1]
    difference = values[a] - values[b]
    lower, upper = difference_interval(spec_metric, w, w2, pairs, weighted, confidence_level)
    if spec_metric.n_parts == 1:
        values, difference, den = values[:, 0], difference[:, 0], den[:, 0]
        lower, upper = lower[:, 0], upper[:, 0]

    fixed, seq_options = options.n_permutations, options.sequential
    if seq_options is not None and adjust == "maxT" and len(pairs) > 1:
        joint_count = 9999
    else:
        joint_count = fixed
    key = stream_key(random_state) if method != "asymptotic" or adjust == "maxT" else 0
    pvalues = np.empty(len(pairs))
    used = []
    samplers: list = []
    null_values, null_probs = None, None
    for c, (ga, gb) in enumerate(pairs):
        chosen = method
        if method == "auto":
            chosen = "monte_carlo" if weighted else "exact"
        sampler = None
        if chosen == "exact":
            try:
                p, support, probs = exact_pair(
                    w[[ga, gb]].astype(np.int64),
                    spec_metric,
                    spec,
                    strata,
                    observed[c],
                    alternative,
                    mid_p,
                    want_null=return_null,
                )
            except ExactInfeasibleError:
                if method == "exact":
                    raise
                chosen = "monte_carlo"
            else:
                pvalues[c] = p
                null_values, null_probs = support, probs
        if chosen == "monte_carlo":
            draw = _pair_draw(rows, w, (ga, gb), strata, spec, key, c, n_threads)
            sampler = Sampler(draw, observed[c], alternative, return_null)
        if chosen == "asymptotic":
            df = 2 if spec_metric.n_parts == 2 else None
            pvalues[c] = asymptotic_pvalue(observed[c], alternative, df)
        samplers.append(sampler)
        used.append(chosen)

    mc = [s for s in samplers if s is not None]
    decision = None
    if mc and seq_options is None:
        draw_all(mc, fixed, None, adjust)
    elif mc:
        procedure = adjust if len(pairs) > 1 and adjust != "maxT" else "none"
        decision = run(samplers, seq_options, procedure, known=pvalues)
    for c, sampler in enumerate(samplers):
        if sampler is not None:
            pvalues[c] = sampler.pvalue

    method_used = used[0] if len(set(used)) == 1 else "mixed"
    if mid_p and method_used != "exact":
        warnings.warn(
            "mid_p applies to exact p-values only: comparisons too large to enumerate were "
            "tested by Monte Carlo with ordinary p-values (the result has mid_p=False)",
            stacklevel=3,
        )
        mid_p = False
    interval = None
    n_used = fixed if "monte_carlo" in used or adjust == "maxT" else None
    null_draws = [s.null() for s in mc] if return_null else []
    if method_used == "monte_carlo" and seq_options is None:
        interval = wilson_interval(np.array([s.count for s in mc], dtype=np.float64), fixed)
    elif method_used == "monte_carlo":
        _, interval, n_used, decision, null_seq = summarize(samplers, decision, len(pairs) == 1)
        null_draws = [] if null_seq is None else [null_seq]
    elif mc and seq_options is not None:  # some comparisons exact, some sequential
        n_used = np.array([0 if s is None else s.n for s in samplers], dtype=np.int64)
        null_draws = []
    adjusted = None
    if len(pairs) > 1:
        if adjust == "maxT":
            joint = _monte_carlo_null(
                rows,
                w,
                None,
                strata,
                spec,
                joint_count,
                key,
                len(pairs),
                n_threads,
                pairs=pairs,
            )
            adjusted = np.maximum(maxt_pvalues(joint, observed, alternative), pvalues)
        else:
            adjusted = adjust_pvalues(pvalues, adjust)

    single = len(pairs) == 1
    label_list = labels.tolist()
    null_out = None
    if return_null and null_draws:
        if seq_options is not None:
            null_out = null_draws[0]
        else:
            null_out = null_draws[0] if single else np.column_stack(null_draws)
    res = PermutationTestResult(
        statistic=float(observed[0]) if single else observed,
        pvalue=float(pvalues[0]) if single else pvalues,
        difference=(difference[0] if single else difference)
        if spec_metric.n_parts > 1 or not single
        else float(difference[0]),
        metric=spec_metric.name,
        groups=labels,
        group_values=values,
        group_denominators=den,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        scheme=scheme,
        studentize=bool(studentize),
        variance=variance,
        method=method_used,
        alternative=alternative,
        mid_p=mid_p,
        n_permutations=n_used,
        pvalue_adjusted=adjusted,
        adjust=adjust if adjusted is not None else None,
        pvalue_interval=(
            None
            if interval is None
            else (
                interval
                if not single or seq_options is not None
                else tuple(float(x[0]) for x in interval)
            )
        ),
        weighted=weighted,
        confidence_interval=(
            (lower[0], upper[0])
            if single and spec_metric.n_parts > 1
            else (float(lower[0]), float(upper[0]))
            if single
            else (lower, upper)
        ),
        confidence_level=float(confidence_level),
        null_distribution=null_out if null_out is not None else (null_values if single else None),
        null_probabilities=null_probs if single and null_out is None else None,
        decision=decision,
        sequential=seq_options if mc else None,
    )
    res._samplers = samplers if mc else None  # for multiple_monte_carlo
    return res


def difference_interval(spec_metric, w, w2, pairs, weighted, confidence_level):
    """Miettinen-Nurminen interval of each pair's difference, shape (n_pairs, n_parts) each.

    Unweighted: the numerator and denominator counts. Weighted: Kish effective counts,
    n = (sum w)^2 / sum w^2 over the denominator rows and x = rate * n.
    """
    num, den = spec_metric.rates(w)
    if weighted:
        _, den2 = spec_metric.rates(w2)
        x, n = kish_counts(num / den, den, den2)
    else:
        x, n = num, den
    a, b = pairs[:, 0], pairs[:, 1]
    return score_interval(x[a], n[a], x[b], n[b], confidence_level)


def _pair_draw(rows, w, pair, strata, spec, key, stream, n_threads):
    """draw(start, count): permuted statistics of one pair from its random streams."""

    def draw(start: int, count: int) -> np.ndarray:
        return _monte_carlo_null(
            rows, w, pair, strata, spec, count, key, stream, n_threads, start=start
        )

    return draw


def _monte_carlo_null(
    rows, w, pair, strata, spec, n_permutations, key, stream, n_threads, pairs=None, start=0
):
    """Permutation statistics for one pair (two-group test) or for `pairs` jointly.

    Unweighted: hypergeometric draws of cell counts. Weighted (`rows` = (cell, weights,
    codes)): row-level permutations.
    """
    if rows is not None:
        cell, weights, codes = rows
        work = n_permutations * len(cell)
    else:
        weights = None
        work = n_permutations * 50
    n_threads = threads_for(n_threads, work, 1_000_000)
    if pair is not None:
        local_pairs = np.array([[0, 1]], dtype=np.intp)
        if weights is None:
            counts = w[list(pair)].astype(np.int64)
            return _counts.permute_counts(
                counts, strata, spec, local_pairs, n_permutations, key, stream, n_threads, start
            )[:, 0]
        rows = (codes == pair[0]) | (codes == pair[1])
        if rows.all():
            sub_codes = (codes == pair[1]).astype(np.intp)
            sub_cell, sub_w = cell, weights
        else:
            sub_codes = (codes[rows] == pair[1]).astype(np.intp)
            sub_cell, sub_w = cell[rows], weights[rows]
        return _rows.permute_rows(
            sub_cell,
            sub_w,
            sub_codes,
            2,
            strata,
            spec,
            local_pairs,
            n_permutations,
            key,
            stream,
            n_threads,
            start,
        )[:, 0]
    if weights is None:
        return _counts.permute_counts(
            w.astype(np.int64), strata, spec, pairs, n_permutations, key, stream, n_threads
        )
    return _rows.permute_rows(
        cell,
        weights,
        codes,
        w.shape[0],
        strata,
        spec,
        pairs,
        n_permutations,
        key,
        stream,
        n_threads,
    )
