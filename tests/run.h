/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#ifndef RUN_H
#define RUN_H
#include <stddef.h>
/* <<[[run.h]] declarations>> */
struct cli_result { int status; char *out, *err; };
struct cli_result run_argv(int argc, char **argv);
struct cli_result run_mha(const char *first, ...);       /* arguments, then NULL */
void free_result(struct cli_result *r);
void expect_help(const char *command, const char *sub);  /* sub: NULL for none */
float *read_npy_floats(const char *path, size_t *count);
#endif
