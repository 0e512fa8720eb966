/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "viz.h"

static const Uint8 viridis[11][3] = {
    {68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},
    {42, 120, 142}, {33, 145, 140}, {34, 168, 132}, {68, 191, 112},
    {122, 209, 81}, {189, 223, 38}, {253, 231, 37},
};
static const Uint8 cividis[10][3] = {
    {0, 32, 77},     {0, 51, 111},    {57, 72, 107},   {87, 92, 109},   {112, 113, 115},
    {138, 135, 121}, {166, 157, 117}, {196, 181, 108}, {228, 207, 91},  {255, 234, 70},
};
const char *const viz_colour_map_names[VIZ_COLOUR_MAPS] = {"viridis", "cividis", "grey"};
static const SDL_Color background = {24, 24, 28, 255}, undecoded = {52, 52, 60, 255},
                       ink = {230, 230, 230, 255}, dim = {150, 150, 160, 255},
                       white = {255, 255, 255, 255}, alarm = {255, 90, 90, 255};
static const SDL_Color source_colour = {110, 170, 255, 255}, copy_colour = {250, 210, 80, 255},
                       loss_colour = {255, 160, 60, 255}, score_colour = {240, 90, 110, 255};
static SDL_Color sample(const Uint8 (*table)[3], int n, double t)
{
    const double x = t * (n - 1);
    const int i = x >= n - 1 ? n - 2 : (int)x;
    const double f = x - i;
    SDL_Color c = {0, 0, 0, 255};
    c.r = (Uint8)lround((1 - f) * table[i][0] + f * table[i + 1][0]);
    c.g = (Uint8)lround((1 - f) * table[i][1] + f * table[i + 1][1]);
    c.b = (Uint8)lround((1 - f) * table[i][2] + f * table[i + 1][2]);
    return c;
}

SDL_Color viz_colour(viz_colour_map map, double t)
{
    if (isnan(t))
        return (SDL_Color){255, 0, 255, 255};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    if (map == VIZ_CIVIDIS)
        return sample(cividis, 10, t);
    if (map == VIZ_GREY) {
        const Uint8 v = (Uint8)lround(255 * t);
        return (SDL_Color){v, v, v, 255};
    }
    return sample(viridis, 11, t);
}
int viz_view_open(viz_view *view, SDL_Renderer *renderer)
{
    view->renderer = renderer;
    view->font = TTF_OpenFont(VIZ_FONT, 15);
    view->small = TTF_OpenFont(VIZ_FONT, 11);
    if (view->font == NULL || view->small == NULL) {
        viz_view_close(view);
        return -1;
    }
    return 0;
}

void viz_view_close(viz_view *view)
{
    if (view->font) TTF_CloseFont(view->font);
    if (view->small) TTF_CloseFont(view->small);
    view->font = view->small = NULL;
}
static void draw_text(viz_view *v, TTF_Font *font, const char *s, int x, int y, int align,
                 SDL_Color colour, int upwards)
{
    if (s[0] == '\0')
        return;
    SDL_Surface *surface = TTF_RenderUTF8_Blended(font, s, colour);
    SDL_Texture *texture = surface ? SDL_CreateTextureFromSurface(v->renderer, surface) : NULL;
    if (texture != NULL) {
        const int w = surface->w, h = surface->h;
        const int along = align == 0 ? 0 : align == 1 ? -w : -w / 2;   /* along the text */
        SDL_Rect r = upwards ? (SDL_Rect){x - w / 2, y - along - w / 2 - h / 2, w, h}
                             : (SDL_Rect){x + along, y - h / 2, w, h};
        SDL_RenderCopyEx(v->renderer, texture, NULL, &r, upwards ? -90.0 : 0.0, NULL,
                         SDL_FLIP_NONE);
        SDL_DestroyTexture(texture);
    }
    SDL_FreeSurface(surface);
}
static void fill(viz_view *v, SDL_Rect r, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(v->renderer, &r);
}

static void outline(viz_view *v, SDL_Rect r, SDL_Color c, int thickness)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    for (int k = 0; k < thickness; k++) {
        SDL_Rect o = {r.x - k, r.y - k, r.w + 2 * k, r.h + 2 * k};
        SDL_RenderDrawRect(v->renderer, &o);
    }
}
static void draw_map(viz_view *v, const viz_state *s, size_t h, SDL_Rect map)
{
    const size_t L = s->length;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < L; j++)
            fill(v, viz_cell(&map, L, i, j),
                 i < s->step ? viz_colour(s->colour_map, s->weights[(h * L + i) * L + j])
                             : undecoded);
    SDL_Rect newest = viz_cell(&map, L, s->step - 1, 0);
    newest.w = map.w;
    outline(v, newest, white, map.w > 200 ? 2 : 1);
    if (s->ablated >> h & 1) {
        SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
        fill(v, map, (SDL_Color){0, 0, 0, 150});
        SDL_SetRenderDrawColor(v->renderer, alarm.r, alarm.g, alarm.b, 255);
        SDL_RenderDrawLine(v->renderer, map.x, map.y, map.x + map.w - 1, map.y + map.h - 1);
        SDL_RenderDrawLine(v->renderer, map.x, map.y + map.h - 1, map.x + map.w - 1, map.y);
    }
}
static void draw_labels(viz_view *v, const viz_state *s, SDL_Rect map)
{
    const size_t L = s->length;
    TTF_Font *font = map.h / (int)L >= 22 ? v->font : v->small;
    for (size_t i = 0; i < L; i++) {
        char label[48];
        snprintf(label, sizeof label, "%.10s", s->tokens[i]);
        const SDL_Rect c = viz_cell(&map, L, i, i);
        const SDL_Color colour = i < s->step ? ink : dim;
        draw_text(v, font, label, map.x - 6, c.y + c.h / 2, 1, colour, 0);
        draw_text(v, font, label, c.x + c.w / 2, map.y - 6, 0, colour, 1);
    }
    if (s->hover_head == (int)s->focus && s->hover_row >= 0)
        outline(v, viz_cell(&map, L, (size_t)s->hover_row, (size_t)s->hover_col), white, 2);
}
static void draw_legend(viz_view *v, const viz_state *s, SDL_Rect r)
{
    for (int y = 0; y < r.h; y++) {
        const SDL_Color c = viz_colour(s->colour_map, 1.0 - (double)y / (r.h - 1));
        SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, 255);
        SDL_RenderDrawLine(v->renderer, r.x, r.y + y, r.x + r.w - 1, r.y + y);
    }
    draw_text(v, v->small, "weight 1", r.x, r.y - 10, 0, ink, 0);
    draw_text(v, v->small, "0", r.x + r.w + 4, r.y + r.h - 6, 0, ink, 0);
    draw_text(v, v->small, "0.5", r.x + r.w + 4, r.y + r.h / 2, 0, ink, 0);
    draw_text(v, v->small, viz_colour_map_names[s->colour_map], r.x, r.y + r.h + 12, 0, dim, 0);
}
static void draw_top_line(viz_view *v, const viz_state *s, const viz_layout *l)
{
    char line[256];
    snprintf(line, sizeof line, "token %zu of %zu   %s at %.2g tokens/s   "
             "head %zu enlarged: %s", s->step, s->length, s->playing ? "playing" : "paused",
             s->speed, s->focus + 1, mha_designed_head_names[s->focus]);
    draw_text(v, v->font, line, 14, 20, 0, ink, 0);
    draw_text(v, v->font, "press ? for help", l->width - 14, 20, 1, dim, 0);
}
static void describe_hover(const viz_state *s, char *line, size_t size)
{
    const int h = s->hover_head, i = s->hover_row, j = s->hover_col;
    if (h < 0 || i < 0 || j < 0 || (size_t)i >= s->length || (size_t)j >= s->length) {
        snprintf(line, size, "point at a cell to see its query, key, score and weight");
    } else if ((size_t)i >= s->step) {
        snprintf(line, size, "head %d: query '%s' has not arrived yet", h + 1, s->tokens[i]);
    } else {
        const size_t L = s->length;
        const double w = s->weights[((size_t)h * L + (size_t)i) * L + (size_t)j];
        snprintf(line, size, "head %d %s: query '%s' (%d) -> key '%s' (%d): score %.2f%s, "
                 "weight %.3f", h + 1, mha_designed_head_names[h], s->tokens[i], i,
                 s->tokens[j], j, viz_score(s, (size_t)h, (size_t)i, (size_t)j),
                 viz_blocked(s, (size_t)i, (size_t)j) ? " (masked)" : "", w);
    }
}
static void draw_status(viz_view *v, const viz_state *s, const viz_layout *l)
{
    char line[512];
    const int y = l->status_y;
    if (s->message[0] != '\0')
        draw_text(v, v->font, s->message, 14, y + 8, 0, alarm, 0);
    else {
        describe_hover(s, line, sizeof line);
        draw_text(v, v->font, line, 14, y + 8, 0, ink, 0);
    }
    snprintf(line, sizeof line, "%s %s: %.3f ms %s; differs from naive forward by %.2g",
             s->decoding ? "KV-cache decoding," : "whole prefix,", mha_impls[s->impl].name,
             s->ms_per_step, s->decoding ? "for the last token" : "for the prefix",
             s->impl_difference);
    draw_text(v, v->font, line, 14, y + 32, 0, ink, 0);
    int n = snprintf(line, sizeof line, "causal mask %s    padding demo %s",
                     s->causal ? "on" : "off", s->padding ? "on" : "off");
    if (s->ablated != 0) {
        n += snprintf(line + n, sizeof line - (size_t)n, "    heads off:");
        for (int h = 0; h < VIZ_HEADS; h++)
            if (s->ablated >> h & 1)
                n += snprintf(line + n, sizeof line - (size_t)n, " %d", h + 1);
        snprintf(line + n, sizeof line - (size_t)n, ", output changes by up to %.3f",
                 s->output_change);
    }
    draw_text(v, v->font, line, 14, y + 56, 0, ink, 0);
    const SDL_Rect r = l->slider;
    fill(v, r, undecoded);
    const int knob = r.x + (int)lround(r.w * log(s->temperature / 0.05) / log(1000.0));
    fill(v, (SDL_Rect){knob - 3, r.y - 4, 7, r.h + 8}, white);
    snprintf(line, sizeof line, "temperature %.2f", s->temperature);
    draw_text(v, v->font, line, 14, r.y + r.h / 2, 0, ink, 0);
    draw_text(v, v->small, "[ sharper    click or press [ ]    flatter ]", r.x + r.w + 12, r.y + r.h / 2, 0,
         dim, 0);
}
static void draw_overlays(viz_view *v, const viz_state *s, const viz_layout *l)
{
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
    if (s->help) {
        const int n = (int)viz_help_count, x = l->width / 2 - 320;
        fill(v, (SDL_Rect){x, 60, 640, 40 + 22 * n}, (SDL_Color){0, 0, 0, 235});
        for (int k = 0; k < n; k++) {
            draw_text(v, v->font, viz_help[k][0], x + 20, 84 + 22 * k, 0, white, 0);
            draw_text(v, v->font, viz_help[k][1], x + 130, 84 + 22 * k, 0, ink, 0);
        }
    }
    if (s->typing) {
        char line[VIZ_TEXT_MAX + 64];
        snprintf(line, sizeof line, "new sentence: %s_", s->typed);
        fill(v, (SDL_Rect){40, l->height / 2 - 30, l->width - 80, 60}, (SDL_Color){0, 0, 0, 230});
        draw_text(v, v->font, line, 60, l->height / 2, 0, white, 0);
    }
}
void viz_draw(viz_view *v, const viz_state *s, const viz_layout *l)
{
    if (s->mode != VIZ_MODE_DESIGNED && s->learning != NULL) {
        viz_draw_learning(v, s, l->width, l->height);
        return;
    }
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    fill(v, (SDL_Rect){0, 0, l->width, l->height}, background);
    draw_top_line(v, s, l);
    for (size_t h = 0; h < VIZ_HEADS; h++) {
        const SDL_Rect r = l->grid[h];
        char title[64];
        snprintf(title, sizeof title, "%zu  %s", h + 1, mha_designed_head_names[h]);
        draw_text(v, v->small, title, r.x, r.y - 9, 0, h == s->focus ? white : dim, 0);
        draw_map(v, s, h, r);
        if (h == s->focus)
            outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, white, 1);
    }
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    draw_map(v, s, s->focus, l->big);
    draw_labels(v, s, l->big);
    draw_legend(v, s, l->legend);
    draw_status(v, s, l);
    draw_overlays(v, s, l);
}
void viz_learning_layout_compute(int width, int height, viz_learning_layout *l)
{
    enum { M = 14, TOP = 78, TITLE = 32, LABELS = 34 };
    l->width = width, l->height = height;
    l->banner_y = 46;
    l->status_y = height - 52;
    const int panel_h = (l->status_y - TOP) * 30 / 100 > 110 ? (l->status_y - TOP) * 30 / 100 : 110;
    l->panel = (SDL_Rect){M + 44, l->status_y - panel_h, width - 2 * M - 44 - 44, panel_h - 26};
    const int avail = l->panel.y - 44 - TOP, left = width * 30 / 100;   /* room for a legend */
    int side = (left - 3 * M) / 2 < (avail - 2 * (TITLE + M)) / 2
             ? (left - 3 * M) / 2 : (avail - 2 * (TITLE + M)) / 2;
    side = side < 8 ? 8 : side;
    for (int k = 0; k < VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS; k++)
        l->maps[k] = (SDL_Rect){M + (k % 2) * (side + M),
                                TOP + (k / 2) * (side + TITLE + M) + TITLE, side, side};
    const int bx = left + M + LABELS, by = TOP + LABELS;
    int big = width - bx - M - 60 - 260 < avail - LABELS ? width - bx - M - 60 - 260
                                                          : avail - LABELS;
    big = big < 8 ? 8 : big;
    l->big = (SDL_Rect){bx, by, big, big};
    l->legend = (SDL_Rect){bx + big + 14, by, 14, big};
    l->scores = (SDL_Rect){l->legend.x + 56, by, width - M - (l->legend.x + 56), big};
}
static void draw_block(viz_view *v, const float *w, size_t T, size_t rows, SDL_Rect map,
                       viz_colour_map colours)
{
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            fill(v, viz_cell(&map, T, i, j),
                 i < rows ? viz_colour(colours, j <= i ? w[i * T + j] : 0) : undecoded);
}

static SDL_Color token_colour(const induction_batch *b, size_t t, int decoded)
{
    const size_t a = b->copy_from[0], c = b->copy_to[0], r = b->copy_length[0];
    if (!decoded) return dim;
    return t >= c && t < c + r ? copy_colour : t >= a && t < a + r ? source_colour : ink;
}
static void draw_token_labels(viz_view *v, const induction_batch *b, size_t rows, SDL_Rect map)
{
    const size_t T = b->length;
    for (size_t i = 0; i < T; i++) {
        char label[8];
        viz_token_label(b->tokens[i], label);
        const SDL_Rect c = viz_cell(&map, T, i, i);
        const SDL_Color colour = token_colour(b, i, i < rows);
        draw_text(v, v->small, label, map.x - 4, c.y + c.h / 2, 1, colour, 0);
        draw_text(v, v->small, label, c.x + c.w / 2, map.y - 4, 0, colour, 1);
    }
}
static void draw_heads(viz_view *v, const viz_state *s, const viz_learning_layout *l,
                       const float *weights, const induction_batch *b, size_t rows,
                       const head_scores *scores)
{
    const size_t T = b->length, H = VIZ_LEARN_HEADS, focus = s->learning->focus;
    for (size_t k = 0; k < VIZ_LEARN_LAYERS * H; k++) {
        const SDL_Rect r = l->maps[k];
        char title[96];
        snprintf(title, sizeof title, "layer %zu head %zu", k / H + 1, k % H + 1);
        draw_text(v, v->small, title, r.x, r.y - 22, 0, k == focus ? white : dim, 0);
        snprintf(title, sizeof title, "prev %.2f  ind %.2f", scores->previous[k / H][k % H],
                 scores->induction[k / H][k % H]);
        draw_text(v, v->small, title, r.x, r.y - 9, 0, k == focus ? white : dim, 0);
        draw_block(v, weights + k * T * T, T, rows, r, s->colour_map);
        if (k == focus)
            outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, white, 1);
    }
    draw_block(v, weights + focus * T * T, T, rows, l->big, s->colour_map);
    draw_token_labels(v, b, rows, l->big);
    draw_legend(v, s, l->legend);
}
static void draw_score_table(viz_view *v, const viz_learning_layout *l, const head_scores *sc)
{
    const SDL_Rect r = l->scores;
    const int bar = r.w - 150 > 20 ? r.w - 150 : 20;
    draw_text(v, v->font, "previous-token / induction", r.x, r.y, 0, ink, 0);
    for (size_t k = 0; k < VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS; k++) {
        const int y = r.y + 30 + (int)k * 44;
        const double p = sc->previous[k / VIZ_LEARN_HEADS][k % VIZ_LEARN_HEADS],
                     q = sc->induction[k / VIZ_LEARN_HEADS][k % VIZ_LEARN_HEADS];
        char text[64];
        snprintf(text, sizeof text, "L%zu H%zu", k / VIZ_LEARN_HEADS + 1, k % VIZ_LEARN_HEADS + 1);
        draw_text(v, v->small, text, r.x, y + 9, 0, ink, 0);
        for (int which = 0; which < 2; which++) {
            const double x = which ? q : p;
            const SDL_Rect box = {r.x + 50, y + which * 18, bar, 14};
            fill(v, box, undecoded);
            fill(v, (SDL_Rect){box.x, box.y, (int)lround(bar * fmin(fmax(x, 0), 1)), 14},
                 which ? score_colour : source_colour);
            fill(v, (SDL_Rect){box.x + bar / 2, box.y - 2, 1, 18}, white);
            snprintf(text, sizeof text, "%.2f", x);
            draw_text(v, v->small, text, box.x + bar + 6, box.y + 7, 0, ink, 0);
        }
    }
}
size_t viz_curve_horizon(size_t step)
{
    const size_t h = (step + 499) / 500 * 500;
    return h < 1000 ? 1000 : h;
}

int viz_curve_x(const viz_learning_layout *l, size_t step, size_t horizon)
{
    return l->panel.x + (int)((double)step / (double)horizon * (l->panel.w - 1) + 0.5);
}
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
static void draw_curve_axes(viz_view *v, const viz_learning_layout *l, size_t horizon)
{
    const SDL_Rect p = l->panel;
    char text[32];
    outline(v, p, dim, 1);
    for (int k = 0; k <= 4; k++) {
        const int y = p.y + p.h - 1 - k * (p.h - 1) / 4, x = p.x + k * (p.w - 1) / 4;
        snprintf(text, sizeof text, "%.2g", 0.25 * k);
        draw_text(v, v->small, text, p.x - 6, y, 1, ink, 0);
        snprintf(text, sizeof text, "%.1f", 0.25 * k * log(VIZ_LEARN_VOCAB));
        draw_text(v, v->small, text, p.x + p.w + 6, y, 0, loss_colour, 0);
        snprintf(text, sizeof text, "%zu", horizon * (size_t)k / 4);
        draw_text(v, v->small, text, x, p.y + p.h + 10, k == 0 ? 0 : k == 4 ? 1 : 2, ink, 0);
    }
    draw_text(v, v->small, "step", p.x + p.w / 2 + 40, p.y + p.h + 10, 0, dim, 0);
    static const char *const names[4] = {"loss (right axis)", "accuracy on repeated tokens",
                                         "best previous-token score, layer 1",
                                         "best induction score, layer 2"};
    const SDL_Color colours[4] = {loss_colour, ink, source_colour, score_colour};
    for (int k = 0; k < 4; k++)
        draw_text(v, v->small, names[k], p.x + k * p.w / 4, p.y - 12, 0, colours[k], 0);
}
static void draw_curves(viz_view *v, const viz_learning_layout *l, const viz_snapshot *s)
{
    const size_t horizon = viz_curve_horizon(s->step), n = s->step;
    draw_curve_axes(v, l, horizon);
    plot_history(v, l, s->loss, n, horizon, log(VIZ_LEARN_VOCAB), 1, loss_colour);
    plot_history(v, l, s->accuracy, n, horizon, 1, 1, ink);
    plot_history(v, l, s->previous, n, horizon, 1, 0, source_colour);
    plot_history(v, l, s->induction, n, horizon, 1, 0, score_colour);
    if (s->induction_step != 0) {
        const int x = viz_curve_x(l, s->induction_step, horizon);
        fill(v, (SDL_Rect){x - 1, l->panel.y + 1, 3, l->panel.h - 2}, copy_colour);
        char text[64];
        snprintf(text, sizeof text, "induction head: step %zu", s->induction_step);
        draw_text(v, v->small, text, x + 6, l->panel.y + l->panel.h - 12, 0, copy_colour, 0);
    }
}
static void draw_training(viz_view *v, const viz_state *s, const viz_learning_layout *l)
{
    const viz_learning *g = s->learning;
    const viz_snapshot *snap = &g->view;
    char line[256];
    const size_t n = snap->step;
    int k = snprintf(line, sizeof line, "training live: step %zu   loss %.3f   accuracy %.2f   %s",
                     n, n ? snap->loss[n - 1] : log(VIZ_LEARN_VOCAB),
                     n ? snap->accuracy[n - 1] : 0.0,
                     g->paused ? "paused" : n >= VIZ_TRAIN_MAX_STEPS ? "finished" : "training");
    if (g->rate > 0)
        snprintf(line + k, sizeof line - (size_t)k, " at %.0f steps/s", g->rate);
    draw_text(v, v->font, line, 14, 20, 0, ink, 0);
    if (snap->induction_step != 0) {
        size_t best = 0;
        for (size_t h = 1; h < VIZ_LEARN_HEADS; h++)
            if (snap->scores.induction[1][h] > snap->scores.induction[1][best]) best = h;
        snprintf(line, sizeof line, "step %zu: an induction head has formed  --  layer 2, head %zu "
                 "now puts %.2f of its attention on the token after the earlier copy",
                 snap->induction_step, best + 1, snap->scores.induction[1][best]);
        fill(v, (SDL_Rect){14, l->banner_y - 12, l->width - 28, 26}, copy_colour);
        draw_text(v, v->font, line, 24, l->banner_y + 1, 0, background, 0);
    }
    draw_heads(v, s, l, snap->weights, &g->trainer.probe, VIZ_LEARN_LENGTH, &snap->scores);
    draw_score_table(v, l, &snap->scores);
    draw_curves(v, l, snap);
    draw_text(v, v->font, "the model trains on its own thread; the window draws its latest "
              "snapshot and never waits for a step", 14, l->status_y + 12, 0, dim, 0);
    draw_text(v, v->font, "space pause/resume   r reset   tab next head   l trained model   "
              "d designed heads   ? help", 14, l->status_y + 36, 0, dim, 0);
}
static void draw_predictions(viz_view *v, const viz_state *s, const viz_learning_layout *l)
{
    const viz_trained *m = &s->learning->trained;
    const size_t T = m->model.length;
    const SDL_Rect p = l->panel;
    size_t right = 0, counted = 0;
    draw_text(v, v->small, "token", p.x - 6, p.y + 18, 1, ink, 0);
    draw_text(v, v->small, "guess", p.x - 6, p.y + 48, 1, ink, 0);
    for (size_t t = 0; t < T; t++) {
        const SDL_Rect c = {p.x + (int)(t * (size_t)p.w / T), p.y + 6,
                            (int)((size_t)p.w / T) - 2, 24};
        char label[8];
        viz_token_label(m->sequence.tokens[t], label);
        draw_text(v, v->small, label, c.x + c.w / 2, c.y + 12, 2,
                  token_colour(&m->sequence, t, t < m->step), 0);
        if (t >= m->step) continue;
        const int ok = t + 1 < m->step && m->predicted[t] == m->sequence.tokens[t + 1];
        viz_token_label(m->predicted[t], label);
        fill(v, (SDL_Rect){c.x, c.y + 30, c.w, 24}, ok ? (SDL_Color){40, 130, 70, 255} : undecoded);
        draw_text(v, v->small, label, c.x + c.w / 2, c.y + 42, 2, ink, 0);
        right += ok && m->sequence.predictable[t], counted += t + 1 < m->step && m->sequence.predictable[t];
    }
    char line[256];
    snprintf(line, sizeof line, "in the copy the model has guessed %zu of %zu next tokens "
             "(chance: 1 in %zu)", right, counted, m->model.vocab);
    draw_text(v, v->font, line, p.x, p.y + 82, 0, ink, 0);
}
static void draw_trained(viz_view *v, const viz_state *s, const viz_learning_layout *l)
{
    const viz_trained *m = &s->learning->trained;
    char line[512];
    snprintf(line, sizeof line, "trained model (%zu layers, mha train --out): token %zu of %zu   %s",
             m->model.layers, m->step, m->model.length, s->playing ? "playing" : "paused");
    draw_text(v, v->font, line, 14, 20, 0, ink, 0);
    draw_heads(v, s, l, m->weights, &m->sequence, m->step, &m->scores);
    draw_score_table(v, l, &m->scores);
    draw_predictions(v, s, l);
    snprintf(line, sizeof line, "from %s; the scores are measured on the whole sequence", m->dir);
    draw_text(v, v->font, line, 14, l->status_y + 12, 0, dim, 0);
    draw_text(v, v->font, "space play/pause   right, left step   n new sequence   tab next head"
              "   t training   d designed heads", 14, l->status_y + 36, 0, dim, 0);
}
void viz_draw_learning(viz_view *v, const viz_state *s, int width, int height)
{
    viz_learning_layout l;
    viz_learning_layout_compute(width, height, &l);
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    fill(v, (SDL_Rect){0, 0, width, height}, background);
    if (s->mode == VIZ_MODE_TRAINING)
        draw_training(v, s, &l);
    else
        draw_trained(v, s, &l);
    if (s->message[0] != '\0')
        draw_text(v, v->font, s->message, width - 14, 20, 1, alarm, 0);
    const viz_layout frame = {.width = width, .height = height};
    draw_overlays(v, s, &frame);
}
