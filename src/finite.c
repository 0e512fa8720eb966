/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <math.h>
#include "mha.h"

/* The index of the first element of x (n) that is NaN or infinite, or n when
   there is none; -inf is accepted when allow_minus_infinity is non-zero. */
size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) && !(allow_minus_infinity && x[i] == -INFINITY))
            return i;
    return n;
}
