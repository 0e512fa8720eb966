/* generated from chapters/26-exercises.nw; edit the book, not this file */
/* The held-out tests of the exercises: the grader runs them, the workspaces
   do not hold them.  Each test's name starts with its exercise's name. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "mha.h"
#include "oracle.h"

static void check_pair(float a, float b)
{
    float x[2] = {a, b};
    mha_softmax_row(x, 2);
    const double first = 1.0 / (1.0 + exp((double)b - (double)a));   /* only once it returns */
    cr_assert(fabs(x[0] - first) < 1e-6 && fabs(x[1] - (1.0 - first)) < 1e-6,
              "softmax(%g, %g) is (%g, %g), not (%g, %g)", a, b, x[0], x[1], first, 1.0 - first);
}

Test(held_out, softmax_stable_large_scores) {
    check_pair(1000.0f, 999.0f);
    check_pair(88.0f, 89.0f);
}

Test(held_out, softmax_stable_very_negative_scores) {
    check_pair(-1000.0f, -1001.0f);
    check_pair(-200.0f, -200.0f);
}

Test(held_out, softmax_stable_tiny_scores) {
    check_pair(1e-30f, -1e-30f);
    check_pair(0.0f, 1e-38f);
}

enum { NO_MASK, CAUSAL, PADDING };

static void lengths_differ(int kind, uint64_t seed)
{
    const mha_shape shapes[4] = {{2, 3, 11, 12, 3}, {1, 9, 2, 16, 4}, {2, 1, 5, 8, 2},
                                 {1, 5, 70, 16, 2}};
    for (size_t t = 0; t < 4; t++) {
        const mha_shape s = shapes[t];
        mha_case c = case_random(s, seed + t, CASE_CROSS);
        for (size_t i = 0; i < s.embed_dim * s.embed_dim; i++)   /* W_Q: large scores */
            c.in_w[i] *= 6.0f;
        unsigned char *padding = calloc(s.batch * s.key_len, 1);
        cr_assert_not_null(padding);
        for (size_t j = 0; j < s.batch * s.key_len; j++)
            padding[j] = j % 3 == 1;
        const mha_mask mask = {.causal = kind == CAUSAL,
                               .key_padding_mask = kind == PADDING ? padding : NULL};
        for (size_t i = 0; i < mha_impl_count; i++)
            check_against_reference(&mha_impls[i], &c, &mask);
        free(padding);
        case_free(&c);
    }
}

Test(held_out, scaled_scores_query_and_key_lengths_differ) { lengths_differ(NO_MASK, 900); }
Test(held_out, head_projection_query_and_key_lengths_differ) { lengths_differ(NO_MASK, 910); }
Test(held_out, head_split_query_and_key_lengths_differ) { lengths_differ(CAUSAL, 920); }
Test(held_out, causal_mask_query_and_key_lengths_differ) { lengths_differ(CAUSAL, 930); }
Test(held_out, padding_mask_query_and_key_lengths_differ) { lengths_differ(PADDING, 940); }
Test(held_out, online_softmax_query_and_key_lengths_differ) { lengths_differ(CAUSAL, 950); }
