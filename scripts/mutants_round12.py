"""Twelfth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut12", 2026-11-28; the code read at d9c8e09, the worktree's base; every
mutant checked to apply on main 31bdc10, whose fastfair/ and csrc/ differ from d9c8e09's only
in _textfile, auditing/api, engines/files and tolerance/results).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges,
validations and result fields, and reading the functions around them); never tests/,
docs/testing.md, the other docs/ pages, validation/, benchmarks/, CHANGELOG.md, the earlier
mutation records or the earlier sets' entries (only the Mutant dataclass of
scripts/mutants.py and the module docstring and file constants of
scripts/mutants_round11.py, for the format; scripts/mutation.py only through --help).
README.md, docs/architecture.md, docs/conventions.md and the spec were not needed and not
opened. No test was run and nothing was built.

Process. Candidates that need an exact float tie (p <= alpha against p < alpha, a strict
comparison of a continuous statistic) or that seemed equivalent (the carry test of the
128-bit addition, which may compare the sum with either addend; the start of the Gaussian
kernel walk, which only moves where the recurrence begins; a flip of the slice kernel's
success/failure symmetry) were set aside while reading, before any check. 86 were written
in fourteen batches of 11, 9, 8, 4, 5, 5, 6, 14, 4, 5, 5, 5, 2 and 3 and each batch run
through the session's collision check (same file and the same old and new text as an
earlier set's mutant, or the same new text for the same line): 6, 5, 4, 2, 2, 1, 4, 5, 1,
2, 2, 2, 0 and 1 collided (37 of 86) and were dropped; the later batches are their
replacements, other places or other mistakes. 49 mutants, 0 collisions on the final check.

By file: _pvalues 1, _exact 1, _unconditional 1, _sequential 2, _format 2, _validation 1,
auc 1 (results), permutation 1 (inference), resampling 1 (inference), tolerance 3
(inference 2, statistics 1), planning 4 (statistics 2, ingest 2), calibration 1
(inference), parity 1 (inference), compare 1 (api), monitor 4 (api 2, ingest 2), slices 2
(inference), sweep 3 (inference 2, statistics 1), wasserstein 1 (ingest), auditing 4
(ingest 3, results 1), engines 6 (summaries 2, cube, clusters, files, spark 1 each), CLI 1
(arguments), csrc 7 in six compiled sources (ff_rates.h 2; _auc, _kernel_sums, _sweep,
_wasserstein, ff_sampling.h 1 each; each needs a rebuild). Kinds (from each ``why``):
formula 12, validation 12, output 9, kernel 6, merge 4, boundary 3, allocation 2,
orientation 1. Every candidate written for _score (score and hybrid intervals),
_clustered, the AUC inference, generic metrics, the dask engine and calibration
statistics collided with an earlier set and none is left there. Mutants that only
particular inputs reach: r12-k-rates-eo-abs (equalized odds), r12-k-ks-nearest-y (the
Gaussian kernel on a uniform grid), r12-par-chi2-df (three or more groups, infinite df),
r12-perm-seq-two-pairs (sequential stopping with exactly two comparisons),
r12-spark-placement-pos-left and r12-k-auc-place-own-class (ties, resp. unequal classes),
r12-clus-range-hi-min (integer cluster ids beyond int32 in a later chunk),
r12-sums-runs-totals-assign (runs sharing a label prefix).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the
tests, the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel,
merge, validation, output. Each ``why`` says the kind, the mistake and what a user sees, on
what input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
EXACT = "fastfair/_exact.py"
SEQ = "fastfair/_sequential.py"
UNC = "fastfair/_unconditional.py"
RESI = "fastfair/resampling/inference.py"
TOLS = "fastfair/tolerance/statistics.py"
PLANS = "fastfair/planning/statistics.py"
CALI = "fastfair/calibration/inference.py"
SLII = "fastfair/slices/inference.py"
SWS = "fastfair/sweep/statistics.py"
SWEEPK = "csrc/_sweep.pyx"
SAMPK = "csrc/ff_sampling.h"
RATESK = "csrc/ff_rates.h"
WASK = "csrc/_wasserstein.pyx"
AUCK = "csrc/_auc.pyx"
KSUMK = "csrc/_kernel_sums.pyx"
SUMS = "fastfair/engines/summaries.py"
CUBE = "fastfair/engines/cube.py"
CLUS = "fastfair/engines/clusters.py"
AUDI = "fastfair/auditing/ingest.py"
VAL = "fastfair/_validation.py"
PARI = "fastfair/parity/inference.py"
TOLI = "fastfair/tolerance/inference.py"
MONIN = "fastfair/monitor/ingest.py"
WASIN = "fastfair/wasserstein/ingest.py"
CLIA = "fastfair/cli/arguments.py"
FMT = "fastfair/_format.py"
PLANIN = "fastfair/planning/ingest.py"
SWI = "fastfair/sweep/inference.py"
SPARK = "fastfair/engines/spark.py"
AUDR = "fastfair/auditing/results.py"
MONA = "fastfair/monitor/api.py"
FILES = "fastfair/engines/files.py"
PERMI = "fastfair/permutation/inference.py"
AUCR = "fastfair/auc/results.py"
CMPA = "fastfair/compare/api.py"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r12-pv-holm-shift",
        PV,
        "stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])",
        "stepped = np.maximum.accumulate((m - np.arange(1, m + 1)) * p[order])",
        "formula: Holm's multipliers are m-1..0 instead of m..1; adjust='holm' over three "
        "comparisons gives adjusted p-values too small (the largest becomes 0 before the max)",
    ),
    m(
        "r12-seq-bh-last",
        SEQ,
        "            out[order[: ok[-1] + 1]] = True",
        "            out[order[: ok[-1]]] = True",
        "boundary: the sequential Benjamini-Hochberg step-up leaves out the largest rejected "
        "hypothesis; with one p below alpha/m, nothing is rejected",
    ),
    m(
        "r12-seq-p-denominator",
        SEQ,
        "        return (self.count + 1.0) / (self.n + 1.0)",
        "        return (self.count + 1.0) / self.n",
        "formula: the sequential Monte-Carlo p-value divides by n instead of n + 1; every "
        "sequential permutation p-value is slightly too large",
    ),
    m(
        "r12-exact-conv-side",
        EXACT,
        '    lo = np.searchsorted(v2s, observed - v1 - tol, side="left")',
        '    lo = np.searchsorted(v2s, observed - v1 + tol, side="left")',
        "orientation: the convolved exact tail starts above the tolerance band, so tied "
        "outcomes (common on small discrete tables) are left out; the exact p-value of a "
        "two-part metric is too small",
    ),
    m(
        "r12-unc-small-max",
        UNC,
        "    return (n1 + n2 <= MAX_SIZE) | (np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        "    return (n1 + n2 <= MAX_SIZE) | (np.maximum(n1, n2) <= SMALL_GROUP_MAX)",
        "validation: the exact unconditional test accepts a huge group only when both are "
        "small; a 10-row group against a very large reference is refused",
    ),
    m(
        "r12-res-welch-df-nb",
        RESI,
        "ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + ub > 0 else 1.0",
        "ua**2 / (na - 1) + ub**2 / nb) if ua + ub > 0 else 1.0",
        "formula: the Welch-Satterthwaite df divides the second group's term by nb instead of "
        "nb - 1; exact subset Welch p-values on small groups are wrong",
    ),
    m(
        "r12-tol-newcombe-bracket",
        TOLS,
        "    bracket = 2.0 * n_star - 1.0 - 3.0 * (n_star - 1.0) / q",
        "    bracket = 2.0 * n_star - 1.0 - 3.0 * (n_star + 1.0) / q",
        "formula: Newcombe's variance bracket uses N* + 1 instead of N* - 1; every "
        "Newcombe AUC interval of a tolerance check is slightly wider",
    ),
    m(
        "r12-plan-cells-pos",
        PLANS,
        "(1 - prev) * (1 - tnr), prev * (1 - tpr), prev * tpr], -1",
        "(1 - prev) * (1 - tnr), prev * tpr, prev * (1 - tpr)], -1",
        "allocation: the positives' false-negative and true-positive cells are swapped in the "
        "planning simulation; the planned power of a TPR gap is computed at 1 - TPR",
    ),
    m(
        "r12-plan-auc-shift",
        PLANS,
        "    shift = np.sqrt(2.0) * special.ndtri(sim.values)",
        "    shift = special.ndtri(sim.values) / np.sqrt(2.0)",
        "formula: the binormal shift for a target AUC divides by sqrt(2) instead of "
        "multiplying; planning an AUC study simulates AUCs closer to 0.5 and over-states "
        "the sample size",
    ),
    m(
        "r12-cal-rms-unweighted",
        CALI,
        "    return float(np.sqrt(np.sum(w * (s - f) ** 2) / w.sum()))",
        "    return float(np.sqrt(np.mean(w * (s - f) ** 2)))",
        "formula: the weighted root-mean-square error divides by the row count instead of the "
        "weight total; with sample weights not averaging 1 the error is scaled",
    ),
    m(
        "r12-sli-by-selected",
        SLII,
        "    selected = max(int(np.sum(adjusted <= alpha)), 1)",
        "    selected = max(int(np.sum(adjusted < alpha)), 0) + 1",
        "formula: the Benjamini-Yekutieli critical value counts one more selected slice than "
        "were selected; with any selected slice the reported critical value is too lenient",
    ),
    m(
        "r12-sli-agresti-caffo-se",
        SLII,
        "    se = np.sqrt(p1 * (1.0 - p1) / (n + 2.0) + p2 * (1.0 - p2) / (n_other + 2.0))",
        "    se = np.sqrt(p1 * (1.0 - p1) / n + p2 * (1.0 - p2) / n_other)",
        "formula: the Agresti-Caffo standard error divides by n instead of n + 2; every "
        "slice's difference interval is slightly too wide",
    ),
    m(
        "r12-sweep-se-pooled-n",
        SWS,
        "    se = np.sqrt(pooled * (1 - pooled) * (1 / den[:, 0, 0] + 1 / den[:, 1, 0]))",
        "    se = np.sqrt(pooled * (1 - pooled) / (den[:, 0, 0] + den[:, 1, 0]))",
        "formula: the sweep's pooled standard error uses 1/(nA + nB) instead of 1/nA + 1/nB; "
        "every threshold's z statistic is too large",
    ),
    m(
        "r12-k-sweep-thr-dupes",
        SWEEPK,
        "(n_thr > 1 and not (np.diff(np.asarray(thresholds)) > 0).all()):",
        "(n_thr > 1 and not (np.diff(np.asarray(thresholds)) >= 0).all()):",
        "validation: the sweep kernel accepts repeated thresholds; a sweep given a threshold "
        "twice no longer raises 'strictly ascending' and counts an empty bin",
    ),
    m(
        "r12-k-shuffle-sattolo",
        SAMPK,
        "            uint32_t j = ff_fast_bounded_u32(s, (uint32_t)(i + 1));               \\",
        "            uint32_t j = ff_fast_bounded_u32(s, (uint32_t)i);                     \\",
        "kernel: the Fisher-Yates shuffle draws j in [0, i) instead of [0, i] (Sattolo's "
        "algorithm): only cyclic permutations are drawn, never the identity, so a "
        "permutation test on two rows of different groups always swaps them and the "
        "Monte-Carlo null of small groups is biased",
    ),
    m(
        "r12-sums-score-merge-assign",
        SUMS,
        "        counts[np.ix_(ib, [0, 1], vb)] += other.counts",
        "        counts[np.ix_(ib, [0, 1], vb)] = other.counts",
        "merge: adding two score summaries overwrites the first one's counts where both have "
        "the same group and score value; the AUC of two merged chunks of one group is wrong",
    ),
    m(
        "r12-sums-runs-totals-assign",
        SUMS,
        "                totals[: len(r.labels)] += r.totals",
        "                totals[: len(r.labels)] = r.totals",
        "merge: the totals of runs sharing a label prefix keep the last run's counts instead "
        "of their sum; group sizes from two chunks are those of the last chunk",
    ),
    m(
        "r12-clus-range-hi-min",
        CLUS,
        "            self.hi = hi if self.hi is None else max(hi, self.hi)",
        "            self.hi = hi if self.hi is None else min(hi, self.hi)",
        "merge: the running maximum of integer cluster ids takes the minimum; a later chunk "
        "with ids beyond int32 is still treated as small and its ids are cast wrongly",
    ),
    m(
        "r12-val-align-no-reindex",
        VAL,
        "        out[name] = columns[name].reindex(ref)",
        "        out[name] = columns[name]",
        "validation: pandas inputs whose indexes hold the same labels in another order are "
        "accepted but paired by position instead of aligned; a shuffled y_pred Series gives "
        "wrong rates",
    ),
    m(
        "r12-audi-alpha-one",
        AUDI,
        "        if not (isinstance(value, int | float) and 0 < value < 1):",
        "        if not (isinstance(value, int | float) and 0 < value <= 1):",
        "validation: audit accepts alpha=1 (or tau=1, power=1) instead of raising "
        "'must be in (0, 1)'",
    ),
    m(
        "r12-audi-slices-19",
        AUDI,
        "        if slices is not None and n_permutations < 19:",
        "        if slices is not None and n_permutations <= 19:",
        "validation: the slice search refuses n_permutations=19, the documented minimum",
    ),
    m(
        "r12-audi-tolerance-zero",
        AUDI,
        "isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1",
        "isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1",
        "validation: audit accepts tolerance=0 (or equivalence=0), a gap that no test can "
        "establish, instead of raising 'must be in (0, 1)'",
    ),
    m(
        "r12-par-chi2-df",
        PARI,
        "    p = special.chdtrc(K - 1, sq)  # = scipy.stats.chi2.sf(sq, K - 1), as below",
        "    p = special.chdtrc(K, sq)  # = scipy.stats.chi2.sf(sq, K - 1), as below",
        "formula: the omnibus chi-square of K >= 3 groups uses K degrees of freedom instead of "
        "K - 1 (infinite-df path); the omnibus p-value of three groups is too large",
    ),
    m(
        "r12-tol-stat-side",
        TOLI,
        "    stat = np.where(p_up <= p_low, z_up, z_low)",
        "    stat = np.where(p_up >= p_low, z_up, z_low)",
        "output: a two-sided tolerance test reports the statistic of the side with the larger "
        "one-sided p-value; a clearly positive gap shows the (negative-side) statistic that "
        "does not match its p-value",
    ),
    m(
        "r12-tol-equiv-level",
        TOLI,
        "    fields, interval, one = _shared_fields(gap, p, adjust, 1 - alpha)",
        "    fields, interval, one = _shared_fields(gap, p, adjust, 1 - alpha / 2)",
        "formula: the equivalence test's interval is built at 1 - alpha instead of 1 - 2 alpha "
        "(quantile 1 - alpha/2 instead of 1 - alpha); the reported interval is wider than "
        "the TOST decision it goes with",
    ),
    m(
        "r12-mon-max-groups-one",
        MONIN,
        "    elif max_groups < 2 or (groups is not None and max_groups < len(groups)):",
        "    elif max_groups < 1 or (groups is not None and max_groups < len(groups)):",
        "validation: the monitor accepts max_groups=1 (no comparison possible) instead of "
        "raising 'must be >= 2'",
    ),
    m(
        "r12-mon-score-threshold-strict",
        MONIN,
        '(as_finite_float(cols["y_score"], "y_score") >= threshold).view(np.uint8)',
        '(as_finite_float(cols["y_score"], "y_score") > threshold).view(np.uint8)',
        "boundary: the monitor predicts positive only above the threshold, not at it; "
        "scores rounded to 0.5 with threshold 0.5 are all read as negatives",
    ),
    m(
        "r12-cli-reference-names",
        CLIA,
        "for k in range(1, len(groups) + 1) for c in _combinations(groups, k)}",
        "for k in range(1, len(groups)) for c in _combinations(groups, k)}",
        "output: --reference 'a & b=x & y' naming the full intersection of the given groups is "
        "not recognised as an attribute; with one --group the column=label form fails",
    ),
    m(
        "r12-fmt-floor-b",
        FMT,
        "        floor = 1.0 / (n_permutations + 1.0)",
        "        floor = 1.0 / n_permutations",
        "output: a Monte-Carlo p-value at its floor 1/(B + 1) is printed as '< 1/B'; with "
        "B = 999 the table shows '< 0.001' for p = 0.001",
    ),
    m(
        "r12-fmt-mde-digits",
        FMT,
        "    exponent = math.floor(math.log10(x)) - 1",
        "    exponent = math.floor(math.log10(x)) - 2",
        "output: the rounded-up detectable effect keeps three significant digits instead of "
        "two; 0.0412 prints as 0.0412 instead of 0.042",
    ),
    m(
        "r12-plan-rates-one",
        PLANIN,
        "    bad = np.flatnonzero(~((rates > 0) & (rates < 1)))",
        "    bad = np.flatnonzero(~((rates > 0) & (rates <= 1)))",
        "validation: planning accepts a group rate of exactly 1 (zero variance) instead of "
        "raising",
    ),
    m(
        "r12-plan-strict-target",
        PLANIN,
        "    if strict and np.any(t <= u_tol):",
        "    if strict and np.any(t < u_tol):",
        "validation: planning a tolerance test accepts a true gap equal to u_tol (no power "
        "possible) instead of raising",
    ),
    m(
        "r12-wasin-alpha-one",
        WASIN,
        "    if not 0.0 < alpha < 1.0:",
        "    if not 0.0 < alpha <= 1.0:",
        "validation: the Wasserstein test accepts alpha=1 instead of raising",
    ),
    m(
        "r12-k-rates-pooled-unweighted",
        RATESK,
        "        double p = (num_a + num_b) / (den_a + den_b);",
        "        double p = (m_a + m_b) / 2.0;",
        "kernel: the pooled rate of the studentized permutation statistic is the unweighted "
        "mean of the two rates instead of the pooled count ratio; a pooled permutation test "
        "of groups of 50 and 500 rows gives a different statistic and p-value",
    ),
    m(
        "r12-k-rates-eo-abs",
        RATESK,
        "        total += t * t;",
        "        total += fabs(t);",
        "kernel: the two-part (equalized odds) permutation statistic sums |T1| + |T2| instead "
        "of T1^2 + T2^2; the observed statistic and the permutation p-value of equalized odds "
        "change",
    ),
    m(
        "r12-k-was-curv-sign",
        WASK,
        "                a_curv = a_curv + d1 * d1 / (1.0 + c * d2)",
        "                a_curv = a_curv + d1 * d1 / (1.0 - c * d2)",
        "kernel: the curvature sum divides by 1 - c sigmoid'' instead of 1 + c sigmoid''; the "
        "Wasserstein test's derivative (hence its R and p-value) changes",
    ),
    m(
        "r12-sweep-crit-j",
        SWI,
        "    j = int(np.floor(alpha * (b + 1) - 1)) + 1",
        "    j = int(np.floor(alpha * (b + 1))) + 1",
        "boundary: the sweep's per-threshold critical value is the (j + 1)-th largest permuted "
        "value instead of the j-th; with B = 99 and alpha = 0.05 the critical value is one "
        "rank lower (too lenient)",
    ),
    m(
        "r12-spark-placement-pos-left",
        SPARK,
        'lo, hi = np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "right")',
        'lo, hi = np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "left")',
        "formula: on the spark engine a positive's placement counts no tied negatives instead "
        "of half of them; with rounded scores the spark AUC variance differs from the "
        "in-memory one",
    ),
    m(
        "r12-audr-found-order",
        AUDR,
        "        return sorted(pairs, key=lambda p: -abs(p[1].difference))",
        "        return sorted(pairs, key=lambda p: abs(p[1].difference))",
        "output: the audit's found slices are listed smallest difference first instead of "
        "largest; result.found[0] is not the most different slice",
    ),
    m(
        "r12-k-auc-place-own-class",
        AUCK,
        "                place[r] = (xd + tot[2 * g + 1 - lab]) / (2.0 * tot[2 * g + 1 - lab])",
        "                place[r] = (xd + tot[2 * g + 1 - lab]) / (2.0 * tot[2 * g + lab])",
        "kernel: an untied row's placement is scaled by its own class count instead of the "
        "other class's; the paired (compare) AUC variance of a group with unequal positives "
        "and negatives is wrong",
    ),
    m(
        "r12-k-ks-nearest-y",
        KSUMK,
        "        bufa[j0] += yi * k",
        "        bufa[j0] += k",
        "kernel: on a uniform grid with the Gaussian kernel the weighted outcome sum at the "
        "grid point nearest each score drops the outcome; the smoothed calibration curve is "
        "pulled towards 1 at every grid point",
    ),
    m(
        "r12-sweep-adjusted-floor",
        SWI,
        "        pvalue_adjusted=np.maximum(p_maxt, p),",
        "        pvalue_adjusted=p_maxt,",
        "output: the sweep's max-T adjusted p-value is no longer floored at the raw p-value; "
        "a threshold whose exact raw p-value exceeds its Monte-Carlo max-T p-value reports "
        "an adjusted p-value below the raw one",
    ),
    m(
        "r12-mona-capacity-full",
        MONA,
        "        if new and len(self._groups) + len(new) > self._capacity:",
        "        if new and len(self._groups) + len(new) >= self._capacity:",
        "validation: a monitor with max_groups=3 refuses the third group when it first "
        "appears, although it fits the capacity",
    ),
    m(
        "r12-mona-differs-and",
        MONA,
        "        differs = (lower > 0) | (upper < 0)",
        "        differs = (lower > 0) & (upper < 0)",
        "output: the monitor never declares a difference (both ends would have to exclude 0 on "
        "opposite sides); a large gap stays 'watching' forever",
    ),
    m(
        "r12-files-binary-three",
        FILES,
        "    if len(seen) > 2:\n        shown",
        "    if len(seen) > 3:\n        shown",
        "validation: the file engines accept a label column with three distinct values instead "
        "of raising 'must be binary'",
    ),
    m(
        "r12-perm-seq-two-pairs",
        PERMI,
        '        procedure = adjust if len(pairs) > 1 and adjust != "maxT" else "none"',
        '        procedure = adjust if len(pairs) > 2 and adjust != "maxT" else "none"',
        "allocation: sequential stopping with exactly two comparisons decides each at the "
        "unadjusted level instead of the family's procedure; with three groups and "
        "sequential=..., a comparison stops as significant that Holm would keep running",
    ),
    m(
        "r12-aucr-repr-se",
        AUCR,
        "(str(g), self.auc[k], np.sqrt(self.variance[k]), self.n_pos[k]",
        "(str(g), self.auc[k], self.variance[k], self.n_pos[k]",
        "output: the DeLong result's printed table shows the variance in the std_error "
        "column; repr(fastfair.auc.delong(...)) prints 0.0004 for an se of 0.02",
    ),
    m(
        "r12-cmpa-variance-b-field",
        CMPA,
        "        variance_a=m.variance_a[:, 0], variance_b=m.variance_b[:, 0],",
        "        variance_a=m.variance_a[:, 0], variance_b=m.variance_a[:, 0],",
        "output: the paired AUC comparison's result reports model A's variance as variance_b; "
        "the field is wrong whenever the two models' AUC variances differ",
    ),
    m(
        "r12-cube-add-self-counts",
        CUBE,
        "        counts = np.concatenate([self.counts, other.counts])",
        "        counts = np.concatenate([self.counts, self.counts])",
        "merge: adding two confusion cubes pairs the other cube's keys with the first cube's "
        "counts; the sum of two cubes of different chunks has wrong counts (or fails when "
        "their key counts differ)",
    ),
]
