/* generated from chapters/09-fast-backward.nw; edit the book, not this file */
/* The blocked backward pass: the projections and the layer (the attention
   core is in backward_attention.c).  See that file's header for the versions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "fast_backward.h"
#include "stages.h"

/* <<[[backward_blocked.c]] products with transposed operands>> */
enum { DIRECT_MAX = 16384 };           /* floats of B for the direct product */
/* <<[[backward_blocked.c]] products with transposed operands>> */
/* C (M, N) = A (M, K) W (N, K)^T + bias, through the packed product. */
static mha_status product_nt(const fast_kernels *k, const fast_blocking *blk, size_t M,
                             size_t N, size_t K, const float *A, size_t lda, const float *W,
                             size_t ldw, const float *bias, float *C, size_t ldc)
{
    if (N * K <= DIRECT_MAX) {                      /* W^T is small: (K, N), then direct */
        float *wt = malloc((N * K > 0 ? N * K : 1) * sizeof *wt);
        if (wt == NULL)
            return MHA_ERR_NOMEM;
        for (size_t j = 0; j < N; j++)
            for (size_t kk = 0; kk < K; kk++)
                wt[kk * N + j] = W[j * ldw + kk];
        fast_product_direct(k, M, N, K, A, lda, 1, wt, N, bias, C, ldc);
        free(wt);
        return MHA_OK;
    }
    fast_packed packed;
    mha_status status = fast_pack(k, blk, N, K, W, ldw, &packed);
    if (status == MHA_OK)
        status = fast_product(k, blk, M, A, lda, &packed, bias, C, ldc);
    fast_packed_free(&packed);
    return status;
}
/* <<[[backward_blocked.c]] products with transposed operands>> */
/* C (M, N) = A (M, K) B (K, N): B packed as W = B^T, read in place. */
static mha_status product_nn(const fast_kernels *k, const fast_blocking *blk, size_t M,
                             size_t N, size_t K, const float *A, size_t lda, const float *Bm,
                             size_t ldb, float *C, size_t ldc)
{
    if (N * K <= DIRECT_MAX) {
        fast_product_direct(k, M, N, K, A, lda, 1, Bm, ldb, NULL, C, ldc);
        return MHA_OK;
    }
    fast_packed packed;
    mha_status status = fast_pack_strided(k, blk, N, K, Bm, 1, ldb, &packed);
    if (status == MHA_OK)
        status = fast_product(k, blk, M, A, lda, &packed, NULL, C, ldc);
    fast_packed_free(&packed);
    return status;
}
/* <<[[backward_blocked.c]] products with transposed operands>> */
/* C (M, N) = A (K, M)^T B (K, N): both read transposed, in place. */
static mha_status product_tn(const fast_kernels *k, const fast_blocking *blk, size_t M,
                             size_t N, size_t K, const float *A, size_t lda, const float *Bm,
                             size_t ldb, float *C, size_t ldc)
{
    if (N * K <= DIRECT_MAX) {
        fast_product_direct(k, M, N, K, A, 1, lda, Bm, ldb, NULL, C, ldc);
        return MHA_OK;
    }
    fast_packed packed;
    mha_status status = fast_pack_strided(k, blk, N, K, Bm, 1, ldb, &packed);
    if (status == MHA_OK)
        status = fast_product_strided(k, blk, M, A, 1, lda, &packed, NULL, C, ldc);
    fast_packed_free(&packed);
    return status;
}
/* <<[[backward_blocked.c]] products with transposed operands>> */
/* A (rows, cols) matrix with row stride ld: present, not empty, and its
   extent, (rows - 1) ld + cols floats, a byte count that fits. */
static mha_status matrix_check(const float *x, size_t rows, size_t cols, size_t ld)
{
    size_t n;
    if (x == NULL)
        return MHA_ERR_NULL;
    if (rows == 0 || cols == 0 || ld < cols)
        return MHA_ERR_SHAPE;
    if (mha_mul_overflows(rows - 1, ld, &n) || n > SIZE_MAX / sizeof(float) - cols)
        return MHA_ERR_OVERFLOW;
    return MHA_OK;
}

static mha_status product_check(size_t a_rows, size_t a_cols, const float *A, size_t lda,
                                size_t b_rows, size_t b_cols, const float *B, size_t ldb,
                                size_t M, size_t N, const float *C, size_t ldc)
{
    const mha_status checks[3] = {matrix_check(A, a_rows, a_cols, lda),
                                  matrix_check(B, b_rows, b_cols, ldb),
                                  matrix_check(C, M, N, ldc)};
    for (int i = 0; i < 3; i++)               /* a NULL first, then sizes, then overflow */
        if (checks[i] == MHA_ERR_NULL)
            return MHA_ERR_NULL;
    for (int i = 0; i < 3; i++)
        if (checks[i] != MHA_OK)
            return checks[i];
    return MHA_OK;
}

mha_status mha_product_nt(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *W, size_t ldw, float *C, size_t ldc)
{
    const mha_status status = product_check(M, K, A, lda, N, K, W, ldw, M, N, C, ldc);
    if (status != MHA_OK)
        return status;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, 64);
    return product_nt(k, &blk, M, N, K, A, lda, W, ldw, NULL, C, ldc);
}

mha_status mha_product_nn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc)
{
    const mha_status status = product_check(M, K, A, lda, K, N, B, ldb, M, N, C, ldc);
    if (status != MHA_OK)
        return status;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, 64);
    return product_nn(k, &blk, M, N, K, A, lda, B, ldb, C, ldc);
}

mha_status mha_product_tn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc)
{
    const mha_status status = product_check(K, M, A, lda, K, N, B, ldb, M, N, C, ldc);
    if (status != MHA_OK)
        return status;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, 64);
    return product_tn(k, &blk, M, N, K, A, lda, B, ldb, C, ldc);
}
/* <<[[backward_blocked.c]] products with transposed operands>> */
/* sums (N) = the column sums of x (M, N), row stride ld */
static void column_sums(size_t M, size_t N, const float *x, size_t ld, float *sums)
{
    memset(sums, 0, N * sizeof *sums);
    for (size_t i = 0; i < M; i++)
        #pragma omp simd
        for (size_t j = 0; j < N; j++)
            sums[j] += x[i * ld + j];
}
/* <<[[backward_blocked.c]] the forward pass that saves>> */
void mha_saved_free(mha_saved *saved)
{
    if (saved == NULL)
        return;
    fast_scratch_give(saved->projections); fast_scratch_give(saved->context);
    fast_scratch_give(saved->lse);
    memset(saved, 0, sizeof *saved);
}
/* <<[[backward_blocked.c]] the forward pass that saves>> */
mha_status mha_forward_saving(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, float *out, mha_saved *saved)
{
    if (saved == NULL)
        return MHA_ERR_NULL;
    memset(saved, 0, sizeof *saved);
    mha_status status = mha_forward_check(shape, params, query, &key, &value, out);
    if (status != MHA_OK)
        return status;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, D);
    saved->shape = *shape;
    saved->self = key == query && value == key;
    saved->projections = fast_scratch_take(B * (L > S ? L : S) * 3 * E * sizeof(float));
    saved->context = fast_scratch_take(B * L * E * sizeof(float));
    saved->lse = fast_scratch_take(B * H * L * 2 * sizeof(float));
    if (!saved->projections || !saved->context || !saved->lse) {
        mha_saved_free(saved);
        return MHA_ERR_NOMEM;
    }
    fast_stage_mark(FAST_STAGE_PROJECT_IN);
    /* <<project the inputs into [[saved->q]], [[saved->k]], [[saved->v]]>> */
    const float *W = params->in_proj_weight, *bias = params->in_proj_bias;
    float *proj = saved->projections;
    if (saved->self) {
        saved->q = proj; saved->k = proj + E; saved->v = proj + 2 * E;
        saved->ldq = saved->ldkv = 3 * E;                         /* (B, L, 3E) */
        status = product_nt(k, &blk, B * L, 3 * E, E, query, E, W, E, bias, proj, 3 * E);
    } else {
        saved->q = proj; saved->k = proj + B * L * E; saved->v = saved->k + E;
        saved->ldq = E; saved->ldkv = 2 * E;                      /* (B, L, E), (B, S, 2E) */
        status = product_nt(k, &blk, B * L, E, E, query, E, W, E, bias, saved->q, E);
        if (status == MHA_OK)
            status = product_nt(k, &blk, B * S, E, E, key, E, W + E * E, E,
                                bias ? bias + E : NULL, saved->k, 2 * E);
        if (status == MHA_OK)
            status = product_nt(k, &blk, B * S, E, E, value, E, W + 2 * E * E, E,
                                bias ? bias + 2 * E : NULL, saved->v, 2 * E);
    }
    if (status == MHA_OK) {
        const fast_attention a = {B, H, L, S, D, saved->q, saved->k, saved->v, saved->ldq,
                                  saved->ldkv, saved->ldkv, mask, saved->context, NULL};
        fast_stage_mark(FAST_STAGE_ATTEND);
        status = fast_attend_lse(k, &a, saved->lse);
    }
    fast_stage_mark(FAST_STAGE_PROJECT_OUT);
    if (status == MHA_OK)
        status = product_nt(k, &blk, B * L, E, E, saved->context, E, params->out_proj_weight, E,
                            params->out_proj_bias, out, E);
    fast_stage_mark(FAST_STAGE_OUTSIDE);
    if (status == MHA_OK)
        status = mha_forward_range(shape, params, query, key, value, mask, out);
    if (status != MHA_OK)
        mha_saved_free(saved);
    return status;
}
/* <<[[backward_blocked.c]] the backward pass>> */
/* parts projections of one x (n, E): W (parts E, E), dy (n, parts E) with row
   stride ldy.  gW (parts E, E) and gb (parts E) are overwritten; gx (n, E),
   unless NULL, receives the parts' dy W: overwritten if fresh, else added to. */
static mha_status input_projection_grads(const fast_kernels *k, const fast_blocking *blk,
                                         size_t n, size_t E, size_t parts, const float *x,
                                         const float *W, const float *dy, size_t ldy,
                                         float *gW, float *gb, float *gx, int fresh,
                                         float *scratch)
{
    mha_status status = product_tn(k, blk, parts * E, E, n, dy, ldy, x, E, gW, E);
    if (gb)
        column_sums(n, parts * E, dy, ldy, gb);
    for (size_t part = 0; status == MHA_OK && gx && part < parts; part++) {
        const int direct = fresh && part == 0;
        status = product_nn(k, blk, n, E, E, dy + part * E, ldy, W + part * E * E, E,
                            direct ? gx : scratch, E);
        if (status == MHA_OK && !direct) {
            #pragma omp parallel for schedule(static)
            for (size_t i = 0; i < n * E; i++)
                gx[i] += scratch[i];
        }
    }
    return status;
}
/* <<[[backward_blocked.c]] the backward pass>> */
mha_status mha_backward_saved(const mha_params *params, const float *query,
                              const float *key, const float *value, const mha_mask *mask,
                              const mha_saved *saved, const float *grad_out,
                              const mha_grads *grads)
{
    if (saved == NULL || saved->context == NULL || params == NULL || query == NULL ||
        grad_out == NULL || grads == NULL || grads->grad_in_proj_weight == NULL ||
        grads->grad_out_proj_weight == NULL)
        return MHA_ERR_NULL;
    const mha_shape *shape = &saved->shape;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, D);
    /* <<decide where the input gradients go, as [[mha_backward_naive]] does>> */
    const float *key_in = key, *value_in = value;
    key = key ? key : query;
    value = value ? value : key;
    float *gx_q = grads->grad_query;
    float *gx_k = key_in == NULL ? grads->grad_query : grads->grad_key;
    float *gx_v = value_in == NULL ? gx_k : grads->grad_value;
    const size_t rows = L > S ? L : S;
    float *dc = fast_scratch_take(B * L * E * sizeof *dc);                 /* (B, L, E) */
    float *dproj = fast_scratch_take(B * rows * 3 * E * sizeof *dproj);    /* as projections */
    float *scratch = fast_scratch_take(B * rows * E * sizeof *scratch);
    mha_status status = dc && dproj && scratch ? MHA_OK : MHA_ERR_NOMEM;
    fast_stage_mark(FAST_STAGE_GRAD_OUT);
    /* <<back through the output projection: [[dc]], and its weight and bias gradients>> */
    if (status == MHA_OK)
        status = product_nn(k, &blk, B * L, E, E, grad_out, E, params->out_proj_weight, E, dc, E);
    if (status == MHA_OK)
        status = product_tn(k, &blk, E, E, B * L, grad_out, E, saved->context, E,
                            grads->grad_out_proj_weight, E);
    if (status == MHA_OK && grads->grad_out_proj_bias)
        column_sums(B * L, E, grad_out, E, grads->grad_out_proj_bias);
    float *gq = dproj + (saved->q - saved->projections);
    float *gk = dproj + (saved->k - saved->projections);
    float *gv = dproj + (saved->v - saved->projections);
    if (status == MHA_OK) {
        const fast_attention_grad g = {B, H, L, S, D, saved->q, saved->k, saved->v, saved->ldq,
                                       saved->ldkv, saved->ldkv, mask, saved->context, dc,
                                       saved->lse, gq, gk, gv, saved->ldq, saved->ldkv,
                                       saved->ldkv};
        fast_stage_mark(FAST_STAGE_GRAD_ATTEND);
        status = fast_attend_backward(k, &g);
    }
    fast_stage_mark(FAST_STAGE_GRAD_IN);
    /* <<back through the three input projections into [[grads]]>> */
    const float *W = params->in_proj_weight;
    float *gW = grads->grad_in_proj_weight, *gb = grads->grad_in_proj_bias;
    const int one_input = saved->self && gx_k == gx_q && gx_v == gx_q;
    const int one_kv = !one_input && key == value && gx_v == gx_k;
    if (status == MHA_OK)
        status = input_projection_grads(k, &blk, B * L, E, one_input ? 3 : 1, query, W, gq,
                                        saved->ldq, gW, gb, gx_q, 1, scratch);
    if (status == MHA_OK && !one_input)
        status = input_projection_grads(k, &blk, B * S, E, one_kv ? 2 : 1, key, W + E * E, gk,
                                        saved->ldkv, gW + E * E, gb ? gb + E : NULL, gx_k,
                                        gx_k != gx_q, scratch);
    if (status == MHA_OK && !one_input && !one_kv)
        status = input_projection_grads(k, &blk, B * S, E, 1, value, W + 2 * E * E, gv,
                                        saved->ldkv, gW + 2 * E * E, gb ? gb + 2 * E : NULL, gx_v,
                                        gx_v != gx_q && gx_v != gx_k, scratch);
    fast_stage_mark(FAST_STAGE_OUTSIDE);
    fast_scratch_give(dc); fast_scratch_give(dproj); fast_scratch_give(scratch);
    if (status == MHA_OK)
        status = mha_backward_range(shape, params, query, key_in, value_in, mask, grad_out,
                                    grads);
    return status;
}
/* <<[[backward_blocked.c]] the backward pass>> */
mha_status mha_backward_blocked(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask, const float *grad_out,
                                const mha_grads *grads)
{
    mha_status status = mha_shape_check(shape);
    if (status != MHA_OK)
        return status;
    if (grads == NULL || grads->grad_in_proj_weight == NULL ||
        grads->grad_out_proj_weight == NULL || grad_out == NULL)
        return MHA_ERR_NULL;
    float *out = fast_scratch_take(shape->batch * shape->query_len * shape->embed_dim *
                                   sizeof *out);
    if (out == NULL)
        return MHA_ERR_NOMEM;
    mha_saved saved;
    status = mha_forward_saving(shape, params, query, key, value, mask, out, &saved);
    if (status == MHA_OK)
        status = mha_backward_saved(params, query, key, value, mask, &saved, grad_out, grads);
    mha_saved_free(&saved);
    fast_scratch_give(out);
    return status;
}
/* <<[[backward_blocked.c]] the backward pass>> */
const mha_backward_impl mha_backward_impls[] = {
    {"naive", mha_backward_naive},
    {"blocked", mha_backward_blocked},
};
const size_t mha_backward_impl_count = sizeof mha_backward_impls / sizeof mha_backward_impls[0];

const mha_backward_impl *mha_backward_impl_find(const char *name)
{
    return mha_version_find(mha_backward_impls, mha_backward_impl_count,
                            sizeof mha_backward_impls[0], name);
}
