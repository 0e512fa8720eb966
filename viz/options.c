/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "viz.h"

static int usage(FILE *out)
{
    fputs("usage: mha-viz [--text \"WORDS\"] [--step K] [--press KEYS] [--hover I,J] [--size WxH]\n"
          "               [--train | --trained] [--train-steps N]\n"
          "               [--screenshot FILE.png | --record DIR --frames N | --quit-after N]\n"
          "\n"
          "Shows five designed attention heads attending over a sentence that is decoded\n"
          "one token at a time.  Press ? in the window for the keys.\n"
          "  --screenshot FILE.png  draw one state (after --step K tokens) without a window;\n"
          "                         - writes the PNG to standard output\n"
          "  --record DIR           write DIR/frame-0001.png ... one token apart, no window\n"
          "  --frames N             how many frames --record writes\n"
          "  --press KEYS           apply these keys first, e.g. --press c2 (see ? for keys)\n"
          "  --hover I,J            point at query position I, key position J (from 0)\n"
          "  --quit-after N         close the window after N frames (for tests)\n"
          "  --train                train a model live; --trained: the trained model\n"
          "  --train-steps N        stop training after N steps; a screenshot waits for them\n",
          out);
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
static int takes_value(const char *option)
{
    static const char *const with_value[] = {
        "--text", "--screenshot", "--record", "--press", "--step", "--frames",
        "--quit-after", "--train-steps", "--hover", "--size",
    };
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (strcmp(option, with_value[k]) == 0)
            return 1;
    return 0;
}
int viz_parse_options(int argc, char **argv, struct viz_options *o)
{
    *o = (struct viz_options){.width = 1280, .height = 800, .hover_row = -1, .hover_col = -1};
    for (int i = 1; i < argc; i += 2) {                /* an option and its value */
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout), 1;
        else if (strcmp(a, "--train") == 0 || strcmp(a, "--trained") == 0) {
            o->mode = strcmp(a, "--train") == 0 ? "training" : "trained";
            i--;                                       /* no value */
        }
        else if (!takes_value(a)) {
            fprintf(stderr, "mha-viz: unknown option '%s' (try 'mha-viz --help')\n", a);
            return -1;
        }
        else if (value == NULL) {
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
        else if (strcmp(a, "--train-steps") == 0) {
            if (parse_count(a, value, &o->train_steps)) return -1;
        }
        else if (strcmp(a, "--hover") == 0) {
            if (sscanf(value, "%d,%d", &o->hover_row, &o->hover_col) != 2 || o->hover_row < 0 ||
                o->hover_col < 0 || o->hover_row >= VIZ_TOKENS_MAX || o->hover_col >= VIZ_TOKENS_MAX) {
                fprintf(stderr, "mha-viz: --hover: expected I,J from 0 to %d, got '%s'\n",
                        VIZ_TOKENS_MAX - 1, value);
                return -1;
            }
        }
        else if (strcmp(a, "--size") == 0) {
            char *x, *end;
            errno = 0;
            const long width = strtol(value, &x, 10);
            const long height = *x == 'x' ? strtol(x + 1, &end, 10) : 0;
            if (*x != 'x' || x == value || *end != '\0' || errno != 0 || width < VIZ_MIN_WIDTH ||
                height < VIZ_MIN_HEIGHT || width > 8192 || height > 8192) {
                fprintf(stderr, "mha-viz: --size: expected WxH from %dx%d to 8192x8192, got '%s'\n",
                        VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT, value);
                return -1;
            }
            o->width = (int)width, o->height = (int)height;
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
    if (o->train_steps != 0 && o->mode == NULL)
        o->mode = "training";
    return 0;
}
void viz_press_keys(viz_state *s, const char *keys)
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
