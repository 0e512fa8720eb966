/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint.h"
#include "training.h"

#ifndef MHA_MODEL_DIR
#define MHA_MODEL_DIR "models/induction"
#endif
const char *viz_model_dir(void)
{
    const char *dir = getenv("MHA_MODEL_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : MHA_MODEL_DIR;
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
    mha_status status = induction_checkpoint_read(dir, 0, &m->model, message, size);
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
        status = mha_learning_workspace_init(&m->ws, &m->model, 1);
    if (status == MHA_OK)
        status = mha_induction_batch_init(&m->sequence, 1, T);
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
    mha_induction_model_free(&m->model);
    mha_learning_workspace_free(&m->ws);
    mha_induction_batch_free(&m->sequence);
    free(m->prefix); free(m->predicted); free(m->weights);
    memset(m, 0, sizeof *m);
}
void viz_trained_new_sequence(viz_trained *m)
{
    const size_t T = m->model.length, r = T / 2, H = m->model.heads;
    mha_induction_batch *b = &m->sequence;
    for (size_t t = 0; t < r; t++)
        b->tokens[t] = (int)(mha_random(&m->state) % m->model.vocab);
    memcpy(b->tokens + r, b->tokens, r * sizeof *b->tokens);
    if (T % 2) b->tokens[T - 1] = b->tokens[0];
    memset(b->predictable, 0, T);
    memset(b->predictable + r, 1, r - 1);
    b->copy_from[0] = 0, b->copy_to[0] = r, b->copy_length[0] = r;
    memset(&m->scores, 0, sizeof m->scores);            /* no scores if the pass fails */
    if (mha_induction_forward(&m->model, &m->ws, b->tokens) == MHA_OK)
        for (size_t l = 0; l < m->model.layers; l++)
            mha_head_scores_from_weights(m->ws.weights + l * H * T * T, b, H, l, &m->scores);
    m->step = 0;
    viz_trained_go_to(m, 1);
}
void viz_trained_go_to(viz_trained *m, size_t step)
{
    const size_t T = m->model.length, V = m->model.vocab, HTT = m->model.heads * T * T;
    m->step = step < 1 ? 1 : step > T ? T : step;
    memset(m->prefix, 0, T * sizeof *m->prefix);
    memcpy(m->prefix, m->sequence.tokens, m->step * sizeof *m->prefix);
    if (mha_induction_forward(&m->model, &m->ws, m->prefix) != MHA_OK) {
        memset(m->weights, 0, m->model.layers * HTT * sizeof(float));
        for (size_t i = 0; i < T; i++)
            m->predicted[i] = -1;
        return;
    }
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
size_t viz_top_tokens(const float *logits, size_t V, size_t k, int *tokens,
                      double *probabilities)
{
    double top = logits[0], sum = 0;
    for (size_t v = 1; v < V; v++)
        top = fmax(top, logits[v]);
    for (size_t v = 0; v < V; v++)
        sum += exp((double)logits[v] - top);
    k = k < V ? k : V;
    for (size_t n = 0; n < k; n++) {                 /* the next largest, not yet taken */
        size_t best = V;
        for (size_t v = 0; v < V; v++) {
            int taken = 0;
            for (size_t m = 0; m < n; m++)
                taken |= tokens[m] == (int)v;
            if (!taken && (best == V || logits[v] > logits[best]))
                best = v;
        }
        tokens[n] = (int)best;
        probabilities[n] = exp((double)logits[best] - top) / sum;
    }
    return k;
}

size_t viz_learning_position(const viz_state *s, size_t focus, size_t rows, size_t fallback)
{
    if (s->hover_head == (int)focus && s->hover_row >= 0 && (size_t)s->hover_row < rows)
        return (size_t)s->hover_row;
    if (s->selected >= 0 && (size_t)s->selected < rows)
        return (size_t)s->selected;
    return fallback;
}
