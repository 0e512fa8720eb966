/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layer_files.h"
#include "output.h"
#include "austen.h"
#include "viz.h"

/* <<[[program.c]] functions>> */
static void tell_waiting(const char *dir, double seconds, void *context)
{
    (void)context;
    viz_error("waiting up to %g s for another run writing in %s", seconds, dir);
}
/* <<[[program.c]] functions>> */
static int record_frames(viz_state *s, const struct viz_options *o)
{
    static const char *const own[] = {"frame-#.png", NULL};
    char message[MHA_PATH_SIZE + 256] = "";
    char (*names)[32] = malloc(o->frames * sizeof *names);
    const char **list = malloc(o->frames * sizeof *list);
    mha_status status = names != NULL && list != NULL ? MHA_OK : MHA_ERR_NOMEM;
    if (status != MHA_OK)
        snprintf(message, sizeof message, "%s: out of memory for %zu frames", o->record,
                 o->frames);
    for (size_t f = 0; status == MHA_OK && f < o->frames; f++) {
        snprintf(names[f], sizeof names[f], "frame-%04zu.png", f + 1);
        list[f] = names[f];
    }
    if (status == MHA_OK)
        status = mha_output_begin(o->record, (int)o->frames, list, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_own(own, message, sizeof message);
    for (size_t f = 0; status == MHA_OK && f < o->frames; f++) {
        /* <<in training, wait for the steps of frame [[f]]>> */
        if (o->steps_per_frame != 0) {
            const viz_start frame = {0, o->steps_per_frame * (f + 1), 1};
            if (viz_mode_start(s, &frame) != MHA_OK) {
                snprintf(message, sizeof message, "--steps-per-frame: frame %zu: %s", f + 1, s->message);
                status = MHA_ERR_ARG;
            }
        }
        if (status == MHA_OK)
            status = viz_next_png(s, o->width, o->height, message, sizeof message);
        s->playing = 1;
        viz_tick(s, 1.0 / s->speed);
    }
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    free(names);
    free(list);
    if (status != MHA_OK)
        viz_error("%s", message);
    return status == MHA_OK ? VIZ_EXIT_OK : VIZ_EXIT_FAILURE;
}
/* <<[[program.c]] functions>> */
SDL_Event *viz_event_in_layout(SDL_Event *e, float scale)
{
    if (e->type == SDL_MOUSEMOTION) {
        e->motion.x = (int)(e->motion.x / scale);
        e->motion.y = (int)(e->motion.y / scale);
    } else if (e->type == SDL_MOUSEBUTTONDOWN || e->type == SDL_MOUSEBUTTONUP) {
        e->button.x = (int)(e->button.x / scale);
        e->button.y = (int)(e->button.y / scale);
    }
    return e;
}
/* <<[[program.c]] functions>> */
void viz_window_frame(viz_state *s, viz_window *win)
{
    viz_view *view = &win->view;
    int w, h;
    SDL_GetRendererOutputSize(win->renderer, &w, &h);
    int changed = win->drawn_width == 0;             /* the first frame draws */
    if (changed)
        win->drawn_width = w, win->drawn_height = h;
    s->window_width = w, s->window_height = h;        /* for + to know the room */
    viz_layout shown;
    viz_layout_compute(s, (int)(win->drawn_width / view->scale),
                       (int)(win->drawn_height / view->scale), &shown);
    SDL_Event event;
    if (SDL_WaitEventTimeout(&event, viz_busy(s) ? 15 : 250)) {
        changed = 1;
        do
            viz_handle_event(s, viz_event_in_layout(&event, view->scale), &shown);
        while (SDL_PollEvent(&event));
    }
    /* <<fill the screen, or not, as the state now asks>> */
    SDL_Window *window = SDL_RenderGetWindow(win->renderer);
    if (window != NULL && s->fullscreen != win->fullscreen) {
        SDL_SetWindowFullscreen(window, s->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
        win->fullscreen = s->fullscreen;
        changed = 1;
    }
    const Uint64 now = SDL_GetTicks64();
    changed |= viz_tick(s, (now - win->last) / 1000.0);
    win->last = now;
    /* <<draw at the size the window has now, if anything changed>> */
    SDL_GetRendererOutputSize(win->renderer, &w, &h);      /* after the events: a resize */
    changed |= w != win->drawn_width || h != win->drawn_height;
    if (changed) {
        viz_view_scale(view, viz_scale(w, h, viz_mode_zoom(s)));   /* + or - may have been pressed */
        viz_layout layout;
        viz_layout_compute(s, (int)(w / view->scale), (int)(h / view->scale), &layout);
        viz_draw(view, s, &layout);
        SDL_RenderPresent(win->renderer);
        win->drawn_width = w, win->drawn_height = h;
    }
    if (s->save_requested)
        viz_save_window(s, win->renderer, w, h);
}
/* <<[[program.c]] functions>> */
void viz_window_fit(int *width, int *height, int room_width, int room_height)
{
    if (room_width > 0 && *width > room_width)
        *width = room_width > VIZ_MIN_WIDTH ? room_width : VIZ_MIN_WIDTH;
    if (room_height > 0 && *height > room_height)
        *height = room_height > VIZ_MIN_HEIGHT ? room_height : VIZ_MIN_HEIGHT;
}

static int window_loop(viz_state *s, const struct viz_options *o)
{
    int width = o->width, height = o->height;
    SDL_Rect room;
    if (!o->size_given && SDL_GetDisplayUsableBounds(0, &room) == 0)
        viz_window_fit(&width, &height, room.w, room.h);
    SDL_Window *window = SDL_CreateWindow("mha-viz: attention heads", SDL_WINDOWPOS_CENTERED,
                                          SDL_WINDOWPOS_CENTERED, width, height,
                                          SDL_WINDOW_RESIZABLE);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, 0) : NULL;
    if (window != NULL)
        SDL_SetWindowMinimumSize(window, VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT);
    if (renderer == NULL) {
        viz_error("cannot open a window: %s", SDL_GetError());
        if (window) SDL_DestroyWindow(window);
        return VIZ_EXIT_NO_DISPLAY;
    }
    viz_window win = {.renderer = renderer};
    int status = viz_view_open(&win.view, renderer) == 0 ? VIZ_EXIT_OK : VIZ_EXIT_FAILURE;
    if (status == VIZ_EXIT_OK) {
        /* <<report the window, then loop until the state says quit>> */
        SDL_RendererInfo info;
        SDL_GetRendererInfo(renderer, &info);
        printf("mha-viz: window %dx%d, renderer %s, driver %s\n", width, height, info.name,
               SDL_GetCurrentVideoDriver());
        fflush(stdout);
        win.last = SDL_GetTicks64();
        SDL_StartTextInput();
        for (size_t frame = 1; !s->quit; frame++) {
            viz_window_frame(s, &win);
            if (o->quit_after != 0 && frame >= o->quit_after)
                s->quit = 1;
        }
        viz_view_close(&win.view);
    } else
        viz_error("%s: %s", VIZ_FONT, TTF_GetError());
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    return status;
}
/* <<[[program.c]] functions>> */
static int real_display(void)
{
    const char *driver = SDL_GetCurrentVideoDriver();
    return getenv("SDL_VIDEODRIVER") != NULL ||
           (driver != NULL && strcmp(driver, "offscreen") != 0 && strcmp(driver, "dummy") != 0);
}
/* <<[[program.c]] functions>> */
static mha_status take_text(viz_state *s, const char *text)
{
    char why[VIZ_WHY_SIZE];
    viz_austen *a = s->mode == &viz_austen_mode ? viz_mode_data(s, &viz_austen_mode) : NULL;
    mha_status status = a != NULL ? viz_austen_take_text(a, text, why, sizeof why)
                                  : viz_set_text(s, text);
    if (status != MHA_OK && a == NULL)
        viz_text_rule(why, sizeof why, text, 0);
    if (status != MHA_OK) {
        char line[VIZ_WHY_SIZE + 16];
        snprintf(line, sizeof line, "--text: %s", why);
        viz_fit_message(s->message, sizeof s->message, line);
        status = MHA_ERR_ARG;
    }
    return status;
}
/* <<[[program.c]] functions>> */
int viz_main(int argc, char **argv)
{
    struct viz_options o;
    const int parsed = viz_parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? VIZ_EXIT_OK : VIZ_EXIT_USAGE;
    if (o.model != NULL && strlen(o.model) >= sizeof viz_austen_dir) {
        viz_error("--model: a path of %zu bytes; the viewer takes at most %zu", strlen(o.model),
                  sizeof viz_austen_dir - 1);                 /* never a folder at the cut */
        return VIZ_EXIT_USAGE;
    }
    char place[MHA_PATH_SIZE + 256];
    mha_output_wait(MHA_OUTPUT_WAIT, tell_waiting, NULL);
    if ((o.screenshot != NULL && strcmp(o.screenshot, "-") != 0 &&
         mha_output_check(o.screenshot, place, sizeof place) != MHA_OK) ||
        (o.record != NULL && mha_output_check_dir(o.record, place, sizeof place) != MHA_OK)) {
        fprintf(stderr, "mha-viz: %s\n", place);          /* before any training */
        return VIZ_EXIT_FAILURE;
    }
    viz_state s;
    const int austen_first = o.mode == NULL;          /* the text waits for the view found */
    if (viz_init(&s, austen_first ? NULL : o.text) != MHA_OK) {
        char rule[128];
        viz_text_rule(rule, sizeof rule, o.text, 0);
        viz_error("--text: %s", rule);
        viz_free(&s);
        return VIZ_EXIT_USAGE;
    }
    int status = VIZ_EXIT_FAILURE;
    if (TTF_Init() != 0)
        viz_error("SDL_ttf: %s", TTF_GetError());
    else {
        /* <<enter and start the mode the options ask for, then run the chosen way>> */
        const viz_start how = {o.step, o.train_steps, o.screenshot != NULL || o.record != NULL};
        if (o.model != NULL)
            snprintf(viz_austen_dir, sizeof viz_austen_dir, "%s", o.model);
        mha_status ready = o.mode != NULL ? viz_switch_mode(&s, viz_mode_find(o.mode))
                                          : viz_start_austen(&s, o.model, o.model != NULL);
        if (ready == MHA_OK && austen_first && o.text != NULL)
            ready = take_text(&s, o.text);
        if (ready == MHA_OK)
            ready = viz_mode_start(&s, &how);
        if (ready != MHA_OK) {
            viz_error("%s", s.message);
            status = ready == MHA_ERR_ARG ? VIZ_EXIT_USAGE : VIZ_EXIT_FAILURE;
        } else {
            /* <<press the keys and point where the options say>> */
            s.window_width = o.width, s.window_height = o.height;
            if (o.press != NULL)
                viz_press_keys(&s, o.press);
            if (o.hover_row >= 0)
                viz_point_at(&s, o.hover_row, o.hover_col);
            if (o.screenshot != NULL || o.record != NULL) {
                s.playing = 0;
                viz_settle(&s);
            }
            s.intro = o.intro || (o.screenshot == NULL && o.record == NULL && o.press == NULL &&
                                  o.hover_row < 0);         /* a new window explains itself */
            /* <<draw the picture or the frames, or open the window>> */
            if (o.screenshot != NULL) {
                status = viz_save_png(&s, o.width, o.height, o.screenshot) == 0 ? VIZ_EXIT_OK
                                                                               : VIZ_EXIT_FAILURE;
                if (status != VIZ_EXIT_OK)
                    viz_error("%s", SDL_GetError());
            } else if (o.record != NULL) {
                status = record_frames(&s, &o);
            } else if (SDL_Init(SDL_INIT_VIDEO) != 0) {
                viz_error("no display: %s", SDL_GetError());
                status = VIZ_EXIT_NO_DISPLAY;
            } else if (!real_display()) {
                viz_error("no display: SDL found only its '%s' video driver",
                          SDL_GetCurrentVideoDriver());
                SDL_Quit();
                status = VIZ_EXIT_NO_DISPLAY;
            } else {
                status = window_loop(&s, &o);
                SDL_Quit();
            }
        }
        TTF_Quit();
    }
    viz_free(&s);
    return status;
}
