/* generated from chapters/05-masking.nw; edit the book, not this file */
#ifndef MHA_MASK_H
#define MHA_MASK_H
/* Which keys a query may not see. */
#include <stddef.h>

/* <<[[mha_mask.h]] masks>> */
/* A NULL mask, or one whose fields are all 0 or NULL, blocks nothing.  A key
   is blocked when any field blocks it; a query whose keys are all blocked
   gets zero weights and a zero context, so its output is the output bias.
   The arrays are the caller's, read during the call only. */
typedef struct mha_mask {
    int causal;                            /* mask key j > query i */
    const unsigned char *attn_mask_bool;   /* (L, S), nonzero = masked, or NULL */
    const float *attn_mask_float;          /* (L, S), added to the scores, or NULL */
    const unsigned char *key_padding_mask; /* (B, S), nonzero = padding, or NULL */
} mha_mask;
/* <<[[mha_mask.h]] masks>> */
/* 1 when the mask removes key j for query i of sequence b, S keys a sequence: a
   causal mask (j > i), the boolean mask, or key j being padding in sequence b;
   0 otherwise, and for a NULL mask.  Unchecked: i < L, j < S and b < B. */
int mha_key_masked(const mha_mask *mask, size_t S, size_t b, size_t i, size_t j);

#endif
