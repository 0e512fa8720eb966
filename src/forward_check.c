/* generated from chapters/03-naive.nw; edit the book, not this file */
#include "mha_internal.h"

/* <<[[forward_check.c]] the checks every version shares>> */
mha_status mha_forward_check(const mha_shape *shape, const mha_params *params,
                             const float *query, const float **key,
                             const float **value, const float *out)
{
    mha_status status = mha_shape_check(shape);
    if (status != MHA_OK)
        return status;
    if (params == NULL || params->in_proj_weight == NULL ||
        params->out_proj_weight == NULL || query == NULL || out == NULL)
        return MHA_ERR_NULL;
    if (*key == NULL) {
        if (shape->key_len != shape->query_len)
            return MHA_ERR_SHAPE;       /* self-attention needs S = L */
        *key = query;
    }
    if (*value == NULL)
        *value = *key;
    return MHA_OK;
}
