/* generated from chapters/20-command.nw; edit the book, not this file */
#ifndef MHA_OUTPUT_H
#define MHA_OUTPUT_H
/* Files replaced as a unit (appendix "The mha command").  A set of outputs in
   one directory is written under exclusive temporary names, each one fsynced,
   then renamed into place, under the directory's lock when there are two or
   more; on any failure, or SIGINT, SIGTERM or SIGHUP, every temporary is
   removed and every old output stays as it was.  One set at a time in a
   process.  On failure a function returns the status and writes one line into
   message[0..size-1], naming the file at fault. */
#include <stddef.h>
#include <stdio.h>
#include "mha.h"

enum { MHA_OUTPUT_MAX = 16 };
mha_status mha_output_begin(const char *dir, int n, const char *const names[],
                            char *message, size_t size);
int mha_output_next(char *message, size_t size);
mha_status mha_output_commit(char *message, size_t size);
void mha_output_end(void);
typedef int (*mha_output_writer)(FILE *file, void *context);
mha_status mha_output_file(const char *path, mha_output_writer writer, void *context,
                           char *message, size_t size);
mha_status mha_output_check(const char *path, char *message, size_t size);
#endif
