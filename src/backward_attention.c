/* generated from chapters/08-fast-attention.nw, chapters/09-fast-backward.nw; edit the book, not this file */
/* The blocked backward pass, the second version of the layer's gradients:
     naive    per-sequence loops, P stored, the reference for every test
     blocked  the forward pass keeps each row's log-sum-exp; two sweeps of
              tiles recompute the weights: key tiles outside for dK and dV,
              query tiles outside for dQ; OpenMP threads over tiles
   Run:      build/mha bench --backward --batch 4 --seq 512 --dim 512 --heads 8
   Measured: make bench writes figures/bench-backward.tex (against PyTorch's
             autograd). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "fast_backward.h"

/* <<[[backward_attention.c]] packed heads>> */
typedef struct heads_packed {
    size_t B, H, L, S, D, Dp, Lp, Sp, t;   /* t: queries and keys per tile */
    float *q, *grad;                       /* (B H, Lp, Dp): q and dC, zero-padded */
    float *qt, *grad_t;                    /* (B H, D, Lp): the same, transposed */
    float *k, *v;                          /* (B H, Sp, Dp) */
    float *kt, *vt;                        /* (B H, D, Sp) */
    float *shift, *log_sum, *delta;        /* (B H, Lp): m (+inf if masked), log l, delta */
    float *memory;
} heads_packed;

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }
static size_t tile_for(const fast_kernels *k, size_t longest)
{
    return round_up(longest < 64 ? longest : 64, k->width);
}
/* <<[[backward_attention.c]] packed heads>> */
static mha_status packed_init(heads_packed *p, const fast_kernels *k, size_t B, size_t H,
                              size_t L, size_t S, size_t D)
{
    memset(p, 0, sizeof *p);
    const size_t longest = L > S ? L : S;
    p->B = B; p->H = H; p->L = L; p->S = S; p->D = D;
    p->Dp = round_up(D, k->width);
    p->t = tile_for(k, longest);
    p->Lp = round_up(L, p->t);
    p->Sp = round_up(S, p->t);
    const size_t per_q = p->Lp * (p->Dp + D), per_k = p->Sp * (p->Dp + D);
    const size_t per_head = 2 * per_q + 2 * per_k + 3 * p->Lp;
    size_t n;
    if (mha_mul_overflows(B * H, per_head, &n))
        return MHA_ERR_OVERFLOW;
    if ((p->memory = fast_scratch_take(n * sizeof(float))) == NULL)
        return MHA_ERR_NOMEM;
    /* <<cut [[p->memory]] into the packed copies>> */
    float *at = p->memory;
    const size_t heads = B * H;
    p->q = at; at += heads * p->Lp * p->Dp;
    p->qt = at; at += heads * D * p->Lp;
    p->k = at; at += heads * p->Sp * p->Dp;
    p->kt = at; at += heads * D * p->Sp;
    p->v = at; at += heads * p->Sp * p->Dp;
    p->vt = at; at += heads * D * p->Sp;
    p->grad = at; at += heads * p->Lp * p->Dp;
    p->grad_t = at; at += heads * D * p->Lp;
    p->shift = at; at += heads * p->Lp;
    p->log_sum = at; at += heads * p->Lp;
    p->delta = at;
    return MHA_OK;
}
/* <<[[backward_attention.c]] packed heads>> */
/* x (n, D), row stride ld, into xp (np, Dp) and, unless NULL, xt (D, np), zero-padded */
static void pack_rows(size_t n, size_t np, size_t D, size_t Dp, const float *x, size_t ld,
                      float *xp, float *xt)
{
    for (size_t r = 0; r < np; r++) {                /* rows, then the padding rows */
        if (r < n)
            memcpy(xp + r * Dp, x + r * ld, D * sizeof *xp);
        memset(xp + r * Dp + (r < n ? D : 0), 0, (r < n ? Dp - D : Dp) * sizeof *xp);
    }
    for (size_t d = 0; xt && d < D; d++) {           /* columns, read from the copy */
        float *to = xt + d * np;
        for (size_t r = 0; r < np; r++)
            to[r] = xp[r * Dp + d];
    }
}
/* <<[[backward_attention.c]] packed heads>> */
static void pack_head(heads_packed *p, size_t bh, const float *q, size_t ldq, const float *k,
                      size_t ldk, const float *v, size_t ldv, const float *grad, size_t ldg)
{
    const size_t b = bh / p->H, h = bh % p->H, D = p->D, Dp = p->Dp, Lp = p->Lp, Sp = p->Sp;
    pack_rows(p->L, Lp, D, Dp, q + b * p->L * ldq + h * D, ldq, p->q + bh * Lp * Dp,
              p->qt + bh * D * Lp);
    pack_rows(p->S, Sp, D, Dp, k + b * p->S * ldk + h * D, ldk, p->k + bh * Sp * Dp,
              p->kt + bh * D * Sp);
    pack_rows(p->S, Sp, D, Dp, v + b * p->S * ldv + h * D, ldv, p->v + bh * Sp * Dp,
              p->vt + bh * D * Sp);
    pack_rows(p->L, Lp, D, Dp, grad + b * p->L * ldg + h * D, ldg, p->grad + bh * Lp * Dp,
              p->grad_t + bh * D * Lp);
}
/* <<[[backward_attention.c]] packed heads>> */
/* The kernel table for heads of width D and sequences up to longest: the
   chosen one, or AVX2 where it pads less. */
static const fast_kernels *core_kernels(const fast_kernels *k, size_t D, size_t longest)
{
#if defined(__x86_64__)
    const fast_kernels *narrow = &fast_kernels_avx2;
    const size_t tile = longest < 64 ? longest : 64;
    if (k == &fast_kernels_avx512 &&
        fast_kernels_supported(narrow) &&             /* GCOVR_EXCL_BR_LINE: without AVX2 */
        round_up(D, narrow->width) + round_up(tile, narrow->width) <
            round_up(D, k->width) + round_up(tile, k->width))
        return narrow;
#else
    (void)D; (void)longest;
#endif
    return k;
}
/* <<[[backward_attention.c]] masks>> */
/* Add the mask to s (t, t), the scores of queries i0.. and keys j0..;
   by_key: the tile's rows are keys (it holds the scores transposed). */
static void mask_tile(const heads_packed *p, const mha_mask *m, size_t b, size_t i0, size_t j0,
                      int by_key, float *s)
{
    const size_t t = p->t, L = p->L, S = p->S;
    const int elements = m && (m->attn_mask_bool || m->attn_mask_float || m->key_padding_mask);
    const int causal_alone = !elements && m && m->causal;
    if (!elements && i0 + t <= L && j0 + t <= S && !mha_key_masked(m, S, b, i0, j0 + t - 1))
        return;
    for (size_t a = 0; a < t; a++) {
        float *row = s + a * t;
        for (size_t c = 0; c < t; c++) {
            const size_t i = by_key ? i0 + c : i0 + a, j = by_key ? j0 + a : j0 + c;
            if (i >= L || j >= S || (causal_alone && j > i))     /* padding, or causal */
                row[c] = -INFINITY;
            else if (elements) {
                /* <<mask score [[row[c]]] of query [[i]] and key [[j]]>> */
                if (m && m->attn_mask_float)
                    row[c] += m->attn_mask_float[i * S + j];
                if (mha_key_masked(m, S, b, i, j))
                    row[c] = -INFINITY;
            }
        }
    }
}
/* <<[[backward_attention.c]] the forward pass>> */
mha_status fast_attend_lse(const fast_kernels *k, const fast_attention *a, float *lse)
{
    const size_t longest = a->L > a->S ? a->L : a->S;
    k = core_kernels(k, a->D, longest);
    const fast_blocking tiles = {.bq = tile_for(k, longest), .bk = tile_for(k, longest)};
    return fast_attend(k, &tiles, a, lse);
}
/* <<[[backward_attention.c]] the forward pass>> */
typedef struct tile_scratch {
    float *s, *dp;                 /* (t, t) */
    float *acc, *acc2;             /* (t, Dp) */
    float *memory;
} tile_scratch;

static int scratch_init(const heads_packed *p, tile_scratch *w)
{
    const size_t t = p->t;
    w->memory = malloc((2 * t * t + 2 * t * p->Dp) * sizeof(float));
    if (w->memory == NULL)
        return 0;
    w->s = w->memory; w->dp = w->s + t * t;
    w->acc = w->dp + t * t; w->acc2 = w->acc + t * p->Dp;
    return 1;
}
/* <<[[backward_attention.c]] the backward pass>> */
static void row_terms(heads_packed *p, const fast_attention_grad *g, size_t bh)
{
    const size_t b = bh / p->H, h = bh % p->H, E = p->H * p->D;
    float *shift = p->shift + bh * p->Lp, *log_sum = p->log_sum + bh * p->Lp;
    float *delta = p->delta + bh * p->Lp;
    for (size_t i = 0; i < p->Lp; i++) {
        if (i >= p->L) {
            shift[i] = INFINITY; log_sum[i] = 0.0f; delta[i] = 0.0f;
            continue;
        }
        const float m = g->lse[2 * (bh * p->L + i)];
        shift[i] = m == -INFINITY ? INFINITY : m;
        log_sum[i] = g->lse[2 * (bh * p->L + i) + 1];
        const float *o = g->context + (b * p->L + i) * E + h * p->D;
        const float *dout = g->grad_context + (b * p->L + i) * E + h * p->D;
        float sum = 0.0f;
        for (size_t d = 0; d < p->D; d++)
            sum += dout[d] * o[d];
        delta[i] = sum;
    }
}
/* <<[[backward_attention.c]] the backward pass>> */
static void softmax_grad(const fast_kernels *k, size_t t, const float *weights, float *dp,
                         const float *delta, int by_key, float scale)
{
    for (size_t a = 0; a < t; a++)
        k->softmax_grad(dp + a * t, weights + a * t, t, by_key ? delta : delta + a,
                        by_key ? 1 : 0, scale);
}

static void write_rows(size_t n, size_t D, size_t Dp, const float *acc, float *out, size_t ld)
{
    for (size_t r = 0; r < n; r++)
        memcpy(out + r * ld, acc + r * Dp, D * sizeof *out);
}
/* <<[[backward_attention.c]] the backward pass>> */
static void key_tile(const fast_kernels *k, const heads_packed *p, const fast_attention_grad *g,
                     size_t bh, size_t j0, tile_scratch *w, float *dq)
{
    const size_t t = p->t, D = p->D, Dp = p->Dp, Lp = p->Lp, b = bh / p->H, h = bh % p->H;
    const size_t nk = p->S - j0 < t ? p->S - j0 : t;
    const float scale = 1.0f / sqrtf((float)D);
    const float *shift = p->shift + bh * Lp, *log_sum = p->log_sum + bh * Lp;
    const float *delta = p->delta + bh * Lp;
    const float *keys = p->k + (bh * p->Sp + j0) * Dp, *values = p->v + (bh * p->Sp + j0) * Dp;
    memset(w->acc, 0, t * Dp * sizeof *w->acc);          /* dK (t, Dp) */
    memset(w->acc2, 0, t * Dp * sizeof *w->acc2);        /* dV (t, Dp) */
    const size_t start = g->mask && g->mask->causal ? j0 : 0;
    for (size_t i0 = start; i0 < p->L; i0 += t) {
        /* <<make [[w->s]] the weights $P^{\mathsf T}$ of keys [[j0..]] and queries [[i0..]]>> */
        k->scores(t, t, D, keys, Dp, p->qt + bh * D * Lp + i0, Lp, scale, w->s, t);
        mask_tile(p, g->mask, b, i0, j0, 1, w->s);
        for (size_t a = 0; a < t; a++)
            k->exp_shifted(w->s + a * t, t, shift + i0, log_sum + i0, 1);
        k->scores(t, t, D, values, Dp, p->grad_t + bh * D * Lp + i0, Lp, 1.0f, w->dp, t);
        k->pv(t, t, Dp, w->s, t, p->grad + (bh * Lp + i0) * Dp, Dp, w->acc2, Dp);  /* dV */
        softmax_grad(k, t, w->s, w->dp, delta + i0, 1, scale);
        k->pv(t, t, Dp, w->dp, t, p->q + (bh * Lp + i0) * Dp, Dp, w->acc, Dp);     /* dK */
        if (dq)                                          /* dQ_I += (s dZ^T)^T K_J */
            k->direct(t, Dp, t, w->dp, 1, t, keys, Dp, dq + i0 * Dp, Dp);
    }
    write_rows(nk, D, Dp, w->acc, g->grad_k + (b * p->S + j0) * g->ldgk + h * D, g->ldgk);
    write_rows(nk, D, Dp, w->acc2, g->grad_v + (b * p->S + j0) * g->ldgv + h * D, g->ldgv);
}
/* <<[[backward_attention.c]] the backward pass>> */
static void query_tile(const fast_kernels *k, const heads_packed *p,
                       const fast_attention_grad *g, size_t bh, size_t i0, tile_scratch *w)
{
    const size_t t = p->t, D = p->D, Dp = p->Dp, Sp = p->Sp, b = bh / p->H, h = bh % p->H;
    const size_t nq = p->L - i0 < t ? p->L - i0 : t;
    const float scale = 1.0f / sqrtf((float)D);
    const float *shift = p->shift + bh * p->Lp + i0, *log_sum = p->log_sum + bh * p->Lp + i0;
    const float *delta = p->delta + bh * p->Lp + i0;
    const float *q = p->q + (bh * p->Lp + i0) * Dp, *grad = p->grad + (bh * p->Lp + i0) * Dp;
    const int causal = g->mask && g->mask->causal;
    const size_t end = causal && i0 + nq < p->S ? i0 + nq : p->S;
    memset(w->acc, 0, t * Dp * sizeof *w->acc);
    for (size_t j0 = 0; j0 < end; j0 += t) {
        k->scores(t, t, D, q, Dp, p->kt + bh * D * Sp + j0, Sp, scale, w->s, t);
        mask_tile(p, g->mask, b, i0, j0, 0, w->s);
        for (size_t r = 0; r < t; r++)
            k->exp_shifted(w->s + r * t, t, shift + r, log_sum + r, 0);
        k->scores(t, t, D, grad, Dp, p->vt + bh * D * Sp + j0, Sp, 1.0f, w->dp, t);
        softmax_grad(k, t, w->s, w->dp, delta, 0, scale);
        k->pv(t, t, Dp, w->dp, t, p->k + (bh * Sp + j0) * Dp, Dp, w->acc, Dp);
    }
    write_rows(nq, D, Dp, w->acc, g->grad_q + (b * p->L + i0) * g->ldgq + h * D, g->ldgq);
}
/* <<[[backward_attention.c]] the backward pass>> */
static void head_sweep(const fast_kernels *k, const heads_packed *p,
                       const fast_attention_grad *g, size_t bh, tile_scratch *w, float *dq)
{
    const size_t b = bh / p->H, h = bh % p->H;
    memset(dq, 0, p->Lp * p->Dp * sizeof *dq);
    for (size_t j0 = 0; j0 < p->S; j0 += p->t)
        key_tile(k, p, g, bh, j0, w, dq);
    write_rows(p->L, p->D, p->Dp, dq, g->grad_q + b * p->L * g->ldgq + h * p->D, g->ldgq);
}
/* <<[[backward_attention.c]] the backward pass>> */
mha_status fast_attend_backward(const fast_kernels *k, const fast_attention_grad *g)
{
    k = core_kernels(k, g->D, g->L > g->S ? g->L : g->S);
    heads_packed p;
    mha_status status = packed_init(&p, k, g->B, g->H, g->L, g->S, g->D);
    if (status != MHA_OK)
        return status;
    const size_t heads = g->B * g->H, key_tiles = p.Sp / p.t, query_tiles = p.Lp / p.t;
    #pragma omp parallel for schedule(static)
    for (size_t bh = 0; bh < heads; bh++) {
        pack_head(&p, bh, g->q, g->ldq, g->k, g->ldk, g->v, g->ldv, g->grad_context,
                  g->H * g->D);
        row_terms(&p, g, bh);
    }
    const int by_head = key_tiles == 1 || heads >= 4 * (size_t)omp_get_max_threads();
    int failed = 0;
    #pragma omp parallel reduction(|:failed)
    {
        tile_scratch w;
        float *dq = by_head ? malloc(p.Lp * p.Dp * sizeof *dq) : NULL;
        failed = !scratch_init(&p, &w) || (by_head && dq == NULL);
        /* <<run both sweeps on this thread's share of the items>> */
        #pragma omp for schedule(dynamic)
        for (size_t bh = 0; bh < (by_head ? heads : 0); bh++)
            if (!failed)
                head_sweep(k, &p, g, bh, &w, dq);
        #pragma omp for schedule(dynamic)
        for (size_t item = 0; item < (by_head ? 0 : heads * key_tiles); item++)
            if (!failed)
                key_tile(k, &p, g, item / key_tiles, item % key_tiles * p.t, &w, NULL);
        #pragma omp for schedule(dynamic)
        for (size_t item = 0; item < (by_head ? 0 : heads * query_tiles); item++)
            if (!failed)
                query_tile(k, &p, g, item / query_tiles, item % query_tiles * p.t, &w);
        free(w.memory); free(dq);
    }
    fast_scratch_give(p.memory);
    return failed ? MHA_ERR_NOMEM : MHA_OK;
}
