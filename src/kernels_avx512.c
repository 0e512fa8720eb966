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
#include "kernel_bodies.h"
#endif
