/* generated from chapters/09-transformer-block.nw, chapters/16-austen-model.nw, chapters/20-command.nw; edit the book, not this file */
#ifndef MHA_CLI_H
#define MHA_CLI_H
/* The mha command (its chapter in the companion).  Each subcommand is an
   mha_command_fn, called
   with argv[0] = its own name; it writes normal output to out and errors to
   err, one line per error, starting "mha: ", and returns the exit status:
   MHA_EXIT_OK, MHA_EXIT_FAILURE (a file or the computation failed) or
   MHA_EXIT_USAGE (the command line is wrong). */
#include <stddef.h>
#include <stdio.h>
#include "options.h"

/* <<[[cli.h]] types>> */
typedef struct mha_cli_governor {
    size_t all;                    /* the threads asked for */
    size_t steps;                  /* steps timed so far */
    double one_seconds;            /* the last trial on one thread */
    int on_one;                    /* 1: the steps between trials run on one thread */
} mha_cli_governor;
enum { MHA_GOVERNOR_EVERY = 50, MHA_GOVERNOR_FIRST = 3 };
/* <<[[cli.h]] types>> */
enum { MHA_EXIT_OK = 0, MHA_EXIT_FAILURE = 1, MHA_EXIT_USAGE = 2 };

typedef int mha_command_fn(int argc, char **argv, FILE *out, FILE *err);

struct mha_command {
    const char *name;            /* as typed: "forward" */
    const char *summary;         /* one line, for 'mha help' */
    mha_command_fn *run;
};
/* <<[[cli.h]] functions>> */
void mha_cli_governor_init(mha_cli_governor *g);
/* Sets the threads for the coming step and returns the time it starts. */
double mha_cli_governor_before(mha_cli_governor *g);
/* Takes the time the step took. */
void mha_cli_governor_after(mha_cli_governor *g, double seconds);
size_t mha_cli_governor_threads(const mha_cli_governor *g);   /* for the coming step */
void mha_cli_governor_end(mha_cli_governor *g);                /* all the threads again */
/* <<[[cli.h]] functions>> */
int mha_cli_main(int argc, char **argv, FILE *out, FILE *err);
/* <<[[cli.h]] functions>> */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void mha_cli_error(FILE *err, const char *format, ...);
int mha_cli_options(int argc, char **argv, const mha_option *options, size_t count,
                    const char *operand, mha_command_line *line, FILE *err);
/* <<[[cli.h]] functions>> */
void mha_cli_take_thread_setting(const char *setting);
/* <<[[cli.h]] command declarations>> */
mha_command_fn mha_cmd_block;
/* <<[[cli.h]] command declarations>> */
mha_command_fn mha_cmd_forward, mha_cmd_decode, mha_cmd_backward, mha_cmd_train;
mha_command_fn mha_cmd_demo, mha_cmd_bench, mha_cmd_lm;
int mha_demo_wants_colour(FILE *out);
#endif
