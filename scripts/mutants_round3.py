"""Third-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut3", 2026-11-27, against main 1706c68).

The author read fastfair/, csrc/ and the diff since round two (85d1110..1706c68), never
tests/, docs/testing.md or the earlier mutation records; the mutants sit in the modules
changed since round two (the exact AUC runs and their merges, the engines, the audit, the
null variance of predictive parity, the MOVER intervals of compare, sequential Monte Carlo's
budget, the exact conditional power of planning) plus the CR2 degrees of freedom. None
repeats a round-two mutant (scripts/mutants_round2.py).

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge.
"""

from __future__ import annotations

from mutants import Mutant

SUMS = "fastfair/engines/summaries.py"
RUNS = "csrc/_runs.pyx"
AUCK = "csrc/_auc.pyx"
DASK = "fastfair/engines/dask.py"
SPARK = "fastfair/engines/spark.py"
CLUS = "fastfair/engines/clusters.py"
CUBE = "fastfair/engines/cube.py"
ATTR = "fastfair/engines/attributes.py"
ARROW = "fastfair/engines/arrow.py"
AUDIT = "fastfair/auditing/api.py"
AUDSUM = "fastfair/auditing/summaries.py"
PARINF = "fastfair/parity/inference.py"
PARSTAT = "fastfair/parity/statistics.py"
CMP = "fastfair/compare/inference.py"
TOL = "fastfair/tolerance/statistics.py"
SEQ = "fastfair/_sequential.py"
CPOW = "fastfair/_conditional_power.py"
PLAN = "fastfair/planning/inference.py"

MUTANTS = [
    # ---- exact AUC summaries: placement sums and their merges (engines/summaries.py) ----
    Mutant(
        id="r3-placements-followed-pos-half-unit",
        file=SUMS,
        old='pos_sum = [x + y + 2 * p * q for x, y, p, q in zip(a["pos_sum"]',
        new='pos_sum = [x + y + p * q for x, y, p, q in zip(a["pos_sum"]',
        tests=(),
        why="merge/formula: when score-ordered parts are combined, each later positive's "
        "placement gains the earlier negatives in whole units, not half-units (AUC of a "
        "distributed sort too low)",
    ),
    Mutant(
        id="r3-placements-followed-negsq-wrong-part",
        file=SUMS,
        old='n0a, a["neg_sum"], n1b)',
        new='n0a, b["neg_sum"], n1b)',
        tests=(),
        why="merge/formula: the cross term of the negatives' sum of squares uses the later "
        "part's placement sum instead of the earlier part's (wrong DeLong s01 after a "
        "distributed sort)",
    ),
    Mutant(
        id="r3-placements-followed-possq-factor",
        file=SUMS,
        old="x + y + 4 * p * s + 4 * p * p * q",
        new="x + y + 4 * p * s + 2 * p * p * q",
        tests=(),
        why="merge/formula: (L + 2p)^2 expanded with 2 p^2 instead of 4 p^2 per shifted "
        "positive (DeLong s10 wrong when parts are chained)",
    ),
    Mutant(
        id="r3-placements-variance-ddof0",
        file=SUMS,
        old="(scale * scale * m * (m - 1))",
        new="(scale * scale * m * m)",
        tests=(),
        why="formula: the placements' sample variance with ddof 0 instead of 1 (DeLong "
        "variance of the exact summaries too small, p-values anti-conservative)",
    ),
    Mutant(
        id="r3-placements-variance-swapped-n",
        file=SUMS,
        old="variance=s10 / tot[:, 1] + s01 / tot[:, 0],",
        new="variance=s10 / tot[:, 0] + s01 / tot[:, 1],",
        tests=(),
        why="formula: DeLong's V = s10 / n_pos + s01 / n_neg with the class sizes swapped "
        "(wrong variance for unbalanced groups)",
    ),
    Mutant(
        id="r3-placements-s01-scale",
        file=SUMS,
        old="s01.append(_sample_variance(self.neg_sum[k], self.neg_squares[k], n0, 2 * n1))",
        new="s01.append(_sample_variance(self.neg_sum[k], self.neg_squares[k], n0, 2 * n0))",
        tests=(),
        why="formula: a negative's placement M is scaled by 2 n_neg instead of 2 n_pos "
        "(copy-paste from s10; wrong s01 when the classes differ in size)",
    ),
    Mutant(
        id="r3-placements-lin-columns-swapped",
        file=SUMS,
        old=(
            "        tuple(int(v) for v in lin[:, 1]), tuple(b[0] for b in big),\n"
            "        tuple(int(v) for v in lin[:, 0]), tuple(b[1] for b in big),"
        ),
        new=(
            "        tuple(int(v) for v in lin[:, 0]), tuple(b[0] for b in big),\n"
            "        tuple(int(v) for v in lin[:, 1]), tuple(b[1] for b in big),"
        ),
        tests=(),
        why="kernel layout: the merge's column 0 (sum of M over negatives) read as the "
        "positives' sum of L and vice versa",
    ),
    Mutant(
        id="r3-checked-rows-threshold-strict",
        file=SUMS,
        old="yhat = (s >= score_threshold(",
        new="yhat = (s > score_threshold(",
        tests=(),
        why="boundary: the engines predict positive for score > threshold instead of >= "
        "(a score exactly at the threshold is a negative prediction)",
    ),
    # ---- the k-way merge kernel of the exact AUC (csrc/_runs.pyx) ----------------------
    Mutant(
        id="r3-runs-neg-place-ties",
        file=RUNS,
        old="place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) + ep",
        new="place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1]) + ep",
        tests=(),
        why="kernel: a negative's placement counts the positives tied with it as above it "
        "and again as ties (3 half-units each); wrong with tied scores",
    ),
    Mutant(
        id="r3-runs-pos-place-no-ties",
        file=RUNS,
        old="place = 2 * w.below[2 * g] + en",
        new="place = 2 * w.below[2 * g]",
        tests=(),
        why="kernel: a positive's placement drops the negatives tied with it (ties count 0 "
        "instead of 1/2): AUC too low with tied scores",
    ),
    Mutant(
        id="r3-runs-below-labels-swapped",
        file=RUNS,
        old="        w.below[2 * g] += en\n        w.below[2 * g + 1] += ep",
        new="        w.below[2 * g] += ep\n        w.below[2 * g + 1] += en",
        tests=(),
        why="kernel index: the running counts of negatives and positives below the block are "
        "updated with each other's block counts",
    ),
    # ---- untied-score rank tables of the AUC permutation test (csrc/_auc.pyx) ----------
    Mutant(
        id="r3-auc-rank-tables-sa-half",
        file=AUCK,
        old="sa += 2 * ineg",
        new="sa += ineg",
        tests=(),
        why="kernel: the running sum of A (positives' placements, in half-units) adds the "
        "negatives below in whole units (permutation statistic of untied scores wrong)",
    ),
    Mutant(
        id="r3-auc-rank-tables-sd-off-by-one",
        file=AUCK,
        old="sd += 2 * (n_pos - ip)",
        new="sd += 2 * (n_pos - ip - 1)",
        tests=(),
        why="boundary: a negative's D counts the positives above it minus one (untied "
        "permutation path of auc_test)",
    ),
    # ---- dask and spark engines: distributed sorts and their merges ---------------------
    Mutant(
        id="r3-dask-audit-labels-unsorted",
        file=DASK,
        old="ranked = (y[order], s[order])",
        new="ranked = (y, s[order])",
        tests=(),
        why="orientation: the partition's scores are sorted but its labels are left in the "
        "original order (each score gets another row's label: wrong AUCs in the dask audit)",
    ),
    Mutant(
        id="r3-dask-audit-chain-drops-first",
        file=DASK,
        old="total.scores = {c: _chain([p[c] for p in present]) for c in combos}",
        new="total.scores = {c: _chain([p[c] for p in present[1:]]) for c in combos}",
        tests=(),
        why="merge: the dask audit chains the partitions' placement sums without the lowest "
        "partition (its rows are missing from the AUC)",
    ),
    Mutant(
        id="r3-spark-below-inclusive",
        file=SPARK,
        old="below = np.cumsum(counts, axis=0) - counts",
        new="below = np.cumsum(counts, axis=0)",
        tests=(),
        why="wrong offset in a distributed sum: each range partition's placements are shifted "
        "by the counts up to and including itself instead of those below it",
    ),
    Mutant(
        id="r3-spark-totals-predicted",
        file=SPARK,
        old="totals.append(np.column_stack([c[:, 0] + c[:, 1], c[:, 2] + c[:, 3]]))",
        new="totals.append(np.column_stack([c[:, 0] + c[:, 2], c[:, 1] + c[:, 3]]))",
        tests=(),
        why="allocation: the groups' negatives and positives taken as predicted negatives "
        "(TN + FN) and predicted positives (FP + TP)",
    ),
    Mutant(
        id="r3-spark-all-tied-auc-only",
        file=SPARK,
        old="return present & flat & (np.asarray(r.auc) == 0.5)",
        new="return present & (np.asarray(r.auc) == 0.5)",
        tests=(),
        why="formula: a group counts as all-tied whenever its AUC is exactly 0.5, though its "
        "placements vary (the audit then notes constant scores and skips a real test)",
    ),
    # ---- clustered engines: whole users, merged kernel sums (engines/clusters.py) -------
    Mutant(
        id="r3-clusters-whole-cut-off-by-one",
        file=CLUS,
        old="cut = int(change[-1]) + 1 if change.size else 0",
        new="cut = int(change[-1]) if change.size else 0",
        tests=(),
        why="boundary: the chunk is cut one row early, so the last row of the second-to-last "
        "user is carried into the next chunk and that user is split in two clusters",
    ),
    Mutant(
        id="r3-clusters-merge-max-summed",
        file=CLUS,
        old='np.maximum(v, b[k]) if k == "max_b" else v + b[k]',
        new="v + b[k]",
        tests=(),
        why="merge: the largest user weight of two chunks is summed like the other sums (the "
        "share of the heaviest user is overstated: CR2 pass and warnings where none apply)",
    ),
    # ---- confusion cube and exact-AUC runs by cell (cube, attributes, arrow) ------------
    Mutant(
        id="r3-cube-add-wrong-map",
        file=CUBE,
        old="kb.append(ib[other.keys[:, j]])",
        new="kb.append(ia[other.keys[:, j]])",
        tests=(),
        why="merge: the second cube's level codes are remapped with the first cube's map "
        "(copy-paste), so batches whose levels differ add counts to the wrong cells",
    ),
    Mutant(
        id="r3-combination-add-drops-other",
        file=ATTR,
        old="return CombinationScores(self.runs + other.runs, self.names, self.combos)",
        new="return CombinationScores(self.runs, self.names, self.combos)",
        tests=(),
        why="merge: adding two batches' AUC summaries keeps only the first batch's runs",
    ),
    Mutant(
        id="r3-arrow-cells-local-codes",
        file=ARROW,
        old="codes = np.take(np.asarray(local, dtype=np.intp), finest.codes)",
        new="codes = finest.codes",
        tests=(),
        why="allocation: a batch's cell codes are used without mapping them to the cells "
        "numbered across batches (a batch whose cells appear in another order mixes groups)",
    ),
    # ---- the audit (auditing/api.py, auditing/summaries.py) ----------------------------
    Mutant(
        id="r3-audit-auc-pair-reference",
        file=AUDIT,
        old="(codes[keep] == r).astype(np.intp)",
        new="(codes[keep] == g).astype(np.intp)",
        tests=(),
        why="orientation: the audit's AUC test of a pair codes the group, not the reference, "
        "as 1 (the difference's sign and a one-sided alternative flip)",
    ),
    Mutant(
        id="r3-audit-auc-delong-boundary",
        file=AUDIT,
        old="smallest >= fastfair.auc.ASYMPTOTIC_MIN_CLASS",
        new="smallest > fastfair.auc.ASYMPTOTIC_MIN_CLASS",
        tests=(),
        why="boundary: a pair whose smallest class has exactly ASYMPTOTIC_MIN_CLASS rows goes "
        "to the permutation test instead of DeLong",
    ),
    Mutant(
        id="r3-audit-slices-no-bonferroni",
        file=AUDIT,
        old='metric_alpha=options["alpha"] / len(metrics)',
        new='metric_alpha=options["alpha"]',
        tests=(),
        why="allocation: each metric's slice search runs at alpha instead of alpha / (number of "
        "metrics): the family-wise error over metrics exceeds alpha",
    ),
    Mutant(
        id="r3-audsum-class-totals",
        file=AUDSUM,
        old="tot = np.column_stack([cells[:, :2].sum(axis=1), cells[:, 2:].sum(axis=1)])",
        new="tot = np.column_stack([cells[:, ::2].sum(axis=1), cells[:, 1::2].sum(axis=1)])",
        tests=(),
        why="allocation: negatives/positives of each group taken as predicted negatives and "
        "positives (TN + FN, FP + TP): the DeLong-or-permutation rule sees the wrong sizes",
    ),
    Mutant(
        id="r3-audsum-reference",
        file=AUDSUM,
        old="res = selected.test(reference=attr.labels[r])",
        new="res = selected.test(reference=attr.labels[g])",
        tests=(),
        why="orientation: the summaries' DeLong test of a pair uses the group as its reference "
        "(difference of the wrong sign)",
    ),
    Mutant(
        id="r3-audsum-rows-index-unmapped",
        file=AUDSUM,
        old="rows_read = (y, s, np.asarray(wanted, dtype=np.intp)[index])",
        new="rows_read = (y, s, index)",
        tests=(),
        why="allocation: rows read back for the permutation test keep their position in the "
        "wanted list instead of the group code (rows of one group tested as another's)",
    ),
    Mutant(
        id="r3-audsum-shown-unsorted",
        file=AUDSUM,
        old="shown[:] = [attr.labels[k] for k in sorted(pair)]",
        new="shown[:] = [attr.labels[k] for k in pair]",
        tests=(),
        why="orientation: an intersection's two groups are relabelled in pair order though the "
        "selected sums are in code order (the AUCs of the two groups swap names)",
    ),
    # ---- predictive parity: the null variance and the CR2 df -----------------------------
    Mutant(
        id="r3-parity-null-variance-cross-term",
        file=PARINF,
        old='num = np.maximum(sums["sum_aa"] - 2.0 * f0 * sums["sum_ab"] + f0 * f0 * sbb, 0.0)',
        new='num = np.maximum(sums["sum_aa"] - f0 * sums["sum_ab"] + f0 * f0 * sbb, 0.0)',
        tests=(),
        why="formula: sum (a - f0 b)^2 expanded without the 2 of the cross term (null "
        "variance too large, the parity test loses power)",
    ),
    Mutant(
        id="r3-parity-null-variance-no-floor",
        file=PARINF,
        old="var = np.where(sb > 0, np.maximum(num, sigma2 * sbb) / (sb * sb), np.nan)",
        new="var = np.where(sb > 0, num / (sb * sb), np.nan)",
        tests=(),
        why="formula: the pooled floor of the null variance is dropped (a group with no "
        "positive near a point gets a tiny variance and a huge |z|)",
    ),
    Mutant(
        id="r3-parity-null-variance-denominator",
        file=PARINF,
        old="var = np.where(sb > 0, np.maximum(num, sigma2 * sbb) / (sb * sb), np.nan)",
        new="var = np.where(sb > 0, np.maximum(num, sigma2 * sbb) / sbb, np.nan)",
        tests=(),
        why="formula: the null variance divided by sum b^2 instead of (sum b)^2",
    ),
    Mutant(
        id="r3-parity-null-sigma-units",
        file=PARINF,
        old="sigma2 = num.sum(axis=0) / sbb.sum(axis=0)",
        new="sigma2 = num.sum(axis=0) / sb.sum(axis=0)",
        tests=(),
        why="formula: the pooled residual variance per unit of sum b (not sum b^2): the "
        "floor has the wrong scale",
    ),
    Mutant(
        id="r3-parity-interval-null-variance",
        file=PARINF,
        old="diff_se = np.sqrt(own[0] + own[1])",
        new="diff_se = np.sqrt(var[0] + var[1])",
        tests=(),
        why="allocation: the difference's interval uses the variance under the null (the "
        "test's) instead of each group's own (intervals of the wrong width)",
    ),
    Mutant(
        id="r3-parity-band-df",
        file=PARINF,
        old="df = tests.df if band_df is None else band_df",
        new="df = tests.df",
        tests=(),
        why="wrong degrees of freedom: the per-point critical values of the band use the "
        "tests' df (normal under the null variance) instead of the intervals' CR2 df",
    ),
    Mutant(
        id="r3-parity-null-covariance-center",
        file=PARSTAT,
        old="if fit.cov is not None and center is None:",
        new="if fit.cov is not None:",
        tests=(),
        why="formula: the bootstrap of the null variance reuses the CR2 covariance centred at "
        "each group's own estimate instead of the pooled curve",
    ),
    Mutant(
        id="r3-parity-cr2-df-trace",
        file=PARSTAT,
        old="tr = s1 - 2.0 * s2 + S * s1",
        new="tr = s1 - s2 + S * s1",
        tests=(),
        why="wrong degrees of freedom: the trace in the Bell-McCaffrey/Satterthwaite df loses "
        "the 2 of its cross term (t quantiles of the CR2 path wrong)",
    ),
    Mutant(
        id="r3-parity-fast-df-neff",
        file=PARSTAT,
        old='df = np.where(pos, sums["sum_bb"] ** 2 / sums["sum_b4"], np.nan)',
        new='df = np.where(pos, sums["sum_b"] ** 2 / sums["sum_bb"], np.nan)',
        tests=(),
        why="wrong degrees of freedom: the fast path's df (sum b^2)^2 / sum b^4 replaced by "
        "the effective number of users (sum b)^2 / sum b^2",
    ),
    # ---- compare: MOVER intervals of the change of a gap ------------------------------
    Mutant(
        id="r3-compare-mover-low-orientation",
        file=CMP,
        old="low = np.sqrt(down[..., g, :] + up[..., r, :])",
        new="low = np.sqrt(down[..., g, :] + down[..., r, :])",
        tests=(),
        why="orientation: the lower end of D = change_g - change_r subtracts the reference "
        "change's downward distance instead of its upward one",
    ),
    Mutant(
        id="r3-compare-mover-phi-sign",
        file=CMP,
        old="down = np.maximum(down_b**2 + up_a**2 - 2.0 * phi * down_b * up_a, 0.0)",
        new="down = np.maximum(down_b**2 + up_a**2 + 2.0 * phi * down_b * up_a, 0.0)",
        tests=(),
        why="sign: the correlation of the two models' metrics widens the lower MOVER distance "
        "of a paired change instead of narrowing it",
    ),
    Mutant(
        id="r3-compare-change-interval-swapped",
        file=CMP,
        old="return (change - np.sqrt(down), change + np.sqrt(up)), (diff - low, diff + high)",
        new="return (change - np.sqrt(up), change + np.sqrt(down)), (diff - low, diff + high)",
        tests=(),
        why="orientation: each group's change interval uses the upward distance below and "
        "the downward one above (asymmetric intervals reflected)",
    ),
    Mutant(
        id="r3-compare-rate-limits-rate",
        file=CMP,
        old="rate_limits(v * den, den, confidence_level)",
        new="rate_limits(v, den, confidence_level)",
        tests=(),
        why="formula: each model's rate limits are computed from the rate passed as the count "
        "of events (limits near 0 for every group)",
    ),
    Mutant(
        id="r3-compare-auc-limits-negatives",
        file=CMP,
        old="limits = auc_limits_of(moments, n_pos, sizes - n_pos, options.confidence_level)",
        new="limits = auc_limits_of(moments, n_pos, sizes, options.confidence_level)",
        tests=(),
        why="allocation: the AUC limits get the group size as its number of negatives (the "
        "Newcombe switch and the logit-t df see too many negatives)",
    ),
    Mutant(
        id="r3-tol-auc-limits-one-sided-z",
        file=TOL,
        old=(
            "    shrunk, var, df = logit_group_parts(auc, variance, n_pos, n_neg, True)\n"
            "    z = special.ndtri(0.5 + confidence_level / 2.0)"
        ),
        new=(
            "    shrunk, var, df = logit_group_parts(auc, variance, n_pos, n_neg, True)\n"
            "    z = special.ndtri(confidence_level)"
        ),
        tests=(),
        why="formula: the two-sided AUC limits of the hybrid MOVER use the one-sided z "
        "(1.645 at 95%: intervals too narrow)",
    ),
    # ---- sequential Monte Carlo: the interval split and the work budget -----------------
    Mutant(
        id="r3-seq-msampled-counts-all",
        file=SEQ,
        old="m_sampled = sum(s is not None for s in samplers)",
        new="m_sampled = len(samplers)",
        tests=(),
        why="allocation: epsilon is split over every hypothesis, exact p-values included, "
        "instead of the Monte-Carlo ones (intervals wider, more undecided)",
    ),
    Mutant(
        id="r3-seq-mmc-delta-all",
        file=SEQ,
        old="delta = _interval_level(epsilon, sum(s is not None for s in samplers), adjust)",
        new="delta = _interval_level(epsilon, len(samplers), adjust)",
        tests=(),
        why="allocation: the reported intervals of multiple_monte_carlo split epsilon over all "
        "hypotheses (not only the sampled ones): they disagree with the run's",
    ),
    Mutant(
        id="r3-seq-budget-cap-unused",
        file=SEQ,
        old="if samplers[k] is not None and samplers[k].n < caps[k]",
        new="if samplers[k] is not None and samplers[k].n < cap",
        tests=(),
        why="allocation: the loop stops every sampler at the default cap, so the work budget "
        "of a cheap test is computed but never used (undecided near the adjusted level)",
    ),
    Mutant(
        id="r3-seq-budget-cap-below-default",
        file=SEQ,
        old="return max(cap, min(BUDGET_CAP, budget // int(s.work)))",
        new="return min(BUDGET_CAP, budget // int(s.work))",
        tests=(),
        why="boundary: an expensive test's budget cap may fall below the default cap (it "
        "should only ever raise it)",
    ),
    # ---- exact conditional power of planning ---------------------------------------------
    Mutant(
        id="r3-cpower-reject-strict",
        file=CPOW,
        old="return float(np.sum(alt[pval <= alpha]))",
        new="return float(np.sum(alt[pval < alpha]))",
        tests=(),
        why="boundary: the rejection region of the conditional test excludes p = alpha (an "
        "exact test rejects at p <= alpha): power slightly too low",
    ),
    Mutant(
        id="r3-cpower-null-mean",
        file=CPOW,
        old="mu = t * (m1 / big_m)",
        new="mu = t * (m2 / big_m)",
        tests=(),
        why="formula: the hypergeometric mean of X1 given the total uses the other group's "
        "share (two-sided p-values centred wrong when the groups differ in size)",
    ),
    Mutant(
        id="r3-cpower-valid-cells",
        file=CPOW,
        old="valid = (x >= 0) & (x <= m1) & (x <= tt) & (tt - x <= m2)",
        new="valid = (x >= 0) & (x <= m1) & (x <= tt)",
        tests=(),
        why="boundary: lattice cells with more events in group 2 than its size (t - x > m2) "
        "count as valid, so impossible tables enter the conditional null and the power",
    ),
    Mutant(
        id="r3-plan-exact-side",
        file=PLAN,
        old="(1 if alt[g] > alt[ref] else -1)",
        new="(1 if alt[g] < alt[ref] else -1)",
        tests=(),
        why="orientation: the one-sided exact power tests in the direction opposite to the "
        "planned difference (power near 0)",
    ),
    Mutant(
        id="r3-plan-exact-family-last",
        file=PLAN,
        old="out = min(out, pw)",
        new="out = pw",
        tests=(),
        why="allocation: the family's exact power is the last comparison's instead of the "
        "smallest over the comparisons",
    ),
]
