/* generated from chapters/06-kv-cache.nw, chapters/36-tests-kv-cache.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "oracle.h"

/* <<[[test_kv_cache.c]] tests>> */
static void decode_all(const mha_decode_impl *impl, const mha_case *c, size_t kv_heads,
                       const size_t *steps, const unsigned char *padding,
                       float *out, float *weights)
{
    const size_t B = c->shape.batch, L = c->shape.query_len, E = c->shape.embed_dim,
                 H = c->shape.heads;
    const mha_decoder dec = {E, H, kv_heads, c->params, 0, 0};
    mha_kv_cache cache;
    cr_assert_eq(mha_kv_cache_init(&cache, B, kv_heads, L, E / H), MHA_OK);
    float *x = malloc(B * L * E * sizeof *x), *y = malloc(B * L * E * sizeof *y);
    float *w = malloc(B * H * L * L * sizeof *w);
    unsigned char *pad = malloc(B * L);
    for (size_t t = 0, s = 0; t < L; t += steps[s], s++) {
        const size_t n = steps[s];
        /* <<gather positions [[t..t+n-1]], take one step, scatter the results>> */
        for (size_t b = 0; b < B; b++)
            for (size_t i = 0; i < n; i++) {
                memcpy(x + (b * n + i) * E, c->query + (b * L + t + i) * E, E * sizeof *x);
                pad[b * n + i] = padding ? padding[b * L + t + i] : 0;
            }
        cr_assert_eq(impl->step(&dec, &cache, n, x, pad, y, w), MHA_OK, "%s", impl->name);
        for (size_t b = 0; b < B; b++)
            for (size_t i = 0; i < n; i++) {
                memcpy(out + (b * L + t + i) * E, y + (b * n + i) * E, E * sizeof *y);
                for (size_t h = 0; h < H; h++)
                    memcpy(weights + ((b * H + h) * L + t + i) * L, w + ((b * H + h) * n + i) * L,
                           L * sizeof *w);
            }
    }
    free(x); free(y); free(w); free(pad);
    mha_kv_cache_free(&cache);
}
/* <<[[test_kv_cache.c]] tests>> */
static void expect_decode_matches_causal_forward(const mha_case *c, const size_t *steps,
                                                 const unsigned char *padding)
{
    const mha_shape *s = &c->shape;
    const size_t n_out = s->batch * s->query_len * s->embed_dim,
                 n_w = s->batch * s->heads * s->query_len * s->query_len;
    const mha_mask mask = {.causal = 1, .key_padding_mask = padding};
    double *want = malloc(n_out * sizeof *want), *want_w = malloc(n_w * sizeof *want_w);
    float *got = malloc(n_out * sizeof *got), *got_w = malloc(n_w * sizeof *got_w);
    cr_assert_eq(mha_forward_reference(s, &c->params, c->query, NULL, NULL, &mask,
                                       want, want_w), MHA_OK);
    cr_assert_eq(mha_forward_naive(s, &c->params, c->query, NULL, NULL, &mask, got, got_w),
                 MHA_OK);
    const double tol = tolerance_rule(max_abs_error(got, want, n_out), want, n_out);
    const double tol_w = tolerance_rule(max_abs_error(got_w, want_w, n_w), want_w, n_w);
    for (size_t i = 0; i < mha_decode_impl_count; i++) {
        decode_all(&mha_decode_impls[i], c, s->heads, steps, padding, got, got_w);
        expect_close(mha_decode_impls[i].name, got, want, n_out, tol);
        expect_close(mha_decode_impls[i].name, got_w, want_w, n_w, tol_w);
    }
    free(want); free(want_w); free(got); free(got_w);
}
/* <<[[test_kv_cache.c]] tests>> */
Test(kv_cache, decode_one_at_a_time_equals_causal_forward) {
    const mha_shape shapes[] = {{1, 1, 1, 4, 2}, {2, 6, 6, 8, 2}, {3, 7, 7, 15, 5},
                                {1, 16, 16, 32, 4}};
    const size_t ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        mha_case c = case_random(shapes[t], 800 + t, CASE_SELF);
        expect_decode_matches_causal_forward(&c, ones, NULL);
        case_free(&c);
    }
}
/* <<[[test_kv_cache.c]] tests>> */
static void expect_gqa_equals_repeated_mha(size_t G)
{
    const size_t B = 2, L = 5, E = 16, H = 4, D = E / H, F = E + 2 * G * D;
    rng r = rng_seeded(840 + G);
    float *x = random_floats(&r, B * L * E, -1, 1), *w = random_floats(&r, F * E, -0.3f, 0.3f);
    float *bias = random_floats(&r, F, -0.3f, 0.3f), *wo = random_floats(&r, E * E, -0.3f, 0.3f);
    float *w_mha = malloc(3 * E * E * sizeof *w_mha), *b_mha = malloc(3 * E * sizeof *b_mha);
    /* <<build MHA weights that repeat each key and value group for its heads>> */
    memcpy(w_mha, w, E * E * sizeof *w);                       /* W_Q unchanged */
    memcpy(b_mha, bias, E * sizeof *bias);
    for (size_t part = 0; part < 2; part++)                    /* keys, then values */
        for (size_t h = 0; h < H; h++)
            for (size_t d = 0; d < D; d++) {
                const size_t to = E + part * E + h * D + d;
                const size_t from = E + part * G * D + (h / (H / G)) * D + d;
                memcpy(w_mha + to * E, w + from * E, E * sizeof *w);
                b_mha[to] = bias[from];
            }
    const mha_decoder gqa = {E, H, G, {w, bias, wo, NULL}, 0, 0};
    const mha_decoder mha = {E, H, H, {w_mha, b_mha, wo, NULL}, 0, 0};
    float y1[2 * 5 * 16], y2[2 * 5 * 16], a1[2 * 4 * 5 * 5], a2[2 * 4 * 5 * 5];
    for (size_t i = 0; i < mha_decode_impl_count; i++) {
        mha_kv_cache c1, c2;
        cr_assert_eq(mha_kv_cache_init(&c1, B, G, L, D), MHA_OK);
        cr_assert_eq(mha_kv_cache_init(&c2, B, H, L, D), MHA_OK);
        cr_assert_eq(mha_decode_impls[i].step(&gqa, &c1, L, x, NULL, y1, a1), MHA_OK);
        cr_assert_eq(mha_decode_impls[i].step(&mha, &c2, L, x, NULL, y2, a2), MHA_OK);
        cr_expect(memcmp(y1, y2, sizeof y1) == 0, "%s, G=%zu: outputs differ",
                  mha_decode_impls[i].name, G);
        cr_expect(memcmp(a1, a2, sizeof a1) == 0, "%s, G=%zu: weights differ",
                  mha_decode_impls[i].name, G);
        mha_kv_cache_free(&c1); mha_kv_cache_free(&c2);
    }
    free(x); free(w); free(bias); free(wo); free(w_mha); free(b_mha);
}

Test(kv_cache, gqa_and_mqa_equal_mha_with_repeated_keys_and_values) {
    expect_gqa_equals_repeated_mha(2);
    expect_gqa_equals_repeated_mha(1);
}
/* <<[[test_kv_cache.c]] tests>> */
Test(kv_cache, rope_scores_depend_only_on_the_offset) {
    const size_t D = 16;
    rng r = rng_seeded(851);
    float *q = random_floats(&r, D, -1, 1), *k = random_floats(&r, D, -1, 1);
    double first = 0;
    for (size_t shift = 0; shift <= 1000; shift += 250) {
        float qr[16], kr[16];
        memcpy(qr, q, sizeof qr); memcpy(kr, k, sizeof kr);
        mha_rope(qr, D, 7 + shift, 10000.0);            /* query at 7, key at 3: offset 4 */
        mha_rope(kr, D, 3 + shift, 10000.0);
        double dot = 0;
        for (size_t d = 0; d < D; d++) dot += (double)qr[d] * kr[d];
        if (shift == 0) first = dot;
        cr_expect(fabs(dot - first) < 1e-5, "shift %zu: %.9g vs %.9g", shift, dot, first);
    }
    float qr[16], kr[16];                              /* a different offset scores differently */
    memcpy(qr, q, sizeof qr); memcpy(kr, k, sizeof kr);
    mha_rope(qr, D, 9, 10000.0); mha_rope(kr, D, 3, 10000.0);
    double other = 0;
    for (size_t d = 0; d < D; d++) other += (double)qr[d] * kr[d];
    cr_expect(fabs(other - first) > 1e-3);
    free(q); free(k);
}
/* <<test the cache on its own>> */
Test(kv_cache, init_refuses_bad_sizes) {
    mha_kv_cache c;
    cr_expect_eq(mha_kv_cache_init(&c, 0, 1, 4, 2), MHA_ERR_SHAPE);
    cr_expect_eq(mha_kv_cache_init(&c, 1, 1, 0, 2), MHA_ERR_SHAPE);
    cr_expect_eq(mha_kv_cache_init(&c, (size_t)1 << 32, 1 << 16, 1 << 16, 2), MHA_ERR_OVERFLOW);
    cr_expect_null(c.keys);
    mha_kv_cache_free(&c);                      /* safe on a failed init */
    cr_expect_eq(mha_kv_cache_init(NULL, 1, 1, 1, 1), MHA_ERR_NULL);
}
/* <<test the cache on its own>> */
#ifdef MHA_CHECK_PRECONDITIONS
Test(kv_cache, taking_back_more_than_is_stored_breaks_the_precondition, .signal = SIGABRT) {
    mha_kv_cache c;
    const float row[2] = {1, 2};
    cr_assert_eq(mha_kv_cache_init(&c, 1, 1, 4, 2), MHA_OK);
    cr_assert_eq(mha_kv_cache_append(&c, 0, 1, row, row, 2, NULL), MHA_OK);
    mha_kv_cache_take_back(&c, 2);
}
#endif
/* <<test the cache on its own>> */
Test(kv_cache, init_refuses_each_overflowing_factor) {
    const size_t half = SIZE_MAX / 2 + 1;
    const size_t sizes[][4] = {{half, 2, 1, 1}, {2, 1, half, 1}, {1, 1, 2, half},
                               {1, 1, 1, SIZE_MAX / 2}, {1, half, 1, 2}};
    mha_kv_cache c;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t *z = sizes[i];
        cr_expect_eq(mha_kv_cache_init(&c, z[0], z[1], z[2], z[3]), MHA_ERR_OVERFLOW,
                     "sizes %zu", i);
        cr_expect_null(c.keys, "sizes %zu", i);
    }
    cr_expect_eq(mha_kv_cache_init(&c, 1, 1, 1, SIZE_MAX / 4), MHA_ERR_NOMEM);
    cr_expect_null(c.keys);
    mha_kv_cache_free(&c);
}
/* <<test the cache on its own>> */
Test(kv_cache, append_refuses_missing_rows) {
    mha_kv_cache c;
    cr_assert_eq(mha_kv_cache_init(&c, 1, 1, 2, 2), MHA_OK);
    const float row[2] = {1, 2};
    cr_expect_eq(mha_kv_cache_append(NULL, 0, 1, row, row, 2, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_kv_cache_append(&c, 0, 1, NULL, row, 2, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_kv_cache_append(&c, 0, 1, row, NULL, 2, NULL), MHA_ERR_NULL);
    cr_expect_eq(c.length[0], 0);
    cr_expect(c.keys[0] == 0.0f && c.values[0] == 0.0f);
    mha_kv_cache_free(&c);
}
/* <<test the cache on its own>> */
Test(kv_cache, append_to_capacity_then_refuse_without_change) {
    const size_t B = 2, G = 2, T = 5, D = 3, n = B * G * T * D;
    mha_kv_cache c;
    cr_assert_eq(mha_kv_cache_init(&c, B, G, T, D), MHA_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert(c.keys[i] == 0.0f && c.values[i] == 0.0f);
    rng r = rng_seeded(80);
    float *k = random_floats(&r, T * G * D, -1, 1), *v = random_floats(&r, T * G * D, -1, 1);
    cr_expect_eq(mha_kv_cache_append(&c, 0, 3, k, v, G * D, NULL), MHA_OK);
    cr_expect_eq(mha_kv_cache_append(&c, 0, 2, k, v, G * D, NULL), MHA_OK);
    cr_expect_eq(c.length[0], T);
    cr_expect(c.keys[(0 * G + 1) * T * D + 4 * D + 2] == k[1 * G * D + 1 * D + 2],
              "group 1, position 4 holds the second appended block's row 1");
    float *before = malloc(2 * n * sizeof *before);
    memcpy(before, c.keys, n * sizeof *before);
    memcpy(before + n, c.values, n * sizeof *before);
    cr_expect_eq(mha_kv_cache_append(&c, 0, 1, k, v, G * D, NULL), MHA_ERR_CACHE_FULL);
    cr_expect_eq(mha_kv_cache_append(&c, 1, T + 1, k, v, G * D, NULL), MHA_ERR_CACHE_FULL);
    cr_expect_eq(mha_kv_cache_append(&c, 2, 1, k, v, G * D, NULL), MHA_ERR_ARG);
    cr_expect(memcmp(before, c.keys, n * sizeof *before) == 0 &&
              memcmp(before + n, c.values, n * sizeof *before) == 0);
    cr_expect(c.length[0] == T && c.length[1] == 0);
    mha_kv_cache_reset(&c);
    for (size_t i = 0; i < n; i++)
        cr_assert(c.keys[i] == 0.0f && c.values[i] == 0.0f);
    cr_expect(c.length[0] == 0);
    free(before); free(k); free(v);
    mha_kv_cache_free(&c);
}
/* <<test decoding in steps of any size, with padding, to a full cache>> */
Test(kv_cache, prefill_and_decode_mixes_equal_causal_forward) {
    const size_t whole[1] = {9}, mix[5] = {3, 1, 1, 2, 2}, odd[3] = {1, 7, 1};
    mha_case c = case_random((mha_shape){2, 9, 9, 12, 3}, 810, CASE_SELF);
    expect_decode_matches_causal_forward(&c, whole, NULL);
    expect_decode_matches_causal_forward(&c, mix, NULL);
    expect_decode_matches_causal_forward(&c, odd, NULL);
    case_free(&c);
}
/* <<test decoding in steps of any size, with padding, to a full cache>> */
Test(kv_cache, different_lengths_in_one_batch) {
    const size_t B = 3, L = 6;
    mha_case c = case_random((mha_shape){B, L, L, 8, 2}, 820, CASE_SELF);
    const unsigned char padding[3 * 6] = {1, 1, 0, 0, 0, 0,     /* 4 tokens, left-padded */
                                          0, 0, 0, 0, 0, 0,     /* 6 tokens */
                                          1, 0, 0, 0, 0, 0};    /* 5 tokens */
    const size_t ones[6] = {1, 1, 1, 1, 1, 1}, chunks[2] = {4, 2};
    expect_decode_matches_causal_forward(&c, ones, padding);
    expect_decode_matches_causal_forward(&c, chunks, padding);
    case_free(&c);
}
/* <<test decoding in steps of any size, with padding, to a full cache>> */
Test(kv_cache, padding_is_found_in_the_chunk_and_sequence_that_hold_it) {
    const size_t B = 2, L = 600, steps[3] = {520, 40, 40};
    mha_case c = case_random((mha_shape){B, L, L, 8, 2}, 830, CASE_SELF);
    unsigned char *padding = calloc(B * L, 1);
    cr_assert(padding);
    for (size_t j = 0; j < 10; j++)
        padding[j] = 1;                         /* the first sequence: positions 0-9 */
    for (size_t j = 300; j < 306; j++)
        padding[L + j] = 1;                     /* the second: 300-305, in the second chunk */
    padding[L + 515] = padding[L + 559] = 1;    /* and 515 and 559, in the third */
    expect_decode_matches_causal_forward(&c, steps, padding);
    free(padding);
    case_free(&c);
}
/* <<test decoding in steps of any size, with padding, to a full cache>> */
Test(kv_cache, a_full_cache_refuses_the_next_step) {
    mha_case c = case_random((mha_shape){1, 3, 3, 4, 2}, 830, CASE_SELF);
    const mha_decoder dec = {4, 2, 2, c.params, 0, 0};
    mha_kv_cache cache;
    cr_assert_eq(mha_kv_cache_init(&cache, 1, 2, 3, 2), MHA_OK);
    float y[3 * 4];
    for (size_t i = 0; i < mha_decode_impl_count; i++) {
        mha_kv_cache_reset(&cache);
        cr_expect_eq(mha_decode_impls[i].step(&dec, &cache, 3, c.query, NULL, y, NULL), MHA_OK);
        float keys[2 * 3 * 2];
        memcpy(keys, cache.keys, sizeof keys);
        for (size_t e = 0; e < 4; e++) y[e] = 42.0f;
        cr_expect_eq(mha_decode_impls[i].step(&dec, &cache, 1, c.query, NULL, y, NULL),
                     MHA_ERR_CACHE_FULL, "%s", mha_decode_impls[i].name);
        cr_expect(memcmp(keys, cache.keys, sizeof keys) == 0 && cache.length[0] == 3);
        cr_expect(y[0] == 42.0f, "a refused step writes no output");
    }
    mha_kv_cache_free(&cache);
    case_free(&c);
}
/* <<test rotary embeddings, as a function and inside a decoder>> */
Test(kv_cache, rope_matches_the_rotation_formula) {
    const size_t D = 8, positions[4] = {0, 1, 17, 5000};
    rng r = rng_seeded(850);
    for (size_t t = 0; t < 4; t++) {
        float *x = random_floats(&r, D, -1, 1);
        double want[8];
        for (size_t j = 0; j < D / 2; j++) {
            double theta = positions[t] * pow(10000.0, -2.0 * j / D);
            want[2 * j] = cos(theta) * x[2 * j] - sin(theta) * x[2 * j + 1];
            want[2 * j + 1] = sin(theta) * x[2 * j] + cos(theta) * x[2 * j + 1];
        }
        mha_rope(x, D, positions[t], 10000.0);
        expect_close("rope", x, want, D, 4 * FLT_EPSILON);
        free(x);
    }
}
/* <<test rotary embeddings, as a function and inside a decoder>> */
Test(kv_cache, rope_decoding_matches_a_double_transcription) {
    const size_t L = 7, E = 8, H = 2, D = 4;
    mha_case c = case_random((mha_shape){1, L, L, E, H}, 860, CASE_SELF);
    double q[7 * 8], k[7 * 8], v[7 * 8], concat[7 * 8] = {0}, want[7 * 8];
    /* <<project [[c]] in double and rotate $q$ and $k$ by position>> */
    for (size_t t = 0; t < L; t++)
        for (size_t o = 0; o < E; o++) {
            double s[3] = {c.in_b[o], c.in_b[E + o], c.in_b[2 * E + o]};
            for (size_t e = 0; e < E; e++)
                for (int p = 0; p < 3; p++)
                    s[p] += (double)c.query[t * E + e] * c.in_w[(p * E + o) * E + e];
            q[t * E + o] = s[0], k[t * E + o] = s[1], v[t * E + o] = s[2];
        }
    for (size_t t = 0; t < L; t++)
        for (size_t h = 0; h < H; h++)
            for (size_t j = 0; j < D / 2; j++) {
                const double th = t * pow(10000.0, -2.0 * j / D), cs = cos(th), sn = sin(th);
                double *pair[2] = {q + t * E + h * D + 2 * j, k + t * E + h * D + 2 * j};
                for (int p = 0; p < 2; p++) {
                    const double a = pair[p][0], b = pair[p][1];
                    pair[p][0] = cs * a - sn * b, pair[p][1] = sn * a + cs * b;
                }
            }
    /* <<run causal attention and the output projection in double into [[want]]>> */
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < L; i++) {
            double s[7], m = -INFINITY, sum = 0;
            for (size_t j = 0; j <= i; j++) {
                s[j] = 0;
                for (size_t d = 0; d < D; d++)
                    s[j] += q[i * E + h * D + d] * k[j * E + h * D + d] / sqrt((double)D);
                m = fmax(m, s[j]);
            }
            for (size_t j = 0; j <= i; j++) sum += exp(s[j] - m);
            for (size_t j = 0; j <= i; j++)
                for (size_t d = 0; d < D; d++)
                    concat[i * E + h * D + d] += exp(s[j] - m) / sum * v[j * E + h * D + d];
        }
    for (size_t i = 0; i < L; i++)
        for (size_t o = 0; o < E; o++) {
            want[i * E + o] = c.out_b[o];
            for (size_t e = 0; e < E; e++)
                want[i * E + o] += concat[i * E + e] * c.out_w[o * E + e];
        }
    const mha_decoder dec = {E, H, H, c.params, 1, 0};
    for (size_t i = 0; i < mha_decode_impl_count; i++) {
        mha_kv_cache cache;
        cr_assert_eq(mha_kv_cache_init(&cache, 1, H, L, D), MHA_OK);
        float got[7 * 8];
        for (size_t t = 0; t < L; t++)
            cr_assert_eq(mha_decode_impls[i].step(&dec, &cache, 1, c.query + t * E, NULL,
                                                  got + t * E, NULL), MHA_OK);
        expect_close(mha_decode_impls[i].name, got, want, L * E, 1e-5);
        mha_kv_cache_free(&cache);
    }
    case_free(&c);
}
/* <<test that bad decoders are refused>> */
Test(kv_cache, bad_decoders_are_refused) {
    mha_case c = case_random((mha_shape){1, 2, 2, 6, 3}, 870, CASE_SELF);
    mha_kv_cache cache;
    cr_assert_eq(mha_kv_cache_init(&cache, 1, 3, 4, 2), MHA_OK);
    float y[2 * 6];
    const mha_decoder good = {6, 3, 3, c.params, 0, 0};
    mha_decoder d = good;
    d.heads = 4;
    cr_expect_eq(mha_decode_step_naive(&d, &cache, 1, c.query, NULL, y, NULL), MHA_ERR_HEADS);
    d = good; d.kv_heads = 2;
    cr_expect_eq(mha_decode_step_naive(&d, &cache, 1, c.query, NULL, y, NULL), MHA_ERR_HEADS);
    d = good; d.rope = 1;                               /* D = 2 is even: fine */
    cr_expect_eq(mha_decode_step_naive(&d, &cache, 1, c.query, NULL, y, NULL), MHA_OK);
    d = good; d.heads = 1; d.kv_heads = 1;              /* D = 6 does not match the cache */
    cr_expect_eq(mha_decode_step_naive(&d, &cache, 1, c.query, NULL, y, NULL), MHA_ERR_SHAPE);
    cr_expect_eq(mha_decode_step_naive(&good, &cache, 0, c.query, NULL, y, NULL), MHA_ERR_SHAPE);
    cr_expect_eq(mha_decode_step_naive(NULL, &cache, 1, c.query, NULL, y, NULL), MHA_ERR_NULL);
    cr_expect_eq(cache.length[0], 1, "only the good step appended");
    cr_expect_null(mha_decode_impl_find("warp"));
    cr_expect_eq(mha_decode_impl_find("naive"), &mha_decode_impls[0]);
    mha_kv_cache_free(&cache);
    case_free(&c);
}
/* <<test that bad decoders are refused>> */
Test(kv_cache, every_decoder_refuses_every_bad_argument) {
    const float some[1] = {0};
    const mha_params p = {some, NULL, some, NULL};
    const mha_decoder good = {6, 3, 3, p, 0, 0};
    const size_t big = (size_t)1 << 62, quarter = SIZE_MAX / 4;
    size_t lengths[2] = {0, 0};
    mha_kv_cache cache = {1, 3, 4, 2, lengths, NULL, NULL, NULL, NULL};
    float x[1], y[1];
    struct { mha_decoder dec; mha_kv_cache cache; size_t n; int no_x, no_out;
             mha_status want; } cases[] = {
        {good, cache, 1, 1, 0, MHA_ERR_NULL}, {good, cache, 1, 0, 1, MHA_ERR_NULL},
        {{6, 3, 3, {NULL, NULL, some, NULL}, 0, 0}, cache, 1, 0, 0, MHA_ERR_NULL},
        {{6, 3, 3, {some, NULL, NULL, NULL}, 0, 0}, cache, 1, 0, 0, MHA_ERR_NULL},
        {{0, 3, 3, p, 0, 0}, cache, 1, 0, 0, MHA_ERR_SHAPE},
        {{6, 0, 3, p, 0, 0}, cache, 1, 0, 0, MHA_ERR_HEADS},
        {{6, 3, 0, p, 0, 0}, cache, 1, 0, 0, MHA_ERR_HEADS},
        {{6, 3, 1, p, 0, 0}, cache, 1, 0, 0, MHA_ERR_SHAPE},          /* cache has 3 */
        {good, {1, 3, 4, 3, lengths, NULL, NULL, NULL, NULL}, 1, 0, 0, MHA_ERR_SHAPE},
        {{3, 3, 3, p, 1, 0}, {1, 3, 4, 1, lengths, NULL, NULL, NULL, NULL}, 1, 0, 0,
         MHA_ERR_ARG},                                                 /* D = 1 */
        {{quarter * 2, 1, 1, p, 0, 0}, {1, 1, 4, quarter * 2, lengths, NULL, NULL, NULL,
         NULL}, 1, 0, 0, MHA_ERR_OVERFLOW},                            /* 3 E */
        {{(size_t)1 << 32, 1, 1, p, 0, 0}, {1, 1, 4, (size_t)1 << 32, lengths, NULL,
         NULL, NULL, NULL}, 1, 0, 0, MHA_ERR_OVERFLOW},                /* 3 E E */
        {{(size_t)1 << 31, 1, 1, p, 0, 0}, {1, 1, 4, (size_t)1 << 31, lengths, NULL,
         NULL, NULL, NULL}, 1, 0, 0, MHA_ERR_OVERFLOW},                /* 3 E E floats */
        {good, {2, 3, SIZE_MAX, 2, lengths, NULL, NULL, NULL, NULL}, SIZE_MAX / 2 + 1,
         0, 0, MHA_ERR_OVERFLOW},                                      /* B n */
        {good, {1, 3, SIZE_MAX, 2, lengths, NULL, NULL, NULL, NULL}, SIZE_MAX / 10,
         0, 0, MHA_ERR_OVERFLOW},                                      /* B n 3E */
        {good, {1, 3, SIZE_MAX, 2, lengths, NULL, NULL, NULL, NULL}, SIZE_MAX / 36,
         0, 0, MHA_ERR_OVERFLOW},                                      /* as floats */
        {good, {1, 3, big * 2, 2, lengths, NULL, NULL, NULL, NULL}, (size_t)1 << 32,
         0, 0, MHA_ERR_OVERFLOW},                                      /* n T_max */
        {good, {1, 3, big * 2, 2, lengths, NULL, NULL, NULL, NULL}, 1, 0, 0,
         MHA_ERR_OVERFLOW},                                            /* as floats */
        {good, {2, 3, big / 2, 2, lengths, NULL, NULL, NULL, NULL}, 1, 0, 0,
         MHA_ERR_OVERFLOW},                                            /* times B */
        {good, {1, 3, big / 2, 2, lengths, NULL, NULL, NULL, NULL}, 1, 0, 0,
         MHA_ERR_OVERFLOW},                                            /* times H */
    };
    for (size_t i = 0; i < mha_decode_impl_count; i++) {
        mha_decode_fn *step = mha_decode_impls[i].step;
        cr_expect_eq(step(&good, NULL, 1, x, NULL, y, NULL), MHA_ERR_NULL);
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            const mha_status got = step(&cases[j].dec, &cases[j].cache, cases[j].n,
                                        cases[j].no_x ? NULL : x, NULL,
                                        cases[j].no_out ? NULL : y, NULL);
            cr_expect_eq(got, cases[j].want, "%s, case %zu: %s", mha_decode_impls[i].name,
                         j, mha_status_message(got));
            cr_expect(lengths[0] == 0 && lengths[1] == 0, "case %zu stored nothing", j);
        }
    }
}
