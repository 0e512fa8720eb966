/* generated from chapters/08-fast-attention.nw; edit the book, not this file */
/* The blocked forward pass, the third version of the layer:
     naive    per-head loops, the reference for every test
     batched  one fused QKV product, heads read in place
     blocked  packed cache-blocked product with AVX-512, AVX2 or C kernels,
              fused attention with an online softmax, OpenMP threads
   Run:      build/mha bench --impl blocked --batch 1 --seq 2048 --dim 768 --heads 12
   Measured: make bench writes figures/bench-fast.tex (times against PyTorch and
             OpenBLAS), figures/bench-steps.tex (the gain of each step) and
             figures/bench-stages.tex (each part's time, and the time outside
             them: mha bench --part stages, through the stage marks of stages.h).
   Force the kernels with MHA_ISA=scalar|avx2|avx512 (or MHA_FORCE_SCALAR=1),
   read once, when the program starts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "fast.h"
#include "stages.h"

/* <<[[blocked.c]] types>> */
typedef struct attend_state {
    const fast_kernels *k;
    const fast_attention *a;
    size_t bq, bk, Sp, Dp, tiles;          /* tiles of queries per head */
    float *kt;                             /* (B, H, Sp / bk, D, bk) */
    float *vp;                             /* (B, H, Sp, Dp) */
    unsigned char *finite;                 /* (B, H) */
    float *row_max, *row_sum;              /* (B, H, L) */
    float *lse;                            /* (B, H, L, 2), or NULL */
} attend_state;
/* <<[[blocked.c]] types>> */
typedef struct attend_scratch {
    float *q;                  /* (bq, D) */
    float *s;                  /* (bq, bk) */
    float *acc;                /* (bq, Dp) */
    float *m, *l;              /* (bq) */
} attend_scratch;
/* <<[[blocked.c]] types>> */
static mha_status project(const fast_kernels *k, const fast_blocking *blk, fast_stage stage,
                          size_t M, const float *X, size_t ldx, const float *Wrows, size_t N,
                          size_t K, const float *bias, float *C, size_t ldc);
/* <<[[blocked.c]] functions>> */
static void pack_head(const attend_state *st, size_t b, size_t h)
{
    const fast_attention *a = st->a;
    const size_t S = a->S, D = a->D, Sp = st->Sp, Dp = st->Dp, bh = b * a->H + h;
    const size_t bk = st->bk;
    float *kt = st->kt + bh * D * Sp, *vp = st->vp + bh * Sp * Dp;
    for (size_t j = 0; j < S; j++) {
        memcpy(vp + j * Dp, a->v + (b * S + j) * a->ldv + h * D, D * sizeof *vp);
        memset(vp + j * Dp + D, 0, (Dp - D) * sizeof *vp);
    }
    memset(vp + S * Dp, 0, (Sp - S) * Dp * sizeof *vp);
    memset(kt + (Sp - bk) * D, 0, bk * D * sizeof *kt);     /* the last tile */
    for (size_t j = 0; j < S; j++) {
        const float *key = a->k + (b * S + j) * a->ldk + h * D;
        float *tile = kt + (j / bk) * D * bk + j % bk;     /* (D, bk) */
        for (size_t d = 0; d < D; d++)
            tile[d * bk] = key[d];
    }
    unsigned bad = 0;
    #pragma omp simd reduction(|:bad)
    for (size_t i = 0; i < S * Dp; i++) {
        uint32_t bits;
        memcpy(&bits, vp + i, sizeof bits);
        bad |= (bits & 0x7f800000u) == 0x7f800000u;
    }
    st->finite[bh] = (unsigned char)!bad;
}
/* <<[[blocked.c]] functions>> */
static void mask_tile(const attend_state *st, size_t b, size_t i0, size_t nq,
                      size_t j0, size_t nk, size_t cols, float *s)
{
    const mha_mask *m = st->a->mask;
    const size_t S = st->a->S, lds = st->bk;
    const int elements = m && (m->attn_mask_bool || m->attn_mask_float || m->key_padding_mask);
    const int open = !elements && !mha_key_masked(m, S, b, i0, j0 + nk - 1);
    for (size_t r = 0; r < nq; r++) {
        float *row = s + r * lds;
        const size_t i = i0 + r;
        for (size_t c = 0; !open && !elements && c < nk; c++)    /* causal alone */
            if (j0 + c > i)
                row[c] = -INFINITY;
        for (size_t c = 0; !open && elements && c < nk; c++) {
            const size_t j = j0 + c;
            /* <<mask score [[row[c]]] of query [[i]] and key [[j]]>> */
            if (m && m->attn_mask_float)
                row[c] += m->attn_mask_float[i * S + j];
            if (mha_key_masked(m, S, b, i, j))
                row[c] = -INFINITY;
        }
        for (size_t c = nk; c < cols; c++)
            row[c] = -INFINITY;
    }
}
/* <<[[blocked.c]] functions>> */
void fast_online_update(const fast_kernels *k, float *p, size_t cols, float *m, float *l,
                        float *acc, size_t Dp)
{
    /* <<fold tile [[p]] into the running maximum [[m]], sum [[l]] and context [[acc]]>> */
    const float tile_max = k->row_max(p, cols);
    const float mu = fmaxf(*m, tile_max);
    if (isnan(*m) || mu == -INFINITY) {
        /* <<a row poisoned by NaN stays NaN; a tile of masked keys adds nothing>> */
        int poisoned = isnan(*m);
        for (size_t c = 0; !poisoned && c < cols; c++)
            poisoned = isnan(p[c]);
        if (poisoned) {
            *m = *l = NAN;
            for (size_t c = 0; c < cols; c++)
                p[c] = NAN;
        } else
            memset(p, 0, cols * sizeof *p);
    } else {
        const float alpha = *m == mu ? 1.0f : *m == -INFINITY ? 0.0f : expf(*m - mu);
        const float sum = k->exp_sum(p, cols, mu);
        if (alpha != 1.0f) {
            *l *= alpha;
            k->scale(acc, Dp, alpha);
        }
        *l += sum;
        *m = mu;
    }
}
/* <<[[blocked.c]] functions>> */
static void pv_skipping_zeros(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                              const float *v, size_t ldv, float *acc, size_t lda)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j++)
            if (p[r * ldp + j] != 0.0f)
                for (size_t d = 0; d < Dp; d++)
                    acc[r * lda + d] += p[r * ldp + j] * v[j * ldv + d];
}
/* <<[[blocked.c]] functions>> */
static int scratch_alloc(const attend_state *st, attend_scratch *w)
{
    const size_t bq = st->bq;
    w->q = malloc(bq * st->a->D * sizeof(float));
    w->s = malloc(bq * st->bk * sizeof(float));
    w->acc = malloc(bq * st->Dp * sizeof(float));
    w->m = malloc(2 * bq * sizeof(float));
    w->l = w->m ? w->m + bq : NULL;
    return w->q && w->s && w->acc && w->m;
}

static void scratch_free(attend_scratch *w)
{
    free(w->q); free(w->s); free(w->acc); free(w->m);
}
/* <<[[blocked.c]] functions>> */
static void load_queries(const attend_state *st, size_t b, size_t h, size_t i0, size_t nq,
                         size_t rows, float *q)
{
    const fast_attention *a = st->a;
    for (size_t r = 0; r < nq; r++)
        memcpy(q + r * a->D, a->q + (b * a->L + i0 + r) * a->ldq + h * a->D, a->D * sizeof *q);
    memset(q + nq * a->D, 0, (rows - nq) * a->D * sizeof *q);
}

static void attend_tile(const attend_state *st, size_t b, size_t h, size_t t, attend_scratch *w)
{
    const fast_attention *a = st->a;
    const fast_kernels *k = st->k;
    const size_t bh = b * a->H + h, D = a->D, Dp = st->Dp, i0 = t * st->bq;
    const size_t nq = a->L - i0 < st->bq ? a->L - i0 : st->bq, rows = (nq + 3) / 4 * 4;
    const int causal = a->mask && a->mask->causal;
    const size_t end = causal && i0 + nq < a->S ? i0 + nq : a->S;
    load_queries(st, b, h, i0, nq, rows, w->q);
    memset(w->acc, 0, rows * Dp * sizeof *w->acc);
    for (size_t r = 0; r < rows; r++) { w->m[r] = -INFINITY; w->l[r] = 0.0f; }
    for (size_t j0 = 0; j0 < end; j0 += st->bk)
        /* <<add key tile [[j0]] to the rows of the query tile>> */
        {
            const size_t nk = a->S - j0 < st->bk ? a->S - j0 : st->bk;
            const size_t cols = (nk + k->width - 1) / k->width * k->width;
            k->scores(rows, cols, D, w->q, D, st->kt + bh * D * st->Sp + j0 * D, st->bk,
                      1.0f / sqrtf((float)D), w->s, st->bk);
            mask_tile(st, b, i0, nq, j0, nk, cols, w->s);
            for (size_t r = 0; r < nq; r++)
                fast_online_update(k, w->s + r * st->bk, cols, &w->m[r], &w->l[r], w->acc + r * Dp,
                                   Dp);
            for (size_t r = nq; r < rows; r++)
                memset(w->s + r * st->bk, 0, cols * sizeof *w->s);
            const float *v = st->vp + (bh * st->Sp + j0) * Dp;
            if (st->finite[bh])
                k->pv(rows, nk, Dp, w->s, st->bk, v, Dp, w->acc, Dp);
            else
                pv_skipping_zeros(nq, nk, Dp, w->s, st->bk, v, Dp, w->acc, Dp);
        }
    /* <<divide each row by its sum and store it in the context>> */
    for (size_t r = 0; r < nq; r++) {
        float *c = a->context + (b * a->L + i0 + r) * (a->H * D) + h * D;
        const float l = w->l[r], inv = l != 0.0f ? 1.0f / l : 0.0f;
        for (size_t d = 0; d < D; d++)
            c[d] = l != 0.0f ? w->acc[r * Dp + d] * inv : 0.0f;
        st->row_max[bh * a->L + i0 + r] = w->m[r];
        st->row_sum[bh * a->L + i0 + r] = l;
        if (st->lse) {
            float *row = st->lse + 2 * (bh * a->L + i0 + r);
            row[0] = isnan(l) ? NAN : l == 0.0f ? -INFINITY : w->m[r];
            row[1] = l == 0.0f ? 0.0f : logf(l);
        }
    }
}
/* <<[[blocked.c]] functions>> */
static void weights_tile(const attend_state *st, size_t b, size_t h, size_t t, attend_scratch *w)
{
    const fast_attention *a = st->a;
    const fast_kernels *k = st->k;
    const size_t bh = b * a->H + h, D = a->D, S = a->S, i0 = t * st->bq;
    const size_t nq = a->L - i0 < st->bq ? a->L - i0 : st->bq, rows = (nq + 3) / 4 * 4;
    load_queries(st, b, h, i0, nq, rows, w->q);
    for (size_t j0 = 0; j0 < S; j0 += st->bk) {
        const size_t nk = S - j0 < st->bk ? S - j0 : st->bk;
        const size_t cols = (nk + k->width - 1) / k->width * k->width;
        k->scores(rows, cols, D, w->q, D, st->kt + bh * D * st->Sp + j0 * D, st->bk,
                  1.0f / sqrtf((float)D), w->s, st->bk);
        mask_tile(st, b, i0, nq, j0, nk, cols, w->s);
        /* <<turn the tile's scores into weights and store them>> */
        for (size_t r = 0; r < nq; r++) {
            float *p = w->s + r * st->bk, *out = a->weights + (bh * a->L + i0 + r) * S + j0;
            const float m = st->row_max[bh * a->L + i0 + r], l = st->row_sum[bh * a->L + i0 + r];
            if (!isnan(l) && (l == 0.0f || m == -INFINITY)) {
                memset(out, 0, nk * sizeof *out);
                continue;
            }
            k->exp_sum(p, cols, m);
            for (size_t c = 0; c < nk; c++)
                out[c] = p[c] / l;
        }
    }
}
/* <<[[blocked.c]] functions>> */
mha_status fast_attend(const fast_kernels *k, const fast_blocking *b, const fast_attention *a,
                       float *lse)
{
    attend_state st = {k, a, b->bq, b->bk, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, lse};
    st.Sp = (a->S + b->bk - 1) / b->bk * b->bk;
    st.Dp = (a->D + k->width - 1) / k->width * k->width;
    st.tiles = (a->L + st.bq - 1) / st.bq;
    const size_t heads = a->B * a->H, items = heads * st.tiles;
    /* <<allocate the packed heads and row statistics, or fail>> */
    size_t n_kt, n_kv, n_stats;
    if (mha_mul_overflows(heads, a->D * st.Sp, &n_kt) ||
        mha_mul_overflows(heads, st.Sp * st.Dp, &n_kv) || mha_mul_overflows(heads, 2 * a->L, &n_stats))
        return MHA_ERR_OVERFLOW;
    st.kt = fast_scratch_take(n_kt * sizeof *st.kt);            /* kept between calls */
    st.vp = fast_scratch_take(n_kv * sizeof *st.vp);
    st.finite = malloc(heads);
    st.row_max = fast_scratch_take(n_stats * sizeof *st.row_max);
    st.row_sum = st.row_max ? st.row_max + heads * a->L : NULL;
    if (!st.kt || !st.vp || !st.finite || !st.row_max) {
        fast_scratch_give(st.kt); fast_scratch_give(st.vp); free(st.finite);
        fast_scratch_give(st.row_max);
        return MHA_ERR_NOMEM;
    }
    int failed = 0;
    #pragma omp parallel for schedule(static)
    for (size_t bh = 0; bh < heads; bh++)
        pack_head(&st, bh / a->H, bh % a->H);
    /* <<run [[attend_tile]] on every item, in parallel>> */
    #pragma omp parallel reduction(|:failed)
    {
        attend_scratch w;
        failed = !scratch_alloc(&st, &w);
        #pragma omp for schedule(dynamic)
        for (size_t item = 0; item < items; item++)
            if (!failed)
                attend_tile(&st, item / st.tiles / a->H, item / st.tiles % a->H,
                            st.tiles - 1 - item % st.tiles, &w);      /* longest first */
        scratch_free(&w);
    }
    if (a->weights != NULL && !failed)
        /* <<run [[weights_tile]] on every item, in parallel>> */
        #pragma omp parallel reduction(|:failed)
        {
            attend_scratch w;
            failed = !scratch_alloc(&st, &w);
            #pragma omp for schedule(dynamic)
            for (size_t item = 0; item < items; item++)
                if (!failed)
                    weights_tile(&st, item / st.tiles / a->H, item / st.tiles % a->H, item % st.tiles, &w);
            scratch_free(&w);
        }
    fast_scratch_give(st.kt); fast_scratch_give(st.vp); free(st.finite);
    fast_scratch_give(st.row_max);
    return failed ? MHA_ERR_NOMEM : MHA_OK;
}
/* <<[[blocked.c]] functions>> */
mha_status mha_forward_blocked(const mha_shape *shape, const mha_params *params,
                               const float *query, const float *key,
                               const float *value, const mha_mask *mask,
                               float *out, float *weights)
{
    mha_status status = mha_forward_check(shape, params, query, &key, &value, out);
    if (status != MHA_OK)
        return status;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    const fast_kernels *k = fast_kernels_select();
    const fast_blocking blk = fast_blocking_for(k, D);
    const int self = key == query && value == key;
    float *proj = fast_scratch_take(B * (L > S ? L : S) * 3 * E * sizeof *proj);  /* as batched */
    float *concat = fast_scratch_take(B * L * E * sizeof *concat);               /* (B, L, E) */
    if (!proj || !concat) {
        fast_scratch_give(proj); fast_scratch_give(concat);
        return MHA_ERR_NOMEM;
    }
    /* <<project the inputs with the fast product into [[proj]]>> */
    const float *W = params->in_proj_weight, *bias = params->in_proj_bias;
    float *qp = proj, *kp = proj + E, *vp = proj + 2 * E;     /* self: (B, L, 3E) */
    size_t ldq = 3 * E, ldkv = 3 * E;
    const fast_stage in = FAST_STAGE_PROJECT_IN;
    if (self) {
        status = project(k, &blk, in, B * L, query, E, W, 3 * E, E, bias, proj, 3 * E);
    } else {
        kp = proj + B * L * E; vp = kp + E; ldq = E; ldkv = 2 * E;   /* (B, L, E), (B, S, 2E) */
        status = project(k, &blk, in, B * L, query, E, W, E, E, bias, qp, E);
        if (status == MHA_OK)
            status = project(k, &blk, in, B * S, key, E, W + E * E, E, E, bias ? bias + E : NULL,
                             kp, 2 * E);
        if (status == MHA_OK)
            status = project(k, &blk, in, B * S, value, E, W + 2 * E * E, E, E,
                             bias ? bias + 2 * E : NULL, vp, 2 * E);
    }
    if (status == MHA_OK)
        /* <<run the fused core on the projections into [[concat]]>> */
        {
            const fast_attention a = {B, H, L, S, D, qp, kp, vp, ldq, ldkv, ldkv, mask, concat, weights};
            fast_stage_mark(FAST_STAGE_ATTEND);
            status = fast_attend(k, &blk, &a, NULL);
        }
    if (status == MHA_OK)
        status = project(k, &blk, FAST_STAGE_PROJECT_OUT, B * L, concat, E,
                         params->out_proj_weight, E, E, params->out_proj_bias, out, E);
    fast_stage_mark(FAST_STAGE_OUTSIDE);
    if (status == MHA_OK)
        status = mha_forward_range(shape, params, query, key, value, mask, out);
    fast_scratch_give(proj); fast_scratch_give(concat);
    return status;
}
/* <<[[blocked.c]] functions>> */
static mha_status project(const fast_kernels *k, const fast_blocking *blk, fast_stage stage,
                          size_t M, const float *X, size_t ldx, const float *Wrows, size_t N,
                          size_t K, const float *bias, float *C, size_t ldc)
{
    fast_packed packed;
    fast_stage_mark(FAST_STAGE_PACK);
    mha_status status = fast_pack(k, blk, N, K, Wrows, K, &packed);
    if (status != MHA_OK)
        return status;
    fast_stage_mark(stage);
    status = fast_product(k, blk, M, X, ldx, &packed, bias, C, ldc);
    fast_packed_free(&packed);
    return status;
}
