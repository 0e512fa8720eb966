/* generated from chapters/09-transformer-block.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block.h"
#include "fast.h"

/* <<[[block.c]] the column strip>> */
enum { MHA_COLUMN_STRIP = 64 };      /* columns summed together, row after row */
/* <<[[block.c]] helpers>> */
static mha_status block_arguments(const mha_block_shape *shape, const mha_block_params *p,
                                  const float *x, const float *y)
{
    const mha_status status = mha_block_shape_check(shape);
    if (status != MHA_OK)
        return status;
    if (p == NULL || x == NULL || y == NULL || p->norm1_weight == NULL ||
        p->norm1_bias == NULL || p->norm2_weight == NULL || p->norm2_bias == NULL ||
        p->attn.in_proj_weight == NULL || p->attn.out_proj_weight == NULL ||
        p->linear1_weight == NULL || p->linear1_bias == NULL || p->linear2_weight == NULL ||
        p->linear2_bias == NULL)
        return MHA_ERR_NULL;
    return MHA_OK;
}

static int same_shape(const mha_block_shape *a, const mha_block_shape *b)
{
    return a->batch == b->batch && a->length == b->length && a->embed_dim == b->embed_dim &&
           a->heads == b->heads && a->hidden == b->hidden;
}

/* y (n, m) += other (n, m) and bias (m), either NULL for none */
static void add_rows(size_t n, size_t m, float *y, const float *other, const float *bias)
{
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            y[i * m + j] += (other ? other[i * m + j] : 0.0f) + (bias ? bias[j] : 0.0f);
}

/* sums (m) = the column sums of x (n, m), each column in row order, in double;
   the threads share strips of MHA_COLUMN_STRIP columns, read row after row */
static void column_sums(size_t n, size_t m, const float *x, float *sums)
{
    #pragma omp parallel for schedule(static)
    for (size_t j0 = 0; j0 < m; j0 += MHA_COLUMN_STRIP) {
        const size_t w = m - j0 < MHA_COLUMN_STRIP ? m - j0 : MHA_COLUMN_STRIP;
        double s[MHA_COLUMN_STRIP] = {0};
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < w; j++)
                s[j] += x[i * m + j0 + j];
        for (size_t j = 0; j < w; j++)
            sums[j0 + j] = (float)s[j];
    }
}
/* <<[[block.c]] helpers>> */
static mha_status block_forward_range(const mha_block_shape *s, const mha_block_params *p,
                                      const float *x, const mha_mask *mask, const float *y)
{
    const size_t n = s->batch * s->length, E = s->embed_dim, F = s->hidden;
    const mha_span inputs[] = {
        {x, n * E, 0}, {p->norm1_weight, E, 0}, {p->norm1_bias, E, 0},
        {p->attn.in_proj_weight, 3 * E * E, 0}, {p->attn.in_proj_bias, 3 * E, 0},
        {p->attn.out_proj_weight, E * E, 0}, {p->attn.out_proj_bias, E, 0},
        {p->norm2_weight, E, 0}, {p->norm2_bias, E, 0}, {p->linear1_weight, F * E, 0},
        {p->linear1_bias, F, 0}, {p->linear2_weight, E * F, 0}, {p->linear2_bias, E, 0},
        {mask ? mask->attn_mask_float : NULL, s->length * s->length, 1},
    };
    const mha_span result = {y, n * E, 0};
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], &result, 1);
}
/* <<[[block.c]] helpers>> */
static int block_grads_present(const mha_block_grads *g)
{
    return g->norm1_weight && g->norm1_bias && g->in_proj_weight && g->out_proj_weight &&
           g->norm2_weight && g->norm2_bias && g->linear1_weight && g->linear1_bias &&
           g->linear2_weight && g->linear2_bias;
}

static mha_status block_backward_range(const mha_block_shape *s, const mha_block_params *p,
                                       const float *x, const mha_mask *mask,
                                       const float *grad_y, const float *grad_x,
                                       const mha_block_grads *g)
{
    const size_t n = s->batch * s->length, E = s->embed_dim, F = s->hidden;
    const mha_span inputs[] = {
        {x, n * E, 0}, {grad_y, n * E, 0}, {p->norm1_weight, E, 0}, {p->norm1_bias, E, 0},
        {p->attn.in_proj_weight, 3 * E * E, 0}, {p->attn.in_proj_bias, 3 * E, 0},
        {p->attn.out_proj_weight, E * E, 0}, {p->attn.out_proj_bias, E, 0},
        {p->norm2_weight, E, 0}, {p->norm2_bias, E, 0}, {p->linear1_weight, F * E, 0},
        {p->linear1_bias, F, 0}, {p->linear2_weight, E * F, 0}, {p->linear2_bias, E, 0},
        {mask ? mask->attn_mask_float : NULL, s->length * s->length, 1},
    };
    const mha_span results[] = {
        {grad_x, n * E, 0}, {g->norm1_weight, E, 0}, {g->norm1_bias, E, 0},
        {g->in_proj_weight, 3 * E * E, 0}, {p->attn.in_proj_bias ? g->in_proj_bias : NULL, 3 * E, 0},
        {g->out_proj_weight, E * E, 0}, {p->attn.out_proj_bias ? g->out_proj_bias : NULL, E, 0},
        {g->norm2_weight, E, 0}, {g->norm2_bias, E, 0}, {g->linear1_weight, F * E, 0},
        {g->linear1_bias, F, 0}, {g->linear2_weight, E * F, 0}, {g->linear2_bias, E, 0},
    };
    return mha_range_check(inputs, sizeof inputs / sizeof inputs[0], results,
                           sizeof results / sizeof results[0]);
}
/* <<[[block.c]] layer normalisation>> */
mha_status mha_layer_norm(size_t rows, size_t E, const float *x, const float *weight,
                          const float *bias, float *y, float *mean, float *rstd)
{
    if (x == NULL || weight == NULL || bias == NULL || y == NULL)
        return MHA_ERR_NULL;
    if (rows == 0 || E == 0)
        return MHA_ERR_SHAPE;
    #pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * E;
        double sum = 0.0, squares = 0.0;
        for (size_t j = 0; j < E; j++)
            sum += xr[j];
        const double mu = sum / (double)E;
        for (size_t j = 0; j < E; j++)
            squares += (xr[j] - mu) * (xr[j] - mu);
        const double s = 1.0 / sqrt(squares / (double)E + MHA_LAYER_NORM_EPS);
        for (size_t j = 0; j < E; j++)
            y[r * E + j] = (float)((xr[j] - mu) * s * weight[j] + bias[j]);
        if (mean) mean[r] = (float)mu;
        if (rstd) rstd[r] = (float)s;
    }
    return MHA_OK;
}
/* <<[[block.c]] layer normalisation>> */
mha_status mha_layer_norm_backward(size_t rows, size_t E, const float *x, const float *weight,
                                   const float *mean, const float *rstd, const float *grad_y,
                                   float *grad_x, float *grad_weight, float *grad_bias)
{
    if (x == NULL || weight == NULL || mean == NULL || rstd == NULL || grad_y == NULL ||
        grad_x == NULL)
        return MHA_ERR_NULL;
    if (rows == 0 || E == 0)
        return MHA_ERR_SHAPE;
    #pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * E, *gy = grad_y + r * E;
        float *gx = grad_x + r * E;
        const double mu = mean[r], s = rstd[r];
        /* <<write [[gx]], row [[r]] of [[grad_x]], from [[gy]], [[xr]], [[mu]] and [[s]]>> */
        double g_mean = 0.0, gx_mean = 0.0;
        for (size_t j = 0; j < E; j++) {
            const double g = (double)gy[j] * weight[j], xhat = (xr[j] - mu) * s;
            g_mean += g, gx_mean += g * xhat;
        }
        g_mean /= (double)E, gx_mean /= (double)E;
        for (size_t j = 0; j < E; j++) {
            const double g = (double)gy[j] * weight[j], xhat = (xr[j] - mu) * s;
            gx[j] = (float)(s * (g - g_mean - xhat * gx_mean));
        }
    }
    /* <<write [[grad_weight]] and [[grad_bias]], the column sums>> */
    #pragma omp parallel for schedule(static)
    for (size_t j0 = 0; j0 < E; j0 += MHA_COLUMN_STRIP) {
        const size_t w = E - j0 < MHA_COLUMN_STRIP ? E - j0 : MHA_COLUMN_STRIP;
        double gw[MHA_COLUMN_STRIP] = {0}, gb[MHA_COLUMN_STRIP] = {0};
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < w; j++) {
                const size_t at = r * E + j0 + j;
                gw[j] += (double)grad_y[at] * ((x[at] - (double)mean[r]) * rstd[r]);
                gb[j] += grad_y[at];
            }
        for (size_t j = 0; j < w; j++) {
            if (grad_weight) grad_weight[j0 + j] = (float)gw[j];
            if (grad_bias) grad_bias[j0 + j] = (float)gb[j];
        }
    }
    return MHA_OK;
}
/* <<[[block.c]] GELU>> */
enum { GELU_PIECE = 4096 };
void mha_gelu(size_t n, const float *x, float *y)
{
    const fast_kernels *k = fast_kernels_select();
    #pragma omp parallel for schedule(static) if (n > 4 * GELU_PIECE)
    for (size_t i = 0; i < n; i += GELU_PIECE)
        k->gelu(x + i, y + i, n - i < GELU_PIECE ? n - i : GELU_PIECE);
}

void mha_gelu_backward(size_t n, const float *x, const float *grad_y, float *grad_x)
{
    const fast_kernels *k = fast_kernels_select();
    #pragma omp parallel for schedule(static) if (n > 4 * GELU_PIECE)
    for (size_t i = 0; i < n; i += GELU_PIECE)
        k->gelu_backward(x + i, grad_y + i, grad_x + i, n - i < GELU_PIECE ? n - i : GELU_PIECE);
}
/* <<[[block.c]] the tensors by name>> */
const char *const mha_block_tensor_names[MHA_BLOCK_TENSORS] = {
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
    "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
    "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
};

size_t mha_block_tensor_shape(const mha_block_shape *s, size_t i, size_t dims[2])
{
    const size_t E = s->embed_dim, F = s->hidden;
    const size_t rows[MHA_BLOCK_TENSORS] = {3 * E, 3 * E, E, E, F, F, E, E, E, E, E, E};
    const size_t cols[MHA_BLOCK_TENSORS] = {E, 0, E, 0, E, 0, F, 0, 0, 0, 0, 0};
    dims[0] = rows[i], dims[1] = cols[i];
    return cols[i] ? 2 : 1;
}

mha_block_params mha_block_params_from(const float *const t[MHA_BLOCK_TENSORS])
{
    return (mha_block_params){t[8], t[9], {t[0], t[1], t[2], t[3]}, t[10], t[11],
                              t[4], t[5], t[6], t[7]};
}

mha_block_grads mha_block_grads_from(float *const t[MHA_BLOCK_TENSORS])
{
    return (mha_block_grads){t[8], t[9], t[0], t[1], t[2], t[3], t[10], t[11],
                             t[4], t[5], t[6], t[7]};
}
/* <<[[block.c]] the saved state>> */
mha_status mha_block_shape_check(const mha_block_shape *s)
{
    if (s == NULL)
        return MHA_ERR_NULL;
    const mha_shape attention = {s->batch, s->length, s->length, s->embed_dim, s->heads};
    mha_status status = mha_shape_check(&attention);
    if (status != MHA_OK)
        return status;
    if (s->hidden == 0)
        return MHA_ERR_SHAPE;
    const size_t n = s->batch * s->length;       /* bounded by mha_shape_check */
    size_t wide;
    if (mha_mul_overflows(n, s->hidden > 3 * s->embed_dim ? s->hidden : 3 * s->embed_dim, &wide) ||
        mha_mul_overflows(wide, 4 * sizeof(float), &wide) ||
        mha_mul_overflows(s->hidden, s->embed_dim, &wide) ||
        mha_mul_overflows(wide, sizeof(float), &wide))
        return MHA_ERR_OVERFLOW;
    return MHA_OK;
}
/* <<[[block.c]] the saved state>> */
mha_status mha_block_saved_init(mha_block_saved *saved, const mha_block_shape *shape)
{
    if (saved == NULL)
        return MHA_ERR_NULL;
    memset(saved, 0, sizeof *saved);
    const mha_status status = mha_block_shape_check(shape);
    if (status != MHA_OK)
        return status;
    const size_t n = shape->batch * shape->length, E = shape->embed_dim, F = shape->hidden;
    saved->memory = malloc((3 * n * E + 4 * n + 2 * n * F) * sizeof(float));
    if (saved->memory == NULL)
        return MHA_ERR_NOMEM;
    saved->shape = *shape;
    float *m = saved->memory;
    saved->norm1 = m;  m += n * E;   saved->mean1 = m;  m += n;   saved->rstd1 = m;  m += n;
    saved->stream = m; m += n * E;
    saved->norm2 = m;  m += n * E;   saved->mean2 = m;  m += n;   saved->rstd2 = m;  m += n;
    saved->hidden = m; m += n * F;   saved->activated = m;
    return MHA_OK;
}

void mha_block_saved_free(mha_block_saved *saved)
{
    if (saved == NULL)
        return;
    free(saved->memory);
    mha_saved_free(&saved->attn);
    memset(saved, 0, sizeof *saved);
}
/* <<[[block.c]] the forward pass>> */
static mha_status block_forward(const mha_block_shape *shape, const mha_block_params *p,
                                const float *x, const mha_mask *mask, float *y,
                                mha_block_saved *saved, float *weights)
{
    mha_status status = block_arguments(shape, p, x, y);
    if (status != MHA_OK)
        return status;
    mha_block_saved local;
    const int keep = saved != NULL;
    if (!keep && (status = mha_block_saved_init(saved = &local, shape)) != MHA_OK)
        return status;
    if (keep && !same_shape(&saved->shape, shape))
        return MHA_ERR_SHAPE;
    mha_saved_free(&saved->attn);                    /* a previous pass's attention state */
    const size_t B = shape->batch, L = shape->length, E = shape->embed_dim, F = shape->hidden,
                 n = B * L;
    const mha_shape attention = {B, L, L, E, shape->heads};
    /* <<[[z = x + SA(N1(x))]] into [[saved->stream]]>> */
    status = mha_layer_norm(n, E, x, p->norm1_weight, p->norm1_bias, saved->norm1, saved->mean1,
                            saved->rstd1);
    if (status == MHA_OK)
        status = keep ? mha_forward_saving(&attention, &p->attn, saved->norm1, NULL, NULL, mask,
                                           saved->stream, &saved->attn)
                      : mha_forward_blocked(&attention, &p->attn, saved->norm1, NULL, NULL, mask,
                                            saved->stream, weights);
    if (status == MHA_OK)
        add_rows(n, E, saved->stream, x, NULL);
    /* <<[[y = z + MLP(N2(z))]]>> */
    if (status == MHA_OK)
        status = mha_layer_norm(n, E, saved->stream, p->norm2_weight, p->norm2_bias, saved->norm2,
                                saved->mean2, saved->rstd2);
    if (status == MHA_OK)
        status = mha_product_nt(n, F, E, saved->norm2, E, p->linear1_weight, E, saved->hidden, F);
    if (status == MHA_OK) {
        add_rows(n, F, saved->hidden, NULL, p->linear1_bias);
        mha_gelu(n * F, saved->hidden, saved->activated);
        status = mha_product_nt(n, E, F, saved->activated, F, p->linear2_weight, F, y, E);
    }
    if (status == MHA_OK)
        add_rows(n, E, y, saved->stream, p->linear2_bias);
    if (status == MHA_OK)
        status = block_forward_range(shape, p, x, mask, y);
    if (!keep)
        mha_block_saved_free(saved);
    return status;
}
mha_status mha_block_forward(const mha_block_shape *shape, const mha_block_params *p,
                             const float *x, const mha_mask *mask, float *y,
                             mha_block_saved *saved)
{
    return block_forward(shape, p, x, mask, y, saved, NULL);
}
/* <<[[block.c]] the forward pass>> */
mha_status mha_block_forward_weights(const mha_block_shape *shape, const mha_block_params *p,
                                     const float *x, const mha_mask *mask, float *y,
                                     float *weights)
{
    if (weights == NULL)
        return MHA_ERR_NULL;
    return block_forward(shape, p, x, mask, y, NULL, weights);
}
/* <<[[block.c]] the backward pass>> */
mha_status mha_block_backward(const mha_block_shape *shape, const mha_block_params *p,
                              const float *x, const mha_mask *mask, const mha_block_saved *saved,
                              const float *grad_y, float *grad_x, const mha_block_grads *grads)
{
    mha_status status = block_arguments(shape, p, x, grad_x);
    if (status != MHA_OK)
        return status;
    if (saved == NULL || saved->memory == NULL || saved->attn.context == NULL ||
        grad_y == NULL || grads == NULL || !block_grads_present(grads))
        return MHA_ERR_NULL;
    if (!same_shape(&saved->shape, shape))
        return MHA_ERR_SHAPE;
    const size_t B = shape->batch, L = shape->length, E = shape->embed_dim, F = shape->hidden,
                 n = B * L;
    float *memory = fast_scratch_take((n * F + 2 * n * E) * sizeof *memory);
    if (memory == NULL)
        return MHA_ERR_NOMEM;
    float *g_hidden = memory, *g_stream = memory + n * F, *g_norm = g_stream + n * E;
    /* <<back through the MLP and [[N2]]: [[g_stream]], the gradient of [[z]]>> */
    status = mha_product_tn(E, F, n, grad_y, E, saved->activated, F, grads->linear2_weight, F);
    column_sums(n, E, grad_y, grads->linear2_bias);
    if (status == MHA_OK)
        status = mha_product_nn(n, F, E, grad_y, E, p->linear2_weight, F, g_hidden, F);
    if (status == MHA_OK) {
        mha_gelu_backward(n * F, saved->hidden, g_hidden, g_hidden);
        column_sums(n, F, g_hidden, grads->linear1_bias);
        status = mha_product_tn(F, E, n, g_hidden, F, saved->norm2, E, grads->linear1_weight, E);
    }
    if (status == MHA_OK)
        status = mha_product_nn(n, E, F, g_hidden, F, p->linear1_weight, E, g_norm, E);
    if (status == MHA_OK)
        status = mha_layer_norm_backward(n, E, saved->stream, p->norm2_weight, saved->mean2,
                                         saved->rstd2, g_norm, g_stream, grads->norm2_weight,
                                         grads->norm2_bias);
    if (status == MHA_OK)
        add_rows(n, E, g_stream, grad_y, NULL);
    /* <<back through attention and [[N1]]: [[grad_x]]>> */
    const mha_grads attention = {g_norm, NULL, NULL, grads->in_proj_weight,
                                 p->attn.in_proj_bias ? grads->in_proj_bias : NULL,
                                 grads->out_proj_weight,
                                 p->attn.out_proj_bias ? grads->out_proj_bias : NULL};
    if (status == MHA_OK)
        status = mha_backward_saved(&p->attn, saved->norm1, NULL, NULL, mask, &saved->attn,
                                    g_stream, &attention);
    if (status == MHA_OK)
        status = mha_layer_norm_backward(n, E, x, p->norm1_weight, saved->mean1, saved->rstd1,
                                         g_norm, grad_x, grads->norm1_weight, grads->norm1_bias);
    if (status == MHA_OK)
        add_rows(n, E, grad_x, g_stream, NULL);
    fast_scratch_give(memory);
    if (status == MHA_OK)
        status = block_backward_range(shape, p, x, mask, grad_y, grad_x, grads);
    return status;
}
/* <<[[block.c]] positions>> */
void mha_positions_sinusoidal(size_t T, size_t E, float *out)
{
    for (size_t t = 0; t < T; t++)
        for (size_t e = 0; e < E; e++) {
            const double angle = (double)t * pow(10000.0, -(double)(e - e % 2) / (double)E);
            out[t * E + e] = (float)(e % 2 ? cos(angle) : sin(angle));
        }
}
/* <<[[block.c]] positions>> */
void mha_rotary_apply(size_t rows, size_t length, size_t heads, size_t head_dim,
                      float *x, size_t ld, double base)
{
    for (size_t r = 0; length > 0 && r < rows; r++)
        for (size_t h = 0; h < heads; h++)
            mha_rope(x + r * ld + h * head_dim, head_dim, r % length, base > 0 ? base : 10000.0);
}
