/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "bench.h"
#include "cli.h"
#include "fast.h"

/* <<[[bench_machine.c]] functions>> */
double bench_peak_gflops(const fast_kernels *k, size_t rounds)
{
    double best = 0;
    for (int run = 0; run < 7; run++) {
        double flops = 0, t0 = bench_seconds();
        #pragma omp parallel reduction(+:flops)
        flops += k->fma_loop(rounds);
        const double rate = flops / (bench_seconds() - t0) / 1e9;
        best = rate > best ? rate : best;
    }
    return best;
}
/* <<[[bench_machine.c]] functions>> */
int bench_peak(const bench_options *o, const fast_kernels *k, FILE *out)
{
    const fast_blocking b = fast_blocking_for(k, 64);
    return fprintf(out, "peak_gflops=%.1f threads=%zu isa=%s l1=%zu l2=%zu kc=%zu mc=%zu "
                        "bq=%zu bk=%zu\n", bench_peak_gflops(k, 1u << 22), o->threads,
                   k->name, b.l1 >> 10, b.l2 >> 10, b.kc, b.mc, b.bq, b.bk) > 0
        ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}

/* <<[[bench_machine.c]] functions>> */
static double bandwidth_gbs(const fast_kernels *k, size_t bytes)
{
    const size_t step = 64, n = bytes / sizeof(float) / step * step;
    float *x = aligned_alloc(64, n * sizeof *x);      /* n is a multiple of 64 */
    if (x == NULL)
        return -1.0;
    for (size_t i = 0; i < n; i++)          /* not memset: malloc + memset can become calloc, */
        x[i] = 1.0f;                        /* whose untouched pages all map to one zero page */
    double best = 0;
    for (int run = 0; run < 7; run++) {
        float total = 0;
        const double t0 = bench_seconds();
        #pragma omp parallel reduction(+:total)
        {
            const size_t threads = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
            const size_t share = n / step / threads * step, first = me * share;
            total += k->stream_sum(x + first, me + 1 == threads ? n - first : share);
        }
        const double rate = (double)(n * sizeof *x) / (bench_seconds() - t0) / 1e9;
        best = rate > best && total > 0.0f ? rate : best;
    }
    free(x);
    return best;
}
/* <<[[bench_machine.c]] functions>> */
int bench_bandwidth(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const double gbs = bandwidth_gbs(k, o->mib << 20);
    if (gbs < 0) {
        mha_cli_error(err, "bench: --mib: cannot allocate %zu MiB", o->mib);
        return MHA_EXIT_FAILURE;
    }
    return fprintf(out, "bandwidth_gbs=%.1f threads=%zu mib=%zu\n", gbs, o->threads,
                   o->mib) > 0 ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
/* <<[[bench_machine.c]] functions>> */
static double time_pv(const fast_kernels *k, float weight, float *p, float *v, float *acc)
{
    for (size_t i = 0; i < 4 * 256; i++) p[i] = weight;
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        const double t0 = bench_seconds();
        for (int r = 0; r < 200; r++) {
            memset(acc, 0, 4 * 64 * sizeof *acc);     /* sums of tiny products stay tiny */
            k->pv(4, 256, 64, p, 256, v, 64, acc, 64);
        }
        const double t = bench_seconds() - t0;
        best = t < best ? t : best;
    }
    return best;
}
/* <<[[bench_machine.c]] functions>> */
int bench_denormals(const fast_kernels *k, FILE *out, FILE *err)
{
    float *p = malloc(4 * 256 * sizeof *p), *v = malloc(256 * 64 * sizeof *v);
    float *acc = malloc(4 * 64 * sizeof *acc);
    if (!p || !v || !acc) {
        free(p); free(v); free(acc);
        mha_cli_error(err, "bench: out of memory");
        return MHA_EXIT_FAILURE;
    }
    for (size_t i = 0; i < 256 * 64; i++) v[i] = 0.5f;
    const double normal = time_pv(k, 1e-30f, p, v, acc), tiny = time_pv(k, 1e-39f, p, v, acc);
    fprintf(out, "denormals normal_ms=%.3f denormal_ms=%.3f slowdown=%.1f isa=%s\n",
            normal * 1e3, tiny * 1e3, tiny / normal, k->name);
    free(p); free(v); free(acc);
    return MHA_EXIT_OK;
}
