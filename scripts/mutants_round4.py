"""Fourth-round mutants of issue #36: written from the code alone, without reading the tests
(engineer session "mut4", 2026-11-27, against main e72e464, rebased on 5e39e1b).

The author read fastfair/, csrc/ and the diff since round three (2b6d922..e72e464), never
tests/, docs/testing.md, the earlier mutation records or the earlier sets' entries (only
the module docstring and the Mutant dataclass of scripts/mutants.py and this file's model,
the header of scripts/mutants_round3.py, for the format). The mutants sit in the modules
changed since round three: the compiled kernels (the swap permutations of paired AUCs in
_paired, the blocked cross-grid outer products, the Gaussian recurrence, the max-Wald draws
and the text-id packing of _kernel_sums, the shared draw of the two-group AUC kernels, the
slice kernels' tally, the index rows of _means), compare (the sorted scores and the moments
of the swap permutations, the "auto" rule of compare_auc), the engines (the shared
distributed tests, the DeLong packing and the group subsets of the summaries, the text-id
radix sort, the partitions grouped by user of dask and spark), parity (the t/F/chi-square
references without scipy.stats, the CR2 cross-grid sums, the plot's band), calibration
(the TCE of a fitted map, the user weights, the checks, the Platt map), the audit's compare=
AUC row and verdicts, and stats' public names.

Same format as scripts/mutants.py; ``tests=()`` throughout: the author did not read the tests,
the runner picks them. Kinds: formula, boundary, orientation, allocation, kernel, merge. Each
``why`` says the kind, the mistake and what a user sees, on what input.
"""

from __future__ import annotations

from mutants import Mutant

PAIRED = "csrc/_paired.pyx"
KSUMS = "csrc/_kernel_sums.pyx"
AUCK = "csrc/_auc.pyx"
SLICES = "csrc/_slices.pyx"
MEANS = "csrc/_means.pyx"
CMPINF = "fastfair/compare/inference.py"
CMPSTAT = "fastfair/compare/statistics.py"
DIST = "fastfair/engines/distributed.py"
SUMS = "fastfair/engines/summaries.py"
CLUS = "fastfair/engines/clusters.py"
DASK = "fastfair/engines/dask.py"
SPARK = "fastfair/engines/spark.py"
PARINF = "fastfair/parity/inference.py"
PARSTAT = "fastfair/parity/statistics.py"
PARRES = "fastfair/parity/results.py"
CALINF = "fastfair/calibration/inference.py"
CALING = "fastfair/calibration/ingest.py"
CALEST = "fastfair/calibration/estimators.py"
AUDIT = "fastfair/auditing/api.py"
STATS = "fastfair/stats.py"

MUTANTS = [
    # ---- compiled kernels: swap permutations of paired AUCs (csrc/_paired.pyx) ----
    Mutant(
        id="r4-paired-swaps-neg-ties-whole",
        file=PAIRED,
        old="v = (n_pos[g] - below[side][1] - 0.5 * tied[side][1]) / n_pos[g]",
        new="v = (n_pos[g] - below[side][1] - tied[side][1]) / n_pos[g]",
        tests=(),
        why="formula: a negative's placement V01 counts the positives tied with it as wholly "
        "below instead of one half; with tied scores (e.g. rounded scores) the swap null of "
        "compare_auc(method='permutation') and so its p-value change",
    ),
    Mutant(
        id="r4-paired-swaps-no-group-reset",
        file=PAIRED,
        old="if k == 0 or ent_group[k - 1] != g:",
        new="if k == 0:",
        tests=(),
        why="kernel: the counts of entries below are not reset at the start of each group, "
        "so the second group's placements count the first group's scores; compare_auc "
        "permutation p-values of two groups change (placements above 1)",
    ),
    Mutant(
        id="r4-paired-swaps-label-slots",
        file=PAIRED,
        old="base = 0 if y[r] else 5",
        new="base = 5 if y[r] else 0",
        tests=(),
        why="orientation: the positives' placement sums stored in the negatives' slots and "
        "back; the swapped AUC becomes mean V01 * n_neg / n_pos, so with unbalanced classes "
        "the permutation null and p-value of compare_auc are wrong",
    ),
    Mutant(
        id="r4-paired-swaps-product-aa",
        file=PAIRED,
        old="o[p, codes[r], base + 4] += pa[r] * pb[r]",
        new="o[p, codes[r], base + 4] += pa[r] * pa[r]",
        tests=(),
        why="allocation: the cross-product sum of the two models' placements takes model A's "
        "square, so the swapped covariance equals A's variance; the studentized swap "
        "statistics (and compare_auc's permutation p-value) change",
    ),
    Mutant(
        id="r4-paired-swaps-one-stream",
        file=PAIRED,
        old="ff_fast_init(stream, key, stream_id, <uint64_t> (start + p))",
        new="ff_fast_init(stream, key, stream_id, <uint64_t> (start))",
        tests=(),
        why="kernel: every permutation seeds its stream with the block's start, not start + "
        "p: all swap permutations draw the same swaps, the null is one value repeated and "
        "compare_auc's permutation p-value is 1/(B+1) or 1",
    ),
    # ---- compiled kernels: kernel sums, max-Wald draws, text ids (csrc/_kernel_sums.pyx) ----
    Mutant(
        id="r4-cov-flush-skip-zero-a",
        file=KSUMS,
        old="if (xa[u * G + j] != 0.0 || xb[u * G + j] != 0.0) sel[m++] = u;",
        new="if (xa[u * G + j] != 0.0 && xb[u * G + j] != 0.0) sel[m++] = u;",
        tests=(),
        why="kernel: the blocked outer products skip a cluster whose weighted outcome sum a_uj "
        "is 0 though its kernel weight b_uj is not (a user whose rows near the point all "
        "have y = 0), so cov_bb misses it; the cross-grid covariance of clustered parity "
        "(the null variance and the max-test bootstrap) changes with binary outcomes",
    ),
    Mutant(
        id="r4-cov-flush-window-first-only",
        file=KSUMS,
        old="                    if (hi[sel[i + q]] > h) h = hi[sel[i + q]];\n",
        new="",
        tests=(),
        why="kernel: a block of four clusters uses the window end of its first cluster only, "
        "so the products of the others past that end are lost; the cross-grid sums of "
        "clustered parity with >= 4 users near a grid point (covariance, bootstrap p-values) "
        "change",
    ),
    Mutant(
        id="r4-root-times-not-zeroed",
        file=KSUMS,
        old="            for (Py_ssize_t j = 0; j < P; j++) dg[j] = 0.0;\n",
        new="",
        tests=(),
        why="kernel: the max-Wald draws' D_g = root_g e_g accumulate onto the previous draw's "
        "values (the buffer is not cleared), so the draws grow with the draw index; the "
        "simultaneous max-test p-values and critical values of predictive_parity_test change",
    ),
    Mutant(
        id="r4-gauss-recurrence-ratio",
        file=KSUMS,
        old="gr.q = exp(-gr.d * gr.d)",
        new="gr.q = exp(-0.5 * gr.d * gr.d)",
        tests=(),
        why="formula: the Gaussian recurrence's ratio step r_{j+1} = r_j exp(-d^2) uses "
        "exp(-d^2/2): kernel weights on a uniform grid away from the nearest point are too "
        "large; calibration curves and parity statistics with the Gaussian kernel change",
    ),
    Mutant(
        id="r4-gauss-downward-not-restarted",
        file=KSUMS,
        old="        k = k0\n        r = exp(-u * d - half)",
        new="        r = exp(-u * d - half)",
        tests=(),
        why="kernel: the downward pass of the Gaussian recurrence starts from the last upward "
        "kernel value instead of K at the nearest point; the weights below the nearest "
        "grid point are wrong (Gaussian kernel, uniform grid): curves and parity p-values "
        "change",
    ),
    Mutant(
        id="r4-compact-keys-index-bits",
        file=KSUMS,
        old="ib = max(1, int(n - 1).bit_length())",
        new="ib = max(1, int(n - 1).bit_length() - 1)",
        tests=(),
        why="boundary: one bit too few for the row index below the packed text id (n >= 3), "
        "so the high row indices spill into the id bits: rows land with the wrong user or "
        "are lost; the audit of a file with short text user ids (arrow engine, cluster=) "
        "gives other cluster counts and parity results than in memory",
    ),
    Mutant(
        id="r4-pack-text-little-endian",
        file=KSUMS,
        old="key = key | (ch << (56 - 8 * b))",
        new="key = key | (ch << (8 * b))",
        tests=(),
        why="orientation: a text id packed little-endian: keys no longer order as the ids, "
        "and unpacked (big-endian) the ids come back reversed ('u12' -> '21u'); a message "
        "naming a user of a file (a user in two groups) shows the wrong id",
    ),
    # ---- compiled kernels: AUC two-group draw, slices, index rows ----
    Mutant(
        id="r4-draw-small-range-swapped",
        file=AUCK,
        old="ff_floyd_bits(stream, bits, 0, n_pos if within else n, k0, NULL)",
        new="ff_floyd_bits(stream, bits, 0, n if within else n_pos, k0, NULL)",
        tests=(),
        why="orientation: the conditional of the drawn range inverted: without strata the "
        "smaller group's rows are drawn among the positives only (the permuted AUC is "
        "degenerate), within outcome among all rows; auc_test permutation p-values wrong",
    ),
    Mutant(
        id="r4-slice-tally-strict",
        file=SLICES,
        old="if z >= threshold[s]:",
        new="if z > threshold[s]:",
        tests=(),
        why="boundary: a permuted slice statistic equal to the observed one is not counted as "
        "extreme; the statistics are integer counts standardized, so ties are common and "
        "the slice search's per-slice p-values come out too small",
    ),
    Mutant(
        id="r4-shuffle-last-fixed",
        file=MEANS,
        old="ff_shuffle_intp(&stream, &o[b, 0], size)",
        new="ff_shuffle_intp(&stream, &o[b, 0], size - 1)",
        tests=(),
        why="boundary: the shuffle of permutation_indices covers the first n - 1 positions "
        "only, so the last row never moves: every permutation of the resampling tests keeps "
        "it in its group (for n = 2 the identity), and their permutation p-values change",
    ),
    Mutant(
        id="r4-permutation-indices-with-replacement",
        file=MEANS,
        old="return _index_rows(n, n, start, count, key, stream_id, False)",
        new="return _index_rows(n, n, start, count, key, stream_id, True)",
        tests=(),
        why="allocation: permutation_indices draws with replacement (a bootstrap) instead of "
        "shuffling: rows repeat and others vanish, so the permutation tests that take their "
        "index rows (mean differences) get a wrong null and p-values",
    ),
    # ---- compare: the "auto" rule and the swap null (compare/inference.py) ----
    Mutant(
        id="r4-compare-auto-strict",
        file=CMPINF,
        old="large = min(n_pos.min(), n_neg.min()) >= AUC_ASYMPTOTIC_MIN_CLASS",
        new="large = min(n_pos.min(), n_neg.min()) > AUC_ASYMPTOTIC_MIN_CLASS",
        tests=(),
        why="boundary: with exactly 1,000 positives (or negatives) in the smallest compared "
        "group compare_auc(method='auto') uses swap permutations, not DeLong; its method "
        "label and p-value change",
    ),
    Mutant(
        id="r4-compare-auto-negatives-as-size",
        file=CMPINF,
        old="n_neg = sizes[used] - n_pos",
        new="n_neg = sizes[used]",
        tests=(),
        why="formula: the auto rule counts a group's rows as its negatives; a group with 1,000 "
        "positives and 500 negatives gets DeLong instead of the swap permutations",
    ),
    Mutant(
        id="r4-compare-auto-all-groups",
        file=CMPINF,
        old="used = np.unique(pairs)",
        new="used = np.arange(len(labels))",
        tests=(),
        why="allocation: the auto rule looks at every group, not only the compared ones; with "
        "comparisons= leaving out a small group, large compared groups get the swap "
        "permutations instead of DeLong (method label, p-value)",
    ),
    Mutant(
        id="r4-compare-swap-classes-swapped",
        file=CMPINF,
        old="np.asarray(codes, dtype=np.intp), n_pos, n_neg, b_total, key, 0, n_threads,",
        new="np.asarray(codes, dtype=np.intp), n_neg, n_pos, b_total, key, 0, n_threads,",
        tests=(),
        why="orientation: the kernel gets the positives' and negatives' counts swapped: "
        "placements divided by the wrong class size, so with unbalanced classes the swap "
        "null of compare_auc (and its p-value) is on another scale than the observed change",
    ),
    # ---- compare: the sorted scores and the swap moments (compare/statistics.py) ----
    Mutant(
        id="r4-sorted-scores-model-boundary",
        file=CMPSTAT,
        old="(order >= n).astype(np.uint8)",
        new="(order > n).astype(np.uint8)",
        tests=(),
        why="boundary: entry n (row 0's model-B score) is marked as model A, so row 0 has two "
        "A scores and no B placement; compare_auc's swap null (p-value) changes",
    ),
    Mutant(
        id="r4-sorted-scores-sort-keys-swapped",
        file=CMPSTAT,
        old="order = np.lexsort((values, groups))",
        new="order = np.lexsort((groups, values))",
        tests=(),
        why="orientation: the 2n scores sorted by score, then group (lexsort's last key is "
        "the primary one): the groups are interleaved, each group change restarts the "
        "counts below, and the swap placements of several groups are wrong",
    ),
    Mutant(
        id="r4-swap-moments-ddof0",
        file=CMPSTAT,
        old="return np.where(n > 1, (s_xy - s_x * s_y / n) / np.maximum(n - 1.0, 1.0), 0.0)",
        new="return np.where(n > 1, (s_xy - s_x * s_y / n) / n, 0.0)",
        tests=(),
        why="formula: the swap permutations' placement variances with ddof 0 while the "
        "observed change uses ddof 1 (paired_auc_moments): the null statistics are larger "
        "than the observed one on the same swaps; p-values of small groups too large",
    ),
    Mutant(
        id="r4-swap-moments-variance-b-from-a",
        file=CMPSTAT,
        old="variance_b=spread(1, 1, 3)[..., None]",
        new="variance_b=spread(1, 1, 2)[..., None]",
        tests=(),
        why="allocation: model B's swapped variance takes model A's sum of squares (slot 2, "
        "not 3); the studentized swap statistics, so compare_auc's permutation p-value, "
        "change",
    ),
    # ---- engines: shared tests, summaries, text ids, dask, spark ----
    Mutant(
        id="r4-distributed-options-routing",
        file=DIST,
        old="options = {k: kwargs.pop(k) for k in list(kwargs) if k not in names}",
        new="options = {k: kwargs.pop(k) for k in list(kwargs) if k in names}",
        tests=(),
        why="allocation: the engines' tests (dask/spark permutation_test, auc_test, "
        "compare_models) pass the build's keyword arguments to the test and the test's "
        "options to the build: e.g. compare_models(..., random_state=0) raises TypeError",
    ),
    Mutant(
        id="r4-delong-result-class-sizes",
        file=SUMS,
        old="variance=s10 / totals[:, 1] + s01 / totals[:, 0],",
        new="variance=s10 / totals[:, 0] + s01 / totals[:, 1],",
        tests=(),
        why="orientation: the DeLong variance of ScoreStats/PlacementSums divides S10 by the "
        "negatives and S01 by the positives; with unbalanced classes the summaries' "
        "delong().variance and test() p-values differ from auc_test(method='delong')",
    ),
    Mutant(
        id="r4-placement-select-neg-squares",
        file=SUMS,
        old='_PER_GROUP = ("labels", "n_neg", "n_pos", "pos_sum", "pos_squares", "neg_sum", '
        '"neg_squares")',
        new='_PER_GROUP = ("labels", "n_neg", "n_pos", "pos_sum", "pos_squares", "neg_sum")',
        tests=(),
        why="merge: PlacementSums.select keeps every group's neg_squares, so the selected "
        "groups read the first groups' squares; sums.select(['c']).delong().variance differs "
        "from the sums of group c's rows alone",
    ),
    Mutant(
        id="r4-expand-bits-byte-order",
        file=CLUS,
        old="for b in range(7, -1, -1):  # the least significant byte's bits are the lowest",
        new="for b in range(8):  # the least significant byte's bits are the lowest",
        tests=(),
        why="orientation: the compact keys' varying bits given back to the bytes in the wrong "
        "order; when ids differ in two bytes or more ('u1'..'u12') the user labels decoded "
        "after the radix sort are other strings: a message naming a user of a file is wrong",
    ),
    Mutant(
        id="r4-string-buffers-offset-units",
        file=CLUS,
        old="offset=chunk.offset * (8 if wide else 4),",
        new="offset=chunk.offset,",
        tests=(),
        why="allocation: a sliced Arrow chunk's offsets read from its element offset taken as "
        "bytes, so the ids of a chunk that does not start at 0 are read from the wrong "
        "strings; users of a file read in batches are mixed up (cluster counts, parity)",
    ),
    Mutant(
        id="r4-sort-partition-keys-swapped",
        file=CLUS,
        old='order = np.lexsort((frame["_row"].to_numpy(), frame[cluster].to_numpy()))',
        new='order = np.lexsort((frame[cluster].to_numpy(), frame["_row"].to_numpy()))',
        tests=(),
        why="orientation: a shuffled partition's rows sorted by row number, then user "
        "(lexsort's last key is the primary one): a user's rows are not contiguous, so a "
        "user whose rows are not adjacent in the file is split into several; dask's "
        "clustered parity differs from memory's",
    ),
    Mutant(
        id="r4-dask-tested-index-inverted",
        file=DASK,
        old="index={v: k for k, v in enumerate(tested_labels)}, pos_label=pos_label,",
        new="index={k: v for k, v in enumerate(tested_labels)}, pos_label=pos_label,",
        tests=(),
        why="orientation: the tested groups' index maps positions to labels instead of labels "
        "to positions, so no row of a text-labelled group is found; dask's clustered parity "
        "of the audit sees no rows (error or a wrong row)",
    ),
    Mutant(
        id="r4-spark-users-sorted-by-row",
        file=SPARK,
        old="rows = rows.repartitionByRange(n_parts, cluster).sortWithinPartitions(cluster, _ROW)",
        new="rows = rows.repartitionByRange(n_parts, cluster).sortWithinPartitions(_ROW, cluster)",
        tests=(),
        why="orientation: each Spark partition sorted by row number first: a user's rows are "
        "contiguous only if they were in the file, so interleaved users are split into "
        "several users; spark's clustered parity differs from memory's",
    ),
    Mutant(
        id="r4-spark-untested-group-zero",
        file=SPARK,
        old="local = np.array([index.get(v, -1) for v in labels.tolist()], dtype=np.intp)",
        new="local = np.array([index.get(v, 0) for v in labels.tolist()], dtype=np.intp)",
        tests=(),
        why="allocation: rows of groups not tested are coded as the first tested group "
        "instead of dropped; with three or more groups spark's per-attribute passes count "
        "them in it (rows, users, parity curves)",
    ),
    # ---- parity: references, CR2 sums, plot (parity/*.py) ----
    Mutant(
        id="r4-parity-t-sf-sign",
        file=PARINF,
        old="2.0 * special.stdtr(np.where(finite, df, 1.0), -np.abs(stat))",
        new="2.0 * special.stdtr(np.where(finite, df, 1.0), np.abs(stat))",
        tests=(),
        why="orientation: the t distribution function at +|t| instead of -|t|: the two-sided "
        "p-value becomes 2 (1 - sf), above 1 for any clustered two-group parity test with "
        "finite (CR2) df",
    ),
    Mutant(
        id="r4-parity-f-df-swapped",
        file=PARINF,
        old="special.fdtrc(K - 1, np.where(finite, dfw, 1.0), sq / (K - 1))",
        new="special.fdtrc(np.where(finite, dfw, 1.0), K - 1, sq / (K - 1))",
        tests=(),
        why="orientation: F's numerator and denominator df swapped: three or more groups with "
        "finite df get pointwise p-values from F(df, K - 1) instead of F(K - 1, df)",
    ),
    Mutant(
        id="r4-parity-chi2-scaled",
        file=PARINF,
        old="p = special.chdtrc(K - 1, sq)  # = scipy.stats.chi2.sf(sq, K - 1), as below",
        new="p = special.chdtrc(K - 1, sq / (K - 1))  # = scipy.stats.chi2.sf(sq, K - 1)",
        tests=(),
        why="formula: the chi-square reference applied to W / (K - 1), the F scale: three or "
        "more groups with small_sample='none' get pointwise p-values too large",
    ),
    Mutant(
        id="r4-parity-normal-scale-df",
        file=PARINF,
        old="return special.chdtri(K - 1, pvalues)",
        new="return special.chdtri(K, pvalues)",
        tests=(),
        why="boundary: the matched chi-square statistic of three or more groups uses K df "
        "instead of K - 1, so the statistics fed to the max test are too large; adjusted "
        "p-values of predictive_parity_test with K >= 3 change",
    ),
    Mutant(
        id="r4-parity-t-quantile-tail",
        file=PARSTAT,
        old="t = special.stdtrit(np.where(finite, df, 1.0), prob)",
        new="t = special.stdtrit(np.where(finite, df, 1.0), 1.0 - prob)",
        tests=(),
        why="orientation: the t quantile of the lower tail: with finite df the band's "
        "multiplier is negative, so lower > upper in calibration_curve's pointwise band",
    ),
    Mutant(
        id="r4-parity-cr2-covariance-inverted",
        file=PARSTAT,
        old='cr2_covariance = covariance and variance != "null"',
        new='cr2_covariance = covariance and variance == "null"',
        tests=(),
        why="allocation: the CR2 cross-grid sums computed for the null variance (which does "
        "not use them) and not for the separate variances, whose bootstrap then takes the "
        "CR0 one-pass covariance: clustered max-test p-values with separate variances "
        "change",
    ),
    Mutant(
        id="r4-parity-plot-band-dropped",
        file=PARRES,
        old="ax = self.curve.plot(ax, band=band)",
        new="ax = self.curve.plot(ax)",
        tests=(),
        why="allocation: PredictiveParityResult.plot(band=True) does not pass band on: no "
        "pointwise band is drawn (no filled area, no 'pointwise' legend entry)",
    ),
    # ---- calibration (calibration/*.py) ----
    Mutant(
        id="r4-tce-quantile-midpoints",
        file=CALINF,
        old="q = weighted_quantiles(s, w, (np.arange(100) + 0.5) / 100)",
        new="q = weighted_quantiles(s, w, np.arange(100) / 100)",
        tests=(),
        why="boundary: the TCE at='quantiles' averages over percentiles 0..0.99 (the minimum "
        "score included, 0.995 left out) instead of the 100 midpoints: "
        "tce_nadaraya_watson(at='quantiles') changes",
    ),
    Mutant(
        id="r4-tce-weights-over-rows",
        file=CALINF,
        old="return float(np.sqrt(np.sum(w * (s - f) ** 2) / w.sum()))",
        new="return float(np.sqrt(np.sum(w * (s - f) ** 2) / len(w)))",
        tests=(),
        why="formula: the weighted mean squared gap divided by the rows, not the total weight; "
        "with cluster= and per-user weights (1/n_m) the TCE shrinks by sqrt(users / rows)",
    ),
    Mutant(
        id="r4-cluster-weights-inverted",
        file=CALING,
        old='if cluster is None or weighting != "per_user":',
        new='if cluster is None or weighting == "per_user":',
        tests=(),
        why="orientation: weighting='per_user' gives every row weight 1 and "
        "'per_observation' the weights 1/n_m; with unequal users the TCE and the "
        "MultiObjectiveCalibrator fits change",
    ),
    Mutant(
        id="r4-norm-order-strict",
        file=CALING,
        old="if not (isinstance(p, numbers.Real) and p >= 1):",
        new="if not (isinstance(p, numbers.Real) and p > 1):",
        tests=(),
        why="boundary: the calibration error of order p = 1 (the usual ECE) is refused with "
        "ValueError",
    ),
    Mutant(
        id="r4-platt-no-clip",
        file=CALEST,
        old="sc = np.clip(s, x[0], x[-1])",
        new="sc = s",
        tests=(),
        why="boundary: GroupCalibrator(method='platt').transform extrapolates the logistic map "
        "beyond the fitted score range instead of clipping to it (as documented): scores "
        "outside the range get other calibrated values",
    ),
    # ---- the audit and stats ----
    Mutant(
        id="r4-audit-compare-permutations-ignored",
        file=AUDIT,
        old='n_permutations=options["n_permutations"] or COMPARE_PERMUTATIONS,',
        new="n_permutations=COMPARE_PERMUTATIONS,",
        tests=(),
        why="allocation: the audit's compare= AUC row ignores the user's n_permutations "
        "(always 999 swaps); with n_permutations=99 and a small group its p-value differs "
        "from compare_auc's on the same rows",
    ),
    Mutant(
        id="r4-audit-compare-permutations-default",
        file=AUDIT,
        old="COMPARE_PERMUTATIONS = 999  #",
        new="COMPARE_PERMUTATIONS = 99  #",
        tests=(),
        why="boundary: the default swap count of the audit's compare= AUC row is 99, not the "
        "documented 999: p-values in steps of 1/100 (never below 0.01)",
    ),
    Mutant(
        id="r4-audit-compare-error-rows-dropped",
        file=AUDIT,
        old="return [ModelComparisonRow(**t) for t in rows]",
        new="return [ModelComparisonRow(**t) for t in valid]",
        tests=(),
        why="allocation: the comparisons that could not run (a metric undefined in a group, no "
        "discordant rows) vanish from AuditResult.model_comparison instead of showing their "
        "error",
    ),
    Mutant(
        id="r4-audit-cluster-rows-codes",
        file=AUDIT,
        old="users = GroupCodes(*drop_unused(clusters.codes[keep], clusters.labels))",
        new="users = clusters.codes[keep]",
        tests=(),
        why="allocation: the users of a file's text ids reach parity as bare codes, so a "
        "message about a user whose rows span groups names 'user 17' instead of the id in "
        "the file",
    ),
    Mutant(
        id="r4-stats-all-no-cube",
        file=STATS,
        old='__all__ = ["ConfusionCube", *summaries.__all__]',
        new="__all__ = [*summaries.__all__]",
        tests=(),
        why="allocation: fastfair.stats.__all__ no longer lists ConfusionCube: `from "
        "fastfair.stats import *` does not give it and the public-name listings miss it",
    ),
]
