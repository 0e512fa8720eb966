/* generated from chapters/16-austen-model.nw, chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "clock.h"
#include "fast.h"
#include "mha.h"
#include "npy.h"
#include "output.h"
#include "printable.h"
#include "signals.h"

/* <<[[cli.c]] declarations>> */
static int asks_for_help(int argc, char **argv);
static int check_environment(int argc, char **argv, FILE *err);
/* <<[[cli.c]] command table>> */
static mha_command_fn cmd_help;

static const struct mha_command commands[] = {
    /* <<[[mha]] commands>> */
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
    {"block", "one transformer block (pre-norm TransformerEncoderLayer), and its gradients",
     mha_cmd_block},
    {"lm", "a language model of Jane Austen's novels: tokenizer, baselines (mha help lm)",
     mha_cmd_lm},
    {"help", "describe the commands, or one command: mha help COMMAND", cmd_help},
};
static const size_t command_count = sizeof commands / sizeof commands[0];
/* <<[[cli.c]] functions>> */
void mha_cli_governor_init(mha_cli_governor *g)
{
    *g = (mha_cli_governor){mha_threads(), 0, 0.0, 0};
}
size_t mha_cli_governor_threads(const mha_cli_governor *g)
{
    const size_t k = (g->steps + 1) % MHA_GOVERNOR_EVERY;
    if (g->all <= 1 || k == MHA_GOVERNOR_FIRST + 1)
        return g->all;
    return k == MHA_GOVERNOR_FIRST || g->on_one ? 1 : g->all;
}
double mha_cli_governor_before(mha_cli_governor *g)
{
    if (mha_set_threads(mha_cli_governor_threads(g)) != MHA_OK)    /* at most the start's */
        g->all = 1;
    return mha_seconds();
}
void mha_cli_governor_after(mha_cli_governor *g, double seconds)
{
    const size_t k = ++g->steps % MHA_GOVERNOR_EVERY;
    if (k == MHA_GOVERNOR_FIRST)
        g->one_seconds = seconds;
    else if (k == MHA_GOVERNOR_FIRST + 1)
        g->on_one = g->one_seconds < seconds;
}
void mha_cli_governor_end(mha_cli_governor *g)
{
    if (mha_set_threads(g->all) != MHA_OK)
        g->all = 1;
}
/* <<[[cli.c]] functions>> */
static const struct mha_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}
/* <<[[cli.c]] functions>> */
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
    if (command->run != cmd_help && !asks_for_help(argc, argv) &&
        check_environment(argc, argv, err) != 0)
        return MHA_EXIT_USAGE;
    const int status = mha_run_stoppable(command->run, argc - 1, argv + 1, out, err);
    mha_output_release();                          /* the folders a command held */
    return status;
}
/* <<[[cli.c]] functions>> */
static int asks_for_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}
/* <<[[cli.c]] functions>> */
static const char *thread_setting;          /* OMP_NUM_THREADS, as main found it */
static int thread_setting_taken;

void mha_cli_take_thread_setting(const char *setting)
{
    thread_setting = setting;
    thread_setting_taken = 1;
}
/* <<[[cli.c]] functions>> */
static int check_environment(int argc, char **argv, FILE *err)
{
    /* <<refuse an unknown [[MHA_ISA]]>> */
    const char *isa = getenv("MHA_ISA"), *scalar = getenv("MHA_FORCE_SCALAR");
    const fast_kernels *const known[] = {&fast_kernels_scalar, &fast_kernels_avx2,
                                         &fast_kernels_avx512};
    if (mha_set_isa(isa) != MHA_OK) {
        mha_cli_error(err, "MHA_ISA: unknown instruction set '%s' (known: %s, %s, %s)", isa,
                      known[0]->name, known[1]->name, known[2]->name);
        return -1;
    }
    if (scalar != NULL && scalar[0] != '\0' && strcmp(scalar, "0") != 0 &&
        mha_set_isa("scalar") != MHA_OK)
        return -1;
    const char *setting = thread_setting_taken ? thread_setting : getenv("OMP_NUM_THREADS");
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], "--threads", 9) == 0 && (argv[i][9] == '\0' || argv[i][9] == '='))
            return 0;                               /* --threads wins */
    if (setting == NULL || setting[0] == '\0')
        return 0;
    size_t threads = 0;
    for (const char *p = setting; threads <= mha_threads_max() && *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            mha_cli_error(err, "OMP_NUM_THREADS: '%s' is not a positive integer", setting);
            return -1;
        }
        threads = threads * 10 + (size_t)(*p - '0');
    }
    if (threads == 0 || threads > mha_threads_max()) {
        mha_cli_error(err, "OMP_NUM_THREADS=%s: %s (at most %zu here, %d per core)", setting,
                      threads == 0 ? "not a positive integer" : "too many threads",
                      mha_threads_max(), MHA_THREADS_PER_CORE);
        return -1;
    }
    return mha_set_threads(threads) == MHA_OK ? 0 : -1;       /* within the bound above */
}
/* <<[[cli.c]] functions>> */
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
    /* <<print the program's usage and its commands to [[out]]>> */
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
/* <<[[cli.c]] functions>> */
void mha_cli_error(FILE *err, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    mha_print_error(err, "mha", format, args);
    va_end(args);
}

/* <<[[cli.c]] functions>> */
int mha_cli_options(int argc, char **argv, const mha_option *options, size_t count,
                    const char *operand, mha_command_line *line, FILE *err)
{
    char program[64], prefix[64], message[1024];
    snprintf(program, sizeof program, "mha %s", argv[0]);
    snprintf(prefix, sizeof prefix, "%s: ", argv[0]);
    *line = (mha_command_line){program, prefix, operand, NULL, 0};
    const mha_status status = mha_options_parse(argc, argv, options, count, line, message,
                                                sizeof message);
    line->program = line->prefix = NULL;              /* they were on this stack */
    if (status != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
