/* generated from chapters/07-simd.nw; edit the book, not this file */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "fast.h"

enum { SCRATCH_KEPT = 8, SCRATCH_HEADER = 64 };
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static void *scratch_kept[SCRATCH_KEPT];               /* the blocks, or NULL */

static size_t block_bytes(void *block)
{
    return *(size_t *)((char *)block - SCRATCH_HEADER);
}

/* <<[[workspace.c]] functions>> */
void *fast_scratch_take(size_t bytes)
{
    void *found = NULL;
    pthread_mutex_lock(&scratch_lock);
    int best = -1;
    for (int i = 0; i < SCRATCH_KEPT; i++)
        if (scratch_kept[i] != NULL && block_bytes(scratch_kept[i]) >= bytes &&
            (best < 0 || block_bytes(scratch_kept[i]) < block_bytes(scratch_kept[best])))
            best = i;
    if (best >= 0) {
        found = scratch_kept[best];
        scratch_kept[best] = NULL;
    }
    pthread_mutex_unlock(&scratch_lock);
    if (found != NULL || bytes > SIZE_MAX - 2 * SCRATCH_HEADER)
        return found;
    char *raw = aligned_alloc(SCRATCH_HEADER, (bytes + 2 * SCRATCH_HEADER - 1)
                                              / SCRATCH_HEADER * SCRATCH_HEADER);
    if (raw == NULL)
        return NULL;
    *(size_t *)raw = bytes;
    return raw + SCRATCH_HEADER;
}
/* <<[[workspace.c]] functions>> */
void fast_scratch_give(void *block)
{
    if (block == NULL)
        return;
    pthread_mutex_lock(&scratch_lock);
    int place = 0;
    for (int i = 0; i < SCRATCH_KEPT; i++)
        if (scratch_kept[i] == NULL ||
            (scratch_kept[place] != NULL && block_bytes(scratch_kept[i]) <
                                            block_bytes(scratch_kept[place])))
            place = i;
    void *spare = block;
    if (scratch_kept[place] == NULL || block_bytes(scratch_kept[place]) < block_bytes(block)) {
        spare = scratch_kept[place];
        scratch_kept[place] = block;
    }
    pthread_mutex_unlock(&scratch_lock);
    if (spare != NULL)
        free((char *)spare - SCRATCH_HEADER);
}
/* <<[[workspace.c]] functions>> */
void fast_scratch_release(void)
{
    pthread_mutex_lock(&scratch_lock);
    for (int i = 0; i < SCRATCH_KEPT; i++) {
        if (scratch_kept[i] != NULL)
            free((char *)scratch_kept[i] - SCRATCH_HEADER);
        scratch_kept[i] = NULL;
    }
    pthread_mutex_unlock(&scratch_lock);
}
