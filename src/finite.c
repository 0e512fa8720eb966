/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <math.h>
#include "mha.h"

/* The index of the first element of x (n) that is NaN or infinite, or n when
   there is none; -inf is accepted when allow_minus_infinity is non-zero. */
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
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], &result, 1);
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
