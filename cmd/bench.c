/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "cli.h"
#include "clock.h"
#include "fast.h"

/* <<[[bench.c]] functions>> */
int bench_parse_options(int argc, char **argv, bench_options *o, int *help, FILE *err)
{
    *o = (bench_options){.shape = {1, 128, 0, 128, 4}, .reps = 7, .threads = mha_threads(),
                         .cache = 1024, .mib = 512, .part = "all"};
    const mha_option options[] = {
        /* <<[[bench]]'s options>> */
        {"--causal", MHA_OPTION_FLAG, &o->causal, 0, 0, 0, 0, NULL},
        {"--decode", MHA_OPTION_FLAG, &o->decode, 0, 0, 0, 0, NULL},
        {"--backward", MHA_OPTION_FLAG, &o->backward, 0, 0, 0, 0, NULL},
        {"--peak", MHA_OPTION_FLAG, &o->peak, 0, 0, 0, 0, NULL},
        {"--bandwidth", MHA_OPTION_FLAG, &o->bandwidth, 0, 0, 0, 0, NULL},
        {"--denormals", MHA_OPTION_FLAG, &o->denormals, 0, 0, 0, 0, NULL},
        {"--half-kc", MHA_OPTION_FLAG, &o->half_kc, 0, 0, 0, 0, NULL},
        {"--impl", MHA_OPTION_TEXT, &o->impl, 0, 0, 0, 0, NULL},
        {"--part", MHA_OPTION_TEXT, &o->part, 0, 0, 0, 0, NULL},
        {"--batch", MHA_OPTION_SIZE, &o->shape.batch, 1, SIZE_MAX, 0, 0, NULL},
        {"--seq", MHA_OPTION_SIZE, &o->shape.query_len, 1, SIZE_MAX, 0, 0, NULL},
        {"--kv-len", MHA_OPTION_SIZE, &o->shape.key_len, 1, SIZE_MAX, 0, 0, NULL},
        {"--dim", MHA_OPTION_SIZE, &o->shape.embed_dim, 1, SIZE_MAX, 0, 0, NULL},
        {"--heads", MHA_OPTION_SIZE, &o->shape.heads, 1, SIZE_MAX, 0, 0, NULL},
        {"--reps", MHA_OPTION_SIZE, &o->reps, 1, SIZE_MAX, 0, 0, NULL},
        {"--threads", MHA_OPTION_SIZE, &o->threads, 1, SIZE_MAX, 0, 0, NULL},
        {"--cache", MHA_OPTION_SIZE, &o->cache, 1, SIZE_MAX, 0, 0, NULL},
        {"--kv-heads", MHA_OPTION_SIZE, &o->kv_heads, 1, SIZE_MAX, 0, 0, NULL},
        {"--mib", MHA_OPTION_SIZE, &o->mib, 1, SIZE_MAX, 0, 0, NULL},
    };
    mha_command_line line;
    if (mha_cli_options(argc, argv, options, sizeof options / sizeof options[0], NULL, &line,
                        err) != MHA_EXIT_OK)
        return -1;
    *help = line.help;
    o->cross = o->shape.key_len != 0;
    if (!o->cross)
        o->shape.key_len = o->shape.query_len;
    if (o->kv_heads == 0)
        o->kv_heads = o->shape.heads;
    if (o->impl == NULL)
        o->impl = o->backward ? "blocked" : "batched";
    return 0;
}
/* <<[[bench.c]] functions>> */
enum { BENCH_REPS_MAX = 1000000 };

int bench_bounds_ok(const bench_options *o, FILE *err)
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
/* <<[[bench.c]] functions>> */
int mha_cmd_bench(int argc, char **argv, FILE *out, FILE *err)
{
    bench_options o;
    int help = 0;
    if (bench_parse_options(argc, argv, &o, &help, err) != 0)
        return MHA_EXIT_USAGE;
    if (help) {
        /* <<print the help of [[bench]]>> */
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
              "--part times the projections or the attention core within a 'blocked' pass,\n"
              "or (stages) the whole pass, the pass with fresh scratch, and each part;\n"
              "--half-kc (with --part proj) times the two products with depth blocks that\n"
              "fill half of L1 instead of all.\n"
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
    if (!bench_bounds_ok(&o, err))
        return MHA_EXIT_USAGE;
    if (mha_set_threads(o.threads) != MHA_OK)       /* bench_bounds_ok checked it */
        return MHA_EXIT_FAILURE;
    const fast_kernels *k = fast_kernels_select();
    int result;
    if (o.backward)
        result = bench_backward(&o, k, out, err);
    else if (o.peak)
        result = bench_peak(&o, k, out);
    else if (o.bandwidth)
        result = bench_bandwidth(&o, k, out, err);
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
/* <<[[bench.c]] functions>> */
double bench_seconds(void)
{
    return mha_seconds();
}

float *bench_random(size_t n, uint64_t *state, float scale)
{
    float *x = n <= SIZE_MAX / sizeof *x ? malloc((n ? n : 1) * sizeof *x) : NULL;
    for (size_t i = 0; x != NULL && i < n; i++)
        x[i] = scale * (float)mha_random_between(state, -1, 1);
    return x;
}
/* <<[[bench.c]] functions>> */
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

int bench_check_agrees(const char *name, mha_status status, double worst, double scale,
                       FILE *err)
{
    if (status != MHA_OK)
        mha_cli_error(err, "bench: %s: %s", name, mha_status_message(status));
    else if (!(worst <= 1e-4 * scale))
        mha_cli_error(err, "bench: %s disagrees with naive: max difference %.3g", name, worst);
    return status == MHA_OK && worst <= 1e-4 * scale;
}
/* <<[[bench.c]] functions>> */
static void book_stage(void *context, fast_stage stage)
{
    bench_stage_clock *c = context;
    const double now = bench_seconds();
    c->spent[c->running] += now - c->last;
    c->running = stage;
    c->last = now;
}

void bench_stages_start(bench_stage_clock *c)
{
    *c = (bench_stage_clock){{book_stage, c}, FAST_STAGE_OUTSIDE, 0, 0, 0, {0}};
    (void)fast_stage_timer_set(&c->timer);
    c->started = c->last = bench_seconds();
}

void bench_stages_stop(bench_stage_clock *c)
{
    book_stage(c, FAST_STAGE_OUTSIDE);
    (void)fast_stage_timer_set(NULL);
    c->whole = c->last - c->started;
}
