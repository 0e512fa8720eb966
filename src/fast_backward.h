/* generated from chapters/09-fast-backward.nw; edit the book, not this file */
#ifndef MHA_FAST_BACKWARD_H
#define MHA_FAST_BACKWARD_H
/* Internal interface of the blocked backward pass: the attention core's
   forward pass that keeps each row's log-sum-exp, and its backward pass.
   Not part of mha.h. */
#include "fast.h"

/* <<[[fast_backward.h]] the attention core's gradients>> */
typedef struct fast_attention_grad {
    size_t B, H, L, S, D;                  /* the shape; E = H D */
    const float *q, *k, *v;                /* as in fast_attention */
    size_t ldq, ldk, ldv;
    const mha_mask *mask;                  /* or NULL */
    const float *context;                  /* (B, L, E): the forward's output */
    const float *grad_context;             /* (B, L, E): its gradient */
    const float *lse;                      /* (B, H, L, 2): from fast_attend_lse */
    float *grad_q, *grad_k, *grad_v;       /* laid out as q, k, v */
    size_t ldgq, ldgk, ldgv;
} fast_attention_grad;

/* fast_attend with the tiles and kernels of the backward pass: a->context and
   lse (B, H, L, 2), each row's m and log l; a->weights is not written. */
MHA_MUST_CHECK
mha_status fast_attend_lse(const fast_kernels *k, const fast_attention *a, float *lse);
/* The gradients of q, k and v.  Threads over (batch, head, key tile), then
   over (batch, head, query tile); each output row is written by one item,
   so the results do not depend on the number of threads. */
MHA_MUST_CHECK
mha_status fast_attend_backward(const fast_kernels *k, const fast_attention_grad *g);
#endif
