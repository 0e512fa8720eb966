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
/* <<define the scalar vector macros>> */
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
#define VLDEXP(y, n) ((y) * pow2i_scalar(n))       /* y 2^n for an integral n */
#define VKEEP_NOT_BELOW(x, lo, y) ((x) < (lo) ? 0.0f : (y))
#define VDIV(a, b) ((a) / (b))
#define VSQRT(x) sqrtf(x)
#define VSELECT_NEGATIVE(x, a, b) ((x) < 0.0f ? (a) : (b))
#define VFMA_FUSED(a, b, c) fmaf(a, b, c)             /* rounded once, as the others' VFMA */
#define VTRANSPOSE(t) ((void)(t))                      /* one row of one element */
#define VSTORE_FIRST(p, x, n) ((n) > 0 ? (void)(*(p) = (x)) : (void)0)
#define VLOAD_FIRST(p, n) ((n) > 0 ? *(p) : 0.0f)
/* <<define the scalar vector macros>> */
static float pow2i_scalar(float n)
{
    if (n != n)
        return n;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
#include "kernel_bodies.h"
