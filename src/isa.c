/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <stddef.h>
#include <string.h>
#include "fast.h"

/* <<[[isa.c]] functions>> */
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
/* <<[[isa.c]] functions>> */
static const fast_kernels *choose_by_name(const char *isa)
{
    if (isa && strcmp(isa, "scalar") == 0)
        return &fast_kernels_scalar;
#if defined(__x86_64__)
    if (fast_kernels_supported(&fast_kernels_avx512) && !(isa && strcmp(isa, "avx2") == 0))
        return &fast_kernels_avx512;
    if (fast_kernels_supported(&fast_kernels_avx2))    /* GCOVR_EXCL_BR_LINE: without AVX2 */
        return &fast_kernels_avx2;
#endif
    return &fast_kernels_scalar;
}
/* <<[[isa.c]] functions>> */
static const fast_kernels *chosen = &fast_kernels_scalar;

__attribute__((constructor(101))) static void choose_at_start_up(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
#endif
    chosen = choose_by_name(NULL);
}

const fast_kernels *fast_kernels_select(void)
{
    return chosen;
}

mha_status mha_set_isa(const char *name)
{
    static const char *const known[] = {"scalar", "avx2", "avx512"};
    int found = name == NULL || name[0] == '\0';
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        found |= !found && strcmp(name, known[k]) == 0;
    if (!found)
        return MHA_ERR_ARG;
    chosen = choose_by_name(name);
    return MHA_OK;
}
