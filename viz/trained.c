/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint.h"
#include "training.h"

/* <<[[trained.c]] functions>> */
static int holds_model(const char *dir)
{
    char path[VIZ_MODEL_PATH + 16];
    return strlen(dir) < VIZ_MODEL_PATH && snprintf(path, sizeof path, "%s/model.txt", dir) > 0
           && access(path, R_OK) == 0;
}

int viz_model_here_or_beside(const char *name, char *dir, size_t size)
{
    if (holds_model(name))
        return snprintf(dir, size, "%s", name) < (int)size;
    char self[VIZ_MODEL_PATH] = "";
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    for (char *slash = strrchr(self, '/'); slash != NULL && slash != self;
         slash = strrchr(self, '/')) {
        *slash = '\0';                                  /* the next folder up */
        if (snprintf(dir, size, "%s/%s", self, name) < (int)size && holds_model(dir))
            return 1;
    }
    return 0;
}

const char *viz_model_dir(void)
{
    static char found[VIZ_MODEL_PATH];
    const char *dir = getenv("MHA_MODEL_DIR");
    if (dir != NULL && dir[0] != '\0')
        return dir;
    return viz_model_here_or_beside("models/induction", found, sizeof found) ? found
                                                                             : "models/induction";
}
/* <<[[trained.c]] functions>> */
void viz_token_label(int token, char label[8])
{
    static const char consonants[] = "bdfghklmnprstvwz", vowels[] = "aeio";
    if (token >= 0 && token < 64)
        snprintf(label, 8, "%c%c", consonants[token / 4], vowels[token % 4]);
    else
        snprintf(label, 8, "%d", token);
}
/* <<[[trained.c]] functions>> */
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
    m->kept = malloc(m->model.count * sizeof *m->kept);
    status = m->prefix && m->predicted && m->weights && m->kept ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        memcpy(m->kept, m->model.params, m->model.count * sizeof *m->kept);
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
/* <<[[trained.c]] functions>> */
void viz_trained_free(viz_trained *m)
{
    mha_induction_model_free(&m->model);
    mha_learning_workspace_free(&m->ws);
    mha_induction_batch_free(&m->sequence);
    free(m->prefix); free(m->predicted); free(m->weights); free(m->kept);
    memset(m, 0, sizeof *m);
}
/* <<[[trained.c]] functions>> */
static void rescore(viz_trained *m)
{
    const size_t T = m->model.length, H = m->model.heads, n = m->used;
    const mha_induction_batch *b = &m->sequence;
    memset(&m->scores, 0, sizeof m->scores);
    if (mha_induction_forward(&m->model, &m->ws, b->tokens) != MHA_OK)
        return;
    for (size_t lh = 0; lh < m->model.layers * H; lh++) {
        const float *w = m->ws.weights + lh * T * T;
        double previous = 0, induction = 0;
        size_t n_previous = 0, n_induction = 0;
        for (size_t t = 1; t < n; t++, n_previous++)
            previous += w[t * T + t - 1];
        mha_induction_add(w, T, b->copy_from[0], b->copy_to[0], b->copy_length[0], &induction,
                          &n_induction);
        m->scores.previous[lh / H][lh % H] = n_previous ? previous / n_previous : 0;
        m->scores.induction[lh / H][lh % H] = n_induction ? induction / n_induction : 0;
    }
}
/* <<[[trained.c]] functions>> */
void viz_trained_new_sequence(viz_trained *m)
{
    const size_t T = m->model.length, r = T / 2;
    mha_induction_batch *b = &m->sequence;
    for (size_t t = 0; t < r; t++)
        b->tokens[t] = (int)(mha_random(&m->state) % m->model.vocab);
    memcpy(b->tokens + r, b->tokens, r * sizeof *b->tokens);
    if (T % 2) b->tokens[T - 1] = b->tokens[0];
    memset(b->predictable, 0, T);
    memset(b->predictable + r, 1, r - 1);
    b->copy_from[0] = 0, b->copy_to[0] = r, b->copy_length[0] = r;
    m->used = T, m->typed = 0;
    rescore(m);
    m->step = 0;
    viz_trained_go_to(m, 1);
}
/* <<[[trained.c]] functions>> */
const char viz_letters[] = "abcdefghijklmnopqrstuvwxyz .ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

int viz_letter_token(const char *character, size_t length, size_t vocab)
{
    const char *at = length == 1 && *character != '\0' ? strchr(viz_letters, *character) : NULL;
    return at != NULL && (size_t)(at - viz_letters) < vocab ? (int)(at - viz_letters) : -1;
}

void viz_letter_label(int token, char label[8])
{
    if (token == (int)(strchr(viz_letters, ' ') - viz_letters))
        snprintf(label, 8, "\xe2\x90\xa3");                   /* an open box: a space */
    else if (token >= 0 && (size_t)token < sizeof viz_letters - 1)
        snprintf(label, 8, "%c", viz_letters[token]);
    else
        snprintf(label, 8, "%d", token);
}
/* <<[[trained.c]] functions>> */
static void find_copy(mha_induction_batch *b, size_t n)
{
    size_t best = 0, from = 0, to = 0;
    for (size_t c = 1; c < n; c++)
        for (size_t a = 0; a < c; a++) {
            size_t r = 0;
            while (c + r < n && a + r < c && b->tokens[a + r] == b->tokens[c + r])
                r++;
            if (r > best)
                best = r, from = a, to = c;
        }
    memset(b->predictable, 0, b->length);
    b->copy_from[0] = from, b->copy_to[0] = to, b->copy_length[0] = best >= 2 ? best : 0;
    if (best >= 2)
        memset(b->predictable + to, 1, best - 1);
}
/* <<[[trained.c]] functions>> */
static size_t take_letters(const viz_trained *m, const char *text, int *tokens, size_t most,
                           char *left, size_t size, size_t *count)
{
    size_t n = 0;
    *count = 0, left[0] = '\0';
    for (const unsigned char *u = (const unsigned char *)text; *u != '\0';) {
        size_t length = 1;
        while (*u >= 0xC0 && (u[length] & 0xC0) == 0x80)
            length++;
        const int token = viz_letter_token((const char *)u, length, m->model.vocab);
        char quoted[16];
        snprintf(quoted, sizeof quoted, "'%.*s'", (int)length, (const char *)u);
        if (token >= 0 && n < most)
            tokens[n] = token;
        n += token >= 0;
        if (token < 0 && strstr(left, quoted) == NULL && strlen(left) + 20 < size) {
            snprintf(left + strlen(left), size - strlen(left), "%s%s", *count ? " " : "", quoted);
            (*count)++;
        }
        u += length;
    }
    return n;
}

mha_status viz_trained_set_text(viz_trained *m, const char *text, char *message, size_t size)
{
    const size_t T = m->model.length;
    int tokens[VIZ_TOKENS_MAX * 2];
    char left[64];
    size_t unknown;
    const size_t n = take_letters(m, text, tokens, T, left, sizeof left, &unknown);
    if (n == 0 || n > T) {
        snprintf(message, size, "%s: a text is 1 to %zu characters of a-z, space, '.', A-Z "
                 "and 0-9", n == 0 ? "no character has a token" : "too long", T);
        return MHA_ERR_SHAPE;
    }
    if (unknown > 0)
        snprintf(message, size, "no token for %s: left out", left);
    else
        message[0] = '\0';
    mha_induction_batch *b = &m->sequence;
    memset(b->tokens, 0, T * sizeof *b->tokens);
    memcpy(b->tokens, tokens, n * sizeof *tokens);
    find_copy(b, n);
    m->used = n, m->typed = 1;
    rescore(m);
    viz_trained_go_to(m, n);
    return MHA_OK;
}
/* <<[[trained.c]] functions>> */
static void apply_removed(viz_trained *m)
{
    const size_t H = m->model.heads, E = m->model.embed_dim, D = E / H;
    memcpy(m->model.params, m->kept, m->model.count * sizeof *m->kept);
    const mha_model_tensors t = mha_induction_model_tensors(&m->model);
    for (size_t k = 0; k < m->model.layers * H; k++)
        if (m->removed >> k & 1) {
            memset(t.in_w[k / H] + (2 * E + k % H * D) * E, 0, D * E * sizeof(float));
            memset(t.in_b[k / H] + 2 * E + k % H * D, 0, D * sizeof(float));
        }
    rescore(m);
    viz_trained_go_to(m, m->step);
}

mha_status viz_trained_switch_head(viz_trained *m, size_t k)
{
    if (k >= m->model.layers * m->model.heads || k >= 64)
        return MHA_ERR_ARG;
    m->removed ^= (uint64_t)1 << k;
    apply_removed(m);
    return MHA_OK;
}

void viz_trained_restore(viz_trained *m)
{
    m->removed = 0;
    apply_removed(m);
}
/* <<[[trained.c]] functions>> */
void viz_trained_go_to(viz_trained *m, size_t step)
{
    const size_t T = m->model.length, V = m->model.vocab, HTT = m->model.heads * T * T;
    m->step = step < 1 ? 1 : step > m->used ? m->used : step;
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
/* <<[[trained.c]] functions>> */
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
