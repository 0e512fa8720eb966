/* generated from chapters/01-shape.nw, chapters/04-batched.nw, chapters/09-fast-backward.nw; edit the book, not this file */
#ifndef MHA_PRODUCTS_H
#define MHA_PRODUCTS_H
/* Matrix products, row-major with row strides. */
#include <stddef.h>
#include "mha_status.h"

/* <<[[mha_products.h]] declarations>> */
/* Unchecked: C (M, N) = A (M, K) W (N, K)^T, plus bias (N) if not NULL;
   row strides lda, ldw, ldc. */
void mha_product_nt_plain(size_t M, size_t N, size_t K,
                          const float *A, size_t lda,
                          const float *W, size_t ldw,
                          const float *bias,
                          float *C, size_t ldc);
/* <<[[mha_products.h]] declarations>> */
/* Unchecked: C (M, N) = A (M, K) Wt (K, N), plus bias (N) if not NULL; row
   strides lda, ldw, ldc; the same sums as mha_product_nt_plain, tiled. */
void mha_product_nn_plain(size_t M, size_t N, size_t K,
                          const float *A, size_t lda,
                          const float *Wt, size_t ldw,
                          const float *bias,
                          float *C, size_t ldc);
/* <<[[mha_products.h]] declarations>> */
/* Checked, with the packed product: C (M, N) = A (M, K) W (N, K)^T; = A (M, K) B (K, N);
   = A (K, M)^T B (K, N).  Row strides lda, ldw or ldb, ldc.  MHA_ERR_NULL for
   a NULL matrix; MHA_ERR_SHAPE for a zero size or a stride below its row's
   length; MHA_ERR_OVERFLOW if a matrix's extent does not fit in size_t;
   MHA_ERR_NOMEM.  C is overwritten. */
MHA_MUST_CHECK
mha_status mha_product_nt(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *W, size_t ldw, float *C, size_t ldc);
MHA_MUST_CHECK
mha_status mha_product_nn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc);
MHA_MUST_CHECK
mha_status mha_product_tn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc);

#endif
