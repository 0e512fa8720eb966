/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include "viz.h"

/* <<[[view.c]] functions>> */
void viz_masked_cell(viz_view *v, SDL_Rect c)
{
    viz_fill(v, c, viz_masked);
    SDL_SetRenderDrawColor(v->renderer, viz_hatch.r, viz_hatch.g, viz_hatch.b, 255);
    if (c.w >= 4 && c.h >= 4)
        SDL_RenderDrawLine(v->renderer, c.x + 1, c.y + c.h - 2, c.x + c.w - 2, c.y + 1);
}

static void draw_map(viz_view *v, const viz_state *s, size_t h, SDL_Rect map)
{
    const size_t L = s->length;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < L; j++) {
            const SDL_Rect c = viz_cell(&map, L, i, j);
            if (i >= s->step || j >= s->step)
                viz_fill(v, c, viz_undecoded);
            else if (viz_blocked(s, i, j))
                viz_masked_cell(v, c);
            else
                viz_fill(v, c, viz_colour(s->colour_map, s->weights[(h * L + i) * L + j]));
        }
    SDL_Rect newest = viz_cell(&map, L, s->step - 1, 0);
    newest.w = map.w;
    viz_outline(v, newest, viz_emphasis, map.w > 200 ? 2 : 1);
    if (s->ablated >> h & 1) {
        SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
        viz_fill(v, map, viz_veil);
        SDL_SetRenderDrawColor(v->renderer, viz_alarm.r, viz_alarm.g, viz_alarm.b, 255);
        SDL_RenderDrawLine(v->renderer, map.x, map.y, map.x + map.w - 1, map.y + map.h - 1);
        SDL_RenderDrawLine(v->renderer, map.x, map.y + map.h - 1, map.x + map.w - 1, map.y);
    }
}
/* <<[[view.c]] functions>> */
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
        viz_short_label(s->tokens[i], label, sizeof label);
        const SDL_Rect c = viz_cell(&map, L, i, i);
        const SDL_Color colour = i < s->step ? viz_ink : viz_dim;
        viz_text(v, font, label, map.x - 6, c.y + c.h / 2, 1, colour, 0);
        viz_text(v, font, label, c.x + c.w / 2, map.y - 6, 0, colour, 1);
    }
    if (s->hover_head == (int)s->focus && s->hover_row >= 0)
        viz_outline(v, viz_cell(&map, L, (size_t)s->hover_row, (size_t)s->hover_col),
                    viz_emphasis, 2);
    if (s->selected >= 0 && (size_t)s->selected < s->step) {     /* the clicked row */
        SDL_Rect row = viz_cell(&map, L, (size_t)s->selected, 0);
        row.w = map.w;
        viz_outline(v, row, viz_selected, 2);
    }
}
/* <<[[view.c]] functions>> */
static void draw_caption(viz_view *v, const viz_state *s, const viz_layout *l)
{
    const SDL_Rect c = l->caption;
    char line[160];
    viz_head_rule(s, s->focus, line, sizeof line);
    viz_text_fit(v, v->font, line, c.x, c.y + 10, c.w, viz_emphasis);
    viz_text_fit(v, v->small, viz_columns_caption(s), c.x, c.y + 32, c.w / 2, viz_ink);
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
/* <<[[view.c]] functions>> */
void viz_draw_legend(viz_view *v, const viz_state *s, SDL_Rect r)
{
    viz_draw_legend_titled(v, s, r, "weight 1");
}
void viz_draw_legend_titled(viz_view *v, const viz_state *s, SDL_Rect r, const char *top)
{
    for (int y = 0; y < r.h; y++) {
        const SDL_Color c = viz_colour(s->colour_map, 1.0 - (double)y / (r.h - 1));
        viz_fill(v, (SDL_Rect){r.x, r.y + y, r.w, 1}, c);
    }
    viz_text(v, v->small, top, r.x, r.y - 10, 0, viz_ink, 0);
    viz_text(v, v->small, "0", r.x + r.w + 4, r.y + r.h - 6, 0, viz_ink, 0);
    viz_text(v, v->small, "0.5", r.x + r.w + 4, r.y + r.h / 2, 0, viz_ink, 0);
    viz_text(v, v->small, viz_colour_map_names[s->colour_map], r.x, r.y + r.h + 12, 0,
             viz_dim, 0);
}
/* <<[[view.c]] functions>> */
static void draw_top_line(viz_view *v, const viz_state *s, const viz_layout *l)
{
    char line[256];
    snprintf(line, sizeof line, "token %zu of %zu   %s at %.2g tokens/s   "
             "head %zu enlarged: %s", s->step, s->length, s->playing ? "playing" : "paused",
             s->speed, s->focus + 1, mha_designed_head_names[s->focus]);
    viz_text(v, v->font, line, 14, 20, 0, viz_ink, 0);
    viz_text(v, v->font, "press ? for help", l->width - 14, 20, 1, viz_dim, 0);
}
/* <<[[view.c]] functions>> */
static void describe_hover(const viz_state *s, char *line, size_t size)
{
    const int h = s->hover_head, i = s->hover_row, j = s->hover_col;
    if (h < 0 || i < 0 || j < 0 || (size_t)i >= s->length || (size_t)j >= s->length) {
        snprintf(line, size, "point at a cell to see its query, key, score and weight");
    } else if ((size_t)i >= s->step) {
        snprintf(line, size, "head %d: query '%s' has not arrived yet", h + 1, s->tokens[i]);
    } else if ((size_t)j >= s->step) {
        snprintf(line, size, "head %d: key '%s' (%d) %s: no score", h + 1, s->tokens[j], j,
                 s->decoding ? "is not in the KV cache yet" : "has not arrived yet");
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
/* <<[[view.c]] functions>> */
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
    if (l->slider.w == 0)
        return;                                     /* zoomed in: the first line alone */
    viz_engineering_line(s, line, sizeof line);
    viz_text_fit(v, v->font, line, 14, y + 32, l->width - 28, s->engineering ? viz_ink : viz_dim);
    /* <<describe the switches and the ablation in [[line]]>> */
    int n = snprintf(line, sizeof line, "causal mask %s    padding demo %s",
                     s->causal ? "on" : "off", s->padding ? "on" : "off");
    if (s->ablated != 0) {
        n += snprintf(line + n, sizeof line - (size_t)n, "    heads off:");
        for (int h = 0; h < VIZ_HEADS; h++)
            if (s->ablated >> h & 1)
                n += snprintf(line + n, sizeof line - (size_t)n, " %d", h + 1);
        snprintf(line + n, sizeof line - (size_t)n, ", the output moves by %.1f%% of its norm",
                 100 * s->output_change);
    }
    viz_text_fit(v, v->font, line, 14, y + 56, l->width - 28, viz_ink);
    /* <<draw the temperature slider>> */
    const SDL_Rect r = l->slider;
    viz_fill(v, r, viz_undecoded);
    const int knob = r.x + (int)lround(r.w * viz_slider_place(s->temperature));
    viz_fill(v, (SDL_Rect){r.x + r.w / 2, r.y - 2, 1, r.h + 4}, viz_dim);     /* T = 1 */
    viz_fill(v, (SDL_Rect){knob - 3, r.y - 4, 7, r.h + 8}, viz_emphasis);
    viz_temperature_label(s, line, sizeof line);
    viz_text(v, v->font, line, 14, r.y + r.h / 2, 0, viz_ink, 0);
    viz_temperature_note(s, line, sizeof line);
    viz_text_fit(v, v->small, line, r.x + r.w + 12, r.y + r.h / 2, l->width - r.x - r.w - 24,
                 viz_dim);
}
/* <<[[view.c]] functions>> */
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
    const SDL_Rect b = l->breakdown, tip = {x, y, w, th + 8};
    if (SDL_HasIntersection(&tip, &b) && b.x - 10 - w >= 10)
        x = b.x - 10 - w;
    viz_fill(v, (SDL_Rect){x, y, w, th + 8}, viz_box);
    viz_outline(v, (SDL_Rect){x, y, w, th + 8}, viz_dim, 1);
    viz_text_fit(v, v->small, line, x + 8, y + 4 + th / 2, w - 16, viz_emphasis);
}
/* <<[[view.c]] functions>> */
void viz_draw_sentence(viz_view *v, const viz_state *s, const void *data, int width, int height)
{
    (void)data;
    viz_layout l;
    viz_layout_compute(s, width, height, &l);
    draw_top_line(v, s, &l);
    for (size_t h = 0; h < VIZ_HEADS && l.grid[h].w > 0; h++) {
        const SDL_Rect r = l.grid[h], t = l.titles[h];
        char title[64];
        snprintf(title, sizeof title, "%zu  %s", h + 1, mha_designed_head_names[h]);
        viz_text_fit(v, v->small, title, t.x, t.y + t.h / 2, t.w,
                     h == s->focus ? viz_emphasis : viz_dim);
        draw_map(v, s, h, r);
        if (h == s->focus)
            viz_outline(v, (SDL_Rect){r.x - 2, r.y - 2, r.w + 4, r.h + 4}, viz_emphasis, 1);
    }
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    draw_map(v, s, s->focus, l.big);
    draw_labels(v, s, l.big);
    draw_caption(v, s, &l);
    viz_draw_legend(v, s, l.legend);
    if (l.words.w > 0) {
        viz_draw_words(v, s, &l);
        viz_draw_breakdown(v, s, &l);
    }
    draw_status(v, s, &l);
    draw_tooltip(v, s, &l);
}
