/* generated from chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#ifndef MHA_LM_H
#define MHA_LM_H
/* A small GPT (chapter "A small GPT that reads Austen"): token and learned
   position embeddings, N pre-norm blocks with a causal mask, a final
   LayerNorm and the tied unembedding; the cross-entropy of the next token,
   its gradient, AdamW and the learning-rate schedule.  Nothing prints. */
#include <stddef.h>
#include <stdint.h>
#include "block.h"
#include "mha.h"

/* <<[[lm.h]] the model>> */
typedef struct lm_config {
    size_t vocab, context, embed_dim, heads, layers, hidden;   /* V, T, E, H, N, F */
} lm_config;
enum { LM_NAME_MAX = 64, LM_TENSORS_PER_BLOCK = 12, LM_MAX_LAYERS = 64, LM_BATCH_MAX = 4096 };
typedef struct lm_tensor {
    char name[LM_NAME_MAX];        /* the state_dict name: "blocks.0.linear1.weight" */
    size_t rank, shape[2];
    size_t offset;                 /* into the flat arrays */
    int decay;                     /* 1: weight decay applies */
} lm_tensor;
typedef struct lm_model {
    lm_config config;
    size_t count;                  /* parameters */
    float *params;                 /* (count) */
    size_t tensor_count;
    lm_tensor *tensors;            /* (tensor_count), in state_dict order */
    float *head_mask;              /* (N, H): 1 keeps a head, 0 removes it (chapter 17) */
} lm_model;
MHA_MUST_CHECK mha_status lm_config_check(const lm_config *c);
MHA_MUST_CHECK mha_status lm_model_alloc(lm_model *m, const lm_config *c);
MHA_MUST_CHECK mha_status lm_model_init(lm_model *m, const lm_config *c, uint64_t seed);
#define LM_INIT_SD 0.02            /* GPT-2's deviation for the matrices and embeddings */
/* lm_model_init with the token and position embeddings drawn with deviations
   token_sd and position_sd (lm_model_init: both LM_INIT_SD); MHA_ERR_ARG for
   a deviation not in (0, 1]. */
MHA_MUST_CHECK mha_status lm_model_init_with(lm_model *m, const lm_config *c, uint64_t seed,
                                             double token_sd, double position_sd);
void lm_model_free(lm_model *m);
const lm_tensor *lm_tensor_find(const lm_model *m, const char *name);
mha_block_params lm_block_params(const lm_model *m, size_t layer);
mha_block_grads lm_block_grads(const lm_model *m, float *grads, size_t layer);
/* <<[[lm.h]] the model>> */
typedef struct lm_workspace {
    size_t batch, length;          /* B, L: the largest batch this holds */
    int training;
    float *stream;                 /* (N + 1, B, L, E) */
    float *normed, *mean, *rstd;   /* (B, L, E), (B, L), (B, L) */
    float *logits;                 /* (B, L, V), then their gradient */
    float *grad_a, *grad_b;        /* (B, L, E) each */
    mha_block_saved *saved;        /* (N) */
    size_t saved_count;
    float *grads;                  /* (count) */
    float *out_proj;               /* (E, E): a block's output projection less its removed heads */
} lm_workspace;
MHA_MUST_CHECK mha_status lm_workspace_init(lm_workspace *ws, const lm_model *m, size_t batch,
                                            size_t length, int training);
void lm_workspace_free(lm_workspace *ws);
/* logits (B, L, V) of tokens (B, L) into ws->logits; B, L at most the workspace's. */
MHA_MUST_CHECK mha_status lm_forward(const lm_model *m, lm_workspace *ws, const int *tokens,
                                     size_t B, size_t L);
/* The mean cross-entropy of targets (B, L) after tokens (B, L) into *loss;
   with a training workspace, the gradient of it into ws->grads (MHA_ERR_ARG
   if a head is removed).  The batch is the workspace's. */
MHA_MUST_CHECK mha_status lm_loss(const lm_model *m, lm_workspace *ws, const int *tokens,
                                  const int *targets, double *loss);
/* <<[[lm.h]] the model>> */
/* lm_forward, and every head's attention weights into weights (N, B, H, L, L):
   weights[(((l B + b) H + h) L + i) L + j] is the weight that query i gives
   key j in head h of block l (0 for j > i).  MHA_ERR_NULL for a NULL weights. */
MHA_MUST_CHECK mha_status lm_forward_weights(const lm_model *m, lm_workspace *ws,
                                             const int *tokens, size_t B, size_t L,
                                             float *weights);
/* <<[[lm.h]] the model>> */
/* Keeps (keep 1) or removes (keep 0) head `head` of block `layer` from every
   forward pass: its output is multiplied by 0 before the output projection.
   MHA_ERR_NULL; MHA_ERR_ARG for a head or block beyond the model's. */
MHA_MUST_CHECK mha_status lm_head_keep(lm_model *m, size_t layer, size_t head, int keep);
void lm_heads_restore(lm_model *m);              /* keeps every head */
size_t lm_heads_removed(const lm_model *m);      /* heads whose multiplier is not 1 */
int lm_head_removed(const lm_model *m, size_t k);  /* head k (layer * H + head): 1 if removed */
/* <<[[lm.h]] the optimiser>> */
typedef struct lm_adamw {
    double beta1, beta2, epsilon, weight_decay;
    size_t step;                   /* steps taken */
    float *m, *v;                  /* (count) each */
} lm_adamw;
MHA_MUST_CHECK mha_status lm_adamw_init(lm_adamw *opt, const lm_model *model);
void lm_adamw_free(lm_adamw *opt);
/* One step from grads times scale (the clipping, 1 for none) at the given rate. */
void lm_adamw_step(lm_adamw *opt, lm_model *model, const float *grads, double scale,
                   double rate);
/* The rate at step of a run of steps: peak step / warmup up to warmup, then half
   a cosine down to peak / 10 at steps, and peak / 10 after. */
double lm_learning_rate(size_t step, size_t warmup, size_t steps, double peak);
/* The Euclidean norm of grads (n), the same whatever the number of threads. */
double lm_gradient_norm(const float *grads, size_t n);
/* The factor that clips a gradient of this norm to at most limit: 1 if it is within. */
double lm_clip_scale(double norm, double limit);
/* <<[[lm.h]] the data>> */
/* Draws a span of the tokens 0..T-1 to repeat: span[2] = r tokens from least
   to most (both at most T/2, least <= most), a source span[0] = a and a
   destination span[1] = c with a + r <= c and c + r <= T. */
void lm_repeat_span(uint64_t *state, size_t T, size_t least, size_t most, size_t span[3]);
/* B windows of T + 1 tokens of text (n tokens, n > T): inputs (B, T),
   targets (B, T); with probability repeat (0 to 1) a window has a span of
   20 to (T + 1)/2 of its tokens written twice, as lm_repeat_span draws it. */
MHA_MUST_CHECK mha_status lm_batch(const int *text, size_t n, size_t B, size_t T, double repeat,
                                   uint64_t *state, int *inputs, int *targets);
/* <<[[lm.h]] generation>> */
typedef struct lm_decoder {
    const lm_model *model;
    mha_kv_cache *caches;          /* (N): each block's keys and values */
    size_t position;               /* tokens in the caches */
    float *x, *h, *attn, *hidden, *act, *logits;   /* (E), (E), (E), (F), (F), (V) */
} lm_decoder;
MHA_MUST_CHECK mha_status lm_decoder_init(lm_decoder *d, const lm_model *model);
void lm_decoder_reset(lm_decoder *d);
void lm_decoder_free(lm_decoder *d);
/* Feeds token at the next position; its logits into d->logits.
   MHA_ERR_CACHE_FULL once the context is full; MHA_ERR_ARG if a head is removed;
   MHA_ERR_RANGE when a logit is infinite or NaN (finite weights that overflow). */
MHA_MUST_CHECK mha_status lm_decoder_step(lm_decoder *d, int token);
/* The loss of one row of logits (V) against its target: its log-sum-exp less
   the target's logit, in nats, computed in double.  Every held-out score of
   the book (the commands' and the heads chapter's) is a sum of these. */
double lm_row_loss(const float *logits, size_t V, int target);
/* A token drawn from logits (V) at temperature (0: the largest), among the
   top_k largest (0: all). */
int lm_sample(const float *logits, size_t V, double temperature, size_t top_k, uint64_t *state,
              float *scratch);
#endif
