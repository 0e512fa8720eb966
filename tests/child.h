/* generated from chapters/30-tests.nw; edit the book, not this file */
#ifndef CHILD_H
#define CHILD_H
#include <sys/resource.h>
#include <unistd.h>

extern void __gcov_dump(void) __attribute__((weak));

static inline void child_limit_files(rlim_t bytes)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0) {
        limit.rlim_cur = bytes < limit.rlim_max ? bytes : limit.rlim_max;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
}
static inline _Noreturn void child_exit(int status)
{
    struct rlimit limit;
    if (__gcov_dump != NULL) {
        if (getrlimit(RLIMIT_FSIZE, &limit) == 0) {
            limit.rlim_cur = limit.rlim_max;
            setrlimit(RLIMIT_FSIZE, &limit);
        }
        __gcov_dump();
    }
    _exit(status);
}
#endif
