/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "bench.h"
#include "cli.h"
#include "fast.h"

/* <<[[bench_backward.c]] functions>> */
static int bench_backward_stages(const bench_options *o, const fast_kernels *k,
                                 const mha_params *params, const float *x, const float *gy,
                                 float *y, const mha_grads *grads, double worst, FILE *out,
                                 FILE *err);
/* <<[[bench_backward.c]] functions>> */
int bench_backward(const bench_options *o, const fast_kernels *k, FILE *out, FILE *err)
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
    uint64_t state = mha_random_seeded(43);
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
        /* <<check [[impl]]'s gradients against the naive ones, then time it>> */
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
        if (!bench_check_agrees(impl->name, status, worst, largest, err))
            result = MHA_EXIT_FAILURE;
        else if (stages)
            result = bench_backward_stages(o, k, &params, x, gy, y, &got, worst, out, err);
        else {
            mha_status timed = MHA_OK;                             /* the first failure of a run */
            /* <<time [[impl]]'s forward and backward passes [[o->reps]] times>> */
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
                /* <<print the backward measurement>> */
                const double median = bench_median(times, o->reps);
                const double gflops = 3.0 * bench_flop_count(s, o->causal).total / median / 1e9;
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
/* <<[[bench_backward.c]] functions>> */
enum { BACKWARD_STAGES = 7 };
static int bench_backward_stages(const bench_options *o, const fast_kernels *k,
                                 const mha_params *params, const float *x, const float *gy,
                                 float *y, const mha_grads *grads, double worst, FILE *out,
                                 FILE *err)
{
    static const char *const names[BACKWARD_STAGES] = {
        "ms", "fwd_proj_ms", "fwd_core_ms", "fwd_out_ms", "bwd_out_ms", "bwd_core_ms",
        "bwd_in_ms"};
    static const fast_stage parts[BACKWARD_STAGES - 1] = {
        FAST_STAGE_PROJECT_IN, FAST_STAGE_ATTEND, FAST_STAGE_PROJECT_OUT, FAST_STAGE_GRAD_OUT,
        FAST_STAGE_GRAD_ATTEND, FAST_STAGE_GRAD_IN};
    const mha_shape *s = &o->shape;
    const size_t R = o->reps + 1;
    const mha_mask mask = {.causal = o->causal};
    double *t = calloc(BACKWARD_STAGES * R, sizeof *t), median[BACKWARD_STAGES];
    mha_status status = t ? MHA_OK : MHA_ERR_NOMEM;
    for (size_t r = 0; r < R && status == MHA_OK; r++) {
        /* <<time one training step whole and in its six parts>> */
        bench_stage_clock clock;
        mha_saved saved;
        bench_stages_start(&clock);
        status = mha_forward_saving(s, params, x, NULL, NULL, &mask, y, &saved);
        if (status == MHA_OK)
            status = mha_backward_saved(params, x, NULL, NULL, &mask, &saved, gy, grads);
        mha_saved_free(&saved);
        bench_stages_stop(&clock);
        t[r] = clock.whole;
        for (size_t part = 0; part + 1 < BACKWARD_STAGES; part++)
            t[(part + 1) * R + r] = clock.spent[parts[part]];
    }
    if (status == MHA_OK) {
        /* <<print the stages of the training step>> */
        double parts_ms = 0;
        for (size_t stage = 0; stage < BACKWARD_STAGES; stage++) {
            median[stage] = 1e3 * bench_median(t + stage * R, o->reps);
            parts_ms += stage > 0 ? median[stage] : 0;
        }
        fprintf(out, "impl=blocked backward=1 part=stages B=%zu L=%zu S=%zu E=%zu H=%zu causal=%d "
                     "reps=%zu", s->batch, s->query_len, s->query_len, s->embed_dim, s->heads,
                o->causal, o->reps);
        for (size_t stage = 0; stage < BACKWARD_STAGES; stage++)
            fprintf(out, " %s=%.3f", names[stage], median[stage]);
        fprintf(out, " outside_ms=%.3f maxdiff=%.2g threads=%zu isa=%s\n", median[0] - parts_ms,
                worst, o->threads, k->name);
    } else
        mha_cli_error(err, "bench: --part stages: %s", mha_status_message(status));
    free(t);
    return status == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
