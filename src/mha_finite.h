/* generated from chapters/25-hardening.nw; edit the book, not this file */
#ifndef MHA_FINITE_H
#define MHA_FINITE_H
/* Finite values: the scan a caller runs on its inputs before a pass. */
#include <stddef.h>

/* The index of the first element of x (n) that is NaN or infinite, or n when
   there is none; -inf counts as finite when allow_minus_infinity is non-zero.
   Unchecked: x holds n floats. */
size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity);

#endif
