/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "printable.h"
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
        viz_error("%s: expected a count from 1 to 100000, got '%s'", option,
                  value ? value : "nothing");
        return -1;
    }
    *n = (size_t)v;
    return 0;
}
void viz_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    mha_print_error(stderr, "mha-viz", format, args);
    va_end(args);
}
static int takes_value(const char *option, size_t n)
{
    static const char *const with_value[] = {
        "--text", "--screenshot", "--record", "--press", "--step", "--frames",
        "--quit-after", "--train-steps", "--hover", "--size",
    };
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (strncmp(option, with_value[k], n) == 0 && with_value[k][n] == '\0')
            return 1;
    return 0;
}
static int given_before(int i, char **argv, size_t n)
{
    for (int j = 1; j < i; j++)
        if (strncmp(argv[j], argv[i], n) == 0 && (argv[j][n] == '\0' || argv[j][n] == '='))
            return 1;
    return 0;
}
int viz_parse_options(int argc, char **argv, struct viz_options *o)
{
    *o = (struct viz_options){.width = 1280, .height = 800, .hover_row = -1, .hover_col = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = NULL;
        const size_t n = strcspn(a, "=");
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout), 1;
        if (a[0] != '-') {
            viz_error("unknown argument '%s' (try 'mha-viz --help')", a);
            return -1;
        }
        if (!takes_value(a, n) && strcmp(a, "--train") != 0 && strcmp(a, "--trained") != 0) {
            viz_error("unknown option '%s' (try 'mha-viz --help')", a);
            return -1;
        }
        if (given_before(i, argv, n)) {
            viz_error("%.*s: given more than once", (int)n, a);
            return -1;
        }
        if (strcmp(a, "--train") == 0 || strcmp(a, "--trained") == 0) {
            if (o->mode != NULL) {
                viz_error("--train and --trained: give one of them");
                return -1;
            }
            o->mode = strcmp(a, "--train") == 0 ? "training" : "trained";
            continue;
        }
        if (a[n] == '=')
            value = a + n + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else {
            viz_error("%s: missing value", a);
            return -1;
        }
        if (value[0] == '-' && value[1] != '\0') {
            viz_error("%.*s: missing value: got '%s' (a value may not start with '-')", (int)n, a,
                      value);
            return -1;
        }
        char name[16];                       /* the longest, --train-steps, and a zero */
        snprintf(name, sizeof name, "%.*s", (int)n, a);
        if (strcmp(name, "--text") == 0) o->text = value;
        else if (strcmp(name, "--screenshot") == 0) o->screenshot = value;
        else if (strcmp(name, "--record") == 0) o->record = value;
        else if (strcmp(name, "--press") == 0) o->press = value;
        else if (strcmp(name, "--step") == 0) {
            if (parse_count(name, value, &o->step)) return -1;
        }
        else if (strcmp(name, "--frames") == 0) {
            if (parse_count(name, value, &o->frames)) return -1;
        }
        else if (strcmp(name, "--quit-after") == 0) {
            if (parse_count(name, value, &o->quit_after)) return -1;
        }
        else if (strcmp(name, "--train-steps") == 0) {
            if (parse_count(name, value, &o->train_steps)) return -1;
        }
        else if (strcmp(name, "--hover") == 0) {
            char *comma = NULL, *end = NULL;
            errno = 0;
            const long row = value[0] >= '0' && value[0] <= '9' ? strtol(value, &comma, 10) : -1;
            const long col = comma != NULL && comma[0] == ',' && comma[1] >= '0' && comma[1] <= '9'
                             ? strtol(comma + 1, &end, 10) : -1;
            if (end == NULL || *end != '\0' || errno != 0 || row >= VIZ_TOKENS_MAX || col < 0 ||
                col >= VIZ_TOKENS_MAX) {
                viz_error("--hover: expected I,J from 0 to %d, got '%s'", VIZ_TOKENS_MAX - 1, value);
                return -1;
            }
            o->hover_row = (int)row, o->hover_col = (int)col;
        }
        else if (strcmp(name, "--size") == 0) {
            char *x, *end;
            errno = 0;
            const long width = strtol(value, &x, 10);
            const long height = *x == 'x' ? strtol(x + 1, &end, 10) : 0;
            if (*x != 'x' || x == value || *end != '\0' || errno != 0 || width < VIZ_MIN_WIDTH ||
                height < VIZ_MIN_HEIGHT || width > 8192 || height > 8192) {
                viz_error("--size: expected WxH from %dx%d to 8192x8192, got '%s'",
                          VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT, value);
                return -1;
            }
            o->width = (int)width, o->height = (int)height;
        }
    }
    if (o->screenshot != NULL && o->record != NULL) {
        viz_error("--screenshot and --record: give one of them");
        return -1;
    }
    if (o->quit_after != 0 && (o->screenshot != NULL || o->record != NULL)) {
        viz_error("--quit-after: only for the window, not with --%s",
                  o->screenshot != NULL ? "screenshot" : "record");
        return -1;
    }
    if (o->record != NULL && o->frames == 0) {
        viz_error("--record needs --frames N");
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
