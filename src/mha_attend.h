/* generated from chapters/02-sdpa.nw; edit the book, not this file */
#ifndef MHA_ATTEND_H
#define MHA_ATTEND_H
/* The reference layer: a stable softmax and one attention head, unchecked. */
#include <stddef.h>

/* <<[[mha_attend.h]] softmax and one head>> */
/* Unchecked: x (n) becomes softmax(x), computed stably.  A row of -inf
   becomes zeros; a NaN anywhere makes the whole row NaN. */
void mha_softmax_row(float *x, size_t n);
/* <<[[mha_attend.h]] softmax and one head>> */
/* Unchecked: one head.  q (L, D), k (S, D), v (S, D) with row strides ldq,
   ldk, ldv; bias (L, S) added to the scores, or NULL; weights (L, S) out, also
   the scratch; context (L, D) out, row stride ldc. */
void mha_attend(size_t L, size_t S, size_t D,
                const float *q, size_t ldq,
                const float *k, size_t ldk,
                const float *v, size_t ldv,
                const float *bias,
                float *weights,
                float *context, size_t ldc);

#endif
