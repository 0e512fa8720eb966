/* generated from chapters/03-naive.nw; edit the book, not this file */
#ifndef ORACLE_H
#define ORACLE_H
#include "mha.h"
/* The float64 reference (the chapter on naive loops): same contract as
   mha_forward_fn, but out (B, L, E) and weights (B, H, L, S) are double.
   Used only by tests. */
mha_status mha_forward_reference(const mha_shape *shape, const mha_params *params,
                                 const float *query, const float *key,
                                 const float *value, const mha_mask *mask,
                                 double *out, double *weights);
/* <<[[oracle.h]] declarations>> */
typedef struct mha_case {
    mha_shape shape;
    float *query, *key, *value;           /* key, value NULL for self-attention */
    float *in_w, *in_b, *out_w, *out_b;   /* biases may be NULL */
    mha_params params;
} mha_case;
enum { CASE_SELF = 0, CASE_CROSS = 1, CASE_SHARED_KV = 2, CASE_NO_BIAS = 4 };
mha_case case_random(mha_shape shape, uint64_t seed, int flags);
void case_free(mha_case *c);
/* <<[[oracle.h]] declarations>> */
double check_against_reference(const mha_impl *impl, const mha_case *c,
                               const mha_mask *mask);
double naive_error_bound(const mha_shape *shape, const double *want, size_t n);
#endif
