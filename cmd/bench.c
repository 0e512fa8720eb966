/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "bench.h"
#include "cli.h"
#include "clock.h"
#include "fast.h"
#include "fast_backward.h"

typedef struct bench_options {
    const char *impl;
    mha_shape shape;
    int cross, causal, decode, peak, bandwidth, denormals, half_kc;
    size_t reps, threads, cache, kv_heads, mib;
    const char *part;                       /* "all", "proj" or "attention" */
} bench_options;
static int print_bandwidth(const fast_kernels *k, const bench_options *o, FILE *out, FILE *err);
static int floats_fit(size_t a, size_t b, size_t c);
static int bench_bounds_ok(const bench_options *o, FILE *err);
static int bench_forward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err);
static int bench_decode(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err);
static int bench_stages(const bench_options *o, const fast_kernels *k, const mha_params *params,
                        const float *query, float *proj, float *concat, float *got,
                        double worst, FILE *out, FILE *err);
static int bench_denormals(const fast_kernels *k, FILE *out, FILE *err);
static double peak_gflops(const fast_kernels *k, size_t rounds);
static double bandwidth_gbs(const fast_kernels *k, size_t bytes);
static int bench_backward_command(int argc, char **argv, int flag, FILE *out, FILE *err);
static int bench_backward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err);
static int bench_backward_stages(const bench_options *o, const fast_kernels *k,
                                 const mha_params *params, const float *x, const float *gy,
                                 const mha_grads *grads, double worst, FILE *out, FILE *err);
static int parse_bench_options(int argc, char **argv, const char *default_impl,
                               bench_options *o, FILE *err)
{
    *o = (bench_options){NULL, {1, 128, 128, 128, 4}, 0, 0, 0, 0, 0, 0, 0, 7,
                         mha_threads(), 1024, 0, 512, "all"};
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int r;
        static const char *const flags[] = {"--causal", "--decode", "--peak", "--bandwidth",
                                            "--denormals", "--half-kc"};
        int *const flag_fields[] = {&o->causal, &o->decode, &o->peak, &o->bandwidth, &o->denormals,
                                    &o->half_kc};
        int flagged = 0;
        for (size_t f = 0; f < 6; f++)
            if (strcmp(argv[i], flags[f]) == 0)
                *flag_fields[f] = flagged = 1;
        if (flagged)
            continue;
        if ((r = mha_option_value(argc, argv, &i, "--impl", &value, err)) != 0) {
            if (r < 0) return -1;
            o->impl = value;
            continue;
        }
        if ((r = mha_option_value(argc, argv, &i, "--part", &value, err)) != 0) {
            if (r < 0) return -1;
            o->part = value;
            continue;
        }
        static const char *const names[] = {"--batch", "--seq", "--kv-len", "--dim", "--heads", "--reps",
                                            "--threads", "--cache", "--kv-heads", "--mib"};
        size_t *const fields[] = {&o->shape.batch, &o->shape.query_len, &o->shape.key_len,
                                  &o->shape.embed_dim, &o->shape.heads, &o->reps, &o->threads,
                                  &o->cache, &o->kv_heads, &o->mib};
        int matched = 0;
        for (size_t n = 0; n < sizeof names / sizeof names[0] && !matched; n++)
            if ((r = mha_option_value(argc, argv, &i, names[n], &value, err)) != 0) {
                if (r < 0 || mha_parse_size(names[n], value, fields[n], err) != 0) return -1;
                o->cross |= (n == 2);
                matched = 1;
            }
        if (!matched) {
            mha_cli_error(err, "bench: unknown option '%s' (see 'mha %s --help')", argv[i], argv[0]);
            return -1;
        }
    }
    if (!o->cross)
        o->shape.key_len = o->shape.query_len;
    if (o->kv_heads == 0)
        o->kv_heads = o->shape.heads;
    if (o->impl == NULL)
        o->impl = default_impl;
    return 0;
}
enum { BENCH_REPS_MAX = 1000000 };

static int bench_bounds_ok(const bench_options *o, FILE *err)
{
    if (o->reps > BENCH_REPS_MAX) {
        mha_cli_error(err, "bench: --reps: %zu is more than %d", o->reps, BENCH_REPS_MAX);
        return 0;
    }
    if (o->threads == 0 || o->threads > mha_threads_max()) {
        mha_cli_error(err, "bench: --threads: %zu is not between 1 and %zu (%d per core)",
                      o->threads, mha_threads_max(), MHA_THREADS_PER_CORE);
        return 0;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    const size_t half_memory_mib = pages > 0 && page_size > 0
        ? (size_t)((double)pages * (double)page_size / 2 / (1 << 20)) : 1024;
    if (o->bandwidth && (o->mib == 0 || o->mib > half_memory_mib)) {
        mha_cli_error(err, "bench: --mib: %zu is not between 1 and %zu (half of this machine's "
                      "memory)", o->mib, half_memory_mib);
        return 0;
    }
    return 1;
}
int mha_cmd_bench(int argc, char **argv, FILE *out, FILE *err)
{
    bench_options o;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fprintf(out,
            "usage: mha %s [--impl NAME] [--batch B] [--seq L] [--kv-len S] [--dim E]\n"
            "       [--heads H] [--causal] [--reps R] [--threads N]\n"
            "       [--part all|proj|attention|stages]\n"
            "       [--half-kc]\n"
            "   or: mha %s --decode [--cache T] [--kv-heads K] [--batch B] [--dim E]\n"
            "       [--heads H] [--impl NAME] [--reps R] [--threads N]\n"
            "   or: mha %s --peak [--threads N] | --bandwidth [--mib M] [--threads N] | --denormals\n",
            argv[0], argv[0], argv[0]);
        fputs("Checks the implementation against the naive one on random inputs, then times\n"
              "R runs (default 7) and prints the median in key=value form: ms, gflops,\n"
              "peak (gflops as a fraction of this machine's FMA peak on N threads), maxdiff.\n"
              "Defaults: --impl batched --batch 1 --seq 128 --dim 128 --heads 4, one thread\n"
              "per core or OMP_NUM_THREADS; self-attention unless --kv-len is given.\n"
              "--part times only the projections or only the attention core of 'blocked',\n"
              "or (stages) the whole pass, the pass with fresh scratch, and each part;\n"
              "--half-kc makes the product's depth blocks fill half of L1 instead of all.\n"
              "--decode times one decoding step over a cache of T positions (default 1024).\n"
              "--backward times a forward pass that keeps its state plus the backward pass\n"
              "(--impl naive|blocked, default blocked; self-attention); with --part stages,\n"
              "the blocked step whole and its six parts.\n"
              "--peak and --bandwidth measure the machine: FMA throughput (with the cache\n"
              "sizes in KiB and the block sizes derived from them for D = 64), read bandwidth;\n"
              "--denormals times the weighted sum of values with tiny and with normal weights.\n"
              "Kernels: MHA_ISA=scalar|avx2|avx512 or MHA_FORCE_SCALAR=1 choose them.\n", out);
        return MHA_EXIT_OK;
    }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--backward") == 0)
            return bench_backward_command(argc, argv, i, out, err);
    if (parse_bench_options(argc, argv, "batched", &o, err) != 0)
        return MHA_EXIT_USAGE;
    if (!bench_bounds_ok(&o, err))
        return MHA_EXIT_USAGE;
    if (mha_set_threads(o.threads) != MHA_OK)       /* bench_bounds_ok checked it */
        return MHA_EXIT_FAILURE;
    const fast_kernels *k = fast_kernels_select();
    int result;
    if (o.peak)
        {
            const fast_blocking b = fast_blocking_for(k, 64);
            result = fprintf(out, "peak_gflops=%.1f threads=%zu isa=%s l1=%zu l2=%zu kc=%zu mc=%zu "
                                  "bq=%zu bk=%zu\n", peak_gflops(k, 1u << 22), o.threads,
                             k->name, b.l1 >> 10, b.l2 >> 10, b.kc, b.mc, b.bq, b.bk) > 0 ? 0 : 1;
        }
    else if (o.bandwidth)
        result = print_bandwidth(k, &o, out, err);
    else if (o.denormals)
        result = bench_denormals(k, out, err);
    else if (o.decode)
        result = bench_decode(&o, k, out, err);
    else
        result = bench_forward(&o, k, out, err);
    if (mha_set_threads(0) != MHA_OK)                 /* the default: never refused */
        result = MHA_EXIT_FAILURE;
    return result;
}
double bench_seconds(void)
{
    return mha_seconds();
}

float *bench_random(size_t n, unsigned long long *state, float scale)
{
    float *x = n <= SIZE_MAX / sizeof *x ? malloc((n ? n : 1) * sizeof *x) : NULL;
    for (size_t i = 0; x != NULL && i < n; i++) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = scale * (float)((double)(*state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
    return x;
}
static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *times, size_t reps)
{
    qsort(times + 1, reps, sizeof *times, by_value);
    return times[1 + reps / 2];
}

double bench_largest_difference(const float *got, const float *want, size_t n, double *scale)
{
    double worst = 0;
    *scale = 1;
    for (size_t i = 0; i < n; i++) {
        const double e = fabs((double)got[i] - want[i]);
        worst = (e > worst || isnan(e)) ? e : worst;
        *scale = fmax(*scale, fabs((double)want[i]));
    }
    return worst;
}
static int bench_forward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const mha_impl *impl = mha_impl_find(o->impl);
    const int part = strcmp(o->part, "all") == 0 ? 0 : strcmp(o->part, "proj") == 0 ? 1
                   : strcmp(o->part, "attention") == 0 ? 2
                   : strcmp(o->part, "stages") == 0 ? 3 : -1;
    if (impl == NULL) {
        mha_cli_error(err, "bench: --impl: unknown implementation '%s'", o->impl);
        return MHA_EXIT_USAGE;
    }
    if (part < 0 || (part > 0 && (impl->forward != mha_forward_blocked || o->cross))) {
        mha_cli_error(err, "bench: --part: '%s' needs 'all', or 'proj', 'attention' or 'stages' "
                      "with --impl blocked and self-attention", o->part);
        return MHA_EXIT_USAGE;
    }
    mha_status status = mha_shape_check(&o->shape);
    if (status != MHA_OK || o->reps == 0) {
        mha_cli_error(err, "bench: bad shape: %s",
                      status != MHA_OK ? mha_status_message(status) : "--reps must be positive");
        return MHA_EXIT_USAGE;
    }
    const mha_shape *s = &o->shape;
    const size_t E = s->embed_dim, n_q = s->batch * s->query_len * E,
                 n_kv = s->batch * s->key_len * E;
    unsigned long long state = 42;
    const float a = 1.0f / sqrtf((float)E);
    float *query = bench_random(n_q, &state, 1), *key = bench_random(o->cross ? n_kv : 0, &state, 1);
    float *in_w = bench_random(3 * E * E, &state, a), *in_b = bench_random(3 * E, &state, a);
    float *out_w = bench_random(E * E, &state, a), *out_b = bench_random(E, &state, a);
    float *ref = malloc(n_q * sizeof *ref), *got = malloc(n_q * sizeof *got);
    float *proj = malloc(3 * n_q * sizeof *proj);
    double *times = o->reps < SIZE_MAX / sizeof *times - 1      /* --reps may be absurd */
                        ? calloc(o->reps + 1, sizeof *times) : NULL;
    int result = MHA_EXIT_FAILURE;
    if (query && key && in_w && in_b && out_w && out_b && ref && got && proj && times) {
        const mha_params params = {in_w, in_b, out_w, out_b};
        const mha_mask mask = {.causal = o->causal};
        const float *kin = o->cross ? key : NULL;
        double scale, worst;
        status = mha_forward_naive(s, &params, query, kin, kin, &mask, ref, NULL);
        if (status == MHA_OK)
            status = impl->forward(s, &params, query, kin, kin, &mask, got, NULL);
        worst = status == MHA_OK ? bench_largest_difference(got, ref, n_q, &scale) : 0;
        if (status != MHA_OK)
            mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(status));
        else if (!(worst <= 1e-4 * scale))
            mha_cli_error(err, "bench: %s disagrees with naive: max difference %.3g", impl->name, worst);
        else if (part == 3)
            result = bench_stages(o, k, &params, query, proj, ref, got, worst, out, err);
        else {
            mha_status timed = MHA_OK;                             /* the first failure of a run */
            for (size_t r = 0; r <= o->reps; r++) {                /* run 0 warms up */
                const double t0 = bench_seconds();
                fast_blocking blk = fast_blocking_for(k, E / s->heads);
                const size_t M = s->batch * s->query_len;
                blk.kc = o->half_kc ? blk.kc / 32 * 16 : blk.kc;       /* the textbook half of L1 */
                fast_packed w;
                mha_status once = MHA_OK;
                if (part == 0)
                    once = impl->forward(s, &params, query, kin, kin, &mask, got, NULL);
                else if (part == 1 && (once = fast_pack(k, &blk, 3 * E, E, in_w, E, &w)) == MHA_OK) {
                    once = fast_gemm(k, &blk, M, query, E, &w, in_b, proj, 3 * E);
                    fast_packed_free(&w);
                    if (once == MHA_OK && (once = fast_pack(k, &blk, E, E, out_w, E, &w)) == MHA_OK)
                        once = fast_gemm(k, &blk, M, ref, E, &w, out_b, got, E);
                    fast_packed_free(&w);
                } else if (part == 2) {
                    const fast_attention at = {s->batch, s->heads, s->query_len, s->query_len, E / s->heads,
                                               proj, proj + E, proj + 2 * E, 3 * E, 3 * E, 3 * E, &mask, got, NULL};
                    once = fast_attend(k, &blk, &at);
                }
                timed = timed != MHA_OK ? timed : once;
                times[r] = bench_seconds() - t0;
            }
            const double median = bench_median(times, o->reps);
            if (timed != MHA_OK)
                mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(timed));
            else {
                const mha_flops f = bench_flop_count(s, o->causal);
                const double flops = part == 1 ? f.q_proj + f.kv_proj + f.out_proj
                                   : part == 2 ? f.scores + f.context : f.total;
                const double bytes = sizeof(float) * ((double)(n_q + (o->cross ? n_kv : 0)) + 4.0 * E * E + n_q);
                const double gflops = flops / median / 1e9, peak = peak_gflops(k, 1u << 20);
                fprintf(out, "impl=%s B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu ms=%.3f "
                             "gflops=%.2f maxdiff=%.2g threads=%zu part=%s%s peak=%.3f isa=%s bytes=%.0f\n",
                        impl->name, s->batch, s->query_len, s->key_len, E, s->heads, o->causal, o->reps,
                        median * 1e3, gflops, worst, o->threads, o->part, o->half_kc ? " half_kc=1" : "",
                        gflops / peak, k->name, bytes);
                result = MHA_EXIT_OK;
            }
        }
    } else
        mha_cli_error(err, "bench: out of memory");
    free(query); free(key); free(in_w); free(in_b); free(out_w); free(out_b);
    free(ref); free(got); free(proj); free(times);
    return result;
}
mha_flops bench_flop_count(const mha_shape *s, int causal)
{
    mha_flops f = mha_flop_count(s);
    const double L = (double)s->query_len, S = (double)s->key_len;
    const double kept = L <= S ? L * (L + 1) / 2 : S * (S + 1) / 2 + (L - S) * S;
    const double share = causal && L > 0 && S > 0 ? kept / (L * S) : 1.0;
    f.scores *= share;
    f.context *= share;
    f.softmax *= share;
    f.total = f.q_proj + f.kv_proj + f.scores + f.context + f.out_proj;
    return f;
}
enum { STAGES = 6 };
static int bench_stages(const bench_options *o, const fast_kernels *k, const mha_params *params,
                        const float *query, float *proj, float *concat, float *got,
                        double worst, FILE *out, FILE *err)
{
    static const char *const names[STAGES] = {"ms", "fresh_ms", "pack_ms", "proj_in_ms",
                                              "attention_ms", "proj_out_ms"};
    const mha_shape *s = &o->shape;
    const size_t E = s->embed_dim, M = s->batch * s->query_len, R = o->reps + 1;
    const fast_blocking blk = fast_blocking_for(k, E / s->heads);
    const mha_mask mask = {.causal = o->causal};
    double *t = calloc(STAGES * R, sizeof *t), median[STAGES];
    if (t == NULL) {
        mha_cli_error(err, "bench: out of memory");
        return MHA_EXIT_FAILURE;
    }
    mha_status timed = MHA_OK;                      /* the first failure of a run */
    for (size_t r = 0; r < R; r++) {
        double at[STAGES + 1];
        fast_packed w_in = {0}, w_out = {0};
        mha_status once[7] = {MHA_OK, MHA_OK, MHA_OK, MHA_OK, MHA_OK, MHA_OK, MHA_OK};
        at[0] = bench_seconds();
        once[0] = mha_forward_blocked(s, params, query, NULL, NULL, &mask, got, NULL);
        at[1] = bench_seconds();
        fast_scratch_release();                               /* every block fresh, as before */
        once[1] = mha_forward_blocked(s, params, query, NULL, NULL, &mask, got, NULL);
        at[2] = bench_seconds();
        if ((once[2] = fast_pack(k, &blk, 3 * E, E, params->in_proj_weight, E, &w_in)) == MHA_OK)
            once[3] = fast_pack(k, &blk, E, E, params->out_proj_weight, E, &w_out);
        at[3] = bench_seconds();
        if (w_in.data && w_out.data) {
            const fast_attention a = {s->batch, s->heads, s->query_len, s->query_len, E / s->heads,
                                      proj, proj + E, proj + 2 * E, 3 * E, 3 * E, 3 * E, &mask,
                                      concat, NULL};
            once[4] = fast_gemm(k, &blk, M, query, E, &w_in, params->in_proj_bias, proj, 3 * E);
            at[4] = bench_seconds();
            once[5] = fast_attend(k, &blk, &a);
            at[5] = bench_seconds();
            once[6] = fast_gemm(k, &blk, M, concat, E, &w_out, params->out_proj_bias, got, E);
        }
        at[6] = bench_seconds();
        for (int i = 0; i < 7; i++)
            timed = timed != MHA_OK ? timed : once[i];
        fast_packed_free(&w_in); fast_packed_free(&w_out);
        for (size_t stage = 0; stage < STAGES; stage++)
            t[stage * R + r] = at[stage + 1] - at[stage];
    }
    if (timed != MHA_OK) {
        mha_cli_error(err, "bench: blocked: %s", mha_status_message(timed));
        free(t);
        return MHA_EXIT_FAILURE;
    }
    for (size_t stage = 0; stage < STAGES; stage++)
        median[stage] = 1e3 * bench_median(t + stage * R, o->reps);
    const double parts = median[2] + median[3] + median[4] + median[5];
    const mha_flops f = bench_flop_count(s, o->causal);
    fprintf(out, "impl=blocked B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu gflops=%.2f "
                 "maxdiff=%.2g threads=%zu part=stages isa=%s", s->batch, s->query_len,
            s->key_len, E, s->heads, o->causal, o->reps, f.total / median[0] / 1e6, worst,
            o->threads, k->name);
    for (size_t stage = 0; stage < STAGES; stage++)
        fprintf(out, " %s=%.3f", names[stage], median[stage]);
    fprintf(out, " outside_ms=%.3f\n", median[0] - parts);
    free(t);
    return MHA_EXIT_OK;
}
static int bench_decode(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const mha_decode_impl *impl = mha_decode_impl_find(o->impl);
    const size_t B = o->shape.batch, E = o->shape.embed_dim, H = o->shape.heads,
                 G = o->kv_heads, T = o->cache;
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
    unsigned long long state = 7;
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
        for (size_t b = 0; b < B; b++)
            for (size_t g = 0; g < G; g++) {
                float *keys = bench_random(T * D, &state, 1), *values = bench_random(T * D, &state, 1);
                if (keys && values) {
                    memcpy(cache.keys + (b * G + g) * (T + 1) * D, keys, T * D * sizeof *keys);
                    memcpy(cache.values + (b * G + g) * (T + 1) * D, values, T * D * sizeof *values);
                }
                free(keys); free(values);
            }
        double scale, worst = 0;
        for (size_t b = 0; b < B; b++) cache.length[b] = T;
        mha_status status = mha_decode_step_naive(&dec, &cache, 1, x, NULL, ref, NULL);
        for (size_t b = 0; b < B; b++) cache.length[b] = T;
        if (status == MHA_OK)
            status = impl->step(&dec, &cache, 1, x, NULL, got, NULL);
        worst = status == MHA_OK ? bench_largest_difference(got, ref, B * E, &scale) : 0;
        if (status != MHA_OK)
            mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(status));
        else if (!(worst <= 1e-4 * scale))
            mha_cli_error(err, "bench: %s disagrees with naive: max difference %.3g", impl->name, worst);
        else {
            for (size_t r = 0; r <= o->reps; r++) {
                for (size_t b = 0; b < B; b++) cache.length[b] = T;
                const double t0 = bench_seconds();
                impl->step(&dec, &cache, 1, x, NULL, got, NULL);
                times[r] = bench_seconds() - t0;
            }
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
/* Whether a * b * c floats can be counted in bytes by a size_t. */
static int floats_fit(size_t a, size_t b, size_t c)
{
    size_t n;
    return !mha_mul_overflows(a, b, &n) && !mha_mul_overflows(n, c, &n) &&
           !mha_mul_overflows(n, sizeof(float), &n);
}
static int bench_backward_command(int argc, char **argv, int flag, FILE *out, FILE *err)
{
    char **rest = malloc((size_t)argc * sizeof *rest);
    int n = 0;
    if (rest == NULL) {
        mha_cli_error(err, "bench: out of memory");
        return MHA_EXIT_FAILURE;
    }
    for (int i = 0; i < argc; i++)
        if (i != flag)
            rest[n++] = argv[i];
    bench_options o;
    const int parsed = parse_bench_options(n, rest, "blocked", &o, err);
    free(rest);
    if (parsed != 0)
        return MHA_EXIT_USAGE;
    if (!bench_bounds_ok(&o, err))
        return MHA_EXIT_USAGE;
    if (mha_set_threads(o.threads) != MHA_OK)       /* bench_bounds_ok checked it */
        return MHA_EXIT_FAILURE;
    const int result = bench_backward(&o, fast_kernels_select(), out, err);
    return mha_set_threads(0) == MHA_OK ? result : MHA_EXIT_FAILURE;
}
static int bench_backward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const mha_backward_impl *impl = mha_backward_impl_find(o->impl);
    mha_status status = mha_shape_check(&o->shape);
    const int stages = strcmp(o->part, "stages") == 0;
    const int part_ok = stages ? impl != NULL && impl->backward == mha_backward_blocked
                               : strcmp(o->part, "all") == 0;
    if (impl == NULL) {
        mha_cli_error(err, "bench: --backward: --impl: no backward pass named '%s' "
                      "(naive or blocked)", o->impl);
        return MHA_EXIT_USAGE;
    }
    if (o->cross || status != MHA_OK || o->reps == 0 || !part_ok) {
        mha_cli_error(err, "bench: --backward: %s", o->cross ? "self-attention only (no --kv-len)"
                      : status != MHA_OK ? mha_status_message(status)
                      : o->reps == 0 ? "--reps must be positive"
                      : !stages ? "--part: 'all' or 'stages'"
                      : "--part stages: the blocked version only");
        return MHA_EXIT_USAGE;
    }
    const mha_shape *s = &o->shape;
    const size_t E = s->embed_dim, n_x = s->batch * s->query_len * E;
    const size_t n[4] = {n_x, 3 * E * E, E * E, 4 * E};       /* dX, dW_in, dW_out, biases */
    unsigned long long state = 43;
    const float a = 1.0f / sqrtf((float)E);
    float *x = bench_random(n_x, &state, 1), *gy = bench_random(n_x, &state, 1);
    float *in_w = bench_random(3 * E * E, &state, a), *in_b = bench_random(3 * E, &state, a);
    float *out_w = bench_random(E * E, &state, a), *out_b = bench_random(E, &state, a);
    float *y = malloc(n_x * sizeof *y), *g[2][4];
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 4; i++)
            g[v][i] = malloc(n[i] * sizeof(float));
    double *times = o->reps < SIZE_MAX / sizeof *times - 1 ? calloc(o->reps + 1, sizeof *times)
                                                          : NULL;
    int result = MHA_EXIT_FAILURE, ready = x && gy && in_w && in_b && out_w && out_b && y && times;
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 4; i++)
            ready &= g[v][i] != NULL;
    if (ready) {
        const mha_params params = {in_w, in_b, out_w, out_b};
        const mha_mask mask = {.causal = o->causal};
        const mha_shape checked = {1, s->query_len < 256 ? s->query_len : 256, 0, E, s->heads};
        const mha_shape small = {1, checked.query_len, checked.query_len, E, s->heads};
        const mha_grads want = {g[0][0], NULL, NULL, g[0][1], g[0][3], g[0][2], g[0][3] + 3 * E};
        const mha_grads got = {g[1][0], NULL, NULL, g[1][1], g[1][3], g[1][2], g[1][3] + 3 * E};
        status = mha_backward_naive(&small, &params, x, NULL, NULL, &mask, gy, &want);
        if (status == MHA_OK)
            status = impl->backward(&small, &params, x, NULL, NULL, &mask, gy, &got);
        double worst = 0.0, scale, largest = 1.0;
        const size_t n_small[4] = {small.query_len * E, n[1], n[2], n[3]};
        for (int i = 0; status == MHA_OK && i < 4; i++) {
            const double e = bench_largest_difference(g[1][i], g[0][i], n_small[i], &scale);
            worst = (e > worst || isnan(e)) ? e : worst;
            largest = fmax(largest, scale);
        }
        if (status != MHA_OK)
            mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(status));
        else if (!(worst <= 1e-4 * largest))
            mha_cli_error(err, "bench: %s disagrees with naive: max difference %.3g", impl->name, worst);
        else if (stages)
            result = bench_backward_stages(o, k, &params, x, gy, &got, worst, out, err);
        else {
            mha_status timed = MHA_OK;                             /* the first failure of a run */
            for (size_t r = 0; r <= o->reps; r++) {                        /* run 0 warms up */
                const double t0 = bench_seconds();
                mha_status once;
                if (impl->backward == mha_backward_blocked) {
                    mha_saved saved;
                    once = mha_forward_saving(s, &params, x, NULL, NULL, &mask, y, &saved);
                    if (once == MHA_OK)
                        once = mha_backward_saved(&params, x, NULL, NULL, &mask, &saved, gy, &got);
                    mha_saved_free(&saved);
                } else {
                    once = mha_forward_naive(s, &params, x, NULL, NULL, &mask, y, NULL);
                    if (once == MHA_OK)
                        once = impl->backward(s, &params, x, NULL, NULL, &mask, gy, &got);
                }
                timed = timed != MHA_OK ? timed : once;
                times[r] = bench_seconds() - t0;
            }
            if (timed != MHA_OK)
                mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(timed));
            else {
                const double median = bench_median(times, o->reps);
                const double gflops = 3.0 * mha_flop_count(s).total / median / 1e9;
                fprintf(out, "impl=%s backward=1 B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu ms=%.3f "
                             "gflops=%.2f maxdiff=%.2g checked_seq=%zu threads=%zu isa=%s\n",
                        impl->name, s->batch, s->query_len, s->key_len, E, s->heads, o->causal, o->reps,
                        median * 1e3, gflops, worst, checked.query_len, o->threads, k->name);
                result = MHA_EXIT_OK;
            }
        }
    } else
        mha_cli_error(err, "bench: out of memory");
    free(x); free(gy); free(in_w); free(in_b); free(out_w); free(out_b); free(y); free(times);
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 4; i++)
            free(g[v][i]);
    return result;
}
enum { BACKWARD_STAGES = 7 };
static int bench_backward_stages(const bench_options *o, const fast_kernels *k,
                                 const mha_params *params, const float *x, const float *gy,
                                 const mha_grads *grads, double worst, FILE *out, FILE *err)
{
    static const char *const names[BACKWARD_STAGES] = {
        "ms", "fwd_proj_ms", "fwd_core_ms", "fwd_out_ms", "bwd_out_ms", "bwd_core_ms",
        "bwd_in_ms"};
    const mha_shape *s = &o->shape;
    const size_t B = s->batch, L = s->query_len, E = s->embed_dim, H = s->heads, M = B * L;
    const size_t R = o->reps + 1;
    const mha_mask mask = {.causal = o->causal};
    float *proj = malloc(M * 3 * E * sizeof *proj), *dproj = malloc(M * 3 * E * sizeof *dproj);
    float *ctx = malloc(M * E * sizeof *ctx), *dc = malloc(M * E * sizeof *dc);
    float *y = malloc(M * E * sizeof *y), *gx = malloc(2 * M * E * sizeof *gx);
    float *gw = malloc(4 * E * E * sizeof *gw), *lse = malloc(B * H * L * 2 * sizeof *lse);
    double *t = calloc(BACKWARD_STAGES * R, sizeof *t), median[BACKWARD_STAGES];
    mha_status status = proj && dproj && ctx && dc && y && gx && gw && lse && t
                        ? MHA_OK : MHA_ERR_NOMEM;
    for (size_t r = 0; r < R && status == MHA_OK; r++) {
        double at[BACKWARD_STAGES + 1];
        const fast_attention a = {B, H, L, L, E / H, proj, proj + E, proj + 2 * E, 3 * E, 3 * E, 3 * E,
                                  &mask, ctx, NULL};
        const fast_attention_grad g = {B, H, L, L, E / H, proj, proj + E, proj + 2 * E, 3 * E, 3 * E,
                                       3 * E, &mask, ctx, dc, lse, dproj, dproj + E, dproj + 2 * E,
                                       3 * E, 3 * E, 3 * E};
        const float *W = params->in_proj_weight, *Wo = params->out_proj_weight;
        mha_saved saved;
        at[0] = bench_seconds();
        status = mha_forward_saving(s, params, x, NULL, NULL, &mask, y, &saved);
        if (status == MHA_OK)
            status = mha_backward_saved(params, x, NULL, NULL, &mask, &saved, gy, grads);
        mha_saved_free(&saved);
        at[1] = bench_seconds();
        if (status == MHA_OK)
            status = mha_product_nt(M, 3 * E, E, x, E, W, E, proj, 3 * E);
        at[2] = bench_seconds();
        if (status == MHA_OK)
            status = fast_attend_lse(k, &a, lse);
        at[3] = bench_seconds();
        if (status == MHA_OK)
            status = mha_product_nt(M, E, E, ctx, E, Wo, E, y, E);
        at[4] = bench_seconds();
        if (status == MHA_OK)
            status = mha_product_nn(M, E, E, gy, E, Wo, E, dc, E);
        if (status == MHA_OK)
            status = mha_product_tn(E, E, M, gy, E, ctx, E, gw + 3 * E * E, E);
        at[5] = bench_seconds();
        if (status == MHA_OK)
            status = fast_attend_backward(k, &g);
        at[6] = bench_seconds();
        if (status == MHA_OK)
            status = mha_product_tn(3 * E, E, M, dproj, 3 * E, x, E, gw, E);
        for (size_t part = 0; part < 3 && status == MHA_OK; part++)
            status = mha_product_nn(M, E, E, dproj + part * E, 3 * E, W + part * E * E, E,
                                    gx + (part > 0) * M * E, E);
        at[7] = bench_seconds();
        for (size_t stage = 0; stage < BACKWARD_STAGES; stage++)
            t[stage * R + r] = at[stage + 1] - at[stage];
    }
    if (status == MHA_OK) {
        double parts = 0;
        for (size_t stage = 0; stage < BACKWARD_STAGES; stage++) {
            median[stage] = 1e3 * bench_median(t + stage * R, o->reps);
            parts += stage > 0 ? median[stage] : 0;
        }
        fprintf(out, "impl=blocked backward=1 part=stages B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d "
                     "reps=%zu", B, L, L, E, H, o->causal, o->reps);
        for (size_t stage = 0; stage < BACKWARD_STAGES; stage++)
            fprintf(out, " %s=%.3f", names[stage], median[stage]);
        fprintf(out, " outside_ms=%.3f maxdiff=%.2g threads=%zu isa=%s\n", median[0] - parts, worst,
                o->threads, k->name);
    } else
        mha_cli_error(err, "bench: --part stages: %s", mha_status_message(status));
    free(proj); free(dproj); free(ctx); free(dc); free(y); free(gx); free(gw); free(lse);
    free(t);
    return status == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
static double peak_gflops(const fast_kernels *k, size_t rounds)
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
static int print_bandwidth(const fast_kernels *k, const bench_options *o, FILE *out, FILE *err)
{
    const double gbs = bandwidth_gbs(k, o->mib << 20);
    if (gbs < 0) {
        mha_cli_error(err, "bench: --mib: cannot allocate %zu MiB", o->mib);
        return MHA_EXIT_FAILURE;
    }
    return fprintf(out, "bandwidth_gbs=%.1f threads=%zu mib=%zu\n", gbs, o->threads,
                   o->mib) > 0 ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
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
static int bench_denormals(const fast_kernels *k, FILE *out, FILE *err)
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
