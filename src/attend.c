/* generated from chapters/02-sdpa.nw; edit the book, not this file */
#include <math.h>
#include <stddef.h>
#include "mha_internal.h"

/* <<[[attend.c]] functions>> */
void mha_softmax_row(float *x, size_t n)
{
    /* <<replace [[x]] by its softmax, computed stably>> */
    float max = -INFINITY;
    for (size_t j = 0; j < n; j++)
        if (x[j] > max)
            max = x[j];
    if (max == -INFINITY) {
        /* <<every entry of [[x]] is $-\infty$ or NaN: make the row zeros, or NaN>> */
        int any_nan = 0;
        for (size_t j = 0; j < n; j++)
            any_nan |= isnan(x[j]);
        for (size_t j = 0; j < n; j++)
            x[j] = any_nan ? NAN : 0.0f;
    } else {
        float sum = 0.0f;
        for (size_t j = 0; j < n; j++) {
            x[j] = expf(x[j] - max);
            sum += x[j];
        }
        for (size_t j = 0; j < n; j++)
            x[j] /= sum;
    }
}
/* <<[[attend.c]] functions>> */
void mha_attend(size_t L, size_t S, size_t D,
                const float *q, size_t ldq,
                const float *k, size_t ldk,
                const float *v, size_t ldv,
                const float *bias,
                float *weights,
                float *context, size_t ldc)
{
    MHA_REQUIRE(L <= 1 || (ldq >= D && ldc >= D));
    MHA_REQUIRE(S <= 1 || (ldk >= D && ldv >= D));
    const float scale = 1.0f / sqrtf((float)D);
    for (size_t i = 0; i < L; i++) {
        float *w = weights + i * S;                     /* row i: (S) */
        /* <<[[w[j]]] gets the score of query [[i]] against key [[j]], plus [[bias]]>> */
        for (size_t j = 0; j < S; j++) {
            float dot = 0.0f;
            for (size_t d = 0; d < D; d++)
                dot += q[i * ldq + d] * k[j * ldk + d];
            w[j] = dot * scale + (bias ? bias[i * S + j] : 0.0f);
        }
        mha_softmax_row(w, S);
        /* <<[[context[i, :]]] gets the weighted sum of the values>> */
        float *c = context + i * ldc;
        for (size_t d = 0; d < D; d++)
            c[d] = 0.0f;
        for (size_t j = 0; j < S; j++) {
            if (w[j] == 0.0f)
                continue;
            for (size_t d = 0; d < D; d++)
                c[d] += w[j] * v[j * ldv + d];
        }
    }
}
