"""Eighth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut8", 2026-11-27, against main df7e933).

The author read fastfair/ and csrc/ only (by grepping their comparisons and formulas), never
tests/, docs/testing.md, validation/, benchmarks/, the earlier mutation records or the
earlier sets' entries (only the module docstring and file constants of
scripts/mutants_round7.py and the Mutant dataclass of scripts/mutants.py, for the format).
The mutants are spread over p-values and multiplicity (_pvalues: mid-p ties, the
Monte-Carlo interval, the family size, BH, max-T), the score intervals (the MN cubic and
factor, shrunk rates, Kish size, Wilson, Clopper-Pearson), _exact (the convolution tail),
_unconditional (regions, runs, critical value, inversion), _sequential (options, Robbins'
mixture, thresholds, stopping), calibration (composite check, interpolation, bisection,
bandwidths), planning (power, finite-population correction, ceilings, bootstrap interval,
SE), the compiled kernels (_auc point/placements/shrinkage, _counts, _paired, _rows,
_runs, _wasserstein), the engines' merges (summaries, spark, cube), monitor, slices, the
clustered ingest, parity, AUC inference, the audit, sweep, resampling, tolerance,
wasserstein, _validation and the CLI.

Of the author's first 85 choices, 5 were dropped before any check as likely equivalent; of
the other 80, 25 repeated an earlier set's mutant exactly (same file, old and new text; the
session's collision check): 14 were replaced by other mistakes in other places, 11 dropped.
Two replacements judged possibly equivalent were swapped for others; one of those
collided, its two replacements collided once (replaced) and again (dropped): 28 collisions
in all, 69 mutants. By file: _pvalues 6, _score 8, _exact 1, _unconditional 4, _sequential
6, calibration 4, planning 7, csrc 9, engines 6, auditing 3, monitor 2, slices 1, parity 2,
auc 1, _clustered 1, _validation 2, sweep 1, resampling 1, tolerance 1, wasserstein 1,
CLI 2. Kinds: formula 24, boundary 18, allocation 10, validation 8, kernel 4, merge 3,
orientation 2 (counted from each ``why``).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge,
validation, output. Each ``why`` says the kind, the mistake and what a user sees, on what
input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
SCORE = "fastfair/_score.py"
EXACT = "fastfair/_exact.py"
UNC = "fastfair/_unconditional.py"
SEQ = "fastfair/_sequential.py"
CALA = "fastfair/calibration/api.py"
CALI = "fastfair/calibration/inference.py"
CALS = "fastfair/calibration/statistics.py"
PLANA = "fastfair/planning/api.py"
PLAN = "fastfair/planning/inference.py"
COUNTS = "csrc/_counts.pyx"
AUCK = "csrc/_auc.pyx"
SUMS = "fastfair/engines/summaries.py"
MONI = "fastfair/monitor/inference.py"
SLI = "fastfair/slices/inference.py"
CLU = "fastfair/_clustered.py"
AUD = "fastfair/auditing/api.py"
VAL = "fastfair/_validation.py"
SWS = "fastfair/sweep/statistics.py"
RES = "fastfair/resampling/inference.py"
TOL = "fastfair/tolerance/statistics.py"
WAS = "fastfair/wasserstein/inference.py"
PAIRK = "csrc/_paired.pyx"
ROWSK = "csrc/_rows.pyx"
RUNSK = "csrc/_runs.pyx"
WASK = "csrc/_wasserstein.pyx"
SPARK = "fastfair/engines/spark.py"
CUBE = "fastfair/engines/cube.py"
AUCI = "fastfair/auc/inference.py"
PAR = "fastfair/parity/inference.py"
CLIA = "fastfair/cli/arguments.py"


def _m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, why=why, tests=())


MUTANTS = [
    _m(
        "r8-pv-mid-ties-abs",
        PV,
        "ties = probabilities[np.abs(vals_o - obs_o) <= tol].sum()",
        "ties = probabilities[(vals_o - obs_o) <= tol].sum()",
        "formula: mid-p tie mass counts every value below the observed; mid-p p-values wrong"
        " (negative possible) on any discrete null",
    ),
    _m(
        "r8-pv-ci-level-half",
        PV,
        "z = special.ndtri(0.5 + confidence_level / 2.0)",
        "z = special.ndtri(confidence_level)",
        "formula: interval for the Monte-Carlo p-value uses one-sided z; 95% interval is 90% wide",
    ),
    _m(
        "r8-pv-m1-none",
        PV,
        'if method == "none" or m <= 1:',
        'if method == "none" or m <= 2:',
        "boundary: a family of two comparisons is not adjusted; holm/bonferroni p-values for two"
        " groups equal the raw ones",
    ),
    _m(
        "r8-pv-bh-rank",
        PV,
        "stepped = np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))[::-1])[::-1]",
        "stepped = np.minimum.accumulate((p[order] * m / np.arange(m, 0, -1))[::-1])[::-1]",
        "formula: BH multiplier uses reversed ranks (Holm-like m-i+1 order); BH-adjusted"
        " p-values wrong for any family of >= 2 distinct p-values",
    ),
    _m(
        "r8-pv-maxt-min-two",
        PV,
        "if len(pvalues) < 2:",
        "if len(pvalues) < 3:",
        "boundary: max-T adjustment skipped for exactly two comparisons; adjusted p-values equal"
        " raw ones",
    ),
    _m(
        "r8-pv-maxt-strict",
        PV,
        "count = np.sum(maxima[:, None] >= np.atleast_1d(thresholds)[None, :], axis=0)",
        "count = np.sum(maxima[:, None] > np.atleast_1d(thresholds)[None, :], axis=0)",
        "boundary: max-T exceedance strict; ties between permuted maxima and the observed"
        " statistic (discrete data) no longer counted, adjusted p too small",
    ),
    _m(
        "r8-score-cubic-c",
        SCORE,
        "c = d * d + d * (2.0 * p1 + theta + 1.0) + p1 + theta * p2",
        "c = d * d - d * (2.0 * p1 + theta + 1.0) + p1 + theta * p2",
        "formula: sign of the cubic's linear term; restricted MLE wrong for any d != 0,"
        " Miettinen-Nurminen interval ends move",
    ),
    _m(
        "r8-score-shrunk-half",
        SCORE,
        "r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)",
        "r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n1 + 1.0)",
        "allocation: shrunk rate of group 2 divides by n1; Wald fallback variance wrong when"
        " both rates are 0 or 1 and n1 != n2",
    ),
    _m(
        "r8-score-mn-factor",
        SCORE,
        "var = var * total / np.maximum(total - 1.0, 1e-300)",
        "var = var * total / np.maximum(total + 1.0, 1e-300)",
        "formula: Miettinen-Nurminen factor N/(N+1) instead of N/(N-1) (vector path, many"
        " comparisons); intervals slightly narrow",
    ),
    _m(
        "r8-score-zero-num",
        SCORE,
        "return np.where(np.abs(num) <= 1e-14, 0.0, z)",
        "return np.where(np.abs(num) <= 1e-4, 0.0, z)",
        "boundary: differences up to 1e-4 treated as zero in the vector path; Z of a tiny but"
        " real difference on huge n is 0",
    ),
    _m(
        "r8-score-scalar-mn",
        SCORE,
        "var *= (n1 + n2) / max(n1 + n2 - 1.0, 1e-300)",
        "var *= (n1 + n2) / max(n1 + n2 - 2.0, 1e-300)",
        "formula: scalar path MN factor N/(N-2); one-comparison score intervals too wide, differ"
        " from the vector path",
    ),
    _m(
        "r8-score-kish",
        SCORE,
        "n = np.asarray(sum_w, dtype=np.float64) ** 2 / np.asarray(sum_w2, dtype=np.float64)",
        "n = np.asarray(sum_w, dtype=np.float64) / np.asarray(sum_w2, dtype=np.float64)",
        "formula: Kish effective size without squaring sum_w; weighted intervals wrong for any"
        " weights (n_eff = 1 for unit weights)",
    ),
    _m(
        "r8-score-wilson-half",
        SCORE,
        "half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)",
        "half = z * np.sqrt(p * (1 - p) / n + z * z / (2 * n * n)) / (1 + z * z / n)",
        "formula: Wilson half-width uses z^2/(2n^2); every Wilson interval slightly too wide,"
        " visible at small n",
    ),
    _m(
        "r8-score-cp-upper-tail",
        SCORE,
        "x < n, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - tail), 1.0",
        "x < n, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - 2 * tail), 1.0",
        "formula: Clopper-Pearson upper end at 1 - alpha instead of 1 - alpha/2; upper limits"
        " too low for small counts",
    ),
    _m(
        "r8-exact-searchsorted",
        EXACT,
        'lo = np.searchsorted(v2s, observed - v1 - tol, side="left")',
        'lo = np.searchsorted(v2s, observed - v1 + tol, side="right")',
        "boundary: convolution tail excludes ties with the observed sum; exact p-values of sums"
        " too small",
    ),
    _m(
        "r8-unc-less-region",
        UNC,
        'return self.z >= threshold if side == "greater" else self.z <= threshold',
        'return self.z >= threshold if side == "greater" else self.z < threshold',
        "boundary: 'less' rejection region of the full table excludes outcomes tying z_obs;"
        " less-sided exact p-values too small",
    ),
    _m(
        "r8-unc-runs-greater",
        UNC,
        "(self.statistic(x1, x2) >= threshold)",
        "(self.statistic(x1, x2) > threshold)",
        "boundary: run search for 'greater' excludes ties; large-table exact p-values (bisection"
        " path) smaller than the full-table path",
    ),
    _m(
        "r8-unc-crit-le",
        UNC,
        "if self.pvalue(float(values[mid]), side) <= alpha:",
        "if self.pvalue(float(values[mid]), side) < alpha:",
        "boundary: critical value excludes a statistic whose p-value equals alpha exactly; a"
        " test at level equal to an attainable p does not reject",
    ),
    _m(
        "r8-unc-invert",
        UNC,
        "rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, n_jobs) <= alpha",
        "rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, n_jobs) <= alpha / 2",
        "formula: interval inversion at alpha/2; the one-sided exact limits are those of a 1 -"
        " alpha/2 bound, interval too wide",
    ),
    _m(
        "r8-seq-options-range",
        SEQ,
        "if not 0 < value < 1:",
        "if not 0 < value <= 1:",
        "validation: alpha=1 or epsilon=1 accepted by Sequential options instead of ValueError",
    ),
    _m(
        "r8-seq-mixture-log",
        SEQ,
        "math.log(n + 1.0) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0) - math.lgamma(n - s +"
        " 1.0)",
        "math.log(n + 2.0) + math.lgamma(n + 1.0) - math.lgamma(s + 1.0) - math.lgamma(n - s +"
        " 1.0)",
        "formula: Robbins' mixture uses (n+2); confidence sequences narrower than guaranteed,"
        " decisions stop earlier (p-value counts change)",
    ),
    _m(
        "r8-seq-thresholds",
        SEQ,
        "return alpha / m, alpha / m",
        "return alpha, alpha / m",
        "formula: Bonferroni upper threshold alpha instead of alpha/m; sequential Bonferroni"
        " stops too late/decides wrongly between alpha/m and alpha",
    ),
    _m(
        "r8-seq-hopeful",
        SEQ,
        "return k > t_lo * m and _log_mixture1(m, k, t_lo) <= level",
        "return k >= t_lo * m and _log_mixture1(m, k, t_lo) <= level",
        "boundary: retention decided when the count equals t_lo * m exactly; early 'retain' on"
        " an exact-boundary count",
    ),
    _m(
        "r8-seq-pvalue-range",
        SEQ,
        "if not 0.0 <= res <= 1.0:  # NaN too",
        "if not 0.0 < res <= 1.0:  # NaN too",
        "validation: a user p-value callback returning exactly 0.0 is refused with ValueError",
    ),
    _m(
        "r8-seq-single-none",
        SEQ,
        'return run(samplers, options, procedure if len(samplers) > 1 else "none")',
        'return run(samplers, options, procedure if len(samplers) > 2 else "none")',
        "boundary: two hypotheses run with no adjustment; sequential holm on two p-values"
        " decides at alpha each",
    ),
    _m(
        "r8-cal-composite",
        CALA,
        "return CompositeParityCheck(W, p, results, float(alpha), bool(np.all(p >= alpha /"
        " len(p))))",
        "return CompositeParityCheck(W, p, results, float(alpha), bool(np.all(p > alpha /"
        " len(p))))",
        "boundary: composite parity fails when a p-value equals alpha/k exactly (e.g. p=0.025"
        " with two checks at 0.05)",
    ),
    _m(
        "r8-cal-interp",
        CALI,
        "return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1])",
        "return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1]) / 2",
        "formula: inverse interpolation halves the step; inverted calibration values biased"
        " toward the lower grid point",
    ),
    _m(
        "r8-cal-bisect-pick",
        CALI,
        "return b if abs(overall(b) - target) <= abs(overall(a) - target) else a",
        "return a if abs(overall(b) - target) <= abs(overall(a) - target) else b",
        "orientation: bisection returns the farther end; threshold matching a target rate off by"
        " one step",
    ),
    _m(
        "r8-cal-iqr",
        CALS,
        "q1, q3 = np.quantile(Sg, [0.25, 0.75], axis=0)",
        "q1, q3 = np.quantile(Sg, [0.25, 0.75], axis=1)",
        "allocation: IQR taken over the wrong axis; kernel bandwidths wrong (or shape error) for"
        " multi-score calibration",
    ),
    _m(
        "r8-plan-fpc",
        PLAN,
        "fpc = sigma2[..., ref : ref + 1] / population[ref] + sigma2[..., oth] / population[oth]",
        "fpc = sigma2[..., ref : ref + 1] / population[oth] + sigma2[..., oth] / population[ref]",
        "allocation: finite-population correction uses the other group's population; plans with"
        " unequal population_sizes wrong",
    ),
    _m(
        "r8-plan-ceil",
        PLAN,
        "return np.ceil(x * (1.0 - 1e-12)).astype(np.int64)",
        "return np.floor(x * (1.0 - 1e-12)).astype(np.int64) + 1",
        "boundary: integer sizes that are exact get one more row (ceil of an integer n becomes"
        " n+1)",
    ),
    _m(
        "r8-plan-equiv-power",
        PLAN,
        "pw = special.ndtr((delta - a) / se - z) + special.ndtr((delta + a) / se - z) - 1.0",
        "pw = special.ndtr((delta - a) / se - z) + special.ndtr((delta - a) / se - z) - 1.0",
        "formula: equivalence power uses delta - tau twice; power understated for tau != 0",
    ),
    _m(
        "r8-plan-sign",
        PLAN,
        "sign = np.where(r[ref] >= r[oth], 1.0, -1.0)",
        "sign = np.where(r[ref] > r[oth], 1.0, -1.0)",
        "orientation: equal rates get sign -1; score-based plans at tau=0 shift the null rates"
        " the wrong way",
    ),
    _m(
        "r8-plan-auc-den",
        PLAN,
        "v = np.where(den > 0, m * (1 - m) / np.maximum(den, 1), np.inf)",
        "v = np.where(den > 0, m * (1 - m) / np.maximum(den, 1), 0.0)",
        "validation: empty denominators give variance 0 instead of inf; pilot-based plan for a"
        " group with no positives returns a tiny n instead of refusing/inf",
    ),
    _m(
        "r8-plana-interval",
        PLANA,
        "q = [(1 - conf) / 2 * 100, (1 + conf) / 2 * 100]",
        "q = [(1 - conf) * 100, conf * 100]",
        "formula: bootstrap percentile interval of the plan is one-sided-shifted;"
        " n_per_group_interval ends wrong",
    ),
    _m(
        "r8-plana-se",
        PLANA,
        "standard_error=float(np.sqrt(pw * (1 - pw) / sim.n_sim)),",
        "standard_error=float(np.sqrt(pw * (1 - pw) / (sim.n_sim - 1))),",
        "formula: simulated power's Monte-Carlo SE divides by n_sim - 1; standard_error field"
        " slightly larger",
    ),
    _m(
        "r8-auc-point",
        AUCK,
        "auc[0] = (s[2 * g + 1] / mpos + mneg) / (2.0 * mneg)",
        "auc[0] = (s[2 * g + 1] / mpos + mneg) / (2.0 * mpos)",
        "allocation: AUC normalised by positives instead of negatives; AUC wrong whenever group"
        " has unequal class sizes",
    ),
    _m(
        "r8-auc-shrunk-b",
        AUCK,
        "sb = (auc_b * pb + 0.5) / (pb + 1.0)",
        "sb = (auc_b * pa + 0.5) / (pa + 1.0)",
        "allocation: shrunk AUC of group b uses group a's pair count; zero-variance fallback"
        " test statistic wrong for separated groups of unequal size",
    ),
    _m(
        "r8-auc-tie-half",
        AUCK,
        "place[r] = (xd + tot[2 * g + 1 - lab]) / (2.0 * tot[2 * g + 1 - lab])",
        "place[r] = (xd + tot[2 * g + lab]) / (2.0 * tot[2 * g + 1 - lab])",
        "allocation: placement offset uses own class count; placement values (returned"
        " placements) wrong",
    ),
    _m(
        "r8-counts-neg-perm",
        COUNTS,
        "if problem is None and n_permutations < 0:",
        "if problem is None and n_permutations < 1:",
        "validation: n_permutations=0 (observed statistic only) refused by the counts kernel",
    ),
    _m(
        "r8-sum-auc-ties",
        SUMS,
        "v10 = (below + neg / 2.0) / n0[:, None]",
        "v10 = (below + neg) / n0[:, None]",
        "formula: binned summaries count tied negatives fully instead of half; AUC from"
        " summaries too high whenever scores tie across classes",
    ),
    _m(
        "r8-sum-s01",
        SUMS,
        "s01 = np.divide(ss01, n0 - 1, out=np.zeros_like(ss01), where=n0 > 1)",
        "s01 = np.divide(ss01, n0, out=np.zeros_like(ss01), where=n0 > 1)",
        "formula: DeLong S01 from summaries divides by n0 instead of n0 - 1; AUC variance from"
        " summaries smaller than from rows",
    ),
    _m(
        "r8-sum-overlap",
        SUMS,
        "if not self.high < other.low:",
        "if not self.high <= other.low:",
        "merge: summaries whose ranges touch at one edge are accepted as disjoint; merging"
        " adjacent bin ranges sharing an edge value gives wrong counts",
    ),
    _m(
        "r8-mon-lines",
        MONI,
        "out[..., :-1] += np.where(gap > lines, line_log, 0.0)",
        "out[..., :-1] += np.where(gap >= lines, line_log, 0.0)",
        "boundary: the monitor bets on a line the plug-in gap sits exactly on; e-values change"
        " when the gap equals a grid line (e.g. equal rates, gap 0)",
    ),
    _m(
        "r8-mon-reject",
        MONI,
        "rejected |= log_e >= log_threshold",
        "rejected |= log_e > log_threshold",
        "boundary: anytime-valid monitor does not reject when the e-value equals 1/alpha exactly",
    ),
    _m(
        "r8-sli-rank",
        SLI,
        "rank = int(np.ceil((1.0 - alpha) * (maxima.size + 1))) - 1",
        "rank = int(np.ceil((1.0 - alpha) * maxima.size)) - 1",
        "boundary: max-statistic critical rank without the +1; slice critical value one order"
        " statistic lower, more slices flagged",
    ),
    _m(
        "r8-clu-below",
        CLU,
        "n_below = np.bincount(gcodes[s <= threshold], minlength=len(labels))  # NaN: never",
        "n_below = np.bincount(gcodes[s < threshold], minlength=len(labels))  # NaN: never",
        "boundary: rows scored exactly at the threshold counted above in the clustered ingest;"
        " below-threshold counts wrong for integer scores",
    ),
    _m(
        "r8-aud-shrink",
        AUD,
        "return np.where(edge, (num + 0.5) / (den + 1.0), rate)",
        "return np.where(edge, (num + 0.5) / (den + 0.5), rate)",
        "formula: audit edge-rate shrinkage (x+1/2)/(n+1/2); a group with all positives gets"
        " rate 1, effect-size rows for 0/n or n/n groups change",
    ),
    _m(
        "r8-aud-min-size",
        AUD,
        "attr = Attribute(name, columns, codes, labels, sizes, sizes >= min_group_size)",
        "attr = Attribute(name, columns, codes, labels, sizes, sizes > min_group_size)",
        "boundary: a group with exactly min_group_size rows is not tested by the audit",
    ),
    _m(
        "r8-val-prob-range",
        VAL,
        "outside = (arr < 0) | (arr > 1)",
        "outside = (arr <= 0) | (arr > 1)",
        "validation: a probability score of exactly 0 is refused with ValueError",
    ),
    _m(
        "r8-val-remap",
        VAL,
        "remap = np.cumsum(used) - 1",
        "remap = np.cumsum(used)",
        "allocation: group codes remapped off by one after dropping unused labels; labels shift"
        " / index error whenever a categorical has an unused level",
    ),
    _m(
        "r8-sweep-pooled-se",
        SWS,
        "se = np.sqrt(pooled * (1 - pooled) * (1 / den[:, 0, 0] + 1 / den[:, 1, 0]))",
        "se = np.sqrt(pooled * (1 - pooled) * (1 / den[:, 0, 0] + 1 / den[:, 0, 0]))",
        "allocation: pooled SE uses group A's denominator twice; sweep z-scores wrong for"
        " unequal group sizes",
    ),
    _m(
        "r8-res-bootvar",
        RES,
        'var = np.mean((boot - t_obs) ** 2) if mode == "bootstrap" else np.var(boot, ddof=1)',
        'var = np.mean((boot - t_obs) ** 2) if mode == "bootstrap" else np.var(boot)',
        "formula: permutation variance with ddof=0; the reported null variance/standardised"
        " statistic of resampling tests changes",
    ),
    _m(
        "r8-tol-nstar",
        TOL,
        "n_star = 0.5 * (n_pos + n_neg) - 1.0\n    r0, r1",
        "n_star = 0.5 * (n_pos + n_neg)\n    r0, r1",
        "formula: Newcombe's N* without the -1 in the AUC interval quartic; tolerance AUC"
        " interval ends move",
    ),
    _m(
        "r8-was-spread",
        WAS,
        "common = sum(hc.sum() for hc in h) / sum(len(hc) for hc in h)  # mean of h given y",
        "common = sum(hc.mean() for hc in h) / len(h)  # mean of h given y",
        "formula: common mean as unweighted mean of cell means; Wasserstein spread/theta wrong"
        " for unequal cell sizes",
    ),
    _m(
        "r8-paired-cell",
        PAIRK,
        "part[k, codes[i] * 8 + 4 * y[i] + 2 * a[i] + b[i]] += 1",
        "part[k, codes[i] * 8 + 4 * y[i] + 2 * b[i] + a[i]] += 1",
        "kernel: paired cell index swaps the two models' bits; paired compare counts (A right/B"
        " wrong vs the reverse) swapped, sign of the paired gap flips",
    ),
    _m(
        "r8-paired-neg-perm",
        PAIRK,
        "if n_permutations < 0:",
        "if n_permutations <= 0:",
        "validation: the paired kernel refuses n_permutations=0 (exact/observed-only runs) with"
        " ValueError",
    ),
    _m(
        "r8-rows-fixed-sq",
        ROWSK,
        "np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside] ** 2)",
        "np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside])",
        "kernel: rows outside every stratum add their weight, not its square, to the fixed sum"
        " of squares; weighted stratified permutation variances wrong with unstratified rows",
    ),
    _m(
        "r8-runs-place",
        RUNSK,
        "place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) + ep",
        "place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) - ep",
        "kernel: tied positives counted as -1/2 instead of +1/2 in negatives' placements; AUC"
        " variance wrong whenever scores tie across classes",
    ),
    _m(
        "r8-wass-bracket",
        WASK,
        "        if g > 0:\n            hi = z\n        elif g < 0:\n            lo = z",
        "        if g > 0:\n            lo = z\n        elif g < 0:\n            hi = z",
        "kernel: root bracket updated on the wrong side; the safeguarded Newton solver converges"
        " to a bracket end, Wasserstein projected scores wrong for any nonzero c",
    ),
    _m(
        "r8-spark-moments",
        SPARK,
        "return float(len(values)), mean, float(((values - mean) ** 2).sum())",
        "return float(len(values)), mean, float(((values - mean) ** 2).mean())",
        "merge: spark per-partition moments return the mean square not the sum; merged variances"
        " across partitions wrong",
    ),
    _m(
        "r8-spark-total-check",
        SPARK,
        "if not np.array_equal(counts.sum(axis=0), totals):",
        "if not np.array_equal(counts.sum(axis=1), totals):",
        "merge: spark's consistency check sums the wrong axis; valid data raises (or shape"
        " mismatch hides a wrong merge)",
    ),
    _m(
        "r8-cube-remap",
        CUBE,
        "new_keys[:, j] = (np.cumsum(used) - 1)[keys[:, j]]",
        "new_keys[:, j] = np.cumsum(used)[keys[:, j]]",
        "allocation: cube keys remapped off by one after dropping unused levels; cells land"
        " under the wrong group (or index error) when a level is unused",
    ),
    _m(
        "r8-auci-fallback",
        AUCI,
        "fallback = (shrunk * (1 - shrunk) / n_pairs)[a] + (shrunk * (1 - shrunk) / n_pairs)[b]",
        "fallback = (shrunk * (1 - shrunk) / n_pairs)[a] + (shrunk * (1 - shrunk) / n_pairs)[a]",
        "allocation: zero-variance fallback uses group a twice; AUC difference z for perfectly"
        " separated groups of unequal size wrong",
    ),
    _m(
        "r8-par-pooled-mean",
        PAR,
        "mean = (est * prec).sum(axis=0) / prec.sum(axis=0)",
        "mean = (est * prec).sum(axis=0) / prec.shape[0]",
        "formula: precision-weighted pooled mean divided by the number of groups instead of"
        " total precision; pooled parity estimate wrong",
    ),
    _m(
        "r8-par-degenerate",
        PAR,
        "shrunk = (est / scale * n_eff + 0.5) / (n_eff + 1.0)",
        "shrunk = (est / scale * n_eff + 0.5) / (n_eff + 0.5)",
        "formula: degenerate-group shrinkage denominator n+1/2; a constant group at the top of"
        " the scale gets f~ = 1 and variance 0 (z = inf)",
    ),
    _m(
        "r8-cli-max-rows",
        CLIA,
        "if args.max_rows is not None and args.max_rows < 0:  # (argparse: an int)",
        "if args.max_rows is not None and args.max_rows < 1:  # (argparse: an int)",
        "validation: --max-rows 0 refused by the CLI",
    ),
    _m(
        "r8-cli-dup-names",
        CLIA,
        "repeated = sorted({n for n in args.names if args.names.count(n) > 1})",
        "repeated = sorted({n for n in args.names if args.names.count(n) > 2})",
        "validation: a name given exactly twice is not reported as repeated; duplicate names"
        " accepted",
    ),
    _m(
        "r8-aud-auto-delong",
        AUD,
        'return options["n_permutations"] is None and smallest >='
        " fastfair.auc.ASYMPTOTIC_MIN_CLASS",
        'return options["n_permutations"] is None and smallest >'
        " fastfair.auc.ASYMPTOTIC_MIN_CLASS",
        "boundary: the audit's AUC rows use permutation instead of DeLong when the smallest"
        " class has exactly ASYMPTOTIC_MIN_CLASS rows; p-values of those AUC rows change",
    ),
]
