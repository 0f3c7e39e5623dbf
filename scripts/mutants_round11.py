"""Eleventh-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut11", 2026-11-28, against main 20845ee).

The author read fastfair/ and csrc/ only (grepping their comparisons, formulas, merges,
validations and result fields, and reading the functions around them); never tests/,
docs/testing.md, the other docs/ pages, validation/, benchmarks/, CHANGELOG.md, the earlier
mutation records or the earlier sets' entries (only the module docstring and file constants
of scripts/mutants_round10.py and the Mutant dataclass of scripts/mutants.py, for the
format). README.md, docs/architecture.md, docs/conventions.md and the spec were not needed
and not opened. No test was run.

Process. Candidates that need an exact float tie (p <= alpha against p < alpha, a strict
comparison of a continuous statistic) or that seemed equivalent (a complement draw that
only changes speed, shifted dask row offsets, the intersection guard of a single
attribute, the m <= 1 shortcut of adjust_pvalues, a re-centring term whose mean is the AUC)
were set aside while reading, before any check. 131 were written in seven batches of 74,
26, 15, 10, 2, 3 and 1 and each batch run through the session's collision check (same file
and the same old and new text as an earlier set's mutant, or the same new text for the
same line): 45, 5, 5, 4, 0, 2 and 1 collided (62 of 131) and were dropped; the later
batches are their replacements, other places or other mistakes. 69 mutants, 0 collisions
on the final check.

By file: _pvalues 1, _score 2, _exact 1, _unconditional 1, _sequential 1, _comparisons 1,
_confusion 1, _groups 1, _format 1, _clustered 1, _validation 2, auc 1 (api), permutation 1,
resampling 6 (statistics 3, inference 2, api 1), tolerance 2, planning 6 (inference 3,
statistics 2, api 1), calibration 4 (statistics 2, inference 1, api 1), parity 5
(inference 3, statistics 1, api 1), compare 1, monitor 2 (ingest), slices 2 (api), sweep 1,
wasserstein 2 (api, inference), auditing 8 (api 5, report 2, results 1), engines 5
(summaries 3, spark 1, files 1), CLI 3 (arguments), csrc 7 in six compiled sources
(_kernel_sums 2, _margin_tails, _rows, _slices, _wasserstein, ff_rates.h 1 each; each needs
a rebuild). Kinds (from each ``why``): formula 21, validation 14, orientation 12,
boundary 7, kernel 7, output 6, allocation 2. Every candidate for the cube, dask and
clusters engines collided with an earlier set and none is left. Mutants that only
particular inputs reach: r11-spark-v10-below (two or more range partitions),
r11-par-f-scale and r11-plan-neyman-k (three or more groups), r11-unc-p2-range (a margin
u_tol != 0), r11-k-ks-walk (the Gaussian kernel on a uniform grid), r11-k-ks-epan
(kernel='epanechnikov'), r11-clu-undersmooth (undersmooth > 0), r11-val-lookup-labels
(integer groups not starting at 0), r11-conf-zero-count (an object counts table).

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
RESI = "fastfair/resampling/inference.py"
RESS = "fastfair/resampling/statistics.py"
TOLS = "fastfair/tolerance/statistics.py"
PLAN = "fastfair/planning/inference.py"
CALI = "fastfair/calibration/inference.py"
CALS = "fastfair/calibration/statistics.py"
PARI = "fastfair/parity/inference.py"
CMPS = "fastfair/compare/statistics.py"
WASI = "fastfair/wasserstein/inference.py"
AUD = "fastfair/auditing/api.py"
RES = "fastfair/auditing/results.py"
REP = "fastfair/auditing/report.py"
SUMS = "fastfair/engines/summaries.py"
SPARK = "fastfair/engines/spark.py"
FILES = "fastfair/engines/files.py"
VAL = "fastfair/_validation.py"
CLIA = "fastfair/cli/arguments.py"
RATESK = "csrc/ff_rates.h"
MARGK = "csrc/_margin_tails.pyx"
RESA = "fastfair/resampling/api.py"
CALA = "fastfair/calibration/api.py"
PLANA = "fastfair/planning/api.py"
PARA = "fastfair/parity/api.py"
SLIA = "fastfair/slices/api.py"
PARS = "fastfair/parity/statistics.py"
PLANS = "fastfair/planning/statistics.py"
SWI = "fastfair/sweep/inference.py"
CLUSD = "fastfair/_clustered.py"
COMP = "fastfair/_comparisons.py"
FMT = "fastfair/_format.py"
MONIN = "fastfair/monitor/ingest.py"
WASA = "fastfair/wasserstein/api.py"
AUCA = "fastfair/auc/api.py"
UNC = "fastfair/_unconditional.py"
CONF = "fastfair/_confusion.py"
GRP = "fastfair/_groups.py"
PERMI = "fastfair/permutation/inference.py"
KSUMK = "csrc/_kernel_sums.pyx"
WASK = "csrc/_wasserstein.pyx"
SLICK = "csrc/_slices.pyx"
ROWSK = "csrc/_rows.pyx"


def m(id, file, old, new, why):
    return Mutant(id=id, file=file, old=old, new=new, tests=(), why=why)


MUTANTS = [
    m(
        "r11-score-shrink-half",
        SCORE,
        "r1, r2 = (p1 * n1 + 0.5) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)",
        "r1, r2 = (p1 * n1 + 1.0) / (n1 + 1.0), (p2 * n2 + 0.5) / (n2 + 1.0)",
        (
            "formula: the zero-variance shrinkage of group 1 adds a whole pseudo-event; "
            "a group with rate 0 or 1 (zero plug-in variance) gets a different shrunk "
            "variance, so the unpooled Wald statistic of 0/10 vs 10/10 changes."
        ),
    ),
    m(
        "r11-score-scalar-corr",
        SCORE,
        "var *= (n1 + n2) / max(n1 + n2 - 1.0, 1e-300)",
        "var *= (n1 + n2) / max(n1 + n2 + 1.0, 1e-300)",
        (
            "formula: the scalar path's Miettinen-Nurminen variance factor N/(N+1) "
            "instead of N/(N-1); score intervals of a few comparisons (the usual case, "
            "<=64) are narrower than the array path's, visible on 5/10 vs 2/10."
        ),
    ),
    m(
        "r11-exact-window-lo",
        EXACT,
        "lo, hi = max(0, draws - bad), min(draws, good)",
        "lo, hi = max(0, draws - good), min(draws, good)",
        (
            "boundary: the hypergeometric support's lower end uses good instead of bad; "
            "when draws exceed the bad count (e.g. a group of 8 rows in a stratum of 10 "
            "with 3 events) impossible counts get mass and the exact p-value is wrong."
        ),
    ),
    m(
        "r11-seq-thresh-bonf",
        SEQ,
        "        return alpha / m, alpha / m\n    return alpha, alpha / m",
        "        return alpha / m, alpha / m\n    return alpha / m, alpha / m",
        (
            "formula: Holm/BH sequential thresholds take alpha/m as the largest level; "
            "sequential Monte-Carlo stops on a decision for Holm at the Bonferroni "
            "level, so a p-value between alpha/m and alpha is called undecided/not "
            "rejected wrongly."
        ),
    ),
    m(
        "r11-res-studentized-var",
        RESI,
        ('var = np.mean((boot - t_obs) ** 2) if mode == "bootstrap" else np.var(boot, ddof=1)'),
        ('var = np.var(boot, ddof=1) if mode == "bootstrap" else np.mean((boot - t_obs) ** 2)'),
        (
            "orientation: the bootstrap-studentized modes swap their variance estimates "
            "(around the observed value vs the bootstrap mean); the reported se differs "
            "whenever the bootstrap is biased (a ratio metric on small groups)."
        ),
    ),
    m(
        "r11-res-welch-sums",
        RESS,
        "var_b = np.maximum(s2b - s1b * mb, 0.0) / (nb - 1)",
        "var_b = np.maximum(s2b - s1b * mb, 0.0) / nb",
        (
            "formula: the permuted Welch statistic's second variance uses ddof 0; a "
            "studentized permutation test of means on unequal groups gives a different "
            "p-value."
        ),
    ),
    m(
        "r11-res-basic-p",
        RESI,
        ('p = {"two-sided": min(1.0, 2 * min(upper, lower)), "greater": upper, "less": lower}'),
        ('p = {"two-sided": min(1.0, 2 * min(upper, lower)), "greater": lower, "less": upper}'),
        (
            "orientation: the basic bootstrap's one-sided p-values are swapped; "
            "alternative='greater' with group a clearly above b gives p near 1."
        ),
    ),
    m(
        "r11-tol-auc-df",
        TOLS,
        "np.maximum(np.minimum(n_pos, n_neg) - 1.0, 1.0)",
        "np.maximum(np.maximum(n_pos, n_neg) - 1.0, 1.0)",
        (
            "formula: the AUC test's t reference takes the larger class's degrees of "
            "freedom; with 5 positives and 200 negatives the t-based AUC margin p-value "
            "is too small."
        ),
    ),
    m(
        "r11-plan-tost",
        PLAN,
        ("pw = special.ndtr((delta - a) / se - z) + special.ndtr((delta + a) / se - z) - 1.0"),
        ("pw = special.ndtr((delta - a) / se - z) + special.ndtr((delta + a) / se + z) - 1.0"),
        (
            "formula: the TOST power's second tail adds z; planned equivalence power is "
            "too high (e.g. power_at_tau for tau 0.05, delta 0)."
        ),
    ),
    m(
        "r11-plan-score-valt",
        PLAN,
        "v_alt = r[ref] * (1 - r[ref]) / n1 + r[oth] * (1 - r[oth]) / n2",
        "v_alt = r[ref] * (1 - r[ref]) / n1 + r[oth] * (1 - r[oth]) / n1",
        (
            "formula: the score-test planning variance under the alternative divides the "
            "other group's term by the reference's n; with unequal allocation or "
            "prevalences variance='score' returns a wrong n."
        ),
    ),
    m(
        "r11-cal-bisect-orient",
        CALI,
        "        if overall(mid) > target:\n            a = mid",
        "        if overall(mid) < target:\n            a = mid",
        (
            "orientation: the bisection for a common positive rate moves the wrong end; "
            "equal-rate thresholds land at an end of the range and the achieved overall "
            "rate misses the target."
        ),
    ),
    m(
        "r11-par-shrink",
        PARI,
        "shrunk = (est / scale * n_eff + 0.5) / (n_eff + 1.0)",
        "shrunk = (est / scale * n_eff + 0.5) / (n_eff + 2.0)",
        (
            "formula: the degenerate-variance floor's shrunk rate divides by n_eff+2; a "
            "parity test where one group's outcome is constant at a point gets a "
            "different floor variance and z."
        ),
    ),
    m(
        "r11-par-f-scale",
        PARI,
        "special.fdtrc(K - 1, np.where(finite, dfw, 1.0), sq / (K - 1))",
        "special.fdtrc(K - 1, np.where(finite, dfw, 1.0), sq)",
        (
            "formula: the F reference of three or more groups is evaluated at W instead "
            "of W/(K-1); parity p-values of 3 groups with finite df are far too small."
        ),
    ),
    m(
        "r11-par-pooled-sigma",
        PARI,
        "var = np.where(sb > 0, np.maximum(num, sigma2 * sbb) / (sb * sb), np.nan)",
        "var = np.where(sb > 0, np.minimum(num, sigma2 * sbb) / (sb * sb), np.nan)",
        (
            "formula: the pooled variance floor becomes a ceiling; the calibration-curve "
            "parity standard errors shrink where a group's own residual variance is "
            "above the pooled one."
        ),
    ),
    m(
        "r11-cmp-cross-sign",
        CMPS,
        "        cross += 2.0 * m.covariance[..., h, :]\n",
        "        cross -= 2.0 * m.covariance[..., h, :]\n",
        (
            "formula: the paired covariance adds to the variance of the change instead "
            "of subtracting; compare_models on positively correlated predictions gives a "
            "too-small statistic (pairing gains nothing)."
        ),
    ),
    m(
        "r11-was-common-n",
        WASI,
        "common = sum(hc.sum() for hc in h) / sum(len(hc) for hc in h)",
        "common = sum(hc.sum() for hc in h) / n",
        (
            "formula: the label's mean of h divides by all rows instead of the label's "
            "rows; the plug-in theta (and the Wasserstein test's critical value) is "
            "wrong whenever the label has fewer rows than the data."
        ),
    ),
    m(
        "r11-aud-planner-share",
        AUD,
        "share = den if direct else n - den",
        "share = n - den if direct else den",
        (
            "orientation: the planner's prevalence/selection share is complemented; for "
            "TPR at prevalence 0.2 the audit's mde, power_at_tau and n_needed are those "
            "of prevalence 0.8."
        ),
    ),
    m(
        "r11-aud-ref-largest",
        AUD,
        "return int(np.argmax(np.where(attr.tested, attr.sizes, -1)))",
        "return int(np.argmax(np.where(attr.tested, -attr.sizes, -np.inf)))",
        (
            "orientation: the default reference is the smallest tested group instead of "
            "the largest; every audit row compares with the wrong reference "
            "(result.tests 'reference' column)."
        ),
    ),
    m(
        "r11-sum-welch-n2",
        SUMS,
        (
            "            if self.n[k] < 2:\n                raise "
            'ValueError(\n                    f"group {show_value(self.labels[k])} has '
            '{self.n[k]} row(s): its variance "'
        ),
        (
            "            if self.n[k] <= 2:\n                raise "
            'ValueError(\n                    f"group {show_value(self.labels[k])} has '
            '{self.n[k]} row(s): its variance "'
        ),
        (
            "validation: MeanStats.welch rejects a group of exactly 2 rows, whose "
            "variance is defined; a valid input raises ValueError."
        ),
    ),
    m(
        "r11-val-weight-zero",
        VAL,
        ('    if (w < 0).any():\n        raise ValueError(f"{name} must be non-negative")'),
        ('    if (w <= 0).any():\n        raise ValueError(f"{name} must be non-negative")'),
        (
            "validation: a sample_weight of 0 on some row is refused; valid weights with "
            "a zero raise 'must be non-negative'."
        ),
    ),
    m(
        "r11-val-lookup-labels",
        VAL,
        "labels = (np.flatnonzero(present) + lo).astype(arr.dtype)",
        "labels = np.flatnonzero(present).astype(arr.dtype)",
        (
            "output: integer group labels are reported shifted to start at 0; groups 1 "
            "and 2 appear as 0 and 1 in every result."
        ),
    ),
    m(
        "r11-res-largest-pool",
        RES,
        "        pool = found or scalar\n",
        "        pool = scalar\n",
        (
            "output: the summary's 'largest' difference ignores significance; when a "
            "larger non-significant difference exists the report's headline names it "
            "instead of the largest significant one."
        ),
    ),
    m(
        "r11-rep-clip",
        REP,
        'return text if len(text) <= width else text[: width - 3] + "..."',
        'return text if len(text) <= width else text[:width] + "..."',
        (
            "output: clipped table cells are 3 characters longer than the width; a group "
            "label of 50 characters prints as 43 and misaligns the table."
        ),
    ),
    m(
        "r11-rep-errors-more",
        REP,
        'more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""',
        'more = f" and {len(failed)} more" if len(failed) > 3 else ""',
        (
            "output: the errors sentence counts 'more' as all failures instead of those "
            "beyond the three named; 5 failed tests read 'and 5 more'."
        ),
    ),
    m(
        "r11-cli-maxrows-zero",
        CLIA,
        "if args.max_rows is not None and args.max_rows < 0:",
        "if args.max_rows is not None and args.max_rows <= 0:",
        (
            "validation: --max-rows 0 (print no test rows) is refused as negative; a "
            "valid CLI call exits with status 2."
        ),
    ),
    m(
        "r11-cli-demo-score",
        CLIA,
        'args.score = args.score or ("score" if not args.pred else None)',
        'args.score = args.score or ("score" if args.pred else None)',
        (
            "orientation: --demo without --pred gets no score column (and with --pred "
            "both); `fastfair audit --demo` errors with 'give --pred or --score'."
        ),
    ),
    m(
        "r11-cli-tau-alpha",
        CLIA,
        (
            "        min_group_size=args.min_group_size,\n        "
            "alpha=args.alpha,\n        tau=args.tau,\n"
        ),
        (
            "        min_group_size=args.min_group_size,\n        "
            "alpha=args.alpha,\n        tau=args.alpha,\n"
        ),
        (
            "output: the CLI passes --alpha as tau; `fastfair audit ... --tau 0.1` "
            "audits at tau 0.05 (verdicts, power_at_tau, n_needed wrong)."
        ),
    ),
    m(
        "r11-k-rates-s2b",
        RATESK,
        "ff_masked_sum(w2 + 4 * b, dm), m->studentize, m->pooled);",
        "ff_masked_sum(w2 + 4 * a, dm), m->studentize, m->pooled);",
        (
            "kernel: group b's sum of squared weights is read from group a; the "
            "studentized statistic uses a's effective size for b, wrong for unequal "
            "group sizes (any studentized permutation test, rebuild)."
        ),
    ),
    m(
        "r11-k-margin-logc",
        MARGK,
        "o[k] = top - lgamma(k + 1.0) - lgamma(n - k + 1.0)",
        "o[k] = top - lgamma(k + 1.0) - lgamma(n - k)",
        (
            "kernel: the log binomial coefficients use lgamma(n-k) instead of "
            "lgamma(n-k+1); the exact unconditional (margin) test's tail probabilities "
            "are wrong on any table (rebuild)."
        ),
    ),
    m(
        "r11-fmt-mde-round",
        FMT,
        "value = math.ceil(x / 10.0**exponent - 1e-9) * 10.0**exponent",
        "value = round(x / 10.0**exponent) * 10.0**exponent",
        (
            "output: the MDE is rounded to nearest instead of up; format_mde(0.0412) "
            "prints 0.041, and the verdict 'could detect >= 0.041' understates the "
            "detectable difference."
        ),
    ),
    m(
        "r11-resapi-corr-rows",
        RESA,
        "    if n < 3:\n",
        "    if n <= 3:\n",
        (
            "validation: correlation_test refuses 3 rows, the documented minimum; a "
            "valid 3-row input raises ValueError."
        ),
    ),
    m(
        "r11-calapi-threshold-zero",
        CALA,
        "if not 0.0 <= threshold <= 1.0:  # NaN too",
        "if not 0.0 < threshold <= 1.0:  # NaN too",
        (
            "validation: a decision threshold of exactly 0 (every row positive) is "
            "refused as outside [0, 1]; a valid call raises."
        ),
    ),
    m(
        "r11-planapi-tost-tau",
        PLANA,
        "if not np.all(np.isfinite(t)) or np.any(t >= delta):",
        "if not np.all(np.isfinite(t)) or np.any(t > delta):",
        (
            "validation: equivalence sample size accepts |tau| = delta, where TOST power "
            "cannot exceed alpha; sample_size(..., tau=0.05, delta=0.05) returns a "
            "number instead of raising."
        ),
    ),
    m(
        "r11-parapi-undersmooth",
        PARA,
        "if not 0 <= undersmooth < 0.8:",
        "if not 0 < undersmooth < 0.8:",
        (
            "validation: undersmooth=0 (no undersmoothing, a documented value of [0, "
            "0.8)) is refused; a valid parity call raises ValueError."
        ),
    ),
    m(
        "r11-sliapi-maxlevels",
        SLIA,
        "        if len(levels) > options.max_levels:\n",
        "        if len(levels) >= options.max_levels:\n",
        (
            "validation: a feature with exactly max_levels levels is refused; slice "
            "discovery on a cube whose feature has max_levels levels raises."
        ),
    ),
    m(
        "r11-sliapi-constant",
        SLIA,
        "    if n_successes in (0, n_units):\n",
        "    if n_successes == 0:\n",
        (
            "validation: a metric equal to 1 in every row of its denominator is not "
            "refused; slices of an all-positive metric run on a degenerate family (zero "
            "variance: NaN/inf statistics) instead of a clear error."
        ),
    ),
    m(
        "r11-parst-cov-sign",
        PARS,
        "cov = aa - ab * f[None, :] - ab.T * f[:, None] + np.outer(f, f) * bb",
        "cov = aa - ab * f[None, :] - ab.T * f[:, None] - np.outer(f, f) * bb",
        (
            "formula: the residual covariance between curve points subtracts the f f' bb "
            "term; the joint (sup-t) band and maxT-adjusted parity p-values use a wrong "
            "covariance."
        ),
    ),
    m(
        "r11-planst-cells",
        PLANS,
        ("np.stack([(1 - pp) * npv, pp * (1 - ppv), (1 - pp) * (1 - npv), pp * ppv], -1)"),
        ("np.stack([(1 - pp) * npv, (1 - pp) * (1 - npv), pp * (1 - ppv), pp * ppv], -1)"),
        (
            "orientation: the cells built from predictive values swap FP and FN; a "
            "planning simulation from ppv/npv rates draws wrong TPR/FPR (visible "
            "whenever ppv != npv)."
        ),
    ),
    m(
        "r11-planst-binormal",
        PLANS,
        "shift = np.sqrt(2.0) * special.ndtri(sim.values)",
        "shift = special.ndtri(sim.values)",
        (
            "formula: the binormal mean shift drops sqrt(2); simulated AUCs are "
            "Phi(ndtri(AUC)/sqrt 2), e.g. 0.8 becomes ~0.73, so AUC power simulations "
            "are wrong."
        ),
    ),
    m(
        "r11-clu-undersmooth",
        CLUSD,
        "h = 0.9 * _scale(x, w) * M ** (-0.2 - undersmooth)",
        "h = 0.9 * _scale(x, w) * M ** (-0.2 + undersmooth)",
        (
            "orientation: undersmoothing raises the bandwidth instead of lowering it; "
            "any parity test with undersmooth > 0 uses a bandwidth larger than the plain "
            "rule."
        ),
    ),
    m(
        "r11-cmp-all-pairs",
        COMP,
        ("return np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.intp)"),
        ("return np.array([(i, j) for i in range(k) for j in range(i, k)], dtype=np.intp)"),
        (
            "boundary: comparisons='all' includes each group against itself; results "
            "list 'a vs a' rows and the family adjustment counts k extra comparisons."
        ),
    ),
    m(
        "r11-k-ks-walk",
        KSUMK,
        "r = exp(-u * d - half)",
        "r = exp(-u * d + half)",
        (
            "kernel: the downward walk of the Gaussian kernel sums multiplies by "
            "exp(+d^2/2) instead of exp(-d^2/2); Gaussian-kernel parity curves on a "
            "uniform grid get wrong weights below each row's nearest point (rebuild)."
        ),
    ),
    m(
        "r11-k-ks-epan",
        KSUMK,
        "                k = 1.0 - u * u\n",
        "                k = 1.0 - abs(u)\n",
        (
            "kernel: the Epanechnikov kernel is replaced by a triangular one; "
            "kernel='epanechnikov' parity estimates change on any data (rebuild)."
        ),
    ),
    m(
        "r11-k-was-c",
        WASK,
        "cdef double c = 0.5 * t * b2",
        "cdef double c = t * b2",
        (
            "kernel: the inner problem's stationarity constant drops the 1/2; every cell "
            "sum of the Wasserstein test (cost, sigmoid sums) and so its statistic "
            "change (rebuild)."
        ),
    ),
    m(
        "r11-monin-threshold",
        MONIN,
        ('yhat = (as_finite_float(cols["y_score"], "y_score") >= threshold).view(np.uint8)'),
        ('yhat = (as_finite_float(cols["y_score"], "y_score") > threshold).view(np.uint8)'),
        (
            "boundary: the monitor predicts positive only above the threshold, against "
            "the package's score >= t; rows scored exactly at the threshold (e.g. 0.5) "
            "are counted negative and the monitor's rates differ from the audit's."
        ),
    ),
    m(
        "r11-monin-maxgroups",
        MONIN,
        "elif max_groups < 2 or (groups is not None and max_groups < len(groups)):",
        "elif max_groups < 2 or (groups is not None and max_groups <= len(groups)):",
        (
            "validation: max_groups equal to len(groups) is refused; "
            "FairnessMonitor(groups=['a','b'], max_groups=2, ...) raises."
        ),
    ),
    m(
        "r11-was-lambda",
        WASA,
        "lam = [n / counts[1, lab], -n / counts[0, lab]]",
        "lam = [n / counts[1, lab], -n / counts[1, lab]]",
        (
            "formula: the second group's cell weight divides by the first group's cell "
            "count; with unequal groups the Wasserstein gap c is not the difference of "
            "the groups' mean scores and the test's statistic and p-value are wrong."
        ),
    ),
    m(
        "r11-aucapi-ref-size",
        AUCA,
        "sizes = delong_result.n_pos + delong_result.n_neg",
        "sizes = delong_result.n_pos",
        (
            "allocation: the default reference of auc_test_from_delong is the group with "
            "most positives, not most rows; with a large group of low prevalence the "
            "comparisons are against the wrong reference."
        ),
    ),
    m(
        "r11-aud-constant-pred",
        AUD,
        "predicted = cells[code, 1] + cells[code, 3]  # FP + TP",
        "predicted = cells[code, 2] + cells[code, 3]  # FP + TP",
        (
            "orientation: constant predictions are detected from the labels (FN + TP) "
            "instead of the predictions; a group whose labels are all 1 is flagged "
            "'constant prediction' (test not run) while truly constant predictions pass."
        ),
    ),
    m(
        "r11-aud-constant-both",
        AUD,
        "if len(kinds) == 2 and kinds[0][1] == kinds[1][1]:",
        "if len(kinds) == 2:",
        (
            "validation: two groups with opposite constant predictions (one all "
            "positive, one all negative) are skipped as 'both' instead of tested with a "
            "note; a real maximal difference is not reported."
        ),
    ),
    m(
        "r11-cals-width-range",
        CALS,
        "lo, hi = (0.0, 1.0) if s.min() >= 0 and s.max() <= 1 else (s.min(), s.max())",
        "lo, hi = s.min(), s.max()",
        (
            "boundary: equal-width calibration bins always span the observed scores "
            "instead of [0, 1] for probabilities; binned ECE with binning='equal_width' "
            "on scores in [0.1, 0.9] uses different bins."
        ),
    ),
    m(
        "r11-cals-edges-floor",
        CALS,
        "    edges = -((-k * n) // best)\n",
        "    edges = (k * n) // best\n",
        (
            "boundary: the final sweep bins' edges use floor(k n / b) instead of ceil; "
            "when n is not a multiple of b* the bins' counts and sums shift by a row, "
            "changing the sweep ECE."
        ),
    ),
    m(
        "r11-ress-residual-sign",
        RESS,
        '        elif name == "mean_residual":\n            out = y - p',
        '        elif name == "mean_residual":\n            out = p - y',
        (
            "orientation: the mean residual is prediction minus outcome; "
            "metric='mean_residual' reports the difference with the wrong sign and "
            "one-sided p-values swapped."
        ),
    ),
    m(
        "r11-ress-wmean",
        RESS,
        "    return (w * v).sum(axis=-1) / w.sum(axis=-1)",
        "    return (w * v).sum(axis=-1) / v.shape[-1]",
        (
            "formula: the weighted group mean divides by the row count instead of the "
            "total weight; weighted generic metrics with weights not averaging 1 are "
            "scaled wrongly."
        ),
    ),
    m(
        "r11-unc-p2-range",
        UNC,
        "self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 - self.d)  # range of p2",
        "self.lo, self.hi = max(0.0, -self.d), min(1.0, 1.0 + self.d)  # range of p2",
        (
            "boundary: the nuisance range of p2 under p1 - p2 = d uses 1 + d as its "
            "upper end; for d < 0 the supremum runs over impossible p1 < 0 (clipped) and "
            "for d > 0 misses p2 in (1 - d, ...]: exact margin p-values with u_tol != 0 "
            "change."
        ),
    ),
    m(
        "r11-plan-neyman-k",
        PLAN,
        "p = sigma2 / (rs * (sr + rs))[..., None]",
        "p = np.sqrt(sigma2) / (sr + rs)[..., None]",
        (
            "allocation: the non-reference groups get sigma_g / (sigma_ref + sqrt(S)) "
            "instead of sigma_g^2 / (sqrt(S)(sigma_ref + sqrt(S))); with 3+ groups the "
            "Neyman fractions do not sum to 1 and the planned n per group is wrong."
        ),
    ),
    m(
        "r11-tol-logit-half",
        TOLS,
        "half = q * np.sqrt(var) / (auc * (1.0 - auc))",
        "half = q * np.sqrt(var) / (1.0 - auc)",
        (
            "formula: the logit AUC interval's delta-method half-width drops the factor "
            "1/A; per-group AUC intervals are too narrow by a factor A (e.g. 0.8)."
        ),
    ),
    m(
        "r11-conf-zero-count",
        CONF,
        "if not (whole and v >= 0):",
        "if not (whole and v > 0):",
        (
            "validation: an object counts table with a zero cell is refused; valid "
            "counts like [[5, 0, 3, 2], ...] given as Python ints in an object array "
            "raise."
        ),
    ),
    m(
        "r11-grp-full-intersection",
        GRP,
        "for size in range(2, len(names) + 1):",
        "for size in range(2, len(names)):",
        (
            "boundary: attribute_combinations stops before the intersection of all "
            "attributes; with two attributes and intersections=True no intersection is "
            "audited."
        ),
    ),
    m(
        "r11-aud-ref-single",
        AUD,
        (
            '    if n_base > 1:\n        raise ValueError(\n            "with several '
            "sensitive features"
        ),
        (
            '    if n_base >= 1:\n        raise ValueError(\n            "with several '
            "sensitive features"
        ),
        (
            "validation: a plain reference= with a single sensitive feature is refused "
            "as if there were several; audit(..., reference='a') on one group column "
            "raises."
        ),
    ),
    m(
        "r11-perm-pooled-flag",
        PERMI,
        'spec = spec_metric.spec(options.studentize, options.variance == "pooled")',
        'spec = spec_metric.spec(options.studentize, options.variance != "pooled")',
        (
            "orientation: the compiled statistic gets pooled and unpooled variance "
            "swapped; a studentized permutation test with variance='pooled' (default) "
            "reports the unpooled statistic and a different p-value on unequal groups."
        ),
    ),
    m(
        "r11-sum-resolution-round",
        SUMS,
        "score = np.floor(score / resolution) * resolution",
        "score = np.round(score / resolution) * resolution",
        (
            "formula: ScoreStats bins scores to the nearest multiple of resolution "
            "instead of down; rows move across bins, so binned AUC and auc_error_bound "
            "change (e.g. resolution 0.1 with score 0.17)."
        ),
    ),
    m(
        "r11-sum-sample-var",
        SUMS,
        "return (m * squares - total * total) / (scale * scale * m * (m - 1))",
        "return (m * squares - total * total) / (scale * scale * m * m)",
        (
            "formula: the exact placement sample variance uses ddof 0; DeLong variances "
            "from merged PlacementSums (ScoreRuns, followed_by) are too small by (m-1)/m."
        ),
    ),
    m(
        "r11-spark-v10-below",
        SPARK,
        "m[:, 1, 1] = (below[p, :, 0] + m[:, 1, 1]) / n0",
        "m[:, 1, 1] = (below[p, :, 1] + m[:, 1, 1]) / n0",
        (
            "orientation: a positive's placement is offset by the positives (not "
            "negatives) of the partitions below; spark delong_by_sort over two or more "
            "range partitions gives a wrong AUC."
        ),
    ),
    m(
        "r11-k-slices-flip",
        SLICK,
        "x[j] = units[j] - (now - below) if flip else now - below",
        "x[j] = now - below",
        (
            "kernel: when successes are more than half the units the drawn failures are "
            "read as successes; permuted slice counts are complements, so slice max-T "
            "p-values of a metric above 0.5 are wrong (rebuild)."
        ),
    ),
    m(
        "r11-k-rows-w2",
        ROWSK,
        "np.add.at(totals[s, 1], cell_np[rows], weight_np[rows] ** 2)",
        "np.add.at(totals[s, 1], cell_np[rows], weight_np[rows])",
        (
            "kernel: the stratified row permutation's per-stratum squared-weight totals "
            "accumulate w instead of w^2; weighted stratified permutation tests get "
            "wrong effective sizes (rebuild)."
        ),
    ),
    m(
        "r11-pv-holm-accumulate",
        PV,
        "stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])",
        "stepped = np.minimum.accumulate((m - np.arange(m)) * p[order])",
        (
            "formula: Holm's adjusted p-values take the running minimum instead of the "
            "running maximum; with p = (0.01, 0.011, 0.04) the second adjusted value "
            "drops below the first's (0.022 < 0.03) and monotonicity is lost, so Holm "
            "rejects where it should not."
        ),
    ),
    m(
        "r11-swi-unpooled-observed",
        SWI,
        "    spec = spec_metric.spec(True, True)\n    observed = _counts",
        "    spec = spec_metric.spec(True, False)\n    observed = _counts",
        (
            "formula: the sweep's observed statistics are studentized with the unpooled "
            "variance while the permutation null (scale, offset) uses the pooled one; "
            "observed T and the sweep p-values change on unequal groups."
        ),
    ),
    m(
        "r11-files-header-strip",
        FILES,
        ("header = [h.strip() for h in next(csv.reader([header_line], delimiter=delimiter), [])]"),
        "header = list(next(csv.reader([header_line], delimiter=delimiter), []))",
        (
            "validation: CSV header names keep their surrounding spaces; a file with "
            "'label, pred, group' as its header refuses --pred pred ('no column') "
            "although the column is there."
        ),
    ),
]
