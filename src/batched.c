/* generated from chapters/04-batched.nw; edit the book, not this file */
#include <stdlib.h>
#include "mha_internal.h"

/* <<[[batched.c]] the batched forward pass>> */
mha_status mha_forward_batched(const mha_shape *shape, const mha_params *params,
                               const float *query, const float *key,
                               const float *value, const mha_mask *mask,
                               float *out, float *weights)
{
    mha_status status = mha_forward_check(shape, params, query, &key, &value, out);
    if (status != MHA_OK)
        return status;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    /* <<allocate the batched version's buffers>> */
    const size_t rows = (L > S ? L : S);
    float *Wt = malloc(3 * E * E * sizeof *Wt), *Wot = malloc(E * E * sizeof *Wot);
    float *proj = malloc(B * rows * 3 * E * sizeof *proj);
    float *concat = malloc(B * L * E * sizeof *concat);
    float *bias = malloc(L * S * sizeof *bias), *scratch = malloc(L * S * sizeof *scratch);
    if (!Wt || !Wot || !proj || !concat || !bias || !scratch) {
        free(Wt); free(Wot); free(proj); free(concat); free(bias); free(scratch);
        return MHA_ERR_NOMEM;
    }
    /* <<transpose [[in_proj_weight]] and [[out_proj_weight]] into [[Wt]] and [[Wot]]>> */
    mha_transpose(3 * E, E, params->in_proj_weight, E, Wt, 3 * E);      /* (E, 3E) */
    mha_transpose(E, E, params->out_proj_weight, E, Wot, E);            /* (E, E) */
    /* <<project the inputs: views [[q]], [[k]], [[v]] with row strides [[ldq]], [[ldk]], [[ldv]]>> */
    const float *in_b = params->in_proj_bias;
    const float *q, *k, *v;
    size_t ldq, ldk, ldv;
    if (key == query && value == key) {                       /* self-attention */
        mha_product_nn_plain(B * L, 3 * E, E, query, E, Wt, 3 * E, in_b, proj, 3 * E);
        q = proj; k = proj + E; v = proj + 2 * E;             /* (B, L, 3E) */
        ldq = ldk = ldv = 3 * E;
    } else {
        /* <<project cross-attention inputs into [[proj]]>> */
        float *qp = proj, *kvp = proj + B * L * E;                /* (B, L, E), (B, S, 2E) */
        mha_product_nn_plain(B * L, E, E, query, E, Wt, 3 * E, in_b, qp, E);
        if (value == key) {                                       /* shared keys and values */
            mha_product_nn_plain(B * S, 2 * E, E, key, E, Wt + E, 3 * E, in_b ? in_b + E : NULL,
                                 kvp, 2 * E);
        } else {
            mha_product_nn_plain(B * S, E, E, key, E, Wt + E, 3 * E, in_b ? in_b + E : NULL, kvp,
                                 2 * E);
            mha_product_nn_plain(B * S, E, E, value, E, Wt + 2 * E, 3 * E, in_b ? in_b + 2 * E : NULL,
                                 kvp + E, 2 * E);
        }
        q = qp; k = kvp; v = kvp + E;
        ldq = E; ldk = ldv = 2 * E;
    }
    for (size_t b = 0; b < B; b++) {
        const int masked = mha_mask_bias(mask, shape, b, bias);          /* (L, S) */
        for (size_t h = 0; h < H; h++) {
            float *w = weights ? weights + ((b * H + h) * L) * S : scratch;  /* (L, S) */
            /* <<attend with head [[h]] of sequence [[b]] through strided views>> */
            mha_attend(L, S, D, q + b * L * ldq + h * D, ldq,
                       k + b * S * ldk + h * D, ldk, v + b * S * ldv + h * D, ldv,
                       masked ? bias : NULL, w, concat + b * L * E + h * D, E);
        }
    }
    mha_product_nn_plain(B * L, E, E, concat, E, Wot, E, params->out_proj_bias, out, E);
    /* <<free the batched version's buffers>> */
    free(Wt); free(Wot); free(proj); free(concat); free(bias); free(scratch);
    return mha_forward_range(shape, params, query, key, value, mask, out);
}
