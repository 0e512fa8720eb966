/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <omp.h>
#include "mha.h"

void mha_set_threads(size_t threads)
{
    static int default_threads = 0;
    if (default_threads == 0)
        default_threads = omp_get_max_threads();
    omp_set_num_threads(threads == 0 ? default_threads : (int)threads);
}

size_t mha_threads(void)
{
    return (size_t)omp_get_max_threads();
}
