/* generated from chapters/09-backward.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mha_internal.h"

/* <<[[backward.c]] functions>> */
/* C (M, N) += A (K, M) transposed times B (K, N). */
static void product_tn_add(size_t M, size_t N, size_t K, const float *A, size_t lda,
                           const float *B, size_t ldb, float *C, size_t ldc)
{
    for (size_t k = 0; k < K; k++)
        for (size_t m = 0; m < M; m++) {
            const float a = A[k * lda + m];
            for (size_t n = 0; n < N; n++)
                C[m * ldc + n] += a * B[k * ldb + n];
        }
}
/* <<[[backward.c]] functions>> */
/* X (N, E_in), W (E_out, E_in), grad_y (N, E_out) with row stride ldy. */
static void linear_backward(size_t N, size_t E_in, size_t E_out, const float *X,
                            const float *W, const float *grad_y, size_t ldy,
                            float *grad_W, float *grad_b, float *grad_x, float *scratch)
{
    product_tn_add(E_out, E_in, N, grad_y, ldy, X, E_in, grad_W, E_in);
    for (size_t i = 0; grad_b && i < N; i++)
        for (size_t o = 0; o < E_out; o++)
            grad_b[o] += grad_y[i * ldy + o];
    if (grad_x) {
        mha_product_nn_plain(N, E_in, E_out, grad_y, ldy, W, E_in, NULL, scratch, E_in);
        for (size_t n = 0; n < N * E_in; n++)
            grad_x[n] += scratch[n];
    }
}
/* <<[[backward.c]] functions>> */
mha_status mha_backward_naive(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads)
{
    const float *key_in = key, *value_in = value;
    mha_status status = mha_forward_check(shape, params, query, &key, &value, grad_out);
    if (status != MHA_OK)
        return status;
    if (grads == NULL || grads->grad_in_proj_weight == NULL ||
        grads->grad_out_proj_weight == NULL)
        return MHA_ERR_NULL;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    /* <<allocate the backward pass's buffers>> */
    const size_t rows = L > S ? L : S;
    float *q = malloc(L * E * sizeof *q), *k = malloc(S * E * sizeof *k),
          *v = malloc(S * E * sizeof *v), *c = malloc(L * E * sizeof *c),
          *p = malloc(H * L * S * sizeof *p), *bias = malloc(L * S * sizeof *bias),
          *dc = malloc(L * E * sizeof *dc), *dq = malloc(L * E * sizeof *dq),
          *dk = malloc(S * E * sizeof *dk), *dv = malloc(S * E * sizeof *dv),
          *dz = malloc(L * S * sizeof *dz), *scratch = malloc(rows * E * sizeof *scratch);
    if (!q || !k || !v || !c || !p || !bias || !dc || !dq || !dk || !dv || !dz || !scratch) {
        /* <<free the backward pass's buffers>> */
        free(q); free(k); free(v); free(c); free(p); free(bias);
        free(dc); free(dq); free(dk); free(dv); free(dz); free(scratch);
        return MHA_ERR_NOMEM;
    }
    /* <<zero the parameter gradients and decide where the input gradients go>> */
    float *gx_q = grads->grad_query;
    float *gx_k = key_in == NULL ? grads->grad_query : grads->grad_key;
    float *gx_v = value_in == NULL ? gx_k : grads->grad_value;
    memset(grads->grad_in_proj_weight, 0, 3 * E * E * sizeof(float));
    memset(grads->grad_out_proj_weight, 0, E * E * sizeof(float));
    if (grads->grad_in_proj_bias)
        memset(grads->grad_in_proj_bias, 0, 3 * E * sizeof(float));
    if (grads->grad_out_proj_bias)
        memset(grads->grad_out_proj_bias, 0, E * sizeof(float));
    if (gx_q) memset(gx_q, 0, B * L * E * sizeof(float));
    if (gx_k && gx_k != gx_q) memset(gx_k, 0, B * S * E * sizeof(float));
    if (gx_v && gx_v != gx_k && gx_v != gx_q) memset(gx_v, 0, B * S * E * sizeof(float));
    for (size_t b = 0; b < B; b++) {
        const float *xq = query + b * L * E, *xk = key + b * S * E, *xv = value + b * S * E;
        const float *dy = grad_out + b * L * E;                       /* (L, E) */
        /* <<recompute sequence [[b]]'s projections, weights and context>> */
        const float *W = params->in_proj_weight, *bin = params->in_proj_bias;
        mha_product_nt_plain(L, E, E, xq, E, W, E, bin, q, E);                         /* (L, E) */
        mha_product_nt_plain(S, E, E, xk, E, W + E * E, E, bin ? bin + E : NULL, k, E);   /* (S, E) */
        mha_product_nt_plain(S, E, E, xv, E, W + 2 * E * E, E, bin ? bin + 2 * E : NULL, v, E);
        const int masked = mha_mask_bias(mask, shape, b, bias);
        for (size_t h = 0; h < H; h++)
            mha_attend(L, S, D, q + h * D, E, k + h * D, E, v + h * D, E, masked ? bias : NULL,
                       p + h * L * S, c + h * D, E);
        /* <<back through the output projection: [[dc]] from [[dy]]>> */
        memset(dc, 0, L * E * sizeof *dc);
        linear_backward(L, E, E, c, params->out_proj_weight, dy, E, grads->grad_out_proj_weight,
                        grads->grad_out_proj_bias, dc, scratch);
        for (size_t h = 0; h < H; h++) {
            /* <<back through head [[h]]: [[dq]], [[dk]], [[dv]] from [[dc]]>> */
            const float *ph = p + h * L * S;                                       /* (L, S) */
            const float scale = 1.0f / sqrtf((float)D);
            mha_product_nt_plain(L, S, D, dc + h * D, E, v + h * D, E, NULL, dz, S);       /* dP = dC V^T */
            for (size_t j = 0; j < S; j++)                                          /* dV = P^T dC */
                memset(dv + j * E + h * D, 0, D * sizeof *dv);
            product_tn_add(S, D, L, ph, S, dc + h * D, E, dv + h * D, E);
            /* <<turn [[dz]] from $\bar P$ into $s\bar Z$, row by row>> */
            for (size_t i = 0; i < L; i++) {
                const float *pr = ph + i * S;
                float *zr = dz + i * S;
                double average = 0.0;
                for (size_t j = 0; j < S; j++)
                    average += (double)zr[j] * pr[j];
                for (size_t j = 0; j < S; j++)
                    zr[j] = scale * pr[j] * (zr[j] - (float)average);
            }
            mha_product_nn_plain(L, D, S, dz, S, k + h * D, E, NULL, dq + h * D, E);      /* dQ = s dZ K */
            for (size_t j = 0; j < S; j++)
                memset(dk + j * E + h * D, 0, D * sizeof *dk);
            product_tn_add(S, D, L, dz, S, q + h * D, E, dk + h * D, E);             /* dK = s dZ^T Q */
        }
        /* <<back through the three input projections>> */
        float *gW = grads->grad_in_proj_weight, *gb = grads->grad_in_proj_bias;
        linear_backward(L, E, E, xq, W, dq, E, gW, gb, gx_q ? gx_q + b * L * E : NULL, scratch);
        linear_backward(S, E, E, xk, W + E * E, dk, E, gW + E * E, gb ? gb + E : NULL,
                        gx_k ? gx_k + b * S * E : NULL, scratch);
        linear_backward(S, E, E, xv, W + 2 * E * E, dv, E, gW + 2 * E * E, gb ? gb + 2 * E : NULL,
                        gx_v ? gx_v + b * S * E : NULL, scratch);
    }
    /* <<free the backward pass's buffers>> */
    free(q); free(k); free(v); free(c); free(p); free(bias);
    free(dc); free(dq); free(dk); free(dv); free(dz); free(scratch);
    return mha_backward_range(shape, params, query, key_in, value_in, mask, grad_out, grads);
}
