/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fast.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define UNROLL _Pragma("GCC unroll 16")
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
#define VLDEXP(y, n) _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32( \
        _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23)))
#define VKEEP_NOT_BELOW(x, lo, y) _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_NLT_UQ), y)
#define VDIV(a, b) _mm256_div_ps(a, b)
#define VSQRT(x) _mm256_sqrt_ps(x)
#define VSELECT_NEGATIVE(x, a, b) \
        _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ))
#define VFMA_FUSED(a, b, c) VFMA(a, b, c)
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
#include "kernel_bodies.h"
#endif
