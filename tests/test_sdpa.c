/* generated from chapters/02-sdpa.nw, chapters/32-tests-sdpa.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "example.h"
#include "tables.h"

static void softmax_as_written(float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t j = 0; j < n; j++)
        sum += expf(x[j]);
    for (size_t j = 0; j < n; j++)
        x[j] = expf(x[j]) / sum;
}

static void softmax_double(const float *x, double *y, size_t n)
{
    double sum = 0.0;
    for (size_t j = 0; j < n; j++)
        sum += exp((double)x[j]);
    for (size_t j = 0; j < n; j++)
        y[j] = exp((double)x[j]) / sum;
}

Test(sdpa, naive_softmax_overflows_at_89_stable_does_not) {
    float row[3] = {89.0f, 88.0f, 80.0f}, naive[3];
    double want[3];
    memcpy(naive, row, sizeof row);
    softmax_as_written(naive, 3);
    cr_expect(isnan(naive[0]), "e^89 overflows float: the naive form gives NaN, got %g",
              (double)naive[0]);
    softmax_double(row, want, 3);
    mha_softmax_row(row, 3);
    expect_close("softmax(89, 88, 80)", row, want, 3, 1e-6);
}
Test(sdpa, scaling_by_root_d_keeps_score_variance_near_one) {
    rng r = rng_seeded(3);
    const size_t dims[2] = {4, 256}, samples = 4000;
    for (int t = 0; t < 2; t++) {
        size_t D = dims[t];
        double sum2 = 0;
        for (size_t s = 0; s < samples; s++) {
            double dot = 0;
            for (size_t d = 0; d < D; d++)
                dot += (double)rng_uniform(&r, -1.7320508f, 1.7320508f) *
                       rng_uniform(&r, -1.7320508f, 1.7320508f);
            sum2 += dot * dot;
        }
        double var = sum2 / samples, scaled = var / (double)D;
        cr_expect(var > 0.8 * D && var < 1.2 * D, "D=%zu: variance %.3g", D, var);
        cr_expect(scaled > 0.8 && scaled < 1.2, "D=%zu: scaled variance %.3g", D, scaled);
    }
}
Test(sdpa, attend_matches_double_formula) {
    rng r = rng_seeded(4);
    const size_t L = 5, S = 7, D = 3, ldq = 4, ldk = 6, ldv = 5, ldc = 8;
    float *q = random_floats(&r, L * ldq, -2, 2), *k = random_floats(&r, S * ldk, -2, 2);
    float *v = random_floats(&r, S * ldv, -2, 2), *bias = random_floats(&r, L * S, -1, 1);
    float weights[5 * 7], context[5 * 8], got[5 * 3];
    double want_w[5 * 7], want_c[5 * 3];
    mha_attend(L, S, D, q, ldq, k, ldk, v, ldv, bias, weights, context, ldc);
    for (size_t i = 0; i < L; i++) {
        double s[7], m = -INFINITY, sum = 0;
        for (size_t j = 0; j < S; j++) {
            s[j] = bias[i * S + j];
            for (size_t d = 0; d < D; d++)
                s[j] += (double)q[i * ldq + d] * k[j * ldk + d] / sqrt((double)D);
            m = fmax(m, s[j]);
        }
        for (size_t j = 0; j < S; j++)
            sum += exp(s[j] - m);
        for (size_t j = 0; j < S; j++)
            want_w[i * S + j] = exp(s[j] - m) / sum;
        for (size_t d = 0; d < D; d++) {
            want_c[i * D + d] = 0;
            for (size_t j = 0; j < S; j++)
                want_c[i * D + d] += want_w[i * S + j] * v[j * ldv + d];
            got[i * D + d] = context[i * ldc + d];
        }
    }
    expect_close("weights", weights, want_w, L * S, 1e-6);
    expect_close("context", got, want_c, L * D, 1e-5);
    free(q); free(k); free(v); free(bias);
}
Test(sdpa, softmax_of_plus_and_minus_100) {
    float row[4] = {100.0f, -100.0f, 99.0f, -100.0f};
    double want[4] = {1 / (1 + exp(-1.0)), 0, exp(-1.0) / (1 + exp(-1.0)), 0};
    mha_softmax_row(row, 4);
    expect_close("softmax(+-100)", row, want, 4, 1e-6);

    float low[3] = {-100.0f, -100.0f, -100.0f};
    double third[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    mha_softmax_row(low, 3);
    expect_close("softmax(-100, -100, -100)", low, third, 3, 1e-6);
}

Test(sdpa, softmax_shifts_by_the_row_maximum) {
    /* A large score after a small one: a shift by the first score overflows. */
    float rising[2] = {0.0f, 89.0f};
    const double tiny = exp(-89.0);
    double want_rising[2] = {tiny / (1 + tiny), 1 / (1 + tiny)};
    mha_softmax_row(rising, 2);
    expect_close("softmax(0, 89)", rising, want_rising, 2, 1e-6);

    /* Scores all below -104: e^x underflows to zero in float unless shifted. */
    float low[3] = {-110.0f, -111.0f, -110.0f};
    const double e = exp(-1.0);
    double want_low[3] = {1 / (2 + e), e / (2 + e), 1 / (2 + e)};
    mha_softmax_row(low, 3);
    expect_close("softmax(-110, -111, -110)", low, want_low, 3, 1e-6);
}
Test(sdpa, softmax_rows_sum_to_one) {
    rng r = rng_seeded(2);
    for (size_t n = 1; n < 40; n += 3) {
        float *x = random_floats(&r, n, -30, 30);
        mha_softmax_row(x, n);
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            cr_expect(x[j] >= 0.0f && x[j] <= 1.0f);
            sum += x[j];
        }
        cr_expect(fabs(sum - 1.0) < 1e-5, "n=%zu: sum %.9g", n, sum);
        free(x);
    }
}
Test(sdpa, softmax_blocked_row_is_zero_and_nan_propagates) {
    float blocked[3] = {-INFINITY, -INFINITY, -INFINITY};
    mha_softmax_row(blocked, 3);
    for (int j = 0; j < 3; j++)
        cr_expect(blocked[j] == 0.0f, "blocked[%d] = %g", j, (double)blocked[j]);

    float partly[3] = {-INFINITY, 2.0f, -INFINITY};
    mha_softmax_row(partly, 3);
    cr_expect(partly[0] == 0.0f && partly[1] == 1.0f && partly[2] == 0.0f);

    float poisoned[3] = {1.0f, NAN, 2.0f}, poisoned_blocked[2] = {-INFINITY, NAN};
    mha_softmax_row(poisoned, 3);
    mha_softmax_row(poisoned_blocked, 2);
    for (int j = 0; j < 3; j++)
        cr_expect(isnan(poisoned[j]), "poisoned[%d] = %g", j, (double)poisoned[j]);
    for (int j = 0; j < 2; j++)
        cr_expect(isnan(poisoned_blocked[j]));
}
static void example_weights(double w[2][9])
{
    const double s = 1 / sqrt(2.0), e = exp(s);
    const double head1[9] = {1, e, e,  e, 1, e,  e, e, e * e};
    const double head2[9] = {1, e, 1,  e, 1, 1,  1, 1, 1};
    for (int i = 0; i < 3; i++) {
        double n1 = 0, n2 = 0;
        for (int j = 0; j < 3; j++) { n1 += head1[3 * i + j]; n2 += head2[3 * i + j]; }
        for (int j = 0; j < 3; j++) {
            w[0][3 * i + j] = head1[3 * i + j] / n1;
            w[1][3 * i + j] = head2[3 * i + j] / n2;
        }
    }
}

Test(sdpa, worked_example_matches_closed_form) {
    double want[2][9];
    example_weights(want);
    cr_expect(fabs(want[0][0] - 0.198) < 1e-3 && fabs(want[0][1] - 0.401) < 1e-3 &&
              fabs(want[0][8] - 0.504) < 1e-3, "closed form disagrees with the printed values");
    float in_w[48], out_w[16];
    mha_example_params(in_w, out_w);
    for (size_t h = 0; h < 2; h++) {
        float q[6], k[6], v[6], weights[9], context[6];
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (0 * 4 + h * 2) * 4, 4,
                             NULL, q, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (1 * 4 + h * 2) * 4, 4,
                             NULL, k, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (2 * 4 + h * 2) * 4, 4,
                             NULL, v, 2);
        mha_attend(3, 3, 2, q, 2, k, 2, v, 2, NULL, weights, context, 2);
        expect_close(h == 0 ? "head 1 weights" : "head 2 weights", weights, want[h], 9, 1e-6);
        if (h == 1)
            cr_expect(v[4] == 0.0f && v[5] == 2.0f, "V_2's last row is (0, 2), got (%g, %g)",
                      (double)v[4], (double)v[5]);
    }
}

Test(sdpa, erratum_prints_the_softmax_of_the_notes_scores) {
    const double s[3] = {0.71, 0.00, 1.41};
    double sum = exp(s[0]) + exp(s[1]) + exp(s[2]);
    char want[64], *text = NULL;
    size_t size = 0;
    snprintf(want, sizeof want, "$(%.2f, %.2f, %.2f)$", exp(s[0]) / sum, exp(s[1]) / sum,
             exp(s[2]) / sum);
    FILE *f = open_memstream(&text, &size);
    mha_print_erratum(f);
    fclose(f);
    cr_expect_str_eq(text, want);
    free(text);
}

Test(sdpa, worked_example_heatmap_prints_the_true_weights) {
    double want[2][9];
    example_weights(want);
    char *text = NULL, cell[64];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mha_print_example_heatmap(f);
    fclose(f);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 9; i++) {
            snprintf(cell, sizeof cell, "{%.3f}", want[h][i]);
            cr_expect(strstr(text, cell) != NULL, "head %d weight %d: missing %s", h + 1, i, cell);
        }
    free(text);
}

Test(sdpa, worked_example_table_prints_the_true_weights) {
    double want[2][9];
    example_weights(want);
    char *text = NULL, row[128];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mha_print_example_table(f);
    fclose(f);
    for (int h = 0; h < 2; h++) {
        snprintf(row, sizeof row, "%.3f & %.3f & %.3f \\\\ %.3f & %.3f & %.3f",
                 want[h][0], want[h][1], want[h][2], want[h][3], want[h][4], want[h][5]);
        cr_expect(strstr(text, row) != NULL, "head %d: missing '%s' in\n%s", h + 1, row, text);
    }
    free(text);
}
