/* generated from chapters/20-command.nw; edit the book, not this file */
#ifndef MHA_OPTIONS_H
#define MHA_OPTIONS_H
/* A command line read with getopt_long by a table of options (the companion's
   chapter on the command).  Nothing here prints: a refusal returns MHA_ERR_ARG and one
   line in message[0..size-1] that names the option at fault.  Not
   reentrant: getopt_long keeps its state in globals. */
#include <stddef.h>
#include "mha.h"

typedef enum {
    MHA_OPTION_FLAG,             /* --name; store: int *, set to 1 */
    MHA_OPTION_SIZE,             /* --name N; store: size_t *, low <= N <= high */
    MHA_OPTION_DOUBLE,           /* --name X; store: double *, least <= X <= most */
    MHA_OPTION_TEXT              /* --name TEXT; store: const char ** */
} mha_option_kind;

typedef struct mha_option {
    const char *name;            /* with its dashes: "--heads" */
    mha_option_kind kind;
    void *store;
    size_t low, high;            /* a size's bounds */
    double least, most;          /* a double's bounds */
    const char *what;            /* a double, in its message: "a learning rate in (0, 1]" */
} mha_option;

typedef struct mha_command_line {
    const char *program;         /* in "try 'PROGRAM --help'": "mha forward" */
    const char *prefix;          /* before a refused argument: "forward: ", or "" */
    const char *operand;         /* the one argument that is not an option: "directory";
                                    NULL if there is none */
    const char *operand_given;   /* set: the operand, or NULL */
    int help;                    /* set: --help or -h was given (parsing stopped there) */
} mha_command_line;

enum { MHA_OPTIONS_MAX = 32 };
mha_status mha_options_parse(int argc, char **argv, const mha_option *options, size_t count,
                             mha_command_line *line, char *message, size_t size);
mha_status mha_option_size(const char *name, const char *text, size_t low, size_t high,
                           size_t *value, char *message, size_t size);
#endif
