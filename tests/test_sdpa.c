/* generated from chapters/02-sdpa.nw, chapters/32-tests-sdpa.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"

/* <<[[test_sdpa.c]] tests>> */
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
/* <<[[test_sdpa.c]] tests>> */
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
/* <<[[test_sdpa.c]] tests>> */
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
    float masked[3] = {-INFINITY, -INFINITY, -INFINITY};
    mha_softmax_row(masked, 3);
    for (int j = 0; j < 3; j++)
        cr_expect(masked[j] == 0.0f, "masked[%d] = %g", j, (double)masked[j]);

    float partly[3] = {-INFINITY, 2.0f, -INFINITY};
    mha_softmax_row(partly, 3);
    cr_expect(partly[0] == 0.0f && partly[1] == 1.0f && partly[2] == 0.0f);

    float poisoned[3] = {1.0f, NAN, 2.0f}, poisoned_masked[2] = {-INFINITY, NAN};
    mha_softmax_row(poisoned, 3);
    mha_softmax_row(poisoned_masked, 2);
    for (int j = 0; j < 3; j++)
        cr_expect(isnan(poisoned[j]), "poisoned[%d] = %g", j, (double)poisoned[j]);
    for (int j = 0; j < 2; j++)
        cr_expect(isnan(poisoned_masked[j]));
}
