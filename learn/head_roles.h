/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#ifndef MHA_HEAD_ROLES_H
#define MHA_HEAD_ROLES_H
/* What each head of the small GPT does (chapter "What the heads of the
   Austen model do"): nine scores of a head's attention weights, the rule
   that names its role, and the measurement of every head of a model on
   held-out tokens.  Nothing prints. */
#include <stddef.h>
#include <stdint.h>
#include "bpe.h"
#include "lm.h"

/* <<[[head_roles.h]] the scores>> */
typedef struct lm_head_scores {
    double prev_token, induction, same_token, first_token, punctuation, sentence_start;
    double mean_distance, entropy_bits;
    double prefix_matching;                    /* on repeated random tokens */
    double induction_even, prefix_even;        /* what an even spread scores on the same */
} lm_head_scores;
typedef struct lm_head_tally {                 /* sums over queries i >= 1; zero to start */
    double previous, induction, same, first, punctuation, sentence, distance, entropy, prefix;
    double induction_even, prefix_even;
    size_t previous_queries, induction_queries, same_queries, queries, prefix_queries;
} lm_head_tally;
/* One head's weights w (L, L) on tokens (L) added to t; classes (V) as
   lm_token_classes gives them, starts (L) as lm_sentence_starts. */
void lm_head_tally_window(lm_head_tally *t, const float *w, const int *tokens, size_t L,
                          const unsigned char *classes, const unsigned char *starts);
/* One head's weights w (L, L) on a window whose tokens a..a+r-1 are repeated
   at c..c+r-1 (a + r <= c, c + r <= L), added to t's induction sums. */
void lm_head_tally_induction(lm_head_tally *t, const float *w, size_t L, size_t a, size_t c,
                             size_t r);
/* One head's weights w (L, L) on a window of r random tokens written twice
   (2 r <= L), added to t's prefix-matching sums. */
void lm_head_tally_prefix(lm_head_tally *t, const float *w, size_t L, size_t r);
lm_head_scores lm_head_scores_of(const lm_head_tally *t);   /* 0 for a score with no queries */
/* <<[[head_roles.h]] the scores>> */
#define LM_ROLE_INDUCTION 0.3      /* induction at least this, and above prev_token */
#define LM_ROLE_MAJORITY 0.5       /* the other position scores */
#define LM_ROLE_LOCAL 4.0          /* mean_distance at most this */
/* The role of a head with scores s, by the chapter's rule: "induction",
   "previous-token", "first-token", "same-token", "sentence-start",
   "punctuation", "local" or "broad". */
const char *lm_head_role(const lm_head_scores *s);
/* <<[[head_roles.h]] the tokens>> */
enum {
    LM_TOKEN_PUNCTUATION = 1,      /* ASCII punctuation and white space, one punctuation byte */
    LM_TOKEN_ENDS_SENTENCE = 2,    /* its last byte but white space and quotes is . ! ? */
    LM_TOKEN_SPACE_OR_QUOTE = 4    /* white space and quotation marks only */
};
/* classes (tokenizer->vocab): each token's LM_TOKEN_ bits. */
void lm_token_classes(const bpe *tokenizer, unsigned char *classes);
/* starts (L): 1 where a sentence starts (see the chapter); 0 at position 0. */
void lm_sentence_starts(const int *tokens, size_t L, const unsigned char *classes,
                        unsigned char *starts);
/* <<[[head_roles.h]] the measurement>> */
enum { LM_SPAN_MIN = 20, LM_SPAN_MAX = 50, LM_HEADS_BATCH = 8 };
/* Every head's scores into scores (N H; head h of block l at l H + h), on
   windows windows of the model's context T spread evenly over the tokens
   ids (n), and on the same windows with a span of LM_SPAN_MIN..LM_SPAN_MAX
   tokens (at most T/2) repeated, drawn from seed.  classes (V) as
   lm_token_classes gives them.  MHA_ERR_NULL; MHA_ERR_SHAPE for no windows
   or n < T; MHA_ERR_ARG for a token outside the vocabulary; MHA_ERR_OVERFLOW;
   MHA_ERR_NOMEM; the forward pass's errors. */
/* The prefix-matching score comes from as many windows of floor(T/2)
   random tokens written twice, drawn from the tokens that occur in ids. */
MHA_MUST_CHECK mha_status lm_heads_measure(const lm_model *m, const int *ids, size_t n,
                                           const unsigned char *classes, size_t windows,
                                           uint64_t seed, lm_head_scores *scores);
/* Any model whose attention weights can be read: weights(model, tokens, B,
   out) runs B (at most batch) windows of context T tokens and writes every
   head's weights (layers, B, heads, T, T) as lm_forward_weights does. */
typedef mha_status (*lm_weights_of)(void *model, const int *tokens, size_t B, float *weights);
typedef struct lm_attention_reader {
    size_t layers, heads, vocab, context, batch;
    lm_weights_of weights;
    void *model;
} lm_attention_reader;
/* lm_heads_measure on the model r reads; MHA_ERR_NULL also for a NULL
   weights, MHA_ERR_SHAPE for a batch of 0. */
MHA_MUST_CHECK mha_status lm_heads_measure_reader(const lm_attention_reader *r, const int *ids,
                                                  size_t n, const unsigned char *classes,
                                                  size_t windows, uint64_t seed,
                                                  lm_head_scores *scores);
/* <<[[head_roles.h]] pruning>> */
/* The mean cross-entropy of the next token over windows windows of the
   model's context T spread evenly over ids (n): window k starts at
   k (n - T - 1) / (windows - 1).  MHA_ERR_NULL; MHA_ERR_SHAPE for no windows
   or n < T + 1; the forward pass's errors; MHA_ERR_RANGE for a loss that is
   not finite. */
MHA_MUST_CHECK mha_status lm_sample_loss(const lm_model *m, const int *ids, size_t n,
                                         size_t windows, double *loss);
/* The in-context-learning score's two losses, on the same tokens read twice.
   With r = T/8, f = 5T/32 and d = T - r - f (23T/32 where 32 divides T):
   window k of the first kind starts at s = k (n - d - T - 1) / (windows - 1),
   and *late is the mean loss over its last r positions; the window of the
   second kind starts d later, which puts those tokens at its positions
   f .. f + r - 1, and *early is their mean loss there (the score is *late
   less *early).  MHA_ERR_SHAPE also for T < 8 or n < d + T + 1; else
   lm_sample_loss's errors. */
MHA_MUST_CHECK mha_status lm_in_context_score(const lm_model *m, const int *ids, size_t n,
                                              size_t windows, double *early, double *late);
/* What copying could give the in-context score.  The copying rule predicts
   the token after the latest earlier copy of the current one within the
   context a reading sees.  On the tokens and windows of lm_in_context_score,
   *early and *late are the shares of the tokens the rule predicts from the
   early reading's context and from the late one's, and *ceiling is the sum
   of the early reading's losses of the tokens only the late context lets it
   predict, over all the tokens: what the score would fall by if copying made
   each of those certain and changed nothing else.  Errors as
   lm_in_context_score's. */
MHA_MUST_CHECK mha_status lm_copying_reach(const lm_model *m, const int *ids, size_t n,
                                           size_t windows, double *early, double *late,
                                           double *ceiling);
/* A loss of the model as its head mask stands. */
typedef mha_status (*lm_mask_loss)(const lm_model *m, void *context, double *loss);
/* From a model with every head kept: the loss with none removed into *base,
   and each head's importance, the loss with it alone removed less *base,
   into importance (N H; head h of block l at l H + h).  Every head is kept
   again on return.  MHA_ERR_NULL; MHA_ERR_ARG if a head is removed; loss's
   errors; MHA_ERR_RANGE for a loss that is not finite. */
MHA_MUST_CHECK mha_status lm_heads_importance(lm_model *m, lm_mask_loss loss, void *context,
                                              double *base, double *importance);
typedef struct lm_prune_step {
    size_t layer, head;            /* the head removed at this step */
    double loss;                   /* the loss with it and every earlier one removed */
} lm_prune_step;
/* The greedy order: steps (count, at most N H) of removals from a model with
   every head kept, each the head whose removal raises the loss least (ties
   to the first, block-major).  Every head is kept again on return.  Errors
   as lm_heads_importance's, and MHA_ERR_ARG for count above N H. */
MHA_MUST_CHECK mha_status lm_heads_prune(lm_model *m, lm_mask_loss loss, void *context,
                                         size_t count, lm_prune_step *steps);
/* <<[[head_roles.h]] pruning>> */
/* The copying gain: passages passages spread evenly over ids (n), passage k
   of r = least + k mod (most - least + 1) tokens starting at token
   k (n - most) / (passages - 1), each run written twice; *first the mean
   loss of the next token at positions 1..r-1, *second at r..2r-1, averaged
   over the passages.  MHA_ERR_NULL; MHA_ERR_SHAPE for no passages, least < 2,
   least > most, 2 most above the context or n < most; the forward pass's
   errors; MHA_ERR_RANGE for a loss that is not finite. */
MHA_MUST_CHECK mha_status lm_repeat_gain(const lm_model *m, const int *ids, size_t n,
                                         size_t passages, size_t least, size_t most,
                                         double *first, double *second);
#endif
