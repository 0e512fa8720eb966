/* generated from chapters/24-measuring.nw; edit the book, not this file */
/* An independent check of mha bench --peak and --bandwidth (the Measuring appendix).
   usage: limits-check THREADS MIB   prints check_peak_gflops=... and check_bandwidth_gbs=... */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* <<[[limits_check.c]] the two loops>> */
static long rounds;
static float *buffer;
static size_t share;                          /* floats per thread */
static int wide;                              /* AVX-512, else AVX2 */

#define FMA_LOOP(NAME, TARGET, VEC, SET1, FMA, ADD, LANES)                                 \
    __attribute__((target(TARGET))) static double NAME(void)                               \
    {                                                                                      \
        VEC acc[12], x = SET1(1.0000001f), y = SET1(-1e-7f), sum = SET1(0.0f);             \
        for (int i = 0; i < 12; i++) acc[i] = SET1((float)i);                              \
        for (long n = 0; n < rounds; n++) {                                                \
            _Pragma("GCC unroll 12")                                                       \
            for (int i = 0; i < 12; i++) acc[i] = FMA(acc[i], x, y);                       \
        }                                                                                  \
        for (int i = 0; i < 12; i++) sum = ADD(sum, acc[i]);                               \
        float lanes[LANES];                                                                \
        memcpy(lanes, &sum, sizeof lanes);                                                 \
        return 2.0 * 12 * LANES * (double)rounds + (lanes[0] == 12345.0f);                 \
    }
#define READ_LOOP(NAME, TARGET, VEC, ZERO, LOAD, ADD, LANES, SUMS)                         \
    __attribute__((target(TARGET))) static double NAME(const float *p)                     \
    {                                                                                      \
        VEC acc[SUMS];                                                                     \
        for (int u = 0; u < SUMS; u++) acc[u] = ZERO();                                    \
        for (size_t i = 0; i < share; i += SUMS * LANES) {                                 \
            _Pragma("GCC unroll 8")                                                        \
            for (int u = 0; u < SUMS; u++) acc[u] = ADD(acc[u], LOAD(p + i + u * LANES));  \
        }                                                                                  \
        for (int u = 1; u < SUMS; u++) acc[0] = ADD(acc[0], acc[u]);                       \
        float lanes[LANES];                                                                \
        memcpy(lanes, &acc[0], sizeof lanes);                                              \
        return lanes[0];                                                                   \
    }
FMA_LOOP(fma512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16)
FMA_LOOP(fma256, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8)
READ_LOOP(read512_2, "avx512f", __m512, _mm512_setzero_ps, _mm512_load_ps, _mm512_add_ps, 16, 2)
READ_LOOP(read512_8, "avx512f", __m512, _mm512_setzero_ps, _mm512_load_ps, _mm512_add_ps, 16, 8)
READ_LOOP(read256_2, "avx2", __m256, _mm256_setzero_ps, _mm256_load_ps, _mm256_add_ps, 8, 2)
READ_LOOP(read256_8, "avx2", __m256, _mm256_setzero_ps, _mm256_load_ps, _mm256_add_ps, 8, 8)
static int eight_sums;                        /* which read loop the threads run */

static void *fma_thread(void *result)
{
    *(double *)result = wide ? fma512() : fma256();
    return NULL;
}

static void *read_thread(void *first)
{
    const float *p = first;
    volatile double sink = wide ? (eight_sums ? read512_8(p) : read512_2(p))
                                : (eight_sums ? read256_8(p) : read256_2(p));
    (void)sink;
    return NULL;
}
/* <<[[limits_check.c]] the best of seven runs on every thread>> */
static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const int threads = argc == 3 ? atoi(argv[1]) : 0;
    const size_t mib = argc == 3 ? strtoul(argv[2], NULL, 10) : 0;
    if (threads < 1 || threads > 256 || mib < 1) {
        fprintf(stderr, "usage: limits-check THREADS MIB\n");
        return 2;
    }
    __builtin_cpu_init();
    wide = __builtin_cpu_supports("avx512f");
    share = ((mib << 20) / sizeof(float) / (size_t)threads) / 128 * 128;
    buffer = aligned_alloc(64, share * (size_t)threads * sizeof(float));
    if (buffer == NULL || !__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "limits-check: no memory, or no AVX2\n");
        return 1;
    }
    for (size_t i = 0; i < share * (size_t)threads; i++)
        buffer[i] = 1.0f;                              /* every page really there */
    pthread_t t[256];
    double flops[256], peak = 0, bandwidth = 0;
    rounds = 1L << 24;
    for (int run = 0; run < 7; run++) {
        /* <<time one run of [[fma_thread]] and of [[read_thread]] on every thread>> */
        double t0 = seconds(), total = 0;
        for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, fma_thread, &flops[i]);
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
        for (int i = 0; i < threads; i++) total += flops[i];
        const double gflops = total / (seconds() - t0) / 1e9;
        peak = gflops > peak ? gflops : peak;
        for (eight_sums = 0; eight_sums < 2; eight_sums++) {
            t0 = seconds();
            for (int i = 0; i < threads; i++)
                pthread_create(&t[i], NULL, read_thread, buffer + (size_t)i * share);
            for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
            const double rate = (double)(share * (size_t)threads * sizeof(float)) / (seconds() - t0) / 1e9;
            bandwidth = rate > bandwidth ? rate : bandwidth;
        }
    }
    printf("check_peak_gflops=%.1f threads=%d isa=%s\n", peak, threads, wide ? "avx512" : "avx2");
    printf("check_bandwidth_gbs=%.1f threads=%d mib=%zu\n", bandwidth, threads, mib);
    free(buffer);
    return 0;
}
