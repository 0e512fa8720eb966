/* generated from chapters/25-hardening.nw; edit the book, not this file */
#ifndef WRAP_ALLOC_H
#define WRAP_ALLOC_H
/* The linker's --wrap sends malloc, calloc, realloc, aligned_alloc,
   posix_memalign, strdup and open_memstream to wrap_alloc.c, which fails a call when
   alloc_fail_now, defined by the program that links it, returns nonzero. */
int alloc_fail_now(void);
#endif
