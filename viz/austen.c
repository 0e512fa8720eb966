/* generated from chapters/18-austen-viewer.nw; edit the book, not this file */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "bpe_files.h"
#include "clock.h"
#include "head_roles.h"
#include "lm_files.h"
#include "random.h"
#include "austen.h"
#include "training.h"

char viz_austen_dir[VIZ_AUSTEN_PATH], viz_austen_valid[VIZ_AUSTEN_PATH];
/* <<[[austen.c]] pieces>> */
static size_t utf8_length(const unsigned char *b, size_t n)   /* 0: not a whole character */
{
    const size_t want = b[0] < 0x80 ? 1 : b[0] >= 0xC2 && b[0] <= 0xDF ? 2
                      : b[0] >= 0xE0 && b[0] <= 0xEF ? 3 : b[0] >= 0xF0 && b[0] <= 0xF4 ? 4 : 0;
    if (want == 0 || want > n)
        return 0;
    for (size_t k = 1; k < want; k++)
        if ((b[k] & 0xC0) != 0x80)
            return 0;
    return want;
}

void viz_austen_piece_label(const bpe *t, int id, char *label, size_t size)
{
    size_t n = 0, used = 0;
    const unsigned char *b = id >= 0 && (size_t)id < t->vocab ? bpe_token(t, (uint32_t)id, &n)
                                                               : NULL;
    label[0] = '\0';
    for (size_t at = 0; b != NULL && at < n;) {
        char part[64] = "";
        const size_t whole = utf8_length(b + at, n - at);
        if (b[at] == ' ' || b[at] == '\n') {
            snprintf(part, sizeof part, "%s", b[at] == ' ' ? "\xe2\x90\xa3" : "\xe2\x86\xb5");
            at++;
        } else if (whole == 1 && b[at] >= 0x20 && b[at] < 0x7f) {
            part[0] = (char)b[at++], part[1] = '\0';
        } else if (whole > 1) {
            memcpy(part, b + at, whole), part[whole] = '\0';
            at += whole;
        } else {                                  /* bytes that are not a character here */
            size_t k = 0;
            part[k++] = '<';
            do {
                k += (size_t)snprintf(part + k, sizeof part - k, "%s%02x", k > 1 ? " " : "",
                                      b[at++]);
            } while (at < n && k + 8 < sizeof part && b[at] >= 0x80 &&
                     utf8_length(b + at, n - at) == 0);
            part[k++] = '>', part[k] = '\0';
        }
        const size_t length = strlen(part);
        if (used + length + 1 > size)
            break;
        memcpy(label + used, part, length + 1);
        used += length;
    }
}
/* <<[[austen.c]] pieces>> */
const char *viz_austen_punctuation_name(const char *label)
{
    static const char *const names[][2] = {
        {".", "full stop"}, {",", "comma"}, {";", "semicolon"}, {":", "colon"},
        {"'", "apostrophe"}, {"\"", "quotation mark"}, {"!", "exclamation"},
        {"?", "question mark"}, {"-", "hyphen"}, {"(", "bracket"}, {")", "bracket"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(label, names[k][0]) == 0)
            return names[k][1];
    return NULL;
}
/* <<[[austen.c]] the text>> */
mha_status viz_austen_run(viz_austen *a)
{
    const lm_config *c = &a->model.config;
    mha_status status = lm_forward_weights(&a->model, &a->ws, a->ids, 1, a->count, a->weights);
    if (status != MHA_OK)
        return status;
    const size_t L = a->count, T = c->context, maps = c->layers * c->heads;
    for (size_t k = maps; k-- > 0;)                /* (maps, L, L) spread to (maps, T, T) */
        for (size_t i = L; i-- > 0;)
            memmove(a->maps + (k * T + i) * T, a->weights + (k * L + i) * L, L * sizeof(float));
    return MHA_OK;
}

/* The built-in prompt, cut to its first pieces when they are more than the
   model's context: a model of a short context still opens. */
static mha_status set_prompt_that_fits(viz_austen *a, const char *text)
{
    const size_t n = strlen(text), T = a->model.config.context;
    uint32_t whole[sizeof VIZ_AUSTEN_PROMPT], ids[sizeof VIZ_AUSTEN_PROMPT];
    char cut[sizeof VIZ_AUSTEN_PROMPT];
    size_t count = 0, bytes = 0;
    mha_status status = bpe_encode(&a->tokenizer, (const unsigned char *)text, n, whole, &count);
    for (size_t keep = T; status == MHA_OK && count > T && keep > 0; keep--) {
        status = bpe_decode(&a->tokenizer, whole, keep, (unsigned char *)cut, sizeof cut - 1,
                            &bytes);
        if (status == MHA_OK) {
            cut[bytes] = '\0';
            text = cut;
            status = bpe_encode(&a->tokenizer, (const unsigned char *)cut, bytes, ids, &count);
        }
    }
    return status == MHA_OK ? viz_austen_set_text(a, text) : status;
}
mha_status viz_austen_set_text(viz_austen *a, const char *text)
{
    const size_t n = strlen(text), T = a->model.config.context;
    uint32_t *ids = malloc((n + 1) * sizeof *ids);
    size_t count = 0;
    mha_status status = ids != NULL ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = bpe_encode(&a->tokenizer, (const unsigned char *)text, n, ids, &count);
    if (status == MHA_OK && (count == 0 || count > T))
        status = MHA_ERR_SHAPE;
    if (status == MHA_OK) {
        if (text != a->prompt)
            snprintf(a->prompt, sizeof a->prompt, "%s", text);
        for (size_t k = 0; k < count; k++)
            a->ids[k] = (int)ids[k];
        a->count = a->prompt_count = count;
        a->row = -1;
        lm_decoder_reset(&a->decoder);
        a->fed = 0;
        a->state = mha_random_seeded(a->seed);
        status = viz_austen_run(a);
    }
    free(ids);
    return status;
}
/* <<[[austen.c]] the text>> */
mha_status viz_austen_take_text(viz_austen *a, const char *text, char *why, size_t size)
{
    const size_t n = strlen(text), T = a->model.config.context;
    if (n >= sizeof a->prompt) {
        snprintf(why, size, "a text of %zu bytes; the view takes at most %zu", n,
                 sizeof a->prompt - 1);
        return MHA_ERR_ARG;
    }
    const mha_status status = viz_austen_set_text(a, text);
    if (status == MHA_ERR_SHAPE) {
        uint32_t ids[sizeof a->prompt];
        size_t count = 0;
        if (bpe_encode(&a->tokenizer, (const unsigned char *)text, n, ids, &count) != MHA_OK)
            count = 0;
        if (count == 0)
            snprintf(why, size, "no pieces");
        else
            snprintf(why, size, "%zu pieces; the model's context holds %zu", count, T);
        return MHA_ERR_ARG;
    }
    if (status != MHA_OK)
        snprintf(why, size, "%s", mha_status_message(status));
    return status;
}
/* <<[[austen.c]] the measurer>> */
static int measure_in_background(void *data)
{
    viz_austen *a = data;
    viz_austen_measurer *m = &a->measurer;
    const size_t maps = a->model.config.layers * a->model.config.heads;
    lm_model model = a->model;
    model.head_mask = m->own;
    omp_set_num_threads(1);
    SDL_LockMutex(m->lock);
    for (;;) {
        while (!m->quit && m->started == m->asked)
            SDL_CondWait(m->changed, m->lock);
        if (m->quit)
            break;
        const unsigned long n = m->started = m->asked;
        memcpy(m->own, m->mask, maps * sizeof *m->own);
        SDL_UnlockMutex(m->lock);
        double loss = 0;
        const mha_status status = lm_sample_loss(&model, a->valid, a->valid_count,
                                                 VIZ_AUSTEN_WINDOWS, &loss);
        SDL_LockMutex(m->lock);
        if (n == m->asked) {                   /* else a newer request supersedes it */
            m->loss = loss, m->status = status, m->answered = n;
            SDL_CondBroadcast(m->changed);
        }
    }
    SDL_UnlockMutex(m->lock);
    return 0;
}
/* <<[[austen.c]] the measurer>> */
static mha_status measurer_start(viz_austen *a)
{
    viz_austen_measurer *m = &a->measurer;
    const size_t maps = a->model.config.layers * a->model.config.heads;
    m->mask = calloc(maps, sizeof *m->mask);
    m->own = calloc(maps, sizeof *m->own);
    m->lock = SDL_CreateMutex();
    m->changed = SDL_CreateCond();
    if (m->mask == NULL || m->own == NULL || m->lock == NULL || m->changed == NULL)
        return MHA_ERR_NOMEM;
    m->thread = SDL_CreateThread(measure_in_background, "mha-viz loss", a);
    return m->thread != NULL ? MHA_OK : MHA_ERR_NOMEM;
}

static void measurer_stop(viz_austen_measurer *m)
{
    if (m->thread != NULL) {
        SDL_LockMutex(m->lock);
        m->quit = 1;
        SDL_CondBroadcast(m->changed);
        SDL_UnlockMutex(m->lock);
        SDL_WaitThread(m->thread, NULL);
    }
    if (m->changed) SDL_DestroyCond(m->changed);
    if (m->lock) SDL_DestroyMutex(m->lock);
    free(m->mask); free(m->own);
    memset(m, 0, sizeof *m);
}
/* <<[[austen.c]] the measurer>> */
static void measurer_ask(viz_austen *a)
{
    viz_austen_measurer *m = &a->measurer;
    const size_t maps = a->model.config.layers * a->model.config.heads;
    SDL_LockMutex(m->lock);
    memcpy(m->mask, a->model.head_mask, maps * sizeof *m->mask);
    m->asked++;
    SDL_CondBroadcast(m->changed);
    SDL_UnlockMutex(m->lock);
    a->updating = 1;
}

int viz_austen_take_loss(viz_austen *a, int wait)
{
    viz_austen_measurer *m = &a->measurer;
    if (!a->updating || m->thread == NULL ||
        (wait ? SDL_LockMutex(m->lock) : SDL_TryLockMutex(m->lock)) != 0)
        return 0;
    while (wait && m->answered != m->asked)
        SDL_CondWait(m->changed, m->lock);
    const int arrived = m->answered == m->asked;
    if (arrived) {
        a->loss = m->loss;
        a->loss_kind = m->status == MHA_OK ? 1 : 0;
        a->updating = 0;
        if (lm_heads_removed(&(lm_model){.config = a->model.config, .head_mask = m->mask}) == 0)
            a->base_loss = a->loss, a->have_base = a->loss_kind == 1;
    }
    SDL_UnlockMutex(m->lock);
    return arrived;
}
/* <<[[austen.c]] the measurer>> */
void viz_austen_loss_line(const viz_austen *a, char *line, size_t size)
{
    const char *updating = a->updating ? " (updating)" : "";
    const size_t pieces = VIZ_AUSTEN_WINDOWS * a->model.config.context;
    if (a->loss_kind == 1 && a->have_base)
        snprintf(line, size, "held-out loss on %zu pieces: %.3f nats a piece%s (every head: "
                 "%.3f)", pieces, a->loss, updating, a->base_loss);
    else if (a->loss_kind == 1)
        snprintf(line, size, "held-out loss on %zu pieces: %.3f nats a piece%s", pieces,
                 a->loss, updating);
    else if (a->updating)
        snprintf(line, size, "held-out loss on %zu pieces: measuring (updating)", pieces);
    else if (a->loss_kind == 2)
        snprintf(line, size, "held-out loss of the heads study: %.3f nats a piece (every "
                 "head: %.3f)", a->loss, a->study_base);
    else
        snprintf(line, size, "no held-out loss: no corpus and no heads study");
}
/* <<[[austen.c]] the measurer>> */
void viz_austen_sample_note(const viz_austen *a, char *line, size_t size)
{
    if (a->loss_kind == 1 && a->study_base > 0)
        snprintf(line, size, "one window, a small sample: the heads study's loss over many "
                 "windows is %.3f", a->study_base);
    else
        line[0] = '\0';
}
/* <<[[austen.c]] loading>> */
static mha_status read_table(const viz_austen *a, const char *name, unsigned char **text,
                             size_t *n, char *message, size_t size)
{
    char path[sizeof a->dir + 16];
    snprintf(path, sizeof path, "%s/%s", a->dir, name);
    const mha_status status = mha_read_whole_file(path, MHA_READ_TABLE_MAX, text, n, message,
                                                  size);
    return status == MHA_ERR_IO && errno == ENOENT ? MHA_OK : status;   /* no table */
}
static mha_status read_roles(viz_austen *a, char *message, size_t size)
{
    unsigned char *text = NULL;
    size_t n = 0;
    const mha_status status = read_table(a, "heads.tsv", &text, &n, message, size);
    const size_t N = a->model.config.layers, H = a->model.config.heads;
    const unsigned char *table = status == MHA_OK ? text : NULL;
    n = status == MHA_OK ? n : 0;
    lm_table_roles(table, n, N, H, a->roles[0], VIZ_AUSTEN_ROLE);
    (void)lm_table_column(table, n, N, H, "prev_token", a->prev_token);
    (void)lm_table_column(table, n, N, H, "induction", a->induction);
    free(text);
    return status;
}
static mha_status read_study(viz_austen *a, char *message, size_t size)
{
    unsigned char *text = NULL;
    size_t n = 0;
    const mha_status status = read_table(a, "prune.tsv", &text, &n, message, size);
    a->have_study = status == MHA_OK &&
                    lm_table_study(text, n, a->model.config.layers, a->model.config.heads,
                                   &a->study_base, a->study_importance);
    free(text);
    return status;
}
/* <<[[austen.c]] loading>> */
static void read_valid(viz_austen *a, const char *path)
{
    unsigned char *bytes = NULL;
    size_t n = 0, count = 0;
    char message[256];
    if (path == NULL || mha_read_whole_file(path, MHA_READ_TEXT_MAX, &bytes, &n, message,
                                         sizeof message) != MHA_OK)
        return;
    n = n < VIZ_AUSTEN_VALID_BYTES ? n : VIZ_AUSTEN_VALID_BYTES;
    uint32_t *ids = malloc((n + 1) * sizeof *ids);
    a->valid = malloc((n + 1) * sizeof *a->valid);
    if (ids != NULL && a->valid != NULL &&
        bpe_encode(&a->tokenizer, bytes, n, ids, &count) == MHA_OK &&
        count > a->model.config.context + 1) {
        for (size_t k = 0; k < count; k++)
            a->valid[k] = (int)ids[k];
        a->valid_count = count;
    } else {
        free(a->valid);
        a->valid = NULL;
    }
    free(ids);
    free(bytes);
}
/* <<[[austen.c]] loading>> */
mha_status viz_austen_load(viz_austen *a, const char *dir, const char *valid, char *message,
                           size_t size)
{
    memset(a, 0, sizeof *a);
    if (strlen(dir) >= sizeof a->dir) {
        snprintf(message, size, "%s: a path of %zu bytes; the viewer takes at most %zu", dir,
                 strlen(dir), sizeof a->dir - 1);
        return MHA_ERR_ARG;
    }
    lm_provenance p;
    mha_status status = lm_model_read(dir, &a->model, &a->tokenizer, &p, message, size);
    if (status != MHA_OK)
        return status;
    const lm_config *c = &a->model.config;
    const size_t T = c->context, maps = c->layers * c->heads;
    if (T > VIZ_AUSTEN_CONTEXT_MAX) {
        snprintf(message, size, "%s: a context of %zu; the viewer shows at most %d", dir, T,
                 VIZ_AUSTEN_CONTEXT_MAX);
        viz_austen_free(a);
        return MHA_ERR_SHAPE;
    }
    snprintf(a->dir, sizeof a->dir, "%s", dir);
    a->roles = calloc(maps, sizeof *a->roles);
    a->prev_token = calloc(maps, sizeof *a->prev_token);
    a->induction = calloc(maps, sizeof *a->induction);
    a->study_importance = calloc(maps, sizeof *a->study_importance);
    a->ids = calloc(T, sizeof *a->ids);
    a->weights = calloc(maps * T * T, sizeof *a->weights);
    a->maps = calloc(maps * T * T, sizeof *a->maps);
    a->scratch = calloc(c->vocab, sizeof *a->scratch);
    a->strip = calloc(T, sizeof *a->strip);
    status = a->roles && a->prev_token && a->induction && a->study_importance && a->ids &&
             a->weights && a->maps && a->scratch && a->strip ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = lm_workspace_init(&a->ws, &a->model, 1, T, 0);
    if (status == MHA_OK)
        status = lm_decoder_init(&a->decoder, &a->model);
    int said = 0;                              /* message already names the file */
    if (status == MHA_OK && ((status = read_roles(a, message, size)) != MHA_OK ||
                             (status = read_study(a, message, size)) != MHA_OK))
        said = 1;
    if (status == MHA_OK) {
        read_valid(a, valid);
        a->temperature = VIZ_AUSTEN_TEMPERATURE, a->top_k = VIZ_AUSTEN_TOP_K;
        a->seed = 1;
        a->focus = 0, a->row = -1;
        status = a->valid != NULL ? measurer_start(a) : MHA_OK;
    }
    if (status == MHA_OK) {
        viz_austen_measure(a);                  /* with every head: the base */
        status = set_prompt_that_fits(a, VIZ_AUSTEN_PROMPT);
    }
    if (status != MHA_OK) {
        if (!said)
            snprintf(message, size, "%s: %s", dir, mha_status_message(status));
        viz_austen_free(a);
    }
    return status;
}

void viz_austen_free(viz_austen *a)
{
    measurer_stop(&a->measurer);              /* before what its thread reads */
    lm_decoder_free(&a->decoder);
    lm_workspace_free(&a->ws);
    lm_model_free(&a->model);
    bpe_free(&a->tokenizer);
    free(a->roles); free(a->prev_token); free(a->induction); free(a->study_importance);
    free(a->valid); free(a->ids);
    free(a->weights); free(a->maps); free(a->scratch); free(a->strip);
    memset(a, 0, sizeof *a);
}
/* <<[[austen.c]] the breakdown>> */
static double dot_row(const float *w, const float *bias, size_t r, const float *x, size_t E)
{
    double sum = bias[r];
    for (size_t e = 0; e < E; e++)
        sum += (double)w[r * E + e] * x[e];
    return sum;
}

mha_status viz_austen_breakdown_of(const viz_austen *a, size_t layer, size_t head, size_t row,
                                   viz_austen_breakdown *b)
{
    const lm_config *c = &a->model.config;
    const size_t E = c->embed_dim, H = c->heads, D = E / H, L = a->count, V = c->vocab;
    if (layer >= c->layers || head >= H || row >= L)
        return MHA_ERR_ARG;
    memset(b, 0, sizeof *b);
    b->layer = layer, b->head = head, b->row = row, b->keys = row + 1;
    const mha_block_params p = lm_block_params(&a->model, layer);
    float *normed = malloc((row + 1) * E * sizeof *normed);
    double *concat = calloc(E, sizeof *concat), *q = calloc(D, sizeof *q);
    double *w = calloc(row + 1, sizeof *w);
    mha_status status = normed && concat && q && w ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = mha_layer_norm(row + 1, E, a->ws.stream + layer * L * E, p.norm1_weight,
                                p.norm1_bias, normed, NULL, NULL);
    const float *Wi = p.attn.in_proj_weight, *bi = p.attn.in_proj_bias;
    for (size_t h = 0; status == MHA_OK && h < H; h++) {
        /* <<the scores, softmax and output of head [[h]] at [[row]]>> */
        for (size_t d = 0; d < D; d++)
            q[d] = dot_row(Wi, bi, h * D + d, normed + row * E, E);
        double top = -INFINITY, sum = 0, qq = 0;
        for (size_t d = 0; d < D; d++)
            qq += q[d] * q[d];
        for (size_t j = 0; j <= row; j++) {
            double s = 0, kk = 0;
            for (size_t d = 0; d < D; d++) {
                const double k = dot_row(Wi, bi, E + h * D + d, normed + j * E, E);
                s += q[d] * k, kk += k * k;
                if (h == head && d < VIZ_AUSTEN_PARTS)
                    b->key_part[j][d] = k;
            }
            w[j] = s / sqrt((double)D);
            top = fmax(top, w[j]);
            if (h == head)
                b->key_norm[j] = sqrt(kk);
        }
        if (h == head)
            b->query_norm = sqrt(qq);
        for (size_t d = 0; h == head && d < D && d < VIZ_AUSTEN_PARTS; d++)
            b->query_part[d] = q[d];
        for (size_t j = 0; j <= row; j++)
            sum += exp(w[j] - top);
        if (h == head)
            b->top = top, b->total = sum;
        for (size_t j = 0; j <= row; j++) {
            const double score = w[j];
            w[j] = exp(w[j] - top) / sum;
            double norm = 0;
            for (size_t d = 0; d < D; d++) {
                const double v = dot_row(Wi, bi, 2 * E + h * D + d, normed + j * E, E);
                concat[h * D + d] += w[j] * v;
                norm += v * v;
            }
            if (h == head)
                b->score[j] = score, b->weight[j] = w[j], b->value_norm[j] = sqrt(norm);
        }
        if (h == head) {
            for (size_t d = 0; d < D; d++) {
                b->out_norm += concat[h * D + d] * concat[h * D + d];
                if (d < VIZ_AUSTEN_PARTS)
                    b->out[d] = concat[h * D + d];
            }
            b->out_norm = sqrt(b->out_norm);
        }
        const double keep = a->model.head_mask != NULL ? a->model.head_mask[layer * H + h] : 1.0;
        for (size_t d = 0; d < D; d++)
            concat[h * D + d] *= keep;
    }
    /* <<project the heads' outputs and read the next pieces>> */
    for (size_t o = 0; status == MHA_OK && o < E; o++) {
        double y = p.attn.out_proj_bias[o];
        for (size_t e = 0; e < E; e++)
            y += (double)p.attn.out_proj_weight[o * E + e] * concat[e];
        b->projected_norm += y * y;
        b->concat_norm += concat[o] * concat[o];
        if (o < VIZ_AUSTEN_PARTS)
            b->projected[o] = y;
    }
    b->projected_norm = sqrt(b->projected_norm), b->concat_norm = sqrt(b->concat_norm);
    if (status == MHA_OK)
        viz_top_tokens(a->ws.logits + row * V, V, VIZ_AUSTEN_TOP, b->next, b->probability);
    free(normed); free(concat); free(q); free(w);
    return status;
}
/* <<[[austen.c]] the breakdown>> */
size_t viz_austen_cell_lines(const viz_austen *a, const viz_austen_breakdown *b, size_t j,
                             char lines[VIZ_AUSTEN_CELL_LINES][VIZ_AUSTEN_CELL_LINE])
{
    const size_t H = a->model.config.heads, D = a->model.config.embed_dim / H;
    char query[VIZ_AUSTEN_LABEL], key[VIZ_AUSTEN_LABEL];
    viz_austen_piece_label(&a->tokenizer, a->ids[b->row], query, sizeof query);
    viz_austen_piece_label(&a->tokenizer, a->ids[j], key, sizeof key);
    if (j > b->row) {
        snprintf(lines[0], VIZ_AUSTEN_CELL_LINE, "L%zu H%zu: key '%s' (%zu) comes after query "
                 "'%s' (%zu): masked", b->layer, b->head, key, j, query, b->row);
        return 1;
    }
    const double *q = b->query_part, *k = b->key_part[j];
    const double dot = b->score[j] * sqrt((double)D), lengths = b->query_norm * b->key_norm[j];
    snprintf(lines[0], VIZ_AUSTEN_CELL_LINE, "L%zu H%zu: query '%s' (%zu) -> key '%s' (%zu): "
             "weight %.3f", b->layer, b->head, query, b->row, key, j, b->weight[j]);
    snprintf(lines[1], VIZ_AUSTEN_CELL_LINE, "q[0..3] %+.2f %+.2f %+.2f %+.2f |q| %.2f   "
             "k[0..3] %+.2f %+.2f %+.2f %+.2f |k| %.2f", q[0], q[1], q[2], q[3], b->query_norm,
             k[0], k[1], k[2], k[3], b->key_norm[j]);
    snprintf(lines[2], VIZ_AUSTEN_CELL_LINE, "q.k %+.3f = |q| |k| cos, cos %+.3f; score = q.k / "
             "sqrt(%zu) = %+.3f", dot, lengths > 0 ? dot / lengths : 0.0, D, b->score[j]);
    snprintf(lines[3], VIZ_AUSTEN_CELL_LINE, "weight = exp(score - max) / sum = exp(%+.3f - "
             "(%+.3f)) / %.3f, over the row's %zu keys, = %.3f", b->score[j], b->top, b->total,
             b->keys, b->weight[j]);
    return 4;
}
/* <<[[austen.c]] generation>> */
const char *viz_austen_path(const viz_austen *a)
{
    return lm_heads_removed(&a->model) == 0 ? "via the KV cache" : "by whole passes";
}

/* <<[[austen.c]] generation>> */
mha_status viz_austen_generate(viz_austen *a)
{
    const size_t V = a->model.config.vocab, T = a->model.config.context;
    if (a->count >= T)
        return MHA_ERR_CACHE_FULL;
    const float *logits = a->ws.logits + (a->count - 1) * V;
    if (lm_heads_removed(&a->model) == 0) {
        for (; a->fed < a->count; a->fed++) {
            const mha_status status = lm_decoder_step(&a->decoder, a->ids[a->fed]);
            if (status != MHA_OK)
                return status;
        }
        logits = a->decoder.logits;
    }
    for (size_t v = 0; v < V; v++)
        if (!isfinite(logits[v]))
            return MHA_ERR_RANGE;                  /* finite weights that overflow */
    a->ids[a->count++] = lm_sample(logits, V, a->temperature, a->top_k, &a->state, a->scratch);
    return viz_austen_run(a);
}

mha_status viz_austen_restart(viz_austen *a, uint64_t seed)
{
    a->seed = seed;
    return viz_austen_set_text(a, a->prompt);
}
/* <<[[austen.c]] removing heads>> */
void viz_austen_measure(viz_austen *a)
{
    const size_t maps = a->model.config.layers * a->model.config.heads;
    if (a->valid != NULL) {
        measurer_ask(a);
        return;
    }
    a->loss_kind = 0;
    if (a->have_study) {
        a->loss = a->study_base;
        for (size_t k = 0; k < maps; k++)
            if (lm_head_removed(&a->model, k))
                a->loss += a->study_importance[k];
        a->loss_kind = 2;
    }
}

mha_status viz_austen_switch_head(viz_austen *a, size_t k)
{
    const size_t H = a->model.config.heads;
    if (k >= a->model.config.layers * H)
        return MHA_ERR_ARG;
    const mha_status status = lm_head_keep(&a->model, k / H, k % H,
                                           lm_head_removed(&a->model, k));
    if (status != MHA_OK)
        return status;
    viz_austen_measure(a);
    return viz_austen_run(a);
}

mha_status viz_austen_restore(viz_austen *a)
{
    lm_heads_restore(&a->model);
    viz_austen_measure(a);
    return viz_austen_run(a);
}

void viz_austen_title(const viz_austen *a, size_t k, char *title, size_t size)
{
    const size_t H = a->model.config.heads;
    snprintf(title, size, "L%zu H%zu %s", k / H, k % H, a->roles[k]);
}

/* A share in [0, 1] in three characters: ".57", or "1.0" when it rounds to one. */
static void share_short(double x, char out[8])
{
    if (x >= 0.995)
        snprintf(out, 8, "1.0");
    else
        snprintf(out, 8, ".%02ld", lround(x * 100));
}
void viz_austen_scores(const viz_austen *a, size_t k, int wide, char *text, size_t size)
{
    const double p = a->prev_token[k], i = a->induction[k];
    char ps[8], is[8];
    if (isnan(p) || isnan(i) || p < 0 || p > 1 || i < 0 || i > 1) {
        snprintf(text, size, "%s", "");              /* a weight's share lies in [0, 1] */
        return;
    }
    share_short(p, ps), share_short(i, is);
    if (wide)
        snprintf(text, size, "prev %.2f ind %.2f", p, i);
    else
        snprintf(text, size, "p%s i%s", ps, is);
}

size_t viz_austen_query(const viz_austen *a)
{
    return a->row >= 0 && (size_t)a->row < a->count ? (size_t)a->row : a->count - 1;
}
