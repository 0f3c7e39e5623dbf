"""Inference: the test on the statistics (p-values, intervals), then packing (permutation tests
of confusion-matrix metrics)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from fastfair import _counts, _rows
from fastfair._comparisons import check_rates_defined, comparison_pairs
from fastfair._exact import ExactInfeasibleError, exact_pair
from fastfair._parallel import threads_for
from fastfair._permutation_result import PermutationTestResult
from fastfair._pvalues import asymptotic_pvalue, family_adjusted
from fastfair._random import stream_key
from fastfair._score import kish_counts, score_interval
from fastfair._sequential import Sampler, draw_all, keep_samplers, monte_carlo_summary, run
from fastfair._validation import check_flag
from fastfair.permutation.ingest import _Options


@dataclass(frozen=True)
class _CellStatistics:
    """The observed side of a test on cell sums: per group the metric and its denominator,
    per compared pair the statistic, difference and its confidence interval (one column
    per part of the metric: two for equalized odds)."""

    spec: tuple  # the compiled statistic (_metrics.ConfusionMetric.spec)
    strata: tuple  # the cells whose rows exchange labels (the scheme)
    observed: np.ndarray
    values: np.ndarray
    denominators: np.ndarray
    difference: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


@dataclass
class _PairTests:
    """The p-value of each compared pair and how it was obtained."""

    pvalues: np.ndarray
    used: list  # "exact", "monte_carlo" or "asymptotic", per pair
    samplers: list  # the Sampler of each Monte-Carlo pair, None elsewhere
    decision: np.ndarray | None  # sequential decisions
    exact_null: tuple  # (support, probabilities) of the last exact pair, or (None, None)


def _test_cells(w, w2, labels, rows, options: _Options, n_threads) -> PermutationTestResult:
    """The test on per-group cell sums; `rows` = (cell, weights, codes) when weighted."""
    weighted = rows is not None
    _check_method(options, weighted)
    sizes = w.sum(axis=1) if rows is None else np.bincount(rows[2], minlength=len(labels))
    pairs = comparison_pairs(sizes, labels, options.reference, options.comparisons)  # most rows
    check_rates_defined(options.metric, w, labels, pairs)
    st = _cell_statistics(w, w2, pairs, options, weighted)
    method, adjust = options.method, options.adjust
    key = stream_key(options.random_state) if method != "asymptotic" or adjust == "maxT" else 0
    tests = _pair_tests(st, w, rows, pairs, options, key, n_threads)

    def joint_null():
        joint_count = 9999 if options.sequential is not None else options.n_permutations
        return _monte_carlo_null(
            rows, w, None, st.strata, st.spec, joint_count, key, len(pairs), n_threads, pairs
        )

    adjusted = family_adjusted(tests.pvalues, adjust, st.observed, options.alternative, joint_null)
    res = _pack(st, tests, adjusted, labels, pairs, options, weighted)
    return keep_samplers(res, tests.samplers)  # multiple_monte_carlo continues them


def _check_method(options: _Options, weighted: bool) -> None:
    """The method and mid_p against the data: weighted rows are Monte Carlo."""
    method, mid_p = options.method, options.mid_p
    if weighted and method == "exact":
        raise ValueError("method='exact' needs unweighted data; use 'monte_carlo' with weights")
    check_flag(mid_p, "mid_p")
    if mid_p and (method in ("monte_carlo", "asymptotic") or weighted):
        raise ValueError(
            "mid_p applies to exact p-values only, not to "
            + ("weighted data (Monte Carlo)" if weighted else f"method={method!r}")
        )


def _cell_statistics(w, w2, pairs, options: _Options, weighted: bool) -> _CellStatistics:
    """Observed statistics, group values, differences and their score intervals."""
    spec_metric = options.metric
    spec = spec_metric.spec(options.studentize, options.variance == "pooled")
    strata = spec_metric.strata(options.scheme)
    observed = _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), spec, pairs)[0]
    num, den = spec_metric.rates(w)
    values = num / den
    a, b = pairs[:, 0], pairs[:, 1]
    difference = values[a] - values[b]
    lower, upper = difference_interval(
        spec_metric, w, w2, pairs, weighted, options.confidence_level
    )
    if spec_metric.n_parts == 1:
        values, difference, den = values[:, 0], difference[:, 0], den[:, 0]
        lower, upper = lower[:, 0], upper[:, 0]
    return _CellStatistics(spec, strata, observed, values, den, difference, lower, upper)


def _pair_tests(st: _CellStatistics, w, rows, pairs, options: _Options, key, n_threads):
    """Each pair by its method (``"auto"``: exact when unweighted and feasible, else Monte
    Carlo); the Monte-Carlo pairs drawn together (fixed count or sequential)."""
    method, weighted = options.method, rows is not None
    pvalues = np.empty(len(pairs))
    used, samplers = [], []
    exact_null = (None, None)
    for c, (ga, gb) in enumerate(pairs):
        chosen = method
        if method == "auto":
            chosen = "monte_carlo" if weighted else "exact"
        sampler = None
        if chosen == "exact":
            try:
                p, support, probs = _exact(st, w, c, (ga, gb), options, options.mid_p)
            except ExactInfeasibleError:
                if method == "exact":
                    raise
                chosen = "monte_carlo"
            else:
                pvalues[c] = p
                exact_null = (support, probs)
        if chosen == "monte_carlo":
            draw = _pair_draw(rows, w, (ga, gb), st.strata, st.spec, key, c, n_threads)
            sampler = Sampler(draw, st.observed[c], options.alternative, options.return_null)
        if chosen == "asymptotic":
            df = 2 if options.metric.n_parts == 2 else None
            pvalues[c] = asymptotic_pvalue(st.observed[c], options.alternative, df)
        samplers.append(sampler)
        used.append(chosen)
    if options.mid_p and "monte_carlo" in used:
        _ordinary_exact_pvalues(st, w, pairs, options, used, pvalues)
    mc = [s for s in samplers if s is not None]
    decision = None
    if mc and options.sequential is None:
        draw_all(mc, options.n_permutations, None, options.adjust)
    elif mc:
        adjust = options.adjust
        procedure = adjust if len(pairs) > 1 and adjust != "maxT" else "none"
        decision = run(samplers, options.sequential, procedure, known=pvalues)
    for c, sampler in enumerate(samplers):
        if sampler is not None:
            pvalues[c] = sampler.pvalue
    return _PairTests(pvalues, used, samplers, decision, exact_null)


def _ordinary_exact_pvalues(st, w, pairs, options: _Options, used, pvalues) -> None:
    """The exact comparisons' p-values without mid-p, in place: some comparison fell back to
    Monte Carlo (ordinary p-values only), so the result reports mid_p=False, and that must
    hold for every comparison (and for the adjustment over them)."""
    for c, pair in enumerate(pairs):
        if used[c] == "exact":
            pvalues[c] = _exact(st, w, c, pair, options, mid_p=False)[0]


def _exact(st, w, c, pair, options: _Options, mid_p: bool):
    """(p-value, support, probabilities) of comparison c's exact test of its two groups."""
    return exact_pair(
        w[list(pair)].astype(np.int64),
        options.metric,
        st.spec,
        st.strata,
        st.observed[c],
        options.alternative,
        mid_p,
        want_null=options.return_null,
    )


def _pack(st, tests: _PairTests, adjusted, labels, pairs, options: _Options, weighted):
    """PermutationTestResult: per-pair values as floats with one comparison (and one part),
    arrays otherwise; the Monte-Carlo summary of the pairs that drew permutations."""
    used, samplers = tests.used, tests.samplers
    fixed, seq_options = options.n_permutations, options.sequential
    mc = [s for s in samplers if s is not None]
    single = len(pairs) == 1
    method_used = used[0] if len(set(used)) == 1 else "mixed"
    mid_p = options.mid_p
    if mid_p and method_used != "exact":
        warnings.warn(
            "mid_p applies to exact p-values only: comparisons too large to enumerate were "
            "tested by Monte Carlo, so every comparison has an ordinary p-value (the result "
            "has mid_p=False)",
            stacklevel=4,
        )
        mid_p = False
    interval, null_out, decision = None, None, tests.decision
    n_used = fixed if "monte_carlo" in used or options.adjust == "maxT" else None
    if method_used == "monte_carlo":
        interval, n_used, decision, null_out = monte_carlo_summary(mc, fixed, decision, single)
    elif mc and seq_options is not None:  # some comparisons exact, some sequential
        n_used = np.array([0 if s is None else s.n for s in samplers], dtype=np.int64)
    elif mc and options.return_null:  # some exact, some drawn a fixed number of times
        null_out = np.column_stack([s.null() for s in mc])
    n_parts = options.metric.n_parts
    lower, upper = st.lower, st.upper
    null_values, null_probs = tests.exact_null
    label_list = labels.tolist()
    pvalues = tests.pvalues
    return PermutationTestResult(
        statistic=float(st.observed[0]) if single else st.observed,
        pvalue=float(pvalues[0]) if single else pvalues,
        difference=(st.difference[0] if single else st.difference)
        if n_parts > 1 or not single
        else float(st.difference[0]),
        metric=options.metric.name,
        groups=labels,
        group_values=st.values,
        group_denominators=st.denominators,
        comparisons=[(label_list[i], label_list[j]) for i, j in pairs],
        scheme=options.scheme,
        studentize=bool(options.studentize),
        variance=options.variance,
        method=method_used,
        alternative=options.alternative,
        mid_p=mid_p,
        n_permutations=n_used,
        pvalue_adjusted=adjusted,
        adjust=options.adjust if adjusted is not None else None,
        pvalue_interval=interval,
        weighted=weighted,
        confidence_interval=(
            (lower[0], upper[0])
            if single and n_parts > 1
            else (float(lower[0]), float(upper[0]))
            if single
            else (lower, upper)
        ),
        confidence_level=options.confidence_level,
        null_distribution=null_out if null_out is not None else (null_values if single else None),
        null_probabilities=null_probs if single and null_out is None else None,
        decision=decision,
        sequential=seq_options if mc else None,
    )


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
