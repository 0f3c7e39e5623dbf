"""Fifteenth-round mutants of issue #36: written from the code alone, without reading the
tests (engineer session "mut15", 2026-11-28, 13:48-13:57 UTC; the code read at 604e6eb, the
worktree's base and main's head when the session started; every mutant checked to apply on it).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges,
validations, result fields and kernel loops, and reading the lines around them); never
tests/, docs/testing.md, the other docs/ pages, validation/, benchmarks/, CHANGELOG.md, the
earlier mutation records or the earlier sets' entries (only the Mutant dataclass of
scripts/mutants.py and the module docstring and file constants of scripts/mutants_round14.py,
for the format; scripts/mutation.py only through --help). README.md, docs/architecture.md,
docs/conventions.md and the spec were not needed and not opened. No test was run and nothing
was built.

Process. 113 candidates were written in five batches (69, 18, 15, 8 and 3), each batch put
through the session's collision check; 64 collided with an earlier set (44, 4, 11, 3 and 2
per batch) and were dropped, the later batches being replacements at other places or of
other kinds. Two clean candidates were set aside by the author as probably equivalent: the
slice search's permutations-to-reach loop written with 1/B (its second loop brings B back to
the same value) and the Wasserstein linear spread taken on one side only (the power-of-two
magnification it sets is undone in every reported quantity). Not written at all: the sweep
kernel's threshold comparisons made strict (they differ only when a score equals a threshold
exactly), the bit-sliced Bernoulli draw of csrc/_means.pyx (its count correction keeps the
subset uniform, so only the draws change), the 128-bit emulation of csrc/ff_int128.h (the
native type is used where available), the dask engine's row starts without their last
cumulative sum (zip truncates: equivalent) and the Wasserstein kernel's sigmoid'' sign on
z < 0 (the Newton steps are safeguarded by bisection). 47 mutants, 0 collisions on the final
check (against the 928 earlier mutants).

By file: _metrics 4, _permutation_result 2, _score 1, _sequential 1, _validation 1,
_conditional_power 1, _format 1, _groups 1, permutation 1 (ingest), resampling 2 (api,
inference), tolerance 3 (statistics 2, ingest 1), planning 4 (inference, ingest, results,
statistics), calibration 1 (statistics), compare 1 (inference), slices 1 (ingest), sweep 1
(results), auditing 5 (ingest 2, results 2, report 1), CLI 1 (arguments), engines 5
(summaries 3, clusters 1, files 1), csrc 10 in six compiled sources (_auc 3, ff_rates.h 3,
_kernel_sums 1, _slices 1, _sweep 1, ff_sampling.h 1; each needs a rebuild). Every candidate
written for _pvalues, _exact, _unconditional, _clustered, auc, parity, wasserstein, monitor,
the spark and cube engines collided with an earlier set or was set aside; generic.py (a
re-export) and the dask engine offered no candidate that was not equivalent. Kinds (from
each ``why``): output 13, formula 11, kernel 10, validation 7, merge 2, allocation 2,
orientation 1, boundary 1. Mutants that only particular inputs reach: r15-sum-runs-table
(run summaries merged with their groups in different orders), r15-eclu-cl-side (clustered
rows read from files), r15-k-auc-lpb (tied scores in a permutation AUC test),
r15-aud-perm-need (n_permutations exactly the count the slice search needs),
r15-plan-res-k3 (a plan over exactly three groups).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the
tests, the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel,
merge, validation, output. Each ``why`` says the kind, the mistake and what a user sees, on
what input.
"""

from __future__ import annotations

from mutants import Mutant

SEQ = "fastfair/_sequential.py"
SCORE = "fastfair/_score.py"
VAL = "fastfair/_validation.py"
PERMG = "fastfair/permutation/ingest.py"
SUMM = "fastfair/engines/summaries.py"
CALS = "fastfair/calibration/statistics.py"
PLANI = "fastfair/planning/inference.py"
PLANG = "fastfair/planning/ingest.py"
PLANS = "fastfair/planning/statistics.py"
TOLG = "fastfair/tolerance/ingest.py"
TOLS = "fastfair/tolerance/statistics.py"
RESA = "fastfair/resampling/api.py"
RESI = "fastfair/resampling/inference.py"
CMPI = "fastfair/compare/inference.py"
SLIG = "fastfair/slices/ingest.py"
SWR = "fastfair/sweep/results.py"
AUDG = "fastfair/auditing/ingest.py"
AUDR = "fastfair/auditing/results.py"
CLIA = "fastfair/cli/arguments.py"
ECLU = "fastfair/engines/clusters.py"
FILES = "fastfair/engines/files.py"
PLANR = "fastfair/planning/results.py"
FMT = "fastfair/_format.py"
GRP = "fastfair/_groups.py"
METR = "fastfair/_metrics.py"
PRES = "fastfair/_permutation_result.py"
CPOW = "fastfair/_conditional_power.py"
AUDP = "fastfair/auditing/report.py"
AUCK = "csrc/_auc.pyx"
SLIK = "csrc/_slices.pyx"
KSUMK = "csrc/_kernel_sums.pyx"
SWEEPK = "csrc/_sweep.pyx"
RATESH = "csrc/ff_rates.h"
SAMPH = "csrc/ff_sampling.h"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r15-seq-holm-k",
        SEQ,
        "k = m if ok.all() else int(np.argmin(ok))",
        "k = m if ok.all() else int(np.argmax(ok))",
        (
            "formula: Holm's stopping index is taken at the first passing rank instead of "
            "the first failing one; sequential Holm rejects nothing (or the wrong count) "
            "when the smallest p passes and a later one fails"
        ),
    ),
    m(
        "r15-score-shrunk-r1",
        SCORE,
        "r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)",
        "r1, r2 = (p1 * n1 + 0.5) / n1, (p2 * n2 + 0.5) / (n2 + 1.0)",
        (
            "formula: the half-pseudo-observation shrinkage of the first rate divides by "
            "n1, not n1 + 1; a Wald statistic on two groups with rate 0 (zero plug-in "
            "variance) is wrong"
        ),
    ),
    m(
        "r15-perm-eo-onesided",
        PERMG,
        'if spec_metric.n_parts > 1 and fields["alternative"] != "two-sided":',
        'if spec_metric.n_parts > 2 and fields["alternative"] != "two-sided":',
        (
            "validation: equalized odds (two parts) with alternative='greater' is wrongly "
            "accepted instead of refused"
        ),
    ),
    m(
        "r15-sum-v01-den",
        SUMM,
        "v01 = (above + pos / 2.0) / n1[:, None]",
        "v01 = (above + pos / 2.0) / n0[:, None]",
        (
            "formula: the negatives' placements divide by the negatives' count, not the "
            "positives'; DeLong variance from a summary is wrong when a group's classes "
            "differ in size"
        ),
    ),
    m(
        "r15-sum-runs-table",
        SUMM,
        "table[0::2], table[1::2] = 2 * where, 2 * where + 1",
        "table[0::2], table[1::2] = 2 * where, 2 * where",
        (
            "merge: merging runs with different label orders maps positives to the "
            "negative code; a merged run summary with groups in other orders has wrong AUCs"
        ),
    ),
    m(
        "r15-cal-bins",
        CALS,
        "edges = np.linspace(lo, hi, n_bins + 1)",
        "edges = np.linspace(lo, hi, n_bins)",
        (
            "allocation: the binned calibration estimator makes n_bins - 1 bins; the "
            "calibration curve with n_bins=10 has nine bins"
        ),
    ),
    m(
        "r15-plan-fpc-oth",
        PLANI,
        "sigma2[..., oth] / population[oth]",
        "sigma2[..., oth] / population[ref]",
        (
            "formula: the finite-population correction of a compared group uses the "
            "reference's population size; a plan with population_sizes of unequal groups "
            "returns the wrong n"
        ),
    ),
    m(
        "r15-plan-ref-neg",
        PLANG,
        "if not -k <= r < k:",
        "if not 0 <= r < k:",
        (
            "validation: a negative reference index (reference=-1, the last group) is "
            "refused though valid"
        ),
    ),
    m(
        "r15-plan-ppv-cells",
        PLANS,
        ("return np.stack([(1 - pp) * npv, pp * (1 - ppv), (1 - pp) * (1 - npv), pp * ppv], -1)"),
        ("return np.stack([(1 - pp) * npv, (1 - pp) * (1 - npv), pp * (1 - ppv), pp * ppv], -1)"),
        (
            "output: the simulated confusion cells for a ppv plan swap FP and FN; a "
            "simulated power check of ppv at a given selection rate is wrong"
        ),
    ),
    m(
        "r15-tol-bounded-one",
        TOLG,
        "(bounded and v >= 1)",
        "(bounded and v > 1)",
        (
            "validation: a tolerance of exactly 1 (a gap between probabilities cannot "
            "exceed it) is wrongly accepted"
        ),
    ),
    m(
        "r15-tol-newcombe-bracket",
        TOLS,
        "bracket = 2.0 * n_star - 1.0 - 3.0 * (n_star - 1.0) / q",
        "bracket = 2.0 * n_star - 1.0 + 3.0 * (n_star - 1.0) / q",
        (
            "formula: Newcombe's variance bracket adds the correction term instead of "
            "subtracting it; an AUC tolerance interval by the Newcombe method is wrong"
        ),
    ),
    m(
        "r15-res-welch-df",
        RESI,
        ("df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)) if ua + ub > 0 else 1.0"),
        "df = (ua + ub) ** 2 / (ua**2 / (na - 1) + ub**2 / nb) if ua + ub > 0 else 1.0",
        (
            "formula: the Welch-Satterthwaite df divides the second group's term by nb, "
            "not nb - 1; the Welch t p-value of small groups is wrong"
        ),
    ),
    m(
        "r15-res-corr-t",
        RESA,
        "t = r * math.sqrt((n - 2) / max(1.0 - r * r, 1e-300))",
        "t = r * math.sqrt((n - 1) / max(1.0 - r * r, 1e-300))",
        (
            "formula: the correlation's t statistic uses n - 1 degrees of freedom; the "
            "studentized residual-correlation test's p-value is too small"
        ),
    ),
    m(
        "r15-cmp-orient-b",
        CMPI,
        "return np.where(obs.gap_a >= 0, 1.0, -1.0)",
        "return np.where(obs.gap_b >= 0, 1.0, -1.0)",
        (
            "orientation: the sign that defines 'gap shrank' is taken from model B's gap; "
            "when the gap changes sign between models the shrink p-value is for the wrong "
            "direction"
        ),
    ),
    m(
        "r15-sli-qbins",
        SLIG,
        "edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, bins + 1)))",
        "edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, bins)))",
        (
            "allocation: a numeric feature gets bins - 1 quantile bins; a slice search "
            "with bins=4 has three levels for a continuous feature"
        ),
    ),
    m(
        "r15-sw-argmax",
        SWR,
        "return int(np.argmax(oriented))",
        "return int(np.argmin(oriented))",
        (
            "output: the sweep's most extreme threshold is the least extreme one; the "
            "printed 'at t' is wrong"
        ),
    ),
    m(
        "r15-aud-perm-need",
        AUDG,
        "if n_permutations < need:",
        "if n_permutations <= need:",
        ("validation: an audit with slices and exactly the needed permutations is refused"),
    ),
    m(
        "r15-aud-mde-range",
        AUDR,
        "mde_range=[min(mdes), max(mdes)] if mdes else None",
        "mde_range=[min(mdes), min(mdes)] if mdes else None",
        (
            "output: the summary's MDE range ends at the smallest MDE; an audit summary "
            "with several tests shows a degenerate range"
        ),
    ),
    m(
        "r15-cli-force",
        CLIA,
        "if os.path.lexists(path) and not force:",
        "if os.path.lexists(path):",
        (
            "validation: --force is ignored; fastfair audit --json out.json --force "
            "refuses an existing out.json"
        ),
    ),
    m(
        "r15-k-rates-shrunk",
        RATESH,
        "var = r_a * (1.0 - r_a) / (n_a + 1.0) + r_b * (1.0 - r_b) / (n_b + 1.0);",
        "var = r_a * (1.0 - r_a) / (n_a + 1.0) + r_b * (1.0 - r_b) / n_b;",
        (
            "kernel: the compiled studentized statistic's fallback variance divides the "
            "second group's term by n_b; permutation p-values with a group of rate 0 in "
            "both groups' draws change"
        ),
    ),
    m(
        "r15-k-rates-parts",
        RATESH,
        "total += t * t;",
        "total += t;",
        (
            "kernel: the compiled multi-part statistic (equalized odds) adds the parts' "
            "statistics signed instead of squared; opposite TPR and FPR gaps cancel and "
            "the permutation p-value is wrong"
        ),
    ),
    m(
        "r15-k-auc-negx",
        AUCK,
        "x = tot[2 * g + 1] - 2 * below[2 * g + 1]",
        "x = tot[2 * g + 1] - below[2 * g + 1]",
        (
            "kernel: a negative's placement sum loses the factor 2 on the positives below "
            "it; AUC variances and placements from the compiled AUC kernel are wrong"
        ),
    ),
    m(
        "r15-k-cov-last",
        KSUMK,
        "if (hi[u] > last) last = hi[u];",
        "if (hi[u] > last) last = hi[u] - 1;",
        (
            "kernel: the covariance flush stops one grid point before the last cluster "
            "window's end; clustered parity variances at that grid point miss the block's "
            "products"
        ),
    ),
    m(
        "r15-fmt-adj-bound",
        FMT,
        'return "< 1e-16" if adjusted < PVALUE_FLOOR else f"< {adjusted:.3g}"',
        'return "< 1e-16" if adjusted < PVALUE_FLOOR else f"< {float(pvalue):.3g}"',
        (
            "output: an adjusted p-value whose raw p is at the Monte-Carlo floor prints "
            "the raw bound; format_adjusted_pvalue(1e-4, 3e-4, 'monte_carlo', 9999) gives "
            "'< 0.0001'"
        ),
    ),
    m(
        "r15-grp-split-order",
        GRP,
        "for j in range(len(sizes) - 1, -1, -1):\n        rest, keys[:, j]",
        "for j in range(len(sizes)):\n        rest, keys[:, j]",
        (
            "output: decoding a combined code takes the digits in the wrong order; "
            "intersection labels of attributes with different level counts (2 and 3) are "
            "wrong tuples"
        ),
    ),
    m(
        "r15-met-npv-den",
        METR,
        '"npv": _rate("npv", TN, _PRED_NEG),',
        '"npv": _rate("npv", TN, NEGATIVES),',
        (
            "formula: npv divides by the negatives instead of the predicted negatives (it "
            "becomes tnr); every npv value, test and audit row is wrong"
        ),
    ),
    m(
        "r15-met-for-num",
        METR,
        '"for": _rate("for", FN, _PRED_NEG),',
        '"for": _rate("for", TN, _PRED_NEG),',
        (
            "formula: the false omission rate counts true negatives (it becomes npv); "
            "metric='for' values are 1 - the right ones"
        ),
    ),
    m(
        "r15-met-eo-names",
        METR,
        '        ("tpr", "fpr"),\n        (_DEN_TEXT[POSITIVES], _DEN_TEXT[NEGATIVES]),',
        '        ("fpr", "tpr"),\n        (_DEN_TEXT[POSITIVES], _DEN_TEXT[NEGATIVES]),',
        (
            "output: the equalized-odds parts are named fpr then tpr while computed tpr "
            "then fpr; the audit's tpr row shows the FPR difference"
        ),
    ),
    m(
        "r15-met-specificity",
        METR,
        '"specificity": "tnr",',
        '"specificity": "fpr",',
        "output: metric='specificity' computes the false positive rate",
    ),
    m(
        "r15-permres-parts",
        PRES,
        'parts = ["tpr", "fpr"] if values.shape[1] == 2 else [self.metric]',
        'parts = ["fpr", "tpr"] if values.shape[1] == 2 else [self.metric]',
        (
            "output: the equalized-odds permutation result's table labels its tpr column "
            "fpr and vice versa"
        ),
    ),
    m(
        "r15-permres-nc",
        PRES,
        "n = int(n[c] if n.size > 1 else n[0])",
        "n = int(n[0])",
        (
            "output: a sequential result's p-value of comparison c is printed at the "
            "precision (floor) of comparison 0's permutation count; with unequal counts a "
            "p-value prints as '< 1/(B+1)' wrongly"
        ),
    ),
    m(
        "r15-cp-valid-m1",
        CPOW,
        "valid = (x >= 0) & (x <= m1) & (x <= tt) & (tt - x <= m2)",
        "valid = (x >= 0) & (x < m1) & (x <= tt) & (tt - x <= m2)",
        (
            "boundary: the conditional power lattice drops the outcome where every row of "
            "the first group is a success; conditional power at a rate near 1 is too low"
        ),
    ),
    m(
        "r15-aud-report-left",
        AUDP,
        "for t in tests[: max(left, 0)]:",
        "for t in tests[: max(left, 1)]:",
        (
            "output: with --max-rows reached, each further attribute still prints one row; "
            "max_rows=2 over three attributes shows four rows"
        ),
    ),
    m(
        "r15-aud-noev-count",
        AUDR,
        'n_no_evidence=decisions.count("no_evidence"),',
        'n_no_evidence=decisions.count("underpowered"),',
        "output: the summary's count of no-evidence tests counts the underpowered ones",
    ),
    m(
        "r15-k-auc-prefix",
        AUCK,
        ("return c->acc + ff_popcount64(c->bits[wi] & ((((uint64_t)1) << (i & 63)) - 1));"),
        "return c->acc + ff_popcount64(c->bits[wi] & (((uint64_t)1) << (i & 63)));",
        (
            "kernel: the bitmap prefix count keeps only bit i instead of the bits below "
            "it; permutation AUC statistics from the compiled kernel are wrong on any input"
        ),
    ),
    m(
        "r15-k-auc-lpb",
        AUCK,
        "snb += sn; lnb += ln; spb += sp; lpb += lp;",
        "snb += sn; lnb += ln; spb += sp;",
        (
            "kernel: the running count of the permuted group's positives in earlier tie "
            "blocks is not advanced; permutation AUC tests with tied scores get wrong null "
            "statistics"
        ),
    ),
    m(
        "r15-k-rates-pooled",
        RATESH,
        "var = p * (1.0 - p) * (inv_a + inv_b);",
        "var = p * (1.0 - p) * (inv_a + inv_a);",
        (
            "kernel: the pooled variance uses the first group's effective size twice; "
            "pooled studentized permutation statistics with unequal groups are wrong"
        ),
    ),
    m(
        "r15-eclu-cl-side",
        ECLU,
        (
            "idx = np.arange(first, len(score), step)\n        cl = "
            'np.searchsorted(starts, idx, side="right") - 1'
        ),
        (
            "idx = np.arange(first, len(score), step)\n        cl = "
            'np.searchsorted(starts, idx, side="left") - 1'
        ),
        (
            "output: a sampled row at the first row of a cluster is attributed to the "
            "previous cluster (its weight and group); clustered parity from files with "
            "users of several rows gets the wrong sample weights and groups (cluster -1 "
            "for row 0)"
        ),
    ),
    m(
        "r15-files-binary-seen",
        FILES,
        "seen.update({lo.item(), hi.item()})",
        "seen.update({lo.item()})",
        (
            "validation: a binary batch records only its smaller value; a label column "
            "that is 0/1 in one batch and 1/2 in the next is wrongly accepted as binary"
        ),
    ),
    m(
        "r15-plan-res-k3",
        PLANR,
        "        if k > 2:",
        "        if k > 3:",
        (
            "output: a plan over three groups omits the line about two comparisons against "
            "the reference and the Bonferroni alpha"
        ),
    ),
    m(
        "r15-tol-se-nb",
        TOLS,
        "gap.se = np.sqrt(unpooled_variance(x[a] / n[a], n[a], x[b] / n[b], n[b]))",
        "gap.se = np.sqrt(unpooled_variance(x[a] / n[a], n[a], x[b] / n[b], n[a]))",
        (
            "formula: the reported standard error of the gap divides the reference's "
            "variance by the group's size; tolerance results with unequal group sizes show "
            "a wrong se"
        ),
    ),
    m(
        "r15-k-sweep-dupthr",
        SWEEPK,
        ("if n_thr < 1 or (n_thr > 1 and not (np.diff(np.asarray(thresholds)) > 0).all()):"),
        ("if n_thr < 1 or (n_thr > 1 and not (np.diff(np.asarray(thresholds)) >= 0).all()):"),
        (
            "kernel (validation): the compiled sweep counter accepts repeated thresholds; "
            "a threshold sweep given [0.3, 0.5, 0.5] runs (with a duplicated row) instead "
            "of raising"
        ),
    ),
    m(
        "r15-k-sli-prefix",
        SLIK,
        ("return count[0] + ff_popcount64(bits[word[0]] & ((<uint64_t> 1 << (end & 63)) - 1))"),
        "return count[0] + ff_popcount64(bits[word[0]] & (<uint64_t> 1 << (end & 63)))",
        (
            "kernel: the subset sampler's prefix count keeps only the bit at `end` instead "
            "of the bits below it; slice searches with the subset path get wrong null "
            "counts and p-values"
        ),
    ),
    m(
        "r15-k-floyd-taken",
        SAMPH,
        "if ((bits[t >> 6] >> (t & 63)) & 1) t = lo + j;",
        "if ((bits[t >> 6] >> (t & 63)) & 1) t = lo + j - 1;",
        (
            "kernel: on a collision Floyd's sampler takes j - 1 (possibly already taken) "
            "instead of j; the subset drawn has fewer than k rows and resampled statistics "
            "are wrong"
        ),
    ),
    m(
        "r15-aud-sliceperm-min",
        AUDG,
        "return max(SLICE_PERMUTATIONS, _slice_permutations_needed(alpha, metrics))",
        "return min(SLICE_PERMUTATIONS, _slice_permutations_needed(alpha, metrics))",
        (
            "formula: a sequential audit's slice searches use the smaller of 999 and the "
            "count needed; slice_permutations(None, 0.001, ['tpr', 'fpr']) returns 999, "
            "too few to reach the level"
        ),
    ),
    m(
        "r15-sum-high-first",
        SUMM,
        "high = max(float(s[-1]) for s in present) if present else None",
        "high = max(float(s[0]) for s in present) if present else None",
        (
            "merge: a merged run summary's highest score is the largest of the runs' "
            "lowest scores; followed_by then accepts a block overlapping the merged one's "
            "true top"
        ),
    ),
    m(
        "r15-val-absent-pos",
        VAL,
        "        if len(values_seen) == 2 or require_pos:",
        "        if require_pos:",
        (
            "validation: a pos_label that occurs in neither value of a two-valued column "
            "(e.g. 'yes' for a 'Y'/'N' column) is wrongly accepted and every row becomes "
            "negative"
        ),
    ),
]
