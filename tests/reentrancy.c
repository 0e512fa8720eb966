/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mha.h"
#include "random.h"
#include "reentrancy.h"

/* <<[[reentrancy.c]] functions>> */
struct job {
    const mha_impl *impl;
    mha_shape shape;
    int cross, causal;
    float *inputs, *out, *weights;     /* query, key, value, in_w, in_b, out_w, out_b */
    size_t n_out, n_w;
    mha_status status;
};

enum { JOB_REPEATS = 20 };
/* <<[[reentrancy.c]] functions>> */
static int make_job(struct job *j, const mha_impl *impl, mha_shape shape, int cross,
                    uint64_t seed)
{
    const size_t B = shape.batch, L = shape.query_len, S = shape.key_len, E = shape.embed_dim;
    const size_t n_inputs = B * L * E + 2 * B * S * E + 4 * E * E + 4 * E;
    *j = (struct job){impl, shape, cross, !cross, malloc(n_inputs * sizeof(float)),
                      malloc(B * L * E * sizeof(float)),
                      malloc(B * shape.heads * L * S * sizeof(float)),
                      B * L * E, B * shape.heads * L * S, MHA_ERR_ARG};
    for (size_t i = 0; j->inputs != NULL && i < n_inputs; i++)
        j->inputs[i] = (float)(mha_random_unit(&seed) - 0.5);
    return j->inputs && j->out && j->weights ? 0 : -1;
}
/* <<[[reentrancy.c]] functions>> */
static void *run_job(void *arg)
{
    struct job *j = arg;
    const size_t B = j->shape.batch, L = j->shape.query_len, S = j->shape.key_len;
    const size_t E = j->shape.embed_dim;
    const float *query = j->inputs, *key = query + B * L * E, *value = key + B * S * E;
    const float *in_w = value + B * S * E, *in_b = in_w + 3 * E * E;
    const float *out_w = in_b + 3 * E, *out_b = out_w + E * E;
    const mha_params params = {in_w, in_b, out_w, out_b};
    const mha_mask causal = {.causal = 1};
    for (int r = 0; r < JOB_REPEATS; r++)
        j->status = j->impl->forward(&j->shape, &params, query, j->cross ? key : NULL,
                                     j->cross ? value : NULL, j->causal ? &causal : NULL,
                                     j->out, j->weights);
    return NULL;
}
/* <<[[reentrancy.c]] functions>> */
static size_t compare_jobs(const struct job *alone, const struct job *together, FILE *report)
{
    size_t mismatches = 0;
    if (alone->status != MHA_OK || together->status != MHA_OK) {
        fprintf(report, "%s: status %d alone, %d in a thread\n", alone->impl->name,
                (int)alone->status, (int)together->status);
        return 1;
    }
    if (memcmp(alone->out, together->out, alone->n_out * sizeof(float)) != 0) {
        fprintf(report, "%s: output differs between threads and one after the other\n",
                alone->impl->name);
        mismatches++;
    }
    if (memcmp(alone->weights, together->weights, alone->n_w * sizeof(float)) != 0) {
        fprintf(report, "%s: weights differ between threads and one after the other\n",
                alone->impl->name);
        mismatches++;
    }
    return mismatches;
}
/* <<[[reentrancy.c]] functions>> */
size_t reentrancy_check(FILE *report)
{
    size_t mismatches = 0;
    for (size_t k = 0; k < mha_impl_count; k++) {
        const mha_impl *one = &mha_impls[k], *other = &mha_impls[(k + 1) % mha_impl_count];
        struct job alone[2], together[2];
        pthread_t threads[2];
        const int failed = make_job(&alone[0], one, (mha_shape){2, 7, 7, 12, 3}, 0, 31) +
                           make_job(&alone[1], other, (mha_shape){1, 5, 9, 16, 4}, 1, 32) +
                           make_job(&together[0], one, (mha_shape){2, 7, 7, 12, 3}, 0, 31) +
                           make_job(&together[1], other, (mha_shape){1, 5, 9, 16, 4}, 1, 32);
        /* <<run [[alone]] in turn and [[together]] in two threads, and compare>> */
        if (failed != 0) {
            fprintf(report, "reentrancy: out of memory\n");
            mismatches++;
        } else {
            run_job(&alone[0]);
            run_job(&alone[1]);
            int started = 0;
            for (int i = 0; i < 2; i++)
                started += pthread_create(&threads[i], NULL, run_job, &together[i]) == 0;
            for (int i = 0; i < started; i++)
                pthread_join(threads[i], NULL);
            mismatches += started == 2 ? 0 : 1;
            for (int i = 0; i < 2; i++)
                mismatches += compare_jobs(&alone[i], &together[i], report);
        }
        for (int i = 0; i < 2; i++) {
            free(alone[i].inputs); free(alone[i].out); free(alone[i].weights);
            free(together[i].inputs); free(together[i].out); free(together[i].weights);
        }
    }
    return mismatches;
}
