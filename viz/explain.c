/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "state.h"

/* <<[[explain.c]] functions>> */
void viz_head_rule(const viz_state *s, size_t h, char *line, size_t size)
{
    static const char *const rules[VIZ_HEADS][2] = {     /* causal mask on, off */
        {"each query attends to the token just before it", NULL},
        {"each query attends to the latest earlier copy of its own word, or to itself",
         "each query attends to the last copy of its own word, later ones included"},
        {"each query attends to the first token", NULL},
        {"each query averages itself and the two tokens before it", NULL},
        {"each query averages every key it may see",
         "each query averages every key of the sentence so far"},
    };
    const char *rule = !s->causal && rules[h][1] != NULL ? rules[h][1] : rules[h][0];
    snprintf(line, size, "head %zu, %s: %s", h + 1, mha_designed_head_names[h], rule);
}

const char *viz_columns_caption(const viz_state *s)
{
    return s->decoding ? "columns: keys in the KV cache"
                       : "columns: keys, the whole prefix at once";
}
/* <<[[explain.c]] functions>> */
void viz_engineering_line(const viz_state *s, char *line, size_t size)
{
    if (!s->engineering)
        snprintf(line, size, "%s %s   (e: its time per step and its check)",
                 s->decoding ? "KV-cache decoding," : "whole prefix,", mha_impls[s->impl].name);
    else
        snprintf(line, size, "%s %s, 1 thread: %.3f ms %s (least of %d); differs from "
                 "naive forward by %.2g", s->decoding ? "KV-cache decoding," : "whole prefix,",
                 mha_impls[s->impl].name, s->ms_per_step,
                 s->decoding ? "for the last token" : "for the prefix", VIZ_TIMING_RUNS,
                 s->impl_difference);
}
/* <<[[explain.c]] functions>> */
double viz_slider_temperature(double along)          /* along: 0 at the left end, 1 right */
{
    along = along < 0 ? 0 : along > 1 ? 1 : along;
    return along < 0.5 ? pow(VIZ_TEMPERATURE_MIN, 1 - 2 * along)
                       : pow(VIZ_TEMPERATURE_MAX, 2 * along - 1);
}

double viz_slider_place(double temperature)
{
    const double t = log(temperature);
    const double along = t < 0 ? 0.5 * (1 - t / log(VIZ_TEMPERATURE_MIN))
                               : 0.5 * (1 + t / log(VIZ_TEMPERATURE_MAX));
    return along < 0 ? 0 : along > 1 ? 1 : along;
}
/* <<[[explain.c]] functions>> */
size_t viz_query_row(const viz_state *s)
{
    if (s->hover_head == (int)s->focus && s->hover_row >= 0 && (size_t)s->hover_row < s->step)
        return (size_t)s->hover_row;
    if (s->selected >= 0 && (size_t)s->selected < s->step)
        return (size_t)s->selected;
    return s->step - 1;
}

size_t viz_visible_scores(const viz_state *s, size_t h, size_t i, double *scores)
{
    size_t n = 0;
    for (size_t j = 0; j < s->step; j++)
        if (!viz_blocked(s, i, j))
            scores[n++] = viz_score(s, h, i, j) * s->temperature;
    return n;
}
/* <<[[explain.c]] functions>> */
static double top_weight(const double *a, size_t n, double T)
{
    double top = a[0], sum = 0;
    for (size_t j = 1; j < n; j++)
        top = fmax(top, a[j]);
    for (size_t j = 0; j < n; j++)
        sum += exp((a[j] - top) / T);
    return 1 / sum;
}

static double spread(const double *a, size_t n)
{
    double low = a[0], high = a[0];
    for (size_t j = 1; j < n; j++)
        low = fmin(low, a[j]), high = fmax(high, a[j]);
    return high - low;
}

double viz_even_temperature(const viz_state *s, size_t h, size_t i)
{
    double a[VIZ_TOKENS_MAX];
    const size_t n = viz_visible_scores(s, h, i, a);
    if (n < 2 || spread(a, n) < 1e-9)
        return 0;
    const double target = (top_weight(a, n, 1) + 1.0 / (double)n) / 2;
    double low = log(1e-3), high = log(1e6);
    for (int k = 0; k < 100; k++) {
        const double middle = (low + high) / 2;
        if (top_weight(a, n, exp(middle)) > target) low = middle; else high = middle;
    }
    return exp((low + high) / 2);
}
/* <<[[explain.c]] functions>> */
void viz_temperature_label(const viz_state *s, char *line, size_t size)
{
    snprintf(line, size, "attention temperature %.3g", s->temperature);
}

void viz_temperature_note(const viz_state *s, char *line, size_t size)
{
    const size_t h = s->focus, i = viz_query_row(s);
    double a[VIZ_TOKENS_MAX];
    const size_t n = viz_visible_scores(s, h, i, a);
    const double even = viz_even_temperature(s, h, i);
    if (n < 2)
        snprintf(line, size, "head %zu, query '%s': one key to see, weight 1 at any "
                 "temperature", h + 1, s->tokens[i]);
    else if (even == 0)
        snprintf(line, size, "head %zu, query '%s': its %zu keys score the same, so no "
                 "temperature can change its weights", h + 1, s->tokens[i], n);
    else
        snprintf(line, size, "head %zu, query '%s': scores %.0f apart; half-way to even "
                 "at T = %.3g", h + 1, s->tokens[i], spread(a, n), even);
}
/* <<[[explain.c]] functions>> */
void viz_bars_title(const char *name, const double *x, size_t n, char *line, size_t size)
{
    double most = 0;
    for (size_t d = 0; d < n; d++)
        most = fmax(most, fabs(x[d]));
    if (most > 0)
        snprintf(line, size, "%s  (largest %.3g)", name, most);
    else
        snprintf(line, size, "%s: every part is 0, so every score is 0 and the weights are "
                 "equal", name);
}
/* <<[[explain.c]] functions>> */
void viz_score_parts(const viz_state *s, size_t h, size_t i, size_t j, double *q, double *k)
{
    const size_t E = VIZ_EMBED, D = MHA_DESIGNED_HEAD_DIM;
    for (size_t d = 0; d < D; d++) {                 /* q, k: (D) */
        const float *wq = s->in_proj_weight + (h * D + d) * E;
        const float *wk = s->in_proj_weight + (E + h * D + d) * E;
        q[d] = k[d] = 0;
        for (size_t e = 0; e < E; e++) {
            q[d] += (double)wq[e] * s->x[i * E + e];
            k[d] += (double)wk[e] * s->x[j * E + e];
        }
    }
}

int viz_explained_cell(const viz_state *s, size_t *i, size_t *j)
{
    const size_t L = s->length, h = s->focus;
    if (s->hover_head == (int)h && s->hover_row >= 0 && s->hover_col >= 0 &&
        (size_t)s->hover_row < s->step && (size_t)s->hover_col < s->step &&
        !viz_blocked(s, (size_t)s->hover_row, (size_t)s->hover_col)) {
        *i = (size_t)s->hover_row, *j = (size_t)s->hover_col;
        return 1;
    }
    *i = viz_query_row(s);
    int found = 0;
    for (size_t k = 0; k < s->step; k++)
        if (!viz_blocked(s, *i, k) &&
            (!found || s->weights[(h * L + *i) * L + k] > s->weights[(h * L + *i) * L + *j]))
            *j = k, found = 1;
    return found;
}
