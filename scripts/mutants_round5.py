"""Fifth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut5", 2026-11-27, against main a6612ed).

The author read fastfair/ and csrc/ only, never tests/, docs/testing.md, validation/,
benchmarks/, the earlier mutation records or the earlier sets' entries (only the module
docstring of scripts/mutants_round4.py and the Mutant dataclass of scripts/mutants.py, for
the format). The mutants are spread over the whole statistics code: permutation (the
p-values, the Wilson interval, Holm, mid-p, the hypergeometric draws and random streams of
_counts), AUC (the DeLong variance of the kernels, the zero-variance fallback, the tie
placements and 128-bit carries of _runs), planning (the Bonferroni critical value, the
Hanley-McNeil variance, the score test's direction, the exact conditional power), parity
(the Welch and F references, the grid, the bandwidths, the Gaussian recurrence),
calibration, tolerance, sweep, sequential, compare, slices, monitor, wasserstein,
resampling, the audit, the engines and file reader, _score / _format / _validation, and the
CLI.

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge,
validation, output. Each ``why`` says the kind, the mistake and what a user sees, on what
input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
PERM = "fastfair/permutation/inference.py"
COUNTS = "csrc/_counts.pyx"
AUCK = "csrc/_auc.pyx"
RUNS = "csrc/_runs.pyx"
PLAN = "fastfair/planning/inference.py"
CPOW = "fastfair/_conditional_power.py"
PAR = "fastfair/parity/inference.py"
CLU = "fastfair/_clustered.py"
KSUMS = "csrc/_kernel_sums.pyx"
CALS = "fastfair/calibration/statistics.py"
CALI = "fastfair/calibration/inference.py"
TOL = "fastfair/tolerance/statistics.py"
SWI = "fastfair/sweep/inference.py"
SWK = "csrc/_sweep.pyx"
SEQ = "fastfair/_sequential.py"
CMP = "fastfair/compare/inference.py"
SLI = "fastfair/slices/inference.py"
SLA = "fastfair/slices/api.py"
MONI = "fastfair/monitor/inference.py"
MONA = "fastfair/monitor/api.py"
WAS = "fastfair/wasserstein/inference.py"
RES = "fastfair/resampling/inference.py"
AUD = "fastfair/auditing/api.py"
SUMS = "fastfair/engines/summaries.py"
SCORE = "fastfair/_score.py"
FMT = "fastfair/_format.py"
VAL = "fastfair/_validation.py"
CLIC = "fastfair/cli/commands.py"
CLIW = "fastfair/cli/writing.py"

MUTANTS = [
    # ---------------------------------------------------------------- permutation
    Mutant(
        id="r5-pv-wilson-one-sided-z",
        file=PV,
        old="    z = special.ndtri(0.5 + confidence_level / 2.0)\n    phat = count / n",
        new="    z = special.ndtri(confidence_level)\n    phat = count / n",
        why="formula: the Wilson interval of a Monte-Carlo p-value with the one-sided z "
        "(1.645 for 95%): every permutation test's pvalue_interval is too narrow, e.g. "
        "permutation_test(method='monte_carlo', n_permutations=999) on any data.",
        tests=(),
    ),
    Mutant(
        id="r5-perm-asymptotic-df-one",
        file=PERM,
        old="df = 2 if options.metric.n_parts == 2 else None",
        new="df = 1 if options.metric.n_parts == 2 else None",
        why="formula: the asymptotic test of a two-part metric (equalized_odds) refers the "
        "sum of two squared z to chi-square(1) instead of chi-square(2): "
        "permutation_test(metric='equalized_odds', method='asymptotic') p-values too small.",
        tests=(),
    ),
    Mutant(
        id="r5-counts-hypergeom-bad-count",
        file=COUNTS,
        old="&stream.bitgen, pool[c], pool_total - pool[c], need)",
        new="&stream.bitgen, pool[c], pool_total, need)",
        why="kernel: the multivariate hypergeometric draw of a group's cell counts uses the "
        "whole pool as the 'bad' count (the cell counted twice): group 0 gets too few rows "
        "in the first cells and the last cell takes the rest; the Monte-Carlo null is "
        "shifted and permutation_test(method='monte_carlo') p-values change on any data "
        "with rows in two or more cells.",
        tests=(),
    ),
    Mutant(
        id="r5-counts-stream-ignores-start",
        file=COUNTS,
        old="ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))\n"
        "            memcpy(table, &obs[0], width * sizeof(double))",
        new="ff_stream_init(stream, key, stream_id, <uint64_t> b)\n"
        "            memcpy(table, &obs[0], width * sizeof(double))",
        why="kernel (random streams): permutation b of a later block reuses stream b "
        "instead of start + b: a sequential permutation_test (sequential=...) or "
        "multiple_monte_carlo that continues drawing repeats its first permutations, so its "
        "p-value differs from the fixed-B test with the same random_state and draws.",
        tests=(),
    ),
    Mutant(
        id="r5-pv-bonferroni-uncapped",
        file=PV,
        old="        return np.minimum(1.0, p * m)",
        new="        return p * m",
        why="formula: Bonferroni-adjusted p-values are not capped at 1: "
        "permutation_test(adjust='bonferroni') with 3 comparisons and a raw p-value of 0.5 "
        "reports pvalue_adjusted 1.5.",
        tests=(),
    ),
    # ---------------------------------------------------------------- auc
    Mutant(
        id="r5-auck-s01-biased",
        file=AUCK,
        old="v01 = _centred_ss(mneg, s[2 * g], q[2 * g]) / (mneg - 1) / (4.0 * mpos * mpos)",
        new="v01 = _centred_ss(mneg, s[2 * g], q[2 * g]) / mneg / (4.0 * mpos * mpos)",
        why="formula: S01 divided by m- instead of m- - 1: the DeLong variance is too small "
        "for small groups (10 negatives: 10% off its S01 part); auc_test(method='delong') "
        "and the studentized permutation statistic change.",
        tests=(),
    ),
    Mutant(
        id="r5-auck-fallback-wrong-pairs",
        file=AUCK,
        old="v = sa * (1.0 - sa) / pa + sb * (1.0 - sb) / pb",
        new="v = sa * (1.0 - sa) / pa + sb * (1.0 - sb) / pa",
        why="allocation: the zero-variance fallback of the kernel's studentized statistic "
        "divides group b's term by group a's pairs: two perfectly separated groups of "
        "different sizes (AUC 1 and 0) give a different statistic and permutation p-value "
        "in auc_test(studentize=True, method='permutation').",
        tests=(),
    ),
    Mutant(
        id="r5-runs-carry-on-equal",
        file=RUNS,
        old="    hi[0] += s < lo[0]",
        new="    hi[0] += s <= lo[0]",
        why="kernel: the 128-bit addition carries when the sum equals the low word, i.e. "
        "whenever 0 is added (the high half of every product of numbers below 2^32): the "
        "sums of squared placements gain 2^64 per row, so the runs' DeLong variances (AUC "
        "summaries of the out-of-core engines) are absurd on any input.",
        tests=(),
    ),
    Mutant(
        id="r5-auc-auto-smallest-over-all-groups",
        file="fastfair/auc/inference.py",
        old="        smallest = st.tot[np.unique(pairs)].min()",
        new="        smallest = st.tot.min()",
        why="allocation: auc_test's 'auto' rule looks at every group, not only the compared "
        "ones: with comparisons=[('a', 'b')] (both with 2,000 of each class) and a third "
        "group 'c' of 50 rows, it runs permutations instead of DeLong (method field and "
        "p-value differ).",
        tests=(),
    ),
    Mutant(
        id="r5-runs-positive-ties-full",
        file=RUNS,
        old="            place = 2 * w.below[2 * g] + en",
        new="            place = 2 * w.below[2 * g] + 2 * en",
        why="kernel: a positive's placement counts the negatives tied with it as fully below "
        "(ties scored 1 instead of 1/2): the AUC from sorted runs (the out-of-core engines' "
        "exact summaries) is too large whenever a positive and a negative share a score.",
        tests=(),
    ),
    # ---------------------------------------------------------------- planning
    Mutant(
        id="r5-plan-hanley-mcneil-swapped",
        file=PLAN,
        old="return (q1 - auc**2) / (1.0 - prevalence) + (q2 - auc**2) / prevalence",
        new="return (q1 - auc**2) / prevalence + (q2 - auc**2) / (1.0 - prevalence)",
        why="orientation: the Hanley-McNeil unit variance divides Q1 by the positives' share "
        "and Q2 by the negatives': sample_size('auc', ...) at prevalence 0.2 plans the wrong "
        "n (unchanged only at prevalence 0.5).",
        tests=(),
    ),
    Mutant(
        id="r5-plan-score-direction-swapped",
        file=PLAN,
        old="sign = np.where(r[ref] >= r[oth], 1.0, -1.0)",
        new="sign = np.where(r[oth] >= r[ref], 1.0, -1.0)",
        why="orientation: the score test's restricted MLE is fitted at U = u_tol on the "
        "wrong side of the presumed gap: sample_size(variance='score', u_tol=0.02) of two "
        "different rates plans a different n (no effect at u_tol=0).",
        tests=(),
    ),
    Mutant(
        id="r5-cpow-one-sided-tails-swapped",
        file=CPOW,
        old="    elif side > 0:\n        pval = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]",
        new="    elif side < 0:\n        pval = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]",
        why="orientation: the one-sided exact conditional test rejects in the wrong tail: "
        "the exact power of alternative='greater' (or 'less') against a real gap is near 0 "
        "instead of near the asymptotic power.",
        tests=(),
    ),
    Mutant(
        id="r5-plan-score-null-variance-allocation",
        file=PLAN,
        old="v_null = q1 * (1 - q1) / n1 + q2 * (1 - q2) / n2",
        new="v_null = q1 * (1 - q1) / n1 + q2 * (1 - q2) / n1",
        why="allocation: the score test's null variance divides the compared group's term by "
        "the reference's size: sample_size(variance='score') with allocation 0.3 plans the "
        "wrong n (unchanged under equal allocation and denominators).",
        tests=(),
    ),
    Mutant(
        id="r5-cpow-alternative-swapped-groups",
        file=CPOW,
        old="    alt = _lookup(w1, a1, x) * _lookup(w2, a2, tt - x)",
        new="    alt = _lookup(w2, a2, x) * _lookup(w1, a1, tt - x)",
        why="orientation: the alternative probability of a table takes the first count from "
        "the second group's binomial: the exact power (test='exact') with denominators 40 "
        "and 120 or rates 0.6 and 0.8 is wrong.",
        tests=(),
    ),
    # ---------------------------------------------------------------- parity
    Mutant(
        id="r5-par-f-df-largest",
        file=PAR,
        old="            dfw = df.min(axis=0)",
        new="            dfw = df.max(axis=0)",
        why="formula: with 3+ groups the F reference takes the largest group df instead of "
        "the smallest: pointwise p-values too small when one group has few clusters "
        "(small-sample correction on).",
        tests=(),
    ),
    Mutant(
        id="r5-par-chi2-df-k",
        file=PAR,
        old="p = special.chdtrc(K - 1, sq)",
        new="p = special.chdtrc(K, sq)",
        why="formula: the Wald statistic of K groups referred to chi-square(K) instead of "
        "K - 1: with 3 groups and small_sample='none', every pointwise p-value is too large.",
        tests=(),
    ),
    Mutant(
        id="r5-clu-grid-union-of-ranges",
        file=CLU,
        old="lo, hi = max(lo, q_lo), min(hi, q_hi)",
        new="lo, hi = min(lo, q_lo), max(hi, q_hi)",
        why="allocation: the default grid spans the union of the groups' central score "
        "ranges instead of their overlap: predictive parity with grid=20 and groups whose "
        "scores lie in [0, 0.6] and [0.3, 1] tests points where one group has no rows "
        "(different grid, p-values; non-overlapping ranges no longer raise).",
        tests=(),
    ),
    Mutant(
        id="r5-clu-scale-max",
        file=CLU,
        old="scale = min(sd, iqr) if iqr > 0 else sd",
        new="scale = max(sd, iqr) if iqr > 0 else sd",
        why="formula: Silverman's robust scale takes the larger of sd and IQR/1.349: the "
        "rule-of-thumb bandwidth (the default) is too wide for heavy-tailed or bimodal "
        "scores; bandwidth and all parity results change (not for normal-like scores "
        "where both agree closely, but e.g. for uniform scores).",
        tests=(),
    ),
    Mutant(
        id="r5-clu-cv-rescale-inverted",
        file=CLU,
        old="h = best * (m_sub / m_all) ** 0.2",
        new="h = best * (m_all / m_sub) ** 0.2",
        why="formula: the CV bandwidth chosen on a subsample is scaled up instead of down "
        "to the full number of clusters: bandwidth='cv' with more than 20,000 clusters "
        "returns a wider bandwidth (unchanged when every cluster is used).",
        tests=(),
    ),
    Mutant(
        id="r5-ksums-recurrence-order",
        file=KSUMS,
        old="        for j in range(j0 + 1, jhi + 1):\n"
        "            k = k * r\n            r = r * q",
        new="        for j in range(j0 + 1, jhi + 1):\n"
        "            r = r * q\n            k = k * r",
        why="kernel: the Gaussian recurrence updates the ratio before the weight: the "
        "kernel weights to the right of each row's nearest grid point are too small by "
        "exp(-d^2) per step, so the clustered kernel regression (uniform grid, Gaussian "
        "kernel) and every parity estimate shift.",
        tests=(),
    ),
    # ---------------------------------------------------------------- calibration
    Mutant(
        id="r5-cal-sweep-one-bin-too-many",
        file=CALS,
        old="            best = b - 1\n            break",
        new="            best = b\n            break",
        why="boundary (off by one): the monotonic sweep keeps the first bin count whose "
        "means are NOT monotone: the sweep-binned calibration error (binning='sweep') "
        "uses one bin too many on any miscalibrated sample.",
        tests=(),
    ),
    Mutant(
        id="r5-cal-equal-width-data-range",
        file=CALS,
        old="lo, hi = (0.0, 1.0) if s.min() >= 0 and s.max() <= 1 else (s.min(), s.max())",
        new="lo, hi = (s.min(), s.max())",
        why="formula: equal-width bins span the observed scores instead of [0, 1] for "
        "probabilities: scores in [0.1, 0.7] get bins of width 0.06 instead of 0.1, and the "
        "equal-width binned calibration error changes.",
        tests=(),
    ),
    Mutant(
        id="r5-cal-equal-mass-rank-shift",
        file=CALS,
        old="b = np.minimum(B - 1, (np.arange(n) * B) // n)",
        new="b = np.minimum(B - 1, (np.arange(1, n + 1) * B) // n)",
        why="boundary (off by one): equal-mass bins use ranks 1..n: with 100 rows and 10 "
        "bins the first bin holds 9 rows and the last 11, so the equal-mass binned "
        "calibration error changes on any miscalibrated sample.",
        tests=(),
    ),
    # ---------------------------------------------------------------- tolerance
    Mutant(
        id="r5-tol-mover-upper-wrong-limit",
        file=TOL,
        old="high = diff + np.sqrt((ua - auc_a) ** 2 + (auc_b - lb) ** 2)",
        new="high = diff + np.sqrt((ua - auc_a) ** 2 + (ub - auc_b) ** 2)",
        why="orientation: the MOVER upper bound of an AUC gap uses group B's upper distance "
        "instead of its lower one: with asymmetric (logit) limits, e.g. AUCs 0.9 and 0.7, "
        "the AUC tolerance test's upper limit and one-sided p-value change.",
        tests=(),
    ),
    Mutant(
        id="r5-tol-auto-exact-cheap-and",
        file=TOL,
        old="cheap = (n_a + n_b <= AUTO_MAX_SIZE) | (np.minimum(n_a, n_b) <= SMALL_GROUP_MAX)",
        new="cheap = (n_a + n_b <= AUTO_MAX_SIZE) & (np.minimum(n_a, n_b) <= SMALL_GROUP_MAX)",
        why="boundary (auto rule): method='auto' runs the exact test only when both size "
        "conditions hold: a small rate gap with few events in two mid-size groups now "
        "gets the score test (method label and p-value differ).",
        tests=(),
    ),
    # ---------------------------------------------------------------- sweep
    Mutant(
        id="r5-sweep-threshold-strict",
        file=SWK,
        old="lo = lo + mid if thresholds[lo + mid] <= s else lo",
        new="lo = lo + mid if thresholds[lo + mid] < s else lo",
        why="boundary: the binary search treats a score equal to a threshold as below it "
        "(inside the search only): with thresholds 0.1, 0.2, 0.3, 0.4 a score of 0.3 counts "
        "as positive at 2 thresholds instead of 3; threshold_sweep counts and p-values "
        "change for scores on the grid (e.g. scores rounded to 0.1).",
        tests=(),
    ),
    Mutant(
        id="r5-sweep-mc-critical-off-by-one",
        file=SWI,
        old="j = int(np.floor(alpha * (b + 1) - 1)) + 1",
        new="j = int(np.floor(alpha * (b + 1) - 1))",
        why="boundary (off by one): the Monte-Carlo critical value is the 49th instead of "
        "the 50th largest of 999 permutations at alpha 0.05: critical_value too large "
        "(a gap with p = 0.05 exactly is not flagged); with B = 19 it becomes infinite.",
        tests=(),
    ),
    # ---------------------------------------------------------------- sequential
    Mutant(
        id="r5-seq-bh-not-step-up",
        file=SEQ,
        old="            out[order[: ok[-1] + 1]] = True",
        new="            out[order[ok]] = True",
        why="formula: the sequential BH decision rejects only the hypotheses under their "
        "own BH line, not all up to the largest: sequential p-values 0.03 and 0.04 at alpha "
        "0.05 (m = 2) reject only the second; decisions of a sequential test with adjust='bh'.",
        tests=(),
    ),
    Mutant(
        id="r5-seq-interval-level-not-split",
        file=SEQ,
        old="    return epsilon / max(1, m_sampled)",
        new="    return epsilon",
        why="formula: the confidence sequences of several Monte-Carlo p-values each get the "
        "whole epsilon: with 3 compared groups under holm, the sequential test stops "
        "earlier and pvalue_interval is narrower than documented.",
        tests=(),
    ),
    Mutant(
        id="r5-seq-robbins-no-mixture-factor",
        file=SEQ,
        old="        math.log(n + 1.0) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0)",
        new="        math.lgamma(n + 1.0) - math.lgamma(s + 1.0)",
        why="formula: Robbins' mixture likelihood ratio without its (n + 1) factor: "
        "robbins_interval(0, 250, 1e-3) is narrower than (0, 0.0485) and sequential tests "
        "stop too early with too-narrow p-value intervals.",
        tests=(),
    ),
    Mutant(
        id="r5-seq-holm-not-step-down",
        file=SEQ,
        old="        k = m if ok.all() else int(np.argmin(ok))",
        new="        k = int(ok.sum())",
        why="formula: sequential Holm rejects as many as pass their own line, not stopping at "
        "the first failure: p-values 0.03 and 0.04 at alpha 0.05 (lines 0.025, 0.05) "
        "reject the 0.03 one; decisions of a sequential test with adjust='holm'.",
        tests=(),
    ),
    # ---------------------------------------------------------------- compare
    Mutant(
        id="r5-cmp-change-se-plus-cov",
        file=CMP,
        old="np.maximum(m.variance_a + m.variance_b - 2.0 * m.covariance, 0.0)",
        new="np.maximum(m.variance_a + m.variance_b + 2.0 * m.covariance, 0.0)",
        why="formula: the paired change's standard error adds the covariance: for two "
        "positively correlated models the per-group change standard error reported by "
        "compare_models is too large.",
        tests=(),
    ),
    Mutant(
        id="r5-cmp-not-past-difference",
        file=CMP,
        old="    total = sign * (obs.gap_b + obs.gap_a) + delta",
        new="    total = sign * (obs.gap_b - obs.gap_a) + delta",
        why="formula: the 'not past -d_A' condition of the reduced-gap test uses d_B - d_A: "
        "compare_models' pvalue_reduced for a model B that halves A's gap becomes large "
        "(the condition then tests the opposite of the shrink).",
        tests=(),
    ),
    Mutant(
        id="r5-cmp-toward-delta-sign",
        file=CMP,
        old="toward = special.ndtr((sign * obs.difference - delta) / obs.scale)",
        new="toward = special.ndtr((sign * obs.difference + delta) / obs.scale)",
        why="orientation: the non-inferiority margin moves the wrong way: "
        "compare_models(delta=0.02) pvalue_noninferior is larger than with delta=0 instead "
        "of smaller.",
        tests=(),
    ),
    Mutant(
        id="r5-cmp-mover-up-wrong-limit",
        file=CMP,
        old="up = np.maximum(up_b**2 + down_a**2 - 2.0 * phi * up_b * down_a, 0.0)",
        new="up = np.maximum(up_b**2 + up_a**2 - 2.0 * phi * up_b * up_a, 0.0)",
        why="orientation: the upward MOVER distance of a change B - A uses A's upper limit "
        "instead of its lower one: compare_models' change_interval upper end is wrong for "
        "asymmetric limits (rates near 0 or 1, small groups).",
        tests=(),
    ),
    # ---------------------------------------------------------------- slices
    Mutant(
        id="r5-sli-min-size-strict",
        file=SLA,
        old="    big = size >= options.min_size",
        new="    big = size > options.min_size",
        why="boundary: a slice of exactly min_size rows is no longer tested: "
        "find_slices(min_size=50) with a level of exactly 50 rows reports it among n_small "
        "and n_slices drops by one.",
        tests=(),
    ),
    Mutant(
        id="r5-sli-agresti-caffo-wrong-n",
        file=SLI,
        old="    p2 = (other * n_other + 1.0) / (n_other + 2.0)",
        new="    p2 = (other * n_other + 1.0) / (n + 2.0)",
        why="allocation: the complement's shrunk rate divides by the slice's size: the "
        "simultaneous intervals of find_slices are wrong for every slice (the slice and "
        "its complement never have the same size in a useful audit).",
        tests=(),
    ),
    Mutant(
        id="r5-sli-maxt-critical-rank",
        file=SLI,
        old="rank = int(np.ceil((1.0 - alpha) * (maxima.size + 1))) - 1",
        new="rank = int(np.ceil((1.0 - alpha) * (maxima.size + 1)))",
        why="boundary (off by one): the max-T critical value is the 951st instead of the "
        "950th smallest of 999 maxima: find_slices(adjust='maxT') reports a larger "
        "critical_value, wider intervals and a different effective_n_slices.",
        tests=(),
    ),
    Mutant(
        id="r5-sli-bonferroni-critical-not-halved",
        file=SLI,
        old='    per_side = level / 2.0 if alternative == "two-sided" else level',
        new="    per_side = level",
        why="formula: the two-sided critical value of the BY/Bonferroni adjustments does not "
        "split the level over the two tails: find_slices(adjust='bonferroni') reports a "
        "smaller critical_value and narrower intervals.",
        tests=(),
    ),
    # ---------------------------------------------------------------- monitor
    Mutant(
        id="r5-mon-sequences-count-reference",
        file=MONA,
        old="return len(self.options.metrics) * (self._capacity - 1) if self._groups else 0",
        new="return len(self.options.metrics) * self._capacity if self._groups else 0",
        why="formula: the Bonferroni count includes the reference group as a comparison: "
        "log_threshold is log(2 m / alpha) instead of log(m / alpha) for two groups, so "
        "FairnessMonitor's sequences are wider and decide later.",
        tests=(),
    ),
    Mutant(
        id="r5-mon-within-or",
        file=MONA,
        old="(lower > -tol) & (upper < tol)",
        new="(lower > -tol) | (upper < tol)",
        why="formula: FAIR within tolerance when either end is inside instead of both: a "
        "monitor with tolerance=0.1 whose sequence is (-0.05, 0.3) reports 'FAIR within "
        "±0.1' instead of watching.",
        tests=(),
    ),
    Mutant(
        id="r5-mon-strips-bet-wrong-side",
        file=MONI,
        old="    out[..., 1:] += np.where(gap < lines, line_log, 0.0)\n"
        "    out[..., :-1] += np.where(gap > lines, line_log, 0.0)",
        new="    out[..., 1:] += np.where(gap > lines, line_log, 0.0)\n"
        "    out[..., :-1] += np.where(gap < lines, line_log, 0.0)",
        why="orientation: each strip bets with the line on the wrong side of the plug-in gap "
        "(against the data): FairnessMonitor's sequences never shrink around a true gap of "
        "0.2 and the state stays 'watching'.",
        tests=(),
    ),
    # ---------------------------------------------------------------- wasserstein
    Mutant(
        id="r5-was-critical-divided",
        file=WAS,
        old="return pvalue, float(w[0] * special.chdtri(1, alpha))",
        new="return pvalue, float(special.chdtri(1, alpha) / w[0])",
        why="formula: the critical value of theta chi-square(1) divides by theta: "
        "wasserstein_test(criterion='equal_opportunity') reports a wrong critical_value and "
        "a reject decision inconsistent with its p-value whenever theta != 1.",
        tests=(),
    ),
    Mutant(
        id="r5-was-eo-wrong-theta",
        file=WAS,
        old="_chi2_mixture_tail(statistic, thetas[:1], alpha)",
        new="_chi2_mixture_tail(statistic, thetas[1:], alpha)",
        why="allocation: equal opportunity's p-value uses the other outcome's theta (or none "
        "when only one part is fitted, then p = 0 or 1): "
        "wasserstein_test(criterion='equal_opportunity') p-value wrong on any data.",
        tests=(),
    ),
    Mutant(
        id="r5-was-mixture-integral-range",
        file=WAS,
        old="val, _ = integrate.quad(integrand, 0.0, 0.5 * math.pi,",
        new="val, _ = integrate.quad(integrand, 0.0, math.pi,",
        why="formula: the two-weight chi-square tail integrates phi over [0, pi]: the "
        "integrand is symmetric about pi/2, so the p-value doubles (capped at 1): "
        "wasserstein_test(criterion='equalized_odds') p-values twice too large.",
        tests=(),
    ),
    # ---------------------------------------------------------------- resampling
    Mutant(
        id="r5-res-welch-df-swapped",
        file=RES,
        old="df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + ub > 0 else 1.0",
        new="df = (ua + ub) ** 2 / (ua**2 / (nb - 1) + ub**2 / (na - 1)) if ua + ub > 0 else 1.0",
        why="allocation: Welch's df pairs each group's variance with the other's size: the "
        "asymptotic Welch test of a mean gap between 5 and 200 rows with unequal variances "
        "has the wrong df and p-value.",
        tests=(),
    ),
    Mutant(
        id="r5-res-basic-becomes-percentile",
        file=RES,
        old="        los.append(t - q_hi)\n        his.append(t - q_lo)",
        new="        los.append(t + q_lo)\n        his.append(t + q_hi)",
        why="formula: the basic bootstrap interval replaced by the percentile one: for a "
        "skewed bootstrap distribution (a rate near 0 in a small group) the "
        "confidence_interval of the basic bootstrap test is mirrored around the estimate.",
        tests=(),
    ),
    # ---------------------------------------------------------------- audit
    Mutant(
        id="r5-aud-shrunk-rate-one",
        file=AUD,
        old="    edge = (num <= 0) | (num >= den)",
        new="    edge = num <= 0",
        why="boundary: a group rate of exactly 1 is not shrunk before planning: an audit "
        "whose small group has every positive predicted positive (TPR 1) gets a "
        "power_note instead of MDE/power figures, or a different verdict.",
        tests=(),
    ),
    Mutant(
        id="r5-aud-gap-grew-orientation",
        file=AUD,
        old='t["verdict"] = "gap grew" if size_b > size_a else "gap changed"',
        new='t["verdict"] = "gap grew" if size_a > size_b else "gap changed"',
        why="orientation: the compare= verdict says 'gap grew' when model B's gap is the "
        "smaller: audit(compare=...) with B clearly worse than A prints 'gap changed' and "
        "vice versa.",
        tests=(),
    ),
    Mutant(
        id="r5-aud-eo-power-largest-part",
        file=AUD,
        old='        power_at_tau=min(f["power_at_tau"] for f in figures),',
        new='        power_at_tau=max(f["power_at_tau"] for f in figures),',
        why="formula: an equalized-odds row's power at tau is that of its better-powered "
        "part: audit(metrics=['equalized_odds']) shows a larger power_at_tau than the "
        "weaker rate allows.",
        tests=(),
    ),
    # ---------------------------------------------------------------- engines / io
    Mutant(
        id="r5-eng-meanstats-shift-sign",
        file=SUMS,
        old="delta = other.shift - self.shift  # re-centre other's sums on self's shift",
        new="delta = self.shift - other.shift  # re-centre other's sums on self's shift",
        why="merge: two MeanStats with different shifts (the default shift is each batch's "
        "first value) are re-centred the wrong way: the merged group means and variances "
        "of batches 1..5 and 6..10 are wrong (equal only when the shifts agree).",
        tests=(),
    ),
    Mutant(
        id="r5-eng-followed-by-neg-squares",
        file=SUMS,
        old='for x, y, p, s, q in zip(a["neg_squares"], b["neg_squares"], n0a, a["neg_sum"], n1b)',
        new='for x, y, p, s, q in zip(a["neg_squares"], b["neg_squares"], n0a, b["neg_sum"], n1b)',
        why="merge: PlacementSums.followed_by shifts the first part's negatives' squared "
        "placements with the second part's placement sum: the merged DeLong variance is "
        "wrong whenever the second part has negatives (AUC itself unchanged).",
        tests=(),
    ),
    Mutant(
        id="r5-eng-scorestats-merge-wrong-groups",
        file=SUMS,
        old="        counts[np.ix_(ib, [0, 1], vb)] += other.counts",
        new="        counts[np.ix_(ia, [0, 1], vb)] += other.counts",
        why="merge: ScoreStats.__add__ places the second summary's groups at the first "
        "summary's positions: batches holding groups {a, b} and {b, c} merge b's scores into "
        "a and c's into b (or fail on a shape mismatch), so the AUC summaries of an "
        "out-of-core audit are wrong when batches hold different groups (no change when "
        "every batch holds the same groups).",
        tests=(),
    ),
    # ------------------------------------------------ _score / _format / _validation
    Mutant(
        id="r5-fmt-mc-floor-strict",
        file=FMT,
        old="        if p <= floor * (1 + 1e-9):",
        new="        if p < floor:",
        why="output: a Monte-Carlo p-value at its floor 1/(B + 1) (no permutation as "
        "extreme) prints '0.001' instead of '< 0.001' in the repr/report of "
        "permutation_test(n_permutations=999) on a strong gap.",
        tests=(),
    ),
    Mutant(
        id="r5-val-probabilities-above-one",
        file=VAL,
        old="    outside = (arr < 0) | (arr > 1)",
        new="    outside = arr < 0",
        why="validation: predicted probabilities above 1 are accepted: calibration with "
        "y_score containing 1.5 returns a result instead of raising ValueError naming "
        "y_score.",
        tests=(),
    ),
    Mutant(
        id="r5-val-level-closed-interval",
        file=VAL,
        old="    if not 0.0 < float(value) < 1.0:",
        new="    if not 0.0 <= float(value) <= 1.0:",
        why="validation: alpha=0 or confidence_level=1 is accepted instead of refused: "
        "auc_test(confidence_level=1.0) returns infinite intervals instead of a ValueError.",
        tests=(),
    ),
    Mutant(
        id="r5-score-restricted-mle-sign",
        file=SCORE,
        old="    q2 = np.clip(q1 - d, 0.0, 1.0)",
        new="    q2 = np.clip(q1 + d, 0.0, 1.0)",
        why="orientation: the restricted MLE's second rate is q1 + d instead of q1 - d "
        "(vectorized path): tolerance_test(method='score', u_tol=0.05) p-values change for "
        "any two rates (no effect at d = 0).",
        tests=(),
    ),
    # ---------------------------------------------------------------- CLI
    Mutant(
        id="r5-cli-monitor-reference-untyped",
        file=CLIC,
        old="config = dict(metrics=args.metrics, reference=label(args.reference),",
        new="config = dict(metrics=args.metrics, reference=args.reference,",
        why="output/allocation: `fastfair monitor --reference 1` on a file whose group "
        "column is numeric passes the text '1', which matches no group label: the "
        "command fails (exit 2) or monitors against another reference.",
        tests=(),
    ),
    Mutant(
        id="r5-cli-max-rows-ignored",
        file=CLIW,
        old="    _print(result.format(max_rows=args.max_rows))",
        new="    _print(result.format())",
        why="output: `fastfair audit ... --max-rows 1` prints the whole table instead of one "
        "row (the written JSON/HTML unchanged).",
        tests=(),
    ),
]
