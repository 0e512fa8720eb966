/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static long fail_at = -1, made;     /* -1: the environment not read yet */
static int fail_now(void)
{
    if (fail_at < 0) {
        const char *n = getenv("MHA_TEST_FAIL_ALLOC");
        fail_at = n ? atol(n) : 0;
    }
    long k;
#pragma omp atomic capture
    k = ++made;
    if (fail_at == 0 || k != fail_at)
        return 0;
    const char *mark = getenv("MHA_TEST_FAIL_MARK");
    if (mark) {
        const int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            close(fd);
    }
    return 1;
}
void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t alignment, size_t n);
int __real_posix_memalign(void **p, size_t alignment, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t count, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t alignment, size_t n);
int __wrap_posix_memalign(void **p, size_t alignment, size_t n);
char *__wrap_strdup(const char *s);
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t count, size_t n) { return fail_now() ? NULL : __real_calloc(count, n); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t alignment, size_t n)
{
    return fail_now() ? NULL : __real_aligned_alloc(alignment, n);
}
int __wrap_posix_memalign(void **p, size_t alignment, size_t n)
{
    return fail_now() ? ENOMEM : __real_posix_memalign(p, alignment, n);
}
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
