/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <stdlib.h>
#include <string.h>
#include "fast.h"

int fast_kernels_supported(const fast_kernels *k)
{
#if defined(__x86_64__)
    if (k == &fast_kernels_avx512)
        return __builtin_cpu_supports("avx512f");
    if (k == &fast_kernels_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return k == &fast_kernels_scalar;
}
static const fast_kernels *choose_from_the_environment(void)
{
    const char *isa = getenv("MHA_ISA"), *scalar = getenv("MHA_FORCE_SCALAR");
    if ((scalar && strcmp(scalar, "0") != 0 && *scalar) || (isa && strcmp(isa, "scalar") == 0))
        return &fast_kernels_scalar;
#if defined(__x86_64__)
    if (fast_kernels_supported(&fast_kernels_avx512) && !(isa && strcmp(isa, "avx2") == 0))
        return &fast_kernels_avx512;
    if (fast_kernels_supported(&fast_kernels_avx2))
        return &fast_kernels_avx2;
#endif
    return &fast_kernels_scalar;
}
static const fast_kernels *chosen = &fast_kernels_scalar;

__attribute__((constructor)) static void choose_at_start_up(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
#endif
    chosen = choose_from_the_environment();
}

const fast_kernels *fast_kernels_select(void)
{
    return chosen;
}

const fast_kernels *fast_kernels_reselect(void)
{
    return chosen = choose_from_the_environment();
}
