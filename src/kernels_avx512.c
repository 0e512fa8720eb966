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
/* <<define the AVX-512 vector macros>> */
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
#define VLDEXP(y, n) _mm512_scalef_ps(y, n)           /* one instruction: y 2^floor(n) */
#define VKEEP_NOT_BELOW(x, lo, y) _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), y)
#define VDIV(a, b) _mm512_div_ps(a, b)
#define VSQRT(x) _mm512_sqrt_ps(x)
#define VSELECT_NEGATIVE(x, a, b) \
        _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), b, a)
#define VFMA_FUSED(a, b, c) VFMA(a, b, c)
#define VTRANSPOSE(t) transpose_avx512(t)
#define VSTORE_FIRST(p, x, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1), x)
#define VLOAD_FIRST(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1), p)
/* <<define the AVX-512 vector macros>> */
static TARGET void transpose_avx512(__m512 r[16])
{
    __m512 t[16], u[16];
    UNROLL for (int i = 0; i < 16; i += 2) {                   /* pairs of rows interleaved */
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    UNROLL for (int i = 0; i < 16; i += 4) {                   /* four rows' element 4L + c */
        u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    UNROLL for (int c = 0; c < 4; c++) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[c + 4], 0x88);      /* quarters 0, 2 */
        const __m512 v1 = _mm512_shuffle_f32x4(u[c], u[c + 4], 0xDD);      /* quarters 1, 3 */
        const __m512 w0 = _mm512_shuffle_f32x4(u[c + 8], u[c + 12], 0x88);
        const __m512 w1 = _mm512_shuffle_f32x4(u[c + 8], u[c + 12], 0xDD);
        r[c] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        r[c + 4] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        r[c + 8] = _mm512_shuffle_f32x4(v0, w0, 0xDD);
        r[c + 12] = _mm512_shuffle_f32x4(v1, w1, 0xDD);
    }
}
#include "kernel_bodies.h"
#endif
