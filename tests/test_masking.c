/* generated from chapters/05-masking.nw, chapters/35-tests-masking.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "oracle.h"

/* <<[[test_masking.c]] tests>> */
static unsigned char *random_bool(rng *r, size_t n, float p)
{
    unsigned char *m = malloc(n);
    cr_assert_not_null(m);
    for (size_t i = 0; i < n; i++)
        m[i] = rng_uniform(r, 0, 1) < p;
    return m;
}

Test(masking, every_kind_of_mask_matches_the_reference) {
    const mha_shape shapes[3] = {{2, 5, 5, 8, 2}, {3, 4, 7, 15, 5}, {1, 1, 6, 12, 4}};
    for (int t = 0; t < 3; t++) {
        mha_shape s = shapes[t];
        rng r = rng_seeded(50 + t);
        mha_case c = case_random(s, 60 + t, s.query_len == s.key_len ? CASE_SELF : CASE_CROSS);
        unsigned char *am = random_bool(&r, s.query_len * s.key_len, 0.25f);
        unsigned char *kpm = random_bool(&r, s.batch * s.key_len, 0.25f);
        float *fm = random_floats(&r, s.query_len * s.key_len, -2, 2);
        const mha_mask masks[6] = {
            {.causal = 1}, {.attn_mask_bool = am}, {.key_padding_mask = kpm},
            {.attn_mask_float = fm}, {1, am, fm, kpm}, {0},
        };
        for (int m = 0; m < 6; m++)
            for (size_t i = 0; i < mha_impl_count; i++)
                check_against_reference(&mha_impls[i], &c, &masks[m]);
        free(am); free(kpm); free(fm); case_free(&c);
    }
}
/* <<[[test_masking.c]] tests>> */
Test(masking, causal_outputs_ignore_later_tokens) {
    const size_t L = 6, E = 8;
    const mha_mask causal = {.causal = 1};
    mha_case c = case_random((mha_shape){1, L, L, E, 2}, 70, CASE_SELF);
    float *before = malloc(L * E * sizeof *before), *after = malloc(L * E * sizeof *after);
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, NULL, NULL, &causal,
                                          before, NULL), MHA_OK);
        for (size_t e = 0; e < E; e++)
            c.query[(L - 1) * E + e] += 1.0f;
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, NULL, NULL, &causal,
                                          after, NULL), MHA_OK);
        for (size_t e = 0; e < E; e++)
            c.query[(L - 1) * E + e] -= 1.0f;
        cr_expect(memcmp(before, after, (L - 1) * E * sizeof *before) == 0,
                  "%s: an earlier position saw the last token", mha_impls[i].name);
        cr_expect(memcmp(before + (L - 1) * E, after + (L - 1) * E, E * sizeof *before) != 0);
    }
    free(before); free(after); case_free(&c);
}
/* <<[[test_masking.c]] tests>> */
Test(masking, fully_blocked_row_gives_output_bias_not_nan) {
    const size_t L = 3, S = 4, E = 8;
    mha_case c = case_random((mha_shape){1, L, S, E, 2}, 73, CASE_CROSS);
    c.value[0] = INFINITY;                        /* in a masked key */
    const unsigned char am[3 * 4] = {1, 1, 1, 1,    /* query 0: every key masked */
                                     1, 1, 0, 1,
                                     1, 0, 1, 0};
    const mha_mask mask = {.attn_mask_bool = am};
    float out[3 * 8], w[2 * 3 * 4];
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, c.key, c.value,
                                          &mask, out, w), MHA_OK);
        for (size_t h = 0; h < 2; h++)
            for (size_t j = 0; j < S; j++)
                cr_expect(w[(h * L + 0) * S + j] == 0.0f, "%s", mha_impls[i].name);
        for (size_t e = 0; e < E; e++)
            cr_expect(out[e] == c.out_b[e], "%s: out[0, %zu] = %g, bias %g",
                      mha_impls[i].name, e, (double)out[e], (double)c.out_b[e]);
        for (size_t n = 0; n < L * E; n++)
            cr_expect(!isnan(out[n]), "%s: NaN at %zu", mha_impls[i].name, n);
    }
    case_free(&c);
}
Test(masking, true_means_blocked) {
    mha_case c = case_random((mha_shape){1, 3, 4, 8, 2}, 72, CASE_CROSS);
    unsigned char am[3 * 4];
    for (int n = 0; n < 12; n++)
        am[n] = (n % 4) != 2;
    const mha_mask mask = {.attn_mask_bool = am};
    float out[3 * 8], w[2 * 3 * 4];
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, c.key, c.value,
                                          &mask, out, w), MHA_OK);
        for (int n = 0; n < 24; n++)
            cr_expect(w[n] == ((n % 4) == 2 ? 1.0f : 0.0f), "%s: w[%d] = %g",
                      mha_impls[i].name, n, (double)w[n]);
    }
    case_free(&c);
}
Test(masking, padded_keys_are_as_good_as_absent) {
    const size_t L = 4, E = 6;
    mha_case full = case_random((mha_shape){1, L, 5, E, 2}, 71, CASE_CROSS);
    mha_case cut = case_random((mha_shape){1, L, 3, E, 2}, 71, CASE_CROSS);
    memcpy(cut.query, full.query, L * E * sizeof(float));
    memcpy(cut.key, full.key, 3 * E * sizeof(float));
    memcpy(cut.value, full.value, 3 * E * sizeof(float));
    cut.params = full.params;
    const unsigned char pad[5] = {0, 0, 0, 1, 1};
    const mha_mask mask = {.key_padding_mask = pad};
    float o1[4 * 6], o2[4 * 6], w1[2 * 4 * 5], w2[2 * 4 * 3];
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&full.shape, &full.params, full.query, full.key,
                                          full.value, &mask, o1, w1), MHA_OK);
        cr_assert_eq(mha_impls[i].forward(&cut.shape, &cut.params, cut.query, cut.key,
                                          cut.value, NULL, o2, w2), MHA_OK);
        for (size_t n = 0; n < L * E; n++)
            cr_expect(fabsf(o1[n] - o2[n]) < 1e-6f, "%s: out[%zu]", mha_impls[i].name, n);
        for (size_t row = 0; row < 2 * L; row++)
            cr_expect(w1[row * 5 + 3] == 0.0f && w1[row * 5 + 4] == 0.0f);
    }
    cut.params = (mha_params){cut.in_w, cut.in_b, cut.out_w, cut.out_b};
    case_free(&full); case_free(&cut);
}
Test(masking, the_alternatives_fail_as_the_text_says) {
    float scores[4] = {0.3f, -1.2f, 2.5f, 0.7f}, inf_fill[4], big_fill[4];
    for (int j = 0; j < 4; j++) {
        inf_fill[j] = scores[j] + -INFINITY;
        big_fill[j] = scores[j] + -1e9f;
    }
    float m = -INFINITY, sum = 0;                 /* the textbook stable softmax */
    for (int j = 0; j < 4; j++) m = fmaxf(m, inf_fill[j]);
    for (int j = 0; j < 4; j++) sum += expf(inf_fill[j] - m);
    cr_expect(isnan(sum), "-inf fill: the textbook softmax gives NaN");
    mha_softmax_row(big_fill, 4);
    for (int j = 0; j < 4; j++)
        cr_expect(big_fill[j] == 0.25f, "-1e9 fill: weight %g, uniform 0.25 expected",
                  (double)big_fill[j]);
}
Test(masking, float_mask_is_added_to_the_scores) {
    const size_t L = 2, S = 3;
    mha_case c = case_random((mha_shape){1, L, S, 4, 1}, 74, CASE_CROSS);
    float fm[2 * 3] = {0, (float)log(2.0), 0, 0, 0, 0};
    const mha_mask mask = {.attn_mask_float = fm};
    float out[2 * 4], w0[6], w1[6];
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, c.key, c.value,
                                          NULL, out, w0), MHA_OK);
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, c.key, c.value,
                                          &mask, out, w1), MHA_OK);
        double ratio_before = w0[1] / w0[0], ratio_after = w1[1] / w1[0];
        cr_expect(fabs(ratio_after / ratio_before - 2.0) < 1e-5, "%s: ratio %g",
                  mha_impls[i].name, ratio_after / ratio_before);
        cr_expect(fabsf(w1[3] - w0[3]) < 1e-7f, "row 1 is unmasked");
    }
    case_free(&c);
}
