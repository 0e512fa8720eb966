/* generated from chapters/01-shape.nw; edit the book, not this file */
#ifndef MHA_SHAPE_H
#define MHA_SHAPE_H
/* A problem's sizes, the layer's parameters, and what they cost. */
#include <stddef.h>
#include "mha_status.h"

/* <<[[mha_shape.h]] shapes and sizes>> */
typedef struct mha_shape {
    size_t batch;       /* B */
    size_t query_len;   /* L */
    size_t key_len;     /* S (= L for self-attention) */
    size_t embed_dim;   /* E */
    size_t heads;       /* H; the head width is D = E / H */
} mha_shape;
/* <<[[mha_shape.h]] shapes and sizes>> */
/* 1, *product untouched, when a b does not fit in size_t; else 0 and
   *product = a b.  The check before every allocation. */
int mha_mul_overflows(size_t a, size_t b, size_t *product);
/* <<[[mha_shape.h]] shapes and sizes>> */
/* MHA_ERR_NULL for a NULL shape; MHA_ERR_SHAPE when B, L, S or E is zero;
   MHA_ERR_HEADS when H is zero or does not divide E; MHA_ERR_OVERFLOW when
   an array the versions allocate, (B, max(L, S), 3E), (3E, E) or
   (B, H, L, S) of doubles, has a byte count past size_t. */
MHA_MUST_CHECK mha_status mha_shape_check(const mha_shape *shape);
/* <<[[mha_shape.h]] shapes and sizes>> */
typedef struct mha_params {
    const float *in_proj_weight;   /* (3E, E): rows W_Q, then W_K, then W_V */
    const float *in_proj_bias;     /* (3E) or NULL for no bias */
    const float *out_proj_weight;  /* (E, E) */
    const float *out_proj_bias;    /* (E) or NULL for no bias */
} mha_params;
/* <<[[mha_shape.h]] shapes and sizes>> */
/* The floats of a layer's parameters, 4 E^2 (+ 4 E with biases); 0 when
   that does not fit in size_t. */
size_t mha_param_count(size_t embed_dim, int with_bias);
/* <<[[mha_shape.h]] shapes and sizes>> */
typedef struct mha_flops {
    double q_proj, kv_proj, scores, context, out_proj;  /* matrix products */
    double total;                                       /* sum of the five */
    double softmax;                                     /* not in total */
} mha_flops;
/* <<[[mha_shape.h]] shapes and sizes>> */
/* Unchecked (shape not NULL): the floating-point operations of one forward
   pass, two per multiply-add. */
mha_flops mha_flop_count(const mha_shape *shape);

#endif
