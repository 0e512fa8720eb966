/* generated from chapters/01-shape.nw, chapters/31-tests-shape.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <criterion/criterion.h>
#include "check.h"

/* <<[[test_shape.c]] tests>> */
Test(shape, check_refuses_bad_shapes) {
    mha_shape ok = {2, 3, 5, 15, 5};
    cr_expect_eq(mha_shape_check(&ok), MHA_OK);
    cr_expect_eq(mha_shape_check(NULL), MHA_ERR_NULL);
    mha_shape s = ok; s.batch = 0;     cr_expect_eq(mha_shape_check(&s), MHA_ERR_SHAPE);
    s = ok; s.key_len = 0;             cr_expect_eq(mha_shape_check(&s), MHA_ERR_SHAPE);
    s = ok; s.heads = 0;               cr_expect_eq(mha_shape_check(&s), MHA_ERR_HEADS);
    s = ok; s.heads = 4;               cr_expect_eq(mha_shape_check(&s), MHA_ERR_HEADS);
    s = ok; s.batch = SIZE_MAX / 2;    cr_expect_eq(mha_shape_check(&s), MHA_ERR_OVERFLOW);
    mha_shape huge = {1 << 16, 1 << 16, 1 << 16, 1 << 16, 1 << 16};   /* B H L S = 2^64 */
    cr_expect_eq(mha_shape_check(&huge), MHA_ERR_OVERFLOW);
}

Test(shape, mul_overflows_at_the_edge) {
    size_t p = 0;
    cr_expect_eq(mha_mul_overflows(SIZE_MAX, 1, &p), 0);
    cr_expect_eq(p, SIZE_MAX);
    cr_expect_eq(mha_mul_overflows(SIZE_MAX / 2 + 1, 2, &p), 1);
    cr_expect_eq(mha_mul_overflows(0, SIZE_MAX, &p), 0);
    cr_expect_eq(p, 0);
}
/* <<[[test_shape.c]] tests>> */
Test(shape, product_nt_plain_strided) {
    rng r = rng_seeded(1);
    const size_t M = 7, N = 5, K = 9, lda = 11, ldw = 12, ldc = 6;
    float *A = random_floats(&r, M * lda, -1, 1), *W = random_floats(&r, N * ldw, -1, 1);
    float *bias = random_floats(&r, N, -1, 1), C[7 * 6];
    double want[7 * 5];
    mha_product_nt_plain(M, N, K, A, lda, W, ldw, bias, C, ldc);
    float got[7 * 5];
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double s = bias[j];
            for (size_t k = 0; k < K; k++)
                s += (double)A[i * lda + k] * W[j * ldw + k];
            want[i * N + j] = s;
            got[i * N + j] = C[i * ldc + j];
        }
    expect_close("C", got, want, M * N, 1e-5);
    free(A); free(W); free(bias);
}
Test(shape, every_status_has_a_message) {
    for (int s = 0; s < MHA_STATUS_COUNT; s++)
        cr_expect_str_neq(mha_status_message((mha_status)s), "unknown status",
                          "status %d has no message", s);
    cr_expect_str_eq(mha_status_message((mha_status)-1), "unknown status");
}
Test(shape, param_count) {
    cr_expect_eq(mha_param_count(512, 1), 1050624);
    cr_expect_eq(mha_param_count(512, 0), 4 * 512 * 512);
    cr_expect_eq(mha_param_count(SIZE_MAX / 2, 1), 0, "overflow reports 0");
}
Test(shape, param_count_at_the_edge) {
    if (SIZE_MAX != UINT64_MAX)
        cr_skip_test("the edge is worked out for a 64-bit size_t");
    const size_t E = ((size_t)1 << 31) - 1;
    cr_expect_eq(mha_param_count(E, 1), SIZE_MAX - (((size_t)1 << 33) - 1));
    cr_expect_eq(mha_param_count(E, 0), SIZE_MAX - (((size_t)1 << 33) - 1) - 4 * E);
    cr_expect_eq(mha_param_count(E + 1, 0), 0);
    cr_expect_eq(mha_param_count(E + 1, 1), 0);
}
Test(shape, each_size_and_product_is_checked) {
    const size_t p31 = (size_t)1 << 31, p32 = (size_t)1 << 32, p61 = (size_t)1 << 61,
                 p63 = (size_t)1 << 63;
    const struct { mha_shape s; mha_status want; } cases[] = {
        {{1, 0, 1, 4, 2}, MHA_ERR_SHAPE},         {{1, 1, 1, 0, 1}, MHA_ERR_SHAPE},
        {{2, p63, 1, 1, 1}, MHA_ERR_OVERFLOW},    /* B L */
        {{1, 1, p63, 1, 1}, MHA_ERR_OVERFLOW},    /* B S 3 */
        {{1, 1, 1, p63, 1}, MHA_ERR_OVERFLOW},    /* B L 3E */
        {{1, 1, 1, p61, 1}, MHA_ERR_OVERFLOW},    /* B L 3E doubles */
        {{1, 1, 1, p32, 1}, MHA_ERR_OVERFLOW},    /* 3E E */
        {{1, 1, 1, p31, 1}, MHA_ERR_OVERFLOW},    /* 3E E doubles */
        {{1, p32, p32, 1, 1}, MHA_ERR_OVERFLOW},  /* B H L S */
        {{1, p31, p31, 1, 1}, MHA_ERR_OVERFLOW},  /* B H L S doubles */
        {{1, p31 / 2, p31 / 2, 1, 1}, MHA_OK},    /* 2^63 bytes: fits */
    };
    if (SIZE_MAX != UINT64_MAX)
        cr_skip_test("the shapes are worked out for a 64-bit size_t");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(mha_shape_check(&cases[i].s), cases[i].want, "shape %zu", i);
}
Test(shape, flop_count) {
    mha_shape s = {32, 10, 10, 512, 8};
    mha_flops f = mha_flop_count(&s);
    cr_expect_eq(f.q_proj, 2.0 * 32 * 10 * 512 * 512);
    cr_expect_eq(f.kv_proj, 2 * f.q_proj);
    cr_expect_eq(f.scores, 2.0 * 32 * 10 * 10 * 512);
    cr_expect_eq(f.context, f.scores);
    cr_expect_eq(f.total, 4 * f.q_proj + 2 * f.scores);
    cr_expect_eq(f.softmax, 128000.0);
}
Test(shape, product_nt_plain_small) {
    const float A[2 * 3] = {1, 2, 3, 4, 5, 6};          /* (2, 3) */
    const float W[2 * 3] = {1, 0, 0, 0, 1, 1};          /* (2, 3) */
    const float bias[2] = {10, 20};
    float C[4];
    mha_product_nt_plain(2, 2, 3, A, 3, W, 3, bias, C, 2);
    cr_expect_eq(C[0], 11); cr_expect_eq(C[1], 25);
    cr_expect_eq(C[2], 14); cr_expect_eq(C[3], 31);
}
