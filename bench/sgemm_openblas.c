/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cblas.h>
#include "bench.h"
#include "mha.h"

/* <<[[sgemm_openblas.c]] functions>> */
/* C (M, N) = A (M, K) W (N, K)^T + bias, by OpenBLAS. */
static void linear(size_t M, size_t N, size_t K, const float *A, const float *W,
                   const float *bias, float *C)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f,
                A, (int)K, W, (int)K, 0.0f, C, (int)N);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++)
            C[i * N + j] += bias[j];
}
/* <<[[sgemm_openblas.c]] functions>> */
static void head(size_t L, size_t E, size_t D, int causal, const float *q, const float *k,
                 const float *v, float *scores, float *context)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)L, (int)L, (int)D,
                1.0f / sqrtf((float)D), q, (int)(3 * E), k, (int)(3 * E), 0.0f, scores, (int)L);
    for (size_t i = 0; i < L; i++) {
        float *row = scores + i * L, m = -INFINITY, sum = 0.0f;
        for (size_t j = 0; j < L; j++) {
            row[j] = causal && j > i ? -INFINITY : row[j];
            m = row[j] > m ? row[j] : m;
        }
        for (size_t j = 0; j < L; j++)
            sum += row[j] = expf(row[j] - m);
        for (size_t j = 0; j < L; j++)
            row[j] /= sum;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)L, (int)D, (int)L, 1.0f,
                scores, (int)L, v, (int)(3 * E), 0.0f, context, (int)E);
}
/* <<[[sgemm_openblas.c]] functions>> */
static void layer(size_t B, size_t L, size_t E, size_t H, int causal, int blas_threads,
                  int threads, const float *x, const float *in_w, const float *in_b,
                  const float *out_w, const float *out_b, float *proj, float *concat,
                  float *scores, float *out)
{
    const size_t D = E / H;
    openblas_set_num_threads(threads);
    linear(B * L, 3 * E, E, x, in_w, in_b, proj);
    openblas_set_num_threads(blas_threads);
    #pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (size_t bh = 0; bh < B * H; bh++) {
        const size_t b = bh / H, h = bh % H;
        const float *p = proj + b * L * 3 * E + h * D;
        head(L, E, D, causal, p, p + E, p + 2 * E, scores + (size_t)omp_get_thread_num() * L * L,
             concat + b * L * E + h * D);
    }
    openblas_set_num_threads(threads);
    linear(B * L, E, E, concat, out_w, out_b, out);
}
/* <<[[sgemm_openblas.c]] functions>> */
int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: sgemm-openblas B L E H causal reps threads\n");
        return 2;
    }
    const size_t B = strtoul(argv[1], 0, 10), L = strtoul(argv[2], 0, 10),
                 E = strtoul(argv[3], 0, 10), H = strtoul(argv[4], 0, 10),
                 reps = strtoul(argv[6], 0, 10);
    const int causal = atoi(argv[5]), threads = atoi(argv[7]);
    uint64_t state = mha_random_seeded(42);
    const float a = 1.0f / sqrtf((float)E);
    float *x = bench_random(B * L * E, &state, 1), *in_w = bench_random(3 * E * E, &state, a);
    float *in_b = bench_random(3 * E, &state, a), *out_w = bench_random(E * E, &state, a);
    float *out_b = bench_random(E, &state, a), *proj = malloc(B * L * 3 * E * sizeof *proj);
    float *concat = malloc(B * L * E * sizeof *concat), *out = malloc(B * L * E * sizeof *out);
    float *ref = malloc(B * L * E * sizeof *ref);
    float *scores = malloc((size_t)threads * L * L * sizeof *scores);
    double *times = malloc((reps + 1) * sizeof *times);
    if (!x || !in_w || !in_b || !out_w || !out_b || !proj || !concat || !out || !ref ||
        !scores || !times || H == 0 || E % H != 0 || reps == 0 || threads < 1) {
        fprintf(stderr, "sgemm-openblas: bad arguments or out of memory\n");
        return 1;
    }
    /* <<time the projections and the two layers, and print them>> */
    const mha_shape s = {B, L, L, E, H};
    const mha_params params = {in_w, in_b, out_w, out_b};
    const mha_mask mask = {.causal = causal};
    if (mha_forward_batched(&s, &params, x, NULL, NULL, &mask, ref, NULL) != MHA_OK) {
        fprintf(stderr, "sgemm-openblas: the reference layer refused the shape\n");
        return 1;
    }
    const mha_flops f = bench_flop_count(&s, causal);
    for (int variant = 0; variant < 3; variant++) {
        for (size_t r = 0; r <= reps; r++) {
            const double t0 = bench_seconds();
            /* <<run OpenBLAS variant [[variant]] once>> */
            if (variant == 0) {
                openblas_set_num_threads(threads);
                linear(B * L, 3 * E, E, x, in_w, in_b, proj);
                linear(B * L, E, E, proj, out_w, out_b, out);
            } else
                layer(B, L, E, H, causal, variant == 1 ? 1 : threads, threads, x, in_w, in_b, out_w,
                      out_b, proj, concat, scores, out);
            times[r] = bench_seconds() - t0;
        }
        const double ms = 1e3 * bench_median(times, reps);
        /* <<print OpenBLAS variant [[variant]]>> */
        double worst = 0;
        for (size_t i = 0; variant > 0 && i < B * L * E; i++)
            worst = fmax(worst, fabs((double)out[i] - ref[i]));
        const double flops = variant == 0 ? f.q_proj + f.kv_proj + f.out_proj : f.total;
        printf("impl=%s B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu ms=%.3f gflops=%.2f "
               "maxdiff=%.2g threads=%d part=%s\n", variant == 2 ? "openblas-nested" : "openblas",
               B, L, L, E, H, causal, reps, ms, flops / (ms * 1e6), worst, threads,
               variant == 0 ? "proj" : "all");
    }
    return 0;
}
