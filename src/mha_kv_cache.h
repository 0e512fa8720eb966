/* generated from chapters/06-kv-cache.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#ifndef MHA_KV_CACHE_H
#define MHA_KV_CACHE_H
/* The KV cache and the decoding step: one or a few new positions at a time,
   attending to every position stored before them. */
#include <stddef.h>
#include "mha_status.h"
#include "mha_shape.h"

/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
typedef struct mha_kv_cache {
    size_t batch, kv_heads, capacity, head_dim;  /* B, H_kv, T_max, D */
    size_t *length;                              /* (B): positions filled */
    float *keys, *values;                        /* (B, H_kv, T_max, D) each */
    unsigned char *padding;                      /* (B, T_max): 1 = padding */
    float *lengths;                              /* (B, H_kv, T_max, 2): see below */
} mha_kv_cache;
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* An empty cache of capacity positions per sequence, zeroed; the cache owns
   its memory until mha_kv_cache_free.  MHA_ERR_NULL for a NULL cache;
   MHA_ERR_SHAPE for a zero size; MHA_ERR_OVERFLOW; MHA_ERR_NOMEM.  On an
   error *cache is left empty (safe to free). */
MHA_MUST_CHECK
mha_status mha_kv_cache_init(mha_kv_cache *cache, size_t batch, size_t kv_heads,
                             size_t capacity, size_t head_dim);
/* Reset empties every sequence and keeps the memory; free releases it and
   leaves the cache empty.  Both do nothing to a NULL cache, or to one that
   holds no memory. */
void mha_kv_cache_reset(mha_kv_cache *cache);
void mha_kv_cache_free(mha_kv_cache *cache);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* Unchecked: n is at most every sequence's length. */
void mha_kv_cache_take_back(mha_kv_cache *cache, size_t n);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* Store n positions at the end of sequence b: keys, values (n, H_kv D) with
   row stride ld, padding (n) or NULL (1 = padding).  MHA_ERR_NULL for a NULL
   cache, keys or values; MHA_ERR_ARG for b >= B; MHA_ERR_CACHE_FULL, nothing
   stored, when n positions do not fit. */
MHA_MUST_CHECK
mha_status mha_kv_cache_append(mha_kv_cache *cache, size_t b, size_t n,
                               const float *keys, const float *values, size_t ld,
                               const unsigned char *padding);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* Unchecked (D even): rotate the D features of x (one head) to position
   position, pairs (2j, 2j+1), with frequencies base^(-2j/D). */
void mha_rope(float *x, size_t D, size_t position, double base);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
typedef struct mha_decoder {
    size_t embed_dim, heads, kv_heads;  /* E, H, H_kv: H_kv divides H */
    mha_params params;                  /* in_proj_weight (E + 2 H_kv D, E) */
    int rope;                           /* rotate q and k by position */
    float rope_base;                    /* 0 means 10000 */
} mha_decoder;
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* Every decoding step: x, out (B, n, E); weights NULL or (B, H, n, T_max);
   padding NULL or (B, n).  The n new positions are appended to the cache and
   attend causally to everything stored.  MHA_ERR_NULL for a NULL dec, cache,
   x, out or weight; MHA_ERR_SHAPE for E or n zero or a cache of another
   H_kv or D; MHA_ERR_HEADS unless H divides E and H_kv divides H;
   MHA_ERR_ARG for RoPE with an odd D; MHA_ERR_CACHE_FULL; MHA_ERR_OVERFLOW;
   MHA_ERR_NOMEM; MHA_ERR_RANGE.  On every error the cache holds what it held
   before the call. */
typedef mha_status mha_decode_fn(const mha_decoder *dec, mha_kv_cache *cache,
                                 size_t n, const float *x,
                                 const unsigned char *padding,
                                 float *out, float *weights);
MHA_MUST_CHECK mha_decode_fn mha_decode_step_naive, mha_decode_step_batched;
typedef struct mha_decode_impl {
    const char *name;
    mha_decode_fn *step;
} mha_decode_impl;
extern const mha_decode_impl mha_decode_impls[];
extern const size_t mha_decode_impl_count;
/* The version named name, or NULL. */
const mha_decode_impl *mha_decode_impl_find(const char *name);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
/* The floating-point operations of one step of one token at position
   position (two per multiply-add). */
double mha_decode_flops(size_t embed_dim, size_t heads, size_t kv_heads, size_t position);
/* <<[[mha_kv_cache.h]] KV cache and decoding>> */
MHA_MUST_CHECK mha_decode_fn mha_decode_step_blocked;

#endif
