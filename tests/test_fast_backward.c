/* generated from chapters/09-fast-backward.nw, chapters/39-tests-fast-backward.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "fast.h"
#include "oracle.h"

/* <<[[test_fast_backward.c]] the float64 backward reference>> */
typedef struct reference_grads {
    double *gq, *gk, *gv, *gw, *gb, *gow, *gob;   /* as mha_grads, all present */
} reference_grads;

/* y (n, N) += x (n, K) W (N, K)^T, in double */
static void linear64(size_t n, size_t N, size_t K, const double *x, const float *W,
                     const float *bias, double *y)
{
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < N; o++) {
            double s = bias ? bias[o] : 0.0;
            for (size_t e = 0; e < K; e++)
                s += x[i * K + e] * W[o * K + e];
            y[i * N + o] = s;
        }
}
/* <<[[test_fast_backward.c]] the float64 backward reference>> */
static void linear64_backward(size_t n, size_t N, size_t K, const double *x, const float *W,
                              const double *dy, double *gw, double *gb, double *gx)
{
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < N; o++) {
            gb[o] += dy[i * N + o];
            for (size_t e = 0; e < K; e++) {
                gw[o * K + e] += dy[i * N + o] * x[i * K + e];
                gx[i * K + e] += dy[i * N + o] * W[o * K + e];
            }
        }
}
/* <<[[test_fast_backward.c]] the float64 backward reference>> */
static void head64_backward(size_t L, size_t S, size_t E, size_t D, size_t h,
                            const double *q, const double *k, const double *v,
                            const float *bias, const double *dc, double *c, double *dq,
                            double *dk, double *dv, double *p)
{
    const double scale = 1.0 / sqrt((double)D);
    for (size_t i = 0; i < L; i++) {
        double *row = p + i * S, max = -INFINITY, sum = 0.0;
        int any_nan = 0;
        for (size_t j = 0; j < S; j++) {
            double z = 0.0;
            for (size_t d = 0; d < D; d++)
                z += q[i * E + h * D + d] * k[j * E + h * D + d];
            row[j] = z * scale + (bias ? bias[i * S + j] : 0.0);
            any_nan |= isnan(row[j]);
            max = row[j] > max ? row[j] : max;
        }
        for (size_t j = 0; j < S; j++)
            sum += row[j] = max == -INFINITY ? 0.0 : exp(row[j] - max);
        for (size_t j = 0; j < S; j++)
            row[j] = any_nan ? NAN : max == -INFINITY ? 0.0 : row[j] / sum;
        for (size_t d = 0; d < D; d++) {
            double s = 0.0;
            for (size_t j = 0; j < S; j++)
                s += row[j] == 0.0 ? 0.0 : row[j] * v[j * E + h * D + d];
            c[i * E + h * D + d] = s;
        }
    }
    /* <<run head [[h]] backwards in [[double]]>> */
    if (dc == NULL)
        return;
    double *dp = malloc(S * sizeof *dp);
    for (size_t i = 0; i < L; i++) {
        double *row = p + i * S, average = 0.0;
        for (size_t j = 0; j < S; j++) {
            dp[j] = 0.0;
            for (size_t d = 0; d < D; d++) {
                dp[j] += dc[i * E + h * D + d] * v[j * E + h * D + d];
                dv[j * E + h * D + d] += row[j] * dc[i * E + h * D + d];
            }
            average += dp[j] * row[j];
        }
        for (size_t j = 0; j < S; j++) {
            const double dz = scale * row[j] * (dp[j] - average);
            for (size_t d = 0; d < D; d++) {
                dq[i * E + h * D + d] += dz * k[j * E + h * D + d];
                dk[j * E + h * D + d] += dz * q[i * E + h * D + d];
            }
        }
    }
    free(dp);
}
/* <<[[test_fast_backward.c]] the float64 backward reference>> */
static reference_grads backward64(const mha_case *c, const mha_mask *mask, const float *gy)
{
    const mha_shape *s = &c->shape;
    const size_t B = s->batch, L = s->query_len, S = s->key_len, E = s->embed_dim,
                 H = s->heads, D = E / H;
    reference_grads g = {calloc(B * L * E, 8), calloc(B * S * E, 8), calloc(B * S * E, 8),
                         calloc(3 * E * E, 8), calloc(3 * E, 8), calloc(E * E, 8),
                         calloc(E, 8)};
    double *x[3] = {malloc(L * E * 8), malloc(S * E * 8), malloc(S * E * 8)};
    double *q = malloc(L * E * 8), *k = malloc(S * E * 8), *v = malloc(S * E * 8);
    double *ctx = malloc(L * E * 8), *dy = malloc(L * E * 8), *dc = calloc(L * E, 8);
    double *dq = calloc(L * E, 8), *dk = calloc(S * E, 8), *dv = calloc(S * E, 8);
    double *p = malloc(L * S * 8), *gx[3] = {calloc(L * E, 8), calloc(S * E, 8),
                                              calloc(S * E, 8)};
    float *bias = malloc(L * S * sizeof *bias);
    const float *W = c->in_w, *in_b = c->in_b;
    for (size_t b = 0; b < B; b++) {
        /* <<run sequence [[b]] of [[c]] backwards in [[double]]>> */
        const float *src[3] = {c->query + b * L * E, (c->key ? c->key : c->query) + b * S * E,
                               (c->value ? c->value : c->key ? c->key : c->query) + b * S * E};
        for (size_t i = 0; i < L * E; i++) x[0][i] = src[0][i], dy[i] = gy[b * L * E + i];
        for (size_t i = 0; i < S * E; i++) x[1][i] = src[1][i], x[2][i] = src[2][i];
        linear64(L, E, E, x[0], W, in_b, q);
        linear64(S, E, E, x[1], W + E * E, in_b ? in_b + E : NULL, k);
        linear64(S, E, E, x[2], W + 2 * E * E, in_b ? in_b + 2 * E : NULL, v);
        const int masked = mha_mask_bias(mask, s, b, bias);
        memset(dc, 0, L * E * 8); memset(dq, 0, L * E * 8);
        memset(dk, 0, S * E * 8); memset(dv, 0, S * E * 8);
        for (size_t h = 0; h < H; h++)
            head64_backward(L, S, E, D, h, q, k, v, masked ? bias : NULL, NULL, ctx, NULL, NULL,
                            NULL, p);
        linear64_backward(L, E, E, ctx, c->out_w, dy, g.gow, g.gob, dc);
        for (size_t h = 0; h < H; h++)
            head64_backward(L, S, E, D, h, q, k, v, masked ? bias : NULL, dc, ctx, dq, dk, dv, p);
        /* <<add sequence [[b]]'s input gradients into [[g]]>> */
        for (int t = 0; t < 3; t++)
            memset(gx[t], 0, (t ? S : L) * E * 8);
        linear64_backward(L, E, E, x[0], W, dq, g.gw, g.gb, gx[0]);
        linear64_backward(S, E, E, x[1], W + E * E, dk, g.gw + E * E, g.gb + E, gx[1]);
        linear64_backward(S, E, E, x[2], W + 2 * E * E, dv, g.gw + 2 * E * E, g.gb + 2 * E, gx[2]);
        double *to_k = c->key ? g.gk + b * S * E : g.gq + b * L * E;
        double *to_v = c->value ? g.gv + b * S * E : to_k;
        for (size_t i = 0; i < L * E; i++) g.gq[b * L * E + i] += gx[0][i];
        for (size_t i = 0; i < S * E; i++) to_k[i] += gx[1][i], to_v[i] += gx[2][i];
    }
    free(x[0]); free(x[1]); free(x[2]); free(q); free(k); free(v); free(ctx); free(dy);
    free(dc); free(dq); free(dk); free(dv); free(p); free(gx[0]); free(gx[1]); free(gx[2]);
    free(bias);
    return g;
}
/* <<[[test_fast_backward.c]] the float64 backward reference>> */
static void check_blocked_gradients(const mha_case *c, const mha_mask *mask, uint64_t seed)
{
    const mha_shape *s = &c->shape;
    const size_t B = s->batch, L = s->query_len, S = s->key_len, E = s->embed_dim;
    rng r = rng_seeded(seed);
    float *gy = random_floats(&r, B * L * E, -1, 1);
    const size_t n[7] = {B * L * E, B * S * E, B * S * E, 3 * E * E, 3 * E, E * E, E};
    const int present[7] = {1, c->key != NULL, c->value != NULL, 1, c->in_b != NULL, 1,
                            c->out_b != NULL};
    const char *names[7] = {"grad_query", "grad_key", "grad_value", "grad_in_proj_weight",
                            "grad_in_proj_bias", "grad_out_proj_weight", "grad_out_proj_bias"};
    float *naive[7], *blocked[7];
    for (int i = 0; i < 7; i++) {                /* gradients are overwritten, not added to */
        naive[i] = calloc(n[i], sizeof(float)), blocked[i] = malloc(n[i] * sizeof(float));
        for (size_t j = 0; j < n[i]; j++)
            blocked[i][j] = NAN;
    }
    const mha_grads gn = {naive[0], naive[1], naive[2], naive[3], c->in_b ? naive[4] : NULL,
                          naive[5], c->out_b ? naive[6] : NULL};
    const mha_grads gb = {blocked[0], blocked[1], blocked[2], blocked[3],
                          c->in_b ? blocked[4] : NULL, blocked[5], c->out_b ? blocked[6] : NULL};
    cr_assert_eq(mha_backward_naive(s, &c->params, c->query, c->key, c->value, mask, gy, &gn),
                 MHA_OK);
    cr_assert_eq(mha_backward_blocked(s, &c->params, c->query, c->key, c->value, mask, gy, &gb),
                 MHA_OK);
    reference_grads want = backward64(c, mask, gy);
    double *w[7] = {want.gq, want.gk, want.gv, want.gw, want.gb, want.gow, want.gob};
    for (int i = 0; i < 7; i++)
        if (present[i])
            expect_close(names[i], blocked[i], w[i], n[i],
                         tolerance_rule(max_abs_error(naive[i], w[i], n[i]), w[i], n[i]));
    for (int i = 0; i < 7; i++) { free(naive[i]); free(blocked[i]); free(w[i]); }
    free(gy);
}
/* <<[[test_fast_backward.c]] the float64 backward reference>> */
static void expect_blocked_equals_naive(const mha_case *c, const mha_mask *mask, uint64_t seed)
{
    const mha_shape *s = &c->shape;
    const size_t B = s->batch, L = s->query_len, S = s->key_len, E = s->embed_dim;
    rng r = rng_seeded(seed);
    float *gy = random_floats(&r, B * L * E, -1, 1);
    const size_t n[7] = {B * L * E, B * S * E, B * S * E, 3 * E * E, 3 * E, E * E, E};
    float *naive[7], *blocked[7];
    for (int i = 0; i < 7; i++)
        naive[i] = calloc(n[i], sizeof(float)), blocked[i] = calloc(n[i], sizeof(float));
    const mha_grads gn = {naive[0], c->key ? naive[1] : NULL, c->value ? naive[2] : NULL,
                          naive[3], naive[4], naive[5], naive[6]};
    const mha_grads gb = {blocked[0], c->key ? blocked[1] : NULL, c->value ? blocked[2] : NULL,
                          blocked[3], blocked[4], blocked[5], blocked[6]};
    cr_assert_eq(mha_backward_naive(s, &c->params, c->query, c->key, c->value, mask, gy, &gn),
                 MHA_OK);
    cr_assert_eq(mha_backward_blocked(s, &c->params, c->query, c->key, c->value, mask, gy, &gb),
                 MHA_OK);
    for (int i = 0; i < 7; i++) {
        double *want = malloc(n[i] * sizeof *want);
        for (size_t j = 0; j < n[i]; j++)
            want[j] = naive[i][j];
        expect_close("gradient", blocked[i], want, n[i],
                     1e-5 * fmax(1.0, max_abs_value(want, n[i])));
        free(want); free(naive[i]); free(blocked[i]);
    }
    free(gy);
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, row_operations_in_every_instruction_set) {
    const fast_kernels *const isas[] = {&fast_kernels_scalar,
#if defined(__x86_64__)
                                        &fast_kernels_avx2, &fast_kernels_avx512,
#endif
    };
    rng r = rng_seeded(1900);
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        const fast_kernels *k = isas[i];
        if (!fast_kernels_supported(k))
            continue;
        const size_t n = 3 * k->width;
        float *x = random_floats(&r, n, -30, 5), *shift = random_floats(&r, n, -5, 5);
        float *log_sum = random_floats(&r, n, 0, 5);
        float *p = random_floats(&r, n, 0, 1), *dp = random_floats(&r, n, -2, 2);
        float *delta = random_floats(&r, n, -1, 1), *got = malloc(n * sizeof *got);
        x[1] = -INFINITY; shift[2] = INFINITY; log_sum[2] = 0.0f; x[n - 1] = NAN;
        /* <<check [[k->exp_shifted]] on [[x]] and [[shift]]>> */
        for (size_t step = 0; step < 2; step++) {
            memcpy(got, x, n * sizeof *got);
            k->exp_shifted(got, n, shift, log_sum, step);
            for (size_t j = 0; j + 1 < n; j++) {
                const float m = shift[step * j], g = log_sum[step * j];
                const double want = exp((double)((x[j] - m) - g));   /* the differences in float */
                cr_expect(fabs(got[j] - want) <= 2 * FLT_EPSILON * want + 1e-37,
                          "%s, step %zu: exp((%g - %g) - %g) = %g, want %g", k->name, step, x[j], m,
                          g, got[j], want);
            }
            cr_expect(isnan(got[n - 1]), "%s: a NaN score lost its NaN", k->name);
        }
        /* <<check [[k->softmax_grad]] with one [[delta]] per element and per row>> */
        for (size_t step = 0; step < 2; step++) {
            memcpy(got, dp, n * sizeof *got);
            k->softmax_grad(got, p, n, delta, step, 0.125f);
            for (size_t j = 0; j < n; j++) {
                const double want = 0.125 * p[j] * ((double)dp[j] - delta[step * j]);
                cr_expect(fabs(got[j] - want) <= 4 * FLT_EPSILON * (0.125 * p[j] *
                          (fabs(dp[j]) + fabs(delta[step * j]))) + 1e-30,
                          "%s, step %zu: element %zu is %g, want %g", k->name, step, j, got[j], want);
            }
        }
        free(x); free(shift); free(log_sum); free(p); free(dp); free(delta); free(got);
    }
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, blocked_meets_the_tolerance_rule) {
    const struct { mha_shape s; int flags; } cases[] = {
        {{2, 5, 5, 8, 2}, CASE_SELF},           {{1, 64, 64, 32, 2}, CASE_SELF},
        {{2, 65, 65, 24, 3}, CASE_SELF},         {{1, 17, 130, 16, 1}, CASE_CROSS},
        {{2, 70, 9, 12, 2}, CASE_SHARED_KV | CASE_NO_BIAS}, {{1, 1, 1, 4, 4}, CASE_SELF},
        {{1, 128, 128, 128, 2}, CASE_SELF},      {{2, 64, 192, 64, 1}, CASE_CROSS},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        mha_case c = case_random(cases[t].s, 1500 + t, cases[t].flags);
        /* <<check the blocked gradients of [[c]] under every kind of mask>> */
        const size_t B = c.shape.batch, L = c.shape.query_len, S = c.shape.key_len;
        rng r = rng_seeded(1600 + t);
        unsigned char *pad = malloc(B * S), *masked = malloc(L * S);
        float *fm = random_floats(&r, L * S, -2, 2);
        for (size_t i = 0; i < B * S; i++)
            pad[i] = (i % S) % 3 == 2;
        for (size_t i = 0; i < L * S; i++)
            masked[i] = i < S || rng_uniform(&r, 0, 1) < 0.3f;
        const mha_mask masks[] = {{0, NULL, NULL, NULL}, {.causal = L == S},
                                  {.key_padding_mask = pad}, {.attn_mask_float = fm},
                                  {.attn_mask_bool = masked}, {L == S, masked, fm, pad}};
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
            check_blocked_gradients(&c, &masks[m], 1700 + 10 * t + m);
        free(pad); free(masked); free(fm);
        case_free(&c);
    }
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, one_tensor_passed_three_times_gets_three_gradients) {
    mha_case c = case_random((mha_shape){2, 40, 40, 32, 4}, 1810, CASE_SELF);
    mha_case three = c;
    three.key = three.value = c.query;
    const mha_mask masks[] = {{.causal = 0}, {.causal = 1}};
    for (size_t m = 0; m < 2; m++)
        check_blocked_gradients(&three, &masks[m], 1811 + m);
    three.value = NULL;                          /* key and value from one argument */
    check_blocked_gradients(&three, &masks[0], 1813);
    case_free(&c);
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, blocked_rows_get_exactly_zero) {
    mha_case c = case_random((mha_shape){2, 70, 67, 16, 2}, 1800, CASE_CROSS);
    const size_t L = 70, S = 67, E = 16;
    unsigned char *masked = calloc(L * S, 1);
    for (size_t j = 0; j < S; j++)
        masked[3 * S + j] = masked[65 * S + j] = 1;        /* rows 3 and 65 */
    const mha_mask mask = {.attn_mask_bool = masked};
    rng r = rng_seeded(1801);
    float *gy = random_floats(&r, 2 * L * E, -1, 1), *gq = calloc(2 * L * E, sizeof *gq);
    float *gk = calloc(2 * S * E, 4), *gv = calloc(2 * S * E, 4), *gw = calloc(3 * E * E, 4),
          *gb = calloc(3 * E, 4), *gow = calloc(E * E, 4), *gob = calloc(E, 4);
    const mha_grads g = {gq, gk, gv, gw, gb, gow, gob};
    cr_assert_eq(mha_backward_blocked(&c.shape, &c.params, c.query, c.key, c.value, &mask, gy,
                                      &g), MHA_OK);
    for (size_t b = 0; b < 2; b++)
        for (size_t e = 0; e < E; e++) {
            cr_expect_eq(gq[(b * L + 3) * E + e], 0.0f);
            cr_expect_eq(gq[(b * L + 65) * E + e], 0.0f);
            cr_expect(gq[(b * L + 4) * E + e] != 0.0f, "a row beside them has a gradient");
        }
    free(masked); free(gy); free(gq); free(gk); free(gv); free(gw); free(gb); free(gow);
    free(gob);
    case_free(&c);
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, large_mask_values_give_the_naive_gradients) {
    const struct { mha_shape s; int flags; } cases[] = {
        {{2, 130, 130, 32, 2}, CASE_SELF}, {{1, 66, 70, 16, 4}, CASE_CROSS},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        mha_case c = case_random(cases[t].s, 1830 + t, cases[t].flags);
        const size_t L = c.shape.query_len, S = c.shape.key_len;
        float *fm = calloc(L * S, sizeof *fm);
        /* <<fill [[fm]] as a causal mask with left padding does, with $-10^9$ and $\pm 3\cdot 10^{38}$ rows>> */
        for (size_t i = 0; i < L; i++)
            for (size_t j = 0; j < S; j++)
                fm[i * S + j] = (j > i ? -1e9f : 0.0f) + (j < 5 ? -1e9f : 0.0f);
        for (size_t j = 0; j < S; j++) {
            fm[64 * S + j] = -1e9f;
            fm[1 * S + j] = -3e38f;
            fm[40 * S + j] = 3e38f;
        }
        const mha_mask mask = {.attn_mask_float = fm};
        expect_blocked_equals_naive(&c, &mask, 1840 + t);
        free(fm);
        case_free(&c);
    }
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, nan_goes_where_the_naive_pass_puts_it) {
    mha_case c = case_random((mha_shape){2, 40, 40, 16, 2}, 1810, CASE_SELF);
    const size_t n[4] = {2 * 40 * 16, 3 * 16 * 16, 16 * 16, 3 * 16};
    c.query[5 * 16 + 3] = NAN;
    rng r = rng_seeded(1811);
    float *gy = random_floats(&r, n[0], -1, 1), *got[2][4];
    for (int v = 0; v < 2; v++) {
        for (int i = 0; i < 4; i++)
            got[v][i] = calloc(n[i], sizeof(float));
        const mha_grads g = {got[v][0], NULL, NULL, got[v][1], got[v][3], got[v][2], NULL};
        cr_assert_eq((v ? mha_backward_blocked : mha_backward_naive)(
                         &c.shape, &c.params, c.query, NULL, NULL, NULL, gy, &g), MHA_OK);
    }
    for (int i = 0; i < 4; i++) {
        size_t nans = 0;
        for (size_t j = 0; j < n[i]; j++) {
            nans += isnan(got[0][i][j]) != 0;
            cr_expect_eq(isnan(got[1][i][j]) != 0, isnan(got[0][i][j]) != 0,
                         "gradient %d [%zu]: %g, naive %g", i, j, (double)got[1][i][j],
                         (double)got[0][i][j]);
        }
        cr_expect(nans > 0, "gradient %d has no NaN at all", i);
        free(got[0][i]); free(got[1][i]);
    }
    free(gy);
    case_free(&c);
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, threads_change_no_bit) {
    mha_case c = case_random((mha_shape){3, 130, 97, 48, 3}, 1820, CASE_CROSS);
    const mha_mask mask = {.causal = 0};
    const size_t n[7] = {3 * 130 * 48, 3 * 97 * 48, 3 * 97 * 48, 3 * 48 * 48, 3 * 48,
                         48 * 48, 48};
    rng r = rng_seeded(1821);
    float *gy = random_floats(&r, n[0], -1, 1), *got[3][7];
    const size_t threads[3] = {1, 2, 3};
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 7; i++)
            got[v][i] = calloc(n[i], sizeof(float));
        const mha_grads g = {got[v][0], got[v][1], got[v][2], got[v][3], got[v][4], got[v][5],
                             got[v][6]};
        cr_assert_eq(mha_set_threads(threads[v]), MHA_OK);
        cr_assert_eq(mha_backward_blocked(&c.shape, &c.params, c.query, c.key, c.value, &mask,
                                          gy, &g), MHA_OK);
    }
    cr_assert_eq(mha_set_threads(0), MHA_OK);
    for (int v = 1; v < 3; v++)
        for (int i = 0; i < 7; i++)
            cr_expect(memcmp(got[v][i], got[0][i], n[i] * sizeof(float)) == 0,
                      "gradient %d differs between 1 and %zu threads", i, threads[v]);
    for (int v = 0; v < 3; v++)
        for (int i = 0; i < 7; i++)
            free(got[v][i]);
    free(gy);
    case_free(&c);
}
/* <<[[test_fast_backward.c]] tests>> */
Test(fast_backward, saving_and_saved_refuse_missing_pointers) {
    mha_case c = case_random((mha_shape){1, 2, 2, 4, 2}, 1830, CASE_SELF);
    const size_t E = 4;
    float y[8], gy[8] = {1, -1, 2, 0, 0, 1, -2, 1}, gw[3 * 16], gow[16];
    mha_saved saved, empty;
    cr_expect_eq(mha_forward_saving(&c.shape, &c.params, c.query, NULL, NULL, NULL, y,
                                    NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_forward_saving(&c.shape, NULL, c.query, NULL, NULL, NULL, y, &empty),
                 MHA_ERR_NULL);
    cr_expect_null(empty.context, "a refused pass saves nothing");
    cr_assert_eq(mha_forward_saving(&c.shape, &c.params, c.query, NULL, NULL, NULL, y,
                                    &saved), MHA_OK);
    const mha_grads grads = {NULL, NULL, NULL, gw, NULL, gow, NULL};
    mha_grads no_gw = grads, no_gow = grads;
    no_gw.grad_in_proj_weight = NULL, no_gow.grad_out_proj_weight = NULL;
    const struct { const mha_saved *s; const mha_params *p; const float *x, *gy;
                   const mha_grads *g; } cases[] = {
        {NULL, &c.params, c.query, gy, &grads},
        {&empty, &c.params, c.query, gy, &grads},
        {&saved, NULL, c.query, gy, &grads},
        {&saved, &c.params, NULL, gy, &grads},
        {&saved, &c.params, c.query, NULL, &grads},
        {&saved, &c.params, c.query, gy, NULL},
        {&saved, &c.params, c.query, gy, &no_gw},
        {&saved, &c.params, c.query, gy, &no_gow},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t j = 0; j < 3 * E * E; j++) gw[j] = 7;
        for (size_t j = 0; j < E * E; j++) gow[j] = 7;
        cr_expect_eq(mha_backward_saved(cases[i].p, cases[i].x, NULL, NULL, NULL,
                                        cases[i].s, cases[i].gy, cases[i].g),
                     MHA_ERR_NULL, "case %zu", i);
        int kept = 1;
        for (size_t j = 0; j < 3 * E * E; j++) kept &= gw[j] == 7;
        for (size_t j = 0; j < E * E; j++) kept &= gow[j] == 7;
        cr_expect(kept, "case %zu wrote a gradient", i);
    }
    cr_expect_eq(mha_backward_saved(&c.params, c.query, NULL, NULL, NULL, &saved, gy,
                                    &grads), MHA_OK, "the same call with every pointer");
    mha_saved_free(&saved);
    mha_saved_free(&empty);
    case_free(&c);
}
