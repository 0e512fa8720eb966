/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "mha.h"
#include "npy.h"
#include "signals.h"

static mha_command_fn cmd_help;

static const struct mha_command commands[] = {
    {"forward", "run one attention layer on the NumPy files in a directory", mha_cmd_forward},
    {"decode", "run the layer causally, one position at a time, through a KV cache",
     mha_cmd_decode},
    {"backward", "gradients of one attention layer, as PyTorch's autograd computes them",
     mha_cmd_backward},
    {"train", "train a two-layer attention-only model until an induction head forms",
     mha_cmd_train},
    {"demo", "show each head's attention weights as heatmaps in the terminal", mha_cmd_demo},
    {"bench", "time a forward pass or a decoding step, threads, peak and bandwidth",
     mha_cmd_bench},
    {"help", "describe the commands, or one command: mha help COMMAND", cmd_help},
};
static const size_t command_count = sizeof commands / sizeof commands[0];
static const struct mha_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}
int mha_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2) {
        mha_cli_error(err, "no command given (try 'mha --help')");
        return MHA_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cmd_help(argc - 1, argv + 1, out, err);
    const struct mha_command *command = find_command(argv[1]);
    if (command == NULL) {
        mha_cli_error(err, "unknown command '%s' (try 'mha --help')", argv[1]);
        return MHA_EXIT_USAGE;
    }
    if (mha_threads() > mha_thread_limit()) {
        const char *setting = getenv("OMP_NUM_THREADS");
        mha_cli_error(err, "OMP_NUM_THREADS=%s: more than %d threads per core "
                      "(at most %zu here)", setting ? setting : "?", MHA_THREADS_PER_CORE,
                      mha_thread_limit());
        return MHA_EXIT_USAGE;
    }
    return mha_run_stoppable(command->run, argc - 1, argv + 1, out, err);
}
size_t mha_thread_limit(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return (size_t)(cores > 0 ? cores : 1) * MHA_THREADS_PER_CORE;
}
static int cmd_help(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc >= 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0) {
        const struct mha_command *command = find_command(argv[1]);
        if (command == NULL) {
            mha_cli_error(err, "help: unknown command '%s' (try 'mha --help')", argv[1]);
            return MHA_EXIT_USAGE;
        }
        char *help_argv[] = {(char *)command->name, "--help", NULL};
        return command->run(2, help_argv, out, err);
    }
    fprintf(out,
            "usage: mha COMMAND [OPTIONS]\n"
            "       mha help COMMAND    (or mha COMMAND --help) for one command\n\n"
            "Multi-head attention as torch.nn.MultiheadAttention(E, H, batch_first=True)\n"
            "computes it, in C.  Commands:\n\n");
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nExit status: 0 success, 1 a file or the computation failed, 2 a usage error.\n"
            "Every error is one line on standard error, starting 'mha: '.\n");
    return MHA_EXIT_OK;
}
void mha_cli_error(FILE *err, const char *format, ...)
{
    va_list args;
    char line[1024];
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    for (char *c = line; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fprintf(err, "mha: %s\n", line);
}
int mha_parse_size(const char *option, const char *text, size_t *value, FILE *err)
{
    size_t v = 0;
    if (*text == '\0') {
        mha_cli_error(err, "%s: expected a positive integer, got an empty string", option);
        return -1;
    }
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            mha_cli_error(err, "%s: '%s' is not a positive integer", option, text);
            return -1;
        }
        const size_t digit = (size_t)(*p - '0');
        if (v > (SIZE_MAX - digit) / 10) {
            mha_cli_error(err, "%s: '%s' is too large", option, text);
            return -1;
        }
        v = v * 10 + digit;
    }
    if (v == 0) {
        mha_cli_error(err, "%s: must be positive, got '%s'", option, text);
        return -1;
    }
    *value = v;
    return 0;
}
int mha_option_value(int argc, char **argv, int *i, const char *name,
                     const char **value, FILE *err)
{
    const char *arg = argv[*i];
    const size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        mha_cli_error(err, "%s: missing value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}
