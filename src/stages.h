/* generated from chapters/08-fast-attention.nw; edit the book, not this file */
#ifndef MHA_STAGES_H
#define MHA_STAGES_H
/* Stage marks: how the blocked pipelines (mha_forward_blocked,
   mha_forward_saving, mha_backward_saved) tell a caller's timer where they are.
   Internal, not part of mha.h.
   - fast_stage_timer_set(t) installs t for the calls this thread makes from
     now on (NULL removes it) and returns the timer it replaces; t must stay
     valid while it is installed.
   - A pipeline calls t->mark(t->context, stage) on the calling thread, never
     inside a parallel region, as each stage begins, and marks
     FAST_STAGE_OUTSIDE as it leaves them (before its range check and frees).
     The time from one mark to the next belongs to the first one's stage; a
     stage may begin several times in a pass (cross-attention packs and
     projects three inputs).  Time before the first mark is outside too.
   - Without a timer a mark costs one test of a thread-local pointer.  A timer
     never changes a result: the marks only call it. */
typedef enum fast_stage {
    FAST_STAGE_OUTSIDE,        /* checks, allocation, range checks, frees */
    FAST_STAGE_PACK,           /* packing a weight matrix (mha_forward_blocked) */
    FAST_STAGE_PROJECT_IN,     /* the input projections */
    FAST_STAGE_ATTEND,         /* the attention core */
    FAST_STAGE_PROJECT_OUT,    /* the output projection */
    FAST_STAGE_GRAD_OUT,       /* backward: through the output projection */
    FAST_STAGE_GRAD_ATTEND,    /* backward: through the attention core */
    FAST_STAGE_GRAD_IN,        /* backward: through the input projections */
    FAST_STAGE_COUNT
} fast_stage;
typedef struct fast_stage_timer {
    void (*mark)(void *context, fast_stage stage);
    void *context;
} fast_stage_timer;
const fast_stage_timer *fast_stage_timer_set(const fast_stage_timer *timer);
void fast_stage_mark(fast_stage stage);
#endif
