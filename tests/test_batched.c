/* generated from chapters/04-batched.nw, chapters/34-tests-batched.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "mha_internal.h"
#include "oracle.h"

/* <<[[test_batched.c]] tests>> */
Test(batched, product_nn_plain_edges) {
    const size_t sizes[] = {1, 3, 4, 5, 15, 16, 17, 33};
    rng r = rng_seeded(40);
    for (size_t a = 0; a < 8; a++)
        for (size_t b = 0; b < 8; b++) {
            const size_t M = sizes[a], N = sizes[b], K = 7, lda = K + 2, ldw = N + 3, ldc = N + 1;
            float *A = random_floats(&r, M * lda, -1, 1), *Wt = random_floats(&r, K * ldw, -1, 1);
            float *bias = random_floats(&r, N, -1, 1), *C = random_floats(&r, M * ldc, 7, 7);
            double *want = malloc(M * N * sizeof *want);
            float *got = malloc(M * N * sizeof *got);
            mha_product_nn_plain(M, N, K, A, lda, Wt, ldw, (a + b) % 2 ? bias : NULL, C, ldc);
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++) {
                    double s = (a + b) % 2 ? bias[j] : 0.0;
                    for (size_t k = 0; k < K; k++)
                        s += (double)A[i * lda + k] * Wt[k * ldw + j];
                    want[i * N + j] = s;
                    got[i * N + j] = C[i * ldc + j];
                }
            expect_close("C", got, want, M * N, 1e-5);
            for (size_t i = 0; i < M; i++)           /* the padding columns are untouched */
                cr_expect(C[i * ldc + N] == 7.0f, "M=%zu N=%zu: wrote past column N", M, N);
            free(A); free(Wt); free(bias); free(C); free(want); free(got);
        }
}
/* <<[[test_batched.c]] tests>> */
Test(batched, all_projection_cases_match_the_reference) {
    const mha_impl *batched = mha_impl_find("batched");
    cr_assert_not_null(batched);
    const struct { mha_shape s; int flags; } cases[] = {
        {{2, 5, 5, 20, 4}, CASE_SELF},
        {{2, 5, 9, 20, 5}, CASE_SHARED_KV},
        {{3, 7, 2, 36, 6}, CASE_CROSS},
        {{1, 17, 17, 48, 3}, CASE_SELF | CASE_NO_BIAS},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        mha_case c = case_random(cases[t].s, 400 + t, cases[t].flags);
        check_against_reference(batched, &c, NULL);
        case_free(&c);
    }
}

Test(batched, transpose_round_trip) {
    rng r = rng_seeded(41);
    float *a = random_floats(&r, 5 * 3, -1, 1), t[3 * 5], back[5 * 3];
    mha_transpose(5, 3, a, 3, t, 5);
    mha_transpose(3, 5, t, 5, back, 3);
    cr_expect(memcmp(a, back, sizeof back) == 0);
    cr_expect(t[2 * 5 + 4] == a[4 * 3 + 2]);
    free(a);
}
Test(batched, output_does_not_depend_on_asking_for_weights) {
    mha_case c = case_random((mha_shape){2, 6, 6, 16, 4}, 42, CASE_SELF);
    float with[2 * 6 * 16], without[2 * 6 * 16], w[2 * 4 * 6 * 6];
    for (size_t i = 0; i < mha_impl_count; i++) {
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, NULL, NULL, NULL,
                                          with, w), MHA_OK);
        cr_assert_eq(mha_impls[i].forward(&c.shape, &c.params, c.query, NULL, NULL, NULL,
                                          without, NULL), MHA_OK);
        cr_expect(memcmp(with, without, sizeof with) == 0, "%s", mha_impls[i].name);
    }
    case_free(&c);
}
