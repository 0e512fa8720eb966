/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include "viz.h"

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
            viz_text(v, v->font, lines[k][0], x + 20, 84 + 22 * k, 0, viz_emphasis, 0);
            viz_text_fit(v, v->font, lines[k][1], x + 130, 84 + 22 * k, w - 150, viz_ink);
        }
    }
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
}
