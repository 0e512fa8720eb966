/* generated from chapters/09-backward.nw, chapters/09-fast-backward.nw; edit the book, not this file */
#ifndef MHA_BACKWARD_H
#define MHA_BACKWARD_H
/* The backward pass: the gradients of a forward pass's inputs and
   parameters for an upstream gradient of its output. */
#include <stddef.h>
#include "mha_status.h"
#include "mha_shape.h"
#include "mha_mask.h"

/* <<[[mha_backward.h]] backward pass>> */
/* The caller's arrays, in PyTorch's layout.  The parameter gradients are
   required and overwritten; an input gradient may be NULL, and with a NULL
   key (value) in the call the key and value (value) gradients are added into
   grad_query (grad_key). */
typedef struct mha_grads {
    float *grad_query;             /* (B, L, E), or NULL */
    float *grad_key;               /* (B, S, E), or NULL (ignored in self-attention) */
    float *grad_value;             /* (B, S, E), or NULL (ignored when value = key) */
    float *grad_in_proj_weight;    /* (3E, E) */
    float *grad_in_proj_bias;      /* (3E), or NULL */
    float *grad_out_proj_weight;   /* (E, E) */
    float *grad_out_proj_bias;     /* (E), or NULL */
} mha_grads;
/* <<[[mha_backward.h]] backward pass>> */
/* Every backward version: the inputs as mha_forward_fn takes them, grad_out
   (B, L, E).  Returns MHA_OK; mha_forward_fn's errors for the inputs (with
   grad_out in place of out); MHA_ERR_NULL for a NULL grads or parameter
   gradient; MHA_ERR_NOMEM; MHA_ERR_RANGE when finite inputs overflow to a
   non-finite gradient.  The naive version recomputes the forward pass. */
MHA_MUST_CHECK
mha_status mha_backward_naive(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads);
/* <<[[mha_backward.h]] backward pass>> */
/* A forward pass's activations for the backward pass; filled by
   mha_forward_saving, owned by the caller until mha_saved_free. */
typedef struct mha_saved {
    mha_shape shape;
    int self;                  /* the projections are one (B, L, 3E) block */
    float *q, *k, *v;          /* head h of a row at column h D: into projections */
    size_t ldq, ldkv;          /* their row strides */
    float *projections;        /* (B, L, 3E); or (B, L, E) then (B, S, 2E) */
    float *context;            /* (B, L, E): the heads before the output projection */
    float *lse;                /* (B, H, L, 2): each row's m and log l, apart */
} mha_saved;
/* <<[[mha_backward.h]] backward pass>> */
/* mha_forward_blocked's contract (out written, no weights), and saved filled;
   MHA_ERR_NULL for a NULL saved.  The caller frees saved with
   mha_saved_free, even after an error. */
MHA_MUST_CHECK
mha_status mha_forward_saving(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, float *out, mha_saved *saved);
/* mha_backward_naive's contract for the gradients, the shape read from saved;
   the inputs and the mask must be the saving pass's.  MHA_ERR_NULL for an
   empty saved. */
MHA_MUST_CHECK
mha_status mha_backward_saved(const mha_params *params, const float *query,
                              const float *key, const float *value, const mha_mask *mask,
                              const mha_saved *saved, const float *grad_out,
                              const mha_grads *grads);
/* Releases saved's memory and empties it; nothing for NULL. */
void mha_saved_free(mha_saved *saved);
/* mha_backward_naive's contract: mha_forward_saving, then mha_backward_saved. */
MHA_MUST_CHECK
mha_status mha_backward_blocked(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask, const float *grad_out,
                                const mha_grads *grads);
/* <<[[mha_backward.h]] backward pass>> */
/* The signature of mha_backward_naive and mha_backward_blocked. */
typedef mha_status mha_backward_fn(const mha_shape *shape, const mha_params *params,
                                   const float *query, const float *key, const float *value,
                                   const mha_mask *mask, const float *grad_out,
                                   const mha_grads *grads);
typedef struct mha_backward_impl {
    const char *name;
    mha_backward_fn *backward;
} mha_backward_impl;
extern const mha_backward_impl mha_backward_impls[];
extern const size_t mha_backward_impl_count;
/* The version named name, or NULL. */
const mha_backward_impl *mha_backward_impl_find(const char *name);

#endif
