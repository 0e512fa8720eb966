/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <unistd.h>
#include <omp.h>
#include "mha.h"

/* <<[[threads.c]] functions>> */
size_t mha_threads_max(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return (size_t)(cores > 0 ? cores : 1) * MHA_THREADS_PER_CORE;
}

mha_status mha_set_threads(size_t threads)
{
    static int default_threads = 0;
    if (threads > mha_threads_max())
        return MHA_ERR_ARG;
    if (default_threads == 0)
        default_threads = omp_get_max_threads();
    omp_set_num_threads(threads == 0 ? default_threads : (int)threads);
    return MHA_OK;
}

size_t mha_threads(void)
{
    return (size_t)omp_get_max_threads();
}
