/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "fast.h"

/* <<[[product_packed.c]] functions>> */
static size_t cache_bytes(int name, size_t fallback)
{
    long v = sysconf(name);
    return v > 4096 ? (size_t)v : fallback;
}

fast_blocking fast_blocking_for(const fast_kernels *k, size_t head_dim)
{
    fast_blocking b;
    b.l1 = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 48 * 1024);
    b.l2 = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 2 * 1024 * 1024);
    b.kc = b.l1 / (k->nr * sizeof(float)) / 16 * 16;
    b.kc = b.kc < 64 ? 64 : b.kc > 1024 ? 1024 : b.kc;
    b.mc = b.l2 / 2 / (b.kc * sizeof(float)) / k->mr * k->mr;
    b.mc = b.mc < k->mr ? k->mr : b.mc;
    /* <<choose the attention tiles [[b.bq]] and [[b.bk]]>> */
    {
        const size_t width = k->width, dp = (head_dim + width - 1) / width * width;
        b.bk = 64 > width ? 64 : width;
        size_t bq = b.l1 / 2 / sizeof(float) / (head_dim + dp + b.bk) / 4 * 4;
        b.bq = bq < 4 ? 4 : bq > 128 ? 128 : bq;
    }
    return b;
}
/* <<[[product_packed.c]] functions>> */
mha_status fast_pack(const fast_kernels *k, const fast_blocking *b,
                     size_t N, size_t K, const float *W, size_t ldw, fast_packed *p)
{
    return fast_pack_strided(k, b, N, K, W, ldw, 1, p);
}

mha_status fast_pack_strided(const fast_kernels *k, const fast_blocking *b, size_t N,
                             size_t K, const float *W, size_t rs, size_t cs, fast_packed *p)
{
    const size_t nr = k->nr, panels = (N + nr - 1) / nr, kc = b->kc;
    size_t n, bytes;
    if (mha_mul_overflows(panels * nr, K, &n) || mha_mul_overflows(n ? n : 1, sizeof(float), &bytes))
        return MHA_ERR_OVERFLOW;
    *p = (fast_packed){N, K, kc, nr, panels, fast_scratch_take(bytes)};
    if (p->data == NULL)
        return MHA_ERR_NOMEM;
    if (N % nr != 0)                        /* the last panel's padding must be zero */
        memset(p->data, 0, bytes);
    if (cs != 1 && rs == 1) {               /* W transposed: runs of panels, by the kernel */
        const size_t runs = (size_t)omp_get_max_threads();
        #pragma omp parallel for schedule(static)
        for (size_t run = 0; run < runs; run++) {
            const size_t pa = panels * run / runs, pb = panels * (run + 1) / runs;
            const size_t ja = pa * nr, jb = pb * nr < N ? pb * nr : N;
            for (size_t k0 = 0; k0 < K && jb > ja; k0 += kc) {
                const size_t depth = K - k0 < kc ? K - k0 : kc;
                k->pack_cols(jb - ja, depth, W + ja + k0 * cs, cs,
                             p->data + k0 * panels * nr + pa * depth * nr, nr);
            }
        }
        return MHA_OK;
    }
    #pragma omp parallel for schedule(static)
    for (size_t pn = 0; pn < panels; pn++)
        for (size_t k0 = 0; k0 < K; k0 += kc) {
            const size_t depth = K - k0 < kc ? K - k0 : kc, j0 = pn * nr;
            const size_t cols = N - j0 < nr ? N - j0 : nr;
            float *dst = p->data + k0 * panels * nr + pn * depth * nr;
            if (cs == 1)                    /* rows of W: a transpose, by the kernel */
                k->pack_rows(cols, depth, W + j0 * rs + k0, rs, dst, nr);
            else                            /* neither stride 1: along each row of the panel */
                for (size_t kk = 0; kk < depth; kk++)
                    for (size_t jj = 0; jj < cols; jj++)
                        dst[kk * nr + jj] = W[(j0 + jj) * rs + (k0 + kk) * cs];
        }
    return MHA_OK;
}

void fast_packed_free(fast_packed *p)
{
    fast_scratch_give(p->data);
    p->data = NULL;
}
/* <<[[product_packed.c]] functions>> */
static inline __attribute__((always_inline)) void
pack_a(const fast_kernels *k, size_t rows, size_t depth, const float *A, size_t rs,
       size_t cs, float *Ap)
{
    const size_t mr = k->mr;
    if (cs != 1 && rs == 1) {                   /* A transposed: copies, all panels at once */
        k->pack_cols(rows, depth, A, cs, Ap, mr);
        return;
    }
    for (size_t i0 = 0; i0 < rows; i0 += mr) {
        float *panel = Ap + i0 * depth;
        const size_t n = rows - i0 < mr ? rows - i0 : mr;       /* rows of A in this panel */
        if (cs == 1) {                                          /* rows of A: a transpose */
            k->pack_rows(n, depth, A + i0 * rs, rs, panel, mr);
            continue;
        }
        for (size_t kk = 0; kk < depth; kk++) {
            for (size_t r = 0; r < n; r++)
                panel[kk * mr + r] = A[(i0 + r) * rs + kk * cs];
            for (size_t r = n; r < mr; r++)
                panel[kk * mr + r] = 0.0f;
        }
    }
}
/* <<[[product_packed.c]] functions>> */
static void kernel_at(const fast_kernels *k, size_t rows, size_t cols, size_t depth,
                      const float *Ap, const float *Bp, float *C, size_t ldc, float *tile,
                      const float *start)
{
    if (rows == k->mr && cols == k->nr) {
        k->product_tile(depth, Ap, Bp, C, ldc, start);
        return;
    }
    for (size_t r = 0; start == NULL && r < k->mr; r++)
        for (size_t c = 0; c < k->nr; c++)
            tile[r * k->nr + c] = (r < rows && c < cols) ? C[r * ldc + c] : 0.0f;
    k->product_tile(depth, Ap, Bp, tile, k->nr, start);
    for (size_t r = 0; r < rows; r++)
        memcpy(C + r * ldc, tile + r * k->nr, cols * sizeof *C);
}
/* <<[[product_packed.c]] functions>> */
mha_status fast_product(const fast_kernels *k, const fast_blocking *b, size_t M,
                        const float *A, size_t lda, const fast_packed *Wp,
                        const float *bias, float *C, size_t ldc)
{
    return fast_product_strided(k, b, M, A, lda, 1, Wp, bias, C, ldc);
}

mha_status fast_product_strided(const fast_kernels *k, const fast_blocking *b, size_t M,
                                const float *A, size_t rs, size_t cs, const fast_packed *Wp,
                                const float *bias, float *C, size_t ldc)
{
    const size_t N = Wp->N, K = Wp->K, kc = Wp->kc, mr = k->mr, nr = k->nr;
    const size_t threads = (size_t)omp_get_max_threads();
    size_t blocks = (M + b->mc - 1) / b->mc;
    blocks = (blocks + threads - 1) / threads * threads;       /* equal, a multiple of threads */
    const size_t mc = ((M + blocks - 1) / blocks + mr - 1) / mr * mr;
    const size_t row_blocks = (M + mc - 1) / mc;
    size_t panel_runs = (2 * threads + row_blocks - 1) / row_blocks;
    panel_runs = panel_runs > Wp->panels ? Wp->panels : panel_runs;
    const size_t run = (Wp->panels + panel_runs - 1) / panel_runs;
    const size_t deepest = K < kc ? K : kc;                    /* a K block's depth */
    int failed = 0;
    #pragma omp parallel reduction(|:failed)
    {
        float *Ap = malloc(((mc + mr) * deepest + mr * nr + nr) * sizeof *Ap);
        failed = Ap == NULL;
        #pragma omp for schedule(dynamic) collapse(2)
        for (size_t ib = 0; ib < row_blocks; ib++)
            for (size_t pr = 0; pr < panel_runs; pr++)
                /* <<compute rows [[ib]] and panel run [[pr]] of [[C]] with scratch [[Ap]]>> */
                {
                    const size_t i0 = ib * mc, rows = M - i0 < mc ? M - i0 : mc;
                    const size_t p0 = pr * run, p1 = p0 + run < Wp->panels ? p0 + run : Wp->panels;
                    float *tile = Ap + (mc + mr) * deepest, *start = tile + mr * nr;
                    const size_t j0 = p0 * nr, j1 = p1 * nr < N ? p1 * nr : N;
                    for (size_t i = i0; K == 0 && i < i0 + rows && j1 > j0; i++)   /* no depth: the bias */
                        if (bias != NULL)
                            memcpy(C + i * ldc + j0, bias + j0, (j1 - j0) * sizeof *C);
                        else
                            memset(C + i * ldc + j0, 0, (j1 - j0) * sizeof *C);
                    for (size_t k0 = 0; Ap != NULL && k0 < K; k0 += kc) {
                        const size_t depth = K - k0 < kc ? K - k0 : kc;
                        if (cs == 1)
                            pack_a(k, rows, depth, A + i0 * rs + k0, rs, 1, Ap);
                        else if (rs == 1)
                            pack_a(k, rows, depth, A + i0 + k0 * cs, 1, cs, Ap);
                        else
                            pack_a(k, rows, depth, A + i0 * rs + k0 * cs, rs, cs, Ap);
                        for (size_t p = p0; p < p1; p++) {
                            const float *Bp = Wp->data + k0 * Wp->panels * nr + p * depth * nr;
                            const size_t j = p * nr, cols = N - j < nr ? N - j : nr;
                            for (size_t c = 0; k0 == 0 && c < nr; c++)           /* C starts at the bias */
                                start[c] = bias != NULL && c < cols ? bias[j + c] : 0.0f;
                            for (size_t i = 0; i < rows; i += mr)
                                kernel_at(k, rows - i < mr ? rows - i : mr, cols, depth, Ap + i * depth,
                                          Bp, C + (i0 + i) * ldc + j, ldc, tile, k0 == 0 ? start : NULL);
                        }
                    }
                }
        free(Ap);
    }
    return failed ? MHA_ERR_NOMEM : MHA_OK;
}
/* <<[[product_packed.c]] functions>> */
/* Y (M, N) = X (M, K) W (N, K)^T + bias, one dot product per element. */
void fast_product_vector(const fast_kernels *k, size_t M, const float *X, size_t ldx,
                         const float *W, size_t N, size_t K, const float *bias, float *Y,
                         size_t ldy)
{
    #pragma omp parallel for schedule(static)
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < M; i++)
            Y[i * ldy + j] = (bias ? bias[j] : 0.0f) + k->dot(X + i * ldx, W + j * K, K);
}
/* <<[[product_packed.c]] functions>> */
void fast_product_direct(const fast_kernels *k, size_t M, size_t N, size_t K, const float *A,
                         size_t rs, size_t cs, const float *B, size_t ldb, const float *bias,
                         float *C, size_t ldc)
{
    const size_t blocks = M / 4;
    #pragma omp parallel for schedule(static) if (M * N * K >= (size_t)1 << 22)
    for (size_t ib = 0; ib <= blocks; ib++) {
        const size_t i0 = ib * 4, i1 = ib < blocks ? i0 + 4 : M;
        for (size_t i = i0; i < i1; i++)
            if (bias != NULL)
                memcpy(C + i * ldc, bias, N * sizeof *C);
            else
                memset(C + i * ldc, 0, N * sizeof *C);
        if (ib < blocks)
            k->direct(4, N, K, A + i0 * rs, rs, cs, B, ldb, C + i0 * ldc, ldc);
        for (size_t i = i0; ib == blocks && i < i1; i++)    /* the last rows, one sum each */
            for (size_t j = 0; j < N; j++) {
                float sum = C[i * ldc + j];
                for (size_t kk = 0; kk < K; kk++)
                    sum += A[i * rs + kk * cs] * B[kk * ldb + j];
                C[i * ldc + j] = sum;
            }
    }
}
