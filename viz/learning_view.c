/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include "training.h"

/* <<[[learning_view.c]] functions>> */
void viz_learning_layout_compute(int width, int height, viz_learning_layout *l)
{
    viz_learning_layout_for(width, height, VIZ_LEARN_LAYERS, VIZ_LEARN_HEADS, VIZ_LEARN_LENGTH, l);
}

void viz_learning_layout_for(int width, int height, size_t layers, size_t heads, size_t length,
                             viz_learning_layout *l)
{
    enum { M = 14, TOP = 78, TITLE = 32, LABELS = 34 };
    const int H = (int)heads, layer_rows = (int)layers, maps = H * layer_rows;
    l->width = width, l->height = height;
    l->layers = layers, l->heads = heads, l->length = length;
    l->banner_y = 46;
    l->status_y = height - 52;
    const int panel_h = (l->status_y - TOP) * 30 / 100 > 110 ? (l->status_y - TOP) * 30 / 100 : 110;
    l->panel = (SDL_Rect){M + 44, l->status_y - panel_h, width - 2 * M - 44 - 44, panel_h - 26};
    const int avail = l->panel.y - 44 - TOP, left = width * 30 / 100;   /* room for a legend */
    int side = (left - (H + 1) * M) / H < (avail - layer_rows * (TITLE + M)) / layer_rows
             ? (left - (H + 1) * M) / H : (avail - layer_rows * (TITLE + M)) / layer_rows;
    side = side < 8 ? 8 : side;
    for (int k = 0; k < maps; k++)                 /* a row of heads per layer */
        l->maps[k] = (SDL_Rect){M + (k % H) * (side + M),
                                TOP + (k / H) * (side + TITLE + M) + TITLE, side, side};
    const int bx = left + M + LABELS, by = TOP + LABELS;
    int big = width - bx - M - 60 - 260 < avail - LABELS ? width - bx - M - 60 - 260
                                                          : avail - LABELS;
    big = big < 8 ? 8 : big;
    l->big = (SDL_Rect){bx, by, big, big};
    l->legend = (SDL_Rect){bx + big + 14, by, 14, big};
    const int room = avail - LABELS - 24 - 12 - (22 + VIZ_TOP_TOKENS * 18);
    l->score_row = maps * 22 <= room ? 22 : room / maps > 6 ? room / maps : 6;
    l->scores = (SDL_Rect){l->legend.x + 56, by, width - M - (l->legend.x + 56),
                           24 + maps * l->score_row};
    l->predictions = (SDL_Rect){l->scores.x, l->scores.y + l->scores.h + 12, l->scores.w,
                                22 + VIZ_TOP_TOKENS * 18};
}
/* <<[[learning_view.c]] functions>> */
static void draw_block(viz_view *v, const float *w, size_t T, size_t rows, SDL_Rect map,
                       viz_colour_map colours)
{
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            viz_fill(v, viz_cell(&map, T, i, j),
                 i < rows ? viz_colour(colours, j <= i ? w[i * T + j] : 0) : viz_undecoded);
}

static SDL_Color token_colour(const mha_induction_batch *b, size_t t, int decoded)
{
    const size_t a = b->copy_from[0], c = b->copy_to[0], r = b->copy_length[0];
    if (!decoded) return viz_dim;
    return t >= c && t < c + r ? viz_copy : t >= a && t < a + r ? viz_copy_source : viz_ink;
}
/* <<[[learning_view.c]] functions>> */
size_t viz_label_stride(int map_side, size_t T, int text_height)
{
    const int cell = map_side / (int)T;
    size_t every = 1;
    while ((int)every * cell < text_height && every < T)
        every++;
    return every;
}

static void label_of(int letters, int token, char label[8])
{
    if (letters)
        viz_letter_label(token, label);
    else
        viz_token_label(token, label);
}

static void draw_token_labels(viz_view *v, const mha_induction_batch *b, size_t rows,
                              size_t shown, int letters, SDL_Rect map)
{
    const size_t T = b->length;
    const size_t every = viz_label_stride(map.h, T,
                                          (int)(TTF_FontHeight(v->small) / v->scale) - 2);
    for (size_t i = 0; i < shown; i += every) {
        char label[8];
        label_of(letters, b->tokens[i], label);
        const SDL_Rect c = viz_cell(&map, T, i, i);
        const SDL_Color colour = token_colour(b, i, i < rows);
        viz_text(v, v->small, label, map.x - 4, c.y + c.h / 2, 1, colour, 0);
        viz_text(v, v->small, label, c.x + c.w / 2, map.y - 4, 0, colour, 1);
    }
}
/* <<[[learning_view.c]] functions>> */
int viz_learning_hit(const viz_learning_layout *l, size_t focus, int x, int y, int *head,
                     int *row, int *col)
{
    return viz_maps_hit(l->maps, (int)(l->layers * l->heads), &l->big, l->length, focus, x, y,
                        head, row, col);
}

static void draw_learning_hover(viz_view *v, const viz_state *s, const viz_learning_layout *l,
                                const float *weights, const mha_induction_batch *b, size_t rows,
                                size_t focus, int letters)
{
    const size_t T = b->length, H = l->heads;
    const int i = s->hover_row, j = s->hover_col;
    if (s->hover_head != (int)focus || i < 0 || j < 0 || (size_t)i >= T || (size_t)j >= T)
        return;
    const SDL_Rect cell = viz_cell(&l->big, T, (size_t)i, (size_t)j);
    viz_outline(v, cell, viz_emphasis, 2);
    char query[8], key[8], line[160];
    label_of(letters, b->tokens[i], query);
    label_of(letters, b->tokens[j], key);
    if ((size_t)i >= rows)
        snprintf(line, sizeof line, "query '%s' (%d) has not arrived yet", query, i);
    else if (j > i)
        snprintf(line, sizeof line, "key '%s' (%d) comes after the query: masked", key, j);
    else
        snprintf(line, sizeof line, "layer %zu head %zu: query '%s' (%d) -> key '%s' (%d): "
                 "weight %.3f", focus / H, focus % H, query, i, key, j,
                 weights[(focus * T + (size_t)i) * T + (size_t)j]);
    int w = 0, h = 0;
    viz_text_size(v, v->small, line, &w, &h);
    w += 16;
    int x = cell.x + cell.w + 10, y = cell.y + cell.h + 6;
    if (x + w > l->width - 10)
        x = l->width - 10 - w;
    viz_fill(v, (SDL_Rect){x, y, w, h + 8}, viz_box);
    viz_outline(v, (SDL_Rect){x, y, w, h + 8}, viz_dim, 1);
    viz_text(v, v->small, line, x + 8, y + 4 + h / 2, 0, viz_emphasis, 0);
}
/* <<[[learning_view.c]] functions>> */
static void draw_heads(viz_view *v, const viz_state *s, const viz_learning_layout *l,
                       const float *weights, const mha_induction_batch *b, size_t rows,
                       size_t shown, int letters, uint64_t removed,
                       const mha_head_scores *scores, size_t focus)
{
    const size_t T = b->length, H = l->heads;
    for (size_t k = 0; k < l->layers * H; k++) {
        const SDL_Rect r = l->maps[k];
        char title[96];
        snprintf(title, sizeof title, "layer %zu head %zu", k / H, k % H);
        viz_text_fit(v, v->small, title, r.x, r.y - 22, r.w + 8, k == focus ? viz_emphasis : viz_dim);
        snprintf(title, sizeof title, "prev %.2f ind %.2f", scores->previous[k / H][k % H],
                 scores->induction[k / H][k % H]);
        viz_text_fit(v, v->small, title, r.x, r.y - 9, r.w + 8, k == focus ? viz_emphasis : viz_dim);
        draw_block(v, weights + k * T * T, T, rows, r, s->colour_map);
        if (removed >> k & 1) {                        /* crossed out, as in the sentence */
            SDL_SetRenderDrawColor(v->renderer, viz_alarm.r, viz_alarm.g, viz_alarm.b, 255);
            SDL_RenderDrawLine(v->renderer, r.x, r.y, r.x + r.w - 1, r.y + r.h - 1);
            SDL_RenderDrawLine(v->renderer, r.x + r.w - 1, r.y, r.x, r.y + r.h - 1);
        }
        if (k == focus)
            viz_outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, viz_emphasis, 1);
    }
    draw_block(v, weights + focus * T * T, T, rows, l->big, s->colour_map);
    char title[64];
    snprintf(title, sizeof title, "layer %zu head %zu, enlarged", focus / H, focus % H);
    viz_text(v, v->small, title, l->big.x, l->big.y - 42, 0, viz_emphasis, 0);
    draw_token_labels(v, b, rows, shown, letters, l->big);
    viz_draw_legend(v, s, l->legend);
    draw_learning_hover(v, s, l, weights, b, rows, focus, letters);
}
/* <<[[learning_view.c]] functions>> */
static void draw_score_table(viz_view *v, const viz_learning_layout *l, const mha_head_scores *sc)
{
    const SDL_Rect r = l->scores;
    const int bar = (r.w - 44 - 2 * 40) / 2 > 10 ? (r.w - 44 - 2 * 40) / 2 : 10;
    viz_text(v, v->small, "previous-token", r.x + 44, r.y + 8, 0, viz_copy_source, 0);
    viz_text(v, v->small, "induction", r.x + 44 + bar + 40, r.y + 8, 0, viz_induction_score, 0);
    const size_t H = l->heads;
    const int tall = l->score_row * 14 / 22;         /* 14 pixels at the full pitch */
    for (size_t k = 0; k < l->layers * H; k++) {
        const int y = r.y + 24 + (int)k * l->score_row;
        const double p = sc->previous[k / H][k % H], q = sc->induction[k / H][k % H];
        char text[64];
        const int words = l->score_row >= 16;     /* room for a line of text */
        snprintf(text, sizeof text, "L%zu H%zu", k / H, k % H);
        if (words)
            viz_text(v, v->small, text, r.x, y + 7, 0, viz_ink, 0);
        for (int which = 0; which < 2; which++) {
            const double x = which ? q : p;
            const SDL_Rect box = {r.x + 44 + which * (bar + 40), y, bar, tall};
            viz_fill(v, box, viz_undecoded);
            viz_fill(v, (SDL_Rect){box.x, box.y, (int)lround(bar * fmin(fmax(x, 0), 1)), tall},
                 which ? viz_induction_score : viz_copy_source);
            viz_fill(v, (SDL_Rect){box.x + bar / 2, box.y - 2, 1, tall + 4}, viz_emphasis);
            snprintf(text, sizeof text, "%.2f", x);
            if (words)
                viz_text(v, v->small, text, box.x + bar + 4, box.y + 7, 0, viz_ink, 0);
        }
    }
}
/* <<[[learning_view.c]] functions>> */
static void draw_top_tokens(viz_view *v, const viz_learning_layout *l, const float *logits,
                            size_t V, const int *tokens, size_t T, size_t position, int letters)
{
    const SDL_Rect r = l->predictions;
    int top[VIZ_TOP_TOKENS];
    double p[VIZ_TOP_TOKENS];
    const size_t n = viz_top_tokens(logits + position * V, V, VIZ_TOP_TOKENS, top, p);
    char label[8], line[96];
    label_of(letters, tokens[position], label);
    snprintf(line, sizeof line, "after '%s' (%zu), the model predicts:", label, position);
    viz_text_fit(v, v->small, line, r.x, r.y + 8, r.w, viz_emphasis);
    const int bar = r.w - 40 - 44 > 10 ? r.w - 40 - 44 : 10;
    for (size_t k = 0; k < n; k++) {
        const int y = r.y + 22 + (int)k * 18;
        const int next = position + 1 < T && tokens[position + 1] == top[k];
        label_of(letters, top[k], label);
        viz_text(v, v->small, label, r.x, y + 7, 0, viz_ink, 0);
        viz_fill(v, (SDL_Rect){r.x + 40, y, bar, 14}, viz_undecoded);
        viz_fill(v, (SDL_Rect){r.x + 40, y, (int)lround(bar * p[k]), 14},
                 next ? viz_right_colour : viz_copy_source);
        snprintf(line, sizeof line, "%.2f", p[k]);
        viz_text(v, v->small, line, r.x + 44 + bar, y + 7, 0, viz_ink, 0);
    }
}
/* <<[[learning_view.c]] functions>> */
size_t viz_curve_horizon(size_t step)
{
    const size_t h = (step + 499) / 500 * 500;
    return h < 1000 ? 1000 : h;
}

int viz_curve_x(const viz_learning_layout *l, size_t step, size_t horizon)
{
    return l->panel.x + (int)((double)step / (double)horizon * (l->panel.w - 1) + 0.5);
}
/* <<[[learning_view.c]] functions>> */
static void plot_history(viz_view *v, const viz_learning_layout *l, const float *y, size_t n,
                         size_t horizon, double top, int smooth, SDL_Color colour)
{
    const SDL_Rect p = l->panel;
    SDL_SetRenderDrawColor(v->renderer, colour.r, colour.g, colour.b, 255);
    int px = 0, py = 0;
    double sum = 0;
    for (size_t k = 0; k < n; k++) {
        sum += y[k] - (smooth && k >= 10 ? y[k - 10] : 0);
        const double value = smooth ? sum / (double)(k < 10 ? k + 1 : 10) : y[k];
        const int x = viz_curve_x(l, k + 1, horizon);
        const int yy = p.y + p.h - 1 - (int)lround(fmin(fmax(value / top, 0), 1) * (p.h - 1));
        if (k > 0)
            SDL_RenderDrawLine(v->renderer, px, py, x, yy);
        px = x, py = yy;
    }
}
/* <<[[learning_view.c]] functions>> */
static void draw_curve_axes(viz_view *v, const viz_learning_layout *l, size_t horizon)
{
    const SDL_Rect p = l->panel;
    char text[32];
    viz_outline(v, p, viz_dim, 1);
    for (int k = 0; k <= 4; k++) {
        const int y = p.y + p.h - 1 - k * (p.h - 1) / 4, x = p.x + k * (p.w - 1) / 4;
        snprintf(text, sizeof text, "%.2g", 0.25 * k);
        viz_text(v, v->small, text, p.x - 6, y, 1, viz_ink, 0);
        snprintf(text, sizeof text, "%.1f", 0.25 * k * log(VIZ_LEARN_VOCAB));
        viz_text(v, v->small, text, p.x + p.w + 6, y, 0, viz_loss, 0);
        snprintf(text, sizeof text, "%zu", horizon * (size_t)k / 4);
        viz_text(v, v->small, text, x, p.y + p.h + 10, k == 0 ? 0 : k == 4 ? 1 : 2, viz_ink, 0);
    }
    viz_text(v, v->small, "step", p.x + p.w / 2 + 40, p.y + p.h + 10, 0, viz_dim, 0);
    const SDL_Color colours[4] = {viz_loss, viz_ink, viz_copy_source, viz_induction_score};
    SDL_Rect at[4];
    viz_curve_legend(l, v, at);
    for (int k = 0; k < 4; k++)
        viz_text_fit(v, v->small, viz_curve_names[k], at[k].x, at[k].y + at[k].h / 2, at[k].w,
                     colours[k]);
}
/* <<[[learning_view.c]] functions>> */
const char *const viz_curve_names[4] = {"loss (right axis)", "accuracy on repeated tokens",
                                        "best previous-token score, layer 0",
                                        "best induction score, layer 1"};

void viz_curve_legend(const viz_learning_layout *l, viz_view *v, SDL_Rect at[4])
{
    const SDL_Rect p = l->panel;
    const int gap = 18, h = (int)(TTF_FontHeight(v->small) / v->scale);
    int w[4], total = 3 * gap;
    for (int k = 0; k < 4; k++) {
        viz_text_size(v, v->small, viz_curve_names[k], &w[k], NULL);
        total += w[k];
    }
    int x = p.x;
    for (int k = 0; k < 4; k++) {
        if (total <= p.w) {
            at[k] = (SDL_Rect){x, p.y - 6 - h, w[k], h};
            x += w[k] + gap;
        } else {
            const int half = (p.w - gap) / 2;
            at[k] = (SDL_Rect){p.x + (k % 2) * (half + gap), p.y - 6 - (2 - k / 2) * h,
                               w[k] < half ? w[k] : half, h};
        }
    }
}
/* <<[[learning_view.c]] functions>> */
static void draw_curves(viz_view *v, const viz_learning_layout *l, const viz_snapshot *s)
{
    const size_t horizon = viz_curve_horizon(s->step), n = s->step;
    draw_curve_axes(v, l, horizon);
    plot_history(v, l, s->loss, n, horizon, log(VIZ_LEARN_VOCAB), 1, viz_loss);
    plot_history(v, l, s->accuracy, n, horizon, 1, 1, viz_ink);
    plot_history(v, l, s->previous, n, horizon, 1, 0, viz_copy_source);
    plot_history(v, l, s->induction, n, horizon, 1, 0, viz_induction_score);
    if (s->induction_step != 0) {
        const int x = viz_curve_x(l, s->induction_step, horizon);
        viz_fill(v, (SDL_Rect){x - 1, l->panel.y + 1, 3, l->panel.h - 2}, viz_copy);
        char text[64];
        snprintf(text, sizeof text, "induction head: step %zu", s->induction_step);
        viz_text(v, v->small, text, x + 6, l->panel.y + l->panel.h - 12, 0, viz_copy, 0);
    }
}
/* <<[[learning_view.c]] functions>> */
static void draw_training(viz_view *v, const viz_state *s, const viz_training *g,
                          const viz_learning_layout *l)
{
    const viz_snapshot *snap = &g->view;
    char line[256];
    const size_t n = snap->step;
    int k = snprintf(line, sizeof line, "training live: step %zu   loss %.3f   accuracy %.2f   %s",
                     n, n ? snap->loss[n - 1] : log(VIZ_LEARN_VOCAB),
                     n ? snap->accuracy[n - 1] : 0.0,
                     g->paused ? "paused"
                     : n >= (g->pace > 0 ? g->finish : g->trainer.stop_at) ? "finished"
                     : "training");
    if (g->pace > 0)
        k += snprintf(line + k, sizeof line - (size_t)k, "   pace %g steps/s (up, down)",
                      g->pace);
    if (g->rate > 0)
        snprintf(line + k, sizeof line - (size_t)k, " at %.0f steps/s", g->rate);
    viz_text(v, v->font, line, 14, 20, 0, viz_ink, 0);
    /* <<draw the banner, once an induction head has formed>> */
    if (snap->induction_step != 0) {
        size_t best = 0;
        for (size_t h = 1; h < VIZ_LEARN_HEADS; h++)
            if (snap->scores.induction[1][h] > snap->scores.induction[1][best]) best = h;
        snprintf(line, sizeof line, "an induction head formed at step %zu  --  now the best, "
                 "layer 1 head %zu, puts %.2f of its attention on the token after the earlier copy",
                 snap->induction_step, best, snap->scores.induction[1][best]);
        viz_fill(v, (SDL_Rect){14, l->banner_y - 12, l->width - 28, 26}, viz_copy);
        viz_text_fit(v, v->font, line, 24, l->banner_y + 1, l->width - 48, viz_background);
    }
    draw_heads(v, s, l, snap->weights, &g->trainer.run.probe, VIZ_LEARN_LENGTH,
               VIZ_LEARN_LENGTH, 0, 0, &snap->scores, g->focus);
    draw_score_table(v, l, &snap->scores);
    if (g->predicted_step == snap->step) {
        const mha_induction_batch *probe = &g->trainer.run.probe;
        const size_t late = probe->copy_to[0] + probe->copy_length[0] - 2;
        draw_top_tokens(v, l, g->ws.logits, VIZ_LEARN_VOCAB, probe->tokens, VIZ_LEARN_LENGTH,
                        viz_learning_position(s, g->focus, VIZ_LEARN_LENGTH, late), 0);
    }
    draw_curves(v, l, snap);
    viz_text_fit(v, v->font, "the model trains on its own thread; the window draws its latest "
                 "snapshot and never waits for a step", 14, l->status_y + 12, l->width - 28,
                 viz_dim);
    viz_text_fit(v, v->font, "space pause/resume   r reset   tab next head   l trained model   "
                 "d designed heads   ? help", 14, l->status_y + 36, l->width - 28, viz_dim);
}
/* <<[[learning_view.c]] functions>> */
int viz_trained_guess(const viz_trained *m, size_t t)
{
    return t >= 1 && t <= m->step && t < m->used ? m->predicted[t - 1] : -1;
}

SDL_Rect viz_guess_cell(const viz_learning_layout *l, size_t T, size_t t)
{
    const SDL_Rect p = l->panel;
    return (SDL_Rect){p.x + (int)(t * (size_t)p.w / T), p.y + 36, (int)((size_t)p.w / T) - 2,
                      24};
}

static void draw_predictions(viz_view *v, const viz_trained *m, const viz_learning_layout *l)
{
    const size_t T = m->model.length;
    const SDL_Rect p = l->panel;
    size_t right = 0, counted = 0;
    viz_text(v, v->small, "token", p.x - 6, p.y + 18, 1, viz_ink, 0);
    viz_text(v, v->small, "guess", p.x - 6, p.y + 48, 1, viz_ink, 0);
    for (size_t t = 0; t < m->used; t++) {
        const SDL_Rect g = viz_guess_cell(l, T, t);
        char label[8];
        label_of(m->typed, m->sequence.tokens[t], label);
        viz_text(v, v->small, label, g.x + g.w / 2, g.y - 18, 2,
                 token_colour(&m->sequence, t, t < m->step), 0);
        const int guess = viz_trained_guess(m, t), decoded = t < m->step;
        if (guess < 0) continue;
        const int ok = decoded && guess == m->sequence.tokens[t];
        label_of(m->typed, guess, label);
        viz_fill(v, g, ok ? viz_right_guess : viz_undecoded);
        if (!decoded)
            viz_outline(v, g, viz_emphasis, 1);            /* what it expects next */
        viz_text(v, v->small, label, g.x + g.w / 2, g.y + 12, 2, viz_ink, 0);
        right += ok && m->sequence.predictable[t - 1];
        counted += decoded && m->sequence.predictable[t - 1];
    }
    char line[256];
    snprintf(line, sizeof line, "in the copy the model has guessed %zu of %zu tokens before "
             "seeing them (chance: 1 in %zu)", right, counted, m->model.vocab);
    viz_text(v, v->font, line, p.x, p.y + 82, 0, viz_ink, 0);
}
/* <<[[learning_view.c]] functions>> */
static void draw_trained(viz_view *v, const viz_state *s, const viz_trained *m,
                         const viz_learning_layout *l)
{
    char line[512];
    int k = snprintf(line, sizeof line, "trained model (%zu %s of %zu %s, mha train --out): "
             "token %zu of %zu   %s", m->model.layers, m->model.layers == 1 ? "layer" : "layers",
             m->model.heads, m->model.heads == 1 ? "head" : "heads", m->step, m->used,
             s->playing ? "playing" : "paused");
    for (size_t h = 0; h < m->model.layers * m->model.heads && h < 64; h++)
        if (m->removed >> h & 1)
            k += snprintf(line + k, sizeof line - (size_t)k, "   L%zu H%zu removed",
                          h / m->model.heads + 1, h % m->model.heads + 1);
    viz_text(v, v->font, line, 14, 20, 0, viz_ink, 0);
    draw_heads(v, s, l, m->weights, &m->sequence, m->step, m->used, m->typed, m->removed,
               &m->scores, m->focus);
    draw_score_table(v, l, &m->scores);
    draw_top_tokens(v, l, m->ws.logits, m->model.vocab, m->sequence.tokens, m->used,
                    viz_learning_position(s, m->focus, m->step, m->step - 1), m->typed);
    draw_predictions(v, m, l);
    if (!m->typed)
        snprintf(line, sizeof line, "from %s; the scores are measured on the whole sequence",
                 m->dir);
    else if (m->sequence.copy_length[0] > 0)
        snprintf(line, sizeof line, "typed text, a token a character; the induction score is "
                 "measured on its longest repeat, %zu tokens at %zu", m->sequence.copy_length[0],
                 m->sequence.copy_to[0]);
    else
        snprintf(line, sizeof line, "typed text, a token a character; nothing in it repeats, "
                 "so no head can copy");
    viz_text_fit(v, v->font, line, 14, l->status_y + 12, l->width - 28, viz_dim);
    viz_text_fit(v, v->font, "space play/pause   right, left step   enter type   n new sequence"
                 "   tab next head   x u remove, restore heads   t training   d designed heads",
                 14, l->status_y + 36, l->width - 28, viz_dim);
}
/* <<[[learning_view.c]] functions>> */
static void draw_message(viz_view *v, const viz_state *s, int width)
{
    if (s->message[0] != '\0' || s->news[0] != '\0')
        viz_text(v, v->font, s->message[0] ? s->message : s->news, width - 14, 20, 1,
                 s->message[0] ? viz_alarm : viz_ink, 0);
}

void viz_draw_training(viz_view *v, const viz_state *s, const void *training,
                       int width, int height)
{
    viz_learning_layout l;
    viz_learning_layout_compute(width, height, &l);
    draw_training(v, s, training, &l);
    draw_message(v, s, width);
}

void viz_draw_trained(viz_view *v, const viz_state *s, const void *trained,
                      int width, int height)
{
    const viz_trained *m = trained;
    viz_learning_layout l;
    viz_learning_layout_for(width, height, m->model.layers, m->model.heads, m->model.length, &l);
    draw_trained(v, s, trained, &l);
    draw_message(v, s, width);
}
