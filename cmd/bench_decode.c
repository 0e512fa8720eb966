/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "bench.h"
#include "cli.h"
#include "fast.h"

/* <<[[bench_decode.c]] functions>> */
static int floats_fit(size_t a, size_t b, size_t c);

int bench_decode(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const mha_decode_impl *impl = mha_decode_impl_find(o->impl);
    const size_t B = o->shape.batch, E = o->shape.embed_dim, H = o->shape.heads,
                 G = o->kv_heads, T = o->cache;
    /* <<refuse a bad decoding benchmark>> */
    if (impl == NULL) {
        mha_cli_error(err, "bench: --impl: unknown decoding implementation '%s'", o->impl);
        return MHA_EXIT_USAGE;
    }
    if (E == 0 || H == 0 || E % H != 0 || G == 0 || H % G != 0 || o->reps == 0) {
        mha_cli_error(err, "bench: --decode: --heads must divide --dim, --kv-heads --heads, "
                      "and --reps must be positive");
        return MHA_EXIT_USAGE;
    }
    if (!floats_fit(B, E, 1) || !floats_fit(3, E, E) || T == SIZE_MAX ||
        !floats_fit(B, G, T + 1) || !floats_fit(B * G * (T + 1), E / H, 1)) {
        mha_cli_error(err, "bench: --decode: B=%zu E=%zu kv_heads=%zu T=%zu: the buffers' "
                      "byte counts do not fit in size_t", B, E, G, T);
        return MHA_EXIT_USAGE;
    }
    const size_t D = E / H, F = E + 2 * G * D;
    uint64_t state = mha_random_seeded(7);
    const float a = 1.0f / sqrtf((float)E);
    float *x = bench_random(B * E, &state, 1), *in_w = bench_random(F * E, &state, a);
    float *in_b = bench_random(F, &state, a), *out_w = bench_random(E * E, &state, a);
    float *out_b = bench_random(E, &state, a), *ref = malloc(B * E * sizeof *ref);
    float *got = malloc(B * E * sizeof *got);
    double *times = o->reps < SIZE_MAX / sizeof *times - 1 ? calloc(o->reps + 1, sizeof *times)
                                                          : NULL;
    mha_kv_cache cache;
    int result = MHA_EXIT_FAILURE;
    if (x && in_w && in_b && out_w && out_b && ref && got && times &&
        mha_kv_cache_init(&cache, B, G, T + 1, D) == MHA_OK) {
        const mha_decoder dec = {E, H, G, {in_w, in_b, out_w, out_b}, 0, 0.0f};
        /* <<fill [[cache]] with [[T]] random positions per sequence>> */
        mha_status filled = MHA_OK;
        for (size_t b = 0; b < B && filled == MHA_OK; b++) {
            float *keys = bench_random(T * G * D, &state, 1), *values = bench_random(T * G * D, &state, 1);
            filled = keys && values ? mha_kv_cache_append(&cache, b, T, keys, values, G * D, NULL)
                                    : MHA_ERR_NOMEM;
            free(keys); free(values);
        }
        /* <<check [[impl]]'s decoding step against the naive one, then time it>> */
        double scale = 1, worst = 0;
        mha_status status = filled == MHA_OK ? mha_decode_step_naive(&dec, &cache, 1, x, NULL, ref, NULL)
                                             : filled;
        for (size_t b = 0; b < B; b++) cache.length[b] = T;
        if (status == MHA_OK)
            status = impl->step(&dec, &cache, 1, x, NULL, got, NULL);
        worst = status == MHA_OK ? bench_largest_difference(got, ref, B * E, &scale) : 0;
        if (bench_check_agrees(impl->name, status, worst, scale, err)) {
            for (size_t r = 0; r <= o->reps; r++) {
                for (size_t b = 0; b < B; b++) cache.length[b] = T;
                const double t0 = bench_seconds();
                impl->step(&dec, &cache, 1, x, NULL, got, NULL);
                times[r] = bench_seconds() - t0;
            }
            /* <<print the decoding measurement>> */
            const double median = bench_median(times, o->reps);
            const double bytes = sizeof(float) * ((double)F * E + (double)E * E +
                                                  2.0 * B * G * (double)(T + 1) * D);
            const double flops = (double)B * mha_decode_flops(E, H, G, T);
            fprintf(out, "impl=%s decode=1 B=%zu E=%zu H=%zu kv_heads=%zu T=%zu reps=%zu ms=%.3f "
                         "gbs=%.2f gflops=%.2f maxdiff=%.2g threads=%zu isa=%s bytes=%.0f\n",
                    impl->name, B, E, H, G, T, o->reps, median * 1e3, bytes / median / 1e9,
                    flops / median / 1e9, worst, o->threads, k->name, bytes);
            result = MHA_EXIT_OK;
        }
        mha_kv_cache_free(&cache);
    } else
        mha_cli_error(err, "bench: out of memory");
    free(x); free(in_w); free(in_b); free(out_w); free(out_b); free(ref); free(got); free(times);
    return result;
}
/* <<[[bench_decode.c]] functions>> */
/* Whether a * b * c floats can be counted in bytes by a size_t. */
static int floats_fit(size_t a, size_t b, size_t c)
{
    size_t n;
    return !mha_mul_overflows(a, b, &n) && !mha_mul_overflows(n, c, &n) &&
           !mha_mul_overflows(n, sizeof(float), &n);
}
