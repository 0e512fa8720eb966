/* generated from chapters/03-naive.nw; edit the book, not this file */
#include <stdlib.h>
#include "mha_internal.h"

/* <<[[naive.c]] the naive forward pass>> */
mha_status mha_forward_naive(const mha_shape *shape, const mha_params *params,
                             const float *query, const float *key,
                             const float *value, const mha_mask *mask,
                             float *out, float *weights)
{
    mha_status status = mha_forward_check(shape, params, query, &key, &value, out);
    if (status != MHA_OK)
        return status;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    /* <<allocate the naive version's buffers>> */
    float *q = calloc(L * D, sizeof *q), *k = calloc(S * D, sizeof *k),
          *v = calloc(S * D, sizeof *v), *concat = calloc(L * E, sizeof *concat),
          *bias = calloc(L * S, sizeof *bias), *scratch = calloc(L * S, sizeof *scratch);
    if (!q || !k || !v || !concat || !bias || !scratch) {
        free(q); free(k); free(v); free(concat); free(bias); free(scratch);
        return MHA_ERR_NOMEM;
    }
    for (size_t b = 0; b < B; b++) {
        const int masked = mha_mask_bias(mask, shape, b, bias);   /* (L, S) */
        for (size_t h = 0; h < H; h++) {
            /* <<project sequence [[b]] onto head [[h]]: [[q]], [[k]], [[v]]>> */
            const float *Wq = params->in_proj_weight + (0 * E + h * D) * E;     /* (D, E) */
            const float *Wk = params->in_proj_weight + (1 * E + h * D) * E;
            const float *Wv = params->in_proj_weight + (2 * E + h * D) * E;
            const float *bq = params->in_proj_bias ? params->in_proj_bias + 0 * E + h * D : NULL;
            const float *bk = params->in_proj_bias ? params->in_proj_bias + 1 * E + h * D : NULL;
            const float *bv = params->in_proj_bias ? params->in_proj_bias + 2 * E + h * D : NULL;
            mha_product_nt_plain(L, D, E, query + b * L * E, E, Wq, E, bq, q, D);     /* (L, D) */
            mha_product_nt_plain(S, D, E, key + b * S * E, E, Wk, E, bk, k, D);       /* (S, D) */
            mha_product_nt_plain(S, D, E, value + b * S * E, E, Wv, E, bv, v, D);     /* (S, D) */
            float *w = weights ? weights + ((b * H + h) * L) * S : scratch;  /* (L, S) */
            mha_attend(L, S, D, q, D, k, D, v, D, masked ? bias : NULL,
                       w, concat + h * D, E);
        }
        /* <<[[out[b]]] gets [[concat]] times $W^O$ plus $b^O$>> */
        mha_product_nt_plain(L, E, E, concat, E, params->out_proj_weight, E, params->out_proj_bias,
                             out + b * L * E, E);                               /* (L, E) */
    }
    /* <<free the naive version's buffers>> */
    free(q); free(k); free(v); free(concat); free(bias); free(scratch);
    return mha_forward_range(shape, params, query, key, value, mask, out);
}
