/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw, chapters/09-fast-backward.nw; edit the book, not this file */
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
static inline TARGET VEC ISA(vexp)(VEC x)
{
    const VEC lo = VSET1(-87.0f), hi = VSET1(88.0f);
    const VEC t = VMIN(hi, VMAX(lo, x));                 /* NaN stays NaN */
    const VEC n = VROUND(VMUL(t, VSET1(1.44269504088896341f)));
    VEC r = VFMA(n, VSET1(-0.693359375f), t);            /* exact: few bits */
    r = VFMA(n, VSET1(2.12194440e-4f), r);               /* the rest of ln 2 */
    VEC p = VSET1(1.9875691500e-4f);
    p = VFMA(p, r, VSET1(1.3981999507e-3f));
    p = VFMA(p, r, VSET1(8.3334519073e-3f));
    p = VFMA(p, r, VSET1(4.1665795894e-2f));
    p = VFMA(p, r, VSET1(1.6666665459e-1f));
    p = VFMA(p, r, VSET1(5.0000001201e-1f));
    const VEC y = VADD(VFMA(VMUL(p, r), r, r), VSET1(1.0f));   /* 1 + r + r^2 p(r) */
    return VKEEP_NOT_BELOW(x, lo, VMUL(y, VPOW2I(n)));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n)
{
    VEC m = VSET1(-INFINITY);
    for (size_t i = 0; i < n; i += W)
        m = VMAX(m, VLOAD(x + i));
    return VHMAX(m);
}

TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift)
{
    const VEC s = VSET1(shift);
    VEC sum = VZERO();
    for (size_t i = 0; i < n; i += W) {
        const VEC e = ISA(vexp)(VADD(VLOAD(x + i), VMUL(s, VSET1(-1.0f))));
        VSTORE(x + i, e);
        sum = VADD(sum, e);
    }
    return VHSUM(sum);
}

TARGET void ISA(fast_scale)(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i += W)
        VSTORE(x + i, VMUL(VLOAD(x + i), VSET1(a)));
}
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds)
{
    for (size_t r = 0; r < rows; r += 4)
        for (size_t c = 0; c < cols; c += ANV * W) {
            VEC acc[4][ANV];
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VZERO();
            for (size_t d = 0; d < D; d++) {
                VEC key[ANV];
                UNROLL for (int v = 0; v < ANV; v++) key[v] = VLOAD(kt + d * ldk + c + v * W);
                UNROLL for (int i = 0; i < 4; i++) {
                    const VEC a = VSET1(q[(r + i) * ldq + d]);
                    UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VFMA(a, key[v], acc[i][v]);
                }
            }
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++)
                    VSTORE(s + (r + i) * lds + c + v * W, VMUL(acc[i][v], VSET1(scale)));
        }
}
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda)
{
    ISA(direct)(rows, Dp, n, p, ldp, 1, v, ldv, acc, lda);
}
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        for (size_t j = 0; j < n; j++) {
            const float *key = keys + j * D;
            for (size_t e = 0; e < D; e += 64 / sizeof(float))    /* each line, 8 keys ahead */
                __builtin_prefetch(key + 8 * D + e);
            VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
            size_t d = 0;
            for (; d + W <= D; d += W) {
                const VEC k = VLOAD(key + d);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn) acc[h] = VFMA(VLOAD(q + (h0 + h) * ldq + d), k, acc[h]);
            }
            UNROLL for (size_t h = 0; h < 4; h++) {
                if (h >= hn) continue;
                const float *qh = q + (h0 + h) * ldq;
                float sum = VHSUM(acc[h]);
                for (size_t e = d; e < D; e++)
                    sum += qh[e] * key[e];
                s[(h0 + h) * lds + j] = sum * scale;
            }
        }
    }
}

TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4, p += 4 * ldp, acc += 4 * lda) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        size_t d = 0;
        for (; d + ANV * W <= D; d += ANV * W) {
            VEC a[4][ANV];
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    a[h][u] = h < hn ? VLOAD(acc + h * lda + d + u * W) : VZERO();
            for (size_t j = 0; j < n; j++) {
                VEC v[ANV];
                for (size_t e = 0; e < ANV * W; e += 64 / sizeof(float))   /* 8 rows ahead */
                    __builtin_prefetch(values + (j + 8) * D + d + e);
                UNROLL for (int u = 0; u < ANV; u++) v[u] = VLOAD(values + j * D + d + u * W);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn && p[h * ldp + j] != 0.0f) {
                        const VEC w = VSET1(p[h * ldp + j]);
                        UNROLL for (int u = 0; u < ANV; u++) a[h][u] = VFMA(w, v[u], a[h][u]);
                    }
            }
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    if (h < hn) VSTORE(acc + h * lda + d + u * W, a[h][u]);
        }
        for (size_t h = 0; h < hn; h++)                 /* the last columns, head by head */
            for (size_t e = d; e < D; e++)
                for (size_t j = 0; j < n; j++)
                    if (p[h * ldp + j] != 0.0f)
                        acc[h * lda + e] += p[h * ldp + j] * values[j * D + e];
    }
}
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step)
{
    const VEC minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC m = step ? VLOAD(shift + i) : VSET1(*shift);
        const VEC g = step ? VLOAD(log_sum + i) : VSET1(*log_sum);
        VSTORE(x + i, ISA(vexp)(VADD(VADD(VLOAD(x + i), VMUL(m, minus)), VMUL(g, minus))));
    }
}

TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale)
{
    const VEC s = VSET1(scale), minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC d = step ? VLOAD(delta + i) : VSET1(*delta);
        VSTORE(dp + i, VMUL(VMUL(s, VLOAD(p + i)), VADD(VLOAD(dp + i), VMUL(d, minus))));
    }
}
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
static inline TARGET VEC ISA(vexp)(VEC x)
{
    const VEC lo = VSET1(-87.0f), hi = VSET1(88.0f);
    const VEC t = VMIN(hi, VMAX(lo, x));                 /* NaN stays NaN */
    const VEC n = VROUND(VMUL(t, VSET1(1.44269504088896341f)));
    VEC r = VFMA(n, VSET1(-0.693359375f), t);            /* exact: few bits */
    r = VFMA(n, VSET1(2.12194440e-4f), r);               /* the rest of ln 2 */
    VEC p = VSET1(1.9875691500e-4f);
    p = VFMA(p, r, VSET1(1.3981999507e-3f));
    p = VFMA(p, r, VSET1(8.3334519073e-3f));
    p = VFMA(p, r, VSET1(4.1665795894e-2f));
    p = VFMA(p, r, VSET1(1.6666665459e-1f));
    p = VFMA(p, r, VSET1(5.0000001201e-1f));
    const VEC y = VADD(VFMA(VMUL(p, r), r, r), VSET1(1.0f));   /* 1 + r + r^2 p(r) */
    return VKEEP_NOT_BELOW(x, lo, VMUL(y, VPOW2I(n)));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n)
{
    VEC m = VSET1(-INFINITY);
    for (size_t i = 0; i < n; i += W)
        m = VMAX(m, VLOAD(x + i));
    return VHMAX(m);
}

TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift)
{
    const VEC s = VSET1(shift);
    VEC sum = VZERO();
    for (size_t i = 0; i < n; i += W) {
        const VEC e = ISA(vexp)(VADD(VLOAD(x + i), VMUL(s, VSET1(-1.0f))));
        VSTORE(x + i, e);
        sum = VADD(sum, e);
    }
    return VHSUM(sum);
}

TARGET void ISA(fast_scale)(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i += W)
        VSTORE(x + i, VMUL(VLOAD(x + i), VSET1(a)));
}
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds)
{
    for (size_t r = 0; r < rows; r += 4)
        for (size_t c = 0; c < cols; c += ANV * W) {
            VEC acc[4][ANV];
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VZERO();
            for (size_t d = 0; d < D; d++) {
                VEC key[ANV];
                UNROLL for (int v = 0; v < ANV; v++) key[v] = VLOAD(kt + d * ldk + c + v * W);
                UNROLL for (int i = 0; i < 4; i++) {
                    const VEC a = VSET1(q[(r + i) * ldq + d]);
                    UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VFMA(a, key[v], acc[i][v]);
                }
            }
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++)
                    VSTORE(s + (r + i) * lds + c + v * W, VMUL(acc[i][v], VSET1(scale)));
        }
}
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda)
{
    ISA(direct)(rows, Dp, n, p, ldp, 1, v, ldv, acc, lda);
}
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        for (size_t j = 0; j < n; j++) {
            const float *key = keys + j * D;
            for (size_t e = 0; e < D; e += 64 / sizeof(float))    /* each line, 8 keys ahead */
                __builtin_prefetch(key + 8 * D + e);
            VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
            size_t d = 0;
            for (; d + W <= D; d += W) {
                const VEC k = VLOAD(key + d);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn) acc[h] = VFMA(VLOAD(q + (h0 + h) * ldq + d), k, acc[h]);
            }
            UNROLL for (size_t h = 0; h < 4; h++) {
                if (h >= hn) continue;
                const float *qh = q + (h0 + h) * ldq;
                float sum = VHSUM(acc[h]);
                for (size_t e = d; e < D; e++)
                    sum += qh[e] * key[e];
                s[(h0 + h) * lds + j] = sum * scale;
            }
        }
    }
}

TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4, p += 4 * ldp, acc += 4 * lda) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        size_t d = 0;
        for (; d + ANV * W <= D; d += ANV * W) {
            VEC a[4][ANV];
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    a[h][u] = h < hn ? VLOAD(acc + h * lda + d + u * W) : VZERO();
            for (size_t j = 0; j < n; j++) {
                VEC v[ANV];
                for (size_t e = 0; e < ANV * W; e += 64 / sizeof(float))   /* 8 rows ahead */
                    __builtin_prefetch(values + (j + 8) * D + d + e);
                UNROLL for (int u = 0; u < ANV; u++) v[u] = VLOAD(values + j * D + d + u * W);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn && p[h * ldp + j] != 0.0f) {
                        const VEC w = VSET1(p[h * ldp + j]);
                        UNROLL for (int u = 0; u < ANV; u++) a[h][u] = VFMA(w, v[u], a[h][u]);
                    }
            }
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    if (h < hn) VSTORE(acc + h * lda + d + u * W, a[h][u]);
        }
        for (size_t h = 0; h < hn; h++)                 /* the last columns, head by head */
            for (size_t e = d; e < D; e++)
                for (size_t j = 0; j < n; j++)
                    if (p[h * ldp + j] != 0.0f)
                        acc[h * lda + e] += p[h * ldp + j] * values[j * D + e];
    }
}
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step)
{
    const VEC minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC m = step ? VLOAD(shift + i) : VSET1(*shift);
        const VEC g = step ? VLOAD(log_sum + i) : VSET1(*log_sum);
        VSTORE(x + i, ISA(vexp)(VADD(VADD(VLOAD(x + i), VMUL(m, minus)), VMUL(g, minus))));
    }
}

TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale)
{
    const VEC s = VSET1(scale), minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC d = step ? VLOAD(delta + i) : VSET1(*delta);
        VSTORE(dp + i, VMUL(VMUL(s, VLOAD(p + i)), VADD(VLOAD(dp + i), VMUL(d, minus))));
    }
}
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
static inline TARGET VEC ISA(vexp)(VEC x)
{
    const VEC lo = VSET1(-87.0f), hi = VSET1(88.0f);
    const VEC t = VMIN(hi, VMAX(lo, x));                 /* NaN stays NaN */
    const VEC n = VROUND(VMUL(t, VSET1(1.44269504088896341f)));
    VEC r = VFMA(n, VSET1(-0.693359375f), t);            /* exact: few bits */
    r = VFMA(n, VSET1(2.12194440e-4f), r);               /* the rest of ln 2 */
    VEC p = VSET1(1.9875691500e-4f);
    p = VFMA(p, r, VSET1(1.3981999507e-3f));
    p = VFMA(p, r, VSET1(8.3334519073e-3f));
    p = VFMA(p, r, VSET1(4.1665795894e-2f));
    p = VFMA(p, r, VSET1(1.6666665459e-1f));
    p = VFMA(p, r, VSET1(5.0000001201e-1f));
    const VEC y = VADD(VFMA(VMUL(p, r), r, r), VSET1(1.0f));   /* 1 + r + r^2 p(r) */
    return VKEEP_NOT_BELOW(x, lo, VMUL(y, VPOW2I(n)));
}
TARGET float ISA(fast_row_max)(const float *x, size_t n)
{
    VEC m = VSET1(-INFINITY);
    for (size_t i = 0; i < n; i += W)
        m = VMAX(m, VLOAD(x + i));
    return VHMAX(m);
}

TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift)
{
    const VEC s = VSET1(shift);
    VEC sum = VZERO();
    for (size_t i = 0; i < n; i += W) {
        const VEC e = ISA(vexp)(VADD(VLOAD(x + i), VMUL(s, VSET1(-1.0f))));
        VSTORE(x + i, e);
        sum = VADD(sum, e);
    }
    return VHSUM(sum);
}

TARGET void ISA(fast_scale)(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i += W)
        VSTORE(x + i, VMUL(VLOAD(x + i), VSET1(a)));
}
TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                             const float *kt, size_t ldk, float scale, float *s, size_t lds)
{
    for (size_t r = 0; r < rows; r += 4)
        for (size_t c = 0; c < cols; c += ANV * W) {
            VEC acc[4][ANV];
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VZERO();
            for (size_t d = 0; d < D; d++) {
                VEC key[ANV];
                UNROLL for (int v = 0; v < ANV; v++) key[v] = VLOAD(kt + d * ldk + c + v * W);
                UNROLL for (int i = 0; i < 4; i++) {
                    const VEC a = VSET1(q[(r + i) * ldq + d]);
                    UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VFMA(a, key[v], acc[i][v]);
                }
            }
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++)
                    VSTORE(s + (r + i) * lds + c + v * W, VMUL(acc[i][v], VSET1(scale)));
        }
}
TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                         const float *v, size_t ldv, float *acc, size_t lda)
{
    ISA(direct)(rows, Dp, n, p, ldp, 1, v, ldv, acc, lda);
}
TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                               size_t n, size_t D, float scale, float *s, size_t lds)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        for (size_t j = 0; j < n; j++) {
            const float *key = keys + j * D;
            for (size_t e = 0; e < D; e += 64 / sizeof(float))    /* each line, 8 keys ahead */
                __builtin_prefetch(key + 8 * D + e);
            VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
            size_t d = 0;
            for (; d + W <= D; d += W) {
                const VEC k = VLOAD(key + d);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn) acc[h] = VFMA(VLOAD(q + (h0 + h) * ldq + d), k, acc[h]);
            }
            UNROLL for (size_t h = 0; h < 4; h++) {
                if (h >= hn) continue;
                const float *qh = q + (h0 + h) * ldq;
                float sum = VHSUM(acc[h]);
                for (size_t e = d; e < D; e++)
                    sum += qh[e] * key[e];
                s[(h0 + h) * lds + j] = sum * scale;
            }
        }
    }
}

TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                    const float *values, size_t n, size_t D, float *acc,
                                    size_t lda)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4, p += 4 * ldp, acc += 4 * lda) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        size_t d = 0;
        for (; d + ANV * W <= D; d += ANV * W) {
            VEC a[4][ANV];
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    a[h][u] = h < hn ? VLOAD(acc + h * lda + d + u * W) : VZERO();
            for (size_t j = 0; j < n; j++) {
                VEC v[ANV];
                for (size_t e = 0; e < ANV * W; e += 64 / sizeof(float))   /* 8 rows ahead */
                    __builtin_prefetch(values + (j + 8) * D + d + e);
                UNROLL for (int u = 0; u < ANV; u++) v[u] = VLOAD(values + j * D + d + u * W);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn && p[h * ldp + j] != 0.0f) {
                        const VEC w = VSET1(p[h * ldp + j]);
                        UNROLL for (int u = 0; u < ANV; u++) a[h][u] = VFMA(w, v[u], a[h][u]);
                    }
            }
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    if (h < hn) VSTORE(acc + h * lda + d + u * W, a[h][u]);
        }
        for (size_t h = 0; h < hn; h++)                 /* the last columns, head by head */
            for (size_t e = d; e < D; e++)
                for (size_t j = 0; j < n; j++)
                    if (p[h * ldp + j] != 0.0f)
                        acc[h * lda + e] += p[h * ldp + j] * values[j * D + e];
    }
}
TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                  const float *log_sum, size_t step)
{
    const VEC minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC m = step ? VLOAD(shift + i) : VSET1(*shift);
        const VEC g = step ? VLOAD(log_sum + i) : VSET1(*log_sum);
        VSTORE(x + i, ISA(vexp)(VADD(VADD(VLOAD(x + i), VMUL(m, minus)), VMUL(g, minus))));
    }
}

TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                   size_t step, float scale)
{
    const VEC s = VSET1(scale), minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC d = step ? VLOAD(delta + i) : VSET1(*delta);
        VSTORE(dp + i, VMUL(VMUL(s, VLOAD(p + i)), VADD(VLOAD(dp + i), VMUL(d, minus))));
    }
}
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
