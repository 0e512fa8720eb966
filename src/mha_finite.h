/* generated from chapters/25-hardening.nw; edit the book, not this file */
#ifndef MHA_FINITE_H
#define MHA_FINITE_H
/* Finite values: the scan a caller runs on its inputs before a pass, and the
   range rule of a pass. */
#include <stddef.h>
#include "mha_status.h"

/* <<[[mha_finite.h]] finite values>> */
/* The index of the first element of x (n) that is NaN or infinite, or n when
   there is none; -inf counts as finite when allow_minus_infinity is non-zero.
   Unchecked: x holds n floats. */
size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity);
/* <<[[mha_finite.h]] finite values>> */
typedef struct mha_span {
    const float *x;                /* NULL: an absent optional array */
    size_t n;
    int allow_minus_infinity;      /* a float mask's -inf masks the key */
} mha_span;
/* MHA_ERR_RANGE when one of the results holds a NaN or an infinity while every
   input is finite; MHA_OK otherwise. */
MHA_MUST_CHECK
mha_status mha_range_check(const mha_span *inputs, size_t n_inputs, const mha_span *results,
                           size_t n_results);

#endif
