/* generated from chapters/09-transformer-block.nw, chapters/39-tests-transformer-block.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "block.h"
#include "check.h"
#include "npy.h"
#include "run.h"

typedef struct block_case {
    mha_block_shape shape;
    float *x;                             /* (B, L, E) */
    float *t[MHA_BLOCK_TENSORS];          /* the state dictionary */
    mha_block_params params;
} block_case;

static size_t tensor_count(const mha_block_shape *s, size_t i)
{
    size_t dims[2];
    return mha_block_tensor_shape(s, i, dims) == 2 ? dims[0] * dims[1] : dims[0];
}

static block_case block_case_random(mha_block_shape s, uint64_t seed)
{
    block_case c = {.shape = s};
    rng r = rng_seeded(seed);
    c.x = random_floats(&r, s.batch * s.length * s.embed_dim, -1, 1);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        size_t dims[2];
        const size_t rank = mha_block_tensor_shape(&s, i, dims);
        const float a = rank == 2 ? 1.0f / sqrtf((float)dims[1]) : 0.5f;
        c.t[i] = i >= 8 && i % 2 == 0 ? random_floats(&r, dims[0], 0.5f, 1.5f)  /* norm weights */
                                      : random_floats(&r, tensor_count(&s, i), -a, a);
    }
    c.params = mha_block_params_from((const float *const *)c.t);
    return c;
}

static void block_case_free(block_case *c)
{
    free(c->x);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(c->t[i]);
}
/* y (n, N) = x (n, K) W (N, K)^T + bias */
static void linear64(size_t n, size_t N, size_t K, const double *x, const float *W,
                     const float *bias, double *y)
{
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < N; o++) {
            double s = bias ? bias[o] : 0.0;
            for (size_t e = 0; e < K; e++)
                s += x[i * K + e] * W[o * K + e];
            y[i * N + o] = s;
        }
}

static void layer_norm64(size_t n, size_t E, const double *x, const float *w, const float *b,
                         double *y)
{
    for (size_t i = 0; i < n; i++) {
        double mu = 0.0, var = 0.0;
        for (size_t j = 0; j < E; j++)
            mu += x[i * E + j] / (double)E;
        for (size_t j = 0; j < E; j++)
            var += (x[i * E + j] - mu) * (x[i * E + j] - mu) / (double)E;
        for (size_t j = 0; j < E; j++)
            y[i * E + j] = (x[i * E + j] - mu) / sqrt(var + 1e-5) * w[j] + b[j];
    }
}

static double gelu64(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}
/* out (L, E) = SA(u (L, E)) of sequence b */
static void attention64(const block_case *c, const mha_mask *mask, size_t b, const double *u,
                        double *out)
{
    const size_t L = c->shape.length, E = c->shape.embed_dim, H = c->shape.heads, D = E / H;
    const mha_shape shape = {c->shape.batch, L, L, E, H};
    double *qkv = malloc(L * 3 * E * sizeof *qkv), *ctx = malloc(L * E * sizeof *ctx);
    double *z = malloc(L * sizeof *z);
    float *bias = malloc(L * L * sizeof *bias);
    const int masked = mha_mask_bias(mask, &shape, b, bias);
    linear64(L, 3 * E, E, u, c->params.attn.in_proj_weight, c->params.attn.in_proj_bias, qkv);
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < L; i++) {
            double top = -INFINITY, sum = 0.0;
            int nan = 0;
            for (size_t j = 0; j < L; j++) {
                double s = 0.0;
                for (size_t d = 0; d < D; d++)
                    s += qkv[i * 3 * E + h * D + d] * qkv[j * 3 * E + E + h * D + d];
                z[j] = s / sqrt((double)D) + (masked == 1 ? bias[i * L + j] : 0.0);
                nan |= isnan(z[j]);
                top = z[j] > top ? z[j] : top;
            }
            for (size_t j = 0; j < L; j++)
                sum += z[j] = top == -INFINITY ? 0.0 : exp(z[j] - top);
            for (size_t d = 0; d < D; d++) {
                double s = 0.0;
                for (size_t j = 0; j < L; j++)
                    s += z[j] == 0.0 ? 0.0 : z[j] / sum * qkv[j * 3 * E + 2 * E + h * D + d];
                ctx[i * E + h * D + d] = nan ? NAN : s;
            }
        }
    linear64(L, E, E, ctx, c->params.attn.out_proj_weight, c->params.attn.out_proj_bias, out);
    free(qkv); free(ctx); free(z); free(bias);
}
static void block64(const block_case *c, const mha_mask *mask, double *y)
{
    const size_t B = c->shape.batch, L = c->shape.length, E = c->shape.embed_dim,
                 F = c->shape.hidden;
    const mha_block_params *p = &c->params;
    double *x = malloc(L * E * sizeof *x), *u = malloc(L * E * sizeof *u);
    double *a = malloc(L * E * sizeof *a), *hidden = malloc(L * F * sizeof *hidden);
    for (size_t b = 0; b < B; b++) {
        double *yb = y + b * L * E;
        for (size_t i = 0; i < L * E; i++)
            x[i] = c->x[b * L * E + i];
        layer_norm64(L, E, x, p->norm1_weight, p->norm1_bias, u);
        attention64(c, mask, b, u, a);
        for (size_t i = 0; i < L * E; i++)
            x[i] += a[i];                                     /* h */
        layer_norm64(L, E, x, p->norm2_weight, p->norm2_bias, u);
        linear64(L, F, E, u, p->linear1_weight, p->linear1_bias, hidden);
        for (size_t i = 0; i < L * F; i++)
            hidden[i] = gelu64(hidden[i]);
        linear64(L, E, F, hidden, p->linear2_weight, p->linear2_bias, yb);
        for (size_t i = 0; i < L * E; i++)
            yb[i] += x[i];
    }
    free(x); free(u); free(a); free(hidden);
}
static double block_loss(const block_case *c, const mha_mask *mask, const float *gy)
{
    const size_t n = c->shape.batch * c->shape.length * c->shape.embed_dim;
    double *y = malloc(n * sizeof *y), sum = 0.0;
    block64(c, mask, y);
    for (size_t i = 0; i < n; i++)
        sum += y[i] * gy[i];
    free(y);
    return sum;
}

static void check_one_gradient(const char *what, block_case *c, const mha_mask *mask,
                               const float *gy, float *x, const float *g, size_t n)
{
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < n; i++) {
        const float keep = x[i];
        x[i] = keep + 0x1p-9f;
        const double up = block_loss(c, mask, gy), step_up = (double)x[i] - keep;
        x[i] = keep - 0x1p-9f;
        const double down = block_loss(c, mask, gy), step_down = keep - (double)x[i];
        x[i] = keep;
        const double fd = (up - down) / (step_up + step_down);
        scale = fmax(scale, fabs(fd));
        const double e = fabs(fd - g[i]);
        worst = (e > worst || isnan(e)) ? e : worst;
    }
    cr_expect(worst <= 2e-4 * scale, "%s: worst difference %.3g from central differences",
              what, worst);
}
static void check_block_gradients(block_case *c, const mha_mask *mask, uint64_t seed)
{
    const mha_block_shape *s = &c->shape;
    const size_t n = s->batch * s->length * s->embed_dim;
    rng r = rng_seeded(seed);
    float *gy = random_floats(&r, n, -1, 1), *gx = malloc(n * sizeof *gx);
    float *g[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        g[i] = malloc(tensor_count(s, i) * sizeof *g[i]);
    const mha_block_grads grads = mha_block_grads_from(g);
    mha_block_saved saved;
    cr_assert_eq(mha_block_saved_init(&saved, s), MHA_OK);
    float *y = malloc(n * sizeof *y);
    cr_assert_eq(mha_block_forward(s, &c->params, c->x, mask, y, &saved), MHA_OK);
    cr_assert_eq(mha_block_backward(s, &c->params, c->x, mask, &saved, gy, gx, &grads), MHA_OK);
    check_one_gradient("x", c, mask, gy, c->x, gx, n);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        check_one_gradient(mha_block_tensor_names[i], c, mask, gy, c->t[i], g[i],
                           tensor_count(s, i));
    mha_block_saved_free(&saved);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(g[i]);
    free(gy); free(gx); free(y);
}
Test(block, gradients_match_central_differences) {
    const mha_mask causal = {.causal = 1};
    block_case c = block_case_random((mha_block_shape){2, 5, 8, 2, 12}, 2600);
    check_block_gradients(&c, &causal, 2601);
    block_case_free(&c);
}
