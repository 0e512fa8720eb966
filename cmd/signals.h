/* generated from chapters/23-writing-results.nw; edit the book, not this file */
#ifndef MHA_SIGNALS_H
#define MHA_SIGNALS_H
/* Runs a subcommand so that a terminating signal removes the writer's
   temporaries, prints one 'mha: ' line on err (or on file descriptor 2 when
   err has none) and ends the process with the signal. */
#include "cli.h"
int mha_run_stoppable(mha_command_fn *run, int argc, char **argv, FILE *out, FILE *err);
#endif
