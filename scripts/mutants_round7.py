"""Seventh-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut7", 2026-11-27, against main 160e2a0).

The author read fastfair/ and csrc/ only, never tests/, docs/testing.md, validation/,
benchmarks/, the earlier mutation records or the earlier sets' entries (only the module
docstring and file constants of scripts/mutants_round6.py and the Mutant dataclass of
scripts/mutants.py, for the format). The mutants are spread over the whole statistics
code: p-values (Monte-Carlo denominator, the tie tolerance's floor, the size of a family,
Wilson), the score intervals (Miettinen-Nurminen factor, shrunk rates, the Clopper-Pearson
rule, Newcombe's limits), the metrics and counts ingest, the exact unconditional test
(feasibility, nuisance range, the CDF path, the interval's inversion), sequential Monte
Carlo (BH rule, the default cap, point p-value, Robbins' mixture), clustered parity (robust
scale, per-user weights, grid, Welch df, the F reference, the degenerate floor, the band
quantile), AUC (the auto rule, output labels, the kernel's zero-variance rule and variance
scale), the compiled kernels (counts' random streams, paired placements, bootstrap
indices, the monitor's shrinkage, the sweep's bins and fixed part, the margin tails' runs,
the kernel sums' grid window), calibration, planning, tolerance, the threshold sweep,
compare, slices, monitor, resampling, wasserstein, the audit (verdicts, model comparison,
the tolerance and equivalence rows of equalized odds), the engines' merges (summaries,
spark, dask), _validation, _exact and the CLI. 27 of the author's 76 first
choices repeated an earlier set's mutant exactly (same file, old and new text; the
session's collision check names only the new ids) and were replaced by other mistakes; 7
of those replacements collided again (6 replaced, 1 dropped), and 1 of the second
replacements collided and was replaced: 75 mutants.

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge,
validation, output. Each ``why`` says the kind, the mistake and what a user sees, on what
input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
COUNTS = "csrc/_counts.pyx"
AUCK = "csrc/_auc.pyx"
AUCI = "fastfair/auc/inference.py"
SCORE = "fastfair/_score.py"
UNC = "fastfair/_unconditional.py"
SEQ = "fastfair/_sequential.py"
CLU = "fastfair/_clustered.py"
PAR = "fastfair/parity/inference.py"
PLAN = "fastfair/planning/inference.py"
CALS = "fastfair/calibration/statistics.py"
TOL = "fastfair/tolerance/statistics.py"
SWS = "fastfair/sweep/statistics.py"
SWK = "csrc/_sweep.pyx"
CMP = "fastfair/compare/inference.py"
PAIRK = "csrc/_paired.pyx"
MEANS = "csrc/_means.pyx"
SLI = "fastfair/slices/inference.py"
MONI = "fastfair/monitor/inference.py"
MONK = "csrc/_monitor.pyx"
MARG = "csrc/_margin_tails.pyx"
WAS = "fastfair/wasserstein/inference.py"
RES = "fastfair/resampling/inference.py"
AUD = "fastfair/auditing/api.py"
SUMS = "fastfair/engines/summaries.py"
SPARK = "fastfair/engines/spark.py"
DASK = "fastfair/engines/dask.py"
VAL = "fastfair/_validation.py"
CLIA = "fastfair/cli/arguments.py"

MUTANTS = [
    Mutant(
        id="r7-pv-mc-denominator",
        file=PV,
        old="    return (count + 1.0) / (null_o.shape[0] + 1.0), count",
        new="    return (count + 1.0) / (null_o.shape[0] + 2.0), count",
        tests=(),
        why=(
            "formula: Monte-Carlo p-value divides by B + 2 instead of B + 1; every "
            "permutation p-value is slightly too small (a permutation test with B = "
            "99 can report 0.0099 < 0.01)."
        ),
    ),
    Mutant(
        id="r7-pv-tie-floor",
        file=PV,
        old="        floor = np.minimum(1.0, np.where(np.isfinite(size), size, 0.0).max(axis=0))",
        new="        floor = np.maximum(1.0, np.where(np.isfinite(size), size, 0.0).max(axis=0))",
        tests=(),
        why=(
            "boundary: the tie tolerance's floor takes the larger of 1 and the "
            "largest permuted statistic; with statistics in the thousands, permuted "
            "values within 1e-12 relative of the largest count as ties of a small "
            "observed one."
        ),
    ),
    Mutant(
        id="r7-pv-family-two",
        file=PV,
        old="    if len(pvalues) < 2:\n        return None",
        new="    if len(pvalues) <= 2:\n        return None",
        tests=(),
        why=(
            "boundary: a family of exactly two comparisons gets no adjusted p-values "
            "(None); a three-group test against a reference reports unadjusted "
            "p-values only."
        ),
    ),
    Mutant(
        id="r7-pv-wilson-centre",
        file=PV,
        old="    centre = (phat + z * z / (2.0 * n)) / denom",
        new="    centre = (phat + z * z / n) / denom",
        tests=(),
        why=(
            "formula: Wilson centre adds z^2/n instead of z^2/(2n); the Monte-Carlo "
            "error interval of a p-value is shifted upwards (does not contain phat "
            "for small counts)."
        ),
    ),
    Mutant(
        id="r7-score-correction-total",
        file=SCORE,
        old="        var = var * total / np.maximum(total - 1.0, 1e-300)",
        new="        var = var * (total - 1.0) / np.maximum(total, 1e-300)",
        tests=(),
        why=(
            "formula: the array path's Miettinen-Nurminen factor is inverted (N-1)/N "
            "instead of N/(N-1); score intervals with more than 64 comparisons are "
            "too narrow, differing from the scalar path."
        ),
    ),
    Mutant(
        id="r7-score-shrunk-pseudo",
        file=SCORE,
        old="    r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)",
        new="    r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 0.5)",
        tests=(),
        why=(
            "formula: the second group's shrunk rate divides by n2 + 1/2; for two "
            "all-zero or all-one groups the unpooled Wald statistic no longer "
            "matches the compiled rule."
        ),
    ),
    Mutant(
        id="r7-score-exact-boundary",
        file=SCORE,
        old="    exact = np.minimum(x, n - x) < exact_below",
        new="    exact = np.maximum(x, n - x) < exact_below",
        tests=(),
        why=(
            "boundary: the rule for Clopper-Pearson limits uses the larger of events "
            "and non-events; a group of 200 rows with 3 events gets Wilson limits "
            "(under-covering)."
        ),
    ),
    Mutant(
        id="r7-score-hybrid-upper",
        file=SCORE,
        old="    upper = diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)",
        new="    upper = diff + np.sqrt((u1 - p1) ** 2 + (u2 - p2) ** 2)",
        tests=(),
        why=(
            "formula: Newcombe's upper limit uses the reference group's upper "
            "distance instead of its lower one; the audit's difference interval is "
            "wrong for asymmetric rates near 0 or 1."
        ),
    ),
    Mutant(
        id="r7-metrics-for-den",
        file="fastfair/_metrics.py",
        old='    "for": _rate("for", FN, _PRED_NEG),',
        new='    "for": _rate("for", FN, POSITIVES),',
        tests=(),
        why=(
            "formula: false omission rate divides by actual positives instead of "
            "predicted negatives (it becomes the FNR); every 'for' statistic is "
            "wrong."
        ),
    ),
    Mutant(
        id="r7-confusion-min-groups",
        file="fastfair/_confusion.py",
        old="    if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] < 2:",
        new="    if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] < 1:",
        tests=(),
        why=(
            "validation: a counts table with a single group is accepted; a user gets "
            "a meaningless statistic or a crash later instead of a clear ValueError."
        ),
    ),
    Mutant(
        id="r7-unc-feasible-and",
        file=UNC,
        old="    return (n1 + n2 <= MAX_SIZE) | (np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        new="    return (n1 + n2 <= MAX_SIZE) & (np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        tests=(),
        why=(
            "boundary: the exact test's feasibility needs both conditions instead of "
            "either; two groups of 600 rows (well within MAX_SIZE) are refused by "
            "method='exact'."
        ),
    ),
    Mutant(
        id="r7-unc-nuisance-range",
        file=UNC,
        old="        self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)  # range of p2",
        new="        self.lo, self.hi = max(0.0, self.d), min(1.0, 1.0 - self.d)  # range of p2",
        tests=(),
        why=(
            "formula: the lower end of the nuisance range uses d instead of -d; for "
            "a positive margin the grid misses p2 in [0, d), where the supremum can "
            "lie, so the exact p-value is too small."
        ),
    ),
    Mutant(
        id="r7-unc-cdf-mass-lo",
        file=UNC,
        old="                np.where(lo > 0, special.bdtrc(np.maximum(lo - 1, 0), n_l, p), 1.0),",
        new="                np.where(lo > 0, special.bdtrc(np.maximum(lo, 0), n_l, p), 1.0),",
        tests=(),
        why=(
            "boundary: the upper-tail mass of the reference group starts at lo + 1 "
            "instead of lo; a small group against a reference above a million rows "
            "gets a too-small exact p-value."
        ),
    ),
    Mutant(
        id="r7-unc-bound-strict",
        file=UNC,
        old=(
            "        rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, "
            "n_jobs) <= alpha"
        ),
        new=(
            "        rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, "
            "n_jobs) < alpha"
        ),
        tests=(),
        why=(
            "boundary: the exact interval's inversion treats p = alpha as not "
            "rejected; on small tables, where p-values jump onto alpha exactly, the "
            "exact bound moves by a lattice step."
        ),
    ),
    Mutant(
        id="r7-seq-bh-rank",
        file=SEQ,
        old="        ok = np.flatnonzero(ranked <= alpha * np.arange(1, m + 1) / m)",
        new="        ok = np.flatnonzero(ranked < alpha * np.arange(1, m + 1) / m)",
        tests=(),
        why=(
            "boundary: the sequential Benjamini-Hochberg rule is strict; a known "
            "p-value equal to its step-up level (e.g. 0.025 of 2 at alpha 0.05) is "
            "retained instead of rejected by multiple_monte_carlo(adjust='bh')."
        ),
    ),
    Mutant(
        id="r7-seq-default-cap",
        file=SEQ,
        old="    return max(MIN_CAP, 10 * _zero_count_length(t_lo, delta))",
        new="    return max(MIN_CAP, _zero_count_length(t_lo, delta))",
        tests=(),
        why=(
            "formula: the default cap drops its factor 10 over the permutations "
            "needed to reject at the smallest adjusted level; Holm over many tests "
            "stops 'undecided' where it could decide."
        ),
    ),
    Mutant(
        id="r7-seq-point-pvalue",
        file=SEQ,
        old="        return (self.count + 1.0) / (self.n + 1.0)",
        new="        return (self.count + 1.0) / (self.n + 2.0)",
        tests=(),
        why=(
            "formula: a sequential test's point p-value divides by n + 2; the "
            "reported pvalue disagrees with the fixed-B Monte-Carlo p-value of the "
            "same permutations."
        ),
    ),
    Mutant(
        id="r7-seq-mixture-log",
        file=SEQ,
        old=(
            "        math.log(n + 1.0) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0) "
            "- math.lgamma(n - s + 1.0)"
        ),
        new=(
            "        math.log(n) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0) - "
            "math.lgamma(n - s + 1.0)"
        ),
        tests=(),
        why=(
            "formula: Robbins' mixture drops the (n + 1) factor's +1; the confidence "
            "sequence is slightly too wide early (robbins_interval(0, 250, 1e-3) no "
            "longer gives 0.0485) and log(0) fails at n = 0."
        ),
    ),
    Mutant(
        id="r7-clu-iqr-constant",
        file=CLU,
        old="    iqr = (q3 - q1) / 1.349",
        new="    iqr = (q3 - q1) / 1.35",
        tests=(),
        why=(
            "formula: Silverman's robust scale divides the IQR by 1.35 instead of "
            "1.349; clustered parity's default bandwidth is slightly off wherever "
            "the IQR is the smaller scale (heavy-tailed scores)."
        ),
    ),
    Mutant(
        id="r7-clu-user-weight",
        file=CLU,
        old="            weight = np.where(counts > 0, 1.0 / np.maximum(sizes_all, 1.0), 0.0)",
        new="            weight = np.where(counts > 0, 1.0 / np.maximum(counts, 1.0), 0.0)",
        tests=(),
        why=(
            "formula: per-user weights use the user's kept rows instead of all its "
            "rows (sizes_all); with NaN rows or rows below the threshold dropped, "
            "users are re-weighted and clustered parity's estimate changes."
        ),
    ),
    Mutant(
        id="r7-clu-grid-single-point",
        file=CLU,
        old=(
            "        return np.linspace(lo, hi, n_points) if n_points > 1 else "
            "np.array([(lo + hi) / 2])"
        ),
        new="        return np.linspace(lo, hi, n_points) if n_points > 1 else np.array([lo])",
        tests=(),
        why=(
            "formula: a grid of one point is placed at the lower end of the common "
            "range instead of its middle; grid=1 evaluates parity at the 2.5% "
            "quantile."
        ),
    ),
    Mutant(
        id="r7-par-welch-df",
        file=PAR,
        old=(
            "            dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + "
            "var[1] ** 2 / df[1])"
        ),
        new=(
            "            dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + "
            "var[1] ** 2 / df[0])"
        ),
        tests=(),
        why=(
            "formula: the Welch-Satterthwaite df uses the first group's df twice; "
            "clustered parity with few clusters in the second group gets too many "
            "df, so p-values that are too small."
        ),
    ),
    Mutant(
        id="r7-par-ksample-f-scale",
        file=PAR,
        old=(
            "        p = np.where(finite, special.fdtrc(K - 1, np.where(finite, dfw, "
            "1.0), sq / (K - 1)), p)"
        ),
        new=(
            "        p = np.where(finite, special.fdtrc(K - 1, np.where(finite, dfw, "
            "1.0), sq / K), p)"
        ),
        tests=(),
        why=(
            "formula: the Wald statistic of K groups is divided by K instead of K - "
            "1 before its F reference; three-group parity p-values are too large."
        ),
    ),
    Mutant(
        id="r7-par-degenerate-floor",
        file=PAR,
        old="        degenerate = np.isfinite(var) & (var * n_eff <= zero) & (n_eff > 0)",
        new="        degenerate = np.isfinite(var) & (var <= zero) & (n_eff > 0)",
        tests=(),
        why=(
            "boundary: the constant-outcome rule compares the variance without its "
            "n_eff factor; with many rows a group whose outcome varies only a little "
            "gets the shrunk floor, inflating its variance (p-values too large)."
        ),
    ),
    Mutant(
        id="r7-par-band-quantile",
        file=PAR,
        old="        critical = float(np.sqrt(np.quantile(null, confidence_level)))",
        new="        critical = float(np.sqrt(np.quantile(null, 1.0 - confidence_level)))",
        tests=(),
        why=(
            "orientation: the simultaneous band's critical value is the lower "
            "quantile of the bootstrap maxima; parity bands are narrower than "
            "pointwise ones."
        ),
    ),
    Mutant(
        id="r7-auc-auto-positives-only",
        file=AUCI,
        old="        smallest = st.tot[np.unique(pairs)].min()",
        new="        smallest = st.tot[np.unique(pairs), 1].min()",
        tests=(),
        why=(
            "boundary: method='auto' looks only at the positives of each compared "
            "group; a group with many positives but 5 negatives gets the DeLong test "
            "instead of permutations (anti-conservative)."
        ),
    ),
    Mutant(
        id="r7-auc-n-pos-label",
        file=AUCI,
        old="        group_n_pos=tot[:, 1].copy(),",
        new="        group_n_pos=tot[:, 0].copy(),",
        tests=(),
        why=(
            "output: the result's group_n_pos holds the negatives; to_frame() of "
            "auc_test reports swapped class sizes whenever positives and negatives "
            "differ."
        ),
    ),
    Mutant(
        id="r7-auck-centred-zero",
        file=AUCK,
        old="    if d < 0.25 or d < 1e-13 * q:",
        new="    if d <= 0.5 or d < 1e-13 * q:",
        tests=(),
        why=(
            "boundary: the exact-zero rule of the placements' sum of squares also "
            "zeroes a genuine 1/2; a group with two positives whose placements "
            "differ by one gets DeLong variance 0 for that part."
        ),
    ),
    Mutant(
        id="r7-auck-v01-scale",
        file=AUCK,
        old=(
            "        v01 = _centred_ss(mneg, s[2 * g], q[2 * g]) / (mneg - 1) / (4.0 "
            "* mpos * mpos)"
        ),
        new=(
            "        v01 = _centred_ss(mneg, s[2 * g], q[2 * g]) / (mneg - 1) / (4.0 "
            "* mneg * mneg)"
        ),
        tests=(),
        why=(
            "kernel: the negatives' placement variance is scaled by the negatives' "
            "count instead of the positives'; DeLong variances of unbalanced groups "
            "are wrong in auc_test's kernel."
        ),
    ),
    Mutant(
        id="r7-counts-stream-index",
        file=COUNTS,
        old="            ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))",
        new="            ff_stream_init(stream, key, stream_id, <uint64_t> b)",
        tests=(),
        why=(
            "kernel: permutation b of a continued block uses stream b instead of "
            "start + b; a sequential test repeats its first permutations in every "
            "later block (results differ from one fixed call with the same total and "
            "the p-value's error is understated)."
        ),
    ),
    Mutant(
        id="r7-ksums-window-last",
        file="csrc/_kernel_sums.pyx",
        old="        if b > gr.n - 1:\n            b = gr.n - 1",
        new="        if b > gr.n - 2:\n            b = gr.n - 2",
        tests=(),
        why=(
            "kernel: the uniform grid's reach window never includes the last grid "
            "point; clustered parity's kernel sums at the top of the grid are zero "
            "(NaN estimate, untested point)."
        ),
    ),
    Mutant(
        id="r7-paired-tie-label",
        file=PAIRK,
        old="                v = (below[side][0] + 0.5 * tied[side][0]) / n_neg[g]",
        new="                v = (below[side][0] + 0.5 * tied[side][1]) / n_neg[g]",
        tests=(),
        why=(
            "kernel: a positive's placement adds half the tied positives instead of "
            "the tied negatives; the paired AUC permutation test is wrong whenever "
            "scores tie across labels (rounded scores)."
        ),
    ),
    Mutant(
        id="r7-means-bootstrap-range",
        file=MEANS,
        old="                    o[b, i] = ff_fast_bounded_u32(&stream, <uint32_t> n)",
        new="                    o[b, i] = ff_fast_bounded_u32(&stream, <uint32_t> (n - 1))",
        tests=(),
        why=(
            "kernel: bootstrap draws positions 0..n-2 only; the last row never "
            "enters a bootstrap resample, biasing every bootstrap interval (visible "
            "when the last row is an outlier)."
        ),
    ),
    Mutant(
        id="r7-monk-shrink-larger",
        file=MONK,
        old="    cdef double smaller = seen[i, 1] if seen[i, 1] < seen[i, 3] else seen[i, 3]",
        new="    cdef double smaller = seen[i, 1] if seen[i, 1] > seen[i, 3] else seen[i, 3]",
        tests=(),
        why=(
            "formula: the monitor's shrinkage weight uses the larger group's size "
            "instead of the smaller; a small group against a big reference bets on "
            "its noisy plug-in gap at once (e-values grow too fast early, more false "
            "alarms)."
        ),
    ),
    Mutant(
        id="r7-sli-by-selected",
        file=SLI,
        old="    selected = max(int(np.sum(adjusted <= alpha)), 1)",
        new="    selected = max(int(np.sum(adjusted < alpha)), 1)",
        tests=(),
        why=(
            "boundary: slices whose BY-adjusted p-value equals alpha are not counted "
            "as selected; the FDR-adjusted interval level is too strict by one slice."
        ),
    ),
    Mutant(
        id="r7-sweepk-fixed-mask",
        file=SWK,
        old=(
            "            a_fixed = (total0 if num_mask & 1 else 0) + (total1 if "
            "num_mask & 4 else 0)"
        ),
        new=(
            "            a_fixed = (total0 if num_mask & 1 else 0) + (total1 if "
            "num_mask & 8 else 0)"
        ),
        tests=(),
        why=(
            "kernel: the fixed part of group A's numerator tests the TP bit instead "
            "of the FN bit for label 1; the permuted sweep statistic of metrics "
            "counting false negatives (fnr, for) is shifted, so the sweep's "
            "Monte-Carlo band is wrong for them."
        ),
    ),
    Mutant(
        id="r7-margin-run-last",
        file=MARG,
        old=(
            "                    acc = acc + pmf2[run_x2[r] - lo2] * (cum[last + 1 - "
            "lo1] - cum[first - lo1])"
        ),
        new=(
            "                    acc = acc + pmf2[run_x2[r] - lo2] * (cum[last - "
            "lo1] - cum[first - lo1])"
        ),
        tests=(),
        why=(
            "kernel: each run's probability leaves out its last outcome (off by one "
            "in the cumulative sum); exact unconditional p-values are too small on "
            "every table."
        ),
    ),
    Mutant(
        id="r7-cal-unit-range",
        file=CALS,
        old="        lo, hi = (0.0, 1.0) if s.min() >= 0 and s.max() <= 1 else (s.min(), s.max())",
        new="        lo, hi = (0.0, 1.0) if s.min() >= 0 and s.max() < 1 else (s.min(), s.max())",
        tests=(),
        why=(
            "boundary: equal-width bins fall back to [min, max] when a score equals "
            "exactly 1; a probability score containing 1.0 gets bins stretched over "
            "its own range and a different binned calibration error."
        ),
    ),
    Mutant(
        id="r7-cal-monotone-best",
        file=CALS,
        old="            best = b - 1\n",
        new="            best = b\n",
        tests=(),
        why=(
            "boundary: the monotonic sweep keeps the first bin count whose means "
            "decrease instead of the last monotone one; the ECE of the monotonic "
            "sweep uses a non-monotone binning."
        ),
    ),
    Mutant(
        id="r7-cal-rank-ties",
        file=CALS,
        old="    avg = 0.5 * (pos[first] + pos[last])",
        new="    avg = 0.5 * (pos[first] + pos[last] + 1.0)",
        tests=(),
        why=(
            "formula: average ranks of tied scores are half a rank too low (larger "
            "numbers); every rank-based quantity within a query shifts when the "
            "scores tie."
        ),
    ),
    Mutant(
        id="r7-cal-interp",
        file="fastfair/calibration/inference.py",
        old="    return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1])",
        new="    return grid[j - 1] + (f1 - v) / (f1 - f0) * (grid[j] - grid[j - 1])",
        tests=(),
        why=(
            "formula: the linear interpolation of the score where the running-max "
            "curve reaches v runs from the wrong end of the grid interval; "
            "thresholds found by calibration are mirrored inside each grid step."
        ),
    ),
    Mutant(
        id="r7-plan-hanley-q1",
        file=PLAN,
        old="    q1 = auc / (2.0 - auc)",
        new="    q1 = auc / (1.0 + auc)",
        tests=(),
        why=(
            "formula: Hanley-McNeil's Q1 uses Q2's denominator; AUC plans use a far "
            "too small variance and ask for too few rows."
        ),
    ),
    Mutant(
        id="r7-plan-critical-side",
        file=PLAN,
        old=(
            '    z = special.ndtri(1.0 - a / 2.0) if alternative == "two-sided" else '
            "special.ndtri(1.0 - a)"
        ),
        new=(
            '    z = special.ndtri(1.0 - a / 2.0) if alternative == "greater" else '
            "special.ndtri(1.0 - a)"
        ),
        tests=(),
        why=(
            "orientation: the one-sided and two-sided critical values are swapped; "
            "two-sided plans are too small and one-sided ones too large."
        ),
    ),
    Mutant(
        id="r7-plan-ceil-truncate",
        file=PLAN,
        old="    return np.ceil(x * (1.0 - 1e-12)).astype(np.int64)",
        new="    return (x * (1.0 - 1e-12)).astype(np.int64)",
        tests=(),
        why=(
            "boundary: sample sizes are truncated instead of rounded up; a plan "
            "needing 123.4 rows per group returns 123, whose power is below the "
            "target."
        ),
    ),
    Mutant(
        id="r7-tol-logit-sqrt",
        file=TOL,
        old="    half = q * np.sqrt(var) / (auc * (1.0 - auc))",
        new="    half = q * var / (auc * (1.0 - auc))",
        tests=(),
        why=(
            "formula: the logit interval's half-width uses the variance instead of "
            "the standard error; AUC tolerance intervals are far too narrow (var ~ "
            "1e-3 vs se ~ 0.03)."
        ),
    ),
    Mutant(
        id="r7-tol-newcombe-nstar",
        file=TOL,
        old="    n_star = 0.5 * (n_pos + n_neg) - 1.0\n    q = (2.0 - theta) * (1.0 + theta)",
        new="    n_star = 0.5 * (n_pos + n_neg)\n    q = (2.0 - theta) * (1.0 + theta)",
        tests=(),
        why=(
            "formula: Newcombe's N* drops its -1 in the variance (but not in the "
            "quartic for the interval ends); the Newcombe AUC interval's Newton "
            "refinement converges to a different end and small-group AUC margins are "
            "mis-tested."
        ),
    ),
    Mutant(
        id="r7-tol-auc-shrink",
        file=TOL,
        old="    shrunk = np.where((auc > 0) & (auc < 1), auc, (auc * pairs + 0.5) / (pairs + 1))",
        new=(
            "    shrunk = np.where((auc > 0) & (auc < 1), auc, (auc * pairs + 0.5) / "
            "(pairs + 0.5))"
        ),
        tests=(),
        why=(
            "formula: an AUC of 0 or 1 is shrunk by half a pseudo-pair in the "
            "numerator only; an AUC of 1 stays 1 and its margin test gets zero "
            "variance."
        ),
    ),
    Mutant(
        id="r7-sweep-fn-total",
        file=SWS,
        old="        tables[:, 4 * g + 2] = totals[g, 1] - above[:, 2 * g + 1]",
        new="        tables[:, 4 * g + 2] = totals[g, 0] - above[:, 2 * g + 1]",
        tests=(),
        why=(
            "formula: false negatives are computed from the group's negatives total; "
            "the sweep's tpr/fnr tables are wrong for unbalanced classes."
        ),
    ),
    Mutant(
        id="r7-sweep-scale",
        file=SWS,
        old="    scale = np.where(positive, (1 / den[:, 0, 0] + 1 / den[:, 1, 0]) / safe_se, 0.0)",
        new="    scale = np.where(positive, (1 / den[:, 0, 0]) / safe_se, 0.0)",
        tests=(),
        why=(
            "formula: the permuted sweep statistic's scale forgets the reference's "
            "1/den term (num_A enters the reference's rate too); observed and "
            "permuted T disagree with the z of the gap."
        ),
    ),
    Mutant(
        id="r7-sweep-exact-critical-tie",
        file="fastfair/sweep/inference.py",
        old="    return float(v[tail[first] > alpha].max())",
        new="    return float(v[tail[first] >= alpha].max())",
        tests=(),
        why=(
            "boundary: the exact critical value keeps support points whose tail "
            "equals alpha; on small exact sweeps a statistic with tail probability "
            "exactly alpha is not rejected."
        ),
    ),
    Mutant(
        id="r7-cmp-sign-zero",
        file=CMP,
        old="    return np.where(obs.gap_a >= 0, 1.0, -1.0)",
        new="    return np.where(obs.gap_a > 0, 1.0, -1.0)",
        tests=(),
        why=(
            "boundary: a model A gap of exactly 0 is oriented negative; 'B reduces "
            "the gap' p-values flip direction for a group with no gap under A."
        ),
    ),
    Mutant(
        id="r7-cmp-change-se-sign",
        file=CMP,
        old=(
            "    change_se = np.sqrt(np.maximum(m.variance_a + m.variance_b - 2.0 * "
            "m.covariance, 0.0))"
        ),
        new=(
            "    change_se = np.sqrt(np.maximum(m.variance_a + m.variance_b + 2.0 * "
            "m.covariance, 0.0))"
        ),
        tests=(),
        why=(
            "formula: the standard error of a group's paired change adds the "
            "covariance instead of subtracting it; with highly correlated models the "
            "reported change SE is far too large."
        ),
    ),
    Mutant(
        id="r7-cmps-centred-ddof",
        file="fastfair/compare/statistics.py",
        old="    return np.where(n > 1, (s_xy - s_x * s_y / n) / np.maximum(n - 1.0, 1.0), 0.0)",
        new="    return np.where(n > 1, (s_xy - s_x * s_y / n) / np.maximum(n, 1.0), 0.0)",
        tests=(),
        why=(
            "formula: the swap permutations' paired AUC moments use ddof 0 instead "
            "of ddof 1; permuted statistics differ from the observed ones' "
            "(paired_auc_moments, ddof 1), biasing the AUC model-comparison "
            "permutation p-values on small groups."
        ),
    ),
    Mutant(
        id="r7-sli-less-tail",
        file=SLI,
        old="        return np.clip(law.cdf(x), 0.0, 1.0)",
        new="        return np.clip(law.cdf(x - 1), 0.0, 1.0)",
        tests=(),
        why=(
            "boundary: the 'less' exact hypergeometric p-value excludes the observed "
            "count; slices with alternative='less' get p-values too small (a slice "
            "with zero successes gets p = 0)."
        ),
    ),
    Mutant(
        id="r7-sli-agresti-caffo",
        file=SLI,
        old="    p2 = (other * n_other + 1.0) / (n_other + 2.0)",
        new="    p2 = (other * n_other + 1.0) / (n_other + 1.0)",
        tests=(),
        why=(
            "formula: the complement's Agresti-Caffo rate adds one success but only "
            "one row; the simultaneous interval's standard error is wrong (and a "
            "complement with all successes gets a rate above 1, se NaN)."
        ),
    ),
    Mutant(
        id="r7-sli-by-harmonic",
        file=SLI,
        old="    c_m = float(np.sum(1.0 / np.arange(1, m + 1)))",
        new="    c_m = float(np.sum(1.0 / np.arange(1, m)))",
        tests=(),
        why=(
            "formula: the Benjamini-Yekutieli constant sums 1/1..1/(m-1); adjusted "
            "slice p-values are too small (for two slices c_m = 1 instead of 1.5)."
        ),
    ),
    Mutant(
        id="r7-moni-strip-side",
        file=MONI,
        old="    out[..., :-1] += np.where(gap > lines, line_log, 0.0)",
        new="    out[..., 1:] += np.where(gap > lines, line_log, 0.0)",
        tests=(),
        why=(
            "orientation: when the plug-in gap is above a line, its evidence is "
            "credited to the strip above the line instead of below; the monitor "
            "rejects strips containing the estimate and never the ones it should."
        ),
    ),
    Mutant(
        id="r7-res-welch-df-group",
        file=RES,
        old=(
            "    df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + "
            "ub > 0 else 1.0"
        ),
        new=(
            "    df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (na - 1)) if ua + "
            "ub > 0 else 1.0"
        ),
        tests=(),
        why=(
            "formula: the Welch-Satterthwaite df uses the first group's size for "
            "both terms; Welch p-values of unbalanced groups (10 vs 1000 rows) use "
            "the wrong t reference."
        ),
    ),
    Mutant(
        id="r7-res-bootstrap-ties",
        file=RES,
        old="        upper, lower = np.mean(d >= t), np.mean(d <= t)",
        new="        upper, lower = np.mean(d > t), np.mean(d < t)",
        tests=(),
        why=(
            "boundary: the bootstrap p-value does not count resamples tied with the "
            "observed difference; with discrete metrics (rates of small groups) "
            "p-values are too small."
        ),
    ),
    Mutant(
        id="r7-was-eo-component",
        file=WAS,
        old="        pvalue, threshold = _chi2_mixture_tail(statistic, thetas[:1], alpha)",
        new="        pvalue, threshold = _chi2_mixture_tail(statistic, thetas[1:], alpha)",
        tests=(),
        why=(
            "formula: equal opportunity's null mixture uses the negatives' weight "
            "instead of the positives'; its p-value and critical value are wrong (or "
            "degenerate with a single outcome part)."
        ),
    ),
    Mutant(
        id="r7-was-single-critical",
        file=WAS,
        old="        return pvalue, float(w[0] * special.chdtri(1, alpha))",
        new="        return pvalue, float(w[0] * special.chdtri(1, alpha / 2))",
        tests=(),
        why=(
            "formula: the one-weight critical value halves alpha as if two-sided; "
            "the Wasserstein test's threshold is too high, so reject disagrees with "
            "pvalue <= alpha."
        ),
    ),
    Mutant(
        id="r7-aud-mde-boundary",
        file=AUD,
        old="    if mde <= tau:",
        new="    if mde < tau:",
        tests=(),
        why=(
            "boundary: a comparison whose minimum detectable effect equals tau "
            "exactly is called 'too small to tell' instead of 'no evidence'; audit "
            "verdicts flip at the documented boundary."
        ),
    ),
    Mutant(
        id="r7-aud-reduced-strict",
        file=AUD,
        old='        if t["pvalue_reduced_adjusted"] <= alpha:',
        new='        if t["pvalue_reduced_adjusted"] < alpha:',
        tests=(),
        why=(
            "boundary: 'gap shrank' needs an adjusted p-value strictly below alpha; "
            "at p = alpha exactly the audit says 'no evidence of a change' or 'gap "
            "changed'."
        ),
    ),
    Mutant(
        id="r7-aud-gap-size-abs",
        file=AUD,
        old=(
            "        size_a, size_b = (np.abs(np.atleast_1d(t[k])).max() for k in "
            '("gap_a", "gap_b"))'
        ),
        new='        size_a, size_b = (np.atleast_1d(t[k]).max() for k in ("gap_a", "gap_b"))',
        tests=(),
        why=(
            "formula: the model comparison sizes each model's gap by its largest "
            "signed value instead of its largest absolute value; a model B with a "
            "larger negative gap is reported 'gap changed' instead of 'gap grew'."
        ),
    ),
    Mutant(
        id="r7-aud-within-strict",
        file=AUD,
        old='    within = row.get("pvalue_equivalence_adjusted", 1.0) <= alpha',
        new='    within = row.get("pvalue_equivalence_adjusted", 1.0) < alpha',
        tests=(),
        why=(
            "boundary: equivalence at an adjusted p-value exactly alpha is not 'FAIR "
            "within ±δ'; verdicts differ from the documented rule at the boundary."
        ),
    ),
    Mutant(
        id="r7-sums-welch-min-rows",
        file=SUMS,
        old="            if self.n[k] < 2:",
        new="            if self.n[k] < 1:",
        tests=(),
        why=(
            "validation: MeanStats.welch accepts a group of one row; its variance "
            "0/0 gives a NaN Welch statistic instead of the documented ValueError."
        ),
    ),
    Mutant(
        id="r7-sums-binned-s01-n",
        file=SUMS,
        old=(
            "        s01 = np.divide(ss01, n0 - 1, out=np.zeros_like(ss01), where=n0 "
            "> 1)\n        return _delong_result("
        ),
        new=(
            "        s01 = np.divide(ss01, n1 - 1, out=np.zeros_like(ss01), where=n0 "
            "> 1)\n        return _delong_result("
        ),
        tests=(),
        why=(
            "formula: the binned summaries' s01 divides by the positives' count "
            "minus one; DeLong variances of ScoreStats are wrong for unbalanced "
            "classes."
        ),
    ),
    Mutant(
        id="r7-sums-followed-negsum",
        file=SUMS,
        old=(
            "        neg_sum = [x + y + 2 * q * p for x, y, p, q in "
            'zip(a["neg_sum"], b["neg_sum"], n0a, n1b)]'
        ),
        new=(
            '        neg_sum = [x + y + q * p for x, y, p, q in zip(a["neg_sum"], '
            'b["neg_sum"], n0a, n1b)]'
        ),
        tests=(),
        why=(
            "merge: followed_by adds n_pos(B) per negative of A instead of 2 "
            "n_pos(B) to the negatives' placement sums; chained summaries give a "
            "wrong V01 mean and variance."
        ),
    ),
    Mutant(
        id="r7-spark-moments-share",
        file=SPARK,
        old="        share = np.divide(nb, n, out=np.zeros_like(n), where=n > 0)",
        new="        share = np.divide(na, n, out=np.zeros_like(n), where=n > 0)",
        tests=(),
        why=(
            "merge: Chan's update moves the mean by the first part's share instead "
            "of the second's; Spark's exact DeLong AUC and variance are wrong with "
            "unequal partitions."
        ),
    ),
    Mutant(
        id="r7-dask-tree-drop",
        file=DASK,
        old=(
            "            for other in block[1:]:\n                node = "
            "dask.delayed(_add)(node, other)"
        ),
        new=(
            "            for other in block[2:]:\n                node = "
            "dask.delayed(_add)(node, other)"
        ),
        tests=(),
        why=(
            "merge: the tree reduction skips the second summary of each block; with "
            "more than one partition the dask engine's counts silently drop "
            "partitions."
        ),
    ),
    Mutant(
        id="r7-val-level-closed",
        file=VAL,
        old=(
            '    if not 0.0 < float(value) < 1.0:\n        raise ValueError(f"{name} '
            'must be in (0, 1), got {show_value(value)}")'
        ),
        new=(
            "    if not 0.0 <= float(value) <= 1.0:\n        raise "
            'ValueError(f"{name} must be in (0, 1), got {show_value(value)}")'
        ),
        tests=(),
        why=(
            "validation: confidence levels and alphas of exactly 0 or 1 are "
            "accepted; confidence_level=1 then gives infinite interval ends instead "
            "of a ValueError."
        ),
    ),
    Mutant(
        id="r7-val-threshold-unit",
        file=VAL,
        old="    if 0.0 <= low and high <= 1.0:\n        return DEFAULT_THRESHOLD",
        new="    if 0.0 <= low and high < 1.0:\n        return DEFAULT_THRESHOLD",
        tests=(),
        why=(
            "boundary: probability scores that reach exactly 1.0 are treated as not "
            "probabilities; an audit of a calibrated model with a score of 1.0 fails "
            "asking for a threshold."
        ),
    ),
    Mutant(
        id="r7-cli-min-group-default",
        file=CLIA,
        old=(
            '        default=10,\n        help="groups with fewer rows are skipped '
            'and listed (default 10)",'
        ),
        new=(
            '        default=1,\n        help="groups with fewer rows are skipped and '
            'listed (default 10)",'
        ),
        tests=(),
        why=(
            "output: the CLI's --min-group-size default is 1 instead of the "
            "documented 10; `fastfair audit` tests groups of 2-9 rows instead of "
            "listing them as skipped."
        ),
    ),
    Mutant(
        id="r7-cli-max-rows-zero",
        file=CLIA,
        old="        if args.max_rows is not None and args.max_rows < 0:  # (argparse: an int)",
        new="        if args.max_rows is not None and args.max_rows <= 0:  # (argparse: an int)",
        tests=(),
        why=(
            "validation: --max-rows 0 (print no test rows, only the summary) is "
            "refused with an error although 0 is documented as allowed (>= 0)."
        ),
    ),
    Mutant(
        id="r7-exact-third-bound",
        file="fastfair/_exact.py",
        old="        ok = (x3 >= 0) & (x3 <= sizes[2])",
        new="        ok = (x3 >= 0) & (x3 < sizes[2])",
        tests=(),
        why=(
            "boundary: the exact three-group enumeration drops tables where the "
            "third group takes all it can; the exact distribution misses mass and "
            "p-values are too small."
        ),
    ),
]
