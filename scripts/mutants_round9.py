"""Ninth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut9", 2026-11-27, against main b72cbb0).

The author read fastfair/ and csrc/ only (by grepping their comparisons, formulas and result
fields, and reading the functions around them); never tests/, docs/testing.md, validation/,
benchmarks/, CHANGELOG.md, the earlier mutation records or the earlier sets' entries (only
the module docstring and file constants of scripts/mutants_round8.py and the Mutant
dataclass of scripts/mutants.py, for the format). The set is spread over p-values and
multiplicity, the score intervals, the exact enumeration, the exact unconditional test, the
sequential Monte-Carlo machinery, calibration, planning, clustered parity, AUC, compare
(paired), monitor, slices, sweep, tolerance, wasserstein, resampling, the audit, the
engines' merges and outputs (summaries, cube, dask, files, spark), six compiled kernels
(each needs a rebuild), _validation and the CLI.

About a dozen candidates were set aside while reading, before any check, as possibly
equivalent (a tie that rounding makes impossible, a change below the bisection's
precision). The first batch of 65 was then run through the session's collision check
(same file, old and new text as an earlier set's mutant): 31 collided and were dropped; a
second batch of 39 replacements, in other places or other mistakes, was checked the same
way: 12 collided and were dropped (43 collisions of 104 written). Of the 61 left, 5 were
dropped as the weakest (a boundary only an exact float equality reaches, a weighting that
unit weights make equivalent, a formatting edge, a near-duplicate of another resampling
mutant): 56 mutants. By file: _pvalues 3, _score 2, _exact 3, _unconditional 3,
_sequential 2, calibration 1, planning 1, parity 1, _clustered 1, auc 1, compare 2, monitor
1, slices 3, sweep 3, tolerance 2, wasserstein 3, resampling 3, auditing 4, engines 5
(summaries, cube, dask, files, spark 1 each), _validation 3, CLI 3, csrc 6 (_margin_tails,
_monitor, _sweep, _slices, _kernel_sums, ff_rates.h). Kinds (from each ``why``): formula
20, output 8, boundary 6, kernel 6, validation 5, orientation 4, allocation 4, merge 3.
Mutants that only larger inputs reach: r9-eng-dask-tree (an odd number of at least 3
partitions) and r9-eng-files-start (at least 3 batches).

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
CALI = "fastfair/calibration/inference.py"
PLAN = "fastfair/planning/inference.py"
PARI = "fastfair/parity/inference.py"
CLU = "fastfair/_clustered.py"
AUCI = "fastfair/auc/inference.py"
CMPI = "fastfair/compare/inference.py"
CMPS = "fastfair/compare/statistics.py"
MONR = "fastfair/monitor/results.py"
SLI = "fastfair/slices/inference.py"
SLR = "fastfair/slices/results.py"
SWS = "fastfair/sweep/statistics.py"
SWI = "fastfair/sweep/inference.py"
TOLI = "fastfair/tolerance/inference.py"
WAS = "fastfair/wasserstein/inference.py"
RES = "fastfair/resampling/inference.py"
AUD = "fastfair/auditing/api.py"
SUMS = "fastfair/engines/summaries.py"
CUBE = "fastfair/engines/cube.py"
DASK = "fastfair/engines/dask.py"
SPARK = "fastfair/engines/spark.py"
VAL = "fastfair/_validation.py"
CLIC = "fastfair/cli/commands.py"
CLIA = "fastfair/cli/arguments.py"
TAILK = "csrc/_margin_tails.pyx"
MONK = "csrc/_monitor.pyx"
SWEEPK = "csrc/_sweep.pyx"
SLICEK = "csrc/_slices.pyx"
KSUMK = "csrc/_kernel_sums.pyx"
RATESK = "csrc/ff_rates.h"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    # ---- p-values and multiplicity -------------------------------------------------
    m(
        "r9-pv-holm-shift",
        PV,
        "(m - np.arange(m)) * p[order]",
        "(m - np.arange(1, m + 1)) * p[order]",
        "formula (off by one): Holm multiplies the j-th smallest p-value by m - j instead of "
        "m - j + 1; adjusting [0.01, 0.5] gives 0.01 for the first instead of 0.02 (and 0 "
        "for the largest before the running max).",
    ),
    m(
        "r9-pv-wilson-term",
        PV,
        "z * z / (4.0 * n * n)",
        "z * z / (4.0 * n)",
        "formula: the Wilson interval's half-width term z^2/(4 n^2) written z^2/(4 n); the "
        "Monte-Carlo interval of a p-value after B permutations is far too wide (about "
        "+-z/2 around the centre whatever B).",
    ),
    # ---- score intervals -------------------------------------------------------------
    # ---- exact enumeration -----------------------------------------------------------
    m(
        "r9-exact-pmf-ratio",
        EXACT,
        "((x + 1) * (bad - draws + x + 1))",
        "((x + 1) * (bad - draws + x))",
        "formula (off by one): the hypergeometric ratio p(x+1)/p(x) loses the +1 in "
        "(bad - draws + x + 1); every exact permutation p-value of a two-category stratum "
        "is computed from a wrong (or infinite) pmf.",
    ),
    # ---- exact unconditional ---------------------------------------------------------
    m(
        "r9-unc-runs-last-column",
        UNC,
        "keep = hi <= self.n1",
        "keep = hi < self.n1",
        "boundary: a column x2 whose region holds only x1 = n1 is dropped from the runs; the "
        "exact unconditional p-value misses that outcome's probability and is too small "
        "(anti-conservative) for an observed table with x1 = n1.",
    ),
    # ---- sequential Monte Carlo ------------------------------------------------------
    m(
        "r9-seq-mixture-log",
        SEQ,
        "math.log(n + 1.0) + math.lgamma(n + 1.0)",
        "math.log(n) + math.lgamma(n + 1.0)",
        "formula: Robbins' mixture likelihood ratio uses log n instead of log(n + 1); the "
        "confidence sequence is too narrow (robbins_interval(0, 250, 1e-3) upper end below "
        "0.0485) and the resampling risk exceeds epsilon.",
    ),
    # ---- calibration -----------------------------------------------------------------
    # ---- planning --------------------------------------------------------------------
    # ---- parity and clustered --------------------------------------------------------
    m(
        "r9-par-welch-df",
        PARI,
        "var[1] ** 2 / df[1])",
        "var[1] ** 2 / df[0])",
        "formula (swapped argument): the Welch-Satterthwaite df of two groups' difference "
        "divides the second group's term by the first group's df; pointwise p-values with "
        "small_sample='cr2' differ when the groups' df differ.",
    ),
    m(
        "r9-clu-below-strict",
        CLU,
        "gcodes[s <= threshold]",
        "gcodes[s < threshold]",
        "boundary: rows scored exactly at the threshold are not counted 'at or below' it; "
        "the reported rows per group below the threshold miss them (scores on a grid).",
    ),
    # ---- AUC -------------------------------------------------------------------------
    m(
        "r9-auc-shrink-pair",
        AUCI,
        "shrunk = (auc * n_pairs + 0.5) / (n_pairs + 1.0)",
        "shrunk = (auc * n_pairs + 1.0) / (n_pairs + 1.0)",
        "formula: the zero-variance rule shrinks by a whole pseudo-pair; an AUC of 1 stays "
        "1, its fallback variance is 0 and the DeLong statistic of AUC 1 vs 1 with constant "
        "placements is wrong (infinite against a separable group).",
    ),
    # ---- compare (paired) ------------------------------------------------------------
    m(
        "r9-cmp-cov-mean",
        CMPS,
        "sxy = np.bincount(codes, (x - mx[codes]) * (y - my[codes]), n_groups)",
        "sxy = np.bincount(codes, (x - mx[codes]) * (y - mx[codes]), n_groups)",
        "formula: the within-group covariance centres y at x's mean; the paired covariance "
        "is wrong whenever the two columns' means differ, and so are the paired variances.",
    ),
    # ---- monitor ---------------------------------------------------------------------
    m(
        "r9-mon-ref-denominator",
        MONR,
        '"reference_denominator": int(self.denominators[i, 0]),',
        '"reference_denominator": int(self.denominators[i, g]),',
        "output: to_frame's reference_denominator shows the group's denominator; with 300 "
        "reference and 120 group rows the column reads 120.",
    ),
    # ---- slices ----------------------------------------------------------------------
    m(
        "r9-sli-agresti-size",
        SLI,
        "p2 = (other * n_other + 1.0) / (n_other + 2.0)",
        "p2 = (other * n + 1.0) / (n_other + 2.0)",
        "formula (swapped argument): the complement's Agresti-Caffo rate uses the slice's "
        "size; a small slice's simultaneous interval is far too narrow or wide.",
    ),
    m(
        "r9-sli-complement-field",
        SLR,
        '"complement_value": self.complement_value,',
        '"complement_value": self.value,',
        "output: to_frame's complement_value column repeats the slice's own value.",
    ),
    # ---- sweep -----------------------------------------------------------------------
    m(
        "r9-swp-difference-orient",
        SWI,
        "difference=rates.rate[:, 0] - rates.rate[:, 1],",
        "difference=rates.rate[:, 1] - rates.rate[:, 0],",
        "orientation: the sweep's difference is reference minus group, the opposite sign of "
        "its statistic and of the band.",
    ),
    # ---- tolerance -------------------------------------------------------------------
    m(
        "r9-tol-stat-pick",
        TOLI,
        "stat = np.where(p_up <= p_low, z_up, z_low)",
        "stat = np.where(p_up <= p_low, z_low, z_up)",
        "output: the two-sided tolerance test reports the statistic of the side with the "
        "larger p-value; statistic and p-value disagree (a gap of 0.2 with u_tol 0.05 "
        "shows a negative Z).",
    ),
    m(
        "r9-tol-equivalence-alpha",
        TOLI,
        "if alpha >= 0.5:",
        "if alpha > 0.5:",
        "validation: equivalence_test accepts alpha=0.5 (a 1 - 2 alpha = 0 level interval) "
        "instead of raising ValueError.",
    ),
    # ---- wasserstein -----------------------------------------------------------------
    m(
        "r9-was-single-weight",
        WAS,
        "return pvalue, float(w[0] * special.chdtri(1, alpha))",
        "return pvalue, float(special.chdtri(1, alpha))",
        "formula: with one non-zero weight the critical value is chi2_1's, not scaled by the "
        "weight; equal-opportunity tests reject (or not) against the wrong threshold.",
    ),
    m(
        "r9-was-integrand",
        WAS,
        "w1 * math.sin(phi) ** 2",
        "w1 * math.cos(phi) ** 2",
        "formula: the two-weight chi-square mixture's integrand uses cos^2 for both "
        "weights; its p-value is that of (w0 + w1) chi2_2 / 2-ish, wrong when w0 != w1.",
    ),
    # ---- resampling ------------------------------------------------------------------
    m(
        "r9-res-weighted-var",
        RES,
        "(w * w * (v - m) ** 2).sum(axis=-1)",
        "(w * (v - m) ** 2).sum(axis=-1)",
        "formula: the variance of a weighted mean uses w instead of w^2; with non-unit "
        "sample weights the studentized statistic and its p-value change.",
    ),
    m(
        "r9-res-welch-df",
        RES,
        "ub**2 / (nb - 1)",
        "ub**2 / (na - 1)",
        "formula (swapped argument): the Welch-Satterthwaite df uses group A's size for "
        "group B's term; the asymptotic p-value with 5 vs 50 rows is wrong.",
    ),
    m(
        "r9-res-boot-level",
        RES,
        "np.quantile(d, [a_level / 2, 1 - a_level / 2])",
        "np.quantile(d, [a_level, 1 - a_level])",
        "formula: the basic bootstrap interval uses the alpha and 1 - alpha quantiles; a "
        "95% interval has about 90% coverage (too narrow).",
    ),
    # ---- audit -----------------------------------------------------------------------
    m(
        "r9-aud-n-reference",
        AUD,
        "n_reference=as_number(dens[1]),",
        "n_reference=as_number(dens[0]),",
        "output: an audit row's n_reference shows the group's denominator (the tested "
        "group's positives for TPR).",
    ),
    m(
        "r9-aud-gap-grew",
        AUD,
        '"gap grew" if size_b > size_a else "gap changed"',
        '"gap grew" if size_b < size_a else "gap changed"',
        "orientation: a significant change with model B's gap larger is labelled 'gap "
        "changed' and one with B's smaller 'gap grew' in the model comparison.",
    ),
    # ---- engines ---------------------------------------------------------------------
    m(
        "r9-eng-followed-square",
        SUMS,
        "x + y + 4 * p * s + 4 * p * p * q",
        "x + y + 2 * p * s + 4 * p * p * q",
        "merge: followed_by shifts the positives' sum of squared placements with 2 p s "
        "instead of 4 p s; the merged DeLong variance differs from the one of all rows.",
    ),
    m(
        "r9-eng-cube-columns",
        CUBE,
        'columns.update(zip(("tn", "fp", "fn", "tp"), self.counts.T))',
        'columns.update(zip(("tn", "fn", "fp", "tp"), self.counts.T))',
        "output: ConfusionCube.to_frame labels the FP counts 'fn' and the FN counts 'fp'.",
    ),
    m(
        "r9-eng-dask-tree",
        DASK,
        "for k in range(0, len(layer), split_every):",
        "for k in range(0, len(layer) - 1, split_every):",
        "merge (off by one): the dask tree reduction drops the last partition of a layer "
        "with an odd count; a frame in 3 partitions is audited without its last partition.",
    ),
    # ---- compiled kernels ------------------------------------------------------------
    m(
        "r9-k-monitor-gap",
        MONK,
        "gap[i] = p1 - p2",
        "gap[i] = p2 - p1",
        "kernel (orientation): the plug-in gap has the wrong sign, so every strip bets on "
        "the side away from the data; the monitor's sequence barely narrows on a real gap.",
    ),
    m(
        "r9-k-slices-less",
        SLICEK,
        "    return -z",
        "    return z",
        "kernel (orientation): the slice search's permutations orient alternative='less' "
        "like 'greater'; maxT p-values for 'less' come from the wrong tail.",
    ),
    m(
        "r9-k-rates-shrink",
        RATESK,
        "r_b = (m_b * n_b + 0.5) / (n_b + 1.0)",
        "r_b = (m_b * n_b + 0.5) / (n_a + 1.0)",
        "kernel (swapped argument): the shrunk rate of group B divides by group A's size; a "
        "permutation statistic with both rates in {0, 1} and unequal sizes is wrong.",
    ),
    # ---- _validation and the CLI -----------------------------------------------------
    m(
        "r9-val-bool-false",
        VAL,
        "return (~arr).view(np.uint8)",
        "return arr.view(np.uint8)",
        "validation/orientation: a boolean label with pos_label=False keeps True as the "
        "positive class; every rate is the complement's.",
    ),
    m(
        "r9-val-pos-missing",
        VAL,
        "if len(values_seen) == 2 or require_pos:",
        "if len(values_seen) == 2 and require_pos:",
        "validation: a one-valued label column with a pos_label that never occurs is "
        "accepted (all negatives) instead of raising ValueError naming pos_label.",
    ),
    m(
        "r9-cli-exit-status",
        CLIC,
        "file=sys.stderr)\n        return 2",
        "file=sys.stderr)\n        return 1",
        "output: a usage or input error exits with status 1 instead of the documented 2.",
    ),
    m(
        "r9-cli-equivalence-arg",
        CLIA,
        "equivalence=args.equivalence,",
        "equivalence=args.tolerance,",
        "output: fastfair audit passes --tolerance as the equivalence margin; an audit with "
        "--tolerance 0.05 also runs equivalence tests, without --equivalence.",
    ),
    # ---- second batch: written after the collision check (replacements) ------------
    m(
        "r9-pv-family-two",
        PV,
        "if len(pvalues) < 2:",
        "if len(pvalues) <= 2:",
        "boundary: a family of exactly two comparisons gets no adjusted p-values (None); a "
        "test with three groups (two comparisons with the reference) reports pvalue_adjusted "
        "None instead of Holm's.",
    ),
    m(
        "r9-score-shrink-never",
        SCORE,
        "return np.where(var > 0, var, shrunk)",
        "return np.where(var >= 0, var, shrunk)",
        "boundary: the zero plug-in variance (both rates 0 or 1) is never replaced by the "
        "shrunk one; the Wald statistic of 0/20 vs 20/20 is infinite instead of finite.",
    ),
    m(
        "r9-score-interval-z",
        SCORE,
        "    z = special.ndtri(0.5 + confidence_level / 2.0)\n    return score_bound(",
        "    z = special.ndtri(confidence_level)\n    return score_bound(",
        "formula: the two-sided score interval uses the one-sided quantile z_{0.95} = 1.645 "
        "for a 95% level; every Miettinen-Nurminen interval is too narrow.",
    ),
    m(
        "r9-exact-sep-midp",
        EXACT,
        "p -= 0.5 * math.fsum(p1 * (tail[lo] - tail[hi]))",
        "p -= math.fsum(p1 * (tail[lo] - tail[hi]))",
        "formula: the separable (equalized odds) exact p-value with mid_p subtracts all of "
        "the tied mass instead of half; mid-p p-values of equalized odds are too small.",
    ),
    m(
        "r9-exact-three-zero",
        EXACT,
        "ok = (x3 >= 0) & (x3 <= sizes[2])",
        "ok = (x3 > 0) & (x3 <= sizes[2])",
        "boundary: the three-category stratum drops every table whose third count is 0; the "
        "exact distribution (renormalised) is wrong and so is the exact p-value of a metric "
        "with three free cells (e.g. accuracy conditional strata).",
    ),
    m(
        "r9-unc-bound-side",
        UNC,
        'test = "greater" if side == "lower" else "less"',
        'test = "less" if side == "lower" else "greater"',
        "orientation: the exact interval's lower end inverts the test of H0: p1 - p2 >= d; "
        "the bisection's rejections point the wrong way and the exact interval collapses "
        "to an end of its search range.",
    ),
    m(
        "r9-unc-nuisance-range",
        UNC,
        "self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)",
        "self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 + self.d)",
        "boundary: the nuisance range of p2 ends at 1 + d instead of 1 - d; for a negative "
        "margin (the lower side of a tolerance test) the supremum misses p2 in (1 + d, 1] "
        "and the exact p-value is too small.",
    ),
    m(
        "r9-seq-cap-min",
        SEQ,
        "or cap < FIRST_BLOCK",
        "or cap <= FIRST_BLOCK",
        "validation (boundary): Sequential(max_permutations=16), the documented smallest "
        "cap, raises ValueError.",
    ),
    m(
        "r9-cal-rate-range",
        CALI,
        "v_hi = min(float(f[-1]) for f in fmono)",
        "v_hi = max(float(f[-1]) for f in fmono)",
        "allocation: the common outcome's upper end is the largest group's end instead of "
        "the smallest; some group has no threshold there and fair thresholds keeping a rate "
        "fail with 'no thresholds keep the overall positive rate'.",
    ),
    m(
        "r9-plan-score-swap",
        PLAN,
        "return np.max((z * np.sqrt(v_null) + zb * np.sqrt(v_alt)) ** 2 / gap**2, axis=-1)",
        "return np.max((z * np.sqrt(v_alt) + zb * np.sqrt(v_null)) ** 2 / gap**2, axis=-1)",
        "formula (swapped argument): the score test's sample size puts z_alpha on the "
        "alternative's variance and z_beta on the restricted one; variance='score' plans "
        "differ whenever the two variances differ.",
    ),
    m(
        "r9-cmp-past-sign",
        CMPI,
        "special.ndtr(-total / np.where(sd > 0, sd, 1.0))",
        "special.ndtr(total / np.where(sd > 0, sd, 1.0))",
        "formula (sign): the 'not past -d_A' p-value takes the wrong tail; a model B that "
        "clearly shrinks the gap without overshooting gets p near 1, 'no evidence'.",
    ),
    m(
        "r9-sli-one-sided",
        SLI,
        'lower = diff - critical * se if alternative != "less"',
        'lower = diff - critical * se if alternative != "greater"',
        "orientation: for alternative='greater' the slice interval's lower bound is open "
        "(-1) and for 'less' it is finite: the one-sided bound on the wrong side.",
    ),
    m(
        "r9-swp-code-layout",
        SWS,
        "code = (2 * sweep.second + sweep.y).astype(np.uint8)",
        "code = (sweep.second + 2 * sweep.y).astype(np.uint8)",
        "allocation: the sweep codes rows 2 y + g instead of 2 g + y; the group's positives "
        "are counted as the reference's negatives and every rate of the sweep is wrong.",
    ),
    m(
        "r9-swp-scale-sign",
        SWS,
        "scale = np.where(positive, (1 / den[:, 0, 0] + 1 / den[:, 1, 0]) / safe_se, 0.0)",
        "scale = np.where(positive, (1 / den[:, 0, 0] - 1 / den[:, 1, 0]) / safe_se, 0.0)",
        "formula (sign): the permutation statistic's slope in group A's numerator uses "
        "1/den_A - 1/den_B; the permuted statistics (and pointwise and maxT p-values) are "
        "wrong while the observed ones are right.",
    ),
    m(
        "r9-was-stat-n",
        WAS,
        'stat_parts = np.array([n * p["R"] for p in parts])',
        'stat_parts = np.array([p["R"] for p in parts])',
        "formula: the statistic is sum R without the factor n; the Wasserstein test never "
        "rejects (statistic ~ 1/n of its value).",
    ),
    m(
        "r9-aud-equivalence-raw",
        AUD,
        'within = row.get("pvalue_equivalence_adjusted", 1.0) <= alpha',
        'within = row.get("pvalue_equivalence", 1.0) <= alpha',
        "allocation (family): the 'FAIR within' verdict uses the unadjusted equivalence "
        "p-value; with several comparisons a row whose adjusted p-value exceeds alpha is "
        "still declared equivalent.",
    ),
    m(
        "r9-aud-reduced-raw",
        AUD,
        'if t["pvalue_reduced_adjusted"] <= alpha:',
        'if t["pvalue_reduced"] <= alpha:',
        "allocation (family): the model comparison's 'gap shrank' verdict uses the "
        "unadjusted p-value; with several comparisons it is declared where the adjusted one "
        "exceeds alpha.",
    ),
    m(
        "r9-eng-files-start",
        "fastfair/engines/files.py",
        "start += len(p)",
        "start = len(p)",
        "merge: the group codes of the third and later batches overwrite the second's; a "
        "file read in three or more batches gets wrong group codes.",
    ),
    m(
        "r9-eng-spark-ddof",
        SPARK,
        "s10 = np.divide(ss10, n1 - 1, out=np.zeros_like(ss10), where=n1 > 1)",
        "s10 = np.divide(ss10, n1, out=np.zeros_like(ss10), where=n1 > 1)",
        "formula (n vs n - 1): the Spark DeLong variance of the positives' placements uses "
        "ddof 0; Spark's AUC variances differ from the in-memory ones.",
    ),
    m(
        "r9-k-tail-pmf",
        TAILK,
        "out[k - lo] = exp(logc[k] + k * lp + (n - k) * lq)",
        "out[k - lo] = exp(logc[k] + k * lp + (n - k - 1) * lq)",
        "kernel (off by one): the binomial pmf has (1 - p)^(n - k - 1); the exact "
        "unconditional tail probabilities are too large by 1/(1 - p) and p-values wrong.",
    ),
    m(
        "r9-k-sweep-cumsum",
        SWEEPK,
        "return np.cumsum(per_bin[::-1], axis=0)[::-1][1:].copy()",
        "return np.cumsum(per_bin[::-1], axis=0)[::-1][:-1].copy()",
        "kernel (off by one): the counts at or above threshold k are those at or above "
        "threshold k - 1 (bin k - 1 included); every count of the sweep is shifted.",
    ),
    m(
        "r9-k-ksums-b4",
        KSUMK,
        "acc[(6 * K + g) * G + j] += b2 * b2",
        "acc[(6 * K + g) * G + j] += b2",
        "kernel: sum_b4 accumulates b^2 instead of b^4; the Satterthwaite df of the clustered "
        "parity curve (fast path) is wrong, and so are its t-based p-values.",
    ),
    m(
        "r9-val-weights-any",
        VAL,
        "if (w < 0).any():",
        "if (w < 0).all():",
        "validation: sample weights with some negative entries are accepted (only all "
        "negative ones raise); a weight of -1 silently enters the sums.",
    ),
    m(
        "r9-cli-summary-order",
        CLIC,
        "found = f\"{s['n_differences']} of {s['n_tests']} tests show a DIFFERENCE\"",
        "found = f\"{s['n_tests']} of {s['n_differences']} tests show a DIFFERENCE\"",
        "output: the summary line on stderr says '12 of 1 tests show a DIFFERENCE' "
        "(numbers swapped).",
    ),
]
