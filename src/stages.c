/* generated from chapters/08-fast-attention.nw; edit the book, not this file */
#include <stddef.h>
#include "stages.h"

static _Thread_local const fast_stage_timer *installed;

const fast_stage_timer *fast_stage_timer_set(const fast_stage_timer *timer)
{
    const fast_stage_timer *replaced = installed;
    installed = timer;
    return replaced;
}

void fast_stage_mark(fast_stage stage)
{
    if (installed != NULL)
        installed->mark(installed->context, stage);
}
