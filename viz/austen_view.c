/* generated from chapters/18-austen-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "austen.h"
#include "training.h"
#include "viz.h"

/* <<[[austen_view.c]] layout>> */
/* The colour scale right of the enlarged map, its labels inside the map's
   height, if it and its labels end before right; else empty. */
static SDL_Rect legend_beside(SDL_Rect big, int right)
{
    const int x = big.x + big.w + 16;
    if (x + VIZ_AUSTEN_LEGEND_ROOM > right || big.h < 60)
        return (SDL_Rect){0, 0, 0, 0};
    return (SDL_Rect){x, big.y + 16, 14, big.h - 36};
}

static void austen_zoomed(int width, austen_layout *l)
{
    enum { M = 14, TOP = 112, LEFT = VIZ_AUSTEN_AXIS_LEFT, UP = VIZ_AUSTEN_AXIS_TOP };
    const int room = l->status_y - TOP - 38 - UP, wide = width * 60 / 100 - LEFT;
    const int big = room < wide ? room : wide;
    l->big = (SDL_Rect){M + LEFT, TOP + 14 + UP, big < 8 ? 8 : big, big < 8 ? 8 : big};
    l->legend = legend_beside(l->big, width - M - 200);       /* the side keeps 200 */
    const int x = l->legend.w > 0 ? l->legend.x + VIZ_AUSTEN_LEGEND_ROOM + 8
                                  : l->big.x + l->big.w + 24;
    l->side = (SDL_Rect){x, l->big.y, width - M - x, l->status_y - 4 - l->big.y};
    const int below = l->side.y + VIZ_AUSTEN_SIDE_LINES, rest = l->status_y - 8 - below;
    if (l->side.w >= VIZ_AUSTEN_BREAKDOWN_W && rest >= VIZ_AUSTEN_BREAKDOWN_H) {
        l->side.h = VIZ_AUSTEN_SIDE_LINES;
        l->breakdown = (SDL_Rect){x, below, l->side.w, rest};
    } else
        l->breakdown = (SDL_Rect){0, 0, 0, 0};
}

static void austen_layout_for(int width, int height, size_t N, size_t H, double zoom,
                              austen_layout *l)
{
    enum { M = 14, TOP = 112, TITLE = VIZ_AUSTEN_TITLE, GAP = 8, SIDE = 185 };
    memset(l, 0, sizeof *l);
    l->width = width, l->height = height;
    l->status_y = height - 46;
    l->pieces = (SDL_Rect){M, 34, width - 2 * M, 42};
    if (zoom > 1) {
        austen_zoomed(width, l);
        return;
    }
    const int left = width / 2, n = (int)N, h = (int)H;
    int side = (left - (h - 1) * GAP) / h;
    const int tall = (l->status_y - TOP - SIDE - n * (TITLE + GAP)) / n;
    side = side < tall ? side : tall;
    side = side < 8 ? 8 : side;
    for (int k = 0; k < n * h && k < VIZ_AUSTEN_MAPS_MAX; k++)
        l->maps[k] = (SDL_Rect){M + (k % h) * (side + GAP),
                                TOP + TITLE + (k / h) * (side + TITLE + GAP), side, side};
    const int below = TOP + n * (side + TITLE + GAP) + 4;
    l->side = (SDL_Rect){M, below, h * (side + GAP) - GAP, l->status_y - 4 - below};
    const int bx = M + h * (side + GAP) + 24, LEFT = VIZ_AUSTEN_AXIS_LEFT;
    int big = (l->status_y - TOP - 24) * 45 / 100 - VIZ_AUSTEN_AXIS_TOP / 2;
    big = big < width - bx - LEFT - M ? big : width - bx - LEFT - M;
    big = big < 8 ? 8 : big;
    l->big = (SDL_Rect){bx + LEFT, TOP + 14 + VIZ_AUSTEN_AXIS_TOP, big, big};
    l->legend = legend_beside(l->big, width - M);
    l->breakdown = (SDL_Rect){bx, l->big.y + big + 16, width - M - bx,
                              l->status_y - 8 - (l->big.y + big + 16)};
}

void viz_austen_layout(const viz_austen *a, int width, int height, double zoom,
                       austen_layout *l)
{
    austen_layout_for(width, height, a->model.config.layers, a->model.config.heads, zoom, l);
}

size_t viz_austen_maps(const viz_austen *a, int width, int height, SDL_Rect *maps, size_t max)
{
    austen_layout l;
    austen_layout_for(width, height, a->model.config.layers, a->model.config.heads, 1, &l);
    size_t n = a->model.config.layers * a->model.config.heads;
    n = n < max ? n : max;
    n = n < VIZ_AUSTEN_MAPS_MAX ? n : VIZ_AUSTEN_MAPS_MAX;
    memcpy(maps, l.maps, n * sizeof *maps);
    return n;
}
/* <<[[austen_view.c]] drawing>> */
enum { STRIP_LINE = 21 };
void viz_austen_strip(viz_view *v, const viz_austen *a, SDL_Rect r, SDL_Rect *boxes)
{
    const size_t query = viz_austen_query(a);
    int x = r.x, line = 0, last = 0;
    for (size_t k = 0; k < a->count; k++) {
        char label[VIZ_AUSTEN_LABEL];
        int w = 0;
        viz_austen_piece_label(&a->tokenizer, a->ids[k], label, sizeof label);
        viz_text_size(v, v->font, label, &w, NULL);
        if (x + w + 8 > r.x + r.w && x > r.x)
            x = r.x, line++;
        boxes[k] = (SDL_Rect){x, line, w + 6, STRIP_LINE - 3};
        if (k == query)
            last = line;
        x += w + 8;
    }
    const int lines = r.h / STRIP_LINE > 0 ? r.h / STRIP_LINE : 1;
    const int first = last - lines + 1 > 0 ? last - lines + 1 : 0;
    for (size_t k = 0; k < a->count; k++)
        if (boxes[k].y < first || boxes[k].y >= first + lines)
            boxes[k] = (SDL_Rect){0, 0, 0, 0};
        else
            boxes[k].y = r.y + (boxes[k].y - first) * STRIP_LINE;
}

static void draw_pieces(viz_view *v, const viz_austen *a, const austen_layout *l)
{
    SDL_Rect *boxes = a->strip;                     /* kept for the pointer */
    viz_austen_strip(v, a, l->pieces, boxes);
    for (size_t k = a->count; k < a->model.config.context; k++)
        boxes[k] = (SDL_Rect){0, 0, 0, 0};
    const size_t query = viz_austen_query(a);
    for (size_t k = 0; k < a->count; k++) {
        if (boxes[k].w == 0)
            continue;
        char label[VIZ_AUSTEN_LABEL];
        viz_austen_piece_label(&a->tokenizer, a->ids[k], label, sizeof label);
        viz_fill(v, boxes[k], k < a->prompt_count ? viz_box : viz_undecoded);
        viz_outline(v, boxes[k], k == query ? viz_emphasis : viz_dim, 1);
        viz_text(v, v->font, label, boxes[k].x + 3, boxes[k].y + (STRIP_LINE - 3) / 2, 0,
                 k < a->prompt_count ? viz_ink : viz_copy_source, 0);
    }
}
/* <<[[austen_view.c]] drawing>> */
static void draw_map(viz_view *v, const viz_state *s, const viz_austen *a, size_t k, SDL_Rect r)
{
    const size_t T = a->model.config.context, L = a->count;
    const float *w = a->maps + k * T * T;
    for (size_t i = 0; i < L; i++) {
        float largest = 0;                              /* of the keys the query sees */
        for (size_t j = 0; j <= i; j++)
            largest = w[i * T + j] > largest ? w[i * T + j] : largest;
        const double unit = a->row_scaled && largest > 0 ? largest : 1;
        for (size_t j = 0; j < L; j++) {
            const SDL_Rect c = viz_cell(&r, L, i, j);
            if (j <= i)
                viz_fill(v, c, viz_colour(s->colour_map, w[i * T + j] / unit));
            else
                viz_masked_cell(v, c);                  /* a later piece: the causal mask */
        }
    }
}

static void cross_out(viz_view *v, SDL_Rect r)         /* a removed head's map */
{
    SDL_SetRenderDrawColor(v->renderer, viz_alarm.r, viz_alarm.g, viz_alarm.b, 255);
    SDL_RenderDrawLine(v->renderer, r.x, r.y, r.x + r.w - 1, r.y + r.h - 1);
    SDL_RenderDrawLine(v->renderer, r.x + r.w - 1, r.y, r.x, r.y + r.h - 1);
}

/* Head k's scores, "p.57" over "i.00", in the top right corner of its map r, where
   the causal mask leaves the map empty; not drawn if they would reach a visible cell. */
static void draw_corner_scores(viz_view *v, const viz_austen *a, size_t k, SDL_Rect r,
                               SDL_Color ink)
{
    char scores[32];
    viz_austen_scores(a, k, 0, scores, sizeof scores);
    char *second = strchr(scores, ' ');
    if (second == NULL)
        return;                                     /* no scores in heads.tsv */
    *second++ = '\0';
    int w1 = 0, w2 = 0, h = 0;
    viz_text_size(v, v->small, scores, &w1, &h);
    viz_text_size(v, v->small, second, &w2, NULL);
    const int w = (w1 > w2 ? w1 : w2) + 4;
    const int cell = r.w / (int)(a->count > 0 ? a->count : 1);
    if (r.w - w < 2 * h + cell)                     /* the box's corner left of the diagonal */
        return;
    viz_fill(v, (SDL_Rect){r.x + r.w - w, r.y, w, 2 * h}, viz_background);
    viz_text(v, v->small, scores, r.x + r.w - 2, r.y + h / 2, 1, ink, 0);
    viz_text(v, v->small, second, r.x + r.w - 2, r.y + h + h / 2, 1, ink, 0);
}

static void draw_grid(viz_view *v, const viz_state *s, const viz_austen *a,
                      const austen_layout *l)
{
    const size_t H = a->model.config.heads, maps = a->model.config.layers * H;
    for (size_t k = 0; k < maps && k < VIZ_AUSTEN_MAPS_MAX && l->maps[k].w > 0; k++) {
        const SDL_Rect r = l->maps[k];
        const int removed = lm_head_removed(&a->model, k);
        char title[96];
        viz_austen_title(a, k, title, sizeof title);
        char *role = strchr(strchr(title, ' ') + 1, ' ');     /* the block and head, then the role */
        *role = '\0';
        const SDL_Color ink = removed ? viz_alarm : k == a->focus ? viz_emphasis : viz_dim;
        viz_text_fit(v, v->small, title, r.x, r.y - 20, r.w + 7, ink);
        viz_text_fit(v, v->small, role + 1, r.x, r.y - 7, r.w + 7, ink);
        draw_map(v, s, a, k, r);
        draw_corner_scores(v, a, k, r, ink);
        if (removed)
            cross_out(v, r);
        if (k == a->focus)
            viz_outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, viz_emphasis, 1);
    }
}
/* <<[[austen_view.c]] drawing>> */
/* label cut, a whole character at a time, until it is at most room pixels wide */
static void shorten_label(viz_view *v, char *label, int room)
{
    size_t n = strlen(label);
    int w = 0;
    viz_text_size(v, v->small, label, &w, NULL);
    while (w > room && n > 0) {
        do                                              /* back over UTF-8 continuations */
            n--;
        while (n > 0 && ((unsigned char)label[n] & 0xC0) == 0x80);
        label[n] = '\0';
        viz_text_size(v, v->small, label, &w, NULL);
    }
}

static void draw_axes(viz_view *v, const viz_austen *a, SDL_Rect r)
{
    const size_t n = a->count, query = viz_austen_query(a);
    if (n == 0)
        return;
    const size_t every = viz_label_stride(r.h, n, (int)(TTF_FontHeight(v->small) / v->scale) - 2);
    for (size_t i = 0; i < n; i++) {
        if (i % every != 0 && i != query)
            continue;
        char left[VIZ_AUSTEN_LABEL], up[VIZ_AUSTEN_LABEL];
        viz_austen_piece_label(&a->tokenizer, a->ids[i], left, sizeof left);
        memcpy(up, left, sizeof up);
        shorten_label(v, left, VIZ_AUSTEN_AXIS_LEFT - 8);
        shorten_label(v, up, VIZ_AUSTEN_AXIS_TOP - 8);
        const SDL_Rect c = viz_cell(&r, n, i, i);
        const SDL_Color ink = i == query ? viz_emphasis : viz_ink;
        viz_text(v, v->small, left, r.x - 4, c.y + c.h / 2, 1, ink, 0);
        viz_text(v, v->small, up, c.x + c.w / 2, r.y - 4, 0, ink, 1);
    }
}
/* <<[[austen_view.c]] drawing>> */
static void draw_hover(viz_view *v, const viz_state *s, const viz_austen *a,
                       const austen_layout *l)
{
    const size_t H = a->model.config.heads;
    const int i = s->hover_row, j = s->hover_col, k = s->hover_head;
    if (k < 0 || i < 0 || j < 0 || (size_t)i >= a->count || (size_t)j >= a->count ||
        (size_t)k >= a->model.config.layers * H)
        return;
    if (l->maps[0].w == 0 && (size_t)k != a->focus)
        return;                          /* zoomed: the head pointed at is no longer shown */
    viz_austen_breakdown b;
    char lines[VIZ_AUSTEN_CELL_LINES][VIZ_AUSTEN_CELL_LINE];
    if (viz_austen_breakdown_of(a, (size_t)k / H, (size_t)k % H, (size_t)i, &b) != MHA_OK)
        return;
    const size_t n = viz_austen_cell_lines(a, &b, (size_t)j, lines);
    int wide = 0, h = 0;
    for (size_t m = 0; m < n; m++) {
        int w = 0;
        viz_text_size(v, v->small, lines[m], &w, &h);
        wide = w > wide ? w : wide;
    }
    const int x = l->pieces.x, y = l->pieces.y + l->pieces.h + 4;
    viz_fill(v, (SDL_Rect){x, y, wide + 16, (int)n * (h + 2) + 6}, viz_box);
    for (size_t m = 0; m < n; m++)
        viz_text(v, v->small, lines[m], x + 8, y + 3 + (int)m * (h + 2) + h / 2, 0,
                 m == 0 ? viz_emphasis : viz_ink, 0);
}
/* <<[[austen_view.c]] drawing>> */
static void draw_side(viz_view *v, const viz_state *s, const viz_austen *a,
                      const viz_austen_breakdown *b, const austen_layout *l)
{
    const SDL_Rect r = l->side;
    char line[256], label[VIZ_AUSTEN_LABEL];
    int y = r.y + 6;
    char pace[96] = "";
    if (s->playing && a->rate > 0)
        snprintf(pace, sizeof pace, "%.1f of the %.1f pieces/s asked, ", a->rate, s->speed);
    else if (s->playing)
        snprintf(pace, sizeof pace, "%.1f pieces/s asked, ", s->speed);
    snprintf(line, sizeof line, "sampling temperature %.1f   top-k %zu   seed %llu   %s%s%s",
             a->temperature, a->top_k, (unsigned long long)a->seed,
             s->playing ? "generating " : "paused: space generates", pace,
             s->playing ? viz_austen_path(a) : "");
    viz_text_fit(v, v->small, line, r.x, y, r.w, viz_ink);
    viz_austen_piece_label(&a->tokenizer, a->ids[b->row], label, sizeof label);
    snprintf(line, sizeof line, "after '%s' (%zu) the model predicts:", label, b->row);
    viz_text_fit(v, v->small, line, r.x, y += 22, r.w, viz_emphasis);
    const int column = r.w >= 300 ? 118 : r.w * 2 / 5;     /* the piece, then its bar */
    const int bar = r.w - column - 60 > 20 ? r.w - column - 60 : 20;
    for (size_t n = 0; n < VIZ_AUSTEN_TOP; n++) {
        y += 18;
        const int next = b->row + 1 < a->count && a->ids[b->row + 1] == b->next[n];
        char named[VIZ_AUSTEN_LABEL + 32];
        viz_austen_piece_label(&a->tokenizer, b->next[n], label, sizeof label);
        const char *name = viz_austen_punctuation_name(label);
        snprintf(named, sizeof named, "%s%s%s", label, name ? " " : "", name ? name : "");
        viz_text_fit(v, v->small, named, r.x, y, column - 4, viz_ink);
        viz_fill(v, (SDL_Rect){r.x + column, y - 6, bar, 12}, viz_undecoded);
        viz_fill(v, (SDL_Rect){r.x + column, y - 6, (int)lround(bar * b->probability[n]), 12},
                 next ? viz_right_colour : viz_copy_source);
        snprintf(line, sizeof line, "%.3f", b->probability[n]);
        viz_text(v, v->small, line, r.x + column + 4 + bar, y, 0, viz_ink, 0);
    }
    y += 26;
    viz_austen_loss_line(a, line, sizeof line);
    viz_text_fit(v, v->small, line, r.x, y, r.w, viz_ink);
    viz_austen_sample_note(a, line, sizeof line);
    if (line[0] != '\0')
        viz_text_fit(v, v->small, line, r.x, y += 18, r.w, viz_dim);
    const size_t removed = lm_heads_removed(&a->model);
    if (removed > 0) {
        snprintf(line, sizeof line, a->loss_kind == 2 && removed > 1
                 ? "%zu heads removed: the sum of each one's rise alone" : "%zu head%s removed",
                 removed, removed == 1 ? "" : "s");
        viz_text_fit(v, v->small, line, r.x, y += 18, r.w, viz_alarm);
    }
}
/* <<[[austen_view.c]] drawing>> */
static void draw_breakdown(viz_view *v, const viz_austen *a, const viz_austen_breakdown *b,
                           const austen_layout *l)
{
    const SDL_Rect r = l->breakdown;
    const size_t H = a->model.config.heads, D = a->model.config.embed_dim / H;
    char line[320], label[VIZ_AUSTEN_LABEL];
    int y = r.y + 6;
    const int removed = lm_head_removed(&a->model, b->layer * H + b->head);
    viz_austen_piece_label(&a->tokenizer, a->ids[b->row], label, sizeof label);
    snprintf(line, sizeof line, "%sL%zu H%zu (%s), query '%s' at %zu, |q| %.2f: score "
             "= |q| |k| cos / sqrt(%zu)", removed ? "REMOVED " : "", b->layer, b->head,
             a->roles[b->layer * H + b->head], label, b->row, b->query_norm, D);
    viz_text_fit(v, v->small, line, r.x, y, r.w, removed ? viz_alarm : viz_emphasis);
    size_t order[VIZ_AUSTEN_KEYS], shown = 0;
    for (; shown < VIZ_AUSTEN_KEYS && shown < b->keys; shown++) {   /* the heaviest keys */
        size_t best = b->keys;
        for (size_t j = 0; j < b->keys; j++) {
            int taken = 0;
            for (size_t m = 0; m < shown; m++)
                taken |= order[m] == j;
            if (!taken && (best == b->keys || b->weight[j] > b->weight[best]))
                best = j;
        }
        order[shown] = best;
    }
    /* rows of keys, and one for the rest; in a short window the output's four lines give
       way to the keys, which are what the breakdown is for */
    const int outputs = (r.h - 112) / 16 >= 3;
    const int free_rows = outputs ? (r.h - 112) / 16 : (r.h - 44) / 16;
    const int rows = free_rows > 0 ? free_rows : 0;
    const int at[6] = {0, 104, 148, 196, 252, r.w - 44};   /* key, |k|, cos, score, weight, |v| */
    const char *heads[6] = {"key", "|k|", "cos", "score", "weight", "|v|"};
    y += 16;
    for (int c = 0; c < 6; c++)
        viz_text(v, v->small, heads[c], r.x + at[c], y, 0, viz_dim, 0);
    double rest = 0.0;                                  /* the weight of the keys not listed */
    for (size_t j = 0; j < b->keys; j++)
        rest += b->weight[j];
    for (size_t n = 0; n < shown && (int)n < rows; n++) {
        const size_t j = order[n];
        rest -= b->weight[j];
        y += 16;
        viz_austen_piece_label(&a->tokenizer, a->ids[j], label, sizeof label);
        snprintf(line, sizeof line, "%zu '%s'", j, label);
        viz_text_fit(v, v->small, line, r.x, y, at[1] - 6, viz_ink);
        const double lengths = b->query_norm * b->key_norm[j];
        snprintf(line, sizeof line, "%.2f", b->key_norm[j]);
        viz_text(v, v->small, line, r.x + at[1], y, 0, viz_ink, 0);
        snprintf(line, sizeof line, "%+.2f", lengths > 0 ? b->score[j] * sqrt((double)D) / lengths
                                                         : 0.0);
        viz_text(v, v->small, line, r.x + at[2], y, 0, viz_ink, 0);
        snprintf(line, sizeof line, "%+.3f", b->score[j]);
        viz_text(v, v->small, line, r.x + at[3], y, 0, viz_ink, 0);
        snprintf(line, sizeof line, "%.3f", b->weight[j]);
        viz_text(v, v->small, line, r.x + at[4], y, 0, viz_ink, 0);
        const int bar = at[5] - at[4] - 50 > 10 ? at[5] - at[4] - 50 : 10;
        viz_fill(v, (SDL_Rect){r.x + at[4] + 42, y - 5, (int)lround(bar * b->weight[j]), 10},
                 viz_copy_source);
        snprintf(line, sizeof line, "%.3f", b->value_norm[j]);
        viz_text(v, v->small, line, r.x + at[5], y, 0, viz_ink, 0);
    }
    const size_t listed = shown < (size_t)rows ? shown : (size_t)rows;
    if (listed < b->keys) {
        snprintf(line, sizeof line, "the other %zu keys together", b->keys - listed);
        viz_text_fit(v, v->small, line, r.x, y += 16, at[4] - 6, viz_dim);
        snprintf(line, sizeof line, "%.3f", rest > 0 ? rest : 0.0);
        viz_text(v, v->small, line, r.x + at[4], y, 0, viz_dim, 0);
    }
    if (!outputs)
        return;
    snprintf(line, sizeof line, "output o = sum w_j v_j%s: |o| %.3f, o[0..3] %+.3f %+.3f "
             "%+.3f %+.3f", removed ? ", dropped" : "", b->out_norm, b->out[0], b->out[1],
             b->out[2], b->out[3]);
    viz_text_fit(v, v->small, line, r.x, y += 20, r.w, removed ? viz_alarm : viz_ink);
    snprintf(line, sizeof line, "the %zu heads' outputs side by side%s: |concat| %.3f", H,
             removed ? " (this one as zeros)" : "", b->concat_norm);
    viz_text_fit(v, v->small, line, r.x, y += 16, r.w, viz_ink);
    snprintf(line, sizeof line, "projected, W_O concat + b: |y| %.3f, y[0..3] %+.3f %+.3f "
             "%+.3f %+.3f", b->projected_norm, b->projected[0], b->projected[1], b->projected[2],
             b->projected[3]);
    viz_text_fit(v, v->small, line, r.x, y += 16, r.w, viz_ink);
    viz_text_fit(v, v->small, "then the later blocks, the final norm and the unembedding give "
                 "the next pieces (left)", r.x, y += 16, r.w, viz_dim);
}
/* <<[[austen_view.c]] drawing>> */
void viz_draw_austen(viz_view *v, const viz_state *s, const void *data, int width, int height)
{
    const viz_austen *a = data;
    const lm_config *c = &a->model.config;
    austen_layout l;
    austen_layout_for(width, height, c->layers, c->heads, s->zoom, &l);
    char line[700], dir[400];
    viz_fit_message(dir, sizeof dir, a->dir);            /* a long path loses its middle */
    snprintf(line, sizeof line, "Austen model (%zu blocks of %zu heads, %zu pieces) from %s: "
             "%zu pieces of %zu", c->layers, c->heads, c->vocab, dir, a->count, c->context);
    viz_text_fit(v, v->font, line, 14, 16, width - 28, viz_ink);
    draw_pieces(v, a, &l);
    draw_grid(v, s, a, &l);
    draw_map(v, s, a, a->focus, l.big);
    draw_axes(v, a, l.big);
    if (l.legend.w > 0)
        viz_draw_legend_titled(v, s, l.legend, a->row_scaled ? "row's largest" : "weight 1");
    const size_t H = c->heads;
    const int removed = lm_head_removed(&a->model, a->focus);
    if (removed)
        cross_out(v, l.big);
    char scores[32];
    viz_austen_scores(a, a->focus, 1, scores, sizeof scores);
    snprintf(line, sizeof line, "L%zu H%zu %s%s%s%s", a->focus / H, a->focus % H,
             a->roles[a->focus], scores[0] ? ": " : ", enlarged", scores,
             removed ? "; removed, u restores" : "");
    viz_text_fit(v, v->small, line, l.big.x - VIZ_AUSTEN_AXIS_LEFT,
                 l.big.y - VIZ_AUSTEN_AXIS_TOP - 7, l.big.w + VIZ_AUSTEN_AXIS_LEFT,
                 removed ? viz_alarm : viz_emphasis);
    const size_t query = viz_austen_query(a);
    viz_outline(v, viz_cell(&l.big, a->count, query, 0).w > 0
                ? (SDL_Rect){l.big.x, viz_cell(&l.big, a->count, query, 0).y, l.big.w,
                             viz_cell(&l.big, a->count, query, 0).h}
                : l.big, viz_emphasis, 1);
    viz_austen_breakdown b;
    if (viz_austen_breakdown_of(a, a->focus / H, a->focus % H, query, &b) == MHA_OK) {
        draw_side(v, s, a, &b, &l);
        if (l.breakdown.w > 0)
            draw_breakdown(v, a, &b, &l);
    }
    draw_hover(v, s, a, &l);
    if (s->message[0] != '\0' || s->news[0] != '\0')
        viz_text(v, v->font, s->message[0] ? s->message : s->news, width - 14, l.status_y + 10,
                 1, s->message[0] ? viz_alarm : viz_ink, 0);
    viz_text_fit(v, v->small, "g next piece   space keep generating   , . sampling temperature   "
                 "k top-k   r again   n next seed   x remove head   u every head   enter type   "
                 "tab, click: enlarge   d l t other views   ? help", 14, l.status_y + 30,
                 width - 28, viz_dim);
}
/* <<[[austen_view.c]] the mode>> */
static mha_status enter_austen(viz_state *s, void **data)
{
    viz_austen *a = *data;
    if (a != NULL)
        return MHA_OK;
    const char *dir = viz_austen_dir[0] != '\0' ? viz_austen_dir : VIZ_AUSTEN_DIR;
    char why[VIZ_WHY_SIZE] = "";
    mha_status status = (a = malloc(sizeof *a)) != NULL
        ? viz_austen_load(a, dir, viz_austen_valid[0] != '\0' ? viz_austen_valid
                                                                : VIZ_AUSTEN_VALID,
                          why, sizeof why)
        : MHA_ERR_NOMEM;
    if (status != MHA_OK && why[0] != '\0')
        viz_fit_message(s->message, sizeof s->message, why);
    if (status == MHA_OK && strcmp(s->text, viz_default_text) != 0 &&
        viz_austen_set_text(a, s->text) != MHA_OK)
        status = viz_austen_set_text(a, VIZ_AUSTEN_PROMPT);   /* the sentence did not fit */
    if (status != MHA_OK) {
        if (a != NULL && a->ids != NULL)
            viz_austen_free(a);
        free(a);
        return status;
    }
    *data = a;
    return MHA_OK;
}

static void say(viz_state *s, mha_status status, const char *what)
{
    if (status != MHA_OK)
        snprintf(s->message, sizeof s->message, "%s: %s", what,
                 status == MHA_ERR_CACHE_FULL ? "the context is full" :
                 status == MHA_ERR_SHAPE ? "no pieces, or more than the context holds"
                                         : mha_status_message(status));
}
/* <<[[austen_view.c]] the mode>> */
static void type_text(viz_state *s, viz_austen *a, const viz_action *x)
{
    size_t n = strlen(s->typed);
    switch (x->kind) {
    case VIZ_START_TYPING: s->typing = 1; s->typed[0] = '\0'; break;
    case VIZ_TYPE:
        if (n + strlen(x->text) < sizeof s->typed)
            strcat(s->typed, x->text);
        break;
    case VIZ_ERASE:
        while (n > 0 && ((unsigned char)s->typed[--n] & 0xC0) == 0x80)
            ;
        s->typed[n] = '\0';
        break;
    case VIZ_ACCEPT: {
        const mha_status status = viz_austen_set_text(a, s->typed);
        say(s, status, "the text");
        s->typing = status != MHA_OK;
        break;
    }
    default: s->typing = 0; break;
    }
}

static void act_austen(viz_state *s, void *data, const viz_action *x)
{
    viz_austen *a = data;
    const size_t maps = a->model.config.layers * a->model.config.heads;
    switch (x->kind) {
    case VIZ_START_TYPING: case VIZ_TYPE: case VIZ_ERASE: case VIZ_ACCEPT: case VIZ_CANCEL:
        type_text(s, a, x); break;
    case VIZ_GENERATE: say(s, viz_austen_generate(a), "generate"); break;
    case VIZ_PLAY_PAUSE: s->playing = !s->playing; a->since = 0; break;
    case VIZ_FASTER: s->speed = fmin(s->speed * 1.5, 20.0); break;
    case VIZ_SLOWER: s->speed = fmax(s->speed / 1.5, 0.25); break;
    case VIZ_SAMPLING_COLDER: a->temperature = fmax(a->temperature - 0.1, 0); break;
    case VIZ_SAMPLING_HOTTER: a->temperature = fmin(a->temperature + 0.1, 2); break;
    case VIZ_NEXT_TOP_K: a->top_k = a->top_k == 0 ? VIZ_AUSTEN_TOP
                                  : a->top_k >= VIZ_AUSTEN_TOP_K ? 0 : a->top_k * 2; break;
    case VIZ_RESTART: say(s, viz_austen_restart(a, a->seed), "again"); break;
    case VIZ_NEW_SEQUENCE: say(s, viz_austen_restart(a, a->seed + 1), "next seed"); break;
    case VIZ_REMOVE_HEAD: say(s, viz_austen_switch_head(a, a->focus), "remove"); break;
    case VIZ_RESTORE_HEADS: say(s, viz_austen_restore(a), "restore"); break;
    case VIZ_ROW_SCALE: a->row_scaled = !a->row_scaled; break;
    case VIZ_NEXT_FOCUS: a->focus = (a->focus + 1) % maps; break;
    case VIZ_FOCUS_HEAD: a->focus = (size_t)x->head % maps; break;
    case VIZ_POINT: s->hover_head = x->head, s->hover_row = x->row, s->hover_col = x->col; break;
    case VIZ_SELECT: a->row = x->row; break;
    case VIZ_STEP_BACK: a->row = (int)viz_austen_query(a) > 0 ? (int)viz_austen_query(a) - 1 : 0;
        break;
    case VIZ_STEP_FORWARD: a->row = (int)viz_austen_query(a) + 1 < (int)a->count
                                  ? (int)viz_austen_query(a) + 1 : -1; break;
    default: break;
    }
}
/* <<[[austen_view.c]] the mode>> */
static int tick_austen(viz_state *s, void *data, double seconds)
{
    viz_austen *a = data;
    const int measured = viz_austen_take_loss(a, 0);
    if (!s->playing || (a->since += seconds) < 1.0 / s->speed)
        return measured;
    const double interval = a->since;      /* the wall time since the last piece */
    a->since = 0;
    const mha_status status = viz_austen_generate(a);
    if (status != MHA_OK) {
        s->playing = 0;
        say(s, status, "generate");
    } else if (interval > 0)
        a->rate = a->rate > 0 ? 0.8 * a->rate + 0.2 / interval : 1 / interval;
    return 1;
}

static int austen_busy(const viz_state *s, const void *data)
{
    const viz_austen *a = data;
    return s->playing || a->updating;
}

static mha_status start_austen(viz_state *s, void *data, const viz_start *how)
{
    s->playing = 0;                                   /* the space bar starts the writing */
    if (how->picture)
        viz_austen_take_loss(data, 1);
    return MHA_OK;
}

static int hit_austen(const viz_state *s, const void *data, int width, int height, int x,
                      int y, int *head, int *row, int *col)
{
    const viz_austen *a = data;
    austen_layout l;
    austen_layout_for(width, height, a->model.config.layers, a->model.config.heads, s->zoom,
                      &l);
    const size_t maps = a->model.config.layers * a->model.config.heads;
    const int map = viz_maps_hit(l.maps, (int)(maps < VIZ_AUSTEN_MAPS_MAX ? maps
                                                                        : VIZ_AUSTEN_MAPS_MAX),
                                 &l.big, a->count, a->focus, x, y, head, row, col);
    for (size_t k = 0; map == 0 && k < a->count; k++) {
        const SDL_Rect b = a->strip[k];             /* a piece of the strip: its row */
        if (b.w > 0 && x >= b.x && y >= b.y && x < b.x + b.w && y < b.y + b.h) {
            *head = (int)a->focus, *row = (int)k, *col = -1;
            return 2;
        }
    }
    return map;
}

static int austen_map_side(const viz_state *s, const void *data, int width, int height,
                           double zoom)
{
    austen_layout l;
    (void)s;
    viz_austen_layout(data, width, height, zoom, &l);
    return l.big.w;
}

static void free_austen(void *data)
{
    viz_austen_free(data);
    free(data);
}

const viz_mode viz_austen_mode = {
    .name = "austen", .key = 'a',
    .help = "the Austen language model on typed text; g: the next piece",
    .enter = enter_austen, .start = start_austen, .act = act_austen, .tick = tick_austen,
    .busy = austen_busy,
    .hit = hit_austen, .map_side = austen_map_side, .draw = viz_draw_austen,
    .free = free_austen,
};
