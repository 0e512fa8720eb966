/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include "wrap_alloc.h"
void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t alignment, size_t n);
int __real_posix_memalign(void **p, size_t alignment, size_t n);
char *__real_strdup(const char *s);
FILE *__real_open_memstream(char **text, size_t *size);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t count, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t alignment, size_t n);
int __wrap_posix_memalign(void **p, size_t alignment, size_t n);
char *__wrap_strdup(const char *s);
FILE *__wrap_open_memstream(char **text, size_t *size);
void *__wrap_malloc(size_t n) { return alloc_fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t count, size_t n)
{
    return alloc_fail_now() ? NULL : __real_calloc(count, n);
}
void *__wrap_realloc(void *p, size_t n) { return alloc_fail_now() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t alignment, size_t n)
{
    return alloc_fail_now() ? NULL : __real_aligned_alloc(alignment, n);
}
int __wrap_posix_memalign(void **p, size_t alignment, size_t n)
{
    return alloc_fail_now() ? ENOMEM : __real_posix_memalign(p, alignment, n);
}
char *__wrap_strdup(const char *s) { return alloc_fail_now() ? NULL : __real_strdup(s); }
FILE *__wrap_open_memstream(char **text, size_t *size)
{
    if (alloc_fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_open_memstream(text, size);
}
