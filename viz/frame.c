/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include "viz.h"

static void draw_help(viz_view *v, const viz_state *s, const viz_layout *l);
static void draw_intro(viz_view *v, const viz_layout *l);
/* <<[[frame.c]] functions>> */
void viz_draw(viz_view *v, const viz_state *s, const viz_layout *l)
{
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_NONE);
    viz_fill(v, (SDL_Rect){0, 0, l->width, l->height}, viz_background);
    s->mode->draw(v, s, viz_mode_data(s, s->mode), l->width, l->height);
    SDL_SetRenderDrawBlendMode(v->renderer, SDL_BLENDMODE_BLEND);
    if (s->help)
        draw_help(v, s, l);
    if (s->asking_to_quit) {
        viz_fill(v, (SDL_Rect){40, l->height / 2 - 30, l->width - 80, 60}, viz_box);
        viz_outline(v, (SDL_Rect){40, l->height / 2 - 30, l->width - 80, 60}, viz_emphasis, 1);
        viz_text_fit(v, v->font, "Quit?  Esc again or Q to quit, any other key to stay", 60,
                     l->height / 2, l->width - 120, viz_emphasis);
    }
    if (s->typing) {
        char line[VIZ_TEXT_MAX + 64];
        snprintf(line, sizeof line, "new sentence: %s_", s->typed);
        viz_fill(v, (SDL_Rect){40, l->height / 2 - 30, l->width - 80, 84}, viz_box);
        viz_text_tail(v, v->font, line, 60, l->height / 2, l->width - 120, viz_emphasis);
        viz_text_fit(v, v->small, s->message[0] ? s->message : "enter runs it, escape cancels",
                     60, l->height / 2 + 32, l->width - 120, s->message[0] ? viz_alarm : viz_dim);
    }
    if (s->intro)
        draw_intro(v, l);
}
/* <<[[frame.c]] functions>> */
static const char *const meaning[][2] = {
    {"rows",      "queries: each row is one token, looking at the others"},
    {"columns",   "keys: the tokens a query may look at"},
    {"colour",    "the weight the query gives the key, from 0 (dark) to 1 (bright); "
                  "every row adds up to 1"},
    {"hatched",   "a key the mask hides from the query: weight 0 by rule"},
    {"grey",      "a token not decoded yet"},
};

static size_t wrap(viz_view *v, const char *key, const char *text, int width,
                   viz_help_line *out, size_t room)
{
    size_t n = 0;
    while (*text != '\0' && n < room) {
        size_t fit = 0;
        const size_t length = strlen(text);
        for (size_t next = 0; next < length; fit = next) {
            while (next < length && text[next] == ' ') next++;
            while (next < length && text[next] != ' ') next++;
            char part[160];
            int w = 0;
            snprintf(part, sizeof part, "%.*s", (int)next, text);
            viz_text_size(v, v->font, part, &w, NULL);
            if (fit > 0 && w > width)
                break;                                 /* the words so far fill the line */
        }
        out[n].key = n == 0 ? key : "";
        snprintf(out[n++].text, sizeof out[0].text, "%.*s", (int)fit, text);
        for (text += fit; *text == ' '; text++)
            ;
    }
    return n;
}
/* <<[[frame.c]] functions>> */
size_t viz_help_lines(viz_view *v, const viz_state *s, int width, viz_help_line *lines)
{
    const int column = width - VIZ_HELP_KEYS - 40;
    size_t n = 0;
    for (size_t k = 0; k < sizeof meaning / sizeof meaning[0]; k++)
        n += wrap(v, meaning[k][0], meaning[k][1], column, lines + n, VIZ_HELP_LINES - n);
    for (size_t k = 0; k < viz_help_count; k++)
        if (strchr(viz_help[k][1], s->mode->key) != NULL)
            n += wrap(v, viz_help[k][0], viz_help[k][2], column, lines + n, VIZ_HELP_LINES - n);
    static char keys[VIZ_MODES_MAX][2];
    for (size_t m = 0; m < viz_mode_count; m++) {
        keys[m][0] = viz_modes[m]->key;
        keys[m][1] = '\0';
        n += wrap(v, keys[m], viz_modes[m]->help, column, lines + n, VIZ_HELP_LINES - n);
    }
    return n;
}

viz_help_page viz_help_place(const viz_state *s, const viz_layout *l, size_t lines)
{
    const int w = l->width - 40 < 760 ? l->width - 40 : 760, top = 30;
    const int room = (l->height - 2 * top - 2 * VIZ_HELP_LINE) / VIZ_HELP_LINE;
    const size_t per_page = room > 1 ? (size_t)room : 1, most = lines > 0 ? lines : 1;
    viz_help_page p = {.pages = (most + per_page - 1) / per_page};
    p.page = (size_t)(s->help > 0 ? s->help - 1 : 0) % p.pages;
    p.first = p.page * per_page;
    p.count = lines - p.first < per_page ? lines - p.first : per_page;
    p.box = (SDL_Rect){(l->width - w) / 2, top, w, (int)(p.count + 2) * VIZ_HELP_LINE};
    p.text_x = p.box.x + 20 + VIZ_HELP_KEYS;
    p.text_width = w - VIZ_HELP_KEYS - 40;
    return p;
}
/* <<[[frame.c]] functions>> */
static void draw_help(viz_view *v, const viz_state *s, const viz_layout *l)
{
    viz_help_line lines[VIZ_HELP_LINES];
    const int w = l->width - 40 < 760 ? l->width - 40 : 760;
    const size_t n = viz_help_lines(v, s, w, lines);
    const viz_help_page p = viz_help_place(s, l, n);
    viz_fill(v, p.box, viz_box);
    viz_outline(v, p.box, viz_dim, 1);
    for (size_t k = 0; k < p.count; k++) {
        const int y = p.box.y + VIZ_HELP_LINE / 2 + 6 + VIZ_HELP_LINE * (int)k;
        viz_text_fit(v, v->font, lines[p.first + k].key, p.box.x + 20, y, VIZ_HELP_KEYS - 8,
                     viz_emphasis);
        viz_text_fit(v, v->font, lines[p.first + k].text, p.text_x, y, p.text_width, viz_ink);
    }
    char footer[96];
    snprintf(footer, sizeof footer, "page %zu of %zu:  ? next page,  escape closes",
             p.page + 1, p.pages);
    viz_text_fit(v, v->small, footer, p.box.x + 20,
                 p.box.y + p.box.h - VIZ_HELP_LINE / 2 - 2, p.box.w - 40, viz_dim);
}
/* <<[[frame.c]] functions>> */
static void draw_intro(viz_view *v, const viz_layout *l)
{
    static const char *const words[] = {
        "How to read the maps",
        "Each row is a query: one token, looking back at the sentence.",
        "Each column is a key: a token the query may look at.",
        ("The colour of a cell is the weight the query gives that key, from 0 (dark) "
         "to 1 (bright); the weights of a row add up to 1."),
        "Hatched cells are keys the mask hides; grey cells are tokens not decoded yet.",
        "Any key or click to begin; ? lists the keys.",
    };
    viz_help_line lines[VIZ_HELP_LINES];
    const int w = l->width - 80 < 720 ? l->width - 80 : 720;
    size_t n = 0;
    for (size_t k = 0; k < sizeof words / sizeof words[0] && n + 8 < VIZ_HELP_LINES; k++)
        n += wrap(v, "", words[k], w, lines + n, VIZ_HELP_LINES - n);
    const SDL_Rect box = {(l->width - w - 40) / 2, 40, w + 40,
                          (int)(n + 1) * VIZ_HELP_LINE};
    viz_fill(v, box, viz_box);
    viz_outline(v, box, viz_emphasis, 1);
    for (size_t k = 0; k < n; k++)
        viz_text_fit(v, v->font, lines[k].text, box.x + 20,
                     box.y + VIZ_HELP_LINE + VIZ_HELP_LINE * (int)k, w,
                     k == 0 ? viz_emphasis : viz_ink);
}
