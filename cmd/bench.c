/* generated from chapters/04-batched.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "mha.h"

typedef struct bench_options {
    const mha_impl *impl;
    mha_shape shape;
    int cross, causal;
    size_t reps;
} bench_options;
static int parse_bench_options(int argc, char **argv, bench_options *o, FILE *err)
{
    *o = (bench_options){mha_impl_find("batched"), {1, 128, 128, 128, 4}, 0, 0, 7};
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int r;
        if (strcmp(argv[i], "--causal") == 0) { o->causal = 1; continue; }
        static const char *const names[] = {"--batch", "--seq", "--kv-len", "--dim", "--heads", "--reps"};
        size_t *const fields[] = {&o->shape.batch, &o->shape.query_len, &o->shape.key_len,
                                  &o->shape.embed_dim, &o->shape.heads, &o->reps};
        int matched = 0;
        if ((r = mha_option_value(argc, argv, &i, "--impl", &value, err)) != 0) {
            if (r < 0) return -1;
            if ((o->impl = mha_impl_find(value)) == NULL) {
                mha_cli_error(err, "bench-basic: --impl: unknown implementation '%s'", value);
                return -1;
            }
            continue;
        }
        for (size_t n = 0; n < sizeof names / sizeof names[0] && !matched; n++)
            if ((r = mha_option_value(argc, argv, &i, names[n], &value, err)) != 0) {
                if (r < 0 || mha_parse_size(names[n], value, fields[n], err) != 0) return -1;
                o->cross |= (n == 2);
                matched = 1;
            }
        if (!matched) {
            mha_cli_error(err, "bench-basic: unknown option '%s' (see 'mha bench-basic --help')",
                          argv[i]);
            return -1;
        }
    }
    if (!o->cross)
        o->shape.key_len = o->shape.query_len;
    return 0;
}
static float *bench_random(size_t n, unsigned long long *state, float scale)
{
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; x != NULL && i < n; i++) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = scale * (float)((double)(*state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
    return x;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
int mha_cmd_bench(int argc, char **argv, FILE *out, FILE *err)
{
    bench_options o;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fprintf(out,
            "usage: mha bench-basic [--impl naive|batched] [--batch B] [--seq L] [--kv-len S]\n"
            "                 [--dim E] [--heads H] [--causal] [--reps R]\n"
            "Checks the implementation against the naive one on random inputs, then\n"
            "times R runs (default 7) and prints the median in key=value form:\n"
            "ms (median milliseconds), gflops (the forward pass's matrix-product\n"
            "operations per second) and maxdiff (largest difference from naive).\n"
            "Defaults: --impl batched --batch 1 --seq 128 --dim 128 --heads 4;\n"
            "without --kv-len the benchmark is self-attention.\n");
        return MHA_EXIT_OK;
    }
    if (parse_bench_options(argc, argv, &o, err) != 0)
        return MHA_EXIT_USAGE;
    mha_status status = mha_shape_check(&o.shape);
    if (status != MHA_OK || o.reps == 0) {
        mha_cli_error(err, "bench-basic: bad shape: %s",
                      status != MHA_OK ? mha_status_message(status) : "--reps must be positive");
        return MHA_EXIT_USAGE;
    }
    const mha_shape *s = &o.shape;
    const size_t E = s->embed_dim, n_q = s->batch * s->query_len * E,
                 n_kv = s->batch * s->key_len * E;
    unsigned long long state = 42;
    const float a = 1.0f / sqrtf((float)E);
    float *query = bench_random(n_q, &state, 1), *key = bench_random(o.cross ? n_kv : 0, &state, 1);
    float *in_w = bench_random(3 * E * E, &state, a), *in_b = bench_random(3 * E, &state, a);
    float *out_w = bench_random(E * E, &state, a), *out_b = bench_random(E, &state, a);
    float *ref = malloc(n_q * sizeof *ref), *got = malloc(n_q * sizeof *got);
    double *times = calloc(o.reps, sizeof *times);
    int result = MHA_EXIT_FAILURE;
    if (query && key && in_w && in_b && out_w && out_b && ref && got && times) {
        const mha_params params = {in_w, in_b, out_w, out_b};
        const mha_mask mask = {.causal = o.causal};
        const float *k = o.cross ? key : NULL;
        double worst = 0, scale = 1;
        status = mha_forward_naive(s, &params, query, k, k, &mask, ref, NULL);
        if (status == MHA_OK)
            status = o.impl->forward(s, &params, query, k, k, &mask, got, NULL);
        for (size_t i = 0; status == MHA_OK && i < n_q; i++) {
            double e = fabs((double)got[i] - ref[i]);
            worst = (e > worst || isnan(e)) ? e : worst;
            scale = fmax(scale, fabs((double)ref[i]));
        }
        if (status != MHA_OK)
            mha_cli_error(err, "bench-basic: %s: %s", o.impl->name, mha_status_message(status));
        else if (!(worst <= 1e-4 * scale))
            mha_cli_error(err, "bench-basic: %s disagrees with naive: max difference %.3g", o.impl->name, worst);
        else {
            for (size_t r = 0; r < o.reps; r++) {
                double t0 = seconds_now();
                o.impl->forward(s, &params, query, k, k, &mask, got, NULL);
                times[r] = seconds_now() - t0;
            }
            qsort(times, o.reps, sizeof *times, compare_doubles);
            const double median = times[o.reps / 2];
            const mha_flops f = mha_flop_count(s);
            fprintf(out, "impl=%s B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu ms=%.3f "
                         "gflops=%.2f maxdiff=%.2g\n",
                    o.impl->name, s->batch, s->query_len, s->key_len, s->embed_dim, s->heads,
                    o.causal, o.reps, median * 1e3, f.total / median / 1e9, worst);
            result = MHA_EXIT_OK;
        }
    } else
        mha_cli_error(err, "bench-basic: out of memory");
    free(query); free(key); free(in_w); free(in_b); free(out_w); free(out_b);
    free(ref); free(got); free(times);
    return result;
}
