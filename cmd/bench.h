/* generated from chapters/24-measuring.nw; edit the book, not this file */
#ifndef MHA_BENCH_H
#define MHA_BENCH_H
/* The interface of mha bench's files (bench.c, bench_forward.c,
   bench_decode.c, bench_backward.c, bench_machine.c); its measuring helpers
   are shared with bench/sgemm_openblas.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mha.h"
#include "random.h"
#include "stages.h"
struct fast_kernels;

/* <<[[bench.h]] the options and the drivers>> */
typedef struct bench_options {
    const char *impl;
    mha_shape shape;
    int cross, causal, decode, peak, bandwidth, denormals, half_kc, backward;
    size_t reps, threads, cache, kv_heads, mib;
    const char *part;                       /* "all", "proj", "attention" or "stages" */
} bench_options;
/* Parses argv[1..argc-1] into *o and *help; 0, or -1 after one error line on err. */
int bench_parse_options(int argc, char **argv, bench_options *o, int *help, FILE *err);
/* 1 if the counts of *o are in bounds; 0 after one error line on err. */
int bench_bounds_ok(const bench_options *o, FILE *err);
/* 1 if a version's check ran (status) and agreed with the naive version's to
   1e-4 of scale; 0 after one error line on err. */
int bench_check_agrees(const char *name, mha_status status, double worst, double scale,
                       FILE *err);
/* <<[[bench.h]] the options and the drivers>> */
int bench_forward(const bench_options *o, const struct fast_kernels *k, FILE *out, FILE *err);
int bench_decode(const bench_options *o, const struct fast_kernels *k, FILE *out, FILE *err);
int bench_backward(const bench_options *o, const struct fast_kernels *k, FILE *out, FILE *err);
int bench_peak(const bench_options *o, const struct fast_kernels *k, FILE *out);
int bench_bandwidth(const bench_options *o, const struct fast_kernels *k, FILE *out, FILE *err);
int bench_denormals(const struct fast_kernels *k, FILE *out, FILE *err);
/* The best FMA rate of all threads, in GFLOP/s, over seven runs of rounds rounds. */
double bench_peak_gflops(const struct fast_kernels *k, size_t rounds);

double bench_seconds(void);                     /* a monotonic clock */
/* n floats uniform on [-scale, scale] from the generator at *state; NULL if no memory */
float *bench_random(size_t n, uint64_t *state, float scale);
/* times[0] is the warm-up run; sorts times[1..reps] and returns their median */
double bench_median(double *times, size_t reps);
/* max |got - want| (NaN if any is NaN); *scale = max(1, max |want|) */
double bench_largest_difference(const float *got, const float *want, size_t n, double *scale);
/* <<[[bench.h]] the stage clock>> */
/* Times the library's stage marks (stages.h) on this thread: between start
   and stop, spent[s] sums the seconds of stage s, whole the seconds in all. */
typedef struct bench_stage_clock {
    fast_stage_timer timer;
    fast_stage running;
    double started, last, whole, spent[FAST_STAGE_COUNT];
} bench_stage_clock;
void bench_stages_start(bench_stage_clock *c);
void bench_stages_stop(bench_stage_clock *c);
/* <<[[bench.h]] the operations a pass performs>> */
/* Chapter 1's operation count, with the attention core of a causal pass
   (scores, context, softmax) counted over the pairs the mask leaves only. */
mha_flops bench_flop_count(const mha_shape *s, int causal);
#endif
