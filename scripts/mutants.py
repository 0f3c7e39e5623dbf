"""The curated mutants of scripts/mutation.py: plausible bugs in the statistics code.

Each mutant replaces one exact snippet (which must occur exactly once in its file) and
names the tests that should catch it: the test files of the module it lives in (never
tests/test_golden.py or doctests, see scripts/mutation.py). Kinds: formula, boundary,
orientation, allocation, kernel, p-value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    why: str


PV = ("tests/test_pvalues.py",)
AUC = (
    "tests/test_intervals.py",
    "tests/test_kernel_inputs.py",
    "tests/test_resampling.py",
    "tests/test_auc.py",
)
PERM = ("tests/test_permutation.py", "tests/test_resampling.py", "tests/test_level_power.py")
GEN = ("tests/test_resampling.py", "tests/test_generic.py")
PAR = ("tests/test_intervals.py", "tests/test_boundaries.py", "tests/test_parity.py")
PARB = ("tests/test_resampling.py", *PAR)
CAL = ("tests/test_boundaries.py", "tests/test_calibration.py")
PLAN = ("tests/test_planning.py",)
WAS = ("tests/test_wasserstein.py",)
SCORE = ("tests/test_difference_intervals.py", "tests/test_tolerance.py")
TOL = ("tests/test_tolerance.py", "tests/test_validation_quick.py")
CMP = ("tests/test_compare.py",)
MON = ("tests/test_monitor.py",)


def m(id, file, old, new, tests, why):
    return Mutant(id, file, old, new, tuple(tests), why)


MUTANTS = [
    # ---------------------------------------------------------------- _pvalues.py helpers
    m(
        "pv-mc-add-one",
        "fastfair/_pvalues.py",
        "return (count + 1.0) / (null_o.shape[0] + 1.0), count",
        "return count / null_o.shape[0], count",
        PV + PERM,
        "Monte-Carlo p-value without the add-one",
    ),
    m(
        "pv-mc-strict",
        "fastfair/_pvalues.py",
        "count = np.sum(null_o >= obs_o - tie_tolerance(obs_o, null_o), axis=0)",
        "count = np.sum(null_o > obs_o + tie_tolerance(obs_o, null_o), axis=0)",
        PV + PERM,
        "ties with the observed statistic not counted as extreme",
    ),
    m(
        "pv-two-sided-signed",
        "fastfair/_pvalues.py",
        "        return np.abs(null), np.abs(observed)",
        "        return null, observed",
        PV + PERM,
        "two-sided p-value from the signed statistic",
    ),
    m(
        "pv-less-orientation",
        "fastfair/_pvalues.py",
        "        return -null, -observed",
        "        return null, observed",
        PV + PERM,
        "alternative='less' oriented like 'greater'",
    ),
    m(
        "pv-exact-strict",
        "fastfair/_pvalues.py",
        "ge = probabilities[vals_o >= obs_o - tol].sum()",
        "ge = probabilities[vals_o > obs_o + tol].sum()",
        PV + PERM,
        "exact p-value excludes the observed value's mass",
    ),
    m(
        "pv-midp-full",
        "fastfair/_pvalues.py",
        "ge -= 0.5 * ties",
        "ge -= ties",
        PV + PERM,
        "mid-p subtracts the whole tie mass",
    ),
    m(
        "pv-asym-one-sided-factor",
        "fastfair/_pvalues.py",
        "return 2.0 * special.ndtr(-np.abs(statistic))",
        "return special.ndtr(-np.abs(statistic))",
        PV + PERM,
        "two-sided normal p-value without the factor 2",
    ),
    m(
        "pv-asym-greater-sign",
        "fastfair/_pvalues.py",
        "        return special.ndtr(-statistic)\n    return special.ndtr(statistic)",
        "        return special.ndtr(statistic)\n    return special.ndtr(-statistic)",
        PV + PERM,
        "one-sided normal p-values swapped",
    ),
    m(
        "pv-wilson-z90",
        "fastfair/_pvalues.py",
        "z = special.ndtri(0.5 + confidence_level / 2.0)\n    phat",
        "z = special.ndtri(confidence_level)\n    phat",
        PV,
        "Wilson interval with the one-sided quantile (z for 90% two-sided)",
    ),
    m(
        "pv-wilson-no-centre-shift",
        "fastfair/_pvalues.py",
        "centre = (phat + z * z / (2.0 * n)) / denom",
        "centre = phat",
        PV,
        "Wald centre in the Wilson interval",
    ),
    m(
        "pv-wilson-half",
        "fastfair/_pvalues.py",
        "+ z * z / (4.0 * n * n)) / denom",
        ") / denom",
        PV,
        "Wilson half-width without the z^2/4n^2 term",
    ),
    m(
        "pv-holm-no-monotone",
        "fastfair/_pvalues.py",
        "stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])",
        "stepped = (m - np.arange(m)) * p[order]",
        PV + PERM,
        "Holm without the running maximum",
    ),
    m(
        "pv-holm-factor",
        "fastfair/_pvalues.py",
        "stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])",
        "stepped = np.maximum.accumulate((m - np.arange(m) - 1) * p[order])",
        PV + PERM,
        "Holm multipliers m-1, m-2, ... instead of m, m-1, ...",
    ),
    m(
        "pv-bonferroni-m-1",
        "fastfair/_pvalues.py",
        "return np.minimum(1.0, p * m)",
        "return np.minimum(1.0, p * (m - 1))",
        PV + PERM,
        "Bonferroni multiplies by m - 1",
    ),
    m(
        "pv-maxt-signed",
        "fastfair/_pvalues.py",
        "    null_o, obs_o = orient_extremes(joint_null, observed, alternative)\n    return",
        "    null_o, obs_o = np.asarray(joint_null), "
        "orient_extremes(joint_null, observed, alternative)[1]\n    return max_exceedance",
        PV + PERM + AUC,
        "max-T over signed instead of oriented statistics",
    ),
    m(
        "pv-maxt-add-one",
        "fastfair/_pvalues.py",
        "return (count + 1.0) / (maxima.shape[0] + 1.0)\n",
        "return count / maxima.shape[0]\n",
        PV + PERM,
        "max-T p-value without the add-one",
    ),
    m(
        "pv-maxt-min",
        "fastfair/_pvalues.py",
        "return max_exceedance_pvalues(null_o.max(axis=1)",
        "return max_exceedance_pvalues(null_o.min(axis=1)",
        PV + PERM + AUC,
        "min instead of max over comparisons",
    ),
    m(
        "pv-exact-never-rejects",
        "fastfair/_pvalues.py",
        "return float(min(1.0, max(0.0, ge)))",
        "return 1.0",
        PV + PERM,
        "exact p-values always 1: a test that never rejects",
    ),
    m(
        "perm-mc-never-rejects",
        "fastfair/permutation/inference.py",
        "            pvalues[c] = sampler.pvalue",
        "            pvalues[c] = 1.0",
        PERM,
        "Monte-Carlo permutation test that never rejects",
    ),
    m(
        "auc-never-rejects",
        "fastfair/auc/inference.py",
        "pvalues = np.array([s.pvalue for s in samplers])",
        "pvalues = np.ones(len(samplers))",
        AUC,
        "AUC permutation test that never rejects",
    ),
    m(
        "gen-never-rejects",
        "fastfair/resampling/inference.py",
        'r["pvalue"], r["count"], r["null"] = s.pvalue, s.count, s.null()',
        'r["pvalue"], r["count"], r["null"] = 1.0, s.count, s.null()',
        GEN,
        "generic Monte-Carlo test that never rejects",
    ),
    # ---------------------------------------------------------------- _score.py intervals
    m(
        "score-interval-z",
        "fastfair/_score.py",
        "    z = special.ndtri(0.5 + confidence_level / 2.0)\n    return score_bound",
        "    z = special.ndtri(confidence_level)\n    return score_bound",
        SCORE,
        "score interval of a difference with the one-sided quantile",
    ),
    m(
        "score-mn-factor",
        "fastfair/_score.py",
        "var = var * total / np.maximum(total - 1.0, 1e-300)",
        "var = var",
        SCORE,
        "Miettinen-Nurminen statistic without N / (N - 1) (array path)",
    ),
    m(
        "score-mn-factor-scalar",
        "fastfair/_score.py",
        "var *= (n1 + n2) / max(n1 + n2 - 1.0, 1e-300)",
        "var *= 1.0",
        SCORE,
        "Miettinen-Nurminen statistic without N / (N - 1) (scalar path of the interval)",
    ),
    m(
        "score-mle-cubic",
        "fastfair/_score.py",
        "    e = -p1 * d * (1.0 + d)\n",
        "    e = -p1 * d * (1.0 - d)\n",
        SCORE,
        "restricted MLE with a wrong constant coefficient of the cubic",
    ),
    # ---------------------------------------------------------------- tolerance margins
    m(
        "tol-newcombe-nstar",
        "fastfair/tolerance/statistics.py",
        "    n_star = 0.5 * (n_pos + n_neg) - 1.0\n    q = (2.0 - theta)",
        "    n_star = 0.5 * (n_pos + n_neg)\n    q = (2.0 - theta)",
        TOL,
        "Newcombe's variance with N* = (n+ + n-)/2 instead of (n+ + n-)/2 - 1",
    ),
    m(
        "tol-newcombe-quartic",
        "fastfair/tolerance/statistics.py",
        "        pairs * (2.0 * auc + 1.0) + z2 * 2.0 * r1,",
        "        pairs * (2.0 * auc + 1.0) + z2 * r1,",
        TOL,
        "a wrong cubic coefficient of the Newcombe quartic (the Newton polish must not hide it)",
    ),
    m(
        "tol-hybrid-intersection",
        "fastfair/tolerance/statistics.py",
        "    return np.where(small, np.minimum(low, low_s), low), np.where(",
        "    return np.where(small, np.maximum(low, low_s), low), np.where(",
        TOL,
        "hybrid's lower end is the larger of the two instead of the union's",
    ),
    m(
        "tol-mover-orientation",
        "fastfair/tolerance/statistics.py",
        "    low = diff - np.sqrt((auc_a - la) ** 2 + (ub - auc_b) ** 2)",
        "    low = diff - np.sqrt((auc_a - la) ** 2 + (auc_b - lb) ** 2)",
        TOL,
        "MOVER lower bound with the reference's lower instead of upper end",
    ),
    m(
        "tol-newcombe-below",
        "fastfair/tolerance/statistics.py",
        "    small = np.minimum(n_pos, n_neg) < NEWCOMBE_BELOW",
        "    small = np.maximum(n_pos, n_neg) < NEWCOMBE_BELOW",
        TOL,
        "hybrid's small-class rule on the larger class instead of the smaller",
    ),
    m(
        "tol-auto-rule",
        "fastfair/tolerance/statistics.py",
        "    few = (fewest < EXACT_BELOW) | (unbalanced & (fewest < EXACT_BELOW_UNBALANCED))",
        "    few = fewest < EXACT_BELOW",
        TOL,
        "auto without the unbalanced rule (level 0.059 at 100 vs 100,000)",
    ),
    # ---------------------------------------------------------------- paired comparisons
    m(
        "cmp-covariance-sign",
        "fastfair/compare/statistics.py",
        "    var = both - cross\n",
        "    var = both + cross\n",
        CMP,
        "the paired variance adds the covariance (the unpaired-like variance of a sum)",
    ),
    m(
        "cmp-swap-one-label",
        "fastfair/compare/inference.py",
        "        tables[:, slot, B_ONLY[y]] = disc[g, y] - draws[:, s]",
        "        tables[:, slot, B_ONLY[y]] = disc[g, 1 - y] - draws[:, s]",
        CMP,
        "a swap refills the other label's discordant cell",
    ),
    m(
        "cmp-auc-cov-ddof",
        "fastfair/compare/statistics.py",
        "    return np.where(n > 1, sxy / np.maximum(n - 1.0, 1.0), 0.0), n",
        "    return np.where(n > 1, sxy / np.maximum(n, 1.0), 0.0), n",
        CMP,
        "DeLong covariance of the placements with ddof 0 (pROC and the variances use 1)",
    ),
    m(
        "cmp-reduced-past",
        "fastfair/compare/inference.py",
        "    return np.maximum(toward, past).max(axis=-1)",
        "    return toward.max(axis=-1)",
        CMP,
        "'B reduces the gap' without the not-beyond--gap_a condition",
    ),
    m(
        "cmp-kernel-binomial",
        "csrc/_paired.pyx",
        "random_binomial(&stream.bitgen, 0.5, discordant[s], binomial)",
        "random_binomial(&stream.bitgen, 0.45, discordant[s], binomial)",
        CMP,
        "swap probability not 1/2",
    ),
    # ---------------------------------------------------------------- auc.py / _auc.pyx
    m(
        "auc-group-ci-no-z",
        "fastfair/auc/inference.py",
        "group_interval=(np.clip(auc - z * se, 0.0, 1.0), np.clip(auc + z * se, 0.0, 1.0)),",
        "group_interval=(np.clip(auc - se, 0.0, 1.0), np.clip(auc + se, 0.0, 1.0)),",
        AUC,
        "per-group AUC interval without its z multiplier",
    ),
    m(
        "auc-diff-ci-var",
        "fastfair/auc/inference.py",
        "se_diff = np.sqrt(var[a] + var[b])",
        "se_diff = np.sqrt(var[a]) + np.sqrt(var[b])",
        AUC,
        "difference SE as a sum of SEs",
    ),
    m(
        "auc-ci-level",
        "fastfair/auc/inference.py",
        "    z = special.ndtri(0.5 + confidence_level / 2.0)\n    se_diff",
        "    z = special.ndtri(confidence_level)\n    se_diff",
        AUC,
        "one-sided quantile for a two-sided interval",
    ),
    m(
        "maxt-no-floor",
        "fastfair/_pvalues.py",
        "return np.maximum(maxt_pvalues(joint_null(), observed, alternative), pvalues)",
        "return maxt_pvalues(joint_null(), observed, alternative)",
        PERM + AUC,
        "max-T adjusted p-value (permutation and AUC tests) not floored at the raw one",
    ),
    m(
        "auc-strata-swapped",
        "fastfair/auc/statistics.py",
        "sizes = np.vstack([pos, neg]) if scheme",
        "sizes = np.vstack([neg, pos]) if scheme",
        AUC,
        "within-outcome stratum sizes swapped",
    ),
    m(
        "auc-scheme-flag",
        "fastfair/auc/inference.py",
        'within = scheme == "within_outcome"',
        'within = scheme != "within_outcome"',
        AUC,
        "two-group kernel told the other scheme",
    ),
    m(
        "auc-pyx-ties",
        "csrc/_auc.pyx",
        "xd = <double> (2 * below[2 * g] + e0 - tot[2 * g])",
        "xd = <double> (2 * below[2 * g] + 2 * e0 - tot[2 * g])",
        AUC,
        "tied negatives count 1 instead of 1/2 for positives",
    ),
    m(
        "auc-pyx-ddof",
        "csrc/_auc.pyx",
        "v10 = _centred_ss(mpos, s[2 * g + 1], q[2 * g + 1]) / (mpos - 1)",
        "v10 = _centred_ss(mpos, s[2 * g + 1], q[2 * g + 1]) / mpos",
        AUC,
        "S10 with ddof 0",
    ),
    m(
        "auc-pyx-var-swap",
        "csrc/_auc.pyx",
        "var[0] = v10 / mpos + v01 / mneg",
        "var[0] = v10 / mneg + v01 / mpos",
        AUC,
        "DeLong variance components divided by the wrong counts",
    ),
    m(
        "auc-pyx-stat-orientation",
        "csrc/_auc.pyx",
        "AUC_0 - AUC_1 in the caller's codes\n"
        "            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)",
        "AUC_0 - AUC_1 in the caller's codes\n"
        "            o[b] = _pair_stat(small, 1 - small, ibuf, dbuf, dbuf + 4, studentize)",
        AUC,
        "permuted AUC statistic of the wrong orientation",
    ),
    m(
        "auc-pyx-sparse-orientation",
        "csrc/_auc.pyx",
        "npos_all, nneg_all, ibuf, dbuf, dbuf + 4)\n"
        "            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)",
        "npos_all, nneg_all, ibuf, dbuf, dbuf + 4)\n"
        "            o[b] = _pair_stat(small, 1 - small, ibuf, dbuf, dbuf + 4, studentize)",
        AUC,
        "sparse (few-groups) permutation kernel: AUC statistic of the wrong orientation",
    ),
    m(
        "auc-pyx-ranks-orientation",
        "csrc/_auc.pyx",
        "npos_all, nneg_all, ibuf, dbuf, dbuf + 4)  # S is group 1 here\n"
        "            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)",
        "npos_all, nneg_all, ibuf, dbuf, dbuf + 4)  # S is group 1 here\n"
        "            o[b] = _pair_stat(small, 1 - small, ibuf, dbuf, dbuf + 4, studentize)",
        AUC,
        "ranks (untied scores) permutation kernel: AUC statistic of the wrong orientation",
    ),
    m(
        "auc-pyx-ranks-b-step",
        "csrc/_auc.pyx",
        "        # B = 2 (j + 1) on positives [c_j, c_(j+1))\n"
        "        cnt = (nc[j + 1] if j + 1 < kn else n_pos) - nc[j]",
        "        # B = 2 (j + 1) on positives [c_j, c_(j+1))\n"
        "        cnt = (nc[j + 1] if j + 1 < kn else n_pos) - nc[j] + 1",
        AUC,
        "ranks kernel: one positive too many in each step of B (the other group's variance)",
    ),
    m(
        "auc-pyx-degenerate",
        "csrc/_auc.pyx",
        "        sa = (auc_a * pa + 0.5) / (pa + 1.0)",
        "        sa = auc_a",
        AUC,
        "no pseudo-pair shrinkage for a zero-variance difference",
    ),
    # ---------------------------------------------------------------- permutation / rates
    m(
        "rate-unpooled-var",
        "csrc/ff_rates.h",
        "var = m_a * (1.0 - m_a) * inv_a + m_b * (1.0 - m_b) * inv_b;",
        "var = m_a * (1.0 - m_a) * inv_b + m_b * (1.0 - m_b) * inv_a;",
        PERM,
        "unpooled variance with the groups' sizes swapped",
    ),
    m(
        "rate-pooled-p",
        "csrc/ff_rates.h",
        "double p = (num_a + num_b) / (den_a + den_b);",
        "double p = 0.5 * (m_a + m_b);",
        PERM,
        "pooled rate as the mean of the two rates",
    ),
    m(
        "rate-shrink",
        "csrc/ff_rates.h",
        "var = r_a * (1.0 - r_a) / (n_a + 1.0) + r_b * (1.0 - r_b) / (n_b + 1.0);",
        "var = r_a * (1.0 - r_a) / n_a + r_b * (1.0 - r_b) / n_b;",
        PERM,
        "degenerate-variance fallback without the pseudo-observation",
    ),
    m(
        "rate-eo-sum",
        "csrc/ff_rates.h",
        "total += t * t;",
        "total += __builtin_fabs(t);",
        PERM,
        "equalized odds combines |T| instead of T^2",
    ),
    m(
        "metric-fnr-num",
        "fastfair/_metrics.py",
        '"fnr": _rate("fnr", FN, POSITIVES)',
        '"fnr": _rate("fnr", FP, POSITIVES)',
        PERM,
        "FNR numerator FP",
    ),
    m(
        "metric-ppv-den",
        "fastfair/_metrics.py",
        '"ppv": _rate("ppv", TP, _PRED_POS)',
        '"ppv": _rate("ppv", TP, POSITIVES)',
        PERM,
        "PPV with the positives as denominator (that is TPR)",
    ),
    m(
        "metric-within-strata",
        "fastfair/_metrics.py",
        "            return (NEGATIVES, POSITIVES)",
        "            return (ALL,)",
        PERM,
        "within-outcome scheme permutes all rows",
    ),
    m(
        "perm-reference-largest",
        "fastfair/_comparisons.py",
        "ref = int(np.argmax(sizes))",
        "ref = int(np.argmin(sizes))",
        PERM,
        "default reference: the smallest group",
    ),
    m(
        "perm-exact-window-mass",
        "fastfair/_exact.py",
        "p = min(1.0, p + 2 * len(strata) * EXACT_NEGLECTED_MASS)",
        "p = min(1.0, p)",
        PERM,
        "exact p-value without the neglected-mass bound (equivalent: 1e-20)",
    ),
    m(
        "perm-hypergeom-ratio",
        "fastfair/_exact.py",
        "ratio = (good - x) * (draws - x) / ((x + 1) * (bad - draws + x + 1))",
        "ratio = (good - x) * (draws - x) / ((x + 1) * (bad - draws + x))",
        PERM,
        "hypergeometric pmf recursion off by one",
    ),
    m(
        "perm-multihyper",
        "fastfair/_exact.py",
        "log_p = _log_comb(sizes[0], x1) + _log_comb(sizes[1], x2) + _log_comb(sizes[2], x3)",
        "log_p = _log_comb(sizes[0], x1) + _log_comb(sizes[1], x2)",
        PERM,
        "multivariate hypergeometric missing a factor",
    ),
    m(
        "perm-difference-sign",
        "fastfair/permutation/inference.py",
        "    difference = values[a] - values[b]\n    lower, upper",
        "    difference = values[b] - values[a]\n    lower, upper",
        PERM,
        "difference reported as reference minus group",
    ),
    m(
        "counts-last-group",
        "csrc/_counts.pyx",
        "table[(n_groups - 1) * 4 + c] = <double> pool[c]",
        "table[(n_groups - 1) * 4 + c] = <double> pool[c] + 1",
        PERM,
        "last group's permuted counts off by one",
    ),
    # ---------------------------------------------------------------- generic.py
    m(
        "gen-bootfast-ddof-obs",
        "fastfair/resampling/inference.py",
        "else np.var(boot, ddof=1)",
        "else np.var(boot, ddof=0)",
        GEN,
        "bootstrap-fast: observed SD with ddof 0",
    ),
    m(
        "gen-bootfast-ddof-null",
        "fastfair/resampling/inference.py",
        "return _safe_ratio(t, np.var(t, ddof=1))",
        "return _safe_ratio(t, np.var(t, ddof=0))",
        GEN,
        "bootstrap-fast: permuted SD with ddof 0",
    ),
    m(
        "gen-alg1-centre",
        "fastfair/resampling/statistics.py",
        "out[b - first] = _safe_ratio(t, np.mean((boot - t) ** 2))",
        "out[b - first] = _safe_ratio(t, np.var(boot))",
        GEN,
        "Algorithm 1: bootstrap variance about the bootstrap mean, not about T_b",
    ),
    m(
        "gen-welch-ddof",
        "fastfair/resampling/statistics.py",
        "    var_a = np.maximum(s2a - s1a * ma, 0.0) / (na - 1)\n"
        "    var_b = np.maximum(s2b - s1b * mb, 0.0) / (nb - 1)",
        "    var_a = np.maximum(s2a - s1a * ma, 0.0) / na\n"
        "    var_b = np.maximum(s2b - s1b * mb, 0.0) / nb",
        GEN,
        "Welch variances of the group means with ddof 0",
    ),
    m(
        "gen-weighted-var",
        "fastfair/resampling/inference.py",
        "return n / (n - 1) * (w * w * (v - m) ** 2).sum(axis=-1) / (sw * sw)",
        "return (w * w * (v - m) ** 2).sum(axis=-1) / (sw * sw)",
        GEN,
        "weighted mean variance without n/(n-1)",
    ),
    m(
        "gen-mse-row",
        "fastfair/resampling/statistics.py",
        "            out = (y - p) ** 2\n",
        "            out = np.abs(y - p)\n",
        GEN,
        "mse rows are absolute errors",
    ),
    m(
        "gen-safe-ratio-sqrt",
        "fastfair/resampling/statistics.py",
        "out = diff / np.sqrt(var)",
        "out = diff / var",
        GEN,
        "studentized by the variance, not the SD",
    ),
    m(
        "gen-welch-sums",
        "fastfair/resampling/inference.py",
        "ua = np.ldexp(va, -e).var(ddof=1) / na if na",
        "ua = np.ldexp(va, -e).var(ddof=1) / nb if na",
        GEN,
        "Welch-Satterthwaite parts with swapped sizes",
    ),
    # ---------------------------------------------------------------- parity.py
    m(
        "par-threshold-strict",
        "fastfair/_clustered.py",
        "keep &= s >= threshold",
        "keep &= s > threshold",
        PAR,
        "marginal outcome drops rows exactly on the threshold",
    ),
    m(
        "par-mb-add-one",
        "fastfair/parity/inference.py",
        "boot_p = max_exceedance_pvalues(null, threshold)[0]",
        "boot_p = max_exceedance_pvalues(null, threshold)[0]"
        " * (n_bootstrap + 1.0) / n_bootstrap - 1.0 / n_bootstrap",
        PARB,
        "multiplier-bootstrap p-value without the add-one",
    ),
    m(
        "par-maxt-add-one",
        "fastfair/parity/inference.py",
        "adjusted[tested] = max_exceedance_pvalues(null, thr)",
        "adjusted[tested] = max_exceedance_pvalues(null, thr)"
        " * (len(null) + 1.0) / len(null) - 1.0 / len(null)",
        PARB,
        "grid max-T adjusted p-values without the add-one",
    ),
    m(
        "par-critical-level",
        "fastfair/parity/inference.py",
        "critical = float(np.sqrt(np.quantile(null, confidence_level)))",
        "critical = float(np.quantile(null, confidence_level))",
        PARB,
        "simultaneous-band critical value on the chi-square scale",
    ),
    m(
        "par-wald-se",
        "fastfair/parity/inference.py",
        "        se = np.sqrt(var[0] + var[1])\n        with np.errstate",
        "        se = np.sqrt(var[0]) + np.sqrt(var[1])\n        with np.errstate",
        PAR,
        "z statistic with the sum of SEs",
    ),
    m(
        "par-wald-chi2-mean",
        "fastfair/parity/inference.py",
        "mean = (est * prec).sum(axis=0) / prec.sum(axis=0)",
        "mean = est.mean(axis=0)",
        PAR,
        "Wald chi-square about the unweighted mean",
    ),
    m(
        "par-var-cross",
        "fastfair/parity/statistics.py",
        'num = sums["sum_aa"] - 2.0 * f * sums["sum_ab"] + f * f * sums["sum_bb"]',
        'num = sums["sum_aa"] - f * sums["sum_ab"] + f * f * sums["sum_bb"]',
        PAR,
        "cluster-robust variance missing the factor 2 of the cross term",
    ),
    m(
        "par-ci-z",
        "fastfair/parity/statistics.py",
        "    zq = _quantile(0.5 + confidence_level / 2.0, df)\n    notes",
        "    zq = _quantile(confidence_level, df)\n    notes",
        PAR,
        "calibration-curve band with the one-sided quantile",
    ),
    m(
        "par-mo-ci-z",
        "fastfair/parity/inference.py",
        "        zq = float(_quantile(0.5 + confidence_level / 2.0, "
        "np.inf if np.isnan(df) else df))\n        ci = (",
        "        zq = 1.0\n        ci = (",
        PAR,
        "marginal-outcome interval without its z multiplier",
    ),
    m(
        "par-bh-rank",
        "fastfair/_pvalues.py",
        "(p[order] * m / np.arange(1, m + 1))",
        "(p[order] * m / np.arange(m, 0, -1))",
        PAR,
        "Benjamini-Hochberg with reversed ranks",
    ),
    m(
        "par-neff",
        "fastfair/parity/statistics.py",
        'n_eff = np.where(sb > 0, sb * sb / sums["sum_bb"], 0.0)',
        'n_eff = np.where(sb > 0, sb / np.sqrt(sums["sum_bb"]), 0.0)',
        PAR,
        "effective number of clusters off by a square root",
    ),
    m(
        "par-cov-sandwich",
        "fastfair/parity/statistics.py",
        "cov = aa - ab * f[None, :] - ab.T * f[:, None] + np.outer(f, f) * bb",
        "cov = aa - ab * f[:, None] - ab.T * f[None, :] + np.outer(f, f) * bb",
        PARB,
        "cross-grid covariance with the cross terms transposed",
    ),
    m(
        "ks-epanechnikov",
        "csrc/_kernel_sums.pyx",
        "                k = 1.0 - u * u\n                if k <= 0.0:",
        "                k = 1.0 - (u if u > 0 else -u)\n                if k <= 0.0:",
        PAR,
        "triangular instead of Epanechnikov kernel",
    ),
    m(
        "ks-gauss-walk",
        "csrc/_kernel_sums.pyx",
        "        r = exp(-u * d - half)",
        "        r = exp(u * d - half)",
        PAR,
        "Gaussian walk to the left with the right-hand ratio",
    ),
    m(
        "ks-cross",
        "csrc/_kernel_sums.pyx",
        "acc[(3 * K + g) * G + j] += aj * bj",
        "acc[(3 * K + g) * G + j] += aj * aj",
        PAR,
        "sum_ab accumulates a^2",
    ),
    # ---------------------------------------------------------------- calibration.py
    m(
        "cal-dpcc-orientation",
        "fastfair/calibration/api.py",
        "diff = (f >= threshold).astype(np.float64) - (s >= threshold)",
        "diff = (s >= threshold).astype(np.float64) - (f >= threshold)",
        CAL,
        "delta PCC with the paper's estimator order (sign flipped)",
    ),
    m(
        "cal-dpcc-boundary-cal",
        "fastfair/calibration/api.py",
        "diff = (f >= threshold).astype(np.float64) - (s >= threshold)",
        "diff = (f > threshold).astype(np.float64) - (s >= threshold)",
        CAL,
        "delta PCC: calibrated scores on the threshold counted negative",
    ),
    m(
        "cal-dpcc-boundary-raw",
        "fastfair/calibration/api.py",
        "diff = (f >= threshold).astype(np.float64) - (s >= threshold)",
        "diff = (f >= threshold).astype(np.float64) - (s > threshold)",
        CAL,
        "delta PCC: raw scores on the threshold counted negative",
    ),
    m(
        "cal-ft-rates-side",
        "fastfair/calibration/inference.py",
        '1.0 - np.searchsorted(x, t, side="left") / n',
        '1.0 - np.searchsorted(x, t, side="right") / n',
        CAL,
        "fair thresholds: positive rate drops scores on the threshold",
    ),
    m(
        "cal-ece-weight",
        "fastfair/calibration/inference.py",
        "return float((np.sum(count[nz] / n * gap**p)) ** (1.0 / p))",
        "return float((np.mean(gap**p)) ** (1.0 / p))",
        CAL,
        "ECE with unweighted bins",
    ),
    m(
        "cal-ece-root",
        "fastfair/calibration/inference.py",
        "return float((np.sum(count[nz] / n * gap**p)) ** (1.0 / p))",
        "return float(np.sum(count[nz] / n * gap**p))",
        CAL,
        "ECE_p without the p-th root",
    ),
    m(
        "cal-ece-mass-bins",
        "fastfair/calibration/statistics.py",
        "b = np.minimum(B - 1, (np.arange(n) * B) // n)",
        "b = np.minimum(B - 1, (np.arange(n) * B) // (n + 1))",
        CAL,
        "equal-mass bin edges off by one",
    ),
    m(
        "cal-drc-sign",
        "fastfair/calibration/api.py",
        "diff = _ranks_within(qcodes, s) - _ranks_within(qcodes, f)",
        "diff = _ranks_within(qcodes, f) - _ranks_within(qcodes, s)",
        CAL,
        "delta RC sign flipped",
    ),
    m(
        "cal-rank-ties",
        "fastfair/calibration/statistics.py",
        "avg = 0.5 * (pos[first] + pos[last])",
        "avg = pos[first]",
        CAL,
        "ties get the minimum instead of the average rank",
    ),
    # ---------------------------------------------------------------- planning.py
    m(
        "plan-critical-bonf",
        "fastfair/planning/inference.py",
        "    a = alpha / (k - 1)\n",
        "    a = alpha\n",
        PLAN,
        "no Bonferroni split of alpha over k - 1 comparisons",
    ),
    m(
        "plan-two-sided",
        "fastfair/planning/inference.py",
        "z = special.ndtri(1.0 - a / 2.0) if alternative == "
        '"two-sided" else special.ndtri(1.0 - a)',
        'z = special.ndtri(1.0 - a) if alternative == "two-sided" else special.ndtri(1.0 - a)',
        PLAN,
        "two-sided critical value without alpha/2",
    ),
    m(
        "plan-neyman-ref",
        "fastfair/planning/inference.py",
        "p[..., ref] = sr / (sr + rs)",
        "p[..., ref] = rs / (sr + rs)",
        PLAN,
        "Neyman fraction of the reference group inverted",
    ),
    m(
        "plan-neyman-sqrt",
        "fastfair/planning/inference.py",
        "rs = np.sqrt(np.sum(sigma2[..., oth], axis=-1))",
        "rs = np.sum(np.sqrt(sigma2[..., oth]), axis=-1)",
        PLAN,
        "square-root rule: sum of SDs instead of root of summed variances",
    ),
    m(
        "plan-fpc",
        "fastfair/planning/inference.py",
        "var = var * np.maximum(1.0 - n_per_group / population, 0.0)",
        "var = var * np.maximum(1.0 + n_per_group / population, 0.0)",
        PLAN,
        "finite-population correction of the wrong sign",
    ),
    m(
        "plan-hanley",
        "fastfair/planning/inference.py",
        "q2 = 2.0 * auc**2 / (1.0 + auc)",
        "q2 = auc**2 / (1.0 + auc)",
        PLAN,
        "Hanley-McNeil Q2 without its factor 2",
    ),
    m(
        "plan-rate-var",
        "fastfair/planning/inference.py",
        "    return r * (1.0 - r) / d, r",
        "    return r * (1.0 - r) * d, r",
        PLAN,
        "unit variance of a rate multiplied by its denominator share",
    ),
    m(
        "plan-decide-boundary",
        "fastfair/planning/inference.py",
        "zc = special.ndtri(1 - alpha / 2)",
        "zc = special.ndtri(1 - alpha)",
        PLAN,
        "simulated two-sided test at level 2 alpha",
    ),
    m(
        "plan-wald-den",
        "fastfair/_metrics.py",
        '"fpr": _rate("fpr", FP, NEGATIVES)',
        '"fpr": _rate("fpr", FP, _PRED_POS)',
        PLAN,
        "simulated FPR over predicted positives",
    ),
    # ---------------------------------------------------------------- wasserstein.py
    m(
        "was-chi2-mixture",
        "fastfair/wasserstein/inference.py",
        "return math.exp(-s / (2.0 * (w0 * math.cos(phi) ** 2 + w1 * math.sin(phi) ** 2)))",
        "return math.exp(-s / (2.0 * (w0 * math.cos(phi) ** 2 + w1 * math.cos(phi) ** 2)))",
        WAS,
        "chi-square mixture tail ignores the second weight",
    ),
    m(
        "was-chi2-single",
        "fastfair/wasserstein/inference.py",
        "return float(special.chdtrc(1, s / w[0]))",
        "return float(special.chdtrc(1, s * w[0]))",
        WAS,
        "scaled chi-square tail multiplies instead of divides",
    ),
    m(
        "was-critical-alpha",
        "fastfair/wasserstein/inference.py",
        "return pvalue, float(w[0] * special.chdtri(1, alpha))",
        "return pvalue, float(w[0] * special.chdtri(1, 1 - alpha))",
        WAS,
        "critical value at 1 - alpha",
    ),
    m(
        "was-fold",
        "fastfair/wasserstein/inference.py",
        "    q = 4.0 / ca\n",
        "    q = 2.0 / ca\n",
        WAS,
        "fold of the stationarity map at the wrong curvature",
    ),
    m(
        "mon-ripr-seen-weights",
        "csrc/_monitor.pyx",
        "    _restricted(a1 * n1, n1, a2 * n2, n2, d, &q1, &q2)",
        "    _restricted(a1 * w1, w1, a2 * w2, w2, d, &q1, &q2)",
        MON,
        "the block's null point projected with the denominators seen, not the block's",
    ),
    m(
        "mon-strip-side",
        "fastfair/monitor/inference.py",
        "    out[..., 1:] += np.where(gap < lines, line_log, 0.0)",
        "    out[..., 1:] += np.where(gap > lines, line_log, 0.0)",
        MON,
        "a strip bets on the line on the far side of the alternative",
    ),
    m(
        "mon-bonferroni",
        "fastfair/monitor/api.py",
        "return float(np.log(self.n_sequences / self.options.alpha))",
        "return float(np.log(1.0 / self.options.alpha))",
        MON,
        "no Bonferroni over metrics and comparisons",
    ),
    # kind from the round-2 survivor r2-unc-cdf-below-off-by-one: an end term of an interior
    # run (first > 0, last < n) in the distribution-function sums of the exact test
    m(
        "unc-cdf-interior-last",
        "fastfair/_unconditional.py",
        "                special.bdtr(hi, n_l, p) - below,",
        "                special.bdtr(hi - 1, n_l, p) - below,",
        ("tests/test_tolerance.py",),
        "P(first <= X <= last) of an interior run without the term X = last",
    ),
    # kind from the round-2 survivor r2-seq-narrow-no-intersection: a running intersection
    # of confidence-sequence intervals that forgets earlier intervals (here on one side)
    m(
        "seq-narrow-upper-not-running",
        "fastfair/_sequential.py",
        "        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)",
        "        self.lo, self.hi = max(self.lo, lo), hi",
        ("tests/test_sequential.py",),
        "the running interval's upper end is the latest Robbins interval's, not the minimum",
    ),
    # kinds from the round-2 survivors r2-score-exact-limits-boundary and
    # r2-auto-auc-delong-strict: a method switch one off its documented boundary
    m(
        "score-exact-limits-one-below",
        "fastfair/_score.py",
        "    exact = np.minimum(x, n - x) < exact_below",
        "    exact = np.minimum(x, n - x) < exact_below - 1",
        ("tests/test_difference_intervals.py",),
        "a rate with exactly 49 events gets Wilson's limits instead of Clopper-Pearson's",
    ),
    m(
        "auc-auto-delong-one-below",
        "fastfair/auc/inference.py",
        '"delong" if options.studentize and smallest >= ASYMPTOTIC_MIN_CLASS else',
        '"delong" if options.studentize and smallest >= ASYMPTOTIC_MIN_CLASS - 1 else',
        ("tests/test_auc.py",),
        "auto takes DeLong's test with 999 rows in the smallest class",
    ),
    # kind from the round-3 survivor r3-dask-audit-labels-unsorted (a partition's scores
    # re-sorted, its labels left in the order they came: tests/test_audit_engines.py::
    # test_signed_zero_scores_on_every_engine now kills that one, with -0.0 and +0.0)
    m(
        "spark-partition-labels-unsorted",
        "fastfair/engines/spark.py",
        "    y, s, g = y[order], s[order], g[order]",
        "    y, s, g = y, s[order], g[order]",
        ("tests/test_spark.py",),
        "a Spark range partition's scores and groups re-sorted, its labels not",
    ),
    # kind from the round-3 survivor r3-spark-all-tied-auc-only (a group called all-tied,
    # its scores constant, on an AUC of exactly 0.5 alone: tests/test_spark.py::
    # test_an_auc_of_exactly_one_half_is_not_a_constant_score now kills that one)
    m(
        "placements-all-tied-sums-only",
        "fastfair/engines/summaries.py",
        """                and self.pos_sum[k] == n1 * n0 and self.pos_squares[k] == n1 * n0 * n0
                and self.neg_sum[k] == n0 * n1 and self.neg_squares[k] == n0 * n1 * n1""",
        """                and self.pos_sum[k] == n1 * n0
                and self.neg_sum[k] == n0 * n1""",
        ("tests/test_audit_engines.py",),
        "a group whose AUC is exactly 0.5 counts as all-tied (a false constant-score note) "
        "though its placements vary",
    ),
    # kind from the round-3 survivor r3-audit-auc-delong-boundary (the engines' rule
    # "DeLong from the summaries, else read the rows back" one off its boundary: the result
    # moves by rounding only, the work by a second pass; test_the_delong_rule_at_exactly_its_
    # boundary counts the reads)
    m(
        "audit-delong-rule-one-above",
        "fastfair/auditing/api.py",
        "smallest >= fastfair.auc.ASYMPTOTIC_MIN_CLASS",
        "smallest >= fastfair.auc.ASYMPTOTIC_MIN_CLASS + 1",
        ("tests/test_audit_engines.py",),
        "with exactly 1,000 rows in the smallest class an engine reads the rows back for a "
        "test it could take from its DeLong sums",
    ),
    # kind from the round-3 survivor r3-audsum-class-totals (the true classes' margins of the
    # confusion cells taken from the predicted classes)
    m(
        "attribute-base-rate-predicted",
        "fastfair/auditing/api.py",
        "    positives = cells[:, 2] + cells[:, 3]",
        "    positives = cells[:, 1] + cells[:, 3]",
        ("tests/test_cli_input.py",),
        "each group's base rate in the audit's attribute summary counts predicted positives",
    ),
    # kinds from the round-4 survivors (scripts/mutants_round4.py, run on 6c095c1):
    # r4-compare-auto-strict (an auto rule one off its boundary: DeLong at 1,000 of each
    # class), r4-placement-select-neg-squares (a per-group field left out of a selection)
    # and r4-spark-untested-group-zero (rows of untested groups counted in the first one)
    m(
        "compare-auc-auto-one-above",
        "fastfair/compare/inference.py",
        "large = min(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS",
        "large = min(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS + 1",
        ("tests/test_compare.py",),
        "compare_auc's auto rule takes the swap test with exactly 1,000 of each class",
    ),
    m(
        "scorestats-select-keeps-all-counts",
        "fastfair/engines/summaries.py",
        '    _PER_GROUP = ("labels", "counts")',
        '    _PER_GROUP = ("labels",)',
        ("tests/test_stats.py",),
        "ScoreStats.select keeps every group's counts: a selection reads the first groups'",
    ),
    m(
        "group-rows-untested-as-first",
        "fastfair/engines/clusters.py",
        "        out = np.full(len(known), -1, dtype=np.intp)",
        "        out = np.zeros(len(known), dtype=np.intp)",
        ("tests/test_audit_engines.py",),
        "rows read back for the AUC test: rows of groups not wanted are coded as the first one",
    ),
    # kind from the round-4 survivor r4-parity-normal-scale-df (a statistic mapped to the
    # reference scale of the bootstrap through the wrong distribution): two groups' z^2
    # from a one-sided instead of a two-sided p-value
    m(
        "parity-normal-scale-one-sided",
        "fastfair/parity/inference.py",
        "        return special.ndtri(0.5 * pvalues) ** 2",
        "        return special.ndtri(pvalues) ** 2",
        ("tests/test_parity.py",),
        "two groups' max test maps each point's t to the normal scale from a one-sided p",
    ),
    # kind from the round-4 survivor r4-stats-all-no-cube (a public name left out of a
    # public module's __all__)
    m(
        "compare-all-drops-compare-auc",
        "fastfair/compare/__init__.py",
        """    "compare_auc",
""",
        "",
        ("tests/test_public_api.py",),
        "fastfair.compare.__all__ no longer lists compare_auc: `import *` and the API walks "
        "miss it",
    ),
    # kind from the round-4 survivor r4-tce-quantile-midpoints (quantiles taken at the wrong
    # probability positions); r4-compare-auto-negatives-as-size's kind (a class count from
    # the wrong margin) is attribute-base-rate-predicted above
    m(
        "weighted-quantile-positions-not-midpoints",
        "fastfair/_clustered.py",
        "    pos = (np.cumsum(ws) - 0.5 * ws) / total",
        "    pos = np.cumsum(ws) / total",
        ("tests/test_calibration.py",),
        "weighted quantiles at cumulative-weight positions, not the midpoints (Hazen): the "
        "TCE at quantiles and the bandwidth's robust scale move",
    ),
    # kind from the round-5 survivor r5-counts-stream-ignores-start (a block of draws that
    # restarts the random streams instead of continuing them), in two other kernels
    m(
        "kernel-sums-stream-ignores-start",
        "csrc/_kernel_sums.pyx",
        "            ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))\n"
        "            for k in range(K * P):",
        "            ff_stream_init(stream, key, stream_id, <uint64_t> b)\n"
        "            for k in range(K * P):",
        ("tests/test_parity.py",),
        "parity's bootstrap block b reuses stream b instead of start + b: the sequential "
        "parity test repeats its first draws when it continues",
    ),
    m(
        "paired-stream-ignores-start",
        "csrc/_paired.pyx",
        "ff_stream_init(stream, key, stream_id, <uint64_t> (start + p))",
        "ff_stream_init(stream, key, stream_id, <uint64_t> p)",
        ("tests/test_compare.py",),
        "the paired swaps of a later block repeat the first block's: compare_auc's swap "
        "test over more than one block draws the same permutations again",
    ),
    # kind from the round-5 survivor r5-auck-fallback-wrong-pairs (a term of the
    # zero-variance fallback divided by the other group's pairs)
    m(
        "auc-fallback-first-term-wrong-pairs",
        "csrc/_auc.pyx",
        "v = sa * (1.0 - sa) / pa + sb * (1.0 - sb) / pb",
        "v = sa * (1.0 - sa) / pb + sb * (1.0 - sb) / pb",
        ("tests/test_auc.py",),
        "the studentized AUC's zero-variance fallback divides group a's term by group b's "
        "pairs: separated groups of different sizes get another statistic",
    ),
    # kind from the round-5 survivor r5-plan-score-direction-swapped (the score plan's null
    # fitted on the wrong side of the presumed gap)
    m(
        "plan-score-null-one-side",
        "fastfair/planning/inference.py",
        "n1, r[oth] * n2, n2, sign * u_tol)",
        "n1, r[oth] * n2, n2, u_tol)",
        ("tests/test_planning.py",),
        "the score plan's restricted MLE is always fitted at +u_tol: a reference rate below "
        "the other's plans from a null on the wrong side",
    ),
    # kind from the round-5 survivor r5-res-basic-becomes-percentile (a bootstrap interval
    # from the wrong quantiles)
    m(
        "bootstrap-basic-quantiles-one-sided",
        "fastfair/resampling/inference.py",
        "q_lo, q_hi = np.quantile(d, [a_level / 2, 1 - a_level / 2])",
        "q_lo, q_hi = np.quantile(d, [a_level, 1 - a_level])",
        ("tests/test_resampling.py",),
        "the basic bootstrap interval takes the alpha and 1 - alpha quantiles: a 90% "
        "interval reported as 95%",
    ),
    # kind from the round-4 survivor r4-audit-compare-permutations-default (a documented
    # default count of draws the sequential audit uses), for two other parts of the audit
    m(
        "audit-slice-permutations-default",
        "fastfair/auditing/ingest.py",
        "SLICE_PERMUTATIONS = 999",
        "SLICE_PERMUTATIONS = 99",
        ("tests/test_audit_slices.py",),
        "the sequential audit's slice search draws 99 permutations, not the documented 999",
    ),
    m(
        "audit-sweep-permutations-default",
        "fastfair/auditing/api.py",
        "SWEEP_PERMUTATIONS = 9999  #",
        "SWEEP_PERMUTATIONS = 999  #",
        ("tests/test_sweep.py",),
        "the sequential audit's threshold sweep draws 999 permutations, not 9,999: a "
        "coarser critical value in the report's band",
    ),
    # kinds from round six's five survivors (2026-11-27): each a variant of the survivor's
    # mistake, killed by the test written for the survivor
    m(
        "loco-cv-leave-out-unweighted",
        "csrc/_kernel_sums.pyx",
        "den = sb[g, j] - w * bufb[j]\n",
        "den = sb[g, j] - bufb[j]\n",
        ("tests/test_kernel_sums.py",),
        "the bandwidth's cross-validation leaves cluster m out of the lower grid point's "
        "denominator without its weight: another loss, another bandwidth='cv'",
    ),
    m(
        "exact-size-rule-strict",
        "fastfair/_unconditional.py",
        "return (n1 + n2 <= MAX_SIZE) | (np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        "return (n1 + n2 < MAX_SIZE) | (np.minimum(n1, n2) <= SMALL_GROUP_MAX)",
        ("tests/test_tolerance.py",),
        "the exact test refuses two groups of exactly MAX_SIZE rows in all",
    ),
    m(
        "simulated-two-sided-upper-side-at-minus-u-tol",
        "fastfair/planning/inference.py",
        "upper = sign * z_of(sign * u_tol)",
        "upper = sign * z_of(-sign * u_tol)",
        ("tests/test_planning.py",),
        "simulate_power's tolerance test checks the upper side at -u_tol: a gap inside the "
        "tolerance is 'shown' above it",
    ),
    m(
        "composite-parity-any-passes",
        "fastfair/calibration/api.py",
        "bool(np.all(p >= alpha / len(p)))",
        "bool(np.any(p >= alpha / len(p)))",
        ("tests/test_calibration.py",),
        "check_composite_parity passes when any composite passes, not all",
    ),
    m(
        "audit-compare-gap-size-signed",
        "fastfair/auditing/api.py",
        "np.abs(np.atleast_1d(t[k])).max()",
        "np.atleast_1d(t[k]).max()",
        ("tests/test_compare.py",),
        "the audit's 'gap grew' sizes a gap by its largest signed part: a gap that grew in "
        "the negative direction reads 'gap changed'",
    ),
    m(
        "sequential-bh-strict",
        "fastfair/_sequential.py",
        "ok = np.flatnonzero(ranked <= alpha * np.arange(1, m + 1) / m)",
        "ok = np.flatnonzero(ranked < alpha * np.arange(1, m + 1) / m)",
        ("tests/test_sequential.py",),
        "the sequential Benjamini-Hochberg rule is strict: a known p-value equal to its "
        "step-up level is retained by multiple_monte_carlo(adjust='bh')",
    ),
    m(
        "exact-bound-strict",
        "fastfair/_unconditional.py",
        "rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, n_jobs) <= alpha",
        "rejected = exact_pvalue(x1, n1, x2, n2, mid, test, correction, n_jobs) < alpha",
        ("tests/test_tolerance.py",),
        "the exact interval's inversion keeps a margin whose p-value equals alpha",
    ),
    m(
        "one-point-grid-at-lower-end",
        "fastfair/_clustered.py",
        "np.linspace(lo, hi, n_points) if n_points > 1 else np.array([(lo + hi) / 2])",
        "np.linspace(lo, hi, n_points) if n_points > 1 else np.array([lo])",
        ("tests/test_parity.py",),
        "grid=1 evaluates parity at the lower end of the common range, not its middle",
    ),
    m(
        "degenerate-rule-without-n-eff",
        "fastfair/parity/inference.py",
        "(var * n_eff <= zero) & (n_eff > 0)",
        "(var <= zero) & (n_eff > 0)",
        ("tests/test_parity.py",),
        "the constant-outcome rule reads the variance of the mean, not the per-row variance: "
        "outcomes 1 or 1 + 1e-5 over many rows get the shrunk floor",
    ),
    m(
        "centred-ss-zeroes-one-half",
        "csrc/_auc.pyx",
        "if d < 0.25 or d < 1e-13 * q:",
        "if d <= 0.5 or d < 1e-13 * q:",
        ("tests/test_auc.py",),
        "the kernel's exact-zero rule also zeroes a placements' sum of squares of 1/2",
    ),
    m(
        "runs-drop-the-threshold-outcome",
        "fastfair/_unconditional.py",
        "(self.statistic(x1, x2) >= threshold)",
        "(self.statistic(x1, x2) > threshold)",
        ("tests/test_tolerance.py",),
        "the exact test's runs leave out an outcome whose Z equals the threshold exactly",
    ),
    m(
        "score-zero-rule-too-wide",
        "fastfair/_score.py",
        "return np.where(np.abs(num) <= 1e-14, 0.0, z)",
        "return np.where(np.abs(num) <= 1e-4, 0.0, z)",
        ("tests/test_tolerance.py",),
        "a difference 3e-5 from the margin read as 0 on ten million rows per group",
    ),
    m(
        "score-plan-tie-other-side",
        "fastfair/planning/inference.py",
        "sign = np.where(r[ref] >= r[oth], 1.0, -1.0)",
        "sign = np.where(r[ref] > r[oth], 1.0, -1.0)",
        ("tests/test_planning.py",),
        "the score plan with equal rates fits the null at U = -u_tol",
    ),
    m(
        "plan-interval-one-sided-levels",
        "fastfair/planning/api.py",
        "q = [(1 - conf) / 2 * 100, (1 + conf) / 2 * 100]",
        "q = [(1 - conf) * 100, conf * 100]",
        ("tests/test_planning.py",),
        "plan_from_data's intervals at the one-sided percentiles 1 - conf and conf",
    ),
    m(
        "bonferroni-upper-threshold-alpha",
        "fastfair/_sequential.py",
        "return alpha / m, alpha / m",
        "return alpha, alpha / m",
        ("tests/test_sequential.py",),
        "a Bonferroni family draws ahead only to where an interval lies below alpha, not alpha/m",
    ),
    m(
        "followed-by-accepts-a-shared-edge",
        "fastfair/engines/summaries.py",
        "if not self.high < other.low:",
        "if not self.high <= other.low:",
        ("tests/test_score_runs.py",),
        "placement sums whose edge scores tie are chained as if sorted apart",
    ),
    m(
        "counts-kernel-refuses-zero-draws",
        "csrc/_counts.pyx",
        "if problem is None and n_permutations < 0:",
        "if problem is None and n_permutations < 1:",
        ("tests/test_kernel_inputs.py",),
        "the counts kernel refuses n_permutations = 0 (an empty null) as if negative",
    ),
    m(
        "slice-kernel-less-oriented-as-greater",
        "csrc/_slices.pyx",
        "    return -z",
        "    return z",
        ("tests/test_slices.py",),
        "the slice search's permuted maxima for alternative='less' taken on the greater side",
    ),
    m(
        "monitor-frame-reference-denominator",
        "fastfair/monitor/results.py",
        '"reference_denominator": int(self.denominators[i, 0]),',
        '"reference_denominator": int(self.denominators[i, g]),',
        MON,
        "to_frame's reference_denominator shows the group's denominator",
    ),
    m(
        "slice-frame-complement-value",
        "fastfair/slices/results.py",
        '"complement_value": self.complement_value,',
        '"complement_value": self.value,',
        ("tests/test_slices.py",),
        "a slice's to_frame/to_dict complement_value repeats the slice's own value",
    ),
    m(
        "wasserstein-theta-mean-of-group-means",
        "fastfair/wasserstein/inference.py",
        "common = sum(hc.sum() for hc in h) / sum(len(hc) for hc in h)  # mean of h given y",
        "common = sum(hc.mean() for hc in h) / len(h)  # mean of h given y",
        WAS,
        "theta centres h at the mean of the two groups' means, not over the label's rows",
    ),
    m(
        "rows-kernel-fixed-weights-not-squared",
        "csrc/_rows.pyx",
        "np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside] ** 2)",
        "np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside])",
        ("tests/test_kernel_inputs.py",),
        "weighted rows outside every stratum add their weight, not its square, to the sums",
    ),
    m(
        "delong-fallback-group-a-twice",
        "fastfair/auc/inference.py",
        "fallback = (shrunk * (1 - shrunk) / n_pairs)[a] + (shrunk * (1 - shrunk) / n_pairs)[b]",
        "fallback = (shrunk * (1 - shrunk) / n_pairs)[a] + (shrunk * (1 - shrunk) / n_pairs)[a]",
        ("tests/test_auc.py",),
        "the DeLong z-test's zero-variance fallback takes group a's term twice",
    ),
    m(
        "ordered-chunks-users-counted-as-rows",
        "fastfair/engines/clusters.py",
        "n_clusters += np.bincount(cgroup, minlength=K)",
        "n_clusters += np.bincount(cgroup, weights=np.diff(starts), minlength=K).astype(np.int64)",
        ("tests/test_sorted_clusters.py",),
        "the ordered-chunks pass counts each group's rows as its users (an engine count)",
    ),
    m(
        "multi-objective-bandwidth-rows-not-weights",
        "fastfair/calibration/statistics.py",
        "max(m_eff, 2.0) ** (-1.0 / (K + 4))",
        "max(len(wg), 2.0) ** (-1.0 / (K + 4))",
        ("tests/test_calibration.py",),
        "the calibrator's Scott bandwidth counts rows, not the users' weights, as M",
    ),
    m(
        "report-errors-names-two",
        "fastfair/auditing/report.py",
        "for t in failed[:3]",
        "for t in failed[:2]",
        ("tests/test_first_hour.py",),
        "the summary's errors sentence names two failed tests while it counts beyond three",
    ),
    m(
        "report-clip-one-wider",
        "fastfair/auditing/report.py",
        'text[: width - 3] + "..."',
        'text[: width - 2] + "..."',
        ("tests/test_audit.py",),
        "a clipped label in the printed table keeps 38 characters before the '...' (41 wide)",
    ),
    m(
        "audit-constant-rule-inverted",
        "fastfair/auditing/api.py",
        "if len(kinds) == 2 and kinds[0][1] == kinds[1][1]:",
        "if len(kinds) == 2 and kinds[0][1] != kinds[1][1]:",
        ("tests/test_first_hour.py",),
        "opposite constant predictions are skipped as an error and the same constant is tested",
    ),
    m(
        "kernel-sums-grid-repeat",
        "csrc/_kernel_sums.pyx",
        "np.any(np.diff(np.asarray(grid)) <= 0)",
        "np.any(np.diff(np.asarray(grid)) < 0)",
        ("tests/test_kernel_sums.py",),
        "the parity kernels accept a grid with a repeated point (strictly increasing required)",
    ),
    m(
        "runs-high-min",
        "fastfair/engines/summaries.py",
        "high = max(float(s[-1]) for s in present)",
        "high = min(float(s[-1]) for s in present)",
        ("tests/test_score_runs.py",),
        "merged score runs keep the lowest of their highest scores, not the highest",
    ),
    m(
        "was-root-slope-sign",
        "csrc/_wasserstein.pyx",
        "        dg = 1.0 + c * d2\n",
        "        dg = 1.0 - c * d2\n",
        ("tests/test_wasserstein.py",),
        "the inner Newton search of the Wasserstein dual steps with a wrong slope of z + c sigma'",
    ),
    m(
        "plan-delta-zero-margin",
        "fastfair/planning/ingest.py",
        "if not np.isfinite(v) or v <= 0:",
        "if not np.isfinite(v) or v < 0:",
        ("tests/test_planning.py",),
        "an equivalence plan accepts a margin delta of exactly 0 (no gap can be inside it)",
    ),
    m(
        "seq-bh-first-pass",
        "fastfair/_sequential.py",
        "out[order[: ok[-1] + 1]] = True",
        "out[order[: ok[0] + 1]] = True",
        ("tests/test_sequential.py",),
        "sequential BH rejects up to the first ranked p-value under its level, not the last",
    ),
    m(
        "sweep-critical-none-sign",
        "fastfair/sweep/inference.py",
        "        return np.full(null.shape[1], np.inf)",
        "        return np.full(null.shape[1], -np.inf)",
        ("tests/test_sweep.py",),
        "with too few permutations to reach alpha the sweep's critical value is -inf (all reject)",
    ),
    m(
        "binary-two-values-refused",
        "fastfair/_validation.py",
        "    if len(values_seen) > 2:",
        "    if len(values_seen) >= 2:",
        ("tests/test_ingest.py",),
        "a binary column with two labels other than 0/1 ('no'/'yes') is refused as not binary",
    ),
    m(
        "audit-frame-components-swapped",
        "fastfair/auditing/results.py",
        'parts = ["tpr", "fpr"] if isinstance(t.get("difference"), list) else [t["metric"]]',
        'parts = ["fpr", "tpr"] if isinstance(t.get("difference"), list) else [t["metric"]]',
        ("tests/test_audit.py",),
        "the audit frame's equalized-odds rows name the TPR component fpr and the FPR one tpr",
    ),
]
