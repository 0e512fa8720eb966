/* generated from chapters/06-kv-cache.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mha_internal.h"

/* <<[[kv_cache.c]] functions>> */
static float *zeroed_lines(size_t bytes)
{
    if (bytes > SIZE_MAX - 63)
        return NULL;
    const size_t rounded = (bytes + 63) / 64 * 64;
    float *p = aligned_alloc(64, rounded);
    if (p != NULL)
        memset(p, 0, rounded);
    return p;
}
mha_status mha_kv_cache_init(mha_kv_cache *cache, size_t batch, size_t kv_heads,
                             size_t capacity, size_t head_dim)
{
    if (cache == NULL)
        return MHA_ERR_NULL;
    memset(cache, 0, sizeof *cache);
    if (batch == 0 || kv_heads == 0 || capacity == 0 || head_dim == 0)
        return MHA_ERR_SHAPE;
    size_t n, bytes;
    if (mha_mul_overflows(batch, kv_heads, &n) || mha_mul_overflows(n, capacity, &n) ||
        mha_mul_overflows(n, head_dim, &n) || mha_mul_overflows(n, sizeof(float), &bytes))
        return MHA_ERR_OVERFLOW;
    const size_t positions = batch * capacity;     /* both at most bytes: no overflow */
    cache->keys = zeroed_lines(bytes);
    cache->values = zeroed_lines(bytes);
    cache->length = calloc(batch, sizeof(size_t));
    cache->padding = calloc(positions, 1);
    cache->lengths = calloc(positions * 2 * kv_heads, sizeof(float));
    if (!cache->keys || !cache->values || !cache->length || !cache->padding ||
        !cache->lengths) {
        mha_kv_cache_free(cache);
        return MHA_ERR_NOMEM;
    }
    cache->batch = batch, cache->kv_heads = kv_heads;
    cache->capacity = capacity, cache->head_dim = head_dim;
    return MHA_OK;
}
/* <<[[kv_cache.c]] functions>> */
void mha_kv_cache_reset(mha_kv_cache *cache)
{
    if (cache == NULL || cache->keys == NULL)
        return;
    const size_t n = cache->batch * cache->kv_heads * cache->capacity * cache->head_dim;
    memset(cache->keys, 0, n * sizeof(float));
    memset(cache->values, 0, n * sizeof(float));
    memset(cache->padding, 0, cache->batch * cache->capacity);
    memset(cache->length, 0, cache->batch * sizeof(size_t));
    memset(cache->lengths, 0, cache->batch * cache->kv_heads * cache->capacity * 2 * sizeof(float));
}

void mha_kv_cache_free(mha_kv_cache *cache)
{
    if (cache == NULL)
        return;
    free(cache->keys); free(cache->values); free(cache->length); free(cache->padding);
    free(cache->lengths);
    memset(cache, 0, sizeof *cache);
}
/* <<[[kv_cache.c]] functions>> */
void mha_kv_cache_take_back(mha_kv_cache *cache, size_t n)
{
    const size_t D = cache->head_dim, T = cache->capacity;
    for (size_t b = 0; b < cache->batch; b++) {
        MHA_REQUIRE(n <= cache->length[b]);
        const size_t start = cache->length[b] - n;
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t slot = ((b * cache->kv_heads + g) * T + start) * D;
            memset(cache->keys + slot, 0, n * D * sizeof(float));
            memset(cache->values + slot, 0, n * D * sizeof(float));
            memset(cache->lengths + 2 * (slot / D), 0, 2 * n * sizeof(float));
        }
        memset(cache->padding + b * T + start, 0, n);
        cache->length[b] = start;
    }
}
/* <<[[kv_cache.c]] functions>> */
static float row_length(const float *x, size_t D);

mha_status mha_kv_cache_append(mha_kv_cache *cache, size_t b, size_t n,
                               const float *keys, const float *values, size_t ld,
                               const unsigned char *padding)
{
    if (cache == NULL || keys == NULL || values == NULL)
        return MHA_ERR_NULL;
    if (b >= cache->batch)
        return MHA_ERR_ARG;
    const size_t T = cache->capacity, D = cache->head_dim, start = cache->length[b];
    if (n > T - start)
        return MHA_ERR_CACHE_FULL;
    for (size_t i = 0; i < n; i++) {
        /* <<copy position [[start + i]]'s keys and values into every group>> */
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t slot = ((b * cache->kv_heads + g) * T + start + i) * D;
            memcpy(cache->keys + slot, keys + i * ld + g * D, D * sizeof(float));
            memcpy(cache->values + slot, values + i * ld + g * D, D * sizeof(float));
        }
        cache->padding[b * T + start + i] = padding ? (padding[i] != 0) : 0;
        /* <<measure position [[start + i]]'s rows in every group>> */
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t row = (b * cache->kv_heads + g) * T + start + i;
            cache->lengths[2 * row] = row_length(cache->keys + row * D, D);
            cache->lengths[2 * row + 1] = row_length(cache->values + row * D, D);
        }
    }
    cache->length[b] = start + n;
    return MHA_OK;
}
/* <<[[kv_cache.c]] functions>> */
static float row_length(const float *x, size_t D)
{
    double sum = 0.0;
    for (size_t d = 0; d < D; d++)
        sum += (double)x[d] * x[d];
    const double length = sqrt(sum);
    return isfinite(length) ? (float)fmin(length, FLT_MAX) : NAN;
}
/* <<[[kv_cache.c]] functions>> */
/* bias (n, T) for the n newest positions of sequence b, T = length[b]. */
static void decode_bias(const mha_kv_cache *cache, size_t b, size_t n, float *bias)
{
    const size_t T = cache->length[b];
    const mha_mask mask = {.causal = 1, .key_padding_mask = cache->padding};
    for (size_t i = 0; i < n; i++) {
        const size_t p = T - n + i;                       /* the query's position */
        for (size_t j = 0; j < T; j++)
            bias[i * T + j] = mha_key_masked(&mask, cache->capacity, b, p, j) ? -INFINITY : 0.0f;
    }
}
/* <<[[kv_cache.c]] functions>> */
void mha_rope(float *x, size_t D, size_t position, double base)
{
    MHA_REQUIRE(D % 2 == 0);
    for (size_t j = 0; 2 * j + 1 < D; j++) {
        const double angle = (double)position * pow(base, -2.0 * (double)j / (double)D);
        const double c = cos(angle), s = sin(angle);
        const double a = x[2 * j], b = x[2 * j + 1];
        x[2 * j] = (float)(c * a - s * b);
        x[2 * j + 1] = (float)(s * a + c * b);
    }
}
/* <<[[kv_cache.c]] functions>> */
typedef void project_fn(const mha_decoder *dec, size_t rows, const float *x, float *qkv);
/* <<[[kv_cache.c]] functions>> */
static void project_per_head(const mha_decoder *dec, size_t rows, const float *x, float *qkv)
{
    const size_t E = dec->embed_dim, D = E / dec->heads, G = dec->kv_heads;
    const size_t F = E + 2 * G * D;
    const float *W = dec->params.in_proj_weight, *bias = dec->params.in_proj_bias;
    for (size_t r = 0; r < dec->heads + 2 * G; r++) {     /* H query heads, G keys, G values */
        const size_t first = r * D;                       /* the block's first output feature */
        mha_product_nt_plain(rows, D, E, x, E, W + first * E, E, bias ? bias + first : NULL,
                             qkv + first, F);
    }
}
/* <<[[kv_cache.c]] functions>> */
static void project_fused(const mha_decoder *dec, size_t rows, const float *x, float *qkv)
{
    const size_t E = dec->embed_dim, D = E / dec->heads;
    const size_t F = E + 2 * dec->kv_heads * D;
    mha_product_nt_plain(rows, F, E, x, E, dec->params.in_proj_weight, E,
                         dec->params.in_proj_bias, qkv, F);
}
/* <<[[kv_cache.c]] functions>> */
static mha_status decode_step(const mha_decoder *dec, mha_kv_cache *cache, size_t n,
                              const float *x, const unsigned char *padding,
                              float *out, float *weights, project_fn *project)
{
    mha_status status = mha_decode_check(dec, cache, n, x, out);
    if (status != MHA_OK)
        return status;
    const size_t B = cache->batch, T_max = cache->capacity, E = dec->embed_dim,
                 H = dec->heads, G = dec->kv_heads, D = E / H, F = E + 2 * G * D;
    /* <<allocate the decoding step's buffers>> */
    float *qkv = malloc(B * n * F * sizeof *qkv), *concat = malloc(B * n * E * sizeof *concat);
    float *bias = malloc(n * T_max * sizeof *bias), *scratch = malloc(n * T_max * sizeof *scratch);
    if (!qkv || !concat || !bias || !scratch) {
        free(qkv); free(concat); free(bias); free(scratch);
        return MHA_ERR_NOMEM;
    }
    project(dec, B * n, x, qkv);                              /* (B, n, F) */
    status = mha_decode_store(dec, cache, n, qkv, padding);
    if (status != MHA_OK) {
        free(qkv); free(concat); free(bias); free(scratch);
        return status;
    }
    for (size_t b = 0; b < B; b++) {
        const size_t T = cache->length[b];
        decode_bias(cache, b, n, bias);                       /* (n, T) */
        for (size_t h = 0; h < H; h++) {
            /* <<attend with head [[h]] of sequence [[b]] over its group's cached keys>> */
            const size_t g = h / (H / G);
            const float *k = cache->keys + (b * G + g) * T_max * D;     /* (T, D) */
            const float *v = cache->values + (b * G + g) * T_max * D;
            mha_attend(n, T, D, qkv + b * n * F + h * D, F, k, D, v, D, bias, scratch,
                       concat + b * n * E + h * D, E);
            if (weights)
                for (size_t i = 0; i < n; i++) {
                    float *row = weights + ((b * H + h) * n + i) * T_max;
                    memcpy(row, scratch + i * T, T * sizeof *row);
                    memset(row + T, 0, (T_max - T) * sizeof *row);
                }
        }
    }
    mha_product_nt_plain(B * n, E, E, concat, E, dec->params.out_proj_weight, E,
                         dec->params.out_proj_bias, out, E);
    free(qkv); free(concat); free(bias); free(scratch);
    status = mha_decode_range(dec, cache, n, x, out);
    if (status != MHA_OK)
        mha_kv_cache_take_back(cache, n);                 /* as if the step never ran */
    return status;
}
/* <<[[kv_cache.c]] functions>> */
mha_status mha_decode_check(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out)
{
    /* <<check a decoding step's arguments and the room in [[cache]]>> */
    if (dec == NULL || cache == NULL || x == NULL || out == NULL ||
        dec->params.in_proj_weight == NULL || dec->params.out_proj_weight == NULL)
        return MHA_ERR_NULL;
    if (dec->embed_dim == 0 || n == 0)
        return MHA_ERR_SHAPE;
    if (dec->heads == 0 || dec->embed_dim % dec->heads != 0 ||
        dec->kv_heads == 0 || dec->heads % dec->kv_heads != 0)
        return MHA_ERR_HEADS;
    if (cache->kv_heads != dec->kv_heads || cache->head_dim != dec->embed_dim / dec->heads)
        return MHA_ERR_SHAPE;
    if (dec->rope && cache->head_dim % 2 != 0)
        return MHA_ERR_ARG;                               /* RoPE rotates pairs */
    for (size_t b = 0; b < cache->batch; b++)
        if (n > cache->capacity - cache->length[b])
            return MHA_ERR_CACHE_FULL;
    size_t width3, rows_n, qkv_n, score_n, weight_n, weights_n;
    if (mha_mul_overflows(3, dec->embed_dim, &width3) ||
        mha_mul_overflows(width3, dec->embed_dim, &weight_n) ||
        mha_mul_overflows(weight_n, sizeof(float), &weight_n) ||
        mha_mul_overflows(cache->batch, n, &rows_n) ||
        mha_mul_overflows(rows_n, width3, &qkv_n) ||
        mha_mul_overflows(qkv_n, sizeof(float), &qkv_n) ||
        mha_mul_overflows(n, cache->capacity, &score_n) ||
        mha_mul_overflows(score_n, sizeof(float), &score_n) ||
        mha_mul_overflows(score_n, cache->batch, &weights_n) ||
        mha_mul_overflows(weights_n, dec->heads, &weights_n))
        return MHA_ERR_OVERFLOW;
    return MHA_OK;
}
/* <<[[kv_cache.c]] functions>> */
mha_status mha_decode_store(const mha_decoder *dec, mha_kv_cache *cache, size_t n, float *qkv,
                            const unsigned char *padding)
{
    const size_t B = cache->batch, E = dec->embed_dim, H = dec->heads, G = dec->kv_heads,
                 D = E / H, F = E + 2 * G * D;
    mha_status status = MHA_OK;
    /* <<rotate the new queries and keys to their positions, if [[dec->rope]]>> */
    if (dec->rope) {
        const double base = dec->rope_base > 0 ? dec->rope_base : 10000.0;
        for (size_t b = 0; b < B; b++)
            for (size_t i = 0; i < n; i++) {
                float *row = qkv + (b * n + i) * F;
                for (size_t h = 0; h < H + G; h++)                /* queries, then keys */
                    mha_rope(row + h * D, D, cache->length[b] + i, base);
            }
    }
    for (size_t b = 0; b < B && status == MHA_OK; b++)
        status = mha_kv_cache_append(cache, b, n, qkv + b * n * F + E,
                                     qkv + b * n * F + E + G * D, F,
                                     padding ? padding + b * n : NULL);
    return status;
}
/* <<[[kv_cache.c]] functions>> */
mha_status mha_decode_step_naive(const mha_decoder *dec, mha_kv_cache *cache, size_t n,
                                 const float *x, const unsigned char *padding,
                                 float *out, float *weights)
{
    return decode_step(dec, cache, n, x, padding, out, weights, project_per_head);
}

mha_status mha_decode_step_batched(const mha_decoder *dec, mha_kv_cache *cache, size_t n,
                                   const float *x, const unsigned char *padding,
                                   float *out, float *weights)
{
    return decode_step(dec, cache, n, x, padding, out, weights, project_fused);
}

const mha_decode_impl mha_decode_impls[] = {
    /* <<the decode implementations>> */
    {"naive", mha_decode_step_naive},
    {"batched", mha_decode_step_batched},
    /* <<the decode implementations>> */
    {"blocked", mha_decode_step_blocked},
};
const size_t mha_decode_impl_count = sizeof mha_decode_impls / sizeof mha_decode_impls[0];

const mha_decode_impl *mha_decode_impl_find(const char *name)
{
    return mha_version_find(mha_decode_impls, mha_decode_impl_count, sizeof mha_decode_impls[0],
                            name);
}
/* <<[[kv_cache.c]] functions>> */
double mha_decode_flops(size_t embed_dim, size_t heads, size_t kv_heads, size_t position)
{
    const double E = (double)embed_dim, D = E / (double)heads, T = (double)position + 1;
    return 2 * E * E + 4 * E * (double)kv_heads * D + 4 * T * E + 2 * E * E;
}
