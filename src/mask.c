/* generated from chapters/05-masking.nw; edit the book, not this file */
#include <math.h>
#include <string.h>
#include "mha_internal.h"

/* <<[[mask.c]] functions>> */
/* bias (L, S) gets the additive mask of sequence b: the float mask where
   given, -inf where a key is masked.  Returns 0, leaving bias untouched, when
   there is no mask at all. */
int mha_mask_bias(const mha_mask *mask, const mha_shape *shape, size_t b, float *bias)
{
    if (mask == NULL || (!mask->causal && !mask->attn_mask_bool &&
                         !mask->attn_mask_float && !mask->key_padding_mask))
        return 0;
    if (shape == NULL || bias == NULL || b >= shape->batch)
        return -1;
    const size_t L = shape->query_len, S = shape->key_len;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < S; j++) {
            const float x = mask->attn_mask_float ? mask->attn_mask_float[i * S + j] : 0.0f;
            bias[i * S + j] = mha_key_masked(mask, S, b, i, j) ? -INFINITY : x;
        }
    return 1;
}
/* <<[[mask.c]] functions>> */
int mha_key_masked(const mha_mask *mask, size_t S, size_t b, size_t i, size_t j)
{
    MHA_REQUIRE(j < S);
    if (mask == NULL)
        return 0;
    int masked = mask->attn_mask_bool && mask->attn_mask_bool[i * S + j];
    /* <<mask key [[j]] if it comes after query [[i]] and the mask is causal>> */
    if (mask->causal && j > i)
        masked = 1;
    /* <<mask key [[j]] if it is padding in sequence [[b]]>> */
    if (mask->key_padding_mask && mask->key_padding_mask[b * S + j])
        masked = 1;
    return masked;
}
