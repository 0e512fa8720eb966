/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include "mha_internal.h"

size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) && !(allow_minus_infinity && x[i] == -INFINITY))
            return i;
    return n;
}
static int all_finite(const mha_span *spans, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (spans[i].x != NULL &&
            mha_first_nonfinite(spans[i].x, spans[i].n, spans[i].allow_minus_infinity) !=
                spans[i].n)
            return 0;
    return 1;
}

mha_status mha_range_check(const mha_span *inputs, size_t n_inputs, const mha_span *results,
                           size_t n_results)
{
    if (all_finite(results, n_results) || !all_finite(inputs, n_inputs))
        return MHA_OK;
    return MHA_ERR_RANGE;
}
static int forward_may_overflow(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask);
static int backward_may_overflow(const mha_shape *shape, const mha_params *params,
                                 const float *query, const float *key, const float *value,
                                 const mha_mask *mask, const float *grad_out);
static int decode_may_overflow(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                               const float *x);
static int held_finite(const mha_kv_cache *cache, size_t n);
mha_status mha_forward_range(const mha_shape *shape, const mha_params *params,
                             const float *query, const float *key, const float *value,
                             const mha_mask *mask, const float *out)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim;
    const mha_span inputs[] = {
        {query, B * L * E, 0}, {key, B * S * E, 0}, {value, B * S * E, 0},
        {params->in_proj_weight, 3 * E * E, 0}, {params->in_proj_bias, 3 * E, 0},
        {params->out_proj_weight, E * E, 0}, {params->out_proj_bias, E, 0},
        {mask ? mask->attn_mask_float : NULL, L * S, 1},
    };
    const mha_span result = {out, B * L * E, 0};
    if (all_finite(inputs, sizeof inputs / sizeof inputs[0]) &&
        forward_may_overflow(shape, params, query, key ? key : query,
                             value ? value : key ? key : query, mask))
        return MHA_ERR_RANGE;
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], &result, 1);
}
/* max over rows of the Euclidean norm of x (rows, cols), in double */
static double largest_row(const float *x, size_t rows, size_t cols)
{
    double largest = 0.0;
    for (size_t r = 0; x != NULL && r < rows; r++) {
        double sum = 0.0;
        for (size_t c = 0; c < cols; c++)
            sum += (double)x[r * cols + c] * x[r * cols + c];
        largest = fmax(largest, sqrt(sum));
    }
    return largest;
}

/* 1 when a bound comes within a factor of 16 of FLT_MAX (or is NaN) */
static int beyond(const double *bounds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(bounds[i] <= FLT_MAX / 16.0))
            return 1;
    return 0;
}

/* The bounds of a forward pass: rows of the inputs (x) and of the projections
   (p), a score, the largest finite mask value, a context row, an output row. */
typedef struct forward_bounds {
    double xq, xk, xv, q, k, v, score, masked, context, out;
} forward_bounds;

static forward_bounds bound_forward(const mha_shape *shape, const mha_params *params,
                                    const float *query, const float *key, const float *value,
                                    const mha_mask *mask)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    const float *W = params->in_proj_weight, *b = params->in_proj_bias;
    forward_bounds f = {0};
    f.xq = largest_row(query, B * L, E);
    f.xk = largest_row(key, B * S, E);
    f.xv = largest_row(value, B * S, E);
    f.q = largest_row(W, 1, E * E) * f.xq + largest_row(b, 1, E);
    f.k = largest_row(W + E * E, 1, E * E) * f.xk + largest_row(b ? b + E : NULL, 1, E);
    f.v = largest_row(W + 2 * E * E, 1, E * E) * f.xv +
          largest_row(b ? b + 2 * E : NULL, 1, E);
    f.score = f.q * f.k / sqrt((double)(E / H));
    for (size_t i = 0; mask && mask->attn_mask_float && i < L * S; i++)
        if (isfinite(mask->attn_mask_float[i]))
            f.masked = fmax(f.masked, fabs((double)mask->attn_mask_float[i]));
    f.context = sqrt((double)H) * f.v;
    f.out = largest_row(params->out_proj_weight, 1, E * E) * f.context +
            largest_row(params->out_proj_bias, 1, E);
    return f;
}

static int forward_may_overflow(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask)
{
    const forward_bounds f = bound_forward(shape, params, query, key, value, mask);
    const double bounds[] = {f.q, f.k, f.v, f.score, f.context, f.out};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]) ||
           !(f.score + f.masked <= FLT_MAX * (1.0 - 1e-6));
}
mha_status mha_backward_range(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim;
    const mha_span inputs[] = {
        {query, B * L * E, 0}, {key, B * S * E, 0}, {value, B * S * E, 0},
        {params->in_proj_weight, 3 * E * E, 0}, {params->in_proj_bias, 3 * E, 0},
        {params->out_proj_weight, E * E, 0}, {params->out_proj_bias, E, 0},
        {mask ? mask->attn_mask_float : NULL, L * S, 1}, {grad_out, B * L * E, 0},
    };
    const mha_span results[] = {
        {grads->grad_query, B * L * E, 0},
        {key ? grads->grad_key : NULL, B * S * E, 0},
        {value ? grads->grad_value : NULL, B * S * E, 0},
        {grads->grad_in_proj_weight, 3 * E * E, 0}, {grads->grad_in_proj_bias, 3 * E, 0},
        {grads->grad_out_proj_weight, E * E, 0}, {grads->grad_out_proj_bias, E, 0},
    };
    if (all_finite(inputs, sizeof inputs / sizeof inputs[0]) &&
        backward_may_overflow(shape, params, query, key ? key : query,
                              value ? value : key ? key : query, mask, grad_out))
        return MHA_ERR_RANGE;
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], results,
                           sizeof results / sizeof results[0]);
}
static int backward_may_overflow(const mha_shape *shape, const mha_params *params,
                                 const float *query, const float *key, const float *value,
                                 const mha_mask *mask, const float *grad_out)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    if (forward_may_overflow(shape, params, query, key, value, mask))
        return 1;
    const forward_bounds f = bound_forward(shape, params, query, key, value, mask);
    const float *W = params->in_proj_weight;
    const double N = (double)(B * L), M = (double)(B * S), heads = sqrt((double)H);
    const double g = largest_row(grad_out, B * L, E);
    const double dc = largest_row(params->out_proj_weight, 1, E * E) * g;
    const double dp = dc * f.v;                         /* a weight's gradient, delta */
    const double dq = heads * 2.0 * dp * f.k / sqrt((double)(E / H));
    const double dk = (double)L * heads * 2.0 * dp * f.q / sqrt((double)(E / H));
    const double dv = (double)L * dc;
    const double dx = largest_row(W, 1, E * E) * dq + largest_row(W + E * E, 1, E * E) * dk +
                      largest_row(W + 2 * E * E, 1, E * E) * dv;
    const double bounds[] = {g, dc, dp, 2.0 * dp, dq, dk, dv, dx, N * g, N * g * f.context,
                             N * dq, M * dk, M * dv, N * dq * f.xq, M * dk * f.xk,
                             M * dv * f.xv};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]);
}
mha_status mha_decode_range(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out)
{
    const size_t B = cache->batch, E = dec->embed_dim, D = cache->head_dim,
                 F = E + 2 * dec->kv_heads * D;
    const mha_span inputs[] = {
        {x, B * n * E, 0},
        {dec->params.in_proj_weight, F * E, 0}, {dec->params.in_proj_bias, F, 0},
        {dec->params.out_proj_weight, E * E, 0}, {dec->params.out_proj_bias, E, 0},
    };
    const mha_span result = {out, B * n * E, 0};
    const int finite = all_finite(inputs, sizeof inputs / sizeof inputs[0]) &&
                       held_finite(cache, n);
    if (finite && decode_may_overflow(dec, cache, n, x))
        return MHA_ERR_RANGE;
    if (!finite || all_finite(&result, 1))
        return MHA_OK;
    return MHA_ERR_RANGE;
}
static int held_finite(const mha_kv_cache *cache, size_t n)
{
    const size_t D = cache->head_dim;
    for (size_t b = 0; b < cache->batch; b++)
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t at = (b * cache->kv_heads + g) * cache->capacity * D;
            const size_t held = (cache->length[b] - n) * D;
            if (mha_first_nonfinite(cache->keys + at, held, 0) != held ||
                mha_first_nonfinite(cache->values + at, held, 0) != held)
                return 0;
        }
    return 1;
}

/* the largest row of D among the held keys (values: 1) */
static double largest_held(const mha_kv_cache *cache, size_t n, int values)
{
    const size_t D = cache->head_dim;
    double largest = 0.0;
    for (size_t b = 0; b < cache->batch; b++)
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t at = (b * cache->kv_heads + g) * cache->capacity * D;
            largest = fmax(largest, largest_row((values ? cache->values : cache->keys) + at,
                                                cache->length[b] - n, D));
        }
    return largest;
}
static int decode_may_overflow(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                               const float *x)
{
    const size_t B = cache->batch, E = dec->embed_dim, D = cache->head_dim,
                 KV = dec->kv_heads * D;
    const float *W = dec->params.in_proj_weight, *b = dec->params.in_proj_bias;
    const double xr = largest_row(x, B * n, E);
    const double q = largest_row(W, 1, E * E) * xr + largest_row(b, 1, E);
    const double k = fmax(largest_row(W + E * E, 1, KV * E) * xr +
                          largest_row(b ? b + E : NULL, 1, KV), largest_held(cache, n, 0));
    const double v = fmax(largest_row(W + E * E + KV * E, 1, KV * E) * xr +
                          largest_row(b ? b + E + KV : NULL, 1, KV), largest_held(cache, n, 1));
    const double score = q * k / sqrt((double)D);
    const double context = sqrt((double)dec->heads) * v;
    const double out = largest_row(dec->params.out_proj_weight, 1, E * E) * context +
                       largest_row(dec->params.out_proj_bias, 1, E);
    const double bounds[] = {xr, q, k, v, score, context, out};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]);
}
