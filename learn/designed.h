/* generated from chapters/11-designed-heads.nw; edit the book, not this file */
#ifndef DESIGNED_H
#define DESIGNED_H
/* Heads designed by hand: a layer of five heads whose weights are written down.
   E = 320, H = 5, D = 64; sentences of at most 32 tokens. */
#include "mha.h"

/* <<[[designed.h]] declarations>> */
enum {
    MHA_DESIGNED_HEADS = 5,
    MHA_DESIGNED_HEAD_DIM = 64,                               /* D */
    MHA_DESIGNED_EMBED = MHA_DESIGNED_HEADS * MHA_DESIGNED_HEAD_DIM,   /* E */
    MHA_DESIGNED_POSITIONS = 32,                              /* P: the longest sentence */
    MHA_DESIGNED_POSITION_FEATURES = 0,                       /* x[0..31]: position one-hot */
    MHA_DESIGNED_TOKEN_FEATURES = 32,                         /* x[32..63]: token one-hot */
    MHA_DESIGNED_CONSTANT_FEATURE = 64                        /* x[64] = 1 */
};
/* <<[[designed.h]] declarations>> */
extern const char *const mha_designed_head_names[MHA_DESIGNED_HEADS];
/* in_proj_weight (3E, E) and out_proj_weight (E, E), both written in full. */
void mha_designed_params(float *in_proj_weight, float *out_proj_weight);
/* tokens (L) words; x (L, E) out. */
MHA_MUST_CHECK mha_status mha_designed_embed(const char *const *tokens, size_t L, float *x);
/* <<[[designed.h]] declarations>> */
/* Each head's worst row on `sentence` (words separated by spaces) under the
   causal mask: the largest share of a query's weight outside the keys the
   head was designed for; for the averaging head, the largest distance of a
   weight from an even split.  worst (H) out. */
MHA_MUST_CHECK
mha_status mha_designed_worst_miss(const char *sentence, double worst[MHA_DESIGNED_HEADS]);
#endif
