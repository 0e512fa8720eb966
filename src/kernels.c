/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw, chapters/09-fast-backward.nw, chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fast.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define UNROLL _Pragma("GCC unroll 16")

#define ISA(name) name##_scalar
#define ISA_NAME "scalar"
#define TARGET
#define VEC float
#define W 1
#define GMR 4
#define GNV 4
#define ANV 4
#define VLOAD(p) (*(p))
#define VSTORE(p, x) (*(p) = (x))
#define VSET1(x) (x)
#define VZERO() 0.0f
#define VADD(a, b) ((a) + (b))
#define VMUL(a, b) ((a) * (b))
#define VFMA(a, b, c) ((a) * (b) + (c))
#define VMAX(a, b) ((a) > (b) ? (a) : (b))      /* NaN in b passes through */
#define VMIN(a, b) ((a) < (b) ? (a) : (b))
#define VHMAX(x) (x)
#define VHSUM(x) (x)
#define VROUND(x) nearbyintf(x)
#define VPOW2I(n) pow2i_scalar(n)
#define VKEEP_NOT_BELOW(x, lo, y) ((x) < (lo) ? 0.0f : (y))
static __attribute__((unused)) float pow2i_scalar(float n)
{
    if (n != n)
        return n;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
static TARGET void ISA(gemm)(size_t K, const float *Ap, const float *Bp, float *C, size_t ldc)
{
    VEC acc[GMR][GNV];
    UNROLL for (int r = 0; r < GMR; r++) {
        __builtin_prefetch(C + r * ldc, 1);
        __builtin_prefetch(C + r * ldc + GNV * W - 1, 1);
        UNROLL for (int v = 0; v < GNV; v++)
            acc[r][v] = VZERO();
    }
    for (size_t k = 0; k < K; k++) {
        VEC b[GNV];
        UNROLL for (int v = 0; v < GNV; v++)
            b[v] = VLOAD(Bp + k * GNV * W + v * W);
        UNROLL for (int r = 0; r < GMR; r++) {
            const VEC a = VSET1(Ap[k * GMR + r]);
            UNROLL for (int v = 0; v < GNV; v++)
                acc[r][v] = VFMA(a, b[v], acc[r][v]);
        }
    }
    UNROLL for (int r = 0; r < GMR; r++)
        UNROLL for (int v = 0; v < GNV; v++)
            VSTORE(C + r * ldc + v * W, VADD(VLOAD(C + r * ldc + v * W), acc[r][v]));
}
static TARGET float ISA(dot)(const float *x, const float *y, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++)
            acc[u] = VFMA(VLOAD(x + i + u * W), VLOAD(y + i + u * W), acc[u]);
    for (; i + W <= n; i += W)
        acc[0] = VFMA(VLOAD(x + i), VLOAD(y + i), acc[0]);
    float s = VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
    for (; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static TARGET void ISA(axpy)(float a, const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + W <= n; i += W)
        VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
    for (; i < n; i++)
        y[i] += a * x[i];
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_block)(int nv, size_t K, const float *a, size_t rs, size_t cs, const float *b,
                  size_t ldb, float *c, size_t ldc)
{
    VEC acc[4][ANV];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VLOAD(c + i * ldc + u * W);
    for (size_t k = 0; k < K; k++) {
        VEC row[ANV];
        UNROLL for (int u = 0; u < nv; u++) row[u] = VLOAD(b + k * ldb + u * W);
        UNROLL for (int i = 0; i < 4; i++) {
            const VEC x = VSET1(a[i * rs + k * cs]);
            UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VFMA(x, row[u], acc[i][u]);
        }
    }
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) VSTORE(c + i * ldc + u * W, acc[i][u]);
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_rows)(size_t rows, size_t cols, size_t K, const float *a, size_t rs, size_t cs,
                 const float *b, size_t ldb, float *c, size_t ldc)
{
    for (size_t i = 0; i < rows; i += 4) {
        size_t j = 0;
        for (; j + ANV * W <= cols; j += ANV * W)
            ISA(direct_block)(ANV, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; ANV > 2 && j + 2 * W <= cols; j += 2 * W)
            ISA(direct_block)(2, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j + W <= cols; j += W)
            ISA(direct_block)(1, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j < cols; j++)                           /* the last columns, one sum each */
            for (size_t r = i; r < i + 4; r++) {
                float sum = c[r * ldc + j];
                for (size_t k = 0; k < K; k++)
                    sum += a[r * rs + k * cs] * b[k * ldb + j];
                c[r * ldc + j] = sum;
            }
    }
}
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc)
{
    if (cs == 1)                        /* the common case, with its stride a constant */
        ISA(direct_rows)(rows, cols, K, a, rs, 1, b, ldb, c, ldc);
    else
        ISA(direct_rows)(rows, cols, K, a, rs, cs, b, ldb, c, ldc);
}
static TARGET double ISA(fma_loop)(size_t n)
{
    VEC acc[16];
    UNROLL for (int u = 0; u < 16; u++) acc[u] = VSET1((float)u * 1e-3f);
    const VEC a = VSET1(0.999999f), b = VSET1(1e-6f);
    for (size_t i = 0; i < n; i++)
        UNROLL for (int u = 0; u < 16; u++) acc[u] = VFMA(acc[u], a, b);
    VEC sum = VZERO();
    UNROLL for (int u = 0; u < 16; u++) sum = VADD(sum, acc[u]);
    volatile float sink = VHSUM(sum);
    (void)sink;
    return 2.0 * 16.0 * W * (double)n;
}
static TARGET float ISA(stream_sum)(const float *x, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    for (size_t i = 0; i < n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++) acc[u] = VADD(acc[u], VLOAD(x + i + u * W));
    return VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n);
TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift);
TARGET void ISA(fast_scale)(float *x, size_t n, float a);
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds);
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda);
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds);
TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda);
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc);
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step);
TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale);
const fast_kernels ISA(fast_kernels) = {
    ISA_NAME, GMR, GNV * W, ANV * W, ISA(gemm), ISA(fast_scores), ISA(fast_pv),
    ISA(fast_row_max), ISA(fast_exp_sum), ISA(fast_scale), ISA(dot), ISA(axpy),
    ISA(fma_loop), ISA(stream_sum), ISA(fast_key_dots), ISA(fast_weighted_rows),
    ISA(direct), ISA(fast_exp_shifted), ISA(fast_softmax_grad),
};
#undef ISA
#undef ISA_NAME
#undef TARGET
#undef VEC
#undef W
#undef GMR
#undef GNV
#undef ANV
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VZERO
#undef VADD
#undef VMUL
#undef VFMA
#undef VMAX
#undef VMIN
#undef VHMAX
#undef VHSUM
#undef VROUND
#undef VPOW2I
#undef VKEEP_NOT_BELOW
#if defined(__x86_64__)
#define ISA(name) name##_avx2
#define ISA_NAME "avx2"
#define TARGET __attribute__((target("avx2,fma")))
#define VEC __m256
#define W 8
#define GMR 6
#define GNV 2
#define ANV 2
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, x) _mm256_storeu_ps(p, x)
#define VSET1(x) _mm256_set1_ps(x)
#define VZERO() _mm256_setzero_ps()
#define VADD(a, b) _mm256_add_ps(a, b)
#define VMUL(a, b) _mm256_mul_ps(a, b)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VMAX(a, b) _mm256_max_ps(a, b)
#define VMIN(a, b) _mm256_min_ps(a, b)
#define VHMAX(x) hmax_avx2(x)
#define VHSUM(x) hsum_avx2(x)
#define VROUND(x) _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VPOW2I(n) _mm256_castsi256_ps(_mm256_slli_epi32( \
        _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23))
#define VKEEP_NOT_BELOW(x, lo, y) _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_NLT_UQ), y)
static __attribute__((unused)) TARGET float hsum_avx2(__m256 x)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

static __attribute__((unused)) TARGET float hmax_avx2(__m256 x)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
static TARGET void ISA(gemm)(size_t K, const float *Ap, const float *Bp, float *C, size_t ldc)
{
    VEC acc[GMR][GNV];
    UNROLL for (int r = 0; r < GMR; r++) {
        __builtin_prefetch(C + r * ldc, 1);
        __builtin_prefetch(C + r * ldc + GNV * W - 1, 1);
        UNROLL for (int v = 0; v < GNV; v++)
            acc[r][v] = VZERO();
    }
    for (size_t k = 0; k < K; k++) {
        VEC b[GNV];
        UNROLL for (int v = 0; v < GNV; v++)
            b[v] = VLOAD(Bp + k * GNV * W + v * W);
        UNROLL for (int r = 0; r < GMR; r++) {
            const VEC a = VSET1(Ap[k * GMR + r]);
            UNROLL for (int v = 0; v < GNV; v++)
                acc[r][v] = VFMA(a, b[v], acc[r][v]);
        }
    }
    UNROLL for (int r = 0; r < GMR; r++)
        UNROLL for (int v = 0; v < GNV; v++)
            VSTORE(C + r * ldc + v * W, VADD(VLOAD(C + r * ldc + v * W), acc[r][v]));
}
static TARGET float ISA(dot)(const float *x, const float *y, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++)
            acc[u] = VFMA(VLOAD(x + i + u * W), VLOAD(y + i + u * W), acc[u]);
    for (; i + W <= n; i += W)
        acc[0] = VFMA(VLOAD(x + i), VLOAD(y + i), acc[0]);
    float s = VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
    for (; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static TARGET void ISA(axpy)(float a, const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + W <= n; i += W)
        VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
    for (; i < n; i++)
        y[i] += a * x[i];
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_block)(int nv, size_t K, const float *a, size_t rs, size_t cs, const float *b,
                  size_t ldb, float *c, size_t ldc)
{
    VEC acc[4][ANV];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VLOAD(c + i * ldc + u * W);
    for (size_t k = 0; k < K; k++) {
        VEC row[ANV];
        UNROLL for (int u = 0; u < nv; u++) row[u] = VLOAD(b + k * ldb + u * W);
        UNROLL for (int i = 0; i < 4; i++) {
            const VEC x = VSET1(a[i * rs + k * cs]);
            UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VFMA(x, row[u], acc[i][u]);
        }
    }
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) VSTORE(c + i * ldc + u * W, acc[i][u]);
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_rows)(size_t rows, size_t cols, size_t K, const float *a, size_t rs, size_t cs,
                 const float *b, size_t ldb, float *c, size_t ldc)
{
    for (size_t i = 0; i < rows; i += 4) {
        size_t j = 0;
        for (; j + ANV * W <= cols; j += ANV * W)
            ISA(direct_block)(ANV, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; ANV > 2 && j + 2 * W <= cols; j += 2 * W)
            ISA(direct_block)(2, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j + W <= cols; j += W)
            ISA(direct_block)(1, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j < cols; j++)                           /* the last columns, one sum each */
            for (size_t r = i; r < i + 4; r++) {
                float sum = c[r * ldc + j];
                for (size_t k = 0; k < K; k++)
                    sum += a[r * rs + k * cs] * b[k * ldb + j];
                c[r * ldc + j] = sum;
            }
    }
}
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc)
{
    if (cs == 1)                        /* the common case, with its stride a constant */
        ISA(direct_rows)(rows, cols, K, a, rs, 1, b, ldb, c, ldc);
    else
        ISA(direct_rows)(rows, cols, K, a, rs, cs, b, ldb, c, ldc);
}
static TARGET double ISA(fma_loop)(size_t n)
{
    VEC acc[16];
    UNROLL for (int u = 0; u < 16; u++) acc[u] = VSET1((float)u * 1e-3f);
    const VEC a = VSET1(0.999999f), b = VSET1(1e-6f);
    for (size_t i = 0; i < n; i++)
        UNROLL for (int u = 0; u < 16; u++) acc[u] = VFMA(acc[u], a, b);
    VEC sum = VZERO();
    UNROLL for (int u = 0; u < 16; u++) sum = VADD(sum, acc[u]);
    volatile float sink = VHSUM(sum);
    (void)sink;
    return 2.0 * 16.0 * W * (double)n;
}
static TARGET float ISA(stream_sum)(const float *x, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    for (size_t i = 0; i < n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++) acc[u] = VADD(acc[u], VLOAD(x + i + u * W));
    return VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n);
TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift);
TARGET void ISA(fast_scale)(float *x, size_t n, float a);
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds);
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda);
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds);
TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda);
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc);
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step);
TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale);
const fast_kernels ISA(fast_kernels) = {
    ISA_NAME, GMR, GNV * W, ANV * W, ISA(gemm), ISA(fast_scores), ISA(fast_pv),
    ISA(fast_row_max), ISA(fast_exp_sum), ISA(fast_scale), ISA(dot), ISA(axpy),
    ISA(fma_loop), ISA(stream_sum), ISA(fast_key_dots), ISA(fast_weighted_rows),
    ISA(direct), ISA(fast_exp_shifted), ISA(fast_softmax_grad),
};
#undef ISA
#undef ISA_NAME
#undef TARGET
#undef VEC
#undef W
#undef GMR
#undef GNV
#undef ANV
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VZERO
#undef VADD
#undef VMUL
#undef VFMA
#undef VMAX
#undef VMIN
#undef VHMAX
#undef VHSUM
#undef VROUND
#undef VPOW2I
#undef VKEEP_NOT_BELOW
#define ISA(name) name##_avx512
#define ISA_NAME "avx512"
#define TARGET __attribute__((target("avx512f")))
#define VEC __m512
#define W 16
#define GMR 14
#define GNV 2
#define ANV 4
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, x) _mm512_storeu_ps(p, x)
#define VSET1(x) _mm512_set1_ps(x)
#define VZERO() _mm512_setzero_ps()
#define VADD(a, b) _mm512_add_ps(a, b)
#define VMUL(a, b) _mm512_mul_ps(a, b)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VMAX(a, b) _mm512_max_ps(a, b)
#define VMIN(a, b) _mm512_min_ps(a, b)
#define VHMAX(x) _mm512_reduce_max_ps(x)
#define VHSUM(x) _mm512_reduce_add_ps(x)
#define VROUND(x) _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VPOW2I(n) _mm512_castsi512_ps(_mm512_slli_epi32( \
        _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23))
#define VKEEP_NOT_BELOW(x, lo, y) _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), y)
static TARGET void ISA(gemm)(size_t K, const float *Ap, const float *Bp, float *C, size_t ldc)
{
    VEC acc[GMR][GNV];
    UNROLL for (int r = 0; r < GMR; r++) {
        __builtin_prefetch(C + r * ldc, 1);
        __builtin_prefetch(C + r * ldc + GNV * W - 1, 1);
        UNROLL for (int v = 0; v < GNV; v++)
            acc[r][v] = VZERO();
    }
    for (size_t k = 0; k < K; k++) {
        VEC b[GNV];
        UNROLL for (int v = 0; v < GNV; v++)
            b[v] = VLOAD(Bp + k * GNV * W + v * W);
        UNROLL for (int r = 0; r < GMR; r++) {
            const VEC a = VSET1(Ap[k * GMR + r]);
            UNROLL for (int v = 0; v < GNV; v++)
                acc[r][v] = VFMA(a, b[v], acc[r][v]);
        }
    }
    UNROLL for (int r = 0; r < GMR; r++)
        UNROLL for (int v = 0; v < GNV; v++)
            VSTORE(C + r * ldc + v * W, VADD(VLOAD(C + r * ldc + v * W), acc[r][v]));
}
static TARGET float ISA(dot)(const float *x, const float *y, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++)
            acc[u] = VFMA(VLOAD(x + i + u * W), VLOAD(y + i + u * W), acc[u]);
    for (; i + W <= n; i += W)
        acc[0] = VFMA(VLOAD(x + i), VLOAD(y + i), acc[0]);
    float s = VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
    for (; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static TARGET void ISA(axpy)(float a, const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + W <= n; i += W)
        VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
    for (; i < n; i++)
        y[i] += a * x[i];
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_block)(int nv, size_t K, const float *a, size_t rs, size_t cs, const float *b,
                  size_t ldb, float *c, size_t ldc)
{
    VEC acc[4][ANV];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VLOAD(c + i * ldc + u * W);
    for (size_t k = 0; k < K; k++) {
        VEC row[ANV];
        UNROLL for (int u = 0; u < nv; u++) row[u] = VLOAD(b + k * ldb + u * W);
        UNROLL for (int i = 0; i < 4; i++) {
            const VEC x = VSET1(a[i * rs + k * cs]);
            UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VFMA(x, row[u], acc[i][u]);
        }
    }
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) VSTORE(c + i * ldc + u * W, acc[i][u]);
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_rows)(size_t rows, size_t cols, size_t K, const float *a, size_t rs, size_t cs,
                 const float *b, size_t ldb, float *c, size_t ldc)
{
    for (size_t i = 0; i < rows; i += 4) {
        size_t j = 0;
        for (; j + ANV * W <= cols; j += ANV * W)
            ISA(direct_block)(ANV, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; ANV > 2 && j + 2 * W <= cols; j += 2 * W)
            ISA(direct_block)(2, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j + W <= cols; j += W)
            ISA(direct_block)(1, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j < cols; j++)                           /* the last columns, one sum each */
            for (size_t r = i; r < i + 4; r++) {
                float sum = c[r * ldc + j];
                for (size_t k = 0; k < K; k++)
                    sum += a[r * rs + k * cs] * b[k * ldb + j];
                c[r * ldc + j] = sum;
            }
    }
}
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc)
{
    if (cs == 1)                        /* the common case, with its stride a constant */
        ISA(direct_rows)(rows, cols, K, a, rs, 1, b, ldb, c, ldc);
    else
        ISA(direct_rows)(rows, cols, K, a, rs, cs, b, ldb, c, ldc);
}
static TARGET double ISA(fma_loop)(size_t n)
{
    VEC acc[16];
    UNROLL for (int u = 0; u < 16; u++) acc[u] = VSET1((float)u * 1e-3f);
    const VEC a = VSET1(0.999999f), b = VSET1(1e-6f);
    for (size_t i = 0; i < n; i++)
        UNROLL for (int u = 0; u < 16; u++) acc[u] = VFMA(acc[u], a, b);
    VEC sum = VZERO();
    UNROLL for (int u = 0; u < 16; u++) sum = VADD(sum, acc[u]);
    volatile float sink = VHSUM(sum);
    (void)sink;
    return 2.0 * 16.0 * W * (double)n;
}
static TARGET float ISA(stream_sum)(const float *x, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    for (size_t i = 0; i < n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++) acc[u] = VADD(acc[u], VLOAD(x + i + u * W));
    return VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n);
TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift);
TARGET void ISA(fast_scale)(float *x, size_t n, float a);
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds);
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda);
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds);
TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda);
TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                        size_t cs, const float *b, size_t ldb, float *c, size_t ldc);
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step);
TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale);
const fast_kernels ISA(fast_kernels) = {
    ISA_NAME, GMR, GNV * W, ANV * W, ISA(gemm), ISA(fast_scores), ISA(fast_pv),
    ISA(fast_row_max), ISA(fast_exp_sum), ISA(fast_scale), ISA(dot), ISA(axpy),
    ISA(fma_loop), ISA(stream_sum), ISA(fast_key_dots), ISA(fast_weighted_rows),
    ISA(direct), ISA(fast_exp_shifted), ISA(fast_softmax_grad),
};
#undef ISA
#undef ISA_NAME
#undef TARGET
#undef VEC
#undef W
#undef GMR
#undef GNV
#undef ANV
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VZERO
#undef VADD
#undef VMUL
#undef VFMA
#undef VMAX
#undef VMIN
#undef VHMAX
#undef VHSUM
#undef VROUND
#undef VPOW2I
#undef VKEEP_NOT_BELOW
#endif
