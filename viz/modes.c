/* generated from chapters/12-viewer.nw, chapters/14-training-viewer.nw, chapters/18-austen-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
/* <<headers of the viewer's modes>> */
#include "viz.h"
/* <<headers of the viewer's modes>> */
#include "training.h"
/* <<headers of the viewer's modes>> */
#include "austen.h"

static int sentence_map_side(const viz_state *s, const void *data, int width, int height,
                             double zoom);
const viz_mode viz_sentence_mode = {
    .name = "sentence", .key = 'd', .help = "the designed heads on a sentence",
    .start = viz_sentence_start, .act = viz_sentence_act, .tick = viz_sentence_tick,
    .busy = viz_sentence_busy, .map_side = sentence_map_side, .draw = viz_draw_sentence,
};

const viz_mode *const viz_modes[] = {
    /* <<the viewer's modes>> */
    &viz_sentence_mode,
    /* <<the viewer's modes>> */
    &viz_trained_mode, &viz_training_mode,
    /* <<the viewer's modes>> */
    &viz_austen_mode,
};
const size_t viz_mode_count = sizeof viz_modes / sizeof viz_modes[0];
_Static_assert(sizeof viz_modes / sizeof viz_modes[0] <= VIZ_MODES_MAX, "too many modes");

/* <<[[modes.c]] functions>> */
const viz_mode *viz_mode_find(const char *name)
{
    for (size_t m = 0; name != NULL && m < viz_mode_count; m++)
        if (strcmp(viz_modes[m]->name, name) == 0)
            return viz_modes[m];
    return NULL;
}

static size_t mode_place(const viz_mode *mode)
{
    size_t m = 0;
    while (m + 1 < viz_mode_count && viz_modes[m] != mode)
        m++;
    return m;
}

void *viz_mode_data(const viz_state *s, const viz_mode *mode)
{
    return s->mode_data[mode_place(mode)];
}
/* <<[[modes.c]] functions>> */
mha_status viz_switch_mode(viz_state *s, const viz_mode *mode)
{
    if (mode == NULL)
        return MHA_ERR_ARG;
    void **data = &s->mode_data[mode_place(mode)];
    const mha_status status = mode->enter ? mode->enter(s, data) : MHA_OK;
    if (status == MHA_OK && s->mode != mode && s->mode->leave != NULL)
        s->mode->leave(s, viz_mode_data(s, s->mode));
    if (status == MHA_OK && s->mode != mode)
        s->hover_head = s->hover_row = s->hover_col = s->selected = -1;   /* the old layout's */
    if (status == MHA_OK)
        s->mode = mode;
    return status;
}

int viz_busy(const viz_state *s)
{
    return !s->intro && s->mode->busy != NULL && s->mode->busy(s, viz_mode_data(s, s->mode));
}

mha_status viz_mode_start(viz_state *s, const viz_start *how)
{
    return s->mode->start ? s->mode->start(s, viz_mode_data(s, s->mode), how) : MHA_OK;
}

void viz_modes_free(viz_state *s)
{
    for (size_t m = 0; m < viz_mode_count; m++)
        if (s->mode_data[m] != NULL && viz_modes[m]->free != NULL)
            viz_modes[m]->free(s->mode_data[m]);
}
/* <<[[modes.c]] functions>> */
mha_status viz_init(viz_state *s, const char *text)
{
    const mha_status status = viz_state_init(s, text);
    s->mode = viz_modes[0];
    return status;
}

void viz_free(viz_state *s)
{
    viz_modes_free(s);
    viz_state_free(s);
}
/* <<[[modes.c]] functions>> */
static int sentence_map_side(const viz_state *s, const void *data, int width, int height,
                             double zoom)
{
    viz_state zoomed = *s;                   /* a shallow copy, read only by the layout */
    viz_layout l;
    (void)data;
    zoomed.zoom = zoom;
    viz_layout_compute(&zoomed, width, height, &l);
    return l.big.w;
}

double viz_mode_zoom(const viz_state *s)
{
    return s->mode->map_side != NULL ? s->zoom : 1.0;
}

int viz_mode_map_pixels(const viz_state *s, int width, int height, double zoom)
{
    if (s->mode->map_side == NULL)
        return 0;
    const float scale = viz_scale(width, height, zoom);
    return (int)lroundf(s->mode->map_side(s, viz_mode_data(s, s->mode), (int)(width / scale),
                                          (int)(height / scale), zoom) * scale);
}

static void zoom_in(viz_state *s)
{
    const double zoom = fmin(s->zoom * 1.25, 4.0);
    const int w = s->window_width, h = s->window_height;
    if (w > 0 && h > 0 &&
        viz_mode_map_pixels(s, w, h, zoom) <= viz_mode_map_pixels(s, w, h, s->zoom) &&
        (s->mode->map_side == NULL || viz_scale(w, h, zoom) <= viz_scale(w, h, s->zoom)))
        snprintf(s->message, sizeof s->message,
                 "+: the map and its text are as large as this window allows");
    else
        s->zoom = zoom;
}

void viz_act(viz_state *s, const viz_action *a)
{
    if (a->key)
        s->message[0] = s->news[0] = '\0';      /* news lasts until the next key */
    if (s->intro && (a->key || a->kind == VIZ_DISMISS)) {    /* it only closes the intro */
        s->intro = 0;
        return;
    }
    if (s->asking_to_quit && a->key) {          /* the key answers the question */
        s->asking_to_quit = 0;
        s->quit = a->kind == VIZ_ESCAPE || a->kind == VIZ_QUIT;
        return;
    }
    switch (a->kind) {
    case VIZ_SWITCH_MODE: viz_switch_mode(s, a->mode); break;
    case VIZ_NEXT_COLOUR_MAP: s->colour_map = (s->colour_map + 1) % VIZ_COLOUR_MAPS; break;
    case VIZ_SAVE: s->save_requested = 1; break;
    case VIZ_HELP: s->help++; break;                          /* the next page */
    case VIZ_ESCAPE:
        if (s->help) s->help = 0;
        else if (s->selected >= 0) s->selected = -1;
        else s->asking_to_quit = 1;
        break;
    case VIZ_QUIT: s->quit = 1; break;
    case VIZ_ZOOM_IN: zoom_in(s); break;
    case VIZ_ZOOM_OUT: s->zoom = fmax(s->zoom / 1.25, 0.25); break;
    case VIZ_FULLSCREEN: s->fullscreen = !s->fullscreen; break;
    case VIZ_ENGINEERING: s->engineering = !s->engineering; break;
    case VIZ_UNAVAILABLE:
        snprintf(s->message, sizeof s->message, "%s: not available in this mode", a->text);
        break;
    case VIZ_DISMISS: break;
    default:
        if (s->mode->act != NULL)
            s->mode->act(s, viz_mode_data(s, s->mode), a);
    }
}

int viz_tick(viz_state *s, double seconds)
{
    return !s->intro && s->mode->tick != NULL &&
           s->mode->tick(s, viz_mode_data(s, s->mode), seconds);
}
/* <<[[modes.c]] functions>> */
viz_training *viz_training_of(const viz_state *s)
{
    return viz_mode_data(s, &viz_training_mode);
}
