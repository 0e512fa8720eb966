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

static int forward_may_overflow(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    const float *W = params->in_proj_weight, *b = params->in_proj_bias;
    const double q = largest_row(W, 1, E * E) * largest_row(query, B * L, E) +
                     largest_row(b, 1, E);
    const double k = largest_row(W + E * E, 1, E * E) * largest_row(key, B * S, E) +
                     largest_row(b ? b + E : NULL, 1, E);
    const double v = largest_row(W + 2 * E * E, 1, E * E) * largest_row(value, B * S, E) +
                     largest_row(b ? b + 2 * E : NULL, 1, E);
    const double score = q * k / sqrt((double)(E / H));
    double masked = 0.0;
    for (size_t i = 0; mask && mask->attn_mask_float && i < L * S; i++)
        if (isfinite(mask->attn_mask_float[i]))
            masked = fmax(masked, fabs((double)mask->attn_mask_float[i]));
    const double context = sqrt((double)H) * v;
    const double out = largest_row(params->out_proj_weight, 1, E * E) * context +
                       largest_row(params->out_proj_bias, 1, E);
    const double limit = FLT_MAX / 16.0;
    return !(q <= limit && k <= limit && v <= limit && score <= limit && context <= limit &&
             out <= limit && score + masked <= FLT_MAX * (1.0 - 1e-6));
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
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], results,
                           sizeof results / sizeof results[0]);
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
    if (mha_range_check(inputs, sizeof inputs / sizeof inputs[0], &result, 1) == MHA_OK)
        return MHA_OK;
    for (size_t b = 0; b < B; b++)          /* the positions held before the step */
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const size_t at = (b * cache->kv_heads + g) * cache->capacity * D;
            const size_t held = (cache->length[b] - n) * D;
            if (mha_first_nonfinite(cache->keys + at, held, 0) != held ||
                mha_first_nonfinite(cache->values + at, held, 0) != held)
                return MHA_OK;
        }
    return MHA_ERR_RANGE;
}
