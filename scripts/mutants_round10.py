"""Tenth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut10", 2026-11-28, against main 2aca133).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges and
result fields, and reading the functions around them); never tests/, docs/testing.md,
validation/, benchmarks/, CHANGELOG.md, the earlier mutation records or the earlier sets'
entries (only the module docstring and file constants of scripts/mutants_round9.py and the
Mutant dataclass of scripts/mutants.py, for the format). README.md, docs/architecture.md,
docs/conventions.md and the spec were not needed and not opened. No test was run.

Process. Candidates that need an exact float tie (p <= alpha against p < alpha, a strict
comparison of a continuous statistic) or that only move a numerical window or bisection
bracket were set aside while reading, before any check. A first batch of 85 was run
through the session's collision check (same file, old and new text as an earlier set's
mutant): 39 collided and were dropped. Replacements, in other places or other mistakes,
came in three more batches of 37, 10 and 2: 10, 3 and 0 collided (52 collisions of 134
written). Two of the remaining 82 were then dropped as possibly equivalent: the display
floor 1/B instead of 1/(B+1) of Monte-Carlo p-values (no p-value on the (c+1)/(B+1)
lattice lies between the two) and shifted dask row offsets that keep the rows' order.
80 mutants, 0 collisions on the final check.

By file: _pvalues 4, _score 3, _exact 1, _unconditional 1, _sequential 2, _comparisons 2,
_confusion 1, _metrics 1, _clustered 1, _validation 5, auc 1, permutation 2, resampling 3,
tolerance 1, planning 4, calibration 3, parity 3, compare 5 (statistics 3, inference 2),
monitor 3, slices 3, sweep 2, wasserstein 3, simulate 2, auditing 4 (api 2, report 2),
engines 8 (clusters 3, summaries, cube, dask, files, spark 1 each), CLI 4 (commands,
loading 1 each, arguments 2), csrc 8 in seven compiled sources (_auc, _paired, _runs,
_wasserstein, _kernel_sums, ff_sampling.h 1 each, ff_rates.h 2; each needs a rebuild).
Kinds (from each ``why``): formula 29, validation 13, orientation 11, kernel 8,
allocation 6, boundary 5, merge 4, output 4. Mutants that only larger or particular inputs
reach: r10-dask-chain-order and r10-spark-m2-merge (two or more partitions),
r10-clu-merge-max (a clustered input read in several chunks), r10-cube-add-at (a
marginal or sum with repeated cells), r10-val-binary-two (labels other than 0/1).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the
tests, the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel,
merge, validation, output. Each ``why`` says the kind, the mistake and what a user sees, on
what input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
SCORE = "fastfair/_score.py"
EXACT = "fastfair/_exact.py"
UNC = "fastfair/_unconditional.py"
SEQ = "fastfair/_sequential.py"
COMP = "fastfair/_comparisons.py"
CONF = "fastfair/_confusion.py"
CLUSD = "fastfair/_clustered.py"
VAL = "fastfair/_validation.py"
AUCI = "fastfair/auc/inference.py"
TOLS = "fastfair/tolerance/statistics.py"
PERMI = "fastfair/permutation/inference.py"
RESS = "fastfair/resampling/statistics.py"
RESI = "fastfair/resampling/inference.py"
CALI = "fastfair/calibration/inference.py"
CALS = "fastfair/calibration/statistics.py"
PLAN = "fastfair/planning/inference.py"
PARI = "fastfair/parity/inference.py"
CMPI = "fastfair/compare/inference.py"
MONA = "fastfair/monitor/api.py"
MONI = "fastfair/monitor/ingest.py"
SLI = "fastfair/slices/inference.py"
SWS = "fastfair/sweep/statistics.py"
SWI = "fastfair/sweep/inference.py"
AUD = "fastfair/auditing/api.py"
REP = "fastfair/auditing/report.py"
SUMS = "fastfair/engines/summaries.py"
CUBE = "fastfair/engines/cube.py"
DASK = "fastfair/engines/dask.py"
FILES = "fastfair/engines/files.py"
SPARK = "fastfair/engines/spark.py"
CLUS = "fastfair/engines/clusters.py"
CLIC = "fastfair/cli/commands.py"
CLIA = "fastfair/cli/arguments.py"
AUCK = "csrc/_auc.pyx"
PAIRK = "csrc/_paired.pyx"
RUNSK = "csrc/_runs.pyx"
WASK = "csrc/_wasserstein.pyx"
SAMPH = "csrc/ff_sampling.h"
RATESK = "csrc/ff_rates.h"
KSUMK = "csrc/_kernel_sums.pyx"
CMPS = "fastfair/compare/statistics.py"
WASA = "fastfair/wasserstein/api.py"
SIMU = "fastfair/simulate.py"
MONINF = "fastfair/monitor/inference.py"
SLST = "fastfair/slices/statistics.py"
CLIL = "fastfair/cli/loading.py"
METR = "fastfair/_metrics.py"
WASI = "fastfair/wasserstein/inference.py"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r10-pv-wilson-half",
        PV,
        "z * z / (4.0 * n * n)",
        "z * z / (2.0 * n * n)",
        "formula: the Wilson half-width's second term over 2n^2 instead of 4n^2; every Wilson "
        "interval of a group rate is too wide, visible on any small group (n=10, x=3).",
    ),
    m(
        "r10-pv-holm-weights",
        PV,
        "np.maximum.accumulate((m - np.arange(m)) * p[order])",
        "np.maximum.accumulate((m - np.arange(1, m + 1)) * p[order])",
        "formula: Holm's multipliers m-1..0 instead of m..1; the smallest p-value is multiplied "
        "by m-1 and the largest by 0; wrong adjusted p-values for any family of 3 comparisons.",
    ),
    m(
        "r10-pv-maxt-count",
        PV,
        "return (count + 1.0) / (maxima.shape[0] + 1.0)",
        "return (count + 1.0) / maxima.shape[0]",
        "formula: max-T adjusted p-values divide by B instead of B + 1; every adjusted p-value "
        "is too large (2/B instead of 2/(B+1) at one exceedance), on any maxT family.",
    ),
    m(
        "r10-score-mn-factor",
        SCORE,
        "var *= (n1 + n2) / max(n1 + n2 - 1.0, 1e-300)",
        "var *= (n1 + n2 - 1.0) / max(n1 + n2, 1e-300)",
        "formula: the scalar path's Miettinen-Nurminen factor inverted, N-1/N instead of N/N-1; "
        "score intervals of one comparison are too narrow, visible on two groups of 20.",
    ),
    m(
        "r10-score-cp-tail",
        SCORE,
        "tail = (1.0 - confidence_level) / 2.0",
        "tail = 1.0 - confidence_level",
        "formula: the Clopper-Pearson limits use alpha instead of alpha/2 per tail; exact group "
        "rate intervals (few positives, e.g. 1 of 30) are too narrow.",
    ),
    m(
        "r10-unc-nuisance-range",
        UNC,
        "self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)",
        "self.lo, self.hi = max(0.0, self.d), min(1.0, 1.0 - self.d)",
        "orientation: the nuisance range for p2 with margin d > 0 starts at d instead of 0; the "
        "supremum misses p2 < d and the exact unconditional p-value with a tolerance is too "
        "small.",
    ),
    m(
        "r10-seq-bh-index",
        SEQ,
        "ok = np.flatnonzero(ranked <= alpha * np.arange(1, m + 1) / m)",
        "ok = np.flatnonzero(ranked <= alpha * np.arange(m) / m)",
        "formula: the sequential BH verdict's thresholds start at 0 instead of alpha/m; the "
        "smallest p-value can never reject alone, wrong verdicts with sequential=True, "
        "adjust='bh'.",
    ),
    m(
        "r10-seq-interval-union",
        SEQ,
        "self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)",
        "self.lo, self.hi = min(self.lo, lo), max(self.hi, hi)",
        "allocation: the confidence sequence takes the union instead of the intersection of its "
        "intervals; the stopping rule sees wider intervals, a sequential test draws more "
        "permutations and reports a wider p-value interval.",
    ),
    m(
        "r10-auc-shrunk",
        AUCI,
        "shrunk = (auc * n_pairs + 0.5) / (n_pairs + 1.0)",
        "shrunk = (auc * n_pairs + 0.5) / n_pairs",
        "formula: the zero-variance fallback's pseudo-pair shrinkage divides by n_pairs; with a "
        "group of perfectly separated scores (AUC 1) the shrunk AUC exceeds 1 and the variance "
        "goes negative: NaN statistic.",
    ),
    m(
        "r10-res-welch-ddof",
        RESS,
        "var_a = np.maximum(s2a - s1a * ma, 0.0) / (na - 1)",
        "var_a = np.maximum(s2a - s1a * ma, 0.0) / na",
        "formula: the first group's Welch variance uses ddof 0; the studentized resampling "
        "statistic is wrong, visible on the statistic of two groups of 5 rows.",
    ),
    m(
        "r10-res-boot-stream",
        RESS,
        "ib = _means.bootstrap_indices(n_b, n_b, s, count, self.key, 3 * self.stream + 2)",
        "ib = _means.bootstrap_indices(n_b, n_b, s, count, self.key, 3 * self.stream + 1)",
        "allocation: the second group's bootstrap draws share the first group's stream; with "
        "groups of equal size both resamples use the same indices, the bootstrap variance and "
        "interval shrink (positively correlated).",
    ),
    m(
        "r10-cmp-auc-defined",
        COMP,
        "if tot[g, 1] == 0 or tot[g, 0] == 0:",
        "if tot[g, 1] == 0 and tot[g, 0] == 0:",
        "validation: a group with positives but no negatives is accepted for AUC; the user gets a "
        "NaN AUC instead of the ValueError naming the group.",
    ),
    m(
        "r10-conf-one-group",
        CONF,
        "table.shape[1] != 4 or table.shape[0] < 2",
        "table.shape[1] != 4 or table.shape[0] < 1",
        "validation: a counts table with one group is accepted; the user gets an empty or broken "
        "result instead of the ValueError about n_groups >= 2.",
    ),
    m(
        "r10-sums-s10-ddof",
        SUMS,
        "s10 = np.divide(ss10, n1 - 1, out=np.zeros_like(ss10), where=n1 > 1)  # one: 0",
        "s10 = np.divide(ss10, n1, out=np.zeros_like(ss10), where=n1 > 1)  # one: 0",
        "formula: the binned DeLong s10 uses ddof 0; the summary's AUC variance is too small on "
        "any group (visible with 5 positives).",
    ),
    m(
        "r10-files-binary",
        FILES,
        "    if len(seen) > 2:\n        shown",
        "    if len(seen) >= 2:\n        shown",
        "validation: a binary label column with both 0 and 1 is refused as non-binary when "
        "reading files; any ordinary CSV fails.",
    ),
    m(
        "r10-clu-merge-max",
        CLUS,
        'np.maximum(v, b[k]) if k == "max_b" else v + b[k]',
        'np.minimum(v, b[k]) if k == "max_b" else v + b[k]',
        "merge: merging two users' kernel sums keeps the smaller max_b; a clustered result read "
        "in several chunks (more than CHUNK_ROWS rows, or a merged engine run) reports a wrong "
        "largest cluster term.",
    ),
    m(
        "r10-clu-nrows",
        CLUS,
        "n_rows += np.bincount(cgroup, weights=counts, minlength=K)",
        "n_rows += np.bincount(cgroup, minlength=K)",
        "output: the per-group row count counts users instead of rows; any clustered input with "
        "a user of two rows reports n_rows equal to n_clusters.",
    ),
    m(
        "r10-spark-m2-merge",
        SPARK,
        "delta * delta * na * share",
        "delta * delta * share",
        "merge: Chan's pairwise update of the sum of squares misses the factor n_a; merged "
        "placement moments of Spark partitions understate the DeLong variance (2+ partitions).",
    ),
    m(
        "r10-mon-maxgroups",
        MONI,
        "elif max_groups < 2 or",
        "elif max_groups < 1 or",
        "validation: max_groups=1 is accepted; a monitor that can never compare groups is built "
        "instead of the ValueError 'max_groups must be >= 2'.",
    ),
    m(
        "r10-sli-quantile-sides",
        SLI,
        'per_side = level / 2.0 if alternative == "two-sided" else level',
        'per_side = level if alternative == "two-sided" else level / 2.0',
        "orientation: the critical quantile halves alpha for the one-sided test and not for the "
        "two-sided one; slices' critical value wrong for either alternative.",
    ),
    m(
        "r10-sli-ac-p1",
        SLI,
        "p1 = (value * n + 1.0) / (n + 2.0)",
        "p1 = (value * n + 1.0) / (n + 1.0)",
        "formula: the slice's adjusted rate adds one pseudo-count but only one trial; the "
        "slice's interval is shifted upward, visible on a slice of 10 rows.",
    ),
    m(
        "r10-sws-pooled",
        SWS,
        "pooled = num[..., 0].sum(axis=1) / den[..., 0].sum(axis=1)",
        "pooled = rate.mean(axis=1)",
        "formula: the sweep's pooled rate is the unweighted mean of the two rates; with groups of "
        "100 and 20 rows the pooled standard error and every studentized gap is wrong.",
    ),
    m(
        "r10-cal-bandwidth",
        CALS,
        "max(m_eff, 2.0) ** (-1.0 / (K + 4))",
        "max(m_eff, 2.0) ** (-1.0 / (K + 2))",
        "formula: the kernel bandwidth's Scott exponent uses K+2; kernel calibration curves are "
        "smoothed with the wrong bandwidth on any group.",
    ),
    m(
        "r10-plan-tost-min",
        PLAN,
        "ok = _tost_power(t, delta, se, z).min(axis=-1) >= power",
        "ok = _tost_power(t, delta, se, z).max(axis=-1) >= power",
        "allocation: the TOST size asks the best comparison, not every one, to reach the power; "
        "with 3 groups of unequal variance the n is too small.",
    ),
    m(
        "r10-plan-smallest",
        PLAN,
        "smallest = math.ceil(2.0 / p.min())",
        "smallest = math.ceil(2.0 / p.max())",
        "boundary: the exact search starts where the largest group has 2 rows; with an unequal "
        "allocation (0.9/0.1) the smallest group can get fewer than 2 rows.",
    ),
    m(
        "r10-plan-score-swap",
        PLAN,
        "(z * np.sqrt(v_null) + zb * np.sqrt(v_alt)) ** 2",
        "(z * np.sqrt(v_alt) + zb * np.sqrt(v_null)) ** 2",
        "formula: the score-test size attaches the null variance to the power quantile; wrong "
        "n whenever the rates differ (0.3 vs 0.4).",
    ),
    m(
        "r10-par-fdtrc",
        PARI,
        "np.where(finite, dfw, 1.0), sq / (K - 1))",
        "np.where(finite, dfw, 1.0), sq)",
        "formula: the small-sample F reference gets W instead of W/(K-1); with 3 groups the "
        "parity p-value is too small.",
    ),
    m(
        "r10-par-var-floor",
        PARI,
        "np.maximum(num, sigma2 * sbb)",
        "np.minimum(num, sigma2 * sbb)",
        "formula: the cluster variance's floor becomes a ceiling; parity variances too small "
        "for clustered data with heterogeneous clusters.",
    ),
    m(
        "r10-clus-below",
        CLUSD,
        "n_below = np.bincount(gcodes[s <= threshold], minlength=len(labels))",
        "n_below = np.bincount(gcodes[s < threshold], minlength=len(labels))",
        "boundary: rows scored exactly at the threshold are not counted below it; with integer "
        "or rounded scores the reported count below the threshold is too small.",
    ),
    m(
        "r10-cmpi-auc-large",
        CMPI,
        "large = min(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS",
        "large = max(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS",
        "allocation: the paired AUC test goes asymptotic when either class is large; a group "
        "with 5 positives and 500 negatives gets the asymptotic method.",
    ),
    m(
        "r10-cmpi-change-cov",
        CMPI,
        "m.variance_a + m.variance_b - 2.0 * m.covariance, 0.0",
        "m.variance_a + m.variance_b + 2.0 * m.covariance, 0.0",
        "formula: the paired change's variance adds the covariance; the paired comparison's "
        "change standard error too large for correlated models.",
    ),
    m(
        "r10-resi-tails",
        RESI,
        "upper, lower = np.mean(d >= t), np.mean(d <= t)",
        "upper, lower = np.mean(d <= t), np.mean(d >= t)",
        "orientation: the bootstrap tail shares swapped; one-sided resampling p-values are "
        "reported for the opposite alternative.",
    ),
    m(
        "r10-aud-mde",
        AUD,
        "    if mde <= tau:\n",
        "    if mde >= tau:\n",
        "orientation: the MDE comparison flipped; an audit that could detect tau says "
        "'underpowered' and one that could not says 'no evidence'.",
    ),
    m(
        "r10-rep-more",
        REP,
        'more = f" and {len(failed) - 3} more"',
        'more = f" and {len(failed)} more"',
        "output: the errors sentence counts all failed tests as 'more' beyond the three named; "
        "an audit with 5 errors says 'and 5 more'.",
    ),
    m(
        "r10-rep-mde-class",
        REP,
        'cls = "mde-ok" if t["mde"] <= result.tau else "mde-low"',
        'cls = "mde-ok" if t["mde"] >= result.tau else "mde-low"',
        "output: the HTML report marks the MDE cells the wrong way round.",
    ),
    m(
        "r10-val-score-one",
        VAL,
        "outside = (arr < 0) | (arr > 1)",
        "outside = (arr < 0) | (arr >= 1)",
        "validation: a score or probability of exactly 1.0 is refused as outside [0, 1].",
    ),
    m(
        "r10-val-min-groups",
        VAL,
        "    if len(labels) < min_groups:",
        "    if len(labels) <= min_groups:",
        "validation: data with exactly min_groups groups (two groups) is refused.",
    ),
    m(
        "r10-val-int-minimum",
        VAL,
        "    if value < minimum:\n",
        "    if value <= minimum:\n",
        "validation: an integer option equal to its minimum (n_permutations at its floor) is "
        "refused.",
    ),
    m(
        "r10-val-prob-zero",
        VAL,
        "    if 0.0 <= low and high <= 1.0:",
        "    if 0.0 < low and high <= 1.0:",
        "validation: scores in [0, 1] that include exactly 0 are not taken for probabilities; "
        "the user gets an error/warning asking for a threshold.",
    ),
    m(
        "r10-cli-maxrows",
        CLIA,
        "args.max_rows is not None and args.max_rows < 0:",
        "args.max_rows is not None and args.max_rows <= 0:",
        "validation: --max-rows 0 is refused (documented as >= 0).",
    ),
    m(
        "r10-cli-repeated",
        CLIA,
        "if args.names.count(n) > 1",
        "if args.names.count(n) > 2",
        "validation: a name given twice is accepted; only three repeats are refused.",
    ),
    m(
        "r10-k-auc-shrink",
        AUCK,
        "sa = (auc_a * pa + 0.5) / (pa + 1.0)",
        "sa = (auc_a * pa + 0.5) / (pa + 0.5)",
        "kernel: the compiled zero-variance fallback shrinks group a's AUC by half a pair only; "
        "AUC 1 stays 1, a zero fallback variance, infinite statistic.",
    ),
    m(
        "r10-k-runs-place",
        RUNSK,
        "place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) + ep",
        "place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) + 2 * ep",
        "kernel: a negative's placement counts tied positives fully in the run merge; AUC "
        "variance wrong on tied scores read by runs (files engine).",
    ),
    m(
        "r10-k-wass-d1",
        WASK,
        "d1[0] = e * inv * inv",
        "d1[0] = e * inv",
        "kernel: sigmoid' misses a factor 1/(1+e); the robust Wasserstein optimum is wrong on "
        "any input with a nonzero budget.",
    ),
    m(
        "r10-k-shuffle-sattolo",
        SAMPH,
        "uint32_t j = ff_fast_bounded_u32(s, (uint32_t)(i + 1));",
        "uint32_t j = ff_fast_bounded_u32(s, (uint32_t)i);",
        "kernel: Fisher-Yates becomes Sattolo (j < i): only cyclic permutations, no element "
        "stays; the permutation null is biased, visible with 2-4 rows.",
    ),
    m(
        "r10-pv-orient-less",
        PV,
        "        return -null, -observed\n",
        "        return -null, observed\n",
        "orientation: for alternative='less' only the null is negated; the observed statistic "
        "keeps its sign and the p-value is about 1 - p (or 1), any less-sided permutation test.",
    ),
    m(
        "r10-score-trig-root",
        SCORE,
        "w = (math.pi + math.acos(ratio)) / 3.0",
        "w = (math.pi - math.acos(ratio)) / 3.0",
        "formula: the scalar path takes another root of the likelihood cubic; the constrained "
        "MLE and hence the score interval of one comparison are wrong (two groups of 30).",
    ),
    m(
        "r10-exact-logbinom",
        EXACT,
        "- special.gammaln(n - k + 1.0)",
        "- special.gammaln(n - k)",
        "formula: the log binomial coefficient's last term is log Gamma(n-k) instead of "
        "log Gamma(n-k+1); three-group exact null probabilities wrong (p-value of 3 groups of 6).",
    ),
    m(
        "r10-cmps-cov-ddof",
        CMPS,
        "(s_xy - s_x * s_y / n) / np.maximum(n - 1.0, 1.0), 0.0)",
        "(s_xy - s_x * s_y / n) / np.maximum(n, 1.0), 0.0)",
        "formula: the paired covariance uses ddof 0; compare's paired AUC/metric covariance too "
        "small, change standard errors wrong on 10 rows.",
    ),
    m(
        "r10-cmps-auc-cov",
        CMPS,
        "cov = c10 / np.maximum(n_pos, 1.0) + c01 / np.maximum(n_neg, 1.0)",
        "cov = c10 / np.maximum(n_neg, 1.0) + c01 / np.maximum(n_pos, 1.0)",
        "orientation: the paired DeLong covariance divides S10 by the negatives and S01 by the "
        "positives; wrong whenever a group's classes differ in size.",
    ),
    m(
        "r10-cmps-influence",
        CMPS,
        "return rate, n_den, (num - rate[..., None] * den) / safe[..., None]",
        "return rate, n_den, num / safe[..., None]",
        "formula: the delta-method influence omits the -M w_c term; paired rate variances too "
        "large, compare intervals too wide.",
    ),
    m(
        "r10-was-lambda",
        WASA,
        "lam = [n / counts[1, lab], -n / counts[0, lab]]",
        "lam = [n / counts[0, lab], -n / counts[1, lab]]",
        "orientation: the cell weights attach each group's size to the other group; the "
        "Wasserstein statistic wrong whenever groups differ in size.",
    ),
    m(
        "r10-sim-pmf",
        SIMU,
        "pn = stats.poisson.pmf(ns - 1, lam)",
        "pn = stats.poisson.pmf(ns, lam)",
        "formula: the cluster-size law drops its shift by one; the simulation's theoretical "
        "value differs.",
    ),
    m(
        "r10-sim-z",
        SIMU,
        "z = np.minimum(n_u / n_max, 1.0)",
        "z = np.maximum(n_u / n_max, 1.0)",
        "formula: the informative-size factor is clipped from below at 1 instead of above; "
        "simulated outcomes ignore cluster size.",
    ),
    m(
        "r10-tol-logit-half",
        TOLS,
        "half = q * np.sqrt(var) / (auc * (1.0 - auc))",
        "half = q * np.sqrt(var) / auc",
        "formula: the logit AUC interval's delta-method factor misses 1-A; per-group AUC "
        "intervals too narrow.",
    ),
    m(
        "r10-moni-last",
        MONINF,
        "last = open_.shape[-1] - 1 - np.argmax(open_[..., ::-1], axis=-1)",
        "last = open_.shape[-1] - np.argmax(open_[..., ::-1], axis=-1)",
        "boundary: the last open strip index is one too high; the monitor's upper confidence "
        "bound reaches one strip further (or indexes past the last edge).",
    ),
    m(
        "r10-mon-capacity",
        MONA,
        "capacity = max(self.options.max_groups, len(groups))",
        "capacity = min(self.options.max_groups, len(groups))",
        "allocation: the monitor's capacity is the smaller of max_groups and the groups seen; "
        "a group arriving in a later update is refused, and the Bonferroni count drops.",
    ),
    m(
        "r10-aud-one-tested",
        AUD,
        "if attr.tested.sum() < 2:",
        "if attr.tested.sum() < 1:",
        "validation: an attribute with only one group large enough is still audited; its "
        "tests fail or compare nothing instead of being reported as not tested.",
    ),
    m(
        "r10-clu-weighting",
        CLUS,
        'weight = 1.0 / counts if weighting == "per_user" else np.ones(len(counts))',
        'weight = np.ones(len(counts)) if weighting == "per_user" else 1.0 / counts',
        "orientation: per-user and per-row weighting swapped in the chunked cluster engine; "
        "clustered estimates with users of unequal sizes change.",
    ),
    m(
        "r10-cmp-den-empty",
        COMP,
        "            if den[g, part] <= 0:",
        "            if den[g, part] < 0:",
        "validation: a group without a denominator row (no positives for TPR) is accepted; the "
        "user gets NaN instead of the ValueError naming the group.",
    ),
    m(
        "r10-slst-depth",
        SLST,
        "for d in range(1, min(max_depth, n_features) + 1)",
        "for d in range(1, min(max_depth, n_features))",
        "boundary: the slice lattice stops one predicate short of max_depth; max_depth=2 "
        "searches single predicates only.",
    ),
    m(
        "r10-cal-scale",
        CALS,
        "scale = np.minimum(sd, (q3 - q1) / 1.349)",
        "scale = np.maximum(sd, (q3 - q1) / 1.349)",
        "formula: the bandwidth's robust scale takes the larger of sd and IQR/1.349; smoother "
        "kernel curves on skewed scores.",
    ),
    m(
        "r10-par-shrunk",
        PARI,
        "shrunk = (est / scale * n_eff + 0.5) / (n_eff + 1.0)",
        "shrunk = (est / scale * n_eff + 0.5) / n_eff",
        "formula: parity's zero-variance fallback shrinks by half an observation but no trial; "
        "a constant curve point at 1 stays above 1, negative variance, NaN.",
    ),
    m(
        "r10-plan-tost-one",
        PLAN,
        "+ special.ndtr((delta + a) / se - z) - 1.0",
        "+ special.ndtr((delta + a) / se - z)",
        "formula: TOST power misses the -1; power is near 1 + power and every sample size is "
        "the smallest.",
    ),
    m(
        "r10-cli-spark-master",
        CLIC,
        'place = args.master if engine == "spark" else args.scheduler',
        'place = args.scheduler if engine == "spark" else args.master',
        "orientation: the CLI passes --scheduler to Spark and --master to dask; a dask run with "
        "--scheduler ignores it.",
    ),
    m(
        "r10-cli-col-position",
        CLIL,
        "positions.setdefault(name, []).append(j + 1)",
        "positions.setdefault(name, []).append(j)",
        "output: a repeated, unequal column is named at 0-based positions; the error message "
        "says 'columns 0 and 2' instead of 1 and 3.",
    ),
    m(
        "r10-val-binary-two",
        VAL,
        "    if len(values_seen) > 2:",
        "    if len(values_seen) >= 2:",
        "validation: a label that is not 0/1 ('yes'/'no' with pos_label) is refused as "
        "non-binary when it has exactly two values.",
    ),
    m(
        "r10-k-paired-pos",
        PAIRK,
        "- 0.5 * tied[side][1]) / n_pos[g]",
        "- 0.5 * tied[side][1]) / n_neg[g]",
        "kernel: a negative's paired placement divides by the negatives; paired AUC permutations "
        "wrong when classes differ in size.",
    ),
    m(
        "r10-k-rates-inv",
        RATESK,
        "inv_a = s2_a / (den_a * den_a), inv_b",
        "inv_a = s2_a / den_a, inv_b",
        "kernel: 1/n_eff of group a misses a factor 1/den; the compiled studentized statistic "
        "is wrong for every permutation.",
    ),
    m(
        "r10-k-rates-shrunk",
        RATESK,
        "+ r_b * (1.0 - r_b) / (n_b + 1.0);",
        "+ r_b * (1.0 - r_b) / n_b;",
        "kernel: the zero-variance fallback's second term divides by n_b; permuted tables with "
        "all-zero rates get another statistic.",
    ),
    m(
        "r10-k-ksum-window",
        KSUMK,
        "a = ceil((x - r - gr.t0) / gr.step)",
        "a = ceil((x - gr.t0) / gr.step)",
        "kernel: a row's kernel window starts at its own score; grid points below the score "
        "get no kernel mass, calibration curves shifted.",
    ),
    m(
        "r10-perm-kish-swap",
        PERMI,
        "x, n = kish_counts(num / den, den, den2)",
        "x, n = kish_counts(num / den, den2, den)",
        "orientation: the weighted score interval passes sum w^2 as sum w and back; effective "
        "sizes inverted, weighted permutation-test intervals wrong for any non-unit weights.",
    ),
    m(
        "r10-perm-subcodes",
        PERMI,
        "            sub_codes = (codes == pair[1]).astype(np.intp)\n",
        "            sub_codes = (codes == pair[0]).astype(np.intp)\n",
        "orientation: with weights and only the two compared groups, the permuted rows code the "
        "group as 1 instead of the reference; the weighted null is reflected, one-sided "
        "(alternative='greater') p-values are those of 'less'.",
    ),
    m(
        "r10-metrics-conditional",
        METR,
        "return tuple(dict.fromkeys(self.den_masks))  # conditional",
        "return tuple(dict.fromkeys(self.num_masks))  # conditional",
        "allocation: the conditional permutation scheme permutes within the numerator cells "
        "instead of the denominators; for TPR (num = TP) the denominators are no longer fixed "
        "and the conditional p-values change.",
    ),
    m(
        "r10-swi-exact-first",
        SWI,
        'first = np.searchsorted(v, v - tie_tolerance(v), side="left")',
        'first = np.searchsorted(v, v - tie_tolerance(v), side="right")',
        "boundary: the tail of a support value excludes its ties; when several tables give the "
        "same statistic the exact sweep critical value is lower (too many rejections).",
    ),
    m(
        "r10-was-crit-one",
        WASI,
        "return pvalue, float(w[0] * special.chdtri(1, alpha))",
        "return pvalue, float(w[0] * special.chdtri(1, 1.0 - alpha))",
        "formula: the one-weight critical value takes the lower alpha quantile (chdtri is the "
        "survival inverse); equal-opportunity Wasserstein tests report a tiny critical value and "
        "reject nearly always.",
    ),
    m(
        "r10-was-integrand",
        WASI,
        "return math.exp(-s / (2.0 * (w0 * math.cos(phi) ** 2",
        "return math.exp(-s / ((w0 * math.cos(phi) ** 2",
        "formula: the two-weight chi-square tail misses the 2 of exp(-s/2w); Wasserstein "
        "p-values of the equalized-odds criterion too small.",
    ),
    m(
        "r10-cal-overall-mean",
        CALI,
        "v = float((at_t * rates.n).sum() / rates.n.sum())",
        "v = float(at_t.mean())",
        "formula: the overall rate at the thresholds is the unweighted mean of group rates; "
        "groups of 100 and 10 rows get thresholds matched to the wrong target.",
    ),
    m(
        "r10-cube-add-at",
        CUBE,
        "    np.add.at(total, key, counts)\n",
        "    total[key] += counts\n",
        "merge: summing cells with fancy-index += keeps one of the repeated keys instead of "
        "accumulating (numpy buffers the writes); a cube's marginal over one of two attributes "
        "(or the sum of two cubes sharing a cell) loses counts.",
    ),
    m(
        "r10-dask-chain-order",
        DASK,
        "return functools.reduce(PlacementSums.followed_by, present)",
        "return functools.reduce(PlacementSums.followed_by, present[::-1])",
        "merge: the score-sorted partitions' placement sums are chained from the highest scores "
        "down; with 2 or more partitions dask DeLong/AUC results are wrong (or refused).",
    ),
]
