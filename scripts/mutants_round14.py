"""Fourteenth-round mutants of issue #36: written from the code alone, without reading the
tests (engineer session "mut14", 2026-11-28, 11:58-12:05 UTC; the code read at 0c1504d, the
worktree's base; every mutant checked to apply on main e3518c7).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges,
validations, result fields and kernel loops, and reading the lines around them); never
tests/, docs/testing.md, the other docs/ pages, validation/, benchmarks/, CHANGELOG.md, the
earlier mutation records or the earlier sets' entries (only the Mutant dataclass of
scripts/mutants.py and the module docstring and file constants of scripts/mutants_round13.py,
for the format; scripts/mutation.py only through --help). README.md, docs/architecture.md,
docs/conventions.md and the spec were not needed and not opened. No test was run and nothing
was built.

Process. 94 candidates were written in five batches (59, 23, 6, 3 and 3). Five were set
aside by the author before the final check: the mid-p tie tolerance made strict and the MDE
<= tau count made strict (each differs only on an exact float tie), the Hoeffding window's
plus-one (no visible difference could be argued), the rows kernel's bitmap one word short
(an out-of-bounds write whose effect is not reliably observable) and the bootstrap
sampler's cost comparison (a performance choice). The other 89 went through the session's
collision check; 46 collided with an earlier set (31, 12, 1, 1 and 1 per batch) and were
dropped, the later batches being replacements at other places or of other kinds. One
candidate's `old` occurred twice and was given more context. 43 mutants, 0 collisions on the
final check (against the 882 earlier mutants).

By file: _score 2, _exact 1, _sequential 1, _validation 3, _clustered 1, resampling 2
(inference), tolerance 2 (inference, results), planning 4 (results 2, ingest 1, statistics
1), calibration 2 (api, inference), wasserstein 2 (api, ingest), compare 3 (inference,
ingest, results), sweep 1 (results), parity 2 (statistics), slices 1 (inference), auditing 3
(api 1, report 2), engines 4 (spark 2, clusters 1, files 1), CLI 1 (arguments), csrc 8 in six
compiled sources (_counts 2, _paired 2, _monitor 1, _runs 1, _rows 1, _slices 1; each needs a
rebuild). Every candidate written for _pvalues, _comparisons, auc, permutation, monitor
(Python), the summaries, cube and dask engines collided with an earlier set; generic.py was
not reached. Kinds (from each ``why``): validation 10, output 9, kernel 8, formula 7,
boundary 5, orientation 3, merge 1. Mutants that only particular inputs reach:
r14-res-comb-cap-ge (a split count exactly at the exact-enumeration cap),
r14-sweep-rej (an adjusted p equal to alpha, e.g. 50/1000 at alpha 0.05),
r14-k-sli-flip (the subset sampler with more successes than failures),
r14-clu-step-ceil (n above QUANTILE_ROWS and not a multiple of it).

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
SEQ = "fastfair/_sequential.py"
VAL = "fastfair/_validation.py"
CLU = "fastfair/_clustered.py"
CMPN = "fastfair/_comparisons.py"
AUCI = "fastfair/auc/inference.py"
RESI = "fastfair/resampling/inference.py"
RESS = "fastfair/resampling/statistics.py"
TOLI = "fastfair/tolerance/inference.py"
TOLG = "fastfair/tolerance/ingest.py"
TOLS = "fastfair/tolerance/statistics.py"
PLANI = "fastfair/planning/inference.py"
PLANG = "fastfair/planning/ingest.py"
PLANR = "fastfair/planning/results.py"
PLANS = "fastfair/planning/statistics.py"
CALA = "fastfair/calibration/api.py"
CALG = "fastfair/calibration/ingest.py"
CALI = "fastfair/calibration/inference.py"
WASA = "fastfair/wasserstein/api.py"
WASG = "fastfair/wasserstein/ingest.py"
CMPI = "fastfair/compare/inference.py"
CMPG = "fastfair/compare/ingest.py"
CMPS = "fastfair/compare/statistics.py"
MONI = "fastfair/monitor/inference.py"
MONG = "fastfair/monitor/ingest.py"
SWI = "fastfair/sweep/inference.py"
SWS = "fastfair/sweep/statistics.py"
SWR = "fastfair/sweep/results.py"
COUNTSK = "csrc/_counts.pyx"
PAIREDK = "csrc/_paired.pyx"
MONK = "csrc/_monitor.pyx"
RUNSK = "csrc/_runs.pyx"
ROWSK = "csrc/_rows.pyx"
MEANSK = "csrc/_means.pyx"
AUDA = "fastfair/auditing/api.py"
AUDR = "fastfair/auditing/results.py"
ENGS = "fastfair/engines/summaries.py"
ENGC = "fastfair/engines/cube.py"
ENGCL = "fastfair/engines/clusters.py"
ENGF = "fastfair/engines/files.py"
CLIA = "fastfair/cli/arguments.py"
SLII = "fastfair/slices/inference.py"
PARI = "fastfair/parity/inference.py"
PARS = "fastfair/parity/statistics.py"
SLIK = "csrc/_slices.pyx"
SPARK = "fastfair/engines/spark.py"
REP = "fastfair/auditing/report.py"
PERMI = "fastfair/permutation/inference.py"
TOLR = "fastfair/tolerance/results.py"
CMPR = "fastfair/compare/results.py"
MONA = "fastfair/monitor/api.py"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r14-score-shrunk-n",
        SCORE,
        "shrunk = r1 * (1.0 - r1) / (n1 + 1.0) + r2 * (1.0 - r2) / (n2 + 1.0)",
        "shrunk = r1 * (1.0 - r1) / n1 + r2 * (1.0 - r2) / n2",
        (
            "formula: the shrunk fallback variance divides by n instead of n + 1; "
            "a Wald z for tables with 0/n or n/n in both groups changes."
        ),
    ),
    m(
        "r14-score-zero-num",
        SCORE,
        "return np.where(np.abs(num) <= 1e-14, 0.0, z)",
        "return np.where(np.abs(num) <= 1e-14, 0.0, -z)",
        (
            "orientation: the score statistic's sign flipped; every one-sided "
            "score p-value is reversed for a group with a higher rate."
        ),
    ),
    m(
        "r14-exact-strata-slack",
        EXACT,
        "p = min(1.0, p + 2 * len(strata) * EXACT_NEGLECTED_MASS)",
        "p = min(1.0, p + 2 * EXACT_NEGLECTED_MASS)",
        (
            "formula: the neglected mass not multiplied by the number of strata; a "
            "stratified exact test with many strata reports a p-value too small by "
            "the neglected bound (anti-conservative)."
        ),
    ),
    m(
        "r14-seq-block-cap",
        SEQ,
        "isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < FIRST_BLOCK",
        "isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap <= FIRST_BLOCK",
        (
            "validation: max_permutations equal to FIRST_BLOCK rejected although "
            "the message says >= FIRST_BLOCK is allowed."
        ),
    ),
    m(
        "r14-val-weights-neg",
        VAL,
        "if (w < 0).any():",
        "if (w < -1.0).any():",
        (
            "validation: weights between -1 and 0 accepted; a user giving a weight "
            "of -0.5 gets a result instead of an error."
        ),
    ),
    m(
        "r14-val-labels-many",
        VAL,
        "if len(values_seen) > 2:",
        "if len(values_seen) > 3:",
        (
            "validation: a label column with three distinct values is accepted as "
            "binary; the user gets a result instead of a ValueError."
        ),
    ),
    m(
        "r14-val-prob-range",
        VAL,
        "outside = (arr < 0) | (arr > 1)",
        "outside = arr > 1",
        (
            "validation: negative probabilities accepted; a score of -0.2 passes "
            "where it must be refused."
        ),
    ),
    m(
        "r14-clu-step-ceil",
        CLU,
        "step = max(1, math.ceil(n / QUANTILE_ROWS))",
        "step = max(1, n // QUANTILE_ROWS)",
        (
            "formula: the systematic subsample step floored; with n between "
            "QUANTILE_ROWS and 2*QUANTILE_ROWS more than QUANTILE_ROWS rows are "
            "kept, changing the bandwidth quantiles."
        ),
    ),
    m(
        "r14-res-welch-small",
        RESI,
        (
            'if options.mode == "welch":\n        small = [labels[g] for g in '
            "np.unique(pairs) if sizes[g] < 2]"
        ),
        (
            'if options.mode == "welch":\n        small = [labels[g] for g in '
            "np.unique(pairs) if sizes[g] < 1]"
        ),
        (
            "validation: a group with one row passes the Welch check; the user "
            "gets NaN results instead of the ValueError."
        ),
    ),
    m(
        "r14-tol-equiv",
        TOLI,
        "equivalent = (p if adjusted is None else adjusted) <= alpha",
        "equivalent = p <= alpha",
        (
            "output: the TOST verdict ignores the adjusted p-value; with several "
            "comparisons a group is declared equivalent on its raw p."
        ),
    ),
    m(
        "r14-plan-ref-range",
        PLANG,
        "if not -k <= r < k:",
        "if not -k < r < k:",
        "validation: reference=-k (the first group from the end) is refused although valid.",
    ),
    m(
        "r14-plan-results-k",
        PLANR,
        'f"Bonferroni alpha {self.alpha:g}/{k - 1}"',
        'f"Bonferroni alpha {self.alpha:g}/{k}"',
        "output: the plan's printout states Bonferroni over k comparisons instead of k - 1.",
    ),
    m(
        "r14-plan-npv-cells",
        PLANS,
        "return np.stack([(1 - pp) * npv, pp * (1 - ppv), (1 - pp) * (1 - npv), pp * ppv], -1)",
        "return np.stack([(1 - pp) * npv, pp * (1 - ppv), pp * (1 - npv), (1 - pp) * ppv], -1)",
        (
            "formula: the simulated confusion cells for PPV/NPV designs swap the "
            "pp shares; simulated power of a PPV plan is wrong."
        ),
    ),
    m(
        "r14-cal-composite",
        CALA,
        (
            "return CompositeParityCheck(W, p, results, float(alpha), "
            "bool(np.all(p >= alpha / len(p))))"
        ),
        "return CompositeParityCheck(W, p, results, float(alpha), bool(np.all(p >= alpha)))",
        (
            "formula: the composite check drops its Bonferroni; a p-value between "
            "alpha/k and alpha fails the check."
        ),
    ),
    m(
        "r14-cal-interp",
        CALI,
        "return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1])",
        "return grid[j - 1] + (v - f0) / (f1 - f0) * (grid[j] - grid[j - 1]) * 0.5",
        (
            "formula: the inverse interpolation moves half the distance; the "
            "returned quantile lies between grid points incorrectly."
        ),
    ),
    m(
        "r14-was-means",
        WASA,
        (
            "means[counts.ravel() > 0] = sums[counts.ravel() > 0] / "
            "counts.ravel()[counts.ravel() > 0]"
        ),
        (
            "means[counts.ravel() > 1] = sums[counts.ravel() > 1] / "
            "counts.ravel()[counts.ravel() > 1]"
        ),
        (
            "boundary: cells with one row get mean 0; a group with a single-row "
            "cell reports a wrong mean."
        ),
    ),
    m(
        "r14-was-ingest-alpha",
        WASG,
        "if not 0.0 < alpha < 1.0:",
        "if not 0.0 <= alpha < 1.0:",
        "validation: alpha = 0 accepted by the Wasserstein test instead of refused.",
    ),
    m(
        "r14-cmp-sign",
        CMPI,
        "return np.where(obs.gap_a >= 0, 1.0, -1.0)",
        "return np.where(obs.gap_a > 0, -1.0, 1.0)",
        (
            "orientation: the direction towards zero flipped for any nonzero gap; "
            "pvalue_reduced of a model that halves the gap is near 1."
        ),
    ),
    m(
        "r14-cmp-ingest-delta",
        CMPG,
        "if not np.isfinite(delta) or delta < 0:",
        "if not np.isfinite(delta) or delta <= 0:",
        "validation: delta = 0 refused although documented as >= 0.",
    ),
    m(
        "r14-sweep-rej",
        SWR,
        "return self.pvalue_adjusted <= self.alpha",
        "return self.pvalue_adjusted < self.alpha",
        (
            "boundary: adjusted p equal to alpha not rejected; with a max-T p of "
            "exactly (1+k)/(1+B) at alpha the verdict differs."
        ),
    ),
    m(
        "r14-k-counts-chunks",
        COUNTSK,
        "totals = partial.sum(axis=0) if n_chunks > 1 else partial[0]",
        "totals = partial[n_chunks - 1]",
        (
            "kernel: only the last chunk's counts kept; inputs longer than one "
            "chunk give wrong counts."
        ),
    ),
    m(
        "r14-k-paired-cell",
        PAIREDK,
        "part[k, codes[i] * 8 + 4 * y[i] + 2 * a[i] + b[i]] += 1",
        "part[k, codes[i] * 8 + 4 * y[i] + a[i] + 2 * b[i]] += 1",
        (
            "kernel: the paired cell index swaps model A and B; discordant counts "
            "are exchanged and compare's changes flip sign."
        ),
    ),
    m(
        "r14-k-mon-w1",
        MONK,
        "cdef double w1 = seen[i, 1] if seen[i, 1] > 1.0 else 1.0",
        "cdef double w1 = seen[i, 1] if seen[i, 1] > 1.0 else 0.0",
        (
            "kernel: a group with no rows gets weight zero instead of one; the "
            "monitor's rates early in the stream become NaN/inf."
        ),
    ),
    m(
        "r14-k-runs-lin",
        RUNSK,
        "w.lin[2 * g + 1] += ep * place",
        "w.lin[2 * g] += ep * place",
        (
            "kernel: positive placements added to the negatives' slot; AUC sums of "
            "the run-length kernel are wrong with ties."
        ),
    ),
    m(
        "r14-aud-edge-rate",
        AUDA,
        "edge = (num <= 0) | (num >= den)",
        "edge = (num <= 0) | (num > den)",
        (
            "boundary: a rate of exactly 1 (num == den) is not shrunk; the audit's "
            "effect for a group with all positives predicted is 1 instead of "
            "(n+1/2)/(n+1)."
        ),
    ),
    m(
        "r14-eng-clu-clusters",
        ENGCL,
        "n_clusters += np.bincount(cgroup, minlength=K)",
        "n_clusters += np.bincount(cgroup, weights=counts, minlength=K).astype(np.int64)",
        (
            "output: the cluster count per group counts rows; the reported number "
            "of clusters equals the rows."
        ),
    ),
    m(
        "r14-eng-files-header",
        ENGF,
        "total += max(round(size * lines / max(len(head), 1)) - 1, 0)  # less the header",
        "total += max(round(size * lines / max(len(head), 1)), 0)  # less the header",
        (
            "output: the estimated row count of a CSV counts the header line; "
            "progress totals are one row high per file."
        ),
    ),
    m(
        "r14-cli-maxrows",
        CLIA,
        "if args.max_rows is not None and args.max_rows < 0:",
        "if args.max_rows is not None and args.max_rows < 1:",
        "validation: --max-rows 0 refused although >= 0 is allowed.",
    ),
    m(
        "r14-sli-twosided",
        SLII,
        "return np.clip(law.cdf(low) + law.sf(high - 1), 0.0, 1.0)",
        "return np.clip(law.cdf(low) + law.sf(high), 0.0, 1.0)",
        (
            "boundary: the upper tail excludes its boundary count; two-sided exact "
            "slice p-values are too small."
        ),
    ),
    m(
        "r14-par-mineff",
        PARS,
        "if not min_effective_clusters >= 1:",
        "if not min_effective_clusters > 1:",
        "validation: min_effective_clusters=1 refused although documented as allowed.",
    ),
    m(
        "r14-par-fastshare",
        PARS,
        "est = np.where(sb > 0, sa / sb, np.nan)",
        "est = np.where(sb > 0, sb / sa, np.nan)",
        "orientation: the ratio estimate inverted; every parity estimate is den/num.",
    ),
    m(
        "r14-k-paired-disc",
        PAIREDK,
        "if discordant[s] > 0:",
        "if discordant[s] > 1:",
        (
            "kernel: strata with a single discordant pair are skipped; the paired "
            "permutation null ignores them and p-values change for small data."
        ),
    ),
    m(
        "r14-k-counts-chunkn",
        COUNTSK,
        "cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK",
        "cdef Py_ssize_t n_chunks = n // CHUNK",
        (
            "kernel: the last partial chunk is dropped; inputs not a multiple of "
            "CHUNK lose their tail rows (and inputs shorter than CHUNK count "
            "nothing)."
        ),
    ),
    m(
        "r14-k-rows-outside",
        ROWSK,
        "outside = row_stratum < 0",
        "outside = row_stratum <= 0",
        "kernel: stratum 0 treated as outside; the rows of the first stratum are never permuted.",
    ),
    m(
        "r14-k-sli-flip",
        SLIK,
        "x[j] = units[j] - (now - below) if flip else now - below",
        "x[j] = now - below if flip else units[j] - (now - below)",
        (
            "kernel: the Floyd subset sampler's flip branches exchanged; with the "
            "subset path every permuted cell count is the failures instead of the "
            "successes (or vice versa), so slice permutation p-values are wrong on "
            "any input using it."
        ),
    ),
    m(
        "r14-spark-user-base",
        SPARK,
        "user = np.cumsum(new, dtype=np.int64) - 1",
        "user = np.cumsum(new, dtype=np.int64)",
        (
            "merge: Spark's per-batch user indices one-based; the last user of a "
            "batch indexes past the users array (error) or rows are assigned to "
            "the next user, so clustered parity from Spark differs."
        ),
    ),
    m(
        "r14-spark-s01",
        SPARK,
        "s01 = np.divide(ss01, n0 - 1, out=np.zeros_like(ss01), where=n0 > 1)",
        "s01 = np.divide(ss01, n0, out=np.zeros_like(ss01), where=n0 > 1)",
        (
            "formula: Spark's negative-placement variance with ddof 0; the Spark "
            "engine's DeLong standard errors differ from the in-memory ones."
        ),
    ),
    m(
        "r14-rep-more",
        REP,
        'more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""',
        'more = f" and {len(failed) - 2} more" if len(failed) > 3 else ""',
        (
            "output: the report says one more failed test than it leaves unnamed "
            "when more than three tests could not run."
        ),
    ),
    m(
        "r14-rep-trunc",
        REP,
        'return text if len(text) <= width else text[: width - 3] + "..."',
        'return text if len(text) <= width else text[: width - 2] + "..."',
        (
            "output: a truncated label is one character wider than the column; "
            "report text columns misalign for long group names."
        ),
    ),
    m(
        "r14-plan-res-k2",
        PLANR,
        "        if k > 2:\n",
        "        if k >= 2:\n",
        (
            "output: a two-group plan's printout gains a 'comparisons: 1 against "
            "reference, Bonferroni alpha/1' line it must not show."
        ),
    ),
    m(
        "r14-tolr-level",
        TOLR,
        'level = f"{100 * (1 - 2 * self.alpha):g}% CI"',
        'level = f"{100 * (1 - self.alpha):g}% CI"',
        (
            "output: the TOST result's printout labels its 1 - 2 alpha interval as "
            "a 1 - alpha CI (95% instead of 90% at alpha 0.05)."
        ),
    ),
    m(
        "r14-cmpr-part-name",
        CMPR,
        "name = f\"{r['group']} vs {r['reference']}\" + (f\" {r['part']}\" if n_p > 1 else \"\")",
        "name = f\"{r['group']} vs {r['reference']}\" + (f\" {r['part']}\" if n_p >= 1 else \"\")",
        (
            "output: the compare result's printed comparison names carry the part "
            "label for a single-part metric (e.g. 'b vs a tpr' style suffix) where "
            "none belongs."
        ),
    ),
    m(
        "r14-res-comb-cap-ge",
        RESI,
        "        if c > cap:",
        "        if c >= cap:",
        (
            "boundary: a split count exactly at the exact-enumeration cap is "
            "treated as too large; the method switches (and the p-value changes) "
            "at that size."
        ),
    ),
]
