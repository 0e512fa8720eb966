/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include "fast.h"
#include "mha_internal.h"

size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) && !(allow_minus_infinity && x[i] == -INFINITY))
            return i;
    return n;
}
/* <<[[finite.c]] functions>> */
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
/* <<[[finite.c]] functions>> */
/* The bounds of a forward pass: rows of the inputs (x) and of the projections
   (p), a score, the largest finite mask value, a context row, an output row;
   the weights' lengths (w); whether every input is finite, which the lengths
   and the mask's scan tell. */
typedef struct forward_bounds {
    double xq, xk, xv, q, k, v, score, masked, context, out;
    double wq, wk, wv, wo;
    int finite;
} forward_bounds;
static forward_bounds bound_forward(const mha_shape *shape, const mha_params *params,
                                    const float *query, const float *key, const float *value,
                                    const mha_mask *mask);
static int forward_beyond(const forward_bounds *f);
static int backward_beyond(const mha_shape *shape, const forward_bounds *f, double g);
static double largest_row(const float *x, size_t rows, size_t cols);
typedef struct decode_lengths {   /* the lengths a decoding step's bound is made of */
    double x, wq, wk, wv, bq, bk, bv, wo, bo, held_keys, held_values;
} decode_lengths;
static decode_lengths decode_lengths_of(const mha_decoder *dec, const mha_kv_cache *cache,
                                        size_t n, const float *x);
static int decode_may_overflow(const mha_decoder *dec, const mha_kv_cache *cache,
                               const decode_lengths *l);
static double sum_of_squares(const float *x, size_t n);
mha_status mha_forward_range(const mha_shape *shape, const mha_params *params,
                             const float *query, const float *key, const float *value,
                             const mha_mask *mask, const float *out)
{
    const size_t B = shape->batch, L = shape->query_len, E = shape->embed_dim;
    const mha_span result = {out, B * L * E, 0};
    key = key ? key : query;
    value = value ? value : key;
    const forward_bounds f = bound_forward(shape, params, query, key, value, mask);
    if (f.finite && forward_beyond(&f))
        return MHA_ERR_RANGE;
    if (!f.finite || all_finite(&result, 1))
        return MHA_OK;
    return MHA_ERR_RANGE;
}
/* <<[[finite.c]] functions>> */
static void fold_row_length(const float *row, size_t cols, double *largest, int *nan)
{
    const double length = sqrt(sum_of_squares(row, cols));
    if (isnan(length))
        *nan = 1;
    else if (length > *largest)
        *largest = length;
}
/* max over rows of the Euclidean norm of x (rows, cols), in double: NaN when x
   holds a NaN, infinite when it holds an infinity and no NaN, finite otherwise */
static double largest_row(const float *x, size_t rows, size_t cols)
{
    if (x == NULL || rows == 0)
        return 0.0;
    if (rows == 1)                        /* one long row: its pieces share the threads */
        return sqrt(sum_of_squares(x, cols));
    double largest = 0.0;
    int nan = 0;
    if (rows * cols < 1 << 16)            /* small: on this thread alone */
        for (size_t r = 0; r < rows; r++)
            fold_row_length(x + r * cols, cols, &largest, &nan);
    else {
        #pragma omp parallel for reduction(max:largest) reduction(|:nan)
        for (size_t r = 0; r < rows; r++)
            fold_row_length(x + r * cols, cols, &largest, &nan);
    }
    return nan ? NAN : largest;
}

/* 1 when a bound comes within a factor of 16 of FLT_MAX (or is NaN) */
static int beyond(const double *bounds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(bounds[i] <= FLT_MAX / 16.0))
            return 1;
    return 0;
}

static forward_bounds bound_forward(const mha_shape *shape, const mha_params *params,
                                    const float *query, const float *key, const float *value,
                                    const mha_mask *mask)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    const float *W = params->in_proj_weight, *b = params->in_proj_bias;
    forward_bounds f = {0};
    f.xq = largest_row(query, B * L, E);
    f.xk = key == query ? f.xq : largest_row(key, B * S, E);
    f.xv = value == key ? f.xk : largest_row(value, B * S, E);
    f.wq = largest_row(W, 1, E * E);
    f.wk = largest_row(W + E * E, 1, E * E);
    f.wv = largest_row(W + 2 * E * E, 1, E * E);
    f.wo = largest_row(params->out_proj_weight, 1, E * E);
    const double bq = largest_row(b, 1, E), bk = largest_row(b ? b + E : NULL, 1, E),
                 bv = largest_row(b ? b + 2 * E : NULL, 1, E),
                 bo = largest_row(params->out_proj_bias, 1, E);
    const double lengths[] = {f.xq, f.xk, f.xv, f.wq, f.wk, f.wv, f.wo, bq, bk, bv, bo};
    f.finite = 1;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        f.finite &= isfinite(lengths[i]) != 0;
    f.q = f.wq * f.xq + bq;
    f.k = f.wk * f.xk + bk;
    f.v = f.wv * f.xv + bv;
    f.score = f.q * f.k / sqrt((double)(E / H));
    for (size_t i = 0; mask && mask->attn_mask_float && i < L * S; i++) {
        const float m = mask->attn_mask_float[i];
        if (isfinite(m))
            f.masked = fmax(f.masked, fabs((double)m));
        else if (m != -INFINITY)                        /* NaN or +inf */
            f.finite = 0;
    }
    f.context = sqrt((double)H) * f.v;
    f.out = f.wo * f.context + bo;
    return f;
}

static int forward_beyond(const forward_bounds *f)
{
    const double bounds[] = {f->q, f->k, f->v, f->score, f->context, f->out};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]) ||
           !(f->score + f->masked <= FLT_MAX * (1.0 - 1e-6));
}
/* <<[[finite.c]] functions>> */
mha_status mha_backward_range(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim;
    const mha_span results[] = {
        {grads->grad_query, B * L * E, 0},
        {key ? grads->grad_key : NULL, B * S * E, 0},
        {value ? grads->grad_value : NULL, B * S * E, 0},
        {grads->grad_in_proj_weight, 3 * E * E, 0}, {grads->grad_in_proj_bias, 3 * E, 0},
        {grads->grad_out_proj_weight, E * E, 0}, {grads->grad_out_proj_bias, E, 0},
    };
    const float *k = key ? key : query, *v = value ? value : k;
    const forward_bounds f = bound_forward(shape, params, query, k, v, mask);
    const double g = largest_row(grad_out, B * L, E);
    const int finite = f.finite && isfinite(g);
    if ((f.finite && forward_beyond(&f)) || (finite && backward_beyond(shape, &f, g)))
        return MHA_ERR_RANGE;
    if (!finite || all_finite(results, sizeof results / sizeof results[0]))
        return MHA_OK;
    return MHA_ERR_RANGE;
}
/* <<[[finite.c]] functions>> */
static int backward_beyond(const mha_shape *shape, const forward_bounds *f, double g)
{
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    const double N = (double)(B * L), M = (double)(B * S), heads = sqrt((double)H);
    const double dc = f->wo * g;
    const double dp = dc * f->v;                        /* a weight's gradient, delta */
    const double dq = heads * 2.0 * dp * f->k / sqrt((double)(E / H));
    const double dk = (double)L * heads * 2.0 * dp * f->q / sqrt((double)(E / H));
    const double dv = (double)L * dc;
    const double dx = f->wq * dq + f->wk * dk + f->wv * dv;
    const double bounds[] = {g, dc, dp, 2.0 * dp, dq, dk, dv, dx, N * g, N * g * f->context,
                             N * dq, M * dk, M * dv, N * dq * f->xq, M * dk * f->xk,
                             M * dv * f->xv};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]);
}
/* <<[[finite.c]] functions>> */
static double sum_of_squares(const float *x, size_t n)
{
    enum { PIECE = 1 << 16 };
    const fast_kernels *k = fast_kernels_select();
    const size_t pieces = (n + PIECE - 1) / PIECE;
    double total = 0.0;
    if (pieces <= 2)                      /* a short row: on this thread alone */
        for (size_t at = 0; at < n; at += PIECE)
            total += k->dot(x + at, x + at, n - at < PIECE ? n - at : PIECE);
    else {
        #pragma omp parallel for reduction(+:total)
        for (size_t p = 0; p < pieces; p++) {
            const size_t at = p * PIECE;
            total += k->dot(x + at, x + at, n - at < PIECE ? n - at : PIECE);
        }
    }
    if (isfinite(total) && total >= 0x1p-64)
        return total;
    total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += (double)x[i] * x[i];
    return total;
}
/* <<[[finite.c]] functions>> */
mha_status mha_decode_range(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out)
{
    const mha_span result = {out, cache->batch * n * dec->embed_dim, 0};
    const decode_lengths l = decode_lengths_of(dec, cache, n, x);
    const double inputs[] = {l.x, l.wq, l.wk, l.wv, l.bq, l.bk, l.bv, l.wo, l.bo,
                             l.held_keys, l.held_values};
    int finite = 1;
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        finite &= isfinite(inputs[i]) != 0;
    if (finite && decode_may_overflow(dec, cache, &l))
        return MHA_ERR_RANGE;
    if (!finite || all_finite(&result, 1))
        return MHA_OK;
    return MHA_ERR_RANGE;
}
/* <<[[finite.c]] functions>> */
/* the longest held row of every group and sequence, keys (0) or values (1) */
static double largest_held(const mha_kv_cache *cache, size_t n, int values)
{
    double largest = 0.0;
    for (size_t b = 0; b < cache->batch; b++)
        for (size_t g = 0; g < cache->kv_heads; g++) {
            const float *l = cache->lengths + 2 * (b * cache->kv_heads + g) * cache->capacity;
            for (size_t t = 0; t < cache->length[b] - n; t++) {
                const double length = l[2 * t + values];
                largest = isnan(length) || length > largest ? length : largest;
            }
        }
    return largest;
}

static decode_lengths decode_lengths_of(const mha_decoder *dec, const mha_kv_cache *cache,
                                        size_t n, const float *x)
{
    const size_t E = dec->embed_dim, KV = dec->kv_heads * cache->head_dim;
    const float *W = dec->params.in_proj_weight, *b = dec->params.in_proj_bias;
    return (decode_lengths){
        largest_row(x, cache->batch * n, E),
        largest_row(W, 1, E * E), largest_row(W + E * E, 1, KV * E),
        largest_row(W + E * E + KV * E, 1, KV * E),
        largest_row(b, 1, E), largest_row(b ? b + E : NULL, 1, KV),
        largest_row(b ? b + E + KV : NULL, 1, KV),
        largest_row(dec->params.out_proj_weight, 1, E * E),
        largest_row(dec->params.out_proj_bias, 1, E),
        largest_held(cache, n, 0), largest_held(cache, n, 1)};
}
/* <<[[finite.c]] functions>> */
static int decode_may_overflow(const mha_decoder *dec, const mha_kv_cache *cache,
                               const decode_lengths *l)
{
    const double q = l->wq * l->x + l->bq;
    const double k = fmax(l->wk * l->x + l->bk, l->held_keys);
    const double v = fmax(l->wv * l->x + l->bv, l->held_values);
    const double score = q * k / sqrt((double)cache->head_dim);
    const double context = sqrt((double)dec->heads) * v;
    const double out = l->wo * context + l->bo;
    const double bounds[] = {l->x, q, k, v, score, context, out};
    return beyond(bounds, sizeof bounds / sizeof bounds[0]);
}
