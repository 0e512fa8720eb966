/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wrap_alloc.h"
static long fail_at = -1, made;     /* -1: the environment not read yet */
static void stop_failing(void)
{
    fail_at = 0;
}
int alloc_fail_now(void)
{
    if (fail_at < 0) {
        const char *n = getenv("MHA_TEST_FAIL_ALLOC");
        fail_at = n ? atol(n) : 0;
        if (atexit(stop_failing) != 0)
            fail_at = 0;
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
