/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "viz.h"

const SDL_Color viz_background = {24, 24, 28, 255}, viz_undecoded = {52, 52, 60, 255},
                viz_masked = {30, 30, 34, 255}, viz_hatch = {110, 110, 120, 255},
                viz_box = {8, 8, 10, 255},
                viz_ink = {230, 230, 230, 255}, viz_dim = {150, 150, 160, 255},
                viz_white = {255, 255, 255, 255}, viz_alarm = {255, 90, 90, 255};
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
static void draw_map(viz_view *v, const viz_state *s, size_t h, SDL_Rect map)
{
    const size_t L = s->length;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < L; j++) {
            const SDL_Rect c = viz_cell(&map, L, i, j);
            if (i >= s->step || j >= s->step)
                viz_fill(v, c, viz_undecoded);
            else if (viz_blocked(s, i, j)) {
                viz_fill(v, c, viz_masked);
                SDL_SetRenderDrawColor(v->renderer, viz_hatch.r, viz_hatch.g, viz_hatch.b, 255);
                if (c.w >= 4 && c.h >= 4)
                    SDL_RenderDrawLine(v->renderer, c.x + 1, c.y + c.h - 2, c.x + c.w - 2,
                                       c.y + 1);
            } else
                viz_fill(v, c, viz_colour(s->colour_map, s->weights[(h * L + i) * L + j]));
        }
    SDL_Rect newest = viz_cell(&map, L, s->step - 1, 0);
    newest.w = map.w;
    viz_outline(v, newest, viz_white, map.w > 200 ? 2 : 1);
    if (s->ablated >> h & 1) {
        SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
        viz_fill(v, map, (SDL_Color){0, 0, 0, 150});
        SDL_SetRenderDrawColor(v->renderer, viz_alarm.r, viz_alarm.g, viz_alarm.b, 255);
        SDL_RenderDrawLine(v->renderer, map.x, map.y, map.x + map.w - 1, map.y + map.h - 1);
        SDL_RenderDrawLine(v->renderer, map.x, map.y + map.h - 1, map.x + map.w - 1, map.y);
    }
}
static void draw_labels(viz_view *v, const viz_state *s, SDL_Rect map)
{
    const size_t L = s->length;
    TTF_Font *font = map.h / (int)L >= 22 ? v->font : v->small;
    const int line = (int)(TTF_FontHeight(font) / v->scale) - 2;
    size_t every = 1;                             /* label every token, or every second ... */
    while ((int)every * map.h / (int)L < line && every < L)
        every++;
    for (size_t i = 0; i < L; i += every) {
        char label[48];
        snprintf(label, sizeof label, "%.10s", s->tokens[i]);
        const SDL_Rect c = viz_cell(&map, L, i, i);
        const SDL_Color colour = i < s->step ? viz_ink : viz_dim;
        viz_text(v, font, label, map.x - 6, c.y + c.h / 2, 1, colour, 0);
        viz_text(v, font, label, c.x + c.w / 2, map.y - 6, 0, colour, 1);
    }
    if (s->hover_head == (int)s->focus && s->hover_row >= 0)
        viz_outline(v, viz_cell(&map, L, (size_t)s->hover_row, (size_t)s->hover_col),
                    viz_white, 2);
    const size_t query = viz_query_row(s);            /* the row the words show */
    if (query + 1 != s->step) {
        SDL_Rect row = viz_cell(&map, L, query, 0);
        row.w = map.w;
        viz_outline(v, row, viz_dim, 1);
    }
}
static const char *const head_rules[VIZ_HEADS] = {
    "each query attends to the token just before it",
    "each query attends to earlier copies of its own word",
    "each query attends to the first token",
    "each query averages itself and the two tokens before it",
    "each query averages every key it may see",
};

static void draw_caption(viz_view *v, const viz_state *s, const viz_layout *l)
{
    const SDL_Rect c = l->caption;
    char line[160];
    snprintf(line, sizeof line, "head %zu, %s: %s", s->focus + 1,
             mha_designed_head_names[s->focus], head_rules[s->focus]);
    viz_text_fit(v, v->font, line, c.x, c.y + 10, c.w, viz_white);
    viz_text_fit(v, v->small, "columns: keys in the KV cache", c.x, c.y + 32, c.w / 2, viz_ink);
    const int key = c.x + c.w / 2;
    viz_fill(v, (SDL_Rect){key, c.y + 26, 12, 12}, viz_masked);
    viz_outline(v, (SDL_Rect){key, c.y + 26, 12, 12}, viz_hatch, 1);
    viz_text(v, v->small, "masked", key + 16, c.y + 32, 0, viz_ink, 0);
    viz_fill(v, (SDL_Rect){key + 80, c.y + 26, 12, 12}, viz_undecoded);
    viz_text_fit(v, v->small, "not decoded yet", key + 96, c.y + 32, c.x + c.w - key - 96,
                 viz_ink);
    viz_text(v, v->small, "rows: queries, one per decoded token", c.x + 8,
             l->big.y + l->big.h / 2, 2, viz_ink, 1);
}
void viz_draw_legend(viz_view *v, const viz_state *s, SDL_Rect r)
{
    for (int y = 0; y < r.h; y++) {
        const SDL_Color c = viz_colour(s->colour_map, 1.0 - (double)y / (r.h - 1));
        viz_fill(v, (SDL_Rect){r.x, r.y + y, r.w, 1}, c);
    }
    viz_text(v, v->small, "weight 1", r.x, r.y - 10, 0, viz_ink, 0);
    viz_text(v, v->small, "0", r.x + r.w + 4, r.y + r.h - 6, 0, viz_ink, 0);
    viz_text(v, v->small, "0.5", r.x + r.w + 4, r.y + r.h / 2, 0, viz_ink, 0);
    viz_text(v, v->small, viz_colour_map_names[s->colour_map], r.x, r.y + r.h + 12, 0,
             viz_dim, 0);
}
static void draw_top_line(viz_view *v, const viz_state *s, const viz_layout *l)
{
    char line[256];
    snprintf(line, sizeof line, "token %zu of %zu   %s at %.2g tokens/s   "
             "head %zu enlarged: %s", s->step, s->length, s->playing ? "playing" : "paused",
             s->speed, s->focus + 1, mha_designed_head_names[s->focus]);
    viz_text(v, v->font, line, 14, 20, 0, viz_ink, 0);
    viz_text(v, v->font, "press ? for help", l->width - 14, 20, 1, viz_dim, 0);
}
static void describe_hover(const viz_state *s, char *line, size_t size)
{
    const int h = s->hover_head, i = s->hover_row, j = s->hover_col;
    if (h < 0 || i < 0 || j < 0 || (size_t)i >= s->length || (size_t)j >= s->length) {
        snprintf(line, size, "point at a cell to see its query, key, score and weight");
    } else if ((size_t)i >= s->step) {
        snprintf(line, size, "head %d: query '%s' has not arrived yet", h + 1, s->tokens[i]);
    } else if ((size_t)j >= s->step) {
        snprintf(line, size, "head %d: key '%s' (%d) is not in the KV cache yet: no score",
                 h + 1, s->tokens[j], j);
    } else if (viz_blocked(s, (size_t)i, (size_t)j)) {
        snprintf(line, size, "head %d: query '%s' (%d) -> key '%s' (%d): masked, weight 0",
                 h + 1, s->tokens[i], i, s->tokens[j], j);
    } else {
        const size_t L = s->length;
        const double w = s->weights[((size_t)h * L + (size_t)i) * L + (size_t)j];
        snprintf(line, size, "head %d %s: query '%s' (%d) -> key '%s' (%d): score %.2f, "
                 "weight %.3f", h + 1, mha_designed_head_names[h], s->tokens[i], i,
                 s->tokens[j], j, viz_score(s, (size_t)h, (size_t)i, (size_t)j), w);
    }
}
static void draw_status(viz_view *v, const viz_state *s, const viz_layout *l)
{
    char line[512];
    const int y = l->status_y;
    if (s->message[0] != '\0' || s->news[0] != '\0')
        viz_text(v, v->font, s->message[0] ? s->message : s->news, 14, y + 8, 0,
                 s->message[0] ? viz_alarm : viz_ink, 0);
    else {
        describe_hover(s, line, sizeof line);
        viz_text_fit(v, v->font, line, 14, y + 8, l->width - 28, viz_ink);
    }
    snprintf(line, sizeof line, "%s %s, 1 thread: %.3f ms %s (least of %d); differs from "
             "naive forward by %.2g", s->decoding ? "KV-cache decoding," : "whole prefix,",
             mha_impls[s->impl].name, s->ms_per_step,
             s->decoding ? "for the last token" : "for the prefix", VIZ_TIMING_RUNS,
             s->impl_difference);
    viz_text_fit(v, v->font, line, 14, y + 32, l->width - 28, viz_ink);
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
    viz_text(v, v->font, line, 14, y + 56, 0, viz_ink, 0);
    const SDL_Rect r = l->slider;
    viz_fill(v, r, viz_undecoded);
    const int knob = r.x + (int)lround(r.w * viz_slider_place(s->temperature));
    viz_fill(v, (SDL_Rect){r.x + r.w / 2, r.y - 2, 1, r.h + 4}, viz_dim);     /* T = 1 */
    viz_fill(v, (SDL_Rect){knob - 3, r.y - 4, 7, r.h + 8}, viz_white);
    snprintf(line, sizeof line, "temperature %.3g", s->temperature);
    viz_text(v, v->font, line, 14, r.y + r.h / 2, 0, viz_ink, 0);
    viz_temperature_note(s, line, sizeof line);
    viz_text_fit(v, v->small, line, r.x + r.w + 12, r.y + r.h / 2, l->width - r.x - r.w - 24,
                 viz_dim);
}
static void draw_tooltip(viz_view *v, const viz_state *s, const viz_layout *l)
{
    const int h = s->hover_head;
    if (h < 0 || s->hover_row < 0 || s->hover_col < 0 || (size_t)s->hover_row >= s->length ||
        (size_t)s->hover_col >= s->length)
        return;
    const SDL_Rect map = h == (int)s->focus ? l->big : l->grid[h];
    const SDL_Rect cell = viz_cell(&map, s->length, (size_t)s->hover_row, (size_t)s->hover_col);
    char line[512];
    describe_hover(s, line, sizeof line);
    int w = 0, th = 0;
    viz_text_size(v, v->small, line, &w, &th);
    w = w + 16 < l->width - 20 ? w + 16 : l->width - 20;
    int x = cell.x + cell.w + 10, y = cell.y + cell.h + 6;
    if (x + w > l->width - 10)
        x = cell.x - 10 - w >= 10 ? cell.x - 10 - w : l->width - 10 - w;
    if (y + th + 8 > l->height - 10)
        y = cell.y - th - 14;
    viz_fill(v, (SDL_Rect){x, y, w, th + 8}, viz_box);
    viz_outline(v, (SDL_Rect){x, y, w, th + 8}, viz_dim, 1);
    viz_text_fit(v, v->small, line, x + 8, y + 4 + th / 2, w - 16, viz_white);
}
void viz_draw_sentence(viz_view *v, const viz_state *s, const void *data, int width, int height)
{
    (void)data;
    viz_layout l;
    viz_layout_compute(s, width, height, &l);
    draw_top_line(v, s, &l);
    for (size_t h = 0; h < VIZ_HEADS; h++) {
        const SDL_Rect r = l.grid[h];
        char title[64];
        snprintf(title, sizeof title, "%zu  %s", h + 1, mha_designed_head_names[h]);
        viz_text(v, v->small, title, r.x, r.y - 9, 0, h == s->focus ? viz_white : viz_dim, 0);
        draw_map(v, s, h, r);
        if (h == s->focus)
            viz_outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, viz_white, 1);
    }
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    draw_map(v, s, s->focus, l.big);
    draw_labels(v, s, l.big);
    draw_caption(v, s, &l);
    viz_draw_legend(v, s, l.legend);
    viz_draw_words(v, s, &l);
    viz_draw_breakdown(v, s, &l);
    draw_status(v, s, &l);
    draw_tooltip(v, s, &l);
}
void viz_draw(viz_view *v, const viz_state *s, const viz_layout *l)
{
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    viz_fill(v, (SDL_Rect){0, 0, l->width, l->height}, viz_background);
    s->mode->draw(v, s, viz_mode_data(s, s->mode), l->width, l->height);
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
    if (s->help) {
        const char *lines[40][2];
        int n = 0;
        for (size_t k = 0; k < viz_help_count && n < 40 - VIZ_MODES_MAX; k++)
            if (strchr(viz_help[k][1], s->mode->key) != NULL) {
                lines[n][0] = viz_help[k][0];
                lines[n++][1] = viz_help[k][2];
            }
        char keys[VIZ_MODES_MAX][2];
        for (size_t m = 0; m < viz_mode_count; m++) {
            keys[m][0] = viz_modes[m]->key;
            keys[m][1] = '\0';
            lines[n][0] = keys[m];
            lines[n++][1] = viz_modes[m]->help;
        }
        const int w = l->width - 40 < 720 ? l->width - 40 : 720, x = (l->width - w) / 2;
        viz_fill(v, (SDL_Rect){x, 60, w, 40 + 22 * n}, viz_box);
        for (int k = 0; k < n; k++) {
            viz_text(v, v->font, lines[k][0], x + 20, 84 + 22 * k, 0, viz_white, 0);
            viz_text_fit(v, v->font, lines[k][1], x + 130, 84 + 22 * k, w - 150, viz_ink);
        }
    }
    if (s->typing) {
        char line[VIZ_TEXT_MAX + 64];
        snprintf(line, sizeof line, "new sentence: %s_", s->typed);
        viz_fill(v, (SDL_Rect){40, l->height / 2 - 30, l->width - 80, 84}, viz_box);
        viz_text_tail(v, v->font, line, 60, l->height / 2, l->width - 120, viz_white);
        viz_text_fit(v, v->small, s->message[0] ? s->message : "enter runs it, escape cancels",
                     60, l->height / 2 + 32, l->width - 120, s->message[0] ? viz_alarm : viz_dim);
    }
}
