/* generated from chapters/23-writing-results.nw; edit the book, not this file */
#ifndef MHA_OUTPUT_H
#define MHA_OUTPUT_H
/* Files replaced as a unit (the companion's chapter on the command).  A set of
   outputs is
   written under exclusive temporary names, each one fsynced, then put in place
   under an flock of every directory it writes in; the files it replaces or
   removes are kept as hidden hard links until every rename has succeeded, so a
   commit that fails half-way is undone.  A set may own names in its directory
   (patterns in which '#' stands for one or more digits): those it does not
   write are removed in the same commit.  On any failure, or a terminating
   signal, every temporary is removed and every old output stays as it was.
   One set at a time in a process.  On failure a function returns the status
   and writes one line into message[0..size-1], naming the file at fault.
   begin: n >= 0 distinct names in dir; add: one more path, anywhere, and own:
   the owned patterns of dir (NULL-terminated, kept by the caller), both
   before the first next; commit waits at most the seconds of
   mha_output_wait (default MHA_OUTPUT_WAIT) for another run's lock, calling
   its notice once.  mha_output_abandon, for a signal handler of the
   caller's: removes the temporaries and returns 1, or returns 0 during a
   commit, after which end raises the signal again.  make_dir, before next:
   makes dir if it is missing; a folder made so belongs to the set, and is
   removed again (when it is empty) by end without a commit and by abandon.
   check_new_dir: what begin would ask of dir, or, when it is missing, what
   make_dir would ask of the folder it goes in.  hold: takes dir's lock for
   the whole run (at most MHA_OUTPUT_HOLDS folders, until release), so that a
   second run writing into dir is refused when it starts, not overwritten at
   a save; a missing dir is not held (hold it again once it is made); a dir
   already held is held once; fails at once, naming dir, when another run
   holds it.  The commits of a run use the locks it holds. */
#include <stddef.h>
#include <stdio.h>
#include "mha.h"

enum { MHA_OUTPUT_MAX = 100000, MHA_OUTPUT_WAIT = 30, MHA_OUTPUT_HOLDS = 4 };
MHA_MUST_CHECK
mha_status mha_output_begin(const char *dir, int n, const char *const names[],
                            char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_add(const char *path, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_own(const char *const patterns[], char *message, size_t size);
MHA_MUST_CHECK
int mha_output_next(char *message, size_t size);
typedef int (*mha_output_writer)(FILE *file, void *context);
MHA_MUST_CHECK
mha_status mha_output_stream(mha_output_writer writer, void *context,
                             char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_commit(char *message, size_t size);
void mha_output_end(void);
int mha_output_abandon(int sig);
typedef void (*mha_output_notice)(const char *dir, double seconds, void *context);
void mha_output_wait(double seconds, mha_output_notice notice, void *context);
MHA_MUST_CHECK
mha_status mha_output_file(const char *path, mha_output_writer writer, void *context,
                           char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_check(const char *path, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_check_dir(const char *dir, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_make_dir(const char *dir, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_check_new_dir(const char *dir, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_output_hold(const char *dir, char *message, size_t size);
void mha_output_release(void);
#endif
