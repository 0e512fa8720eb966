/* generated from chapters/03-naive.nw, chapters/33-tests-naive.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "oracle.h"

/* <<[[test_naive.c]] tests>> */
static const struct { mha_shape shape; int flags; } shapes[] = {
    {{1, 1, 1, 1, 1}, CASE_SELF},
    {{1, 3, 3, 4, 2}, CASE_SELF},
    {{2, 5, 5, 8, 2}, CASE_SELF},
    {{1, 1, 7, 15, 5}, CASE_CROSS},
    {{2, 6, 3, 15, 3}, CASE_CROSS | CASE_NO_BIAS},
    {{3, 4, 9, 12, 4}, CASE_SHARED_KV},
    {{2, 17, 17, 32, 4}, CASE_SELF | CASE_NO_BIAS},
    {{1, 33, 20, 64, 8}, CASE_CROSS},
};

Test(naive, every_implementation_matches_the_reference) {
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        mha_case c = case_random(shapes[t].shape, 100 + t, shapes[t].flags);
        for (size_t i = 0; i < mha_impl_count; i++)
            check_against_reference(&mha_impls[i], &c, NULL);
        case_free(&c);
    }
}
/* <<[[test_naive.c]] tests>> */
static float *run(const mha_impl *impl, const mha_case *c, const mha_mask *mask,
                  float **weights)
{
    const mha_shape *s = &c->shape;
    float *out = malloc(s->batch * s->query_len * s->embed_dim * sizeof *out);
    *weights = malloc(s->batch * s->heads * s->query_len * s->key_len * sizeof **weights);
    cr_assert(out && *weights);
    cr_assert_eq(impl->forward(s, &c->params, c->query, c->key, c->value, mask,
                               out, *weights), MHA_OK);
    return out;
}
/* <<[[test_naive.c]] tests>> */
Test(naive, heads_are_independent) {
    const size_t E = 8, D = 4, L = 5;
    mha_case c = case_random((mha_shape){1, L, L, E, 2}, 9, CASE_SELF);
    for (size_t i = 0; i < mha_impl_count; i++) {
        float *w1, *w2, *o1 = run(&mha_impls[i], &c, NULL, &w1);
        for (size_t n = D * E; n < 2 * D * E; n++)           /* head 1's rows of W_Q */
            c.in_w[n] *= -3.0f;
        float *o2 = run(&mha_impls[i], &c, NULL, &w2);
        for (size_t n = D * E; n < 2 * D * E; n++)
            c.in_w[n] /= -3.0f;
        cr_expect(memcmp(w1, w2, L * L * sizeof *w1) == 0, "%s: head 0 changed", mha_impls[i].name);
        cr_expect(memcmp(w1 + L * L, w2 + L * L, L * L * sizeof *w1) != 0,
                  "%s: head 1 did not change", mha_impls[i].name);
        free(o1); free(o2); free(w1); free(w2);
    }
    case_free(&c);
}
Test(naive, weight_rows_sum_to_one) {
    mha_case c = case_random((mha_shape){2, 6, 9, 12, 3}, 7, CASE_CROSS);
    for (size_t i = 0; i < mha_impl_count; i++) {
        float *w, *out = run(&mha_impls[i], &c, NULL, &w);
        for (size_t row = 0; row < 2 * 3 * 6; row++) {
            double sum = 0;
            for (size_t j = 0; j < 9; j++)
                sum += w[row * 9 + j];
            cr_expect(fabs(sum - 1) < 1e-5, "%s: row %zu sums to %.9g",
                      mha_impls[i].name, row, sum);
        }
        free(out); free(w);
    }
    case_free(&c);
}
Test(naive, permuting_keys_and_values_together_changes_nothing) {
    const size_t S = 6, E = 8;
    const size_t perm[6] = {3, 0, 5, 1, 4, 2};
    mha_case c = case_random((mha_shape){1, 4, S, E, 2}, 8, CASE_CROSS);
    mha_case p = case_random((mha_shape){1, 4, S, E, 2}, 8, CASE_CROSS);
    for (size_t j = 0; j < S; j++) {
        memcpy(p.key + j * E, c.key + perm[j] * E, E * sizeof(float));
        memcpy(p.value + j * E, c.value + perm[j] * E, E * sizeof(float));
    }
    for (size_t i = 0; i < mha_impl_count; i++) {
        float *w1, *w2;
        float *o1 = run(&mha_impls[i], &c, NULL, &w1), *o2 = run(&mha_impls[i], &p, NULL, &w2);
        for (size_t n = 0; n < 4 * E; n++)
            cr_expect(fabsf(o1[n] - o2[n]) < 1e-6f, "%s: out[%zu]", mha_impls[i].name, n);
        for (size_t row = 0; row < 2 * 4; row++)
            for (size_t j = 0; j < S; j++)
                cr_expect(fabsf(w1[row * S + perm[j]] - w2[row * S + j]) < 1e-6f);
        free(o1); free(o2); free(w1); free(w2);
    }
    case_free(&c); case_free(&p);
}
Test(naive, batch_rows_are_independent) {
    const size_t L = 4, E = 6;
    mha_case two = case_random((mha_shape){2, L, L, E, 3}, 10, CASE_SELF);
    mha_case one = case_random((mha_shape){1, L, L, E, 3}, 10, CASE_SELF);
    memcpy(one.query, two.query + L * E, L * E * sizeof(float));
    memcpy(one.in_w, two.in_w, 3 * E * E * sizeof(float));
    memcpy(one.in_b, two.in_b, 3 * E * sizeof(float));
    memcpy(one.out_w, two.out_w, E * E * sizeof(float));
    memcpy(one.out_b, two.out_b, E * sizeof(float));
    for (size_t i = 0; i < mha_impl_count; i++) {
        float *w2, *w1, *o2 = run(&mha_impls[i], &two, NULL, &w2);
        float *o1 = run(&mha_impls[i], &one, NULL, &w1);
        cr_expect(memcmp(o2 + L * E, o1, L * E * sizeof *o1) == 0, "%s", mha_impls[i].name);
        free(o1); free(o2); free(w1); free(w2);
    }
    case_free(&two); case_free(&one);
}
Test(naive, bad_arguments_are_refused) {
    mha_case c = case_random((mha_shape){1, 3, 3, 4, 2}, 11, CASE_SELF);
    float out[12];
    for (size_t i = 0; i < mha_impl_count; i++) {
        mha_forward_fn *f = mha_impls[i].forward;
        mha_shape s = c.shape;
        cr_expect_eq(f(NULL, &c.params, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_NULL);
        cr_expect_eq(f(&s, NULL, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_NULL);
        cr_expect_eq(f(&s, &c.params, NULL, NULL, NULL, NULL, out, NULL), MHA_ERR_NULL);
        cr_expect_eq(f(&s, &c.params, c.query, NULL, NULL, NULL, NULL, NULL), MHA_ERR_NULL);
        mha_params p = c.params;
        p.in_proj_weight = NULL;
        cr_expect_eq(f(&s, &p, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_NULL);
        p = c.params, p.out_proj_weight = NULL;
        cr_expect_eq(f(&s, &p, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_NULL);
        s.heads = 3;
        cr_expect_eq(f(&s, &c.params, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_HEADS);
        s = c.shape; s.key_len = 2;       /* self-attention with S != L */
        cr_expect_eq(f(&s, &c.params, c.query, NULL, NULL, NULL, out, NULL), MHA_ERR_SHAPE);
        cr_expect_eq(mha_impl_find(mha_impls[i].name), &mha_impls[i]);
    }
    cr_expect_null(mha_impl_find("fastest"));
    cr_expect_null(mha_impl_find(NULL));
    case_free(&c);
}
