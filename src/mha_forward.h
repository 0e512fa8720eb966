/* generated from chapters/03-naive.nw, chapters/04-batched.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#ifndef MHA_FORWARD_H
#define MHA_FORWARD_H
/* The forward versions: one signature, one table. */
#include <stddef.h>
#include "mha_status.h"
#include "mha_shape.h"
#include "mha_mask.h"

/* <<[[mha_forward.h]] forward versions>> */
/* Every forward version.  query (B, L, E); key, value (B, S, E), key NULL
   for self-attention (then S = L), value NULL for value = key; params in
   PyTorch's layout, either bias NULL; mask NULL or as in mha_mask.h; out
   (B, L, E); weights NULL or (B, H, L, S), each head's weights.  Returns
   MHA_OK; mha_shape_check's errors; MHA_ERR_NULL for a NULL params, weight,
   query or out; MHA_ERR_SHAPE for a NULL key with S != L; MHA_ERR_NOMEM;
   MHA_ERR_RANGE when finite inputs overflow to a non-finite out. */
typedef mha_status mha_forward_fn(const mha_shape *shape, const mha_params *params,
                                  const float *query, const float *key,
                                  const float *value, const mha_mask *mask,
                                  float *out, float *weights);
MHA_MUST_CHECK mha_forward_fn mha_forward_naive;
/* <<[[mha_forward.h]] forward versions>> */
typedef struct mha_impl {
    const char *name;
    mha_forward_fn *forward;
} mha_impl;
extern const mha_impl mha_impls[];       /* the versions, naive first */
extern const size_t mha_impl_count;
/* The version named name, or NULL. */
const mha_impl *mha_impl_find(const char *name);
/* <<[[mha_forward.h]] forward versions>> */
MHA_MUST_CHECK mha_forward_fn mha_forward_batched;
/* <<[[mha_forward.h]] forward versions>> */
MHA_MUST_CHECK mha_forward_fn mha_forward_blocked;

#endif
