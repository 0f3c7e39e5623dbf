"""Thirteenth-round mutants of issue #36: written from the code alone, without reading the
tests (engineer session "mut13", 2026-11-28, 10:47-11:00 UTC; the code read at 31ad6b4, the
worktree's base; every mutant checked to apply on main 3247265, whose fastfair/ and csrc/
differ from 31ad6b4's only in calibration/api, calibration/statistics, permutation/inference,
tolerance/api and tolerance/statistics).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges,
validations, result fields and kernel loops, and reading the functions around them); never
tests/, docs/testing.md, the other docs/ pages, validation/, benchmarks/, CHANGELOG.md, the
earlier mutation records or the earlier sets' entries (only the Mutant dataclass of
scripts/mutants.py and the module docstring and file constants of scripts/mutants_round12.py,
for the format; scripts/mutation.py only through --help). README.md, docs/architecture.md,
docs/conventions.md and the spec were not needed and not opened. No test was run and nothing
was built. While rebasing, the subjects of main's six commits since 31ad6b4 were seen (git
log), after every mutant but the last three had been written.

Process. Candidates that need an exact float tie (a strict against a non-strict comparison
of a continuous statistic or of a score with a threshold) or that seemed equivalent (the
mode where the hypergeometric pmf starts, the carry of the 128-bit addition, the choice of
runs along x1 or x2 in the unconditional test, the complement trick of the sweep's walk
sampler, the plus-one of the Hoeffding window) were set aside while reading, before any
check. 93 were written and run through the session's collision check in 23 batches (12, 6,
6, 7, 5, 4, 3, 6, 7, 6, 2, 5, 2, 3, 2, 1, 3, 4, 2, 2, 2, 1 and 2 candidates); 40 collided
with an earlier set (7, 1, 4, 4, 3, 2, 1, 3, 4, 1, 1, 1, 0, 1, 0, 1, 0, 2, 0, 2, 0, 1 and 1)
and were dropped, the later batches being replacements at other places or of other kinds.
Four clean ones were dropped after review: the separable exact mid-p's searchsorted side
(differs only on an exact float tie), an extra line at -1 in the monitor's grid (no visible
difference could be argued), the Hoeffding window's minimum taken as a maximum (visible only
on inputs near the exact test's size limit), and the equal-width binning range of
calibration (the branch was removed on main by 7e3abca). 49 mutants, 0 collisions on the
final check (against the 833 earlier mutants).

By file: _pvalues 1, _score 1, _exact 1, _unconditional 1, _sequential 1, _comparisons 2,
_validation 2, _clustered 1, auc 1 (results), permutation 2 (inference), resampling 1
(inference), tolerance 2 (statistics, ingest), planning 2 (inference), calibration 1
(statistics), parity 2 (statistics, results), compare 2 (statistics, results), monitor 3
(api), slices 2 (inference), sweep 1 (results), auditing 6 (api 5, results 1), engines 4
(clusters 2, summaries 1, cube 1; the dask and spark candidates collided and none was
written for files), CLI 2 (arguments), csrc 8 in eight compiled sources (ff_rates.h,
ff_sampling.h, _auc, _kernel_sums, _margin_tails, _slices, _sweep, _wasserstein; each needs
a rebuild). Kinds (from each ``why``): formula 10, kernel 9, output 9, validation 6, boundary
5, merge 5, orientation 4, allocation 1. Mutants that only particular inputs reach:
r13-score-array-upper (more than 64 comparisons), r13-unc-critical-none (tiny groups),
r13-k-was-global-min (|c| > 6 sqrt(3) with two local minima), r13-k-auc-shrink-pairs (AUC 1
against 0), r13-k-mt-pmf-edge (supremum at a nuisance rate of 0 or 1),
r13-clus-carry-order (users spanning pieces of the chunked parity pass),
r13-res-comb-cap (more than MAX_EXACT_SUBSETS splits), r13-plan-score-direction (a non-zero
u_tol), r13-cals-sweep-ceil (n not a multiple of the trial bin count, and a changed b*).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the
tests, the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel,
merge, validation, output. Each ``why`` says the kind, the mistake and what a user sees, on
what input.
"""

from __future__ import annotations

from mutants import Mutant

PV = "fastfair/_pvalues.py"
SCORE = "fastfair/_score.py"
UNC = "fastfair/_unconditional.py"
SEQ = "fastfair/_sequential.py"
PARS = "fastfair/parity/statistics.py"
SLII = "fastfair/slices/inference.py"
SWR = "fastfair/sweep/results.py"
RATESK = "csrc/ff_rates.h"
MTK = "csrc/_margin_tails.pyx"
SLIK = "csrc/_slices.pyx"
WASK = "csrc/_wasserstein.pyx"
SAMPK = "csrc/ff_sampling.h"
SWEEPK = "csrc/_sweep.pyx"
AUCK = "csrc/_auc.pyx"
KSUMK = "csrc/_kernel_sums.pyx"
RESI = "fastfair/resampling/inference.py"
CMPN = "fastfair/_comparisons.py"
VAL = "fastfair/_validation.py"
CLIA = "fastfair/cli/arguments.py"
AUCR = "fastfair/auc/results.py"
CLU = "fastfair/_clustered.py"
CLUSE = "fastfair/engines/clusters.py"
AUDA = "fastfair/auditing/api.py"
MONA = "fastfair/monitor/api.py"
TOLS = "fastfair/tolerance/statistics.py"
TOLIN = "fastfair/tolerance/ingest.py"
PERMI = "fastfair/permutation/inference.py"
EXACT = "fastfair/_exact.py"
CALS = "fastfair/calibration/statistics.py"
AUDR = "fastfair/auditing/results.py"
SUMS = "fastfair/engines/summaries.py"
CUBE = "fastfair/engines/cube.py"
CMPS = "fastfair/compare/statistics.py"
CMPR = "fastfair/compare/results.py"
PARR = "fastfair/parity/results.py"
PLANI = "fastfair/planning/inference.py"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r13-pv-maxt-floor",
        PV,
        ("        return np.maximum(maxt_pvalues(joint_null(), observed, alternative), pvalues)"),
        ("        return np.minimum(maxt_pvalues(joint_null(), observed, alternative), pvalues)"),
        (
            "formula: the max-T adjusted p-value is combined with the raw one by "
            "minimum instead of maximum; max-T is never below a Monte-Carlo raw "
            "p-value, so a user with adjust='maxT' and two or more comparisons sees "
            "pvalue_adjusted equal to the raw p-values."
        ),
    ),
    m(
        "r13-score-array-upper",
        SCORE,
        ("        lo, hi = diff.copy(), np.full(diff.shape, 1.0)  # Z(lo) = 0 >= -z > Z(hi)"),
        ("        lo, hi = diff.copy(), np.full(diff.shape, 0.0)  # Z(lo) = 0 >= -z > Z(hi)"),
        (
            "kernel: the array path (more than 64 comparisons) bisects the upper end "
            "on [diff, 0] instead of [diff, 1]; a user with 65+ comparisons sees "
            "upper interval ends capped near 0."
        ),
    ),
    m(
        "r13-unc-critical-none",
        UNC,
        '            return np.inf if side == "greater" else -np.inf',
        '            return -np.inf if side == "greater" else np.inf',
        (
            "orientation: when no attainable statistic rejects (tiny groups), the "
            "critical value is -inf for 'greater', so every outcome rejects; a user "
            "sees the exact test's critical value and power wrong on tiny groups."
        ),
    ),
    m(
        "r13-seq-holm-count",
        SEQ,
        "        k = m if ok.all() else int(np.argmin(ok))",
        "        k = m if ok.all() else int(ok.sum())",
        (
            "formula: sequential Holm counts all passing ranked p-values instead of "
            "stopping at the first failure; with p = 0.02, 0.03, 0.04 for three "
            "hypotheses at alpha 0.05 a user sees the first rejected (0.04 <= 0.05 "
            "counts) where Holm rejects none."
        ),
    ),
    m(
        "r13-par-cr2-q-sign",
        PARS,
        "        Q = Q + S * S * s1 * s1 - 4.0 * S * s2 * s1",
        "        Q = Q + S * S * s1 * s1 + 4.0 * S * s2 * s1",
        (
            "formula: the CR2 Satterthwaite df adds the S s1 s2 cross term instead "
            "of subtracting it; a user with a user holding a large share of kernel "
            "weight (small_sample='cr2', slow path) sees smaller df and larger "
            "p-values/intervals."
        ),
    ),
    m(
        "r13-sli-by-selected",
        SLII,
        "    selected = max(int(np.sum(adjusted <= alpha)), 1)",
        "    selected = max(int(np.sum(adjusted <= alpha)), 0)",
        (
            "boundary: with adjust='by' and no slice selected, the critical value "
            "uses level 0 (an infinite quantile); a user sees infinite simultaneous "
            "intervals/critical value when nothing is significant."
        ),
    ),
    m(
        "r13-sli-ac-se",
        SLII,
        ("    se = np.sqrt(p1 * (1.0 - p1) / (n + 2.0) + p2 * (1.0 - p2) / (n_other + 2.0))"),
        ("    se = np.sqrt(p1 * (1.0 - p1) / (n + 2.0) + p2 * (1.0 - p2) / (n_other + 1.0))"),
        (
            "formula: the Agresti-Caffo standard error divides the complement's "
            "variance by n + 1 instead of n + 2; a user sees slightly wider "
            "simultaneous slice intervals (visible on small complements)."
        ),
    ),
    m(
        "r13-swr-frame-threshold",
        SWR,
        '                "threshold": np.tile(self.thresholds, m),',
        '                "threshold": np.repeat(self.thresholds, m),',
        (
            "output: the sweep's to_frame repeats each threshold per metric instead "
            "of cycling them; with two metrics a user sees the thresholds column "
            "misaligned with the rows."
        ),
    ),
    m(
        "r13-k-rates-shrink-nb",
        RATESK,
        "        double n_a = 1.0 / inv_a, n_b = 1.0 / inv_b;",
        "        double n_a = 1.0 / inv_a, n_b = 1.0 / inv_a;",
        (
            "kernel: the shrunk variance of a zero-variance unpooled statistic uses "
            "group A's effective size for both groups; a user sees a wrong statistic "
            "(and p-value) when both rates are 0 or 1 and the groups differ in size "
            "(e.g. 5/5 vs 0/40)."
        ),
    ),
    m(
        "r13-k-mt-pmf-edge",
        MTK,
        "            out[(0 if p <= 0.0 else n) - lo] = 1.0",
        "            out[(n if p <= 0.0 else 0) - lo] = 1.0",
        (
            "kernel: at a nuisance rate of exactly 0 or 1 the binomial's unit mass "
            "is put on the wrong end; a user sees a wrong exact unconditional "
            "p-value where the supremum is at the grid's edge (e.g. margin d > 0, "
            "'less' side)."
        ),
    ),
    m(
        "r13-k-slices-subset-flip",
        SLIK,
        (
            "    ff_floyd_bits(fast, bits, 0, n_units, n_units - n_success if flip "
            "else n_success, NULL)"
        ),
        (
            "    ff_floyd_bits(fast, bits, 0, n_units, n_success if flip else "
            "n_units - n_success, NULL)"
        ),
        (
            "kernel: the subset draw picks the majority count of units, so each cell "
            "gets failures where successes are meant; a user with few successes per "
            "cell sees a wrong slice null distribution and max-T p-values."
        ),
    ),
    m(
        "r13-k-was-global-min",
        WASK,
        "    if qr < ql:\n        alt[0] = zl",
        "    if qr > ql:\n        alt[0] = zl",
        (
            "kernel: where the inner problem has two local minima (|c| > 6 sqrt(3)) "
            "the kernel returns the worse one; a user with a large gamma * lambda * "
            "b2 sees a wrong Wasserstein distance/statistic."
        ),
    ),
    m(
        "r13-k-samp-sattolo",
        SAMPK,
        ("            uint32_t j = ff_fast_bounded_u32(s, (uint32_t)(i + 1));               \\"),
        ("            uint32_t j = ff_fast_bounded_u32(s, (uint32_t)(i));                   \\"),
        (
            "kernel: the shuffle draws j in [0, i) instead of [0, i] (Sattolo's "
            "algorithm: only cyclic permutations, no element stays); a user sees a "
            "biased permutation null (e.g. two rows always swap) and wrong p-values."
        ),
    ),
    m(
        "r13-k-sweep-node-complement",
        SWEEPK,
        "    if n < a:\n        k = left - k",
        "    if n <= a:\n        k = left - k",
        (
            "kernel: the ratio-of-uniforms node draw complements its count also when "
            "it drew A's rows directly (2a <= total); a user sweeping thresholds "
            "over large groups sees a wrong permutation null, critical values and "
            "p-values."
        ),
    ),
    m(
        "r13-k-auc-shrink-pairs",
        AUCK,
        "        pb = <double> tot[2 * b] * tot[2 * b + 1]",
        "        pb = <double> tot[2 * b] + tot[2 * b + 1]",
        (
            "kernel: the zero-variance fallback of the studentized AUC difference "
            "counts group b's rows instead of its positive-negative pairs; a user "
            "with one group's AUC 1 and the other's 0 (both DeLong variances 0) sees "
            "a wrong studentized statistic."
        ),
    ),
    m(
        "r13-k-ks-maxwald-weight",
        KSUMK,
        "                    num = num + d[g * P + j] / variance[g, j]",
        "                    num = num + d[g * P + j]",
        (
            "kernel: the multiplier-bootstrap maximum centres each draw at sum D / "
            "sum(1/v) instead of the precision-weighted mean; a user sees wrong "
            "simultaneous bands and max-Wald p-values for calibration parity with "
            "unequal variances."
        ),
    ),
    m(
        "r13-res-comb-cap",
        RESI,
        "        if c > cap:\n            return cap + 1",
        "        if c > cap:\n            return cap",
        (
            "validation: the capped binomial coefficient returns the cap itself when "
            "exceeded, so the exact mean-difference test no longer refuses too many "
            "splits and enumerates only the first MAX_EXACT_SUBSETS of them; a user "
            "sees an exact p-value from a truncated enumeration instead of the "
            "ValueError."
        ),
    ),
    m(
        "r13-cmpn-all-reference",
        CMPN,
        (
            "        if reference is not None:\n            raise "
            "ValueError(\"reference applies to comparisons='reference' only\")\n"
        ),
        "",
        (
            "validation: comparisons='all' silently ignores a reference instead of "
            "refusing it; a user passing reference='b' with comparisons='all' gets "
            "all pairs and no ValueError."
        ),
    ),
    m(
        "r13-cmpn-auc-kind",
        CMPN,
        '            kind = "positives" if tot[g, 1] == 0 else "negatives"',
        '            kind = "positives" if tot[g, 0] == 0 else "negatives"',
        (
            "output: the undefined-AUC error names the wrong class; a user whose "
            "group has negatives but no positives reads 'has no negatives'."
        ),
    ),
    m(
        "r13-val-binary-minus-one",
        VAL,
        "        if set(values_seen.tolist()) <= {-1, 1}:",
        "        if set(values_seen.tolist()) == {-1, 1}:",
        (
            "validation: a single-valued column of -1 (or of 1 as floats handled "
            "earlier) is no longer understood without pos_label; a user with y_pred "
            "all -1 gets a ValueError asking for pos_label."
        ),
    ),
    m(
        "r13-val-int-maximum",
        VAL,
        "    if maximum is not None and value > maximum:",
        "    if maximum is not None and value >= maximum:",
        (
            "boundary: check_int refuses the documented maximum itself; a user "
            "passing an option equal to its largest allowed value gets a ValueError."
        ),
    ),
    m(
        "r13-cli-reference-plain",
        CLIA,
        "    if len(values) == 1 and len(groups) == 1:\n        return values[0]",
        "    if len(values) == 1:\n        return values[0]",
        (
            "validation: --reference with a plain label is accepted with several "
            "--group columns; a user running `fastfair audit ... --group sex --group "
            "race --reference F` gets no CLI error and the label applied to every "
            "attribute (or a later, less clear error)."
        ),
    ),
    m(
        "r13-cli-compare-engine",
        CLIA,
        '    if engine in ("arrow", "dask", "spark") and args.compare:',
        '    if engine in ("dask", "spark") and args.compare:',
        (
            "validation: --compare is accepted with --engine arrow, which cannot run "
            "it in memory; a user gets no CLIError and --compare is ignored or fails "
            "later."
        ),
    ),
    m(
        "r13-aucr-delong-repr-se",
        AUCR,
        (
            "            (str(g), self.auc[k], np.sqrt(self.variance[k]), "
            "self.n_pos[k], self.n_neg[k])"
        ),
        ("            (str(g), self.auc[k], self.variance[k], self.n_pos[k], self.n_neg[k])"),
        (
            "output: DeLongResult's repr shows the variance in its std_error column; "
            "a user printing fastfair.delong(...) sees a standard error that is its "
            "square."
        ),
    ),
    m(
        "r13-clu-conflict-count",
        CLU,
        "    np.maximum.at(hi, ccodes, gcodes)",
        "    np.minimum.at(hi, ccodes, gcodes)",
        (
            "output: the count of users spanning several groups is always 0 in the "
            "conflict error; a user whose cluster column puts a user in two groups "
            "reads '(0 cluster(s) span several groups)'."
        ),
    ),
    m(
        "r13-clus-merge-maxb",
        CLUSE,
        (
            '    return {k: np.maximum(v, b[k]) if k == "max_b" else v + b[k] for k, '
            "v in a.items()}"
        ),
        "    return {k: v + b[k] for k, v in a.items()}",
        (
            "merge: merging kernel sums of two chunks adds their largest per-user "
            "weights instead of taking the maximum; a user of the out-of-core parity "
            "test sees an inflated largest share (share notes, and the CR2 slow path "
            "taken where it should not be)."
        ),
    ),
    m(
        "r13-clus-carry-order",
        CLUSE,
        ("            piece = tuple(np.concatenate([c, p]) for c, p in zip(carry, piece))"),
        ("            piece = tuple(np.concatenate([p, c]) for c, p in zip(carry, piece))"),
        (
            "merge: the carried rows of a user continuing into the next piece are "
            "appended after that piece instead of before it, so the user is split or "
            "the order by user broken; a user of the chunked parity test whose users "
            "span pieces sees a cluster counted twice (wrong n_clusters, variances)."
        ),
    ),
    m(
        "r13-aud-shrunk-zero",
        AUDA,
        "    edge = (num <= 0) | (num >= den)",
        "    edge = (num < 0) | (num >= den)",
        (
            "boundary: the audit's planner rates leave a rate of exactly 0 unshrunk; "
            "a user auditing a group with no events sees a wrong (or missing, "
            "power_note) MDE and power."
        ),
    ),
    m(
        "r13-aud-eo-needed",
        AUDA,
        '        else max(f["n_needed"] for f in figures),',
        '        else min(f["n_needed"] for f in figures),',
        (
            "merge: equalized odds reports the rows needed of its easier part "
            "instead of the harder; a user sees n_needed too small for "
            "equalized_odds rows."
        ),
    ),
    m(
        "r13-aud-tol-bonf",
        AUDA,
        ("        row.update(u_tol=u_tol, pvalue_tolerance=min(1.0, len(p) * min(p)))"),
        "        row.update(u_tol=u_tol, pvalue_tolerance=min(1.0, min(p)))",
        (
            "formula: the audit's tolerance p-value of equalized odds drops the "
            "Bonferroni factor 2 over its parts; a user sees pvalue_tolerance halved "
            "for equalized_odds rows."
        ),
    ),
    m(
        "r13-aud-cmp-gap-size",
        AUDA,
        (
            "        size_a, size_b = (np.abs(np.atleast_1d(t[k])).max() for k in "
            '("gap_a", "gap_b"))'
        ),
        (
            "        size_a, size_b = (np.abs(np.atleast_1d(t[k])).min() for k in "
            '("gap_a", "gap_b"))'
        ),
        (
            "merge: the model comparison sizes a multi-part gap by its smallest "
            "component instead of its largest; a user sees 'gap grew' vs 'gap "
            "changed' flip for equalized odds when components move in opposite "
            "directions."
        ),
    ),
    m(
        "r13-aud-verdict-beyond",
        AUDA,
        ('        beyond = f" beyond ±{row[\'u_tol\']:g}" if row.get("u_tol") else ""'),
        ('        beyond = f" beyond ±{row[\'delta\']:g}" if row.get("delta") else ""'),
        (
            "output: the DIFFERENCE verdict names the equivalence margin instead of "
            "the tolerance; a user with tolerance= sees no ' beyond ±u' (or the "
            "wrong margin) in the verdict text."
        ),
    ),
    m(
        "r13-mona-zero-strips",
        MONA,
        ("        pvalue = np.minimum(1.0, np.exp(-self._zero_max[:, : n - 1].min(axis=-1)))"),
        ("        pvalue = np.minimum(1.0, np.exp(-self._zero_max[:, : n - 1].max(axis=-1)))"),
        (
            "formula: the monitor's p-value of no gap takes the stronger of the two "
            "strips bordering 0 instead of the weaker; a user sees p-values too "
            "small (the gap 0 is rejected once only one side is)."
        ),
    ),
    m(
        "r13-mona-within-closed",
        MONA,
        (
            "        within = np.zeros_like(differs) if tol is None else (lower > "
            "-tol) & (upper < tol)"
        ),
        (
            "        within = np.zeros_like(differs) if tol is None else (lower >= "
            "-tol) & (upper <= tol)"
        ),
        (
            "boundary: the monitor calls a sequence FAIR within ±tol when its hull "
            "reaches exactly ±tol (a grid line: every strip beyond tol rejected but "
            "its neighbour open); a user sees 'FAIR within ±tol' one decision too "
            "early."
        ),
    ),
    m(
        "r13-mona-block-growth",
        MONA,
        ("            stop = min(len(y), start + max(MIN_BLOCK, GROWTH * (self.n_rows + start)))"),
        ("            stop = min(len(y), start + max(MIN_BLOCK, GROWTH * self.n_rows))"),
        (
            "allocation: blocks within one update no longer grow with the rows "
            "already used in it; a user updating with one large batch sees many "
            "more, smaller blocks and different e-values, bounds and decided_at than "
            "the same rows fed batch by batch in the documented growth."
        ),
    ),
    m(
        "r13-tol-auto-unbalanced",
        TOLS,
        ("    few = (fewest < EXACT_BELOW) | (unbalanced & (fewest < EXACT_BELOW_UNBALANCED))"),
        ("    few = (fewest < EXACT_BELOW) | (unbalanced | (fewest < EXACT_BELOW_UNBALANCED))"),
        (
            "formula: method='auto' runs the exact test for any comparison with "
            "fewer than 50 events, balanced or not; a user with two balanced groups "
            "of 30 events sees method 'exact' (and its p-value) instead of the score "
            "test."
        ),
    ),
    m(
        "r13-tol-margin-one",
        TOLIN,
        ("    if not np.isfinite(v) or v < 0 or (positive and v == 0) or (bounded and v >= 1):"),
        ("    if not np.isfinite(v) or v < 0 or (positive and v == 0) or (bounded and v > 1):"),
        (
            "boundary: a margin of exactly 1 is accepted for a gap between two "
            "probabilities; a user passing u_tol=1 gets a degenerate result (score "
            "statistic at d = 1) instead of the ValueError."
        ),
    ),
    m(
        "r13-perm-method-mixed",
        PERMI,
        '    method_used = used[0] if len(set(used)) == 1 else "mixed"',
        "    method_used = used[0]",
        (
            "output: a permutation test whose comparisons used different methods "
            "(some exact, some Monte Carlo) reports the first comparison's method "
            "instead of 'mixed'; a user sees method='exact' with Monte-Carlo "
            "p-values for the other comparisons (and no pvalue_interval summary of "
            "them)."
        ),
    ),
    m(
        "r13-perm-midp-fallback",
        PERMI,
        '    if options.mid_p and "monte_carlo" in used:',
        '    if options.mid_p and "asymptotic" in used:',
        (
            "formula: when some comparison falls back to Monte Carlo under "
            "mid_p=True, the exact comparisons keep their mid-p p-values although "
            "the result reports mid_p=False; a user sees exact p-values half a "
            "tie-mass too small next to the warning."
        ),
    ),
    m(
        "r13-exact-na-group",
        EXACT,
        "        n_a = int(counts[0, [c for cat in cats for c in cat]].sum())",
        "        n_a = int(counts[1, [c for cat in cats for c in cat]].sum())",
        (
            "orientation: the exact enumeration draws the second group's stratum "
            "size as the first group's; a user running method='exact' on two groups "
            "of unequal size sees a wrong permutation distribution and p-value."
        ),
    ),
    m(
        "r13-cals-sweep-ceil",
        CALS,
        "        edges = -((-k * n) // b)  # ceil(k n / b): first rank of bin k",
        "        edges = (k * n) // b  # ceil(k n / b): first rank of bin k",
        (
            "formula: the monotonic sweep's trial bins start at floor(k n / b) "
            "instead of ceil(k n / b); when n is not a multiple of b a user sees "
            "different bin boundaries, a different b* and a different sweep ECE."
        ),
    ),
    m(
        "r13-audr-frame-component",
        AUDR,
        (
            "                    if isinstance(rec[key], "
            "list):\n                        rec[key] = rec[key][j]"
        ),
        (
            "                    if isinstance(rec[key], "
            "list):\n                        rec[key] = rec[key][0]"
        ),
        (
            "output: to_frame() gives the fpr row of an equalized-odds test the tpr "
            "component's values, difference and interval; a user sees two identical "
            "component rows."
        ),
    ),
    m(
        "r13-sums-neg-sq-merge",
        SUMS,
        "            x + y + 4 * q * s + 4 * q * q * p\n",
        "            x + y + 4 * q * s + 4 * q * p * p\n",
        (
            "merge: PlacementSums.followed_by shifts the negatives' squared "
            "placements by n_pos_b^2 n_neg_a^2 instead of n_pos_b^2 n_neg_a; a user "
            "merging two score ranges sees a wrong DeLong variance (s01)."
        ),
    ),
    m(
        "r13-cube-dup-names",
        CUBE,
        "        if unknown or len(set(names)) != len(names):",
        "        if unknown:",
        (
            "validation: ConfusionCube.marginal/confusion accept a repeated "
            "attribute (['sex', 'sex']); a user gets a cube with a doubled attribute "
            "instead of the ValueError."
        ),
    ),
    m(
        "r13-cmp-total-sign",
        CMPS,
        "    total = np.maximum(both + cross, 0.0)",
        "    total = np.maximum(both - cross, 0.0)",
        (
            "formula: the variance of the sum of the two models' gaps subtracts the "
            "covariance instead of adding it; a user sees a wrong pvalue_reduced "
            "where model B's gap nears minus model A's (the 'not past -gap_A' "
            "condition decides) for correlated models."
        ),
    ),
    m(
        "r13-cmpr-frame-ci-part",
        CMPR,
        '                    "ci_low": lo[c, j], "ci_high": hi[c, j],',
        '                    "ci_low": lo[c, 0], "ci_high": hi[c, 0],',
        (
            "output: compare_models' to_frame gives every part the interval of the "
            "first part; a user sees the fpr row of equalized odds with the tpr "
            "change's ci_low/ci_high."
        ),
    ),
    m(
        "r13-parr-frame-groups",
        PARR,
        '                "group": np.repeat(self.groups, G),',
        '                "group": np.tile(self.groups, G),',
        (
            "output: the calibration-curve frame cycles group labels row by row "
            "instead of repeating each over its grid; a user with two or more groups "
            "sees rows labelled with the wrong group."
        ),
    ),
    m(
        "r13-plan-scalar-alloc",
        PLANI,
        "        a = np.array([float(a), 1.0 - float(a)])",
        "        a = np.array([1.0 - float(a), float(a)])",
        (
            "orientation: a scalar allocation is taken as the second group's "
            "fraction; a user passing allocation=0.2 for two groups sees the group "
            "sizes swapped (and n/power computed for the swap)."
        ),
    ),
    m(
        "r13-plan-score-direction",
        PLANI,
        "    sign = np.where(r[ref] >= r[oth], 1.0, -1.0)",
        "    sign = np.where(r[ref] >= r[oth], -1.0, 1.0)",
        (
            "orientation: variance='score' fits the restricted rates under U = u_tol "
            "on the side opposite the presumed gap; a user planning with a tolerance "
            "sees a wrong (usually too small or NaN) sample size."
        ),
    ),
]
