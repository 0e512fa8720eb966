/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "austen.h"
#include "options.h"
#include "printable.h"
#include "viz.h"

/* <<[[options.c]] functions>> */
static void usage(void)
{
    fputs("usage: mha-viz [--text \"WORDS\"] [--step K] [--press KEYS] [--hover I,J] [--size WxH]\n"
          "               [--intro]\n"
          "               [--train | --trained | --designed] [--train-steps N] [--model DIR]\n"
          "               [--screenshot FILE.png | --record DIR --frames N | --quit-after N]\n"
          "\n"
          "Shows every attention head of the small GPT trained on Jane Austen's novels\n"
          "(--model, models/austen if it is found) as it writes, each head's map growing\n"
          "with every piece; without that model, or with --designed, five designed heads\n"
          "attending over a sentence decoded one token at a time.  A window opens at\n"
          "--size, or at 1280x800 cut to the screen.  Press ? in the window for the keys.\n"
          "In the designed view the keys [ and ]\n"
          "and the slider set the attention temperature T: every attention score is\n"
          "divided by T before the softmax, so T < 1 sharpens the maps and T > 1\n"
          "flattens them.  It is not the sampling temperature of text generation.\n"
          "  --text \"WORDS\"         the Austen view's prompt (up to its model's context of\n"
          "                         pieces) or the designed view's sentence (1 to 32 words)\n"
          "  --screenshot FILE.png  draw one state (after --step K tokens) without a window;\n"
          "                         - writes the PNG to standard output\n"
          "  --record DIR           write DIR/frame-0001.png ... one token apart, no window\n"
          "  --frames N             how many frames --record writes\n"
          "  --press KEYS           apply these keys first, e.g. --press c2 (see ? for keys)\n"
          "  --hover I,J            point at query position I, key position J (from 0)\n"
          "  --quit-after N         close the window after N frames (for tests)\n"
          "  --intro                draw the first explanation of the maps in pictures too\n"
          "                         (a window shows it unless --press or --hover is given)\n"
          "  --train                train a model live; --trained: the trained model\n"
          "  --train-steps N        stop training after N steps; a screenshot waits for them\n"
          "  --model DIR            the Austen model (default models/austen, here or beside\n"
          "                         the program); found, the viewer starts with it\n"
          "  --designed             start with the designed heads\n"
          "  --steps-per-frame K    with --train --record: K training steps between frames\n"
          "                         (10 if not given); frame F shows step F*K\n",
          stdout);
}
/* <<[[options.c]] functions>> */
void viz_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    mha_print_error(stderr, "mha-viz", format, args);
    va_end(args);
}
/* <<[[options.c]] functions>> */
int viz_parse_options(int argc, char **argv, struct viz_options *o)
{
    *o = (struct viz_options){.width = 1280, .height = 800, .hover_row = -1, .hover_col = -1};
    const char *hover = NULL, *size = NULL;
    int train = 0, trained = 0, designed = 0;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &o->text, 0, 0, 0, 0, NULL},
        {"--screenshot", MHA_OPTION_TEXT, &o->screenshot, 0, 0, 0, 0, NULL},
        {"--record", MHA_OPTION_TEXT, &o->record, 0, 0, 0, 0, NULL},
        {"--press", MHA_OPTION_TEXT, &o->press, 0, 0, 0, 0, NULL},
        {"--step", MHA_OPTION_SIZE, &o->step, 1, 100000, 0, 0, NULL},
        {"--frames", MHA_OPTION_SIZE, &o->frames, 1, 100000, 0, 0, NULL},
        {"--quit-after", MHA_OPTION_SIZE, &o->quit_after, 1, 100000, 0, 0, NULL},
        {"--train-steps", MHA_OPTION_SIZE, &o->train_steps, 1, 100000, 0, 0, NULL},
        {"--hover", MHA_OPTION_TEXT, &hover, 0, 0, 0, 0, NULL},
        {"--size", MHA_OPTION_TEXT, &size, 0, 0, 0, 0, NULL},
        {"--train", MHA_OPTION_FLAG, &train, 0, 0, 0, 0, NULL},
        {"--trained", MHA_OPTION_FLAG, &trained, 0, 0, 0, 0, NULL},
        {"--designed", MHA_OPTION_FLAG, &designed, 0, 0, 0, 0, NULL},
        {"--model", MHA_OPTION_TEXT, &o->model, 0, 0, 0, 0, NULL},
        {"--intro", MHA_OPTION_FLAG, &o->intro, 0, 0, 0, 0, NULL},
        {"--steps-per-frame", MHA_OPTION_SIZE, &o->steps_per_frame, 1, 5000, 0, 0, NULL},
    };
    mha_command_line line = {"mha-viz", "", NULL, NULL, 0};
    char message[1024];
    if (mha_options_parse(argc, argv, options, sizeof options / sizeof options[0], &line,
                          message, sizeof message) != MHA_OK) {
        viz_error("%s", message);
        return -1;
    }
    if (line.help) {
        usage();
        return 1;
    }
    if (train && trained) {
        viz_error("--train and --trained: give one of them");
        return -1;
    }
    if (designed && (train || trained)) {
        viz_error("--designed and --%s: give one of them", train ? "train" : "trained");
        return -1;
    }
    o->mode = train ? "training" : trained ? "trained" : designed ? "sentence" : NULL;
    if (hover != NULL) {
        /* <<read [[--hover I,J]], positions inside the longest sentence>> */
        char *comma = NULL, *end = NULL;
        errno = 0;
        const long row = hover[0] >= '0' && hover[0] <= '9' ? strtol(hover, &comma, 10) : -1;
        const long col = comma != NULL && comma[0] == ',' && comma[1] >= '0' && comma[1] <= '9'
                         ? strtol(comma + 1, &end, 10) : -1;
        if (end == NULL || *end != '\0' || errno != 0 || row >= VIZ_TOKENS_MAX || col < 0 ||
            col >= VIZ_TOKENS_MAX) {
            viz_error("--hover: expected I,J from 0 to %d, got '%s'", VIZ_TOKENS_MAX - 1, hover);
            return -1;
        }
        o->hover_row = (int)row, o->hover_col = (int)col;
    }
    if (size != NULL) {
        /* <<read [[--size WxH]], from the smallest window that fits to 8192 square>> */
        char *x, *end;
        errno = 0;
        const long width = strtol(size, &x, 10);
        const long height = *x == 'x' ? strtol(x + 1, &end, 10) : 0;
        if (*x != 'x' || x == size || *end != '\0' || errno != 0 || width < VIZ_MIN_WIDTH ||
            height < VIZ_MIN_HEIGHT || width > 8192 || height > 8192) {
            viz_error("--size: expected WxH from %dx%d to 8192x8192, got '%s'",
                      VIZ_MIN_WIDTH, VIZ_MIN_HEIGHT, size);
            return -1;
        }
        o->width = (int)width, o->height = (int)height, o->size_given = 1;
    }
    /* <<check the options that depend on each other>> */
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
    if (o->steps_per_frame != 0 && (o->record == NULL || o->mode == NULL ||
                                    strcmp(o->mode, "training") != 0)) {
        viz_error("--steps-per-frame: only with --train --record DIR");
        return -1;
    }
    if (o->record != NULL && o->mode != NULL && strcmp(o->mode, "training") == 0 &&
        o->steps_per_frame == 0)
        o->steps_per_frame = 10;
    return 0;
}
/* <<[[options.c]] functions>> */
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
/* <<[[options.c]] functions>> */
void viz_point_at(viz_state *s, int row, int col)
{
    const viz_austen *a = s->mode == &viz_austen_mode ? viz_mode_data(s, &viz_austen_mode)
                                                      : NULL;
    const int head = a != NULL ? (int)a->focus : (int)s->focus;
    viz_act(s, &(viz_action){.kind = VIZ_POINT, .head = head, .row = row, .col = col});
}
/* <<[[options.c]] functions>> */
void viz_settle(viz_state *s)
{
    viz_austen *a = s->mode == &viz_austen_mode ? viz_mode_data(s, &viz_austen_mode) : NULL;
    if (a != NULL)
        viz_austen_take_loss(a, 1);
}
