/* generated from chapters/08-fast-attention.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "fast.h"

/* <<[[fast_decode.c]] declarations>> */
enum { DECODE_CHUNK = 256 };
typedef struct decode_task decode_task;
static mha_status decode_task_alloc(decode_task *t, const fast_kernels *k,
                                    const mha_decoder *dec, const mha_kv_cache *cache,
                                    size_t n, const float *qkv);
static void decode_task_free(decode_task *t);
static void split_k_attend(const decode_task *t, float *concat, float *weights);
/* <<[[fast_decode.c]] declarations>> */
struct decode_task {
    const fast_kernels *k;
    const mha_kv_cache *cache;
    size_t n, H, G, D, F, chunks;
    const float *qkv;                     /* (B, n, F): the rotated queries come first */
    float *part;                          /* (B, G, chunks, H / G, n, D + 2) */
    float *scores;                        /* per thread: (DECODE_CHUNK) */
    float *stats;                         /* (B, H, n, 2): each query's maximum and sum */
};
/* <<[[fast_decode.c]] functions>> */
static mha_status project_rows(const fast_kernels *k, const fast_blocking *blk, size_t M,
                               const float *X, const float *W, const fast_packed *packed,
                               size_t N, size_t K, const float *bias, float *Y)
{
    if (packed->data != NULL)
        return fast_product(k, blk, M, X, K, packed, bias, Y, N);
    fast_product_vector(k, M, X, K, W, N, K, bias, Y, N);
    return MHA_OK;
}
/* <<[[fast_decode.c]] functions>> */
mha_status mha_decode_step_blocked(const mha_decoder *dec, mha_kv_cache *cache, size_t n,
                                   const float *x, const unsigned char *padding,
                                   float *out, float *weights)
{
    mha_status status = mha_decode_check(dec, cache, n, x, out);
    if (status != MHA_OK)
        return status;
    const size_t B = cache->batch, E = dec->embed_dim, H = dec->heads, G = dec->kv_heads,
                 D = E / H, F = E + 2 * G * D;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, D);
    fast_packed in_packed = {0}, out_packed = {0};
    decode_task t;
    float *qkv = malloc(B * n * F * sizeof *qkv), *concat = malloc(B * n * E * sizeof *concat);
    status = qkv && concat ? decode_task_alloc(&t, k, dec, cache, n, qkv) : MHA_ERR_NOMEM;
    if (status == MHA_OK && B * n > 8)
        status = fast_pack(k, &blk, F, E, dec->params.in_proj_weight, E, &in_packed);
    if (status == MHA_OK && B * n > 8)
        status = fast_pack(k, &blk, E, E, dec->params.out_proj_weight, E, &out_packed);
    if (status == MHA_OK)
        /* <<project, rotate, append, attend and project out>> */
        {
            status = project_rows(k, &blk, B * n, x, dec->params.in_proj_weight, &in_packed, F, E,
                                  dec->params.in_proj_bias, qkv);              /* (B, n, F) */
            if (status == MHA_OK)
                status = mha_decode_store(dec, cache, n, qkv, padding);
            if (status == MHA_OK) {
                split_k_attend(&t, concat, weights);
                status = project_rows(k, &blk, B * n, concat, dec->params.out_proj_weight, &out_packed,
                                      E, E, dec->params.out_proj_bias, out);
                if (status == MHA_OK)
                    status = mha_decode_range(dec, cache, n, x, out);
                if (status != MHA_OK)
                    mha_kv_cache_take_back(cache, n);
            }
        }
    if (qkv && concat && t.part)
        decode_task_free(&t);
    free(qkv); free(concat); fast_packed_free(&in_packed); fast_packed_free(&out_packed);
    return status;
}
/* <<[[fast_decode.c]] functions>> */
static mha_status decode_task_alloc(decode_task *t, const fast_kernels *k,
                                    const mha_decoder *dec, const mha_kv_cache *cache,
                                    size_t n, const float *qkv)
{
    const size_t B = cache->batch, H = dec->heads, G = dec->kv_heads, D = dec->embed_dim / H;
    const size_t chunks = (cache->capacity + DECODE_CHUNK - 1) / DECODE_CHUNK;
    const size_t threads = (size_t)omp_get_max_threads();
    *t = (decode_task){k, cache, n, H, G, D, dec->embed_dim + 2 * G * D, chunks, qkv,
                       malloc(B * G * chunks * (H / G) * n * (D + 2) * sizeof(float)),
                       malloc(threads * (H / G) * DECODE_CHUNK * sizeof(float)),
                       malloc(2 * B * H * n * sizeof(float))};
    if (t->part && t->scores && t->stats)
        return MHA_OK;
    decode_task_free(t);
    t->part = NULL;
    return MHA_ERR_NOMEM;
}

static void decode_task_free(decode_task *t)
{
    free(t->part); free(t->scores); free(t->stats);
}
/* <<[[fast_decode.c]] functions>> */
static float *part_at(const decode_task *t, size_t b, size_t g, size_t c, size_t hh, size_t i)
{
    const size_t per = t->H / t->G;
    return t->part + ((((b * t->G + g) * t->chunks + c) * per + hh) * t->n + i) * (t->D + 2);
}
/* <<[[fast_decode.c]] functions>> */
static int visible(const mha_kv_cache *cache, size_t b, size_t n, size_t i, size_t j)
{
    const mha_mask mask = {.causal = 1, .key_padding_mask = cache->padding};
    return !mha_key_masked(&mask, cache->capacity, b, cache->length[b] - n + i, j);
}
/* <<[[fast_decode.c]] functions>> */
static int sees_all(const mha_kv_cache *cache, size_t b, size_t n, size_t i, size_t j0,
                    size_t len)
{
    if (len == 0 || !visible(cache, b, n, i, j0 + len - 1))
        return 0;
    const unsigned char *pad = cache->padding ? cache->padding + b * cache->capacity + j0 : NULL;
    for (size_t j = 0; pad && j < len; j++)
        if (pad[j])
            return 0;
    return 1;
}
/* <<[[fast_decode.c]] functions>> */
static void decode_chunk(const decode_task *t, size_t b, size_t g, size_t c, float *s)
{
    const mha_kv_cache *cache = t->cache;
    const size_t D = t->D, per = t->H / t->G, T = cache->length[b], j0 = c * DECODE_CHUNK;
    const size_t len = T > j0 ? (T - j0 < DECODE_CHUNK ? T - j0 : DECODE_CHUNK) : 0;
    const float *keys = cache->keys + ((b * t->G + g) * cache->capacity + j0) * D;
    const float *values = cache->values + ((b * t->G + g) * cache->capacity + j0) * D;
    const float scale = 1.0f / sqrtf((float)D);
    for (size_t i = 0; i < t->n; i++) {
        const float *q = t->qkv + (b * t->n + i) * t->F + g * per * D;    /* (per, D) */
        t->k->key_dots(q, D, per, keys, len, D, scale, s, DECODE_CHUNK);
        const int all_seen = sees_all(cache, b, t->n, i, j0, len);  /* the same for every head */
        for (size_t hh = 0; hh < per; hh++) {
            float *sh = s + hh * DECODE_CHUNK, *part = part_at(t, b, g, c, hh, i);
            /* <<turn the scores [[sh]] of one head into its partial softmax in [[part]]>> */
            const size_t padded = (len + t->k->width - 1) / t->k->width * t->k->width;
            for (size_t j = all_seen ? len : 0; j < padded; j++)
                if (j >= len || !visible(cache, b, t->n, i, j0 + j))
                    sh[j] = -INFINITY;
            const float m = padded ? t->k->row_max(sh, padded) : -INFINITY;
            memset(part, 0, (D + 2) * sizeof *part);
            part[0] = m;
            for (size_t j = 0; m == -INFINITY && j < len; j++)   /* all NaN is not all masked */
                if (isnan(sh[j]))
                    part[0] = part[1] = NAN;
            if (m != -INFINITY)
                part[1] = t->k->exp_sum(sh, padded, m);
            else
                memset(sh, 0, padded * sizeof *sh);              /* no weight: the values are skipped */
        }
        t->k->weighted_rows(s, DECODE_CHUNK, per, values, len, D, part_at(t, b, g, c, 0, i) + 2,
                            t->n * (D + 2));
    }
}
/* <<[[fast_decode.c]] functions>> */
static void merge_chunks(const decode_task *t, size_t b, size_t h, size_t i, float *context,
                         float *max_out, float *sum_out)
{
    const size_t D = t->D, per = t->H / t->G, g = h / per, hh = h % per;
    float m = -INFINITY, l = 0.0f;
    for (size_t c = 0; c < t->chunks; c++) {
        const float mc = part_at(t, b, g, c, hh, i)[0];
        m = mc > m || isnan(mc) ? mc : m;             /* a NaN chunk poisons the row */
    }
    if (isnan(m)) {
        for (size_t d = 0; d < D; d++)
            context[d] = NAN;
        *max_out = *sum_out = NAN;
        return;
    }
    memset(context, 0, D * sizeof *context);
    for (size_t c = 0; m != -INFINITY && c < t->chunks; c++) {
        const float *part = part_at(t, b, g, c, hh, i);
        if (part[0] == -INFINITY)
            continue;
        const float factor = expf(part[0] - m);
        l += factor * part[1];
        t->k->axpy(factor, part + 2, context, D);
    }
    for (size_t d = 0; d < D; d++)
        context[d] = l != 0.0f ? context[d] / l : 0.0f;
    *max_out = m;
    *sum_out = l;
}
/* <<[[fast_decode.c]] functions>> */
static void split_k_attend(const decode_task *tp, float *concat, float *weights)
{
    const decode_task t = *tp;
    const mha_kv_cache *cache = t.cache;
    const size_t B = cache->batch, H = t.H, G = t.G, D = t.D, n = t.n, E = H * D;
    const size_t tasks = B * G * t.chunks;
    const fast_kernels *k = t.k;
    float *stats = t.stats;
    /* <<run every chunk task, then merge each query's chunks into [[concat]]>> */
    #pragma omp parallel for schedule(dynamic, 4)
    for (size_t task = 0; task < tasks; task++)
        decode_chunk(&t, task / (G * t.chunks), task / t.chunks % G, task % t.chunks,
                     t.scores + (size_t)omp_get_thread_num() * (H / G) * DECODE_CHUNK);
    for (size_t r = 0; r < B * H * n; r++) {               /* small: not worth a fork */
        const size_t b = r / (H * n), h = r / n % H, i = r % n;
        merge_chunks(&t, b, h, i, concat + (b * n + i) * E + h * D,
                     &stats[2 * r], &stats[2 * r + 1]);
    }
    if (weights)
        /* <<write the weights of the decoding step>> */
        #pragma omp parallel for schedule(static)
        for (size_t r = 0; r < B * H * n; r++) {
            const size_t b = r / (H * n), h = r / n % H, i = r % n, g = h / (H / G);
            const float *q = t.qkv + (b * n + i) * t.F + h * D, m = stats[2 * r], l = stats[2 * r + 1];
            float *row = weights + r * cache->capacity;
            for (size_t j = 0; j < cache->capacity; j++) {
                const float *key = cache->keys + ((b * G + g) * cache->capacity + j) * D;
                const int seen = j < cache->length[b] && visible(cache, b, n, i, j) && l != 0.0f;
                row[j] = seen ? expf(k->dot(q, key, D) * (1.0f / sqrtf((float)D)) - m) / l : 0.0f;
            }
        }
}
