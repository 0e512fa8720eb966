/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy.h"
#include "viz.h"

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
size_t viz_induction_step(const float *induction, size_t steps)
{
    for (size_t k = 0; k < steps; k++)
        if (induction[k] > VIZ_INDUCTION_THRESHOLD)
            return k + 1;
    return 0;
}
static mha_status start_run(viz_trainer *t)
{
    induction_model_free(&t->model);
    mha_status status = induction_model_init(&t->model, VIZ_LEARN_VOCAB, VIZ_LEARN_LENGTH,
                                             VIZ_LEARN_EMBED, VIZ_LEARN_HEADS,
                                             VIZ_LEARN_LAYERS, t->seed);
    t->data_state = t->seed * 2654435761u + 7;
    return status;
}
static head_scores measure_probe(viz_trainer *t, double *best_previous, double *best_induction)
{
    const size_t P = VIZ_PROBE_BATCH, H = VIZ_LEARN_HEADS, T = VIZ_LEARN_LENGTH;
    head_scores scores;
    memset(&scores, 0, sizeof scores);
    induction_forward(&t->model, &t->probe_ws, t->probe.tokens);
    for (size_t l = 0; l < VIZ_LEARN_LAYERS; l++)
        head_scores_from_weights(t->probe_ws.weights + l * P * H * T * T, &t->probe, H, l,
                                 &scores);
    *best_previous = *best_induction = 0;
    for (size_t h = 0; h < H; h++) {
        *best_previous = fmax(*best_previous, scores.previous[0][h]);
        *best_induction = fmax(*best_induction, scores.induction[VIZ_LEARN_LAYERS - 1][h]);
    }
    return scores;
}
static void publish(viz_trainer *t, const train_stats *stats)
{
    const size_t P = VIZ_PROBE_BATCH, HTT = VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH * VIZ_LEARN_LENGTH;
    viz_snapshot *s = &t->shared;
    double previous, induction;
    s->scores = measure_probe(t, &previous, &induction);
    s->step = t->model.steps_taken;
    memcpy(s->params, t->model.params, s->count * sizeof(float));
    for (size_t l = 0; l < VIZ_LEARN_LAYERS; l++)
        memcpy(s->weights + l * HTT, t->probe_ws.weights + l * P * HTT, HTT * sizeof(float));
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
}
static int train_in_background(void *data)
{
    viz_trainer *t = data;
    SDL_LockMutex(t->lock);
    for (;;) {
        while (!t->quit && !t->reset &&
               (t->paused || t->model.steps_taken >= t->stop_at))
            SDL_CondWait(t->changed, t->lock);
        if (t->quit)
            break;
        if (t->reset) {
            t->reset = 0;
            if (start_run(t) != MHA_OK) {
                t->quit = 1;                          /* out of memory: stop training */
                break;
            }
            const train_stats none = {0, 0};
            publish(t, &none);
            continue;
        }
        SDL_UnlockMutex(t->lock);
        induction_batch_fill(&t->batch, VIZ_LEARN_VOCAB, &t->data_state);
        const train_stats stats = induction_train_step(&t->model, &t->ws, &t->batch,
                                                       &t->options);
        SDL_LockMutex(t->lock);
        publish(t, &stats);
    }
    SDL_UnlockMutex(t->lock);
    return 0;
}
mha_status viz_trainer_init(viz_trainer *t, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->seed = seed;
    t->options = (train_options){1e-2, 0.01, 0.9, 0.98, 1e-8, 100};   /* mha train's */
    t->stop_at = VIZ_TRAIN_MAX_STEPS;
    mha_status status = start_run(t);
    const size_t HTT = VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH * VIZ_LEARN_LENGTH;
    if (status == MHA_OK)
        status = learning_workspace_init(&t->ws, &t->model, VIZ_LEARN_BATCH);
    if (status == MHA_OK)
        status = learning_workspace_init(&t->probe_ws, &t->model, VIZ_PROBE_BATCH);
    if (status == MHA_OK)
        status = induction_batch_init(&t->batch, VIZ_LEARN_BATCH, VIZ_LEARN_LENGTH);
    if (status == MHA_OK)
        status = induction_batch_init(&t->probe, VIZ_PROBE_BATCH, VIZ_LEARN_LENGTH);
    if (status == MHA_OK)
        status = viz_snapshot_init(&t->shared, t->model.count, VIZ_LEARN_LAYERS * HTT);
    t->lock = SDL_CreateMutex();
    t->changed = SDL_CreateCond();
    if (status == MHA_OK && (t->lock == NULL || t->changed == NULL))
        status = MHA_ERR_NOMEM;
    if (status != MHA_OK) {
        viz_trainer_free(t);
        return status;
    }
    uint64_t probe_state = seed * 2654435761u + 99;      /* as mha train draws its probe */
    induction_batch_fill(&t->probe, VIZ_LEARN_VOCAB, &probe_state);
    const train_stats none = {0, 0};
    publish(t, &none);
    return MHA_OK;
}
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
    induction_batch_free(&t->batch); induction_batch_free(&t->probe);
    learning_workspace_free(&t->ws); learning_workspace_free(&t->probe_ws);
    induction_model_free(&t->model);
    memset(t, 0, sizeof *t);
}
void viz_trainer_request(viz_trainer *t, int pause, int reset, size_t stop_at)
{
    SDL_LockMutex(t->lock);
    if (pause >= 0)
        t->paused = pause;
    t->reset |= reset;
    if (stop_at != 0)
        t->stop_at = stop_at < VIZ_TRAIN_MAX_STEPS ? stop_at : VIZ_TRAIN_MAX_STEPS;
    SDL_CondBroadcast(t->changed);
    SDL_UnlockMutex(t->lock);
}
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
    SDL_UnlockMutex(t->lock);
    return 1;
}
void viz_trainer_wait(viz_trainer *t, size_t step)
{
    SDL_LockMutex(t->lock);
    while ((t->reset || (t->shared.step < step && t->shared.step < t->stop_at)) && !t->quit)
        SDL_CondWait(t->changed, t->lock);
    SDL_UnlockMutex(t->lock);
}
#ifndef MHA_MODEL_DIR
#define MHA_MODEL_DIR "models/induction"
#endif
const char *viz_model_dir(void)
{
    const char *dir = getenv("MHA_MODEL_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : MHA_MODEL_DIR;
}
static mha_status read_tensor(const char *dir, const char *name, size_t rank,
                              const size_t *shape, mha_npy *a, char *message, size_t size)
{
    char path[4096], got[64], want[64];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    char why[256];
    mha_status status = mha_npy_read(path, a, why, sizeof why);
    if (status != MHA_OK) {
        snprintf(message, size, "%s: %s", path, why);
        return status;
    }
    int same = a->kind == MHA_NPY_FLOAT && a->rank == rank;
    for (size_t k = 0; same && k < rank; k++)
        same = shape[k] == 0 || a->shape[k] == shape[k];      /* 0: any size */
    if (!same) {
        snprintf(message, size, "%s: shape %s, expected %s", path,
                 mha_npy_shape_text(got, sizeof got, a->rank, a->shape),
                 mha_npy_shape_text(want, sizeof want, rank, shape));
        mha_npy_free(a);
        return MHA_ERR_SHAPE;
    }
    return MHA_OK;
}
mha_status viz_load_checkpoint(const char *dir, induction_model *model, char *message,
                               size_t size)
{
    mha_npy tok, pos;
    const size_t any[2] = {0, 0};
    memset(model, 0, sizeof *model);
    mha_status status = read_tensor(dir, "tok_emb", 2, any, &tok, message, size);
    if (status != MHA_OK)
        return status;
    const size_t V = tok.shape[0], E = tok.shape[1], along_e[2] = {0, E};
    status = read_tensor(dir, "pos_emb", 2, along_e, &pos, message, size);
    if (status == MHA_OK) {
        size_t layers = 0;
        for (; layers < LEARNING_MAX_LAYERS; layers++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/layers.%zu.in_proj_weight.npy", dir, layers);
            FILE *f = fopen(path, "rb");
            if (f == NULL)
                break;
            fclose(f);
        }
        status = layers == 0 ? MHA_ERR_IO
               : induction_model_init(model, V, pos.shape[0], E, VIZ_LEARN_HEADS, layers, 0);
        if (status != MHA_OK)
            snprintf(message, size, layers == 0 ? "%s: no layers.0.in_proj_weight.npy"
                                                : "%s: cannot make a model of these sizes", dir);
        if (status == MHA_OK) {
            const model_tensors t = induction_model_tensors(model);
            memcpy(t.tok_emb, tok.values, V * E * sizeof(float));
            memcpy(t.pos_emb, pos.values, pos.count * sizeof(float));
            const size_t ve[2] = {V, E}, w3[2] = {3 * E, E}, b3[1] = {3 * E}, ww[2] = {E, E}, bb[1] = {E};
            struct { char name[48]; size_t rank; const size_t *shape; float *to; }
                files[1 + 4 * LEARNING_MAX_LAYERS] = {{"unembed", 2, ve, t.unembed}};
            size_t n = 1;
            for (size_t l = 0; l < model->layers; l++) {
                const char *what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"};
                const size_t *shapes[4] = {w3, b3, ww, bb};
                float *to[4] = {t.in_w[l], t.in_b[l], t.out_w[l], t.out_b[l]};
                for (int k = 0; k < 4; k++, n++) {
                    snprintf(files[n].name, sizeof files[n].name, "layers.%zu.%s", l, what[k]);
                    files[n].rank = 1 + (k % 2 == 0), files[n].shape = shapes[k], files[n].to = to[k];
                }
            }
            for (size_t f = 0; f < n && status == MHA_OK; f++) {
                mha_npy a;
                status = read_tensor(dir, files[f].name, files[f].rank, files[f].shape, &a, message, size);
                if (status == MHA_OK)
                    memcpy(files[f].to, a.values, a.count * sizeof(float)), mha_npy_free(&a);
            }
        }
        mha_npy_free(&pos);
    }
    mha_npy_free(&tok);
    if (status != MHA_OK)
        induction_model_free(model);
    return status;
}
void viz_token_label(int token, char label[8])
{
    static const char consonants[] = "bdfghklmnprstvwz", vowels[] = "aeio";
    if (token >= 0 && token < 64)
        snprintf(label, 8, "%c%c", consonants[token / 4], vowels[token % 4]);
    else
        snprintf(label, 8, "%d", token);
}
mha_status viz_trained_load(viz_trained *m, const char *dir, char *message, size_t size)
{
    memset(m, 0, sizeof *m);
    mha_status status = viz_load_checkpoint(dir, &m->model, message, size);
    if (status != MHA_OK)
        return status;
    const size_t T = m->model.length, H = m->model.heads;
    if (T > VIZ_TOKENS_MAX * 2) {
        snprintf(message, size, "%s: %zu positions; the viewer shows at most %d", dir, T,
                 VIZ_TOKENS_MAX * 2);
        viz_trained_free(m);
        return MHA_ERR_SHAPE;
    }
    m->prefix = calloc(T, sizeof *m->prefix);
    m->predicted = calloc(T, sizeof *m->predicted);
    m->weights = calloc(m->model.layers * H * T * T, sizeof *m->weights);
    status = m->prefix && m->predicted && m->weights ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = learning_workspace_init(&m->ws, &m->model, 1);
    if (status == MHA_OK)
        status = induction_batch_init(&m->sequence, 1, T);
    if (status != MHA_OK) {
        snprintf(message, size, "%s", mha_status_message(status));
        viz_trained_free(m);
        return status;
    }
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    m->state = 2026;
    viz_trained_new_sequence(m);
    return MHA_OK;
}
void viz_trained_free(viz_trained *m)
{
    induction_model_free(&m->model);
    learning_workspace_free(&m->ws);
    induction_batch_free(&m->sequence);
    free(m->prefix); free(m->predicted); free(m->weights);
    memset(m, 0, sizeof *m);
}
void viz_trained_new_sequence(viz_trained *m)
{
    const size_t T = m->model.length, r = T / 2, H = m->model.heads;
    induction_batch *b = &m->sequence;
    for (size_t t = 0; t < r; t++)
        b->tokens[t] = (int)(learning_random(&m->state) % m->model.vocab);
    memcpy(b->tokens + r, b->tokens, r * sizeof *b->tokens);
    if (T % 2) b->tokens[T - 1] = b->tokens[0];
    memset(b->predictable, 0, T);
    memset(b->predictable + r, 1, r - 1);
    b->copy_from[0] = 0, b->copy_to[0] = r, b->copy_length[0] = r;
    induction_forward(&m->model, &m->ws, b->tokens);
    for (size_t l = 0; l < m->model.layers; l++)
        head_scores_from_weights(m->ws.weights + l * H * T * T, b, H, l, &m->scores);
    m->step = 0;
    viz_trained_go_to(m, 1);
}
void viz_trained_go_to(viz_trained *m, size_t step)
{
    const size_t T = m->model.length, V = m->model.vocab, HTT = m->model.heads * T * T;
    m->step = step < 1 ? 1 : step > T ? T : step;
    memset(m->prefix, 0, T * sizeof *m->prefix);
    memcpy(m->prefix, m->sequence.tokens, m->step * sizeof *m->prefix);
    induction_forward(&m->model, &m->ws, m->prefix);
    memcpy(m->weights, m->ws.weights, m->model.layers * HTT * sizeof(float));
    for (size_t lh = 0; lh < m->model.layers * m->model.heads; lh++)   /* rows to come */
        memset(m->weights + lh * T * T + m->step * T, 0, (T - m->step) * T * sizeof(float));
    for (size_t i = 0; i < T; i++) {
        const float *z = m->ws.logits + i * V;
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        m->predicted[i] = i < m->step ? (int)best : -1;
    }
}
mha_status viz_learning_switch(viz_state *s, int mode)
{
    if (s->learning == NULL && mode != VIZ_MODE_DESIGNED &&
        (s->learning = calloc(1, sizeof *s->learning)) == NULL)
        return MHA_ERR_NOMEM;
    viz_learning *g = s->learning;
    mha_status status = MHA_OK;
    if (mode == VIZ_MODE_TRAINING && !g->have_trainer) {
        status = viz_trainer_init(&g->trainer, 1);
        if (status == MHA_OK &&
            (status = viz_snapshot_init(&g->view, g->trainer.model.count,
                                        VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH *
                                        VIZ_LEARN_LENGTH)) != MHA_OK)
            viz_trainer_free(&g->trainer);
        if (status == MHA_OK) {
            viz_trainer_take(&g->trainer, &g->view, 1);
            g->have_trainer = 1;
            if (viz_trainer_start(&g->trainer) != 0)
                snprintf(s->message, sizeof s->message, "no training thread: %s", SDL_GetError());
        }
        if (status != MHA_OK)
            snprintf(s->message, sizeof s->message, "training: %s", mha_status_message(status));
    }
    if (mode == VIZ_MODE_TRAINED && !g->have_trained) {
        status = viz_trained_load(&g->trained, viz_model_dir(), s->message, sizeof s->message);
        g->have_trained = status == MHA_OK;
    }
    if (status == MHA_OK) {
        s->mode = mode;
        g->focus = VIZ_LEARN_HEADS;          /* the first head of layer 2 */
    }
    return status;
}
int viz_learning_event(viz_state *s, const SDL_Event *event)
{
    viz_learning *g = s->learning;
    if (event->type == SDL_MOUSEMOTION || event->type == SDL_MOUSEBUTTONDOWN)
        return 1;
    if (event->type != SDL_KEYDOWN)
        return 0;
    const SDL_Keycode key = event->key.keysym.sym;
    s->message[0] = '\0';
    switch (key) {
    case SDLK_d: s->mode = VIZ_MODE_DESIGNED; return 1;
    case SDLK_t: viz_learning_switch(s, VIZ_MODE_TRAINING); return 1;
    case SDLK_l: viz_learning_switch(s, VIZ_MODE_TRAINED); return 1;
    case SDLK_TAB: g->focus = (g->focus + 1) % (VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS); return 1;
    case SDLK_m: case SDLK_s: case SDLK_q: case SDLK_ESCAPE: case SDLK_F1: return 0;
    }
    if (s->mode == VIZ_MODE_TRAINING) {
        if (key == SDLK_SPACE) {
            g->paused = !g->paused;
            viz_trainer_request(&g->trainer, g->paused, 0, 0);
        } else if (key == SDLK_r) {
            viz_trainer_request(&g->trainer, -1, 1, 0);
        }
    } else {
        viz_trained *m = &g->trained;
        switch (key) {
        case SDLK_SPACE: s->playing = !s->playing; s->since_step = 0; break;
        case SDLK_RIGHT: s->playing = 0; viz_trained_go_to(m, m->step + 1); break;
        case SDLK_LEFT: s->playing = 0; viz_trained_go_to(m, m->step - 1); break;
        case SDLK_HOME: viz_trained_go_to(m, 1); break;
        case SDLK_n: viz_trained_new_sequence(m); break;
        }
    }
    return 1;
}
void viz_learning_tick(viz_state *s, double seconds)
{
    viz_learning *g = s->learning;
    if (s->mode == VIZ_MODE_TRAINED) {
        if (s->playing && (s->since_step += seconds) >= 1.0 / s->speed) {
            s->since_step = 0;
            viz_trained_go_to(&g->trained, g->trained.step == g->trained.model.length
                                           ? 1 : g->trained.step + 1);
        }
        return;
    }
    viz_trainer_take(&g->trainer, &g->view, 0);
    if ((g->clock += seconds) >= 1.0) {
        g->rate = g->view.step >= g->rate_step ? (g->view.step - g->rate_step) / g->clock : 0;
        g->rate_step = g->view.step;
        g->clock = 0;
    }
}
void viz_learning_free(viz_state *s)
{
    viz_learning *g = s->learning;
    if (g == NULL)
        return;
    if (g->have_trainer) {
        viz_trainer_free(&g->trainer);
        viz_snapshot_free(&g->view);
    }
    if (g->have_trained)
        viz_trained_free(&g->trained);
    free(g);
    s->learning = NULL;
}
