"""Second-round mutants of issue #36: written from the code alone, without reading the tests
(a reviewer session, 2026-11-27, against main 85d1110).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, p-value.
"""

from __future__ import annotations

from mutants import Mutant

SEQ = "fastfair/_sequential.py"
UNC = "fastfair/_unconditional.py"
SCORE = "fastfair/_score.py"
TOL = "fastfair/tolerance/statistics.py"
CLU = "fastfair/_clustered.py"
SWEEP = "fastfair/sweep/inference.py"
AUDIT = "fastfair/auditing/api.py"
CMP = "fastfair/compare/inference.py"
MON = "fastfair/monitor/inference.py"
SLI = "fastfair/slices/inference.py"
PLAN = "fastfair/planning/inference.py"

MUTANTS = [
    # ---- sequential Monte Carlo -----------------------------------------------------------
    Mutant(
        id="r2-seq-run-epsilon-unsplit",
        file=SEQ,
        old=(
            '    delta = options.epsilon / m if procedure != "none" else options.epsilon\n'
            "    cap = default_cap(options, m, procedure)"
        ),
        new=("    delta = options.epsilon\n    cap = default_cap(options, m, procedure)"),
        tests=(),
        why="allocation: the running intervals of a family use the whole epsilon instead of "
        "epsilon / K, so they are too narrow (wrong pvalue_interval, earlier stops)",
    ),
    Mutant(
        id="r2-seq-family-no-reset",
        file=SEQ,
        old=(
            "s.lo, s.hi = 0.0, 1.0  # intervals at the family's level, not the test's\n"
            "            s.narrow(delta)"
        ),
        new="s.narrow(delta)",
        tests=(),
        why="allocation: state not reset: the interval of a single test (level epsilon) is "
        "intersected with the family's, so the family interval is narrower than epsilon / K "
        "allows",
    ),
    Mutant(
        id="r2-seq-narrow-no-intersection",
        file=SEQ,
        old="        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)",
        new="        self.lo, self.hi = lo, hi",
        tests=(),
        why="formula: the running interval is replaced by the current Robbins interval instead "
        "of intersected with the earlier ones (wider intervals, later decisions)",
    ),
    Mutant(
        id="r2-seq-holm-thresholds",
        file=SEQ,
        old="    return alpha, alpha / m\n",
        new="    return alpha, alpha\n",
        tests=(),
        why="allocation: Holm's smallest level taken as alpha instead of alpha / m: the default "
        "cap and block sizes are computed for the wrong level (fewer permutations, undecided)",
    ),
    Mutant(
        id="r2-seq-holm-step-off-by-one",
        file=SEQ,
        old="        ok = ranked <= alpha / (m - np.arange(m))",
        new="        ok = ranked <= alpha / (m - np.arange(m) + 1)",
        tests=(),
        why="boundary: Holm's step k compares with alpha / (m - k + 1) instead of "
        "alpha / (m - k): the sequential family rejects less",
    ),
    Mutant(
        id="r2-seq-pvalue-missing-plus-one",
        file=SEQ,
        old="        return (self.count + 1.0) / (self.n + 1.0)",
        new="        return self.count / (self.n + 1.0)",
        tests=(),
        why="p-value: the sequential sampler's p-value drops the +1 of the observed statistic "
        "(can be 0, anti-conservative)",
    ),
    # ---- exact unconditional test, tails, score statistic, hybrid interval -----------------
    Mutant(
        id="r2-unc-refine-one-side",
        file=UNC,
        old="[np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)], _REFINE)",
        new="[np.linspace(grid[max(i - 1, 0)], grid[i], _REFINE)",
        tests=(),
        why="boundary: the refinement of the nuisance grid only looks left of each best point, "
        "so a supremum right of a grid point is missed (p-value slightly too small)",
    ),
    Mutant(
        id="r2-unc-tie-threshold-sign",
        file=UNC,
        old='        return z_obs - tie if side == "greater" else z_obs + tie',
        new='        return z_obs + tie if side == "greater" else z_obs - tie',
        tests=(),
        why="orientation: the tie tolerance moves the threshold away from the observed Z, so "
        "outcomes tied with it (and the observed table itself) leave the region",
    ),
    Mutant(
        id="r2-unc-cdf-below-off-by-one",
        file=UNC,
        old="below = np.where(lo > 0, special.bdtr(np.maximum(lo - 1, 0), n_l, p), 0.0)",
        new="below = np.where(lo > 0, special.bdtr(lo, n_l, p), 0.0)",
        tests=(),
        why="boundary: P(first <= X <= last) loses the term X = first in the CDF sums of a small "
        "group against a huge reference (n1 + n2 > 1e6)",
    ),
    Mutant(
        id="r2-tails-kernel-last-run",
        file="csrc/_margin_tails.pyx",
        old="                if run_x2[r] > hi2:",
        new="                if run_x2[r] >= hi2:",
        tests=(),
        why="kernel: the loop over runs stops one x2 early, dropping the run at the window's "
        "upper end (x2 = n2 when the sums are not windowed): tail probabilities too small",
    ),
    Mutant(
        id="r2-score-correction-inverted",
        file=SCORE,
        old="        var = var * total / np.maximum(total - 1.0, 1e-300)",
        new="        var = var * (total - 1.0) / total",
        tests=(),
        why="formula: Miettinen-Nurminen's factor N / (N - 1) inverted in the array path (the "
        "exact test's statistic and intervals of more than 64 comparisons)",
    ),
    Mutant(
        id="r2-score-hybrid-lower-swapped-limit",
        file=SCORE,
        old="    lower = diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)",
        new="    lower = diff - np.sqrt((p1 - l1) ** 2 + (p2 - l2) ** 2)",
        tests=(),
        why="orientation: Newcombe's lower end uses the reference's lower limit instead of its "
        "upper one (asymmetric limits near 0 or 1 give a wrong lower end)",
    ),
    Mutant(
        id="r2-score-exact-limits-boundary",
        file=SCORE,
        old="    exact = np.minimum(x, n - x) < exact_below",
        new="    exact = np.minimum(x, n - x) <= exact_below",
        tests=(),
        why="boundary: a group with exactly EXACT_LIMITS_BELOW events or non-events gets "
        "Clopper-Pearson limits instead of Wilson's",
    ),
    # ---- method="auto" rules -----------------------------------------------------------------
    Mutant(
        id="r2-auto-unbalanced-strict",
        file=TOL,
        old="    unbalanced = np.maximum(n_a, n_b) >= UNBALANCED_RATIO * np.minimum(n_a, n_b)",
        new="    unbalanced = np.maximum(n_a, n_b) > UNBALANCED_RATIO * np.minimum(n_a, n_b)",
        tests=(),
        why="boundary: groups exactly UNBALANCED_RATIO apart are not treated as unbalanced by "
        "the auto rule of the tolerance test",
    ),
    Mutant(
        id="r2-auto-fewest-forgets-reference-nonevents",
        file=TOL,
        old="        fewest = np.minimum.reduce([xa, na - xa, xb, nb - xb])",
        new="        fewest = np.minimum.reduce([xa, na - xa, xb])",
        tests=(),
        why="allocation: the auto rule ignores the reference's non-events, so a reference with "
        "few non-events is sent to the score test",
    ),
    Mutant(
        id="r2-auto-exact-below-inclusive",
        file=TOL,
        old="    few = (fewest < EXACT_BELOW) | (unbalanced & (fewest < EXACT_BELOW_UNBALANCED))",
        new="    few = (fewest <= EXACT_BELOW) | (unbalanced & (fewest < EXACT_BELOW_UNBALANCED))",
        tests=(),
        why="boundary: exactly EXACT_BELOW events sends a table to the exact test",
    ),
    Mutant(
        id="r2-auto-auc-delong-strict",
        file="fastfair/auc/inference.py",
        old='            "delong" if options.studentize and smallest >= ASYMPTOTIC_MIN_CLASS else '
        '"permutation"',
        new='            "delong" if options.studentize and smallest > ASYMPTOTIC_MIN_CLASS else '
        '"permutation"',
        tests=(),
        why="boundary: the AUC test's auto method needs one more row than documented in the "
        "smallest class before taking the DeLong shortcut",
    ),
    Mutant(
        id="r2-auto-compare-min-asymptotic",
        file=CMP,
        old="        pvalues = tuple(np.maximum(p, q) for p, q in zip(pvalues, asymptotic))",
        new="        pvalues = tuple(np.minimum(p, q) for p, q in zip(pvalues, asymptotic))",
        tests=(),
        why="p-value: compare_models' auto takes the more significant of the exact/permutation "
        "and asymptotic p-values instead of the less significant",
    ),
    # ---- clustered parity, kernel sums, bandwidth --------------------------------------------
    Mutant(
        id="r2-clu-sizes-count-nan-rows",
        file=CLU,
        old="sizes_all = np.bincount(ccodes[usable], minlength=len(clabels)).astype(np.float64)",
        new="sizes_all = np.bincount(ccodes, minlength=len(clabels)).astype(np.float64)",
        tests=(),
        why="allocation: per-user weights 1/n_m count rows whose score is NaN (dropped with "
        "nan_policy='omit'), so those users are down-weighted",
    ),
    Mutant(
        id="r2-clu-cv-rescale-inverted",
        file=CLU,
        old="    h = best * (m_sub / m_all) ** 0.2 * max(m_all, 2) ** (-undersmooth)",
        new="    h = best * (m_all / m_sub) ** 0.2 * max(m_all, 2) ** (-undersmooth)",
        tests=(),
        why="orientation: the CV bandwidth of a subsample of clusters is rescaled the wrong way "
        "(grows instead of shrinking with the full number of users)",
    ),
    Mutant(
        id="r2-clu-weighted-quantile-positions",
        file=CLU,
        old="    pos = (np.cumsum(ws) - 0.5 * ws) / total",
        new="    pos = np.cumsum(ws) / total",
        tests=(),
        why="formula: weighted quantiles at the cumulative weights, not their midpoints: the "
        "default grid ends and the robust scale (rule-of-thumb bandwidth) shift",
    ),
    Mutant(
        id="r2-parity-min-effective-strict",
        file="fastfair/parity/statistics.py",
        old="    ok = (sb > 0) & (n_eff >= min_effective_clusters)",
        new="    ok = (sb > 0) & (n_eff > min_effective_clusters)",
        tests=(),
        why="boundary: a point with exactly min_effective_clusters effective users is not tested",
    ),
    Mutant(
        id="r2-parity-sandwich-cross-term",
        file="fastfair/parity/statistics.py",
        old='        num = sums["sum_aa"] - 2.0 * f * sums["sum_ab"] + f * f * sums["sum_bb"]',
        new='        num = sums["sum_aa"] - f * sums["sum_ab"] + f * f * sums["sum_bb"]',
        tests=(),
        why="formula: the sandwich sum of (a - f b)^2 loses the factor 2 of the cross term",
    ),
    Mutant(
        id="r2-parity-welch-df-swapped",
        file="fastfair/parity/inference.py",
        old="dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + var[1] ** 2 / df[1])",
        new="dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[1] + var[1] ** 2 / df[0])",
        tests=(),
        why="formula: the Welch-Satterthwaite df pairs each group's variance with the other "
        "group's df",
    ),
    Mutant(
        id="r2-kernel-sum-ab-copy-paste",
        file="csrc/_kernel_sums.pyx",
        old="                    acc[(3 * K + g) * G + j] += aj * bj",
        new="                    acc[(3 * K + g) * G + j] += aj * aj",
        tests=(),
        why="kernel: sum_ab accumulates a^2 (copy of the line above): the clustered variance is "
        "wrong wherever outcomes are not constant",
    ),
    # ---- threshold sweep ---------------------------------------------------------------------
    Mutant(
        id="r2-sweep-mc-critical-denominator",
        file=SWEEP,
        old="    j = int(np.floor(alpha * (b + 1) - 1)) + 1",
        new="    j = int(np.floor(alpha * b - 1)) + 1",
        tests=(),
        why="p-value: the rank of the Monte-Carlo critical value uses alpha B instead of "
        "alpha (B + 1): the band is one order statistic too wide",
    ),
    Mutant(
        id="r2-sweep-mc-critical-index",
        file=SWEEP,
        old="    return np.partition(null, b - j, axis=0)[b - j]",
        new="    return np.partition(null, b - j - 1, axis=0)[b - j - 1]",
        tests=(),
        why="boundary: the (j + 1)-th largest permuted value instead of the j-th: critical values "
        "and the band one order statistic too low",
    ),
    Mutant(
        id="r2-sweep-kernel-label1-bin",
        file="csrc/_sweep.pyx",
        old="above1 = above1 + bins[n_bins + k + 1] if stratum & 2 else above[k, 1]",
        new="above1 = above1 + bins[n_bins + k] if stratum & 2 else above[k, 1]",
        tests=(),
        why="kernel: the permuted count of label-1 rows above t_k adds the bin below the "
        "threshold instead of the one above it",
    ),
    # ---- the audit ---------------------------------------------------------------------------
    Mutant(
        id="r2-audit-eo-tolerance-no-bonferroni",
        file=AUDIT,
        old="        row.update(u_tol=u_tol, pvalue_tolerance=min(1.0, len(p) * min(p)))",
        new="        row.update(u_tol=u_tol, pvalue_tolerance=min(p))",
        tests=(),
        why="allocation: equalized odds' tolerance p-value takes the smaller component without "
        "Bonferroni over its two parts",
    ),
    Mutant(
        id="r2-audit-eo-equivalence-min",
        file=AUDIT,
        old='row.update(delta=delta, pvalue_equivalence=max(pvalue("equivalence", p) for p in '
        "parts))",
        new='row.update(delta=delta, pvalue_equivalence=min(pvalue("equivalence", p) for p in '
        "parts))",
        tests=(),
        why="orientation: equivalence of equalized odds needs both parts (intersection-union, "
        "max); min declares it equivalent when one part is",
    ),
    Mutant(
        id="r2-audit-family-ignores-tolerance",
        file=AUDIT,
        old='        family = [t.get("pvalue_tolerance", t["pvalue"]) for t in valid]',
        new='        family = [t["pvalue"] for t in valid]',
        tests=(),
        why="allocation: with a tolerance the audit adjusts the equality tests' p-values instead "
        "of the tolerance tests' (wrong family)",
    ),
    Mutant(
        id="r2-audit-shrunk-laplace",
        file=AUDIT,
        old="    return np.where(edge, (num + 0.5) / (den + 1.0), rate)",
        new="    return np.where(edge, (num + 1.0) / (den + 2.0), rate)",
        tests=(),
        why="formula: rates of 0 or 1 shrunk by one pseudo-observation (Laplace) instead of a "
        "half: the MDE and power of small groups change",
    ),
    Mutant(
        id="r2-audit-eo-mde-min",
        file=AUDIT,
        old='        mde=max(f["mde"] for f in figures),',
        new='        mde=min(f["mde"] for f in figures),',
        tests=(),
        why="orientation: equalized odds' MDE takes the better-powered part, so an underpowered "
        "comparison reads 'no evidence'",
    ),
    # ---- paired model comparison ---------------------------------------------------------------
    Mutant(
        id="r2-compare-covariance-ddof0",
        file="fastfair/compare/statistics.py",
        old="    return np.where(n > 1, sxy / np.maximum(n - 1.0, 1.0), 0.0), n",
        new="    return np.where(n > 1, sxy / np.maximum(n, 1.0), 0.0), n",
        tests=(),
        why="formula: the placements' covariance with ddof 0 while the DeLong variances use "
        "ddof 1: the paired AUC variance is off",
    ),
    Mutant(
        id="r2-compare-cross-covariance-halved",
        file="fastfair/compare/statistics.py",
        old="        cross += 2.0 * m.covariance[..., h, :]",
        new="        cross += m.covariance[..., h, :]",
        tests=(),
        why="formula: Var(d_B - d_A) subtracts the covariance once instead of twice",
    ),
    Mutant(
        id="r2-compare-margin-sign",
        file=CMP,
        old="    total = sign * (obs.gap_b + obs.gap_a) + delta",
        new="    total = sign * (obs.gap_b + obs.gap_a) - delta",
        tests=(),
        why="orientation: the 'not past -d_A' condition moves the margin the wrong way",
    ),
    Mutant(
        id="r2-compare-swap-stream-start",
        file="csrc/_paired.pyx",
        old="            ff_stream_init(stream, key, stream_id, <uint64_t> (start + p))",
        new="            ff_stream_init(stream, key, stream_id, <uint64_t> p)",
        tests=(),
        why="kernel: a continued block of swap permutations restarts the streams at 0, so its "
        "draws repeat the first block (wrong stream index)",
    ),
    # ---- anytime-valid monitoring --------------------------------------------------------------
    Mutant(
        id="r2-monitor-strip-side",
        file=MON,
        old="    out[..., 1:] += np.where(gap < lines, line_log, 0.0)",
        new="    out[..., 1:] += np.where(gap > lines, line_log, 0.0)",
        tests=(),
        why="orientation: the strip above a line bets with it when the plug-in gap is above the "
        "line (the wrong side)",
    ),
    Mutant(
        id="r2-monitor-threshold-no-family",
        file="fastfair/monitor/api.py",
        old="        return float(np.log(self.n_sequences / self.options.alpha))",
        new="        return float(np.log(1.0 / self.options.alpha))",
        tests=(),
        why="allocation: the rejection threshold forgets the K sequences (log(1/alpha) instead "
        "of log(K/alpha))",
    ),
    Mutant(
        id="r2-monitor-upper-edge",
        file=MON,
        old="    upper = np.where(any_open, edges[last + 1], np.nan)",
        new="    upper = np.where(any_open, edges[last], np.nan)",
        tests=(),
        why="boundary: the confidence sequence's upper end is the lower edge of the last open "
        "strip",
    ),
    Mutant(
        id="r2-monitor-kernel-null-from-block",
        file="csrc/_monitor.pyx",
        old="    _restricted(a1 * n1, n1, a2 * n2, n2, d, &q1, &q2)",
        new="    _restricted(x1, n1, x2, n2, d, &q1, &q2)",
        tests=(),
        why="kernel: the null point is fitted to the block's own counts instead of the projected "
        "alternative (a different, data-dependent e-factor)",
    ),
    # ---- engines' mergeable summaries ----------------------------------------------------------
    Mutant(
        id="r2-engines-meanstats-shift-squares",
        file="fastfair/engines/summaries.py",
        old="o_squares = other.squares + 2 * delta * other.total + other.n * delta * delta",
        new="o_squares = other.squares + delta * other.total + other.n * delta * delta",
        tests=(),
        why="formula: re-centring the other summary's sum of squares drops the factor 2 of the "
        "cross term (merges of summaries with different shifts)",
    ),
    Mutant(
        id="r2-engines-scorestats-ties",
        file="fastfair/engines/summaries.py",
        old="        below = np.cumsum(neg, axis=1) - neg",
        new="        below = np.cumsum(neg, axis=1)",
        tests=(),
        why="boundary: negatives at a positive's own score are counted fully and again as half "
        "ties in the summary's DeLong placements",
    ),
    Mutant(
        id="r2-engines-chan-merge",
        file="fastfair/engines/spark.py",
        old="        out[..., 2] = a[..., 2] + b[..., 2] + delta * delta * na * share",
        new="        out[..., 2] = a[..., 2] + b[..., 2] + delta * delta * nb * share",
        tests=(),
        why="formula: Chan's pairwise update uses nb^2 / n instead of na nb / n for the merged "
        "sum of squares of the placements",
    ),
    Mutant(
        id="r2-engines-cube-marginal-assign",
        file="fastfair/engines/cube.py",
        old="    np.add.at(total, key, counts)",
        new="    total[key] = counts",
        tests=(),
        why="kernel: fancy assignment keeps only the last cell of each marginal key instead of "
        "summing the repeats (marginal cubes lose counts)",
    ),
    # ---- slice discovery ---------------------------------------------------------------------
    Mutant(
        id="r2-slices-hypergeom-variance",
        file=SLI,
        old="    var = n * (big_n - n) * k * (big_n - k) / (big_n * big_n * (big_n - 1.0))",
        new="    var = n * (big_n - n) * k * (big_n - k) / (big_n * big_n * big_n)",
        tests=(),
        why="formula: the hypergeometric variance without the N - 1 of the finite population",
    ),
    Mutant(
        id="r2-slices-greater-tail",
        file=SLI,
        old="        return np.clip(law.sf(x - 1), 0.0, 1.0)",
        new="        return np.clip(law.sf(x), 0.0, 1.0)",
        tests=(),
        why="p-value: P(X > x) instead of P(X >= x) for a slice's one-sided exact p-value",
    ),
    Mutant(
        id="r2-slices-by-constant",
        file=SLI,
        old="(p[order] * m * c_m / np.arange(1, m + 1))",
        new="(p[order] * m / np.arange(1, m + 1))",
        tests=(),
        why="formula: Benjamini-Yekutieli without its harmonic constant (plain BH)",
    ),
    # ---- AUC permutation kernel on untied scores ---------------------------------------------
    Mutant(
        id="r2-auc-ranks-placement-boundary",
        file="csrc/_auc.pyx",
        old="        while j < kn and nj[j] < pd[i]:",
        new="        while j < kn and nj[j] <= pd[i]:",
        tests=(),
        why="kernel: a drawn positive's placement counts the first drawn negative above it",
    ),
    Mutant(
        id="r2-auc-ranks-b-weight",
        file="csrc/_auc.pyx",
        old="        x = 2 * (j + 1)",
        new="        x = 2 * j",
        tests=(),
        why="kernel: B = 2 j instead of 2 (j + 1) on the positives above negative j: the rest's "
        "placement variance (studentized statistic) is off",
    ),
    # ---- planning -----------------------------------------------------------------------------
    Mutant(
        id="r2-plan-fpc-sign",
        file=PLAN,
        old="            c = c + fpc",
        new="            c = c - fpc",
        tests=(),
        why="orientation: the finite-population correction enlarges the sample size instead of "
        "reducing it",
    ),
    Mutant(
        id="r2-plan-bonferroni-k",
        file=PLAN,
        old="    a = alpha / (k - 1)",
        new="    a = alpha / k",
        tests=(),
        why="allocation: Bonferroni over k groups instead of the k - 1 comparisons with the "
        "reference",
    ),
]
