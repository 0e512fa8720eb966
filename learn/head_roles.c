/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "head_roles.h"
#include "learning.h"
#include "random.h"

/* <<[[head_roles.c]] functions>> */
void lm_head_tally_window(lm_head_tally *t, const float *w, const int *tokens, size_t L,
                          const unsigned char *classes, const unsigned char *starts)
{
    mha_previous_token_add(w, L, &t->previous, &t->previous_queries);
    for (size_t i = 1; i < L; i++, t->queries++) {
        const float *row = w + i * L;              /* query i: keys 0..i */
        double same = 0, punctuation = 0, sentence = 0, distance = 0, entropy = 0;
        int repeated = 0;
        for (size_t j = 0; j <= i; j++) {
            const double p = row[j];
            if (j < i && tokens[j] == tokens[i])
                same += p, repeated = 1;
            if (classes[tokens[j]] & LM_TOKEN_PUNCTUATION)
                punctuation += p;
            if (starts[j])
                sentence += p;
            distance += p * (double)(i - j);
            entropy -= p > 0 ? p * log2(p) : 0;
        }
        t->first += row[0];
        t->punctuation += punctuation, t->sentence += sentence;
        t->distance += distance, t->entropy += entropy;
        if (repeated)
            t->same += same, t->same_queries++;
    }
}
void lm_head_tally_induction(lm_head_tally *t, const float *w, size_t L, size_t a, size_t c,
                             size_t r)
{
    mha_induction_add(w, L, a, c, r, &t->induction, &t->induction_queries);
    for (size_t k = 0; k + 1 < r; k++)             /* query c + k sees c + k + 1 keys */
        t->induction_even += 1.0 / (double)(c + k + 1);
}
void lm_head_tally_prefix(lm_head_tally *t, const float *w, size_t L, size_t r)
{
    mha_induction_add(w, L, 0, r, r, &t->prefix, &t->prefix_queries);
    for (size_t k = 0; k + 1 < r; k++)
        t->prefix_even += 1.0 / (double)(r + k + 1);
}
static double mean_of(double sum, size_t count)
{
    return count ? sum / (double)count : 0;
}
lm_head_scores lm_head_scores_of(const lm_head_tally *t)
{
    return (lm_head_scores){mean_of(t->previous, t->previous_queries),
                            mean_of(t->induction, t->induction_queries),
                            mean_of(t->same, t->same_queries), mean_of(t->first, t->queries),
                            mean_of(t->punctuation, t->queries),
                            mean_of(t->sentence, t->queries), mean_of(t->distance, t->queries),
                            mean_of(t->entropy, t->queries),
                            mean_of(t->prefix, t->prefix_queries),
                            mean_of(t->induction_even, t->induction_queries),
                            mean_of(t->prefix_even, t->prefix_queries)};
}
/* <<[[head_roles.c]] functions>> */
static int white(unsigned char b)
{
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}
static int ascii_punctuation(unsigned char b)
{
    return (b >= '!' && b <= '/') || (b >= ':' && b <= '@') || (b >= '[' && b <= '`') ||
           (b >= '{' && b <= '~');
}
void lm_token_classes(const bpe *tokenizer, unsigned char *classes)
{
    for (size_t t = 0; t < tokenizer->vocab; t++) {
        size_t n, punctuation = 0, other = 0, quiet = 0;
        const unsigned char *bytes = bpe_token(tokenizer, (uint32_t)t, &n);
        unsigned char last = 0;                    /* the last byte but spaces and quotes */
        for (size_t k = 0; k < n; k++) {
            const unsigned char b = bytes[k];
            const int silent = white(b) || b == '"' || b == '\'';
            punctuation += ascii_punctuation(b);
            other += !ascii_punctuation(b) && !white(b);
            quiet += silent;
            last = silent ? last : b;
        }
        classes[t] = (unsigned char)(
            (other == 0 && punctuation > 0 ? LM_TOKEN_PUNCTUATION : 0) |
            (last == '.' || last == '!' || last == '?' ? LM_TOKEN_ENDS_SENTENCE : 0) |
            (quiet == n ? LM_TOKEN_SPACE_OR_QUOTE : 0));
    }
}
void lm_sentence_starts(const int *tokens, size_t L, const unsigned char *classes,
                        unsigned char *starts)
{
    int after_end = 0;                             /* the last token that counts ended one */
    for (size_t i = 0; i < L; i++) {
        const unsigned char k = classes[tokens[i]];
        starts[i] = 0;
        if (k & LM_TOKEN_SPACE_OR_QUOTE)
            continue;
        starts[i] = (unsigned char)after_end;
        after_end = (k & LM_TOKEN_ENDS_SENTENCE) != 0;
    }
}
/* <<[[head_roles.c]] functions>> */
const char *lm_head_role(const lm_head_scores *s)
{
    if (s->induction >= LM_ROLE_INDUCTION && s->induction > s->prev_token)
        return "induction";
    if (s->prev_token >= LM_ROLE_MAJORITY)
        return "previous-token";
    if (s->first_token >= LM_ROLE_MAJORITY)
        return "first-token";
    if (s->same_token >= LM_ROLE_MAJORITY)
        return "same-token";
    if (s->sentence_start >= LM_ROLE_MAJORITY)
        return "sentence-start";
    if (s->punctuation >= LM_ROLE_MAJORITY)
        return "punctuation";
    return s->mean_distance <= LM_ROLE_LOCAL ? "local" : "broad";
}
/* <<[[head_roles.c]] functions>> */
/* the copy a..a+r-1 to c..c+r-1 in a window of T, drawn from state */
static void draw_span(uint64_t *state, size_t T, size_t span[3])
{
    const size_t most = T / 2 < LM_SPAN_MAX ? T / 2 : LM_SPAN_MAX;
    const size_t least = T / 2 < LM_SPAN_MIN ? T / 2 : LM_SPAN_MIN;
    lm_repeat_span(state, T, least, most, span);
}
/* <<[[head_roles.c]] functions>> */
static mha_status tokens_present(const int *ids, size_t n, size_t V, int *present, size_t *kinds)
{
    unsigned char *seen = calloc(V, 1);
    if (seen == NULL)
        return MHA_ERR_NOMEM;
    mha_status status = MHA_OK;
    for (size_t i = 0; i < n && status == MHA_OK; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= V)
            status = MHA_ERR_ARG;
        else
            seen[ids[i]] = 1;
    *kinds = 0;
    for (size_t v = 0; v < V; v++)
        if (seen[v])
            present[(*kinds)++] = (int)v;
    free(seen);
    return status;
}
/* <<[[head_roles.c]] functions>> */
mha_status lm_heads_measure_reader(const lm_attention_reader *r, const int *ids, size_t n,
                                   const unsigned char *classes, size_t windows, uint64_t seed,
                                   lm_head_scores *scores)
{
    if (r == NULL || r->weights == NULL || ids == NULL || classes == NULL || scores == NULL)
        return MHA_ERR_NULL;
    const size_t T = r->context, N = r->layers, H = r->heads;
    if (windows == 0 || n < T || T < 2 || r->batch == 0)
        return MHA_ERR_SHAPE;
    const size_t B = windows < r->batch ? windows : r->batch;
    size_t count;
    if (mha_mul_overflows(N * H, B, &count) || mha_mul_overflows(count, T * T, &count) ||
        mha_mul_overflows(count, sizeof(float), &count))
        return MHA_ERR_OVERFLOW;
    mha_status status = MHA_OK;
    float *weights = malloc(count);
    int *x = malloc(B * T * sizeof *x);
    unsigned char *starts = malloc(T);
    size_t (*spans)[3] = malloc(B * sizeof *spans);
    lm_head_tally *tally = calloc(N * H, sizeof *tally);
    int *present = malloc(r->vocab * sizeof *present);
    if (!weights || !x || !starts || !spans || !tally || !present)
        status = MHA_ERR_NOMEM;
    size_t kinds = 0;
    if (status == MHA_OK)
        status = tokens_present(ids, n, r->vocab, present, &kinds);
    uint64_t state = mha_random_seeded(seed), random_tokens = mha_random_seeded(~(uint64_t)seed);
    for (size_t k0 = 0; status == MHA_OK && k0 < windows; k0 += B) {
        const size_t b_n = windows - k0 < B ? windows - k0 : B;
        /* <<run windows [[k0..k0+b_n-1]] and add every head's weights to its tally>> */
        for (size_t b = 0; b < b_n; b++) {
            const size_t k = k0 + b, start = windows == 1 ? 0 : (n - T) * k / (windows - 1);
            memcpy(x + b * T, ids + start, T * sizeof *x);
        }
        status = r->weights(r->model, x, b_n, weights);
        for (size_t b = 0; status == MHA_OK && b < b_n; b++) {
            lm_sentence_starts(x + b * T, T, classes, starts);
            for (size_t lh = 0; lh < N * H; lh++)
                lm_head_tally_window(&tally[lh], weights + ((lh / H * b_n + b) * H + lh % H) * T * T,
                                     x + b * T, T, classes, starts);
        }
        /* <<repeat a span in each window, run them again, and add the induction sums>> */
        for (size_t b = 0; status == MHA_OK && b < b_n; b++) {
            draw_span(&state, T, spans[b]);
            memmove(x + b * T + spans[b][1], x + b * T + spans[b][0], spans[b][2] * sizeof *x);
        }
        if (status == MHA_OK)
            status = r->weights(r->model, x, b_n, weights);
        for (size_t b = 0; status == MHA_OK && b < b_n; b++)
            for (size_t lh = 0; lh < N * H; lh++)
                lm_head_tally_induction(&tally[lh], weights + ((lh / H * b_n + b) * H + lh % H) * T * T,
                                        T, spans[b][0], spans[b][1], spans[b][2]);
        /* <<run random tokens written twice, and add the prefix-matching sums>> */
        for (size_t b = 0; status == MHA_OK && b < b_n; b++) {
            int *w = x + b * T;
            for (size_t j = 0; j < T; j++)
                w[j] = j >= T / 2 && j < 2 * (T / 2) ? w[j - T / 2]
                                                     : present[mha_random(&random_tokens) % kinds];
        }
        if (status == MHA_OK)
            status = r->weights(r->model, x, b_n, weights);
        for (size_t b = 0; status == MHA_OK && b < b_n; b++)
            for (size_t lh = 0; lh < N * H; lh++)
                lm_head_tally_prefix(&tally[lh], weights + ((lh / H * b_n + b) * H + lh % H) * T * T,
                                     T, T / 2);
    }
    for (size_t k = 0; status == MHA_OK && k < N * H; k++)
        scores[k] = lm_head_scores_of(&tally[k]);
    free(weights); free(x); free(starts); free(spans); free(tally); free(present);
    return status;
}
/* <<[[head_roles.c]] functions>> */
struct lm_reading { const lm_model *m; lm_workspace ws; };
static mha_status gpt_weights(void *model, const int *tokens, size_t B, float *weights)
{
    struct lm_reading *r = model;
    return lm_forward_weights(r->m, &r->ws, tokens, B, r->m->config.context, weights);
}
mha_status lm_heads_measure(const lm_model *m, const int *ids, size_t n,
                            const unsigned char *classes, size_t windows, uint64_t seed,
                            lm_head_scores *scores)
{
    if (m == NULL || ids == NULL || classes == NULL || scores == NULL)
        return MHA_ERR_NULL;
    const lm_config *c = &m->config;
    if (windows == 0 || n < c->context)
        return MHA_ERR_SHAPE;
    const size_t B = windows < LM_HEADS_BATCH ? windows : LM_HEADS_BATCH;
    size_t count;                                  /* the weights, checked before the workspace */
    if (mha_mul_overflows(c->layers * c->heads, B, &count) ||
        mha_mul_overflows(count, c->context * c->context, &count) ||
        mha_mul_overflows(count, sizeof(float), &count))
        return MHA_ERR_OVERFLOW;
    struct lm_reading reading = {m, {0}};
    mha_status status = lm_workspace_init(&reading.ws, m, B, c->context, 0);
    const lm_attention_reader r = {c->layers, c->heads, c->vocab, c->context, B, gpt_weights,
                                   &reading};
    if (status == MHA_OK)
        status = lm_heads_measure_reader(&r, ids, n, classes, windows, seed, scores);
    lm_workspace_free(&reading.ws);
    return status;
}
/* <<[[head_roles.c]] functions>> */
/* the loss at each position i (T) summed over the windows into by_position,
   and the sum of them all, window by window, into *total, and, unless each
   is NULL, the loss at position i of window k into each[k T + i]; window k
   starts at shift + k (n - reach - T - 1) / (windows - 1), shift <= reach */
static mha_status window_losses(const lm_model *m, const int *ids, size_t n, size_t windows,
                                size_t reach, size_t shift, double *by_position, double *total,
                                double *each)
{
    enum { BATCH = 16 };
    const size_t T = m->config.context, V = m->config.vocab;
    if (windows == 0 || n < T + 1 || n - T - 1 < reach)
        return MHA_ERR_SHAPE;
    const size_t B = windows < BATCH ? windows : BATCH;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, B, T, 0);
    int *x = malloc(B * T * sizeof *x);
    if (status == MHA_OK && x == NULL)
        status = MHA_ERR_NOMEM;
    *total = 0;
    for (size_t k0 = 0; status == MHA_OK && k0 < windows; k0 += B) {
        const size_t b_n = windows - k0 < B ? windows - k0 : B;
        size_t start[BATCH];
        for (size_t b = 0; b < b_n; b++) {
            const size_t k = k0 + b;
            start[b] = shift + (windows == 1 ? 0 : (n - reach - T - 1) * k / (windows - 1));
            memcpy(x + b * T, ids + start[b], T * sizeof *x);
        }
        status = lm_forward(m, &ws, x, b_n, T);
        for (size_t b = 0; status == MHA_OK && b < b_n; b++)
            for (size_t i = 0; i < T; i++) {
                const double loss = lm_row_loss(ws.logits + (b * T + i) * V, V,
                                                     ids[start[b] + i + 1]);
                by_position[i] += loss;
                *total += loss;
                if (each != NULL)
                    each[(k0 + b) * T + i] = loss;
            }
    }
    lm_workspace_free(&ws);
    free(x);
    return status;
}
static double mean_over(const double *by_position, size_t from, size_t to, size_t windows)
{
    double total = 0;
    for (size_t i = from; i < to; i++)
        total += by_position[i];
    return total / (double)(windows * (to - from));
}
mha_status lm_sample_loss(const lm_model *m, const int *ids, size_t n, size_t windows,
                          double *loss)
{
    if (m == NULL || ids == NULL || loss == NULL)
        return MHA_ERR_NULL;
    const size_t T = m->config.context;
    if (windows == 0 || n < T + 1)
        return MHA_ERR_SHAPE;
    double *by_position = calloc(T, sizeof *by_position), total;
    mha_status status = by_position ? window_losses(m, ids, n, windows, 0, 0, by_position,
                                                    &total, NULL)
                                    : MHA_ERR_NOMEM;
    *loss = status == MHA_OK ? total / (double)(windows * T) : NAN;
    free(by_position);
    return status == MHA_OK && !isfinite(*loss) ? MHA_ERR_RANGE : status;
}
/* The in-context score's runs for a context of T: run = T/8 tokens, read late in one window
   and at from = 5T/32 on in a window shift = T - run - from later (23T/32 where 32 divides
   T); MHA_ERR_SHAPE for no windows, T < 8 or n < shift + T + 1. */
static mha_status in_context_runs(size_t T, size_t n, size_t windows, size_t *run,
                                  size_t *from, size_t *shift)
{
    *run = T / 8, *from = 5 * T / 32, *shift = T - *run - *from;
    return windows == 0 || T < 8 || n < *shift + T + 1 ? MHA_ERR_SHAPE : MHA_OK;
}
mha_status lm_in_context_score(const lm_model *m, const int *ids, size_t n, size_t windows,
                               double *early, double *late)
{
    if (m == NULL || ids == NULL || early == NULL || late == NULL)
        return MHA_ERR_NULL;
    const size_t T = m->config.context;
    size_t run, from, shift;
    if (in_context_runs(T, n, windows, &run, &from, &shift) != MHA_OK)
        return MHA_ERR_SHAPE;
    double *late_at = calloc(T, sizeof *late_at), *early_at = calloc(T, sizeof *early_at);
    double total;
    mha_status status = late_at && early_at ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = window_losses(m, ids, n, windows, shift, 0, late_at, &total, NULL);
    if (status == MHA_OK)
        status = window_losses(m, ids, n, windows, shift, shift, early_at, &total, NULL);
    *early = status == MHA_OK ? mean_over(early_at, from, from + run, windows) : NAN;
    *late = status == MHA_OK ? mean_over(late_at, T - run, T, windows) : NAN;
    free(late_at);
    free(early_at);
    return status == MHA_OK && !(isfinite(*early) && isfinite(*late)) ? MHA_ERR_RANGE : status;
}
/* <<[[head_roles.c]] functions>> */
/* 1 if the token after the latest copy of ids[t] in ids[from .. t-1] is
   ids[t + 1] */
static int copying_rule_right(const int *ids, size_t from, size_t t)
{
    int right = 0;
    /* <<set [[right]] if the token after the latest copy of [[ids[t]]] is [[ids[t + 1]]]>> */
    for (size_t j = t; j-- > from;)
        if (ids[j] == ids[t]) {
            right = ids[j + 1] == ids[t + 1];
            break;
        }
    return right;
}
/* <<[[head_roles.c]] functions>> */
mha_status lm_copying_reach(const lm_model *m, const int *ids, size_t n, size_t windows,
                            double *early, double *late, double *ceiling)
{
    if (m == NULL || ids == NULL || early == NULL || late == NULL || ceiling == NULL)
        return MHA_ERR_NULL;
    const size_t T = m->config.context;
    size_t run, from, shift;
    if (in_context_runs(T, n, windows, &run, &from, &shift) != MHA_OK ||
        windows > SIZE_MAX / sizeof(double) / T)
        return MHA_ERR_SHAPE;
    double *by_position = calloc(T, sizeof *by_position), *each = malloc(windows * T *
                                                                        sizeof *each), total;
    mha_status status = by_position && each ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = window_losses(m, ids, n, windows, shift, shift, by_position, &total, each);
    size_t near = 0, far = 0;
    double saved = 0;
    for (size_t k = 0; status == MHA_OK && k < windows; k++) {
        const size_t start = windows == 1 ? 0 : (n - shift - T - 1) * k / (windows - 1);
        for (size_t i = 0; i < run; i++) {
            const size_t t = start + T - run + i;     /* at from + i of the early window */
            const int early_right = copying_rule_right(ids, start + shift, t);
            const int late_right = copying_rule_right(ids, start, t);
            near += (size_t)early_right, far += (size_t)late_right;
            saved += late_right && !early_right ? each[k * T + from + i] : 0;
        }
    }
    const double count = (double)(windows * run);
    *early = status == MHA_OK ? (double)near / count : NAN;
    *late = status == MHA_OK ? (double)far / count : NAN;
    *ceiling = status == MHA_OK ? saved / count : NAN;
    free(by_position);
    free(each);
    return status == MHA_OK && !isfinite(*ceiling) ? MHA_ERR_RANGE : status;
}
/* <<[[head_roles.c]] functions>> */
mha_status lm_heads_importance(lm_model *m, lm_mask_loss loss, void *context, double *base,
                               double *importance)
{
    if (m == NULL || loss == NULL || base == NULL || importance == NULL)
        return MHA_ERR_NULL;
    if (lm_heads_removed(m) > 0)
        return MHA_ERR_ARG;
    const size_t H = m->config.heads, NH = m->config.layers * H;
    mha_status status = loss(m, context, base);
    if (status == MHA_OK && !isfinite(*base))
        status = MHA_ERR_RANGE;
    for (size_t k = 0; status == MHA_OK && k < NH; k++) {
        status = lm_head_keep(m, k / H, k % H, 0);
        if (status == MHA_OK)
            status = loss(m, context, &importance[k]);
        if (status == MHA_OK && !isfinite(importance[k] -= *base))
            status = MHA_ERR_RANGE;
        lm_heads_restore(m);
    }
    return status;
}
mha_status lm_heads_prune(lm_model *m, lm_mask_loss loss, void *context, size_t count,
                          lm_prune_step *steps)
{
    if (m == NULL || loss == NULL || (steps == NULL && count > 0))
        return MHA_ERR_NULL;
    const size_t H = m->config.heads, NH = m->config.layers * H;
    if (lm_heads_removed(m) > 0 || count > NH)
        return MHA_ERR_ARG;
    mha_status status = MHA_OK;
    for (size_t s = 0; status == MHA_OK && s < count; s++) {
        size_t best = NH;
        double best_loss = 0;
        for (size_t k = 0; status == MHA_OK && k < NH; k++) {
            if (m->head_mask[k] != 1.0f)
                continue;                          /* removed at an earlier step */
            double trial = 0;
            status = lm_head_keep(m, k / H, k % H, 0);
            if (status == MHA_OK)
                status = loss(m, context, &trial);
            if (status == MHA_OK && !isfinite(trial))
                status = MHA_ERR_RANGE;
            m->head_mask[k] = 1.0f;
            if (status == MHA_OK && (best == NH || trial < best_loss))
                best = k, best_loss = trial;
        }
        if (status == MHA_OK) {
            m->head_mask[best] = 0.0f;
            steps[s] = (lm_prune_step){best / H, best % H, best_loss};
        }
    }
    lm_heads_restore(m);
    return status;
}
/* <<[[head_roles.c]] functions>> */
mha_status lm_repeat_gain(const lm_model *m, const int *ids, size_t n, size_t passages,
                          size_t least, size_t most, double *first, double *second)
{
    if (m == NULL || ids == NULL || first == NULL || second == NULL)
        return MHA_ERR_NULL;
    const size_t V = m->config.vocab;
    if (passages == 0 || least < 2 || least > most || most > m->config.context / 2 || n < most)
        return MHA_ERR_SHAPE;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, 1, 2 * most, 0);
    int *x = malloc(2 * most * sizeof *x);
    if (status == MHA_OK && x == NULL)
        status = MHA_ERR_NOMEM;
    double once = 0, twice = 0;
    for (size_t k = 0; status == MHA_OK && k < passages; k++) {
        const size_t r = least + k % (most - least + 1);
        const size_t start = passages == 1 ? 0 : (n - most) * k / (passages - 1);
        memcpy(x, ids + start, r * sizeof *x);
        memcpy(x + r, ids + start, r * sizeof *x);
        status = lm_forward(m, &ws, x, 1, 2 * r);
        double a = 0, b = 0;
        for (size_t i = 1; status == MHA_OK && i < 2 * r; i++) {   /* logits i-1 predict x[i] */
            const double loss = lm_row_loss(ws.logits + (i - 1) * V, V, x[i]);
            if (i < r)
                a += loss;
            else
                b += loss;
        }
        once += a / (double)(r - 1), twice += b / (double)r;
    }
    *first = once / (double)passages, *second = twice / (double)passages;
    lm_workspace_free(&ws);
    free(x);
    return status == MHA_OK && !(isfinite(*first) && isfinite(*second)) ? MHA_ERR_RANGE : status;
}
