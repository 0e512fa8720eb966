/* generated from chapters/07-simd.nw; edit the book, not this file */
/* <<include the intrinsics and define [[UNROLL]]>> */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fast.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define UNROLL _Pragma("GCC unroll 16")
#if defined(__x86_64__)
/* <<define the AVX2 vector macros>> */
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
#define VLDEXP(y, n) _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32( \
        _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23)))
#define VKEEP_NOT_BELOW(x, lo, y) _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_NLT_UQ), y)
#define VDIV(a, b) _mm256_div_ps(a, b)
#define VSQRT(x) _mm256_sqrt_ps(x)
#define VSELECT_NEGATIVE(x, a, b) \
        _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ))
#define VFMA_FUSED(a, b, c) VFMA(a, b, c)
#define VTRANSPOSE(t) transpose_avx2(t)
#define VFIRST_MASK(n) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), \
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define VSTORE_FIRST(p, x, n) _mm256_maskstore_ps(p, VFIRST_MASK(n), x)
#define VLOAD_FIRST(p, n) _mm256_maskload_ps(p, VFIRST_MASK(n))
/* <<define the AVX2 vector macros>> */
static TARGET float hsum_avx2(__m256 x)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

static TARGET float hmax_avx2(__m256 x)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
/* <<define the AVX2 vector macros>> */
static TARGET void transpose_avx2(__m256 r[8])
{
    __m256 t[8], u[8];
    UNROLL for (int i = 0; i < 8; i += 2) {                    /* pairs of rows interleaved */
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    UNROLL for (int i = 0; i < 8; i += 4) {                    /* four rows' element j, j + 4 */
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    UNROLL for (int j = 0; j < 4; j++) {                /* the halves of rows 0-3, 4-7 */
        r[j] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x20);
        r[j + 4] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x31);
    }
}
#include "kernel_bodies.h"
#endif
