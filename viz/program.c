/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <SDL_image.h>
#include "viz.h"

struct options {
    const char *text, *screenshot, *record, *press;
    size_t step, frames, quit_after;
    int width, height;
    int hover_row, hover_col;            /* --hover I,J, positions from 0; -1 if not given */
    int learning_mode;                   /* --train, --trained: VIZ_MODE_*; 0 if neither */
    size_t train_steps;                  /* --train-steps N, or 0 */
};
static int usage(FILE *out)
{
    fputs("usage: mha-viz [--text \"WORDS\"] [--step K] [--press KEYS] [--hover I,J] [--size WxH]\n"
          "               [--screenshot FILE.png | --record DIR --frames N | --quit-after N]\n"
          "\n"
          "Shows the five designed heads of chapter 10 attending over a sentence that is\n"
          "decoded one token at a time.  Press ? in the window for the keys.\n"
          "  --screenshot FILE.png  draw one state (after --step K tokens) without a window\n"
          "  --record DIR           write DIR/frame-0001.png ... one token apart, no window\n"
          "  --frames N             how many frames --record writes\n"
          "  --press KEYS           apply these keys first, e.g. --press c2 (see ? for keys)\n"
          "  --hover I,J            point at query position I, key position J (from 0)\n"
          "  --quit-after N         close the window after N frames (for tests)\n"
          "  --train                train a model live (chapter 16); --trained: the trained model\n"
          "  --train-steps N        stop training after N steps; a screenshot waits for them\n", out);
    return out == stdout ? VIZ_EXIT_OK : VIZ_EXIT_USAGE;
}
static int parse_count(const char *option, const char *value, size_t *n)
{
    char *end;
    errno = 0;
    unsigned long long v = value ? strtoull(value, &end, 10) : 0;
    if (value == NULL || *value == '-' || *end != '\0' || errno != 0 || v == 0 || v > 100000) {
        fprintf(stderr, "mha-viz: %s: expected a count from 1 to 100000, got '%s'\n", option,
                value ? value : "nothing");
        return -1;
    }
    *n = (size_t)v;
    return 0;
}
static int parse_options(int argc, char **argv, struct options *o)
{
    *o = (struct options){.width = 1280, .height = 800, .hover_row = -1, .hover_col = -1};
    for (int i = 1; i < argc; i += 2) {                /* every option has a value */
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout), 1;
        else if (strcmp(a, "--train") == 0 || strcmp(a, "--trained") == 0) {
            o->learning_mode = strcmp(a, "--train") == 0 ? VIZ_MODE_TRAINING : VIZ_MODE_TRAINED;
            i--;                                           /* no value */
        }
        else if (strcmp(a, "--train-steps") == 0) {
            if (parse_count(a, value, &o->train_steps) || o->train_steps > VIZ_TRAIN_MAX_STEPS) {
                if (o->train_steps > VIZ_TRAIN_MAX_STEPS)
                    fprintf(stderr, "mha-viz: --train-steps: at most %d\n", VIZ_TRAIN_MAX_STEPS);
                return -1;
            }
        }
        else if (value == NULL && strncmp(a, "--", 2) == 0) {
            fprintf(stderr, "mha-viz: %s: missing value\n", a);
            return -1;
        }
        else if (strcmp(a, "--text") == 0) o->text = value;
        else if (strcmp(a, "--screenshot") == 0) o->screenshot = value;
        else if (strcmp(a, "--record") == 0) o->record = value;
        else if (strcmp(a, "--press") == 0) o->press = value;
        else if (strcmp(a, "--step") == 0) { if (parse_count(a, value, &o->step)) return -1; }
        else if (strcmp(a, "--frames") == 0) { if (parse_count(a, value, &o->frames)) return -1; }
        else if (strcmp(a, "--quit-after") == 0) { if (parse_count(a, value, &o->quit_after)) return -1; }
        else if (strcmp(a, "--hover") == 0) {
            if (sscanf(value, "%d,%d", &o->hover_row, &o->hover_col) != 2 || o->hover_row < 0 ||
                o->hover_col < 0 || o->hover_row >= VIZ_TOKENS_MAX || o->hover_col >= VIZ_TOKENS_MAX) {
                fprintf(stderr, "mha-viz: --hover: expected I,J from 0 to %d, got '%s'\n",
                        VIZ_TOKENS_MAX - 1, value);
                return -1;
            }
        }
        else if (strcmp(a, "--size") == 0) {
            if (sscanf(value, "%dx%d", &o->width, &o->height) != 2 || o->width < VIZ_MIN_WIDTH ||
                o->height < VIZ_MIN_HEIGHT || o->width > 8192 || o->height > 8192) {
                fprintf(stderr, "mha-viz: --size: expected WxH from %dx%d to 8192x8192, got '%s'\n",
                        VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT, value);
                return -1;
            }
        }
        else {
            fprintf(stderr, "mha-viz: unknown argument '%s' (try 'mha-viz --help')\n", a);
            return -1;
        }
    }
    if (o->record != NULL && o->frames == 0) {
        fprintf(stderr, "mha-viz: --record needs --frames N\n");
        return -1;
    }
    return 0;
}
static void press_keys(viz_state *s, const char *keys)
{
    for (; *keys != '\0'; keys++) {
        SDL_Event key = {.type = SDL_KEYDOWN}, typed = {.type = SDL_TEXTINPUT};
        key.key.keysym.sym = *keys == '>' ? SDLK_RIGHT : *keys == '<' ? SDLK_LEFT
                           : *keys == '\t' ? SDLK_TAB : (SDL_Keycode)*keys;
        typed.text.text[0] = *keys;
        viz_handle_event(s, &key, NULL);
        viz_handle_event(s, &typed, NULL);
    }
}
int viz_save_png(viz_state *s, int width, int height, const char *path)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    viz_view view = {0};
    int status = -1;
    if (renderer != NULL && viz_view_open(&view, renderer) == 0) {
        viz_layout layout;
        viz_layout_compute(s, width, height, &layout);
        viz_draw(&view, s, &layout);
        SDL_RenderPresent(renderer);
        status = IMG_SavePNG(surface, path);
        viz_view_close(&view);
    }
    if (renderer) SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    return status;
}
static int record_frames(viz_state *s, const struct options *o)
{
    for (size_t f = 0; f < o->frames; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frame-%04zu.png", o->record, f + 1);
        if (viz_save_png(s, o->width, o->height, path) != 0) {
            fprintf(stderr, "mha-viz: %s: %s\n", path, SDL_GetError());
            return VIZ_EXIT_FAILURE;
        }
        s->playing = 1;
        viz_tick(s, 1.0 / s->speed);
    }
    return VIZ_EXIT_OK;
}
static void save_window(viz_state *s, SDL_Renderer *renderer, int w, int h)
{
    static int count = 0;
    char path[64];
    snprintf(path, sizeof path, "mha-viz-%03d.png", ++count);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    const int ok = surface != NULL &&
        SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGBA32, surface->pixels,
                             surface->pitch) == 0 && IMG_SavePNG(surface, path) == 0;
    snprintf(s->message, sizeof s->message, ok ? "saved %s" : "could not save %s", path);
    SDL_FreeSurface(surface);
    s->save_requested = 0;
}
static int window_loop(viz_state *s, const struct options *o)
{
    SDL_Window *window = SDL_CreateWindow("mha-viz: attention heads", SDL_WINDOWPOS_CENTERED,
                                          SDL_WINDOWPOS_CENTERED, o->width, o->height,
                                          SDL_WINDOW_RESIZABLE);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, 0) : NULL;
    if (window != NULL)
        SDL_SetWindowMinimumSize(window, VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT);
    if (renderer == NULL) {
        fprintf(stderr, "mha-viz: cannot open a window: %s\n", SDL_GetError());
        if (window) SDL_DestroyWindow(window);
        return VIZ_EXIT_NO_DISPLAY;
    }
    viz_view view = {0};
    int status = viz_view_open(&view, renderer) == 0 ? VIZ_EXIT_OK : VIZ_EXIT_FAILURE;
    if (status == VIZ_EXIT_OK) {
        SDL_RendererInfo info;
        SDL_GetRendererInfo(renderer, &info);
        printf("mha-viz: window %dx%d, renderer %s, driver %s\n", o->width, o->height, info.name,
               SDL_GetCurrentVideoDriver());
        fflush(stdout);
        Uint64 last = SDL_GetTicks64();
        viz_layout layout;
        SDL_StartTextInput();
        for (size_t frame = 1; !s->quit; frame++) {
            int w, h;
            SDL_GetRendererOutputSize(renderer, &w, &h);
            viz_layout_compute(s, w, h, &layout);
            SDL_Event event;
            if (SDL_WaitEventTimeout(&event, 15)) {
                viz_handle_event(s, &event, &layout);
                while (SDL_PollEvent(&event))
                    viz_handle_event(s, &event, &layout);
            }
            const Uint64 now = SDL_GetTicks64();
            viz_tick(s, (now - last) / 1000.0);
            last = now;
            viz_draw(&view, s, &layout);
            SDL_RenderPresent(renderer);
            if (s->save_requested)
                save_window(s, renderer, w, h);
            if (o->quit_after != 0 && frame >= o->quit_after)
                s->quit = 1;
        }
        viz_view_close(&view);
    } else
        fprintf(stderr, "mha-viz: %s: %s\n", VIZ_FONT, TTF_GetError());
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    return status;
}
static void go_to_token(viz_state *s, size_t step)
{
    SDL_Event right = {.type = SDL_KEYDOWN};
    right.key.keysym.sym = SDLK_RIGHT;
    while (s->step < step && s->step < s->length)
        viz_handle_event(s, &right, NULL);
}
static int real_display(void)
{
    const char *driver = SDL_GetCurrentVideoDriver();
    return getenv("SDL_VIDEODRIVER") != NULL ||
           (driver != NULL && strcmp(driver, "offscreen") != 0 && strcmp(driver, "dummy") != 0);
}
int viz_main(int argc, char **argv)
{
    struct options o;
    const int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? VIZ_EXIT_OK : VIZ_EXIT_USAGE;
    viz_state s;
    if (viz_init(&s, o.text) != MHA_OK) {
        fprintf(stderr, "mha-viz: --text: a sentence is 1 to %d words\n", VIZ_TOKENS_MAX);
        viz_free(&s);
        return VIZ_EXIT_USAGE;
    }
    int status = VIZ_EXIT_FAILURE;
    if (TTF_Init() != 0)
        fprintf(stderr, "mha-viz: SDL_ttf: %s\n", TTF_GetError());
    else {
        if (o.learning_mode != 0 || o.train_steps != 0) {
            if (viz_learning_switch(&s, o.learning_mode ? o.learning_mode : VIZ_MODE_TRAINING) != MHA_OK) {
                fprintf(stderr, "mha-viz: %s\n", s.message);
                TTF_Quit();
                viz_free(&s);
                return VIZ_EXIT_FAILURE;
            }
            if (s.mode == VIZ_MODE_TRAINING && o.train_steps != 0) {
                viz_trainer_request(&s.learning->trainer, -1, 0, o.train_steps);
                if (o.screenshot != NULL || o.record != NULL) {
                    viz_trainer_wait(&s.learning->trainer, o.train_steps);
                    viz_trainer_take(&s.learning->trainer, &s.learning->view, 1);
                }
            }
            if (s.mode == VIZ_MODE_TRAINED && o.step != 0)
                viz_trained_go_to(&s.learning->trained, o.step);
            o.step = 0;
        }
        if (o.step != 0)
            go_to_token(&s, o.step);
        if (o.press != NULL)
            press_keys(&s, o.press);
        if (o.hover_row >= 0) {
            s.hover_head = (int)s.focus;
            s.hover_row = o.hover_row;
            s.hover_col = o.hover_col;
        }
        if (o.screenshot != NULL || o.record != NULL)
            s.playing = 0;
        if (o.screenshot != NULL) {
            status = viz_save_png(&s, o.width, o.height, o.screenshot) == 0 ? VIZ_EXIT_OK
                                                                           : VIZ_EXIT_FAILURE;
            if (status != VIZ_EXIT_OK)
                fprintf(stderr, "mha-viz: %s: %s\n", o.screenshot, SDL_GetError());
        } else if (o.record != NULL) {
            status = record_frames(&s, &o);
        } else if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            fprintf(stderr, "mha-viz: no display: %s\n", SDL_GetError());
            status = VIZ_EXIT_NO_DISPLAY;
        } else if (!real_display()) {
            fprintf(stderr, "mha-viz: no display: SDL found only its '%s' video driver\n",
                    SDL_GetCurrentVideoDriver());
            SDL_Quit();
            status = VIZ_EXIT_NO_DISPLAY;
        } else {
            status = window_loop(&s, &o);
            SDL_Quit();
        }
        TTF_Quit();
    }
    viz_free(&s);
    return status;
}
