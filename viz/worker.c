/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "training.h"

/* <<[[worker.c]] functions>> */
mha_status viz_snapshot_init(viz_snapshot *s, size_t count, size_t weights)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->params = calloc(count, sizeof(float));
    s->weights = calloc(weights, sizeof(float));
    float **history[4] = {&s->loss, &s->accuracy, &s->previous, &s->induction};
    for (int k = 0; k < 4; k++)
        *history[k] = calloc(VIZ_TRAIN_MAX_STEPS, sizeof(float));
    if (!s->params || !s->weights || !s->loss || !s->accuracy || !s->previous || !s->induction) {
        viz_snapshot_free(s);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}

void viz_snapshot_free(viz_snapshot *s)
{
    free(s->params); free(s->weights);
    free(s->loss); free(s->accuracy); free(s->previous); free(s->induction);
    memset(s, 0, sizeof *s);
}
/* <<[[worker.c]] functions>> */
size_t viz_induction_step(const float *induction, size_t steps)
{
    for (size_t k = 0; k < steps; k++)
        if (induction[k] > VIZ_INDUCTION_THRESHOLD)
            return k + 1;
    return 0;
}
/* <<[[worker.c]] functions>> */
static mha_head_scores measure_probe(viz_trainer *t, double *best_previous, double *best_induction,
                                     mha_status *status)
{
    mha_head_scores scores;
    *status = mha_induction_trainer_measure(&t->run, &scores);
    *best_previous = *best_induction = 0;
    for (size_t h = 0; h < VIZ_LEARN_HEADS; h++) {
        *best_previous = fmax(*best_previous, scores.previous[0][h]);
        *best_induction = fmax(*best_induction, scores.induction[VIZ_LEARN_LAYERS - 1][h]);
    }
    return scores;
}
/* <<[[worker.c]] functions>> */
static mha_status publish(viz_trainer *t, const mha_train_stats *stats)
{
    const size_t P = VIZ_PROBE_BATCH, HTT = VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH * VIZ_LEARN_LENGTH;
    viz_snapshot *s = &t->shared;
    double previous, induction;
    mha_status status;
    const mha_head_scores scores = measure_probe(t, &previous, &induction, &status);
    if (status != MHA_OK) {
        s->failed = status;
        SDL_CondBroadcast(t->changed);
        return status;
    }
    s->scores = scores;
    s->step = t->run.model.steps_taken;
    memcpy(s->params, t->run.model.params, s->count * sizeof(float));
    for (size_t l = 0; l < VIZ_LEARN_LAYERS; l++)
        memcpy(s->weights + l * HTT, t->run.probe_ws.weights + l * P * HTT, HTT * sizeof(float));
    if (s->step == 0)
        s->induction_step = 0;
    else {
        const size_t k = s->step - 1;
        s->loss[k] = (float)stats->loss, s->accuracy[k] = (float)stats->accuracy;
        s->previous[k] = (float)previous, s->induction[k] = (float)induction;
        if (s->induction_step == 0 && s->induction[k] > VIZ_INDUCTION_THRESHOLD)
            s->induction_step = s->step;
    }
    SDL_CondBroadcast(t->changed);
    return MHA_OK;
}
/* <<[[worker.c]] functions>> */
static int train_in_background(void *data)
{
    viz_trainer *t = data;
    SDL_LockMutex(t->lock);
    for (;;) {
        while (!t->quit && !t->reset &&
               (t->paused || t->run.model.steps_taken >= t->stop_at)) {
            if (!t->idle) {                          /* tell anyone waiting for this */
                t->idle = 1;
                SDL_CondBroadcast(t->changed);
            }
            SDL_CondWait(t->changed, t->lock);
        }
        t->idle = 0;
        if (t->quit)
            break;
        if (t->reset) {
            /* <<start the run again and publish its first snapshot>> */
            t->reset = 0;
            if (mha_induction_trainer_restart(&t->run) != MHA_OK) {
                t->quit = 1;                          /* out of memory: stop training */
                break;
            }
            const mha_train_stats none = {0, 0};
            if (publish(t, &none) != MHA_OK) {
                t->quit = 1;
                break;
            }
            continue;
        }
        SDL_UnlockMutex(t->lock);
        mha_train_stats stats;
        const mha_status stepped = mha_induction_trainer_step(&t->run, &stats);
        SDL_LockMutex(t->lock);
        if (stepped != MHA_OK) {
            t->shared.failed = stepped;       /* the window shows why training stopped */
            SDL_CondBroadcast(t->changed);
        }
        if (stepped != MHA_OK || publish(t, &stats) != MHA_OK) {
            t->quit = 1;
            break;
        }
    }
    SDL_UnlockMutex(t->lock);
    return 0;
}
/* <<[[worker.c]] functions>> */
mha_status viz_trainer_init(viz_trainer *t, uint64_t seed)
{
    const size_t HTT = VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH * VIZ_LEARN_LENGTH;
    const mha_trainer_config run = {VIZ_LEARN_VOCAB, VIZ_LEARN_LENGTH, VIZ_LEARN_EMBED,
                                VIZ_LEARN_HEADS, VIZ_LEARN_LAYERS, VIZ_LEARN_BATCH,
                                VIZ_PROBE_BATCH, seed, mha_trainer_defaults.optimiser};
    memset(t, 0, sizeof *t);
    t->stop_at = VIZ_TRAIN_MAX_STEPS;
    mha_status status = mha_induction_trainer_init(&t->run, &run);
    if (status == MHA_OK)
        status = viz_snapshot_init(&t->shared, t->run.model.count, VIZ_LEARN_LAYERS * HTT);
    t->lock = SDL_CreateMutex();
    t->changed = SDL_CreateCond();
    if (status == MHA_OK && (t->lock == NULL || t->changed == NULL))
        status = MHA_ERR_NOMEM;
    if (status != MHA_OK) {
        viz_trainer_free(t);
        return status;
    }
    const mha_train_stats none = {0, 0};
    status = publish(t, &none);
    if (status != MHA_OK)
        viz_trainer_free(t);
    return status;
}
/* <<[[worker.c]] functions>> */
int viz_trainer_start(viz_trainer *t)
{
    if (t->thread == NULL)
        t->thread = SDL_CreateThread(train_in_background, "mha-viz training", t);
    return t->thread != NULL ? 0 : -1;
}

void viz_trainer_free(viz_trainer *t)
{
    if (t->thread != NULL) {
        SDL_LockMutex(t->lock);
        t->quit = 1;
        SDL_CondBroadcast(t->changed);
        SDL_UnlockMutex(t->lock);
        SDL_WaitThread(t->thread, NULL);
    }
    if (t->changed) SDL_DestroyCond(t->changed);
    if (t->lock) SDL_DestroyMutex(t->lock);
    viz_snapshot_free(&t->shared);
    mha_induction_trainer_free(&t->run);
    memset(t, 0, sizeof *t);
}
/* <<[[worker.c]] functions>> */
void viz_trainer_request(viz_trainer *t, int pause, int reset, size_t stop_at)
{
    SDL_LockMutex(t->lock);
    if (pause >= 0)
        t->paused = pause;
    t->reset |= reset;
    t->idle = 0;                           /* until the worker has seen this */
    if (stop_at != 0)
        t->stop_at = stop_at < VIZ_TRAIN_MAX_STEPS ? stop_at : VIZ_TRAIN_MAX_STEPS;
    SDL_CondBroadcast(t->changed);
    SDL_UnlockMutex(t->lock);
}
/* <<[[worker.c]] functions>> */
int viz_trainer_take(viz_trainer *t, viz_snapshot *into, int wait)
{
    if (wait ? SDL_LockMutex(t->lock) != 0 : SDL_TryLockMutex(t->lock) != 0)
        return 0;
    const viz_snapshot *s = &t->shared;
    const size_t from = into->step <= s->step ? into->step : 0, n = s->step - from;
    float *const to[4] = {into->loss, into->accuracy, into->previous, into->induction};
    const float *const by[4] = {s->loss, s->accuracy, s->previous, s->induction};
    for (int k = 0; k < 4; k++)
        memcpy(to[k] + from, by[k] + from, n * sizeof(float));
    memcpy(into->params, s->params, s->count * sizeof(float));
    memcpy(into->weights, s->weights,
           VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH * VIZ_LEARN_LENGTH *
           sizeof(float));
    into->scores = s->scores, into->step = s->step, into->induction_step = s->induction_step;
    into->failed = s->failed;
    SDL_UnlockMutex(t->lock);
    return 1;
}
/* <<[[worker.c]] functions>> */
void viz_trainer_wait(viz_trainer *t, size_t step)
{
    SDL_LockMutex(t->lock);
    while ((t->reset || (t->shared.step < step && t->shared.step < t->stop_at)) && !t->quit)
        SDL_CondWait(t->changed, t->lock);
    SDL_UnlockMutex(t->lock);
}
/* <<[[worker.c]] functions>> */
void viz_trainer_wait_idle(viz_trainer *t)
{
    SDL_LockMutex(t->lock);
    while (!t->idle && !t->quit)
        SDL_CondWait(t->changed, t->lock);
    SDL_UnlockMutex(t->lock);
}
