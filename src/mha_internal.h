/* generated from chapters/03-naive.nw, chapters/04-batched.nw, chapters/05-masking.nw, chapters/06-kv-cache.nw, chapters/25-hardening.nw; edit the book, not this file */
#ifndef MHA_INTERNAL_H
#define MHA_INTERNAL_H
/* Helpers the versions share: the argument checks, the mask as a bias, the
   decoding step's common parts, the range rule.  Not included by mha.h; the
   library's own files and its tests include it. */
#include "mha.h"

/* <<[[mha_internal.h]] declarations>> */
/* The checks of mha_forward_fn, in its order.  On MHA_OK a NULL *key has
   become query, and a NULL *value *key. */
MHA_MUST_CHECK
mha_status mha_forward_check(const mha_shape *shape, const mha_params *params,
                             const float *query, const float **key,
                             const float **value, const float *out);
/* <<[[mha_internal.h]] declarations>> */
/* The entry named name in a table of count entries of size bytes, each of
   which begins with its name (a const char *); NULL if none is. */
const void *mha_version_find(const void *table, size_t count, size_t size, const char *name);
/* <<[[mha_internal.h]] declarations>> */
/* Unchecked: dst (cols, rows) = src (rows, cols) transposed; row strides
   lds, ldd. */
void mha_transpose(size_t rows, size_t cols, const float *src, size_t lds,
                   float *dst, size_t ldd);
/* <<[[mha_internal.h]] declarations>> */
/* 1: bias (L, S) holds sequence b's additive mask; 0: there is no mask, bias
   untouched; -1: shape or bias is NULL, or b >= B, bias untouched. */
MHA_MUST_CHECK
int mha_mask_bias(const mha_mask *mask, const mha_shape *shape, size_t b, float *bias);
/* <<[[mha_internal.h]] declarations>> */
/* The checks of mha_decode_fn, in its order. */
MHA_MUST_CHECK
mha_status mha_decode_check(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out);
/* <<[[mha_internal.h]] declarations>> */
/* Rotate the step's new queries and keys (if dec->rope) and append the new
   keys and values to the cache.  qkv: (B, n, F), F = E + 2 H_kv D. */
MHA_MUST_CHECK
mha_status mha_decode_store(const mha_decoder *dec, mha_kv_cache *cache, size_t n, float *qkv,
                            const unsigned char *padding);
/* <<[[mha_internal.h]] declarations>> */
/* The unchecked blocks' preconditions, asserted when the library is built
   with MHA_CHECK_PRECONDITIONS (the sanitizer build); nothing otherwise. */
#ifdef MHA_CHECK_PRECONDITIONS
#include <assert.h>
#define MHA_REQUIRE(condition) assert(condition)
#else
#define MHA_REQUIRE(condition) ((void)0)
#endif
/* <<[[mha_internal.h]] declarations>> */
/* The rule for a forward pass of a checked shape (out: (B, L, E)). */
MHA_MUST_CHECK
mha_status mha_forward_range(const mha_shape *shape, const mha_params *params,
                             const float *query, const float *key, const float *value,
                             const mha_mask *mask, const float *out);
/* <<[[mha_internal.h]] declarations>> */
/* The rule for a backward pass of a checked shape. */
MHA_MUST_CHECK
mha_status mha_backward_range(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads);
/* <<[[mha_internal.h]] declarations>> */
/* The rule for a decoding step of n new positions, after their append
   (x, out: (B, n, E)). */
MHA_MUST_CHECK
mha_status mha_decode_range(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out);

#endif
