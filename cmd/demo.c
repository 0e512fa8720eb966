/* generated from chapters/10-terminal-heads.nw, chapters/23-demo-command.nw; edit the book, not this file */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "example.h"
#include "mha.h"
#include "printable.h"
#include "random.h"

/* <<[[demo.c]] data>> */
static const unsigned char viridis_table[11][3] = {
    {68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},
    {42, 120, 142}, {33, 145, 140}, {34, 168, 132}, {68, 191, 112},
    {122, 209, 81}, {189, 223, 38}, {253, 231, 37},
};
/* <<[[demo.c]] data>> */
enum { LABEL_MAX = 10 };

struct heatmap {
    const char *title;
    const char *const *row_labels;      /* L query tokens */
    const char *const *column_labels;   /* S key tokens */
    size_t rows, columns;               /* L, S */
    const float *weights;               /* (L, S) */
};
/* <<[[demo.c]] data>> */
enum { DEMO_HEAD_WIDTH = 4 };
/* <<[[demo.c]] functions>> */
static void viridis(double t, int rgb[3])
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const double x = 10 * t;
    const int i = x >= 10 ? 9 : (int)x;
    const double f = x - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (int)lround((1 - f) * viridis_table[i][c] + f * viridis_table[i + 1][c]);
}
/* <<[[demo.c]] functions>> */
static void colour_cell(FILE *out, double t)
{
    int rgb[3];
    viridis(t, rgb);
    fprintf(out, "\x1b[48;2;%d;%d;%dm  ", rgb[0], rgb[1], rgb[2]);
}

static const char *const colour_reset = "\x1b[0m";
/* <<[[demo.c]] functions>> */
static size_t label_chars(const char *label, size_t most, size_t *bytes)
{
    size_t chars = 0, at = 0, n;
    while (chars < most && (n = mha_printable_char(label + at)) > 0)
        at += n, chars++;
    if (bytes != NULL)
        *bytes = at;
    return chars;
}
static void print_label(FILE *out, const char *label, int width)
{
    size_t bytes;
    const size_t chars = label_chars(label, (size_t)width, &bytes);
    fprintf(out, "%*s%.*s", width - (int)chars, "", (int)bytes, label);
}
static int label_width(const char *const *labels, size_t n)
{
    size_t width = 1;
    for (size_t i = 0; i < n; i++)
        if (label_chars(labels[i], LABEL_MAX, NULL) > width)
            width = label_chars(labels[i], LABEL_MAX, NULL);
    return (int)width;
}
/* <<[[demo.c]] functions>> */
static void print_column_labels(FILE *out, int colour, const struct heatmap *map, int indent)
{
    if (colour) {
        const int height = label_width(map->column_labels, map->columns);
        for (int line = 0; line < height; line++) {
            fprintf(out, "%*s", indent, "");
            for (size_t j = 0; j < map->columns; j++) {
                size_t skip, bytes;
                const char *label = map->column_labels[j];
                label_chars(label, (size_t)line, &skip);
                label_chars(label + skip, 1, &bytes);
                fprintf(out, "%.*s ", bytes > 0 ? (int)bytes : 1, bytes > 0 ? label + skip : " ");
            }
            fputc('\n', out);
        }
    } else {
        fprintf(out, "%*s", indent, "");
        for (size_t j = 0; j < map->columns; j++)
            fputc(' ', out), print_label(out, map->column_labels[j], 5);
        fputc('\n', out);
    }
}
/* <<[[demo.c]] functions>> */
static void print_heatmap(FILE *out, int colour, const struct heatmap *map)
{
    const int width = label_width(map->row_labels, map->rows);
    fprintf(out, "%s\n", map->title);
    print_column_labels(out, colour, map, width + 1);
    for (size_t i = 0; i < map->rows; i++) {
        print_label(out, map->row_labels[i], width);
        fputc(' ', out);
        for (size_t j = 0; j < map->columns; j++) {
            const double w = map->weights[i * map->columns + j];
            if (colour)
                colour_cell(out, w);
            else
                fprintf(out, " %5.3f", w);
        }
        fprintf(out, "%s\n", colour ? colour_reset : "");
    }
    fputc('\n', out);
}
/* <<[[demo.c]] functions>> */
static void print_legend(FILE *out, int colour)
{
    fputs("Each map is one head: row i is query token i, column j key token j, and\n"
          "the cell is the weight query i gives key j.  Every row sums to 1.\n", out);
    if (colour) {
        fputs("weight 0 ", out);
        for (int k = 0; k <= 10; k++)
            colour_cell(out, k / 10.0);
        fprintf(out, "%s 1\n\n", colour_reset);
    } else
        fputs("Weights are printed to three decimals.\n\n", out);
}
/* <<[[demo.c]] functions>> */
static int show_heads(FILE *out, FILE *err, int colour, const char *what,
                      const mha_shape *shape, const mha_params *params, const float *x,
                      const mha_mask *mask, const char *const *tokens)
{
    const size_t L = shape->query_len, H = shape->heads, E = shape->embed_dim;
    float *output = malloc(L * E * sizeof *output);
    float *weights = malloc(H * L * L * sizeof *weights);     /* (1, H, L, S = L) */
    mha_status status = output && weights
        ? mha_forward_naive(shape, params, x, NULL, NULL, mask, output, weights)
        : MHA_ERR_NOMEM;
    if (status == MHA_OK) {
        /* <<print one heatmap per head of [[weights]]>> */
        for (size_t h = 0; h < H; h++) {
            char title[160];
            snprintf(title, sizeof title, "%s: head %zu of %zu", what, h + 1, H);
            const struct heatmap map = {title, tokens, tokens, L, L, weights + h * L * L};
            print_heatmap(out, colour, &map);
        }
    } else
        mha_cli_error(err, "demo: %s: %s", what, mha_status_message(status));
    free(output);
    free(weights);
    return status == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
/* <<[[demo.c]] functions>> */
static int show_worked_example(FILE *out, FILE *err, int colour)
{
    static const char *const tokens[3] = {"x1", "x2", "x3"};
    float in_proj_weight[3 * 4 * 4], out_proj_weight[4 * 4];
    mha_example_params(in_proj_weight, out_proj_weight);
    const mha_shape shape = {1, 3, 3, 4, 2};
    const mha_params params = {in_proj_weight, NULL, out_proj_weight, NULL};
    return show_heads(out, err, colour, "Worked example (E = 4, no mask)",
                      &shape, &params, mha_example_x, NULL, tokens);
}
/* <<[[demo.c]] functions>> */
static uint64_t word_state(const char *word)
{
    uint64_t hash = 14695981039346656037ull;
    for (; *word != '\0'; word++)
        hash = (hash ^ (unsigned char)*word) * 1099511628211ull;
    return hash | 1;                             /* xorshift needs a non-zero state */
}
/* <<[[demo.c]] functions>> */
static void embed_tokens(const char *const *tokens, size_t L, size_t E, float *x)
{
    for (size_t p = 0; p < L; p++) {
        uint64_t state = word_state(tokens[p]);
        for (size_t e = 0; e < E; e++) {
            const double angle = (double)p / pow(10000.0, (double)(e - e % 2) / (double)E);
            x[p * E + e] = (float)mha_random_between(&state, -1, 1) +
                           (float)(e % 2 ? cos(angle) : sin(angle));
        }
    }
}
/* <<[[demo.c]] functions>> */
static void make_sentence_params(size_t E, float *in_proj_weight, float *out_proj_weight)
{
    uint64_t state = 2024;
    const float scale = sqrtf(3.0f / (float)E);
    for (size_t i = 0; i < 3 * E * E; i++)
        in_proj_weight[i] = scale * (float)mha_random_between(&state, -1, 1) *
                            (i < E * E ? 2.0f : 1.0f);
    for (size_t i = 0; i < E * E; i++)
        out_proj_weight[i] = i / E == i % E;
}
/* <<[[demo.c]] functions>> */
static int show_sentence(FILE *out, FILE *err, int colour, const char *text,
                         char *const *tokens, size_t L, size_t H)
{
    const size_t E = DEMO_HEAD_WIDTH * H;
    const mha_shape shape = {1, L, L, E, H};
    float *x = malloc(L * E * sizeof *x);
    float *in_proj_weight = malloc(3 * E * E * sizeof *in_proj_weight);
    float *out_proj_weight = malloc(E * E * sizeof *out_proj_weight);
    int status = MHA_EXIT_FAILURE;
    if (x && in_proj_weight && out_proj_weight) {
        /* <<embed the sentence and show its heads under a causal mask>> */
        char what[1200];
        const mha_mask causal = {1, NULL, NULL, NULL};
        const mha_params params = {in_proj_weight, NULL, out_proj_weight, NULL};
        embed_tokens((const char *const *)tokens, L, E, x);
        make_sentence_params(E, in_proj_weight, out_proj_weight);
        snprintf(what, sizeof what, "\"%s\" (E = %zu, causal, random weights)", text, E);
        status = show_heads(out, err, colour, what, &shape, &params, x, &causal,
                            (const char *const *)tokens);
    } else
        mha_cli_error(err, "demo: out of memory");
    free(x);
    free(in_proj_weight);
    free(out_proj_weight);
    return status;
}
/* <<[[demo.c]] command-line data>> */
enum { TOKENS_MAX = 32, WORDS_SIZE = 1024, HEADS_MAX = 16 };
static const char default_sentence[] = "the cat sat on the mat because it was tired";
/* <<[[demo.c]] command-line functions>> */
int mha_demo_wants_colour(FILE *out)
{
    const char *no_color = getenv("NO_COLOR");
    if (no_color != NULL && no_color[0] != '\0')
        return 0;
    const int fd = fileno(out);
    return fd >= 0 && isatty(fd);
}
/* <<[[demo.c]] command-line functions>> */
static int split_words(const char *text, char words[WORDS_SIZE], char *tokens[TOKENS_MAX],
                       size_t *count, FILE *err)
{
    size_t L = 0;
    /* <<split [[text]] into at most [[TOKENS_MAX]] [[tokens]], or refuse it>> */
    /* <<refuse [[text]] if it holds a control character>> */
    for (size_t i = 0, n; text[i] != '\0'; i += n > 0 ? n : 1) {
        const unsigned char c = (unsigned char)text[i];
        n = mha_printable_char(text + i);
        if (n == 0 && c != '\t' && c != '\n') {
            const int control = c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) ||
                                (c == 0xc2 && (unsigned char)text[i + 1] >= 0x80 &&
                                 (unsigned char)text[i + 1] < 0xa0);
            mha_cli_error(err, "--text: %s 0x%02x at position %zu (words are printable text)",
                          control ? "control character" : "invalid UTF-8 byte", c, i);
            return MHA_EXIT_USAGE;
        }
    }
    if (strlen(text) >= WORDS_SIZE) {
        mha_cli_error(err, "--text: longer than %d characters", WORDS_SIZE - 1);
        return MHA_EXIT_USAGE;
    }
    strcpy(words, text);
    for (char *p = words; *p != '\0';) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            *p++ = '\0';
        if (*p == '\0')
            break;
        if (L == TOKENS_MAX) {
            mha_cli_error(err, "--text: more than %d words", TOKENS_MAX);
            return MHA_EXIT_USAGE;
        }
        tokens[L++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
    }
    if (L == 0) {
        mha_cli_error(err, "--text: no words");
        return MHA_EXIT_USAGE;
    }
    *count = L;
    return MHA_EXIT_OK;
}
/* <<[[demo.c]] command-line functions>> */
static void demo_usage(FILE *out)
{
    fprintf(out,
"usage: mha demo [--heads H] [--text \"WORDS\"] [--color]\n"
"\n"
"Draws every head's attention weights as a heatmap: first the book's worked\n"
"example (3 tokens, 2 heads), then a sentence (default \"%s\")\n"
"with fixed pseudo-random weights, head width 4, and a causal mask.\n"
"\n"
"  --heads H      heads for the sentence, 1 to %d (default 4)\n"
"  --text WORDS   the sentence, at most %d words\n"
"  --color        colour even when the output is not a terminal or NO_COLOR is set\n"
"  --help         this text\n"
"\n"
"Colour needs a terminal with 24-bit colour; otherwise, and when the NO_COLOR\n"
"environment variable is set, the weights are printed as numbers.\n",
            default_sentence, HEADS_MAX, TOKENS_MAX);
}
/* <<[[demo.c]] command-line functions>> */
int mha_cmd_demo(int argc, char **argv, FILE *out, FILE *err)
{
    size_t heads = 4;
    const char *text = default_sentence;
    int color = 0, colour = 0;
    /* <<read [[demo]]'s options>> */
    const mha_option options[] = {
        {"--heads", MHA_OPTION_SIZE, &heads, 1, SIZE_MAX, 0, 0, NULL},
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--color", MHA_OPTION_FLAG, &color, 0, 0, 0, 0, NULL},
        {"--colour", MHA_OPTION_FLAG, &colour, 0, 0, 0, 0, NULL},
    };
    mha_command_line line;
    if (mha_cli_options(argc, argv, options, sizeof options / sizeof options[0], NULL, &line,
                        err) != MHA_EXIT_OK)
        return MHA_EXIT_USAGE;
    if (line.help) {
        demo_usage(out);
        return MHA_EXIT_OK;
    }
    if (heads > HEADS_MAX) {
        mha_cli_error(err, "--heads: at most %d heads in the demo, got %zu", HEADS_MAX, heads);
        return MHA_EXIT_USAGE;
    }
    char words[WORDS_SIZE], *tokens[TOKENS_MAX];
    size_t L;
    int status = split_words(text, words, tokens, &L, err);
    if (status != MHA_EXIT_OK)
        return status;
    colour = color || colour || mha_demo_wants_colour(out);
    print_legend(out, colour);
    status = show_worked_example(out, err, colour);
    if (status == MHA_EXIT_OK)
        status = show_sentence(out, err, colour, text, tokens, L, heads);
    return status;
}
