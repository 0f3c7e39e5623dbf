"""Sixth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut6", 2026-11-27, against main dad3f94).

The author read fastfair/ and csrc/ only, never tests/, docs/testing.md, validation/,
benchmarks/, the earlier mutation records or the earlier sets' entries (only the module
docstring and file constants of scripts/mutants_round5.py and the Mutant dataclass of
scripts/mutants.py, for the format). The mutants are spread over
the whole statistics code: p-values (Wilson interval), AUC (the method rule, the kernels'
variance and tie placements), the score intervals (Clopper-Pearson), the exact
unconditional test (the nuisance grid, the size rule, the run sums), sequential Monte Carlo
(Benjamini-Hochberg, Robbins' mixture, the known p-values' check), clustered parity (the
bandwidth, cluster counts, the t references, the null variance's floor, the CR2 leverage,
the cross-validation), planning, calibration, tolerance, the threshold sweep (the cell
table, the studentization offset, the default thresholds, the counting kernel), compare,
slices, monitor, wasserstein, resampling, the audit, the engines' merges (memory, clusters,
dask, spark), the compiled kernels, _validation and the CLI. 23 of the author's first
choices (and 6 of their first replacements) turned out to repeat an earlier set's mutant
exactly (same file, old and new text; the session's collision check names only the new
ids) and were replaced by other mistakes.

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge,
validation, output. Each ``why`` says the kind, the mistake and what a user sees, on what
input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
COUNTS = "csrc/_counts.pyx"
RUNS = "csrc/_runs.pyx"
AUCK = "csrc/_auc.pyx"
AUCI = "fastfair/auc/inference.py"
SCORE = "fastfair/_score.py"
UNC = "fastfair/_unconditional.py"
SEQ = "fastfair/_sequential.py"
CLU = "fastfair/_clustered.py"
PAR = "fastfair/parity/inference.py"
KSUMS = "csrc/_kernel_sums.pyx"
PLAN = "fastfair/planning/inference.py"
CALS = "fastfair/calibration/statistics.py"
TOL = "fastfair/tolerance/statistics.py"
SWS = "fastfair/sweep/statistics.py"
SWG = "fastfair/sweep/ingest.py"
SWK = "csrc/_sweep.pyx"
CMP = "fastfair/compare/inference.py"
PAIRK = "csrc/_paired.pyx"
MEANS = "csrc/_means.pyx"
MONA = "fastfair/monitor/api.py"
CALA = "fastfair/calibration/api.py"
SLI = "fastfair/slices/inference.py"
MONI = "fastfair/monitor/inference.py"
MONK = "csrc/_monitor.pyx"
MARG = "csrc/_margin_tails.pyx"
WAS = "fastfair/wasserstein/inference.py"
RES = "fastfair/resampling/inference.py"
AUD = "fastfair/auditing/api.py"
SUMS = "fastfair/engines/summaries.py"
ECLU = "fastfair/engines/clusters.py"
SPARK = "fastfair/engines/spark.py"
DASK = "fastfair/engines/dask.py"
VAL = "fastfair/_validation.py"
CLIA = "fastfair/cli/arguments.py"

MUTANTS = [
    # ---------------------------------------------------------------- p-values
    Mutant(
        "r6-wilson-half-n",
        PV,
        "z * z / (4.0 * n * n)) / denom",
        "z * z / (4.0 * n)) / denom",
        (),
        "formula: the Wilson interval's half-width adds z^2/(4n) instead of z^2/(4n^2); the "
        "Monte-Carlo p-value's 95% interval (fixed n_permutations) is far too wide, e.g. for B = "
        "999 permutations.",
    ),
    # ---------------------------------------------------------------- compiled kernels
    Mutant(
        "r6-means-corr-squares",
        MEANS,
        "acc2 = acc2 + prod * prod",
        "acc2 = acc2 + prod",
        (),
        "kernel: the permuted sum of squared products adds the products; correlation_test's "
        "studentized permutation statistic (studentize=True) uses a wrong variance, so its null "
        "and p-value change on any data.",
    ),
    Mutant(
        "r6-counts-weight-squares",
        COUNTS,
        "part[k, 1, slot] += wi * wi",
        "part[k, 1, slot] += wi",
        (),
        "kernel: the per-cell sum of squared weights adds the weights themselves; any "
        "weighted permutation_test with non-unit weights gets wrong Kish effective sizes, so "
        "its studentized statistic and Miettinen-Nurminen interval change.",
    ),
    Mutant(
        "r6-paired-b-squares",
        PAIRK,
        "o[p, codes[r], base + 3] += pb[r] * pb[r]",
        "o[p, codes[r], base + 3] += pa[r] * pb[r]",
        (),
        "kernel: model B's sum of squared placements adds the cross product instead (copy-paste);"
        " compare_models on AUC gets a wrong variance of model B in every permutation, so its "
        "studentized null and p-value change.",
    ),
    Mutant(
        "r6-auck-v10-ddof",
        AUCK,
        "v10 = _centred_ss(mpos, s[2 * g + 1], q[2 * g + 1]) / (mpos - 1) / (4.0 * mneg * mneg)",
        "v10 = _centred_ss(mpos, s[2 * g + 1], q[2 * g + 1]) / mpos / (4.0 * mneg * mneg)",
        (),
        "kernel: the positives' placement variance divides by m+ instead of m+ - 1; the "
        "DeLong variance of every AUC is too small (noticeably with few positives), so "
        "auc_test's z, p-value and intervals are off against a direct DeLong computation.",
    ),
    Mutant(
        "r6-auck-negative-tie-block",
        AUCK,
        "(2 * (tot[2 * g + 1] - below[2 * g + 1] - e1) + e1",
        "(2 * (tot[2 * g + 1] - below[2 * g + 1]) + e1",
        (),
        "kernel: a negative's placement counts the positives of its own tie block as above "
        "it (and again as half); with tied scores across the classes the negatives' "
        "placement sums, hence the DeLong variance, are wrong.",
    ),
    Mutant(
        "r6-sweepk-threshold-strict",
        SWK,
        "lo = lo + 1 if thresholds[lo] <= s else lo",
        "lo = lo + 1 if thresholds[lo] < s else lo",
        (),
        "kernel: the bin search counts a score equal to a threshold as below it, breaking "
        "the 'score >= t is positive' convention; threshold_sweep with thresholds at observed "
        "scores (the default) reports counts, gaps and p-values of the next threshold.",
    ),
    Mutant(
        "r6-paired-tie-half",
        PAIRK,
        "v = (below[side][0] + 0.5 * tied[side][0]) / n_neg[g]",
        "v = (below[side][0] + tied[side][0]) / n_neg[g]",
        (),
        "kernel: a positive's placement counts tied negatives as full wins in the paired AUC "
        "permutation; compare_models on AUC with tied scores gets a permutation null centred "
        "off the observed AUCs.",
    ),
    Mutant(
        "r6-margin-cum-offbyone",
        MARG,
        "(cum[last + 1 - lo1] - cum[first - lo1])",
        "(cum[last - lo1] - cum[first - lo1])",
        (),
        "kernel: the run probability drops the last outcome of each run; the exact "
        "unconditional p-values (method='exact', and 'auto' on small tables) are too small.",
    ),
    Mutant(
        "r6-kernel-cr2-root",
        KSUMS,
        "ut = u * sqrt(om)",
        "ut = u * om",
        (),
        "kernel: the CR2 leverage correction scales a cluster's residual by 1/(1 - p) "
        "instead of 1/sqrt(1 - p) (a CR3-like jackknife); parity standard errors with "
        "small_sample='cr2' are too large where a cluster holds much of the kernel weight.",
    ),
    Mutant(
        "r6-kernel-cv-interp",
        KSUMS,
        "fit = (1.0 - frac) * f0 + frac * f1",
        "fit = frac * f0 + (1.0 - frac) * f1",
        (),
        "kernel: the leave-one-cluster-out fit interpolates between grid points with the "
        "weights swapped; the cross-validation loss, hence bandwidth='cv', changes.",
    ),
    Mutant(
        "r6-monitor-kt-prior",
        MONK,
        "cdef double p1 = (seen[i, 0] + prior) / (seen[i, 1] + 2.0 * prior)",
        "cdef double p1 = (seen[i, 0] + prior) / (seen[i, 1] + prior)",
        (),
        "kernel: the first group's Krichevsky-Trofimov plug-in adds the prior once to the "
        "denominator; the bets of the anytime-valid monitor change and its e-values can "
        "exceed the martingale bound (rates above 1 after few rows).",
    ),
    # ---------------------------------------------------------------- AUC / score / exact
    Mutant(
        "r6-auc-auto-boundary",
        AUCI,
        "smallest >= ASYMPTOTIC_MIN_CLASS else",
        "smallest > ASYMPTOTIC_MIN_CLASS else",
        (),
        "boundary: auc_test(method='auto') sends groups with exactly ASYMPTOTIC_MIN_CLASS "
        "positives or negatives to the permutation test instead of DeLong's z-test.",
    ),
    Mutant(
        "r6-score-cp-lower",
        SCORE,
        "special.betaincinv(np.maximum(x, 1e-300), n - x + 1, tail)",
        "special.betaincinv(np.maximum(x, 1e-300), n - x, tail)",
        (),
        "formula: the Clopper-Pearson lower limit uses Beta(x, n - x) instead of "
        "Beta(x, n - x + 1); rate_limits for fewer than 50 events is too high, so the audit's "
        "hybrid difference interval and compare's intervals are too narrow.",
    ),
    Mutant(
        "r6-unc-arcsine-smaller",
        UNC,
        "math.sqrt(max(self.n1, self.n2))",
        "math.sqrt(min(self.n1, self.n2))",
        (),
        "formula: the arcsine part of the nuisance grid is sized by the smaller group; with a "
        "small group against a large one the tail probability's narrow peak near 0 or 1 is missed"
        " and the exact unconditional p-value is too small.",
    ),
    Mutant(
        "r6-unc-feasible-max",
        UNC,
        "(np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        "(np.maximum(n1, n2) <= SMALL_GROUP_MAX)",
        (),
        "validation: the exact test's size rule looks at the larger group; a small group "
        "against a reference above MAX_SIZE rows is refused (method='exact') or routed to "
        "the score test by 'auto'.",
    ),
    # ---------------------------------------------------------------- sequential
    Mutant(
        "r6-seq-bh-first",
        SEQ,
        "out[order[: ok[-1] + 1]] = True",
        "out[order[: ok[0] + 1]] = True",
        (),
        "formula: Benjamini-Hochberg rejects up to the first ranked p-value under its line "
        "instead of the last (step-down instead of step-up); sequential tests with adjust='bh' "
        "reject too few, e.g. p = (0.04, 0.045) at alpha 0.05 rejects one, not both.",
    ),
    Mutant(
        "r6-seq-robbins-factor",
        SEQ,
        "math.log(n + 1.0) + math.lgamma(n + 1.0)",
        "math.lgamma(n + 1.0)",
        (),
        "formula: Robbins' mixture drops its (n + 1) factor; the confidence sequence is too wide,"
        " so sequential tests draw more permutations than needed and stop 'undecided' more often,"
        " and robbins_interval disagrees with its definition.",
    ),
    Mutant(
        "r6-seq-known-pvalue-check",
        SEQ,
        "if not 0.0 <= res <= 1.0:  # NaN too",
        "if res > 1.0:",
        (),
        "validation: multiple_monte_carlo accepts negative and NaN known p-values; a NaN "
        "in the family silently never rejects and a negative one always does.",
    ),
    # ---------------------------------------------------------------- clustered / parity
    Mutant(
        "r6-clu-empty-clusters",
        CLU,
        "n_clu = np.bincount(cluster_group[present], minlength=K)",
        "n_clu = np.bincount(cluster_group, minlength=K)",
        (),
        "formula: a group's cluster count includes clusters none of whose rows were kept (NaN "
        "rows dropped with nan_policy='omit', or rows below the threshold); n_clusters and the "
        "effective-cluster checks are too high.",
    ),
    Mutant(
        "r6-clu-undersmooth-sign",
        CLU,
        "M ** (-0.2 - undersmooth)",
        "M ** (-0.2 + undersmooth)",
        (),
        "formula: the undersmoothing exponent is added instead of subtracted; the default "
        "bandwidth is oversmoothed (a factor M^0.1 too wide), biasing every parity curve.",
    ),
    Mutant(
        "r6-par-welch-df-min",
        PAR,
        "dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + var[1] ** 2 / df[1])",
        "dfw = np.minimum(df[0], df[1])",
        (),
        "formula: two groups' pointwise t reference takes the smaller group's df instead of the "
        "Welch-Satterthwaite df of the difference's variance; pointwise parity p-values "
        "(small_sample corrections on) are too large where the groups' variances differ.",
    ),
    Mutant(
        "r6-par-marginal-quantile",
        PAR,
        "zq = float(_quantile(0.5 + confidence_level / 2.0,",
        "zq = float(_quantile(confidence_level,",
        (),
        "formula: marginal_outcome_test's two-sided interval uses the one-sided quantile; its "
        "confidence interval is too narrow (90% for a 95% level).",
    ),
    Mutant(
        "r6-par-t-one-sided",
        PAR,
        "2.0 * special.stdtr(np.where(finite, df, 1.0), -np.abs(stat))",
        "special.stdtr(np.where(finite, df, 1.0), -np.abs(stat))",
        (),
        "formula: the two-sided t p-value is not doubled where the df are finite; pointwise "
        "parity p-values and marginal_outcome_test's p-value are halved with small_sample "
        "corrections on.",
    ),
    # ---------------------------------------------------------------- planning
    Mutant(
        "r6-plan-no-ref-variance",
        PLAN,
        "num = ratio[..., ref : ref + 1] + ratio[..., oth]",
        "num = ratio[..., oth]",
        (),
        "allocation: the required total ignores the reference group's variance share; sample_size"
        " asks for too few rows (every comparison's se is above delta / z).",
    ),
    Mutant(
        "r6-plan-sim-two-sided-side",
        PLAN,
        "(sign * z_of(-sign * u_tol) < -zc)",
        "(sign * z_of(sign * u_tol) < -zc)",
        (),
        "orientation: the simulated two-sided tolerance test checks the lower side at +u_tol "
        "instead of -u_tol; simulated power (simulate=True, u_tol > 0) is wrong.",
    ),
    Mutant(
        "r6-plan-tost-two-sided",
        PLAN,
        "zc = special.ndtri(1 - alpha)\n            return (z_of(-sim.delta)",
        "zc = special.ndtri(1 - alpha / 2)\n            return (z_of(-sim.delta)",
        (),
        "formula: the simulated TOST uses the two-sided critical value for each one-sided "
        "test; simulated equivalence power is too low (inconsistent with the analytic plan).",
    ),
    # ---------------------------------------------------------------- calibration
    Mutant(
        "r6-cal-composite-bonferroni",
        CALA,
        "bool(np.all(p >= alpha / len(p)))",
        "bool(np.all(p >= alpha))",
        (),
        "formula: the composite parity check compares each weighting's p-value with alpha instead"
        " of alpha over the number of weightings; with several weightings it declares a violation"
        " more often than alpha.",
    ),
    Mutant(
        "r6-cal-monotone-ties",
        CALS,
        "if np.any(means[1:] < means[:-1]):",
        "if np.any(means[1:] <= means[:-1]):",
        (),
        "boundary: the monotone sweep stops at equal bin means, not only decreasing ones; "
        "on data with two bins of the same outcome rate it picks fewer bins.",
    ),
    # ---------------------------------------------------------------- tolerance
    Mutant(
        "r6-tol-logit-t-df",
        TOL,
        "np.maximum(np.minimum(n_pos, n_neg) - 1.0, 1.0)",
        "np.maximum(np.minimum(n_pos, n_neg), 1.0)",
        (),
        "formula: the logit-t reference has min(n+, n-) degrees of freedom instead of "
        "min(n+, n-) - 1; AUC margin tests and intervals with few positives are too narrow.",
    ),
    Mutant(
        "r6-tol-newcombe-boundary",
        TOL,
        "small = np.minimum(n_pos, n_neg) < NEWCOMBE_BELOW",
        "small = np.minimum(n_pos, n_neg) <= NEWCOMBE_BELOW",
        (),
        "boundary: a group with exactly NEWCOMBE_BELOW positives or negatives also gets "
        "Newcombe's interval in the hybrid union; its AUC interval widens there.",
    ),
    Mutant(
        "r6-tol-auc-se-half",
        TOL,
        "se = (hi - lo) / (2 * special.ndtri(0.5 + res.confidence_level / 2))",
        "se = (hi - lo) / special.ndtri(0.5 + res.confidence_level / 2)",
        (),
        "formula: the AUC difference's standard error is read from the interval's full width "
        "instead of half of it; the Wald (method='delong') tolerance test of an AUC gap has a se "
        "twice too large and p-values too large.",
    ),
    # ---------------------------------------------------------------- sweep
    Mutant(
        "r6-sweep-tn-total",
        SWS,
        "tables[:, 4 * g + 0] = totals[g, 0] - above[:, 2 * g]",
        "tables[:, 4 * g + 0] = totals[g, 1] - above[:, 2 * g]",
        (),
        "formula: true negatives are the group's positives minus its predicted-positive "
        "negatives; any sweep of a metric that uses TN (fpr, specificity) reports wrong "
        "rates unless the classes are balanced.",
    ),
    Mutant(
        "r6-sweep-offset-den",
        SWS,
        "offset = np.where(positive, num[..., 0].sum(axis=1) / den[:, 1, 0] / safe_se, 0.0)",
        "offset = np.where(positive, num[..., 0].sum(axis=1) / den[:, 0, 0] / safe_se, 0.0)",
        (),
        "formula: the permuted statistic's offset divides the pooled numerator by the first "
        "group's denominator; with unequal groups the null maxima are shifted and the "
        "sweep's critical value and adjusted p-values wrong.",
    ),
    Mutant(
        "r6-sweep-default-thresholds",
        SWG,
        'np.quantile(s, np.linspace(0.0, 1.0, k), method="inverted_cdf")',
        "np.quantile(s, np.linspace(0.0, 1.0, k))",
        (),
        "output: default thresholds are interpolated between scores instead of observed "
        "scores; threshold_sweep(thresholds=k) reports thresholds no row has.",
    ),
    # ---------------------------------------------------------------- compare
    Mutant(
        "r6-cmp-mover-high",
        CMP,
        "high = np.sqrt(up[..., g, :] + down[..., r, :])",
        "high = np.sqrt(up[..., g, :] + up[..., r, :])",
        (),
        "orientation: the upper end of the change-of-gap interval adds the reference's "
        "upward distance instead of its downward one; compare_models intervals are wrong "
        "whenever the reference's limits are asymmetric.",
    ),
    Mutant(
        "r6-cmp-change-se-sign",
        CMP,
        "m.variance_a + m.variance_b - 2.0 * m.covariance",
        "m.variance_a + m.variance_b + 2.0 * m.covariance",
        (),
        "formula: the paired change's standard error adds the covariance; two models that "
        "agree on most rows get a much larger change_standard_error than a direct paired "
        "computation.",
    ),
    Mutant(
        "r6-cmp-iut-min",
        CMP,
        "return np.maximum(toward, past).max(axis=-1)",
        "return np.minimum(toward, past).max(axis=-1)",
        (),
        "formula: the intersection-union test takes the smaller of its two p-values; "
        "'gap shrank' is declared when model B overshoots past -d_A (pvalue_reduced too "
        "small).",
    ),
    # ---------------------------------------------------------------- slices
    Mutant(
        "r6-sli-hypergeom-var",
        SLI,
        "(big_n * big_n * (big_n - 1.0))",
        "(big_n * big_n * big_n)",
        (),
        "formula: the slice statistic's variance drops the finite-population factor "
        "N/(N - 1); z-statistics of every slice are slightly too large (visible on small "
        "data).",
    ),
    Mutant(
        "r6-sli-by-harmonic",
        SLI,
        "np.sum(1.0 / np.arange(1, m + 1))",
        "np.sum(1.0 / np.arange(1, m))",
        (),
        "formula: the Benjamini-Yekutieli constant c(m) stops at 1/(m - 1); adjusted p-values of "
        "slice_search with adjust='by' are too small (and 0 for a single slice).",
    ),
    # ---------------------------------------------------------------- monitor
    Mutant(
        "r6-mon-no-bonferroni",
        MONA,
        "float(np.log(self.n_sequences / self.options.alpha))",
        "float(np.log(1.0 / self.options.alpha))",
        (),
        "formula: the rejection threshold of each e-value ignores the number of sequences; with "
        "several groups or metrics the monitor's family-wise error exceeds alpha.",
    ),
    Mutant(
        "r6-mon-bounds-lower",
        MONI,
        "lower = np.where(any_open, edges[first], np.nan)",
        "lower = np.where(any_open, edges[first + 1], np.nan)",
        (),
        "boundary: the lower end of the confidence sequence is the upper edge of the first open "
        "strip; monitor intervals are one strip too short on the left.",
    ),
    # ---------------------------------------------------------------- wasserstein / resampling
    Mutant(
        "r6-was-single-df",
        WAS,
        "return pvalue, float(w[0] * special.chdtri(1, alpha))",
        "return pvalue, float(w[0] * special.chdtri(2, alpha))",
        (),
        "formula: with one positive mixture weight the critical value uses chi-square(2); "
        "the reported threshold and the reject decision disagree with the p-value "
        "(criterion='equal_opportunity').",
    ),
    Mutant(
        "r6-res-welch-df",
        RES,
        "ua**2 / (na - 1) + ub**2 / (nb - 1)",
        "ua**2 / na + ub**2 / nb",
        (),
        "formula: the Welch-Satterthwaite df divides by n instead of n - 1; Welch p-values "
        "of mean_difference_test with small groups are too small.",
    ),
    # ---------------------------------------------------------------- audit
    Mutant(
        "r6-aud-shrunk-den",
        AUD,
        "return np.where(edge, (num + 0.5) / (den + 1.0), rate)",
        "return np.where(edge, (num + 0.5) / den, rate)",
        (),
        "formula: a rate of 1 is shrunk to (den + 1/2)/den > 1 instead of below 1; the audit's "
        "MDE for a group with a perfect rate is wrong (or the planner refuses it).",
    ),
    Mutant(
        "r6-aud-min-group-size",
        AUD,
        "sizes >= min_group_size)",
        "sizes > min_group_size)",
        (),
        "boundary: a group of exactly min_group_size rows is left untested; audit() with "
        "a group at the limit drops its comparisons.",
    ),
    Mutant(
        "r6-aud-gap-size-min",
        AUD,
        '(np.abs(np.atleast_1d(t[k])).max() for k in ("gap_a", "gap_b"))',
        '(np.abs(np.atleast_1d(t[k])).min() for k in ("gap_a", "gap_b"))',
        (),
        "output: the model comparison's 'gap grew' judges each model by its smallest part; for "
        "equalized odds (two parts) the audit says 'gap changed' or 'gap grew' wrongly.",
    ),
    # ---------------------------------------------------------------- engines
    Mutant(
        "r6-eng-meanstats-total",
        SUMS,
        "o_total = other.total + other.n * delta",
        "o_total = other.total + delta",
        (),
        "merge: re-centring another summary's total adds the shift once instead of once per row; "
        "merged MeanStats of batches with different shifts report wrong means.",
    ),
    Mutant(
        "r6-eng-auc-bound-half",
        SUMS,
        "return (neg * pos).sum(axis=1) / (2.0 * n0 * n1)",
        "return (neg * pos).sum(axis=1) / (n0 * n1)",
        (),
        "output: ScoreStats.auc_error_bound forgets that a tied pair counts one half; the "
        "reported bound of binned scores is twice too large.",
    ),
    Mutant(
        "r6-eng-scorestats-v01-ties",
        SUMS,
        "v01 = (above + pos / 2.0) / n1[:, None]",
        "v01 = (above + pos) / n1[:, None]",
        (),
        "formula: a negative's placement counts tied positives fully; ScoreStats.delong "
        "gives wrong s01 and variance on rounded scores (the summary engines' AUC test).",
    ),
    Mutant(
        "r6-eng-sample-offset",
        ECLU,
        "first = (-offset) % step",
        "first = offset % step",
        (),
        "merge: the systematic row sample restarts at the wrong row in each chunk; on more "
        "than 200,000 rows read in chunks the grid and rule-of-thumb bandwidth differ from "
        "the memory engine's.",
    ),
    Mutant(
        "r6-eng-spark-moments",
        SPARK,
        "out[..., 2] = a[..., 2] + b[..., 2] + delta * delta * na * share",
        "out[..., 2] = a[..., 2] + b[..., 2] + delta * delta * share",
        (),
        "merge: Chan's pairwise update of the centred sum of squares drops a factor n_a; "
        "the Spark engine's DeLong variances differ from the memory engine's with more than "
        "one range partition.",
    ),
    Mutant(
        "r6-eng-dask-drop-part",
        DASK,
        "for other in block[1:]:",
        "for other in block[2:]:",
        (),
        "merge: the dask tree reduction keeps only the first summary of each pair of "
        "partitions; summaries (counts, AUCs) of a frame with two or more partitions drop "
        "rows.",
    ),
    # ---------------------------------------------------------------- validation / CLI
    Mutant(
        "r6-val-threshold-or",
        VAL,
        "if 0.0 <= low and high <= 1.0:",
        "if 0.0 <= low or high <= 1.0:",
        (),
        "validation: scores outside [0, 1] on one side (logits, 1-10 risk scores) get the "
        "default threshold 0.5 instead of a ValueError asking for one.",
    ),
    Mutant(
        "r6-cli-power-default",
        CLIA,
        'plan.add_argument("--power", type=float, default=0.8)',
        'plan.add_argument("--power", type=float, default=0.9)',
        (),
        "output: `fastfair plan` without --power plans for 90% power instead of the "
        "documented 80%; sample sizes differ from sample_size()'s default.",
    ),
]
