/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw, chapters/37-tests-fast.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "fast.h"
#include "oracle.h"

/* <<[[test_fast.c]] every instruction set in turn>> */
static const fast_kernels *const every_isa[] = {
    &fast_kernels_scalar,
#if defined(__x86_64__)
    &fast_kernels_avx2, &fast_kernels_avx512,
#endif
};
enum { ISA_COUNT = sizeof every_isa / sizeof every_isa[0] };

static int use_isa(size_t i)
{
    if (!fast_kernels_supported(every_isa[i]))
        return 0;
    cr_assert_eq(mha_set_isa(every_isa[i]->name), MHA_OK, "%s", every_isa[i]->name);
    cr_assert_eq(fast_kernels_select(), every_isa[i], "%s", every_isa[i]->name);
    return 1;
}
/* <<[[test_fast.c]] choosing the kernels and multiplying>> */
Test(fast, the_caller_forces_the_scalar_kernels) {
    const fast_kernels *at_start_up = fast_kernels_select(), *widest = every_isa[0];
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (fast_kernels_supported(every_isa[i]))
            widest = every_isa[i];
    setenv("MHA_ISA", "scalar", 1);
    cr_expect_eq(fast_kernels_select(), at_start_up, "the library read the environment");
    unsetenv("MHA_ISA");
    cr_expect_eq(mha_set_isa("scalar"), MHA_OK);
    cr_expect_eq(fast_kernels_select(), &fast_kernels_scalar);
    cr_expect_eq(mha_set_isa("avx"), MHA_ERR_ARG);
    cr_expect_eq(fast_kernels_select(), &fast_kernels_scalar, "an unknown name changed it");
    cr_expect_eq(mha_set_isa(NULL), MHA_OK);
    cr_expect_eq(fast_kernels_select(), widest);
    cr_expect(fast_kernels_supported(fast_kernels_select()));
}
/* <<[[test_fast.c]] choosing the kernels and multiplying>> */
Test(fast, product_edges_in_every_instruction_set) {
    rng r = rng_seeded(90);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        const fast_kernels *k = every_isa[isa];
        const fast_blocking b = fast_blocking_for(k, 64);
        const size_t Ms[] = {1, k->mr - 1, k->mr, k->mr + 1, 2 * k->mr + 3};
        const size_t Ns[] = {1, k->nr - 1, k->nr, k->nr + 1};
        const size_t Ks[] = {1, 15, b.kc, b.kc + 1};
        for (size_t a = 0; a < 5; a++)
            for (size_t c = 0; c < 4; c++)
                for (size_t d = 0; d < 4; d++)
                    /* <<check [[fast_product]] at [[Ms[a]]], [[Ns[c]]], [[Ks[d]]]>> */
                    {
                        const size_t M = Ms[a], N = Ns[c], K = Ks[d], lda = K + 1, ldw = K + 2, ldc = N + 1;
                        float *A = random_floats(&r, M * lda, -1, 1), *Wm = random_floats(&r, N * ldw, -1, 1);
                        float *bias = random_floats(&r, N, -1, 1), *C = random_floats(&r, M * ldc, 7, 7);
                        float *got = malloc(M * N * sizeof *got);
                        double *want = malloc(M * N * sizeof *want);
                        fast_packed p;
                        cr_assert_eq(fast_pack(k, &b, N, K, Wm, ldw, &p), MHA_OK);
                        cr_assert_eq(fast_product(k, &b, M, A, lda, &p, d % 2 ? bias : NULL, C, ldc), MHA_OK);
                        for (size_t i = 0; i < M; i++)
                            for (size_t j = 0; j < N; j++) {
                                double s = d % 2 ? bias[j] : 0.0;
                                for (size_t kk = 0; kk < K; kk++)
                                    s += (double)A[i * lda + kk] * Wm[j * ldw + kk];
                                want[i * N + j] = s;
                                got[i * N + j] = C[i * ldc + j];
                            }
                        expect_close(k->name, got, want, M * N, 8.0 * sqrt((double)K) * FLT_EPSILON * 2.0);
                        for (size_t i = 0; i < M; i++)
                            cr_expect(C[i * ldc + N] == 7.0f, "%s M=%zu N=%zu: wrote past column N", k->name, M, N);
                        fast_packed_free(&p);
                        free(A); free(Wm); free(bias); free(C); free(got); free(want);
                    }
    }
}
/* <<[[test_fast.c]] choosing the kernels and multiplying>> */
Test(fast, packing_moves_every_float_exactly) {
    rng r = rng_seeded(93);
    enum { RS = 61, DEEPEST = 53 };
    float src[DEEPEST * RS], dst[3 * 32 * DEEPEST + 1];
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        src[i] = rng_uniform(&r, -2.0f, 2.0f);
    src[3] = -0.0f, src[RS + 17] = NAN;
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!fast_kernels_supported(every_isa[isa])) continue;
        const fast_kernels *k = every_isa[isa];
        const size_t lds[] = {k->mr, k->nr}, depths[] = {1, 7, 15, 16, 17, DEEPEST};
        for (size_t l = 0; l < 2; l++)
            for (size_t n = 1; n <= 3 * lds[l] && n <= RS; n++)
                for (size_t d = 0; d < 2 * sizeof depths / sizeof depths[0]; d++) {
                    const size_t ld = lds[l], depth = depths[d / 2], cols = d % 2;
                    const size_t panels = (n + ld - 1) / ld, size = panels * ld * depth;
                    if (!cols && n > ld)
                        continue;                       /* pack_rows fills one panel */
                    for (size_t i = 0; i <= size; i++)
                        dst[i] = 12345.0f;
                    if (cols)
                        k->pack_cols(n, depth, src, RS, dst, ld);
                    else
                        k->pack_rows(n, depth, src, RS, dst, ld);
                    for (size_t row = 0; row < panels * ld; row++)
                        for (size_t kk = 0; kk < depth; kk++) {
                            const float want = row >= n ? 0.0f
                                             : cols ? src[kk * RS + row] : src[row * RS + kk];
                            const float *got = dst + row / ld * ld * depth + kk * ld + row % ld;
                            cr_assert(memcmp(got, &want, sizeof want) == 0,
                                      "%s (%s): n %zu, depth %zu, ld %zu: row %zu, k %zu "
                                      "is %g, not %g", k->name, cols ? "cols" : "rows", n,
                                      depth, ld, row, kk, (double)*got, (double)want);
                        }
                    cr_assert(dst[size] == 12345.0f, "%s: n %zu, depth %zu, ld %zu: "
                              "the guard after the panels was written", k->name, n, depth, ld);
                }
    }
}
/* <<[[test_fast.c]] choosing the kernels and multiplying>> */
Test(fast, product_reads_transposed_operands_in_place) {
    rng r = rng_seeded(92);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        const fast_kernels *k = every_isa[isa];
        const fast_blocking b = fast_blocking_for(k, 64);
        const size_t Ms[] = {1, k->mr + 1, 2 * k->mr + 3}, Ns[] = {1, k->nr + 1};
        const size_t Ks[] = {15, b.kc + 1};
        for (size_t a = 0; a < 3; a++)
            for (size_t c = 0; c < 2; c++)
                for (size_t d = 0; d < 2; d++)
                    /* <<check [[fast_product_strided]] at [[Ms[a]]], [[Ns[c]]], [[Ks[d]]]>> */
                    {
                        const size_t M = Ms[a], N = Ns[c], K = Ks[d], lda = M + 1, ldw = N + 2;
                        float *A = random_floats(&r, K * lda, -1, 1), *Wm = random_floats(&r, K * ldw, -1, 1);
                        float *C = random_floats(&r, M * N, 7, 7), *got = malloc(M * N * sizeof *got);
                        double *want = malloc(M * N * sizeof *want);
                        fast_packed p;
                        cr_assert_eq(fast_pack_strided(k, &b, N, K, Wm, 1, ldw, &p), MHA_OK);
                        cr_assert_eq(fast_product_strided(k, &b, M, A, 1, lda, &p, NULL, C, N), MHA_OK);
                        for (size_t i = 0; i < M; i++)
                            for (size_t j = 0; j < N; j++) {
                                double sum = 0.0;
                                for (size_t kk = 0; kk < K; kk++)
                                    sum += (double)A[kk * lda + i] * Wm[kk * ldw + j];
                                want[i * N + j] = sum;
                                got[i * N + j] = C[i * N + j];
                            }
                        expect_close(k->name, got, want, M * N, 8.0 * sqrt((double)K) * FLT_EPSILON * 2.0);
                        fast_packed_free(&p);
                        free(A); free(Wm); free(C); free(got); free(want);
                    }
    }
}
/* <<[[test_fast.c]] choosing the kernels and multiplying>> */
Test(fast, the_direct_product_in_every_instruction_set) {
    rng r = rng_seeded(91);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        const fast_kernels *k = every_isa[isa];
        const size_t Ms[] = {1, 3, 4, 9}, Ns[] = {1, k->width - 1, k->width,
                                                  4 * k->width + 1};
        const size_t Ks[] = {1, 33};
        for (size_t a = 0; a < 4; a++)
            for (size_t c = 0; c < 4; c++)
                for (size_t d = 0; d < 2; d++)
                    for (int transposed = 0; transposed < 2; transposed++)
                        /* <<check [[fast_product_direct]] at [[Ms[a]]], [[Ns[c]]], [[Ks[d]]]>> */
                        {
                            const size_t M = Ms[a], N = Ns[c], K = Ks[d], ldb = N + 3, ldc = N + 1;
                            const size_t rs = transposed ? 1 : K + 2, cs = transposed ? M + 2 : 1;
                            float *A = random_floats(&r, (M + 2) * (K + 2), -1, 1), *B = random_floats(&r, K * ldb, -1, 1);
                            float *bias = random_floats(&r, N, -1, 1), *C = random_floats(&r, M * ldc, 7, 7);
                            float *got = malloc(M * N * sizeof *got);
                            double *want = malloc(M * N * sizeof *want);
                            fast_product_direct(k, M, N, K, A, rs, cs, B, ldb, d ? bias : NULL, C, ldc);
                            for (size_t i = 0; i < M; i++)
                                for (size_t j = 0; j < N; j++) {
                                    double s = d ? bias[j] : 0.0;
                                    for (size_t kk = 0; kk < K; kk++)
                                        s += (double)A[i * rs + kk * cs] * B[kk * ldb + j];
                                    want[i * N + j] = s;
                                    got[i * N + j] = C[i * ldc + j];
                                }
                            expect_close(k->name, got, want, M * N, 8.0 * sqrt((double)K) * FLT_EPSILON * 2.0);
                            for (size_t i = 0; i < M; i++)
                                cr_expect(C[i * ldc + N] == 7.0f, "%s M=%zu N=%zu: wrote past column N", k->name, M, N);
                            free(A); free(B); free(bias); free(C); free(got); free(want);
                        }
    }
}
/* <<[[test_fast.c]] the exponential, the tiles and the split cache>> */
Test(fast, exp_error_bound_in_every_instruction_set) {
    const size_t n = 175 * 1024;                  /* a multiple of 16: -87 to 88 */
    float *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            x[i] = -87.0f + (float)i / 1024.0f;
        every_isa[isa]->exp_sum(x, n, 0.0f);
        for (size_t i = 0; i < n; i++) {
            const double want = exp(-87.0 + (double)i / 1024.0);
            const double ulps = fabs(x[i] - want) / (want * FLT_EPSILON);   /* in epsilons */
            worst = ulps > worst || isnan(ulps) ? ulps : worst;
        }
        cr_log_info("%s: worst exp error %.2f epsilon", every_isa[isa]->name, worst);
        cr_expect(worst <= 2.0, "%s: exp error %.2f epsilon", every_isa[isa]->name, worst);
        /* <<check the exponential's special values>> */
        {
            float s[16] = {0.0f, -INFINITY, -87.5f, -100.0f, -1e30f, NAN, -88.0f, -0.0f};
            every_isa[isa]->exp_sum(s, 16, 0.0f);
            cr_expect(s[0] == 1.0f && s[7] == 1.0f, "%s: exp(0) = %g", every_isa[isa]->name, s[0]);
            for (int i = 1; i < 5; i++)
                cr_expect(s[i] == 0.0f, "%s: exp of entry %d = %g", every_isa[isa]->name, i, s[i]);
            cr_expect(isnan(s[5]), "%s: exp(NaN) = %g", every_isa[isa]->name, s[5]);
            for (size_t i = 0; i < n; i++)
                cr_expect(x[i] == 0.0f || x[i] >= FLT_MIN, "denormal at %zu", i);
        }
    }
    free(x);
}
/* <<[[test_fast.c]] the exponential, the tiles and the split cache>> */
Test(fast, blocked_matches_the_reference_at_tile_edges) {
    const mha_impl *blocked = mha_impl_find("blocked");
    cr_assert_not_null(blocked);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        const fast_blocking b = fast_blocking_for(every_isa[isa], 4);
        const size_t lens[][2] = {{1, 1}, {b.bq - 1, b.bk + 1}, {b.bq, b.bk}, {b.bq + 1, b.bk - 1},
                                  {b.bq + 1, 3}, {2, 2 * b.bk + 1}};
        for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
            const mha_shape s = {2, lens[t][0], lens[t][1], t % 2 ? 15 : 8, t % 2 ? 5 : 2};
            mha_case c = case_random(s, 900 + t, s.query_len == s.key_len ? CASE_SELF : CASE_CROSS);
            /* <<check [[blocked]] on case [[c]] with every kind of mask>> */
            rng r = rng_seeded(910 + t);
            const size_t LS = s.query_len * s.key_len;
            unsigned char *am = malloc(LS), *kpm = malloc(s.batch * s.key_len);
            float *fm = random_floats(&r, LS, -2, 2);
            cr_assert(am && kpm);
            for (size_t n = 0; n < LS; n++) am[n] = rng_uniform(&r, 0, 1) < 0.3f;
            for (size_t n = 0; n < s.batch * s.key_len; n++) kpm[n] = rng_uniform(&r, 0, 1) < 0.3f;
            const mha_mask masks[] = {{0}, {.causal = 1}, {.attn_mask_bool = am},
                                      {.key_padding_mask = kpm}, {1, am, fm, kpm}};
            for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
                check_against_reference(blocked, &c, &masks[m]);
            free(am); free(kpm); free(fm);
            case_free(&c);
        }
    }
}
/* <<[[test_fast.c]] the exponential, the tiles and the split cache>> */
static void decode_long(mha_decode_fn *step, const mha_case *c, float *out)
{
    const mha_shape *s = &c->shape;
    const size_t E = s->embed_dim, L = s->query_len;
    const mha_decoder dec = {E, s->heads, s->heads, c->params, 0, 0.0f};
    mha_kv_cache cache;
    cr_assert_eq(mha_kv_cache_init(&cache, s->batch, s->heads, L, E / s->heads), MHA_OK);
    float *x = malloc(s->batch * L * E * sizeof *x), *y = malloc(s->batch * L * E * sizeof *y);
    cr_assert(x && y);
    for (size_t part = 0; part < 2; part++) {          /* positions 0..L-2, then L-1 */
        const size_t first = part ? L - 1 : 0, n = part ? 1 : L - 1;
        for (size_t b = 0; b < s->batch; b++)
            memcpy(x + b * n * E, c->query + (b * L + first) * E, n * E * sizeof *x);
        cr_assert_eq(step(&dec, &cache, n, x, NULL, y, NULL), MHA_OK);
        for (size_t b = 0; b < s->batch; b++)
            memcpy(out + (b * L + first) * E, y + b * n * E, n * E * sizeof *y);
    }
    free(x); free(y); mha_kv_cache_free(&cache);
}
/* <<[[test_fast.c]] the exponential, the tiles and the split cache>> */
Test(fast, split_k_decoding_over_a_long_cache_matches_the_reference) {
    const mha_shape s = {2, 521, 521, 16, 2};
    const size_t n = 2 * 521 * 16;
    mha_case c = case_random(s, 940, CASE_SELF);
    const mha_mask causal = {.causal = 1};
    double *want = malloc(n * sizeof *want);
    float *naive = malloc(n * sizeof *naive), *blocked = malloc(n * sizeof *blocked);
    cr_assert(want && naive && blocked);
    cr_assert_eq(mha_forward_reference(&s, &c.params, c.query, NULL, NULL, &causal, want, NULL),
                 MHA_OK);
    decode_long(mha_decode_step_naive, &c, naive);
    decode_long(mha_decode_step_blocked, &c, blocked);
    expect_close("blocked decoding", blocked, want, n,
                 tolerance_rule(max_abs_error(naive, want, n), want, n));
    free(want); free(naive); free(blocked); case_free(&c);
}
/* <<[[test_fast.c]] the exponential, the tiles and the split cache>> */
static void expect_sweep(const char *what, const char *isa, size_t D, float got, double want,
                         float plain)
{
    const double allowed = 2.0 * fabs(plain - want) + 1e-6;
    cr_expect(isfinite(got) && fabs(got - want) <= allowed,
              "%s, %s, D = %zu: %.9g, want %.9g (allowed %.2g)", what, isa, D, got, want,
              allowed);
}
Test(fast, the_decoding_sweeps_in_every_instruction_set) {
    rng r = rng_seeded(950);
    enum { N = 37, MASKED = 5, HEADS = 6 };
    const size_t Ds[] = {1, 7, 8, 16, 24, 64, 67};
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        const fast_kernels *k = every_isa[isa];
        for (size_t t = 0; t < 2 * sizeof Ds / sizeof *Ds; t++) {
            const size_t D = Ds[t / 2], heads = t % 2 ? HEADS : 1;   /* one head, or 4 + 2 */
            float *q = random_floats(&r, heads * D, -1, 1), *rows = random_floats(&r, N * D, -1, 1);
            float *p = random_floats(&r, heads * N, 0, 1), *acc = random_floats(&r, heads * D, -1, 1);
            float *start = malloc(heads * D * sizeof *start), s[HEADS * N];
            cr_assert(start);
            memcpy(start, acc, heads * D * sizeof *acc);
            k->key_dots(q, D, heads, rows, N, D, 0.125f, s, N);
            for (size_t h = 0; h < heads; h++)
                for (size_t j = 0; j < N; j++) {
                    double want = 0.0;
                    float plain = 0.0f;
                    for (size_t d = 0; d < D; d++) {
                        want += (double)q[h * D + d] * rows[j * D + d];
                        plain += q[h * D + d] * rows[j * D + d];
                    }
                    expect_sweep("key_dots", k->name, D, s[h * N + j], 0.125 * want, 0.125f * plain);
                }
            for (size_t h = 0; h < heads; h++)
                p[h * N + MASKED] = 0.0f;
            for (size_t d = 0; d < D; d++)
                rows[MASKED * D + d] = INFINITY;
            k->weighted_rows(p, N, heads, rows, N, D, acc, D);
            for (size_t h = 0; h < heads; h++)
                for (size_t d = 0; d < D; d++) {
                    double want = start[h * D + d];
                    float plain = start[h * D + d];
                    for (size_t j = 0; j < N; j++)
                        if (j != MASKED) {
                            want += (double)p[h * N + j] * rows[j * D + d];
                            plain += p[h * N + j] * rows[j * D + d];
                        }
                    expect_sweep("weighted_rows", k->name, D, acc[h * D + d], want, plain);
                }
            free(q); free(rows); free(p); free(acc); free(start);
        }
    }
}
/* <<[[test_fast.c]] threads and fully padded sequences>> */
Test(fast, results_do_not_depend_on_the_thread_count) {
    const mha_shape s = {2, 150, 150, 32, 4};
    mha_case c = case_random(s, 920, CASE_SELF);
    const mha_mask causal = {.causal = 1};
    const size_t n_out = 2 * 150 * 32, n_w = 2 * 4 * 150 * 150;
    float *out[3], *w[3];
    for (int t = 0; t < 3; t++) {
        out[t] = malloc(n_out * sizeof **out);
        w[t] = malloc(n_w * sizeof **w);
        cr_assert(out[t] && w[t]);
        cr_assert_eq(mha_set_threads((size_t)t + 1), MHA_OK);
        cr_assert_eq(mha_threads(), (size_t)t + 1);
        cr_assert_eq(mha_forward_blocked(&s, &c.params, c.query, NULL, NULL, &causal,
                                         out[t], w[t]), MHA_OK);
    }
    cr_assert_eq(mha_set_threads(0), MHA_OK);
    for (int t = 1; t < 3; t++) {
        cr_expect(memcmp(out[0], out[t], n_out * sizeof **out) == 0, "%d threads: out", t + 1);
        cr_expect(memcmp(w[0], w[t], n_w * sizeof **w) == 0, "%d threads: weights", t + 1);
    }
    for (int t = 0; t < 3; t++) { free(out[t]); free(w[t]); }
    case_free(&c);
}
/* <<[[test_fast.c]] threads and fully padded sequences>> */
Test(fast, a_fully_padded_sequence_gives_the_output_bias) {
    const mha_shape s = {2, 40, 70, 16, 2};
    mha_case c = case_random(s, 930, CASE_CROSS);
    unsigned char pad[2 * 70] = {0};
    memset(pad + 70, 1, 70);                            /* sequence 1: all padding */
    c.value[(70 + 3) * 16] = INFINITY;
    const mha_mask mask = {.key_padding_mask = pad};
    float *out = malloc(2 * 40 * 16 * sizeof *out), *w = malloc(2 * 2 * 40 * 70 * sizeof *w);
    for (size_t isa = 0; isa < ISA_COUNT; isa++) {
        if (!use_isa(isa)) continue;
        cr_assert_eq(mha_forward_blocked(&s, &c.params, c.query, c.key, c.value, &mask, out, w),
                     MHA_OK);
        for (size_t n = 0; n < 40 * 16; n++)
            cr_expect(out[40 * 16 + n] == c.out_b[n % 16], "%s: out[1, %zu]", every_isa[isa]->name, n);
        for (size_t n = 2 * 40 * 70; n < 4 * 40 * 70; n++)
            cr_expect(w[n] == 0.0f, "%s: weight %zu", every_isa[isa]->name, n);
        for (size_t n = 0; n < 40 * 16; n++)
            cr_expect(!isnan(out[n]), "%s: sequence 0 is NaN at %zu", every_isa[isa]->name, n);
    }
    free(out); free(w); case_free(&c);
}
/* <<[[test_fast.c]] threads and fully padded sequences>> */
Test(fast, decoding_does_not_depend_on_the_thread_count) {
    const mha_shape s = {1, 300, 300, 24, 3};
    mha_case c = case_random(s, 950, CASE_SELF);
    float *out[3];
    for (int t = 0; t < 3; t++) {
        out[t] = malloc(300 * 24 * sizeof **out);
        cr_assert_not_null(out[t]);
        cr_assert_eq(mha_set_threads((size_t)t + 1), MHA_OK);
        decode_long(mha_decode_step_blocked, &c, out[t]);
    }
    cr_assert_eq(mha_set_threads(0), MHA_OK);
    for (int t = 1; t < 3; t++)
        cr_expect(memcmp(out[0], out[t], 300 * 24 * sizeof **out) == 0, "%d threads", t + 1);
    for (int t = 0; t < 3; t++) free(out[t]);
    case_free(&c);
}
/* <<[[test_fast.c]] scratch kept between calls>> */
Test(fast, scratch_is_found_again_and_never_shared) {
    fast_scratch_release();
    char *a = fast_scratch_take(1000), *b = fast_scratch_take(1000);
    cr_assert(a && b && a != b);
    cr_expect(((size_t)a & 63) == 0, "64-byte aligned");
    fast_scratch_give(a);
    char *again = fast_scratch_take(600), *other = fast_scratch_take(600);
    cr_expect(again == a, "a kept block is taken again");
    cr_expect(other != NULL && other != a, "but by one caller only");
    fast_scratch_give(again); fast_scratch_give(other); fast_scratch_give(b);
    fast_scratch_release();
}

Test(fast, a_pass_never_sees_what_the_last_left_in_its_scratch) {
    const mha_shape small = {2, 50, 50, 24, 3}, large = {3, 90, 90, 40, 5};
    mha_case c = case_random(small, 960, CASE_SELF), poison = case_random(large, 961, CASE_SELF);
    for (size_t i = 0; i < 3 * 40 * 40; i++)
        poison.in_w[i] = NAN;
    const mha_mask causal = {.causal = 1};
    float *first = malloc(2 * 50 * 24 * sizeof *first), *again = malloc(2 * 50 * 24 * sizeof *again);
    float *junk = malloc(3 * 90 * 40 * sizeof *junk);
    cr_assert(first && again && junk);
    fast_scratch_release();
    cr_assert_eq(mha_forward_blocked(&small, &c.params, c.query, NULL, NULL, &causal, first, NULL),
                 MHA_OK);
    cr_assert_eq(mha_forward_blocked(&large, &poison.params, poison.query, NULL, NULL, &causal,
                                     junk, NULL), MHA_OK);
    cr_expect(isnan(junk[0]), "the poisoned pass is NaN");
    cr_assert_eq(mha_forward_blocked(&small, &c.params, c.query, NULL, NULL, &causal, again, NULL),
                 MHA_OK);
    cr_expect(memcmp(first, again, 2 * 50 * 24 * sizeof *first) == 0, "stale scratch leaked");
    free(first); free(again); free(junk); case_free(&c); case_free(&poison);
    fast_scratch_release();
}
/* <<[[test_fast.c]] the stage marks>> */
#include <sys/wait.h>
#include "stages.h"

typedef struct mark_log {
    fast_stage stages[16];
    size_t n;
} mark_log;

static void log_mark(void *context, fast_stage stage)
{
    mark_log *log = context;
    if (log->n < 16)
        log->stages[log->n] = stage;
    log->n++;
}

static void expect_marks(const mark_log *log, const fast_stage *want, size_t n, const char *what)
{
    cr_expect_eq(log->n, n, "%s: %zu marks, not %zu", what, log->n, n);
    for (size_t i = 0; i < n && i < log->n; i++)
        cr_expect_eq(log->stages[i], want[i], "%s: mark %zu is %d, not %d", what, i,
                     (int)log->stages[i], (int)want[i]);
}

Test(fast, stage_marks_follow_the_pipelines_and_change_no_bit) {
    const mha_shape s = {2, 9, 9, 12, 3};
    enum { E = 12, n = 2 * 9 * E };
    rng r = rng_seeded(11);
    float *x = random_floats(&r, n, -1, 1), *gy = random_floats(&r, n, -1, 1);
    float *w = random_floats(&r, 4 * E * E + 4 * E, -0.3f, 0.3f);
    const mha_params p = {w, w + 4 * E * E, w + 3 * E * E, w + 4 * E * E + 3 * E};
    const mha_mask mask = {.causal = 1};
    float y[2][n], g[2][n + 4 * E * E + 4 * E];
    mark_log forward = {0}, step = {0};
    for (int timed = 0; timed < 2; timed++) {
        fast_stage_timer timer = {log_mark, &forward};
        cr_expect_eq(fast_stage_timer_set(timed ? &timer : NULL), NULL);
        cr_assert_eq(mha_forward_blocked(&s, &p, x, NULL, NULL, &mask, y[timed], NULL), MHA_OK);
        timer.context = &step;
        float *gg = g[timed];
        const mha_grads grads = {gg, NULL, NULL, gg + n, gg + n + 4 * E * E, gg + n + 3 * E * E,
                                 gg + n + 4 * E * E + 3 * E};
        mha_saved saved;
        cr_assert_eq(mha_forward_saving(&s, &p, x, NULL, NULL, &mask, y[timed], &saved), MHA_OK);
        cr_assert_eq(mha_backward_saved(&p, x, NULL, NULL, &mask, &saved, gy, &grads), MHA_OK);
        mha_saved_free(&saved);
        cr_expect_eq(fast_stage_timer_set(NULL), timed ? &timer : NULL);
    }
    cr_expect(memcmp(y[0], y[1], sizeof y[0]) == 0, "a timer changed the output");
    cr_expect(memcmp(g[0], g[1], sizeof g[0]) == 0, "a timer changed the gradients");
    const fast_stage want_forward[] = {FAST_STAGE_PACK, FAST_STAGE_PROJECT_IN, FAST_STAGE_ATTEND,
                                       FAST_STAGE_PACK, FAST_STAGE_PROJECT_OUT,
                                       FAST_STAGE_OUTSIDE};
    const fast_stage want_step[] = {FAST_STAGE_PROJECT_IN, FAST_STAGE_ATTEND,
                                    FAST_STAGE_PROJECT_OUT, FAST_STAGE_OUTSIDE,
                                    FAST_STAGE_GRAD_OUT, FAST_STAGE_GRAD_ATTEND,
                                    FAST_STAGE_GRAD_IN, FAST_STAGE_OUTSIDE};
    expect_marks(&forward, want_forward, 6, "mha_forward_blocked");
    expect_marks(&step, want_step, 8, "a training step");
    free(x); free(gy); free(w);
}
