/* generated from chapters/23-writing-results.nw; edit the book, not this file */
#ifndef MHA_CLOCK_H
#define MHA_CLOCK_H
#include <time.h>
static inline double mha_seconds(void)           /* the monotonic clock, in seconds */
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#endif
