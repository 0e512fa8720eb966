/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "bench.h"
#include "cli.h"
#include "fast.h"

/* <<[[bench_forward.c]] functions>> */
static mha_status project_half_depth(const fast_kernels *k, const mha_shape *s,
                                     const mha_params *params, const float *query,
                                     const float *context, float *proj, float *out);
static int bench_forward_stages(const bench_options *o, const fast_kernels *k,
                                const mha_params *params, const float *query, float *got,
                                double worst, FILE *out, FILE *err);

int bench_forward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
{
    const mha_impl *impl = mha_impl_find(o->impl);
    const int part = strcmp(o->part, "all") == 0 ? 0 : strcmp(o->part, "proj") == 0 ? 1
                   : strcmp(o->part, "attention") == 0 ? 2
                   : strcmp(o->part, "stages") == 0 ? 3 : -1;
    /* <<refuse a bad implementation, part or shape for [[bench]]>> */
    if (impl == NULL) {
        mha_cli_error(err, "bench: --impl: unknown implementation '%s'", o->impl);
        return MHA_EXIT_USAGE;
    }
    if (part < 0 || (part > 0 && (impl->forward != mha_forward_blocked || o->cross))) {
        mha_cli_error(err, "bench: --part: '%s' needs 'all', or 'proj', 'attention' or 'stages' "
                      "with --impl blocked and self-attention", o->part);
        return MHA_EXIT_USAGE;
    }
    if (o->half_kc && part != 1) {
        mha_cli_error(err, "bench: --half-kc: only with --part proj");
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
    uint64_t state = mha_random_seeded(42);
    const float a = 1.0f / sqrtf((float)E);
    float *query = bench_random(n_q, &state, 1), *key = bench_random(o->cross ? n_kv : 0, &state, 1);
    float *in_w = bench_random(3 * E * E, &state, a), *in_b = bench_random(3 * E, &state, a);
    float *out_w = bench_random(E * E, &state, a), *out_b = bench_random(E, &state, a);
    float *ref = malloc(n_q * sizeof *ref), *got = malloc(n_q * sizeof *got);
    float *proj = malloc((o->half_kc ? 3 * n_q : 1) * sizeof *proj);
    double *times = o->reps < SIZE_MAX / sizeof *times - 1      /* --reps may be absurd */
                        ? calloc(o->reps + 1, sizeof *times) : NULL;
    int result = MHA_EXIT_FAILURE;
    if (query && key && in_w && in_b && out_w && out_b && ref && got && proj && times) {
        const mha_params params = {in_w, in_b, out_w, out_b};
        const mha_mask mask = {.causal = o->causal};
        /* <<check [[impl]] against the naive version, then time it or its [[part]]>> */
        const float *kin = o->cross ? key : NULL;
        double scale = 1, worst;
        status = mha_forward_naive(s, &params, query, kin, kin, &mask, ref, NULL);
        if (status == MHA_OK)
            status = impl->forward(s, &params, query, kin, kin, &mask, got, NULL);
        worst = status == MHA_OK ? bench_largest_difference(got, ref, n_q, &scale) : 0;
        if (!bench_check_agrees(impl->name, status, worst, scale, err))
            result = MHA_EXIT_FAILURE;
        else if (part == 3)
            result = bench_forward_stages(o, k, &params, query, got, worst, out, err);
        else {
            mha_status timed = MHA_OK;                             /* the first failure of a run */
            for (size_t r = 0; r <= o->reps; r++) {                /* run 0 warms up */
                /* <<run [[impl]] once, and time it or only its [[part]]>> */
                const double t0 = bench_seconds();
                bench_stage_clock clock = {0};
                mha_status once;
                if (o->half_kc)
                    once = project_half_depth(k, s, &params, query, ref, proj, got);
                else if (part == 0)
                    once = impl->forward(s, &params, query, kin, kin, &mask, got, NULL);
                else {
                    bench_stages_start(&clock);
                    once = impl->forward(s, &params, query, kin, kin, &mask, got, NULL);
                    bench_stages_stop(&clock);
                }
                const double *spent = clock.spent;
                times[r] = o->half_kc || part == 0 ? bench_seconds() - t0
                         : part == 1 ? spent[FAST_STAGE_PACK] + spent[FAST_STAGE_PROJECT_IN] +
                                       spent[FAST_STAGE_PROJECT_OUT]
                         : spent[FAST_STAGE_ATTEND];
                timed = timed != MHA_OK ? timed : once;
            }
            const double median = bench_median(times, o->reps);
            if (timed != MHA_OK)
                mha_cli_error(err, "bench: %s: %s", impl->name, mha_status_message(timed));
            else {
                /* <<print the forward measurement>> */
                const mha_flops f = bench_flop_count(s, o->causal);
                const double flops = part == 1 ? f.q_proj + f.kv_proj + f.out_proj
                                   : part == 2 ? f.scores + f.context : f.total;
                const double bytes = sizeof(float) * ((double)(n_q + (o->cross ? n_kv : 0)) + 4.0 * E * E + n_q);
                const double gflops = flops / median / 1e9, peak = bench_peak_gflops(k, 1u << 20);
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
/* <<[[bench_forward.c]] functions>> */
static mha_status project_half_depth(const fast_kernels *k, const mha_shape *s,
                                     const mha_params *params, const float *query,
                                     const float *context, float *proj, float *out)
{
    const size_t E = s->embed_dim, M = s->batch * s->query_len;
    fast_blocking blk = fast_blocking_for(k, E / s->heads);
    blk.kc = blk.kc / 32 * 16;                              /* the textbook half of L1 */
    fast_packed w;
    mha_status status = fast_pack(k, &blk, 3 * E, E, params->in_proj_weight, E, &w);
    if (status == MHA_OK)
        status = fast_product(k, &blk, M, query, E, &w, params->in_proj_bias, proj, 3 * E);
    fast_packed_free(&w);
    if (status == MHA_OK && (status = fast_pack(k, &blk, E, E, params->out_proj_weight, E,
                                                &w)) == MHA_OK)
        status = fast_product(k, &blk, M, context, E, &w, params->out_proj_bias, out, E);
    fast_packed_free(&w);
    return status;
}
/* <<[[bench_forward.c]] functions>> */
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
/* <<[[bench_forward.c]] functions>> */
enum { STAGES = 6 };
static int bench_forward_stages(const bench_options *o, const fast_kernels *k,
                                const mha_params *params, const float *query, float *got,
                                double worst, FILE *out, FILE *err)
{
    static const char *const names[STAGES] = {"ms", "fresh_ms", "pack_ms", "proj_in_ms",
                                              "attention_ms", "proj_out_ms"};
    static const fast_stage parts[STAGES - 2] = {FAST_STAGE_PACK, FAST_STAGE_PROJECT_IN,
                                                 FAST_STAGE_ATTEND, FAST_STAGE_PROJECT_OUT};
    const mha_shape *s = &o->shape;
    const size_t E = s->embed_dim, R = o->reps + 1;
    const mha_mask mask = {.causal = o->causal};
    double *t = calloc(STAGES * R, sizeof *t), median[STAGES];
    if (t == NULL) {
        mha_cli_error(err, "bench: out of memory");
        return MHA_EXIT_FAILURE;
    }
    mha_status timed = MHA_OK;                      /* the first failure of a run */
    for (size_t r = 0; r < R; r++) {
        /* <<time the pass with its stages, then with fresh scratch, into [[t[stage * R + r]]]>> */
        bench_stage_clock clock;
        mha_status once[2];
        bench_stages_start(&clock);
        once[0] = mha_forward_blocked(s, params, query, NULL, NULL, &mask, got, NULL);
        bench_stages_stop(&clock);
        fast_scratch_release();                               /* every block fresh, as before */
        const double t0 = bench_seconds();
        once[1] = mha_forward_blocked(s, params, query, NULL, NULL, &mask, got, NULL);
        t[R + r] = bench_seconds() - t0;
        t[r] = clock.whole;
        for (size_t part = 0; part < STAGES - 2; part++)
            t[(part + 2) * R + r] = clock.spent[parts[part]];
        for (int i = 0; i < 2; i++)
            timed = timed != MHA_OK ? timed : once[i];
    }
    if (timed != MHA_OK) {
        mha_cli_error(err, "bench: blocked: %s", mha_status_message(timed));
        free(t);
        return MHA_EXIT_FAILURE;
    }
    for (size_t stage = 0; stage < STAGES; stage++)
        median[stage] = 1e3 * bench_median(t + stage * R, o->reps);
    /* <<print the stages of the blocked pass>> */
    const double parts_ms = median[2] + median[3] + median[4] + median[5];
    const mha_flops f = bench_flop_count(s, o->causal);
    fprintf(out, "impl=blocked B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d reps=%zu gflops=%.2f "
                 "maxdiff=%.2g threads=%zu part=stages isa=%s", s->batch, s->query_len,
            s->key_len, E, s->heads, o->causal, o->reps, f.total / median[0] / 1e6, worst,
            o->threads, k->name);
    for (size_t stage = 0; stage < STAGES; stage++)
        fprintf(out, " %s=%.3f", names[stage], median[stage]);
    fprintf(out, " outside_ms=%.3f\n", median[0] - parts_ms);
    free(t);
    return MHA_EXIT_OK;
}
