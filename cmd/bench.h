/* generated from chapters/24-measuring.nw; edit the book, not this file */
#ifndef MHA_BENCH_H
#define MHA_BENCH_H
/* The measuring helpers of mha bench, shared with bench/sgemm_openblas.c. */
#include <stddef.h>

double bench_seconds(void);                     /* a monotonic clock */
/* n floats uniform on [-scale, scale] from the generator at *state; NULL if no memory */
float *bench_random(size_t n, unsigned long long *state, float scale);
/* times[0] is the warm-up run; sorts times[1..reps] and returns their median */
double bench_median(double *times, size_t reps);
/* max |got - want| (NaN if any is NaN); *scale = max(1, max |want|) */
double bench_largest_difference(const float *got, const float *want, size_t n, double *scale);
/* Chapter 1's operation count, with the attention core of a causal pass
   (scores, context, softmax) counted over the pairs the mask leaves only. */
#include "mha.h"
mha_flops bench_flop_count(const mha_shape *s, int causal);
#endif
