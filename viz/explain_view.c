/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include "viz.h"

/* <<[[explain_view.c]] functions>> */
static SDL_Color ink_on(SDL_Color patch)
{
    const int light = (299 * patch.r + 587 * patch.g + 114 * patch.b) / 1000;
    return light > 140 ? viz_ink_on_light : viz_emphasis;
}

void viz_draw_words(viz_view *v, const viz_state *s, const viz_layout *l)
{
    const size_t L = s->length, h = s->focus, i = viz_query_row(s);
    char line[96];
    snprintf(line, sizeof line, "query '%s' (%zu), head %zu, gives:", s->tokens[i], i, h + 1);
    viz_text_fit(v, v->small, line, l->words.x, l->words.y + 8, l->words.w, viz_emphasis);
    for (size_t k = 0; k < L; k++) {
        const SDL_Rect box = viz_word_box(l, k);
        const SDL_Color patch = k >= s->step ? viz_undecoded
                              : viz_blocked(s, i, k) ? viz_masked
                              : viz_colour(s->colour_map, s->weights[(h * L + i) * L + k]);
        viz_fill(v, box, patch);
        if (k == i)
            viz_outline(v, box, viz_emphasis, 2);
        viz_text_fit(v, v->small, s->tokens[k], box.x + 3, box.y + box.h / 2, box.w - 6,
                     k >= s->step || viz_blocked(s, i, k) ? viz_dim : ink_on(patch));
    }
}
/* <<[[explain_view.c]] functions>> */
static void draw_bars(viz_view *v, const double *x, size_t n, SDL_Rect r, const char *name)
{
    double most = 0;
    for (size_t d = 0; d < n; d++)
        most = fmax(most, fabs(x[d]));
    char label[128];
    viz_bars_title(name, x, n, label, sizeof label);
    viz_text_fit(v, v->small, label, r.x, r.y + 6, r.w, viz_ink);
    const int bw = r.w / (int)n > 1 ? r.w / (int)n : 1, middle = r.y + 14 + (r.h - 14) / 2;
    viz_fill(v, (SDL_Rect){r.x, middle, bw * (int)n, 1}, viz_undecoded);
    for (size_t d = 0; d < n && most > 0; d++) {
        const int bar = (int)lround(fabs(x[d]) / most * ((r.h - 14) / 2));
        if (bar > 0)
            viz_fill(v, (SDL_Rect){r.x + (int)d * bw, x[d] > 0 ? middle - bar : middle + 1,
                                   bw > 2 ? bw - 1 : bw, bar},
                     x[d] > 0 ? viz_positive : viz_negative);
    }
}
/* <<[[explain_view.c]] functions>> */
void viz_draw_breakdown(viz_view *v, const viz_state *s, const viz_layout *l)
{
    enum { D = MHA_DESIGNED_HEAD_DIM };
    const SDL_Rect r = l->breakdown;
    size_t i, j;
    if (r.h < 180 || !viz_explained_cell(s, &i, &j))
        return;
    double q[D], k[D], product[D], sum = 0;
    viz_score_parts(s, s->focus, i, j, q, k);
    for (size_t d = 0; d < D; d++)
        sum += product[d] = q[d] * k[d];
    char line[128];
    snprintf(line, sizeof line, "score of '%s' (%zu) -> '%s' (%zu)", s->tokens[i], i,
             s->tokens[j], j);
    viz_text_fit(v, v->small, line, r.x, r.y + 8, r.w, viz_emphasis);
    const int rows = (r.h - 24 - 4 * 18) / 3, y = r.y + 22;
    draw_bars(v, q, D, (SDL_Rect){r.x, y, r.w, rows - 4}, "query q");
    draw_bars(v, k, D, (SDL_Rect){r.x, y + rows, r.w, rows - 4}, "key k");
    draw_bars(v, product, D, (SDL_Rect){r.x, y + 2 * rows, r.w, rows - 4}, "q * k");
    /* <<write the sum, the scale, the temperature and the weight>> */
    double a[VIZ_TOKENS_MAX];
    const size_t n = viz_visible_scores(s, s->focus, i, a);
    const size_t L = s->length;
    const int t = y + 3 * rows + 6;
    snprintf(line, sizeof line, "sum of q * k = %.2f", sum);
    viz_text_fit(v, v->small, line, r.x, t, r.w, viz_ink);
    snprintf(line, sizeof line, "/ sqrt(%d) = %.2f", D, sum / sqrt((double)D));
    viz_text_fit(v, v->small, line, r.x, t + 18, r.w, viz_ink);
    snprintf(line, sizeof line, "/ attention temperature %.3g = %.2f (score)", s->temperature,
             sum / sqrt((double)D) / s->temperature);
    viz_text_fit(v, v->small, line, r.x, t + 36, r.w, viz_ink);
    snprintf(line, sizeof line, "softmax, %zu keys: weight %.3f", n,
             s->weights[(s->focus * L + i) * L + j]);
    viz_text_fit(v, v->small, line, r.x, t + 54, r.w, viz_emphasis);
}
