/* generated from chapters/07-simd.nw; edit the book, not this file */
#ifndef MHA_THREADS_H
#define MHA_THREADS_H
/* How the fast versions run: the instruction set of their kernels and the
   number of their threads. */
#include <stddef.h>
#include "mha_status.h"

/* <<[[mha_threads.h]] fast versions and threads>> */
/* mha_set_isa(name) chooses the kernels of the fast versions: "scalar",
   "avx2" or "avx512", never one the processor lacks (the best it has below
   the one named); NULL or "" the best.  MHA_ERR_ARG, and nothing changed,
   for another name.  Not while another thread is inside a call. */
MHA_MUST_CHECK mha_status mha_set_isa(const char *name);
/* <<[[mha_threads.h]] fast versions and threads>> */
/* The fast versions run on mha_threads() threads, OpenMP's (one per core by
   default).  mha_set_threads(n) sets the number for the calls this thread
   makes from now on; n = 0 restores the default.  Results do not depend on it.
   MHA_ERR_ARG, and nothing changed, if n > mha_threads_max(), which is
   MHA_THREADS_PER_CORE per core. */
enum { MHA_THREADS_PER_CORE = 8 };
MHA_MUST_CHECK mha_status mha_set_threads(size_t threads);
size_t mha_threads(void);
size_t mha_threads_max(void);

#endif
