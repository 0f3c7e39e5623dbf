/*
 * Two-group statistics of a rate M_g = num_g / den_g (docs/permutation.md, "The statistic").
 *
 * Inputs are weighted cell sums: num and den are sums of weights, s2 the sum of squared
 * weights over the denominator rows (for unit weights s2 = den). Variances use the Kish
 * effective size n_eff = den^2 / s2, so with unit weights they are the textbook ones:
 *   unpooled:  M_A(1-M_A)/n_eff_A + M_B(1-M_B)/n_eff_B   (the paper's S(X, Y))
 *   pooled:    p(1-p) (1/n_eff_A + 1/n_eff_B),  p = (num_A + num_B) / (den_A + den_B).
 * Degenerate cases, identical for observed and permuted samples (documented in
 * permutation_test):
 *   - an empty denominator in either group: statistic 0 (the difference is undefined);
 *   - a zero difference: statistic 0;
 *   - a non-zero difference with zero variance (unpooled, both rates in {0, 1}): the variance
 *     is recomputed from rates shrunk by one half pseudo-observation, r = (M n_eff + 1/2)/(n_eff + 1),
 *     as r(1-r)/(n_eff + 1) per group: the package's one rule, which the tolerance tests' Wald
 *     statistic shares (fastfair/_score.py: unpooled_variance; tests/test_tolerance.py).
 */
#ifndef FF_RATES_H
#define FF_RATES_H

#include <math.h>

static inline double ff_rate_statistic(double num_a, double den_a, double s2_a,
                                       double num_b, double den_b, double s2_b,
                                       int studentize, int pooled)
{
    if (den_a <= 0.0 || den_b <= 0.0) return 0.0;
    double m_a = num_a / den_a, m_b = num_b / den_b;
    double diff = m_a - m_b;
    if (!studentize) return diff;
    if (diff == 0.0) return 0.0;
    double inv_a = s2_a / (den_a * den_a), inv_b = s2_b / (den_b * den_b); /* 1/n_eff */
    double var;
    if (pooled) {
        double p = (num_a + num_b) / (den_a + den_b);
        var = p * (1.0 - p) * (inv_a + inv_b);
    } else {
        var = m_a * (1.0 - m_a) * inv_a + m_b * (1.0 - m_b) * inv_b;
    }
    if (!(var > 0.0)) {
        double n_a = 1.0 / inv_a, n_b = 1.0 / inv_b;
        double r_a = (m_a * n_a + 0.5) / (n_a + 1.0), r_b = (m_b * n_b + 0.5) / (n_b + 1.0);
        var = r_a * (1.0 - r_a) / (n_a + 1.0) + r_b * (1.0 - r_b) / (n_b + 1.0);
    }
    return diff / sqrt(var);
}

/* Cells are indexed 2*y_true + y_pred: 0 TN, 1 FP, 2 FN, 3 TP. A metric is a bit mask of
 * numerator cells and one of denominator cells; equalized odds has two such pairs and the
 * statistic T_1^2 + T_2^2. */
typedef struct {
    int num_mask[2];
    int den_mask[2];
    int n_parts;      /* 1 for a rate, 2 for equalized odds */
    int studentize;
    int pooled;
} ff_metric_t;

static inline double ff_masked_sum(const double *cells, int mask)
{
    double s = 0.0;
    for (int c = 0; c < 4; c++)
        if (mask & (1 << c)) s += cells[c];
    return s;
}

/* Statistic comparing groups a and b from per-group cell sums w[g*4 + c] and w2[g*4 + c]. */
static inline double ff_metric_statistic(const ff_metric_t *m, const double *w,
                                         const double *w2, int a, int b)
{
    double total = 0.0;
    for (int part = 0; part < m->n_parts; part++) {
        int nm = m->num_mask[part], dm = m->den_mask[part];
        double t = ff_rate_statistic(
            ff_masked_sum(w + 4 * a, nm), ff_masked_sum(w + 4 * a, dm),
            ff_masked_sum(w2 + 4 * a, dm),
            ff_masked_sum(w + 4 * b, nm), ff_masked_sum(w + 4 * b, dm),
            ff_masked_sum(w2 + 4 * b, dm), m->studentize, m->pooled);
        if (m->n_parts == 1) return t;
        total += t * t;
    }
    return total;
}

#endif /* FF_RATES_H */
