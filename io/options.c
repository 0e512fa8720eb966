/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layer_files.h"
#include "options.h"

static mha_status store_value(const mha_option *o, const char *text, char *message,
                              size_t size);
static mha_status take_operand(mha_command_line *line, const char *arg, char *message,
                               size_t size);
/* <<[[io/options.c]] functions>> */
enum { OPTION_CODE = 256 };

static void make_table(const mha_option *options, size_t count, struct option *table)
{
    for (size_t k = 0; k < count; k++)
        table[k] = (struct option){options[k].name + 2,
                                   options[k].kind == MHA_OPTION_FLAG ? no_argument
                                                                      : required_argument,
                                   NULL, OPTION_CODE + (int)k};
    table[count] = (struct option){"help", no_argument, NULL, 'h'};
    table[count + 1] = (struct option){NULL, 0, NULL, 0};
}
/* <<[[io/options.c]] functions>> */
static int typed_in_full(const char *arg, const char *name)
{
    const size_t n = strcspn(arg, "=");
    return strlen(name) == n && strncmp(arg, name, n) == 0;
}
/* <<[[io/options.c]] functions>> */
mha_status mha_options_parse(int argc, char **argv, const mha_option *options, size_t count,
                             mha_command_line *line, char *message, size_t size)
{
    struct option table[MHA_OPTIONS_MAX + 2];
    int given[MHA_OPTIONS_MAX] = {0};
    if (count > MHA_OPTIONS_MAX)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: more than %d options", line->program,
                        MHA_OPTIONS_MAX);
    make_table(options, count, table);
    line->operand_given = NULL;
    line->help = 0;
    opterr = 0;
    optind = 0;
    for (;;) {
        const int at = optind > 0 ? optind : 1;
        const int code = getopt_long(argc, argv, "-:h", table, NULL);
        if (code == -1)
            break;
        const char *arg = argv[at];
        mha_status status;
        /* <<take [[arg]], which [[getopt_long]] returned as [[code]]>> */
        const int asked = code == '?' || code == ':' ? optopt : code;      /* the option's code */
        const int k = asked >= OPTION_CODE ? asked - OPTION_CODE : -1;
        const char *name = k >= 0 ? options[k].name : "--help";
        const int known = k >= 0 || asked == 'h';
        if (code == 1) {
            if ((status = take_operand(line, arg, message, size)) != MHA_OK)
                return status;
        } else if (!known || (!typed_in_full(arg, name) && strcmp(arg, "-h") != 0)) {
            return mha_fail(MHA_ERR_ARG, message, size, "%sunknown option '%s' (try '%s --help')",
                            line->prefix, arg, line->program);
        } else if (code == '?') {
            return mha_fail(MHA_ERR_ARG, message, size, "%s: takes no value, got '%s'", name, arg);
        } else if (code == ':') {
            return mha_fail(MHA_ERR_ARG, message, size, "%s: missing value", name);
        } else if (code == 'h') {
            line->help = 1;
            return MHA_OK;
        } else if (given[k]++ > 0) {
            return mha_fail(MHA_ERR_ARG, message, size, "%s: given more than once", name);
        } else if (options[k].kind != MHA_OPTION_FLAG && optarg[0] == '-' && optarg[1] != '\0') {
            return mha_fail(MHA_ERR_ARG, message, size,
                            "%s: missing value: got '%s' (a value may not start with '-')", name,
                            optarg);
        } else if ((status = store_value(&options[k], optarg, message, size)) != MHA_OK) {
            return status;
        }
    }
    for (int i = optind; i < argc; i++) {                      /* after -- */
        const mha_status status = take_operand(line, argv[i], message, size);
        if (status != MHA_OK)
            return status;
    }
    if (message != NULL && size > 0)
        message[0] = '\0';
    return MHA_OK;
}
/* <<[[io/options.c]] functions>> */
static mha_status take_operand(mha_command_line *line, const char *arg, char *message,
                               size_t size)
{
    if (line->operand == NULL)
        return mha_fail(MHA_ERR_ARG, message, size, "%sunknown argument '%s' (try '%s --help')",
                        line->prefix, arg, line->program);
    if (line->operand_given != NULL)
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s'%s': only one %s, please (already have '%s')", line->prefix, arg,
                        line->operand, line->operand_given);
    line->operand_given = arg;
    return MHA_OK;
}
/* <<[[io/options.c]] functions>> */
static mha_status store_value(const mha_option *o, const char *text, char *message,
                              size_t size)
{
    switch (o->kind) {
    case MHA_OPTION_FLAG:
        *(int *)o->store = 1;
        return MHA_OK;
    case MHA_OPTION_SIZE:
        return mha_option_size(o->name, text, o->low, o->high, o->store, message, size);
    case MHA_OPTION_DOUBLE: {
        char *end = NULL;
        errno = 0;
        const double value = strtod(text, &end);
        if (end == text || *end != '\0' || errno != 0 ||
            !(value >= o->least && value <= o->most))
            return mha_fail(MHA_ERR_ARG, message, size, "%s: '%s' is not %s", o->name, text,
                            o->what);
        *(double *)o->store = value;
        return MHA_OK;
    }
    case MHA_OPTION_TEXT:
        *(const char **)o->store = text;
        return MHA_OK;
    }
    return MHA_ERR_ARG;
}
/* <<[[io/options.c]] functions>> */
mha_status mha_option_size(const char *name, const char *text, size_t low, size_t high,
                           size_t *value, char *message, size_t size)
{
    size_t v = 0;
    if (*text == '\0')
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s: expected a positive integer, got an empty string", name);
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return mha_fail(MHA_ERR_ARG, message, size, "%s: '%s' is not a positive integer",
                            name, text);
        const size_t digit = (size_t)(*p - '0');
        if (v > (SIZE_MAX - digit) / 10)
            return mha_fail(MHA_ERR_ARG, message, size, "%s: '%s' is too large", name, text);
        v = v * 10 + digit;
    }
    if (v == 0 && low == 1)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: must be positive, got '%s'", name,
                        text);
    if (v < low || v > high)
        return high == SIZE_MAX
            ? mha_fail(MHA_ERR_ARG, message, size, "%s: %zu is out of range (at least %zu)",
                       name, v, low)
            : mha_fail(MHA_ERR_ARG, message, size, "%s: %zu is out of range (%zu to %zu)",
                       name, v, low, high);
    *value = v;
    return MHA_OK;
}
