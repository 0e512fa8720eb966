/* generated from chapters/01-shape.nw, chapters/04-batched.nw; edit the book, not this file */
#include <stddef.h>
#include "mha_internal.h"

/* <<[[product_plain.c]] the plain product>> */
void mha_product_nt_plain(size_t M, size_t N, size_t K,
                          const float *A, size_t lda,
                          const float *W, size_t ldw,
                          const float *bias,
                          float *C, size_t ldc)
{
    MHA_REQUIRE(M <= 1 || lda >= K);
    MHA_REQUIRE(N <= 1 || ldw >= K);
    MHA_REQUIRE(M <= 1 || ldc >= N);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float sum = bias ? bias[j] : 0.0f;
            for (size_t k = 0; k < K; k++)
                sum += A[i * lda + k] * W[j * ldw + k];
            C[i * ldc + j] = sum;
        }
}

/* <<[[product_plain.c]] the tiled product>> */
enum { TILE_ROWS = 4, TILE_COLS = 16 };

void mha_transpose(size_t rows, size_t cols, const float *src, size_t lds,
                   float *dst, size_t ldd)
{
    MHA_REQUIRE(rows <= 1 || lds >= cols);
    MHA_REQUIRE(cols <= 1 || ldd >= rows);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            dst[c * ldd + r] = src[r * lds + c];
}
/* <<[[product_plain.c]] the tiled product>> */
static void tile_full(size_t K, const float *A, size_t lda,
                      const float *Wt, size_t ldw, const float *bias,
                      float *C, size_t ldc)
{
    float acc[TILE_ROWS][TILE_COLS];
    for (size_t r = 0; r < TILE_ROWS; r++)
        for (size_t j = 0; j < TILE_COLS; j++)
            acc[r][j] = bias ? bias[j] : 0.0f;
    for (size_t k = 0; k < K; k++) {
        const float *w = Wt + k * ldw;               /* row k of the panel */
        for (size_t r = 0; r < TILE_ROWS; r++) {
            const float a = A[r * lda + k];
            for (size_t j = 0; j < TILE_COLS; j++)
                acc[r][j] += a * w[j];
        }
    }
    for (size_t r = 0; r < TILE_ROWS; r++)
        for (size_t j = 0; j < TILE_COLS; j++)
            C[r * ldc + j] = acc[r][j];
}
/* <<[[product_plain.c]] the tiled product>> */
static void tile_edge(size_t rows, size_t cols, size_t K, const float *A, size_t lda,
                      const float *Wt, size_t ldw, const float *bias,
                      float *C, size_t ldc)
{
    for (size_t r = 0; r < rows; r++) {
        float *c = C + r * ldc;
        for (size_t j = 0; j < cols; j++)
            c[j] = bias ? bias[j] : 0.0f;
        for (size_t k = 0; k < K; k++) {
            const float a = A[r * lda + k];
            for (size_t j = 0; j < cols; j++)
                c[j] += a * Wt[k * ldw + j];
        }
    }
}
/* <<[[product_plain.c]] the tiled product>> */
void mha_product_nn_plain(size_t M, size_t N, size_t K,
                          const float *A, size_t lda,
                          const float *Wt, size_t ldw,
                          const float *bias,
                          float *C, size_t ldc)
{
    MHA_REQUIRE(M <= 1 || (lda >= K && ldc >= N));
    MHA_REQUIRE(K <= 1 || ldw >= N);
    for (size_t i = 0; i < M; i += TILE_ROWS)
        for (size_t j = 0; j < N; j += TILE_COLS) {
            const size_t rows = M - i < TILE_ROWS ? M - i : TILE_ROWS;
            const size_t cols = N - j < TILE_COLS ? N - j : TILE_COLS;
            const float *b = bias ? bias + j : NULL;
            if (rows == TILE_ROWS && cols == TILE_COLS)
                tile_full(K, A + i * lda, lda, Wt + j, ldw, b, C + i * ldc + j, ldc);
            else
                tile_edge(rows, cols, K, A + i * lda, lda, Wt + j, ldw, b,
                          C + i * ldc + j, ldc);
        }
}
